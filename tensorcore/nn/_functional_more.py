"""``nn.functional`` names PyTorch programs call beyond the everyday ones: alpha dropout
(the SELU-preserving kind), ``bilinear``, the ``*_with_indices`` forms of max pooling, and
the deprecated ``upsample*`` (which warn and call :func:`interpolate`)."""

from __future__ import annotations

import math
import warnings
from typing import Any

from .._tensor import Tensor
from ..amp.autocast_mode import autocast
from ..ops import functions as ops
from ..ops._validate import checked
from ._conv import adaptive_max_pool2d, max_pool1d, max_pool2d
from ._pooling import adaptive_max_pool1d, adaptive_max_pool3d, max_pool3d
from ._sampling import interpolate

__all__ = [
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices",
    "alpha_dropout",
    "bilinear",
    "feature_alpha_dropout",
    "max_pool1d_with_indices",
    "max_pool2d_with_indices",
    "max_pool3d_with_indices",
    "upsample",
    "upsample_bilinear",
    "upsample_nearest",
]

#: SELU's ``-scale * alpha``: the value a dropped unit takes, before the affine correction.
_SELU_NEGATIVE = 1.7580993408473766


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return input.mul_(0) if inplace else input * 0
    if feature:
        if input.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    else:
        shape = tuple(input.shape)
    keep = ops.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1.0 - p)
    # Dropped units take SELU's saturation value, then an affine map keeps the mean and
    # variance of a unit-normal input (Klambauer et al., 2017).
    a = 1.0 / math.sqrt((_SELU_NEGATIVE**2 * p + 1) * (1 - p))
    b = (keep - 1) * (_SELU_NEGATIVE * a) + _SELU_NEGATIVE * a * p
    out = input * (keep * a) + b
    return input.copy_(out) if inplace else out


@checked(
    "alpha_dropout(Tensor input, float p=0.5, bool training=False, bool inplace=False) -> Tensor"
)
def alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Alpha dropout: each element is set to SELU's negative saturation value with
    probability ``p``, then the whole is scaled and shifted so that a zero-mean, unit-variance
    input keeps its mean and variance. The identity unless ``training``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.randn(20000)
    >>> y = tc.nn.functional.alpha_dropout(x, 0.2, training=True)
    >>> abs(float(y.mean())) < 0.05, abs(float(y.std()) - 1) < 0.05
    (True, True)
    """
    return _alpha_dropout(input, p, training, inplace, feature=False)


@checked(
    "feature_alpha_dropout(Tensor input, float p=0.5, bool training=False, "
    "bool inplace=False) -> Tensor"
)
def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """:func:`alpha_dropout` of whole channels (dim 1 of an input of at least 2 dims).

    Examples
    --------
    >>> import tensorcore as tc
    >>> y = tc.nn.functional.feature_alpha_dropout(tc.ones(2, 8, 3), 0.5, training=True)
    >>> bool((y == y[:, :, :1]).all())
    True
    """
    return _alpha_dropout(input, p, training, inplace, feature=True)


@checked("bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor")
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.bilinear(tc.ones(2, 3), tc.ones(2, 4), tc.ones(5, 3, 4)).shape
    tensorcore.Size([2, 5])
    """
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be 3-D, got {weight.ndim}-D")
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(
            "bilinear(): input batch dimensions do not match: got "
            f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}"
        )
    if input1.shape[-1] != weight.shape[1] or input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(
            f"bilinear(): input sizes {input1.shape[-1]} and {input2.shape[-1]} do not match "
            f"the weight's {weight.shape[1]} and {weight.shape[2]}"
        )
    # (PyTorch's bilinear is on no autocast list: the einsum runs in the inputs' dtype)
    with autocast(input1.device.type, enabled=False):
        out = ops.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias


_POOL_SIG = (
    "int[] kernel_size, int[]? stride=None, int[] padding=0, int[] dilation=1, "
    "bool ceil_mode=False, bool return_indices=False) -> Any"
)


@checked(f"max_pool1d_with_indices(Tensor input, {_POOL_SIG}")
def max_pool1d_with_indices(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """:func:`max_pool1d` returning ``(values, indices)`` whatever ``return_indices``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> F = tc.nn.functional
    >>> F.max_pool1d_with_indices(tc.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)[1]
    tensor([[[1, 2]]])
    """
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


@checked(f"max_pool2d_with_indices(Tensor input, {_POOL_SIG}")
def max_pool2d_with_indices(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """:func:`max_pool2d` returning ``(values, indices)`` whatever ``return_indices``."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


@checked(f"max_pool3d_with_indices(Tensor input, {_POOL_SIG}")
def max_pool3d_with_indices(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """:func:`max_pool3d` returning ``(values, indices)`` whatever ``return_indices``."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _deprecated(name: str) -> None:
    warnings.warn(
        f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=4,
    )


@checked(
    "upsample(Tensor input, Any size=None, Any scale_factor=None, str mode='nearest', "
    "bool? align_corners=None) -> Tensor"
)
def upsample(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Tensor:
    """Deprecated: warns, then :func:`interpolate`."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


@checked("upsample_nearest(Tensor input, Any size=None, Any scale_factor=None) -> Tensor")
def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Deprecated: warns, then :func:`interpolate` with ``mode="nearest"``."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


@checked("upsample_bilinear(Tensor input, Any size=None, Any scale_factor=None) -> Tensor")
def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Deprecated: warns, then :func:`interpolate` with ``mode="bilinear"`` and
    ``align_corners=True``."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


@checked(
    "adaptive_max_pool1d_with_indices(Tensor input, Any output_size, "
    "bool return_indices=False) -> Any"
)
def adaptive_max_pool1d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> Any:
    """:func:`adaptive_max_pool1d` returning ``(values, indices)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> F = tc.nn.functional
    >>> F.adaptive_max_pool1d_with_indices(tc.tensor([[1.0, 5.0, 2.0, 4.0, 3.0]]), 2)[1]
    tensor([[1, 3]])
    """
    return adaptive_max_pool1d(input, output_size, True)


@checked(
    "adaptive_max_pool2d_with_indices(Tensor input, Any output_size, "
    "bool return_indices=False) -> Any"
)
def adaptive_max_pool2d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> Any:
    """:func:`adaptive_max_pool2d` returning ``(values, indices)``."""
    return adaptive_max_pool2d(input, output_size, True)


@checked(
    "adaptive_max_pool3d_with_indices(Tensor input, Any output_size, "
    "bool return_indices=False) -> Any"
)
def adaptive_max_pool3d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> Any:
    """:func:`adaptive_max_pool3d` returning ``(values, indices)``."""
    return adaptive_max_pool3d(input, output_size, True)
