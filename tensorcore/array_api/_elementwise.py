"""Elementwise functions of the array API standard."""

from __future__ import annotations

from typing import Any

import tensorcore as _tc
from tensorcore import dtypes as _dt

from ._common import _binary, checked_arrays

# ------------------------------------------------------------------ elementwise
abs = _tc.abs
acos = _tc.acos
asin = _tc.asin
atan = _tc.atan
ceil = _tc.ceil
conj = _tc.conj
cos = _tc.cos
cosh = _tc.cosh
exp = _tc.exp
floor = _tc.floor
isfinite = _tc.isfinite
isinf = _tc.isinf
isnan = _tc.isnan
log = _tc.log
log1p = _tc.log1p
log2 = _tc.log2
log10 = _tc.log10
logical_not = _tc.logical_not
negative = _tc.neg
reciprocal = _tc.reciprocal
sin = _tc.sin
sinh = _tc.sinh
sqrt = _tc.sqrt
square = _tc.square
tan = _tc.tan
trunc = _tc.trunc
bitwise_invert = _tc.bitwise_not


def real(x: Any, /) -> Any:
    """The real part (a copy of a real array)."""
    return _tc.real(x).clone() if x._dtype._category == _dt.COMPLEX else x.clone()


def imag(x: Any, /) -> Any:
    """The imaginary part (zeros for a real array)."""
    return _tc.imag(x).clone() if x._dtype._category == _dt.COMPLEX else _tc.zeros_like(x)


def expm1(x: Any, /) -> Any:
    """``exp(x) - 1``, accurate near 0; for complex input with the standard's special cases
    where PyTorch's and NumPy's kernels differ (``expm1(inf + 0j)`` is ``inf + 0j``,
    ``expm1(-inf + any j)`` is ``-1 + 0j``, ``expm1(inf + inf j)`` is ``inf + nan j``,
    ``expm1(-0 + 0j)`` is ``0 + 0j``)."""
    out = _tc.expm1(x)
    if x._dtype._category != _dt.COMPLEX:
        return out
    re, im, inf = x.real, x.imag, float("inf")
    to_minus_one = re == -inf
    real = _tc.where(
        to_minus_one,
        _tc.full_like(re, -1.0),
        _tc.where((re == inf) & ~_tc.isfinite(im), _tc.full_like(re, inf), out.real),
    )
    real = _tc.where((re == 0) & (im == 0), _tc.zeros_like(re), real)  # +0, not -0
    imag = _tc.where(im == 0, im, _tc.where(to_minus_one, _tc.zeros_like(im), out.imag))
    return _tc.complex(real, imag)


def tanh(x: Any, /) -> Any:
    """The hyperbolic tangent; for complex input with the standard's special case at an
    infinite real part and a finite imaginary part ``b``: ``+-1 + 0j`` with the sign of ``b``
    (``tanh(inf + 2j)`` is ``1 + 0j``), where PyTorch's and NumPy's kernels give the sign of
    ``sin(2b)``."""
    out = _tc.tanh(x)
    if x._dtype._category != _dt.COMPLEX:
        return out
    re, im = x.real, x.imag
    at_inf = _tc.isinf(re) & _tc.isfinite(im)
    real = _tc.where(at_inf, _tc.sign(re), out.real)
    imag = _tc.where(at_inf, _tc.copysign(_tc.zeros_like(im), im), out.imag)
    return _tc.complex(real, imag)


def sign(x: Any, /) -> Any:
    """The sign of each element: -1, 0 or 1 for real numbers (NaN for NaN, where PyTorch's
    ``sign`` gives 0), ``x / |x|`` (0 at 0) for complex ones."""
    if x._dtype._category == _dt.FLOATING:
        return _tc.where(_tc.isnan(x), x, _tc.sign(x))
    if x._dtype._category != _dt.COMPLEX:
        return _tc.sign(x)
    a = _tc.abs(x)
    return _tc.where(a == 0, _tc.zeros_like(x), x / a)


def positive(x: Any, /) -> Any:
    """``+x``: a copy of ``x``."""
    if x._dtype is _dt.bool_:
        raise TypeError("positive(): bool arrays are not numeric")
    return x.clone()


def round(x: Any, /) -> Any:
    """Rounds half to even (the real and imaginary parts separately for complex numbers)."""
    if x._dtype._category == _dt.COMPLEX:
        out = _tc.empty_like(x)
        out.real.copy_(_tc.round(x.real))
        out.imag.copy_(_tc.round(x.imag))
        return out
    return _tc.round(x) if x._dtype._category == _dt.FLOATING else x.clone()


def clip(x: Any, /, min: Any = None, max: Any = None) -> Any:
    """``x`` limited to ``[min, max]`` (either bound may be None, or both: a copy)."""
    if min is None and max is None:
        return x.clone()
    out = _tc.clamp(x, min, max)
    return out if out._dtype is x._dtype else out.to(x._dtype)


add = _binary("add", _tc.add, "``x1 + x2`` elementwise.")
subtract = _binary("subtract", _tc.sub, "``x1 - x2`` elementwise.")
multiply = _binary("multiply", _tc.mul, "``x1 * x2`` elementwise.")
divide = _binary("divide", _tc.div, "``x1 / x2`` elementwise (true division).")


def _floor_divide(x1: Any, x2: Any) -> Any:
    out = _tc.floor_divide(x1, x2)
    if out._dtype._category != _dt.FLOATING:
        return out
    # PyTorch and NumPy compute x1 - fmod(x1, x2) first, which is NaN for an infinite x1 and
    # -1 for -1 // inf; the standard asks floor(x1 / x2) there (inf // 2 is inf, -1 // inf
    # is -0).
    t1 = x1 if isinstance(x1, _tc.Tensor) else _tc.full_like(out, x1)
    t2 = x2 if isinstance(x2, _tc.Tensor) else _tc.full_like(out, x2)
    return _tc.where(_tc.isinf(t1) | _tc.isinf(t2), _tc.floor(t1 / t2), out)


floor_divide = _binary(
    "floor_divide",
    _floor_divide,
    "``x1 // x2`` elementwise: ``floor(x1 / x2)`` with the standard's special cases for "
    "infinities (``inf // 2`` is ``inf``, ``-1 // inf`` is ``-0``), where tensorcore's "
    "``//``, as PyTorch's and NumPy's, gives NaN and ``-1``.",
)


def _remainder(x1: Any, x2: Any) -> Any:
    out = _tc.remainder(x1, x2)
    if out._dtype._category != _dt.FLOATING:
        return out
    # A zero result takes x2's sign too (-0 % 2 is +0, 0 % -2 is -0), as NumPy's; PyTorch's
    # kernel keeps x1's.
    t2 = x2 if isinstance(x2, _tc.Tensor) else _tc.full_like(out, x2)
    return _tc.where(out == 0, _tc.copysign(_tc.zeros_like(out), t2), out)


remainder = _binary(
    "remainder",
    _remainder,
    "``x1 % x2`` elementwise, with the sign of ``x2`` (zeros included: ``-0 % 2`` is ``+0``, "
    "where tensorcore's ``%``, as PyTorch's, keeps ``x1``'s).",
)
pow = _binary("pow", _tc.pow, "``x1 ** x2`` elementwise.")
atan2 = _binary(
    "atan2", _tc.atan2, "The arctangent of ``x1 / x2``, in the quadrant of ``(x2, x1)``."
)
maximum = _binary(
    "maximum", _tc.maximum, "The larger of ``x1`` and ``x2`` elementwise (NaN propagates)."
)
minimum = _binary(
    "minimum", _tc.minimum, "The smaller of ``x1`` and ``x2`` elementwise (NaN propagates)."
)
equal = _binary("equal", _tc.eq, "``x1 == x2`` elementwise.")
not_equal = _binary("not_equal", _tc.ne, "``x1 != x2`` elementwise.")
less = _binary("less", _tc.lt, "``x1 < x2`` elementwise.")
less_equal = _binary("less_equal", _tc.le, "``x1 <= x2`` elementwise.")
greater = _binary("greater", _tc.gt, "``x1 > x2`` elementwise.")
greater_equal = _binary("greater_equal", _tc.ge, "``x1 >= x2`` elementwise.")
logical_and = _binary("logical_and", _tc.logical_and, "Logical AND elementwise.")
logical_or = _binary("logical_or", _tc.logical_or, "Logical OR elementwise.")
logical_xor = _binary("logical_xor", _tc.logical_xor, "Logical XOR elementwise.")
bitwise_and = _binary("bitwise_and", _tc.bitwise_and, "Bitwise AND elementwise.")
bitwise_or = _binary("bitwise_or", _tc.bitwise_or, "Bitwise OR elementwise.")
bitwise_xor = _binary("bitwise_xor", _tc.bitwise_xor, "Bitwise XOR elementwise.")
bitwise_left_shift = _binary(
    "bitwise_left_shift", _tc.bitwise_left_shift, "``x1 << x2`` elementwise."
)
bitwise_right_shift = _binary(
    "bitwise_right_shift", _tc.bitwise_right_shift, "``x1 >> x2`` elementwise."
)

acosh = _tc.acosh
asinh = _tc.asinh
atanh = _tc.atanh
signbit = _tc.signbit
copysign = _binary("copysign", _tc.copysign, "``abs(x1)`` with the sign of ``x2``.")
hypot = _binary("hypot", _tc.hypot, "``sqrt(x1**2 + x2**2)`` without overflow.")
logaddexp = _binary("logaddexp", _tc.logaddexp, "``log(exp(x1) + exp(x2))``, stably.")
nextafter = _binary("nextafter", _tc.nextafter, "The next float after ``x1`` towards ``x2``.")


checked_arrays(globals(), "real imag positive round clip sign tanh")
