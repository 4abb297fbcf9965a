"""Subnormal floats: a device whose arithmetic flushes them to zero (CuPy compiles its kernels
with ``-ftz=true``), the probe that finds it (``tensorcore.testing.flushes_subnormals``) and
the strategies that then draw none."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import find, settings
from hypothesis.errors import NoSuchExample

import tensorcore as tc
from tensorcore.testing import _helpers, flushes_subnormals
from tensorcore.testing import strategies as tcst

TINY32 = float(np.finfo(np.float32).tiny)
FEW = settings(max_examples=300, database=None, derandomize=True)


def _subnormal(v: Any) -> bool:
    parts = (v.real, v.imag) if isinstance(v, complex) else (v,)
    return any(0 < abs(p) < TINY32 for p in parts)


def _any_subnormal(a: Any) -> bool:
    return any(_subnormal(complex(v) if a.dtype.kind == "c" else float(v)) for v in a)


def test_the_probe_reads_the_devices_arithmetic(device: str) -> None:
    # (doubling the smallest float32 subnormal gives 0 exactly where the device flushes)
    got = (tc.tensor([1e-45], device=device) * 2).tolist()[0]
    assert got == (0.0 if flushes_subnormals(device) else 2 * float(np.float32(1e-45)))
    x = tc.tensor([7e-45, 1.0], device=device)
    if flushes_subnormals(device):  # an operand below tiny counts as zero
        assert x.rsqrt().tolist() == [float("inf"), 1.0]
    else:
        assert x.rsqrt().tolist() == pytest.approx([1 / np.sqrt(np.float32(7e-45)), 1.0])
    # a copy keeps the bits either way
    assert tc.tensor([7e-45], device=device).cpu().tolist() == [float(np.float32(7e-45))]


def test_the_cpu_keeps_subnormals_of_every_floating_dtype() -> None:
    for d in (tc.float16, tc.bfloat16, tc.float32, tc.float64, tc.complex64, tc.complex128):
        assert not flushes_subnormals("cpu", d)
    assert not flushes_subnormals("meta")  # (no values to probe)


@pytest.mark.parametrize("dtype", [tc.float32, tc.complex64])
def test_strategies_draw_no_subnormals_where_the_device_flushes_them(
    monkeypatch: pytest.MonkeyPatch, dtype: tc.dtype
) -> None:
    small = {"min_value": -(2.0**-100), "max_value": 2.0**-100}  # (complex: parts in +-max)
    if dtype.is_complex:
        del small["min_value"]
    # Without a device (or on one that keeps them), subnormals are drawn...
    assert _subnormal(find(tcst.elements(dtype, **small), _subnormal, settings=FEW))
    if not dtype.is_complex:  # (shrinking complex arrays takes long)
        a = find(tcst.arrays(dtype, (8,), **small, device="cpu"), _any_subnormal, settings=FEW)
        assert _any_subnormal(a)
    # ... and none on a device that flushes them.
    monkeypatch.setitem(_helpers._FLUSHES, ("cpu", "float32"), True)
    with pytest.raises(NoSuchExample):
        find(tcst.elements(dtype, **small, device="cpu"), _subnormal, settings=FEW)
    with pytest.raises(NoSuchExample):
        find(tcst.arrays(dtype, (8,), **small, device="cpu"), _any_subnormal, settings=FEW)
    # (float64's own subnormals are another dtype's question)
    assert not flushes_subnormals("cpu", tc.float64)
