"""The plugin system: hook specifications, the registration object and the manager."""

from .hookspecs import hookimpl, hookspec
from .registrar import DeviceInterface, Registrar

__all__ = ["DeviceInterface", "Registrar", "hookimpl", "hookspec"]
