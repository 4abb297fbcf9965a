"""``tensorcore.utils.data``: datasets, samplers, collation and the DataLoader (single
process and worker processes), with PyTorch's semantics."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close
from tensorcore.utils import data

Point = namedtuple("Point", ["x", "y"])


class Squares(data.Dataset):  # module level, so that spawned workers can unpickle it
    def __len__(self) -> int:
        return 11

    def __getitem__(self, i: int) -> dict[str, Any]:
        return {"x": tc.tensor([float(i), float(i * i)]), "label": i, "name": f"s{i}"}


class Failing(data.Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> Any:
        if i == 2:
            raise ValueError("bad sample 2")
        return tc.tensor(float(i))


class Stream(data.IterableDataset):
    def __init__(self, n: int) -> None:
        self.n = n

    def __iter__(self) -> Any:
        info = data.get_worker_info()
        lo, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(lo, self.n, step))

    def __len__(self) -> int:
        return self.n


class SeedReport(data.Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> Any:
        info = data.get_worker_info()
        return tc.tensor([info.id, info.seed % 1000, int(tc.randint(0, 10**6, (1,)).item())])


class Pids(data.Dataset):
    def __len__(self) -> int:
        return 8

    def __getitem__(self, i: int) -> Any:
        import os

        return tc.tensor([i, os.getpid()])


def _tensors() -> data.TensorDataset:
    return data.TensorDataset(tc.arange(30.0).reshape(10, 3), tc.arange(10))


def test_tensor_dataset_subset_concat() -> None:
    ds = _tensors()
    assert len(ds) == 10
    x, y = ds[3]
    assert x.tolist() == [9.0, 10.0, 11.0] and y.item() == 3
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        data.TensorDataset(tc.ones(3), tc.ones(4))
    sub = data.Subset(ds, [4, 1])
    assert len(sub) == 2 and sub[1][1].item() == 1
    cat = ds + sub
    assert isinstance(cat, data.ConcatDataset) and len(cat) == 12
    assert cat[10][1].item() == 4 and cat[-1][1].item() == 1


def test_random_split_sizes_fractions_and_reproducibility() -> None:
    ds = _tensors()
    a, b = data.random_split(ds, [7, 3], generator=tc.Generator().manual_seed(1))
    assert len(a) == 7 and len(b) == 3
    assert sorted(a.indices + b.indices) == list(range(10))
    c, _ = data.random_split(ds, [7, 3], generator=tc.Generator().manual_seed(1))
    assert c.indices == a.indices
    parts = data.random_split(ds, [0.5, 0.3, 0.2])
    assert [len(p) for p in parts] == [5, 3, 2]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        data.random_split(ds, [5, 6])


def test_samplers() -> None:
    assert list(data.SequentialSampler(range(4))) == [0, 1, 2, 3]
    g = tc.Generator().manual_seed(3)
    perm = list(data.RandomSampler(range(6), generator=g))
    assert sorted(perm) == list(range(6))
    again = list(data.RandomSampler(range(6), generator=tc.Generator().manual_seed(3)))
    assert perm == again
    rep = list(data.RandomSampler(range(3), replacement=True, num_samples=50))
    assert len(rep) == 50 and set(rep) <= {0, 1, 2}
    more = list(data.RandomSampler(range(3), num_samples=7))
    assert len(more) == 7 and sorted(more[:3]) == [0, 1, 2]
    sub = list(data.SubsetRandomSampler([10, 20, 30]))
    assert sorted(sub) == [10, 20, 30]
    w = list(data.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 200, generator=g))
    assert set(w) <= {1, 3} and w.count(3) > w.count(1)
    assert sorted(data.WeightedRandomSampler([1, 1, 1], 3, replacement=False)) == [0, 1, 2]
    bs = data.BatchSampler(range(7), 3, drop_last=True)
    assert list(bs) == [[0, 1, 2], [3, 4, 5]] and len(bs) == 2
    assert len(data.BatchSampler(range(7), 3, drop_last=False)) == 3
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        data.BatchSampler(range(3), 0, False)


def test_default_collate_cases() -> None:
    c = data.default_collate
    assert c([1.5, 2.5]).dtype is tc.float64 and c([1, 2]).dtype is tc.int64
    assert c([True, False]).dtype is tc.bool
    assert c(["a", "b"]) == ["a", "b"]
    out = c([{"a": tc.ones(2), "b": 1}, {"a": tc.zeros(2), "b": 2}])
    assert out["a"].shape == (2, 2) and out["b"].tolist() == [1, 2]
    pt = c([Point(1, 2.0), Point(3, 4.0)])
    assert isinstance(pt, Point) and pt.x.tolist() == [1, 3]
    assert isinstance(c([(1, 2), (3, 4)]), list)
    # A field of strings is the tuple zip makes, as in PyTorch (image, label, path samples).
    assert c([(1, "a.png"), (2, "b.png")])[1] == ("a.png", "b.png")
    assert c([{"p": "a"}, {"p": "b"}])["p"] == ["a", "b"]
    assert c([np.array([1.0, 2.0]), np.array([3.0, 4.0])]).shape == (2, 2)
    assert c([np.float32(1), np.float32(2)]).dtype is tc.float32
    with pytest.raises(RuntimeError, match="equal size"):
        c([[1, 2], [3]])
    conv = data.default_convert({"a": np.arange(3), "b": "x"})
    assert isinstance(conv["a"], tc.Tensor) and conv["b"] == "x"


def test_dataloader_batches_shuffle_and_drop_last() -> None:
    ds = _tensors()
    batches = list(data.DataLoader(ds, batch_size=4))
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert len(data.DataLoader(ds, batch_size=4, drop_last=True)) == 2
    g1, g2 = tc.Generator().manual_seed(5), tc.Generator().manual_seed(5)
    a = [b[1].tolist() for b in data.DataLoader(ds, batch_size=3, shuffle=True, generator=g1)]
    b = [b[1].tolist() for b in data.DataLoader(ds, batch_size=3, shuffle=True, generator=g2)]
    assert (
        a == b and sorted(i for batch in a for i in batch) == list(range(10)) and a[0] != [0, 1, 2]
    )
    single = list(data.DataLoader(ds, batch_size=None))
    assert len(single) == 10 and single[2][1].item() == 2


def test_tensor_dataset_fast_path_equals_generic_collation() -> None:
    ds = _tensors()
    fast = list(
        data.DataLoader(ds, batch_size=4, shuffle=True, generator=tc.Generator().manual_seed(0))
    )
    slow = list(
        data.DataLoader(
            ds,
            batch_size=4,
            shuffle=True,
            generator=tc.Generator().manual_seed(0),
            collate_fn=lambda b: data.default_collate(b),
        )
    )
    for (fx, fy), (sx, sy) in zip(fast, slow, strict=True):
        assert_close(fx, sx)
        assert fy.tolist() == sy.tolist()
    # Both paths draw the same numbers from the generator (the next epoch agrees too).
    g1, g2 = tc.Generator().manual_seed(3), tc.Generator().manual_seed(3)
    list(data.DataLoader(ds, batch_size=3, shuffle=True, generator=g1, drop_last=True))
    list(data.DataLoader(ds, batch_size=3, shuffle=True, generator=g2,
                         collate_fn=data.default_collate.__call__))  # fmt: skip
    assert tc.rand(2, generator=g1).tolist() == tc.rand(2, generator=g2).tolist()


def test_dataloader_option_errors() -> None:
    ds = _tensors()
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        data.DataLoader(ds, shuffle=True, sampler=data.SequentialSampler(ds))
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        data.DataLoader(ds, batch_size=3, batch_sampler=data.BatchSampler(range(10), 2, False))
    with pytest.raises(ValueError, match="mutually exclusive with drop_last"):
        data.DataLoader(ds, batch_size=None, drop_last=True)
    with pytest.raises(ValueError, match="IterableDataset: expected unspecified shuffle"):
        data.DataLoader(Stream(3), shuffle=True)
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        data.DataLoader(ds, num_workers=-1)
    loader = data.DataLoader(ds, batch_sampler=data.BatchSampler(range(10), 5, False))
    assert [b[1].tolist() for b in loader] == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]


def test_iterable_dataset_single_process() -> None:
    assert [b.tolist() for b in data.DataLoader(Stream(7), batch_size=3)] == [
        [0, 1, 2], [3, 4, 5], [6]
    ]  # fmt: skip
    assert [b.tolist() for b in data.DataLoader(Stream(7), batch_size=3, drop_last=True)] == [
        [0, 1, 2], [3, 4, 5]
    ]  # fmt: skip
    assert len(data.DataLoader(Stream(7), batch_size=3)) == 3


@pytest.mark.parametrize("context", [None, "spawn"])
def test_workers_give_the_single_process_batches(context: Any) -> None:
    kw = {"batch_size": 3, "multiprocessing_context": context}
    one = list(data.DataLoader(Squares(), **{**kw, "multiprocessing_context": None}))
    two = list(data.DataLoader(Squares(), num_workers=2, **kw))
    assert len(one) == len(two) == 4
    for a, b in zip(one, two, strict=True):
        assert_close(a["x"], b["x"])
        assert a["label"].tolist() == b["label"].tolist() and a["name"] == b["name"]


def test_workers_with_iterable_dataset_and_worker_info() -> None:
    got = [b.tolist() for b in data.DataLoader(Stream(10), batch_size=3, num_workers=2)]
    assert sorted(i for batch in got for i in batch) == list(range(10))
    assert got[0] == [0, 2, 4] and got[1] == [1, 3, 5]
    seeds = list(data.DataLoader(SeedReport(), batch_size=None, num_workers=2))
    ids = {int(s[0]) for s in seeds}
    assert ids == {0, 1}


def test_worker_error_is_reraised_with_its_type() -> None:
    loader = data.DataLoader(Failing(), batch_size=1, num_workers=2)
    with pytest.raises(ValueError, match="Caught ValueError in DataLoader worker process"):
        list(loader)
    with pytest.raises(ValueError, match="bad sample 2"):
        list(data.DataLoader(Failing(), batch_size=1))


def _epoch(loader: data.DataLoader) -> tuple[list[int], set[int]]:
    rows = [r for b in loader for r in b.tolist()]
    return [r[0] for r in rows], {r[1] for r in rows}


def test_persistent_workers_live_across_epochs() -> None:
    loader = data.DataLoader(Pids(), batch_size=3, num_workers=2, persistent_workers=True)
    first, pids = _epoch(loader)
    assert first == list(range(8)) and len(pids) == 2
    for _ in range(2):
        again, same = _epoch(loader)
        assert again == first and same == pids  # the same two processes
    for _ in loader:  # an epoch left early: its late results must not leak into the next
        break
    assert _epoch(loader) == (first, pids)
    # An iterable dataset starts over in every epoch on the same workers.
    stream = data.DataLoader(Stream(10), batch_size=3, num_workers=2, persistent_workers=True)
    epochs = [sorted(i for b in stream for i in b.tolist()) for _ in range(3)]
    assert epochs == [list(range(10))] * 3


def test_workers_are_new_each_epoch_without_persistence() -> None:
    loader = data.DataLoader(Pids(), batch_size=4, num_workers=2)
    assert _epoch(loader)[1].isdisjoint(_epoch(loader)[1])


def test_stack_and_chain_datasets() -> None:
    from tensorcore.utils.data import (
        ChainDataset,
        DataLoader,
        IterableDataset,
        StackDataset,
        TensorDataset,
    )

    xs, ys = TensorDataset(tc.arange(4.0)), TensorDataset(tc.arange(4) * 10)
    batch = next(iter(DataLoader(StackDataset(x=xs, y=ys), batch_size=4)))
    assert batch["x"][0].tolist() == [0.0, 1.0, 2.0, 3.0] and batch["y"][0].tolist() == [
        0,
        10,
        20,
        30,
    ]
    assert len(StackDataset(xs, ys)) == 4 and StackDataset(xs, ys)[3][1][0].item() == 30
    with pytest.raises(ValueError, match="Size mismatch"):
        StackDataset(xs, TensorDataset(tc.arange(3)))
    with pytest.raises(ValueError, match="both types"):
        StackDataset(xs, y=ys)
    with pytest.raises(ValueError, match="At least one"):
        StackDataset()

    class Stream(IterableDataset):
        def __init__(self, items: list[int]) -> None:
            self.items = items

        def __iter__(self):  # type: ignore[no-untyped-def]
            return iter(self.items)

        def __len__(self) -> int:
            return len(self.items)

    chained = ChainDataset([Stream([1, 2]), Stream([3])])
    assert list(chained) == [1, 2, 3] and len(chained) == 3
    with pytest.raises(AssertionError, match="IterableDataset"):
        list(ChainDataset([xs]))
