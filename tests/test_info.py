"""``python -m tensorcore``: the installation report and the ``--ops`` kernel matrix."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tensorcore as tc
from tensorcore.ops.schema import OPS

# The core's operators (taken before any test can load a plugin that declares more).
CORE_OPS = list(OPS)


def run(*args: str, env: dict[str, str] | None = None, code: str | None = None) -> str:
    """Run ``python -m tensorcore ARGS`` (or ``python -c CODE``); return stdout, check rc 0."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("TENSORCORE_")}
    base.update(env or {})
    cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "tensorcore", *args]
    proc = subprocess.run(cmd, env=base, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def report() -> str:
    return run()


def test_report_versions(report: str) -> None:
    assert report.startswith(f"tensorcore {tc.__version__} (")
    assert re.search(r"^Python \S+ \d+\.\d+\.\d+", report, re.M)


def test_report_cpu_backend_loaded(report: str) -> None:
    assert re.search(r"^  cpu +tensorcore-cpu \S+ +loaded +device cpu", report, re.M), report


def test_report_cpu_device_available(report: str) -> None:
    assert re.search(r"^  cpu +available +1 +cpu", report, re.M), report


def test_report_layouts(report: str) -> None:
    assert re.search(
        r"^Layouts:\n  name +priority +plugin\n  strided +0 +tensorcore$", report, re.M
    )


def test_report_coverage(report: str) -> None:
    # Plugins may declare operators too: the count is the core's table and theirs.
    found = re.search(r"^Operator coverage \((\d+) declared operators\):$", report, re.M)
    assert found, report
    n = int(found.group(1))
    assert n >= len(CORE_OPS)
    m = re.search(rf"^  cpu +(\d+)/{n} +cpu/strided$", report, re.M)
    assert m and int(m.group(1)) > 0, report
    assert re.search(rf"^  runnable on cpu/strided: \d+/{n} operators$", report, re.M), report


def test_ops_matrix() -> None:
    out = run("--ops")
    lines = out.splitlines()
    header = lines[0].split()
    assert header[0] == "operator" and "cpu/strided" in header, lines[0]
    assert set(lines[1]) == {"-"}
    end = lines.index("")
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:end]}
    assert list(rows)[: len(CORE_OPS)] == CORE_OPS  # in the order of the operator table
    with_kernel = sum(1 for cells in rows.values() if set(cells) != {"-"})
    assert lines[end + 1] == f"{with_kernel} of {len(rows)} operators have at least one kernel."
    assert rows["add"][header.index("cpu/strided") - 1] == "cpu"
    # Wildcard registrations have their own columns: the core's views and composites.
    assert rows["transpose"][header.index("*/strided") - 1] == "views"
    assert rows["zeros"][header.index("*/*") - 1] == "composite"


def test_version_flag() -> None:
    assert run("--version").strip() == f"tensorcore {tc.__version__}"


def test_blocked_backend_is_listed_with_its_reason() -> None:
    out = run(env={"TENSORCORE_BACKENDS": "nothing"})
    assert re.search(r"^  cpu .* blocked +not listed in TENSORCORE_BACKENDS$", out, re.M), out
    assert "Devices (default device: cpu (no loaded backend provides it)):" in out


def test_failed_backend_is_listed_with_its_error(tmp_path: Path) -> None:
    # An installed distribution whose plugin module fails to import.
    dist = tmp_path / "tensorcore_broken-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tensorcore-broken\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[tensorcore.backends]\nbroken = tensorcore_broken\n")
    (tmp_path / "tensorcore_broken.py").write_text("raise ImportError('libbroken.so not found')\n")
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    out = run(env={"PYTHONPATH": path})
    pattern = r"^  broken +tensorcore-broken 1\.0 +failed +ImportError: libbroken\.so not found$"
    assert re.search(pattern, out, re.M), out
    # The other backends keep working.
    assert re.search(r"^  cpu +tensorcore-cpu \S+ +loaded", out, re.M), out


def test_report_with_only_the_core_installed() -> None:
    # Hide every installed backend, as if only the core were installed; the report must not
    # need NumPy (the core never imports it; only a backend may).
    code = textwrap.dedent(
        """
        import importlib.metadata as md, sys
        real = md.entry_points
        md.entry_points = lambda **kw: (
            () if kw.get("group") == "tensorcore.backends" else real(**kw)
        )
        from tensorcore._info import main
        main([])
        print("numpy imported:", "numpy" in sys.modules)
        """
    )
    out = run(code=code)
    assert "none installed. Install the CPU backend: pip install tensorcore-cpu" in out
    assert "none registered. Install a backend, e.g. pip install tensorcore-cpu" in out
    assert out.rstrip().endswith("numpy imported: False")


def test_plugin_coverage_counts_each_operator_once() -> None:
    # A plugin registering one operator for two keys covers it once.
    code = textwrap.dedent(
        """
        import tensorcore as tc
        from tensorcore._info import plugin_coverage
        from tensorcore.plugins import hookimpl

        class Plugin:
            @hookimpl
            def tensorcore_register_kernels(self, register):
                register.kernel("add", "dev1", "strided", print)
                register.kernel("add", "dev2", "strided", print)
                register.kernel("mul", "dev1", "strided", print)

        tc.backends.register(Plugin(), name="two-keys")
        print(plugin_coverage()["two-keys"])
        """
    )
    assert run(code=code).strip() == "2"


def test_overridden_kernels_are_listed() -> None:
    # A kernel that replaced another plugin's (override=True) is shown by the report, the
    # --ops matrix and tc.explain; override=True where no kernel was is not an override.
    code = textwrap.dedent(
        """
        import warnings
        import tensorcore as tc
        from tensorcore._info import ops_matrix, report
        from tensorcore.plugins import hookimpl

        class Over:
            @hookimpl
            def tensorcore_register_kernels(self, register):
                register.kernel("add", "cpu", "strided", lambda out, a, b, alpha=1: None,
                                override=True)
                register.kernel("mul", "nodev", "strided", print, override=True)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tc.backends.register(Over(), name="over")
        x = tc.ones(1)
        print(tc.explain("add", x, x))
        print(tc.explain("mul", device="nodev"))
        print(report())
        print(ops_matrix())
        """
    )
    lines = run(code=code).splitlines()
    assert (
        lines[0]
        == "add[cpu, strided] -> kernel '<lambda>' from plugin 'over' (overrides plugin 'cpu')"
    )
    assert lines[1] == "mul[nodev, strided] -> kernel 'print' from plugin 'over'"
    listing = [
        "Overridden kernels (override=True):",
        "  add[cpu, strided]: plugin 'over' replaces plugin 'cpu'",
    ]
    at = lines.index(listing[0])
    # The report's last section (mul is not in it), then the matrix.
    assert lines[at : at + 2] == listing and lines[at + 2].startswith("operator ")
    header = lines[at + 2]
    add = next(line for line in lines if line.startswith("add ")).split()
    assert add[header.split().index("cpu/strided")] == "over!"
    assert lines[-3:] == ["'!': the kernel overrides another plugin's.", *listing]


# ------------------------------------------------------------------ --coverage NAME
def test_coverage_of_a_device_counts_its_kernels_by_source_and_category() -> None:
    from tensorcore.backend import resolved_kernels

    out = run("--coverage", "cpu")
    total = len(tc.dispatch.ops())
    kernels = resolved_kernels("cpu")
    assert out.startswith("Coverage of cpu/strided (device type 'cpu' from plugin 'cpu'):")
    assert f"  {len(kernels)}/{total} operators of the runtime table have a kernel" in out
    own = sum(r.plugin == "cpu" for r in kernels.values())
    assert re.search(rf"^ +{own} from plugin 'cpu' \(cpu/strided\)$", out, re.M), out
    assert re.search(r"^ +pointwise +(\d+)/\1 +-$", out, re.M), out  # all of them
    missing = [n for n in tc.dispatch.ops() if n not in kernels]
    assert out.rstrip().endswith(f"no kernel ({len(missing)}): {', '.join(missing) or 'none'}")


def test_coverage_of_a_layout_and_of_an_unknown_name() -> None:
    out = run("--coverage", "sparse_coo")
    assert out.startswith("Coverage of cpu/sparse_coo (")
    assert "layout 'sparse_coo' from plugin 'sparse'" in out
    assert re.search(r"from plugin 'sparse' \(cpu/sparse_coo\)$", out, re.M), out
    proc = subprocess.run(
        [sys.executable, "-m", "tensorcore", "--coverage", "nosuch"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "no loaded plugin registers the device type 'nosuch' (known: cpu" in proc.stderr
