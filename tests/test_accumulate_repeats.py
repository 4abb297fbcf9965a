"""Accumulating writes with heavily repeated indices (an embedding's gradient, a padding
index, Zipf-distributed tokens): ``index_put_(accumulate=True)`` and ``index_add_`` give
NumPy's ``add.at`` sums bit for bit -- the kernel's rounds of whole-row adds and its
per-index reductions of the most repeated ones both add in index order."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc


def _assert_sums(got: np.ndarray, want: np.ndarray, device: str) -> None:
    """add.at's sums bit for bit on the CPU; a GPU's atomic adds come in any order (a
    thousand float32 additions into one row: within 1e-4)."""
    if device == "cpu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    ("rows", "n", "zipf"), [(50, 4000, False), (300, 6000, True), (6, 700, False)]
)
def test_repeated_index_sums_are_add_at_bit_for_bit(
    device: str, rows: int, n: int, zipf: bool
) -> None:
    if device == "meta":
        pytest.skip("meta holds no values")
    rng = np.random.default_rng(rows)
    idx = np.minimum(rng.zipf(1.3, n) - 1, rows - 1) if zipf else rng.integers(0, rows, n)
    idx[::7] = 0  # (a padding index: far more repeats than any other)
    vals = rng.standard_normal((n, 40)).astype(np.float32)
    base = rng.standard_normal((rows, 40)).astype(np.float32)
    want = base.copy()
    np.add.at(want, idx, vals)
    t = tc.tensor(base, device=device)
    # (negative indices count from the end)
    key = tc.tensor(np.where(np.arange(n) % 2, idx - rows, idx), device=device)
    t.index_put_((key,), tc.tensor(vals, device=device), True)
    _assert_sums(t.cpu().numpy(), want, device)
    # along a middle dim (index_add_)
    base3 = rng.standard_normal((3, rows, 11)).astype(np.float32)
    vals3 = rng.standard_normal((3, n, 11)).astype(np.float32)
    want3 = base3.copy()
    np.add.at(want3, (slice(None), idx), vals3)
    t3 = tc.tensor(base3, device=device)
    t3.index_add_(1, tc.tensor(idx, device=device), tc.tensor(vals3, device=device))
    _assert_sums(t3.cpu().numpy(), want3, device)


@pytest.mark.parametrize("n_in", [16, 63])
def test_sorted_indices_along_the_last_dim_sum_as_add_at(device: str, n_in: int) -> None:
    # A linear resampling's gradient: sorted indices, each repeated up to 3 times, whose
    # rounds are evenly spaced (added through strided views of slices)
    if device == "meta":
        pytest.skip("meta holds no values")
    rng = np.random.default_rng(n_in)
    n_out = 2 * n_in + 3
    idx = np.clip(np.floor((np.arange(n_out) + 0.5) * n_in / n_out - 0.5), 0, None)
    idx = np.concatenate([idx.astype(np.int64), [n_in - 1, 3]])  # (and a stray pair)
    vals = rng.standard_normal((4, 9, idx.size)).astype(np.float32)
    base = rng.standard_normal((4, 9, n_in)).astype(np.float32)
    want = base.copy()
    np.add.at(want, (slice(None), slice(None), idx), vals)
    t = tc.tensor(base, device=device)
    t.index_add_(2, tc.tensor(idx, device=device), tc.tensor(vals, device=device))
    _assert_sums(t.cpu().numpy(), want, device)
