"""Linear algebra: products, and the decompositions and solvers of ``tensorcore.linalg``."""

from __future__ import annotations

from typing import Any

from .. import arg_checks as AC
from .. import meta_linalg as ML
from .. import meta_products as MP
from ._declare import _op

# ---------------------------------------------------------------- linear algebra
_L = "linalg"

#: PyTorch's last node of a ``matmul`` by the operands' ranks: the product it dispatches to
#: (``MmBackward0``), or the view that unfolds a batched or broadcast product.
_MATMUL_NODES = {
    (1, 1): "DotBackward0",
    (2, 1): "MvBackward0",
    (1, 2): "SqueezeBackward4",
    (2, 2): "MmBackward0",
    (2, 3): "CloneBackward0",
}


def _matmul_node(args: tuple[Any, ...]) -> str:
    a, b = args[0], args[1]
    return _MATMUL_NODES.get((len(a.shape), len(b.shape)), "UnsafeViewBackward0")


_op(
    "matmul(Tensor self, Tensor other) -> Tensor",
    _L,
    "Matrix product with NumPy's batching and broadcasting rules.",
    frontend="structured",
    out_dtype="exact",
    meta_function=MP.meta_matmul,
    out=True,
    dtypes="ifc",
    autocast="lower",
    node_when=_matmul_node,
)
_op(
    "mm(Tensor self, Tensor mat2) -> Tensor",
    _L,
    "Product of two matrices.",
    frontend="structured",
    out_dtype="exact",
    meta_function=MP.meta_mm,
    out=True,
    dtypes="ifc",
    autocast="lower",
)
_op(
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    _L,
    "``beta * self + alpha * (mat1 @ mat2)``, ``self`` broadcast to the product's shape "
    "(what ``linear`` with a bias runs: one pass less than a product and an add).",
    frontend="structured",
    out_dtype="exact",
    meta_function=MP.meta_addmm,
    out=True,
    dtypes="ifc",
    autocast="lower",
)
_op(
    "bmm(Tensor self, Tensor mat2) -> Tensor",
    _L,
    "Batched product of 3-D tensors.",
    frontend="structured",
    out_dtype="exact",
    meta_function=MP.meta_bmm,
    out=True,
    dtypes="ifc",
    autocast="lower",
)
_op(
    "mv(Tensor self, Tensor vec) -> Tensor",
    _L,
    "Matrix-vector product.",
    frontend="structured",
    meta_function=MP.meta_mv,
    out=True,
    dtypes="ifc",
)
_op(
    "dot(Tensor self, Tensor tensor) -> Tensor",
    _L,
    "Dot product of two 1-D tensors.",
    frontend="structured",
    meta_function=MP.meta_dot,
    out=True,
    dtypes="ifc",
)
_op(
    "outer(Tensor self, Tensor vec2) -> Tensor",
    _L,
    "Outer product of two 1-D tensors.",
    frontend="structured",
    meta_function=MP.meta_outer,
    out=True,
    node="MulBackward0",  # (PyTorch's outer multiplies two broadcast views)
)
_op(
    "addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    _L,
    "``beta * self + alpha * (mat @ vec)``, ``self`` (a vector or a number) broadcast to the "
    "product's length; ``self`` is ignored when ``beta`` is 0, NaN and inf included.",
    frontend="structured",
    out_dtype="exact",
    meta_function=MP.meta_addmv,
    inplace=True,
    out=True,
    dtypes="ifc",
    autocast="lower",
)
_op(
    "addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    _L,
    "``beta * self + alpha * outer(vec1, vec2)``, ``self`` broadcast to the outer product's "
    "shape, the dtypes promoted; ``self`` is ignored when ``beta`` is 0 (for bool tensors: "
    "``beta and self or alpha and outer``).",
    frontend="structured",
    meta_function=MP.meta_addr,
    inplace=True,
    out=True,
    autocast="lower",
)
_op(
    "einsum(str equation, Tensor... operands) -> Tensor",
    _L,
    "Einstein summation over the operands (also in PyTorch's sublist form, "
    "``einsum(a, [0, 1], b, [1, 2], [0, 2])``).",
    method=False,
    convert=AC.einsum_sublists,
    autocast="lower",
)

# The decompositions and solvers of ``tensorcore.linalg``: declared with PyTorch's native names
# (``linalg_inv`` is ``torch.linalg.inv``), as internal operators (no ``tensorcore.<name>``);
# ``tensorcore/linalg.py`` gives them their public names and docs. They check their dtypes in
# the meta function, with PyTorch's RuntimeError (``Expected a floating point or complex
# tensor as input. Got Long``), so they declare every dtype here.
_LX: dict[str, Any] = {"frontend": "structured", "function": False, "method": False}
_op(
    "linalg_inv(Tensor A) -> Tensor",
    _L,
    "The inverse of each square matrix (LinAlgError for a singular one).",
    meta_function=ML.meta_linalg_inv,
    node="LinalgInvExBackward0",  # (PyTorch computes it with linalg_inv_ex)
    out=True,
    out_dtype="exact",
    **_LX,
    autocast="fp32",
)
_op(
    "linalg_det(Tensor A) -> Tensor",
    _L,
    "The determinant of each square matrix.",
    meta_function=ML.meta_linalg_det,
    out=True,
    out_dtype="exact",
    **_LX,
    autocast="fp32",
)
_op(
    "linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)",
    _L,
    "The sign (a unit complex number for complex input) and log of the absolute value of "
    "each determinant.",
    meta_function=ML.meta_linalg_slogdet,
    out=True,
    out_dtype="exact",
    **_LX,
    autocast="fp32",
)
_op(
    "linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor",
    _L,
    "The solution ``X`` of ``A X = B`` (``X A = B`` when not ``left``); ``B`` is a batch of "
    "vectors when 1-D or shaped as ``A`` without its last dim.",
    meta_function=ML.meta_linalg_solve,
    node="LinalgSolveExBackward0",  # (PyTorch computes it with linalg_solve_ex)
    out=True,
    out_dtype="exact",
    **_LX,
    autocast="fp32",
)
_op(
    "linalg_solve_triangular(Tensor self, Tensor B, bool upper, bool left=True, "
    "bool unitriangular=False) -> Tensor",
    _L,
    "The solution ``X`` of ``A X = B`` (``X A = B`` when not ``left``) for triangular "
    "``A``, read from its upper or lower triangle (with a unit diagonal when "
    "``unitriangular``), in the promoted dtype of ``A`` and ``B``; the batch dims broadcast.",
    meta_function=ML.meta_linalg_solve_triangular,
    out=True,
    out_dtype="exact",
    **_LX,
)
_op(
    "linalg_cholesky(Tensor A, *, bool upper=False) -> Tensor",
    _L,
    "The Cholesky factor of each Hermitian positive-definite matrix (read from its lower "
    "triangle; the upper one when ``upper``).",
    meta_function=ML.meta_linalg_cholesky,
    node="LinalgCholeskyExBackward0",  # (PyTorch computes it with linalg_cholesky_ex)
    out=True,
    out_dtype="exact",
    **_LX,
    autocast="fp32",
)
_op(
    '_linalg_eigh(Tensor A, str UPLO="L", bool compute_v=True) -> '
    "(Tensor eigenvalues, Tensor eigenvectors)",
    _L,
    "Eigenvalues (ascending) and, when ``compute_v``, eigenvectors of each Hermitian matrix, "
    "read from the triangle ``UPLO``.",
    meta_function=ML.meta_linalg_eigh,
    **_LX,
    autocast="fp32",
)
_op(
    'linalg_qr(Tensor A, str mode="reduced") -> (Tensor Q, Tensor R)',
    _L,
    "The QR decomposition (``mode`` 'reduced', 'complete' or 'r').",
    meta_function=ML.meta_linalg_qr,
    out=True,
    out_dtype="exact",
    **_LX,
    autocast="fp32",
)
_op(
    "_linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, "
    "str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)",
    _L,
    "The singular value decomposition; only ``S`` when not ``compute_uv``.",
    meta_function=ML.meta_linalg_svd,
    **_LX,
    autocast="fp32",
)
_op(
    "linalg_pinv(Tensor A, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor",
    _L,
    "The Moore-Penrose pseudo-inverse (singular values at most ``max(atol, rtol * max)`` "
    "count as zero).",
    meta_function=ML.meta_linalg_pinv,
    out=True,
    **_LX,
    autocast="fp32",
)
_op(
    "linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor",
    _L,
    "The cross product of 3-vectors along ``dim``, broadcasting the other dims.",
    meta_function=ML.meta_linalg_cross,
    out=True,
    out_dtype="exact",
    **_LX,
)
_op(
    "_linalg_eig(Tensor A, bool compute_v=True) -> (Tensor eigenvalues, Tensor eigenvectors)",
    _L,
    "Eigenvalues and, when ``compute_v``, eigenvectors (norm 1) of each square matrix, "
    "complex even for real input.",
    meta_function=ML.meta_linalg_eig,
    **_LX,
    autocast="fp32",
)
_op(
    "linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False) -> "
    "(Tensor LU, Tensor pivots, Tensor info)",
    _L,
    "The LU factorization with partial pivoting, packed (``L - I + U``), with the 1-based "
    "int32 row interchanges and LAPACK's ``info``.",
    meta_function=ML.meta_linalg_lu_factor_ex,
    out=True,
    out_dtype="exact",
    **_LX,
)
_op(
    "linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False) -> "
    "(Tensor LD, Tensor pivots, Tensor info)",
    _L + " backward_not_implemented",
    "The LDL (Bunch-Kaufman) factorization of symmetric or Hermitian matrices, read from "
    "their lower triangles, in LAPACK's ``sytrf`` format: ``LD`` packs ``L`` and the block "
    "diagonal ``D``, with the 1-based int32 pivots and LAPACK's ``info``.",
    meta_function=ML.meta_linalg_ldl_factor_ex,
    out=True,
    out_dtype="exact",
    node="NotImplemented",
    **_LX,
)
_op(
    "linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False) -> Tensor",
    _L + " backward_not_implemented",
    "Solves ``A X = B`` from the LDL factorization of ``A`` (:func:`linalg_ldl_factor_ex`'s "
    "``LD`` and ``pivots``), broadcasting the batch dims.",
    meta_function=ML.meta_linalg_ldl_solve,
    out=True,
    out_dtype="exact",
    node="NotImplemented",
    **_LX,
)
_op(
    "linalg_matrix_exp(Tensor self) -> Tensor",
    _L,
    "The matrix exponential of each square matrix.",
    meta_function=ML.meta_linalg_matrix_exp,
    **_LX,
)
_op(
    "lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, "
    "bool unpack_pivots=True) -> (Tensor P, Tensor L, Tensor U)",
    _L,
    "``P``, ``L`` and ``U`` of a packed LU factorization (``A = P L U``); a factor not "
    "unpacked is empty.",
    frontend="structured",
    meta_function=ML.meta_lu_unpack,
    method=False,
    out=True,
)
