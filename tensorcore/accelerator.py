"""``tensorcore.accelerator``: PyTorch's device-generic ``torch.accelerator`` module.

The accelerator is the device type that an installed backend registers, with its device
module, beside the host's ``cpu`` (and the shape-only ``meta``): ``cuda`` with
``tensorcore-cuda``; without one there is none, as in PyTorch's CPU build.
Programs such as PyTorch's quickstart pick their device with
``torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"``.

Examples
--------
>>> import tensorcore as tc
>>> device = tc.accelerator.current_accelerator().type if tc.accelerator.is_available() else "cpu"
>>> tc.zeros(2, device=device).device.type == device
True
"""

from __future__ import annotations

from typing import Any

from . import _registry
from .devices import device as _device
from .plugins import manager

__all__ = [
    "current_accelerator",
    "current_device_index",
    "device_count",
    "is_available",
    "set_device_index",
    "synchronize",
]

#: Device types that are never the accelerator: the host, and shapes without data.
_HOST_TYPES = frozenset({"cpu", "meta"})


def _accelerator_type() -> str | None:
    # As in PyTorch, an accelerator comes with its device module (``tc.cuda``: the namespace
    # its backend registers under the device type's name); a device type without one (a
    # test's toy device) is not an accelerator.
    kinds = [
        t for t in _registry.interfaces() if t not in _HOST_TYPES and _namespace(t) is not None
    ]
    usable = [t for t in kinds if _registry.is_usable(t)]
    found = usable or kinds
    return found[0] if found else None


def current_accelerator(check_available: bool = False) -> _device | None:
    """The accelerator's device type as a :class:`tensorcore.device`, or None without one.

    With ``check_available=True``, None also when the accelerator is installed but no device
    of it can be used on this machine.

    Examples
    --------
    >>> import tensorcore as tc
    >>> acc = tc.accelerator.current_accelerator(check_available=True)
    >>> acc is None or acc.type != "cpu"
    True
    """
    kind = _accelerator_type()
    if kind is None or (check_available and not _registry.is_usable(kind)):
        return None
    return _device(kind)


def is_available() -> bool:
    """Whether an accelerator is installed and one of its devices can be used.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.accelerator.is_available() == (tc.accelerator.device_count() > 0)
    True
    """
    kind = _accelerator_type()
    return kind is not None and _registry.is_usable(kind)


def device_count() -> int:
    """How many accelerator devices can be used (0 without a usable accelerator).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.accelerator.device_count() >= 0
    True
    """
    kind = _accelerator_type()
    if kind is None or not _registry.is_usable(kind):
        return 0
    return int(_registry.devices[kind].device_count())


def _namespace(kind: str) -> Any:
    # The module a backend registers under its device type's name (``tc.cuda``), which keeps
    # the current device of that type; None when the backend registers none.
    manager.load()
    hit = manager.attributes.get(kind)
    return hit[0] if hit is not None else None


def _usable_type(fn: str) -> str:
    kind = _accelerator_type()
    if kind is None:
        raise RuntimeError(f"tensorcore.accelerator.{fn}(): no accelerator is installed")
    if not _registry.is_usable(kind):
        raise RuntimeError(
            f"tensorcore.accelerator.{fn}(): the accelerator '{kind}' is not available: "
            f"{_registry.devices[kind].unavailable_reason or 'no device found'}"
        )
    return kind


def current_device_index() -> int:
    """The index of the current accelerator device (a ``RuntimeError`` without one).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.accelerator.current_device_index() if tc.accelerator.is_available() else 0
    0
    """
    ns = _namespace(_usable_type("current_device_index"))
    return int(ns.current_device()) if hasattr(ns, "current_device") else 0


def set_device_index(device: Any) -> None:
    """Select the current accelerator device (an index, or a device of the accelerator's type).

    Examples
    --------
    >>> import tensorcore as tc
    >>> if tc.accelerator.is_available():
    ...     tc.accelerator.set_device_index(0)
    """
    kind = _usable_type("set_device_index")
    index = device if isinstance(device, int) else _device(device).index
    count = int(_registry.devices[kind].device_count())
    if index is None or not 0 <= index < count:
        raise RuntimeError(f"invalid device index {device!r}: {count} '{kind}' device(s) present")
    ns = _namespace(kind)
    if hasattr(ns, "set_device"):
        ns.set_device(index)


def synchronize(device: Any = None) -> None:
    """Wait for the work queued on the accelerator (on ``device``, or the current one).

    Examples
    --------
    >>> import tensorcore as tc
    >>> if tc.accelerator.is_available():
    ...     tc.accelerator.synchronize()
    """
    kind = _usable_type("synchronize")
    if device is None:
        dev = _device(kind, current_device_index())
    else:
        dev = _device(kind, device) if isinstance(device, int) else _device(device)
    _registry.devices[kind].synchronize(dev)
