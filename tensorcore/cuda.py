"""``tensorcore.cuda``: always importable, as PyTorch's ``torch.cuda``.

Without a CUDA backend, ``is_available()`` is False and ``device_count()`` is 0, so that
``device = "cuda" if tc.cuda.is_available() else "cpu"`` works on any machine. With the
``tensorcore-cuda`` backend installed, every name comes from the namespace it registers
(``register.attribute("cuda", ...)``): streams, memory statistics, ``synchronize``...

Examples
--------
>>> import tensorcore as tc
>>> isinstance(tc.cuda.is_available(), bool)
True
"""

from __future__ import annotations

from typing import Any

from .plugins import manager

__all__ = ["device_count", "is_available", "manual_seed", "manual_seed_all", "synchronize"]

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


def manual_seed(seed: int) -> None:
    """Seed the CUDA generator (a no-op without a CUDA backend, as in PyTorch)."""
    ns = _backend()
    if ns is not None and ns.is_available():
        ns.manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """Seed every CUDA device's generator (a no-op without a CUDA backend)."""
    manual_seed(seed)


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
