"""The loss functions' rules and those of their ``*_backward`` operators."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .. import functions as ops
from ._table import _d, _zeros_of, sum_to
from .activations import _nn_op
from .ctc import CTC_RULES


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


def _mse_loss(c: Any, g: Tensor) -> tuple[Any, ...]:
    # (PyTorch's mse_loss_backward: 2 (self - target) grad, over the count for "mean"; the
    # step sums each gradient back to its input's shape where they broadcast)
    d = c.self - c.target
    if c.reduction == "mean" and d.numel():
        g = g / d.numel()
    gi = g * 2 * d
    return (gi if c.needs(0) else None), (-gi if c.needs(1) else None)


# (a composite recorded as one node: ``autograd.step._one_node_composite``)
_d("mse_loss", "self target reduction", _mse_loss)


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

# The CTC loss (``ops/derivatives/ctc.py``).
for _name, _saves, _fn in CTC_RULES:
    _d(_name, _saves, _fn)
