"""``tc.utils.checkpoint``: gradients through a checkpointed region equal the plain ones
(dropout included, through the rewound random streams), parameters inside the region get
theirs, and PyTorch's warnings and argument checks."""

from __future__ import annotations

from typing import Any

import pytest

import tensorcore as tc
from tensorcore.testing import assert_close
from tensorcore.utils.checkpoint import checkpoint, checkpoint_sequential

VARIANTS = [pytest.param(True, id="reentrant"), pytest.param(False, id="non-reentrant")]


def _mlp(device: str) -> tc.nn.Module:
    tc.manual_seed(0)
    return tc.nn.Sequential(
        tc.nn.Linear(4, 8),
        tc.nn.Tanh(),
        tc.nn.Dropout(0.5),
        tc.nn.Linear(8, 8),
        tc.nn.Dropout(0.3),
        tc.nn.Linear(8, 2),
    ).to(device)


def _grads(net: tc.nn.Module, x: tc.Tensor, run: Any) -> list[Any]:
    net.zero_grad()
    x = x.detach().requires_grad_()
    tc.manual_seed(7)
    y = run(net, x)
    tc.rand(5, device=x.device)  # moves the streams between the forward and backward passes
    (y * y).sum().backward()
    return [x.grad] + [p.grad for p in net.parameters()]


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_gradients_equal_the_plain_ones_with_dropout(device: str, reentrant: bool) -> None:
    net = _mlp(device)
    x = tc.randn(3, 4, device=device)
    want = _grads(net, x, lambda n, t: n(t))
    got = _grads(net, x, lambda n, t: checkpoint(n, t, use_reentrant=reentrant))
    for g, w in zip(got, want, strict=True):
        assert g is not None
        assert_close(g, w)


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_without_preserving_the_rng_state_dropout_masks_differ(
    device: str, reentrant: bool
) -> None:
    net = _mlp(device)
    x = tc.randn(3, 4, device=device)
    want = _grads(net, x, lambda n, t: n(t))
    got = _grads(
        net,
        x,
        lambda n, t: checkpoint(n, t, use_reentrant=reentrant, preserve_rng_state=False),
    )
    with pytest.raises(AssertionError):
        assert_close(got[0], want[0])


def test_the_backward_pass_leaves_the_random_stream_where_it_was() -> None:
    net = _mlp("cpu")
    x = tc.randn(3, 4, requires_grad=True)
    tc.manual_seed(1)
    y = checkpoint(net, x, use_reentrant=False)
    after_forward = tc.rand(3)
    tc.manual_seed(1)
    y = checkpoint(net, x, use_reentrant=False)
    y.sum().backward()  # rewinds the stream to recompute, then puts it back
    assert_close(tc.rand(3), after_forward)


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_the_function_runs_again_on_the_backward_pass_recording_only_then(
    reentrant: bool,
) -> None:
    recording: list[bool] = []
    w = tc.tensor([2.0, 3.0], requires_grad=True)

    def f(a: tc.Tensor, scale: float) -> tuple[tc.Tensor, tc.Tensor]:
        recording.append(tc.is_grad_enabled())
        return (a * w).sin() * scale, a.cos()

    x = tc.tensor([0.5, -1.0], requires_grad=True)
    y, z = checkpoint(f, x, 3.0, use_reentrant=reentrant)
    assert recording == [False] and y.requires_grad and z.requires_grad
    (y.sum() + 2 * z.sum()).backward()
    assert recording == [False, True]
    xv, wv = x.detach(), w.detach()
    assert_close(x.grad, 3.0 * (xv * wv).cos() * wv - 2 * xv.sin())
    assert_close(w.grad, 3.0 * (xv * wv).cos() * xv)


def test_use_reentrant_left_out_warns_as_pytorch_does() -> None:
    x = tc.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        checkpoint(tc.sin, x)
    net = tc.nn.Sequential(tc.nn.Linear(2, 2), tc.nn.Linear(2, 2))
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant parameter"):
        checkpoint_sequential(net, 2, x)


def test_inputs_without_grad() -> None:
    lin = tc.nn.Linear(2, 2)
    x = tc.ones(1, 2)
    # PyTorch's reentrant variant: the output does not require grad, with a warning
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        y = checkpoint(lin, x, use_reentrant=True)
    assert not y.requires_grad
    # the non-reentrant one reaches the parameters used inside
    y = checkpoint(lin, x, use_reentrant=False)
    y.sum().backward()
    assert lin.weight.grad is not None and lin.weight.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    with tc.no_grad():
        assert not checkpoint(lin, x, use_reentrant=False).requires_grad


def test_keyword_arguments() -> None:
    x = tc.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        checkpoint(lambda a, scale: a * scale, x, use_reentrant=True, scale=2.0)
    y = checkpoint(lambda a, scale: a * scale, x, use_reentrant=False, scale=2.0)
    y.sum().backward()
    assert x.grad is not None and x.grad.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("reentrant", VARIANTS)
def test_checkpoint_sequential_matches_the_plain_sequential(device: str, reentrant: bool) -> None:
    net = _mlp(device)
    x = tc.randn(3, 4, device=device)
    want = _grads(net, x, lambda n, t: n(t))
    for segments in (1, 2, 3):
        got = _grads(
            net,
            x,
            lambda n, t, k=segments: checkpoint_sequential(n, k, t, use_reentrant=reentrant),
        )
        for g, w in zip(got, want, strict=True):
            assert g is not None
            assert_close(g, w)
    got = _grads(net, x, lambda n, t: checkpoint_sequential(list(n), 2, t, use_reentrant=reentrant))
    assert_close(got[1], want[1])
