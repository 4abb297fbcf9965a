"""Probability distributions (``tensorcore.distributions``), as ``torch.distributions``:
``Normal``, ``Uniform``, ``Bernoulli``, ``Categorical``, with ``sample``/``rsample``,
``log_prob``, ``entropy``, ``mean``/``variance`` and batch shapes; ``kl_divergence`` and
``register_kl``. Sampling draws from the
same streams, in the same way, as PyTorch's."""

from . import kl
from .distributions import Bernoulli, Categorical, Distribution, Normal, Uniform
from .kl import kl_divergence, register_kl

__all__ = [
    "Bernoulli",
    "Categorical",
    "Distribution",
    "Normal",
    "Uniform",
    "kl",
    "kl_divergence",
    "register_kl",
]
