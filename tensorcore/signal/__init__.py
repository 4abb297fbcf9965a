"""``tensorcore.signal``: signal processing, as PyTorch's ``torch.signal`` (its window
functions, :mod:`tensorcore.signal.windows`)."""

from . import windows

__all__ = ["windows"]
