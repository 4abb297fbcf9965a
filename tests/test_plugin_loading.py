"""Loading plugins reliably: first use from many threads, all-or-nothing loading that a Ctrl-C
cannot leave half-done, device types and layouts that no plugin can take from their rightful
provider, overrides that are never silent, commits that leave nothing of a failed plugin, and
hook implementations checked against the specs.

Each test runs in a fresh interpreter (``run_py``): loading happens once per process, and the
plugins these tests install are hostile on purpose. "Installed" here means a ``.dist-info``
directory with an ``entry_points.txt`` on ``PYTHONPATH``, which ``importlib.metadata`` finds
exactly as it finds a pip-installed distribution.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

TESTS_DIR = Path(__file__).parent

# A Python expression of everything a plugin can change, to compare before and after.
_STATE = """
import tensorcore as tc
from tensorcore import dispatch, layouts
from tensorcore.autograd import step
from tensorcore.ops._api import FUNCTIONS
from tensorcore.plugins import manager

def state(ignore=()):
    return (
        dict(vars(tc.Tensor)), dict(FUNCTIONS), set(dispatch.ops()),
        {name: dict(op.registered) for name, op in dispatch.ops().items()},
        layouts.registered_layouts(), dict(manager._devices), dict(manager.attributes),
        {name: (p.status, p.error) for name, p in manager._plugins.items() if name not in ignore},
        dict(step.derivative_overrides), set(step.overridden_ops),
    )
"""


def install(site: Path, dist: str, entry_points: dict[str, str], modules: dict[str, str]) -> None:
    """Install distribution ``dist`` 1.0 into ``site``: its metadata, its entry points in the
    ``tensorcore.backends`` group and its top-level modules (name -> source)."""
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    eps = "".join(f"{name} = {module}\n" for name, module in entry_points.items())
    (info / "entry_points.txt").write_text(f"[tensorcore.backends]\n{eps}")
    for name, source in modules.items():
        (site / f"{name}.py").write_text(textwrap.dedent(source))


def env_for(site: Path, **extra: str) -> dict[str, str]:
    return {"PYTHONPATH": os.pathsep.join([str(site), str(TESTS_DIR)]), **extra}


# Loads the plugins in the subprocess, recording ``warned`` (the warnings' messages) and
# ``info`` (plugin name -> PluginInfo).
_LOAD = """
import warnings
import tensorcore as tc
from tensorcore.plugins import hookimpl, manager

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    info = {p.name: p for p in tc.backends.list()}
warned = [str(w.message) for w in caught]
"""


def loads(run_py: Any, site: Path, checks: str) -> bool:
    """Whether ``checks`` (run after :data:`_LOAD`, with ``site`` installed) print OK."""
    return run_py(_LOAD + textwrap.dedent(checks), env=env_for(site)).stdout.strip() == "OK"


def cli(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENSORCORE_")}
    env.update(env_for(site))
    cmd = [sys.executable, "-m", "tensorcore", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)


# ---------------------------------------------------------------- first use from many threads
_SLOW = """
    import time
    from tensorcore.plugins import hookimpl

    @hookimpl
    def tensorcore_register_kernels(register):
        time.sleep(0.5)  # a backend that takes its time to initialise (a GPU runtime, say)
"""


def test_first_use_from_many_threads(tmp_path: Path, run_py: Any) -> None:
    # The slow plugin sorts first, so the threads arrive while the plugins are loading.
    install(tmp_path, "tensorcore-slow", {"aaa_slow": "slow_plugin"}, {"slow_plugin": _SLOW})
    code = """
        import threading, time
        import tensorcore as tc

        first_uses = [
            lambda: (tc.ones(2) + 1).tolist() == [2.0, 2.0],
            lambda: tc.zeros(3).sum().item() == 0.0,
            lambda: tc.tensor([1.0, 2.0]).mul(2).tolist() == [2.0, 4.0],
            lambda: "cpu" in [p.name for p in tc.backends.list() if p.status == "loaded"],
            lambda: tc.backends.devices()["cpu"],
            lambda: tc.explain("add", tc.ones(1), tc.ones(1)).endswith("from plugin 'cpu'"),
        ]
        n = 16
        barrier = threading.Barrier(n)
        results = [None] * n

        def first_use(i):
            barrier.wait()
            time.sleep(i * 0.02)  # one thread starts loading, the others arrive all along it
            try:
                results[i] = first_uses[i % len(first_uses)]()
            except Exception as exc:
                results[i] = repr(exc)

        threads = [threading.Thread(target=first_use, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(results)
        """
    for _ in range(3):
        out = run_py(code, env=env_for(tmp_path)).stdout.strip()
        assert out == str([True] * 16), out


# ---------------------------------------------------------------- all or nothing, retryable
# The plugin raises once (the process remembers it on ``sys``, since a module whose import
# raised is imported afresh), at import, in its devices hook or in its kernels hook.
_INTERRUPTING = """
    import sys
    from tensorcore.plugins import hookimpl
    from toy_backend import ToyDevice

    def once():
        if not getattr(sys, "_interrupted", False):
            sys._interrupted = True
            raise {exc}

    if "{where}" == "import":
        once()

    @hookimpl
    def tensorcore_register_devices(register):
        register.device(ToyDevice("zzzdev"))
        if "{where}" == "devices":
            once()

    @hookimpl
    def tensorcore_register_kernels(register):
        register.op("zzz_op(Tensor self) -> Tensor", "nondifferentiable", "A test operator.")
        if "{where}" == "kernels":
            once()
"""


@pytest.mark.parametrize(
    ("where", "exc"),
    [("import", "SystemExit(3)"), ("devices", "KeyboardInterrupt"), ("kernels", "SystemExit(3)")],
)
def test_interrupted_loading_is_undone_and_retried(
    tmp_path: Path, run_py: Any, where: str, exc: str
) -> None:
    # 'zzz' loads last: in the kernels case, cpu and sparse are committed when it raises.
    plugin = _INTERRUPTING.replace("{exc}", exc).replace("{where}", where)
    install(tmp_path, "tensorcore-zzz", {"zzz": "zzz_plugin"}, {"zzz_plugin": plugin})
    code = _STATE + textwrap.dedent(f"""
        before = state()
        try:
            tc.ones(2)
        except BaseException as exc:
            assert type(exc) is {exc.split("(")[0]}, repr(exc)
            note = " ".join(getattr(exc, "__notes__", ()))
            assert "backend plugin 'zzz' (zzz_plugin, tensorcore-zzz 1.0)" in note, note
        else:
            raise AssertionError("the interruption was swallowed")
        assert not manager._loaded and manager._pm is None
        assert state() == before
        # The next use loads everything again, the interrupting plugin included.
        assert (tc.ones(2) + 1).tolist() == [2.0, 2.0]
        status = {{p.name: p.status for p in tc.backends.list()}}
        assert set(status.values()) == {{"loaded"}}, status
        assert tc.tensor([1.0], device="zzzdev").device.type == "zzzdev"
        assert callable(tc.Tensor.zzz_op) and callable(tc.zzz_op)
        print("OK")
        """)
    assert run_py(code, env=env_for(tmp_path)).stdout.strip() == "OK"


def test_cli_names_the_plugin_that_exits(tmp_path: Path) -> None:
    plugin = _INTERRUPTING.replace("{exc}", "SystemExit(3)").replace("{where}", "import")
    plugin = plugin.replace('getattr(sys, "_interrupted", False)', "False")  # every time
    install(tmp_path, "tensorcore-zzz", {"zzz": "zzz_plugin"}, {"zzz_plugin": plugin})
    proc = cli(tmp_path)
    assert proc.returncode == 3
    assert "SystemExit(3)" in proc.stderr and "plugin 'zzz' (zzz_plugin" in proc.stderr, proc
    assert "TENSORCORE_BACKENDS" in proc.stderr


# ---------------------------------------------------------------- device types and layouts
_HIJACK = """
    from tensorcore.plugins import hookimpl
    from toy_backend import ToyDevice

    @hookimpl
    def tensorcore_register_devices(register):
        for name in {devices!r}:
            register.device(ToyDevice(name))

    @hookimpl
    def tensorcore_register_layouts(register):
        for name in {layouts!r}:
            register.layout(name)
"""


def _hijacker(devices: tuple[str, ...] = (), layouts: tuple[str, ...] = ()) -> str:
    return _HIJACK.replace("{devices!r}", repr(devices)).replace("{layouts!r}", repr(layouts))


@pytest.mark.parametrize("name", ["aaa", "zzz"])  # before and after the real one by name
@pytest.mark.parametrize(
    ("kind", "claim", "owner"),
    [
        ("device type", "cpu", "cpu"),
        ("device type", "meta", "meta"),
        ("layout", "sparse_coo", "sparse"),
    ],
)
def test_a_plugin_cannot_take_a_device_type_or_layout(
    tmp_path: Path, run_py: Any, name: str, kind: str, claim: str, owner: str
) -> None:
    plugin = _hijacker(devices=(claim,)) if kind == "device type" else _hijacker(layouts=(claim,))
    install(tmp_path, "tensorcore-evil", {name: "evil_plugin"}, {"evil_plugin": plugin})
    checks = f"""
        assert info["{owner}"].status == "loaded", info["{owner}"]
        assert info["{name}"].status == "failed", info["{name}"]
        error = info["{name}"].error
        for words in ("{kind} '{claim}'", "plugin '{owner}' (tensorcore-",
                      "plugin '{name}' (tensorcore-evil 1.0)"):
            assert words in error, (words, error)
        assert any(error.split(": ", 1)[1] in message for message in warned)
        assert manager.device_interfaces()["cpu"]._plugin == "cpu"
        assert tc.sparse_coo.plugin == "sparse"
        assert (tc.ones(2) + 1).tolist() == [2.0, 2.0]
        print("OK")
        """
    assert loads(run_py, tmp_path, checks)


def test_an_entry_point_cannot_take_a_backend_name(tmp_path: Path, run_py: Any) -> None:
    # PYTHONPATH comes before site-packages, so importlib.metadata lists this one first.
    install(tmp_path, "tensorcore-evil", {"cpu": "evil_plugin"}, {"evil_plugin": _hijacker()})
    checks = """
        assert info["cpu"].distribution == "tensorcore-cpu", info["cpu"]
        assert info["cpu"].status == "loaded"
        words = ("'cpu' (evil_plugin, from tensorcore-evil) is not loaded",
                 "already taken by tensorcore_cpu.plugin (from tensorcore-cpu)")
        assert any(all(w in message for w in words) for message in warned), warned
        assert (tc.ones(2) + 1).tolist() == [2.0, 2.0]
        print("OK")
        """
    assert loads(run_py, tmp_path, checks)


def test_third_party_claims_are_settled_whatever_the_order(tmp_path: Path, run_py: Any) -> None:
    # 'npu' is claimed by the plugin named after it and by one sorted before it: the named one
    # wins. 'tpu' is claimed by two plugins, neither named after it: neither gets it.
    install(tmp_path, "tensorcore-npu", {"npu": "npu_plugin"},
            {"npu_plugin": _hijacker(devices=("npu",))})  # fmt: skip
    install(tmp_path, "tensorcore-other", {"aaa": "aaa_plugin", "bbb": "bbb_plugin"},
            {"aaa_plugin": _hijacker(devices=("npu", "tpu")),
             "bbb_plugin": _hijacker(devices=("tpu",))})  # fmt: skip
    checks = """
        assert info["npu"].status == "loaded" and info["npu"].devices == ["npu"], info["npu"]
        assert info["aaa"].status == info["bbb"].status == "failed"
        assert "device type 'npu' belongs to plugin 'npu' (tensorcore-npu 1.0)" in info["aaa"].error
        assert "device type 'tpu' is registered by both plugin 'bbb' (tensorcore-other 1.0) " \\
               "and plugin 'aaa' (tensorcore-other 1.0)" in info["bbb"].error, info["bbb"].error
        assert set(tc.backends.devices()) >= {"cpu", "npu"} and "tpu" not in tc.backends.devices()
        print("OK")
        """
    assert loads(run_py, tmp_path, checks)


# ---------------------------------------------------------------- overrides are never silent
_OVERRIDE = """
    from tensorcore.plugins import hookimpl

    def add(out, a, b, alpha=1):
        out.fill_(42.0)

    @hookimpl
    def tensorcore_register_kernels(register):
        register.kernel("add", "cpu", "strided", add, override=True)
        # No kernel to replace here: not an override.
        register.kernel("mul", "nodev", "strided", add, override=True)
"""


def test_overrides_warn_and_are_listed(tmp_path: Path, run_py: Any) -> None:
    install(tmp_path, "tensorcore-over", {"over": "over_plugin"}, {"over_plugin": _OVERRIDE})
    checks = """
        messages = [message for message in warned if "overrides" in message]
        assert len(messages) == 1, messages
        for words in ("add[cpu, strided]", "plugin 'over' (tensorcore-over 1.0)",
                      "plugin 'cpu' (tensorcore-cpu"):
            assert words in messages[0], (words, messages[0])
        assert info["over"].overrides == ["add[cpu, strided] from plugin 'cpu'"]
        x = tc.ones(2)
        assert (x + 1).tolist() == [42.0, 42.0]
        assert tc.explain("add", x, x) == (
            "add[cpu, strided] -> kernel 'add' from plugin 'over' (overrides plugin 'cpu')"
        )
        [(name, rec)] = tc.dispatch.overrides()
        assert (name, rec.plugin, rec.overrides.plugin) == ("add", "over", "cpu")

        # At runtime too; and overriding the override names the plugin it replaces.
        class Again:
            @hookimpl
            def tensorcore_register_kernels(self, register):
                register.kernel("add", "cpu", "strided", lambda out, a, b, alpha=1: None,
                                override=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tc.backends.register(Again(), name="again")
        assert [str(w.message) for w in caught] == [
            "tensorcore: plugin 'again' (registered at runtime) overrides the kernel "
            "add[cpu, strided] of plugin 'over' (tensorcore-over 1.0) (override=True); "
            "python -m tensorcore lists every overridden kernel"
        ]
        assert tc.explain("add", x, x).endswith("(overrides plugin 'over')")
        print("OK")
        """
    assert loads(run_py, tmp_path, checks)

    # The report says which plugin overrides how many kernels (test_info checks the listing).
    proc = cli(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^  over +tensorcore-over 1\.0 +loaded +2 kernels, overrides 1", proc.stdout,
                     re.M), proc.stdout  # fmt: skip


def test_an_override_applies_whatever_its_plugins_name(tmp_path: Path, run_py: Any) -> None:
    # 'aaa' loads before 'cpu' (name order): it still commits after the kernel it replaces.
    install(tmp_path, "tensorcore-aaa", {"aaa": "aaa_plugin"}, {"aaa_plugin": _OVERRIDE})
    checks = """
        assert info["aaa"].status == "loaded", info["aaa"].error
        assert info["cpu"].status == "loaded", info["cpu"].error
        assert info["aaa"].overrides == ["add[cpu, strided] from plugin 'cpu'"]
        assert (tc.ones(2) + 1).tolist() == [42.0, 42.0]
        print("OK")
        """
    assert loads(run_py, tmp_path, checks)


# ---------------------------------------------------------------- nothing of a failed plugin
# A runtime plugin that registers one of everything, then fails at ``stage``.
_EVERYTHING = """
    class Everything:
        def __init__(self, stage):
            self.stage = stage

        @hookimpl
        def tensorcore_register_devices(self, register):
            register.device(ToyDevice("txdev"))

        @hookimpl
        def tensorcore_register_layouts(self, register):
            register.layout("txlayout")

        @hookimpl
        def tensorcore_register_kernels(self, register):
            register.op("txop(Tensor self) -> Tensor", "", "A test operator.", inplace=True)
            register.op("txop2(Tensor self) -> Tensor", "nondifferentiable", "Another.")
            register.kernel("txop", "txdev", "strided", lambda out, a: None)
            register.kernel("neg", "txdev", "strided", lambda out, a: None)
            register.derivative("txop", "txdev", "strided", "", lambda ctx, grad: (grad,))
            register.attribute("txattr", 1)
            stage = self.stage
            if stage == "kernel clash":
                register.kernel("add", "cpu", "strided", lambda *a: None)
            elif stage == "core name":
                register.attribute("ones", 2)
            elif stage == "attribute clash":
                register.attribute("first_attr", 3)
            elif stage == "layout clash":
                register.layout("strided")
            elif stage == "device clash":
                register.device(ToyDevice("cpu"))
            elif stage == "tensor method":
                register.op("is_leaf(Tensor self) -> Tensor", "nondifferentiable", "Clash.")
            elif stage == "interrupt":
                raise KeyboardInterrupt
"""


def test_nothing_of_a_failed_plugin_remains(run_py: Any) -> None:
    code = (
        _STATE
        + """
from tensorcore.ops import _api
from tensorcore.plugins import hookimpl
from toy_backend import ToyDevice
"""
        + textwrap.dedent(_EVERYTHING)
        + """
class First:
    @hookimpl
    def tensorcore_register_kernels(self, register):
        register.attribute("first_attr", 0)

tc.backends.register(First(), name="first")
before = state()
stages = {  # each fails for its own reason
    "kernel clash": "kernel add[cpu, strided] is registered by both",
    "core name": "cannot replace tensorcore.ones",
    "attribute clash": "tensorcore.first_attr is exposed by both plugin 'first'",
    "layout clash": "layout 'strided' is registered by both",
    "device clash": "device type 'cpu' is registered by both",
    "tensor method": "cannot replace Tensor.is_leaf",
    "apply: kernels": "injected",
    "apply: second operator": "injected",
    "interrupt": None,
}
for stage, reason in stages.items():
    real = dispatch.add_kernels, _api.build_one
    if stage == "apply: kernels":  # applying fails after devices, layouts and operators
        def add_kernels(*args):
            raise RuntimeError("injected")
        dispatch.add_kernels = add_kernels
    elif stage == "apply: second operator":
        def build_one(decl):
            if decl.name == "txop2":
                raise RuntimeError("injected")
            real[1](decl)
        _api.build_one = build_one
    listed = manager._plugins.get("everything")
    try:
        tc.backends.register(Everything(stage), name="everything")
    except RuntimeError as exc:
        assert reason in str(exc), (stage, str(exc))
        info = {p.name: p for p in tc.backends.list()}["everything"]
        assert info.status == "failed" and reason in info.error, stage  # listed, with why
    except KeyboardInterrupt:
        assert manager._plugins.get("everything") is listed  # as if never called
    else:
        raise AssertionError(f"{stage}: registered")
    finally:
        dispatch.add_kernels, _api.build_one = real
    assert state(ignore=["everything"]) == before, stage
    assert not hasattr(tc.Tensor, "txop") and "txdev" not in tc.backends.devices(), stage
info = tc.backends.register(Everything(None), name="everything")
assert info.status == "loaded" and info.devices == ["txdev"] and info.layouts == ["txlayout"]
assert callable(tc.Tensor.txop_) and tc.txattr == 1 and tc.txlayout.plugin == "everything"
print("OK")
"""
    )
    assert run_py(code, env={"PYTHONPATH": str(TESTS_DIR)}).stdout.strip() == "OK"


# ---------------------------------------------------------------- hooks checked against specs
_MISSPELT = """
    from tensorcore.plugins import hookimpl

    @hookimpl
    def tensorcore_register_kernel(register):
        register.kernel("add", "cpu", "strided", print, override=True)
"""


def test_misspelt_hook_fails_the_plugin(tmp_path: Path, run_py: Any) -> None:
    install(tmp_path, "tensorcore-typo", {"typo": "typo_plugin"}, {"typo_plugin": _MISSPELT})
    checks = """
        typo = info["typo"]
        assert typo.status == "failed", typo
        for words in ("unknown hook 'tensorcore_register_kernel'",
                      "did you mean 'tensorcore_register_kernels'",
                      "The hooks are: tensorcore_register_comm_backends, "
                      "tensorcore_register_devices, tensorcore_register_kernels, "
                      "tensorcore_register_layouts"):
            assert words in typo.error, (words, typo.error)
        assert any("'typo'" in message and "unknown hook" in message for message in warned)

        class Unmarked:  # a hook without @hookimpl would never run
            def tensorcore_register_kernels(self, register):
                register.kernel("add", "cpu", "strided", print, override=True)
        try:
            tc.backends.register(Unmarked(), name="unmarked")
        except RuntimeError as exc:
            assert "defines tensorcore_register_kernels without marking it with @hookimpl" in (
                str(exc)), exc
        else:
            raise AssertionError("a plugin without hook implementations loaded")
        assert tc.explain("add", tc.ones(1), tc.ones(1)).endswith("from plugin 'cpu'")
        print("OK")
        """
    assert loads(run_py, tmp_path, checks)
