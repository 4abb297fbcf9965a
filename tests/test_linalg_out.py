"""``out=`` of ``tc.linalg``: every function PyTorch gives ``out=`` takes it (``cholesky_ex``,
``eigh``, ``inv_ex``, ``norm``, ``qr``, ``solve_ex``, ``svd`` did not), writes what the call
returns, and refuses an ``out`` of another dtype than its result's as PyTorch's structured
linalg kernels do (NumPy as the oracle of the values)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close

_A = np.array([[4.0, 2.0, 0.5], [2.0, 5.0, 1.0], [0.5, 1.0, 3.0]])
_B = np.array([[1.0], [2.0], [0.5]])


def _e(device: str, dtype: Any = tc.float32) -> tc.Tensor:
    return tc.empty(0, dtype=dtype, device=device)


def test_out_of_the_functions_that_lacked_it(device: str) -> None:
    A = tc.tensor(_A, dtype=tc.float32, device=device)
    B = tc.tensor(_B, dtype=tc.float32, device=device)
    i32 = tc.int32

    L, info = _e(device), _e(device, i32)
    res = tc.linalg.cholesky_ex(A, out=(L, info))
    assert res.L is L and res.info is info and info.item() == 0
    assert_close(L.cpu().numpy(), np.linalg.cholesky(_A).astype(np.float32))

    w, V = _e(device), _e(device)
    res = tc.linalg.eigh(A, out=(w, V))
    assert res.eigenvalues is w and res.eigenvectors is V
    assert_close(w.cpu().numpy(), np.linalg.eigvalsh(_A).astype(np.float32))

    inv, info = _e(device), _e(device, i32)
    assert tc.linalg.inv_ex(A, out=(inv, info)).inverse is inv
    assert_close(inv.cpu().numpy(), np.linalg.inv(_A).astype(np.float32))

    X, info = _e(device), _e(device, i32)
    assert tc.linalg.solve_ex(A, B, out=(X, info)).result is X
    assert_close(X.cpu().numpy(), np.linalg.solve(_A, _B).astype(np.float32))

    Q, R = _e(device), _e(device)
    assert tc.linalg.qr(A, out=(Q, R)).R is R
    assert_close((Q @ R).cpu().numpy(), _A.astype(np.float32))

    U, S, Vh = _e(device), _e(device), _e(device)
    assert tc.linalg.svd(A, full_matrices=False, out=(U, S, Vh)).S is S
    assert_close(S.cpu().numpy(), np.linalg.svd(_A, compute_uv=False).astype(np.float32))

    for ord_ in (None, "fro", "nuc", 1, -np.inf):
        o = _e(device)
        assert tc.linalg.norm(A, ord_, out=o) is o
        want = np.linalg.norm(_A.ravel() if ord_ is None else _A, ord_)
        assert_close(o.item(), float(want), rtol=1e-5, atol=1e-5)
    o = _e(device)
    tc.linalg.norm(A[0], 3, out=o)
    assert_close(o.item(), float(np.linalg.norm(_A[0], 3)), rtol=1e-5, atol=1e-5)


_CASES: dict[str, Callable[[tc.Tensor, tc.Tensor, str], Any]] = {
    "inv": lambda A, B, d: tc.linalg.inv(A, out=_e(d, tc.float64)),
    "det": lambda A, B, d: tc.linalg.det(A, out=_e(d, tc.float64)),
    "cholesky": lambda A, B, d: tc.linalg.cholesky(A, out=_e(d, tc.float64)),
    "solve": lambda A, B, d: tc.linalg.solve(A, B, out=_e(d, tc.float64)),
    "eigvalsh": lambda A, B, d: tc.linalg.eigvalsh(A, out=_e(d, tc.float64)),
    "svdvals": lambda A, B, d: tc.linalg.svdvals(A, out=_e(d, tc.float64)),
    "vector_norm": lambda A, B, d: tc.linalg.vector_norm(A, out=_e(d, tc.float64)),
    "matrix_power": lambda A, B, d: tc.linalg.matrix_power(A, 2, out=_e(d, tc.float64)),
    "cross": lambda A, B, d: tc.linalg.cross(A, A, out=_e(d, tc.float64)),
    "slogdet": lambda A, B, d: tc.linalg.slogdet(A, out=(_e(d), _e(d, tc.float64))),
    "eigh": lambda A, B, d: tc.linalg.eigh(A, out=(_e(d, tc.float64), _e(d))),
    "qr": lambda A, B, d: tc.linalg.qr(A, out=(_e(d), _e(d, tc.float64))),
    "svd": lambda A, B, d: tc.linalg.svd(A, out=(_e(d, tc.float64), _e(d), _e(d))),
    "lu_factor": lambda A, B, d: tc.linalg.lu_factor(A, out=(_e(d, tc.float64), _e(d, tc.int32))),
    "lu": lambda A, B, d: tc.linalg.lu(A, out=(_e(d), _e(d, tc.float64), _e(d))),
    "lu_solve": lambda A, B, d: tc.linalg.lu_solve(
        *tc.linalg.lu_factor(A), B, out=_e(d, tc.float64)
    ),
    "cholesky_ex": lambda A, B, d: tc.linalg.cholesky_ex(
        A, out=(_e(d, tc.float64), _e(d, tc.int32))
    ),
    "inv_ex": lambda A, B, d: tc.linalg.inv_ex(A, out=(_e(d, tc.float64), _e(d, tc.int32))),
    "solve_ex": lambda A, B, d: tc.linalg.solve_ex(A, B, out=(_e(d, tc.float64), _e(d, tc.int32))),
    "lu_factor_ex": lambda A, B, d: tc.linalg.lu_factor_ex(
        A, out=(_e(d, tc.float64), _e(d, tc.int32), _e(d, tc.int32))
    ),
}


@pytest.mark.parametrize("name", sorted(_CASES))
def test_out_of_another_dtype_is_refused(device: str, name: str) -> None:
    A = tc.tensor(_A, dtype=tc.float32, device=device)
    B = tc.tensor(_B, dtype=tc.float32, device=device)
    with pytest.raises(
        RuntimeError, match=r"Expected out tensor to have dtype float, but got double"
    ):
        _CASES[name](A, B, device)


def test_integer_info_must_be_int32(device: str) -> None:
    A = tc.tensor(_A, dtype=tc.float32, device=device)
    for f in (tc.linalg.cholesky_ex, tc.linalg.inv_ex):
        with pytest.raises(RuntimeError, match=r"dtype int, but got long int instead"):
            f(A, out=(_e(device), _e(device, tc.int64)))


def test_norms_word_their_own_dtype_check(device: str) -> None:
    A = tc.tensor(_A, dtype=tc.float32, device=device)
    msg = r"^linalg\.norm expected out tensor dtype Float but got: Double$"
    with pytest.raises(RuntimeError, match=msg):
        tc.linalg.norm(A, out=_e(device, tc.float64))
    msg = r"^linalg\.matrix_norm expected out tensor dtype Float but got: Double$"
    with pytest.raises(RuntimeError, match=msg):
        tc.linalg.matrix_norm(A, out=_e(device, tc.float64))
    with pytest.raises(
        RuntimeError,
        match=r"^multi_dot\(\): expected out tensor to have dtype float but got double$",
    ):
        tc.linalg.multi_dot([A, A], out=_e(device, tc.float64))
    with pytest.raises(
        RuntimeError, match=r"^linalg\.vecdot: Expected out of dtypeFloat but found Double$"
    ):
        tc.linalg.vecdot(A, A, out=_e(device, tc.float64))
    # a complex input's norm is real: a real out is its dtype
    o = _e(device)
    tc.linalg.norm(tc.ones(3, dtype=tc.complex64, device=device), out=o)
    assert_close(o.item(), 3**0.5)
