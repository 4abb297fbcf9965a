"""``tensorcore.cuda``: always importable, as PyTorch's ``torch.cuda``.

Without a usable CUDA device (no CUDA backend, or one whose device is unavailable), the
functions behave as in PyTorch's CPU build: ``is_available()`` is False, ``device_count()`` is 0,
``empty_cache()``, ``manual_seed(s)``, ``manual_seed_all(s)`` and ``reset_peak_memory_stats()`` do
nothing, the memory statistics are 0 and ``synchronize()`` raises, so that
``device = "cuda" if tc.cuda.is_available() else "cpu"`` programs run unchanged on any machine.
With the ``tensorcore-cuda`` backend installed and its device usable, every name comes from the
namespace it registers (``register.attribute("cuda", ...)``): streams, memory statistics...

Examples
--------
>>> import tensorcore as tc
>>> isinstance(tc.cuda.is_available(), bool)
True
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

from .amp import cuda_amp as amp
from .plugins import manager

# ``from torch.cuda.amp import autocast, GradScaler`` imports ``amp`` as a submodule
# (PyTorch's ``torch.cuda`` is a package): it is registered under that name, and an empty
# ``__path__`` lets an import system that maps ``torch`` to ``tensorcore`` look it up here.
sys.modules[f"{__name__}.amp"] = amp
__path__: list[str] = []

__all__ = [
    "amp",
    "device_count",
    "empty_cache",
    "is_available",
    "is_bf16_supported",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "reset_peak_memory_stats",
    "synchronize",
]

#: The plugin attribute this module forwards to (see ``plugins/_commit.py``).
__plugin_attribute__ = "cuda"


def _backend() -> Any:
    manager.load()
    hit = manager.attributes.get("cuda")
    return hit[0] if hit is not None else None


def is_available() -> bool:
    """Whether a CUDA device can be used (False without a CUDA backend)."""
    ns = _backend()
    return bool(ns.is_available()) if ns is not None else False


def device_count() -> int:
    """The number of usable CUDA devices (0 without a CUDA backend)."""
    ns = _backend()
    return int(ns.device_count()) if ns is not None else 0


def _usable() -> Any:
    """The backend's namespace when a CUDA device can be used, else None."""
    ns = _backend()
    return ns if ns is not None and ns.is_available() else None


def manual_seed(seed: int) -> None:
    """Seed the CUDA generator (a no-op without a usable CUDA device, as in PyTorch)."""
    ns = _usable()
    if ns is not None:
        ns.manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """Seed every CUDA device's generator (a no-op without a usable CUDA device)."""
    manual_seed(seed)


def is_initialized() -> bool:
    """Whether CUDA is set up for use: a usable CUDA device (False without one, as in
    PyTorch's CPU build).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.cuda.is_initialized() == tc.cuda.is_available()
    True
    """
    return _usable() is not None


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether the CUDA device computes in ``bfloat16``: always False, as the CUDA backend's
    arrays (CuPy's) have no bfloat16, so programs that choose ``bfloat16`` when it is
    supported and ``float16`` otherwise (nanoGPT) choose ``float16``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.cuda.is_bf16_supported()
    False
    """
    return False


def empty_cache() -> None:
    """Release cached, unused GPU memory (a no-op without a usable CUDA device).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.cuda.empty_cache()
    """
    ns = _usable()
    if ns is not None:
        ns.empty_cache()


def reset_peak_memory_stats(device: Any = None) -> None:
    """Restart the peaks :func:`max_memory_allocated` reports (a no-op without a device)."""
    ns = _usable()
    if ns is not None:
        ns.reset_peak_memory_stats(device)


def memory_allocated(device: Any = None) -> int:
    """Bytes of GPU memory held by tensors (0 without a usable CUDA device).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.cuda.memory_allocated() if not tc.cuda.is_available() else 0
    0
    """
    ns = _usable()
    return int(ns.memory_allocated(device)) if ns is not None else 0


def max_memory_allocated(device: Any = None) -> int:
    """The peak of :func:`memory_allocated` (0 without a usable CUDA device)."""
    ns = _usable()
    return int(ns.max_memory_allocated(device)) if ns is not None else 0


def memory_reserved(device: Any = None) -> int:
    """Bytes of GPU memory held by the caching allocator (0 without a usable CUDA device)."""
    ns = _usable()
    return int(ns.memory_reserved(device)) if ns is not None else 0


def max_memory_reserved(device: Any = None) -> int:
    """The peak of :func:`memory_reserved` (0 without a usable CUDA device)."""
    ns = _usable()
    return int(ns.max_memory_reserved(device)) if ns is not None else 0


def synchronize(device: Any = None) -> None:
    """Wait for the device's work to finish."""
    ns = _backend()
    if ns is None or not ns.is_available():
        raise RuntimeError(
            "tensorcore.cuda.synchronize(): no usable CUDA device: "
            + (manager.install_hint("cuda") if ns is None else str(ns.unavailable_reason()))
        )
    ns.synchronize(device)


def _needs_device(fn: str) -> Any:
    """The backend's namespace, or PyTorch's refusal where no CUDA device can be used."""
    ns = _backend()
    if ns is None or not ns.is_available():
        raise RuntimeError(
            f"tensorcore.cuda.{fn}(): no usable CUDA device: "
            + (manager.install_hint("cuda") if ns is None else str(ns.unavailable_reason()))
        )
    return ns


class OutOfMemoryError(RuntimeError):
    """Raised when the GPU's memory is exhausted (PyTorch's ``torch.cuda.OutOfMemoryError``)."""


def seed() -> None:
    """Seed the CUDA generator non-deterministically (a no-op without a usable device)."""
    ns = _usable()
    if ns is not None:
        ns.seed()


def seed_all() -> None:
    """Seed every CUDA device's generator non-deterministically (a no-op without one)."""
    seed()


def initial_seed() -> int:
    """The seed the CUDA generator started from (needs a usable device)."""
    return int(_needs_device("initial_seed").initial_seed())


def get_rng_state(device: Any = "cuda") -> Any:
    """The CUDA generator's state as a byte tensor (needs a usable device)."""
    return _needs_device("get_rng_state").get_rng_state(device)


def set_rng_state(new_state: Any, device: Any = "cuda") -> None:
    """Restore the CUDA generator's state from :func:`get_rng_state` (needs a device)."""
    _needs_device("set_rng_state").set_rng_state(new_state, device)


def get_rng_state_all() -> list[Any]:
    """Every device's generator state (an empty list without a usable device, as PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.cuda.get_rng_state_all() if not tc.cuda.is_available() else []
    []
    """
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states: Any) -> None:
    """Restore every device's generator state (a no-op for an empty list)."""
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


def get_arch_list() -> list[str]:
    """The GPU architectures the device(s) here are (``["sm_90"]``; empty without a device)."""
    ns = _usable()
    return list(ns.get_arch_list()) if ns is not None else []


#: Per device, its default generator (an empty tuple without a usable device).
def _default_generators() -> tuple[Any, ...]:
    ns = _usable()
    if ns is None:
        return ()
    from .random import default_generator_of

    return tuple(default_generator_of("cuda") for _ in range(device_count()))


class device:
    """Context manager that makes ``device`` (an index, ``"cuda:N"`` or a device) the current
    CUDA device, and restores the previous one at exit; -1 or None does nothing, as does
    every index where no CUDA device can be used (PyTorch's CPU build runs the block).

    Examples
    --------
    >>> import tensorcore as tc
    >>> with tc.cuda.device(-1):
    ...     pass
    """

    def __init__(self, device: Any) -> None:
        from .devices import device as _device

        if device is None or isinstance(device, int):
            self.idx = -1 if device is None else device
        else:
            self.idx = _device(device).index or 0
        self.prev = -1

    def __enter__(self) -> device:
        ns = _usable()
        if ns is not None and self.idx >= 0:
            self.prev = ns.current_device()
            if self.prev != self.idx:
                ns.set_device(self.idx)
        return self

    def __exit__(self, *exc: object) -> None:
        ns = _usable()
        if ns is not None and self.prev >= 0 and self.prev != self.idx:
            ns.set_device(self.prev)


class device_of(device):
    """:class:`device` of a tensor: its CUDA device, or nothing for a CPU tensor."""

    def __init__(self, obj: Any) -> None:
        d = obj.device
        super().__init__(d.index or 0 if d.type == "cuda" else -1)


def current_device() -> int:
    """Index of the current CUDA device (needs a usable device)."""
    return int(_needs_device("current_device").current_device())


def set_device(device: Any) -> None:
    """Make ``device`` (an index, ``"cuda:N"`` or a device) the current CUDA device; a
    negative index does nothing, as in PyTorch."""
    if isinstance(device, int) and device < 0:
        return
    _needs_device("set_device").set_device(device)


def get_device_name(device: Any = None) -> str:
    """The GPU's name (``"NVIDIA H100 80GB HBM3"``; needs a usable device)."""
    return str(_needs_device("get_device_name").get_device_name(device))


def get_device_capability(device: Any = None) -> tuple[int, int]:
    """The GPU's compute capability ``(major, minor)`` (needs a usable device)."""
    major, minor = _needs_device("get_device_capability").get_device_capability(device)
    return int(major), int(minor)


def get_device_properties(device: Any = None) -> Any:
    """The GPU's properties: ``name``, ``total_memory`` (bytes), ``major``, ``minor``,
    ``multi_processor_count`` (needs a usable device)."""
    return _needs_device("get_device_properties").get_device_properties(device)


def mem_get_info(device: Any = None) -> tuple[int, int]:
    """``(free, total)`` bytes of the GPU's memory, as the driver reports them."""
    free, total = _needs_device("mem_get_info").mem_get_info(device)
    return int(free), int(total)


def memory_stats(device: Any = None) -> dict[str, Any]:
    """The allocator's statistics as PyTorch names them (``"allocated_bytes.all.current"``,
    ``...peak``, ``"reserved_bytes.all.current"``, ...); empty without a usable device.

    Examples
    --------
    >>> import tensorcore as tc
    >>> dict(tc.cuda.memory_stats()) if not tc.cuda.is_available() else {}
    {}
    """
    import collections

    if _usable() is None:
        return collections.OrderedDict()
    alloc, peak = memory_allocated(device), max_memory_allocated(device)
    held, held_peak = memory_reserved(device), max_memory_reserved(device)
    return collections.OrderedDict(
        [
            ("allocated_bytes.all.current", alloc),
            ("allocated_bytes.all.peak", peak),
            ("reserved_bytes.all.current", held),
            ("reserved_bytes.all.peak", held_peak),
            ("active_bytes.all.current", alloc),
            ("active_bytes.all.peak", peak),
        ]
    )


def memory_summary(device: Any = None, abbreviated: bool = False) -> str:
    """A printable table of :func:`memory_stats` (needs a usable device)."""
    _needs_device("memory_summary")
    stats = memory_stats(device)
    rows = [f"{'Metric':<34}{'Cur Usage':>14}{'Peak Usage':>14}"]
    for what in ("allocated_bytes", "reserved_bytes", "active_bytes"):
        cur, peak = stats[f"{what}.all.current"], stats[f"{what}.all.peak"]
        rows.append(f"{what:<34}{cur:>14}{peak:>14}")
    return "\n".join(rows)


def memory_cached(device: Any = None) -> int:
    """Deprecated name of :func:`memory_reserved` (with PyTorch's FutureWarning)."""
    warnings.warn(
        "`tensorcore.cuda.memory_cached` has been renamed to `tensorcore.cuda.memory_reserved`",
        FutureWarning,
        stacklevel=2,
    )
    return memory_reserved(device)


def max_memory_cached(device: Any = None) -> int:
    """Deprecated name of :func:`max_memory_reserved` (with PyTorch's FutureWarning)."""
    warnings.warn(
        "`tensorcore.cuda.max_memory_cached` has been renamed to "
        "`tensorcore.cuda.max_memory_reserved`",
        FutureWarning,
        stacklevel=2,
    )
    return max_memory_reserved(device)


def reset_max_memory_allocated(device: Any = None) -> None:
    """Deprecated: :func:`reset_peak_memory_stats` (with PyTorch's FutureWarning)."""
    warnings.warn(
        "tensorcore.cuda.reset_max_memory_allocated now calls "
        "tensorcore.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
        FutureWarning,
        stacklevel=2,
    )
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device: Any = None) -> None:
    """Deprecated: :func:`reset_peak_memory_stats` (with PyTorch's FutureWarning)."""
    warnings.warn(
        "tensorcore.cuda.reset_max_memory_cached now calls "
        "tensorcore.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats.",
        FutureWarning,
        stacklevel=2,
    )
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device: Any = None) -> None:
    """Reset the accumulated statistics (the peaks here: the allocator keeps no others)."""
    reset_peak_memory_stats(device)


def init() -> None:
    """Initialise CUDA (needs a usable device; using a device initialises it anyway)."""
    _needs_device("init")


def ipc_collect() -> None:
    """Free GPU memory no longer shared between processes (needs a usable device; a no-op
    with CuPy's allocator, which shares none)."""
    _needs_device("ipc_collect")


def set_per_process_memory_fraction(fraction: float, device: Any = None) -> None:
    """Cap this process's GPU memory at ``fraction`` of the device's (needs a device)."""
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    _needs_device("set_per_process_memory_fraction").set_per_process_memory_fraction(fraction)


def can_device_access_peer(device: Any, peer_device: Any) -> bool:
    """Whether ``device`` can read ``peer_device``'s memory directly (needs a device)."""
    return bool(_needs_device("can_device_access_peer").can_device_access_peer(device, peer_device))


def current_stream(device: Any = None) -> Any:
    """The current CUDA stream (needs a usable device)."""
    return _needs_device("current_stream").current_stream(device)


def default_stream(device: Any = None) -> Any:
    """The device's default (null) stream (needs a usable device)."""
    return _needs_device("default_stream").default_stream(device)


def Event(enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> Any:
    """A CUDA event (``record``, ``synchronize``, ``query``, ``elapsed_time`` in ms, ``wait``;
    needs a usable device)."""
    return _needs_device("Event").Event(enable_timing, blocking, interprocess)


def utilization(device: Any = None) -> int:
    """Percent of time the GPU was busy over the last sample period (NVML's figure)."""
    try:
        import pynvml
    except ImportError:
        raise ModuleNotFoundError(
            "nvidia-ml-py does not seem to be installed or it can't be imported."
        ) from None
    ns = _needs_device("utilization")
    pynvml.nvmlInit()
    idx = ns.current_device() if device is None else device if isinstance(device, int) else 0
    handle = pynvml.nvmlDeviceGetHandleByIndex(idx)
    return int(pynvml.nvmlDeviceGetUtilizationRates(handle).gpu)


def get_allocator_backend() -> str:
    """The allocator's name: ``"native"`` (CuPy's memory pool), as PyTorch's default."""
    return "native"


def is_tf32_supported() -> bool:
    """Whether the device computes TF32 matmuls: False (the CUDA backend does not use them)."""
    return False


class _Nvtx:
    """``tensorcore.cuda.nvtx``: NVTX ranges for profilers (CuPy's, on a usable device)."""

    def _nvtx(self, fn: str) -> Any:
        ns = _usable()
        if ns is None:
            raise RuntimeError(
                "NVTX functions not installed. Are you sure you have a CUDA build? "
                f"(tensorcore.cuda.nvtx.{fn} needs a usable CUDA device)"
            )
        return ns.nvtx()

    def range_push(self, msg: str) -> int:
        """Open a nested range named ``msg``."""
        self._nvtx("range_push").RangePush(msg)
        return 0

    def range_pop(self) -> int:
        """Close the innermost range."""
        self._nvtx("range_pop").RangePop()
        return 0

    def mark(self, msg: str) -> None:
        """An instantaneous marker."""
        self._nvtx("mark").Mark(msg)

    def range(self, msg: str, *args: Any, **kwargs: Any) -> Any:
        """Context manager (and decorator) for a range named ``msg.format(*args, **kwargs)``."""
        import contextlib

        @contextlib.contextmanager
        def scope() -> Any:
            self.range_push(msg.format(*args, **kwargs))
            try:
                yield
            finally:
                self.range_pop()

        return scope()


nvtx = _Nvtx()


def __getattr__(name: str) -> Any:
    if name == "default_generators":
        return _default_generators()
    if name.startswith("__"):
        raise AttributeError(name)
    ns = _backend()
    if ns is None:
        raise AttributeError(
            f"tensorcore.cuda.{name} needs the CUDA backend: {manager.install_hint('cuda')}"
        )
    return getattr(ns, name)
