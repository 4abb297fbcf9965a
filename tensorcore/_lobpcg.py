"""``lobpcg``: a few extreme eigenpairs of a symmetric (generalized) eigenproblem ``A x = E B x``
by the locally optimal block preconditioned conjugate gradient method (Knyazev, "Toward the
optimal preconditioned eigensolver", 2001): each step is a Rayleigh-Ritz projection on the
current vectors, their (preconditioned) residuals and the previous search directions."""

from __future__ import annotations

from typing import Any

from . import linalg
from ._finfo import finfo
from ._tensor import Tensor
from .autograd.function import Function, FunctionCtx
from .dtypes import get_default_dtype
from .ops import functions as ops

__all__ = ["lobpcg"]


def _matmul(A: Any, X: Tensor) -> Tensor:
    """``A @ X`` for a dense or sparse ``A`` (None: the identity)."""
    return X if A is None else A @ X


def _basis(S: Tensor, B: Any) -> Tensor | None:
    """A ``B``-orthonormal basis of the columns of ``S`` (those of negligible weight
    dropped), or None when none is left."""
    G = S.mT @ _matmul(B, S)
    G = (G + G.mT) / 2
    lam, V = linalg.eigh(G)
    eps = finfo(S.dtype).eps
    keep = lam > lam.max().clamp_min(0) * S.shape[-2] * eps * 10
    if not bool(keep.any()):
        return None
    return (S @ V[:, keep]) / lam[keep].sqrt()


def _solve(
    A: Tensor,
    B: Any,
    X: Tensor,
    k: int,
    iK: Any,
    niter: int,
    tol: float,
    largest: bool,
) -> tuple[Tensor, Tensor]:
    n = X.shape[-1]
    a_norm = float(linalg.matrix_norm(A.to_dense() if A.is_sparse else A, ord="fro"))
    b_norm = 1.0 if B is None else float(linalg.matrix_norm(B.to_dense() if B.is_sparse else B))

    def ritz(S: Tensor) -> tuple[Tensor, Tensor]:
        """The ``n`` wanted Ritz pairs on the span of the B-orthonormal ``S``."""
        T = S.mT @ _matmul(A, S)
        E, C = linalg.eigh((T + T.mT) / 2)
        order = ops.flip(ops.arange(E.shape[0], device=E.device), [0]) if largest else None
        if order is not None:
            E, C = E[order], C[:, order]
        return E[:n], C[:, :n]

    S = _basis(X, B)
    if S is None or S.shape[-1] < n:
        raise RuntimeError("lobpcg: the initial approximation X has linearly dependent columns")
    E, C = ritz(S)
    X = S @ C
    P: Tensor | None = None
    it = 0
    while niter < 0 or it < niter:
        R = _matmul(A, X) - _matmul(B, X) * E
        rerr = linalg.vector_norm(R, dim=0) / (
            linalg.vector_norm(X, dim=0) * (a_norm + E.abs() * b_norm)
        )
        active = rerr >= tol
        if int((~active[:k]).sum()) >= k:
            break
        W = R[:, active]
        if iK is not None:
            W = _matmul(iK, W)
        parts = [X, W] if P is None else [X, W, P[:, active] if P.shape[-1] == n else P]
        S = _basis(ops.cat(parts, 1), B)
        if S is None:
            break
        E, C = ritz(S)
        Xn = S @ C
        # The new search directions: the part of the new vectors outside the old ones.
        P = Xn - X @ (X.mT @ _matmul(B, Xn))
        X = Xn
        it += 1
    return E[:k], X[:, :k]


class _Lobpcg(Function):
    """The solve, with the first-order perturbation of simple eigenvalues as the gradient
    of ``E`` for a dense symmetric ``A`` (``dE_i = x_i^T dA x_i``, ``B`` the identity); the
    eigenvectors pass no gradient."""

    @staticmethod
    def forward(ctx: FunctionCtx, A: Tensor, *rest: Any) -> tuple[Tensor, Tensor]:
        E, X = _solve(A, *rest)
        ctx.save_for_backward(X)
        ctx.mark_non_differentiable(X)
        return E, X

    @staticmethod
    def backward(ctx: FunctionCtx, gE: Tensor, gX: Any) -> tuple[Any, ...]:
        (X,) = ctx.saved_tensors
        gA = (X * gE) @ X.mT
        return (gA + gA.mT) / 2, *([None] * 7)


def lobpcg(
    A: Tensor,
    k: int | None = None,
    B: Tensor | None = None,
    X: Tensor | None = None,
    n: int | None = None,
    iK: Tensor | None = None,
    niter: int | None = None,
    tol: float | None = None,
    largest: bool | None = None,
    method: str | None = None,
    tracker: Any = None,
    ortho_iparams: dict[str, int] | None = None,
    ortho_fparams: dict[str, float] | None = None,
    ortho_bparams: dict[str, bool] | None = None,
) -> tuple[Tensor, Tensor]:
    """The ``k`` largest (or, with ``largest=False``, smallest) eigenvalues ``E`` and
    eigenvectors ``X`` of the symmetric positive-definite generalized problem ``A X = B X
    diag(E)`` (``A`` of shape ``(*, m, m)``, dense or sparse; ``B`` the identity when None),
    by LOBPCG from ``X`` (else ``n`` random columns, ``n = k``), preconditioned by ``iK``,
    for at most ``niter`` steps (1000; -1: until converged) or until each residual is below
    ``tol`` relative to ``||A|| + |E| ||B||`` (the square root of the dtype's epsilon).

    ``method`` (``"ortho"``, ``"basic"``), ``tracker`` and the ``ortho_*`` parameters are
    accepted, as PyTorch's (which takes any other method for ``"ortho"``); one robust
    orthonormalization serves both methods. Where ``A`` requires grad
    (dense, ``B`` None), ``E`` has the gradient of simple eigenvalues; ``X`` has none.

    Examples
    --------
    >>> import tensorcore as tc
    >>> A = tc.diag(tc.arange(1.0, 13.0, dtype=tc.float64))
    >>> E, X = tc.lobpcg(A, k=2, X=tc.ones(12, 2, dtype=tc.float64).tril(-1) + tc.eye(12, 2))
    >>> E.round(decimals=6)
    tensor([12., 11.], dtype=tensorcore.float64)
    """
    m = A.shape[-1]
    if A.shape[-2] != m:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and B.shape != A.shape:
        raise AssertionError(f"A and B must have the same shapes, got {A.shape} and {B.shape}")
    dtype = A.dtype if A.dtype.is_floating_point else get_default_dtype()
    if k is None:
        k = 1 if X is None else X.shape[-1]
    if X is None:
        n = k if n is None else n
    else:
        n = X.shape[-1]
        if n < k:
            raise ValueError(
                f"LOBPCG algorithm requires X to have at least as many columns (={n}) as the "
                f"number of requested eigenpairs (={k})"
            )
    if m < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller "
            f"than 3 x the number of requested eigenpairs (={n})"
        )
    niter = 1000 if niter is None else niter
    tol = float(finfo(dtype).eps) ** 0.5 if tol is None else tol
    largest = True if largest is None else largest
    batch = tuple(A.shape[:-2])
    if batch:
        flat_A = A.reshape(-1, m, m)
        flat_B = None if B is None else B.reshape(-1, m, m)
        flat_X = None if X is None else X.reshape(-1, m, X.shape[-1])
        pairs = [
            lobpcg(
                flat_A[i],
                k,
                None if flat_B is None else flat_B[i],
                None if flat_X is None else flat_X[i],
                n,
                iK,
                niter,
                tol,
                largest,
            )
            for i in range(flat_A.shape[0])
        ]
        E = ops.stack([p[0] for p in pairs]).reshape(*batch, k)
        return E, ops.stack([p[1] for p in pairs]).reshape(*batch, m, k)
    if X is None:
        X = ops.randn(m, n, dtype=dtype, device=A.device)
    out = _Lobpcg.apply(A, B, X.to(dtype), k, iK, niter, tol, largest)
    return out[0], out[1]
