"""The NumPy run sums behind ``coalesce`` (``_segments.run_sums``) against the
``np.add.reduceat`` they replace, bit for bit, and a hybrid coalesce through them against
the dense sum of its entries."""

from __future__ import annotations

import numpy as np
import pytest
from tensorcore_sparse import _segments

import tensorcore as tc


def runs(rng: np.random.Generator, n: int, longest: int) -> np.ndarray:
    """Sorted distinct run starts over ``n`` rows, runs of 1 to ``longest`` rows (mostly 1)."""
    lens = np.where(rng.random(n) < 0.9, 1, rng.integers(1, longest + 1, n))
    starts = np.concatenate([[0], np.cumsum(lens)])
    return starts[starts < n]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int8, np.bool_])
@pytest.mark.parametrize("longest", [2, _segments.SHORT, _segments.SHORT + 1, 40])
def test_run_sums_are_reduceat_bit_for_bit(dtype: type, longest: int) -> None:
    rng = np.random.default_rng(longest)
    n, d = 3000, 7
    vals = rng.standard_normal((n, d)) * 10.0 ** rng.integers(-6, 7, (n, d))
    vals[rng.random((n, d)) < 0.05] = -0.0
    if dtype is np.float32:
        vals[0, 0], vals[1, 1] = np.inf, np.nan
    vals = vals.astype(dtype) if np.dtype(dtype).kind == "f" else (vals > 0).astype(dtype)
    if dtype is np.int64:
        vals = rng.integers(-(2**62), 2**62, (n, d))  # (sums wrap around, as reduceat's)
    starts = runs(rng, n, longest)
    assert _segments.takes(vals, starts)
    got = _segments.run_sums(vals, starts)
    want = np.add.reduceat(vals, starts, axis=0, dtype=vals.dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def test_long_runs_and_other_dtypes_keep_reduceat() -> None:
    vals = np.ones((5000, 8), np.float32)
    assert not _segments.takes(vals, np.arange(0, 5000, 50))  # runs of 50 rows
    assert not _segments.takes(vals.astype(np.float16), np.arange(5000))
    assert not _segments.takes(vals[:, 0].copy(), np.arange(5000))  # rows of one element


def test_coalesce_of_an_embedding_gradient(device: str) -> None:
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 500, 2000)
    vals = rng.standard_normal((2000, 16)).astype(np.float32)
    g = tc.sparse_coo_tensor(tc.tensor(idx[None]), tc.tensor(vals), (500, 16), device=device)
    c = g.coalesce()
    want = np.zeros((500, 16), np.float64)
    np.add.at(want, idx, vals.astype(np.float64))
    got = c.to_dense().cpu().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert c.indices().cpu().numpy().tolist() == [sorted(set(idx.tolist()))]
