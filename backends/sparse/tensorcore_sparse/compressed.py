"""Taking compressed sparse tensors (CSR, CSC) apart and converting them (they are made in
:mod:`tensorcore_sparse.construct_compressed`): the conversions (``to_sparse_csr``,
``to_sparse_csc``, ``to_sparse(layout=...)``, ``to_dense``, ``to_sparse``), the accessors
(``crow_indices()``, ``col_indices()``, ``ccol_indices()``, ``row_indices()``, ``values()``,
``_nnz()``) and the copies (``clone``, ``to(dtype)``, ``to(device)``, ``copy_``).

PyTorch's blocked layouts (``sparse_bsr``, ``sparse_bsc``) exist as layout objects only: a
conversion to one raises ``NotImplementedError`` naming the layouts that are supported.
"""

from __future__ import annotations

from typing import Any

import tensorcore as tc
from tensorcore import Tensor

from ._compressed import (
    COMPRESSED,
    compressed_dim,
    crecord,
    from_coo,
    from_dense,
    is_compressed,
    layout_word,
    make_compressed,
    store_compressed,
    to_coo,
    to_dense_array,
    with_index_dtype,
)
from ._coo import alias, is_sparse, ns_of
from ._xp import DEVICE_TYPES
from .construct import to_sparse as dense_to_coo
from .construct import to_sparse_sparse, zeros_in_layout

__all__ = ["KERNELS", "to_sparse", "to_sparse_csc", "to_sparse_csr"]

#: What ``to_sparse(layout=...)`` converts to, as a sentence for the refusals.
SUPPORTED = "tensorcore.sparse_coo, tensorcore.sparse_csr and tensorcore.sparse_csc"


# ------------------------------------------------------------------ conversions
def _refuse_blocked(name: str) -> NotImplementedError:
    return NotImplementedError(
        f"conversion to the {name} layout is not implemented by tensorcore-sparse; supported "
        f"layouts: {SUPPORTED} (and tensorcore.strided)"
    )


def _check_dense_dim(fn: str, dense_dim: int | None, src: str) -> None:
    if dense_dim is not None and dense_dim != 0:
        raise NotImplementedError(
            f"{fn}: dense_dim={dense_dim}: hybrid compressed tensors (with dense dims) are "
            f"not supported by tensorcore-sparse ({src})"
        )


def _dense_to(self: Tensor, name: str, dense_dim: int | None) -> Tensor:
    fn = f"dense_to_sparse_{name[7:]}"
    if self.ndim < 2:
        raise RuntimeError(
            f"{fn}: expected a tensor of at least 2 dims (a matrix), got {self.ndim}-D"
        )
    _check_dense_dim(fn, dense_dim, "only 2-D matrices are")
    if self.ndim > 2:
        raise NotImplementedError(
            f"{fn}: batched compressed tensors are not supported by tensorcore-sparse: only "
            f"2-D matrices are, got {self.ndim}-D"
        )
    return from_dense(self, name)


def _to_layout(self: Tensor, name: str, dense_dim: int | None) -> Tensor:
    """``self`` (any layout) converted to the compressed layout ``name``."""
    if is_compressed(self):
        if self._layout.name == name:
            return alias(self)
        return with_index_dtype(from_coo(to_coo(self), name), self)
    if is_sparse(self):
        _check_dense_dim(f"coo_to_sparse_{name[7:]}", dense_dim, "only 2-D matrices are")
        return from_coo(self, name)
    return _dense_to(self, name, dense_dim)


def to_sparse_csr(self: Tensor, dense_dim: int | None = None) -> Tensor:
    """The CSR form of a dense, COO, CSR (an alias) or CSC matrix."""
    return _to_layout(self, "sparse_csr", dense_dim)


def to_sparse_csc(self: Tensor, dense_dim: int | None = None) -> Tensor:
    """The CSC form of a dense, COO, CSR or CSC (an alias) matrix."""
    return _to_layout(self, "sparse_csc", dense_dim)


def to_sparse_blocked(self: Tensor, blocksize: Any, dense_dim: int | None = None) -> Tensor:
    """``to_sparse_bsr``/``to_sparse_bsc``: not implemented (the registry's message would
    not say what is supported)."""
    raise _refuse_blocked("blocked (sparse_bsr, sparse_bsc)")


def to_sparse(
    self: Tensor,
    sparse_dim: int | None = None,
    layout: Any = None,
    blocksize: Any = None,
    dense_dim: int | None = None,
) -> Tensor:
    """``to_sparse()`` of any layout: COO by default (``sparse_dim`` sparse dims), else the
    layout asked for."""
    if sparse_dim is not None and (layout is not None or blocksize is not None or dense_dim):
        raise TypeError(
            "to_sparse(): sparse_dim cannot be given with layout, blocksize or dense_dim (they "
            "are two overloads: to_sparse(sparse_dim) and to_sparse(*, layout=None, "
            "blocksize=None, dense_dim=None))"
        )
    name = "sparse_coo" if layout is None else layout.name
    if name in COMPRESSED:
        if blocksize is not None:
            raise RuntimeError(
                f"to_sparse: blocksize is only supported for the blocked layouts, not for {name}"
            )
        return _to_layout(self, name, dense_dim)
    if name == "strided":
        return self.view_as(self) if self._layout.name == "strided" else self.to_dense()
    if name != "sparse_coo":
        raise _refuse_blocked(name)
    if dense_dim is not None and sparse_dim is None:
        sparse_dim = self.ndim - dense_dim
    if is_compressed(self):
        if sparse_dim is not None and sparse_dim != 2:
            raise RuntimeError(
                f"sparse_compressed_to_sparse: conversion from {layout_word(self._layout)} to "
                "Sparse with sparse_dim argument !=2 is not supported"
            )
        return to_coo(self)
    if is_sparse(self):
        return to_sparse_sparse(self, sparse_dim)
    return dense_to_coo(self, sparse_dim)


def to_dense(self: Tensor, dtype: tc.dtype | None = None) -> Tensor:
    """A dense copy of a compressed tensor."""
    if dtype is not None:
        raise RuntimeError(
            f"dtype argument is not supported by sparse_{self._layout.name[7:]}_to_dense"
        )
    return ns_of(self).wrap(to_dense_array(self))


# ------------------------------------------------------------------ accessors
def _accessor(name: str, compressed: bool) -> tuple[Any, Any]:
    """The kernel of ``crow_indices`` and its kin for their layout, and the wildcard one
    raising PyTorch's error for every other layout."""
    kind = "row" if name in ("crow_indices", "col_indices") else "column"

    def ok(self: Tensor) -> Tensor:
        rec = crecord(self)
        return (rec.compressed if compressed else rec.plain).detach()

    def refuse(self: Tensor) -> Tensor:
        raise RuntimeError(
            f"{name} expected sparse {kind} compressed tensor layout but got "
            f"{layout_word(self._layout)}"
        )

    ok.__name__ = refuse.__name__ = name
    return ok, refuse


def _refusal(name: str, kind: str) -> Any:
    """The wildcard kernel of a sparse accessor for the layouts it does not take (PyTorch's
    ``RuntimeError``: ``indices expected sparse coordinate tensor layout but got SparseCsr``);
    the layouts that take it register their own, more specific, kernels."""

    def refuse(self: Tensor) -> Any:
        raise RuntimeError(
            f"{name} expected {kind} tensor layout but got {layout_word(self._layout)}"
        )

    refuse.__name__ = name
    return refuse


_REFUSALS = [
    ("indices", "sparse coordinate"),
    ("coalesce", "sparse coordinate"),
    ("is_coalesced", "sparse coordinate"),
    ("values", "sparse"),
]


def values(self: Tensor) -> Tensor:
    return crecord(self).values.detach()


def _nnz(self: Tensor) -> int:
    return int(crecord(self).values.shape[0])


def _sparse_dim(self: Tensor) -> int:
    return 2


def _dense_dim(self: Tensor) -> int:
    return 0


def clone(self: Tensor, memory_format: Any = None, out: Any = None) -> Tensor:
    rec = crecord(self)
    res = make_compressed(
        None,
        rec.compressed.clone(),
        rec.plain.clone(),
        rec.values.clone(),
        tuple(self.shape),
        self._layout.name,
    )
    return store_compressed(out, res)


def to_dtype(self: Tensor, dtype: tc.dtype, out: Any = None) -> Tensor:
    rec = crecord(self)
    vals = rec.values.to(dtype)
    if vals is rec.values:
        vals = vals.detach()
    res = make_compressed(
        None, rec.compressed, rec.plain, vals, tuple(self.shape), self._layout.name
    )
    return store_compressed(out, res)


def to_device(self: Tensor, device: Any, non_blocking: bool = False) -> Tensor:
    rec = crecord(self)
    return make_compressed(
        None,
        rec.compressed.to(device),
        rec.plain.to(device),
        rec.values.to(device),
        tuple(self.shape),
        self._layout.name,
    )


def copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """``compressed.copy_(compressed)``: ``src``'s pattern and values (cast, moved)."""
    if not is_compressed(self) or not is_compressed(src) or self._layout is not src._layout:
        raise NotImplementedError(
            f"copy_(): copying a {src._layout.name} tensor into a {self._layout.name} one is "
            "not supported; convert it first (to_dense(), to_sparse_csr(), to_sparse_csc())"
        )
    if self.shape != src.shape:
        raise RuntimeError(
            f"copy_(): a tensor of size {list(src.shape)} cannot be copied into one of size "
            f"{list(self.shape)}"
        )
    rec = crecord(src)
    vals = rec.values.to(device=self.device, dtype=self.dtype, copy=True)
    new = make_compressed(
        None,
        rec.compressed.to(self.device),
        rec.plain.to(self.device),
        vals,
        tuple(self.shape),
        self._layout.name,
    )
    crecord(self).replace(crecord(new))
    return self


def zero_(self: Tensor) -> Tensor:
    """Remove every entry: the pointer all zeros, nnz 0 (PyTorch's compressed ``zero_``)."""
    crecord(self).replace(crecord(zeros_like(self)))
    return self


def zeros_like(
    self: Tensor,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    layout: Any = None,
) -> Tensor:
    """A compressed matrix without entries, of ``self``'s size and layout (PyTorch's); with
    another ``layout=``, that layout's zeros."""
    if layout is not None and layout is not self.layout:
        return zeros_in_layout(self, dtype, device, memory_format, layout)
    if memory_format is not None:
        raise RuntimeError(
            "zeros_like(): memory format option is only supported by strided tensors"
        )
    dev = device or self.device
    rec = crecord(self)
    n = self.shape[compressed_dim(self)]
    ptr = tc.zeros(n + 1, dtype=rec.compressed.dtype, device=dev)
    plain = tc.zeros(0, dtype=rec.plain.dtype, device=dev)
    vals = tc.zeros(0, dtype=dtype or self.dtype, device=dev)
    return make_compressed(None, ptr, plain, vals, tuple(self.shape), self._layout.name)


def _zeros_of(name: str) -> Any:
    def zeros(
        size: Any,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
        memory_format: Any = None,
    ) -> Tensor:
        """``tc.zeros(rows, cols, layout=...)`` (and ``tc.empty``, ``x.new_zeros``): a
        compressed matrix without entries, as PyTorch makes it."""
        if memory_format is not None:
            raise RuntimeError("memory format option is only supported by strided tensors")
        if len(size) != 2:
            raise RuntimeError(
                f"{name} tensors of {len(size)} dims are not supported here (only matrices)"
            )
        vals = tc.zeros(0, dtype=dtype, device=device)
        n = size[0] if name == "sparse_csr" else size[1]
        ptr = tc.zeros(n + 1, dtype=tc.int64, device=vals.device)
        plain = tc.zeros(0, dtype=tc.int64, device=vals.device)
        return make_compressed(None, ptr, plain, vals, tuple(size), name)

    return zeros


_ACCESSORS = [
    (name, *_accessor(name, name in ("crow_indices", "ccol_indices")))
    for name in ("crow_indices", "col_indices", "ccol_indices", "row_indices")
]
_OWN = {"crow_indices": "sparse_csr", "col_indices": "sparse_csr"}

#: (operator, device type, layout, kernel, direct) registered by the plugin.
KERNELS: list[tuple[str, str, str, Any, bool]] = [
    *((name, "*", "*", refuse, False) for name, _, refuse in _ACCESSORS),
    *((name, "*", "*", _refusal(name, kind), False) for name, kind in _REFUSALS),
    *((name, "*", _OWN.get(name, "sparse_csc"), ok, False) for name, ok, _ in _ACCESSORS),
    *(
        (op, device, layout, fn, False)
        for device in DEVICE_TYPES
        for layout in ("strided", "sparse_coo", *COMPRESSED)
        for op, fn in (("to_sparse_csr", to_sparse_csr), ("to_sparse_csc", to_sparse_csc))
    ),
    *(
        (op, device, layout, fn, False)
        for device in DEVICE_TYPES
        for layout in COMPRESSED
        for op, fn in (
            ("to_dense", to_dense),
            ("to_sparse", to_sparse),
            ("to_sparse_coo", to_sparse),
        )
    ),
    *(
        (op, device, "strided", to_sparse, False)
        for device in DEVICE_TYPES
        for op in ("to_sparse", "to_sparse_coo")
    ),
    ("to_sparse", "*", "sparse_coo", to_sparse, False),
    ("to_sparse_coo", "*", "sparse_coo", to_sparse, False),
    ("to_sparse_bsr", "*", "*", to_sparse_blocked, False),
    ("to_sparse_bsc", "*", "*", to_sparse_blocked, False),
    *(
        (op, "*", layout, fn, direct)
        for layout in COMPRESSED
        for op, fn, direct in (
            ("values", values, False),
            ("_nnz", _nnz, False),
            ("sparse_dim", _sparse_dim, False),
            ("dense_dim", _dense_dim, False),
            ("clone", clone, True),
            ("to_dtype", to_dtype, True),
            ("to_device", to_device, False),
            ("copy_", copy_, False),
            ("zeros_like", zeros_like, False),
            ("empty_like", zeros_like, False),
            ("zeros", _zeros_of(layout), True),
            ("empty", _zeros_of(layout), True),
            ("zero_", zero_, False),
        )
    ),
]
