"""The core's layers import one way (``docs/concepts.md``, "Layers").

Every module of ``tensorcore/`` belongs to one layer; a module may import (at the top of the
file or inside a function) only modules of its own layer or of layers below it. Imports under
``TYPE_CHECKING`` do not count (they never run). The one import cycle that must stay is listed
in :data:`ALLOWED_CYCLES` with its reason, and the docs name it too.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path
from typing import Any

import tensorcore as tc

PACKAGE = Path(tc.__file__).parent
CONCEPTS = PACKAGE.parent / "docs" / "concepts.md"

#: Lowest first. Modules not listed belong to the public API (the top layer).
LAYERS: list[tuple[str, list[str]]] = [
    (
        "tensor model",
        [
            "tensorcore.dtypes",
            "tensorcore.devices",
            "tensorcore.layouts",
            "tensorcore._storage",
            "tensorcore._storage_bytes",
            "tensorcore._tensor",
            "tensorcore._operator_methods",
            "tensorcore._format",
            "tensorcore._memory_format",
            "tensorcore._scalars",
            "tensorcore._registry",
            "tensorcore.return_types",
            "tensorcore.random",
            "tensorcore.autograd.grad_mode",
            "tensorcore.overrides",
        ],
    ),
    (
        "operator table",
        [
            "tensorcore.ops",
            "tensorcore.ops._signature",
            "tensorcore.ops._namespaces",
            "tensorcore.ops._validate",
            "tensorcore.ops.meta_functions",
            "tensorcore.ops.meta_products",
            "tensorcore.ops.meta_indexing",
            "tensorcore.ops.arg_checks",
            "tensorcore.ops.meta_nn",
            "tensorcore.ops.meta_conv",
            "tensorcore.ops.meta_ctc",
            "tensorcore.ops.meta_norm",
            "tensorcore.ops.meta_linalg",
            "tensorcore.ops.meta_fft",
            "tensorcore.ops.schema",
            "tensorcore.ops.schema._declare",
            "tensorcore.ops.schema.pointwise",
            "tensorcore.ops.schema.reductions",
            "tensorcore.ops.schema.nn",
            "tensorcore.ops.schema.linalg",
            "tensorcore.ops.schema.spectral",
            "tensorcore.ops.schema.shape",
            "tensorcore.ops.schema.composite_shape",
            "tensorcore.ops.schema.views",
            "tensorcore.ops.schema.copies",
            "tensorcore.ops.schema.composites",
            "tensorcore.ops.schema.composite_index",
            "tensorcore.ops.schema.composite_more",
            "tensorcore.ops.schema.aliases",
            "tensorcore.ops.functions",
        ],
    ),
    (
        "registry",
        [
            "tensorcore.dispatch",
            "tensorcore.plugins",
            "tensorcore.plugins.hookspecs",
            "tensorcore.plugins.registrar",
        ],
    ),
    (
        "frontends",
        [
            "tensorcore.ops.frontends",
            "tensorcore.ops._frontend_common",
            "tensorcore.ops.frontend_pointwise",
            "tensorcore.ops.frontend_reduction",
            "tensorcore.ops.frontend_structured",
            "tensorcore.ops._out",
            "tensorcore.ops._call",
            "tensorcore.ops._lanes",
            "tensorcore.ops._lane_parts",
            "tensorcore.ops._lanes_pointwise",
            "tensorcore.ops._lanes_structured",
            "tensorcore.ops._lanes_general",
            "tensorcore.ops._api",
            "tensorcore.ops._transfer",
            "tensorcore.ops.views",
            "tensorcore.ops._make_view",
            "tensorcore.ops.composite",
            "tensorcore.ops.composite_linalg",
            "tensorcore.ops.composite_linalg_general",
            "tensorcore.ops.composite_shape",
            "tensorcore.ops.composite_stats",
            "tensorcore.ops.composite_index",
            "tensorcore.ops.composite_complex",
            "tensorcore.ops.composite_random",
            "tensorcore.ops.composite_spectral",
            "tensorcore.ops.composite_more",
            "tensorcore.ops._padding",
            "tensorcore.ops.factories",
            "tensorcore._indexing",
        ],
    ),
    (
        "autograd",
        [
            "tensorcore.autograd",
            "tensorcore.autograd.graph",
            "tensorcore.autograd._record",
            "tensorcore.autograd._view_history",
            "tensorcore.autograd.step",
            "tensorcore.autograd._dual",
            "tensorcore.autograd.forward_ad",
            "tensorcore.autograd.engine",
            "tensorcore.autograd.function",
            "tensorcore.autograd._accumulate",
            "tensorcore.autograd.gradcheck",
            "tensorcore.autograd.functional",
            "tensorcore.autograd._rule_check",
            "tensorcore.autograd.anomaly_mode",
            "tensorcore.ops.derivatives",
            "tensorcore.ops.derivatives._table",
            "tensorcore.ops.derivatives.pointwise",
            "tensorcore.ops.derivatives.activations",
            "tensorcore.ops.derivatives.reductions",
            "tensorcore.ops.derivatives.losses",
            "tensorcore.ops.derivatives.ctc",
            "tensorcore.ops.derivatives.linalg",
            "tensorcore.ops.derivatives.decompositions",
            "tensorcore.ops.derivatives.spectral",
            "tensorcore.ops.derivatives.shape",
            "tensorcore.ops.derivatives.indexing",
            "tensorcore.ops.derivatives.nn",
            "tensorcore.ops.derivatives.normalization",
        ],
    ),
    ("public API", []),
]

#: (importer, imported): imports against the layering that must stay, with the reason.
ALLOWED_CYCLES = {
    ("tensorcore.plugins._commit", "tensorcore"): (
        "plugins add names to the public namespace (`tc.sparse_coo_tensor`, `tc.cuda`): the "
        "manager's commit checks them against the names the facade defines"
    ),
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The tensorcore modules ``name`` imports when it runs."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for n in ast.walk(node)
    }
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            for alias in node.names:
                sub = f"{mod}.{alias.name}"
                found.add(sub if sub in known else mod)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m in known and m != name}


def _layer(module: str) -> int:
    for i, (_, members) in enumerate(LAYERS):
        if module in members:
            return i
    return len(LAYERS) - 1


def _upward(known: dict[str, Path]) -> list[tuple[str, str]]:
    return sorted(
        (name, target)
        for name, path in known.items()
        for target in _imports(name, path, known)
        if _layer(target) > _layer(name) and (name, target) not in ALLOWED_CYCLES
    )


def test_every_listed_module_exists() -> None:
    known = _modules()
    listed = [m for _, members in LAYERS for m in members]
    assert sorted(set(listed) - set(known)) == []
    assert len(listed) == len(set(listed))


def test_layers_import_one_way() -> None:
    assert _upward(_modules()) == []


def test_an_upward_import_is_found(tmp_path: Path) -> None:
    # The failing case: the registry importing a frontend (and one inside a function).
    known = _modules()
    fake = tmp_path / "dispatch.py"
    fake.write_text(
        "from .ops import frontends\n"
        "def f():\n    from .autograd import step\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from . import _tensor_methods\n"
    )
    found = _imports("tensorcore.dispatch", fake, known)
    assert found == {"tensorcore.ops.frontends", "tensorcore.autograd.step"}
    assert all(_layer(t) > _layer("tensorcore.dispatch") for t in found)


def test_the_docs_name_the_layers_and_the_allowed_cycles() -> None:
    text = CONCEPTS.read_text(encoding="utf-8")
    section = re.search(r"^## Layers\n(.*?)(?=^## )", text, re.S | re.M)
    assert section, "docs/concepts.md has no '## Layers' section"
    body = section.group(1)
    for title, members in LAYERS:
        assert title in body, title
        for m in members:
            assert f"`{m.removeprefix('tensorcore.')}`" in body, m
    for importer, imported in ALLOWED_CYCLES:
        assert f"`{importer.removeprefix('tensorcore.')}` → `{imported}`" in body


def _traced(fn: Any) -> list[str]:
    """The modules whose functions ``fn`` calls, in order of first call."""
    seen: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            name = frame.f_globals.get("__name__", "")
            if name.startswith("tensorcore") and name not in seen:
                seen.append(name)

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return seen


def _named(block: str) -> list[str]:
    return [
        "tensorcore." + path.removesuffix(".py").replace("/", ".")
        for path in re.findall(r"([\w/]+\.py)", block)
    ]


def test_the_call_path_picture_names_the_modules_the_call_passes_through() -> None:
    text = CONCEPTS.read_text(encoding="utf-8")
    m = re.search(r"<!-- call-path -->\n```text\n(.*?)```", text, re.S)
    assert m, "docs/concepts.md has no call-path picture"
    lane, general, backward = m.group(1).split("\n\n")
    a = tc.ones(3, requires_grad=True)
    b = tc.ones(3)
    c = tc.ones(3, dtype=tc.float64)
    g = tc.ones(3)
    (a + b).backward(g)  # every cache warm: the picture shows the steady state
    (a + c).backward(g)
    holder: list[tc.Tensor] = []
    passed = _traced(lambda: holder.append(a + b))
    assert any(name.startswith("tensorcore_") for name in passed), passed  # the kernel
    assert "tensorcore.ops._call" not in passed, passed  # (the lane is the whole call)
    known = _modules()
    for half, traced in (
        (lane, passed),
        (general, _traced(lambda: a + c)),
        (backward, _traced(lambda: holder[0].backward(g))),
    ):
        named = _named(half)
        assert named, half
        for module in named:
            assert module in known or module == "tensorcore.ops._api", module
            if module != "tensorcore.ops._api":  # (compiles tc.add at import, not per call)
                assert module in traced, f"{module} is not on the path: {traced}"
