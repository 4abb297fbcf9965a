"""``python -m tensorcore.viz``: the stride picture and the autograd graph from a shell.

Examples::

    python -m tensorcore.viz strides --size 3 4 --stride 1 3 --offset 0 -o strides.html
    python -m tensorcore.viz strides --size 2 3 --stride 0 1          # text, to the terminal
    python -m tensorcore.viz graph --example inplace -o graph.svg

The output file's suffix picks the form: ``.html`` (the stride page is interactive), ``.svg``,
``.dot`` (graphs), anything else plain text. Without ``-o`` the text form is printed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ._examples import EXAMPLES, example
from ._graph import ENGINES, graph
from ._strides import strides


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tensorcore.viz",
        description="Pictures of tensor strides and autograd graphs.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser(
        "strides",
        help="a view given by sizes, strides and an offset over a storage",
        description="Draw a view: which storage element each logical element reads.",
    )
    s.add_argument("--size", type=int, nargs="*", required=True, help="sizes (none: 0-d)")
    s.add_argument("--stride", type=int, nargs="*", help="strides (default: row-major)")
    s.add_argument("--offset", type=int, default=0, help="storage offset (default 0)")
    s.add_argument(
        "--storage-size", type=int, help="elements in the storage (default: what the view needs)"
    )
    s.add_argument("--name", default="t", help="the view's name in the picture")
    s.add_argument("-o", "--output", help="write .html (interactive), .svg or text here")
    g = sub.add_parser(
        "graph",
        help="the autograd graph of an example",
        description="Draw the autograd graph of an example computation.",
    )
    g.add_argument(
        "--example",
        choices=list(EXAMPLES),
        default="mlp",
        help="; ".join(f"{k}: {v[0]}" for k, v in EXAMPLES.items()),
    )
    g.add_argument("--engine", choices=ENGINES, default="auto", help="layout (default: auto)")
    g.add_argument("-o", "--output", help="write .svg, .html, .dot or text here")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "strides":
            picture: object = strides(
                size=args.size,
                stride=args.stride,
                offset=args.offset,
                storage_size=args.storage_size,
                names=[args.name],
            )
        else:
            out, params = example(args.example)
            picture = graph(out, params, engine=args.engine)
    except (ValueError, RuntimeError) as exc:
        parser.error(str(exc))
    if args.output is None:
        print(picture)
        return 0
    path = picture.save(args.output)  # type: ignore[attr-defined]
    engine = getattr(picture, "engine", None)
    print(f"wrote {path}" + (f" (layout: {engine})" if engine else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
