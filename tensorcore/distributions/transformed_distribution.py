"""``TransformedDistribution``: a base distribution pushed through a list of transforms, as
``torch.distributions.TransformedDistribution``."""

from __future__ import annotations

from typing import Any, ClassVar

from .._tensor import Size, Tensor
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import Distribution, _shape
from .multivariate import Independent
from .transforms import ComposeTransform, Transform
from .utils import sum_rightmost

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """The distribution of ``transforms[-1](...transforms[0](x))`` for ``x`` drawn from
    ``base_distribution``; ``log_prob`` subtracts each transform's log absolute Jacobian
    determinant, and ``cdf``/``icdf`` go through the transforms when they are monotone.

    The base distribution is expanded (and its batch dims reinterpreted as event dims) as
    the transforms' shapes and event dims require.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions import Normal, TransformedDistribution
    >>> from tensorcore.distributions.transforms import ExpTransform
    >>> d = TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()])
    >>> round(d.log_prob(tc.tensor(1.0)).item(), 4), d.cdf(tc.tensor(1.0))
    (-0.9189, tensor(0.5000))
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {}

    def __init__(
        self,
        base_distribution: Distribution,
        transforms: Transform | list[Transform],
        validate_args: bool | None = None,
    ) -> None:
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = base_distribution._batch_shape + base_distribution._event_shape
        base_event_dim = len(base_distribution._event_shape)
        transform = ComposeTransform(self.transforms)
        domain_event_dim = transform.domain.event_dim
        if len(base_shape) < domain_event_dim:
            raise ValueError(
                f"base_distribution needs to have shape with size at least {domain_event_dim}, "
                f"but got {Size(base_shape)}."
            )
        forward_shape = tuple(transform.forward_shape(base_shape))
        expanded_base_shape = tuple(transform.inverse_shape(forward_shape))
        if base_shape != expanded_base_shape:
            cut = len(expanded_base_shape) - base_event_dim
            base_distribution = base_distribution.expand(expanded_base_shape[:cut])
        reinterpreted = domain_event_dim - base_event_dim
        if reinterpreted > 0:
            base_distribution = Independent(base_distribution, reinterpreted)
        self.base_dist = base_distribution
        change = transform.codomain.event_dim - domain_event_dim
        event_dim = max(transform.codomain.event_dim, base_event_dim + change)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> TransformedDistribution:
        """The base distribution expanded so that the result has ``batch_shape``."""
        shape = _shape(batch_shape)
        new = super().expand(shape)
        assert isinstance(new, TransformedDistribution)
        full: Any = shape + self._event_shape
        for t in reversed(self.transforms):
            full = t.inverse_shape(full)
        cut = len(full) - len(self.base_dist._event_shape)
        new.base_dist = self.base_dist.expand(tuple(full)[:cut])
        return new

    @constraints.dependent_property(is_discrete=False)
    def support(self) -> Any:
        """The last transform's codomain (with the event dims of the distribution)."""
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self._event_shape) > support.event_dim:
            support = constraints.independent(support, len(self._event_shape) - support.event_dim)
        return support

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        """The base distribution's."""
        return self.base_dist.has_rsample

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """The transforms applied to a base sample."""
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """The transforms applied to a reparameterised base sample."""
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value: Any) -> Tensor:
        """The base log density of the pulled-back value, minus the transforms' log
        absolute Jacobian determinants (each summed over the event dims)."""
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self._event_shape)
        log_prob: Any = 0.0
        y = value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            log_prob = log_prob - sum_rightmost(
                t.log_abs_det_jacobian(x, y), event_dim - t.domain.event_dim
            )
            y = x
        base = sum_rightmost(
            self.base_dist.log_prob(y), event_dim - len(self.base_dist._event_shape)
        )
        return log_prob + base

    def _monotonize_cdf(self, value: Tensor) -> Tensor:
        """``value`` flipped (``1 - value``) where the transforms decrease."""
        sign: Any = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value: Any) -> Tensor:
        """The base CDF of the pulled-back value (monotone transforms only)."""
        for t in self.transforms[::-1]:
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value: Any) -> Tensor:
        """The transforms applied to the base inverse CDF (monotone transforms only)."""
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for t in self.transforms:
            value = t(value)
        return value
