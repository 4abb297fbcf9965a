"""THE operator table: one declaration per operator.

Everything else derives from these declarations: the ``tensorcore.<op>`` functions and
``Tensor`` methods (``ops/_api.py``), their in-place ``op_`` and ``out=`` variants, the
dispatch entries a backend fills in, the derivative table's keys and ``docs/operators.md``.

A declaration gives the PyTorch-style signature, a set of tags from :data:`TAGS`, a one-line
summary, and -- for structured operators -- how the core computes the result's shape and
dtype before the kernel runs (``meta``), so a backend writes only the computation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import meta_fft as MF
from . import meta_functions as M
from . import meta_linalg as ML
from . import meta_nn as MN
from ._signature import Signature, _default, parse_signature

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
        "nn",  # neural-network layers: convolution, pooling
        "optim",  # fused optimizer steps (mutate their tensor-list arguments)
        "spectral",  # discrete Fourier transforms (the primitives of tensorcore.fft)
    }
)
#: How the core prepares a call before the kernel runs; see ``ops/frontends.py``.
#: ``pointwise``/``reduction``/``structured``: the core allocates the output and the kernel
#: is called as ``kernel(out, *args)``; ``direct``: ``kernel(*args)`` returns the result.
FRONTEND_KINDS = frozenset({"pointwise", "reduction", "structured", "factory", "unstructured"})
#: The dtype categories an operator may support (``dtypes=``): bool, integer, floating, complex.
DTYPE_CATEGORIES = "bifc"
#: Result-dtype policies of pointwise operators (``promote=``) and reductions.
#: ``float_only`` refuses integral inputs; ``float_only_real`` also gives complex inputs a real
#: result (``var``, ``std``, ``vector_norm``).
#: ``double`` computes in float64 (complex128 for complex input) whatever the inputs' precision,
#: and writes only into tensors of that dtype (``float_power``).
PROMOTIONS = frozenset(
    {
        "same",
        "float",
        "double",
        "bool",
        "int",
        "real",
        "sum",
        "index",
        "float_only",
        "float_only_real",
    }
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
    #: The meta function of a ``structured`` or ``factory`` operator
    #: (``ops/meta_functions.py``): checks the arguments, normalises them and gives the
    #: outputs' shapes and dtypes.
    meta_function: Callable[..., Any] | None = None
    #: Tensor parameters of a pointwise operator that must be bool and take no part in
    #: promotion (``where``'s ``condition``).
    masks: str = ""
    #: ``"param:policy"``: the result-dtype policy when ``param`` is given (not None), e.g.
    #: ``div``'s ``"rounding_mode:same"`` (a rounded quotient keeps the promoted dtype).
    promote_when: str = ""
    #: Whether a reduction has an identity (``sum``'s 0): without one (``amax``, ``argmax``)
    #: reducing a dim of size 0, or an empty tensor, is an error.
    identity: bool = True
    #: ``"param=value"`` pairs: the value the kernel and the derivative rule receive where
    #: the caller passed None (``var``'s ``"correction=1"``).
    none_means: str = ""
    parsed: Signature = field(init=False, repr=False, compare=False)
    #: Facts derived from the signature once (positions are -1 where the parameter is absent).
    pos: _Positions = field(init=False, repr=False, compare=False)

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
        for field_name in ("scalars", "values", "promote_args", "masks"):
            for p in getattr(self, field_name).split():
                if self.param(p) < 0:
                    raise ValueError(f"{self.name}: {field_name} names no parameter {p!r}")
        needs_meta = self.frontend in ("structured", "factory")
        if needs_meta != (self.meta_function is not None):
            raise ValueError(
                f"{self.name}: a {self.frontend} operator "
                + ("needs a meta_function" if needs_meta else "takes no meta_function")
            )
        object.__setattr__(self, "pos", _Positions(self))

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


class _Positions:
    """Where the parameters the frontends look for sit in an operator's signature, and the
    facts derived from its parameter types and return type (computed once per declaration)."""

    __slots__ = (
        "alpha",
        "device",
        "dim",
        "dtype",
        "flat_when_dim_none",
        "keepdim",
        "masks",
        "none_means",
        "promote",
        "promote_when",
        "result_names",
        "values",
    )

    def __init__(self, d: OpDecl) -> None:
        tensors = d.parsed.tensor_positions
        self.alpha = d.param("alpha")
        self.device = d.param("device")
        self.dim = d.param("dim")
        self.dtype = d.param("dtype")
        self.keepdim = d.param("keepdim")
        #: A reduction over one optional dim (``int? dim``, ``argmax``) reduces the flattened
        #: tensor when it is None, and its kernel receives None; ``int[]? dim`` None means
        #: every dim, and the kernel receives them all.
        self.flat_when_dim_none = self.dim >= 0 and d.parsed.params[self.dim].type == "int?"
        self.values = tuple(d.param(n) for n in d.values.split())
        self.masks = tuple(d.param(n) for n in d.masks.split())
        #: The tensor parameters whose dtypes decide the compute dtype (all, by default).
        self.promote: tuple[int, ...] = (
            tuple(d.param(n) for n in d.promote_args.split()) if d.promote_args else tensors
        )
        param, _, policy = d.promote_when.partition(":")
        self.promote_when = (d.param(param), policy) if param else (-1, "")
        if param and policy not in PROMOTIONS:
            raise ValueError(f"{d.name}: unknown promotion {policy!r} in promote_when")
        self.none_means = tuple(
            (d.param(k), _default(v))
            for k, _, v in (pair.partition("=") for pair in d.none_means.split())
        )
        if any(i < 0 for i, _ in self.none_means):
            raise ValueError(f"{d.name}: none_means names an unknown parameter")
        self.result_names = d.parsed.result_names


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
    promote_when: str = "",
    inplace: bool = True,
    other: str = "other",
    promote_args: str = "",
) -> None:
    _op(
        f"{name}(Tensor self, Tensor {other}{extra}) -> Tensor",
        "pointwise " + tags,
        doc,
        frontend="pointwise",
        opmath_scalars=opmath_scalars,
        values=values,
        promote_when=promote_when,
        promote=promote,
        promote_args=promote_args,
        dtypes=dtypes,
        dtype_hint=dtype_hint,
        # Comparisons have in-place forms too (``x.lt_(y)`` stores 0/1 in x's dtype).
        inplace=inplace,
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
    promote_when="rounding_mode:same",
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
_unary(
    "erf",
    "The error function ``2 / sqrt(pi) * integral(exp(-t**2), 0, x)``.",
    promote="float",
    dtypes="bif",
)
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
    masks="condition",
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

# ---------------------------------------------------------------- pointwise: special functions
for _n, _d, _dt in [
    ("acosh", "Inverse hyperbolic cosine.", "bifc"),
    ("asinh", "Inverse hyperbolic sine.", "bifc"),
    ("atanh", "Inverse hyperbolic tangent.", "bifc"),
    ("erfc", "The complementary error function ``1 - erf(x)``, accurate where it is small.", "bif"),
    ("erfinv", "The inverse of :func:`erf` on [-1, 1] (+-inf at +-1, NaN outside).", "bif"),
    ("lgamma", "``log|Gamma(x)|``: +inf at 0, at the negative integers and at +-inf.", "bif"),
    (
        "digamma",
        "``Gamma'(x) / Gamma(x)``: -inf at 0, +inf at -0, NaN at the negative integers.",
        "bif",
    ),
    ("i0", "The modified Bessel function of the first kind of order 0.", "bif"),
    ("sinc", "The normalised sinc function ``sin(pi x) / (pi x)``, 1 at 0.", "bifc"),
    ("deg2rad", "Converts angles from degrees to radians.", "bif"),
    ("rad2deg", "Converts angles from radians to degrees.", "bif"),
]:
    _unary(
        _n,
        _d,
        promote="float",
        dtypes=_dt,
        dtype_hint=f"{_n} is not supported for complex tensors." if "2" in _n else "",
    )
_op(
    "special_i1(Tensor self) -> Tensor",
    "pointwise",
    "The modified Bessel function of the first kind of order 1 (PyTorch's "
    "``torch.special.i1``; the derivative of :func:`i0`).",
    frontend="pointwise",
    promote="float",
    out=True,
    method=False,
    dtypes="bif",
)
_op(
    "polygamma(int n, Tensor self) -> Tensor",
    "pointwise",
    "The ``n``-th derivative of :func:`digamma` (``n >= 0``); ``Tensor.polygamma(n)`` is its "
    "method.",
    frontend="pointwise",
    promote="float",
    out=True,
    method=False,
    dtypes="bif",
)
_op(
    "logit(Tensor self, float? eps=None) -> Tensor",
    "pointwise",
    "``log(x / (1 - x))``, of ``x`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given.",
    frontend="pointwise",
    promote="float",
    inplace=True,
    out=True,
    dtypes="bif",
)
_unary(
    "signbit",
    "True where the sign bit is set (negative numbers, -0.0 and NaNs with a negative sign).",
    promote="bool",
    tags="nondifferentiable",
    inplace=False,
    dtypes="bif",
    dtype_hint="signbit is not implemented for complex tensors.",
)
_op(
    "frexp(Tensor self) -> (Tensor mantissa, Tensor exponent)",
    "pointwise",
    "Decomposes each element into a mantissa in ``(-1, -0.5] u [0.5, 1)`` (or 0) and an int32 "
    "exponent: ``self = mantissa * 2 ** exponent``.",
    frontend="structured",
    meta_function=M.meta_frexp,
    out=True,
    dtypes="f",
)
_binary("hypot", "``sqrt(self**2 + other**2)`` elementwise, without overflow.", dtypes="f")
_binary(
    "logaddexp",
    "``log(exp(self) + exp(other))``, computed stably.",
    dtypes="fc",
    inplace=False,
)
_binary(
    "logaddexp2",
    "``log2(2**self + 2**other)``, computed stably.",
    dtypes="f",
    inplace=False,
)
_binary(
    "nextafter",
    "The next floating-point number after ``self`` towards ``other``.",
    tags="nondifferentiable",
    dtypes="f",
)
_binary(
    "copysign",
    "The magnitude of ``self`` with the sign of ``other``.",
    promote="float",
    dtypes="bif",
)
_binary(
    "xlogy",
    "``self * log(other)``, 0 where ``self`` is 0 (unless ``other`` is NaN).",
    promote="float",
    dtypes="bif",
)
_binary(
    "fmax",
    "Elementwise maximum that ignores NaN (NaN only where both are NaN).",
    dtypes="bif",
    inplace=False,
)
_binary(
    "fmin",
    "Elementwise minimum that ignores NaN (NaN only where both are NaN).",
    dtypes="bif",
    inplace=False,
)
_binary(
    "heaviside",
    "The Heaviside step of ``self``: 0 below 0, 1 above, ``values`` at 0 (``values`` must "
    "have ``self``'s dtype).",
    tags="nondifferentiable",
    dtypes="bif",
    other="values",
    promote_args="self",
)
_binary(
    "float_power",
    "``self ** other`` computed in float64 (complex128 for complex input).",
    promote="double",
)
_binary(
    "ldexp",
    "``self * 2 ** other``.",
    promote="float",
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
    identity=False,
    out=True,
    dtypes="bif",
)
_op(
    "amin(Tensor self, int[] dim=[], bool keepdim=False) -> Tensor",
    _R,
    "Minimum over ``dim`` (all dims when empty).",
    frontend="reduction",
    identity=False,
    out=True,
    dtypes="bif",
)
_op(
    "max_dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    _R,
    "Maximum values and their indices along ``dim``.",
    frontend="reduction",
    identity=False,
    method=False,
    function=False,
    dtypes="bif",
)
_op(
    "min_dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    _R,
    "Minimum values and their indices along ``dim``.",
    frontend="reduction",
    identity=False,
    method=False,
    function=False,
    dtypes="bif",
)
_op(
    "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    _R + " nondifferentiable",
    "Index of the maximum (of the flattened tensor when ``dim`` is None).",
    frontend="reduction",
    identity=False,
    promote="index",
    out=True,
    dtypes="if",
)
_op(
    "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    _R + " nondifferentiable",
    "Index of the minimum (of the flattened tensor when ``dim`` is None).",
    frontend="reduction",
    identity=False,
    promote="index",
    out=True,
    dtypes="if",
)
_op(
    "var(Tensor self, int[]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
    _R,
    "Variance over ``dim`` with Bessel's ``correction`` (default 1).",
    frontend="reduction",
    promote="float_only_real",
    none_means="correction=1",
    out=True,
)
_op(
    "std(Tensor self, int[]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
    _R,
    "Standard deviation over ``dim`` with ``correction`` (default 1).",
    frontend="reduction",
    promote="float_only_real",
    none_means="correction=1",
    out=True,
)
_op(
    "vector_norm(Tensor self, float ord=2.0, int[]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor",
    _R,
    "Vector ``ord``-norm over ``dim``.",
    frontend="reduction",
    promote="float_only_real",
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
    meta_function=M.meta_cumsum,
    promote="sum",
    inplace=True,
    out=True,
)
_op(
    "cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    _R,
    "Cumulative product along ``dim``.",
    frontend="structured",
    meta_function=M.meta_cumsum,
    promote="sum",
    inplace=True,
    out=True,
)
_op(
    "softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    _R,
    "Softmax along ``dim``.",
    frontend="structured",
    meta_function=M.meta_softmax,
    promote="float",
    dtypes="f",
)
_op(
    "log_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    _R,
    "Log of the softmax along ``dim``, computed stably.",
    frontend="structured",
    meta_function=M.meta_softmax,
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
    meta_function=M.meta_softmax_backward_data,
    method=False,
    dtypes="f",
)
_op(
    "_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim) -> Tensor",
    _R,
    "The gradient of ``log_softmax``: "
    "``grad_output - output.exp() * grad_output.sum(dim, keepdim=True)``.",
    frontend="structured",
    meta_function=M.meta_log_softmax_backward_data,
    method=False,
    dtypes="f",
)
_op(
    'nll_loss(Tensor self, Tensor target, Tensor? weight=None, str reduction="mean", '
    "int ignore_index=-100) -> Tensor",
    _R,
    "Negative log-likelihood of the log-probabilities ``self`` (N, C) at the class indices "
    "``target`` (N,), weighted per class by ``weight`` (C,), skipping targets equal to "
    "``ignore_index``, reduced by ``reduction`` ('mean' divides by the total weight of the "
    "targets that count, 'sum' or 'none').",
    frontend="structured",
    meta_function=M.meta_nll_loss,
    method=False,
    dtypes="f",
)
_op(
    'nll_loss_backward(Tensor grad_output, Tensor target, int num_classes, str reduction="mean", '
    "Tensor? weight=None, int ignore_index=-100) -> Tensor",
    _R,
    "The gradient of ``nll_loss`` with respect to its (N, ``num_classes``) input.",
    frontend="structured",
    meta_function=M.meta_nll_loss_backward,
    method=False,
)
# ------------------------------------------------------------------ neural-network layers
_NN = "nn"
_GEOMETRY = "int[] stride, int[] padding, int[] dilation, int groups"
_op(
    "convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
    "int[] dilation, bool transposed, int[] output_padding, int groups) -> Tensor",
    _NN,
    "N-d convolution (or, ``transposed=True``, transposed convolution) of ``input`` "
    "(N, C, *spatial) with ``weight`` (C_out, C / groups, *kernel) -- transposed: "
    "(C, C_out / groups, *kernel) -- plus ``bias`` (C_out,). ``nn.functional.conv1d``/"
    "``conv2d``/``conv3d``/``conv_transpose*`` call it.",
    frontend="structured",
    meta_function=MN.meta_convolution,
    method=False,
    dtypes="if",
)
_op(
    f"convolution_backward_input(Tensor grad_output, Tensor weight, int[] input_size, "
    f"{_GEOMETRY}) -> Tensor",
    _NN,
    "The gradient of a (non-transposed) ``convolution`` with respect to its input of size "
    "``input_size``: the transposed convolution of ``grad_output`` with ``weight``.",
    frontend="structured",
    meta_function=MN.meta_convolution_backward_input,
    method=False,
    dtypes="f",
)
_op(
    f"convolution_backward_weight(Tensor grad_output, Tensor input, int[] weight_size, "
    f"{_GEOMETRY}) -> Tensor",
    _NN,
    "The gradient of a (non-transposed) ``convolution`` with respect to its weight of size "
    "``weight_size``: ``grad_output`` correlated with the input's windows.",
    frontend="structured",
    meta_function=MN.meta_convolution_backward_weight,
    method=False,
    dtypes="f",
)
_op(
    "max_pool2d_with_indices(Tensor self, int[] kernel_size, int[] stride=[], "
    "int[] padding=0, int[] dilation=1, bool ceil_mode=False) -> (Tensor values, "
    "Tensor indices)",
    _NN,
    "2-D max pooling of ``self`` (N, C, H, W); ``indices`` are flat positions in each "
    "(H, W) plane. ``stride`` defaults to ``kernel_size``.",
    frontend="structured",
    meta_function=MN.meta_max_pool2d_with_indices,
    method=False,
    dtypes="if",
)
_op(
    "max_pool2d_with_indices_backward(Tensor grad_output, int[] input_size, int[] kernel_size, "
    "int[] stride, int[] padding, int[] dilation, bool ceil_mode, Tensor indices) -> Tensor",
    _NN,
    "The gradient of ``max_pool2d_with_indices``: ``grad_output`` added at ``indices``.",
    frontend="structured",
    meta_function=MN.meta_max_pool2d_with_indices_backward,
    method=False,
    dtypes="f",
)
_op(
    "avg_pool2d(Tensor self, int[] kernel_size, int[] stride=[], int[] padding=0, "
    "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
    _NN,
    "2-D average pooling of ``self`` (N, C, H, W). ``stride`` defaults to ``kernel_size``.",
    frontend="structured",
    meta_function=MN.meta_avg_pool2d,
    method=False,
    dtypes="if",
)
_op(
    "avg_pool2d_backward(Tensor grad_output, int[] input_size, int[] kernel_size, int[] stride, "
    "int[] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor",
    _NN,
    "The gradient of ``avg_pool2d``: each output's gradient shared over its window.",
    frontend="structured",
    meta_function=MN.meta_avg_pool2d_backward,
    method=False,
    dtypes="if",
)
_op(
    "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
    _NN,
    "``input @ weight.T + bias`` for an input of shape (*, in_features), a weight of shape "
    "(out_features, in_features) and a bias of shape (out_features,).",
    frontend="structured",
    meta_function=MN.meta_linear,
    method=False,
    dtypes="ifc",
)
_op(
    "linear_backward(Tensor grad_output, Tensor input, Tensor weight, int[] output_mask) -> "
    "(Tensor, Tensor, Tensor)",
    _NN,
    "The gradients of ``linear`` with respect to its input, weight and bias, each computed "
    "only where ``output_mask`` (three 0/1 flags) asks for it.",
    frontend="structured",
    meta_function=MN.meta_linear_backward,
    method=False,
    dtypes="ifc",
)
_op(
    "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
    "float eps=1e-05) -> Tensor",
    _NN,
    "Normalise over the last ``len(normalized_shape)`` dims (biased variance), then scale by "
    "``weight`` and shift by ``bias``.",
    frontend="structured",
    meta_function=MN.meta_layer_norm,
    method=False,
    dtypes="f",
)
_op(
    "layer_norm_backward(Tensor grad_output, Tensor input, int[] normalized_shape, "
    "Tensor? weight=None, float eps=1e-05) -> (Tensor, Tensor, Tensor)",
    _NN,
    "The gradients of ``layer_norm`` with respect to its input, weight and bias (the statistics "
    "recomputed from ``input``).",
    frontend="structured",
    meta_function=MN.meta_layer_norm_backward,
    method=False,
    dtypes="f",
)
_op(
    "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool training, float momentum, float eps) -> Tensor",
    _NN,
    "Normalise each channel (dim 1) by the batch's statistics (``training``; the running ones "
    "are then updated in place with ``momentum``, the variance unbiased) or by "
    "``running_mean``/``running_var``, then scale and shift per channel.",
    frontend="structured",
    meta_function=MN.meta_batch_norm,
    method=False,
    dtypes="f",
)
_op(
    "batch_norm_backward(Tensor grad_output, Tensor input, Tensor? weight, "
    "Tensor? running_mean, Tensor? running_var, bool training, float eps) -> "
    "(Tensor, Tensor, Tensor)",
    _NN,
    "The gradients of ``batch_norm`` with respect to its input, weight and bias.",
    frontend="structured",
    meta_function=MN.meta_batch_norm_backward,
    method=False,
    dtypes="f",
)
# Fused optimizer steps: one call updates every parameter of a group (PyTorch's
# _fused_sgd_/_fused_adam_), for backends that can do it without an operator per formula step.
_FUSED = "optim nondifferentiable"
_op(
    "_fused_sgd_(Tensor[] params, Tensor[] grads, Tensor[] momentum_buffers, int[] first_step, "
    "*, float lr, float momentum, float dampening, float weight_decay, bool nesterov, "
    "bool maximize) -> ()",
    _FUSED,
    "One SGD step of ``params`` in place (``optim.SGD``'s rule); ``momentum_buffers`` (empty "
    "without momentum) are updated, or set to the gradient where ``first_step`` is 1.",
    method=False,
    dtypes="f",
)
_op(
    "_fused_adam_(Tensor[] params, Tensor[] grads, Tensor[] exp_avgs, Tensor[] exp_avg_sqs, "
    "Tensor[] max_exp_avg_sqs, Tensor[] state_steps, *, float lr, float beta1, float beta2, "
    "float eps, float weight_decay, bool amsgrad, bool maximize, bool decoupled) -> ()",
    _FUSED,
    "One Adam step of ``params`` in place (``optim.Adam``'s rule; ``decoupled``: AdamW's "
    "weight decay), updating the moments and the step counts.",
    method=False,
    dtypes="f",
)
_op(
    "sort(Tensor self, int dim=-1, bool descending=False, *, bool? stable=False) -> "
    "(Tensor values, Tensor indices)",
    _R,
    "Sorts along ``dim``; returns values and indices.",
    frontend="structured",
    meta_function=M.meta_sort,
    out=True,
    dtypes="bif",
)
_op(
    "argsort(Tensor self, int dim=-1, bool descending=False, *, bool? stable=False) -> Tensor",
    _R + " nondifferentiable",
    "Indices that sort ``self`` along ``dim``.",
    frontend="structured",
    meta_function=M.meta_argsort,
    promote="index",
    dtypes="bif",
)
_op(
    "topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> "
    "(Tensor values, Tensor indices)",
    _R,
    "The ``k`` largest (or smallest) along ``dim``.",
    frontend="structured",
    meta_function=M.meta_topk,
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
    meta_function=M.meta_matmul,
    out=True,
    dtypes="ifc",
)
_op(
    "mm(Tensor self, Tensor mat2) -> Tensor",
    _L,
    "Product of two matrices.",
    frontend="structured",
    meta_function=M.meta_mm,
    out=True,
    dtypes="ifc",
)
_op(
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    _L,
    "``beta * self + alpha * (mat1 @ mat2)``, ``self`` broadcast to the product's shape "
    "(what ``linear`` with a bias runs: one pass less than a product and an add).",
    frontend="structured",
    meta_function=M.meta_addmm,
    out=True,
    dtypes="ifc",
)
_op(
    "bmm(Tensor self, Tensor mat2) -> Tensor",
    _L,
    "Batched product of 3-D tensors.",
    frontend="structured",
    meta_function=M.meta_bmm,
    out=True,
    dtypes="ifc",
)
_op(
    "mv(Tensor self, Tensor vec) -> Tensor",
    _L,
    "Matrix-vector product.",
    frontend="structured",
    meta_function=M.meta_mv,
    out=True,
    dtypes="ifc",
)
_op(
    "dot(Tensor self, Tensor tensor) -> Tensor",
    _L,
    "Dot product of two 1-D tensors.",
    frontend="structured",
    meta_function=M.meta_dot,
    out=True,
    dtypes="ifc",
)
_op(
    "outer(Tensor self, Tensor vec2) -> Tensor",
    _L,
    "Outer product of two 1-D tensors.",
    frontend="structured",
    meta_function=M.meta_outer,
    out=True,
)
_op(
    "einsum(str equation, Tensor... operands) -> Tensor",
    _L,
    "Einstein summation over the operands.",
    method=False,
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
    out=True,
    **_LX,
)
_op(
    "linalg_det(Tensor A) -> Tensor",
    _L,
    "The determinant of each square matrix.",
    meta_function=ML.meta_linalg_det,
    out=True,
    **_LX,
)
_op(
    "linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)",
    _L,
    "The sign (a unit complex number for complex input) and log of the absolute value of "
    "each determinant.",
    meta_function=ML.meta_linalg_slogdet,
    out=True,
    **_LX,
)
_op(
    "linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor",
    _L,
    "The solution ``X`` of ``A X = B`` (``X A = B`` when not ``left``); ``B`` is a batch of "
    "vectors when 1-D or shaped as ``A`` without its last dim.",
    meta_function=ML.meta_linalg_solve,
    out=True,
    **_LX,
)
_op(
    "linalg_cholesky(Tensor A, *, bool upper=False) -> Tensor",
    _L,
    "The Cholesky factor of each Hermitian positive-definite matrix (read from its lower "
    "triangle; the upper one when ``upper``).",
    meta_function=ML.meta_linalg_cholesky,
    out=True,
    **_LX,
)
_op(
    '_linalg_eigh(Tensor A, str UPLO="L", bool compute_v=True) -> '
    "(Tensor eigenvalues, Tensor eigenvectors)",
    _L,
    "Eigenvalues (ascending) and, when ``compute_v``, eigenvectors of each Hermitian matrix, "
    "read from the triangle ``UPLO``.",
    meta_function=ML.meta_linalg_eigh,
    **_LX,
)
_op(
    'linalg_qr(Tensor A, str mode="reduced") -> (Tensor Q, Tensor R)',
    _L,
    "The QR decomposition (``mode`` 'reduced', 'complete' or 'r').",
    meta_function=ML.meta_linalg_qr,
    out=True,
    **_LX,
)
_op(
    "_linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, "
    "str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)",
    _L,
    "The singular value decomposition; only ``S`` when not ``compute_uv``.",
    meta_function=ML.meta_linalg_svd,
    **_LX,
)
_op(
    "linalg_pinv(Tensor A, *, float? atol=None, float? rtol=None, bool hermitian=False) -> Tensor",
    _L,
    "The Moore-Penrose pseudo-inverse (singular values at most ``max(atol, rtol * max)`` "
    "count as zero).",
    meta_function=ML.meta_linalg_pinv,
    out=True,
    **_LX,
)
_op(
    "linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor",
    _L,
    "The cross product of 3-vectors along ``dim``, broadcasting the other dims.",
    meta_function=ML.meta_linalg_cross,
    out=True,
    **_LX,
)

# ---------------------------------------------------------------- discrete Fourier transforms
# PyTorch's three internal primitives, which every function of ``tensorcore.fft`` is written
# with. ``normalization`` is the scaling applied (0 none, 1 ``1/sqrt(n)``, 2 ``1/n``) in
# either direction, so that the adjoint of a transform is the other direction's with the same
# ``normalization``; ``dim`` keeps the caller's order (the last dim is the halved one).
_FFT = "spectral"
_op(
    "_fft_c2c(Tensor self, int[] dim, int normalization, bool forward) -> Tensor",
    _FFT,
    "The complex-to-complex DFT of ``self`` over ``dim`` (``forward``: exponent ``-2 pi i``, "
    "else the inverse's ``+2 pi i``), scaled as ``normalization`` says.",
    frontend="structured",
    meta_function=MF.meta_fft_c2c,
    method=False,
    out=True,
    dtypes="c",
)
_op(
    "_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor",
    _FFT,
    "The forward DFT of the real ``self`` over ``dim``; ``onesided`` keeps the first "
    "``n // 2 + 1`` values of the last dim (the rest follow by Hermitian symmetry).",
    frontend="structured",
    meta_function=MF.meta_fft_r2c,
    method=False,
    out=True,
    dtypes="f",
)
_op(
    "_fft_c2r(Tensor self, int[] dim, int normalization, int last_dim_size) -> Tensor",
    _FFT,
    "The real inverse DFT over ``dim`` of a one-sided Hermitian spectrum (the last dim holds "
    "``last_dim_size // 2 + 1`` values), giving ``last_dim_size`` points on that dim.",
    frontend="structured",
    meta_function=MF.meta_fft_c2r,
    method=False,
    out=True,
    dtypes="c",
)

# ---------------------------------------------------------------- shape and indexing
_S = "shape"
_op(
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    _S,
    "Concatenates along an existing dim.",
    frontend="structured",
    meta_function=M.meta_cat,
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
    meta_function=M.meta_flip,
)
_op(
    "roll(Tensor self, int[] shifts, int[]? dims=None) -> Tensor",
    _S,
    "Rolls elements along ``dims`` (of the flattened tensor when None).",
    frontend="structured",
    meta_function=M.meta_roll,
)
_op(
    "repeat(Tensor self, int... repeats) -> Tensor",
    _S,
    "Repeats the tensor along each dim (like NumPy's tile).",
    frontend="structured",
    meta_function=M.meta_repeat,
    function=False,
)
_op("tile(Tensor self, int[] dims) -> Tensor", _S + " composite", "Repeats like NumPy's tile.")
_op(
    "tril(Tensor self, int diagonal=0) -> Tensor",
    _S,
    "Lower triangle of the last two dims.",
    frontend="structured",
    meta_function=M.meta_tril,
    inplace=True,
    out=True,
)
_op(
    "triu(Tensor self, int diagonal=0) -> Tensor",
    _S,
    "Upper triangle of the last two dims.",
    frontend="structured",
    meta_function=M.meta_tril,
    inplace=True,
    out=True,
)
_op(
    "gather(Tensor self, int dim, Tensor index) -> Tensor",
    "indexing",
    "Picks values along ``dim`` at ``index``.",
    frontend="structured",
    meta_function=M.meta_gather,
    out=True,
)
_op(
    "scatter(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    "indexing",
    "Copy of ``self`` with ``src`` (a tensor or a number) written at ``index`` along ``dim``.",
    frontend="structured",
    meta_function=M.meta_scatter,
    inplace=True,
    scalars="src",
    values="src",
)
_op(
    "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    "indexing",
    "Copy of ``self`` with ``src`` added at ``index`` along ``dim``.",
    frontend="structured",
    meta_function=M.meta_scatter,
    inplace=True,
)
_op(
    "index_select(Tensor self, int dim, Tensor index) -> Tensor",
    "indexing",
    "Selects the entries ``index`` along ``dim``.",
    frontend="structured",
    meta_function=M.meta_index_select,
    out=True,
)
_op(
    "masked_fill(Tensor self, Tensor mask, Tensor value) -> Tensor",
    "indexing",
    "Copy of ``self`` with ``value`` (a 0-d tensor or a number) where ``mask`` is true.",
    frontend="structured",
    meta_function=M.meta_masked_fill,
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
    meta_function=M.meta_index_put,
    inplace=True,
)
_op(
    "nonzero(Tensor self) -> Tensor",
    "indexing nondifferentiable",
    "Indices of the non-zero elements, one row per element.",
)
_op(
    "argwhere(Tensor self) -> Tensor",
    "indexing nondifferentiable composite",
    "Indices of the non-zero elements, one row per element (:func:`nonzero`).",
)

# ---------------------------------------------------------------- search, sets, scans, statistics
# Kernels where a composite would be slow (a binary search, running maxima) or unstable
# (``logcumsumexp``); everything else is written with other operators in
# ``ops/composite_shape.py`` (shapes, sets) and ``ops/composite_stats.py`` (statistics).
_op(
    "searchsorted(Tensor sorted_sequence, Tensor input, *, bool out_int32=False, "
    "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor",
    "indexing nondifferentiable",
    "Where ``input`` would go in the innermost dim of ``sorted_sequence`` (or in the "
    "sequence ``sorter`` sorts) to keep it sorted: the first such place, the last with "
    "``right=True`` or ``side='right'``.",
    frontend="structured",
    meta_function=M.meta_searchsorted,
    method=False,
    out=True,
    scalars="input",
    dtypes="if",
)
_op(
    "cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)",
    _R,
    "Running maximum along ``dim`` and where it was reached (the last place for ties; NaN "
    "propagates).",
    frontend="structured",
    meta_function=M.meta_cummax,
    out=True,
    dtypes="bif",
)
_op(
    "cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)",
    _R,
    "Running minimum along ``dim`` and where it was reached (the last place for ties; NaN "
    "propagates).",
    frontend="structured",
    meta_function=M.meta_cummax,
    out=True,
    dtypes="bif",
)
_op(
    "logcumsumexp(Tensor self, int dim) -> Tensor",
    _R,
    "``log(cumsum(exp(self)))`` along ``dim``, computed stably.",
    frontend="structured",
    meta_function=M.meta_logcumsumexp,
    out=True,
    dtypes="fc",
)
_CS = "composite"
#: The dtypes PyTorch computes these composites in, where not all four.
_CS_DTYPES = {
    "bucketize": "if", "isin": "if", "unique": "bif", "unique_consecutive": "bif",
    "histc": "f", "kthvalue": "if", "median": "if", "nanmedian": "if", "quantile": "f",
    "nanquantile": "f", "nanmean": "f", "nansum": "bif", "var_mean": "fc", "std_mean": "fc",
    "aminmax": "bif", "logspace": "ifc", "tril_indices": "i", "triu_indices": "i",
}  # fmt: skip
_COMPOSITE_DECLS: list[tuple[str, str, str, dict[str, Any]]] = [
    # ------------------------------------------------------------ shapes
    (
        "meshgrid(Tensor... tensors, *, str? indexing=None) -> Tensor[]",
        "shape",
        "Coordinate grids of 0-D or 1-D tensors, as broadcast views: 'ij' (the default, with a "
        "warning when not given, as PyTorch) or 'xy' (the first two dims swapped).",
        {"method": False},
    ),
    (
        "broadcast_tensors(Tensor... tensors) -> Tensor[]",
        "shape",
        "Views of the tensors broadcast to their common shape.",
        {"method": False},
    ),
    (
        "moveaxis(Tensor self, int[] source, int[] destination) -> Tensor",
        "view",
        "Alias of :func:`movedim`.",
        {},
    ),
    (
        "atleast_1d(Tensor... tensors) -> Any",
        "view",
        "Each tensor with at least one dim (a 0-d one as shape (1,)); a tuple for several.",
        {"method": False},
    ),
    (
        "atleast_2d(Tensor... tensors) -> Any",
        "view",
        "Each tensor with at least two dims (new dims in front); a tuple for several.",
        {"method": False},
    ),
    (
        "atleast_3d(Tensor... tensors) -> Any",
        "view",
        "Each tensor with at least three dims (as NumPy: (n,) becomes (1, n, 1), (m, n) "
        "becomes (m, n, 1)); a tuple for several.",
        {"method": False},
    ),
    (
        "hstack(Tensor[] tensors) -> Tensor",
        "shape",
        "Concatenates along dim 1 (dim 0 for 1-D tensors).",
        {"method": False},
    ),
    (
        "vstack(Tensor[] tensors) -> Tensor",
        "shape",
        "Concatenates along dim 0, 1-D tensors as rows.",
        {"method": False},
    ),
    (
        "row_stack(Tensor[] tensors) -> Tensor",
        "shape",
        "Alias of :func:`vstack`.",
        {"method": False},
    ),
    (
        "dstack(Tensor[] tensors) -> Tensor",
        "shape",
        "Concatenates along dim 2, after :func:`atleast_3d`.",
        {"method": False},
    ),
    (
        "column_stack(Tensor[] tensors) -> Tensor",
        "shape",
        "Concatenates along dim 1, 0-D and 1-D tensors as columns.",
        {"method": False},
    ),
    (
        "tensor_split(Tensor self, Any indices_or_sections, int dim=0) -> Tensor[]",
        "view",
        "Views of ``sections`` nearly equal pieces (the first ``n % sections`` one longer) or of "
        "the pieces between the ``indices``, along ``dim``.",
        {},
    ),
    (
        "hsplit(Tensor self, Any indices_or_sections) -> Tensor[]",
        "view",
        ":func:`tensor_split` along dim 1 (dim 0 for 1-D tensors); sections must divide.",
        {},
    ),
    (
        "vsplit(Tensor self, Any indices_or_sections) -> Tensor[]",
        "view",
        ":func:`tensor_split` along dim 0 of a tensor of 2 or more dims; sections must divide.",
        {},
    ),
    (
        "dsplit(Tensor self, Any indices_or_sections) -> Tensor[]",
        "view",
        ":func:`tensor_split` along dim 2 of a tensor of 3 or more dims; sections must divide.",
        {},
    ),
    ("flipud(Tensor self) -> Tensor", "shape", "Reverses dim 0.", {}),
    (
        "fliplr(Tensor self) -> Tensor",
        "shape",
        "Reverses dim 1 (of a tensor of 2 or more dims).",
        {},
    ),
    (
        "rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor",
        "shape",
        "Rotates by 90 degrees ``k`` times, from the first of ``dims`` towards the second.",
        {},
    ),
    (
        "take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor",
        "indexing",
        "Values at ``indices`` along ``dim`` (the two broadcast over the other dims), or of the "
        "flattened tensor when ``dim`` is None.",
        {},
    ),
    (
        "diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) "
        "-> Tensor",
        "shape",
        "The ``n``-th forward difference along ``dim``, after adding ``prepend`` and "
        "``append`` (exclusive or for bool tensors).",
        {},
    ),
    (
        "repeat_interleave(Tensor self, Any repeats=None, int? dim=None, *, "
        "int? output_size=None) -> Tensor",
        "shape",
        "Repeats each element (each slice along ``dim``; of the flattened tensor when None) "
        "``repeats`` times (an int or a tensor of counts); with one tensor argument, "
        "``repeat_interleave(repeats)`` repeats the indices ``0..n-1``.",
        {},
    ),
    (
        "block_diag(Tensor... tensors) -> Tensor",
        "shape",
        "A block-diagonal matrix of the (at most 2-D) tensors, in their promoted dtype.",
        {"method": False},
    ),
    (
        "cartesian_prod(Tensor... tensors) -> Tensor",
        "shape",
        "The cartesian product of 1-D tensors, one row per combination.",
        {"method": False},
    ),
    (
        "combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor",
        "shape",
        "The ``r``-length combinations of a 1-D tensor's elements (as itertools'), one per row.",
        {"method": False},
    ),
    (
        "tril_indices(int row, int col, int offset=0, *, ScalarType? dtype=None, "
        "Device? device=None) -> Tensor",
        "factory nondifferentiable",
        "The (2, N) coordinates of the lower triangle of a ``row`` x ``col`` matrix, row by "
        "row (int64 by default).",
        {"method": False},
    ),
    (
        "triu_indices(int row, int col, int offset=0, *, ScalarType? dtype=None, "
        "Device? device=None) -> Tensor",
        "factory nondifferentiable",
        "The (2, N) coordinates of the upper triangle of a ``row`` x ``col`` matrix, row by "
        "row (int64 by default).",
        {"method": False},
    ),
    (
        "logspace(Scalar start, Scalar end, int steps, float base=10.0, *, "
        "ScalarType? dtype=None, Device? device=None, bool? requires_grad=False) -> Tensor",
        "factory nondifferentiable",
        "``steps`` values from ``base ** start`` to ``base ** end``, evenly spaced in exponent.",
        {"method": False},
    ),
    # ------------------------------------------------------------ search and sets
    (
        "bucketize(Tensor input, Tensor boundaries, *, bool out_int32=False, bool right=False) "
        "-> Tensor",
        "indexing nondifferentiable",
        "The bucket of each element among the 1-D sorted ``boundaries``: "
        ":func:`searchsorted` with the arguments swapped.",
        {"method": False, "scalars": "input"},
    ),
    (
        "count_nonzero(Tensor self, int[]? dim=None) -> Tensor",
        "reduction nondifferentiable",
        "The number of non-zero elements over ``dim`` (all dims when None), as int64.",
        {},
    ),
    (
        "isin(Tensor elements, Tensor test_elements, *, bool assume_unique=False, "
        "bool invert=False) -> Tensor",
        "indexing nondifferentiable",
        "True where an element of ``elements`` is in ``test_elements`` (either may be a "
        "number); ``invert`` negates.",
        {"method": False, "scalars": "elements test_elements"},
    ),
    (
        "unique(Tensor self, bool sorted=True, bool return_inverse=False, "
        "bool return_counts=False, int? dim=None) -> Any",
        "indexing nondifferentiable",
        "The distinct elements (or slices along ``dim``), sorted; with ``return_inverse`` and "
        "``return_counts`` a tuple that adds where each element went and how often each "
        "value occurs. Each NaN is distinct.",
        {},
    ),
    (
        "unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, "
        "int? dim=None) -> Any",
        "indexing nondifferentiable",
        "The elements (or slices along ``dim``) without consecutive repeats; a tuple with "
        "``return_inverse``/``return_counts`` as :func:`unique`.",
        {},
    ),
    (
        "histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor",
        "reduction nondifferentiable",
        "A histogram of ``bins`` equal bins between ``min`` and ``max`` (the data's minimum "
        "and maximum when both are 0); elements outside are ignored.",
        {},
    ),
    # ------------------------------------------------------------ statistics
    (
        "kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False) -> "
        "(Tensor values, Tensor indices)",
        "reduction",
        "The ``k``-th smallest element along ``dim`` and its index.",
        {},
    ),
    (
        "median(Tensor self, int? dim=None, bool keepdim=False) -> Any",
        "reduction",
        "The lower median of all elements; with ``dim``, (values, indices) along it. NaN "
        "propagates.",
        {},
    ),
    (
        "nanmedian(Tensor self, int? dim=None, bool keepdim=False) -> Any",
        "reduction",
        ":func:`median` ignoring NaN (NaN only where every element is NaN).",
        {},
    ),
    (
        "quantile(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, "
        "str interpolation='linear') -> Tensor",
        "reduction",
        "The ``q``-th quantiles (a number or a 1-D tensor in [0, 1]; its dim comes first) "
        "over ``dim`` (the flattened tensor when None), interpolated 'linear', 'lower', "
        "'higher', 'midpoint' or 'nearest'. NaN propagates.",
        {"scalars": "q"},
    ),
    (
        "nanquantile(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, "
        "str interpolation='linear') -> Tensor",
        "reduction",
        ":func:`quantile` ignoring NaN.",
        {"scalars": "q"},
    ),
    (
        "nanmean(Tensor self, int[]? dim=None, bool keepdim=False, *, "
        "ScalarType? dtype=None) -> Tensor",
        "reduction",
        "Mean over ``dim`` of the elements that are not NaN.",
        {},
    ),
    (
        "nansum(Tensor self, int[]? dim=None, bool keepdim=False, *, "
        "ScalarType? dtype=None) -> Tensor",
        "reduction",
        "Sum over ``dim`` with NaN counted as zero.",
        {},
    ),
    (
        "var_mean(Tensor self, int[]? dim=None, *, Scalar? correction=None, "
        "bool keepdim=False) -> (Tensor, Tensor)",
        "reduction",
        "``(var, mean)`` over ``dim`` (see :func:`var`).",
        {},
    ),
    (
        "std_mean(Tensor self, int[]? dim=None, *, Scalar? correction=None, "
        "bool keepdim=False) -> (Tensor, Tensor)",
        "reduction",
        "``(std, mean)`` over ``dim`` (see :func:`std`).",
        {},
    ),
    (
        "aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)",
        "reduction",
        "The minimum and maximum over ``dim`` (all elements when None).",
        {},
    ),
]
for _sig, _tags, _doc, _kw in _COMPOSITE_DECLS:
    _op(
        _sig, _tags + " " + _CS, _doc, dtypes=_CS_DTYPES.get(_sig[: _sig.index("(")], "bifc"), **_kw
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
    meta_function=M.meta_clone,
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
    meta_function=M.meta_to_dtype,
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
    "bernoulli_(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)",
    "random nondifferentiable inplace composite",
    "Fills ``self`` with 1 (probability ``p``) or 0: a float64 uniform draw below ``p``, as "
    "PyTorch's CPU kernel draws it.",
    function=False,
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
    meta_function=M.meta_empty,
    **_FK,
)
_op(
    "full(int[] size, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None, "
    "bool? requires_grad=False) -> Tensor",
    _F,
    "A tensor filled with ``fill_value``.",
    values="fill_value",
    meta_function=M.meta_full,
    **_FK,
)
_op(
    "arange(Scalar start, Scalar? end=None, Scalar step=1, *, ScalarType? dtype=None, "
    "Device? device=None, bool? requires_grad=False) -> Tensor",
    _F,
    "Values from ``start`` to ``end`` (exclusive) in steps of ``step``.",
    dtypes="if",
    meta_function=M.meta_arange,
    **_FK,
)
_op(
    "linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Device? device=None, "
    "bool? requires_grad=False) -> Tensor",
    _F,
    "``steps`` evenly spaced values from start to end.",
    dtypes="ifc",
    meta_function=M.meta_linspace,
    **_FK,
)
_op(
    "eye(int n, int? m=None, *, ScalarType? dtype=None, Device? device=None, "
    "bool? requires_grad=False) -> Tensor",
    _F,
    "A 2-D tensor with ones on the diagonal.",
    meta_function=M.meta_eye,
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
    meta_function=M.meta_randperm,
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
    (
        "bernoulli(Tensor self, *, Generator? generator=None) -> Tensor",
        "random nondifferentiable",
        "0 or 1 for each element, 1 with the probability the element holds (a float32 "
        "uniform draw below it, as PyTorch's CPU kernel).",
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
        dtypes="f" if _sig.startswith(("multinomial", "bernoulli")) else "bifc",
    )
# Linear algebra written with other operators (``ops/composite_linalg.py``): ``linalg_*``
# are internal (``tensorcore.linalg`` names them), the others are PyTorch's top-level
# functions and methods.
_CL = "linalg composite"
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
        "linalg_multi_dot(Tensor[] tensors) -> Tensor",
        "The product of a chain of matrices, in the cheapest order.",
    ),
    (
        "linalg_vecdot(Tensor x, Tensor y, *, int dim=-1) -> Tensor",
        "``sum(conj(x) * y, dim)``, broadcast.",
    ),
]:
    _op(_sig, " ".join([_CL, *_more]), _doc, function=False, method=False)
for _sig, _doc, _method in [
    (
        "tensordot(Tensor a, Tensor b, Any dims=2) -> Tensor",
        "Contracts the last ``dims`` dims of ``a`` with the first of ``b`` (or the given "
        "pairs of dims).",
        False,
    ),
    ("trace(Tensor self) -> Tensor", "The sum of the diagonal of a matrix.", True),
    ("kron(Tensor self, Tensor other) -> Tensor", "The Kronecker product.", True),
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
        "matrix_power(Tensor self, int n) -> Tensor",
        "Alias of :func:`tensorcore.linalg.matrix_power`.",
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
    _op(_sig, _CL, _doc, method=_method)
_op(
    "positive(Tensor self) -> Tensor",
    "pointwise composite",
    "``self`` itself (what unary ``+`` runs); refused for bool tensors, as PyTorch does.",
    dtypes="ifc",
    dtype_hint="The `+` operator, on a bool tensor is not supported.",
)
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
