"""``kl_divergence`` and ``register_kl``: each closed form against NumPy (the definition,
summed or integrated), a Monte Carlo estimate, gradients by gradcheck, and the dispatch on
the pair of types (most specific match, ties, unknown pairs)."""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.distributions import (
    Bernoulli,
    Categorical,
    Distribution,
    Normal,
    Uniform,
    kl,
    kl_divergence,
    register_kl,
)
from tensorcore.testing import assert_close

F64 = tc.float64


def t(x: Any, device: str, grad: bool = False) -> tc.Tensor:
    return tc.tensor(x, dtype=F64, device=device, requires_grad=grad)


def _discrete_kl(p: Any, q: Any) -> Any:
    """``sum p log(p/q)`` over the last axis, ``0 log 0 = 0``, ``inf`` where ``q = 0 < p``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(
            p == 0, 0.0, np.where(q == 0, np.inf, p * np.log(p / np.where(q == 0, 1, q)))
        )
    return terms.sum(-1)


def _normal_logpdf(x: Any, m: Any, s: Any) -> Any:
    return -((x - m) ** 2) / (2 * s**2) - np.log(s) - 0.5 * np.log(2 * np.pi)


def test_normal_normal(device: str) -> None:
    mp, sp = np.array([0.0, 1.0, -2.0]), np.array([1.0, 0.5, 3.0])
    mq, sq = np.array([0.5, 1.0, 1.0]), np.array([2.0, 0.5, 1.5])
    got = kl_divergence(Normal(t(mp, device), t(sp, device)), Normal(t(mq, device), t(sq, device)))
    want = np.log(sq / sp) + (sp**2 + (mp - mq) ** 2) / (2 * sq**2) - 0.5
    assert_close(got, want, rtol=1e-12, atol=1e-14)
    # broadcasting a batch against a scalar distribution
    got = kl_divergence(
        Normal(t(mp, device), t(sp, device)), Normal(t(0.0, device), t(1.0, device))
    )
    assert_close(got, np.log(1 / sp) + (sp**2 + mp**2) / 2 - 0.5, rtol=1e-12, atol=1e-14)


def test_bernoulli_bernoulli(device: str) -> None:
    pp = np.array([0.2, 0.0, 1.0, 0.5, 0.3, 0.7, 0.0])
    pq = np.array([0.6, 0.4, 0.4, 0.0, 1.0, 0.7, 0.0])
    got = kl_divergence(Bernoulli(t(pp, device)), Bernoulli(t(pq, device)))
    want = _discrete_kl(np.stack([pp, 1 - pp], -1), np.stack([pq, 1 - pq], -1))
    assert_close(got, want, rtol=1e-10, atol=1e-12)
    # logits far in the tails stay finite
    got = kl_divergence(Bernoulli(logits=t([30.0], device)), Bernoulli(logits=t([-30.0], device)))
    assert math.isfinite(got.item()) and abs(got.item() - 30.0) < 1e-9


def test_categorical_categorical(device: str) -> None:
    p = np.array([[0.2, 0.3, 0.5], [0.0, 0.5, 0.5], [0.5, 0.5, 0.0]])
    q = np.array([[0.1, 0.1, 0.8], [0.3, 0.3, 0.4], [0.5, 0.0, 0.5]])
    got = kl_divergence(Categorical(probs=t(p, device)), Categorical(probs=t(q, device)))
    assert_close(got, _discrete_kl(p, q), rtol=1e-10, atol=1e-12)
    lp = np.array([1.0, -2.0, 0.5])
    got = kl_divergence(Categorical(logits=t(lp, device)), Categorical(logits=t(-lp, device)))
    sp, sq = np.exp(lp) / np.exp(lp).sum(), np.exp(-lp) / np.exp(-lp).sum()
    assert_close(got, _discrete_kl(sp, sq), rtol=1e-10, atol=1e-12)


def test_uniform_uniform_and_normal(device: str) -> None:
    lo, hi = np.array([0.0, -1.0, 0.0]), np.array([1.0, 1.0, 2.0])
    qlo, qhi = np.array([-1.0, -1.0, 0.5]), np.array([2.0, 1.0, 3.0])
    got = kl_divergence(
        Uniform(t(lo, device), t(hi, device)), Uniform(t(qlo, device), t(qhi, device))
    )
    inside = (qlo <= lo) & (hi <= qhi)
    want = np.where(inside, np.log((qhi - qlo) / (hi - lo)), np.inf)
    assert_close(got, want, rtol=1e-12, atol=1e-14)
    # Uniform || Normal: the integral of (1/w) (log(1/w) - log N(x)) over [lo, hi]
    m, s = np.array([0.0, 0.5, -1.0]), np.array([1.0, 2.0, 0.5])
    got = kl_divergence(Uniform(t(lo, device), t(hi, device)), Normal(t(m, device), t(s, device)))
    want = []
    for a, b, mi, si in zip(lo, hi, m, s, strict=True):
        x = np.linspace(a, b, 20001)
        want.append(np.trapezoid(-np.log(b - a) - _normal_logpdf(x, mi, si), x) / (b - a))
    assert_close(got, np.array(want), rtol=1e-7, atol=1e-9)
    got = kl_divergence(
        Normal(t(m, device), t(s, device)), Uniform(t(-10.0, device), t(10.0, device))
    )
    assert_close(got, np.full(3, np.inf))


def test_monte_carlo_agrees_with_the_closed_forms() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(0.3, 0.8, size=400_000)
    mc = np.mean(_normal_logpdf(x, 0.3, 0.8) - _normal_logpdf(x, -0.5, 1.3))
    got = kl_divergence(Normal(t(0.3, "cpu"), t(0.8, "cpu")), Normal(t(-0.5, "cpu"), t(1.3, "cpu")))
    assert abs(got.item() - mc) < 5e-3
    u = rng.uniform(-1.0, 2.0, size=400_000)
    mc = np.mean(-np.log(3.0) - _normal_logpdf(u, 0.2, 1.1))
    got = kl_divergence(
        Uniform(t(-1.0, "cpu"), t(2.0, "cpu")), Normal(t(0.2, "cpu"), t(1.1, "cpu"))
    )
    assert abs(got.item() - mc) < 5e-3


def test_gradients_flow(device: str) -> None:
    gc = tc.autograd.gradcheck
    a, b = t([0.1, -0.4], device, True), t([0.7, 1.3], device, True)
    c, d = t([0.5, 0.2], device, True), t([1.1, 0.6], device, True)
    assert gc(lambda a, b, c, d: kl_divergence(Normal(a, b), Normal(c, d)), (a, b, c, d))
    lo, hi = t([-1.0, 0.0], device, True), t([1.0, 0.5], device, True)
    assert gc(lambda lo, hi, c, d: kl_divergence(Uniform(lo, hi), Normal(c, d)), (lo, hi, c, d))
    p, q = t([0.2, 0.7], device, True), t([0.4, 0.5], device, True)
    assert gc(lambda p, q: kl_divergence(Bernoulli(p), Bernoulli(q)), (p, q))
    lp, lq = t([[0.1, 0.5, -0.3]], device, True), t([[1.0, -0.2, 0.0]], device, True)
    fn = lambda lp, lq: kl_divergence(Categorical(logits=lp), Categorical(logits=lq))  # noqa: E731
    assert gc(fn, (lp, lq))
    qlo, qhi = t([-2.0, -1.0], device, True), t([2.0, 1.0], device, True)
    assert gc(
        lambda lo, hi, a, b: kl_divergence(Uniform(lo, hi), Uniform(a, b)), (lo, hi, qlo, qhi)
    )


class _Std(Normal):
    pass


class _Other(Distribution):
    arg_constraints: ClassVar[dict[str, Any]] = {}  # (none: else validation warns, as PyTorch)


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kl, "_REGISTRY", dict(kl._REGISTRY))
    monkeypatch.setattr(kl, "_CACHE", {})


def test_dispatch_picks_the_most_specific_pair(registry: None) -> None:
    p, q = _Std(t(0.0, "cpu"), t(1.0, "cpu")), Normal(t(1.0, "cpu"), t(1.0, "cpu"))
    # a subclass uses its parent's rule until it registers its own
    assert_close(kl_divergence(p, q), np.array(0.5))

    @register_kl(_Std, Normal)
    def _mine(p: Any, q: Any) -> tc.Tensor:
        return tc.tensor(-1.0)

    assert kl_divergence(p, q).item() == -1.0
    assert kl_divergence(q, p).item() == 0.5  # (Normal, _Std) still falls back to Normal's


def test_ties_warn_and_unknown_pairs_raise(registry: None) -> None:
    @register_kl(_Std, Distribution)
    def _left(p: Any, q: Any) -> tc.Tensor:
        return tc.tensor(1.0)

    @register_kl(Distribution, _Std)
    def _right(p: Any, q: Any) -> tc.Tensor:
        return tc.tensor(2.0)

    s = _Std(t(0.0, "cpu"), t(1.0, "cpu"))
    with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(_Std, _Std\)"):
        assert kl_divergence(s, s).item() == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert kl_divergence(s, s).item() == 1.0  # the choice is cached, warned once
    with pytest.raises(
        NotImplementedError,
        match="No KL\\(p \\|\\| q\\) is implemented for p type _Other and q type Normal",
    ):
        kl_divergence(_Other(), Normal(t(0.0, "cpu"), t(1.0, "cpu")))
    # two exponential families of different kinds: PyTorch's Bregman rule refuses them
    with pytest.raises(NotImplementedError, match="cross KL-divergence between different expo"):
        kl_divergence(Bernoulli(t(0.5, "cpu")), Normal(t(0.0, "cpu"), t(1.0, "cpu")))
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass"):
        register_kl(int, Normal)
