"""Neural-network helpers (``tensorcore.nn.functional``)."""

from . import functional

__all__ = ["functional"]
