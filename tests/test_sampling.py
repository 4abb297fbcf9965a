"""``interpolate`` (bicubic, area, nearest-exact), ``affine_grid`` and ``grid_sample`` against
direct NumPy loops written from PyTorch's documented coordinate rules (the oracle), on every
device, with gradcheck for the input and the grid."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F
from tensorcore.testing import assert_close

A = -0.75


def _cubic(t: float) -> list[float]:
    def near(x: float) -> float:
        return ((A + 2) * x - (A + 3)) * x * x + 1

    def far(x: float) -> float:
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _unnorm(c: float, size: int, ac: bool) -> float:
    return (c + 1) / 2 * (size - 1) if ac else ((c + 1) * size - 1) / 2


def _reflect(c: float, lo2: int, hi2: int) -> float:
    if lo2 == hi2:
        return 0.0
    lo, span = lo2 / 2, (hi2 - lo2) / 2
    c = abs(c - lo)
    extra, flips = math.fmod(c, span), math.floor(c / span)
    return extra + lo if flips % 2 == 0 else span - extra + lo


def _fold(c: float, size: int, pad: str, ac: bool) -> float:
    if pad == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if ac else _reflect(c, -1, 2 * size - 1)
    if pad != "zeros":
        c = min(max(c, 0.0), size - 1.0)
    return c


def _grid_sample_oracle(x: Any, grid: Any, mode: str, pad: str, ac: bool) -> Any:
    n, c, h, w = x.shape
    ho, wo = grid.shape[1:3]
    out = np.zeros((n, c, ho, wo))

    def at(b: int, yy: int, xx: int) -> Any:
        if pad == "zeros" and not (0 <= yy < h and 0 <= xx < w):
            return np.zeros(c)
        return x[b, :, min(max(yy, 0), h - 1), min(max(xx, 0), w - 1)]

    for b, i, j in itertools.product(range(n), range(ho), range(wo)):
        gx, gy = grid[b, i, j]
        if mode == "bicubic":
            ix, iy = _unnorm(gx, w, ac), _unnorm(gy, h, ac)
            x0, y0 = math.floor(ix), math.floor(iy)
            wx, wy = _cubic(ix - x0), _cubic(iy - y0)
            for p, q in itertools.product(range(4), range(4)):
                yy = int(_fold(y0 - 1 + p, h, pad, ac))
                xx = int(_fold(x0 - 1 + q, w, pad, ac))
                out[b, :, i, j] += wy[p] * wx[q] * at(b, yy, xx)
            continue
        ix, iy = _fold(_unnorm(gx, w, ac), w, pad, ac), _fold(_unnorm(gy, h, ac), h, pad, ac)
        if mode == "nearest":
            out[b, :, i, j] = at(b, int(np.rint(iy)), int(np.rint(ix)))
            continue
        x0, y0 = math.floor(ix), math.floor(iy)
        fx, fy = ix - x0, iy - y0
        for dy, dx in itertools.product((0, 1), (0, 1)):
            wgt = (fy if dy else 1 - fy) * (fx if dx else 1 - fx)
            out[b, :, i, j] += wgt * at(b, y0 + dy, x0 + dx)
    return out


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_the_formula(device: str, align_corners: bool) -> None:
    rng = np.random.default_rng(0)
    th = rng.normal(size=(2, 2, 3))
    grid = F.affine_grid(tc.tensor(th, device=device), (2, 3, 4, 5), align_corners=align_corners)

    def axis(s: int) -> Any:
        c = np.linspace(-1, 1, s)
        return c if align_corners else c * (s - 1) / s

    ys, xs = np.meshgrid(axis(4), axis(5), indexing="ij")
    base = np.stack([xs, ys, np.ones_like(xs)], -1)
    assert_close(grid, np.einsum("hwk,nck->nhwc", base, th))
    th3 = rng.normal(size=(1, 3, 4))
    g3 = F.affine_grid(tc.tensor(th3, device=device), (1, 1, 2, 3, 4), align_corners=align_corners)
    zs, ys, xs = np.meshgrid(axis(2), axis(3), axis(4), indexing="ij")
    base3 = np.stack([xs, ys, zs, np.ones_like(xs)], -1)
    assert_close(g3, np.einsum("dhwk,nck->ndhwc", base3, th3))


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_matches_numpy(
    device: str, mode: str, padding_mode: str, align_corners: bool
) -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 3, 4, 5))
    # Locations inside, on and well outside the input (reflection folds them back).
    grid = rng.uniform(-1.8, 1.8, size=(2, 3, 6, 2))
    grid[0, 0, :3] = [[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0]]
    got = F.grid_sample(
        tc.tensor(x, device=device),
        tc.tensor(grid, device=device),
        mode=mode,
        padding_mode=padding_mode,
        align_corners=align_corners,
    )
    assert_close(got, _grid_sample_oracle(x, grid, mode, padding_mode, align_corners))
    assert got.is_contiguous()  # (as PyTorch's, although the taps read channels-last rows)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_gradients(device: str, mode: str, padding_mode: str) -> None:
    rng = np.random.default_rng(2)
    x = tc.tensor(rng.normal(size=(1, 2, 3, 4)), device=device, requires_grad=True)
    grid = tc.tensor(rng.uniform(-1.4, 1.4, size=(1, 2, 3, 2)), device=device, requires_grad=True)

    def f(a: Any, g: Any) -> Any:
        return F.grid_sample(a, g, mode=mode, padding_mode=padding_mode, align_corners=False)

    assert tc.autograd.gradcheck(f, (x, grid))


def test_grid_sample_in_3d_and_the_gradient_of_nearest(device: str) -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(1, 2, 3, 4, 5))
    theta = np.array([[[0.8, 0.1, 0.0, 0.1], [0.0, 0.9, 0.2, 0.0], [0.1, 0.0, 1.1, -0.1]]])
    t = tc.tensor(theta, device=device, requires_grad=True)
    grid = F.affine_grid(t, (1, 2, 2, 3, 2), align_corners=True)
    out = F.grid_sample(tc.tensor(x, device=device), grid, align_corners=True)
    # Trilinear is separable: the oracle interpolates along each axis in turn.
    g = grid.detach().cpu().numpy()[0]
    want = np.zeros((2, 2, 3, 2))
    for d, h, w in itertools.product(range(2), range(3), range(2)):
        ix, iy, iz = (_unnorm(g[d, h, w, k], s, True) for k, s in enumerate((5, 4, 3)))
        x0, y0, z0 = math.floor(ix), math.floor(iy), math.floor(iz)
        for dz, dy, dx in itertools.product((0, 1), repeat=3):
            zz, yy, xx = z0 + dz, y0 + dy, x0 + dx
            if 0 <= zz < 3 and 0 <= yy < 4 and 0 <= xx < 5:
                wgt = (
                    (iz - z0 if dz else 1 - (iz - z0))
                    * (iy - y0 if dy else 1 - (iy - y0))
                    * (ix - x0 if dx else 1 - (ix - x0))
                )
                want[:, d, h, w] += wgt * x[0, :, zz, yy, xx]
    assert_close(out[0], want)
    # nearest: the grid stays in the graph with a zero gradient (as PyTorch), not unused.
    near = F.grid_sample(tc.tensor(x, device=device), grid, mode="nearest", align_corners=True)
    (gt,) = tc.autograd.grad(near.sum(), t)
    assert_close(gt, np.zeros((1, 3, 4)))


def test_grid_sample_and_affine_grid_errors_and_warning() -> None:
    x, grid = tc.zeros(1, 1, 2, 2), tc.zeros(1, 2, 2, 2)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(x, grid)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.affine_grid(tc.zeros(1, 2, 3), (1, 1, 2, 2))
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic'"):
        F.grid_sample(x, grid, mode="area", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border'"):
        F.grid_sample(x, grid, padding_mode="wrap", align_corners=False)
    with pytest.raises(RuntimeError, match="same batch size"):
        F.grid_sample(x, tc.zeros(2, 2, 2, 2), align_corners=False)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(tc.zeros(1, 1, 2, 2, 2), tc.zeros(1, 1, 1, 1, 3), "bicubic", "zeros", False)
    with pytest.raises(ValueError, match="Nx2x3"):
        F.affine_grid(tc.zeros(1, 3, 3), (1, 1, 2, 2), align_corners=False)
    with pytest.raises(ValueError, match="floating point"):
        F.affine_grid(tc.zeros(1, 2, 3, dtype=tc.int64), (1, 1, 2, 2), align_corners=False)
    with pytest.raises(NotImplementedError, match="4D and 5D sizes"):
        F.affine_grid(tc.zeros(1, 2, 3), (1, 2, 2), align_corners=False)


def _bicubic_oracle(x: Any, out_hw: tuple[int, int], ac: bool, scale: float | None) -> Any:
    def weights(n_in: int, n_out: int) -> Any:
        m = np.zeros((n_out, n_in))
        for i in range(n_out):
            if ac:
                src = i * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
            else:
                src = (i + 0.5) * (1 / scale if scale else n_in / n_out) - 0.5
            f = math.floor(src)
            for k, wk in enumerate(_cubic(src - f)):
                m[i, min(max(f - 1 + k, 0), n_in - 1)] += wk
        return m

    wh, ww = weights(x.shape[2], out_hw[0]), weights(x.shape[3], out_hw[1])
    return np.einsum("oh,nchw,pw->ncop", wh, x, ww)


@pytest.mark.parametrize("align_corners", [False, True])
def test_interpolate_bicubic_matches_numpy(device: str, align_corners: bool) -> None:
    x = np.random.default_rng(4).normal(size=(2, 2, 5, 4))
    t = tc.tensor(x, device=device)
    got = F.interpolate(t, size=(7, 3), mode="bicubic", align_corners=align_corners)
    assert_close(got, _bicubic_oracle(x, (7, 3), align_corners, None))
    got = F.interpolate(t, scale_factor=1.5, mode="bicubic", align_corners=align_corners)
    assert_close(got, _bicubic_oracle(x, (7, 6), align_corners, None if align_corners else 1.5))
    tg = tc.tensor(x[:1, :1], device=device, requires_grad=True)
    assert tc.autograd.gradcheck(
        lambda a: F.interpolate(a, size=(3, 6), mode="bicubic", align_corners=align_corners), (tg,)
    )


def test_interpolate_area_and_nearest_exact(device: str) -> None:
    x = np.arange(2 * 7 * 5, dtype=np.float64).reshape(1, 2, 7, 5) ** 1.5
    t = tc.tensor(x, device=device)
    got = F.interpolate(t, size=(3, 2), mode="area")
    want = np.zeros((1, 2, 3, 2))
    for i, j in itertools.product(range(3), range(2)):
        h0, h1 = (i * 7) // 3, -(-(i + 1) * 7 // 3)
        w0, w1 = (j * 5) // 2, -(-(j + 1) * 5 // 2)
        want[0, :, i, j] = x[0, :, h0:h1, w0:w1].mean(axis=(1, 2))
    assert_close(got, want)
    # Width 5 by 0.5: two windows of PyTorch's adaptive bounds, [0, 3) and [2, 5).
    row = x[:, :, 0]
    want1 = np.stack([row[..., 0:3].mean(-1), row[..., 2:5].mean(-1)], -1)
    assert_close(F.interpolate(t[:, :, 0], scale_factor=0.5, mode="area"), want1)
    # nearest-exact reads the input pixel under each output pixel's centre.
    got = F.interpolate(t, size=(3, 8), mode="nearest-exact")
    rows = [min(int((i + 0.5) * 7 / 3), 6) for i in range(3)]
    cols = [min(int((j + 0.5) * 5 / 8), 4) for j in range(8)]
    assert_close(got, x[:, :, rows][:, :, :, cols])
    with pytest.raises(ValueError, match="align_corners option can only be set"):
        F.interpolate(t, size=(3, 2), mode="area", align_corners=False)
    with pytest.raises(NotImplementedError, match="bicubic mode needs 4D input"):
        F.interpolate(t[0], size=3, mode="bicubic")


def _uint8_oracle(x: Any, out_hw: tuple[int, int], cubic: bool, ac: bool) -> Any:
    """PyTorch's uint8 resize written as loops: plain bilinear/bicubic weights (the weight of
    a tap past the border moved onto the border pixel), scaled to int16 with the largest
    precision that keeps twice the largest weight under 2**15, applied to the width and then
    the height, each pass rounded half up and clamped to [0, 255]."""

    def kernel(v: float) -> float:
        v = abs(v)
        if not cubic:
            return max(0.0, 1.0 - v)
        return _cubic(v)[1] if v < 1 else (A * v - 5 * A) * v * v + 8 * A * v - 4 * A

    def fixed(n_in: int, n_out: int) -> tuple[Any, int]:
        m = np.zeros((n_out, n_in))
        r = (n_in - 1) / (n_out - 1) if ac else n_in / n_out
        for i in range(n_out):
            src = i * r if ac else (i + 0.5) * r - 0.5
            src = src if cubic else max(src, 0.0)
            f = min(math.floor(src), n_in - 1)
            lam = min(max(src - f, 0.0), 1.0)
            taps = range(f - 1, f + 3) if cubic else range(f, f + 2)
            for k in taps:
                m[i, min(max(k, 0), n_in - 1)] += kernel(k - f - lam)
        prec = 0
        while prec < 22 and int(0.5 + m.max() * 2 ** (prec + 1)) < 2**15:
            prec += 1
        return np.trunc(m * 2**prec + np.where(m < 0, -0.5, 0.5)).astype(np.int64), prec

    out = x.astype(np.int64)
    for axis, n_out in ((3, out_hw[1]), (2, out_hw[0])):
        if out.shape[axis] == n_out:
            continue
        w, prec = fixed(out.shape[axis], n_out)
        out = np.moveaxis(np.moveaxis(out, axis, -1) @ w.T, -1, axis)
        out = np.clip((out + 2 ** (prec - 1)) >> prec, 0, 255)
    return out.astype(np.uint8)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_interpolate_uint8_fixed_point(device: str, mode: str, align_corners: bool) -> None:
    x = np.random.default_rng(7).integers(0, 256, size=(2, 3, 5, 6), dtype=np.uint8)
    t = tc.tensor(x, device=device)
    for size in [(3, 9), (8, 4), (5, 11), (7, 6)]:
        got = F.interpolate(t, size=size, mode=mode, align_corners=align_corners)
        assert got.dtype == tc.uint8
        want = _uint8_oracle(x, size, mode == "bicubic", align_corners)
        np.testing.assert_array_equal(np.array(got.tolist()), want)
        cl = t.contiguous(memory_format=tc.channels_last)
        got_cl = F.interpolate(cl, size=size, mode=mode, align_corners=align_corners)
        assert got_cl.is_contiguous(memory_format=tc.channels_last)
        np.testing.assert_array_equal(np.array(got_cl.tolist()), want)


def test_interpolate_uint8_values(device: str) -> None:
    # 132.5 rounds up; a height that does not change is not resampled.
    x = tc.tensor([[[[0, 255, 10, 100]]]], dtype=tc.uint8, device=device)
    got = F.interpolate(x, size=(1, 7), mode="bilinear")
    assert got.tolist() == [[[[0, 91, 237, 133, 16, 68, 100]]]]
    # Reference values of PyTorch's anti-aliased uint8 resize.
    img = [[0, 255, 10, 100, 7], [30, 40, 250, 0, 1], [9, 99, 199, 255, 128]]
    x = tc.tensor([[img]], dtype=tc.uint8, device=device)
    got = F.interpolate(x, size=(2, 7), mode="bilinear", antialias=True)
    want = [11, 105, 153, 100, 73, 38, 5, 17, 51, 118, 218, 176, 126, 80]
    assert got.flatten().tolist() == want
    got = F.interpolate(x, size=(5, 3), mode="bicubic", antialias=True)
    assert got.flatten().tolist() == [
        117,
        88,
        44,
        84,
        112,
        18,
        35,
        154,
        0,
        36,
        185,
        119,
        43,
        201,
        200,
    ]
    with pytest.raises(NotImplementedError, match="not implemented for 'Byte'"):
        F.interpolate(x[0], size=9, mode="linear")
    with pytest.raises(NotImplementedError, match="not implemented for 'Int'"):
        F.interpolate(x.int(), size=(3, 3), mode="bilinear")
