"""The reductions', scans' and softmaxes' rules."""

from __future__ import annotations

import math
from typing import Any

from ... import _registry
from ... import dtypes as dt
from ..._tensor import Tensor
from ...autograd import grad_mode
from ...dispatch import get_op
from .. import functions as ops
from .._call import call_lane
from ._table import _conj, _d, _keepdim, _reduced_count, _unreduce, _zeros_of

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
