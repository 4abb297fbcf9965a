"""Folding an eval-mode BatchNorm into the convolution or linear layer before it, as
``torch.nn.utils.fusion``: one layer computes what the pair did, for inference."""

from __future__ import annotations

import copy
from typing import TypeVar

from ..._tensor import Tensor
from ...ops import functions as ops
from ..modules.module import Module
from ..parameter import Parameter

__all__ = [
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
]

_M = TypeVar("_M", bound=Module)


def _check_eval(layer: Module, bn: Module) -> None:
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if getattr(bn, "running_mean", None) is None or getattr(bn, "running_var", None) is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")


def fuse_conv_bn_eval(conv: _M, bn: Module, transpose: bool = False) -> _M:
    """A new convolution that computes ``bn(conv(x))`` of the eval-mode pair: a deep copy
    of ``conv`` whose weight and bias have the batch norm's running statistics and affine
    parameters folded in (:func:`fuse_conv_bn_weights`). ``transpose=True`` for a
    transposed convolution (its output channels are the weight's second dimension).
    Raises AssertionError unless both modules are in eval mode.

    Examples
    --------
    >>> import tensorcore as tc
    >>> conv, bn = tc.nn.Conv2d(3, 4, 3).eval(), tc.nn.BatchNorm2d(4).eval()
    >>> bn.running_mean.fill_(0.5)
    tensor([0.5000, 0.5000, 0.5000, 0.5000])
    >>> fused = tc.nn.utils.fuse_conv_bn_eval(conv, bn)
    >>> x = tc.randn(1, 3, 5, 5)
    >>> tc.allclose(fused(x), bn(conv(x)), atol=1e-6)
    True
    """
    _check_eval(conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight,
        fused.bias,
        bn.running_mean,
        bn.running_var,
        bn.eps,
        bn.weight,
        bn.bias,
        transpose,
    )
    return fused


def fuse_conv_bn_weights(
    conv_w: Tensor,
    conv_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor | None,
    bn_b: Tensor | None,
    transpose: bool = False,
) -> tuple[Parameter, Parameter]:
    """The weight and bias of a convolution followed by an eval-mode batch norm, as one
    convolution's: each output channel's filter scaled by ``bn_w / sqrt(bn_rv + bn_eps)``
    and the bias ``(conv_b - bn_rm) * scale + bn_b`` (a missing bias counts as 0, a missing
    ``bn_w`` as 1). Returns two new Parameters, in the convolution's dtypes.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w, b = tc.nn.utils.fuse_conv_bn_weights(
    ...     tc.ones(2, 1, 1, 1), None, tc.zeros(2), tc.full((2,), 3.0), 1.0, None, None
    ... )
    >>> w.flatten().tolist(), b.tolist(), type(w).__name__
    ([0.5, 0.5], [0.0, 0.0], 'Parameter')
    """
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    if conv_b is None:
        conv_b = ops.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ops.ones_like(bn_rm)
    if bn_b is None:
        bn_b = ops.zeros_like(bn_rm)
    rsqrt = ops.rsqrt(bn_rv + bn_eps)
    rest = [1] * (conv_w.ndim - 2)
    shape = [1, -1, *rest] if transpose else [-1, 1, *rest]
    w = (conv_w * (bn_w * rsqrt).reshape(shape)).to(dtype=w_dtype)
    b = ((conv_b - bn_rm) * rsqrt * bn_w + bn_b).to(dtype=b_dtype)
    return Parameter(w, conv_w.requires_grad), Parameter(b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear: _M, bn: Module) -> _M:
    """A new linear layer that computes ``bn(linear(x))`` of the eval-mode pair (see
    :func:`fuse_linear_bn_weights`). The batch norm has ``linear.out_features`` features, or
    1 (broadcast). Raises AssertionError unless both are in eval mode.

    Examples
    --------
    >>> import tensorcore as tc
    >>> fc, bn = tc.nn.Linear(3, 2).eval(), tc.nn.BatchNorm1d(2).eval()
    >>> x = tc.randn(4, 3)
    >>> tc.allclose(tc.nn.utils.fuse_linear_bn_eval(fc, bn)(x), bn(fc(x)), atol=1e-6)
    True
    """
    _check_eval(linear, bn)
    out_features, features = linear.out_features, bn.num_features
    if out_features != features and features != 1:
        raise AssertionError(
            "To fuse, linear.out_features == bn.num_features or bn.num_features == 1, "
            f"got linear.out_features={out_features} and bn.num_features={features}"
        )
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    return fused


def fuse_linear_bn_weights(
    linear_w: Tensor,
    linear_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor,
    bn_b: Tensor,
) -> tuple[Parameter, Parameter]:
    """The weight and bias of a linear layer followed by an eval-mode batch norm, as one
    layer's: rows scaled by ``bn_w / sqrt(bn_rv + bn_eps)``, bias
    ``(linear_b - bn_rm) * scale + bn_b`` (a missing bias counts as 0). Returns two new
    Parameters, in the linear layer's dtypes.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w, b = tc.nn.utils.fuse_linear_bn_weights(
    ...     tc.ones(2, 2), tc.ones(2), tc.ones(2), tc.full((2,), 4.0), 0.0, tc.ones(2), tc.zeros(2)
    ... )
    >>> w.tolist(), b.tolist()
    ([[0.5, 0.5], [0.5, 0.5]], [0.0, 0.0])
    """
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    if linear_b is None:
        linear_b = ops.zeros_like(bn_rm)
    scale = bn_w * ops.rsqrt(bn_rv + bn_eps)
    w = linear_w * scale.unsqueeze(-1).to(dtype=w_dtype)
    b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=b_dtype)
    return Parameter(w, linear_w.requires_grad), Parameter(b, linear_b.requires_grad)
