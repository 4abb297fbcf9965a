"""Shape kernels of the sparse layout: ``transpose`` (and so ``t()``), ``permute`` and
``index_select``.

They are views for strided tensors; here they make new indices (or view the values, for
dense dims) and share the values. Written once for every device type.
"""

from __future__ import annotations

from typing import Any

from tensorcore import Tensor
from tensorcore.backend import wrap_dim

from .._coo import make_sparse, np_of, ns_of, record, sparse_dim, store
from .._xp import DEVICE_TYPES

__all__ = ["KERNELS", "selected_entries"]


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
    """Reorder the dims; sparse dims stay among the leading ones."""
    nd = self.ndim
    order = [wrap_dim(d, nd) for d in dims]
    if sorted(order) != list(range(nd)):
        raise RuntimeError(f"permute(): {list(dims)} is not a permutation of {nd} dims")
    sd = sparse_dim(self)
    if sorted(order[:sd]) != list(range(sd)):
        raise RuntimeError("permute(): a sparse tensor's sparse dims must stay in front")
    rec = record(self)
    idx = np_of(rec.indices)[order[:sd]]
    vals = rec.values.permute([0] + [d - sd + 1 for d in order[sd:]])
    coalesced = rec.coalesced and order[:sd] == list(range(sd))
    return make_sparse(ns_of(self), idx, vals, tuple(self.shape[d] for d in order), coalesced)


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
    xp = ns.xp
    pick = xp.asarray(np_of(index.reshape(-1).to(self.device)), dtype=xp.int64)
    if pick.size and bool(((pick < 0) | (pick >= self.shape[d])).any()):
        raise IndexError(f"index_select(): index out of range in self (size {self.shape[d]})")
    if d >= sd:
        vals = rec.values.index_select(d - sd + 1, ns.wrap(pick))
        return store(out, make_sparse(None, rec.indices, vals, tuple(shape), rec.coalesced))
    idx = np_of(rec.indices)
    entry, position = selected_entries(ns, pick, idx[d])
    new_idx = idx[:, entry]
    new_idx[d] = position
    vals = rec.values.index_select(0, ns.wrap(entry))
    return store(out, make_sparse(ns, new_idx, vals, tuple(shape), False))


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


#: (operator, device type, layout, kernel, direct)
KERNELS: list[tuple[str, str, str, Any, bool]] = [
    (op, device, "sparse_coo", fn, direct)
    for device in DEVICE_TYPES
    for op, fn, direct in (
        ("transpose", transpose, False),
        ("permute", permute, False),
        ("index_select", index_select, True),  # (a structured operator: the kernel allocates)
    )
]
