"""Binary search and running extremes, written once against an array module ``xp``.

``searchsorted`` searches each innermost row of the sorted sequence; ``cummax``/``cummin``
report the last place the running extreme was reached (PyTorch's ``>=`` update), NaN
propagating from its first occurrence; ``logcumsumexp`` accumulates ``logaddexp`` so that
no prefix underflows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..helpers import accumulate, array_of, errstate, quiet_tokens, take_along

__all__ = ["build"]


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """Search and scan kernels for the array module ``xp``."""
    K: dict[str, Callable[..., Any]] = {}
    quiet = errstate(xp)
    enter, leave = quiet_tokens(xp)
    numpy = xp.__name__ == "numpy"

    def searchsorted(
        out: Any,
        sorted_sequence: Any,
        input: Any,
        out_int32: bool = False,
        right: bool = False,
        side: Any = None,
        sorter: Any = None,
    ) -> None:
        seq, o = array_of(sorted_sequence), array_of(out)
        v = xp.asarray(array_of(input))
        if sorter is not None:
            order = array_of(sorter)
            if order.size and (int(order.min()) < 0 or int(order.max()) >= seq.shape[-1]):
                raise RuntimeError("sorter index out of range")  # (CuPy would not check)
            seq = take_along(xp, seq, order, -1)
        kind = "right" if right else "left"
        if seq.ndim == 1:
            found = xp.searchsorted(seq, v, side=kind)
            if v.dtype.kind in "fc" or (v.dtype.kind == "V" and v.dtype.itemsize == 2):
                # PyTorch's binary search moves right past every value a NaN is not below:
                # a NaN goes after the whole row (NumPy puts it before the row's NaNs).
                found = xp.where(xp.isnan(v), seq.shape[-1], found)
            o[...] = found
            return
        # A batch of rows: a vectorised binary search, log2(n) + 1 steps of gathers.
        n = seq.shape[-1]
        lo = xp.zeros(v.shape, dtype=xp.int64)
        hi = xp.full(v.shape, n, dtype=xp.int64)
        while True:
            active = lo < hi
            if not bool(active.any()):
                break
            mid = (lo + hi) // 2
            probe = take_along(xp, seq, xp.minimum(mid, n - 1), -1)
            # (PyTorch's comparisons: a NaN value goes right, past the whole row)
            go_right = ~(probe > v) if right else ~(probe >= v)
            lo = xp.where(active & go_right, mid + 1, lo)
            hi = xp.where(active & ~go_right, mid, hi)
        o[...] = lo

    def hits(x: Any, v: Any) -> Any:
        """Where the running extreme ``v`` of ``x`` takes ``x``'s value: the index moves
        there (a NaN element too: where the running value became NaN, or is NaN already,
        PyTorch's ``isnan`` update)."""
        tok = enter()
        try:
            hit = x == v
            if x.dtype.kind == "f" or x.dtype.kind == "V":
                hit |= xp.isnan(x)
        finally:
            leave(tok)
        return hit

    # (ndim, dim, its length) -> ``place``'s positions (NumPy: ``running``'s small calls)
    positions: dict[tuple[int, int, int], Any] = {}

    def place(x: Any, dim: int) -> Any:
        """The position along ``dim`` of each element of ``x``, broadcastable to it."""
        shape = [1] * x.ndim
        shape[dim] = x.shape[dim]
        return xp.arange(x.shape[dim], dtype=xp.int64).reshape(shape)

    def running(name: str, better: Any) -> None:
        def k(out: Any, self: Any, dim: int) -> None:
            values, indices = out
            x = array_of(self)
            if x.ndim == 0:
                array_of(values)[...] = x
                array_of(indices)[...] = 0
                return
            if x.size == 0:
                return
            if numpy and x.size >= 4096:  # (below, the scan's fewer calls are faster)
                # Along the last axis (views): the hits of a row are then consecutive. The
                # index is the last hit at or before each element, and each row starts with
                # a hit: in the flat order, each hit's position repeated up to the next (a
                # row has about log(n) hits on random data: no second scan of the row).
                x = x.swapaxes(dim, -1)
                vals = array_of(values).swapaxes(dim, -1)
                if vals.dtype == x.dtype:
                    v = better.accumulate(x, axis=-1, out=vals)
                else:
                    v = better.accumulate(x, axis=-1)
                    vals[...] = v
                flat = xp.flatnonzero(hits(x, v))
                runs = xp.empty_like(flat)
                xp.subtract(flat[1:], flat[:-1], out=runs[:-1])
                runs[-1] = x.size - flat[-1]
                ind = array_of(indices).swapaxes(dim, -1)
                ind[...] = xp.repeat(flat % x.shape[-1], runs).reshape(x.shape)
                return
            if numpy:
                # (small: the scans straight into the results, the positions kept per
                # shape; the generic calls below cost twice as much on an (8, 16) array)
                vals, ind = array_of(values), array_of(indices)
                key = (x.ndim, dim, x.shape[dim])
                where = positions.get(key)
                if where is None:
                    if len(positions) >= 64:
                        positions.clear()
                    where = positions[key] = place(x, dim)
                if vals.dtype == x.dtype:
                    v = better.accumulate(x, axis=dim, out=vals)
                else:
                    v = better.accumulate(x, axis=dim)
                    vals[...] = v
                if ind.dtype == xp.int64:
                    xp.maximum.accumulate(xp.where(hits(x, v), where, -1), axis=dim, out=ind)
                    return
            v = accumulate(xp, better, x, dim)
            array_of(values)[...] = v
            array_of(indices)[...] = accumulate(
                xp, xp.maximum, xp.where(hits(x, v), place(x, dim), -1), dim
            )

        k.__name__ = name
        K[name] = k

    running("cummax", xp.maximum)
    running("cummin", xp.minimum)

    def logaddexp(a: Any, b: Any) -> Any:
        """``log(exp(a) + exp(b))`` for real or complex arrays, without overflow."""
        if a.dtype.kind != "c":
            return xp.logaddexp(a, b)
        m = xp.maximum(a.real, b.real)
        m = xp.where(xp.isfinite(m), m, 0)
        return m + xp.log(xp.exp(a - m) + xp.exp(b - m))

    def logcumsumexp(out: Any, self: Any, dim: int) -> None:
        x, o = array_of(self), array_of(out)
        if x.ndim == 0 or x.size == 0:
            o[...] = x
            return
        wide = x.astype(xp.float32) if x.dtype.itemsize == 2 and x.dtype.kind in "fV" else x
        with quiet(all="ignore"):
            if wide.dtype.kind != "c":
                try:
                    o[...] = xp.logaddexp.accumulate(wide, axis=dim)
                    return
                except (AttributeError, NotImplementedError, TypeError):
                    pass  # an array module without ufunc.accumulate: step along the dim
            acc = wide.take(0, axis=dim)
            res = xp.empty_like(wide)
            front = (slice(None),) * dim
            res[front + (0,)] = acc
            for i in range(1, wide.shape[dim]):
                acc = logaddexp(acc, wide[front + (i,)])
                res[front + (i,)] = acc
            o[...] = res

    K.update(searchsorted=searchsorted, logcumsumexp=logcumsumexp)
    return K
