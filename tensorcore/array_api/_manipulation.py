"""Manipulation and indexing functions of the array API standard."""

from __future__ import annotations

import builtins
import operator
from typing import Any

import tensorcore as _tc
from tensorcore._tensor import Tensor as _Tensor

from ._common import _axis_tuple, _broadcast_shapes, _shape, checked_arrays
from ._data_types import result_type


# ------------------------------------------------------------------ manipulation
def broadcast_arrays(*arrays: Any) -> list[Any]:
    """The arrays broadcast against each other (views)."""
    shape = _broadcast_shapes([a.shape for a in arrays])
    return [a.expand(shape) for a in arrays]


def broadcast_to(x: Any, /, shape: Any) -> Any:
    """``x`` broadcast to ``shape`` (a view)."""
    shape = _shape(shape)
    if _broadcast_shapes([x.shape, shape]) != shape:
        raise ValueError(f"broadcast_to(): cannot broadcast {tuple(x.shape)} to {shape}")
    return x.expand(shape)


def concat(arrays: Any, /, *, axis: int | None = 0) -> Any:
    """The arrays joined along ``axis`` (flattened first when ``axis`` is None)."""
    arrays = list(arrays)
    if arrays and builtins.any(a._dtype is not arrays[0]._dtype for a in arrays):
        d = result_type(*arrays)
        arrays = [a if a._dtype is d else a.to(d) for a in arrays]
    if axis is None:
        return _tc.cat([a.reshape(-1) for a in arrays])
    return _tc.cat(arrays, axis)


def stack(arrays: Any, /, *, axis: int = 0) -> Any:
    """The arrays joined along a new ``axis``."""
    arrays = list(arrays)
    d = result_type(*arrays)
    return _tc.stack([a if a._dtype is d else a.to(d) for a in arrays], axis)


def expand_dims(x: Any, /, axis: int = 0) -> Any:
    """``x`` with a new axis of size one at ``axis`` (a view)."""
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise IndexError(f"expand_dims(): axis {axis} is out of bounds for {x.ndim + 1} dimensions")
    return x.unsqueeze(axis)


def flip(x: Any, /, *, axis: Any = None) -> Any:
    """``x`` with the order of elements along ``axis`` (all axes when None) reversed."""
    return _tc.flip(x, _axis_tuple(axis, x.ndim, "flip") if x.ndim else ())


def moveaxis(x: Any, source: Any, destination: Any, /) -> Any:
    """``x`` with axes moved from ``source`` to ``destination`` (a view)."""
    src = _axis_tuple(source, x.ndim, "moveaxis")
    dst = _axis_tuple(destination, x.ndim, "moveaxis")
    if len(src) != len(dst):
        raise ValueError("moveaxis(): source and destination must have the same length")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return x.permute(*order)


def permute_dims(x: Any, /, axes: Any) -> Any:
    """``x`` with its axes permuted (a view)."""
    axes = tuple(axes)
    if len(axes) != x.ndim or sorted(a % builtins.max(x.ndim, 1) for a in axes) != list(
        range(x.ndim)
    ):
        raise ValueError(f"permute_dims(): {axes} is not a permutation of {x.ndim} axes")
    return x.permute(*axes)


def repeat(x: Any, repeats: Any, /, *, axis: int | None = None) -> Any:
    """Each element repeated ``repeats`` times (an int or a 1-D integer array) along
    ``axis`` (the flattened array when None)."""
    if axis is None:
        x = x.reshape(-1)
        axis = 0
    n = x.shape[axis]
    if isinstance(repeats, _Tensor):
        if repeats.ndim != 1 or repeats.shape[0] not in (1, n):
            raise ValueError(f"repeat(): {repeats.numel()} repeats for an axis of size {n}")
        if builtins.bool((repeats < 0).any()):
            raise ValueError("repeat(): repeats must be non-negative")
        if repeats.shape[0] == 1 and n != 1:
            repeats = repeats.expand(n)
    elif operator.index(repeats) < 0:
        raise ValueError("repeat(): repeats must be non-negative")
    return _tc.repeat_interleave(x, repeats, axis)


def reshape(x: Any, /, shape: Any, *, copy: builtins.bool | None = None) -> Any:
    """``x`` with a new shape: a view when possible (``copy=False`` raises otherwise)."""
    shape = _shape(shape)
    if copy:
        return x.reshape(shape).clone()
    if copy is False:
        try:
            return x.view(shape)
        except RuntimeError as exc:
            raise ValueError(f"reshape(): copy=False, but a view is impossible: {exc}") from None
    return x.reshape(shape)


def roll(x: Any, /, shift: Any, *, axis: Any = None) -> Any:
    """Elements shifted by ``shift`` along ``axis`` (the flattened array when None)."""
    if axis is None:
        return _tc.roll(x, shift)
    return _tc.roll(x, shift, axis)


def squeeze(x: Any, /, axis: Any) -> Any:
    """``x`` without the size-one axes ``axis`` (a ``ValueError`` for an axis of another
    size)."""
    axes = _axis_tuple(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze(): axis {a} has size {x.shape[a]}, not 1")
    return _tc.squeeze(x, axes) if axes else x.view(x.shape)


def tile(x: Any, repetitions: Any, /) -> Any:
    """``x`` repeated ``repetitions`` times along each axis."""
    return _tc.tile(x, tuple(repetitions))


def unstack(x: Any, /, *, axis: int = 0) -> tuple[Any, ...]:
    """The slices of ``x`` along ``axis`` (views)."""
    if x.ndim == 0:
        raise ValueError("unstack(): x must have at least one dimension")
    return tuple(_tc.unbind(x, axis))


# ------------------------------------------------------------------ indexing
def take(x: Any, indices: Any, /, *, axis: int | None = None) -> Any:
    """Elements of ``x`` at the 1-D integer ``indices`` along ``axis`` (``axis`` may be
    omitted for a 1-D ``x``)."""
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take(): axis is required for arrays of more than one dimension")
        axis = 0
    n = x.shape[axis]
    idx = _tc.where(indices < 0, indices + n, indices) if indices._dtype.is_signed else indices
    return _tc.index_select(x, axis, idx)


def take_along_axis(x: Any, indices: Any, /, *, axis: int = -1) -> Any:
    """Elements of ``x`` at ``indices`` along ``axis`` (``indices`` broadcast against ``x``
    over the other axes)."""
    if x.ndim != indices.ndim:
        raise ValueError("take_along_axis(): x and indices must have the same number of axes")
    axis = axis % x.ndim
    shape = list(_broadcast_shapes([x.shape[:axis] + (1,) + x.shape[axis + 1 :], indices.shape]))
    xs = list(shape)
    xs[axis] = x.shape[axis]
    n = x.shape[axis]
    idx = _tc.where(indices < 0, indices + n, indices)
    return _tc.gather(x.expand(xs), axis, idx.expand(shape))


checked_arrays(
    globals(),
    "expand_dims flip moveaxis permute_dims repeat reshape roll squeeze tile unstack "
    "take take_along_axis broadcast_to",
)
