"""The sparse COO record and the array primitives every kernel is built from.

A sparse tensor is a :class:`~tensorcore.Tensor` with no storage, the ``sparse_coo`` layout
and a :class:`SparseRecord` as its native object. The record holds

- ``indices``: an int64 tensor of shape ``(sparse_dim, nnz)``;
- ``values``: a tensor of shape ``(nnz, *dense_shape)`` on the tensor's device;
- ``coalesced``: whether the indices are sorted (row-major) and unique;
- a cached CSR matrix (SciPy's on the CPU, cupyx's on CUDA) for 2-D coalesced tensors,
  built on first need and sharing the values' memory, so that coalesced tensors are never
  re-sorted or re-converted.

The primitives take the :class:`~tensorcore_sparse._xp.ArrayNamespace` of the tensor's
device (``ns``, from :func:`~tensorcore_sparse._xp.ns_of`) and work on its native arrays, so
each is written once for NumPy and CuPy.

Records are never modified in place except by in-place operators (``x.add_(y)``), which
replace their fields; ``detach()`` and the saved tensors of autograd share a record. The
``values`` of a record never carry autograd history.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import tensorcore as tc
from tensorcore import Tensor
from tensorcore.backend import check_cast, make_tensor
from tensorcore.layouts import get_layout

from ._xp import ArrayNamespace, ns_of

if TYPE_CHECKING:
    from tensorcore.layouts import layout

__all__ = [
    "ArrayNamespace",
    "SparseRecord",
    "alias",
    "as_scipy",
    "coalesce",
    "coalesce_arrays",
    "from_scipy",
    "gather",
    "is_sparse",
    "keys_of",
    "make_sparse",
    "mask",
    "np_dtype",
    "np_of",
    "ns_of",
    "record",
    "run_starts",
    "sparse_dim",
    "store",
    "to_dense_array",
    "to_dense_tensor",
]

_LAYOUT: list[layout] = []


def sparse_layout() -> layout:
    """The registered ``sparse_coo`` layout object."""
    if not _LAYOUT:
        lay = get_layout("sparse_coo")
        assert lay is not None, "the sparse_coo layout is not registered"
        _LAYOUT.append(lay)
    return _LAYOUT[0]


class SparseRecord:
    """The native record of a sparse COO tensor (``Tensor._native``).

    It carries the tensor's version counter (:attr:`version`), which the core reads and bumps
    for a tensor without storage (``Tensor._version``), so that autograd sees a sparse tensor
    modified in place after it was saved for backward, through any of its aliases."""

    __slots__ = ("_bumps", "_indices", "_scipy", "coalesced", "values")

    def __init__(
        self,
        indices: Tensor | None,
        values: Tensor,
        coalesced: bool,
        scipy_matrix: Any = None,
    ) -> None:
        self._indices = indices
        self.values = values
        self.coalesced = coalesced
        self._scipy = scipy_matrix
        self._bumps = 0

    @property
    def version(self) -> int:
        """The version counter, shared by every tensor over this record (``detach()``,
        ``coalesce()`` of a coalesced tensor, autograd's saved tensors). Writes into the
        values or indices through ``values()``/``indices()`` move it too (their storages'
        counters count), as PyTorch shares one counter between a sparse tensor and its
        values; an in-place operator moves it through the core's bump."""
        idx = self._indices
        return self._bumps + self.values._version + (0 if idx is None else idx._version)

    @version.setter
    def version(self, value: int) -> None:
        self._bumps += value - self.version

    @property
    def indices(self) -> Tensor:
        """The ``(sparse_dim, nnz)`` int64 indices (made from the CSR matrix on first use
        when the record was built from one)."""
        if self._indices is None:
            ns = ns_of(self.values)
            xp, m = ns.xp, self._scipy
            rows = ns.repeat(xp.arange(m.shape[0], dtype=xp.int64), xp.diff(m.indptr))
            self._indices = ns.wrap(xp.stack([rows, m.indices.astype(xp.int64, copy=False)]))
        return self._indices

    def replace(self, other: SparseRecord) -> None:
        """Take ``other``'s contents (what an in-place operator does to its ``self``),
        keeping this record's version (the new values' counters do not count back from it);
        the core bumps it after the operator, once, as PyTorch does."""
        before = self.version
        self._indices, self.values = other._indices, other.values
        self.coalesced, self._scipy = other.coalesced, other._scipy
        self.version = before


def record(t: Tensor) -> SparseRecord:
    """The record of a sparse tensor."""
    rec = t._native
    if not isinstance(rec, SparseRecord):
        raise TypeError(f"expected a sparse COO tensor, got a tensor of layout {t._layout.name}")
    return rec


def is_sparse(x: Any) -> bool:
    """Whether ``x`` is a sparse COO tensor."""
    return isinstance(x, Tensor) and isinstance(x._native, SparseRecord)


def sparse_dim(t: Tensor) -> int:
    """Number of sparse dims (the leading dims, addressed by the indices)."""
    return len(t._shape) - record(t).values.ndim + 1


def make_sparse(
    ns: ArrayNamespace | None,
    indices: Any,
    values: Any,
    shape: tuple[int, ...],
    coalesced: bool,
    scipy_matrix: Any = None,
) -> Tensor:
    """A sparse tensor over ``indices`` and ``values``: tensors, or native arrays of the
    namespace ``ns``, which wraps them. ``ns`` is None where both are tensors, so that the
    kernels registered for every device work on devices without a namespace too."""
    if indices is not None and not isinstance(indices, Tensor):
        assert ns is not None, "native indices need the namespace that wraps them"
        indices = ns.wrap(ns.xp.ascontiguousarray(indices, dtype=ns.xp.int64))
    if not isinstance(values, Tensor):
        assert ns is not None, "native values need the namespace that wraps them"
        values = ns.wrap(values)
    if indices is not None and indices._shape[1] < 2:
        coalesced = True
    rec = SparseRecord(indices, values, coalesced, scipy_matrix)
    shape = tuple(shape)
    return make_tensor(
        None, shape, (0,) * len(shape), 0, values._dtype, values._device, rec, sparse_layout()
    )


def alias(t: Tensor) -> Tensor:
    """A new tensor object sharing ``t``'s record and version counter (kernels never return
    their inputs): ``t.detach()``, which the kernel's caller records as an alias of ``t``."""
    return t.detach()


def np_of(t: Tensor) -> Any:
    """The native array (NumPy, CuPy) of a dense tensor (a view, never a copy)."""
    n = t._native
    if n is None:
        n = t._arr()
    return n


# ------------------------------------------------------------------ index arithmetic
def _first(ns: ArrayNamespace, n: int) -> Any:
    """A boolean array of length ``n`` (at least 1) that is true at position 0 only."""
    out = ns.xp.zeros(max(n, 1), dtype=bool)
    out[0] = True
    return out


def run_starts(ns: ArrayNamespace, keys: Any) -> Any:
    """Whether each element of the sorted 1-D ``keys`` starts a run of equal keys."""
    new = _first(ns, len(keys))
    if len(keys) > 1:
        new[1:] = keys[1:] != keys[:-1]
    return new[: len(keys)]


def keys_of(ns: ArrayNamespace, *index_arrays: Any, sizes: tuple[int, ...]) -> list[Any]:
    """One int64 key per index column, ordered like the indices (row-major) and consistent
    across the given ``(sparse_dim, n)`` arrays."""
    xp = ns.xp
    total = 1
    for s in sizes:
        total *= max(s, 1)
    if total < 2**62:
        out = []
        for idx in index_arrays:
            if idx.shape[0] == 1:
                out.append(idx[0].astype(xp.int64, copy=False))
            elif idx.shape[1] == 0:
                out.append(xp.zeros(0, dtype=xp.int64))
            else:
                out.append(xp.ravel_multi_index(tuple(idx), sizes).astype(xp.int64, copy=False))
        return out
    # The linear index overflows int64: rank the index columns instead (lexsort's last key
    # is the primary one, so the rows go in reversed).
    both = xp.concatenate(index_arrays, axis=1)
    n = both.shape[1]
    inverse = xp.zeros(n, dtype=xp.int64)
    if n:
        order = xp.lexsort(xp.ascontiguousarray(both[::-1]))
        cols = both[:, order]
        new = _first(ns, n)
        new[1:] = (cols[:, 1:] != cols[:, :-1]).any(axis=0)
        inverse[order] = xp.cumsum(new) - 1
    out, start = [], 0
    for a in index_arrays:
        out.append(inverse[start : start + a.shape[1]])
        start += a.shape[1]
    return out


def coalesce_arrays(ns: ArrayNamespace, idx: Any, val: Any, sizes: tuple[int, ...]) -> Any:
    """Sorted, duplicate-free indices and the summed values of each index."""
    xp = ns.xp
    nnz = idx.shape[1]
    if nnz < 2:
        return idx, val
    (keys,) = keys_of(ns, idx, sizes=sizes)
    if bool((keys[1:] > keys[:-1]).all()):
        return idx, val
    order = ns.argsort_stable(keys)
    new = run_starts(ns, keys[order])
    starts = xp.flatnonzero(new)
    new_idx = idx[:, order[starts]]
    vals = val[order]
    if len(starts) == nnz:
        return new_idx, vals
    return new_idx, ns.segment_sum(vals, starts)


def coalesce(t: Tensor) -> Tensor:
    """``t`` coalesced (a new tensor sharing the record when it already is)."""
    rec = record(t)
    if rec.coalesced:
        return alias(t)
    ns = ns_of(t)
    idx, val = np_of(rec.indices), np_of(rec.values)
    new_idx, new_val = coalesce_arrays(ns, idx, val, t._shape[: idx.shape[0]])
    return make_sparse(
        ns,
        rec.indices if new_idx is idx else new_idx,
        rec.values if new_val is val else new_val,
        t._shape,
        True,
    )


def gather(ns: ArrayNamespace, g: Tensor, idx: Any, sizes: tuple[int, ...]) -> Any:
    """The entries of ``g`` (dense, or sparse with the same sparse dims) at the index columns
    ``idx`` (a ``(sparse_dim, n)`` array, repeats allowed), as an ``(n, *dense)`` array."""
    if not is_sparse(g):
        return np_of(g)[tuple(idx)]
    xp = ns.xp
    gc = coalesce(g)
    grec = record(gc)
    gidx, gval = np_of(grec.indices), np_of(grec.values)
    if gidx.shape[0] != idx.shape[0]:
        return np_of(to_dense_tensor(gc))[tuple(idx)]
    gk, qk = keys_of(ns, gidx, idx, sizes=sizes)
    out = xp.zeros((idx.shape[1],) + gval.shape[1:], dtype=gval.dtype)
    if len(gk) and idx.shape[1]:
        pos = xp.minimum(xp.searchsorted(gk, qk), len(gk) - 1)
        found = gk[pos] == qk
        out[found] = gval[pos[found]]
    return out


def mask(g: Tensor, x: Tensor) -> Tensor:
    """``g`` (dense or sparse) restricted to the coalesced sparsity pattern of ``x``: a
    coalesced sparse tensor with ``x.coalesce()``'s indices (``g.sparse_mask(x)``)."""
    ns = ns_of(x)
    xc = coalesce(x)
    rec = record(xc)
    idx = np_of(rec.indices)
    vals = gather(ns, g, idx, x._shape[: idx.shape[0]])
    return make_sparse(ns, rec.indices, ns.xp.ascontiguousarray(vals), x._shape, True)


def to_dense_array(t: Tensor) -> Any:
    """A new dense native array holding ``t``'s elements (duplicates summed)."""
    ns = ns_of(t)
    rec = record(t)
    idx, val = np_of(rec.indices), np_of(rec.values)
    out = ns.xp.zeros(t._shape, dtype=val.dtype)
    if idx.shape[1]:
        if rec.coalesced:
            out[tuple(idx)] = val
        else:
            ns.add_at(out, tuple(idx), val)
    return out


def to_dense_tensor(t: Tensor) -> Tensor:
    """``t`` as a new dense tensor on its device."""
    return ns_of(t).wrap(to_dense_array(t))


# ------------------------------------------------------------------ CSR matrices
def as_scipy(t: Tensor) -> Any:
    """A CSR matrix (SciPy's, or cupyx's on CUDA) of a coalesced 2-D tensor without dense
    dims, or None where it does not fit: other shapes or dtypes, and hyper-sparse matrices
    (many more rows than non-zeros), whose ``indptr`` alone would dwarf the data. Cached on
    the record and sharing the values' memory, so in-place changes of the values reach it."""
    rec = record(t)
    m = rec._scipy
    if m is not None:
        return m
    if len(t._shape) != 2 or rec.values.ndim != 1 or not rec.coalesced:
        return None
    ns = ns_of(t)
    val = np_of(rec.values)
    nnz = val.shape[0]
    nrows = t._shape[0]
    if val.dtype not in ns.scipy_dtypes or nrows > 4 * nnz + 4096:
        return None
    xp = ns.xp
    idx = np_of(rec.indices)
    indptr = xp.zeros(nrows + 1, dtype=xp.int64)
    xp.cumsum(xp.bincount(idx[0], minlength=nrows), out=indptr[1:])
    m = ns.csr(val, idx[1], indptr, t._shape)
    if ns.shares_memory(m.data, val):
        rec._scipy = m
    return m


def from_scipy(ns: ArrayNamespace, m: Any, shape: tuple[int, ...], canonical: bool = False) -> Any:
    """A coalesced sparse tensor over a CSR matrix of ``ns.sp`` (its indices made lazily).
    ``canonical`` vouches that ``m`` is sorted and duplicate-free (see
    :meth:`~tensorcore_sparse._xp.ArrayNamespace.canonical`)."""
    m = ns.canonical(m, canonical)
    return make_sparse(ns, None, ns.wrap(m.data), shape, True, m)


def store(out: Any, res: Tensor) -> Tensor:
    """Return a kernel's result, written into ``out`` when one is given (the in-place
    ``self`` or an ``out=`` argument), with PyTorch's casting check."""
    if out is None:
        return res
    check_cast(res._dtype, out._dtype)
    if tuple(out._shape) != tuple(res._shape):
        raise RuntimeError(
            f"output with shape {list(out._shape)} doesn't match the result shape "
            f"{list(res._shape)}"
        )
    if not is_sparse(out):
        out.copy_(to_dense_tensor(res) if is_sparse(res) else res)
        return out
    if not is_sparse(res):
        raise RuntimeError("a dense result cannot be written into a sparse tensor")
    rec = record(res)
    if res._dtype is not out._dtype:
        values = rec.values.to(out._dtype)
        rec = record(make_sparse(None, rec.indices, values, res._shape, rec.coalesced))
    record(out).replace(rec)
    return out


_NP_DTYPES: dict[tc.dtype, Any] = {}


def np_dtype(d: tc.dtype) -> Any:
    """The NumPy dtype the CPU backend stores ``d`` as (CuPy uses the same dtypes)."""
    hit = _NP_DTYPES.get(d)
    if hit is None:
        hit = _NP_DTYPES[d] = np_of(tc.empty(0, dtype=d, device="cpu")).dtype
    return hit
