"""Helpers shared by the array-module kernels (NumPy here, CuPy in tensorcore-cuda)."""

from __future__ import annotations

import contextlib
from typing import Any

from tensorcore import Tensor

__all__ = ["A", "errstate", "is_tensor"]


def errstate(xp: Any) -> Any:
    """``xp.errstate`` where the array module has one (NumPy); a no-op otherwise (CuPy,
    whose kernels never warn)."""
    fn = getattr(xp, "errstate", None)
    if fn is not None:
        return fn
    return lambda **kwargs: contextlib.nullcontext()


def A(t: Any) -> Any:
    """The native array of a tensor (made lazily, never a copy); other values pass through."""
    if t.__class__ is Tensor:
        n = t._native
        if n is None:
            n = t._arr()
        return n
    return t


def is_tensor(x: Any) -> bool:
    """Whether ``x`` is a tensorcore Tensor."""
    return x.__class__ is Tensor
