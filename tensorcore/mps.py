"""``tensorcore.mps``: PyTorch's namespace for Apple GPUs, which tensorcore has no backend for.

It behaves as ``torch.mps`` does in a PyTorch build without MPS: ``is_available()`` is False,
``device_count()`` is 0, ``manual_seed(s)`` does nothing, and the functions that need the
device (``synchronize``, ``empty_cache``, the memory queries, the generator's state) raise
PyTorch's ``RuntimeError``, so that ``"mps" if tc.mps.is_available() else "cpu"`` programs run
unchanged (``tc.backends.mps`` answers the same).

Examples
--------
>>> import tensorcore as tc
>>> tc.mps.is_available(), tc.mps.device_count()
(False, 0)
"""

from __future__ import annotations

from typing import Any, NoReturn

__all__ = [
    "current_allocated_memory",
    "device_count",
    "driver_allocated_memory",
    "empty_cache",
    "get_rng_state",
    "is_available",
    "manual_seed",
    "recommended_max_memory",
    "seed",
    "set_per_process_memory_fraction",
    "set_rng_state",
    "synchronize",
]


def _unavailable(what: str) -> NoReturn:
    raise RuntimeError(f"Cannot execute {what}() without MPS backend.")


def is_available() -> bool:
    """Whether an MPS device can be used: never (tensorcore has no MPS backend)."""
    return False


def device_count() -> int:
    """The number of MPS devices: 0."""
    return 0


def manual_seed(seed: int) -> None:
    """Seed the MPS generator: a no-op without an MPS device, as in PyTorch."""
    int(seed)


def seed() -> NoReturn:
    """Seed the MPS generator randomly: raises ``RuntimeError`` without an MPS device."""
    _unavailable("getDefaultGenerator")


def get_rng_state(device: Any = "mps") -> NoReturn:
    """The MPS generator's state: raises ``RuntimeError`` without an MPS device."""
    _unavailable("getDefaultGenerator")


def set_rng_state(new_state: Any, device: Any = "mps") -> NoReturn:
    """Set the MPS generator's state: raises ``RuntimeError`` without an MPS device."""
    _unavailable("getDefaultGenerator")


def synchronize() -> NoReturn:
    """Wait for the MPS device: raises ``RuntimeError`` without one.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.mps.synchronize()
    Traceback (most recent call last):
    ...
    RuntimeError: Cannot execute deviceSynchronize() without MPS backend.
    """
    _unavailable("deviceSynchronize")


def empty_cache() -> NoReturn:
    """Release the MPS allocator's cache: raises ``RuntimeError`` without an MPS device."""
    _unavailable("emptyCache")


def set_per_process_memory_fraction(fraction: float) -> NoReturn:
    """Limit the MPS memory this process may use: raises without an MPS device."""
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    _unavailable("setMemoryFraction")


def current_allocated_memory() -> NoReturn:
    """Bytes held by tensors on the MPS device: raises ``RuntimeError`` without one."""
    _unavailable("getCurrentAllocatedMemory")


def driver_allocated_memory() -> NoReturn:
    """Bytes the Metal driver holds for this process: raises ``RuntimeError`` without one."""
    _unavailable("getDriverAllocatedMemory")


def recommended_max_memory() -> NoReturn:
    """The Metal driver's recommended working-set size: raises ``RuntimeError`` without one."""
    _unavailable("getRecommendedMaxMemory")
