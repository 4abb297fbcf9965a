"""``tensorcore.futures.Future`` against PyTorch's ``torch.futures.Future`` semantics."""

from __future__ import annotations

import threading

import pytest

import tensorcore as tc
from tensorcore.futures import Future, collect_all, wait_all


def test_a_future_completes_once_and_runs_its_callbacks() -> None:
    fut = Future()
    seen = []
    fut.add_done_callback(lambda f: seen.append(f.value()))
    chained = fut.then(lambda f: f.value() + 1).then(lambda f: f.value() * 10)
    assert not fut.done() and not chained.done() and seen == []
    with pytest.raises(RuntimeError, match="before the future completed"):
        fut.value()
    fut.set_result(2)
    assert fut.done() and seen == [2] and chained.wait() == 30
    with pytest.raises(RuntimeError, match="can only be marked completed once"):
        fut.set_result(3)
    late = []
    fut.add_done_callback(lambda f: late.append(f.value()))  # runs now: it is done
    assert late == [2]


def test_an_exception_reaches_wait_and_the_chained_futures() -> None:
    fut = Future()
    child = fut.then(lambda f: f.value())
    fut.set_exception(ValueError("boom"))
    with pytest.raises(ValueError, match="boom"):
        fut.wait()
    with pytest.raises(RuntimeError, match="error when running the callback: ValueError: boom"):
        child.wait()
    with pytest.raises(TypeError, match="expected an exception"):
        Future().set_exception("no")  # type: ignore[arg-type]


def test_wait_blocks_until_another_thread_sets_the_result() -> None:
    fut = Future()
    threading.Timer(0.02, fut.set_result, args=(tc.ones(2),)).start()
    assert fut.wait().tolist() == [1.0, 1.0]


def test_a_driven_future_completes_in_the_waiting_thread() -> None:
    calls = []

    def drive() -> None:
        calls.append(1)
        fut.set_result("done")

    fut = Future(_drive=drive)
    then = fut.then(lambda f: f.value().upper())
    assert then.wait() == "DONE" and fut.wait() == "done" and calls == [1]
    failing = Future(_drive=lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        failing.wait()


def test_collect_all_and_wait_all() -> None:
    a, b = Future(), Future()
    both = collect_all([a, b])
    a.set_result(1)
    assert not both.done()
    b.set_result(2)
    assert [f.value() for f in both.wait()] == [1, 2] and wait_all([a, b]) == [1, 2]
    assert collect_all([]).wait() == []
