"""``tensorcore.cpu``: PyTorch's ``torch.cpu`` device module, for programs written against the
accelerator-module interface (``torch.cpu.is_available()``, ``torch.cpu.amp.autocast``).

The CPU runs operators as they are called, so ``synchronize`` has nothing to wait for.

Examples
--------
>>> import tensorcore as tc
>>> tc.cpu.device_count(), tc.cpu.current_device()
(1, 'cpu')
"""

from __future__ import annotations

import sys
from typing import Any

from . import _registry
from .amp import cpu_amp as amp

# ``from torch.cpu.amp import autocast`` imports ``amp`` as a submodule (as in
# ``tensorcore.cuda``: registered under that name, and an empty ``__path__``).
sys.modules[f"{__name__}.amp"] = amp
__path__: list[str] = []

__all__ = [
    "amp",
    "current_device",
    "device_count",
    "is_available",
    "is_initialized",
    "set_device",
    "synchronize",
]


def is_available() -> bool:
    """Whether the ``cpu`` device can be used (a backend provides it: ``tensorcore-cpu``)."""
    return _registry.is_usable("cpu")


def is_initialized() -> bool:
    """Always True, as PyTorch's (the CPU needs no initialisation)."""
    return True


def device_count() -> int:
    """1: the CPU is one device."""
    return 1


def current_device() -> str:
    """``'cpu'``."""
    return "cpu"


def set_device(device: Any) -> None:
    """Nothing to select: there is one CPU device (PyTorch's is a no-op too)."""


def synchronize(device: Any = None) -> None:
    """Nothing to wait for: CPU operators finish before they return."""
