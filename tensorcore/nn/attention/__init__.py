"""``tensorcore.nn.attention``: PyTorch's ``SDPBackend`` and ``sdpa_kernel``, which programs
use to pick ``scaled_dot_product_attention``'s implementation. tensorcore has one, the math
one, on every backend: ``sdpa_kernel`` checks its argument and changes nothing.

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.nn.attention import SDPBackend, sdpa_kernel
>>> q = tc.ones(1, 2, 4)
>>> with sdpa_kernel(SDPBackend.MATH):
...     tc.nn.functional.scaled_dot_product_attention(q, q, q).shape
tensorcore.Size([1, 2, 4])
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator
from typing import Any

from . import flex_attention

__all__ = ["SDPBackend", "flex_attention", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    """The implementations PyTorch's ``scaled_dot_product_attention`` chooses from."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


@contextlib.contextmanager
def sdpa_kernel(backends: Any, set_priority: bool = False) -> Iterator[None]:
    """Run the block with ``backends`` (one ``SDPBackend`` or a list) allowed; tensorcore's
    attention is always the math implementation, which computes what the others do."""
    chosen = list(backends) if isinstance(backends, (list, tuple, set)) else [backends]
    for b in chosen:
        if not isinstance(b, SDPBackend):
            raise ValueError(f"Expected a SDPBackend, got {b!r}")
    yield
