"""``default_collate`` and ``default_convert`` at PyTorch's module path
(``torch.utils.data._utils.collate``); defined in ``tensorcore.utils.data._collate``."""

from __future__ import annotations

from .._collate import default_collate, default_convert

__all__ = ["default_collate", "default_convert"]
