"""Pinned (page-locked) host memory: ``Tensor.pin_memory()`` and ``Tensor.is_pinned()``.

The core allocates no memory itself, and page-locked host memory is the accelerator's to give
(CUDA registers it with its driver so that transfers to the device can run asynchronously).
So an accelerator backend offers it through three optional members of its
``DeviceInterface``: ``can_pin_memory()``, ``empty_pinned(nbytes)`` (a CPU ``uint8`` tensor
over page-locked memory) and ``is_pinned(storage)``; this module asks the available device
types that can pin, in the order they were registered (PyTorch's "current accelerator").
"""

from __future__ import annotations

from math import prod
from typing import Any

from . import _registry
from . import dtypes as dt
from ._pickling import layout_codec
from ._tensor import Tensor, contiguous_strides, make_tensor
from .devices import device as _device
from .layouts import strided
from .plugins import DeviceInterface

__all__ = ["is_pinned", "pin_memory", "pinning_interface"]

#: PyTorch's error for ``pin_memory()`` without an accelerator.
NO_ACCELERATOR = "Cannot access accelerator device when none is available."


def _can_pin(iface: Any) -> bool:
    return bool(iface.is_available() and iface.can_pin_memory())


def pinning_interface(device: Any = None) -> DeviceInterface | None:
    """The interface of the accelerator that pins host memory: the first available device
    type whose backend can (``can_pin_memory()``), or the one ``device`` names; None when
    there is none (a ``device`` that cannot pin is a ``RuntimeError`` saying why)."""
    interfaces = _registry.interfaces()
    if device is not None and device != "":
        kind = _device(device).type
        iface = interfaces.get(kind)
        if iface is not None and _can_pin(iface):
            return iface
        if iface is None:
            why = _registry.install_hint(kind)
        elif not iface.can_pin_memory():
            able = [name for name, i in interfaces.items() if _can_pin(i)]
            why = "its backend does not offer pinned host memory" + (
                f" (device types that do: {', '.join(able)})" if able else ""
            )
        else:
            why = f"it is not available here: {iface.unavailable_reason}"
        raise RuntimeError(f"cannot pin memory for device type '{kind}': {why}")
    for iface in interfaces.values():
        if _can_pin(iface):
            return iface
    return None


def _no_accelerator() -> RuntimeError:
    # Backends that would pin were their device available (CUDA without CuPy or a GPU).
    blocked = [
        f"{name}: {i.unavailable_reason}"
        for name, i in _registry.interfaces().items()
        if i.can_pin_memory() and not i.is_available()
    ]
    if blocked:
        why = "the installed ones are not available here (" + "; ".join(blocked) + ")"
    else:
        why = (
            "none is installed (on a machine with an NVIDIA GPU: pip install "
            "'tensorcore-cuda[cuda12]', or [cuda13] to match the driver)"
        )
    return RuntimeError(
        f"{NO_ACCELERATOR} Pinned host memory comes from an accelerator backend, and {why}"
    )


def _check_pinnable(t: Any) -> None:
    if not isinstance(t, Tensor):
        raise TypeError(f"pin_memory(): expected a Tensor, got {type(t).__name__}")
    if t._device.type != "cpu":
        raise RuntimeError(
            f"cannot pin a tensor on {t._device}: only CPU tensors can be pinned; pin the "
            "tensor on the host before moving it (t.cpu().pin_memory())"
        )


def _dense_strides(shape: tuple[int, ...], stride: tuple[int, ...]) -> tuple[int, ...]:
    """``stride`` when it lays ``shape`` out densely (every element once, in any dim order:
    PyTorch keeps a pinned copy's strides), else the contiguous strides."""
    if 0 in shape:
        return contiguous_strides(shape)
    expected = 1
    for st, n in sorted((st, n) for n, st in zip(shape, stride, strict=True) if n != 1):
        if st != expected:
            return contiguous_strides(shape)
        expected *= n
    return stride


def is_pinned(self: Tensor, device: Any = None) -> bool:
    """Whether the tensor lives in pinned (page-locked) host memory, as an accelerator
    backend reports it: False for tensors of other devices and where no backend can pin.

    ``device`` (deprecated in PyTorch) asks the backend of that device type only.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.ones(2).is_pinned()  # no accelerator backend pinned it
    False
    """
    if self._device.type != "cpu":
        return False
    if self._layout is not strided:
        # A tensor of another layout (sparse) is pinned when its dense parts are.
        parts, _ = layout_codec(self._layout.name)[0](self)
        return all(is_pinned(p, device) for p in parts.values())
    st = self._storage
    if st is None:
        return False
    if device is not None and device != "":
        iface = pinning_interface(device)
        return iface is not None and bool(iface.is_pinned(st))
    return any(_can_pin(i) and i.is_pinned(st) for i in _registry.interfaces().values())


def pin_memory(self: Tensor, device: Any = None) -> Tensor:
    """A copy of this CPU tensor in pinned (page-locked) host memory, from which an
    accelerator copies faster, and asynchronously; ``self`` when it already is pinned.

    The memory comes from an accelerator backend (``tensorcore-cuda``): the first available
    device type that can pin, or the one ``device`` names (deprecated in PyTorch, which
    always uses the current accelerator). Without one it raises PyTorch's ``RuntimeError``,
    "Cannot access accelerator device when none is available.", saying what to install.
    The copy keeps the strides of a dense tensor (a permuted one stays permuted), is
    contiguous otherwise, and is differentiable (its gradient is the incoming gradient).
    A CPU tensor of another layout (sparse) is rebuilt over pinned copies of its dense parts
    (its layout's serialisation codec takes it apart). Only CPU tensors can be pinned.

    Examples
    --------
    >>> import tensorcore as tc
    >>> try:
    ...     tc.ones(2).pin_memory()
    ... except RuntimeError as e:
    ...     print(str(e).split(". ")[0])
    Cannot access accelerator device when none is available
    """
    _check_pinnable(self)
    iface = pinning_interface(device)
    if iface is None:
        raise _no_accelerator()
    if self._layout is not strided:
        to_parts, from_parts = layout_codec(self._layout.name)
        parts, attrs = to_parts(self)
        pinned = {k: pin_memory(p, iface.type) for k, p in parts.items()}
        if all(pinned[k] is p for k, p in parts.items()):
            return self
        return from_parts(pinned, dict(attrs), self._shape)
    st = self._storage
    if st is not None and iface.is_pinned(st):
        return self
    shape, dtype = self._shape, self._dtype
    stride = _dense_strides(shape, self._stride)
    nbytes = prod(shape) * dtype.itemsize
    buf = iface.empty_pinned(nbytes)
    if (
        not isinstance(buf, Tensor)
        or buf._device.type != "cpu"
        or buf._dtype is not dt.uint8
        or buf._storage is None
        or buf._offset != 0
        or buf._storage.nbytes < nbytes
    ):
        raise RuntimeError(
            f"the '{iface.type}' backend's empty_pinned({nbytes}) returned "
            f"{_describe(buf)}, not a uint8 CPU tensor over {nbytes} bytes of its own storage"
        )
    # A tensor of its own over the buffer's storage (not a view of the uint8 buffer), so that
    # the copy below records autograd as a copy into a fresh tensor.
    out = make_tensor(buf._storage, shape, stride, 0, dtype, buf._device)
    out.copy_(self)
    return out


def _describe(x: Any) -> str:
    if not isinstance(x, Tensor):
        return type(x).__name__
    return f"a {x._dtype.name} tensor of shape {list(x._shape)} on {x._device}"
