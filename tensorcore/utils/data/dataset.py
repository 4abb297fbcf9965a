"""Datasets: ``Dataset``, ``IterableDataset``, ``TensorDataset``, ``ConcatDataset``,
``ChainDataset``, ``StackDataset``, ``Subset`` and ``random_split``, with PyTorch's
semantics."""

from __future__ import annotations

import bisect
import math
from abc import abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from ..._tensor import Tensor
from ...ops import functions as ops

__all__ = [
    "ChainDataset",
    "ConcatDataset",
    "Dataset",
    "IterableDataset",
    "StackDataset",
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


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """A dataset that is an iterable of samples (a stream); with worker processes, each
    worker iterates its own copy (split the stream with ``get_worker_info()``). As in
    PyTorch, it is an abstract ``Iterable``: a class without ``__iter__`` cannot be made."""

    @abstractmethod
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
            raise AssertionError("Size mismatch between tensors")  # (PyTorch's assert)
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


class ChainDataset(IterableDataset[T_co]):
    """Several iterable datasets as one stream: each one's samples in turn, its length the
    sum of theirs.

    Examples
    --------
    >>> from tensorcore.utils.data import ChainDataset, IterableDataset
    >>> class Count(IterableDataset):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         return iter(range(self.n))
    ...     def __len__(self):
    ...         return self.n
    >>> chained = ChainDataset([Count(2), Count(3)])
    >>> list(chained), len(chained)
    ([0, 1, 0, 1, 2], 5)
    """

    def __init__(self, datasets: Any) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator[T_co]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)  # type: ignore[arg-type]
        return total


class StackDataset(Dataset[Any]):
    """Datasets of equal length side by side: sample ``i`` is the tuple of their ``i``-th
    samples (``StackDataset(images, labels)``), or the dict of them by keyword
    (``StackDataset(image=images, label=labels)``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.utils.data import StackDataset, TensorDataset
    >>> xs, ys = TensorDataset(tc.arange(3)), TensorDataset(tc.arange(3) * 10)
    >>> StackDataset(xs, ys)[1]
    ((tensor(1),), (tensor(10),))
    >>> StackDataset(x=xs, y=ys)[2]
    {'x': (tensor(2),), 'y': (tensor(20),)}
    """

    datasets: tuple[Any, ...] | dict[str, Any]

    def __init__(self, *args: Dataset[Any], **kwargs: Dataset[Any]) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or ``dict``- (via ``kwargs``) like "
                "input/output, but both types are given."
            )
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])  # type: ignore[arg-type]
        if any(len(d) != self._length for d in parts):  # type: ignore[arg-type]
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else dict(kwargs)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self) -> int:
        return self._length


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
