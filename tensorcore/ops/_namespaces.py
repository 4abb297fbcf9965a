"""``tensorcore.ops.<namespace>.<operator>``: PyTorch's ``torch.ops`` namespaces.

A namespace holds the operator packets registered under it: the custom operators that
``tensorcore.library`` defines (``mylib::crop`` is ``tensorcore.ops.mylib.crop``), and, in
``aten``, the built-in operators under PyTorch's names (``tensorcore.library`` registers it).
This module only keeps them; it is in the operator-table layer so that the ``tensorcore.ops``
package can answer an attribute it does not have without importing anything above it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["OpNamespace", "defined", "namespace"]


class OpNamespace:
    """One ``torch.ops`` namespace: attribute access finds an operator registered in it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._ops: dict[str, Any] = {}

    def __getattr__(self, op: str) -> Any:
        if op.startswith("__"):
            raise AttributeError(op)
        found = self._ops.get(op)
        if found is None:
            found = self._missing(op)
        return found

    def _missing(self, op: str) -> Any:
        """What an operator name not registered gives (a subclass may find it elsewhere)."""
        raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op}'")

    def register(self, op: str, packet: Any) -> None:
        """Make ``packet`` this namespace's ``op`` (replacing an earlier one, as PyTorch's
        ``custom_op`` replaces an operator defined again under the same name)."""
        self._ops[op] = packet

    def __iter__(self) -> Any:
        return iter(sorted(self._ops))

    def __repr__(self) -> str:
        return f"<module 'torch.ops.{self.name}'>"


_NAMESPACES: dict[str, OpNamespace] = {}


def namespace(name: str, cls: type[OpNamespace] = OpNamespace) -> OpNamespace:
    """The namespace called ``name`` (made, empty, on first use, as ``torch.ops`` makes one);
    ``cls`` makes a namespace that finds unregistered names elsewhere (``aten``)."""
    ns = _NAMESPACES.get(name)
    if ns is None or (cls is not OpNamespace and type(ns) is OpNamespace):
        fresh = cls(name)
        if ns is not None:
            fresh._ops.update(ns._ops)
        ns = _NAMESPACES[name] = fresh
    return ns


def defined(name: str) -> OpNamespace | None:
    """The namespace called ``name`` where something was registered in it, else None."""
    return _NAMESPACES.get(name)
