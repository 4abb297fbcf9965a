"""``linalg.solve_triangular`` (a kernel of its own: BLAS ``trsm`` on NumPy, substitution
over the columns for batches of many small matrices) against SciPy over its options: upper
or lower, left or right, unit diagonal, broadcast batches, complex and mixed dtypes, memory
orders; PyTorch's infinities for a zero on the diagonal; the gradient of ``A`` kept to the
triangle read. The generic tests (gradcheck, forward AD, meta) run its samples."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close

sl = pytest.importorskip("scipy.linalg")

FLOATS = [tc.float32, tc.float64, tc.complex64, tc.complex128]


def _tol(d: tc.dtype) -> dict[str, float]:
    return {"rtol": 1e-4, "atol": 1e-4} if d in (tc.float32, tc.complex64) else {}


def _rand(shape: tuple[int, ...], d: tc.dtype, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if d.is_complex:
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(np.dtype(d.name))


def _tri(shape: tuple[int, ...], d: tc.dtype, seed: int) -> np.ndarray:
    """Well-conditioned triangles, with junk (never read) in the other triangle."""
    n = shape[-1]
    return _rand(shape, d, seed) + 2 * n * np.eye(n, dtype=np.dtype(d.name))


def _scipy(a: np.ndarray, b: np.ndarray, upper: bool, left: bool, unit: bool) -> np.ndarray:
    """SciPy's solve, one matrix at a time over the broadcast batch (``X A = B`` is
    ``A^T X^T = B^T``, SciPy's ``trans="T"``)."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    out = np.empty(b.shape, dtype=np.result_type(a, b))
    for i in np.ndindex(*batch):
        if left:
            out[i] = sl.solve_triangular(a[i], b[i], lower=not upper, unit_diagonal=unit)
        else:
            x = sl.solve_triangular(a[i], b[i].T, trans="T", lower=not upper, unit_diagonal=unit)
            out[i] = x.T
    return out


# (A's shape, B's shape for left=True): one matrix, one column (BLAS trsv), broadcast batches
# on either side, and a batch of many small matrices (the substitution over the columns).
SHAPES = [
    ((4, 4), (4, 3)),
    ((5, 5), (5, 1)),
    ((2, 1, 4, 4), (3, 4, 2)),
    ((4, 4), (2, 4, 3)),
    ((3, 4, 4), (3, 4, 1)),
    ((40, 2, 2), (40, 2, 3)),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize(("a_shape", "b_shape"), SHAPES, ids=str)
def test_matches_scipy(
    device: str, dtype: tc.dtype, a_shape: tuple[int, ...], b_shape: tuple[int, ...]
) -> None:
    a = _tri(a_shape, dtype, 0)
    for upper, left, unit in itertools.product((True, False), repeat=3):
        b = _rand(b_shape if left else b_shape[:-2] + b_shape[-2:][::-1], dtype, 1)
        got = tc.linalg.solve_triangular(
            tc.tensor(a, device=device),
            tc.tensor(b, device=device),
            upper=upper,
            left=left,
            unitriangular=unit,
        )
        want = _scipy(a, b, upper, left, unit)
        assert got.shape == want.shape and got.dtype is dtype
        assert_close(got, want, **_tol(dtype))


@pytest.mark.parametrize("left", [True, False])
def test_memory_orders(device: str, left: bool) -> None:
    """Transposed, Fortran-ordered and sliced operands give the same solution (the BLAS
    path reads each order without a copy where it can)."""
    a = _tri((6, 6), tc.float64, 2)
    b = _rand((6, 6), tc.float64, 3)
    want = {upper: _scipy(a, b, upper, left, False) for upper in (True, False)}
    views = {
        "C": lambda x: tc.tensor(x, device=device),
        "F": lambda x: tc.tensor(np.ascontiguousarray(x.T), device=device).mT,
        "sliced": lambda x: tc.tensor(np.repeat(x, 2, axis=-1), device=device)[..., ::2],
    }
    for (ka, va), (kb, vb) in itertools.product(views.items(), repeat=2):
        for upper in (True, False):
            got = tc.linalg.solve_triangular(va(a), vb(b), upper=upper, left=left)
            assert_close(got, want[upper], msg=f"A {ka}, B {kb}, upper={upper}")
            # One right-hand side (BLAS trsv): a column, or a row when not left.
            one = (slice(None), slice(0, 1)) if left else (slice(0, 1), slice(None))
            got = tc.linalg.solve_triangular(va(a), vb(b)[one], upper=upper, left=left)
            assert_close(got, _scipy(a, b[one], upper, left, False), msg="one column")


def test_promotes_the_dtypes(device: str) -> None:
    a = _tri((3, 3), tc.float32, 4)
    b = _rand((3, 2), tc.complex128, 5)
    got = tc.linalg.solve_triangular(
        tc.tensor(a, device=device), tc.tensor(b, device=device), upper=False
    )
    assert got.dtype is tc.complex128
    assert_close(got, _scipy(a.astype(np.complex128), b, False, True, False))
    b32 = tc.tensor(b.real.astype(np.float64), device=device)
    got = tc.linalg.solve_triangular(tc.tensor(a, device=device), b32, upper=True, left=True)
    assert got.dtype is tc.float64


def test_right_hand_side_of_any_dtype(device: str) -> None:
    # As PyTorch's, B may be an integer, bool or 16-bit tensor: the solve runs in the
    # promoted dtype, which A (float32 at least) decides.
    a = _tri((3, 3), tc.float32, 7)
    ta = tc.tensor(a, device=device)
    b = np.array([[1, -2], [3, 0], [2, 5]])
    for tb in (
        tc.tensor(b, device=device),
        tc.tensor(b != 0, device=device),
        tc.tensor(b, dtype=tc.float16, device=device),
    ):
        got = tc.linalg.solve_triangular(ta, tb, upper=False)
        assert got.dtype is tc.float32
        want = _scipy(a, tb.double().cpu().numpy(), False, True, False)
        assert_close(got, want.astype(np.float32))
    with pytest.raises(RuntimeError, match="input tensor B must have at least 2 dimensions"):
        tc.linalg.solve_triangular(ta, tc.ones(3, dtype=tc.int64, device=device), upper=False)
    with pytest.raises(NotImplementedError, match=r"triangular_solve.*'Long'"):
        tc.linalg.solve_triangular(tc.tensor(b[:, :1].repeat(3, 1), device=device), ta, upper=False)


def test_out_and_empty(device: str) -> None:
    a = tc.tensor(_tri((2, 3, 3), tc.float64, 6), device=device)
    b = tc.tensor(_rand((3, 4), tc.float64, 7), device=device)
    out = tc.empty(0, dtype=tc.float64, device=device)
    r = tc.linalg.solve_triangular(a, b, upper=True, out=out)
    assert r is out and out.shape == (2, 3, 4)
    assert_close(out, tc.linalg.solve_triangular(a, b, upper=True))
    assert tc.linalg.solve_triangular(a[:0], b, upper=True).shape == (0, 3, 4)
    assert tc.linalg.solve_triangular(a, b[:, :0], upper=True).shape == (2, 3, 0)
    none = tc.empty(0, 0, dtype=tc.float64, device=device)
    assert tc.linalg.solve_triangular(none, none, upper=False, left=False).shape == (0, 0)


@pytest.mark.parametrize("batch", [(), (40,)], ids=["blas", "columns"])
def test_zero_on_the_diagonal_gives_infinities(device: str, batch: tuple[int, ...]) -> None:
    """As PyTorch (BLAS's trsm): no error and no warning, inf where the zero pivot divides
    and NaN (0 * inf) above it."""
    a = tc.zeros(*batch, 2, 2, dtype=tc.float64, device=device)
    b = tc.ones(*batch, 2, 1, dtype=tc.float64, device=device)
    got = tc.linalg.solve_triangular(a, b, upper=True).reshape(-1, 2).tolist()
    assert all(np.isnan(r[0]) and r[1] == np.inf for r in got)


def _grad_mask(n: int, upper: bool, unit: bool) -> np.ndarray:
    m = np.triu(np.ones((n, n)), int(unit)) if upper else np.tril(np.ones((n, n)), -int(unit))
    return m.astype(bool)


@pytest.mark.parametrize(
    ("upper", "left", "unit"), list(itertools.product((True, False), repeat=3))
)
def test_gradient_stays_in_the_triangle(device: str, upper: bool, left: bool, unit: bool) -> None:
    a = tc.tensor(_tri((2, 3, 3), tc.float64, 8), device=device, requires_grad=True)
    b = tc.tensor(
        _rand((3, 4) if left else (4, 3), tc.float64, 9), device=device, requires_grad=True
    )
    x = tc.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit)
    assert x.grad_fn.name() == "LinalgSolveTriangularBackward0"
    x.square().sum().backward()
    g = a.grad.cpu().numpy()
    assert not g[:, ~_grad_mask(3, upper, unit)].any()
    assert g[:, _grad_mask(3, upper, unit)].all()  # (a generic point: no zero by chance)
    # The gradient of the read triangle is that of the triangle itself, solved generally.
    an = a.detach().cpu().numpy()
    t = np.triu(an) if upper else np.tril(an)
    if unit:
        t = t - np.einsum("bii->bi", t)[..., None] * np.eye(3) + np.eye(3)
    tt = tc.tensor(t, device=device, requires_grad=True)
    bb = b.detach().requires_grad_()
    tc.linalg.solve(tt, bb, left=left).square().sum().backward()
    assert_close(a.grad, np.where(_grad_mask(3, upper, unit), tt.grad.cpu().numpy(), 0.0))
    assert_close(b.grad, bb.grad)


def test_triangular_solve_and_cholesky_use_it(device: str) -> None:
    a = _tri((2, 3, 3), tc.float64, 10)
    b = _rand((3, 2), tc.float64, 11)
    ta, tb = tc.tensor(a, device=device), tc.tensor(b, device=device)
    for upper, transpose, unit in itertools.product((True, False), repeat=3):
        sol, coef = tc.triangular_solve(
            tb, ta, upper=upper, transpose=transpose, unitriangular=unit
        )
        want = np.stack(
            [
                sl.solve_triangular(
                    m, b, lower=not upper, trans="T" if transpose else "N", unit_diagonal=unit
                )
                for m in a
            ]
        )
        assert_close(sol, want)
        assert_close(coef, a)
    low = np.linalg.cholesky(a @ np.swapaxes(a, -1, -2))
    got: Any = tc.cholesky_solve(tb, tc.tensor(low, device=device))
    assert_close(got, np.linalg.solve(low @ np.swapaxes(low, -1, -2), b))
