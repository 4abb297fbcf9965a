"""Loss functions of ``tensorcore.nn.functional``, written with tensorcore operators (so they
run on every backend and are differentiable through their parts)."""

from __future__ import annotations

import warnings

from .. import dtypes as dt
from .._tensor import Tensor, torch_name
from ..amp.autocast_mode import fp32_function
from ..dispatch import get_op
from ..ops import functions as ops
from ..ops._call import call_lane
from ..ops._out import cast_error
from ..ops._validate import checked
from ..ops.composite_more import reduce_loss as _reduce
from ..ops.frontends import broadcast_shapes, named_as
from ..ops.views import release_temporary_view

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "mse_loss",
    "nll_loss",
    "smooth_l1_loss",
]

_REDUCTIONS = ("mean", "sum", "none")
_MSE_LOSS = get_op("mse_loss")


def _check_reduction(reduction: str, fn: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(
            f"{reduction} is not a valid value for reduction ({fn}: expected 'mean', 'sum' or "
            "'none')"
        )


def _legacy(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    """PyTorch's deprecated ``size_average``/``reduce`` pair, as a ``reduction`` (with
    PyTorch's UserWarning naming the ``reduction`` to use instead)."""
    if size_average is None and reduce is None:
        return reduction
    legacy = "none" if reduce is False else "sum" if size_average is False else "mean"
    warnings.warn(
        "size_average and reduce args will be deprecated, please use "
        f"reduction='{legacy}' instead.",
        stacklevel=3,
    )
    return legacy


def _into(dtype: dt.dtype, value: Tensor) -> Tensor:
    """``value`` stored into a tensor of ``dtype``, as PyTorch's losses whose kernels write
    into a tensor of a fixed dtype (an ``out=``, an in-place step) store their result: the
    arithmetic runs in the promoted dtype, the result is rounded to ``dtype``, and a value that
    ``dtype`` cannot hold (a float into an integer tensor) is refused with PyTorch's error."""
    if value.dtype is dtype:
        return value
    if not dt.can_cast(value.dtype, dtype):
        raise cast_error("", value.dtype, dtype)
    return value.to(dtype)


def _check_tensor(x: object, fn: str, arg: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' must be Tensor, not {type(x).__name__}")


# From _pointwise_pair to the caller of the loss: the loss itself, autocast's wrapper and the
# argument check's.
_STACKLEVEL = 5


def _pointwise_pair(input: Tensor, target: Tensor, fn: str, reduction: str) -> Tensor:
    _check_tensor(input, fn, "input")
    _check_tensor(target, fn, "target")
    _check_reduction(reduction, fn)
    if input.shape != target.shape:
        # PyTorch warns and broadcasts both ways: (N, 1) against (N,) gives an (N, N) loss,
        # the classic bug, which programs nonetheless run (and train) with.
        try:
            broadcast_shapes(input.shape, target.shape)
        except RuntimeError as exc:  # PyTorch's words for shapes that do not broadcast
            raise RuntimeError(str(exc).removeprefix("broadcast_shapes(): ")) from None
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            stacklevel=_STACKLEVEL,
        )
    return target


@checked(
    "mse_loss(Tensor input, Tensor target, bool? size_average=None, "
    'bool? reduce=None, str reduction="mean", Tensor? weight=None) -> Tensor'
)
@fp32_function  # (autocast runs PyTorch's losses in float32)
def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """Mean squared error ``(input - target) ** 2``, reduced by ``reduction``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.mse_loss(tc.tensor([1.0, 2.0]), tc.tensor([0.0, 0.0])).item()
    2.5
    """
    reduction = _legacy(size_average, reduce, reduction)
    _pointwise_pair(input, target, "mse_loss", reduction)
    if weight is None:
        return call_lane(_MSE_LOSS, (input, target, reduction))
    d = input - target
    loss = _reduce(d * d * weight, reduction)
    return named_as(loss, "MseLossBackward0")


@checked(
    "l1_loss(Tensor input, Tensor target, bool? size_average=None, "
    'bool? reduce=None, str reduction="mean") -> Tensor'
)
@fp32_function  # (autocast runs PyTorch's losses in float32)
def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Mean absolute error ``|input - target|``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.l1_loss(tc.tensor([1.0, -2.0]), tc.tensor([0.0, 0.0])).item()
    1.5
    """
    reduction = _legacy(size_average, reduce, reduction)
    _pointwise_pair(input, target, "l1_loss", reduction)
    return _reduce((input - target).abs(), reduction)


@checked(
    "smooth_l1_loss(Tensor input, Tensor target, bool? size_average=None, "
    'bool? reduce=None, str reduction="mean", float beta=1.0) -> Tensor'
)
@fp32_function  # (autocast runs PyTorch's losses in float32)
def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """``0.5 d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``d = input -
    target``); ``beta=0`` is the L1 loss.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.smooth_l1_loss(tc.tensor([0.5, 3.0]), tc.zeros(2)).item()
    1.3125
    """
    reduction = _legacy(size_average, reduce, reduction)
    _pointwise_pair(input, target, "smooth_l1_loss", reduction)
    if beta < 0:
        raise RuntimeError(
            f"smooth_l1_loss does not support negative values for beta (got {beta})."
        )
    if target._shape == input._shape and target._dtype is input._dtype:
        return call_lane(get_op("smooth_l1_loss"), (input, target, reduction, beta))
    a = (input - target).abs()
    if beta != 0:
        # (a - m / 2) * (m / beta) with m = min(a, beta): 0.5 a**2 / beta below beta,
        # a - 0.5 beta (exactly) above, and the gradient a / beta or 1, continuous at beta;
        # without a ``where``, which NumPy runs at a tenth of a plain pass on mixed masks
        m = a.clamp(max=beta)
        a = (a - 0.5 * m) * (m / beta)
    return named_as(_reduce(a, reduction), "SmoothL1LossBackward0")


@checked(
    'huber_loss(Tensor input, Tensor target, str reduction="mean", float delta=1.0, '
    "Tensor? weight=None) -> Tensor"
)
@fp32_function  # (autocast runs PyTorch's losses in float32)
def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """``0.5 d**2`` where ``|d| <= delta``, else ``delta (|d| - 0.5 delta)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.huber_loss(tc.tensor([0.5, 3.0]), tc.zeros(2), delta=2.0).item()
    2.0625
    """
    _pointwise_pair(input, target, "huber_loss", reduction)
    if delta <= 0:
        raise RuntimeError(f"huber_loss does not support non-positive values for delta ({delta})")
    if weight is None and target._shape == input._shape and target._dtype is input._dtype:
        return call_lane(get_op("huber_loss"), (input, target, reduction, delta))
    a = (input - target).abs()
    # m (a - m / 2) with m = min(a, delta): PyTorch's 0.5 a**2 and delta (a - 0.5 delta), bit
    # for bit, and its gradient, without a ``where`` (see smooth_l1_loss); PyTorch's kernel
    # writes into a tensor of input's dtype
    m = a.clamp(max=delta)
    loss = _into(input.dtype, m * (a - 0.5 * m))
    loss = _reduce(loss if weight is None else loss * weight, reduction)
    return named_as(loss, "HuberLossBackward0")


@checked(
    "binary_cross_entropy(Tensor input, Tensor target, Tensor? weight=None, "
    'bool? size_average=None, bool? reduce=None, str reduction="mean") -> Tensor'
)
@fp32_function  # (autocast runs PyTorch's losses in float32)
def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``-(t log p + (1 - t) log(1 - p))`` for probabilities ``input``; the logs are clamped
    at -100 as in PyTorch, so a probability of exactly 0 or 1 gives a finite loss.

    Examples
    --------
    >>> import tensorcore as tc
    >>> p, t = tc.tensor([0.5, 0.9]), tc.tensor([1.0, 1.0])
    >>> round(tc.nn.functional.binary_cross_entropy(p, t).item(), 4)
    0.3993
    """
    _check_tensor(input, "binary_cross_entropy", "input")
    _check_tensor(target, "binary_cross_entropy", "target")
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction, "binary_cross_entropy")
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    if target.dtype is not input.dtype:
        raise RuntimeError(
            f"Found dtype {torch_name(target.dtype)} but expected {torch_name(input.dtype)}"
        )
    if weight is not None:
        # (PyTorch multiplies the loss by it in place: it may not make the loss bigger)
        shape = tuple(broadcast_shapes(tuple(input.shape), tuple(weight.shape)))
        if shape != tuple(input.shape):
            raise RuntimeError(
                f"binary_cross_entropy(): output with shape {list(input.shape)} doesn't match "
                f"the broadcast shape {list(shape)} (weight of shape {list(weight.shape)})"
            )
    if weight is not None and weight.dtype is not input.dtype:
        weight = _into(input.dtype, weight)  # (PyTorch's kernel: loss.mul_(weight))
    # (the operator's kernel checks that the values lie in [0, 1], NaN failing, as PyTorch's)
    return call_lane(get_op("binary_cross_entropy"), (input, target, weight, reduction))


@checked(
    "binary_cross_entropy_with_logits(Tensor input, Tensor target, "
    "Tensor? weight=None, bool? size_average=None, bool? reduce=None, "
    'str reduction="mean", Tensor? pos_weight=None) -> Tensor'
)
@fp32_function  # (autocast runs PyTorch's losses in float32)
def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """Binary cross-entropy of ``sigmoid(input)``, computed stably from the logits;
    ``pos_weight`` weighs the positive term (per class, broadcast over the last dim).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x, t = tc.tensor([0.0, 2.0]), tc.tensor([1.0, 0.0])
    >>> round(tc.nn.functional.binary_cross_entropy_with_logits(x, t).item(), 4)
    1.41
    """
    fn = "binary_cross_entropy_with_logits"
    reduction = _legacy(size_average, reduce, reduction)
    _check_tensor(input, fn, "input")
    _check_tensor(target, fn, "target")
    _check_reduction(reduction, fn)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    if target._dtype is input._dtype and _fits(input, weight) and _fits(input, pos_weight):
        return call_lane(
            get_op("binary_cross_entropy_with_logits"),
            (input, target, weight, pos_weight, reduction),
        )
    # (Other dtypes, or weights that broadcast the loss beyond input's shape:) the composite.
    # -log(sigmoid(x)) = softplus(-x) = logaddexp(-x, 0): stable, and its gradient is
    # -sigmoid(-x) everywhere (a sum of max(-x, 0) and log1p(exp(-|x|)) has a kink at 0 and
    # gave -1 there, where logistic regression from zero weights starts).
    softplus_neg = ops.logaddexp(-input, 0.0)
    if pos_weight is not None:
        # (PyTorch's log_sigmoid(input).mul_(...): in input's dtype)
        softplus_neg = _into(input.dtype, ((pos_weight - 1) * target + 1) * softplus_neg)
    # PyTorch's (1 - target).mul_(input).sub_(log_sigmoid(input)).mul_(weight): each step is
    # stored in target's dtype, so the loss has target's dtype (a float32 target of a float64
    # input gives a float32 loss; an integer target is refused).
    loss = 1 - target
    loss = _into(loss.dtype, _into(loss.dtype, loss * input) + softplus_neg)
    if weight is not None:
        loss = _into(loss.dtype, loss * weight)
    return named_as(_reduce(loss, reduction), "BinaryCrossEntropyWithLogitsBackward0")


def _fits(input: Tensor, weight: Tensor | None) -> bool:
    """Whether ``weight`` (None, or a tensor of ``input``'s dtype broadcasting to its shape)
    can go to the operator as it is."""
    if weight is None:
        return True
    if not isinstance(weight, Tensor) or weight.dtype is not input.dtype:
        return False
    try:
        return tuple(broadcast_shapes(input.shape, weight.shape)) == tuple(input.shape)
    except RuntimeError:
        return False


_KL_MEAN_WARNING = (
    "reduction: 'mean' divides the total loss by both the batch size and the support size."
    "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
    "'mean' will be changed to behave the same as 'batchmean' in the next major release."
)


@checked(
    "kl_div(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, "
    'str reduction="mean", bool log_target=False) -> Tensor'
)
@fp32_function  # (autocast runs PyTorch's losses in float32)
def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """Kullback-Leibler divergence of ``target`` from the log-probabilities ``input``,
    pointwise ``xlogy(target, target) - target * input`` (0 where ``target`` is 0).
    ``reduction="batchmean"`` divides the sum by the batch size (the mathematically correct
    KL divergence; ``"mean"`` averages over every element and warns, as PyTorch does).
    ``size_average``/``reduce`` are PyTorch's deprecated spelling of ``reduction`` and warn.

    Examples
    --------
    >>> import tensorcore as tc
    >>> logq = tc.tensor([[0.25, 0.75]]).log()
    >>> p = tc.tensor([[0.5, 0.5]])
    >>> round(tc.nn.functional.kl_div(logq, p, reduction="batchmean").item(), 4)
    0.1438
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn(_KL_MEAN_WARNING, stacklevel=2)
    _check_tensor(input, "kl_div", "input")
    _check_tensor(target, "kl_div", "target")
    if reduction not in (*_REDUCTIONS, "batchmean"):
        raise ValueError(f"kl_div(): {reduction!r} is not a valid value for reduction")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        # PyTorch's form: 0 where target is 0, nan where it is negative
        loss = ops.xlogy(target, target) - target * input
    if reduction == "batchmean":
        n = input.shape[0] if input.ndim else 1
        return loss.sum() / n
    return _reduce(loss, reduction)


def _class_last(input: Tensor, target: Tensor, fn: str) -> tuple[Tensor, Tensor]:
    """(N, C, d1, ...) logits and (N, d1, ...) targets as (M, C) and (M,); PyTorch's checks
    of the shapes, in its order and with its exception types."""
    shape = input._shape
    if len(shape) == 2 and target._shape == shape[:1]:
        return input, target  # (the common case: (N, C) and (N,), nothing to check)
    if input.ndim == 0:
        raise ValueError(f"{fn}(): Expected 1 or more dimensions (got 0)")
    if input.ndim == 1:
        if target.ndim > 1:
            raise RuntimeError(
                f"{fn}(): 0D or 1D target tensor expected, multi-target not supported (got "
                f"target of size {list(target.shape)})"
            )
        if target.ndim == 1 and target.shape[0] != 1:
            raise ValueError(
                f"{fn}(): For 1D input, 1D target must have size 1, but got target size: "
                f"{target.shape[0]}"
            )
        return input.unsqueeze(0), target.reshape(1)
    n = target.shape[0] if target.ndim else 0
    if input.shape[0] != n:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
            f"({n}) ({fn}: input {list(input.shape)}, target {list(target.shape)})"
        )
    if input.ndim == 2 and target.ndim != 1:
        raise RuntimeError(
            f"{fn}(): 0D or 1D target tensor expected, multi-target not supported (input "
            f"{list(input.shape)}, target {list(target.shape)})"
        )
    expected = input.shape[:1] + input.shape[2:]
    if target.shape != expected:
        raise RuntimeError(
            f"{fn}(): Expected target size {list(expected)}, got {list(target.shape)}"
        )
    if input.ndim == 2:
        return input, target
    c = input.shape[1]
    return input.movedim(1, -1).reshape(-1, c), target.reshape(-1)


@checked(
    "nll_loss(Tensor input, Tensor target, Tensor? weight=None, "
    "bool? size_average=None, int ignore_index=-100, bool? reduce=None, "
    'str reduction="mean") -> Tensor'
)
@fp32_function  # (autocast runs PyTorch's losses in float32)
def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Negative log-likelihood of the log-probabilities ``input`` (N, C) or (N, C, d1, ...)
    at the class indices ``target`` (N,) or (N, d1, ...).

    ``weight`` (C,) weighs each class; targets equal to ``ignore_index`` contribute nothing,
    and ``"mean"`` divides by the total weight of the targets that count, as in PyTorch.

    Examples
    --------
    >>> import tensorcore as tc
    >>> logp = tc.tensor([[-0.5, -1.0], [-2.0, -0.25]])
    >>> tc.nn.functional.nll_loss(logp, tc.tensor([0, 1])).item()
    0.375
    >>> tc.nn.functional.nll_loss(logp, tc.tensor([0, -100])).item()
    0.5
    """
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction, "nll_loss")
    return _nll(input, target, weight, ignore_index, reduction)


def _nll(
    input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int, reduction: str
) -> Tensor:
    x, t = _class_last(input, target, "nll_loss")  # (shapes first, as PyTorch checks them)
    if target._dtype is dt.uint8:
        t = t.long()  # (PyTorch takes Byte class indices too)
    elif target._dtype is not dt.int64:
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {torch_name(target._dtype)}"
        )
    loss = ops.nll_loss(x, t, weight, reduction, ignore_index)
    nd = input.ndim
    if reduction == "none" and loss._shape != target._shape:
        loss = loss.reshape(target._shape)
        if nd not in (1, 4):
            return loss  # (PyTorch's too is a view of its (N, C, H, W) call's result)
        release_temporary_view(loss, ())
    # (PyTorch's kernel for (N, C, d1, ...) inputs is nll_loss2d's, its node's name)
    return named_as(loss, "NllLoss2DBackward0" if nd >= 3 else "NllLossBackward0")


@checked(
    "cross_entropy(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, "
    'int ignore_index=-100, bool? reduce=None, str reduction="mean", '
    "float label_smoothing=0.0) -> Tensor"
)
@fp32_function  # (autocast runs PyTorch's losses in float32)
def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross-entropy of the logits ``input`` (N, C) or (N, C, d1, ...) against class indices
    (integer ``target`` of shape (N,) or (N, d1, ...)) or class probabilities (floating
    ``target`` of ``input``'s shape).

    ``weight`` weighs classes, ``ignore_index`` skips targets (index targets only) and
    ``label_smoothing`` mixes the target with the uniform distribution, all as in PyTorch.

    Examples
    --------
    >>> import tensorcore as tc
    >>> logits = tc.tensor([[2.0, 0.0], [0.0, 2.0]])
    >>> round(tc.nn.functional.cross_entropy(logits, tc.tensor([0, 1])).item(), 4)
    0.1269
    >>> round(tc.nn.functional.cross_entropy(logits, tc.tensor([[1.0, 0.0], [0.5, 0.5]])).item(), 4)
    0.6269
    """
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction, "cross_entropy")
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    sizes = input._shape
    class_dim = 0 if len(sizes) == 1 else 1
    logp = ops.log_softmax(input, class_dim)
    c = sizes[class_dim] if sizes else 1
    # Class probabilities where the target has the input's shape; otherwise class indices,
    # whose checks (batch size, then dtype) speak for a floating target too, as PyTorch's.
    if target._dtype._category >= dt.FLOATING and target._shape == sizes:
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / c
        term = logp * target
        if weight is not None:
            shape = [1] * input.ndim
            shape[class_dim] = c
            term = term * weight.reshape(shape)
        return _reduce(-term.sum(class_dim), reduction)
    nll = _nll(logp, target, weight, ignore_index, reduction)
    if label_smoothing <= 0:
        return nll
    # The smoothing term: the mean over classes of -log p (weighted), over the same targets.
    x, t = _class_last(logp, target, "cross_entropy")
    keep = t != ignore_index
    per = -(x * weight).sum(1) if weight is not None else -x.sum(1)
    # (masked_fill, not a product: where every target is ignored the mean's 1 / 0 reaches
    # only the filled places, whose gradient is 0, as PyTorch's)
    per = per.masked_fill(keep.logical_not(), 0.0)
    if reduction == "none":
        smooth = per.reshape(target.shape)
    elif reduction == "sum":
        smooth = per.sum()
    else:
        denom = (
            weight.index_select(0, ops.where(keep, t, 0)) * keep
            if weight is not None
            else keep.to(x.dtype)
        ).sum()
        smooth = per.sum() / denom
    return nll * (1 - label_smoothing) + smooth * (label_smoothing / c)
