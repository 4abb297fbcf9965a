"""A test-only backend whose arrays are values: the ``dask`` device, over lazy dask arrays.

It is written against the public backend SPI only (``tensorcore.backend``) and follows the
contract for devices whose arrays are values (``docs/writing-a-backend.md``):

- a storage's ``data`` is a flat, lazy ``dask.array`` array; a tensor's native array is read
  from it on demand (``materialize``), never cached by the core (``mutable_arrays = False``);
- kernels compute a new array and store it with ``tensorcore.backend.write``, which replaces
  the storage's array (``write``): every view of the storage sees the write;
- ``persist`` computes the storages' arrays and keeps the results, which the optimizers call
  after each step, so a weight's task graph stays bounded however long training runs.

It has kernels for what a multi-layer perceptron's training step needs (pointwise arithmetic
and activations, reductions, ``mm``/``addmm``, losses' building blocks, in-place updates,
transfers to and from the CPU), registered at runtime with ``tc.backends.register``.
"""

from __future__ import annotations

import math
from typing import Any

import dask
import dask.array as da
import numpy as np

import tensorcore as tc
from tensorcore import backend
from tensorcore.backend import DeviceInterface, Storage, Tensor, hookimpl

TENSORCORE_SPI = "1.0"

DTYPES = [tc.bool, tc.uint8, tc.int8, tc.int16, tc.int32, tc.int64, tc.float32, tc.float64]


def np_dtype(d: tc.dtype) -> Any:
    """The NumPy dtype of a tensorcore dtype (dask arrays carry NumPy dtypes)."""
    return np.dtype(d.name)


def positions(t: Tensor) -> np.ndarray:
    """The storage indices of ``t``'s elements in row-major order (its view over storage)."""
    idx = np.full((), t.storage_offset(), dtype=np.int64)
    for size, stride in zip(t.shape, t.stride(), strict=True):
        idx = idx[..., None] + np.arange(size, dtype=np.int64) * stride
    return idx.reshape(-1)


def covers_storage(t: Tensor) -> bool:
    st = t.untyped_storage()
    return t.is_contiguous() and t.storage_offset() == 0 and t.numel() == st.size()


class DaskDevice(DeviceInterface):
    """Lazy dask arrays as values: writes replace a storage's array, ``persist`` computes."""

    type = "dask"
    mutable_arrays = False
    array_module = da

    def _storage(self, flat: Any, dtype: tc.dtype, device: Any) -> Storage:
        return Storage(flat, int(flat.shape[0]) * dtype.itemsize, device, dtype)

    def empty(self, shape: tuple[int, ...], dtype: tc.dtype, device: Any) -> Tensor:
        n = math.prod(shape)
        st = self._storage(da.zeros(n, dtype=np_dtype(dtype), chunks=-1), dtype, device)
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


# ------------------------------------------------------------------ pointwise
def _pointwise(fn: Any) -> Any:
    def kernel(out: Tensor, *args: Any) -> None:
        store(out, fn(*(arr(a) for a in args)))

    return kernel


def _add(out: Tensor, a: Any, b: Any, alpha: Any = 1) -> None:
    store(out, arr(a) + alpha * arr(b) if alpha != 1 else arr(a) + arr(b))


def _sub(out: Tensor, a: Any, b: Any, alpha: Any = 1) -> None:
    store(out, arr(a) - alpha * arr(b) if alpha != 1 else arr(a) - arr(b))


def _div(out: Tensor, a: Any, b: Any, rounding_mode: Any = None) -> None:
    q = arr(a) / arr(b)
    if rounding_mode == "floor":
        q = da.floor(q)
    elif rounding_mode == "trunc":
        q = da.trunc(q)
    store(out, q)


def _threshold_backward(out: Tensor, grad: Any, x: Any, threshold: Any) -> None:
    store(out, da.where(arr(x) <= threshold, 0, arr(grad)))


def _sigmoid(x: Any) -> Any:
    return 1 / (1 + da.exp(-x))


POINTWISE: dict[str, Any] = {
    "add": _add,
    "sub": _sub,
    "div": _div,
    "threshold_backward": _threshold_backward,
    "mul": _pointwise(lambda a, b: a * b),
    "neg": _pointwise(lambda a: -a),
    "exp": _pointwise(da.exp),
    "log": _pointwise(da.log),
    "tanh": _pointwise(da.tanh),
    "sigmoid": _pointwise(_sigmoid),
    "relu": _pointwise(lambda a: da.maximum(a, 0)),
    "sqrt": _pointwise(da.sqrt),
    "abs": _pointwise(da.abs),
    "pow": _pointwise(lambda a, b: a**b),
    "maximum": _pointwise(da.maximum),
    "minimum": _pointwise(da.minimum),
    "eq": _pointwise(lambda a, b: a == b),
    "ne": _pointwise(lambda a, b: a != b),
    "lt": _pointwise(lambda a, b: a < b),
    "le": _pointwise(lambda a, b: a <= b),
    "gt": _pointwise(lambda a, b: a > b),
    "ge": _pointwise(lambda a, b: a >= b),
}


# ------------------------------------------------------------------ reductions and products
def _sum(out: Tensor, x: Any, dim: tuple[int, ...], keepdim: bool, dtype: Any) -> None:
    store(out, arr(x).sum(axis=dim, keepdims=keepdim))


def _mean(out: Tensor, x: Any, dim: tuple[int, ...], keepdim: bool, dtype: Any) -> None:
    store(out, arr(x).mean(axis=dim, keepdims=keepdim))


def _mm(out: Tensor, a: Any, b: Any) -> None:
    store(out, arr(a) @ arr(b))


def _addmm(out: Tensor, bias: Any, a: Any, b: Any, beta: Any = 1, alpha: Any = 1) -> None:
    store(out, beta * arr(bias) + alpha * (arr(a) @ arr(b)))


def _linear(out: Tensor, x: Any, w: Any, b: Any) -> None:
    r = arr(x) @ arr(w).T
    store(out, r if b is None else r + arr(b))


def _linear_backward(out: tuple[Tensor, Tensor, Tensor], g: Any, x: Any, w: Any, mask: Any) -> None:
    gi, gw, gb = out
    ga, xa = arr(g), arr(x)
    if mask[0]:
        store(gi, ga @ arr(w))
    g2 = ga.reshape(-1, ga.shape[-1])
    if mask[1]:
        store(gw, g2.T @ xa.reshape(-1, xa.shape[-1]))
    if mask[2]:
        store(gb, g2.sum(axis=0))


def _full(out: Tensor, size: Any, fill_value: Any, *rest: Any) -> None:
    store(out, fill_value)


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


KERNELS: dict[str, Any] = {
    **POINTWISE,
    "sum": _sum,
    "mean": _mean,
    "mm": _mm,
    "addmm": _addmm,
    "linear": _linear,
    "linear_backward": _linear_backward,
    "full": _full,
    "clone": lambda out, x, memory_format=None: store(out, arr(x)),
}
DIRECT: dict[str, Any] = {
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
        for name, fn in KERNELS.items():
            register.kernel(name, "dask", "strided", fn, dtypes=DTYPES)
        for name, fn in DIRECT.items():
            register.kernel(name, "dask", "strided", fn)


def install() -> None:
    """Register the ``dask`` device once per process."""
    if "dask" not in [d for p in tc.backends.list() for d in p.devices]:
        tc.backends.register(DaskPlugin(), name="dask-test")
