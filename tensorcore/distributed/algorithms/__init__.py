"""Algorithms around data-parallel training (PyTorch's ``torch.distributed.algorithms``):
:mod:`.ddp_comm_hooks`, the communication hooks of ``DistributedDataParallel``."""

from __future__ import annotations

from . import ddp_comm_hooks

__all__ = ["ddp_comm_hooks"]
