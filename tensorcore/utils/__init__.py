"""Utilities: ``tensorcore.utils.data`` (datasets and loaders), ``tensorcore.utils.hooks``
(hook handles) and ``tensorcore.utils.checkpoint`` (activation checkpointing)."""

from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
