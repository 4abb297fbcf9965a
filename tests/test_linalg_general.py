"""``tensorcore.linalg``'s functions of general matrices against NumPy and SciPy: ``eig`` and
``eigvals``, the LU family (``lu_factor``, ``lu_factor_ex``, ``lu``, ``lu_unpack``,
``lu_solve``, the deprecated ``lu``/``lu_solve``) and ``matrix_exp``; their errors (PyTorch's
types and wording) and the gradient cases the generic gradcheck does not reach (the gauge
check, the LU kernel's two paths, scaling and squaring)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorcore as tc
from tensorcore.testing import assert_close, dtype_unsupported
from tensorcore.testing import strategies as tcst

sl = pytest.importorskip("scipy.linalg")

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


def _n(t: tc.Tensor) -> np.ndarray:
    return t.cpu().numpy()


# ------------------------------------------------------------------ eig
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_eig_matches_numpy(device: str, dtype: tc.dtype) -> None:
    a = _rand((2, 4, 4), dtype)
    values, vectors = L.eig(_t(a, device))
    assert type(L.eig(_t(a, device))).__name__ == "linalg_eig"
    want = tc.complex128 if dtype in (tc.float64, tc.complex128) else tc.complex64
    assert values.dtype is want and vectors.dtype is want
    assert values.shape == (2, 4) and vectors.shape == (2, 4, 4)
    w = np.linalg.eigvals(a)
    assert_close(values, w.astype(np.dtype(want.name)), **_tol(dtype))  # geev's own order
    lv, vv = _n(values), _n(vectors)
    assert np.allclose(a @ vv, vv * lv[..., None, :], atol=1e-3)
    assert np.allclose(np.linalg.norm(vv, axis=-2), 1, atol=1e-5)
    assert_close(L.eigvals(_t(a, device)), values)
    # Empty matrices and batches.
    e = L.eig(tc.zeros(2, 0, 0, dtype=dtype, device=device))
    assert e.eigenvalues.shape == (2, 0) and e.eigenvectors.shape == (2, 0, 0)


def test_eig_errors(device: str) -> None:
    with pytest.raises(RuntimeError, match=r"linalg\.eig: A must be batches of square matrices"):
        L.eig(tc.ones(2, 3, device=device))
    with pytest.raises(RuntimeError, match=r"linalg\.eigvals: A must be batches of square"):
        L.eigvals(tc.ones(2, 3, device=device))
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        L.eig(tc.ones(3, device=device))
    with pytest.raises(RuntimeError, match="Unknown Complex ScalarType for Long"):
        L.eig(tc.ones(2, 2, dtype=tc.int64, device=device))
    with pytest.raises(NotImplementedError, match="not implemented for 'Half'"):
        L.eigvals(tc.ones(2, 2, dtype=tc.float16, device=device))
    with pytest.raises(RuntimeError, match="should not contain infs or NaNs"):
        L.eig(tc.tensor([[float("nan"), 1.0], [1.0, 1.0]], device=device))
    with pytest.raises(RuntimeError, match="safely castable"):
        L.eigvals(tc.eye(2, device=device), out=tc.empty(0, device=device))
    out = tc.empty(0, dtype=tc.complex64, device=device)
    assert L.eigvals(tc.eye(2, device=device), out=out) is out
    assert out.tolist() == [1, 1]
    pair = (tc.empty(0, dtype=tc.complex64, device=device),) * 2
    res = L.eig(tc.eye(2, device=device), out=(pair[0], tc.empty(0, dtype=tc.complex64)))
    assert type(res).__name__ == "linalg_eig" and res.eigenvectors.shape == (2, 2)


@pytest.mark.parametrize("dtype", [tc.float64, tc.complex128], ids=lambda d: d.name)
def test_eig_gradient_refuses_a_loss_that_depends_on_the_phases(
    device: str, dtype: tc.dtype
) -> None:
    a = _t(_rand((3, 3), dtype, 1), device).requires_grad_()
    with pytest.raises(RuntimeError, match="linalg_eig_backward: The eigenvectors in the complex"):
        L.eig(a)[1].real.sum().backward()
    a.grad = None
    L.eig(a)[1].abs().sum().backward()  # gauge-invariant: fine
    assert a.grad is not None and a.grad.dtype is dtype
    # eigvals computes the eigenvectors only for a gradient; its gradient is V^-H diag(g) V^H.
    a.grad = None
    L.eigvals(a).real.sum().backward()
    assert_close(a.grad, tc.eye(3, dtype=dtype, device=device), atol=1e-10, rtol=0)


# ------------------------------------------------------------------ LU
def _scipy_lu(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """SciPy's packed LU and 1-based pivots of each matrix of a batch (any shape)."""
    getrf = sl.get_lapack_funcs(("getrf",), (a,))[0]
    flat = a.reshape((-1,) + a.shape[-2:])
    lus, pivs = zip(*[getrf(m)[:2] for m in flat], strict=True)
    k = min(a.shape[-2:])
    return np.stack(lus).reshape(a.shape), (np.stack(pivs) + 1).reshape(a.shape[:-2] + (k,))


@pytest.fixture(params=["scipy", "columns"])
def lu_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The LU kernel's two paths on NumPy: SciPy's getrf and the column elimination (what
    every other array module runs)."""
    if request.param == "columns":
        from tensorcore_xp.kernels import linalg_general

        monkeypatch.setattr(linalg_general, "_scipy_getrf", lambda a: None)
    return request.param  # type: ignore[no-any-return]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5), (2, 1, 5, 3)], ids=str)
def test_lu_factor_matches_lapack(device: str, dtype: tc.dtype, shape: Any, lu_path: str) -> None:
    a = _rand(shape, dtype)
    LU, pivots = L.lu_factor(_t(a, device))
    want_lu, want_piv = _scipy_lu(a)
    assert pivots.dtype is tc.int32 and pivots.tolist() == want_piv.tolist()
    assert_close(LU, want_lu, **_tol(dtype))
    res = L.lu_factor_ex(_t(a, device))
    assert type(res).__name__ == "linalg_lu_factor_ex" and not res.info.any()
    assert res.info.shape == shape[:-2] and res.info.dtype is tc.int32
    P, Lo, U = L.lu(_t(a, device))
    assert type(L.lu(_t(a, device))).__name__ == "linalg_lu" and P.dtype is dtype
    k = min(shape[-2:])
    assert Lo.shape == shape[:-1] + (k,) and U.shape == shape[:-2] + (k, shape[-1])
    assert_close(P @ Lo @ U, a, **_tol(dtype))
    unpacked = tc.lu_unpack(LU, pivots)
    assert type(unpacked).__name__ == "lu_unpack"
    for x, y in zip(unpacked, (P, Lo, U), strict=True):
        assert_close(x, y)


def test_lu_factor_of_singular_matrices(device: str, lu_path: str) -> None:
    a = np.stack([np.eye(3), [[1.0, 2, 3], [2, 4, 6], [1, 1, 1]]])
    res = L.lu_factor_ex(_t(a, device))
    assert res.info.tolist() == [0, 3]
    assert_close(res.LU, _scipy_lu(a)[0])
    with pytest.raises(
        RuntimeError, match=r"torch\.linalg\.lu_factor: \(Batch element 1\): U\[3,3\]"
    ):
        L.lu_factor(_t(a, device))
    with pytest.raises(RuntimeError, match=r"lu_factor_ex: \(Batch element 1\): U\[3,3\] is zero"):
        L.lu_factor_ex(_t(a, device), check_errors=True)
    with pytest.raises(RuntimeError, match=r"^torch\.linalg\.lu_factor: U\[1,1\] is zero"):
        L.lu_factor(tc.zeros(2, 2, device=device))
    # linalg.lu factors them all the same.
    P, Lo, U = L.lu(_t(a, device))
    assert_close(P @ Lo @ U, a)


def test_lu_without_pivoting(device: str, lu_path: str) -> None:
    a = _rand((2, 3, 4), tc.float64) + 4 * np.eye(3, 4)
    pivots = L.lu_factor(_t(a, device), pivot=False).pivots
    assert pivots.tolist() == [[1, 2, 3]] * 2
    P, Lo, U = L.lu(_t(a, device), pivot=False)
    assert_close(P, np.broadcast_to(np.eye(3), (2, 3, 3)))
    assert_close(Lo @ U, a)


def test_lu_errors(device: str) -> None:
    with pytest.raises(RuntimeError, match=r"lu_factor: Expected tensor with 2 or more dimensions"):
        L.lu_factor(tc.ones(3, device=device))
    with pytest.raises(RuntimeError, match=r"linalg.lu: Expected tensor with 2 or more dimensions"):
        L.lu(tc.ones(3, device=device))
    for d, name in ((tc.int64, "Long"), (tc.float16, "Half"), (tc.bool, "Bool")):
        with pytest.raises(NotImplementedError, match=f"not implemented for '{name}'"):
            L.lu_factor(tc.ones(2, 2, dtype=d, device=device))
    e = L.lu_factor(tc.zeros(2, 0, 3, device=device))
    assert e.LU.shape == (2, 0, 3) and e.pivots.shape == (2, 0)


def test_lu_unpack(device: str) -> None:
    a = _rand((2, 5, 3), tc.float64)
    LU, pivots = L.lu_factor(_t(a, device))
    P, Lo, U = tc.lu_unpack(LU, pivots)
    for i in range(2):
        p, lo, up = sl.lu(a[i])
        assert_close(P[i], p)
        assert_close(Lo[i], lo)
        assert_close(U[i], up)
    only_p = tc.lu_unpack(LU, pivots, unpack_data=False)
    assert only_p.L.shape == (0,) and only_p.U.shape == (0,)
    assert_close(only_p.P, P)
    only_data = tc.lu_unpack(LU, pivots, unpack_pivots=False)
    assert only_data.P.shape == (0,)
    assert_close(only_data.U, U)
    # Pivots of one matrix broadcast over LU's batch.
    assert tc.lu_unpack(LU, pivots[0]).P.shape == (2, 5, 5)
    with pytest.raises(RuntimeError, match="LU_pivots is expected to be a contiguous tensor of"):
        tc.lu_unpack(LU, pivots.long())
    with pytest.raises(RuntimeError, match=r"must be between 1 and LU\.size"):
        tc.lu_unpack(LU, pivots + 5)
    with pytest.raises(RuntimeError, match=r"Expected LU_pivots.shape\[-1\] to be min"):
        tc.lu_unpack(LU, pivots[:, :2])
    with pytest.raises(RuntimeError, match=r"LU_pivots.shape\[:-1\] to broadcast"):
        tc.lu_unpack(LU, pivots.expand(3, 2, 3))
    with pytest.raises(RuntimeError, match="Expected tensor with 2 or more dimensions"):
        tc.lu_unpack(LU[0, 0], pivots)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_lu_solve_matches_numpy(device: str, dtype: tc.dtype) -> None:
    a = _rand((2, 3, 3), dtype) + 2 * np.eye(3, dtype=np.dtype(dtype.name))
    LU, pivots = L.lu_factor(_t(a, device))
    b = _rand((4, 1, 3, 2), dtype, 1)  # broadcast against A's batch
    ah = np.conj(np.swapaxes(a, -1, -2))
    assert_close(L.lu_solve(LU, pivots, _t(b, device)), np.linalg.solve(a, b), **_tol(dtype))
    got = L.lu_solve(LU, pivots, _t(b, device), adjoint=True)
    assert_close(got, np.linalg.solve(ah, b), **_tol(dtype))
    bt = np.swapaxes(b, -1, -2)  # X A = B is A^T X^T = B^T

    def right(m: np.ndarray) -> np.ndarray:
        return np.swapaxes(np.linalg.solve(np.swapaxes(m, -1, -2), np.swapaxes(bt, -1, -2)), -1, -2)

    got = L.lu_solve(LU, pivots, _t(bt, device), left=False)
    assert got.shape == (4, 2, 2, 3)
    assert_close(got, right(a), **_tol(dtype))
    got = L.lu_solve(LU, pivots, _t(bt, device), left=False, adjoint=True)
    assert_close(got, right(ah), **_tol(dtype))
    # The deprecated forms: (B, LU, pivots).
    assert_close(tc.lu_solve(_t(b, device), LU, pivots), np.linalg.solve(a, b), **_tol(dtype))
    assert_close(_t(b, device).lu_solve(LU, pivots), np.linalg.solve(a, b), **_tol(dtype))


def test_lu_solve_errors(device: str) -> None:
    LU, pivots = L.lu_factor(tc.eye(3, device=device) * 2)
    B = tc.ones(3, 2, device=device)
    cases = [
        ((LU, pivots, B[:, 0]), {}, "The input tensor B must have at least 2 dimensions"),
        ((LU, pivots.long(), B), {}, "pivots should be a Tensor of scalar type torch.int32"),
        ((LU, pivots[:2], B), {}, "Number of pivots per batch should be same as the dimension"),
        ((LU, pivots.expand(2, 3), B), {}, r"Expected LU.shape\[:-1\] and pivots.shape to be"),
        ((LU, pivots, B.double()), {}, "Expected LU and B to have the same dtype, but found LU"),
        ((LU[:, :2], pivots, B), {}, "A must be batches of square matrices, but they are 3 by 2"),
        ((LU, pivots, tc.ones(2, 2, device=device)), {}, r"equation AX = B \(3x3 and 2x2\)"),
        ((LU, pivots, B), {"left": False}, r"equation XA = B \(3x3 and 3x2\)"),
        ((LU, pivots + 5, B), {}, "Pivots given to lu_solve must all be between 1 and"),
        ((LU.int(), pivots, B.int()), {}, "Expected a floating point or complex tensor"),
    ]
    for args, kwargs, message in cases:
        with pytest.raises(RuntimeError, match=message):
            L.lu_solve(*args, **kwargs)


def test_deprecated_lu(device: str) -> None:
    a = _rand((2, 3, 3), tc.float64)
    LU, pivots = tc.lu(_t(a, device))
    want_lu, want_piv = _scipy_lu(a)
    assert_close(LU, want_lu)
    assert pivots.tolist() == want_piv.tolist()
    res = _t(a, device).lu(get_infos=True)
    assert type(res).__name__ == "_lu_with_info" and res.info.tolist() == [0, 0]
    singular = tc.zeros(2, 2, device=device)
    assert tc.lu(singular, get_infos=True).info.item() == 1
    with pytest.raises(RuntimeError, match=r"U\[1,1\] is zero"):
        tc.lu(singular)


# ------------------------------------------------------------------ matrix_exp
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_matrix_exp_matches_scipy(device: str, dtype: tc.dtype) -> None:
    # Norms from 1e-3 to ~40 in one batch: each matrix gets its own scaling.
    a = _rand((4, 5, 5), dtype) * np.array([1e-3, 0.3, 2.0, 15.0])[:, None, None]
    a = a.astype(np.dtype(dtype.name))
    got = L.matrix_exp(_t(a, device))
    want = np.stack(
        [sl.expm(m.astype(np.complex128 if dtype.is_complex else np.float64)) for m in a]
    )
    scale = np.abs(want).max(axis=(-2, -1), keepdims=True)
    rel = 1e-5 if dtype in (tc.float32, tc.complex64) else 1e-12
    assert got.dtype is dtype
    assert np.abs(_n(got) - want).max(axis=(-2, -1)).max() <= rel * scale.max()
    assert (np.abs(_n(got) - want) <= rel * 10 * scale).all()
    assert_close(tc.matrix_exp(_t(a, device)), got)
    assert_close(_t(a, device).matrix_exp(), got)


def test_matrix_exp_special_cases(device: str) -> None:
    z = tc.zeros(2, 3, 3, dtype=tc.float64, device=device)
    assert_close(L.matrix_exp(z), np.broadcast_to(np.eye(3), (2, 3, 3)))
    d = tc.tensor([1.0, -2.0, 0.5], dtype=tc.float64, device=device)
    assert_close(L.matrix_exp(tc.diag(d)), np.diag(np.exp([1.0, -2.0, 0.5])))
    rot = tc.tensor([[0.0, -np.pi], [np.pi, 0.0]], dtype=tc.float64, device=device)
    assert_close(L.matrix_exp(rot), -np.eye(2), atol=1e-12, rtol=0)
    assert L.matrix_exp(tc.zeros(0, 0, device=device)).shape == (0, 0)
    for d16 in (tc.float16, tc.bfloat16):
        if dtype_unsupported(device, d16):
            continue  # (bfloat16 on a CuPy without it)
        h = L.matrix_exp(tc.tensor([[0.0, 1.0], [0.0, 0.0]], dtype=d16, device=device))
        assert h.dtype is d16 and h.float().tolist() == [[1.0, 1.0], [0.0, 1.0]]
    big = L.matrix_exp(tc.full((2, 2), 1e6, dtype=tc.float64, device=device))
    assert np.isposinf(_n(big)).all()
    half = L.matrix_exp(tc.full((2, 2), 10.0, dtype=tc.float16, device=device))
    assert np.isposinf(_n(half.float())).all()  # an overflow in the cast: inf, no warning
    nan = L.matrix_exp(tc.tensor([[float("nan"), 1.0], [0.0, 0.0]], device=device))
    assert np.isnan(_n(nan)).all()


def test_matrix_exp_errors(device: str) -> None:
    with pytest.raises(RuntimeError, match=r"linalg\.matrix_exp: A must be batches of square"):
        L.matrix_exp(tc.ones(2, 3, device=device))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        tc.matrix_exp(tc.ones(3, device=device))
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input"):
        tc.ones(2, 2, dtype=tc.int64, device=device).matrix_exp()


def test_matrix_exp_gradients(device: str) -> None:
    a = _t(_rand((2, 3, 3), tc.complex128, 2), device).requires_grad_()
    assert tc.autograd.gradcheck(L.matrix_exp, (a,))
    assert tc.autograd.gradgradcheck(L.matrix_exp, (a,))
    # d/dA trace(exp(A)) = exp(A)^T (for real A).
    r = _t(_rand((3, 3), tc.float64, 3), device).requires_grad_()
    L.matrix_exp(r).diagonal().sum().backward()
    assert_close(r.grad, L.matrix_exp(r.detach()).mT)


def test_out_arguments(device: str) -> None:
    a = _t(_rand((2, 3, 3), tc.float64), device)
    LU, pivots = L.lu_factor(a)
    outs = (
        tc.empty(0, dtype=tc.float64, device=device),
        tc.empty(0, dtype=tc.int32, device=device),
    )
    res = L.lu_factor(a, out=outs)
    assert type(res).__name__ == "linalg_lu_factor" and res.LU is outs[0] and res.pivots is outs[1]
    assert_close(outs[0], LU)
    assert outs[1].tolist() == pivots.tolist()
    ex = (tc.empty(0, dtype=tc.float64, device=device),) + tuple(
        tc.empty(0, dtype=tc.int32, device=device) for _ in range(2)
    )
    assert L.lu_factor_ex(a, out=ex).info is ex[2] and ex[2].tolist() == [0, 0]
    plu = tuple(tc.empty(0, dtype=tc.float64, device=device) for _ in range(3))
    res = L.lu(a, out=plu)
    assert res.P is plu[0] and plu[2].shape == (2, 3, 3)
    x = tc.empty(0, dtype=tc.float64, device=device)
    assert L.lu_solve(LU, pivots, a, out=x) is x
    assert_close(x, np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-12, rtol=0)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        L.lu(a.clone().requires_grad_(), out=plu)
    with pytest.raises(TypeError, match="expected tuple of 3 elements but got 2"):
        L.lu(a, out=plu[:2])


@settings(max_examples=20)
@given(data=st.data())
def test_lu_and_matrix_exp_identities(device: str, data: st.DataObject) -> None:
    """Over drawn shapes (batches, wide and tall) and layouts (transposed, sliced, expanded):
    ``P L U`` is ``A``, ``lu_solve`` solves, ``exp(A) exp(-A)`` is the identity."""
    dtype = data.draw(st.sampled_from([tc.float64, tc.complex128]), label="dtype")
    batch = data.draw(tcst.shapes(max_dims=2, max_side=3), label="batch")
    m, n = data.draw(st.integers(1, 5), label="m"), data.draw(st.integers(1, 5), label="n")
    a = _rand((*batch, m, n), dtype, data.draw(st.integers(0, 99), label="seed"))
    ta, a = data.draw(tcst.tensors_from_arrays(a, device), label="ta")
    P, Lo, U = L.lu(ta)
    assert_close(P @ Lo @ U, a, atol=1e-10, rtol=1e-10)
    sq = _rand((*batch, m, m), dtype, 1) + 3 * np.eye(m)
    tsq = _t(sq, device)  # (an expanded layout of it would be singular)
    LU, pivots = L.lu_factor(tsq)
    b = _rand((m, 2), dtype, 2)
    assert_close(L.lu_solve(LU, pivots, _t(b, device)), np.linalg.solve(sq, b))
    e = L.matrix_exp(tsq * 0.3) @ L.matrix_exp(tsq * -0.3)
    eye = np.broadcast_to(np.eye(m, dtype=sq.dtype), sq.shape)
    assert_close(e, eye, atol=1e-9, rtol=1e-9)
