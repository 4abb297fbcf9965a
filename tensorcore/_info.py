"""What ``python -m tensorcore`` reports: versions, backend plugins, devices, layouts and
operator coverage.

Everything here reads the core's own registries (the plugin manager, the dispatch registry,
the layout registry and the operator table), so the report works with no backend installed
and this module never imports NumPy: only a backend that loads may do that.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import __version__, dispatch, layouts
from .devices import get_default_device
from .distributed._names import STAND_INS
from .plugins import manager

if TYPE_CHECKING:
    from .plugins import DeviceInterface
    from .plugins.manager import PluginInfo

__all__ = ["backend_coverage", "main", "ops_matrix", "plugin_coverage", "report"]

#: The backend to suggest when none is installed.
_CPU_PACKAGE = "tensorcore-cpu"
# How many missing operators a coverage line names before it points at ``--ops``.
_MAX_NAMED = 8


def _is_builtin(p: PluginInfo) -> bool:
    # The core's own strided views and composites load through the plugin path too.
    return p.distribution == "tensorcore" and p.module.startswith("tensorcore.")


def _key_sort(key: str) -> tuple[int, str]:
    # Concrete device/layout keys first, then wildcard ones, most specific first.
    return (key.count(dispatch.ANY), key)


def plugin_coverage() -> dict[str, int]:
    """Count, for each plugin, the declared operators it registers at least one kernel for.

    Returns
    -------
    dict
        Plugin name to number of distinct operators (a plugin that registers an operator for
        several devices or layouts counts it once). Plugins that registered nothing, or
        failed, are absent.

    Examples
    --------
    >>> from tensorcore._info import plugin_coverage
    >>> cov = plugin_coverage()
    >>> cov["cpu"] > 0 and cov["views"] > 0
    True
    """
    ops_by_plugin: dict[str, set[str]] = {}
    for op_name, row in dispatch.coverage().items():
        for plugin in row.values():
            ops_by_plugin.setdefault(plugin, set()).add(op_name)
    return {plugin: len(names) for plugin, names in ops_by_plugin.items()}


def _table(rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        (indent + "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True))).rstrip()
        for r in rows
    ]


def _header_lines() -> list[str]:
    import tensorcore

    where = os.path.dirname(tensorcore.__file__)
    py = f"{platform.python_implementation()} {platform.python_version()}"
    return [
        f"tensorcore {__version__} ({where})",
        f"Python {py} ({sys.executable}) on {platform.system()} {platform.machine()}",
    ]


def _backend_lines(plugins: list[PluginInfo]) -> list[str]:
    lines = [f"Backends (entry-point group '{manager.ENTRY_POINT_GROUP}'):"]
    backends = [p for p in plugins if not _is_builtin(p)]
    if not backends:
        lines.append(f"  none installed. Install the CPU backend: pip install {_CPU_PACKAGE}")
    else:
        rows = [["name", "distribution", "status", "provides / error"]]
        for p in backends:
            if p.distribution is None:
                dist = "(registered at runtime)"
            else:
                dist = f"{p.distribution} {p.version or '?'}"
            if p.status == "loaded":
                provides = [f"device {d}" for d in p.devices] + [f"layout {l}" for l in p.layouts]
                provides.append(f"{p.kernels} kernels")
                if p.overrides:
                    provides.append(f"overrides {len(p.overrides)} (see below)")
                detail = ", ".join(provides)
            else:
                detail = p.error or ""
            rows.append([p.name, dist, p.status, detail])
        lines += _table(rows)
        if not any(p.status == "loaded" and p.devices for p in backends):
            lines.append(f"  no loaded backend provides a device: pip install {_CPU_PACKAGE}")
    allowed = os.environ.get("TENSORCORE_BACKENDS")
    if allowed is not None:
        lines.append(f"  TENSORCORE_BACKENDS={allowed!r} restricts which backends load")
    builtin = [p for p in plugins if _is_builtin(p)]
    if builtin:
        parts = [f"{p.name} ({p.status}, {p.kernels} kernels)" for p in builtin]
        lines.append("Built-in plugins: " + ", ".join(parts))
    return lines


def _device_lines() -> list[str]:
    try:
        default = str(get_default_device())
    except Exception as exc:  # noqa: BLE001 - a bad TENSORCORE_DEFAULT_DEVICE is worth reporting
        default = f"invalid ({type(exc).__name__}: {exc})"
    interfaces = manager.device_interfaces()
    if default.split(":")[0] not in interfaces and not default.startswith("invalid"):
        default += " (no loaded backend provides it)"
    lines = [f"Devices (default device: {default}):"]
    if not interfaces:
        lines.append(f"  none registered. Install a backend, e.g. pip install {_CPU_PACKAGE}")
        return lines
    rows = [["type", "status", "count", "plugin", "reason"]]
    for name, iface in sorted(interfaces.items()):
        plugin = getattr(iface, "_plugin", "?")
        # A third-party interface must not be able to break the report.
        try:
            available = iface.is_available()
            reason = "" if available else (iface.unavailable_reason or "no reason given")
        except Exception as exc:  # noqa: BLE001
            available, reason = False, f"is_available() raised {type(exc).__name__}: {exc}"
        try:
            count = str(iface.device_count())
        except Exception as exc:  # noqa: BLE001
            count = f"? ({type(exc).__name__})"
        rows.append([name, "available" if available else "unavailable", count, plugin, reason])
    return lines + _table(rows)


def _available(iface: DeviceInterface) -> bool:
    try:
        return bool(iface.is_available())
    except Exception:  # noqa: BLE001 - reported in the devices section
        return False


def _comm_lines() -> list[str]:
    found = manager.comm_backends()
    lines = ["Communication backends (tensorcore.distributed):"]
    if not found:
        return [*lines, "  none registered"]
    rows = [["name", "status", "devices", "plugin", "reason"]]
    for name, cb in sorted(found.items()):
        status = "available" if cb.is_available() else "unavailable"
        rows.append([name, status, ", ".join(cb.devices), cb.plugin,
                     cb.unavailable_reason or ""])  # fmt: skip
    served = []
    for name, by in sorted(STAND_INS.items()):
        if name not in found and by in found:
            served.append(f"  {name}: served by {by} (no plugin registers {name})")
    return lines + _table(rows) + served


def _layout_lines() -> list[str]:
    rows = [["name", "priority", "plugin"]]
    for lay in layouts.registered_layouts():
        rows.append([lay.name, str(lay.priority), lay.plugin])
    return ["Layouts:", *_table(rows)]


def _runnable_keys() -> list[tuple[str, str]]:
    # (device type, layout) pairs worth a "runnable" line: every registered device type with
    # each layout some plugin wrote concrete kernels for on it (strided when none did).
    devices = sorted(manager.device_interfaces())
    concrete: set[tuple[str, str]] = set()
    for op in dispatch.ops().values():
        for dev, lay in op.registered:
            if dev != dispatch.ANY and lay != dispatch.ANY:
                concrete.add((dev, lay))
    keys = []
    for dev in devices:
        lays = sorted(lay for d, lay in concrete if d == dev) or [layouts.strided.name]
        keys += [(dev, lay) for lay in lays]
    return keys


def _coverage_lines(plugins: list[PluginInfo]) -> list[str]:
    total = len(dispatch.ops())  # the core's operators and those plugins declare
    counts = plugin_coverage()
    lines = [f"Operator coverage ({total} declared operators):"]
    keys_by_plugin: dict[str, set[str]] = {}
    for row in dispatch.coverage().values():
        for key, owner in row.items():
            keys_by_plugin.setdefault(owner, set()).add(key)
    rows = [["plugin", "operators", "keys"]]
    for p in plugins:
        if p.status != "loaded":
            continue
        keys = sorted(keys_by_plugin.get(p.name, ()), key=_key_sort)
        rows.append([p.name, f"{counts.get(p.name, 0)}/{total}", ", ".join(keys) or "-"])
    if len(rows) > 1:
        lines += _table(rows)
    table = dispatch.ops()
    interfaces = manager.device_interfaces()
    for dev, lay in _runnable_keys():
        missing = [name for name, op in table.items() if op.record((dev, lay)) is None]
        line = f"  runnable on {dev}/{lay}: {total - len(missing)}/{total} operators"
        if not _available(interfaces[dev]):
            lines.append(line + " (device unavailable)")
            continue
        lines.append(line)
        if missing:
            named = ", ".join(missing[:_MAX_NAMED])
            more = f", ... {len(missing) - _MAX_NAMED} more" if len(missing) > _MAX_NAMED else ""
            lines.append(f"    no kernel: {named}{more}")
    lines.append("  (python -m tensorcore --ops shows every operator's kernels)")
    return lines


def _override_lines() -> list[str]:
    # Kernels registered with override=True over another plugin's: never silent.
    found = dispatch.overrides()
    if not found:
        return []
    lines = ["Overridden kernels (override=True):"]
    for name, rec in found:
        old = rec.overrides
        assert old is not None
        lines.append(
            f"  {name}[{rec.device_type}, {rec.layout}]: plugin '{rec.plugin}' replaces "
            f"plugin '{old.plugin}'"
        )
    return lines


def report() -> str:
    """The text ``python -m tensorcore`` prints: versions, backends, devices, communication
    backends, layouts, coverage.

    Loads the backend plugins if they are not loaded yet. A plugin that failed to load, or was
    blocked by ``TENSORCORE_BACKENDS``, is listed with the reason.

    Returns
    -------
    str
        The report, several lines, without a trailing newline.

    Examples
    --------
    >>> from tensorcore._info import report
    >>> text = report()
    >>> text.startswith("tensorcore "), "Operator coverage" in text
    (True, True)
    """
    plugins = manager.plugins()
    sections = [
        _header_lines(),
        _backend_lines(plugins),
        _device_lines(),
        _comm_lines(),
        _layout_lines(),
        _coverage_lines(plugins),
        _override_lines(),
    ]
    return "\n\n".join("\n".join(s) for s in sections if s)


def ops_matrix() -> str:
    """The operator x (device/layout) kernel matrix that ``python -m tensorcore --ops`` prints.

    One row per declared operator, in the order of the operator table; one column per
    ``device/layout`` key some plugin registered a kernel for, concrete keys first, then the
    wildcard (``*``) ones. A cell names the plugin whose kernel is registered for that key
    (followed by ``!`` when that kernel overrides another plugin's, listed below the matrix),
    or is ``-``.

    Returns
    -------
    str
        The matrix and a short legend, without a trailing newline.

    Examples
    --------
    >>> from tensorcore._info import ops_matrix
    >>> row = next(line for line in ops_matrix().splitlines() if line.startswith("add "))
    >>> "cpu" in row.split()
    True
    """
    cov = dispatch.coverage()
    for name, rec in dispatch.overrides():
        cov[name][f"{rec.device_type}/{rec.layout}"] += "!"
    keys = sorted({k for row in cov.values() for k in row}, key=_key_sort)
    rows = [["operator", *keys]]
    for name in cov:  # the core's operators in table order, then those plugins declare
        rows.append([name, *(cov[name].get(k, "-") for k in keys)])
    lines = _table(rows, indent="")
    lines.insert(1, "-" * len(lines[0]))
    no_kernel = [name for name in cov if not cov[name]]
    lines += [
        "",
        f"{len(cov) - len(no_kernel)} of {len(cov)} operators have at least one kernel.",
        "'-': no kernel registered for that key.",
        "A call on device D with layout L runs the kernel of D/L, else */L, else D/*, else */*.",
    ]
    restricted = [
        f"  {name}[{rec.device_type}, {rec.layout}] from {rec.plugin}: "
        + ", ".join(sorted(d.name for d in rec.dtypes))
        for name, op in dispatch.ops().items()
        for rec in op.registered.values()
        if rec.dtypes is not None
    ]
    if restricted:
        lines += ["Kernels restricted to some dtypes:", *restricted]
    overridden = _override_lines()
    if overridden:
        lines += ["'!': the kernel overrides another plugin's.", *overridden]
    return "\n".join(lines)


def _coverage_key(name: str) -> tuple[str, str]:
    # "cpu" (a device type: strided), "sparse_coo" (a layout: on the first device type with
    # concrete kernels for it, else cpu) or "cuda/sparse_coo".
    if "/" in name:
        dev, _, lay = name.partition("/")
        return dev, lay
    if layouts.get_layout(name) is not None and name != layouts.strided.name:
        devs = [d for d, lay in _runnable_keys() if lay == name]
        return (devs[0] if devs else "cpu"), name
    return name, layouts.strided.name


def backend_coverage(name: str) -> str:
    """The report of ``python -m tensorcore --coverage NAME``: how many operators of the
    runtime table run on a device type (or layout), through which plugins, by category,
    and which have no kernel there.

    Parameters
    ----------
    name : str
        A device type (``cpu``: its strided tensors), a layout (``sparse_coo``: on the first
        device type with kernels for it) or ``device/layout``.

    Returns
    -------
    str
        The report, without a trailing newline.

    Raises
    ------
    ValueError
        When no loaded plugin registers the device type or the layout.

    Examples
    --------
    >>> from tensorcore._info import backend_coverage
    >>> text = backend_coverage("cpu")
    >>> print(text.splitlines()[0])
    Coverage of cpu/strided (device type 'cpu' from plugin 'cpu'):
    >>> "  pointwise " in text
    True
    """
    from .backend import resolved_kernels

    manager.plugins()  # load them: the layouts are known only then
    dev, lay = _coverage_key(name)
    interfaces = manager.device_interfaces()
    if dev not in interfaces:
        known = ", ".join(sorted(interfaces)) or "none"
        raise ValueError(f"no loaded plugin registers the device type '{dev}' (known: {known})")
    lay_obj = layouts.get_layout(lay)
    if lay_obj is None:
        known = ", ".join(x.name for x in layouts.registered_layouts())
        raise ValueError(f"no loaded plugin registers the layout '{lay}' (known: {known})")
    table = dispatch.ops()
    kernels = resolved_kernels(dev, lay)
    owner = getattr(interfaces[dev], "_plugin", "?")
    what = f"device type '{dev}' from plugin '{owner}'"
    if lay != layouts.strided.name:
        what += f", layout '{lay}' from plugin '{lay_obj.plugin}'"
    lines = [f"Coverage of {dev}/{lay} ({what}):"]
    if not _available(interfaces[dev]):
        lines.append(f"  (the device is not available here: {interfaces[dev].unavailable_reason})")
    lines.append(f"  {len(kernels)}/{len(table)} operators of the runtime table have a kernel")
    by_source: dict[str, int] = {}
    for rec in kernels.values():
        src = f"plugin '{rec.plugin}' ({rec.device_type}/{rec.layout})"
        by_source[src] = by_source.get(src, 0) + 1
    for src, n in sorted(by_source.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"    {n:4d} from {src}")
    rows = [["category", "covered", "missing"]]
    tags = sorted({t for op in table.values() for t in op.decl.tags})
    for tag in tags:
        names = [n for n, op in table.items() if tag in op.decl.tags]
        missing = [n for n in names if n not in kernels]
        shown = ", ".join(missing[:_MAX_NAMED]) + (" ..." if len(missing) > _MAX_NAMED else "")
        rows.append([tag, f"{len(names) - len(missing)}/{len(names)}", shown or "-"])
    lines += ["  by category (an operator counts in each of its tags):", *_table(rows, "    ")]
    missing = [n for n in table if n not in kernels]
    lines.append(f"  no kernel ({len(missing)}): {', '.join(missing) or 'none'}")
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tensorcore",
        description=(
            "Report the tensorcore installation: versions, backend plugins, devices, layouts "
            "and operator coverage."
        ),
    )
    parser.add_argument(
        "--ops",
        action="store_true",
        help="print the operator x (device/layout) matrix of registered kernels instead",
    )
    parser.add_argument(
        "--coverage",
        metavar="NAME",
        help=(
            "report the operators a device type or layout (cpu, sparse_coo, cuda/sparse_coo) "
            "has kernels for, by category, and which it lacks"
        ),
    )
    parser.add_argument("--version", action="version", version=f"tensorcore {__version__}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m tensorcore``; prints the report and returns the exit status.

    Parameters
    ----------
    argv
        Command-line arguments without the program name; ``sys.argv[1:]`` when None.

    Examples
    --------
    >>> from tensorcore._info import main
    >>> main(["--version"])
    Traceback (most recent call last):
    SystemExit: 0
    """
    args = _parser().parse_args(argv)
    try:
        if args.coverage is not None:
            try:
                text = backend_coverage(args.coverage)
            except ValueError as exc:
                print(f"python -m tensorcore --coverage: {exc}", file=sys.stderr)
                return 2
        else:
            text = ops_matrix() if args.ops else report()
    except SystemExit as exc:
        # A plugin called sys.exit() while loading: say which, rather than exit silently.
        why = "; ".join(getattr(exc, "__notes__", ())) or "while the backend plugins loaded"
        print(
            f"python -m tensorcore: SystemExit({exc.code!r}) {why}. Leave that plugin out with "
            "TENSORCORE_BACKENDS (a comma-separated list of the backends to load) to get the "
            "report.",
            file=sys.stderr,
        )
        raise
    print(text)
    return 0
