"""Functional neural-network operations, written with tensorcore operators (so they run on
every backend and are differentiable through their parts)."""

from __future__ import annotations

from .. import dtypes as dt
from .._tensor import Tensor
from ..layouts import strided
from ..ops import functions as ops
from ..ops._validate import checked
from ..plugins import manager

__all__ = [
    "cross_entropy",
    "embedding",
    "linear",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "relu",
    "sigmoid",
    "softmax",
    "tanh",
]


@checked("relu(Tensor input) -> Tensor")
def relu(input: Tensor) -> Tensor:
    """``max(x, 0)`` elementwise."""
    return ops.relu(input)


@checked("sigmoid(Tensor input) -> Tensor")
def sigmoid(input: Tensor) -> Tensor:
    """Logistic sigmoid."""
    return ops.sigmoid(input)


@checked("tanh(Tensor input) -> Tensor")
def tanh(input: Tensor) -> Tensor:
    """Hyperbolic tangent."""
    return ops.tanh(input)


@checked("softmax(Tensor input, int dim, ScalarType? dtype=None) -> Tensor")
def softmax(input: Tensor, dim: int, dtype: dt.dtype | None = None) -> Tensor:
    """Softmax along ``dim``."""
    return ops.softmax(input, dim, dtype)


@checked("log_softmax(Tensor input, int dim, ScalarType? dtype=None) -> Tensor")
def log_softmax(input: Tensor, dim: int, dtype: dt.dtype | None = None) -> Tensor:
    """Log-softmax along ``dim``."""
    return ops.log_softmax(input, dim, dtype)


@checked("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor")
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> F = tc.nn.functional
    >>> F.linear(tc.ones(2, 3), tc.ones(4, 3), tc.zeros(4)).shape
    tensorcore.Size([2, 4])
    """
    if (
        bias is not None
        and input.ndim == 2
        and bias.ndim <= 2
        and input._layout is strided
        and weight._layout is strided
        and bias._layout is strided
    ):
        # One fused kernel for dense operands; other layouts (sparse) compose matmul and add,
        # which their backends provide.
        return ops.addmm(bias, input, weight.t())
    out = input.matmul(weight.t())
    return out if bias is None else out + bias


def _reduce(loss: Tensor, reduction: str, name: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction ({name})")


@checked('mse_loss(Tensor input, Tensor target, str reduction="mean") -> Tensor')
def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Mean squared error."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    d = input - target
    return _reduce(d * d, reduction, "mse_loss")


@checked('nll_loss(Tensor input, Tensor target, str reduction="mean") -> Tensor')
def nll_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of log-probabilities ``input`` (N, C) at the class indices
    ``target`` (N,).

    Examples
    --------
    >>> import tensorcore as tc
    >>> logp = tc.tensor([[-0.5, -1.0], [-2.0, -0.25]])
    >>> tc.nn.functional.nll_loss(logp, tc.tensor([0, 1])).item()
    0.375
    """
    return ops.nll_loss(input, target, reduction)


@checked('cross_entropy(Tensor input, Tensor target, str reduction="mean") -> Tensor')
def cross_entropy(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """Cross-entropy of logits ``input`` (N, C) against class indices ``target`` (N,)."""
    return nll_loss(log_softmax(input, 1), target, reduction)


@checked("embedding(Tensor input, Tensor weight, bool sparse=False) -> Tensor")
def embedding(input: Tensor, weight: Tensor, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` at the indices ``input`` (any shape).

    ``sparse=True`` gives ``weight`` a sparse COO gradient, one row per looked-up index. The
    plugin that provides the sparse layout implements it, as ``tensorcore.sparse_embedding``
    (``tensorcore-sparse``).
    """
    if sparse:
        manager.load()
        impl = manager.attributes.get("sparse_embedding", (None,))[0]
        if impl is None:
            raise NotImplementedError(
                "embedding(sparse=True) needs the sparse_coo layout: install the backend package "
                "'tensorcore-sparse' (pip install tensorcore-sparse)"
            )
        return impl(input, weight)
    if input._dtype not in (dt.int64, dt.int32):
        raise RuntimeError(
            f"Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {input._dtype.name} instead"
        )
    flat = weight.index_select(0, input.reshape(-1))
    return flat.reshape(input._shape + weight._shape[1:])
