"""Probability distributions (``tensorcore.distributions``), as ``torch.distributions``:
``Normal``, ``Uniform``, ``Bernoulli``, ``Categorical``, with ``sample``/``rsample``,
``log_prob``, ``entropy``, ``mean``/``variance`` and batch shapes. Sampling draws from the
same streams, in the same way, as PyTorch's."""

from .distributions import Bernoulli, Categorical, Distribution, Normal, Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Normal", "Uniform"]
