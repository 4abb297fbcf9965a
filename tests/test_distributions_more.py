"""The distributions beyond Normal/Uniform/Bernoulli/Categorical: densities, entropies and
moments against ``scipy.stats``, sample statistics, reparameterised gradients (gradcheck, and
the implicit gamma gradient against SciPy's incomplete gamma), validation errors, ``expand``
and the KL pairs (against numerical integration or exact sums)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from scipy import integrate, special, stats

import tensorcore as tc
from tensorcore.autograd import gradcheck
from tensorcore.distributions import (
    Beta,
    Binomial,
    Dirichlet,
    Exponential,
    Gamma,
    Independent,
    Laplace,
    LogNormal,
    MultivariateNormal,
    Normal,
    OneHotCategorical,
    Poisson,
    kl_divergence,
)
from tensorcore.distributions._samplers import standard_gamma_grad
from tensorcore.testing import assert_close

F64 = tc.float64


def t(x: Any) -> tc.Tensor:
    return tc.tensor(x, dtype=F64)


# (distribution, scipy frozen distribution, values inside the support)
def _cases() -> list[tuple[Any, Any, Any]]:
    return [
        (Exponential(t([0.5, 2.0])), stats.expon(scale=1 / np.array([0.5, 2.0])), [0.3, 1.7]),
        (Laplace(t([0.0, 1.0]), t([1.0, 0.5])), stats.laplace([0.0, 1.0], [1.0, 0.5]), [0.4, -2]),
        (
            LogNormal(t([0.0, 0.5]), t([1.0, 0.3])),
            stats.lognorm([1.0, 0.3], scale=np.exp([0, 0.5])),
            [0.7, 2.0],
        ),
        (
            Gamma(t([0.5, 3.0]), t([1.0, 2.0])),
            stats.gamma([0.5, 3.0], scale=[1.0, 0.5]),
            [0.2, 1.1],
        ),
        (Beta(t([0.5, 2.0]), t([3.0, 2.0])), stats.beta([0.5, 2.0], [3.0, 2.0]), [0.1, 0.6]),
    ]


@pytest.mark.parametrize("i", range(5))
def test_continuous_against_scipy(i: int) -> None:
    d, ref, x = _cases()[i]
    assert d.batch_shape == (2,) and d.event_shape == ()
    assert_close(d.log_prob(t(x)), ref.logpdf(x))
    assert_close(d.entropy(), ref.entropy())
    assert_close(d.mean, ref.mean())
    assert_close(d.variance, ref.var())
    assert_close(d.stddev, ref.std())
    tc.manual_seed(i)
    s = d.sample((20000,))
    assert s.shape == (20000, 2) and not s.requires_grad
    assert np.allclose(s.mean(0).numpy(), ref.mean(), rtol=0.08, atol=0.02)
    for j in range(2):
        cdf = lambda v, j=j: ref.cdf(np.stack([v, v], -1))[:, j]  # noqa: E731
        assert stats.kstest(s[:, j].numpy(), cdf).pvalue > 1e-3
    e = d.expand((3, 2))
    assert e.batch_shape == (3, 2) and e.log_prob(t(x)).shape == (3, 2)


def test_discrete_against_scipy() -> None:
    d = Poisson(t([0.5, 30.0]))
    k = np.array([1.0, 28.0])
    assert_close(d.log_prob(t(k)), stats.poisson.logpmf(k, [0.5, 30.0]))
    assert_close(d.mean, t([0.5, 30.0]))
    assert_close(d.variance, t([0.5, 30.0]))
    tc.manual_seed(3)
    s = d.sample((20000,))
    assert np.allclose(s.mean(0).numpy(), [0.5, 30.0], rtol=0.03)
    assert np.allclose(s.var(0).numpy(), [0.5, 30.0], rtol=0.06)
    b = Binomial(t([10.0, 10.0]), probs=t([0.3, 0.8]))
    kk = np.array([3.0, 10.0])
    assert_close(b.log_prob(t(kk)), stats.binom.logpmf(kk, 10, [0.3, 0.8]))
    assert_close(b.entropy(), stats.binom.entropy(10, [0.3, 0.8]))
    bl = Binomial(10, logits=t([0.0]))
    assert_close(bl.log_prob(t([5.0])), stats.binom.logpmf([5], 10, 0.5))
    s = b.sample((20000,))
    assert np.allclose(s.mean(0).numpy(), [3.0, 8.0], rtol=0.03)
    assert np.allclose(s.var(0).numpy(), [2.1, 1.6], rtol=0.08)
    assert b.enumerate_support().shape == (11, 2)
    oh = OneHotCategorical(t([0.2, 0.3, 0.5]))
    assert_close(oh.log_prob(t([0.0, 0.0, 1.0])), math.log(0.5))
    assert_close(oh.entropy(), stats.multinomial(1, [0.2, 0.3, 0.5]).entropy())
    s = oh.sample((6000,))
    assert s.shape == (6000, 3) and bool((s.sum(-1) == 1).all())
    assert np.allclose(s.mean(0).numpy(), [0.2, 0.3, 0.5], atol=0.03)
    assert oh.enumerate_support().shape == (3, 3)


def test_dirichlet_and_multivariate_normal_against_scipy() -> None:
    c = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])
    d = Dirichlet(t(c))
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    x = np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    assert_close(
        d.log_prob(t(x)), [stats.dirichlet(ci).logpdf(xi) for ci, xi in zip(c, x, strict=True)]
    )
    assert_close(d.entropy(), [stats.dirichlet(ci).entropy() for ci in c])
    assert_close(d.variance, [stats.dirichlet(ci).var() for ci in c])
    tc.manual_seed(4)
    s = d.sample((20000,))
    assert np.allclose(s.mean(0).numpy(), c / c.sum(1, keepdims=True), atol=0.01)
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    loc = np.array([1.0, -1.0])
    ref = stats.multivariate_normal(loc, cov)
    y = np.array([[0.0, 0.0], [1.5, -2.0]])
    for m in (
        MultivariateNormal(t(loc), covariance_matrix=t(cov)),
        MultivariateNormal(t(loc), precision_matrix=t(np.linalg.inv(cov))),
        MultivariateNormal(t(loc), scale_tril=t(np.linalg.cholesky(cov))),
    ):
        assert_close(m.log_prob(t(y)), ref.logpdf(y))
        assert_close(m.entropy(), ref.entropy())
        assert_close(m.covariance_matrix, cov)
        assert_close(m.precision_matrix, np.linalg.inv(cov))
        assert_close(m.variance, np.diag(cov))
    s = m.sample((20000,))
    assert np.allclose(np.cov(s.numpy().T), cov, atol=0.08)
    batched = MultivariateNormal(t(np.zeros((4, 2))), t(cov))
    assert batched.batch_shape == (4,) and batched.log_prob(t(y[0])).shape == (4,)
    assert batched.expand((3, 4)).sample().shape == (3, 4, 2)
    ind = Independent(Normal(t(np.zeros((3, 2))), 1.0), 1)
    assert ind.batch_shape == (3,) and ind.event_shape == (2,)
    assert_close(ind.log_prob(t(np.zeros((3, 2)))), np.full(3, 2 * stats.norm.logpdf(0)))
    assert_close(ind.entropy(), np.full(3, 2 * stats.norm.entropy()))
    assert ind.has_rsample and ind.expand((5, 3)).batch_shape == (5, 3)


def test_gradients_of_log_prob_and_rsample() -> None:
    x = t([0.3, 1.2])

    def lp(make: Any) -> Any:
        return lambda *ps: make(*ps).log_prob(x)

    a, b = t([0.7, 2.0]).requires_grad_(), t([1.5, 0.5]).requires_grad_()
    for make in (Gamma, Laplace, LogNormal):
        assert gradcheck(lp(make), (a, b))
    assert gradcheck(lambda r: Exponential(r).log_prob(x), (a,))
    assert gradcheck(lambda r: Poisson(r).log_prob(t([1.0, 3.0])), (a,))
    assert gradcheck(lambda p, q: Beta(p, q).log_prob(t([0.3, 0.9])), (a, b))
    assert gradcheck(lambda c: Dirichlet(c).log_prob(t([0.3, 0.7])), (a,))
    L = t([[1.0, 0.0], [0.4, 0.8]]).requires_grad_()
    assert gradcheck(
        lambda loc, L: MultivariateNormal(loc, scale_tril=L.tril()).log_prob(x), (b, L)
    )

    def seeded(make: Any) -> Any:
        def f(*ps: Any) -> Any:
            tc.manual_seed(0)
            return make(*ps).rsample((3,))

        return f

    for make in (Laplace, LogNormal):
        assert gradcheck(seeded(make), (a, b))
    assert gradcheck(seeded(Exponential), (a,))
    assert gradcheck(seeded(lambda loc, L: MultivariateNormal(loc, scale_tril=L.tril())), (b, L))
    # Gamma's rate enters pathwise; its concentration through the implicit gradient.
    assert gradcheck(seeded(lambda r: Gamma(t([2.0, 0.5]), r)), (b,))
    c = t([2.0, 0.5]).requires_grad_()
    tc.manual_seed(0)
    g = Gamma(c, 1.0).rsample()
    g.sum().backward()
    assert_close(c.grad, standard_gamma_grad(g.detach(), c.detach()))
    for make in (lambda: Dirichlet(c).rsample(), lambda: Beta(c, c).rsample()):
        c.grad = None
        make().sum().backward()
        assert c.grad is not None and bool(c.grad.isfinite().all())


def test_implicit_gamma_gradient_against_scipy() -> None:
    alpha = np.array([0.05, 0.3, 1.0, 4.5, 50.0, 2.0, 800.0])
    x = np.array([1e-5, 0.05, 2.0, 3.0, 55.0, 10.0, 760.0])
    h = 1e-6
    dP = (special.gammainc(alpha + h, x) - special.gammainc(alpha - h, x)) / (2 * h)
    want = -dP / stats.gamma.pdf(x, alpha)
    assert_close(standard_gamma_grad(t(x), t(alpha)), want, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: Gamma(t([-1.0, 1.0]), 1.0), r"parameter concentration \(Tensor of shape \(2,\)\)"),
        (lambda: Exponential(0.0), r"constraint GreaterThan\(lower_bound=0.0\)"),
        (lambda: Poisson(t(-1.0)), r"GreaterThanEq\(lower_bound=0.0\)"),
        # As PyTorch's, Beta reports its Dirichlet's parameter.
        (
            lambda: Beta(1.0, -1.0),
            r"parameter concentration \(Tensor of shape \(2,\)\) of distribution Dirichlet",
        ),
        (lambda: Binomial(2.5, t(0.5)), "parameter total_count"),
        (lambda: Dirichlet(t(1.0)), "`concentration` parameter must be at least one-dimensional"),
        (lambda: MultivariateNormal(t([0.0, 0.0])), "Exactly one of covariance_matrix"),
        (lambda: MultivariateNormal(t([0.0, 0.0]), -tc.eye(2, dtype=F64)), "PositiveDefinite"),
        (
            lambda: MultivariateNormal(t([0.0, 0.0]), scale_tril=t([[1.0, 1.0], [0.0, 1.0]])),
            "LowerCholesky",
        ),
        (lambda: MultivariateNormal(t(0.0), tc.eye(1)), "loc must be at least one-dimensional"),
        (lambda: Independent(Normal(t([0.0]), 1.0), 2), "reinterpreted_batch_ndims <= len"),
        (lambda: Gamma(1.0, 1.0).log_prob(t(-1.0)), r"within the support \(GreaterThanEq"),
        (lambda: Beta(1.0, 1.0).log_prob(t(2.0)), r"support \(Interval\(lower_bound=0.0"),
        (lambda: Binomial(3, t(0.5)).log_prob(t(1.5)), "IntegerInterval"),
        (lambda: Poisson(t(1.0)).log_prob(t(0.5)), "within the support"),
    ],
)
def test_validation_errors(make: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make()


def test_validation_can_be_turned_off() -> None:
    assert Gamma(-1.0, 1.0, validate_args=False).batch_shape == ()
    Gamma(1.0, 1.0, validate_args=False).log_prob(t(-1.0))
    tc.distributions.Distribution.set_default_validate_args(False)
    try:
        Exponential(-1.0)
    finally:
        tc.distributions.Distribution.set_default_validate_args(True)


def _kl_quad(p: Any, q: Any, lo: float, hi: float) -> float:
    def f(v: float) -> float:
        lp, lq = p.log_prob(t(v)).item(), q.log_prob(t(v)).item()
        return math.exp(lp) * (lp - lq)

    return integrate.quad(f, lo, hi, limit=200)[0]


@pytest.mark.parametrize(
    ("p", "q", "lo", "hi"),
    [
        (lambda: Gamma(t(2.0), t(1.5)), lambda: Gamma(t(3.0), t(0.5)), 0, np.inf),
        (lambda: Exponential(t(2.0)), lambda: Exponential(t(0.5)), 0, np.inf),
        (lambda: Exponential(t(2.0)), lambda: Gamma(t(1.5), t(0.5)), 0, np.inf),
        (lambda: Gamma(t(2.0), t(1.5)), lambda: Exponential(t(0.5)), 0, np.inf),
        (lambda: Laplace(t(0.0), t(1.0)), lambda: Laplace(t(1.0), t(2.0)), -np.inf, np.inf),
        (lambda: LogNormal(t(0.0), t(1.0)), lambda: LogNormal(t(0.5), t(0.5)), 0, np.inf),
        (lambda: Beta(t(2.0), t(3.0)), lambda: Beta(t(0.7), t(1.5)), 0, 1),
    ],
)
def test_kl_against_integration(p: Any, q: Any, lo: float, hi: float) -> None:
    assert kl_divergence(p(), q()).item() == pytest.approx(_kl_quad(p(), q(), lo, hi), rel=1e-6)


def test_kl_of_the_other_pairs() -> None:
    ks = np.arange(0, 200.0)
    pp, pq = stats.poisson.pmf(ks, 3.0), stats.poisson.pmf(ks, 5.0)
    want = float(np.sum(pp * (np.log(pp) - np.log(pq))))
    assert kl_divergence(Poisson(t(3.0)), Poisson(t(5.0))).item() == pytest.approx(want)
    ks = np.arange(0, 11.0)
    bp, bq = stats.binom.pmf(ks, 10, 0.3), stats.binom.pmf(ks, 10, 0.6)
    got = kl_divergence(Binomial(10, t(0.3)), Binomial(10, t(0.6))).item()
    assert got == pytest.approx(float(np.sum(bp * np.log(bp / bq))))
    assert kl_divergence(Binomial(12, t(0.3)), Binomial(10, t(0.6))).item() == math.inf
    with pytest.raises(NotImplementedError, match=r"q\.total_count > p\.total_count"):
        kl_divergence(Binomial(8, t(0.3)), Binomial(10, t(0.6)))
    a, b = np.array([0.2, 0.8]), np.array([0.5, 0.5])
    got = kl_divergence(OneHotCategorical(t(a)), OneHotCategorical(t(b))).item()
    assert got == pytest.approx(float(np.sum(a * np.log(a / b))))
    # Dirichlet with two components is the Beta: the same KL.
    got = kl_divergence(Dirichlet(t([2.0, 3.0])), Dirichlet(t([0.7, 1.5]))).item()
    assert got == pytest.approx(kl_divergence(Beta(t(2.0), t(3.0)), Beta(t(0.7), t(1.5))).item())
    S1 = np.array([[2.0, 0.5], [0.5, 1.0]])
    S2 = np.array([[1.0, -0.2], [-0.2, 0.5]])
    m1, m2 = np.array([1.0, 0.0]), np.array([0.0, 2.0])
    iS2 = np.linalg.inv(S2)
    want = 0.5 * (
        np.trace(iS2 @ S1)
        + (m2 - m1) @ iS2 @ (m2 - m1)
        - 2
        + np.log(np.linalg.det(S2) / np.linalg.det(S1))
    )
    got = kl_divergence(MultivariateNormal(t(m1), t(S1)), MultivariateNormal(t(m2), t(S2)))
    assert got.item() == pytest.approx(want)
    p = Independent(Normal(t([[0.0, 1.0]]), t([[1.0, 2.0]])), 1)
    q = Independent(Normal(t([[1.0, 1.0]]), t([[1.0, 1.0]])), 1)
    want_ind = kl_divergence(p.base_dist, q.base_dist).sum(-1)
    assert_close(kl_divergence(p, q), want_ind)
