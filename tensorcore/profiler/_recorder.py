"""What a running profiler records: a range per operator call and per :class:`record_function`
block, with its CPU time, nesting, input shapes, output bytes and Python stack as asked.

Recording is switched on by swapping the operators' entry points for recording wrappers
(:mod:`tensorcore.ops._intercept`) and switched off by swapping them back, so that an
operator call costs nothing extra while no profiler records. One recorder records at a time.
"""

from __future__ import annotations

import os
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..ops import _intercept

__all__ = ["OP_PREFIX", "Range", "Recorder", "active", "record_function"]

#: Operator ranges are named ``tensorcore::<operator>``: tensorcore's own operator names
#: (PyTorch's ``aten::add`` is ``tensorcore::add``; an in-place variant ends in ``_``).
OP_PREFIX = "tensorcore::"
#: tensorcore's own frames are left out of the recorded stacks.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class Range:
    """One recorded range (an operator call or a ``record_function`` block)."""

    __slots__ = (
        "children_ns",
        "depth",
        "end",
        "kind",
        "memory",
        "name",
        "parent",
        "shapes",
        "stack",
        "start",
        "thread",
    )

    def __init__(self, name: str, kind: str, thread: int, depth: int, parent: Range | None):
        self.name, self.kind, self.thread, self.depth, self.parent = (
            name,
            kind,
            thread,
            depth,
            parent,
        )
        self.start = self.end = 0
        self.children_ns = 0
        self.shapes: list[Any] = []
        self.memory = 0
        self.stack: list[str] = []


def _shape_of(a: Any) -> Any:
    if isinstance(a, Tensor):
        return list(a.shape)
    if isinstance(a, (list, tuple)) and a and all(isinstance(x, Tensor) for x in a):
        return [list(x.shape) for x in a]
    return []


def _nbytes(r: Any) -> int:
    if isinstance(r, Tensor):
        return int(r.numel() * r.element_size())
    if isinstance(r, (list, tuple)):
        return sum(_nbytes(x) for x in r)
    return 0


class Recorder:
    """Records ranges while installed; ``ranges`` holds the finished ones, in end order."""

    def __init__(self, record_shapes: bool, profile_memory: bool, with_stack: bool) -> None:
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.ranges: list[Range] = []
        self._local = threading.local()
        self._restore: Callable[[], None] | None = None
        self.origin = time.perf_counter_ns()

    # ---------------------------------------------------------------- ranges
    def _stack(self) -> list[Range]:
        st = getattr(self._local, "stack", None)
        if st is None:
            st = self._local.stack = []
        return st

    def open(self, name: str, kind: str, args: Any = ()) -> Range:
        st = self._stack()
        parent = st[-1] if st else None
        r = Range(name, kind, threading.get_ident(), len(st), parent)
        if self.record_shapes:
            r.shapes = [_shape_of(a) for a in args]
        if self.with_stack:
            r.stack = [
                f"{f.filename}({f.lineno}): {f.name}"
                for f in traceback.extract_stack()[:-3]
                if not f.filename.startswith(_PACKAGE)
            ][::-1]
        st.append(r)
        r.start = time.perf_counter_ns()
        return r

    def close(self, r: Range, result: Any = None) -> None:
        r.end = time.perf_counter_ns()
        st = self._stack()
        if st and st[-1] is r:
            st.pop()
        elif r in st:  # (a block left out of order: close what it opened inside)
            del st[st.index(r) :]
        if r.parent is not None:
            r.parent.children_ns += r.end - r.start
        if self.profile_memory:
            r.memory = _nbytes(result)
        self.ranges.append(r)

    def drop(self, r: Range) -> None:
        st = self._stack()
        if st and st[-1] is r:
            st.pop()

    # ---------------------------------------------------------------- the wrappers
    def _wrap_call(self, call: Callable[..., Any]) -> Callable[..., Any]:
        def recorded_call(op: Any, args: tuple[Any, ...], out: Any = None) -> Any:
            r = self.open(OP_PREFIX + op.name, "cpu_op", args)
            result = None
            try:
                result = call(op, args, out)
                return result
            finally:
                self.close(r, result)

        return recorded_call

    def _wrap_call_inplace(self, call: Callable[..., Any]) -> Callable[..., Any]:
        def recorded_call_inplace(op: Any, args: tuple[Any, ...]) -> Any:
            name = op.name if op.name.endswith("_") else op.name + "_"
            r = self.open(OP_PREFIX + name, "cpu_op", args)
            try:
                return call(op, args)
            finally:
                self.close(r)

        return recorded_call_inplace

    def _wrap_lane(self, name: str, lane: Callable[..., Any]) -> Callable[..., Any]:
        full = OP_PREFIX + name

        def recorded_lane(*args: Any) -> Any:
            r = self.open(full, "cpu_op", args)
            try:
                result = lane(*args)
            except BaseException:
                self.close(r)
                raise
            if result is None:  # not taken: the call path runs (and records) it
                self.drop(r)
            else:
                self.close(r, result if not name.endswith("_") else None)
            return result

        return recorded_lane

    # ---------------------------------------------------------------- on and off
    def install(self) -> None:
        global _active
        if _active is not None:
            raise RuntimeError(
                "Profiler is already enabled: one tensorcore profiler records at a time"
            )
        self._restore = _intercept.install(
            self._wrap_call, self._wrap_call_inplace, self._wrap_lane
        )
        _active = self

    def uninstall(self) -> None:
        global _active
        if self._restore is not None:
            self._restore()
            self._restore = None
        if _active is self:
            _active = None


_active: Recorder | None = None


def active() -> Recorder | None:
    """The recorder that records now, if any."""
    return _active


class record_function:
    """Label a block of code (or every call of a function, as a decorator) in the profile.

    As PyTorch's ``torch.profiler.record_function``: within a running :class:`profile`, the
    block becomes a range named ``name`` (a "user annotation" in the trace) around the
    operators it calls; otherwise it does nothing.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.profiler import profile, record_function
    >>> with profile() as prof:
    ...     with record_function("forward"):
    ...         y = tc.ones(3).mul(2).sum()
    >>> [e.key for e in prof.key_averages()][:1]
    ['forward']
    >>> @record_function("step")
    ... def step(x):
    ...     return x + 1
    >>> step(tc.zeros(1))
    tensor([1.])
    """

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._range: Range | None = None
        self._recorder: Recorder | None = None

    def __enter__(self) -> record_function:
        rec = _active
        if rec is not None:
            self._recorder = rec
            self._range = rec.open(self.name, "user_annotation")
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._range is not None and self._recorder is not None:
            self._recorder.close(self._range)
        self._range = self._recorder = None

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        import functools

        name = self.name

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with record_function(name):
                return fn(*args, **kwargs)

        return wrapper
