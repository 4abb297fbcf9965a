"""The state of one conformance run: what it tests (:class:`Target`), the known gaps it
reads, and the tests it marked as gaps. :mod:`tensorcore.testing.pytest_plugin` fills it
from the command line; the ``check_*`` modules read it through :func:`target`."""

from __future__ import annotations

import importlib
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from ._gaps import Gap, read

if TYPE_CHECKING:
    from tensorcore.plugins.manager import PluginInfo

__all__ = ["GAPS_ATTRIBUTE", "LAYOUTS_ATTRIBUTE", "Target", "configure", "target"]

#: A plugin module may name its gaps file (relative to the module's directory) with this
#: attribute; without it, a ``conformance_gaps.txt`` next to the module is read if present.
GAPS_ATTRIBUTE = "TENSORCORE_CONFORMANCE_GAPS"
DEFAULT_GAPS_FILE = "conformance_gaps.txt"
#: A layout plugin module declares how the suite converts tensors with this attribute:
#: ``{"layout": ("to_layout_method", "to_strided_method")}``, names of ``Tensor`` methods.
LAYOUTS_ATTRIBUTE = "TENSORCORE_CONFORMANCE_LAYOUTS"


@dataclass
class Target:
    """What a conformance run tests."""

    #: The device type under test (``cpu`` for a layout run without ``--tensorcore-device``).
    device: str
    #: ``strided``, or the layout under test.
    layout: str
    #: ``--tensorcore-full``: every sample, dtype and gradcheck.
    full: bool
    #: The plugin that provides the device type (or the layout): its gaps file applies.
    plugin: str
    #: Why the device cannot be used here (every test then skips with it), or None.
    unavailable: str | None = None
    #: The ``Tensor`` methods converting a strided tensor to the layout and back.
    to_layout: str | None = None
    to_strided: str | None = None
    gaps: list[Gap] = field(default_factory=list)
    gap_files: list[str] = field(default_factory=list)

    @property
    def is_layout(self) -> bool:
        """Whether this run tests a layout rather than a strided device."""
        return self.layout != "strided"

    @property
    def key(self) -> str:
        return f"{self.device}/{self.layout}"


_target: Target | None = None
# nodeid -> the gap that marked it.
_marked: dict[str, Gap] = {}
# The gaps that matched a test a pytest-xdist worker collected (the controller of an xdist
# run collects nothing itself: its workers report their collections' ids).
_matched_by_workers: set[int] = set()


def target() -> Target:
    """The current run's target; a ``RuntimeError`` outside a conformance run."""
    if _target is None:
        raise RuntimeError(
            "no tensorcore conformance run is configured: run pytest with "
            "--tensorcore-device=NAME (and --tensorcore-layout=NAME for a layout)"
        )
    return _target


def _plugin_module(info: PluginInfo) -> ModuleType | None:
    mod = sys.modules.get(info.module)
    if mod is None:
        try:
            mod = importlib.import_module(info.module)
        except ImportError:
            return None  # a plugin registered at runtime from an object, not a module
    return mod


def _owner(plugins: list[PluginInfo], what: str, name: str) -> PluginInfo | None:
    for p in plugins:
        if p.status == "loaded" and name in getattr(p, what):
            return p
    return None


def _shipped_gaps(mod: ModuleType | None) -> Path | None:
    """The gaps file a plugin module ships, if any."""
    if mod is None or getattr(mod, "__file__", None) is None:
        return None
    here = Path(str(mod.__file__)).parent
    declared = getattr(mod, GAPS_ATTRIBUTE, None)
    if declared is not None:
        path = here / str(declared)
        if not path.is_file():
            raise pytest.UsageError(
                f"{mod.__name__}.{GAPS_ATTRIBUTE} names {path}, which does not exist"
            )
        return path
    path = here / DEFAULT_GAPS_FILE
    return path if path.is_file() else None


def configure(config: pytest.Config) -> None:
    """Load the backends and set the run's :class:`Target` from the command-line options;
    a ``pytest.UsageError`` saying what is wrong when the target cannot be tested."""
    global _target
    import tensorcore as tc
    from tensorcore import layouts
    from tensorcore.plugins import manager

    device = config.getoption("tensorcore_device") or "cpu"
    layout = config.getoption("tensorcore_layout") or "strided"
    with warnings.catch_warnings():
        # A plugin that fails to load warns; the run reports it below instead.
        warnings.simplefilter("ignore")
        plugins = tc.backends.list()
    failed = {p.name: p.error for p in plugins if p.status == "failed"}
    interfaces = manager.device_interfaces()
    if "cpu" not in interfaces or not interfaces["cpu"].is_available():
        raise pytest.UsageError(
            "the conformance suite compares with the CPU backend: pip install tensorcore-cpu"
        )
    if device not in interfaces:
        raise pytest.UsageError(
            f"--tensorcore-device={device}: no loaded plugin registers that device type "
            f"(registered: {', '.join(sorted(interfaces))}; failed plugins: {failed or 'none'})"
        )
    iface = interfaces[device]
    unavailable = None
    if not iface.is_available():
        unavailable = iface.unavailable_reason or "is_available() is false"
    owner = _owner(plugins, "devices", device)
    to_layout = to_strided = None
    if layout != "strided":
        if layouts.get_layout(layout) is None:
            names = [lay.name for lay in layouts.registered_layouts()]
            raise pytest.UsageError(
                f"--tensorcore-layout={layout}: no loaded plugin registers that layout "
                f"(registered: {', '.join(names)}; failed plugins: {failed or 'none'})"
            )
        owner = _owner(plugins, "layouts", layout)
        mod = _plugin_module(owner) if owner is not None else None
        declared = getattr(mod, LAYOUTS_ATTRIBUTE, {}) or {}
        if layout not in declared:
            where = owner.module if owner is not None else "the layout's plugin module"
            raise pytest.UsageError(
                f"--tensorcore-layout={layout}: {where} declares no conversion; add "
                f'{LAYOUTS_ATTRIBUTE} = {{"{layout}": ("to_{layout}", "to_dense")}} (the '
                f"Tensor methods turning a strided tensor into the layout and back)"
            )
        to_layout, to_strided = declared[layout]
    plugin = owner.name if owner is not None else "?"
    gap_files = [Path(f) for f in config.getoption("tensorcore_gaps")]
    shipped = _shipped_gaps(_plugin_module(owner)) if owner is not None else None
    if shipped is not None and shipped.resolve() not in {f.resolve() for f in gap_files}:
        gap_files.insert(0, shipped)
    full = bool(config.getoption("tensorcore_full"))
    gaps: list[Gap] = []
    for f in gap_files:
        try:
            gaps += [g for g in read(f) if g.applies_to(device, full)]
        except (OSError, ValueError) as exc:
            raise pytest.UsageError(f"--tensorcore-gaps: {exc}") from None
    _target = Target(
        device=device,
        layout=layout,
        full=full,
        plugin=plugin,
        unavailable=unavailable,
        to_layout=to_layout,
        to_strided=to_strided,
        gaps=gaps,
        gap_files=[str(f) for f in gap_files],
    )
    _marked.clear()
    _matched_by_workers.clear()


def header() -> list[str]:
    """The lines ``pytest`` prints about the run in its header."""
    t = target()
    mode = "full" if t.full else "fast (--tensorcore-full for every sample, dtype, gradcheck)"
    lines = [
        f"tensorcore conformance: {t.key} (plugin '{t.plugin}') against cpu/strided, {mode}",
        f"  known gaps: {len(t.gaps)} lines from {', '.join(t.gap_files) or 'no file'}",
    ]
    if t.unavailable:
        lines.append(f"  device '{t.device}' is not available here: {t.unavailable}")
    return lines


def _in_suite(item: pytest.Item) -> bool:
    from ..pytest_plugin import SUITE_DIR

    return Path(str(item.path)).resolve().parent == SUITE_DIR


def mark_gaps(items: list[pytest.Item]) -> None:
    """Mark the suite's tests that a gap matches as strict expected failures (and every
    test as skipped, with the reason, when the device is unavailable)."""
    t = target()
    for item in items:
        if not _in_suite(item):
            continue
        if t.unavailable:
            item.add_marker(
                pytest.mark.skip(reason=f"device '{t.device}' is not available: {t.unavailable}")
            )
            continue
        gap = next((g for g in t.gaps if g.matches(item.name)), None)
        if gap is not None:
            _marked[item.nodeid] = gap
            item.add_marker(
                pytest.mark.xfail(strict=True, reason=f"known gap ({gap.source}): {gap.reason}")
            )
            if isinstance(item, pytest.Function) and not item.config.getoption("runxfail", False):
                # pytest formats a failure's traceback before it knows the failure was
                # expected, and an expected failure's report shows only the reason: its
                # long form (each frame's statement found by parsing the frame's module)
                # cost about a second per gap over dask, for nothing. ``--runxfail``, which
                # shows the failures, keeps pytest's form.
                item.repr_failure = _native_repr  # type: ignore[method-assign]


def _native_repr(excinfo: pytest.ExceptionInfo[BaseException]) -> Any:
    """A traceback as Python prints it (pytest's ``--tb=native``): cheap to make."""
    return excinfo.getrepr(style="native")


def explain_stale_gap(item: pytest.Item, report: Any) -> None:
    """Turn pytest's ``[XPASS(strict)]`` of a known gap into a message naming the line of
    the gaps file to remove."""
    gap = _marked.get(item.nodeid)
    if gap is None or report.when != "call" or not report.failed:
        return
    if isinstance(report.longrepr, str) and report.longrepr.startswith("[XPASS(strict)]"):
        report.longrepr = (
            f"{item.name} passes, but it is listed as a known gap ({gap.source}: "
            f"{gap.pattern}  {gap.reason}): remove that line from the gaps file"
        )


def worker_collected(nodeids: list[str]) -> None:
    """Record the tests a pytest-xdist worker collected (the controller's view of them:
    every worker collects the whole session, deselection applied, and runs its share)."""
    t = _target
    if t is None:
        return
    # (the suite's modules are the check_*.py files, which only the conformance plugin
    # collects; a node id's path is relative to the rootdir, wherever that is)
    names = [
        n.rpartition("::")[2]
        for n in nodeids
        if Path(n.partition("::")[0]).name.startswith("check_")
    ]
    for g in t.gaps:
        if id(g) not in _matched_by_workers and any(g.matches(n) for n in names):
            _matched_by_workers.add(id(g))


def unmatched_gaps() -> list[str]:
    """The gap lines that matched none of the collected tests (in a pytest-xdist run, of the
    tests its workers collected)."""
    used = {id(g) for g in _marked.values()} | _matched_by_workers
    t = _target
    if t is None or t.unavailable:
        return []
    return [f"{g.source}: {g.pattern}" for g in t.gaps if id(g) not in used]
