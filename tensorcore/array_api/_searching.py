"""Searching, set and sorting functions of the array API standard."""

from __future__ import annotations

import builtins
from typing import Any, NamedTuple

import tensorcore as _tc
from tensorcore import dtypes as _dt
from tensorcore._tensor import Tensor as _Tensor

from ._common import _promote, checked_arrays
from ._manipulation import take
from ._statistical import sum


# ------------------------------------------------------------------ searching
def argmax(x: Any, /, *, axis: int | None = None, keepdims: builtins.bool = False) -> Any:
    """Index of the first maximum along ``axis`` (over the flattened array when None)."""
    if axis is None:
        out = _tc.argmax(x.reshape(-1))
        return out.reshape((1,) * x.ndim) if keepdims else out
    return _tc.argmax(x, axis, keepdims)


def argmin(x: Any, /, *, axis: int | None = None, keepdims: builtins.bool = False) -> Any:
    """Index of the first minimum along ``axis`` (over the flattened array when None)."""
    if axis is None:
        out = _tc.argmin(x.reshape(-1))
        return out.reshape((1,) * x.ndim) if keepdims else out
    return _tc.argmin(x, axis, keepdims)


def count_nonzero(x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Any:
    """The number of nonzero elements along ``axis`` (default integer dtype)."""
    return sum((x != 0), axis=axis, keepdims=keepdims, dtype=_dt.int64)


def nonzero(x: Any, /) -> tuple[Any, ...]:
    """The indices of the nonzero elements, one array per axis (a ``ValueError`` for a
    zero-dimensional array)."""
    if x.ndim == 0:
        raise ValueError("nonzero(): zero-dimensional arrays are not allowed")
    return tuple(_tc.nonzero(x).unbind(1))


def searchsorted(x1: Any, x2: Any, /, *, side: str = "left", sorter: Any = None) -> Any:
    """Indices where the elements of ``x2`` would be inserted into the sorted 1-D ``x1``
    (the first suitable position with ``side="left"``, the last with "right")."""
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted(): side must be 'left' or 'right', got {side!r}")
    if x1.ndim != 1:
        raise ValueError("searchsorted(): x1 must be one-dimensional")
    if sorter is not None:
        x1 = take(x1, sorter)
    x1, x2 = _promote(x1, x2)
    return _tc.searchsorted(x1, x2, right=side == "right")


def where(condition: Any, x1: Any, x2: Any, /) -> Any:
    """Elements of ``x1`` where ``condition`` holds, else of ``x2`` (either may be a
    Python scalar)."""
    if isinstance(x1, _Tensor) and isinstance(x2, _Tensor) and x1._dtype is not x2._dtype:
        x1, x2 = _promote(x1, x2)
    return _tc.where(condition, x1, x2)


# ------------------------------------------------------------------ sets
def unique_values(x: Any, /) -> Any:
    """The distinct values of ``x``, sorted (NaNs are each distinct)."""
    return unique_all(x).values


def unique_counts(x: Any, /) -> Any:
    """``(values, counts)``: the distinct values and how often each occurs."""
    r = unique_all(x)
    return _UniqueCounts(r.values, r.counts)


def unique_inverse(x: Any, /) -> Any:
    """``(values, inverse_indices)``: the distinct values, and for each element of ``x`` the
    index of its value (shaped like ``x``)."""
    r = unique_all(x)
    return _UniqueInverse(r.values, r.inverse_indices)


def unique_all(x: Any, /) -> Any:
    """``(values, indices, inverse_indices, counts)`` of the distinct values of ``x``."""
    flat = x.reshape(-1)
    n = flat.shape[0]
    if n == 0:
        empty_i = _tc.empty((0,), dtype=_dt.int64, device=x.device)
        return _UniqueAll(flat.clone(), empty_i, empty_i.reshape(x.shape), empty_i)
    order = _sort_order(flat)
    s = flat[order]
    if s._dtype._category >= _dt.FLOATING:
        nan_ = _tc.isnan(s)
        new = _tc.ones(n, dtype=_dt.bool_, device=x.device)
        new[1:] = (s[1:] != s[:-1]) | nan_[1:]
    else:
        new = _tc.ones(n, dtype=_dt.bool_, device=x.device)
        new[1:] = s[1:] != s[:-1]
    group = _tc.cumsum(new.to(_dt.int64), 0) - 1
    starts = _tc.nonzero(new).reshape(-1)
    values = s[starts]
    ends = _tc.cat([starts[1:], _tc.tensor([n], device=x.device)])
    counts = ends - starts
    inverse = _tc.empty(n, dtype=_dt.int64, device=x.device)
    inverse[order] = group
    return _UniqueAll(values, order[starts], inverse.reshape(x.shape), counts)


def _sort_order(flat: Any) -> Any:
    """A stable sorting permutation; complex numbers in lexicographic (real, imaginary)
    order, which PyTorch's sort does not provide."""
    if flat._dtype._category != _dt.COMPLEX:
        return _tc.argsort(flat, stable=True)
    order = _tc.argsort(flat.imag, stable=True)
    return order[_tc.argsort(flat.real[order], stable=True)]


class _UniqueAll(NamedTuple):
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class _UniqueCounts(NamedTuple):
    values: Any
    counts: Any


class _UniqueInverse(NamedTuple):
    values: Any
    inverse_indices: Any


# ------------------------------------------------------------------ sorting
def argsort(
    x: Any, /, *, axis: int = -1, descending: builtins.bool = False, stable: builtins.bool = True
) -> Any:
    """Indices that sort ``x`` along ``axis`` (always stable: equal elements keep their
    order, in either direction)."""
    if x.ndim == 0:
        return _tc.zeros((), dtype=_dt.int64, device=x.device)
    return _tc.argsort(x, axis, descending, stable=True)


def sort(
    x: Any, /, *, axis: int = -1, descending: builtins.bool = False, stable: builtins.bool = True
) -> Any:
    """``x`` sorted along ``axis``."""
    if x.ndim == 0:
        return x.clone()
    return _tc.sort(x, axis, descending, stable=True).values


checked_arrays(
    globals(),
    "argmax argmin count_nonzero nonzero searchsorted argsort sort unique_all "
    "unique_counts unique_inverse unique_values",
)
