"""``tensorcore.linalg``: linear-algebra functions (PyTorch's ``torch.linalg`` names)."""

from __future__ import annotations

from typing import Any

from .ops import functions as ops
from .ops._validate import checked

__all__ = ["matmul", "norm", "vector_norm"]


@checked(
    "vector_norm(Tensor x, float ord=2.0, int[]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None, Tensor? out=None) -> Tensor"
)
def vector_norm(
    x: Any,
    ord: Any = 2.0,
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
    out: Any = None,
) -> Any:
    """The vector ``ord``-norm of ``x`` over ``dim`` (all dims when None).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.vector_norm(tc.tensor([3.0, 4.0])).item()
    5.0
    """

    return ops.vector_norm(x, ord, dim, keepdim, dtype=dtype, out=out)


@checked(
    "norm(Tensor x, float? ord=None, int[]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor"
)
def norm(
    x: Any, ord: Any = None, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Any:
    """Vector norm of ``x`` (``ord`` defaults to 2; matrix norms are not provided yet)."""
    return vector_norm(x, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype)


@checked("matmul(Tensor input, Tensor other, *, Tensor? out=None) -> Tensor")
def matmul(input: Any, other: Any, *, out: Any = None) -> Any:
    """Alias of :func:`tensorcore.matmul`."""

    return ops.matmul(input, other, out=out)
