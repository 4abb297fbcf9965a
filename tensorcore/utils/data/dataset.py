"""Datasets: ``Dataset``, ``IterableDataset``, ``TensorDataset``, ``ConcatDataset``,
``Subset`` and ``random_split``, with PyTorch's semantics."""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterator, Sequence
from typing import Any, Generic, TypeVar

from ..._tensor import Tensor
from ...ops import functions as ops

__all__ = [
    "ConcatDataset",
    "Dataset",
    "IterableDataset",
    "Subset",
    "TensorDataset",
    "random_split",
]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map-style dataset: ``dataset[i]`` for ``i`` in ``range(len(dataset))``.
    ``a + b`` concatenates two datasets."""

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[Any]) -> ConcatDataset[Any]:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """A dataset that is an iterable of samples (a stream); with worker processes, each
    worker iterates its own copy (split the stream with ``get_worker_info()``)."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Samples are the rows of tensors that share their first dim.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.utils.data import TensorDataset
    >>> ds = TensorDataset(tc.arange(6).reshape(3, 2), tc.tensor([0, 1, 0]))
    >>> len(ds), ds[1]
    (3, (tensor([2, 3]), tensor(1)))
    """

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        if any(not isinstance(t, Tensor) for t in tensors):
            raise TypeError("TensorDataset takes tensors")
        n = tensors[0].shape[0] if tensors[0].ndim else None
        if n is None or any(t.ndim == 0 or t.shape[0] != n for t in tensors):
            raise ValueError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class ConcatDataset(Dataset[T_co]):
    """Several map-style datasets one after the other."""

    def __init__(self, datasets: Sequence[Dataset[Any]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes: list[int] = []
        total = 0
        for d in self.datasets:
            total += len(d)  # type: ignore[arg-type]
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> T_co:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        d = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[d - 1] if d else 0
        return self.datasets[d][idx - start]


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices``."""

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(
    dataset: Dataset[T_co], lengths: Sequence[int | float], generator: Any = None
) -> list[Subset[T_co]]:
    """Split ``dataset`` into non-overlapping random subsets of the given lengths (or
    fractions summing to 1, the remainder spread round-robin, as PyTorch).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.utils.data import TensorDataset, random_split
    >>> train, test = random_split(TensorDataset(tc.arange(10)), [0.8, 0.2])
    >>> len(train), len(test)
    (8, 2)
    """
    n = len(dataset)  # type: ignore[arg-type]
    sizes: list[int | float] = list(lengths)
    if math.isclose(sum(sizes), 1) and sum(sizes) <= 1:
        counts = [math.floor(n * f) for f in sizes]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        sizes = list(counts)
    if sum(sizes) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = ops.randperm(n, generator=generator).tolist()
    out, start = [], 0
    for size in sizes:
        out.append(Subset(dataset, perm[start : start + int(size)]))
        start += int(size)
    return out
