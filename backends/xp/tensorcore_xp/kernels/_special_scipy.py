"""The special functions that ``_special.py`` does not compute itself, taken from SciPy, and
SciPy's faster loops for some of those it does compute (:func:`fast_special`).

PyTorch's Bessel functions of the second kind, of the first kind of orders 0 and 1, the Airy
function and the Hurwitz zeta function are SciPy's ``scipy.special`` functions on NumPy and
``cupyx.scipy.special``'s on CuPy. Where the array module's own special-function module lacks
one (another array module, or a CuPy without it), the arrays go to the host and SciPy
computes there; without SciPy the kernel raises a ``RuntimeError`` that says so (SciPy is no
dependency of the CPU backend; ``pip install scipy`` provides it).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _special

__all__ = ["fast_special", "special_function"]

#: SciPy's name of each function (``airy`` gives four arrays; index 0 is ``Ai``).
SCIPY_NAMES = {
    "special_bessel_j0": ("j0", None),
    "special_bessel_j1": ("j1", None),
    "special_bessel_y0": ("y0", None),
    "special_bessel_y1": ("y1", None),
    "special_modified_bessel_k0": ("k0", None),
    "special_modified_bessel_k1": ("k1", None),
    "special_scaled_modified_bessel_k0": ("k0e", None),
    "special_scaled_modified_bessel_k1": ("k1e", None),
    "special_airy_ai": ("airy", 0),
    "special_zeta": ("zeta", None),
}


def _module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def special_function(xp: Any, op: str) -> Callable[..., Any]:
    """``f(*arrays)``: the operator ``op`` (a key of :data:`SCIPY_NAMES`) on float64 arrays
    of ``xp``, by ``xp``'s SciPy-like module where it has the function, else by SciPy on the
    host.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.kernels._special_scipy import special_function
    >>> round(float(special_function(np, "special_zeta")(np.float64(2.0), np.float64(1.0))), 12)
    1.644934066848
    """
    # (by the module's identity: an array module need not be hashable, a namespace object)
    key = (id(xp), op)
    hit = _FUNCTIONS.get(key)
    if hit is None or hit[0] is not xp:
        hit = _FUNCTIONS[key] = (xp, _special_function(xp, op))
    return hit[1]


_FUNCTIONS: dict[tuple[int, str], tuple[Any, Callable[..., Any]]] = {}


#: Functions an array module's SciPy-like namespace gets wrong, computed by SciPy on the
#: host instead: CuPy 14's ``k0e``/``k1e`` give NaN for large arguments (1e3), where
#: ``exp(x)`` overflows before the product with ``k0(x)``.
_WRONG = {("cupy", "k0e"), ("cupy", "k1e")}


def _special_function(xp: Any, op: str) -> Callable[..., Any]:
    fname, pick = SCIPY_NAMES[op]
    own = "scipy.special" if xp.__name__ == "numpy" else f"{xp.__name__}x.scipy.special"
    mod = _module(own)
    fn = getattr(mod, fname, None) if mod is not None else None
    if (xp.__name__, fname) in _WRONG:
        fn = None
    if fn is None and own != "scipy.special":
        fn = _on_host(xp, fname)
    if fn is None:
        name = op.removeprefix("special_")

        def missing(*_: Any) -> Any:
            raise RuntimeError(
                f"special.{name} is computed by SciPy's scipy.special.{fname}, and SciPy is "
                "not installed (pip install scipy)"
            )

        return missing
    if pick is None:
        return fn
    return lambda *xs: fn(*xs)[pick]


def _on_host(xp: Any, fname: str) -> Callable[..., Any] | None:
    """SciPy's ``fname`` on host copies of ``xp`` arrays, its result back in ``xp``."""
    sps = _module("scipy.special")
    fn = getattr(sps, fname, None) if sps is not None else None
    if fn is None:
        return None
    to_host = getattr(xp, "asnumpy", np.asarray)

    def host(*xs: Any) -> Any:
        r = fn(*(to_host(x) for x in xs))
        return tuple(xp.asarray(a) for a in r) if isinstance(r, tuple) else xp.asarray(r)

    return host


# ------------------------------------------------------------------ faster loops
# ``_special.py`` computes erfc, erfinv, lgamma, digamma and the Bessel functions I0, I1 (and
# their scaled forms) from NumPy's functions: tens of array passes, some over masked pieces,
# 50 to 400 ns an element. SciPy's ``scipy.special`` loops compute the same float64 values
# (within a few ulps) in 10 to 40 ns. Where SciPy is importable with NumPy, the kernels take
# them, with the fix-ups below where SciPy's values differ from ``_special.py``'s (which
# are PyTorch's); ``backends/xp/tests/test_xp_special_functions.py`` compares both paths.


def _erfc(sps: Any) -> Callable[[Any], Any]:
    def erfc(x: Any) -> Any:
        r = np.asarray(sps.erfc(x))
        # (SciPy flushes the subnormal tail beyond 26.55 to 0; PyTorch keeps it)
        far = x > 26.0
        if far.any():
            r[far] = _special.erfc(np, x[far])
        return r

    return erfc


def _odd(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """An odd function keeps the sign of a zero (SciPy's gives +0.0 for -0.0)."""
    return lambda x: np.copysign(fn(x), x)


def _lgamma(sps: Any) -> Callable[[Any], Any]:
    def lgamma(x: Any) -> Any:
        r = np.asarray(sps.gammaln(x))
        # (SciPy gives inf below about 1e-308, where -log|x| is finite, and -inf at -inf)
        odd = (np.abs(x) < 1e-300) | np.isinf(x)
        if odd.any():
            r[odd] = _special.lgamma(np, x[odd])
        return r

    return lgamma


def _bessel(fn: Callable[[Any], Any], odd: bool) -> Callable[[Any], Any]:
    """I0 or I1, +-inf at +-inf (SciPy's is NaN there)."""
    base = _odd(fn) if odd else fn

    def bessel(x: Any) -> Any:
        return np.where(np.isinf(x), np.abs(x) if not odd else x, base(x))

    return bessel


def fast_special(xp: Any, name: str) -> Callable[[Any, Any], Any] | None:
    """``f(xp, x)`` with ``_special.<name>``'s contract (float64 arrays in and out) by
    SciPy's loop, or None where ``xp`` is not NumPy or SciPy is not importable.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.kernels._special_scipy import fast_special
    >>> erfinv = fast_special(np, "erfinv")
    >>> erfinv is None or float(erfinv(np, np.array(-0.0))) == 0.0
    True
    """
    if xp.__name__ != "numpy":
        return None
    sps = _module("scipy.special")
    if sps is None:
        return None
    fns: dict[str, Callable[[Any], Any]] = {
        "erfc": _erfc(sps),
        "erfinv": _odd(sps.erfinv),
        "lgamma": _lgamma(sps),
        "digamma": sps.psi,
        "i0": _bessel(sps.i0, odd=False),
        "i1": _bessel(sps.i1, odd=True),
        "i0e": sps.i0e,
        "i1e": _odd(sps.i1e),
    }
    fn = fns.get(name)
    return None if fn is None else (lambda _xp, x: fn(x))
