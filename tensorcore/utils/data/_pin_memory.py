"""Pinning a batch: what ``DataLoader(pin_memory=True)`` applies to each batch, with PyTorch's
rules for containers (``torch/utils/data/_utils/pin_memory.py``)."""

from __future__ import annotations

import collections.abc
import copy
from typing import Any

from ..._pinned import pin_memory as _pin_tensor
from ..._tensor import Tensor

__all__ = ["pin_memory"]


def pin_memory(data: Any, device: str | None = None) -> Any:
    """``data`` with every tensor replaced by its pinned copy (``Tensor.pin_memory(device)``),
    inside mappings, named tuples, tuples and sequences, recursively; an object with a
    ``pin_memory()`` method (a custom batch type) is asked to pin itself; anything else is
    returned as it is.

    As in PyTorch, a mutable mapping or sequence is shallow-copied and filled with the
    pinned items (so its type and extra attributes survive), an immutable one is rebuilt by
    its type (a plain ``dict`` or ``list`` when that fails), and a tuple stays a tuple
    (PyTorch 2.13; older versions made it a list).

    Examples
    --------
    >>> from tensorcore.utils.data._pin_memory import pin_memory
    >>> pin_memory({"name": "a", "ids": (1, 2)})  # nothing to pin: the same values
    {'name': 'a', 'ids': (1, 2)}
    """
    if isinstance(data, Tensor):
        return _pin_tensor(data, device)
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({k: pin_memory(v, device) for k, v in data.items()})
                return clone
            return type(data)({k: pin_memory(v, device) for k, v in data.items()})  # type: ignore[call-arg]
        except TypeError:
            return {k: pin_memory(v, device) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a named tuple
        return type(data)(*(pin_memory(v, device) for v in data))
    if isinstance(data, tuple):
        return tuple(pin_memory(v, device) for v in data)
    if isinstance(data, collections.abc.Sequence):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                items = copy.copy(data)
                for i, v in enumerate(data):
                    items[i] = pin_memory(v, device)
                return items
            return type(data)([pin_memory(v, device) for v in data])  # type: ignore[call-arg]
        except TypeError:
            return [pin_memory(v, device) for v in data]
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data
