"""Moving a tensor to another device: the ``to_device`` composite, ``Tensor.to`` and
cross-device ``copy_`` all go through the device backends' ``copy_between``."""

from __future__ import annotations

from typing import Any

from .. import _registry
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..devices import device as _device
from .frontends import empty

__all__ = ["same_device", "to_device_copy"]


def same_device(a: Any, b: Any) -> bool:
    """Whether the device objects ``a`` and ``b`` name one device: equal, or of one type
    that has a single device, one without an index and the other with index 0 (``"cpu"`` and
    ``"cpu:0"``; ``"mydev"`` and ``"mydev:0"``, however the backend's allocator labels its
    tensors)."""
    if a == b:
        return True
    return (
        a.type == b.type
        and (a.index or 0) == (b.index or 0)
        and _registry.interface(a).device_count() <= 1
    )


def to_device_copy(self: Tensor, dev: Any, non_blocking: bool = False) -> Tensor:
    """A copy of ``self`` on ``dev`` (the same device: the backend's own copy kernel)."""
    dev = _device(dev)
    _registry.interface(dev)  # raises with the install hint when unusable
    out = empty(self._shape, self._dtype, dev)
    if dev == self._device:
        # A copy on the same device: the backend's own copy kernel.
        with no_grad():
            out.copy_(self)
    else:
        _cross_copy(self, out, non_blocking)
    return out


def _cross_copy(src: Tensor, dst: Tensor, non_blocking: bool) -> None:
    for iface in (_registry.interface(dst._device), _registry.interface(src._device)):
        if iface.copy_between(src.contiguous(), dst):
            return
    if same_device(src._device, dst._device):
        # One device under two names ("cpu" and "cpu:0"): the backend's own copy kernel.
        with no_grad():
            dst.copy_(src)
        return
    raise RuntimeError(
        f"copy_(): no installed backend can copy from '{src._device}' to '{dst._device}'"
    )
