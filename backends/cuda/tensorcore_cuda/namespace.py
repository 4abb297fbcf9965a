"""``tensorcore.cuda``: device management, memory statistics and streams (PyTorch's names).

Where the device is unavailable, the memory statistics are 0 and ``empty_cache``,
``manual_seed``, ``manual_seed_all`` and ``reset_peak_memory_stats`` do nothing, as in PyTorch's
CPU build; what needs a device (``synchronize``, ``current_device``, streams) raises.
"""

from __future__ import annotations

from typing import Any

import tensorcore as tc
from tensorcore.amp import cuda_amp as amp

__all__ = [
    "Stream",
    "amp",
    "current_device",
    "device_count",
    "empty_cache",
    "is_available",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "reset_peak_memory_stats",
    "set_device",
    "stream",
    "synchronize",
    "unavailable_reason",
]

_iface: Any = None
_peak = 0
_peak_reserved = 0
_was_reset = False


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
    """Bytes of GPU memory held by tensors (CuPy's pool ``used_bytes``; 0 without a device)."""
    global _peak
    if not is_available():
        return 0
    used = int(_cp().get_default_memory_pool().used_bytes())
    _peak = max(_peak, used)
    return used


def max_memory_allocated(device: Any = None) -> int:
    """The peak of :func:`memory_allocated`.

    CuPy's pool does not track its peak use: until :func:`reset_peak_memory_stats` the pool's
    size (``total_bytes``) bounds it; after a reset, the largest value observed since.
    """
    used = memory_allocated(device)
    return max(_peak, used, memory_reserved(device) if not _was_reset else 0)


def memory_reserved(device: Any = None) -> int:
    """Bytes held by CuPy's memory pool, used or cached (0 without a device)."""
    global _peak_reserved
    if not is_available():
        return 0
    held = int(_cp().get_default_memory_pool().total_bytes())
    _peak_reserved = max(_peak_reserved, held)
    return held


def max_memory_reserved(device: Any = None) -> int:
    """The largest :func:`memory_reserved` seen since :func:`reset_peak_memory_stats`."""
    return max(_peak_reserved, memory_reserved(device))


def reset_peak_memory_stats(device: Any = None) -> None:
    """Restart the peaks from the current values (a no-op without a device)."""
    global _peak, _peak_reserved, _was_reset
    _peak = _peak_reserved = 0
    if is_available():
        _was_reset = True
        _peak, _peak_reserved = memory_allocated(device), memory_reserved(device)


def empty_cache() -> None:
    """Return unused cached blocks of CuPy's memory pool to the driver (no-op without a device)."""
    if is_available():
        _cp().get_default_memory_pool().free_all_blocks()


def manual_seed(seed: int) -> None:
    """Seed the default CUDA generator (a no-op without a device, as in PyTorch)."""
    if is_available():
        tc.random.default_generator("cuda").manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """Seed every CUDA device's generator (a no-op without a device)."""
    manual_seed(seed)


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
