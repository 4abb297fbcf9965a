"""Timing and formatting shared by the benchmark scripts (run them as ``python
benchmarks/<script>.py``, which puts this folder on ``sys.path``).

``TENSORCORE_BENCH_CLOCK=thread`` times with ``time.thread_time_ns`` (the CPU time of the
calling thread) instead of ``time.perf_counter_ns`` (wall time): on a host shared with other
work the wall time of a loop counts whatever else ran meanwhile, its thread time does not.
It undercounts a library computing on other threads, so use it for per-call overhead with
one thread each (``OPENBLAS_NUM_THREADS=1``, ``OMP_NUM_THREADS=1``).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from typing import Any

__all__ = ["Timings", "calibrate", "fmt_ratio", "fmt_time", "loop_ns", "per_call_ns"]

_CLOCK = (
    time.thread_time_ns
    if os.environ.get("TENSORCORE_BENCH_CLOCK") == "thread"
    else time.perf_counter_ns
)


def loop_ns(fn: Callable[[], Any], number: int) -> int:
    """Nanoseconds ``number`` calls of ``fn`` take."""
    clock = _CLOCK
    start = clock()
    for _ in range(number):
        fn()
    return clock() - start


def calibrate(fn: Callable[[], Any], target_ns: int) -> int:
    """As ``timeit.Timer.autorange``: the first of 1, 2, 5, 10, 20, ... calls taking >= target."""
    power = 1
    while True:
        for mult in (1, 2, 5):
            number = mult * power
            if loop_ns(fn, number) >= target_ns:
                return number
        power *= 10


class Timings(dict[str, float]):
    """Median per-call nanoseconds by library, with the per-repeat samples behind them
    (``samples[name][i]`` was taken in the same turn as every other library's ``[i]``)."""

    samples: dict[str, list[float]]

    def ratio(self, a: str, b: str) -> float | None:
        """Median over the repeats of ``a / b`` measured in the same turn: the machine's
        slow and fast spells then cancel out, which the ratio of two medians does not do
        on a shared, noisy host."""
        sa, sb = self.samples.get(a), self.samples.get(b)
        if not sa or not sb:
            return None
        return statistics.median(x / y for x, y in zip(sa, sb, strict=True))


def per_call_ns(fns: dict[str, Callable[[], Any]], repeat: int, target_ns: int) -> Timings:
    """Median per-call time in nanoseconds of each of ``fns``.

    Each function gets its own number of calls per loop (see :func:`calibrate`); the repeats
    then take turns between the functions, so that a noisy moment on the machine does not
    favour one library. Each timed loop starts after one untimed call: the worker threads a
    library leaves spinning after its turn (PyTorch's OpenMP pool) would otherwise compete
    with the first calls of the next library's loop, which measurably slows whichever library
    runs right after PyTorch (5% on the MLP step of ``bench_autograd.py`` on 2 cores).
    """
    numbers = {}
    for name, fn in fns.items():
        fn()  # warm up: first-call dispatch resolution, lazy materialisation, caches
        numbers[name] = calibrate(fn, target_ns)
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            fn()
            samples[name].append(loop_ns(fn, numbers[name]) / numbers[name])
    res = Timings({name: statistics.median(values) for name, values in samples.items()})
    res.samples = samples
    return res


def fmt_time(ns: float | None) -> str:
    """``1.23 ms``-style text; ``-`` for None."""
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def fmt_ratio(a: float | None, b: float | None) -> str:
    """``a / b`` as ``1.23x``; ``-`` when either is missing."""
    if a is None or b is None or b == 0:
        return "-"
    return f"{a / b:.2f}x"


def _ratio(t: dict[str, Any], other: str) -> str:
    if isinstance(t, Timings):
        r = t.ratio("tensorcore", other)
        return "-" if r is None else f"{r:.2f}x"
    return fmt_ratio(t.get("tensorcore"), t.get(other))


def print_table(rows: list[tuple[str, dict[str, Any], Callable[[Any], str]]]) -> None:
    """One row per workload: tensorcore, NumPy and PyTorch figures (each row formatted by its
    own ``fmt``) and tensorcore's ratio to the other two (for timings, the median of the
    ratios measured turn by turn, see :meth:`Timings.ratio`)."""
    header = ("workload", "tensorcore", "numpy", "torch", "vs numpy", "vs torch")
    table = [header]
    for name, t, fmt in rows:
        table.append(
            (
                name,
                fmt(t.get("tensorcore")),
                fmt(t.get("numpy")),
                fmt(t.get("torch")),
                _ratio(t, "numpy"),
                _ratio(t, "torch"),
            )
        )
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for i, r in enumerate(table):
        cells = [r[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)
        ]
        print("  ".join(cells))
        if i == 0:
            print("  ".join("-" * w for w in widths))
