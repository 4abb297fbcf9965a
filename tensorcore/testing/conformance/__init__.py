"""tensorcore's backend conformance suite: run by a backend against itself, through the
pytest plugin :mod:`tensorcore.testing.pytest_plugin`.

For every operator the backend claims (each operator whose kernel lookup for the device
type, or layout, finds a kernel: :func:`tensorcore.backend.resolved_kernels`), with the CPU
backend as the oracle:

``check_samples``
    the operator's samples (:mod:`tensorcore.testing.samples`) give the CPU's results;
``check_variants``
    views write through to their base, in-place (``op_``) and ``out=`` variants give the
    CPU's results and return the very tensor they wrote;
``check_errors``
    bad input (:mod:`tensorcore.testing.fuzz`) raises the CPU's exception classes;
``check_dtypes``
    every dtype the operator declares works, or is refused with a ``TypeError`` that names
    the plugin (a kernel registered with ``dtypes=``);
``check_gradients``
    ``tensorcore.autograd.gradcheck`` in float64 for differentiable operators;
``check_transfers``
    tensors of every dtype move to the device and back (``.to``, ``copy_``, non-contiguous
    sources) with their values, dtype and shape.

Run it with ``pytest --tensorcore-device=NAME`` (``--tensorcore-layout``,
``--tensorcore-full``, ``--tensorcore-gaps``); ``docs/writing-a-backend.md`` ("Testing a
backend") says more. The modules are named ``check_*.py`` so that only the plugin collects
them: a plain ``pytest`` run of a tree that contains this package collects nothing here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["SuiteRun", "run_suite"]


@dataclass
class SuiteRun:
    """What a conformance run in a subprocess did (:func:`run_suite`)."""

    returncode: int
    output: str
    #: Outcome -> number of tests, from pytest's summary line (``passed``, ``failed``,
    #: ``skipped``, ``deselected``, ``xfailed``, ``xpassed``, ``error``).
    counts: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        """The counts as pytest writes them."""
        return ", ".join(f"{n} {what}" for what, n in sorted(self.counts.items()))


def run_suite(
    device: str,
    layout: str | None = None,
    *,
    full: bool = False,
    gaps: Sequence[str | os.PathLike[str]] = (),
    args: Sequence[str] = (),
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 600,
) -> SuiteRun:
    """Run the conformance suite for ``device`` (and ``layout``) in a fresh interpreter:
    ``python -m pytest --pyargs tensorcore.testing.conformance --tensorcore-device=...``.

    What a backend's own test suite calls to run the conformance suite in its CI (the
    in-tree backends do, in ``backends/<name>/tests/test_<name>_conformance.py``:
    ``backends/cpu/tests/test_cpu_conformance.py``, for one).

    Parameters
    ----------
    device, layout : str
        The device type and (for a layout backend) the layout to test.
    full : bool
        ``--tensorcore-full``.
    gaps : sequence of paths
        ``--tensorcore-gaps`` files, in addition to the one the plugin ships.
    args : sequence of str
        More pytest arguments (``-k``, ``-x``...).
    cwd : path, optional
        Where pytest runs (its ini file and ``conftest.py`` apply).

    Returns
    -------
    SuiteRun
        The exit status, the output and the counts of pytest's summary line.
    """
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs"]
    cmd += [__name__, f"--tensorcore-device={device}"]
    if layout is not None:
        cmd.append(f"--tensorcore-layout={layout}")
    if full:
        cmd.append("--tensorcore-full")
    cmd += [f"--tensorcore-gaps={Path(g)}" for g in gaps]
    cmd += list(args)
    # (nothing of the calling pytest: its options, nor a pytest-xdist worker's variables)
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "PYTEST_ADDOPTS" and not k.startswith("PYTEST_XDIST")
    }
    proc = subprocess.run(
        cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout, check=False
    )
    output = proc.stdout + proc.stderr
    counts: dict[str, int] = {}
    last = [ln for ln in output.splitlines() if re.search(r"\d+ (passed|failed|skipped|error)", ln)]
    if last:
        for n, what in re.findall(
            r"(\d+) (passed|failed|skipped|deselected|xfailed|xpassed|errors?)", last[-1]
        ):
            counts[what.rstrip("s") if what.startswith("error") else what] = int(n)
    return SuiteRun(proc.returncode, output, counts)
