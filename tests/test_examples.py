"""The examples run as the README says, on every installed device: the tensor model tour
(``examples/quickstart.py``) and the training example (``examples/train_digits.py``), which
must reach its documented accuracy, save a checkpoint that reloads to the same accuracy,
and write its plot."""

from __future__ import annotations

import os
import re
import runpy
import subprocess
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


def test_train_digits_distributed_on_two_processes(tmp_path: Path) -> None:
    """``--distributed`` under the launcher (2 processes, 3 epochs): only rank 0 reports and
    writes files, and the data-parallel model learns."""
    for mod, why in [("sklearn", "data"), ("matplotlib", "plot"), ("tqdm", "progress bar"),
                     ("mpi4py", "MPI backend")]:  # fmt: skip
        pytest.importorskip(mod, reason=f"the distributed example needs it ({why})")
    from tensorcore.distributed.run import find_mpiexec

    if find_mpiexec() is None:
        pytest.skip("no mpiexec next to sys.executable nor on PATH (pip install mpich)")
    root = EXAMPLES.parent
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(root), str(root / "backends" / "cpu"), env.get("PYTHONPATH", "")]
    )
    cmd = [sys.executable, "-m", "tensorcore.distributed.run", "--nproc", "2",
           str(EXAMPLES / "train_digits.py"), "--distributed", "--quiet", "--epochs", "3",
           "--out-dir", str(tmp_path)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("test accuracy:") == 1, proc.stdout  # rank 0 only
    assert "on 2 processes" in proc.stdout
    acc = float(re.search(r"test accuracy: ([\d.]+)%", proc.stdout).group(1))  # type: ignore[union-attr]
    assert acc >= 90.0, proc.stdout
    assert (tmp_path / "digits.safetensors").stat().st_size > 0
    assert (tmp_path / "digits_curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
