"""The NumPy path of ``linalg_solve_triangular`` (``tensorcore_xp.kernels.triangular``): BLAS
solves in place in the kernel's copy of ``B``."""

from __future__ import annotations

import numpy as np
import pytest

sl = pytest.importorskip("scipy.linalg")

from tensorcore_xp.kernels.triangular import _blas, _solve_into  # noqa: E402


@pytest.mark.parametrize("k", [1, 3])
def test_blas_in_place_writes_back_a_copy(k: int) -> None:
    """Where f2py must copy instead of solving in place (here a float32 matrix given to the
    float64 routines), the solved copy is written back."""
    fns = _blas(np.dtype(np.float64))
    assert fns is not None
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 4)) + 8 * np.eye(4)
    for order in ("C", "F"):
        for dtype in (np.float64, np.float32):
            x = np.asarray(rng.standard_normal((4, k)), dtype=dtype, order="C")
            want = sl.solve_triangular(np.asarray(a, order=order), x.astype(np.float64), lower=True)
            _solve_into(fns, np.asarray(a, order=order), x, upper=False, unit=False)
            np.testing.assert_allclose(x, want, rtol=1e-5)
