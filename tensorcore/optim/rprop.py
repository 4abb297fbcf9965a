"""Rprop and ASGD."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from . import _functional as fn
from .adam import scalar_dtype, step_tensor
from .optimizer import Optimizer

__all__ = ["ASGD", "Rprop"]


class Rprop(Optimizer):
    """Rprop (resilient backpropagation), PyTorch's algorithm: every element has its own step
    size (``lr`` at first), multiplied by ``etas[1]`` while its gradient keeps its sign and by
    ``etas[0]`` when the sign flips (that step then leaves the element alone), clamped to
    ``step_sizes``; ``p -= sign(g) * step_size``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.Parameter(tc.tensor([1.0, -1.0]))
    >>> opt = tc.optim.Rprop([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach()
    tensor([ 0.9000, -0.9000])
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable, "capturable": capturable,
        }  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Rprop update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                params, grads, states = self._dense_states(group, "Rprop", _rprop_state)
                prevs = [st["prev"] for st in states]
                sizes = [st["step_size"] for st in states]
                steps = [st["step"] for st in states]
                (etaminus, etaplus), (smin, smax) = group["etas"], group["step_sizes"]
                fn.rprop(
                    params, grads, prevs, sizes, steps, etaminus=etaminus, etaplus=etaplus,
                    step_size_min=smin, step_size_max=smax, maximize=group["maximize"],
                )  # fmt: skip
        return loss


class ASGD(Optimizer):
    """ASGD (averaged stochastic gradient descent), PyTorch's algorithm:
    ``p = p (1 - lambd eta) - eta g``; ``state["ax"]`` is the running average of ``p`` over
    the steps after ``t0``; ``eta = lr / (1 + lambd lr t)^alpha``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.Parameter(tc.tensor([1.0, -1.0]))
    >>> opt = tc.optim.ASGD([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach(), opt.state[w]["ax"]
    (tensor([ 0.8000, -0.8000]), tensor([ 0.8000, -0.8000]))
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
            "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
            "capturable": capturable,
        }  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One ASGD update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                params, grads, states = self._dense_states(group, "ASGD", _asgd_state)
                axs = [st["ax"] for st in states]
                etas = [st["eta"] for st in states]
                mus = [st["mu"] for st in states]
                steps = [st["step"] for st in states]
                fn.asgd(
                    params, grads, axs, etas, mus, steps, lr=group["lr"], lambd=group["lambd"],
                    alpha=group["alpha"], t0=group["t0"], weight_decay=group["weight_decay"],
                    maximize=group["maximize"],
                )  # fmt: skip
        return loss


def _rprop_state(p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
    return {
        "step": step_tensor(),
        "prev": ops.zeros_like(p),
        # (a complex parameter's real and imaginary parts each start at ``lr``, as PyTorch's)
        "step_size": ops.full_like(
            p, complex(group["lr"], group["lr"]) if p.is_complex() else group["lr"]
        ),
    }


def _asgd_state(p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
    # eta and mu are 0-d tensors of the step's dtype on the parameter's device, as PyTorch
    # keeps them (so eta's rounding is PyTorch's).
    return {
        "step": ops.zeros((), dtype=scalar_dtype(), device=p.device),
        "eta": ops.full((), group["lr"], dtype=scalar_dtype(), device=p.device),
        "mu": ops.ones((), dtype=scalar_dtype(), device=p.device),
        "ax": ops.zeros_like(p),
    }
