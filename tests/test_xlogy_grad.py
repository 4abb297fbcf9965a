"""The derivative of ``xlogy``/``special.xlog1py`` in their first argument is ``log(other)``
(``log1p(other)``) also where that argument is 0, as PyTorch's (0 only where the log is not
finite): ``Beta(1, 1)``/``Dirichlet(ones)`` log-densities are ``xlogy(c - 1, x)`` and lost
``log(x)`` from their concentration's gradient."""

from __future__ import annotations

import math

import numpy as np

import tensorcore as tc
from tensorcore.testing import assert_close


def test_xlogy_gradient_in_self_at_zero(device: str) -> None:
    x = tc.tensor([0.0, 0.0, 0.0, 1.0, 2.0], device=device, requires_grad=True)
    y = tc.tensor([0.5, 0.0, -1.0, 0.5, 3.0], device=device, requires_grad=True)
    r = tc.xlogy(x, y)
    assert r.tolist()[:3] == [0.0, 0.0, 0.0]
    gx, gy = tc.autograd.grad(r.sum(), (x, y))
    assert_close(
        gx.cpu().numpy(),
        np.array([math.log(0.5), 0.0, 0.0, math.log(0.5), math.log(3.0)], dtype=np.float32),
    )
    assert_close(gy.cpu().numpy()[[0, 3, 4]], np.array([0.0, 2.0, 2.0 / 3.0], dtype=np.float32))


def test_xlog1py_gradient_in_self_at_zero(device: str) -> None:
    x = tc.tensor([0.0, 0.0, 0.0, 1.0], device=device, requires_grad=True)
    y = tc.tensor([0.5, -1.0, -2.0, 0.5], device=device)
    r = tc.special.xlog1py(x, y)
    assert r.tolist()[:3] == [0.0, 0.0, 0.0]
    (gx,) = tc.autograd.grad(r.sum(), x)
    assert_close(
        gx.cpu().numpy(), np.array([math.log1p(0.5), 0.0, 0.0, math.log1p(0.5)], dtype=np.float32)
    )
    assert (
        tc.special.xlog1py(
            tc.tensor([0.0], device=device), tc.tensor([math.inf], device=device)
        ).item()
        == 0.0
    )


def test_beta_log_prob_gradient_at_unit_concentration(device: str) -> None:
    a = tc.tensor(1.0, dtype=tc.float64, device=device, requires_grad=True)
    b = tc.tensor(1.0, dtype=tc.float64, device=device, requires_grad=True)
    v = tc.tensor([0.2, 0.7], dtype=tc.float64, device=device)
    ga, gb = tc.autograd.grad(tc.distributions.Beta(a, b).log_prob(v).sum(), (a, b))
    # d/da log Beta(v; a, b) = log v + digamma(a + b) - digamma(a) = log v + 1 at a = b = 1
    assert_close(ga.item(), math.log(0.2) + math.log(0.7) + 2.0)
    assert_close(gb.item(), math.log(0.8) + math.log(0.3) + 2.0)
