"""Resizing of ``tensorcore.nn.functional``: ``interpolate``.

It composes indexing operators (``index_select``) with pointwise weights, so it runs on
every backend and autograd differentiates it with no rule of its own. The coordinate rules
are PyTorch's (``UpSample.h``).
"""

from __future__ import annotations

import math
from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor
from ..ops import functions as ops
from ..ops._validate import checked
from ..ops.factories import tensor as _tensor
from ._conv import _adaptive, _tuple

__all__ = ["interpolate"]

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
    in_size: int, out_size: int, scale: float | None, align_corners: bool
) -> list[list[float]]:
    """The (out, in) matrix of anti-aliased linear interpolation: each output pixel averages
    the input pixels under a triangle filter stretched by the downscaling factor (plain
    linear interpolation when upscaling), the weights of each row summing to one."""
    if align_corners:
        ratio = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    else:
        ratio = 1.0 / scale if scale is not None else in_size / out_size
    support = ratio if ratio >= 1.0 else 1.0
    inv = 1.0 / ratio if ratio >= 1.0 else 1.0
    rows = []
    for i in range(out_size):
        center = ratio * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), in_size)
        row = [0.0] * in_size
        for j in range(lo, hi):
            row[j] = max(0.0, 1.0 - abs((j - center + 0.5) * inv))
        total = sum(row)
        rows.append([v / total for v in row] if total else row)
    return rows


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
        ratio = 1.0 / scale if scale is not None and scale > 0 else n_in / n_out
        i = ops.arange(n_out, dtype=dt.float64, device=dev)
        idx = ((i + 0.5) if mode == "nearest-exact" else i) * ratio
        return x.index_select(d, idx.floor().to(dt.int64).clamp(max=n_in - 1))
    if antialias:
        m = _antialias_weights(n_in, n_out, scale, align_corners)
        weights = _tensor(m, dtype=dtype, device=dev)  # (out, in)
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
    coordinate rules; ``antialias=True`` (bilinear) averages under a filter widened by the
    downscaling factor, as PyTorch's and PIL's resizing do.

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
    if antialias and (mode != "bilinear" or input.ndim != 4):
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
    if mode == "area":
        return _adaptive(input, outs, nd, f"adaptive_avg_pool{nd}d", "avg")
    out = input
    for i in range(nd):
        out = _resize_dim(
            out, 2 + i, in_sizes[i], outs[i], scales[i], mode, bool(align_corners), antialias
        )
    return out
