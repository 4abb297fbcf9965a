"""``tensorcore.cuda``: device management, memory statistics and streams (PyTorch's names)."""

from __future__ import annotations

from typing import Any

import tensorcore as tc

__all__ = [
    "Stream",
    "current_device",
    "device_count",
    "empty_cache",
    "is_available",
    "manual_seed",
    "max_memory_allocated",
    "memory_allocated",
    "set_device",
    "stream",
    "synchronize",
    "unavailable_reason",
]

_iface: Any = None
_peak = 0


def _bind(iface: Any) -> None:
    global _iface
    _iface = iface


def _cp() -> Any:
    if _iface is None or _iface.unavailable_reason is not None:
        reason = "the cuda plugin is not loaded" if _iface is None else _iface.unavailable_reason
        raise RuntimeError(f"CUDA is not available: {reason}")
    return _iface.cp


def is_available() -> bool:
    """Whether a CUDA device can be used here."""
    return _iface is not None and _iface.unavailable_reason is None


def unavailable_reason() -> str | None:
    """Why CUDA cannot be used here (None when it can)."""
    return None if _iface is None else _iface.unavailable_reason


def device_count() -> int:
    """Number of visible GPUs (0 when unavailable)."""
    return 0 if not is_available() else int(_iface.device_count())


def current_device() -> int:
    """Index of the current device."""
    return int(_cp().cuda.runtime.getDevice())


def set_device(device: Any) -> None:
    """Make ``device`` (an index, ``"cuda:N"`` or a device) current."""
    idx = device if isinstance(device, int) else tc.device(device).index or 0
    _cp().cuda.runtime.setDevice(idx)


def synchronize(device: Any = None) -> None:
    """Wait for all work on ``device`` (the current one by default)."""
    cp = _cp()
    if device is None:
        cp.cuda.Device().synchronize()
    else:
        _iface.synchronize(tc.device("cuda", device) if isinstance(device, int) else device)


def memory_allocated(device: Any = None) -> int:
    """Bytes of GPU memory held by tensors (CuPy's pool ``used_bytes``)."""
    global _peak
    used = int(_cp().get_default_memory_pool().used_bytes())
    _peak = max(_peak, used)
    return used


def max_memory_allocated(device: Any = None) -> int:
    """The largest :func:`memory_allocated` seen (CuPy's pool ``total_bytes`` bounds it)."""
    cp = _cp()
    return max(_peak, int(cp.get_default_memory_pool().total_bytes()))


def empty_cache() -> None:
    """Return unused cached blocks of CuPy's memory pool to the driver."""
    _cp().get_default_memory_pool().free_all_blocks()


def manual_seed(seed: int) -> None:
    """Seed the default CUDA generator."""
    tc.random.default_generator("cuda").manual_seed(seed)


class Stream:
    """A CUDA stream (wraps ``cupy.cuda.Stream``)."""

    def __init__(self, device: Any = None, priority: int = 0) -> None:
        self._s = _cp().cuda.Stream(non_blocking=True)

    def synchronize(self) -> None:
        """Wait for the work queued on this stream."""
        self._s.synchronize()

    def query(self) -> bool:
        """Whether all queued work is done."""
        return bool(self._s.done)

    def __enter__(self) -> Stream:
        self._s.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._s.__exit__(*exc)


def stream(s: Stream | None) -> Any:
    """Context manager that makes ``s`` the current stream (no-op for None)."""
    import contextlib

    return contextlib.nullcontext() if s is None else s
