"""The ``sparse_coo``, ``sparse_csr`` and ``sparse_csc`` layouts pass tensorcore's
conformance suite (fast mode) on every available device with sparse kernels, as a third-party
layout backend runs it: ``pytest --pyargs tensorcore.testing.conformance
--tensorcore-device=cpu --tensorcore-layout=sparse_csr``. Known gaps:
``tensorcore_sparse/conformance_gaps.txt``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tensorcore.testing.conformance import run_suite

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("layout", ["sparse_coo", "sparse_csr", "sparse_csc"])
def test_the_sparse_layout_passes_the_conformance_suite(device: str, layout: str) -> None:
    # (the CSR and CSC runs skip every sample whose input is not a matrix: they cannot hold it)
    run = run_suite(device, layout, cwd=REPO)
    assert run.returncode == 0, run.output[-6000:]
    assert run.counts.get("passed", 0) > 300, run.summary()
    assert not run.counts.get("failed") and not run.counts.get("error"), run.summary()
