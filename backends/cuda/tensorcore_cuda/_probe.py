"""Find out, without raising, whether CuPy and a CUDA device can be used here."""

from __future__ import annotations

from typing import Any

__all__ = ["probe"]


def probe() -> tuple[Any, str | None]:
    """``(cupy module, None)`` when a GPU is usable, else ``(module or None, reason)``."""
    try:
        import cupy
    except Exception as exc:  # noqa: BLE001 - any import failure means "unavailable"
        return None, (
            f"CuPy is not importable ({type(exc).__name__}: {exc}); install it with "
            "pip install 'tensorcore-cuda[cuda12]' (or [cuda13], matching your driver)"
        )
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001
        return cupy, f"no usable CUDA driver or device ({type(exc).__name__}: {exc})"
    if count == 0:
        return cupy, "no CUDA device found"
    return cupy, None
