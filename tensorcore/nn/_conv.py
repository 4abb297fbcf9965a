"""Convolution, pooling, padding and resizing functions of ``tensorcore.nn.functional``.

The convolutions and the 2-D pools call the declared operators ``convolution``,
``max_pool2d_with_indices`` and ``avg_pool2d`` (which have kernels and backward operators);
the 1-D forms add a dim of size 1; padding composes indexing operators. Resizing and
spatial sampling live in ``_sampling.py``.
"""

from __future__ import annotations

import math
from typing import Any

from .. import dtypes as dt
from .._memory_format import layer_format
from .._tensor import Tensor, torch_name
from ..ops import functions as ops
from ..ops._padding import pad
from ..ops._validate import checked
from ..ops.factories import tensor as _tensor
from ..ops.frontends import named_as

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "max_pool1d",
    "max_pool2d",
    "pad",
]


def _tuple(v: Any, n: int, name: str) -> tuple[int, ...]:
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,) * n
    t = tuple(v)
    if len(t) == 1:
        return t * n
    if len(t) != n or not all(isinstance(x, int) for x in t):
        raise ValueError(f"{name} must be an int or a sequence of {n} ints, got {v!r}")
    return t


def _batched(input: Tensor, nd: int, fn: str) -> tuple[Tensor, bool]:
    """``input`` with a batch dim (an unbatched (C, *spatial) input gets one)."""
    if input.ndim == nd + 1:
        return input.unsqueeze(0), True
    if input.ndim != nd + 2:
        raise RuntimeError(
            f"{fn}(): expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input, but got "
            f"input of size: {list(input.shape)}"
        )
    return input, False


def _conv(
    nd: int,
    fn: str,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    dilation: Any,
    groups: int,
) -> Tensor:
    x, unbatched = _batched(input, nd, fn)
    st = _tuple(stride, nd, "stride")
    dil = _tuple(dilation, nd, "dilation")
    if isinstance(padding, str):
        if padding == "valid":
            pad_lo = pad_hi = (0,) * nd
        elif padding == "same":
            if any(s != 1 for s in st):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            if weight.ndim != x.ndim:
                raise RuntimeError(
                    f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional "
                    f"weight{list(weight.shape)}, but got {input.ndim}-dimensional input of "
                    f"size {list(input.shape)} instead"
                )
            total = [dil[i] * (weight.shape[2 + i] - 1) for i in range(nd)]
            pad_lo = tuple(t // 2 for t in total)
            pad_hi = tuple(t - t // 2 for t in total)
        else:
            raise RuntimeError(f"Invalid padding string: {padding!r}")
        if pad_lo != pad_hi:
            # An odd total: PyTorch pads the extra element on the right.
            extra: list[int] = []
            for i in reversed(range(nd)):
                extra += [0, pad_hi[i] - pad_lo[i]]
            x = pad(x, extra)
        p = pad_lo
    else:
        p = _tuple(padding, nd, "padding")
    out = _convolution(x, weight, bias, st, p, dil, False, (0,), groups)
    return out.squeeze(0) if unbatched else out


def _convolution(x: Tensor, weight: Tensor, bias: Tensor | None, *geometry: Any) -> Tensor:
    """The ``convolution`` operator; complex operands (of one dtype) through three real
    convolutions, as PyTorch computes them (Gauss's product: with ``a = conv(xr, wr)``,
    ``b = conv(xi, wi)``, ``c = conv(xr + xi, wr + wi)``, the result is ``a - b + (c - a - b)j``),
    so that their gradients follow from the real ones."""
    if x._dtype._category != dt.COMPLEX or weight._dtype is not x._dtype:
        return ops.convolution(x, weight, bias, *geometry)
    xr, xi, wr, wi = x.real, x.imag, weight.real, weight.imag
    a = ops.convolution(xr, wr, None, *geometry)
    b = ops.convolution(xi, wi, None, *geometry)
    c = ops.convolution(xr + xi, wr + wi, None, *geometry)
    out = ops.complex(a - b, c - a - b)
    if bias is not None:
        out = out + bias.reshape(-1, *([1] * (out.ndim - 2)))
    return out


@checked(
    "conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[] stride=1, "
    "Any padding=0, int[] dilation=1, int groups=1) -> Tensor"
)
def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """1-D convolution of (N, C, L) with a (C_out, C / groups, K) weight; ``padding`` may be
    an int, a tuple, ``"valid"`` or ``"same"``."""
    return _conv(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


@checked(
    "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[] stride=1, "
    "Any padding=0, int[] dilation=1, int groups=1) -> Tensor"
)
def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """2-D convolution of (N, C, H, W) with a (C_out, C / groups, kH, kW) weight.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.arange(16.0).reshape(1, 1, 4, 4)
    >>> tc.nn.functional.conv2d(x, tc.ones(1, 1, 2, 2), stride=2)
    tensor([[[[10., 18.],
              [42., 50.]]]])
    """
    return _conv(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


@checked(
    "conv3d(Tensor input, Tensor weight, Tensor? bias=None, int[] stride=1, "
    "Any padding=0, int[] dilation=1, int groups=1) -> Tensor"
)
def conv3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """3-D convolution of (N, C, D, H, W) with a (C_out, C / groups, kD, kH, kW) weight."""
    return _conv(3, "conv3d", input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose(
    nd: int,
    fn: str,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    output_padding: Any,
    groups: int,
    dilation: Any,
) -> Tensor:
    x, unbatched = _batched(input, nd, fn)
    out = _convolution(
        x,
        weight,
        bias,
        _tuple(stride, nd, "stride"),
        _tuple(padding, nd, "padding"),
        _tuple(dilation, nd, "dilation"),
        True,
        _tuple(output_padding, nd, "output_padding"),
        groups,
    )
    return out.squeeze(0) if unbatched else out


@checked(
    "conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, "
    "int[] stride=1, int[] padding=0, int[] output_padding=0, int groups=1, "
    "int[] dilation=1) -> Tensor"
)
def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """1-D transposed convolution with a (C, C_out / groups, K) weight."""
    return _conv_transpose(
        1,
        "conv_transpose1d",
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


@checked(
    "conv_transpose2d(Tensor input, Tensor weight, Tensor? bias=None, "
    "int[] stride=1, int[] padding=0, int[] output_padding=0, int groups=1, "
    "int[] dilation=1) -> Tensor"
)
def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """2-D transposed convolution with a (C, C_out / groups, kH, kW) weight.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.conv_transpose2d(tc.ones(1, 1, 2, 2), tc.ones(1, 1, 2, 2), stride=2).shape
    tensorcore.Size([1, 1, 4, 4])
    """
    return _conv_transpose(
        2,
        "conv_transpose2d",
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


@checked(
    "conv_transpose3d(Tensor input, Tensor weight, Tensor? bias=None, "
    "int[] stride=1, int[] padding=0, int[] output_padding=0, int groups=1, "
    "int[] dilation=1) -> Tensor"
)
def conv_transpose3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """3-D transposed convolution with a (C, C_out / groups, kD, kH, kW) weight."""
    return _conv_transpose(
        3,
        "conv_transpose3d",
        input,
        weight,
        bias,
        stride,
        padding,
        output_padding,
        groups,
        dilation,
    )


# ------------------------------------------------------------------ pooling
@checked(
    "max_pool2d(Tensor input, int[] kernel_size, int[]? stride=None, "
    "int[] padding=0, int[] dilation=1, bool ceil_mode=False, "
    "bool return_indices=False) -> Any"
)
def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """2-D max pooling of (N, C, H, W) or (C, H, W); ``stride`` defaults to
    ``kernel_size``. ``return_indices=True`` also returns the flat positions in each plane.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.max_pool2d(tc.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 5.,  7.],
             [13., 15.]]])
    """
    k = _tuple(kernel_size, 2, "kernel_size")
    st = k if stride is None or stride == [] or stride == () else _tuple(stride, 2, "stride")
    values, indices = _max_pool2d(
        input, k, st, _tuple(padding, 2, "padding"), _tuple(dilation, 2, "dilation"), ceil_mode
    )
    return (values, indices) if return_indices else values


def _max_pool2d(input: Tensor, *geometry: Any) -> tuple[Tensor, Tensor]:
    """``max_pool2d``'s values and indices for checked arguments (kernel size, stride,
    padding and dilation as tuples): the 1-D pool calls it without a second check."""
    x, unbatched = _batched(input, 2, "max_pool2d")
    values, indices = ops.max_pool2d_with_indices(x, *geometry)
    if unbatched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    return values, indices


@checked(
    "max_pool1d(Tensor input, int[] kernel_size, int[]? stride=None, "
    "int[] padding=0, int[] dilation=1, bool ceil_mode=False, "
    "bool return_indices=False) -> Any"
)
def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """1-D max pooling of (N, C, L) or (C, L)."""
    if input.ndim not in (2, 3) or 0 in input.shape[input.ndim - 2 :]:
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
            f"for input, but got:{list(input.shape)}"
        )
    k = _tuple(kernel_size, 1, "kernel_size")[0]
    st = k if stride is None or stride == [] or stride == () else _tuple(stride, 1, "stride")[0]
    p = _tuple(padding, 1, "padding")[0]
    if (
        not return_indices
        and not (input._requires_grad or input.requires_grad)  # (the first: dual ones too)
        and input._dtype.is_floating_point
        and _tuple(dilation, 1, "dilation") == (1,)
        and not ceil_mode
        and 0 <= 2 * p <= k <= input.shape[-1] + 2 * p
        and k > 0
        and st > 0
    ):
        # As PyTorch's max_pool1d: with no gradient to route, the maxima alone, over a view of
        # the windows (a geometry that cannot fail: every window holds an element of the
        # input), not the indices a backward would read; padding is -inf, as the kernel's.
        x = pad(input, (p, p), value=-math.inf) if p else input
        return x.unfold(-1, k, st).amax(-1)
    res = _max_pool2d(
        input.unsqueeze(-2),
        (1, k),
        (1, st),
        (0, p),
        (1, _tuple(dilation, 1, "dilation")[0]),
        ceil_mode,
    )
    values, indices = res[0].squeeze(-2), res[1].squeeze(-2)
    return (values, indices) if return_indices else values


@checked(
    "avg_pool2d(Tensor input, int[] kernel_size, int[]? stride=None, "
    "int[] padding=0, bool ceil_mode=False, bool count_include_pad=True, "
    "int? divisor_override=None) -> Tensor"
)
def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """2-D average pooling of (N, C, H, W) or (C, H, W).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.avg_pool2d(tc.arange(16.0).reshape(1, 4, 4), 2)
    tensor([[[ 2.5000,  4.5000],
             [10.5000, 12.5000]]])
    """
    k = _tuple(kernel_size, 2, "kernel_size")
    st = k if stride is None or stride == [] or stride == () else _tuple(stride, 2, "stride")
    return _avg_pool2d(
        input, k, st, _tuple(padding, 2, "padding"), ceil_mode, count_include_pad, divisor_override
    )


def _avg_pool2d(input: Tensor, *geometry: Any) -> Tensor:
    """``avg_pool2d`` for checked arguments (kernel size, stride and padding as tuples): the
    1-D pool calls it without a second check."""
    x, unbatched = _batched(input, 2, "avg_pool2d")
    out = ops.avg_pool2d(x, *geometry)
    return out.squeeze(0) if unbatched else out


@checked(
    "avg_pool1d(Tensor input, int[] kernel_size, int[]? stride=None, "
    "int[] padding=0, bool ceil_mode=False, bool count_include_pad=True) -> Tensor"
)
def avg_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """1-D average pooling of (N, C, L) or (C, L)."""
    k = _tuple(kernel_size, 1, "kernel_size")[0]
    st = k if stride is None or stride == [] or stride == () else _tuple(stride, 1, "stride")[0]
    p = _tuple(padding, 1, "padding")[0]
    out = _avg_pool2d(
        input.unsqueeze(-2), (1, k), (1, st), (0, p), ceil_mode, count_include_pad, None
    )
    return out.squeeze(-2)


def _adaptive_bounds(size: int, out: int) -> list[tuple[int, int]]:
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def _adaptive_named(input: Tensor, out: Tensor, nd: int, reduce: str) -> Tensor:
    """``out`` of an adaptive pooling of ``input``, its node named as PyTorch's
    (``AdaptiveAvgPool2DBackward0``; a 1 x 1 average is PyTorch's ``mean``, already named)."""
    if out is input or (reduce == "avg" and all(s == 1 for s in out.shape[-nd:])):
        return out
    kind = "AdaptiveAvgPool" if reduce == "avg" else "AdaptiveMaxPool"
    return named_as(out, f"{kind}{nd}DBackward0")


def _adaptive_rank(input: Tensor, output_size: Any, nd: int) -> None:
    """PyTorch's check of the 2-D and 3-D adaptive pools' ``input`` against a sequence
    ``output_size``, made before the input's rank is (a ``ValueError``, not the rank's
    ``RuntimeError``)."""
    if nd > 1 and isinstance(output_size, (list, tuple)) and input.ndim <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")


def _adaptive_sizes(output_size: Any, sizes: Any, fn: str) -> tuple[int, ...]:
    """An adaptive pool's output sizes: an int for every dim, or one per dim (None keeps
    the input's size there)."""
    nd = len(sizes)
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        outs = (output_size,) * nd
    else:
        outs = tuple(output_size)
        if len(outs) == 1:
            outs = outs * nd
        if len(outs) != nd:
            raise RuntimeError(
                f"{fn}() argument 'output_size' should contain one int (got {len(outs)})"
                if nd == 1
                else f"{fn}: output_size must be {nd}"
            )
        if not all(o is None or isinstance(o, int) for o in outs):
            raise TypeError(
                f"{fn}(): output_size must be an int or a sequence of {nd} ints or None, "
                f"got {output_size!r}"
            )
        outs = tuple(sizes[i] if o is None else o for i, o in enumerate(outs))
    if any(o < 0 for o in outs):
        raise RuntimeError(
            f"{fn}: elements of output_size must be greater than or equal to 0 but received "
            f"{list(outs)}"
        )
    return outs


def _adaptive_empty(x: Tensor, outs: tuple[int, ...], unbatched: bool) -> Tensor:
    """An adaptive pool's result with no cell (an output size of 0), still in the graph."""
    res = x.flatten(2)[..., :0].reshape(*x.shape[:2], *outs)
    return res.squeeze(0) if unbatched else res


def _floating_only(x: Tensor, nd: int, reduce: str, outs: tuple[int, ...]) -> None:
    """PyTorch's adaptive pooling kernels take floating inputs only (a 1 x 1 average is its
    ``mean``, which refuses integers in its own words): the ``NotImplementedError`` of its
    kernel (the 1-D pools run the 2-D one; the 3-D kernels are named per device)."""
    if x.is_floating_point() or (reduce == "avg" and all(o == 1 for o in outs)):
        return
    kernel = f"adaptive_{reduce}_pool{max(nd, 2)}d" + (f"_{x.device.type}" if nd == 3 else "")
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{torch_name(x.dtype)}'")


def _adaptive_max_with_indices(
    input: Tensor, output_size: Any, nd: int, fn: str
) -> tuple[Tensor, Tensor]:
    """Adaptive max pooling and each maximum's flat index in its (N, C) plane.

    Every output cell's window is gathered at once, padded to the longest window by
    repeating its last position (a repeat never beats the first occurrence of a maximum).
    """
    _adaptive_rank(input, output_size, nd)
    x, unbatched = _batched(input, nd, fn)
    sizes = x.shape[2:]
    outs = _adaptive_sizes(output_size, sizes, fn)
    _floating_only(x, nd, "max", outs)
    n, c = x.shape[:2]
    if 0 in outs:
        values = _adaptive_empty(x, outs, unbatched)
        return values, ops.zeros(values.shape, dtype=dt.int64, device=x.device)
    if all(o == 1 for o in outs) and not (nd == 2 and layer_format(x) is not None):
        # One window, the whole plane (global max pooling): a max over the flattened plane,
        # whose index is the flat one and whose gradient goes to it (4-5x faster than
        # gathering the window).
        values, indices = x.flatten(2).max(-1)
        values, indices = values.reshape(n, c, *outs), indices.reshape(n, c, *outs)
        if unbatched:
            return values.squeeze(0), indices.squeeze(0)
        return values, indices
    index: list[Tensor] = []
    flat: Tensor | None = None
    stride = 1
    for i in reversed(range(nd)):
        bounds = _adaptive_bounds(sizes[i], outs[i])
        k = max((hi - lo for lo, hi in bounds), default=1)
        rows = [[min(lo + j, hi - 1) for j in range(k)] for lo, hi in bounds]
        shape = [1] * (2 * nd)
        shape[2 * i], shape[2 * i + 1] = len(rows), k
        pos = _tensor(rows, device=x.device).reshape(shape)
        index.insert(0, pos)
        flat = pos * stride if flat is None else flat + pos * stride
        stride *= sizes[i]
    perm = [*(2 * i for i in range(nd)), *(2 * i + 1 for i in range(nd))]
    if nd == 2 and layer_format(x) is not None:
        # Read from the (N, H, W, C) view, row-major: the input's gradient keeps its format.
        where: tuple[Any, ...] = (slice(None), *index)
        windows = x.movedim(1, -1)[where]  # (N, o0, k0, o1, k1, C)
        windows = windows.permute(0, -1, *(1 + p for p in perm))
    else:
        where = (slice(None), slice(None), *index)
        windows = x[where]  # (N, C, o0, k0, o1, k1, ...)
        windows = windows.permute(0, 1, *(2 + p for p in perm))
    windows = windows.reshape(n, c, *outs, -1)
    values, arg = windows.max(-1)
    assert flat is not None  # (nd >= 1)
    flat = flat.permute(*perm).reshape(*outs, -1).expand(n, c, *outs, -1)
    indices = flat.gather(-1, arg.unsqueeze(-1)).squeeze(-1)
    if nd == 2 and layer_format(x) is not None:  # (PyTorch's 2-D pools keep the format)
        values = values.contiguous(memory_format=layer_format(x))
        indices = indices.contiguous(memory_format=layer_format(x))
    if unbatched:
        return values.squeeze(0), indices.squeeze(0)
    return values, indices


def _adaptive(input: Tensor, output_size: Any, nd: int, fn: str, reduce: str) -> Tensor:
    _adaptive_rank(input, output_size, nd)
    x, unbatched = _batched(input, nd, fn)
    sizes = x.shape[2:]
    outs = _adaptive_sizes(output_size, sizes, fn)
    _floating_only(x, nd, reduce, outs)
    if 0 in outs:
        return _adaptive_empty(x, outs, unbatched)
    equal = all(sizes[i] % outs[i] == 0 for i in range(nd))
    if reduce == "max" and not (equal and nd == 2 and any(o != 1 for o in outs)):
        # The maxima read at their indices: the gradient goes to the first maximum of a
        # window (the index returned), not shared by ties (an amax's), as PyTorch's.
        return _adaptive_max_with_indices(input, output_size, nd, fn)[0]
    if equal:
        # Equal windows: one pooling call (or a plain reduction for a 1 x 1 output).
        if all(o == 1 for o in outs):
            dims = tuple(range(2, 2 + nd))
            res = x.mean(dims, keepdim=True) if reduce == "avg" else x.amax(dims, keepdim=True)
            return res.squeeze(0) if unbatched else res
        k = tuple(sizes[i] // outs[i] for i in range(nd))
        if nd == 2:
            if reduce == "avg":
                res = ops.avg_pool2d(x, k, k, (0,), False, True, None)
            else:
                res = ops.max_pool2d_with_indices(x, k, k, (0,), (1,), False)[0]
            return res.squeeze(0) if unbatched else res
    # Unequal windows: one reduction per output cell along each dim, separably. A
    # channels-last 4-D input is pooled as its (N, H, W, C) view, which is row-major: the
    # cells, their concatenation and the input's gradient then keep its format, as PyTorch's
    # 2-D pools do (its 3-D ones give row-major results).
    cl = nd == 2 and layer_format(x) is not None
    res = x.movedim(1, -1) if cl else x
    for i in range(nd):
        d = (1 if cl else 2) + i
        cells = []
        for lo, hi in _adaptive_bounds(sizes[i], outs[i]):
            part = res.narrow(d, lo, hi - lo)
            cells.append(
                part.mean(d, keepdim=True) if reduce == "avg" else part.amax(d, keepdim=True)
            )
        res = ops.cat(cells, d)
    if cl:
        res = res.movedim(-1, 1)
    return res.squeeze(0) if unbatched else res


@checked("adaptive_avg_pool2d(Tensor input, Any output_size) -> Tensor")
def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to the output size ``output_size`` (an int, a pair, None keeps a
    dim's size), with PyTorch's window bounds.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.adaptive_avg_pool2d(tc.arange(16.0).reshape(1, 1, 4, 4), 1)
    tensor([[[[7.5000]]]])
    """
    out = _adaptive(input, output_size, 2, "adaptive_avg_pool2d", "avg")
    return _adaptive_named(input, out, 2, "avg")


@checked("adaptive_avg_pool1d(Tensor input, Any output_size) -> Tensor")
def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling of (N, C, L) to length ``output_size``."""
    out = _adaptive(input, output_size, 1, "adaptive_avg_pool1d", "avg")
    return out if out is input else named_as(out, "SqueezeBackward1")  # (as adaptive_max_pool1d)


@checked("adaptive_max_pool2d(Tensor input, Any output_size, bool return_indices=False) -> Any")
def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling to the output size ``output_size``."""
    if return_indices:
        values, indices = _adaptive_max_with_indices(input, output_size, 2, "adaptive_max_pool2d")
        return _adaptive_named(input, values, 2, "max"), indices
    out = _adaptive(input, output_size, 2, "adaptive_max_pool2d", "max")
    return _adaptive_named(input, out, 2, "max")


# ------------------------------------------------------------------ resizing
# (``pad`` lives in ``ops/_padding.py``, below ``nn``: ``stft`` pads too.)
