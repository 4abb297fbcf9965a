"""THE derivative table: one rule per differentiable operator.

A rule names what it saves (parameter names from the operator's signature, or ``result``;
``name:spec`` saves only the tensor's shape, strides, offset, dtype and device, for rules
that never read its values -- views, ``sum``, ``cat``... -- so that modifying the input in
place later does not invalidate the graph; ``name:if=other`` saves it only when the tensor
input ``other`` wants a gradient, as PyTorch saves ``self`` of ``mul`` only for ``other``'s
gradient, and None otherwise) and maps the output gradient ``g`` to one
gradient per tensor input (in signature order, tensor lists flattened without their ``None``
entries; ``None`` for inputs without a gradient). Rules are written with
tensorcore operators, so they run on every device and layout and are themselves
differentiable (higher-order gradients). The engine then sums each gradient to its input's
shape (undoing broadcasting) and casts it to the input's dtype.

Contract (as PyTorch's derivatives.yaml): for a real input x and output y, a rule returns
``dL/dx`` given ``g = dL/dy``; for complex inputs it returns the conjugate Wirtinger form
PyTorch uses (``g * conj(dy/dx)``). A Python scalar may stand in any tensor position of a
pointwise operator (``2.0 ** x``, ``tc.where(c, 0.0, x)``): a rule returns None for it and
applies operators only to tensors (``_scalar_tensor`` makes one of a scalar).
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import _registry
from .. import dtypes as dt
from .._memory_format import layer_format
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.graph import TensorSpec
from ..dispatch import get_op
from ..layouts import contiguous_format
from . import functions as ops
from ._call import call, call_lane
from .derivatives_ctc import CTC_RULES
from .derivatives_linalg import LINALG_RULES

__all__ = ["DERIVATIVES", "Derivative", "sum_to"]


@dataclass(frozen=True)
class Derivative:
    """What a rule saves and how it maps output gradients to input gradients."""

    saves: tuple[str, ...]
    fn: Callable[..., Any]


DERIVATIVES: dict[str, Derivative] = {}


def _d(name: str, saves: str, fn: Callable[..., Any]) -> None:
    if name in DERIVATIVES:
        raise ValueError(f"derivative of {name} defined twice")
    DERIVATIVES[name] = Derivative(tuple(saves.split()), fn)


def sum_to(g: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sum ``g`` down to ``shape`` (the inverse of broadcasting)."""
    if g._shape == shape:
        return g
    plan = _SUM_TO.get((g._shape, shape))
    if plan is None:
        plan = _sum_to_plan(g._shape, shape)
    dims, keepdim = plan
    # (the lane first, as ``g.sum`` would go: two frames and the keyword call less)
    lane = _SUM.lane
    r = None if lane is None else lane(g, dims, keepdim, None)
    if r is None:
        r = g.sum(dims, keepdim=keepdim)
    if keepdim and len(shape) != len(g._shape):
        r = r.reshape(shape)
    return r


# (gradient's shape, input's shape) -> the dims ``sum_to`` sums over and whether it keeps
# them: every broadcast operand's gradient goes through ``sum_to`` on every backward, and the
# plan depends on the two shapes alone (``tests/test_autograd_fast.py`` compares it with the
# plain ``g.sum`` it stands for). About a microsecond of a small ``x - x.sum(0, keepdim=True)``.
_SUM_TO: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], bool]] = {}
_SUM = get_op("sum")
_EXPAND = get_op("expand")


def _sum_to_plan(have: tuple[int, ...], shape: tuple[int, ...]) -> tuple[tuple[int, ...], bool]:
    """``sum_to``'s reduction from ``have`` to ``shape``: the leading dims alone (a bias: one
    reduction, no reshape), or with the inner broadcast ones, kept as size 1."""
    lead = len(have) - len(shape)
    inner = tuple(lead + i for i, s in enumerate(shape) if s == 1 and have[lead + i] != 1)
    plan = (tuple(range(lead)) + inner, bool(inner))
    if len(_SUM_TO) >= 1024:
        _SUM_TO.clear()
    _SUM_TO[have, shape] = plan
    return plan


def _reduced_count(shape: tuple[int, ...], dims: Any) -> int:
    """How many elements of a tensor of ``shape`` each result of a reduction over ``dims``
    (None: every dim) takes in: 1 for a 0-d tensor (reduced over dim 0 or -1)."""
    if dims is None or not shape:
        return math.prod(shape)
    return math.prod(shape[d] for d in dims)


def _unreduce(g: Tensor, shape: tuple[int, ...], dims: Any, keepdim: bool) -> Tensor:
    """Broadcast a reduced gradient back to the input's shape."""
    if dims is None:
        dims = tuple(range(len(shape)))
    if not keepdim and shape:  # (a 0-d input reduced over dim 0 or -1 stays 0-d)
        # Reduced leading dims come back through ``expand`` alone (it prepends dims): a full
        # reduction's gradient is one view, not one unsqueeze per dim and an expand.
        lead = 0
        for d in sorted(dims):
            if d == lead:
                lead += 1
            else:
                g = g.unsqueeze(d - lead)
    # (the lane first, as ``g.expand`` would go: a quarter of the backward of a reduction)
    lane = _EXPAND.lane
    r = None if lane is None else lane(g, shape)
    return g.expand(shape) if r is None else r


def _keepdim(g: Tensor, shape: tuple[int, ...], dims: Any, keepdim: bool) -> Tensor:
    """A reduced gradient (or result) with the reduced dims back as size 1: what
    :func:`_unreduce` expands, left to broadcast. Rules that go on computing with it use
    this: a small operand broadcasts in the arithmetic, where an expanded one takes every
    operator's strided path."""
    if keepdim or not shape:
        return g
    if dims is None:
        return g.reshape((1,) * len(shape))
    for d in sorted(dims):
        g = g.unsqueeze(d)
    return g


def _conj(t: Any) -> Any:
    if isinstance(t, Tensor) and t._dtype.is_complex:
        return t.conj()
    if isinstance(t, complex):
        return t.conjugate()
    return t


def _zeros_of(t: Any) -> Tensor:
    """Zeros shaped like ``t`` (a tensor or the ``TensorSpec`` a ``":spec"`` save keeps)."""
    return ops.zeros(t._shape, dtype=t._dtype, device=t._device)


def _is_tensor_arg(x: Any) -> bool:
    """Whether an argument was a tensor (saved whole or as ``TensorSpec``), not a scalar."""
    return isinstance(x, (Tensor, TensorSpec))


def _scalar_tensor(v: Any, like: Tensor) -> Tensor:
    """A Python scalar argument as a 0-dim tensor of ``like``'s dtype and device, for rules
    that apply an operator to it (operators take scalars only beside a tensor)."""
    return ops.full((), v, dtype=like._dtype, device=like._device)


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
# For r = g * conj(f(y)): dr/dg is conj(f(y)) (so the same operator on conj(y)); r depends
# on y only through conj(y), so its y-gradient is conj(G) * g * f'(conj(y)).
_d(
    "tanh_backward",
    "grad_output output",
    lambda c, gg: (
        ops.tanh_backward(gg, _conj(c.output)) if c.needs(0) else None,
        _conj(gg) * c.grad_output * _conj(c.output) * -2 if c.needs(1) else None,
    ),
)
_d(
    "sigmoid_backward",
    "grad_output output",
    lambda c, gg: (
        ops.sigmoid_backward(gg, _conj(c.output)) if c.needs(0) else None,
        _conj(gg) * c.grad_output * (1 - 2 * _conj(c.output)) if c.needs(1) else None,
    ),
)
# Piecewise constant in self: its gradient is zero, but a zero that flows (PyTorch's
# ``zeros_like``), so relu's second derivative reaches x as zeros rather than "unused".
_d(
    "threshold_backward",
    "self threshold",
    lambda c, gg: (
        ops.threshold_backward(gg, c.self, c.threshold) if c.needs(0) else None,
        ops.zeros_like(c.self) if c.needs(1) else None,
    ),
)


# The piecewise-linear activations (``leaky_relu``, ``hardtanh``, ...): the gradient is the
# operator's ``*_backward``, which reads ``self``; that operator is linear in its gradient
# argument and piecewise constant in ``self`` (a zero that flows, as threshold_backward's).
def _nn_op(name: str, *args: Any) -> Any:
    """Operator ``name`` (one ``nn.functional`` reaches, not a public function) on ``args``."""
    return call_lane(get_op(name), args)


def _piecewise(name: str, saves: str, flags: str = "") -> None:
    """The rules of ``name`` and ``name_backward``; ``flags``: the backward's bool
    parameters, False when the forward calls it (``leaky_relu``'s ``self_is_result``)."""
    params = saves.split()[1:]
    backward = name + "_backward"
    extra = tuple(flags.split())
    _d(
        name,
        saves,
        lambda c, g: (
            _nn_op(backward, g, c.self, *(getattr(c, p) for p in params), *(False,) * len(extra)),
        ),
    )
    _d(
        backward,
        " ".join((saves, *extra)),
        lambda c, gg: (
            _nn_op(backward, gg, c.self, *(getattr(c, p) for p in (*params, *extra)))
            if c.needs(0)
            else None,
            ops.zeros_like(c.self) if c.needs(1) else None,
        ),
    )


_piecewise("leaky_relu", "self negative_slope", flags="self_is_result")
_piecewise("hardtanh", "self min_val max_val")
_piecewise("hardsigmoid", "self")
_piecewise("softshrink", "self lambd")


def _smooth(name: str, second: Any) -> None:
    """The rules of ``name`` and ``name_backward`` (``silu``, ``mish``, ``hardswish``), whose
    backward is ``grad_output * f'(self)``; ``second(x)`` is ``f''(x)``, with operators."""
    backward = name + "_backward"
    _d(name, "self", lambda c, g: (_nn_op(backward, g, c.self),))
    _d(
        backward,
        "grad_output self",
        lambda c, gg: (
            _nn_op(backward, gg, c.self) if c.needs(0) else None,
            gg * c.grad_output * second(c.self) if c.needs(1) else None,
        ),
    )


def _silu_second(x: Tensor) -> Tensor:
    """``silu''(x) = s (1 - s) (2 + x (1 - 2 s))``, ``s = sigmoid(x)``."""
    s = x.sigmoid()
    return s * (1 - s) * (2 + x * (1 - 2 * s))


def _mish_second(x: Tensor) -> Tensor:
    """``mish''(x) = s (1 - t**2) (2 + x (1 - s) - 2 x t s)``, ``t = tanh(softplus(x))``,
    ``s = sigmoid(x)``."""
    s, t = x.sigmoid(), ops.logaddexp(x, 0.0).tanh()
    return s * (1 - t * t) * (2 + x * (1 - s) - 2 * x * t * s)


def _hardswish_second(x: Tensor) -> Tensor:
    """``hardswish''(x)``: 1/3 inside (-3, 3), 0 elsewhere."""
    return ((x > -3) & (x < 3)).to(x._dtype) / 3


def _softplus_second(c: Any, gg: Tensor) -> tuple[Any, ...]:
    """The rule of ``softplus_backward``: linear in ``grad_output``; in ``self``,
    ``beta * s * (1 - s)`` (``s = sigmoid(beta * self)``) where ``beta * self`` is at most
    ``threshold``, else 0."""
    x, beta, threshold = c.self, c.beta, c.threshold
    dg = _nn_op("softplus_backward", gg, x, beta, threshold) if c.needs(0) else None
    dx = None
    if c.needs(1):
        s = (x * beta).sigmoid()
        dx = ops.where(x * beta > threshold, 0.0, gg * c.grad_output * (s * (1 - s) * beta))
    return dg, dx


_d(
    "softplus",
    "self beta threshold",
    lambda c, g: (_nn_op("softplus_backward", g, c.self, c.beta, c.threshold),),
)
_d("softplus_backward", "grad_output self beta threshold", _softplus_second)
_smooth("silu", _silu_second)
_smooth("mish", _mish_second)
_smooth("hardswish", _hardswish_second)
# (log_sigmoid'(x) = sigmoid(-x) = 1 - s, its derivative -s (1 - s), s = sigmoid(x))
_smooth("log_sigmoid", lambda x: (s := x.sigmoid()) * (s - 1))
_piecewise("hardshrink", "self lambd")


def _elu_backward_rule(c: Any, gg: Tensor) -> tuple[Any, ...]:
    """The rule of ``elu_backward``: linear in ``grad_output``; in ``self_or_result``, 0
    where it is above 0, else ``grad_output`` times ``alpha * scale * input_scale**2 *
    exp(self * input_scale)`` (from the input) or ``input_scale`` (from the result)."""
    a, s, k, is_result, x = c.alpha, c.scale, c.input_scale, c.is_result, c.self_or_result
    dg = _nn_op("elu_backward", gg, a, s, k, is_result, x) if c.needs(0) else None
    dx = None
    if c.needs(1):
        slope = (x.clamp(max=0) * k).exp() * (a * s * k * k) if not is_result else k
        dx = ops.where(x > 0, 0.0, gg * c.grad_output * slope)
    return dg, dx


_d(
    "elu",
    "self alpha scale input_scale",
    lambda c, g: (_nn_op("elu_backward", g, c.alpha, c.scale, c.input_scale, False, c.self),),
)
_d(
    "elu_backward",
    "grad_output alpha scale input_scale is_result self_or_result",
    _elu_backward_rule,
)
_d("threshold", "self threshold", lambda c, g: (ops.threshold_backward(g, c.self, c.threshold),))
_d(
    "_prelu_kernel",
    "self weight",
    lambda c, g: _nn_op("_prelu_kernel_backward", g, c.self, c.weight),
)


def _prelu_backward_backward(c: Any, grads: Any) -> tuple[Any, ...]:
    # grad_input = where(x > 0, g, w g) and grad_weight = where(x > 0, 0, x g): bilinear in
    # (g, w) and (g, x) on each side of 0, piecewise constant in x's sign (a zero that flows).
    ggi, ggw = grads
    x, w, g = c.self, c.weight, c.grad_output
    pos = x > 0
    dg = dx = dw = None
    if c.needs(0):
        dg = ops.where(pos, ggi, ggi * w) if ggi is not None else ops.zeros_like(x)
        if ggw is not None:
            dg = dg + ops.where(pos, 0.0, ggw * x)
    if c.needs(1):
        dx = ops.where(pos, 0.0, ggw * g) if ggw is not None else ops.zeros_like(x)
    if c.needs(2):
        dw = ops.where(pos, 0.0, ggi * g) if ggi is not None else ops.zeros_like(x)
    return dg, dx, dw


_d("_prelu_kernel_backward", "grad_output self weight", _prelu_backward_backward)
_d(
    "gelu",
    "self approximate",
    lambda c, g: (ops.gelu_backward(g, c.self, approximate=c.approximate),),
)


def _gelu_second(x: Tensor, approximate: str) -> Tensor:
    """``gelu''(x)``: ``phi(x) * (2 - x**2)``, or for the tanh form, with ``u = k * (x + c *
    x**3)`` and ``T = tanh(u)``, ``(1 - T**2) * (u' + x / 2 * (u'' - 2 * T * u'**2))``."""
    if approximate == "tanh":
        k, cub = math.sqrt(2 / math.pi), 0.044715
        x2 = x * x
        t = ((x + x2 * x * cub) * k).tanh()
        du = (x2 * (3 * cub) + 1) * k
        return (1 - t * t) * (du + x * 0.5 * (x * (6 * k * cub) - t * du * du * 2))
    return (x * x * -0.5).exp() * (1 / math.sqrt(2 * math.pi)) * (2 - x * x)


_d(
    "gelu_backward",
    "grad_output self approximate",
    lambda c, gg: (
        ops.gelu_backward(gg, c.self, approximate=c.approximate) if c.needs(0) else None,
        gg * c.grad_output * _gelu_second(c.self, c.approximate) if c.needs(1) else None,
    ),
)
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

# ------------------------------------------------------------------ reductions and scans
_d("sum", "self:spec dim keepdim", lambda c, g: (_unreduce(g, c.self._shape, c.dim, c.keepdim),))


def _mean(c: Any, g: Tensor) -> tuple[Any, ...]:
    shape = c.self._shape
    n = _reduced_count(shape, c.dim)
    return (_unreduce(g, shape, c.dim, c.keepdim) / max(n, 1),)


_d("mean", "self:spec dim keepdim", _mean)


def _prod(c: Any, g: Tensor) -> tuple[Any, ...]:
    x = c.self
    res = _keepdim(c.result, x._shape, c.dim, c.keepdim)
    gg = _keepdim(g, x._shape, c.dim, c.keepdim)
    # result / x, recomputed without the division where x has zeros.
    if _registry.interface(x._device).holds_data and bool((x == 0).any()):
        dims = c.dim if c.dim is not None else tuple(range(x.ndim))
        others = _prod_others(x, dims)
        return (gg * _conj(others),)
    return (gg * _conj(res / x),)


def _prod_others(x: Tensor, dims: tuple[int, ...]) -> Tensor:
    """For each element, the product of the other elements over ``dims`` (zero-safe)."""
    moved = x.movedim(dims, tuple(range(x.ndim - len(dims), x.ndim)))
    lead = moved._shape[: x.ndim - len(dims)]
    flat = moved.reshape(lead + (-1,))
    ones = ops.ones_like(flat.narrow(-1, 0, 1))
    excl_left = ops.cat([ones, flat.cumprod(-1).narrow(-1, 0, flat._shape[-1] - 1)], -1)
    rev = flat.flip((-1,))
    excl_right = ops.cat([ones, rev.cumprod(-1).narrow(-1, 0, flat._shape[-1] - 1)], -1).flip((-1,))
    out = (excl_left * excl_right).reshape(moved._shape)
    return out.movedim(tuple(range(x.ndim - len(dims), x.ndim)), dims)


_d("prod", "self dim keepdim result", _prod)


def _amax_amin(c: Any, g: Tensor) -> tuple[Any, ...]:
    return (ops.evenly_distribute_backward(g, c.self, c.result, c.dim, c.keepdim),)


def _evenly_distribute_backward(c: Any, gg: Tensor) -> tuple[Any, ...]:
    # Linear in grad, whose gradient is gg times each element's share (the operator on a
    # grad of ones) summed back over dim; piecewise constant in self and value: zeros that
    # flow, as threshold_backward's.
    gd = None
    if c.needs(0):
        share = ops.evenly_distribute_backward(
            ops.ones_like(c.value, dtype=gg._dtype), c.self, c.value, c.dim, c.keepdim, c.nan_ties
        )
        gd = (gg * share).sum(c.dim or None, keepdim=c.keepdim)
    return (
        gd,
        ops.zeros_like(c.self) if c.needs(1) else None,
        ops.zeros_like(c.value) if c.needs(2) else None,
    )


_d("amax", "self dim keepdim result", _amax_amin)
_d("amin", "self dim keepdim result", _amax_amin)
_d(
    "evenly_distribute_backward",
    "self value dim keepdim nan_ties",
    _evenly_distribute_backward,
)
# (the whole-tensor max()/min(): shared among the NaNs where the result is NaN)
_d(
    "max_all",
    "self result",
    lambda c, g: (ops.evenly_distribute_backward(g, c.self, c.result, (), False, True),),
)
_d(
    "min_all",
    "self result",
    lambda c, g: (ops.evenly_distribute_backward(g, c.self, c.result, (), False, True),),
)


def _max_dim(c: Any, grads: list[Any]) -> tuple[Any, ...]:
    x = c.self
    args = (grads[0], c.dim[0], c.result1, x._shape, c.keepdim)
    return (call_lane(get_op("value_selecting_reduction_backward"), args),)


def _value_selecting_reduction_backward(c: Any, gg: Tensor) -> tuple[Any, ...]:
    # linear in grad: the incoming gradient at the indices (a gather along dim)
    if not c.needs(0):
        return (None, None)
    if not gg.ndim:
        return (gg, None)
    idx = c.indices if c.keepdim else c.indices.unsqueeze(c.dim)
    got = gg.gather(c.dim, idx)
    return (got if c.keepdim else got.squeeze(c.dim), None)


_d(
    "value_selecting_reduction_backward",
    "dim indices keepdim",
    _value_selecting_reduction_backward,
)
_d("max_dim", "self:spec dim keepdim result1", _max_dim)
_d("min_dim", "self:spec dim keepdim result1", _max_dim)
for _name in ("median_dim", "nanmedian_dim", "mode_dim"):
    _d(_name, "self:spec dim keepdim result1", _max_dim)
_d("kthvalue_dim", "self:spec dim keepdim result1", _max_dim)


def _var(c: Any, g: Tensor) -> tuple[Any, ...]:
    x = c.self
    n = _reduced_count(x._shape, c.dim)
    centered = x - x.mean(c.dim, keepdim=True)
    # (the constant folded into the reduced gradient: one operator on the small tensor
    # where two ran on the full one; as PyTorch's, 2 / 0 is inf and a correction above n
    # divides by the negative n - correction)
    scale = 2 / (n - c.correction) if n != c.correction else math.inf
    return (_keepdim(g, x._shape, c.dim, c.keepdim) * scale * centered,)


_d("var", "self dim keepdim correction", _var)


def _std(c: Any, g: Tensor) -> tuple[Any, ...]:
    x = c.self
    n = _reduced_count(x._shape, c.dim)
    centered = x - x.mean(c.dim, keepdim=True)
    std = _keepdim(c.result, x._shape, c.dim, c.keepdim)
    gg = _keepdim(g, x._shape, c.dim, c.keepdim)
    # (where the deviation is 0 the gradient is 0, as PyTorch's: not 0 / 0)
    gg = ops.where(std == 0, 0, gg / std)
    return (gg * centered / max(n - c.correction, 0),)


_d("std", "self dim keepdim correction result", _std)


def _vector_norm(c: Any, g: Tensor) -> tuple[Any, ...]:
    x, p = c.self, c.ord
    norm = _keepdim(c.result, x._shape, c.dim, c.keepdim)
    gg = _keepdim(g, x._shape, c.dim, c.keepdim)
    if p == 0:
        return (ops.zeros(x._shape, dtype=g._dtype, device=g._device),)
    if p == 1:
        return (gg * x.sgn() if x._dtype.is_complex else gg * x.sign(),)
    if p == 2:
        return (gg * x / ops.where(norm == 0, 1, norm),)
    if math.isinf(p):  # (amax's or amin's of |x|, with x's sign)
        share = ops.evenly_distribute_backward(g, x.abs(), c.result, c.dim or (), c.keepdim)
        return (share * (x.sgn() if x._dtype.is_complex else x.sign()),)
    ax = x.abs()
    if p < 1:
        # |x|^(p-1) is infinite at 0: PyTorch takes 0 there (and norm^(1-p) is 0 at a zero
        # norm for p < 0, where some |x| is 0).
        scale = ops.where(ax == 0, 0.0, ax ** (p - 1)) * norm ** (1 - p)
    else:
        scale = (ax / ops.where(norm == 0, 1, norm)) ** (p - 1)
    return (gg * x.sign() * scale,)


_d("vector_norm", "self ord dim keepdim result", _vector_norm)
_d(
    "logsumexp",
    "self dim keepdim result",
    lambda c, g: (
        _keepdim(g, c.self._shape, c.dim, c.keepdim)
        * (c.self - _keepdim(c.result, c.self._shape, c.dim, c.keepdim)).exp(),
    ),
)
_d("cumsum", "dim", lambda c, g: (g.flip((c.dim,)).cumsum(c.dim).flip((c.dim,)),))


def _cumprod(c: Any, g: Tensor) -> tuple[Any, ...]:
    x, d, out = c.self, c.dim, c.result
    if x.numel() == 0 or x.ndim == 0:
        return (g,)

    def rcumsum(t: Tensor) -> Tensor:  # sum over j >= i
        return t.flip((d,)).cumsum(d).flip((d,))

    # grad_i = sum_{j >= i} g_j * prod_{k <= j, k != i} x_k: a reversed cumulative sum of
    # g * result divided by x_i where x_i is not 0 (a few passes, where the sum written out
    # is quadratic in the length of dim).
    if not _registry.interface(x._device).holds_data or not bool((x == 0).any()):
        return (rcumsum(g * _conj(out)) / _conj(x),)
    if grad_mode.is_grad_enabled():
        # A backward that builds a graph: the masks below are constant where x is 0, so
        # their gradients would miss the terms through that 0; the sum written out has them.
        return (_cumprod_quadratic(x, d, g),)
    zeros = x == 0
    seen = zeros.cumsum(d)  # zeros up to and including i
    before = seen == 0
    first = zeros & (seen == 1)
    # Before the first zero the division is safe (the result is 0 from that zero on); at the
    # first zero z: prod_{k < z} x_k * sum_{j >= z} g_j * prod_{z < k <= j} x_k; after it, 0.
    lead = rcumsum(g * _conj(out)) / _conj(ops.where(before, x, 1))
    tail = ops.where(before | first, 1, x).cumprod(d)
    excl = ops.cat([ops.ones_like(x.narrow(d, 0, 1)), out.narrow(d, 0, x._shape[d] - 1)], d)
    at = _conj(excl) * rcumsum(g * _conj(tail))
    return (ops.where(before, lead, ops.where(first, at, 0)),)


def _cumprod_quadratic(x: Tensor, d: int, g: Tensor) -> Tensor:
    """The cumprod gradient summed term by term (zero-safe and differentiable everywhere)."""
    n = x._shape[d]
    out = []
    for i in range(n):
        xi = x.narrow(d, i, 1)
        ones = ops.ones_like(xi)
        left = x.narrow(d, 0, i).prod(d, keepdim=True) if i else ones
        rest = x.narrow(d, i + 1, n - i - 1)
        partial = ops.cat([ones, rest.cumprod(d)], d) * left
        out.append((g.narrow(d, i, n - i) * _conj(partial)).sum(d, keepdim=True))
    return ops.cat(out, d)


_d("cumprod", "self dim result", _cumprod)
_d(
    "cummax",
    "self:spec dim result1",
    lambda c, grads: (
        _zeros_of(c.self).scatter_add(c.dim, c.result1, grads[0])
        if c.self.ndim
        else grads[0].clone(),
    ),
)
_d(
    "cummin",
    "self:spec dim result1",
    lambda c, grads: (
        _zeros_of(c.self).scatter_add(c.dim, c.result1, grads[0])
        if c.self.ndim
        else grads[0].clone(),
    ),
)


_LOWEST = {
    dt.float16: -65504.0,
    dt.bfloat16: -3.3895313892515355e38,
    dt.float32: -3.4028234663852886e38,
}


def _logcumsumexp(c: Any, g: Tensor) -> tuple[Any, ...]:
    # d out_i / d x_j = exp(x_j - out_i) for j <= i, so the gradient of x_j is
    # sum_{i >= j} g_i exp(x_j - out_i): a reversed logcumsumexp of log(g) - out, kept in
    # log space so that nothing overflows (real gradients split by sign, as PyTorch does).
    x, out, d = c.self, c.result, c.dim
    if x.ndim == 0 or x.numel() == 0:
        return (g,)

    def rev(t: Tensor) -> Tensor:
        return t.flip((d,)).logcumsumexp(d).flip((d,))

    if x._dtype.is_complex:
        return ((x.conj() + rev(g.log() - out.conj())).exp(),)
    # The dtype's lowest number stands for log(0): finite, so that no -inf - -inf makes a NaN
    # in this rule's own derivative.
    low = _LOWEST.get(x._dtype, -1.7976931348623157e308)
    log_abs = ops.where(g == 0, 1, g.abs()).log()
    pos = rev(ops.where(g > 0, log_abs, low) - out)
    neg = rev(ops.where(g < 0, log_abs, low) - out)
    return ((pos + x).exp() - (neg + x).exp(),)


_d("logcumsumexp", "self dim result", _logcumsumexp)
_d(
    "softmax",
    "dim result",
    lambda c, g: (ops._softmax_backward_data(g, c.result, c.dim),),
)
_d(
    "_safe_softmax",
    "dim result",
    lambda c, g: (ops._softmax_backward_data(g, c.result, c.dim),),
)
_d(
    "log_softmax",
    "dim result",
    lambda c, g: (ops._log_softmax_backward_data(g, c.result, c.dim),),
)


def _softmax_backward_backward(c: Any, gg: Tensor) -> tuple[Any, ...]:
    # r = y * (g - s), s = sum(g * y): linear and self-adjoint in g.
    g, y, d = c.grad_output, c.output, c.dim
    gy = None
    if c.needs(1):
        s = (g * y).sum(d, keepdim=True)
        gy = gg * (g - s) - g * (gg * y).sum(d, keepdim=True)
    return (ops._softmax_backward_data(gg, y, d) if c.needs(0) else None), gy


def _log_softmax_backward_backward(c: Any, gg: Tensor) -> tuple[Any, ...]:
    # r = g - exp(y) * sum(g).
    g, y, d = c.grad_output, c.output, c.dim
    e = y.exp()
    return (
        gg - (gg * e).sum(d, keepdim=True) if c.needs(0) else None,
        -gg * e * g.sum(d, keepdim=True) if c.needs(1) else None,
    )


_d("_softmax_backward_data", "grad_output output dim", _softmax_backward_backward)
_d("_log_softmax_backward_data", "grad_output output dim", _log_softmax_backward_backward)


def _nll_loss(c: Any, g: Tensor) -> tuple[Any, ...]:
    x = c.self
    gx = gw = None
    if c.needs(0):
        gx = ops.nll_loss_backward(g, c.target, x._shape[1], c.reduction, c.weight, c.ignore_index)
    if c.needs(2):
        # loss = -sum_n w[t_n] x[n, t_n] (/ sum_n w[t_n] for "mean"): each kept sample adds
        # -x[n, t_n] (minus the loss, over the total weight, for "mean") to w[t_n].
        w, t = c.weight, c.target
        keep = t != c.ignore_index
        safe = ops.where(keep, t, 0)
        picked = x.gather(1, safe.unsqueeze(1)).squeeze(1)
        if c.reduction == "mean":
            total = (w.index_select(0, safe) * keep).sum()
            contrib = (-picked - c.result) / total * g
        else:
            contrib = -picked * g
        gw = ops.zeros_like(w).index_put((safe,), contrib * keep, accumulate=True)
    return gx, None, gw


_d("nll_loss", "self target weight reduction ignore_index result", _nll_loss)


# The smooth L1 and Huber losses: the gradient in ``target`` is minus that in ``self``. Their
# backward is linear in ``grad_output`` (its adjoint: the loss's reduction of ``gg`` times the
# slope) and piecewise linear in ``d = self - target`` (its derivative: ``grad_output`` times
# 1 / beta, or 1, where ``|d|`` is below the parameter, and 0 beyond).
def _pointwise_loss_rule(name: str, param: str, over_param: bool) -> None:
    """The rules of ``name`` and ``name_backward``; ``over_param``: the slope inside is ``d /
    param`` (smooth L1), else ``d`` (Huber)."""
    backward = name + "_backward"

    def rule(c: Any, g: Tensor) -> tuple[Any, ...]:
        gx = _nn_op(backward, g, c.self, c.target, c.reduction, getattr(c, param))
        return (gx if c.needs(0) else None), (-gx if c.needs(1) else None)

    def second(c: Any, gg: Tensor) -> tuple[Any, ...]:
        x, t, reduction, p = c.self, c.target, c.reduction, getattr(c, param)
        dg = dx = dt_ = None
        if c.needs(0):
            slope = _nn_op(backward, ops.ones_like(x), x, t, "none", p) * gg
            dg = slope if reduction == "none" else slope.sum()
            if reduction == "mean" and x.numel():
                dg = dg / x.numel()
        if c.needs(1) or c.needs(2):
            inside = (x - t).abs() < p
            g = c.grad_output / x.numel() if reduction == "mean" and x.numel() else c.grad_output
            curv = gg * g * inside
            dx = curv / p if over_param else curv
            dt_ = -dx if c.needs(2) else None
        return dg, (dx if c.needs(1) else None), dt_

    _d(name, f"self target reduction {param}", rule)
    _d(backward, f"grad_output self target reduction {param}", second)


def _bce_scale(c: Any, g: Tensor) -> Tensor:
    """``grad_output`` (over the element count for "mean") times the weight: what multiplies
    each element's derivative in ``binary_cross_entropy``'s gradients."""
    n = c.self.numel()
    s = g / n if c.reduction == "mean" and n else g
    return s if c.weight is None else s * c.weight


def _bce_rule(c: Any, g: Tensor) -> tuple[Any, ...]:
    p, t = c.self, c.target
    gp = gt = gw = None
    if c.needs(0):
        gp = _nn_op("binary_cross_entropy_backward", g, p, t, c.weight, c.reduction)
    if c.needs(1):
        # d loss / d target = -logit(p), unclamped (PyTorch's: infinite at p = 0 and 1)
        gt = -ops.logit(p) * _bce_scale(c, g)
    if c.needs(2):
        # (PyTorch refuses a weight that requires grad; here it gets each element's loss)
        n = p.numel()
        s = g / n if c.reduction == "mean" and n else g
        loss = _nn_op("binary_cross_entropy", p, t, None, "none")
        gw = sum_to(loss * s, c.weight._shape)
    return gp, gt, gw


def _bce_backward_rule(c: Any, gg: Tensor) -> tuple[Any, ...]:
    # grad_input = s * (p - t) / D, s = grad_output * weight (/ N), D = p (1 - p): linear in
    # grad_output; d/dp = s * (D - (p - t)(1 - 2p)) / D**2, d/dt = -s / D
    p, t = c.self, c.target
    dg = dp = dt_ = dw = None
    if c.needs(0):
        slope = (
            _nn_op("binary_cross_entropy_backward", ops.ones_like(p), p, t, c.weight, "none") * gg
        )
        dg = slope if c.reduction == "none" else slope.sum()
        if c.reduction == "mean" and p.numel():
            dg = dg / p.numel()
    if c.needs(1) or c.needs(2):
        den = p * (1 - p)
        s = gg * _bce_scale(c, c.grad_output)
        if c.needs(1):
            dp = s * (den - (p - t) * (1 - 2 * p)) / (den * den)
        if c.needs(2):
            dt_ = -s / den
    if c.needs(3):
        n = p.numel()
        g = c.grad_output / n if c.reduction == "mean" and n else c.grad_output
        dw = sum_to(gg * g * (p - t) / (p * (1 - p)).clamp(min=1e-12), c.weight._shape)
    return dg, dp, dt_, dw


_d("binary_cross_entropy", "self target weight reduction", _bce_rule)


def _bcel_parts(c: Any) -> tuple[Any, Any]:
    """``(L, pw)``: the factor of ``softplus(-x)`` in ``binary_cross_entropy_with_logits``,
    ``1 + (pw - 1) t`` (1 without ``pos_weight``), and ``pos_weight`` (None)."""
    pw = c.pos_weight
    return (1 if pw is None else (pw - 1) * c.target + 1), pw


def _bcel_rule(c: Any, g: Tensor) -> tuple[Any, ...]:
    x, t, w, pw, red = c.self, c.target, c.weight, c.pos_weight, c.reduction
    name = "binary_cross_entropy_with_logits"
    gx = gt = gw = gpw = None
    if c.needs(0):
        gx = _nn_op(name + "_backward", g, x, t, w, pw, red)
    if c.needs(1) or c.needs(3):
        s = _bce_scale(c, g)
        sp = ops.logaddexp(-x, 0.0)  # softplus(-x)
        if c.needs(1):
            gt = (-x if pw is None else (pw - 1) * sp - x) * s
        if c.needs(3):
            gpw = sum_to(t * sp * s, pw._shape)
    if c.needs(2):
        n = x.numel()
        loss = _nn_op(name, x, t, None, pw, "none")
        gw = sum_to(loss * (g / n if red == "mean" and n else g), w._shape)
    return gx, gt, gw, gpw


def _bcel_backward_rule(c: Any, gg: Tensor) -> tuple[Any, ...]:
    # grad_input = S (L s - pw t), S = grad_output * weight (/ N), s = sigmoid(x): linear in
    # grad_output; d/dx = S L s (1 - s), d/dt = S ((pw - 1) s - pw) (-S without pw),
    # d/dweight = grad_output (/ N) (L s - pw t), d/dpw = S t (s - 1)
    x, t, w, pw, red = c.self, c.target, c.weight, c.pos_weight, c.reduction
    backward = "binary_cross_entropy_with_logits_backward"
    dg = dx = dt_ = dw = dpw = None
    if c.needs(0):
        slope = _nn_op(backward, ops.ones_like(x), x, t, w, pw, "none") * gg
        dg = slope if red == "none" else slope.sum()
        if red == "mean" and x.numel():
            dg = dg / x.numel()
    lw, _ = _bcel_parts(c)
    s = x.sigmoid()
    big_s = gg * _bce_scale(c, c.grad_output)
    if c.needs(1):
        dx = big_s * lw * s * (1 - s)
    if c.needs(2):
        dt_ = -big_s if pw is None else big_s * ((pw - 1) * s - pw)
    if c.needs(3):
        n = x.numel()
        g = c.grad_output / n if red == "mean" and n else c.grad_output
        v = s - t if pw is None else lw * s - pw * t
        dw = sum_to(gg * g * v, w._shape)
    if c.needs(4):
        dpw = sum_to(big_s * t * (s - 1), pw._shape)
    return dg, dx, dt_, dw, dpw


_d(
    "binary_cross_entropy_with_logits",
    "self target weight pos_weight reduction",
    _bcel_rule,
)
_d(
    "binary_cross_entropy_with_logits_backward",
    "grad_output self target weight pos_weight reduction",
    _bcel_backward_rule,
)
_d(
    "binary_cross_entropy_backward",
    "grad_output self target weight reduction",
    _bce_backward_rule,
)
_pointwise_loss_rule("smooth_l1_loss", "beta", over_param=True)
_pointwise_loss_rule("huber_loss", "delta", over_param=False)


# nll_loss_backward is linear in grad_output, and its adjoint is nll_loss itself.
def _nll_loss_backward(c: Any, gg: Tensor) -> tuple[Any, ...]:
    g_out = g_w = None
    if c.needs(0):
        g_out = ops.nll_loss(gg, c.target, c.weight, c.reduction, c.ignore_index)
    if c.needs(2):
        # The output is -g w[t_n] (/ W for "mean", W the total weight) at (n, t_n).
        w, t, g = c.weight, c.target, c.grad_output
        keep = t != c.ignore_index
        safe = ops.where(keep, t, 0)
        at = gg.gather(1, safe.unsqueeze(1)).squeeze(1) * keep
        if c.reduction == "mean":
            ws = w.index_select(0, safe) * keep
            total = ws.sum()
            contrib = (-at + (at * ws).sum() / total) * g / total
        else:
            contrib = -at * g
        g_w = ops.zeros_like(w).index_put((safe,), contrib * keep, accumulate=True)
    return g_out, None, g_w


_d(
    "nll_loss_backward",
    "grad_output:if=weight target reduction weight ignore_index",
    _nll_loss_backward,
)
_d(
    "sort",
    "self:spec dim result1",
    lambda c, grads: (_zeros_of(c.self).scatter(c.dim, c.result1, grads[0]),),
)
_d(
    "topk",
    "self:spec dim result1",
    lambda c, grads: (_zeros_of(c.self).scatter(c.dim, c.result1, grads[0]),),
)


# ------------------------------------------------------------------ linear algebra
def _matmul(c: Any, g: Tensor) -> tuple[Any, ...]:
    a, b = c.self, c.other
    a2 = a.unsqueeze(0) if a.ndim == 1 else a
    b2 = b.unsqueeze(-1) if b.ndim == 1 else b
    g2 = g
    # Unsqueeze the vector dims in this order so that vector @ vector (a 0-dim g) works too.
    if b.ndim == 1:
        g2 = g2.unsqueeze(-1)
    if a.ndim == 1:
        g2 = g2.unsqueeze(-2)
    ga = gb = None
    # Matrix products are the expensive part of a backward pass: skip unneeded ones.
    if c.needs(0):
        ga = sum_to(g2.matmul(_conj(b2).mT), a2._shape).reshape(a._shape)
    if c.needs(1):
        if b2.ndim == 2 and a2.ndim == 2 and not b2.is_contiguous() and b2.mT.is_contiguous():
            # b is a transposed matrix (``x @ w.t()``): compute the gradient in w's own memory
            # order, so it reaches w contiguous instead of needing a transposing copy.
            gb = g2.mT.matmul(_conj(a2)).mT.reshape(b._shape)
        else:
            gb = sum_to(_conj(a2).mT.matmul(g2), b2._shape).reshape(b._shape)
    return ga, gb


_d("matmul", "self other", _matmul)


def _addmm(c: Any, g: Tensor) -> tuple[Any, ...]:
    beta, alpha = c.beta, c.alpha
    gs = gm1 = gm2 = None
    if c.needs(0):
        gs = g if beta == 1 else g * _conj(beta)
    if c.needs(1) or c.needs(2):
        ga = g if alpha == 1 else g * _conj(alpha)
        if c.needs(1):
            gm1 = ga.mm(_conj(c.mat2).t())
        if c.needs(2):
            m2 = c.mat2
            if not m2.is_contiguous() and m2.t().is_contiguous():
                # mat2 is a transposed matrix (``linear``'s weight.t()): its gradient in the
                # weight's own memory order, so it reaches the weight contiguous.
                gm2 = ga.t().mm(_conj(c.mat1)).t()
            else:
                gm2 = _conj(c.mat1).t().mm(ga)
    return gs, gm1, gm2


_d("addmm", "mat1 mat2 beta alpha", _addmm)


def _addmv(c: Any, g: Tensor) -> tuple[Any, ...]:
    gs = gm = gv = None
    if c.needs(0):
        gs = g if c.beta == 1 else g * _conj(c.beta)
    if c.needs(1) or c.needs(2):
        ga = g if c.alpha == 1 else g * _conj(c.alpha)
        if c.needs(1):
            gm = ops.outer(ga, _conj(c.vec))
        if c.needs(2):
            gv = _conj(c.mat).t().mv(ga)
    return gs, gm, gv


_d("addmv", "mat vec beta alpha", _addmv)


def _addr(c: Any, g: Tensor) -> tuple[Any, ...]:
    gs = g1 = g2 = None
    if c.needs(0):
        gs = g if c.beta == 1 else g * _conj(c.beta)
    if c.needs(1) or c.needs(2):
        ga = g if c.alpha == 1 else g * _conj(c.alpha)
        # (the vectors may be of a lower dtype than the result: the products run in g's)
        if c.needs(1):
            g1 = ga.mv(_conj(c.vec2).to(ga.dtype))
        if c.needs(2):
            g2 = ga.t().mv(_conj(c.vec1).to(ga.dtype))
    return gs, g1, g2


_d("addr", "vec1 vec2 beta alpha", _addr)
_d(
    "mm",
    "self:if=mat2 mat2:if=self",
    lambda c, g: (
        g.mm(_conj(c.mat2).t()) if c.needs(0) else None,
        _conj(c.self).t().mm(g) if c.needs(1) else None,
    ),
)
_d(
    "bmm",
    "self mat2",
    lambda c, g: (
        g.bmm(_conj(c.mat2).mT) if c.needs(0) else None,
        _conj(c.self).mT.bmm(g) if c.needs(1) else None,
    ),
)
_d(
    "mv",
    "self vec",
    lambda c, g: (
        ops.outer(g, _conj(c.vec)) if c.needs(0) else None,
        _conj(c.self).t().mv(g) if c.needs(1) else None,
    ),
)
_d("dot", "self tensor", lambda c, g: (g * _conj(c.tensor), g * _conj(c.self)))
_d(
    "outer",
    "self vec2",
    lambda c, g: (g.mv(_conj(c.vec2)), _conj(c.self).unsqueeze(0).mm(g).squeeze(0)),
)


def _einsum(c: Any, g: Tensor) -> tuple[Any, ...]:
    operands = c.operands
    terms, rhs, free = _einsum_explicit(c.equation, operands)
    grads = []
    for i, term in enumerate(terms):
        others = [t for j, t in enumerate(terms) if j != i]
        # This term's letters, each once, less those summed in this operand alone: the
        # letters the other factors and the output give back.
        kept = "".join(
            ch for ch in dict.fromkeys(term) if ch in rhs or any(ch in o for o in others)
        )
        sub = ",".join([rhs, *others]) + "->" + kept
        gi = ops.einsum(sub, [g] + [_conj(o) for j, o in enumerate(operands) if j != i])
        grads.append(_einsum_expand(gi, kept, term, operands[i], free))
    return tuple(grads)


def _einsum_explicit(equation: str, operands: list[Tensor]) -> tuple[list[str], str, str]:
    """The equation's terms and output with ``...`` spelt out in letters of its own (aligned
    to the right, as broadcasting is) and the implicit output made explicit, and the letters
    left unused."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    free = "".join(ch for ch in string.ascii_letters if ch not in eq)
    widths = [
        o.ndim - len(t.replace("...", "")) if "..." in t else 0
        for t, o in zip(terms, operands, strict=True)
    ]
    ell, free = free[: max(widths, default=0)], free[max(widths, default=0) :]
    if not arrow:
        once = lhs.replace("...", "").replace(",", "")
        rhs = "..." + "".join(sorted(ch for ch in set(once) if once.count(ch) == 1))
    terms = [t.replace("...", ell[len(ell) - w :]) for t, w in zip(terms, widths, strict=True)]
    return terms, rhs.replace("...", ell), free


def _einsum_expand(gi: Tensor, kept: str, term: str, like: Tensor, free: str) -> Tensor:
    """The gradient of an operand written ``term`` from ``gi`` over the letters ``kept``:
    letters summed in the operand alone broadcast back, a repeated letter (a diagonal) put
    back with identity matrices, broadcast dims summed."""
    letters = "".join(dict.fromkeys(term))
    for k, ch in enumerate(letters):
        if ch not in kept:
            gi = gi.unsqueeze(k)
    gi = gi.expand(tuple(-1 if ch in kept else like._shape[term.index(ch)] for ch in letters))
    if len(letters) != len(term):
        spelt, eyes = "", []
        for k, ch in enumerate(term):
            if ch in term[:k]:  # a repeat: a letter of its own, tied to the first by an eye
                spelt, free = spelt + free[0], free[1:]
                eyes.append((ch + spelt[-1], like._shape[k]))
            else:
                spelt += ch
        gi = ops.einsum(
            ",".join([letters, *(e for e, _ in eyes)]) + "->" + spelt,
            [gi, *(ops.eye(n, dtype=gi.dtype, device=gi.device) for _, n in eyes)],
        )
    return sum_to(gi, like._shape)


_d("einsum", "equation operands", _einsum)
# The decompositions and solvers of ``tensorcore.linalg`` (``ops/derivatives_linalg.py``).
for _name, _saves, _fn in LINALG_RULES:
    _d(_name, _saves, _fn)
# The CTC loss (``ops/derivatives_ctc.py``).
for _name, _saves, _fn in CTC_RULES:
    _d(_name, _saves, _fn)


# ------------------------------------------------------------------ discrete Fourier transforms
# A DFT is linear, so each gradient is the adjoint transform of ``g``. The adjoint of a DFT is
# the DFT of the other direction with the same scaling (``normalization`` counts the scaling,
# not the direction), so the primitives' rules are transforms themselves, and differentiable.
_d(
    "_fft_c2c",
    "dim normalization forward",
    lambda c, g: (ops._fft_c2c(g, c.dim, c.normalization, not c.forward),),
)


def _fft_r2c_backward(c: Any, g: Tensor) -> tuple[Any, ...]:
    # A one-sided r2c is the full transform with the upper half dropped: its adjoint puts
    # zeros back in that half. The real input takes the real part of the inverse transform.
    if c.onesided:
        last = c.dim[-1]
        missing = c.self._shape[last] - g._shape[last]
        if missing > 0:
            shape = list(g._shape)
            shape[last] = missing
            g = ops.cat([g, ops.zeros(shape, dtype=g._dtype, device=g._device)], last)
    return (ops.real(ops._fft_c2c(g, c.dim, c.normalization, False)),)


_d("_fft_r2c", "self:spec dim normalization onesided", _fft_r2c_backward)


def _fft_c2r_backward(c: Any, g: Tensor) -> tuple[Any, ...]:
    # c2r fills the upper half of the spectrum with the conjugates of the lower half, then
    # inverts. Its adjoint is the one-sided forward transform of ``g``, where each value whose
    # mirror image was filled in also collects that image's gradient: the values at
    # 1 .. n - (n // 2 + 1) of the last dim count twice (not 0, nor n / 2 for an even n).
    gi = ops._fft_r2c(g, c.dim, c.normalization, True)
    last = c.dim[-1]
    twice = g._shape[last] - gi._shape[last]
    if twice <= 0:
        return (gi,)
    rest = gi._shape[last] - 1 - twice
    parts = [gi.narrow(last, 0, 1), gi.narrow(last, 1, twice) * 2]
    if rest:
        parts.append(gi.narrow(last, 1 + twice, rest))
    return (ops.cat(parts, last),)


_d("_fft_c2r", "dim normalization", _fft_c2r_backward)


# ------------------------------------------------------------------ shapes and indexing
def _cat(c: Any, g: Tensor) -> tuple[Any, ...]:
    out, start = [], 0
    for shape in (t._shape for t in c.tensors):
        n = shape[c.dim] if len(shape) > c.dim else 0
        out.append(g.narrow(c.dim, start, n) if shape != (0,) or g.ndim == 1 else None)
        start += n
    return tuple(out)


_d("cat", "tensors:spec dim", _cat)
_d("flip", "dims", lambda c, g: (g.flip(c.dims),))
_d("roll", "shifts dims", lambda c, g: (g.roll(tuple(-s for s in c.shifts), c.dims),))


def _repeat(c: Any, g: Tensor) -> tuple[Any, ...]:
    shape = c.self._shape
    reps = c.repeats
    lead = len(reps) - len(shape)
    padded = (1,) * lead + shape
    split_shape: list[int] = []
    for r, s in zip(reps, padded, strict=True):
        split_shape += [r, s]
    gg = g.reshape(tuple(split_shape)).sum(tuple(range(0, 2 * len(reps), 2)))
    return (gg.reshape(shape),)


_d("repeat", "self:spec repeats", _repeat)
_d("tril", "diagonal", lambda c, g: (g.tril(c.diagonal),))
_d("triu", "diagonal", lambda c, g: (g.triu(c.diagonal),))
_d(
    "gather",
    "self:spec dim index",
    lambda c, g: (_zeros_of(c.self).scatter_add(c.dim, c.index, g), None),
)


def _scatter(c: Any, g: Tensor) -> tuple[Any, ...]:
    if c.reduce is not None:  # PyTorch has no derivative for the deprecated reduce= form
        raise RuntimeError("derivative for aten::scatter is not implemented")
    return (
        g.scatter(c.dim, c.index, ops.zeros_like(g.gather(c.dim, c.index))),
        None,
        g.gather(c.dim, c.index) if _is_tensor_arg(c.src) else None,
    )


_d("scatter", "dim index src:spec reduce", _scatter)
_d("scatter_add", "dim index", lambda c, g: (g, None, g.gather(c.dim, c.index)))


def _scatter_reduce(c: Any, g: Tensor) -> tuple[Any, ...]:
    """PyTorch's scatter_reduce_backward: the gradient of each reduction, shared evenly among
    the values that tie for an amax/amin, none to ``self`` where it was left out."""
    dim, index, src, reduce, self_ = c.dim, c.index, c.src, c.reduce, c.self
    if reduce == "sum":
        g_self, g_src = g, g.gather(dim, index)
    elif reduce == "mean":
        n = ops.ones_like(g) if c.include_self else ops.zeros_like(g)
        n = n.scatter_add(dim, index, ops.ones_like(src))
        n = n.masked_fill(n == 0, 1)
        g_self = g / n
        g_src = g_self.gather(dim, index)
    elif reduce == "prod":
        # The product of the others, also where a value is 0 (as PyTorch: self's zeros and
        # a target's single zero in src get it exactly; with two zeros it is 0).
        masked_self = self_.masked_fill(self_ == 0, 1)
        g_self = (
            g
            * ops.scatter_reduce(masked_self, dim, index, src, "prod", include_self=c.include_self)
            / masked_self
        )
        src_zero = src == 0
        zeros = ops.zeros_like(self_).scatter_add(dim, index, src_zero.to(self_._dtype))
        n_zeros = zeros.gather(dim, index)
        single = src_zero & (n_zeros == 1)
        masked_src_result = ops.scatter_reduce(
            self_, dim, index, src.masked_fill(single, 1), "prod", include_self=c.include_self
        )
        g_src = ops.where(
            single,
            (g * masked_src_result).gather(dim, index),
            (g * c.result).gather(dim, index) / src.masked_fill(src_zero, 1),
        ).masked_fill(n_zeros > 1, 0)
    else:  # amax, amin
        value = c.result.gather(dim, index)
        self_is = (self_ == c.result).to(g._dtype)
        src_is = (src == value).to(g._dtype)
        share = g / self_is.scatter_add(dim, index, src_is)
        g_self = self_is * share
        g_src = src_is * share.gather(dim, index)
    if not c.include_self:
        g_self = g_self.scatter(dim, index, 0.0)
    return (g_self, None, g_src)


_d("scatter_reduce", "self dim index src reduce include_self result", _scatter_reduce)


def _index_select(c: Any, g: Tensor) -> tuple[Any, ...]:
    return (_index_add(_zeros_of(c.self), c.dim, c.index, g), None)


def _index_add(z: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """``z`` with ``src`` slices added at ``index`` along ``dim`` (duplicates accumulate).

    As an accumulating ``index_put`` of whole slices where ``z`` has dims: backends add
    slices by rows (NumPy's: fancy-index adds in rounds of repeated indices), where the
    ``scatter_add`` of an index expanded to ``src``'s shape adds one element at a time
    (an embedding's gradient, 2560 rows of 128 into 5000: 3.2 -> 1.0 ms on NumPy).
    In place: ``z`` is the caller's fresh zeros, so an out-of-place add would only copy them
    (a second pass over a whole embedding table: (50000, 128) float32, 5.0 -> 2.6 ms)."""
    if z.ndim == 0:  # (a 0-d z takes one index, its only element)
        return z + src.reshape(())
    if index.ndim <= 1:
        where: list[Tensor | None] = [None] * dim + [index.reshape(-1).to(dt.int64)]
        return z.index_put_(where, src, True)
    shape = [1] * src.ndim
    shape[dim] = -1
    full_idx = index.reshape(tuple(shape)).expand(src._shape)
    return z.scatter_add_(dim, full_idx, src)


_d("index_select", "self:spec dim index", _index_select)
_d(
    "masked_fill",
    "mask value:spec",
    lambda c, g: (
        ops.where(c.mask, 0.0, g),
        None,
        ops.where(c.mask, g, 0.0).sum() if _is_tensor_arg(c.value) else None,
    ),
)


def _index(c: Any, g: Tensor) -> tuple[Any, ...]:
    z = _zeros_of(c.self)
    return (z.index_put(list(c.indices), g, accumulate=True),) + (None,) * sum(
        1 for i in c.indices if i is not None
    )


_d("index", "self:spec indices", _index)


def _index_put(c: Any, g: Tensor) -> tuple[Any, ...]:
    idx = list(c.indices)
    gself = g if c.accumulate else g.index_put(idx, ops.zeros_like(g[tuple(_full(i) for i in idx)]))
    gvals = g[tuple(_full(i) for i in idx)]
    n_idx = sum(1 for i in idx if i is not None)
    gv = sum_to(gvals, c.values._shape) if _is_tensor_arg(c.values) else None
    return (gself,) + (None,) * n_idx + (gv,)


def _full(i: Any) -> Any:
    return slice(None) if i is None else i


_d("index_put", "indices values:spec accumulate", _index_put)


# ------------------------------------------------------------------ views
_d("view", "self:spec", lambda c, g: (g.reshape(c.self._shape),))
_d("alias", "", lambda c, g: (g,))
_d("conj", "", lambda c, g: (_conj(g),))
# real(z) = (z + conj z) / 2 and imag(z) = (z - conj z) / 2i: the gradients are G and i * G
# (real G; the engine casts the first to the input's complex dtype).
_d("view_as_real", "", lambda c, g: (ops.view_as_complex(g.contiguous()),))
_d("view_as_complex", "", lambda c, g: (ops.view_as_real(g.contiguous()),))
_d("expand", "self:spec", lambda c, g: (sum_to(g, c.self._shape),))
_d("transpose", "dim0 dim1", lambda c, g: (g.transpose(c.dim0, c.dim1),))


def _inverse_perm(dims: tuple[int, ...]) -> tuple[int, ...]:
    n = len(dims)
    inv = [0] * n
    for i, d in enumerate(dims):
        inv[d % n] = i
    return tuple(inv)


_d("permute", "dims", lambda c, g: (g.permute(_inverse_perm(c.dims)),))
_d("squeeze", "self:spec", lambda c, g: (g.reshape(c.self._shape),))
_d("unsqueeze", "self:spec", lambda c, g: (g.reshape(c.self._shape),))


def _narrow_like(
    c: Any, g: Tensor, region: Callable[[Tensor], Tensor], overlapping: bool = False
) -> tuple[Any, ...]:
    return (_embed(_zeros_of(c.self), region, g, overlapping),)


def _embed(
    z: Tensor, region: Callable[[Tensor], Tensor], g: Tensor, overlapping: bool = False
) -> Tensor:
    """``z`` with ``region(z)`` replaced by ``g`` (added up where an ``overlapping`` region
    reads one element several times, as ``unfold``'s windows do)."""
    if not overlapping and not grad_mode.is_grad_enabled():
        # A first-order backward records nothing: write the region in place (three cheap
        # operators instead of the differentiable form's eight).
        region(z).copy_(g)
        return z
    # Differentiable (double backward): no in-place write.
    flat_pos = ops.arange(z.numel(), device=z._device).reshape(z._shape)
    pos = region(flat_pos)
    return (
        z.reshape(-1).index_put([pos.reshape(-1)], g.reshape(-1), accumulate=True).reshape(z._shape)
    )


_d(
    "narrow",
    "self:spec dim start length",
    lambda c, g: _narrow_like(c, g, lambda z: z.narrow(c.dim, c.start, c.length)),
)
_d(
    "select",
    "self:spec dim index",
    lambda c, g: _narrow_like(c, g, lambda z: z.select(c.dim, c.index)),
)
_d(
    "diagonal",
    "self:spec offset dim1 dim2",
    lambda c, g: _narrow_like(c, g, lambda z: z.diagonal(c.offset, c.dim1, c.dim2)),
)
_d(
    "unfold",
    "self:spec dimension size step",
    lambda c, g: _narrow_like(c, g, lambda z: z.unfold(c.dimension, c.size, c.step), True),
)


_SLICE = get_op("slice")


def _slice(c: Any, g: Tensor) -> tuple[Any, ...]:
    if c.step == 1 and g._shape == c.self._shape:
        # A slice of step 1 as long as its dim is the whole input (``x[:]``, ``x[..., :n]``
        # with ``n`` the size): its gradient is the output's, with no buffer of zeros to
        # fill and copy into (a rule may hand on the gradient it got, as ``add``'s does; it
        # is differentiable as it is, for a double backward).
        return (g,)

    def region(z: Tensor) -> Tensor:
        return call(_SLICE, (z, c.dim, c.start, c.end, c.step))

    return _narrow_like(c, g, region)


_d("slice", "self:spec dim start end step", _slice)


def _as_strided(c: Any, g: Tensor) -> tuple[Any, ...]:
    x = c.self
    size, stride = tuple(c.size), tuple(c.stride)
    off = x._offset if c.storage_offset is None else c.storage_offset
    # Storage positions covered by the input and by the view, relative to the lowest one.
    lo = min(x._offset, off)
    hi = max(_last(x._shape, x._stride, x._offset), _last(size, stride, off))
    extent = max(hi - lo + 1, 0)
    pos = ops.arange(extent, device=g._device)
    flat = ops.zeros(extent, dtype=g._dtype, device=g._device)
    out_pos = pos.as_strided(size, stride, off - lo)
    flat = flat.index_put([out_pos.reshape(-1)], g.reshape(-1), accumulate=True)
    in_pos = pos.as_strided(x._shape, x._stride, x._offset - lo)
    return (flat[in_pos.reshape(-1)].reshape(x._shape),)


def _last(shape: tuple[int, ...], stride: tuple[int, ...], off: int) -> int:
    if any(s == 0 for s in shape):
        return off
    return off + sum((n - 1) * s for n, s in zip(shape, stride, strict=True))


_d("as_strided", "self:spec size stride storage_offset", _as_strided)


# ------------------------------------------------------------------ copies and casts
_d("clone", "", lambda c, g: (g,))
_d(
    "to_dtype",
    "self:spec",
    lambda c, g: (
        g.to(c.self._dtype)
        if not (g._dtype.is_complex and not c.self._dtype.is_complex)
        else g.real.to(c.self._dtype),
    ),
)
_d("fill_", "", lambda c, g: (ops.zeros_like(g),))
_d("to_device", "self:spec", lambda c, g: (g.to(c.self._device),))
_d("copy_", "src:spec", lambda c, g: (ops.zeros_like(g), sum_to(g, c.src._shape)))


# ------------------------------------------------------------------ neural-network layers
def _grad_in(g: Tensor, fmt: Any) -> Tensor:
    """``g`` in the memory format ``fmt`` (None: row-major) where it suggests another, as
    PyTorch's backward kernels of the layers read ``grad_output``: the backward operators'
    input gradients follow it (``meta_nn.py``), so they come out in the forward input's
    format. A ``g`` that suggests ``fmt`` already (an expanded one too) goes on as it is."""
    if g.ndim != 4 and g.ndim != 5:
        return g
    if layer_format(g) is fmt:
        return g
    return g.contiguous(memory_format=fmt or contiguous_format)


def _convolution(c: Any, g: Tensor) -> tuple[Any, ...]:
    x, w = c.input, c.weight
    geo = (c.stride, c.padding, c.dilation, c.groups)
    g = _grad_in(g, layer_format(x, w))
    gx = gw = gb = None
    if c.transposed:
        # y = convolution_backward_input(x, w): its adjoints are the convolution itself (for
        # x) and the weight gradient with the roles of input and grad_output swapped.
        if c.needs(0):
            gx = ops.convolution(g, w, None, c.stride, c.padding, c.dilation, False, (0,), c.groups)
            # (an output_padding can give one more output along a dim: beyond x, unread)
            for d in range(2, gx.ndim):
                if gx._shape[d] != x._shape[d]:
                    gx = gx.narrow(d, 0, x._shape[d])
        if c.needs(1):
            gw = _transposed_weight_grad(c, x, g, w._shape)
    else:
        if c.needs(0):
            gx = ops.convolution_backward_input(g, w, x._shape, *geo)
        if c.needs(1):
            gw = ops.convolution_backward_weight(g, x, w._shape, *geo)
    if c.needs(2):
        gb = g.sum((0, *range(2, g.ndim)))
    return gx, gw, gb


_d("convolution", "input weight stride padding dilation transposed groups", _convolution)


def _transposed_weight_grad(c: Any, x: Tensor, g: Tensor, size: tuple[int, ...]) -> Tensor:
    """The weight gradient of a transposed convolution: the weight gradient of the plain one
    with ``x`` as its grad_output and ``g`` as its input. An ``output_padding`` can make ``g``
    longer than such a convolution reads with its symmetric padding; ``g`` is then padded with
    zeros (or cropped at its unread end) explicitly, to the length whose convolution has
    ``x``'s, and convolved without padding."""
    geo = (c.stride, c.padding, c.dilation)
    spatial = list(zip(range(2, g.ndim), *geo, strict=True))
    if all(
        (g._shape[d] + 2 * p - dil * (size[d] - 1) - 1) // s + 1 == x._shape[d]
        for d, s, p, dil in spatial
    ):
        return ops.convolution_backward_weight(x, g, size, *geo, c.groups)
    for d, s, p, dil in spatial:
        length = g._shape[d]
        right = (x._shape[d] - 1) * s + dil * (size[d] - 1) + 1 - p - length
        if right < 0:
            g, right = g.narrow(d, 0, length + right), 0
        parts = [g]
        for n, at in ((p, 0), (right, 1)):
            if n:
                shape = list(g._shape)
                shape[d] = n
                parts.insert(at * len(parts), ops.zeros(shape, dtype=g._dtype, device=g._device))
        g = ops.cat(parts, d) if len(parts) > 1 else g
    zero = [0] * (g.ndim - 2)
    return ops.convolution_backward_weight(x, g, size, c.stride, zero, c.dilation, c.groups)


# Both backward operators are bilinear; with F(x, w) the convolution,
# <G, B_in(gy, w)> = <F(G, w), gy> and <G, B_w(gy, x)> = <gy, F(x, G)>.
def _convolution_backward_input(c: Any, gg: Tensor) -> tuple[Any, ...]:
    geo = (c.stride, c.padding, c.dilation, c.groups)
    g_gy = g_w = None
    if c.needs(0):
        g_gy = ops.convolution(
            gg, c.weight, None, c.stride, c.padding, c.dilation, False, (0,), c.groups
        )
    if c.needs(1):
        g_w = ops.convolution_backward_weight(c.grad_output, gg, c.weight._shape, *geo)
    return g_gy, g_w


def _convolution_backward_weight(c: Any, gg: Tensor) -> tuple[Any, ...]:
    geo = (c.stride, c.padding, c.dilation, c.groups)
    g_gy = g_x = None
    if c.needs(0):
        g_gy = ops.convolution(
            c.input, gg, None, c.stride, c.padding, c.dilation, False, (0,), c.groups
        )
    if c.needs(1):
        g_x = ops.convolution_backward_input(c.grad_output, gg, c.input._shape, *geo)
    return g_gy, g_x


_d(
    "convolution_backward_input",
    "grad_output:if=weight weight stride padding dilation groups",
    _convolution_backward_input,
)
_d(
    "convolution_backward_weight",
    "grad_output:if=input input stride padding dilation groups",
    _convolution_backward_weight,
)


def _gather_pooled(gg: Tensor, indices: Tensor) -> Tensor:
    """``gg`` (N, C, H, W) read at the pooled positions ``indices`` (N, C, h, w)."""
    n, ch = indices._shape[:2]
    picked = gg.reshape(n, ch, -1).gather(2, indices.reshape(n, ch, -1))
    return picked.reshape(indices._shape)


def _bag_rows_kept(indices: Tensor, offset2bag: Tensor, padding_idx: int) -> Tensor:
    """Which looked-up rows an ``_embedding_bag`` reduced: those in a bag, not padding."""
    keep = offset2bag >= 0
    return keep & (indices != padding_idx) if padding_idx >= 0 else keep


def _embedding_bag(c: Any, grads: Any) -> tuple[Any, ...]:
    g = grads[0]
    gw = gp = None
    if c.needs(0):
        gw = _nn_op(
            "_embedding_bag_dense_backward",
            g,
            c.indices,
            c.result1,
            c.result2,
            c.result3,
            c.weight._shape[0],
            c.scale_grad_by_freq,
            c.mode,
            c.per_sample_weights,
            c.padding_idx,
        )
    if c.needs(3):
        # Each weight scales its row's contribution to its bag's sum: the row dotted with
        # the bag's gradient (zero for a row left out).
        keep = _bag_rows_kept(c.indices, c.result1, c.padding_idx)
        if g._shape[0]:
            bag = c.result1.clamp(min=0)
            rows = c.weight.index_select(0, c.indices) * g.index_select(0, bag)
            gp = rows.sum(1) * keep
        else:
            gp = ops.zeros_like(c.per_sample_weights)
    return gw, None, None, gp


_d(
    "_embedding_bag",
    "weight indices scale_grad_by_freq mode per_sample_weights padding_idx result1 result2 result3",
    _embedding_bag,
)


def _embedding_bag_dense_backward(c: Any, gg: Tensor) -> tuple[Any, ...]:
    # Linear in grad (and in per_sample_weights): its adjoint reads gg at the rows each bag
    # reduced, as the forward reads the weight, with the same scales.
    if c.scale_grad_by_freq:
        counts = ops.bincount(c.indices, minlength=c.num_weights)
        gg = gg / counts.clamp(min=1).to(gg.dtype).unsqueeze(1)
    dg = dp = None
    if c.mode == 2:
        if c.needs(0):
            mi = c.maximum_indices
            dg = ops.where(mi >= 0, gg.gather(0, mi.clamp(min=0)), 0.0)
        return dg, None, None, None, None, None
    keep = _bag_rows_kept(c.indices, c.offset2bag, c.padding_idx)
    bag = c.offset2bag.clamp(min=0)
    picked = gg.index_select(0, c.indices)
    if c.needs(0):
        scale = keep.to(gg.dtype)
        if c.mode == 1:
            scale = scale / c.bag_size.clamp(min=1).to(gg.dtype).index_select(0, bag)
        elif c.per_sample_weights is not None:
            scale = scale * c.per_sample_weights
        dg = ops.zeros(
            c.bag_size._shape[0], gg._shape[1], dtype=gg.dtype, device=gg.device
        ).index_add(0, bag, picked * scale.unsqueeze(1))
    if c.needs(5) and c.grad._shape[0]:
        dp = (picked * c.grad.index_select(0, bag)).sum(1) * keep
    return dg, None, None, None, None, dp


_d(
    "_embedding_bag_dense_backward",
    "grad indices offset2bag bag_size maximum_indices num_weights scale_grad_by_freq mode "
    "per_sample_weights padding_idx",
    _embedding_bag_dense_backward,
)


# The pools save ``self`` whole, as PyTorch's: their backward operators take it, so that a
# double backward reaches it (with zeros: they are linear in grad_output and do not read
# self's values).
_d(
    "max_pool2d_with_indices",
    "self kernel_size stride padding dilation ceil_mode result1",
    lambda c, g: (
        ops.max_pool2d_with_indices_backward(
            _grad_in(g[0], layer_format(c.self)),
            c.self,
            c.kernel_size,
            c.stride,
            c.padding,
            c.dilation,
            c.ceil_mode,
            c.result1,
        ),
    ),
)
# Linear in grad_output; its adjoint reads the gradient at the pooled positions.
_d(
    "max_pool2d_with_indices_backward",
    "self:spec indices",
    lambda c, gg: (
        _gather_pooled(gg, c.indices) if c.needs(0) else None,
        _zeros_of(c.self) if c.needs(1) else None,
        None,
    ),
)
_d(
    "avg_pool2d",
    "self kernel_size stride padding ceil_mode count_include_pad divisor_override",
    lambda c, g: (
        ops.avg_pool2d_backward(
            _grad_in(g, layer_format(c.self)),
            c.self,
            c.kernel_size,
            c.stride,
            c.padding,
            c.ceil_mode,
            c.count_include_pad,
            c.divisor_override,
        ),
    ),
)
# Linear in grad_output, and self-adjoint up to the roles: its adjoint is avg_pool2d.
_d(
    "avg_pool2d_backward",
    "self:spec kernel_size stride padding ceil_mode count_include_pad divisor_override",
    lambda c, gg: (
        ops.avg_pool2d(
            gg,
            c.kernel_size,
            c.stride,
            c.padding,
            c.ceil_mode,
            c.count_include_pad,
            c.divisor_override,
        )
        if c.needs(0)
        else None,
        _zeros_of(c.self) if c.needs(1) else None,
    ),
)


# Normalisation. The backward operators' own derivatives (double backward) are the
# vector-Jacobian products of the same formulas written with operators (``_ln_grads``,
# ``_bn_grads``), taken by a nested ``autograd.grad`` on detached copies: second-order
# gradients are exact; a third order through them sees no further dependence.
def _norm_input_grad(gxhat: Tensor, xhat: Tensor, rstd: Tensor, dims: tuple[int, ...]) -> Tensor:
    a = gxhat.mean(dims, keepdim=True)
    b = (gxhat * xhat).mean(dims, keepdim=True)
    return (gxhat - a - xhat * b) * rstd


def _sum_over(t: Tensor, dims: tuple[int, ...]) -> Tensor:
    return t.sum(dims) if dims else t


def _ln_grads(g: Tensor, x: Tensor, w: Tensor | None, shape: Any, eps: float) -> tuple[Any, ...]:
    dims = tuple(range(x.ndim - len(shape), x.ndim))
    batch = tuple(range(x.ndim - len(shape)))
    xc = x - x.mean(dims, keepdim=True)
    rstd = ((xc * xc).mean(dims, keepdim=True) + eps).rsqrt()
    xhat = xc * rstd
    gxhat = g * w if w is not None else g
    return (
        _norm_input_grad(gxhat, xhat, rstd, dims),
        _sum_over(g * xhat, batch),
        _sum_over(g, batch),
    )


def _bn_grads(
    g: Tensor,
    x: Tensor,
    w: Tensor | None,
    rm: Tensor | None,
    rv: Tensor | None,
    training: bool,
    eps: float,
) -> tuple[Any, ...]:
    dims = (0, *range(2, x.ndim))
    cs = (1, x._shape[1]) + (1,) * (x.ndim - 2)
    if training:
        xc = x - x.mean(dims, keepdim=True)
        rstd = ((xc * xc).mean(dims, keepdim=True) + eps).rsqrt()
        xhat = xc * rstd
    else:
        assert rm is not None and rv is not None
        rstd = (rv.reshape(cs) + eps).rsqrt()
        xhat = (x - rm.reshape(cs)) * rstd
    gxhat = g * w.reshape(cs) if w is not None else g
    gx = _norm_input_grad(gxhat, xhat, rstd, dims) if training else gxhat * rstd
    return gx, (g * xhat).sum(dims), g.sum(dims)


def _vjp(
    fn: Callable[..., tuple[Any, ...]], inputs: tuple[Any, ...], grads: Any
) -> tuple[Any, ...]:
    """The gradients of ``fn(*inputs)`` (a tuple of tensors) for the output gradients
    ``grads`` (None where an output has none), one per input (None for absent inputs).

    Under grad mode (a backward with ``create_graph=True``) the gradients are themselves
    differentiable in ``inputs`` and ``grads``, so derivatives of any order go through."""
    from ..autograd.engine import grad as autograd_grad

    create = grad_mode.is_grad_enabled()
    with grad_mode.enable_grad():
        # An input on the graph is differentiated through an alias of it (so the result keeps
        # its history); one off the graph through a fresh leaf.
        leaves = [
            None
            if t is None
            else t.view_as(t)
            if create and t.requires_grad
            else t.detach().requires_grad_()
            for t in inputs
        ]
        outs = fn(*leaves)
        pairs = [(o, g) for o, g in zip(outs, grads, strict=True) if g is not None]
        wrt = [t for t in leaves if t is not None]
        if not pairs:
            return tuple(None for _ in inputs)
        res = iter(
            autograd_grad(
                [o for o, _ in pairs],
                wrt,
                [g for _, g in pairs],
                allow_unused=True,
                create_graph=create,
            )
        )
    return tuple(None if t is None else next(res) for t in leaves)


def _layer_norm(c: Any, g: Tensor) -> tuple[Any, ...]:
    gx, gw, gb = ops.layer_norm_backward(g, c.input, c.normalized_shape, c.weight, c.eps)
    return (gx if c.needs(0) else None, gw if c.needs(1) else None, gb if c.needs(2) else None)


def _stats_input_grad(
    gx: Tensor | None,
    x: Tensor,
    g: Any,
    mean: Tensor,
    rstd: Tensor,
    dims: tuple[int, ...],
    shape: tuple[int, ...],
) -> Tensor | None:
    """``gx`` plus the input's gradient through a normalisation's returned statistics (``g``:
    the gradients of all its outputs; ``mean`` and ``rstd = (var + eps)^-1/2`` over ``dims``,
    reshaped to ``shape`` to broadcast over the input): ``d mean / dx = 1 / n`` and
    ``d rstd / dx = -rstd^3 (x - mean) / n``."""
    gm, gr = g[1], g[2]
    if gm is None and gr is None:
        return gx
    n = _reduced_count(x._shape, dims)
    extra = None
    if gm is not None:
        extra = (gm.reshape(shape) / n).expand(x._shape)
    if gr is not None:
        r = rstd.reshape(shape)
        part = gr.reshape(shape) * (r * r * r) * (x - mean.reshape(shape)) / -n
        extra = part if extra is None else extra + part
    return extra if gx is None else gx + extra


def _native_layer_norm(c: Any, g: Any) -> tuple[Any, ...]:
    # The backward reads the forward's row statistics instead of recomputing them.
    x, mean, rstd = c.input, c.result1, c.result2
    gx = gw = gb = None
    if g[0] is not None:
        gx, gw, gb = ops.layer_norm_backward(
            g[0], x, c.normalized_shape, c.weight, c.eps, mean, rstd
        )
    if c.needs(0):
        dims = tuple(range(x.ndim - len(c.normalized_shape), x.ndim))
        gx = _stats_input_grad(gx, x, g, mean, rstd, dims, mean._shape)
    return (gx if c.needs(0) else None, gw if c.needs(1) else None, gb if c.needs(2) else None)


_d("layer_norm", "input weight normalized_shape eps", _layer_norm)
_d("native_layer_norm", "input weight normalized_shape eps result1 result2", _native_layer_norm)
# The saved statistics are the input's (``layer_norm_backward`` reads them in place of its
# recomputation): the formulas recompute them, so that their derivative is the total one in
# ``input``, and the statistics get none.
_d(
    "layer_norm_backward",
    "grad_output input weight normalized_shape eps",
    lambda c, grads: (
        _vjp(
            lambda g, x, w: _ln_grads(g, x, w, c.normalized_shape, c.eps),
            (c.grad_output, c.input, c.weight),
            grads,
        )
        + (None, None)
    ),
)


def _batch_norm(c: Any, g: Tensor, stats: tuple[Any, Any] = (None, None)) -> tuple[Any, ...]:
    x, w, rm, rv = c.input, c.weight, c.running_mean, c.running_var
    gx, gw, gb = ops.batch_norm_backward(g, x, w, rm, rv, c.training, c.eps, *stats)
    grm = grv = None
    if not c.training and (c.needs(3) or c.needs(4)):
        # y = (x - rm) * (rv + eps)^-1/2 * w: the running statistics' gradients.
        dims = (0, *range(2, x.ndim))
        cs = (1, x._shape[1]) + (1,) * (x.ndim - 2)
        gw_ = g * w.reshape(cs) if w is not None else g
        rstd = (rv.reshape(cs) + c.eps).rsqrt()
        if c.needs(3):
            grm = -(gw_ * rstd).sum(dims)
        if c.needs(4):
            grv = (gw_ * (x - rm.reshape(cs)) * (rstd * rstd * rstd) * -0.5).sum(dims)
    return (
        gx if c.needs(0) else None,
        gw if c.needs(1) else None,
        gb if c.needs(2) else None,
        grm if c.needs(3) else None,
        grv if c.needs(4) else None,
    )


def _native_batch_norm(c: Any, g: Any) -> tuple[Any, ...]:
    # Training's backward reads the forward's batch statistics instead of recomputing them.
    x = c.input
    stats = (c.result1, c.result2) if c.training else (None, None)
    res = list(_batch_norm(c, g[0], stats) if g[0] is not None else (None,) * 5)
    if c.training and c.needs(0):  # (evaluation's statistics are empty)
        dims = (0, *range(2, x.ndim))
        cs = (1, x._shape[1]) + (1,) * (x.ndim - 2)
        res[0] = _stats_input_grad(res[0], x, g, c.result1, c.result2, dims, cs)
    return tuple(res)


_d("batch_norm", "input weight running_mean running_var training eps", _batch_norm)
_d(
    "native_batch_norm",
    "input weight running_mean running_var training eps result1 result2",
    _native_batch_norm,
)
# As layer_norm_backward's: the formulas recompute the statistics (the total derivative).
_d(
    "batch_norm_backward",
    "grad_output input weight running_mean running_var training eps",
    lambda c, grads: (
        _vjp(
            lambda g, x, w, rm, rv: _bn_grads(g, x, w, rm, rv, c.training, c.eps),
            (c.grad_output, c.input, c.weight, c.running_mean, c.running_var),
            grads,
        )
        + (None, None)
    ),
)


def _native_group_norm(c: Any, g: Any) -> tuple[Any, ...]:
    # The backward reads the forward's (sample, group) statistics.
    x, mean, rstd = c.input, c.result1, c.result2
    gx = gw = gb = None
    if g[0] is not None:
        mask = [int(c.needs(0)), int(c.needs(1)), int(c.needs(2))]
        gx, gw, gb = ops.native_group_norm_backward(
            g[0], x, mean, rstd, c.weight, c.N, c.C, c.HxW, c.group, mask
        )
    if c.needs(0) and (g[1] is not None or g[2] is not None):
        # Through the returned statistics: each (sample, group) is a row of d values.
        rows = (c.N, c.group, c.C // c.group * c.HxW)
        extra = _stats_input_grad(None, x.reshape(rows), g, mean, rstd, (2,), (*rows[:2], 1))
        assert extra is not None
        gx = extra.reshape(x._shape) if gx is None else gx + extra.reshape(x._shape)
    return (gx if c.needs(0) else None, gw if c.needs(1) else None, gb if c.needs(2) else None)


def _gn_grads(
    g: Tensor, x: Tensor, mean: Tensor, rstd: Tensor, w: Tensor | None, n: int, group: int
) -> tuple[Any, ...]:
    """``native_group_norm_backward``'s gradients written with operators, in ``x``, ``g``,
    ``w`` and the statistics ``mean`` and ``rstd`` (N, group) as independent inputs (their
    dependence on ``x`` goes through the forward's node, which returned them)."""
    c = x._shape[1]
    shape = (n, group, c // group, -1 if n else math.prod(x._shape[2:]))
    xv, gv = x.reshape(shape), g.reshape(shape)
    r = rstd.reshape(n, group, 1, 1)
    xhat = (xv - mean.reshape(n, group, 1, 1)) * r
    gxhat = gv * w.reshape(1, group, c // group, 1) if w is not None else gv
    gx = _norm_input_grad(gxhat, xhat, r, (2, 3)).reshape(x._shape)
    return gx, (gv * xhat).sum((0, 3)).reshape(c), gv.sum((0, 3)).reshape(c)


_d("native_group_norm", "input weight N C HxW group result1 result2", _native_group_norm)
_d(
    "native_group_norm_backward",
    "grad_out input mean rstd weight N group",
    lambda c, grads: _vjp(
        lambda g, x, m, r, w: _gn_grads(g, x, m, r, w, c.N, c.group),
        (c.grad_out, c.input, c.mean, c.rstd, c.weight),
        grads,
    ),
)


def _linear(c: Any, g: Tensor) -> tuple[Any, ...]:
    mask = (int(c.needs(0)), int(c.needs(1)), int(c.needs(2)))
    gx, gw, gb = ops.linear_backward(g, c.input, c.weight, mask)
    return (gx if mask[0] else None, gw if mask[1] else None, gb if mask[2] else None)


def _linear_grads(g: Tensor, x: Tensor, w: Tensor) -> tuple[Any, ...]:
    g2 = g.reshape(-1, g._shape[-1])
    x2 = x.reshape(-1, x._shape[-1])
    return (g2.mm(_conj(w)).reshape(x._shape), g2.t().mm(_conj(x2)), g2.sum(0))


_d("linear", "input weight", _linear)
# Bilinear in (grad_output, input, weight): the VJP of the same formulas (see _vjp).
_d(
    "linear_backward",
    "grad_output input weight output_mask",
    lambda c, grads: _vjp(
        _linear_grads,
        (c.grad_output, c.input, c.weight),
        [gr if m else None for gr, m in zip(grads, c.output_mask, strict=True)],
    ),
)
