"""``tensorcore.distributions.constraints``: each constraint's ``check`` on values inside and
outside its set, its ``event_dim``/``is_discrete`` and PyTorch's ``repr``; every distribution
declares ``arg_constraints`` and ``support``, and ``validate_args`` reports parameters and
values in PyTorch's words (and skips a lazily computed parameter that was not given)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.distributions import constraints as C
from tensorcore.testing import assert_close

F64 = tc.float64


def t(x: Any, device: str = "cpu") -> tc.Tensor:
    return tc.tensor(x, dtype=F64, device=device)


# (constraint, values, expected check, repr, event_dim, is_discrete)
CASES: list[tuple[Any, Any, list[Any], str, int, bool]] = [
    (C.real, [0.0, float("inf"), float("nan")], [True, True, False], "Real()", 0, False),
    (C.positive, [1.0, 0.0], [True, False], "GreaterThan(lower_bound=0.0)", 0, False),
    (C.nonnegative, [0.0, -1.0], [True, False], "GreaterThanEq(lower_bound=0.0)", 0, False),
    (C.greater_than(2.0), [3.0, 2.0], [True, False], "GreaterThan(lower_bound=2.0)", 0, False),
    (C.less_than(1.0), [0.0, 1.0], [True, False], "LessThan(upper_bound=1.0)", 0, False),
    (
        C.unit_interval,
        [0.0, 1.0, 1.5],
        [True, True, False],
        "Interval(lower_bound=0.0, upper_bound=1.0)",
        0,
        False,
    ),
    (
        C.half_open_interval(0.0, 1.0),
        [0.0, 1.0],
        [True, False],
        "HalfOpenInterval(lower_bound=0.0, upper_bound=1.0)",
        0,
        False,
    ),
    (
        C.integer_interval(0, 3),
        [0.0, 3.0, 1.5, 4.0],
        [True, True, False, False],
        "IntegerInterval(lower_bound=0, upper_bound=3)",
        0,
        True,
    ),
    (
        C.nonnegative_integer,
        [0.0, 2.0, -1.0, 0.5],
        [True, True, False, False],
        "IntegerGreaterThan(lower_bound=0)",
        0,
        True,
    ),
    (C.positive_integer, [1.0, 0.0], [True, False], "IntegerGreaterThan(lower_bound=1)", 0, True),
    (C.boolean, [0.0, 1.0, 0.5], [True, True, False], "Boolean()", 0, True),
    (C.simplex, [[0.2, 0.8], [0.5, 0.6]], [True, False], "Simplex()", 1, False),
    (C.one_hot, [[0.0, 1.0], [1.0, 1.0]], [True, False], "OneHot()", 1, True),
    (
        C.real_vector,
        [[0.0, 1.0], [0.0, float("nan")]],
        [True, False],
        "IndependentConstraint(Real(), 1)",
        1,
        False,
    ),
    (C.multinomial(3), [[1.0, 2.0], [2.0, 2.0]], [True, False], "Multinomial()", 1, True),
    (
        C.lower_cholesky,
        [[[1.0, 0.0], [0.5, 2.0]], [[1.0, 0.1], [0.5, 2.0]], [[-1.0, 0.0], [0.5, 2.0]]],
        [True, False, False],
        "LowerCholesky()",
        2,
        False,
    ),
    (
        C.lower_triangular,
        [[[-1.0, 0.0], [0.5, 2.0]], [[1.0, 0.1], [0.5, 2.0]]],
        [True, False],
        "LowerTriangular()",
        2,
        False,
    ),
    (
        C.corr_cholesky,
        [[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.5, 0.5]]],
        [True, False],
        "CorrCholesky()",
        2,
        False,
    ),
    (
        C.positive_definite,
        [[[2.0, 0.5], [0.5, 1.0]], [[1.0, 2.0], [2.0, 1.0]]],
        [True, False],
        "PositiveDefinite()",
        2,
        False,
    ),
    (
        C.positive_semidefinite,
        [[[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]],
        [True, False],
        "PositiveSemidefinite()",
        2,
        False,
    ),
    (
        C.symmetric,
        [[[1.0, 3.0], [3.0, 1.0]], [[1.0, 2.0], [0.0, 1.0]]],
        [True, False],
        "Symmetric()",
        2,
        False,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[3] for c in CASES])
def test_constraint_check_repr_and_facts(case: Any, device: str) -> None:
    constraint, values, want, text, event_dim, discrete = case
    got = constraint.check(t(values, device))
    assert got.dtype is tc.bool and got.tolist() == want
    assert repr(constraint) == text
    assert constraint.event_dim == event_dim and constraint.is_discrete is discrete


def test_independent_cat_stack_and_dependent() -> None:
    c = C.independent(C.positive, 1)
    assert c.check(t([[1.0, 2.0], [1.0, -1.0]])).tolist() == [True, False]
    assert c.event_dim == 1 and not c.is_discrete
    cat = C.cat([C.positive, C.real], dim=0, lengths=[2, 1])
    assert cat.check(t([1.0, 2.0, -3.0])).tolist() == [True, True, True]
    assert cat.check(t([1.0, -2.0, -3.0])).tolist() == [True, False, True]
    st = C.stack([C.positive, C.nonnegative_integer], dim=-1)
    assert st.check(t([[1.0, 2.0], [1.0, 0.5]])).tolist() == [[True, True], [True, False]]
    assert st.is_discrete
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
    assert C.dependent(is_discrete=True, event_dim=1).event_dim == 1
    with pytest.raises(NotImplementedError):
        _ = C.dependent.event_dim
    with pytest.raises(ValueError, match="dependent constraint"):
        C.dependent.check(t(0.0))
    # A distribution's dependent support is dependent on the class, computed on instances.
    assert C.is_dependent(tc.distributions.Uniform.support)
    assert repr(tc.distributions.Uniform(0.0, 2.0).support) == (
        "Interval(lower_bound=0.0, upper_bound=2.0)"
    )


def _distributions() -> list[Any]:
    d = tc.distributions
    p = t([0.3, 0.7])
    return [
        d.Normal(t(0.0), 1.0),
        d.Uniform(t(0.0), 1.0),
        d.Bernoulli(t(0.3)),
        d.Categorical(p),
        d.Exponential(t(1.0)),
        d.Laplace(t(0.0), 1.0),
        d.LogNormal(t(0.0), 1.0),
        d.Gamma(t(1.0), 1.0),
        d.Beta(t(1.0), 1.0),
        d.Dirichlet(p),
        d.Poisson(t(1.0)),
        d.Binomial(3, t(0.5)),
        d.OneHotCategorical(p),
        d.MultivariateNormal(t([0.0, 0.0]), tc.eye(2, dtype=F64)),
        d.Independent(d.Normal(t([0.0, 0.0]), 1.0), 1),
    ]


@pytest.mark.parametrize("i", range(15))
def test_every_distribution_declares_its_constraints(i: int) -> None:
    dist = _distributions()[i]
    assert isinstance(dist.arg_constraints, dict)
    for c in dist.arg_constraints.values():
        assert isinstance(c, C.Constraint)
    support = dist.support
    assert isinstance(support, C.Constraint) and not C.is_dependent(support)
    sample = dist.sample()
    assert bool(support.check(sample).all())


def test_validation_messages_and_lazy_parameters() -> None:
    d = tc.distributions
    with pytest.raises(
        ValueError,
        match=r"^Expected parameter scale \(Tensor of shape \(\)\) of distribution "
        r"Normal\(loc: 0\.0, scale: -1\.0\) to satisfy the constraint "
        r"GreaterThan\(lower_bound=0\.0\), but found invalid values:\n-1\.0$",
    ):
        d.Normal(t(0.0), t(-1.0))
    with pytest.raises(ValueError, match=r"parameter low .* LessThan\(upper_bound=0\.0\)"):
        d.Uniform(t(1.0), t(0.0))
    with pytest.raises(ValueError, match=r"^The value argument to log_prob must be a Tensor$"):
        d.Normal(t(0.0), 1.0).log_prob(0.5)
    with pytest.raises(ValueError, match="right-most size of value must match event_shape"):
        d.Dirichlet(t([1.0, 1.0])).log_prob(t([0.2, 0.3, 0.5]))
    with pytest.raises(ValueError, match="not broadcastable with batch_shape"):
        d.Normal(t([0.0, 0.0]), 1.0).log_prob(t([0.0, 0.0, 0.0]))
    with pytest.raises(ValueError, match=r"within the support \(Interval\(lower_bound=0\.0"):
        d.Uniform(t(0.0), t(1.0)).log_prob(t(2.0))
    with pytest.raises(ValueError, match=r"support \(Simplex\(\)\)"):
        d.Dirichlet(t([1.0, 1.0])).log_prob(t([0.5, 0.6]))
    with pytest.raises(ValueError, match=r"constraint Interval\(lower_bound=0\.0"):
        d.Bernoulli(t(1.5))
    with pytest.raises(ValueError, match=r"constraint Simplex\(\)"):
        d.Categorical(t([0.5, -0.5]))
    # logits given: probs is computed lazily, so it is neither computed nor checked.
    b = d.Bernoulli(logits=t([100.0]))
    assert "probs" not in b.__dict__
    assert b.probs.item() == pytest.approx(1.0)
    assert repr(d.Normal(t(0.0), t(1.0))) == "Normal(loc: 0.0, scale: 1.0)"
    assert repr(d.Normal(t([0.0, 1.0]), 1.0)) == (
        "Normal(loc: tensorcore.Size([2]), scale: tensorcore.Size([2]))"
    )
    # validate_args=False skips both checks.
    assert d.Uniform(t(0.0), t(1.0), validate_args=False).log_prob(t(2.0)).item() == -float("inf")


def test_lazy_properties_record_gradients_under_no_grad() -> None:
    """A lazy property is computed with gradients enabled (PyTorch's ``lazy_property``), so a
    distribution built under ``no_grad`` keeps the graph of what it derives and caches."""
    d = tc.distributions
    rng = np.random.default_rng(0)
    lt = np.tril(rng.normal(size=(3, 3))) + 3 * np.eye(3)
    L = tc.tensor(lt, requires_grad=True)
    with tc.no_grad():
        mvn = d.MultivariateNormal(tc.zeros(3, dtype=tc.float64), scale_tril=L)
        cov = mvn.covariance_matrix
    assert cov.requires_grad and cov.grad_fn is not None
    cov.sum().backward()  # d/dL sum(L L^T) = 2 * ones @ L
    assert_close(L.grad, 2 * np.ones((3, 3)) @ lt, rtol=1e-12, atol=1e-12)
    assert mvn.covariance_matrix is cov  # cached
    with tc.no_grad():
        plain = d.MultivariateNormal(tc.zeros(3), scale_tril=tc.eye(3)).covariance_matrix
    assert not plain.requires_grad
