"""The conformance plugin (``tensorcore.testing.pytest_plugin``) catches a broken backend:
a toy device whose ``add`` is off by one fails the run; a gaps-file line (passed with
``--tensorcore-gaps`` or shipped next to the plugin module) turns that into strict expected
failures; a gap line for a test that passes fails the run naming the line; and without its
options the plugin loads nothing and collects nothing."""

from __future__ import annotations

import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tensorcore.testing.conformance import run_suite
from tensorcore.testing.conformance._gaps import parse

TESTS_DIR = Path(__file__).resolve().parent

# A backend not yet packaged: its plugin module, and the conftest.py that registers it at
# runtime (it loads before the conformance plugin reads its options).
PLUGIN = f"""
import sys

sys.path.insert(0, {str(TESTS_DIR)!r})

from tensorcore.plugins import hookimpl
from toy_backend import ToyDevice, _fill, mul, neg, tolist

TENSORCORE_CONFORMANCE_GAPS = "toy_gaps.txt"


def add(out, a, b, alpha=1):
    _fill(out, lambda x, y: x + alpha * y + 1, a, b)  # the bug: off by one


@hookimpl
def tensorcore_register_devices(register):
    register.device(ToyDevice("brokentoy"))


@hookimpl
def tensorcore_register_kernels(register):
    for name, fn in (("add", add), ("mul", mul), ("neg", neg), ("tolist", tolist)):
        register.kernel(name, "brokentoy", "strided", fn)
"""
CONFTEST = """
import tensorcore as tc

import brokentoy_plugin

tc.backends.register(brokentoy_plugin, name="brokentoy")
"""
# Only the first samples of the toy's own kernels (the others are non-contiguous, and the
# toy has no ``clone`` to build them with): the rest of the suite is not what is tested.
SELECT = ["-k", "test_samples[add-float32-0] or test_samples[neg-float32-0]"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "brokentoy_plugin.py").write_text(PLUGIN)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "toy_gaps.txt").write_text("# the gaps file the plugin module ships: none yet\n")
    return tmp_path


@pytest.mark.slow
def test_an_off_by_one_add_fails_and_a_gap_makes_it_an_expected_failure(project: Path) -> None:
    broken = run_suite("brokentoy", args=SELECT, cwd=project, timeout=300)
    assert broken.returncode == 1, broken.output[-3000:]
    assert (broken.counts.get("failed"), broken.counts.get("passed")) == (1, 1), broken.summary()
    assert "FAILED" in broken.output and "test_samples[add-float32-0]" in broken.output
    assert "add's result on brokentoy/strided: Tensor-likes are not close!" in broken.output
    assert "test_samples[neg-float32-0]" not in broken.output  # neg is right: it passes

    gaps = project / "gaps.txt"
    gaps.write_text("# the toy's known gaps\ntest_samples[add-*]   add is off by one\n")
    known = run_suite("brokentoy", gaps=[gaps], args=SELECT, cwd=project, timeout=300)
    assert known.returncode == 0, known.output[-3000:]
    assert known.counts.get("xfailed") == broken.counts["failed"], known.summary()
    assert "failed" not in known.counts, known.summary()

    # A gap for a test that passes (neg) is stale: the run fails and says what to remove.
    gaps.write_text("test_samples[add-*]  add is off by one\ntest_samples[neg-*]  stale\n")
    stale = run_suite("brokentoy", gaps=[gaps], args=SELECT, cwd=project, timeout=300)
    assert stale.returncode == 1, stale.output[-3000:]
    assert "passes, but it is listed as a known gap" in stale.output
    assert f"{gaps}:2" in stale.output and "remove that line" in stale.output


@pytest.mark.slow
def test_a_failure_is_rerun_alone_with_the_command_the_run_prints(project: Path) -> None:
    # The id pytest prints (check_samples.py::...) names no file under the project; the
    # summary gives a command that runs that test alone (once: a named module of the suite
    # is collected by pytest alone, not again by the plugin).
    broken = run_suite("brokentoy", args=SELECT, cwd=project, timeout=300)
    command = (
        "pytest --tensorcore-device=brokentoy --pyargs "
        "'tensorcore.testing.conformance.check_samples::test_samples[add-float32-0]'"
    )
    assert "rerun a failure alone" in broken.output and command in broken.output, broken.output
    proc = subprocess.run(
        [sys.executable, "-m", *shlex.split(command), "-p", "no:cacheprovider", "-q"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "1 failed in" in proc.stdout and "passed" not in proc.stdout, proc.stdout


@pytest.mark.slow
def test_a_plugin_module_ships_its_gaps_file(project: Path) -> None:
    # The module declares TENSORCORE_CONFORMANCE_GAPS = "toy_gaps.txt": read with no option.
    (project / "toy_gaps.txt").write_text("test_samples[add-float32-?]  add is off by one\n")
    shipped = run_suite("brokentoy", args=[*SELECT, "-rx"], cwd=project, timeout=300)
    assert shipped.returncode == 0, shipped.output[-3000:]
    assert (shipped.counts.get("xfailed"), shipped.counts.get("passed")) == (1, 1), shipped.output
    assert "toy_gaps.txt:1): add is off by one" in shipped.output


def test_without_its_options_the_plugin_collects_nothing(tmp_path: Path) -> None:
    from tensorcore.testing import pytest_plugin

    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         str(pytest_plugin.SUITE_DIR)],
        capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False,
    )  # fmt: skip
    assert "no tests ran" in proc.stdout, proc.stdout + proc.stderr
    assert proc.returncode == 5  # pytest's "no tests collected"


def test_without_its_options_the_plugin_loads_no_backend_and_no_numpy(tmp_path: Path) -> None:
    (tmp_path / "test_probe.py").write_text(
        textwrap.dedent(
            """
            import sys

            def test_probe(pytestconfig):
                assert pytestconfig.pluginmanager.has_plugin("tensorcore")  # it is loaded
                assert "tensorcore" not in sys.modules  # and imported nothing of tensorcore
                assert "numpy" not in sys.modules
                from tensorcore.plugins import manager
                assert not manager._loaded  # no backend plugin was loaded
                assert "tensorcore.testing.conformance" not in sys.modules
            """
        )
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_probe.py"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_an_unknown_device_is_a_usage_error(tmp_path: Path) -> None:
    run = run_suite("nosuchdevice", cwd=tmp_path, timeout=120)
    assert run.returncode == 4, run.output  # pytest's usage error
    assert "--tensorcore-device=nosuchdevice: no loaded plugin registers that device" in (
        run.output
    )


def test_gaps_lines_need_a_reason() -> None:
    with pytest.raises(ValueError, match=r"gaps.txt:2: expected"):
        parse("ok[*]  fine\ntest_samples[add-*]\n", "gaps.txt")
    (gap,) = parse("@cuda test_dtype[mm-*]  no integer GEMM", "g")
    assert gap.device == "cuda" and gap.applies_to("cuda") and not gap.applies_to("cpu")
    assert gap.matches("test_dtype[mm-int32]") and not gap.matches("test_dtype[addmm-int32]")


def test_a_layout_without_a_declared_conversion_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "toylayout_plugin.py").write_text(
        "from tensorcore.plugins import hookimpl\n\n\n"
        "@hookimpl\ndef tensorcore_register_layouts(register):\n"
        '    register.layout("toylayout")\n'
    )
    (tmp_path / "conftest.py").write_text(
        "import tensorcore as tc\nimport toylayout_plugin\n\n"
        'tc.backends.register(toylayout_plugin, name="toylayout")\n'
    )
    run = run_suite("cpu", "toylayout", cwd=tmp_path, timeout=120)
    assert run.returncode == 4, run.output
    assert "--tensorcore-layout=toylayout: toylayout_plugin declares no conversion" in run.output
    assert 'TENSORCORE_CONFORMANCE_LAYOUTS = {"toylayout": (' in run.output


def test_gaps_lines_may_name_a_mode() -> None:
    fast, full, both, cuda_full = parse(
        "@fast test_out[mm-0]  fast only\n"
        "@full test_bad_input[sort]  a full-mode case\n"
        "test_samples[add-*]  both modes\n"
        "@cuda @full test_dtype[mm-int*]  cuda, full mode\n",
        "g",
    )
    assert (fast.mode, fast.device, full.mode, both.mode) == ("fast", None, "full", None)
    assert fast.applies_to("cpu", False) and not fast.applies_to("cpu", True)
    assert full.applies_to("cpu", True) and not full.applies_to("cpu", False)
    assert both.applies_to("cpu", True) and both.applies_to("cpu", False)
    assert (cuda_full.device, cuda_full.mode) == ("cuda", "full")
    assert cuda_full.applies_to("cuda", True) and not cuda_full.applies_to("cuda", False)
    assert not cuda_full.applies_to("cpu", True)
    for bad in ("@full @fast t[x]  two modes", "@a @b t[x]  two devices", "@ t[x]  empty"):
        with pytest.raises(ValueError, match="expected"):
            parse(bad, "g")


@pytest.mark.slow
def test_a_gap_for_the_other_mode_is_not_applied(project: Path) -> None:
    # add fails in both modes; a @full line does not excuse it in a fast run, a @fast one does.
    (project / "toy_gaps.txt").write_text("@full test_samples[add-*]  off by one\n")
    fast = run_suite("brokentoy", args=SELECT, cwd=project, timeout=300)
    assert fast.counts.get("failed") == 1, fast.output[-3000:]
    assert "toy_gaps.txt:1" not in fast.output  # not applied, so not "unmatched" either
    (project / "toy_gaps.txt").write_text("@fast test_samples[add-*]  off by one\n")
    known = run_suite("brokentoy", args=SELECT, cwd=project, timeout=300)
    assert known.returncode == 0 and known.counts.get("xfailed") == 1, known.output[-3000:]


@pytest.mark.slow
def test_under_xdist_the_unmatched_gaps_are_those_no_worker_collected(project: Path) -> None:
    pytest.importorskip("xdist")
    (project / "toy_gaps.txt").write_text(
        "test_samples[add-float32-0]  off by one\ntest_samples[nosuch-*]  matches nothing\n"
    )
    # (pytest-benchmark, where installed, refuses xdist's workers)
    run = run_suite(
        "brokentoy", args=[*SELECT, "-n", "2", "-p", "no:benchmark"], cwd=project, timeout=300
    )
    assert run.returncode == 0, run.output[-3000:]
    assert run.counts.get("xfailed") == 1 and run.counts.get("passed") == 1, run.summary()
    tail = run.output.split("gaps that matched no test")[1]
    assert "toy_gaps.txt:2: test_samples[nosuch-*]" in tail
    assert "toy_gaps.txt:1" not in tail  # the controller collected nothing itself


def test_a_core_composite_that_fails_on_a_layout_skips_with_the_reason() -> None:
    from tensorcore.testing.conformance import _run, _session

    saved = _session._target
    _session._target = _session.Target(device="cpu", layout="box", full=False, plugin="box")
    try:
        got = _run.Outcome(exc=ValueError("zip() argument 2 is shorter than argument 1"))
        with pytest.raises(pytest.skip.Exception, match=r"runs the core's definition on cpu/box"):
            _run._allowed_refusal("flatten", got, own=False)
        # the layout's own kernel failing is a failure (no skip)
        _run._allowed_refusal("flatten", got, own=True)
    finally:
        _session._target = saved


def test_the_suites_own_calls_of_deprecated_operators_do_not_warn(tmp_path: Path) -> None:
    # chain_matmul warns that it is deprecated (as PyTorch's does): the suite calls it, and
    # a backend's run should not end with that warning in its summary.
    run = run_suite("cpu", args=["-k", "chain_matmul"], cwd=tmp_path, timeout=300)
    assert run.returncode == 0, run.output[-3000:]
    assert run.counts.get("passed"), run.summary()
    assert "chain_matmul is deprecated" not in run.output, run.output[-3000:]
