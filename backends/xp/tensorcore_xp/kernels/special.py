"""Elementwise kernels of the special functions and the floating-point functions
(``lgamma``, ``erfinv``, ``hypot``, ``logaddexp``, ``frexp``...), written once against an array
module ``xp`` (NumPy or CuPy).

As in ``pointwise.py``, the core has broadcast-checked the arguments, promoted tensor inputs to
the compute dtype and allocated ``out``. The special functions that neither array module has
are computed in float64 by ``_special.py`` and rounded once into ``out``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from tensorcore import Tensor

from ..helpers import (
    acc_dtype,
    array_of,
    constant_arrays,
    errstate,
    formula_kernel,
    pieces,
    quiet_tokens,
    scalar_arrays,
)
from . import _special
from ._special_scipy import SCIPY_NAMES, fast_special, special_function

__all__ = ["build"]


#: The most elements for which ``softplus`` copies through the threshold's mask without
#: first asking the maximum whether any element is past it (the mask costs less there).
_MASK_MAX = 4096


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """The kernels of this module for the array module ``xp``."""
    K: dict[str, Callable[..., Any]] = {}
    quiet = errstate(xp)
    enter, leave = quiet_tokens(xp)
    weak, lift = scalar_arrays(xp)
    const = constant_arrays(xp)

    def operand(v: Any, dtype: Any) -> Any:
        """A tensor's array, or a Python number as a 0-d array of the compute precision of
        ``dtype`` (a result's array dtype): NumPy would otherwise compute a 16-bit operation
        with a Python float in float64, or a float32 one with a NumPy scalar in float64."""
        if isinstance(v, Tensor):
            return array_of(v)
        if v.__class__ is float and dtype.kind in "fV":
            return weak.get((v, dtype)) or lift(v, dtype)
        return xp.asarray(v, dtype=acc_dtype(xp, dtype))

    def exact(v: Any, dtype: Any) -> Any:
        """A tensor's array, or a Python number as a 0-d array of ``dtype``."""
        return array_of(v) if isinstance(v, Tensor) else xp.asarray(v, dtype)

    def ufunc(name: str, f: Any) -> None:
        """A kernel that is one ``xp`` function computing in the dtype of ``out`` (16-bit
        floats through their own loops): a Python number is made an array of that dtype,
        which holds it exactly (the core converted it), so that ``nextafter`` steps in it."""

        def k(out: Any, *args: Any) -> None:
            o = array_of(out)
            with quiet(all="ignore"):  # (3.5e38 into float32 is inf, as the core made it)
                f(*(exact(a, o.dtype) for a in args), out=o)

        k.__name__ = name
        K[name] = k

    def in_acc(name: str, f: Any, arity: int = 1) -> None:
        """A kernel computed by ``f(*arrays)`` in the compute precision of ``out`` (float32
        for 16-bit floats) and rounded into it."""

        def k(out: Any, *args: Any) -> None:
            o = array_of(out)
            d = o.dtype
            if d.itemsize != 2 or d.kind not in "fV":
                # The common call: tensors of the result's dtype, which is its own compute
                # dtype (the general path's conversions and promotion change nothing there,
                # and cost more than a small xlogy's passes).
                xs = []
                for a in args[:arity]:
                    if a.__class__ is not Tensor or array_of(a).dtype != d:
                        break
                    xs.append(array_of(a))
                else:
                    tok = enter()
                    try:
                        xp.copyto(o, f(*xs, *args[arity:]), casting="unsafe")
                    finally:
                        leave(tok)
                    return
            acc = acc_dtype(xp, d)
            with quiet(all="ignore"):
                raw = [operand(a, o.dtype) for a in args[:arity]]
                # An in-place call into a narrower ``self`` still computes in the operands'
                # precision (``f32.xlogy_(f64 0-d)`` is float64 arithmetic, rounded once).
                wide = [
                    r.dtype
                    for r, a in zip(raw, args, strict=False)
                    if isinstance(a, Tensor) and r.dtype.kind in "fc"
                ]
                calc = xp.result_type(acc, *wide) if wide else acc
                xs = [xp.asarray(r, dtype=calc) for r in raw]
                xp.copyto(o, f(*xs, *args[arity:]), casting="unsafe")

        k.__name__ = name
        K[name] = k

    def in_float64(name: str, f: Any) -> None:
        """A special function of ``_special.py``: computed in float64 (by SciPy's loop
        where ``_special_scipy.fast_special`` has one), rounded once."""
        f = fast_special(xp, f.__name__) or f

        def k(out: Any, a: Any) -> None:
            with quiet(all="ignore"):
                r = f(xp, xp.asarray(array_of(a), dtype=xp.float64))
                xp.copyto(array_of(out), r, casting="unsafe")

        k.__name__ = name
        K[name] = k

    # ------------------------------------------------------------------ unary
    ufunc("acosh", xp.arccosh)
    ufunc("asinh", xp.arcsinh)
    ufunc("atanh", xp.arctanh)
    ufunc("deg2rad", xp.deg2rad)
    ufunc("rad2deg", xp.rad2deg)
    in_float64("erfc", _special.erfc)
    in_float64("erfinv", _special.erfinv)
    in_float64("lgamma", _special.lgamma)
    in_float64("digamma", _special.digamma)
    in_float64("i0", _special.i0)
    in_float64("special_i1", _special.i1)
    in_float64("special_i0e", _special.i0e)
    in_float64("special_i1e", _special.i1e)
    in_float64("special_erfcx", _special.erfcx)

    def scipy_kernel(name: str) -> None:
        """A function of ``_special_scipy.py``, on float64 copies of its operands (a Python
        number as a 0-d array, first rounded to the result's dtype as PyTorch converts a
        scalar operand to the compute dtype), rounded once into ``out``."""

        def k(out: Any, *args: Any) -> None:
            f = special_function(xp, name)
            o = array_of(out)
            with quiet(all="ignore"):
                xs = [
                    xp.asarray(
                        xp.asarray(a, dtype=o.dtype)
                        if a.__class__ in (int, float)
                        else exact(a, xp.float64),
                        dtype=xp.float64,
                    )
                    for a in args
                ]
                r = f(*xs)
                if name == "special_zeta":
                    # PyTorch's zeta(x, inf) is NaN (SciPy's is the limit 0), but for x == 1.
                    x, q = xs
                    r = xp.where(xp.isposinf(q) & (x != 1), xp.asarray(math.nan), r)
                xp.copyto(o, r, casting="unsafe")

        k.__name__ = name
        K[name] = k

    for name in SCIPY_NAMES:
        scipy_kernel(name)

    def polygamma(out: Any, n: Any, a: Any) -> None:
        if n < 0:
            raise RuntimeError("polygamma(n, x) does not support negative n.")
        with quiet(all="ignore"):
            r = _special.polygamma(xp, n, xp.asarray(array_of(a), dtype=xp.float64))
            xp.copyto(array_of(out), r, casting="unsafe")

    def sinc(x: Any) -> Any:  # PyTorch's: sin(pi x) / (pi x), 1 at 0
        px = x * math.pi
        return xp.where(x == 0, xp.ones((), x.dtype), xp.sin(px) / px)

    def logit(x: Any, eps: Any = None) -> Any:
        if eps is not None and eps >= 0:  # (PyTorch clamps only for a non-negative eps)
            x = xp.clip(x, eps, 1 - eps)
        return xp.log(x / (1 - x))

    in_acc("sinc", sinc)
    in_acc("logit", logit)

    def signbit(out: Any, a: Any) -> None:
        x, o = array_of(a), array_of(out)
        if a._dtype.is_floating_point:
            xp.signbit(x, out=o)
        else:  # integers and bools: only negative numbers have their sign bit set
            xp.less(x, 0, out=o)

    def frexp(out: Any, a: Any) -> None:
        mantissa, exponent = out
        m, e = xp.frexp(array_of(a))
        xp.copyto(array_of(mantissa), m, casting="unsafe")
        xp.copyto(array_of(exponent), e, casting="unsafe")

    K["polygamma"], K["signbit"], K["frexp"] = polygamma, signbit, frexp

    # ------------------------------------------------------------------ binary
    ufunc("hypot", xp.hypot)
    ufunc("logaddexp2", xp.logaddexp2)
    ufunc("nextafter", xp.nextafter if xp.__name__ == "numpy" else _nextafter(xp))
    ufunc("copysign", xp.copysign)
    ufunc("fmax", xp.fmax)
    ufunc("fmin", xp.fmin)
    ufunc("float_power", xp.power)  # (the core has promoted both to float64 or complex128)

    def real_logaddexp(x: Any, y: Any, o: Any) -> None:
        """``log(exp(x) + exp(y))`` into ``o``. NumPy's ``logaddexp`` takes 25 ns an element
        (a scalar loop); on NumPy it is ``max(x, y) + log1p(exp(-|x - y|))`` here in
        vectorised passes over cache-sized pieces, the same formula (``x == y == +-inf``,
        where ``x - y`` is NaN, through ``fmin(NaN, 0) = 0``; a NaN operand gives NaN
        through the ``max``), 5 times faster."""
        if xp.__name__ != "numpy" or o.dtype.kind != "f" or o.dtype.itemsize < 4:
            xp.logaddexp(x, y, out=o)
            return
        if not o.ndim:  # (NumPy's ufuncs give scalars for 0-d arrays)
            real_logaddexp(xp.asarray(x).reshape(1), xp.asarray(y).reshape(1), o.reshape(1))
            return
        whole = getattr(x, "shape", None) == getattr(y, "shape", None) == o.shape
        for xb, yb, ob in pieces(xp, x, y, o) if whole else ((x, y, o),):
            d = xp.subtract(xb, yb, dtype=o.dtype)
            xp.maximum(xb, yb, out=ob)  # (after d: ob may be xb)
            xp.abs(d, out=d)
            xp.negative(d, out=d)
            xp.fmin(d, 0, out=d)
            xp.exp(d, out=d)
            xp.log1p(d, out=d)
            ob += d

    apply = formula_kernel(xp)
    on_numpy = xp.__name__ == "numpy"

    def past_threshold(bx: Any, threshold: Any) -> Any:
        """The mask ``bx > threshold``, or None where no element is past it (NumPy: the
        maximum, one fast reduction, decides whether the comparison and the masked copy
        are needed at all; elsewhere the mask always). ``fmax`` skips NaNs, which are not
        past it. A small array takes the mask: the reduction's call costs more than the
        masked copy ((8, 16) float32: 1.6 us, 0.8 us)."""
        if on_numpy and bx.size > _MASK_MAX and not xp.fmax.reduce(bx, axis=None) > threshold:
            return None
        return bx > threshold

    def softplus(out: Any, self: Any, beta: Any = 1, threshold: Any = 20) -> None:
        # logaddexp(beta x, 0) / beta (stable: max(bx, 0) + log1p(exp(-|bx|)), the passes of
        # real_logaddexp with y = 0), x itself past the threshold: the composite this
        # replaced, bit for bit in float32 and float64
        def f(c: Any, dest: Any, x: Any) -> Any:
            b = c(beta)
            bx = x * b if beta != 1 else x
            if not on_numpy:
                r = xp.logaddexp(bx, c(0), out=dest)
            else:
                t = xp.abs(bx)
                xp.negative(t, out=t)
                xp.exp(t, out=t)
                xp.log1p(t, out=t)
                r = xp.maximum(bx, c(0), out=dest)
                r += t
            if beta != 1:
                r /= b
            over = past_threshold(bx, c(threshold))
            if over is not None:
                xp.copyto(r, x, where=over)
            return r

        if array_of(out).size:
            tok = enter()  # (``quiet``'s pair without its context object)
            try:
                apply(out, (self,), f)
            finally:
                leave(tok)

    def softplus_backward(out: Any, grad_output: Any, self: Any, beta: Any, threshold: Any) -> None:
        # g * sigmoid(beta x) (1 where beta x > threshold), the sigmoid from
        # exp(-|beta x|): no overflow, and its subnormal values far below 0 (PyTorch's)
        def f(c: Any, dest: Any, g: Any, x: Any) -> Any:
            bx = x * c(beta) if beta != 1 else x
            e = xp.abs(bx)
            xp.negative(e, out=e)
            xp.exp(e, out=e)
            s = xp.minimum(bx, c(0), out=dest)
            xp.exp(s, out=s)  # e where beta x < 0, else 1
            e += c(1)
            s /= e
            over = past_threshold(bx, c(threshold))
            if over is not None:
                xp.copyto(s, c(1), where=over)
            s *= g
            return s

        if array_of(out).size:
            tok = enter()
            try:
                apply(out, (grad_output, self), f)
            finally:
                leave(tok)

    K["softplus"], K["softplus_backward"] = softplus, softplus_backward

    def logaddexp(out: Any, a: Any, b: Any) -> None:
        o = array_of(out)
        with quiet(all="ignore"):
            x, y = operand(a, o.dtype), operand(b, o.dtype)
            if o.dtype.kind != "c":
                real_logaddexp(x, y, o)
                return
            if not any(isinstance(t, Tensor) and t._dtype.is_complex for t in (a, b)):
                # real operands, a complex out=: the real result, stored as complex
                rd = next(array_of(t).dtype for t in (a, b) if isinstance(t, Tensor))
                xp.copyto(o, xp.logaddexp(operand(a, rd), operand(b, rd)))
                return
            xp.copyto(o, _complex_logaddexp(xp, xp.asarray(x), xp.asarray(y)))

    def xlogy(x: Any, y: Any) -> Any:
        # PyTorch's convention: 0 where x is 0, unless y is NaN.
        if x.ndim and x.shape == y.shape and x.dtype == y.dtype:
            # (the same passes in one array, the zeros copied in: no temporaries)
            r = xp.log(y)
            xp.multiply(x, r, out=r)
            xp.copyto(r, const(0, r.dtype), where=(x == 0) & (y == y))
            return r
        r = x * xp.log(y)
        return xp.where((x == 0) & (y == y), xp.zeros((), r.dtype), r)

    def heaviside(out: Any, a: Any, v: Any) -> None:
        # 0 below 0 (and for NaN, as PyTorch), 1 above, ``values`` at 0.
        o = array_of(out)
        x = array_of(a)
        with quiet(all="ignore"):
            xp.copyto(o, xp.where(x == 0, operand(v, o.dtype), x > 0), casting="unsafe")

    def ldexp(x: Any, y: Any, out: Any) -> Any:
        # PyTorch's self * 2 ** other (any exponent, not only integers), each rounded to the
        # result's dtype as its composite rounds them
        return xp.multiply(x, xp.exp2(y), out=out)

    K["logaddexp"], K["heaviside"] = logaddexp, heaviside
    in_acc("xlogy", xlogy, arity=2)
    ufunc("ldexp", ldexp)
    return K


def _nextafter(xp: Any) -> Callable[..., Any]:
    """``xp.nextafter``, with the 16-bit floats stepped on their bit patterns (CuPy's float16
    loop gives NaN for ``nextafter(inf, 0)``, which is the largest finite half, 65504)."""

    def nextafter(x: Any, y: Any, out: Any) -> Any:
        if out.dtype.kind != "f" or out.dtype.itemsize != 2:
            return xp.nextafter(x, y, out=out)
        x, y = xp.broadcast_arrays(x, y)
        # The bits as an unsigned count of magnitude steps, for either sign: one step up in
        # magnitude where y is farther from zero on x's side, one down otherwise.
        up = (y > x) == (x > 0)
        bits = x.view(xp.uint16).astype(xp.int32) + xp.where(up, 1, -1)
        # from zero, the smallest subnormal of y's sign
        bits = xp.where(x == 0, xp.where(y > 0, 0x0001, 0x8001), bits).astype(xp.uint16)
        r = xp.where(x == y, y, bits.view(out.dtype))
        xp.copyto(out, xp.where(xp.isnan(x) | xp.isnan(y), xp.asarray(math.nan, out.dtype), r))
        return out

    return nextafter


def _complex_logaddexp(xp: Any, a: Any, b: Any) -> Any:
    """``log(exp(a) + exp(b))`` for complex arrays, as PyTorch computes it: from the operand
    with the larger real part, ``hi + log1p(exp(lo - hi))``; NaN where either is NaN, the
    lower operand where both real parts are -inf, and the plain formula where both are +inf."""
    swap = a.real < b.real
    hi, lo = xp.where(swap, b, a), xp.where(swap, a, b)
    r = hi + xp.log1p(xp.exp(lo - hi))
    both_inf = xp.isinf(lo.real) & (lo.real == hi.real)
    plain = xp.log(xp.exp(lo) + xp.exp(hi))
    r = xp.where(both_inf, xp.where(lo.real < 0, lo, plain), r)
    nan = xp.isnan(lo.real) | xp.isnan(lo.imag) | xp.isnan(hi.real) | xp.isnan(hi.imag)
    return xp.where(nan, xp.asarray(complex(math.nan, math.nan), dtype=r.dtype), r)
