"""``silu``, ``mish``, ``hardswish`` and ``elu`` (which ``selu`` and ``celu`` call) and their
gradients (PyTorch's ``*_backward`` operators), written once against an array module ``xp``
(NumPy or CuPy).

They were products of other operators, whose product rules turn an infinite or huge
incoming gradient into NaN wherever one factor of the derivative rounds to 0 (``silu`` at
``x = 20``: ``inf * sigmoid(x) + inf * x * sigmoid'(x)`` is ``inf + inf * 0``). Here each
gradient is one formula, ``grad_output * f'(x)``, with ``f'(x)`` computed first (PyTorch's
forms), so that it is finite or infinite where PyTorch's is. Each computes in the compute
precision (float32 for the 16-bit floats, rounded once, as PyTorch's ``opmath``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..helpers import (
    acc_dtype,
    array_of,
    constant_arrays,
    formula_kernel,
    quiet_tokens,
    select,
    writes_through_views,
)

__all__ = ["build"]


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """The kernels of ``silu``, ``mish``, ``hardswish``, ``elu`` and their backwards for ``xp``."""
    K: dict[str, Callable[..., Any]] = {}
    enter, leave = quiet_tokens(xp)
    apply = formula_kernel(xp)
    const = constant_arrays(xp)

    def inputs(out: Any, *tensors: Any) -> tuple[Any, list[Any]]:
        """The compute dtype and ``tensors``' arrays in it, broadcast to ``out``'s shape (one
        element for a 0-d ``out``: NumPy's ufuncs return scalars for 0-d arrays)."""
        o = array_of(out)
        d = xp.dtype(acc_dtype(xp, o.dtype))
        shape = o.shape or (1,)
        arrays = [array_of(t) for t in tensors]
        # (the common call, operands of the result's shape and dtype, as they are: NumPy's
        # broadcast_to costs a few microseconds, more than a ufunc pass on a small array)
        return d, [
            a
            if a.shape == shape and a.dtype == d
            else xp.broadcast_to(a.astype(d, copy=False), shape)
            for a in arrays
        ]

    def put(out: Any, r: Any) -> None:
        o = array_of(out)
        xp.copyto(o, r.reshape(o.shape), casting="unsafe")

    def into(out: Any, d: Any) -> Any:
        """``out``'s array where a last pass may write into it (the compute dtype, not 0-d:
        the operands were made 1-D for a 0-d result; a NumPy or CuPy array, which takes
        ``out=``, where dask's does not), else None: the caller then makes a fresh array
        and puts it."""
        o = array_of(out)
        return o if o.ndim and o.dtype == d and writes_through_views(o) else None

    def sigmoid(x: Any, dest: Any = None, one: Any = 1) -> Any:
        """``1 / (1 + exp(-x))``, the ``sigmoid`` kernel's passes (0 below about -88 in
        float32), in ``dest`` (None: a fresh array); ``one`` is 1 (a formula's constant
        ``c(1)`` costs NumPy no conversion)."""
        s = xp.negative(x, out=dest)
        xp.exp(s, out=s)
        s += one
        return xp.reciprocal(s, out=s)

    def kernel(fn: Callable[..., None]) -> None:
        def k(out: Any, *args: Any) -> None:
            if array_of(out).size:
                tok = enter()  # (``errstate``'s pair without its context object)
                try:
                    fn(out, *args)
                finally:
                    leave(tok)

        k.__name__ = fn.__name__
        K[fn.__name__] = k

    @kernel
    def silu(out: Any, self: Any) -> None:
        def f(c: Any, dest: Any, x: Any) -> Any:
            s = sigmoid(x, dest, c(1))
            return xp.multiply(x, s, out=s)

        apply(out, (self,), f)

    @kernel
    def silu_backward(out: Any, grad_output: Any, self: Any) -> None:
        # g * s * (1 + x * (1 - s))
        def f(c: Any, dest: Any, g: Any, x: Any) -> Any:
            s = sigmoid(x)
            t = xp.subtract(c(1), s, out=dest)
            t *= x
            t += c(1)
            t *= s
            if x.dtype.kind == "c":
                xp.conjugate(t, out=t)  # (the conjugate Wirtinger derivative, as PyTorch)
            return xp.multiply(g, t, out=t)

        apply(out, (grad_output, self), f)

    def tanh_softplus(x: Any, dest: Any = None) -> Any:
        """``tanh(log(1 + exp(x)))`` as the rational function of ``e = exp(x)`` it is,
        ``n / (n + 2)`` with ``n = e * (e + 2)``: no logarithm, no cancellation for ``x`` far
        below 0 (``n ~ 2e``), and 1 in float64 from ``x = 20`` on, where ``e`` is clamped
        (so that ``n`` stays finite). In ``dest`` (None: a fresh array)."""
        f = x.dtype.type
        e = xp.minimum(x, f(20))
        xp.exp(e, out=e)
        n = xp.add(e, f(2), out=dest)
        n *= e
        e = xp.add(n, f(2), out=e)
        return xp.divide(n, e, out=n)

    @kernel
    def mish(out: Any, self: Any) -> None:
        def f(c: Any, dest: Any, x: Any) -> Any:
            t = tanh_softplus(x, dest)
            return xp.multiply(x, t, out=t)

        apply(out, (self,), f)

    @kernel
    def mish_backward(out: Any, grad_output: Any, self: Any) -> None:
        # g * (t + x * s * (1 - t**2)), t = tanh(softplus(x)), s = sigmoid(x)
        def f(c: Any, dest: Any, g: Any, x: Any) -> Any:
            t = tanh_softplus(x)
            r = xp.multiply(t, t, out=dest)
            xp.subtract(c(1), r, out=r)
            r *= sigmoid(x)
            r *= x
            r += t
            return xp.multiply(g, r, out=r)

        apply(out, (grad_output, self), f)

    @kernel
    def hardswish(out: Any, self: Any) -> None:
        # x * min(max(x + 3, 0), 6) / 6: PyTorch's kinks (0 at -3, x at 3: x + 3 is 0 and 6
        # there) and values (-inf gives NaN), the composite this replaced, bit for bit
        def f(c: Any, dest: Any, x: Any) -> Any:
            r = xp.add(x, c(3), out=dest)
            xp.maximum(r, c(0), out=r)
            xp.minimum(r, c(6), out=r)
            r *= x
            return xp.divide(r, c(6), out=r)

        apply(out, (self,), f)

    @kernel
    def hardswish_backward(out: Any, grad_output: Any, self: Any) -> None:
        # 0 at and below -3, grad_output from 3 on (and at NaN), g * (x / 3 + 1/2) between
        def f(c: Any, dest: Any, g: Any, x: Any) -> Any:
            r = xp.divide(x, c(3), out=dest)
            r += c(0.5)
            r *= g
            r = select(xp, x < 3, r, g)
            return select(xp, ~(x <= -3), r, None)

        apply(out, (grad_output, self), f)

    @kernel
    def log_sigmoid(out: Any, self: Any) -> None:
        # min(x, 0) - log1p(exp(-|x|)): no overflow on either side
        def f(c: Any, dest: Any, x: Any) -> Any:
            r = xp.abs(x)
            xp.negative(r, out=r)
            xp.exp(r, out=r)
            xp.log1p(r, out=r)
            m = xp.minimum(x, c(0), out=dest)
            return xp.subtract(m, r, out=m)

        apply(out, (self,), f)

    @kernel
    def log_sigmoid_backward(out: Any, grad_output: Any, self: Any) -> None:
        # g * sigmoid(-x) = g / (1 + exp(x)) (exp overflowing to inf gives 0)
        d, (g, x) = inputs(out, grad_output, self)
        r = xp.exp(x)
        r += d.type(1)
        put(out, xp.divide(g, r, out=r))

    @kernel
    def elu(out: Any, self: Any, alpha: Any = 1, scale: Any = 1, input_scale: Any = 1) -> None:
        # scale * x where x > 0, else alpha * scale * expm1(x * input_scale), PyTorch's
        # coefficients, as the sum scale * max(x, 0) + alpha * scale * expm1(min(x, 0) *
        # input_scale): one of the two terms is exactly 0 (expm1(0) = 0), so the sum is the
        # branch taken, without a select over the mask (NaN stays NaN, -inf gives
        # -alpha * scale; the sign of a zero result may differ from PyTorch's)
        d, (x,) = inputs(out, self)
        r = xp.minimum(x, const(0, d))
        if input_scale != 1:
            r *= const(input_scale, d)
        xp.expm1(r, out=r)
        r *= const(alpha * scale, d)
        o = into(out, d)
        p = xp.maximum(x, const(0, d), out=o)
        if scale != 1:
            p *= const(scale, d)
        xp.add(p, r, out=p)
        if o is None:
            put(out, p)

    @kernel
    def elu_backward(
        out: Any,
        grad_output: Any,
        alpha: Any,
        scale: Any,
        input_scale: Any,
        is_result: bool,
        self_or_result: Any,
    ) -> None:
        # grad * scale where x > 0, else grad * input_scale * (result + alpha * scale) from
        # the result or grad * alpha * scale * input_scale * exp(x * input_scale) from the
        # input (NaN there, as PyTorch's gradient at NaN)
        d, (g, x) = inputs(out, grad_output, self_or_result)
        r = xp.minimum(x, const(0, d))
        if is_result:
            r += const(alpha * scale, d)
            r *= const(input_scale, d)
        else:
            if input_scale != 1:
                r *= const(input_scale, d)
            xp.exp(r, out=r)
            r *= const(alpha * scale * input_scale, d)
        r *= g
        pos = g if scale == 1 else g * const(scale, d)
        put(out, select(xp, x > const(0, d), pos, r))

    return K
