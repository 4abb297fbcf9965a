"""The pytest plugin of tensorcore's backend conformance suite.

The ``pytest11`` entry point of the core distribution is the small top-level module
``pytest_tensorcore``: every pytest run in an environment where tensorcore is installed
loads it, and it only adds the ``--tensorcore-*`` options (without importing tensorcore).
When one of them is given, it registers this module, whose hooks run the suite.

With ``--tensorcore-device=NAME`` (and ``--tensorcore-layout=NAME`` for a layout backend) it
collects the suite, :mod:`tensorcore.testing.conformance`, whatever paths the command names,
and marks the known gaps as strict expected failures::

    pytest --tensorcore-device=mydev                       # the suite (and your own tests)
    pytest --pyargs tensorcore.testing.conformance --tensorcore-device=mydev   # the suite only
    pytest ... --tensorcore-device=cpu --tensorcore-layout=sparse_coo          # a layout
    pytest ... --tensorcore-full                           # every sample, dtype and gradcheck
    pytest ... --tensorcore-gaps=gaps.txt                  # known gaps (see _gaps.py)

``docs/writing-a-backend.md`` ("Testing a backend") documents the checks and the gaps file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

# pytest is the one importing this module: importing it here costs nothing.
import pytest

#: Where the suite's modules live: ``check_*.py`` files, collected only by this plugin.
SUITE_DIR = Path(__file__).resolve().parent / "conformance"
SUITE_PACKAGE = "tensorcore.testing.conformance"


def _active(config: pytest.Config) -> bool:
    return bool(config.getoption("tensorcore_device") or config.getoption("tensorcore_layout"))


def pytest_configure(config: pytest.Config) -> None:
    """When an option is given: resolve the target (loading the backends), read the gaps
    and add the suite to what the session collects."""
    if not _active(config):
        return
    from .conformance import _session

    _session.configure(config)
    # The suite calls every operator, deprecated ones too: their warning (once per process)
    # says nothing about the backend under test (tensorcore's own pytest settings, likewise).
    for name in ("chain_matmul", "triangular_solve"):
        config.addinivalue_line("filterwarnings", f"ignore:torch.{name} is deprecated:UserWarning")
    config.addinivalue_line(
        "filterwarnings", "ignore:Converting a tensor with requires_grad=True to a scalar"
    )
    # ``pytest --tensorcore-device=mydev`` alone collects the suite too: add its directory
    # unless an argument already names it (a path into it, or ``--pyargs`` of the package).
    named = any(
        str(a).split("::")[0].startswith(SUITE_PACKAGE)
        or Path(str(a).split("::")[0]).resolve().is_relative_to(SUITE_DIR)
        for a in config.args
    )
    if not named:
        config.args.append(str(SUITE_DIR))


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Any:
    """Collect the suite's ``check_*.py`` modules, only in a conformance run."""
    if (
        file_path.suffix == ".py"
        and file_path.name.startswith("check_")
        and file_path.resolve().parent == SUITE_DIR
        and _active(parent.config)
        # (a module the command names is pytest's own to collect: collecting it here too
        # would run each of its tests twice)
        and not parent.session.isinitpath(file_path)
    ):
        return pytest.Module.from_parent(parent, path=file_path)
    return None


def rerun_command(config: pytest.Config, report: pytest.TestReport) -> str | None:
    """The command that reruns the suite's test of ``report`` alone, from any directory
    (the id pytest prints, ``check_errors.py::test_bad_input[pow]``, names a file that is not
    under the directory the run started in); None for a test outside the suite."""
    path = (config.rootpath / report.location[0]).resolve()
    name = report.nodeid.rpartition("::")[2]
    if path.parent != SUITE_DIR or not name:
        return None
    module = f"{SUITE_PACKAGE}.{path.stem}"
    opts = []
    for opt in ("device", "layout"):
        value = config.getoption(f"tensorcore_{opt}")
        if value:
            opts.append(f"--tensorcore-{opt}={value}")
    if config.getoption("tensorcore_full"):
        opts.append("--tensorcore-full")
    return f"pytest {' '.join(opts)} --pyargs '{module}::{name}'"


def pytest_report_header(config: pytest.Config) -> Any:
    """Say what the conformance run checks, and with which gaps."""
    if not _active(config):
        return None
    from .conformance import _session

    return _session.header()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the suite's tests listed as known gaps as strict expected failures."""
    if not _active(config):
        return
    from .conformance import _session

    _session.mark_gaps(items)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[Any]:
    """A known gap that passes fails with a message saying which line of which gaps file
    to remove (instead of pytest's bare ``[XPASS(strict)]``)."""
    outcome: Any = yield
    if not _active(item.config):
        return
    from .conformance import _session

    _session.explain_stale_gap(item, outcome.get_result())


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """Under pytest-xdist: the controller collects nothing, so it learns from each worker
    which tests exist, to list the gap lines that matched none of them."""
    if not _active(node.config):
        return
    from .conformance import _session

    _session.worker_collected(ids)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """List the gap lines that matched no collected test."""
    if not _active(config):
        return
    from .conformance import _session

    failed = terminalreporter.stats.get("failed", [])
    commands = [c for c in (rerun_command(config, r) for r in failed) if c is not None]
    if commands:
        terminalreporter.section("tensorcore conformance: rerun a failure alone")
        for command in commands[:5]:
            terminalreporter.line(command)
        if len(commands) > 5:
            terminalreporter.line(f"(and {len(commands) - 5} more failures, named alike)")
    lines = _session.unmatched_gaps()
    if lines:
        terminalreporter.section("tensorcore conformance: gaps that matched no test")
        terminalreporter.line(
            "(a test that is not collected: the operator is no longer claimed, the test was "
            "deselected, or it runs only with --tensorcore-full)"
        )
        for line in lines:
            terminalreporter.line(line)
