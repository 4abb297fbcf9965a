"""``import tensorcore.<name>`` for the namespaces that plugins expose as attributes."""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from types import ModuleType
from typing import Any

from .plugins import manager


class _PluginModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import tensorcore.sparse`` (and ``from tensorcore.sparse import mm``) for a namespace
    a plugin exposes as ``tensorcore.<name>``: consulted after the regular finders, so it sees
    only names with no module of the core's own."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        prefix, _, name = fullname.partition(".")
        if prefix != "tensorcore" or not name or "." in name or name.startswith("_"):
            return None
        manager.load()
        hit = manager.attributes.get(name)
        if hit is None or not isinstance(hit[0], ModuleType):
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: Any) -> Any:
        return manager.attributes[spec.name.partition(".")[2]][0]

    def exec_module(self, module: Any) -> None:
        pass  # (the plugin imported it)


def install() -> None:
    """Put the finder last on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _PluginModules) for f in sys.meta_path):
        sys.meta_path.append(_PluginModules())
