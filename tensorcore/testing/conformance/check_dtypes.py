"""Every dtype an operator declares works on the target, or is refused cleanly."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ._run import claimed, dtypes_of, expect_same, run, sample_count, samples
from ._session import target

# The TypeError a kernel registered with ``dtypes=`` raises for another dtype.
_REFUSED = re.compile(r"kernel from plugin '[^']+' does not support dtype")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    params = [
        pytest.param(name, d, own, id=f"{name}-{d.name}")
        for name, (_, own) in claimed().items()
        if sample_count(name)
        for d in dtypes_of(name)
    ]
    metafunc.parametrize(("name", "dtype", "own"), params)


def test_dtype(name: str, dtype: Any, own: bool) -> None:
    """The operator's first sample in ``dtype``: the CPU's result, or the CPU's exception
    class, or a ``TypeError`` naming the plugin whose kernel does not take the dtype -- never
    another exception or a wrong value."""
    dev, cpu = samples(name, dtype, 0)
    got = run(name, dev)
    if isinstance(got.exc, TypeError) and _REFUSED.search(str(got.exc)):
        pytest.skip(f"refused on {target().key}: {got.exc}")
    expect_same(name, got, run(name, cpu), own=own, invariant=cpu.invariant, sample=(dtype, 0))
