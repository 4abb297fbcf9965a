"""``erf`` in float32 (and the 16-bit floats, computed in float32): the single-precision
formula of ``tensorcore_xp/kernels/_erf_single.py`` against ``math.erf`` over the whole
float32 range, its values at the special points, and float64 left to the float64 path."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import flushes_subnormals

_ERF = np.frompyfunc(math.erf, 1, 1)


def _points() -> np.ndarray:
    rng = np.random.default_rng(7)
    mags = np.logspace(-45, 38.5, 4000)  # subnormals to near float32's largest
    return np.concatenate(
        [np.linspace(-6, 6, 120_001), rng.standard_normal(20_000) * 2, mags, -mags]
    ).astype(np.float32)


def _ulps(got: np.ndarray, x: np.ndarray) -> np.ndarray:
    want = _ERF(x.astype(np.float64)).astype(np.float64)
    ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    # (below the smallest normal, erf's own rounding is in subnormal steps)
    ulp = np.maximum(ulp, np.spacing(np.float32(0)).astype(np.float64))
    return np.abs(got.astype(np.float64) - want) / ulp


def test_float32_erf_is_within_3_ulp_everywhere(device: str) -> None:
    if device == "meta":
        pytest.skip("meta holds no values")
    x = _points()
    if flushes_subnormals(device):  # (a GPU computes subnormals as zero)
        x = x[np.abs(x) >= np.finfo(np.float32).tiny]
    got = tc.erf(tc.tensor(x, device=device)).cpu().numpy()
    assert got.dtype == np.float32
    err = _ulps(got, x)
    assert err.max() <= 3, (float(err.max()), float(x[err.argmax()]))
    # the in-place form and a non-contiguous view give the same values
    t = tc.tensor(x, device=device)
    t.erf_()
    assert np.array_equal(t.cpu().numpy(), got)
    y = tc.tensor(x[: 2 * 50_000].reshape(50_000, 2), device=device).T
    assert np.array_equal(tc.erf(y).cpu().numpy(), got[:100_000].reshape(50_000, 2).T)


def test_float32_erf_special_values(device: str) -> None:
    x = tc.tensor([math.inf, -math.inf, math.nan, 0.0, -0.0, 3.95, -1e-40], device=device)
    r = tc.erf(x)
    if device == "meta":
        assert r.dtype == tc.float32 and r.shape == x.shape
        return
    v = r.cpu().numpy()
    assert v[0] == 1 and v[1] == -1 and math.isnan(v[2]) and v[5] == 1
    assert v[3] == 0 and not np.signbit(v[3]) and v[4] == 0 and np.signbit(v[4])
    if not flushes_subnormals(device):
        assert v[6] < 0 and v[6] == pytest.approx(-1e-40 * 2 / math.sqrt(math.pi), rel=1e-3)
    assert tc.erf(tc.tensor(1.0, device=device)).item() == pytest.approx(math.erf(1), rel=3e-7)


@pytest.mark.parametrize("dtype", [tc.float16, tc.bfloat16])
def test_16_bit_erf_rounds_the_float32_result(device: str, dtype: tc.dtype) -> None:
    if device == "meta":
        pytest.skip("meta holds no values")
    x = tc.linspace(-4, 4, 1001, device=device).to(dtype)
    want = tc.erf(x.float()).to(dtype)
    assert tc.equal(tc.erf(x), want)


def test_float64_erf_stays_float64_accurate(device: str) -> None:
    if device == "meta":
        pytest.skip("meta holds no values")
    x = np.concatenate([np.linspace(-7, 7, 20001), np.logspace(-300, 2, 500)])
    got = tc.erf(tc.tensor(x, device=device)).cpu().numpy()
    want = _ERF(x).astype(np.float64)
    assert np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-300)) < 1e-15
