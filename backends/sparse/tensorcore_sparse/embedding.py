"""``embedding(..., sparse=True)``: a lookup whose weight gradient is a sparse COO tensor."""

from __future__ import annotations

from typing import Any

import tensorcore as tc
from tensorcore import Tensor
from tensorcore.autograd import Function

__all__ = ["sparse_embedding"]


class SparseEmbedding(Function):
    """Rows of ``weight`` at ``indices``; ``weight``'s gradient is sparse, one row per lookup."""

    @staticmethod
    def forward(ctx: Any, weight: Tensor, indices: Tensor) -> Tensor:
        ctx.save_for_backward(indices)
        ctx.weight_shape = tuple(weight.shape)
        flat = weight.index_select(0, indices.reshape(-1))
        return flat.reshape(tuple(indices.shape) + tuple(weight.shape[1:]))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Any, None]:
        (indices,) = ctx.saved_tensors
        shape = ctx.weight_shape
        rows = indices.reshape(1, -1).to(tc.int64)
        vals = grad.reshape((-1,) + shape[1:])
        # One (uncoalesced) row per looked-up index, as PyTorch's sparse embedding gradient.
        return tc._sparse_coo_tensor_unsafe(rows, vals.contiguous(), list(shape), False), None


def sparse_embedding(input: Tensor, weight: Tensor) -> Tensor:
    """``tensorcore.nn.functional.embedding(input, weight, sparse=True)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.ones(5, 2, requires_grad=True)
    >>> tc.nn.functional.embedding(tc.tensor([1, 3, 1]), w, sparse=True).sum().backward()
    >>> w.grad.layout, w.grad._nnz(), w.grad.to_dense()[1].tolist()
    (tensorcore.sparse_coo, 3, [2.0, 2.0])
    """
    if input.dtype not in (tc.int64, tc.int32):
        raise RuntimeError(
            f"Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {input.dtype.name} instead"
        )
    return SparseEmbedding.apply(weight, input)
