"""The operators behind ``elu``/``selu``/``celu``, ``smooth_l1_loss``, ``huber_loss``,
``binary_cross_entropy`` and ``binary_cross_entropy_with_logits`` (one node each, where
composites recorded five to eleven): values against NumPy's formulas in float64, gradients
against finite differences (gradcheck and gradgradcheck), PyTorch's node names, and the bad
input the kernels check."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F
from tensorcore.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(17)


def _elu(x: Any, alpha: float, scale: float, input_scale: float) -> Any:
    return np.where(x > 0, scale * x, alpha * scale * np.expm1(np.minimum(x, 0) * input_scale))


ACTIVATIONS = {
    "elu": (lambda x: F.elu(x, 0.7), lambda x: _elu(x, 0.7, 1.0, 1.0), "EluBackward0"),
    "selu": (
        F.selu,
        lambda x: _elu(x, 1.6732632423543772, 1.0507009873554805, 1.0),
        "EluBackward0",
    ),
    "celu": (lambda x: F.celu(x, 0.5), lambda x: _elu(x, 0.5, 1.0, 2.0), "CeluBackward0"),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_elu_family_values_gradients_and_node(device: str, name: str) -> None:
    fn, oracle, node = ACTIVATIONS[name]
    a = RNG.standard_normal((3, 5)) * 3
    a[0, :3] = [np.inf, -np.inf, 0.0]
    x = tc.tensor(a, device=device, requires_grad=True)
    y = fn(x)
    assert y.grad_fn.name() == node
    np.testing.assert_allclose(y.detach().cpu().numpy(), oracle(a), rtol=1e-14, atol=0)
    # (away from the kink at 0 for the finite differences)
    s = tc.tensor(RNG.uniform(0.2, 2.0, (2, 3)) * RNG.choice([-1, 1], (2, 3)), device=device)
    s.requires_grad_()
    assert gradcheck(fn, (s,)) and gradgradcheck(fn, (s,))


def test_elu_inplace_and_float32_follow_the_float64_formula(device: str) -> None:
    a = RNG.standard_normal(200).astype(np.float32) * 4
    x = tc.tensor(a, device=device)
    got = F.selu(x).cpu().numpy()
    want = _elu(a.astype(np.float64), 1.6732632423543772, 1.0507009873554805, 1.0)
    np.testing.assert_allclose(got, want, rtol=3e-7, atol=1e-7)
    y = x.clone()
    assert F.elu(y, 0.7, inplace=True) is y
    np.testing.assert_allclose(y.cpu().numpy(), _elu(a, 0.7, 1, 1), rtol=3e-7, atol=1e-7)


def _smooth_l1(d: Any, beta: float) -> Any:
    a = np.abs(d)
    return a if beta == 0 else np.where(a < beta, 0.5 * a * a / beta, a - 0.5 * beta)


def _huber(d: Any, delta: float) -> Any:
    a = np.abs(d)
    return np.where(a <= delta, 0.5 * a * a, delta * (a - 0.5 * delta))


def _reduce(v: Any, reduction: str) -> Any:
    return {"mean": np.mean, "sum": np.sum}.get(reduction, lambda v: v)(v)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(
    ("fn", "oracle", "param", "node"),
    [
        (F.smooth_l1_loss, _smooth_l1, "beta", "SmoothL1LossBackward0"),
        (F.huber_loss, _huber, "delta", "HuberLossBackward0"),
    ],
)
def test_smooth_l1_and_huber(
    device: str, reduction: str, fn: Any, oracle: Any, param: str, node: str
) -> None:
    a, b = RNG.standard_normal((4, 6)) * 2, RNG.standard_normal((4, 6))
    for p in (0.0, 0.5, 2.0) if param == "beta" else (0.5, 2.0):
        x = tc.tensor(a, device=device, requires_grad=True)
        t = tc.tensor(b, device=device, requires_grad=True)
        loss = fn(x, t, reduction=reduction, **{param: p})
        assert loss.grad_fn.name() == node
        want = _reduce(oracle(a - b, p), reduction)
        np.testing.assert_allclose(loss.detach().cpu().numpy(), want, rtol=1e-13, atol=1e-15)
        if p:  # (|d| off the kinks at 0 and p: finite differences)
            xs = tc.tensor(a + np.where(np.abs(np.abs(a - b) - p) < 0.05, 0.2, 0), device=device)
            xs.requires_grad_()

            def f(x: tc.Tensor, t: tc.Tensor, p: float = p) -> tc.Tensor:
                return fn(x, t, reduction=reduction, **{param: p})

            assert gradcheck(f, (xs, t)) and gradgradcheck(f, (xs, t))
    # A 0-d pair, and a broadcast target (the composite's path), agree with the formula.
    x0, t0 = tc.tensor(1.5, device=device), tc.tensor(0.25, device=device)
    assert abs(fn(x0, t0, reduction=reduction).item() - oracle(1.25, 1.0)) < 1e-6
    xb = tc.tensor(a, device=device)
    with pytest.warns(UserWarning, match="different to the input size"):  # (as PyTorch)
        got = fn(xb, tc.tensor(b[0], device=device), reduction=reduction).cpu().numpy()
    np.testing.assert_allclose(got, _reduce(oracle(a - b[0], 1.0), reduction), rtol=1e-13)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_binary_cross_entropy(device: str, reduction: str) -> None:
    p = RNG.uniform(0.05, 0.95, (4, 5))
    p[0, :2] = [0.0, 1.0]  # (the logs clamped at -100)
    t, w = RNG.uniform(0, 1, (4, 5)), RNG.uniform(0.5, 2, 5)
    x = tc.tensor(p, device=device, requires_grad=True)
    tt = tc.tensor(t, device=device, requires_grad=True)
    loss = F.binary_cross_entropy(x, tt, tc.tensor(w, device=device), reduction=reduction)
    assert loss.grad_fn.name() == "BinaryCrossEntropyBackward0"
    with np.errstate(divide="ignore"):
        elem = -w * (t * np.maximum(np.log(p), -100) + (1 - t) * np.maximum(np.log1p(-p), -100))
    np.testing.assert_allclose(loss.detach().cpu().numpy(), _reduce(elem, reduction), rtol=1e-13)
    xs = tc.tensor(p[1:], device=device, requires_grad=True)
    ts = tc.tensor(t[1:], device=device, requires_grad=True)
    ws = tc.tensor(w, device=device, requires_grad=True)

    def f(x: tc.Tensor, t: tc.Tensor, w: tc.Tensor) -> tc.Tensor:
        return F.binary_cross_entropy(x, t, w, reduction=reduction)

    assert gradcheck(f, (xs, ts, ws)) and gradgradcheck(f, (xs, ts, ws))


@pytest.mark.parametrize("bad", [1.5, -0.5, float("nan")])
def test_binary_cross_entropy_refuses_values_outside_the_unit_interval(
    device: str, bad: float
) -> None:
    ok = tc.tensor([0.5, 0.5], device=device)
    off = tc.tensor([0.5, bad], device=device)
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(off, ok)
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(ok, off)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weights", ["none", "weight", "pos_weight", "both"])
def test_binary_cross_entropy_with_logits(device: str, reduction: str, weights: str) -> None:
    x, t = RNG.standard_normal((4, 5)) * 3, RNG.uniform(0, 1, (4, 5))
    x[0, :3] = [0.0, 60.0, -60.0]  # (exp(-|x|) underflowing on both sides)
    w = RNG.uniform(0.5, 2, 5) if weights in ("weight", "both") else None
    pw = RNG.uniform(0.5, 2, 5) if weights in ("pos_weight", "both") else None
    big = 1 + (pw - 1) * t if pw is not None else 1.0
    elem = (1 - t) * x + big * np.logaddexp(-x, 0.0)
    elem = elem * w if w is not None else elem

    def tensor(v: Any) -> Any:
        return None if v is None else tc.tensor(v, device=device, requires_grad=True)

    def f(x: tc.Tensor, t: tc.Tensor, w: Any = None, pw: Any = None) -> tc.Tensor:
        return F.binary_cross_entropy_with_logits(x, t, w, reduction=reduction, pos_weight=pw)

    loss = f(tensor(x), tensor(t), tensor(w), tensor(pw))
    assert loss.grad_fn.name() == "BinaryCrossEntropyWithLogitsBackward0"
    np.testing.assert_allclose(loss.detach().cpu().numpy(), _reduce(elem, reduction), rtol=1e-13)
    small = [tensor(x[1:] / 3), tensor(t[1:]), tensor(w), tensor(pw)]
    assert gradcheck(f, tuple(small)) and gradgradcheck(f, tuple(small))


def test_logsigmoid_is_one_node_and_stable(device: str) -> None:
    a = np.array([-800.0, -30.0, -1.5, 0.0, 2.0, 40.0, 800.0])
    x = tc.tensor(a, device=device, requires_grad=True)
    y = F.logsigmoid(x)
    assert y.grad_fn.name() == "LogSigmoidBackward0"
    np.testing.assert_allclose(y.detach().cpu().numpy(), -np.logaddexp(-a, 0.0), rtol=1e-15)
    y.sum().backward()
    with np.errstate(over="ignore"):
        np.testing.assert_allclose(x.grad.cpu().numpy(), 1 / (1 + np.exp(a)), rtol=1e-15)
    s = tc.tensor(RNG.standard_normal(5) * 3, device=device, requires_grad=True)
    assert gradcheck(F.logsigmoid, (s,)) and gradgradcheck(F.logsigmoid, (s,))
