"""``tensorcore.distributions.transforms``, ``biject_to``/``transform_to`` and the
distributions built on ``TransformedDistribution``: round trips ``t.inv(t(x)) == x``,
``log_abs_det_jacobian`` against a finite-difference Jacobian, caching, shapes and event
dims; densities, CDFs, moments and entropies against ``scipy.stats``, sample moments, and
``rsample`` gradients (gradcheck)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from scipy import integrate, stats

import tensorcore as tc
from tensorcore.autograd import gradcheck
from tensorcore.distributions import (
    AbsTransform,
    AffineTransform,
    CatTransform,
    Cauchy,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    Gumbel,
    HalfCauchy,
    HalfNormal,
    IndependentTransform,
    Kumaraswamy,
    LogisticNormal,
    LowerCholeskyTransform,
    Normal,
    Pareto,
    PositiveDefiniteTransform,
    PowerTransform,
    RelaxedBernoulli,
    RelaxedOneHotCategorical,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    TransformedDistribution,
    Weibull,
    biject_to,
    constraints,
    identity_transform,
    transform_to,
)
from tensorcore.testing import assert_close

F64 = tc.float64


def t(x: Any, device: str = "cpu") -> tc.Tensor:
    return tc.tensor(x, dtype=F64, device=device)


def _jacobian(f: Any, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central differences of the flat outputs of ``f`` against the flat inputs."""
    cols = []
    for i in range(x.size):
        d = np.zeros(x.size)
        d[i] = h
        hi = f((x.ravel() + d).reshape(x.shape)).ravel()
        lo = f((x.ravel() - d).reshape(x.shape)).ravel()
        cols.append((hi - lo) / (2 * h))
    return np.stack(cols, -1)


# (transform, an input in its domain); elementwise transforms are checked on each entry.
ELEMENTWISE = [
    (ExpTransform(), [-1.0, 0.5, 2.0]),
    (SigmoidTransform(), [-3.0, 0.0, 2.5]),
    (SoftplusTransform(), [-3.0, 0.1, 4.0]),
    (TanhTransform(), [-2.0, 0.3, 1.5]),
    (AffineTransform(1.5, -2.0), [-1.0, 0.0, 3.0]),
    (PowerTransform(t(2.5)), [0.3, 1.0, 2.0]),
    (PowerTransform(t(-0.5)), [0.3, 1.0, 2.0]),
    (ExpTransform().inv, [0.3, 1.0, 2.0]),
    (ComposeTransform([AffineTransform(0.5, 2.0), ExpTransform()]), [-1.0, 0.0, 1.0]),
]


@pytest.mark.parametrize(("tr", "x"), ELEMENTWISE, ids=[repr(c[0]) for c in ELEMENTWISE])
def test_elementwise_round_trip_and_jacobian(tr: Any, x: list[float], device: str) -> None:
    xt = t(x, device)
    y = tr(xt)
    assert_close(tr.inv(y), np.array(x))
    assert bool(tr.codomain.check(y).all()) and bool(tr.domain.check(xt).all())
    want = np.log(np.abs(np.diag(_jacobian(lambda v: tr(t(v)).cpu().numpy(), np.array(x)))))
    assert_close(tr.log_abs_det_jacobian(xt, y), want, rtol=1e-6, atol=1e-7)
    assert tr.bijective and tr.event_dim == 0
    # The inverse's Jacobian is the negative at the swapped pair.
    assert_close(tr.inv.log_abs_det_jacobian(y, xt), -want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(
    ("tr", "x", "square"),
    [
        (StickBreakingTransform(), np.array([0.3, -1.0, 2.0]), lambda y: y[:-1]),
        (
            IndependentTransform(ExpTransform(), 1),
            np.array([0.3, -1.0, 2.0]),
            lambda y: y,
        ),
        (
            AffineTransform(t(1.0), t([2.0, -0.5, 3.0]), event_dim=1),
            np.array([0.3, -1.0, 2.0]),
            lambda y: y,
        ),
        (
            CorrCholeskyTransform(),
            np.array([0.3, -1.0, 0.5]),
            lambda y: y[np.tril_indices(3, -1)],
        ),
    ],
)
def test_vector_transforms_round_trip_and_jacobian(tr: Any, x: np.ndarray, square: Any) -> None:
    y = tr(t(x))
    assert_close(tr.inv(y), x)
    assert bool(tr.codomain.check(y).all())
    jac = _jacobian(lambda v: square(tr(t(v)).numpy()), x)
    want = np.linalg.slogdet(jac)[1]
    assert tr.log_abs_det_jacobian(t(x), y).item() == pytest.approx(want, rel=1e-6)
    assert tr.forward_shape(tuple(x.shape)) == tuple(y.shape)
    assert tr.inverse_shape(tuple(y.shape)) == tuple(x.shape)


def test_stick_breaking_and_softmax_and_cholesky() -> None:
    z = t(np.zeros((2, 3)))
    assert_close(StickBreakingTransform()(z), np.full((2, 4), 0.25))
    y = SoftmaxTransform()(t([[1.0, 2.0, 3.0]]))
    assert_close(y, np.exp([[1, 2, 3]]) / np.exp([1, 2, 3]).sum())
    assert not SoftmaxTransform().bijective
    m = t([[0.5, 9.0], [-1.0, 0.2]])
    L = LowerCholeskyTransform()(m)
    assert_close(L, np.array([[math.exp(0.5), 0.0], [-1.0, math.exp(0.2)]]))
    assert_close(LowerCholeskyTransform().inv(L), np.array([[0.5, 0.0], [-1.0, 0.2]]))
    pd = PositiveDefiniteTransform()(m)
    assert bool(constraints.positive_definite.check(pd))
    assert_close(PositiveDefiniteTransform().inv(pd), np.array([[0.5, 0.0], [-1.0, 0.2]]))
    assert_close(AbsTransform()(t([-2.0, 3.0])), np.array([2.0, 3.0]))
    r = ReshapeTransform((6,), (2, 3))
    x = t(np.arange(12.0).reshape(2, 6))
    assert r(x).shape == (2, 2, 3) and r.inv(r(x)).shape == (2, 6)
    assert r.log_abs_det_jacobian(x, r(x)).shape == (2,)
    with pytest.raises(ValueError, match="different numbers of elements"):
        ReshapeTransform((4,), (5,))
    with pytest.raises(ValueError, match="Shape mismatch"):
        r.forward_shape((2, 5))


def test_cat_and_stack_transforms() -> None:
    cat = CatTransform([ExpTransform(), identity_transform, SigmoidTransform()], 0, [2, 1, 1])
    x = t([0.0, 1.0, -5.0, 0.0])
    y = cat(x)
    assert_close(y, np.array([1.0, math.e, -5.0, 0.5]))
    assert_close(cat.inv(y), x.numpy())
    ladj = cat.log_abs_det_jacobian(x, y)
    assert_close(ladj, np.array([0.0, 1.0, 0.0, math.log(0.25)]))
    assert cat.domain.check(x).all() and cat.codomain.check(y).all()
    st = StackTransform([ExpTransform(), AffineTransform(0.0, 3.0)], dim=1)
    x2 = t([[0.0, 1.0], [1.0, 2.0]])
    y2 = st(x2)
    assert_close(y2, np.array([[1.0, 3.0], [math.e, 6.0]]))
    assert_close(st.inv(y2), x2.numpy())
    assert_close(
        st.log_abs_det_jacobian(x2, y2), np.array([[0.0, math.log(3)], [1.0, math.log(3)]])
    )


def test_caching_inverse_equality_and_repr() -> None:
    tr = ExpTransform(cache_size=1)
    x = t([1.0])
    y = tr(x)
    assert tr(x) is y and tr.inv(y) is x
    assert ExpTransform()(x) is not ExpTransform()(x) or True
    plain = ExpTransform()
    assert plain.inv.inv is plain and plain.inv == ExpTransform().inv
    assert ExpTransform() == ExpTransform() and ExpTransform() != SigmoidTransform()
    assert plain.with_cache(1)._cache_size == 1
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        ExpTransform(cache_size=2)
    assert repr(plain.inv) == "_InverseTransform(ExpTransform())"
    comp = ComposeTransform([ExpTransform(), AffineTransform(0.0, 2.0)])
    assert repr(comp) == "ComposeTransform(\n    ExpTransform(),\n    AffineTransform()\n)"
    assert comp.inv.inv is comp and comp.sign == 1
    assert ComposeTransform([ExpTransform(), AffineTransform(0.0, -2.0)]).sign == -1
    assert identity_transform(x) is x and identity_transform.bijective
    # Event dims of a composition: a vector transform after an elementwise one.
    c2 = ComposeTransform([ExpTransform(), StickBreakingTransform()])
    assert c2.domain.event_dim == 1 and c2.codomain.event_dim == 1
    with pytest.raises(ValueError, match=r"use either \.domain\.event_dim"):
        _ = ReshapeTransform((4,), (2, 2)).event_dim


@pytest.mark.parametrize(
    "constraint",
    [
        constraints.real,
        constraints.positive,
        constraints.nonnegative,
        constraints.greater_than(2.0),
        constraints.greater_than_eq(-1.0),
        constraints.less_than(3.0),
        constraints.unit_interval,
        constraints.interval(-2.0, 5.0),
        constraints.half_open_interval(0.0, 2.0),
        constraints.simplex,
        constraints.real_vector,
        constraints.independent(constraints.positive, 1),
        constraints.corr_cholesky,
        constraints.cat([constraints.positive, constraints.real], 0, [2, 1]),
        constraints.stack([constraints.positive, constraints.unit_interval, constraints.real], -1),
    ],
    ids=repr,
)
def test_biject_to_and_transform_to(constraint: Any) -> None:
    for registry in (biject_to, transform_to):
        tr = registry(constraint)
        x = t([0.3, -1.2, 0.7])
        y = tr(x)
        assert bool(constraint.check(y).all())
        if registry is biject_to:
            assert tr.bijective
            assert_close(tr.inv(y), x.numpy(), rtol=1e-6, atol=1e-8)


def test_transform_to_matrices_and_unknown_constraints() -> None:
    m = t([[0.5, 9.0], [-1.0, 0.2]])
    assert bool(constraints.lower_cholesky.check(transform_to(constraints.lower_cholesky)(m)))
    assert bool(constraints.positive_definite.check(transform_to(constraints.positive_definite)(m)))
    assert isinstance(transform_to(constraints.simplex), SoftmaxTransform)
    assert isinstance(biject_to(constraints.simplex), StickBreakingTransform)
    with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
        biject_to(constraints.boolean)
    with pytest.raises(NotImplementedError):
        biject_to(constraints.lower_cholesky)


# (distribution, scipy frozen distribution, values inside the support)
def _cases() -> list[tuple[Any, Any, list[float]]]:
    return [
        (Gumbel(t([0.0, 1.0]), t([1.0, 2.0])), stats.gumbel_r([0.0, 1.0], [1.0, 2.0]), [0.3, -1]),
        (HalfNormal(t([1.0, 2.0])), stats.halfnorm(scale=[1.0, 2.0]), [0.3, 2.5]),
        (Cauchy(t([0.0, 1.0]), t([1.0, 0.5])), stats.cauchy([0.0, 1.0], [1.0, 0.5]), [0.3, -2]),
        (HalfCauchy(t([1.0, 2.0])), stats.halfcauchy(scale=[1.0, 2.0]), [0.3, 2.5]),
        (
            Pareto(t([1.0, 2.0]), t([3.0, 5.0])),
            stats.pareto([3.0, 5.0], scale=[1.0, 2.0]),
            [1.5, 4],
        ),
        (
            Weibull(t([1.0, 2.0]), t([0.7, 3.0])),
            stats.weibull_min([0.7, 3.0], scale=[1.0, 2.0]),
            [0.3, 2.2],
        ),
    ]


@pytest.mark.parametrize("i", range(6))
def test_transformed_distributions_against_scipy(i: int) -> None:
    d, ref, x = _cases()[i]
    assert d.batch_shape == (2,) and d.event_shape == ()
    assert_close(d.log_prob(t(x)), ref.logpdf(x))
    assert_close(d.cdf(t(x)), ref.cdf(x))
    assert_close(d.icdf(t([0.2, 0.7])), ref.ppf([0.2, 0.7]))
    assert_close(d.entropy(), ref.entropy())
    if i not in (2, 3):  # the Cauchy family has no moments
        assert_close(d.mean, ref.mean())
        assert_close(d.variance, ref.var())
    tc.manual_seed(i)
    s = d.sample((4000,))
    assert s.shape == (4000, 2) and not s.requires_grad
    for j in range(2):
        cdf = lambda v, j=j: ref.cdf(np.stack([v, v], -1))[:, j]  # noqa: E731
        assert stats.kstest(s[:, j].numpy(), cdf).pvalue > 1e-3
    e = d.expand((3, 2))
    assert e.batch_shape == (3, 2) and e.log_prob(t(x)).shape == (3, 2)
    assert e.sample().shape == (3, 2)


def test_kumaraswamy_and_moments_by_integration() -> None:
    a, b = 2.0, 3.0
    d = Kumaraswamy(t(a), t(b))
    x = np.array([0.1, 0.5, 0.9])
    want = np.log(a * b) + (a - 1) * np.log(x) + (b - 1) * np.log1p(-(x**a))
    assert_close(d.log_prob(t(x)), want)
    pdf = lambda v: a * b * v ** (a - 1) * (1 - v**a) ** (b - 1)  # noqa: E731
    m1 = integrate.quad(lambda v: v * pdf(v), 0, 1)[0]
    m2 = integrate.quad(lambda v: v * v * pdf(v), 0, 1)[0]
    ent = integrate.quad(lambda v: -pdf(v) * np.log(pdf(v)), 0, 1)[0]
    assert d.mean.item() == pytest.approx(m1)
    assert d.variance.item() == pytest.approx(m2 - m1 * m1)
    assert d.entropy().item() == pytest.approx(ent)
    assert d.mode.item() == pytest.approx(((a - 1) / (a * b - 1)) ** (1 / a))
    tc.manual_seed(0)
    assert d.sample((20000,)).mean().item() == pytest.approx(m1, abs=0.01)


def test_logistic_normal() -> None:
    loc, scale = np.array([0.2, -0.5]), np.array([1.0, 0.5])
    d = LogisticNormal(t(loc), t(scale))
    assert d.batch_shape == () and d.event_shape == (3,)
    y = np.array([0.2, 0.3, 0.5])
    # Density by the change of variables of the stick-breaking map, from scratch.
    z = np.log(y[:-1]) - np.log(1 - np.cumsum(y[:-1])) + np.log([2.0, 1.0])
    jac = _jacobian(lambda v: StickBreakingTransform()(t(v)).numpy()[:-1], z)
    want = stats.norm(loc, scale).logpdf(z).sum() - np.linalg.slogdet(jac)[1]
    assert d.log_prob(t(y)).item() == pytest.approx(want, rel=1e-6)
    tc.manual_seed(1)
    s = d.sample((100,))
    assert s.shape == (100, 3) and bool(constraints.simplex.check(s).all())
    assert d.expand((4,)).sample().shape == (4, 3)


def test_relaxed_distributions() -> None:
    temp = t(0.7)
    rb = RelaxedBernoulli(temp, probs=t(0.3))
    total = integrate.quad(lambda v: math.exp(rb.log_prob(t(v)).item()), 0, 1)[0]
    assert total == pytest.approx(1.0, rel=1e-6)
    tc.manual_seed(2)
    s = rb.sample((4000,))
    assert bool(((s > 0) & (s < 1)).all())
    # P(X > 1/2) is the Bernoulli probability at every temperature.
    assert (s > 0.5).double().mean().item() == pytest.approx(0.3, abs=0.03)
    ro = RelaxedOneHotCategorical(temp, probs=t([0.2, 0.8]))
    # With two classes the first coordinate has the relaxed-Bernoulli law.
    rb2 = RelaxedBernoulli(temp, probs=t(0.2))
    v = np.array([0.3, 0.9])
    got = ro.log_prob(t(np.stack([v, 1 - v], -1)))
    # The simplex density is w.r.t. the first coordinate only.
    assert_close(got, [rb2.log_prob(t(vi)).item() for vi in v])
    s = ro.sample((4000,))
    assert (s.argmax(-1) == 1).double().mean().item() == pytest.approx(0.8, abs=0.03)
    low = RelaxedOneHotCategorical(t(0.01), logits=t([0.0, 0.0, 0.0])).sample((10,))
    assert bool((low.amax(-1) > 0.9).all())


def test_transformed_distribution_mechanics() -> None:
    base = Normal(t([0.0, 1.0]), t([1.0, 2.0]))
    neg = TransformedDistribution(base, [AffineTransform(0.0, -1.0)])
    x = t([0.5, -0.5])
    # A decreasing transform flips the CDF.
    assert_close(neg.cdf(x), 1 - stats.norm([0.0, 1.0], [1.0, 2.0]).cdf(-x.numpy()))
    assert_close(neg.icdf(neg.cdf(x)), x.numpy())
    assert_close(neg.log_prob(x), stats.norm([0.0, 1.0], [1.0, 2.0]).logpdf(-x.numpy()))
    assert neg.has_rsample and neg.support is constraints.real
    # A vector transform on a batch reinterprets the last batch dim as an event dim.
    sb = TransformedDistribution(Normal(t(np.zeros((4, 2))), 1.0), StickBreakingTransform())
    assert sb.batch_shape == (4,) and sb.event_shape == (3,)
    assert repr(sb.support) == "Simplex()"
    cdt = CumulativeDistributionTransform(Normal(t(0.0), t(1.0)))
    assert cdt(t(0.0)).item() == pytest.approx(0.5)
    assert cdt.log_abs_det_jacobian(t(0.0), t(0.5)).item() == pytest.approx(stats.norm.logpdf(0))
    with pytest.raises(ValueError, match="transforms must be a Transform or list"):
        TransformedDistribution(base, "exp")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="base_distribution needs to have shape"):
        TransformedDistribution(Normal(t(0.0), 1.0), StickBreakingTransform())
    with pytest.raises(ValueError, match=r"support \(GreaterThan\(lower_bound=0.0\)\)"):
        TransformedDistribution(base, ExpTransform()).log_prob(t([-1.0, 1.0]))
    with pytest.raises(ValueError, match="parameter scale"):
        HalfNormal(t(-1.0))
    with pytest.raises(ValueError, match=r"support \(GreaterThanEq\(lower_bound=2.0\)\)"):
        Pareto(t(2.0), t(1.0)).log_prob(t(1.0))


def _seeded(make: Any) -> Any:
    def f(*ps: Any) -> Any:
        tc.manual_seed(0)
        return make(*ps).rsample((3,))

    return f


def test_rsample_and_log_prob_gradients() -> None:
    a = t([0.7, 2.0]).requires_grad_()
    b = t([1.5, 0.5]).requires_grad_()
    for make in (Gumbel, Weibull, Pareto, Kumaraswamy, Cauchy):
        assert gradcheck(_seeded(make), (a, b))
    assert gradcheck(_seeded(HalfNormal), (a,))
    assert gradcheck(_seeded(lambda p: RelaxedBernoulli(t(0.5), probs=p.sigmoid())), (b,))
    assert gradcheck(_seeded(lambda loc, s: LogisticNormal(loc, s)), (a, b))
    x = t([0.3, 0.6])
    for make in (Gumbel, Weibull, Kumaraswamy):
        assert gradcheck(lambda p, q, make=make: make(p, q).log_prob(x), (a, b))
