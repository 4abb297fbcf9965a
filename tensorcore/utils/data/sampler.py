"""Samplers: which indices (or batches of indices) a ``DataLoader`` fetches, in what
order."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ... import dtypes as dt
from ...ops import functions as ops
from ...ops.factories import as_tensor
from ...random import Generator

__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
]


class Sampler:
    """Base class: an iterable of indices (``__len__`` where known)."""

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


def _fresh_generator(generator: Any) -> Any:
    if generator is not None:
        return generator
    # A new seed from the default generator each epoch, as PyTorch draws one (a 64-bit
    # draw modulo 2**63: the same seed from the same stream).
    seed = int(ops.randint(0, 2**63, (1,)).item())
    return Generator().manual_seed(seed)


def _skip_permutation(n: int, gen: Any) -> None:
    """Advance ``gen`` as drawing a permutation of ``n`` would, without computing it.

    PyTorch's sampler draws a second, empty-sliced permutation at the end of each epoch; a
    permutation takes ``n - 1`` 32-bit draws, and so do ``n - 1`` integers below 2, at a
    fraction of the cost (the shuffle itself is sequential).
    """
    if n > 1:
        ops.randint(0, 2, (n - 1,), generator=gen)


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``."""

    def __init__(self, data_source: Any) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def _order(self) -> Any:
        """The indices of an epoch as one int64 tensor (what ``__iter__`` yields)."""
        return ops.arange(len(self.data_source))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices (or ``num_samples`` draws with
    ``replacement=True``), from ``generator`` or a fresh seed of the default generator."""

    def __init__(
        self,
        data_source: Any,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Any = None,
    ) -> None:
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        """How many indices an epoch yields."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        gen = _fresh_generator(self.generator)
        if self.replacement:
            for start in range(0, self.num_samples, 32):
                size = min(32, self.num_samples - start)
                yield from ops.randint(0, n, (size,), generator=gen).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from ops.randperm(n, generator=gen).tolist()
        rest = self.num_samples % n
        if rest:
            yield from ops.randperm(n, generator=gen).tolist()[:rest]
        else:
            _skip_permutation(n, gen)

    def __len__(self) -> int:
        return self.num_samples

    def _order(self) -> Any:
        """The indices of an epoch as one int64 tensor, drawing from the generator exactly
        as ``__iter__`` does; None where that is not one permutation."""
        n = len(self.data_source)
        if self.replacement or self.num_samples != n:
            return None
        gen = _fresh_generator(self.generator)
        order = ops.randperm(n, generator=gen)
        _skip_permutation(n, gen)  # __iter__'s draw for the remainder (of length 0)
        return order


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order."""

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices, self.generator = indices, generator

    def __iter__(self) -> Iterator[int]:
        for i in ops.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``."""

    def __init__(
        self,
        weights: Sequence[float],
        num_samples: int,
        replacement: bool = True,
        generator: Any = None,
    ) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        self.weights = as_tensor(weights, dtype=dt.float64)
        if self.weights.ndim != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape "
                f"{tuple(self.weights.shape)}"
            )
        self.num_samples, self.replacement, self.generator = num_samples, replacement, generator

    def __iter__(self) -> Iterator[int]:
        drawn = ops.multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size`` (the last one shorter
    unless ``drop_last``).

    Examples
    --------
    >>> from tensorcore.utils.data import BatchSampler, SequentialSampler
    >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
