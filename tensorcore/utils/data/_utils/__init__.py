"""PyTorch's private module path of the data loader's helpers
(``torch.utils.data._utils.collate``), which programs import ``default_collate`` from."""

from __future__ import annotations

from . import collate

__all__ = ["collate"]
