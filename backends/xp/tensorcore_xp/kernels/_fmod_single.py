"""``fmod`` of float32 arrays through float64 array arithmetic, for NumPy, whose float32
``fmod`` loop calls the C library once per element (7.8 ns an element; 6x PyTorch's
vectorized one): ``fmod``, ``remainder`` and ``floor_divide`` start from it.

Why it is exact: ``x`` and ``y`` are float32 (24-bit significands), so both are multiples of
``u``, the unit in the last place of the smaller-exponent one. While ``|x / y| < 2**29``,
``q = trunc(x / y)`` computed in float64 is the true truncated quotient: a quotient within
one float64 rounding (``2**29 * 2**-53``) of an integer it has not reached would need
``|x - n * y| < 2**-24 * |y|``, yet that nonzero difference is a multiple of ``u`` and
``u >= 2**-23 * |y|`` when ``y`` has the smaller exponent (when ``x`` has it, ``|x| < 2 |y|``
and the quotient is 0 or 1 away from exact anyway). Then ``q * y`` (29 + 24 bits) and
``x - q * y`` (a multiple of ``u`` smaller than ``|y|``) are exact in float64, and the
difference is a float32: the correctly rounded result every ``fmod`` gives, bit for bit.
Outside that range (a huge quotient, an infinite or NaN operand, a zero divisor) it declines
and the caller takes NumPy's loop.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["floor_divide_float32", "fmod_float32", "remainder_float32"]

_F32 = np.dtype(np.float32)
#: Quotients below this are exact in float64 (see above).
_EXACT = float(2**29)
#: Below this NumPy's floor division (``(x - fmod) / y`` rounded in float32, then floored
#: and nudged) is the exact integer, which the float64 route gives; above it NumPy's is that
#: integer rounded twice, which the route does not reproduce.
_EXACT_FLOOR = float(2**22)


def _single(v: Any) -> bool:
    return getattr(v, "dtype", None) == _F32


def _trunc_rem(x: Any, y: Any, limit: float) -> tuple[Any, Any] | None:
    """(truncated quotient, fmod), both float64, or None (see the module's docstring).
    (Written into the float64 copies where their shapes allow: a fresh 512 KiB array costs
    as much as a pass over it.)"""
    if not (_single(x) and _single(y)):
        return None
    x64 = np.asarray(x, np.float64)
    y64 = np.asarray(y, np.float64)
    with np.errstate(all="ignore"):
        q = np.divide(x64, y64)
        if not (q.size and q.ndim):  # (empty, or 0-d: NumPy's loop costs nothing there)
            return None
        np.trunc(q, out=q)
        # (NaN fails both tests: an infinite or NaN operand, or a zero divisor)
        if not (-limit < q.min() and q.max() < limit):
            return None
        r = np.multiply(q, y64, out=y64 if y64.shape == q.shape else None)
        np.subtract(x64, r, out=r)
    if np.isnan(r.max()):  # (an infinite divisor: fmod(x, inf) is x, q * inf is NaN)
        return None
    return q, r


def _floor_fix(r: Any, y: Any) -> Any:
    """Where the truncated remainder ``r`` is nonzero with a sign other than ``y``'s: the
    floor's quotient is one less and its remainder ``r + y``."""
    fix = np.signbit(r)
    fix ^= np.signbit(y)
    fix &= r != 0
    return fix


def _rounded(r: Any, out: Any) -> Any:
    if out is None:
        return r.astype(np.float32)
    np.copyto(out, r, casting="unsafe")
    return out


def fmod_float32(x: Any, y: Any, out: Any = None) -> Any:
    """``np.fmod(x, y, out=out)`` of float32 NumPy operands (arrays or float32 scalars), or
    None where the float64 route would not be exact (the caller then calls NumPy's ufunc).
    ``out`` (float32, of the broadcast shape) may be ``x`` or ``y``: they are read first.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([5.5, -5.5, 4.0, -4.0, 1e-30], np.float32)
    >>> fmod_float32(x, np.float32(2.0))
    array([ 1.5e+00, -1.5e+00,  0.0e+00, -0.0e+00,  1.0e-30], dtype=float32)
    >>> fmod_float32(x, np.float32(0.0)) is None  # (a zero divisor: NumPy's loop)
    True
    """
    t = _trunc_rem(x, y, _EXACT)
    if t is None:
        return None
    out = _rounded(t[1], out)
    # A remainder has x's sign, a zero one too (-4 fmod 2 is -0.0).
    return np.copysign(out, x, out=out)


def remainder_float32(x: Any, y: Any, out: Any = None) -> Any:
    """PyTorch's ``remainder`` (the floor's, with ``y``'s sign; a zero one keeps ``x``'s) of
    float32 NumPy operands, or None as :func:`fmod_float32`. ``out`` must not share memory
    with ``x``, whose signs are read last.

    Examples
    --------
    >>> import numpy as np
    >>> remainder_float32(np.array([5.5, -5.5, -4.0], np.float32), np.float32(2.0))
    array([ 1.5,  0.5, -0. ], dtype=float32)
    """
    t = _trunc_rem(x, y, _EXACT)
    if t is None:
        return None
    q, r = t
    # r + y where fixed, else r + (+-0): the same nonzero r. (Rounded once from float64, the
    # sum is float32's own: 53 >= 2 * 24 + 2 bits.)
    r += np.multiply(y, _floor_fix(r, y), out=q)
    out = _rounded(r, out)
    # (a fixed remainder is nonzero: |r| < |y|; a zero one keeps x's sign)
    return np.copysign(out, x, out=out, where=out == 0)


def floor_divide_float32(x: Any, y: Any, out: Any = None) -> Any:
    """NumPy's (and PyTorch's) floor division of float32 NumPy operands, or None where the
    quotient reaches ``2**22`` or the route declines as :func:`fmod_float32`. ``out`` may be
    ``x`` or ``y``.

    Examples
    --------
    >>> import numpy as np
    >>> floor_divide_float32(np.array([5.5, -5.5, -0.5, 3.0], np.float32), np.float32(2.0))
    array([ 2., -3., -1.,  1.], dtype=float32)
    """
    t = _trunc_rem(x, y, _EXACT_FLOOR)
    if t is None:
        return None
    q, r = t
    # (a zero quotient is trunc's, with the sign of x / y, as NumPy's copysign(0, x / y))
    q -= _floor_fix(r, y)
    return _rounded(q, out)
