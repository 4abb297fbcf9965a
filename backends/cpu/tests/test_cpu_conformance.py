"""The CPU backend passes tensorcore's conformance suite (fast mode), as a third-party
backend runs it: ``pytest --pyargs tensorcore.testing.conformance --tensorcore-device=cpu``
in a fresh interpreter. Known gaps: ``tensorcore_cpu/conformance_gaps.txt``, if any."""

from __future__ import annotations

from pathlib import Path

from tensorcore.testing.conformance import run_suite

REPO = Path(__file__).resolve().parents[3]


def test_the_cpu_backend_passes_the_conformance_suite() -> None:
    run = run_suite("cpu", cwd=REPO)
    assert run.returncode == 0, run.output[-6000:]
    assert run.counts.get("passed", 0) > 1000, run.summary()
    assert not run.counts.get("failed") and not run.counts.get("error"), run.summary()
