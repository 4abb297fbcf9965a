"""``tc.profiler`` as PyTorch's ``torch.profiler``: operator ranges (``tensorcore::<op>``)
with counts and CPU times, ``record_function``, schedules and ``step()``, the table, Chrome
traces, and the operators' entry points restored when profiling stops."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest

import tensorcore as tc
from tensorcore.dispatch import ops as op_table
from tensorcore.ops import _api
from tensorcore.profiler import (
    ProfilerAction,
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    tensorboard_trace_handler,
)


def _entry_points() -> list[Any]:
    return [(ns["_call"], ns["_call_inplace"]) for ns in _api.NAMESPACES] + [
        (op.lane, op.lane_inplace) for op in op_table().values()
    ]


def _counts(prof: Any) -> dict[str, int]:
    return {e.key: e.count for e in prof.key_averages()}


def test_operator_calls_are_counted_by_name(device: str) -> None:
    x = tc.ones(4, 4, device=device)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(3):
            y = tc.mm(x, x) + 1  # a lane (add) and the call path (mm)
            y.relu_()
            y.sum().item()
    counts = _counts(prof)
    assert counts["tensorcore::mm"] == 3 and counts["tensorcore::add"] == 3
    assert counts["tensorcore::relu_"] == 3 and counts["tensorcore::sum"] == 3
    for e in prof.key_averages():
        assert e.cpu_time_total >= e.self_cpu_time_total >= 0
        assert e.cpu_time == pytest.approx(e.cpu_time_total / e.count)


def test_record_function_ranges_nest_around_operators(device: str) -> None:
    x = tc.ones(8, device=device)
    with profile() as prof, record_function("outer"):
        with record_function("inner"):
            (x * 2).sum()
        x.exp()
    events = {e.name: e for e in prof.events()}
    outer, inner = events["outer"], events["inner"]
    assert outer.is_user_annotation and not events["tensorcore::mul"].is_user_annotation
    assert outer.time_range.start <= inner.time_range.start <= inner.time_range.end
    assert inner.time_range.end <= outer.time_range.end
    # self time excludes what the children took
    assert outer.self_cpu_time_total < outer.cpu_time_total
    assert prof.events().self_cpu_time_total == pytest.approx(outer.cpu_time_total)


def test_record_function_decorates_and_does_nothing_outside_a_profile() -> None:
    @record_function("my_step")
    def step(v: tc.Tensor) -> tc.Tensor:
        return v + 1

    assert step(tc.zeros(1)).tolist() == [1.0]  # no profiler: just runs
    with profile() as prof:
        step(tc.zeros(1))
        step(tc.zeros(1))
    assert _counts(prof)["my_step"] == 2


def test_the_table_has_pytorchs_columns() -> None:
    x = tc.ones(5, 5)
    with profile(record_shapes=True, profile_memory=True) as prof:
        for _ in range(2):
            tc.mm(x, x).add(1)
        tc.mm(x[:2], x)
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=2)
    lines = table.splitlines()
    header = lines[1].split("  ")
    names = [h.strip() for h in header if h.strip()]
    assert names == [
        "Name",
        "Self CPU %",
        "Self CPU",
        "CPU total %",
        "CPU total",
        "CPU time avg",
        "CPU Mem",
        "Self CPU Mem",
        "# of Calls",
    ]
    assert lines[0] == lines[2] == lines[-2] and set(lines[0]) == {"-", " "}
    assert len(lines) == 3 + 2 + 2  # rule, header, rule, 2 rows, rule, total
    assert lines[-1].startswith("Self CPU time total: ")
    assert table.endswith("\n")
    by_shape = prof.key_averages(group_by_input_shape=True)
    shapes = {(e.key, str(e.input_shapes)): e.count for e in by_shape}
    assert shapes[("tensorcore::mm", "[[5, 5], [5, 5]]")] == 2
    assert shapes[("tensorcore::mm", "[[2, 5], [5, 5]]")] == 1
    assert "Input Shapes" in by_shape.table().splitlines()[1]
    mm = next(e for e in prof.key_averages() if e.key == "tensorcore::mm")
    assert mm.cpu_memory_usage == (2 * 25 + 10) * 4  # the bytes of its outputs


def test_sort_by_and_row_limit() -> None:
    with profile() as prof:
        for _ in range(5):
            tc.ones(2).neg()
        tc.ones(2).exp()
    rows = prof.key_averages().table(sort_by="count", row_limit=1).splitlines()[3:-2]
    assert len(rows) == 1 and "tensorcore::ones" in rows[0]


def test_export_chrome_trace(tmp_path: Any) -> None:
    with profile(record_shapes=True) as prof, record_function("block"):
        tc.ones(3).mul(2)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    doc = json.loads(path.read_text())
    events = doc["traceEvents"]
    assert {e["ph"] for e in events} == {"X"}
    block = next(e for e in events if e["name"] == "block")
    mul = next(e for e in events if e["name"] == "tensorcore::mul")
    assert block["cat"] == "user_annotation" and mul["cat"] == "cpu_op"
    assert mul["args"]["Input Dims"] == [[3], []]
    assert block["ts"] <= mul["ts"] and mul["ts"] + mul["dur"] <= block["ts"] + block["dur"]
    gz = tmp_path / "trace.json.gz"
    prof.export_chrome_trace(str(gz))
    assert json.loads(gzip.decompress(gz.read_bytes()))["traceEvents"] == events


def test_schedule_is_pytorchs() -> None:
    s = schedule(wait=1, warmup=1, active=2, repeat=1)
    n, w, r, save = (
        ProfilerAction.NONE,
        ProfilerAction.WARMUP,
        ProfilerAction.RECORD,
        ProfilerAction.RECORD_AND_SAVE,
    )
    assert [s(i) for i in range(6)] == [n, w, r, save, n, n]
    s2 = schedule(skip_first=2, wait=0, warmup=1, active=1)
    assert [s2(i) for i in range(6)] == [n, n, w, save, w, save]
    with pytest.warns(UserWarning, match="won't be using warmup"):
        schedule(wait=0, warmup=0, active=1)
    with pytest.raises(AssertionError):
        schedule(wait=0, warmup=1, active=0)


def test_step_records_the_active_steps_and_calls_on_trace_ready() -> None:
    seen: list[tuple[int, dict[str, int]]] = []

    def ready(p: profile) -> None:
        seen.append((p.step_num, _counts(p)))

    with profile(
        schedule=schedule(wait=1, warmup=1, active=2, repeat=2), on_trace_ready=ready
    ) as p:
        for i in range(10):
            with record_function(f"iteration{i}"):
                tc.ones(2).mul(i)
            p.step()
    assert [s for s, _ in seen] == [4, 8]
    first = seen[0][1]
    # steps 2 and 3 recorded, each inside PyTorch's ProfilerStep#N range
    assert first["ProfilerStep#2"] == first["ProfilerStep#3"] == 1
    assert "iteration2" in first and "iteration3" in first and "iteration1" not in first
    assert first["tensorcore::mul"] == 2
    assert "iteration6" in seen[1][1] and "iteration3" not in seen[1][1]


def test_a_cycle_still_recording_at_exit_is_saved() -> None:
    seen: list[int] = []
    with profile(
        schedule=schedule(wait=0, warmup=1, active=3), on_trace_ready=lambda p: seen.append(1)
    ) as p:
        for _ in range(2):
            tc.ones(1).neg()
            p.step()
    assert seen == [1] and _counts(p)["tensorcore::neg"] == 1


def test_tensorboard_trace_handler_writes_a_trace_per_cycle(tmp_path: Any) -> None:
    handler = tensorboard_trace_handler(str(tmp_path / "log"), worker_name="w0")
    with profile(schedule=schedule(wait=0, warmup=1, active=1), on_trace_ready=handler) as p:
        for _ in range(4):
            tc.ones(2).sum()
            p.step()
    files = sorted((tmp_path / "log").iterdir())
    assert len(files) == 2 and all(f.name.startswith("w0.") for f in files)
    assert all(f.name.endswith(".pt.trace.json") for f in files)
    assert any(
        e["name"] == "tensorcore::sum" for e in json.loads(files[0].read_text())["traceEvents"]
    )


def test_entry_points_are_restored_even_after_an_error() -> None:
    before = _entry_points()
    with pytest.raises(ValueError, match="boom"), profile():
        assert _entry_points() != before  # recording wrappers in place
        raise ValueError("boom")
    assert _entry_points() == before
    with profile(), pytest.raises(RuntimeError, match="already enabled"), profile():
        pass
    assert _entry_points() == before


def test_backward_operators_are_recorded() -> None:
    w = tc.ones(3, requires_grad=True)
    with profile() as prof:
        (w * w).sum().backward()
    assert _counts(prof)["tensorcore::mul"] >= 2  # forward, and the rule's products


def test_autograd_profiler_aliases() -> None:
    assert tc.autograd.profiler.record_function is record_function
    with tc.autograd.profiler.profile(record_shapes=True) as prof:
        tc.ones(2).exp()
    assert {e.key for e in prof.key_averages()} >= {"tensorcore::exp"}
    assert prof.self_cpu_time_total > 0
    assert "Self CPU time total" in prof.table()
    with tc.autograd.profiler.profile(enabled=False) as off:
        tc.ones(1)
    with pytest.raises(RuntimeError, match="didn't finish"):
        off.key_averages()


def test_with_stack_records_the_callers_lines(tmp_path: Any) -> None:
    with profile(with_stack=True) as prof:
        tc.ones(2).neg()
    neg = next(e for e in prof.events() if e.name == "tensorcore::neg")
    assert neg.stack and "test_profiler.py" in neg.stack[0]
    assert all("/tensorcore/" not in frame for frame in neg.stack)
    table = prof.key_averages(group_by_stack_n=1).table()
    assert "Source Location" in table.splitlines()[1]
    path = tmp_path / "stacks.txt"
    prof.export_stacks(str(path))
    assert any(line.endswith(tuple("0123456789")) for line in path.read_text().splitlines())
