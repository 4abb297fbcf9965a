"""Neural networks: :class:`Module` and its layers, losses and containers, ``Parameter``,
``tensorcore.nn.functional``, ``tensorcore.nn.init`` and ``tensorcore.nn.utils``."""

from . import functional
from .parameter import Parameter

__all__ = ["Parameter", "functional"]
