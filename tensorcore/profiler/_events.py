"""The profiler's results, as PyTorch's ``torch.autograd.profiler_util``: :class:`FunctionEvent`
(one range), :class:`FunctionEventAvg` (ranges grouped by name, and by input shapes if asked),
and :class:`EventList` with ``table()``, ``key_averages()`` and ``export_chrome_trace()``.

Times are in microseconds (floats), as PyTorch's. tensorcore measures CPU time only: the
device columns are zero (a CUDA operator's CPU time is the time to launch it).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "format_memory", "format_time"]


def format_time(us: float) -> str:
    """A time in microseconds as PyTorch's tables print it (``1.234ms``)."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def format_memory(nbytes: int) -> str:
    """A number of bytes as PyTorch's tables print it (``29.30 KB``)."""
    kb, mb, gb = 1024, 1024**2, 1024**3
    if abs(nbytes) >= gb:
        return f"{nbytes / gb:.2f} GB"
    if abs(nbytes) >= mb:
        return f"{nbytes / mb:.2f} MB"
    if abs(nbytes) >= kb:
        return f"{nbytes / kb:.2f} KB"
    return f"{nbytes} B"


class _Stats:
    key: str
    count: int
    cpu_time_total: float
    self_cpu_time_total: float
    cpu_memory_usage: int
    self_cpu_memory_usage: int
    input_shapes: Any

    @property
    def cpu_time(self) -> float:
        """Average CPU time per call, in microseconds."""
        return self.cpu_time_total / self.count if self.count else 0.0

    # tensorcore records no device time: PyTorch's device columns, for programs that sort or
    # read them
    device_time_total = self_device_time_total = cuda_time_total = self_cuda_time_total = 0.0
    device_time = cuda_time = 0.0
    device_memory_usage = self_device_memory_usage = cuda_memory_usage = 0
    self_cuda_memory_usage = 0
    flops = 0


class FunctionEvent(_Stats):
    """One recorded range: an operator call (``tensorcore::add``) or a ``record_function``
    block, with its CPU times (microseconds), input shapes and stack if recorded."""

    def __init__(
        self,
        id: int,
        name: str,
        thread: int,
        start_us: float,
        end_us: float,
        self_us: float,
        input_shapes: Any = None,
        stack: list[str] | None = None,
        memory: int = 0,
        self_memory: int = 0,
        is_user_annotation: bool = False,
        depth: int = 0,
    ) -> None:
        self.id = id
        self.name = self.key = name
        self.thread = thread
        self.time_range = _Interval(start_us, end_us)
        self.cpu_time_total = end_us - start_us
        self.self_cpu_time_total = self_us
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack or []
        self.cpu_memory_usage = memory
        self.self_cpu_memory_usage = self_memory
        self.is_user_annotation = is_user_annotation
        self.count = 1
        self.depth = depth

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent id={self.id} name={self.name} "
            f"cpu_time={format_time(self.cpu_time_total)} thread={self.thread} "
            f"input_shapes={self.input_shapes}>"
        )


class _Interval:
    __slots__ = ("end", "start")

    def __init__(self, start: float, end: float) -> None:
        self.start, self.end = start, end

    def elapsed_us(self) -> float:
        return self.end - self.start


class FunctionEventAvg(_Stats):
    """The ranges of one name (and input shapes, when grouped by them) added up: ``count``,
    ``cpu_time_total``, ``self_cpu_time_total`` and ``cpu_time`` (the average)."""

    def __init__(self, key: str = "", input_shapes: Any = None) -> None:
        self.key = key
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack: list[str] = []
        self.is_user_annotation = False

    def add(self, e: _Stats) -> FunctionEventAvg:
        if not self.key:
            self.key = e.key
            self.input_shapes = e.input_shapes
            self.is_user_annotation = getattr(e, "is_user_annotation", False)
            self.stack = getattr(e, "stack", [])
        self.count += e.count
        self.cpu_time_total += e.cpu_time_total
        self.self_cpu_time_total += e.self_cpu_time_total
        self.cpu_memory_usage += e.cpu_memory_usage
        self.self_cpu_memory_usage += e.self_cpu_memory_usage
        return self

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} "
            f"self_cpu_time={format_time(self.self_cpu_time_total)} "
            f"cpu_time={format_time(self.cpu_time)} input_shapes={self.input_shapes}>"
        )


class EventList(list[Any]):
    """A list of :class:`FunctionEvent` (or of averages) that prints as PyTorch's table."""

    def __init__(
        self,
        events: Iterable[Any] = (),
        *,
        profile_memory: bool = False,
        with_shapes: bool = False,
        with_stacks: bool = False,
    ) -> None:
        super().__init__(events)
        self._profile_memory = profile_memory
        self._with_shapes = with_shapes
        self._with_stacks = with_stacks

    @property
    def self_cpu_time_total(self) -> float:
        """The CPU time of all ranges, each counted once (the sum of self times)."""
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(
        self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0
    ) -> EventList:
        """The events grouped by name (and input shapes, and the top ``group_by_stack_n``
        frames of their stacks), each group a :class:`FunctionEventAvg`, in first-seen order."""
        groups: dict[Any, FunctionEventAvg] = {}
        for e in self:
            key: Any = e.key
            if group_by_input_shapes:
                key = (key, str(e.input_shapes))
            if group_by_stack_n > 0:
                key = (key, tuple(e.stack[:group_by_stack_n]))
            avg = groups.get(key)
            if avg is None:
                avg = groups[key] = FunctionEventAvg()
            avg.add(e)
        return EventList(
            groups.values(),
            profile_memory=self._profile_memory,
            with_shapes=group_by_input_shapes,
            with_stacks=group_by_stack_n > 0,
        )

    def total_average(self) -> FunctionEventAvg:
        """All events added up into one :class:`FunctionEventAvg` (key ``Total``)."""
        total = FunctionEventAvg("Total")
        for e in self:
            total.count += e.count
            total.cpu_time_total += e.cpu_time_total
            total.self_cpu_time_total += e.self_cpu_time_total
        return total

    def table(
        self,
        sort_by: str | None = None,
        row_limit: int = 100,
        max_src_column_width: int = 75,
        max_name_column_width: int = 55,
        max_shapes_column_width: int = 80,
        header: str | None = None,
        top_level_events_only: bool = False,
        time_unit: str | None = None,
    ) -> str:
        """PyTorch's table: ``Name``, ``Self CPU %``, ``Self CPU``, ``CPU total %``,
        ``CPU total``, ``CPU time avg`` (``CPU Mem`` and ``Self CPU Mem`` with
        ``profile_memory``), ``# of Calls``, ``Input Shapes`` (when grouped by them) and
        ``Source Location`` (with stacks), sorted by the attribute ``sort_by`` (descending),
        ``row_limit`` rows; then the self CPU time of all events."""
        return _table(
            self,
            sort_by,
            row_limit,
            max_name_column_width,
            max_shapes_column_width,
            max_src_column_width,
            header,
            top_level_events_only,
        )

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str | os.PathLike[str]) -> None:
        """Write the events as a Chrome trace (JSON, ``chrome://tracing`` or Perfetto opens
        it; gzip-compressed when ``path`` ends in ``.gz``)."""
        write_chrome_trace(list(self), path)


def _table(
    events: EventList,
    sort_by: str | None,
    row_limit: int,
    max_name: int,
    max_shapes: int,
    max_src: int,
    header: str | None,
    top_level_only: bool,
) -> str:
    rows = list(events)
    if top_level_only:
        rows = [e for e in rows if getattr(e, "depth", 0) == 0]
    if sort_by is not None:
        attr = sort_by
        rows.sort(key=lambda e: getattr(e, attr), reverse=True)
    if row_limit is not None and row_limit > 0:
        rows = rows[:row_limit]
    memory = events._profile_memory
    shapes, stacks = events._with_shapes, events._with_stacks
    name_w = min(max((len(e.key) for e in events), default=4) + 4, max_name)
    cols: list[tuple[str, int]] = [("Name", name_w)]
    cols += [(h, 12) for h in ("Self CPU %", "Self CPU", "CPU total %", "CPU total")]
    cols.append(("CPU time avg", 12))
    if memory:
        cols += [("CPU Mem", 12), ("Self CPU Mem", 12)]
    cols.append(("# of Calls", 12))
    if shapes:
        shapes_w = min(max((len(str(e.input_shapes)) for e in events), default=8) + 4, max_shapes)
        cols.append(("Input Shapes", shapes_w))
    if stacks:
        src_w = min(max((len(s) for e in events for s in e.stack[:1]), default=15) + 4, max_src)
        cols.append(("Source Location", src_w))
    total = sum(e.self_cpu_time_total for e in events) or 1.0

    def line(cells: list[str]) -> str:
        return "".join(f"{c[:w]:>{w}}  " for c, (_, w) in zip(cells, cols, strict=True))

    sep = "".join("-" * w + "  " for _, w in cols)
    out = []
    if header is not None:
        out += ["=" * len(sep), header]
    out += [sep, line([h for h, _ in cols]), sep]
    for e in rows:
        name = e.key if len(e.key) <= name_w - 4 else e.key[: name_w - 7] + "..."
        cells = [
            name,
            f"{e.self_cpu_time_total / total * 100:.2f}%",
            format_time(e.self_cpu_time_total),
            f"{e.cpu_time_total / total * 100:.2f}%",
            format_time(e.cpu_time_total),
            format_time(e.cpu_time),
        ]
        if memory:
            cells += [format_memory(e.cpu_memory_usage), format_memory(e.self_cpu_memory_usage)]
        cells.append(str(e.count))
        if shapes:
            cells.append(str(e.input_shapes))
        if stacks:
            cells.append(e.stack[0] if e.stack else "")
        out.append(line(cells))
    out.append(sep)
    out.append(f"Self CPU time total: {format_time(events.self_cpu_time_total)}")
    return "\n".join(out) + "\n"


def write_chrome_trace(events: list[FunctionEvent], path: str | os.PathLike[str]) -> None:
    """Write ``events`` in the Chrome trace event format ("X" complete events)."""
    pid = os.getpid()
    trace = []
    for e in events:
        ev: dict[str, Any] = {
            "ph": "X",
            "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
            "name": e.name,
            "pid": pid,
            "tid": e.thread,
            "ts": e.time_range.start,
            "dur": e.time_range.elapsed_us(),
            "args": {},
        }
        if e.input_shapes:
            ev["args"]["Input Dims"] = e.input_shapes
        if e.stack:
            ev["args"]["Call stack"] = ";".join(e.stack)
        trace.append(ev)
    doc = {"schemaVersion": 1, "traceEvents": trace, "displayTimeUnit": "ms"}
    data = json.dumps(doc).encode()
    if os.fspath(path).endswith(".gz"):
        import gzip

        data = gzip.compress(data)
    with open(path, "wb") as fh:
        fh.write(data)
