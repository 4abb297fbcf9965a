"""Counting and one-hot distributions: ``Poisson``, ``Binomial``, ``OneHotCategorical``, as
``torch.distributions``' (Poisson and binomial draws are not PyTorch's, see ``_samplers``)."""

from __future__ import annotations

from typing import Any, ClassVar

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from . import constraints
from ._samplers import binomial, poisson
from .distributions import Distribution, _OverCategorical
from .utils import (
    _binary_logits,
    _binary_probs,
    _probs_or_logits,
    _tensor,
    broadcast_all,
    lazy_property,
)

__all__ = ["Binomial", "OneHotCategorical", "Poisson"]


class Poisson(Distribution):
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


class Binomial(Distribution):
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
    _expand_params: ClassVar[dict[str, int]] = {"total_count": 0, "probs": 0, "logits": 0}

    def __init__(
        self,
        total_count: Any = 1,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        name, value = _probs_or_logits(probs, logits)
        total, param = broadcast_all(total_count, value)
        self.total_count = total.type_as(param)
        setattr(self, name, param)
        shape = param.shape
        super().__init__(tuple(shape), validate_args=validate_args)

    probs = lazy_property(_binary_probs)
    logits = lazy_property(_binary_logits)

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
        normalize = n * lg.clamp(min=0) + n * (-lg.abs()).exp().log1p() - (n + 1).lgamma()
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
