"""The distributions. Parameters broadcast against each other to the ``batch_shape``;
``sample(sample_shape)`` returns ``sample_shape + batch_shape + event_shape``."""

from __future__ import annotations

import math
from typing import Any

from .. import dtypes as dt
from .._tensor import Size, Tensor
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from ..ops.factories import as_tensor
from ..ops.frontends import broadcast_shapes

__all__ = ["Bernoulli", "Categorical", "Distribution", "Normal", "Uniform"]


def _tensor(v: Any, like: Tensor | None = None) -> Tensor:
    if isinstance(v, Tensor):
        return v
    if like is not None:
        return as_tensor(v, dtype=like.dtype, device=like.device)
    return as_tensor(v, dtype=dt.get_default_dtype())


def _shape(sample_shape: Any) -> tuple[int, ...]:
    return tuple(sample_shape) if not isinstance(sample_shape, int) else (sample_shape,)


class Distribution:
    """Base class: ``batch_shape``, ``event_shape``, ``sample``, ``log_prob``..."""

    has_rsample = False

    def __init__(
        self, batch_shape: tuple[int, ...] = (), event_shape: tuple[int, ...] = ()
    ) -> None:
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)

    @property
    def batch_shape(self) -> Size:
        """The shape of the batch of distributions."""
        return Size(self._batch_shape)

    @property
    def event_shape(self) -> Size:
        """The shape of one sample of one distribution."""
        return Size(self._event_shape)

    def _extended_shape(self, sample_shape: Any = ()) -> tuple[int, ...]:
        return _shape(sample_shape) + self._batch_shape + self._event_shape

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Samples without gradients."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """Reparameterised samples (gradients flow to the parameters)."""
        raise NotImplementedError(f"{type(self).__name__} has no rsample")

    def log_prob(self, value: Tensor) -> Tensor:
        """The log density (or mass) of ``value``."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy of each distribution of the batch."""
        raise NotImplementedError

    def __repr__(self) -> str:
        params = ", ".join(
            f"{k}: {v.shape if isinstance(v, Tensor) and v.numel() > 1 else v}"
            for k, v in self._params().items()
        )
        return f"{type(self).__name__}({params})"

    def _params(self) -> dict[str, Any]:
        return {}


class Normal(Distribution):
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

    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        loc_t = _tensor(loc, scale if isinstance(scale, Tensor) else None)
        scale_t = _tensor(scale, loc_t)
        shape = tuple(broadcast_shapes(loc_t.shape, scale_t.shape))
        if validate_args is not False and bool((scale_t <= 0).any()):
            raise ValueError("Expected parameter scale to be positive (Normal)")
        self.loc, self.scale = loc_t.expand(shape), scale_t.expand(shape)
        super().__init__(shape)

    def _params(self) -> dict[str, Any]:
        return {"loc": self.loc, "scale": self.scale}

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

    def log_prob(self, value: Tensor) -> Tensor:
        """``-((x - loc)^2) / (2 scale^2) - log(scale) - log(sqrt(2 pi))``."""
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

    def cdf(self, value: Tensor) -> Tensor:
        """``0.5 (1 + erf((x - loc) / (scale sqrt 2)))``."""
        value = _tensor(value, self.loc)
        return 0.5 * (1 + ((value - self.loc) / (self.scale * math.sqrt(2))).erf())


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``."""

    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        low_t = _tensor(low, high if isinstance(high, Tensor) else None)
        high_t = _tensor(high, low_t)
        shape = tuple(broadcast_shapes(low_t.shape, high_t.shape))
        if validate_args is not False and bool((low_t >= high_t).any()):
            raise ValueError("Expected parameter low to be less than high (Uniform)")
        self.low, self.high = low_t.expand(shape), high_t.expand(shape)
        super().__init__(shape)

    def _params(self) -> dict[str, Any]:
        return {"low": self.low, "high": self.high}

    @property
    def mean(self) -> Tensor:
        """``(low + high) / 2``."""
        return (self.low + self.high) / 2

    @property
    def variance(self) -> Tensor:
        """``(high - low)^2 / 12``."""
        return (self.high - self.low) ** 2 / 12

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``low + u (high - low)`` with ``u`` uniform on ``[0, 1)``."""
        shape = self._extended_shape(sample_shape)
        u = ops.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Tensor) -> Tensor:
        """``-log(high - low)`` inside the support, ``-inf`` outside."""
        value = _tensor(value, self.low)
        inside = (value >= self.low) & (value < self.high)
        return ops.where(inside, -(self.high - self.low).log(), float("-inf"))

    def entropy(self) -> Tensor:
        """``log(high - low)``."""
        return (self.high - self.low).log()


class Bernoulli(Distribution):
    """Bernoulli trials with success probability ``probs`` (or ``logits``)."""

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.probs = _tensor(probs)
            self.logits = (self.probs / (1 - self.probs)).log()
        else:
            self.logits = _tensor(logits)
            self.probs = self.logits.sigmoid()
        super().__init__(tuple(self.probs.shape))

    def _params(self) -> dict[str, Any]:
        return {"probs": self.probs}

    @property
    def mean(self) -> Tensor:
        """``probs``."""
        return self.probs

    @property
    def variance(self) -> Tensor:
        """``probs (1 - probs)``."""
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """``tc.bernoulli(probs)`` over the extended shape (PyTorch's draws)."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return ops.bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        """``-BCE(logits, value)``."""
        value = _tensor(value, self.probs)
        logits = self.logits
        return -(logits.clamp(min=0) - logits * value + (-logits.abs()).exp().log1p())

    def entropy(self) -> Tensor:
        """``BCE(logits, probs)``."""
        return -self.log_prob(self.probs)


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

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            p = _tensor(probs)
            if p.ndim < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = p / p.sum(-1, keepdim=True)
            self.logits = self.probs.log()
        else:
            lg = _tensor(logits)
            if lg.ndim < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = lg - lg.logsumexp(-1, keepdim=True)
            self.probs = self.logits.exp()
        self._num_events = self.probs.shape[-1]
        super().__init__(tuple(self.probs.shape[:-1]))

    def _params(self) -> dict[str, Any]:
        return {"probs": self.probs}

    @property
    def mean(self) -> Tensor:
        """Undefined (NaN), as in PyTorch."""
        return ops.full(self._batch_shape, float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Class indices, drawn as PyTorch draws them (``multinomial`` with replacement)."""
        ss = _shape(sample_shape)
        n = math.prod(ss) if ss else 1
        with no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            samples = ops.multinomial(probs_2d, n, True).t()
        return samples.reshape(ss + self._batch_shape)

    def log_prob(self, value: Tensor) -> Tensor:
        """``log p[value]``."""
        value = _tensor(value).to(dt.int64)
        shape = tuple(broadcast_shapes(value.shape, self._batch_shape))
        logits = self.logits.expand(*shape, self._num_events)
        return logits.gather(-1, value.expand(shape).unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> Tensor:
        """``-sum p log p`` (0 log 0 = 0)."""
        return -(self.probs * ops.where(self.probs > 0, self.logits, 0.0)).sum(-1)
