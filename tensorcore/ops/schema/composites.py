"""Operators written with other operators (``ops/composite.py``, ``ops/composite_linalg.py``)."""

from __future__ import annotations

from typing import Any

from .. import arg_checks as AC
from ._declare import _op

# ---------------------------------------------------------------- composites (ops/composite.py)
_C = "composite"
#: The operators of the loops below that take ``out=`` (as PyTorch's do), with how the
#: ``out`` tensor's dtype must match the result's (``OpDecl.out_dtype``): PyTorch's matrix
#: functions want the result's own dtype, its pointwise ones and factories any it casts to.
_OUT = {
    "true_divide": "", "clip": "same", "square": "", "max": "several", "min": "several",
    "zeros": "", "ones": "", "rand": "", "randn": "", "randint": "", "normal": "",
    "bernoulli": "", "multinomial": "exact", "kron": "", "svd": "exact", "inverse": "exact",
    "slogdet": "exact", "cholesky_solve": "exact", "cholesky_inverse": "exact",
    "triangular_solve": "exact", "matrix_power": "exact", "lu_solve": "exact", "cross": "exact",
    "clamp_min": "same", "clamp_max": "same", "addcmul": "", "addcdiv": "", "baddbmm": "exact",
    "addbmm": "exact", "renorm": "exact", "tensordot": "exact", "linalg_eigh": "exact",
    "linalg_svd": "exact",
}  # fmt: skip


def _out(sig: str) -> dict[str, Any]:
    """The ``out``/``out_dtype`` facts of the operator ``sig`` declares, from :data:`_OUT`."""
    name = sig[: sig.index("(")]
    return {"out": name in _OUT, "out_dtype": _OUT.get(name, "")}


for _sig, _tags, _doc in [
    (
        "rsub(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "pointwise",
        "``other - alpha * self`` (what ``scalar - tensor`` runs).",
    ),
    ("true_divide(Tensor self, Tensor other) -> Tensor", "pointwise", "Alias of :func:`div`."),
    (
        "clip(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
        "pointwise",
        "Alias of :func:`clamp`.",
    ),
    ("square(Tensor self) -> Tensor", "pointwise", "``self * self`` (int64 for bool, as ``pow``)."),
    (
        "max(Tensor self, Any dim=None, bool keepdim=False) -> Any",
        "reduction",
        "Maximum of all elements; with ``dim``, (values, indices) along it; with a tensor, "
        ":func:`maximum`.",
    ),
    (
        "min(Tensor self, Any dim=None, bool keepdim=False) -> Any",
        "reduction",
        "Minimum of all elements; with ``dim``, (values, indices) along it; with a tensor, "
        ":func:`minimum`.",
    ),
    (
        "norm(Tensor self, Any p=2, int[]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
        "reduction",
        "The ``p``-norm over ``dim`` (see :func:`tensorcore.linalg.vector_norm`).",
    ),
    (
        "dist(Tensor self, Tensor other, Scalar p=2) -> Tensor",
        "reduction",
        "The ``p``-norm of ``self - other`` (broadcast), over all elements.",
    ),
    (
        "reshape(Tensor self, int... shape) -> Tensor",
        "view",
        "A view with another shape when strides allow, else a copy.",
    ),
    ("view_as(Tensor self, Tensor other) -> Tensor", "view", "``self.view(other.shape)``."),
    ("reshape_as(Tensor self, Tensor other) -> Tensor", "view", "``self.reshape(other.shape)``."),
    ("t(Tensor self) -> Tensor", "view", "Transposes a tensor of at most 2 dims."),
    (
        "movedim(Tensor self, int[] source, int[] destination) -> Tensor",
        "view",
        "Moves dims ``source`` to positions ``destination``.",
    ),
    (
        "flatten(Tensor self, int start_dim=0, int end_dim=-1) -> Tensor",
        "view",
        "Flattens dims ``start_dim..end_dim`` into one (a view when possible).",
    ),
    (
        "unflatten(Tensor self, int dim, int[] sizes) -> Tensor",
        "view",
        "Splits dim ``dim`` into ``sizes``.",
    ),
    ("expand_as(Tensor self, Tensor other) -> Tensor", "view", "``self.expand(other.shape)``."),
    ("broadcast_to(Tensor self, int[] size) -> Tensor", "view", "A view broadcast to ``size``."),
    (
        "chunk(Tensor self, int chunks, int dim=0) -> Tensor[]",
        "view",
        "Splits into ``chunks`` views of (nearly) equal size along ``dim``.",
    ),
    ("unbind(Tensor self, int dim=0) -> Tensor[]", "view", "Every slice along ``dim``, as views."),
    (
        "swapaxes(Tensor self, int axis0, int axis1) -> Tensor",
        "view",
        "Alias of :func:`transpose`.",
    ),
    ("type_as(Tensor self, Tensor other) -> Tensor", "conversion", "``self.to(other.dtype)``."),
    (
        "zeros(int... size, *, ScalarType? dtype=None, Device? device=None, bool? requires_grad=False) -> Tensor",
        "factory nondifferentiable",
        "A tensor of zeros.",
    ),
    (
        "ones(int... size, *, ScalarType? dtype=None, Device? device=None, bool? requires_grad=False) -> Tensor",
        "factory nondifferentiable",
        "A tensor of ones.",
    ),
    (
        "rand(int... size, *, Generator? generator=None, ScalarType? dtype=None, Device? device=None, "
        "bool? requires_grad=False) -> Tensor",
        "factory random nondifferentiable",
        "Uniform random numbers in ``[0, 1)``.",
    ),
    (
        "randn(int... size, *, Generator? generator=None, ScalarType? dtype=None, Device? device=None, "
        "bool? requires_grad=False) -> Tensor",
        "factory random nondifferentiable",
        "Standard normal random numbers.",
    ),
    (
        "randint(int low=0, Any high=None, Any size=None, *, Generator? generator=None, "
        "ScalarType? dtype=None, Device? device=None, bool? requires_grad=False) -> Tensor",
        "factory random nondifferentiable",
        "Random integers in ``[low, high)``; ``randint(high, size)`` starts at 0.",
    ),
    (
        "normal(Any mean, Any std, Any size=None, *, Generator? generator=None, "
        "ScalarType? dtype=None, Device? device=None, bool? requires_grad=False) -> Tensor",
        "factory random nondifferentiable",
        "Normal random numbers with the given mean and std (scalars or tensors).",
    ),
    (
        "bernoulli(Tensor self, float? p=None, *, Generator? generator=None) -> Tensor",
        "random nondifferentiable",
        "0 or 1 for each element, 1 with the probability the element holds (a float32 "
        "uniform draw below it, as PyTorch's CPU kernel); with ``p``, a tensor like ``self`` "
        "of draws of probability ``p`` (:meth:`Tensor.bernoulli_`).",
    ),
    (
        "multinomial(Tensor self, int num_samples, bool replacement=False, *, "
        "Generator? generator=None) -> Tensor",
        "random nondifferentiable",
        "Indices drawn from the categories of each row of ``self`` (non-negative weights, 1-D "
        "or 2-D), with probabilities proportional to the weights; without ``replacement`` each "
        "index appears at most once per row.",
    ),
]:
    _op(
        _sig,
        _tags + " " + _C,
        _doc,
        method="factory" not in _tags,
        function=True,
        **_out(_sig),
        inplace=_sig.startswith(("true_divide(", "clip(", "square(")),
        dtypes="f"
        if _sig.startswith("multinomial")
        else "bif"
        if _sig.startswith("bern")
        else "bifc",
        dtype_error="multinomial only supports floating-point dtypes for input, got: {dtype}"
        if _sig.startswith("multinomial")
        else "",
        check=AC.check_bernoulli
        if _sig.startswith("bern")
        else AC.check_normal
        if _sig.startswith("normal(")
        else AC.check_multinomial
        if _sig.startswith("multinomial")
        else None,
    )
_op(
    "split(Tensor self, Any split_size_or_sections, int dim=0) -> Tensor[]",
    "view " + _C,
    "Views of consecutive pieces of ``split_size`` (or of the given sizes) along ``dim``.",
    method_names="split_size_or_sections:split_size",
    node_when="split_size_or_sections=list:SplitWithSizesBackward0",
)
# Linear algebra written with other operators (``ops/composite_linalg.py``): ``linalg_*``
# are internal (``tensorcore.linalg`` names them), the others are PyTorch's top-level
# functions and methods.
_CL = "linalg composite"
#: The policies of PyTorch's CPU autocast lists for the operators declared in the loops below
#: (the others declare theirs in their own ``_op`` call).
_AUTOCAST = {
    "linalg_eigh": "fp32", "linalg_eigvalsh": "fp32", "linalg_svd": "fp32",
    "linalg_svdvals": "fp32", "linalg_lstsq": "fp32", "linalg_matrix_rank": "fp32",
    "linalg_eig": "fp32", "linalg_eigvals": "fp32", "linalg_vecdot": "lower",
    "trace": "fp32", "svd": "fp32", "inverse": "fp32", "cholesky_solve": "fp32",
    "cholesky_inverse": "fp32", "triangular_solve": "fp32", "lu_solve": "fp32",
    "pinverse": "fp32",
}  # fmt: skip
for _sig, _doc, *_more in [
    (
        'linalg_eigh(Tensor A, str UPLO="L") -> (Tensor eigenvalues, Tensor eigenvectors)',
        "Eigenvalues (ascending) and eigenvectors of each Hermitian matrix.",
    ),
    ('linalg_eigvalsh(Tensor A, str UPLO="L") -> Tensor', "Eigenvalues of Hermitian matrices."),
    (
        "linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> "
        "(Tensor U, Tensor S, Tensor Vh)",
        "The singular value decomposition ``A = U diag(S) Vh``.",
    ),
    ("linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor", "The singular values."),
    (
        "linalg_lstsq(Tensor self, Tensor b, float? rcond=None, *, str? driver=None) -> "
        "(Tensor solution, Tensor residuals, Tensor rank, Tensor singular_values)",
        "The minimum-norm least-squares solution of ``A X = B`` (from the SVD), with the "
        "outputs PyTorch's ``driver`` computes.",
    ),
    (
        'linalg_matrix_norm(Tensor A, Any ord="fro", int[] dim=[-2, -1], bool keepdim=False, '
        "*, ScalarType? dtype=None) -> Tensor",
        "The matrix norm ``ord`` ('fro', 'nuc', inf, -inf, 1, -1, 2, -2) over the dims ``dim``.",
    ),
    ("linalg_matrix_power(Tensor A, int n) -> Tensor", "``A`` to the integer power ``n``."),
    (
        "linalg_matrix_rank(Tensor A, *, float? atol=None, float? rtol=None, "
        "bool hermitian=False) -> Tensor",
        "The number of singular values above ``max(atol, rtol * max)`` (int64).",
        "nondifferentiable",
    ),
    (
        "linalg_diagonal(Tensor(a) A, *, int offset=0, int dim1=-2, int dim2=-1) -> Tensor(a)",
        "A view of the diagonals of the matrices in the last two dims.",
    ),
    (
        "linalg_eig(Tensor A) -> (Tensor eigenvalues, Tensor eigenvectors)",
        "Eigenvalues and eigenvectors (complex) of each square matrix.",
    ),
    ("linalg_eigvals(Tensor A) -> Tensor", "Eigenvalues (complex) of square matrices."),
    (
        "linalg_lu_factor(Tensor A, *, bool pivot=True) -> (Tensor LU, Tensor pivots)",
        "The packed LU factorization and its pivots; a zero on ``U``'s diagonal raises.",
    ),
    (
        "linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)",
        "The LU factorization ``A = P L U`` with partial pivoting.",
    ),
    (
        "linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, "
        "bool adjoint=False) -> Tensor",
        "The solution of ``A X = B`` (``X A = B`` when not ``left``; ``A^H`` for ``A`` when "
        "``adjoint``) given ``A``'s LU factorization.",
    ),
    (
        "linalg_multi_dot(Tensor[] tensors) -> Tensor",
        "The product of a chain of matrices, in the cheapest order.",
    ),
    (
        "linalg_vecdot(Tensor x, Tensor y, *, int dim=-1) -> Tensor",
        "``sum(conj(x) * y, dim)``, broadcast.",
    ),
]:
    _op(
        _sig, " ".join([_CL, *_more]), _doc, function=False, method=False,
        autocast=_AUTOCAST.get(_sig.split("(")[0], ""), **_out(_sig),
    )  # fmt: skip
for _sig, _doc, _method in [
    (
        "tensordot(Tensor a, Tensor b, Any dims=2) -> Tensor",
        "Contracts the last ``dims`` dims of ``a`` with the first of ``b`` (or the given "
        "pairs of dims).",
        False,
    ),
    ("trace(Tensor self) -> Tensor", "The sum of the diagonal of a matrix.", True),
    ("kron(Tensor self, Tensor other) -> Tensor", "The Kronecker product.", True),
    (
        "svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V)",
        "The singular value decomposition ``self = U diag(S) V.mH`` (deprecated: "
        ":func:`tensorcore.linalg.svd` returns ``Vh``); ``some=False`` gives full ``U`` and "
        "``V``, ``compute_uv=False`` zero-filled ones.",
        True,
    ),
    ("det(Tensor self) -> Tensor", "Alias of :func:`tensorcore.linalg.det`.", True),
    ("inverse(Tensor self) -> Tensor", "Alias of :func:`tensorcore.linalg.inv`.", True),
    (
        "slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet)",
        "Alias of :func:`tensorcore.linalg.slogdet`.",
        True,
    ),
    (
        "logdet(Tensor self) -> Tensor",
        "The log of each determinant (nan for a negative real one).",
        True,
    ),
    (
        "cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor",
        "The solution of ``A X = self`` given the Cholesky factor ``input2`` of ``A`` (lower, "
        "or upper when ``upper``).",
        True,
    ),
    (
        "cholesky_inverse(Tensor self, bool upper=False) -> Tensor",
        "The inverse of ``A`` given its Cholesky factor ``self``.",
        True,
    ),
    (
        "triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, "
        "bool unitriangular=False) -> (Tensor solution, Tensor cloned_coefficient)",
        "The solution of ``A X = self`` (``A.mT X = self`` when ``transpose``) for triangular "
        "``A``, and a copy of ``A`` (deprecated: :func:`tensorcore.linalg.solve_triangular`).",
        True,
    ),
    (
        "matrix_power(Tensor self, int n) -> Tensor",
        "Alias of :func:`tensorcore.linalg.matrix_power`.",
        True,
    ),
    (
        "matrix_exp(Tensor self) -> Tensor",
        "Alias of :func:`tensorcore.linalg.matrix_exp`.",
        True,
    ),
    (
        "lu(Tensor self, bool pivot=True, bool get_infos=False) -> Any",
        "``(LU, pivots)`` of :func:`tensorcore.linalg.lu_factor`, and ``infos`` with "
        "``get_infos`` (deprecated).",
        True,
    ),
    (
        "lu_solve(Tensor self, Tensor LU_data, Tensor LU_pivots) -> Tensor",
        "The solution of ``A X = self`` given ``A``'s LU factorization (deprecated: "
        ":func:`tensorcore.linalg.lu_solve`).",
        True,
    ),
    (
        "pinverse(Tensor self, float rcond=1e-15) -> Tensor",
        "The pseudo-inverse, with singular values below ``rcond * max`` as zero.",
        True,
    ),
    (
        "cross(Tensor self, Tensor other, int? dim=None) -> Tensor",
        "The cross product along ``dim`` (by default the first dim of size 3).",
        True,
    ),
]:
    _op(
        _sig,
        _CL,
        _doc,
        method=_method,
        autocast=_AUTOCAST.get(_sig.split("(")[0], ""),
        **_out(_sig),
    )
for _sig, _doc, _dtypes in [
    (
        "clamp_min(Tensor self, Tensor min) -> Tensor",
        "``clamp(self, min=min)``: every element at least ``min``.",
        "bif",
    ),
    (
        "clamp_max(Tensor self, Tensor max) -> Tensor",
        "``clamp(self, max=max)``: every element at most ``max``.",
        "bif",
    ),
    (
        "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
        "``self + value * tensor1 * tensor2``, broadcast.",
        "ifc",
    ),
    (
        "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
        "``self + value * tensor1 / tensor2``, broadcast (integer ``tensor1`` and ``tensor2`` "
        "are refused, as in PyTorch).",
        "fc",
    ),
]:
    _op(_sig, "pointwise composite", _doc, inplace=True, dtypes=_dtypes, **_out(_sig))
for _sig, _doc in [
    ("swapdims(Tensor self, int dim0, int dim1) -> Tensor", "Alias of :func:`transpose`."),
    ("ravel(Tensor self) -> Tensor", "The elements as a 1-D tensor (a view when possible)."),
]:
    _op(_sig, "view composite", _doc)
for _sig, _doc in [
    (
        "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) "
        "-> Tensor",
        "``beta * self + alpha * bmm(batch1, batch2)`` (``self`` ignored when ``beta`` is 0).",
    ),
    (
        "addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) "
        "-> Tensor",
        "``beta * self + alpha * sum(bmm(batch1, batch2), 0)`` (``self`` ignored when "
        "``beta`` is 0).",
    ),
]:
    _op(_sig, _CL, _doc, inplace=True, dtypes="ifc", autocast="lower", **_out(_sig))
_op(
    "cdist(Tensor x1, Tensor x2, float p=2.0, str? compute_mode=None) -> Tensor",
    _CL,
    "The ``p``-norm distance between each row of ``x1`` and each row of ``x2`` (batched); "
    "for ``p=2`` with more than 25 rows, through a matrix product (``compute_mode``).",
    method=False,
    dtypes="f",
    dtype_error="cdist only supports floating-point dtypes, X1 got: {dtype}",
    check=AC.check_cdist,
    autocast="fp32",
)
_op(
    "pdist(Tensor self, float p=2) -> Tensor",
    _CL,
    "The ``p``-norm distance between each pair of rows ``i < j`` of a 2-D ``self``, in that "
    "order: the upper triangle of ``cdist(self, self)``, flattened.",
    method=False,
    dtypes="f",
    dtype_error="pdist only supports floating-point dtypes",
    check=AC.refuses_16bit_floats("pdist", device_suffix=False),
)
_op(
    "cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor",
    _CL,
    "Cosine of the angle between ``x1`` and ``x2`` (broadcast) along ``dim``: the sum of "
    "``x1 / max(||x1||, eps)`` times ``x2 / max(||x2||, eps)``. Their common dtype must be "
    "floating point.",
    method=False,
)
_op(
    "cov(Tensor self, *, int correction=1, Tensor? fweights=None, Tensor? aweights=None) -> Tensor",
    _CL,
    "Covariance matrix of the variables in the rows of ``self`` (at most 2-D), observations "
    "in its columns: ``correction`` is subtracted from the number of observations (1: "
    "Bessel's correction), which the integer frequencies ``fweights`` and the floating "
    "``aweights`` weight.",
    dtypes="ifc",
    dtype_error="cov(): bool dtype is not supported for input",
)
_op(
    "corrcoef(Tensor self) -> Tensor",
    _CL,
    "Pearson correlation coefficients of the variables in the rows of ``self``: "
    ":func:`cov` divided by the outer product of the standard deviations, clipped to "
    "[-1, 1].",
    dtypes="ifc",
    dtype_error="cov(): bool dtype is not supported for input",
)
_op(
    "positive(Tensor self) -> Tensor",
    "pointwise composite",
    "``self`` itself (what unary ``+`` runs); refused for bool tensors, as PyTorch does.",
    dtypes="ifc",
    dtype_hint="The `+` operator, on a bool tensor is not supported.",
    autocast="fp32",
)
_op(
    "isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, "
    "bool equal_nan=False) -> Tensor",
    "pointwise composite nondifferentiable",
    "True where ``|self - other| <= atol + rtol * |other|`` (or the elements are equal), "
    "broadcast; NaNs are equal with ``equal_nan``. Both must have the same dtype.",
)
_LIKE = (
    "with the shape (and by default dtype, device and layout) of ``self``, in its memory "
    "order (``memory_format=None`` is ``preserve_format``; ``contiguous_format`` for "
    "row-major)."
)
for _n in ("empty", "zeros", "ones", "rand", "randn"):
    _op(
        f"{_n}_like(Tensor self, *, ScalarType? dtype=None, Device? device=None, "
        "bool? requires_grad=False, MemoryFormat? memory_format=None, Layout? layout=None) -> Tensor",
        "factory nondifferentiable composite",
        f"Like :func:`{_n}` {_LIKE}",
        method=False,
    )
_op(
    "full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None, "
    "bool? requires_grad=False, MemoryFormat? memory_format=None, Layout? layout=None) -> Tensor",
    "factory nondifferentiable composite",
    f"Like :func:`full` {_LIKE}",
    method=False,
)
_op(
    "renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor",
    "linalg composite",
    "Each sub-tensor ``self.select(dim, i)`` whose ``p``-norm exceeds ``maxnorm`` scaled "
    "down to norm ``maxnorm`` (by ``maxnorm / (norm + 1e-7)``); the others unchanged.",
    inplace=True,
)
