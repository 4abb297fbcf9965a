"""Muon: momentum orthogonalised by a Newton-Schulz iteration, for 2-D parameters."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import dtypes as dt
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from .optimizer import Optimizer

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Muon"]

_ADJUST_LR = ("original", "match_rms_adamw")


class Muon(Optimizer):
    """Muon, PyTorch's algorithm, for 2-D parameters (the weights of hidden layers; biases,
    embeddings and heads go to another optimizer such as ``AdamW``).

    Each step keeps a momentum buffer ``B = lerp(B, g, 1 - momentum)``, takes the update
    ``lerp(g, B, momentum)`` (``nesterov``, the default) or ``B``, orthogonalises it with
    ``ns_steps`` iterations of the Newton-Schulz polynomial ``a X + (b A + c A^2) X``,
    ``A = X X^T``, in bfloat16 (on the wide orientation, after scaling the matrix to a
    Frobenius norm of at most one: ``eps`` guards the division), then applies decoupled
    weight decay ``p *= 1 - lr * weight_decay`` and ``p -= lr' * update``. The learning rate
    is adjusted by the parameter's shape ``(A, B)``: ``sqrt(max(1, A / B))`` ("original",
    the default) or ``0.2 * sqrt(max(A, B))`` ("match_rms_adamw", to reuse AdamW's
    learning rate and weight decay).

    Examples
    --------
    >>> import tensorcore as tc
    >>> _ = tc.manual_seed(0)
    >>> layer = tc.nn.Linear(4, 3, bias=False)
    >>> opt = tc.optim.Muon(layer.parameters(), lr=0.02)
    >>> before = layer.weight.detach().clone()
    >>> layer(tc.randn(8, 4)).square().mean().backward()
    >>> opt.step()
    >>> bool((layer.weight - before).abs().max() > 0)
    True
    >>> opt.state[layer.weight]["momentum_buffer"].shape
    tensorcore.Size([3, 4])
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = (3.4445, -4.775, 2.0315),
        eps: float = 1e-7,
        ns_steps: int = 5,
        adjust_lr_fn: str | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not lr >= 0.0:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not momentum >= 0.0:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not weight_decay >= 0.0:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in _ADJUST_LR:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {
            "lr": lr, "weight_decay": weight_decay, "momentum": momentum,
            "nesterov": nesterov, "ns_coefficients": ns_coefficients, "eps": eps,
            "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn,
        }  # fmt: skip
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        "Muon only supports 2D parameters whereas we found a parameter with "
                        f"size: {p.size()}"
                    )

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One Muon update of every parameter with a gradient."""
        loss = self._closure_loss(closure)
        with no_grad():
            for group in self.param_groups:
                lr = float(group["lr"])
                momentum = group["momentum"]
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    if p.is_complex():
                        raise RuntimeError("Muon does not support complex parameters")
                    if g.is_sparse:
                        raise RuntimeError("Muon does not support sparse gradients")
                    st = self.state[p]
                    if not st:
                        st["momentum_buffer"] = ops.zeros_like(g)
                    buf = st["momentum_buffer"]
                    buf.lerp_(g, 1 - momentum)
                    update = g.lerp(buf, momentum) if group["nesterov"] else buf
                    update = newton_schulz(
                        update, group["ns_coefficients"], group["ns_steps"], group["eps"]
                    )
                    p.mul_(1 - lr * group["weight_decay"])
                    p.add_(update, alpha=-adjusted_lr(lr, group["adjust_lr_fn"], p.shape))
        return loss


def newton_schulz(grad: Tensor, coefficients: Sequence[float], steps: int, eps: float) -> Tensor:
    """The orthogonalised ``grad`` (a 2-D tensor): ``steps`` Newton-Schulz iterations in
    bfloat16 on its wide orientation, from the matrix scaled to a Frobenius norm of at most
    one (``eps`` bounds the divisor below). The result is bfloat16, as PyTorch's (float32 on
    a device without bfloat16, such as CuPy's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.optim.muon import newton_schulz
    >>> o = newton_schulz(tc.tensor([[3.0, 0.0], [0.0, 0.5]]), (3.4445, -4.775, 2.0315), 5, 1e-7)
    >>> o.dtype
    tensorcore.bfloat16
    """
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    try:
        x = grad.to(dt.bfloat16)
    except TypeError:  # (a device without bfloat16: its allocator refuses the dtype)
        x = grad.to(dt.float32)
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        x = x.T
    x = x / x.norm().clamp(min=eps)
    for _ in range(steps):
        gram = x @ x.T
        x = ops.addmm(x, ops.addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


def adjusted_lr(lr: float, adjust_lr_fn: str | None, shape: Sequence[int]) -> float:
    """Muon's learning rate for a parameter of ``shape`` ``(A, B)``: ``lr * sqrt(max(1, A /
    B))`` ("original", or None), ``lr * 0.2 * sqrt(max(A, B))`` ("match_rms_adamw").

    Examples
    --------
    >>> from tensorcore.optim.muon import adjusted_lr
    >>> adjusted_lr(0.02, None, (256, 64)), adjusted_lr(0.02, "match_rms_adamw", (256, 64))
    (0.04, 0.064)
    """
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, cols))
    return lr
