"""The special functions the shared kernels compute from array-module functions
(``tensorcore_xp/kernels/_special.py``), with NumPy as the array module: float64 accuracy
against SciPy over their whole domains, and the values at poles, infinities and signed zeros
(PyTorch's where it defines them)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

sps = pytest.importorskip("scipy.special")

from tensorcore_xp.kernels import _special  # noqa: E402

RNG = np.random.default_rng(20240611)


def _spread(lo: float, hi: float, n: int = 20000) -> Any:
    """Uniform points in [lo, hi) and log-uniform magnitudes over the same span."""
    u = RNG.uniform(lo, hi, n)
    mags = 10 ** RNG.uniform(-300, math.log10(max(abs(lo), abs(hi))), n // 4)
    if lo < 0:
        mags = np.concatenate([mags, -mags])
    return np.concatenate([u, mags[(mags >= lo) & (mags < hi)]])


def _relative_error(got: Any, want: Any, floor: float = 1e-300) -> float:
    assert np.array_equal(np.isnan(got), np.isnan(want)), "NaN positions differ"
    finite = np.isfinite(want)
    assert np.array_equal(got[~finite], want[~finite]), "infinities differ"
    g, w = got[finite], want[finite]
    return float(np.max(np.abs(g - w) / np.maximum(np.abs(w), floor), initial=0.0))


def _run(fn: Callable[..., Any], x: Any, *args: Any) -> Any:
    with np.errstate(all="ignore"):
        return fn(np, *args, x)


CASES = [
    # (function, reference, points, relative tolerance)
    ("lgamma", sps.gammaln, _spread(0, 1e300), 1e-14),
    # near its roots (1, 2 and one in each negative interval) lgamma is small and its absolute
    # error, a few ulps of log(pi / |sin(pi x)|), is what is left: compare away from them
    ("lgamma", sps.gammaln, -RNG.uniform(3.6, 170, 20000), 1e-13),
    ("digamma", sps.digamma, _spread(2, 1e300), 1e-14),
    ("erf", sps.erf, _spread(-30, 30), 1e-15),
    ("erfc", sps.erfc, RNG.uniform(-6, 10, 50000), 1e-14),
    # (SciPy rounds x * x before exp there: its own error grows to ~6e-14)
    ("erfc", sps.erfc, RNG.uniform(10, 26, 10000), 1e-13),
    ("erfinv", sps.erfinv, _spread(-1, 1), 1e-14),
    ("erfinv", sps.erfinv, 1 - 10 ** RNG.uniform(-16, -1, 5000), 1e-14),
    ("i0", sps.i0, _spread(-700, 700), 1e-14),
    ("i1", sps.i1, _spread(-700, 700), 1e-14),
]


@pytest.mark.parametrize(
    ("name", "ref", "x", "rtol"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_float64_accuracy_against_scipy(name: str, ref: Any, x: Any, rtol: float) -> None:
    assert _relative_error(_run(getattr(_special, name), x), ref(x)) < rtol


@pytest.mark.parametrize("n", [1, 2, 3, 6, 15, 40])
def test_polygamma_accuracy_against_scipy(n: int) -> None:
    x = np.concatenate([RNG.uniform(0.01, 60, 20000), 10 ** RNG.uniform(-3, 5, 2000)])
    assert _relative_error(_run(_special.polygamma, x, n), sps.polygamma(n, x)) < 5e-14
    # Negative arguments (by reflection) away from the half-integers, where high orders
    # cancel: SciPy's own error is ~1e-13 there.
    neg = -RNG.uniform(0.05, 30, 5000)
    assert _relative_error(_run(_special.polygamma, neg, n), sps.polygamma(n, neg)) < 2e-12


def test_digamma_of_negative_arguments() -> None:
    # Reflection: psi(x) = psi(1 - x) - pi / tan(pi x); checked against the recurrence
    # psi(x + 1) = psi(x) + 1 / x, which does not use it.
    x = -RNG.uniform(0.01, 50, 20000)
    x = x[np.abs(x - np.round(x)) > 1e-3]
    lhs = _run(_special.digamma, x + 1)
    rhs = _run(_special.digamma, x) + 1 / x
    assert np.max(np.abs(lhs - rhs) / np.maximum(np.abs(lhs), 1)) < 1e-11


def test_poles_infinities_and_signed_zeros() -> None:
    inf, nan = math.inf, math.nan
    x = np.array([0.0, -0.0, -1.0, -2.0, -inf, inf, nan])
    # PyTorch's values (torch 2.13, float64).
    np.testing.assert_array_equal(_run(_special.lgamma, x), [inf, inf, inf, inf, inf, inf, nan])
    np.testing.assert_array_equal(_run(_special.digamma, x), [-inf, inf, nan, nan, nan, inf, nan])
    np.testing.assert_array_equal(_run(_special.polygamma, x, 1)[[0, 1, 4, 5, 6]],
                                  [inf, inf, nan, 0.0, nan])  # fmt: skip
    # At the poles, (-1)**(n+1) inf: SciPy's (PyTorch's trigamma gives large finite numbers
    # at the negative integers).
    np.testing.assert_array_equal(_run(_special.polygamma, x[:4], 1), [inf] * 4)
    np.testing.assert_array_equal(_run(_special.polygamma, x[:4], 2), [-inf] * 4)
    y = np.array([-1.0, 1.0, 0.0, -0.0, 1.5, -inf, nan])
    np.testing.assert_array_equal(_run(_special.erfinv, y), [-inf, inf, 0.0, -0.0, nan, nan, nan])
    assert np.signbit(_run(_special.erfinv, y)[3])
    np.testing.assert_array_equal(
        _run(_special.erfc, np.array([-inf, inf, nan, 28.0, -28.0])), [2.0, 0.0, nan, 0.0, 2.0]
    )
    assert 0 < _run(_special.erfc, np.array([27.0]))[0] < 1e-317  # subnormal, not flushed
    # I0 and I1 overflow where their values do (e^x alone overflows earlier, near 709.8);
    # PyTorch gives NaN at +-inf, SciPy inf: the functions tend to +-inf there.
    np.testing.assert_array_equal(
        _run(_special.i0, np.array([0.0, inf, -inf, 714.0])), [1.0, inf, inf, inf]
    )
    np.testing.assert_array_equal(
        _run(_special.i1, np.array([0.0, -0.0, inf, -inf])), [0.0, -0.0, inf, -inf]
    )
    assert np.isfinite(_run(_special.i0, np.array([713.9])))[0]


def test_zero_dimensional_arrays() -> None:
    for name in ("lgamma", "digamma", "erf", "erfc", "erfinv", "i0", "i1"):
        got = _run(getattr(_special, name), np.array(0.25))
        assert isinstance(got, np.ndarray) and got.shape == ()
    assert _run(_special.polygamma, np.array(0.25), 2).shape == ()


def test_polygamma_orders_beyond_the_factorials_range() -> None:
    # n! overflows float64 above n = 170: +-inf (NaN where zeta underflows), as PyTorch's
    # exp(lgamma(n + 1)) * zeta(n + 1, x) gives.
    got = _run(_special.polygamma, np.array([0.5, 3.0, 1e10]), 171)
    np.testing.assert_array_equal(got, [math.inf, math.inf, math.nan])
    assert np.isfinite(_run(_special.polygamma, np.array([3.0]), 170))[0]


@pytest.mark.parametrize("name", ["erfc", "erfinv", "lgamma", "digamma", "i0", "i1", "i0e", "i1e"])
def test_scipys_loops_give_the_plain_paths_values(name: str) -> None:
    # The kernels take SciPy's loops where SciPy is importable (``fast_special``): the same
    # values as ``_special.py``'s to a few ulps (near the roots of lgamma and digamma, a few
    # ulps of the terms that cancel), the same infinities, NaNs and signed zeros.
    from tensorcore_xp.kernels._special_scipy import fast_special

    fast = fast_special(np, name)
    assert fast is not None
    inf = math.inf
    edges = np.array([-inf, -1e300, -700.0, -27.0, -2.0, -1.5, -1.0, -1e-310, -0.0, 0.0,
                      1e-310, 1e-300, 1.0, 2.0, 26.0, 26.7, 27.0, 28.0, 714.0, 1e300, inf,
                      math.nan])  # fmt: skip
    x = np.concatenate([edges, _spread(-30, 30), RNG.uniform(-1, 1, 20000)])
    plain = _run(getattr(_special, name), x)
    got = _run(fast, x)
    assert np.array_equal(np.isnan(got), np.isnan(plain))
    x, got, plain = x[~np.isnan(plain)], got[~np.isnan(plain)], plain[~np.isnan(plain)]
    assert np.array_equal(np.signbit(got[plain == 0]), np.signbit(plain[plain == 0]))
    near_roots = (np.abs(x - 1) < 1e-3) | (np.abs(x - 2) < 1e-3) | (np.abs(x - 1.4616) < 1e-3)
    tol = 1e-9 if name in ("lgamma", "digamma") else 1e-13
    keep = ~near_roots if name in ("lgamma", "digamma") else slice(None)
    assert _relative_error(got[keep], plain[keep]) < tol
    assert _relative_error(got, plain, floor=1e-9) < tol  # (everywhere, in absolute terms)
    assert _run(fast, np.array(0.25)).shape == ()
