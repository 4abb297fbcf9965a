"""``dask.array`` with the few NumPy functions that ``tensorcore_xp``'s kernels use and dask
lacks, for the test-only dask backend (``tests/dask_backend.py``).

Everything else is dask's own (``__getattr__``). The additions work on arrays of one chunk
along the dims they touch (the dask device keeps every array in one chunk): they run NumPy's
function on that chunk, lazily (``map_blocks``), except the scatter-adds (``add.at``), which
dask cannot express lazily and which compute their target.
"""

from __future__ import annotations

from typing import Any

import dask.array as da
import numpy as np

__all__ = ["amax", "amin", "argsort", "copyto", "cross", "matmul", "take_along_axis"]

amax = da.max
amin = da.min
iinfo = np.iinfo
finfo = np.finfo
dtype = np.dtype
ndarray = da.Array


def _one_chunk(a: Any) -> Any:
    return da.asarray(a).rechunk(-1)


def argsort(a: Any, axis: int = -1, kind: str | None = None, stable: bool | None = None) -> Any:
    """NumPy's ``argsort`` of the whole array along ``axis``."""
    return _one_chunk(a).map_blocks(np.argsort, axis=axis, kind=kind, dtype=np.int64)


def take_along_axis(a: Any, indices: Any, axis: int) -> Any:
    """NumPy's ``take_along_axis`` (the result has ``indices``' shape)."""
    idx = _one_chunk(indices)
    return da.map_blocks(
        np.take_along_axis, _one_chunk(a), idx, axis=axis, dtype=a.dtype, chunks=idx.chunks
    )


def cross(a: Any, b: Any, axis: int = -1, **kwargs: Any) -> Any:
    """NumPy's ``cross`` (three-element vectors: the shape is the broadcast one)."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    a1 = da.broadcast_to(da.asarray(a), shape).rechunk(-1)
    b1 = da.broadcast_to(da.asarray(b), shape).rechunk(-1)
    dt = np.result_type(a.dtype, b.dtype)
    return da.map_blocks(np.cross, a1, b1, axis=axis, dtype=dt, **kwargs)


def matmul(a: Any, b: Any, out: Any = None, **kwargs: Any) -> Any:
    """``dask.array.matmul`` with NumPy's ``out=``: the product assigned into ``out``."""
    r = da.matmul(a, b, **kwargs)
    if out is None:
        return r
    out[...] = r
    return out


def copyto(dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    """Write ``src`` into the dask array object ``dst`` (item assignment replaces its graph)."""
    value = da.asarray(src).astype(dst.dtype)
    if where is True:
        dst[...] = da.broadcast_to(value, dst.shape)
    else:
        dst[...] = da.where(where, value, dst)


class _UFunc:
    """A dask ufunc with the NumPy ufunc methods the kernels use (``at``, ``accumulate``)."""

    def __init__(self, name: str) -> None:
        self._dask = getattr(da, name)
        self._numpy = getattr(np, name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._dask(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._dask, name)

    def accumulate(self, a: Any, axis: int = 0, dtype: Any = None, out: Any = None) -> Any:
        arr = _one_chunk(a)
        res = arr.map_blocks(self._numpy.accumulate, axis=axis, dtype=dtype or arr.dtype)
        if out is not None:
            out[...] = res
            return out
        return res

    def at(self, target: Any, indices: Any, values: Any = None) -> None:
        # Unbuffered scatter: no lazy form in dask, so the target is computed here.
        t = np.array(target.compute() if isinstance(target, da.Array) else target)
        idx = _numpy(indices)
        vals = _numpy(values)
        if values is None:
            self._numpy.at(t, idx)
        else:
            self._numpy.at(t, idx, vals)
        target[...] = da.from_array(t, chunks=-1)


def _numpy(x: Any) -> Any:
    if isinstance(x, tuple):
        return tuple(_numpy(v) for v in x)
    if isinstance(x, da.Array):
        return x.compute()
    return x


class _Linalg:
    """``dask.array.linalg`` with NumPy's error type (what the kernels catch)."""

    LinAlgError = np.linalg.LinAlgError

    def __getattr__(self, name: str) -> Any:
        return getattr(da.linalg, name)


linalg = _Linalg()


def _as_strided(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("dask arrays have no strided views (as_strided)")


class _Namespace:
    def __init__(self, **members: Any) -> None:
        self.__dict__.update(members)


#: ``lib.stride_tricks``: dask has ``sliding_window_view`` but no ``as_strided``; the kernels
#: that window with it (convolutions, pooling) raise a NotImplementedError naming it.
lib = _Namespace(
    stride_tricks=_Namespace(
        as_strided=_as_strided, sliding_window_view=da.lib.stride_tricks.sliding_window_view
    )
)
add = _UFunc("add")
maximum = _UFunc("maximum")
minimum = _UFunc("minimum")
logaddexp = _UFunc("logaddexp")
multiply = _UFunc("multiply")


def __getattr__(name: str) -> Any:
    return getattr(da, name)
