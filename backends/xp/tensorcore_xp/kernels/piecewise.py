"""The piecewise-linear activations and their gradients (PyTorch's ``leaky_relu``,
``hardtanh``, ``hardsigmoid``, ``softshrink``, ``hardshrink``, ``threshold`` and their
``*_backward``; ``_prelu_kernel`` and its backward, with a tensor of slopes), written once
against an array module ``xp`` (NumPy or CuPy).

Each is one ``where`` over the input, computed in the compute precision (float32 for the
16-bit floats, rounded once, as PyTorch's ``opmath``), with PyTorch's comparisons: they
decide what a NaN input gives (the value, or the gradient, passes) and which side of a kink
its end points take (``hardtanh``'s gradient is 0 at ``min_val`` and ``max_val``, the
shrinks' gradients are 0 at ``±lambd``). The gradients are operators of their own, as in
PyTorch, so that a double backward reaches the input (their derivative in ``self`` is a zero
that flows, ``tensorcore/ops/derivatives/activations.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..helpers import (
    acc_dtype,
    array_of,
    constant_arrays,
    errstate,
    formula_kernel,
    quiet_tokens,
    select,
    shares_storage,
)

__all__ = ["build"]


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """The piecewise activations' kernels for the array module ``xp``."""
    K: dict[str, Callable[..., Any]] = {}
    quiet = errstate(xp)
    enter, leave = quiet_tokens(xp)
    const = constant_arrays(xp)
    apply = formula_kernel(xp)

    def wide(out: Any) -> Any:
        return acc_dtype(xp, array_of(out).dtype)

    def operand(v: Any, dtype: Any) -> Any:
        """A tensor's array (or a Python number) in the compute dtype."""
        a = array_of(v)
        if hasattr(a, "astype"):
            return a.astype(dtype, copy=False)
        return xp.asarray(a, dtype=dtype)

    def bound(v: Any, dtype: Any) -> Any:
        """A Scalar parameter in the compute dtype (an integer tensor's bounds are
        truncated, as PyTorch converts them)."""
        return xp.asarray(v, dtype=dtype)

    def put(out: Any, r: Any) -> None:
        o = array_of(out)
        o[...] = r.astype(o.dtype, copy=False) if r.dtype != o.dtype else r

    def kernel(fn: Callable[..., None]) -> None:
        K[fn.__name__] = fn

    @kernel
    def leaky_relu(out: Any, self: Any, negative_slope: Any = 0.01) -> None:
        d = wide(out)
        x = operand(self, d)
        tok = enter()
        try:
            # (the slope as a cached 0-d array where d is a float dtype, not the float32
            # type that 16-bit floats compute in: ``bound``'s conversion, once)
            f = getattr(d, "kind", None) == "f"
            slope = const(negative_slope, d) if f else bound(negative_slope, d)
            o = array_of(out)
            if 0 < negative_slope < math.inf:
                # The larger (slope <= 1) or smaller (slope > 1) of x and x * slope is the
                # where's pick, bit for bit (NaN and infinities included; a slope of 0 or
                # inf would turn inf or 0 into NaN): two passes instead of a where, which
                # NumPy runs several times slower on inputs of mixed signs.
                pick = xp.maximum if negative_slope <= 1 else xp.minimum
                if o.dtype == d and not shares_storage(out, self):
                    # (x * slope in out, then the pick into it: no temporary of x's size;
                    # an out over x would be scaled before the pick reads x)
                    xp.multiply(x, slope, out=o)
                    pick(x, o, out=o)
                elif o.dtype == d:
                    pick(x, x * slope, out=o)
                else:
                    put(out, pick(x, x * slope))
            else:
                put(out, xp.where(x > 0, x, x * slope))
        finally:
            leave(tok)

    @kernel
    def leaky_relu_backward(
        out: Any, grad_output: Any, self: Any, negative_slope: Any, self_is_result: bool
    ) -> None:
        if self_is_result and negative_slope < 0:
            raise RuntimeError(
                "In-place leakyReLu backward calculation is triggered with a negative slope "
                "which is not supported. This is caused by calling in-place forward function "
                "with a negative slope, please call out-of-place version instead. File an "
                "issue at https://github.com/pytorch/pytorch if you do require supporting "
                "in-place leakRelu backward calculation with negative slope"
            )
        d = wide(out)
        g, x = operand(grad_output, d), operand(self, d)
        with quiet(all="ignore"):
            g, x = xp.broadcast_arrays(g, x)
            put(out, select(xp, x > 0, g, g * bound(negative_slope, d)))

    @kernel
    def hardtanh(out: Any, self: Any, min_val: Any = -1, max_val: Any = 1) -> None:
        d = wide(out)
        x = operand(self, d)
        # (clamp's: NaN stays NaN)
        o = array_of(out)
        if o.dtype == d:  # (in out: no temporaries, no copy)
            xp.maximum(x, bound(min_val, d), out=o)
            xp.minimum(o, bound(max_val, d), out=o)
        else:
            put(out, xp.minimum(xp.maximum(x, bound(min_val, d)), bound(max_val, d)))

    @kernel
    def hardtanh_backward(
        out: Any, grad_output: Any, self: Any, min_val: Any, max_val: Any
    ) -> None:
        d = wide(out)
        g, x = operand(grad_output, d), operand(self, d)
        # (NaN is not on the flat parts: its gradient passes, as PyTorch's)
        inside = ~((x <= bound(min_val, d)) | (x >= bound(max_val, d)))
        g, inside = xp.broadcast_arrays(g, inside)
        put(out, select(xp, inside, g, None))

    @kernel
    def hardsigmoid(out: Any, self: Any) -> None:
        def f(c: Any, dest: Any, x: Any) -> Any:
            r = xp.add(x, c(3), out=dest)
            xp.maximum(r, c(0), out=r)
            xp.minimum(r, c(6), out=r)
            return xp.divide(r, c(6), out=r)

        apply(out, (self,), f)

    @kernel
    def hardsigmoid_backward(out: Any, grad_output: Any, self: Any) -> None:
        # g / 6 where -3 < x < 3 (|x| < 3: never at NaN), else 0
        def f(c: Any, dest: Any, g: Any, x: Any) -> Any:
            inside = xp.less(xp.abs(x), c(3))
            return select(xp, inside, xp.multiply(g, c(1 / 6), out=dest), None)

        with quiet(all="ignore"):
            apply(out, (grad_output, self), f)

    def zero_where_dead(out: Any, v: Any, self: Any, lambd: Any) -> None:
        """``out = v``, 0 where a shrink of ``self`` is 0: ``-lambd <= self <= lambd`` (never
        at NaN). The shrinks' gradients (``v`` the gradient) and ``hardshrink`` (``v`` self)."""
        d = wide(out)
        x, lam = operand(self, d), bound(lambd, d)
        put(out, xp.where((x >= -lam) & (x <= lam), xp.zeros((), d), operand(v, d)))

    @kernel
    def softshrink(out: Any, self: Any, lambd: Any = 0.5) -> None:
        d = wide(out)
        x = operand(self, d)
        lam = bound(lambd, d)
        with quiet(all="ignore"):
            # (x * 0 inside: NaN stays NaN, as PyTorch's)
            r = xp.where(x > lam, x - lam, xp.where(x < -lam, x + lam, x * 0))
        put(out, r)

    @kernel
    def softshrink_backward(out: Any, grad_output: Any, self: Any, lambd: Any) -> None:
        zero_where_dead(out, grad_output, self, lambd)

    @kernel
    def hardshrink(out: Any, self: Any, lambd: Any = 0.5) -> None:
        zero_where_dead(out, self, self, lambd)

    @kernel
    def hardshrink_backward(out: Any, grad_out: Any, self: Any, lambd: Any) -> None:
        zero_where_dead(out, grad_out, self, lambd)

    @kernel
    def threshold(out: Any, self: Any, threshold: Any, value: Any) -> None:
        d = wide(out)
        x = operand(self, d)
        put(out, xp.where(x <= bound(threshold, d), bound(value, d), x))

    @kernel
    def _prelu_kernel(out: Any, self: Any, weight: Any) -> None:
        d = wide(out)
        x, w = operand(self, d), operand(weight, d)
        with quiet(all="ignore"):  # (inf * 0: PyTorch never warns)
            put(out, xp.where(x > 0, x, w * x))

    @kernel
    def _prelu_kernel_backward(out: Any, grad_output: Any, self: Any, weight: Any) -> None:
        grad_input, grad_weight = out
        d = wide(grad_input)
        g, x, w = operand(grad_output, d), operand(self, d), operand(weight, d)
        pos = x > 0
        with quiet(all="ignore"):  # (inf * 0: PyTorch never warns)
            put(grad_input, xp.where(pos, g, w * g))
            put(grad_weight, xp.where(pos, xp.zeros((), d), x * g))

    return K
