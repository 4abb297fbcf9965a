"""``tensorcore.profiler``: PyTorch's ``torch.profiler`` for tensorcore programs.

:class:`profile` records every tensorcore operator call (named ``tensorcore::<operator>``:
``tensorcore::add``, ``tensorcore::mm``, ``tensorcore::add_`` for ``add_``; PyTorch names
them ``aten::add``) and every :class:`record_function` block, with CPU time, call counts and,
as asked, input shapes (``record_shapes``), the bytes of each operator's outputs
(``profile_memory``) and the Python stack (``with_stack``). ``key_averages().table()``
prints PyTorch's table; :meth:`profile.export_chrome_trace` and
:func:`tensorboard_trace_handler` write Chrome traces; a :func:`schedule` with
:meth:`profile.step` records chosen steps of a training loop, as in PyTorch.

tensorcore measures CPU (host) time only, whatever ``activities`` says: a CUDA operator's
time is the time to launch it (device columns read zero). Operator calls cost nothing extra
while no profiler records: recording swaps the operators' entry points for recording ones
and swaps them back when it stops.

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.profiler import ProfilerActivity, profile, record_function
>>> x = tc.ones(8, 8)
>>> with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
...     with record_function("model_inference"):
...         y = (x @ x).relu()
>>> sorted(e.key for e in prof.key_averages())
['model_inference', 'tensorcore::matmul', 'tensorcore::relu']
>>> print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=1))  # doctest: +SKIP
"""

from __future__ import annotations

import enum
import os
import socket
import time
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ._events import EventList, FunctionEvent, FunctionEventAvg
from ._recorder import OP_PREFIX, Recorder, record_function

__all__ = [
    "OP_PREFIX",
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "ProfilerAction",
    "ProfilerActivity",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]


class ProfilerActivity(enum.Enum):
    """What to profile, as PyTorch's: tensorcore records CPU time for any of them."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


def supported_activities() -> set[ProfilerActivity]:
    """The activities :class:`profile` takes (it measures CPU time for each)."""
    return {ProfilerActivity.CPU, ProfilerActivity.CUDA}


class ProfilerAction(enum.Enum):
    """What the profiler does at a step, as a :func:`schedule` returns it."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(
    *, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
    skip_first_wait: int = 0,
) -> Callable[[int], ProfilerAction]:  # fmt: skip
    """PyTorch's profiling schedule: skip ``skip_first`` steps, then cycles of ``wait`` idle
    steps, ``warmup`` steps and ``active`` recorded steps (the last of which saves: the
    profiler calls ``on_trace_ready``), ``repeat`` cycles (0: until the loop ends).
    ``skip_first_wait`` skips the first cycle's wait.

    Examples
    --------
    >>> from tensorcore.profiler import schedule
    >>> s = schedule(wait=1, warmup=1, active=2, repeat=1)
    >>> [s(i).name for i in range(5)]
    ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError("step must be non-negative")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        at = step % cycle
        if at < wait:
            return ProfilerAction.NONE
        if at < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _always(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(
    dir_name: str, worker_name: str | None = None, use_gzip: bool = False
) -> Callable[[profile], None]:
    """An ``on_trace_ready`` handler that writes each saved trace to ``dir_name`` as
    ``{worker_name}.{time in ms}.pt.trace.json`` (``.gz`` with ``use_gzip``): a Chrome trace,
    which TensorBoard's profiler plugin, Perfetto and ``chrome://tracing`` open.
    ``worker_name`` defaults to ``{hostname}_{pid}``."""

    def handler(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        ext = ".pt.trace.json.gz" if use_gzip else ".pt.trace.json"
        stamp = time.time_ns() // 1_000_000
        # (two cycles within one millisecond would share a name: the later one moves on)
        while os.path.exists(os.path.join(dir_name, f"{name}.{stamp}{ext}")):
            stamp += 1
        prof.export_chrome_trace(os.path.join(dir_name, f"{name}.{stamp}{ext}"))

    return handler


class profile:
    """Profile the tensorcore operators a block of code runs, as PyTorch's
    ``torch.profiler.profile``: a context manager (or :meth:`start` and :meth:`stop`).

    Without ``schedule`` it records from start to stop; with one, :meth:`step` (called once
    per iteration of the loop) moves through the schedule, and when a cycle's last active
    step ends the profiler calls ``on_trace_ready(prof)``, where ``prof.key_averages()`` and
    ``prof.export_chrome_trace()`` give that cycle's events. ``activities``, ``with_flops``,
    ``with_modules`` and PyTorch's other options are accepted; tensorcore records CPU time
    (see the module's notes).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.profiler import profile, schedule
    >>> seen = []
    >>> sched = schedule(wait=1, warmup=1, active=2)
    >>> with profile(schedule=sched, on_trace_ready=lambda p: seen.append(p.step_num)) as p:
    ...     for _ in range(4):
    ...         _ = tc.ones(2) + 1
    ...         p.step()
    >>> seen
    [4]
    """

    def __init__(
        self,
        *,
        activities: Iterable[ProfilerActivity] | None = None,
        schedule: Callable[[int], ProfilerAction] | None = None,
        on_trace_ready: Callable[[profile], Any] | None = None,
        record_shapes: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_flops: bool = False,
        with_modules: bool = False,
        experimental_config: Any = None,
        execution_trace_observer: Any = None,
        acc_events: bool = False,
        use_cuda: bool | None = None,
        custom_trace_id_callback: Any = None,
    ) -> None:
        self.activities = set(activities) if activities is not None else supported_activities()
        for a in self.activities:
            if not isinstance(a, ProfilerActivity):
                raise TypeError(f"profile(): activities must be ProfilerActivity values, got {a!r}")
        self.schedule = schedule if schedule is not None else _always
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._recorder: Recorder | None = None
        self._step_range: record_function | None = None
        self._events: EventList | None = None
        self._accumulated: list[FunctionEvent] = []

    # ---------------------------------------------------------------- lifecycle
    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def start(self) -> None:
        """Start profiling (at step 0 of the schedule)."""
        self._enter(self.current_action)

    def stop(self) -> None:
        """Stop profiling; a cycle still recording is finished (``on_trace_ready`` runs)."""
        if self._recorder is not None:
            self._finish(save=self.current_action in _RECORDING)
        self.current_action = ProfilerAction.NONE

    def step(self) -> None:
        """Mark the end of a training step: move to the schedule's next action."""
        prev = self.current_action
        self.step_num += 1
        now = self.current_action = self.schedule(self.step_num)
        if prev is ProfilerAction.RECORD_AND_SAVE or (
            prev is not ProfilerAction.NONE and now is ProfilerAction.NONE
        ):
            self._finish(save=prev is ProfilerAction.RECORD_AND_SAVE)
        if self._recorder is None:
            self._enter(now)
        elif now in _RECORDING:
            self._open_step()

    def _enter(self, action: ProfilerAction) -> None:
        if action is ProfilerAction.NONE:
            return
        self._recorder = Recorder(self.record_shapes, self.profile_memory, self.with_stack)
        self._recorder.install()
        self._warm = action is ProfilerAction.WARMUP
        if not self._warm:
            self._open_step()

    def _open_step(self) -> None:
        if self._warm and self._recorder is not None:  # warmup is over: start afresh
            self._recorder.ranges.clear()
            self._warm = False
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
        if self.schedule is not _always:
            self._step_range = record_function(f"ProfilerStep#{self.step_num}")
            self._step_range.__enter__()

    def _finish(self, save: bool) -> None:
        rec = self._recorder
        if rec is None:
            return
        if self._step_range is not None:
            self._step_range.__exit__(None, None, None)
            self._step_range = None
        rec.uninstall()
        self._recorder = None
        if save and not self._warm:
            events = _to_events(rec)
            if self.acc_events:
                self._accumulated += events
                events = list(self._accumulated)
            self._events = EventList(events, profile_memory=self.profile_memory)
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)

    # ---------------------------------------------------------------- results
    def events(self) -> EventList:
        """The recorded ranges (of the last saved cycle), as :class:`FunctionEvent`."""
        if self._events is None:
            raise AssertionError("Profiler must be initialized before getting the events")
        return self._events

    def key_averages(
        self,
        group_by_input_shape: bool = False,
        group_by_stack_n: int = 0,
        group_by_overload_name: bool = False,
    ) -> EventList:
        """The events grouped by name (and by input shapes: ``record_shapes`` must be on),
        as :class:`FunctionEventAvg`; ``.table()`` prints them."""
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str | os.PathLike[str]) -> None:
        """Write the events as a Chrome trace (JSON; gzip for a ``.gz`` path)."""
        self.events().export_chrome_trace(path)

    def export_stacks(self, path: str, metric: str = "self_cpu_time_total") -> None:
        """Write one line per recorded stack, ``frame;frame;... value`` (flame-graph
        input), as PyTorch's: needs ``with_stack=True``."""
        with open(path, "w") as fh:
            for e in self.events():
                if e.stack:
                    fh.write(f"{';'.join(reversed(e.stack))} {int(getattr(e, metric))}\n")


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


def _to_events(rec: Recorder) -> list[FunctionEvent]:
    out = []
    # (ranges are stored as they end: order them by start, as PyTorch lists events)
    ranges = sorted(rec.ranges, key=lambda r: r.start)
    ids = {id(r): i for i, r in enumerate(ranges)}
    child_mem: dict[int, int] = {}
    for r in ranges:
        if r.parent is not None and id(r.parent) in ids:
            child_mem[id(r.parent)] = child_mem.get(id(r.parent), 0) + r.memory
    for i, r in enumerate(ranges):
        start = (r.start - rec.origin) / 1e3
        end = (r.end - rec.origin) / 1e3
        total_mem = r.memory if r.kind == "cpu_op" else child_mem.get(id(r), 0)
        ev = FunctionEvent(
            i,
            r.name,
            r.thread,
            start,
            end,
            (r.end - r.start - r.children_ns) / 1e3,
            r.shapes,
            r.stack,
            total_mem,
            r.memory if r.kind == "cpu_op" else 0,
            r.kind == "user_annotation",
            r.depth,
        )
        ev.cpu_time_total = (r.end - r.start) / 1e3  # (from the ns, as the self time is)
        out.append(ev)
    return out
