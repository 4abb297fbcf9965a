"""The fake ``cupy.cuda.runtime``: device count and the current device."""

from __future__ import annotations

import os
import threading
from typing import Any

is_hip = False
memoryTypeHost = 1
_local = threading.local()


class CUDARuntimeError(RuntimeError):
    """CuPy's error of a failed runtime call."""


def getDeviceCount() -> int:
    """``FAKE_CUPY_DEVICES`` (default 1)."""
    return int(os.environ.get("FAKE_CUPY_DEVICES", "1"))


def getDevice() -> int:
    """The current device of this thread."""
    return int(getattr(_local, "device", 0))


def setDevice(device: int) -> None:
    """Make ``device`` current on this thread."""
    if not 0 <= device < getDeviceCount():
        raise CUDARuntimeError(f"cudaErrorInvalidDevice: invalid device ordinal {device}")
    _local.device = device


def pointerGetAttributes(ptr: int) -> Any:
    """No host memory is registered with the fake driver."""
    raise CUDARuntimeError("cudaErrorInvalidValue: invalid argument")
