"""What the small-call paths of the layer operators keep per shapes and arguments: the pools'
and convolutions' geometry (kernels and meta functions), the nearest resizing's and the
padding's source positions, and a row-major view's shared strides. Each is compared with the
computation it stands for, on repeated and interleaved calls (a kept entry must not leak into
another shape's call), with lists as well as tuples, and errors are never kept."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tensorcore as tc
from tensorcore._tensor import _CONTIG, contiguous_strides
from tensorcore.nn._sampling import _nearest_plan
from tensorcore.ops import meta_conv
from tensorcore.ops._padding import FEW_POSITIONS, _pad_index, _pad_positions

F = tc.nn.functional


def _max_pool_oracle(x: np.ndarray, k: tuple[int, int], s: tuple[int, int]) -> tuple:
    """Values and flat plane indices of a max pool without padding, one window at a time
    (the first maximum of each window; no NaN)."""
    n, c, h, w = x.shape
    oh, ow = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1
    vals = np.empty((n, c, oh, ow), x.dtype)
    idx = np.empty((n, c, oh, ow), np.int64)
    for a, b, i, j in itertools.product(range(n), range(c), range(oh), range(ow)):
        win = x[a, b, i * s[0] : i * s[0] + k[0], j * s[1] : j * s[1] + k[1]]
        p = int(np.argmax(win))
        vals[a, b, i, j] = win.flat[p]
        idx[a, b, i, j] = (i * s[0] + p // k[1]) * w + j * s[1] + p % k[1]
    return vals, idx


def test_pool_geometry_kept_per_shape_and_arguments(device: str) -> None:
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    rng = np.random.default_rng(0)
    shapes = [(1, 2, 6, 8), (2, 1, 7, 5), (1, 2, 6, 8)]  # (the first again: a kept plan)
    for shape, (k, s) in itertools.product(shapes, [((2, 2), (2, 2)), ((3, 2), (1, 2))]):
        x = rng.standard_normal(shape).astype(np.float32)
        vals, idx = _max_pool_oracle(x, k, s)
        for geo in ((k, s), (list(k), list(s))):  # (lists: the geometry computed afresh)
            got = tc.ops.functions.max_pool2d_with_indices(
                tc.from_numpy(x).to(device), geo[0], geo[1], [0, 0], [1, 1], False
            )
            np.testing.assert_array_equal(got[0].cpu().numpy(), vals)
            np.testing.assert_array_equal(got[1].cpu().numpy(), idx)
        avg = F.avg_pool2d(tc.from_numpy(x).to(device), k, s).cpu().numpy()
        want = np.stack(
            [
                x[:, :, i * s[0] : i * s[0] + k[0], j * s[1] : j * s[1] + k[1]].mean((2, 3))
                for i in range(vals.shape[2])
                for j in range(vals.shape[3])
            ],
            -1,
        ).reshape(vals.shape)
        np.testing.assert_allclose(avg, want, rtol=1e-6, atol=1e-6)


def test_meta_geometry_errors_are_not_kept() -> None:
    x = tc.empty(1, 2, 4, 4, device="meta")
    for _ in range(2):
        with pytest.raises(RuntimeError, match="output size would be too small"):
            meta_conv.meta_max_pool2d_with_indices(x, (5, 5), (1, 1), (0, 0), (1, 1), False)
    w = tc.empty(3, 2, 3, 3, device="meta")
    for _ in range(2):
        with pytest.raises(RuntimeError, match="Kernel size can't be greater"):
            meta_conv.meta_convolution(
                tc.empty(1, 2, 2, 2, device="meta"), w, None, (1, 1), (0, 0), (1, 1), False,
                (0, 0), 1,
            )  # fmt: skip
    # kept results equal a fresh computation, for tuples and for lists
    for args in (((1, 2, 4, 4), (2, 2), (2, 2), (0, 0), (1, 1), True),):
        kept = meta_conv._pool_geometry("max_pool2d", *args)
        assert kept == meta_conv._pool_geometry.__wrapped__("max_pool2d", *args)
        assert kept == meta_conv._pool_geometry("max_pool2d", *(list(a) for a in args[:-1]), True)
    shape = meta_conv.meta_convolution(
        x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1
    )[1][0]  # fmt: skip
    assert tuple(shape) == (1, 3, 4, 4)


@pytest.mark.parametrize("exact", [False, True])
def test_nearest_plan_matches_the_float64_formula(exact: bool) -> None:
    for n_in, n_out in itertools.product(range(1, 9), range(1, 20)):
        for scale in (None, n_out / n_in, 0.5, 2.0, 3.0):
            ratio = 1.0 / scale if scale is not None else n_in / n_out
            j = np.arange(n_out, dtype=np.float64)
            idx = np.minimum(np.floor(((j + 0.5) if exact else j) * ratio), n_in - 1)
            plan = _nearest_plan(n_in, n_out, scale, exact)
            if isinstance(plan, int):  # (a repeat by an integer factor)
                assert n_out == plan * n_in and plan > 1
                np.testing.assert_array_equal(idx, np.arange(n_out) // plan)
            else:
                np.testing.assert_array_equal(np.array(plan, dtype=np.float64), idx)


def _pad_oracle(size: int, lo: int, hi: int, mode: str) -> list[int]:
    """The padded dim's source positions, from NumPy's own padding of an arange."""
    src = np.arange(size)
    src = src[max(-lo, 0) : size - max(-hi, 0)]
    numpy_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    return np.pad(src, (max(lo, 0), max(hi, 0)), mode=numpy_mode).tolist()


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_positions_match_numpys_padding(mode: str) -> None:
    for size, lo, hi in itertools.product(range(1, 7), range(-2, 6), range(-2, 6)):
        kept = size - max(-lo, 0) - max(-hi, 0)
        if kept <= 0 or (mode == "reflect" and max(lo, hi) >= size):
            continue
        if mode == "circular" and max(lo, hi) > kept:
            with pytest.raises(RuntimeError, match="wrapping around more than once"):
                _pad_positions(size, lo, hi, mode)
            continue
        if mode == "reflect" and kept < size:  # (PyTorch reflects the uncropped dim)
            continue
        assert list(_pad_positions(size, lo, hi, mode)) == _pad_oracle(size, lo, hi, mode)


def test_unsqueeze_and_squeeze_of_a_row_major_tensor_share_their_shapes_strides() -> None:
    x = tc.zeros(3, 4)
    for v in (x.unsqueeze(0), x.unsqueeze(1), x.unsqueeze(-1), x.unsqueeze(0).squeeze(0)):
        assert v._stride is contiguous_strides(v._shape)
        assert v.is_contiguous()
    assert tc.zeros(3, 1, 4).squeeze()._stride is contiguous_strides((3, 4))
    # (past a dim of size 0, unsqueeze's stride is not the row-major one: kept as PyTorch's)
    e = tc.zeros(2, 0, 3).unsqueeze(1)
    assert e._stride == (3, 0, 3, 1) and e._stride is not _CONTIG.get(e._shape)
    t = x.t().unsqueeze(0)  # (not row-major: its own strides)
    assert t._stride == (4, 1, 4) and t._stride is not _CONTIG.get(t._shape)
    # and an operation on it takes the lane: the same result as on a copy
    y = tc.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal((y.unsqueeze(0) + 1).numpy(), (y.clone()[None] + 1).numpy())
    a = y.numpy()
    want = a[:, None] - a[None, :]
    np.testing.assert_array_equal((y.unsqueeze(-2) - y.unsqueeze(-3)).numpy(), want)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_long_dims_take_the_tensor_path_with_the_same_positions(mode: str) -> None:
    size = FEW_POSITIONS + 10  # (past the Python positions' length)
    for lo, hi in ((3, 2), (0, 5), (-2, 4), (4, -1)):
        got = _pad_index(size, lo, hi, mode, "cpu").tolist()
        assert got == list(_pad_positions(size, lo, hi, mode))
    for n_in, n_out, exact in ((100, FEW_POSITIONS + 1, False), (300, 450, True)):
        x = tc.arange(float(n_in)).reshape(1, 1, n_in)
        mode_name = "nearest-exact" if exact else "nearest"
        got = F.interpolate(x, size=n_out, mode=mode_name)[0, 0].tolist()
        assert got == [float(i) for i in _nearest_plan(n_in, n_out, None, exact)]
