"""``tc.nn.functional.linear_cross_entropy`` and ``tc.nn.LinearCrossEntropyLoss`` (PyTorch
2.13): values against NumPy, gradients against finite differences, K-dimensional weights,
probability targets, PyTorch's errors and its ``options`` handling."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F
from tensorcore.testing import assert_close

RNG = np.random.default_rng(7)


def _np_loss(
    x: Any,
    W: Any,
    t: Any,
    b: Any = None,
    w: Any = None,
    reduction: str = "mean",
    ignore: int = -100,
) -> Any:
    """NumPy cross entropy of ``x @ W.T + b`` against class indices ``t`` (class dim 1)."""
    z = x @ W.reshape(W.shape[0] * int(np.prod(W.shape[1:-1])), -1).T
    if b is not None:
        z = z + b.reshape(-1)
    z = z.reshape((x.shape[0], *W.shape[:-1])) if x.ndim == 2 else z
    cls = 1 if x.ndim == 2 else 0
    logp = (
        z
        - np.log(np.exp(z - z.max(cls, keepdims=True)).sum(cls, keepdims=True))
        - z.max(cls, keepdims=True)
    )
    keep = t != ignore
    safe = np.where(keep, t, 0)
    picked = np.take_along_axis(logp, np.expand_dims(safe, cls), cls).squeeze(cls)
    wt = (np.ones(W.shape[0]) if w is None else w)[safe] * keep
    losses = -picked * wt
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.sum() / wt.sum()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_matches_numpy_with_bias_weights_and_ignore_index(device: str, reduction: str) -> None:
    x, W, b = RNG.standard_normal((6, 4)), RNG.standard_normal((5, 4)), RNG.standard_normal(5)
    t, w = np.array([0, 4, 2, 2, 1, 3]), RNG.uniform(0.5, 2.0, 5)
    T = lambda a: tc.tensor(a, device=device)  # noqa: E731
    got = F.linear_cross_entropy(
        T(x), T(W), T(t), linear_bias=T(b), weight=T(w), reduction=reduction, ignore_index=2
    )
    assert_close(got, _np_loss(x, W, t, b, w, reduction, ignore=2), rtol=1e-10, atol=1e-12)
    # unbatched input, no bias, the default ignore_index (-100)
    assert_close(F.linear_cross_entropy(T(x[0]), T(W), T(t[0])), _np_loss(x[:1], W, t[:1]))


def test_k_dimensional_weights(device: str) -> None:
    x, W = RNG.standard_normal((3, 4)), RNG.standard_normal((5, 2, 3, 4))
    b, t = RNG.standard_normal((5, 2, 3)), RNG.integers(0, 5, (3, 2, 3))
    T = lambda a: tc.tensor(a, device=device)  # noqa: E731
    got = F.linear_cross_entropy(T(x), T(W), T(t), linear_bias=T(b), reduction="none")
    assert got.shape == (3, 2, 3)
    assert_close(got, _np_loss(x, W, t, b, reduction="none"), rtol=1e-10, atol=1e-12)


def test_probability_targets_and_label_smoothing_are_cross_entropys(device: str) -> None:
    x, W = (
        tc.randn(4, 3, dtype=tc.float64, device=device),
        tc.randn(5, 3, dtype=tc.float64, device=device),
    )
    p = tc.softmax(tc.randn(4, 5, dtype=tc.float64, device=device), 1)
    logits = x @ W.mT
    assert_close(F.linear_cross_entropy(x, W, p), F.cross_entropy(logits, p))
    t = tc.tensor([0, 1, 4, 2], device=device)
    assert_close(
        F.linear_cross_entropy(x, W, t, label_smoothing=0.3),
        F.cross_entropy(logits, t, label_smoothing=0.3),
    )
    with pytest.raises(RuntimeError, match="ignore_index cannot be specified when target contains"):
        F.linear_cross_entropy(x, W, p, ignore_index=-100)


def test_gradients(device: str) -> None:
    x = tc.randn(4, 3, dtype=tc.float64, device=device, requires_grad=True)
    W = tc.randn(5, 3, dtype=tc.float64, device=device, requires_grad=True)
    b = tc.randn(5, dtype=tc.float64, device=device, requires_grad=True)
    t = tc.tensor([0, 1, 4, 2], device=device)
    w = tc.tensor([1.0, 2.0, 0.5, 1.0, 3.0], dtype=tc.float64, device=device)
    fn = lambda x, W, b: F.linear_cross_entropy(  # noqa: E731
        x, W, t, linear_bias=b, weight=w, label_smoothing=0.1
    )
    assert tc.autograd.gradcheck(fn, (x, W, b))
    W3 = tc.randn(5, 2, 3, dtype=tc.float64, device=device, requires_grad=True)
    t3 = tc.tensor([[0, 1], [4, 2], [3, 3], [1, 0]], device=device)
    assert tc.autograd.gradcheck(lambda x, W: F.linear_cross_entropy(x, W, t3), (x, W3))


def test_errors_are_pytorchs(device: str) -> None:
    x, W = tc.randn(4, 3, device=device), tc.randn(5, 3, device=device)
    t = tc.tensor([0, 1, 4, 2], device=device)
    cases: list[tuple[Any, str]] = [
        (lambda: F.linear_cross_entropy(x[None], W, t), "dimensionality 1 or 2, got 3"),
        (
            lambda: F.linear_cross_entropy(x, W[0], t),
            "linear_weight with dimensionality at least 2",
        ),
        (lambda: F.linear_cross_entropy(x, W[:, :2], t), "got 3 and 2, respectively"),
        (
            lambda: F.linear_cross_entropy(x, W, t, linear_bias=tc.zeros(4, device=device)),
            r"expected linear_bias shape \(5,\), got \(4,\)",
        ),
        (
            lambda: F.linear_cross_entropy(x[0], tc.randn(5, 2, 3, device=device), t[0]),
            "requires batched input",
        ),
    ]
    for fn, match in cases:
        with pytest.raises(RuntimeError, match=match):
            fn()


def test_options_are_checked_and_give_the_same_result(device: str) -> None:
    x, W = tc.randn(4, 3, device=device), tc.randn(5, 3, device=device)
    t = tc.tensor([0, 1, 4, 2], device=device)
    opts = tc.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_close(F.linear_cross_entropy(x, W, t, options=opts), F.linear_cross_entropy(x, W, t))
    with pytest.warns(UserWarning, match="``options`` ignored; chunked path needs"):
        F.linear_cross_entropy(x, W, t, label_smoothing=0.1, options=opts)
    for bad in ({"acc_policy": "fast"}, {"chunking_method": "rows"}, {"batch_chunk_size": 0}):
        with pytest.raises(ValueError):
            tc.nn.LinearCrossEntropyOptions(**bad)
    assert tc.nn.LinearCrossEntropyOptions(chunking_method="aspect_ratio:2").acc_dtype is None


def test_module(device: str) -> None:
    w = tc.tensor([1.0, 2.0, 0.5], device=device)
    loss = tc.nn.LinearCrossEntropyLoss(
        4, 3, out_features=(2,), bias=True, weight=w, ignore_index=1, device=device
    )
    assert loss.linear.weight.shape == (6, 4) and loss.linear.bias.shape == (6,)
    assert [n for n, _ in loss.named_buffers()] == ["weight"]
    x = tc.randn(5, 4, device=device)
    t = tc.tensor([[0, 1], [2, 2], [1, 0], [0, 0], [2, 1]], device=device)
    expected = F.linear_cross_entropy(
        x,
        loss.linear.weight.reshape(3, 2, 4),
        t,
        linear_bias=loss.linear.bias.reshape(3, 2),
        weight=w,
        ignore_index=1,
    )
    got = loss(x, t)
    assert_close(got, expected)
    got.backward()
    assert loss.linear.weight.grad is not None and loss.linear.weight.grad.shape == (6, 4)
    assert "num_classes=3, out_features=(2,), bias=True" in repr(loss)
    with pytest.raises(RuntimeError, match=r"expected weight shape to be \(3,\), got \(2,\)"):
        tc.nn.LinearCrossEntropyLoss(4, 3, weight=tc.ones(2))
    with pytest.raises(RuntimeError, match=r"label_smoothing to be in range \[0, 1\]"):
        tc.nn.LinearCrossEntropyLoss(4, 3, label_smoothing=1.5)
