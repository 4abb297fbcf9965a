"""NAdam and RAdam."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from . import _functional as fn
from .adam import _check, scalar_dtype, step_tensor
from .optimizer import Optimizer

__all__ = ["NAdam", "RAdam"]


class NAdam(Optimizer):
    """NAdam (Adam with Nesterov momentum), PyTorch's algorithm: ``mu_t = beta1 (1 - 0.96^(t
    momentum_decay) / 2)``, ``m = lerp(m, g, 1 - beta1)``, ``v = beta2 v + (1 - beta2) g^2``,
    ``p -= lr (1 - mu_t) / (1 - prod mu) g / d + lr mu_{t+1} / (1 - prod mu mu_{t+1}) m / d``
    with ``d = sqrt(v / (1 - beta2^t)) + eps``. ``weight_decay`` adds ``wd * p`` to the
    gradient, or with ``decoupled_weight_decay=True`` scales ``p`` by ``1 - lr * wd``
    (NAdamW).

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.Parameter(tc.tensor([1.0, -1.0]))
    >>> opt = tc.optim.NAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach()
    tensor([ 0.8944, -0.8944])
    """

    def __init__(
        self,
        params: Any,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check(lr, eps, betas, weight_decay)
        if not momentum_decay >= 0.0:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
            "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize, "foreach": foreach, "capturable": capturable,
            "differentiable": differentiable,
        }  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One NAdam update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                params, grads, states = self._dense_states(group, "NAdam", _nadam_state)
                m = [st["exp_avg"] for st in states]
                v = [st["exp_avg_sq"] for st in states]
                mus = [st["mu_product"] for st in states]
                steps = [st["step"] for st in states]
                beta1, beta2 = group["betas"]
                fn.nadam(
                    params, grads, m, v, mus, steps, lr=group["lr"], beta1=beta1, beta2=beta2,
                    eps=group["eps"], weight_decay=group["weight_decay"],
                    momentum_decay=group["momentum_decay"],
                    decoupled=group["decoupled_weight_decay"], maximize=group["maximize"],
                )  # fmt: skip
        return loss


class RAdam(Optimizer):
    """RAdam (rectified Adam), PyTorch's algorithm: Adam's moments; while the length of the
    approximated moving average ``rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)`` is at most 5
    the step is the bias-corrected momentum ``lr m / (1 - beta1^t)``, afterwards that times the
    adaptive factor ``sqrt(1 - beta2^t) / (sqrt(v) + eps)`` and the rectification ``r_t``.
    ``weight_decay`` adds ``wd * p`` to the gradient, or with ``decoupled_weight_decay=True``
    scales ``p`` by ``1 - lr * wd``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.Parameter(tc.tensor([1.0, -1.0]))
    >>> opt = tc.optim.RAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach()
    tensor([ 0.8000, -0.8000])
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
            "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
            "foreach": foreach, "capturable": capturable, "differentiable": differentiable,
        }  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One RAdam update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                params, grads, states = self._dense_states(group, "RAdam", _adam_state)
                m = [st["exp_avg"] for st in states]
                v = [st["exp_avg_sq"] for st in states]
                steps = [st["step"] for st in states]
                beta1, beta2 = group["betas"]
                fn.radam(
                    params, grads, m, v, steps, lr=group["lr"], beta1=beta1, beta2=beta2,
                    eps=group["eps"], weight_decay=group["weight_decay"],
                    decoupled=group["decoupled_weight_decay"], maximize=group["maximize"],
                )  # fmt: skip
        return loss


def _adam_state(p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
    return {"step": step_tensor(), "exp_avg": ops.zeros_like(p), "exp_avg_sq": ops.zeros_like(p)}


def _nadam_state(p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
    # (mu_product: a 0-d tensor of the step's dtype, as PyTorch keeps it; PyTorch's order of
    # the keys)
    return {
        "step": step_tensor(),
        "mu_product": ops.ones((), dtype=scalar_dtype(), device="cpu"),
        "exp_avg": ops.zeros_like(p),
        "exp_avg_sq": ops.zeros_like(p),
    }
