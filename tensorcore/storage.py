"""PyTorch's ``torch.storage``: ``UntypedStorage`` (a tensor's bytes, tensorcore's
:class:`~tensorcore.Storage`) and ``TypedStorage`` (the legacy view of them as elements of
a dtype, what ``Tensor.storage()`` returns)."""

from __future__ import annotations

from ._storage import Storage as UntypedStorage
from ._typed_storage import TypedStorage

__all__ = ["TypedStorage", "UntypedStorage"]
