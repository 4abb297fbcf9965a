"""``tensorcore.viz``: the structure of the stride pictures and of the autograd graph pictures.

The SVG is parsed (``xml.etree``) and read back: every logical element must be in it once,
linked to the storage cell that the library's own indexing reads (a storage holding its
indices, so that ``t[idx].item()`` is the index: an oracle independent of the picture's
formula), and every node and edge of the graph must be drawn. The interactive page is tested in
a real browser by ``tests/test_viz_browser.py``.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

import tensorcore as tc
from tensorcore.viz import _graph, _layout
from tensorcore.viz.__main__ import main as cli

NS = "{http://www.w3.org/2000/svg}"
ROOT = Path(__file__).resolve().parent.parent


def _svg(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{NS}svg"
    return root


def _classes(el: ET.Element) -> set[str]:
    return set(el.get("class", "").split())


def _find(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{NS}{tag}") if cls in _classes(e)]


def _ints(text: str | None) -> tuple[int, ...]:
    return tuple(int(s) for s in (text or "").split())


# ---------------------------------------------------------------- stride pictures
def _storage_tensor(n: int) -> tc.Tensor:
    """A float64 storage whose element k holds k (exact as a float)."""
    return tc.arange(n, dtype=tc.float64)


def _cases() -> dict[str, Any]:
    x = _storage_tensor(12).reshape(3, 4)
    cube = _storage_tensor(24).reshape(2, 3, 4)
    return {
        "contiguous": {"x": x},
        "transposed": {"x.t()": x.t()},
        "sliced": {"x[1:, ::2]": x[1:, ::2]},
        "expanded": {"b.expand(2, 3)": _storage_tensor(3).expand(2, 3)},
        "overlapping": {"unfold": _storage_tensor(6).unfold(0, 3, 1)},
        "0-d": {"x[1, 2]": x[1, 2]},
        "empty": {"x[2:2]": x[2:2]},
        "3-d": {"cube": cube.permute(2, 0, 1)[1:]},
        "shared": {"x": x, "x.t()": x.t(), "x[1:, ::2]": x[1:, ::2]},
    }


def _read_svg(svg: str) -> tuple[dict[int, dict[tuple[int, ...], tuple[int, ...]]], Any]:
    """The picture's links (view -> logical index -> storage cells) and its storage cells."""
    root = _svg(svg)
    links: dict[int, dict[tuple[int, ...], tuple[int, ...]]] = {}
    for el in _find(root, "g", "el"):
        view = int(el.get("data-view", "-1"))
        idx = _ints(el.get("data-index"))
        assert idx not in links.setdefault(view, {}), f"{idx} drawn twice"
        links[view][idx] = _ints(el.get("data-storage"))
    cells = {int(c.get("data-index", "-1")): c for c in _find(root, "g", "scell")}
    return links, (root, cells)


@pytest.mark.parametrize("case", list(_cases()))
def test_each_element_is_linked_to_the_storage_cell_it_reads(case: str) -> None:
    views = _cases()[case]
    p = tc.viz.strides(views)
    links, (root, cells) = _read_svg(p.svg())
    storage = next(iter(views.values())).untyped_storage()
    n = storage.nbytes // storage.dtype.itemsize  # (size() counts bytes, as PyTorch's)
    assert sorted(cells) == list(range(n))
    assert root.get("data-storage-size") == str(n)
    readers: dict[int, int] = {c: 0 for c in cells}
    for k, t in enumerate(views.values()):
        expected = {
            idx: (int(t[idx].item()),) for idx in itertools.product(*(range(n) for n in t.shape))
        }
        assert links.get(k, {}) == expected, case
        for (cell,) in expected.values():
            readers[cell] += 1
    for c, g in cells.items():
        assert int(g.get("data-reads", "-1")) == readers[c]
        assert ("gap" in _classes(g)) == (readers[c] == 0)


def test_the_hover_target_and_the_line_end_on_the_storage_cell() -> None:
    x = _storage_tensor(12).reshape(3, 4)
    svg = tc.viz.strides({"x[1:, ::2]": x[1:, ::2]}).svg(links=True)
    root = _svg(svg)
    boxes = {
        int(g.get("data-index", "-1")): next(r for r in g.iter(f"{NS}rect") if "box" in _classes(r))
        for g in _find(root, "g", "scell")
    }
    els = _find(root, "g", "el")
    assert len(els) == 4
    for el in els:
        (cell,) = _ints(el.get("data-storage"))
        box = boxes[cell]
        target = next(r for r in el.iter(f"{NS}rect") if "target" in _classes(r))
        assert (target.get("x"), target.get("y")) == (box.get("x"), box.get("y"))
        path = next(el.iter(f"{NS}path"))
        end_x, end_y = map(int, re.findall(r"-?\d+", path.get("d", ""))[-2:])
        left = int(box.get("x", "0"))
        assert left <= end_x <= left + int(box.get("width", "0"))
        assert end_y == int(box.get("y", "0"))
    # Without links, no lines; the hover targets stay.
    plain = _svg(tc.viz.strides({"x": x}).svg(links=False))
    assert not list(plain.iter(f"{NS}path"))
    assert len([r for r in plain.iter(f"{NS}rect") if "target" in _classes(r)]) == 12


def test_views_of_one_storage_share_its_cells() -> None:
    x = _storage_tensor(12).reshape(3, 4)
    p = tc.viz.strides({"x": x, "x.t()": x.t(), "x[1:, ::2]": x[1:, ::2]})
    _, (root, cells) = _read_svg(p.svg())
    assert len(_find(root, "g", "storage")) == 1
    views = {int(v.get("data-view", "-1")): v for v in _find(root, "g", "view")}
    assert [views[k].get("data-name") for k in range(3)] == ["x", "x.t()", "x[1:, ::2]"]
    assert views[1].get("data-stride") == "1 4" and views[2].get("data-offset") == "4"
    assert cells[4].get("data-views") == "0 1 2" and cells[5].get("data-views") == "0 1"
    assert "shared" in _classes(cells[4])
    assert p.flags(0) == ["contiguous"]
    assert p.flags(1) == ["non-contiguous"]
    assert p.flags(2) == ["non-contiguous", "gaps"]
    assert p.gaps() == []


def test_repeated_reads_are_marked() -> None:
    e = _storage_tensor(3).expand(2, 3)
    p = tc.viz.strides(e)
    _, (_, cells) = _read_svg(p.svg())
    assert all("repeated" in _classes(g) for g in cells.values())
    assert p.flags(0) == ["non-contiguous", "repeated reads"]
    w = tc.viz.strides(_storage_tensor(6).unfold(0, 3, 1))
    assert w.repeated(0) and w.reads[2] == [(0, (0, 2)), (0, (1, 1)), (0, (2, 0))]
    assert not tc.viz.strides(_storage_tensor(6)).repeated(0)


def test_complex_views_count_real_numbers() -> None:
    z = tc.tensor([0 + 1j, 2 + 3j, 4 + 5j])
    p = tc.viz.strides({"z": z, "z.real": z.real, "z.imag": z.imag})
    # The storage is drawn in cells of one real number; a complex element covers two.
    assert p.storage_size == 6 and p.unit == "4 bytes" and p.cell == "cell"
    links, (_, cells) = _read_svg(p.svg())
    for i in range(3):
        value = z[i].item()
        assert links[0][(i,)] == (int(value.real), int(value.imag))
        assert links[1][(i,)] == (int(z.real[i].item()),)
        assert links[2][(i,)] == (int(z.imag[i].item()),)
    assert all(g.get("data-views") == "0 1" for c, g in cells.items() if c % 2 == 0)
    assert all(g.get("data-views") == "0 2" for c, g in cells.items() if c % 2 == 1)
    assert p.flags(0) == ["contiguous", "2 cells an element"]
    assert p.flags(1) == ["non-contiguous", "gaps"]


def test_a_0d_and_an_empty_view() -> None:
    x = _storage_tensor(12).reshape(3, 4)
    links, (_, cells) = _read_svg(tc.viz.strides(x[1, 2]).svg())
    assert links == {0: {(): (6,)}}
    assert [c for c, g in cells.items() if "gap" not in _classes(g)] == [6]
    p = tc.viz.strides(tc.zeros(0, 3))
    links, (root, cells) = _read_svg(p.svg())
    assert links == {} and cells == {}
    assert "(no elements)" in "".join(root.itertext())
    assert "(no elements: size (0, 3))" in str(p)
    assert "storage index 6" in str(tc.viz.strides(x[1, 2]))


def test_the_text_form() -> None:
    x = _storage_tensor(12).reshape(3, 4)
    text = str(tc.viz.strides({"x": x, "s": x[1:, ::2]}))
    assert text.splitlines() == [
        "storage: 12 elements of float64",
        "x: size (3, 4)  stride (4, 1)  offset 0  [contiguous]",
        "  [[ 0,  1,  2,  3],",
        "   [ 4,  5,  6,  7],",
        "   [ 8,  9, 10, 11]]",
        "s: size (2, 2)  stride (4, 2)  offset 4  [non-contiguous, gaps]",
        "  [[ 4,  6],",
        "   [ 8, 10]]",
        "reads of each storage cell (. = none):",
        "  cell  0  1  2  3  4  5  6  7  8  9 10 11",
        "  x     1  1  1  1  1  1  1  1  1  1  1  1",
        "  s     .  .  .  .  1  .  1  .  1  .  1  .",
    ]
    cube = str(tc.viz.strides(_storage_tensor(8).reshape(2, 2, 2)))
    assert "  [[[0, 1],\n    [2, 3]],\n   [[4, 5],\n    [6, 7]]]" in cube


def test_a_view_given_by_hand() -> None:
    p = tc.viz.strides(size=(3, 4), stride=(1, 3), offset=0)
    assert p.storage_size == 12 and p.auto_storage and p.unit == ""
    assert p.views[0].storage_index((2, 3)) == 11
    assert p.flags(0) == ["non-contiguous"]
    q = tc.viz.strides(size=[2], stride=[3], offset=1, storage_size=10)
    assert q.gaps() == [0, 2, 3, 5, 6, 7, 8, 9] and not q.auto_storage
    assert tc.viz.strides(size=(2, 3)).views[0].stride == (3, 1)
    assert tc.viz.strides(size=(2, 0, 3)).views[0].stride == (3, 3, 1)
    assert tc.viz.strides(size=()).storage_size == 1
    assert str(tc.viz.strides(size=(4,), names=["v"])).startswith("storage: 4 elements\nv:")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"size": (3, 4), "stride": (1,)}, ValueError, "has 2 dims but stride"),
        ({"size": (3, -4), "stride": (1, 3)}, ValueError, "sizes must be non-negative"),
        ({"size": (3, -4)}, ValueError, "sizes must be non-negative"),
        ({"size": (3,), "stride": (-1,)}, ValueError, "strides must be non-negative"),
        ({"size": (3,), "offset": -1}, ValueError, "offset must be non-negative"),
        ({"size": (3,), "storage_size": 2}, ValueError, "beyond a storage of 2"),
        ({"size": (0,), "offset": 5, "storage_size": 2}, ValueError, "offset 5 is beyond"),
        ({"size": (3,), "storage_size": -1}, ValueError, "non-negative"),
        ({"size": (100, 100)}, ValueError, "at most 4096"),
        ({"size": (2,), "stride": (5000,)}, ValueError, "at most 4096"),
        ({"size": (2.0,)}, TypeError, "sequence of ints"),
        ({"size": (True,)}, TypeError, "sequence of ints"),
        ({"size": (2,), "offset": 1.5}, TypeError, "offset must be an int"),
        ({}, TypeError, "needs tensors"),
    ],
)
def test_bad_views_are_refused(kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        tc.viz.strides(**kwargs)


def test_bad_tensor_arguments_are_refused() -> None:
    x = tc.zeros(2, 3)
    with pytest.raises(ValueError, match="does not share the storage"):
        tc.viz.strides(x, tc.zeros(2, 3))
    with pytest.raises(TypeError, match="not both"):
        tc.viz.strides(x, size=(2,))
    with pytest.raises(TypeError, match="for a view given by hand"):
        tc.viz.strides(x, offset=1)
    with pytest.raises(TypeError, match="expected a tensor"):
        tc.viz.strides([1, 2])
    with pytest.raises(ValueError, match="2 names for 1 tensors"):
        tc.viz.strides(x, names=["a", "b"])
    with pytest.raises(ValueError, match="at most 4096"):
        tc.viz.strides(tc.zeros(5000))
    sparse = tc.zeros(3).to_sparse() if hasattr(tc.Tensor, "to_sparse") else None
    if sparse is not None and sparse.layout is not tc.strided:
        with pytest.raises(TypeError, match="has no strides to draw"):
            tc.viz.strides(sparse)


def test_names_of_views() -> None:
    x = tc.zeros(2, 2)
    assert [v.name for v in tc.viz.strides(x).views] == ["t"]
    assert [v.name for v in tc.viz.strides(x, x.t()).views] == ["t0", "t1"]
    assert [v.name for v in tc.viz.strides([x, x.t()], names=["a", "b"]).views] == ["a", "b"]
    svg = tc.viz.strides({"<x & y>": x}).svg()
    assert _svg(svg).find(f".//{NS}g[@data-name='<x & y>']") is not None


def test_jupyter_and_files(tmp_path: Path) -> None:
    x = tc.zeros(2, 3)
    p = tc.viz.strides({"x": x, "x.t()": x.t()})
    assert p._repr_html_().startswith("<div") and "<svg" in p._repr_html_()
    assert p._repr_svg_() == p.svg()
    assert "StridePicture of x, x.t() over 6" in repr(p)
    _svg(p.save(tmp_path / "p.svg").read_text(encoding="utf-8"))
    assert p.save(tmp_path / "p.txt").read_text(encoding="utf-8") == str(p) + "\n"
    page = p.save(tmp_path / "p.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    # Standalone: nothing fetched (no src=, href= or url(http...)).
    assert not re.search(r"\b(src|href)=|https?://(?!www\.w3\.org/2000/svg)", page)
    data = json.loads(re.search(r"const DATA = (.*);\n", page).group(1))  # type: ignore[union-attr]
    assert data["storageSize"] == 6 and data["unit"] == "float32"
    assert [(v["name"], v["size"], v["stride"], v["offset"]) for v in data["views"]] == [
        ("x", [2, 3], [3, 1], 0),
        ("x.t()", [3, 2], [1, 3], 0),
    ]
    assert tc.viz.strides(size=(2,)).html().count('"storageSize": null') == 1
    hostile = tc.viz.strides({"</script><script>alert(1)</script>": x}).html()
    assert "</script><script>alert" not in hostile


# ---------------------------------------------------------------- graph pictures
def _walk(*outputs: tc.Tensor) -> tuple[list[str], set[tuple[str, str]]]:
    """Node names (breadth first) and edges by name, read straight from ``grad_fn``."""
    seen: dict[int, Any] = {}
    queue = [t.grad_fn for t in outputs if t.grad_fn is not None]
    for fn in queue:
        seen.setdefault(id(fn), fn)
    edges = set()
    i = 0
    while i < len(queue):
        fn = queue[i]
        i += 1
        for nxt, _ in fn.next_functions:
            if nxt is None:
                continue
            edges.add((nxt.name(), fn.name()))
            if id(nxt) not in seen:
                seen[id(nxt)] = nxt
                queue.append(nxt)
    return [fn.name() for fn in queue], edges


def _read_graph(svg: str) -> tuple[dict[str, ET.Element], list[tuple[str, str]], ET.Element]:
    root = _svg(svg)
    nodes = {g.get("id", ""): g for g in _find(root, "g", "node")}
    edges = []
    for g in _find(root, "g", "edge"):
        src, _, dst = g.get("id", "").partition("-")
        edges.append((src, dst))
    return nodes, edges, root


def _mlp() -> tuple[tc.Tensor, dict[str, tc.Tensor]]:
    x = tc.tensor([1.0, 2.0, 3.0])
    w = tc.full((2, 3), 0.1, requires_grad=True)
    b = tc.zeros(2, requires_grad=True)
    return (w @ x + b).tanh().sum(), {"w": w, "b": b}


def test_the_graph_has_every_node_and_edge() -> None:
    loss, params = _mlp()
    p = tc.viz.graph(loss, params, engine="builtin")
    names, edges = _walk(loss)
    nodes, drawn, root = _read_graph(p.svg())
    assert root.get("data-engine") == "builtin"
    assert "layout: builtin" in "".join(root.itertext())
    fns = [n for n in p.nodes if n.kind != "output"]
    assert [n.title for n in fns] == names
    assert {n.get("data-name") for n in nodes.values()} == {*names, "output"}
    by_id = {n.id: n.title for n in p.nodes}
    assert {(by_id[s], by_id[d]) for s, d in drawn if not d.startswith("t")} == edges
    assert (p.nodes[1].id, "t0") in drawn  # the output's grad_fn feeds the output
    leaves = [n for n in p.nodes if n.kind == "leaf"]
    assert sorted(n.lines[0] for n in leaves) == [
        "b: float32 (2,), version 0",
        "w: float32 (2, 3), version 0",
    ]
    assert all("requires_grad=True" in n.lines for n in leaves)
    matmul = next(n for n in fns if n.title.startswith("M"))
    assert matmul.lines == ["self: float32 (2, 3) v0", "other: float32 (3,) v0"]
    assert all("leaf" in _classes(nodes[n.id]) for n in leaves)


def test_hooks_and_retain_grad_are_drawn() -> None:
    x = tc.tensor([1.0, -2.0], requires_grad=True)

    def clip(g: tc.Tensor) -> tc.Tensor:
        return g.clamp(-1, 1)

    x.register_hook(clip)
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g / 2)
    out = (y * y).sum()
    out.retain_grad()
    p = tc.viz.graph({"out": out}, {"x": x}, engine="builtin")
    nodes, edges, _ = _read_graph(p.svg())
    leaf = next(n for n in p.nodes if n.kind == "leaf")
    assert "hook clip" in leaf.lines and "hooks" in _classes(nodes[leaf.id])
    mul = next(n for n in p.nodes if n.title == "MulBackward0" and "retains-grad" in n.flags)
    # The tensor's hooks run in registration order, retain_grad last (PyTorch >= 2.0).
    assert [line for line in mul.lines if "hook" in line or "retain" in line] == [
        "hook <lambda>",
        "retain_grad",
    ]
    assert {"hooks", "retains-grad"} <= _classes(nodes[mul.id])
    # y * y: both inputs come from y's node (two edges), and the text names it once.
    assert edges.count((mul.id, p.nodes[2].id)) == 2
    assert p.nodes[0].title == "out" and "retains_grad" in p.nodes[0].lines
    assert "retain_grad" in p.nodes[1].lines  # out's, on SumBackward0
    text = str(p)
    assert text.count("hook clip") == 1 and f"MulBackward0 [{mul.id}]: shown above" in text


def test_an_inplace_change_of_a_saved_tensor_is_stale() -> None:
    x = tc.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()  # saves its result
    loss = (y * 3).sum()
    y.add_(1)
    p = tc.viz.graph(loss, engine="builtin")
    nodes, _, _ = _read_graph(p.svg())
    stale = [n for n in p.nodes if "stale" in n.flags]
    assert [n.title for n in stale] == ["ExpBackward0"]
    assert stale[0].lines == ["result: float32 (2,) v0, now v1: STALE"]
    assert "stale" in _classes(nodes[stale[0].id])
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()  # the picture was right


def test_an_inplace_op_that_breaks_nothing_is_not_stale() -> None:
    x = tc.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2  # saves the number 2 only
    y.add_(1)  # y's node is now AddBackward0, after MulBackward0
    z = x.sin()  # saves x ...
    x2 = z * 1
    p = tc.viz.graph({"y": y, "x2": x2}, engine="builtin")
    assert [n.title for n in p.nodes][:2] == ["y", "x2"]
    assert not any("stale" in n.flags for n in p.nodes)
    assert ("n1", "n0") not in {(e.src, e.dst) for e in p.edges}
    titles = {n.id: n.title for n in p.nodes}
    assert ("MulBackward0", "AddBackward0") in {(titles[e.src], titles[e.dst]) for e in p.edges}
    assert p.nodes[0].lines == ["float32 (2,), version 1"]
    # ... and a leaf modified in place makes sin's saved input stale.
    with tc.no_grad():
        x.mul_(2)
    again = tc.viz.graph(x2, engine="builtin")
    sin = next(n for n in again.nodes if n.title == "SinBackward0")
    assert sin.lines == ["self: float32 (2,) v0, now v1: STALE"]


def test_backward_frees_the_saved_values() -> None:
    x = tc.tensor([1.0, 2.0], requires_grad=True)
    loss = x.exp().sum()
    loss.backward()
    p = tc.viz.graph(loss, {"x": x}, engine="builtin")
    exp = next(n for n in p.nodes if n.title == "ExpBackward0")
    assert exp.lines == ["saved values freed by backward"] and exp.flags == ["freed"]
    assert "grad: float32 (2,)" in next(n for n in p.nodes if n.kind == "leaf").lines


def test_outputs_of_a_multi_output_node_are_labelled() -> None:
    x = tc.tensor([[1.0, 5.0], [3.0, 2.0]], requires_grad=True)
    values, _ = x.max(dim=0)
    p = tc.viz.graph(values * 2, engine="builtin")
    edge = next(e for e in p.edges if p.node(e.src).title == "MaxBackward0")
    assert edge.label == "output 0"
    _, _, root = _read_graph(p.svg())
    assert "output 0" in "".join(root.itertext())


def test_tensors_without_a_graph() -> None:
    p = tc.viz.graph(tc.ones(2), engine="builtin")
    assert [n.lines for n in p.nodes] == [
        ["float32 (2,), version 0", "requires_grad=False: no graph"]
    ]
    leaf = tc.ones(2, requires_grad=True)
    assert "a leaf (requires_grad=True)" in tc.viz.graph(leaf, engine="builtin").nodes[0].lines
    _read_graph(tc.viz.graph([tc.ones(1), leaf], engine="builtin").svg())
    with pytest.raises(TypeError, match="draws tensors"):
        tc.viz.graph(3)
    with pytest.raises(ValueError, match="engine must be one of"):
        tc.viz.graph(leaf, engine="neato")


def test_a_custom_function_node() -> None:
    class Square(tc.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: tc.Tensor) -> tc.Tensor:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, g: tc.Tensor) -> tc.Tensor:
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = tc.ones(3, requires_grad=True)
    p = tc.viz.graph(Square.apply(x), engine="builtin")
    node = p.nodes[1]
    assert node.title == "SquareBackward"
    assert node.lines == ["saved_tensors[0]: float32 (3,) v0"]


def test_the_engine_is_chosen_and_said(monkeypatch: pytest.MonkeyPatch) -> None:
    loss, _ = _mlp()
    monkeypatch.setattr(_graph.shutil, "which", lambda name: None)
    assert _graph.why_no_graphviz() is not None  # whether or not the package is installed
    p = tc.viz.graph(loss)
    assert p.engine == "builtin" and "engine='builtin'" in repr(p)
    with pytest.raises(RuntimeError, match="engine='graphviz' cannot draw here"):
        tc.viz.graph(loss, engine="graphviz")


def test_graphviz_draws_the_same_graph() -> None:
    why = _graph.why_no_graphviz()
    if why is not None:
        pytest.skip(f"Graphviz is not installed: {why}")
    loss, params = _mlp()
    p = tc.viz.graph(loss, params)
    assert p.engine == "graphviz"
    nodes, edges, root = _read_graph(p.svg())
    assert root.get("data-engine") == "graphviz"
    assert "layout: graphviz (dot)" in "".join(root.itertext())
    assert set(nodes) == {n.id for n in p.nodes}
    assert sorted(edges) == sorted((e.src, e.dst) for e in p.edges)
    assert "leaf" in _classes(nodes[next(n.id for n in p.nodes if n.kind == "leaf")])


def test_the_dot_source_and_files(tmp_path: Path) -> None:
    loss, params = _mlp()
    p = tc.viz.graph(loss, params, engine="builtin")
    dot = p.dot()
    assert dot.startswith("digraph autograd {") and dot.count(" -> ") == len(p.edges)
    assert p.save(tmp_path / "g.dot").read_text(encoding="utf-8") == dot
    assert p.save(tmp_path / "g.txt").read_text(encoding="utf-8") == str(p) + "\n"
    _read_graph(p.save(tmp_path / "g.svg").read_text(encoding="utf-8"))
    html = p.save(tmp_path / "g.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and p.svg() in html
    assert p._repr_svg_() == p.svg() and p.svg() in p._repr_html_()


def test_the_text_tree() -> None:
    loss, params = _mlp()
    lines = str(tc.viz.graph(loss, params, engine="builtin")).splitlines()
    assert lines[:3] == ["output", "│ float32 (), version 0", "└─ SumBackward0"]
    assert sum(line.lstrip(" │├└─").startswith("AccumulateGrad") for line in lines) == 2


# ---------------------------------------------------------------- the built-in layout
def _check_layout(sizes: list[tuple[int, int]], edges: list[tuple[int, int]]) -> None:
    lay = _layout.layered(sizes, edges)
    boxes = [(x, y, x + w, y + h) for (x, y), (w, h) in zip(lay.positions, sizes, strict=True)]
    for a, b in itertools.combinations(boxes, 2):
        assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    for (u, v), route in zip(edges, lay.routes, strict=True):
        assert boxes[u][3] < boxes[v][1]  # every edge goes down
        assert route[0][1] == boxes[u][3] and route[-1][1] == boxes[v][1]
        assert boxes[u][0] <= route[0][0] <= boxes[u][2]
        assert boxes[v][0] <= route[-1][0] <= boxes[v][2]
    assert all(x >= 0 and x2 <= lay.width for x, _, x2, _ in boxes)


def test_the_layout_draws_no_overlaps_and_edges_down() -> None:
    _check_layout([(60, 30)] * 3, [(0, 2), (1, 2)])
    # A diamond with a long edge (through dummy nodes) and parallel edges.
    _check_layout(
        [(80, 40), (50, 20), (120, 30), (40, 40), (60, 20)],
        [(0, 1), (0, 2), (1, 3), (2, 3), (0, 4), (3, 4), (3, 4)],
    )
    import random

    rng = random.Random(0)
    for _ in range(20):
        n = rng.randint(1, 15)
        edges = [(u, v) for u in range(n) for v in range(u + 1, n) if rng.random() < 0.25]
        _check_layout([(rng.randint(20, 120), rng.randint(14, 60)) for _ in range(n)], edges)
    # A leaf read at every step of a chain: more long edges than the dummy-node budget.
    chain = [(i, i + 1) for i in range(1, 60)] + [(0, i) for i in range(1, 61)]
    _check_layout([(50, 20)] * 61, chain)
    with pytest.raises(ValueError, match="cycle"):
        _layout.layered([(10, 10)] * 2, [(0, 1), (1, 0)])


def test_a_long_graph_draws_quickly() -> None:
    x = tc.ones(2, requires_grad=True)
    y = x
    for _ in range(300):
        y = y * 1.5 + x
    p = tc.viz.graph(y.sum(), engine="builtin")
    nodes, edges, _ = _read_graph(p.svg())
    assert len(nodes) == len(p.nodes) == 603 and len(edges) == len(p.edges)


# ---------------------------------------------------------------- command line, imports, docs
def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "strides.html"
    assert (
        cli(["strides", "--size", "3", "4", "--stride", "1", "3", "--offset", "0", "-o", str(out)])
        == 0
    )
    assert '"stride": [1, 3]' in out.read_text(encoding="utf-8")
    assert cli(["strides", "--size", "2", "3", "--stride", "0", "1"]) == 0
    assert "[non-contiguous, repeated reads]" in capsys.readouterr().out
    assert (
        cli(["graph", "--example", "inplace", "--engine", "builtin", "-o", str(tmp_path / "g.svg")])
        == 0
    )
    assert "(layout: builtin)" in capsys.readouterr().out
    _read_graph((tmp_path / "g.svg").read_text(encoding="utf-8"))
    assert cli(["graph", "--example", "hooks", "--engine", "builtin"]) == 0
    assert "retain_grad" in capsys.readouterr().out
    for bad, message in [
        (["--size", "3", "4", "--stride", "1"], "has 2 dims but stride (1,) has 1"),
        (["--size", "3", "-4"], "sizes must be non-negative"),
        (["--size", "3", "--offset", "5", "--storage-size", "4"], "beyond a storage of 4"),
        (["--size", "3", "--stride", "x"], "invalid int value"),
    ]:
        with pytest.raises(SystemExit) as exc:
            cli(["strides", *bad])
        assert exc.value.code == 2
        assert message in capsys.readouterr().err


def test_viz_is_imported_on_first_use_and_needs_no_numpy(run_py: Any) -> None:
    out = run_py(
        """
        import sys

        class _NoNumpy:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] == "numpy":
                    raise ImportError("blocked")

        sys.meta_path.insert(0, _NoNumpy())
        import tensorcore as tc
        assert "tensorcore.viz" not in sys.modules
        p = tc.viz.strides(size=(2, 3), stride=(1, 2))
        p.svg(), p.html(), str(p)
        print("numpy" in sys.modules, "viz" in tc.__all__)
        """
    ).stdout
    assert out.split() == ["False", "True"]


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("gen_viz", ROOT / "tools" / "gen_viz_pictures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_pictures_are_current() -> None:
    gen = _generator()
    stale = [
        str(path.relative_to(ROOT))
        for path, text in gen.render().items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]
    assert stale == [], "out of date: run python3 tools/gen_viz_pictures.py"
    concepts = (ROOT / "docs" / "concepts.md").read_text(encoding="utf-8")
    for path in gen.render():
        if path.suffix == ".svg":
            assert f"({path.relative_to(ROOT / 'docs')})" in concepts, path.name
