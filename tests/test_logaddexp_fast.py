"""``logaddexp`` on real floats: ``max(x, y) + log1p(exp(-|x - y|))`` in vectorised passes
(``tensorcore_xp/kernels/special.py``), against NumPy's float64 ``logaddexp``: within a few
ulp of the larger operand's scale (the formula's own cancellation where the result is near
0, as NumPy's float32 loop has it), exact at the infinities and NaN, for broadcast, in-place
and non-contiguous operands."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import flushes_subnormals

inf, nan = math.inf, math.nan


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
def test_logaddexp_is_accurate_and_exact_at_special_values(device: str, dtype: tc.dtype) -> None:
    if device == "meta":
        pytest.skip("meta holds no values")
    npd = np.float32 if dtype == tc.float32 else np.float64
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(200_000) * 30).astype(npd)
    y = (rng.standard_normal(200_000) * 30).astype(npd)
    got = tc.logaddexp(tc.tensor(x, device=device), tc.tensor(y, device=device)).cpu().numpy()
    want = np.logaddexp(x.astype(np.float64), y.astype(np.float64))
    scale = np.maximum(np.abs(want), np.maximum(np.abs(x), np.abs(y)).astype(np.float64))
    ulp = np.spacing(scale.astype(npd)).astype(np.float64)
    assert (np.abs(got - want) / ulp).max() <= 3
    # a Python-number operand (softplus's logaddexp(x, 0)), where the result is relative
    got0 = tc.logaddexp(tc.tensor(x, device=device), 0.0).cpu().numpy()
    want0 = np.logaddexp(x.astype(np.float64), 0.0)
    rel = np.abs(got0 - want0) / np.spacing(want0.astype(npd)).astype(np.float64)
    if flushes_subnormals(device, dtype):  # (a GPU gives 0 for a subnormal result)
        rel = rel[want0 >= np.finfo(npd).tiny]
    assert rel.max() <= 3
    a = tc.tensor([inf, -inf, inf, nan, 1.0, -100.0, 0.0, 1e30, -1e30], dtype=dtype, device=device)
    b = tc.tensor([inf, -inf, -inf, 1.0, nan, 0.0, 0.0, 1.0, -1e30], dtype=dtype, device=device)
    r = tc.logaddexp(a, b).cpu().numpy()
    tiny = math.exp(-100.0)  # (subnormal in float32: 0 where the device flushes them)
    tiny = 0.0 if dtype is tc.float32 and flushes_subnormals(device) else tiny
    want = [inf, -inf, inf, nan, nan, tiny, math.log(2), 1e30, -1e30 + math.log(2)]
    np.testing.assert_allclose(r, np.array(want, dtype=npd), rtol=1e-6)


def test_logaddexp_broadcast_in_place_and_strided(device: str) -> None:
    if device == "meta":
        pytest.skip("meta holds no values")
    rng = np.random.default_rng(4)
    x = rng.standard_normal((300, 257)).astype(np.float32) * 5
    y = rng.standard_normal(257).astype(np.float32) * 5
    want = np.logaddexp(x.astype(np.float64), y.astype(np.float64))
    tx, ty = tc.tensor(x, device=device), tc.tensor(y, device=device)
    np.testing.assert_allclose(tc.logaddexp(tx, ty).cpu().numpy(), want, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(
        tc.logaddexp(tx.T, ty[:, None]).cpu().numpy(), want.T, rtol=1e-6, atol=1e-6
    )
    tc.logaddexp(tx, ty, out=tx)  # (out is an operand)
    np.testing.assert_allclose(tx.cpu().numpy(), want, rtol=1e-6, atol=1e-6)
