"""float32 ``fmod``, ``remainder`` and ``floor_divide`` through float64 array arithmetic
(``tensorcore_xp.kernels._fmod_single``) give NumPy's float32 loops' bits, PyTorch's zero sign
of ``remainder`` included, and fall back to those loops where the route would not be exact
(huge quotients, zero, infinite and NaN operands)."""

from __future__ import annotations

import numpy as np
import pytest
from tensorcore_xp.kernels._fmod_single import (
    floor_divide_float32,
    fmod_float32,
    remainder_float32,
)

import tensorcore as tc


def _operands(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random float32 bit patterns (every exponent), multiples of 1/8 (exact quotients and
    zero remainders of both signs) and ordinary values, with divisors of both signs."""
    r = np.random.default_rng(seed)
    bits = r.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = np.where(np.isfinite(bits), bits, np.float32(1.5))
    x[: n // 3] = np.round(r.standard_normal(n // 3) * 64) / 8
    x[: n // 9] *= -0.0
    y = (r.standard_normal(n) * 2.0 ** r.integers(-20, 20, n)).astype(np.float32)
    y[: n // 3] = np.round(r.standard_normal(n // 3) * 8) / 8 + np.float32(0.125)
    return x.astype(np.float32), y


def _numpy_remainder(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    r = np.remainder(x, y)
    return np.copysign(r, x, out=r, where=r == 0)  # (PyTorch's zero keeps x's sign)


def _same_bits(got: np.ndarray, want: np.ndarray) -> None:
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_float64_route_gives_numpys_bits_where_it_applies(seed: int) -> None:
    x, y = _operands(30_000, seed)
    with np.errstate(all="ignore"):
        quotient = np.abs(x.astype(np.float64) / y)
    for limit, route, oracle in (
        (2**29, fmod_float32, np.fmod),
        (2**29, remainder_float32, _numpy_remainder),
        (2**22, floor_divide_float32, np.floor_divide),
    ):
        keep = quotient < limit
        got = route(x[keep], y[keep])
        assert got is not None
        with np.errstate(all="ignore"):
            _same_bits(got, oracle(x[keep], y[keep]))


@pytest.mark.parametrize(
    ("x", "y"),
    [(1.5, 0.0), (1.5, np.inf), (np.inf, 2.0), (np.nan, 2.0), (1.5, np.nan), (3e38, 1e-30)],
)
def test_the_route_declines_what_it_cannot_compute_exactly(x: float, y: float) -> None:
    xs = np.array([1.0, x], np.float32)
    ys = np.array([3.0, y], np.float32)
    for route in (fmod_float32, remainder_float32, floor_divide_float32):
        assert route(xs, ys) is None
    big = np.array([2.0**23], np.float32)  # (exact for fmod, not for floor division)
    assert fmod_float32(big, np.float32(1.0)) is not None
    assert floor_divide_float32(big, np.float32(1.0)) is None
    assert fmod_float32(xs.astype(np.float64), ys.astype(np.float64)) is None  # (float32 only)


@pytest.mark.parametrize("op", ["fmod", "remainder", "floor_divide"])
def test_operators_match_numpy_with_edge_values_broadcast_and_in_place(
    device: str, op: str
) -> None:
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    x, y = _operands(4096, 7)
    x[:6] = [np.inf, -np.inf, np.nan, 5.0, -0.0, 1e38]  # (NumPy's loops take these)
    y[:6] = [2.0, 2.0, 2.0, 0.0, np.inf, 1e-38]
    oracle = {"fmod": np.fmod, "remainder": _numpy_remainder, "floor_divide": np.floor_divide}[op]
    fn = getattr(tc, op)
    xs, ys = x.reshape(64, 64), y.reshape(64, 64)
    cases = [
        (fn(tc.from_numpy(xs).to(device), tc.from_numpy(ys).to(device)), xs, ys),
        (fn(tc.from_numpy(xs).to(device), tc.from_numpy(ys[:1]).to(device)), xs, ys[:1]),
        (fn(tc.from_numpy(xs).to(device).T, 0.375), xs.T, np.float32(0.375)),
        (getattr(tc.from_numpy(xs.copy()).to(device), op + "_")(-2.5), xs, np.float32(-2.5)),
    ]
    for got, a, b in cases:
        with np.errstate(all="ignore"):
            want = oracle(a, b)
        if device == "cpu":
            _same_bits(np.ascontiguousarray(got.numpy()), np.ascontiguousarray(want))
        else:
            np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-6, equal_nan=True)
