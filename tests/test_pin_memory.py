"""Pinned host memory: ``Tensor.pin_memory()``, ``Tensor.is_pinned()`` and
``DataLoader(pin_memory=True)``, through the ``DeviceInterface`` members an accelerator
backend implements (a test-only one here, ``tests/pinning_backend.py``; the CUDA backend's
own test runs where there is a GPU), and PyTorch's error and warning where none can pin."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterator
from typing import Any

import pinning_backend
import pytest

import tensorcore as tc
from tensorcore import backend
from tensorcore.plugins import DeviceInterface
from tensorcore.utils import data

NO_ACCELERATOR = "Cannot access accelerator device when none is available."
NO_ACCELERATOR_WARNING = (
    "'pin_memory' argument is set as true but no accelerator is found, then device pinned "
    "memory won't be used."
)


@pytest.fixture
def pinacc() -> Iterator[pinning_backend.PinningDevice]:
    with pinning_backend.switched_on() as iface:
        yield iface


# ------------------------------------------------------------------ without an accelerator
def test_without_an_accelerator_pin_memory_raises_and_nothing_is_pinned() -> None:
    pinning_backend.install()  # registered, but unavailable: it must not pin
    x = tc.ones(3)
    with pytest.raises(RuntimeError, match=NO_ACCELERATOR):
        x.pin_memory()
    with pytest.raises(RuntimeError, match=NO_ACCELERATOR):
        x.new_empty(2, pin_memory=True)
    assert not x.is_pinned()
    with pytest.raises(RuntimeError, match="'pinacc': it is not available here: the pinning"):
        x.pin_memory("pinacc")


def test_the_device_interface_offers_no_pinning_by_default() -> None:
    class Plain(DeviceInterface):
        type = "plain"

    iface = Plain()
    x = tc.ones(2)
    assert not iface.can_pin_memory() and not iface.is_pinned(x.untyped_storage())
    with pytest.raises(RuntimeError, match="'plain' backend cannot allocate pinned"):
        iface.empty_pinned(8)


# ------------------------------------------------------------------ Tensor.pin_memory
def test_pin_memory_copies_into_pinned_memory(pinacc: Any) -> None:
    x = tc.arange(6.0).reshape(2, 3)
    p = x.pin_memory()
    assert p is not x and p.is_pinned() and not x.is_pinned()
    assert (p.device, p.dtype, p.shape, p.stride()) == (x.device, x.dtype, x.shape, x.stride())
    assert p.tolist() == x.tolist() and pinacc.allocations == [24]
    p[0, 0] = 7.0
    assert x[0, 0].item() == 0.0  # a copy
    assert p[1:].is_pinned() and p.t().is_pinned()  # views of pinned memory are pinned
    assert p.pin_memory() is p  # already pinned
    assert pinacc.allocations == [24]


@pytest.mark.parametrize(
    ("make", "stride"),
    [
        (lambda: tc.arange(12.0).reshape(3, 4).t(), (1, 4)),  # dense, permuted: kept
        (lambda: tc.arange(12.0).reshape(3, 4)[:, ::2], (2, 1)),  # gaps: contiguous
        (lambda: tc.arange(3.0).expand(2, 3), (3, 1)),  # overlapping: contiguous
        (lambda: tc.arange(12.0).reshape(3, 4)[1:], (4, 1)),  # an offset: from 0
        (lambda: tc.ones(0, 3), (3, 1)),
        (lambda: tc.tensor(2.5), ()),
    ],
)
def test_pin_memory_keeps_dense_strides(pinacc: Any, make: Any, stride: tuple[int, ...]) -> None:
    x = make()
    p = x.pin_memory()
    assert p.is_pinned() and p.stride() == stride and p.storage_offset() == 0
    assert p.tolist() == x.tolist()
    assert pinacc.allocations == [x.numel() * 4]


@pytest.mark.parametrize(
    "dtype", [tc.bool, tc.uint8, tc.int64, tc.float16, tc.bfloat16, tc.float64, tc.complex64]
)
def test_pin_memory_keeps_every_dtype(pinacc: Any, dtype: tc.dtype) -> None:
    x = tc.tensor([[0, 1, 2], [3, 4, 5]]).to(dtype)
    p = x.pin_memory()
    assert p.dtype is dtype and p.is_pinned() and p.tolist() == x.tolist()
    assert p.clone().tolist() == x.tolist()


def test_pin_memory_is_differentiable(pinacc: Any) -> None:
    x = tc.tensor([1.0, 2.0], requires_grad=True)
    p = x.pin_memory()
    assert p.requires_grad and p.grad_fn is not None
    (p * p).sum().backward()
    assert x.grad is not None and x.grad.tolist() == [2.0, 4.0]


def test_pin_memory_names_the_backend_and_the_tensor(pinacc: Any) -> None:
    x = tc.ones(2)
    assert x.pin_memory("pinacc").is_pinned() and x.pin_memory("pinacc:0").is_pinned()
    with pytest.raises(RuntimeError, match="'meta': its backend does not offer pinned"):
        x.pin_memory("meta")
    with pytest.raises(RuntimeError, match="only CPU tensors can be pinned"):
        tc.ones(2, device="meta").pin_memory()
    assert not tc.ones(2, device="meta").is_pinned()
    with pytest.raises(TypeError, match="expected a Tensor"):
        tc.Tensor.pin_memory([1.0])


def test_a_backend_that_returns_a_wrong_buffer_is_named(
    pinacc: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pinacc, "empty_pinned", lambda nbytes: tc.empty(nbytes // 4))
    with pytest.raises(
        RuntimeError, match=r"'pinacc' backend's empty_pinned\(8\) returned a float32"
    ):
        tc.ones(2).pin_memory()


def test_new_factories_take_pin_memory(pinacc: Any) -> None:
    base = tc.ones(2, dtype=tc.float64)
    t = base.new_zeros(3, pin_memory=True, requires_grad=True)
    assert t.is_pinned() and t.is_leaf and t.requires_grad and t.dtype is tc.float64
    assert t.tolist() == [0.0, 0.0, 0.0]
    assert not base.new_zeros(3).is_pinned()


def test_sparse_tensors_pin_their_parts(pinacc: Any) -> None:
    pytest.importorskip("tensorcore_sparse")
    s = tc.sparse_coo_tensor([[0, 2]], [1.0, 2.0], (4,))
    p = s.pin_memory()
    assert p.is_sparse and p.is_pinned() and not s.is_pinned()
    assert p._indices().is_pinned() and p._values().is_pinned()
    assert p.to_dense().tolist() == [1.0, 0.0, 2.0, 0.0]
    assert p.pin_memory() is p


# ------------------------------------------------------------------ DataLoader
Pair = namedtuple("Pair", ["x", "label"])


class Records(data.Dataset):  # module level, so that spawned workers can unpickle it
    def __len__(self) -> int:
        return 5

    def __getitem__(self, i: int) -> Any:
        return {"x": tc.full((2,), float(i)), "pair": Pair(tc.tensor(i), f"s{i}"), "id": i}


def _all_pinned(batch: Any) -> bool:
    if isinstance(batch, tc.Tensor):
        return bool(batch.is_pinned())
    if isinstance(batch, dict):
        return all(_all_pinned(v) for v in batch.values())
    if isinstance(batch, (list, tuple)):
        return all(_all_pinned(v) for v in batch if not isinstance(v, str))
    return True


@pytest.mark.parametrize("num_workers", [0, 2])
def test_dataloader_pins_every_tensor_of_a_batch(pinacc: Any, num_workers: int) -> None:
    loader = data.DataLoader(Records(), batch_size=2, pin_memory=True, num_workers=num_workers)
    batches = list(loader)
    plain = list(data.DataLoader(Records(), batch_size=2))
    assert len(batches) == 3
    for got, want in zip(batches, plain, strict=True):
        assert _all_pinned(got) and not _all_pinned(want)
        assert got["x"].tolist() == want["x"].tolist()
        assert isinstance(got["pair"], Pair) and got["pair"].label == want["pair"].label
        assert got["id"].tolist() == want["id"].tolist()


def test_dataloader_pins_the_tensor_dataset_fast_path(pinacc: Any) -> None:
    ds = data.TensorDataset(tc.arange(6.0), tc.arange(6))
    for batch in data.DataLoader(ds, batch_size=4, pin_memory=True, pin_memory_device="pinacc"):
        assert isinstance(batch, list) and all(t.is_pinned() for t in batch)
    # A pin_memory_device that cannot pin: the accelerator that can, as PyTorch >= 2.7 does.
    for batch in data.DataLoader(ds, batch_size=4, pin_memory=True, pin_memory_device="meta"):
        assert all(t.is_pinned() for t in batch)


class Custom:
    """A custom batch type: the loader asks it to pin itself."""

    def __init__(self, t: tc.Tensor) -> None:
        self.t = t

    def pin_memory(self) -> Custom:
        return Custom(self.t.pin_memory())


def test_dataloader_pins_custom_batches_and_keeps_tuples(pinacc: Any) -> None:
    ds = data.TensorDataset(tc.arange(4.0))
    loader = data.DataLoader(
        ds,
        batch_size=2,
        pin_memory=True,
        collate_fn=lambda items: Custom(tc.stack([i[0] for i in items])),
    )
    assert all(b.t.is_pinned() for b in loader)
    loader = data.DataLoader(
        ds, batch_size=2, pin_memory=True, collate_fn=lambda items: (items[0][0], "tag")
    )
    for b in loader:
        # PyTorch 2.13 keeps a tuple a tuple (older versions made it a list).
        assert isinstance(b, tuple) and b[0].is_pinned() and b[1] == "tag"


def test_dataloader_without_an_accelerator_warns_and_goes_on_unpinned() -> None:
    pinning_backend.install()
    ds = data.TensorDataset(tc.arange(6.0))
    loader = data.DataLoader(ds, batch_size=4, pin_memory=True)
    with pytest.warns(UserWarning, match=NO_ACCELERATOR_WARNING) as record:
        batches = list(loader)
    assert len(record) == 1 and record[0].filename == __file__  # the caller's line
    assert [b[0].tolist() for b in batches] == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0]]
    assert not any(b[0].is_pinned() for b in batches)
    with pytest.warns(UserWarning, match=NO_ACCELERATOR_WARNING):
        list(data.DataLoader(ds, batch_size=4, pin_memory=True, pin_memory_device="pinacc"))
    list(data.DataLoader(ds, batch_size=4))  # pin_memory=False: no warning (errors here)


def test_guide_pinning_contract_matches_the_backend_spi() -> None:
    """The members a backend implements are part of the SPI's DeviceInterface."""
    for name in ("can_pin_memory", "empty_pinned", "is_pinned"):
        assert callable(getattr(backend.DeviceInterface, name))
