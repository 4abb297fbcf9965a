"""Adafactor: Adam's second moment, factored into row and column statistics."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .._finfo import finfo
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from .adam import step_tensor
from .optimizer import Optimizer

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Adafactor, PyTorch's algorithm (no first moment; a relative step size).

    At step ``t`` the second-moment decay is ``1 - t ** beta2_decay`` and the step size
    ``alpha = max(eps[1], RMS(p)) * min(lr, 1 / sqrt(t))``. A parameter of two or more
    dimensions keeps running means of the squared gradient over its last dimension (rows)
    and its second-to-last (columns), whose outer product divided by the rows' mean
    estimates the second moment; a vector keeps the full estimate. The update ``g /
    sqrt(max(estimate, eps[0] ** 2))`` is scaled down to an RMS of at most ``d``, and
    ``weight_decay`` is decoupled (``p *= 1 - lr * weight_decay``). ``eps[0]`` None means
    the parameter dtype's machine epsilon.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.Parameter(tc.ones(3, 2))
    >>> opt = tc.optim.Adafactor([w])
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> sorted(opt.state[w])
    ['col_var', 'row_var', 'step']
    >>> round(w[0, 0].item(), 4)
    0.99
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not lr >= 0.0:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not beta2_decay <= 0.0:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not eps[0] >= 0.0:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not eps[1] >= 0.0:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not d >= 1.0:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not weight_decay >= 0.0:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {
            "lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
            "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
        }  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adafactor update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        if p.is_complex():
                            raise RuntimeError("Adafactor does not support complex parameters")
                        if p.grad.is_sparse:
                            raise RuntimeError("Adafactor does not support sparse gradients")
                        _update(p, self.state[p], group)
        return loss


def _update(p: Tensor, st: dict[str, Any], group: dict[str, Any]) -> None:
    grad = p.grad
    assert grad is not None
    if not st:
        st["step"] = step_tensor()
        if grad.ndim > 1:
            st["row_var"] = ops.zeros((*grad.shape[:-1], 1), dtype=grad.dtype, device=grad.device)
            st["col_var"] = ops.zeros(
                (*grad.shape[:-2], 1, grad.shape[-1]), dtype=grad.dtype, device=grad.device
            )
        else:
            st["variance"] = ops.zeros_like(grad)
    if group["maximize"]:
        grad = -grad
    lr = float(group["lr"])
    eps1, eps2 = group["eps"]
    if eps1 is None:
        eps1 = finfo(p.dtype).eps
    st["step"] += 1
    t = st["step"].item()
    decay = t ** group["beta2_decay"]  # (1 - beta2 at step t)
    alpha = max(eps2, p.norm(2).item() / math.sqrt(p.numel())) * min(lr, 1 / math.sqrt(t))
    if group["weight_decay"] != 0:
        p.mul_(1 - lr * group["weight_decay"])
    if grad.ndim > 1:
        row, col = st["row_var"], st["col_var"]
        row.lerp_(grad.square().mean(-1, keepdim=True), decay)
        col.lerp_(grad.square().mean(-2, keepdim=True), decay)
        estimate = (row @ col).div_(row.mean(-2, keepdim=True).clamp_(min=eps1))
    else:
        var = st["variance"]
        var.lerp_(grad * grad, decay)
        estimate = var.clone()
    update = estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
    denom = max(1.0, update.norm(2).item() / (math.sqrt(update.numel()) * group["d"]))
    p.add_(update, alpha=-alpha / denom)
