"""Samples of the pointwise operators: binary, unary and the special functions. Each generator
registers itself with ``_samples``; ``samples.py`` gathers them into
:data:`tensorcore.testing.samples.SAMPLES`."""

from __future__ import annotations

import math
from collections.abc import Callable

import tensorcore as tc
from tensorcore import dtypes as dt
from tensorcore.testing._sample_base import _RAW, S, Sample, _Gen, _Maker, _samples


# ------------------------------------------------------------------ pointwise, binary
@_samples("mul")
def _mul(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3)), desc="same shape"),
        S((m.uniform(2, 3, t=True), m.uniform(3)), desc="transposed + broadcast row"),
        S((m.uniform(2, 1), m.uniform(1, 3)), desc="outer broadcast"),
        S((m.uniform(3), 2.5), desc="python scalar"),
        S((m.uniform(2, 3), m.uniform()), desc="0-dim other"),
    ]


@_samples("add", "sub", "rsub")
def _add(m: _Maker) -> list[Sample]:
    return [*_mul(m), S((m.uniform(2, 3), m.uniform(3)), {"alpha": 2}, desc="alpha")]


@_samples("true_divide")
def _true_divide(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.away(2, 3)), desc="same shape"),
        S((m.uniform(2, 3, t=True), m.away(3)), desc="transposed / broadcast row"),
        S((m.uniform(3), 1.5), desc="python scalar"),
    ]


@_samples("div")
def _div(m: _Maker) -> list[Sample]:
    # Rounded quotients jump where self / other is an integer: keep away from those.
    other = m.positive(2, 3, lo=1.0, hi=1.5)
    self = other * m.off_integer(2, 3)
    return [
        *_true_divide(m),
        S((m.uniform(3), m.away(3)), {"rounding_mode": None}, desc="rounding_mode None"),
        S((self, other), {"rounding_mode": "floor"}, desc="floor"),
        S((self, other), {"rounding_mode": "trunc"}, desc="trunc"),
    ]


@_samples("floor_divide")
def _floor_divide(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3, lo=-4, hi=4), m.away(2, 3)), desc="same shape"),
        S((m.uniform(2, 3, lo=-4, hi=4), m.away(3)), desc="broadcast"),
    ]


@_samples("remainder", "fmod")
def _remainder(m: _Maker) -> list[Sample]:
    # self = other * (k + frac): never near a multiple of other (where the result jumps).
    other = m.away(2, 3, lo=0.5, hi=1.5)
    row = m.away(3, lo=0.5, hi=1.5)
    return [
        S((other * m.off_integer(2, 3), other), desc="same shape"),
        S(((row * m.off_integer(2, 3)).t().contiguous().t(), row), desc="broadcast row"),
        S((m.off_integer(3) * 0.7, 0.7), desc="python scalar"),
    ]


@_samples("pow")
def _pow(m: _Maker) -> list[Sample]:
    return [
        S((m.positive(2, 3), m.uniform(2, 3, lo=m.low(-2), hi=2)), desc="tensor exponent"),
        S(
            (
                m.positive(3, 2, t=True),
                m.uniform(2),
            ),
            desc="transposed base, broadcast",
        ),
        S((m.uniform(2, 3), 2), desc="integer scalar exponent"),
        S((m.positive(3), 0.5), desc="fractional scalar exponent"),
    ]


@_samples("atan2")
def _atan2(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.away(2, 3)), desc="same shape"),
        S((m.uniform(2, 3, t=True), m.away(3)), desc="broadcast"),
    ]


@_samples("maximum", "minimum")
def _maximum(m: _Maker) -> list[Sample]:
    b = m.uniform(2, 3)
    a = b + m.away(2, 3, lo=0.1, hi=0.5)
    row = m.uniform(3)
    return [
        S((a, b), desc="same shape, no ties"),
        S(((row + m.away(2, 3, lo=0.1, hi=0.5)).t().contiguous().t(), row), desc="broadcast"),
    ]


@_samples("eq", "ne", "lt", "le", "gt", "ge")
def _compare(m: _Maker) -> list[Sample]:
    a = m.ints(2, 3, hi=3).to(m.dtype)
    return [
        S((a, m.ints(2, 3, hi=3).to(m.dtype)), desc="same shape"),
        S((a, m.ints(3, hi=3).to(m.dtype)), desc="broadcast"),
        S((a, 1), desc="python scalar"),
    ]


@_samples("logical_and", "logical_or", "logical_xor")
def _logical(m: _Maker) -> list[Sample]:
    return [
        S((m.mask(2, 3), m.mask(2, 3)), desc="bool"),
        S((m.ints(2, 3, hi=2).to(m.dtype), m.mask(3)), desc="numbers and bool, broadcast"),
    ]


@_samples("bitwise_and", "bitwise_or", "bitwise_xor")
def _bitwise(m: _Maker) -> list[Sample]:
    d = m.int_dtype()
    return [
        S((m.ints(2, 3, hi=16, dtype=d), m.ints(2, 3, hi=16, dtype=d)), desc="ints"),
        S((m.ints(2, 3, hi=16, dtype=d), m.ints(3, hi=16, dtype=d)), desc="broadcast"),
        S((m.mask(2, 3), m.mask(2, 3)), desc="bool"),
    ]


@_samples("bitwise_left_shift", "bitwise_right_shift")
def _shift(m: _Maker) -> list[Sample]:
    d = m.int_dtype()
    out = [
        S((m.ints(2, 3, hi=16, dtype=d), m.ints(2, 3, hi=3, dtype=d)), desc="ints"),
        S((m.ints(2, 3, hi=16, dtype=d), 1), desc="python scalar"),
    ]
    if m.dtype is dt.bool_:  # (refused: PyTorch shifts integers only)
        out.append(S((m.mask(2, 3), m.mask(2, 3)), desc="bool"))
    return out


# ------------------------------------------------------------------ pointwise, unary
def _unary(make: Callable[[_Maker, tuple[int, ...], bool], tc.Tensor]) -> _Gen:
    def gen(m: _Maker) -> list[Sample]:
        return [
            S((make(m, (2, 3), False),), desc="2-D"),
            S((make(m, (3, 4), True),), desc="transposed"),
            S((make(m, (), False),), desc="0-dim"),
        ]

    return gen


_any = _unary(lambda m, s, t: m.uniform(*s, t=t))
_away = _unary(lambda m, s, t: m.away(*s, t=t))
_pos = _unary(lambda m, s, t: m.positive(*s, t=t))
_small = _unary(lambda m, s, t: m.uniform(*s, lo=-0.9, hi=0.9, t=t))
for _n in (
    "neg",
    "exp",
    "exp2",
    "expm1",
    "sin",
    "cos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "sigmoid",
    "erf",
):
    _RAW[_n] = _any
for _n in ("abs", "sign", "reciprocal", "relu"):
    _RAW[_n] = _away
for _n in ("log", "log2", "log10", "sqrt", "rsqrt"):
    _RAW[_n] = _pos
for _n in ("asin", "acos", "tan"):
    _RAW[_n] = _small
for _n in ("conj", "real"):
    _RAW[_n] = _any
# imag of a real tensor is an error: its samples are complex (of the data dtype's precision).
_RAW["imag"] = _unary(
    lambda m, s, t: (
        m.uniform(*s, t=t).to(m.dtype.to_complex() if m.floating else tc.complex64) * (1 + 0.5j)
    )
)
_RAW["log1p"] = _unary(lambda m, s, t: m.uniform(*s, lo=-0.5, hi=2.0, t=t))
_RAW["square"] = _any
_RAW["view_as_real"] = _RAW["imag"]


@_samples("angle")
def _angle(m: _Maker) -> list[Sample]:
    # Real numbers away from 0 (where a real angle jumps) and complex ones.
    ctype = m.dtype.to_complex() if m.floating else tc.complex64
    return [
        S((m.away(2, 3),), desc="real"),
        S((m.away(3, 4, t=True).to(ctype) * (1 - 0.5j),), desc="complex, transposed"),
        S((m.away().to(ctype) * 1j,), desc="0-dim complex"),
    ]


@_samples("view_as_complex")
def _view_as_complex(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3, 2),), desc="contiguous"),
        S((m.uniform(3, 2, 2).transpose(0, 1),), desc="permuted leading dims"),
        S((m.uniform(2),), desc="one number"),
    ]


@_samples("complex", "polar")
def _complex(m: _Maker) -> list[Sample]:
    return [
        S((m.positive(2, 3), m.uniform(2, 3)), desc="same shape"),
        S((m.positive(2, 3, t=True), m.uniform(3)), desc="transposed, broadcast row"),
    ]


@_samples("tanh_backward", "sigmoid_backward")
def _activation_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3, lo=-0.9, hi=0.9)), desc="same shape"),
        S((m.uniform(3, 4, t=True), m.uniform(4, lo=-0.9, hi=0.9)), desc="broadcast"),
    ]


@_samples("gelu")
def _gelu(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3, lo=-4.0, hi=4.0),), desc="exact"),
        S((m.uniform(3, 4, t=True, lo=-4.0, hi=4.0),), {"approximate": "tanh"}, desc="tanh"),
    ]


@_samples("gelu_backward")
def _gelu_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3, lo=-4.0, hi=4.0)), desc="exact"),
        S(
            (m.uniform(3, 4, t=True), m.uniform(4, lo=-4.0, hi=4.0)),
            {"approximate": "tanh"},
            desc="tanh, broadcast",
        ),
    ]


@_samples("threshold_backward")
def _threshold_backward(m: _Maker) -> list[Sample]:
    # ``self`` away from the threshold: the step is not differentiable there.
    return [
        S((m.uniform(2, 3), m.away(2, 3), 0), desc="relu"),
        S((m.uniform(3, 4, t=True), m.away(3, 4), -0.1), desc="negative threshold"),
    ]


@_samples("leaky_relu")
def _leaky_relu(m: _Maker) -> list[Sample]:
    # ``self`` away from the kinks (0 here; +-lambd, the bounds, +-3 below).
    return [S((m.away(2, 3), 0.1)), S((m.away(3, 4, t=True),), desc="default slope")]


@_samples("leaky_relu_backward")
def _leaky_relu_backward(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.away(2, 3), 0.2, False))]


@_samples("hardtanh")
def _hardtanh(m: _Maker) -> list[Sample]:
    # (|x| >= 0.3: the negative ones clamped, the positive ones inside)
    return [S((m.away(2, 3), -0.2, 2.0)), S((m.away(3, 4, t=True),), desc="default bounds")]


@_samples("hardtanh_backward")
def _hardtanh_backward(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.away(2, 3), -0.2, 2.0))]


@_samples("hardsigmoid")
def _hardsigmoid(m: _Maker) -> list[Sample]:
    return [
        S((m.away(2, 3, lo=0.3, hi=2.5),), desc="inside"),
        S((m.away(3, 4, lo=3.5, hi=6.0, t=True),), desc="outside"),
    ]


@_samples("hardsigmoid_backward")
def _hardsigmoid_backward(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.away(2, 3, lo=2.0, hi=4.0)))]


@_samples("silu", "mish", "hardswish", "log_sigmoid")
def _smooth_activation(m: _Maker) -> list[Sample]:
    # (hardswish's kinks at -3 and 3: |x| in [0.3, 2.5] and [3.5, 6] stay off them)
    return [
        S((m.away(2, 3, lo=0.3, hi=2.5),), desc="middle"),
        S((m.away(3, 4, lo=3.5, hi=6.0, t=True),), desc="tails"),
    ]


@_samples("softplus")
def _softplus(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3),), desc="defaults"),
        S((m.away(3, 4, lo=0.3, hi=3.0), 2.0, 3.0), desc="beta 2, threshold 3 (both sides)"),
    ]


@_samples("softplus_backward")
def _softplus_backward(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.away(2, 3, lo=0.3, hi=3.0), 2.0, 3.0))]


@_samples("elu")
def _elu(m: _Maker) -> list[Sample]:
    return [
        S((m.away(2, 3),), desc="defaults"),
        S((m.away(3, 4, t=True), 0.5, 1.0507, 2.0), desc="selu-like scale, celu-like input_scale"),
    ]


@_samples("elu_backward")
def _elu_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), 0.7, 1.5, 0.5, False, m.away(2, 3)), desc="from the input"),
        S((m.uniform(2, 3), 0.7, 1.5, 0.5, True, m.away(2, 3, lo=0.3, hi=0.9)), desc="result"),
    ]


@_samples("silu_backward", "mish_backward", "hardswish_backward", "log_sigmoid_backward")
def _smooth_activation_backward(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.away(2, 3, lo=0.3, hi=2.5)))]


@_samples("softshrink", "hardshrink")
def _shrink(m: _Maker) -> list[Sample]:
    return [
        S((m.away(2, 3), 0.2), desc="outside"),
        S((m.away(3, 4, t=True), 2.0), desc="inside"),
        S((m.away(4, lo=0.6),), desc="default lambd"),
    ]


@_samples("softshrink_backward", "hardshrink_backward")
def _shrink_backward(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.away(2, 3, lo=0.3, hi=1.0), 0.6))]


@_samples("threshold")
def _threshold(m: _Maker) -> list[Sample]:
    return [S((m.away(2, 3), 0.1, 20.0)), S((m.away(3, 4, t=True), -0.2, -1.0), desc="negative")]


@_samples("_prelu_kernel")
def _prelu_kernel(m: _Maker) -> list[Sample]:
    return [
        S((m.away(2, 3, 4), m.uniform(3, 1, lo=0.1, hi=0.5)), desc="one slope per channel"),
        S((m.away(3, 4, t=True), m.uniform(1, lo=0.1, hi=0.5)), desc="one slope"),
    ]


@_samples("_prelu_kernel_backward")
def _prelu_kernel_backward(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3, 4), m.away(2, 3, 4), m.uniform(3, 1, lo=0.1, hi=0.5)))]


@_samples("smooth_l1_loss", "huber_loss")
def _pointwise_loss(m: _Maker) -> list[Sample]:
    # (|self - target| in about [0.29, 1.51): inside a parameter of 2, beyond one of 0.1,
    # away from the kinks)
    return [
        S((m.away(2, 3), m.uniform(2, 3, lo=-0.01, hi=0.01)), desc="mean, default parameter"),
        S((m.away(3, 4, t=True), m.uniform(3, 4, lo=-0.01, hi=0.01), "sum", 2.0), desc="inside"),
        S((m.away(2, 3), m.uniform(2, 3, lo=-0.01, hi=0.01), "none", 0.1), desc="beyond"),
        S((m.away(), m.uniform(lo=-0.01, hi=0.01), "none", 2.0), desc="0-d"),
    ]


@_samples("mse_loss")
def _mse_loss(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3)), desc="mean"),
        S((m.uniform(3, 4, t=True), m.uniform(3, 4), "sum"), desc="sum, transposed"),
        S((m.uniform(3, 1), m.uniform(4), "none"), desc="broadcast"),
        S((m.uniform(), m.uniform(), "mean"), desc="0-d"),
    ]


@_samples("smooth_l1_loss_backward", "huber_loss_backward")
def _pointwise_loss_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(), m.away(2, 3), m.uniform(2, 3, lo=-0.01, hi=0.01), "mean", 2.0)),
        S((m.uniform(2, 3), m.away(2, 3), m.uniform(2, 3, lo=-0.01, hi=0.01), "none", 0.1)),
    ]


@_samples("binary_cross_entropy")
def _binary_cross_entropy(m: _Maker) -> list[Sample]:
    # (probabilities in [0.1, 0.9]: away from the clamped logs and the gradient's poles)
    return [
        S((m.uniform(2, 3, lo=0.1, hi=0.9), m.uniform(2, 3, lo=0.0, hi=1.0)), desc="mean"),
        S(
            (
                m.uniform(3, 4, lo=0.1, hi=0.9, t=True),
                m.uniform(3, 4, lo=0.0, hi=1.0),
                m.uniform(4, lo=0.5, hi=2.0),
                "sum",
            ),
            desc="weight per column, sum",
        ),
        S((m.uniform(lo=0.1, hi=0.9), m.uniform(lo=0.0, hi=1.0), None, "none"), desc="0-d"),
    ]


@_samples("binary_cross_entropy_backward")
def _binary_cross_entropy_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(), m.uniform(2, 3, lo=0.1, hi=0.9), m.uniform(2, 3, lo=0.0, hi=1.0))),
        S(
            (
                m.uniform(2, 3),
                m.uniform(2, 3, lo=0.1, hi=0.9),
                m.uniform(2, 3, lo=0.0, hi=1.0),
                m.uniform(3, lo=0.5, hi=2.0),
                "none",
            ),
            desc="weight, none",
        ),
    ]


@_samples("binary_cross_entropy_with_logits")
def _binary_cross_entropy_with_logits(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3, lo=-3.0, hi=3.0), m.uniform(2, 3, lo=0.0, hi=1.0)), desc="mean"),
        S(
            (
                m.uniform(3, 4, lo=-3.0, hi=3.0, t=True),
                m.uniform(3, 4, lo=0.0, hi=1.0),
                m.uniform(4, lo=0.5, hi=2.0),
                m.uniform(4, lo=0.5, hi=2.0),
                "sum",
            ),
            desc="weight and pos_weight per column, sum",
        ),
        S((m.uniform(), m.uniform(lo=0.0, hi=1.0), None, None, "none"), desc="0-d"),
    ]


@_samples("binary_cross_entropy_with_logits_backward")
def _binary_cross_entropy_with_logits_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(), m.uniform(2, 3, lo=-3.0, hi=3.0), m.uniform(2, 3, lo=0.0, hi=1.0))),
        S(
            (
                m.uniform(2, 3),
                m.uniform(2, 3, lo=-3.0, hi=3.0),
                m.uniform(2, 3, lo=0.0, hi=1.0),
                m.uniform(3, lo=0.5, hi=2.0),
                m.uniform(3, lo=0.5, hi=2.0),
                "none",
            ),
            desc="weight and pos_weight, none",
        ),
    ]


@_samples("floor", "ceil", "trunc")
def _rounding(m: _Maker) -> list[Sample]:
    return [S((m.off_integer(2, 3),)), S((m.off_integer(4, 3).t(),), desc="transposed")]


@_samples("round")
def _round(m: _Maker) -> list[Sample]:
    # Round jumps at k + 0.5: stay within 0.3 of an integer.
    return [
        S((m.off_integer(2, 3, lo=-0.3, hi=0.3),)),
        S((m.off_integer(2, 3, lo=-0.3, hi=0.3) / 10,), {"decimals": 1}, desc="decimals"),
    ]


@_samples("isnan", "isinf", "isfinite")
def _special(m: _Maker) -> list[Sample]:
    x = m.uniform(2, 3)
    if m.dtype.is_floating_point:
        special = m.uniform(2, 3)
        special[0, 0], special[0, 1], special[1, 2] = math.nan, math.inf, -math.inf
        return [S((x,), desc="finite"), S((special,), desc="nan and infinities")]
    return [S((x,))]


@_samples("nan_to_num")
def _nan_to_num(m: _Maker) -> list[Sample]:
    out = _special(m)
    if m.dtype.is_floating_point:
        special = out[-1].args[0]
        out.append(S((special, 1.0, 5.0, -5.0), desc="explicit replacements"))
    return out


@_samples("logical_not", "bitwise_not")
def _not(m: _Maker) -> list[Sample]:
    return [S((m.mask(2, 3),), desc="bool"), S((m.ints(2, 3, hi=16, dtype=m.int_dtype()),))]


@_samples("clamp", "clip")
def _clamp(m: _Maker) -> list[Sample]:
    # Values in (-1.5, -0.8) u (-0.4, 0.4) u (0.8, 1.5): away from the bounds +-0.6.
    x = m.away(2, 3, lo=0.8, hi=1.5)
    x[0] = m.uniform(3, lo=-0.4, hi=0.4)
    lo = m.uniform(3, lo=-0.7, hi=-0.5)
    hi = m.uniform(2, 1, lo=0.5, hi=0.7)
    return [
        S((x, -0.6, 0.6), desc="scalar bounds"),
        S((x, lo, hi), desc="tensor bounds, broadcast"),
        S((x.t().contiguous().t(), None, hi), desc="max only"),
        S((x, lo), desc="min only"),
    ]


@_samples("where")
def _where(m: _Maker) -> list[Sample]:
    return [
        S((m.mask(2, 3), m.uniform(2, 3), m.uniform(2, 3)), desc="same shape"),
        S((m.mask(2, 1), m.uniform(2, 3, t=True), m.uniform(3)), desc="broadcast"),
        S((m.mask(2, 3), m.uniform(2, 3), 0.5), desc="scalar other"),
    ]


@_samples("lerp")
def _lerp(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3), m.uniform(2, 3, lo=0, hi=1)), desc="tensor weight"),
        S((m.uniform(2, 3, t=True), m.uniform(3), 0.3), desc="scalar weight, broadcast"),
    ]


# ------------------------------------------------------------------ pointwise: special functions
for _n in (
    "asinh",
    "erfc",
    "i0",
    "special_i1",
    "special_i0e",
    "special_i1e",
    "special_erfcx",
    "special_bessel_j0",
    "special_bessel_j1",
    "special_airy_ai",
    "sinc",
    "deg2rad",
    "rad2deg",
    "signbit",
):
    _RAW[_n] = _any
_RAW["positive"] = _any
for _n in ("atanh", "erfinv"):
    _RAW[_n] = _small
_RAW["acosh"] = _unary(lambda m, s, t: m.positive(*s, lo=1.2, hi=3.0, t=t))
_RAW["digamma"] = _pos


for _n in (
    "special_bessel_y0",
    "special_bessel_y1",
    "special_modified_bessel_k0",
    "special_modified_bessel_k1",
    "special_scaled_modified_bessel_k0",
    "special_scaled_modified_bessel_k1",
):
    _RAW[_n] = _pos  # (NaN below 0, infinite at 0)


@_samples("special_zeta")
def _special_zeta(m: _Maker) -> list[Sample]:
    # PyTorch differentiates zeta in ``other`` only: ``self`` is a number or an integer
    # tensor here, so that the generic gradient tests perturb ``other`` alone.
    whole = tc.tensor([[2, 3, 5]], device=m.device)
    return [
        S((2.5, m.positive(2, 3)), desc="python scalar self"),
        S((whole, m.positive(2, 3, t=True)), desc="integer self, transposed other"),
        S((whole, m.positive(3, 1)), desc="broadcast"),
    ]


@_samples("lgamma")
def _lgamma(m: _Maker) -> list[Sample]:
    # Positive, and negative between the poles (where Gamma changes sign; no bool is).
    if m.dtype is dt.bool_:
        return _pos(m)
    return [*_pos(m), S((m.off_integer(2, 3) - 4,), desc="negative, between poles")]


@_samples("polygamma")
def _polygamma(m: _Maker) -> list[Sample]:
    out = [
        S((1, m.positive(2, 3)), desc="trigamma"),
        S((2, m.positive(3, 4, t=True)), desc="n=2, transposed"),
        S((0, m.positive()), desc="n=0 (digamma), 0-dim"),
    ]
    if m.dtype is dt.bool_:  # (no bool is negative)
        return out
    return [*out, S((3, m.off_integer(2, 3) - 4), desc="n=3, negative between poles")]


@_samples("logit")
def _logit(m: _Maker) -> list[Sample]:
    inner = m.uniform(2, 3, lo=0.3, hi=0.7)
    inner[0, 0], inner[1, 2] = 0.05, 0.95  # clamped by eps=0.2: their gradient is 0
    return [
        S((m.uniform(2, 3, lo=0.1, hi=0.9),), desc="no eps"),
        S((m.uniform(3, 4, lo=0.1, hi=0.9, t=True),), {"eps": None}, desc="transposed"),
        S((inner, 0.2), desc="eps clamps"),
    ]


@_samples("frexp")
def _frexp(m: _Maker) -> list[Sample]:
    # Away from the powers of two, where the mantissa jumps.
    def values(*shape: int, t: bool = False) -> tc.Tensor:
        mag = m.away(*shape, lo=0.55, hi=0.95, t=t) * 4 if m.floating else m.ints(*shape, lo=-8)
        return mag

    return [S((values(2, 3),)), S((values(3, 4, t=True),), desc="transposed"), S((values(),))]


@_samples("hypot", "logaddexp", "logaddexp2", "nextafter")
def _hypot(m: _Maker) -> list[Sample]:
    return [
        S((m.away(2, 3), m.away(2, 3)), desc="same shape"),
        S((m.away(2, 3, t=True), m.away(3)), desc="transposed + broadcast row"),
        S((m.away(2, 1), m.away(1, 3)), desc="outer broadcast"),
        S((m.away(3), 1.5), desc="python scalar"),
    ]


@_samples("copysign")
def _copysign(m: _Maker) -> list[Sample]:
    # ``other`` away from 0, where its sign flips.
    return [
        S((m.uniform(2, 3), m.away(2, 3)), desc="same shape"),
        S((m.uniform(2, 3, t=True), m.away(3)), desc="transposed + broadcast row"),
        S((m.uniform(3), -2.0), desc="python scalar"),
    ]


@_samples("xlogy")
def _xlogy(m: _Maker) -> list[Sample]:
    # (no zero self: PyTorch's rule gives it no gradient, where x log(y) has log(y))
    return [
        S((m.uniform(2, 3), m.positive(2, 3)), desc="same shape"),
        S((m.uniform(2, 3, t=True), m.positive(3)), desc="transposed + broadcast row"),
        S((m.uniform(3), 1.5), desc="python scalar other"),
        S((2.0, m.positive(3)), desc="python scalar self"),
    ]


@_samples("fmax", "fmin")
def _fmax(m: _Maker) -> list[Sample]:
    return _maximum(m)


@_samples("heaviside")
def _heaviside(m: _Maker) -> list[Sample]:
    x = m.uniform(2, 3)
    x[0, 0] = 0.0
    return [
        S((x, m.uniform(2, 3)), desc="same shape, a zero"),
        S((m.uniform(2, 3, t=True), m.uniform(3)), desc="transposed + broadcast row"),
        S((x, m.uniform()), desc="0-d values"),  # (PyTorch refuses a Python number)
    ]


@_samples("float_power")
def _float_power(m: _Maker) -> list[Sample]:
    return _pow(m)


@_samples("ldexp")
def _ldexp(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3, lo=-2, hi=2)), desc="same shape"),
        S((m.uniform(2, 3, t=True), m.ints(3, lo=-3, hi=4)), desc="integer exponents, broadcast"),
        S((m.uniform(3), 3), desc="python int exponent"),
    ]
