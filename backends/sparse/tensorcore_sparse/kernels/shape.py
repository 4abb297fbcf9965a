"""Shape and selection kernels of the sparse layout: ``transpose`` (and so ``t()``),
``permute``, ``unsqueeze``, ``index_select``, ``select`` (and so ``s[i]``, ``s[:, j]``),
``narrow_copy`` and ``cat`` (and so ``stack``).

Most are views for strided tensors; here they make new indices (or view the values, for
dense dims) and share the values where they can. PyTorch's sparse tensors have no strides, so
``narrow`` and slicing (``s[a:b]``) stay strided-only, as there; ``narrow_copy`` is the
sparse way to take a range. Written once for every device type.
"""

from __future__ import annotations

from typing import Any

from tensorcore import Tensor
from tensorcore import promote_types as tc_promote
from tensorcore.backend import wrap_dim

from .._coo import is_sparse, keys_of, make_sparse, np_of, ns_of, record, sparse_dim, store
from .._xp import DEVICE_TYPES

__all__ = ["KERNELS", "in_range", "selected_entries", "wrapped_picks"]


def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two sparse dims (the indices' rows: uncoalesced) or two dense dims (a view of
    the values); a sparse dim cannot trade places with a dense one."""
    nd = self.ndim
    d0, d1 = wrap_dim(dim0, nd), wrap_dim(dim1, nd)
    rec = record(self)
    sd = sparse_dim(self)
    shape = list(self.shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    if d0 == d1:
        return make_sparse(None, rec.indices, rec.values, tuple(shape), rec.coalesced)
    if d0 < sd and d1 < sd:
        perm = list(range(sd))
        perm[d0], perm[d1] = perm[d1], perm[d0]
        idx = np_of(rec.indices)[perm]
        return make_sparse(ns_of(self), idx, rec.values, tuple(shape), False)
    if d0 >= sd and d1 >= sd:
        vals = rec.values.transpose(d0 - sd + 1, d1 - sd + 1)
        return make_sparse(None, rec.indices, vals, tuple(shape), rec.coalesced)
    raise RuntimeError(
        f"transpose(): cannot swap a sparse dim with a dense dim of a sparse tensor "
        f"(dims {d0} and {d1}, sparse_dim={sd})"
    )


def permute(self: Tensor, dims: Any) -> Tensor:
    """Reorder the dims; sparse dims stay among the leading ones. Coalesced where ``self``
    is, the first dim stays first and the indices are in fact sorted."""
    nd = self.ndim
    order = [wrap_dim(d, nd) for d in dims]
    if sorted(order) != list(range(nd)):
        raise RuntimeError(f"permute(): {list(dims)} is not a permutation of {nd} dims")
    sd = sparse_dim(self)
    if sorted(order[:sd]) != list(range(sd)):
        raise RuntimeError("permute(): a sparse tensor's sparse dims must stay in front")
    rec = record(self)
    ns = ns_of(self)
    idx = np_of(rec.indices)[order[:sd]]
    vals = rec.values.permute([0] + [d - sd + 1 for d in order[sd:]])
    shape = tuple(self.shape[d] for d in order)
    # PyTorch keeps the flag where the first dim stays first; it flags some unsorted results
    # coalesced that way (permute(0, 2, 1)), so the order is checked there.
    coalesced = rec.coalesced and order[0] == 0
    if coalesced and order[:sd] != list(range(sd)) and idx.shape[1] > 1:
        (keys,) = keys_of(ns, idx, sizes=shape[:sd])
        coalesced = bool((keys[1:] > keys[:-1]).all())
    return make_sparse(ns, idx, vals, shape, coalesced)


def index_select(self: Tensor, dim: int, index: Tensor, out: Any = None) -> Tensor:
    """The slices of ``self`` at ``index`` along ``dim``, as PyTorch's sparse index_select:
    along a sparse dim each stored entry is repeated once per position of ``index`` that names
    its coordinate (uncoalesced); along a dense dim the values are selected."""
    d = wrap_dim(dim, self.ndim)
    rec = record(self)
    sd = sparse_dim(self)
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index._dtype.is_floating_point or index._dtype.is_complex or index._dtype.itemsize == 1:
        raise IndexError(
            f"index_select(): Expected dtype int32 or int64 for index, got {index._dtype.name}"
        )
    shape = list(self.shape)
    shape[d] = index.numel()
    ns = ns_of(self)
    pick = wrapped_picks(self, d, index)
    if d >= sd:
        vals = rec.values.index_select(d - sd + 1, ns.wrap(pick))
        return store(out, make_sparse(None, rec.indices, vals, tuple(shape), False))
    idx = np_of(rec.indices)
    entry, position = selected_entries(ns, pick, idx[d])
    new_idx = idx[:, entry]
    new_idx[d] = position
    vals = rec.values.index_select(0, ns.wrap(entry))
    return store(out, make_sparse(ns, new_idx, vals, tuple(shape), False))


def wrapped_picks(self: Tensor, d: int, index: Tensor) -> Any:
    """``index`` as an int64 array of the namespace, negative positions counted from the end
    (PyTorch's sparse ``index_select`` takes them), with PyTorch's error for the others."""
    xp = ns_of(self).xp
    n = self.shape[d]
    pick = xp.asarray(np_of(index.reshape(-1).to(self.device)), dtype=xp.int64)
    if pick.size:
        bad = (pick < -n) | (pick >= n)
        if bool(bad.any()):
            first = int(pick[xp.flatnonzero(bad)[0]])
            raise IndexError(
                f"index_select(): index contains {first} that is out of range for tensor of "
                f"size {list(self.shape)} at dimension {d}"
            )
        pick = xp.where(pick < 0, pick + n, pick)
    return pick


def selected_entries(ns: Any, pick: Any, coord: Any) -> tuple[Any, Any]:
    """``(entry, position)``: every pair of a stored entry (its column in the indices) and a
    position of ``pick`` that names the entry's coordinate ``coord[entry]`` along the selected
    dim (arrays of the namespace ``ns``), entries in order."""
    xp = ns.xp
    order = xp.argsort(pick, kind="stable")
    sorted_pick = pick[order]
    lo = xp.searchsorted(sorted_pick, coord, side="left")
    counts = xp.searchsorted(sorted_pick, coord, side="right") - lo
    entry = ns.repeat(xp.arange(coord.shape[0], dtype=xp.int64), counts)
    starts = xp.cumsum(counts) - counts
    within = xp.arange(entry.shape[0], dtype=xp.int64) - ns.repeat(starts, counts)
    return entry, order[ns.repeat(lo, counts) + within]


def unsqueeze(self: Tensor, dim: int) -> Tensor:
    """A new dim of size 1: a sparse dim (a row of zeros in the indices) where ``dim`` is
    among the sparse dims or just after them, else a dense dim of the values. Flagged
    uncoalesced, as PyTorch flags it."""
    nd = self.ndim
    d = wrap_dim(dim, nd + 1)
    rec = record(self)
    sd = sparse_dim(self)
    shape = (*self.shape[:d], 1, *self.shape[d:])
    if d > sd:
        vals = rec.values.unsqueeze(d - sd + 1)
        return make_sparse(None, rec.indices, vals, shape, False)
    ns = ns_of(self)
    xp = ns.xp
    idx = np_of(rec.indices)
    zero = xp.zeros((1, idx.shape[1]), dtype=idx.dtype)
    new_idx = xp.concatenate([idx[:d], zero, idx[d:]])
    return make_sparse(ns, new_idx, rec.values, shape, False)


def select(self: Tensor, dim: int, index: int) -> Tensor:
    """The slice at ``index`` along ``dim``, as PyTorch's sparse ``select``: along a sparse
    dim the entries at that coordinate, with one sparse dim fewer (a dense tensor, the sum of
    those entries' values, where no sparse dim is left); along a dense dim a view of the
    values."""
    d = wrap_dim(dim, self.ndim)
    size = self.shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(self.shape)} at "
            f"dimension {d}"
        )
    i = index + size if index < 0 else index
    rec = record(self)
    sd = sparse_dim(self)
    shape = (*self.shape[:d], *self.shape[d + 1 :])
    if d >= sd:
        vals = rec.values.select(d - sd + 1, i)
        return make_sparse(None, rec.indices, vals, shape, False)
    ns = ns_of(self)
    xp = ns.xp
    idx = np_of(rec.indices)
    entry = xp.flatnonzero(idx[d] == i)
    vals = rec.values.index_select(0, ns.wrap(entry))
    if sd == 1:
        return vals.sum(0)
    keep = [r for r in range(sd) if r != d]
    return make_sparse(ns, idx[keep][:, entry], vals, shape, False)


def in_range(self: Tensor, dim: int, start: int, length: int) -> tuple[int, int]:
    """``(dim, start)`` of ``narrow_copy(self, dim, start, length)``, wrapped and checked
    with PyTorch's messages."""
    d = wrap_dim(dim, self.ndim)
    size = self.shape[d]
    if start < -size or start > size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    s = start + size if start < 0 else start
    if length < 0 or s + length > size:
        raise RuntimeError(
            f"Invalid range to narrow. range(start, start+length) must be a subset of "
            f"range(0, {size})."
        )
    return d, s


def narrow_copy(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The entries within ``start:start + length`` along ``dim`` (a sparse result, not a
    view: PyTorch's sparse ``narrow_copy``)."""
    d, s = in_range(self, dim, start, length)
    rec = record(self)
    sd = sparse_dim(self)
    shape = list(self.shape)
    shape[d] = length
    if d >= sd:
        vals = rec.values.narrow(d - sd + 1, s, length).clone()
        return make_sparse(None, rec.indices, vals, tuple(shape), rec.coalesced)
    ns = ns_of(self)
    xp = ns.xp
    idx = np_of(rec.indices)
    coord = idx[d]
    entry = xp.flatnonzero((coord >= s) & (coord < s + length))
    new_idx = idx[:, entry]
    new_idx[d] -= s
    vals = rec.values.index_select(0, ns.wrap(entry))
    return make_sparse(ns, new_idx, vals, tuple(shape), rec.coalesced)


def cat(tensors: Any, dim: int = 0, out: Any = None) -> Tensor:
    """Sparse tensors of equal sparse and dense dims joined along ``dim``, as PyTorch's
    sparse ``cat``: along a sparse dim the entries, their coordinates shifted; along a dense
    dim every entry's values padded with zeros beyond its own part (uncoalesced results)."""
    ts = list(tensors)
    if not ts:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(ts):
        if not is_sparse(t):
            raise RuntimeError(
                f"Concatenating sparse tensors, but a dense tensor was found at position {i}."
            )
    first = ts[0]
    sd, dd = sparse_dim(first), first.ndim - sparse_dim(first)
    for i, t in enumerate(ts):
        if sparse_dim(t) != sd or t.ndim - sparse_dim(t) != dd:
            raise RuntimeError(
                f"All tensors must have the same sparse_dim and dense_dim: {sd}, {dd}, but "
                f"tensor at position {i} has {sparse_dim(t)}, {t.ndim - sparse_dim(t)}."
            )
    d = wrap_dim(dim, first.ndim)
    for i, t in enumerate(ts):
        for k in range(first.ndim):
            if k != d and t.shape[k] != first.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{first.shape[k]} but got size {t.shape[k]} for tensor number {i} in "
                    "the list."
                )
    dtype = first.dtype
    for t in ts[1:]:
        dtype = tc_promote(dtype, t.dtype)
    ns = ns_of(first)
    xp = ns.xp
    total = sum(t.shape[d] for t in ts)
    shape = list(first.shape)
    shape[d] = total
    idx_parts, val_parts, offset = [], [], 0
    for t in ts:
        rec = record(t)
        idx = np_of(rec.indices)
        vals = np_of(rec.values.to(dtype))
        if d < sd:
            idx = idx.copy()
            idx[d] += offset
        else:
            vd = d - sd + 1
            padded = xp.zeros((vals.shape[0], *shape[sd:]), dtype=vals.dtype)
            where = [slice(None)] * padded.ndim
            where[vd] = slice(offset, offset + t.shape[d])
            padded[tuple(where)] = vals
            vals = padded
        idx_parts.append(idx)
        val_parts.append(vals)
        offset += t.shape[d]
    new_idx = xp.concatenate(idx_parts, axis=1)
    res = make_sparse(ns, new_idx, xp.concatenate(val_parts), tuple(shape), False)
    return store(out, res)


#: (operator, device type, layout, kernel, direct)
KERNELS: list[tuple[str, str, str, Any, bool]] = [
    (op, device, "sparse_coo", fn, direct)
    for device in DEVICE_TYPES
    for op, fn, direct in (
        ("transpose", transpose, False),
        ("permute", permute, False),
        ("index_select", index_select, True),  # (a structured operator: the kernel allocates)
        ("unsqueeze", unsqueeze, False),
        ("select", select, False),
        ("narrow_copy", narrow_copy, False),
        ("cat", cat, True),
    )
]
