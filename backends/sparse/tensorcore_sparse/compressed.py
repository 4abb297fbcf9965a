"""Making compressed sparse tensors (CSR, CSC) and taking them apart:
``tensorcore.sparse_csr_tensor``, ``sparse_csc_tensor`` and ``sparse_compressed_tensor``,
the conversions (``to_sparse_csr``, ``to_sparse_csc``, ``to_sparse(layout=...)``,
``to_dense``, ``to_sparse``), the accessors (``crow_indices()``, ``col_indices()``,
``ccol_indices()``, ``row_indices()``, ``values()``, ``_nnz()``) and the copies (``clone``,
``to(dtype)``, ``to(device)``).

PyTorch's blocked layouts (``sparse_bsr``, ``sparse_bsc``) exist as layout objects only: a
conversion to one raises ``NotImplementedError`` naming the layouts that are supported.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import tensorcore as tc
from tensorcore import Tensor
from tensorcore.backend import check_shape, ops
from tensorcore.plugins import checked

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
)
from ._coo import alias, is_sparse, np_of, ns_of
from ._xp import DEVICE_TYPES
from .construct import to_sparse as dense_to_coo
from .construct import to_sparse_sparse

__all__ = ["KERNELS", "sparse_compressed_tensor", "sparse_csc_tensor", "sparse_csr_tensor"]

#: What ``to_sparse(layout=...)`` converts to, as a sentence for the refusals.
SUPPORTED = "tensorcore.sparse_coo, tensorcore.sparse_csr and tensorcore.sparse_csc"


# ------------------------------------------------------------------ construction
def _index_tensor(x: Any, device: Any) -> Tensor:
    if isinstance(x, Tensor):
        return x if device is None else x.to(device)
    data = np.asarray(x)
    dtype = tc.int64 if data.dtype.kind in "iub" or data.size == 0 else None
    t = tc.tensor(data.tolist(), dtype=dtype, device=device)
    return t.reshape(data.shape) if data.size == 0 else t


def _check(
    compressed: Tensor, plain: Tensor, values: Tensor, size: tuple[int, ...], name: str
) -> None:
    """PyTorch's invariants of a 2-D compressed tensor (``check_invariants=True``), with its
    messages."""
    cdim, cname, pname = COMPRESSED[name]
    what = "rows" if cdim == 0 else "columns"
    plimit = "ncols" if cdim == 0 else "nrows"
    nnz = values.shape[0]
    if compressed.shape[-1] != size[cdim] + 1:
        raise RuntimeError(
            f"{cname}.shape[-1] must be equal to the number of {what} + 1 "
            f"(={size[cdim] + 1}), but got {compressed.shape[-1]}"
        )
    if plain.shape[-1] != nnz:
        raise RuntimeError(
            f"{pname}.shape[-1] must be equal to nnz (={nnz}) as defined by values.shape[0], "
            f"but got {plain.shape[-1]}"
        )
    ns = ns_of(values)
    xp = ns.xp
    ptr = np_of(compressed.to(values.device))
    idx = np_of(plain.to(values.device))
    if int(ptr[0]) != 0:
        raise RuntimeError(f"`{cname}[..., 0] == 0` is not satisfied.")
    if int(ptr[-1]) != nnz:
        raise RuntimeError(f"`{cname}[..., -1] == nnz` is not satisfied.")
    steps = xp.diff(ptr)
    if ptr.shape[0] > 1 and bool(((steps < 0) | (steps > size[1 - cdim])).any()):
        raise RuntimeError(
            f"`0 <= {cname}[..., 1:] - {cname}[..., :-1] <= {plimit}` is not satisfied."
        )
    if nnz and bool(((idx < 0) | (idx >= size[1 - cdim])).any()):
        raise RuntimeError(f"`0 <= {pname} < {plimit}` is not satisfied.")
    if nnz > 1:
        # Within a row (column) the plain indices increase: every step that is not one
        # across a row boundary must be positive.
        starts = xp.zeros(nnz, dtype=bool)
        inner = ptr[1:-1]
        starts[inner[inner < nnz]] = True
        if bool(((xp.diff(idx) <= 0) & ~starts[1:]).any()):
            raise RuntimeError(
                f"`{pname}[..., {cname}[..., i - 1]:{cname}[..., i]] for all i = 1, ..., "
                f"n{what[:3]}s are sorted and distinct along the last "
                "dimension values` is not satisfied."
            )


def _build(
    compressed: Any,
    plain: Any,
    values: Any,
    size: Any,
    dtype: tc.dtype | None,
    device: Any,
    requires_grad: bool,
    check_invariants: bool | None,
    name: str,
) -> Tensor:
    cdim, cname, pname = COMPRESSED[name]
    if isinstance(values, Tensor):
        if dtype is not None or device is not None:
            values = values.to(device=device or values.device, dtype=dtype or values.dtype)
    else:
        values = tc.tensor(values, dtype=dtype, device=device)
    dev = values.device
    compressed, plain = _index_tensor(compressed, dev), _index_tensor(plain, dev)
    if compressed.dtype is not plain.dtype:
        raise RuntimeError(
            f"{cname} and {pname} must have the same dtype, bot got "
            f"{_word(compressed.dtype)} and {_word(plain.dtype)}, respectively"
        )
    if compressed.dtype not in (tc.int32, tc.int64):
        raise RuntimeError(
            f"{cname} and {pname} dtype must be Int or Long, but got {_word(compressed.dtype)}"
        )
    if compressed.ndim != plain.ndim:
        raise RuntimeError(
            f"{cname} and {pname} dimensionalities must be equal but got {compressed.ndim} and "
            f"{plain.ndim}, respectively"
        )
    if values.ndim < 1:
        raise RuntimeError(
            "values must have dimensionality > sum of batch and block dimensionalities "
            f"(=0 + 0) but got {values.ndim}"
        )
    if compressed.ndim != 1 or values.ndim != 1:
        raise NotImplementedError(
            f"sparse_{name[7:]}_tensor(): batched and hybrid compressed tensors (indices of "
            f"{compressed.ndim} dims, values of {values.ndim}) are not supported by "
            "tensorcore-sparse; only 2-D matrices are"
        )
    if size is None:
        ncomp = compressed.shape[0] - 1
        nplain = int(plain.amax().item()) + 1 if plain.shape[0] else 0
        size = (ncomp, nplain) if cdim == 0 else (nplain, ncomp)
    else:
        size = tuple(int(s) for s in size)
        if len(size) != 2:
            raise RuntimeError(
                "tensor dimensionality must be sum of batch, base, and dense dimensionalities "
                f"(=0 + 2 + 0) but got {len(size)}"
            )
        if any(s < 0 for s in size):
            raise RuntimeError(f"sparse_{name[7:]}_tensor(): negative size in {list(size)}")
        check_shape(f"sparse_{name[7:]}_tensor", size)
    if check_invariants is None or check_invariants:
        _check(compressed, plain, values, size, name)
    unsafe = ops._sparse_compressed_tensor_unsafe  # type: ignore[attr-defined]
    out = unsafe(compressed, plain, values, list(size), layout=getattr(tc, name))
    if requires_grad:
        out.requires_grad_()
    return out


def _word(d: tc.dtype) -> str:
    from tensorcore.backend import dtype_name

    return dtype_name(d)


_ARGS = (
    "int[]? size=None, *, ScalarType? dtype=None, Device? device=None, "
    "bool requires_grad=False, bool? check_invariants=None) -> Tensor"
)


@checked("sparse_csr_tensor(Any crow_indices, Any col_indices, Any values, " + _ARGS)
def sparse_csr_tensor(
    crow_indices: Any,
    col_indices: Any,
    values: Any,
    size: Any = None,
    *,
    dtype: tc.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
    check_invariants: bool | None = None,
) -> Tensor:
    """A sparse CSR (compressed sparse row) matrix.

    Row ``i`` holds ``values[crow_indices[i]:crow_indices[i + 1]]`` in the columns
    ``col_indices[crow_indices[i]:crow_indices[i + 1]]`` (sorted, distinct). The indices are
    int32 or int64 (lists become int64); the tensor lives on the device of ``values``.
    ``size`` defaults to ``(len(crow_indices) - 1, max(col_indices) + 1)``. As
    :func:`sparse_coo_tensor`, and unlike PyTorch, the invariants are checked by default
    (``check_invariants=None`` means True), with PyTorch's messages. The result is
    differentiable with respect to ``values``. Only 2-D matrices (no batch or dense dims).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.sparse_csr_tensor([0, 1, 3], [1, 0, 2], [1.0, 2.0, 3.0], (2, 3))
    >>> x.layout, x._nnz(), x.is_sparse_csr
    (tensorcore.sparse_csr, 3, True)
    >>> x.to_dense().tolist()
    [[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]]
    """
    return _build(
        crow_indices,
        col_indices,
        values,
        size,
        dtype,
        device,
        requires_grad,
        check_invariants,
        "sparse_csr",
    )


@checked("sparse_csc_tensor(Any ccol_indices, Any row_indices, Any values, " + _ARGS)
def sparse_csc_tensor(
    ccol_indices: Any,
    row_indices: Any,
    values: Any,
    size: Any = None,
    *,
    dtype: tc.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
    check_invariants: bool | None = None,
) -> Tensor:
    """A sparse CSC (compressed sparse column) matrix: column ``j`` holds
    ``values[ccol_indices[j]:ccol_indices[j + 1]]`` in the rows ``row_indices[...]`` of that
    range. Otherwise as :func:`sparse_csr_tensor`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.sparse_csc_tensor([0, 1, 3], [1, 0, 2], [1.0, 2.0, 3.0], (3, 2))
    >>> x.to_dense().tolist()
    [[0.0, 2.0], [1.0, 0.0], [0.0, 3.0]]
    >>> x.t().layout  # the same arrays, read as the transpose's rows
    tensorcore.sparse_csr
    """
    return _build(
        ccol_indices,
        row_indices,
        values,
        size,
        dtype,
        device,
        requires_grad,
        check_invariants,
        "sparse_csc",
    )


@checked(
    "sparse_compressed_tensor(Any compressed_indices, Any plain_indices, Any values, "
    "int[]? size=None, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool requires_grad=False, bool? check_invariants=None) -> Tensor"
)
def sparse_compressed_tensor(
    compressed_indices: Any,
    plain_indices: Any,
    values: Any,
    size: Any = None,
    *,
    dtype: tc.dtype | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    check_invariants: bool | None = None,
) -> Tensor:
    """A compressed sparse matrix of ``layout`` (``tensorcore.sparse_csr`` or
    ``tensorcore.sparse_csc``; PyTorch's blocked layouts are not implemented): see
    :func:`sparse_csr_tensor` and :func:`sparse_csc_tensor`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.sparse_compressed_tensor([0, 1, 1], [0], [5.0], (2, 2), layout=tc.sparse_csr)
    >>> x.to_dense().tolist()
    [[5.0, 0.0], [0.0, 0.0]]
    """
    name = layout.name if layout is not None else None
    if name not in COMPRESSED:
        if name in ("sparse_bsr", "sparse_bsc"):
            raise NotImplementedError(
                f"sparse_compressed_tensor(): the {name} layout is not implemented by "
                "tensorcore-sparse; supported: tensorcore.sparse_csr and tensorcore.sparse_csc"
            )
        word = "none" if layout is None else layout_word(layout)
        raise RuntimeError(
            f"sparse_compressed_tensor expected sparse compressed tensor layout but got {word}"
        )
    return _build(
        compressed_indices,
        plain_indices,
        values,
        size,
        dtype,
        device,
        requires_grad,
        check_invariants,
        name,
    )


def _sparse_compressed_tensor_unsafe(
    compressed_indices: Tensor,
    plain_indices: Tensor,
    values: Tensor,
    size: Any,
    layout: Any = None,
) -> Tensor:
    name = "sparse_csr" if layout is None else layout.name
    if name not in COMPRESSED:
        raise RuntimeError(
            "_sparse_compressed_tensor_unsafe expected sparse compressed tensor layout but got "
            f"{layout_word(layout)}"
        )
    return make_compressed(
        None,
        compressed_indices.detach(),
        plain_indices.detach(),
        values.detach(),
        tuple(size),
        name,
    )


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
        return from_coo(to_coo(self), name)
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


def zeros_like(
    self: Tensor,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """A compressed matrix without entries, of ``self``'s size and layout (PyTorch's)."""
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


_ACCESSORS = [
    (name, *_accessor(name, name in ("crow_indices", "ccol_indices")))
    for name in ("crow_indices", "col_indices", "ccol_indices", "row_indices")
]
_OWN = {"crow_indices": "sparse_csr", "col_indices": "sparse_csr"}

#: (operator, device type, layout, kernel, direct) registered by the plugin.
KERNELS: list[tuple[str, str, str, Any, bool]] = [
    *((name, "*", "*", refuse, False) for name, _, refuse in _ACCESSORS),
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
        for op, fn in (("to_dense", to_dense), ("to_sparse", to_sparse))
    ),
    *(("to_sparse", device, "strided", to_sparse, False) for device in DEVICE_TYPES),
    ("to_sparse", "*", "sparse_coo", to_sparse, False),
    ("to_sparse_bsr", "*", "*", to_sparse_blocked, False),
    ("to_sparse_bsc", "*", "*", to_sparse_blocked, False),
    ("_sparse_compressed_tensor_unsafe", "*", "strided", _sparse_compressed_tensor_unsafe, False),
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
        )
    ),
]
