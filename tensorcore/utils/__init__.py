"""Utilities: ``tensorcore.utils.data`` (datasets and loaders), ``tensorcore.utils.hooks``
(hook handles), ``tensorcore.utils.checkpoint`` (activation checkpointing) and
``tensorcore.utils._pytree`` (nested containers, as PyTorch's private but widely used
module); ``tensorcore.utils.benchmark`` (timing statements) and
``tensorcore.utils.tensorboard`` (``SummaryWriter``: TensorBoard event files), imported on
demand as PyTorch's."""

from . import _pytree as _pytree  # (private in PyTorch too: not in __all__)
from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
