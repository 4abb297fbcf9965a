"""``tensorcore.cuda``: device management, memory statistics and streams (PyTorch's names).

Where the device is unavailable, the memory statistics are 0 and ``empty_cache``,
``manual_seed``, ``manual_seed_all`` and ``reset_peak_memory_stats`` do nothing, as in PyTorch's
CPU build; what needs a device (``synchronize``, ``current_device``, streams) raises.
"""

from __future__ import annotations

from typing import Any

import tensorcore as tc
from tensorcore import backend
from tensorcore.amp import cuda_amp as amp

__all__ = [
    "Event",
    "Stream",
    "amp",
    "can_device_access_peer",
    "current_device",
    "current_stream",
    "default_stream",
    "device_count",
    "empty_cache",
    "get_arch_list",
    "get_device_capability",
    "get_device_name",
    "get_device_properties",
    "get_rng_state",
    "initial_seed",
    "is_available",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_reserved",
    "nvtx",
    "reset_peak_memory_stats",
    "seed",
    "set_device",
    "set_per_process_memory_fraction",
    "set_rng_state",
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
        backend.default_generator("cuda").manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """Seed every CUDA device's generator (a no-op without a device)."""
    manual_seed(seed)


def seed() -> None:
    """Seed the default CUDA generator non-deterministically (a no-op without a device)."""
    if is_available():
        backend.default_generator("cuda").seed()


def initial_seed() -> int:
    """The seed the default CUDA generator started from."""
    _cp()
    return backend.default_generator("cuda").initial_seed()


def get_rng_state(device: Any = "cuda") -> Any:
    """The default CUDA generator's state as a byte tensor (one generator serves every
    device here)."""
    _cp()
    return backend.default_generator("cuda").get_state()  # type: ignore[attr-defined]


def set_rng_state(new_state: Any, device: Any = "cuda") -> None:
    """Restore the default CUDA generator's state from :func:`get_rng_state`."""
    _cp()
    backend.default_generator("cuda").set_state(new_state)  # type: ignore[attr-defined]


def _index(device: Any) -> int:
    """The device index ``device`` names (the current device for None)."""
    if device is None:
        return current_device()
    if isinstance(device, int):
        return device
    return tc.device(device).index or 0


def _props(device: Any) -> dict[str, Any]:
    return dict(_cp().cuda.runtime.getDeviceProperties(_index(device)))


def get_device_name(device: Any = None) -> str:
    """The GPU's name, as the driver reports it."""
    name = _props(device)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def get_device_capability(device: Any = None) -> tuple[int, int]:
    """The GPU's compute capability ``(major, minor)``."""
    p = _props(device)
    return int(p["major"]), int(p["minor"])


class _DeviceProperties:
    """What ``get_device_properties`` gives: PyTorch's attribute names."""

    def __init__(self, p: dict[str, Any]) -> None:
        name = p["name"]
        self.name = name.decode() if isinstance(name, bytes) else str(name)
        self.total_memory = int(p["totalGlobalMem"])
        self.major, self.minor = int(p["major"]), int(p["minor"])
        self.multi_processor_count = int(p["multiProcessorCount"])
        self.is_integrated = bool(p.get("integrated", 0))
        self.is_multi_gpu_board = bool(p.get("isMultiGpuBoard", 0))
        self.L2_cache_size = int(p.get("l2CacheSize", 0))
        self.warp_size = int(p.get("warpSize", 32))

    def __repr__(self) -> str:
        return (
            f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
            f"total_memory={self.total_memory // (1024 * 1024)}MB, "
            f"multi_processor_count={self.multi_processor_count})"
        )


def get_device_properties(device: Any = None) -> _DeviceProperties:
    """The GPU's properties (``name``, ``total_memory``, ``major``, ``minor``, ...)."""
    return _DeviceProperties(_props(device))


def get_arch_list() -> list[str]:
    """The architectures of the devices here (``sm_90``): CuPy compiles for the device it
    runs on."""
    if not is_available():
        return []
    return sorted({"sm_{}{}".format(*get_device_capability(i)) for i in range(device_count())})


def mem_get_info(device: Any = None) -> tuple[int, int]:
    """``(free, total)`` bytes of the GPU's memory."""
    cp = _cp()
    with cp.cuda.Device(_index(device)):
        free, total = cp.cuda.runtime.memGetInfo()
    return int(free), int(total)


def set_per_process_memory_fraction(fraction: float, device: Any = None) -> None:
    """Cap CuPy's memory pool at ``fraction`` of the device's memory."""
    _cp().get_default_memory_pool().set_limit(fraction=fraction)


def can_device_access_peer(device: Any, peer_device: Any) -> bool:
    """Whether ``device`` can read ``peer_device``'s memory directly."""
    return bool(_cp().cuda.runtime.deviceCanAccessPeer(_index(device), _index(peer_device)))


def nvtx() -> Any:
    """CuPy's NVTX module (``RangePush``, ``RangePop``, ``Mark``)."""
    return _cp().cuda.nvtx


class Event:
    """A CUDA event (wraps ``cupy.cuda.Event``): ``record``, ``synchronize``, ``query``,
    ``elapsed_time`` (milliseconds between two timed events) and ``wait``."""

    def __init__(
        self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False
    ) -> None:
        self._e = _cp().cuda.Event(
            block=blocking, disable_timing=not enable_timing, interprocess=interprocess
        )

    def record(self, stream: Any = None) -> None:
        """Record the event on ``stream`` (the current one by default)."""
        self._e.record(None if stream is None else stream._s)

    def synchronize(self) -> None:
        """Wait until the event has happened."""
        self._e.synchronize()

    def query(self) -> bool:
        """Whether the event has happened."""
        return bool(self._e.done)

    def wait(self, stream: Any = None) -> None:
        """Make ``stream`` (the current one) wait for the event."""
        s = _cp().cuda.get_current_stream() if stream is None else stream._s
        s.wait_event(self._e)

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds from this event to ``end_event`` (both recorded, with timing)."""
        return float(_cp().cuda.get_elapsed_time(self._e, end_event._e))


class Stream:
    """A CUDA stream (wraps ``cupy.cuda.Stream``)."""

    def __init__(self, device: Any = None, priority: int = 0, *, _wrap: Any = None) -> None:
        self._s = _wrap if _wrap is not None else _cp().cuda.Stream(non_blocking=True)

    def wait_stream(self, stream: Stream) -> None:
        """Make this stream wait for the work queued on ``stream`` so far."""
        self._s.wait_event(stream._s.record())

    def wait_event(self, event: Event) -> None:
        """Make this stream wait for ``event``."""
        self._s.wait_event(event._e)

    def record_event(self, event: Event | None = None) -> Event:
        """Record ``event`` (a new one by default) on this stream."""
        event = Event() if event is None else event
        event.record(self)
        return event

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


def current_stream(device: Any = None) -> Stream:
    """The current CUDA stream."""
    return Stream(_wrap=_cp().cuda.get_current_stream())


def default_stream(device: Any = None) -> Stream:
    """The default (null) stream."""
    return Stream(_wrap=_cp().cuda.Stream.null)


def stream(s: Stream | None) -> Any:
    """Context manager that makes ``s`` the current stream (no-op for None)."""
    import contextlib

    return contextlib.nullcontext() if s is None else s
