"""Heavy-tailed and ratio distributions on the line: ``Cauchy``, as
``torch.distributions``' (same parameters, formulas and constraint messages)."""

from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from ..ops import functions as ops
from . import constraints
from .distributions import _LocScale
from .utils import _tensor

__all__ = ["Cauchy"]

_C = dict[str, constraints.Constraint]


class Cauchy(_LocScale):
    """The Cauchy (Lorentz) distribution of location ``loc`` and half-width ``scale``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Cauchy(0.0, 1.0)
    >>> d.cdf(tc.tensor(1.0)), round(d.log_prob(tc.tensor(0.0)).item(), 4)
    (tensor(0.7500), -1.1447)
    """

    @property
    def mean(self) -> Tensor:
        """Undefined (NaN)."""
        return ops.full_like(self.loc, math.nan)

    @property
    def variance(self) -> Tensor:
        """Infinite."""
        return ops.full_like(self.loc, math.inf)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``loc + scale * tan(pi (u - 1/2))`` with ``u`` uniform."""
        shape = self._extended_shape(sample_shape)
        u = ops.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + self.scale * (math.pi * (u - 0.5)).tan()

    def log_prob(self, value: Any) -> Tensor:
        """``-log(pi scale) - log1p(((value - loc) / scale)^2)``."""
        if self._validate_args:
            self._validate_sample(value)
        z = (_tensor(value, self.loc) - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - z.pow(2).log1p()

    def cdf(self, value: Any) -> Tensor:
        """``atan((value - loc) / scale) / pi + 1/2``."""
        if self._validate_args:
            self._validate_sample(value)
        z = (_tensor(value, self.loc) - self.loc) / self.scale
        return z.atan() / math.pi + 0.5

    def icdf(self, value: Any) -> Tensor:
        """``loc + scale * tan(pi (value - 1/2))``."""
        return self.loc + self.scale * (math.pi * (_tensor(value, self.loc) - 0.5)).tan()

    def entropy(self) -> Tensor:
        """``log(4 pi scale)``."""
        return math.log(4 * math.pi) + self.scale.log()
