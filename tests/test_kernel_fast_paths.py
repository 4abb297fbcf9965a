"""The faster paths of everyday CPU kernels against the plain computation they replace (or a
float64 oracle): avg_pool2d's strided window sums, batch_norm's fused evaluation, sort's
unstable argsort, on edge values (nan, inf, -0), empty, non-contiguous and 16-bit inputs."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close, dtype_unsupported, flushes_subnormals

F = tc.nn.functional


def _data(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[:5] = [np.nan, np.inf, -np.inf, -0.0, 0.0]
    return x


def _window_sums(x: np.ndarray, k: tuple[int, int], s: tuple[int, int]) -> np.ndarray:
    """NumPy's sum over a windows view: the reduction the strided sums must reproduce."""
    outs = [(x.shape[2 + i] - k[i]) // s[i] + 1 for i in range(2)]
    st = x.strides
    win = np.lib.stride_tricks.as_strided(
        x, x.shape[:2] + tuple(outs) + k, st[:2] + (st[2] * s[0], st[3] * s[1]) + st[2:]
    )
    with np.errstate(all="ignore"):
        return win.sum(axis=(4, 5))


@pytest.mark.parametrize(("k", "s"), [((2, 2), (2, 2)), ((3, 3), (1, 1)), ((2, 3), (3, 1))])
def test_avg_pool2d_sums_windows_in_numpys_order(device: str, k: tuple, s: tuple) -> None:
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    x = _data((2, 3, 9, 11))
    got = F.avg_pool2d(tc.from_numpy(x).to(device), k, s).cpu().numpy()
    with np.errstate(all="ignore"):
        want = _window_sums(x, k, s) / np.float32(math.prod(k))
    if device == "cpu":  # the same additions in the same order: the same bits
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_avg_pool2d_edge_inputs(device: str) -> None:
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    x = tc.from_numpy(_data((2, 3, 8, 6))).to(device)
    for dtype in (tc.float16, tc.bfloat16, tc.float64):
        if dtype_unsupported(device, dtype):
            continue
        got = F.avg_pool2d(x.to(dtype), 2, padding=1, count_include_pad=False)
        want = F.avg_pool2d(x.to(dtype).double(), 2, padding=1, count_include_pad=False)
        assert got.dtype == dtype
        assert_close(got.cpu(), want.to(dtype).cpu(), equal_nan=True)
    # a transposed (non-contiguous) input, and a window larger than the strided path takes
    xt = x.transpose(2, 3)
    assert_close(F.avg_pool2d(xt, 2).cpu(), F.avg_pool2d(xt.contiguous(), 2).cpu(), equal_nan=True)
    assert_close(
        F.avg_pool2d(x, (1, 6)).cpu(),
        x.double().mean(-1, keepdim=True).float().cpu(),
        equal_nan=True,
    )
    empty = F.avg_pool2d(tc.zeros(0, 3, 4, 4, device=device), 2)
    assert empty.shape == (0, 3, 2, 2)


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.float16, tc.bfloat16])
def test_batch_norm_eval_is_one_scale_and_shift(device: str, dtype: tc.dtype) -> None:
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    rng = np.random.default_rng(1)
    x = _data((4, 5, 3, 2))
    rm, rv, w, b = (rng.standard_normal(5).astype(np.float32) for _ in range(4))
    rv = np.abs(rv)
    rv[0] = 0.0  # eps alone
    pd = tc.float64 if dtype is tc.float64 else tc.float32
    t = lambda a: tc.from_numpy(a).to(device, pd)  # noqa: E731
    xs = tc.from_numpy(x).to(device, dtype)
    x64 = xs.double().cpu().numpy()
    c = (1, 5, 1, 1)
    for weight, bias in [(None, None), (w, b)]:
        got = F.batch_norm(
            xs,
            t(rm),
            t(rv),
            None if weight is None else t(weight),
            None if bias is None else t(bias),
        )
        scale = 1 / np.sqrt(rv.astype(np.float64) + 1e-5)
        if weight is not None:
            scale = scale * w
        shift = -rm * scale + (0 if bias is None else b)
        with np.errstate(all="ignore"):
            want = x64 * scale.reshape(c) + shift.reshape(c)
            # error of a rounded x * s + t: a few ulp of its larger term
            size = np.abs(x64 * scale.reshape(c)) + np.abs(shift.reshape(c))
        eps = {tc.float64: 1e-15, tc.float32: 1e-6}.get(dtype, 1e-2)
        g = got.double().cpu().numpy()
        assert got.dtype == dtype
        np.testing.assert_array_equal(np.isnan(g), np.isnan(want))
        fin = np.isfinite(want)
        assert (np.abs(g[fin] - want[fin]) <= eps * size[fin] + 1e-30).all(), dtype
        np.testing.assert_array_equal(g[~fin], want[~fin])
    # a non-contiguous input, and an empty batch
    xt = xs.transpose(2, 3)
    assert_close(
        F.batch_norm(xt, t(rm), t(rv)).cpu(),
        F.batch_norm(xt.contiguous(), t(rm), t(rv)).cpu(),
        equal_nan=True,
    )
    assert F.batch_norm(tc.zeros(0, 5, device=device, dtype=dtype), t(rm), t(rv)).shape == (0, 5)


def _stable_order(a: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    if not descending:
        return np.argsort(a, axis=dim, kind="stable")
    n = a.shape[dim]
    return (n - 1) - np.flip(np.argsort(np.flip(a, dim), axis=dim, kind="stable"), dim)


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_is_stable_with_ties_in_some_rows(
    device: str, dtype: tc.dtype, descending: bool
) -> None:
    # Rows without ties take the unstable sorts, rows with ties (equal values, -0.0 next to
    # 0.0, two NaNs) the stable one; past a quarter of tied rows, all rows the stable one.
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    a = np.random.default_rng(3).standard_normal((40, 64)).astype(np.float32)
    a[0, :3] = [np.nan, 1.0, np.nan]
    a[1, :2] = [-0.0, 0.0]
    a[2, :4] = [2.0, 5.0, 2.0, 2.0]
    a[3, 5] = np.nan  # one NaN: no tie
    many = np.round(a * 2)  # ties in most rows
    for arr in (a, many, a[:, :1]):
        for dim in (0, 1):
            t = tc.from_numpy(arr).to(device, dtype)
            t = t if dim else t.T.contiguous().T  # sorted along a non-contiguous dim too
            want = _stable_order(arr.astype(np.float64), dim, descending)
            v, i = t.sort(dim, descending=descending)
            np.testing.assert_array_equal(i.cpu().numpy(), want)
            got_v = v.cpu().numpy()
            want_v = np.take_along_axis(arr.astype(got_v.dtype), want, dim)
            np.testing.assert_array_equal(np.signbit(got_v), np.signbit(want_v))
            np.testing.assert_array_equal(got_v, want_v)
            np.testing.assert_array_equal(t.argsort(dim, descending=descending).cpu().numpy(), want)


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.float16, tc.bfloat16])
def test_clamp_keeps_the_input_where_it_equals_a_bound(device: str, dtype: tc.dtype) -> None:
    # PyTorch's values: min(max(x, lo), hi) that keeps x on a tie (-0.0 clamped at 0.0 stays
    # -0.0, 0.0 clamped at -0.0 stays 0.0); NaN in x or in a bound gives NaN.
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    x = tc.tensor([-0.0, 0.0, 0.5, -0.5, math.nan, math.inf, -math.inf, 3.0], device=device)
    x = x.to(dtype)
    cases = [
        ((-math.inf, -0.0), [-0.0, 0.0, -0.0, -0.5, math.nan, -0.0, -math.inf, -0.0]),
        ((0.0, math.inf), [-0.0, 0.0, 0.5, 0.0, math.nan, math.inf, 0.0, 3.0]),
        ((-0.0, None), [-0.0, 0.0, 0.5, -0.0, math.nan, math.inf, -0.0, 3.0]),
        ((None, 0.0), [-0.0, 0.0, 0.0, -0.5, math.nan, 0.0, -math.inf, 0.0]),
        ((-1.0, 1.0), [-0.0, 0.0, 0.5, -0.5, math.nan, 1.0, -1.0, 1.0]),
        ((2.0, 1.0), [1.0] * 4 + [math.nan] + [1.0] * 3),
        ((math.nan, 1.0), [math.nan] * 8),
    ]
    for (lo, hi), want in cases:
        got = x.clamp(lo, hi).double().cpu().numpy()
        w = np.array(want)
        np.testing.assert_array_equal(got, w)
        np.testing.assert_array_equal(np.signbit(got[~np.isnan(w)]), np.signbit(w[~np.isnan(w)]))
    # a non-contiguous input, and an empty one
    xs = x[::2]
    assert_close(xs.clamp(-1, 1).cpu(), x.clamp(-1, 1)[::2].cpu(), equal_nan=True)
    assert x[:0].clamp(0, 1).shape == (0,)


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.int64])
def test_scans_along_a_leading_axis_add_in_accumulates_order(device: str, dtype: tc.dtype) -> None:
    # cumsum / cumprod along a leading axis add slice by slice: the same operations in the
    # same order as NumPy's accumulate, so the same bits (here against NumPy on CPU).
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    a = _data((6, 3, 300)).astype(np.float64) * 3
    if dtype is tc.int64:
        a = np.nan_to_num(a, nan=0, posinf=7, neginf=-7).astype(np.int64)
    t = tc.from_numpy(a).to(device, dtype)
    wide = np.dtype(str(dtype).removeprefix("tensorcore."))
    for view, arr in ((t, a), (t.transpose(1, 2), a.transpose(0, 2, 1))):
        for d in (0, 1):
            got = view.cumsum(d).cpu().numpy()
            with np.errstate(all="ignore"):
                want = np.cumsum(arr.astype(wide), axis=d, dtype=wide)
                pwant = np.cumprod(arr.astype(wide) % 3, axis=d, dtype=wide)
            if device == "cpu":
                np.testing.assert_array_equal(got, want)
                np.testing.assert_array_equal((view % 3).cumprod(d).cpu().numpy(), pwant)
            else:  # (a GPU scan adds in its own order: cancellation near zero)
                assert_close(tc.from_numpy(got), tc.from_numpy(want), equal_nan=True,
                             rtol=1e-5, atol=1e-4)  # fmt: skip
    x = t.clone()
    x.cumsum_(0)  # in place: the output is the input
    np.testing.assert_array_equal(x.cpu().numpy(), t.cumsum(0).cpu().numpy())
    assert t[:, :0].cumsum(0).shape == (6, 0, 300)


@pytest.mark.parametrize("dtype", [tc.float32, tc.float16, tc.int64, tc.bool])
def test_large_gathers_take_flat_positions(device: str, dtype: tc.dtype) -> None:
    # Gathers of at least 2**16 elements take flat positions a block of rows at a time:
    # exactly the elements take_along_axis names, for every dim, an index smaller than the
    # input in the other dims, and a non-contiguous input.
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    rng = np.random.default_rng(4)
    a = _data((20, 70, 60))
    x = tc.from_numpy(a).to(device, dtype)
    xa = x.cpu().numpy()
    for d in range(3):
        shape = [19, 69, 59]
        shape[d] = 90
        ix = rng.integers(0, a.shape[d], shape)
        got = x.gather(d, tc.from_numpy(ix).to(device)).cpu().numpy()
        part = xa[tuple(slice(0, n) if i != d else slice(None) for i, n in enumerate(shape))]
        want = np.take_along_axis(part, ix, axis=d)
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    xt = x.transpose(0, 2)
    ix = tc.from_numpy(rng.integers(0, 20, (60, 70, 20))).to(device)
    np.testing.assert_array_equal(
        xt.gather(2, ix).cpu().numpy().view(np.uint8),
        xt.contiguous().gather(2, ix).cpu().numpy().view(np.uint8),
    )
    with pytest.raises(RuntimeError, match="index 60 is out of bounds for dimension 2"):
        x.gather(2, tc.full((20, 70, 60), 60, dtype=tc.int64, device=device))


@pytest.mark.parametrize("trailing", [0, 1, 2])
def test_accumulating_index_put_adds_rows_as_add_at(device: str, trailing: int) -> None:
    # Rows are added in rounds of fancy-index adds (one per repeat of an index) whether or not
    # the key spells out the trailing full slices (the gradient of x[i] writes (i, :)); the
    # sums must be add.at's, bit for bit (indices repeated up to the rounds' limit), on edge
    # values.
    rng = np.random.default_rng(5)
    base = _data((40, 6, 33), 1)
    idx = rng.integers(0, 40, 300)
    idx[:15] = 7
    vals = _data((300, 6, 33), 2)
    want = base.copy()
    np.add.at(want, idx, vals)
    t = tc.tensor(base, device=device)
    key = [tc.tensor(idx, device=device)] + [None] * trailing
    got = t.index_put(key, tc.tensor(vals, device=device), accumulate=True)
    # (bit for bit on the CPU; a GPU's atomic adds come in any order)
    tol = {"rtol": 0, "atol": 0} if device == "cpu" else {"rtol": 1e-5, "atol": 1e-5}
    assert_close(got, want, equal_nan=True, **tol)
    x = tc.tensor(base, device=device, requires_grad=True)
    (grad,) = tc.autograd.grad(
        x[tc.tensor(idx, device=device)], [x], tc.tensor(vals, device=device)
    )
    zeros = np.zeros_like(base)
    np.add.at(zeros, idx, vals)
    assert_close(grad, zeros, equal_nan=True, **tol)


@pytest.mark.parametrize("dim", [1, 2])
@pytest.mark.parametrize("transposed", [False, True])
def test_index_add_along_a_later_dim_or_of_a_transposed_source_adds_as_add_at(
    device: str, dim: int, transposed: bool
) -> None:
    # The rounds then run on contiguous copies with the dim first (the index_select
    # gradient's index_add along dim 1): the same sums, bit for bit, as add.at along dim,
    # the rows of the index repeated beyond the rounds' limit included, on edge values.
    rng = np.random.default_rng(6)
    base = _data((6, 40, 33), 1).swapaxes(1, dim).copy()
    idx = rng.integers(0, 40, 300)
    idx[:15] = 7
    shape = list(base.shape)
    shape[dim] = 300
    vals = _data(tuple(shape), 2)
    want = base.copy()
    np.add.at(want, (slice(None),) * dim + (idx,), vals)
    src = (
        tc.tensor(vals.T.copy(), device=device).T if transposed else tc.tensor(vals, device=device)
    )
    got = tc.tensor(base, device=device).index_add(dim, tc.tensor(idx, device=device), src)
    tol = {"rtol": 0, "atol": 0} if device == "cpu" else {"rtol": 1e-5, "atol": 1e-5}
    assert_close(got, want, equal_nan=True, **tol)


def test_one_index_array_after_full_slices_takes_as_numpy_indexes(device: str) -> None:
    # x[:, idx] (and x[..., idx] with an index of any shape) takes along that dim: NumPy's
    # fancy index values, negative indices, PyTorch's IndexError, and the gradient.
    x = _data((5, 7, 6))
    idx = np.array([[0, -1, 3], [6, 2, 2]])
    t = tc.tensor(x, device=device, requires_grad=True)
    i = tc.tensor(idx, device=device)
    for got, want in [(t[:, i], x[:, idx]), (t[..., i[:, :2] % 6], x[..., idx[:, :2] % 6])]:
        assert_close(got, want, rtol=0, atol=0, equal_nan=True)
    (g,) = tc.autograd.grad(t[:, i], [t], tc.ones(5, 2, 3, 6, device=device))
    want_g = np.zeros_like(x)
    np.add.at(want_g, (slice(None), idx), 1.0)
    assert_close(g, want_g)
    with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 1 with size 7"):
        t[:, tc.tensor([1, 7], device=device)]
    with pytest.raises(IndexError, match="out of bounds for dimension 1 with size 0"):
        tc.zeros(2, 0, device=device)[:, tc.tensor([0], device=device)]


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.float16])
def test_nan_to_num_of_finite_values_is_a_copy(device: str, dtype: tc.dtype) -> None:
    if device == "meta" or dtype_unsupported(device, dtype):
        pytest.skip(f"no {dtype} data on {device}")
    x = np.random.default_rng(4).standard_normal((8, 6)).astype(np.float32)
    x[0, 0], x[1, 1] = -0.0, 6e4
    t = tc.tensor(x, device=device).to(dtype)
    for src in (t, t.T):
        got = src.nan_to_num(posinf=1.0)
        assert got.dtype == dtype and got.data_ptr() != src.data_ptr()
        assert_close(got, src, rtol=0, atol=0)
        assert math.copysign(1, got.flatten()[0].item()) == -1  # (-0.0 stays)
    same = t.clone()
    assert same.nan_to_num_() is same
    assert_close(same, t, rtol=0, atol=0)
    t[2, 2] = math.nan  # (and one to replace: the general path)
    assert t.nan_to_num()[2, 2].item() == 0.0


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_gather_by_an_index_expanded_over_the_other_dims_takes_slices(
    device: str, dim: int
) -> None:
    # (x.gather(dim, i expanded): NumPy's take_along_axis values, into a fresh and into a
    # non-contiguous out=, and the gradient)
    x = _data((5, 6, 7))
    idx = np.random.default_rng(8).integers(0, x.shape[dim], 9)
    shape = list(x.shape)
    shape[dim] = 9
    view = [1, 1, 1]
    view[dim] = 9
    t = tc.tensor(x, device=device, requires_grad=True)
    i = tc.tensor(idx, device=device).reshape(view).expand(shape)
    want = np.take_along_axis(x, np.broadcast_to(idx.reshape(view), shape), dim)
    assert_close(t.gather(dim, i), want, rtol=0, atol=0, equal_nan=True)
    out = tc.empty(shape[::-1], device=device).permute(2, 1, 0)
    tc.gather(t.detach(), dim, i, out=out)
    assert_close(out, want, rtol=0, atol=0, equal_nan=True)
    (g,) = tc.autograd.grad(t.gather(dim, i).sum(), [t])
    counts = np.zeros(x.shape[dim])
    np.add.at(counts, idx, 1.0)
    view[dim] = x.shape[dim]
    assert_close(g, np.broadcast_to(counts.reshape(view), x.shape).astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.float16])
def test_kthvalue_of_a_long_line_is_the_stable_sorts_element(device: str, dtype: Any) -> None:
    # (a partition on the CPU: the same value and index as the stable sort's k-th element,
    # among ties, -0.0 and NaN; the k chosen to land on each)
    if device == "meta" or dtype_unsupported(device, tc.from_numpy(np.zeros(1, dtype)).dtype):
        pytest.skip(f"no {dtype} data on {device}")
    rng = np.random.default_rng(9)
    x = rng.integers(-4, 4, 3000).astype(dtype)
    if dtype != np.int64:
        x[rng.integers(0, 3000, 40)] = np.nan
        x[rng.integers(0, 3000, 40)] = -0.0
    order = np.argsort(x, kind="stable")
    t = tc.tensor(x, device=device)
    for k in (1, 700, 1500, 2999, 3000, int(np.flatnonzero(x[order] == 0)[0]) + 1):
        v, i = t.kthvalue(k)
        assert int(i) == order[k - 1]
        want = x[order[k - 1] : order[k - 1] + 1]
        np.testing.assert_array_equal(
            np.atleast_1d(v.cpu().numpy()).view(np.uint8), want.view(np.uint8)
        )


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.float16])
def test_sign_of_floats_is_nps_with_nan_zero(device: str, dtype: tc.dtype) -> None:
    # (np.sign's values, +0.0 for -0.0, and PyTorch's 0 for NaN; in place and strided too)
    if device == "meta" or dtype_unsupported(device, dtype):
        pytest.skip(f"no {dtype} data on {device}")
    x = _data((7, 9))
    want = np.sign(x)
    want[np.isnan(x)] = 0
    t = tc.tensor(x, device=device).to(dtype)
    assert_close(t.sign(), want.astype(np.float32), rtol=0, atol=0, check_dtype=False)
    assert_close(t.T.sign(), want.T.astype(np.float32), rtol=0, atol=0, check_dtype=False)
    assert math.copysign(1, t.sign()[0, 3].item()) == 1  # (x[0, 3] is -0.0)
    u = t.clone()
    assert u.sign_() is u
    assert_close(u, want.astype(np.float32), rtol=0, atol=0, check_dtype=False)


@pytest.mark.parametrize(
    ("line", "shape"),
    [
        ((1, 1, 64), (4, 32, 64)),
        ((1, 32, 1), (4, 32, 64)),
        ((32, 1), (4, 32, 64)),
        ((4, 1, 1), None),
    ],
)
@pytest.mark.parametrize("picks", ["every other", "irregular", "none", "one"])
def test_masked_fill_with_a_mask_along_one_dim_writes_those_slices(
    device: str, line: tuple[int, ...], shape: Any, picks: str
) -> None:
    # (index_fill's mask, x[:, cols] = v's: a slice or an index along that dim on the CPU;
    # np.where's values, a 0-d tensor value, an integer result and its overflow error)
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    shape = shape or (4, 32, 64)
    n = max(line)
    on = {
        "every other": np.arange(n) % 2 == 0,
        "irregular": np.isin(np.arange(n), [0, 1, 5, n - 1]),
        "none": np.zeros(n, bool),
        "one": np.arange(n) == n // 2,
    }[picks].reshape(line)
    x = _data(shape)
    t, m = tc.tensor(x, device=device), tc.tensor(on, device=device)
    assert_close(
        t.masked_fill(m, -2.5), np.where(on, np.float32(-2.5), x), rtol=0, atol=0, equal_nan=True
    )
    v = tc.tensor(7.0, device=device)
    on3 = on.reshape((1,) * (3 - on.ndim) + on.shape).T  # (the transpose's line)
    got = t.T.masked_fill(tc.tensor(on3, device=device), v)
    assert_close(got, np.where(on3, np.float32(7), x.T), rtol=0, atol=0, equal_nan=True)
    i = tc.tensor(np.arange(x.size).reshape(shape) % 200, dtype=tc.uint8, device=device)
    want = np.where(on, 255, np.arange(x.size).reshape(shape) % 200)
    assert_close(i.masked_fill(m, 255), want.astype(np.uint8), rtol=0, atol=0)
    if picks != "none" and device == "cpu":
        with pytest.raises(RuntimeError, match="without overflow"):
            i.masked_fill(m, 300)


@pytest.mark.parametrize("slope", [0.01, 0.5, 1.0, 2.0, 0.0, -0.2, math.inf])
@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.float16])
def test_leaky_relu_and_hardtanh_pick_as_where_and_clamp(
    device: str, slope: float, dtype: tc.dtype
) -> None:
    # leaky_relu takes the larger (slope <= 1) or smaller (slope > 1) of x and x * slope for a
    # finite positive slope; hardtanh clamps in its result: the where's and clamp's bits, on
    # NaN, infinities and signed zeros.
    x = _data((7, 33), 3).astype(np.float64)
    # (subnormals where the device computes with them: a GPU flushes them to zero)
    tiny = 1e-40 if not flushes_subnormals(device) else 1e-30
    x[0, 5:9] = [tiny, -tiny, 3e38, -3e38]
    t = tc.tensor(x, device=device).to(dtype)
    a = tc.tensor(x, device=device).to(dtype).to(tc.float32 if dtype is tc.float16 else dtype)
    an = a.cpu().numpy()
    with np.errstate(all="ignore"):
        want = np.where(an > 0, an, an * an.dtype.type(slope))
    got = F.leaky_relu(t, slope)
    assert_close(got, tc.tensor(want, device=device).to(dtype), rtol=0, atol=0, equal_nan=True)
    # (in place the result is written over the input it picks from: the same bits)
    assert_close(F.leaky_relu_(t.clone(), slope), got, rtol=0, atol=0, equal_nan=True)
    # (the signs of numbers: a NaN's sign bit is the hardware's, -inf * 0 is -nan on x86)
    number = ~np.isnan(want)
    assert np.array_equal(np.signbit(got.float().cpu().numpy())[number], np.signbit(want)[number])
    assert_close(
        F.hardtanh(t, -0.5, 0.25),
        tc.tensor(np.minimum(np.maximum(an, -0.5), 0.25), device=device).to(dtype),
        rtol=0,
        atol=0,
        equal_nan=True,
    )


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.float16, tc.complex64])
def test_cube_is_two_products_in_and_out_of_place(device: str, dtype: tc.dtype) -> None:
    # x ** 3 is (x * x) * x (PyTorch's product, not the general power), written into the
    # result in two passes; in place and into an out= over x it must still read x unsquared.
    if dtype_unsupported(device, dtype):
        pytest.skip(f"{dtype} is not supported on {device}")
    x = tc.tensor(_data((6, 9), 5), device=device).to(dtype)
    # (in the dtype; a 16-bit cube is computed in float32 and rounded once)
    w = (x.float() if dtype is tc.float16 else x).cpu().numpy()
    with np.errstate(all="ignore"):
        want = tc.tensor((w * w) * w, device=device).to(dtype)
    tol = {"rtol": 0, "atol": 0}
    assert_close(x**3, want, equal_nan=True, **tol)
    assert_close(x.clone().pow_(3), want, equal_nan=True, **tol)
    y = x.clone()
    tc.pow(y, 3, out=y)
    assert_close(y, want, equal_nan=True, **tol)
    z = x.clone()
    tc.pow(z[:, 1:], 3, out=z[:, :-1])  # (an out= overlapping the input, shifted)
    assert_close(z[:, :-1], want[:, 1:], equal_nan=True, **tol)


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.int64, tc.bool, tc.complex64])
def test_copy_of_a_last_dim_broadcast_from_one_element(device: str, dtype: tc.dtype) -> None:
    # clone's k strided writes against NumPy's broadcast copy (and non-contiguous sources)
    a = np.random.default_rng(1).standard_normal((3, 5, 4)) * 3
    x = tc.tensor(a, device=device).to(dtype)
    for src in (x, x.transpose(0, 1)):
        for k in (2, 3, 16):
            rep = src.unsqueeze(-1).expand(*src.shape, k)
            got = rep.reshape(*src.shape[:-1], -1)
            want = np.repeat(src.cpu().numpy(), k, axis=-1)
            assert got.is_contiguous() and np.array_equal(got.cpu().numpy(), want)


def test_nearest_upsampling_by_an_integer_factor_sums_its_gradient(device: str) -> None:
    # the broadcast path against index_select's, values and gradients, every nearest mode
    a = _data((2, 3, 5, 7))
    for kw in ({"scale_factor": 2}, {"scale_factor": (3, 2)}, {"size": (10, 21)},
               {"scale_factor": 2, "mode": "nearest-exact"}):  # fmt: skip
        x = tc.tensor(a, device=device, requires_grad=True)
        y = F.interpolate(x, **kw)  # type: ignore[arg-type]
        h, w = y.shape[2:]
        rows = tc.arange(h, device=device) * 5 // h
        cols = tc.arange(w, device=device) * 7 // w
        want = x.detach().index_select(2, rows).index_select(3, cols)
        assert_close(y, want, equal_nan=True)
        g = tc.tensor(_data((2, 3, h, w), 1), device=device).nan_to_num(0.0)
        if device != "cpu":  # (a GPU sums +-max in its own order: inf - inf, or 0)
            g = tc.tensor(_data((2, 3, h, w), 1), device=device).nan_to_num(0.0, 0.0, 0.0)
        y.backward(g)
        gw = g.reshape(2, 3, 5, h // 5, 7, w // 7).sum((3, 5))
        assert_close(x.grad, gw, rtol=1e-6, atol=1e-6)


def _softplus64(x: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    bx = x * beta
    return np.where(bx > threshold, x, np.logaddexp(bx, 0.0) / beta)


_FORMULAS = {
    "silu": (lambda x: F.silu(x), lambda x: x / (1 + np.exp(-x))),
    "mish": (lambda x: F.mish(x), lambda x: x * np.tanh(np.logaddexp(x, 0.0))),
    "hardswish": (lambda x: F.hardswish(x), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "hardsigmoid": (lambda x: F.hardsigmoid(x), lambda x: np.clip(x + 3, 0, 6) / 6),
    "logsigmoid": (lambda x: F.logsigmoid(x), lambda x: -np.logaddexp(-x, 0.0)),
    "softplus": (lambda x: F.softplus(x), lambda x: _softplus64(x, 1.0, 20.0)),
    "softplus_b2_t3": (
        lambda x: F.softplus(x, 2.0, 3.0),
        lambda x: _softplus64(x, 2.0, 3.0),
    ),
}


@pytest.mark.parametrize("name", sorted(_FORMULAS))
def test_activation_formulas_over_pieces(device: str, name: str) -> None:
    # A large result is computed piece by piece in its own memory (formula_kernel): each
    # element as in a small call of its own, and as NumPy's float64 formula to float32
    # rounding; the pieces without an element past softplus's threshold skip its copy.
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    fn, oracle = _FORMULAS[name]
    x = _data((3, 70_001)) * 6
    x[2, 1000:] = -np.abs(x[2, 1000:])  # a piece with no element past the threshold
    got = fn(tc.from_numpy(x).to(device)).cpu().numpy()
    parts = [fn(tc.from_numpy(x[:, i : i + 997]).to(device)).cpu().numpy() for i in (0, 70_000)]
    np.testing.assert_array_equal(got[:, :997], parts[0])
    np.testing.assert_array_equal(got[:, 70_000:], parts[1])
    with np.errstate(all="ignore"):
        want = oracle(x.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name", ["silu", "mish", "hardswish", "hardsigmoid", "softplus"])
def test_activation_gradients_over_pieces_match_small_calls(device: str, name: str) -> None:
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    fn = getattr(F, name)
    x = _data((2, 70_001), seed=1) * 6
    g = np.random.default_rng(2).standard_normal(x.shape).astype(np.float32)

    def grad(xs: np.ndarray, gs: np.ndarray) -> np.ndarray:
        t = tc.from_numpy(xs.copy()).to(device).requires_grad_()
        fn(t).backward(tc.from_numpy(gs.copy()).to(device))
        return t.grad.cpu().numpy()

    whole = grad(x, g)
    np.testing.assert_array_equal(whole[:, -997:], grad(x[:, -997:], g[:, -997:]))
    np.testing.assert_array_equal(whole[:, :997], grad(x[:, :997], g[:, :997]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize(
    ("shape", "axis"),
    [
        ((256, 1024), 1),
        ((256, 1024), 0),
        ((16411,), 0),
        ((371, 53), 1),
        ((50, 17, 33), 1),
        ((128, 128), None),
    ],
)
def test_products_fold_in_a_tree_as_accurate_as_numpys_reduce(
    dtype: type, shape: tuple[int, ...], axis: int | None
) -> None:
    # prod's kernel multiplies halves elementwise (NumPy's multiply.reduce is a scalar loop);
    # the values agree with NumPy's product to rounding, with and without keepdim
    from tensorcore_xp.helpers import fold_product

    x = (1 + 0.01 * np.random.default_rng(0).standard_normal(shape)).astype(dtype)
    for keep in (False, True):
        want = x.prod(axis=axis, keepdims=keep)
        out = np.empty(want.shape, dtype)
        assert fold_product(np, x, axis, out, keep)
        np.testing.assert_allclose(out, want, rtol=1e-5 if dtype == np.float32 else 1e-12)
        t = tc.tensor(x)
        got = t.prod() if axis is None else t.prod(axis, keepdim=keep)
        if axis is not None or not keep:
            np.testing.assert_allclose(
                got.numpy(), want, rtol=1e-5 if dtype == np.float32 else 1e-12
            )
    # not taken: integers (exact either way), short axes, an out sharing memory
    assert not fold_product(np, np.arange(64).reshape(4, 16), 1, np.empty(4, np.int64), False)
    assert not fold_product(np, x[..., :3] if x.ndim > 1 else x[:3], -1, np.empty(1), False)


@pytest.mark.parametrize("w", [0.1, 0.5, 0.9, -0.25])
def test_lerp_with_a_number_weight_writes_pytorchs_formula_into_any_operand(
    device: str, w: float
) -> None:
    # (the three-operation path an EMA's ``avg.lerp_(p, 1 - decay)`` takes: the result may
    # be written over ``self`` or over ``end``, each element after it is read)
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    d = b - a
    want = a + w * d if abs(w) < 0.5 else b - d * (1 - w)
    x, y = tc.tensor(a, device=device), tc.tensor(b, device=device)
    assert np.array_equal(x.lerp(y, w).cpu().numpy(), want)
    tc.lerp(x, y, w, out=y)
    assert np.array_equal(y.cpu().numpy(), want)
    x, y = tc.tensor(a, device=device), tc.tensor(b, device=device)
    x.lerp_(y, w)
    assert np.array_equal(x.cpu().numpy(), want)


@pytest.mark.parametrize("n", [0, 5, 300])
def test_bincount_kernel_counts_as_the_composite_and_numpy(device: str, n: int) -> None:
    """The backend's ``bincount`` (one call) gives the composite's result, dtype and bits:
    counts as NumPy's, float32 weights summed in float32 in index order (PyTorch's and the
    composite's), float64 and integer weights in float64."""
    from tensorcore.ops.composite import COMPOSITES

    rng = np.random.default_rng(n)
    vals = rng.integers(0, 40, n)
    x = tc.tensor(vals, device=device)
    weights = [
        None,
        tc.tensor(rng.standard_normal(n).astype(np.float32), device=device),
        tc.tensor(rng.standard_normal(n), device=device),
        tc.tensor(rng.integers(-5, 5, n), device=device),
    ]
    for w in weights:
        for minlength in (0, 3, 60):
            got = tc.bincount(x, w, minlength)
            want = COMPOSITES["bincount"](x, w, minlength)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert got.cpu().numpy().tobytes() == want.cpu().numpy().tobytes()
            ref = np.bincount(vals, None if w is None else w.cpu().numpy(), minlength)
            np.testing.assert_allclose(got.cpu().numpy(), ref, rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match="non-negative"):
        tc.bincount(tc.tensor([2, -1], device=device))
