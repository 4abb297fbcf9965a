"""``tensorcore.sparse``: functions of sparse tensors, as in ``torch.sparse``.

Exposed as ``tensorcore.sparse`` by the plugin (``register.attribute``).

Examples
--------
>>> import tensorcore as tc
>>> a = tc.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2))
>>> tc.sparse.mm(a, tc.ones(2, 1)).tolist()
[[2.0], [3.0]]
>>> tc.sparse.sum(a).item()
5.0

PyTorch's legacy sparse constructors are here too: ``tc.sparse.FloatTensor(indices, values,
size)`` makes a COO tensor (as ``tc.sparse_coo_tensor``, with PyTorch's deprecation warning),
``tc.sparse.FloatTensor(*sizes)`` an empty one, and ``isinstance(x, tc.sparse.FloatTensor)``
asks whether ``x`` is a float32 COO tensor on the CPU.

>>> tc.sparse.FloatTensor(2, 3)._nnz()
0
>>> isinstance(a, tc.sparse.FloatTensor), isinstance(a, tc.FloatTensor)
(True, False)
"""

from __future__ import annotations

import warnings
from typing import Any

import tensorcore as tc
from tensorcore import Tensor
from tensorcore.backend import dtype_name
from tensorcore.plugins import checked

from ._invariants import check_sparse_tensor_invariants
from .kernels.compressed import check_sampled_addmm

__all__ = [
    "BFloat16Tensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
    "addmm",
    "check_sparse_tensor_invariants",
    "log_softmax",
    "mm",
    "sampled_addmm",
    "softmax",
    "spdiags",
    "sum",
]

# ``torch.sparse.torch`` is ``torch`` itself (the module imports it), and old programs spell
# ``torch.sparse.torch.eye(n)`` (e.g. the capsule-network implementations): the same here.
torch = tc


@checked("mm(Tensor mat1, Tensor mat2) -> Tensor")
def mm(mat1: Tensor, mat2: Tensor) -> Tensor:
    """Matrix product with sparse operands (COO, CSR or CSC): sparse @ dense and dense @ sparse
    give dense results, sparse @ sparse a sparse one (of the first operand's layout).

    The gradient with respect to a sparse operand is sparse and masked to its sparsity
    pattern (as in ``torch.sparse.mm``); the gradient with respect to a dense operand is
    dense.
    """
    return tc.mm(mat1, mat2)


@checked("addmm(Tensor mat, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor")
def addmm(mat: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * mat + alpha * (mat1 @ mat2)`` with a sparse ``mat1``."""
    prod = tc.mm(mat1, mat2)
    return (mat * beta if beta != 1 else mat) + (prod * alpha if alpha != 1 else prod)


@checked(
    "sampled_addmm(Tensor input, Tensor mat1, Tensor mat2, *, Scalar beta=1.0, "
    "Scalar alpha=1.0, Tensor? out=None) -> Tensor"
)
def sampled_addmm(
    input: Tensor,
    mat1: Tensor,
    mat2: Tensor,
    *,
    beta: Any = 1.0,
    alpha: Any = 1.0,
    out: Tensor | None = None,
) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` at the entries of the CSR matrix ``input``
    only: a CSR result with ``input``'s sparsity pattern (PyTorch's
    ``torch.sparse.sampled_addmm``; one dot product per entry, the dense product is never
    formed). Differentiable in all three tensors.

    Examples
    --------
    >>> import tensorcore as tc
    >>> c = tc.tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse_csr()
    >>> r = tc.sparse.sampled_addmm(c, tc.ones(2, 3), tc.ones(3, 2), beta=0.5)
    >>> r.layout, r.to_dense().tolist()
    (tensorcore.sparse_csr, [[0.0, 3.5], [4.0, 0.0]])
    """
    if isinstance(input, Tensor) and input.layout is not tc.sparse_coo:
        check_sampled_addmm(input, mat1, mat2)  # (PyTorch's messages, naming no other op)
    res = tc._sparse_sampled_addmm(input, mat1, mat2, beta=beta, alpha=alpha)
    if out is None:
        return res
    return out.copy_(res)


@checked("sum(Tensor input, int[]? dim=None, ScalarType? dtype=None) -> Tensor")
def sum(input: Tensor, dim: Any = None, dtype: tc.dtype | None = None) -> Tensor:
    """Sum of a sparse tensor over ``dim`` (all dims by default): a dense tensor when every
    sparse dim is summed, else a sparse one."""
    if dim is None:
        return input.sum(dtype=dtype)
    return input.sum(dim, dtype=dtype)


@checked("softmax(Tensor input, int dim, ScalarType? dtype=None) -> Tensor")
def softmax(input: Tensor, dim: int, dtype: tc.dtype | None = None) -> Tensor:
    """Softmax over ``dim`` of the specified elements only: unspecified elements count as
    -inf (they stay unspecified), so the result has ``input.coalesce()``'s sparsity pattern."""
    return tc._sparse_softmax(input, dim, dtype)


@checked("log_softmax(Tensor input, int dim, ScalarType? dtype=None) -> Tensor")
def log_softmax(input: Tensor, dim: int, dtype: tc.dtype | None = None) -> Tensor:
    """Log of :func:`softmax` (over the specified elements), computed stably."""
    return tc._sparse_log_softmax(input, dim, dtype)


_SPDIAGS_LAYOUTS = ("sparse_coo", "sparse_csr", "sparse_csc")


@checked("spdiags(Tensor diagonals, Tensor offsets, int[] shape, Layout? layout=None) -> Tensor")
def spdiags(
    diagonals: Tensor, offsets: Tensor, shape: Any, layout: tc.layout | None = None
) -> Tensor:
    """A sparse matrix of size ``shape`` with the rows of ``diagonals`` on the diagonals
    ``offsets`` (0 the main one, positive above it), as PyTorch's (and SciPy's)
    ``spdiags``: the element ``diagonals[k, j]`` goes to column ``j``, row ``j - offsets[k]``,
    where that lies in the matrix. COO by default; ``layout=`` also takes ``sparse_csr`` and
    ``sparse_csc``. Differentiable in ``diagonals``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> tc.sparse.spdiags(d, tc.tensor([0, -1]), (3, 3)).to_dense().tolist()
    [[1.0, 0.0, 0.0], [4.0, 2.0, 0.0], [0.0, 5.0, 3.0]]
    """
    name = "sparse_coo" if layout is None else layout.name
    if name not in _SPDIAGS_LAYOUTS:
        word = "Strided" if name == "strided" else name
        raise RuntimeError(
            f"Only output layouts (Sparse, SparseCsc, SparseCsr) are supported, got {word}"
        )
    shape = tuple(shape)
    if len(shape) != 2:
        raise RuntimeError("Output shape must be 2d")
    if offsets.dtype is not tc.int64:
        raise RuntimeError(
            f"Offset Tensor must have dtype Long but got {dtype_name(offsets.dtype)}"
        )
    if offsets.ndim != 1:
        raise RuntimeError("Offsets must be scalar or vector")
    diags = diagonals.unsqueeze(0) if diagonals.ndim == 1 else diagonals
    if diags.ndim != 2:
        raise RuntimeError("Diagonals must be vector or matrix")
    if diags.shape[0] != offsets.shape[0]:
        raise RuntimeError(
            f"Number of diagonals ({diags.shape[0]}) does not match the number of offsets "
            f"({offsets.shape[0]})"
        )
    offs = [int(o) for o in offsets.tolist()]
    if len(set(offs)) != len(offs):
        raise RuntimeError("Offset tensor contains duplicate values")
    rows, cols, vals = [], [], []
    dev = diagonals.device
    for k, o in enumerate(offs):
        # columns j with 0 <= j - o < shape[0], j < shape[1] and j < the diagonal's length
        lo, hi = max(0, o), min(shape[1], shape[0] + o, diags.shape[1])
        if hi <= lo:
            continue
        j = tc.arange(lo, hi, device=dev)
        rows.append(j - o)
        cols.append(j)
        vals.append(diags[k, lo:hi])
    if vals:
        idx = tc.stack([tc.cat(rows), tc.cat(cols)])
        values = tc.cat(vals)
    else:
        idx = tc.zeros(2, 0, dtype=tc.int64, device=dev)
        values = diags.new_zeros(0)
    out = tc.sparse_coo_tensor(idx, values, shape, check_invariants=False)
    if name == "sparse_coo":
        return out
    return out.to_sparse_csr() if name == "sparse_csr" else out.to_sparse_csc()


# ------------------------------------------------------------------ legacy constructors
class _LegacySparseType(type):
    """The metaclass of ``tc.sparse.FloatTensor`` and its kin: ``isinstance(x, cls)`` is "a
    COO tensor of ``cls.dtype`` on the CPU", as PyTorch's legacy sparse types."""

    dtype: tc.dtype

    def __instancecheck__(cls, obj: Any) -> bool:
        return (
            isinstance(obj, Tensor)
            and obj.layout is tc.sparse_coo
            and obj.dtype is cls.dtype
            and obj.device.type == "cpu"
        )

    def __repr__(cls) -> str:
        return f"<class 'tensorcore.sparse.{cls.__name__}'>"


def _legacy_new(cls: _LegacySparseType, *args: Any, device: Any = None) -> Tensor:
    """``tc.sparse.<T>Tensor(...)``: ``()`` or sizes give an empty COO tensor of ``cls``'s
    dtype; ``(indices, values[, size])`` a COO tensor of those (the values keep their dtype,
    as PyTorch's legacy constructor does; it is deprecated there in favour of
    ``sparse_coo_tensor``)."""
    if device is not None and tc.device(device).type != "cpu":
        raise RuntimeError(
            f"{cls.__name__}(): legacy constructor expects device type: cpu but device type: "
            f"{tc.device(device).type} was passed"
        )
    if len(args) in (2, 3) and isinstance(args[0], Tensor) and isinstance(args[1], Tensor):
        indices, values = args[0], args[1]
        if indices.dtype is not tc.int64:
            raise RuntimeError("indices must be an int64 tensor")
        warnings.warn(
            "torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated.  "
            "Please use torch.sparse_coo_tensor(indices, values, shape, dtype=, device=).",
            UserWarning,
            stacklevel=2,
        )
        size = args[2] if len(args) == 3 else None
        return tc.sparse_coo_tensor(indices, values, size)
    if len(args) == 1 and isinstance(args[0], (tuple, list, tc.Size)):
        args = tuple(args[0])
    if all(a.__class__ is int for a in args):
        size = args if args else (0,)
        indices = tc.zeros(len(size), 0, dtype=tc.int64)
        return tc.sparse_coo_tensor(indices, tc.zeros(0, dtype=cls.dtype), size)
    got = ", ".join(type(a).__name__ for a in args)
    raise TypeError(
        f"new() received an invalid combination of arguments - got ({got}), but expected one "
        "of: (*, device device), (Tensor indices, Tensor values, *, device device), (Tensor "
        "indices, Tensor values, tuple of ints size, *, device device), (tuple of ints size, "
        "*, device device)"
    )


def _legacy_type(name: str, dtype: tc.dtype) -> _LegacySparseType:
    doc = (
        f"``tc.sparse.{name}(indices, values, size)``: a COO tensor (deprecated, as in "
        f"PyTorch: use ``tc.sparse_coo_tensor``); ``tc.sparse.{name}(*sizes)``: an empty "
        f"{dtype} COO tensor; ``isinstance(x, tc.sparse.{name})``: whether ``x`` is a "
        f"{dtype} COO tensor on the CPU."
    )
    ns = {"__doc__": doc, "__module__": "tensorcore.sparse", "dtype": dtype}
    cls = _LegacySparseType(name, (), ns)
    cls.__new__ = _legacy_new  # type: ignore[assignment,method-assign]
    return cls


FloatTensor = _legacy_type("FloatTensor", tc.float32)
DoubleTensor = _legacy_type("DoubleTensor", tc.float64)
HalfTensor = _legacy_type("HalfTensor", tc.float16)
BFloat16Tensor = _legacy_type("BFloat16Tensor", tc.bfloat16)
ByteTensor = _legacy_type("ByteTensor", tc.uint8)
CharTensor = _legacy_type("CharTensor", tc.int8)
ShortTensor = _legacy_type("ShortTensor", tc.int16)
IntTensor = _legacy_type("IntTensor", tc.int32)
LongTensor = _legacy_type("LongTensor", tc.int64)
