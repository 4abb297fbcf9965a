"""The distributions added after the first set: StudentT, Chi2, FisherSnedecor, InverseGamma,
VonMises, ContinuousBernoulli, Geometric, NegativeBinomial, Multinomial,
OneHotCategoricalStraightThrough, MixtureSameFamily and LowRankMultivariateNormal, with
``Gamma.cdf`` (the regularized incomplete gamma), ``ExponentialFamily`` (entropy and KL from the log
normalizer) and the KL pairs added with them: densities, CDFs and moments against
``scipy.stats`` (or numerical integration), sample statistics, gradients, validation."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from scipy import integrate, special, stats

import tensorcore as tc
from tensorcore.autograd import gradcheck
from tensorcore.distributions import (
    Bernoulli,
    Beta,
    Categorical,
    Cauchy,
    Chi2,
    ContinuousBernoulli,
    Dirichlet,
    Exponential,
    ExponentialFamily,
    FisherSnedecor,
    Gamma,
    Geometric,
    Gumbel,
    HalfNormal,
    Independent,
    InverseGamma,
    LowRankMultivariateNormal,
    MixtureSameFamily,
    Multinomial,
    MultivariateNormal,
    NegativeBinomial,
    Normal,
    OneHotCategoricalStraightThrough,
    Pareto,
    Poisson,
    StudentT,
    VonMises,
    kl,
    kl_divergence,
)
from tensorcore.special import gammainc, gammaincc
from tensorcore.testing import assert_close

F64 = tc.float64


def t(x: Any, device: str = "cpu") -> tc.Tensor:
    return tc.tensor(x, dtype=F64, device=device)


def _cases() -> list[tuple[Any, Any, list[float]]]:
    return [
        (
            StudentT(t([1.5, 5.0]), t([0.0, 1.0]), t([1.0, 2.0])),
            stats.t([1.5, 5.0], [0.0, 1.0], [1.0, 2.0]),
            [0.3, -2.0],
        ),
        (Chi2(t([1.5, 5.0])), stats.chi2([1.5, 5.0]), [0.3, 4.0]),
        (FisherSnedecor(t([3.0, 7.0]), t([5.0, 9.0])), stats.f([3.0, 7.0], [5.0, 9.0]), [0.3, 2]),
        (
            InverseGamma(t([2.5, 4.0]), t([1.0, 3.0])),
            stats.invgamma([2.5, 4.0], scale=[1.0, 3.0]),
            [0.3, 1.5],
        ),
        (Gamma(t([0.5, 30.0]), t([1.0, 2.0])), stats.gamma([0.5, 30.0], scale=[1, 0.5]), [0.2, 14]),
    ]


@pytest.mark.parametrize("i", range(5))
def test_continuous_against_scipy(i: int) -> None:
    d, ref, x = _cases()[i]
    assert d.batch_shape == (2,)
    assert_close(d.log_prob(t(x)), ref.logpdf(x))
    if i != 2:  # FisherSnedecor has no entropy, as in PyTorch
        assert_close(d.entropy(), ref.entropy())
    if i != 0:
        assert_close(d.mean, ref.mean())
        assert_close(d.variance, ref.var())
    if i in (1, 3, 4):
        assert_close(d.cdf(t(x)), ref.cdf(x))
    tc.manual_seed(i)
    s = d.sample((4000,))
    assert s.shape == (4000, 2) and not s.requires_grad
    for j in range(2):
        cdf = lambda v, j=j: ref.cdf(np.stack([v, v], -1))[:, j]  # noqa: E731
        assert stats.kstest(s[:, j].numpy(), cdf).pvalue > 1e-3
    assert d.expand((3, 2)).log_prob(t(x)).shape == (3, 2)


def test_student_t_moments_by_degrees_of_freedom() -> None:
    d = StudentT(t([0.5, 1.5, 3.0]), t(1.0), t(2.0))
    got_mean, got_var = d.mean.numpy(), d.variance.numpy()
    assert math.isnan(got_mean[0]) and got_mean[1:].tolist() == [1.0, 1.0]
    assert math.isnan(got_var[0]) and got_var[1] == math.inf and got_var[2] == pytest.approx(12)


def test_gammainc_against_scipy() -> None:
    a = np.array([0.05, 0.5, 1.0, 3.0, 30.0, 1000.0, 2.0, 0.3, 7.0])
    x = np.array([0.01, 0.2, 2.0, 3.0, 25.0, 1030.0, 50.0, 1e-8, 0.0])
    assert_close(gammainc(t(a), t(x)), special.gammainc(a, x), rtol=1e-9, atol=1e-12)
    assert_close(gammaincc(t(a), t(x)), special.gammaincc(a, x), rtol=1e-9, atol=1e-300)
    got = gammainc(t([1.0, -1.0, 2.0]), t([math.inf, 1.0, -1.0])).tolist()
    assert got[0] == 1.0 and math.isnan(got[1]) and math.isnan(got[2])
    xs = t([0.5, 2.0]).requires_grad_()
    assert gradcheck(lambda v: gammainc(t([1.5, 3.0]), v), (xs,))
    assert gradcheck(lambda v: gammaincc(t([1.5, 3.0]), v), (xs,))
    with pytest.raises(NotImplementedError, match="derivative of gammainc for input"):
        gammainc(t([1.5]).requires_grad_(), t([1.0])).sum().backward()


def test_von_mises() -> None:
    loc, k = np.array([0.5, -2.0, 0.0]), np.array([1.0, 20.0, 1000.0])
    d = VonMises(t(loc), t(k))
    x = np.array([0.3, -2.5, 0.01])
    assert_close(d.log_prob(t(x)), stats.vonmises(k, loc).logpdf(x), rtol=1e-10, atol=1e-7)
    circ_var = 1 - special.i1e(k) / special.i0e(k)
    assert_close(d.variance, circ_var, rtol=1e-10, atol=1e-7)
    tc.manual_seed(5)
    s = d.sample((4000,))
    assert s.shape == (4000, 3) and float(s.abs().max()) <= math.pi
    for j in range(3):
        # Samples are wrapped to [-pi, pi); SciPy's support is centred on loc.
        centred = np.remainder(s[:, j].numpy() - loc[j] + math.pi, 2 * math.pi) - math.pi
        assert stats.kstest(centred, stats.vonmises(k[j]).cdf).pvalue > 1e-3
    assert VonMises(t(0.0), t(1e-7)).sample((2000,)).std().item() == pytest.approx(
        math.pi / math.sqrt(3), rel=0.1
    )


def test_seeded_samplers_draw_as_pytorch() -> None:
    # A seeded program gets PyTorch's samples when a sampler consumes the generator as
    # PyTorch's does. Exponential: exponential_ draws divided by the rate (Weibull and Pareto
    # transform it). VonMises: per round one (3, *shape) float64 uniform tensor (u1, u2, u3),
    # and every accepted proposal replaces the value, as PyTorch's loop keeps it (oracle: that
    # loop in NumPy over the same uniforms).
    rate = t([0.5, 2.0])
    tc.manual_seed(3)
    got = Exponential(rate).sample((6,))
    tc.manual_seed(3)
    assert_close(got, tc.empty(6, 2, dtype=F64).exponential_() / rate, rtol=0, atol=0)
    loc, k = np.array([0.3, -1.0]), np.array([0.5, 4.0])
    tc.manual_seed(4)
    got = VonMises(t(loc), t(k)).sample((50,))
    tc.manual_seed(4)
    tau = 1 + np.sqrt(1 + 4 * k**2)
    rho = (tau - np.sqrt(2 * tau)) / (2 * k)
    r = (1 + rho**2) / (2 * rho)
    x, done = np.zeros((50, 2)), np.zeros((50, 2), dtype=bool)
    while not done.all():
        u1, u2, u3 = tc.rand(3, 50, 2, dtype=F64).numpy()
        z = np.cos(np.pi * u1)
        f = (1 + r * z) / (r + z)
        c = k * (r - f)
        with np.errstate(divide="ignore"):
            accept = (c * (2 - c) - u2 > 0) | (np.log(c / u2) + 1 - c >= 0)
        x = np.where(accept, np.sign(u3 - 0.5) * np.arccos(f), x)
        done |= accept
    assert_close(got, np.remainder(x + np.pi + loc, 2 * np.pi) - np.pi, rtol=1e-12, atol=1e-12)


def test_continuous_bernoulli_by_integration() -> None:
    for p in (0.2, 0.4995, 0.9):
        d = ContinuousBernoulli(t(p))
        pdf = lambda v, d=d: math.exp(d.log_prob(t(v)).item())  # noqa: E731
        assert integrate.quad(pdf, 0, 1)[0] == pytest.approx(1.0, rel=1e-6)
        m1 = integrate.quad(lambda v, pdf=pdf: v * pdf(v), 0, 1)[0]
        m2 = integrate.quad(lambda v, pdf=pdf: v * v * pdf(v), 0, 1)[0]
        ent = integrate.quad(lambda v, pdf=pdf: -pdf(v) * math.log(pdf(v)), 0, 1)[0]
        assert d.mean.item() == pytest.approx(m1, rel=1e-5)
        assert d.variance.item() == pytest.approx(m2 - m1 * m1, rel=1e-4)
        assert d.entropy().item() == pytest.approx(ent, abs=1e-6)
        # Near p = 1/2 the CDF is the uniform one (PyTorch's approximation).
        tol = 1e-3 if abs(p - 0.5) < 0.001 else 1e-6
        assert d.cdf(t(0.3)).item() == pytest.approx(integrate.quad(pdf, 0, 0.3)[0], rel=tol)
        assert d.icdf(d.cdf(t(0.3))).item() == pytest.approx(0.3, rel=1e-6)
        # The Bregman entropy agrees with the closed form.
        assert ExponentialFamily.entropy(d).item() == pytest.approx(ent, abs=1e-5)
    d = ContinuousBernoulli(logits=t([0.4, -1.0]))
    tc.manual_seed(6)
    assert np.allclose(d.sample((20000,)).mean(0).numpy(), d.mean.numpy(), atol=0.01)


def test_discrete_against_scipy() -> None:
    g = Geometric(t([0.25, 0.7]))
    k = np.array([2.0, 0.0])
    ref = stats.geom([0.25, 0.7], loc=-1)
    assert_close(g.log_prob(t(k)), ref.logpmf(k))
    assert_close(g.entropy(), ref.entropy())
    assert_close(g.mean, ref.mean())
    assert_close(g.variance, ref.var())
    tc.manual_seed(7)
    assert np.allclose(g.sample((20000,)).mean(0).numpy(), ref.mean(), rtol=0.05)
    assert_close(Geometric(logits=t([0.0])).probs, [0.5])
    nb = NegativeBinomial(t([3.0, 0.5]), t([0.4, 0.8]))
    ref = stats.nbinom([3.0, 0.5], [0.6, 0.2])
    k = np.array([2.0, 5.0])
    assert_close(nb.log_prob(t(k)), ref.logpmf(k))
    assert_close(nb.mean, ref.mean())
    assert_close(nb.variance, ref.var())
    s = nb.sample((20000,))
    assert np.allclose(s.mean(0).numpy(), ref.mean(), rtol=0.05)
    assert_close(
        NegativeBinomial(t(3.0), logits=t(0.0)).log_prob(t(2.0)), stats.nbinom.logpmf(2, 3, 0.5)
    )
    m = Multinomial(5, t([0.2, 0.3, 0.5]))
    x = np.array([1.0, 1.0, 3.0])
    ref = stats.multinomial(5, [0.2, 0.3, 0.5])
    assert_close(m.log_prob(t(x)), ref.logpmf(x))
    assert_close(m.entropy(), ref.entropy())
    assert_close(m.mean, 5 * np.array([0.2, 0.3, 0.5]))
    s = m.sample((4000,))
    assert s.shape == (4000, 3) and bool((s.sum(-1) == 5).all())
    assert np.allclose(s.mean(0).numpy(), [1.0, 1.5, 2.5], atol=0.1)
    mb = Multinomial(2, t([[0.5, 0.5], [0.1, 0.9]]))
    assert mb.batch_shape == (2,) and mb.sample((3,)).shape == (3, 2, 2)
    assert mb.expand((4, 2)).log_prob(t([1.0, 1.0])).shape == (4, 2)
    assert_close(mb.entropy(), [stats.multinomial(2, [0.5, 0.5]).entropy(),
                                stats.multinomial(2, [0.1, 0.9]).entropy()])  # fmt: skip


def test_straight_through_gradient() -> None:
    p = t([0.2, 0.3, 0.5]).requires_grad_()
    d = OneHotCategoricalStraightThrough(p)
    tc.manual_seed(8)
    s = d.rsample((5,))
    assert bool((s.sum(-1) == 1).all()) and d.has_rsample
    (s * t([1.0, 2.0, 3.0])).sum().backward()
    # d(sample + probs - probs.detach()) / dp: the weights through the normalisation.
    assert p.grad is not None and p.grad.abs().sum().item() > 0


def test_mixture_same_family() -> None:
    w = np.array([0.3, 0.7])
    mix = Categorical(t(w))
    comp = Normal(t([-1.0, 2.0]), t([0.5, 1.5]))
    d = MixtureSameFamily(mix, comp)
    x = np.array([0.0, 1.0, -1.2])
    ref = np.log(w[0] * stats.norm(-1, 0.5).pdf(x) + w[1] * stats.norm(2, 1.5).pdf(x))
    assert_close(d.log_prob(t(x)), ref)
    assert_close(d.cdf(t(x)), w[0] * stats.norm(-1, 0.5).cdf(x) + w[1] * stats.norm(2, 1.5).cdf(x))
    mean = w @ [-1.0, 2.0]
    var = w @ [0.25, 2.25] + w @ (np.array([-1.0, 2.0]) - mean) ** 2
    assert_close(d.mean, mean)
    assert_close(d.variance, var)
    tc.manual_seed(9)
    s = d.sample((20000,))
    assert s.mean().item() == pytest.approx(mean, abs=0.05)
    assert s.var().item() == pytest.approx(var, rel=0.05)
    # Vector components with a batch.
    mv = MixtureSameFamily(
        Categorical(t(np.full((4, 3), 1 / 3))),
        Independent(Normal(t(np.zeros((4, 3, 2))), 1.0), 1),
    )
    assert mv.batch_shape == (4,) and mv.event_shape == (2,)
    assert mv.sample((5,)).shape == (5, 4, 2) and mv.log_prob(t(np.zeros(2))).shape == (4,)
    assert mv.expand((6, 4)).batch_shape == (6, 4)
    with pytest.raises(ValueError, match="does not equal"):
        MixtureSameFamily(Categorical(t([0.5, 0.5])), Normal(t([0.0, 1.0, 2.0]), 1.0))
    with pytest.raises(ValueError, match="needs to be an  instance"):
        MixtureSameFamily(Normal(t(0.0), 1.0), comp)  # type: ignore[arg-type]


def test_low_rank_multivariate_normal() -> None:
    W = np.array([[1.0, 0.5], [0.0, -1.0], [2.0, 0.3]])
    D = np.array([0.5, 1.0, 2.0])
    loc = np.array([1.0, 0.0, -1.0])
    cov = W @ W.T + np.diag(D)
    d = LowRankMultivariateNormal(t(loc), t(W), t(D))
    ref = stats.multivariate_normal(loc, cov)
    y = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, -3.0]])
    assert_close(d.log_prob(t(y)), ref.logpdf(y))
    assert_close(d.entropy(), ref.entropy())
    assert_close(d.covariance_matrix, cov)
    assert_close(d.precision_matrix, np.linalg.inv(cov))
    assert_close(d.scale_tril, np.linalg.cholesky(cov))
    assert_close(d.variance, np.diag(cov))
    full = MultivariateNormal(t(loc), t(cov))
    assert_close(d.log_prob(t(y)), full.log_prob(t(y)).numpy())
    tc.manual_seed(10)
    s = d.sample((20000,))
    assert np.allclose(np.cov(s.numpy().T), cov, atol=0.15)
    b = LowRankMultivariateNormal(t(np.zeros((4, 3))), t(W), t(D))
    assert b.batch_shape == (4,) and b.expand((2, 4)).sample().shape == (2, 4, 3)
    w = t(W).requires_grad_()

    def f(w: tc.Tensor) -> tc.Tensor:
        tc.manual_seed(0)
        return LowRankMultivariateNormal(t(loc), w, t(D)).rsample((2,))

    assert gradcheck(f, (w,))
    assert gradcheck(lambda w: LowRankMultivariateNormal(t(loc), w, t(D)).log_prob(t(y)), (w,))
    with pytest.raises(ValueError, match="cov_factor must be a batch of matrices with shape 3 x m"):
        LowRankMultivariateNormal(t(loc), t(W.T), t(D))
    with pytest.raises(ValueError, match=r"parameter cov_diag .* IndependentConstraint"):
        LowRankMultivariateNormal(t(loc), t(W), t(-D))


@pytest.mark.parametrize(
    "make",
    [
        lambda: Normal(t([0.3, -1.0]), t([1.5, 0.2])),
        lambda: Gamma(t([0.7, 3.0]), t([2.0, 0.5])),
        lambda: Beta(t([0.7, 3.0]), t([2.0, 0.5])),
        lambda: Dirichlet(t([[0.7, 3.0, 1.0]])),
        lambda: Exponential(t([0.7, 3.0])),
        lambda: Bernoulli(t([0.2, 0.9])),
        lambda: Chi2(t([2.5])),
    ],
)
def test_exponential_family_entropy_and_bregman_kl(make: Any) -> None:
    p = make()
    assert isinstance(p, ExponentialFamily)
    if isinstance(p, (Beta, Dirichlet)):
        # Their carrier measure is not constant: no Bregman entropy, as in PyTorch.
        with pytest.raises(NotImplementedError):
            ExponentialFamily.entropy(p)
    else:
        assert_close(ExponentialFamily.entropy(p).detach(), p.entropy().detach().numpy())
    q = type(p)(*[v * 0.7 for v in _params(p)])
    assert_close(kl._kl_expfamily_expfamily(p, q).detach(), kl_divergence(p, q).numpy())


def _params(d: Any) -> list[Any]:
    """The constructor's tensor arguments of ``d``."""
    if isinstance(d, Beta):
        return [d.concentration1, d.concentration0]
    if isinstance(d, Chi2):
        return [d.df]
    if isinstance(d, Bernoulli):
        return [d.probs]
    return [d.__dict__[k] for k in d.arg_constraints if k in d.__dict__]


def test_cross_family_bregman_is_refused() -> None:
    with pytest.raises(NotImplementedError, match="different exponential families"):
        kl._kl_expfamily_expfamily(Poisson(t(1.0)), Exponential(t(1.0)))


def _kl_quad(p: Any, q: Any, lo: float, hi: float) -> float:
    def f(v: float) -> float:
        lp, lq = p.log_prob(t(v)).item(), q.log_prob(t(v)).item()
        return math.exp(lp) * (lp - lq) if lp > -700 else 0.0

    return integrate.quad(f, lo, hi, limit=400)[0]


@pytest.mark.parametrize(
    ("p", "q", "lo", "hi"),
    [
        (lambda: Cauchy(t(0.0), t(1.0)), lambda: Cauchy(t(1.0), t(2.0)), -np.inf, np.inf),
        (lambda: Gumbel(t(0.0), t(1.0)), lambda: Gumbel(t(1.0), t(2.0)), -np.inf, np.inf),
        (lambda: HalfNormal(t(1.0)), lambda: HalfNormal(t(2.0)), 0, np.inf),
        (lambda: Pareto(t(2.0), t(3.0)), lambda: Pareto(t(1.0), t(1.5)), 2, np.inf),
        (
            lambda: ContinuousBernoulli(t(0.2)),
            lambda: ContinuousBernoulli(t(0.7)),
            0,
            1,
        ),
        (lambda: Chi2(t(3.0)), lambda: Chi2(t(5.0)), 0, np.inf),
    ],
)
def test_kl_against_integration(p: Any, q: Any, lo: float, hi: float) -> None:
    got = kl_divergence(p(), q()).item()
    assert got == pytest.approx(_kl_quad(p(), q(), lo, hi), rel=1e-5)


def test_kl_of_discrete_and_infinite_pairs() -> None:
    ks = np.arange(0, 400.0)
    pp, pq = stats.geom.pmf(ks + 1, 0.3), stats.geom.pmf(ks + 1, 0.6)
    got = kl_divergence(Geometric(t(0.3)), Geometric(t(0.6))).item()
    assert got == pytest.approx(float(np.sum(pp * np.log(pp / pq))))
    assert kl_divergence(Pareto(t(1.0), t(3.0)), Pareto(t(2.0), t(1.0))).item() == math.inf


def test_gradients_of_log_prob_and_rsample() -> None:
    a = t([2.5, 4.0]).requires_grad_()
    b = t([1.5, 0.5]).requires_grad_()
    x = t([0.3, 0.6])
    assert gradcheck(lambda df, loc: StudentT(df, loc, 2.0).log_prob(x), (a, b))
    assert gradcheck(lambda d1, d2: FisherSnedecor(d1, d2).log_prob(x), (a, b))
    assert gradcheck(lambda c, r: InverseGamma(c, r).log_prob(x), (a, b))
    assert gradcheck(lambda loc, k: VonMises(loc, k).log_prob(x), (b, a))
    assert gradcheck(lambda df: Chi2(df).log_prob(x), (a,))
    p = t([0.3, 0.8]).requires_grad_()
    assert gradcheck(lambda p: ContinuousBernoulli(p).log_prob(x), (p,))
    assert gradcheck(lambda p: Geometric(p).log_prob(t([2.0, 0.0])), (p,))
    assert gradcheck(lambda n, p: NegativeBinomial(n, p).log_prob(t([2.0, 5.0])), (a, p))
    assert gradcheck(lambda p: Multinomial(3, p).log_prob(t([1.0, 2.0])), (p,))

    def seeded(make: Any) -> Any:
        def f(*ps: Any) -> Any:
            tc.manual_seed(0)
            return make(*ps).rsample((3,))

        return f

    assert gradcheck(seeded(lambda loc, s: StudentT(t([3.0, 5.0]), loc, s)), (a, b))
    assert gradcheck(seeded(lambda p: ContinuousBernoulli(p)), (p,))
    assert gradcheck(seeded(lambda r: InverseGamma(t([2.0, 3.0]), r)), (b,))
    df = t([3.0, 5.0]).requires_grad_()
    tc.manual_seed(0)
    StudentT(df).rsample().sum().backward()
    assert df.grad is not None and bool(df.grad.isfinite().all())


def test_validation_messages() -> None:
    with pytest.raises(ValueError, match=r"parameter probs \(Tensor of shape \(1,\)\) .* to be "
                       r"positive but found invalid values"):  # fmt: skip
        Geometric(t([0.0]))
    with pytest.raises(ValueError, match=r"support \(IntegerGreaterThan\(lower_bound=0\)\)"):
        Geometric(t(0.5)).log_prob(t(1.5))
    with pytest.raises(ValueError, match=r"constraint HalfOpenInterval"):
        NegativeBinomial(t(2.0), t(1.0))
    with pytest.raises(ValueError, match=r"support \(Multinomial\(\)\)"):
        Multinomial(2, t([0.5, 0.5])).log_prob(t([2.0, 1.0]))
    with pytest.raises(ValueError, match="parameter df"):
        StudentT(t(-1.0))
    with pytest.raises(ValueError, match=r"parameter concentration .* Chi2|parameter df"):
        Chi2(t(-1.0))
    with pytest.raises(ValueError, match=r"support \(GreaterThan\(lower_bound=0.0\)\)"):
        FisherSnedecor(t(1.0), t(1.0)).log_prob(t(-1.0))
    with pytest.raises(ValueError, match=r"support \(Interval\(lower_bound=0.0"):
        ContinuousBernoulli(t(0.3)).log_prob(t(1.5))
