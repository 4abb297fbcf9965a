"""Resizing and spatial sampling of ``tensorcore.nn.functional``: ``interpolate``,
``affine_grid`` and ``grid_sample``.

Each composes indexing operators (``index_select``, ``gather``) with pointwise weights, so
it runs on every backend and autograd differentiates it with respect to the input (and, for
``grid_sample``, the grid) with no rule of its own. The coordinate rules are PyTorch's
(``UpSample.h`` and ``GridSampler.h``).
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

from .. import dtypes as dt
from .._memory_format import layer_format
from .._tensor import Tensor, torch_name
from ..amp.autocast_mode import fp32_function
from ..layouts import contiguous_format
from ..ops import functions as ops
from ..ops._padding import FEW_POSITIONS, positions_tensor
from ..ops._validate import checked
from ..ops.factories import tensor as _tensor
from ..ops.frontends import named_as
from ._conv import _adaptive, _tuple

__all__ = ["affine_grid", "grid_sample", "interpolate"]

# PyTorch's cubic convolution constant (Keys' kernel with a = -0.75, as OpenCV).
_A = -0.75


def _cubic_weights(t: Tensor) -> list[Tensor]:
    """The four weights of the taps at floor - 1 .. floor + 2 for the fraction ``t``."""

    def near(x: Tensor) -> Tensor:  # |x| <= 1
        return ((_A + 2) * x - (_A + 3)) * x * x + 1

    def far(x: Tensor) -> Tensor:  # 1 < |x| < 2
        return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _antialias_weights(
    in_size: int, out_size: int, scale: float | None, align_corners: bool, cubic: bool = False
) -> list[list[float]]:
    """The (out, in) matrix of anti-aliased interpolation: each output pixel averages the
    input pixels under a triangle (``cubic``: Keys' cubic) filter stretched by the
    downscaling factor (plain interpolation when upscaling), each row's weights summing to
    one."""
    if align_corners:
        ratio = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    else:
        ratio = 1.0 / scale if scale is not None else in_size / out_size
    half = 2.0 if cubic else 1.0  # (half the filter's taps)
    support = half * ratio if ratio >= 1.0 else half
    inv = 1.0 / ratio if ratio >= 1.0 else 1.0
    kernel = _aa_cubic if cubic else (lambda v: max(0.0, 1.0 - abs(v)))
    rows = []
    for i in range(out_size):
        center = ratio * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), in_size)
        row = [0.0] * in_size
        for j in range(lo, hi):
            row[j] = kernel((j - center + 0.5) * inv)
        total = sum(row)
        rows.append([v / total for v in row] if total else row)
    return rows


def _keys_cubic(x: float, a: float = _A) -> float:
    """Keys' cubic convolution kernel: PyTorch's a = -0.75 for plain bicubic, a = -0.5 (PIL's)
    for anti-aliasing."""
    x = abs(x)
    if x < 1.0:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2.0:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def _aa_cubic(x: float) -> float:
    """:func:`_keys_cubic` with a = -0.5 (PIL's, PyTorch's anti-aliasing)."""
    return _keys_cubic(x, -0.5)


def _interp_weights(
    in_size: int, out_size: int, scale: float | None, align_corners: bool, cubic: bool
) -> list[list[float]]:
    """The (out, in) matrix of plain (not anti-aliased) bilinear or bicubic interpolation
    as PyTorch's uint8 kernels build it: the source coordinate clamped at 0 (bilinear), the
    weight of a tap past the border added to the border pixel."""
    if align_corners:
        ratio = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    else:
        ratio = 1.0 / scale if scale is not None and scale > 0 else in_size / out_size
    half = 2 if cubic else 1
    kernel = _keys_cubic if cubic else (lambda v: max(0.0, 1.0 - abs(v)))
    rows = []
    for i in range(out_size):
        real = ratio * i if align_corners else ratio * (i + 0.5) - 0.5
        real = real if cubic else max(real, 0.0)
        idx = min(math.floor(real), in_size - 1)
        lam = min(max(real - idx, 0.0), 1.0)
        row = [0.0] * in_size
        for j in range(2 * half):
            row[min(max(idx - half + 1 + j, 0), in_size - 1)] += kernel(j + 1 - half - lam)
        rows.append(row)
    return rows


def _fixed_point(rows: list[list[float]]) -> tuple[list[list[int]], int]:
    """``rows`` as integers scaled by 2**precision, the precision the largest that keeps
    twice the largest weight under 2**15 (PyTorch's and PIL's int16 weights)."""
    w_max = max(max(r) for r in rows)
    prec = 0
    while prec < 22 and int(0.5 + w_max * (1 << (prec + 1))) < (1 << 15):
        prec += 1
    one = 1 << prec
    return [[int(v * one - 0.5) if v < 0 else int(v * one + 0.5) for v in r] for r in rows], prec


def _resize_uint8(
    x: Tensor,
    dims: list[int],
    ins: tuple[int, ...],
    outs: tuple[int, ...],
    scales: tuple[float | None, ...],
    mode: str,
    align_corners: bool,
    antialias: bool,
) -> Tensor:
    """``x`` (uint8) resized as PyTorch's uint8 bilinear/bicubic kernels do: in fixed point,
    one dim at a time from the last, each pass rounded half up and clamped to [0, 255] (so
    not the float result rounded; a dim whose size does not change is not touched)."""
    cubic = mode == "bicubic"
    for d, n_in, n_out, scale in reversed(list(zip(dims, ins, outs, scales, strict=True))):
        if n_in == n_out:
            continue
        if antialias:
            rows = _antialias_weights(n_in, n_out, scale, align_corners, cubic)
        else:
            rows = _interp_weights(n_in, n_out, scale, align_corners, cubic)
        ints, prec = _fixed_point(rows)
        # In float64, whose products and sums of these integers are exact (far below 2**53):
        # a BLAS product, 4x faster than NumPy's int64 one.
        w = _tensor(ints, dtype=dt.float64, device=x.device).t()
        y = ops.matmul(x.movedim(d, -1).to(dt.float64), w).to(dt.int64) + ((1 << prec) >> 1)
        x = y.bitwise_right_shift(prec).clamp(0, 255).to(dt.uint8).movedim(-1, d)
    return x


def _source_coords(
    in_size: int,
    out_size: int,
    scale: float | None,
    align_corners: bool,
    cubic: bool,
    device: Any,
    dtype: dt.dtype,
) -> Tensor:
    """The input coordinate each output index reads (PyTorch's
    ``area_pixel_compute_source_index``: clamped at 0 except for cubic)."""
    i = ops.arange(out_size, dtype=dtype, device=device)
    if align_corners:
        return i * ((in_size - 1) / (out_size - 1) if out_size > 1 else 0.0)
    ratio = 1.0 / scale if scale is not None and scale > 0 else in_size / out_size
    src = (i + 0.5) * ratio - 0.5
    return src if cubic else src.clamp(min=0)


@functools.lru_cache(maxsize=256)
def _nearest_plan(n_in: int, n_out: int, scale: float | None, exact: bool) -> int | tuple[int, ...]:
    """The input index that each of ``n_out`` outputs reads in a nearest resizing of ``n_in``
    elements (PyTorch's ``nearest_idx``: the output index, plus a half for
    ``nearest-exact``, times the inverse scale, floored, clamped to the last element), in
    float64 as Python computes it; or the factor ``k`` where that is each input element
    repeated ``k`` times (an upsampling by an integer factor). Kept per arguments: a
    network resizes the same sizes at every step."""
    ratio = 1.0 / scale if scale is not None and scale > 0 else n_in / n_out
    idx = tuple(
        min(math.floor(((j + 0.5) if exact else j) * ratio), n_in - 1) for j in range(n_out)
    )
    k = n_out // n_in if n_in else 0
    if k > 1 and n_out == k * n_in and all(v == j // k for j, v in enumerate(idx)):
        return k
    return idx


def _resize_dim(
    x: Tensor,
    d: int,
    n_in: int,
    n_out: int,
    scale: float | None,
    mode: str,
    align_corners: bool,
    antialias: bool,
) -> Tensor:
    """``x`` resized along dim ``d`` from ``n_in`` to ``n_out`` (the modes are separable)."""
    dev, dtype = x.device, x.dtype
    shape = [1] * x.ndim
    shape[d] = n_out
    if mode in ("nearest", "nearest-exact"):
        plan = _nearest_plan(n_in, n_out, scale, mode == "nearest-exact")
        if isinstance(plan, int):
            # Each input element repeated k times (an upsampling by an integer factor): a
            # broadcast copy, whose gradient sums k neighbours (a short reduction, where
            # index_select's adds the gradient back one element at a time on NumPy).
            shape = list(x.shape)
            rep = x.unsqueeze(d + 1).expand(*shape[: d + 1], plan, *shape[d + 1 :])
            return rep.reshape(*shape[:d], n_out, *shape[d + 1 :])
        if len(plan) <= FEW_POSITIONS:
            return x.index_select(d, positions_tensor(plan, dev))
        # (many positions: as tensors, the same float64 arithmetic)
        ratio = 1.0 / scale if scale is not None and scale > 0 else n_in / n_out
        i = ops.arange(n_out, dtype=dt.float64, device="cpu")
        idx = ((i + 0.5) if mode == "nearest-exact" else i) * ratio
        return x.index_select(d, idx.floor().to(dt.int64).clamp(max=n_in - 1).to(dev))
    if antialias:
        m = _antialias_weights(n_in, n_out, scale, align_corners, mode == "bicubic")
        weights = _tensor(m, dtype=dtype, device=dev)  # (out, in)
        # (the last two dims without a move: results and gradients stay dense)
        if d == x.ndim - 1:
            return ops.matmul(x, weights.t())
        if d == x.ndim - 2:
            return ops.matmul(weights, x)
        return ops.matmul(x.movedim(d, -1), weights.t()).movedim(-1, d)
    src = _source_coords(n_in, n_out, scale, align_corners, mode == "bicubic", dev, dtype)
    lo = src.floor()
    t = (src - lo).reshape(shape)
    base = lo.to(dt.int64)
    if mode == "bicubic":
        # Taps past the border read the border pixel (PyTorch's bounded access).
        taps = [(base + k - 1).clamp(0, n_in - 1) for k in range(4)]
        res = None
        for idx, w in zip(taps, _cubic_weights(t), strict=True):
            term = x.index_select(d, idx) * w
            res = term if res is None else res + term
        assert res is not None
        return res
    lo_i = base.clamp(max=n_in - 1)
    hi_i = (lo_i + 1).clamp(max=n_in - 1)
    w = t.clamp(0, 1)
    return x.index_select(d, lo_i) * (1 - w) + x.index_select(d, hi_i) * w


_INTERPOLATING = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


@checked(
    "interpolate(Tensor input, Any size=None, Any scale_factor=None, "
    'str mode="nearest", bool? align_corners=None, '
    "bool? recompute_scale_factor=None, bool antialias=False) -> Tensor"
)
def interpolate(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resize the spatial dims of (N, C, *spatial) to ``size`` or by ``scale_factor``.

    ``mode`` is ``"nearest"``, ``"nearest-exact"``, ``"linear"`` (1-D), ``"bilinear"``
    (2-D), ``"bicubic"`` (2-D, Keys' cubic kernel with a = -0.75, border pixels repeated),
    ``"trilinear"`` (3-D) or ``"area"`` (adaptive average pooling), with PyTorch's
    coordinate rules; ``antialias=True`` (bilinear, bicubic: a = -0.5) averages under a filter
    widened by the downscaling factor, as PyTorch's and PIL's resizing do.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    >>> tc.nn.functional.interpolate(x, scale_factor=2)[0, 0, 0]
    tensor([1., 1., 2., 2.])
    >>> tc.nn.functional.interpolate(x, size=(3, 3), mode="bilinear", align_corners=True)[0, 0]
    tensor([[1.0000, 1.5000, 2.0000],
            [2.0000, 2.5000, 3.0000],
            [3.0000, 3.5000, 4.0000]])
    >>> tc.nn.functional.interpolate(tc.arange(4.0).reshape(1, 1, 4), size=2, mode="area")
    tensor([[[0.5000, 2.5000]]])
    """
    nd = input.ndim - 2
    if nd < 1:
        raise ValueError(
            f"interpolate(): expected a batched (N, C, ...) input, got {list(input.shape)}"
        )
    if antialias and (mode not in ("bilinear", "bicubic") or input.ndim != 4):
        raise NotImplementedError(
            "Anti-alias option is restricted to bilinear and bicubic modes and requires a "
            "4-D tensor as input"
        )
    if mode in _INTERPOLATING and _INTERPOLATING[mode] != nd:
        raise NotImplementedError(
            f"Got {input.ndim}D input, but {mode} mode needs {_INTERPOLATING[mode] + 2}D input"
        )
    if mode not in ("nearest", "nearest-exact", "area", *_INTERPOLATING):
        raise NotImplementedError(f"interpolate(): mode {mode!r} is not supported")
    if mode not in _INTERPOLATING and align_corners is not None:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: linear | "
            "bilinear | bicubic | trilinear"
        )
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    in_sizes = input.shape[2:]
    scales: tuple[float | None, ...]
    if size is not None:
        outs = _tuple(size, nd, "size")
        scales = (None,) * nd
    else:
        sf = (
            (float(scale_factor),) * nd
            if isinstance(scale_factor, (int, float))
            else tuple(float(s) for s in scale_factor)
        )
        outs = tuple(math.floor(in_sizes[i] * sf[i]) for i in range(nd))
        scales = (None,) * nd if recompute_scale_factor else sf
    if mode != "area" and (min(outs) <= 0 or min(in_sizes) <= 0):
        names = "DHW"[3 - nd :]
        given = ", ".join(f"{d}: {n}" for d, n in zip(names, in_sizes, strict=True))
        got = ", ".join(f"{d}: {n}" for d, n in zip(names, outs, strict=True))
        raise RuntimeError(
            f"interpolate(): Input and output sizes should be greater than 0, but got input "
            f"({given}) output ({got})"
        )
    if mode == "area":
        return _adaptive(input, outs, nd, f"adaptive_avg_pool{nd}d", "avg")
    # A channels-last input is resized as its (N, *spatial, C) view, which is row-major: the
    # result and the input's gradient then keep its format, as PyTorch's do.
    cl = layer_format(input) is not None
    if mode in _INTERPOLATING and not input.is_floating_point():
        if input.dtype != dt.uint8 or mode not in ("bilinear", "bicubic"):
            raise NotImplementedError(
                f"\"upsample_{mode}{nd}d\" not implemented for '{torch_name(input.dtype)}'"
            )
        dims = [(1 if cl else 2) + i for i in range(nd)]
        out = _resize_uint8(
            input.movedim(1, -1) if cl else input,
            dims,
            tuple(in_sizes),
            outs,
            scales,
            mode,
            bool(align_corners),
            antialias,
        )
        out = out.movedim(-1, 1) if cl else out
        return out.contiguous(memory_format=layer_format(input) or contiguous_format)
    out = input.movedim(1, -1) if cl else input
    for i in range(nd):
        out = _resize_dim(
            out,
            (1 if cl else 2) + i,
            in_sizes[i],
            outs[i],
            scales[i],
            mode,
            bool(align_corners),
            antialias,
        )
    out = out.movedim(-1, 1) if cl else out
    if antialias:  # (its matrix products leave another order: PyTorch's is dense)
        out = out.contiguous(memory_format=layer_format(input) or contiguous_format)
    return out if out is input else named_as(out, _UPSAMPLE_NODES[mode].format(nd=nd))


#: PyTorch's node names for the resizing modes.
_UPSAMPLE_NODES = {
    "nearest": "UpsampleNearest{nd}DBackward0",
    "nearest-exact": "UpsampleNearestExact{nd}DBackward0",
    "linear": "UpsampleLinear1DBackward0",
    "bilinear": "UpsampleBilinear2DBackward0",
    "bicubic": "UpsampleBicubic2DBackward0",
    "trilinear": "UpsampleTrilinear3DBackward0",
}


_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)


def _base_coords(n: int, align_corners: bool, device: Any, dtype: dt.dtype) -> Tensor:
    """The normalized [-1, 1] coordinates of ``n`` pixel centers (or corners)."""
    if n <= 1:
        return ops.zeros(n, dtype=dtype, device=device)
    c = ops.linspace(-1, 1, n, dtype=dtype, device=device)
    # (c * (n - 1)) / n in this order, as PyTorch: on the identity map the sampled
    # coordinates are then the same floats, and bilinear's gradient there is one-sided.
    return c if align_corners else c * (n - 1) / n


@checked("affine_grid(Tensor theta, int[] size, bool? align_corners=None) -> Tensor")
def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """The sampling grid of a batch of affine maps ``theta`` ((N, 2, 3) for a 4-D ``size``
    (N, C, H, W), (N, 3, 4) for a 5-D one), in ``grid_sample``'s normalized coordinates:
    (N, H, W, 2) holding (x, y), or (N, D, H, W, 3) holding (x, y, z).

    Examples
    --------
    >>> import tensorcore as tc
    >>> theta = tc.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> tc.nn.functional.affine_grid(theta, (1, 1, 2, 2), align_corners=True)[0]
    tensor([[[-1., -1.],
             [ 1., -1.]],
    <BLANKLINE>
            [[-1.,  1.],
             [ 1.,  1.]]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=3)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                f"Got {theta.shape}."
            )
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                f"Got {theta.shape}."
            )
        spatial = size[-3:]
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.",
            stacklevel=3,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    n, k = size[0], len(spatial)
    # Homogeneous base coordinates (x, y[, z], 1), x varying fastest (the last dim).
    axes = [_base_coords(s, align_corners, theta.device, theta.dtype) for s in spatial]
    grids = ops.meshgrid(*axes, indexing="ij")  # spatial order (z,) y, x
    cols = [*reversed(grids), ops.ones(tuple(spatial), dtype=theta.dtype, device=theta.device)]
    base = ops.stack(cols, -1).reshape(1, -1, k + 1).expand(n, -1, k + 1)
    out = ops.bmm(base, theta.transpose(1, 2)).reshape(n, *spatial, k)
    return named_as(out, "AffineGridGeneratorBackward0")


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """``coord`` reflected into [twice_low / 2, twice_high / 2] (PyTorch's
    ``reflect_coordinates``)."""
    if twice_low == twice_high:
        return ops.zeros_like(coord)
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = (coord - lo).abs()
    extra = ops.fmod(c, span)
    flips = (c / span).floor()
    return ops.where(ops.fmod(flips, 2) == 0, extra + lo, span - extra + lo)


def _source_index(
    coord: Tensor, size: int, padding_mode: str, align_corners: bool, unnormalized: bool = False
) -> Tensor:
    """The input coordinate a grid value reads, after the padding mode's folding."""
    c = coord if unnormalized else _unnormalize(coord, size, align_corners)
    if padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
    if padding_mode != "zeros":
        # PyTorch's clip_coordinates_set_grad: no gradient on the border itself either.
        inner = (c > 0) & (c < size - 1)
        c = ops.where(inner, c, c.detach().clamp(0, size - 1))
    return c


def _gather_taps(flat: Tensor, taps: list[tuple[list[Tensor], Tensor]], sizes: list[int]) -> Tensor:
    """Sum over the taps of weight * the input at the tap's integer coordinates (zero where
    any coordinate is outside the input). ``flat`` is (N, C, prod(sizes)); each tap's
    coordinates and weight are (N, M) in the input's spatial order.

    The input is read as rows of C channels (one channels-last copy of it): each tap is then
    an ``index_select`` of N * M rows, whose gradient is an ``index_add`` of rows, where a
    ``gather`` along the positions would build and read N * C * M indices per tap (several
    times slower with NumPy)."""
    n, c, hw = flat.shape
    rows = flat.transpose(1, 2).reshape(n * hw, c)
    first = ops.arange(n, device=flat.device).unsqueeze(1) * hw
    res = None
    for coords, weight in taps:
        inside = None
        lin = None
        for ci, s in zip(coords, sizes, strict=True):
            ok = (ci >= 0) & (ci <= s - 1)
            inside = ok if inside is None else inside & ok
            ci = ci.clamp(0, s - 1)
            lin = ci if lin is None else lin * s + ci
        assert lin is not None and inside is not None
        vals = rows.index_select(0, (lin + first).reshape(-1))
        # where, not a product: a NaN location's weight is NaN, and it reads zero.
        term = vals * ops.where(inside, weight, 0.0).reshape(-1, 1)
        res = term if res is None else res + term
    assert res is not None
    return res.reshape(n, -1, c).transpose(1, 2).contiguous()  # (PyTorch's layout)


@checked(
    'grid_sample(Tensor input, Tensor grid, str mode="bilinear", str padding_mode="zeros", '
    "bool? align_corners=None) -> Tensor"
)
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def grid_sample(
    input: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Tensor:
    """Sample ``input`` (N, C, H, W) at the normalized [-1, 1] locations ``grid``
    (N, H_out, W_out, 2) holding (x, y); 5-D inputs take (N, D_out, H_out, W_out, 3) grids.

    ``mode`` is ``"bilinear"``, ``"nearest"`` (ties to even) or ``"bicubic"`` (4-D only);
    ``padding_mode`` says what locations outside the input read: ``"zeros"``, ``"border"``
    (the nearest border pixel) or ``"reflection"``. Differentiable with respect to both
    the input and the grid.

    Examples
    --------
    >>> import tensorcore as tc
    >>> img = tc.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
    >>> grid = tc.tensor([[[[0.0, 0.0], [-1.0, -1.0]]]])
    >>> tc.nn.functional.grid_sample(img, grid, align_corners=True)
    tensor([[[[1.5000, 0.0000]]]])
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=3)
        align_corners = False
    nd = input.ndim - 2
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(
            "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
            f"but got input with sizes {list(input.shape)} and grid with sizes "
            f"{list(grid.shape)}"
        )
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if grid.shape[-1] != nd:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {nd} in last dimension, but got grid "
            f"with sizes {list(grid.shape)}"
        )
    if mode == "bicubic" and nd != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input.")
    if input.dtype != grid.dtype:
        raise RuntimeError(
            "grid_sampler(): expected input and grid to have the same dtype, but input has "
            f"{input.dtype} and grid has {grid.dtype}"
        )
    n, c = input.shape[0], input.shape[1]
    sizes = list(input.shape[2:])  # spatial order (D,) H, W
    out_spatial = list(grid.shape[1:-1])
    g = grid.reshape(n, -1, nd)
    # grid's last dim is (x, y[, z]): reversed, the input's spatial order.
    raw = [g[..., nd - 1 - k] for k in range(nd)]
    flat = input.reshape(n, c, -1)
    taps: list[tuple[list[Tensor], Tensor]] = []
    if mode == "bicubic":
        real = [_unnormalize(r, s, align_corners) for r, s in zip(raw, sizes, strict=True)]
        lo = [r.floor() for r in real]
        ws = [_cubic_weights(r - f) for r, f in zip(real, lo, strict=True)]
        for i in range(4):
            for j in range(4):
                coords = [
                    _source_index(lo[0] + (i - 1), sizes[0], padding_mode, align_corners, True),
                    _source_index(lo[1] + (j - 1), sizes[1], padding_mode, align_corners, True),
                ]
                taps.append(([co.detach().to(dt.int64) for co in coords], ws[0][i] * ws[1][j]))
    else:
        src = [
            _source_index(r, s, padding_mode, align_corners)
            for r, s in zip(raw, sizes, strict=True)
        ]
        if mode == "nearest":
            coords = [s.detach().round().to(dt.int64) for s in src]
            # A weight of 1 that keeps the grid in the graph: its gradient is zero, as
            # PyTorch's, rather than the grid being unused.
            taps.append((coords, 1 + 0 * src[0]))
        else:
            lo = [s.floor() for s in src]
            frac = [s - f for s, f in zip(src, lo, strict=True)]
            lo_i = [f.detach().to(dt.int64) for f in lo]
            for corner in range(2**nd):
                bits = [(corner >> (nd - 1 - k)) & 1 for k in range(nd)]
                weight = None
                for b, fr in zip(bits, frac, strict=True):
                    w = fr if b else 1 - fr
                    weight = w if weight is None else weight * w
                assert weight is not None
                taps.append(([li + b for li, b in zip(lo_i, bits, strict=True)], weight))
    out = _gather_taps(flat, taps, sizes).reshape(n, c, *out_spatial)
    return named_as(out, f"GridSampler{nd}DBackward0")
