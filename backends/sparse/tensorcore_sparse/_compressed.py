"""The compressed sparse record (CSR and CSC) and its conversions to and from COO and dense.

A compressed tensor is a :class:`~tensorcore.Tensor` with no storage, the ``sparse_csr`` or
``sparse_csc`` layout and a :class:`CompressedRecord` as its native object, as PyTorch's
2-D compressed tensors:

- ``compressed``: the row pointer of a CSR matrix (``crow_indices``, ``nrows + 1`` entries,
  from 0 to nnz) or the column pointer of a CSC one (``ccol_indices``);
- ``plain``: the column of each entry of a CSR matrix (``col_indices``), sorted and distinct
  within a row, or the row of each entry of a CSC one (``row_indices``);
- ``values``: one value per entry.

The indices are int64 or int32 (as given), on the values' device. A CSC matrix of size
``(m, n)`` holds the same three arrays as the CSR matrix of its transpose, so ``t()`` swaps
the layout and shares everything.

The kernels compute with these arrays directly where the pattern does not change (values
alone: scaling, zero-preserving unary functions), and through the COO layout otherwise: a CSR
matrix is a coalesced COO tensor whose indices are made lazily from a SciPy (cupyx) CSR
matrix over the same memory, so :func:`to_coo` copies nothing for the dtypes SciPy
multiplies, and the COO kernels' products and sums run on that matrix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tensorcore import Tensor
from tensorcore.backend import check_cast, make_tensor
from tensorcore.layouts import get_layout

from ._coo import coalesce, from_scipy, is_sparse, make_sparse, np_of, record
from ._xp import ArrayNamespace, ns_of

if TYPE_CHECKING:
    from tensorcore.layouts import layout

__all__ = [
    "COMPRESSED",
    "CompressedRecord",
    "compressed_dim",
    "crecord",
    "expanded",
    "from_coo",
    "from_dense",
    "is_compressed",
    "layout_word",
    "make_compressed",
    "store_compressed",
    "to_coo",
    "to_dense_array",
    "with_index_dtype",
]

#: The compressed layouts this plugin implements: name -> (the compressed dim, the names of
#: the compressed and the plain indices, as PyTorch's accessors and ``repr`` call them).
COMPRESSED: dict[str, tuple[int, str, str]] = {
    "sparse_csr": (0, "crow_indices", "col_indices"),
    "sparse_csc": (1, "ccol_indices", "row_indices"),
}

#: PyTorch's C++ names of the layouts, which its error messages print.
_WORDS = {
    "strided": "Strided",
    "sparse_coo": "Sparse",
    "sparse_csr": "SparseCsr",
    "sparse_csc": "SparseCsc",
    "sparse_bsr": "SparseBsr",
    "sparse_bsc": "SparseBsc",
}

_LAYOUTS: dict[str, layout] = {}


def layout_word(lay: Any) -> str:
    """PyTorch's name of a layout in messages (``SparseCsr``)."""
    return _WORDS.get(lay.name, lay.name)


def _layout(name: str) -> layout:
    hit = _LAYOUTS.get(name)
    if hit is None:
        lay = get_layout(name)
        assert lay is not None, f"the {name} layout is not registered"
        hit = _LAYOUTS[name] = lay
    return hit


class CompressedRecord:
    """The native record of a CSR or CSC tensor (``Tensor._native``).

    Its :attr:`version` is the tensor's version counter, shared by every tensor over the
    record (``detach()``, autograd's saved tensors) and moved by writes through
    ``values()`` and the index accessors, as :class:`~tensorcore_sparse._coo.SparseRecord`'s.
    """

    __slots__ = ("_bumps", "_coo", "compressed", "plain", "values")

    def __init__(self, compressed: Tensor, plain: Tensor, values: Tensor) -> None:
        self.compressed = compressed
        self.plain = plain
        self.values = values
        self._bumps = 0
        #: A CSR matrix's COO form (:func:`to_coo`), made on first need and kept: it shares
        #: the values' memory, so writes through ``values()`` reach it.
        self._coo: Tensor | None = None

    @property
    def version(self) -> int:
        """The version counter (the parts' counters plus the in-place bumps)."""
        return self._bumps + self.values._version + self.compressed._version + self.plain._version

    @version.setter
    def version(self, value: int) -> None:
        self._bumps += value - self.version

    def replace(self, other: CompressedRecord) -> None:
        """Take ``other``'s contents (an in-place operator's ``self``), keeping the version."""
        before = self.version
        self.compressed, self.plain, self.values = other.compressed, other.plain, other.values
        self._coo = other._coo
        self.version = before


def is_compressed(x: Any) -> bool:
    """Whether ``x`` is a CSR or CSC tensor."""
    return isinstance(x, Tensor) and isinstance(x._native, CompressedRecord)


def crecord(t: Tensor) -> CompressedRecord:
    """The record of a compressed tensor."""
    rec = t._native
    if not isinstance(rec, CompressedRecord):
        raise TypeError(f"expected a sparse compressed tensor, got layout {t._layout.name}")
    return rec


def compressed_dim(t: Tensor) -> int:
    """0 for a CSR tensor (rows are compressed), 1 for a CSC one."""
    return COMPRESSED[t._layout.name][0]


def make_compressed(
    ns: ArrayNamespace | None,
    compressed: Any,
    plain: Any,
    values: Any,
    shape: tuple[int, ...],
    layout_name: str,
) -> Tensor:
    """A compressed tensor over the three parts: tensors, or native arrays of ``ns`` (int64
    indices then)."""
    parts = []
    for a in (compressed, plain):
        if not isinstance(a, Tensor):
            assert ns is not None, "native indices need the namespace that wraps them"
            a = ns.wrap(ns.xp.ascontiguousarray(a, dtype=ns.xp.int64))
        parts.append(a)
    if not isinstance(values, Tensor):
        assert ns is not None, "native values need the namespace that wraps them"
        values = ns.wrap(ns.xp.ascontiguousarray(values))
    rec = CompressedRecord(parts[0], parts[1], values)
    shape = tuple(shape)
    return make_tensor(
        None, shape, (0,) * len(shape), 0, values._dtype, values._device, rec, _layout(layout_name)
    )


# ------------------------------------------------------------------ to and from COO
def expanded(ns: ArrayNamespace, pointer: Any) -> Any:
    """The compressed index of each entry (``0, 0, 1, ...``) from a pointer array."""
    xp = ns.xp
    n = pointer.shape[0] - 1
    return ns.repeat(xp.arange(n, dtype=xp.int64), xp.diff(pointer).astype(xp.int64))


def to_coo(t: Tensor) -> Tensor:
    """``t`` as a coalesced COO tensor over the same values. A CSR matrix of a dtype SciPy
    (cupyx) multiplies becomes a COO tensor holding that CSR matrix, its indices made only
    when asked: nothing is copied."""
    rec = crecord(t)
    if rec._coo is not None:
        return rec._coo
    ns = ns_of(t)
    xp = ns.xp
    ptr, plain, vals = np_of(rec.compressed), np_of(rec.plain), np_of(rec.values)
    if compressed_dim(t) == 0:
        if vals.dtype in ns.scipy_dtypes:
            m = ns.csr(vals, plain, ptr, tuple(t._shape))
            coo = from_scipy(ns, m, tuple(t._shape), canonical=True)
            if not ns.shares_memory(np_of(record(coo).values), vals):
                return coo  # (SciPy copied the values: a cached copy would go stale)
        else:
            idx = xp.stack([expanded(ns, ptr), plain.astype(xp.int64)])
            coo = make_sparse(ns, idx, rec.values, tuple(t._shape), True)
        rec._coo = coo
        return coo
    # CSC: the entries are column-major; a stable sort by row makes them row-major.
    cols = expanded(ns, ptr)
    rows = plain.astype(xp.int64)
    order = ns.argsort_stable(rows)
    idx = xp.stack([rows[order], cols[order]])
    return make_sparse(ns, idx, xp.ascontiguousarray(vals[order]), tuple(t._shape), True)


def _pointer(ns: ArrayNamespace, keys: Any, n: int) -> Any:
    """The pointer array of sorted compressed indices ``keys`` over ``n`` rows (columns)."""
    xp = ns.xp
    ptr = xp.zeros(n + 1, dtype=xp.int64)
    if keys.shape[0]:
        xp.cumsum(xp.bincount(keys, minlength=n), out=ptr[1:])
    return ptr


def from_coo(s: Tensor, layout_name: str) -> Tensor:
    """The 2-D COO tensor ``s`` (no dense dims) as a compressed tensor of ``layout_name``."""
    if s.ndim != 2 or record(s).values.ndim != 1:
        raise RuntimeError(
            f"coo_to_sparse_{layout_name[7:]}: conversion from Sparse to "
            f"{_WORDS[layout_name]} for input tensors with sparse_dim()!=2 is not supported"
        )
    ns = ns_of(s)
    sc = coalesce(s)
    rec = record(sc)
    m = rec._scipy
    if layout_name == "sparse_csr" and m is not None:
        # (a product's or a sum's CSR matrix, or the one to_coo wrapped: canonical)
        return make_compressed(ns, m.indptr, m.indices, rec.values, tuple(s._shape), layout_name)
    idx, vals = np_of(rec.indices), rec.values
    if layout_name == "sparse_csr":
        ptr = _pointer(ns, idx[0], s._shape[0])
        return make_compressed(ns, ptr, idx[1], vals, tuple(s._shape), layout_name)
    order = ns.argsort_stable(idx[1])  # row-major to column-major (stable: rows stay sorted)
    ptr = _pointer(ns, idx[1][order], s._shape[1])
    v = np_of(vals)[order]
    return make_compressed(ns, ptr, idx[0][order], v, tuple(s._shape), layout_name)


def from_dense(d: Tensor, layout_name: str) -> Tensor:
    """The non-zero elements of the 2-D dense ``d`` as a compressed tensor."""
    ns = ns_of(d)
    xp = ns.xp
    arr = np_of(d)
    if layout_name == "sparse_csc":
        rows_major = arr.T
        cols, rows = xp.nonzero(rows_major)
        ptr = _pointer(ns, cols.astype(xp.int64), arr.shape[1])
        vals = xp.ascontiguousarray(rows_major[cols, rows])
        return make_compressed(ns, ptr, rows, vals, tuple(d._shape), layout_name)
    rows, cols = xp.nonzero(arr)
    ptr = _pointer(ns, rows.astype(xp.int64), arr.shape[0])
    vals = xp.ascontiguousarray(arr[rows, cols])
    return make_compressed(ns, ptr, cols, vals, tuple(d._shape), layout_name)


def with_index_dtype(t: Tensor, like: Tensor) -> Tensor:
    """``t`` (compressed) with the index dtype of the compressed ``like`` (int32 indices stay
    int32 through a conversion or a sum of matrices, as in PyTorch)."""
    rec, dtype = crecord(t), crecord(like).compressed._dtype
    if rec.compressed._dtype is dtype:
        return t
    return make_compressed(
        None,
        rec.compressed.to(dtype),
        rec.plain.to(dtype),
        rec.values,
        tuple(t._shape),
        t._layout.name,
    )


def to_dense_array(t: Tensor) -> Any:
    """A new dense native array holding ``t``'s elements."""
    ns = ns_of(t)
    xp = ns.xp
    rec = crecord(t)
    ptr, plain, vals = np_of(rec.compressed), np_of(rec.plain), np_of(rec.values)
    out = xp.zeros(tuple(t._shape), dtype=vals.dtype)
    if vals.shape[0]:
        major = expanded(ns, ptr)
        if compressed_dim(t) == 0:
            out[major, plain] = vals
        else:
            out[plain, major] = vals
    return out


def store_compressed(out: Any, res: Any) -> Any:
    """Return a kernel's result, written into ``out`` when one is given: a compressed ``out``
    (an in-place call's ``self``) takes the result's parts, converted to its layout; a dense
    one its elements. PyTorch's casting and size checks."""
    if out is None:
        return res
    check_cast(res._dtype, out._dtype)
    if tuple(out._shape) != tuple(res._shape):
        raise RuntimeError(
            f"output with shape {list(out._shape)} doesn't match the result shape "
            f"{list(res._shape)}"
        )
    if not is_compressed(out):
        if is_compressed(res):
            res = ns_of(res).wrap(to_dense_array(res))
        elif is_sparse(res):
            res = res.to_dense()
        if is_sparse(out):
            raise RuntimeError("a compressed sparse result cannot be written into a COO tensor")
        out.copy_(res)
        return out
    if not is_compressed(res):
        if not is_sparse(res):
            raise RuntimeError(
                "a dense result cannot be written into a sparse compressed tensor in place"
            )
        res = from_coo(res, out._layout.name)
    elif res._layout is not out._layout:
        res = from_coo(to_coo(res), out._layout.name)
    rec = crecord(res)
    if res._dtype is not out._dtype:
        rec = CompressedRecord(rec.compressed, rec.plain, rec.values.to(out._dtype))
    crecord(out).replace(rec)
    return out
