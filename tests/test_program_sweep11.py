"""Gaps found by running public-style PyTorch programs with ``import tensorcore as torch``
(the eleventh sweep): each test pins PyTorch's behaviour that a program relied on."""

from __future__ import annotations

import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.nn.modules import module as module_mod


def test_setup_context_sees_forward_defaults() -> None:
    seen = []

    class Lin(tc.autograd.Function):
        @staticmethod
        def forward(x, w, bias=None, scale=2.0):
            out = x @ w.t() * scale
            return out if bias is None else out + bias

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, w, bias, scale = inputs  # four, though apply got two
            seen.append((bias, scale))
            ctx.save_for_backward(x, w)
            ctx.scale = scale

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            return g @ w * ctx.scale, g.t() @ x * ctx.scale, None, None

    x = tc.ones(2, 3, requires_grad=True)
    w = tc.ones(1, 3, requires_grad=True)
    Lin.apply(x, w).sum().backward()
    assert seen == [(None, 2.0)]
    assert x.grad.tolist() == [[2.0] * 3] * 2
    Lin.apply(x, w, None, 3.0)
    assert seen[-1] == (None, 3.0)


def test_global_module_hooks_run_before_the_modules_own() -> None:
    order: list[str] = []
    lin = nn.Linear(2, 2)
    lin.register_forward_pre_hook(lambda m, a: order.append("own pre"))
    lin.register_forward_hook(lambda m, a, o: order.append("own"))
    h1 = module_mod.register_module_forward_pre_hook(lambda m, a: order.append("pre"))
    h2 = module_mod.register_module_forward_hook(lambda m, a, o: o * 0)
    h3 = module_mod.register_module_full_backward_hook(
        lambda m, gi, go: order.append(f"bw {type(m).__name__}")
    )
    try:
        x = tc.ones(1, 2, requires_grad=True)
        out = lin(x)
        assert out.tolist() == [[0.0, 0.0]]  # the global hook replaced the output
        out.sum().backward()
    finally:
        h1.remove()
        h2.remove()
        h3.remove()
    assert order == ["pre", "own pre", "own", "bw Linear"]
    assert lin(tc.ones(1, 2)).abs().sum().item() > 0  # removed
    assert not module_mod._global_forward_hooks


def test_global_forward_hook_always_call() -> None:
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    seen = []
    h = module_mod.register_module_forward_hook(lambda m, a, o: seen.append(o), always_call=True)
    try:
        with pytest.raises(ValueError, match="boom"):
            Boom()(tc.ones(1))
    finally:
        h.remove()
    assert seen == [None]
