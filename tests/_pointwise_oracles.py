"""The NumPy oracles of the pointwise operators, shared by the generic pointwise tests
(``test_pointwise.py``) and the Python-scalar conversion tests (``test_scalar_conversion.py``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
import scipy.special as sps

import tensorcore as tc
from tensorcore.testing import backends_for

FLOATS = (tc.float32, tc.float64)
INTS = (tc.int32, tc.int64)
ALL = (tc.bool, *INTS, *FLOATS)
NO_BOOL = (*INTS, *FLOATS)
INT_BOOL = (tc.bool, *INTS)


def _nonzero(i: int, d: tc.dtype) -> dict[str, Any]:
    return {"exclude_zero": True} if i == 1 else {}


def _nonzero2(i: int, d: tc.dtype) -> dict[str, Any]:
    return {"exclude_zero": True} if i == 2 else {}


def _pow(i: int, d: tc.dtype) -> dict[str, Any]:
    if i == 1:
        return (
            {"min_value": 0, "max_value": 4}
            if not d.is_floating_point
            else {"min_value": -3, "max_value": 3}
        )
    return {}


def _shift(i: int, d: tc.dtype) -> dict[str, Any]:
    return {"min_value": 0, "max_value": 3} if i == 1 else {}


def _rounding(fn: Callable[..., Any]) -> Callable[..., Any]:
    return lambda x: fn(x) if x.dtype.kind == "f" else x.copy()


def _gelu(x: Any) -> Any:
    x64 = x.astype(np.float64)
    return x64 * 0.5 * sps.erfc(-x64 / math.sqrt(2))


def _gelu_grad(x: Any) -> Any:
    x64 = x.astype(np.float64)
    return 0.5 * sps.erfc(-x64 / math.sqrt(2)) + x64 * np.exp(-x64 * x64 / 2) / math.sqrt(
        2 * math.pi
    )


def _logaddexp(x: Any, y: Any) -> Any:
    """``max(x, y) + log1p(exp(-|x - y|))`` (NumPy's ``logaddexp`` is this formula with the
    C library's ``exp``, which rounds differently from NumPy's vectorised one that the CPU
    kernel uses; ``test_logaddexp_fast.py`` checks the accuracy against float64)."""
    x, y = np.asarray(x), np.asarray(y)
    if np.result_type(x, y).itemsize < 4:  # (16-bit floats: NumPy's, as the kernel)
        return np.logaddexp(x, y)
    d = np.fmin(-np.abs(x - y), 0)  # (x == y == +-inf: NaN, read as 0)
    return np.maximum(x, y) + np.log1p(np.exp(d))


def _sig64(x: Any) -> Any:
    return sps.expit(x.astype(np.float64))


def _tsp64(x: Any) -> Any:
    return np.tanh(np.logaddexp(x.astype(np.float64), 0.0))


def _hardswish_grad(x: Any) -> Any:
    x64 = x.astype(np.float64)
    return np.where(x64 <= -3, 0.0, np.where(x64 < 3, x64 / 3 + 0.5, 1.0))


@dataclass(frozen=True)
class Oracle:
    """How NumPy computes an operator, on inputs already cast to the compute dtype."""

    fn: Callable[..., Any]
    arity: int = 1
    dtypes: tuple[tc.dtype, ...] = ALL
    #: the result dtype: "same" (the promoted dtype), "float" (floating, the default dtype for
    #: integer inputs), "double" (float64, complex128 for complex inputs), "bool", "real" (the
    #: real dtype of a complex one). ``fn`` may return several results (``frexp``): the first
    #: has this dtype, the others keep the dtype ``fn`` gives them.
    result: str = "same"
    domain: Callable[[int, tc.dtype], dict[str, Any]] = field(default=lambda i, d: {})
    #: every tensor argument has the first one's dtype (lerp).
    same_dtype: bool = False
    #: a Python scalar may replace the second argument.
    scalars: bool = True
    #: non-tensor arguments passed after the operands (to the operator and to ``fn``).
    extra: tuple[Any, ...] = ()
    #: non-tensor arguments passed before the operands (``polygamma``'s order ``n``).
    leading: tuple[Any, ...] = ()
    #: non-tensor arguments passed between the first operand and the others
    #: (``elu_backward``'s constants, between ``grad_output`` and ``self_or_result``).
    between: tuple[Any, ...] = ()

    def arguments(self, operands: list[Any]) -> tuple[Any, ...]:
        """The operator's (and ``fn``'s) arguments, in signature order, around ``operands``."""
        return (*self.leading, *operands[:1], *self.between, *operands[1:], *self.extra)


def _zeta(x: Any, q: Any) -> Any:
    # PyTorch's zeta is NaN at q = +inf (but for x = 1), where SciPy gives the limit 0.
    x, q = np.asarray(x), np.asarray(q)
    return np.where(np.isposinf(q) & (x != 1), np.nan, sps.zeta(x, q))


def _cmp(fn: Callable[..., Any]) -> Oracle:
    return Oracle(fn, 2, result="bool")


def _float(fn: Callable[..., Any]) -> Oracle:
    return Oracle(fn, 1, result="float")


def _lgamma(x: Any) -> Any:
    # SciPy's gammaln is inf at subnormal arguments, where log|Gamma(x)| is -log|x| (about
    # 720 at 1e-313; PyTorch and math.lgamma give it)
    tiny = np.abs(x) < np.finfo(x.dtype).tiny
    with np.errstate(divide="ignore"):
        return np.where(tiny, -np.log(np.abs(x)), sps.gammaln(x))


def _clamp(x: Any, lo: Any, hi: Any) -> Any:
    return np.minimum(np.maximum(x, lo), hi)


def _lerp(a: Any, b: Any, w: Any) -> Any:
    # PyTorch's formula, from the nearer end, in float32 for 16-bit floats.
    acc = np.float32 if a.dtype.itemsize == 2 else a.dtype
    a, b = a.astype(acc), b.astype(acc)
    diff = b - a
    return np.where(np.abs(w) < 0.5, a + w * diff, b - diff * (1 - w))


def _sigmoid(x: Any) -> Any:
    return 1 / (1 + np.exp(-x))


def _digamma(x: Any) -> Any:
    # Negative arguments by reflection, psi(x) = psi(1 - x) - pi / tan(pi x), with x's
    # fraction taken exactly (SciPy's digamma loses digits next to the poles); PyTorch's
    # values at the poles: -inf at +0, +inf at -0, NaN at the negative integers.
    neg = x < 0
    r = sps.digamma(np.where(neg, 1 - x, x))
    r = np.where(neg, r - np.pi / np.tan(np.pi * (x - np.rint(x))), r)
    r = np.where(x == 0, np.copysign(np.inf, -x), r)
    return np.where((x < 0) & (x == np.floor(x)), np.nan, r)


def _xlogy(x: Any, y: Any) -> Any:
    return np.where((x == 0) & ~np.isnan(y), np.zeros((), x.dtype), x * np.log(y))


def _heaviside(x: Any, v: Any) -> Any:
    return np.where(x == 0, v, x > 0).astype(x.dtype)


def _signbit(x: Any) -> Any:
    return np.signbit(x) if x.dtype.kind == "f" else x.astype(np.int64) < 0


def _unit(i: int, d: tc.dtype) -> dict[str, Any]:
    return {"min_value": -1, "max_value": 1}


ORACLES: dict[str, Oracle] = {
    "add": Oracle(np.add, 2),
    "sub": Oracle(np.subtract, 2, NO_BOOL),
    "rsub": Oracle(lambda a, b: b - a, 2, NO_BOOL),
    "mul": Oracle(np.multiply, 2),
    "div": Oracle(np.true_divide, 2, result="float", domain=_nonzero),
    "true_divide": Oracle(np.true_divide, 2, result="float", domain=_nonzero),
    "floor_divide": Oracle(np.floor_divide, 2, NO_BOOL, domain=_nonzero),
    "remainder": Oracle(np.remainder, 2, NO_BOOL, domain=_nonzero),
    "fmod": Oracle(np.fmod, 2, NO_BOOL, domain=_nonzero),
    "pow": Oracle(np.power, 2, NO_BOOL, domain=_pow),
    "atan2": Oracle(np.arctan2, 2, result="float"),
    "maximum": Oracle(np.maximum, 2),
    "minimum": Oracle(np.minimum, 2),
    "eq": _cmp(np.equal),
    "ne": _cmp(np.not_equal),
    "lt": _cmp(np.less),
    "le": _cmp(np.less_equal),
    "gt": _cmp(np.greater),
    "ge": _cmp(np.greater_equal),
    "isclose": Oracle(np.isclose, 2, NO_BOOL, result="bool", same_dtype=True, scalars=False),
    "logical_and": _cmp(np.logical_and),
    "logical_or": _cmp(np.logical_or),
    "logical_xor": _cmp(np.logical_xor),
    "bitwise_and": Oracle(np.bitwise_and, 2, INT_BOOL),
    "bitwise_or": Oracle(np.bitwise_or, 2, INT_BOOL),
    "bitwise_xor": Oracle(np.bitwise_xor, 2, INT_BOOL),
    "bitwise_left_shift": Oracle(np.left_shift, 2, INTS, domain=_shift),
    "bitwise_right_shift": Oracle(np.right_shift, 2, INTS, domain=_shift),
    "neg": Oracle(np.negative, 1, NO_BOOL),
    "abs": Oracle(np.abs, 1, NO_BOOL, result="real"),
    "sign": Oracle(np.sign, 1, NO_BOOL),
    "square": Oracle(np.square, 1, NO_BOOL),
    "reciprocal": _float(np.reciprocal),
    "exp": _float(np.exp),
    "erf": _float(np.vectorize(math.erf, otypes=[float])),
    "exp2": _float(np.exp2),
    "expm1": _float(np.expm1),
    "log": _float(np.log),
    "log2": _float(np.log2),
    "log10": _float(np.log10),
    "log1p": _float(np.log1p),
    "sqrt": _float(np.sqrt),
    "rsqrt": _float(lambda x: 1 / np.sqrt(x)),
    "sin": _float(np.sin),
    "cos": _float(np.cos),
    "tan": _float(np.tan),
    "asin": _float(np.arcsin),
    "acos": _float(np.arccos),
    "atan": _float(np.arctan),
    "sinh": _float(np.sinh),
    "cosh": _float(np.cosh),
    "tanh": _float(np.tanh),
    "sigmoid": _float(_sigmoid),
    "relu": Oracle(lambda x: np.maximum(x, np.zeros((), x.dtype)), 1, NO_BOOL),
    # (y * y, as PyTorch computes it: NumPy's float32 y ** 2 can round the other way)
    "tanh_backward": Oracle(
        lambda g, y: g * (1 - np.conj(y) * np.conj(y)), 2, FLOATS, scalars=False
    ),
    "sigmoid_backward": Oracle(lambda g, y: g * np.conj(y * (1 - y)), 2, FLOATS, scalars=False),
    "threshold_backward": Oracle(lambda g, x, t: np.where(x <= t, np.zeros_like(g), g), 2,
                                 NO_BOOL, extra=(0.5,), scalars=False),
    "leaky_relu": Oracle(lambda x, a: np.where(x > 0, x, x * x.dtype.type(a)), 1, FLOATS,
                         extra=(0.1,), scalars=False),
    "leaky_relu_backward": Oracle(lambda g, x, a, r: np.where(x > 0, g, g * g.dtype.type(a)),
                                  2, FLOATS, extra=(0.2, False), scalars=False),
    "hardtanh": Oracle(lambda x, lo, hi: np.clip(x, lo, hi).astype(x.dtype), 1, NO_BOOL,
                       extra=(-1, 2), scalars=False),
    "hardtanh_backward": Oracle(lambda g, x, lo, hi: np.where((x <= lo) | (x >= hi),
                                                              np.zeros_like(g), g),
                                2, FLOATS, extra=(-0.5, 0.5), scalars=False),
    "hardsigmoid": Oracle(lambda x: np.clip(x + 3, 0, 6) / x.dtype.type(6), 1, FLOATS,
                          scalars=False),
    "hardsigmoid_backward": Oracle(lambda g, x: np.where((x > -3) & (x < 3),
                                                         g * g.dtype.type(1 / 6),
                                                         np.zeros_like(g)),
                                   2, FLOATS, scalars=False),
    "softshrink": Oracle(lambda x, lam: np.where(x > lam, x - x.dtype.type(lam),
                                                 np.where(x < -lam, x + x.dtype.type(lam),
                                                          x * 0)),
                         1, FLOATS, extra=(0.5,), scalars=False),
    "softshrink_backward": Oracle(lambda g, x, lam: np.where(np.abs(x) <= lam,
                                                             np.zeros_like(g), g),
                                  2, FLOATS, extra=(0.5,), scalars=False),
    "hardshrink": Oracle(lambda x, lam: np.where(np.abs(x) <= lam, np.zeros_like(x), x), 1,
                         FLOATS, extra=(0.5,), scalars=False),
    "hardshrink_backward": Oracle(lambda g, x, lam: np.where(np.abs(x) <= lam,
                                                             np.zeros_like(g), g),
                                  2, FLOATS, extra=(0.5,), scalars=False),
    "threshold": Oracle(lambda x, t, v: np.where(x <= t, np.full_like(x, v), x), 1, NO_BOOL,
                        extra=(1, 20), scalars=False),
    # (the float64 formulas, rounded; approximate="none", the default)
    "silu": Oracle(lambda x: x * _sig64(x), 1, FLOATS, scalars=False),
    "silu_backward": Oracle(lambda g, x: g * _sig64(x) * (1 + x * (1 - _sig64(x))), 2, FLOATS,
                            scalars=False),
    "log_sigmoid": Oracle(lambda x: -np.logaddexp(-x, x.dtype.type(0)), 1, FLOATS, scalars=False),
    "log_sigmoid_backward": Oracle(lambda g, x: g * _sig64(-x), 2, FLOATS, scalars=False),
    "mish": Oracle(lambda x: x * _tsp64(x), 1, FLOATS, scalars=False),
    "mish_backward": Oracle(lambda g, x: g * (_tsp64(x) + x * _sig64(x) * (1 - _tsp64(x) ** 2)),
                            2, FLOATS, scalars=False),
    "hardswish": Oracle(lambda x: x * np.clip(x + 3, 0, 6) / x.dtype.type(6), 1, FLOATS,
                        scalars=False),
    "hardswish_backward": Oracle(lambda g, x: g * _hardswish_grad(x), 2, FLOATS, scalars=False),
    "softplus": Oracle(lambda x: np.where(x > 20, x, np.logaddexp(x.astype(np.float64), 0.0)),
                       1, FLOATS, scalars=False),
    "softplus_backward": Oracle(lambda g, x, b, t: g * np.where(x * b > t, 1.0, _sig64(x * b)),
                                2, FLOATS, extra=(2.0, 3.0), scalars=False),
    "elu": Oracle(lambda x, a, s, k: np.where(x > 0, s * x,
                                              (a * s) * np.expm1(np.minimum(x, 0) * k)),
                  1, FLOATS, extra=(0.7, 1.5, 0.5), scalars=False),
    "elu_backward": Oracle(lambda g, a, s, k, r, x: g * np.where(x > 0, s, (
        (np.minimum(x, 0) + a * s) * k if r else (a * s * k) * np.exp(np.minimum(x, 0) * k))),
        2, FLOATS, between=(0.7, 1.5, 0.5, False), scalars=False),
    "gelu": Oracle(_gelu, 1, FLOATS, scalars=False),
    "gelu_backward": Oracle(lambda g, x: g * _gelu_grad(x), 2, FLOATS, scalars=False),
    "conj": Oracle(lambda x: np.conj(x) if x.dtype.kind == "c" else x.copy(), 1),
    "floor": Oracle(_rounding(np.floor), 1, NO_BOOL),
    "ceil": Oracle(_rounding(np.ceil), 1, NO_BOOL),
    "trunc": Oracle(_rounding(np.trunc), 1, NO_BOOL),
    "round": Oracle(_rounding(np.round), 1, NO_BOOL),
    "isnan": Oracle(np.isnan, 1, result="bool"),
    "isinf": Oracle(np.isinf, 1, result="bool"),
    "isfinite": Oracle(np.isfinite, 1, result="bool"),
    "logical_not": Oracle(np.logical_not, 1, result="bool"),
    "bitwise_not": Oracle(np.invert, 1, INT_BOOL),
    "nan_to_num": Oracle(lambda x: np.nan_to_num(x, nan=0.0), 1),
    "clamp": Oracle(_clamp, 3, NO_BOOL, scalars=False),
    "clamp_min": Oracle(np.maximum, 2, NO_BOOL, scalars=False),
    "clamp_max": Oracle(np.minimum, 2, NO_BOOL, scalars=False),
    "addcmul": Oracle(lambda x, a, b: x + a * b, 3, NO_BOOL, scalars=False),
    "addcdiv": Oracle(lambda x, a, b: x + a / b, 3, FLOATS, scalars=False, domain=_nonzero2),
    "clip": Oracle(_clamp, 3, NO_BOOL, scalars=False),
    "where": Oracle(np.where, 3, scalars=False),
    "lerp": Oracle(_lerp, 3, FLOATS, same_dtype=True, scalars=False),
    "acosh": _float(np.arccosh),
    "asinh": _float(np.arcsinh),
    "atanh": _float(np.arctanh),
    "erfc": _float(sps.erfc),
    "erfinv": Oracle(sps.erfinv, 1, result="float", domain=_unit),
    "lgamma": _float(_lgamma),
    "digamma": _float(_digamma),
    "polygamma": Oracle(sps.polygamma, 1, result="float", leading=(2,)),
    "i0": _float(sps.i0),
    "special_i1": _float(sps.i1),
    "special_i0e": _float(sps.i0e),
    "special_i1e": _float(sps.i1e),
    "special_erfcx": _float(sps.erfcx),
    "special_bessel_j0": _float(sps.j0),
    "special_bessel_j1": _float(sps.j1),
    "special_bessel_y0": _float(sps.y0),
    "special_bessel_y1": _float(sps.y1),
    "special_modified_bessel_k0": _float(sps.k0),
    "special_modified_bessel_k1": _float(sps.k1),
    "special_scaled_modified_bessel_k0": _float(sps.k0e),
    "special_scaled_modified_bessel_k1": _float(sps.k1e),
    "special_airy_ai": _float(lambda x: sps.airy(x)[0]),
    "special_zeta": Oracle(_zeta, 2, result="float"),
    "sinc": _float(np.sinc),
    "deg2rad": _float(np.deg2rad),
    "rad2deg": _float(np.rad2deg),
    "logit": Oracle(lambda x: np.log(x / (1 - x)), 1, result="float"),
    "signbit": Oracle(_signbit, 1, result="bool"),
    "frexp": Oracle(np.frexp, 1, FLOATS),
    "sgn": Oracle(np.sign, 1, NO_BOOL),
    "frac": Oracle(lambda x: x - np.trunc(x), 1, FLOATS),
    "gcd": Oracle(np.gcd, 2, INTS, scalars=False),
    "lcm": Oracle(np.lcm, 2, INTS, scalars=False),
    "isneginf": Oracle(np.isneginf, 1, NO_BOOL, result="bool"),
    "isposinf": Oracle(np.isposinf, 1, NO_BOOL, result="bool"),
    "isreal": Oracle(np.isreal, 1, result="bool"),
    "mvlgamma": Oracle(
        lambda x, p: np.vectorize(sps.multigammaln, otypes=[x.dtype])(x, p),
        1,
        FLOATS,
        result="float",
        domain=lambda i, d: {"min_value": 1.5, "max_value": 5},
        extra=(2,),
    ),
    "positive": Oracle(np.positive, 1, NO_BOOL),
    "hypot": Oracle(np.hypot, 2, FLOATS),
    "logaddexp": Oracle(_logaddexp, 2, FLOATS),
    "logaddexp2": Oracle(np.logaddexp2, 2, FLOATS),
    "nextafter": Oracle(np.nextafter, 2, FLOATS),
    "copysign": Oracle(np.copysign, 2, result="float"),
    "xlogy": Oracle(_xlogy, 2, result="float"),
    "fmax": Oracle(np.fmax, 2),
    "fmin": Oracle(np.fmin, 2),
    # (PyTorch takes no Python scalar and no second dtype for ``values``)
    "heaviside": Oracle(_heaviside, 2, same_dtype=True, scalars=False),
    "float_power": Oracle(np.power, 2, result="double"),
    "ldexp": Oracle(lambda x, y: x * np.exp2(y), 2, result="float"),
}  # fmt: skip


def result_dtype(oracle: Oracle, operands: list[Any]) -> tuple[tc.dtype, tc.dtype]:
    """(compute dtype, result dtype); the promotion rules themselves are tested in test_dtypes."""
    compute = tc.result_type(*operands)
    if oracle.result == "float" and not (compute.is_floating_point or compute.is_complex):
        compute = tc.get_default_dtype()
    if oracle.result == "double":
        compute = tc.complex128 if compute.is_complex else tc.float64
    if oracle.result == "bool":
        return compute, tc.bool
    if oracle.result == "real":
        return compute, compute.to_real()
    return compute, compute


def skip_without_kernel(name: str, device: str) -> None:
    # A third-party backend may lack an operator (and lists it in its xfail file); the CPU
    # backend must have them all, so it never skips.
    if device != "cpu" and device not in backends_for(name):
        pytest.skip(f"no '{name}' kernel on '{device}'")
