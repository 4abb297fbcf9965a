"""Counting and one-hot distributions: ``Poisson``, ``Binomial``, ``Geometric``,
``NegativeBinomial``, ``Multinomial``, ``OneHotCategorical`` and
``OneHotCategoricalStraightThrough``, as ``torch.distributions``' (Poisson, binomial and
negative binomial draws are not PyTorch's, see ``_samplers``)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from . import constraints
from ._samplers import binomial, poisson
from .continuous import Gamma
from .distribution import Distribution
from .distributions import _OverCategorical
from .exp_family import ExponentialFamily
from .utils import (
    _binary_logits,
    _binary_probs,
    _probs_or_logits,
    _tensor,
    broadcast_all,
    lazy_property,
    softplus,
    tiny,
)

__all__ = [
    "Binomial",
    "Geometric",
    "Multinomial",
    "NegativeBinomial",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Poisson",
]


class Poisson(ExponentialFamily):
    """The Poisson distribution of rate ``rate``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Poisson(tc.tensor([2.0]))
    >>> d.sample((4,)).shape, round(d.log_prob(tc.tensor([3.0]))[0].item(), 4)
    (tensorcore.Size([4, 1]), -1.7123)
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"rate": constraints.nonnegative}
    support: Any = constraints.nonnegative_integer
    _expand_params: ClassVar[dict[str, int]] = {"rate": 0}

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(tuple(self.rate.shape), validate_args=validate_args)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.rate.log(),)

    def _log_normalizer(self, *params: Tensor) -> Tensor:
        return params[0].exp()

    @property
    def mean(self) -> Tensor:
        """``rate``."""
        return self.rate

    @property
    def mode(self) -> Tensor:
        """``floor(rate)``."""
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        """``rate``."""
        return self.rate

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Counts, as floats of the rate's dtype (as PyTorch's)."""
        shape = self._extended_shape(sample_shape)
        return poisson(self.rate.expand(shape))

    def log_prob(self, value: Any) -> Tensor:
        """``xlogy(value, rate) - rate - lgamma(value + 1)``."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.rate)
        return ops.xlogy(value, self.rate) - self.rate - (value + 1).lgamma()


class _Trials(Distribution):
    """Counts over ``total_count`` trials of success probability ``probs`` (or ``logits``,
    the other computed lazily), all broadcast to the batch shape."""

    _expand_params: ClassVar[dict[str, int]] = {"total_count": 0, "probs": 0, "logits": 0}
    probs = lazy_property(_binary_probs)
    logits = lazy_property(_binary_logits)

    def __init__(
        self,
        total_count: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        name, value = _probs_or_logits(probs, logits)
        total, param = broadcast_all(total_count, value)
        self.total_count = total.type_as(param)
        setattr(self, name, param)
        super().__init__(tuple(param.shape), validate_args=validate_args)


class Binomial(_Trials):
    """The number of successes in ``total_count`` Bernoulli trials of probability ``probs``
    (or ``logits``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Binomial(10, tc.tensor([0.5]))
    >>> d.mean, d.variance
    (tensor([5.]), tensor([2.5000]))
    >>> round(d.log_prob(tc.tensor([5.0]))[0].item(), 4)
    -1.402
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(
        self,
        total_count: Any = 1,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        super().__init__(total_count, probs, logits, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        """``integer_interval(0, total_count)``."""
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        """``total_count * probs``."""
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        """``floor((total_count + 1) * probs)``, at most ``total_count``."""
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        """``total_count * probs * (1 - probs)``."""
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Counts, as floats of the probabilities' dtype (as PyTorch's)."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value: Any) -> Tensor:
        """``log C(n, k) + k * logits - n * softplus(logits)``, stable in the logits."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.logits)
        n = self.total_count
        lg = self.logits
        # (softplus as logaddexp(lg, 0): its gradient at 0 is 0.5, as PyTorch's)
        normalize = n * ops.logaddexp(lg, 0.0) - (n + 1).lgamma()
        return value * lg - (value + 1).lgamma() - (n - value + 1).lgamma() - normalize

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """``0 .. total_count`` along a new leading dim (one ``total_count`` for the batch)."""
        total = int(self.total_count.max().item())
        if not bool((self.total_count == total).all()):
            raise NotImplementedError(
                "Inhomogeneous total count not supported by `enumerate_support`."
            )
        values = ops.arange(1 + total, dtype=self.probs.dtype, device=self.probs.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1, *self._batch_shape)) if expand else values

    def entropy(self) -> Tensor:
        """``-sum_k p(k) log p(k)`` over the support (one ``total_count`` for the batch)."""
        total = int(self.total_count.max().item())
        if not bool((self.total_count == total).all()):
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        lp = self.log_prob(self.enumerate_support(False))
        return -(lp.exp() * lp).sum(0)


class OneHotCategorical(_OverCategorical):
    """A :class:`Categorical` whose samples are one-hot vectors over the last dim.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.OneHotCategorical(tc.tensor([0.2, 0.8]))
    >>> d.sample().shape, d.event_shape
    (tensorcore.Size([2]), tensorcore.Size([2]))
    >>> round(d.log_prob(tc.tensor([0.0, 1.0])).item(), 4)
    -0.2231
    """

    support: Any = constraints.one_hot
    has_enumerate_support = True

    @property
    def mean(self) -> Tensor:
        """``probs``."""
        return self.probs

    @property
    def mode(self) -> Tensor:
        """The one-hot vector of the most probable class."""
        k = self._event_shape[0]
        idx = self.probs.argmax(-1, keepdim=True)
        return (ops.arange(k, device=idx.device) == idx).to(self.probs.dtype)

    @property
    def variance(self) -> Tensor:
        """``probs * (1 - probs)``."""
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """One-hot vectors of the categorical's draws (PyTorch's draws)."""
        idx = self._categorical.sample(sample_shape)
        k = self._event_shape[0]
        return (ops.arange(k, device=idx.device) == idx.unsqueeze(-1)).to(self.probs.dtype)

    def log_prob(self, value: Any) -> Tensor:
        """The categorical's log probability of the index of the one."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.probs)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self) -> Tensor:
        """The categorical's entropy."""
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """The ``k`` one-hot vectors along a new leading dim."""
        k = self._event_shape[0]
        values = ops.eye(k, dtype=self.probs.dtype, device=self.probs.device)
        values = values.view((k,) + (1,) * len(self._batch_shape) + (k,))
        return values.expand((k, *self._batch_shape, k)) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A :class:`OneHotCategorical` whose ``rsample`` passes the straight-through gradient
    (Bengio et al., 2013): the one-hot sample forward, the gradient of ``probs`` backward.

    Examples
    --------
    >>> import tensorcore as tc
    >>> p = tc.tensor([0.2, 0.8], requires_grad=True)
    >>> s = tc.distributions.OneHotCategoricalStraightThrough(p).rsample()
    >>> (s * tc.tensor([1.0, 2.0])).sum().backward(); p.grad.shape
    tensorcore.Size([2])
    """

    has_rsample = True

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``sample + probs - probs.detach()``."""
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())


class Geometric(Distribution):
    """The number of failures before the first success in Bernoulli trials of probability
    ``probs`` (or ``logits``), on ``0, 1, 2, ...``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Geometric(tc.tensor([0.25]))
    >>> d.mean, d.variance, round(d.log_prob(tc.tensor([2.0])).item(), 4)
    (tensor([3.]), tensor([12.]), -1.9617)
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    support: Any = constraints.nonnegative_integer
    _expand_params: ClassVar[dict[str, int]] = {"probs": 0, "logits": 0}
    probs = lazy_property(_binary_probs)
    logits = lazy_property(_binary_logits)

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        name, value = _probs_or_logits(probs, logits)
        (param,) = broadcast_all(value)
        setattr(self, name, param)
        super().__init__(tuple(param.shape), validate_args=validate_args)
        if self._validate_args and name == "probs" and not bool((param > 0).all()):
            raise ValueError(
                f"Expected parameter probs (Tensor of shape {tuple(param.shape)}) of "
                f"distribution {self!r} to be positive but found invalid values:\n"
                f"{param[~(param > 0)]}"
            )

    @property
    def mean(self) -> Tensor:
        """``1 / probs - 1``."""
        return self.probs.reciprocal() - 1

    @property
    def mode(self) -> Tensor:
        """0."""
        return ops.zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        """``(1 / probs - 1) / probs``."""
        return (self.probs.reciprocal() - 1) / self.probs

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """``floor(log(u) / log1p(-probs))`` for ``u`` uniform on ``(0, 1)``."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            p = self.probs.expand(shape)
            u = ops.rand(shape, dtype=p.dtype, device=p.device).clamp(min=tiny(p.dtype))
            return (u.log() / (-p).log1p()).floor()

    def log_prob(self, value: Any) -> Tensor:
        """``value * log1p(-probs) + log(probs)`` (0 at ``value = 0`` when ``probs = 1``)."""
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        q = ops.where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-q).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        """``BCE(logits, probs) / probs``."""
        lg, p = self.logits, self.probs
        return (softplus(lg) - lg * p) / p


class NegativeBinomial(_Trials):
    """The number of successes (of probability ``probs``) before ``total_count`` failures,
    as PyTorch parameterises it; a Poisson with a gamma-distributed rate.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.NegativeBinomial(3.0, tc.tensor([0.5]))
    >>> d.mean, d.variance, round(d.log_prob(tc.tensor([2.0])).item(), 4)
    (tensor([3.]), tensor([6.]), -1.674)
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support: Any = constraints.nonnegative_integer

    @property
    def mean(self) -> Tensor:
        """``total_count * exp(logits)``."""
        return self.total_count * self.logits.exp()

    @property
    def mode(self) -> Tensor:
        """``floor((total_count - 1) exp(logits))``, at least 0."""
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        """``mean / sigmoid(-logits)``."""
        return self.mean / (-self.logits).sigmoid()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """A Poisson draw of a ``Gamma(total_count, exp(-logits))`` rate."""
        with no_grad():
            gamma = Gamma(self.total_count, (-self.logits).exp(), validate_args=False)
            return poisson(gamma.sample(sample_shape))

    def log_prob(self, value: Any) -> Tensor:
        """``n logsigmoid(-logits) + k logsigmoid(logits) + log C(n + k - 1, k)``."""
        if self._validate_args:
            self._validate_sample(value)
        k = _tensor(value, self.logits)
        n, lg = self.total_count, self.logits
        unnormalized = -n * softplus(lg) - k * softplus(-lg)
        log_norm = -(n + k).lgamma() + (1 + k).lgamma() + n.lgamma()
        log_norm = ops.where(n + k == 0, 0.0, log_norm)
        return unnormalized - log_norm


class Multinomial(_OverCategorical):
    """Counts of ``total_count`` draws from a :class:`Categorical` of ``probs`` (or
    ``logits``) over the last dim; ``log_prob`` needs no ``total_count`` (it reads the
    counts' sum), ``sample`` does.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Multinomial(4, tc.tensor([0.25, 0.75]))
    >>> d.sample((2,)).sum(-1), round(d.log_prob(tc.tensor([1.0, 3.0])).item(), 4)
    (tensor([4., 4.]), -0.863)
    """

    def __init__(
        self,
        total_count: int = 1,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        super().__init__(probs, logits, validate_args=validate_args)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Multinomial:
        """The same probabilities broadcast to ``batch_shape``."""
        new = super().expand(batch_shape)
        assert isinstance(new, Multinomial)
        shape = (*new._batch_shape, *self._event_shape)
        new._binomial = self._binomial.expand(shape)  # type: ignore[assignment]
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> Any:
        """``multinomial(total_count)``."""
        return constraints.multinomial(self.total_count)

    @property
    def mean(self) -> Tensor:
        """``total_count * probs``."""
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        """``total_count * probs * (1 - probs)``."""
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """The counts of ``total_count`` categorical draws per event."""
        ss = tuple(sample_shape) if not isinstance(sample_shape, int) else (sample_shape,)
        k = self._event_shape[0]
        with no_grad():
            draws = self._categorical.sample((self.total_count, *ss))
            one_hot = draws.unsqueeze(-1) == ops.arange(k, device=draws.device)
            return one_hot.to(self.probs.dtype).sum(0)

    def log_prob(self, value: Any) -> Tensor:
        """``lgamma(n + 1) - sum lgamma(x + 1) + sum x log p`` (0 log 0 = 0)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = ops.where((value == 0) & (logits == -math.inf), 0.0, logits)
        log_factorial_n = (value.sum(-1) + 1).lgamma()
        log_factorial_xs = (value + 1).lgamma().sum(-1)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)

    def entropy(self) -> Tensor:
        """``n H(categorical) - lgamma(n + 1) + sum_i E[lgamma(X_i + 1)]`` with ``X_i``
        binomial (the marginals)."""
        n = self.total_count
        term1 = n * self._categorical.entropy() - math.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        probs = self._binomial.log_prob(support).exp()
        return term1 + (probs * (support + 1).lgamma()).sum((0, -1))
