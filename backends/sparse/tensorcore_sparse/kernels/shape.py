"""Shape kernels of the sparse layout: ``transpose`` (and so ``t()``) and ``permute``.

They are views for strided tensors; here they make new indices (or view the values, for
dense dims) and share the values. Written once for every device type.
"""

from __future__ import annotations

from typing import Any

from tensorcore import Tensor
from tensorcore.backend import wrap_dim

from .._coo import make_sparse, np_of, ns_of, record, sparse_dim
from .._xp import DEVICE_TYPES

__all__ = ["KERNELS"]


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


#: (operator, device type, layout, kernel, direct)
KERNELS: list[tuple[str, str, str, Any, bool]] = [
    (op, device, "sparse_coo", fn, False)
    for device in DEVICE_TYPES
    for op, fn in (("transpose", transpose), ("permute", permute))
]
