"""Fixtures of the sparse backend's tests: one ``device`` per (device, sparse_coo) pair the
registry has."""

from __future__ import annotations

from typing import Any

import pytest

import tensorcore as tc
from tensorcore.dispatch import get_op
from tensorcore.plugins import manager


def _plugin_loaded() -> bool:
    return any(p.name == "sparse" and p.status == "loaded" for p in tc.backends.list())


# Without tensorcore-sparse installed (or with it blocked by TENSORCORE_BACKENDS), there is
# nothing here to test: the core's suite runs on its own.
collect_ignore_glob = [] if _plugin_loaded() else ["test_*.py"]


def sparse_devices() -> list[Any]:
    """Every device type with sparse_coo kernels in the registry (an unusable one skips)."""
    params = []
    for name, iface in manager.device_interfaces().items():
        if get_op("add").record((name, "sparse_coo")) is None:
            continue
        marks = []
        if not iface.is_available():
            reason = iface.unavailable_reason or "is_available() is false"
            marks.append(pytest.mark.skip(reason=f"device '{name}' is not available: {reason}"))
        params.append(pytest.param(name, id=name, marks=marks))
    return params


@pytest.fixture(scope="session", params=sparse_devices())
def device(request: pytest.FixtureRequest) -> str:
    """A device type that has kernels for the sparse_coo layout (session-scoped, so that
    Hypothesis tests may use it)."""
    return request.param  # type: ignore[no-any-return]


@pytest.fixture(autouse=True)
def _restore_defaults() -> Any:
    yield
    tc.set_default_dtype(tc.float32)
