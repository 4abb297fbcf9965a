"""Utilities: ``tensorcore.utils.data`` (datasets and loaders) and ``tensorcore.utils.hooks``
(hook handles)."""

from . import data, hooks

__all__ = ["data", "hooks"]
