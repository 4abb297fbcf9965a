"""The device registry: device type -> the plugin's device interface.

Storages, the frontends' allocator, the factories, ``set_default_device`` and the dispatcher's
errors all need a device's interface; the plugin manager (``tensorcore.plugins.manager``) is
what fills this registry. So that those layers import only downward, the registry lives here,
below all of them, and the manager -- imported by ``tensorcore/__init__.py`` -- installs itself
as the registry's loader (:func:`set_loader`, the one place the dependency is passed in). The
first lookup of an unknown device type then loads the plugins. Nothing here imports the
manager.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .devices import device

__all__ = [
    "comm_backends",
    "devices",
    "interface",
    "interfaces",
    "is_usable",
    "load",
    "set_loader",
]

#: Registered device types and their interfaces (``tensorcore.plugins.DeviceInterface``).
devices: dict[str, Any] = {}
#: Registered communication backends for ``tensorcore.distributed`` (name ->
#: ``tensorcore.plugins.CommBackend``), filled by the manager like ``devices``.
comm_backends: dict[str, Any] = {}


class Loader(Protocol):
    """What the registry asks of the plugin manager."""

    def load(self) -> None:
        """Discover and register every plugin, once."""

    def install_hint(self, name: str) -> str:
        """A sentence telling the user how to get a device type or layout."""

    def installed_summary(self) -> str:
        """The installed backends, for error messages."""


_loader: Loader | None = None


def set_loader(loader: Loader) -> None:
    """Install the plugin manager as the registry's loader (done when it is imported)."""
    global _loader
    _loader = loader


def load() -> None:
    """Load the plugins, once (nothing when no loader is installed)."""
    if _loader is not None:
        _loader.load()


def install_hint(name: str) -> str:
    """How to get the device type or layout ``name``."""
    if _loader is None:
        return f"install a backend package that provides '{name}'"
    return _loader.install_hint(name)


def installed_summary() -> str:
    """The installed backends, named in error messages."""
    return "none" if _loader is None else _loader.installed_summary()


def interfaces() -> dict[str, Any]:
    """Every registered device type and its interface (after loading the plugins)."""
    load()
    return dict(devices)


def is_usable(device_type: str) -> bool:
    """Whether a backend provides ``device_type`` and a device of it can be used here (what
    ``tc.cpu.is_available()`` and an AMP ``GradScaler`` ask); False rather than an error."""
    load()
    iface = devices.get(device_type)
    return iface is not None and iface.unavailable_reason is None and bool(iface.is_available())


def interface(dev: device) -> Any:
    """The interface of ``dev``'s device type; a ``RuntimeError`` saying what to install, or
    why the device is unavailable, when it is unusable."""
    iface = devices.get(dev.type)
    if iface is None:
        load()
        iface = devices.get(dev.type)
        if iface is None:
            raise RuntimeError(
                f"no installed backend provides the device type '{dev.type}': "
                f"{install_hint(dev.type)}. Installed backends: {installed_summary()}"
            )
    if iface.unavailable_reason is not None:
        raise RuntimeError(f"device '{dev}' is not available: {iface.unavailable_reason}")
    if dev.index is not None and dev.index >= iface.device_count():
        raise RuntimeError(
            f"device '{dev}' does not exist: {iface.device_count()} '{dev.type}' device(s) present"
        )
    return iface
