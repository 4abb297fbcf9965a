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


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    ns = _backend()
    if ns is None:
        raise AttributeError(
            f"tensorcore.cuda.{name} needs the CUDA backend: {manager.install_hint('cuda')}"
        )
    return getattr(ns, name)
