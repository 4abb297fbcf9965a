"""The distributions. Parameters broadcast against each other to the ``batch_shape``;
``sample(sample_shape)`` returns ``sample_shape + batch_shape + event_shape``."""

from __future__ import annotations

import math
from typing import Any, ClassVar

from .. import dtypes as dt
from .._tensor import Size, Tensor
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from ..ops.frontends import broadcast_shapes
from . import constraints
from .distribution import Distribution, _shape
from .exp_family import ExponentialFamily
from .utils import (
    _binary_logits,
    _binary_probs,
    _probs_or_logits,
    _tensor,
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
    softplus,
)

__all__ = ["Bernoulli", "Categorical", "Normal", "Uniform"]


class _LocScale(Distribution):
    """A location-scale family: ``loc`` real and ``scale`` positive, broadcast to the batch
    shape; ``mode`` is ``loc``."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support: Any = constraints.real
    has_rsample = True
    _expand_params: ClassVar[dict[str, int]] = {"loc": 0, "scale": 0}

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(tuple(self.loc.shape), validate_args=validate_args)

    @property
    def mode(self) -> Tensor:
        """``loc``."""
        return self.loc


class Normal(_LocScale, ExponentialFamily):
    """The normal distribution ``N(loc, scale**2)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Normal(tc.tensor([0.0, 1.0]), 2.0)
    >>> d.sample((3,)).shape
    tensorcore.Size([3, 2])
    >>> round(d.log_prob(tc.tensor([0.0, 1.0]))[0].item(), 4)
    -1.6121
    """

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, *params: Tensor) -> Tensor:
        x, y = params
        return -0.25 * x.pow(2) / y + 0.5 * (-math.pi / y).log()

    _mean_carrier_measure = 0

    @property
    def mean(self) -> Tensor:
        """``loc``."""
        return self.loc

    @property
    def stddev(self) -> Tensor:
        """``scale``."""
        return self.scale

    @property
    def variance(self) -> Tensor:
        """``scale ** 2``."""
        return self.scale * self.scale

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """``tc.normal(loc, scale)`` over the extended shape (PyTorch's draws)."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return ops.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``loc + eps * scale`` with ``eps`` standard normal."""
        shape = self._extended_shape(sample_shape)
        eps = ops.empty(shape, dtype=self.loc.dtype, device=self.loc.device).normal_()
        return self.loc + eps * self.scale

    def log_prob(self, value: Any) -> Tensor:
        """``-((x - loc)^2) / (2 scale^2) - log(scale) - log(sqrt(2 pi))``."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.loc)
        var = self.scale * self.scale
        return (
            -((value - self.loc) ** 2) / (2 * var)
            - self.scale.log()
            - math.log(math.sqrt(2 * math.pi))
        )

    def entropy(self) -> Tensor:
        """``0.5 + 0.5 log(2 pi) + log(scale)``."""
        return self.scale.log() + (0.5 + 0.5 * math.log(2 * math.pi))

    def cdf(self, value: Any) -> Tensor:
        """``0.5 (1 + erf((x - loc) / (scale sqrt 2)))``."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.loc)
        return 0.5 * (1 + ((value - self.loc) / (self.scale * math.sqrt(2))).erf())

    def icdf(self, value: Any) -> Tensor:
        """``loc + scale sqrt(2) erfinv(2 p - 1)``."""
        value = _tensor(value, self.loc)
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Uniform(0.0, 4.0)
    >>> d.mean, d.cdf(tc.tensor(1.0)), d.support
    (tensor(2.), tensor(0.2500), Interval(lower_bound=0.0, upper_bound=4.0))
    """

    has_rsample = True
    _expand_params: ClassVar[dict[str, int]] = {"low": 0, "high": 0}

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        super().__init__(tuple(self.low.shape), validate_args=validate_args)

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        """``low < high``: each bounded by the other."""
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        """``interval(low, high)``."""
        return constraints.interval(self.low, self.high)

    @property
    def mean(self) -> Tensor:
        """``(low + high) / 2``."""
        return (self.low + self.high) / 2

    @property
    def mode(self) -> Tensor:
        """Undefined (NaN), as in PyTorch."""
        return ops.full_like(self.low, float("nan"))

    @property
    def variance(self) -> Tensor:
        """``(high - low)^2 / 12``."""
        return (self.high - self.low) ** 2 / 12

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``low + u (high - low)`` with ``u`` uniform on ``[0, 1)``."""
        shape = self._extended_shape(sample_shape)
        u = ops.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Any) -> Tensor:
        """``-log(high - low)`` inside the support, ``-inf`` outside."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.low)
        inside = (value >= self.low) & (value < self.high)
        return ops.where(inside, -(self.high - self.low).log(), float("-inf"))

    def cdf(self, value: Any) -> Tensor:
        """``(value - low) / (high - low)``, clamped to ``[0, 1]``."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.low)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value: Any) -> Tensor:
        """``low + value (high - low)``."""
        return self.low + _tensor(value, self.low) * (self.high - self.low)

    def entropy(self) -> Tensor:
        """``log(high - low)``."""
        return (self.high - self.low).log()


class Bernoulli(ExponentialFamily):
    """Bernoulli trials with success probability ``probs`` (or ``logits``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Bernoulli(logits=tc.tensor([0.0]))
    >>> d.probs, d.enumerate_support()
    (tensor([0.5000]), tensor([[0.],
            [1.]]))
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    support: Any = constraints.boolean
    has_enumerate_support = True
    _expand_params: ClassVar[dict[str, int]] = {"probs": 0, "logits": 0}

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        name, value = _probs_or_logits(probs, logits)
        (param,) = broadcast_all(value)
        setattr(self, name, param)
        super().__init__(tuple(param.shape), validate_args=validate_args)

    probs = lazy_property(_binary_probs)
    logits = lazy_property(_binary_logits)

    @property
    def param_shape(self) -> Size:
        """The parameters' shape."""
        return Size(self._batch_shape)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.logits,)

    def _log_normalizer(self, *params: Tensor) -> Tensor:
        return softplus(params[0])

    _mean_carrier_measure = 0

    @property
    def mean(self) -> Tensor:
        """``probs``."""
        return self.probs

    @property
    def mode(self) -> Tensor:
        """1 where ``probs >= 0.5``, else 0 (NaN at exactly 0.5, as PyTorch's)."""
        m = (self.probs >= 0.5).to(self.probs.dtype)
        return ops.where(self.probs == 0.5, float("nan"), m)

    @property
    def variance(self) -> Tensor:
        """``probs (1 - probs)``."""
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """``tc.bernoulli(probs)`` over the extended shape (PyTorch's draws)."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return ops.bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Any) -> Tensor:
        """``-BCE(logits, value)``."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.logits)
        logits = self.logits
        # PyTorch's BCE form (1 - v) x + softplus(-x), softplus as logaddexp: smooth at 0,
        # where a sum with clamp(min=0) in it had the gradient 1 instead of sigmoid(0) = 0.5
        return -((1 - value) * logits + ops.logaddexp(-logits, 0.0))

    def entropy(self) -> Tensor:
        """``BCE(logits, probs)``."""
        logits = self.logits
        p = self.probs
        return (1 - p) * logits + ops.logaddexp(-logits, 0.0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """``[0, 1]`` along a new leading dim."""
        values = ops.arange(2, dtype=self.probs.dtype, device=self.probs.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1, *self._batch_shape)) if expand else values


class Categorical(Distribution):
    """A categorical distribution over the last dim of ``probs`` (or ``logits``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Categorical(probs=tc.tensor([0.1, 0.9]))
    >>> d.sample((4,)).shape
    tensorcore.Size([4])
    >>> round(d.entropy().item(), 4)
    0.3251
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "probs": constraints.simplex,
        "logits": constraints.real_vector,
    }
    has_enumerate_support = True
    _expand_params: ClassVar[dict[str, int]] = {"probs": 1, "logits": 1}

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        _probs_or_logits(probs, logits)
        if probs is not None:
            p = _tensor(probs)
            if p.ndim < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = p / p.sum(-1, keepdim=True)
            param = self.probs
        else:
            lg = _tensor(logits)
            if lg.ndim < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = lg - lg.logsumexp(-1, keepdim=True)
            param = self.logits
        self._param = param
        self._num_events = param.shape[-1]
        super().__init__(tuple(param.shape[:-1]), validate_args=validate_args)

    @lazy_property
    def probs(self) -> Tensor:
        """``softmax(logits)``."""
        return logits_to_probs(self.logits)

    @lazy_property
    def logits(self) -> Tensor:
        """``log`` of the clamped probabilities."""
        return probs_to_logits(self.probs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        """``integer_interval(0, num_events - 1)``."""
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def param_shape(self) -> Size:
        """``batch_shape + (num_events,)``."""
        return Size((*self._batch_shape, self._num_events))

    @property
    def mean(self) -> Tensor:
        """Undefined (NaN), as in PyTorch."""
        return ops.full(
            self._batch_shape, float("nan"), dtype=self.probs.dtype, device=self.probs.device
        )

    @property
    def mode(self) -> Tensor:
        """The most probable class."""
        return self.probs.argmax(-1)

    @property
    def variance(self) -> Tensor:
        """Undefined (NaN), as in PyTorch."""
        return self.mean

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Class indices, drawn as PyTorch draws them (``multinomial`` with replacement)."""
        ss = _shape(sample_shape)
        n = math.prod(ss) if ss else 1
        with no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            samples = ops.multinomial(probs_2d, n, True).t()
        return samples.reshape(ss + self._batch_shape)

    def log_prob(self, value: Any) -> Tensor:
        """``log p[value]``."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value).to(dt.int64)
        shape = tuple(broadcast_shapes(value.shape, self._batch_shape))
        logits = self.logits.expand(*shape, self._num_events)
        return logits.gather(-1, value.expand(shape).unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> Tensor:
        """``-sum p log p`` (0 log 0 = 0)."""
        return -(self.probs * ops.where(self.probs > 0, self.logits, 0.0)).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """``0 .. num_events - 1`` along a new leading dim."""
        values = ops.arange(self._num_events, dtype=dt.int64, device=self.probs.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1, *self._batch_shape)) if expand else values


class _OverCategorical(Distribution):
    """A distribution over vectors of ``num_events`` built on a :class:`Categorical` of the
    same ``probs``/``logits`` (``_categorical``), which validates them."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "probs": constraints.simplex,
        "logits": constraints.real_vector,
    }

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        batch = self._categorical._batch_shape
        events = (self._categorical._num_events,)
        super().__init__(batch, events, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """The same probabilities broadcast to ``batch_shape``."""
        new = super().expand(batch_shape)
        assert isinstance(new, _OverCategorical)
        new._categorical = self._categorical.expand(batch_shape)  # type: ignore[assignment]
        return new

    @property
    def param_shape(self) -> Size:
        """``batch_shape + (num_events,)``."""
        return self._categorical.param_shape

    @property
    def probs(self) -> Tensor:
        """The normalised probabilities."""
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        """The normalised log probabilities."""
        return self._categorical.logits
