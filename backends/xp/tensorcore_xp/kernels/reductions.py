"""Reductions, scans, softmax and sorting, written once against an array module ``xp``.

Reductions (meta kind ``reduction``) get ``dim`` as a sorted tuple of non-negative ints (None
only for a flattened ``argmax``/``argmin``) and an ``out`` of the reduced shape and dtype;
scans, softmax and sorting (``structured``) get a wrapped ``dim``. Every kernel only computes
into ``out``. Half-precision inputs accumulate in float32, as PyTorch does on the CPU.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from tensorcore.backend import dtype_name

from ..helpers import (
    acc_dtype,
    accumulate,
    array_of,
    contraction,
    errstate,
    fold_product,
    move_axis,
    quiet_tokens,
    reduce_extreme,
    take_along,
)

__all__ = ["build"]

#: The longest last-axis row that ``row_sums`` sums with ``einsum`` (its sequential
#: accumulators lose more than the reduce's pairwise sums on long rows).
_EINSUM_ROW = 1024
#: The most elements that ``row_sums`` leaves to NumPy's reduce whatever their rows: a small
#: array's reduce costs less than ``einsum``'s call ((8, 16) float32: 1.1 us, 1.7 us; the
#: product's sums 1.5 us, 1.9 us; even at (32, 32)).
_EINSUM_MIN = 512
#: The fewest elements that ``topk`` selects from (a partition, then a sort of the ``k``):
#: below, a sort of the whole rows costs less than the selection's dozen array calls ((8, 16)
#: float32: 21 us, 31 us; (8, 128): 28 us, 32 us; (16, 256): 50 us, 39 us).
_SELECT_MIN = 2048

#: Elements above which a softmax (its backward) along the last axis runs over blocks of
#: rows of about ``_ROW_BLOCK`` elements (a few MiB of float32: past the CPU's caches).
_LARGE_ROWS = 1 << 20
_ROW_BLOCK = 1 << 16

#: Smallest slice (in elements) over which a scan along a leading axis calls its ufunc once
#: per slice rather than accumulating (Python's cost per call against the slice's work).
_SCAN_SLICE = 256


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """Reduction, scan and sorting kernels for the array module ``xp``."""
    K: dict[str, Callable[..., Any]] = {}
    quiet = errstate(xp)
    enter, leave = quiet_tokens(xp)
    # NumPy's ufunc.reduce writes into an out of the reduced shape, without the Python wrapper
    # (``np.sum``, ``np.amax``) and the temporary it allocates to copy from; the kernels take
    # it where NumPy is the array module and the dtypes allow, others the generic path.
    direct = getattr(xp, "errstate", None) is not None
    einsum = contraction(xp)

    def acc(d: Any) -> Any:
        return acc_dtype(xp, d)

    def axes(x: Any, dim: Any) -> Any:
        # A 0-d tensor accepts dim 0 / -1; NumPy has no axis to reduce there.
        return dim if x.ndim else None

    def count(x: Any, dim: Any) -> int:
        return math.prod(x.shape[d] for d in dim) if x.ndim else 1

    def compact(x: Any, dim: Any) -> tuple[Any, int]:
        """``x`` with every broadcast dim (stride 0, size > 1) cut to size 1, and how many
        times each element of the reduced dims (``dim``; None: all) stood for: an expanded
        tensor is reduced over the memory it really has, never a full-size temporary (an
        ``expand(2**31)`` would make 8 GiB). The kernels scale what depends on the count."""
        if 0 not in x.strides or x.size == 0:
            return x, 1
        idx: list[Any] = []
        weight = 1
        for d, (n, st) in enumerate(zip(x.shape, x.strides, strict=True)):
            if st == 0 and n > 1:
                idx.append(slice(0, 1))
                if dim is None or d in dim:
                    weight *= n
            else:
                idx.append(slice(None))
        return x[tuple(idx)], weight

    def no_complex(name: str, t: Any) -> None:
        if t._dtype.is_complex:
            raise RuntimeError(f"\"{name}_cpu\" not implemented for '{_torch(t)}'")

    # ------------------------------------------------------------ sums and products
    def short_rows(ufunc: Any, x: Any, dim: Any, o: Any, keepdim: bool) -> bool:
        """``ufunc.reduce`` of ``x`` over its last dim into ``o`` as the elementwise ``ufunc``
        of that dim's slices, where it is the one reduced dim, 2 to 7 long, over many rows
        and in ``o``'s dtype (True: done). NumPy reduces a short last dim a row at a time
        ((524288, 2) float32: 7.8 ms, the slices 0.3 ms; the gradient of an expand over a last
        dim of 2); below 8 elements its reduce adds in order, so the bits are the same."""
        n = x.shape[-1] if x.ndim else 0
        if (
            not 2 <= n <= 7
            or dim is None
            or len(dim) != 1
            or dim[0] % x.ndim != x.ndim - 1
            or x.dtype != o.dtype
            or x.size < 16 * n
            or xp.may_share_memory(o, x)
        ):
            return False
        r = o[..., 0] if keepdim else o
        ufunc(x[..., 0], x[..., 1], out=r)
        for j in range(2, n):
            ufunc(r, x[..., j], out=r)
        return True

    # result dtype -> its accumulation dtype, and whether that is the result dtype (the
    # direct ``ufunc.reduce`` into ``out``): per call, a dict lookup instead of two calls
    accumulation: dict[Any, tuple[Any, bool]] = {}

    def reducer(name: str, fn: Any, ufunc: Any, fast: Any = None) -> None:
        # ``fast(xp, x, axes, out, keepdim)``: a faster way for some calls (True: done)
        def k(out: Any, self: Any, dim: Any, keepdim: bool = False, dtype: Any = None) -> None:
            x, o = array_of(self), array_of(out)
            hit = accumulation.get(o.dtype)
            if hit is None:
                a = acc(o.dtype)
                hit = accumulation[o.dtype] = (a, bool(direct and a == o.dtype))
            a, into = hit
            ax = dim if x.ndim else None
            tok = enter()
            try:
                if into:
                    # (short_rows takes a last dim of 2 to 7 only: the common case skips it)
                    if not (
                        x.ndim and 2 <= x.shape[-1] <= 7 and short_rows(ufunc, x, dim, o, keepdim)
                    ) and not (fast is not None and fast(xp, x, ax, o, keepdim)):
                        ufunc.reduce(x, axis=ax, dtype=a, out=o, keepdims=keepdim)
                else:
                    o[...] = fn(x, axis=ax, dtype=a, keepdims=keepdim)
            finally:
                leave(tok)

        k.__name__ = name
        K[name] = k

    reducer("sum", xp.sum, xp.add)
    reducer("prod", xp.prod, xp.multiply, fold_product)

    def mean(out: Any, self: Any, dim: Any, keepdim: bool = False, dtype: Any = None) -> None:
        x, o = array_of(self), array_of(out)
        if direct and x.dtype == o.dtype and acc(o.dtype) == o.dtype and x.ndim:
            tok = enter()
            try:
                if not short_rows(xp.add, x, dim, o, keepdim):
                    xp.add.reduce(x, axis=dim, dtype=o.dtype, out=o, keepdims=keepdim)
                n = x.size if dim is None or len(dim) == x.ndim else count(x, dim)
                if o.ndim:
                    xp.true_divide(o, n, out=o)  # 0 / 0 = nan over an empty dim
                else:  # (NumPy's scalar division, in o's dtype: a fifth of the ufunc's)
                    o[()] = o[()] / n
            finally:
                leave(tok)
            return
        with quiet(all="ignore"):
            s = xp.sum(x, axis=axes(x, dim), dtype=acc(o.dtype), keepdims=keepdim)
            o[...] = s / count(x, dim)  # 0 / 0 = nan over an empty dim, as in PyTorch

    K["mean"] = mean

    def extreme(name: str, fn: Any, ufunc: Any) -> None:
        def k(out: Any, self: Any, dim: Any = (), keepdim: bool = False) -> None:
            no_complex(name, self)
            x, o = array_of(self), array_of(out)
            if direct and x.dtype == o.dtype:
                ax = axes(x, dim)
                if isinstance(ax, (tuple, list)) and len(ax) == 1:
                    reduce_extreme(xp, ufunc, x, ax[0], o, keepdim)
                else:
                    ufunc.reduce(x, axis=ax, out=o, keepdims=keepdim)
            else:
                o[...] = fn(x, axis=axes(x, dim), keepdims=keepdim)

        k.__name__ = name
        K[name] = k

    extreme("amax", xp.amax, xp.maximum)
    extreme("amin", xp.amin, xp.minimum)

    def extreme_all(name: str, reducer: str, ufunc: Any) -> None:
        def k(out: Any, self: Any) -> None:
            x = array_of(self)
            if direct and x.dtype.kind in "biuf":
                o = array_of(out)
                if o.dtype == x.dtype:
                    # (the reduce over every axis straight into out, without amax's steps)
                    ufunc.reduce(x, axis=None, out=o)
                    return
            K[reducer](out, self, tuple(range(x.ndim)), False)

        k.__name__ = name
        K[name] = k

    extreme_all("max_all", "amax", xp.maximum)
    extreme_all("min_all", "amin", xp.minimum)

    # (input shape, dim, index ndim) -> the flat offset of the first element of every row
    # along dim, shaped to broadcast with the index, and the dim's stride in elements
    # (``take_rows``; NumPy only: a CuPy array belongs to a device)
    row_starts: dict[tuple[Any, ...], tuple[Any, int]] = {}

    def row_offsets(x: Any, dim: int, ndim: int) -> tuple[Any, int]:
        """``row_starts``' entry for ``x`` (non-empty, C-contiguous) along ``dim`` and an
        index of ``ndim`` dims (``dim`` of size 1, or none), kept where NumPy is the array
        module."""
        n, step = x.shape[dim], math.prod(x.shape[dim + 1 :])
        starts = xp.arange(0, x.size, n * step)
        if step > 1:
            starts = xp.add(starts[:, None], xp.arange(step)[None, :])
        shape = list(x.shape)
        if ndim == x.ndim:
            shape[dim] = 1
        else:
            del shape[dim]
        hit = (starts.reshape(shape), step)
        if direct:
            if len(row_starts) >= 64:
                row_starts.clear()
            row_starts[x.shape, dim, ndim] = hit
        return hit

    def take_rows(x: Any, i: Any, dim: int, out: Any = None) -> Any:
        """``take_along(xp, x, i, dim)`` for a non-empty C-contiguous ``x`` and non-negative
        indices ``i`` along ``dim`` (an ``argmax``'s, keepdims or not; an ``argsort``'s),
        into ``out`` where given: one ``take`` of flat offsets, without ``take_along``'s
        index arrays of every other dim (at (8, 16), 0.9 us against 2.5;
        ``take_along_axis``, 4)."""
        hit = row_starts.get((x.shape, dim, i.ndim))
        if hit is None:
            hit = row_offsets(x, dim, i.ndim)
        starts, step = hit
        flat = xp.add(i, starts) if step == 1 else xp.add(xp.multiply(i, step), starts)
        return x.reshape(-1).take(flat, out=out)

    def flat_rows(x: Any) -> bool:
        """Whether ``take_rows`` takes ``x``."""
        return x.size > 0 and x.flags.c_contiguous

    def value_selecting_reduction_backward(
        out: Any, grad: Any, dim: int, indices: Any, sizes: Any, keepdim: bool
    ) -> None:
        o, g, i = array_of(out), array_of(grad), array_of(indices)
        if o.ndim == 0:
            o[...] = g
            return
        if direct and o.flags.c_contiguous:
            # (NumPy: one element per reduced row, written at its flat offset, as
            # ``take_rows`` reads it)
            o.fill(0)
            if o.size:
                hit = row_starts.get((o.shape, dim, i.ndim))
                if hit is None:
                    hit = row_offsets(o, dim, i.ndim)
                starts, step = hit
                flat = xp.add(i, starts) if step == 1 else xp.add(xp.multiply(i, step), starts)
                o.reshape(-1)[flat] = g
            return
        # (any array module: grad where the position along dim is the index, one where)
        if not keepdim:
            i, g = xp.expand_dims(i, dim), xp.expand_dims(g, dim)
        shape = [1] * o.ndim
        shape[dim] = o.shape[dim]
        at = xp.reshape(xp.arange(o.shape[dim]), tuple(shape))
        o[...] = xp.where(at == i, g, xp.zeros((), dtype=o.dtype))

    K["value_selecting_reduction_backward"] = value_selecting_reduction_backward

    def with_index(name: str, argfn: Any) -> None:
        method = argfn.__name__  # (the array's own ``argmax``: no Python wrapper around it)

        def k(out: Any, self: Any, dim: Any, keepdim: bool = False) -> None:
            no_complex(name.split("_")[0], self)
            values, indices = out
            x = array_of(self)
            if x.ndim == 0:
                array_of(values)[...] = x
                array_of(indices)[...] = 0
                return
            d = dim[0]
            if direct and flat_rows(x):
                # Straight into the results: the first place the extreme is reached (the
                # first NaN), then the element there, gathered from the C-contiguous input
                # (a reduce of the values may give the other of two equal zeros; and NumPy
                # reduces short last-dim rows one by one: at (8, 16) float32 the reduce
                # costs 1.7 us, the gather 0.9; at (256, 1024) 45 us against 1.3).
                v, i = array_of(values), array_of(indices)
                if v.dtype == x.dtype and i.dtype == xp.intp:
                    getattr(x, method)(axis=d, out=i, keepdims=keepdim)
                    take_rows(x, i, d, v)
                    return
            x, _ = compact(x, dim)
            # NumPy's argmax/argmin pick the first NaN, and the first of equal extremes: the
            # values are the elements there.
            idx = argfn(x, axis=d, keepdims=True)
            vals = take_along(xp, x, idx, d)
            if not keepdim:
                idx, vals = idx.squeeze(d), vals.squeeze(d)
            array_of(values)[...] = vals
            array_of(indices)[...] = idx

        k.__name__ = name
        K[name] = k

    with_index("max_dim", xp.argmax)
    with_index("min_dim", xp.argmin)

    def arg(name: str, fn: Any) -> None:
        def k(out: Any, self: Any, dim: Any = None, keepdim: bool = False) -> None:
            if self._dtype.is_complex or self._dtype.name == "bool":
                raise RuntimeError(f"\"{name}_cpu\" not implemented for '{_torch(self)}'")
            x = array_of(self)
            if direct and dim is not None and x.ndim and 0 not in x.strides:
                o = array_of(out)
                if o.dtype == xp.intp:
                    # (the array's own method, straight into out: ``np.argmax``'s Python
                    # wrapper costs more than a small call's search)
                    getattr(x, name)(axis=dim[0], out=o, keepdims=keepdim)
                    return
            c, _ = compact(x, None)
            if dim is None:
                # The first occurrence of the extreme lies at index 0 of every broadcast dim.
                r = fn(c.reshape(-1))
                if c.shape != x.shape:
                    r = xp.ravel_multi_index(xp.unravel_index(r, c.shape), x.shape)
            elif x.ndim == 0 or c.shape[dim[0]] != x.shape[dim[0]]:
                r = 0  # (along a broadcast dim every element is the first)
            else:
                r = fn(c, axis=dim[0], keepdims=keepdim)
            array_of(out)[...] = r

        k.__name__ = name
        K[name] = k

    arg("argmax", xp.argmax)
    arg("argmin", xp.argmin)

    # ------------------------------------------------------------ moments and norms
    def moment(name: str, root: bool) -> None:
        def k(out: Any, self: Any, dim: Any, correction: Any = 1, keepdim: bool = False) -> None:
            x, o = array_of(self), array_of(out)
            ax, n = axes(x, dim), count(x, dim)
            if (
                direct
                and x.ndim
                and x.dtype == o.dtype
                and x.dtype.kind == "f"
                and acc(x.dtype) == x.dtype
                and 0 not in x.strides
            ):
                # NumPy, a real float dtype that accumulates in itself, nothing broadcast:
                # the steps below as ufunc calls into one temporary and ``out`` (``np.sum``'s
                # Python wrapper and ``errstate`` cost a third of a small call), same bits.
                tok = enter()
                try:
                    m = xp.add.reduce(x, axis=ax, keepdims=True)
                    xp.true_divide(m, n, out=m)
                    dev = xp.subtract(x, m)
                    xp.multiply(dev, dev, out=dev)
                    xp.add.reduce(dev, axis=ax, keepdims=keepdim, out=o)
                    # max(0, n - correction): a non-positive count gives inf or nan.
                    xp.true_divide(o, max(0, n - correction), out=o)
                    if root:
                        xp.sqrt(o, out=o)
                finally:
                    leave(tok)
                return
            x, w = compact(x, ax)
            with quiet(all="ignore"):
                x = x.astype(acc(x.dtype), copy=False)
                m = xp.sum(x, axis=ax, keepdims=True) / (n // w if w > 1 else n)
                dev = x - m
                cplx = x.dtype.kind == "c"
                sq = dev.real * dev.real + dev.imag * dev.imag if cplx else dev * dev
                # max(0, n - correction): a non-positive count gives inf or nan, as in PyTorch.
                r = xp.sum(sq, axis=ax, keepdims=keepdim) * w / max(0, n - correction)
                o[...] = xp.sqrt(r) if root else r

        k.__name__ = name
        K[name] = k

    moment("var", False)
    moment("std", True)

    def vector_norm(
        out: Any, self: Any, ord: Any = 2, dim: Any = None, keepdim: bool = False, dtype: Any = None
    ) -> None:
        x, o = array_of(self), array_of(out)
        ax = axes(x, dim)
        n = count(x, dim)
        x, w = compact(x, ax)
        if ord == 2 and direct and x.dtype.kind == "f" and x.dtype == acc(o.dtype):
            # A real 2-norm is sqrt(x . x): BLAS's dot reads x once, where abs, square and
            # sum make two temporaries (its blocked sums are as accurate as the pairwise sum);
            # over some of the dims, the square without abs.
            with quiet(all="ignore"):
                if ax is None or len(ax) == x.ndim:
                    f = x.ravel()
                    o[...] = xp.sqrt(xp.dot(f, f) * w)
                else:
                    r = xp.multiply(x, x)
                    o[...] = xp.sqrt(xp.add.reduce(r, axis=ax, keepdims=keepdim) * w)
            return
        with quiet(all="ignore"):
            a = xp.abs(x.astype(acc(o.dtype), copy=False) if x.dtype.kind != "c" else x)
            if ord in (math.inf, -math.inf):
                if n == 0:
                    raise RuntimeError(
                        "linalg.vector_norm cannot compute the inf norm on an empty tensor because "
                        "the operation does not have an identity"
                    )
                r = (xp.amax if ord > 0 else xp.amin)(a, axis=ax, keepdims=keepdim)
            elif ord == 0:
                r = xp.sum(a != 0, axis=ax, keepdims=keepdim, dtype=a.dtype) * w
            elif ord == 1:
                r = xp.sum(a, axis=ax, keepdims=keepdim) * w
            elif ord == 2:
                r = xp.sqrt(xp.sum(a * a, axis=ax, keepdims=keepdim) * w)
            else:
                r = (xp.sum(a**ord, axis=ax, keepdims=keepdim) * w) ** (1.0 / ord)
            o[...] = r

    K["vector_norm"] = vector_norm

    def logsumexp(out: Any, self: Any, dim: Any, keepdim: bool = False) -> None:
        x, o = array_of(self), array_of(out)
        if x.size == 0:
            o[...] = -math.inf
            return
        ax = axes(x, dim)
        x, w = compact(x, ax)
        with quiet(all="ignore"):
            x = x.astype(acc(o.dtype), copy=False)
            m = xp.amax(x.real if x.dtype.kind == "c" else x, axis=ax, keepdims=True)
            # Rows of -inf (or +inf) shift by 0 so that they give -inf (+inf), not nan.
            m = xp.where(xp.isinf(m), 0, m)
            r = xp.log(xp.sum(xp.exp(x - m), axis=ax, keepdims=True) * w) + m
            o[...] = r if keepdim or ax is None else r.squeeze(ax)

    K["logsumexp"] = logsumexp

    def truth(name: str, fn: Any, ufunc: Any) -> None:
        def k(out: Any, self: Any, dim: Any = None, keepdim: bool = False) -> None:
            x, o = array_of(self), array_of(out)
            if direct:
                # (what ``np.all``/``np.any`` run, straight into the bool ``out``: their
                # Python wrappers cost as much as a small call's reduction)
                ufunc.reduce(x, axis=axes(x, dim), out=o, keepdims=keepdim)
                return
            o[...] = fn(x, axis=axes(x, dim), keepdims=keepdim)

        k.__name__ = name
        K[name] = k

    truth("all", xp.all, xp.logical_and)
    truth("any", xp.any, xp.logical_or)

    # ------------------------------------------------------------ scans and softmax
    def scan(name: str, fn: Any, ufunc: Any) -> None:
        def k(out: Any, self: Any, dim: int, dtype: Any = None) -> None:
            x, o = array_of(self), array_of(out)
            if x.ndim == 0:
                o[...] = x
                return
            a = acc(o.dtype)
            if direct and a == o.dtype:  # (into out: no result to allocate and copy)
                tok = enter()
                try:
                    d = dim % x.ndim
                    n = x.shape[d]
                    if (
                        d < x.ndim - 1
                        and n > 1
                        and x.size >= _SCAN_SLICE * n
                        and x.dtype == o.dtype
                        and not xp.may_share_memory(o, x)
                    ):
                        # Along a leading axis, one ufunc call per slice: the same additions
                        # in the same order as accumulate, which does not vectorise across
                        # the slice ((1000, 1000) float32 cumsum(0): 3.3 -> 1.2 ms).
                        lead = (slice(None),) * d
                        o[lead + (0,)] = x[lead + (0,)]
                        for j in range(1, n):
                            ufunc(o[lead + (j - 1,)], x[lead + (j,)], out=o[lead + (j,)])
                        return
                    ufunc.accumulate(x, axis=dim, dtype=a, out=o)
                finally:
                    leave(tok)
                return
            with quiet(all="ignore"):
                o[...] = fn(x, axis=dim, dtype=a)

        k.__name__ = name
        K[name] = k

    scan("cumsum", xp.cumsum, xp.add)
    scan("cumprod", xp.cumprod, xp.multiply)

    def safe_rows(m: Any, s: Any = None) -> Any:
        """``_safe_softmax``'s rows of -inf only, on the (keepdim) row arrays alone: their
        maximum ``m`` as 0 (so that ``exp(x - m)`` is 0 there, not NaN), or where ``s`` is
        given, their sum of exponentials (0) as 1 (so that the quotient is 0): the sum at
        least 1, which changes no other row (its maximum's term is ``exp(0)``)."""
        if s is None:
            return xp.where(m == -math.inf, xp.zeros((), m.dtype), m)
        return xp.maximum(s, s.dtype.type(1))

    def softmax_of(x: Any, dim: int, dtype: Any, log: bool, safe: bool = False) -> Any:
        x = x.astype(acc(dtype), copy=False)
        if x.ndim == 0:
            x = x.reshape(1)
        # 16-bit floats compute in float32, and PyTorch's kernels round some steps to the
        # 16-bit type: over the last dim, log_softmax's sum of exponentials and its log;
        # over another dim, softmax's exponentials (stored in the result, then divided).
        narrow = xp.dtype(dtype).itemsize == 2
        last = dim % x.ndim == x.ndim - 1
        m = xp.amax(x.real if x.dtype.kind == "c" else x, axis=dim, keepdims=True)
        if safe:
            m = safe_rows(m)
        z = x - m
        if log:
            s = xp.sum(xp.exp(z), axis=dim, keepdims=True)
            if narrow and last:
                s = s.astype(dtype).astype(x.dtype)
                return z - xp.log(s).astype(dtype).astype(x.dtype)
            return z - xp.log(s)
        e = xp.exp(z)
        s = xp.sum(e, axis=dim, keepdims=True)
        if narrow and not last:
            e = e.astype(dtype).astype(x.dtype)
        return e / (safe_rows(m, s) if safe else s)

    def row_sums(a: Any, dim: int, b: Any = None) -> Any:
        """The sums of ``a`` (times ``b``, of ``a``'s shape, where given) along ``dim``,
        keeping it. Short last-axis rows (up to ``_EINSUM_ROW`` elements, C-contiguous) are
        summed by ``einsum``: NumPy's reduce sums a short row at a time, 3 times slower
        (rows of 64: (16384, 64) float32, 496 -> 157 us), and the product needs no pass
        of its own. Longer rows keep the reduce's pairwise sums (more accurate there), and
        small arrays (``_EINSUM_MIN``) the reduce, which costs less there."""
        if (
            a.size > _EINSUM_MIN
            and dim == a.ndim - 1
            and a.shape[-1] <= _EINSUM_ROW
            and a.flags.c_contiguous
        ):
            if b is None:
                return einsum("...j->...", a)[..., None]
            if b.flags.c_contiguous:
                return einsum("...j,...j->...", a, b)[..., None]
        return xp.add.reduce(a if b is None else a * b, axis=dim, keepdims=True)

    def by_rows(fn: Callable[..., None], dim: int, o: Any, *ins: Any, extra: Any = ()) -> None:
        """``fn(o, *ins, dim, *extra)``; over blocks of rows where ``dim`` is the last axis of
        C-contiguous arrays of one shape larger than the caches, so that the passes after
        a block's first find it in cache (a row's results are its own: the same bits;
        softmax of (16384, 256) float32 14.2 -> 12.0 ms, of (2048, 5000) 24.5 -> 18.8)."""
        n = o.shape[-1] if o.ndim else 0
        if (
            o.size <= _LARGE_ROWS
            or dim % o.ndim != o.ndim - 1
            or any(a.shape != o.shape or not a.flags.c_contiguous for a in (o, *ins))
        ):
            fn(o, *ins, dim, *extra)
            return
        o2, ins2 = o.reshape(-1, n), [a.reshape(-1, n) for a in ins]
        step = max(1, _ROW_BLOCK // n)
        for i in range(0, o2.shape[0], step):
            fn(o2[i : i + step], *(a[i : i + step] for a in ins2), 1, *extra)

    def softmax_into(o: Any, x: Any, dim: int, log: bool, safe: bool = False) -> None:
        """``softmax_of`` computed in ``o`` (NumPy, a real floating ``x`` of ``o``'s dtype,
        which it accumulates in): the same operations, without the temporaries."""
        by_rows(softmax_rows, dim, o, x, extra=(log, safe))

    def softmax_rows(o: Any, x: Any, dim: int, log: bool, safe: bool) -> None:
        tok = enter()
        try:
            if x.size <= _EINSUM_MIN:  # (the reduce making its result: a small array's
                # maximum over an empty one costs a fifth more, (8, 16) float32 2.3 us)
                m = xp.maximum.reduce(x, axis=dim, keepdims=True)
            else:
                dim %= x.ndim
                m = xp.empty(x.shape[:dim] + (1,) + x.shape[dim + 1 :], x.dtype)
                reduce_extreme(xp, xp.maximum, x, dim, m, True)
            xp.subtract(x, safe_rows(m) if safe else m, out=o)
            if log:
                s = row_sums(xp.exp(o), dim)
                xp.subtract(o, xp.log(s, out=s), out=o)
            else:
                xp.exp(o, out=o)
                s = row_sums(o, dim)
                xp.true_divide(o, safe_rows(m, s) if safe else s, out=o)
        finally:
            leave(tok)

    # (the dtypes that NumPy accumulates in themselves: a softmax computes in its result)
    in_place = frozenset(xp.dtype(d) for d in (xp.float32, xp.float64))

    def softmax_kernel(log: bool, safe: bool = False) -> Callable[..., None]:
        def k(out: Any, self: Any, dim: int, dtype: Any = None) -> None:
            o = array_of(out)
            if o.size:
                x = array_of(self)
                if direct and o.ndim and x.dtype == o.dtype and o.dtype in in_place:
                    if o.size <= _LARGE_ROWS:  # (``by_rows``' own choice, a frame less)
                        softmax_rows(o, x, dim, log, safe)
                    else:
                        softmax_into(o, x, dim, log, safe)
                    return
                with quiet(all="ignore"):
                    o[...] = softmax_of(x, dim, o.dtype, log, safe).reshape(o.shape)

        k.__name__ = "_safe_softmax" if safe else "log_softmax" if log else "softmax"
        return k

    K["softmax"], K["log_softmax"] = softmax_kernel(False), softmax_kernel(True)
    K["_safe_softmax"] = softmax_kernel(False, safe=True)

    def softmax_backward(
        name: str,
        grad: Callable[[Any, Any, int, Any], Any],
        into: Callable[[Any, Any, Any, int], None],
    ) -> None:
        """A kernel ``out = grad(grad_output, output, dim, wide dtype)`` (0-d as 1-element),
        or ``into(out, grad_output, output, dim)``, the same operations written in ``out``,
        where NumPy computes in the dtype of all three and ``out`` overlaps neither."""

        def k(out: Any, g: Any, y: Any, dim: int) -> None:
            o = array_of(out)
            if o.size:
                gg, yy = array_of(g), array_of(y)
                if (
                    direct
                    and o.ndim
                    and gg.dtype == yy.dtype == o.dtype == acc(o.dtype)
                    and o.dtype.kind == "f"
                    and gg.shape == yy.shape == o.shape
                    and not (xp.may_share_memory(o, gg) or xp.may_share_memory(o, yy))
                ):
                    tok = enter()
                    try:
                        by_rows(into, dim, o, gg, yy)
                    finally:
                        leave(tok)
                    return
                if o.ndim == 0:
                    gg, yy = gg.reshape(1), yy.reshape(1)
                with quiet(all="ignore"):
                    o[...] = grad(gg, yy, dim, acc(o.dtype)).reshape(o.shape)

        k.__name__ = name
        K[name] = k

    def softmax_grad(g: Any, y: Any, dim: int, wide: Any) -> Any:  # y * (g - sum(g * y))
        t = (g * y).astype(wide, copy=False)
        xp.subtract(g, xp.sum(t, axis=dim, keepdims=True), out=t)
        return xp.multiply(y, t, out=t)

    def softmax_grad_into(o: Any, g: Any, y: Any, dim: int) -> None:
        xp.subtract(g, row_sums(g, dim, y), out=o)
        xp.multiply(y, o, out=o)

    def log_softmax_grad(g: Any, y: Any, dim: int, wide: Any) -> Any:  # g - exp(y) * sum(g)
        e = xp.exp(y.astype(wide, copy=False))
        xp.multiply(e, xp.sum(g, axis=dim, keepdims=True, dtype=wide), out=e)
        return xp.subtract(g, e, out=e)

    def log_softmax_grad_into(o: Any, g: Any, y: Any, dim: int) -> None:
        xp.exp(y, out=o)
        xp.multiply(o, row_sums(g, dim), out=o)
        xp.subtract(g, o, out=o)

    softmax_backward("_softmax_backward_data", softmax_grad, softmax_grad_into)
    softmax_backward("_log_softmax_backward_data", log_softmax_grad, log_softmax_grad_into)

    def evenly_distribute_backward(
        out: Any, grad: Any, self: Any, value: Any, dim: Any, keepdim: bool, nan_ties: bool
    ) -> None:
        # grad / count * mask, in PyTorch's order (a NaN or infinite grad stays one where it
        # is masked out; a NaN value has no ties without nan_ties: count 0, NaN everywhere)
        o = array_of(out)
        if not o.size:
            return
        g, x, v = array_of(grad), array_of(self), array_of(value)
        if not keepdim and x.ndim:
            g, v = xp.expand_dims(g, dim), xp.expand_dims(v, dim)
        mask = x == v
        if nan_ties and x.dtype.kind in "fc":
            mask |= xp.isnan(x) & xp.isnan(v)
        # (the count in the accumulation dtype: float16 holds no count above 65504; NumPy's
        # ``add.reduce`` (what ``sum`` calls) or the array's method, and the error-state
        # tokens, not ``xp.sum`` and ``quiet``: each backward of amax/amin/max runs this,
        # and those wrappers were half of it)
        ax, a = axes(x, dim), acc(o.dtype)
        if direct:
            n = xp.add.reduce(mask, axis=ax, keepdims=True, dtype=a)
        else:
            n = mask.sum(axis=ax, keepdims=True, dtype=a)
        tok = enter()
        try:
            xp.multiply(g / n, mask, out=o)
        finally:
            leave(tok)

    K["evenly_distribute_backward"] = evenly_distribute_backward

    # ------------------------------------------------------------ sorting
    def unstable_order(x: Any, dim: int, descending: bool) -> tuple[Any, Any] | None:
        """``(indices, values)`` of the stable sort of ``x`` (NumPy, float32 or float64) along
        ``dim`` from NumPy's unstable (SIMD) sorts, five times faster than its stable one, or
        None where it would not pay. A row whose values all differ (at most one NaN, and
        not -0.0 next to 0.0, which compare equal) sorts one way only, so any sort gives the
        stable order there; the rows with ties are sorted again by the stable sort (where
        they are a few: past a quarter of the rows, all of them are). Small arrays and short
        rows keep the stable sort, which is faster there than the check and the two sorts
        (an (8, 16) array: 2 against 8 us)."""
        n = x.shape[dim]
        if not (direct and x.dtype.kind == "f" and x.dtype.itemsize >= 4 and n >= 16):
            return None
        if x.size < (1024 if n >= 64 else 4096):
            return None
        xm = move_axis(x, dim, -1)
        v = xp.sort(xm, axis=-1)
        tied = xp.equal(v[..., 1:], v[..., :-1]).any(axis=-1)
        tied |= xp.isnan(v[..., -2])
        k = int(xp.count_nonzero(tied))
        if 4 * k > tied.size:
            return None
        idx = xp.argsort(xm, axis=-1)
        if descending:
            idx, v = idx[..., ::-1], v[..., ::-1]
        if k:
            sub = xm[tied]
            if descending:
                s = (n - 1) - xp.argsort(sub[..., ::-1], axis=-1, kind="stable")[..., ::-1]
            else:
                s = xp.argsort(sub, axis=-1, kind="stable")
            idx[tied] = s
            v[tied] = take_along(xp, sub, s, -1)
        return move_axis(idx, -1, dim), move_axis(v, -1, dim)

    def sort_key(x: Any) -> Any:
        """``x`` as the array its order is taken from: a 16-bit float of NumPy kind "V"
        (ml_dtypes' bfloat16, whose sorts do not order NaN) as float32, which holds it
        exactly; any other array as it is."""
        if x.dtype.kind == "V" and x.dtype.itemsize == 2:
            return x.astype(xp.float32)
        return x

    def order(self: Any, dim: int, descending: bool, values: list[Any] | None = None) -> Any:
        """Indices that sort ``self`` along ``dim``: stable, NaN largest (PyTorch's order).
        Where ``values`` is a list, the sorted values are appended to it when they came out
        on the way (``unstable_order``)."""
        if self._dtype.is_complex:
            raise RuntimeError("sort(): input tensor must be of non-complex type")
        x = sort_key(array_of(self))
        if x.ndim == 0:
            return xp.zeros((), dtype=xp.int64)
        fast = unstable_order(x, dim, descending)
        if fast is not None and x is not array_of(self):
            fast = (fast[0], None)
            values = None
        if fast is not None:
            if values is not None:
                values.append(fast[1])
            return fast[0]
        if not descending:
            if direct:  # (the array's own method: ``np.argsort``'s wrapper costs 0.7 us)
                return x.argsort(axis=dim, kind="stable")
            return xp.argsort(x, axis=dim, kind="stable")
        if direct and x.dtype.kind == "f" and not xp.isnan(x).any():
            # Without NaN (which the negation would move to the end), the stable ascending
            # sort of -x is the stable descending sort of x: a fifth of the reversed sort's
            # time on a small array.
            return xp.negative(x).argsort(axis=dim, kind="stable")
        # A stable ascending sort of the reversed data, read backwards, is a stable
        # descending sort in which equal elements keep their original order.
        n = x.shape[dim]
        s = xp.argsort(xp.flip(x, axis=dim), axis=dim, kind="stable")
        return (n - 1) - xp.flip(s, axis=dim)

    def sort(
        out: Any, self: Any, dim: int = -1, descending: bool = False, stable: bool = False
    ) -> None:
        values, indices = out
        got: list[Any] = []
        idx = order(self, dim, descending, got)
        x = array_of(self)
        v = array_of(values)
        if not got and x.ndim and direct and v.dtype == x.dtype and flat_rows(x):
            take_rows(x, idx, dim % x.ndim, v)
        else:
            v[...] = got[0] if got else take_along(xp, x, idx, dim) if x.ndim else x
        array_of(indices)[...] = idx

    def argsort(
        out: Any, self: Any, dim: int = -1, descending: bool = False, stable: bool = False
    ) -> None:
        array_of(out)[...] = order(self, dim, descending)

    def topk(
        out: Any, self: Any, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
    ) -> None:
        values, indices = out
        x = array_of(self)
        if x.ndim == 0:
            if k:
                array_of(values)[...] = x
                array_of(indices)[...] = 0
            return
        n = x.shape[dim]
        if direct and 0 < 2 * k <= n and x.size >= _SELECT_MIN and x.dtype.kind in "iuf":
            idx = move_axis(selected(move_axis(x, dim, -1), k, largest), -1, dim)
        else:
            idx = order(self, dim, largest)[(slice(None),) * dim + (slice(0, k),)]
        v = array_of(values)
        if direct and v.dtype == x.dtype and flat_rows(x):
            take_rows(x, idx, dim % x.ndim, v)
        else:
            v[...] = take_along(xp, x, idx, dim)
        array_of(indices)[...] = idx

    def selected(x: Any, k: int, largest: bool) -> Any:
        """The first ``k`` of ``order(x, -1, largest)`` along the last dim (``0 < k < n``) in
        O(n) passes plus a sort of ``k``, not a sort of ``n`` (NumPy): a partition finds the
        k-th value; everything before it in the order is taken, and of the values equal to it
        the first ones by index (the stable order's ties). NaN is the largest value, as in
        the sort."""
        n = x.shape[-1]
        rows = math.prod(x.shape[:-1])
        at = n - k if largest else k - 1
        part = xp.partition(x, at, axis=-1)
        kth = part[..., at : at + 1]
        floating = x.dtype.kind == "f"
        # ``m``: the top k and the k-th value's ties. A NaN is above every number; past a
        # NaN k-th value (smallest) every number comes first.
        if largest:
            m = xp.greater_equal(x, kth)
            if floating and xp.isnan(part[..., at:]).any():
                m |= xp.isnan(x)
        else:
            m = xp.less_equal(x, kth)
            if floating:
                m |= xp.isnan(kth)
        flat = xp.flatnonzero(m)
        if flat.size != rows * k:  # more ties than places: keep the first by index
            ties = xp.equal(x, kth)
            if floating:
                ties |= xp.isnan(x) & xp.isnan(kth)
            m &= ~ties
            need = k - m.sum(axis=-1, keepdims=True)
            ties &= xp.cumsum(ties, axis=-1) <= need
            m |= ties
            flat = xp.flatnonzero(m)
        # Exactly k per row, rows in order and positions ascending within a row.
        cand = flat.reshape(x.shape[:-1] + (k,))
        cand -= (xp.arange(rows, dtype=cand.dtype) * n).reshape(cand.shape[:-1] + (1,))
        v = take_along(xp, x, cand, -1)
        if largest:  # the stable descending sort of ``order``
            s = (k - 1) - xp.argsort(v[..., ::-1], axis=-1, kind="stable")[..., ::-1]
        else:
            s = xp.argsort(v, axis=-1, kind="stable")
        return take_along(xp, cand, s, -1)

    K["sort"], K["argsort"], K["topk"] = sort, argsort, topk

    # ------------------------------------------------------------ order statistics
    def picked(out: Any, x: Any, idx: Any, pos: Any, d: int, keepdim: bool) -> None:
        """The order statistic at sorted position ``pos`` along ``d`` (an int, or an array
        of ``x``'s shape with ``d`` of size 1): ``out``'s indices are ``idx``'s (a stable
        ascending order of ``x`` along ``d``) there, its values ``x``'s elements at them."""
        values, indices = array_of(out[0]), array_of(out[1])
        if isinstance(pos, int):
            i = idx[(slice(None),) * d + (slice(pos, pos + 1),)]
        else:
            i = take_along(xp, idx, pos, d)
        if not keepdim:
            i = i.squeeze(d)
        indices[...] = i
        if direct and values.dtype == x.dtype and flat_rows(x):
            take_rows(x, indices, d, values)
        else:
            values[...] = take_along(xp, x, i if keepdim else xp.expand_dims(i, d), d).reshape(
                values.shape
            )

    def scalar_pick(out: Any, x: Any) -> bool:
        """A 0-d ``x``: its one element at index 0 (True: done)."""
        if x.ndim:
            return False
        array_of(out[0])[...] = x
        array_of(out[1])[...] = 0
        return True

    def median_like(name: str, ignore_nan: bool) -> None:
        def k(out: Any, self: Any, dim: Any, keepdim: bool = False) -> None:
            x = array_of(self)
            if scalar_pick(out, x):
                return
            d = dim[0]
            n = x.shape[d]
            idx = order(self, d, False)  # (NaN sorts last)
            pos: Any = (n - 1) // 2
            if x.dtype.kind in "fcV" and not (direct and not xp.isnan(x).any()):
                # where the numbers end in the order: the median of the numbers, or the
                # first NaN where there is one (``median``)
                valid = n - xp.isnan(x).sum(axis=d, keepdims=True)
                if ignore_nan:
                    pos = xp.maximum(valid - 1, 0) // 2
                else:
                    pos = xp.where(valid < n, valid, pos)
            picked(out, x, idx, pos, d, keepdim)

        k.__name__ = name
        K[name] = k

    median_like("median_dim", False)
    median_like("nanmedian_dim", True)

    def select_line(out: Any, x: Any, k: int) -> bool:
        """``kthvalue`` of a long 1-d real ``x`` by NumPy's partition (a selection, not a
        sort: (65536,) float32 5.3 -> 0.09 ms): the stable order's ``k``-th element, whose
        value ``v`` the partition gives and whose index is that of the equal element (of the
        NaN, for a NaN ``v``) at rank ``k - (elements below v)`` in index order, as the
        stable sort places them. False where the sort is taken."""
        if not (direct and x.ndim == 1 and x.size >= _SELECT_MIN and x.dtype.kind in "iuf"):
            return False
        v = xp.partition(x, k - 1)[k - 1]
        if x.dtype.kind == "f" and xp.isnan(v):  # (NaN sorts last)
            same = xp.isnan(x)
            below = x.size - int(xp.count_nonzero(same))
        else:
            same = x == v
            below = int(xp.count_nonzero(x < v))
        i = int(xp.flatnonzero(same)[k - 1 - below])
        array_of(out[1])[...] = i
        array_of(out[0])[...] = x[i]
        return True

    def kthvalue_dim(out: Any, self: Any, k: int, dim: Any, keepdim: bool = False) -> None:
        x = array_of(self)
        if not (scalar_pick(out, x) or select_line(out, x, k)):
            picked(out, x, order(self, dim[0], False), k - 1, dim[0], keepdim)

    def mode_dim(out: Any, self: Any, dim: Any, keepdim: bool = False) -> None:
        x = array_of(self)
        if scalar_pick(out, x):
            return
        d = dim[0]
        xm = move_axis(x, d, -1)
        n = xm.shape[-1]
        s = xp.sort(sort_key(xm), axis=-1)
        # Runs of equal values in the sorted rows (each NaN a run of its own): at each
        # position the length of its run so far; the first position of the longest
        # reaches the end of the first longest run, the smallest of the most frequent values.
        at = xp.arange(n)
        starts = xp.concatenate(
            [xp.ones(s.shape[:-1] + (1,), dtype=bool), s[..., 1:] != s[..., :-1]], axis=-1
        )
        first = accumulate(xp, xp.maximum, xp.where(starts, at, 0), -1)
        best = xp.argmax(at - first, axis=-1)[..., None]
        value = take_along(xp, s, best, -1)
        # its last occurrence (a NaN's: the last NaN's)
        key = sort_key(xm)
        hit = key == value
        if key.dtype.kind in "fc":
            hit |= xp.isnan(key) & xp.isnan(value)
        index = (n - 1) - xp.argmax(hit[..., ::-1], axis=-1)[..., None]
        values = take_along(xp, xm, index, -1)
        if keepdim:
            index, values = move_axis(index, -1, d), move_axis(values, -1, d)
        else:
            index, values = index[..., 0], values[..., 0]
        array_of(out[0])[...] = values
        array_of(out[1])[...] = index

    K["kthvalue_dim"], K["mode_dim"] = kthvalue_dim, mode_dim
    return K


def _torch(t: Any) -> str:
    return dtype_name(t._dtype)
