"""The ``linalg`` extension of the array API standard, over ``tensorcore.linalg``."""

from __future__ import annotations

from typing import Any

import tensorcore as _tc
from tensorcore import dtypes as _dt
from tensorcore import linalg as _L
from tensorcore._tensor import Tensor as _Tensor

from ._common import _broadcast_shapes, _promote
from ._linear_algebra import matmul, matrix_transpose, tensordot, vecdot

__all__ = [
    "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm",
    "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve",
    "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
]  # fmt: skip


def _square(fn: str, x: Any) -> None:
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"linalg.{fn}(): expected a stack of square matrices, got shape {tuple(x.shape)}"
        )


def cholesky(x: Any, /, *, upper: bool = False) -> Any:
    """The Cholesky factor of symmetric (Hermitian) positive-definite matrices: ``L`` with
    ``x = L @ L^H``, or ``U = L^H`` when ``upper``."""
    _square("cholesky", x)
    return _L.cholesky(x, upper=upper)


def cross(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """The cross product of 3-element vectors along ``axis``."""
    x1, x2 = _promote(x1, x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError("linalg.cross(): the vectors along axis must have 3 elements")
    if x1.shape != x2.shape:  # the standard broadcasts; PyTorch wants equal ranks
        shape = _broadcast_shapes([x1.shape, x2.shape])
        x1, x2 = x1.expand(shape), x2.expand(shape)
    return _L.cross(x1, x2, dim=axis)


def det(x: Any, /) -> Any:
    """The determinant of each square matrix."""
    _square("det", x)
    return _L.det(x)


def diagonal(x: Any, /, *, offset: int = 0) -> Any:
    """The ``offset``-th diagonal of each matrix (the last two axes)."""
    return x.diagonal(offset, -2, -1)


def eigh(x: Any, /) -> Any:
    """``(eigenvalues, eigenvectors)`` of symmetric (Hermitian) matrices, eigenvalues
    ascending."""
    _square("eigh", x)
    return _L.eigh(x)


def eigvalsh(x: Any, /) -> Any:
    """The eigenvalues of symmetric (Hermitian) matrices, ascending."""
    _square("eigvalsh", x)
    return _L.eigvalsh(x)


def inv(x: Any, /) -> Any:
    """The inverse of each square matrix."""
    _square("inv", x)
    return _L.inv(x)


def matrix_norm(x: Any, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:
    """A matrix norm of each matrix: "fro", "nuc", 1, -1, 2, -2, inf or -inf."""
    return _L.matrix_norm(x, ord, (-2, -1), keepdims)


def matrix_power(x: Any, n: int, /) -> Any:
    """``x`` raised to the integer power ``n`` (the inverse's power when ``n`` < 0)."""
    _square("matrix_power", x)
    return _L.matrix_power(x, n)


def matrix_rank(x: Any, /, *, rtol: Any = None) -> Any:
    """The number of singular values above ``rtol`` times the largest one (``rtol`` may be
    an array broadcast against the stack)."""
    if not isinstance(rtol, _Tensor):
        return _L.matrix_rank(x, rtol=rtol)
    s = _L.svdvals(x)
    if s.shape[-1] == 0:
        return _tc.zeros(s.shape[:-1], dtype=_dt.int64, device=x.device)
    return (s > rtol.unsqueeze(-1) * s.amax(-1, keepdim=True)).sum(-1)


def outer(x1: Any, x2: Any, /) -> Any:
    """The outer product of two vectors."""
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError("linalg.outer(): x1 and x2 must be one-dimensional")
    x1, x2 = _promote(x1, x2)
    return x1.reshape(-1, 1) * x2.reshape(1, -1)


def pinv(x: Any, /, *, rtol: Any = None) -> Any:
    """The Moore-Penrose pseudo-inverse (singular values below ``rtol`` times the largest
    are treated as zero; ``rtol`` may be an array broadcast against the stack)."""
    if not isinstance(rtol, _Tensor):
        return _L.pinv(x, rtol=rtol)
    if x.numel() == 0:
        return _tc.zeros((*x.shape[:-2], x.shape[-1], x.shape[-2]), dtype=x.dtype, device=x.device)
    u, s, vh = _L.svd(x, full_matrices=False)
    keep = s > rtol.unsqueeze(-1) * s.amax(-1, keepdim=True)
    s_inv = _tc.where(keep, 1 / s, _tc.zeros_like(s))
    return (_adjoint(vh) * s_inv.unsqueeze(-2).to(vh.dtype)) @ _adjoint(u)


def _adjoint(m: Any) -> Any:
    return m.mT.conj() if m.dtype.is_complex else m.mT


def qr(x: Any, /, *, mode: str = "reduced") -> Any:
    """``(Q, R)`` of each matrix ("reduced" or "complete")."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"linalg.qr(): mode must be 'reduced' or 'complete', got {mode!r}")
    return _L.qr(x, mode)


def slogdet(x: Any, /) -> Any:
    """``(sign, logabsdet)`` of each square matrix's determinant."""
    _square("slogdet", x)
    return _L.slogdet(x)


def solve(x1: Any, x2: Any, /) -> Any:
    """The solution ``X`` of ``x1 @ X = x2`` (``x2`` a vector when one-dimensional)."""
    _square("solve", x1)
    x1, x2 = _promote(x1, x2)
    if x2.ndim == 1:
        return _L.solve(x1, x2.unsqueeze(-1)).squeeze(-1)
    return _L.solve(x1, x2)


def svd(x: Any, /, *, full_matrices: bool = True) -> Any:
    """``(U, S, Vh)`` with ``x = U @ diag(S) @ Vh``."""
    return _L.svd(x, full_matrices)


def svdvals(x: Any, /) -> Any:
    """The singular values of each matrix, descending."""
    return _L.svdvals(x)


def trace(x: Any, /, *, offset: int = 0, dtype: Any = None) -> Any:
    """The sum of the ``offset``-th diagonal of each matrix (integers in the default integer
    dtype)."""
    if x.ndim < 2:
        raise ValueError("linalg.trace(): x must have at least 2 dimensions")
    if dtype is None and x.dtype._category == _dt.INTEGRAL:
        dtype = _dt.int64
    return x.diagonal(offset, -2, -1).sum(-1, dtype=dtype)


def vector_norm(
    x: Any,
    /,
    *,
    axis: Any = None,
    keepdims: bool = False,
    ord: Any = 2,
) -> Any:
    """The vector ``ord``-norm over ``axis`` (all axes when None)."""
    if axis is not None and not isinstance(axis, int) and len(tuple(axis)) == 0:
        return _L.vector_norm(x.unsqueeze(-1), ord, -1, False)
    return _L.vector_norm(x, ord, axis, keepdims)
