"""The bag-of-embeddings kernels (PyTorch's ``_embedding_bag`` and
``_embedding_bag_dense_backward``), written once against an array module ``xp`` (NumPy or
CuPy).

Bags are consecutive runs of the indices, so each reduction is a segmented one. With NumPy a
sum walks the runs by position (``run_sums``): step ``k`` adds the ``k``-th row of every run
at least ``k + 1`` long, read straight from the weight (no array of every looked-up row), one
vectorised pass per step; ``reduceat``, which calls its inner loop once per row, costs several
times more for the short runs of a bag of embeddings. A maximum walks them the same way
(``run_max``). The weight's gradient walks the runs of the indices sorted. Elsewhere (CuPy)
a scatter (``add.at``, ``maximum.at``; CuPy's ``reduceat`` subtracts prefix sums, losing the
precision of short runs). The core has checked shapes, dtypes and arguments
(``ops/meta_nn.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..helpers import acc_dtype, array_of, quiet_tokens, ufunc_at

__all__ = ["build"]

#: Runs ``run_sums`` steps through together: fewer left (the long runs' tails), it sums the
#: rest of each with one ``reduceat``.
_MIN_RUNS = 32


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """The embedding-bag kernels for the array module ``xp``."""
    host = xp.__name__ == "numpy"  # (reading a value of an array costs no wait)
    enter, leave = quiet_tokens(xp)

    def bags(
        idx: Any, offs: Any, count: int, include_last_offset: bool, padding_idx: int
    ) -> tuple[Any, Any, Any, Any, int]:
        """Each index's bag (-1 where in none), which indices count (None: all of them, known
        on the host only), each bag's run of positions (start, length) and the end of the
        last run (host: an int, the rows past it unread; else the number of indices)."""
        n = idx.shape[0]
        starts = offs[:count].astype(xp.int64, copy=False)
        end: Any = n
        if include_last_offset and offs.shape[0]:
            end = xp.minimum(offs[count].astype(xp.int64), n)
            if host:
                end = int(end)
        pos = xp.arange(n, dtype=xp.int64)
        if count:
            bag = xp.searchsorted(starts, pos, side="right") - 1
        else:
            bag = xp.full(n, -1, dtype=xp.int64)
        stops = xp.concatenate([starts[1:], xp.reshape(xp.asarray(end, dtype=xp.int64), (1,))])
        lengths = xp.maximum(stops - starts, 0)
        inside = None
        if include_last_offset:
            inside = pos < end
        if host and count and int(starts[0]) == 0:
            pass  # (every index before ``end`` lies in a bag)
        elif count or n:
            inside = bag >= 0 if inside is None else inside & (bag >= 0)
        if inside is not None:
            bag = xp.where(inside, bag, -1)
        keep = inside
        if padding_idx >= 0:
            real = idx != padding_idx
            keep = real if keep is None else keep & real
        if keep is not None and host and bool(keep.all()):
            keep = None
        return bag, keep, starts, lengths, end if host else n

    def bag_sizes(bag: Any, keep: Any, lengths: Any, count: int) -> Any:
        """How many rows each bag reduces (padding and strays left out)."""
        if keep is None:
            return lengths
        return xp.bincount(bag[keep], minlength=count)[:count].astype(xp.int64)

    def segments(rows: Any, starts: Any, lengths: Any, count: int, ufunc: Any, fill: Any) -> Any:
        """``ufunc`` reduced over each bag's run of ``rows`` (the rows in index order, up to
        the last run's end), ``fill`` for an empty bag (NumPy only)."""
        full = bool((lengths > 0).all())
        if full:
            return ufunc.reduceat(rows, starts, axis=0)
        out = xp.full((count,) + rows.shape[1:], fill, dtype=rows.dtype)
        some = lengths > 0
        if some.any():
            out[some] = ufunc.reduceat(rows, starts[some], axis=0)
        return out

    def run_sums(src: Any, pos: Any, starts: Any, lengths: Any, scale: Any, wide: Any) -> Any:
        """For each run ``j`` (``lengths[j]`` positions from ``starts[j]``), the sum of the
        rows ``src[pos[p]]`` (times ``scale[p]`` where given) over its positions ``p``, in
        ``wide``; zeros for an empty run (NumPy only)."""
        runs = lengths.shape[0]
        total = xp.zeros((runs,) + src.shape[1:], dtype=wide)
        if not runs:
            return total
        order = xp.argsort(-lengths, kind="stable")  # longest first: each step's a prefix
        first, size = starts[order], lengths[order]
        # how many runs are longer than k, for each k (sizes descending)
        longer = xp.searchsorted(-size, -xp.arange(int(size[0]) + 1), side="left")
        k = 0
        while k < size[0] and longer[k] >= _MIN_RUNS:
            a = int(longer[k])
            p = first[:a] + k
            rows = xp.take(src, pos[p], axis=0)
            if scale is not None:
                rows = rows * scale[p][:, None]
            total[:a] += rows
            k += 1
        if k < size[0]:
            # The long runs' tails: their positions end to end, one reduceat.
            a = int(longer[k])
            rest = size[:a] - k
            heads = xp.concatenate([xp.zeros(1, dtype=rest.dtype), xp.cumsum(rest)[:-1]])
            p = xp.arange(int(rest.sum())) - xp.repeat(heads - first[:a] - k, rest)
            rows = xp.take(src, pos[p], axis=0).astype(wide, copy=False)
            if scale is not None:
                rows = rows * scale[p][:, None]
            total[:a] += xp.add.reduceat(rows, heads, axis=0)
        out = xp.empty_like(total)
        out[order] = total
        return out

    def run_max(src: Any, pos: Any, starts: Any, lengths: Any, keep: Any) -> tuple[Any, Any]:
        """For each run (as :func:`run_sums`'), the maximum of its kept rows ``src[pos[p]]``
        per column and the position ``p`` of the first row holding it (a NaN wins, its
        first), -1 where the run keeps no row (NumPy only)."""
        runs, dim = lengths.shape[0], src.shape[1]
        best = xp.zeros((runs, dim), dtype=src.dtype)
        at = xp.full((runs, dim), -1, dtype=xp.int64)
        if not runs:
            return best, at
        order = xp.argsort(-lengths, kind="stable")
        first, size = starts[order], lengths[order]
        longer = xp.searchsorted(-size, -xp.arange(int(size[0]) + 1), side="left")

        def merge(a: Any, rows: Any, p: Any, ok: Any) -> None:
            b, ab = best[a], at[a]
            # The first kept row, a greater one, or a NaN over a number replaces the best.
            upd = (ab < 0) | (rows > b) | (xp.isnan(rows) & ~xp.isnan(b))
            if ok is not None:
                upd &= ok
            best[a] = xp.where(upd, rows, b)
            at[a] = xp.where(upd, p, ab)

        k = 0
        while k < size[0] and longer[k] >= _MIN_RUNS:
            a = int(longer[k])
            p = first[:a] + k
            ok = None if keep is None else keep[p][:, None]
            merge(slice(0, a), xp.take(src, pos[p], axis=0), p[:, None], ok)
            k += 1
        for j in range(int(longer[k]) if k < size[0] else 0):
            # A long run's tail at once: argmax takes the first maximum (the first NaN).
            p = xp.arange(int(first[j]) + k, int(first[j] + size[j]))
            if keep is not None:
                p = p[keep[p]]
            if p.size:
                rows = xp.take(src, pos[p], axis=0)
                pick = xp.argmax(rows, axis=0)
                cols = xp.arange(dim)
                merge(j, rows[pick, cols], p[pick], None)
        out_best, out_at = xp.empty_like(best), xp.empty_like(at)
        out_best[order], out_at[order] = best, at
        return out_best, out_at

    def _embedding_bag(
        out: Any,
        weight: Any,
        indices: Any,
        offsets: Any,
        scale_grad_by_freq: bool,
        mode: int,
        sparse: bool,
        per_sample_weights: Any,
        include_last_offset: bool,
        padding_idx: int,
    ) -> None:
        o, o2b, size_o, maxi_o = (array_of(t) for t in out)
        w, idx, offs = array_of(weight), array_of(indices), array_of(offsets)
        count, dim = o.shape
        bag, keep, starts, lengths, end = bags(
            idx.astype(xp.int64, copy=False), offs, count, include_last_offset, padding_idx
        )
        o2b[...] = bag
        sizes = bag_sizes(bag, keep, lengths, count)
        size_o[...] = sizes
        wide = acc_dtype(xp, o.dtype)
        if not count:
            return
        if keep is not None:
            keep = keep[:end]
        if mode == 2 and host:
            best, at = run_max(w, idx, starts, lengths, keep)
            o[...] = xp.where((sizes > 0)[:, None], best, 0)
            maxi_o[...] = xp.where(at >= 0, idx[xp.maximum(at, 0)], -1) if idx.shape[0] else -1
            return
        if mode == 2:
            rows = xp.take(w, idx[:end], axis=0)  # (the indices past the last bag are never read)
            maximum(o, maxi_o, rows, idx[:end], bag[:end], keep, starts, lengths, sizes)
            return
        scale = None
        if per_sample_weights is not None:
            scale = array_of(per_sample_weights)[:end].astype(wide, copy=False)
        if keep is not None:
            scale = keep.astype(wide) if scale is None else scale * keep
        if host:
            total = run_sums(w, idx, starts, lengths, scale, wide)
        else:
            rows = xp.take(w, idx[:end], axis=0).astype(wide, copy=False)
            if scale is not None:
                rows = rows * scale[:, None]
            total = xp.zeros((count, dim), dtype=wide)
            ufunc_at(xp, xp.add, total, (xp.maximum(bag[:end], 0),), rows)
        if mode == 1:
            tok = enter()
            try:
                total = total / xp.maximum(sizes, 1).astype(wide)[:, None]
            finally:
                leave(tok)
        o[...] = total

    def maximum(
        o: Any,
        maxi_o: Any,
        rows: Any,
        idx: Any,
        bag: Any,
        keep: Any,
        starts: Any,
        lengths: Any,
        sizes: Any,
    ) -> None:
        """Each bag's maximum per column, and the index of the first row holding it (NaN
        wins, as PyTorch's)."""
        count, dim = o.shape
        if keep is not None:
            rows = xp.where(keep[:, None], rows, -xp.inf)
        safe = xp.maximum(bag, 0)
        if host:
            best = segments(rows, starts, lengths, count, xp.maximum, -xp.inf)
        else:
            work = rows if rows.dtype in (xp.float32, xp.float64) else rows.astype(xp.float64)
            best = xp.full((count, dim), -xp.inf, dtype=work.dtype)
            ufunc_at(xp, xp.maximum, best, (safe,), work)
            best = best.astype(rows.dtype)
        at_best = best[safe]
        hit = (rows == at_best) | (xp.isnan(rows) & xp.isnan(at_best))
        if keep is not None:
            hit &= keep[:, None]
        # The first hit of each bag and column: where the hits counted from the first row
        # reach one more than they were before the bag's start.
        seen = xp.cumsum(hit, axis=0, dtype=xp.int64)
        before = xp.zeros((count, dim), dtype=xp.int64)
        inner = xp.minimum(starts, rows.shape[0]) - 1
        later = inner >= 0
        before[later] = seen[inner[later]]
        first = hit & (seen == before[safe] + 1)
        r, c = xp.nonzero(first)
        maxi = xp.full((count, dim), -1, dtype=xp.int64)
        maxi[bag[r], c] = idx[r]
        filled = (sizes > 0)[:, None]
        o[...] = xp.where(filled, best, 0)
        maxi_o[...] = maxi

    def scatter_rows(num: int, idx: Any, src: Any, pos: Any, scale: Any, wide: Any) -> Any:
        """The rows ``src[pos[i]]`` (times ``scale[i]`` where given) added up by their index
        ``idx[i]`` into ``num`` rows, in ``wide``."""
        total = xp.zeros((num,) + src.shape[1:], dtype=wide)
        if not idx.shape[0]:
            return total
        if host:
            # Sorted by index, each index's rows are one run.
            order = xp.argsort(idx, kind="stable")
            key = idx[order]
            heads = xp.flatnonzero(xp.concatenate([[True], key[1:] != key[:-1]]))
            lengths = xp.diff(xp.append(heads, key.shape[0]))
            part = None if scale is None else scale[order]
            total[key[heads]] = run_sums(src, pos[order], heads, lengths, part, wide)
        else:
            rows = xp.take(src, pos, axis=0).astype(wide, copy=False)
            if scale is not None:
                rows = rows * scale[:, None]
            ufunc_at(xp, xp.add, total, (idx,), rows)
        return total

    def _embedding_bag_dense_backward(
        out: Any,
        grad: Any,
        indices: Any,
        offset2bag: Any,
        bag_size: Any,
        maximum_indices: Any,
        num_weights: int,
        scale_grad_by_freq: bool,
        mode: int,
        per_sample_weights: Any,
        padding_idx: int,
    ) -> None:
        o = array_of(out)
        wide = acc_dtype(xp, o.dtype)
        g = array_of(grad)
        idx = array_of(indices).astype(xp.int64, copy=False)
        dim = o.shape[1]
        if mode == 2:
            mi = array_of(maximum_indices)
            valid = (mi >= 0).ravel()
            cols = xp.broadcast_to(xp.arange(dim, dtype=xp.int64), mi.shape)
            flat = (mi * dim + cols).ravel()[valid]
            where = xp.flatnonzero(valid)
            total = scatter_rows(num_weights * dim, flat, g.reshape(-1), where, None, wide)
        else:
            bag = array_of(offset2bag)
            keep = bag >= 0
            if padding_idx >= 0:
                keep &= idx != padding_idx
            if host and bool(keep.all()):
                keep = None
            safe = bag if keep is None else xp.maximum(bag, 0)
            src = g
            if mode == 1:
                # Each bag's gradient over its size, once per bag before it is spread.
                tok = enter()
                try:
                    src = g / xp.maximum(array_of(bag_size), 1).astype(wide)[:, None]
                finally:
                    leave(tok)
            scale = None
            if per_sample_weights is not None and mode == 0:
                scale = array_of(per_sample_weights).astype(wide, copy=False)
            if keep is not None:
                scale = keep.astype(wide) if scale is None else scale * keep
            total = scatter_rows(num_weights, idx, src, safe, scale, wide)
        total = total.reshape(num_weights, dim)
        if scale_grad_by_freq and idx.shape[0]:
            counts = xp.bincount(idx, minlength=num_weights)[:num_weights]
            total = total / xp.maximum(counts, 1).astype(wide)[:, None]
        o[...] = total

    return {
        "_embedding_bag": _embedding_bag,
        "_embedding_bag_dense_backward": _embedding_bag_dense_backward,
    }
