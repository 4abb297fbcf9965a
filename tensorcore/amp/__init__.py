"""``tensorcore.amp``: automatic mixed precision, as PyTorch's ``torch.amp``.

``autocast`` regions run matmuls, convolutions and ``linear`` in a lower-precision dtype and
keep precision-sensitive operators in float32; ``GradScaler`` scales float16 losses so that
their gradients do not underflow. See ``docs/nn.md`` ("Mixed precision").

Examples
--------
>>> import tensorcore as tc
>>> model = tc.nn.Linear(4, 2)
>>> with tc.autocast("cpu", dtype=tc.bfloat16):
...     y = model(tc.ones(3, 4))
>>> y.dtype, model.weight.dtype
(tensorcore.bfloat16, tensorcore.float32)
"""

from __future__ import annotations

from .autocast_mode import (
    autocast,
    custom_bwd,
    custom_fwd,
    get_autocast_dtype,
    is_autocast_available,
    is_autocast_enabled,
)
from .grad_scaler import GradScaler

__all__ = [
    "GradScaler",
    "autocast",
    "custom_bwd",
    "custom_fwd",
    "get_autocast_dtype",
    "is_autocast_available",
    "is_autocast_enabled",
]
