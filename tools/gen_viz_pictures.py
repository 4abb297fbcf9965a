"""Generate the pictures of ``docs/concepts.md`` with ``tensorcore.viz``.

Usage::

    python3 tools/gen_viz_pictures.py           # rewrite docs/pictures/*.svg and the text
                                                # blocks of docs/concepts.md
    python3 tools/gen_viz_pictures.py --check   # exit 1 if any of them is out of date

The stride pictures read only metadata, and the graphs are laid out by the built-in layout
(never Graphviz, which may or may not be installed), so the files are the same on every
machine; ``tests/test_viz.py`` fails when they are out of date. A text block in the page is a
fenced block after a ``<!-- viz: NAME -->`` line, NAME one of :data:`TEXT`.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PICTURES = ROOT / "docs" / "pictures"
CONCEPTS = ROOT / "docs" / "concepts.md"


def _x() -> Any:
    import tensorcore as tc

    return tc.arange(12.0).reshape(3, 4)


def _slice() -> Any:
    import tensorcore as tc

    x = _x()
    return tc.viz.strides({"x[1:, ::2]": x[1:, ::2]})


def _views() -> Any:
    import tensorcore as tc

    x = _x()
    return tc.viz.strides({"x": x, "x.t()": x.t(), "x[1:, ::2]": x[1:, ::2]})


def _expand() -> Any:
    import tensorcore as tc

    b = tc.arange(3.0)
    return tc.viz.strides({"b": b, "b.expand(2, 3)": b.expand(2, 3)})


def _complex() -> Any:
    import tensorcore as tc

    z = tc.tensor([1 + 2j, 3 + 4j, 5 + 6j])
    return tc.viz.strides({"z": z, "z.real": z.real, "z.imag": z.imag})


def _graph(name: str) -> Callable[[], Any]:
    def make() -> Any:
        import tensorcore as tc
        from tensorcore.viz._examples import example

        out, params = example(name)
        return tc.viz.graph(out, params, engine="builtin")

    return make


#: file name -> the picture drawn into it.
SVG: dict[str, Callable[[], Any]] = {
    "strides-slice.svg": _slice,
    "strides-views.svg": _views,
    "strides-expand.svg": _expand,
    "strides-complex.svg": _complex,
    "graph-mlp.svg": _graph("mlp"),
    "graph-hooks.svg": _graph("hooks"),
    "graph-inplace.svg": _graph("inplace"),
}

#: text block name in docs/concepts.md -> the picture printed into it.
TEXT: dict[str, Callable[[], Any]] = {
    "strides-views": _views,
    "graph-inplace": _graph("inplace"),
}


def _concepts(text: str) -> str:
    """``text`` with each ``<!-- viz: NAME -->`` block's lines replaced by the picture: the
    fenced block after the marker, up to the first line that is only a closing fence."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        m = re.fullmatch(r"<!-- viz: (\S+) -->", line)
        if not m:
            continue
        name = m.group(1)
        if name not in TEXT:
            raise SystemExit(f"docs/concepts.md: no text picture named {name!r}")
        if i >= len(lines) or lines[i] != "```text" or "```" not in lines[i + 1 :]:
            raise SystemExit(f"docs/concepts.md: {line} is not followed by a ```text block")
        end = lines.index("```", i + 1)
        out += ["```text", *str(TEXT[name]()).split("\n"), "```"]
        i = end + 1
    return "\n".join(out)


def render() -> dict[Path, str]:
    """Every generated file's path and content."""
    out = {PICTURES / name: make().svg() for name, make in SVG.items()}
    out[CONCEPTS] = _concepts(CONCEPTS.read_text(encoding="utf-8"))
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the pictures, or with ``--check`` report whether they are up to date."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a file is out of date")
    args = parser.parse_args(argv)
    stale = []
    for path, text in render().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(path.relative_to(ROOT))
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if args.check:
        for p in stale:
            print(f"{p} is out of date: run python3 tools/gen_viz_pictures.py")
        return 1 if stale else 0
    for p in stale:
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
