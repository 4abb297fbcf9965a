"""The cross-family KL pairs (those ``torch.distributions.kl`` registers between two
different families): every finite one against numerical integration of
``p log(p / q)`` with SciPy's densities (or an exact sum for discrete ``p``), the infinite
ones for their value and broadcast shape, the bounded pairs at the edges of the supports,
and the low-rank normal pairs against the dense Gaussian formula in NumPy."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scipy import integrate, stats

import tensorcore as tc
from tensorcore.autograd import gradcheck
from tensorcore.distributions import (
    Bernoulli,
    Beta,
    Binomial,
    ContinuousBernoulli,
    Exponential,
    Gamma,
    Gumbel,
    Laplace,
    LowRankMultivariateNormal,
    MultivariateNormal,
    Normal,
    Pareto,
    Poisson,
    Uniform,
    kl_divergence,
)
from tensorcore.testing import assert_close

F64 = tc.float64


def t(x: Any) -> tc.Tensor:
    return tc.tensor(x, dtype=F64)


class _CB:
    """SciPy has no continuous Bernoulli: its log density, in NumPy."""

    def __init__(self, lam: float) -> None:
        self.lam = lam

    def logpdf(self, x: Any) -> Any:
        lam = self.lam
        log_c = math.log(2 * math.atanh(1 - 2 * lam) / (1 - 2 * lam))
        return log_c + x * math.log(lam) + (1 - x) * math.log1p(-lam)

    def support(self) -> tuple[float, float]:
        return 0.0, 1.0


# name -> (two parameter sets, our distribution from them, SciPy's for each set)
_FAMILIES: dict[str, tuple[list[tuple[float, ...]], Callable[..., Any], Callable[..., Any]]] = {
    "Beta": ([(2.0, 3.0), (0.7, 1.5)], lambda a, b: Beta(t(a), t(b)), stats.beta),
    "ContinuousBernoulli": ([(0.3,), (0.8,)], lambda p: ContinuousBernoulli(t(p)), _CB),
    "Exponential": (
        [(1.5,), (0.5,)],
        lambda r: Exponential(t(r)),
        lambda r: stats.expon(scale=1 / r),
    ),
    "Gamma": (
        [(2.0, 1.5), (3.5, 0.7)],
        lambda a, b: Gamma(t(a), t(b)),
        lambda a, b: stats.gamma(a, scale=1 / b),
    ),
    "Gumbel": (
        [(0.5, 1.5), (-1.0, 0.7)],
        lambda m, s: Gumbel(t(m), t(s)),
        lambda m, s: stats.gumbel_r(m, s),
    ),
    "Laplace": ([(0.5, 1.5), (-1.0, 0.7)], lambda m, s: Laplace(t(m), t(s)), stats.laplace),
    "Normal": ([(0.5, 1.5), (-1.0, 0.7)], lambda m, s: Normal(t(m), t(s)), stats.norm),
    "Pareto": (
        [(0.5, 3.5), (1.0, 2.5)],
        lambda s, a: Pareto(t(s), t(a)),
        lambda s, a: stats.pareto(a, scale=s),
    ),
    "Uniform": (
        [(0.2, 0.7), (0.5, 0.9)],
        lambda lo, hi: Uniform(t(lo), t(hi)),
        lambda lo, hi: stats.uniform(lo, hi - lo),
    ),
}

_FINITE = [
    ("Beta", "ContinuousBernoulli"),
    ("Beta", "Exponential"),
    ("Beta", "Gamma"),
    ("Beta", "Normal"),
    ("ContinuousBernoulli", "Exponential"),
    ("ContinuousBernoulli", "Normal"),
    ("Exponential", "Gumbel"),
    ("Exponential", "Normal"),
    ("Gamma", "Gumbel"),
    ("Gamma", "Normal"),
    ("Gumbel", "Normal"),
    ("Laplace", "Normal"),
    ("Normal", "Gumbel"),
    ("Normal", "Laplace"),
    ("Pareto", "Exponential"),
    ("Pareto", "Gamma"),
    ("Pareto", "Normal"),
    ("Uniform", "Beta"),
    ("Uniform", "ContinuousBernoulli"),
    ("Uniform", "Exponential"),
    ("Uniform", "Gamma"),
    ("Uniform", "Gumbel"),
    ("Uniform", "Pareto"),
]


def _batch(name: str) -> Any:
    params, ours, _ = _FAMILIES[name]
    return ours(*[list(c) for c in zip(*params, strict=True)])


def _kl_quad(p: Any, q: Any) -> float:
    lo, hi = p.support()
    if lo == -math.inf:
        # p on the whole line has light tails: past these it has no mass worth counting,
        # and SciPy's Gumbel density overflows there. (Pareto's heavy tail is not cut.)
        lo, hi = p.ppf(1e-15), p.isf(1e-15)
    # Split at q's median: Laplace's kink is there.
    median = getattr(q, "median", lambda: None)()
    finite = math.isfinite(hi)
    points = [median] if finite and median is not None and lo < median < hi else None

    def f(x: float) -> float:
        lp = float(p.logpdf(x))
        return 0.0 if lp == -math.inf else math.exp(lp) * (lp - float(q.logpdf(x)))

    return integrate.quad(f, lo, hi, points=points, limit=200)[0]


@pytest.mark.parametrize(("p_name", "q_name"), _FINITE)
def test_finite_pairs_against_integration(p_name: str, q_name: str) -> None:
    got = kl_divergence(_batch(p_name), _batch(q_name))
    assert got.shape == (2,)
    p_params, _, p_ref = _FAMILIES[p_name]
    q_params, _, q_ref = _FAMILIES[q_name]
    want = [_kl_quad(p_ref(*a), q_ref(*b)) for a, b in zip(p_params, q_params, strict=True)]
    assert_close(got, t(want), rtol=1e-6, atol=1e-8)


_INFINITE = [
    ("Beta", "Pareto"),
    ("ContinuousBernoulli", "Pareto"),
    *[("Exponential", q) for q in ("Beta", "ContinuousBernoulli", "Pareto", "Uniform")],
    *[("Gamma", q) for q in ("Beta", "ContinuousBernoulli", "Pareto", "Uniform")],
    *[
        (p, q)
        for p in ("Gumbel", "Laplace")
        for q in ("Beta", "ContinuousBernoulli", "Exponential", "Gamma", "Pareto", "Uniform")
    ],
    *[("Normal", q) for q in ("Beta", "ContinuousBernoulli", "Exponential", "Gamma", "Pareto")],
    *[("Pareto", q) for q in ("Beta", "ContinuousBernoulli", "Uniform")],
]


@pytest.mark.parametrize(("p_name", "q_name"), _INFINITE)
def test_infinite_pairs(p_name: str, q_name: str) -> None:
    q = _FAMILIES[q_name][1](*_FAMILIES[q_name][0][0]).expand((3, 2))
    got = kl_divergence(_batch(p_name), q)
    assert got.shape == (3, 2) and got.dtype == F64
    assert bool((got == math.inf).all())


def test_discrete_pairs() -> None:
    p, q = Bernoulli(t([0.3, 0.8])), Poisson(t([1.5, 0.7]))
    want = [
        sum(pk * (math.log(pk) - stats.poisson.logpmf(k, r)) for k, pk in ((0, 1 - b), (1, b)))
        for b, r in ((0.3, 1.5), (0.8, 0.7))
    ]
    assert_close(kl_divergence(p, q), t(want))
    assert bool((kl_divergence(q, Bernoulli(t(0.5))) == math.inf).all())
    assert bool((kl_divergence(q, Binomial(10, t([0.5, 0.2]))) == math.inf).all())


def test_bounded_pairs_at_the_edges_of_the_supports() -> None:
    cb = ContinuousBernoulli(t([0.3, 0.8]))
    # Uniform(0, 1) covers exactly [0, 1]: finite both ways (PyTorch says inf).
    assert_close(kl_divergence(cb, Uniform(t(0.0), t(1.0))), -cb.entropy())
    unit = Uniform(t(0.0), t(1.0))
    assert bool(kl_divergence(unit, cb).isfinite().all())
    assert bool(kl_divergence(unit, Beta(t(2.0), t(3.0))).isfinite())
    wide = Uniform(t([-0.1, 0.0, 0.0]), t([1.0, 1.1, 1.0]))
    assert kl_divergence(wide, Beta(t(2.0), t(3.0))).tolist()[:2] == [math.inf, math.inf]
    assert kl_divergence(Beta(t(2.0), t(3.0)), wide).tolist() == [
        pytest.approx(-Beta(t(2.0), t(3.0)).entropy().item() + math.log(1.1)),
        pytest.approx(-Beta(t(2.0), t(3.0)).entropy().item() + math.log(1.1)),
        pytest.approx(-Beta(t(2.0), t(3.0)).entropy().item()),
    ]
    assert kl_divergence(Beta(t(2.0), t(3.0)), Uniform(t(0.1), t(1.0))).item() == math.inf
    assert kl_divergence(Uniform(t(-0.5), t(1.0)), Exponential(t(1.0))).item() == math.inf
    assert kl_divergence(Uniform(t(0.4), t(1.0)), Pareto(t(0.5), t(2.0))).item() == math.inf
    # Pareto tails too heavy for the moments q needs.
    heavy = Pareto(t([1.0, 1.0]), t([0.9, 1.5]))
    assert kl_divergence(heavy, Exponential(t(1.0))).isinf().tolist() == [True, False]
    assert kl_divergence(heavy, Normal(t(0.0), t(1.0))).isinf().tolist() == [True, True]


def _gaussian_kl(m0: Any, S0: Any, m1: Any, S1: Any) -> float:
    n = len(m0)
    d = m1 - m0
    return 0.5 * float(
        np.trace(np.linalg.solve(S1, S0))
        + d @ np.linalg.solve(S1, d)
        - n
        + np.linalg.slogdet(S1)[1]
        - np.linalg.slogdet(S0)[1]
    )


def test_low_rank_normal_pairs() -> None:
    rng = np.random.default_rng(0)
    W, D, mu = rng.normal(size=(2, 4, 2)), rng.uniform(0.5, 2, size=(2, 4)), rng.normal(size=4)
    W2, D2 = rng.normal(size=(4, 3)), rng.uniform(0.5, 2, size=4)
    A = rng.normal(size=(4, 4))
    S = A @ A.T + np.eye(4)
    p = LowRankMultivariateNormal(t(mu), t(W), t(D))
    q = LowRankMultivariateNormal(t(np.zeros(4)), t(W2), t(D2))
    m = MultivariateNormal(t(mu[::-1].copy()), t(S))
    cov_p = [W[i] @ W[i].T + np.diag(D[i]) for i in range(2)]
    cov_q = W2 @ W2.T + np.diag(D2)
    zeros = np.zeros(4)
    assert_close(
        kl_divergence(p, q), t([_gaussian_kl(mu, cov_p[i], zeros, cov_q) for i in range(2)])
    )
    assert_close(kl_divergence(m, q), t(_gaussian_kl(mu[::-1], S, zeros, cov_q)))
    assert_close(
        kl_divergence(p, m), t([_gaussian_kl(mu, cov_p[i], mu[::-1], S) for i in range(2)])
    )
    # q batched, p not: the batch comes from q.
    qb = LowRankMultivariateNormal(t(np.zeros(4)), t(W), t(D))
    assert_close(
        kl_divergence(m, qb), t([_gaussian_kl(mu[::-1], S, zeros, cov_p[i]) for i in range(2)])
    )
    with pytest.raises(ValueError, match="different event shapes"):
        kl_divergence(p, MultivariateNormal(t(np.zeros(3)), t(np.eye(3))))


def test_cross_pairs_are_differentiable() -> None:
    a, b = t([0.5, -1.0]).requires_grad_(), t([1.5, 0.7]).requires_grad_()
    c, d = t([2.0, 0.7]).requires_grad_(), t([3.0, 1.5]).requires_grad_()
    assert gradcheck(lambda a, b, c, d: kl_divergence(Normal(a, b), Gumbel(c, d)), (a, b, c, d))
    lo, hi = t([0.2, 0.5]).requires_grad_(), t([0.7, 0.9]).requires_grad_()
    assert gradcheck(
        lambda lo, hi, c, d: kl_divergence(Uniform(lo, hi), Beta(c, d)), (lo, hi, c, d)
    )
    assert gradcheck(lambda c, d, a, b: kl_divergence(Gamma(c, d), Normal(a, b)), (c, d, a, b))
    W = t(np.random.default_rng(1).normal(size=(3, 2))).requires_grad_()
    diag = t([1.0, 0.5, 2.0]).requires_grad_()

    def lowrank(W: tc.Tensor, diag: tc.Tensor) -> tc.Tensor:
        q = LowRankMultivariateNormal(t(np.zeros(3)), W, diag)
        return kl_divergence(MultivariateNormal(t([0.1, 0.2, 0.3]), t(np.eye(3))), q)

    assert gradcheck(lowrank, (W, diag))


def test_cross_family_kl_message_is_pytorchs() -> None:
    # PyTorch's wording, with the run of spaces its source's continued line leaves in it
    with pytest.raises(NotImplementedError) as info:
        tc.distributions.kl_divergence(
            tc.distributions.Beta(1.0, 1.0), tc.distributions.Poisson(1.0)
        )
    assert str(info.value) == (
        "The cross KL-divergence between different exponential families cannot"
        "                             be computed using Bregman divergences"
    )
