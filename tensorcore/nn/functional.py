"""Functional neural-network operations: ``import tensorcore.nn.functional as F``.

Each is written with tensorcore operators (the convolutions and pooling are declared
operators with their own kernels and backward operators), so it runs on every backend that
provides those operators and is differentiable. Names, arguments and defaults are PyTorch's.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

from .. import dtypes as dt
from .._tensor import Tensor, cpp_name
from ..amp.autocast_mode import fp32_function
from ..ops import functions as ops
from ..ops._validate import checked
from ..ops.frontends import named_as
from ..overrides import (  # noqa: F401 (PyTorch's functional module offers them too)
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
)
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
from ._embedding import embedding, embedding_bag, one_hot
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
from ._normalization import (
    batch_norm,
    group_norm,
    instance_norm,
    layer_norm,
    normalize,
    rms_norm,
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
