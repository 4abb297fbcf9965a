"""``tensorcore.linalg``'s decompositions, solvers, norms and products against NumPy, their
errors (PyTorch's types and wording), and the gradient cases the generic gradcheck does not
reach. Eigenvectors and singular vectors are unique only up to sign (phase): they are compared
through reconstructions and magnitudes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close

L = tc.linalg
FLOATS = [tc.float32, tc.float64, tc.complex64, tc.complex128]


def _tol(d: tc.dtype) -> dict[str, float]:
    return {"rtol": 1e-4, "atol": 1e-4} if d in (tc.float32, tc.complex64) else {}


def _rand(shape: tuple[int, ...], d: tc.dtype, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if d.is_complex:
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(np.dtype(d.name))


def _t(a: Any, device: str) -> tc.Tensor:
    return tc.tensor(np.ascontiguousarray(a), device=device)


def _mh(a: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(a, -1, -2))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_inverses_and_determinants_match_numpy(device: str, dtype: tc.dtype) -> None:
    a = _rand((2, 3, 3), dtype) + 3 * np.eye(3, dtype=np.dtype(dtype.name))
    t = _t(a, device)
    assert_close(L.inv(t), np.linalg.inv(a), **_tol(dtype))
    assert_close(tc.inverse(t), np.linalg.inv(a), **_tol(dtype))
    assert_close(L.det(t), np.linalg.det(a), **_tol(dtype))
    assert_close(t.det(), np.linalg.det(a), **_tol(dtype))
    sign, logabs = L.slogdet(t)
    ns, nl = np.linalg.slogdet(a)
    assert_close(sign, ns, **_tol(dtype))
    assert_close(logabs, nl, **_tol(dtype))
    assert logabs.dtype is (tc.float64 if dtype in (tc.float64, tc.complex128) else tc.float32)
    assert type(L.slogdet(t)).__name__ == "linalg_slogdet"
    assert type(tc.slogdet(t)).__name__ == "slogdet"
    assert L.det(_t(np.zeros((2, 0, 0)), device)).tolist() == [1.0, 1.0]


def test_logdet_of_negative_and_zero_determinants(device: str) -> None:
    t = _t(
        np.array([[[-1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 1.0]], [[2.0, 0], [0, 2]]]), device
    )
    got = tc.logdet(t).tolist()
    assert math.isnan(got[0]) and got[1] == -math.inf and got[2] == pytest.approx(math.log(4))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_solve_matches_numpy(device: str, dtype: tc.dtype) -> None:
    a = _rand((2, 3, 3), dtype) + 3 * np.eye(3, dtype=np.dtype(dtype.name))
    ta = _t(a, device)
    b = _rand((3, 2), dtype, 1)  # broadcast over A's batch
    assert_close(L.solve(ta, _t(b, device)), np.linalg.solve(a, b), **_tol(dtype))
    v = _rand((2, 3), dtype, 2)  # a batch of vectors: A's shape without its last dim
    want = np.linalg.solve(a, v[..., None])[..., 0]
    assert_close(L.solve(ta, _t(v, device)), want, **_tol(dtype))
    x = _rand((4, 1, 2, 3), dtype, 3)  # X A = B
    want = np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), np.swapaxes(x, -1, -2)), -1, -2)
    got = L.solve(ta, _t(x, device), left=False)
    assert got.shape == (4, 2, 2, 3)
    assert_close(got, want, **_tol(dtype))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_cholesky_reads_one_triangle(device: str, dtype: tc.dtype) -> None:
    b = _rand((2, 3, 3), dtype)
    a = b @ _mh(b) + 3 * np.eye(3)
    want = np.linalg.cholesky(a)
    junk = np.triu(_rand((3, 3), dtype, 5), 1)
    assert_close(L.cholesky(_t(a + junk, device)), want, **_tol(dtype))  # the lower triangle
    upper = L.cholesky(_t(a + _mh(junk), device), upper=True)  # the upper triangle
    assert_close(upper, _mh(want), **_tol(dtype))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_triangular_solvers_match_scipy(device: str, dtype: tc.dtype) -> None:
    sl = pytest.importorskip("scipy.linalg")
    a = _rand((2, 3, 3), dtype) + 3 * np.eye(3, dtype=np.dtype(dtype.name))
    b = _rand((3, 2), dtype, 1)
    ta, tb = _t(a, device), _t(b, device)
    for upper in (True, False):
        want = np.stack([sl.solve_triangular(m, b, lower=not upper) for m in a])
        assert_close(L.solve_triangular(ta, tb, upper=upper), want, **_tol(dtype))
        unit = np.stack([sl.solve_triangular(m, b, lower=not upper, unit_diagonal=True) for m in a])
        got = L.solve_triangular(ta, tb, upper=upper, unitriangular=True)
        assert_close(got, unit, **_tol(dtype))
        # X A = B: (A^T X^T = B^T).
        x = _rand((2, 3), dtype, 2)
        right = np.stack([sl.solve_triangular(m.T, x.T, lower=upper).T for m in a])
        got = L.solve_triangular(ta, _t(x, device), upper=upper, left=False)
        assert_close(got, right, **_tol(dtype))
        sol, coef = tc.triangular_solve(tb, ta, upper=upper, transpose=True)
        trans = np.stack([sl.solve_triangular(m, b, lower=not upper, trans="T") for m in a])
        assert_close(sol, trans, **_tol(dtype))
        assert_close(coef, a)
    with pytest.raises(RuntimeError, match="B must have at least 2 dimensions"):
        L.solve_triangular(ta, tb[:, 0], upper=True)
    with pytest.raises(RuntimeError, match=r"Incompatible shapes of A and B .* \(3x3 and 2x3\)"):
        L.solve_triangular(ta, tb.mT, upper=True)
    # Cholesky: A = L L^H = U^H U.
    c = _rand((2, 3, 3), dtype, 3)
    spd = c @ _mh(c) + 3 * np.eye(3)
    low = np.linalg.cholesky(spd)
    want = np.linalg.solve(spd, b)
    assert_close(tc.cholesky_solve(tb, _t(low, device)), want, **_tol(dtype))
    assert_close(tb.cholesky_solve(_t(_mh(low), device), upper=True), want, **_tol(dtype))
    assert_close(tc.cholesky_inverse(_t(low, device)), np.linalg.inv(spd), **_tol(dtype))
    inv_u = tc.cholesky_inverse(_t(_mh(low), device), upper=True)
    assert_close(inv_u, np.linalg.inv(spd), **_tol(dtype))
    with pytest.raises(RuntimeError, match="b should have at least 2 dimensions"):
        tc.cholesky_solve(tb[:, 0], _t(low, device))


def test_cholesky_ex_reports_instead_of_raising(device: str) -> None:
    good = np.array([[4.0, 2.0], [2.0, 5.0]])
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])
    L_, info = L.cholesky_ex(_t(np.stack([good, bad, good]), device))
    assert type(L.cholesky_ex(_t(good, device))).__name__ == "linalg_cholesky_ex"
    assert info.dtype is tc.int32 and info.tolist() == [0, 2, 0]
    assert_close(L_[0], np.linalg.cholesky(good))
    assert_close(L_[2], np.linalg.cholesky(good))
    assert L_[1].isnan().all()
    L1, info1 = L.cholesky_ex(_t(good, device), upper=True)
    assert info1.shape == () and info1.item() == 0
    assert_close(L1, np.linalg.cholesky(good).T)
    with pytest.raises(L.LinAlgError, match=r"linalg\.cholesky_ex: .*order 2"):
        L.cholesky_ex(_t(bad, device), check_errors=True)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_deprecated_svd_returns_v(device: str, dtype: tc.dtype) -> None:
    a = _rand((2, 4, 3), dtype)
    t = _t(a, device)
    U, S, V = tc.svd(t)
    assert type(tc.svd(t)).__name__ == "svd" and V.shape == (2, 3, 3) and U.shape == (2, 4, 3)
    assert_close(S, np.linalg.svd(a, compute_uv=False), **_tol(dtype))
    assert_close(U @ tc.diag_embed(S).to(dtype) @ V.mH, a, **_tol(dtype))
    Uf, _, Vf = t.svd(some=False)
    assert Uf.shape == (2, 4, 4) and Vf.shape == (2, 3, 3)
    U0, S0, V0 = tc.svd(t, compute_uv=False)
    assert_close(S0, np.linalg.svd(a, compute_uv=False), **_tol(dtype))
    assert not U0.abs().sum().item() and U0.shape == (2, 4, 4) and V0.shape == (2, 3, 3)


def test_low_rank_svd_and_pca(device: str) -> None:
    rng = np.random.default_rng(3)
    a = rng.normal(size=(30, 3)) @ rng.normal(size=(3, 8))  # rank 3
    t = _t(a, device)
    tc.manual_seed(0)
    U, S, V = tc.svd_lowrank(t, q=4)
    assert U.shape == (30, 4) and V.shape == (8, 4)
    assert_close(S[:3], np.linalg.svd(a, compute_uv=False)[:3], rtol=1e-6, atol=1e-6)
    assert_close((U * S) @ V.mT, a, atol=1e-8, rtol=1e-8)
    Uw, Sw, Vw = tc.svd_lowrank(t.mT, q=3)  # a wide matrix
    assert Uw.shape == (8, 3) and Vw.shape == (30, 3)
    assert_close((Uw * Sw) @ Vw.mT, a.T, atol=1e-8, rtol=1e-8)
    centered = a - a.mean(0)
    _, Sp, Vp = tc.pca_lowrank(t, q=3)
    want = np.linalg.svd(centered, full_matrices=False)
    assert_close(Sp, want[1][:3], rtol=1e-6, atol=1e-6)
    assert_close(Vp.abs(), np.abs(want[2][:3].T), rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="must be non-negative integer and not greater"):
        tc.pca_lowrank(t, q=9)


def test_dist(device: str) -> None:
    a, b = _rand((2, 3), tc.float64), _rand((3,), tc.float64, 1)
    ta, tb = _t(a, device), _t(b, device)
    for p in (2, 1, 0, math.inf, 3.5):
        want = np.linalg.norm((a - b).ravel(), ord=p)
        assert_close(tc.dist(ta, tb, p), want)
    assert_close(ta.dist(tb), np.linalg.norm(a - b))
    with pytest.raises(RuntimeError, match="input dtype should be either floating point"):
        tc.dist(tc.tensor([1, 2], device=device), tc.tensor([0, 0], device=device))


def test_cond_vander_tensorinv_tensorsolve(device: str) -> None:
    a = _rand((2, 3, 3), tc.float64) + 2 * np.eye(3)
    t = _t(a, device)
    for p in (None, 2, -2, "fro", "nuc", np.inf, -np.inf, 1, -1):
        assert_close(L.cond(t, p), np.linalg.cond(a, p))
    assert L.cond(_t(np.zeros((2, 2)), device), 1).item() == math.inf
    x = np.array([1.0, 2.0, 3.0])
    assert_close(L.vander(_t(x, device)), np.vander(x, increasing=True))
    assert_close(L.vander(_t(x, device), N=5), np.vander(x, 5, increasing=True))
    m = _rand((6, 6), tc.float64, 4) + 3 * np.eye(6)
    tm = _t(m.reshape(2, 3, 6), device)
    assert_close(L.tensorinv(tm, ind=2), np.linalg.tensorinv(m.reshape(2, 3, 6), ind=2))
    b = _rand((2, 3), tc.float64, 5)
    want = np.linalg.tensorsolve(m.reshape(2, 3, 2, 3), b)
    assert_close(L.tensorsolve(_t(m.reshape(2, 3, 2, 3), device), _t(b, device)), want)
    with pytest.raises(RuntimeError, match="but got 18 != 6"):
        L.tensorsolve(_t(np.ones((6, 2, 3)), device), _t(np.ones(6), device), dims=(0,))


def test_adjoint_views(device: str) -> None:
    a = _rand((2, 2, 3), tc.complex128)
    t = _t(a, device)
    assert_close(t.mH, _mh(a))
    assert_close(t.adjoint(), _mh(a))
    assert_close(t[0].H, _mh(a[0]))
    r = _t(a.real, device)
    assert_close(r.mH, np.swapaxes(a.real, -1, -2))
    with pytest.raises(RuntimeError, match=r"tensor\.mH is only supported on matrices"):
        _ = t[0, 0].mH
    with pytest.raises(RuntimeError, match=r"For batches of matrices, consider using tensor\.mH"):
        _ = t.H


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_eigh_eigvalsh_match_numpy(device: str, dtype: tc.dtype) -> None:
    b = _rand((2, 4, 4), dtype)
    a = b + _mh(b)
    t = _t(a, device)
    for uplo in ("L", "U"):
        w, v = L.eigh(t, UPLO=uplo)
        nw, nv = np.linalg.eigh(a, UPLO=uplo)
        assert_close(w, nw, **_tol(dtype))
        assert_close(L.eigvalsh(t, uplo), nw, **_tol(dtype))
        assert_close(v.abs(), np.abs(nv), **_tol(dtype))
        recon = v.cpu().numpy() * w.cpu().numpy()[..., None, :] @ _mh(v.cpu().numpy())
        np.testing.assert_allclose(recon, a, atol=1e-4)
    assert type(L.eigh(t)).__name__ == "linalg_eigh"
    assert L.eigh(t).eigenvalues.dtype is L.svdvals(t).dtype


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (3, 3)], ids=str)
def test_qr_and_svd_reconstruct(device: str, dtype: tc.dtype, shape: tuple[int, ...]) -> None:
    a = _rand(shape, dtype)
    t = _t(a, device)
    m, n = shape[-2:]
    k = min(m, n)
    for mode, (qs, rs) in {"reduced": ((m, k), (k, n)), "complete": ((m, m), (m, n))}.items():
        q, r = L.qr(t, mode)
        assert q.shape[-2:] == qs and r.shape[-2:] == rs
        assert_close(q @ r, a, **_tol(dtype))
        assert_close(r, np.triu(r.cpu().numpy()))
        eye = np.broadcast_to(np.eye(qs[1]), q.shape[:-2] + (qs[1], qs[1]))
        assert_close(q.mT.conj() @ q, eye, check_dtype=False, **_tol(dtype))
    q, r = L.qr(t, mode="r")
    assert q.shape == (0,) and r.shape[-2:] == (k, n)
    for full in (True, False):
        u, s, vh = L.svd(t, full_matrices=full)
        assert u.shape[-1] == (m if full else k) and vh.shape[-2] == (n if full else k)
        assert_close(s, np.linalg.svd(a, compute_uv=False), **_tol(dtype))
        us = u[..., :k] * s[..., None, :].to(dtype)
        assert_close(us @ vh[..., :k, :], a, **_tol(dtype))
    assert_close(L.svdvals(t), np.linalg.svd(a, compute_uv=False), **_tol(dtype))
    assert type(L.svd(t)).__name__ == "linalg_svd" and type(L.qr(t)).__name__ == "linalg_qr"


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_pinv_and_matrix_rank_match_numpy(device: str, dtype: tc.dtype) -> None:
    a = _rand((2, 4, 3), dtype)
    a[1, :, 2] = a[1, :, 0] + a[1, :, 1]  # rank 2
    t = _t(a, device)
    eps = np.finfo(np.dtype(dtype.name)).eps
    # PyTorch's default cut-off is eps * max(m, n) (NumPy's is 1e-15).
    assert_close(L.pinv(t), np.linalg.pinv(a, rcond=eps * 4), **_tol(dtype))
    assert_close(tc.pinverse(t[0]), np.linalg.pinv(a[0], rcond=1e-15), **_tol(dtype))
    assert L.matrix_rank(t).tolist() == [3, 2]
    assert L.matrix_rank(t).dtype is tc.int64
    assert L.matrix_rank(t, atol=1e6).tolist() == [0, 0]
    assert L.matrix_rank(t, tol=1e6).tolist() == [0, 0]
    h = a[0].T.conj() @ a[0]
    assert_close(L.pinv(_t(h, device), hermitian=True), np.linalg.pinv(h), **_tol(dtype))
    assert L.matrix_rank(_t(h, device), hermitian=True).item() == 3


ORDS = ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("ord", ORDS, ids=str)
def test_matrix_norm_matches_numpy(device: str, dtype: tc.dtype, ord: Any) -> None:
    a = _rand((2, 3, 4), dtype)
    t = _t(a, device)
    assert_close(L.matrix_norm(t, ord), np.linalg.norm(a, ord, axis=(-2, -1)), **_tol(dtype))
    got = L.matrix_norm(t, ord, dim=(0, 2), keepdim=True)
    assert got.shape == (1, 3, 1)
    assert_close(got, np.linalg.norm(a, ord, axis=(0, 2), keepdims=True), **_tol(dtype))
    assert_close(L.norm(t[0], ord), np.linalg.norm(a[0], ord), **_tol(dtype))


def test_norm_chooses_vector_or_matrix_norms(device: str) -> None:
    a = np.arange(12.0).reshape(3, 4) - 5
    t = _t(a, device)
    assert_close(L.norm(t), np.linalg.norm(a.ravel()))
    assert_close(L.norm(t, 1), np.linalg.norm(a, 1))
    assert_close(L.norm(t, 1, dim=1), np.linalg.norm(a, 1, axis=1))
    assert_close(L.norm(t, dim=(0, 1)), np.linalg.norm(a))
    with pytest.raises(RuntimeError, match="If dim is not specified but ord is, the input must"):
        L.norm(t[None], 2)


def test_matrix_power_matches_numpy(device: str) -> None:
    a = _rand((2, 3, 3), tc.float64) + 3 * np.eye(3)
    t = _t(a, device)
    for n in (0, 1, 2, 5, -1, -3):
        assert_close(L.matrix_power(t, n), np.linalg.matrix_power(a, n))
        assert_close(t.matrix_power(n), np.linalg.matrix_power(a, n))
    ints = tc.tensor([[1, 1], [0, 1]], device=device)
    assert L.matrix_power(ints, 3).tolist() == [[1, 3], [0, 1]]


@pytest.mark.parametrize("dtype", [tc.float64, tc.complex128, tc.int64], ids=lambda d: d.name)
def test_products_match_numpy(device: str, dtype: tc.dtype) -> None:
    def r(*shape: int, seed: int = 0) -> np.ndarray:
        x = _rand(shape, dtype, seed) if dtype.is_floating_point or dtype.is_complex else None
        return x if x is not None else np.random.default_rng(seed).integers(-4, 4, shape)

    a, b = r(2, 3, 4), r(3, 4, 5, seed=1)
    ta, tb = _t(a, device), _t(b, device)
    assert_close(tc.tensordot(ta, tb), np.tensordot(a, b, 2))
    assert_close(tc.tensordot(ta, tb, ([1, 2], [0, 1])), np.tensordot(a, b, ([1, 2], [0, 1])))
    assert_close(tc.tensordot(ta, tb, 0), np.tensordot(a, b, 0))
    assert_close(tc.trace(ta[0]), np.trace(a[0]))
    assert_close(ta[0].trace(), np.trace(a[0]))
    assert_close(tc.kron(ta[0], tb[0, 0]), np.kron(a[0], b[0, 0]))
    assert_close(ta[0].kron(ta[1]), np.kron(a[0], a[1]))
    assert_close(L.diagonal(ta, offset=1), np.diagonal(a, 1, -2, -1))
    c = r(4, 3, seed=2)
    v = r(3, seed=3)
    chain = [ta[0].mT, ta[1], _t(c, device), _t(v, device)]
    want = np.linalg.multi_dot([a[0].T, a[1], c, v])
    assert_close(L.multi_dot(chain), want)
    x, y = r(1, 2, 3, seed=4), r(4, 1, 3, seed=5)
    assert_close(L.cross(_t(x, device), _t(y, device)), np.cross(x, y))
    if not dtype.is_floating_point and not dtype.is_complex:
        return
    assert_close(L.vecdot(_t(x, device), _t(y, device)), np.sum(np.conj(x) * y, -1))


def test_trace_of_integers_is_int64(device: str) -> None:
    t = tc.tensor([[1, 2], [3, 4]], dtype=tc.int32, device=device)
    assert tc.trace(t).dtype is tc.int64 and tc.trace(t).item() == 5


def test_cross_without_dim_takes_the_first_dim_of_size_3(device: str) -> None:
    a, b = _rand((3, 4), tc.float64), _rand((3, 4), tc.float64, 1)
    with pytest.warns(UserWarning, match="without specifying the dim arg is deprecated"):
        got = tc.cross(_t(a, device), _t(b, device))
    assert_close(got, np.cross(a, b, axis=0))
    assert_close(tc.cross(_t(a, device), _t(b, device), dim=0), np.cross(a, b, axis=0))


# ------------------------------------------------------------------ errors
def test_singular_and_indefinite_matrices_raise_linalg_error(device: str) -> None:
    sing = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert issubclass(L.LinAlgError, RuntimeError)
    with pytest.raises(
        L.LinAlgError,
        match=r"^linalg\.inv: The diagonal element 2 is zero, the inversion could not be "
        r"completed because the input matrix is singular\.$",
    ):
        L.inv(_t(sing, device))
    with pytest.raises(L.LinAlgError, match=r"^linalg\.inv: \(Batch element 1\): The diagonal"):
        L.inv(_t(np.stack([np.eye(2), sing]), device))
    with pytest.raises(
        L.LinAlgError, match=r"torch\.linalg\.solve: The solver failed because the input matrix"
    ):
        L.solve(_t(sing, device), _t(np.ones(2), device))
    indefinite = np.array([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(
        L.LinAlgError,
        match=r"^linalg\.cholesky: \(Batch element 1\): The factorization could not be "
        r"completed because the input is not positive-definite \(the leading minor of order 2 "
        r"is not positive-definite\)\.$",
    ):
        L.cholesky(_t(np.stack([np.eye(2), indefinite]), device))
    with pytest.raises(L.LinAlgError, match="leading minor of order 1"):
        L.cholesky(_t(-np.eye(3), device))
    sign, logabs = L.slogdet(_t(sing, device))
    assert sign.item() == 0 and logabs.item() == -math.inf
    assert L.det(_t(sing, device)).item() == 0


def test_bad_arguments_raise_pytorchs_errors(device: str) -> None:
    rect = tc.ones(2, 3, device=device)
    ints = tc.ones(2, 2, dtype=tc.int64, device=device)
    cases = [
        (lambda: L.inv(rect), "linalg.inv: A must be batches of square matrices, but they are "
         "2 by 3 matrices"),
        (lambda: L.det(tc.ones(3, device=device)), "linalg.det: The input tensor A must have at "
         "least 2 dimensions."),
        (lambda: L.inv(ints), "linalg.inv: Expected a floating point or complex tensor as "
         "input. Got Long"),
        (lambda: L.inv(rect.to(tc.float16)[:, :2]), "Low precision dtypes not supported. Got "
         "Half"),
        (lambda: L.eigh(rect[:, :2], UPLO="X"), "Expected UPLO argument to be 'L' or 'U', but "
         "got X"),
        (lambda: L.qr(rect, mode="x"), "qr received unrecognized mode 'x'"),
        (lambda: L.solve(tc.eye(2, device=device), tc.ones(3, device=device)),
         r"Incompatible shapes of A and B for the equation AX = B \(2x2 and 3x1\)"),
        (lambda: L.solve(tc.eye(2, device=device), tc.ones(2, 3, device=device), left=False),
         r"for the equation XA = B \(2x2 and 2x3\)"),
        (lambda: L.solve(tc.eye(2, device=device), tc.ones(2, dtype=tc.float64, device=device)),
         "Expected A and B to have the same dtype, but found A of type Float and B of type "
         "Double instead"),
        (lambda: L.cross(rect.mT, rect.mT), "linalg.cross: inputs dimension -1 must have length "
         "3. Got 2 and 2"),
        (lambda: L.cross(tc.ones(2, 3, device=device), tc.ones(3, device=device)),
         "linalg.cross: inputs must have the same number of dimensions."),
        (lambda: L.matrix_norm(rect, 3), "linalg.matrix_norm: Order 3 not supported."),
        (lambda: L.matrix_norm(rect, dim=(0, 0)), r"dims must be different. Got \(0, 0\)"),
        (lambda: L.matrix_power(rect, 2), "linalg.matrix_power: A must be batches of square"),
        (lambda: L.multi_dot([rect]), r"multi_dot\(\): expected at least 2 tensors but got 1"),
        (lambda: L.multi_dot([rect, rect]), r"tensors 0 and 1 with shapes \[2, 3\] and \[2, 3\] "
         "cannot be multiplied"),
        (lambda: L.multi_dot([rect, tc.ones(3, device=device), rect]), "tensor 1 must be 2D"),
        (lambda: tc.tensordot(rect, rect, -1), "tensordot expects dims >= 0, but got dims=-1"),
        (lambda: tc.tensordot(rect, rect, ([0], [1])), "contracted dimensions need to match, but "
         "first has size 2 in dim 0 and second has size 3 in dim 1"),
        (lambda: tc.tensordot(rect, rect, ([0], [0, 1])), "both dimension lists should have same"),
        (lambda: tc.trace(tc.ones(2, 2, 2, device=device)), "trace: expected a matrix, but got "
         "tensor with dim 3"),
        (lambda: L.vecdot(ints, ints), "linalg.vecdot: Expected a floating point or complex"),
        (lambda: L.pinv(ints), r"linalg.pinv\(Long\{\[2, 2\]\}\): expected a tensor with 2 "
         "or more"),
    ]  # fmt: skip
    for fn, message in cases:
        with pytest.raises(RuntimeError, match=message):
            fn()


def test_an_operator_built_on_another_keeps_its_named_message(device: str) -> None:
    # PyTorch names the operator that checked once: inverse reports linalg.inv's message, not
    # "inverse(): linalg.inv: ...".
    rect = tc.ones(2, 3, device=device)
    vec = tc.ones(3, device=device)
    cases = [
        (lambda: tc.det(rect), "linalg.det: A must be batches of square matrices"),
        (lambda: rect.det(), "linalg.det: A must be batches of square matrices"),
        (lambda: tc.inverse(vec), "linalg.inv: The input tensor A must have at least 2"),
        (lambda: tc.pinverse(vec), r"linalg.pinv\(Float\{\[3\]\}\): expected a tensor"),
        (lambda: L.multi_dot([rect]), r"multi_dot\(\): expected at least 2 tensors"),
        (lambda: L.svdvals(vec), "linalg.svdvals: The input tensor A must have at least 2"),
    ]
    for fn, message in cases:
        with pytest.raises(RuntimeError, match="^" + message):
            fn()


def test_out_arguments(device: str) -> None:
    a = _t(np.array([[2.0, 0.0], [0.0, 4.0]]), device)
    out = tc.empty(0, dtype=tc.float64, device=device)
    assert L.inv(a, out=out) is out and out.tolist() == [[0.5, 0.0], [0.0, 0.25]]
    vals = tc.empty(2, dtype=tc.float64, device=device)
    assert L.eigvalsh(a, out=vals) is vals and vals.tolist() == [2.0, 4.0]
    sign, logabs = tc.empty(0, device=device).double(), tc.empty(0, device=device).double()
    L.slogdet(a, out=(sign, logabs))
    assert sign.item() == 1.0 and logabs.item() == pytest.approx(math.log(8))


# ------------------------------------------------------------------ gradients
def test_det_gradient_of_a_singular_matrix_is_the_cofactor_matrix(device: str) -> None:
    a = _t(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]), device)
    a.requires_grad_()
    assert tc.autograd.gradcheck(L.det, [a])
    L.det(a).backward()
    cof = np.array([[4.0, 4.0, -4.0], [-2.0, -2.0, 2.0], [0.0, 0.0, 0.0]])
    assert_close(a.grad, cof, rtol=1e-7, atol=1e-10)


def test_svd_gradient_with_full_matrices_uses_the_first_vectors(device: str) -> None:
    a = _t(_rand((4, 2), tc.float64), device)
    grads = []
    for full in (True, False):
        x = a.detach().clone().requires_grad_()
        u, s, vh = L.svd(x, full_matrices=full)
        (u[:, :2].abs().sum() + s.sum() + vh.abs().sum()).backward()
        grads.append(x.grad)
    assert_close(grads[0], grads[1].cpu().numpy())


def test_gauge_dependent_complex_losses_raise(device: str) -> None:
    b = _rand((3, 3), tc.complex128)
    a = _t(b + _mh(b), device).requires_grad_()
    with pytest.raises(RuntimeError, match="eigenvectors in the complex case are specified up to"):
        L.eigh(a).eigenvectors.sum().abs().backward()
    with pytest.raises(RuntimeError, match="singular vectors in the complex case"):
        L.svd(a).U.sum().abs().backward()
    L.eigh(a).eigenvectors.abs().sum().backward()  # gauge-invariant: fine


def test_qr_backward_refuses_what_pytorch_refuses(device: str) -> None:
    a = _t(_rand((3, 2), tc.float64), device).requires_grad_()
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete' and nrows"):
        L.qr(a, mode="complete").Q.sum().backward()
    with pytest.raises(RuntimeError, match="depends on Q, which is not computed when mode='r'"):
        L.qr(a, mode="r").R.sum().backward()


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_gradient_fills_the_whole_factor(device: str, upper: bool) -> None:
    # PyTorch differentiates A = L L^T in the whole factor: grad L = -(C L), C = gB X^T + X gB^T
    # (grad U = -(U C)), with gB = A^-1 G the gradient of B; both triangles filled.
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 3))
    a = a @ a.T + 3 * np.eye(3)
    low = np.linalg.cholesky(a)
    fac = low.T if upper else low
    b, g = rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    f = _t(fac, device).requires_grad_()
    bt = _t(b, device).requires_grad_()
    x = tc.cholesky_solve(bt, f, upper=upper)
    (x * _t(g, device)).sum().backward()
    xn = np.linalg.solve(a, b)
    gb = np.linalg.solve(a, g)
    c = gb @ xn.T + xn @ gb.T
    assert_close(x, xn)
    assert_close(bt.grad, gb)
    assert_close(f.grad, -(fac @ c) if upper else -(c @ fac))
