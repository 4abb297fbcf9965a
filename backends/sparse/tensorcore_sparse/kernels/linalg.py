"""Matrix products with sparse operands: sparse @ dense and dense @ sparse (dense results),
sparse @ sparse (a sparse result).

A coalesced 2-D operand uses its cached CSR matrix (SciPy's, or cupyx's on CUDA; built once,
sharing the values); hyper-sparse operands (far more rows than non-zeros) and other dtypes use
COO arithmetic in the array module, whose cost and memory follow the number of non-zeros, not
the size. Written once for every device type (:mod:`tensorcore_sparse._xp`).
"""

from __future__ import annotations

from typing import Any

from tensorcore import Tensor
from tensorcore.backend import dtype_name, ops

from .._coo import (
    ArrayNamespace,
    as_scipy,
    coalesce,
    coalesce_arrays,
    from_scipy,
    is_sparse,
    make_sparse,
    np_of,
    ns_of,
    record,
    sparse_dim,
    store,
)
from .._xp import DEVICE_TYPES

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


def _matrix(ns: ArrayNamespace, s: Tensor) -> Any:
    """A matrix of ``ns.sp`` viewing ``s`` (CSR when it is coalesced and not hyper-sparse,
    else COO where ``ns.sp`` multiplies COO directly), or None for the COO arithmetic."""
    rec = record(s)
    if rec.coalesced:
        m = as_scipy(s)
        if m is not None:
            return m
    vals = np_of(rec.values)
    if not ns.coo_products or vals.dtype not in ns.scipy_dtypes:
        return None
    idx = np_of(rec.indices)
    return ns.sp.coo_matrix((vals, (idx[0], idx[1])), shape=s.shape)


def _sparse_dense(ns: ArrayNamespace, s: Tensor, d: Any) -> Any:
    """``s @ d`` for a sparse ``s`` and a native ``d``: a new array."""
    xp = ns.xp
    m = _matrix(ns, s)
    if m is not None:
        return xp.asarray(m @ d)
    rec = record(s)
    idx, vals = np_of(rec.indices), np_of(rec.values)
    out = xp.zeros((s.shape[0], d.shape[1]), dtype=xp.result_type(vals.dtype, d.dtype))
    ns.add_at(out, idx[0], vals[:, None] * d[idx[1]])
    return out


def pairs(ns: ArrayNamespace, cols_a: Any, rows_b: Any) -> tuple[Any, Any]:
    """Every (i, j) with ``cols_a[i] == rows_b[j]``, for ``rows_b`` sorted: the terms of a
    sparse product, found by binary search (no dense row pointer)."""
    xp = ns.xp
    start = xp.searchsorted(rows_b, cols_a, side="left")
    count = xp.searchsorted(rows_b, cols_a, side="right") - start
    total = int(count.sum())
    pa = ns.repeat(xp.arange(len(cols_a)), count)
    offsets = xp.arange(total) - ns.repeat(xp.cumsum(count) - count, count)
    pb = ns.repeat(start, count) + offsets
    return pa, pb


def _sparse_sparse(a: Tensor, b: Tensor) -> Tensor:
    ns = ns_of(a)
    ac, bc = coalesce(a), coalesce(b)
    ma, mb = as_scipy(ac), as_scipy(bc)
    shape = (a.shape[0], b.shape[1])
    if ma is not None and mb is not None:
        m = ma @ mb
        m.sort_indices()
        return from_scipy(ns, m, shape, canonical=True)  # a CSR product has no duplicates
    ra, rb = record(ac), record(bc)
    ia, ib = np_of(ra.indices), np_of(rb.indices)
    va, vb = np_of(ra.values), np_of(rb.values)
    pa, pb = pairs(ns, ia[1], ib[0])
    idx = ns.xp.stack([ia[0][pa], ib[1][pb]])
    idx, vals = coalesce_arrays(ns, idx, va[pa] * vb[pb], shape)
    return make_sparse(ns, idx, vals, shape, True)


def mm(self: Tensor, mat2: Tensor, out: Any = None) -> Tensor:
    _check("mm", self, mat2)
    if is_sparse(self) and is_sparse(mat2):
        return store(out, _sparse_sparse(self, mat2))
    ns = ns_of(self)
    if is_sparse(self):
        return store(out, ns.wrap(_sparse_dense(ns, self, np_of(mat2))))
    # dense @ sparse = (sparse.T @ dense.T).T
    return store(out, ns.wrap(_sparse_dense_t(ns, mat2, np_of(self)).T))


def _sparse_dense_t(ns: ArrayNamespace, s: Tensor, d: Any) -> Any:
    """``s.T @ d.T`` without transposing ``s``'s indices (a CSR transpose is free)."""
    xp = ns.xp
    m = _matrix(ns, s)
    if m is not None:
        return xp.asarray(m.T @ d.T)
    rec = record(s)
    idx, vals = np_of(rec.indices), np_of(rec.values)
    out = xp.zeros((s.shape[1], d.shape[0]), dtype=xp.result_type(vals.dtype, d.dtype))
    ns.add_at(out, idx[1], vals[:, None] * d.T[idx[0]])
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


def mv(self: Tensor, vec: Tensor, out: Any = None) -> Tensor:
    """A sparse matrix times a dense vector: a dense vector."""
    if self.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.ndim}, {vec.ndim}")
    if is_sparse(vec):
        raise RuntimeError("mv(): the vector must be dense")
    if self.shape[1] != vec.shape[0]:
        raise RuntimeError("mv: expected self.size(-1) == vec.size(-1)")
    return store(out, mm(self, vec.unsqueeze(1)).squeeze(1))


def bmm(self: Tensor, mat2: Tensor, out: Any = None) -> Tensor:
    """A batch of sparse matrices (a 3-D tensor with 3 sparse dims) times a batch of dense
    ones: a dense ``(b, n, p)`` result, one scatter-add over the entries."""
    if not is_sparse(self) or is_sparse(mat2):
        raise RuntimeError("bmm_sparse: Tensor 'mat2' must be dense")
    if self.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError(f"bmm_sparse: Expected self to be 3D, got {self.ndim}D")
    if sparse_dim(self) != 3:
        raise RuntimeError(
            f"bmm_sparse: Expected self to have 3 sparse dims, got {sparse_dim(self)}"
        )
    b, n, m = self.shape
    if mat2.shape[0] != b or mat2.shape[1] != m:
        raise RuntimeError(
            f"bmm_sparse: Expected self and mat2 to have matching batch and inner sizes, got "
            f"{list(self.shape)} and {list(mat2.shape)}"
        )
    if self.dtype is not mat2.dtype:
        raise RuntimeError(
            f"bmm(): expected both arguments to have the same dtype, but got: "
            f"{self.dtype.name} != {mat2.dtype.name}"
        )
    ns = ns_of(self)
    xp = ns.xp
    rec = record(self)
    idx, vals = np_of(rec.indices), np_of(rec.values)
    d = np_of(mat2)
    p = d.shape[2]
    res = xp.zeros((b * n, p), dtype=xp.result_type(vals.dtype, d.dtype))
    ns.add_at(res, idx[0] * n + idx[1], vals[:, None] * d[idx[0], idx[2]])
    return store(out, ns.wrap(res.reshape(b, n, p)))


def _row_products(self: Tensor, mat2: Tensor, name: str) -> tuple[Any, Any]:
    """``(rows, block)``: the rows of the sparse matrix ``self`` that have entries (sorted)
    and those rows of ``self @ mat2`` (a native array), computed from the entries alone."""
    if not is_sparse(self) or sparse_dim(self) != 2 or self.ndim != 2:
        raise RuntimeError(f"{name}(): expected a 2-D sparse COO matrix, got {self.ndim}D")
    if is_sparse(mat2) or mat2.ndim != 2:
        raise RuntimeError(f"{name}(): the second operand must be a dense matrix")
    if self.shape[1] != mat2.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({self.shape[0]}x{self.shape[1]} and "
            f"{mat2.shape[0]}x{mat2.shape[1]})"
        )
    ns = ns_of(self)
    xp = ns.xp
    rec = record(self)
    idx, vals = np_of(rec.indices), np_of(rec.values)
    rows, inverse = xp.unique(idx[0], return_inverse=True)
    d = np_of(mat2)
    block = xp.zeros((rows.shape[0], d.shape[1]), dtype=xp.result_type(vals.dtype, d.dtype))
    ns.add_at(block, inverse.reshape(-1), vals[:, None] * d[idx[1]])
    return rows, block


def hspmm(mat1: Tensor, mat2: Tensor, out: Any = None) -> Tensor:
    """``mat1 @ mat2`` as a hybrid COO tensor: one sparse dim (the rows of ``mat1`` that
    have entries) and one dense dim (PyTorch's ``torch.hspmm``)."""
    rows, block = _row_products(mat1, mat2, "hspmm")
    ns = ns_of(mat1)
    shape = (mat1.shape[0], mat2.shape[1])
    # (coalesced in fact; flagged uncoalesced, as PyTorch flags its result)
    return store(out, make_sparse(ns, rows[None], block, shape, False))


def smm(self: Tensor, mat2: Tensor) -> Tensor:
    """``self @ mat2`` as a COO matrix with every column of the rows of ``self`` that have
    entries (PyTorch's ``torch.smm``)."""
    rows, block = _row_products(self, mat2, "smm")
    ns = ns_of(self)
    p = block.shape[1]
    return make_sparse(
        ns, _rows_indices(ns.xp, rows, p), block.reshape(-1), (self.shape[0], p), False
    )


def _rows_indices(xp: Any, rows: Any, p: int) -> Any:
    """The (2, len(rows) * p) COO indices of every column ``0 .. p - 1`` of each of ``rows``,
    row after row (``smm``'s and ``sspaddmm``'s product entries)."""
    return xp.stack([xp.repeat(rows, p), xp.tile(xp.arange(p, dtype=xp.int64), rows.shape[0])])


def sspaddmm(
    self: Tensor, mat1: Tensor, mat2: Tensor, beta: Any = 1, alpha: Any = 1, out: Any = None
) -> Tensor:
    """``beta * self + alpha * (mat1 @ mat2)`` with sparse ``self`` and ``mat1`` and a dense
    ``mat2``, as a sparse COO matrix (PyTorch's ``torch.sspaddmm``): ``self``'s entries scaled
    by ``beta``, then every column of the rows of ``mat1`` that have entries scaled by
    ``alpha``, uncoalesced."""
    for arg, t, want in (("self", self, True), ("mat1", mat1, True), ("mat2", mat2, False)):
        if is_sparse(t) is not want:
            have = "Sparse" if is_sparse(t) else "Strided"
            raise RuntimeError(
                f"sspaddmm: expected '{arg}' to have {'sparse' if want else 'strided'} layout, "
                f"got '{arg}' with layout {have}"
            )
    if self.ndim != 2 or sparse_dim(self) != 2:
        raise RuntimeError(
            f"sspaddmm: expected 'self' to be a sparse matrix (2 sparse dims, no dense dims), "
            f"got size {list(self.shape)} with sparse_dim={sparse_dim(self)}"
        )
    if len({self.dtype, mat1.dtype, mat2.dtype}) != 1:
        raise RuntimeError(
            "sspaddmm: expected self, mat1 and mat2 to have the same dtype, but got "
            f"{dtype_name(self.dtype)}, {dtype_name(mat1.dtype)} and {dtype_name(mat2.dtype)}"
        )
    if mat1.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(
            f"sspaddmm: expected 2-D mat1 and mat2, got {mat1.ndim}-D and {mat2.ndim}-D"
        )
    n, m = mat1.shape[0], mat2.shape[1]
    if mat2.shape[0] != mat1.shape[1]:
        raise RuntimeError(
            f"sspaddmm: Argument #3: Expected dim 0 size {mat1.shape[1]}, got {mat2.shape[0]}"
        )
    for dim, want_size in ((0, n), (1, m)):
        if self.shape[dim] != want_size:
            raise RuntimeError(
                f"sspaddmm: Argument #1: Expected dim {dim} size {want_size}, got {self.shape[dim]}"
            )
    rows, block = _row_products(mat1, mat2, "sspaddmm")
    ns = ns_of(self)
    xp = ns.xp
    rec = record(self)
    vals = xp.concatenate([np_of(rec.values) * beta, block.reshape(-1) * alpha])
    idx = xp.concatenate([np_of(rec.indices), _rows_indices(xp, rows, m)], axis=1)
    return store(out, make_sparse(ns, idx, vals.astype(block.dtype, copy=False), (n, m), False))


def addmm(
    self: Tensor, mat1: Tensor, mat2: Tensor, beta: Any = 1, alpha: Any = 1, out: Any = None
) -> Tensor:
    """``beta * self + alpha * (mat1 @ mat2)`` with a sparse factor and a dense ``self``
    (``torch.addmm(bias, adjacency, features)``): dense, as PyTorch's."""
    if is_sparse(self):
        raise RuntimeError(
            "addmm_sparse_dense: expected strided result tensor, got tensor with layout Sparse"
        )
    prod = mm(mat1, mat2)
    if alpha != 1:
        prod = prod * alpha
    # (beta = 0 ignores self, nan and inf included, as PyTorch's)
    bias = ops.zeros_like(self) if beta == 0 else (self * beta if beta != 1 else self)
    res = prod + bias
    if tuple(res.shape) != tuple(prod.shape):
        raise RuntimeError(
            f"The expanded size of the tensor ({prod.shape[-1]}) must match the existing size "
            f"({res.shape[-1]}) at non-singleton dimension 1"
        )
    return store(out, res)


#: (operator, device type, layout, kernel, direct)
KERNELS: list[tuple[str, str, str, Any, bool]] = [
    (op, device, "sparse_coo", fn, True)
    for device in DEVICE_TYPES
    for op, fn in (
        ("addmm", addmm),
        ("mm", mm),
        ("matmul", matmul),
        ("mv", mv),
        ("bmm", bmm),
        ("hspmm", hspmm),
        ("smm", smm),
        ("sspaddmm", sspaddmm),
    )
]
