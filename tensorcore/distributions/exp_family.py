"""``ExponentialFamily``: the base of the distributions whose density is
``h(x) exp(<theta, T(x)> - A(theta))``, as ``torch.distributions.exp_family``. A subclass
gives its natural parameters ``theta`` (``_natural_params``), the log normalizer ``A``
(``_log_normalizer``) and ``E[log h(X)]`` (``_mean_carrier_measure``); the entropy and the
KL divergence between two members of one family then follow from the gradient of ``A``
(a Bregman divergence), computed by autograd."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..autograd import grad
from ..autograd.grad_mode import enable_grad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A distribution of an exponential family; ``entropy`` from the log normalizer.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions import ExponentialFamily, Normal
    >>> d = Normal(tc.tensor(0.0), tc.tensor(2.0))
    >>> isinstance(d, ExponentialFamily)
    True
    >>> round(ExponentialFamily.entropy(d).item(), 4), round(d.entropy().item(), 4)
    (2.1121, 2.1121)
    """

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        """The natural parameters ``theta``."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        """``A(theta)``, the log of the normalizing constant, over the batch."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> Any:
        """``E[log h(X)]`` (a number or a tensor over the batch)."""
        raise NotImplementedError

    def _log_normalizer_and_grads(
        self, params: tuple[Tensor, ...]
    ) -> tuple[list[Tensor], Tensor, tuple[Any, ...]]:
        """Detached copies of ``params`` that require grad, ``A`` at them and its gradients
        (with a graph, so that the result stays differentiable)."""
        with enable_grad():
            leaves = [p.detach().requires_grad_() for p in params]
            lg = self._log_normalizer(*leaves)
            grads = grad(lg.sum(), leaves, create_graph=True)
        return leaves, lg, grads

    def entropy(self) -> Tensor:
        """``A(theta) - <theta, grad A(theta)> - E[log h(X)]``."""
        leaves, lg, grads = self._log_normalizer_and_grads(self._natural_params)
        result = lg - self._mean_carrier_measure
        for p, g in zip(leaves, grads, strict=True):
            result = result - (p * g).reshape(*self._batch_shape, -1).sum(-1)
        return result
