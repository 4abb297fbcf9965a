"""The sparse COO record and the NumPy/SciPy primitives every kernel is built from.

A sparse tensor is a :class:`~tensorcore.Tensor` with no storage, the ``sparse_coo`` layout
and a :class:`SparseRecord` as its native object. The record holds

- ``indices``: an int64 tensor of shape ``(sparse_dim, nnz)``;
- ``values``: a tensor of shape ``(nnz, *dense_shape)`` on the tensor's device;
- ``coalesced``: whether the indices are sorted (row-major) and unique;
- a cached SciPy matrix for 2-D coalesced tensors on the CPU, built on first need and
  sharing the values' memory, so that coalesced tensors are never re-sorted or re-converted.

Records are never modified in place except by in-place operators (``x.add_(y)``), which
replace their fields; ``detach()`` and the saved tensors of autograd share a record. The
``values`` of a record never carry autograd history.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from tensorcore_cpu.device import wrap

import tensorcore as tc
from tensorcore import Tensor
from tensorcore._tensor import make_tensor
from tensorcore.layouts import get_layout

if TYPE_CHECKING:
    from tensorcore.layouts import layout

__all__ = [
    "SCIPY_DTYPES",
    "SparseRecord",
    "alias",
    "as_scipy",
    "coalesce",
    "from_scipy",
    "gather",
    "is_sparse",
    "keys_of",
    "make_sparse",
    "mask",
    "np_dtype",
    "np_of",
    "record",
    "sparse_dim",
    "store",
    "to_dense_array",
    "wrap",
]

# SciPy's sparse kernels work on these dtypes without converting (and so share the values).
SCIPY_DTYPES = frozenset(
    np.dtype(d) for d in (np.float32, np.float64, np.complex64, np.complex128, np.int32, np.int64)
)
_LAYOUT: list[layout] = []


def sparse_layout() -> layout:
    """The registered ``sparse_coo`` layout object."""
    if not _LAYOUT:
        lay = get_layout("sparse_coo")
        assert lay is not None, "the sparse_coo layout is not registered"
        _LAYOUT.append(lay)
    return _LAYOUT[0]


class SparseRecord:
    """The native record of a sparse COO tensor (``Tensor._native``)."""

    __slots__ = ("_indices", "_scipy", "coalesced", "values")

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

    @property
    def indices(self) -> Tensor:
        """The ``(sparse_dim, nnz)`` int64 indices (made from the SciPy matrix on first use
        when the record was built from one)."""
        if self._indices is None:
            m = self._scipy
            rows = np.repeat(np.arange(m.shape[0], dtype=np.int64), np.diff(m.indptr))
            self._indices = wrap(np.stack([rows, m.indices.astype(np.int64, copy=False)]))
        return self._indices

    def replace(self, other: SparseRecord) -> None:
        """Take ``other``'s contents (what an in-place operator does to its ``self``)."""
        self._indices, self.values = other._indices, other.values
        self.coalesced, self._scipy = other.coalesced, other._scipy


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
    indices: Any,
    values: Any,
    shape: tuple[int, ...],
    coalesced: bool,
    scipy_matrix: Any = None,
) -> Tensor:
    """A sparse tensor over ``indices`` and ``values`` (tensors or NumPy arrays)."""
    if indices is not None and not isinstance(indices, Tensor):
        indices = wrap(np.ascontiguousarray(indices, dtype=np.int64))
    if not isinstance(values, Tensor):
        values = wrap(values)
    if indices is not None and indices._shape[1] < 2:
        coalesced = True
    rec = SparseRecord(indices, values, coalesced, scipy_matrix)
    shape = tuple(shape)
    return make_tensor(
        None, shape, (0,) * len(shape), 0, values._dtype, values._device, rec, sparse_layout()
    )


def alias(t: Tensor) -> Tensor:
    """A new tensor object sharing ``t``'s record (kernels never return their inputs)."""
    return make_tensor(None, t._shape, t._stride, 0, t._dtype, t._device, t._native, t._layout)


def np_of(t: Tensor) -> Any:
    """The NumPy array of a dense CPU tensor (a view, never a copy)."""
    n = t._native
    if n is None:
        n = t._arr()
    return n


# ------------------------------------------------------------------ index arithmetic
def keys_of(*index_arrays: Any, sizes: tuple[int, ...]) -> list[Any]:
    """One int64 key per index column, ordered like the indices (row-major) and consistent
    across the given ``(sparse_dim, n)`` arrays."""
    total = 1
    for s in sizes:
        total *= max(s, 1)
    if total < 2**62:
        out = []
        for idx in index_arrays:
            if idx.shape[0] == 1:
                out.append(idx[0].astype(np.int64, copy=False))
            elif idx.shape[1] == 0:
                out.append(np.zeros(0, dtype=np.int64))
            else:
                out.append(np.ravel_multi_index(tuple(idx), sizes).astype(np.int64, copy=False))
        return out
    # The linear index overflows int64: rank the index columns instead.
    both = np.concatenate(index_arrays, axis=1)
    _, inverse = np.unique(both, axis=1, return_inverse=True)
    inverse = inverse.reshape(-1).astype(np.int64)
    splits = np.cumsum([a.shape[1] for a in index_arrays])[:-1]
    return list(np.split(inverse, splits))


def coalesce_arrays(idx: Any, val: Any, sizes: tuple[int, ...]) -> tuple[Any, Any]:
    """Sorted, duplicate-free indices and the summed values of each index."""
    nnz = idx.shape[1]
    if nnz < 2:
        return idx, val
    (keys,) = keys_of(idx, sizes=sizes)
    if bool((keys[1:] > keys[:-1]).all()):
        return idx, val
    order = np.argsort(keys, kind="stable")
    ks = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], ks[1:] != ks[:-1])))
    new_idx = idx[:, order[starts]]
    vals = val[order]
    if len(starts) == nnz:
        return new_idx, vals
    try:
        summed = np.add.reduceat(vals, starts, axis=0)
    except TypeError:  # dtypes without a reduceat loop (bfloat16): sum in float64
        summed = np.add.reduceat(vals.astype(np.float64), starts, axis=0).astype(vals.dtype)
    return new_idx, summed


def coalesce(t: Tensor) -> Tensor:
    """``t`` coalesced (a new tensor sharing the record when it already is)."""
    rec = record(t)
    if rec.coalesced:
        return alias(t)
    idx, val = np_of(rec.indices), np_of(rec.values)
    new_idx, new_val = coalesce_arrays(idx, val, t._shape[: idx.shape[0]])
    return make_sparse(
        rec.indices if new_idx is idx else new_idx,
        rec.values if new_val is val else new_val,
        t._shape,
        True,
    )


def gather(g: Tensor, idx: Any, sizes: tuple[int, ...]) -> Any:
    """The entries of ``g`` (dense, or sparse with the same sparse dims) at the index columns
    ``idx`` (a ``(sparse_dim, n)`` array, repeats allowed), as an ``(n, *dense)`` array."""
    if not is_sparse(g):
        return np_of(g)[tuple(idx)]
    gc = coalesce(g)
    grec = record(gc)
    gidx, gval = np_of(grec.indices), np_of(grec.values)
    if gidx.shape[0] != idx.shape[0]:
        return np_of(to_dense_tensor(gc))[tuple(idx)]
    gk, qk = keys_of(gidx, idx, sizes=sizes)
    out = np.zeros((idx.shape[1],) + gval.shape[1:], dtype=gval.dtype)
    if len(gk) and idx.shape[1]:
        pos = np.searchsorted(gk, qk)
        pos_c = np.minimum(pos, len(gk) - 1)
        found = gk[pos_c] == qk
        out[found] = gval[pos_c[found]]
    return out


def mask(g: Tensor, x: Tensor) -> Tensor:
    """``g`` (dense or sparse) restricted to the coalesced sparsity pattern of ``x``: a
    coalesced sparse tensor with ``x.coalesce()``'s indices (``g.sparse_mask(x)``)."""
    xc = coalesce(x)
    rec = record(xc)
    idx = np_of(rec.indices)
    vals = gather(g, idx, x._shape[: idx.shape[0]])
    return make_sparse(rec.indices, np.ascontiguousarray(vals), x._shape, True)


def to_dense_array(t: Tensor) -> Any:
    """A new dense NumPy array holding ``t``'s elements (duplicates summed)."""
    rec = record(t)
    idx, val = np_of(rec.indices), np_of(rec.values)
    out = np.zeros(t._shape, dtype=val.dtype)
    if idx.shape[1]:
        if rec.coalesced:
            out[tuple(idx)] = val
        else:
            np.add.at(out, tuple(idx), val)
    return out


def to_dense_tensor(t: Tensor) -> Tensor:
    """``t`` as a new dense CPU tensor."""
    return wrap(to_dense_array(t))


# ------------------------------------------------------------------ SciPy matrices
def as_scipy(t: Tensor) -> Any:
    """A SciPy CSR matrix of a coalesced 2-D tensor without dense dims, or None where SciPy
    does not fit: other shapes or dtypes, and hyper-sparse matrices (many more rows than
    non-zeros), whose ``indptr`` alone would dwarf the data. Cached on the record and sharing
    the values' memory, so in-place changes of the values reach it."""
    rec = record(t)
    m = rec._scipy
    if m is not None:
        return m
    if len(t._shape) != 2 or rec.values.ndim != 1 or not rec.coalesced:
        return None
    val = np_of(rec.values)
    nnz = val.shape[0]
    nrows = t._shape[0]
    if val.dtype not in SCIPY_DTYPES or nrows > 4 * nnz + 4096:
        return None
    idx = np_of(rec.indices)
    indptr = np.zeros(nrows + 1, dtype=np.int64)
    np.cumsum(np.bincount(idx[0], minlength=nrows), out=indptr[1:])
    m = sp.csr_matrix((val, idx[1], indptr), shape=t._shape, copy=False)
    m.has_canonical_format = True
    if np.shares_memory(m.data, val):
        rec._scipy = m
    return m


def from_scipy(m: Any, shape: tuple[int, ...], canonical: bool = False) -> Tensor:
    """A coalesced sparse tensor over a CSR matrix (its indices made lazily). ``canonical``
    vouches that ``m`` is sorted and duplicate-free (SciPy's binary operators keep canonical
    inputs canonical without saying so), which saves SciPy an O(nnz) check."""
    if canonical:
        m.has_canonical_format = True
    elif not m.has_canonical_format:
        m.sum_duplicates()
    return make_sparse(None, wrap(m.data), shape, True, m)


def store(out: Any, res: Tensor) -> Tensor:
    """Return a kernel's result, written into ``out`` when one is given (the in-place
    ``self`` or an ``out=`` argument), with PyTorch's casting check."""
    if out is None:
        return res
    if not tc.can_cast(res._dtype, out._dtype):
        raise RuntimeError(
            f"result type {res._dtype.name} can't be cast to the desired output type "
            f"{out._dtype.name}"
        )
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
        rec = record(make_sparse(rec.indices, rec.values.to(out._dtype), res._shape, rec.coalesced))
    record(out).replace(rec)
    return out


_NP_DTYPES: dict[tc.dtype, Any] = {}


def np_dtype(d: tc.dtype) -> Any:
    """The NumPy dtype the CPU backend stores ``d`` as."""
    hit = _NP_DTYPES.get(d)
    if hit is None:
        hit = _NP_DTYPES[d] = np_of(tc.empty(0, dtype=d, device="cpu")).dtype
    return hit
