"""The reparameterisation gradient of ``Dirichlet``/``Beta`` ``rsample`` is PyTorch's: each
coordinate's implicit derivative through its Beta marginal (``_dirichlet_grad``), checked
against finite differences of SciPy's regularised incomplete beta function, and unbiased for
the gradient of the mean."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.distributions._samplers import dirichlet_grad
from tensorcore.testing import assert_close

special = pytest.importorskip("scipy.special")
stats = pytest.importorskip("scipy.stats")


def _implicit(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``-(dI_x(a, b)/da) / density(x) / (1 - x)`` by central differences in float64."""
    h = 1e-6 * a
    da = (special.betainc(a + h, b, x) - special.betainc(a - h, b, x)) / (2 * h)
    return -da / stats.beta.pdf(x, a, b) / (1 - x)


def test_dirichlet_grad_is_the_implicit_marginal_derivative() -> None:
    rng = np.random.default_rng(0)
    a = np.exp(rng.uniform(-2.5, 2.5, 300))
    b = np.exp(rng.uniform(-2.5, 2.5, 300))
    x = np.clip(stats.beta.rvs(a, b, random_state=1), 1e-9, 1 - 1e-9)
    got = dirichlet_grad(tc.tensor(x), tc.tensor(a), tc.tensor(a + b)).numpy()
    assert_close(got, _implicit(a, b, x), rtol=2e-5, atol=1e-9)


def test_beta_and_dirichlet_rsample_gradients(device: str) -> None:
    tc.manual_seed(0)
    a = tc.tensor([0.8, 2.0, 5.0], dtype=tc.float64, device=device, requires_grad=True)
    b = tc.tensor([1.5, 3.0, 0.4], dtype=tc.float64, device=device, requires_grad=True)
    x = tc.distributions.Beta(a, b).rsample()
    ga, gb = tc.autograd.grad(x.sum(), (a, b))
    xn, an, bn = x.detach().cpu().numpy(), a.detach().cpu().numpy(), b.detach().cpu().numpy()
    # a Beta draw is the first coordinate of a Dirichlet([a, b]) draw: dx/da = g_a (1 - x)
    assert_close(ga.cpu().numpy(), _implicit(an, bn, xn) * (1 - xn), rtol=1e-5, atol=1e-10)
    # dx/db = g_b * (-x), g_b the marginal derivative of 1 - x in b
    assert_close(gb.cpu().numpy(), -_implicit(bn, an, 1 - xn) * xn, rtol=1e-5, atol=1e-10)


def test_dirichlet_rsample_gradient_is_unbiased(device: str) -> None:
    tc.manual_seed(1)
    c = tc.tensor([1.0, 2.0, 3.0], dtype=tc.float64, device=device, requires_grad=True)
    x = tc.distributions.Dirichlet(c).rsample((5000,))
    (g,) = tc.autograd.grad(x[:, 0].mean(), c)
    # d/dc E[x_0] = d/dc c_0 / sum(c)
    want = np.array([5.0, -1.0, -1.0]) / 36.0
    assert_close(g.cpu().numpy(), want, rtol=0, atol=6e-3)
    assert tc.distributions.Dirichlet(c.detach()).rsample().requires_grad is False
