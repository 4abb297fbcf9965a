"""The CUDA backend passes tensorcore's conformance suite (fast mode): ``pytest --pyargs
tensorcore.testing.conformance --tensorcore-device=cuda``. Skips, with the reason, where no
GPU is usable. Known gaps: ``tensorcore_cuda/conformance_gaps.txt``."""

from __future__ import annotations

from pathlib import Path

import pytest

import tensorcore as tc
from tensorcore.testing.conformance import run_suite

REPO = Path(__file__).resolve().parents[3]


def _why_not() -> str | None:
    if "cuda" not in tc.backends.devices():
        return "tensorcore-cuda is not installed or did not load"
    if not tc.backends.devices()["cuda"]:
        return f"CUDA unavailable: {tc.cuda.unavailable_reason()}"
    return None


@pytest.mark.cuda
@pytest.mark.skipif(_why_not() is not None, reason=str(_why_not()))
def test_the_cuda_backend_passes_the_conformance_suite() -> None:
    run = run_suite("cuda", cwd=REPO)
    assert run.returncode == 0, run.output[-6000:]
    assert run.counts.get("passed", 0) > 1000, run.summary()
    assert not run.counts.get("failed") and not run.counts.get("error"), run.summary()
