"""The update rules of the optimizers, one parameter at a time, written with tensorcore's
in-place operators (so they run on every backend), following the algorithms in PyTorch's
documentation. The optimizers call a backend's fused multi-tensor kernel instead where one is
registered (``_fused_sgd_``, ``_fused_adam_``): the same arithmetic, without an operator
dispatch per step of the formula."""

from __future__ import annotations

import math

from .._tensor import Tensor
from ..dispatch import get_op
from ..layouts import strided
from ..ops import functions as ops

__all__ = [
    "adagrad",
    "adam",
    "asgd",
    "fused_kernel",
    "nadam",
    "radam",
    "rmsprop",
    "rprop",
    "sgd",
    "sparse_update",
]


def fused_kernel(name: str, params: list[Tensor]) -> bool:
    """Whether every parameter is a dense real tensor of one device whose backend registers
    the fused kernel ``name`` (the fused kernels update real floating tensors; SGD updates a
    complex parameter as it is, in the loop)."""
    if not params:
        return False
    dev = params[0]._device
    for p in params:
        if (p._device is not dev and p._device != dev) or p._layout is not strided:
            return False
        if p._dtype.is_complex:
            return False
    try:
        return get_op(name).record((dev.type, "strided")) is not None
    except KeyError:
        return False


def sparse_update(param: Tensor, grad: Tensor) -> tuple[tuple[Tensor, ...], Tensor]:
    """``(index, values)`` of a coalesced sparse gradient: ``param[index]`` are the entries
    it touches and ``values`` their gradients."""
    g = grad.coalesce()
    idx = g.indices()
    return tuple(idx[i] for i in range(g.sparse_dim())), g.values()


def sgd(
    params: list[Tensor],
    grads: list[Tensor],
    bufs: list[Tensor | None],
    *,
    lr: float,
    momentum: float,
    dampening: float,
    weight_decay: float,
    nesterov: bool,
    maximize: bool,
) -> None:
    """``p -= lr * d`` with ``d`` the (momentum-averaged, decayed) gradient; fills ``bufs``."""
    for i, p in enumerate(params):
        g = grads[i] if not maximize else -grads[i]
        if g.is_sparse:
            if weight_decay:
                raise RuntimeError(
                    "SGD with sparse gradients does not support weight_decay (PyTorch fails "
                    "there too: add(sparse, dense) is not supported)"
                )
            if not momentum:
                index, values = sparse_update(p, g)
                p.index_put_(index, values * -lr, accumulate=True)
                continue
            # With momentum the buffer is sparse, as PyTorch's; coalesced gradients keep it
            # coalesced, so its entries do not pile up from step to step.
            g = g.coalesce()
        if weight_decay:
            g = g + p * weight_decay
        if momentum:
            buf = bufs[i]
            if buf is None:
                buf = bufs[i] = g.clone()
            else:
                buf.mul_(momentum).add_(g, alpha=1 - dampening)
            g = g.add(buf, alpha=momentum) if nesterov else buf
        p.add_(g, alpha=-lr)


def adam(
    params: list[Tensor],
    grads: list[Tensor],
    exp_avgs: list[Tensor],
    exp_avg_sqs: list[Tensor],
    max_exp_avg_sqs: list[Tensor],
    steps: list[Tensor],
    *,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
    amsgrad: bool,
    maximize: bool,
    decoupled: bool,
) -> None:
    """Adam (``decoupled=True``: AdamW's weight decay ``p *= 1 - lr * wd``)."""
    for i, p in enumerate(params):
        g = grads[i] if not maximize else -grads[i]
        if weight_decay:
            if decoupled:
                p.mul_(1 - lr * weight_decay)
            else:
                g = g + p * weight_decay
        steps[i].add_(1)
        step = steps[i].item()
        m, v = exp_avgs[i], exp_avg_sqs[i]
        m.lerp_(g, 1 - beta1)
        v.mul_(beta2).add_(g * g, alpha=1 - beta2)
        bc1 = 1 - beta1**step
        bc2_sqrt = math.sqrt(1 - beta2**step)
        if amsgrad:
            mx = max_exp_avg_sqs[i]
            ops.maximum(mx, v, out=mx)
            denom = (mx.sqrt() / bc2_sqrt).add_(eps)
        else:
            denom = (v.sqrt() / bc2_sqrt).add_(eps)
        p.add_(m / denom, alpha=-lr / bc1)


def rmsprop(
    params: list[Tensor],
    grads: list[Tensor],
    square_avgs: list[Tensor],
    grad_avgs: list[Tensor | None],
    bufs: list[Tensor | None],
    steps: list[Tensor],
    *,
    lr: float,
    alpha: float,
    eps: float,
    weight_decay: float,
    momentum: float,
    centered: bool,
    maximize: bool,
) -> None:
    """RMSprop, optionally centered and with momentum."""
    for i, p in enumerate(params):
        g = grads[i] if not maximize else -grads[i]
        steps[i].add_(1)
        if weight_decay:
            g = g + p * weight_decay
        sq = square_avgs[i]
        sq.mul_(alpha).add_(g * g, alpha=1 - alpha)
        if centered:
            ga = grad_avgs[i]
            assert ga is not None
            ga.lerp_(g, 1 - alpha)
            avg = (sq - ga * ga).sqrt_().add_(eps)
        else:
            avg = sq.sqrt().add_(eps)
        if momentum > 0:
            buf = bufs[i]
            assert buf is not None
            buf.mul_(momentum).add_(g / avg)
            p.add_(buf, alpha=-lr)
        else:
            p.add_(g / avg, alpha=-lr)


def adagrad(
    params: list[Tensor],
    grads: list[Tensor],
    sums: list[Tensor],
    steps: list[Tensor],
    *,
    lr: float,
    weight_decay: float,
    lr_decay: float,
    eps: float,
    maximize: bool,
) -> None:
    """Adagrad; sparse gradients update only the entries they touch."""
    for i, p in enumerate(params):
        g = grads[i] if not maximize else -grads[i]
        steps[i].add_(1)
        step = steps[i].item()
        clr = lr / (1 + (step - 1) * lr_decay)
        if g.is_sparse:
            if weight_decay:
                raise RuntimeError("weight_decay option is not compatible with sparse gradients")
            index, values = sparse_update(p, g)
            s = sums[i]
            s.index_put_(index, values * values, accumulate=True)
            std = s[index].sqrt().add_(eps)
            p.index_put_(index, values / std * -clr, accumulate=True)
            continue
        if weight_decay:
            g = g + p * weight_decay
        s = sums[i]
        s.add_(g * g)
        p.add_(g / s.sqrt().add_(eps), alpha=-clr)


def nadam(
    params: list[Tensor],
    grads: list[Tensor],
    exp_avgs: list[Tensor],
    exp_avg_sqs: list[Tensor],
    mu_products: list[Tensor],
    steps: list[Tensor],
    *,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
    momentum_decay: float,
    decoupled: bool,
    maximize: bool,
) -> None:
    """NAdam: Adam with Nesterov momentum whose coefficient ``mu_t = beta1 (1 - 0.96^(t
    psi) / 2)`` warms up; ``mu_products`` keeps their running product (a 0-d tensor
    of the step's dtype, as PyTorch keeps it, so the rounding is PyTorch's)."""
    for i, p in enumerate(params):
        g = grads[i] if not maximize else -grads[i]
        steps[i].add_(1)
        step = steps[i].item()
        if weight_decay:
            if decoupled:
                p.mul_(1 - lr * weight_decay)
            else:
                g = g + p * weight_decay
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
        mu_products[i].mul_(mu)
        mu_product = mu_products[i].item()
        m, v = exp_avgs[i], exp_avg_sqs[i]
        m.lerp_(g, 1 - beta1)
        v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        denom = (v / (1 - beta2**step)).sqrt_().add_(eps)
        p.addcdiv_(g, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product))
        p.addcdiv_(m, denom, value=-lr * mu_next / (1.0 - mu_product * mu_next))


def radam(
    params: list[Tensor],
    grads: list[Tensor],
    exp_avgs: list[Tensor],
    exp_avg_sqs: list[Tensor],
    steps: list[Tensor],
    *,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
    decoupled: bool,
    maximize: bool,
) -> None:
    """RAdam: Adam whose adaptive step is rectified by the variance of its estimate, and
    plain bias-corrected momentum while that estimate is too short (``rho_t <= 5``)."""
    rho_inf = 2 / (1 - beta2) - 1
    for i, p in enumerate(params):
        g = grads[i] if not maximize else -grads[i]
        steps[i].add_(1)
        step = steps[i].item()
        if weight_decay:
            if decoupled:
                p.mul_(1 - lr * weight_decay)
            else:
                g = g + p * weight_decay
        m, v = exp_avgs[i], exp_avg_sqs[i]
        m.lerp_(g, 1 - beta1)
        v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        bc1 = 1 - beta1**step
        bc2 = 1 - beta2**step
        rho_t = rho_inf - 2 * step * beta2**step / bc2
        update = m / bc1 * lr
        if rho_t > 5.0:
            rect = (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            update = update * (bc2**0.5 / v.sqrt().add_(eps)) * rect**0.5
        p.sub_(update)


def asgd(
    params: list[Tensor],
    grads: list[Tensor],
    axs: list[Tensor],
    etas: list[Tensor],
    mus: list[Tensor],
    steps: list[Tensor],
    *,
    lr: float,
    lambd: float,
    alpha: float,
    t0: float,
    weight_decay: float,
    maximize: bool,
) -> None:
    """Averaged SGD: ``p = p (1 - lambd eta) - eta g`` and the running average ``ax`` of
    ``p`` from step ``t0`` on; ``eta`` and ``mu`` (0-d tensors of the step's dtype, as in PyTorch)
    follow ``lr / (1 + lambd lr t)^alpha`` and ``1 / max(1, t - t0)``."""
    for i, p in enumerate(params):
        g = grads[i] if not maximize else -grads[i]
        steps[i].add_(1)
        if weight_decay:
            g = g + p * weight_decay
        eta = etas[i].item()
        p.mul_(1 - lambd * eta).add_(g, alpha=-eta)
        ax, mu = axs[i], mus[i]
        if mu.item() != 1:
            ax.add_((p - ax).mul_(mu))
        else:
            ax.copy_(p)
        step = steps[i].item()
        etas[i].fill_(lr / (1 + lambd * lr * step) ** alpha)
        mus[i].fill_(1 / max(1, step - t0))


def rprop(
    params: list[Tensor],
    grads: list[Tensor],
    prevs: list[Tensor],
    step_sizes: list[Tensor],
    steps: list[Tensor],
    *,
    etaminus: float,
    etaplus: float,
    step_size_min: float,
    step_size_max: float,
    maximize: bool,
) -> None:
    """Rprop: each element's step size grows by ``etaplus`` while its gradient keeps its
    sign and shrinks by ``etaminus`` when it flips (that step then skips the element);
    ``p -= sign(g) * step_size``."""
    for i, p in enumerate(params):
        g = grads[i] if not maximize else -grads[i]
        steps[i].add_(1)
        prev, step_size = prevs[i], step_sizes[i]
        sign = (g * prev).sign()
        factor = ops.where(sign > 0, etaplus, ops.where(sign < 0, etaminus, ops.ones_like(sign)))
        step_size.mul_(factor).clamp_(step_size_min, step_size_max)
        g = ops.where(sign < 0, 0.0, g)
        p.addcmul_(g.sign(), step_size, value=-1)
        prev.copy_(g)
