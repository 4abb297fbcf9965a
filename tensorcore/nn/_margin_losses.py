"""Distance, embedding and margin losses of ``tensorcore.nn.functional`` (the metric
learning and ranking losses: siamese and triplet networks, hinge and soft-margin
classifiers, Poisson and Gaussian likelihoods), written with tensorcore operators from
PyTorch's formulas, so they run on every backend and autograd differentiates them."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor, torch_name
from ..amp.autocast_mode import fp32_function
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from ..ops._validate import checked
from ..ops.frontends import broadcast_shapes, named_as
from ._losses import _check_reduction, _into, _legacy, _reduce

__all__ = [
    "cosine_embedding_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "pairwise_distance",
    "poisson_nll_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]

_LEGACY = 'bool? size_average=None, bool? reduce=None, str reduction="mean"'


def _reduction(size_average: Any, reduce: Any, reduction: str, fn: str) -> str:
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction, fn)
    return reduction


@checked(
    "pairwise_distance(Tensor x1, Tensor x2, float p=2.0, float eps=1e-06, "
    "bool keepdim=False) -> Tensor"
)
def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """The p-norm of ``x1 - x2 + eps`` over the last dim (PyTorch adds ``eps`` to the
    difference, so equal vectors are ``eps * D ** (1/p)`` apart, not 0).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.pairwise_distance(tc.tensor([[0.0, 0.0]]), tc.tensor([[3.0, 4.0]]))
    tensor([5.0000])
    """
    dim = max(x1.ndim, x2.ndim) - 1
    out = ops.vector_norm(x1 - x2 + eps, p, (dim,) if dim >= 0 else None, keepdim)
    return named_as(out, "NormBackward1")


def _same_ndim(a: Tensor, p: Tensor, n: Tensor) -> None:
    if not (a.ndim == p.ndim == n.ndim):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {a.ndim}D, positive {p.ndim}D, and negative "
            f"{n.ndim}D inputs"
        )


@checked(
    "triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1.0, "
    f"float p=2, float eps=1e-06, bool swap=False, {_LEGACY}) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the :func:`pairwise_distance`;
    ``swap`` takes ``min(d(a, n), d(p, n))`` as the negative distance.

    Examples
    --------
    >>> import tensorcore as tc
    >>> a, p, n = tc.tensor([[0.0, 0.0]]), tc.tensor([[0.0, 1.0]]), tc.tensor([[0.0, 1.5]])
    >>> round(tc.nn.functional.triplet_margin_loss(a, p, n).item(), 4)
    0.5
    """
    reduction = _reduction(size_average, reduce, reduction, "triplet_margin_loss")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _same_ndim(anchor, positive, negative)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = ops.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), reduction)


@checked(
    "triplet_margin_with_distance_loss(Tensor anchor, Tensor positive, Tensor negative, *, "
    'Any distance_function=None, float margin=1.0, bool swap=False, str reduction="mean") '
    "-> Tensor"
)
def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """:func:`triplet_margin_loss` with any ``distance_function`` (default
    :func:`pairwise_distance`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> F = tc.nn.functional
    >>> a, p, n = tc.tensor([[1.0, 0.0]]), tc.tensor([[1.0, 0.1]]), tc.tensor([[0.0, 1.0]])
    >>> dist = lambda x, y: 1 - F.cosine_similarity(x, y)
    >>> round(F.triplet_margin_with_distance_loss(a, p, n, distance_function=dist).item(), 4)
    0.005
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _same_ndim(anchor, positive, negative)
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = ops.minimum(d_neg, dist(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), reduction)


@checked(
    "cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0, "
    f"{_LEGACY}) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``1 - cos(x1, x2)`` where ``target`` is 1, ``max(0, cos(x1, x2) - margin)`` where it
    is -1 (the cosine over the last dim, its squared norms padded by 1e-12 as PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x1, x2 = tc.tensor([[1.0, 0.0], [1.0, 0.0]]), tc.tensor([[0.0, 1.0], [1.0, 1.0]])
    >>> tc.nn.functional.cosine_embedding_loss(x1, x2, tc.tensor([1, -1]), reduction="none")
    tensor([1.0000, 0.7071])
    """
    reduction = _reduction(size_average, reduce, reduction, "cosine_embedding_loss")
    if target.ndim > 1 or input1.ndim != target.ndim + 1:
        raise RuntimeError(
            f"cosine_embedding_loss(): 0D target tensor expects 1D input tensors, 1D target "
            f"tensor expects 2D input tensors, but got target of {target.ndim}D and inputs "
            f"of {input1.ndim}D"
        )
    dim = target.ndim
    prod = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + 1e-12
    mag2 = (input2 * input2).sum(dim) + 1e-12
    cos = prod / (mag1 * mag2).sqrt()
    zeros = ops.zeros_like(cos)
    pos = ops.where(target == 1, 1 - cos, zeros)
    neg = ops.where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduce(pos + neg, reduction)


@checked(
    "margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0, "
    f"{_LEGACY}) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``: ``target`` 1 asks for ``input1``
    ranked higher, -1 for ``input2``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> F = tc.nn.functional
    >>> F.margin_ranking_loss(tc.tensor([1.0, 2.0]), tc.tensor([2.0, 1.0]), tc.tensor([1.0, 1.0]))
    tensor(0.5000)
    """
    reduction = _reduction(size_average, reduce, reduction, "margin_ranking_loss")
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} "
        )
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


@checked(
    f"hinge_embedding_loss(Tensor input, Tensor target, float margin=1.0, {_LEGACY}) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1 (for
    distances: small for similar pairs, at least ``margin`` for dissimilar ones).

    Examples
    --------
    >>> import tensorcore as tc
    >>> F = tc.nn.functional
    >>> F.hinge_embedding_loss(tc.tensor([0.3, 0.4]), tc.tensor([1, -1]), reduction="none")
    tensor([0.3000, 0.6000])
    """
    reduction = _reduction(size_average, reduce, reduction, "hinge_embedding_loss")
    zeros = ops.zeros_like(input)
    margin_part = ops.where(target != 1, (margin - input).clamp_min(0), zeros)
    self_part = ops.where(target != -1, input, zeros)
    return _reduce(margin_part + self_part, reduction)


@checked(f"soft_margin_loss(Tensor input, Tensor target, {_LEGACY}) -> Tensor")
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def soft_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``log(1 + exp(-target * input))`` for targets 1 or -1.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.soft_margin_loss(tc.tensor([0.0]), tc.tensor([1.0]))
    tensor(0.6931)
    """
    reduction = _reduction(size_average, reduce, reduction, "soft_margin_loss")
    shape = broadcast_shapes(input.shape, target.shape)
    if tuple(shape) != tuple(input.shape):
        # (PyTorch's kernel writes the product into a tensor of input's shape)
        raise RuntimeError(
            f"output with shape {list(input.shape)} doesn't match the broadcast shape {list(shape)}"
        )
    # (PyTorch's kernel writes into a tensor of input's dtype)
    loss = _reduce(_into(input.dtype, ops.log1p(ops.exp(-input * target))), reduction)
    return named_as(loss, "SoftMarginLossBackward0")


@checked(
    "multilabel_soft_margin_loss(Tensor input, Tensor target, Tensor? weight=None, "
    f"{_LEGACY}) -> Tensor"
)
def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Binary cross-entropy of ``sigmoid(input)`` against 0/1 ``target`` per class (the
    last dim), averaged over the classes, each weighted by ``weight``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> F = tc.nn.functional
    >>> F.multilabel_soft_margin_loss(tc.tensor([[0.0, 0.0]]), tc.tensor([[1.0, 0.0]]))
    tensor(0.6931)
    """
    reduction = _reduction(size_average, reduce, reduction, "multilabel_soft_margin_loss")
    # log(sigmoid(x)) = -logaddexp(-x, 0), as F.logsigmoid computes it.
    log_p, log_q = -ops.logaddexp(-input, 0.0), -ops.logaddexp(input, 0.0)
    loss = -(target * log_p + (1 - target) * log_q)
    if weight is not None:
        loss = loss * weight
    cdim = input.ndim - 1
    loss = loss.sum(cdim) / input.shape[cdim]
    return _reduce(loss, reduction)


@checked(f"multilabel_margin_loss(Tensor input, Tensor target, {_LEGACY}) -> Tensor")
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def multilabel_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The multi-label hinge loss: ``target`` (int64, the shape of ``input``) lists each
    sample's classes, ended by the first -1; each listed class ``j`` and each class ``i``
    not listed add ``max(0, 1 - (x[j] - x[i])) / C``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> tc.nn.functional.multilabel_margin_loss(x, tc.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    reduction = _reduction(size_average, reduce, reduction, "multilabel_margin_loss")
    if target.dtype is not dt.int64:
        raise RuntimeError(f"expected scalar type Long but found {torch_name(target.dtype)}")
    if tuple(target.shape) != tuple(input.shape) or input.ndim > 2:
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    x = input.reshape(-1, input.shape[-1] if input.ndim else 1)
    t = target.reshape(x.shape)
    c = x.shape[1]
    if t.numel() and bool(((t < -1) | (t >= c)).any()):
        raise RuntimeError("argument #2 'target' is out of range")
    # The listed classes: the entries before each row's first -1.
    listed = (t >= 0).long().cumprod(1).bool()
    idx = t.clamp(min=0)
    is_target = (
        ops.zeros(x.shape, dtype=dt.int64, device=x.device).scatter_add(1, idx, listed.long()) > 0
    )
    pairs = (1 - x.gather(1, idx).unsqueeze(2) + x.unsqueeze(1)).clamp_min(0)
    keep = listed.unsqueeze(2) & ~is_target.unsqueeze(1)
    loss = ops.where(keep, pairs, ops.zeros_like(pairs)).sum((1, 2)) / c
    if input.ndim <= 1:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


@checked(
    "multi_margin_loss(Tensor input, Tensor target, int p=1, float margin=1.0, "
    f"Tensor? weight=None, {_LEGACY}) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The multi-class hinge loss: for each sample,
    ``sum over i != y of max(0, margin - x[y] + x[i]) ** p / C`` (``p`` 1 or 2), scaled by
    ``weight[y]``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> tc.nn.functional.multi_margin_loss(x, tc.tensor([3]))
    tensor(0.3250)
    """
    reduction = _reduction(size_average, reduce, reduction, "multi_margin_loss")
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError(
            f"weight must be one-dimensional, but got {weight.ndim}-dimensional tensor"
        )
    x = input if input.ndim > 1 else input.reshape(1, -1)
    t = target.reshape(-1)
    if x.ndim != 2 or t.shape[0] != x.shape[0]:
        raise RuntimeError(
            "multi_margin_loss(): inconsistent target size: expected a target of "
            f"{[x.shape[0]]} for input of size {list(input.shape)}, got {list(target.shape)}"
        )
    c = x.shape[1]
    z = (margin - x.gather(1, t.unsqueeze(1)) + x).clamp_min(0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight[t].unsqueeze(1)
    others = ops.arange(c, device=x.device).unsqueeze(0) != t.unsqueeze(1)
    loss = ops.where(others, z, ops.zeros_like(z)).sum(1) / c
    if input.ndim <= 1 and target.ndim == 0:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


@checked(
    "poisson_nll_loss(Tensor input, Tensor target, bool log_input=True, bool full=False, "
    'bool? size_average=None, float eps=1e-08, bool? reduce=None, str reduction="mean") '
    "-> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average: bool | None = None,
    eps: float = 1e-8,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Negative log-likelihood of ``target`` counts under a Poisson of rate ``exp(input)``
    (``log_input``) or ``input``; ``full`` adds Stirling's term for counts above 1.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.poisson_nll_loss(tc.tensor([0.0, 1.0]), tc.tensor([1.0, 2.0]))
    tensor(0.8591)
    """
    reduction = _reduction(size_average, reduce, reduction, "poisson_nll_loss")
    rate_term = ops.exp(input) if log_input else input
    loss = rate_term - target * (input if log_input else ops.log(input + eps))
    if full:
        stirling = target * ops.log(target) - target + 0.5 * ops.log(2 * math.pi * target)
        loss = loss + ops.where(target > 1, stirling, ops.zeros_like(stirling))
    return _reduce(loss, reduction)


@checked(
    "gaussian_nll_loss(Tensor input, Tensor target, Any var, bool full=False, "
    'float eps=1e-06, str reduction="mean") -> Tensor'
)
def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var: Tensor | float,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """Negative log-likelihood of ``target`` under Gaussians of mean ``input`` and
    variance ``var`` (clamped at ``eps``, without a gradient through the clamp), without the
    constant unless ``full``; ``var`` may be a number, have ``input``'s shape or differ from
    it in one dim of size 1 (or lack its last dim).

    Examples
    --------
    >>> import tensorcore as tc
    >>> F = tc.nn.functional
    >>> F.gaussian_nll_loss(tc.tensor([0.0, 1.0]), tc.tensor([1.0, 1.0]), tc.tensor([1.0, 1.0]))
    tensor(0.2500)
    """
    if isinstance(var, (int, float)) and not isinstance(var, bool):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = float(var) * ops.ones_like(input)
    elif not isinstance(var, Tensor):
        raise TypeError(
            f"gaussian_nll_loss(): argument 'var' must be Tensor or float, not {type(var).__name__}"
        )
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif (
            input.ndim == var.ndim
            and sum(y for x, y in zip(input.shape, var.shape, strict=True) if x != y) == 1
        ):
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (ops.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)
