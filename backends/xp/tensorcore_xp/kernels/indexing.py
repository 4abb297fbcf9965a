"""Gather, scatter and advanced indexing, written once against an array module ``xp``.

Out-of-range indices raise as in PyTorch (NumPy's negative indices are not allowed where
PyTorch forbids them). In-place variants (``scatter_``, ``index_put_``, ``masked_fill_``) are
called with ``out is self``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorcore as tc
from tensorcore import dtypes as dt
from tensorcore.backend import empty, interface, write

from ..helpers import (
    array_of,
    errstate,
    take_along,
    ufunc_at,
    wrap_unsigned,
    writes_through_views,
)

__all__ = ["build"]

#: The fewest positions a round of whole-row adds (one per repeat of an index) takes; the
#: values of the fewer indices repeated more are summed index by index (``add_rows``).
_ROUND_ROWS = 8

#: The most NumPy indices whose bounds ``in_bounds`` reads in one ``tolist`` (their extremes
#: then taken in Python): below it, that is a quarter of the two reductions' time.
_RANGE_BY_LIST = 64

#: Elements per block of ``gather_flat`` (its int64 positions: 512 KiB).
_GATHER_BLOCK = 1 << 16
#: The fewest elements for which ``masked_fill`` turns a mask that varies along one dim only
#: into an index along that dim (below, the masked copy costs less than finding it).
_LINE_FILL = 4096


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """Indexing kernels for the array module ``xp``."""
    K: dict[str, Callable[..., Any]] = {}
    quiet = errstate(xp)
    host = xp.__name__ == "numpy"

    def extremes(ix: Any) -> tuple[int, int]:
        """The least and the greatest of the integers ``ix`` (not empty), as Python ints (a
        few NumPy ones read in one ``tolist``; another library's as two reductions)."""
        if host and ix.size <= _RANGE_BY_LIST:
            v = ix.reshape(-1).tolist()
            return min(v), max(v)
        return int(ix.min()), int(ix.max())

    def in_bounds(
        ix: Any, size: int, dim: int, negative: bool = False, error: type = RuntimeError
    ) -> None:
        """Raise ``error`` for an index outside ``[0, size)`` (``[-size, size)`` where
        ``negative`` indices count from the end)."""
        if ix.size:
            lo, hi = extremes(ix)
            if lo < (-size if negative else 0) or hi >= size:
                raise error(
                    f"index {hi if hi >= size else lo} is out of bounds for dimension {dim} "
                    f"with size {size}"
                )

    def flat(self: Any, index: Any, dim: int) -> tuple[Any, Any, int]:
        """Arrays of ``self`` and ``index``; 0-d and 1-d ones (which may mix) as 1-d."""
        x, ix = array_of(self), array_of(index)
        if x.ndim <= 1 and ix.ndim <= 1:
            return x.reshape(-1), ix.reshape(-1), 0
        return x, ix, dim

    def first(shape: Any) -> tuple[slice, ...]:
        return tuple(slice(0, n) for n in shape)

    def gather(out: Any, self: Any, dim: int, index: Any) -> None:
        x, ix, d = flat(self, index, dim)
        if ix.size == 0:  # (an empty index of any shape: an empty result)
            return
        whole = True  # (the index spans self's other dims: no part of self to cut out)
        for i, n in enumerate(ix.shape):
            if i != d and n != x.shape[i]:
                if n > x.shape[i]:
                    raise RuntimeError(
                        f"Size does not match at dimension {i} expected index "
                        f"{list(ix.shape)} to be smaller than self {list(x.shape)} apart from "
                        f"dimension {d}"
                    )
                whole = False
        in_bounds(ix, x.shape[d], d)
        o = array_of(out)
        if (
            host  # (strides: an array module's arrays need not have them, dask's do not)
            and whole
            and x.ndim == ix.ndim > 1
            and all(s == 0 for i, s in enumerate(ix.strides) if i != d)
            and ix.dtype.kind in "iu"
        ):
            # An index expanded over the other dims (``x.gather(0, i[:, None].expand(-1, c))``,
            # a common spelling of ``index_select``): whole slices taken along d, not one
            # position per element ((1000, 16) by 100k rows: 4.8 -> 1.6 ms).
            line = ix[tuple(slice(None) if i == d else 0 for i in range(ix.ndim))]
            if o.flags.c_contiguous:
                xp.take(x, line, axis=d, out=o, mode="clip")  # (checked: no clipping)
            else:
                o[...] = xp.take(x, line, axis=d)
            return
        if (
            host
            and x.ndim == ix.ndim == o.ndim > 1
            and ix.size >= _GATHER_BLOCK
            and writes_through_views(x)
            and writes_through_views(o)
            and ix.dtype.kind in "iu"
        ):
            gather_flat(o, x, ix, d)
            return
        part = (
            x
            if whole
            else x[tuple(slice(None) if i == d else s for i, s in enumerate(first(ix.shape)))]
        )
        o[...] = take_along(xp, part, ix, d).reshape(o.shape)

    def gather_flat(o: Any, x: Any, ix: Any, d: int) -> None:
        """``gather`` of C-contiguous NumPy arrays (indices checked) as ``take`` of flat
        positions, a block of leading rows at a time: one index array instead of
        ``take_along_axis``'s one per dim, and positions that stay in cache (half its
        time for a (1000, 1000) gather). The same elements: a copy, exactly."""
        steps = [s // x.itemsize for s in x.strides]
        xf, last = x.reshape(-1), ix.ndim - 1
        # the offsets of the dims other than 0 and d, one broadcastable array
        base = xp.zeros((1,) * ix.ndim, dtype=xp.intp)
        for i in range(1, ix.ndim):
            if i != d:
                n = ix.shape[i]
                base = base + xp.arange(0, n * steps[i], steps[i]).reshape(
                    (1,) * i + (n,) + (1,) * (last - i)
                )
        per = ix.size // ix.shape[0]
        rows = max(1, _GATHER_BLOCK // per)
        for b in range(0, ix.shape[0], rows):
            ib = ix[b : b + rows]
            pos = xp.multiply(ib, steps[d], dtype=xp.intp)
            pos += base
            if d != 0:
                lead = xp.arange(b * steps[0], (b + ib.shape[0]) * steps[0], steps[0])
                pos += lead.reshape((-1,) + (1,) * last)
            xp.take(xf, pos, out=o[b : b + rows], mode="clip")

    def at_positions(ufunc: Any, target: Any, ix: Any, d: int, values: Any) -> None:
        """``ufunc.at`` over the positions that ``ix`` (in bounds, along ``d``) and the other
        dims' ranges name: on a contiguous target as flat positions, one index array for
        ``ufunc.at`` instead of one per dim (several times faster on NumPy)."""
        last = ix.ndim - 1
        if target.ndim == 1 == ix.ndim:
            ufunc_at(xp, ufunc, target, (ix,), values)
            return
        if writes_through_views(target) and target.ndim == ix.ndim:
            step = target.strides[d] // target.itemsize
            pos = ix * step if step != 1 else ix
            for i, n in enumerate(ix.shape):
                if i != d:
                    step = target.strides[i] // target.itemsize
                    pos = pos + xp.arange(0, n * step, step).reshape((n,) + (1,) * (last - i))
            vals = xp.broadcast_to(xp.asarray(values), pos.shape)
            ufunc_at(xp, ufunc, target.reshape(-1), (pos.reshape(-1),), vals.reshape(-1))
            return
        where = tuple(
            ix if i == d else xp.arange(n).reshape((n,) + (1,) * (last - i))
            for i, n in enumerate(ix.shape)
        )
        ufunc_at(xp, ufunc, target, where, values)

    def scattering(name: str, accumulate: bool) -> None:
        def k(out: Any, self: Any, dim: int, index: Any, src: Any, reduce: Any = None) -> None:
            o = array_of(out)
            if out is not self:
                o[...] = array_of(self)
            if accumulate and not isinstance(src, tc.Tensor):
                raise TypeError(
                    f"{name}(): argument 'src' must be Tensor, not {type(src).__name__}"
                )
            target, ix, d = flat(out, index, dim)
            if ix.size == 0:
                return
            s = array_of(src)
            if isinstance(src, tc.Tensor):
                if s.ndim <= 1 and ix.ndim == 1:
                    s = s.reshape(-1)
                if src._storage is out._storage:
                    s = s.copy()
            for i, n in enumerate(ix.shape):
                if (i != d and n > target.shape[i]) or (
                    isinstance(src, tc.Tensor) and n > s.shape[i]
                ):
                    raise RuntimeError(
                        f"Expected index {list(ix.shape)} to be smaller than self "
                        f"{list(target.shape)} apart from dimension {d}"
                        + (
                            f" and to be smaller size than src {list(s.shape)}"
                            if isinstance(src, tc.Tensor)
                            else ""
                        )
                    )
            in_bounds(ix, target.shape[d], d)
            last = ix.ndim - 1
            where = tuple(
                ix if i == d else xp.arange(n).reshape((n,) + (1,) * (last - i))
                for i, n in enumerate(ix.shape)
            )
            if isinstance(src, tc.Tensor):
                s = s[first(ix.shape)]
            if not isinstance(src, tc.Tensor) and reduce is not None:
                s = xp.asarray(s).astype(target.dtype)  # a number in self's dtype
            if accumulate or reduce == "add":
                at_positions(xp.add, target, ix, d, s)
            elif reduce == "multiply":
                at_positions(xp.multiply, target, ix, d, s)
            else:
                target[where] = s

        k.__name__ = name
        K[name] = k

    scattering("scatter", False)
    scattering("scatter_add", True)

    def scatter_reduce(
        out: Any,
        self: Any,
        dim: int,
        index: Any,
        src: Any,
        reduce: str,
        include_self: bool = True,
    ) -> None:
        o = array_of(out)
        if out is not self:
            o[...] = array_of(self)
        target, ix, d = flat(out, index, dim)
        if ix.size == 0:
            return
        s = array_of(src)
        if s.ndim <= 1 and ix.ndim == 1:
            s = s.reshape(-1)
        if src._storage is out._storage:
            s = s.copy()
        for i, n in enumerate(ix.shape):
            if (i != d and n > target.shape[i]) or n > s.shape[i]:
                raise RuntimeError(
                    f"Expected index {list(ix.shape)} to be smaller than self "
                    f"{list(target.shape)} apart from dimension {d} and to be smaller size "
                    f"than src {list(s.shape)}"
                )
        in_bounds(ix, target.shape[d], d)
        last = ix.ndim - 1
        where = tuple(
            ix if i == d else xp.arange(n).reshape((n,) + (1,) * (last - i))
            for i, n in enumerate(ix.shape)
        )
        s = s[first(ix.shape)]
        kind = target.dtype.kind
        # (from the tensor's dtype: NumPy's kind of bfloat16 is "V")
        floating = out._dtype.is_floating_point or out._dtype.is_complex
        if not include_self:
            # The positions written start from the reduction's identity.
            if reduce in ("amax", "amin") and kind == "b":
                target[where] = reduce == "amin"
            elif reduce in ("amax", "amin"):
                big = xp.inf if floating else xp.iinfo(target.dtype).max
                target[where] = -big if reduce == "amax" else big
                if kind == "u" and reduce == "amax":
                    target[where] = 0
            else:
                target[where] = 1 if reduce == "prod" else 0
        ufunc = {"sum": xp.add, "mean": xp.add, "prod": xp.multiply}.get(reduce)
        if ufunc is None:
            ufunc = xp.maximum if reduce == "amax" else xp.minimum
        with quiet(all="ignore"):
            at_positions(ufunc, target, ix, d, s)
            if reduce == "mean":
                # Each position's count, by a bincount of the flat positions (``add.at`` of
                # a number at index tuples costs about 20 times the sum itself on NumPy).
                size = 1
                flat_pos = xp.zeros((1,) * ix.ndim, dtype=xp.int64)
                for i in range(ix.ndim - 1, -1, -1):
                    flat_pos = flat_pos + where[i] * size
                    size *= target.shape[i]
                hits = xp.bincount(flat_pos.reshape(-1), minlength=size)
                count = hits.reshape(target.shape).astype(
                    target.dtype if floating else xp.int64, copy=False
                )
                if include_self:
                    count += 1
                count[count == 0] = 1
                if floating:
                    target[...] = target / count
                else:
                    target[...] = xp.floor_divide(target, count)

    K["scatter_reduce"] = scatter_reduce

    take_into = xp.__name__ == "numpy"

    def index_select(out: Any, self: Any, dim: int, index: Any) -> None:
        x, ix, o = array_of(self), array_of(index).reshape(-1), array_of(out)
        if x.ndim == 0:
            x = x.reshape(1)
        if ix.size:
            lo, hi = extremes(ix)
            if lo < 0 or hi >= x.shape[dim]:
                raise IndexError("index out of range in self")
        if (
            take_into
            and o.shape == x.shape[:dim] + (ix.size,) + x.shape[dim + 1 :]
            and writes_through_views(o)
        ):
            # Straight into out: NumPy buffers ``take(out=)`` only where it checks the
            # indices itself (mode "raise"); they are checked above. (The array's own
            # method: ``np.take``'s Python wrapper costs a third of a small call.)
            x.take(ix, axis=dim, out=o, mode="clip")
            return
        o[...] = xp.take(x, ix, axis=dim).reshape(o.shape)

    def line_key(m: Any, shape: tuple[int, ...]) -> tuple[Any, ...] | None:
        """For a mask that varies along one dim of ``shape`` only (``index_fill``'s, that of
        ``x[:, cols] = v``), the key of its true positions along that dim: a slice where they
        are evenly spaced. NumPy's masked copy of a broadcast mask goes an element at a time
        ((256, 256), every other column: 154 us; the slice's copy 9 us). None otherwise."""
        lead = len(shape) - m.ndim
        dims = [i for i, n in enumerate(m.shape) if n > 1]
        if lead < 0 or len(dims) != 1 or m.dtype.kind != "b":
            return None
        d = lead + dims[0]
        if m.shape[dims[0]] != shape[d]:
            return None
        return (slice(None),) * d + (progression(xp.flatnonzero(m.reshape(-1))),)

    def masked_fill(out: Any, self: Any, mask: Any, value: Any) -> None:
        o = array_of(out)
        if out is not self:
            o[...] = array_of(self)
        v = array_of(value)
        if isinstance(value, tc.Tensor):
            if not isinstance(v, xp.ndarray):  # a 0-d tensor from another device
                v = xp.asarray(v)
            if v.dtype.kind == "c" and o.dtype.kind != "c":
                # (a complex number converts to bool as "not zero", else to its real part)
                v = v != 0 if o.dtype.kind == "b" else v.real
        elif isinstance(value, complex) and o.dtype.kind != "c":
            v = value != 0 if o.dtype.kind == "b" else value.real
        else:
            v = wrap_unsigned(v, o.dtype)
        m = array_of(mask)
        k = line_key(m, o.shape) if host and o.size >= _LINE_FILL else None
        try:
            with quiet(all="ignore"):
                if k is None:
                    xp.copyto(o, v, casting="unsafe", where=m)
                elif isinstance(k[-1], slice):
                    xp.copyto(o[k], v, casting="unsafe")
                else:
                    one = xp.empty((), o.dtype)  # (the value converted as copyto does)
                    xp.copyto(one, v, casting="unsafe")
                    o[k] = one
        except OverflowError:
            raise RuntimeError(
                f"value cannot be converted to type {out._dtype.name} without overflow"
            ) from None

    checks_bounds = xp.__name__ == "numpy"  # (CuPy wraps out-of-range indices around)

    def key(indices: Any, shape: tuple[int, ...]) -> tuple[Any, ...]:
        """A NumPy index tuple for an array of ``shape``: None is a full slice; byte tensors
        are masks, as in PyTorch. Index tensors that cannot broadcast together, and (where
        the array module does not check them) indices out of range, raise PyTorch's
        ``IndexError``."""
        parts: list[Any] = []
        shapes: list[tuple[int, ...]] = []
        d = 0
        for t in indices:
            if t is None:
                parts.append(slice(None))
                d += 1
                continue
            a = array_of(t)
            if t._dtype is dt.uint8 or t._dtype is tc.bool:
                parts.append(a.astype(bool) if t._dtype is dt.uint8 else a)
                d += a.ndim
                continue
            parts.append(a)
            shapes.append(tuple(a.shape))
            if not checks_bounds and d < len(shape):
                in_bounds(a, shape[d], d, negative=True, error=IndexError)
            d += 1
        if len(shapes) > 1:
            try:
                tc.broadcast_shapes(*shapes)
            except RuntimeError:
                raise IndexError(
                    "shape mismatch: indexing tensors could not be broadcast together with "
                    "shapes " + ", ".join(str(list(s)) for s in shapes)
                ) from None
        return tuple(parts)

    def one_array(k: tuple[Any, ...]) -> int:
        """The dim of ``k``'s one integer index array when every other part is a full
        slice (``x[:, idx]``), else -1."""
        at = -1
        for d, p in enumerate(k):
            if isinstance(p, slice):
                if p != slice(None):
                    return -1
            elif at >= 0 or not isinstance(p, xp.ndarray) or p.dtype.kind not in "iu":
                return -1
            else:
                at = d
        return at

    def index(self: Any, indices: Any) -> Any:
        try:
            x = array_of(self)
            k = key(indices, x.shape)
            d = one_array(k)
            # (take along a dim after the first copies whole runs: NumPy's fancy index
            # there reads one element at a time; x[:, idx] of (256, 256) by 4096 indices
            # 8.9 -> 0.97 ms. The same values and the same IndexError.)
            r = xp.take(x, k[d], axis=d) if d > 0 and x.shape[d] else x[k]
        except IndexError as exc:
            raise IndexError(str(exc).replace("axis", "dimension")) from None
        out = empty(tuple(r.shape), self._dtype, self._device)
        write(out, r)  # (stored through the device: right for arrays that are values too)
        return out

    # NumPy's ``add.at`` applies one element at a time; along a dim of long rows (index_add's
    # ``self[..., index, ...] += source``) whole-row fancy-index adds are much faster
    # (an embedding's gradient, 1024 rows of 128 into 256, indices repeated up to 10
    # times: add.at 1.06 ms, 10 rounds 0.22 ms; 4096 rows into 50, 110 repeats: 1.5 ms).
    rows_at = xp.__name__ == "numpy"

    def progression(keys: Any) -> Any:
        """``keys`` (distinct, in increasing order) as a slice where they are evenly spaced
        (the rounds of a resampling's gradient: every row once), else themselves: a fancy
        index along the last dim reads and writes one element at a time on NumPy, several
        times slower than the strided view of a slice."""
        n = keys.size
        if n < 2:
            return keys
        first, step = int(keys[0]), int(keys[1] - keys[0])
        if step <= 0 or int(keys[-1]) != first + step * (n - 1):
            return keys
        if not bool((keys[1:] - keys[:-1] == step).all()):
            return keys
        return slice(first, first + step * (n - 1) + 1, step)

    def add_rows(o: Any, k: tuple[Any, ...], v: Any) -> bool:
        """``add.at(o, k, v)`` for a key of full slices and one integer index array, whose
        other dims hold at least 32 elements, in rounds of fancy-index adds: round ``r`` adds
        each position's ``r``-th value (in index order), so the sums are ``add.at``'s, bit
        for bit; once fewer than ``_ROUND_ROWS`` indices remain, each of those is summed in
        one reduction (also in index order). False (nothing done) for other keys or other
        value dtypes (``add.at`` then)."""
        while k and isinstance(k[-1], slice) and k[-1] == slice(None):
            k = k[:-1]  # (trailing full slices, as the gradient of x[i] writes (i, :))
        d = len(k) - 1
        if not 0 <= d < o.ndim or not isinstance(v, xp.ndarray):
            return False
        ix = k[d]
        if (
            not isinstance(ix, xp.ndarray)
            or ix.dtype.kind not in "iu"
            or any(not isinstance(p, slice) or p != slice(None) for p in k[:d])
            or v.dtype != o.dtype
            or o.dtype.kind not in "biufc"
            or o.size < 32 * o.shape[d]
        ):
            return False
        n, flat = o.shape[d], ix.reshape(-1)
        region = o.shape[:d] + ix.shape + o.shape[d + 1 :]
        try:
            vals = xp.broadcast_to(v, region)
        except ValueError:
            return False  # (add.at raises NumPy's error, turned into PyTorch's by the caller)
        vals = vals.reshape(o.shape[:d] + (flat.size,) + o.shape[d + 1 :])
        if flat.size == 0:
            return True
        in_bounds(flat, n, d, negative=True, error=IndexError)
        if int(flat.min()) < 0:
            flat = xp.where(flat < 0, flat + n, flat)
        order = xp.argsort(flat, kind="stable")
        ordered = flat[order]
        new = xp.empty(flat.size, dtype=bool)
        new[0] = True
        xp.not_equal(ordered[1:], ordered[:-1], out=new[1:])
        pre = (slice(None),) * d
        if new.all():
            o[pre + (flat,)] += vals
            return True
        moved = o
        if d or not vals.flags.c_contiguous:
            # The rounds add whole slices along d: rows of contiguous copies with d first
            # (a fancy index along a later dim, or the take of a transposed source, reads
            # one element at a time: index_add(1, ...) of 4096 columns into 256 of 256 rows
            # 8.0 -> 2.6 ms, index_add(0, ...) of a transposed source 50 -> 4.3 ms). The
            # same additions in the same order; the remainder's sums too, now in add.at's
            # order also where d was the last dim.
            moved = xp.moveaxis(o, d, 0)
            o = xp.ascontiguousarray(moved)
            vals = xp.ascontiguousarray(xp.moveaxis(vals, d, 0))
            d, pre = 0, ()
        starts = xp.flatnonzero(new)
        # Each element's rank among equal indices, in index order (the sort is stable).
        rank = xp.arange(flat.size) - starts[xp.cumsum(new) - 1]
        # The rounds in rank order (a stable sort of the ranks: no pass over all the
        # elements per round), while a round holds at least _ROUND_ROWS positions.
        by_rank = xp.argsort(rank, kind="stable")
        ends = xp.cumsum(xp.bincount(rank)).tolist()
        lo = 0
        for hi in ends:
            if hi - lo < _ROUND_ROWS:
                break
            sel = order[by_rank[lo:hi]]
            o[pre + (progression(flat[sel]),)] += xp.take(vals, sel, axis=d)
            lo = hi
        if lo < flat.size:
            # Fewer than _ROUND_ROWS indices are repeated more (a padding index, the
            # frequent words of a Zipf text): each one's remaining values summed on top of
            # its row in one reduction along d (in index order: add.at's sums, bit for bit,
            # where d is not the last axis), one index at a time.
            rest = xp.sort(by_rank[lo:])  # (sorted positions: grouped by index, in order)
            keys = ordered[rest]
            heads = xp.flatnonzero(xp.concatenate([[True], keys[1:] != keys[:-1]]))
            for a, b in zip(heads.tolist(), [*heads[1:].tolist(), keys.size], strict=True):
                at = pre + (int(keys[a]),)
                rows = xp.take(vals, order[rest[a:b]], axis=d)
                o[at] = xp.concatenate([xp.expand_dims(o[at], d), rows], axis=d).sum(axis=d)
        if moved is not o:
            moved[...] = o
        return True

    def index_put(out: Any, self: Any, indices: Any, values: Any, accumulate: bool = False) -> None:
        o = array_of(out)
        if out is not self:
            o[...] = array_of(self)
        v = array_of(values)
        if isinstance(values, tc.Tensor) and values._storage is out._storage:
            v = v.copy()
        k = key(indices, o.shape)
        try:
            if accumulate:
                if not (rows_at and add_rows(o, k, v)):
                    ufunc_at(xp, xp.add, o, k, v)
            else:
                o[k] = v
        except IndexError as exc:
            raise IndexError(str(exc).replace("axis", "dimension")) from None
        except (ValueError, TypeError) as exc:  # (NumPy's for a value of the wrong shape)
            try:  # (the error path only: the region's shape, for PyTorch's message)
                region = list(o[k].shape)
            except (IndexError, ValueError):
                raise RuntimeError(str(exc).replace("array", "tensor")) from None
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {list(v.shape)} cannot be broadcast "
                f"to indexing result of shape {region}"
            ) from None

    def argwhere(self: Any) -> Any:
        a = array_of(self)
        if host and a.ndim and interface(self._device).mutable_arrays:
            # Each dim's positions written into the result's columns: ``np.argwhere``'s
            # wrapper, its transposed temporary and the copy of that cost twice as much.
            # (A device whose arrays are values stores a new tensor's array with write.)
            nz = a.nonzero()
            out = empty((int(nz[0].shape[0]), a.ndim), dt.int64, self._device)
            array_of(out).T[...] = nz
            return out
        r = xp.argwhere(a)
        out = empty(tuple(r.shape), dt.int64, self._device)
        write(out, r)  # (stored through the device: right for arrays that are values too)
        return out

    def one_hot(self: Any, num_classes: int = -1) -> Any:
        # (the declared check has refused anything but int64 indices in [0, num_classes))
        a = array_of(self)
        if num_classes == -1:
            num_classes = int(a.max()) + 1
        out = empty((*self._shape, num_classes), dt.int64, self._device)
        o = array_of(out)
        if writes_through_views(o) and interface(self._device).mutable_arrays:
            # (the comparison written as int64: one pass, no temporary; a device whose
            # arrays are values stores a new tensor's array with write)
            xp.equal(a[..., None], xp.arange(num_classes), out=o)
        else:
            write(out, (a[..., None] == xp.arange(num_classes)).astype(o.dtype))
        return out

    def bincount(self: Any, weights: Any = None, minlength: int = 0) -> Any:
        # (the declared check has refused negative values, a rank other than 1 and weights
        # of another length) The composite's counts in one call: its zeros, max, cast and
        # accumulating index_put cost 30 times PyTorch's on a few values.
        a = array_of(self).astype(xp.int64, copy=False)
        if weights is None:
            r, dtype = xp.bincount(a, minlength=minlength), dt.int64
        elif weights._dtype is dt.float32:
            # (summed in float32 in index order, as PyTorch's kernel and the composite's
            # index_put: NumPy's bincount would sum in float64)
            n = max(minlength, int(a.max()) + 1) if a.size else minlength
            r, dtype = xp.zeros(n, xp.float32), dt.float32
            xp.add.at(r, a, array_of(weights))
        else:
            w = array_of(weights)
            w = w.real if w.dtype.kind == "c" else w  # (the real parts, as ``to`` casts)
            r = xp.bincount(a, w.astype(xp.float64), minlength=minlength)
            dtype = dt.float64
        out = empty((int(r.shape[0]),), dtype, self._device)
        write(out, r)
        return out

    def nonzero_numpy(self: Any) -> Any:
        # The composite's argwhere, transposed copy and unbind in one call: each dim's
        # positions stored into a tensor of their own (a third of the composite's time).
        a = array_of(self)
        at = (a if a.ndim else a.reshape(1)).nonzero()  # (a 0-d tensor counts as 1-d)
        out = []
        for p in at:
            t = empty((int(p.shape[0]),), dt.int64, self._device)
            write(t, p)  # (stored through the device: right for arrays that are values too)
            out.append(t)
        return tuple(out)

    if host or xp.__name__ == "cupy":  # (array modules whose bincount takes weights)
        K["bincount"] = bincount
        K["nonzero_numpy"] = nonzero_numpy  # (and whose nonzero has sizes)
    K.update(
        one_hot=one_hot,
        gather=gather,
        index_select=index_select,
        masked_fill=masked_fill,
        index=index,
        index_put=index_put,
        argwhere=argwhere,
    )
    return K
