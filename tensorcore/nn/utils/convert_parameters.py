"""``parameters_to_vector`` and ``vector_to_parameters``."""

from __future__ import annotations

from collections.abc import Iterable

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops import functions as ops

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _same_device(params: list[Tensor]) -> None:
    if params and any(p.device != params[0].device for p in params):
        raise TypeError(
            "Found two parameters on different devices, this is currently not supported."
        )


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened and concatenated into one vector (a differentiable copy).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.utils.parameters_to_vector([tc.ones(2, 2), tc.zeros(1)])
    tensor([1., 1., 1., 1., 0.])
    """
    params = list(parameters)
    _same_device(params)
    return ops.cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters, in place."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    params = list(parameters)
    _same_device(params)
    total = sum(p.numel() for p in params)
    if vec.ndim != 1 or vec.numel() != total:
        raise RuntimeError(
            f"vector_to_parameters(): vec of shape {list(vec.shape)} does not hold the "
            f"{total} elements of the parameters"
        )
    offset = 0
    with no_grad():
        for p in params:
            n = p.numel()
            p.copy_(vec[offset : offset + n].reshape(p.shape))
            offset += n
