"""The plugin system: hook specifications, the registration object and the manager.

``hookimpl``/``hookspec`` (pluggy markers) are imported on first use, so that
``import tensorcore`` does not pay for pluggy until plugins are loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .registrar import CommBackend, DeviceInterface, Registrar

if TYPE_CHECKING:
    from .hookspecs import hookimpl, hookspec

__all__ = ["CommBackend", "DeviceInterface", "Registrar", "checked", "hookimpl", "hookspec"]


def __getattr__(name: str) -> Any:
    if name in ("hookimpl", "hookspec"):
        from . import hookspecs

        return getattr(hookspecs, name)
    if name == "checked":
        # The argument checks and error naming of the operators, for a plugin's own public
        # functions (see ``tensorcore.ops._validate.checked``).
        from ..ops._validate import checked

        return checked
    raise AttributeError(f"module 'tensorcore.plugins' has no attribute '{name}'")
