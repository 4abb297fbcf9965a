"""Devices: ``tc.device("cuda:1")``, the default device and device selection at runtime.

Device *types* are not hard-coded here: a backend plugin registers each type it provides
(``cpu`` by ``tensorcore-cpu``, ``cuda`` by ``tensorcore-cuda``, ...). A device object is a
plain value (type and optional index); whether a backend provides it is checked at use.
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any

from . import _registry

__all__ = ["device", "get_default_device", "set_default_device"]

_DEVICE_RE = re.compile(r"([a-z_][a-z0-9_]*)(?::(\d+))?")
_cache: dict[tuple[str, int | None], device] = {}


class device:
    """A device a tensor lives on: a type (``"cpu"``, ``"cuda"``, ...) and an optional index.

    Accepts ``device("cuda:1")``, ``device("cuda", 1)`` or another device. As a context
    manager it makes itself the default device for factories inside the block.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.device("cuda:1")
    >>> d.type, d.index, d == tc.device("cuda", 1)
    ('cuda', 1, True)
    >>> with tc.device("cpu"):
    ...     tc.zeros(2).device
    device(type='cpu')
    """

    __slots__ = ("_key", "index", "type")

    type: str
    index: int | None
    _key: tuple[str, int | None]

    def __new__(cls, type: str | device, index: int | None = None) -> device:
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): an index cannot be given with a device object")
            return type
        if not isinstance(type, str):
            raise TypeError(f"device(): expected a string or device, got {type.__class__.__name__}")
        if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
            raise TypeError(f"device(): index must be an int, got {index.__class__.__name__}")
        hit = _cache.get((type, index))
        if hit is not None:
            return hit
        m = _DEVICE_RE.fullmatch(type)
        if m is None:
            raise RuntimeError(
                f"device(): Invalid device string: '{type}' (expected 'type' or 'type:index', "
                "e.g. 'cuda:0')"
            )
        dev_type, idx = m.group(1), m.group(2)
        if idx is not None:
            if index is not None:
                raise RuntimeError(f"device(): type string '{type}' already has an index")
            index = int(idx)
        if index is not None and index < 0:
            raise RuntimeError(f"device(): device index must not be negative, got {index}")
        key = (dev_type, index)
        obj = _cache.get(key)
        if obj is None:
            obj = object.__new__(cls)
            object.__setattr__(obj, "type", dev_type)
            object.__setattr__(obj, "index", index)
            object.__setattr__(obj, "_key", key)
            _cache[key] = obj
        _cache[(type, None if idx is not None else index)] = obj
        return obj

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("device objects are immutable")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __reduce__(self) -> tuple[Any, ...]:
        return (device, (self.type, self.index))

    def __enter__(self) -> device:
        # A block names its device as a value, as in PyTorch: a factory inside it reports a
        # device that cannot be used (set_default_device checks at once).
        _state.stack.append(get_default_device())
        _state.default = self
        return self

    def __exit__(self, *exc: object) -> None:
        _state.default = _state.stack.pop()


class _DeviceState(threading.local):
    def __init__(self) -> None:
        self.default: device | None = None
        self.stack: list[device] = []


_state = _DeviceState()


def get_default_device() -> device:
    """The device factories use when no ``device=`` is given.

    It is ``cpu`` unless changed by :func:`set_default_device`, a ``with tc.device(...)`` block,
    or the environment variable ``TENSORCORE_DEFAULT_DEVICE`` (read when first needed).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.get_default_device()
    device(type='cpu')
    """
    d = _state.default
    if d is None:
        d = _state.default = device(os.environ.get("TENSORCORE_DEFAULT_DEVICE") or "cpu")
    return d


def set_default_device(d: device | str | None) -> None:
    """Set the device factories use by default (``None`` resets it to ``cpu``).

    The device must be usable here: an unknown device type, a device whose backend reports it
    unavailable or an index past the last device raises now, naming the package to install or
    the reason, rather than at every later factory call (PyTorch accepts it and fails later).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.set_default_device("cpu")
    >>> tc.ones(1).device
    device(type='cpu')
    """
    if d is None:
        _state.default = device("cpu")
        return
    try:
        dev = device(d)
        _registry.interface(dev)
    except (TypeError, RuntimeError) as exc:
        raise type(exc)(f"set_default_device(): {exc}") from None
    _state.default = dev
