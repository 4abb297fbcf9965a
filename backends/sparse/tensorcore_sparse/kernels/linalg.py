"""Matrix products with sparse operands: sparse @ dense and dense @ sparse (dense results),
sparse @ sparse (a sparse result).

A coalesced 2-D operand uses its cached SciPy CSR matrix (built once, sharing the values);
hyper-sparse operands (far more rows than non-zeros) and other dtypes use COO arithmetic in
NumPy, whose cost and memory follow the number of non-zeros, not the size.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from tensorcore import Tensor

from .._coo import (
    SCIPY_DTYPES,
    as_scipy,
    coalesce,
    coalesce_arrays,
    from_scipy,
    is_sparse,
    make_sparse,
    np_of,
    record,
    sparse_dim,
    store,
    wrap,
)

__all__ = ["KERNELS", "pairs"]


def _check(name: str, a: Tensor, b: Tensor) -> None:
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"{name}(): expected 2-D tensors, got {a.ndim}D and {b.ndim}D")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
            f"{b.shape[0]}x{b.shape[1]})"
        )
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"{name}(): expected both arguments to have the same dtype, but got: "
            f"{a.dtype.name} != {b.dtype.name}"
        )
    for t in (a, b):
        if is_sparse(t) and sparse_dim(t) != 2:
            raise NotImplementedError(
                f"{name}(): a sparse operand must have 2 sparse dims and no dense dims, got "
                f"sparse_dim={sparse_dim(t)}"
            )


def _coo(s: Tensor) -> Any:
    """A SciPy view of ``s`` (CSR when it is coalesced and not hyper-sparse, else COO), or
    None when SciPy does not support the dtype."""
    rec = record(s)
    if rec.coalesced:
        m = as_scipy(s)
        if m is not None:
            return m
    vals = np_of(rec.values)
    if vals.dtype not in SCIPY_DTYPES:
        return None
    idx = np_of(rec.indices)
    return sp.coo_matrix((vals, (idx[0], idx[1])), shape=s.shape)


def _sparse_dense(s: Tensor, d: Any) -> Any:
    """``s @ d`` for a sparse ``s`` and a NumPy ``d``: a new array."""
    m = _coo(s)
    if m is not None:
        return np.asarray(m @ d)
    rec = record(s)
    idx, vals = np_of(rec.indices), np_of(rec.values)
    out = np.zeros((s.shape[0], d.shape[1]), dtype=np.result_type(vals, d))
    np.add.at(out, idx[0], vals[:, None] * d[idx[1]])
    return out


def pairs(cols_a: Any, rows_b: Any) -> tuple[Any, Any]:
    """Every (i, j) with ``cols_a[i] == rows_b[j]``, for ``rows_b`` sorted: the terms of a
    sparse product, found by binary search (no dense row pointer)."""
    start = np.searchsorted(rows_b, cols_a, side="left")
    count = np.searchsorted(rows_b, cols_a, side="right") - start
    total = int(count.sum())
    pa = np.repeat(np.arange(len(cols_a)), count)
    offsets = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
    pb = np.repeat(start, count) + offsets
    return pa, pb


def _sparse_sparse(a: Tensor, b: Tensor) -> Tensor:
    ac, bc = coalesce(a), coalesce(b)
    ma, mb = as_scipy(ac), as_scipy(bc)
    shape = (a.shape[0], b.shape[1])
    if ma is not None and mb is not None:
        m = ma @ mb
        m.sort_indices()
        return from_scipy(m, shape, canonical=True)  # a CSR product has no duplicates
    ra, rb = record(ac), record(bc)
    ia, ib = np_of(ra.indices), np_of(rb.indices)
    va, vb = np_of(ra.values), np_of(rb.values)
    pa, pb = pairs(ia[1], ib[0])
    idx = np.stack([ia[0][pa], ib[1][pb]])
    idx, vals = coalesce_arrays(idx, va[pa] * vb[pb], shape)
    return make_sparse(idx, vals, shape, True)


def mm(self: Tensor, mat2: Tensor, out: Any = None) -> Tensor:
    _check("mm", self, mat2)
    if is_sparse(self) and is_sparse(mat2):
        return store(out, _sparse_sparse(self, mat2))
    if is_sparse(self):
        return store(out, wrap(_sparse_dense(self, np_of(mat2))))
    # dense @ sparse = (sparse.T @ dense.T).T
    return store(out, wrap(_sparse_dense_t(mat2, np_of(self)).T))


def _sparse_dense_t(s: Tensor, d: Any) -> Any:
    """``s.T @ d.T`` without transposing ``s``'s indices (SciPy's transpose is free)."""
    m = _coo(s)
    if m is not None:
        return np.asarray(m.T @ d.T)
    rec = record(s)
    idx, vals = np_of(rec.indices), np_of(rec.values)
    out = np.zeros((s.shape[1], d.shape[0]), dtype=np.result_type(vals, d))
    np.add.at(out, idx[1], vals[:, None] * d.T[idx[0]])
    return out


def matmul(self: Tensor, other: Tensor, out: Any = None) -> Tensor:
    if self.ndim == 2 and other.ndim == 2:
        return mm(self, other, out=out)
    if self.ndim == 2 and other.ndim == 1 and not is_sparse(other):
        return store(out, mm(self, other.unsqueeze(1)).squeeze(1))
    if self.ndim == 1 and other.ndim == 2 and not is_sparse(self):
        return store(out, mm(self.unsqueeze(0), other).squeeze(0))
    raise NotImplementedError(
        f"matmul(): sparse operands must be matrices (with a dense matrix or vector), got "
        f"{self.ndim}D and {other.ndim}D"
    )


#: (operator, device type, layout, kernel, direct)
KERNELS: list[tuple[str, str, str, Any, bool]] = [
    ("mm", "cpu", "sparse_coo", mm, True),
    ("matmul", "cpu", "sparse_coo", matmul, True),
]
