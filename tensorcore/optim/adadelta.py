"""Adadelta and Adamax."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from .adam import _check, step_tensor
from .optimizer import Optimizer

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["Adadelta", "Adamax"]


class Adadelta(Optimizer):
    """Adadelta, PyTorch's algorithm: ``v = rho v + (1 - rho) g^2``,
    ``d = sqrt(u + eps) / sqrt(v + eps) * g``, ``u = rho u + (1 - rho) d^2``,
    ``p -= lr * d`` (``lr=1.0`` by default).

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.Parameter(tc.tensor([1.0]))
    >>> opt = tc.optim.Adadelta([w])
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> round(w.item(), 6)
    0.996838
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
            "capturable": capturable, "maximize": maximize, "differentiable": differentiable,
        }  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adadelta update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                rho, eps, lr, wd = group["rho"], group["eps"], group["lr"], group["weight_decay"]
                params, grads, states = self._dense_states(group, "Adadelta", _adadelta_state)
                for p, g, st in zip(params, grads, states, strict=True):
                    st["step"].add_(1)
                    g = g if not group["maximize"] else -g
                    if wd:
                        g = g + p * wd
                    v, u = st["square_avg"], st["acc_delta"]
                    v.mul_(rho).add_(g * g, alpha=1 - rho)
                    delta = (u + eps).sqrt() / (v + eps).sqrt() * g
                    u.mul_(rho).add_(delta * delta, alpha=1 - rho)
                    p.add_(delta, alpha=-lr)
        return loss


class Adamax(Optimizer):
    """Adamax (Adam with the infinity norm), PyTorch's algorithm: ``m = lerp(m, g, 1 -
    beta1)``, ``u = max(beta2 u, |g| + eps)``, ``p -= lr / (1 - beta1^t) * m / u``."""

    def __init__(
        self,
        params: Any,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
            "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
            "capturable": capturable,
        }  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adamax update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                (b1, b2), eps = group["betas"], group["eps"]
                params, grads, states = self._dense_states(group, "Adamax", _adamax_state)
                for p, g, st in zip(params, grads, states, strict=True):
                    st["step"].add_(1)
                    t = st["step"].item()
                    g = g if not group["maximize"] else -g
                    if group["weight_decay"]:
                        g = g + p * group["weight_decay"]
                    m, u = st["exp_avg"], st["exp_inf"]
                    m.lerp_(g, 1 - b1)
                    ops.maximum(u * b2, g.abs() + eps, out=u)
                    p.add_(m / u, alpha=-group["lr"] / (1 - b1**t))
        return loss


def _adadelta_state(p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
    return {"step": step_tensor(), "square_avg": ops.zeros_like(p), "acc_delta": ops.zeros_like(p)}


def _adamax_state(p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
    return {"step": step_tensor(), "exp_avg": ops.zeros_like(p), "exp_inf": ops.zeros_like(p)}
