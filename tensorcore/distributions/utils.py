"""Helpers the distributions share, under ``torch.distributions.utils``' names:
``broadcast_all``, ``lazy_property``, ``logits_to_probs``, ``probs_to_logits``,
``clamp_probs``, ``tril_matrix_to_vec`` and ``vec_to_tril_matrix``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

from .. import dtypes as dt
from .._finfo import finfo
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad
from ..ops import functions as ops
from ..ops.factories import as_tensor
from ..ops.frontends import broadcast_shapes

__all__ = [
    "broadcast_all",
    "clamp_probs",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "softplus",
    "sum_rightmost",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]

T = TypeVar("T")


def _tensor(v: Any, like: Tensor | None = None) -> Tensor:
    """``v`` as a tensor; a number takes ``like``'s dtype and device (else the default)."""
    if isinstance(v, Tensor):
        return v
    if like is not None:
        return as_tensor(v, dtype=like.dtype, device=like.device)
    return as_tensor(v, dtype=dt.get_default_dtype())


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """The values as tensors broadcast to one shape; numbers take the dtype and device of the
    first tensor among them (the default dtype when there is none), as PyTorch's helper.

    Examples
    --------
    >>> import tensorcore as tc
    >>> a, b = broadcast_all(tc.zeros(2), 1.0)
    >>> b
    tensor([1., 1.])
    """
    like = next((v for v in values if isinstance(v, Tensor)), None)
    ts = [_tensor(v, like) for v in values]
    shape = tuple(broadcast_shapes(*(t.shape for t in ts)))
    return tuple(t.expand(shape) for t in ts)


def eps(d: dt.dtype) -> float:
    """The machine epsilon of a floating dtype (``finfo(d).eps``)."""
    return float(finfo(d).eps)


def tiny(d: dt.dtype) -> float:
    """The smallest normal number of a floating dtype (``finfo(d).tiny``)."""
    return float(finfo(d).tiny)


def softplus(x: Tensor) -> Tensor:
    """``log(1 + exp(x))``, stable at both ends; its gradient is ``sigmoid(x)`` everywhere."""
    return ops.logaddexp(x, ops.zeros_like(x))


def sum_rightmost(x: Tensor, dims: int) -> Tensor:
    """``x`` summed over its ``dims`` rightmost dims (unchanged when ``dims`` is 0)."""
    return x.sum(tuple(range(-dims, 0))) if dims > 0 else x


class lazy_property(Generic[T]):
    """A property computed on first access and then stored on the instance (so a parameter
    given the other way, as ``logits`` for ``probs``, costs nothing until it is read).

    ``Distribution`` skips the validation of a lazy parameter that has not been computed,
    as PyTorch's does. The value is computed with gradients enabled (also under
    ``no_grad``), as PyTorch's is, so it keeps its graph to the distribution's parameters.

    Examples
    --------
    >>> class A:
    ...     @lazy_property
    ...     def x(self):
    ...         print("computing")
    ...         return 1
    >>> a = A()
    >>> a.x
    computing
    1
    >>> a.x
    1
    """

    def __init__(self, wrapped: Callable[[Any], T]) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.name = wrapped.__name__

    def __set_name__(self, owner: type, name: str) -> None:
        # ``probs = lazy_property(_binary_probs)`` stores under ``probs``.
        self.name = name

    @overload
    def __get__(self, instance: None, owner: Any = None) -> lazy_property[T]: ...
    @overload
    def __get__(self, instance: object, owner: Any = None) -> T: ...
    def __get__(self, instance: object | None, owner: Any = None) -> Any:
        if instance is None:
            return self
        d = instance.__dict__
        if self.name not in d:
            # Computed with gradients recorded even under ``no_grad``, as PyTorch's
            # ``lazy_property`` does: the value is cached, and a later differentiable use
            # (``log_prob`` in a training step) needs its graph back to the parameters.
            with enable_grad():
                d[self.name] = self.wrapped(instance)
        return d[self.name]

    def __set__(self, instance: object, value: T) -> None:
        instance.__dict__[self.name] = value


def _probs_or_logits(probs: Any, logits: Any) -> tuple[str, Any]:
    """``("probs", probs)`` or ``("logits", logits)``: whichever was given (exactly one must
    be, as PyTorch requires)."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    return ("probs", probs) if probs is not None else ("logits", logits)


def _binary_probs(self: Any) -> Tensor:
    """``sigmoid(logits)``."""
    return logits_to_probs(self.logits, is_binary=True)


def _binary_logits(self: Any) -> Tensor:
    """``log(p / (1 - p))`` of the clamped probabilities."""
    return probs_to_logits(self.probs, is_binary=True)


def clamp_probs(probs: Tensor) -> Tensor:
    """``probs`` clamped to ``[eps, 1 - eps]`` of its dtype (finite logits).

    Examples
    --------
    >>> import tensorcore as tc
    >>> clamp_probs(tc.tensor([0.0, 1.0], dtype=tc.float64))[0].item() > 0
    True
    """
    e = eps(probs.dtype)
    return probs.clamp(min=e, max=1 - e)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """``sigmoid(logits)`` when binary, else ``softmax(logits, -1)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> logits_to_probs(tc.tensor([0.0, 0.0]))
    tensor([0.5000, 0.5000])
    """
    return logits.sigmoid() if is_binary else logits.softmax(-1)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """``log(p) - log1p(-p)`` when binary, else ``log(p)``, of the clamped probabilities.

    Examples
    --------
    >>> import tensorcore as tc
    >>> probs_to_logits(tc.tensor([0.5]), is_binary=True)
    tensor([0.])
    """
    p = clamp_probs(probs)
    return p.log() - (-p).log1p() if is_binary else p.log()


def _tril_positions(n: int, diag: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(n) for j in range(n) if j - i <= diag]


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The entries of the lower triangle (below diagonal ``diag``) of the last two dims, row
    by row, as a vector.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tril_matrix_to_vec(tc.tensor([[1.0, 0.0], [2.0, 3.0]]))
    tensor([1., 2., 3.])
    """
    n = mat.shape[-1]
    flat = mat.reshape(*mat.shape[:-2], n * n)
    idx = as_tensor([i * n + j for i, j in _tril_positions(n, diag)], device=mat.device)
    return flat.index_select(-1, idx)


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The inverse of :func:`tril_matrix_to_vec`: a square matrix with ``vec`` in its lower
    triangle and zeros elsewhere.

    Examples
    --------
    >>> import tensorcore as tc
    >>> vec_to_tril_matrix(tc.tensor([1.0, 2.0, 3.0]))
    tensor([[1., 0.],
            [2., 3.]])
    """
    m = vec.shape[-1]
    n = 0
    while len(_tril_positions(n, diag)) < m:
        n += 1
    pos = _tril_positions(n, diag)
    if len(pos) != m:
        raise ValueError("The size of last dimension is not a triangular number")
    flat = ops.zeros((*vec.shape[:-1], n * n), dtype=vec.dtype, device=vec.device)
    idx = as_tensor([i * n + j for i, j in pos], device=vec.device)
    flat = flat.index_add(-1, idx, vec)
    return flat.reshape(*vec.shape[:-1], n, n)
