"""``nn.functional``'s in-place activations (``inplace=True`` and the ``*_`` functions):
where no derivative is recorded they run the operator's in-place variant, writing over the
input (its storage, a new version); under autograd they compute from a copy and copy back.
Values against NumPy's formulas, gradients against central differences of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close

F = tc.nn.functional
_A, _S = 1.6732632423543772, 1.0507009873554805


def _where(x: Any, neg: Any) -> Any:
    return np.where(x > 0, x, neg)


def _clip(lo: float, hi: float) -> Callable[[Any], Any]:
    return lambda x: np.clip(x, lo, hi)


# name -> (call with inplace, NumPy formula); the points below avoid every kink
CASES: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.1, True), lambda x: _where(x, 0.1 * x)),
    "leaky_relu_": (lambda x: F.leaky_relu_(x, 0.1), lambda x: _where(x, 0.1 * x)),
    "elu": (lambda x: F.elu(x, 1.5, True), lambda x: _where(x, 1.5 * np.expm1(x))),
    "elu_": (lambda x: F.elu_(x, 1.5), lambda x: _where(x, 1.5 * np.expm1(x))),
    "selu": (lambda x: F.selu(x, True), lambda x: _S * _where(x, _A * np.expm1(x))),
    "selu_": (F.selu_, lambda x: _S * _where(x, _A * np.expm1(x))),
    "celu": (lambda x: F.celu(x, 0.5, True), lambda x: _where(x, 0.5 * np.expm1(x / 0.5))),
    "celu_": (lambda x: F.celu_(x, 0.5), lambda x: _where(x, 0.5 * np.expm1(x / 0.5))),
    "silu": (lambda x: F.silu(x, True), lambda x: x / (1 + np.exp(-x))),
    "mish": (lambda x: F.mish(x, True), lambda x: x * np.tanh(np.logaddexp(x, 0.0))),
    "hardswish": (lambda x: F.hardswish(x, True), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "hardsigmoid": (lambda x: F.hardsigmoid(x, True), lambda x: np.clip(x + 3, 0, 6) / 6),
    "hardtanh": (lambda x: F.hardtanh(x, -2.0, 2.0, True), _clip(-2.0, 2.0)),
    "hardtanh_": (lambda x: F.hardtanh_(x, -2.0, 2.0), _clip(-2.0, 2.0)),
    "relu6": (lambda x: F.relu6(x, True), _clip(0.0, 6.0)),
    "threshold": (
        lambda x: F.threshold(x, 0.25, -5.0, True),
        lambda x: np.where(x <= 0.25, -5.0, x),
    ),
    "threshold_": (
        lambda x: F.threshold_(x, 0.25, -5.0),
        lambda x: np.where(x <= 0.25, -5.0, x),
    ),
}
_X = np.array([[-4.5, -2.6, -0.7, 0.4], [1.7, 2.3, 4.1, 7.3]])


@pytest.mark.parametrize("name", sorted(CASES))
def test_inplace_activation_writes_over_its_input(device: str, name: str) -> None:
    fn, formula = CASES[name]
    base = tc.tensor(_X.T.copy(), dtype=tc.float32, device=device)
    x = base.t()  # (a non-contiguous view: the write reaches the base)
    version = x._version
    y = fn(x)
    assert y is x and x.untyped_storage() is base.untyped_storage()
    assert x._version > version and x.grad_fn is None
    assert_close(x, formula(_X).astype(np.float32), rtol=1e-5, atol=1e-6)
    assert_close(base, formula(_X).T.astype(np.float32), rtol=1e-5, atol=1e-6)
    with tc.no_grad():  # (a leaf that requires grad, written where nothing is recorded)
        w = tc.tensor(_X, device=device, requires_grad=True)
        assert fn(w) is w
        assert_close(w.detach(), formula(_X), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(CASES))
def test_inplace_activation_gradient(device: str, name: str) -> None:
    fn, formula = CASES[name]
    w = tc.tensor(_X, device=device, requires_grad=True)
    x = w * 1.0
    y = fn(x)
    assert y is x and y.grad_fn is not None
    assert_close(y.detach(), formula(_X), rtol=1e-6, atol=1e-7)
    y.sum().backward()
    h = 1e-6
    want = (formula(_X + h) - formula(_X - h)) / (2 * h)
    assert_close(w.grad, want, rtol=1e-5, atol=1e-6)
