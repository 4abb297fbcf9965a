"""The distributions. Parameters broadcast against each other to the ``batch_shape``;
``sample(sample_shape)`` returns ``sample_shape + batch_shape + event_shape``."""

from __future__ import annotations

import math
from typing import Any, ClassVar

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


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """The values as tensors broadcast to one shape; numbers take the dtype and device of the
    first tensor among them (the default dtype when there is none), as PyTorch's helper."""
    like = next((v for v in values if isinstance(v, Tensor)), None)
    ts = [_tensor(v, like) for v in values]
    shape = tuple(broadcast_shapes(*(t.shape for t in ts)))
    return tuple(t.expand(shape) for t in ts)


def _shape(sample_shape: Any) -> tuple[int, ...]:
    return tuple(sample_shape) if not isinstance(sample_shape, int) else (sample_shape,)


class Distribution:
    """Base class: ``batch_shape``, ``event_shape``, ``sample``, ``log_prob``...

    ``validate_args`` (default True, as in PyTorch; ``set_default_validate_args`` changes it)
    checks the parameters at construction and the value passed to ``log_prob``, raising
    ``ValueError`` with PyTorch's wording.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Normal(tc.zeros(3), 1.0).expand((2, 3))
    >>> d.batch_shape, d.event_shape
    (tensorcore.Size([2, 3]), tensorcore.Size([]))
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_default = True
    #: The support's name in PyTorch's constraint wording, for ``log_prob``'s value check.
    _support = "Real()"
    #: Parameters that ``expand`` broadcasts: name -> number of trailing (event) dims.
    _expand_params: ClassVar[dict[str, int]] = {}

    def __init__(
        self,
        batch_shape: tuple[int, ...] = (),
        event_shape: tuple[int, ...] = (),
        validate_args: bool | None = None,
    ) -> None:
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        self._validate_args = self._validate_default if validate_args is None else validate_args

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Set whether distributions validate their arguments by default (True, as PyTorch's
        default outside ``python -O``)."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_default = value

    @property
    def batch_shape(self) -> Size:
        """The shape of the batch of distributions."""
        return Size(self._batch_shape)

    @property
    def event_shape(self) -> Size:
        """The shape of one sample of one distribution."""
        return Size(self._event_shape)

    @property
    def mean(self) -> Tensor:
        """The mean of each distribution of the batch."""
        raise NotImplementedError

    @property
    def variance(self) -> Tensor:
        """The variance of each distribution of the batch."""
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        """The standard deviation: ``variance.sqrt()``."""
        return self.variance.sqrt()

    def _extended_shape(self, sample_shape: Any = ()) -> tuple[int, ...]:
        return _shape(sample_shape) + self._batch_shape + self._event_shape

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """A distribution of the same parameters broadcast to ``batch_shape`` (views, no
        copies), as PyTorch's ``expand``."""
        shape = _shape(batch_shape)
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        for name, event_dims in self._expand_params.items():
            v = self.__dict__.get(name)
            if isinstance(v, Tensor):
                tail = tuple(v.shape[v.ndim - event_dims :]) if event_dims else ()
                new.__dict__[name] = v.expand(shape + tail)
        new._batch_shape = shape
        return new

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Samples without gradients."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """Reparameterised samples (gradients flow to the parameters)."""
        raise NotImplementedError(f"{type(self).__name__} has no rsample")

    def sample_n(self, n: int) -> Tensor:
        """``sample((n,))``."""
        return self.sample((n,))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log density (or mass) of ``value``."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy of each distribution of the batch."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """``exp(entropy())``."""
        return self.entropy().exp()

    def __repr__(self) -> str:
        params = ", ".join(
            f"{k}: {v.shape if isinstance(v, Tensor) and v.numel() > 1 else v}"
            for k, v in self._params().items()
        )
        return f"{type(self).__name__}({params})"

    def _params(self) -> dict[str, Any]:
        return {}

    def _check_param(self, name: str, value: Tensor, ok: Any, constraint: str) -> None:
        """Raise PyTorch's ``ValueError`` unless ``ok`` (a bool or bool tensor) holds
        everywhere; a no-op when the distribution does not validate."""
        if self._validate_args and not bool(ok if isinstance(ok, bool) else ok.all()):
            raise ValueError(
                f"Expected parameter {name} (Tensor of shape {tuple(value.shape)}) of "
                f"distribution {self!r} to satisfy the constraint {constraint}, but found "
                f"invalid values:\n{value}"
            )

    def _validate_sample(self, value: Tensor, ok: Any) -> None:
        """Raise PyTorch's ``ValueError`` unless ``value`` lies in the support (``ok``)."""
        if self._validate_args and not bool(ok if isinstance(ok, bool) else ok.all()):
            raise ValueError(
                f"Expected value argument (Tensor of shape {tuple(value.shape)}) to be within "
                f"the support ({self._support}) of the distribution {self!r}, but found "
                f"invalid values:\n{value}"
            )


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
    _expand_params: ClassVar[dict[str, int]] = {"loc": 0, "scale": 0}

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        loc_t = _tensor(loc, scale if isinstance(scale, Tensor) else None)
        scale_t = _tensor(scale, loc_t)
        shape = tuple(broadcast_shapes(loc_t.shape, scale_t.shape))
        if validate_args is not False and bool((scale_t <= 0).any()):
            raise ValueError("Expected parameter scale to be positive (Normal)")
        self.loc, self.scale = loc_t.expand(shape), scale_t.expand(shape)
        super().__init__(shape, validate_args=validate_args)

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
    _support = "Interval(lower_bound=low, upper_bound=high)"
    _expand_params: ClassVar[dict[str, int]] = {"low": 0, "high": 0}

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        low_t = _tensor(low, high if isinstance(high, Tensor) else None)
        high_t = _tensor(high, low_t)
        shape = tuple(broadcast_shapes(low_t.shape, high_t.shape))
        if validate_args is not False and bool((low_t >= high_t).any()):
            raise ValueError("Expected parameter low to be less than high (Uniform)")
        self.low, self.high = low_t.expand(shape), high_t.expand(shape)
        super().__init__(shape, validate_args=validate_args)

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

    _support = "Boolean()"
    _expand_params: ClassVar[dict[str, int]] = {"probs": 0, "logits": 0}

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
        super().__init__(tuple(self.probs.shape), validate_args=validate_args)

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

    _support = "IntegerInterval(lower_bound=0, upper_bound=num_events - 1)"
    _expand_params: ClassVar[dict[str, int]] = {"probs": 1, "logits": 1}

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
        super().__init__(tuple(self.probs.shape[:-1]), validate_args=validate_args)

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
