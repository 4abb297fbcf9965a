"""Helpers shared by the array-module kernels (NumPy here, CuPy in tensorcore-cuda)."""

from __future__ import annotations

import contextlib
import functools
from typing import Any

from tensorcore import Tensor

__all__ = [
    "acc_dtype",
    "array_of",
    "errstate",
    "is_tensor",
    "quiet_tokens",
    "scalar_arrays",
    "shares_storage",
]


def errstate(xp: Any) -> Any:
    """``xp.errstate`` where the array module has one (NumPy); a no-op otherwise (CuPy,
    whose kernels never warn)."""
    fn = getattr(xp, "errstate", None)
    if fn is not None:
        return fn
    return lambda **kwargs: contextlib.nullcontext()


def array_of(t: Any) -> Any:
    """The native array of a tensor (made lazily, never a copy); other values pass through."""
    if isinstance(t, Tensor):
        n = t._native
        if n is None:
            n = t._arr()
        return n
    return t


def acc_dtype(xp: Any, d: Any) -> Any:
    """The array dtype to compute in for results of array dtype ``d``: float32 for 16-bit
    floats (as PyTorch accumulates them on the CPU), ``d`` itself otherwise."""
    return xp.float32 if d.itemsize == 2 and d.kind in "fV" else d


def shares_storage(out: Tensor, *inputs: Any) -> bool:
    """Whether ``out`` writes into the storage of one of ``inputs`` (tensors or scalars): a
    kernel that writes ``out`` in several passes must then work in a temporary."""
    st = out._storage
    return any(getattr(x, "_storage", None) is st for x in inputs)


def is_tensor(x: Any) -> bool:
    """Whether ``x`` is a tensorcore Tensor."""
    return isinstance(x, Tensor)


def quiet_tokens(xp: Any) -> tuple[Any, Any]:
    """``(enter, leave)``: ``tok = enter()`` silences floating-point warnings until
    ``leave(tok)``, at a fraction of ``errstate``'s cost (the hot elementwise kernels use it:
    PyTorch never warns on ``inf * 0``). A no-op pair for array modules without warnings."""
    fn = getattr(xp, "errstate", None)
    if fn is None:
        return (lambda: None), (lambda tok: None)
    try:
        from numpy._core import _ufunc_config

        var = _ufunc_config._extobj_contextvar  # type: ignore[attr-defined]
        with fn(all="ignore"):
            ignore = var.get()
        # Both halves are C callables: no Python frame on the hot elementwise path.
        return functools.partial(var.set, ignore), var.reset
    except (ImportError, AttributeError):  # another NumPy layout: the public, slower way

        def enter() -> Any:
            cm = fn(all="ignore")
            cm.__enter__()
            return cm

        return enter, (lambda cm: cm.__exit__(None, None, None))


def scalar_arrays(xp: Any) -> tuple[dict[tuple[float, Any], Any], Any]:
    """``(cache, lift)`` for Python floats meeting floating arrays in a ufunc: NumPy 2 spends
    as long converting a Python scalar (a weak type) as computing 8 elements, a read-only
    0-d array costs nothing and gives the same result. A kernel reads
    ``cache.get((value, dtype))`` and calls ``lift(value, dtype)`` on a miss, ``dtype`` being
    the result's array dtype.

    The array has the dtype's compute precision (:func:`acc_dtype`: float32 for the 16-bit
    floats), so that a scalar the core kept in float32 for a 16-bit operation (PyTorch's
    ``opmath`` scalars of ``mul`` and ``div``) is not rounded again; the core converts every
    other scalar meeting a 16-bit tensor to a value that dtype holds exactly
    (``tensorcore/_scalars.py``), so computing with it in float32 and rounding once gives the
    16-bit operation's result. Other array modules (CuPy passes scalars to its kernels as
    parameters) get the value itself, typed as float32 for the 16-bit floats."""
    cache: dict[tuple[float, Any], Any] = {}
    if getattr(xp, "errstate", None) is None:

        def typed(v: float, dtype: Any) -> Any:
            return xp.float32(v) if dtype.itemsize == 2 and dtype.kind in "fV" else v

        return cache, typed

    def lift(v: float, dtype: Any) -> Any:
        if v == 0.0 or v != v:
            return v  # 0.0 and -0.0 would share an entry; nan is never found again
        if len(cache) >= 256:
            cache.clear()
        r = v
        if dtype.kind in "fV":
            with xp.errstate(all="ignore"):  # 1e300 into float32 is inf, as the cast makes it
                r = xp.array(v, acc_dtype(xp, dtype))
            r.flags.writeable = False
        cache[v, dtype] = r
        return r

    return cache, lift
