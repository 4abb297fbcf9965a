"""``nn.functional``'s embeddings: ``embedding`` (``padding_idx``, ``max_norm``, sparse
gradients), ``embedding_bag`` (sum, mean and max bags, offsets, per-sample weights) and
``one_hot``. ``functional.py`` exports them."""

from __future__ import annotations

from .. import dtypes as dt
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from ..ops._validate import checked
from ..ops.frontends import named_as
from ..plugins import manager
from . import _embedding_bag as _bags
from ._activations import (
    _nn_op,
)


@checked(
    "embedding(Tensor input, Tensor weight, int? padding_idx=None, "
    "float? max_norm=None, float norm_type=2.0, bool scale_grad_by_freq=False, "
    "bool sparse=False) -> Tensor"
)
def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Rows of ``weight`` at the indices ``input`` (any shape).

    ``padding_idx``'s row receives no gradient. ``max_norm`` renormalises (in place) the
    looked-up rows whose norm exceeds it. ``scale_grad_by_freq`` divides each row's gradient
    by the number of times its index occurs in ``input``. ``sparse=True`` gives ``weight`` a
    sparse COO gradient, one row per looked-up index; the plugin that provides the sparse
    layout implements it (``tensorcore-sparse``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.arange(6.0).reshape(3, 2)
    >>> tc.nn.functional.embedding(tc.tensor([[2, 0]]), w)
    tensor([[[4., 5.],
             [0., 1.]]])
    """
    if not isinstance(input, Tensor) or input._dtype not in (dt.int64, dt.int32):
        got = input._dtype.name if isinstance(input, Tensor) else type(input).__name__
        raise RuntimeError(
            f"Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {got} instead"
        )
    if weight.dim() != 2:
        raise RuntimeError(
            f"embedding(): 'weight' must be 2-D, got a tensor of shape {list(weight.shape)}"
        )
    n = weight.shape[0]
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= n
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    if sparse:
        manager.load()
        impl = manager.attributes.get("sparse_embedding", (None,))[0]
        if impl is None:
            raise NotImplementedError(
                "embedding(sparse=True) needs the sparse_coo layout: install the backend package "
                "'tensorcore-sparse' (pip install tensorcore-sparse)"
            )
        out = impl(input, weight)
    else:
        # (a vector of indices, the common case, needs neither reshape: two view calls less)
        one = input.ndim == 1
        flat = weight.index_select(0, input if one else input.reshape(-1))
        out = flat if one else flat.reshape(input._shape + weight._shape[1:])
    if padding_idx is not None and out.requires_grad:
        # The padding row's value, with its gradient cut.
        pad_mask = (input == padding_idx).unsqueeze(-1)
        out = ops.where(pad_mask, out.detach(), out)
    if scale_grad_by_freq and out.requires_grad:
        # Each looked-up row's gradient divided by how often its index occurs in ``input``.
        _, inverse, counts = ops.unique(input.reshape(-1), True, True, True)
        scale = (1.0 / counts.to(out.dtype))[inverse].reshape(input._shape + (1,))
        out.register_hook(lambda g: g * scale)
    return named_as(out, "EmbeddingBackward0")


@checked(
    "embedding_bag(Tensor input, Tensor weight, Tensor? offsets=None, float? max_norm=None, "
    'float norm_type=2, bool scale_grad_by_freq=False, str mode="mean", bool sparse=False, '
    "Tensor? per_sample_weights=None, bool include_last_offset=False, int? padding_idx=None)"
    " -> Tensor"
)
def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """Sums, means or maxima of bags of embeddings, without the per-index intermediate.

    A 2-D ``input`` holds one bag per row; a 1-D ``input`` is split into bags starting at
    ``offsets`` (the last bag ending at ``offsets[-1]`` with ``include_last_offset``).
    ``per_sample_weights`` (``mode="sum"`` only) scales each row; indices equal to
    ``padding_idx`` are left out of their bag (and of a mean's count); an empty bag gives
    zeros.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.arange(8.0).reshape(4, 2)
    >>> tc.nn.functional.embedding_bag(tc.tensor([0, 1, 3]), w, tc.tensor([0, 2]), mode="sum")
    tensor([[2., 4.],
            [6., 7.]])
    """
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{offsets.type()}"
            )
        offsets = ops.arange(0, input.numel(), input.shape[1], device=input.device)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        _check_bag_offsets(offsets, input.shape[0])
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}"
        )
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "the Pytorch GitHub."
        )
    if per_sample_weights is not None and tuple(per_sample_weights.shape) != tuple(input.shape):
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not "
            f"None, then it must have the same shape as the input ({tuple(input.shape)})"
        )
    if not sparse:
        return _embedding_bag_op(
            input,
            weight,
            offsets,
            max_norm,
            norm_type,
            scale_grad_by_freq,
            mode,
            per_sample_weights,
            include_last_offset,
            padding_idx,
        )
    # A sparse gradient: the looked-up rows are embedding's (the sparse layout's plugin
    # makes their COO gradient), reduced by tensorcore operators.
    rows = embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)
    bag, keep, count = _bags.bag_ids(input.shape[0], offsets, include_last_offset)
    if padding_idx is not None:
        kept = input != padding_idx % weight.shape[0]
        keep = kept if keep is None else keep & kept
    out = _bags.reduce_bags(rows, bag, keep, count, mode, per_sample_weights, offsets)
    return named_as(out, "EmbeddingBagBackward0")


_BAG_MODES = {"sum": 0, "mean": 1, "max": 2}


def _embedding_bag_op(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor,
    max_norm: float | None,
    norm_type: float,
    scale_grad_by_freq: bool,
    mode: str,
    per_sample_weights: Tensor | None,
    include_last_offset: bool,
    padding_idx: int | None,
) -> Tensor:
    """``embedding_bag`` with a dense gradient: PyTorch's ``_embedding_bag`` operator, one
    node whatever the bags."""
    n = weight.shape[0]
    pad = -1
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        pad = padding_idx % n
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    out = _nn_op(
        "_embedding_bag",
        weight,
        input,
        offsets,
        scale_grad_by_freq,
        _BAG_MODES[mode],
        False,
        per_sample_weights,
        include_last_offset,
        pad,
    )
    return out[0]


def _check_bag_offsets(offsets: Tensor, n: int) -> None:
    """PyTorch's checks of 1-D ``embedding_bag`` offsets (one read of two values; none on
    ``meta``, which holds no values)."""
    if offsets.numel() == 0 or offsets.device.type == "meta":
        return
    ends = offsets[:: max(offsets.shape[0] - 1, 1)].tolist()  # (the first and the last)
    first, last = int(ends[0]), int(ends[-1])
    if first != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {first}"
        )
    if last > n:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of {last}"
        )


def _embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    with no_grad():
        rows = ops.unique(input.reshape(-1)) if hasattr(ops, "unique") else input.reshape(-1)
        sel = weight.index_select(0, rows)
        norms = ops.vector_norm(sel, norm_type, (1,), True)
        scale = ops.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight.index_put_((rows,), sel * scale)


@checked("one_hot(Tensor tensor, int num_classes=-1) -> Tensor")
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding: a new last dim of size ``num_classes`` (the largest index +
    1 when -1).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.one_hot(tc.tensor([0, 2]), 3)
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    return _nn_op("one_hot", tensor, num_classes)
