"""The regularized incomplete gamma functions ``gammainc`` (``P``) and ``gammaincc``
(``Q``) of :mod:`tensorcore.special` (``Gamma.cdf`` uses them): computed with tensor
operators (a power series and a continued fraction, in float64), differentiable in ``x``
(``other``) only, as PyTorch's."""

from __future__ import annotations

import math
from typing import Any

from ._tensor import Tensor
from .autograd.function import Function, FunctionCtx
from .autograd.grad_mode import no_grad
from .dtypes import get_default_dtype
from .ops import functions as ops

__all__ = ["gammainc", "gammaincc"]


#: The series and continued fraction of the incomplete gamma functions stop here at the latest
#: (enough for ``a`` up to about 1e5 at double precision).
_IGAMMA_MAX_STEPS = 5000


def _igamma_pair(a: Tensor, x: Tensor) -> tuple[Tensor, Tensor]:
    """``(P(a, x), Q(a, x))`` in float64: by the power series of ``P`` where ``x < a + 1``
    and by the continued fraction of ``Q`` elsewhere (modified Lentz), each where it
    converges fast; vectorised, stepping until every element has converged."""
    tiny, eps = 1e-300, 2.220446049250313e-16
    ok = (a > 0) & (x > 0) & ops.isfinite(x)
    a_ = ops.where(ok, a, 1.0)
    x_ = ops.where(ok, x, 1.0)
    prefactor = ops.exp(a_ * ops.log(x_) - x_ - ops.lgamma(a_))
    use_series = x_ < a_ + 1
    # Power series: P = prefactor * sum_n x^n / (a (a + 1) ... (a + n)).
    term = 1.0 / a_
    total = term
    going = use_series & ok
    n = 0
    while bool(going.any()) and n < _IGAMMA_MAX_STEPS:
        n += 1
        term = term * x_ / (a_ + n)
        total = total + ops.where(going, term, 0.0)
        going = going & (ops.abs(term) > ops.abs(total) * eps)
    p_series = prefactor * total
    # Continued fraction: Q = prefactor / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...)).
    b = x_ + 1 - a_
    c = ops.full_like(x_, 1.0 / tiny)
    d = 1.0 / ops.where(ops.abs(b) < tiny, tiny, b)
    h = d
    going = ~use_series & ok
    i = 0
    while bool(going.any()) and i < _IGAMMA_MAX_STEPS:
        i += 1
        an = -i * (i - a_)
        b = b + 2
        d = an * d + b
        d = 1.0 / ops.where(ops.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = ops.where(ops.abs(c) < tiny, tiny, c)
        delta = d * c
        h = ops.where(going, h * delta, h)
        going = going & (ops.abs(delta - 1) > eps)
    q_frac = prefactor * h
    p = ops.where(use_series, p_series, 1 - q_frac)
    q = ops.where(use_series, 1 - p_series, q_frac)
    # Outside the interior: P(a, 0) = 0, P(a, inf) = 1, NaN for a <= 0 or x < 0.
    bad = (a <= 0) | (x < 0) | ops.isnan(a) | ops.isnan(x)
    zero, inf = x == 0, x == math.inf
    p = ops.where(zero, 0.0, ops.where(inf, 1.0, p))
    q = ops.where(zero, 1.0, ops.where(inf, 0.0, q))
    return ops.where(bad, math.nan, p), ops.where(bad, math.nan, q)


class _IncompleteGamma(Function):
    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, x: Tensor, upper: bool) -> Tensor:
        with no_grad():
            # In double precision: the prefactor's exponent is large for large ``a``.
            p, q = _igamma_pair(a.double(), x.double())
            p, q = p.to(x.dtype), q.to(x.dtype)
        ctx.save_for_backward(a, x)
        ctx.upper = upper  # type: ignore[attr-defined]
        return q if upper else p

    @staticmethod
    def backward(ctx: FunctionCtx, g: Tensor) -> tuple[Any, ...]:
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative of gammainc for input is not implemented")
        # d/dx P(a, x) is the gamma density x^(a-1) e^-x / Gamma(a).
        density = ops.exp(ops.xlogy(a - 1, x) - x - ops.lgamma(a))
        return None, g * (-density if ctx.upper else density), None  # type: ignore[attr-defined]


def _igamma(a: Any, x: Any, upper: bool, out: Tensor | None) -> Tensor:
    # (numbers take the dtype and device of the tensor beside them)
    like = a if isinstance(a, Tensor) else x if isinstance(x, Tensor) else None
    if like is None:
        raise TypeError("gammainc(): expected a tensor for input or other")
    a_t, x_t = (
        v if isinstance(v, Tensor) else ops.full_like(like, v, dtype=like.dtype) for v in (a, x)
    )
    a_t, x_t = ops.broadcast_tensors(a_t, x_t)
    if not a_t.dtype.is_floating_point:
        a_t, x_t = a_t.to(get_default_dtype()), x_t.to(get_default_dtype())
    result: Tensor = _IncompleteGamma.apply(a_t, x_t, upper)
    if out is not None:
        out.copy_(result)
        return out
    return result


def gammainc(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
    """The regularized lower incomplete gamma function
    ``P(a, x) = (1 / Gamma(a)) int_0^x t^(a-1) e^-t dt`` of ``a = input`` and ``x = other``
    (the CDF of ``Gamma(a, 1)`` at ``x``); differentiable in ``other``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.gammainc(tc.tensor([1.0, 2.0]), tc.tensor([1.0, 0.0]))
    tensor([0.6321, 0.0000])
    """
    return _igamma(input, other, False, out)


def gammaincc(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)`` of
    ``a = input`` and ``x = other``, computed directly (accurate where ``Q`` is small).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.gammaincc(tc.tensor([1.0]), tc.tensor([1.0]))
    tensor([0.3679])
    """
    return _igamma(input, other, True, out)
