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


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        ((3, 4), (3, 4), r"mat1 and mat2 shapes cannot be multiplied \(3x4 and 3x4\)"),
        ((3,), (4,), r"expected tensor \[3\] and src \[4\] to have the same number of elements"),
        ((2, 3, 4), (5,), r"size mismatch, got input \(6\), mat \(6x4\), vec \(5\)"),
        ((3,), (4, 2), r"mat1 and mat2 shapes cannot be multiplied \(1x3 and 4x2\)"),
        ((2, 3, 4), (3, 2), r"mat1 and mat2 shapes cannot be multiplied \(6x4 and 3x2\)"),
        ((5,), (2, 3, 4), r"batch2 tensor to be: \[2, 5\] but got: \[2, 3\]\."),
    ],
)
def test_matmul_mismatch_names_the_kernel_as_pytorch(device, a, b, message) -> None:
    with pytest.raises(RuntimeError, match=message):
        tc.zeros(a, device=device) @ tc.zeros(b, device=device)


def test_linear_mm_bmm_mv_mismatch_messages(device) -> None:
    z = lambda *s: tc.zeros(s, device=device)  # noqa: E731
    with pytest.raises(RuntimeError, match=r"cannot be multiplied \(8x5 and 3x2\)"):
        nn.functional.linear(z(2, 4, 5), z(2, 3))
    with pytest.raises(RuntimeError, match="self must be a matrix"):
        tc.mm(z(2), z(2, 2))
    with pytest.raises(RuntimeError, match="mat2 must be a matrix"):
        tc.mm(z(2, 2), z(2))
    with pytest.raises(RuntimeError, match=r"be: \[2, 4\] but got: \[3, 4\]\."):
        tc.bmm(z(2, 3, 4), z(3, 4, 2))
    with pytest.raises(
        RuntimeError, match=r"size mismatch, got input \(2\), mat \(2x3\), vec \(2\)"
    ):
        tc.mv(z(2, 3), z(2))


def test_cross_entropy_floating_target_of_another_shape_is_class_indices(device) -> None:
    logits = tc.zeros(3, 4, device=device)
    with pytest.raises(
        RuntimeError, match="expected target dtype to be Long or Byte, but got Float"
    ):
        nn.functional.cross_entropy(logits, tc.tensor([0.0, 1.0, 2.0], device=device))
    with pytest.raises(ValueError, match="to match target batch_size"):
        nn.functional.cross_entropy(logits, tc.zeros(1, 3, device=device))
    with pytest.raises(ValueError, match="batch_size"):
        nn.functional.nll_loss(logits, tc.zeros(2, device=device))  # (shape before dtype)


def test_pointwise_loss_shapes_that_do_not_broadcast(device) -> None:
    with pytest.raises(RuntimeError, match=r"size of tensor a \(3\) must match .* \(4\)"):
        nn.functional.mse_loss(tc.zeros(3, device=device), tc.zeros(4, device=device))


def test_broadcast_shapes_is_a_size() -> None:
    out = tc.broadcast_shapes((3, 1), (4,))
    assert isinstance(out, tc.Size) and out == (3, 4)


def test_cat_of_nothing_split_of_zero_and_batch_norm_of_one(device) -> None:
    with pytest.raises(ValueError, match=r"cat\(\): expected a non-empty list of Tensors"):
        tc.cat([])
    with pytest.raises(RuntimeError, match="split_size can only be 0 if dimension size is 0"):
        tc.zeros(4, device=device).split(0)
    assert [t.shape for t in tc.zeros(0, device=device).split(0)] == [(0,)]
    with pytest.raises(ValueError, match=r"got input size tensorcore\.Size\(\[1, 3\]\)"):
        nn.BatchNorm1d(3).to(device)(tc.ones(1, 3, device=device))


def test_boolean_mask_of_the_wrong_shape_is_pytorchs_index_error(device) -> None:
    x = tc.zeros(3, 4, device=device)
    m = tc.tensor([True, False], device=device)
    with pytest.raises(IndexError, match=r"mask \[2\] at index 0 .* tensor \[3, 4\] at index 1"):
        x[:, m]
    with pytest.raises(IndexError, match=r"mask \[2\] at index 0 .* tensor \[3, 4\] at index 0"):
        x[m] = 1.0
    assert x[tc.ones(3, 4, dtype=tc.bool, device=device)].shape == (12,)
