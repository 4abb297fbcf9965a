"""Functional neural-network operations: ``import tensorcore.nn.functional as F``.

Each is written with tensorcore operators (the convolutions and pooling are declared
operators with their own kernels and backward operators), so it runs on every backend that
provides those operators and is differentiable. Names, arguments and defaults are PyTorch's.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

from .. import dtypes as dt
from .._finfo import finfo
from .._tensor import Tensor, cpp_name
from ..amp.autocast_mode import fp32_function
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..ops import functions as ops
from ..ops._validate import checked
from ..ops.frontends import named_as
from ..overrides import (  # noqa: F401 (PyTorch's functional module offers them too)
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
)
from ..plugins import manager
from . import _embedding_bag as _bags
from ._activations import (
    _activation,
    _nn_op,
    channel_shuffle,
    elu_,
    glu,
    gumbel_softmax,
    hardshrink,
    hardtanh_,
    implicit_softmax_dim,
    leaky_relu_,
    local_response_norm,
    pixel_shuffle,
    pixel_unshuffle,
    relu_,
    rrelu,
    rrelu_,
    softmin,
    softshrink,
    tanhshrink,
    threshold,
    threshold_,
)
from ._attention import multi_head_attention_forward
from ._conv import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_max_pool2d,
    avg_pool1d,
    avg_pool2d,
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
    max_pool1d,
    max_pool2d,
)
from ._conv import pad as _pad
from ._ctc import ctc_loss
from ._dense import dropout, linear
from ._fold import fold, unfold
from ._fractional import (
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
)
from ._functional_more import (
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d_with_indices,
    alpha_dropout,
    bilinear,
    feature_alpha_dropout,
    max_pool1d_with_indices,
    max_pool2d_with_indices,
    max_pool3d_with_indices,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)
from ._linear_cross_entropy import linear_cross_entropy
from ._losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    huber_loss,
    kl_div,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)
from ._margin_losses import (
    cosine_embedding_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    pairwise_distance,
    poisson_nll_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from ._pooling import (
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool3d,
    avg_pool3d,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool3d,
)
from ._sampling import affine_grid, grid_sample, interpolate
from ._unpool import max_unpool1d, max_unpool2d, max_unpool3d

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "affine_grid",
    "alpha_dropout",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "celu",
    "celu_",
    "channel_shuffle",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "cosine_embedding_loss",
    "cosine_similarity",
    "cross_entropy",
    "ctc_loss",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "elu",
    "elu_",
    "embedding",
    "embedding_bag",
    "feature_alpha_dropout",
    "fold",
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
    "gaussian_nll_loss",
    "gelu",
    "glu",
    "grid_sample",
    "group_norm",
    "gumbel_softmax",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "hinge_embedding_loss",
    "huber_loss",
    "instance_norm",
    "interpolate",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "linear_cross_entropy",
    "local_response_norm",
    "log_softmax",
    "logsigmoid",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "margin_ranking_loss",
    "max_pool1d",
    "max_pool1d_with_indices",
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_pool3d",
    "max_pool3d_with_indices",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
    "mish",
    "mse_loss",
    "multi_head_attention_forward",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "normalize",
    "one_hot",
    "pad",
    "pairwise_distance",
    "pdist",
    "pixel_shuffle",
    "pixel_unshuffle",
    "poisson_nll_loss",
    "prelu",
    "relu",
    "relu6",
    "relu_",
    "rms_norm",
    "rrelu",
    "rrelu_",
    "scaled_dot_product_attention",
    "selu",
    "selu_",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "soft_margin_loss",
    "softmax",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "threshold_",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
    "unfold",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
]


# ------------------------------------------------------------------ activations
@checked("relu(Tensor input, bool inplace=False) -> Tensor")
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(x, 0)`` elementwise (``inplace=True`` overwrites ``input``)."""
    return input.relu_() if inplace else ops.relu(input)


@checked("sigmoid(Tensor input) -> Tensor")
def sigmoid(input: Tensor) -> Tensor:
    """Logistic sigmoid."""
    return ops.sigmoid(input)


@checked("tanh(Tensor input) -> Tensor")
def tanh(input: Tensor) -> Tensor:
    """Hyperbolic tangent."""
    return ops.tanh(input)


@checked("leaky_relu(Tensor input, float negative_slope=0.01, bool inplace=False) -> Tensor")
def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x`` where ``x > 0``, else ``negative_slope * x``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.leaky_relu(tc.tensor([-2.0, 3.0]), 0.5)
    tensor([-1.,  3.])
    """
    return _activation("leaky_relu", input, inplace, negative_slope)


@checked("relu6(Tensor input, bool inplace=False) -> Tensor")
def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x, 0), 6)``."""
    return hardtanh(input, 0.0, 6.0, inplace)


@checked(
    "hardtanh(Tensor input, float min_val=-1.0, float max_val=1.0, bool inplace=False) -> Tensor"
)
def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """``x`` clamped to ``[min_val, max_val]``."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _activation("hardtanh", input, inplace, min_val, max_val)


@checked("elu(Tensor input, float alpha=1.0, bool inplace=False) -> Tensor")
def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``."""
    return _activation("elu", input, inplace, alpha, 1.0, 1.0)


@checked("celu(Tensor input, float alpha=1.0, bool inplace=False) -> Tensor")
def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where ``x > 0``, else ``alpha * (exp(x / alpha) - 1)`` (continuously
    differentiable ELU).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.celu(tc.tensor([-1.0, 2.0]), alpha=0.5)
    tensor([-0.4323,  2.0000])
    """
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    out = _activation("elu", input, inplace, alpha, 1.0, 1.0 / alpha)
    return out if inplace else named_as(out, "CeluBackward0")


@checked("selu(Tensor input, bool inplace=False) -> Tensor")
def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """Scaled ELU with the self-normalising constants."""
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    return _activation("elu", input, inplace, alpha, scale, 1.0)


@checked("celu_(Tensor input, float alpha=1.0) -> Tensor")
def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place :func:`celu`."""
    return celu(input, alpha, True)


@checked("selu_(Tensor input) -> Tensor")
def selu_(input: Tensor) -> Tensor:
    """In-place :func:`selu`."""
    return selu(input, True)


@checked('gelu(Tensor input, str approximate="none") -> Tensor')
def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Gaussian error linear unit ``x * Phi(x)``; ``approximate="tanh"`` uses the tanh
    approximation.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.gelu(tc.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.1587,  0.0000,  0.8413])
    """
    return ops.gelu(input, approximate=approximate)


@checked("silu(Tensor input, bool inplace=False) -> Tensor")
def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)`` (swish)."""
    return _activation("silu", input, inplace)


@checked("mish(Tensor input, bool inplace=False) -> Tensor")
def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``."""
    return _activation("mish", input, inplace)


@checked("softplus(Tensor input, float beta=1.0, float threshold=20.0) -> Tensor")
def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta x)) / beta``, linear where ``beta x > threshold``."""
    return _nn_op("softplus", input, beta, threshold)


@checked("logsigmoid(Tensor input) -> Tensor")
def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))``, computed stably (``min(x, 0) - log1p(exp(-|x|))``: the gradient
    is ``sigmoid(-x)`` everywhere, 0.5 at 0)."""
    return _nn_op("log_sigmoid", input)


@checked("softsign(Tensor input) -> Tensor")
def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``."""
    return input / (input.abs() + 1)


@checked("hardsigmoid(Tensor input, bool inplace=False) -> Tensor")
def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(x + 3) / 6``."""
    return _activation("hardsigmoid", input, inplace)


@checked("hardswish(Tensor input, bool inplace=False) -> Tensor")
def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * relu6(x + 3) / 6``."""
    return _activation("hardswish", input, inplace)


@checked("softmax(Tensor input, int? dim=None, ScalarType? dtype=None) -> Tensor")
def softmax(input: Tensor, dim: int | None = None, dtype: dt.dtype | None = None) -> Tensor:
    """Softmax along ``dim`` (PyTorch's legacy choice of dim when None)."""
    return ops.softmax(
        input, implicit_softmax_dim("softmax", input.ndim) if dim is None else dim, dtype
    )


@checked("log_softmax(Tensor input, int? dim=None, ScalarType? dtype=None) -> Tensor")
def log_softmax(input: Tensor, dim: int | None = None, dtype: dt.dtype | None = None) -> Tensor:
    """Log-softmax along ``dim``."""
    return ops.log_softmax(
        input, implicit_softmax_dim("log_softmax", input.ndim) if dim is None else dim, dtype
    )


# ------------------------------------------------------------------ linear, dropout, embedding
def _channel_dropout(
    input: Tensor, p: float, training: bool, inplace: bool, nd: int, fn: str
) -> Tensor:
    # PyTorch's rules per function: dropout1d takes (N, C, L) or (C, L) and refuses the rest;
    # dropout2d and dropout3d warn about other ranks but still run. dropout2d never adds a
    # batch dim (a 3-D input is (N, C, L), with a warning; a 2-D one (N, C) drops elements),
    # dropout1d and dropout3d treat a rank below nd + 2 as unbatched (one channel per row).
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    ndim = input.ndim
    if ndim not in (nd + 1, nd + 2):
        note = (
            f"Note that {fn} exists to provide channel-wise dropout on inputs with {nd} spatial "
            f"dimension{'s' if nd > 1 else ''}, a channel dimension, and an optional batch "
            f"dimension (i.e. {nd + 1}D or {nd + 2}D inputs)."
        )
        if nd == 1:
            raise RuntimeError(
                f"{fn}: Expected {nd + 1}D or {nd + 2}D input, but received a {ndim}D input. "
                + note
            )
        warnings.warn(
            f"{fn}: Received a {ndim}-D input to {fn}, which is deprecated and will result in "
            "an error in a future release. To retain the behavior and silence this warning, "
            "please use dropout instead. " + note,
            stacklevel=4,  # the caller of F.dropout2d, past its checked wrapper
        )
    if nd == 2 and ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=4,  # the caller of F.dropout2d, past its checked wrapper
        )
    batched = nd == 2 or ndim == nd + 2
    if ndim + (not batched) < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not training or p == 0.0:
        return input
    # One draw per channel (of each sample), shared by the channel's elements.
    lead = 2 if batched else 1
    shape = tuple(input.shape[:lead]) + (1,) * (ndim - lead)
    noise = ops.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1.0 - p)
    if p < 1.0:
        noise.div_(1.0 - p)
    return input.mul_(noise) if inplace else input * noise


@checked("dropout1d(Tensor input, float p=0.5, bool training=True, bool inplace=False) -> Tensor")
def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, L) or (C, L) with probability ``p``."""
    return _channel_dropout(input, p, training, inplace, 1, "dropout1d")


@checked("dropout2d(Tensor input, float p=0.5, bool training=True, bool inplace=False) -> Tensor")
def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, H, W) or (C, H, W) with probability ``p``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> y = tc.nn.functional.dropout2d(tc.ones(1, 64, 2, 2), 0.5)
    >>> bool(((y == 0).all((2, 3)) | (y == 2).all((2, 3))).all())
    True
    """
    return _channel_dropout(input, p, training, inplace, 2, "dropout2d")


@checked("dropout3d(Tensor input, float p=0.5, bool training=True, bool inplace=False) -> Tensor")
def dropout3d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) with probability ``p``."""
    return _channel_dropout(input, p, training, inplace, 3, "dropout3d")


_fp32_pad = fp32_function(_pad)


@checked('pad(Tensor input, int[] pad, str mode="constant", float? value=None) -> Tensor')
def pad(
    input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None
) -> Tensor:
    # (PyTorch's CPU autocast runs reflection_pad1d/2d and replication_pad1d/2d/3d in float32)
    if mode == "replicate" or (mode == "reflect" and len(pad) // 2 <= 2):
        return _fp32_pad(input, pad, mode, value)
    return _pad(input, pad, mode, value)


pad.__doc__ = _pad.__doc__


@checked("prelu(Tensor input, Tensor weight) -> Tensor")
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where ``x > 0``, else ``weight * x`` (one weight, or one per channel, dim 1)."""
    if weight.ndim > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}"
        )
    # One weight applies to every element (a 0-d input too).
    w = weight.reshape(()) if weight.ndim and weight.numel() == 1 else weight
    if weight.numel() != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        if input.ndim < 2 or input.shape[1] != weight.numel():
            raise RuntimeError(
                f"Mismatch of parameter numbers and input channel size. Found parameter numbers "
                f"= {weight.numel()} and channel size = "
                f"{input.shape[1] if input.ndim > 1 else 1}."
            )
        w = weight.reshape((1, -1) + (1,) * (input.ndim - 2))
    return _nn_op("_prelu_kernel", input, w)


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


# ------------------------------------------------------------------ normalisation
def _norm_shape(input: Tensor, normalized_shape: Any, fn: str) -> tuple[int, ...]:
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            "one element, but got normalized_shape = []"
        )
    if tuple(input.shape[input.ndim - len(shape) :]) != shape or len(shape) > input.ndim:
        raise RuntimeError(
            f"{fn}(): given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size {list(input.shape)}"
        )
    return shape


@checked(
    "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, "
    "Tensor? bias=None, float eps=1e-05) -> Tensor"
)
def layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int] | int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dims (biased variance), then scale
    and shift.

    Examples
    --------
    >>> import tensorcore as tc
    >>> y = tc.nn.functional.layer_norm(tc.tensor([[1.0, 2.0, 3.0]]), (3,))
    >>> [round(v, 4) for v in y[0].tolist()]
    [-1.2247, 0.0, 1.2247]
    """
    shape = _norm_shape(input, normalized_shape, "layer_norm")
    if _saves_statistics(input, weight, bias):
        return ops.native_layer_norm(input, shape, weight, bias, eps)[0]
    return ops.layer_norm(input, shape, weight, bias, eps)


#: Below this many input elements the normalisations run their one-output operator: the
#: ``native_*`` operators' saved statistics spare the backward a pass over the input (about
#: 0.3 ns per element here), but recording a three-output node costs about 18 us a call.
_SAVED_STATISTICS_MIN = 1 << 16


def _saves_statistics(input: Tensor, *params: Tensor | None) -> bool:
    """Whether a normalisation should run its ``native_*`` operator, which also returns the
    mean and inverse standard deviation for its backward to read: when a backward will run
    (grad mode on and an input that requires grad) and the input is large enough that the
    pass saved outweighs the bigger node (:data:`_SAVED_STATISTICS_MIN`). Both paths give
    the same values, bit for bit."""
    if input.numel() < _SAVED_STATISTICS_MIN or not is_grad_enabled():
        return False
    return input.requires_grad or any(p is not None and p.requires_grad for p in params)


@checked(
    "rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor"
)
def rms_norm(
    input: Tensor,
    normalized_shape: Sequence[int] | int,
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """Divide by the root mean square over the last ``len(normalized_shape)`` dims (plus
    ``eps``, by default the machine epsilon of the computing dtype), then scale by
    ``weight``. Half and bfloat16 inputs are computed in float32, as PyTorch's.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.rms_norm(tc.tensor([[3.0, 4.0]]), (2,), eps=0.0)
    tensor([[0.8485, 1.1314]])
    """
    shape = _norm_shape(input, normalized_shape, "rms_norm")
    x = input.float() if input.dtype in (dt.float16, dt.bfloat16) else input
    if eps is None:
        eps = finfo(x.dtype).eps
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    out = (x * ops.rsqrt((x * x).mean(dims, keepdim=True) + eps)).to(input.dtype)
    return out * weight if weight is not None else out


def _channel_shape(input: Tensor) -> tuple[int, ...]:
    return (1, input.shape[1]) + (1,) * (input.ndim - 2)


@checked(
    "batch_norm(Tensor input, Tensor? running_mean, Tensor? running_var, "
    "Tensor? weight=None, Tensor? bias=None, bool training=False, "
    "float? momentum=0.1, float eps=1e-05) -> Tensor"
)
def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float | None = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel (dim 1) with the batch's statistics (``training``) or the
    running ones; in training, the running statistics are updated in place with
    ``momentum`` (the unbiased variance, as PyTorch). ``momentum=None`` keeps a cumulative
    average (the caller passes the factor as ``momentum``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([[1.0], [3.0]])
    >>> rm, rv = tc.zeros(1), tc.ones(1)
    >>> tc.nn.functional.batch_norm(x, rm, rv, training=True).flatten()
    tensor([-1.0000,  1.0000])
    >>> rm, rv
    (tensor([0.2000]), tensor([1.1000]))
    """
    if training and input.shape[0] * math.prod(input.shape[2:]) == 1:  # (PyTorch's check)
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {input.shape}"
        )
    if input.numel() == 0:
        # (PyTorch's: an empty input, 1-D too, gives an empty copy of itself, differentiable,
        # and leaves the running statistics as they are)
        return input.clone()
    if input.ndim < 2:
        raise IndexError(
            f"batch_norm(): Dimension out of range (expected to be in range of [-1, 0], but got "
            f"1): the input must have a channel dim (got {input.ndim}D input)"
        )
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):  # fmt: skip
        if t is not None and (tuple(t.shape) != (c,) or not t.is_floating_point()):
            raise RuntimeError(
                f"batch_norm(): expected {name} to be a floating tensor of shape [{c}] (one "
                f"value per channel of the input of shape {list(input.shape)}), got "
                f"{t.dtype.name} of shape {list(t.shape)}"
            )
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(
            "batch_norm(): running_mean and running_var must be given when not training"
        )
    m = 0.1 if momentum is None else momentum
    if training and _saves_statistics(input, weight, bias):
        native = ops.native_batch_norm
        return native(input, weight, bias, running_mean, running_var, training, m, eps)[0]
    return ops.batch_norm(input, weight, bias, running_mean, running_var, training, m, eps)


@checked(
    "group_norm(Tensor input, int num_groups, Tensor? weight=None, "
    "Tensor? bias=None, float eps=1e-05) -> Tensor"
)
def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise over groups of channels (and the spatial dims) of an (N, C, *) input."""
    if input.ndim < 2:
        raise RuntimeError(f"group_norm(): expected at least 2D input, got {input.ndim}D")
    n, c = input.shape[:2]
    if c % num_groups:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got "
            f"input of shape {list(input.shape)} and num_groups={num_groups}"
        )
    if n * c // num_groups * math.prod(input.shape[2:]) == 1:  # (PyTorch's check)
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size "
            f"{list(input.shape)}"
        )
    # One operator (its backward reads the (sample, group) statistics it returns); a
    # channels-last input keeps its format, and a 16-bit input with float32 parameters
    # (PyTorch's mixed type) is computed in float32 and returned in the input's dtype.
    hxw = math.prod(input.shape[2:])
    return ops.native_group_norm(input, weight, bias, n, c, hxw, num_groups, eps)[0]


@checked(
    "instance_norm(Tensor input, Tensor? running_mean=None, Tensor? running_var=None, "
    "Tensor? weight=None, Tensor? bias=None, bool use_input_stats=True, float momentum=0.1, "
    "float eps=1e-05) -> Tensor"
)
def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel of each sample over its spatial dims (batch normalisation of
    the (1, N * C, *) reshaped input, as PyTorch computes it); running statistics, when
    given, are updated with the mean over the batch.

    Examples
    --------
    >>> import tensorcore as tc
    >>> y = tc.nn.functional.instance_norm(tc.arange(8.0).reshape(1, 2, 4))
    >>> [round(v, 3) for v in y[0, 0].tolist()]
    [-1.342, -0.447, 0.447, 1.342]
    """
    if input.ndim < 3:
        raise ValueError(
            f"instance_norm(): expected an input of 3 or more dims (N, C, *), got "
            f"{list(input.shape)}"
        )
    n, c = input.shape[:2]
    x = input.reshape(1, n * c, *input.shape[2:])
    rm = running_mean.repeat(n) if running_mean is not None else None
    rv = running_var.repeat(n) if running_var is not None else None
    w = weight.repeat(n) if weight is not None else None
    b = bias.repeat(n) if bias is not None else None
    out = batch_norm(x, rm, rv, w, b, use_input_stats, momentum, eps)
    if use_input_stats:
        with no_grad():
            if running_mean is not None and rm is not None:
                running_mean.copy_(rm.reshape(n, c).mean(0))
            if running_var is not None and rv is not None:
                running_var.copy_(rv.reshape(n, c).mean(0))
    return out.reshape(input.shape)


@checked(
    "normalize(Tensor input, float p=2.0, int dim=1, float eps=1e-12, Tensor? out=None) -> Tensor"
)
def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None
) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.normalize(tc.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    norm = ops.vector_norm(input, float(p), (dim,), True).clamp(min=eps)
    res = input / norm
    if out is not None:
        return out.copy_(res)
    return res


# The operators tensorcore.cosine_similarity and tensorcore.pdist, as in PyTorch.
cosine_similarity = ops.cosine_similarity
pdist = ops.pdist


# ------------------------------------------------------------------ attention
@checked(
    "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
    "Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, "
    "float? scale=None, bool enable_gqa=False) -> Tensor"
)
def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """``softmax(Q K^T * scale + mask) V`` over the last two dims.

    ``attn_mask`` is a bool mask (True: take part) or a float mask added to the scores;
    ``is_causal`` masks the upper triangle (a query attends to keys at or before it).

    Examples
    --------
    >>> import tensorcore as tc
    >>> q = k = v = tc.eye(2).reshape(1, 2, 2)
    >>> tc.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    tensor([[[1.0000, 0.0000],
             [0.3302, 0.6698]]])
    """
    if is_causal and attn_mask is not None:
        raise RuntimeError("Explicit attn_mask should not be set when is_causal=True")
    if attn_mask is not None and attn_mask.dtype not in (dt.bool_, query.dtype):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {cpp_name(attn_mask.dtype)} and  query.dtype: "
            f"{cpp_name(query.dtype)} instead."
        )
    lq, lk = query.shape[-2], key.shape[-2]
    s = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa and key.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(rep, -3) if hasattr(key, "repeat_interleave") else key
        value = value.repeat_interleave(rep, -3) if hasattr(value, "repeat_interleave") else value
    # The scale goes on the smaller of the query (..., L, E) and the scores (..., L, S), as
    # PyTorch's math path scales before the product: one pass over fewer elements, forward
    # and backward; the same scores up to rounding (bit for bit for a power-of-two scale).
    if query.shape[-1] <= lk:
        scores = (query * s).matmul(key.transpose(-2, -1))
    else:
        scores = query.matmul(key.transpose(-2, -1)) * s
    # As PyTorch's math path: a mask is an additive bias of the scores (0 or -inf; a bool
    # or causal one made at the mask's size, which is the scores' only where it is given
    # whole), whose addition passes the gradient through, and ``_safe_softmax`` gives a
    # query masked from every key zero weights (not NaNs) without passes of its own.
    if is_causal:
        scores = scores + ops.full(
            (lq, lk), float("-inf"), dtype=scores.dtype, device=scores.device
        ).triu(1)
    elif attn_mask is not None:
        if attn_mask.dtype is dt.bool_:
            attn_mask = ops.zeros(
                attn_mask.shape, dtype=scores.dtype, device=scores.device
            ).masked_fill(attn_mask.logical_not(), float("-inf"))
        scores = scores + attn_mask
    weights = ops._safe_softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    return weights.matmul(value)
