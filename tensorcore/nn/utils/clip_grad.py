"""Gradient clipping: ``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm`` and
``clip_grads_with_norm_``, as PyTorch's.

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.nn import utils
>>> w = tc.nn.Parameter(tc.zeros(2))
>>> w.grad = tc.tensor([3.0, 4.0])
>>> utils.clip_grad_norm_(w, max_norm=1.0)
tensor(5.)
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Iterable
from typing import Any

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops import functions as ops
from ...ops.factories import tensor

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
]

_TensorOrTensors = Iterable[Tensor] | Tensor


def _as_list(tensors: Any) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _norm(t: Tensor, norm_type: float) -> Tensor:
    if t.is_sparse:
        # The norm of a sparse tensor is that of its (summed) stored values.
        t = t.coalesce().values()
    return ops.vector_norm(t, norm_type)


def get_total_norm(
    tensors: _TensorOrTensors,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The ``norm_type``-norm of the tensors taken together, as if they were concatenated
    into one vector (the norm of the vector of their norms).

    Parameters
    ----------
    tensors : Tensor or iterable of Tensor
        The tensors (typically gradients). Sparse COO tensors are allowed.
    norm_type : float
        The order of the norm; ``inf`` for the largest absolute value.
    error_if_nonfinite : bool
        Raise if the total norm is ``nan`` or infinite.
    foreach : bool, optional
        Accepted for PyTorch compatibility; the result does not depend on it.

    Returns
    -------
    Tensor
        A 0-d tensor on the first tensor's device (``tensor(0.)`` when there are none).

    Raises
    ------
    RuntimeError
        If ``error_if_nonfinite`` and the norm is not finite.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.utils.get_total_norm([tc.tensor([3.0]), tc.tensor([4.0])])
    tensor(5.)
    >>> tc.nn.utils.get_total_norm([tc.tensor([3.0]), tc.tensor([-4.0])], float("inf"))
    tensor(4.)
    """
    ts = _as_list(tensors)
    norm_type = float(norm_type)
    if not ts:
        return tensor(0.0)
    with no_grad():
        first_device = ts[0].device
        norms = [_norm(t.detach(), norm_type).to(first_device) for t in ts]
        total = ops.vector_norm(ops.stack(norms), norm_type)
    if error_if_nonfinite and not bool(total.isfinite().item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
            "so it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(
    parameters: _TensorOrTensors,
    max_norm: float,
    total_norm: Tensor,
    foreach: bool | None = None,
) -> None:
    """Scale the gradients in place by ``min(max_norm / (total_norm + 1e-6), 1)``.

    With ``total_norm`` from :func:`get_total_norm`, this is :func:`clip_grad_norm_` in two
    steps (the coefficient is clamped to 1 so gradients are never scaled up).

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
        Tensors whose ``.grad`` are scaled; those without a gradient are skipped.
    max_norm : float
        The largest norm allowed.
    total_norm : Tensor
        The total norm of the gradients.
    foreach : bool, optional
        Accepted for PyTorch compatibility.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.Parameter(tc.zeros(2))
    >>> w.grad = tc.tensor([3.0, 4.0])
    >>> tc.nn.utils.clip_grads_with_norm_([w], 10.0, tc.tensor(5.0))
    >>> w.grad
    tensor([3., 4.])
    """
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    with no_grad():
        coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.device))


def clip_grad_norm_(
    parameters: _TensorOrTensors,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Rescale the gradients of ``parameters`` in place so that their total norm (as if
    concatenated) is at most ``max_norm``.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
        Tensors whose ``.grad`` are clipped; those without a gradient are skipped.
    max_norm : float
        The largest norm allowed.
    norm_type : float
        The order of the norm; ``inf`` for the largest absolute value.
    error_if_nonfinite : bool
        Raise if the total norm is ``nan`` or infinite (gradients then left unchanged).
    foreach : bool, optional
        Accepted for PyTorch compatibility.

    Returns
    -------
    Tensor
        The total norm of the gradients before clipping.

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
    if isinstance(parameters, Tensor):
        params = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        params = list(parameters)
        if is_generator and not params:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.",
                stacklevel=2,
            )
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_norm(
    parameters: _TensorOrTensors,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Deprecated alias of :func:`clip_grad_norm_` (warns with a ``FutureWarning``)."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(
    parameters: _TensorOrTensors, clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every gradient element to ``[-clip_value, clip_value]``, in place.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
        Tensors whose ``.grad`` are clamped; those without a gradient are skipped.
    clip_value : float
        The largest absolute value allowed.
    foreach : bool, optional
        Accepted for PyTorch compatibility.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.Parameter(tc.zeros(3))
    >>> w.grad = tc.tensor([-3.0, 0.5, 2.0])
    >>> tc.nn.utils.clip_grad_value_(w, 1.0)
    >>> w.grad
    tensor([-1.0000,  0.5000,  1.0000])
    """
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
