"""``MixtureSameFamily``: a mixture whose components are the batch of one distribution, as
``torch.distributions.MixtureSameFamily``."""

from __future__ import annotations

from typing import Any, ClassVar

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import constraints
from .distribution import Distribution, _shape
from .distributions import Categorical

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """A mixture of the ``k`` distributions in the rightmost batch dim of
    ``component_distribution``, weighted by ``mixture_distribution`` (a :class:`Categorical`
    over ``k``); ``log_prob`` is a log-sum-exp over the components.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions import Categorical, MixtureSameFamily, Normal
    >>> mix = Categorical(tc.tensor([0.5, 0.5]))
    >>> d = MixtureSameFamily(mix, Normal(tc.tensor([-1.0, 1.0]), tc.tensor([1.0, 1.0])))
    >>> d.mean, round(d.variance.item(), 4), d.sample((3,)).shape
    (tensor(0.), 2.0, tensorcore.Size([3]))
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {}
    has_rsample = False

    def __init__(
        self,
        mixture_distribution: Categorical,
        component_distribution: Distribution,
        validate_args: bool | None = None,
    ) -> None:
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(
                " The Mixture distribution needs to be an  instance of "
                "torch.distributions.Categorical"
            )
        if not isinstance(component_distribution, Distribution):
            raise ValueError(
                "The Component distribution need to be an instance of "
                "torch.distributions.Distribution"
            )
        self.mixture_distribution = mixture_distribution
        self.component_distribution = component_distribution
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs), strict=False):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(
                    f"`mixture_distribution.batch_shape` ({mdbs}) is not compatible with "
                    f"`component_distribution.batch_shape`({cdbs})"
                )
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(
                f"`mixture_distribution component` ({km}) does not equal "
                f"`component_distribution.batch_shape[-1]` ({kc})"
            )
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(
            tuple(cdbs), tuple(component_distribution.event_shape), validate_args=validate_args
        )

    def expand(self, batch_shape: Any, _instance: Any = None) -> MixtureSameFamily:
        """The components and weights broadcast to ``batch_shape``."""
        shape = _shape(batch_shape)
        component = self.component_distribution.expand((*shape, self._num_component))
        mixture = self.mixture_distribution.expand(shape)
        assert isinstance(mixture, Categorical)
        return MixtureSameFamily(mixture, component, validate_args=False)

    @constraints.dependent_property
    def support(self) -> Any:
        """The components' support, checked against every component
        (:class:`~.constraints.MixtureSameFamilyConstraint`)."""
        return constraints.MixtureSameFamilyConstraint(self.component_distribution.support)

    @property
    def mean(self) -> Tensor:
        """``sum_i w_i mean_i``."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return (probs * self.component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        """The law of total variance: ``E[var | i] + var(E[x | i])``."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        comp = self.component_distribution
        dim = -1 - self._event_ndims
        mean_cond_var = (probs * comp.variance).sum(dim)
        var_cond_mean = (probs * (comp.mean - self._pad(self.mean)).pow(2)).sum(dim)
        return mean_cond_var + var_cond_mean

    def cdf(self, x: Any) -> Tensor:
        """``sum_i w_i cdf_i(x)``."""
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return (cdf_x * self.mixture_distribution.probs).sum(-1)

    def log_prob(self, x: Any) -> Tensor:
        """``logsumexp_i(log w_i + log p_i(x))``."""
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))
        log_mix = self.mixture_distribution.logits.log_softmax(-1)
        return (log_prob_x + log_mix).logsumexp(-1)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """A component index from the mixture, then that component's draw."""
        ss = _shape(sample_shape)
        gather_dim = len(ss) + len(self._batch_shape)
        with no_grad():
            idx = self.mixture_distribution.sample(ss)
            comps = self.component_distribution.sample(ss)  # ss + batch + (k,) + event
            idx = idx.reshape(*idx.shape, *([1] * (len(self._event_shape) + 1)))
            idx = idx.expand(*idx.shape[: gather_dim + 1], *self._event_shape)
            return comps.gather(gather_dim, idx).squeeze(gather_dim)

    def _pad(self, x: Any) -> Tensor:
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x: Tensor) -> Tensor:
        """The weights with singleton dims to broadcast against the components' values."""
        dist_batch = len(self._batch_shape)
        cat_batch = len(self.mixture_distribution.batch_shape)
        pad = 0 if cat_batch == 1 else dist_batch - cat_batch
        xs = tuple(x.shape)
        return x.reshape(*xs[:-1], *([1] * pad), xs[-1], *([1] * self._event_ndims))

    def __repr__(self) -> str:
        return (
            f"MixtureSameFamily(\n  {self.mixture_distribution!r},\n"
            f"  {self.component_distribution!r})"
        )
