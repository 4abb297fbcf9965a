"""Backends at runtime: list the plugins, register one without packaging it.

Examples
--------
>>> import tensorcore as tc
>>> "cpu" in [p.name for p in tc.backends.list() if p.status == "loaded"]
True
"""

from __future__ import annotations

import builtins

from .plugins.manager import PluginInfo, device_interfaces, plugins, register

__all__ = ["PluginInfo", "devices", "list", "register"]


def list() -> builtins.list[PluginInfo]:
    """Every backend plugin seen, with its status (``loaded``, ``failed``, ``blocked``)."""
    return plugins()


def devices() -> dict[str, bool]:
    """Registered device types and whether each is available here."""
    return {name: iface.is_available() for name, iface in device_interfaces().items()}
