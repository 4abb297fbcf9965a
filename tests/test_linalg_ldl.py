"""``tc.linalg.ldl_factor``, ``ldl_factor_ex`` and ``ldl_solve``: LAPACK's ``sytrf`` format
(SciPy's LAPACK as the oracle), solutions against NumPy, PyTorch's errors and its autograd
behaviour (results in the graph, no derivative)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close

lapack = pytest.importorskip("scipy.linalg.lapack")


def _sym(rng: np.random.Generator, *shape: int, complex_: bool = False, herm: bool = False) -> Any:
    a = rng.standard_normal(shape)
    if complex_:
        a = a + 1j * rng.standard_normal(shape)
    at = np.swapaxes(a, -1, -2)
    return a + (at.conj() if herm else at)


def _sytrf(a: np.ndarray, herm: bool) -> tuple[np.ndarray, np.ndarray, int]:
    f = {
        ("f", False): lapack.dsytrf,
        ("f", True): lapack.dsytrf,
        ("c", False): lapack.zsytrf,
        ("c", True): lapack.zhetrf,
    }[("c" if a.dtype.kind == "c" else "f", herm)]
    ld, piv, info = f(a, lower=1)
    return np.tril(ld), piv, info


@pytest.mark.parametrize(
    ("complex_", "herm"), [(False, False), (False, True), (True, False), (True, True)]
)
def test_factor_is_lapacks_sytrf_and_solve_solves(device: str, complex_: bool, herm: bool) -> None:
    rng = np.random.default_rng(0)
    a = _sym(rng, 3, 6, 6, complex_=complex_, herm=herm)
    A = tc.tensor(a, device=device)
    LD, pivots, info = tc.linalg.ldl_factor_ex(A, hermitian=herm)
    assert pivots.dtype == tc.int32 and info.dtype == tc.int32 and info.shape == (3,)
    for i in range(3):
        ld, piv, inf = _sytrf(a[i], herm)
        assert_close(LD[i], ld, rtol=1e-12, atol=1e-12)
        assert pivots[i].tolist() == piv.tolist() and int(info[i]) == inf
    b = rng.standard_normal((3, 6, 2)) + (1j * rng.standard_normal((3, 6, 2)) if complex_ else 0)
    X = tc.linalg.ldl_solve(LD, pivots, tc.tensor(b, device=device), hermitian=herm)
    assert_close(X, np.linalg.solve(a, b), rtol=1e-9, atol=1e-9)


def test_two_by_two_pivots_and_pytorchs_values(device: str) -> None:
    # PyTorch 2.13: LD and pivots of this indefinite matrix (one 2x2 block after a swap).
    M = tc.tensor(
        [[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]], dtype=tc.float64, device=device
    )
    LD, pivots = tc.linalg.ldl_factor(M)
    assert pivots.tolist() == [-3, -3, 3]
    assert_close(LD, np.array([[0.0, 0, 0], [2.0, 0, 0], [1.5, 0.5, -3.0]]))
    X = tc.linalg.ldl_solve(LD, pivots, tc.eye(3, dtype=tc.float64, device=device))
    assert_close(M @ X, np.eye(3), atol=1e-6, rtol=0)
    # Hermitian against symmetric reading of one complex factorization (PyTorch's values).
    H = tc.tensor([[2.0, 1 - 1j], [1 + 1j, 3.0]], dtype=tc.complex128, device=device)
    LD, pivots = tc.linalg.ldl_factor(H, hermitian=True)
    b = tc.tensor([[1.0], [2.0]], dtype=tc.complex128, device=device)
    assert_close(
        tc.linalg.ldl_solve(LD, pivots, b, hermitian=True), [[0.25 + 0.5j], [0.75 - 0.25j]]
    )
    assert_close(tc.linalg.ldl_solve(LD, pivots, b), [[-0.25j], [0.75 - 0.25j]])


def test_only_the_lower_triangle_is_read_and_float32_works(device: str) -> None:
    rng = np.random.default_rng(1)
    a = _sym(rng, 5, 5).astype(np.float32)
    A = tc.tensor(a, device=device)
    garbage = A + tc.tensor(np.triu(np.full((5, 5), 7.0, np.float32), 1), device=device)
    LD, pivots = tc.linalg.ldl_factor(A)
    LD2, pivots2 = tc.linalg.ldl_factor(garbage)
    assert LD.dtype == tc.float32 and tc.equal(LD, LD2) and tc.equal(pivots, pivots2)
    b = rng.standard_normal((5, 3)).astype(np.float32)
    X = tc.linalg.ldl_solve(LD, pivots, tc.tensor(b, device=device))
    ref = np.linalg.solve(a.astype(np.float64), b).astype(np.float32)
    assert_close(X, ref, rtol=1e-3, atol=1e-4)


def test_solve_broadcasts_batches_and_takes_out(device: str) -> None:
    rng = np.random.default_rng(2)
    a = _sym(rng, 2, 3, 3)
    LD, pivots = tc.linalg.ldl_factor(tc.tensor(a, device=device))
    b = rng.standard_normal((3, 2))
    X = tc.linalg.ldl_solve(LD, pivots, tc.tensor(b, device=device))
    assert X.shape == (2, 3, 2)
    assert_close(X, np.linalg.solve(a, np.broadcast_to(b, (2, 3, 2))))
    LD0, piv0 = tc.linalg.ldl_factor(tc.tensor(a[0], device=device))
    b5 = rng.standard_normal((5, 3, 2))
    assert_close(
        tc.linalg.ldl_solve(LD0, piv0, tc.tensor(b5, device=device)), np.linalg.solve(a[0], b5)
    )
    out = tc.empty(0, dtype=tc.float64, device=device)
    assert tc.linalg.ldl_solve(LD0, piv0, tc.tensor(b, device=device), out=out) is out
    assert_close(out, np.linalg.solve(a[0], b))
    # int64 pivots are accepted, as PyTorch accepts them
    assert_close(tc.linalg.ldl_solve(LD0, piv0.long(), tc.tensor(b, device=device)), out)
    outs = (
        tc.empty(0, dtype=tc.float64, device=device),
        tc.empty(0, dtype=tc.int32, device=device),
    )
    res = tc.linalg.ldl_factor(tc.tensor(a[0], device=device), out=outs)
    assert res.LD is outs[0] and res.pivots is outs[1] and tc.equal(res.LD, LD0)


def test_empty_inputs(device: str) -> None:
    LD, pivots = tc.linalg.ldl_factor(tc.zeros(2, 0, 0, device=device))
    assert LD.shape == (2, 0, 0) and pivots.shape == (2, 0) and pivots.dtype == tc.int32
    A = tc.eye(3, dtype=tc.float64, device=device)
    LD, pivots = tc.linalg.ldl_factor(A)
    assert tc.linalg.ldl_solve(
        LD, pivots, tc.zeros(3, 0, dtype=tc.float64, device=device)
    ).shape == (3, 0)


def test_singular_matrices(device: str) -> None:
    S = tc.stack([tc.eye(3, device=device), tc.zeros(3, 3, device=device)])
    _, pivots, info = tc.linalg.ldl_factor_ex(S)
    assert info.tolist() == [0, 1] and pivots.tolist() == [[1, 2, 3], [1, 2, 3]]
    with pytest.raises(RuntimeError, match=r"torch.linalg.ldl_factor_ex: \(Batch element 1\)"):
        tc.linalg.ldl_factor_ex(S, check_errors=True)
    with pytest.raises(RuntimeError, match=r"torch.linalg.ldl_factor: .*D\[1,1\] is exactly zero"):
        tc.linalg.ldl_factor(S[1])


def test_bad_input_raises_as_pytorch(device: str) -> None:
    A = tc.eye(3, dtype=tc.float64, device=device)
    LD, piv = tc.linalg.ldl_factor(A)
    B = tc.ones(3, 2, dtype=tc.float64, device=device)
    cases: list[tuple[Any, type[Exception], str]] = [
        (lambda: tc.linalg.ldl_factor(tc.zeros(3, device=device)), RuntimeError, "at least 2 dim"),
        (lambda: tc.linalg.ldl_factor(tc.zeros(2, 3, device=device)), RuntimeError, "2 by 3"),
        (
            lambda: tc.linalg.ldl_factor(tc.zeros(3, 3, dtype=tc.int64, device=device)),
            RuntimeError,
            "Expected a floating point or complex tensor as input. Got Long",
        ),
        (
            lambda: tc.linalg.ldl_factor(tc.zeros(3, 3, dtype=tc.float16, device=device)),
            NotImplementedError,
            "\"ldl_factor_kernel_cpu\" not implemented for 'Half'",
        ),
        (lambda: tc.linalg.ldl_solve(LD[0], piv, B), RuntimeError, "at least 2 dimensions"),
        (lambda: tc.linalg.ldl_solve(LD, piv[:2], B), RuntimeError, "pivots with shape \\[2\\]"),
        (lambda: tc.linalg.ldl_solve(LD, piv.float(), B), RuntimeError, "pivots to be integers"),
        (lambda: tc.linalg.ldl_solve(LD, piv, B[:, 0]), IndexError, "Dimension out of range"),
        (lambda: tc.linalg.ldl_solve(LD, piv, B.float()), RuntimeError, "same dtype"),
        (lambda: tc.linalg.ldl_solve(LD, piv, B[:2]), RuntimeError, "Incompatible matrix sizes"),
        (
            lambda: tc.linalg.ldl_solve(LD, tc.tensor([5, 1, 1], dtype=tc.int32, device=device), B),
            RuntimeError,
            "Pivots given to ldl_solve must all satisfy",
        ),
        (
            lambda: tc.linalg.ldl_factor(
                A,
                out=(
                    tc.empty(0, dtype=tc.float64, device=device),
                    tc.empty(0, dtype=tc.int64, device=device),
                ),
            ),
            RuntimeError,
            "dtype",
        ),
    ]
    for fn, exc, match in cases:
        with pytest.raises(exc, match=match):
            fn()


def test_results_join_the_graph_without_a_derivative(device: str) -> None:
    # PyTorch: the results require grad, and backward raises its "not implemented" error.
    A = tc.tensor([[4.0, 2.0], [2.0, 3.0]], dtype=tc.float64, device=device, requires_grad=True)
    LD, pivots = tc.linalg.ldl_factor(A)
    assert LD.requires_grad and not pivots.requires_grad
    assert type(LD.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex is not"):
        LD.sum().backward()
    B = tc.ones(2, 1, dtype=tc.float64, device=device, requires_grad=True)
    X = tc.linalg.ldl_solve(LD.detach(), pivots, B)
    assert X.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_solve is not"):
        X.sum().backward()
