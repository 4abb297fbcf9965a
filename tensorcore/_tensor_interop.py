"""A tensor as other libraries take it: the backend's native array, ``numpy()``, NumPy's
``__array__``, DLPack, the array API's ``__array_namespace__`` and ``to_device``, and
``__cuda_array_interface__``. Attached by ``_tensor_methods.install``."""

from __future__ import annotations

from typing import Any

from ._tensor import Tensor
from .autograd import grad_mode as _grad_mode
from .autograd.graph import requires_grad as _public_rg
from .ops._validate import checked
from .plugins import manager


def native(self: Tensor) -> Any:
    """The backend's native array for this tensor (made once, lazily, never a copy); made
    afresh on every call for a device whose arrays are values (``mutable_arrays`` false),
    whose storage's array a write replaces."""
    n = self._native
    if n is None:
        iface = manager.device_backend(self._device)
        n = iface.materialize(self)
        if iface.mutable_arrays:
            self._native = n
    return n


@checked("numpy(Tensor self, *, bool force=False) -> Any")
def numpy(self: Tensor, *, force: bool = False) -> Any:
    """The tensor as a NumPy array sharing its memory (CPU tensors only).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.arange(3).numpy()
    array([0, 1, 2])
    """
    if not force and _public_rg(self) and _grad_mode.is_grad_enabled():
        # (under no_grad PyTorch lets it through: a custom operator's kernel reads its
        # inputs so, below autograd)
        raise RuntimeError(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
        )
    if self._layout.name != "strided":
        # Only strided tensors have memory NumPy can view (a sparse tensor has no storage).
        raise TypeError(
            f"can't convert {self._layout.name} layout tensor to numpy. Use Tensor.to_dense() "
            "first."
        )
    arr = manager.device_backend(self._device).to_numpy(self)
    if arr is None:
        if force:
            return numpy(self.cpu().detach())
        raise TypeError(
            f"can't convert {self._device} device type tensor to numpy. Use Tensor.cpu() to "
            "copy the tensor to host memory first."
        )
    return arr


def __array__(self: Tensor, dtype: Any = None, copy: Any = None) -> Any:
    arr = numpy(self.detach())
    return arr if dtype is None else arr.astype(dtype, copy=False)


def __dlpack__(
    self: Tensor,
    *,
    stream: Any = None,
    max_version: tuple[int, int] | None = None,
    dl_device: tuple[Any, int] | None = None,
    copy: bool | None = None,
) -> Any:
    """A DLPack capsule of this tensor's memory (the standard's keywords: a ``stream`` to
    order the export on, the consumer's ``max_version``, a ``dl_device`` to export to and
    ``copy``), produced by the device backend's ``to_dlpack`` (by default the native array's
    ``__dlpack__``)."""
    if _public_rg(self):
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
    if self._layout.name != "strided":
        raise BufferError(
            f"__dlpack__(): can't export a {self._layout.name} tensor (DLPack describes strided "
            "memory only); use Tensor.to_dense() first"
        )
    return manager.device_backend(self._device).to_dlpack(
        self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy
    )


def __array_namespace__(self: Tensor, /, *, api_version: str | None = None) -> Any:
    """The array API standard's namespace for tensors: :mod:`tensorcore.array_api`."""
    from . import array_api

    if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12"):
        raise ValueError(f"__array_namespace__(): unsupported api_version {api_version!r}")
    return array_api


def to_device(self: Tensor, device: Any, /, *, stream: Any = None) -> Tensor:
    """This tensor on ``device`` (itself when it is already there), as the array API
    standard spells ``.to(device)``."""
    if stream is not None:
        raise ValueError("to_device(): stream is not supported")
    return self.to(device)


def _cuda_array_interface(self: Tensor) -> Any:
    """The native array's ``__cuda_array_interface__`` (device backends that have one)."""
    if _public_rg(self):
        raise RuntimeError(
            "Can't get __cuda_array_interface__ on Variable that requires grad. "
            "If gradients aren't required, use var.detach() to get Variable that doesn't "
            "require grad."
        )
    n = native(self)
    try:
        return n.__cuda_array_interface__
    except AttributeError:
        raise AttributeError(
            f"Can't get __cuda_array_interface__ on non-CUDA tensor type: {self._device} tensor"
        ) from None


def __dlpack_device__(self: Tensor) -> Any:
    return native(self).__dlpack_device__()
