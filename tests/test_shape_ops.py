"""Shape, search, set and statistics operators against NumPy: grids, stacks and splits,
differences and repeats, Kronecker and block-diagonal products, searchsorted and bucketize,
unique, isin, histc, running extremes, logcumsumexp, order statistics and quantiles, and the
NaN-ignoring reductions, with PyTorch's semantics where they differ from NumPy's.
Gradients are checked by the table-driven ``test_autograd_gradcheck.py``."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tensorcore as tc
from tensorcore.testing import assert_close, to_numpy
from tensorcore.testing import strategies as tcst

_INTERPOLATIONS = ["linear", "lower", "higher", "midpoint", "nearest"]


def _t(device: str, a: Any, dtype: Any = None) -> tc.Tensor:
    return tc.tensor(np.asarray(a), dtype=dtype, device=device)


def _draw_array(data: st.DataObject, min_dims: int = 1, high: int = 4) -> np.ndarray:
    shape = data.draw(tcst.shapes(min_dims=min_dims, max_dims=3, max_side=4), label="shape")
    seed = data.draw(st.integers(0, 2**16), label="seed")
    return np.random.default_rng(seed).integers(0, high, shape).astype(np.float64)


# ---------------------------------------------------------------- grids and broadcasting
@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid(device: str, indexing: str) -> None:
    a, b, c = np.arange(3.0), np.arange(2.0), np.arange(4.0)
    got = tc.meshgrid(_t(device, a), _t(device, b), _t(device, c), indexing=indexing)
    for g, w in zip(got, np.meshgrid(a, b, c, indexing=indexing), strict=True):
        assert_close(g, w)
    assert 0 in got[0].stride()  # broadcast views, as PyTorch returns


def test_meshgrid_warns_without_indexing_and_checks(device: str) -> None:
    x = _t(device, [1.0, 2.0])
    with pytest.warns(UserWarning, match="indexing argument"):
        r = tc.meshgrid(x, x)
    assert r[0].shape == (2, 2)
    with pytest.raises(RuntimeError, match="indexing must be one of"):
        tc.meshgrid(x, indexing="yx")
    with pytest.raises(RuntimeError, match="same dtype"):
        tc.meshgrid(x, x.to(tc.int64), indexing="ij")
    with pytest.raises(RuntimeError, match="0D or 1D"):
        tc.meshgrid(x.reshape(1, 2), indexing="ij")


def test_broadcast_tensors_and_moveaxis(device: str) -> None:
    a, b = np.ones((3, 1)), np.arange(4.0)
    for g, w in zip(
        tc.broadcast_tensors(_t(device, a), _t(device, b)), np.broadcast_arrays(a, b), strict=True
    ):
        assert_close(g, w)
    with pytest.raises(RuntimeError, match="must match"):
        tc.broadcast_tensors(_t(device, [1, 2]), _t(device, [1, 2, 3]))
    x = np.arange(24.0).reshape(2, 3, 4)
    assert_close(tc.moveaxis(_t(device, x), 0, -1), np.moveaxis(x, 0, -1))
    assert_close(_t(device, x).moveaxis((0, 1), (2, 0)), np.moveaxis(x, (0, 1), (2, 0)))


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
def test_atleast(device: str, n: int, shape: tuple[int, ...]) -> None:
    a = np.arange(float(np.prod(shape))).reshape(shape)
    got = getattr(tc, f"atleast_{n}d")(_t(device, a))
    assert_close(got, getattr(np, f"atleast_{n}d")(a))
    pair = getattr(tc, f"atleast_{n}d")(_t(device, a), _t(device, a))
    assert isinstance(pair, tuple) and len(pair) == 2


# ---------------------------------------------------------------- stacks and splits
@pytest.mark.parametrize("name", ["hstack", "vstack", "row_stack", "dstack", "column_stack"])
@pytest.mark.parametrize("shape", [(), (3,), (3, 2), (3, 2, 2)])
def test_stacks(device: str, name: str, shape: tuple[int, ...]) -> None:
    if name == "column_stack" and len(shape) > 2:
        shape = (3, 2)
    a = np.arange(float(np.prod(shape))).reshape(shape)
    want = getattr(np, "vstack" if name == "row_stack" else name)([a, a + 1])
    assert_close(getattr(tc, name)([_t(device, a), _t(device, a + 1)]), want)
    with pytest.raises(RuntimeError, match=f"{name} expects a non-empty TensorList"):
        getattr(tc, name)([])


@pytest.mark.parametrize("arg", [1, 3, 5, [1, 3], [-2, 10, 1], [], [0, 0]])
def test_tensor_split_is_array_split(device: str, arg: Any) -> None:
    a = np.arange(14.0).reshape(7, 2)
    got = tc.tensor_split(_t(device, a), arg)
    want = np.array_split(a, arg)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert_close(g, w)
    got = tc.tensor_split(_t(device, a.T), _t(device, arg, tc.int64), 1)
    assert_close(got[0], np.array_split(a.T, arg, 1)[0])


def test_hsplit_vsplit_dsplit(device: str) -> None:
    a = np.arange(24.0).reshape(2, 4, 3)
    x = _t(device, a)
    for name in ("hsplit", "vsplit", "dsplit"):
        for arg in (1, [1]):
            for g, w in zip(getattr(tc, name)(x, arg), getattr(np, name)(a, arg), strict=True):
                assert_close(g, w)
    assert_close(tc.hsplit(_t(device, np.arange(6.0)), 3)[1], np.array([2.0, 3.0]))
    with pytest.raises(RuntimeError, match="not divisible"):
        tc.hsplit(x, 3)
    with pytest.raises(RuntimeError, match="at least 3 dimension"):
        tc.dsplit(x[0], 1)
    with pytest.raises(RuntimeError, match="larger than 0"):
        tc.tensor_split(x, 0)


def test_flips_and_rotations(device: str) -> None:
    a = np.arange(24.0).reshape(2, 3, 4)
    x = _t(device, a)
    assert_close(tc.flipud(x), np.flipud(a))
    assert_close(x.fliplr(), np.fliplr(a))
    for k in range(-5, 6):
        assert_close(tc.rot90(x, k), np.rot90(a, k))
        assert_close(x.rot90(k, [2, 0]), np.rot90(a, k, (2, 0)))
    with pytest.raises(RuntimeError, match="rotation dims to be different"):
        x.rot90(1, [0, -3])
    with pytest.raises(RuntimeError, match=">= 2-d"):
        tc.fliplr(_t(device, [1.0]))


def test_dims_as_separate_arguments_or_a_keyword(device: str) -> None:
    # PyTorch's methods take dims one by one (img.flip(-1, -2), x.tile(2, 2)) and, like its
    # functions, as a keyword (torch.flip(x, dims=[1]), x.permute(dims=(1, 0))).
    a = np.arange(6.0).reshape(2, 3)
    x = _t(device, a)
    assert_close(x.flip(-1, -2), a[::-1, ::-1])
    assert_close(x.flip((0, 1)), a[::-1, ::-1])
    assert_close(tc.flip(x, dims=[1]), a[:, ::-1])
    assert_close(x.flip(dims=(0,)), a[::-1])
    assert_close(x.tile(2, 2), np.tile(a, (2, 2)))
    assert_close(x.tile(dims=(2,)), np.tile(a, 2))
    assert_close(x.permute(dims=(1, 0)), a.T)
    assert_close(tc.permute(x, dims=[1, 0]), a.T)
    assert_close(x.repeat(repeats=(1, 2)), np.tile(a, (1, 2)))
    with pytest.raises(TypeError, match="multiple values for argument 'dims'"):
        x.permute(1, 0, dims=(1, 0))


# ---------------------------------------------------------------- indexing and differences
def test_take_along_dim(device: str) -> None:
    a = np.arange(12.0).reshape(3, 4)
    idx = np.argsort(-a, axis=1)[:, :2]
    x = _t(device, a)
    assert_close(tc.take_along_dim(x, _t(device, idx), 1), np.take_along_axis(a, idx, 1))
    assert_close(x.take_along_dim(_t(device, [[2], [0], [1]]), 1), a[[0, 1, 2], [2, 0, 1]][:, None])
    # The two broadcast over the other dims.
    assert_close(
        tc.take_along_dim(x, _t(device, [[1, 0, 2, 2]]), 0), a[[1, 0, 2, 2], range(4)][None]
    )
    assert_close(tc.take_along_dim(x, _t(device, [5, 0])), a.reshape(-1)[[5, 0]])
    # Along a dim, negative indices count from its end (as NumPy's take_along_axis).
    neg = np.array([[-1, 0], [-4, 2], [3, -2]])
    assert_close(tc.take_along_dim(x, _t(device, neg), 1), np.take_along_axis(a, neg, 1))
    # Without dim the indices go to a flat gather, which also takes int32.
    assert_close(tc.take_along_dim(x, _t(device, [5, 0], tc.int32)), a.reshape(-1)[[5, 0]])
    with pytest.raises(RuntimeError, match="should be Long"):
        tc.take_along_dim(x, _t(device, [[1]], tc.int32), 1)
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        tc.take_along_dim(x, _t(device, [1]), 1)


@given(data=st.data())
def test_diff_matches_numpy(device: str, data: st.DataObject) -> None:
    a = _draw_array(data)
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1), label="dim")
    n = data.draw(st.integers(0, 4), label="n")
    pre = a.take([0], axis=dim)
    assert_close(tc.diff(_t(device, a), n, dim), np.diff(a, n, axis=dim))
    assert_close(
        tc.diff(_t(device, a), n, dim, prepend=_t(device, pre), append=_t(device, pre)),
        np.diff(a, n, axis=dim, prepend=pre, append=pre),
    )


def test_diff_of_bools_and_errors(device: str) -> None:
    b = np.array([True, False, False, True])
    assert_close(tc.diff(_t(device, b)), np.diff(b))
    with pytest.raises(RuntimeError, match="at least one-dimensional"):
        tc.diff(_t(device, 1.0))
    with pytest.raises(RuntimeError, match="order must be non-negative"):
        tc.diff(_t(device, [1.0]), -1)


def test_repeat_interleave(device: str) -> None:
    a = np.arange(6.0).reshape(2, 3)
    x = _t(device, a)
    assert_close(tc.repeat_interleave(x, 2), np.repeat(a, 2))
    assert_close(x.repeat_interleave(2, 1), np.repeat(a, 2, 1))
    assert_close(x.repeat_interleave(_t(device, [0, 2, 1]), dim=1), np.repeat(a, [0, 2, 1], 1))
    assert_close(x.repeat_interleave(_t(device, [3]), dim=0), np.repeat(a, 3, 0))
    assert_close(tc.repeat_interleave(_t(device, [2, 0, 1])), np.array([0, 0, 2]))
    assert_close(x.repeat_interleave(_t(device, [1, 2]), 0, output_size=3), np.repeat(a, [1, 2], 0))
    with pytest.raises(RuntimeError, match="same size as input along dim"):
        x.repeat_interleave(_t(device, [1, 2]), dim=1)
    with pytest.raises(RuntimeError, match="can not be negative"):
        x.repeat_interleave(_t(device, [1, -2]), dim=0)
    with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
        tc.repeat_interleave(_t(device, [1.0, 2.0], tc.float32))


# ---------------------------------------------------------------- products and factories
@pytest.mark.parametrize(
    ("sa", "sb"), [((2, 3), (3, 2)), ((2,), (3, 2)), ((), (2,)), ((2, 1, 2), (3,))]
)
def test_kron(device: str, sa: tuple[int, ...], sb: tuple[int, ...]) -> None:
    a = np.arange(1.0, 1 + np.prod(sa)).reshape(sa)
    b = np.arange(2.0, 2 + np.prod(sb)).reshape(sb)
    assert_close(tc.kron(_t(device, a), _t(device, b)), np.kron(a, b))


def test_block_diag_cartesian_prod_combinations(device: str) -> None:
    import itertools

    import scipy.linalg

    parts = [np.arange(6.0, dtype=np.float32).reshape(2, 3), np.float32(7.0), np.array([1, 2])]
    got = tc.block_diag(*[_t(device, p) for p in parts[:2]], _t(device, parts[2], tc.int32))
    assert got.dtype is tc.float32
    assert_close(got, scipy.linalg.block_diag(parts[0], [[7.0]], [[1.0, 2.0]]).astype(np.float32))
    a, b = np.array([1, 2, 3]), np.array([4, 5])
    assert_close(
        tc.cartesian_prod(_t(device, a), _t(device, b)), np.array(list(itertools.product(a, b)))
    )
    for r, rep in [(2, False), (3, True), (0, False), (4, False)]:
        pick = itertools.combinations_with_replacement if rep else itertools.combinations
        got = tc.combinations(_t(device, a), r, with_replacement=rep)
        want = np.array(list(pick(a, r)), a.dtype).reshape(-1, r) if r else np.zeros(0, a.dtype)
        assert_close(got, want)


@pytest.mark.parametrize(("row", "col", "offset"), [(3, 4, 0), (4, 3, -1), (3, 3, 2), (0, 2, 0)])
def test_tril_triu_indices(device: str, row: int, col: int, offset: int) -> None:
    assert_close(
        tc.tril_indices(row, col, offset, device=device),
        np.stack(np.tril_indices(row, offset, col)),
    )
    assert_close(
        tc.triu_indices(row, col, offset, device=device),
        np.stack(np.triu_indices(row, offset, col)),
    )
    assert tc.tril_indices(row, col, dtype=tc.int32).dtype is tc.int32


def test_logspace(device: str) -> None:
    assert_close(tc.logspace(0, 2, 5, device=device), np.logspace(0, 2, 5, dtype=np.float32))
    assert_close(tc.logspace(1, -1, 3, 2.0, dtype=tc.float64), np.logspace(1, -1, 3, base=2.0))
    assert tc.logspace(0, 2, 3, dtype=tc.int64).tolist() == [1, 10, 100]


# ---------------------------------------------------------------- search, count, sets
@given(data=st.data())
def test_searchsorted_matches_numpy(device: str, data: st.DataObject) -> None:
    seq = np.sort(_draw_array(data, high=6), axis=-1)
    vals = np.random.default_rng(0).integers(-1, 7, seq.shape[:-1] + (3,)).astype(np.float64)
    right = data.draw(st.booleans(), label="right")
    side = "right" if right else "left"
    got = tc.searchsorted(_t(device, seq), _t(device, vals), right=right)
    flat_s, flat_v = seq.reshape(-1, seq.shape[-1]), vals.reshape(-1, 3)
    want = np.stack([np.searchsorted(s, v, side) for s, v in zip(flat_s, flat_v, strict=True)])
    assert got.dtype is tc.int64
    assert_close(got, want.reshape(vals.shape))
    one = np.sort(seq.reshape(-1)[:4])  # (rows sorted one by one are not sorted together)
    got1 = tc.searchsorted(_t(device, one), _t(device, vals), side=side)
    assert_close(got1, np.searchsorted(one, vals, side))


def test_searchsorted_options_and_errors(device: str) -> None:
    s = _t(device, [1.0, 2.0, 3.0])
    assert tc.searchsorted(s, 2.5).item() == 2
    assert tc.searchsorted(s, _t(device, [2.0]), out_int32=True).dtype is tc.int32
    assert tc.searchsorted(
        _t(device, [3, 1, 2]), _t(device, [2]), sorter=_t(device, [1, 2, 0])
    ).tolist() == [1]
    assert tc.bucketize(_t(device, [0.5, 2.0, 9.0]), s).tolist() == [0, 1, 3]
    assert tc.bucketize(_t(device, [0.5, 2.0, 9.0]), s, right=True).tolist() == [0, 2, 3]
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites"):
        tc.searchsorted(s, _t(device, [2.0]), side="left", right=True)
    with pytest.raises(RuntimeError, match="first N-1 dimensions"):
        tc.searchsorted(s.reshape(1, 3), _t(device, [1.0, 2.0]))
    with pytest.raises(RuntimeError, match="boundaries tensor must be 1 dimension"):
        tc.bucketize(_t(device, [1.0]), s.reshape(1, 3))


def test_count_nonzero_argwhere_isin(device: str) -> None:
    a = np.array([[0, 1, 2], [3, 0, 0]])
    x = _t(device, a)
    assert tc.count_nonzero(x).item() == 3
    assert_close(x.count_nonzero(1), np.count_nonzero(a, axis=1))
    assert_close(tc.count_nonzero(x, (0, 1)), np.array(3))
    assert_close(tc.argwhere(x), np.argwhere(a))
    test = np.array([2, 3, 9])
    assert_close(tc.isin(x, _t(device, test)), np.isin(a, test))
    assert_close(tc.isin(x, _t(device, test), invert=True), np.isin(a, test, invert=True))
    assert_close(tc.isin(x, 2), a == 2)
    assert tc.isin(2, _t(device, test)).item() is True
    assert_close(tc.isin(x, _t(device, [2.0])), a == 2)
    assert not tc.isin(x, _t(device, np.zeros(0, np.int64))).any().item()


@given(data=st.data())
def test_unique_matches_numpy(device: str, data: st.DataObject) -> None:
    a = _draw_array(data, min_dims=0)
    vals, inv, counts = tc.unique(_t(device, a), return_inverse=True, return_counts=True)
    w_vals, w_inv, w_counts = np.unique(a, return_inverse=True, return_counts=True)
    assert_close(vals, w_vals)
    assert_close(inv, w_inv.reshape(a.shape))
    assert_close(counts, w_counts)
    if a.ndim:
        dim = data.draw(st.integers(0, a.ndim - 1), label="dim")
        if a.shape[dim]:
            got = tc.unique(_t(device, a), dim=dim, return_inverse=True, return_counts=True)
            want = np.unique(a, axis=dim, return_inverse=True, return_counts=True)
            for g, w in zip(got, want, strict=True):
                assert_close(g, w.reshape(-1) if w.ndim == 1 or g.ndim == 1 else w)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.bool_])
def test_unique_of_integers_by_counting_and_by_sorting(device: str, dtype: Any) -> None:
    # A range up to about 4x the element count takes a histogram, a wider one the sort.
    rng = np.random.default_rng(0)
    narrow = rng.integers(-50 if dtype in (np.int8, np.int32, np.int64) else 0, 60, (7, 9))
    wide = rng.integers(0, 120, 6) * (2**40 if dtype is np.int64 else 1)
    for a in (narrow.astype(dtype), wide.astype(dtype), (narrow + 2**62).astype(dtype)):
        if dtype is np.bool_ and a.size > 6:
            a = a > 0
        vals, inv, counts = tc.unique(_t(device, a), return_inverse=True, return_counts=True)
        w_vals, w_inv, w_counts = np.unique(a, return_inverse=True, return_counts=True)
        assert vals.dtype is tc.from_numpy(np.zeros(0, dtype)).dtype
        assert_close(vals, w_vals)
        assert_close(inv, w_inv.reshape(a.shape))
        assert_close(counts, w_counts)
        assert_close(tc.unique(_t(device, a)), w_vals)


def _np_unique_consecutive(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    flat = a.reshape(-1)
    starts = np.r_[True, flat[1:] != flat[:-1]] if flat.size else np.zeros(0, bool)
    first = np.flatnonzero(starts)
    return flat[first], (np.cumsum(starts) - 1).reshape(a.shape), np.diff(np.r_[first, flat.size])


@given(data=st.data())
def test_unique_consecutive_matches_numpy(device: str, data: st.DataObject) -> None:
    a = _draw_array(data, min_dims=0, high=2)
    got = tc.unique_consecutive(_t(device, a), return_inverse=True, return_counts=True)
    for g, w in zip(got, _np_unique_consecutive(a), strict=True):
        assert_close(g, w)


def test_unique_details(device: str) -> None:
    x = _t(device, [3, 1, 2, 1, 3])
    assert isinstance(tc.unique(x), tc.Tensor)
    v, c = x.unique(return_counts=True)
    assert (v.tolist(), c.tolist()) == ([1, 2, 3], [2, 1, 2])
    nan = float("nan")
    v, c = tc.unique(_t(device, [3.0, nan, 1.0, nan]), return_counts=True)
    assert v.tolist()[:2] == [1.0, 3.0] and all(math.isnan(z) for z in v.tolist()[2:])
    assert c.tolist() == [1, 1, 1, 1]  # each NaN is distinct, as in PyTorch
    rows = _t(device, [[1, 1], [0, 0], [1, 1], [0, 1]])
    v, inv = tc.unique_consecutive(rows, return_inverse=True, dim=0)
    assert v.tolist() == [[1, 1], [0, 0], [1, 1], [0, 1]] and inv.tolist() == [0, 1, 2, 3]
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        tc.unique(_t(device, [1j], tc.complex64))


def test_histc(device: str) -> None:
    a = np.array([1.0, 2.0, 1.0, 2.5, -3.0, float("nan")], dtype=np.float32)
    x = _t(device, a)
    assert_close(tc.histc(x, 4, 0, 3), np.array([0.0, 2.0, 1.0, 1.0], dtype=np.float32))
    finite = a[~np.isnan(a)]
    want, _ = np.histogram(finite, 5, (finite.min(), finite.max()))
    assert_close(x[~x.isnan()].histc(5), want.astype(np.float32))
    assert tc.histc(_t(device, [1.0, 1.0]), 4).tolist() == [0.0, 0.0, 2.0, 0.0]
    with pytest.raises(RuntimeError, match="max must be larger than min"):
        tc.histc(x, 4, 3, 1)
    with pytest.raises(RuntimeError, match="bins must be > 0"):
        tc.histc(x, 0)


# ---------------------------------------------------------------- scans
def _np_running(a: np.ndarray, dim: int, fn: Any) -> tuple[np.ndarray, np.ndarray]:
    vals = fn.accumulate(a, axis=dim)
    m = np.moveaxis(a, dim, -1)
    v = np.moveaxis(vals, dim, -1)
    idx = np.zeros(m.shape, dtype=np.int64)
    for pos in np.ndindex(m.shape[:-1]):
        best = 0
        for i in range(m.shape[-1]):
            x, cur = m[pos + (i,)], m[pos + (best,)]
            if np.isnan(x) or (not np.isnan(cur) and (x >= cur if fn is np.maximum else x <= cur)):
                best = i
            idx[pos + (i,)] = best
        assert np.array_equal(v[pos], m[pos][idx[pos]], equal_nan=True)
    return vals, np.moveaxis(idx, -1, dim)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@given(data=st.data())
def test_cummax_cummin(device: str, name: str, data: st.DataObject) -> None:
    a = _draw_array(data)
    if data.draw(st.booleans(), label="nan"):
        a.reshape(-1)[0] = np.nan
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1), label="dim")
    got = getattr(tc, name)(_t(device, a), dim)
    want = _np_running(a, dim % a.ndim, np.maximum if name == "cummax" else np.minimum)
    assert type(got).__name__ == name and got.indices.dtype is tc.int64
    assert_close(got.values, want[0], equal_nan=True)
    assert_close(got.indices, want[1])


def test_logcumsumexp(device: str) -> None:
    a = np.array([[-1000.0, 0.0, 1000.0, -np.inf], [1.0, 2.0, 3.0, 4.0]])
    got = tc.logcumsumexp(_t(device, a, tc.float64), 1)
    assert_close(got, np.logaddexp.accumulate(a, axis=1))
    c = np.array([1 + 2j, -0.5j, 3.0])
    assert_close(
        tc.logcumsumexp(_t(device, c), 0), np.log(np.cumsum(np.exp(c))), rtol=1e-5, atol=1e-5
    )


# ---------------------------------------------------------------- order statistics
@given(data=st.data())
def test_kthvalue_median(device: str, data: st.DataObject) -> None:
    a = _draw_array(data, high=9)
    if a.size == 0:
        return
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1), label="dim")
    n = a.shape[dim]
    if n == 0:
        return
    k = data.draw(st.integers(1, n), label="k")
    x = _t(device, a)
    v, i = tc.kthvalue(x, k, dim)
    assert_close(v, np.sort(a, axis=dim).take(k - 1, axis=dim))
    picked = np.take_along_axis(a, np.expand_dims(to_numpy(i), dim), dim).squeeze(dim)
    np.testing.assert_array_equal(picked, to_numpy(v))
    lower = np.sort(a, axis=dim).take((n - 1) // 2, axis=dim)
    m = x.median(dim, keepdim=True)
    assert_close(m.values, np.expand_dims(lower, dim))
    assert x.median().item() == np.sort(a.reshape(-1))[(a.size - 1) // 2]


def test_median_nan(device: str) -> None:
    nan = float("nan")
    x = _t(device, [[3.0, nan, 1.0, 2.0], [4.0, 1.0, 5.0, 0.0]])
    assert math.isnan(x.median().item())
    assert x.nanmedian().item() == 2.0
    v, i = x.median(1)
    assert math.isnan(v[0].item()) and i.tolist() == [1, 1]
    v, i = x.nanmedian(1)
    assert v.tolist() == [2.0, 1.0] and i.tolist() == [3, 1]
    v, i = tc.nanmedian(_t(device, [[nan, nan]]), 1)
    assert math.isnan(v.item()) and i.item() == 0
    assert math.isnan(tc.median(_t(device, np.zeros(0, np.float32))).item())


@pytest.mark.parametrize("interpolation", _INTERPOLATIONS)
@given(data=st.data())
def test_quantile_matches_numpy(device: str, interpolation: str, data: st.DataObject) -> None:
    a = _draw_array(data, high=9)
    if a.size == 0:
        return
    dim = data.draw(st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1)), label="dim")
    if dim is not None and a.shape[dim] == 0:
        return
    keepdim = data.draw(st.booleans(), label="keepdim")
    q = np.array([0.0, 0.3, 0.5, 0.75, 1.0])
    got = tc.quantile(_t(device, a), _t(device, q), dim, keepdim, interpolation=interpolation)
    want = np.quantile(a, q, axis=dim, keepdims=keepdim, method=interpolation)
    assert_close(got, want)
    got1 = _t(device, a).quantile(0.3, dim, keepdim, interpolation=interpolation)
    assert_close(got1, np.quantile(a, 0.3, axis=dim, keepdims=keepdim, method=interpolation))


def test_nanquantile_and_errors(device: str) -> None:
    nan = float("nan")
    a = np.array([[1.0, nan, 3.0, 2.0], [nan, nan, nan, nan]])
    x = _t(device, a, tc.float64)
    q = np.array([0.2, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's all-NaN row
        want = np.nanquantile(a, q, axis=1)
    assert_close(tc.nanquantile(x, _t(device, q, tc.float64), 1), want, equal_nan=True)
    assert math.isnan(tc.quantile(x, 0.5).item())
    with pytest.raises(RuntimeError, match="q must be in the range"):
        tc.quantile(x, 1.5)
    with pytest.raises(RuntimeError, match="interpolation must be one of"):
        tc.quantile(x, 0.5, interpolation="cubic")
    with pytest.raises(RuntimeError, match="same dtype"):
        tc.quantile(x, _t(device, [0.5], tc.float32))
    # (PyTorch 2.13's own RuntimeError, for 16-bit floats too)
    with pytest.raises(RuntimeError, match="input tensor must be either float or double dtype"):
        tc.quantile(_t(device, [1, 2]), 0.5)


# ---------------------------------------------------------------- NaN-ignoring, paired reductions
def test_nanmean_nansum(device: str) -> None:
    a = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, 2.0]], dtype=np.float32)
    x = _t(device, a)
    assert_close(tc.nansum(x), np.nansum(a))
    assert_close(x.nansum(1, keepdim=True), np.nansum(a, 1, keepdims=True))
    assert_close(tc.nanmean(x, 0), np.array([1.0, np.nan, 2.5], np.float32), equal_nan=True)
    assert tc.nansum(_t(device, [1, 2])).dtype is tc.int64
    assert tc.nansum(x, dtype=tc.float64).dtype is tc.float64


def test_var_mean_std_mean_aminmax(device: str) -> None:
    a = np.arange(12.0).reshape(3, 4) ** 1.5
    x = _t(device, a, tc.float64)
    v, m = tc.var_mean(x, 1, correction=0, keepdim=True)
    assert_close(v, a.var(1, keepdims=True))
    assert_close(m, a.mean(1, keepdims=True))
    s, m = tc.std_mean(x)
    assert_close(s, a.std(ddof=1))
    r = tc.aminmax(x, dim=0)
    assert type(r).__name__ == "aminmax"
    assert_close(r.min, a.min(0))
    assert_close(r.max, a.max(0))
    assert_close(x.aminmax().max, a.max())
    with pytest.raises(RuntimeError, match="aminmax"):
        tc.aminmax(_t(device, np.zeros(0)))
