"""The rules of the convolutions, ``embedding_bag`` and the pools, with their ``*_backward``
operators'.
"""

from __future__ import annotations

from typing import Any

from ..._memory_format import layer_format
from ..._tensor import Tensor
from ...layouts import contiguous_format
from .. import functions as ops
from ._table import _d, _zeros_of
from .activations import _nn_op


# ------------------------------------------------------------------ neural-network layers
def _grad_in(g: Tensor, fmt: Any) -> Tensor:
    """``g`` in the memory format ``fmt`` (None: row-major) where it suggests another, as
    PyTorch's backward kernels of the layers read ``grad_output``: the backward operators'
    input gradients follow it (``meta_nn.py``), so they come out in the forward input's
    format. A ``g`` that suggests ``fmt`` already (an expanded one too) goes on as it is."""
    if g.ndim != 4 and g.ndim != 5:
        return g
    if layer_format(g) is fmt:
        return g
    return g.contiguous(memory_format=fmt or contiguous_format)


def _convolution(c: Any, g: Tensor) -> tuple[Any, ...]:
    x, w = c.input, c.weight
    geo = (c.stride, c.padding, c.dilation, c.groups)
    g = _grad_in(g, layer_format(x, w))
    gx = gw = gb = None
    if c.transposed:
        # y = convolution_backward_input(x, w): its adjoints are the convolution itself (for
        # x) and the weight gradient with the roles of input and grad_output swapped.
        if c.needs(0):
            gx = ops.convolution(g, w, None, c.stride, c.padding, c.dilation, False, (0,), c.groups)
            # (an output_padding can give one more output along a dim: beyond x, unread)
            for d in range(2, gx.ndim):
                if gx._shape[d] != x._shape[d]:
                    gx = gx.narrow(d, 0, x._shape[d])
        if c.needs(1):
            gw = _transposed_weight_grad(c, x, g, w._shape)
    else:
        if c.needs(0):
            gx = ops.convolution_backward_input(g, w, x._shape, *geo)
        if c.needs(1):
            gw = ops.convolution_backward_weight(g, x, w._shape, *geo)
    if c.needs(2):
        gb = g.sum((0, *range(2, g.ndim)))
    return gx, gw, gb


_d("convolution", "input weight stride padding dilation transposed groups", _convolution)


def _transposed_weight_grad(c: Any, x: Tensor, g: Tensor, size: tuple[int, ...]) -> Tensor:
    """The weight gradient of a transposed convolution: the weight gradient of the plain one
    with ``x`` as its grad_output and ``g`` as its input. An ``output_padding`` can make ``g``
    longer than such a convolution reads with its symmetric padding; ``g`` is then padded with
    zeros (or cropped at its unread end) explicitly, to the length whose convolution has
    ``x``'s, and convolved without padding."""
    geo = (c.stride, c.padding, c.dilation)
    spatial = list(zip(range(2, g.ndim), *geo, strict=True))
    if all(
        (g._shape[d] + 2 * p - dil * (size[d] - 1) - 1) // s + 1 == x._shape[d]
        for d, s, p, dil in spatial
    ):
        return ops.convolution_backward_weight(x, g, size, *geo, c.groups)
    for d, s, p, dil in spatial:
        length = g._shape[d]
        right = (x._shape[d] - 1) * s + dil * (size[d] - 1) + 1 - p - length
        if right < 0:
            g, right = g.narrow(d, 0, length + right), 0
        parts = [g]
        for n, at in ((p, 0), (right, 1)):
            if n:
                shape = list(g._shape)
                shape[d] = n
                parts.insert(at * len(parts), ops.zeros(shape, dtype=g._dtype, device=g._device))
        g = ops.cat(parts, d) if len(parts) > 1 else g
    zero = [0] * (g.ndim - 2)
    return ops.convolution_backward_weight(x, g, size, c.stride, zero, c.dilation, c.groups)


# Both backward operators are bilinear; with F(x, w) the convolution,
# <G, B_in(gy, w)> = <F(G, w), gy> and <G, B_w(gy, x)> = <gy, F(x, G)>.
def _convolution_backward_input(c: Any, gg: Tensor) -> tuple[Any, ...]:
    geo = (c.stride, c.padding, c.dilation, c.groups)
    g_gy = g_w = None
    if c.needs(0):
        g_gy = ops.convolution(
            gg, c.weight, None, c.stride, c.padding, c.dilation, False, (0,), c.groups
        )
    if c.needs(1):
        g_w = ops.convolution_backward_weight(c.grad_output, gg, c.weight._shape, *geo)
    return g_gy, g_w


def _convolution_backward_weight(c: Any, gg: Tensor) -> tuple[Any, ...]:
    geo = (c.stride, c.padding, c.dilation, c.groups)
    g_gy = g_x = None
    if c.needs(0):
        g_gy = ops.convolution(
            c.input, gg, None, c.stride, c.padding, c.dilation, False, (0,), c.groups
        )
    if c.needs(1):
        g_x = ops.convolution_backward_input(c.grad_output, gg, c.input._shape, *geo)
    return g_gy, g_x


_d(
    "convolution_backward_input",
    "grad_output:if=weight weight stride padding dilation groups",
    _convolution_backward_input,
)
_d(
    "convolution_backward_weight",
    "grad_output:if=input input stride padding dilation groups",
    _convolution_backward_weight,
)


def _gather_pooled(gg: Tensor, indices: Tensor) -> Tensor:
    """``gg`` (N, C, H, W) read at the pooled positions ``indices`` (N, C, h, w)."""
    n, ch = indices._shape[:2]
    picked = gg.reshape(n, ch, -1).gather(2, indices.reshape(n, ch, -1))
    return picked.reshape(indices._shape)


def _bag_rows_kept(indices: Tensor, offset2bag: Tensor, padding_idx: int) -> Tensor:
    """Which looked-up rows an ``_embedding_bag`` reduced: those in a bag, not padding."""
    keep = offset2bag >= 0
    return keep & (indices != padding_idx) if padding_idx >= 0 else keep


def _embedding_bag(c: Any, grads: Any) -> tuple[Any, ...]:
    g = grads[0]
    gw = gp = None
    if c.needs(0):
        gw = _nn_op(
            "_embedding_bag_dense_backward",
            g,
            c.indices,
            c.result1,
            c.result2,
            c.result3,
            c.weight._shape[0],
            c.scale_grad_by_freq,
            c.mode,
            c.per_sample_weights,
            c.padding_idx,
        )
    if c.needs(3):
        # Each weight scales its row's contribution to its bag's sum: the row dotted with
        # the bag's gradient (zero for a row left out).
        keep = _bag_rows_kept(c.indices, c.result1, c.padding_idx)
        if g._shape[0]:
            bag = c.result1.clamp(min=0)
            rows = c.weight.index_select(0, c.indices) * g.index_select(0, bag)
            gp = rows.sum(1) * keep
        else:
            gp = ops.zeros_like(c.per_sample_weights)
    return gw, None, None, gp


_d(
    "_embedding_bag",
    "weight indices scale_grad_by_freq mode per_sample_weights padding_idx result1 result2 result3",
    _embedding_bag,
)


def _embedding_bag_dense_backward(c: Any, gg: Tensor) -> tuple[Any, ...]:
    # Linear in grad (and in per_sample_weights): its adjoint reads gg at the rows each bag
    # reduced, as the forward reads the weight, with the same scales.
    if c.scale_grad_by_freq:
        counts = ops.bincount(c.indices, minlength=c.num_weights)
        gg = gg / counts.clamp(min=1).to(gg.dtype).unsqueeze(1)
    dg = dp = None
    if c.mode == 2:
        if c.needs(0):
            mi = c.maximum_indices
            dg = ops.where(mi >= 0, gg.gather(0, mi.clamp(min=0)), 0.0)
        return dg, None, None, None, None, None
    keep = _bag_rows_kept(c.indices, c.offset2bag, c.padding_idx)
    bag = c.offset2bag.clamp(min=0)
    picked = gg.index_select(0, c.indices)
    if c.needs(0):
        scale = keep.to(gg.dtype)
        if c.mode == 1:
            scale = scale / c.bag_size.clamp(min=1).to(gg.dtype).index_select(0, bag)
        elif c.per_sample_weights is not None:
            scale = scale * c.per_sample_weights
        dg = ops.zeros(
            c.bag_size._shape[0], gg._shape[1], dtype=gg.dtype, device=gg.device
        ).index_add(0, bag, picked * scale.unsqueeze(1))
    if c.needs(5) and c.grad._shape[0]:
        dp = (picked * c.grad.index_select(0, bag)).sum(1) * keep
    return dg, None, None, None, None, dp


_d(
    "_embedding_bag_dense_backward",
    "grad indices offset2bag bag_size maximum_indices num_weights scale_grad_by_freq mode "
    "per_sample_weights padding_idx",
    _embedding_bag_dense_backward,
)


# The pools save ``self`` whole, as PyTorch's: their backward operators take it, so that a
# double backward reaches it (with zeros: they are linear in grad_output and do not read
# self's values).
_d(
    "max_pool2d_with_indices",
    "self kernel_size stride padding dilation ceil_mode result1",
    lambda c, g: (
        ops.max_pool2d_with_indices_backward(
            _grad_in(g[0], layer_format(c.self)),
            c.self,
            c.kernel_size,
            c.stride,
            c.padding,
            c.dilation,
            c.ceil_mode,
            c.result1,
        ),
    ),
)
# Linear in grad_output; its adjoint reads the gradient at the pooled positions.
_d(
    "max_pool2d_with_indices_backward",
    "self:spec indices",
    lambda c, gg: (
        _gather_pooled(gg, c.indices) if c.needs(0) else None,
        _zeros_of(c.self) if c.needs(1) else None,
        None,
    ),
)
_d(
    "avg_pool2d",
    "self kernel_size stride padding ceil_mode count_include_pad divisor_override",
    lambda c, g: (
        ops.avg_pool2d_backward(
            _grad_in(g, layer_format(c.self)),
            c.self,
            c.kernel_size,
            c.stride,
            c.padding,
            c.ceil_mode,
            c.count_include_pad,
            c.divisor_override,
        ),
    ),
)
# Linear in grad_output, and self-adjoint up to the roles: its adjoint is avg_pool2d.
_d(
    "avg_pool2d_backward",
    "self:spec kernel_size stride padding ceil_mode count_include_pad divisor_override",
    lambda c, gg: (
        ops.avg_pool2d(
            gg,
            c.kernel_size,
            c.stride,
            c.padding,
            c.ceil_mode,
            c.count_include_pad,
            c.divisor_override,
        )
        if c.needs(0)
        else None,
        _zeros_of(c.self) if c.needs(1) else None,
    ),
)
