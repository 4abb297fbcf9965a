"""The 3-D pools, the adaptive max pools of 1 and 3 dims and the power-average pools of
``tensorcore.nn.functional``, composed of the declared 2-D pooling operators.

Max and average pooling are separable: a 3-D window's maximum is the maximum over depth of
the 2-D windows' maxima, and its average (with PyTorch's divisors, which are products of one
count per dim) the average over depth of the 2-D averages. So ``max_pool3d`` pools each depth
slice with ``max_pool2d_with_indices`` and then the depth with a (kD, 1) window, and the
gradient flows through both declared operators; ties resolve as PyTorch's scan does (first
depth, then first position in the plane).
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as dt
from .._memory_format import layer_format
from .._tensor import Tensor
from ..amp.autocast_mode import fp32_function
from ..ops import functions as ops
from ..ops._validate import checked
from ..ops.frontends import named_as
from ._conv import (
    _adaptive,
    _adaptive_max_with_indices,
    _adaptive_named,
    _adaptive_rank,
    _adaptive_sizes,
    _batched,
    _tuple,
    avg_pool1d,
    avg_pool2d,
)

__all__ = [
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool3d",
    "avg_pool3d",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_pool3d",
]


def _out_size(size: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil else span // s) + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def _check(fn: str, x: Tensor, k: Any, st: Any, p: Any, d: Any, ceil: bool) -> None:
    if any(pi > ((ki - 1) * di + 1) // 2 for ki, pi, di in zip(k, p, d, strict=True)):
        raise RuntimeError(
            f"{fn}(): pad should be at most half of effective kernel size, but got "
            f"pad={list(p)}, kernel_size={list(k)} and dilation={list(d)}"
        )
    if any(si <= 0 for si in st) or any(ki <= 0 for ki in k) or any(di <= 0 for di in d):
        raise RuntimeError(
            f"{fn}(): kernel_size, stride and dilation must be greater than zero, but got "
            f"kernel_size={list(k)}, stride={list(st)} and dilation={list(d)}"
        )
    sizes = x.shape[2:]
    outs = [
        _out_size(n, ki, si, pi, di, ceil)
        for n, ki, si, pi, di in zip(sizes, k, st, p, d, strict=True)
    ]
    if any(o < 1 for o in outs):
        raise RuntimeError(
            f"{fn}(): given input size {list(x.shape)}, the output size would be too small "
            f"(kernel_size={list(k)}, stride={list(st)}, padding={list(p)}, "
            f"dilation={list(d)})"
        )


def _args3(kernel_size: Any, stride: Any, padding: Any) -> tuple[Any, Any, Any]:
    k = _tuple(kernel_size, 3, "kernel_size")
    st = k if stride is None or stride == [] or stride == () else _tuple(stride, 3, "stride")
    return k, st, _tuple(padding, 3, "padding")


@checked(
    "max_pool3d(Tensor input, int[] kernel_size, int[]? stride=None, "
    "int[] padding=0, int[] dilation=1, bool ceil_mode=False, "
    "bool return_indices=False) -> Any"
)
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def max_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """3-D max pooling of (N, C, D, H, W) or (C, D, H, W); ``stride`` defaults to
    ``kernel_size``. ``return_indices=True`` also returns the flat positions in each
    ``D * H * W`` volume.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.max_pool3d(tc.arange(8.0).reshape(1, 2, 2, 2), 2)
    tensor([[[[7.]]]])
    """
    x, unbatched = _batched(input, 3, "max_pool3d")
    k, st, p = _args3(kernel_size, stride, padding)
    d = _tuple(dilation, 3, "dilation")
    _check("max_pool3d", x, k, st, p, d, ceil_mode)
    N, C, D, H, W = x.shape
    v1, i1 = ops.max_pool2d_with_indices(
        x.reshape(N, C * D, H, W), k[1:], st[1:], p[1:], d[1:], ceil_mode
    )
    Ho, Wo = v1.shape[-2], v1.shape[-1]
    v2, i2 = ops.max_pool2d_with_indices(
        v1.reshape(N, C, D, Ho * Wo), (k[0], 1), (st[0], 1), (p[0], 0), (d[0], 1), ceil_mode
    )
    Do = v2.shape[2]
    # (a channels_last_3d input: results in its format, as PyTorch's, which the row-major
    # pooling of the reshaped slices loses)
    fmt = layer_format(x)
    values = v2.reshape(N, C, Do, Ho, Wo)
    if fmt is not None:
        values = values.contiguous(memory_format=fmt)
    if not return_indices:
        return values.squeeze(0) if unbatched else values
    depth = i2 // (Ho * Wo)  # i2 indexes the (D, Ho * Wo) plane
    plane = i1.reshape(N, C, D, Ho * Wo).gather(2, depth)
    indices = (depth * (H * W) + plane).reshape(N, C, Do, Ho, Wo)
    if fmt is not None:
        indices = indices.contiguous(memory_format=fmt)
    if unbatched:
        return values.squeeze(0), indices.squeeze(0)
    return values, indices


@checked(
    "avg_pool3d(Tensor input, int[] kernel_size, int[]? stride=None, "
    "int[] padding=0, bool ceil_mode=False, bool count_include_pad=True, "
    "int? divisor_override=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def avg_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """3-D average pooling of (N, C, D, H, W) or (C, D, H, W).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.avg_pool3d(tc.arange(8.0).reshape(1, 2, 2, 2), 2)
    tensor([[[[3.5000]]]])
    """
    if input.dtype._category == dt.INTEGRAL:
        # Integers: PyTorch divides each window's sum once, truncating; the separable
        # averages below would truncate twice. In float64 the averages are within a few
        # ulps of the quotient sum / count, an integer or at least 1 / count from one.
        y = avg_pool3d(
            input.double(),
            kernel_size,
            stride,
            padding,
            ceil_mode,
            count_include_pad,
            divisor_override,
        )
        near = y.round()
        exact = (y - near).abs() <= 1e-9 * near.abs().clamp_min(1)
        return ops.where(exact, near, y.trunc()).to(input.dtype)
    x, unbatched = _batched(input, 3, "avg_pool3d")
    k, st, p = _args3(kernel_size, stride, padding)
    _check("avg_pool3d", x, k, st, p, (1, 1, 1), ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("avg_pool3d(): divisor must be not zero")
    N, C, D, H, W = x.shape
    # With a divisor override, the planes are summed (divisor 1) and depth divides.
    plane = ops.avg_pool2d(
        x.reshape(N, C * D, H, W),
        k[1:],
        st[1:],
        p[1:],
        ceil_mode,
        count_include_pad,
        None if divisor_override is None else 1,
    )
    Ho, Wo = plane.shape[-2], plane.shape[-1]
    out = ops.avg_pool2d(
        plane.reshape(N, C, D, Ho * Wo),
        (k[0], 1),
        (st[0], 1),
        (p[0], 0),
        ceil_mode,
        count_include_pad,
        divisor_override,
    )
    out = out.reshape(N, C, out.shape[2], Ho, Wo)
    return out.squeeze(0) if unbatched else out


def _adaptive3(input: Tensor, output_size: Any, fn: str, reduce: str) -> Tensor:
    _adaptive_rank(input, output_size, 3)
    x, unbatched = _batched(input, 3, fn)
    sizes = x.shape[2:]
    outs = _adaptive_sizes(output_size, sizes, fn)
    if all(o > 0 and sizes[i] % o == 0 for i, o in enumerate(outs)):
        k = tuple(sizes[i] // outs[i] for i in range(3))
        res = avg_pool3d(x, k) if reduce == "avg" else max_pool3d(x, k)
        return res.squeeze(0) if unbatched else res
    return _adaptive(input, outs, 3, fn, reduce)


@checked("adaptive_avg_pool3d(Tensor input, Any output_size) -> Tensor")
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling of (N, C, D, H, W) or (C, D, H, W) to the output size
    ``output_size`` (an int, a triple; None keeps a dim's size), with PyTorch's windows.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.adaptive_avg_pool3d(tc.ones(1, 2, 4, 5, 6), (1, 2, 3)).shape
    tensorcore.Size([1, 2, 1, 2, 3])
    """
    return _adaptive_named(
        input, _adaptive3(input, output_size, "adaptive_avg_pool3d", "avg"), 3, "avg"
    )


@checked("adaptive_max_pool3d(Tensor input, Any output_size, bool return_indices=False) -> Any")
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling of (N, C, D, H, W) or (C, D, H, W) to the output size ``output_size``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.adaptive_max_pool3d(tc.arange(8.0).reshape(1, 2, 2, 2), 1)
    tensor([[[[7.]]]])
    """
    if return_indices:
        values, indices = _adaptive_max_with_indices(input, output_size, 3, "adaptive_max_pool3d")
        return _adaptive_named(input, values, 3, "max"), indices
    out = _adaptive3(input, output_size, "adaptive_max_pool3d", "max")
    return _adaptive_named(input, out, 3, "max")


@checked("adaptive_max_pool1d(Tensor input, Any output_size, bool return_indices=False) -> Any")
def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling of (N, C, L) or (C, L) to length ``output_size``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.adaptive_max_pool1d(tc.tensor([[1.0, 5.0, 2.0, 4.0, 3.0]]), 2)
    tensor([[5., 4.]])
    """
    # (PyTorch's 1-D pools are its 2-D ones of an unsqueezed input: their node is a squeeze's)
    if return_indices:
        values, indices = _adaptive_max_with_indices(input, output_size, 1, "adaptive_max_pool1d")
        return named_as(values, "SqueezeBackward1"), indices
    out = _adaptive(input, output_size, 1, "adaptive_max_pool1d", "max")
    return out if out is input else named_as(out, "SqueezeBackward1")


def _lp_finish(out: Tensor, norm_type: float, count: int) -> Tensor:
    return (out.sign() * out.abs().relu()).mul(count).pow(1.0 / norm_type)


@checked(
    "lp_pool1d(Tensor input, float norm_type, int kernel_size, int[]? stride=None, "
    "bool ceil_mode=False) -> Tensor"
)
def lp_pool1d(
    input: Tensor,
    norm_type: float,
    kernel_size: int,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Tensor:
    """Power-average pooling ``(sum over the window of x ** p) ** (1 / p)`` of (N, C, L) or
    (C, L), as PyTorch's (through ``avg_pool1d``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.lp_pool1d(tc.tensor([[3.0, 4.0, 1.0, 1.0]]), 2, 2)
    tensor([[5.0000, 1.4142]])
    """
    k = _tuple(kernel_size, 1, "kernel_size")[0]
    out = avg_pool1d(input.pow(norm_type), k, stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, k)


@checked(
    "lp_pool2d(Tensor input, float norm_type, int[] kernel_size, int[]? stride=None, "
    "bool ceil_mode=False) -> Tensor"
)
def lp_pool2d(
    input: Tensor,
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Tensor:
    """Power-average pooling of (N, C, H, W) or (C, H, W).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.lp_pool2d(tc.ones(1, 2, 2), 1, 2)
    tensor([[[4.]]])
    """
    kh, kw = _tuple(kernel_size, 2, "kernel_size")
    out = avg_pool2d(input.pow(norm_type), (kh, kw), stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, kh * kw)


@checked(
    "lp_pool3d(Tensor input, float norm_type, int[] kernel_size, int[]? stride=None, "
    "bool ceil_mode=False) -> Tensor"
)
def lp_pool3d(
    input: Tensor,
    norm_type: float,
    kernel_size: Any,
    stride: Any = None,
    ceil_mode: bool = False,
) -> Tensor:
    """Power-average pooling of (N, C, D, H, W) or (C, D, H, W).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.lp_pool3d(tc.ones(1, 2, 2, 2), 2, 2)
    tensor([[[[2.8284]]]])
    """
    kd, kh, kw = _tuple(kernel_size, 3, "kernel_size")
    out = avg_pool3d(input.pow(norm_type), (kd, kh, kw), stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, kd * kh * kw)
