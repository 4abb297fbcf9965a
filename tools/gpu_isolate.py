"""A pytest plugin for GPU runs (``-p tools.gpu_isolate``, see ``tools/gpu_check.sh``).

After each CUDA test it waits for the device. A CUDA error (an illegal address left by the
test's kernels) spoils the worker's CUDA context for every later test, so the worker ends
at once: pytest-xdist reports the test as crashed and starts a fresh worker, and the log
names the test that left the error.
"""

from __future__ import annotations

import os
import sys
from typing import Any


def pytest_runtest_teardown(item: Any, nextitem: Any) -> None:
    """Wait for the GPU after a CUDA test; end the worker if the wait raises."""
    if "cuda" not in item.nodeid:
        return
    try:
        import cupy  # type: ignore[import-not-found]

        cupy.cuda.runtime.deviceSynchronize()
    except Exception as exc:  # noqa: BLE001  (any CUDA error, whatever CuPy calls it)
        sys.stderr.write(f"\nCUDA-ERROR-AFTER {item.nodeid}: {exc}\n")
        sys.stderr.flush()
        os._exit(3)
