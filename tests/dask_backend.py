"""A test-only backend whose arrays are values: the ``dask`` device, over lazy dask arrays.

It is written against the public backend SPI only (``tensorcore.backend``) and follows the
contract for devices whose arrays are values (``docs/writing-a-backend.md``):

- a storage's ``data`` is a flat, lazy ``dask.array`` array; a tensor's native array is read
  from it on demand (``materialize``), never cached by the core (``mutable_arrays = False``);
- kernels compute a new array and store it with ``tensorcore.backend.write``, which replaces
  the storage's array (``write``): every view of the storage sees the write;
- ``persist`` computes the storages' arrays and keeps the results, which the optimizers call
  after each step, so a weight's task graph stays bounded however long training runs.

Its kernels are the kernel library's (``tensorcore_xp.register_kernels`` over ``dask.array``,
with the few NumPy functions dask lacks from ``tests/dask_xp.py``), plus five of its own that
read values out, fill or copy across devices; it is registered at runtime with
``tc.backends.register``.
"""

from __future__ import annotations

import math
from typing import Any

import dask
import dask.array as da
import dask_xp
import numpy as np
import tensorcore_xp

import tensorcore as tc
from tensorcore import backend
from tensorcore.backend import DeviceInterface, Storage, Tensor, hookimpl

TENSORCORE_SPI = "1.0"


def np_dtype(d: tc.dtype) -> Any:
    """The NumPy dtype of a tensorcore dtype (dask arrays carry NumPy dtypes; NumPy has no
    bfloat16, so neither has this device)."""
    if d is tc.bfloat16:
        raise TypeError("bfloat16 is not supported on the dask device (NumPy has no bfloat16)")
    return np.dtype(d.name)


def positions(t: Tensor) -> np.ndarray:
    """The storage indices of ``t``'s elements in row-major order (its view over storage)."""
    idx = np.full((), t.storage_offset(), dtype=np.int64)
    for size, stride in zip(t.shape, t.stride(), strict=True):
        idx = idx[..., None] + np.arange(size, dtype=np.int64) * stride
    return idx.reshape(-1)


def covers_storage(t: Tensor) -> bool:
    st = t.untyped_storage()
    return t.is_contiguous() and t.storage_offset() == 0 and t.nbytes == st.nbytes


class DaskDevice(DeviceInterface):
    """Lazy dask arrays as values: writes replace a storage's array, ``persist`` computes."""

    type = "dask"
    mutable_arrays = False
    array_module = da

    def _storage(self, flat: Any, dtype: tc.dtype, device: Any) -> Storage:
        return Storage(flat, int(flat.shape[0]) * dtype.itemsize, device, dtype)

    def empty(self, shape: tuple[int, ...], dtype: tc.dtype, device: Any) -> Tensor:
        n = math.prod(shape)
        npd = np_dtype(dtype)
        # Named as dask would name it (the same zeros for the same size and dtype), without
        # its token: dask tokenizes the creation function by pickling it, 2 ms an empty.
        data = da.zeros(n, dtype=npd, chunks=-1, name=f"zeros-{npd.name}-{n}")
        st = self._storage(data, dtype, device)
        return backend.make_tensor(st, shape, backend.contiguous_strides(shape), 0, dtype, device)

    def materialize(self, t: Tensor) -> Any:
        data = t.untyped_storage().data
        if covers_storage(t):
            return data.reshape(tuple(t.shape))
        return data[positions(t)].reshape(tuple(t.shape))

    def write(self, t: Tensor, value: Any) -> None:
        st = t.untyped_storage()
        npd = np_dtype(t.dtype)
        value = da.broadcast_to(da.asarray(value).astype(npd), tuple(t.shape))
        if covers_storage(t):
            # The whole storage: the new array does not depend on the old one at all.
            st.data = value.reshape(-1).rechunk(-1)
            return
        new = st.data.copy()
        if t.numel():
            new[positions(t)] = value.reshape(-1)
        st.data = new

    def persist(self, storages: list[Storage]) -> None:
        computed = dask.persist(*(st.data for st in storages), scheduler="sync")
        for st, arr in zip(storages, computed, strict=True):
            st.data = arr

    def data_ptr(self, storage: Storage) -> int:
        return id(storage.data)

    def from_data(
        self, flat: list[Any], shape: tuple[int, ...], dtype: tc.dtype, device: Any
    ) -> Tensor:
        arr = np.array(flat, dtype=np_dtype(dtype)).reshape(-1)
        st = self._storage(da.from_array(arr, chunks=-1), dtype, device)
        return backend.make_tensor(st, shape, backend.contiguous_strides(shape), 0, dtype, device)

    def copy_between(self, src: Tensor, dst: Tensor) -> bool:
        if src.device.type == "cpu" and dst.device.type == "dask":
            arr = np.array(backend.native(src))  # (ascontiguousarray makes 0-d arrays 1-d)
            backend.write(dst, da.from_array(arr, chunks=-1))
            return True
        if src.device.type == "dask" and dst.device.type == "cpu":
            backend.write(dst, np.asarray(backend.native(src).compute(scheduler="sync")))
            return True
        return False


def arr(x: Any) -> Any:
    """A tensor's lazy array; other values (Python scalars) pass through."""
    return backend.native(x) if isinstance(x, Tensor) else x


def store(out: Tensor, value: Any) -> None:
    backend.write(out, value)


# ------------------------------------------------------------------ unstructured (direct)
def _copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    if src.device.type != "dask":
        src = src.to("dask")
    store(self, arr(src))
    return self


def _fill_(self: Tensor, value: Any) -> Tensor:
    store(self, arr(value))
    return self


def _zero_(self: Tensor) -> Tensor:
    store(self, 0)
    return self


def _tolist(self: Tensor) -> Any:
    return np.asarray(arr(self).compute(scheduler="sync")).tolist()


def _item(self: Tensor) -> Any:
    if self.numel() != 1:
        raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
    return np.asarray(arr(self).compute(scheduler="sync")).reshape(()).item()


#: The dask device's own kernels, beside the library's: those that read values out
#: (dask arrays compute them), fill a tensor, or copy across devices.
OWN: dict[str, Any] = {
    "copy_": _copy_,
    "fill_": _fill_,
    "zero_": _zero_,
    "tolist": _tolist,
    "item": _item,
}


class DaskPlugin:
    """The hooks, as an object to register at runtime (``tc.backends.register``)."""

    TENSORCORE_SPI = TENSORCORE_SPI

    @hookimpl
    def tensorcore_register_devices(self, register: Any) -> None:
        register.device(DaskDevice())

    @hookimpl
    def tensorcore_register_kernels(self, register: Any) -> None:
        # The kernel library over dask.array (with the few NumPy functions dask lacks), each
        # kernel storing what it writes with tensorcore.backend.write: one call.
        tensorcore_xp.register_kernels(register, "dask", dask_xp, mutable_arrays=False, extra=OWN)


def install() -> None:
    """Register the ``dask`` device once per process."""
    if "dask" not in [d for p in tc.backends.list() for d in p.devices]:
        tc.backends.register(DaskPlugin(), name="dask-test")
