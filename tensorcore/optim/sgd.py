"""Stochastic gradient descent, with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from . import _functional as fn
from .optimizer import Optimizer, required

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, PyTorch's algorithm:
    ``g = grad + weight_decay * p``; with momentum ``b = momentum * b + (1 - dampening) * g``
    (``b = g`` at the first step) and ``g = g + momentum * b`` (Nesterov) or ``g = b``;
    ``p -= lr * g`` (``+=`` with ``maximize``). Sparse gradients are accepted without weight
    decay (with momentum, the buffer is sparse, as PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.Parameter(tc.tensor([1.0, 2.0]))
    >>> opt = tc.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8000, 1.6000], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {
            "lr": lr, "momentum": momentum, "dampening": dampening,
            "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
            "foreach": foreach, "differentiable": differentiable, "fused": fused,
        }  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One SGD update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                params = [p for p in group["params"] if p.grad is not None]
                grads = [p.grad for p in params]
                momentum = group["momentum"]
                # (no state entry without momentum: PyTorch's state stays empty then)
                bufs: list[Any] = (
                    [self.state[p].get("momentum_buffer") for p in params]
                    if momentum
                    else [None] * len(params)
                )
                opts = {
                    "lr": group["lr"], "momentum": momentum, "dampening": group["dampening"],
                    "weight_decay": group["weight_decay"], "nesterov": group["nesterov"],
                    "maximize": group["maximize"],
                }  # fmt: skip
                fused = (
                    group["foreach"] is not False and group["fused"] is not False
                    and not any(g.is_sparse for g in grads)
                    and fn.fused_kernel("_fused_sgd_", params)
                )  # fmt: skip
                if fused:
                    if momentum:
                        first = [int(b is None) for b in bufs]
                        bufs = [
                            ops.zeros_like(p) if b is None else b
                            for p, b in zip(params, bufs, strict=True)
                        ]
                    else:
                        first = [0] * len(params)
                    filled: list[Any] = bufs if momentum else []
                    ops._fused_sgd_(params, grads, filled, first, **opts)
                    for p in params:
                        p._bump_version()
                else:
                    fn.sgd(params, grads, bufs, **opts)
                if momentum:
                    for p, b in zip(params, bufs, strict=True):
                        self.state[p]["momentum_buffer"] = b
        return loss
