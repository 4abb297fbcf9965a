"""Swap the operators' entry points for wrappers while a tracer runs (the profiler), and back.

The call path has no "is a profiler on?" test: an operator's compiled variants call
``_call``/``_call_inplace`` through the namespace they were compiled in
(:data:`tensorcore.ops._api.NAMESPACES`) and try their fast lane through ``op.lane`` /
``op.lane_inplace`` first. :func:`install` replaces exactly those entries (and the
``Tensor`` methods' own references to the call path) with wrappers, and the function it
returns puts the originals back. Nothing changes for a program that never profiles.

A lane returns None for a call it does not take, and the call path then runs it: a lane
wrapper must record only calls that its lane took.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import _tensor_methods, dispatch
from . import _api

__all__ = ["install"]

Wrap = Callable[[Callable[..., Any]], Callable[..., Any]]


def install(
    wrap_call: Wrap, wrap_call_inplace: Wrap, wrap_lane: Callable[[str, Callable[..., Any]], Any]
) -> Callable[[], None]:
    """Route every operator call through the wrappers: ``wrap_call(call)`` and
    ``wrap_call_inplace(call_inplace)`` replace the call path (called as ``(op, args, out)``
    and ``(op, args)``), ``wrap_lane(name, lane)`` each fast lane (``name`` is the operator's,
    with ``_`` for an in-place lane). Returns the function that restores the originals."""
    undo: list[Callable[[], None]] = []

    def swap(owner: Any, attr: str, new: Any, item: bool) -> None:
        old = owner[attr] if item else getattr(owner, attr)
        if item:
            owner[attr] = new
            undo.append(lambda: owner.__setitem__(attr, old))
        else:
            setattr(owner, attr, new)
            undo.append(lambda: setattr(owner, attr, old))

    calls: dict[int, Any] = {}  # one wrapper per original (every namespace holds the same)

    def wrapped(fn: Any, wrap: Wrap) -> Any:
        got = calls.get(id(fn))
        if got is None:
            got = calls[id(fn)] = wrap(fn)
        return got

    for ns in _api.NAMESPACES:
        swap(ns, "_call", wrapped(ns["_call"], wrap_call), True)
        swap(ns, "_call_inplace", wrapped(ns["_call_inplace"], wrap_call_inplace), True)
    if _tensor_methods._call is not None:
        swap(_tensor_methods, "_call", wrapped(_tensor_methods._call, wrap_call), False)
        inplace = _tensor_methods._call_inplace
        swap(_tensor_methods, "_call_inplace", wrapped(inplace, wrap_call_inplace), False)
    for op in dispatch.ops().values():
        if op.lane is not None:
            swap(op, "lane", wrap_lane(op.name, op.lane), False)
        if op.lane_inplace is not None:
            swap(op, "lane_inplace", wrap_lane(op.name + "_", op.lane_inplace), False)

    def restore() -> None:
        for fn in reversed(undo):
            fn()
        undo.clear()

    return restore
