"""The LDL kernels' own code (``tensorcore_xp/kernels/linalg_ldl.py``): the Bunch-Kaufman
factorization used where SciPy is not installed gives LAPACK's ``?sytrf``/``?hetrf`` result,
pivots included, and the kernel uses it when SciPy's LAPACK is missing; the solve (LAPACK's
``?sytrs``/``?hetrs``, written against ``xp``) also solves the fallback's factors; and the
special functions taken from SciPy say so when SciPy is missing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

lapack = pytest.importorskip("scipy.linalg.lapack")

from tensorcore_xp.kernels import _special_scipy, linalg_ldl  # noqa: E402

import tensorcore as tc  # noqa: E402


def _case(rng: np.random.Generator, n: int, kind: str) -> tuple[Any, bool, Any]:
    a = rng.standard_normal((n, n))
    if kind != "real":
        a = a + 1j * rng.standard_normal((n, n))
    herm = kind == "hermitian"
    a = a + (a.conj().T if herm else a.T)
    f = {"real": lapack.dsytrf, "symmetric": lapack.zsytrf, "hermitian": lapack.zhetrf}[kind]
    return a, herm, f


@pytest.mark.parametrize("kind", ["real", "symmetric", "hermitian"])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 9, 16])
def test_bunch_kaufman_is_lapacks_sytf2(n: int, kind: str) -> None:
    rng = np.random.default_rng(n)
    for _ in range(20):
        a, herm, f = _case(rng, n, kind)
        ld, piv, info = f(a, lower=1)
        mine, mine_piv, mine_info = linalg_ldl.bunch_kaufman(a, herm)
        assert mine_piv.tolist() == piv.tolist() and mine_info == info
        np.testing.assert_allclose(mine, np.tril(ld), rtol=1e-9, atol=1e-9)
        b = rng.standard_normal((n, 2)).astype(a.dtype)
        x = b.copy()
        linalg_ldl.ldl_solve_one(np, mine, mine_piv, x, herm)
        np.testing.assert_allclose(a @ x, b, rtol=1e-8, atol=1e-8)


def test_bunch_kaufman_reports_a_zero_pivot() -> None:
    a = np.diag([1.0, 0.0, 2.0])
    _, piv, info = linalg_ldl.bunch_kaufman(a)
    assert info == 2 and piv.tolist() == [1, 2, 3]


def test_the_kernel_falls_back_without_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    a = np.stack([_case(rng, 6, "real")[0] for _ in range(3)])
    expected = tc.linalg.ldl_factor_ex(tc.tensor(a))
    monkeypatch.setattr(linalg_ldl, "_lapack", lambda a, hermitian: None)
    got = tc.linalg.ldl_factor_ex(tc.tensor(a))
    assert tc.equal(got.pivots, expected.pivots) and tc.equal(got.info, expected.info)
    np.testing.assert_allclose(got.LD.numpy(), expected.LD.numpy(), rtol=1e-9, atol=1e-9)


def test_scipy_special_functions_say_when_scipy_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _special_scipy._FUNCTIONS.clear()
    monkeypatch.setattr(_special_scipy, "_module", lambda name: None)
    try:
        fn = _special_scipy.special_function(np, "special_bessel_j0")
        with pytest.raises(RuntimeError, match=r"scipy.special.j0, and SciPy is not installed"):
            fn(np.zeros(2))
    finally:
        _special_scipy._FUNCTIONS.clear()


def test_scipy_special_functions_of_another_module_run_on_the_host() -> None:
    class Other:  # an array module without a SciPy-like special-function module
        __name__ = "other_xp"
        asarray = staticmethod(np.asarray)

    fn = _special_scipy.special_function(Other(), "special_airy_ai")
    np.testing.assert_allclose(fn(np.array([0.0, 1.0])), [0.3550280538878172, 0.1352924163128814])
