"""Reductions over sparse tensors: ``sum`` (sparse or dense results, as in PyTorch) and the
sparse softmax (``tensorcore.sparse.softmax``), whose unspecified elements count as -inf.
Written once for every device type (:mod:`tensorcore_sparse._xp`)."""

from __future__ import annotations

from typing import Any

import tensorcore as tc
from tensorcore import Tensor
from tensorcore.backend import normalize_dims, wrap_dim

from .._coo import (
    ArrayNamespace,
    coalesce,
    coalesce_arrays,
    keys_of,
    make_sparse,
    np_of,
    ns_of,
    record,
    run_starts,
    sparse_dim,
    store,
)
from .._xp import DEVICE_TYPES

__all__ = ["KERNELS", "softmax_backward_values"]


def _sum_dtype(self: Tensor, dtype: tc.dtype | None) -> tc.dtype:
    if dtype is not None:
        return dtype
    d = self.dtype
    return d if (d.is_floating_point or d.is_complex) else tc.int64


def sum(
    self: Tensor,
    dim: Any = None,
    keepdim: bool = False,
    dtype: tc.dtype | None = None,
    out: Any = None,
) -> Tensor:
    """Sum over ``dim``: dense when every sparse dim is reduced, else sparse (coalesced;
    flagged so without ``keepdim``, as PyTorch flags it)."""
    nd = self.ndim
    dims = normalize_dims(dim, nd)
    res = _sum_dtype(self, dtype)
    rec = record(self)
    sd = sparse_dim(self)
    red_sparse = [d for d in dims if d < sd]
    red_dense = tuple(d - sd + 1 for d in dims if d >= sd)
    vals = rec.values if rec.values.dtype is res else rec.values.to(res)
    if red_dense:
        vals = vals.sum(red_dense)
    if len(red_sparse) == sd:
        r = (
            vals.sum(0)
            if vals.shape[0]
            else tc.zeros(vals.shape[1:], dtype=res, device=vals.device)
        )
        if keepdim:
            r = r.reshape(tuple(1 if i in dims else s for i, s in enumerate(self.shape)))
        return store(out, r.detach())
    ns = ns_of(self)
    xp = ns.xp
    keep = [d for d in range(sd) if d not in red_sparse]
    idx = np_of(rec.indices)
    sizes = tuple(self.shape[d] for d in keep)
    new_idx, new_vals = coalesce_arrays(ns, idx[keep], np_of(vals), sizes)
    dense_shape = tuple(s for i, s in enumerate(self.shape) if i >= sd and i not in dims)
    if not keepdim:
        return store(out, make_sparse(ns, new_idx, new_vals, sizes + dense_shape, True))
    full = xp.zeros((sd, new_idx.shape[1]), dtype=xp.int64)
    full[keep] = new_idx
    for d in sorted(red_dense):
        new_vals = xp.expand_dims(new_vals, d)
    shape = tuple(1 if i in dims else s for i, s in enumerate(self.shape))
    # (coalesced in fact; PyTorch flags a keepdim result uncoalesced)
    return store(out, make_sparse(ns, full, xp.ascontiguousarray(new_vals), shape, False))


def _groups(ns: ArrayNamespace, idx: Any, d: int, sizes: tuple[int, ...]) -> tuple[Any, ...]:
    """Entries that differ only in sparse dim ``d`` form a group (a softmax "row"):
    (order sorting entries by group, start of each group in that order, group of each)."""
    xp = ns.xp
    others = [k for k in range(idx.shape[0]) if k != d]
    n = idx.shape[1]
    if others:
        (key,) = keys_of(ns, idx[others], sizes=tuple(sizes[k] for k in others))
    else:
        key = xp.zeros(n, dtype=xp.int64)
    order = ns.argsort_stable(key)
    new = run_starts(ns, key[order])
    return order, xp.flatnonzero(new), xp.cumsum(new) - 1


def _softmax(log: bool) -> Any:
    def kernel(self: Tensor, dim: int, dtype: tc.dtype | None = None) -> Tensor:
        d = wrap_dim(dim, self.ndim)
        xc = coalesce(self)
        rec = record(xc)
        vals = rec.values if dtype is None else rec.values.to(dtype)
        if not (vals.dtype.is_floating_point or vals.dtype.is_complex):
            vals = vals.to(tc.get_default_dtype())
        ns = ns_of(self)
        xp = ns.xp
        sd = sparse_dim(self)
        if d >= sd:  # a dense dim: an ordinary softmax of each value
            fn = vals.log_softmax if log else vals.softmax
            return make_sparse(ns, rec.indices, fn(d - sd + 1).detach(), self.shape, True)
        v = np_of(vals)
        out = xp.empty_like(v)
        if v.shape[0]:
            order, starts, seg = _groups(ns, np_of(rec.indices), d, self.shape[:sd])
            vs = v[order]
            shifted = vs - ns.segment_shift(vs, starts, seg)[seg]
            e = xp.exp(shifted)
            s = ns.segment_sum(e, starts, seg)[seg]
            out[order] = shifted - xp.log(s) if log else e / s
        return make_sparse(ns, rec.indices, out, self.shape, True)

    kernel.__name__ = "_sparse_log_softmax" if log else "_sparse_softmax"
    return kernel


def softmax_backward_values(y: Tensor, g_vals: Any, dim: int, log: bool) -> Any:
    """The values of the gradient of a sparse (log-)softmax with output ``y`` (coalesced),
    given the output gradient's values at ``y``'s entries."""
    ns = ns_of(y)
    xp = ns.xp
    rec = record(y)
    yv = np_of(rec.values)
    sd = sparse_dim(y)
    if dim >= sd:
        a = dim - sd + 1
        if log:
            return g_vals - xp.exp(yv) * g_vals.sum(axis=a, keepdims=True)
        return yv * (g_vals - (g_vals * yv).sum(axis=a, keepdims=True))
    out = xp.empty_like(yv)
    if yv.shape[0]:
        order, starts, seg = _groups(ns, np_of(rec.indices), dim, y.shape[:sd])
        gs, ys = g_vals[order], yv[order]
        if log:
            out[order] = gs - xp.exp(ys) * ns.segment_sum(gs, starts, seg)[seg]
        else:
            out[order] = ys * (gs - ns.segment_sum(gs * ys, starts, seg)[seg])
    return out


def norm(
    self: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False, dtype: Any = None
) -> Tensor:
    """The ``p``-norm of every element (PyTorch's sparse ``norm``: a full reduction only),
    computed on the coalesced values: a dense 0-dim tensor, differentiable through them."""
    if dim is not None and sorted(normalize_dims(dim, self.ndim)) != list(range(self.ndim)):
        raise RuntimeError(
            "norm_sparse currently only supports full reductions, so 'dim' must either be "
            "empty or contain all dimensions of the input"
        )
    if dtype is not None and p in ("fro", 2):
        raise ValueError("dtype argument is not supported in frobenius norm")
    vals = self.coalesce().values()
    res = tc.linalg.vector_norm(vals, 2 if p == "fro" else p, dtype=dtype)
    return res.reshape((1,) * self.ndim) if keepdim else res


#: (operator, device type, layout, kernel, direct)
_FUNCTIONS: list[tuple[str, Any, bool]] = [
    ("sum", sum, True),
    ("_sparse_softmax", _softmax(False), False),
    ("_sparse_log_softmax", _softmax(True), False),
    ("norm", norm, False),
]

#: (operator, device type, layout, kernel, direct)
KERNELS: list[tuple[str, str, str, Any, bool]] = [
    (op, device, "sparse_coo", fn, direct)
    for device in DEVICE_TYPES
    for op, fn, direct in _FUNCTIONS
]
