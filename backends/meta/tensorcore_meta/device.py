"""The ``meta`` device: tensors with shapes, dtypes and strides, and no data.

A storage of this device has ``data=None`` and the ``nbytes`` a real device would allocate,
so sizes, strides, offsets, ``numel()``, ``nbytes`` and ``untyped_storage().nbytes`` are
those of a real tensor, and views (which the core computes as sizes, strides and offsets over
the same storage) work unchanged; only the values are missing.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

# Not "from tensorcore import backend": that asks the package for an attribute first, which
# loads the plugins (this one included) while this module is still being imported.
import tensorcore.backend as backend
from tensorcore.backend import DeviceInterface, Storage, Tensor

if TYPE_CHECKING:
    import tensorcore as tc

__all__ = ["NO_DATA", "MetaDevice", "copy_out_error", "data_dependent_error"]

_INT64_MAX = 2**63 - 1

#: PyTorch's message for reading a meta tensor's values out.
NO_DATA = "Cannot copy out of meta tensor; no data!"


def copy_out_error() -> NotImplementedError:
    """The error of every attempt to read a meta tensor's values (PyTorch's type and text).

    Examples
    --------
    >>> from tensorcore_meta.device import copy_out_error
    >>> copy_out_error()
    NotImplementedError('Cannot copy out of meta tensor; no data!')
    """
    return NotImplementedError(NO_DATA)


def data_dependent_error(
    op: str, *tensors: Tensor, what: str = "the shape of its result", hint: str = ""
) -> NotImplementedError:
    """The error of an operator whose result's shape depends on values: it names the
    operator and its meta tensors (the SPI's :func:`~tensorcore.backend.unsupported`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore_meta.device import data_dependent_error
    >>> print(data_dependent_error("nonzero", tc.empty(3, device="meta")))
    nonzero: not supported for (float32 tensor of shape [3] on meta (strided)): the shape of \
its result depends on the values, which meta tensors do not have; run it on a device with data
    """
    return backend.unsupported(
        op,
        *tensors,
        why=f"{what} depends on the values, which meta tensors do not have",
        hint=hint or "run it on a device with data",
    )


class MetaDevice(DeviceInterface):
    """Allocation without memory: every storage is ``Storage(None, nbytes, ...)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.empty(1000, 1000, device="meta")
    >>> x.untyped_storage().nbytes, x.untyped_storage().data is None, x.data_ptr()
    (4000000, True, 0)
    """

    type = "meta"
    holds_data = False

    def empty(self, shape: tuple[int, ...], dtype: tc.dtype, device: tc.device) -> Tensor:
        """A contiguous tensor over a storage that records its size and holds nothing; a
        size no real device could address is PyTorch's error (where a real device's
        allocation would fail, nothing here would)."""
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes > _INT64_MAX or any(s > _INT64_MAX for s in shape):
            raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
        return backend.contiguous_tensor(None, nbytes, shape, dtype, device)

    def materialize(self, tensor: Tensor) -> Any:
        """There is no native array to make: the meta kernels never ask for one, and anything
        else that does (a foreign kernel, an export) is reading values that do not exist."""
        raise copy_out_error()

    def data_ptr(self, storage: Storage) -> int:
        """0, as PyTorch reports for meta tensors: there is no memory to point at."""
        return 0

    def from_data(
        self, flat: list[Any], shape: tuple[int, ...], dtype: tc.dtype, device: tc.device
    ) -> Tensor:
        """``tc.tensor([...], device="meta")``: a tensor of the data's shape, the data dropped."""
        return self.empty(shape, dtype, device)

    def copy_between(self, src: Tensor, dst: Tensor) -> bool:
        """Copying into meta keeps nothing (the frontend has allocated ``dst`` with the right
        metadata); copying out of meta has nothing to copy, as in PyTorch."""
        if src.device.type == self.type:
            raise copy_out_error()
        return True

    def storage_to_bytes(self, storage: Storage) -> bytes:
        """Saving a meta storage's contents is copying out of it."""
        raise copy_out_error()

    def storage_from_bytes(self, data: bytes | bytearray, dtype: tc.dtype, device: Any) -> Storage:
        """Loading onto meta (``map_location="meta"``) keeps the size and drops the bytes."""
        return Storage(None, len(data), device, dtype)

    def clone_storage(self, storage: Storage) -> Storage:
        """A new meta storage of the same size (what ``copy.deepcopy`` of a meta model does)."""
        return Storage(None, storage.nbytes, storage.device, storage.dtype)
