"""RMSprop."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from . import _functional as fn
from .adam import step_tensor
from .optimizer import Optimizer

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop, PyTorch's algorithm: ``s = alpha s + (1 - alpha) g^2``; ``centered``
    subtracts the square of the running mean gradient; the step is ``g / (sqrt(s) + eps)``,
    through a momentum buffer when ``momentum > 0``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.Parameter(tc.tensor([1.0]))
    >>> opt = tc.optim.RMSprop([w], lr=0.01)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> round(w.item(), 4)
    0.9
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        for name, value in (("learning rate", lr), ("epsilon value", eps),
                            ("momentum value", momentum), ("weight_decay value", weight_decay),
                            ("alpha value", alpha)):  # fmt: skip
            if value < 0.0:
                raise ValueError(f"Invalid {name}: {value}")
        defaults = {
            "lr": lr, "alpha": alpha, "eps": eps, "weight_decay": weight_decay,
            "momentum": momentum, "centered": centered, "capturable": capturable,
            "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
        }  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One RMSprop update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                params, grads, states = self._dense_states(group, "RMSprop", _rmsprop_state)
                sq = [st["square_avg"] for st in states]
                ga = [st.get("grad_avg") for st in states]
                bufs = [st.get("momentum_buffer") for st in states]
                steps = [st["step"] for st in states]
                fn.rmsprop(
                    params,
                    grads,
                    sq,
                    ga,
                    bufs,
                    steps,
                    lr=group["lr"],
                    alpha=group["alpha"],
                    eps=group["eps"],
                    weight_decay=group["weight_decay"],
                    momentum=group["momentum"],
                    centered=group["centered"],
                    maximize=group["maximize"],
                )
        return loss


def _rmsprop_state(p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
    st = {"step": step_tensor(), "square_avg": ops.zeros_like(p)}
    if group["momentum"] > 0:
        st["momentum_buffer"] = ops.zeros_like(p)
    if group["centered"]:
        st["grad_avg"] = ops.zeros_like(p)
    return st
