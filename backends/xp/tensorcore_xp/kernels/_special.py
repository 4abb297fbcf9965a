"""Special functions in float64, written against an array module ``xp`` (NumPy or CuPy).

NumPy has no ``lgamma``, ``digamma``, ``polygamma``, ``erf``/``erfc``, ``erfinv`` or ``i1``
(SciPy's are no dependency of the CPU backend, and CuPy's live in ``cupyx``), so they are
computed here from the functions both modules have, the same code for both: every loop runs a
fixed number of times, and each branch of a piecewise definition runs on the elements it
covers only (boolean-mask indexing). Each function takes and returns float64 arrays and may
raise floating-point warnings (the kernels silence them). The error is a few units in the last
place of float64 (``backends/xp/tests/test_xp_special_functions.py`` checks it against SciPy),
except near the zeros of ``lgamma`` and ``digamma``, where it is a few ulps of the terms that
cancel.

The rational approximations of ``lgamma`` (on [2, 3), and Stirling's correction) and of
``erf``/``erfc`` are the published coefficients of the Cephes Mathematical Library
(S. L. Moshier), which SciPy and PyTorch use too, and ``erfinv`` starts from M. Giles'
single-precision approximation; the asymptotic series (``digamma``, the Hurwitz zeta function
behind ``polygamma``, the Bessel functions) are derived here, their Bernoulli numbers computed
exactly at import.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

__all__ = [
    "digamma",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "lgamma",
    "polygamma",
]

# ------------------------------------------------------------------ helpers


def _bernoulli(n: int) -> list[Fraction]:
    """B_0 .. B_n exactly (B_1 = -1/2)."""
    b = [Fraction(1)]
    for m in range(1, n + 1):
        b.append(-sum((math.comb(m + 1, k) * b[k] for k in range(m)), Fraction(0)) / (m + 1))
    return b


_B = _bernoulli(32)


def _horner(x: Any, coefs: tuple[float, ...]) -> Any:
    """``coefs[0] * x**n + ... + coefs[n]``."""
    r: Any = coefs[0]
    for c in coefs[1:]:
        r = r * x + c
    return r


def _horner1(x: Any, coefs: tuple[float, ...]) -> Any:
    """``x**n + coefs[0] * x**(n-1) + ... + coefs[n-1]`` (leading coefficient 1)."""
    r: Any = x + coefs[0]
    for c in coefs[1:]:
        r = r * x + c
    return r


def _ipow(y: Any, k: int) -> Any:
    """``y ** k`` for an integer ``k >= 1``, by squaring (``pow`` is several times slower)."""
    result = None
    base = y
    while True:
        if k & 1:
            result = base if result is None else result * base
        k >>= 1
        if not k:
            return result
        base = base * base


def _frac(xp: Any, x: Any) -> Any:
    """``x - rint(x)`` in [-1/2, 1/2], exactly (NaN for infinities): ``sin(pi x)`` is
    ``+-sin(pi * _frac(x))`` without the rounding of ``pi * x``."""
    return x - xp.rint(x)


def _arrays(fn: Any) -> Any:
    """``fn(xp, ..., x)`` for a 0-d ``x`` too: computed as one element (NumPy's operations on
    0-d arrays give scalars, which take no item assignment)."""

    @functools.wraps(fn)
    def wrapper(xp: Any, *args: Any) -> Any:
        x = args[-1]
        if x.ndim:
            return fn(xp, *args)
        return fn(xp, *args[:-1], x.reshape(1)).reshape(())

    return wrapper


def _piece(xp: Any, out: Any, mask: Any, fn: Any, *args: Any) -> None:
    """``out[mask] = fn(*(a[mask] for a in args))``: a branch on the elements it covers."""
    if bool(mask.all()):
        out[...] = fn(*args)
    elif bool(mask.any()):
        out[mask] = fn(*(a[mask] for a in args))


# ------------------------------------------------------------------ lgamma
# Cephes lgam: Stirling's series for x >= 13 and a rational function on [2, 3).
_LG_A = (
    8.11614167470508450300e-4,
    -5.95061904284301438324e-4,
    7.93650340457716943945e-4,
    -2.77777777730099687205e-3,
    8.33333333333331927722e-2,
)
_LG_B = (
    -1.37825152569120859100e3,
    -3.88016315134637840924e4,
    -3.31612992738871184744e5,
    -1.16237097492762307383e6,
    -1.72173700820839662146e6,
    -8.53555664245765465627e5,
)
_LG_C = (
    -3.51815701436523470549e2,
    -1.70642106651881159223e4,
    -2.20528590553854454839e5,
    -1.13933444367982507207e6,
    -2.53252307177582951285e6,
    -2.01889141433532773231e6,
)
_LS2PI = 0.91893853320467274178  # log(sqrt(2 pi))
_LOGPI = 1.14472988584940017414  # log(pi)
_MAXLGM = 2.556348e305  # lgamma overflows above


def _lgamma_near(u: Any, xp: Any) -> Any:
    """``lgamma(u)`` for ``0 <= u < 13``: ``Gamma(u) = z Gamma(v)`` with ``v`` in [2, 3)."""
    z = xp.ones_like(u)
    for _ in range(10):
        m = u >= 3
        u = u - m
        z = z * xp.where(m, u, 1.0)
    for _ in range(2):
        m = u < 2
        z = z / xp.where(m, u, 1.0)
        u = u + m
    p = u - 2
    return xp.log(xp.abs(z)) + p * _horner(p, _LG_B) / _horner1(p, _LG_C)


def _lgamma_far(w: Any, xp: Any) -> Any:
    """``lgamma(w)`` for ``w >= 13`` (or NaN): Stirling's series."""
    r = (w - 0.5) * xp.log(w) - w + _LS2PI + _horner(1 / (w * w), _LG_A) / w
    return xp.where(w > _MAXLGM, math.inf, r)


@_arrays
def lgamma(xp: Any, x: Any) -> Any:
    """``log|Gamma(x)|``; +inf at the poles (0 and the negative integers) and at +-inf."""
    neg = x < 0
    y = xp.where(neg, 1 - x, x)  # reflected: lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x)
    out = xp.empty_like(y)
    near = y < 13
    _piece(xp, out, near, lambda v: _lgamma_near(v, xp), y)
    _piece(xp, out, ~near, lambda v: _lgamma_far(v, xp), y)

    def reflect(v: Any, r: Any) -> Any:
        f = _frac(xp, v)
        r = _LOGPI - xp.log(xp.abs(xp.sin(math.pi * f))) - r
        # The negative integers (every float beyond 2**52) and -inf.
        return xp.where((f == 0) | xp.isinf(v), math.inf, r)

    _piece(xp, out, neg, reflect, x, out)
    # |x| below 1e-300: -log|x| to a few ulp, where the series' 1 / x overflows and the
    # reflection's sin(pi x) loses digits at subnormals
    _piece(xp, out, (x != 0) & (xp.abs(x) < 1e-300), lambda v: -xp.log(xp.abs(v)), x)
    return out


# ------------------------------------------------------------------ digamma, polygamma
# psi(y) ~ log(y) - 1/(2y) - sum_k B_2k / (2k y^2k) for y >= 10 (the next term is below 1e-16).
_PSI = tuple(float(_B[2 * k] / (2 * k)) for k in range(7, 0, -1))


def _digamma_pos(y: Any, xp: Any) -> Any:
    """``psi(y)`` for ``y > 0``."""
    acc = xp.zeros_like(y)
    shift = y < 10

    def up(v: Any) -> Any:  # psi(v) = psi(v + 10) - sum_k 1 / (v + k)
        a = 1 / v
        for k in range(1, 10):
            a = a + 1 / (v + k)
        return a

    _piece(xp, acc, shift, up, y)
    y = y + xp.where(shift, 10.0, 0.0)
    w = 1 / (y * y)
    return xp.log(y) - 0.5 / y - w * _horner(w, _PSI) - acc


@_arrays
def digamma(xp: Any, x: Any) -> Any:
    """``Gamma'(x) / Gamma(x)``: -inf at +0, +inf at -0 and NaN at the negative integers, as
    PyTorch's."""
    neg = x < 0
    out = _digamma_pos(xp.where(neg, 1 - x, x), xp)

    def reflect(v: Any, r: Any) -> Any:  # psi(x) = psi(1 - x) - pi / tan(pi x)
        f = _frac(xp, v)
        return xp.where(f == 0, math.nan, r - math.pi / xp.tan(math.pi * f))

    _piece(xp, out, neg, reflect, x, out)
    return xp.where(x == 0, xp.copysign(math.inf, -x), out)


@functools.lru_cache(maxsize=64)
def _zeta_terms(s: int) -> tuple[float, ...]:
    """``B_2j / (2j)! * s (s + 1) ... (s + 2j - 2)``, highest j first: the Euler-Maclaurin
    tail of the Hurwitz zeta function ``zeta(s, y)``, whose term j multiplies
    ``y ** (-s - 2j + 1)``."""
    out = []
    rising = Fraction(s)
    for j in range(1, 16):
        out.append(float(_B[2 * j] / math.factorial(2 * j) * rising))
        rising *= (s + 2 * j - 1) * (s + 2 * j)
    return tuple(reversed(out))


def _zeta_far(n: int, y: Any) -> Any:
    """``n! zeta(n + 1, y)`` for ``n >= 1`` and ``y >= 2 n + 12``, where the Euler-Maclaurin
    series converges to float64 within its 15 terms. The factorial is folded into the power
    ``(n-1)! y**-n = (1/y) (1/y) (2/y) ... ((n-1)/y)`` (factors below 1, as y > n): no
    intermediate overflows or underflows where the result does not."""
    t = 1 / y
    lead = t
    for k in range(1, n):
        lead = lead * (k * t)
    return lead * (1 + n * t * (0.5 + _horner(t * t, _zeta_terms(n + 1)) * t))


def _zeta(xp: Any, n: int, y: Any) -> Any:
    """``n! zeta(n + 1, y) = n! sum_k (y + k) ** -(n + 1)`` for ``n >= 1`` and ``y > 0``."""
    s = n + 1
    top = 2 * s + 10
    acc = xp.zeros_like(y)
    shift = y < top

    def up(v: Any) -> Any:  # zeta(s, v) = sum_{k < top} (v + k) ** -s + zeta(s, v + top)
        a = 1 / _ipow(v, s)
        for k in range(1, top):
            a = a + 1 / _ipow(v + k, s)
        return a * _factorial(n)

    _piece(xp, acc, shift, up, y)
    return acc + _zeta_far(n, y + xp.where(shift, float(top), 0.0))


def _factorial(n: int) -> float:
    return float(math.factorial(n))


#: Above this order n! overflows float64.
_MAX_ORDER = 170


def _polygamma_huge(xp: Any, n: int, x: Any) -> Any:
    """``polygamma`` for ``n > 170``: ``(-1)**(n+1) inf * zeta(n + 1, x)``, as PyTorch's
    ``exp(lgamma(n + 1)) * zeta`` gives it (NaN where the zeta function underflows to 0), with
    zeta summed directly (its terms fall fast at such orders)."""
    s = n + 1
    zeta = xp.zeros_like(x)
    for k in range(64):
        zeta = zeta + 1 / _ipow(x + k, s)
    sign = 1.0 if n % 2 else -1.0
    r = (sign * math.inf) * zeta
    pole = (x == 0) | ((x < 0) & (_frac(xp, x) == 0))
    return xp.where(pole, sign * math.inf, r)


@_arrays
def polygamma(xp: Any, n: int, x: Any) -> Any:
    """The ``n``-th derivative of ``digamma`` (``n >= 0``): ``(-1)**(n+1) n! zeta(n+1, x)``;
    ``(-1)**(n+1) inf`` at the poles (0 and the negative integers), as SciPy's."""
    if n == 0:
        return digamma(xp, x)
    if n > _MAX_ORDER:
        return _polygamma_huge(xp, n, x)
    s = n + 1
    neg = x < 0
    zeta = _zeta(xp, n, xp.where(neg, 1 - x, x))
    top = 2 * s + 10

    def reflect(v: Any, z: Any) -> Any:
        # zeta(s, x) = sum over all integers k of (f + k) ** -s - (-1)**s zeta(s, 1 - x):
        # the periodic sum as its 2 top + 1 middle terms and two tails.
        f = _frac(xp, v)
        g = xp.where(f == 0, 0.5, f)
        mid = 1 / _ipow(g, s)
        for k in range(1, top + 1):
            mid = mid + 1 / _ipow(g + k, s) + 1 / _ipow(g - k, s)
        per = _zeta_far(n, top + 1 + g) + (-1) ** s * _zeta_far(n, top + 1 - g)
        r = per + mid * _factorial(n) - (-1) ** s * z
        return xp.where(f == 0, math.inf, xp.where(xp.isinf(v), math.nan, r))

    _piece(xp, zeta, neg, reflect, x, zeta)
    zeta = xp.where(x == 0, math.inf, zeta)
    return zeta if n % 2 else -zeta


# ------------------------------------------------------------------ erf, erfc, erfinv
# Cephes ndtr: erf on [-1, 1], erfc on [1, 8) and [8, inf).
_ERF_T = (
    9.60497373987051638749e0,
    9.00260197203842689217e1,
    2.23200534594684319226e3,
    7.00332514112805075473e3,
    5.55923013010394962768e4,
)
_ERF_U = (
    3.35617141647503099647e1,
    5.21357949780152679795e2,
    4.59432382970980127987e3,
    2.26290000613890934246e4,
    4.92673942608635921086e4,
)
_ERFC_P = (
    2.46196981473530512524e-10,
    5.64189564831068821977e-1,
    7.46321056442269912687e0,
    4.86371970985681366614e1,
    1.96520832956077098242e2,
    5.26445194995477358631e2,
    9.34528527171957607540e2,
    1.02755188689515710272e3,
    5.57535335369399327526e2,
)
_ERFC_Q = (
    1.32281951154744992508e1,
    8.67072140885989742329e1,
    3.54937778887819891062e2,
    9.75708501743205489753e2,
    1.82390916687909736289e3,
    2.24633760818710981792e3,
    1.65666309194161350182e3,
    5.57535340817727675546e2,
)
_ERFC_R = (
    5.64189583547755073984e-1,
    1.27536670759978104416e0,
    5.01905042251180477414e0,
    6.16021097993053585195e0,
    7.40974269950448939160e0,
    2.97886665372100240670e0,
)
_ERFC_S = (
    2.26052863220117276590e0,
    9.39603524938001434673e0,
    1.20489539808096656605e1,
    1.70814450747565897222e1,
    9.60896809063285878198e0,
    3.36907645100081516050e0,
)


def _exp_neg_square(xp: Any, a: Any) -> Any:
    """``exp(-a * a)`` without the rounding error of ``a * a`` (which ``exp`` would magnify
    by ``a**2``): ``a = m + f`` with ``m`` a multiple of 1/128, so that ``m * m`` is exact."""
    m = xp.floor(a * 128 + 0.5) / 128
    f = a - m
    return xp.exp(-m * m) * xp.exp(-(2 * m * f + f * f))


def _erf_small(x: Any) -> Any:
    """``erf(x)`` for ``|x| <= 1``."""
    z = x * x
    return x * _horner(z, _ERF_T) / _horner1(z, _ERF_U)


def _erfc_large(a: Any, xp: Any) -> Any:
    """``erfc(a)`` for ``a >= 1`` (+inf gives 0)."""
    a = xp.minimum(a, 30.0)  # (0 from 27 on; the rational functions overflow far beyond)
    ez = _exp_neg_square(xp, a)
    mid = _horner(a, _ERFC_P) / _horner1(a, _ERFC_Q)
    far = _horner(a, _ERFC_R) / _horner1(a, _ERFC_S)
    return ez * xp.where(a < 8, mid, far)


@_arrays
def erf(xp: Any, x: Any) -> Any:
    """The error function."""
    a = xp.abs(x)
    out = xp.empty_like(a)
    small = a <= 1
    _piece(xp, out, small, _erf_small, x)
    _piece(xp, out, ~small, lambda v, av: xp.copysign(1 - _erfc_large(av, xp), v), x, a)
    return out


@_arrays
def erfc(xp: Any, x: Any) -> Any:
    """``1 - erf(x)``, accurate where it is small (down to its underflow near x = 26.6)."""
    a = xp.abs(x)
    out = xp.empty_like(a)
    small = a < 1
    _piece(xp, out, small, lambda v: 1 - _erf_small(v), x)

    def large(v: Any, av: Any) -> Any:
        r = _erfc_large(av, xp)
        return xp.where(v < 0, 2 - r, r)

    _piece(xp, out, ~small, large, x, a)
    return out


# M. Giles, "Approximating the erfinv function" (GPU Gems), single precision: the start of
# the Halley iterations below, which take it to float64.
_GILES_CENTRAL = (
    2.81022636e-08,
    3.43273939e-07,
    -3.5233877e-06,
    -4.39150654e-06,
    0.00021858087,
    -0.00125372503,
    -0.00417768164,
    0.246640727,
    1.50140941,
)
_GILES_TAIL = (
    -0.000200214257,
    0.000100950558,
    0.00134934322,
    -0.00367342844,
    0.00573950773,
    -0.0076224613,
    0.00943887047,
    1.00167406,
    2.83297682,
)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _erfinv_lower(a: Any, x: Any, xp: Any) -> Any:
    """Halley's method on ``erf(x) = a`` for ``0 <= a <= 1/2``."""
    for _ in range(2):
        step = (erf(xp, x) - a) / (_TWO_OVER_SQRT_PI * _exp_neg_square(xp, x))
        x = x - step / (1 + x * step)
    return x


def _erfcx_positive(xp: Any, a: Any) -> Any:
    """``exp(a * a) erfc(a)`` for ``a >= 1``: the rational parts of ``_erfc_large`` without
    their factor ``exp(-a * a)``, and the first terms of the asymptotic series
    ``1 / (a sqrt(pi)) (1 - 1 / (2 a^2) + 3 / (4 a^4))`` where the rational ones overflow."""
    huge = a > 1e6
    v = xp.where(huge, 8.0, a)
    rational = xp.where(
        v < 8,
        _horner(v, _ERFC_P) / _horner1(v, _ERFC_Q),
        _horner(v, _ERFC_R) / _horner1(v, _ERFC_S),
    )
    inv = 1 / a
    series = inv / math.sqrt(math.pi) * (1 - 0.5 * inv * inv)
    return xp.where(huge, series, rational)


@_arrays
def erfcx(xp: Any, x: Any) -> Any:
    """The scaled complementary error function ``exp(x^2) erfc(x)``: finite where ``erfc``
    underflows (it decays like ``1 / (x sqrt(pi))``), +inf below about -26.6."""
    a = xp.abs(x)
    out = xp.empty_like(a)
    small = a < 1
    _piece(xp, out, small, lambda v: xp.exp(v * v) * (1 - _erf_small(v)), x)
    _piece(xp, out, ~small & (x > 0), lambda v: _erfcx_positive(xp, v), a)
    # erfcx(-a) = 2 exp(a^2) - erfcx(a)
    _piece(
        xp,
        out,
        ~small & (x < 0),
        lambda v: 2 / _exp_neg_square(xp, v) - _erfcx_positive(xp, v),
        a,
    )
    return xp.where(xp.isnan(x), x, out)


def _erfinv_upper(a: Any, x: Any, xp: Any) -> Any:
    """Newton's method on ``log(erfc(x)) = log(1 - a)`` for ``1/2 < a < 1``: ``1 - a`` is
    exact there, and ``log(erfc)`` is nearly quadratic deep into the tail, where the start
    is least accurate."""
    log_rest = xp.log(1 - a)
    for _ in range(4):
        e = erfc(xp, x)
        x = x - (log_rest - xp.log(e)) * e / (_TWO_OVER_SQRT_PI * _exp_neg_square(xp, x))
    return x


@_arrays
def erfinv(xp: Any, y: Any) -> Any:
    """The inverse of ``erf`` on [-1, 1]: +-inf at +-1, NaN outside."""
    a = xp.abs(y)
    inside = a < 1
    a = xp.where(inside, a, 0.5)
    w = -xp.log((1 - a) * (1 + a))
    central = _horner(w - 2.5, _GILES_CENTRAL)
    tail = _horner(xp.sqrt(w) - 3.0, _GILES_TAIL)
    x = xp.where(w < 5, central, tail) * a
    upper = a > 0.5
    _piece(xp, x, ~upper, lambda av, v: _erfinv_lower(av, v, xp), a, x)
    _piece(xp, x, upper, lambda av, v: _erfinv_upper(av, v, xp), a, x)
    x = xp.copysign(x, y)
    x = xp.where(inside, x, xp.where(xp.abs(y) == 1, xp.copysign(math.inf, y), math.nan))
    return xp.where(xp.isnan(y), y, x)


# ------------------------------------------------------------------ modified Bessel I0, I1
# The power series sum_k (x/2)^(2k + nu) / (k! (k + nu)!) below _BESSEL_SWITCH (positive
# terms: no cancellation; its terms beyond the 40th are below 1e-17 of the sum there), the
# asymptotic series e^x / sqrt(2 pi x) sum_k (-1)^k a_k(nu) / x^k above it (whose smallest
# term there is below 1e-17).
_BESSEL_SWITCH = 22.0


def _bessel_series(nu: int) -> tuple[float, ...]:
    """``1 / (k! (k + nu)!)`` for k = 40 .. 0 (highest first)."""
    return tuple(1 / (math.factorial(k) * math.factorial(k + nu)) for k in range(40, -1, -1))


def _bessel_asymptotic(nu: int) -> tuple[float, ...]:
    """``(-1)^k a_k(nu)``, ``a_k = prod_{j<=k} (4 nu^2 - (2j - 1)^2) / (k! 8^k)``, for
    k = 27 .. 0 (highest first)."""
    out = [1.0]
    a = Fraction(1)
    for k in range(1, 28):
        a *= Fraction(4 * nu * nu - (2 * k - 1) ** 2, 8 * k)
        out.append(float((-1) ** k * a))
    return tuple(reversed(out))


_BESSEL = {nu: (_bessel_series(nu), _bessel_asymptotic(nu)) for nu in (0, 1)}


def _bessel_i(xp: Any, nu: int, x: Any) -> Any:
    """``I_nu(|x|)`` for ``nu`` 0 or 1."""
    series, asymptotic = _BESSEL[nu]
    a = xp.abs(x)
    out = xp.empty_like(a)
    small = a < _BESSEL_SWITCH

    def near(v: Any) -> Any:
        r = _horner(v * v / 4, series)
        return r * (v / 2) if nu else r

    def far(v: Any) -> Any:
        half = xp.exp(v / 2)  # e^v overflows before I_nu(v) does
        r = half * (half / xp.sqrt(2 * math.pi * v)) * _horner(1 / v, asymptotic)
        return xp.where(xp.isinf(v), math.inf, r)

    _piece(xp, out, small, near, a)
    _piece(xp, out, ~small, far, a)
    return out


def _bessel_i_scaled(xp: Any, nu: int, x: Any) -> Any:
    """``exp(-|x|) I_nu(|x|)`` for ``nu`` 0 or 1 (the asymptotic series without its
    exponential, so no overflow)."""
    series, asymptotic = _BESSEL[nu]
    a = xp.abs(x)
    out = xp.empty_like(a)
    small = a < _BESSEL_SWITCH

    def near(v: Any) -> Any:
        r = _horner(v * v / 4, series) * xp.exp(-v)
        return r * (v / 2) if nu else r

    def far(v: Any) -> Any:
        r = _horner(1 / v, asymptotic) / xp.sqrt(2 * math.pi * v)
        return xp.where(xp.isinf(v), 0.0, r)

    _piece(xp, out, small, near, a)
    _piece(xp, out, ~small, far, a)
    return xp.where(xp.isnan(x), x, out)


@_arrays
def i0e(xp: Any, x: Any) -> Any:
    """``exp(-|x|) I0(x)``, the exponentially scaled modified Bessel function of order 0."""
    return _bessel_i_scaled(xp, 0, x)


@_arrays
def i1e(xp: Any, x: Any) -> Any:
    """``exp(-|x|) I1(x)`` (odd)."""
    return xp.copysign(_bessel_i_scaled(xp, 1, x), x)


@_arrays
def i0(xp: Any, x: Any) -> Any:
    """The modified Bessel function of the first kind of order 0."""
    return _bessel_i(xp, 0, x)


@_arrays
def i1(xp: Any, x: Any) -> Any:
    """The modified Bessel function of the first kind of order 1 (odd)."""
    return xp.copysign(_bessel_i(xp, 1, x), x)
