"""Every claimed operator's samples give the CPU's results on the target."""

from __future__ import annotations

from typing import Any

import pytest

from tensorcore import dtypes as dt

from ._run import claimed, expect_same, picked, run, sample_count, samples


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    dtypes = (dt.float32, dt.float64) if _full() else (dt.float32,)
    params = [
        pytest.param(name, d, i, own, id=f"{name}-{d.name}-{i}")
        for name, (_, own) in claimed().items()
        for d in dtypes
        for i in picked(sample_count(name, d), fast=2)
    ]
    metafunc.parametrize(("name", "dtype", "i", "own"), params)


def _full() -> bool:
    from ._session import target

    return target().full


def test_samples(name: str, dtype: Any, i: int, own: bool) -> None:
    """Sample ``i`` (in ``dtype``) of operator ``name``: the target returns what the CPU
    returns, or raises the class of exception it raises."""
    dev, cpu = samples(name, dtype, i)
    got, exp = run(name, dev), run(name, cpu)
    expect_same(name, got, exp, own=own, invariant=cpu.invariant, sample=(dtype, i))
