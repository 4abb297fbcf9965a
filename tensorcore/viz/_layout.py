"""A layered drawing of a directed acyclic graph, for where Graphviz is not installed.

The classic Sugiyama steps, each in its simplest form: layers by longest path to a sink (so a
leaf sits just above the operation that reads it), a chain of dummy nodes for an edge that
spans several layers, barycentre ordering sweeps (keeping the order with the fewest
crossings), and x positions pulled towards the neighbours' mean. Deterministic: the same graph
always gives the same picture (the pictures in ``docs/`` are checked to be current).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Layout", "layered"]

_DUMMY_WIDTH = 8
_DUMMY_BUDGET = 1000  # dummy nodes at least; 4 per node for bigger graphs
_SWEEPS = 8
_COUNT_CROSSINGS_UP_TO = 2000  # edges; beyond, the sweeps run without keeping the best order


@dataclass
class Layout:
    """Where :func:`layered` put things: each node's top-left corner, each edge's points from
    the bottom of its source to the top of its target, and the size of the whole."""

    positions: list[tuple[int, int]]
    routes: list[list[tuple[int, int]]]
    width: int
    height: int


def _layers(n: int, edges: Sequence[tuple[int, int]]) -> list[int]:
    """Layer of each node: sinks at the bottom, every node one layer above its highest
    consumer (longest path to a sink)."""
    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for u, v in edges:
        succ[u].append(v)
        indeg[v] += 1
    # Topological order (Kahn), then heights from the end of it.
    order = [u for u in range(n) if indeg[u] == 0]
    for u in order:
        for v in succ[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                order.append(v)
    if len(order) != n:
        raise ValueError("the graph has a cycle")
    height = [0] * n
    for u in reversed(order):
        if succ[u]:
            height[u] = max(height[v] for v in succ[u]) + 1
    top = max(height, default=0)
    return [top - h for h in height]


def _crossings(layers: list[list[int]], up: list[list[int]], pos: dict[int, int]) -> int:
    """Edge crossings between consecutive layers (pairs of edges whose ends swap order)."""
    count = 0
    for lower in layers[1:]:
        ends = sorted((pos[u], i) for i, v in enumerate(lower) for u in up[v])
        for a in range(len(ends)):
            for b in range(a + 1, len(ends)):
                if ends[a][0] < ends[b][0] and ends[a][1] > ends[b][1]:
                    count += 1
    return count


def _order(layers: list[list[int]], up: list[list[int]], down: list[list[int]], m: int) -> None:
    """Barycentre sweeps over ``layers``, in place; keeps the order with the fewest
    crossings (counted only for graphs of at most a few thousand edges ``m``)."""
    pos = {v: i for layer in layers for i, v in enumerate(layer)}
    count = m <= _COUNT_CROSSINGS_UP_TO
    best = [list(layer) for layer in layers]
    best_c = _crossings(layers, up, pos) if count else 0
    for sweep in range(_SWEEPS):
        if count and best_c == 0:
            break
        downward = sweep % 2 == 0
        rng = range(1, len(layers)) if downward else range(len(layers) - 2, -1, -1)
        for li in rng:
            layer = layers[li]
            keys = []
            for i, v in enumerate(layer):
                nb = up[v] if downward else down[v]
                keys.append(sum(pos[u] for u in nb) / len(nb) if nb else float(i))
            layer[:] = [v for _, _, v in sorted(zip(keys, range(len(layer)), layer, strict=True))]
            pos.update((v, i) for i, v in enumerate(layer))
        if count:
            c = _crossings(layers, up, pos)
            if c < best_c:
                best_c, best = c, [list(layer) for layer in layers]
    if count:
        layers[:] = best


def layered(
    sizes: Sequence[tuple[int, int]],
    edges: Sequence[tuple[int, int]],
    hgap: int = 24,
    vgap: int = 40,
    margin: int = 16,
) -> Layout:
    """Lay out a DAG top to bottom, an edge ``(u, v)`` going down from ``u`` to ``v``.

    Parameters
    ----------
    sizes : sequence of (width, height)
        The size of each node, in pixels.
    edges : sequence of (source, target)
        Node numbers; parallel edges are allowed (they get separate end points).

    Examples
    --------
    >>> from tensorcore.viz._layout import layered
    >>> lay = layered([(40, 20), (40, 20), (40, 20)], [(0, 2), (1, 2)])
    >>> [y for _, y in lay.positions]
    [16, 16, 76]
    >>> lay.positions[2][0] == (lay.positions[0][0] + lay.positions[1][0]) // 2
    True
    """
    n = len(sizes)
    layer_of = _layers(n, edges)
    widths = [w for w, _ in sizes]
    # Dummy nodes: an edge over k layers becomes a chain through k - 1 of them, shortest
    # edges first, within a budget: a leaf read at every step of a long loop would otherwise
    # bring a number of dummies quadratic in the steps. Edges beyond it are drawn straight.
    spans = sorted(range(len(edges)), key=lambda k: layer_of[edges[k][1]] - layer_of[edges[k][0]])
    budget = max(_DUMMY_BUDGET, 4 * n)
    routed = set()
    for k in spans:
        budget -= layer_of[edges[k][1]] - layer_of[edges[k][0]] - 1
        if budget < 0:
            break
        routed.add(k)
    chains: list[list[int]] = []
    up: list[list[int]] = [[] for _ in range(n)]
    down: list[list[int]] = [[] for _ in range(n)]
    for k, (u, v) in enumerate(edges):
        chain = [u]
        for between in range(layer_of[u] + 1, layer_of[v]) if k in routed else ():
            d = len(layer_of)
            layer_of.append(between)
            widths.append(_DUMMY_WIDTH)
            up.append([])
            down.append([])
            chain.append(d)
        chain.append(v)
        for a, b in itertools.pairwise(chain):
            down[a].append(b)
            up[b].append(a)
        chains.append(chain)
    depth = max(layer_of, default=-1) + 1
    layers: list[list[int]] = [[] for _ in range(depth)]
    for v, li in enumerate(layer_of):
        layers[li].append(v)
    _order(layers, up, down, sum(len(c) - 1 for c in chains))

    # x: centres packed left to right, then pulled towards the neighbours' mean.
    x = [0.0] * len(layer_of)

    def pack(layer: list[int], want: list[float]) -> None:
        # Each centre as near its wish as the previous node allows, then the whole layer
        # shifted so that on average the nodes sit where they want to.
        placed = list(want)
        for i in range(1, len(layer)):
            lo = placed[i - 1] + (widths[layer[i - 1]] + widths[layer[i]]) / 2 + hgap
            placed[i] = max(placed[i], lo)
        shift = (sum(want) - sum(placed)) / len(layer) if layer else 0.0
        for v, c in zip(layer, placed, strict=True):
            x[v] = c + shift

    for layer in layers:
        pack(layer, [0.0] * len(layer))
    for sweep in range(2 * _SWEEPS):
        downward = sweep % 2 == 0
        rng = range(1, depth) if downward else range(depth - 2, -1, -1)
        for li in rng:
            layer = layers[li]
            want = []
            for v in layer:
                nb = up[v] if downward else down[v]
                want.append(sum(x[u] for u in nb) / len(nb) if nb else x[v])
            pack(layer, want)
    left = min((x[v] - widths[v] / 2 for v in range(len(x))), default=0.0)
    cx = [round(c - left) + margin for c in x]

    heights = [max((sizes[v][1] for v in layer if v < n), default=0) for layer in layers]
    tops = []
    y = margin
    for h in heights:
        tops.append(y)
        y += h + vgap
    positions = [(cx[v] - sizes[v][0] // 2, tops[layer_of[v]]) for v in range(n)]

    # End points: a node's outgoing (incoming) edges spread along its bottom (top) edge,
    # ordered by where they go, so parallel edges stay apart.
    outs: dict[int, list[int]] = {}
    ins: dict[int, list[int]] = {}
    for k, chain in enumerate(chains):
        outs.setdefault(chain[0], []).append(k)
        ins.setdefault(chain[-1], []).append(k)

    def spread(v: int, ks: list[int], other: int) -> dict[int, int]:
        ks = sorted(ks, key=lambda k: (cx[chains[k][other]], k))
        w = sizes[v][0]
        left_x = positions[v][0]
        return {k: left_x + w * (i + 1) // (len(ks) + 1) for i, k in enumerate(ks)}

    start: dict[int, int] = {}
    end: dict[int, int] = {}
    for v, ks in outs.items():
        start.update(spread(v, ks, 1))
    for v, ks in ins.items():
        end.update(spread(v, ks, -2))
    routes = []
    for k, chain in enumerate(chains):
        u, v = chain[0], chain[-1]
        pts = [(start[k], positions[u][1] + sizes[u][1])]
        for d in chain[1:-1]:
            top = tops[layer_of[d]]
            pts += [(cx[d], top), (cx[d], top + heights[layer_of[d]])]
        pts.append((end[k], positions[v][1]))
        routes.append(pts)
    width = max((cx[v] + widths[v] // 2 for v in range(len(cx))), default=0) + margin
    return Layout(positions, routes, width, max(y - vgap + margin, 2 * margin))
