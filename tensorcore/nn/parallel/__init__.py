"""Parallel training wrappers (``torch.nn.parallel``): :class:`DistributedDataParallel`."""

from __future__ import annotations

from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
