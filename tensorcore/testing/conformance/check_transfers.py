"""Tensors of every dtype move to the target and back with their values, dtype and shape:
``.to(device)``, ``.to("cpu")`` and ``copy_`` across devices, from contiguous and
non-contiguous sources."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import tensorcore as tc
from tensorcore import dtypes as dt
from tensorcore.testing import dtype_unsupported

from ._run import FAST_DTYPES, compare, strided, to_layout
from ._session import target


def _source(dtype: dt.dtype, layout: str) -> tc.Tensor:
    """A CPU tensor of ``dtype``: contiguous, transposed or sliced with a step."""
    base = (tc.arange(24, dtype=tc.float64) * 0.75 - 6).reshape(4, 6)
    x = base.to(dtype)
    if layout == "transposed":
        return x.t()
    if layout == "sliced":
        return x[1:, ::2]
    return x


def _directions() -> dict[str, Callable[[tc.Tensor, str], tc.Tensor]]:
    def to_device(x: tc.Tensor, dev: str) -> tc.Tensor:
        return x.to(dev)

    def back_to_cpu(x: tc.Tensor, dev: str) -> tc.Tensor:
        return x.to(dev).to("cpu")

    def copy_to_device(x: tc.Tensor, dev: str) -> tc.Tensor:
        dst = tc.zeros(tuple(x.shape), dtype=x.dtype, device=dev)
        ret = dst.copy_(x)
        assert ret is dst, "copy_ returned another tensor than its destination"
        return dst

    def copy_to_cpu(x: tc.Tensor, dev: str) -> tc.Tensor:
        on_dev = x.to(dev)
        if not x.is_contiguous():  # a non-contiguous source on the device
            on_dev = on_dev.t().contiguous().t() if x.ndim == 2 else on_dev
        dst = tc.zeros(tuple(x.shape), dtype=x.dtype)
        dst.copy_(on_dev)
        return dst

    return {
        "to_device": to_device,
        "back_to_cpu": back_to_cpu,
        "copy_to_device": copy_to_device,
        "copy_to_cpu": copy_to_cpu,
    }


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    t = target()
    names = [d for d in dt.all_dtypes if t.full or d.name in FAST_DTYPES or d is dt.float32]
    hows = list(_directions())
    if t.is_layout:  # a layout's floating tensors move with .to() and back
        names = [d for d in names if d.is_floating_point or d.is_complex]
        hows = ["to_device", "back_to_cpu"]
    params = [
        pytest.param(d, lay, how, id=f"{d.name}-{lay}-{how}")
        for d in names
        for lay in ("contiguous", "transposed", "sliced")
        for how in hows
    ]
    metafunc.parametrize(("dtype", "layout", "how"), params)


def test_transfer(dtype: Any, layout: str, how: str) -> None:
    """The moved tensor has the source's values, dtype and shape, on the expected device."""
    t = target()
    why = dtype_unsupported(t.device, dtype)
    if why is not None:
        pytest.skip(f"{t.device} holds no {dtype.name} tensors (its allocator: {why})")
    x = _source(dtype, layout)
    if t.is_layout:
        moved = to_layout(x).to(t.device)
        if how == "back_to_cpu":
            moved = moved.to("cpu")
        assert moved.layout.name == t.layout, f"the move lost the layout: {moved.layout}"
        got = strided(moved)
    else:
        got = _directions()[how](x, t.device)
    where = "cpu" if how in ("back_to_cpu", "copy_to_cpu") else t.device
    assert got.device.type == where, f"on {got.device}, expected {where}"
    compare(got, x, where=f"{dtype.name} {layout} {how}", device=where)
