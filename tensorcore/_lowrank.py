"""Randomized low-rank decompositions: ``svd_lowrank`` and ``pca_lowrank`` (Halko, Martinsson
and Tropp, "Finding structure with randomness", 2009: a range finder with power iterations,
then the SVD of the small projected matrix)."""

from __future__ import annotations

from . import linalg
from ._tensor import Tensor
from .ops import functions as ops

__all__ = ["pca_lowrank", "svd_lowrank"]


def _range_basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    """An orthonormal basis ``Q`` (m x q) whose span approximates the range of ``A - M``:
    ``Q = orth((A - M) R)`` for a Gaussian ``R`` (n x q), refined by ``niter`` power
    iterations, each re-orthonormalized."""

    def times(X: Tensor) -> Tensor:
        return A @ X if M is None else A @ X - M @ X

    def times_h(X: Tensor) -> Tensor:
        return A.mH @ X if M is None else A.mH @ X - M.mH @ X

    dtype = A.dtype if A.dtype.is_floating_point or A.dtype.is_complex else None
    R = ops.randn(A.shape[-1], q, dtype=dtype, device=A.device)
    Q = linalg.qr(times(R)).Q
    for _ in range(niter):
        Q = linalg.qr(times_h(Q)).Q
        Q = linalg.qr(times(Q)).Q
    return Q


def svd_lowrank(
    A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    """An approximate rank-``q`` SVD ``(U, S, V)`` of ``A - M`` (``A`` a matrix or a batch),
    from a random projection refined by ``niter`` power iterations: ``A - M ~= U diag(S)
    V.mH``. It draws from the global generator (``torch.manual_seed`` makes it repeatable).

    Examples
    --------
    >>> import tensorcore as tc
    >>> _ = tc.manual_seed(0)
    >>> A = tc.randn(6, 2) @ tc.randn(2, 5)  # rank 2
    >>> U, S, V = tc.svd_lowrank(A, q=2)
    >>> bool(((U * S) @ V.mT - A).abs().max() < 1e-4)
    True
    """
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2], A.shape[-1]
    if M is not None:
        M = M.broadcast_to(A.shape)
    wide = m < n
    if wide:  # work on the tall one
        A = A.mH
        M = None if M is None else M.mH
    Q = _range_basis(A, q, niter, M)
    B = Q.mH @ A if M is None else Q.mH @ A - Q.mH @ M
    U, S, Vh = linalg.svd(B, full_matrices=False)
    U, V = Q @ U, Vh.mH
    return (V, S, U) if wide else (U, S, V)


def pca_lowrank(
    A: Tensor, q: int | None = None, center: bool = True, niter: int = 2
) -> tuple[Tensor, Tensor, Tensor]:
    """Principal components of the rows of ``A`` (centered over them by default): the
    approximate rank-``q`` SVD ``(U, S, V)`` of :func:`svd_lowrank`, with ``q`` at most
    ``min(6, m, n)`` by default; the columns of ``V`` are the principal directions.

    Examples
    --------
    >>> import tensorcore as tc
    >>> _ = tc.manual_seed(0)
    >>> U, S, V = tc.pca_lowrank(tc.randn(50, 4), q=2)
    >>> V.shape
    tensorcore.Size([4, 2])
    """
    if not isinstance(A, Tensor):
        raise TypeError(f"pca_lowrank(): argument 'A' must be Tensor, not {type(A).__name__}")
    m, n = A.shape[-2], A.shape[-1]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter)
    return svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter)
