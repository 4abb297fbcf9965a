"""A cache of large host blocks, so that elementwise chains on big tensors stop paying the
operating system for fresh pages.

A freshly allocated array of a few megabytes or more comes from ``mmap``; every first write to
each of its pages then faults, which costs about as much as the arithmetic itself
(``exp(a * b + c)`` on 10^7 floats spends a third of its time there). NumPy hides part of this
by reusing temporaries whose reference count says nobody else holds them; PyTorch's CUDA
allocator caches blocks. This cache keeps the blocks of dead storages of at least
``MIN_BYTES`` and hands them to the next allocation of the same size.

A block is kept only when nothing else refers to it when its storage dies: any NumPy view of
the memory (``t.numpy()``, a DLPack export, a SciPy matrix over a tensor's values) holds a
reference to the block, which the reference count shows. ``TENSORCORE_CPU_CACHE_MB`` bounds the
bytes held (default 256; 0 turns the cache off).
"""

from __future__ import annotations

import os
import sys
import weakref
from typing import Any

import numpy as np

__all__ = ["MIN_BYTES", "BlockCache", "cache"]

#: Blocks below this size come from NumPy's own small-block cache and malloc's arenas.
MIN_BYTES = 1 << 20


class _Probe:
    """Has the slot structure of a ``Storage``: what the reference count is calibrated on."""

    __slots__ = ("__weakref__", "data")

    def __init__(self) -> None:
        self.data: Any = np.empty(1, np.uint8)


class BlockCache:
    """Free blocks by size in bytes, at most ``limit`` bytes in all."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held = 0
        self.free: dict[int, list[Any]] = {}
        # The reference count of a block that only its dying storage and this cache's
        # finalizer still hold, measured once on a probe built like a storage.
        self._baseline = -1
        probe = _Probe()
        self.watch(probe, probe.data)
        del probe

    def take(self, nbytes: int) -> Any:
        """A free block of exactly ``nbytes``, or None."""
        blocks = self.free.get(nbytes)
        if not blocks:
            return None
        self.held -= nbytes
        return blocks.pop()

    def watch(self, storage: Any, block: Any, data: Any = None) -> None:
        """Offer ``block`` (the array owning ``storage``'s memory) back to the cache when
        ``storage`` dies. ``data`` is the storage's array where it is a view of ``block``
        (a reused block, viewed in another dtype and shape) rather than ``block`` itself."""
        weakref.finalize(storage, self._give, block, data).atexit = False

    def _give(self, block: Any, data: Any = None) -> None:
        refs = sys.getrefcount(block)
        if self._baseline < 0:
            self._baseline = refs  # the probe's own death
            return
        n = block.nbytes
        # A storage over a view of its block: the view stands where the block stood (the
        # dying storage's slot holds it, and it holds the block as its base), so each of them
        # counts one reference more than the baseline only when something else holds it: a
        # NumPy array over the storage (``t.numpy()``) holds the view, a slice of one holds
        # the block. (Counting the block alone missed the first: the block went back to the
        # cache while ``t.numpy()`` still showed its memory.)
        if data is not None and sys.getrefcount(data) > self._baseline:
            return
        if refs > self._baseline or self.held + n > self.limit:
            return  # still viewed elsewhere, or the cache is full: let it be freed
        self.free.setdefault(n, []).append(block)
        self.held += n

    def clear(self) -> None:
        """Release every cached block."""
        self.free.clear()
        self.held = 0


def _make() -> BlockCache | None:
    mb = int(os.environ.get("TENSORCORE_CPU_CACHE_MB", "256") or 0)
    return BlockCache(mb << 20) if mb > 0 else None


#: The process's cache (None when ``TENSORCORE_CPU_CACHE_MB=0``).
cache = _make()
