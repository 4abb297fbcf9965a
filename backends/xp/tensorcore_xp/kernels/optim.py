"""Fused optimizer steps, written once against an array module ``xp`` (NumPy or CuPy): one
call updates every parameter of a group with array operations on the native arrays, the
arithmetic of ``tensorcore/optim/_functional.py`` without an operator dispatch per step of
the formula."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..helpers import array_of, axpy, pieces, quiet_tokens

__all__ = ["build"]


def _check(name: str, params: list[Any], **lists: list[Any]) -> None:
    """Every list matches ``params`` (length, and each tensor's shape and dtype), before any
    tensor is written: a bad call changes nothing."""
    n = len(params)
    for what, tensors in lists.items():
        if len(tensors) != n:
            raise ValueError(f"{name}(): {what} has {len(tensors)} tensors for {n} params")
        for i, (p, t) in enumerate(zip(params, tensors, strict=True)):
            # (devices are interned: ``is`` decides, where ``!=`` costs a Python __eq__)
            if (
                t._shape != p._shape
                or t._dtype is not p._dtype
                or (t._device is not p._device and t._device != p._device)
            ):
                raise ValueError(
                    f"{name}(): {what}[{i}] ({t.dtype}, shape {list(t.shape)}, {t.device}) "
                    f"does not match params[{i}] ({p.dtype}, shape {list(p.shape)}, "
                    f"{p.device})"
                )


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """``_fused_sgd_`` and ``_fused_adam_`` for the array module ``xp``."""
    enter, leave = quiet_tokens(xp)
    # ``p -= s * u`` in place without a temporary of p's size; and each parameter's whole
    # formula runs piece by piece (``pieces``), so that its passes over a piece find it in
    # cache: one trip to memory per array instead of one per pass.
    update = axpy(xp)

    def _fused_sgd_(
        params: list[Any],
        grads: list[Any],
        momentum_buffers: list[Any],
        first_step: Any,
        lr: float,
        momentum: float,
        dampening: float,
        weight_decay: float,
        nesterov: bool,
        maximize: bool,
    ) -> None:
        bufs = {"momentum_buffers": momentum_buffers} if momentum else {}
        _check("_fused_sgd_", params, grads=grads, **bufs)
        if len(first_step) != len(params) or any(f not in (0, 1) for f in first_step):
            raise ValueError(
                f"_fused_sgd_(): first_step must hold one 0 or 1 per param, got {list(first_step)}"
            )
        tok = enter()
        try:
            for i, p in enumerate(params):
                arrays = [array_of(p), array_of(grads[i])]
                if momentum:
                    arrays.append(array_of(momentum_buffers[i]))
                for x, g, *b in pieces(xp, *arrays):
                    if maximize:
                        g = -g
                    if weight_decay:
                        g = g + x * weight_decay
                    if b:
                        buf = b[0]
                        if first_step[i]:
                            buf[...] = g
                        else:
                            buf *= momentum
                            buf += g * (1 - dampening) if dampening else g
                        g = g + buf * momentum if nesterov else buf
                    update(-lr, g, x)
        finally:
            leave(tok)

    def _fused_adam_(
        params: list[Any],
        grads: list[Any],
        exp_avgs: list[Any],
        exp_avg_sqs: list[Any],
        max_exp_avg_sqs: list[Any],
        state_steps: list[Any],
        lr: float,
        beta1: float,
        beta2: float,
        eps: float,
        weight_decay: float,
        amsgrad: bool,
        maximize: bool,
        decoupled: bool,
    ) -> None:
        extra = {"max_exp_avg_sqs": max_exp_avg_sqs} if amsgrad else {}
        _check(
            "_fused_adam_", params, grads=grads, exp_avgs=exp_avgs, exp_avg_sqs=exp_avg_sqs, **extra
        )
        if len(state_steps) != len(params) or any(t.numel() != 1 for t in state_steps):
            raise ValueError("_fused_adam_(): state_steps must hold one 1-element tensor per param")
        tok = enter()
        try:
            for i in range(len(params)):
                st = array_of(state_steps[i])
                st += 1
                step = float(st)
                bc1 = 1 - beta1**step
                bc2_sqrt = math.sqrt(1 - beta2**step)
                arrays = [array_of(t[i]) for t in (params, grads, exp_avgs, exp_avg_sqs)]
                if amsgrad:
                    arrays.append(array_of(max_exp_avg_sqs[i]))
                for x, g, m, v, *mx in pieces(xp, *arrays):
                    if maximize:
                        g = -g
                    if weight_decay:
                        if decoupled:
                            x *= 1 - lr * weight_decay
                        else:
                            g = g + x * weight_decay
                    m += (g - m) * (1 - beta1)
                    v *= beta2
                    v += g * g * (1 - beta2)
                    if mx:
                        xp.maximum(mx[0], v, out=mx[0])
                    # out=: NumPy's sqrt of a 0-d array (a scalar parameter) is a scalar,
                    # which the in-place steps below cannot write into.
                    denom = xp.sqrt(mx[0] if mx else v, out=xp.empty_like(v))
                    denom /= bc2_sqrt
                    denom += eps
                    xp.divide(m, denom, out=denom)
                    update(-(lr / bc1), denom, x)
        finally:
            leave(tok)

    return {"_fused_sgd_": _fused_sgd_, "_fused_adam_": _fused_adam_}
