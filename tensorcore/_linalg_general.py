"""``tensorcore.linalg``'s functions of general square and rectangular matrices: ``eig``,
``eigvals``, the LU family (``lu_factor``, ``lu_factor_ex``, ``lu``, ``lu_solve``) and
``matrix_exp``. ``tensorcore/linalg.py`` re-exports them; each runs an operator of the table
(``_linalg_eig``, ``linalg_lu_factor_ex``, ``lu_unpack``, ``linalg_matrix_exp`` and the
composites over them), so it runs on every device with the kernels and is differentiable.
"""

from __future__ import annotations

from typing import Any

from ._tensor import Tensor, torch_name
from .dispatch import get_op
from .ops._call import call
from .ops._out import write_out
from .ops._validate import checked

__all__ = ["eig", "eigvals", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "matrix_exp"]


def _op(name: str, *args: Any, out: Any = None) -> Any:
    return call(get_op(name), args, out)


def _into(res: Any, out: Any, name: str = "", exact: str = "") -> Any:
    """Copy a composite's results (a tensor or a named tuple) into ``out`` (a tensor or a
    tuple of as many), as the structured operators do: an empty ``out`` is resized, a result
    that wants a gradient cannot go into one; ``out`` comes back. ``exact="exact"`` (with
    the ``name`` of the operator the errors name) where PyTorch wants each ``out`` of its
    result's own dtype, as its structured kernels do."""
    if out is None:
        return res
    results = tuple(res) if isinstance(res, tuple) else (res,)
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    for o, r in zip(outs, results, strict=False):
        if isinstance(o, Tensor) and r.dtype.is_complex and not o.dtype.is_complex:
            raise RuntimeError(
                f"Expected the out tensor to be safely castable from {torch_name(r.dtype)} "
                f"dtype, but got an out tensor with dtype {torch_name(o.dtype)}"
            )
    return write_out(name, res, out, exact=exact)


# ------------------------------------------------------------------ eigendecomposition
@checked("eig(Tensor A, *, Any out=None) -> Any")
def eig(A: Any, *, out: Any = None) -> Any:
    """``(eigenvalues, eigenvectors)`` of each square matrix of ``A`` (``(*, n, n)``), complex
    even for real input: ``A @ V == V @ diag(L)``. Each eigenvector (a column of ``V``) has
    norm 1 and is unique only up to a phase, as LAPACK's ``geev`` returns it; gradients
    assume a loss that does not depend on the phases, and raise (as PyTorch) when one does.
    The eigenvalues are in no particular order. On devices other than the CPU the matrices
    are factored on the host (as PyTorch does on CUDA).

    Examples
    --------
    >>> import tensorcore as tc
    >>> L, V = tc.linalg.eig(tc.tensor([[2.0, 0.0], [0.0, 3.0]]))
    >>> L
    tensor([2.+0.j, 3.+0.j])
    >>> V.dtype
    tensorcore.complex64
    """
    return _into(_op("linalg_eig", A), out)


@checked("eigvals(Tensor A, *, Tensor? out=None) -> Tensor")
def eigvals(A: Any, *, out: Any = None) -> Any:
    """The eigenvalues (complex) of each square matrix; see :func:`eig`. The eigenvectors are
    computed only when a gradient will need them.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.eigvals(tc.tensor([[0.0, -1.0], [1.0, 0.0]]))
    tensor([0.+1.j, 0.-1.j])
    """
    return _into(_op("linalg_eigvals", A), out)


# ------------------------------------------------------------------ LU
@checked("lu_factor(Tensor A, *, bool pivot=True, Any out=None) -> Any")
def lu_factor(A: Any, *, pivot: bool = True, out: Any = None) -> Any:
    """``(LU, pivots)``: the LU factorization ``A = P L U`` of each matrix of ``A``
    (``(*, m, n)``), packed as LAPACK's ``getrf`` packs it: ``LU`` holds ``U`` in its upper
    triangle and ``L`` (unit diagonal, not stored) below. ``pivots`` (int32, ``(*, min(m, n))``)
    are the 1-based row interchanges of partial pivoting: row ``i`` was swapped with row
    ``pivots[i]``. A zero on ``U``'s diagonal raises (use :func:`lu_factor_ex` to get
    ``info`` instead). ``pivot=False`` factors without interchanges (PyTorch does that on CUDA
    only; here on every device). :func:`tensorcore.lu_unpack` gives ``P``, ``L`` and ``U``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> LU, pivots = tc.linalg.lu_factor(tc.tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> pivots
    tensor([2, 2], dtype=tensorcore.int32)
    >>> [[round(x, 4) for x in row] for row in LU.tolist()]
    [[3.0, 4.0], [0.3333, 0.6667]]
    """
    return _into(_op("linalg_lu_factor", A, pivot), out, "linalg_lu_factor", "exact")


@checked("lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False, Any out=None) -> Any")
def lu_factor_ex(A: Any, *, pivot: bool = True, check_errors: bool = False, out: Any = None) -> Any:
    """``(LU, pivots, info)``: :func:`lu_factor` without raising. ``info`` (int32, one per
    matrix) is 0, or the 1-based position of the first zero on ``U``'s diagonal (the
    factorization is complete all the same). ``check_errors=True`` raises for such a matrix.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.lu_factor_ex(tc.tensor([[1.0, 2.0], [2.0, 4.0]])).info
    tensor(2, dtype=tensorcore.int32)
    """
    return _op("linalg_lu_factor_ex", A, pivot, check_errors, out=out)


@checked("lu(Tensor A, *, bool pivot=True, Any out=None) -> Any")
def lu(A: Any, *, pivot: bool = True, out: Any = None) -> Any:
    """``(P, L, U)`` with ``A = P @ L @ U`` for each matrix of ``A`` (``(*, m, n)``): ``P`` a
    permutation matrix (``(*, m, m)``, ``A``'s dtype), ``L`` unit lower triangular
    (``(*, m, k)``) and ``U`` upper triangular (``(*, k, n)``), ``k = min(m, n)``.
    Differentiable for square, wide and tall matrices.

    Examples
    --------
    >>> import tensorcore as tc
    >>> P, L, U = tc.linalg.lu(tc.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=tc.float64))
    >>> P.tolist(), L.tolist()
    ([[0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [0.3333333333333333, 1.0]])
    """
    return _into(_op("linalg_lu", A, pivot), out, "linalg_lu", "exact")


@checked(
    "lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False, "
    "Tensor? out=None) -> Tensor"
)
def lu_solve(
    LU: Any, pivots: Any, B: Any, *, left: bool = True, adjoint: bool = False, out: Any = None
) -> Any:
    """The solution ``X`` of ``A @ X = B`` (``X @ A = B`` when not ``left``; with ``A.mH`` in
    place of ``A`` when ``adjoint``) given ``A``'s :func:`lu_factor`: two triangular solves
    and a permutation. ``B`` is a batch of matrices; the batch dims broadcast.
    Differentiable in ``LU`` and ``B``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> A = tc.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=tc.float64)
    >>> LU, pivots = tc.linalg.lu_factor(A)
    >>> tc.linalg.lu_solve(LU, pivots, tc.tensor([[3.0], [4.0]], dtype=tc.float64)).tolist()
    [[1.0], [1.0]]
    """
    res = _op("linalg_lu_solve", LU, pivots, B, left, adjoint)
    return _into(res, out, "linalg_lu_solve", "exact")


# ------------------------------------------------------------------ matrix exponential
@checked("matrix_exp(Tensor A) -> Tensor")
def matrix_exp(A: Any) -> Any:
    """The matrix exponential ``sum(A^k / k!)`` of each square matrix of ``A``, by scaling
    and squaring with Padé approximants; differentiable (its gradient is the exponential of
    a ``2n x 2n`` block matrix).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.matrix_exp(tc.tensor([[0.0, 1.0], [0.0, 0.0]])).tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    return _op("linalg_matrix_exp", A)
