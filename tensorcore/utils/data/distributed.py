"""``DistributedSampler``: each process of a data-parallel job takes its own shard of a
dataset (``torch.utils.data.distributed``)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Indices of the shard of ``dataset`` that rank ``rank`` of ``num_replicas`` reads.

    As in PyTorch: with ``shuffle`` the indices are permuted by a generator seeded with
    ``seed + epoch`` (call :meth:`set_epoch` at the start of every epoch, or every epoch gets
    the same order), identically on every rank; then either the list is padded with its own
    first indices up to a multiple of ``num_replicas`` (every rank gets
    ``ceil(len / num_replicas)``), or with ``drop_last`` its tail is dropped; rank ``r``
    takes every ``num_replicas``-th index starting at ``r``.

    Parameters
    ----------
    dataset
        A dataset with ``__len__``.
    num_replicas, rank
        The number of processes and this one's rank; from the default process group
        (``tensorcore.distributed``) when None.
    shuffle
        Permute the indices (default True).
    seed
        The same on every rank (default 0).
    drop_last
        Drop the tail instead of padding.

    Examples
    --------
    >>> from tensorcore.utils.data.distributed import DistributedSampler
    >>> data = list(range(10))
    >>> [list(DistributedSampler(data, num_replicas=3, rank=r, shuffle=False)) for r in range(3)]
    [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    >>> len(DistributedSampler(data, num_replicas=3, rank=0, drop_last=True))
    3
    """

    def __init__(
        self,
        dataset: Any,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        if num_replicas is None or rank is None:
            from ... import distributed as dist

            if not dist.is_initialized():
                raise RuntimeError(
                    "DistributedSampler: give num_replicas and rank, or call "
                    "tensorcore.distributed.init_process_group() first"
                )
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if not isinstance(num_replicas, int) or num_replicas < 1:
            raise ValueError(
                f"DistributedSampler: num_replicas must be a positive int, got {num_replicas!r}"
            )
        if not isinstance(rank, int) or rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas, self.rank = num_replicas, rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle, self.seed = shuffle, seed

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            from ... import Generator, randperm

            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices: list[int] = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            elif indices:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[: self.total_size]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch, which seeds the shuffle (``seed + epoch``): call it before each
        epoch's iteration, with the same value on every rank."""
        self.epoch = epoch
