"""Communication hooks for ``DistributedDataParallel.register_comm_hook`` (PyTorch's
``torch.distributed.algorithms.ddp_comm_hooks``); :mod:`.default_hooks` has the all-reduce
and the half-precision compression hooks, :mod:`.powerSGD_hook` PowerSGD's low-rank
compression."""

from __future__ import annotations

from . import default_hooks, powerSGD_hook

__all__ = ["default_hooks", "powerSGD_hook"]
