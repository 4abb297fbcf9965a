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
    if "dtype" not in metafunc.fixturenames:
        return
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


def _strided_target() -> str:
    t = target()
    if t.is_layout:
        pytest.skip("a layout run moves tensors with .to() only (test_transfer)")
    return t.device


def test_the_device_under_its_index() -> None:
    """A device type with one device: ``D`` and ``D:0`` are that device, whichever of the
    two the backend's allocator labels its tensors with (moves, mixed calls and copies)."""
    dev = _strided_target()
    from tensorcore.backend import interface

    if interface(dev).device_count() != 1:
        pytest.skip(f"{dev} has {interface(dev).device_count()} devices")
    x = _source(tc.float32, "contiguous")
    on = x.to(dev, copy=True)  # (on the cpu, x.to("cpu") would be x)
    on0 = x.to(f"{dev}:0")
    assert on0.device.type == dev, f"x.to('{dev}:0') is on {on0.device}"
    compare(on.to(f"{dev}:0"), x, where=f"x.to('{dev}').to('{dev}:0')", device=dev)
    compare(on0.to(dev), x, where=f"x.to('{dev}:0').to('{dev}')", device=dev)
    compare(on + on0, x + x, where=f"a '{dev}' tensor plus a '{dev}:0' one", device=dev)
    on.copy_(on0 * 2)
    compare(on, x * 2, where=f"copy_ of a '{dev}:0' tensor into a '{dev}' one", device=dev)


def test_a_native_array_as_a_foreign_object() -> None:
    """``tc.as_tensor(array)`` of the device's own native array (where its backend's
    ``from_object`` takes one): a tensor on the default device, or on the device asked for,
    holding the array's values."""
    dev = _strided_target()
    from tensorcore.backend import interface, native

    x = _source(tc.float32, "contiguous")
    arr = native(x.to(dev))
    if interface(dev).from_object(arr, None, tc.device(dev), False) is None:
        pytest.skip(f"the {dev} backend's from_object takes no foreign arrays")
    compare(tc.as_tensor(arr), x, where="tc.as_tensor(native array)", device="cpu")
    compare(tc.tensor(arr), x, where="tc.tensor(native array)", device="cpu")
    compare(
        tc.as_tensor(arr, device=dev),
        x,
        where=f"tc.as_tensor(native array, device='{dev}')",
        device=dev,
    )
