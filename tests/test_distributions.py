"""``tensorcore.distributions``: densities and entropies against their formulas (NumPy),
sample statistics, shapes, and reparameterised gradients."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.distributions import Bernoulli, Categorical, Normal, Uniform
from tensorcore.testing import assert_close

F64 = tc.float64


def test_normal(device: str) -> None:
    loc = tc.tensor([0.0, 1.0], dtype=F64, device=device)
    d = Normal(loc, 2.0)
    x = np.array([0.5, -1.0])
    want = -((x - [0.0, 1.0]) ** 2) / 8 - math.log(2) - 0.5 * math.log(2 * math.pi)
    assert_close(d.log_prob(tc.tensor(x, device=device)), want)
    assert_close(d.entropy(), np.full(2, 0.5 + 0.5 * math.log(2 * math.pi) + math.log(2)))
    assert_close(d.cdf(loc), np.full(2, 0.5))
    tc.manual_seed(0)
    s = d.sample((20000,))
    assert s.shape == (20000, 2) and not s.requires_grad
    assert np.allclose(s.mean(0).tolist(), [0.0, 1.0], atol=0.05)
    assert np.allclose(s.std(0).tolist(), [2.0, 2.0], atol=0.05)
    mu = tc.tensor(0.5, dtype=F64, device=device, requires_grad=True)
    Normal(mu, 1.0).rsample((10,)).sum().backward()
    assert mu.grad.item() == pytest.approx(10.0)
    with pytest.raises(ValueError, match=r"parameter scale .* GreaterThan\(lower_bound=0.0\)"):
        Normal(0.0, -1.0)


def test_uniform_and_bernoulli(device: str) -> None:
    u = Uniform(tc.tensor(1.0, device=device), tc.tensor(3.0, device=device), validate_args=False)
    assert_close(
        u.log_prob(tc.tensor([2.0, 4.0], device=device)),
        np.array([-math.log(2), -np.inf], dtype=np.float32),
    )
    assert u.entropy().item() == pytest.approx(math.log(2))
    s = u.sample((1000,))
    assert float(s.min()) >= 1.0 and float(s.max()) < 3.0
    b = Bernoulli(probs=tc.tensor([0.2, 0.9], dtype=F64, device=device))
    assert_close(b.log_prob(tc.tensor([1.0, 0.0], dtype=F64, device=device)),
                 np.log([0.2, 0.1]))  # fmt: skip
    p = np.array([0.2, 0.9])
    assert_close(b.entropy(), -(p * np.log(p) + (1 - p) * np.log(1 - p)))
    tc.manual_seed(1)
    assert np.allclose(b.sample((5000,)).mean(0).tolist(), [0.2, 0.9], atol=0.03)
    lb = Bernoulli(logits=tc.tensor([0.0], device=device))
    assert lb.probs.item() == pytest.approx(0.5)


def test_categorical(device: str) -> None:
    probs = np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    d = Categorical(probs=tc.tensor(probs * 3, dtype=F64, device=device))  # normalised
    assert d.batch_shape == (2,) and d.event_shape == ()
    assert_close(d.log_prob(tc.tensor([2, 0], device=device)), np.log([0.7, 0.5]))
    assert_close(d.entropy(), -(probs * np.log(probs)).sum(1))
    tc.manual_seed(2)
    s = d.sample((6000,))
    assert s.shape == (6000, 2) and s.dtype is tc.int64
    freq = np.stack([np.bincount(s[:, i].cpu().numpy(), minlength=3) / 6000 for i in range(2)])
    assert np.allclose(freq, probs, atol=0.03)
    lg = Categorical(logits=tc.tensor([0.0, 0.0], device=device))
    assert lg.probs.tolist() == [0.5, 0.5]
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        Categorical()


def test_pytorchs_per_distribution_module_paths() -> None:
    # ``from torch.distributions.categorical import Categorical`` (CleanRL, most RL code).
    import importlib

    from tensorcore.distributions import _module_paths

    for name, names in _module_paths.MODULES.items():
        module = importlib.import_module(f"tensorcore.distributions.{name}")
        assert module is getattr(tc.distributions, name)
        assert module.__all__ == list(names)
        for n in names:
            assert getattr(module, n) is getattr(
                tc.distributions, n, getattr(tc.distributions.relaxed, n, None)
            )
    from tensorcore.distributions.categorical import Categorical as C
    from tensorcore.distributions.normal import Normal as N

    assert C is Categorical and N is tc.distributions.Normal
    from tensorcore.distributions.relaxed_bernoulli import LogitRelaxedBernoulli

    assert LogitRelaxedBernoulli.__name__ == "LogitRelaxedBernoulli"


def test_logit_parameterised_log_probs_are_smooth_at_zero_logits() -> None:
    # A policy or classifier with a zero-initialised last layer starts at logits exactly 0:
    # d/dlogit of log p(v) is v - sigmoid(0) for Bernoulli, k - n sigmoid(0) for Binomial
    # (a softplus written with clamp(min=0) had the gradient of sigmoid = 1 there).
    v = tc.tensor([1.0, 0.0, 1.0], dtype=tc.float64)
    lg = tc.zeros(3, dtype=tc.float64, requires_grad=True)
    tc.distributions.Bernoulli(logits=lg).log_prob(v).sum().backward()
    assert lg.grad is not None
    np.testing.assert_allclose(lg.grad.numpy(), [0.5, -0.5, 0.5], rtol=0, atol=1e-15)
    lg.grad = None
    tc.distributions.Binomial(total_count=4.0, logits=lg).log_prob(v * 3).sum().backward()
    np.testing.assert_allclose(lg.grad.numpy(), [1.0, -2.0, 1.0], rtol=0, atol=1e-15)
    lg.grad = None
    tc.distributions.Bernoulli(logits=lg).entropy().sum().backward()  # maximal at 0
    np.testing.assert_allclose(lg.grad.numpy(), [0.0, 0.0, 0.0], rtol=0, atol=1e-15)
