"""Plugin discovery and loading: entry points, blocking, failure isolation, listing.

Plugins load once, lazily, the first time something needs them (an operator's first call on a
device, a device lookup, ``tc.backends.list()``) -- never at ``import tensorcore`` and never on
the per-call path. Internal plugins (the core's own strided views and composite operators)
load through the same path as external ones.
"""

from __future__ import annotations

import importlib
import os
import threading
import traceback
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import dispatch, layouts
from .registrar import DeviceInterface, Registrar

if TYPE_CHECKING:
    from ..devices import device

__all__ = ["PluginInfo", "device_backend", "device_interfaces", "load", "plugins", "register"]

ENTRY_POINT_GROUP = "tensorcore.backends"
_INTERNAL = ("tensorcore.ops.views", "tensorcore.ops.composite")
# Where to get a device type or layout that no installed plugin provides.
_INSTALL_HINTS = {
    "cpu": "tensorcore-cpu",
    "cuda": "tensorcore-cuda",
    "sparse_coo": "tensorcore-sparse",
}


@dataclass
class PluginInfo:
    """One plugin as the manager saw it: where it came from and whether it loaded."""

    name: str
    module: str
    distribution: str | None = None
    version: str | None = None
    status: str = "pending"  # "loaded", "failed" or "blocked"
    error: str | None = None
    devices: list[str] = field(default_factory=list)
    layouts: list[str] = field(default_factory=list)
    kernels: int = 0


_pm: Any = None  # the pluggy PluginManager, made by load()
_lock = threading.RLock()
_loaded = False
_plugins: dict[str, PluginInfo] = {}
_devices: dict[str, DeviceInterface] = {}
# Public names plugins add to the ``tensorcore`` namespace: name -> (value, plugin).
attributes: dict[str, tuple[Any, str]] = {}


def _allowed() -> set[str] | None:
    raw = os.environ.get("TENSORCORE_BACKENDS")
    if raw is None:
        return None
    return {name.strip() for name in raw.split(",") if name.strip()}


def load() -> None:
    """Discover and register every plugin, once. Safe to call many times."""
    global _loaded, _pm
    if _loaded:
        return
    with _lock:
        if _loaded:
            return
        # pluggy and importlib.metadata are imported here, not at ``import tensorcore``.
        from importlib import metadata

        import pluggy

        from . import hookspecs

        _pm = pluggy.PluginManager("tensorcore")
        _pm.add_hookspecs(hookspecs)
        _loaded = True
        for modname in _INTERNAL:
            _register_module(
                importlib.import_module(modname), modname.rsplit(".", 1)[-1], modname, None
            )
        allowed = _allowed()
        for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            dist = getattr(ep, "dist", None)
            info = PluginInfo(
                ep.name,
                ep.value,
                dist.metadata["Name"] if dist is not None else None,
                dist.version if dist is not None else None,
            )
            taken = _plugins.get(ep.name)
            if taken is not None:
                if taken.module != ep.value:
                    # Another plugin under a name already in use (a built-in's, or another
                    # distribution's): say so instead of silently loading only the first.
                    warnings.warn(
                        f"tensorcore: backend plugin '{ep.name}' ({ep.value}, from "
                        f"{info.distribution or 'an unknown distribution'}) is not loaded: the "
                        f"name '{ep.name}' is already taken by {taken.module} (from "
                        f"{taken.distribution}); rename its entry point in the "
                        f"'{ENTRY_POINT_GROUP}' group",
                        RuntimeWarning,
                        stacklevel=2,
                    )
                continue  # else: the same distribution seen twice on sys.path
            _plugins[ep.name] = info
            if allowed is not None and ep.name not in allowed:
                info.status = "blocked"
                info.error = "not listed in TENSORCORE_BACKENDS"
                continue
            try:
                module = ep.load()
            except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the others
                _fail(info, exc)
                continue
            _register_module(module, ep.name, ep.value, info)


def _fail(info: PluginInfo, exc: BaseException) -> None:
    info.status = "failed"
    info.error = f"{type(exc).__name__}: {exc}"
    warnings.warn(
        f"tensorcore: backend plugin '{info.name}' ({info.module}) failed to load and is "
        f"disabled: {info.error}\n{''.join(traceback.format_exception(exc)).rstrip()}",
        RuntimeWarning,
        stacklevel=3,
    )


def _register_module(module: Any, name: str, modname: str, info: PluginInfo | None) -> PluginInfo:
    if info is None:
        info = _plugins[name] = PluginInfo(name, modname, "tensorcore")
    reg = Registrar(name)
    try:
        _pm.register(module, name=name)
    except Exception as exc:  # noqa: BLE001
        _fail(info, exc)
        return info
    try:
        _call_one(module, "tensorcore_register_devices", reg)
        _call_one(module, "tensorcore_register_layouts", reg)
        _call_one(module, "tensorcore_register_kernels", reg)
        _commit(reg, info)
    except Exception as exc:  # noqa: BLE001
        _pm.unregister(module)
        _fail(info, exc)
    return info


def _call_one(module: Any, hook: str, reg: Registrar) -> None:
    # Calling only this plugin's implementation keeps one plugin's failure its own.
    for impl in getattr(_pm.hook, hook).get_hookimpls():
        if impl.plugin is module:
            impl.function(register=reg)


def _commit(reg: Registrar, info: PluginInfo) -> None:
    for iface in reg.devices:
        old = _devices.get(iface.type)
        if old is not None:
            raise RuntimeError(
                f"device type '{iface.type}' is registered by both plugin "
                f"'{_owner(old)}' and plugin '{reg.plugin}'"
            )
    for lname, _priority in reg.layouts:
        old_layout = layouts.get_layout(lname)
        if old_layout is not None:
            raise RuntimeError(
                f"layout '{lname}' is registered by both plugin '{old_layout.plugin}' and "
                f"plugin '{reg.plugin}'"
            )
    runtime_ops = dispatch.ops()
    for decl in reg.new_ops:
        if decl.name in runtime_ops:
            raise RuntimeError(
                f"plugin '{reg.plugin}' declares operator '{decl.name}', which exists"
            )
    import tensorcore

    for decl in reg.new_ops:
        if decl.function and decl.name in vars(tensorcore):
            raise RuntimeError(f"plugin '{reg.plugin}' cannot replace tensorcore.{decl.name}")
    new_names = {d.name for d in reg.new_ops}
    dispatch.check_kernels([k for k in reg.kernels if k[0] not in new_names], reg.plugin)
    # Everything is validated: from here on the plugin's registrations take effect.
    if reg.new_ops:
        from ..ops import _api

        for decl in reg.new_ops:
            # Into the runtime table (dispatch.ops()), not the core's table (ops.schema.OPS),
            # which stays the core's operators whatever the installed plugins declare.
            _api.build_one(decl)
    dispatch.check_kernels([k for k in reg.kernels if k[0] in new_names], reg.plugin)

    for name, _ in reg.attributes:
        if name in attributes:
            raise RuntimeError(
                f"tensorcore.{name} is exposed by both plugin '{attributes[name][1]}' and "
                f"plugin '{reg.plugin}'"
            )
        if name in vars(tensorcore):
            raise RuntimeError(f"plugin '{reg.plugin}' cannot replace tensorcore.{name}")
    for iface in reg.devices:
        iface._plugin = reg.plugin  # type: ignore[attr-defined]
        _devices[iface.type] = iface
        info.devices.append(iface.type)
    for lname, priority in reg.layouts:
        layouts.register_layout(lname, priority, reg.plugin)
        info.layouts.append(lname)
    dispatch.add_kernels(reg.kernels, reg.plugin)
    for name, value in reg.attributes:
        attributes[name] = (value, reg.plugin)
    for decl in reg.new_ops:
        if decl.function:
            from ..ops._api import FUNCTIONS

            attributes[decl.name] = (FUNCTIONS[decl.name], reg.plugin)
    if reg.derivatives:
        from ..autograd.step import derivative_overrides, forget_rules, overridden_ops
        from ..ops.derivatives import Derivative

        for op, dev, lay, saves, fn in reg.derivatives:
            derivative_overrides[op, dev, lay] = Derivative(saves, fn)
            overridden_ops.add(op)
        forget_rules()
    info.kernels = len(reg.kernels)
    info.status = "loaded"


def _owner(iface: DeviceInterface) -> str:
    return getattr(iface, "_plugin", "?")


def register(plugin: Any, name: str | None = None) -> PluginInfo:
    """Register a backend plugin object or module at runtime, without packaging it.

    The plugin's hooks run immediately. Errors (a hook raising, a duplicate kernel) raise
    here, since the caller asked for this plugin explicitly.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.plugins import hookimpl
    >>> class Doubler:
    ...     @hookimpl
    ...     def tensorcore_register_kernels(self, register):
    ...         pass
    >>> tc.backends.register(Doubler(), name="doc-example").status
    'loaded'
    """
    load()
    name = name or getattr(plugin, "__name__", None) or type(plugin).__name__
    with _lock:
        if name in _plugins and _plugins[name].status == "loaded":
            raise ValueError(f"a backend plugin named '{name}' is already registered")
        info = PluginInfo(name, getattr(plugin, "__name__", type(plugin).__qualname__), None)
        _plugins[name] = info
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _register_module(plugin, name, info.module, info)
        if info.status != "loaded":
            raise RuntimeError(f"backend plugin '{name}' failed to register: {info.error}")
    return info


def plugins() -> list[PluginInfo]:
    """Every plugin seen, loaded or not, in load order."""
    load()
    return list(_plugins.values())


def device_interfaces() -> dict[str, DeviceInterface]:
    """Registered device types and their interfaces."""
    load()
    return dict(_devices)


def install_hint(name: str) -> str:
    """A sentence telling the user how to get a device type or layout."""
    pkg = _INSTALL_HINTS.get(name)
    if pkg is None:
        return f"install a backend package that provides '{name}'"
    return f"install the backend package '{pkg}' (pip install {pkg})"


def _installed_summary() -> str:
    names = [
        p.name for p in _plugins.values() if p.status == "loaded" and p.distribution != "tensorcore"
    ]
    return ", ".join(names) or "none"


def device_backend(dev: device) -> DeviceInterface:
    """The interface of ``dev``'s device type; raises a helpful error when unusable."""
    iface = _devices.get(dev.type)
    if iface is None:
        load()
        iface = _devices.get(dev.type)
        if iface is None:
            raise RuntimeError(
                f"no installed backend provides the device type '{dev.type}': "
                f"{install_hint(dev.type)}. Installed backends: {_installed_summary()}"
            )
    if iface.unavailable_reason is not None:
        raise RuntimeError(f"device '{dev}' is not available: {iface.unavailable_reason}")
    if dev.index is not None and dev.index >= iface.device_count():
        raise RuntimeError(
            f"device '{dev}' does not exist: {iface.device_count()} '{dev.type}' device(s) present"
        )
    return iface
