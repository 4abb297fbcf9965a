"""Bad input, fuzzed: every declared operator (function, method, in-place and ``out=``
variants) and the hand-written public API, with one argument at a time replaced by a bad
value (``tensorcore.testing.fuzz``). A call must raise a standard exception that names what
was called, leak nothing of NumPy, change none of its inputs, and never return for an argument
that is certainly invalid."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import fuzz
from tensorcore.testing.samples import core_ops


def _check(results: list[fuzz.Result]) -> None:
    bad = [r.describe() for r in results if not r.ok]
    assert not bad, f"{len(bad)} of {len(results)} calls misbehave:\n" + "\n".join(bad)


@pytest.mark.parametrize("name", core_ops())
def test_operator_under_bad_input(device: str, name: str) -> None:
    _check([fuzz.run(c) for c in fuzz.cases(device, only={name})])


@pytest.mark.parametrize("label", [t.label for t in fuzz.public_targets()])
def test_public_function_under_bad_input(device: str, label: str) -> None:
    results = []
    for case in fuzz.public_cases(device, only={label}):
        results.append(fuzz.run(case))
        # (tc.set_default_dtype / set_default_device are among the targets)
        tc.set_default_dtype(tc.float32)
        tc.set_default_device(None)
    assert results
    _check(results)


# ------------------------------------------------------------------ the harness itself
# The cases the reliability issue reported: the harness must generate each.
REPORTED = [
    ("tc.exp", "self=None"),
    ("tc.add", "other=None"),
    ("tc.mul", "other=None"),
    ("tc.zeros_like", "self=None"),
    ("Tensor.unfold", "size=-1"),
    ("Tensor.expand", "size=[-5, 3]"),
    ("Tensor.expand", "size=[2**64]"),
    ("tc.unflatten", "sizes=[1.5]"),
    ("tc.as_strided", "size=[1.5]"),
    ("tc.as_strided", "storage_offset=-1"),
    ("tc.select", "index=a float"),
    ("tc.full", "dtype='f'"),
    ("tc.arange", "end=inf"),
    ("tc.softmax", "self=an int64 tensor"),
    ("tc.floor", "self=a complex tensor"),
    ("tc.lt", "self=a complex tensor"),
    ("tc.add(out=)", "out of dtype int8"),
    ("tc.sort(out=)", "indices out of dtype int32"),
    ("Tensor.masked_fill_", "value=nan"),
]


def test_the_harness_generates_the_reported_cases() -> None:
    found = {(c.target, c.mutation) for c in fuzz.cases("cpu")}
    missing = [case for case in REPORTED if case not in found]
    assert not missing


def _case(fn: Any, *args: Any, certain: bool = True, name: str = "f") -> fuzz.Case:
    return fuzz.Case("f", name, fn, args, {}, "a test", certain)


def _raise(exc: BaseException) -> Any:
    def f(*args: Any) -> None:
        raise exc

    return f


def test_the_harness_flags_each_kind_of_misbehaviour() -> None:
    # A harness that passes everything would pass forever: each check must catch its fault.
    def scribble(t: tc.Tensor) -> None:
        t.fill_(7)
        raise ValueError("f(): refused after writing")

    def numpy_error(t: tc.Tensor) -> None:
        np.add(np.ones(2, np.float32), np.array([object()]), out=np.ones(2, np.float32))

    def warn(t: tc.Tensor) -> None:
        with np.errstate(all="warn"):
            np.log(np.zeros(1))

    flags = {
        "odd": fuzz.run(_case(_raise(AttributeError("f(): x")), 1)).odd,
        "stop": fuzz.run(_case(_raise(StopIteration()), 1)).odd,
        "leaked": fuzz.run(_case(numpy_error, tc.ones(2))).leaked,
        "warned": fuzz.run(_case(warn, tc.ones(2), certain=False)).leaked,
        "unnamed": not fuzz.run(_case(_raise(TypeError("bad argument")), 1)).named,
        "changed": bool(fuzz.run(_case(scribble, tc.ones(2))).changed),
        "silent": fuzz.run(_case(lambda t: t, tc.ones(2))).silent,
    }
    assert all(flags.values()), flags
    good = fuzz.run(_case(_raise(TypeError("f(): argument 'x' must be int")), 1))
    assert good.ok


def test_names_callee() -> None:
    assert fuzz.names_callee("t(): bad", "t")
    assert not fuzz.names_callee("can't do it", "t")
    assert fuzz.names_callee("Could not run 'exp' with arguments", "exp")
    assert fuzz.names_callee("output with shape [2] (in add_)", "add")
    assert fuzz.names_callee("Tensor.add() got an unexpected keyword argument 'x'", "add")
    assert not fuzz.names_callee("subtract(): bad", "sub")
    assert fuzz.names_callee("where expected condition to be a boolean tensor", "where")
    assert not fuzz.names_callee("the where expected nothing", "where")


def test_summary_counts() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = [fuzz.run(c) for c in fuzz.cases("cpu", only={"select", "add"})]
    s = fuzz.summarize(results)
    assert s["calls"] == len(results) > 50
    assert s["raised"] + s["returned"] == s["calls"]
    assert s["odd"] == s["leaked"] == s["changed"] == s["silent"] == 0
    assert s["named"] == s["standard"] == s["raised"]
