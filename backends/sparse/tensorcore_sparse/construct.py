"""Making sparse tensors and taking them apart: ``tensorcore.sparse_coo_tensor``,
``to_sparse``/``to_dense``, ``coalesce``, the accessors (``indices()``, ``values()``,
``_nnz()``, ...) and the conversions (``clone``, ``to(dtype)``, ``to(device)``).

The computing kernels are registered for every device type of :mod:`tensorcore_sparse._xp`;
those that only take a tensor apart or convert it, for every device (``"*"``)."""

from __future__ import annotations

from typing import Any

import numpy as np

import tensorcore as tc
from tensorcore import Tensor
from tensorcore.backend import check_shape, factory_requires_grad, ops, resize_storageless
from tensorcore.plugins import checked

from ._compressed import is_compressed
from ._coo import (
    alias,
    coalesce,
    gather,
    is_sparse,
    make_sparse,
    mask,
    np_of,
    ns_of,
    record,
    sparse_dim,
    store,
    to_dense_tensor,
)
from ._coo import sparse_dim as sparse_dim_of
from ._invariants import enabled as invariants_enabled
from ._xp import DEVICE_TYPES
from .kernels import compressed as compressed_kernels

__all__ = ["KERNELS", "sparse_coo_tensor"]


# ------------------------------------------------------------------ construction
@checked(
    "sparse_coo_tensor(Any indices=None, Any values=None, int[]? size=None, *, "
    "ScalarType? dtype=None, "
    "Device? device=None, bool requires_grad=False, bool? check_invariants=None, "
    "bool? is_coalesced=None) -> Tensor"
)
def sparse_coo_tensor(
    indices: Any = None,
    values: Any = None,
    size: Any = None,
    *,
    dtype: tc.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
    check_invariants: bool | None = None,
    is_coalesced: bool | None = None,
) -> Tensor:
    """A sparse COO tensor with ``values`` at ``indices``.

    ``indices`` is ``sparse_dim x nnz`` (integers; converted to int64), ``values`` is
    ``nnz x dense dims``; the tensor lives on the device of ``values``. ``size`` defaults to
    the smallest size that holds the indices. Unlike PyTorch, the indices are checked by
    default (``check_invariants=None`` means True): an index out of range or negative, or a
    size too small, raises here rather than in a later operation. ``is_coalesced=True``
    promises sorted unique indices (not checked); duplicates are otherwise allowed and summed.
    The result is differentiable with respect to ``values``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 3))
    >>> x.layout, x.sparse_dim(), x._nnz()
    (tensorcore.sparse_coo, 2, 3)
    >>> x.to_dense().tolist()
    [[0.0, 0.0, 3.0], [4.0, 0.0, 5.0]]

    Given a size alone (``sparse_coo_tensor(size)``, or ``size=``), it is a tensor without
    entries whose dims are all sparse, as PyTorch makes it:

    >>> tc.sparse_coo_tensor((2, 3))._nnz(), tc.sparse_coo_tensor(size=(4,)).shape
    (0, tensorcore.Size([4]))
    """
    if values is None:  # (PyTorch's third overload: ``sparse_coo_tensor(size)``)
        if indices is not None:
            if size is not None:
                raise TypeError(
                    "sparse_coo_tensor(): got the size twice (positional and size=); a "
                    "tensor of values needs indices and values"
                )
            size = indices
        if size is None:
            raise TypeError(
                "sparse_coo_tensor() missing 2 required positional arguments: 'indices' and "
                "'values' (or a size alone, for a tensor without entries)"
            )
        if not isinstance(size, (tuple, list)) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in size
        ):
            raise TypeError(
                "sparse_coo_tensor(): argument 'size' (position 1) must be tuple of ints, not "
                f"{type(size).__name__}"
            )
        if any(n < 0 for n in size):
            raise RuntimeError(f"sparse_coo_tensor(): negative size in {list(size)}")
        check_shape("sparse_coo_tensor", tuple(size))
        out = tc.zeros(tuple(size), dtype=dtype, device=device, layout=tc.sparse_coo)
        return out.requires_grad_() if requires_grad else out
    if indices is None:
        raise TypeError("sparse_coo_tensor() missing 1 required positional argument: 'indices'")
    if isinstance(values, Tensor):
        if dtype is not None or device is not None:
            values = values.to(device=device or values.device, dtype=dtype or values.dtype)
    else:
        values = tc.tensor(values, dtype=dtype, device=device)
    dev = values.device
    if isinstance(indices, Tensor):
        # (floating-point and bool indices are cast to int64, as PyTorch casts them)
        if indices.dtype.is_complex:
            raise RuntimeError(
                "sparse_coo_tensor(): indices must be an int64 tensor, but got "
                f"{indices.dtype.name}"
            )
        indices = indices.to(device=dev, dtype=tc.int64)
    else:
        data = np.asarray(indices)
        if data.size and data.dtype.kind not in "iufb":
            raise RuntimeError(
                f"sparse_coo_tensor(): indices must be integers, but got {data.dtype} data"
            )
        indices = tc.tensor(data.astype(np.int64).tolist(), dtype=tc.int64, device=dev)
        if data.size == 0:
            indices = indices.reshape(data.shape if data.ndim == 2 else (0, 0))
    if indices.ndim != 2:
        raise RuntimeError(
            "sparse_coo_tensor(): indices must be sparse_dim x nnz (2-D), but got shape "
            f"{list(indices.shape)}"
        )
    if values.ndim < 1:
        raise RuntimeError("sparse_coo_tensor(): values must have at least one dim (nnz)")
    sdim, nnz = indices.shape
    if values.shape[0] != nnz:
        raise RuntimeError(
            "sparse_coo_tensor(): indices and values must have same nnz, but got nnz "
            f"from indices: {nnz}, nnz from values: {values.shape[0]}"
        )
    dense = tuple(values.shape[1:])
    check = invariants_enabled(check_invariants)
    lo = hi = None
    if nnz and (check or size is None):
        hi = indices.amax(1).tolist()
        lo = indices.amin(1).tolist()
    if size is None:
        sizes = tuple(int(h) + 1 for h in hi) if hi is not None else (0,) * sdim
        size = sizes + dense
    else:
        size = tuple(int(s) for s in size)
        if len(size) != sdim + len(dense):
            raise RuntimeError(
                f"sparse_coo_tensor(): 'len(size) == sparse_dim + dense_dim' is not satisfied: "
                f"len(size) = {len(size)}, sparse_dim = {sdim}, dense_dim = {len(dense)}"
            )
        if tuple(size[sdim:]) != dense:
            raise RuntimeError(
                f"sparse_coo_tensor(): the dense sizes {list(size[sdim:])} do not match the "
                f"values' trailing shape {list(dense)}"
            )
        if any(s < 0 for s in size):
            raise RuntimeError(f"sparse_coo_tensor(): negative size in {list(size)}")
        check_shape("sparse_coo_tensor", size)
    if check and lo is not None and hi is not None:
        for d in range(sdim):
            if lo[d] < 0:
                raise RuntimeError(f"sparse_coo_tensor(): found negative index {lo[d]} for dim {d}")
            if hi[d] >= size[d]:
                raise RuntimeError(
                    f"sparse_coo_tensor(): size is inconsistent with indices: for dim {d}, "
                    f"size is {size[d]} but found index {hi[d]}"
                )
    # (an operator this plugin declares: the core's typed namespace does not know it)
    unsafe = ops._sparse_coo_tensor_unsafe  # type: ignore[attr-defined]
    out = unsafe(indices, values, list(size), is_coalesced)
    if requires_grad:
        factory_requires_grad(out)
    return out


def _sparse_coo_tensor_unsafe(
    indices: Tensor, values: Tensor, size: Any, is_coalesced: bool | None = None
) -> Tensor:
    return make_sparse(None, indices.detach(), values.detach(), tuple(size), bool(is_coalesced))


# ------------------------------------------------------------------ conversions
def to_dense(self: Tensor, dtype: tc.dtype | None = None) -> Tensor:
    """Sparse to dense: a new dense tensor (duplicates summed)."""
    out = to_dense_tensor(self)
    return out if dtype is None else out.to(dtype)


def to_sparse(self: Tensor, sparse_dim: int | None = None) -> Tensor:
    """Dense to sparse: the non-zero entries (non-zero rows of the dense dims) as a
    coalesced tensor with ``sparse_dim`` sparse dims (all by default)."""
    nd = self.ndim
    sd = nd if sparse_dim is None else sparse_dim
    if not 0 <= sd <= nd:
        raise RuntimeError(f"to_sparse(): sparse_dim must be in [0, {nd}], got {sparse_dim}")
    ns = ns_of(self)
    xp = ns.xp
    arr = np_of(self)
    if sd == 0:  # no sparse dims: one value, the whole tensor
        return make_sparse(ns, xp.zeros((0, 1), xp.int64), arr[None].copy(), self.shape, True)
    nzmask = arr != 0
    if sd < nd:  # a hybrid tensor: the rows of the sparse dims that hold a non-zero
        nzmask = nzmask.any(axis=tuple(range(sd, nd)))
    idx = xp.stack(xp.nonzero(nzmask)).astype(xp.int64, copy=False)
    return make_sparse(ns, idx, xp.ascontiguousarray(arr[tuple(idx)]), self.shape, True)


def to_sparse_sparse(self: Tensor, sparse_dim: int | None = None) -> Tensor:
    if sparse_dim is not None and sparse_dim != _sparse_dim(self):
        raise RuntimeError(
            f"to_sparse(): cannot change the sparse_dim of a sparse tensor from "
            f"{_sparse_dim(self)} to {sparse_dim}"
        )
    return alias(self)


def _coalesce(self: Tensor) -> Tensor:
    return coalesce(self)


def clone(self: Tensor, memory_format: Any = None, out: Any = None) -> Tensor:
    rec = record(self)
    res = make_sparse(None, rec.indices.clone(), rec.values.clone(), self.shape, rec.coalesced)
    return store(out, res)


def to_dtype(self: Tensor, dtype: tc.dtype, out: Any = None) -> Tensor:
    rec = record(self)
    vals = rec.values.to(dtype)
    if vals is rec.values:
        vals = vals.detach()
    return store(out, make_sparse(None, rec.indices, vals, self.shape, rec.coalesced))


def to_device(self: Tensor, device: Any, non_blocking: bool = False) -> Tensor:
    rec = record(self)
    vals = rec.values.to(device)
    idx = rec.indices.to(device)
    return make_sparse(None, idx, vals, self.shape, rec.coalesced)


def copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """``sparse.copy_(sparse)``: take ``src``'s indices and values (cast, moved)."""
    if not is_sparse(self) or not is_sparse(src):
        raise RuntimeError(
            "copy_() between dense and sparse Tensors is not implemented! Found self type = "
            f"{self.type()} and src type = {src.type()}"
        )
    if self.shape != src.shape:
        raise RuntimeError(
            f"copy_(): a sparse tensor of size {list(src.shape)} cannot be copied into one of "
            f"size {list(self.shape)}"
        )
    rec = record(src)
    vals = rec.values.to(device=self.device, dtype=self.dtype, copy=True)
    idx = rec.indices.to(self.device)
    record(self).replace(record(make_sparse(None, idx, vals, self.shape, rec.coalesced)))
    return self


def item(self: Tensor) -> Any:
    """The one element of a sparse tensor as a Python number (the sum of its entries'
    values: 0 without entries)."""
    n = self.numel()
    if n != 1:
        raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
    return record(self).values.sum(dtype=self.dtype).item()


def reshape(self: Tensor, *args: Any) -> Tensor:
    """Refused, as PyTorch refuses it (``reshape`` and ``flatten`` of a sparse tensor)."""
    raise RuntimeError("reshape is not implemented for sparse tensors")


def masked_fill(self: Any, *args: Any) -> Tensor:
    """Refused, with PyTorch's error (its ``masked_fill`` of a sparse tensor fails asking
    for a contiguous copy)."""
    raise RuntimeError("unsupported memory format option Contiguous")


def zero_(self: Tensor) -> Tensor:
    """Remove every entry (PyTorch's sparse ``zero_``: the sizes and the sparse and dense
    dims stay, nnz becomes 0; the core bumps the version, as for every in-place operator)."""
    record(self).replace(record(zeros_like(self)))
    return self


def zeros_in_layout(
    self: Tensor, dtype: Any, device: Any, memory_format: Any, layout: Any
) -> Tensor:
    """``zeros_like(self, layout=layout)`` of a sparse ``self`` for a layout other than its
    own: zeros of ``self``'s size made by that layout's factory (``tc.strided``: a dense
    tensor, in ``memory_format`` where one is given)."""
    shape, dtype, device = tuple(self.shape), dtype or self.dtype, device or self.device
    if memory_format is None:
        return tc.zeros(shape, dtype=dtype, device=device, layout=layout)
    return tc.empty(
        shape, dtype=dtype, device=device, layout=layout, memory_format=memory_format
    ).zero_()


def zeros_like(
    self: Tensor,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    layout: Any = None,
) -> Tensor:
    """A sparse tensor of zeros (no entries) of ``self``'s size, as PyTorch gives; with
    another ``layout=`` (``tc.strided``), that layout's zeros (:func:`zeros_in_layout`)."""
    if layout is not None and layout is not self.layout:
        return zeros_in_layout(self, dtype, device, memory_format, layout)
    if memory_format is not None:
        raise RuntimeError(
            "zeros_like(): memory format option is only supported by strided tensors"
        )
    dev = device or self.device
    dense = tuple(record(self).values.shape[1:])
    vals = tc.zeros((0, *dense), dtype=dtype or self.dtype, device=dev)
    idx = tc.zeros((_sparse_dim(self), 0), dtype=tc.int64, device=dev)
    return make_sparse(None, idx, vals, self.shape, True)


def zeros(
    size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """``tc.zeros(*size, layout=tc.sparse_coo)`` (and ``tc.empty``, ``x.new_zeros`` and
    ``x.new_empty`` of a sparse ``x``): a coalesced sparse tensor without entries whose dims
    are all sparse, as PyTorch makes it.

    Examples
    --------
    >>> import tensorcore as tc
    >>> z = tc.zeros(2, 3, layout=tc.sparse_coo)
    >>> z.layout, z.sparse_dim(), z._nnz(), z.is_coalesced()
    (tensorcore.sparse_coo, 2, 0, True)
    """
    if memory_format is not None:
        raise RuntimeError("memory format option is only supported by strided tensors")
    vals = tc.zeros(0, dtype=dtype, device=device)
    idx = tc.zeros((len(size), 0), dtype=tc.int64, device=vals.device)
    return make_sparse(None, idx, vals, tuple(size), True)


def sparse_mask(self: Tensor, mask_: Tensor) -> Tensor:
    """``self`` (dense or sparse) at the indices of the sparse ``mask``, as they are (in the
    mask's layout and pattern for a compressed mask)."""
    if is_compressed(mask_):
        return compressed_kernels.sparse_mask(self, mask_)
    if not is_sparse(mask_):
        raise RuntimeError("sparse_mask(): expected the mask to be a sparse COO tensor")
    if self.shape != mask_.shape:
        raise RuntimeError(
            f"sparse_mask(): expected self and mask to have the same size, but got "
            f"{list(self.shape)} and {list(mask_.shape)}"
        )
    mrec = record(mask_)
    if mrec.coalesced:
        return mask(self, mask_)
    # An uncoalesced mask: ``self`` at each of its index columns as they are (a repeated
    # column repeats the value, which to_dense() then adds up), as PyTorch gives.
    ns = ns_of(mask_)
    idx = np_of(mrec.indices)
    vals = gather(ns, self, idx, mask_.shape[: idx.shape[0]])
    return make_sparse(ns, mrec.indices, ns.xp.ascontiguousarray(vals), mask_.shape, False)


# ------------------------------------------------------------------ resizing
_RESIZE_HINT = (
    "You could try the following options:\n"
    "1. If you need an empty sparse tensor of this size, call "
    "`x = torch.sparse_coo_tensor(size)`.\n"
    "2. If you need to resize this tensor, you have the following options:\n"
    "    1. For both sparse and dense dimensions, keep the number of them constant and the "
    "size of them non-shrinking, and then try the same call again.\n"
    "    2. Or, create a new sparse tensor with the correct indices and values from this "
    "sparse tensor."
)


def _resized(self: Tensor, size: Any, sparse_dim: int, dense_dim: int, clear: bool) -> None:
    size = tuple(int(s) for s in size)
    if sparse_dim + dense_dim != len(size):
        raise RuntimeError(
            f"number of dimensions must be sparse_dim ({sparse_dim}) + dense_dim ({dense_dim}), "
            f"but got {len(size)}"
        )
    rec = record(self)
    old_sd = sparse_dim_of(self)
    old_dd = self.ndim - old_sd
    if clear or not int(rec.values.shape[0]):
        vals = tc.zeros((0, *size[sparse_dim:]), dtype=self.dtype, device=self.device)
        idx = tc.zeros((sparse_dim, 0), dtype=tc.int64, device=self.device)
        rec.replace(record(make_sparse(None, idx, vals, size, True)))
    else:
        for what, old, new in (("sparse", old_sd, sparse_dim), ("dense", old_dd, dense_dim)):
            if old != new:
                raise RuntimeError(
                    f"changing the number of {what} dimensions (from {old} to {new}) on a "
                    f"non-empty sparse tensor is not supported.\n{_RESIZE_HINT}"
                )
        for what, part in (("sparse", slice(0, old_sd)), ("dense", slice(old_sd, None))):
            before, after = list(self.shape[part]), list(size[part])
            if any(n < o for o, n in zip(before, after, strict=True)):
                raise RuntimeError(
                    f"shrinking the size of {what} dimensions (from {before} to {after}) on a "
                    f"non-empty sparse tensor is not supported.\n{_RESIZE_HINT}"
                )
        vals = rec.values
        if tuple(vals.shape[1:]) != size[sparse_dim:]:
            # Grown dense dims: the values padded with zeros.
            grown = tc.zeros(
                (vals.shape[0], *size[sparse_dim:]), dtype=vals.dtype, device=vals.device
            )
            grown[tuple(slice(0, n) for n in vals.shape)] = vals
            vals = grown
        rec.replace(record(make_sparse(None, rec.indices, vals, size, rec.coalesced)))
    resize_storageless(self, size)


def sparse_resize_(self: Tensor, size: Any, sparse_dim: int, dense_dim: int) -> Tensor:
    """PyTorch's ``sparse_resize_``: a non-empty tensor keeps its numbers of sparse and dense
    dims and may only grow (its entries stay); an empty one takes any size and dims."""
    _resized(self, size, sparse_dim, dense_dim, clear=False)
    return self


def sparse_resize_and_clear_(self: Tensor, size: Any, sparse_dim: int, dense_dim: int) -> Tensor:
    """PyTorch's ``sparse_resize_and_clear_``: every entry removed, then any size and dims."""
    _resized(self, size, sparse_dim, dense_dim, clear=True)
    return self


def resize_as_sparse_(self: Tensor, the_template: Tensor) -> Tensor:
    """``sparse_resize_`` to ``the_template``'s size and dims, where they differ (PyTorch's
    ``resize_as_`` of two sparse tensors)."""
    if not is_sparse(the_template):
        raise RuntimeError("resize_as_sparse_(): expected the template to be a sparse tensor")
    sd = sparse_dim_of(the_template)
    if self.shape != the_template.shape or sparse_dim_of(self) != sd:
        _resized(self, the_template.shape, sd, the_template.ndim - sd, clear=False)
    return self


def _coalesced_(self: Tensor, coalesced: bool) -> Tensor:
    record(self).coalesced = bool(coalesced)
    return self


# ------------------------------------------------------------------ accessors
def _sparse_dim(self: Tensor) -> int:
    return sparse_dim(self)


def _dense_dim(self: Tensor) -> int:
    return self.ndim - sparse_dim(self)


def _nnz(self: Tensor) -> int:
    return int(record(self).values.shape[0])


def _is_coalesced(self: Tensor) -> bool:
    return record(self).coalesced


def _need_coalesced(self: Tensor, what: str) -> None:
    if not record(self).coalesced:
        raise RuntimeError(
            f"Cannot get {what} on an uncoalesced tensor, please call .coalesce() first"
        )


def indices(self: Tensor) -> Tensor:
    _need_coalesced(self, "indices")
    return record(self).indices.detach()


def values(self: Tensor) -> Tensor:
    _need_coalesced(self, "values")
    return record(self).values.detach()


def _indices(self: Tensor) -> Tensor:
    return record(self).indices.detach()


def _values(self: Tensor) -> Tensor:
    return record(self).values.detach()


def _strided_sparse_dim(self: Tensor) -> int:
    return 0


def _strided_dense_dim(self: Tensor) -> int:
    return self.ndim


#: (operator, device type, layout, kernel, direct) registered by the plugin.
KERNELS: list[tuple[str, str, str, Any, bool]] = [
    *(
        (op, device, layout, fn, False)
        for device in DEVICE_TYPES
        for op, layout, fn in (
            ("to_dense", "sparse_coo", to_dense),
            ("coalesce", "sparse_coo", _coalesce),
            ("sparse_mask", "sparse_coo", sparse_mask),
        )
    ),
    ("_sparse_coo_tensor_unsafe", "*", "strided", _sparse_coo_tensor_unsafe, False),
    ("sparse_dim", "*", "sparse_coo", _sparse_dim, False),
    ("sparse_dim", "*", "strided", _strided_sparse_dim, False),
    ("dense_dim", "*", "sparse_coo", _dense_dim, False),
    ("dense_dim", "*", "strided", _strided_dense_dim, False),
    ("_nnz", "*", "sparse_coo", _nnz, False),
    ("is_coalesced", "*", "sparse_coo", _is_coalesced, False),
    ("indices", "*", "sparse_coo", indices, False),
    ("values", "*", "sparse_coo", values, False),
    ("_indices", "*", "sparse_coo", _indices, False),
    ("_values", "*", "sparse_coo", _values, False),
    ("clone", "*", "sparse_coo", clone, True),
    ("to_dtype", "*", "sparse_coo", to_dtype, True),
    ("to_device", "*", "sparse_coo", to_device, False),
    ("copy_", "*", "sparse_coo", copy_, False),
    ("item", "*", "sparse_coo", item, False),
    ("reshape", "*", "sparse_coo", reshape, False),
    ("masked_fill", "*", "sparse_coo", masked_fill, False),
    ("zeros_like", "*", "sparse_coo", zeros_like, False),
    # (PyTorch's empty_like of a sparse tensor has no entries either)
    ("empty_like", "*", "sparse_coo", zeros_like, False),
    ("zeros", "*", "sparse_coo", zeros, True),
    ("sparse_resize_", "*", "sparse_coo", sparse_resize_, False),
    ("sparse_resize_and_clear_", "*", "sparse_coo", sparse_resize_and_clear_, False),
    ("resize_as_sparse_", "*", "sparse_coo", resize_as_sparse_, False),
    ("_coalesced_", "*", "sparse_coo", _coalesced_, False),
    ("empty", "*", "sparse_coo", zeros, True),
    ("zero_", "*", "sparse_coo", zero_, False),
]
