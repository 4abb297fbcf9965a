"""``torch.nn.grad``: the gradients of a convolution with respect to its input and to its
weight, given the gradient of its output (each through autograd of the convolution itself,
so they match its backward and are differentiable in turn).

Examples
--------
>>> import tensorcore as tc
>>> w = tc.ones(1, 1, 2)
>>> tc.nn.grad.conv1d_input((1, 1, 4), w, tc.ones(1, 1, 3))
tensor([[[1., 2., 2., 1.]]])
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..autograd import grad as autograd_grad
from ..autograd.grad_mode import enable_grad
from ..ops import functions as ops

__all__ = [
    "conv1d_input",
    "conv1d_weight",
    "conv2d_input",
    "conv2d_weight",
    "conv3d_input",
    "conv3d_weight",
]


def _conv(nd: int) -> Any:
    from . import functional as F

    return getattr(F, f"conv{nd}d")


def _input_grad(
    nd: int, input_size: Any, weight: Tensor, grad_output: Tensor, *conv_args: Any
) -> Tensor:
    x = ops.zeros(tuple(input_size), dtype=grad_output.dtype, device=grad_output.device)
    with enable_grad():
        x.requires_grad_()
        y = _conv(nd)(x, weight, None, *conv_args)
        (g,) = autograd_grad(y, x, grad_output, create_graph=grad_output.requires_grad)
    assert g is not None
    return g


def _weight_grad(
    nd: int, input: Tensor, weight_size: Any, grad_output: Tensor, *conv_args: Any
) -> Tensor:
    w = ops.zeros(tuple(weight_size), dtype=input.dtype, device=input.device)
    with enable_grad():
        w.requires_grad_()
        y = _conv(nd)(input, w, None, *conv_args)
        create = input.requires_grad or grad_output.requires_grad
        (g,) = autograd_grad(y, w, grad_output, create_graph=create)
    assert g is not None
    return g


def conv1d_input(
    input_size: Any,
    weight: Tensor,
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv1d`` with respect to an input of size ``input_size``."""
    return _input_grad(1, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(
    input: Tensor,
    weight_size: Any,
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv1d`` with respect to a weight of size ``weight_size``."""
    return _weight_grad(1, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(
    input_size: Any,
    weight: Tensor,
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv2d`` with respect to an input of size ``input_size``."""
    return _input_grad(2, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(
    input: Tensor,
    weight_size: Any,
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv2d`` with respect to a weight of size ``weight_size``."""
    return _weight_grad(2, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(
    input_size: Any,
    weight: Tensor,
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv3d`` with respect to an input of size ``input_size``."""
    return _input_grad(3, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(
    input: Tensor,
    weight_size: Any,
    grad_output: Tensor,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """The gradient of ``conv3d`` with respect to a weight of size ``weight_size``."""
    return _weight_grad(3, input, weight_size, grad_output, stride, padding, dilation, groups)
