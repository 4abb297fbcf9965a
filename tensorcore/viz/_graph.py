"""The autograd graph behind a result, as a picture.

The graph is read through what every node shows (``docs/concepts.md``, "Autograd"): its
``name()``, ``next_functions``, ``saved`` values, ``pre_hooks`` and ``hooks``; a leaf's
:class:`~tensorcore.autograd.graph.AccumulateGrad` node gives the leaf itself. Each saved
tensor's version is compared with its storage's current version: a tensor modified in place
since it was saved is drawn as stale (the backward pass would raise).

Drawn with Graphviz's ``dot`` where the ``graphviz`` package and the ``dot`` program are both
installed, else with the library's own layered layout (:mod:`tensorcore.viz._layout`); the
picture says which.
"""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..autograd.graph import NODE_PRE_HOOKS, AccumulateGrad, RetainGrad, SavedTensor, TensorSpec
from ._layout import layered
from ._svg import element, esc, html_page, svg_document, text_width

__all__ = ["GraphEdge", "GraphNode", "GraphPicture", "graph", "why_no_graphviz"]

ENGINES = ("auto", "graphviz", "builtin")

_FILL = {"output": "#d9f2d0", "function": "#f4f4f4", "leaf": "#dbe8f6"}
_STALE_FILL = "#f8d0d0"
_TITLE, _LINE = 12, 10  # font sizes


@dataclass
class GraphNode:
    """A box of the picture: an output tensor, a node of the graph or a leaf.

    ``kind`` is ``"output"``, ``"function"`` (a ``grad_fn``, named as it names itself) or
    ``"leaf"`` (an ``AccumulateGrad``); ``flags`` are among ``"stale"`` (a saved tensor was
    modified in place), ``"hooks"``, ``"retains-grad"`` and ``"freed"`` (backward ran).
    """

    id: str
    kind: str
    title: str
    lines: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class GraphEdge:
    """A gradient path: the gradient of ``src``'s output ``output_nr`` flows from ``dst``
    (drawn as the forward data flow, ``src`` -> ``dst``)."""

    src: str
    dst: str
    output_nr: int = 0
    label: str = ""


def why_no_graphviz() -> str | None:
    """Why Graphviz cannot draw here, or None when it can (the ``graphviz`` package and its
    ``dot`` program are both installed)."""
    try:
        import graphviz  # noqa: F401
    except ImportError:
        return "the graphviz Python package is not installed (pip install graphviz)"
    if shutil.which("dot") is None:
        return "Graphviz's dot program is not on PATH (apt-get install graphviz)"
    return None


def _tup(shape: Sequence[int]) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _fn_name(fn: Any) -> str:
    return str(getattr(fn, "__name__", None) or type(fn).__name__)


def _short(value: Any, limit: int = 28) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _saved_tensor(key: str, s: SavedTensor) -> tuple[str, bool]:
    """``key``'s line and whether the tensor changed since it was saved."""
    data = s.data
    if data is None:
        return f"{key}: freed", False
    if isinstance(data, tuple):
        # A saved output is kept as its fields (SavedTensor.__init__): storage, shape,
        # strides, offset, dtype, device, native record, layout, base, version counter.
        storage, shape, dtype, native, vc = data[0], data[1], data[4], data[6], data[9]
        counter = vc if vc is not None else storage if storage is not None else native
        now = getattr(counter, "version", 0)
    else:
        shape, dtype, now = data.shape, data.dtype, data._version
    line = f"{key}: {dtype.name} {_tup(shape)} v{s.version}"
    if now != s.version:
        return f"{line}, now v{now}: STALE", True
    return line, False


def _saved_lines(node: Any) -> tuple[list[str], bool]:
    lines: list[str] = []
    stale = False
    for key, value in node.saved.items():
        items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
        if isinstance(value, list) and not any(
            isinstance(v, (SavedTensor, TensorSpec)) for v in value
        ):
            items = [(None, value)]
        for i, v in items:
            name = key if i is None else f"{key}[{i}]"
            if v is None:
                continue
            if isinstance(v, SavedTensor):
                line, bad = _saved_tensor(name, v)
                stale |= bad
                lines.append(line)
            elif isinstance(v, TensorSpec):
                # Shape-only saves (``self:spec``): no values kept, so no version to check.
                lines.append(f"{name}: {v._dtype.name} {_tup(v._shape)} (shape only)")
            else:
                lines.append(f"{name} = {_short(v)}")
    return lines, stale


def _hook_lines(node: Any) -> tuple[list[str], list[str]]:
    lines: list[str] = []
    flags: list[str] = []
    for nr, hooks in sorted((node.pre_hooks or {}).items()):
        at = f" (output {nr})" if node.n_outputs > 1 else ""
        for h in hooks:
            if nr == NODE_PRE_HOOKS:
                lines.append(f"pre-hook {_fn_name(h)}")
                flags.append("hooks")
            elif isinstance(h, RetainGrad):
                lines.append(f"retain_grad{at}")
                flags.append("retains-grad")
            else:
                lines.append(f"hook {_fn_name(h)}{at}")
                flags.append("hooks")
    for h in node.hooks:
        lines.append(f"post-hook {_fn_name(h)}")
        flags.append("hooks")
    return lines, flags


def _tensor_lines(t: Any) -> list[str]:
    return [f"{t.dtype.name} {_tup(t.shape)}, version {t._version}"]


class GraphPicture:
    """The autograd graph behind one or more tensors: :attr:`nodes` and :attr:`edges`.

    Made by :func:`graph`. ``str(p)`` is an indented tree, ``p.svg()`` the picture (what
    Jupyter shows), ``p.dot()`` its Graphviz source, ``p.save(path)`` writes one of them by
    the file's suffix; :attr:`engine` says what lays the picture out.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.ones(2, requires_grad=True)
    >>> p = tc.viz.graph((x * x).sum(), params={"x": x}, engine="builtin")
    >>> [n.title for n in p.nodes], p.engine
    (['output', 'SumBackward0', 'MulBackward0', 'AccumulateGrad'], 'builtin')
    """

    def __init__(self, nodes: list[GraphNode], edges: list[GraphEdge], engine: str) -> None:
        self.nodes = nodes
        self.edges = edges
        #: ``"graphviz"`` or ``"builtin"``: what lays out :meth:`svg`.
        self.engine = engine
        self._svg: str | None = None

    def node(self, id: str) -> GraphNode:
        """The node of that id."""
        for n in self.nodes:
            if n.id == id:
                return n
        raise KeyError(id)

    def __repr__(self) -> str:
        return (
            f"<GraphPicture of {len(self.nodes)} nodes and {len(self.edges)} edges, "
            f"engine={self.engine!r}>"
        )

    # ------------------------------------------------------------ text
    def text(self) -> str:
        """The indented tree (``str(p)``): each output, then the nodes its gradient flows
        through; a node reached twice is written once and referred to by its id after."""
        inputs: dict[str, list[GraphEdge]] = {}
        consumers: dict[str, int] = {}
        for e in self.edges:
            inputs.setdefault(e.dst, []).append(e)
            consumers[e.src] = consumers.get(e.src, 0) + 1
        shown: set[str] = set()
        out: list[str] = []

        def emit(nid: str, prefix: str, conn: str, more: str, label: str) -> None:
            n = self.node(nid)
            tag = f" [{n.id}]" if consumers.get(nid, 0) > 1 else ""
            if nid in shown:
                out.append(f"{prefix}{conn}{label}{n.title}{tag}: shown above")
                return
            shown.add(nid)
            flags = f"  ({', '.join(dict.fromkeys(n.flags))})" if n.flags else ""
            out.append(f"{prefix}{conn}{label}{n.title}{tag}{flags}")
            kids = inputs.get(nid, [])
            inner = prefix + more
            for line in n.lines:
                out.append(f"{inner}{'│ ' if kids else '  '}{line}")
            for i, e in enumerate(kids):
                last = i == len(kids) - 1
                lab = f"(output {e.output_nr}) " if e.label else ""
                emit(e.src, inner, "└─ " if last else "├─ ", "   " if last else "│  ", lab)

        for n in self.nodes:
            if n.kind == "output":
                emit(n.id, "", "", "", "")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.text()

    # ------------------------------------------------------------ Graphviz source
    def dot(self) -> str:
        """The graph in Graphviz's language (what :attr:`engine` ``"graphviz"`` draws)."""
        lines = [
            "digraph autograd {",
            '  graph [rankdir=TB, fontname="monospace", fontsize=9, labelloc=b, labeljust=r,'
            ' label="layout: graphviz (dot)"];',
            '  node [shape=box, style="rounded,filled", fontname="monospace", fontsize=10];',
            '  edge [arrowsize=0.7, fontname="monospace", fontsize=9];',
        ]
        for n in self.nodes:
            rows = [f"<b>{esc(n.title)}</b>"]
            for line in n.lines:
                colour = _LINE_COLOUR.get(_line_kind(line))
                rows.append(f'<font color="{colour}">{esc(line)}</font>' if colour else esc(line))
            label = "<" + '<br align="left"/>'.join(rows) + '<br align="left"/>>'
            stale = "stale" in n.flags
            attrs = {
                "id": n.id,
                "class": " ".join([n.kind, *dict.fromkeys(n.flags)]),
                "fillcolor": _STALE_FILL if stale else _FILL[n.kind],
                "color": "#c0392b" if stale else "#555555",
                "style": '"rounded,filled,dashed"' if "freed" in n.flags else None,
            }
            a = ", ".join(
                f"{k}={v}" if k == "style" else f'{k}="{v}"'
                for k, v in attrs.items()
                if v is not None
            )
            lines.append(f"  {n.id} [label={label}, {a}];")
        for e in self.edges:
            label = f', label="{e.label}"' if e.label else ""
            lines.append(f'  {e.src} -> {e.dst} [id="{e.src}-{e.dst}", class="edge"{label}];')
        lines.append("}")
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------ SVG
    def svg(self) -> str:
        """The picture as SVG, laid out by :attr:`engine`."""
        if self._svg is None:
            self._svg = _graphviz_svg(self) if self.engine == "graphviz" else _builtin_svg(self)
        return self._svg

    def _repr_html_(self) -> str:
        return f'<div style="overflow-x:auto">{self.svg()}</div>'

    def _repr_svg_(self) -> str:
        return self.svg()

    def save(self, path: str | Path) -> Path:
        """Write the picture: ``.svg`` the SVG, ``.html``/``.htm`` a page holding it,
        ``.dot``/``.gv`` the Graphviz source, any other suffix the text. Returns the path."""
        p = Path(path)
        suffix = p.suffix.lower()
        if suffix == ".svg":
            text = self.svg()
        elif suffix in (".html", ".htm"):
            text = html_page("tensorcore autograd graph", self.svg())
        elif suffix in (".dot", ".gv"):
            text = self.dot()
        else:
            text = self.text() + "\n"
        p.write_text(text, encoding="utf-8")
        return p


# ---------------------------------------------------------------- reading the graph
def _outputs(output: Any) -> list[tuple[str, Any]]:
    if isinstance(output, Mapping):
        return [(str(k), t) for k, t in output.items()]
    if isinstance(output, (list, tuple)):
        return [(f"output {i}", t) for i, t in enumerate(output)]
    return [("output", output)]


def graph(
    output: Any, params: Mapping[str, Any] | None = None, *, engine: str = "auto"
) -> GraphPicture:
    """Picture the autograd graph behind ``output``.

    Parameters
    ----------
    output : Tensor, sequence of tensors, or dict of name to tensor
        The results whose graph to draw (a shared subgraph is drawn once).
    params : dict of name to tensor, optional
        Names for the leaves, e.g. ``dict(model.named_parameters())``.
    engine : {"auto", "graphviz", "builtin"}
        ``"auto"`` uses Graphviz where it is installed, else the library's own layout.

    Returns
    -------
    GraphPicture
        Nodes named as their ``grad_fn`` names them, each with its saved values (tensors
        as dtype, shape and the version they were saved at, marked STALE when modified in
        place since), hooks and ``retain_grad``; leaves with their shape, ``requires_grad``
        and version.

    Raises
    ------
    RuntimeError
        ``engine="graphviz"`` where Graphviz is not installed (the message says why).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([1.0, 2.0], requires_grad=True)
    >>> y = x.exp()
    >>> loss = (y * 3).sum()
    >>> _ = y.add_(1)  # modifies what ExpBackward0 saved
    >>> print(tc.viz.graph(loss, params={"x": x}, engine="builtin"))
    output
    │ float32 (), version 0
    └─ SumBackward0
       │ self: float32 (2,) (shape only)
       │ dim = (0,)
       │ keepdim = False
       └─ MulBackward0
          │ other = 3
          └─ ExpBackward0  (stale)
             │ result: float32 (2,) v0, now v1: STALE
             └─ AccumulateGrad
                  x: float32 (2,), version 0
                  requires_grad=True
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "graphviz":
        why = why_no_graphviz()
        if why is not None:
            raise RuntimeError(f"engine='graphviz' cannot draw here: {why}")
    elif engine == "auto":
        engine = "graphviz" if why_no_graphviz() is None else "builtin"
    leaf_names = {id(t): name for name, t in (params or {}).items()}
    nodes: list[GraphNode] = []
    edges: list[GraphEdge] = []
    ids: dict[int, str] = {}
    queue: list[Any] = []

    def node_id(fn: Any) -> str:
        key = id(fn)
        if key not in ids:
            ids[key] = f"n{len(ids)}"
            queue.append(fn)
        return ids[key]

    for k, (name, t) in enumerate(_outputs(output)):
        if not hasattr(t, "grad_fn"):
            raise TypeError(f"graph() draws tensors, got {type(t).__name__}")
        tid = f"t{k}"
        lines = _tensor_lines(t)
        flags: list[str] = []
        if t.retains_grad:
            lines.append("retains_grad")
            flags.append("retains-grad")
        if t.grad_fn is not None:
            nr = t._ag.output_nr if t._ag is not None else 0
            edges.append(GraphEdge(node_id(t.grad_fn), tid, nr, _nr_label(t.grad_fn, nr)))
        elif t.requires_grad:
            lines.append("a leaf (requires_grad=True)")
        else:
            lines.append("requires_grad=False: no graph")
        nodes.append(GraphNode(tid, "output", name, lines, flags))
    # Breadth first, so that the ids follow the distance from the outputs.
    for fn in queue:
        nid = ids[id(fn)]
        if isinstance(fn, AccumulateGrad):
            nodes.append(_leaf(nid, fn, leaf_names))
            continue
        lines, stale = _saved_lines(fn)
        hook_lines, flags = _hook_lines(fn)
        if stale:
            flags.insert(0, "stale")
        if fn.released:
            lines.append("saved values freed by backward")
            flags.append("freed")
        nodes.append(GraphNode(nid, "function", fn.name(), lines + hook_lines, flags))
        for nxt, nr in fn.next_functions:
            if nxt is not None:
                edges.append(GraphEdge(node_id(nxt), nid, nr, _nr_label(nxt, nr)))
    return GraphPicture(nodes, edges, engine)


def _nr_label(fn: Any, nr: int) -> str:
    return f"output {nr}" if getattr(fn, "n_outputs", 1) > 1 else ""


def _leaf(nid: str, acc: AccumulateGrad, names: Mapping[int, str]) -> GraphNode:
    t = acc.variable
    if t is None:
        return GraphNode(nid, "leaf", "AccumulateGrad", ["(the leaf was freed)"])
    name = names.get(id(t))
    head = _tensor_lines(t)[0]
    lines = [f"{name}: {head}" if name else head, f"requires_grad={t.requires_grad}"]
    if t.grad is not None:
        lines.append(f"grad: {t.grad.dtype.name} {_tup(t.grad.shape)}")
    flags: list[str] = []
    # A leaf's own hooks live in its autograd metadata (Tensor.register_hook on a leaf).
    meta = t._ag
    for h in meta.hooks if meta is not None else ():
        lines.append(f"hook {_fn_name(h)}")
        flags.append("hooks")
    more, more_flags = _hook_lines(acc)
    return GraphNode(nid, "leaf", "AccumulateGrad", lines + more, flags + more_flags)


# ---------------------------------------------------------------- drawing
_STYLE = """\
text{dominant-baseline:central}
.title{font-size:12px;font-weight:bold}
.line{font-size:10px}
.box{stroke:#555;stroke-width:1}
.stale .box{stroke:#c0392b;stroke-width:2}
.freed .box{stroke-dasharray:4 3}
.hookline{fill:#7b3fa0}
.staleline{fill:#c0392b;font-weight:bold}
.edge path{fill:none;stroke:#555;stroke-width:1.2}
.edge text{font-size:9px;fill:#555}
.node:hover .box{stroke-width:2.5}
.engine{font-size:9px;fill:#888;text-anchor:end}
"""


def _line_kind(line: str) -> str:
    """A detail line's class: hooks and stale saved tensors stand out."""
    if "STALE" in line:
        return "staleline"
    if line.startswith(("hook ", "post-hook ", "retain_grad")):
        return "hookline"
    return ""


_LINE_COLOUR = {"staleline": "#c0392b", "hookline": "#7b3fa0"}


def _box_size(n: GraphNode) -> tuple[int, int]:
    w = max(text_width(n.title, _TITLE), *(text_width(s, _LINE) for s in n.lines), 40)
    return w + 16, 22 + 14 * len(n.lines) + (4 if n.lines else 0)


def _builtin_svg(p: GraphPicture) -> str:
    sizes = [_box_size(n) for n in p.nodes]
    index = {n.id: i for i, n in enumerate(p.nodes)}
    lay = layered(sizes, [(index[e.src], index[e.dst]) for e in p.edges])
    body = [
        "<defs>"
        + element(
            "marker",
            {
                "id": "arrow",
                "viewBox": "0 0 10 10",
                "refX": 10,
                "refY": 5,
                "markerWidth": 7,
                "markerHeight": 7,
                "orient": "auto",
            },
            element("path", {"d": "M0 0L10 5L0 10z", "fill": "#555"}),
        )
        + "</defs>"
    ]
    for e, pts in zip(p.edges, lay.routes, strict=True):
        d = f"M{pts[0][0]} {pts[0][1]}"
        for (x0, y0), (x1, y1) in itertools.pairwise(pts):
            m = (y0 + y1) // 2
            d += f"C{x0} {m} {x1} {m} {x1} {y1}" if x0 != x1 else f"L{x1} {y1}"
        inner = [
            element("title", {}, esc(f"{p.node(e.src).title} → {p.node(e.dst).title}")),
            element("path", {"d": d, "marker-end": "url(#arrow)"}),
        ]
        if e.label:
            x0, y0 = pts[0]
            inner.append(element("text", {"x": x0 + 4, "y": y0 + 8}, esc(e.label)))
        body.append(
            element(
                "g",
                {"class": "edge", "id": f"{e.src}-{e.dst}", "data-src": e.src, "data-dst": e.dst},
                "".join(inner),
            )
        )
    for n, (x, y), (w, h) in zip(p.nodes, lay.positions, sizes, strict=True):
        stale = "stale" in n.flags
        inner = [
            element("title", {}, esc("\n".join([n.title, *n.lines]))),
            element(
                "rect",
                {
                    "class": "box",
                    "x": x,
                    "y": y,
                    "width": w,
                    "height": h,
                    "rx": 6,
                    "fill": _STALE_FILL if stale else _FILL[n.kind],
                },
            ),
            element("text", {"class": "title", "x": x + 8, "y": y + 12}, esc(n.title)),
        ]
        inner += [
            element(
                "text",
                {"class": f"line {_line_kind(line)}".strip(), "x": x + 8, "y": y + 28 + 14 * i},
                esc(line),
            )
            for i, line in enumerate(n.lines)
        ]
        cls = " ".join(["node", n.kind, *dict.fromkeys(n.flags)])
        body.append(element("g", {"class": cls, "id": n.id, "data-name": n.title}, "".join(inner)))
    width, height = max(lay.width, 160), lay.height + 14
    body.append(
        element("text", {"class": "engine", "x": width - 8, "y": height - 10}, "layout: builtin")
    )
    return svg_document(
        width, height, _STYLE, body, **{"class": "tc-graph", "data-engine": "builtin"}
    )


def _graphviz_svg(p: GraphPicture) -> str:
    import graphviz

    out = graphviz.Source(p.dot()).pipe(format="svg", encoding="utf-8")
    # Inline-able: drop the XML prolog and doctype, and say on the root what laid it out.
    svg = out[out.index("<svg") :]
    return svg.replace("<svg", '<svg class="tc-graph" data-engine="graphviz"', 1)
