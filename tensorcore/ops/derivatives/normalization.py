"""The rules of the normalisations and ``linear``, whose ``*_backward`` operators'
rules (double backward) are vector-Jacobian products of the same formulas (``_vjp``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..._tensor import Tensor
from ...autograd import grad_mode
from .. import functions as ops
from ._table import _conj, _d, _reduced_count


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
    from ...autograd.engine import grad as autograd_grad

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
