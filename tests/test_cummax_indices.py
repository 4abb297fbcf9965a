"""``cummax``/``cummin`` values and indices against a direct loop of PyTorch's update rule
(the index moves on ``>=``/``<=`` and on NaN, a NaN value stays), on rows long enough for
the NumPy kernel's run-length path and short ones, with ties, NaNs and integer inputs,
along every dim."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc


def _oracle(x: np.ndarray, dim: int, largest: bool) -> tuple[np.ndarray, np.ndarray]:
    xm = np.moveaxis(x, dim, -1)
    vals, idx = np.empty_like(xm), np.empty(xm.shape, np.int64)
    for r in np.ndindex(xm.shape[:-1]):
        best, at = xm[r][0], 0
        for i, v in enumerate(xm[r]):
            # (once best is NaN only a NaN compares: v >= NaN is False)
            if np.isnan(v) or (v >= best if largest else v <= best):
                best, at = v, i
            vals[r + (i,)], idx[r + (i,)] = best, at
    return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("shape", [(7, 9), (3, 70, 61)])
def test_cummax_cummin_match_the_update_rule(device: str, largest: bool, shape: tuple) -> None:
    if device == "meta":
        pytest.skip("meta holds no values")
    rng = np.random.default_rng(5)
    x = rng.integers(-4, 5, shape).astype(np.float32)  # (many ties)
    x.flat[rng.choice(x.size, 5, replace=False)] = np.nan
    for dim in range(len(shape)):
        want_v, want_i = _oracle(x, dim, largest)
        t = tc.tensor(x, device=device)
        v, i = t.cummax(dim) if largest else t.cummin(dim)
        np.testing.assert_array_equal(v.cpu().numpy(), want_v)
        np.testing.assert_array_equal(i.cpu().numpy(), want_i)
        # integers, and a non-contiguous (transposed) input
        xi = rng.integers(-3, 4, shape)
        t = tc.tensor(xi, device=device).transpose(0, -1)
        v, i = t.cummax(dim) if largest else t.cummin(dim)
        want_v, want_i = _oracle(np.swapaxes(xi, 0, -1).astype(np.float64), dim, largest)
        np.testing.assert_array_equal(v.cpu().numpy(), want_v.astype(np.int64))
        np.testing.assert_array_equal(i.cpu().numpy(), want_i)
