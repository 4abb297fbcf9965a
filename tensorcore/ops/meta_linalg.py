"""Meta functions of the linear-algebra operators (``torch.linalg``): argument checks and
output shapes, as ``meta_functions.py`` does for the others.

The checks and their wording are PyTorch's: a matrix argument has at least 2 dims, a
floating or complex dtype of at least 32 bits, and (for most functions) square matrices in
its last two dims; the leading dims are a batch, broadcast between two matrix arguments.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor, _wrap_dim, torch_name
from .meta_functions import broadcast

__all__ = [
    "check_float_matrix",
    "complex_dtype",
    "meta_linalg_cholesky",
    "meta_linalg_cross",
    "meta_linalg_det",
    "meta_linalg_eig",
    "meta_linalg_eigh",
    "meta_linalg_inv",
    "meta_linalg_ldl_factor_ex",
    "meta_linalg_ldl_solve",
    "meta_linalg_lu_factor_ex",
    "meta_linalg_matrix_exp",
    "meta_linalg_pinv",
    "meta_linalg_qr",
    "meta_linalg_slogdet",
    "meta_linalg_solve",
    "meta_linalg_solve_triangular",
    "meta_linalg_svd",
    "meta_lu_unpack",
    "real_dtype",
]


def real_dtype(d: dt.dtype) -> dt.dtype:
    """The real dtype of a complex one (``complex64`` -> ``float32``); others unchanged."""
    if d is dt.complex64:
        return dt.float32
    if d is dt.complex128:
        return dt.float64
    return d


def complex_dtype(d: dt.dtype) -> dt.dtype:
    """The complex dtype of a floating one (``float32`` -> ``complex64``); complex unchanged."""
    if d is dt.float32:
        return dt.complex64
    if d is dt.float64:
        return dt.complex128
    return d


def check_matrix_dims(fn: str, A: Tensor, arg: str = "A") -> None:
    """PyTorch's check that the argument ``arg`` of ``fn`` is a (batch of) matrices."""
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor {arg} must have at least 2 dimensions.")


def check_float_matrix(
    fn: str,
    A: Tensor,
    square: bool = True,
    arg: str = "A",
    kernel: str | None = None,
    any_dtype: bool = False,
) -> None:
    """PyTorch's checks of a matrix argument of ``fn`` (``"linalg.inv"``): at least 2 dims, a
    floating or complex dtype other than the 16-bit floats, square when ``square``.

    Where PyTorch's own check lets the 16-bit floats through to a LAPACK kernel that has no
    such dtype (``kernel``: ``"lu"`` for ``linalg.det``), those raise its
    ``NotImplementedError`` naming the kernel; with ``any_dtype`` (PyTorch checks nothing
    first: ``linalg.eigh``), so do integer and bool matrices."""
    check_matrix_dims(fn, A, arg)
    d = A._dtype
    floating = d.is_floating_point or d.is_complex
    if kernel is not None and (d.itemsize == 2 if floating else any_dtype):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{torch_name(d)}'")
    if not floating:
        raise RuntimeError(
            f"{fn}: Expected a floating point or complex tensor as input. Got {torch_name(d)}"
        )
    if d.itemsize == 2:
        raise RuntimeError(f"{fn}: Low precision dtypes not supported. Got {torch_name(d)}")
    if square and A._shape[-1] != A._shape[-2]:
        raise RuntimeError(
            f"{fn}: A must be batches of square matrices, but they are "
            f"{A._shape[-2]} by {A._shape[-1]} matrices"
        )


def meta_linalg_inv(A: Tensor) -> Any:
    check_float_matrix("linalg.inv", A)
    return (A,), (A._shape, A._dtype)


def meta_linalg_det(A: Tensor) -> Any:
    check_float_matrix("linalg.det", A, kernel="lu")
    return (A,), (A._shape[:-2], A._dtype)


def meta_linalg_slogdet(A: Tensor) -> Any:
    check_float_matrix("linalg.slogdet", A)
    batch = A._shape[:-2]
    return (A,), ((batch, A._dtype), (batch, real_dtype(A._dtype)))


def solve_is_vector(A: Tensor, B: Tensor) -> bool:
    """Whether ``linalg.solve`` reads ``B`` as (a batch of) vectors: a 1-D ``B``, or one whose
    shape is ``A``'s without the last dim (PyTorch's rule)."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B._shape == A._shape[:-1])


def einsum_dtype(equation: str, dtypes: list[dt.dtype]) -> dt.dtype:
    """``einsum``'s result dtype for operands of ``dtypes``, as PyTorch's: the promoted
    dtype, except that integral operands whose summed labels include one of a single operand
    (a partial sum or trace, which PyTorch computes with ``sum``) give int64; bool operands
    contracted together (a label summed over two operands: PyTorch's ``bmm``) are refused.

    Examples
    --------
    >>> from tensorcore import dtypes as dt
    >>> einsum_dtype("ij->", [dt.bool_]), einsum_dtype("ij,jk->ijk", [dt.bool_, dt.bool_])
    (tensorcore.int64, tensorcore.bool)
    >>> einsum_dtype("ij,jk->ik", [dt.int8, dt.int8])
    tensorcore.int8
    """
    res = dtypes[0]
    for d in dtypes[1:]:
        res = dt.promote_types(res, d)
    if res.is_floating_point or res.is_complex:
        return res
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    terms = [set(t.replace("...", ".")) for t in lhs.split(",")]
    if arrow:
        out = set(rhs.replace("...", "."))
    else:  # the labels used once, and the ellipsis
        flat = lhs.replace("...", ".").replace(",", "")
        out = {c for c in flat if flat.count(c) == 1 or c == "."}
    summed = set().union(*terms) - out
    uses = {c: sum(c in t for t in terms) for c in summed}
    if any(n == 1 for n in uses.values()):
        return dt.int64
    if res is dt.bool_ and uses:
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    return res


def incompatible_shapes(fn: str, n: int, left: bool, shown: str) -> RuntimeError:
    """PyTorch's error for a right-hand side ``shown`` (``"RxC"``) whose rows (columns when
    not ``left``) are not the order ``n`` of the matrix it is solved against."""
    eq = "AX = B" if left else "XA = B"
    return RuntimeError(
        f"{fn}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and {shown})"
    )


def check_rhs_order(fn: str, n: int, B: Tensor, left: bool) -> None:
    """Raise :func:`incompatible_shapes` unless the matrices ``B`` have ``n`` rows (columns
    when not ``left``)."""
    if (B._shape[-2] if left else B._shape[-1]) != n:
        raise incompatible_shapes(fn, n, left, f"{B._shape[-2]}x{B._shape[-1]}")


def meta_linalg_solve(A: Tensor, B: Tensor, left: bool = True) -> Any:
    if not isinstance(B, Tensor):
        raise TypeError(f"linalg_solve(): argument 'B' must be Tensor, not {type(B).__name__}")
    check_float_matrix("linalg.solve", A, kernel="lu")
    if B.ndim < 1:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    if A._dtype is not B._dtype:
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{torch_name(A._dtype)} and B of type {torch_name(B._dtype)} instead"
        )
    n = A._shape[-1]
    vector = solve_is_vector(A, B)
    if vector:
        ok, shown = B._shape[-1] == n, f"{B._shape[-1]}x1"
    else:
        k = B._shape[-2] if left else B._shape[-1]
        ok, shown = k == n, f"{B._shape[-2]}x{B._shape[-1]}"
    if not ok:
        raise incompatible_shapes("linalg.solve", n, left, shown)
    if vector:
        shape = broadcast(A._shape[:-2], B._shape[:-1]) + (n,)
    else:
        shape = broadcast(A._shape[:-2], B._shape[:-2]) + B._shape[-2:]
    return (A, B, left), (shape, A._dtype)


def meta_linalg_solve_triangular(
    A: Tensor, B: Tensor, upper: bool, left: bool = True, unitriangular: bool = False
) -> Any:
    """``A`` square, ``B`` a batch of matrices (never vectors, unlike ``linalg.solve``) whose
    rows (columns when not ``left``) match ``A``'s order; the batch dims broadcast and the
    result has the promoted dtype of ``A`` and ``B``, which the kernel computes in."""
    fn = "linalg.solve_triangular"
    if not isinstance(B, Tensor):
        raise TypeError(
            f"linalg_solve_triangular(): argument 'B' must be Tensor, not {type(B).__name__}"
        )
    check_float_matrix(fn, A, kernel="triangular_solve", any_dtype=True)
    # B of any dtype: the promoted dtype is A's floating category, at least 32 bits.
    check_matrix_dims(fn, B, "B")
    check_rhs_order(fn, A._shape[-1], B, left)
    shape = broadcast(A._shape[:-2], B._shape[:-2]) + B._shape[-2:]
    return (A, B, upper, left, unitriangular), (shape, dt.promote_types(A._dtype, B._dtype))


def meta_linalg_cholesky(A: Tensor, upper: bool = False) -> Any:
    check_float_matrix("linalg.cholesky", A, kernel="cholesky")
    return (A, upper), (A._shape, A._dtype)


def meta_linalg_eigh(A: Tensor, UPLO: str = "L", compute_v: bool = True) -> Any:
    check_float_matrix("linalg.eigh", A, kernel="linalg_eigh", any_dtype=True)
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    values = (A._shape[:-1], real_dtype(A._dtype))
    vectors = (A._shape if compute_v else (0,), A._dtype)
    return (A, UPLO.upper(), compute_v), (values, vectors)


def meta_linalg_qr(A: Tensor, mode: str = "reduced") -> Any:
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    check_float_matrix("linalg.qr", A, square=False, kernel="geqrf")
    *batch, m, n = A._shape
    b = tuple(batch)
    k = min(m, n)
    if mode == "complete":
        q, r = b + (m, m), b + (m, n)
    else:
        q, r = (b + (m, k) if mode == "reduced" else (0,)), b + (k, n)
    return (A, mode), ((q, A._dtype), (r, A._dtype))


_SVD_DRIVERS = ("gesvd", "gesvdj", "gesvda")


def meta_linalg_svd(
    A: Tensor, full_matrices: bool = False, compute_uv: bool = True, driver: str | None = None
) -> Any:
    check_float_matrix("linalg.svd", A, square=False, kernel="linalg_svd")
    if driver is not None:
        if A._device.type == "cpu":
            raise RuntimeError(
                "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs "
                "with cuSOLVER backend."
            )
        if driver not in _SVD_DRIVERS:
            raise RuntimeError(
                f"torch.linalg.svd: Expected driver to be one of {list(_SVD_DRIVERS)}, "
                f"but got {driver!r}"
            )
    *batch, m, n = A._shape
    b = tuple(batch)
    k = min(m, n)
    s = (b + (k,), real_dtype(A._dtype))
    if not compute_uv:
        return (A, False, False, driver), (((0,), A._dtype), s, ((0,), A._dtype))
    u = b + ((m, m) if full_matrices else (m, k))
    vh = b + ((n, n) if full_matrices else (k, n))
    return (A, full_matrices, True, driver), ((u, A._dtype), s, (vh, A._dtype))


def meta_linalg_pinv(
    A: Tensor, atol: float | None = None, rtol: float | None = None, hermitian: bool = False
) -> Any:
    d = A._dtype
    if A.ndim < 2 or not (d.is_floating_point or d.is_complex) or d.itemsize == 2:
        raise RuntimeError(
            f"linalg.pinv({torch_name(d)}{{{list(A._shape)}}}): expected a tensor with 2 or more "
            "dimensions of float, double, cfloat or cdouble types"
        )
    if hermitian and A._shape[-1] != A._shape[-2]:
        raise RuntimeError(
            "linalg.pinv: A must be batches of square matrices, but they are "
            f"{A._shape[-2]} by {A._shape[-1]} matrices"
        )
    shape = A._shape[:-2] + (A._shape[-1], A._shape[-2])
    return (A, atol, rtol, hermitian), (shape, d)


def meta_linalg_cross(self: Tensor, other: Tensor, dim: int = -1) -> Any:
    if not isinstance(other, Tensor):
        raise TypeError(
            f"linalg_cross(): argument 'other' must be Tensor, not {type(other).__name__}"
        )
    if self.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if self._dtype is not other._dtype:
        raise RuntimeError(
            f"expected scalar type {torch_name(self._dtype)} but found {torch_name(other._dtype)}"
        )
    if self._dtype is dt.bool_:
        raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    d = _wrap_dim(dim, self.ndim)
    if self._shape[d] != 3 or other._shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. "
            f"Got {self._shape[d]} and {other._shape[d]}"
        )
    return (self, other, d), (broadcast(self._shape, other._shape), self._dtype)


def _refuse_low_precision(fn: str, A: Tensor, integers: bool = False) -> None:
    """PyTorch's ``NotImplementedError`` for a 16-bit float (its kernels have none), and
    for bool and integer dtypes too when ``integers``."""
    d = A._dtype
    floating = d.is_floating_point or d.is_complex
    if (floating and d.itemsize == 2) or (integers and not floating):
        raise NotImplementedError(f"\"{fn}\" not implemented for '{torch_name(d)}'")


def meta_linalg_eig(A: Tensor, compute_v: bool = True) -> Any:
    _refuse_low_precision("linalg_eig", A)
    d = A._dtype
    if A.ndim >= 2 and not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"Unknown Complex ScalarType for {torch_name(d)}")
    check_float_matrix("linalg.eig", A)
    c = complex_dtype(d)
    vectors = A._shape if compute_v else (0,)
    return (A, compute_v), ((A._shape[:-1], c), (vectors, c))


def _at_least_2d(fn: str, A: Tensor) -> None:
    if A.ndim < 2:
        raise RuntimeError(
            f"{fn}: Expected tensor with 2 or more dimensions. Got size: {list(A._shape)} instead"
        )


def meta_linalg_lu_factor_ex(A: Tensor, pivot: bool = True, check_errors: bool = False) -> Any:
    _at_least_2d("torch.lu_factor", A)
    _refuse_low_precision("linalg_lu_factor_ex", A, integers=True)
    *batch, m, n = A._shape
    b = tuple(batch)
    return (A, pivot, check_errors), (
        (A._shape, A._dtype),
        (b + (min(m, n),), dt.int32),
        (b, dt.int32),
    )


def meta_linalg_ldl_factor_ex(
    self: Tensor, hermitian: bool = False, check_errors: bool = False
) -> Any:
    fn = "torch.linalg.ldl_factor_ex"
    check_float_matrix(fn, self, kernel="ldl_factor_kernel_cpu")
    batch = self._shape[:-2]
    return (self, hermitian, check_errors), (
        (self._shape, self._dtype),
        (self._shape[:-1], dt.int32),
        (batch, dt.int32),
    )


def meta_linalg_ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, hermitian: bool = False) -> Any:
    fn = "torch.linalg.ldl_solve"
    for name, t in (("pivots", pivots), ("B", B)):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"linalg_ldl_solve(): argument '{name}' must be Tensor, not {type(t).__name__}"
            )
    check_float_matrix(fn, LD, kernel="ldl_solve_kernel_cpu")
    if pivots._shape != LD._shape[:-1]:
        raise RuntimeError(
            f"{fn}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with "
            f"shape {list(pivots._shape)} instead"
        )
    if pivots._dtype.is_floating_point or pivots._dtype.is_complex or pivots._dtype is dt.bool_:
        raise RuntimeError(f"{fn}: Expected pivots to be integers. Got {torch_name(pivots._dtype)}")
    if B.ndim < 2:
        top = max(B.ndim, 1)
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-top}, {top - 1}], but got -2)"
        )
    if B._dtype is not LD._dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {torch_name(B._dtype)}"
            f" and A of type {torch_name(LD._dtype)} instead."
        )
    n = LD._shape[-1]
    if B._shape[-2] != n:
        raise RuntimeError(
            f"Incompatible matrix sizes for {fn}: each A matrix is {n} by {n} but each b "
            f"matrix is {B._shape[-2]} by {B._shape[-1]}"
        )
    batch = broadcast(LD._shape[:-2], B._shape[:-2])
    return (LD, pivots, B, hermitian), (batch + B._shape[-2:], B._dtype)


def meta_lu_unpack(
    LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True
) -> Any:
    if not isinstance(LU_pivots, Tensor):
        raise TypeError(
            f"lu_unpack(): argument 'LU_pivots' must be Tensor, not {type(LU_pivots).__name__}"
        )
    if LU_pivots._dtype is not dt.int32:
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
            "dtype.\nNote: this function is intended to be used with the output produced by "
            "torch.linalg.lu_factor"
        )
    _at_least_2d("torch.lu_unpack", LU_data)
    *batch, m, n = LU_data._shape
    b = tuple(batch)
    k = min(m, n)
    # PyTorch reads past the pivots of another shape (a crash); this refuses them.
    if LU_pivots.ndim < 1 or LU_pivots._shape[-1] != k:
        raise RuntimeError(
            f"torch.lu_unpack: Expected LU_pivots.shape[-1] to be min(m, n) = {k} for LU_data "
            f"of shape {list(LU_data._shape)}, but got LU_pivots of shape "
            f"{list(LU_pivots._shape)}"
        )
    if unpack_pivots:
        try:
            fits = broadcast(b, LU_pivots._shape[:-1]) == b
        except RuntimeError:
            fits = False
        if not fits:
            raise RuntimeError(
                "torch.lu_unpack: Expected LU_pivots.shape[:-1] to broadcast to "
                f"LU_data.shape[:-2] = {list(b)}, but got LU_pivots of shape "
                f"{list(LU_pivots._shape)}"
            )
    d = LU_data._dtype
    empty = ((0,), d)
    p = (b + (m, m), d) if unpack_pivots else empty
    lower = (b + (m, k), d) if unpack_data else empty
    upper = (b + (k, n), d) if unpack_data else empty
    return (LU_data, LU_pivots, unpack_data, unpack_pivots), (p, lower, upper)


def meta_linalg_matrix_exp(self: Tensor) -> Any:
    fn = "linalg.matrix_exp"
    if self.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    d = self._dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(
            f"{fn}: Expected a floating point or complex tensor as input. Got {torch_name(d)}"
        )
    if self._shape[-1] != self._shape[-2]:
        raise RuntimeError(
            f"{fn}: A must be batches of square matrices, but they are "
            f"{self._shape[-2]} by {self._shape[-1]} matrices"
        )
    return (self,), (self._shape, d)
