"""Continuous relaxations of discrete distributions (the Concrete / Gumbel-softmax family):
``RelaxedBernoulli`` and ``RelaxedOneHotCategorical`` with their logit-space bases
``LogitRelaxedBernoulli`` and ``ExpRelaxedCategorical``, as ``torch.distributions``'.
Their samples are reparameterised, so gradients reach ``probs``/``logits``."""

from __future__ import annotations

import math
from typing import Any, ClassVar

from .._tensor import Size, Tensor
from ..ops import functions as ops
from . import constraints
from .distribution import Distribution
from .distributions import _OverCategorical
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform, SigmoidTransform
from .utils import (
    _binary_logits,
    _binary_probs,
    _probs_or_logits,
    _tensor,
    broadcast_all,
    clamp_probs,
    lazy_property,
)

__all__ = [
    "ExpRelaxedCategorical",
    "LogitRelaxedBernoulli",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
]

_C = dict[str, constraints.Constraint]


class LogitRelaxedBernoulli(Distribution):
    """The logit of a :class:`RelaxedBernoulli` draw: ``(logit(u) + logits) / temperature``
    with ``u`` uniform.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions.relaxed import LogitRelaxedBernoulli
    >>> d = LogitRelaxedBernoulli(tc.tensor(0.5), probs=tc.tensor(0.5))
    >>> round(d.log_prob(tc.tensor(0.0)).item(), 4)
    -2.0794
    """

    arg_constraints: ClassVar[_C] = {"probs": constraints.unit_interval, "logits": constraints.real}
    support: Any = constraints.real
    has_rsample = True
    _expand_params: ClassVar[dict[str, int]] = {"probs": 0, "logits": 0}
    probs = lazy_property(_binary_probs)
    logits = lazy_property(_binary_logits)

    def __init__(
        self,
        temperature: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        name, value = _probs_or_logits(probs, logits)
        (param,) = broadcast_all(value)
        setattr(self, name, param)
        self.temperature = _tensor(temperature, param)
        super().__init__(tuple(param.shape), validate_args=validate_args)

    @property
    def param_shape(self) -> Size:
        """The parameters' shape."""
        return Size(self._batch_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``(logit(u) + logit(probs)) / temperature``, ``u`` uniform (both clamped)."""
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(ops.rand(shape, dtype=probs.dtype, device=probs.device))
        logistic = u.log() - (-u).log1p()
        return (logistic + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Any) -> Tensor:
        """``log t + d - 2 log1p(exp(d))`` with ``d = logits - t * value``."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class _Relaxed(TransformedDistribution):
    """A relaxation pushed out of its logit-space base (``base_dist``), whose
    ``temperature``, ``probs`` and ``logits`` it shows."""

    base_dist: Any
    has_rsample = True

    @property
    def temperature(self) -> Tensor:
        """The relaxation temperature."""
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        """The base's logits."""
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        """The base's probabilities."""
        return self.base_dist.probs


class RelaxedBernoulli(_Relaxed):
    """A relaxed Bernoulli on ``(0, 1)``: the sigmoid of a :class:`LogitRelaxedBernoulli`;
    it tends to ``Bernoulli(probs)`` as ``temperature`` goes to 0.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.RelaxedBernoulli(tc.tensor(0.5), probs=tc.tensor([0.3]))
    >>> s = d.rsample((4,))
    >>> s.shape, bool(((s > 0) & (s < 1)).all())
    (tensorcore.Size([4, 1]), True)
    """

    arg_constraints: ClassVar[_C] = {"probs": constraints.unit_interval, "logits": constraints.real}
    support: Any = constraints.unit_interval
    has_rsample = True

    def __init__(
        self,
        temperature: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)


class ExpRelaxedCategorical(_OverCategorical):
    """The log of a :class:`RelaxedOneHotCategorical` draw: a Gumbel-softmax in log space,
    ``log_softmax((logits + g) / temperature)`` with ``g`` standard Gumbel noise.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions.relaxed import ExpRelaxedCategorical
    >>> d = ExpRelaxedCategorical(tc.tensor(1.0), probs=tc.tensor([0.2, 0.8]))
    >>> round(d.rsample().exp().sum().item(), 4)
    1.0
    """

    support: Any = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        temperature: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        super().__init__(probs, logits, validate_args=validate_args)
        self.temperature = _tensor(temperature, self._categorical._param)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``log_softmax((logits + gumbel) / temperature)``."""
        shape = self._extended_shape(sample_shape)
        u = clamp_probs(ops.rand(shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -((-(u.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(-1, keepdim=True)

    def log_prob(self, value: Any) -> Tensor:
        """The Concrete density in log space:
        ``lgamma(K) + (K - 1) log t + sum(s) - K logsumexp(s)``, ``s = logits - t * value``."""
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = math.lgamma(k) + (k - 1) * self.temperature.log()
        score = logits - value * self.temperature
        score = (score - score.logsumexp(-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(_Relaxed):
    """A relaxed one-hot categorical on the simplex (Gumbel-softmax): the exp of an
    :class:`ExpRelaxedCategorical`; it tends to ``OneHotCategorical(probs)`` as
    ``temperature`` goes to 0.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.RelaxedOneHotCategorical(tc.tensor(0.5), tc.tensor([0.2, 0.8]))
    >>> s = d.rsample((3,))
    >>> s.shape, bool(((s.sum(-1) - 1).abs() < 1e-5).all())
    (tensorcore.Size([3, 2]), True)
    """

    arg_constraints: ClassVar[_C] = {
        "probs": constraints.simplex,
        "logits": constraints.real_vector,
    }
    support: Any = constraints.simplex
    has_rsample = True

    def __init__(
        self,
        temperature: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)
