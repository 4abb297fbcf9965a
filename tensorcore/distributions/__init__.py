"""Probability distributions (``tensorcore.distributions``), as ``torch.distributions``:
``Normal``, ``Uniform``, ``Bernoulli``, ``Categorical``, ``MultivariateNormal``,
``Independent``, ``Beta``, ``Gamma``, ``Dirichlet``, ``Exponential``, ``Laplace``,
``LogNormal``, ``Poisson``, ``Binomial``, ``OneHotCategorical``, with ``sample``/``rsample``,
``log_prob``, ``entropy``, ``mean``/``variance``/``stddev``, batch and event shapes,
``expand`` and argument validation against each class's ``arg_constraints`` and
``support`` (objects of :mod:`.constraints`); ``kl_divergence`` and ``register_kl``.
Normal, Uniform,
Bernoulli, Categorical, LogNormal, OneHotCategorical and MultivariateNormal sampling draws
from the same streams, in the same way, as PyTorch's (MultivariateNormal through ``randn``);
Gamma, Beta, Dirichlet, Poisson and Binomial draws are exact but not PyTorch's draws."""

from . import constraints, kl, utils
from .continuous import Beta, Dirichlet, Exponential, Gamma, Laplace, LogNormal
from .discrete import Binomial, OneHotCategorical, Poisson
from .distributions import Bernoulli, Categorical, Distribution, Normal, Uniform
from .kl import kl_divergence, register_kl
from .multivariate import Independent, MultivariateNormal

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "Gamma",
    "Independent",
    "Laplace",
    "LogNormal",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Poisson",
    "Uniform",
    "constraints",
    "kl",
    "kl_divergence",
    "register_kl",
    "utils",
]
