"""Complex-number composites: ``complex`` and ``polar`` build complex tensors from two real
ones (through the ``view_as_complex`` view of their stack), ``angle`` takes the argument.

Written with other operators, so every backend gets them and autograd differentiates them
through their parts; ``ops/composite.py`` registers them with the other composites.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor, torch_name
from . import functions as ops
from .frontends import named_as

__all__ = ["COMPLEX_COMPOSITES"]

COMPLEX_COMPOSITES: dict[str, Callable[..., Any]] = {}


def _composite(fn: Callable[..., Any]) -> Callable[..., Any]:
    COMPLEX_COMPOSITES[fn.__name__] = fn
    return fn


_FLOATS = (dt.float16, dt.float32, dt.float64)


def _pair(a: Tensor, b: Tensor) -> Tensor:
    """``a + b i`` for real tensors of one dtype (broadcast): exact, unlike ``a + b * 1j``,
    which turns an infinite ``b`` into a NaN real part."""
    if a._dtype not in _FLOATS or b._dtype not in _FLOATS:
        raise RuntimeError(
            "Expected both inputs to be Half, Float or Double tensors but got "
            f"{torch_name(a._dtype)} and {torch_name(b._dtype)}"
        )
    if a._dtype != b._dtype:
        raise RuntimeError(
            f"Expected object of scalar type {torch_name(a._dtype)} but got scalar type "
            f"{torch_name(b._dtype)} for second argument"
        )
    a, b = ops.broadcast_tensors(a, b)
    return ops.view_as_complex(ops.stack([a, b], -1))


@_composite
def complex(real: Tensor, imag: Tensor) -> Tensor:
    return named_as(_pair(real, imag), "ComplexBackward0")


@_composite
def polar(abs: Tensor, angle: Tensor) -> Tensor:
    if abs._dtype != angle._dtype or abs._dtype not in _FLOATS:
        return _pair(abs, angle)  # the dtype error
    return named_as(_pair(abs * ops.cos(angle), abs * ops.sin(angle)), "PolarBackward0")


@_composite
def real(self: Tensor) -> Tensor:
    if not self._dtype.is_complex:
        return self  # (the tensor itself, as PyTorch's ``x.real is x``)
    return ops.view_as_real(self).select(-1, 0)


@_composite
def imag(self: Tensor) -> Tensor:
    if not self._dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return ops.view_as_real(self).select(-1, 1)


@_composite
def angle(self: Tensor) -> Tensor:
    if self._dtype.is_complex:
        # atan2(imag, real), with PyTorch's zero gradient at 0 (atan2's is 0 / 0 there).
        zero = self == 0
        safe = ops.where(zero, ops.ones_like(self), self)
        return named_as(ops.where(zero, 0.0, ops.atan2(safe.imag, safe.real)), "AngleBackward0")
    x = self if self._dtype.is_floating_point else self.to(dt.get_default_dtype())
    # pi for negative numbers, 0 otherwise, NaN kept; x stays in the graph with a zero
    # gradient, as PyTorch's.
    out = ops.where(ops.isnan(x), x, ops.where(x < 0, math.pi, 0.0).to(x._dtype))
    return named_as(out, "AngleBackward0")
