"""Folding a batch norm in evaluation mode into the convolution or linear layer before it,
as ``torch.nn.utils.fusion``: one layer computes what the pair did, for inference.

``bn(conv(x))`` in eval mode is ``conv(x) * s + t`` per output channel, with
``s = gamma / sqrt(running_var + eps)`` and ``t = beta - running_mean * s``: the fused layer's
weight is the convolution's scaled by ``s`` along its output channels, its bias
``(b - running_mean) * s + beta``.
"""

from __future__ import annotations

import copy
from typing import Any

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops import functions as ops
from ..parameter import Parameter

__all__ = [
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
]


def _bn_stats(bn: Any) -> tuple[Tensor, Tensor]:
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("the batch norm must track running statistics to be fused")
    return bn.running_mean, bn.running_var


def fuse_conv_bn_eval(conv: Any, bn: Any, transpose: bool = False) -> Any:
    """A copy of ``conv`` that computes ``bn(conv(x))`` (both in eval mode); ``transpose``
    for a transposed convolution (output channels on the weight's second dim).

    Examples
    --------
    >>> import tensorcore as tc
    >>> conv, bn = tc.nn.Conv2d(2, 3, 3).eval(), tc.nn.BatchNorm2d(3).eval()
    >>> bn.running_mean.uniform_(); bn.running_var.uniform_(1, 2)
    tensor(...)
    >>> fused = tc.nn.utils.fuse_conv_bn_eval(conv, bn)
    >>> x = tc.randn(1, 2, 5, 5)
    >>> tc.allclose(fused(x), bn(conv(x)), atol=1e-6)
    True
    """
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    mean, var = _bn_stats(bn)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, mean, var, bn.eps, bn.weight, bn.bias, transpose
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
    """The fused ``(weight, bias)`` parameters of a convolution followed by a batch norm in
    eval mode (a missing bias, or affine weight or bias, counts as 0, 1 and 0), in the
    convolution's dtypes."""
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    with no_grad():
        b = conv_b if conv_b is not None else ops.zeros_like(bn_rm)
        gamma = bn_w if bn_w is not None else ops.ones_like(bn_rm)
        beta = bn_b if bn_b is not None else ops.zeros_like(bn_rm)
        scale = gamma * ops.rsqrt(bn_rv + bn_eps)
        shape = [1, -1] if transpose else [-1, 1]
        shape += [1] * (conv_w.ndim - 2)
        weight = (conv_w * scale.reshape(shape)).to(w_dtype)
        bias = ((b - bn_rm) * scale + beta).to(b_dtype)
    return (
        Parameter(weight, conv_w.requires_grad),
        Parameter(bias, conv_b.requires_grad if conv_b is not None else True),
    )


def fuse_linear_bn_eval(linear: Any, bn: Any) -> Any:
    """A copy of ``linear`` that computes ``bn(linear(x))`` (both in eval mode); the batch
    norm has ``linear.out_features`` features, or one that is broadcast.

    Examples
    --------
    >>> import tensorcore as tc
    >>> lin, bn = tc.nn.Linear(4, 3).eval(), tc.nn.BatchNorm1d(3).eval()
    >>> fused = tc.nn.utils.fuse_linear_bn_eval(lin, bn)
    >>> x = tc.randn(2, 4)
    >>> tc.allclose(fused(x), bn(lin(x)), atol=1e-6)
    True
    """
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if not (linear.out_features == bn.num_features or bn.num_features == 1):
        raise AssertionError(
            "To fuse, linear.out_features must equal bn.num_features or bn.num_features must be 1"
        )
    fused = copy.deepcopy(linear)
    mean, var = _bn_stats(bn)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, mean, var, bn.eps, bn.weight, bn.bias
    )
    return fused


def fuse_linear_bn_weights(
    linear_w: Tensor,
    linear_b: Tensor | None,
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Tensor | None,
    bn_b: Tensor | None,
) -> tuple[Parameter, Parameter]:
    """The fused ``(weight, bias)`` parameters of a linear layer followed by a batch norm
    in eval mode (a missing bias, or affine weight or bias, counts as 0, 1 and 0)."""
    with no_grad():
        b = linear_b if linear_b is not None else ops.zeros_like(bn_rm)
        gamma = bn_w if bn_w is not None else ops.ones_like(bn_rm)
        beta = bn_b if bn_b is not None else ops.zeros_like(bn_rm)
        scale = gamma * ops.rsqrt(bn_rv + bn_eps)
        weight = linear_w * scale.unsqueeze(-1)
        bias = (b - bn_rm) * scale + beta
    return (
        Parameter(weight, linear_w.requires_grad),
        Parameter(bias, linear_b.requires_grad if linear_b is not None else True),
    )
