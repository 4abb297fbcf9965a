"""The meta backend's tests run only where its plugin is installed and loaded."""

from __future__ import annotations

from typing import Any

import pytest

import tensorcore as tc


def _plugin_loaded() -> bool:
    return any(p.name == "meta" and p.status == "loaded" for p in tc.backends.list())


# Without tensorcore-meta installed (or with it blocked by TENSORCORE_BACKENDS), there is
# nothing here to test.
collect_ignore_glob = [] if _plugin_loaded() else ["test_*.py"]


@pytest.fixture(autouse=True)
def _restore_defaults() -> Any:
    yield
    tc.set_default_dtype(tc.float32)
    tc.set_default_device(None)
