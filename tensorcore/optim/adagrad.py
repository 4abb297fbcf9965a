"""Adagrad (dense and sparse gradients)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from . import _functional as fn
from .adam import step_tensor
from .optimizer import Optimizer, real_view

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad, PyTorch's algorithm: ``s += g^2``, ``p -= clr * g / (sqrt(s) + eps)`` with
    ``clr = lr / (1 + (t - 1) lr_decay)``; a sparse gradient updates only its entries.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.Parameter(tc.tensor([1.0]))
    >>> opt = tc.optim.Adagrad([w], lr=0.5)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> round(w.item(), 4)
    0.5
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        for name, value in (("learning rate", lr), ("lr_decay value", lr_decay),
                            ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value),
                            ("epsilon value", eps)):  # fmt: skip
            if value < 0.0:
                raise ValueError(f"Invalid {name}: {value}")
        defaults = {
            "lr": lr, "lr_decay": lr_decay, "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value, "eps": eps,
            "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
            "fused": fused,
        }  # fmt: skip
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                st = self.state[p]
                st["step"] = step_tensor()
                st["sum"] = ops.full_like(p, group["initial_accumulator_value"])

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adagrad update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                params = [p for p in group["params"] if p.grad is not None]
                # (a complex parameter as its real view, as ``_dense_states`` gives it)
                fn.adagrad(
                    [real_view(p) for p in params],
                    [real_view(p.grad) for p in params],
                    [real_view(self.state[p]["sum"]) for p in params],
                    [self.state[p]["step"] for p in params],
                    lr=group["lr"],
                    weight_decay=group["weight_decay"],
                    lr_decay=group["lr_decay"],
                    eps=group["eps"],
                    maximize=group["maximize"],
                )
        return loss
