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
"""

from __future__ import annotations

from typing import Any

import tensorcore as tc
from tensorcore import Tensor
from tensorcore.plugins import checked

__all__ = ["addmm", "log_softmax", "mm", "softmax", "sum"]


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
