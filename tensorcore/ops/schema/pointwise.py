"""Pointwise operators: arithmetic, comparisons, activations, their fused backward operators,
and the special functions."""

from __future__ import annotations

from .. import arg_checks as AC
from .. import meta_functions as M
from ._declare import _binary, _op, _unary

# ---------------------------------------------------------------- pointwise
_binary("add", "Adds ``other``, scaled by ``alpha``, to ``self``.", extra=", *, Scalar alpha=1")
_binary(
    "sub",
    "Subtracts ``other``, scaled by ``alpha``, from ``self``.",
    extra=", *, Scalar alpha=1",
    dtypes="ifc",
    # (only two bools promote to bool: a bool with a number is check_sub_bool's)
    dtype_error="Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
    "`^` or `logical_xor()` operator instead.",
    check=AC.check_sub_bool,
    node_when="self=number:RsubBackward1",
)
_binary("mul", "Multiplies ``self`` by ``other`` elementwise.", opmath_scalars=True)
_binary(
    "div",
    "Divides ``self`` by ``other``; ``rounding_mode`` is None, 'trunc' or 'floor'.",
    promote="float",
    extra=", *, str? rounding_mode=None",
    opmath_scalars=True,
    promote_when="rounding_mode:same",
    node_when="rounding_mode:DivBackward2",
    check=AC.check_rounding_mode,
)
_binary(
    "floor_divide",
    "Divides and rounds down to the nearest integer.",
    tags="nondifferentiable",
    opmath_scalars=True,
    dtypes="if",
)
_binary(
    "remainder",
    "Python-style modulus: the result has the sign of the divisor.",
    dtypes="if",
    node_when="other=tensor:RemainderBackward1",
)
_binary("fmod", "C-style modulus: the result has the sign of the dividend.", dtypes="if")
_binary(
    "pow",
    "Raises ``self`` to the power ``other``.",
    dtypes="ifc",
    values="other",
    values_round_floats=4,
    check=AC.check_pow,
    node_when="self=number:PowBackward2 other=tensor:PowBackward1",
)
_binary(
    "atan2",
    "Elementwise arctangent of ``self / other`` with quadrant.",
    promote="float",
    dtypes="bif",
)
_binary(
    "maximum",
    "Elementwise maximum (NaN propagates).",
    dtypes="bif",
    dtype_error="maximum not implemented for complex tensors.",
)
_binary(
    "minimum",
    "Elementwise minimum (NaN propagates).",
    dtypes="bif",
    dtype_error="minimum not implemented for complex tensors.",
)
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
        # (PyTorch shifts integers only)
        dtypes="i" if _n.endswith("shift") else "bifc",
    )

_unary(
    "neg",
    "Negates each element.",
    dtypes="ifc",
    dtype_error="Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
    "to invert a mask, use the `~` or `logical_not()` operator instead.",
    out_dtype="same",
)
_unary(
    "abs",
    "Absolute value (the magnitude for complex input).",
    promote="real",
    dtypes="ifc",
    out_dtype="same",
)
_unary("sign", "The sign of each element (-1, 0 or 1).", dtypes="bif", out_dtype="same")
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
        tensors_only=" ".join(_p.split()[1] for _p in _sig.split(", ")[:2]),
    )
# The piecewise-linear activations and their gradients, PyTorch's operators (what
# ``nn.functional`` calls). Each gradient is an operator of its own that takes ``self``, as
# ``threshold_backward`` does, so that a double backward reaches the input through it (its
# derivative in ``self`` is a zero that flows: ``leaky_relu``'s second derivative is zeros,
# not "unused"). Not public functions, as in PyTorch (``torch._C._nn``). ``silu``, ``mish``
# and ``hardswish`` (smooth, or nearly) are here too: their gradients as one formula each keep
# an infinite or huge incoming gradient from turning into NaN (the products of a composite
# give ``inf * 0`` where a factor of the derivative rounds to 0).
for _sig, _d, _dt in [
    (
        "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
        "``self`` where ``self > 0``, else ``negative_slope * self``.",
        "f",
    ),
    (
        "leaky_relu_backward(Tensor grad_output, Tensor self, Scalar negative_slope, "
        "bool self_is_result) -> Tensor",
        "The gradient of ``leaky_relu``: ``grad_output`` where ``self > 0``, else "
        "``negative_slope * grad_output``.",
        "f",
    ),
    (
        "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
        "``self`` clamped to ``[min_val, max_val]``.",
        "if",
    ),
    (
        "hardtanh_backward(Tensor grad_output, Tensor self, Scalar min_val, Scalar max_val) "
        "-> Tensor",
        "The gradient of ``hardtanh``: ``grad_output`` where ``min_val < self < max_val``, else 0.",
        "f",
    ),
    ("hardsigmoid(Tensor self) -> Tensor", "``min(max(self + 3, 0), 6) / 6``.", "f"),
    (
        "hardsigmoid_backward(Tensor grad_output, Tensor self) -> Tensor",
        "The gradient of ``hardsigmoid``: ``grad_output / 6`` where ``-3 < self < 3``, else 0.",
        "f",
    ),
    ("silu(Tensor self) -> Tensor", "``self * sigmoid(self)``.", "fc"),
    (
        "silu_backward(Tensor grad_output, Tensor self) -> Tensor",
        "The gradient of ``silu``: ``grad_output * s * (1 + self * (1 - s))``, "
        "``s = sigmoid(self)`` (its conjugate for complex numbers).",
        "fc",
    ),
    (
        "softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
        "``log(1 + exp(beta * self)) / beta``, and ``self`` where ``beta * self > threshold``.",
        "f",
    ),
    (
        "softplus_backward(Tensor grad_output, Tensor self, Scalar beta, Scalar threshold) "
        "-> Tensor",
        "The gradient of ``softplus``: ``grad_output * sigmoid(beta * self)``, and "
        "``grad_output`` where ``beta * self > threshold``.",
        "f",
    ),
    (
        "log_sigmoid(Tensor self) -> Tensor",
        "``log(sigmoid(self))``, computed stably: ``min(self, 0) - log1p(exp(-|self|))``.",
        "f",
    ),
    (
        # (PyTorch's also takes the forward's buffer, exp(-|self|) on CPU; this one recomputes)
        "log_sigmoid_backward(Tensor grad_output, Tensor self) -> Tensor",
        "The gradient of ``log_sigmoid``: ``grad_output * sigmoid(-self)``.",
        "f",
    ),
    ("mish(Tensor self) -> Tensor", "``self * tanh(softplus(self))``.", "f"),
    (
        "mish_backward(Tensor grad_output, Tensor self) -> Tensor",
        "The gradient of ``mish``: ``grad_output * (t + self * sigmoid(self) * (1 - t**2))``, "
        "``t = tanh(softplus(self))``.",
        "f",
    ),
    (
        "hardswish(Tensor self) -> Tensor",
        "``self * min(max(self + 3, 0), 6) / 6``: 0 at and below -3, ``self`` from 3 on.",
        "f",
    ),
    (
        "hardswish_backward(Tensor grad_output, Tensor self) -> Tensor",
        "The gradient of ``hardswish``: 0 at and below -3, ``grad_output * (self / 3 + 1 / 2)`` "
        "below 3, ``grad_output`` from 3 on.",
        "f",
    ),
    (
        "softshrink(Tensor self, Scalar lambd=0.5) -> Tensor",
        "``self`` moved ``lambd`` towards 0, and 0 within ``lambd`` of it.",
        "f",
    ),
    (
        "softshrink_backward(Tensor grad_output, Tensor self, Scalar lambd) -> Tensor",
        "The gradient of ``softshrink``: 0 where ``-lambd <= self <= lambd``, else "
        "``grad_output``.",
        "f",
    ),
    (
        "hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor",
        "0 where ``-lambd <= self <= lambd``, else ``self``.",
        "f",
    ),
    (
        "hardshrink_backward(Tensor grad_out, Tensor self, Scalar lambd) -> Tensor",
        "The gradient of ``hardshrink``: 0 where ``-lambd <= self <= lambd``, else ``grad_out``.",
        "f",
    ),
    (
        "threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor",
        "``value`` where ``self <= threshold``, else ``self``.",
        "if",
    ),
]:
    _grad = _sig.split("(")[0].endswith("_backward")
    _op(
        _sig,
        "pointwise nn",
        _d,
        frontend="pointwise",
        method=False,
        function=False,
        inplace=False,
        dtypes=_dt,
        tensors_only=("grad_out self" if "grad_out," in _sig else "grad_output self")
        if _grad
        else "",
    )
# ELU and its gradient (PyTorch's ``elu``/``elu_backward``), which ``nn.functional``'s
# ``elu``, ``selu`` and ``celu`` all call with their constants: one pass each way where the
# composite recorded four nodes forward (``where``, ``gt``, ``clamp``, ``expm1``, ``mul``).
_op(
    "elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor",
    "pointwise nn",
    "``scale * self`` where ``self > 0``, else ``scale * alpha * (exp(self * input_scale) - 1)``.",
    frontend="pointwise",
    method=False,
    function=False,
    inplace=False,
    dtypes="f",
)
_op(
    "elu_backward(Tensor grad_output, Scalar alpha, Scalar scale, Scalar input_scale, "
    "bool is_result, Tensor self_or_result) -> Tensor",
    "pointwise nn",
    "The gradient of ``elu``: ``grad_output * scale`` where ``self_or_result > 0``, else "
    "``grad_output * alpha * scale * input_scale * exp(self * input_scale)`` (from the input), "
    "or ``grad_output * input_scale * (result + alpha * scale)`` (from the result, "
    "``is_result``).",
    frontend="pointwise",
    method=False,
    function=False,
    inplace=False,
    dtypes="f",
    tensors_only="grad_output self_or_result",
)
# GELU and its gradient, each one pass (the composite is five operators forward and ten
# backward; PyTorch's gelu/gelu_backward).
for _sig, _d in [
    (
        'gelu(Tensor self, *, str approximate="none") -> Tensor',
        "Gaussian error linear unit ``self * Phi(self)`` (``Phi`` the standard normal CDF), or "
        "with ``approximate='tanh'`` ``0.5 * self * (1 + tanh(sqrt(2 / pi) * (self + 0.044715 "
        "* self**3)))``: what ``nn.functional.gelu`` computes.",
    ),
    (
        'gelu_backward(Tensor grad_output, Tensor self, *, str approximate="none") -> Tensor',
        "The gradient of ``gelu``: ``grad_output * gelu'(self)``.",
    ),
]:
    _op(
        _sig,
        "pointwise",
        _d,
        frontend="pointwise",
        out=True,
        method=False,
        dtypes="f",
        check=AC.check_gelu_approximate,
        tensors_only="grad_output self" if "backward" in _sig else "",
    )
_unary(
    "conj",
    "The complex conjugate, as a new tensor (PyTorch returns a lazily conjugated view); "
    "a copy of a real tensor.",
    inplace=False,
)
_unary("floor", "Rounds down to an integer value.", dtypes="if", out_dtype="same")
_unary("ceil", "Rounds up to an integer value.", dtypes="if", out_dtype="same")
_unary("trunc", "Rounds towards zero.", dtypes="if", out_dtype="same")
_op(
    "round(Tensor self, *, int decimals=0) -> Tensor",
    "pointwise",
    "Rounds half to even, to ``decimals`` decimal places.",
    frontend="pointwise",
    inplace=True,
    out=True,
    dtypes="if",
    out_dtype="same",
    check=AC.check_round_decimals,
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
    out_dtype="same",
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
    dtypes="bif",
    values="min max",
    out_dtype="same",
    node="ClampBackward1",
    node_when="min=tensor:ClampBackward0 max=tensor:ClampBackward0",
    check=AC.check_clamp_bool,
)
_op(
    "where(Tensor condition, Tensor self, Tensor other) -> Tensor",
    "pointwise",
    "Takes ``self`` where ``condition`` is true and ``other`` elsewhere; ``where(condition)`` "
    "alone is ``nonzero(condition, as_tuple=True)``.",
    frontend="pointwise",
    alone="nonzero_numpy",
    out=True,
    method=False,
    promote_args="self other",
    masks="condition",
    values="self other",
    values_round_floats=2,
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
    node_when="weight=tensor:LerpBackward1",
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
# The third field: the check of PyTorch's erfcx, which has no 16-bit loops (i0e and i1e
# have).
for _n, _d, _check in [
    ("special_i0e", "``exp(-|x|) I0(x)``, the exponentially scaled :func:`i0` (PyTorch's "
     "``torch.special.i0e``).", None),
    ("special_i1e", "``exp(-|x|) I1(x)``, the exponentially scaled :func:`special_i1` "
     "(``torch.special.i1e``).", None),
    ("special_erfcx", "The scaled complementary error function ``exp(x^2) erfc(x)`` "
     "(``torch.special.erfcx``), finite where ``erfc`` underflows.",
     AC.refuses_16bit_floats("erfcx")),
]:  # fmt: skip
    _op(
        f"{_n}(Tensor self) -> Tensor",
        "pointwise",
        _d,
        frontend="pointwise",
        check=_check,
        promote="float",
        out=True,
        method=False,
        dtypes="bif",
    )
# PyTorch's Bessel and Airy functions of ``torch.special`` (computed by SciPy's, or CuPy's
# ``cupyx.scipy.special``): like PyTorch's, their results never require grad.
for _n, _d in [
    ("special_bessel_j0", "The Bessel function of the first kind of order 0, ``J0(x)``."),
    ("special_bessel_j1", "The Bessel function of the first kind of order 1, ``J1(x)``."),
    ("special_bessel_y0", "The Bessel function of the second kind of order 0, ``Y0(x)`` "
     "(-inf at 0, NaN below)."),
    ("special_bessel_y1", "The Bessel function of the second kind of order 1, ``Y1(x)`` "
     "(-inf at 0, NaN below)."),
    ("special_modified_bessel_k0", "The modified Bessel function of the second kind of "
     "order 0, ``K0(x)`` (inf at 0, NaN below)."),
    ("special_modified_bessel_k1", "The modified Bessel function of the second kind of "
     "order 1, ``K1(x)`` (inf at 0, NaN below)."),
    ("special_scaled_modified_bessel_k0", "``exp(x) K0(x)``, the exponentially scaled "
     ":func:`special_modified_bessel_k0`."),
    ("special_scaled_modified_bessel_k1", "``exp(x) K1(x)``, the exponentially scaled "
     ":func:`special_modified_bessel_k1`."),
    ("special_airy_ai", "The Airy function ``Ai(x)``."),
]:  # fmt: skip
    _op(
        f"{_n}(Tensor self) -> Tensor",
        "pointwise nondifferentiable",
        _d + " PyTorch's ``torch.special." + _n.removeprefix("special_") + "``.",
        frontend="pointwise",
        check=AC.refuses_16bit_floats(_n.removeprefix("special_")),
        promote="float",
        out=True,
        method=False,
        dtypes="bif",
    )
_op(
    "special_zeta(Tensor self, Tensor other) -> Tensor",
    "pointwise",
    "The Hurwitz zeta function ``sum_{k >= 0} (k + other) ** -self`` (the Riemann zeta "
    "function at ``other = 1``; PyTorch's ``torch.special.zeta``). Differentiable in "
    "``other`` only, as PyTorch's.",
    frontend="pointwise",
    check=AC.refuses_16bit_floats("zeta"),
    promote="float",
    out=True,
    method=False,
    dtypes="bif",
    node_when="self=number:SpecialZetaBackward1 other=number:SpecialZetaBackward2",
)
_op(
    "polygamma(int n, Tensor self) -> Tensor",
    "pointwise",
    "The ``n``-th derivative of :func:`digamma` (``n >= 0``); ``Tensor.polygamma(n)`` is its "
    "method.",
    frontend="pointwise",
    check=AC.check_polygamma_order,
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
    dtype_error="frexp() only supports floating-point dtypes",
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
    dtype_error="fmax not implemented for complex tensors.",
    inplace=False,
)
_binary(
    "fmin",
    "Elementwise minimum that ignores NaN (NaN only where both are NaN).",
    dtypes="bif",
    dtype_error="fmin not implemented for complex tensors.",
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
    tensors_only="self values",
    mixed_dtypes_error="heaviside is not yet implemented for tensors with different dtypes.",
    dtype_error="heaviside is not yet implemented for complex tensors.",
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
