"""Distributions defined as a base distribution pushed through transforms, as PyTorch
defines them: ``LogNormal``, ``Gumbel``, ``HalfNormal``, ``HalfCauchy``, ``Pareto``,
``Weibull``, ``Kumaraswamy``, ``LogisticNormal`` and ``InverseGamma`` (closed forms for the
moments and entropy; ``log_prob``, ``cdf``, ``icdf`` and ``rsample`` through the transforms unless a
closed form is simpler)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

from .._tensor import Tensor
from ..ops import functions as ops
from . import constraints
from .continuous import Exponential, Gamma
from .distribution import Distribution
from .distributions import Normal, Uniform
from .transformed_distribution import TransformedDistribution
from .transforms import (
    AbsTransform,
    AffineTransform,
    ExpTransform,
    PowerTransform,
    StickBreakingTransform,
)
from .univariate import Cauchy
from .utils import _tensor, broadcast_all, eps, tiny

__all__ = [
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "InverseGamma",
    "Kumaraswamy",
    "LogNormal",
    "LogisticNormal",
    "Pareto",
    "Weibull",
]

_C = dict[str, constraints.Constraint]
_EULER_GAMMA = 0.57721566490153286060


class LogNormal(TransformedDistribution):
    """The distribution of ``exp(X)`` for ``X ~ Normal(loc, scale)`` (``base_dist``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.LogNormal(0.0, 1.0)
    >>> round(d.mean.item(), 4), round(d.log_prob(tc.tensor(1.0)).item(), 4)
    (1.6487, -0.9189)
    """

    arg_constraints: ClassVar[_C] = {"loc": constraints.real, "scale": constraints.positive}
    support: Any = constraints.positive
    has_rsample = True
    base_dist: Normal

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    @property
    def loc(self) -> Tensor:
        """The base normal's mean."""
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        """The base normal's standard deviation."""
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        """``exp(loc + scale ** 2 / 2)``."""
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        """``exp(loc - scale ** 2)``."""
        return (self.loc - self.scale.pow(2)).exp()

    @property
    def variance(self) -> Tensor:
        """``(exp(scale ** 2) - 1) * exp(2 * loc + scale ** 2)``."""
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self) -> Tensor:
        """The base normal's entropy plus ``loc``."""
        return self.base_dist.entropy() + self.loc


class Gumbel(TransformedDistribution):
    """The Gumbel (type-I extreme value) distribution of ``loc`` and ``scale``: the law of
    ``loc - scale * log(-log(U))`` for ``U`` uniform.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Gumbel(0.0, 1.0)
    >>> round(d.mean.item(), 4), round(d.log_prob(tc.tensor(0.0)).item(), 4)
    (0.5772, -1.0)
    """

    arg_constraints: ClassVar[_C] = {"loc": constraints.real, "scale": constraints.positive}
    support: Any = constraints.real
    has_rsample = True
    _expand_params: ClassVar[dict[str, int]] = {"loc": 0, "scale": 0}

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        d = self.loc.dtype
        base = Uniform(
            ops.full_like(self.loc, tiny(d)),
            ops.full_like(self.loc, 1 - eps(d)),
            validate_args=validate_args,
        )
        transforms = [
            ExpTransform().inv,
            AffineTransform(loc=0, scale=-ops.ones_like(self.scale)),
            ExpTransform().inv,
            AffineTransform(loc=self.loc, scale=-self.scale),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    def log_prob(self, value: Any) -> Tensor:
        """``z - exp(z) - log(scale)`` with ``z = (loc - value) / scale``."""
        if self._validate_args:
            self._validate_sample(value)
        z = (self.loc - _tensor(value, self.loc)) / self.scale
        return (z - z.exp()) - self.scale.log()

    @property
    def mean(self) -> Tensor:
        """``loc + scale * euler_gamma``."""
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def mode(self) -> Tensor:
        """``loc``."""
        return self.loc

    @property
    def stddev(self) -> Tensor:
        """``pi / sqrt(6) * scale``."""
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        """``stddev ** 2``."""
        return self.stddev.pow(2)

    def entropy(self) -> Tensor:
        """``log(scale) + 1 + euler_gamma``."""
        return self.scale.log() + (1 + _EULER_GAMMA)


class _HalfOf(TransformedDistribution):
    """``|X|`` for ``X`` symmetric about 0 (``base_dist``): twice the density on ``[0, inf)``."""

    base_dist: Any
    has_rsample = True
    support: Any = constraints.nonnegative
    arg_constraints: ClassVar[_C] = {"scale": constraints.positive}

    @property
    def scale(self) -> Tensor:
        """The base distribution's scale."""
        return self.base_dist.scale

    @property
    def mode(self) -> Tensor:
        """0."""
        return ops.zeros_like(self.scale)

    def log_prob(self, value: Any) -> Tensor:
        """The base log density plus ``log 2`` on ``[0, inf)``, ``-inf`` below."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.scale)
        lp = self.base_dist.log_prob(value) + math.log(2)
        return ops.where(value >= 0, lp, float("-inf"))

    def cdf(self, value: Any) -> Tensor:
        """``2 * base.cdf(value) - 1``."""
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Any) -> Tensor:
        """``base.icdf((prob + 1) / 2)``."""
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Tensor:
        """The base entropy minus ``log 2``."""
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_HalfOf):
    """The distribution of ``|X|`` for ``X ~ Normal(0, scale)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.HalfNormal(1.0)
    >>> round(d.mean.item(), 4), d.cdf(tc.tensor(0.0))
    (0.7979, tensor(0.))
    """

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        base = Normal(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        """``scale * sqrt(2 / pi)``."""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Tensor:
        """``scale ** 2 * (1 - 2 / pi)``."""
        return self.scale.pow(2) * (1 - 2 / math.pi)


class HalfCauchy(_HalfOf):
    """The distribution of ``|X|`` for ``X ~ Cauchy(0, scale)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.HalfCauchy(1.0)
    >>> d.mean, d.cdf(tc.tensor(1.0))
    (tensor(inf), tensor(0.5000))
    """

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        base = Cauchy(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        """Infinite."""
        return ops.full_like(self.scale, math.inf)

    @property
    def variance(self) -> Tensor:
        """Infinite."""
        return ops.full_like(self.scale, math.inf)


class Pareto(TransformedDistribution):
    """The Pareto type-I distribution of ``scale`` (the minimum) and ``alpha`` (the tail
    index): ``scale * exp(E)`` for ``E ~ Exponential(alpha)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Pareto(1.0, 3.0)
    >>> d.mean, d.support
    (tensor(1.5000), GreaterThanEq(lower_bound=1.0))
    """

    arg_constraints: ClassVar[_C] = {"alpha": constraints.positive, "scale": constraints.positive}
    has_rsample = True
    _expand_params: ClassVar[dict[str, int]] = {"scale": 0, "alpha": 0}

    def __init__(self, scale: Any, alpha: Any, validate_args: bool | None = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        """``[scale, inf)``."""
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self) -> Tensor:
        """``alpha * scale / (alpha - 1)``, infinite for ``alpha <= 1``."""
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> Tensor:
        """``scale``."""
        return self.scale

    @property
    def variance(self) -> Tensor:
        """``scale^2 alpha / ((alpha - 1)^2 (alpha - 2))``, infinite for ``alpha <= 2``."""
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    def entropy(self) -> Tensor:
        """``log(scale / alpha) + 1 + 1 / alpha``."""
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


class Weibull(TransformedDistribution):
    """The Weibull distribution of ``scale`` and shape ``concentration``:
    ``scale * E ** (1 / concentration)`` for ``E ~ Exponential(1)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Weibull(2.0, 1.0)
    >>> d.mean, d.variance
    (tensor(2.), tensor(4.))
    """

    arg_constraints: ClassVar[_C] = {
        "scale": constraints.positive,
        "concentration": constraints.positive,
    }
    support: Any = constraints.positive
    has_rsample = True
    _expand_params: ClassVar[dict[str, int]] = {"scale": 0, "concentration": 0}

    def __init__(self, scale: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        base = Exponential(ops.ones_like(self.scale), validate_args=validate_args)
        transforms = [
            PowerTransform(exponent=self.concentration.reciprocal()),
            AffineTransform(loc=0, scale=self.scale),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def concentration_reciprocal(self) -> Tensor:
        """``1 / concentration``."""
        return self.concentration.reciprocal()

    @property
    def mean(self) -> Tensor:
        """``scale * Gamma(1 + 1 / k)``."""
        return self.scale * (1 + self.concentration_reciprocal).lgamma().exp()

    @property
    def mode(self) -> Tensor:
        """``scale * ((k - 1) / k) ** (1 / k)`` (NaN for ``k < 1``, as PyTorch's)."""
        k = self.concentration
        return self.scale * ((k - 1) / k).pow(k.reciprocal())

    @property
    def variance(self) -> Tensor:
        """``scale^2 (Gamma(1 + 2 / k) - Gamma(1 + 1 / k)^2)``."""
        r = self.concentration_reciprocal
        return self.scale.pow(2) * ((1 + 2 * r).lgamma().exp() - (2 * (1 + r).lgamma()).exp())

    def entropy(self) -> Tensor:
        """``euler_gamma (1 - 1 / k) + log(scale / k) + 1``."""
        r = self.concentration_reciprocal
        return _EULER_GAMMA * (1 - r) + (self.scale * r).log() + 1


def _kumaraswamy_moment(a: Tensor, b: Tensor, n: int) -> Tensor:
    """``E[X^n] = b B(1 + n / a, b)``."""
    arg = 1 + n / a
    return b * (arg.lgamma() + b.lgamma() - (arg + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution on ``[0, 1]`` (density ``a b x^(a-1) (1 - x^a)^(b-1)``
    with ``a = concentration1``, ``b = concentration0``): ``(1 - U^(1/b))^(1/a)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Kumaraswamy(1.0, 1.0)
    >>> d.mean, d.log_prob(tc.tensor(0.3))
    (tensor(0.5000), tensor(0.))
    """

    arg_constraints: ClassVar[_C] = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support: Any = constraints.unit_interval
    has_rsample = True
    _expand_params: ClassVar[dict[str, int]] = {"concentration1": 0, "concentration0": 0}

    def __init__(
        self, concentration1: Any, concentration0: Any, validate_args: bool | None = None
    ) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        c0 = self.concentration0
        base = Uniform(ops.zeros_like(c0), ops.ones_like(c0), validate_args=validate_args)
        transforms = [
            PowerTransform(exponent=c0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        """``b B(1 + 1 / a, b)``."""
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Tensor:
        """``((a - 1) / (a b - 1)) ** (1 / a)``; NaN where ``a < 1`` or ``b < 1``."""
        a, b = self.concentration1, self.concentration0
        m = ((a - 1) / (a * b - 1)).pow(a.reciprocal())
        return ops.where((a < 1) | (b < 1), float("nan"), m)

    @property
    def variance(self) -> Tensor:
        """``E[X^2] - E[X]^2``."""
        a, b = self.concentration1, self.concentration0
        return _kumaraswamy_moment(a, b, 2) - self.mean.pow(2)

    def entropy(self) -> Tensor:
        """``(1 - 1/b) + (1 - 1/a) H_b - log(a b)``, ``H_b`` the harmonic number of ``b``."""
        a, b = self.concentration1, self.concentration0
        harmonic = (b + 1).digamma() + _EULER_GAMMA
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic - (a * b).log()


class LogisticNormal(TransformedDistribution):
    """The logistic-normal distribution on the simplex: a normal vector of ``K - 1`` entries
    (``loc``, ``scale``) through :class:`~.transforms.StickBreakingTransform`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.LogisticNormal(tc.zeros(2), tc.ones(2))
    >>> s = d.sample((3,))
    >>> d.event_shape, s.shape, bool(((s.sum(-1) - 1).abs() < 1e-5).all())
    (tensorcore.Size([3]), tensorcore.Size([3, 3]), True)
    """

    arg_constraints: ClassVar[_C] = {"loc": constraints.real, "scale": constraints.positive}
    support: Any = constraints.simplex
    has_rsample = True
    base_dist: Any

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base: Distribution = Normal(loc, scale, validate_args=validate_args)
        if not base._batch_shape:
            base = base.expand((1,))
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    @property
    def loc(self) -> Tensor:
        """The base normal's mean."""
        return self.base_dist.base_dist.loc

    @property
    def scale(self) -> Tensor:
        """The base normal's standard deviation."""
        return self.base_dist.base_dist.scale


class InverseGamma(TransformedDistribution):
    """The distribution of ``1 / X`` for ``X ~ Gamma(concentration, rate)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.InverseGamma(tc.tensor(3.0), tc.tensor(2.0))
    >>> d.mean, d.mode, d.variance
    (tensor(1.), tensor(0.5000), tensor(1.))
    """

    arg_constraints: ClassVar[_C] = {
        "concentration": constraints.positive,
        "rate": constraints.positive,
    }
    support: Any = constraints.positive
    has_rsample = True
    base_dist: Gamma

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        base = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -ops.ones_like(base.rate)
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    @property
    def concentration(self) -> Tensor:
        """The base gamma's shape."""
        return self.base_dist.concentration

    @property
    def rate(self) -> Tensor:
        """The base gamma's rate (the scale of the inverse)."""
        return self.base_dist.rate

    @property
    def mean(self) -> Tensor:
        """``rate / (concentration - 1)``, infinite for ``concentration <= 1``."""
        c = self.concentration
        return ops.where(c > 1, self.rate / (c - 1).clamp(min=tiny(c.dtype)), math.inf)

    @property
    def mode(self) -> Tensor:
        """``rate / (concentration + 1)``."""
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Tensor:
        """``rate^2 / ((c - 1)^2 (c - 2))``, infinite for ``c <= 2``."""
        c = self.concentration
        v = self.rate.pow(2) / ((c - 1).pow(2) * (c - 2).clamp(min=tiny(c.dtype)))
        return ops.where(c > 2, v, math.inf)

    def entropy(self) -> Tensor:
        """``c + log(rate) + lgamma(c) - (1 + c) digamma(c)``."""
        c = self.concentration
        return c + self.rate.log() + c.lgamma() - (1 + c) * c.digamma()
