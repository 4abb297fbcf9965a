"""The in-tree backends build on the public contract only (issue 11): every import in
``backends/*/tensorcore_*`` is read from the source (function-local and ``TYPE_CHECKING``
imports included) and none may reach

- a private module or name of the core (a path component or an imported name starting with
  ``_``, as ``tensorcore._tensor`` or ``from tensorcore.backend import _x``);
- the core's internals: ``tensorcore.ops`` and its submodules, ``tensorcore.dispatch``,
  ``tensorcore.plugins.manager``, ``tensorcore.autograd.step`` (their public faces are
  ``tensorcore.backend`` and ``tensorcore.plugins``);
- another in-tree backend's package (``tensorcore_cpu``, ``tensorcore_cuda``, ...): backends
  share code through a public library, never through each other;
- a private module or name of a shared library (``tensorcore_xp``);
- a name of a public core module that is not in that module's ``__all__`` (nor a submodule).

A package's relative imports of its own modules are its own business and are not checked.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Libraries that backends may share (their public names only); not backends themselves.
LIBRARIES = frozenset({"tensorcore_xp"})
#: Core modules that are internal although their names are not private.
INTERNAL = (
    "tensorcore.ops",
    "tensorcore.dispatch",
    "tensorcore.plugins.manager",
    "tensorcore.autograd.step",
)
#: The in-tree backends' packages: those named in issue 11 and whatever ``backends/`` holds.
PACKAGES = sorted(p for p in ROOT.glob("backends/*/tensorcore_*") if (p / "__init__.py").is_file())
BACKENDS = (
    frozenset({"tensorcore_cpu", "tensorcore_cuda", "tensorcore_sparse", "tensorcore_meta"})
    | {p.name for p in PACKAGES}
) - LIBRARIES


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _private(module: str) -> bool:
    return any(part.startswith("_") for part in module.split("."))


def _check_module(module: str, names: list[str], own: str) -> list[str]:
    """What is wrong with importing ``names`` from ``module`` (``names`` empty for a plain
    ``import module``) in package ``own``."""
    top = module.split(".")[0]
    if top in BACKENDS and top != own:
        return [f"another backend's package (share code through a library): {module}"]
    if top != "tensorcore" and (top not in LIBRARIES or top == own):
        return []
    # ``from a import b`` may import the submodule ``a.b``: each name is checked as a path,
    # once ``a`` itself has passed (one problem per bad module, not one per name).
    for path in [module] if not names else [module, *(f"{module}.{n}" for n in names)]:
        if _private(path):
            what = "the core" if top == "tensorcore" else top
            bad = [path] if path == module else [f"{module}.{n}" for n in names if n[0] == "_"]
            return [f"private name of {what}: {b}" for b in bad]
        if top == "tensorcore" and any(_within(path, p) for p in INTERNAL):
            return [f"internal module of the core: {path}"]
    if top == "tensorcore":
        return [f"not in {module}.__all__: {n}" for n in names if not _exported(module, n)]
    return []


def _exported(module: str, name: str) -> bool:
    """Whether ``name`` is public in the core's ``module``: in its ``__all__`` (where it has
    one), or a submodule. A name that a module merely imports for itself (as
    ``tensorcore.distributed`` once held its backends' helpers) is not part of the contract."""
    if name == "*":
        return False
    mod = importlib.import_module(module)
    public = getattr(mod, "__all__", None)
    if public is None or name in public:
        return True
    if not hasattr(mod, "__path__"):  # a module, not a package: no submodules
        return False
    return importlib.util.find_spec(f"{module}.{name}") is not None


def check_source(source: str, own: str, filename: str = "<snippet>") -> list[str]:
    """``file:line: problem`` for every import in ``source`` (a module of package ``own``)
    that leaves the public contract."""
    problems: list[str] = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            found = [p for a in node.names for p in _check_module(a.name, [], own)]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: the package's own modules
                continue
            assert node.module is not None
            found = _check_module(node.module, [a.name for a in node.names], own)
        else:
            continue
        problems.extend(f"{filename}:{node.lineno}: {p}" for p in found)
    return problems


def check_package(package: Path) -> list[str]:
    """The problems of every module of an in-tree package, in file and line order."""
    problems: list[str] = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        problems.extend(check_source(path.read_text(encoding="utf-8"), package.name, rel))
    return problems


# ------------------------------------------------------------------ the checker itself
PRIVATE = "private name of the core: "
INSIDE = "internal module of the core: "
OTHER = "another backend's package (share code through a library): "
XP = "private name of tensorcore_xp: "


@pytest.mark.parametrize(
    ("snippet", "wanted"),
    [
        ("from tensorcore._tensor import make_tensor", PRIVATE + "tensorcore._tensor"),
        ("from tensorcore import _registry", PRIVATE + "tensorcore._registry"),
        ("from tensorcore.backend import _new", PRIVATE + "tensorcore.backend._new"),
        ("import tensorcore._storage as s", PRIVATE + "tensorcore._storage"),
        ("from tensorcore.ops.frontends import empty", INSIDE + "tensorcore.ops.frontends"),
        ("from tensorcore import ops", INSIDE + "tensorcore.ops"),
        ("from tensorcore.plugins import manager", INSIDE + "tensorcore.plugins.manager"),
        ("from tensorcore.dispatch import get_op", INSIDE + "tensorcore.dispatch"),
        ("from tensorcore.autograd.step import Ctx", INSIDE + "tensorcore.autograd.step"),
        ("from tensorcore_cpu.device import wrap", OTHER + "tensorcore_cpu.device"),
        ("import tensorcore_sparse", OTHER + "tensorcore_sparse"),
        ("from tensorcore_meta import plugin", OTHER + "tensorcore_meta"),
        ("from tensorcore_xp._util import x", XP + "tensorcore_xp._util"),
        ("from tensorcore_xp import _special", XP + "tensorcore_xp._special"),
        # A public module's name that is not in its __all__: backend helpers that once lived
        # in tensorcore.distributed are the SPI's (tensorcore.backend) now.
        ("from tensorcore.distributed import spin", "not in tensorcore.distributed.__all__: spin"),
        # Function-local and TYPE_CHECKING imports count as much as module-level ones.
        ("def f():\n    from tensorcore._tensor import torch_name", PRIVATE + "tensorcore._tensor"),
        (
            "if TYPE_CHECKING:\n    from tensorcore._storage import T",
            PRIVATE + "tensorcore._storage",
        ),
    ],
)
def test_the_checker_names_each_kind_of_violation(snippet: str, wanted: str) -> None:
    found = check_source(snippet, "tensorcore_cuda", "pkg/mod.py")
    assert len(found) == 1, found
    line = snippet.count("\n") + 1
    assert found[0].startswith(f"pkg/mod.py:{line}: "), found
    assert found[0].endswith(wanted), found


@pytest.mark.parametrize(
    "snippet",
    [
        "import tensorcore as tc",
        "from tensorcore import backend, Tensor, dtypes",
        "from tensorcore.backend import make_tensor, native",
        "from tensorcore.backend import ProcessGroup, Work, spin, timed_out",
        "from tensorcore.distributed import rendezvous",
        "from tensorcore.plugins import DeviceInterface, hookimpl",
        "from tensorcore.random import default_generator_of",
        "from tensorcore_xp import build, register_kernels",
        "from tensorcore_xp.dtypes import to_native",
        "from . import _dlpack\nfrom ._cache import cache",  # the package's own modules
        "from tensorcore_cuda._probe import probe",  # absolute, but its own package
        "import numpy as np\nfrom numpy._core import _ufunc_config",  # not tensorcore's
    ],
)
def test_the_checker_lets_the_public_contract_through(snippet: str) -> None:
    assert check_source(snippet, "tensorcore_cuda") == []


def test_the_walk_covers_every_backend_package() -> None:
    names = {p.name for p in PACKAGES}
    assert {"tensorcore_cpu", "tensorcore_cuda", "tensorcore_sparse"} <= names, names


# ------------------------------------------------------------------ the backends
@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_a_backend_imports_only_the_public_contract(package: Path) -> None:
    problems = check_package(package)
    assert not problems, "imports outside the public contract:\n" + "\n".join(problems)
