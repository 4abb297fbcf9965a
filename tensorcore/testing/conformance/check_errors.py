"""Bad input raises on the target what it raises on the CPU: the cases of the fuzzing
harness (:mod:`tensorcore.testing.fuzz`), run on both."""

from __future__ import annotations

from collections import Counter

import pytest

from tensorcore.testing import fuzz
from tensorcore.testing.samples import core_ops

from ._run import claimed
from ._session import target

#: How many bad-input cases the fast mode runs per operator (the full mode runs them all).
FAST_CASES = 12


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    # The harness knows the core's operators (not plugins' ones) and builds strided inputs:
    # a layout fuzzes its own functions with ``fuzz.target_cases`` instead.
    core = set(core_ops())
    names = [] if target().is_layout else [n for n in claimed() if n in core]
    metafunc.parametrize("name", names)


def _keyed(cases: list[fuzz.Case]) -> dict[tuple[str, int], fuzz.Case]:
    seen: Counter[str] = Counter()
    out = {}
    for c in cases:
        label = repr(c)
        out[label, seen[label]] = c
        seen[label] += 1
    return out


def _narrower(got: BaseException | None, exp: BaseException | None) -> bool:
    """Whether the target raised a subclass of the CPU's error: a GPU's out-of-memory error
    (``tensorcore.cuda.OutOfMemoryError``) is a ``RuntimeError``, as PyTorch's, where the
    CPU's allocator raises a plain one."""
    return got is not None and exp is not None and isinstance(got, type(exp))


def test_bad_input(name: str) -> None:
    """Each bad call of ``name`` (a wrong type, dtype, shape or dim in one argument) raises
    the CPU's exception class, names the operator, leaks nothing of the array library and
    leaves its inputs unchanged; a call the CPU accepts, the target accepts too."""
    t = target()
    dev_cases = _keyed(list(fuzz.cases(t.device, only={name})))
    cpu_cases = _keyed(list(fuzz.cases("cpu", only={name})))
    keys = [k for k in dev_cases if k in cpu_cases]
    if not t.full:
        keys = keys[:FAST_CASES]
    if not keys:
        # The harness calls operators through their function and methods: internal ones
        # (``slice``, ``linalg_inv`` behind ``tc.linalg.inv``) have none.
        pytest.skip(f"{name}: the fuzzing harness has no case for it on {t.key}")
    problems = []
    for key in keys:
        got, exp = fuzz.run(dev_cases[key]), fuzz.run(cpu_cases[key])
        if not got.ok:
            problems.append(got.describe())
        elif type(got.exc) is not type(exp.exc) and not _narrower(got.exc, exp.exc):
            what = "returned" if got.exc is None else type(got.exc).__name__
            want = "returned" if exp.exc is None else type(exp.exc).__name__
            problems.append(f"{got.case!r}: {what} on {t.key}, {want} on cpu")
    assert not problems, f"{len(problems)} of {len(keys)} bad calls:\n" + "\n".join(problems)
