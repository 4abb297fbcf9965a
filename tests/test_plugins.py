"""The plugin system end to end: a third-party backend installed with pip, broken plugins,
``TENSORCORE_BACKENDS``, duplicate registrations, ``tc.explain`` and every hook.

Anything that registers plugins runs in a subprocess, so this process's registry (which the
other test modules see) stays as the installed backends made it.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import tensorcore as tc
from tensorcore.dispatch import get_op
from tensorcore.plugins import hookspecs

TESTS_DIR = Path(__file__).parent

_PYPROJECT = """\
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "0.0.1"

[project.entry-points."tensorcore.backends"]
{entry_points}

[tool.setuptools]
packages = ["{package}"]
"""

# The broken distribution: one plugin that fails at import, one whose kernel hook raises
# after its device hook registered a device, one that re-registers a CPU kernel.
_BROKEN_MODULES = {
    "import_fail.py": 'raise ImportError("boom: libfoo is missing")\n',
    "hook_fail.py": """\
        import sys
        sys.path.insert(0, {tests!r})
        from toy_backend import ToyDevice
        from tensorcore.plugins import hookimpl

        @hookimpl
        def tensorcore_register_devices(register):
            register.device(ToyDevice("halfdone"))

        @hookimpl
        def tensorcore_register_kernels(register):
            raise ValueError("kaboom in the kernel hook")
        """,
    "dup_cpu.py": """\
        from tensorcore.plugins import hookimpl

        @hookimpl
        def tensorcore_register_kernels(register):
            register.kernel("add", "cpu", "strided", lambda out, a, b, alpha=1: None)
        """,
}


def _pip_install(pkg: Path, target: Path) -> None:
    cmd = [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps",
           "--no-index",
           "--disable-pip-version-check", "-q", "--target", str(target), str(pkg)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _make_package(
    root: Path, name: str, package: str, entry_points: dict[str, str], files: dict[str, str]
) -> Path:
    pkg = root / name
    (pkg / package).mkdir(parents=True)
    eps = "\n".join(f'{k} = "{v}"' for k, v in entry_points.items())
    (pkg / "pyproject.toml").write_text(
        _PYPROJECT.format(name=name, package=package, entry_points=eps)
    )
    (pkg / package / "__init__.py").write_text("")
    for fname, text in files.items():
        (pkg / package / fname).write_text(textwrap.dedent(text))
    return pkg


@pytest.fixture(scope="module")
def toy_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A --target directory holding the pip-installed third-party distribution tensorcore-toy."""
    root = tmp_path_factory.mktemp("toy")
    source = (TESTS_DIR / "toy_backend.py").read_text()
    plugin = (
        source
        + '\n\nPLUGIN = ToyPlugin("toy")\n'
        + (
            "tensorcore_register_devices = PLUGIN.tensorcore_register_devices\n"
            "tensorcore_register_kernels = PLUGIN.tensorcore_register_kernels\n"
        )
    )
    pkg = _make_package(root, "tensorcore-toy", "tensorcore_toy", {"toy": "tensorcore_toy.plugin"},
                        {"plugin.py": plugin})  # fmt: skip
    site = root / "site"
    _pip_install(pkg, site)
    return site


@pytest.fixture(scope="module")
def broken_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A --target directory holding tensorcore-broken, whose three plugins all fail."""
    root = tmp_path_factory.mktemp("broken")
    files = {k: v.replace("{tests!r}", repr(str(TESTS_DIR))) for k, v in _BROKEN_MODULES.items()}
    eps = {
        "broken_import": "tensorcore_broken.import_fail",
        "broken_hook": "tensorcore_broken.hook_fail",
        "dupcpu": "tensorcore_broken.dup_cpu",
        "views": "tensorcore_broken.dup_cpu",  # the name of a built-in plugin
    }
    pkg = _make_package(root, "tensorcore-broken", "tensorcore_broken", eps, files)
    site = root / "site"
    _pip_install(pkg, site)
    return site


# ---------------------------------------------------------------- (a) a third-party backend
def test_pip_installed_backend_provides_a_new_device(toy_site: Path, run_py: Any) -> None:
    code = """
        import tensorcore as tc
        from tensorcore.testing import backends_for

        a = tc.tensor([[1.0, 2.0], [3.0, 4.0]], device="toy")
        b = tc.tensor([10.0, 20.0], device="toy")
        assert a.device == tc.device("toy") and a.device.type == "toy"
        assert (a + b).device.type == "toy"
        assert (a + b).tolist() == [[11.0, 22.0], [13.0, 24.0]]
        assert (a * 2).tolist() == [[2.0, 4.0], [6.0, 8.0]]
        assert (-a).tolist() == [[-1.0, -2.0], [-3.0, -4.0]]
        # The core's view arithmetic works on the new device for free.
        assert (a.t() + a).tolist() == [[2.0, 5.0], [5.0, 8.0]]
        assert a[1].tolist() == [3.0, 4.0]
        assert tc.tensor([1, 2], device="toy").add(1, alpha=2).tolist() == [3, 4]
        assert tc.explain("add", a, b) == "add[toy, strided] -> kernel 'add' from plugin 'toy'"
        info = {p.name: p for p in tc.backends.list()}["toy"]
        assert info.status == "loaded", info
        assert info.distribution == "tensorcore-toy" and info.version == "0.0.1"
        assert info.devices == ["toy"] and info.kernels == 4
        assert tc.backends.devices()["toy"] is True
        assert "toy" in backends_for("add") and "toy" not in backends_for("exp")
        try:
            tc.exp(a)
        except NotImplementedError as exc:
            assert "Could not run 'exp' with arguments from the 'toy' device" in str(exc)
        else:
            raise AssertionError("exp ran on toy")
        # Crossing devices goes through the plugin's copy_between.
        assert a.cpu().tolist() == [[1.0, 2.0], [3.0, 4.0]]
        assert tc.ones(2).to("toy").device.type == "toy"
        print("OK")
        """
    proc = run_py(code, env={"PYTHONPATH": str(toy_site)})
    assert proc.stdout.strip() == "OK"
    assert "failed to load" not in proc.stderr


def test_cli_lists_the_third_party_backend(toy_site: Path) -> None:
    if importlib.util.find_spec("tensorcore.__main__") is None:
        pytest.skip("tensorcore has no __main__ (python -m tensorcore)")
    env = dict(os.environ, PYTHONPATH=str(toy_site))
    env.pop("TENSORCORE_BACKENDS", None)
    proc = subprocess.run(
        [sys.executable, "-m", "tensorcore"], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    line = next(line for line in proc.stdout.splitlines() if line.split()[:1] == ["toy"])
    assert "tensorcore-toy" in line and "loaded" in line


def test_without_the_package_the_device_is_unknown(run_py: Any) -> None:
    code = """
        import tensorcore as tc
        try:
            tc.tensor([1.0], device="toy")
        except RuntimeError as exc:
            print(exc)
        """
    out = run_py(code).stdout
    assert "no installed backend provides the device type 'toy'" in out
    assert "install a backend package that provides 'toy'" in out


def test_tensorcore_backends_blocks_the_others(toy_site: Path, run_py: Any) -> None:
    code = """
        import tensorcore as tc
        info = {p.name: p for p in tc.backends.list()}
        assert info["cpu"].status == "loaded"
        assert info["toy"].status == "blocked", info["toy"]
        assert info["toy"].error == "not listed in TENSORCORE_BACKENDS"
        assert "toy" not in tc.backends.devices()
        print("OK")
        """
    assert (
        run_py(code, env={"PYTHONPATH": str(toy_site), "TENSORCORE_BACKENDS": "cpu"}).stdout.strip()
        == "OK"
    )


# ---------------------------------------------------------------- (b) broken plugins
def test_broken_plugins_warn_and_the_others_keep_working(broken_site: Path, run_py: Any) -> None:
    code = """
        import warnings
        import tensorcore as tc

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            info = {p.name: p for p in tc.backends.list()}
        messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]

        def warned(*words):
            return any(all(w in m for w in words) for m in messages)

        assert info["broken_import"].status == "failed"
        assert info["broken_import"].error == "ImportError: boom: libfoo is missing"
        assert warned(
            "'broken_import'", "tensorcore_broken.import_fail", "ImportError: boom: libfoo"
        )
        assert info["broken_hook"].status == "failed"
        assert "ValueError: kaboom in the kernel hook" in info["broken_hook"].error
        assert warned("'broken_hook'", "kaboom in the kernel hook")
        # Nothing of a failed plugin takes effect: its device hook ran, but no device exists.
        assert "halfdone" not in tc.backends.devices()
        assert info["dupcpu"].status == "failed"
        assert "plugin 'cpu'" in info["dupcpu"].error and "plugin 'dupcpu'" in info["dupcpu"].error
        assert warned("'dupcpu'", "add[cpu, strided]")
        assert tc.explain("add", tc.ones(1), tc.ones(1)).endswith("from plugin 'cpu'")
        # An entry point named after a built-in plugin is refused, loudly.
        assert info["views"].module == "tensorcore.ops.views"
        assert warned(
            "'views'", "tensorcore_broken.dup_cpu", "already taken by tensorcore.ops.views"
        )
        assert info["cpu"].status == "loaded"
        assert (tc.ones(2) + 1).tolist() == [2.0, 2.0]
        print("OK")
        """
    proc = run_py(code, env={"PYTHONPATH": str(broken_site)})
    assert proc.stdout.strip() == "OK"


def test_broken_plugin_warning_reaches_the_user(broken_site: Path, run_py: Any) -> None:
    proc = run_py(
        "import tensorcore as tc; print((tc.ones(1) * 3).tolist())",
        env={"PYTHONPATH": str(broken_site)},
    )
    assert proc.stdout.strip() == "[3.0]"
    assert "RuntimeWarning" in proc.stderr
    assert (
        "backend plugin 'broken_import' (tensorcore_broken.import_fail) failed to load and is "
        "disabled" in proc.stderr
    )


def test_runtime_registration_with_a_failing_hook(run_py: Any) -> None:
    code = """
        import tensorcore as tc
        from tensorcore.plugins import hookimpl
        from toy_backend import ToyDevice

        class Bad:
            @hookimpl
            def tensorcore_register_devices(self, register):
                register.device(ToyDevice("badhook"))

            @hookimpl
            def tensorcore_register_kernels(self, register):
                raise ValueError("kaboom")

        try:
            tc.backends.register(Bad(), name="bad-hook")
        except RuntimeError as exc:
            expected = "backend plugin 'bad-hook' failed to register: ValueError: kaboom"
            assert str(exc) == expected, exc
        else:
            raise AssertionError("no error")
        info = {p.name: p for p in tc.backends.list()}["bad-hook"]
        assert info.status == "failed" and info.error == "ValueError: kaboom"
        assert "badhook" not in tc.backends.devices()
        assert (tc.ones(2) * 2).tolist() == [2.0, 2.0]
        print("OK")
        """
    assert run_py(code, env={"PYTHONPATH": str(TESTS_DIR)}).stdout.strip() == "OK"


# ---------------------------------------------------------------- (c) TENSORCORE_BACKENDS
def test_blocking_every_backend(run_py: Any) -> None:
    code = """
        import tensorcore as tc
        info = {p.name: p for p in tc.backends.list()}
        assert info["cpu"].status == "blocked", info["cpu"]
        assert info["cpu"].error == "not listed in TENSORCORE_BACKENDS"
        assert info["views"].status == info["composite"].status == "loaded"
        assert "cpu" not in tc.backends.devices()
        assert tc.promote_types(tc.int8, tc.uint8) is tc.int16
        for make in (lambda: tc.tensor([1.0]), lambda: tc.zeros(2), lambda: tc.arange(3)):
            try:
                make()
            except RuntimeError as exc:
                hint = "install the backend package 'tensorcore-cpu' (pip install tensorcore-cpu)"
                assert hint in str(exc), exc
            else:
                raise AssertionError("a tensor was made without a backend")
        msg = tc.explain("add", device="cpu")
        assert "no kernel" in msg and "tensorcore-cpu" in msg, msg
        print("OK")
        """
    assert run_py(code, env={"TENSORCORE_BACKENDS": "none-such"}).stdout.strip() == "OK"


# ---------------------------------------------------------------- (d) duplicate registrations
def test_duplicate_registrations(run_py: Any) -> None:
    code = """
        import tensorcore as tc
        from tensorcore.dispatch import get_op
        from tensorcore.plugins import hookimpl
        from toy_backend import ToyDevice

        def kernels(*triples, override=False):
            class P:
                @hookimpl
                def tensorcore_register_kernels(self, register):
                    for op, dev in triples:
                        register.kernel(op, dev, "strided", lambda *a: None, override=override)
            return P()

        def fails(plugin, name, *words):
            try:
                tc.backends.register(plugin, name=name)
            except RuntimeError as exc:
                assert all(w in str(exc) for w in words), (str(exc), words)
            else:
                raise AssertionError(f"{name} registered")

        tc.backends.register(kernels(("add", "dupdev")), name="first")
        fails(kernels(("add", "dupdev")), "second",
              "kernel add[dupdev, strided] is registered by both plugin 'first' and",
              "plugin 'second'",
              "override=True")
        assert get_op("add").record(("dupdev", "strided")).plugin == "first"
        tc.backends.register(kernels(("add", "dupdev"), override=True), name="third")
        assert get_op("add").record(("dupdev", "strided")).plugin == "third"
        fails(kernels(("mul", "dupdev"), ("mul", "dupdev")), "twice",
              "plugin 'twice' registers the kernel mul[dupdev, strided] twice")

        class DupDevice:
            @hookimpl
            def tensorcore_register_devices(self, register):
                register.device(ToyDevice("cpu"))
        fails(DupDevice(), "cpu-again",
              "device type 'cpu' is registered by both plugin 'cpu' (tensorcore-cpu ",
              "and plugin 'cpu-again' (registered at runtime)")
        assert tc.tensor([1.0]).numpy().tolist() == [1.0]

        class Layout:
            @hookimpl
            def tensorcore_register_layouts(self, register):
                register.layout("duplayout")
        tc.backends.register(Layout(), name="layout-a")
        fails(Layout(), "layout-b",
              "layout 'duplayout' is registered by both plugin 'layout-a' (registered at "
              "runtime) and plugin 'layout-b' (registered at runtime)")

        try:
            tc.backends.register(kernels(("sub", "dupdev")), name="first")
        except ValueError as exc:
            assert "a backend plugin named 'first' is already registered" in str(exc)
        else:
            raise AssertionError("same name twice")
        try:
            tc.backends.register(kernels(("no_such_op", "dupdev")), name="unknown-op")
        except (ValueError, RuntimeError) as exc:
            assert "unknown operator 'no_such_op'" in str(exc)
        else:
            raise AssertionError("unknown op registered")
        print("OK")
        """
    assert run_py(code, env={"PYTHONPATH": str(TESTS_DIR)}).stdout.strip() == "OK"


# ---------------------------------------------------------------- (e) explain
def test_explain(device: str) -> None:
    x = tc.tensor([1.0, 2.0], device=device)
    plugin = get_op("add").record((device, "strided")).plugin  # type: ignore[union-attr]
    assert (
        tc.explain("add", x, x) == f"add[{device}, strided] -> kernel 'add' from plugin '{plugin}'"
    )
    if device == "cpu":
        assert plugin == "cpu"
    assert tc.explain("square", x) == (
        f"square[{device}, strided] -> kernel 'square' from plugin 'composite' "
        "(registered as [*, *])"
    )
    assert tc.explain("transpose", x, 0, 0) == (
        f"transpose[{device}, strided] -> kernel 'transpose' from plugin 'views' "
        "(registered as [*, strided])"
    )
    assert tc.explain("cat", [x, x]).startswith(f"cat[{device}, strided] -> kernel ")
    assert tc.explain("full", (2,), 1.0, device=device).startswith(
        f"full[{device}, strided] -> kernel "
    )
    tc.set_default_device(device)
    assert tc.explain("zeros", 2).startswith(
        f"zeros[{device}, strided] -> kernel 'zeros' from plugin 'composite'"
    )


def test_explain_without_a_kernel() -> None:
    text = tc.explain("add", device="nosuchdev")
    assert text.startswith("add[nosuchdev, strided] -> no kernel: Could not run 'add'")
    assert "install a backend package that provides 'nosuchdev'" in text


# ---------------------------------------------------------------- (f) every hook
def test_hook_register_devices(run_py: Any) -> None:
    code = """
        import tensorcore as tc
        from tensorcore.plugins import DeviceInterface, hookimpl
        from toy_backend import ToyPlugin

        class Unavailable(DeviceInterface):
            type = "ghost"
            unavailable_reason = "no ghost driver on this machine"

        class P:
            @hookimpl
            def tensorcore_register_devices(self, register):
                register.device(Unavailable())

        info = tc.backends.register(P(), name="ghost-plugin")
        assert info.devices == ["ghost"]
        assert tc.backends.devices()["ghost"] is False
        try:
            tc.tensor([1.0], device="ghost")
        except RuntimeError as exc:
            assert "device 'ghost' is not available: no ghost driver" in str(exc), exc
        else:
            raise AssertionError("made a tensor on an unavailable device")

        class NotADevice:
            @hookimpl
            def tensorcore_register_devices(self, register):
                register.device(object())
        try:
            tc.backends.register(NotADevice(), name="not-a-device")
        except RuntimeError as exc:
            assert "expects a DeviceInterface" in str(exc)
        else:
            raise AssertionError("registered a non-device")

        tc.backends.register(ToyPlugin("hooktoy"), name="hooktoy")
        assert tc.tensor([1, 2], device="hooktoy").tolist() == [1, 2]
        try:
            tc.tensor([1.0], device="hooktoy:1")
        except RuntimeError as exc:
            assert "does not exist" in str(exc)
        print("OK")
        """
    assert run_py(code, env={"PYTHONPATH": str(TESTS_DIR)}).stdout.strip() == "OK"


def test_hook_register_layouts(run_py: Any) -> None:
    code = """
        import tensorcore as tc
        from tensorcore._tensor import make_tensor
        from tensorcore.plugins import hookimpl

        calls = []

        def add_marked(out, a, b, alpha=1):
            calls.append((a.layout.name, b.layout.name))
            out.fill_(42.0)

        class P:
            @hookimpl
            def tensorcore_register_layouts(self, register):
                register.layout("marked", priority=5)

            @hookimpl
            def tensorcore_register_kernels(self, register):
                register.kernel("add", "cpu", "marked", add_marked)

        info = tc.backends.register(P(), name="marked-plugin")
        assert info.layouts == ["marked"]
        assert repr(tc.marked) == "tensorcore.marked" and tc.marked.priority == 5
        dense = tc.ones(2)
        odd = make_tensor(None, (2,), (1,), 0, tc.float32, tc.device("cpu"), lay=tc.marked)
        assert odd.layout is tc.marked
        # The highest-priority layout among the arguments picks the kernel.
        result = tc.add(dense, odd)
        assert calls == [("strided", "marked")] and result.tolist() == [42.0, 42.0]
        expected = "add[cpu, marked] -> kernel 'add_marked' from plugin 'marked-plugin'"
        assert tc.explain("add", dense, odd) == expected
        try:
            tc.exp(odd)
        except NotImplementedError as exc:
            assert "'marked' layout" in str(exc)
        else:
            raise AssertionError("exp ran on the marked layout")
        print("OK")
        """
    assert run_py(code).stdout.strip() == "OK"


def test_hook_register_kernels(run_py: Any) -> None:
    code = """
        import tensorcore as tc
        from tensorcore.plugins import hookimpl

        seen = {}

        class P:
            @hookimpl
            def tensorcore_register_kernels(self, register):
                seen["ops"] = register.ops()
                register.kernel("neg", "cpu", "strided", lambda out, a: out.fill_(7), override=True)
                register.kernel("exp", "cpu", "strided", lambda out, a: out.fill_(8),
                                dtypes=[tc.float64], override=True)

        info = tc.backends.register(P(), name="kernel-plugin")
        assert info.kernels == 2 and "add" in seen["ops"] and "neg" in seen["ops"]
        assert (-tc.ones(2)).tolist() == [7.0, 7.0]
        assert tc.exp(tc.ones(1, dtype=tc.float64)).tolist() == [8.0]
        try:
            tc.exp(tc.ones(1))
        except TypeError as exc:
            assert "does not support dtype float32" in str(exc) and "kernel-plugin" in str(exc), exc
        else:
            raise AssertionError("dtype restriction ignored")
        print("OK")
        """
    assert run_py(code).stdout.strip() == "OK"


def test_a_plugin_declares_a_structured_operator_with_its_meta_function(run_py: Any) -> None:
    # The declaration carries the meta function; the core's frontend allocates the output the
    # meta function describes and names the named results from the return type.
    code = """
        import tensorcore as tc
        from tensorcore.plugins import hookimpl

        def meta_halves(self, dim=0):
            n = self.shape[dim] // 2
            shape = tuple(n if i == dim else s for i, s in enumerate(self.shape))
            return (self, dim), ((shape, self.dtype), (shape, self.dtype))

        def halves(out, self, dim):
            first, second = out
            first.copy_(self.narrow(dim, 0, first.shape[dim]))
            second.copy_(self.narrow(dim, first.shape[dim], second.shape[dim]))

        class P:
            @hookimpl
            def tensorcore_register_kernels(self, register):
                register.op(
                    "zz_halves(Tensor self, int dim=0) -> (Tensor first, Tensor second)",
                    "nondifferentiable", "The two halves along dim.",
                    frontend="structured", meta_function=meta_halves,
                )
                register.kernel("zz_halves", "cpu", "strided", halves)

        tc.backends.register(P(), name="halves-plugin")
        r = tc.zz_halves(tc.arange(6.0))
        assert r.first.tolist() == [0.0, 1.0, 2.0] and r.second.tolist() == [3.0, 4.0, 5.0], r
        assert type(r).__name__ == "zz_halves" and type(r) is tc.return_types.zz_halves
        try:
            tc.backends.register(type("Q", (), {"tensorcore_register_kernels": hookimpl(
                lambda self, register: register.op(
                    "zz_bad(Tensor self) -> Tensor", "", "", frontend="structured"))})(),
                name="bad-plugin")
        except RuntimeError as exc:
            assert "zz_bad: a structured operator needs a meta_function" in str(exc), exc
        else:
            raise AssertionError("a structured operator without a meta function was accepted")
        print("OK")
        """
    assert run_py(code).stdout.strip() == "OK"


def test_dtype_restriction_covers_every_tensor_the_kernel_gets(run_py: Any) -> None:
    # docs/writing-a-backend.md: the check covers the outputs too, since a frontend hands the
    # kernel the caller's out= (or self, in place) in any dtype the result can be cast to, and
    # a factory kernel receives nothing but its out.
    code = """
        import warnings
        import tensorcore as tc
        from tensorcore.plugins import hookimpl

        calls = []

        def add(out, a, b, alpha=1):
            calls.append(out.dtype)
            out.fill_(5.0)

        def full(out, size, fill_value, dtype=None, device=None, requires_grad=False):
            calls.append(out.dtype)
            out.fill_(fill_value)

        class P:
            @hookimpl
            def tensorcore_register_kernels(self, register):
                f32 = [tc.float32]
                register.kernel("add", "cpu", "strided", add, dtypes=f32, override=True)
                register.kernel("full", "cpu", "strided", full, dtypes=f32, override=True)
                register.kernel("cat", "cpu", "strided", add, dtypes=f32, override=True)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the overrides warn
            tc.backends.register(P(), name="f32-only")
        x = tc.ones(2)
        assert (x + x).tolist() == [5.0, 5.0] and tc.full((1,), 3.0).tolist() == [3.0]
        calls.clear()
        refused = [
            lambda: tc.add(x, x, out=tc.empty(2, dtype=tc.float64)),
            lambda: tc.tensor([1.0, 2.0], dtype=tc.float64).add_(x),
            lambda: tc.full((2,), 1, dtype=tc.int64),
            lambda: tc.cat([tc.ones(1, dtype=tc.float64), tc.ones(1, dtype=tc.float64)]),
        ]
        for call in refused:
            try:
                call()
            except TypeError as exc:
                assert "kernel from plugin 'f32-only' does not support dtype" in str(exc), exc
                assert "(supported: float32)" in str(exc), exc
            else:
                raise AssertionError("a kernel got a dtype it does not support")
        assert calls == [], calls  # the kernels never saw those calls
        print("OK")
        """
    assert run_py(code).stdout.strip() == "OK"


def test_hook_register_comm_backends(run_py: Any) -> None:
    code = """
        import tensorcore as tc
        import tensorcore.distributed as dist
        from tensorcore._info import report
        from tensorcore.distributed import ProcessGroup, Work
        from tensorcore.plugins import hookimpl

        class Loopback(ProcessGroup):
            backend = "loop"
            def rank(self):
                return 0
            def size(self):
                return 1
            def allreduce(self, tensor, op):
                return Work(lambda: True, self.timeout, "all_reduce", [lambda: tensor.mul_(2)])

        made = []

        def factory(**kwargs):
            made.append(sorted(kwargs))
            assert kwargs["init_method"] is None, kwargs  # none given: the backend's rendezvous
            return Loopback(kwargs["timeout"])

        class P:
            @hookimpl
            def tensorcore_register_comm_backends(self, register):
                register.comm_backend("loop", factory)
                register.comm_backend("fabric", factory, devices=("cpu", "cuda"),
                                      unavailable_reason="no fabric here: pip install fabric")

        tc.backends.register(P(), name="comm-plugin")
        assert dist.is_backend_available("loop") and not dist.is_backend_available("fabric")
        text = report()
        assert "Communication backends" in text and "no fabric here" in text, text
        try:
            dist.init_process_group("fabric")
        except RuntimeError as exc:
            assert "no fabric here" in str(exc), exc
        else:
            raise AssertionError("an unavailable backend initialised")
        dist.init_process_group("loop")
        assert made == [["init_method", "rank", "timeout", "world_size"]], made
        assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, "loop")
        t = tc.ones(2, 3).t()  # non-contiguous: the group sees a contiguous copy
        dist.all_reduce(t)
        assert t.tolist() == [[2.0, 2.0]] * 3, t
        for call, what in [(lambda: dist.broadcast(t, 0), "broadcast"),
                           (lambda: dist.new_group([0]), "split")]:
            try:
                call()
            except RuntimeError as exc:  # PyTorch's RuntimeError, as a NotImplementedError
                assert isinstance(exc, NotImplementedError), exc
                assert str(exc) == f"Backend loop does not support {what}", exc
            else:
                raise AssertionError(f"{what} ran on a group without it")
        dist.destroy_process_group()
        assert not dist.is_initialized()

        class Clash:
            @hookimpl
            def tensorcore_register_comm_backends(self, register):
                register.comm_backend("loop", factory)
        try:
            tc.backends.register(Clash(), name="clash")
        except RuntimeError as exc:
            assert "'loop' is registered by both" in str(exc) and "comm-plugin" in str(exc), exc
        else:
            raise AssertionError("two plugins registered one communication backend")
        assert tc.plugins.manager.comm_backends()["loop"].plugin == "comm-plugin"
        print("OK")
    """
    assert run_py(code).stdout.strip() == "OK"


def test_mpi_without_mpi4py_is_listed_unavailable_with_what_to_install(run_py: Any) -> None:
    """Issue 14: ``python -m tensorcore`` lists the communication backends and why one is
    unavailable; ``init_process_group`` then raises with that reason."""
    code = """
        import sys
        sys.modules["mpi4py"] = None  # (as if it were not installed)
        import tensorcore.distributed as dist
        from tensorcore._info import report
        assert not dist.is_mpi_available() and not dist.is_backend_available("mpi")
        text = report()
        assert "mpi4py is not installed: pip install mpi4py mpich" in text, text
        try:
            dist.init_process_group("mpi")
        except RuntimeError as exc:
            assert "the 'mpi' backend is unavailable: mpi4py is not installed" in str(exc), exc
        else:
            raise AssertionError("init_process_group('mpi') without mpi4py")
        print("OK")
    """
    assert run_py(code).stdout.strip() == "OK"


def test_a_comm_backend_registers_its_default_timeout(run_py: Any) -> None:
    """``register.comm_backend(default_timeout=...)`` is a group's timeout when
    ``init_process_group`` gets none (PyTorch: 10 minutes for NCCL, 30 for the others); an
    explicit timeout wins, and ``new_group`` gets the backend's default too (PyTorch's), not
    its parent's."""
    code = """
        from datetime import timedelta
        import tensorcore as tc
        import tensorcore.distributed as dist
        from tensorcore.backend import ProcessGroup
        from tensorcore.plugins import hookimpl

        class One(ProcessGroup):
            def rank(self):
                return 0
            def size(self):
                return 1
            def split(self, ranks):
                return One(self.timeout)

        class P:
            @hookimpl
            def tensorcore_register_comm_backends(self, register):
                register.comm_backend("quick", lambda **kw: One(kw["timeout"]),
                                      default_timeout=timedelta(minutes=10))
                register.comm_backend("plain", lambda **kw: One(kw["timeout"]))

        tc.backends.register(P(), name="timeout-plugin")
        for name, minutes in (("quick", 10), ("plain", 30)):
            dist.init_process_group(name)
            assert dist.GroupMember.WORLD.timeout == timedelta(minutes=minutes), name
            assert dist.new_group([0]).timeout == timedelta(minutes=minutes), name
            dist.destroy_process_group()
        dist.init_process_group("quick", timeout=timedelta(seconds=5))
        assert dist.GroupMember.WORLD.timeout == timedelta(seconds=5)
        assert dist.new_group([0]).timeout == timedelta(minutes=10)
        assert dist.new_group([0], timeout=timedelta(seconds=3)).timeout.total_seconds() == 3
        dist.destroy_process_group()

        class Bad:
            @hookimpl
            def tensorcore_register_comm_backends(self, register):
                register.comm_backend("bad", lambda **kw: None, default_timeout=600)
        try:
            tc.backends.register(Bad(), name="bad-timeout")
        except RuntimeError as exc:  # (the plugin failed to register: its TypeError)
            assert "TypeError: register.comm_backend(): default_timeout must be a " in str(exc)
            assert "datetime.timedelta, got int" in str(exc), exc
        else:
            raise AssertionError("an int default_timeout accepted")
        print("OK")
    """
    assert run_py(code).stdout.strip() == "OK"


HOOK_TESTS = {
    "tensorcore_register_comm_backends": test_hook_register_comm_backends,
    "tensorcore_register_devices": test_hook_register_devices,
    "tensorcore_register_layouts": test_hook_register_layouts,
    "tensorcore_register_kernels": test_hook_register_kernels,
}


def test_every_hookspec_has_a_test() -> None:
    specs = {name for name in dir(hookspecs) if name.startswith("tensorcore_")}
    assert specs == set(HOOK_TESTS), "add a test_hook_* test for each new hook spec"


def test_env_rendezvous_fills_rank_and_world_size(run_py: Any) -> None:
    """A communication backend other than MPI is given RANK and WORLD_SIZE from the
    environment (PyTorch's env:// rendezvous), for init_method="env://" and for none."""
    code = """
        import os
        import tensorcore as tc
        import tensorcore.distributed as dist
        from tensorcore.distributed import ProcessGroup
        from tensorcore.plugins import hookimpl

        class One(ProcessGroup):
            backend = "envtest"
            def rank(self):
                return 0
            def size(self):
                return 1

        made = []

        def factory(**kwargs):
            made.append((kwargs["world_size"], kwargs["rank"], kwargs["init_method"]))
            return One(kwargs["timeout"])

        class P:
            @hookimpl
            def tensorcore_register_comm_backends(self, register):
                register.comm_backend("envtest", factory)

        tc.backends.register(P(), name="env-plugin")
        os.environ.pop("RANK", None); os.environ.pop("WORLD_SIZE", None)
        dist.init_process_group("envtest")
        dist.destroy_process_group()
        os.environ.update(RANK="3", WORLD_SIZE="8")
        dist.init_process_group("envtest", init_method="env://")
        dist.destroy_process_group()
        dist.init_process_group("envtest", rank=1)  # an argument wins over the environment
        dist.destroy_process_group()
        dist.init_process_group("envtest", init_method="tcp://10.0.0.1:23456")
        dist.destroy_process_group()
        os.environ["RANK"] = "zero"
        try:
            dist.init_process_group("envtest", init_method="env://")
        except ValueError as exc:
            assert "environment variable RANK must be an integer, got 'zero'" in str(exc), exc
        else:
            raise AssertionError("a malformed RANK was accepted")
        assert made == [
            (-1, -1, None),
            (8, 3, "env://"),
            (8, 1, None),
            (-1, -1, "tcp://10.0.0.1:23456"),
        ], made
        print("OK")
    """
    assert run_py(code).stdout.strip() == "OK"
