"""The pointwise operators' rules: arithmetic, powers, exponentials and logarithms,
trigonometry, rounding, ``clamp``/``where``/``lerp`` and the special functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ... import dtypes as dt
from ..._tensor import Tensor
from .. import functions as ops
from ._table import _conj, _d, _is_tensor_arg, _scalar_tensor

# ------------------------------------------------------------------ pointwise
# A rule computes only the gradients of the inputs that want one (``c.needs(i)``, which is
# False for a Python scalar and for a tensor that does not require grad): ``x / w`` with a
# constant ``w`` runs one division backward, not five operators.
_d(
    "add",
    "alpha",
    lambda c, g: (g, (g if c.alpha == 1 else g * c.alpha) if c.needs(1) else None),
)
_d(
    "sub",
    "alpha",
    lambda c, g: (g, (-g if c.alpha == 1 else g * -c.alpha) if c.needs(1) else None),
)
_d(
    "mul",
    "self:if=other other:if=self",
    lambda c, g: (
        g * _conj(c.other) if c.needs(0) else None,
        g * _conj(c.self) if c.needs(1) else None,
    ),
)


def _div(c: Any, g: Tensor) -> tuple[Any, ...]:
    if c.rounding_mode is not None:
        return (
            ops.zeros_like(g) if c.needs(0) else None,
            ops.zeros_like(g) if c.needs(1) else None,
        )
    other = _conj(c.other)
    ga = g / other if c.needs(0) or c.needs(1) else None
    # -(g / other) * (self / other): PyTorch's -g * (self / other) / other with the division
    # of g shared with self's gradient (four operators for both, not five). Never through
    # other * other, which overflows for |other| above 1e19 in float32 where the quotients
    # do not (softsign's x / (|x| + 1) at x = 1e30).
    gb = -(ga * (_conj(c.self) / other)) if c.needs(1) else None
    return (ga if c.needs(0) else None), gb


_d("div", "self:if=other other rounding_mode", _div)
_d(
    "remainder",
    "self:if=other other:if=other",
    lambda c, g: (g, -g * (c.self / c.other).floor() if c.needs(1) else None),
)
_d(
    "fmod",
    "self:if=other other:if=other",
    lambda c, g: (g, -g * (c.self / c.other).trunc() if c.needs(1) else None),
)


def _pow_grads(c: Any, g: Tensor, x: Any, p: Any) -> tuple[Any, ...]:
    # (conjugated for complex operands: pow is holomorphic in each, and the rule returns
    # ``g * conj(d result / d input)``; ``conj(x ** (p - 1))``, not ``conj(x) ** (p - 1)``,
    # which differs on the negative real axis, the branch cut)
    gx = gp = None
    if c.needs(0):
        if not _is_tensor_arg(p):
            gx = ops.zeros_like(g) if p == 0 else g * _conj(p * x ** (p - 1))
        else:
            # 0 where the exponent is 0 (not 0 * inf at a zero base), as PyTorch.
            gx = g * ops.where(p == 0, 0.0, _conj(p * x ** (p - 1)))
    if c.needs(1):
        # ``2.0 ** p``: the base is a Python scalar; log needs it as a tensor.
        xt = x if _is_tensor_arg(x) else _scalar_tensor(x, c.result)
        # d/dp x**p = x**p * log(x); defined as 0 where x == 0 and p >= 0 (PyTorch's choice;
        # a complex p must be real and >= 0).
        if isinstance(p, Tensor) and p._dtype.is_complex:
            nonneg = (p.imag == 0) & (p.real >= 0)
        else:
            nonneg = p >= 0
        gp = g * ops.where((xt == 0) & nonneg, 0.0, _conj(c.result * ops.log(xt)))
    return gx, gp


_d("pow", "self other result", lambda c, g: _pow_grads(c, g, c.self, c.other))


def _float_power(c: Any, g: Tensor) -> tuple[Any, ...]:
    # The derivative of pow in the float64 (complex128) the result was computed in, as
    # PyTorch's composite pow(self.to(double), other.to(double)) differentiates it.
    d = c.result._dtype
    x, p = (t.to(d) if isinstance(t, Tensor) else t for t in (c.self, c.other))
    return _pow_grads(c, g, x, p)


_d("float_power", "self other result", _float_power)


def _atan2(c: Any, g: Tensor) -> tuple[Any, ...]:
    a, b = c.self, c.other
    d = a * a + b * b
    # 0 at the origin (where the squared radius is 0), not 0 / 0: PyTorch's choice.
    recip = ops.where(d == 0, 0.0, d.reciprocal())
    return (g * b * recip if c.needs(0) else None), (-g * a * recip if c.needs(1) else None)


_d("atan2", "self other", _atan2)


def _max_min_pointwise(self_loses: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    def rule(c: Any, g: Tensor) -> tuple[Any, ...]:
        a, b = c.self, c.other
        # Ties split the gradient evenly; each side gets it unless it lost the comparison,
        # so both get all of it where one is NaN (no comparison holds): PyTorch's rule.
        # (the loser's share masked with a where, as PyTorch's masked_fill: an infinite or
        # NaN gradient there is 0)
        share = g * ops.where(a == b, 0.5, 1.0)
        return (
            ops.where(self_loses(a, b), 0.0, share) if c.needs(0) else None,
            ops.where(self_loses(b, a), 0.0, share) if c.needs(1) else None,
        )

    return rule


_d("maximum", "self other", _max_min_pointwise(lambda a, b: a < b))
_d("minimum", "self other", _max_min_pointwise(lambda a, b: a > b))
_d("neg", "", lambda c, g: (-g,))


def _abs(c: Any, g: Tensor) -> tuple[Any, ...]:
    x = c.self
    if x._dtype.is_complex:
        return (g * x / ops.where(x == 0, 1, c.result),)
    return (g * x.sign(),)


_d("abs", "self result", _abs)
_d("sign", "", lambda c, g: (ops.zeros_like(g),))
_d("reciprocal", "result", lambda c, g: (-g * _conj(c.result * c.result),))
_d("exp", "result", lambda c, g: (g * _conj(c.result),))
_d("exp2", "result", lambda c, g: (g * _conj(c.result) * math.log(2.0),))
# (exp(self), not result + 1: that rounds to 0 below about -17 in float32, where exp does not,
# and an infinite incoming gradient then gave NaN through elu/celu/selu's negative branch)
_d("expm1", "self", lambda c, g: (g * _conj(c.self.exp()),))
_d("log", "self", lambda c, g: (g / _conj(c.self),))
_d("log2", "self", lambda c, g: (g / (_conj(c.self) * math.log(2.0)),))
_d("log10", "self", lambda c, g: (g / (_conj(c.self) * math.log(10.0)),))
_d("log1p", "self", lambda c, g: (g / _conj(c.self + 1),))
_d("sqrt", "result", lambda c, g: (g / (2 * _conj(c.result)),))
_d("rsqrt", "result", lambda c, g: (g * -0.5 * _conj(c.result**3),))
_d("sin", "self", lambda c, g: (g * _conj(c.self.cos()),))
_d("cos", "self", lambda c, g: (-g * _conj(c.self.sin()),))
_d("tan", "result", lambda c, g: (g * _conj(1 + c.result * c.result),))
_d("asin", "self", lambda c, g: (g * _conj((1 - c.self * c.self).rsqrt()),))
_d("acos", "self", lambda c, g: (-g * _conj((1 - c.self * c.self).rsqrt()),))
_d("atan", "self", lambda c, g: (g / _conj(1 + c.self * c.self),))
_d("sinh", "self", lambda c, g: (g * _conj(c.self.cosh()),))
_d("cosh", "self", lambda c, g: (g * _conj(c.self.sinh()),))
_d("tanh", "result", lambda c, g: (ops.tanh_backward(g, c.result),))
_d("sigmoid", "result", lambda c, g: (ops.sigmoid_backward(g, c.result),))
_d("relu", "result", lambda c, g: (ops.threshold_backward(g, c.result, 0),))
_d("erf", "self", lambda c, g: (g * ((c.self * c.self).neg().exp() * (2 / math.sqrt(math.pi))),))
for _n in ("floor", "ceil", "trunc", "round"):
    _d(_n, "", lambda c, g: (ops.zeros_like(g),))
_d("nan_to_num", "self", lambda c, g: (g * c.self.isfinite().to(g._dtype),))


def _clamp(c: Any, g: Tensor) -> tuple[Any, ...]:
    # PyTorch's clamp_backward_min_max: the result is min(max(x, lo), hi), so where the bounds
    # cross (lo > hi) it is hi everywhere and the whole gradient goes to hi.
    x, lo, hi = c.self, c.min, c.max
    gx = glo = ghi = None
    if c.needs(0):
        keep = ops.ones_like(x, dtype=dt.bool_)
        if lo is not None:
            keep = keep & (x >= lo)
        if hi is not None:
            keep = keep & (x <= hi)
        gx = ops.where(keep, g, 0.0)  # (a where, as PyTorch's: an inf gradient masked is 0)
    if c.needs(1):
        to_lo = x < lo
        if hi is not None:
            to_lo = to_lo & (lo < hi)
        glo = ops.where(to_lo, g, 0.0)
    if c.needs(2):
        to_hi = x > hi
        if lo is not None:
            to_hi = to_hi | (hi < lo)
        ghi = ops.where(to_hi, g, 0.0)
    return gx, glo, ghi


_d("clamp", "self min max", _clamp)
_d(
    "where",
    "condition",
    lambda c, g: (
        None,
        ops.where(c.condition, g, 0.0) if c.needs(1) else None,
        ops.where(c.condition, 0.0, g) if c.needs(2) else None,
    ),
)
_d(
    "lerp",
    "self end weight",
    lambda c, g: (
        g * (1 - c.weight) if c.needs(0) else None,
        g * c.weight if c.needs(1) else None,
        g * (c.end - c.self) if c.needs(2) else None,
    ),
)


# ------------------------------------------------------------------ pointwise: special functions
_d("acosh", "self", lambda c, g: (g * _conj((c.self * c.self - 1).rsqrt()),))
_d("asinh", "self", lambda c, g: (g * _conj((c.self * c.self + 1).rsqrt()),))
_d("atanh", "self", lambda c, g: (g / _conj(1 - c.self * c.self),))
_d(
    "erfc",
    "self",
    lambda c, g: (g * ((c.self * c.self).neg().exp() * (-2 / math.sqrt(math.pi))),),
)
_d(
    "erfinv",
    "result",
    lambda c, g: (g * ((c.result * c.result).exp() * (math.sqrt(math.pi) / 2)),),
)
_d("lgamma", "self", lambda c, g: (g * ops.digamma(c.self),))
_d("digamma", "self", lambda c, g: (g * ops.polygamma(1, c.self),))
_d("polygamma", "n self", lambda c, g: (g * ops.polygamma(c.n + 1, c.self),))
_d("i0", "self", lambda c, g: (g * ops.special_i1(c.self),))


def _special_i1(c: Any, g: Tensor) -> tuple[Any, ...]:
    # I1'(x) = I0(x) - I1(x) / x, which is 1/2 at 0.
    x = c.self
    zero = x == 0
    return (g * ops.where(zero, 0.5, ops.i0(x) - c.result / ops.where(zero, 1.0, x)),)


_d("special_i1", "self result", _special_i1)
_d(
    "special_i0e",
    "self result",
    lambda c, g: (g * (ops.special_i1e(c.self) - ops.sgn(c.self) * c.result),),
)


def _special_i1e(c: Any, g: Tensor) -> tuple[Any, ...]:
    # (e^-|x| I1)' = i0e(x) - i1e(x) (sgn(x) + 1 / x), which is 1/2 at 0.
    x = c.self
    zero = x == 0
    slope = ops.special_i0e(x) - c.result * (ops.sgn(x) + 1 / ops.where(zero, 1.0, x))
    return (g * ops.where(zero, 0.5, slope),)


_d("special_i1e", "self result", _special_i1e)


def _special_zeta(c: Any, g: Tensor) -> tuple[Any, ...]:
    # PyTorch differentiates zeta(x, q) in q only: d/dq = -x zeta(x + 1, q).
    if c.needs(0):
        raise NotImplementedError("the derivative for 'zeta' is not implemented.")
    return (None, -g * c.self * ops.special_zeta(c.self + 1, c.other) if c.needs(1) else None)


_d("special_zeta", "self other", _special_zeta)
_d(
    "special_erfcx",
    "self result",
    lambda c, g: (g * (2 * c.self * c.result - 2 / math.sqrt(math.pi)),),
)


def _sinc(c: Any, g: Tensor) -> tuple[Any, ...]:
    # pi S'(y), S'(y) = (y cos(y) - sin(y)) / y^2 with y = pi x, which cancels (and whose
    # denominator underflows) near 0: there its series -y/3 + y^3/30 - y^5/840, exact to
    # float64 rounding for |y| < 1e-2. 0 at x = 0, also for an infinite g (PyTorch's).
    x = c.self
    y = x * math.pi
    small = y.abs() < 1e-2
    safe = ops.where(small, 1.0, y)
    y2 = y * y
    series = y * (y2 * (1 / 30 - y2 / 840) - 1 / 3)
    d = ops.where(small, series, (safe * safe.cos() - safe.sin()) / (safe * safe)) * math.pi
    return (ops.where(x == 0, 0.0, g * _conj(d)),)


_d("sinc", "self", _sinc)
_d("deg2rad", "", lambda c, g: (g * (math.pi / 180),))
_d("rad2deg", "", lambda c, g: (g * (180 / math.pi),))


def _logit(c: Any, g: Tensor) -> tuple[Any, ...]:
    # PyTorch's logit_backward: outside [eps, 1 - eps] the clamped input has no gradient;
    # without a (non-negative) eps, outside [0, 1] the gradient is NaN.
    x, eps = c.self, c.eps
    d = g / (x * (1 - x))
    if eps is None or eps < 0:
        return (ops.where((x < 0) | (x > 1), math.nan, d),)
    return (ops.where((x < eps) | (x > 1 - eps), 0.0, d),)


_d("logit", "self eps", _logit)
# self = mantissa * 2**exponent: only the mantissa carries a gradient.
_d("frexp", "result1", lambda c, grads: (grads[0] / c.result1.to(grads[0]._dtype).exp2(),))
_d(
    "hypot",
    "self other result",
    lambda c, g: (
        g * c.self / c.result if c.needs(0) else None,
        g * c.other / c.result if c.needs(1) else None,
    ),
)


def _logaddexp(c: Any, g: Tensor) -> tuple[Any, ...]:
    """``d/dself = sigmoid(self - other)`` (and ``d/dother`` with the two swapped): the
    quotient ``1 / (1 + exp(other - self))`` overflowed to 0 (and an infinite incoming
    gradient to NaN) where the sigmoid is a small finite number (softplus, logsigmoid)."""
    d = c.self - c.other
    if d.is_complex():
        return (
            g / _conj(1 + (-d).exp()) if c.needs(0) else None,
            g / _conj(1 + d.exp()) if c.needs(1) else None,
        )
    # sigmoid(+-d) from e = exp(-|d|), which never overflows: the sigmoid kernel's
    # 1 / (1 + exp(-d)) is 0 where exp(-d) overflows, below about -88 in float32
    e = (-d.abs()).exp()
    den = 1 + e
    up = d >= 0
    return (
        g * (ops.where(up, 1.0, e) / den) if c.needs(0) else None,
        g * (ops.where(up, e, 1.0) / den) if c.needs(1) else None,
    )


_d("logaddexp", "self other", _logaddexp)
_d(
    "logaddexp2",
    "self other",
    lambda c, g: (
        g / (1 + (c.other - c.self).exp2()) if c.needs(0) else None,
        g / (1 + (c.self - c.other).exp2()) if c.needs(1) else None,
    ),
)
# copysign(x, y) = |x| sign(y): d/dx is result / x (0 at x = 0), d/dy is 0.
_d(
    "copysign",
    "self result",
    lambda c, g: (
        g * ops.where(c.self == 0, 0.0, c.result / c.self) if c.needs(0) else None,
        ops.zeros_like(g) if c.needs(1) else None,
    ),
)
_d(
    "xlogy",
    "self other",
    lambda c, g: (
        # PyTorch's rule: log(other) also where self is 0 (the derivative of self * log(other)
        # in self), 0 only where log(other) is not finite there (other <= 0).
        ops.where((c.self == 0) & (c.other <= 0), 0.0, ops.xlogy(g, c.other))
        if c.needs(0)
        else None,
        g * c.self / c.other if c.needs(1) else None,
    ),
)


def _fmax_fmin(picks_self: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    def rule(c: Any, g: Tensor) -> tuple[Any, ...]:
        # PyTorch's rule: the whole gradient goes to self where it was picked (ties too) or
        # where other is NaN, to other elsewhere.
        a, b = c.self, c.other
        to_self = picks_self(a, b) | (b != b)
        return (
            ops.where(to_self, g, 0.0) if c.needs(0) else None,
            ops.where(to_self, 0.0, g) if c.needs(1) else None,
        )

    return rule


_d("fmax", "self other", _fmax_fmin(lambda a, b: a >= b))
_d("fmin", "self other", _fmax_fmin(lambda a, b: a <= b))


def _ldexp(c: Any, g: Tensor) -> tuple[Any, ...]:
    # self * 2**other: 2**other in the dtype the result was computed in.
    p = c.other
    gx = gp = None
    if c.needs(0):
        scale = ops.exp2(p.to(c.result._dtype)) if isinstance(p, Tensor) else 2.0**p
        gx = g * _conj(scale)
    if c.needs(1):
        gp = g * _conj(c.result) * math.log(2.0)
    return gx, gp


_d("ldexp", "other result", _ldexp)
