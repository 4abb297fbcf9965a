"""Views write through to their base; in-place (``op_``) and ``out=`` variants give the
CPU's results and return the tensor they wrote."""

from __future__ import annotations

from typing import Any

import pytest

import tensorcore as tc
from tensorcore import dtypes as dt
from tensorcore.testing.samples import Sample, call_op, tensor_inputs

from ._run import (
    Outcome,
    claimed,
    compare,
    decl,
    expect_same,
    outcome,
    picked,
    run,
    sample_count,
    samples,
    unspecified,
)
from ._session import target

#: What a view is written with (a value no sample holds).
WRITTEN = 7


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    fn = metafunc.function.__name__
    params = []
    for name, (_, own) in claimed().items():
        d = decl(name)
        applies = {
            # Views are strided: a layout's tensors have no storage to write through.
            "test_view_writes_through": "view" in d.tags and not target().is_layout,
            "test_inplace": d.inplace and d.method,
            "test_out": d.out and d.function,
        }[fn]
        if applies:
            params += [
                pytest.param(name, i, own, id=f"{name}-{i}") for i in picked(sample_count(name))
            ]
    metafunc.parametrize(("name", "i", "own"), params)


def _first_tensor(v: Any) -> tc.Tensor | None:
    if isinstance(v, tc.Tensor):
        return v
    if isinstance(v, (tuple, list)):
        return next((x for x in v if isinstance(x, tc.Tensor)), None)
    return None


def _write_view(name: str, s: Sample) -> Any:
    """Call the view operator, write into its (first) result, and return every input."""
    view = _first_tensor(call_op(name, s))
    if view is None:
        raise AssertionError(f"{name} returned no tensor")
    view.fill_(WRITTEN)
    return tensor_inputs(s)


def test_view_writes_through(name: str, i: int, own: bool) -> None:
    """A write into the view's result reaches its base: after ``view.fill_(7)`` every input
    holds what it holds on the CPU."""
    dev, cpu = samples(name, dt.float32, i)
    got = outcome(lambda: _write_view(name, dev))
    exp = outcome(lambda: _write_view(name, cpu))
    expect_same(name, got, exp, own=own)


def _clone(s: Sample) -> Sample:
    def c(a: Any) -> Any:
        if isinstance(a, tc.Tensor):
            return a.clone()
        if isinstance(a, list):
            return [c(x) for x in a]
        return a

    return Sample(tuple(c(a) for a in s.args), {k: c(v) for k, v in s.kwargs.items()})


def _inplace(name: str, s: Sample) -> Any:
    self, *rest = s.args
    ret = getattr(self, name + "_")(*rest, **s.kwargs)
    if ret is not self:
        raise AssertionError(f"{name}_ returned {ret!r}, not the tensor it wrote")
    return self


def test_inplace(name: str, i: int, own: bool) -> None:
    """``x.op_(...)`` writes into ``x`` and returns it; ``x`` then holds what it holds on the
    CPU (or the call raises the CPU's exception class)."""
    dev, cpu = samples(name, dt.float32, i)
    functional = run(name, _clone(dev))
    got = outcome(lambda: _inplace(name, _clone(dev)))
    exp = outcome(lambda: _inplace(name, _clone(cpu)))
    expect_same(name + "_", got, exp, own=own, sample=(dt.float32, i))
    if got.exc is None and functional.exc is None and got.value.dtype == functional.value.dtype:
        values = not unspecified(name, dt.float32, i)
        compare(got.value, functional.value, values=values, where=f"{name}_ against {name}")


def _out_call(name: str, s: Sample, like: Any) -> Any:
    if isinstance(like, tc.Tensor):
        out: Any = tc.empty(0, dtype=like.dtype, device=like.device)
    else:
        out = tuple(tc.empty(0, dtype=r.dtype, device=r.device) for r in like)
    ret = getattr(tc, name)(*s.args, **s.kwargs, out=out)
    same = (
        ret is out
        if isinstance(out, tc.Tensor)
        else all(a is b for a, b in zip(ret, out, strict=True))
    )
    if not same:
        raise AssertionError(f"{name}(out=) returned {ret!r}, not its out")
    return ret


def test_out(name: str, i: int, own: bool) -> None:
    """``tc.op(..., out=o)`` (``o`` empty, resized by the call) returns ``o`` holding the
    functional result, as on the CPU."""
    dev, cpu = samples(name, dt.float32, i)
    functional: Outcome = run(name, _clone(dev))
    expected = run(name, _clone(cpu))
    if expected.exc is not None or not isinstance(expected.value, (tc.Tensor, tuple)):
        pytest.skip(f"{name}: the sample has no tensor result on the CPU")
    if functional.exc is not None:
        expect_same(name, functional, expected, own=own)
    got = outcome(lambda: _out_call(name, _clone(dev), functional.value))
    exp = outcome(lambda: _out_call(name, _clone(cpu), expected.value))
    expect_same(name, got, exp, own=own, sample=(dt.float32, i))
