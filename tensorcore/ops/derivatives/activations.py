"""The activations' rules (``relu``, ``gelu``, ``elu``, ``prelu``...) and those of their
``*_backward`` operators (double backward).
"""

from __future__ import annotations

import math
from typing import Any

from ..._tensor import Tensor
from ...dispatch import get_op
from .. import functions as ops
from .._call import call_lane
from ._table import _conj, _d

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
