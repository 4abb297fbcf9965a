"""Meta-tests for the documentation: generated pages are current, every operator and hook is
documented, and the example backend in docs/writing-a-backend.md runs as printed."""

from __future__ import annotations

import ast
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tensorcore.plugins import DeviceInterface, Registrar, hookspecs

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
BACKEND_DOC = DOCS / "writing-a-backend.md"
GENERATOR = ROOT / "tools" / "gen_operators_doc.py"


def _core_table(expr: str) -> str:
    """Evaluate ``expr`` in a fresh interpreter where no plugin has loaded.

    Plugins may declare operators of their own (``register.op``); those join the runtime table
    of this test process once any test loads the plugins, but are not part of the core's table
    that docs/operators.md documents.
    """
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('gen', {str(GENERATOR)!r})\n"
        "gen = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(gen)\n"
        "from tensorcore.ops.schema import ALIASES, INPLACE_FUNCTIONS, OPS\n"
        f"sys.stdout.write({expr})\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=_env(ROOT)
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _hookspecs() -> list[str]:
    marker = f"{hookspecs.hookspec.project_name}_spec"
    return sorted(
        name
        for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
        if hasattr(fn, marker)
    )


def _blocks(text: str, kind: str) -> dict[str, str]:
    """Fenced blocks preceded by ``<!-- kind: name -->`` in a Markdown page, by name."""
    pattern = rf"<!-- {kind}: (\S+) -->\n```[a-z]*\n(.*?)```"
    return dict(re.findall(pattern, text, flags=re.DOTALL))


def _env(path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(path), env.get("PYTHONPATH")]))
    env.pop("TENSORCORE_BACKENDS", None)
    return env


def test_operators_doc_is_up_to_date() -> None:
    current = (DOCS / "operators.md").read_text(encoding="utf-8")
    assert current == _core_table("gen.render()"), (
        "docs/operators.md is out of date with the operator table: "
        "run `python3 tools/gen_operators_doc.py`"
    )


def test_operator_stubs_are_up_to_date() -> None:
    # The type checker sees the operators through stubs generated from the table.
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_stubs.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(ROOT),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_operator_namespace_holds_every_operator_function() -> None:
    import tensorcore as tc
    from tensorcore.ops import functions
    from tensorcore.ops._api import FUNCTIONS

    stub = (ROOT / "tensorcore" / "ops" / "functions.pyi").read_text(encoding="utf-8")
    stubbed = set(re.findall(r"^def (\w+)\(", stub, re.M))
    core = set(
        _core_table(
            "'\\n'.join([n for n, d in OPS.items() if d.function] + "
            "[n for n, a in ALIASES.items() if a.has('function')] + "
            "[n if n.endswith('_') else n + '_' for n in INPLACE_FUNCTIONS])"
        ).split()
    )
    assert stubbed == core
    for name in core:
        assert getattr(functions, name) is FUNCTIONS[name] is getattr(tc, name), name


def test_every_operator_has_an_operators_doc_entry() -> None:
    text = (DOCS / "operators.md").read_text(encoding="utf-8")
    names = _core_table("'\\n'.join(OPS)").split()
    assert "add" in names
    missing = [name for name in names if f"### `{name}`\n" not in text]
    assert not missing, f"operators missing from docs/operators.md: {missing}"


def test_there_are_hookspecs() -> None:
    assert len(_hookspecs()) >= 3


@pytest.mark.parametrize("name", _hookspecs())
def test_hookspec_has_a_docstring(name: str) -> None:
    doc = inspect.getdoc(getattr(hookspecs, name))
    assert doc and len(doc) > 40, (
        f"hook spec {name} in tensorcore/plugins/hookspecs.py needs a docstring"
    )


@pytest.mark.parametrize("name", _hookspecs())
def test_hookspec_is_in_the_backend_guide(name: str) -> None:
    assert name in BACKEND_DOC.read_text(encoding="utf-8"), (
        f"hook {name} is not mentioned in docs/writing-a-backend.md"
    )


_NO_DEFAULT = "<required>"


def _params(args: str) -> list[tuple[str, str, Any]] | None:
    """``(name, kind, default)`` of a parameter list as the guide writes it (``op, fn,
    dtypes=None, *, direct=False``); None when it is a call, not a parameter list."""
    try:
        fn = ast.parse(f"def f({args}): pass").body[0]
    except SyntaxError:
        return None
    assert isinstance(fn, ast.FunctionDef)
    a = fn.args
    pos_defaults = [_NO_DEFAULT] * (len(a.args) - len(a.defaults))
    pos_defaults += [ast.literal_eval(d) for d in a.defaults]
    out = [(p.arg, "positional", d) for p, d in zip(a.args, pos_defaults, strict=True)]
    out += [
        (p.arg, "keyword", _NO_DEFAULT if d is None else ast.literal_eval(d))
        for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)
    ]
    if a.kwarg is not None:
        out.append((a.kwarg.arg, "var-keyword", _NO_DEFAULT))
    return out


def _signature(fn: Any) -> list[tuple[str, str, Any]]:
    """The same for a method of the backend API (without ``self``)."""
    return [
        (
            p.name,
            "keyword"
            if p.kind is p.KEYWORD_ONLY
            else "var-keyword"
            if p.kind is p.VAR_KEYWORD
            else "positional",
            _NO_DEFAULT if p.default is p.empty else p.default,
        )
        for p in list(inspect.signature(fn).parameters.values())[1:]
    ]


#: Where the guide documents each class's methods: ``register.kernel(op, ...)`` code for the
#: Registrar, and the rows of the DeviceInterface table, `` | `empty(shape, ...)` | yes | ``.
_DOCUMENTED = {
    Registrar: re.compile(r"`register\.(\w+)\(([^`]*)\)`"),
    DeviceInterface: re.compile(r"^\| `(\w+)\(([^`]*)\)` \| (yes)? *\|", re.M),
}
_BACKEND_API = [
    (cls, name)
    for cls in _DOCUMENTED
    for name, _ in inspect.getmembers(cls, inspect.isfunction)
    if not name.startswith("_")
]


def _documented(cls: type, name: str, text: str) -> list[re.Match[str]]:
    return [m for m in _DOCUMENTED[cls].finditer(text) if m.group(1) == name]


@pytest.mark.parametrize(
    ("cls", "name"), _BACKEND_API, ids=[f"{c.__name__}.{n}" for c, n in _BACKEND_API]
)
def test_backend_api_is_in_the_backend_guide_with_its_signature(cls: type, name: str) -> None:
    """The guide gives every method of the backend API with its real parameters: names,
    order, keyword-only marker and defaults."""
    real = _signature(getattr(cls, name))
    written = [_params(m.group(2)) for m in _documented(cls, name, BACKEND_DOC.read_text())]
    assert written, f"{cls.__name__}.{name} is not described in docs/writing-a-backend.md"
    assert real in written, (
        f"docs/writing-a-backend.md gives {cls.__name__}.{name} the parameters {written}; "
        f"the code has {real}"
    )


class _Bare(DeviceInterface):
    """A device interface that overrides nothing: a required method raises."""


@pytest.mark.parametrize(
    "name", [n for c, n in _BACKEND_API if c is DeviceInterface], ids=lambda n: n
)
def test_backend_guide_says_which_device_methods_are_required(name: str) -> None:
    """Its table marks "yes" exactly the DeviceInterface methods without a default, which a
    backend must implement (the base class raises NotImplementedError)."""
    (row,) = _documented(DeviceInterface, name, BACKEND_DOC.read_text())
    method = getattr(_Bare(), name)
    args = [None] * len(_signature(getattr(DeviceInterface, name)))
    try:
        method(*args)
        required = False
    except NotImplementedError:
        required = True
    except Exception:  # noqa: BLE001 - a default implementation, choking on the None arguments
        required = False
    assert (row.group(3) == "yes") == required, (
        f"docs/writing-a-backend.md marks DeviceInterface.{name} as "
        f"{'required' if row.group(3) else 'optional'}; the base class "
        f"{'has no' if required else 'has a'} default"
    )


def _write_example(tmp_path: Path) -> dict[str, str]:
    files = _blocks(BACKEND_DOC.read_text(encoding="utf-8"), "file")
    assert {"pyproject.toml", "tensorcore_toy/plugin.py", "usage.py"} <= set(files)
    for name, body in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
    return files


def test_backend_guide_example_runs_as_printed(tmp_path: Path) -> None:
    _write_example(tmp_path)
    expected = _blocks(BACKEND_DOC.read_text(encoding="utf-8"), "output")["usage.py"]
    proc = subprocess.run(
        [sys.executable, "usage.py"],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected


def test_backend_guide_example_loads_through_its_entry_point(tmp_path: Path) -> None:
    tomllib = pytest.importorskip("tomllib")
    files = _write_example(tmp_path)
    project = tomllib.loads(files["pyproject.toml"])["project"]
    eps = project["entry-points"]["tensorcore.backends"]
    # What `pip install` would write: the distribution's metadata with its entry points.
    dist = tmp_path / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n",
        encoding="utf-8",
    )
    lines = "".join(f"{k} = {v}\n" for k, v in eps.items())
    (dist / "entry_points.txt").write_text(f"[tensorcore.backends]\n{lines}", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "tensorcore"],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^  toy +tensorcore-toy 0\.1\.0 +loaded +device toy", proc.stdout, re.M), (
        proc.stdout
    )
    assert re.search(r"^  toy +available +1 +toy", proc.stdout, re.M), proc.stdout


def _loose_blocks(text: str, lang: str) -> list[str]:
    """Fenced ``lang`` blocks that are not part of the example backend's files or outputs."""
    blocks = []
    for m in re.finditer(rf"(<!-- \w+: \S+ -->\n)?```{lang}\n(.*?)```", text, flags=re.DOTALL):
        if m.group(1) is None:
            blocks.append(m.group(2))
    return blocks


def test_every_code_block_of_the_backend_guide_runs(tmp_path: Path) -> None:
    """Beyond the example backend: each loose Python block runs (a ``>>>`` block as a doctest,
    with the example backend registered), each TOML block parses. The excerpt of the dask
    backend's ``write`` runs in tests/test_value_device.py."""
    tomllib = pytest.importorskip("tomllib")
    text = BACKEND_DOC.read_text(encoding="utf-8")
    _write_example(tmp_path)
    for block in _loose_blocks(text, "toml"):
        tomllib.loads(block)
    python = [b for b in _loose_blocks(text, "python") if "def write(self, t, value)" not in b]
    assert len(python) >= 4
    for i, block in enumerate(python):
        if block.lstrip().startswith(">>>"):
            script = (
                "import doctest, sys\n"
                "import tensorcore as tc\n"
                "from tensorcore_toy import plugin\n"
                "tc.backends.register(plugin, name='toy')\n"
                f"test = doctest.DocTestParser().get_doctest({block!r}, {{'tc': tc}}, 'b', '', 0)\n"
                "r = doctest.DocTestRunner(verbose=False)\n"
                "r.run(test)\n"
                "sys.exit(1 if r.failures else 0)\n"
            )
        else:
            script = block
        path = tmp_path / f"block_{i}.py"
        path.write_text(script, encoding="utf-8")
        proc = subprocess.run(
            [sys.executable, str(path)],
            cwd=tmp_path,
            env=_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, f"block {i}:\n{block}\n{proc.stdout}\n{proc.stderr}"


def test_backend_guide_lists_every_reserved_plugin_name() -> None:
    """The entry-point names a third party cannot use: the core's built-in plugins and those
    of tensorcore's own distributions (each ``backends/*/pyproject.toml``)."""
    import tomllib

    from tensorcore.plugins import manager

    text = " ".join(BACKEND_DOC.read_text(encoding="utf-8").split())
    start = text.index("so it must be unique:")
    sentence = text[start : text.index(".", start)]
    builtin = {m.rsplit(".", 1)[-1] for m in manager._INTERNAL}
    shipped = set()
    for pyproject in (ROOT / "backends").glob("*/pyproject.toml"):
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        shipped |= set(data["project"].get("entry-points", {}).get(manager.ENTRY_POINT_GROUP, {}))
    assert builtin and shipped
    missing = sorted(n for n in builtin | shipped if f"`{n}`" not in sentence)
    assert not missing, f"docs/writing-a-backend.md does not reserve {missing}: {sentence!r}"


def test_distributed_guide_example_backend_trains_ddp(tmp_path: Path) -> None:
    """The communication backend of docs/distributed.md ("A complete example: the kv
    backend"), a third-party engine written against ``tensorcore.backend`` and registered at
    runtime, runs a two-rank ``DistributedDataParallel`` training started by
    ``tc.multiprocessing.spawn`` to the parameters of one process, as printed."""
    import socket

    text = (DOCS / "distributed.md").read_text(encoding="utf-8")
    files = _blocks(text, "file")
    assert set(files) == {"kv_backend.py", "ddp_kv.py"}
    for name, body in files.items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.run(
        [sys.executable, "ddp_kv.py", str(port)],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "DDP over kv equals one process", proc.stdout


def test_distributed_guide_example_backend_meets_through_a_store(tmp_path: Path) -> None:
    """The kv backend of docs/distributed.md takes the store the frontend hands its factory
    (``store=``) when the ranks meet through ``init_method="file://..."`` or
    ``init_process_group(store=...)``, as the guide's factory contract says."""
    text = (DOCS / "distributed.md").read_text(encoding="utf-8")
    (tmp_path / "kv_backend.py").write_text(_blocks(text, "file")["kv_backend.py"], "utf-8")
    (tmp_path / "meet.py").write_text(
        "import sys\n"
        "import kv_backend\n"
        "import tensorcore as tc\n"
        "import tensorcore.distributed as dist\n"
        "tc.backends.register(kv_backend, name='kv')\n"
        "def worker(rank, how, path):\n"
        "    if how == 'file':\n"
        "        url = 'file://' + path\n"
        "        dist.init_process_group('kv', init_method=url, rank=rank, world_size=2)\n"
        "    else:\n"
        "        store = dist.FileStore(path, 2)\n"
        "        dist.init_process_group('kv', store=store, rank=rank, world_size=2)\n"
        "    t = tc.tensor([rank + 1.0])\n"
        "    dist.all_reduce(t)\n"
        "    assert t.item() == 3.0, t\n"
        "    dist.destroy_process_group()\n"
        "if __name__ == '__main__':\n"
        "    tc.multiprocessing.spawn(worker, args=(sys.argv[1], sys.argv[2]), nprocs=2)\n"
        "    print('met through', sys.argv[1])\n",
        "utf-8",
    )
    for how in ("file", "store"):
        proc = subprocess.run(
            [sys.executable, "meet.py", how, str(tmp_path / f"{how}.store")],
            cwd=tmp_path,
            env=_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert proc.stdout.strip() == f"met through {how}", proc.stdout
