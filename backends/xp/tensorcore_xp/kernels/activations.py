"""GELU and its gradient, written once against an array module ``xp`` (NumPy or CuPy).

Float32 (and the 16-bit floats, computed in float32) never calls an ``erf``: SciPy's float32
``erf`` costs 15 ns an element, more than the rest of a training step's activation. The
normal CDF comes from the complementary error function in the form of Numerical Recipes'
``erfcc`` (a Chebyshev fit, fractional error below 1.2e-7 for every argument),

    Phi(-|x|) = erfc(a) / 2,  erfc(a) = t * exp(-a**2 + P(t)),  a = |x| / sqrt(2),
    t = 1 / (1 + a / 2),

with ``Phi(x) = 1 - Phi(-|x|)`` for ``x >= 0``: one ``exp`` and a polynomial, and no
``1 + erf`` cancellation, so the negative tail keeps its relative precision (the composite
``x * (1 + erf(x / sqrt(2))) / 2`` loses all of it below ``x = -4``). Measured against the
float64 formula on 300,000 points in [-14, 14] (``tests/test_gelu.py``): at most 18 ulp of
the result for ``x > -3`` (most of it from float32 rounding of ``a**2`` and of the
polynomial), 140 ulp for ``-10 < x``; SciPy's float32 ``erf`` in the composite gave 100
ulp for ``x > -3`` and no correct digit below ``x = -6``. The gradient is
``Phi(x) + x * phi(x)`` from the same pieces. NumPy runs it over blocks of ``_BLOCK``
elements, so that its temporaries stay small (no fresh pages to fault in per call).

Float64 computes ``x * (erf(x / sqrt(2)) + 1) / 2`` with the backend's ``erf``, as the
composite did (the same bits), and its gradient ``Phi(x) + x * phi(x)``. The tanh
approximation is PyTorch's formula in the compute dtype.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..helpers import acc_dtype, array_of, quiet_tokens, shares_storage, writes_through_views

__all__ = ["build"]

# Numerical Recipes' erfcc: P(t) = sum(_ERFCC[k] * t**k).
_ERFCC = (
    -1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398,
    1.48851587, -0.82215223, 0.17087277,
)  # fmt: skip
#: ``P``'s constant term less ``log(2)``: ``exp(P(t) - a**2 - log(2))`` is ``erfc(a) / 2 / t``.
_ERFCC_HALF = _ERFCC[0] - math.log(2)
_SQRT1_2 = 1 / math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_K = math.sqrt(2 / math.pi)  # the tanh form's sqrt(2 / pi)
_CUBIC = 0.044715
#: Elements per block on NumPy: four float32 temporaries of 256 KiB.
_BLOCK = 1 << 16


def build(xp: Any, erf: Callable[..., Any]) -> dict[str, Callable[..., Any]]:
    """``gelu`` and ``gelu_backward`` for the array module ``xp``; ``erf`` is the error
    function as a ufunc of ``xp`` (float64 only)."""
    enter, leave = quiet_tokens(xp)
    blocked = xp.__name__ == "numpy"

    def blocks(o: Any, *ins: Any) -> Any:
        """``(out block, input blocks)`` over the flat elements where every array has ``o``'s
        shape and is C-contiguous (NumPy), else the whole arrays once (0-d ones as 1-element
        arrays: NumPy's ufuncs return scalars for them)."""
        if not o.ndim:
            o, ins = o.reshape(1), tuple(a.reshape(1) for a in ins)
        if blocked and o.ndim > 1 and not o.flags.c_contiguous:
            # A permuted result of a permuted input (the core lays the result out as its
            # input): both seen in memory order are C-contiguous, and blocks of them stay
            # in the cache through the formula's passes (the whole strided arrays, a pass
            # at a time, cost over ten times more).
            order = sorted(range(o.ndim), key=lambda d: -o.strides[d])
            o, ins = o.transpose(order), tuple(a.transpose(order) for a in ins)
        flat = blocked and all(
            a.shape == o.shape and a.flags.c_contiguous for a in (o, *ins)
        )  # fmt: skip
        if not flat or o.size <= _BLOCK:
            yield o, ins
            return
        o1 = o.reshape(-1)
        in1 = [a.reshape(-1) for a in ins]
        for i in range(0, o1.size, _BLOCK):
            yield o1[i : i + _BLOCK], [a[i : i + _BLOCK] for a in in1]

    def phi_parts(x: Any, backward: bool) -> tuple[Any, Any]:
        """``(Phi(x), exp(-x**2 / 2) or None)`` of a float32 block ``x`` (see the module
        docstring); the first is a fresh array."""
        f = x.dtype.type
        a = xp.abs(x)
        a *= f(_SQRT1_2)
        t = a + f(2)
        xp.divide(f(2), t, out=t)  # 1 / (1 + a / 2), the same bits in one pass fewer
        p = t * f(_ERFCC[-1])
        p += f(_ERFCC[-2])
        for c in _ERFCC[-3:0:-1]:
            p *= t
            p += f(c)
        p *= t
        p += f(_ERFCC_HALF)  # (erfc's 1/2 in the exponent: a pass fewer)
        xp.multiply(a, a, out=a)  # a**2 = x**2 / 2
        e = None
        if backward:  # exp(-a**2) serves phi(x) too: two exps, not three
            xp.negative(a, out=a)
            e = xp.exp(a, out=a)
            xp.exp(p, out=p)
            p *= e
        else:
            p -= a
            xp.exp(p, out=p)
        p *= t  # q = Phi(-|x|) = erfc(|x| / sqrt(2)) / 2
        # Phi(x) = q where x < 0 (its sign bit), 1 - q elsewhere: selected bitwise, exactly
        # (a ``where`` on an unpredictable mask is several times slower), where a write
        # through a view reaches the array (not on dask's: there ``where``).
        one_minus = xp.subtract(f(1), p)
        if not writes_through_views(p):
            return xp.where(xp.signbit(x), p, one_minus), e
        ints = f"i{x.dtype.itemsize}"
        m = xp.right_shift(x.view(ints), 8 * x.dtype.itemsize - 1)  # -1 below 0, else 0
        pi, oi = p.view(ints), one_minus.view(ints)
        xp.bitwise_xor(pi, oi, out=pi)
        xp.bitwise_and(pi, m, out=pi)
        xp.bitwise_xor(oi, pi, out=oi)
        return one_minus, e

    def tanh_inner(x: Any) -> Any:
        """``tanh(k * (x + c * x**3))``, a fresh array."""
        f = x.dtype.type
        u = x * x
        u *= f(_CUBIC)
        u += f(1)
        u *= x
        u *= f(_K)
        return xp.tanh(u, out=u)

    def gelu(out: Any, self: Any, approximate: str = "none") -> None:
        o = array_of(out)
        if not o.size:
            return
        x = array_of(self)
        wide = acc_dtype(xp, o.dtype)
        # (blocks are written after they are read: out may be self, not a shifted view of it)
        target = xp.empty(o.shape, wide) if shares_storage(out, self) and out is not self else o
        tok = enter()
        try:
            if approximate != "tanh" and wide == xp.float64:
                # (the composite's operations in its order: the same bits)
                r = xp.multiply(x, _SQRT1_2, out=xp.empty(o.shape, wide))
                erf(r, out=r)
                r += 1
                xp.multiply(x, r, out=r)
                xp.multiply(r, 0.5, out=o)
                return
            for ob, (xb,) in blocks(target, x):
                xb = xb.astype(wide, copy=False)
                if approximate == "tanh":
                    r = tanh_inner(xb)
                    r += 1
                    r *= xb
                    xp.multiply(r, xb.dtype.type(0.5), out=ob)
                else:
                    phi = phi_parts(xb, False)[0]
                    xp.multiply(xb, phi, out=ob)
        finally:
            leave(tok)
        if target is not o:
            o[...] = target

    def gelu_backward(out: Any, grad_output: Any, self: Any, approximate: str = "none") -> None:
        o = array_of(out)
        if not o.size:
            return
        g, x = array_of(grad_output), array_of(self)
        wide = acc_dtype(xp, o.dtype)
        # A block written before a later one is read would be wrong where out overlaps an
        # input: then compute into a temporary.
        target = xp.empty(o.shape, wide) if shares_storage(out, grad_output, self) else o
        tok = enter()
        try:
            gs, xs = xp.broadcast_to(g, o.shape), xp.broadcast_to(x, o.shape)
            for ob, (gb, xb) in blocks(target, gs, xs):
                xb = xb.astype(wide, copy=False)
                f = xb.dtype.type
                if approximate == "tanh":
                    # 0.5 * (1 + T) + 0.5 * x * (1 - T**2) * k * (1 + 3c x**2)
                    t = tanh_inner(xb)
                    du = xb * xb
                    du *= f(3 * _CUBIC * _K)
                    du += f(_K)
                    r = t + f(1)
                    xp.multiply(t, t, out=t)
                    xp.subtract(f(1), t, out=t)
                    t *= du
                    t *= xb
                    r += t
                    r *= f(0.5)
                elif f is xp.float64:
                    r = xb * _SQRT1_2
                    erf(r, out=r)
                    r += 1
                    r *= 0.5
                    e = xb * xb
                    e *= -0.5
                    xp.exp(e, out=e)
                    e *= _INV_SQRT_2PI
                    e *= xb
                    r += e
                else:
                    r, e = phi_parts(xb, True)
                    e *= f(_INV_SQRT_2PI)
                    e *= xb
                    r += e
                xp.multiply(gb, r, out=ob)
        finally:
            leave(tok)
        if target is not o:
            o[...] = target

    return {"gelu": gelu, "gelu_backward": gelu_backward}
