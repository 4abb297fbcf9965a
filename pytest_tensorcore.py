"""tensorcore's pytest plugin: the options of the backend conformance suite.

Registered under the ``pytest11`` entry-point group, so every pytest run in an environment
where tensorcore is installed loads it; it is a top-level module so that loading it imports
nothing of tensorcore. Until a ``--tensorcore-*`` option is given it only adds the options;
with one, it registers :mod:`tensorcore.testing.pytest_plugin`, which runs the suite
(``docs/writing-a-backend.md``, "Testing a backend")::

    pytest --tensorcore-device=mydev
    pytest --pyargs tensorcore.testing.conformance --tensorcore-device=mydev
"""

from __future__ import annotations

import importlib

import pytest

__all__ = ["pytest_addoption", "pytest_configure"]


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the conformance options (``--tensorcore-*``)."""
    group = parser.getgroup("tensorcore", "tensorcore backend conformance")
    group.addoption(
        "--tensorcore-device",
        metavar="NAME",
        default=None,
        help="run tensorcore's conformance suite for this device type, against the CPU",
    )
    group.addoption(
        "--tensorcore-layout",
        metavar="NAME",
        default=None,
        help="run the conformance suite for this layout (on --tensorcore-device, default cpu)",
    )
    group.addoption(
        "--tensorcore-full",
        action="store_true",
        default=False,
        help="every sample, every dtype and every gradcheck (the default is a bounded subset)",
    )
    group.addoption(
        "--tensorcore-gaps",
        metavar="FILE",
        action="append",
        default=[],
        help="a file of known gaps ('test-id-pattern  reason' per line): strict xfails",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the suite's hooks (``tensorcore.testing.pytest_plugin``) when an option asks
    for a conformance run; otherwise do nothing."""
    if config.getoption("tensorcore_device") or config.getoption("tensorcore_layout"):
        plugin = importlib.import_module("tensorcore.testing.pytest_plugin")
        if not config.pluginmanager.is_registered(plugin):
            config.pluginmanager.register(plugin, "tensorcore-conformance")
