"""Continuous distributions on the line and the simplex: ``Exponential``, ``Laplace``,
``Gamma``, ``Beta``, ``Dirichlet`` and ``GeneralizedPareto``, as ``torch.distributions``' (same
parameters, formulas and constraint messages; Gamma, Beta and Dirichlet draws are not
PyTorch's draws, see ``_samplers``)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

from .._finfo import finfo
from .._igamma import gammainc
from .._tensor import Tensor
from ..ops import functions as ops
from . import constraints
from ._samplers import dirichlet_rsample, sample_dirichlet, standard_gamma
from .distribution import Distribution
from .distributions import _LocScale
from .exp_family import ExponentialFamily
from .utils import _tensor, broadcast_all, eps

__all__ = ["Beta", "Dirichlet", "Exponential", "Gamma", "GeneralizedPareto", "Laplace"]


class Exponential(ExponentialFamily):
    """The exponential distribution of rate ``rate`` (density ``rate * exp(-rate * x)``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Exponential(tc.tensor([1.0, 2.0]))
    >>> d.mean, d.sample((5,)).shape
    (tensor([1.0000, 0.5000]), tensorcore.Size([5, 2]))
    >>> round(d.log_prob(tc.tensor([1.0, 1.0]))[1].item(), 4)
    -1.3069
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"rate": constraints.positive}
    support: Any = constraints.nonnegative
    has_rsample = True
    _expand_params: ClassVar[dict[str, int]] = {"rate": 0}

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(tuple(self.rate.shape), validate_args=validate_args)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (-self.rate,)

    def _log_normalizer(self, *params: Tensor) -> Tensor:
        return -(-params[0]).log()

    _mean_carrier_measure = 0

    @property
    def mean(self) -> Tensor:
        """``1 / rate``."""
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        """0."""
        return ops.zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        """``1 / rate``."""
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        """``rate ** -2``."""
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """A standard exponential draw (``exponential_``, so that a seeded program gets
        PyTorch's samples) divided by ``rate``."""
        shape = self._extended_shape(sample_shape)
        e = ops.empty(shape, dtype=self.rate.dtype, device=self.rate.device).exponential_()
        return e / self.rate

    def log_prob(self, value: Any) -> Tensor:
        """``log(rate) - rate * value``."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.rate)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Any) -> Tensor:
        """``1 - exp(-rate * value)``."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.rate)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value: Any) -> Tensor:
        """``-log1p(-value) / rate``."""
        return -(-_tensor(value, self.rate)).log1p() / self.rate

    def entropy(self) -> Tensor:
        """``1 - log(rate)``."""
        return 1.0 - self.rate.log()


class Laplace(_LocScale):
    """The Laplace distribution of location ``loc`` and scale ``scale``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Laplace(0.0, 2.0)
    >>> d.variance, d.entropy()
    (tensor(8.), tensor(2.3863))
    """

    @property
    def mean(self) -> Tensor:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> Tensor:
        """``2 * scale ** 2``."""
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        """``sqrt(2) * scale``."""
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``loc - scale * sign(u) * log1p(-|u|)`` with ``u`` uniform on ``(-1, 1)``."""
        shape = self._extended_shape(sample_shape)
        d = self.loc.dtype
        u = ops.rand(shape, dtype=d, device=self.loc.device) * (2 - eps(d)) + (eps(d) - 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value: Any) -> Tensor:
        """``-log(2 * scale) - |value - loc| / scale``."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.loc)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: Any) -> Tensor:
        """``0.5 - 0.5 * sign(z) * expm1(-|z|)`` with ``z = (value - loc) / scale``."""
        if self._validate_args:
            self._validate_sample(value)
        z = (_tensor(value, self.loc) - self.loc) / self.scale
        return 0.5 - 0.5 * z.sign() * (-z.abs()).expm1()

    def entropy(self) -> Tensor:
        """``1 + log(2 * scale)``."""
        return 1 + (2 * self.scale).log()


class Gamma(ExponentialFamily):
    """The gamma distribution of shape ``concentration`` and rate ``rate``.

    ``rsample`` is differentiable in both parameters (the implicit reparameterisation
    gradient for ``concentration``, as PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Gamma(tc.tensor([2.0]), tc.tensor([3.0]))
    >>> d.mean, d.variance
    (tensor([0.6667]), tensor([0.2222]))
    >>> round(d.log_prob(tc.tensor([1.0]))[0].item(), 4)
    -0.8028
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "concentration": constraints.positive,
        "rate": constraints.positive,
    }
    support: Any = constraints.nonnegative
    has_rsample = True
    _expand_params: ClassVar[dict[str, int]] = {"concentration": 0, "rate": 0}

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(tuple(self.rate.shape), validate_args=validate_args)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, *params: Tensor) -> Tensor:
        x, y = params
        return (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()

    _mean_carrier_measure = 0

    @property
    def mean(self) -> Tensor:
        """``concentration / rate``."""
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        """``(concentration - 1) / rate``, clamped at 0."""
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        """``concentration / rate ** 2``."""
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``standard_gamma(concentration) / rate`` over the extended shape."""
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=finfo(value.dtype).tiny)  # (as PyTorch: not recorded)
        return value

    def log_prob(self, value: Any) -> Tensor:
        """``xlogy(c, rate) + xlogy(c - 1, value) - rate * value - lgamma(c)``."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.rate)
        c = self.concentration
        return ops.xlogy(c, self.rate) + ops.xlogy(c - 1, value) - self.rate * value - c.lgamma()

    def cdf(self, value: Any) -> Tensor:
        """``gammainc(concentration, rate * value)`` (the regularized incomplete gamma)."""
        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * _tensor(value, self.rate))

    def entropy(self) -> Tensor:
        """``c - log(rate) + lgamma(c) + (1 - c) * digamma(c)``."""
        c = self.concentration
        return c - self.rate.log() + c.lgamma() + (1.0 - c) * c.digamma()


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution on the simplex of the last dim of ``concentration``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Dirichlet(tc.tensor([1.0, 2.0, 3.0]))
    >>> d.event_shape, d.mean
    (tensorcore.Size([3]), tensor([0.1667, 0.3333, 0.5000]))
    >>> round(d.log_prob(tc.tensor([0.2, 0.3, 0.5])).item(), 4)
    1.5041
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "concentration": constraints.independent(constraints.positive, 1)
    }
    support: Any = constraints.simplex
    has_rsample = True
    _expand_params: ClassVar[dict[str, int]] = {"concentration": 1}

    def __init__(self, concentration: Any, validate_args: bool | None = None) -> None:
        c = _tensor(concentration)
        if c.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = c
        super().__init__(tuple(c.shape[:-1]), tuple(c.shape[-1:]), validate_args=validate_args)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.concentration,)

    def _log_normalizer(self, *params: Tensor) -> Tensor:
        x = params[0]
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()

    @property
    def mean(self) -> Tensor:
        """``concentration / concentration.sum(-1)``."""
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> Tensor:
        """``(c - 1) / (c.sum(-1) - k)`` (clamped at 0), a vertex where every ``c < 1``."""
        c = self.concentration
        m = (c - 1).clamp(min=0)
        m = m / m.sum(-1, keepdim=True)
        vertex = (ops.arange(c.shape[-1], device=c.device) == c.argmax(-1, keepdim=True)).to(
            c.dtype
        )
        return ops.where((c < 1).all(-1, keepdim=True), vertex, m)

    @property
    def variance(self) -> Tensor:
        """``c (c0 - c) / (c0 ** 2 (c0 + 1))`` with ``c0 = c.sum(-1)``."""
        c = self.concentration
        c0 = c.sum(-1, keepdim=True)
        return c * (c0 - c) / (c0.pow(2) * (c0 + 1))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """Normalised gamma draws, differentiable in ``concentration``: the draws in
        float64 and the result at least the dtype's smallest normal number and below 1, as
        PyTorch's ``_sample_dirichlet`` makes them (on the CPU, PyTorch's numbers for a
        seed). The gradient is PyTorch's: each coordinate's implicit reparameterisation
        through its Beta marginal (:func:`~tensorcore.distributions._samplers.dirichlet_grad`),
        not the gamma draws' through the normalisation (another estimator of the same mean)."""
        shape = self._extended_shape(sample_shape)
        c = self.concentration.expand(shape)
        return dirichlet_rsample(sample_dirichlet(c), c)

    def log_prob(self, value: Any) -> Tensor:
        """``sum(xlogy(c - 1, value)) + lgamma(sum c) - sum lgamma(c)``."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.concentration)
        c = self.concentration
        return ops.xlogy(c - 1.0, value).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1)

    def entropy(self) -> Tensor:
        """``sum lgamma(c) - lgamma(c0) - (k - c0) digamma(c0) - sum (c - 1) digamma(c)``."""
        c = self.concentration
        k = c.shape[-1]
        c0 = c.sum(-1)
        return (
            c.lgamma().sum(-1)
            - c0.lgamma()
            - (k - c0) * c0.digamma()
            - ((c - 1.0) * c.digamma()).sum(-1)
        )


class Beta(ExponentialFamily):
    """The beta distribution on ``[0, 1]`` of ``concentration1`` (alpha) and
    ``concentration0`` (beta), a two-component :class:`Dirichlet` as in PyTorch.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Beta(2.0, 3.0)
    >>> d.mean, round(d.log_prob(tc.tensor(0.5)).item(), 4)
    (tensor(0.4000), 0.4055)
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support: Any = constraints.unit_interval
    has_rsample = True

    def __init__(
        self, concentration1: Any, concentration0: Any, validate_args: bool | None = None
    ) -> None:
        c1, c0 = broadcast_all(concentration1, concentration0)
        self._dirichlet = Dirichlet(ops.stack([c1, c0], -1), validate_args=validate_args)
        super().__init__(tuple(c1.shape), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Beta:
        """The same parameters broadcast to ``batch_shape``."""
        new = super().expand(batch_shape)
        assert isinstance(new, Beta)
        new._dirichlet = self._dirichlet.expand(batch_shape)  # type: ignore[assignment]
        return new

    @property
    def concentration1(self) -> Tensor:
        """Alpha, the exponent of ``x``."""
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Tensor:
        """Beta, the exponent of ``1 - x``."""
        return self._dirichlet.concentration[..., 1]

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, *params: Tensor) -> Tensor:
        x, y = params
        return x.lgamma() + y.lgamma() - (x + y).lgamma()

    @property
    def mean(self) -> Tensor:
        """``c1 / (c1 + c0)``."""
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        """The first component of the Dirichlet's mode."""
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        """``c1 c0 / ((c1 + c0) ** 2 (c1 + c0 + 1))``."""
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """The first component of a Dirichlet draw."""
        return self._dirichlet.rsample(sample_shape)[..., 0]

    def log_prob(self, value: Any) -> Tensor:
        """The Dirichlet's log density of ``(value, 1 - value)``."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.concentration1)
        return self._dirichlet.log_prob(ops.stack([value, 1.0 - value], -1))

    def entropy(self) -> Tensor:
        """The Dirichlet's entropy."""
        return self._dirichlet.entropy()


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution of location ``loc``, scale ``scale`` and shape
    ``concentration`` (``xi``): survival ``(1 + xi z)^(-1 / xi)`` with
    ``z = (x - loc) / scale``, read as ``exp(-z)`` where ``xi`` is (close to) 0. Its support
    is ``[loc, inf)`` for ``xi >= 0`` and ``[loc, loc - scale / xi]`` for ``xi < 0``;
    ``xi = 0`` is the exponential and ``xi = -1`` the uniform distribution.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.GeneralizedPareto(0.0, 2.0, tc.tensor([0.0, 0.5, -1.0]))
    >>> d.mean, d.cdf(tc.tensor(1.0))
    (tensor([2., 4., 1.]), tensor([0.3935, 0.3600, 0.5000]))
    >>> d.support
    Interval(lower_bound=tensor([0., 0., 0.]), upper_bound=tensor([inf, inf, 2.]))
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True
    _expand_params: ClassVar[dict[str, int]] = {"loc": 0, "scale": 0, "concentration": 0}

    def __init__(
        self, loc: Any, scale: Any, concentration: Any, validate_args: bool | None = None
    ) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(tuple(self.loc.shape), validate_args=validate_args)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        """``[loc, loc - scale / concentration]`` where ``concentration < 0``, else
        ``[loc, inf)``."""
        upper = ops.where(
            self.concentration < 0, self.loc - self.scale / self.concentration, math.inf
        )
        return constraints.interval(self.loc, upper)

    def _safe_concentration(self) -> tuple[Tensor, Tensor]:
        """Whether ``concentration`` is close to 0 (``isclose``'s default tolerances), and
        ``concentration`` with 1 there, so that the ``xi != 0`` branch stays finite."""
        xi = self.concentration
        zero = ops.isclose(xi, ops.zeros_like(xi))
        return zero, ops.where(zero, ops.ones_like(xi), xi)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``icdf(u)`` with ``u`` uniform on ``[0, 1)``."""
        shape = self._extended_shape(sample_shape)
        return self.icdf(ops.rand(shape, dtype=self.loc.dtype, device=self.loc.device))

    def log_prob(self, value: Any) -> Tensor:
        """``-log(scale) - (1 / xi + 1) log1p(xi z)`` (``-log(scale) - z`` for ``xi = 0``)."""
        if self._validate_args:
            self._validate_sample(value)
        z = (_tensor(value, self.loc) - self.loc) / self.scale
        zero, xi = self._safe_concentration()
        power = 1 / xi + 1
        # power == 0 is the uniform case: 0 * log1p(-z) at z = 1 would be nan.
        nonzero = ops.where(power == 0, power, power * (xi * z).log1p())
        return -self.scale.log() - ops.where(zero, z, nonzero)

    def log_survival_function(self, value: Any) -> Tensor:
        """``log P(X > value) = -log1p(xi z) / xi`` (``-z`` for ``xi = 0``)."""
        if self._validate_args:
            self._validate_sample(value)
        z = (_tensor(value, self.loc) - self.loc) / self.scale
        zero, xi = self._safe_concentration()
        return ops.where(zero, -z, -(xi * z).log1p() / xi)

    def log_cdf(self, value: Any) -> Tensor:
        """``log1p(-exp(log_survival_function(value)))``."""
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value: Any) -> Tensor:
        """``1 - (1 + xi z)^(-1 / xi)``."""
        return self.log_cdf(value).exp()

    def icdf(self, value: Any) -> Tensor:
        """``loc + scale expm1(-xi log1p(-value)) / xi`` (``loc - scale log1p(-value)`` for
        ``xi = 0``)."""
        log_u = (-_tensor(value, self.loc)).log1p()
        zero, xi = self._safe_concentration()
        nonzero = self.loc + self.scale / xi * (-xi * log_u).expm1()
        return ops.where(zero, self.loc - self.scale * log_u, nonzero)

    @property
    def mean(self) -> Tensor:
        """``loc + scale / (1 - xi)`` for ``xi < 1``, NaN otherwise."""
        valid = self.concentration < 1
        xi = ops.where(valid, self.concentration, 0.5)
        return ops.where(valid, self.loc + self.scale / (1 - xi), math.nan)

    @property
    def mode(self) -> Tensor:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> Tensor:
        """``scale^2 / ((1 - xi)^2 (1 - 2 xi))`` for ``xi < 1/2``, NaN otherwise."""
        valid = self.concentration < 0.5
        xi = ops.where(valid, self.concentration, 0.25)
        return ops.where(valid, self.scale.pow(2) / ((1 - xi).pow(2) * (1 - 2 * xi)), math.nan)

    def entropy(self) -> Tensor:
        """``log(scale) + xi + 1``."""
        return (self.scale.log() + self.concentration + 1).expand(self._batch_shape)
