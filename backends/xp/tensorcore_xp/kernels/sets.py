"""``unique``, written once against an array module ``xp``: the composite's steps (a stable
sort, the starts of the runs of equal elements or rows, a scatter of the run numbers) as a
handful of array calls, where the composite's dozen operator calls cost thirty times
PyTorch's on a few elements.

The results are the composite's (``tests/test_small_call_paths.py`` compares them): sorted,
each NaN distinct, ``-0.0`` and ``0.0`` one value represented by the first in the input,
rows compared lexicographically along ``dim``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from tensorcore import dtypes as dt
from tensorcore.backend import empty, from_native, wrap_dim, write

from ..helpers import array_of, move_axis

__all__ = ["build"]

#: Elements from which integers whose range is narrow enough are counted rather than sorted:
#: below, the minimum, maximum and histogram cost more than a sort of so few.
_COUNTED = 512


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """The set kernels for the array module ``xp``."""
    numpy = xp.__name__ == "numpy"

    def keys(a: Any) -> Any:
        # (ml_dtypes' bfloat16, NumPy kind "V", neither sorts NaN last nor compares as
        # floats: float32 holds each of its values)
        return a.astype(xp.float32) if a.dtype.kind == "V" and a.dtype.itemsize == 2 else a

    def new(r: Any, dtype: Any, device: Any) -> Any:
        """A tensor of ``r``, a new array of ``dtype``'s: over its memory where ``r`` is
        contiguous and the device takes native arrays (no copy of a large inverse), else
        stored through the device into one it allocates."""
        flags = getattr(r, "flags", None)
        if flags is not None and flags.c_contiguous:
            try:
                return from_native(r, device)
            except TypeError:  # (a device that does not take native arrays)
                pass
        out = empty(tuple(r.shape), dtype, device)
        write(out, r)  # (stored through the device: right for arrays that are values too)
        return out

    def runs(order: Any, starts: Any, m: int, inverse: bool, counts: bool) -> list[Any]:
        """The first position of each run (in sorted order), and where each input element
        went and each run's length, as asked."""
        first = starts.nonzero()[0]
        extra = []
        if inverse:
            inv = xp.empty(m, dtype=xp.int64)
            inv[order] = starts.cumsum(dtype=xp.int64) - 1
            extra.append(inv)
        if counts:
            ends = xp.empty(first.shape[0] + 1, dtype=xp.int64)
            ends[:-1] = first
            ends[-1] = m
            extra.append(ends[1:] - ends[:-1])
        return [first, *extra]

    def by_counting(flat: Any, inverse: bool, counts: bool) -> list[Any] | None:
        """The composite's histogram of a range of integers at most a few times their
        number (O(n + range) instead of a sort), None for a wider range."""
        lo, hi = int(flat.min()), int(flat.max())
        span = hi - lo + 1
        if span > 4 * flat.shape[0] + 1024:
            return None
        shifted = flat.astype(xp.int64, copy=False)
        if lo:
            shifted = shifted - lo
        hist = xp.bincount(shifted, minlength=span)
        present = hist > 0
        at = present.nonzero()[0]
        out = [(at + lo).astype(flat.dtype)]
        if inverse:
            out.append((present.cumsum(dtype=xp.int64) - 1)[shifted])
        if counts:
            out.append(hist.take(at).astype(xp.int64, copy=False))
        return out

    def lexicographic(rows: Any) -> Any:
        """The stable order of the rows of the 2-D ``rows``, compared column by column."""
        m, cols = rows.shape
        if numpy and cols:  # (NumPy's lexsort: its last key is the primary one)
            return xp.lexsort(rows.T[::-1])
        # (elsewhere the composite's steps: a stable sort by each column, the last first)
        order = xp.arange(m)
        for c in range(cols - 1, -1, -1):
            order = order[xp.argsort(rows[order, c], kind="stable")]
        return order

    def unique(
        self: Any,
        sorted: bool = True,
        return_inverse: bool = False,
        return_counts: bool = False,
        dim: int | None = None,
    ) -> Any:
        a = array_of(self)
        dev = self._device
        counted = None
        if dim is None and a.dtype.kind in "biu" and a.size >= _COUNTED:
            counted = by_counting(a.reshape(-1), return_inverse, return_counts)
        if counted is not None:
            values, *extra = counted
            shape = self._shape
        elif dim is None:
            flat = a.reshape(-1)
            k = keys(flat)
            m = int(k.shape[0])
            order = xp.argsort(k, kind="stable")
            ranked = k[order]
            starts = xp.empty(m, dtype=xp.bool_)
            starts[:1] = True
            xp.not_equal(ranked[1:], ranked[:-1], out=starts[1:])
            first, *extra = runs(order, starts, m, return_inverse, return_counts)
            values = flat[order[first]]
            shape = self._shape
        else:
            if not self.ndim:
                raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
            d = wrap_dim(dim, self.ndim)
            if 0 in self._shape and self._shape[d] != 0:
                raise RuntimeError(
                    "There are 0 sized dimensions, and they aren't selected, so unique cannot "
                    "be applied"
                )
            x = move_axis(a, d, 0)
            m = int(x.shape[0])
            rows = keys(x.reshape(m, math.prod(x.shape[1:])))
            order = lexicographic(rows)
            ranked = rows[order]
            starts = xp.empty(m, dtype=xp.bool_)
            starts[:1] = True
            xp.any(ranked[1:] != ranked[:-1], axis=1, out=starts[1:])
            first, *extra = runs(order, starts, m, return_inverse, return_counts)
            values = move_axis(x[order[first]], 0, d)
            shape = (m,)
        out = [new(values, self._dtype, dev)]
        if return_inverse:
            out.append(new(extra.pop(0).reshape(shape), dt.int64, dev))
        if return_counts:
            out.append(new(extra.pop(0), dt.int64, dev))
        return out[0] if len(out) == 1 else tuple(out)

    return {"unique": unique}
