"""Wishart, LKJCholesky and GeneralizedPareto, and ``MixtureSameFamilyConstraint``: densities,
entropies and moments against ``scipy.stats`` (Wishart, genpareto), the LKJ normalising
constant against its closed form (a product of unit-ball integrals) and numerical
integration, sample moments, gradients (gradcheck), shapes, ``expand`` and validation."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from scipy import integrate, special, stats

import tensorcore as tc
from tensorcore.autograd import gradcheck
from tensorcore.distributions import (
    Categorical,
    GeneralizedPareto,
    LKJCholesky,
    MixtureSameFamily,
    Uniform,
    Wishart,
    constraints,
    kl_divergence,
)
from tensorcore.testing import assert_close

F64 = tc.float64


def t(x: Any) -> tc.Tensor:
    return tc.tensor(x, dtype=F64)


V = np.array([[2.0, 0.5, 0.1], [0.5, 1.5, 0.3], [0.1, 0.3, 1.0]])
X = np.array([[3.0, 1.0, 0.2], [1.0, 2.0, 0.5], [0.2, 0.5, 1.5]])


def _wishart(how: str, df: Any, scale: np.ndarray = V) -> Wishart:
    m = {
        "covariance_matrix": scale,
        "precision_matrix": np.linalg.inv(scale),
        "scale_tril": np.linalg.cholesky(scale),
    }[how]
    return Wishart(df, **{how: t(m)})


@pytest.mark.parametrize("how", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_wishart_against_scipy(how: str) -> None:
    d = _wishart(how, t([4.5, 6.5]))
    assert d.batch_shape == (2,) and d.event_shape == (3, 3)
    for i, df in enumerate([4.5, 6.5]):
        ref = stats.wishart(df=df, scale=V)
        assert_close(d.log_prob(t(X))[i], t(ref.logpdf(X)))
        assert_close(d.entropy()[i], t(ref.entropy()))
        assert_close(d.mean[i], t(ref.mean()))
        assert_close(d.variance[i], t(ref.var()))
        assert_close(d.mode[i], t(ref.mode()))
    assert_close(d.covariance_matrix[0], t(V))
    assert_close(d.precision_matrix[1], t(np.linalg.inv(V)))
    assert_close(d.scale_tril[0], t(np.linalg.cholesky(V)))
    # The exponential-family entropy (autograd through the log normalizer) agrees.
    assert_close(tc.distributions.ExponentialFamily.entropy(d), d.entropy())
    # A number df keeps the matrix's batch shape; the mode is NaN where df <= p + 1.
    w = Wishart(4.0, covariance_matrix=t(np.stack([V, 2 * V])))
    assert w.batch_shape == (2,) and w.df.shape == (2,)
    assert bool(w.mode.isnan().all())


def test_wishart_shapes_expand_and_samples() -> None:
    d = Wishart(t([5.0, 8.0]).reshape(2, 1), scale_tril=t(np.linalg.cholesky(V)).expand(3, 3, 3))
    assert d.batch_shape == (2, 3) and d.df.shape == (2, 3)
    e = d.expand((4, 2, 3))
    assert e.batch_shape == (4, 2, 3) and e.log_prob(t(X)).shape == (4, 2, 3)
    assert e.sample((5,)).shape == (5, 4, 2, 3, 3, 3)
    assert e.scale_tril.shape == (4, 2, 3, 3, 3) and e.mean.shape == (4, 2, 3, 3, 3)
    tc.manual_seed(0)
    s = Wishart(t(6.0), covariance_matrix=t(V)).sample((4000,))
    assert not s.requires_grad and bool(constraints.positive_definite.check(s).all())
    ref = stats.wishart(df=6.0, scale=V)
    # Within four standard errors of the mean.
    assert np.all(np.abs(s.mean(0).numpy() - ref.mean()) < 4 * np.sqrt(ref.var() / 4000))
    assert np.allclose(s.var(0).numpy(), ref.var(), rtol=0.15, atol=0.1)
    # log_prob of the draws agrees with SciPy's too.
    few = s[:3].numpy()
    got = Wishart(t(6.0), covariance_matrix=t(V)).log_prob(s[:3])
    assert_close(got, t([ref.logpdf(m) for m in few]))


def test_wishart_gradients() -> None:
    df = t([4.5, 6.0]).requires_grad_()
    L = t(np.linalg.cholesky(V)).requires_grad_()
    x = t(X)

    def log_prob(df: tc.Tensor, L: tc.Tensor) -> tc.Tensor:
        return Wishart(df, scale_tril=L.tril()).log_prob(x)

    assert gradcheck(log_prob, (df, L))
    assert gradcheck(lambda df, L: Wishart(df, scale_tril=L.tril()).entropy(), (df, L))

    def rsample(L: tc.Tensor) -> tc.Tensor:
        tc.manual_seed(0)
        return Wishart(t(5.0), scale_tril=L.tril()).rsample((2,))

    assert gradcheck(rsample, (L,))
    # The Bartlett diagonal is chi-squared: rsample is differentiable in df too.
    tc.manual_seed(1)
    Wishart(df, scale_tril=t(np.linalg.cholesky(V))).rsample().sum().backward()
    assert df.grad is not None and bool(df.grad.isfinite().all())


def test_wishart_kl_by_bregman_divergence() -> None:
    def closed(n0: float, V0: np.ndarray, n1: float, V1: np.ndarray) -> float:
        p = V0.shape[0]

        def mvdigamma(a: float) -> float:
            return float(sum(special.digamma(a - j / 2) for j in range(p)))

        return float(
            n1 / 2 * (np.linalg.slogdet(V1)[1] - np.linalg.slogdet(V0)[1])
            + n0 / 2 * (np.trace(np.linalg.solve(V1, V0)) - p)
            + special.multigammaln(n1 / 2, p)
            - special.multigammaln(n0 / 2, p)
            + (n0 - n1) / 2 * mvdigamma(n0 / 2)
        )

    B = np.diag([2.0, 1.0, 3.0])
    p = Wishart(t([5.0, 7.0]), covariance_matrix=t(V))
    q = Wishart(t(6.0), precision_matrix=t(np.linalg.inv(B)))
    assert_close(kl_divergence(p, q).detach(), t([closed(5, V, 6, B), closed(7, V, 6, B)]))


def test_wishart_validation() -> None:
    with pytest.raises(AssertionError, match="Exactly one of covariance_matrix"):
        Wishart(t(3.0))
    with pytest.raises(AssertionError, match="Exactly one of covariance_matrix"):
        Wishart(t(3.0), covariance_matrix=t(V), scale_tril=t(V))
    with pytest.raises(ValueError, match="at least two-dimensional"):
        Wishart(t(3.0), covariance_matrix=t([1.0, 2.0]))
    with pytest.raises(
        ValueError, match=r"Value of df=1\.5 expected to be greater than ndim - 1 = 2\."
    ):
        Wishart(1.5, covariance_matrix=t(V))
    with pytest.warns(UserWarning, match="Low df values detected"):
        Wishart(t(2.5), covariance_matrix=t(V))
    with pytest.raises(ValueError, match=r"parameter covariance_matrix .* PositiveDefinite"):
        Wishart(t(4.0), covariance_matrix=t(-V))
    with pytest.raises(ValueError, match=r"parameter scale_tril .* LowerCholesky"):
        Wishart(t(4.0), scale_tril=t(V))
    d = Wishart(t(4.0), covariance_matrix=t(V))
    assert d.arg_constraints["df"].lower_bound == 2
    with pytest.raises(ValueError, match=r"support \(PositiveDefinite\(\)\)"):
        d.log_prob(t(-X))


def test_wishart_redraws_singular_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    d = Wishart(t(5.0), covariance_matrix=t(V))
    draws = iter([tc.zeros(2, 3, 3, dtype=F64), t(np.stack([X, 2 * X])), t(np.stack([X, X]))])
    monkeypatch.setattr(d, "_bartlett_sampling", lambda shape: next(draws))
    with pytest.warns(UserWarning, match="Singular sample detected"):
        s = d.rsample((2,))
    assert_close(s, t(np.stack([X, 2 * X])))


def _lkj_log_normaliser(dim: int, eta: float) -> float:
    """log of the integral of prod L_ii^order_i over the off-diagonal parts of the rows:
    row i (i >= 1) ranges over the unit ball of dim i, with L_ii = sqrt(1 - |w|^2)."""
    total = 0.0
    for i in range(1, dim):
        a = (2 * (eta - 1) + dim - 1 - i) / 2
        total += i / 2 * math.log(math.pi) + special.gammaln(a + 1) - special.gammaln(a + 1 + i / 2)
    return total


@pytest.mark.parametrize("dim", [2, 3, 5])
def test_lkj_log_prob_normalisation(dim: int) -> None:
    etas = [0.5, 1.0, 2.5]
    d = LKJCholesky(dim, t(etas))
    assert d.batch_shape == (3,) and d.event_shape == (dim, dim)
    got = d.log_prob(tc.eye(dim, dtype=F64))
    assert_close(got, t([-_lkj_log_normaliser(dim, e) for e in etas]))
    if dim == 2:
        # Independent check: the density of r = L_10 integrates to one.
        for i in range(len(etas)):

            def density(r: float, i: int = i) -> float:
                L = t([[1.0, 0.0], [r, math.sqrt(1 - r * r)]])
                return math.exp(d.log_prob(L)[i].item())

            assert integrate.quad(density, -1, 1)[0] == pytest.approx(1.0, rel=1e-6)


def test_lkj_samples() -> None:
    dim, eta = 4, t([0.8, 3.0])
    d = LKJCholesky(dim, eta)
    tc.manual_seed(0)
    L = d.sample((3000,))
    assert L.shape == (3000, 2, dim, dim) and not L.requires_grad
    assert bool(constraints.corr_cholesky.check(L).all())
    C = (L @ L.mT).numpy()
    # Each off-diagonal correlation r has (r + 1) / 2 ~ Beta(b, b), b = eta - 1 + dim / 2.
    for j, e in enumerate([0.8, 3.0]):
        b = e - 1 + dim / 2
        for r in (C[:, j, 1, 0], C[:, j, 3, 2], C[:, j, 3, 0]):
            assert abs(r.mean()) < 0.05
            assert r.var() == pytest.approx(1 / (2 * b + 1), rel=0.1)
            assert stats.kstest((r + 1) / 2, stats.beta(b, b).cdf).pvalue > 1e-3
    # log_prob of the draws is finite and its shape follows the sample and batch shapes.
    assert d.log_prob(L[:5]).shape == (5, 2) and bool(d.log_prob(L[:5]).isfinite().all())


def test_lkj_gradients_shapes_and_validation() -> None:
    eta = t([0.7, 2.0]).requires_grad_()
    tc.manual_seed(2)
    L = LKJCholesky(3, t([0.7, 2.0])).sample()
    assert gradcheck(lambda e: LKJCholesky(3, e).log_prob(L), (eta,))
    e = LKJCholesky(3, 2.0).expand((4, 2))
    assert e.batch_shape == (4, 2) and e.sample((5,)).shape == (5, 4, 2, 3, 3)
    assert e.log_prob(tc.eye(3)).shape == (4, 2) and not e.has_rsample
    with pytest.raises(
        ValueError, match="Expected dim to be an integer greater than or equal to 2"
    ):
        LKJCholesky(1)
    with pytest.raises(ValueError, match="parameter concentration"):
        LKJCholesky(3, t(-1.0))
    with pytest.raises(ValueError, match=r"support \(CorrCholesky\(\)\)"):
        LKJCholesky(2).log_prob(2 * tc.eye(2))


_GP_XI = [0.4, 0.0, -0.5, -1.0]


def test_generalized_pareto_against_scipy() -> None:
    d = GeneralizedPareto(t(0.1), t(2.0), t(_GP_XI))
    ref = stats.genpareto(c=_GP_XI, loc=0.1, scale=2.0)
    x = t([1.3, 1.3, 1.3, 1.3])
    assert d.batch_shape == (4,) and d.event_shape == ()
    assert_close(d.log_prob(x), t(ref.logpdf(1.3)))
    assert_close(d.cdf(x), t(ref.cdf(1.3)))
    assert_close(d.log_cdf(x), t(ref.logcdf(1.3)))
    assert_close(d.log_survival_function(x), t(ref.logsf(1.3)))
    assert_close(d.icdf(t(0.3)), t(ref.ppf(0.3)))
    assert_close(d.entropy(), t(ref.entropy()))
    assert_close(d.mean, t(ref.mean()))
    assert_close(d.variance, t(ref.var()))
    assert_close(d.mode, t([0.1] * 4))
    assert_close(d.support.upper_bound, t([math.inf, math.inf, 4.1, 2.1]))
    # No mean for xi >= 1, no variance for xi >= 1/2.
    heavy = GeneralizedPareto(0.0, 1.0, t([1.0, 0.5]))
    assert bool(heavy.mean[0].isnan()) and bool(heavy.variance.isnan().all())
    tc.manual_seed(0)
    s = d.sample((5000,))
    assert s.shape == (5000, 4) and not s.requires_grad
    for j, xi in enumerate(_GP_XI):
        ks = stats.kstest(s[:, j].numpy(), stats.genpareto(c=xi, loc=0.1, scale=2.0).cdf)
        assert ks.pvalue > 1e-3


def test_generalized_pareto_gradients_shapes_and_validation() -> None:
    loc, scale = t([0.1, -0.3]).requires_grad_(), t([2.0, 0.7]).requires_grad_()
    xi = t([0.3, -0.2]).requires_grad_()
    x = t([1.0, 0.2])
    assert gradcheck(lambda a, b, c: GeneralizedPareto(a, b, c).log_prob(x), (loc, scale, xi))

    def rsample(a: tc.Tensor, b: tc.Tensor, c: tc.Tensor) -> tc.Tensor:
        tc.manual_seed(0)
        return GeneralizedPareto(a, b, c).rsample((3,))

    assert gradcheck(rsample, (loc, scale, xi))
    e = GeneralizedPareto(0.0, 1.0, t([0.2, 0.0])).expand((3, 2))
    assert e.batch_shape == (3, 2) and e.sample((4,)).shape == (4, 3, 2)
    assert e.log_prob(t(0.5)).shape == (3, 2)
    with pytest.raises(ValueError, match="parameter scale"):
        GeneralizedPareto(0.0, t(-1.0), 0.1)
    with pytest.raises(ValueError, match=r"support \(Interval\(lower_bound="):
        GeneralizedPareto(0.0, 1.0, t(-0.5)).log_prob(t(3.0))


def test_mixture_same_family_constraint() -> None:
    c = constraints.MixtureSameFamilyConstraint(constraints.independent(constraints.positive, 1))
    assert c.event_dim == 1 and not c.is_discrete
    assert repr(c) == (
        "MixtureSameFamilyConstraint(IndependentConstraint(GreaterThan(lower_bound=0.0), 1))"
    )
    assert c.check(t([[1.0, 2.0], [1.0, -2.0]])).tolist() == [True, False]
    with pytest.raises(AssertionError, match="base_constraint must be a Constraint, got int"):
        constraints.MixtureSameFamilyConstraint(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"Expected value.dim\(\) >= 1 but got 0"):
        c.check(t(1.0))
    # A value is in the mixture's support where every component's support holds it.
    m = MixtureSameFamily(Categorical(t([0.5, 0.5])), Uniform(t([0.0, 0.0]), t([1.0, 2.0])))
    assert isinstance(m.support, constraints.MixtureSameFamilyConstraint)
    assert m.support.check(t([0.5, 1.5])).tolist() == [True, False]
    with pytest.raises(ValueError, match="MixtureSameFamilyConstraint"):
        m.log_prob(t(1.5))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bool(m.log_prob(t(0.5)).isfinite())
