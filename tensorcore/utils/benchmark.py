"""Timing Python statements as ``torch.utils.benchmark`` does: ``Timer`` (``timeit``,
``blocked_autorange``, ``adaptive_autorange``), ``Measurement`` (median, mean, IQR, warnings
about noisy runs) and ``Compare`` (a table of measurements, grouped by label).

A benchmark script written for PyTorch runs unchanged with ``import tensorcore as torch``.
The statements run in Python (C++ statements and Callgrind are not available); ``num_threads``
limits the BLAS threads while a measurement runs (``tensorcore.set_num_threads``).
"""

from __future__ import annotations

import collections
import dataclasses
import math
import timeit as _timeit
from collections.abc import Callable, Iterable
from typing import Any

from .._runtime import get_num_threads, set_num_threads

__all__ = ["Compare", "Measurement", "TaskSpec", "Timer", "select_unit"]

#: A measurement whose interquartile range exceeds this fraction of its median warns.
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25
_MIN_CONFIDENCE_INTERVAL = 25e-9  # (timer resolution: no measurement is more precise)
_MAX_SIGNIFICANT_FIGURES = 4


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """What a ``Timer`` measures: its statements, labels and thread count."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """The label and sub-label (or the statement), as a measurement's heading.

        Examples
        --------
        >>> from tensorcore.utils.benchmark import TaskSpec
        >>> TaskSpec("x + y", "pass", label="add", sub_label="(8,)").title
        'add: (8,)'
        """
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n" + "\n".join(
            "  " + line for line in self.stmt.splitlines()
        )

    def summarize(self) -> str:
        """The title, the description, the environment and the setup, one per line."""
        lines = [self.title, self.description or ""]
        if self.env:
            lines.append(f"Env: {self.env}")
        if self.setup and self.setup != "pass":
            lines.append(
                f"setup: {self.setup}"
                if "\n" not in self.setup
                else "setup:\n" + "\n".join("  " + s for s in self.setup.splitlines())
            )
        return "\n".join(line for line in lines if line)


def _quantile(sorted_values: list[float], q: float) -> float:
    """The ``q`` quantile of sorted values, interpolated linearly (PyTorch's default)."""
    pos = (len(sorted_values) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


@dataclasses.dataclass
class Measurement:
    """The times of one statement: ``raw_times`` are the times of runs of
    ``number_per_run`` executions; ``times`` are per execution.

    Examples
    --------
    >>> from tensorcore.utils.benchmark import Measurement, TaskSpec
    >>> m = Measurement(10, [1e-5, 2e-5, 3e-5, 4e-5], TaskSpec("x + 1", "x = 1"))
    >>> m.median, m.iqr
    (2.5e-06, 1.5e-06)
    >>> m.has_warnings
    True
    """

    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict[Any, Any] | None = None

    def __getattr__(self, name: str) -> Any:
        # (the task's fields read through: ``m.stmt``, ``m.label``, ``m.num_threads``)
        if name in _TASK_FIELDS:
            return getattr(self.task_spec, name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    @property
    def times(self) -> list[float]:
        """Seconds per execution, one entry per run."""
        return [t / self.number_per_run for t in self.raw_times]

    def _sorted(self) -> list[float]:
        return sorted(self.times)

    @property
    def median(self) -> float:
        """The median time per execution, in seconds."""
        return _quantile(self._sorted(), 0.5)

    @property
    def mean(self) -> float:
        """The mean time per execution, in seconds."""
        t = self.times
        return sum(t) / len(t)

    @property
    def iqr(self) -> float:
        """The interquartile range of the times per execution, in seconds."""
        s = self._sorted()
        return _quantile(s, 0.75) - _quantile(s, 0.25)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """Whether the interquartile range is below ``threshold`` times the median."""
        return self.iqr / self.median < threshold

    @property
    def significant_figures(self) -> int:
        """How many figures of the median the spread of the middle half supports (1 to 4)."""
        s = self._sorted()
        middle = s[len(s) // 4 : math.ceil(3 * len(s) / 4)] or s
        mu = sum(middle) / len(middle)
        std = math.sqrt(sum((v - mu) ** 2 for v in middle) / len(middle))
        ci = max(1.645 * std / math.sqrt(len(middle)), _MIN_CONFIDENCE_INTERVAL)
        figures = math.floor(math.log10(self.median / ci))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def _warnings(self) -> tuple[str, ...]:
        if len(self.raw_times) < 2 or self.meets_confidence(_IQR_WARN_THRESHOLD):
            return ()
        gross = not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD)
        msg = (
            "This suggests significant environmental influence."
            if gross
            else "This could indicate system fluctuation."
        )
        rel = self.iqr / self.median * 100
        return (f"  WARNING: Interquartile range is {rel:.1f}% of the median measurement.\n"
                f"           {msg}",)  # fmt: skip

    @property
    def has_warnings(self) -> bool:
        """Whether the runs spread widely (an interquartile range above 10% of the median)."""
        return bool(self._warnings)

    @property
    def title(self) -> str:
        """The task's title (its label and sub-label, or its statement)."""
        return self.task_spec.title

    @property
    def env(self) -> str:
        """The task's environment name, or "Unspecified env"."""
        return self.task_spec.env or "Unspecified env"

    @property
    def as_row_name(self) -> str:
        """The name of this measurement's row in a ``Compare`` table."""
        return self.task_spec.sub_label or self.task_spec.stmt or "[Unknown]"

    def __repr__(self) -> str:
        n = len(self.raw_times)
        unit, scale = select_unit(self.median)
        lines = [f"<{type(self).__module__}.Measurement object at {id(self):#x}>"]
        lines.append(self.task_spec.summarize())
        lines.append(f"  {'Median: ' if n > 1 else ''}{self.median / scale:.2f} {unit}")
        if n >= 4:
            s = self._sorted()
            lo, hi = _quantile(s, 0.25) / scale, _quantile(s, 0.75) / scale
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({lo:.2f} to {hi:.2f})")
        threads = self.task_spec.num_threads
        lines.append(
            f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
            f"{'per measurement,' if n > 1 else ','} {threads} thread{'s' if threads > 1 else ''}"
        )
        lines.extend(self._warnings)
        return "\n".join(lines)

    @staticmethod
    def merge(measurements: Iterable[Measurement]) -> list[Measurement]:
        """One measurement per task of ``measurements``, their times per execution pooled
        (``number_per_run`` 1; metadata dropped)."""
        groups: dict[TaskSpec, list[float]] = collections.defaultdict(list)
        for m in measurements:
            groups[m.task_spec].extend(m.times)
        return [Measurement(1, times, spec) for spec, times in groups.items()]


_TASK_FIELDS = frozenset(f.name for f in dataclasses.fields(TaskSpec))


def select_unit(t: float) -> tuple[str, float]:
    """The unit ("ns", "us", "ms" or "s") that shows ``t`` seconds with one to three
    figures before the point, and its scale.

    Examples
    --------
    >>> from tensorcore.utils.benchmark import select_unit
    >>> select_unit(3.2e-6)
    ('us', 1e-06)
    """
    exp = math.floor(math.log10(t) / 3) if t > 0 else -3
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(exp, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


class _Threads:
    """Run with ``n`` BLAS threads (``tensorcore.set_num_threads``), restoring them after."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.prev: int | None = None

    def __enter__(self) -> None:
        self.prev = get_num_threads()
        if self.prev != self.n:
            set_num_threads(self.n)

    def __exit__(self, *exc: object) -> None:
        if self.prev is not None and self.prev != self.n:
            set_num_threads(self.prev)


class Timer:
    """Time ``stmt`` after ``setup`` (and ``global_setup``), both Python source run with
    ``globals``, as PyTorch's ``torch.utils.benchmark.Timer``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.utils.benchmark import Timer
    >>> t = Timer("x + x", setup="x = tc.ones(8)", globals={"tc": tc}, label="add")
    >>> m = t.timeit(100)
    >>> m.number_per_run, len(m.times), m.title
    (100, 1, 'add')
    >>> m.median > 0
    True
    """

    def __init__(
        self,
        stmt: str = "pass",
        setup: str = "pass",
        global_setup: str = "",
        timer: Callable[[], float] = _timeit.default_timer,
        globals: dict[str, Any] | None = None,
        label: str | None = None,
        sub_label: str | None = None,
        description: str | None = None,
        env: str | None = None,
        num_threads: int = 1,
        language: Any = "python",
    ) -> None:
        if str(getattr(language, "name", language)).lower() not in ("python", "py"):
            raise ValueError(
                f"Invalid language `{language}`: tensorcore's Timer runs Python statements only"
            )
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self._globals = dict(globals or {})
        if global_setup:
            exec(global_setup, self._globals)
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = TaskSpec(
            stmt=stmt, setup=setup, global_setup=global_setup, label=label,
            sub_label=sub_label, description=description, env=env, num_threads=num_threads,
        )  # fmt: skip

    def _timeit(self, number: int) -> float:
        # (no real statement takes less than a nanosecond: no division by zero downstream)
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number: int = 1000000) -> Measurement:
        """One run of ``number`` executions (after a warm-up of ``number // 100``)."""
        with _Threads(self._task_spec.num_threads):
            self._timeit(max(number // 100, 2))
            return Measurement(number, [self._timeit(number)], self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        """Not provided (as in PyTorch): use ``blocked_autorange``."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback: Callable[[int, float], Any] | None = None) -> None:
        """Not provided (as in PyTorch): use ``blocked_autorange``."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _block_size(self, min_run_time: float) -> int:
        """Executions per run: ten times more until the timer's own overhead is below 1e-4
        of a run lasting at least ``min_run_time / 1000`` (or a run exceeds
        ``min_run_time``)."""
        overhead = sorted(self._timeit(0) for _ in range(5))[2]
        number = 1
        while True:
            taken = self._timeit(number)
            if overhead / taken <= 1e-4 and taken >= min_run_time / 1000:
                break
            if taken > min_run_time or number * 10 > 2147483647:
                break
            number *= 10
        return number

    def _loop(
        self,
        number: int,
        stop: Callable[[list[float]], bool],
        min_run_time: float,
        max_run_time: float | None,
        callback: Callable[[int, float], Any] | None,
    ) -> list[float]:
        times: list[float] = []
        total, can_stop = 0.0, False
        while total < min_run_time or not can_stop:
            spent = self._timeit(number)
            times.append(spent)
            total += spent
            if callback is not None:
                callback(number, spent)
            can_stop = stop(times)
            if max_run_time and total > max_run_time:
                break
        return times

    def blocked_autorange(
        self, callback: Callable[[int, float], Any] | None = None, min_run_time: float = 0.2
    ) -> Measurement:
        """Runs of a block size that makes the timer's overhead negligible, until
        ``min_run_time`` seconds have been measured (``callback(number, seconds)`` after
        each run)."""
        with _Threads(self._task_spec.num_threads):
            number = self._block_size(min_run_time)
            times = self._loop(number, lambda t: True, min_run_time, None, callback)
        return Measurement(number, times, self._task_spec)

    def adaptive_autorange(
        self,
        threshold: float = 0.1,
        *,
        min_run_time: float = 0.01,
        max_run_time: float = 10.0,
        callback: Callable[[int, float], Any] | None = None,
    ) -> Measurement:
        """Runs until more than 3 have been made, ``min_run_time`` seconds measured and the
        interquartile range is below ``threshold`` times the median, or ``max_run_time``
        seconds have been spent."""
        with _Threads(self._task_spec.num_threads):
            number = self._block_size(0.05)

            def stop(times: list[float]) -> bool:
                return len(times) > 3 and Measurement(
                    number, times, self._task_spec
                ).meets_confidence(threshold)

            times = self._loop(number, stop, min_run_time, max_run_time, callback)
        return Measurement(number, times, self._task_spec)

    def collect_callgrind(self, *args: Any, **kwargs: Any) -> Any:
        """Not available: instruction counts need Valgrind and PyTorch's C++ bindings."""
        raise NotImplementedError(
            "collect_callgrind is not available in tensorcore (it needs Valgrind and "
            "PyTorch's C++ bindings); use blocked_autorange or adaptive_autorange"
        )


class Compare:
    """A table of measurements: one per label, a row per sub-label (or statement), a
    column per description, grouped by thread count; times in one unit per table.

    Examples
    --------
    >>> from tensorcore.utils.benchmark import Compare, Measurement, TaskSpec
    >>> spec = lambda d: TaskSpec("f()", "pass", label="ops", sub_label="n=8", description=d)
    >>> ms = [Measurement(1, [2e-6], spec("add")), Measurement(1, [4e-6], spec("mul"))]
    >>> print(Compare(ms))
    [--------- ops ---------]
               |  add  |  mul
    1 threads: --------------
          n=8  |  2.0  |  4.0
    <BLANKLINE>
    Times are in microseconds (us).
    <BLANKLINE>
    """

    def __init__(self, results: list[Measurement]) -> None:
        self._results: list[Measurement] = []
        self.extend_results(results)
        self._trim = False
        self._colorize = False
        self._highlight_warnings = False

    def extend_results(self, results: Iterable[Measurement]) -> None:
        """Add measurements to the table."""
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
            self._results.append(r)

    def trim_significant_figures(self) -> None:
        """Show each time with the figures its spread supports."""
        self._trim = True

    def colorize(self, rowwise: bool = False) -> None:
        """Colour each time by how it compares with the best of its column (or row)."""
        self._colorize = True
        self._rowwise = rowwise

    def highlight_warnings(self) -> None:
        """Mark times whose runs spread widely."""
        self._highlight_warnings = True

    def print(self) -> None:
        """Print the table."""
        print(str(self))

    def __str__(self) -> str:
        return "\n".join(self._render())

    def _render(self) -> list[str]:
        by_label: dict[str | None, list[Measurement]] = collections.defaultdict(list)
        for m in Measurement.merge(self._results):
            by_label[m.task_spec.label].append(m)
        out: list[str] = []
        for label, ms in by_label.items():
            out.extend(self._table(label, ms))
        return out

    def _table(self, label: str | None, ms: list[Measurement]) -> list[str]:
        unit, scale = select_unit(min(m.median for m in ms))
        columns = list(dict.fromkeys(m.task_spec.description for m in ms))
        threads = sorted({m.task_spec.num_threads for m in ms})
        cells: dict[tuple[int, str, str | None], Measurement] = {}
        rows_of: dict[int, list[str]] = collections.defaultdict(list)
        for m in ms:
            key = (m.task_spec.num_threads, m.as_row_name, m.task_spec.description)
            cells[key] = m
            if m.as_row_name not in rows_of[key[0]]:
                rows_of[key[0]].append(m.as_row_name)
        best = {c: min(m.median for k, m in cells.items() if k[2] == c) for c in columns}
        texts: dict[tuple[int, str, str | None], str] = {}
        for k, m in cells.items():
            v = m.median / scale
            if self._trim:
                digits = max(m.significant_figures - math.floor(math.log10(abs(v))) - 1, 0)
                text = f"{round(v, digits):.{digits}f}" if v else "0"
            else:
                text = f"{v:.1f}"
            if self._highlight_warnings and m.has_warnings:
                text += f" (! {m.iqr / m.median * 100:.0f}%)"
            if self._colorize:
                ratio = m.median / best[k[2]]
                color = (
                    "\033[92m\033[1m" if ratio <= 1.01 else "\033[2m\033[91m" if ratio > 1.1 else ""
                )
                text = f"{color}{text}\033[0m\033[0m" if color else text
            texts[k] = text
        names = [n for t in threads for n in rows_of[t]]
        name_w = 6 + max(len(n) for n in names) + 2
        widths = {
            c: max(len(str(c or "")), *(len(texts[k]) for k in texts if k[2] == c)) + 4
            for c in columns
        }
        header = (
            " " * name_w + "|" + "|".join(f"{c or ''!s:^{widths[c]}}" for c in columns)
        ).rstrip()
        width = len(header)
        title = f" {label} " if label else " "
        lines = [f"[{title:-^{width - 2}}]", header]
        for t in threads:
            lines.append(f"{t} threads: ".ljust(width, "-"))
            for name in rows_of[t]:
                row = f"      {name}".ljust(name_w) + "|"
                row += "|".join(f"{texts.get((t, name, c), ''):^{widths[c]}}" for c in columns)
                lines.append(row.rstrip())
        lines += ["", f"Times are in {_ENGLISH[unit]}s ({unit}).", ""]
        return lines


_BEST, _WORSE = "\033[92m\033[1m", "\033[2m\033[91m"  # (bold green; dim red)
_ENGLISH = {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}
