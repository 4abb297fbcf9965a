"""The dense kernels, written once against an array module (``xp``).

``build(xp)`` returns ``{operator name: kernel}``; the CPU plugin calls it with NumPy, and the
CUDA plugin can call it with CuPy where the two agree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["build"]


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """Every dense kernel for the array module ``xp``."""
    from . import pointwise

    kernels: dict[str, Callable[..., Any]] = {}
    modules = [pointwise]
    for optional in (
        "reductions",
        "special",
        "linalg",
        "shape",
        "indexing",
        "search",
        "creation",
        "losses",
        "nn",
        "optim",
        "spectral",
    ):
        try:
            modules.append(__import__(f"{__name__}.{optional}", fromlist=["build"]))
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{optional}":
                raise
    for mod in modules:
        for name, fn in mod.build(xp).items():
            if name in kernels:
                raise RuntimeError(f"kernel {name} is defined twice ({mod.__name__})")
            kernels[name] = fn
    return kernels
