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

__all__ = ["adagrad", "adam", "fused_kernel", "rmsprop", "sgd", "sparse_update"]


def fused_kernel(name: str, params: list[Tensor]) -> bool:
    """Whether every parameter is a dense tensor of one device whose backend registers the
    fused kernel ``name``."""
    if not params:
        return False
    dev = params[0]._device
    for p in params:
        if (p._device is not dev and p._device != dev) or p._layout is not strided:
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
            if weight_decay or momentum:
                raise RuntimeError(
                    "SGD with sparse gradients supports neither weight_decay nor momentum "
                    "(as PyTorch)"
                )
            index, values = sparse_update(p, g)
            p.index_put_(index, values * -lr, accumulate=True)
            continue
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
