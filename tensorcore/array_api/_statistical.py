"""Statistical and utility functions of the array API standard."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import tensorcore as _tc
from tensorcore import dtypes as _dt
from tensorcore._tensor import Tensor as _Tensor

from ._common import _axis_tuple, checked_arrays
from ._manipulation import concat


# ------------------------------------------------------------------ statistics
def _reduce(
    fn: Callable[..., Any], x: Any, axis: Any, keepdims: builtins.bool, name: str, **kw: Any
) -> Any:
    if axis.__class__ is int and isinstance(x, _Tensor) and x._shape:
        return fn(x, axis, keepdims, **kw)  # the common case: tensorcore checks the axis
    if not isinstance(x, _Tensor):
        raise TypeError(f"{name}(): expected an array, got {type(x).__name__}")
    axes = _axis_tuple(axis, x.ndim, name)
    if axis is not None and not axes:  # axis=(): nothing is reduced
        out = x.clone()
        dtype = kw.get("dtype")
        return out if dtype is None else out.to(dtype)
    if x.ndim == 0:
        return fn(x, **kw)
    return fn(x, axes, keepdims, **kw)


def _sum_dtype(x: Any, dtype: Any) -> Any:
    d = getattr(x, "_dtype", None)  # (not an array: the reduction says so)
    if dtype is None and d is not None and d._category <= _dt.INTEGRAL and d is not _dt.int64:
        return _dt.int64  # (bool too: the standard sums booleans as integers)
    return dtype


def sum(x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: builtins.bool = False) -> Any:
    """The sum along ``axis`` (integers in the default integer dtype)."""
    return _reduce(_tc.sum, x, axis, keepdims, "sum", dtype=_sum_dtype(x, dtype))


def prod(x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: builtins.bool = False) -> Any:
    """The product along ``axis`` (integers in the default integer dtype)."""
    axes = _axis_tuple(axis, x.ndim, "prod")
    dtype = _sum_dtype(x, dtype)
    if axis is not None and not axes:
        return x.clone() if dtype is None else x.to(dtype, copy=True)
    out = x if dtype is None else x.to(dtype)
    for a in sorted(axes, reverse=True):
        # (the dtype again: PyTorch's prod of a small integer type gives int64)
        out = _tc.prod(out, a, keepdims, dtype=out._dtype)
    return out


def max(x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Any:
    """The largest element along ``axis`` (a ``ValueError`` for an empty reduction)."""
    return _reduce(_tc.amax, x, axis, keepdims, "max")


def min(x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Any:
    """The smallest element along ``axis``."""
    return _reduce(_tc.amin, x, axis, keepdims, "min")


def mean(x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Any:
    """The arithmetic mean along ``axis``."""
    return _reduce(_tc.mean, x, axis, keepdims, "mean")


def _var_like(
    fn: Callable[..., Any], x: Any, axis: Any, correction: Any, keepdims: Any, name: str
) -> Any:
    if not isinstance(x, _Tensor):
        raise TypeError(f"{name}(): expected an array, got {type(x).__name__}")
    axes = _axis_tuple(axis, x.ndim, name)
    if axis is not None and not axes:
        return fn(x.unsqueeze(-1), -1, correction=correction, keepdim=False)
    if x.ndim == 0:
        return fn(x, correction=correction)
    return fn(x, axes, correction=correction, keepdim=keepdims)


def var(
    x: Any, /, *, axis: Any = None, correction: Any = 0.0, keepdims: builtins.bool = False
) -> Any:
    """The variance along ``axis``, dividing by ``N - correction``."""
    return _var_like(_tc.var, x, axis, correction, keepdims, "var")


def std(
    x: Any, /, *, axis: Any = None, correction: Any = 0.0, keepdims: builtins.bool = False
) -> Any:
    """The standard deviation along ``axis``, dividing by ``N - correction``."""
    return _var_like(_tc.std, x, axis, correction, keepdims, "std")


def _cumulative(
    fn: Callable[..., Any],
    x: Any,
    axis: int | None,
    dtype: Any,
    include_initial: builtins.bool,
    initial: int,
    name: str,
) -> Any:
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{name}(): axis is required for arrays of more than one dimension")
        if x.ndim == 0:
            raise ValueError(f"{name}(): zero-dimensional arrays are not allowed")
        axis = 0
    dtype = _sum_dtype(x, dtype)
    out = fn(x, axis, dtype=dtype)
    if include_initial:
        shape = list(out.shape)
        shape[axis] = 1
        out = _tc.cat([_tc.full(shape, initial, dtype=out._dtype, device=out.device), out], axis)
    return out


def cumulative_sum(
    x: Any,
    /,
    *,
    axis: int | None = None,
    dtype: Any = None,
    include_initial: builtins.bool = False,
) -> Any:
    """The running sum along ``axis`` (with a leading zero when ``include_initial``)."""
    return _cumulative(_tc.cumsum, x, axis, dtype, include_initial, 0, "cumulative_sum")


def cumulative_prod(
    x: Any,
    /,
    *,
    axis: int | None = None,
    dtype: Any = None,
    include_initial: builtins.bool = False,
) -> Any:
    """The running product along ``axis`` (with a leading one when ``include_initial``)."""
    return _cumulative(_tc.cumprod, x, axis, dtype, include_initial, 1, "cumulative_prod")


# ------------------------------------------------------------------ utility
def all(x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Any:
    """Whether every element along ``axis`` is true."""
    axes = _axis_tuple(axis, x.ndim, "all")
    if axis is not None and not axes:
        return x.to(_dt.bool_, copy=True)
    out = x
    for a in sorted(axes, reverse=True):
        out = _tc.all(out, a, keepdims)
    return out if axes else _tc.all(x)


def any(x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Any:
    """Whether any element along ``axis`` is true."""
    axes = _axis_tuple(axis, x.ndim, "any")
    if axis is not None and not axes:
        return x.to(_dt.bool_, copy=True)
    out = x
    for a in sorted(axes, reverse=True):
        out = _tc.any(out, a, keepdims)
    return out if axes else _tc.any(x)


def diff(x: Any, /, *, axis: int = -1, n: int = 1, prepend: Any = None, append: Any = None) -> Any:
    """The ``n``-th forward difference along ``axis`` (after joining ``prepend`` and
    ``append``)."""
    if x.ndim == 0:
        raise ValueError("diff(): zero-dimensional arrays are not allowed")
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = concat(parts, axis=axis)
    for _ in range(n):
        m = x.shape[axis]
        x = x.narrow(axis, 1, builtins.max(m - 1, 0)) - x.narrow(axis, 0, builtins.max(m - 1, 0))
    return x


checked_arrays(globals(), "prod cumulative_sum cumulative_prod all any diff")
