"""Max unpooling of ``tensorcore.nn.functional`` (``max_unpool1d``, ``max_unpool2d``): the
inverse of max pooling with ``return_indices=True``, as SegNet-style decoders use it. Each
value goes back to the position its index names in a zero map (one ``scatter``, so every
backend runs it and autograd gathers the gradient back)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._memory_format import layer_format
from .._tensor import Tensor
from ..amp.autocast_mode import fp32_function
from ..ops import functions as ops
from ..ops._validate import checked
from ._conv import _tuple

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _output_size(
    input: Tensor,
    kernel: tuple[int, ...],
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    output_size: Sequence[int] | None,
) -> list[int]:
    """PyTorch's ``_unpool_output_size``: the pooled input's size by default, or
    ``output_size`` (with or without its batch and channel dims) within a stride of it."""
    n = len(kernel)
    default = [(input.shape[-n + d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return default
    size = list(output_size)
    if len(size) == n + 2:
        size = size[2:]
    if len(size) != n:
        raise ValueError(
            f"output_size should be a sequence containing {n} or {n + 2} elements, but it has "
            f"a length of '{len(size)}'"
        )
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < size[d] < hi:
            raise ValueError(
                f'invalid output_size "{size}" (dim {d} must be between {lo} and {hi})'
            )
    return size


def _unpool(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    output_size: Any,
    nd: int,
    fn: str,
) -> Tensor:
    kernel = _tuple(kernel_size, nd, "kernel_size")
    strides = _tuple(stride, nd, "stride") if stride is not None else kernel
    pads = _tuple(padding, nd, "padding")
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{fn}(): Expected {nd + 1}D or {nd + 2}D input, but got input of size "
            f"{list(input.shape)}"
        )
    if indices.shape != input.shape:
        raise RuntimeError(
            f"Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}"
        )
    size = _output_size(input, kernel, strides, pads, output_size)
    lead = tuple(input.shape[:-nd])
    flat_in = input.reshape(*lead, -1)
    numel = 1
    for s in size:
        numel *= s
    if indices.numel() and (int(indices.min()) < 0 or int(indices.max()) >= numel):
        raise RuntimeError(
            f"Found an invalid max index: {int(indices.max())} (output volumes are of size "
            f"{'x'.join(map(str, size))}"
        )
    out = ops.zeros((*lead, numel), dtype=input.dtype, device=input.device)
    out = out.scatter(-1, indices.reshape(*lead, -1), flat_in)
    return out.reshape(*lead, *size)


@checked(
    "max_unpool2d(Tensor input, Tensor indices, Any kernel_size, Any stride=None, "
    "Any padding=0, Any output_size=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def max_unpool2d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """Put each value of (N, C, H, W) ``input`` back where ``indices`` (from
    ``max_pool2d(..., return_indices=True)``) says, in a zero map of the unpooled size.

    Examples
    --------
    >>> import tensorcore as tc
    >>> F = tc.nn.functional
    >>> x = tc.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> out, idx = F.max_pool2d(x, 2, return_indices=True)
    >>> F.max_unpool2d(out, idx, 2)
    tensor([[[[0., 0.],
              [0., 4.]]]])
    """
    out = _unpool(input, indices, kernel_size, stride, padding, output_size, 2, "max_unpool2d")
    fmt = layer_format(input) if input.ndim == 4 else None
    # (a channels-last input gives a channels-last map, as PyTorch's)
    return out if fmt is None else out.contiguous(memory_format=fmt)


@checked(
    "max_unpool1d(Tensor input, Tensor indices, Any kernel_size, Any stride=None, "
    "Any padding=0, Any output_size=None) -> Tensor"
)
def max_unpool1d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """The 1-D :func:`max_unpool2d`, for (N, C, L) or (C, L) inputs.

    Examples
    --------
    >>> import tensorcore as tc
    >>> F = tc.nn.functional
    >>> out, idx = F.max_pool1d(tc.tensor([[[1.0, 5.0, 2.0, 0.0]]]), 2, return_indices=True)
    >>> F.max_unpool1d(out, idx, 2)
    tensor([[[0., 5., 2., 0.]]])
    """
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 1, "max_unpool1d")


@checked(
    "max_unpool3d(Tensor input, Tensor indices, Any kernel_size, Any stride=None, "
    "Any padding=0, Any output_size=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def max_unpool3d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """The 3-D :func:`max_unpool2d`, for (N, C, D, H, W) or (C, D, H, W) inputs.

    Examples
    --------
    >>> import tensorcore as tc
    >>> F = tc.nn.functional
    >>> x = tc.arange(8.0).reshape(1, 1, 2, 2, 2)
    >>> out, idx = F.max_pool3d(x, 2, return_indices=True)
    >>> F.max_unpool3d(out, idx, 2).reshape(-1).tolist()
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0]
    """
    return _unpool(input, indices, kernel_size, stride, padding, output_size, 3, "max_unpool3d")
