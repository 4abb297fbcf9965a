"""Plugin discovery and loading: entry points, blocking, failure isolation, listing.

Plugins load once, lazily, the first time something needs them (an operator's first call on a
device, a device lookup, ``tc.backends.list()``) -- never at ``import tensorcore`` and never on
the per-call path. Internal plugins (the core's own strided views and composite operators)
load through the same path as external ones.

Loading is thread-safe and all or nothing. Another thread that needs the plugins while one
thread loads them waits for it: :func:`load` publishes ``_loaded`` only once every plugin is
committed. A plugin that fails is disabled and leaves nothing behind (``_commit``). A
``BaseException`` that is not an ``Exception`` (Ctrl-C, a plugin calling ``sys.exit``) is not
a plugin failure: it propagates to the caller after everything loading did is undone, and the
next use of tensorcore loads the plugins again.
"""

from __future__ import annotations

import difflib
import importlib
import os
import sys
import threading
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import _registry
from . import _claims
from .registrar import CommBackend, DeviceInterface, Registrar

if TYPE_CHECKING:
    from ..dispatch import KernelRecord

__all__ = [
    "PluginInfo",
    "comm_backends",
    "device_backend",
    "device_interfaces",
    "load",
    "plugins",
    "register",
]

ENTRY_POINT_GROUP = "tensorcore.backends"
# The core's own plugins: its strided views, its composite operators and the MPI
# communication backend (which imports mpi4py only when a process group is made).
_INTERNAL = ("tensorcore.ops.views", "tensorcore.ops.composite", "tensorcore.distributed.mpi")
# The distribution of this project that provides a device type, a layout, a ``tensorcore.<name>``
# namespace or an entry-point name: where to get it when it is missing, and who it belongs to
# when several plugins claim it (``_claims``).
_INSTALL_HINTS = {
    "cpu": "tensorcore-cpu",
    "cuda": "tensorcore-cuda",
    "sparse": "tensorcore-sparse",
    "sparse_coo": "tensorcore-sparse",
    "sparse_csr": "tensorcore-sparse",
    "sparse_csc": "tensorcore-sparse",
    "sparse_bsr": "tensorcore-sparse",
    "sparse_bsc": "tensorcore-sparse",
    "meta": "tensorcore-meta",
    "mpi": "mpi4py",
}


@dataclass
class PluginInfo:
    """One plugin as the manager saw it: where it came from and whether it loaded.

    ``overrides`` lists the kernels it replaced with ``override=True``, as
    ``"add[cpu, strided] from plugin 'cpu'"``.
    """

    name: str
    module: str
    distribution: str | None = None
    version: str | None = None
    status: str = "pending"  # "loaded", "failed" or "blocked"
    error: str | None = None
    devices: list[str] = field(default_factory=list)
    layouts: list[str] = field(default_factory=list)
    kernels: int = 0
    overrides: list[str] = field(default_factory=list)
    comm_backends: list[str] = field(default_factory=list)


_pm: Any = None  # the pluggy PluginManager, made by load()
_lock = threading.RLock()
_loaded = False
# The thread running load(): a hook that uses tensorcore while its plugin loads sees the
# plugins committed so far instead of waiting for itself.
_loader: int | None = None
_plugins: dict[str, PluginInfo] = {}
# The device registry this manager fills (it lives below the layers that read it).
_devices: dict[str, DeviceInterface] = _registry.devices
# Public names plugins add to the ``tensorcore`` namespace: name -> (value, plugin).
attributes: dict[str, tuple[Any, str]] = {}


def _allowed() -> set[str] | None:
    raw = os.environ.get("TENSORCORE_BACKENDS")
    if raw is None:
        return None
    return {name.strip() for name in raw.split(",") if name.strip()}


def load() -> None:
    """Discover and register every plugin, once. Safe to call many times, from any thread.

    A thread that calls it while another thread loads waits until loading is complete.
    """
    global _loaded
    if _loaded:
        return
    with _lock:
        if _loaded or _loader == threading.get_ident():
            return
        _load_all()
        _loaded = True


def _load_all() -> None:
    global _pm, _loader
    # pluggy, importlib.metadata and the commit machinery (which needs the operator API) are
    # imported here, not at ``import tensorcore``.
    from importlib import metadata

    import pluggy

    from . import _commit, hookspecs

    snap = _commit.Snapshot(_devices, attributes)
    plugins_before = dict(_plugins)
    _loader = threading.get_ident()
    try:
        _pm = pluggy.PluginManager("tensorcore")
        _pm.add_hookspecs(hookspecs)
        internal = []
        for modname in _INTERNAL:
            info = _plugins[modname.rsplit(".", 1)[-1]] = PluginInfo(
                modname.rsplit(".", 1)[-1], modname, "tensorcore"
            )
            internal.append((importlib.import_module(modname), info))
        _load_batch(internal)
        allowed = _allowed()
        found = []
        for ep, info in _entry_points(metadata.entry_points(group=ENTRY_POINT_GROUP)):
            _plugins[ep.name] = info
            if allowed is not None and ep.name not in allowed:
                info.status = "blocked"
                info.error = "not listed in TENSORCORE_BACKENDS"
                continue
            with _blame(info):
                try:
                    module = ep.load()
                except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the others
                    _fail(info, exc)
                    continue
            found.append((module, info))
        _load_batch(found)
    except BaseException:
        snap.restore()
        _plugins.clear()
        _plugins.update(plugins_before)
        _pm = None
        raise
    finally:
        _loader = None


def _entry_points(eps: Any) -> list[tuple[Any, PluginInfo]]:
    """The entry points to load, in name order: one per name, its rightful owner's."""
    by_name: dict[str, list[tuple[Any, PluginInfo]]] = {}
    for ep in eps:
        dist = getattr(ep, "dist", None)
        info = PluginInfo(
            ep.name,
            ep.value,
            dist.metadata["Name"] if dist is not None else None,
            dist.version if dist is not None else None,
        )
        group = by_name.setdefault(ep.name, [])
        # The same distribution seen twice on sys.path is one plugin.
        if all((e.value, i.distribution) != (ep.value, info.distribution) for e, i in group):
            group.append((ep, info))
    chosen = []
    for name in sorted(by_name):
        group = by_name[name]
        taken = _plugins.get(name)  # a built-in plugin's name
        if taken is None and len(group) == 1:
            chosen.append(group[0])
            continue
        infos = [info for _, info in group]
        owner = taken or _claims.rightful(name, infos, _INSTALL_HINTS, by_name=False)
        for ep, info in group:
            if info is owner:
                chosen.append((ep, info))
                continue
            if owner is not None:
                reason = f"is already taken by {owner.module} (from {owner.distribution})"
            else:
                others = " and ".join(
                    f"{i.module} (from {i.distribution})" for i in infos if i is not info
                )
                reason = f"is also used by {others}, and none of them is its known provider"
            warnings.warn(
                f"tensorcore: backend plugin '{name}' ({ep.value}, from "
                f"{info.distribution or 'an unknown distribution'}) is not loaded: the name "
                f"'{name}' {reason}; rename its entry point in the '{ENTRY_POINT_GROUP}' group",
                RuntimeWarning,
                stacklevel=4,
            )
        if owner is None:
            # Listed (by python -m tensorcore) under the contested name, loaded by no one.
            info = infos[0]
            info.status = "failed"
            info.error = "entry point name '{}' is used by {}: rename all but one".format(
                name, " and ".join(f"{i.module} (from {i.distribution})" for i in infos)
            )
            _plugins[name] = info
    return chosen


def _load_batch(entries: list[tuple[Any, PluginInfo]], warn_failures: bool = True) -> None:
    """Load plugins in two rounds: every plugin's devices and layouts hooks, then -- once
    the device types and layouts that several plugins claim are settled, whatever the load
    order -- each plugin's kernels hook, then the commits, in order but for the plugins that
    replace kernels (``override=True``), which commit last."""
    from . import _commit

    staged = []
    for module, info in entries:
        with _blame(info):
            reg = _stage(module, info, warn_failures)
        if reg is not None:
            staged.append((module, info, reg))
    lost: dict[str, str] = {}
    for what, names in (
        ("device type", lambda r: [i.type for i in r.devices]),
        ("layout", lambda r: [name for name, _ in r.layouts]),
    ):
        claims: dict[str, list[PluginInfo]] = {}
        for _, info, reg in staged:
            # A name that is no string fails the plugin's commit, with a clear error.
            for name in dict.fromkeys(n for n in names(reg) if isinstance(n, str)):
                claims.setdefault(name, []).append(info)
        for plugin, why in _claims.losers(what, claims, _INSTALL_HINTS).items():
            lost.setdefault(plugin, why)
    ready = []
    for module, info, reg in staged:
        with _blame(info):
            try:
                if info.name in lost:
                    raise RuntimeError(lost[info.name])
                _call_one(module, "tensorcore_register_kernels", reg)
                _call_one(module, "tensorcore_register_comm_backends", reg)
            except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the others
                _withdraw(module, info.name)
                _fail(info, exc, warn_failures)
                continue
        ready.append((module, info, reg))
    # A plugin that replaces kernels (``override=True``) commits after the others, so that
    # the kernels it replaces are there whatever the order of the plugins' names.
    ready.sort(key=lambda entry: any(k[5] for k in entry[2].kernels))
    for module, info, reg in ready:
        with _blame(info):
            try:
                replaced = _commit.commit(reg, _devices, attributes, _describe)
            except Exception as exc:  # noqa: BLE001 - a broken plugin must not break the others
                _withdraw(module, info.name)
                _fail(info, exc, warn_failures)
                continue
        _loaded_ok(info, reg, replaced)


def _stage(module: Any, info: PluginInfo, warn_failures: bool) -> Registrar | None:
    """Register ``module`` with pluggy, check its hooks, run its devices and layouts hooks."""
    from . import hookspecs

    reg = Registrar(info.name)
    try:
        other = _pm.get_name(module)
        if other is not None:
            raise RuntimeError(f"{info.module} is already loaded as plugin '{other}'")
        spi = getattr(module, "TENSORCORE_SPI", None)
        if spi is not None:
            try:
                hookspecs.spi_compatible(spi)
            except TypeError as exc:
                raise TypeError(f"plugin '{info.name}': {exc}") from None
            except RuntimeError as exc:
                raise RuntimeError(f"plugin '{info.name}' was {exc}") from None
        _pm.register(module, name=info.name)
        _check_hooks(module, info.name)
        _call_one(module, "tensorcore_register_devices", reg)
        _call_one(module, "tensorcore_register_layouts", reg)
    except Exception as exc:  # noqa: BLE001
        _withdraw(module, info.name)
        _fail(info, exc, warn_failures)
        return None
    return reg


def _check_hooks(module: Any, name: str) -> None:
    """Refuse a plugin whose hook implementations do not match the specs.

    pluggy's ``check_pending()`` finds implementations of unknown hooks, for every plugin at
    once; this does it for one plugin, names the valid hooks, and also catches a function
    named like a hook that is not marked with ``@hookimpl`` (which pluggy silently ignores).
    """
    from . import hookspecs

    specs = sorted(n for n in vars(hookspecs) if n.startswith("tensorcore_"))
    impls = {hc.name for hc in _pm.get_hookcallers(module) or ()}
    problems = [
        f"implements the unknown hook '{hook}'{_did_you_mean(hook, specs)}"
        for hook in sorted(impls - set(specs))
    ]
    for attr in sorted(a for a in dir(module) if a.startswith("tensorcore_") and a not in impls):
        try:
            value = getattr(module, attr)
        except Exception:  # noqa: BLE001 - not a function then
            continue
        if not callable(value) or isinstance(value, type):
            continue
        if attr in specs:
            problems.append(f"defines {attr} without marking it with @hookimpl, so it never runs")
        else:
            problems.append(
                f"defines {attr}, which is neither a hook{_did_you_mean(attr, specs)} nor "
                "marked with @hookimpl"
            )
    if problems:
        raise RuntimeError(
            f"plugin '{name}' {'; it '.join(problems)}. The hooks are: {', '.join(specs)} "
            "(mark each with tensorcore.plugins.hookimpl)"
        )


def _did_you_mean(name: str, specs: list[str]) -> str:
    close = difflib.get_close_matches(name, specs, n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _call_one(module: Any, hook: str, reg: Registrar) -> None:
    # Calling only this plugin's implementation keeps one plugin's failure its own.
    for impl in getattr(_pm.hook, hook).get_hookimpls():
        if impl.plugin is module:
            impl.function(register=reg)


def _withdraw(module: Any, name: str) -> None:
    """Unregister ``module`` from pluggy if it is registered under ``name``."""
    if _pm is not None and _pm.get_plugin(name) is module:
        _pm.unregister(name=name)


@contextmanager
def _blame(info: PluginInfo) -> Iterator[None]:
    """Tell whoever catches a KeyboardInterrupt or SystemExit which plugin was loading."""
    try:
        yield
    except Exception:
        raise
    except BaseException as exc:
        undone = (
            "nothing of this plugin was registered"
            if _loaded
            else "nothing of the backend plugins was kept, and the next use of tensorcore "
            "loads them again"
        )
        note = (
            f"raised while tensorcore was loading the backend plugin '{info.name}' "
            f"({info.module}, {_claims.origin(info)}); {undone}"
        )
        if hasattr(exc, "add_note"):
            exc.add_note(note)
        else:  # Python 3.10: the same attribute, which tracebacks there do not show
            exc.__notes__ = [*getattr(exc, "__notes__", ()), note]  # type: ignore[attr-defined]
        raise


def _fail(info: PluginInfo, exc: BaseException, warn: bool = True) -> None:
    info.status = "failed"
    info.error = f"{type(exc).__name__}: {exc}"
    info.devices, info.layouts, info.kernels, info.overrides = [], [], 0, []
    info.comm_backends = []
    if warn:
        warnings.warn(
            f"tensorcore: backend plugin '{info.name}' ({info.module}) failed to load and is "
            f"disabled: {info.error}\n{''.join(traceback.format_exception(exc)).rstrip()}",
            RuntimeWarning,
            stacklevel=4,
        )


def _loaded_ok(
    info: PluginInfo, reg: Registrar, replaced: list[tuple[str, str, str, KernelRecord]]
) -> None:
    info.status, info.error = "loaded", None
    info.devices = [iface.type for iface in reg.devices]
    info.layouts = [name for name, _ in reg.layouts]
    info.kernels = len(reg.kernels)
    info.comm_backends = [cb.name for cb in reg.comm_backends]
    info.overrides = [f"{op}[{d}, {l}] from plugin '{old.plugin}'" for op, d, l, old in replaced]
    for op, d, l, old in replaced:
        warnings.warn(
            f"tensorcore: {_describe(info.name)} overrides the kernel {op}[{d}, {l}] of "
            f"{_describe(old.plugin)} (override=True); python -m tensorcore lists every "
            "overridden kernel",
            RuntimeWarning,
            stacklevel=4,
        )


def _describe(name: str) -> str:
    info = _plugins.get(name)
    return f"plugin '{name}'" if info is None else _claims.describe(info)


def register(plugin: Any, name: str | None = None) -> PluginInfo:
    """Register a backend plugin object or module at runtime, without packaging it.

    The plugin's hooks run immediately. Errors (a hook raising, a duplicate kernel) raise
    here, since the caller asked for this plugin explicitly; nothing of a plugin that fails
    remains. A kernel registered with ``override=True`` that replaces another plugin's kernel
    emits a ``RuntimeWarning``, as at load time.

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
    if plugin is None or isinstance(plugin, (str, bytes, int, float, bool)):
        raise TypeError(
            f"register(): argument 'plugin' must be a module or an object with hook "
            f"implementations, not {type(plugin).__name__}"
        )
    if name is not None and not isinstance(name, str):
        raise TypeError(f"register(): argument 'name' must be str, not {type(name).__name__}")
    load()
    name = name or getattr(plugin, "__name__", None) or type(plugin).__name__
    with _lock:
        if name in _plugins and _plugins[name].status == "loaded":
            raise ValueError(f"a backend plugin named '{name}' is already registered")
        from . import _commit

        info = PluginInfo(name, getattr(plugin, "__name__", type(plugin).__qualname__), None)
        snap = _commit.Snapshot(_devices, attributes)
        previous = _plugins.get(name)
        _plugins[name] = info
        try:
            _load_batch([(plugin, info)], warn_failures=False)
        except BaseException:
            # Ctrl-C in a hook: as if register() had never been called.
            snap.restore()
            _withdraw(plugin, name)
            if previous is None:
                del _plugins[name]
            else:
                _plugins[name] = previous
            raise
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


def comm_backends() -> dict[str, CommBackend]:
    """Registered communication backends (``tensorcore.distributed``), available or not."""
    load()
    return dict(_registry.comm_backends)


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


#: The interface of a device (``tensorcore._registry.interface``, the registry this manager
#: fills): a helpful error when no installed backend provides it or it is unavailable.
device_backend = _registry.interface


def installed_summary() -> str:
    """The installed backends (not the core's internal plugins), for error messages."""
    return _installed_summary()


_registry.set_loader(sys.modules[__name__])
