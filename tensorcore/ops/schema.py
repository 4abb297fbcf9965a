"""THE operator table: one declaration per operator.

Everything else derives from these declarations: the ``tensorcore.<op>`` functions and
``Tensor`` methods (``ops/_api.py``), their in-place ``op_`` and ``out=`` variants, the
dispatch entries a backend fills in, the derivative table's keys and ``docs/operators.md``.

A declaration gives the PyTorch-style signature, a set of tags from :data:`TAGS`, a one-line
summary, and -- for structured operators -- how the core computes the result's shape and
dtype before the kernel runs (``meta``), so a backend writes only the computation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._signature import Signature, parse_signature

__all__ = ["DTYPE_CATEGORIES", "FRONTEND_KINDS", "OPS", "PROMOTIONS", "TAGS", "OpDecl"]

#: The closed set of tags.
TAGS = frozenset(
    {
        "pointwise",  # elementwise with broadcasting and type promotion
        "reduction",  # reduces or scans over dims
        "view",  # result shares the input's storage
        "factory",  # makes a tensor from no tensor input
        "composite",  # written with other operators in ops/composite.py
        "inplace",  # mutates its first argument
        "nondifferentiable",  # no derivative rule (integer/bool results, random, ...)
        "linalg",
        "shape",
        "indexing",
        "conversion",
        "random",
    }
)
#: How the core prepares a call before the kernel runs; see ``ops/frontends.py``.
#: ``pointwise``/``reduction``/``structured``: the core allocates the output and the kernel
#: is called as ``kernel(out, *args)``; ``direct``: ``kernel(*args)`` returns the result.
FRONTEND_KINDS = frozenset({"pointwise", "reduction", "structured", "factory", "unstructured"})
#: The dtype categories an operator may support (``dtypes=``): bool, integer, floating, complex.
DTYPE_CATEGORIES = "bifc"
#: Result-dtype policies of pointwise operators (``promote=``) and reductions.
PROMOTIONS = frozenset(
    {"same", "float", "bool", "int", "real", "sum", "index", "float_only", "none"}
)


@dataclass(frozen=True)
class OpDecl:
    """One operator. ``inplace``/``out`` say whether the ``op_`` and ``out=`` variants exist.

    ``dtypes`` lists the dtype categories (letters of :data:`DTYPE_CATEGORIES`) the operator
    computes in, as PyTorch supports them: the frontends refuse any other with PyTorch's
    ``NotImplementedError`` (``"floor" not implemented for 'ComplexFloat'``) before a kernel
    runs. The dtype checked is the promoted compute dtype of a pointwise operator, else the
    ``dtype`` argument when one is given, else the first tensor argument's dtype.
    """

    signature: str
    tags: frozenset[str]
    doc: str
    frontend: str = "unstructured"
    promote: str = "same"
    method: bool = True
    function: bool = True
    inplace: bool = False
    out: bool = False
    #: Tensor parameters that also take a Python scalar (every one of a pointwise operator).
    scalars: str = ""
    dtypes: str = DTYPE_CATEGORIES
    #: What the user can do instead, added to the error for a dtype outside ``dtypes``.
    dtype_hint: str = ""
    #: The tensor parameters whose dtypes decide a pointwise operator's compute dtype (all of
    #: them when empty; ``where``'s condition and ``lerp``'s weight take no part).
    promote_args: str = ""
    #: Parameters whose numbers are stored in (or compared with) the operator's dtype: a
    #: Python number that overflows that dtype is refused, as PyTorch's checked conversion of
    #: a ``Scalar`` does (``int8.fill_(300)``, ``int64.masked_fill_(m, nan)``). In a tensor
    #: position of a pointwise operator only integers are checked (a float that overflows
    #: the compute dtype rounds to inf: ``clamp(half, max=1e6)`` is a no-op).
    values: str = ""
    #: Python scalars meeting 16-bit float tensors keep float32 precision (PyTorch's
    #: ``opmath`` scalars of ``mul``, ``div``, ``floor_divide`` and ``lerp``), instead of
    #: being rounded to the compute dtype first (``tensorcore/_scalars.py``).
    opmath_scalars: bool = False
    parsed: Signature = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "parsed", parse_signature(self.signature))
        bad = self.tags - TAGS
        if bad:
            raise ValueError(f"{self.name}: unknown tags {sorted(bad)}")
        if self.frontend not in FRONTEND_KINDS:
            raise ValueError(f"{self.name}: unknown frontend {self.frontend!r}")
        if self.promote not in PROMOTIONS:
            raise ValueError(f"{self.name}: unknown promotion {self.promote!r}")
        if not self.dtypes or set(self.dtypes) - set(DTYPE_CATEGORIES):
            raise ValueError(f"{self.name}: dtypes must be letters of 'bifc', not {self.dtypes!r}")
        for field_name in ("scalars", "values", "promote_args"):
            for p in getattr(self, field_name).split():
                if self.param(p) < 0:
                    raise ValueError(f"{self.name}: {field_name} names no parameter {p!r}")

    @property
    def name(self) -> str:
        return self.parsed.name

    @property
    def differentiable(self) -> bool:
        return "nondifferentiable" not in self.tags

    @property
    def scalar_params(self) -> frozenset[str]:
        """Names of the tensor parameters that also take a Python scalar."""
        if "pointwise" in self.tags:
            return frozenset(self.parsed.params[i].name for i in self.parsed.tensor_positions)
        return frozenset(self.scalars.split())

    def param(self, name: str) -> int:
        """Position of parameter ``name``; -1 when absent."""
        for i, p in enumerate(self.parsed.params):
            if p.name == name:
                return i
        return -1


OPS: dict[str, OpDecl] = {}


def _op(signature: str, tags: str, doc: str, **kw: Any) -> None:
    decl = OpDecl(signature, frozenset(tags.split()), doc, **kw)
    if decl.name in OPS:
        raise ValueError(f"operator {decl.name} declared twice")
    OPS[decl.name] = decl


def _unary(
    name: str,
    doc: str,
    promote: str = "same",
    tags: str = "",
    inplace: bool = True,
    dtypes: str = DTYPE_CATEGORIES,
    dtype_hint: str = "",
) -> None:
    _op(
        f"{name}(Tensor self) -> Tensor",
        "pointwise " + tags,
        doc,
        frontend="pointwise",
        promote=promote,
        inplace=inplace,
        out=True,
        dtypes=dtypes,
        dtype_hint=dtype_hint,
    )


def _binary(
    name: str,
    doc: str,
    promote: str = "same",
    tags: str = "",
    extra: str = "",
    dtypes: str = DTYPE_CATEGORIES,
    dtype_hint: str = "",
    opmath_scalars: bool = False,
    values: str = "",
) -> None:
    _op(
        f"{name}(Tensor self, Tensor other{extra}) -> Tensor",
        "pointwise " + tags,
        doc,
        frontend="pointwise",
        opmath_scalars=opmath_scalars,
        values=values,
        promote=promote,
        dtypes=dtypes,
        dtype_hint=dtype_hint,
        # Comparisons have in-place forms too (``x.lt_(y)`` stores 0/1 in x's dtype).
        inplace=True,
        out=True,
    )


# ---------------------------------------------------------------- pointwise
_binary("add", "Adds ``other``, scaled by ``alpha``, to ``self``.", extra=", *, Scalar alpha=1")
_binary(
    "sub",
    "Subtracts ``other``, scaled by ``alpha``, from ``self``.",
    extra=", *, Scalar alpha=1",
    dtypes="ifc",
    dtype_hint="Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
    "trying to invert a mask, use the `~` or `logical_not()` operator instead.",
)
_binary("mul", "Multiplies ``self`` by ``other`` elementwise.", opmath_scalars=True)
_binary(
    "div",
    "Divides ``self`` by ``other``; ``rounding_mode`` is None, 'trunc' or 'floor'.",
    promote="float",
    extra=", *, str? rounding_mode=None",
    opmath_scalars=True,
)
_binary(
    "floor_divide",
    "Divides and rounds down to the nearest integer.",
    tags="nondifferentiable",
    opmath_scalars=True,
    dtypes="if",
)
_binary("remainder", "Python-style modulus: the result has the sign of the divisor.", dtypes="if")
_binary("fmod", "C-style modulus: the result has the sign of the dividend.", dtypes="if")
_binary("pow", "Raises ``self`` to the power ``other``.", dtypes="ifc", values="other")
_binary(
    "atan2",
    "Elementwise arctangent of ``self / other`` with quadrant.",
    promote="float",
    dtypes="bif",
)
_binary("maximum", "Elementwise maximum (NaN propagates).", dtypes="bif")
_binary("minimum", "Elementwise minimum (NaN propagates).", dtypes="bif")
for _n, _d in [("eq", "=="), ("ne", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">=")]:
    _binary(
        _n,
        f"Elementwise ``self {_d} other`` as a bool tensor.",
        promote="bool",
        tags="nondifferentiable",
        # Complex numbers have no order.
        dtypes="bifc" if _n in ("eq", "ne") else "bif",
    )
for _n in ("logical_and", "logical_or", "logical_xor"):
    _binary(
        _n,
        f"Elementwise {_n.split('_')[1]} of the truth values.",
        promote="bool",
        tags="nondifferentiable",
    )
for _n in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"):
    _binary(
        _n,
        f"Elementwise {_n.replace('_', ' ')} of integer or bool tensors.",
        promote="int",
        tags="nondifferentiable",
    )

_unary(
    "neg",
    "Negates each element.",
    dtypes="ifc",
    dtype_hint="Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
    "to invert a mask, use the `~` or `logical_not()` operator instead.",
)
_unary("abs", "Absolute value (the magnitude for complex input).", promote="real", dtypes="ifc")
_unary("sign", "The sign of each element (-1, 0 or 1).", dtypes="bif")
_unary("reciprocal", "``1 / self`` elementwise.", promote="float")
for _n, _d in [
    ("exp", "e to the power of each element."),
    ("exp2", "2 to the power of each element."),
    ("expm1", "``exp(x) - 1``, accurate near zero."),
    ("log", "Natural logarithm."),
    ("log2", "Base-2 logarithm."),
    ("log10", "Base-10 logarithm."),
    ("log1p", "``log(1 + x)``, accurate near zero."),
    ("sqrt", "Square root."),
    ("rsqrt", "Reciprocal of the square root."),
    ("sin", "Sine."),
    ("cos", "Cosine."),
    ("tan", "Tangent."),
    ("asin", "Arcsine."),
    ("acos", "Arccosine."),
    ("atan", "Arctangent."),
    ("sinh", "Hyperbolic sine."),
    ("cosh", "Hyperbolic cosine."),
    ("tanh", "Hyperbolic tangent."),
    ("sigmoid", "Logistic sigmoid ``1 / (1 + exp(-x))``."),
]:
    _unary(_n, _d, promote="float")
_unary("relu", "``max(x, 0)`` elementwise.", dtypes="if")
# Fused backward operators: one pass where the derivative rule would take two or three
# (the hot path of every backward through an activation), differentiable themselves.
for _n, _sig, _d in [
    (
        "tanh_backward",
        "Tensor grad_output, Tensor output",
        "The gradient of ``tanh``: ``grad_output * conj(1 - output**2)``.",
    ),
    (
        "sigmoid_backward",
        "Tensor grad_output, Tensor output",
        "The gradient of ``sigmoid``: ``grad_output * conj(output * (1 - output))``.",
    ),
    (
        "threshold_backward",
        "Tensor grad_output, Tensor self, Scalar threshold",
        "The gradient of ``relu``/``threshold``: ``grad_output * (self > threshold)``.",
    ),
]:
    _op(
        f"{_n}({_sig}) -> Tensor",
        "pointwise",
        _d,
        frontend="pointwise",
        out=True,
        method=False,
        dtypes="if" if _n == "threshold_backward" else "fc",
        values="threshold" if _n == "threshold_backward" else "",
    )
_unary(
    "conj",
    "The complex conjugate, as a new tensor (PyTorch returns a lazily conjugated view); "
    "a copy of a real tensor.",
    inplace=False,
)
_unary("floor", "Rounds down to an integer value.", dtypes="if")
_unary("ceil", "Rounds up to an integer value.", dtypes="if")
_unary("trunc", "Rounds towards zero.", dtypes="if")
_op(
    "round(Tensor self, *, int decimals=0) -> Tensor",
    "pointwise",
    "Rounds half to even, to ``decimals`` decimal places.",
    frontend="pointwise",
    inplace=True,
    out=True,
    dtypes="if",
)
# PyTorch has no isnan_ / isinf_ / isfinite_.
for _n, _d in [
    ("isnan", "True where the element is NaN."),
    ("isinf", "True where the element is infinite."),
    ("isfinite", "True where the element is finite."),
]:
    _unary(_n, _d, promote="bool", tags="nondifferentiable", inplace=False)
_unary("logical_not", "Elementwise logical negation.", promote="bool", tags="nondifferentiable")
_unary(
    "bitwise_not",
    "Elementwise bitwise NOT of integer or bool tensors.",
    promote="int",
    tags="nondifferentiable",
)
_op(
    "nan_to_num(Tensor self, float? nan=0.0, float? posinf=None, float? neginf=None) -> Tensor",
    "pointwise",
    "Replaces NaN and infinities with finite numbers.",
    frontend="pointwise",
    inplace=True,
    out=True,
)
_op(
    "clamp(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
    "pointwise",
    "Clamps every element into ``[min, max]``.",
    frontend="pointwise",
    inplace=True,
    out=True,
    dtypes="if",
    values="min max",
)
_op(
    "where(Tensor condition, Tensor self, Tensor other) -> Tensor",
    "pointwise",
    "Takes ``self`` where ``condition`` is true and ``other`` elsewhere.",
    frontend="pointwise",
    out=True,
    method=False,
    promote_args="self other",
    values="self other",
)
_op(
    "lerp(Tensor self, Tensor end, Tensor weight) -> Tensor",
    "pointwise",
    "Linear interpolation ``self + weight * (end - self)``.",
    frontend="pointwise",
    promote_args="self end",
    opmath_scalars=True,
    inplace=True,
    out=True,
    dtypes="fc",
)

# ---------------------------------------------------------------- reductions and scans
_R = "reduction"
_op(
    "sum(Tensor self, int[]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    _R,
    "Sum over ``dim`` (all dims when None).",
    frontend="reduction",
    promote="sum",
    out=True,
)
_op(
    "mean(Tensor self, int[]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    _R,
    "Mean over ``dim``.",
    frontend="reduction",
    promote="float_only",
    out=True,
)
_op(
    "prod(Tensor self, int[]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    _R,
    "Product over ``dim``.",
    frontend="reduction",
    promote="sum",
    out=True,
)
_op(
    "amax(Tensor self, int[] dim=[], bool keepdim=False) -> Tensor",
    _R,
    "Maximum over ``dim`` (all dims when empty).",
    frontend="reduction",
    out=True,
    dtypes="bif",
)
_op(
    "amin(Tensor self, int[] dim=[], bool keepdim=False) -> Tensor",
    _R,
    "Minimum over ``dim`` (all dims when empty).",
    frontend="reduction",
    out=True,
    dtypes="bif",
)
_op(
    "max_dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    _R,
    "Maximum values and their indices along ``dim``.",
    frontend="reduction",
    promote="none",
    method=False,
    function=False,
    dtypes="bif",
)
_op(
    "min_dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    _R,
    "Minimum values and their indices along ``dim``.",
    frontend="reduction",
    promote="none",
    method=False,
    function=False,
    dtypes="bif",
)
_op(
    "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    _R + " nondifferentiable",
    "Index of the maximum (of the flattened tensor when ``dim`` is None).",
    frontend="reduction",
    promote="index",
    out=True,
    dtypes="if",
)
_op(
    "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    _R + " nondifferentiable",
    "Index of the minimum (of the flattened tensor when ``dim`` is None).",
    frontend="reduction",
    promote="index",
    out=True,
    dtypes="if",
)
_op(
    "var(Tensor self, int[]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
    _R,
    "Variance over ``dim`` with Bessel's ``correction`` (default 1).",
    frontend="reduction",
    promote="float_only",
    out=True,
)
_op(
    "std(Tensor self, int[]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
    _R,
    "Standard deviation over ``dim`` with ``correction`` (default 1).",
    frontend="reduction",
    promote="float_only",
    out=True,
)
_op(
    "vector_norm(Tensor self, float ord=2.0, int[]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor",
    _R,
    "Vector ``ord``-norm over ``dim``.",
    frontend="reduction",
    promote="float_only",
    method=False,
    out=True,
)
_op(
    "logsumexp(Tensor self, int[] dim, bool keepdim=False) -> Tensor",
    _R,
    "``log(sum(exp(self)))`` over ``dim``, computed stably.",
    frontend="reduction",
    promote="float",
    out=True,
)
_op(
    "all(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
    _R + " nondifferentiable",
    "True when every element over ``dim`` is true.",
    frontend="reduction",
    promote="bool",
    out=True,
)
_op(
    "any(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
    _R + " nondifferentiable",
    "True when some element over ``dim`` is true.",
    frontend="reduction",
    promote="bool",
    out=True,
)
_op(
    "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    _R,
    "Cumulative sum along ``dim``.",
    frontend="structured",
    promote="sum",
    inplace=True,
    out=True,
)
_op(
    "cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    _R,
    "Cumulative product along ``dim``.",
    frontend="structured",
    promote="sum",
    inplace=True,
    out=True,
)
_op(
    "softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    _R,
    "Softmax along ``dim``.",
    frontend="structured",
    promote="float",
    dtypes="f",
)
_op(
    "log_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    _R,
    "Log of the softmax along ``dim``, computed stably.",
    frontend="structured",
    promote="float",
    dtypes="f",
)
# The backward of softmax and log_softmax as one kernel each (PyTorch's names), and the
# negative log-likelihood loss with its backward: the end of every classifier's graph.
_op(
    "_softmax_backward_data(Tensor grad_output, Tensor output, int dim) -> Tensor",
    _R,
    "The gradient of ``softmax``: "
    "``output * (grad_output - (grad_output * output).sum(dim, keepdim=True))``.",
    frontend="structured",
    method=False,
    dtypes="f",
)
_op(
    "_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim) -> Tensor",
    _R,
    "The gradient of ``log_softmax``: "
    "``grad_output - output.exp() * grad_output.sum(dim, keepdim=True)``.",
    frontend="structured",
    method=False,
    dtypes="f",
)
_op(
    'nll_loss(Tensor self, Tensor target, str reduction="mean") -> Tensor',
    _R,
    "Negative log-likelihood of the log-probabilities ``self`` (N, C) at the class indices "
    "``target`` (N,), reduced by ``reduction`` ('mean', 'sum' or 'none').",
    frontend="structured",
    method=False,
    dtypes="f",
)
_op(
    'nll_loss_backward(Tensor grad_output, Tensor target, int num_classes, str reduction="mean")'
    " -> Tensor",
    _R,
    "The gradient of ``nll_loss`` with respect to its (N, ``num_classes``) input.",
    frontend="structured",
    method=False,
)
_op(
    "sort(Tensor self, int dim=-1, bool descending=False, *, bool? stable=False) -> "
    "(Tensor values, Tensor indices)",
    _R,
    "Sorts along ``dim``; returns values and indices.",
    frontend="structured",
    promote="none",
    out=True,
    dtypes="bif",
)
_op(
    "argsort(Tensor self, int dim=-1, bool descending=False, *, bool? stable=False) -> Tensor",
    _R + " nondifferentiable",
    "Indices that sort ``self`` along ``dim``.",
    frontend="structured",
    promote="index",
    dtypes="bif",
)
_op(
    "topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> "
    "(Tensor values, Tensor indices)",
    _R,
    "The ``k`` largest (or smallest) along ``dim``.",
    frontend="structured",
    promote="none",
    out=True,
    dtypes="if",
)

# ---------------------------------------------------------------- linear algebra
_L = "linalg"
_op(
    "matmul(Tensor self, Tensor other) -> Tensor",
    _L,
    "Matrix product with NumPy's batching and broadcasting rules.",
    frontend="structured",
    out=True,
    dtypes="ifc",
)
_op(
    "mm(Tensor self, Tensor mat2) -> Tensor",
    _L,
    "Product of two matrices.",
    frontend="structured",
    out=True,
    dtypes="ifc",
)
_op(
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    _L,
    "``beta * self + alpha * (mat1 @ mat2)``, ``self`` broadcast to the product's shape "
    "(what ``linear`` with a bias runs: one pass less than a product and an add).",
    frontend="structured",
    out=True,
    dtypes="ifc",
)
_op(
    "bmm(Tensor self, Tensor mat2) -> Tensor",
    _L,
    "Batched product of 3-D tensors.",
    frontend="structured",
    out=True,
    dtypes="ifc",
)
_op(
    "mv(Tensor self, Tensor vec) -> Tensor",
    _L,
    "Matrix-vector product.",
    frontend="structured",
    out=True,
    dtypes="ifc",
)
_op(
    "dot(Tensor self, Tensor tensor) -> Tensor",
    _L,
    "Dot product of two 1-D tensors.",
    frontend="structured",
    out=True,
    dtypes="ifc",
)
_op(
    "outer(Tensor self, Tensor vec2) -> Tensor",
    _L,
    "Outer product of two 1-D tensors.",
    frontend="structured",
    out=True,
)
_op(
    "einsum(str equation, Tensor... operands) -> Tensor",
    _L,
    "Einstein summation over the operands.",
    method=False,
)

# ---------------------------------------------------------------- shape and indexing
_S = "shape"
_op(
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    _S,
    "Concatenates along an existing dim.",
    frontend="structured",
    method=False,
    out=True,
)
_op(
    "stack(Tensor[] tensors, int dim=0) -> Tensor",
    _S + " composite",
    "Stacks along a new dim.",
    method=False,
)
_op(
    "flip(Tensor self, int[] dims) -> Tensor",
    _S,
    "Reverses the order along ``dims``.",
    frontend="structured",
)
_op(
    "roll(Tensor self, int[] shifts, int[]? dims=None) -> Tensor",
    _S,
    "Rolls elements along ``dims`` (of the flattened tensor when None).",
    frontend="structured",
)
_op(
    "repeat(Tensor self, int... repeats) -> Tensor",
    _S,
    "Repeats the tensor along each dim (like NumPy's tile).",
    frontend="structured",
    function=False,
)
_op("tile(Tensor self, int[] dims) -> Tensor", _S + " composite", "Repeats like NumPy's tile.")
_op(
    "tril(Tensor self, int diagonal=0) -> Tensor",
    _S,
    "Lower triangle of the last two dims.",
    frontend="structured",
    inplace=True,
    out=True,
)
_op(
    "triu(Tensor self, int diagonal=0) -> Tensor",
    _S,
    "Upper triangle of the last two dims.",
    frontend="structured",
    inplace=True,
    out=True,
)
_op(
    "gather(Tensor self, int dim, Tensor index) -> Tensor",
    "indexing",
    "Picks values along ``dim`` at ``index``.",
    frontend="structured",
    out=True,
)
_op(
    "scatter(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    "indexing",
    "Copy of ``self`` with ``src`` (a tensor or a number) written at ``index`` along ``dim``.",
    frontend="structured",
    inplace=True,
    scalars="src",
    values="src",
)
_op(
    "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    "indexing",
    "Copy of ``self`` with ``src`` added at ``index`` along ``dim``.",
    frontend="structured",
    inplace=True,
)
_op(
    "index_select(Tensor self, int dim, Tensor index) -> Tensor",
    "indexing",
    "Selects the entries ``index`` along ``dim``.",
    frontend="structured",
    out=True,
)
_op(
    "masked_fill(Tensor self, Tensor mask, Tensor value) -> Tensor",
    "indexing",
    "Copy of ``self`` with ``value`` (a 0-d tensor or a number) where ``mask`` is true.",
    frontend="structured",
    inplace=True,
    scalars="value",
    values="value",
)
_op(
    "index(Tensor self, Tensor?[] indices) -> Tensor",
    "indexing",
    "Advanced (integer/boolean) indexing; what ``x[idx]`` runs for tensor indices.",
    method=False,
    function=False,
)
_op(
    "index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor",
    "indexing",
    "Copy of ``self`` with ``values`` written at advanced ``indices``.",
    frontend="structured",
    inplace=True,
)
_op(
    "nonzero(Tensor self) -> Tensor",
    "indexing nondifferentiable",
    "Indices of the non-zero elements, one row per element.",
)

# ---------------------------------------------------------------- views (core arithmetic)
_V = "view"
_op(
    "view(Tensor(a) self, int... size) -> Tensor(a)",
    _V,
    "A view with another shape.",
    function=False,
)
_op(
    "as_strided(Tensor(a) self, int[] size, int[] stride, int? storage_offset=None) -> Tensor(a)",
    _V,
    "A view with the given sizes, strides and storage offset.",
)
_op(
    "expand(Tensor(a) self, int... size) -> Tensor(a)",
    _V,
    "A view broadcast to ``size`` (-1 keeps a dim); new entries have stride 0.",
    function=False,
)
_op("transpose(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", _V, "Swaps two dims.")
_op("permute(Tensor(a) self, int... dims) -> Tensor(a)", _V, "Reorders the dims.")
_op("squeeze(Tensor(a) self, int[]? dim=None) -> Tensor(a)", _V, "Removes dims of size 1.")
_op("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", _V, "Inserts a dim of size 1.")
_op(
    "narrow(Tensor(a) self, int dim, int start, int length) -> Tensor(a)",
    _V,
    "The slice ``start:start+length`` along ``dim``.",
)
_op(
    "select(Tensor(a) self, int dim, int index) -> Tensor(a)",
    _V,
    "The slice at ``index`` along ``dim``, with that dim removed.",
)
_op(
    "slice(Tensor(a) self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor(a)",
    _V,
    "The slice ``start:end:step`` along ``dim``.",
    method=False,
    function=False,
)
_op(
    "diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)",
    _V,
    "A view of a diagonal; it becomes the last dim.",
)
_op(
    "unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)",
    _V,
    "All windows of ``size`` along a dim, with ``step``; windows become the last dim.",
)
# ``x.real`` / ``x.imag`` are properties on tensors (tensorcore/_tensor_methods.py).
_op(
    "real(Tensor(a) self) -> Tensor(a)",
    _V,
    "The real part of a complex tensor as a view of dtype ``float`` (the tensor itself, viewed, "
    "when it is real); writing to it writes the real parts.",
    method=False,
)
_op(
    "imag(Tensor(a) self) -> Tensor(a)",
    _V,
    "The imaginary part of a complex tensor as a view; an error for real tensors.",
    method=False,
)
_op(
    "alias(Tensor(a) self) -> Tensor(a)",
    _V,
    "A view of the whole tensor.",
    method=False,
    function=False,
)

# ---------------------------------------------------------------- copies, casts, fills
_op(
    "clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
    "conversion",
    "A copy with its own storage, its strides in the order of ``self``'s "
    "(``memory_format=tensorcore.contiguous_format`` for row-major).",
    frontend="structured",
)
_op(
    "contiguous(Tensor self) -> Tensor",
    "conversion composite",
    "``self`` when already contiguous, else a contiguous copy.",
)
_op(
    "to_dtype(Tensor self, ScalarType dtype) -> Tensor",
    "conversion",
    "A copy converted to ``dtype``.",
    frontend="structured",
    method=False,
    function=False,
)
_op(
    "to_device(Tensor self, Device device, bool non_blocking=False) -> Tensor",
    "conversion",
    "A copy on another device.",
    method=False,
    function=False,
)
_op(
    "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    "inplace conversion",
    "Copies ``src`` (broadcast, cast, across devices) into ``self``.",
    function=False,
)
_op(
    "fill_(Tensor(a!) self, Scalar value) -> Tensor(a!)",
    "inplace",
    "Fills ``self`` with ``value``.",
    function=False,
    values="value",
)
_op(
    "zero_(Tensor(a!) self) -> Tensor(a!)",
    "inplace composite",
    "Fills ``self`` with zeros.",
    function=False,
)
_op(
    "item(Tensor self) -> Scalar",
    "conversion nondifferentiable",
    "The value of a one-element tensor as a Python scalar.",
    function=False,
)
_op(
    "tolist(Tensor self) -> Any",
    "conversion nondifferentiable",
    "The tensor as nested Python lists of Python scalars.",
    function=False,
)

# ---------------------------------------------------------------- factories and random
_F = "factory nondifferentiable"
_FK = {"frontend": "factory", "method": False}
_op(
    "empty(int... size, *, ScalarType? dtype=None, Device? device=None, bool? requires_grad=False) -> Tensor",
    _F,
    "An uninitialised tensor.",
    **_FK,
)
_op(
    "full(int[] size, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None, "
    "bool? requires_grad=False) -> Tensor",
    _F,
    "A tensor filled with ``fill_value``.",
    values="fill_value",
    **_FK,
)
_op(
    "arange(Scalar start, Scalar? end=None, Scalar step=1, *, ScalarType? dtype=None, "
    "Device? device=None, bool? requires_grad=False) -> Tensor",
    _F,
    "Values from ``start`` to ``end`` (exclusive) in steps of ``step``.",
    dtypes="if",
    **_FK,
)
_op(
    "linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Device? device=None, "
    "bool? requires_grad=False) -> Tensor",
    _F,
    "``steps`` evenly spaced values from start to end.",
    dtypes="ifc",
    **_FK,
)
_op(
    "eye(int n, int? m=None, *, ScalarType? dtype=None, Device? device=None, "
    "bool? requires_grad=False) -> Tensor",
    _F,
    "A 2-D tensor with ones on the diagonal.",
    **_FK,
)
_RND = "random nondifferentiable inplace"
_op(
    "uniform_(Tensor(a!) self, float from_=0.0, float to=1.0, *, Generator? generator=None) -> Tensor(a!)",
    _RND,
    "Fills ``self`` with numbers drawn uniformly from ``[from, to)``.",
    function=False,
    dtypes="fc",
)
_op(
    "normal_(Tensor(a!) self, float mean=0.0, float std=1.0, *, Generator? generator=None) -> Tensor(a!)",
    _RND,
    "Fills ``self`` with normally distributed numbers.",
    function=False,
    dtypes="fc",
)
_op(
    "random_(Tensor(a!) self, int low, int high, *, Generator? generator=None) -> Tensor(a!)",
    _RND,
    "Fills ``self`` with integers drawn uniformly from ``[low, high)``.",
    function=False,
    dtypes="bif",
)
_op(
    "randperm(int n, *, Generator? generator=None, ScalarType? dtype=None, Device? device=None, "
    "bool? requires_grad=False) -> Tensor",
    "random nondifferentiable factory",
    "A random permutation of ``0 .. n-1``.",
    dtypes="if",
    **_FK,
)

# ---------------------------------------------------------------- composites (ops/composite.py)
_C = "composite"
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
    ("square(Tensor self) -> Tensor", "pointwise", "``self * self``."),
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
        "split(Tensor self, Any split_size_or_sections, int dim=0) -> Tensor[]",
        "view",
        "Views of consecutive pieces of ``split_size`` (or of the given sizes) along ``dim``.",
    ),
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
        "randint(int low, Any high_or_size, Any size=None, *, Generator? generator=None, "
        "ScalarType? dtype=None, Device? device=None, bool? requires_grad=False) -> Tensor",
        "factory random nondifferentiable",
        "Random integers in ``[low, high)``; ``randint(high, size)`` starts at 0.",
    ),
    (
        "normal(Any mean, Any std, Any size=None, *, Generator? generator=None, "
        "ScalarType? dtype=None, Device? device=None) -> Tensor",
        "factory random nondifferentiable",
        "Normal random numbers with the given mean and std (scalars or tensors).",
    ),
]:
    _op(_sig, _tags + " " + _C, _doc, method="factory" not in _tags, function=True)
_LIKE = (
    "with the shape (and by default dtype and device) of ``self``, in its memory order "
    "(``memory_format=None`` is ``preserve_format``; ``contiguous_format`` for row-major)."
)
for _n in ("empty", "zeros", "ones", "rand", "randn"):
    _op(
        f"{_n}_like(Tensor self, *, ScalarType? dtype=None, Device? device=None, "
        "bool? requires_grad=False, MemoryFormat? memory_format=None) -> Tensor",
        "factory nondifferentiable composite",
        f"Like :func:`{_n}` {_LIKE}",
        method=False,
    )
_op(
    "full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None, "
    "bool? requires_grad=False, MemoryFormat? memory_format=None) -> Tensor",
    "factory nondifferentiable composite",
    f"Like :func:`full` {_LIKE}",
    method=False,
)
