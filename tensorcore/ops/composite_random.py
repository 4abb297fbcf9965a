"""In-place random fills from continuous and discrete distributions (``exponential_``,
``cauchy_``, ``geometric_``, ``log_normal_``), written with the uniform and normal draws.

PyTorch's CPU kernels draw one float64 uniform per element (``log_normal_``: one float64
normal, from Box-Muller pairs) in the tensor's memory order and transform it in float64
before rounding to the tensor's dtype. These composites draw the same numbers through
``uniform_``/``normal_`` and apply the same transforms, so that on the CPU backend, whose
streams reproduce PyTorch's, a seeded generator gives PyTorch's values; every other backend
gets the right distribution from its own stream. ``ops/composite.py`` registers them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor, torch_name
from . import functions as ops

__all__ = ["RANDOM_COMPOSITES"]

RANDOM_COMPOSITES: dict[str, Callable[..., Any]] = {}


def _composite(fn: Callable[..., Any]) -> Callable[..., Any]:
    RANDOM_COMPOSITES[fn.__name__] = fn
    return fn


def _continuous_only(self: Tensor, distribution: str) -> None:
    if not self._dtype.is_floating_point:
        raise RuntimeError(
            f"{distribution} distribution is a continuous probability distribution. dtype must "
            f"be a floating point but you specified {torch_name(self._dtype)}"
        )


def _uniforms(self: Tensor, generator: Any) -> Tensor:
    """One float64 uniform in [0, 1) per element of ``self``, drawn in its memory order
    (``empty_like`` keeps a dense tensor's strides, and ``uniform_`` fills in memory order)."""
    return ops.empty_like(self, dtype=dt.float64).uniform_(generator=generator)


@_composite
def exponential_(self: Tensor, lambd: float = 1.0, generator: Any = None) -> Tensor:
    _continuous_only(self, "Exponential")
    if not (lambd > 0 and math.isfinite(lambd)):
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    u = _uniforms(self, generator)
    return self.copy_(u.neg().log1p() / -lambd)


@_composite
def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, generator: Any = None) -> Tensor:
    _continuous_only(self, "Cauchy")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    u = _uniforms(self, generator)
    return self.copy_(((u - 0.5) * math.pi).tan() * sigma + median)


@_composite
def geometric_(self: Tensor, p: float, generator: Any = None) -> Tensor:
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    u = _uniforms(self, generator)
    # The number of Bernoulli(p) trials up to the first success.
    return self.copy_((u.log() / math.log1p(-p)).ceil())


@_composite
def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, generator: Any = None) -> Tensor:
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    n = self.numel()
    # PyTorch draws each element's normal on its own (Box-Muller pairs, the spare one kept
    # for the next draw): what normal_ does for a non-contiguous tensor, hence the strided
    # column; then the draws go to self's memory order.
    draws = ops.empty((n, 2), dtype=dt.float64, device=self._device)[:, 0]
    draws.normal_(mean, std, generator=generator)
    normals = ops.empty_like(self, dtype=dt.float64)
    normals.as_strided((n,), (1,)).copy_(draws)
    return self.copy_(normals.exp())
