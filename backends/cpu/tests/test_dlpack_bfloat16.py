"""bfloat16 across DLPack, which NumPy cannot carry: the CPU backend's own capsules
(``tensorcore_cpu/_dlpack.py``), both ways, legacy and versioned, with the lifetimes the
protocol asks for. Every other dtype stays on NumPy's path."""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterator
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from tensorcore_cpu import _dlpack

import tensorcore as tc

BF16 = tc.bfloat16


class Producer:
    """A DLPack producer that hands out a given capsule (and remembers how it was asked)."""

    def __init__(self, capsule: Any, *, legacy_only: bool = False) -> None:
        self.capsule = capsule
        self.legacy_only = legacy_only
        self.asked: list[dict[str, Any]] = []

    def __dlpack__(self, **kwargs: Any) -> Any:
        if self.legacy_only and kwargs:
            raise TypeError(f"__dlpack__() got unexpected keywords {sorted(kwargs)}")
        self.asked.append(kwargs)
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


def _name(capsule: Any) -> str:
    m = re.match(r'<capsule object "([^"]*)"', repr(capsule))
    assert m is not None
    return m.group(1)


pytestmark = pytest.mark.usefixtures("freeze_older_objects")  # (conftest.py)


def _managed(capsule: Any) -> Any:
    """The C structure inside an unconsumed capsule."""
    name = _name(capsule)
    cls = _dlpack.DLManagedTensorVersioned if "versioned" in name else _dlpack.DLManagedTensor
    return cls.from_address(_dlpack._capsule_get_pointer(capsule, name.encode()))


@pytest.fixture
def exports() -> Iterator[Callable[[], int]]:
    """Exports made by the test that are still alive (after a collection)."""
    gc.collect()
    before = _dlpack.live_exports()

    def alive() -> int:
        gc.collect()
        return _dlpack.live_exports() - before

    yield alive
    assert alive() == 0, "an exported bfloat16 capsule was never released"


def _bf16(rows: int = 3, cols: int = 4) -> tc.Tensor:
    return tc.arange(rows * cols, dtype=tc.float32).reshape(rows, cols).to(BF16)


VIEWS: dict[str, Callable[[tc.Tensor], tc.Tensor]] = {
    "contiguous": lambda x: x,
    "transposed": lambda x: x.t(),
    "sliced": lambda x: x[1:, ::2],
    "scalar": lambda x: x[1, 2],
}


@pytest.mark.parametrize("view", VIEWS.values(), ids=VIEWS.keys())
@pytest.mark.parametrize("max_version", [None, (1, 0), (1, 3)])
def test_round_trip_shares_memory(
    view: Callable[[tc.Tensor], tc.Tensor],
    max_version: tuple[int, int] | None,
    exports: Callable[[], int],
) -> None:
    base = _bf16()
    x = view(base)
    capsule = x.__dlpack__(max_version=max_version)
    assert _name(capsule) == ("dltensor" if max_version is None else "dltensor_versioned")
    y = tc.from_dlpack(Producer(capsule))
    assert _name(capsule).startswith("used_")
    assert (y.dtype, y.shape, y.stride()) == (BF16, x.shape, x.stride())
    assert y.data_ptr() == x.data_ptr()
    assert y.tolist() == x.tolist()
    y.fill_(-2.5)
    assert x.tolist() == y.tolist() and (x == -2.5).all()
    x.fill_(7)
    assert (y == 7).all()
    del capsule
    assert exports() == 1  # the consumer holds it
    del y
    assert exports() == 0  # its deleter ran


def test_from_dlpack_asks_for_a_versioned_capsule_then_falls_back() -> None:
    x = _bf16()
    p = Producer(x.__dlpack__(max_version=(1, 0)))
    tc.from_dlpack(p)
    assert p.asked == [{"max_version": (1, 0)}]
    legacy = Producer(x.__dlpack__(), legacy_only=True)
    y = tc.from_dlpack(legacy)
    assert legacy.asked == [{}] and y.data_ptr() == x.data_ptr()
    assert tc.from_dlpack(x).data_ptr() == x.data_ptr()  # (a tensor as the producer)


@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_capsule_fields(max_version: tuple[int, int] | None, exports: Callable[[], int]) -> None:
    base = _bf16(3, 4)
    x = base[1:, 1:].t()
    capsule = x.__dlpack__(max_version=max_version)
    m = _managed(capsule)
    dl = m.dl_tensor
    assert (dl.dtype.code, dl.dtype.bits, dl.dtype.lanes) == (4, 16, 1)  # kDLBfloat
    assert (dl.device.device_type, dl.device.device_id) == (1, 0)  # kDLCPU
    assert dl.ndim == 2
    assert [dl.shape[i] for i in range(2)] == [3, 2]
    assert [dl.strides[i] for i in range(2)] == [1, 4]  # in elements
    assert dl.byte_offset == 0 and dl.data == x.data_ptr()
    if max_version is not None:
        assert (m.version.major, m.version.minor, m.flags) == (1, 0, 0)  # writable, not copied
    assert exports() == 1
    del capsule, m, dl
    assert exports() == 0  # an unconsumed capsule frees its context


def test_export_keeps_the_memory_alive(exports: Callable[[], int]) -> None:
    x = _bf16()
    y = tc.from_dlpack(x[1:])
    expected = y.tolist()
    del x
    gc.collect()
    assert y.tolist() == expected
    z = y[1:]  # a view of the import keeps the producer's memory too
    del y
    assert exports() == 1
    assert z.tolist() == expected[1:]
    del z
    assert exports() == 0


def test_copy_on_export(exports: Callable[[], int]) -> None:
    x = _bf16()
    capsule = x.__dlpack__(max_version=(1, 0), copy=True)
    assert _managed(capsule).flags == 2  # DLPACK_FLAG_BITMASK_IS_COPIED
    y = tc.from_dlpack(Producer(capsule))
    assert y.data_ptr() != x.data_ptr() and y.tolist() == x.tolist()
    y.fill_(0)
    assert x.sum().item() == 66
    shared = x.__dlpack__(max_version=(1, 0), copy=False)
    assert _managed(shared).dl_tensor.data == x.data_ptr()
    del capsule, shared, y


def test_copy_on_import(exports: Callable[[], int]) -> None:
    x = _bf16()
    c = tc.from_dlpack(x, copy=True)
    assert c.data_ptr() != x.data_ptr() and c.tolist() == x.tolist()
    assert exports() == 0  # the shared import behind the copy was released
    s = tc.from_dlpack(x, copy=False)
    assert s.data_ptr() == x.data_ptr()
    del s


def test_read_only_versioned_capsule_is_copied_or_refused(exports: Callable[[], int]) -> None:
    x = _bf16()

    def read_only() -> Any:
        capsule = x.__dlpack__(max_version=(1, 0))
        _managed(capsule).flags = 1  # DLPACK_FLAG_BITMASK_READ_ONLY
        return capsule

    y = tc.from_dlpack(Producer(read_only()))
    assert y.data_ptr() != x.data_ptr() and y.tolist() == x.tolist()
    with pytest.raises(BufferError, match="read-only"):
        tc.from_dlpack(Producer(read_only()), copy=False)
    assert exports() == 0


def test_negatively_strided_capsule_is_copied_or_refused(exports: Callable[[], int]) -> None:
    a = np.arange(5, dtype=np.float32).astype(ml_dtypes.bfloat16)
    y = tc.from_dlpack(Producer(_dlpack.export(a[::-1], versioned=True)))
    assert y.tolist() == [4.0, 3.0, 2.0, 1.0, 0.0] and y.stride() == (1,)
    with pytest.raises(BufferError, match="negatively strided"):
        tc.from_dlpack(Producer(_dlpack.export(a[::-2], versioned=False)), copy=False)
    assert exports() == 0


def test_empty_tensors_cross(exports: Callable[[], int]) -> None:
    x = tc.empty(0, 3, dtype=BF16)
    y = tc.from_dlpack(Producer(x.__dlpack__(max_version=(1, 0))))
    assert (y.dtype, y.shape) == (BF16, (0, 3))
    assert exports() == 0


def test_a_capsule_is_consumed_once(exports: Callable[[], int]) -> None:
    capsule = _bf16().__dlpack__()
    tc.from_dlpack(Producer(capsule))
    with pytest.raises(BufferError, match="consumed"):
        tc.from_dlpack(Producer(capsule))


def test_export_keywords(exports: Callable[[], int]) -> None:
    x = _bf16()
    assert x.__dlpack_device__() == (1, 0)
    assert _name(x.__dlpack__(dl_device=(1, 0))) == "dltensor"
    with pytest.raises(BufferError, match="device"):
        x.__dlpack__(dl_device=(2, 0))
    with pytest.raises(RuntimeError, match="stream"):
        x.__dlpack__(stream=1)
    with pytest.raises(RuntimeError, match="detach"):
        x.requires_grad_().__dlpack__()


def test_a_consumer_that_refuses_the_capsule_keeps_its_error(exports: Callable[[], int]) -> None:
    """NumPy has no kDLBfloat: it takes the capsule, raises and drops it. Its error comes
    through (no SystemError from a Python capsule destructor), and the abandoned export is
    released. (``t.numpy()`` is the way to an ml_dtypes array.)"""
    with pytest.raises((BufferError, RuntimeError, TypeError)) as info:
        np.from_dlpack(_bf16())
    assert not isinstance(info.value, SystemError)
    assert exports() == 0


@pytest.mark.parametrize(
    "dtype", [tc.float16, tc.float32, tc.float64, tc.int8, tc.int64, tc.bool, tc.complex64]
)
def test_other_dtypes_take_numpys_path(
    dtype: tc.dtype, exports: Callable[[], int], monkeypatch: pytest.MonkeyPatch
) -> None:
    x = tc.ones(2, 3, dtype=dtype).t()
    capsule = x.__dlpack__(max_version=(1, 0))
    assert exports() == 0  # NumPy's capsule, not ours
    to_array = _dlpack.to_array
    seen: list[Any] = []
    monkeypatch.setattr(_dlpack, "to_array", lambda c: seen.append(to_array(c)) or seen[-1])
    y = tc.from_dlpack(Producer(capsule))
    assert seen == [None]  # handed on to np.from_dlpack
    assert _name(capsule) == "used_dltensor_versioned"
    assert (y.dtype, y.data_ptr(), y.stride()) == (dtype, x.data_ptr(), x.stride())
    a = np.from_dlpack(x)
    assert a.dtype == np.dtype(dtype.name if dtype is not tc.bool else "bool")
