"""The examples run as the README says, on every installed device: the tensor model tour
(``examples/quickstart.py``) and the training example (``examples/train_digits.py``), which
must reach its documented accuracy, save a checkpoint that reloads to the same accuracy,
and write its plot."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from typing import Any

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_quickstart_runs(capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(EXAMPLES / "quickstart.py"), run_name="__main__")
    assert capsys.readouterr().out


def test_train_digits_reaches_97_percent(device: str, tmp_path: Path) -> None:
    pytest.importorskip("sklearn", reason="the example's data ship with scikit-learn")
    pytest.importorskip("matplotlib", reason="the example plots with matplotlib")
    pytest.importorskip("tqdm", reason="the example shows a tqdm progress bar")
    sys.path.insert(0, str(EXAMPLES))
    try:
        module: Any = runpy.run_path(str(EXAMPLES / "train_digits.py"), run_name="train_digits")
    finally:
        sys.path.remove(str(EXAMPLES))
    acc = module["main"](["--device", device, "--quiet", "--out-dir", str(tmp_path)])
    assert acc >= 0.97
    assert (tmp_path / "digits.safetensors").stat().st_size > 0
    png = (tmp_path / "digits_curves.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
