"""``tc.cpu.amp``: PyTorch's deprecated ``torch.cpu.amp.autocast`` spelling of
``tc.autocast("cpu", ...)`` (bfloat16 by default), which CPU training scripts still use.

Examples
--------
>>> import warnings
>>> import tensorcore as tc
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     with tc.cpu.amp.autocast():
...         print((tc.ones(2, 2) @ tc.ones(2, 2)).dtype)
tensorcore.bfloat16
"""

from __future__ import annotations

import warnings

from .. import dtypes as dt
from .autocast_mode import autocast as _autocast

__all__ = ["autocast"]


class autocast(_autocast):
    """``tc.autocast("cpu", ...)`` (PyTorch's deprecated ``torch.cpu.amp.autocast``)."""

    def __init__(
        self, enabled: bool = True, dtype: dt.dtype = dt.bfloat16, cache_enabled: bool = True
    ) -> None:
        warnings.warn(
            "`tensorcore.cpu.amp.autocast(args...)` is deprecated. Please use "
            "`tensorcore.amp.autocast('cpu', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
