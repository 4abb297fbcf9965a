"""Matrix products and ``einsum``, written once against an array module ``xp``.

16-bit floats are multiplied in float32 and rounded once, as PyTorch accumulates them on the
CPU. Integer products work (without BLAS); bool products raise, as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorcore import dtypes as dt
from tensorcore.ops.frontends import empty

from ._util import array_of, shares_storage

__all__ = ["build"]


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """Matrix-product kernels for the array module ``xp``."""
    K: dict[str, Callable[..., Any]] = {}

    def operands(out: Any, a: Any, b: Any, impl: str) -> tuple[Any, Any, Any]:
        if a._dtype is dt.bool_ or b._dtype is dt.bool_:
            raise RuntimeError(f"\"{impl}\" not implemented for 'Bool'")
        x, y, o = array_of(a), array_of(b), array_of(out)
        if o.dtype.itemsize == 2 and o.dtype.kind in "fV":
            x, y = x.astype(xp.float32), y.astype(xp.float32)
        return x, y, o

    def product(name: str, impl: str) -> None:
        def k(out: Any, a: Any, b: Any) -> None:
            x, y, o = operands(out, a, b, impl)
            if o.ndim and o.dtype == x.dtype == y.dtype:
                xp.matmul(x, y, out=o)
            else:
                o[...] = xp.matmul(x, y)

        k.__name__ = name
        K[name] = k

    product("matmul", "addmm_impl_cpu_")
    product("mm", "addmm_impl_cpu_")
    product("bmm", "bmm")
    product("mv", "addmv_impl_cpu")

    def addmm(out: Any, c: Any, a: Any, b: Any, beta: Any = 1, alpha: Any = 1) -> None:
        x, y, o = operands(out, a, b, "addmm_impl_cpu_")
        if shares_storage(out, c, a, b) or o.dtype != x.dtype or o.dtype != y.dtype:
            o[...] = xp.matmul(x, y)  # (an out= over an input: the product first, then write)
        else:
            xp.matmul(x, y, out=o)
        if alpha != 1:
            xp.multiply(o, alpha, out=o)
        if beta != 0:  # beta == 0 ignores self, NaNs included (PyTorch)
            cc = array_of(c)
            xp.add(o, cc if beta == 1 else cc * beta, out=o)

    K["addmm"] = addmm

    def dot(out: Any, a: Any, b: Any) -> None:
        x, y, o = operands(out, a, b, "dot")
        o[...] = xp.dot(x, y)

    def outer(out: Any, a: Any, b: Any) -> None:
        o = array_of(out)
        # Both operands in the result dtype: NumPy has no mixed loops for every pair.
        x, y = array_of(a).astype(o.dtype, copy=False), array_of(b).astype(o.dtype, copy=False)
        xp.multiply(x[:, None], y[None, :], out=o)

    def einsum(equation: str, operands: Any) -> Any:
        ts = list(operands)
        if not ts:
            raise RuntimeError("einsum(): must provide at least one operand")
        res = ts[0]._dtype
        for t in ts[1:]:
            res = dt.promote_types(res, t._dtype)
        arrays = [array_of(t) for t in ts]
        if res.itemsize == 2 and (res.is_floating_point or res.is_complex):
            arrays = [x.astype(xp.float32) for x in arrays]
        try:
            # ``optimize`` contracts pairwise through BLAS instead of one nested loop.
            r = xp.einsum(equation, *arrays, optimize=len(arrays) > 1)
        except ValueError as exc:
            raise RuntimeError(f"einsum(): {exc}") from None
        out = empty(tuple(r.shape), res, ts[0]._device)
        array_of(out)[...] = r
        return out

    K.update(dot=dot, outer=outer, einsum=einsum)
    return K
