"""``tensorcore.linalg``: linear-algebra functions (PyTorch's ``torch.linalg`` names).

Every function takes a batch of matrices: the last two dims are the matrix, the leading ones
a batch (broadcast between two matrix arguments). The decompositions compute in float32,
float64, complex64 and complex128, and refuse other dtypes as PyTorch does (a
``RuntimeError``; ``NotImplementedError`` from ``eig`` and the LU family for 16-bit floats);
``matrix_exp`` takes 16-bit floats too (computed in float32).
A matrix that cannot be inverted or factored raises :class:`LinAlgError` naming the batch
element. Each function is an operator of the table (``linalg_inv``, ``_linalg_svd``...), so it
runs on every device whose backend has the kernels and is differentiable (in float64 checked
against finite differences); the outputs of ``eigh``, ``eig``, ``svd`` and ``qr`` are unique
only up to the signs (phases) of the vectors, and their gradients assume a loss that does not
depend on them, as PyTorch's do.
"""

from __future__ import annotations

import re
from typing import Any

from . import dtypes as ops_dtypes
from . import return_types as rt
from ._linalg_ex import householder_product, inv_ex, solve_ex
from ._linalg_general import eig, eigvals, lu, lu_factor, lu_factor_ex, lu_solve, matrix_exp
from ._linalg_ldl import ldl_factor, ldl_factor_ex, ldl_solve
from ._tensor import Tensor, cpp_name, torch_name
from .dispatch import get_op
from .ops import functions as ops
from .ops._call import call
from .ops._out import write_out
from .ops._validate import checked, keep_message
from .ops.factories import tensor

__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "ldl_factor",
    "ldl_factor_ex",
    "ldl_solve",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]


class LinAlgError(RuntimeError):
    """A matrix that cannot be inverted or factored (singular, not positive-definite): PyTorch's
    ``torch.linalg.LinAlgError``, a ``RuntimeError``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> try:
    ...     tc.linalg.inv(tc.zeros(2, 2))
    ... except tc.linalg.LinAlgError as e:
    ...     print(str(e)[:45])
    linalg.inv: The diagonal element 1 is zero, t
    """


LinAlgError.__module__ = "tensorcore.linalg"


def _op(name: str, *args: Any, out: Any = None) -> Any:
    return call(get_op(name), args, out)


@checked(
    "vector_norm(Tensor x, float ord=2.0, int[]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None, Tensor? out=None) -> Tensor"
)
def vector_norm(
    x: Any,
    ord: Any = 2.0,
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
    out: Any = None,
) -> Any:
    """The vector ``ord``-norm of ``x`` over ``dim`` (all dims when None).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.vector_norm(tc.tensor([3.0, 4.0])).item()
    5.0
    """

    return ops.vector_norm(x, ord, dim, keepdim, dtype=dtype, out=out)


@checked(
    "norm(Tensor A, Any ord=None, Any dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None, Tensor? out=None) -> Tensor"
)
def norm(
    A: Any,
    ord: Any = None,
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
    out: Any = None,
) -> Any:
    """A vector or matrix norm, as PyTorch chooses: a matrix norm when ``dim`` is a 2-tuple,
    or when ``dim`` is None and ``ord`` is given for a 2-D ``A``; else a vector norm (of the
    flattened ``A`` when ``dim`` and ``ord`` are None). ``ord`` defaults to 2 for vectors and
    'fro' for matrices.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.norm(tc.tensor([[1.0, 2.0], [3.0, 4.0]]), "fro").item()  # doctest: +ELLIPSIS
    5.477...
    >>> tc.linalg.norm(tc.tensor([[1.0, 2.0], [3.0, 4.0]]), 1).item()
    6.0
    """
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        dim = tuple(dim)
    if dim is None and ord is not None:
        if A.ndim not in (1, 2):
            raise RuntimeError(
                "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                f"Got {A.ndim}D."
            )
        dim = tuple(range(A.ndim))
    if dim is not None and len(dim) == 2:
        res = matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    elif isinstance(ord, str):
        res = matrix_norm(A, ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    else:
        res = ops.vector_norm(A, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype)
    _check_out_dtype(out, res.dtype, "linalg.norm expected out tensor dtype {want} but got: {got}")
    return _out(res, out)


@checked("matmul(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor")
def matmul(input: Any, other: Any, *, out: Any = None) -> Any:
    """Alias of :func:`tensorcore.matmul`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.matmul(tc.ones(2, 3), tc.ones(3)).tolist()
    [3.0, 3.0]
    """

    return ops.matmul(input, other, out=out)


# ------------------------------------------------------------------ inverses and solvers
@checked("inv(Tensor A, *, Tensor? out=None) -> Tensor")
def inv(A: Any, *, out: Any = None) -> Any:
    """The inverse of each square matrix of ``A`` (``(*, n, n)``).

    Raises :class:`LinAlgError` for a singular matrix, naming its zero pivot.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.inv(tc.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    return _op("linalg_inv", A, out=out)


@checked("det(Tensor A, *, Tensor? out=None) -> Tensor")
def det(A: Any, *, out: Any = None) -> Any:
    """The determinant of each square matrix of ``A`` (shape ``A.shape[:-2]``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.det(tc.tensor([[1.0, 2.0], [3.0, 4.0]])).item()  # doctest: +ELLIPSIS
    -2.0...
    """
    return _op("linalg_det", A, out=out)


@checked("slogdet(Tensor A, *, Any out=None) -> Any")
def slogdet(A: Any, *, out: Any = None) -> Any:
    """``(sign, logabsdet)`` of each determinant: ``det = sign * exp(logabsdet)``, without
    overflow. ``sign`` is -1, 0 or 1 for real input and a unit complex number for complex
    input; ``logabsdet`` is real (``-inf`` for a singular matrix).

    Examples
    --------
    >>> import tensorcore as tc
    >>> sign, logabsdet = tc.linalg.slogdet(tc.tensor([[0.0, 2.0], [3.0, 0.0]]))
    >>> sign.item(), round(logabsdet.exp().item(), 4)
    (-1.0, 6.0)
    """
    return _op("linalg_slogdet", A, out=out)


@checked("solve(Tensor A, Tensor B, *, bool left=True, Tensor? out=None) -> Tensor")
def solve(A: Any, B: Any, *, left: bool = True, out: Any = None) -> Any:
    """The solution ``X`` of ``A @ X = B`` (``X @ A = B`` when not ``left``) for square ``A``.

    ``B`` is read as a batch of vectors when it is 1-D or has the shape of ``A`` without its
    last dim, else as a batch of matrices; the batch dims broadcast. Raises
    :class:`LinAlgError` for a singular ``A``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.solve(tc.tensor([[2.0, 0.0], [0.0, 4.0]]), tc.tensor([2.0, 2.0])).tolist()
    [1.0, 0.5]
    """
    return _op("linalg_solve", A, B, left, out=out)


@checked(
    "solve_triangular(Tensor A, Tensor B, *, bool upper, bool left=True, "
    "bool unitriangular=False, Tensor? out=None) -> Tensor"
)
def solve_triangular(
    A: Any,
    B: Any,
    *,
    upper: bool,
    left: bool = True,
    unitriangular: bool = False,
    out: Any = None,
) -> Any:
    """The solution ``X`` of ``A @ X = B`` (``X @ A = B`` when not ``left``) for triangular
    ``A``: only its upper (``upper=True``) or lower triangle is read, with ones on the
    diagonal when ``unitriangular``. ``B`` is a batch of matrices (at least 2-D); the batch
    dims broadcast.

    Examples
    --------
    >>> import tensorcore as tc
    >>> L = tc.tensor([[2.0, 0.0], [1.0, 4.0]])
    >>> tc.linalg.solve_triangular(L, tc.tensor([[2.0], [9.0]]), upper=False).tolist()
    [[1.0], [2.0]]
    """
    return _op("linalg_solve_triangular", A, B, upper, left, unitriangular, out=out)


@checked(
    "pinv(Tensor A, Any rcond=None, bool hermitian=False, *, Any atol=None, Any rtol=None, "
    "Tensor? out=None) -> Tensor"
)
def pinv(
    A: Any,
    rcond: Any = None,
    hermitian: bool = False,
    *,
    atol: Any = None,
    rtol: Any = None,
    out: Any = None,
) -> Any:
    """The Moore-Penrose pseudo-inverse of each matrix of ``A`` (``(*, m, n)`` -> ``(*, n, m)``).

    Singular values (eigenvalues' magnitudes when ``hermitian``) at most
    ``max(atol, rtol * largest)`` count as zero; ``rtol`` defaults to ``eps * max(m, n)``
    unless a positive ``atol`` is given. ``rcond`` is PyTorch's older name of ``rtol``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.pinv(tc.tensor([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    if rcond is not None:
        if rtol is not None:
            raise RuntimeError("linalg.pinv: rcond and rtol cannot be given together")
        rtol = rcond
    return _op("linalg_pinv", A, _float_or_none(atol), _float_or_none(rtol), hermitian, out=out)


@checked("lstsq(Tensor A, Tensor B, float? rcond=None, *, str? driver=None) -> Any")
def lstsq(A: Any, B: Any, rcond: float | None = None, *, driver: str | None = None) -> Any:
    """The least-squares solution ``X`` minimising ``|A X - B|`` for each matrix of ``A``
    (``(*, m, n)``) and ``B`` (``(*, m, k)``, or ``(*, m)``), as a named tuple
    ``(solution, residuals, rank, singular_values)``.

    The solution is the minimum-norm one, from the SVD, with singular values at most
    ``rcond * largest`` (``rcond`` defaults to ``eps * max(m, n)``) counted as zero. The
    other fields follow PyTorch's ``driver`` (``"gelsy"`` by default on the CPU, ``"gels"``
    elsewhere): ``rank`` except with ``gels``; ``residuals`` (the squared residual norms
    ``(*, k)``) when ``m > n``, every matrix has full rank and the driver is not ``gelsy``;
    ``singular_values`` with ``gelsd`` and ``gelss``. Fields not computed are empty tensors.

    Examples
    --------
    >>> import tensorcore as tc
    >>> A = tc.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=tc.float64)
    >>> B = tc.tensor([[1.0], [2.0], [0.0]], dtype=tc.float64)
    >>> r = tc.linalg.lstsq(A, B, driver="gelsd")
    >>> [round(v, 6) + 0.0 for v in r.solution.flatten().tolist()], round(r.residuals.item(), 6)
    ([0.0, 1.0], 3.0)
    >>> r.rank, r.singular_values.shape
    (tensor(2), tensorcore.Size([2]))
    """
    return _op("linalg_lstsq", A, B, rcond, driver)


def _float_or_none(v: Any) -> Any:
    return None if v is None else float(v)


# ------------------------------------------------------------------ decompositions
@checked("cholesky(Tensor A, *, bool upper=False, Tensor? out=None) -> Tensor")
def cholesky(A: Any, *, upper: bool = False, out: Any = None) -> Any:
    """The Cholesky factor ``L`` (lower triangular, ``A = L @ L.mH``) of each Hermitian
    positive-definite matrix, read from the lower triangle of ``A``; with ``upper`` the upper
    triangular ``U = L.mH``, read from the upper triangle.

    Raises :class:`LinAlgError` naming the first leading minor that is not positive-definite.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.cholesky(tc.tensor([[4.0, 2.0], [2.0, 5.0]])).tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """
    return _op("linalg_cholesky", A, upper, out=out)


@checked("cholesky_ex(Tensor A, *, bool upper=False, bool check_errors=False, Any out=None) -> Any")
def cholesky_ex(A: Any, *, upper: bool = False, check_errors: bool = False, out: Any = None) -> Any:
    """``(L, info)``: :func:`cholesky` without raising for a matrix that is not
    positive-definite. ``info`` (int32, one per matrix of the batch) is 0 where the
    factorization succeeded, else the order of the first leading minor that is not
    positive-definite; ``L`` is NaN there. ``check_errors=True`` raises as :func:`cholesky`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> A = tc.tensor([[[4.0, 2.0], [2.0, 5.0]], [[1.0, 2.0], [2.0, 1.0]]])
    >>> L, info = tc.linalg.cholesky_ex(A)
    >>> info
    tensor([0, 2], dtype=tensorcore.int32)
    >>> L[0].tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """
    return _out(_cholesky_ex(A, upper, check_errors), out, "linalg_cholesky_ex", "exact")


def _cholesky_ex(A: Any, upper: bool, check_errors: bool) -> Any:
    batch = tuple(A.shape[:-2])
    try:
        L = cholesky(A, upper=upper)
        info = ops.zeros(batch, dtype=ops_dtypes.int32, device=A.device)
        return rt.linalg_cholesky_ex(L, info)
    except LinAlgError as exc:
        if check_errors:
            raise LinAlgError(
                str(exc).replace("linalg.cholesky:", "linalg.cholesky_ex:", 1)
            ) from None
    # Factor each matrix alone to find the ones that fail.
    n = A.shape[-1]
    flat = A.reshape(-1, n, n)
    factors, codes = [], []
    for m in flat.unbind(0):
        try:
            factors.append(cholesky(m, upper=upper))
            codes.append(0)
        except LinAlgError as exc:
            order = re.search(r"leading minor of order (\d+)", str(exc))
            codes.append(int(order.group(1)) if order else n)
            factors.append(ops.full_like(m, float("nan")))
    L = ops.stack(factors).reshape(A.shape)
    info = tensor(codes, dtype=ops_dtypes.int32, device=A.device).reshape(batch)
    return rt.linalg_cholesky_ex(L, info)


@checked('eigh(Tensor A, str UPLO="L", *, Any out=None) -> Any')
def eigh(A: Any, UPLO: str = "L", *, out: Any = None) -> Any:
    """``(eigenvalues, eigenvectors)`` of each Hermitian matrix, read from its lower (``UPLO``
    'L') or upper ('U') triangle: eigenvalues real and ascending, eigenvectors the columns
    of a unitary matrix (each unique up to its sign, or phase for complex input).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.eigh(tc.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues.tolist()
    [1.0, 3.0]
    """
    return _op("linalg_eigh", A, UPLO, out=out)


@checked('eigvalsh(Tensor A, str UPLO="L", *, Tensor? out=None) -> Tensor')
def eigvalsh(A: Any, UPLO: str = "L", *, out: Any = None) -> Any:
    """The eigenvalues (real, ascending) of each Hermitian matrix; see :func:`eigh`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.eigvalsh(tc.tensor([[2.0, 1.0], [1.0, 2.0]])).tolist()
    [1.0, 3.0]
    """
    return _out(_op("linalg_eigvalsh", A, UPLO), out, "linalg_eigvalsh", "exact")


@checked('qr(Tensor A, str mode="reduced", *, Any out=None) -> Any')
def qr(A: Any, mode: str = "reduced", *, out: Any = None) -> Any:
    """``(Q, R)`` with ``A = Q @ R``, ``Q`` with orthonormal columns and ``R`` upper
    triangular: ``(*, m, k)`` and ``(*, k, n)`` for ``mode`` 'reduced' (``k = min(m, n)``),
    ``(*, m, m)`` and ``(*, m, n)`` for 'complete'; 'r' computes only ``R`` (``Q`` is empty).

    Examples
    --------
    >>> import tensorcore as tc
    >>> Q, R = tc.linalg.qr(tc.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> [[round(abs(x), 4) for x in row] for row in R.tolist()]
    [[5.0, 2.2], [0.0, 0.4]]
    """
    return _op("linalg_qr", A, mode, out=out)


@checked("svd(Tensor A, bool full_matrices=True, *, str? driver=None, Any out=None) -> Any")
def svd(A: Any, full_matrices: bool = True, *, driver: Any = None, out: Any = None) -> Any:
    """``(U, S, Vh)`` with ``A = U @ diag(S) @ Vh``: singular values ``S`` real and descending,
    ``U`` and ``Vh`` with orthonormal columns and rows (``(*, m, m)`` and ``(*, n, n)`` when
    ``full_matrices``, else ``(*, m, k)`` and ``(*, k, n)``). Gradients flow through the
    first ``k`` vectors (those of ``full_matrices=False``). ``driver`` is CUDA's choice of
    solver, as in PyTorch.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.svd(tc.tensor([[3.0, 0.0], [0.0, -4.0]])).S.tolist()
    [4.0, 3.0]
    """
    return _op("linalg_svd", A, full_matrices, driver, out=out)


@checked("svdvals(Tensor A, *, str? driver=None, Tensor? out=None) -> Tensor")
def svdvals(A: Any, *, driver: Any = None, out: Any = None) -> Any:
    """The singular values of each matrix, descending; see :func:`svd`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.svdvals(tc.tensor([[3.0, 0.0], [0.0, -4.0]])).tolist()
    [4.0, 3.0]
    """
    return _out(_op("linalg_svdvals", A, driver), out, "linalg_svdvals", "exact")


# ------------------------------------------------------------------ norms, powers, ranks
@checked(
    'matrix_norm(Tensor A, Any ord="fro", int[] dim=[-2, -1], bool keepdim=False, *, '
    "ScalarType? dtype=None, Tensor? out=None) -> Tensor"
)
def matrix_norm(
    A: Any,
    ord: Any = "fro",
    dim: Any = (-2, -1),
    keepdim: bool = False,
    *,
    dtype: Any = None,
    out: Any = None,
) -> Any:
    """The matrix norm ``ord`` of the matrices in dims ``dim``: 'fro' (Frobenius), 'nuc' (sum
    of the singular values), 2 and -2 (largest and smallest singular value), 1 and -1 (largest
    and smallest column sum of ``abs``), inf and -inf (the same for rows).

    Examples
    --------
    >>> import tensorcore as tc
    >>> A = tc.tensor([[1.0, -2.0], [3.0, 4.0]])
    >>> tc.linalg.matrix_norm(A, 1).item(), tc.linalg.matrix_norm(A, float("inf")).item()
    (6.0, 7.0)
    """
    res = _op("linalg_matrix_norm", A, ord, tuple(dim), keepdim, dtype)
    msg = "linalg.matrix_norm expected out tensor dtype {want} but got: {got}"
    _check_out_dtype(out, res.dtype, msg)
    return _out(res, out)


@checked("matrix_power(Tensor A, int n, *, Tensor? out=None) -> Tensor")
def matrix_power(A: Any, n: int, *, out: Any = None) -> Any:
    """``A`` to the integer power ``n`` (the identity for 0; powers of the inverse for
    negative ``n``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.matrix_power(tc.tensor([[1.0, 1.0], [0.0, 1.0]]), 3).tolist()
    [[1.0, 3.0], [0.0, 1.0]]
    """
    return _out(_op("linalg_matrix_power", A, n), out, "linalg_matrix_power", "exact")


@checked(
    "matrix_rank(Tensor A, Any tol=None, bool hermitian=False, *, Any atol=None, "
    "Any rtol=None, Tensor? out=None) -> Tensor"
)
def matrix_rank(
    A: Any,
    tol: Any = None,
    hermitian: bool = False,
    *,
    atol: Any = None,
    rtol: Any = None,
    out: Any = None,
) -> Any:
    """The number of singular values (eigenvalue magnitudes when ``hermitian``) above
    ``max(atol, rtol * largest)``, as int64; tolerances as in :func:`pinv` (``tol`` is
    PyTorch's older name of ``atol``, with ``rtol`` 0).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.matrix_rank(tc.tensor([[1.0, 2.0], [2.0, 4.0]])).item()
    1
    """
    if tol is not None:
        if atol is not None or rtol is not None:
            raise RuntimeError("linalg.matrix_rank: tol cannot be given with atol or rtol")
        atol, rtol = tol, 0.0
    res = _op("linalg_matrix_rank", A, _float_or_none(atol), _float_or_none(rtol), hermitian)
    return _out(res, out)


# ------------------------------------------------------------------ products
@checked("cross(Tensor input, Tensor other, *, int dim=-1, Tensor? out=None) -> Tensor")
def cross(input: Any, other: Any, *, dim: int = -1, out: Any = None) -> Any:
    """The cross product of the 3-vectors along ``dim``; the other dims broadcast.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.cross(tc.tensor([1.0, 0.0, 0.0]), tc.tensor([0.0, 1.0, 0.0])).tolist()
    [0.0, 0.0, 1.0]
    """
    return _op("linalg_cross", input, other, dim, out=out)


@checked("diagonal(Tensor A, *, int offset=0, int dim1=-2, int dim2=-1) -> Tensor")
def diagonal(A: Any, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
    """A view of the diagonals of the matrices in dims ``dim1`` and ``dim2`` (the last two):
    :func:`tensorcore.diagonal` with other defaults.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.diagonal(tc.arange(8.0).reshape(2, 2, 2)).tolist()
    [[0.0, 3.0], [4.0, 7.0]]
    """
    return _op("linalg_diagonal", A, offset, dim1, dim2)


@checked("multi_dot(Tensor[] tensors, *, Tensor? out=None) -> Tensor")
def multi_dot(tensors: Any, *, out: Any = None) -> Any:
    """The product of a chain of matrices, multiplied in the order that costs the fewest
    operations; the first may be a 1-D row vector and the last a 1-D column vector.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.multi_dot([tc.ones(2), tc.ones(2, 3), tc.ones(3)]).item()
    6.0
    """
    res = _op("linalg_multi_dot", tensors)
    _check_out_dtype(
        out, res.dtype, "multi_dot(): expected out tensor to have dtype {want_c} but got {got_c}"
    )
    return _out(res, out)


@checked("vecdot(Tensor x, Tensor y, *, int dim=-1, Tensor? out=None) -> Tensor")
def vecdot(x: Any, y: Any, *, dim: int = -1, out: Any = None) -> Any:
    """The dot product ``sum(conj(x) * y)`` of the vectors along ``dim``; the other dims
    broadcast.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.vecdot(tc.tensor([1.0, 2.0]), tc.tensor([[3.0, 4.0], [5.0, 6.0]])).tolist()
    [11.0, 17.0]
    """
    res = _op("linalg_vecdot", x, y, dim)
    _check_out_dtype(out, res.dtype, "linalg.vecdot: Expected out of dtype{want} but found {got}")
    return _out(res, out)


def _out(res: Any, out: Any, name: str = "", exact: str = "") -> Any:
    """Write a composite's result into ``out`` under PyTorch's rules (``ops/_out.py``):
    ``exact="exact"`` where PyTorch wants each ``out`` of its result's own dtype (its
    structured linalg kernels), ``name`` the operator its errors name."""
    return res if out is None else write_out(name, res, out, exact=exact)


def _check_out_dtype(out: Any, dtype: Any, message: str) -> None:
    """Refuse an ``out`` tensor of another dtype than ``dtype`` with PyTorch's ``message`` of
    the function (``{want}``/``{got}`` become the two dtypes' names, as it spells them) where
    it words the check itself."""
    if isinstance(out, Tensor) and out.dtype is not dtype:
        w, g = (torch_name(dtype), cpp_name(dtype)), (torch_name(out.dtype), cpp_name(out.dtype))
        exc = RuntimeError(message.format(want=w[0], got=g[0], want_c=w[1], got_c=g[1]))
        keep_message(exc)  # (PyTorch's whole message: no name in front of it)
        raise exc


@checked("cond(Tensor A, Any p=None, *, Tensor? out=None) -> Tensor")
def cond(A: Any, p: Any = None, *, out: Any = None) -> Any:
    """The condition number of each matrix in the norm ``p``: the ratio of its largest and
    smallest singular values for ``p`` None or 2 (smallest over largest for -2), else
    ``matrix_norm(A, p) * matrix_norm(inv(A), p)`` (``p`` 'fro', 'nuc', inf, -inf, 1 or -1;
    inf for a singular matrix).

    Examples
    --------
    >>> import tensorcore as tc
    >>> round(tc.linalg.cond(tc.tensor([[1.0, 2.0], [3.0, 4.0]])).item(), 3)
    14.933
    >>> tc.linalg.cond(tc.tensor([[1.0, 2.0], [3.0, 4.0]]), 1)
    tensor(21.)
    """
    if p is None or p in (2, -2):
        s = svdvals(A)
        big, small = s[..., 0], s[..., -1]
        res = small / big if p == -2 else big / small
    else:
        if p not in ("fro", "nuc", float("inf"), -float("inf"), 1, -1):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
        if A.shape[-1] != A.shape[-2]:
            raise RuntimeError(
                "linalg.cond: A must be batches of square matrices, but they are "
                f"{A.shape[-2]} by {A.shape[-1]} matrices"
            )
        # A singular matrix has an infinite condition number (no error, as PyTorch).
        try:
            res = matrix_norm(A, p) * matrix_norm(inv(A), p)
        except LinAlgError:
            flat = A.reshape(-1, A.shape[-2], A.shape[-1])
            parts = []
            for m in flat.unbind(0):
                try:
                    parts.append(matrix_norm(m, p) * matrix_norm(inv(m), p))
                except LinAlgError:
                    parts.append(ops.full((), float("inf"), dtype=matrix_norm(m, p).dtype))
            res = ops.stack(parts).reshape(A.shape[:-2])
    return _out(res, out)


@checked("vander(Tensor x, *, int? N=None) -> Tensor")
def vander(x: Any, *, N: Any = None) -> Any:
    """The Vandermonde matrix of ``x`` (the last dim; leading dims are a batch): column ``j``
    holds ``x ** j`` for ``j`` below ``N`` (``x``'s length by default).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.vander(tc.tensor([1, 2, 3]))
    tensor([[1, 1, 1],
            [1, 2, 4],
            [1, 3, 9]])
    """
    if x.ndim == 0:  # (one point, as PyTorch)
        x = x.reshape(1)
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    cols = [ops.ones_like(x)] + [x] * (n - 1)
    return ops.stack(cols, -1).cumprod(-1)


@checked("tensorinv(Tensor A, int ind=2, *, Tensor? out=None) -> Tensor")
def tensorinv(A: Any, ind: int = 2, *, out: Any = None) -> Any:
    """The inverse of ``A`` under :func:`tensorcore.tensordot` over ``ind`` dims: ``A`` is read
    as the matrix of its first ``ind`` dims by the others (square), and the result has the
    shape ``A.shape[ind:] + A.shape[:ind]``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.tensorinv(tc.eye(4).reshape(4, 2, 2), ind=1).shape
    tensorcore.Size([2, 2, 4])
    """
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    n_rows = 1
    for s in rows:
        n_rows *= s
    n_cols = 1
    for s in cols:
        n_cols *= s
    if n_rows != n_cols:
        raise RuntimeError(
            f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
            f"prod(self.shape[:ind]), but got {n_cols} != {n_rows}"
        )
    res = inv(A.reshape(n_rows, n_cols)).reshape(*cols, *rows)
    return _out(res, out)


@checked("tensorsolve(Tensor A, Tensor B, int[]? dims=None, *, Tensor? out=None) -> Tensor")
def tensorsolve(A: Any, B: Any, dims: Any = None, *, out: Any = None) -> Any:
    """The ``X`` with ``tensordot(A, X, X.ndim) == B``: ``A``'s leading dims (``B``'s shape)
    against its trailing ones (``X``'s shape); ``dims`` first moves those dims of ``A`` to
    the end.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.tensorsolve(tc.eye(6).reshape(2, 3, 6), tc.ones(2, 3)).shape
    tensorcore.Size([6])
    """
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        rest = [d for d in range(A.ndim) if d not in dims]
        A = A.permute(*rest, *dims)
    out_shape = tuple(A.shape[B.ndim :])
    n = 1
    for s in out_shape:
        n *= s
    m = B.numel()
    if m != n:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
            f"prod(self.shape[:other.ndim]), but got {n} != {m}"
        )
    res = solve(A.reshape(m, n), B.reshape(m)).reshape(out_shape)
    return _out(res, out)
