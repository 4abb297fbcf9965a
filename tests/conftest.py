"""Shared fixtures: Hypothesis profiles and the device-generic ``device`` fixture."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

import tensorcore as tc
from tensorcore.devices import set_default_device
from tensorcore.plugins import manager
from tensorcore.testing import dtype_unsupported, layout_unsupported

# Hypothesis imports its failure-patch writer (libcst, where installed) while reporting a
# failing example; libcst's import warns (mypy_extensions.TypedDict is deprecated), which
# filterwarnings=error turns into a pytest INTERNALERROR that hides the real failure. Import
# it once here, with warnings ignored, so reporting never triggers the import.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    with contextlib.suppress(ImportError):
        import hypothesis.extra._patching  # noqa: F401

# One BLAS thread per process, unless the caller chose a count. The suite runs as
# ``pytest -n 2`` on two cores, and launches more processes (MPI ranks, conformance runs, fresh
# interpreters): OpenBLAS's default of a thread per core in each of them puts several spinning
# pools on the same cores (train_digits' two epochs took 1.3 s of wall time with one thread,
# 9.5 s with two, beside a second worker). Set here, in the process that starts pytest-xdist's
# workers, so that they and every subprocess inherit it; it changes no result (the thread
# count tests set and restore it themselves).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

settings.register_profile("dev", max_examples=30)
# CI: no deadline and no "input generation is slow" check (two workers share two cores, so
# a draw's wall time says nothing about the code under test).
settings.register_profile(
    "ci",
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def _device_params() -> list[Any]:
    """One pytest param per device type the registry knows; unusable ones, and those that
    hold no data (``DeviceInterface.holds_data``), skip with why."""
    params = []
    with warnings.catch_warnings():
        # Plugins load here, at collection: a backend that fails to load warns (and is listed
        # as failed); that must show in the summary, not abort collection as an error.
        warnings.simplefilter("always")
        interfaces = manager.device_interfaces()
    for name in tc.backends.devices():
        marks: list[Any] = [getattr(pytest.mark, name)] if name == "cuda" else []
        iface = interfaces[name]
        if not iface.holds_data:
            # The device-generic tests compare values; a device that keeps only metadata
            # (``meta``) has none, and tests itself in its own package.
            marks.append(pytest.mark.skip(reason=f"device '{name}' holds no data to compare"))
        elif not iface.is_available():
            reason = iface.unavailable_reason or "is_available() is false"
            marks.append(
                pytest.mark.skip(reason=f"device '{name}' is not available here: {reason}")
            )
        params.append(pytest.param(name, id=name, marks=marks))
    return params


@pytest.fixture(scope="session", params=_device_params())
def device(request: pytest.FixtureRequest) -> str:
    """Every device type that an installed backend registers (session-scoped, so that
    Hypothesis tests may use it)."""
    return request.param  # type: ignore[no-any-return]


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tests marked ``cuda`` skip, with a reason, where no CUDA device is usable; tests
    marked ``sparse``, where their device has no sparse_coo kernels."""
    if item.get_closest_marker("cuda") is not None:
        available = tc.backends.devices()
        if not available.get("cuda", False):
            why = "no backend registers the 'cuda' device type (pip install tensorcore-cuda)"
            if "cuda" in available:
                why = manager.device_interfaces()["cuda"].unavailable_reason or "no usable GPU"
            pytest.skip(f"needs a CUDA GPU: {why}")
    params = getattr(getattr(item, "callspec", None), "params", {})
    if item.get_closest_marker("sparse") is not None:
        # (a third party's device runs this suite: tensorcore-sparse has no kernels for it)
        why = layout_unsupported(params.get("device", "cpu"), "sparse_coo")
        if why is not None:
            pytest.skip(why)
    if "device" in params:
        for value in params.values():
            if isinstance(value, tc.dtype):
                why = dtype_unsupported(params["device"], value)
                if why is not None:
                    pytest.skip(f"{value.name} on {params['device']}: {why}")


@pytest.fixture(autouse=True)
def _restore_defaults() -> Any:
    """Tests that change the default dtype or device cannot leak the change."""
    yield
    tc.set_default_dtype(tc.float32)
    set_default_device(None)


def run_python(code: str, env: dict[str, str] | None = None, check: bool = True) -> Any:
    """Run ``code`` in a fresh interpreter (no inherited warning filters); return the
    ``CompletedProcess``. ``env`` entries are added to (or, when None, removed from) the
    current environment."""
    full = dict(os.environ)
    for key in ("TENSORCORE_BACKENDS", "TENSORCORE_DEFAULT_DEVICE", "PYTHONWARNINGS"):
        full.pop(key, None)
    for key, value in (env or {}).items():
        if value is None:
            full.pop(key, None)
        else:
            full[key] = value
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=full,
        timeout=120,
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"subprocess failed with exit code {proc.returncode}\n--- stdout\n{proc.stdout}\n"
            f"--- stderr\n{proc.stderr}"
        )
    return proc


@pytest.fixture(scope="session")
def run_py() -> Any:
    """:func:`run_python`, as a fixture."""
    return run_python
