"""Gradient clipping: ``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm`` and
``clip_grads_with_norm_``, as PyTorch's."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops import functions as ops
from ...ops.factories import tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _as_list(tensors: Any) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def get_total_norm(
    tensors: Iterable[Tensor] | Tensor,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The ``norm_type``-norm of the tensors taken together (as if concatenated).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.utils.get_total_norm([tc.tensor([3.0]), tc.tensor([4.0])])
    tensor(5.)
    """
    ts = [t.to_dense() if t.is_sparse else t for t in _as_list(tensors)]
    norm_type = float(norm_type)
    if not ts:
        return tensor(0.0)
    norms = [ops.vector_norm(t.detach(), norm_type) for t in ts]
    dev = norms[0].device
    stacked = ops.stack([n.to(dev) for n in norms])
    total = ops.vector_norm(stacked, norm_type)
    if error_if_nonfinite and not bool(total.isfinite().item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
            "so it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(
    parameters: Iterable[Tensor] | Tensor,
    max_norm: float,
    total_norm: Tensor,
    foreach: bool | None = None,
) -> None:
    """Scale the gradients by ``max_norm / (total_norm + 1e-6)`` where that is below 1."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
    with no_grad():
        for g in grads:
            g.mul_(coef.to(g.device, g.dtype))


def clip_grad_norm_(
    parameters: Iterable[Tensor] | Tensor,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Rescale the gradients of ``parameters`` in place so that their total
    ``norm_type``-norm is at most ``max_norm``; returns the norm before clipping.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.Parameter(tc.zeros(2))
    >>> w.grad = tc.tensor([3.0, 4.0])
    >>> tc.nn.utils.clip_grad_norm_([w], 1.0)
    tensor(5.)
    >>> [round(v, 4) for v in w.grad.tolist()]
    [0.6, 0.8]
    """
    params = _as_list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    if grads:
        clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_value_(
    parameters: Iterable[Tensor] | Tensor, clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every gradient element to ``[-clip_value, clip_value]`` in place."""
    if math.isnan(clip_value) or clip_value < 0:
        raise ValueError(f"clip_value must be a non-negative number, got {clip_value}")
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)
