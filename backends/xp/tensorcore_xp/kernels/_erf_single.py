"""The error function in single precision, in a few elementwise passes of an array module
``xp`` (NumPy or CuPy).

``erf(a) = -expm1(L(a))`` with ``L(a) = log(erfc(a))``, and ``L(a) / a`` is smooth on
``[0, 4]``: a degree-7 polynomial ``P`` fits it (weighted least squares in float64 against
SciPy's ``erfc``, reweighted towards the minimax error of ``erf``), so that

    erf(x) = copysign(-expm1(a * P(a)), x),   a = min(|x|, 4)

is one formula for every argument: no branch, no mask, no division; ``expm1`` keeps the
relative precision near 0 (where ``erf(x) ~ 2x / sqrt(pi)``) and ``erf`` rounds to 1 in
float32 from ``a = 3.92`` on, so the clamp at 4 costs nothing (and maps +-inf to +-1; NaN
stays NaN, ``-0.0`` stays ``-0.0``). Evaluated in float32 it is within 3 ulp of the correctly
rounded ``erf`` over the whole float32 range (``backends/xp/tests/test_erf_single.py``),
about 20 passes where SciPy's float32 ``erf`` computes each element in float64 (15 ns an
element, several times more).
"""

from __future__ import annotations

from typing import Any

from ..helpers import pieces

__all__ = ["erf_float32"]

#: ``P``, highest power first.
_P = (
    -4.063672129710971e-05,
    0.0003804130155065366,
    -0.0012500119409522845,
    -0.00020805523561108645,
    0.019323210407705908,
    -0.10281482775061647,
    -0.6366164573479204,
    -1.1283792075778871,
)
_CLAMP = 4.0


def erf_float32(xp: Any, x: Any, out: Any) -> Any:
    """``erf(x)`` into ``out`` (both float32 arrays of one shape), in float32 arithmetic.

    Examples
    --------
    >>> import math
    >>> import numpy as np
    >>> from tensorcore_xp.kernels._erf_single import erf_float32
    >>> x = np.array([-np.inf, -1.0, -0.0, 0.5, 3.0, np.nan], np.float32)
    >>> r = erf_float32(np, x, np.empty_like(x))
    >>> r[:5]
    array([-1.        , -0.8427008 , -0.        ,  0.5204999 ,  0.99997795],
          dtype=float32)
    >>> bool(np.isnan(r[5]))
    True
    >>> bool(r[1] == np.float32(math.erf(-1.0)))
    True
    """
    if not x.ndim:  # (NumPy's ufuncs give scalars for 0-d arrays)
        erf_float32(xp, x.reshape(1), out.reshape(1))
        return out
    f = xp.float32
    coefs = [f(c) for c in _P]
    clamp = f(_CLAMP)
    for xb, ob in pieces(xp, x, out):
        a = xp.abs(xb)
        xp.minimum(a, clamp, out=a)
        p = a * coefs[0]
        for c in coefs[1:]:
            p += c
            p *= a
        xp.expm1(p, out=p)  # -erf(|x|)
        xp.copysign(p, xb, out=ob)  # (x is read last: out may be x)
    return out
