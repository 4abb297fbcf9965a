"""Adam and AdamW."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from . import _functional as fn
from .optimizer import Optimizer

__all__ = ["Adam", "AdamW"]


def _check(lr: Any, eps: float, betas: tuple[float, float], weight_decay: float) -> None:
    if not lr >= 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not eps >= 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not weight_decay >= 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def scalar_dtype() -> dt.dtype:
    """The dtype of an optimizer's 0-d state (``step``, NAdam's ``mu_product``, ASGD's
    ``eta`` and ``mu``), as PyTorch picks it: float64 while the default dtype is float64,
    float32 otherwise (whatever the parameters' dtype)."""
    return dt.float64 if dt.get_default_dtype() == dt.float64 else dt.float32


def step_tensor() -> Tensor:
    """A fresh ``state["step"]``: a 0-d tensor of :func:`scalar_dtype` on the CPU, as PyTorch
    keeps it."""
    return ops.zeros((), dtype=scalar_dtype(), device="cpu")


class Adam(Optimizer):
    """Adam, PyTorch's algorithm: ``m = lerp(m, g, 1 - beta1)``,
    ``v = beta2 v + (1 - beta2) g^2``, ``p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 -
    beta2^t) + eps)``; ``amsgrad`` uses the running maximum of ``v``; ``weight_decay`` adds
    ``wd * p`` to the gradient (L2), or with ``decoupled_weight_decay=True`` scales ``p`` by
    ``1 - lr * wd`` (AdamW).

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.Parameter(tc.tensor([1.0, -1.0]))
    >>> opt = tc.optim.Adam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w.detach()
    tensor([ 0.9000, -0.9000])
    """

    _decoupled = False

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        _check(lr, eps, betas, weight_decay)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
            "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
            "capturable": capturable, "differentiable": differentiable, "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay or self._decoupled,
        }  # fmt: skip
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Adam update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                amsgrad = group["amsgrad"]
                params, grads, states = self._dense_states(
                    group, "Adam", _adam_state, ", please consider SparseAdam instead"
                )
                m = [st["exp_avg"] for st in states]
                v = [st["exp_avg_sq"] for st in states]
                mx = [st["max_exp_avg_sq"] for st in states] if amsgrad else []
                steps = [st["step"] for st in states]
                beta1, beta2 = group["betas"]
                opts = {
                    "lr": group["lr"], "beta1": beta1, "beta2": beta2, "eps": group["eps"],
                    "weight_decay": group["weight_decay"], "amsgrad": amsgrad,
                    "maximize": group["maximize"], "decoupled": group["decoupled_weight_decay"],
                }  # fmt: skip
                if (
                    group["foreach"] is not False
                    and group["fused"] is not False
                    and fn.fused_kernel("_fused_adam_", params)
                ):
                    ops._fused_adam_(params, grads, m, v, mx, steps, **opts)
                    for p in params:
                        p._bump_version()
                else:
                    fn.adam(params, grads, m, v, mx, steps, **opts)
        return loss


def _adam_state(p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
    st = {"step": step_tensor(), "exp_avg": ops.zeros_like(p), "exp_avg_sq": ops.zeros_like(p)}
    if group["amsgrad"]:
        st["max_exp_avg_sq"] = ops.zeros_like(p)
    return st


class AdamW(Adam):
    """Adam with decoupled weight decay (``p *= 1 - lr * weight_decay`` before the update;
    default ``weight_decay=0.01``), as PyTorch's ``AdamW``."""

    _decoupled = True

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )
