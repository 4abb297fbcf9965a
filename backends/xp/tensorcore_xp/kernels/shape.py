"""Copies, casts, fills and shape-changing copies, written once against an array module ``xp``.

Casting follows PyTorch rather than NumPy's warnings: complex to real drops the imaginary part
silently, complex to bool tests both parts, and NaN or infinity to an integer gives whatever
the C cast gives.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

import tensorcore as tc
from tensorcore.backend import broadcast_shapes, dtype_name

from ..helpers import array_of, errstate, wrap_unsigned, writes_through_views

__all__ = ["build"]

#: The most elements of a matrix whose ``tril``/``triu`` masks are kept for the next call.
_KEEP_MASKS = 1 << 12


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """Copy, cast, fill and shape kernels for the array module ``xp``."""
    K: dict[str, Callable[..., Any]] = {}
    quiet = errstate(xp)

    # (source dtype, destination dtype) -> whether NumPy's safe casting rule holds: such a
    # cast cannot overflow nor warn, and needs no errstate.
    safe: dict[tuple[Any, Any], bool] = {}

    def assign(o: Any, x: Any) -> None:
        """``o[...] = x`` with broadcasting and PyTorch's unsafe, silent casting."""
        pair = (x.dtype, o.dtype)
        quiet_ok = safe.get(pair)
        if quiet_ok is None:
            # (NumPy's rule on the dtypes every array module here shares: dask has no can_cast)
            quiet_ok = safe[pair] = bool(np.can_cast(x.dtype, o.dtype, "safe"))
        if quiet_ok:
            xp.copyto(o, x, casting="unsafe")
            return
        if x.dtype.kind == "c" and o.dtype.kind != "c":
            x = (x != 0) if o.dtype.kind == "b" else x.real
        with quiet(all="ignore"):
            xp.copyto(o, x, casting="unsafe")

    host = xp.__name__ == "numpy"

    def clone(out: Any, self: Any) -> None:
        o, x = array_of(out), array_of(self)
        if (
            host
            and x.ndim > 1
            and x.strides[-1] == 0
            and x.strides[-2] != 0
            and 2 <= x.shape[-1] <= 16
            and o.size
        ):
            # A last dim broadcast from one element (``x.unsqueeze(-1).expand(..., k)``
            # copied, an upsampling by an integer factor): NumPy copies such an array an
            # element at a time; k strided writes of the source take a third of that
            # ((8, 32, 128, 64, 2) float32: 6.7 -> 2.1 ms). Not when the dim before is
            # broadcast too (a scalar expanded: one NumPy copy is a fill, and k writes of a
            # broadcast source cost k times it).
            src = x[..., 0]
            for j in range(x.shape[-1]):
                o[..., j] = src
            return
        o[...] = x

    def to_dtype(out: Any, self: Any, dtype: Any) -> None:
        assign(array_of(out), array_of(self))

    def copy_(self: Any, src: Any, non_blocking: bool = False) -> Any:
        if src is self:
            return self
        s = array_of(src)
        if not isinstance(s, xp.ndarray):  # a 0-d tensor from another device
            s = xp.asarray(s)
        if src._shape != self._shape and broadcast_shapes(self._shape, src._shape) != self._shape:
            raise RuntimeError(
                f"output with shape {list(self._shape)} doesn't match the broadcast shape "
                f"{list(broadcast_shapes(self._shape, src._shape))}"
            )
        if src._storage is self._storage:
            s = s.copy()  # overlapping memory: read everything before writing
        assign(array_of(self), s)
        return self

    def fill_(self: Any, value: Any) -> Any:
        o = array_of(self)
        if isinstance(value, tc.Tensor):
            if value.ndim:
                raise RuntimeError(
                    "fill_ only supports 0-dimension value tensor but got tensor with "
                    f"{value.ndim} dimensions."
                )
            v = array_of(value)
            assign(o, v if isinstance(v, xp.ndarray) else xp.asarray(v))
            return self
        if isinstance(value, complex) and o.dtype.kind == "b":
            value = value != 0  # (every number converts to bool: True unless zero)
        elif isinstance(value, complex) and o.dtype.kind != "c":
            if value.imag:
                raise RuntimeError(_overflow(self))
            value = value.real
        value = wrap_unsigned(value, o.dtype)
        try:
            with quiet(all="ignore"):
                o[...] = value
        except (OverflowError, ValueError):
            raise RuntimeError(_overflow(self)) from None
        return self

    def item(self: Any) -> Any:
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        v = array_of(self).reshape(()).item()
        if not isinstance(v, (bool, int, float, complex)):  # e.g. a bfloat16 scalar
            v = float(v)
        return v

    def tolist(self: Any) -> Any:
        x = array_of(self)
        if x.dtype.itemsize == 2 and x.dtype.kind == "V":  # bfloat16: exact in float32
            x = x.astype(xp.float32)
        return x.tolist()

    K.update(
        clone=clone,
        to_dtype=to_dtype,
        copy_=copy_,
        fill_=fill_,
        item=item,
        tolist=tolist,
    )

    def cat(out: Any, tensors: Any, dim: int) -> None:
        o = array_of(out)
        arrays = [array_of(t) for t in tensors]
        same = True
        for i, a in enumerate(arrays):
            if a.ndim == 0:
                raise RuntimeError(
                    f"zero-dimensional tensor (at position {i}) cannot be concatenated"
                )
            if a.dtype != o.dtype:
                same = False
        if same:  # (nothing to cast: nothing to warn about)
            xp.concatenate(arrays, axis=dim, out=o)
            return
        if o.dtype.kind != "c":
            arrays = [a.real if a.dtype.kind == "c" else a for a in arrays]
        with quiet(all="ignore"):
            xp.concatenate(arrays, axis=dim, out=o, casting="unsafe")

    # Small calls' index tuples by their key (read-only; a few hundred at most): building
    # them costs as much as the copy they serve on a small tensor.
    keys: dict[tuple[Any, ...], Any] = {}

    def keep(key: tuple[Any, ...], value: Any) -> Any:
        if len(keys) >= 512:
            keys.clear()
        keys[key] = value
        return value

    def flip(out: Any, self: Any, dims: Any) -> None:
        x = array_of(self)
        if not (x.ndim and dims):
            array_of(out)[...] = x
            return
        # (``dims`` came wrapped and checked: the reversing slices, without ``xp.flip``'s
        # normalisation of the axes)
        key = ("flip", x.ndim, *dims)
        rev = keys.get(key)
        if rev is None:
            rev = keep(
                key,
                tuple(slice(None, None, -1) if i in dims else slice(None) for i in range(x.ndim)),
            )
        array_of(out)[...] = x[rev]

    def roll(out: Any, self: Any, shifts: Any, dims: Any = None) -> None:
        x = array_of(self)
        if x.ndim == 0:
            array_of(out)[...] = x
        elif dims is None:
            array_of(out)[...] = xp.roll(x.reshape(-1), shifts[0]).reshape(x.shape)
        elif not writes_through_views(array_of(out)):  # (dask's arrays: the whole result)
            array_of(out)[...] = xp.roll(x, shifts, axis=dims)
        else:
            # Each dim's two blocks (the last ``s`` elements move to the front) copied
            # straight into out: what ``roll`` does, without its temporary and its argument
            # normalisation (most of a small roll's time).
            o = array_of(out)
            if xp.may_share_memory(o, x):
                x = x.copy()
            key = ("roll", x.shape, *shifts, None, *dims)
            copies = keys.get(key)
            if copies is None:
                copies = keep(key, roll_blocks(x.shape, shifts, dims))
            for dst, src in copies:
                o[dst] = x[src]

    def roll_blocks(shape: Any, shifts: Any, dims: Any) -> list[tuple[Any, Any]]:
        """The (destination, source) index tuples of ``roll``'s block copies."""
        total = [0] * len(shape)  # (a dim named twice rolls by the sum)
        for shift, d in zip(shifts, dims, strict=True):
            total[d] += shift
        moves: list[list[tuple[slice, slice]]] = []
        for n, shift in zip(shape, total, strict=True):
            s = shift % n if n else 0
            moves.append(
                [(slice(0, n - s), slice(s, n)), (slice(n - s, n), slice(0, s))]
                if s
                else [(slice(None), slice(None))]
            )
        return [
            (tuple(b[1] for b in blocks), tuple(b[0] for b in blocks))
            for blocks in itertools.product(*moves)
        ]

    def repeat(out: Any, self: Any, repeats: Any) -> None:
        x, o = array_of(self), array_of(out)
        if writes_through_views(o) and o.size:
            # out as (r0, s0, r1, s1, ...): one broadcast copy of x, no tiled temporary.
            lead = len(repeats) - x.ndim
            sizes = (1,) * lead + tuple(x.shape)
            split = tuple(v for r, n in zip(repeats, sizes, strict=True) for v in (r, n))
            o.reshape(split)[...] = x.reshape(tuple(v for n in sizes for v in (1, n)))
            return
        o[...] = xp.tile(x, repeats)

    masked = xp.__name__ == "numpy"

    kept: dict[tuple[Any, ...], tuple[Any, Any]] = {}

    def masks(shape: Any, diagonal: int, lower: bool) -> tuple[Any, Any]:
        """The (kept, zeroed) masks of a triangle of a matrix of ``shape``; a small one's are
        kept (read-only) for the next call: making them costs more than the rest of a small
        ``tril``."""
        key = (*shape, diagonal, lower)
        hit = kept.get(key)
        if hit is not None:
            return hit
        n, m = shape
        keep = xp.tri(n, m, diagonal if lower else diagonal - 1, dtype=bool)
        if not lower:
            xp.logical_not(keep, out=keep)
        hit = (keep, xp.logical_not(keep))
        if n * m <= _KEEP_MASKS:
            if len(kept) >= 64:
                kept.clear()
            for a in hit:
                a.flags.writeable = False
            kept[key] = hit
        return hit

    def triangle(name: str, fn: Any) -> None:
        lower = name == "tril"

        def k(out: Any, self: Any, diagonal: int = 0) -> None:
            x, o = array_of(self), array_of(out)
            if masked and (out is self or out._storage is not self._storage):
                # NumPy's tril/triu select into a new array, copied into out; here out is
                # written in place: zeros, then the kept triangle, through one shared mask.
                keep, drop = masks(x.shape[-2:], diagonal, lower)
                if out is self:
                    xp.copyto(o, 0, where=drop, casting="unsafe")
                else:
                    o.fill(0)
                    xp.copyto(o, x, where=keep)
                return
            # ``fn`` returns a new array, so in-place ``tril_`` (``out is self``) is safe.
            o[...] = fn(x, diagonal)

        k.__name__ = name
        K[name] = k

    triangle("tril", xp.tril)
    triangle("triu", xp.triu)
    K.update(cat=cat, flip=flip, roll=roll, repeat=repeat)
    return K


def _overflow(t: Any) -> str:
    return f"value cannot be converted to type {dtype_name(t._dtype)} without overflow"
