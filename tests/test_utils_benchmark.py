"""tensorcore.utils.benchmark: PyTorch's Timer, Measurement and Compare."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.utils import benchmark
from tensorcore.utils.benchmark import Compare, Measurement, TaskSpec, Timer


def test_timer_measures_the_statement_with_its_setup_and_globals() -> None:
    t = Timer("y = x + x", setup="x = tc.ones(4)", globals={"tc": tc}, label="add", sub_label="4")
    m = t.timeit(50)
    assert m.number_per_run == 50 and len(m.raw_times) == 1
    assert m.times == [m.raw_times[0] / 50] and m.median == m.mean == m.times[0] > 0
    assert (m.title, m.as_row_name, m.stmt, m.num_threads) == ("add: 4", "4", "y = x + x", 1)
    assert m.env == "Unspecified env" and not m.has_warnings


def test_blocked_and_adaptive_autorange() -> None:
    calls: list[tuple[int, float]] = []
    t = Timer("sum(range(10))", global_setup="import math")
    m = t.blocked_autorange(callback=lambda n, s: calls.append((n, s)), min_run_time=0.02)
    assert sum(m.raw_times) >= 0.02 and len(calls) == len(m.raw_times)
    assert all(n == m.number_per_run for n, _ in calls)
    # a block lasts at least min_run_time / 1000 (the timer's overhead is then negligible)
    assert min(m.raw_times) >= 0.02 / 1000
    a = t.adaptive_autorange(threshold=1.0, min_run_time=0.01, max_run_time=1.0)
    assert len(a.raw_times) > 3 and sum(a.raw_times) >= 0.01


def test_measurement_statistics_as_pytorch() -> None:
    raw = [4e-5, 1e-5, 3e-5, 2e-5, 9e-5]
    m = Measurement(10, raw, TaskSpec("f()", "pass"))
    t = np.array(raw) / 10
    assert m.median == pytest.approx(np.quantile(t, 0.5))
    assert m.iqr == pytest.approx(np.quantile(t, 0.75) - np.quantile(t, 0.25))
    assert m.mean == pytest.approx(t.mean())
    assert m.has_warnings and not m.meets_confidence(0.1)
    assert "WARNING: Interquartile range is 66.7% of the median measurement." in repr(m)
    assert "Median: 3.00 us" in repr(m) and "5 measurements, 10 runs per measurement" in repr(m)
    assert 1 <= m.significant_figures <= 4
    quiet = Measurement(1, [1.00e-3, 1.01e-3, 1.00e-3, 1.01e-3], TaskSpec("f()", "pass"))
    assert not quiet.has_warnings and quiet.significant_figures >= 2
    (merged,) = Measurement.merge([m, Measurement(1, [5e-6], TaskSpec("f()", "pass"))])
    assert merged.number_per_run == 1 and len(merged.times) == 6
    assert benchmark.select_unit(2.5e-3) == ("ms", 1e-3)


def test_compare_lays_out_pytorch_table() -> None:
    def spec(sub: str, desc: str, threads: int = 1, label: str = "ops") -> TaskSpec:
        return TaskSpec("f()", "pass", label=label, sub_label=sub, description=desc,
                        num_threads=threads)  # fmt: skip

    ms = [
        Measurement(1, [1.1e-6], spec("n=8", "add")),
        Measurement(1, [1.1e-6], spec("n=8", "mul")),
        Measurement(1, [3.1e-6], spec("n=64", "add")),
        Measurement(1, [1.1e-6], spec("n=64", "mul")),
        Measurement(1, [5.7e-6], spec("n=8", "add", 2, "red")),
    ]
    assert str(Compare(ms)).splitlines() == [
        "[--------- ops ----------]",
        "            |  add  |  mul",
        "1 threads: ---------------",
        "      n=8   |  1.1  |  1.1",
        "      n=64  |  3.1  |  1.1",
        "",
        "Times are in microseconds (us).",
        "",
        "[----- red -----]",
        "           |  add",
        "2 threads: ------",
        "      n=8  |  5.7",
        "",
        "Times are in microseconds (us).",
    ]
    c = Compare(ms)
    c.colorize()
    assert "\033[92m" in str(c) and "\033[91m" in str(c)  # the best, and one 2.8x worse
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        Compare([1.0])  # type: ignore[list-item]


def test_timer_refuses_what_it_cannot_run() -> None:
    with pytest.raises(ValueError, match="runs Python statements only"):
        Timer("x", language="c++")
    t = Timer("pass")
    with pytest.raises(NotImplementedError, match=r"See `Timer\.blocked_autorange\.`"):
        t.repeat()
    with pytest.raises(NotImplementedError, match="collect_callgrind is not available"):
        t.collect_callgrind()
