"""``tensorcore.types``: the type aliases PyTorch's ``torch.types`` gives annotations
(``Number``, ``Device``, ``_size``...).

Examples
--------
>>> from tensorcore.types import Number
>>> isinstance(2.5, Number)
True
"""

from __future__ import annotations

from collections.abc import Sequence

from ._tensor import Size, Tensor
from .devices import device as _device_type
from .dtypes import dtype as _dtype

__all__ = ["Device", "Number", "_bool", "_complex", "_device", "_dtype", "_float", "_int", "_size"]

_int = int
_float = float
_bool = bool
_complex = complex
_device = _device_type
#: A Python number (``isinstance(x, Number)`` works: a tuple of the types).
Number = (int, float, bool)
#: What a ``device=`` argument takes.
Device = str | _device_type | int | None
_size = Size | Sequence[int]
_TensorOrTensors = Tensor | Sequence[Tensor]
