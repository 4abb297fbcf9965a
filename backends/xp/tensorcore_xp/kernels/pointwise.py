"""Elementwise kernels, written once against an array module ``xp`` (NumPy or CuPy).

The core has already broadcast-checked the arguments, promoted tensor inputs to the compute
dtype and allocated ``out``; each kernel only computes into ``out``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from math import prod
from typing import Any

import numpy as np

import tensorcore as tc
from tensorcore import Tensor
from tensorcore.backend import contiguous_tensor, empty, native
from tensorcore.dtypes import COMPLEX
from tensorcore.dtypes import FLOATING as _FLOATING

from ..helpers import (
    acc_dtype,
    array_of,
    errstate,
    quiet_tokens,
    scalar_arrays,
    shares_storage,
    wrap_unsigned,
    writes_through_views,
)
from . import _special
from ._erf_single import erf_float32
from ._fmod_single import floor_divide_float32, fmod_float32, remainder_float32

__all__ = ["build"]


def _copied(r: Any, shape: tuple[int, ...], dtype: Any, device: Any) -> Any:
    """A result of ``shape`` and ``dtype`` allocated on ``device`` holding the array ``r``.

    A pointwise kernel writes into the result the core allocated (``kernel(out, *args)``);
    its ``fresh`` variant (``fresh(shape, dtype, *args)``, which ``tensorcore.dispatch.FRESH``
    hands the lanes) lets the ufunc allocate instead and returns a new contiguous tensor of
    ``shape`` and ``dtype`` over that array, or None to leave the call to the kernel. For a
    small result that is one array-library call instead of two (``empty``, then the ufunc
    with ``out=``), with the same values: the same loop on the same operands. Only below
    ``fresh_bytes``: the CPU allocator hands large results blocks from its cache, which a
    ufunc's own allocation would bypass. An array not of the dtype or memory order asked for
    (a loop NumPy picked otherwise) is copied into an allocated result here, as ``out=``
    would have cast it.
    """
    o = empty(shape, dtype, device)
    array_of(o)[...] = r
    return o


def build(
    xp: Any, erf: Callable[..., Any] | None = None, fresh_bytes: int = 0
) -> dict[str, Callable[..., Any]]:
    """Pointwise kernels for the array module ``xp``; ``erf`` is the error function as a
    ufunc of ``xp`` (None: see :func:`_erf_ufunc`). With ``fresh_bytes``, the elementwise
    kernels of one ufunc get a ``fresh`` variant for results smaller than that many bytes
    (see :func:`_fresh`)."""
    K: dict[str, Callable[..., Any]] = {}
    quiet = errstate(xp)
    enter, leave = quiet_tokens(xp)
    weak, lift = scalar_arrays(xp)

    def lifted(v: Any, dtype: Any) -> Any:
        """A Python float operand as ``binary`` passes it (see ``scalar_arrays``); anything
        else as it is. For the kernels of operators with ``opmath`` scalars."""
        if v.__class__ is float:
            return weak.get((v, dtype)) or lift(v, dtype)
        return array_of(v)

    # The two kernels most calls reach read the native arrays inline (``array_of`` spelled
    # out: the cached ``_native`` slot first, ``tensorcore.backend.native`` to make it): a
    # function call per operand is a measurable part of an elementwise op on small tensors.
    def truthful(ufunc: Any) -> Any:
        """``ufunc`` (a logical one) on the truth of its operands: a complex array is compared
        with 0 first, for array modules whose logical ufuncs have no complex loop (CuPy)."""
        if xp.__name__ == "numpy":
            return ufunc

        def f(*args: Any, out: Any = None) -> Any:
            args = tuple(a != 0 if getattr(a, "dtype", None) is not None and a.dtype.kind == "c"
                         else a for a in args)  # fmt: skip
            return ufunc(*args, out=out)

        return f

    def binary(name: str, ufunc: Any, noisy: bool = False, refuse_bool: str = "") -> None:
        # ``alpha`` scales ``other`` (``add``/``sub``: PyTorch's ``self + alpha * other``);
        # ``refuse_bool`` is the error for a bool ``self`` (subtraction's).
        def k(out: Any, a: Any, b: Any, alpha: Any = 1) -> None:
            if refuse_bool and isinstance(a, Tensor) and a._dtype is tc.bool:
                raise RuntimeError(refuse_bool)
            o = out._native
            if o is None:
                o = native(out)
            x = a._native if isinstance(a, Tensor) else a
            if x is None:
                x = native(a)
            elif x.__class__ is float:
                x = weak.get((x, o.dtype)) or lift(x, o.dtype)
            y = b._native if isinstance(b, Tensor) else b
            if y is None:
                y = native(b)
            elif y.__class__ is float:
                y = weak.get((y, o.dtype)) or lift(y, o.dtype)
            tok = enter()
            try:
                if alpha != 1:
                    y = xp.multiply(y, wrap_unsigned(alpha, o.dtype))
                ufunc(x, y, out=o)
            finally:
                leave(tok)

        def fresh(shape: tuple[int, ...], dtype: Any, a: Any, b: Any, alpha: Any = 1) -> Any:
            # ``k`` with the result made by the ufunc (see ``_copied``): the same operands,
            # the same loop; declined where ``k`` does more (``alpha``, a bool refused), for
            # a result of another dtype than the tensor operand's (a comparison) and for a
            # Python float meeting a 16-bit float (``k`` computes it in float32 into ``out``).
            if a.__class__ is Tensor:
                t = a
                x = a._native
                if x is None:
                    x = native(a)
                want = x.dtype
                y = b._native if b.__class__ is Tensor else b
                if y is None:
                    y = native(b)
                elif y.__class__ is float:
                    if want.itemsize == 2:
                        return None
                    y = weak.get((y, want)) or lift(y, want)
            else:
                t = b
                y = b._native
                if y is None:
                    y = native(b)
                want = y.dtype
                x = a
                if x.__class__ is float:
                    if want.itemsize == 2:
                        return None
                    x = weak.get((x, want)) or lift(x, want)
            if alpha != 1 or dtype is not t._dtype or (refuse_bool and dtype is tc.bool):
                return None
            n = len(shape)
            # (0-d: a ufunc returns a NumPy scalar there, not an array)
            nbytes = (shape[0] if n == 1 else prod(shape)) * want.itemsize
            if not n or nbytes >= fresh_bytes:
                return None
            if dtype._category >= _FLOATING:
                tok = enter()
                try:
                    r = ufunc(x, y)
                finally:
                    leave(tok)
            else:
                # Bool and integer operands of the same dtype (this variant's only others):
                # these ufuncs' integer loops raise no floating-point flag, so there is no
                # warning to silence (``errstate`` is a tenth of a small call). Checked by
                # tests/test_fast_frontends.py::test_integer_fresh_results_raise_no_fp_flag.
                r = ufunc(x, y)
            if r.dtype is not want or (n > 1 and not r.flags.c_contiguous):
                return _copied(r, shape, dtype, t._device)
            return contiguous_tensor(r, nbytes, shape, dtype, t._device, r)

        k.__name__ = name
        K[name] = k
        if fresh_bytes:
            k.fresh = fresh  # type: ignore[attr-defined]

    def unary(name: str, ufunc: Any, noisy: bool = True) -> None:
        def k(out: Any, a: Any) -> None:
            x = a._native
            if x is None:
                x = native(a)
            o = out._native
            if o is None:
                o = native(out)
            tok = enter()
            try:
                ufunc(x, out=o)
            finally:
                leave(tok)

        if not noisy:

            def k(out: Any, a: Any) -> None:
                ufunc(array_of(a), out=array_of(out))

        def fresh(shape: tuple[int, ...], dtype: Any, a: Any) -> Any:
            # ``k`` with the result made by the ufunc (see ``_copied``)
            x = a._native
            if x is None:
                x = native(a)
            # (0-d: a ufunc returns a NumPy scalar there, not an array)
            if dtype is not a._dtype or x.nbytes >= fresh_bytes or not shape:
                return None
            if noisy:
                tok = enter()
                try:
                    r = ufunc(x)
                finally:
                    leave(tok)
            else:
                r = ufunc(x)
            if r.dtype is not x.dtype or (len(shape) > 1 and not r.flags.c_contiguous):
                return _copied(r, shape, dtype, a._device)
            return contiguous_tensor(r, r.nbytes, shape, dtype, a._device, r)

        k.__name__ = name
        K[name] = k
        if fresh_bytes:
            k.fresh = fresh  # type: ignore[attr-defined]

    binary("add", xp.add)
    binary(
        "sub",
        xp.subtract,
        refuse_bool="Subtraction, the `-` operator, with a bool tensor is not supported. If you "
        "are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
    )

    floor_divide, remainder, fmod = xp.floor_divide, xp.remainder, xp.fmod
    if xp.__name__ == "numpy":
        # NumPy's float32 loops of these call the C library's fmod an element at a time;
        # _fmod_single computes the same bits with float64 array arithmetic where that is
        # exact (quotients below 2**29; 2**22 for the floor division), 2-4x faster.
        def remainder(x: Any, y: Any, out: Any) -> Any:
            if out.dtype.kind != "f":
                return xp.remainder(x, y, out=out)
            if xp.may_share_memory(x, out):  # x %= y: x's signs are needed after the call
                x = x.copy()
            if out.dtype == np.float32 and remainder_float32(x, y, out) is not None:
                return out
            xp.remainder(x, y, out=out)
            # A zero remainder keeps x's sign, as PyTorch's (fmod's); NumPy gives y's.
            xp.copysign(out, x, out=out, where=out == 0)
            return out

        def floor_divide(x: Any, y: Any, out: Any) -> Any:
            if out.dtype == np.float32 and floor_divide_float32(x, y, out) is not None:
                return out
            return xp.floor_divide(x, y, out=out)

        def fmod(x: Any, y: Any, out: Any) -> Any:
            if out.dtype == np.float32 and fmod_float32(x, y, out) is not None:
                return out
            return xp.fmod(x, y, out=out)

    else:
        # Off NumPy, floating-point operands take NumPy's (and PyTorch's) formula: CuPy's
        # floor division is floor(x / y), whose rounded quotient can be one too large (30
        # for 3.0 // 0.1), and its remainder x - floor(x / y) * y agrees with it.
        def floor_divide(x: Any, y: Any, out: Any) -> Any:
            if out.dtype.kind != "f":
                return xp.floor_divide(x, y, out=out)
            xp.copyto(out, _floor_divmod(xp, x, y, out.dtype)[0], casting="unsafe")
            return out

        def remainder(x: Any, y: Any, out: Any) -> Any:
            if out.dtype.kind != "f":
                return xp.remainder(x, y, out=out)
            xp.copyto(out, _floor_divmod(xp, x, y, out.dtype)[1], casting="unsafe")
            return out

    # (NumPy's own complex64 division scales the divisor: only other modules widen)
    narrow_complex = np.dtype(np.complex64) if xp.__name__ != "numpy" else None

    def div(out: Any, a: Any, b: Any, rounding_mode: str | None = None) -> None:
        o = array_of(out)
        x, y = lifted(a, o.dtype), lifted(b, o.dtype)
        floating = out._dtype.is_floating_point or out._dtype.is_complex
        if not floating and _has_zero(xp, y):
            raise RuntimeError("ZeroDivisionError")  # PyTorch's type and wording
        if rounding_mode is None and narrow_complex is None:
            # The common call (a true division: every ``x / y``, two in each backward of
            # one): the error-state tokens, a third of ``quiet``'s cost.
            tok = enter()
            try:
                xp.true_divide(x, y, out=o)
            finally:
                leave(tok)
            return
        with quiet(all="ignore"):
            if rounding_mode is None and narrow_complex is not None and o.dtype == narrow_complex:
                # CuPy divides complex64 by |y|^2 in single precision, which overflows past
                # 1.8e19 (0 / 8.5e37j is NaN, NumPy's and PyTorch's 0): in complex128,
                # where it does not, rounded once into the result.
                def wide(v: Any) -> Any:
                    return v.astype(xp.complex128) if hasattr(v, "astype") else v

                xp.copyto(o, xp.true_divide(wide(x), wide(y)), casting="unsafe")
            elif rounding_mode is None:
                xp.true_divide(x, y, out=o)
            elif rounding_mode == "floor":
                # Python's // for floats too (3.0 // 0.1 is 29.0, -2.0 // inf is -1.0), as
                # PyTorch's div_floor: not floor(x / y), whose rounded quotient can be 30.
                floor_divide(x, y, out=o)
            elif rounding_mode == "trunc":
                if floating:
                    xp.trunc(xp.true_divide(x, y), out=o)
                else:
                    q = xp.floor_divide(x, y)
                    r = xp.remainder(x, y)
                    fix = (r != 0) & ((xp.asarray(x) < 0) != (xp.asarray(y) < 0))
                    xp.add(q, fix, out=o, casting="unsafe")
            else:
                raise ValueError(
                    f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                    f"found '{rounding_mode}'"
                )

    def int_guard(name: str, ufunc: Any) -> None:
        def k(out: Any, a: Any, b: Any) -> None:
            floating = out._dtype.is_floating_point or out._dtype.is_complex
            if not floating and _has_zero(xp, array_of(b)):
                raise RuntimeError("ZeroDivisionError")  # PyTorch's type and wording
            o = array_of(out)
            with quiet(all="ignore"):
                ufunc(lifted(a, o.dtype), lifted(b, o.dtype), out=o)

        k.__name__ = name
        K[name] = k

    K["div"] = div
    binary("mul", xp.multiply)
    int_guard("floor_divide", floor_divide)
    int_guard("remainder", remainder)
    int_guard("fmod", fmod)
    binary("atan2", xp.arctan2, noisy=True)
    binary("maximum", xp.maximum)
    binary("minimum", xp.minimum)
    for n, f in [
        ("eq", xp.equal),
        ("ne", xp.not_equal),
        ("lt", xp.less),
        ("le", xp.less_equal),
        ("gt", xp.greater),
        ("ge", xp.greater_equal),
        ("logical_and", truthful(xp.logical_and)),
        ("logical_or", truthful(xp.logical_or)),
        ("logical_xor", truthful(xp.logical_xor)),
        ("bitwise_and", xp.bitwise_and),
        ("bitwise_or", xp.bitwise_or),
        ("bitwise_xor", xp.bitwise_xor),
        ("bitwise_left_shift", xp.left_shift),
        ("bitwise_right_shift", xp.right_shift),
    ]:
        binary(n, f)

    def pow_(out: Any, a: Any, b: Any) -> None:
        x, y = array_of(a), array_of(b)
        o = array_of(out)
        if not (out._dtype.is_floating_point or out._dtype.is_complex):
            neg = (y < 0) if not isinstance(y, (int, float)) else xp.asarray(y < 0)
            if bool(xp.any(neg)):
                if isinstance(y, (int, float)):  # (check_pow refuses a Python exponent first)
                    raise RuntimeError("Integers to negative integer powers are not allowed.")
                # A tensor of exponents: PyTorch's integer power, where x ** -n is 1 for
                # x == 1, 1 or -1 for x == -1 (as n is even or odd) and 0 for any other x.
                base = xp.asarray(x)
                xp.power(base, xp.where(neg, 0, y), out=o)
                one = xp.where(base == -1, 1 - 2 * (y & 1), (base == 1).astype(o.dtype))
                xp.copyto(o, one, where=neg, casting="unsafe")
                return
        with quiet(all="ignore"):
            if (
                type(y) in (int, float)
                and y in _POW_SPECIAL
                and o.dtype.kind == x.dtype.kind
                and x.dtype.kind in "fc"
                # (PyTorch's 16-bit floats take the general power in float32 but for 2 and 3)
                and (y in (2, 3) or o.dtype.itemsize > 2)
            ):
                # PyTorch computes these exponents of a floating or complex tensor with other
                # functions, and their values differ from the general power's at the edges:
                # 0.5 is sqrt and -0.5 rsqrt (-0.0 ** -0.5 is -inf, -inf ** 0.5 NaN; a
                # negative complex number's root is exactly imaginary), -1 is 1 / x, 2, 3 and
                # -2 are products (x * x, x * x * x, 1 / (x * x)): the general power loop is
                # also several times slower on a square and up to a hundred times on a cube
                # of negative numbers. (A square is the correctly rounded x ** 2; a 16-bit
                # cube goes through float32 and is rounded once, as PyTorch's.)
                if y == 2 and x.dtype == o.dtype:
                    xp.multiply(x, x, out=o)
                    return
                wide = acc_dtype(xp, o.dtype)
                if y == 3 and x.dtype == o.dtype == wide and not shares_storage(out, a):
                    # (the square in out, then times x: two passes and no temporary, where
                    # the product and its copy into out made three passes and two arrays of
                    # x's size; an out over x would be squared before the second product
                    # reads x; a 16-bit cube is computed wider and rounded once, below)
                    xp.multiply(x, x, out=o)
                    xp.multiply(o, x, out=o)
                    return
                w = x.astype(wide, copy=False)
                if y == 3:
                    r = xp.multiply(w, w) * w
                elif y == 0.5:
                    r = xp.sqrt(w)
                elif y == -0.5:
                    r = 1 / xp.sqrt(w)
                elif y == -1:
                    r = 1 / w
                else:  # -2
                    r = 1 / (w * w)
                o[...] = r.astype(o.dtype, copy=False)
                return
            xp.power(x, y, out=o)

    _POW_SPECIAL = (2, 3, 0.5, -0.5, -1, -2)
    pow_.__name__ = "pow"
    K["pow"] = pow_

    def neg(out: Any, a: Any) -> None:
        if a._dtype is tc.bool:
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                "to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        xp.negative(array_of(a), out=array_of(out))

    K["neg"] = neg
    unary("abs", xp.abs, noisy=False)

    host = xp.__name__ == "numpy"

    def sign(out: Any, a: Any) -> None:
        if a._dtype is tc.bool:  # NumPy has no bool loop: the sign of a bool is itself
            xp.copyto(array_of(out), array_of(a))
        elif host and array_of(a).dtype.kind == "f" and a.ndim:
            # (x > 0) - (x < 0) in int8, copied into out: 0 for NaN, as PyTorch's, and +0.0
            # for -0.0, as np.sign's; NumPy's sign loop is not vectorised ((256, 256) float32
            # 36 -> 16 us)
            x = array_of(a)
            pos = xp.greater(x, 0).view(xp.int8)
            xp.subtract(pos, xp.less(x, 0).view(xp.int8), out=pos)
            xp.copyto(array_of(out), pos)
        else:
            o = array_of(out)
            xp.sign(array_of(a), out=o)
            if a._dtype.is_floating_point:  # PyTorch's sign of NaN is 0
                xp.copyto(o, 0, where=xp.isnan(o))

    K["sign"] = sign
    for n, f in [
        ("exp", xp.exp),
        ("exp2", xp.exp2),
        ("expm1", xp.expm1),
        ("log", xp.log),
        ("log2", xp.log2),
        ("log10", xp.log10),
        ("log1p", xp.log1p),
        ("sqrt", xp.sqrt),
        ("sin", xp.sin),
        ("cos", xp.cos),
        ("tan", xp.tan),
        ("asin", xp.arcsin),
        ("acos", xp.arccos),
        ("atan", xp.arctan),
        ("sinh", xp.sinh),
        ("cosh", xp.cosh),
        ("tanh", xp.tanh),
        ("reciprocal", xp.reciprocal),
    ]:
        unary(n, f)

    def rsqrt(out: Any, a: Any) -> None:
        with quiet(all="ignore"):
            o = array_of(out)
            xp.sqrt(array_of(a), out=o)
            xp.reciprocal(o, out=o)

    def sigmoid(out: Any, a: Any) -> None:
        x, o = array_of(a), array_of(out)
        # 1 / (1 + exp(-x)) in the result's memory: exp overflows to inf below about -88
        # (float32), and 1 / inf is 0, as PyTorch's kernel gives there.
        # (1 as a cached 0-d array where that is o's dtype: NumPy converts a Python number
        # on every call, as long as a pass over a small array)
        d = o.dtype
        tok = enter()
        try:
            xp.negative(x if x.dtype == d else x.astype(d), out=o)
            xp.exp(o, out=o)
            xp.add(o, one(d) if d.itemsize > 2 else 1, out=o)
            xp.reciprocal(o, out=o)
        finally:
            leave(tok)

    def relu(out: Any, a: Any) -> None:
        if a._dtype is tc.bool:
            raise RuntimeError("\"clamp_min_cpu\" not implemented for 'Bool'")
        xp.maximum(array_of(a), 0, out=array_of(out))

    def rounding(name: str, f: Any) -> None:
        def k(out: Any, a: Any) -> None:
            if a._dtype.is_floating_point:
                f(array_of(a), out=array_of(out))
            elif out is not a:
                xp.copyto(array_of(out), array_of(a))

        k.__name__ = name
        K[name] = k

    K["rsqrt"], K["sigmoid"], K["relu"] = rsqrt, sigmoid, relu
    unary("erf", erf if erf is not None else _erf_ufunc(xp))

    def conj(out: Any, a: Any) -> None:
        if out._dtype.is_complex:
            xp.conj(array_of(a), out=array_of(out))
        else:
            xp.copyto(array_of(out), array_of(a))

    K["conj"] = conj

    def activation_backward(
        name: str, formula: Callable[[Any, Any, Any], None], half_in_half: bool = False
    ) -> None:
        """``out = formula(grad_output, conj(output))``, computed in ``out`` itself unless
        ``out`` shares memory with an input (then in a temporary). 16-bit floats compute in
        float32 and round once, but float16 step by step in float16 where ``half_in_half``
        (PyTorch's kernels differ so)."""

        def k(out: Any, g: Any, y: Any) -> None:
            o = out._native
            if o is None:
                o = native(out)
            st = out._storage
            if isinstance(g, Tensor) and isinstance(y, Tensor):
                gg, yy = g._native, y._native
                if gg is None:
                    gg = native(g)
                if yy is None:
                    yy = native(y)
                shared = g._storage is st or y._storage is st
            else:  # a Python scalar argument (the core converted it to out's dtype)
                gg, yy = array_of(g), array_of(y)
                if not isinstance(y, Tensor):  # the factor is computed in out's dtype
                    with quiet(all="ignore"):  # a float on the fast path: rounded here
                        yy = xp.asarray(yy, dtype=o.dtype)
                shared = shares_storage(out, g, y)
            if out._dtype._category == COMPLEX:
                yy = xp.conj(yy)
            tok = enter()
            try:
                if (
                    out._dtype.itemsize == 2
                    and out._dtype.is_floating_point
                    and not (half_in_half and out._dtype is tc.float16)
                ):
                    tmp = xp.empty(o.shape, dtype="float32")
                    formula(gg.astype("float32"), yy.astype("float32"), tmp)
                    xp.copyto(o, tmp, casting="unsafe")
                    return
                tmp = xp.empty_like(o) if shared else o
                formula(gg, yy, tmp)
                if tmp is not o:
                    xp.copyto(o, tmp)
            finally:
                leave(tok)

        k.__name__ = name
        K[name] = k

    def one(dtype: Any) -> Any:
        if dtype.kind != "f":
            return 1
        return weak.get((1.0, dtype)) or lift(1.0, dtype)

    def tanh_grad(g: Any, y: Any, t: Any) -> None:  # g * (1 - y**2)
        # PyTorch's CPU kernel forms 1 - y*y as one fused multiply-add (a single rounding):
        # float32 (and the 16-bit floats, computed in it) gets it exactly through float64,
        # so that gradients compare bit for bit (32k elements: 11 -> 43 us). float64 keeps
        # two roundings: emulating the fused one costs a dozen passes and three temporaries
        # (32k elements: 21 -> 700 us), and differs in the last bit only.
        d = t.dtype
        if d.kind == "f" and d.itemsize == 4:
            p = xp.multiply(y, y, dtype="float64")  # (exact: 24-bit squares fit in 53 bits)
            if not p.ndim:  # (NumPy answers a 0-d product with a scalar, not writable)
                p = xp.asarray(p)
            xp.subtract(1.0, p, out=p)
            xp.multiply(g, p, out=t, dtype=d)  # (rounds 1 - y*y once: same_kind casting)
            return
        xp.multiply(y, y, out=t)
        xp.subtract(one(d), t, out=t)
        xp.multiply(g, t, out=t)

    def sigmoid_grad(g: Any, y: Any, t: Any) -> None:  # (g * (1 - y)) * y, in PyTorch's order
        xp.subtract(one(t.dtype), y, out=t)
        xp.multiply(g, t, out=t)
        xp.multiply(t, y, out=t)

    activation_backward("tanh_backward", tanh_grad)
    activation_backward("sigmoid_backward", sigmoid_grad, half_in_half=True)

    def threshold_backward(out: Any, g: Any, x: Any, threshold: Any) -> None:
        if out._dtype.is_complex:
            raise RuntimeError('"threshold_backward" not implemented for complex tensors')
        o = array_of(out)
        gg = lifted(g, o.dtype)
        tok = enter()
        try:
            # PyTorch's rule: the gradient is zeroed where ``self <= threshold`` (a NaN input
            # passes it on), compared in the compute precision (float32 for 16-bit floats).
            drop = xp.less_equal(lifted(x, o.dtype), lifted(threshold, o.dtype))
            if not isinstance(g, Tensor) or o.dtype.kind == "b" or not writes_through_views(o):
                # (the bitwise form below writes through a view, which not every array
                # library's arrays share with their base: dask's do not)
                xp.copyto(o, xp.where(drop, xp.zeros((), o.dtype), gg), casting="unsafe")
                return
            # Zeroed bitwise: the gradient's bits ANDed with an all-ones (kept) or all-zeros
            # (dropped) integer of its size. A multiply by the mask would turn an inf or NaN
            # gradient at a dropped position into NaN (PyTorch gives 0), and a masked copy or
            # ``where`` is ~10x slower on unpredictable masks; this costs about the multiply.
            keep = xp.subtract(drop.view(xp.int8), xp.int8(1))  # 0 -> -1 (all ones), 1 -> 0
            ints = f"i{o.dtype.itemsize}"
            xp.bitwise_and(gg.view(ints), keep, out=o.view(ints))
        finally:
            leave(tok)

    K["threshold_backward"] = threshold_backward
    rounding("floor", xp.floor)
    rounding("ceil", xp.ceil)
    rounding("trunc", xp.trunc)

    def round_(out: Any, a: Any, decimals: int = 0) -> None:
        if a._dtype.is_floating_point or a._dtype.is_complex:
            with quiet(all="ignore"):
                xp.round(array_of(a), decimals, out=array_of(out))
        elif out is not a:
            xp.copyto(array_of(out), array_of(a))

    round_.__name__ = "round"
    K["round"] = round_
    unary("isnan", xp.isnan, noisy=False)
    unary("isinf", xp.isinf, noisy=False)
    unary("isfinite", xp.isfinite, noisy=False)
    unary("logical_not", truthful(xp.logical_not), noisy=False)
    unary("bitwise_not", xp.invert, noisy=False)

    def nan_to_num(
        out: Any,
        a: Any,
        nan: float | None = 0.0,
        posinf: float | None = None,
        neginf: float | None = None,
    ) -> None:
        x = array_of(a)
        if not (a._dtype.is_floating_point or a._dtype.is_complex):
            if out is not a:
                xp.copyto(array_of(out), x)
            return
        if acc_dtype(xp, x.dtype) != x.dtype:
            # A 16-bit float (NumPy does not see ml_dtypes' bfloat16 as inexact, and would
            # leave it as it is): replace in float32, with the 16-bit dtype's own limits.
            big = tc.finfo(a._dtype).max
            posinf = big if posinf is None else posinf
            neginf = -big if neginf is None else neginf
            x = x.astype(acc_dtype(xp, x.dtype))
        elif host and x.dtype.kind == "f" and xp.isfinite(x).all():
            # (nothing to replace, the usual case: a copy, where NumPy's nan_to_num copies
            # and then makes and applies three masks; (256, 256) 97 -> 15 us. Not off the
            # host, where the test would wait for the device.)
            if out is not a:
                xp.copyto(array_of(out), x)
            return
        with quiet(all="ignore"):  # (a replacement out of the dtype's range is +-inf)
            xp.copyto(
                array_of(out),
                xp.nan_to_num(x, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf),
                casting="unsafe",
            )

    clip_in_one_pass = xp.__name__ == "numpy"
    # NumPy's clip ufunc itself: ``np.clip``'s Python wrapper costs more than the ufunc on
    # small arrays (a private name, looked up once; the public function where it is missing)
    clip: Any = getattr(getattr(getattr(xp, "_core", None), "umath", None), "clip", None)
    if clip is None:
        clip = getattr(xp, "clip", None)

    def clamp(out: Any, a: Any, lo: Any = None, hi: Any = None) -> None:
        if lo is None and hi is None:
            raise RuntimeError("At least one of 'min' or 'max' must not be None")
        x, o = array_of(a), array_of(out)
        if (
            clip_in_one_pass
            and out._dtype.is_floating_point
            and getattr(x, "dtype", None) == o.dtype
            and not isinstance(lo, Tensor)
            and not isinstance(hi, Tensor)
        ):
            # Number bounds: NumPy's clip, min(max(x, lo), hi) in one pass (half the time of
            # the two; with array bounds it is slower than they are), which keeps x where it
            # equals a bound (-0.0 clamped at 0.0 stays -0.0) as PyTorch's kernel does; NaN
            # in x or in a bound gives NaN.
            # (a missing bound as an infinite one: NumPy's clip with None is max or min alone,
            # which gives the bound on a tie)
            lo, hi = -math.inf if lo is None else lo, math.inf if hi is None else hi
            tok = enter()
            try:
                clip(x, lo, hi, out=o)
            finally:
                leave(tok)
            return
        if not clip_in_one_pass and o.dtype.kind == "f":
            # Other array modules' maximum/minimum may give the bound on a tie (CuPy's
            # minimum(0.0, -0.0) is -0.0): PyTorch keeps x there, as these comparisons do
            # (false for a NaN x, which stays); a NaN bound gives NaN.
            r = x
            for bound, past in ((lo, xp.less), (hi, xp.greater)):
                if bound is None:
                    continue
                if not isinstance(bound, Tensor):
                    if bound != bound:
                        o.fill(math.nan)
                        return
                    r = xp.where(past(r, bound), bound, r)
                    continue
                b = array_of(bound)
                r = xp.where(past(r, b) | xp.isnan(b), b, r)
            xp.copyto(o, r, casting="unsafe")
            return
        if lo is not None and hi is not None:
            if o.dtype.kind in "biuf" and not (
                isinstance(hi, Tensor) and hi._storage is out._storage
            ):
                # Both steps in out (which hi does not share): no temporary.
                xp.maximum(x, array_of(lo), out=o)
                xp.minimum(o, array_of(hi), out=o)
            else:
                xp.minimum(xp.maximum(x, array_of(lo)), array_of(hi), out=o)
        elif lo is not None:
            xp.maximum(x, array_of(lo), out=o)
        else:
            xp.minimum(x, array_of(hi), out=o)

    def where(out: Any, cond: Any, a: Any, b: Any) -> None:
        xp.copyto(array_of(out), xp.where(array_of(cond), array_of(a), array_of(b)))

    def lerp(out: Any, a: Any, end: Any, weight: Any) -> None:
        # PyTorch's formula, in the compute precision (float32 for 16-bit floats): from the
        # nearer end, so that weight 1 gives ``end`` exactly.
        o = array_of(out)
        acc = acc_dtype(xp, o.dtype)
        x = xp.asarray(lifted(a, o.dtype), dtype=acc)
        e = xp.asarray(lifted(end, o.dtype), dtype=acc)
        w = lifted(weight, o.dtype)
        if (
            o.ndim
            and acc == o.dtype
            and not isinstance(weight, Tensor)
            and x.shape == e.shape == o.shape
        ):
            # The common call (an EMA's ``avg.lerp_(p, 1 - decay)``): the same formula in three
            # array operations, the last writing into out (which may be x or e: each writes an
            # element after reading it), instead of four and two temporaries.
            tok = enter()
            try:
                d = xp.subtract(e, x)
                if abs(w) < 0.5:
                    xp.add(x, xp.multiply(d, w, out=d), out=o)
                else:
                    xp.subtract(e, xp.multiply(d, 1 - w, out=d), out=o)
            finally:
                leave(tok)
            return
        with quiet(all="ignore"):
            diff = e - x
            if not isinstance(weight, Tensor):
                r = x + w * diff if abs(w) < 0.5 else e - diff * (1 - w)
            else:
                w = array_of(w)
                r = xp.where(abs(w) < 0.5, x + w * diff, e - diff * (1 - w))
            xp.copyto(o, r, casting="unsafe")

    K["nan_to_num"], K["clamp"], K["where"], K["lerp"] = nan_to_num, clamp, where, lerp
    return K


def _floor_divmod(xp: Any, x: Any, y: Any, dtype: Any) -> tuple[Any, Any]:
    """Floor division and remainder of floating-point ``x`` and ``y`` (arrays or Python
    scalars) for results of array dtype ``dtype``, computed as NumPy's ``npy_divmod`` and
    PyTorch's ``div_floor_floating`` do: from ``fmod``, whose result is exact, rather than
    from the rounded quotient ``x / y``. So ``x == (x // y) * y + x % y`` as closely as
    floats allow, ``3.0 // 0.1`` is 29.0 and ``-1.0 // -0.1`` is 9.0 (the operands are
    binary fractions), ``-2.0 // inf`` is -1.0, ``x // 0`` is ``x / 0``, and a zero
    remainder keeps ``x``'s sign, as PyTorch's (NumPy's takes ``y``'s). The 16-bit floats
    compute in float32, as NumPy's loops do."""
    wide = acc_dtype(xp, dtype)
    x = xp.asarray(x, dtype=wide)
    y = xp.asarray(y, dtype=wide)
    mod = xp.fmod(x, y)
    div = (x - mod) / y
    # fmod's remainder has x's sign; the floor's has y's
    fix = (mod != 0) & ((y < 0) != (mod < 0))
    mod = xp.where(fix, mod + y, mod)
    div = xp.where(fix, div - 1, div)
    q = xp.floor(div)
    q = xp.where(div - q > 0.5, q + 1, q)  # (div is an integer up to rounding)
    ratio = x / y
    q = xp.where(div == 0, xp.copysign(xp.zeros_like(q), ratio), q)
    return xp.where(y == 0, ratio, q), mod


def _has_zero(xp: Any, y: Any) -> bool:
    if isinstance(y, (int, bool)):
        return y == 0
    return bool(xp.any(y == 0))


def _erf_ufunc(xp: Any) -> Any:
    """The error function as an ``f(x, out=)`` ufunc of ``xp`` when the backend passed none.

    Float32 results (and 16-bit ones, computed in float32) take the single-precision formula
    of ``_erf_single.py``, a few ulp in some 20 passes. Float64 takes SciPy's for NumPy where
    SciPy is installed, else ``math.erf`` element by element (exact, slower); for another
    array module, the library's own float64 series (``_special.erf``), rounded into ``out``.
    """

    def by_element(x: Any, out: Any) -> Any:
        out[...] = xp.frompyfunc(math.erf, 1, 1)(x)
        return out

    def series(x: Any, out: Any) -> Any:
        xp.copyto(out, _special.erf(xp, xp.asarray(x, dtype=xp.float64)), casting="unsafe")
        return out

    double: Any = series
    if xp.__name__ == "numpy":
        try:
            from scipy.special import erf as scipy_erf
        except ImportError:
            double = by_element
        else:
            double = scipy_erf

    single = xp.dtype(xp.float32)

    def erf(x: Any, out: Any = None) -> Any:
        if acc_dtype(xp, x.dtype if out is None else out.dtype) != single:
            return double(x) if out is None else double(x, out=out)
        if out is None:
            out = xp.empty(x.shape, single)
        if x.dtype != single:
            x = x.astype(single)
        if out.dtype == single:
            return erf_float32(xp, x, out)
        xp.copyto(out, erf_float32(xp, x, xp.empty(x.shape, single)), casting="unsafe")
        return out

    return erf
