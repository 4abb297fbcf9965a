"""Making compressed sparse tensors (CSR, CSC): ``tensorcore.sparse_csr_tensor``,
``sparse_csc_tensor`` and ``sparse_compressed_tensor``, with PyTorch's invariant checks
(``check_invariants``) and messages, and the operator they build with,
``_sparse_compressed_tensor_unsafe`` (differentiable in ``values``)."""

from __future__ import annotations

from typing import Any

import numpy as np

import tensorcore as tc
from tensorcore import Tensor
from tensorcore.backend import check_shape, dtype_name, factory_requires_grad, ops
from tensorcore.plugins import checked

from ._compressed import COMPRESSED, layout_word, make_compressed
from ._coo import np_of, ns_of
from ._invariants import enabled as invariants_enabled

__all__ = ["KERNELS", "sparse_compressed_tensor", "sparse_csc_tensor", "sparse_csr_tensor"]


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
    if invariants_enabled(check_invariants):
        _check(compressed, plain, values, size, name)
    unsafe = ops._sparse_compressed_tensor_unsafe  # type: ignore[attr-defined]
    out = unsafe(compressed, plain, values, list(size), layout=getattr(tc, name))
    if requires_grad:
        factory_requires_grad(out)
    return out


def _word(d: tc.dtype) -> str:
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


#: (operator, device type, layout, kernel, direct) registered by the plugin.
KERNELS: list[tuple[str, str, str, Any, bool]] = [
    ("_sparse_compressed_tensor_unsafe", "*", "strided", _sparse_compressed_tensor_unsafe, False),
]
