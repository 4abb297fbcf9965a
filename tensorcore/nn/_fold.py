"""``unfold`` (im2col) and ``fold`` (col2im): sliding blocks of a batch of images, as
``torch.nn.functional.unfold``/``fold``. ``unfold`` takes strided window views of the padded
input (one copy, into the column layout); ``fold`` sums the columns back with one
``index_add`` over precomputed flat positions, so neither loops over output pixels."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..ops import functions as ops
from ..ops._validate import checked
from ..ops.frontends import named_as
from ._conv import pad as _pad

__all__ = ["fold", "unfold"]


def _pair(v: Any) -> tuple[int, int]:
    if isinstance(v, int):
        return (v, v)
    t = tuple(v)
    return (t[0], t[0]) if len(t) == 1 else (t[0], t[1])


def _blocks(
    size: tuple[int, int],
    k: tuple[int, int],
    dil: tuple[int, int],
    pad: tuple[int, int],
    st: tuple[int, int],
) -> tuple[int, int]:
    out = tuple((size[i] + 2 * pad[i] - dil[i] * (k[i] - 1) - 1) // st[i] + 1 for i in (0, 1))
    if min(out) < 1:
        raise RuntimeError(
            f"Given input with spatial size {size}, kernel_size={k}, dilation={dil}, "
            f"padding={pad}, calculated shape of the array of sliding blocks as {out}, but its "
            "components must be at least one."
        )
    return out[0], out[1]


@checked(
    "unfold(Tensor input, Any kernel_size, Any dilation=1, Any padding=0, Any stride=1) -> Tensor"
)
def unfold(
    input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Tensor:
    """Sliding ``kernel_size`` blocks of ``(N, C, H, W)`` (or ``(C, H, W)``) as columns:
    ``(N, C * kh * kw, L)``, ``L`` the number of blocks, channels major then kernel rows.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.unfold(tc.arange(9.0).reshape(1, 1, 3, 3), 2)
    tensor([[[0., 1., 3., 4.],
             [1., 2., 4., 5.],
             [3., 4., 6., 7.],
             [4., 5., 7., 8.]]])
    """
    if input.ndim not in (3, 4):
        raise NotImplementedError(
            f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)"
        )
    x = input if input.ndim == 4 else input.unsqueeze(0)
    k, dil, pad, st = _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    n, c, h, w = x.shape
    oh, ow = _blocks((h, w), k, dil, pad, st)
    if pad != (0, 0):
        x = _pad(x, [pad[1], pad[1], pad[0], pad[0]])
    span = (dil[0] * (k[0] - 1) + 1, dil[1] * (k[1] - 1) + 1)
    # (N, C, oh, ow, span_h, span_w) window views; the dilation keeps every dil-th element.
    win = x.unfold(2, span[0], st[0]).unfold(3, span[1], st[1])[..., :: dil[0], :: dil[1]]
    win = win[:, :, :oh, :ow]
    cols = win.permute(0, 1, 4, 5, 2, 3).reshape(n, c * k[0] * k[1], oh * ow)
    return named_as(cols if input.ndim == 4 else cols.squeeze(0), "Im2ColBackward0")


@checked(
    "fold(Tensor input, Any output_size, Any kernel_size, Any dilation=1, Any padding=0, "
    "Any stride=1) -> Tensor"
)
def fold(
    input: Tensor,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """Sum columns ``(N, C * kh * kw, L)`` (or ``(C * kh * kw, L)``) back into images
    ``(N, C, H, W)``, ``(H, W) = output_size``: the adjoint of :func:`unfold` (overlapping
    blocks add up).

    Examples
    --------
    >>> import tensorcore as tc
    >>> F = tc.nn.functional
    >>> F.fold(F.unfold(tc.ones(1, 1, 3, 3), 2), (3, 3), 2)
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """
    if input.ndim not in (2, 3) or (input.numel() == 0 and input.shape[-1] == 0):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {list(input.shape)}"
        )
    cols = input if input.ndim == 3 else input.unsqueeze(0)
    size, k = _pair(output_size), _pair(kernel_size)
    dil, pad, st = _pair(dilation), _pair(padding), _pair(stride)
    n, ck, blocks = cols.shape
    if ck % (k[0] * k[1]):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={ck} and kernel_size={k}."
        )
    oh, ow = _blocks(size, k, dil, pad, st)
    if blocks != oh * ow:
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={k}, dilation={dil}, padding={pad}, "
            f"stride={st}, expected size of input's dimension 2 to match the calculated number "
            f"of sliding blocks {oh} * {ow} = {oh * ow}, but got input.size(2)={blocks}."
        )
    c = ck // (k[0] * k[1])
    hp, wp = size[0] + 2 * pad[0], size[1] + 2 * pad[1]
    dev = cols.device

    def axis(kn: int, d: int, on: int, s: int) -> Tensor:  # (k, out) padded coordinates
        return (ops.arange(kn, device=dev) * d).unsqueeze(1) + ops.arange(on, device=dev) * s

    rows, cols_ = axis(k[0], dil[0], oh, st[0]), axis(k[1], dil[1], ow, st[1])
    # flat[i, j, a, b] = position of kernel element (i, j) of block (a, b) in the canvas
    flat = rows[:, None, :, None] * wp + cols_[None, :, None, :]
    canvas = ops.zeros(n, c, hp * wp, dtype=cols.dtype, device=dev)
    out = canvas.index_add(2, flat.reshape(-1), cols.reshape(n, c, -1))
    out = out.reshape(n, c, hp, wp)[:, :, pad[0] : pad[0] + size[0], pad[1] : pad[1] + size[1]]
    return named_as(out if input.ndim == 3 else out.squeeze(0), "Col2ImBackward0")
