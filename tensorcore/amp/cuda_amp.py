"""``tc.cuda.amp``: PyTorch's deprecated spellings of :mod:`tensorcore.amp` for CUDA, which
many training programs still use (``torch.cuda.amp.autocast()``, ``torch.cuda.amp.GradScaler()``).
They warn as PyTorch's do and are ``tc.amp``'s with ``device_type="cuda"``.

Examples
--------
>>> import warnings
>>> import tensorcore as tc
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     scaler = tc.cuda.amp.GradScaler(enabled=False)
>>> scaler.is_enabled()
False
"""

from __future__ import annotations

import warnings
from typing import Any

from .. import dtypes as dt
from .autocast_mode import autocast as _autocast
from .autocast_mode import custom_bwd as _custom_bwd
from .autocast_mode import custom_fwd as _custom_fwd
from .grad_scaler import GradScaler as _GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]


class autocast(_autocast):
    """``tc.autocast("cuda", ...)`` (PyTorch's deprecated ``torch.cuda.amp.autocast``)."""

    def __init__(
        self, enabled: bool = True, dtype: dt.dtype = dt.float16, cache_enabled: bool = True
    ) -> None:
        warnings.warn(
            "`tensorcore.cuda.amp.autocast(args...)` is deprecated. Please use "
            "`tensorcore.amp.autocast('cuda', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """``tc.amp.GradScaler("cuda", ...)`` (PyTorch's deprecated ``torch.cuda.amp.GradScaler``)."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        warnings.warn(
            "`tensorcore.cuda.amp.GradScaler(args...)` is deprecated. Please use "
            "`tensorcore.amp.GradScaler('cuda', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(
            "cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled
        )


def custom_fwd(fwd: Any = None, *, cast_inputs: dt.dtype | None = None) -> Any:
    """``tc.amp.custom_fwd(device_type="cuda", ...)``."""
    return _custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd: Any = None) -> Any:
    """``tc.amp.custom_bwd(device_type="cuda")``."""
    return _custom_bwd(bwd, device_type="cuda")
