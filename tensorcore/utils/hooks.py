"""``RemovableHandle``: what the ``register_*_hook`` methods of modules and optimizers
return."""

from __future__ import annotations

import itertools
from typing import Any

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """``handle.remove()`` unregisters the hook (a second call does nothing); also a context
    manager that removes it on exit.

    Examples
    --------
    >>> from tensorcore.utils.hooks import RemovableHandle
    >>> hooks = {}
    >>> h = RemovableHandle(hooks)
    >>> hooks[h.id] = print
    >>> h.remove()
    >>> hooks
    {}
    """

    _next_id = itertools.count()

    def __init__(self, hooks: dict[int, Any], *extra: dict[int, Any]) -> None:
        self.id = next(RemovableHandle._next_id)
        self._dicts = (hooks, *extra)

    def remove(self) -> None:
        """Unregister the hook."""
        for d in self._dicts:
            d.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()
