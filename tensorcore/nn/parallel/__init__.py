"""Parallel training wrappers (``torch.nn.parallel``): :class:`DistributedDataParallel`, and
:class:`DataParallel` (which runs its module in this process)."""

from __future__ import annotations

from ..modules.data_parallel import DataParallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel"]
