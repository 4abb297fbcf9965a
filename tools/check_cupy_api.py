"""Check, without a GPU, that the shared kernels ask CuPy only for what CuPy has.

The kernels of ``backends/xp`` (and the CUDA backend's own) call the array module as ``xp``:
NumPy on the CPU, CuPy on CUDA. CI has no GPU, so a kernel that calls ``xp.something`` CuPy
lacks, or passes a keyword CuPy's function does not take, would fail only on the first GPU
run. CuPy imports without a GPU, so this reads every ``xp.<name>(...)`` call and every
``xp.<name>`` reference in those files and checks each against the installed CuPy: the name
exists, and each keyword is a parameter of its signature (ufunc methods take NumPy's ufunc
keywords).

Run it where CuPy is importable (no GPU needed)::

    python -m venv --system-site-packages /tmp/venv-cupy
    /tmp/venv-cupy/bin/pip install cupy-cuda12x
    /tmp/venv-cupy/bin/python tools/check_cupy_api.py

Uses that only NumPy reaches are listed in :data:`GUARDED` with the guard that keeps CuPy
away from them; anything else it finds is printed, and the exit status is 1.
"""

from __future__ import annotations

import ast
import inspect
import pathlib
import sys
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = [
    ROOT / "backends" / "xp" / "tensorcore_xp",
    ROOT / "backends" / "cuda" / "tensorcore_cuda",
]

#: (name, keyword or "" for the name itself): the guard that keeps CuPy from reaching it.
GUARDED: dict[tuple[str, str], str] = {
    ("errstate", ""): "helpers.quiet and the scalar cache look it up with getattr first",
    ("frompyfunc", ""): "pointwise._erf_ufunc's by_element runs only for NumPy without SciPy",
    ("take", "mode"): "indexing's gather_flat and take_into run only when xp is numpy",
}

#: What a ufunc's methods accept (CuPy's ufuncs take NumPy's keywords).
UFUNC_KEYWORDS = {"out", "dtype", "casting", "where", "axis", "keepdims", "initial"}


def uses() -> dict[tuple[str, str], set[str]]:
    """Every ``xp.<dotted name>`` the sources reference, and the keywords of each call:
    {(name, keyword or ""): {"file:line", ...}}."""
    found: dict[tuple[str, str], set[str]] = {}
    for root in SOURCES:
        for path in sorted(root.rglob("*.py")):
            where = str(path.relative_to(ROOT))
            for node in ast.walk(ast.parse(path.read_text())):
                attr = node.func if isinstance(node, ast.Call) else node
                if not isinstance(attr, ast.Attribute):
                    continue
                name = ast.unparse(attr)
                if not name.startswith("xp.") or not name.replace(".", "").isidentifier():
                    continue  # (a method of a call's result, xp.abs(a).sum, is not xp's)
                keywords = [kw.arg for kw in node.keywords] if isinstance(node, ast.Call) else [""]
                for kw in keywords:
                    if kw is not None:
                        found.setdefault((name[3:], kw), set()).add(f"{where}:{node.lineno}")
    return found


def problem(cupy: Any, name: str, keyword: str) -> str | None:
    """Why CuPy cannot serve ``xp.<name>`` (with ``keyword``), or None."""
    obj = cupy
    for part in name.split("."):
        if not hasattr(obj, part):
            # a prefix that is an array method or a local name is not CuPy's to have
            return f"cupy has no {name}"
        obj = getattr(obj, part)
    if not keyword:
        return None
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        owner = name.rpartition(".")[0]
        if owner and isinstance(getattr_path(cupy, owner), cupy.ufunc):
            return None if keyword in UFUNC_KEYWORDS else f"ufunc method {name}: no {keyword}="
        if isinstance(obj, cupy.ufunc):
            return None if keyword in UFUNC_KEYWORDS else f"ufunc {name}: no {keyword}="
        return None  # a compiled function without a signature: not checkable here
    if keyword in params or any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return None
    return f"cupy.{name} takes no {keyword}= (its signature: {inspect.signature(obj)})"


def getattr_path(obj: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
    return obj


def main() -> int:
    try:
        import cupy
    except ImportError as exc:
        print(f"CuPy is not importable ({exc}): pip install cupy-cuda12x (no GPU needed)")
        return 2
    bad = 0
    found = uses()
    for (name, keyword), where in sorted(found.items()):
        why = problem(cupy, name, keyword)
        if why is None:
            continue
        if (name, keyword) in GUARDED or (name, "") in GUARDED:
            continue
        bad += 1
        print(f"{why}\n    at {', '.join(sorted(where)[:4])}")
    stale = [k for k in GUARDED if k not in found or problem(cupy, *k) is None]
    for name, keyword in stale:
        print(f"GUARDED lists xp.{name} {keyword} which no longer needs it: remove the entry")
    print(f"{len(found)} uses of xp checked against CuPy {cupy.__version__}: {bad} problems")
    return 1 if bad or stale else 0


if __name__ == "__main__":
    sys.exit(main())
