"""Helpers shared by the namespace's modules."""

from __future__ import annotations

import builtins
import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any

from tensorcore import dtypes as _dt
from tensorcore._tensor import Tensor as _Tensor


# ------------------------------------------------------------------ helpers
def _is_array(x: Any) -> builtins.bool:
    return isinstance(x, _Tensor)


def _axis_tuple(axis: Any, ndim: int, fn: str) -> tuple[int, ...]:
    """``axis`` (None, an int or a sequence) as a tuple of non-negative, distinct axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axes: tuple[Any, ...] = (axis,)
    elif isinstance(axis, (tuple, list)):
        axes = tuple(axis)
    else:
        raise TypeError(
            f"{fn}(): axis must be None, an int or a tuple of ints, not {type(axis).__name__}"
        )
    out = []
    for a in axes:
        try:
            a = operator.index(a)
        except TypeError:
            raise TypeError(f"{fn}(): axis entries must be ints, not {type(a).__name__}") from None
        if not -builtins.max(ndim, 1) <= a < builtins.max(ndim, 1):
            raise IndexError(f"{fn}(): axis {a} is out of bounds for an array of {ndim} dimensions")
        out.append(a % builtins.max(ndim, 1))
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}(): repeated axis in {axes}")
    return tuple(out)


def _standard_dtype(d1: _dt.dtype, d2: _dt.dtype) -> _dt.dtype:
    return _dt.promote_types(d1, d2)


def _promote(x1: Any, x2: Any) -> tuple[Any, Any]:
    """Cast two tensors to their common dtype by the standard's rules, which (unlike
    PyTorch's) give a zero-dimensional array the same say as any other array."""
    d1, d2 = x1._dtype, x2._dtype
    if d1 is d2:
        return x1, x2
    d = _dt.promote_types(d1, d2)
    return (x1 if d1 is d else x1.to(d)), (x2 if d2 is d else x2.to(d))


def _binary(name: str, fn: Callable[[Any, Any], Any], doc: str) -> Callable[[Any, Any], Any]:
    def f(x1: Any, x2: Any, /) -> Any:
        if isinstance(x1, _Tensor) and isinstance(x2, _Tensor) and x1._dtype is not x2._dtype:
            x1, x2 = _promote(x1, x2)
        elif not isinstance(x1, _Tensor):
            if not isinstance(x2, _Tensor):
                raise TypeError(f"{name}(): at least one argument must be an array")
            x1 = _scalar_as(x1, x2, name)
        elif not isinstance(x2, _Tensor):
            x2 = _scalar_as(x2, x1, name)
        return fn(x1, x2)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


def _scalar_as(s: Any, x: Any, name: str) -> Any:
    """A Python scalar beside an array, checked and passed on as it is: tensorcore's
    operators already give a scalar of the array's kind the array's dtype, which is the
    standard's rule."""
    if s.__class__ is builtins.bool or s.__class__ is int or s.__class__ is float:
        return s
    if isinstance(s, complex):
        return s
    raise TypeError(f"{name}(): expected an array or a Python scalar, got {type(s).__name__}")


def _shape(shape: Any) -> tuple[int, ...]:
    return (shape,) if isinstance(shape, int) else tuple(shape)


def _broadcast_shapes(shapes: Sequence[Sequence[int]]) -> tuple[int, ...]:
    nd = builtins.max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        for i, n in enumerate(s, nd - len(s)):
            if n != out[i]:
                if out[i] == 1:
                    out[i] = n
                elif n != 1:
                    raise ValueError(
                        f"shapes {', '.join(str(tuple(t)) for t in shapes)} cannot be broadcast"
                    )
    return tuple(out)


def checked_arrays(namespace: dict[str, Any], names: str) -> None:
    """Make the functions ``names`` of a module raise ``TypeError`` naming themselves when
    their first argument is not an array (instead of an ``AttributeError`` from deep
    inside); the check costs nothing until something fails."""
    for name in names.split():
        namespace[name] = _checked(namespace[name])


def _checked(fn: Callable[..., Any]) -> Callable[..., Any]:
    name = fn.__name__

    @functools.wraps(fn)
    def call(x: Any, /, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(x, *args, **kwargs)
        except AttributeError:
            if isinstance(x, _Tensor):
                raise
            raise TypeError(f"{name}(): expected an array, got {type(x).__name__}") from None

    return call
