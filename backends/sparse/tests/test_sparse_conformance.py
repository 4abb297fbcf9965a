"""The ``sparse_coo`` layout passes tensorcore's conformance suite (fast mode) on every
available device with sparse kernels, as a third-party layout backend runs it: ``pytest
--pyargs tensorcore.testing.conformance --tensorcore-device=cpu
--tensorcore-layout=sparse_coo``. Known gaps: ``tensorcore_sparse/conformance_gaps.txt``."""

from __future__ import annotations

from pathlib import Path

from tensorcore.testing.conformance import run_suite

REPO = Path(__file__).resolve().parents[3]


def test_the_sparse_layout_passes_the_conformance_suite(device: str) -> None:
    run = run_suite(device, "sparse_coo", cwd=REPO)
    assert run.returncode == 0, run.output[-6000:]
    assert run.counts.get("passed", 0) > 300, run.summary()
    assert not run.counts.get("failed") and not run.counts.get("error"), run.summary()
