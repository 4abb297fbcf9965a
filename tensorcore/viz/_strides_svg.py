"""Drawing a :class:`~tensorcore.viz.StridePicture` as SVG.

The views side by side, each a grid of its logical elements (an N-d view as its 2-D slices,
one under the other), the storage below them. Each element is a group holding its cell, an
optional line to its storage cell, and a hover target drawn over that storage cell: CSS shows
the target while the element is hovered, so the link shows where no script runs (Jupyter's
untrusted outputs, for one). The data attributes (``data-view``, ``data-index``,
``data-storage`` on an element, ``data-index`` on a storage cell) say the same to programs
and tests.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ._svg import PALETTE, element, esc, svg_document, text_width

if TYPE_CHECKING:
    from ._strides import StridePicture, View

__all__ = ["draw"]

# Geometry, in pixels.
_CW, _CH = 36, 24  # a cell
_PAD = 16  # margin
_LH = 16  # a caption line
_GAP = 32  # between views
_DROP = 56  # between the lowest view and the storage (the links run there)


def _label(name: str, index: Sequence[int]) -> str:
    return f"{name}[{', '.join(map(str, index))}]"


_STYLE = """\
text{font-size:11px;dominant-baseline:central}
.caption{font-size:12px}
.name{font-weight:bold}
.cell{fill:#fff;stroke-width:1.5}
.el text,.scell text{text-anchor:middle}
.el:hover .cell{fill:#ffe08a}
.link{fill:none;stroke-opacity:.3;pointer-events:none}
.el:hover .link{stroke-opacity:1;stroke-width:2}
.target{fill:#ffe08a;fill-opacity:.8;stroke:#222;stroke-width:2;visibility:hidden;pointer-events:none}
.el:hover .target{visibility:visible}
.scell .box{fill:#fff;stroke:#444}
.scell.gap .box{fill:#e8e8e8;stroke:#aaa}
.scell.gap text{fill:#999}
.scell.repeated .box{fill:#fde2c4}
.count{font-size:9px;fill:#a0522d}
"""


def _grid_shape(v: View) -> tuple[list[tuple[int, ...]], int, int]:
    """The leading indices of the 2-D slices, and each slice's rows and columns."""
    if not v.size:
        return [()], 1, 1
    if len(v.size) == 1:
        return [()], 1, v.size[0]
    leads = list(itertools.product(*(range(n) for n in v.size[:-2])))
    return leads, v.size[-2], v.size[-1]


def draw(p: StridePicture, links: bool) -> str:
    """The SVG document of ``p``; ``links`` draws a line from each element to its cell."""
    body: list[str] = []
    per_row = p.storage_size if p.storage_size <= 32 else 32
    x = _PAD
    blocks: list[tuple[int, int, list[str], list[tuple[View, int, tuple[int, ...], int, int]]]] = []
    bottom = 0
    for k, v in enumerate(p.views):
        colour = PALETTE[k % len(PALETTE)]
        caption = [v.describe(), ", ".join(p.flags(k))]
        title = f"{v.name}" + (f"  {v.dtype}" if v.dtype else "")
        leads, rows, cols = _grid_shape(v)
        width = max(cols * _CW, text_width(title, 12), *(text_width(c, 12) for c in caption))
        y = _PAD + 3 * _LH + 4
        parts = [
            element(
                "text",
                {"class": "caption name", "x": x, "y": _PAD + _LH // 2, "fill": colour},
                esc(title),
            ),
            *(
                element(
                    "text",
                    {"class": "caption", "x": x, "y": _PAD + _LH * (i + 1) + _LH // 2},
                    esc(c),
                )
                for i, c in enumerate(caption)
            ),
        ]
        cells: list[tuple[View, int, tuple[int, ...], int, int]] = []
        if v.numel() == 0:
            parts.append(
                element("text", {"class": "caption", "x": x, "y": y + _LH // 2}, "(no elements)")
            )
            y += _LH
        else:
            for lead in leads:
                if len(v.size) > 2:
                    label = "[" + ", ".join([*map(str, lead), ":", ":"]) + "]"
                    parts.append(
                        element(
                            "text",
                            {"class": "caption", "x": x, "y": y + _LH // 2},
                            esc(v.name + label),
                        )
                    )
                    y += _LH
                for i in range(rows):
                    for j in range(cols):
                        idx = lead + ((i, j) if len(v.size) >= 2 else (j,) if v.size else ())
                        cells.append((v, k, idx, x + j * _CW, y + i * _CH))
                y += rows * _CH + 8
        bottom = max(bottom, y)
        blocks.append((x, width, parts, cells))
        x += width + _GAP
    storage_top = bottom + (_DROP if links else _DROP // 2)
    srows = -(-p.storage_size // per_row) if per_row else 0
    total_w = max(x - _GAP + _PAD, _PAD * 2 + per_row * _CW)
    # The storage, left to right, wrapped every ``per_row`` cells.
    sx = _PAD

    def cell_xy(c: int) -> tuple[int, int]:
        return sx + (c % per_row) * _CW, storage_top + (c // per_row) * (_CH + 14)

    storage: list[str] = [
        element(
            "text",
            {"class": "caption", "x": sx, "y": storage_top + max(srows, 1) * (_CH + 14) + _LH // 2},
            esc(f"storage: {p._cells()}"),
        )
    ]
    for c, reads in enumerate(p.reads):
        cx, cy = cell_xy(c)
        by_view = sorted({k for k, _ in reads})
        cls = "scell"
        if not reads:
            cls += " gap"
        elif any(sum(1 for kk, _ in reads if kk == k) > 1 for k in by_view):
            cls += " repeated"  # by one view: an expand, a stride of 0, overlapping windows
        if len(by_view) > 1:
            cls += " shared"
        who = ", ".join(_label(p.views[k].name, idx) for k, idx in reads[:6])
        more = f" and {len(reads) - 6} more" if len(reads) > 6 else ""
        tip = f"storage[{c}]: " + (f"read by {who}{more}" if reads else "read by no view (a gap)")
        inner = [
            element("title", {}, esc(tip)),
            element("rect", {"class": "box", "x": cx, "y": cy, "width": _CW, "height": _CH}),
            element("text", {"x": cx + _CW // 2, "y": cy + _CH // 2}, str(c)),
        ]
        most = max((sum(1 for kk, _ in reads if kk == k) for k in by_view), default=0)
        if most > 1:
            # Read more than once by one view: how many times, at most.
            inner.append(
                element("text", {"class": "count", "x": cx + _CW - 8, "y": cy + 6}, f"×{most}")
            )
        if by_view:
            w = (_CW - 4) // len(by_view)
            inner += [
                element(
                    "rect",
                    {
                        "class": "mark",
                        "x": cx + 2 + i * w,
                        "y": cy + _CH + 2,
                        "width": w,
                        "height": 4,
                        "fill": PALETTE[k % len(PALETTE)],
                    },
                )
                for i, k in enumerate(by_view)
            ]
        storage.append(
            element(
                "g",
                {
                    "class": cls,
                    "data-index": c,
                    "data-reads": len(reads),
                    "data-views": " ".join(map(str, by_view)),
                },
                "".join(inner),
            )
        )
    # The storage first: the views' hover targets are drawn over it.
    body.append(element("g", {"class": "storage"}, "\n".join(storage)))
    base = bottom + 6
    for k, (_, _, parts, cells) in enumerate(blocks):
        v = p.views[k]
        colour = PALETTE[k % len(PALETTE)]
        els: list[str] = []
        rows = _grid_shape(v)[1]
        for _, _, idx, ex, ey in cells:
            span = v.cells(idx)
            first = span[0]
            tx, ty = cell_xy(first)
            tw = _CW * len(span) if first % per_row + len(span) <= per_row else _CW
            inner = [
                element(
                    "title",
                    {},
                    esc(
                        f"{_label(v.name, idx)} reads storage[{first}]"
                        if len(span) == 1
                        else f"{_label(v.name, idx)} reads storage cells {first}–{span[-1]}"
                    ),
                ),
                element(
                    "rect",
                    {
                        "class": "cell",
                        "x": ex,
                        "y": ey,
                        "width": _CW,
                        "height": _CH,
                        "stroke": colour,
                    },
                ),
                element("text", {"x": ex + _CW // 2, "y": ey + _CH // 2}, str(first)),
            ]
            if links:
                # Each row's line drops a little apart from the others of its column.
                row = idx[-2] if len(idx) >= 2 else 0
                lx = ex + _CW // 2 + max(-_CW // 3, min(3 * (2 * row - rows + 1) // 2, _CW // 3))
                d = f"M{lx} {ey + _CH}V{base}L{tx + tw // 2} {ty}"
                inner.append(element("path", {"class": "link", "d": d, "stroke": colour}))
            inner.append(
                element("rect", {"class": "target", "x": tx, "y": ty, "width": tw, "height": _CH})
            )
            els.append(
                element(
                    "g",
                    {
                        "class": "el",
                        "data-view": k,
                        "data-index": " ".join(map(str, idx)),
                        "data-storage": " ".join(map(str, span)),
                    },
                    "".join(inner),
                )
            )
        body.append(
            element(
                "g",
                {
                    "class": "view",
                    "data-view": k,
                    "data-name": v.name,
                    "data-size": " ".join(map(str, v.size)),
                    "data-stride": " ".join(map(str, v.stride)),
                    "data-offset": v.offset,
                },
                "\n".join(parts + els),
            )
        )
    height = storage_top + max(srows, 1) * (_CH + 14) + _LH + _PAD
    return svg_document(
        total_w,
        height,
        _STYLE,
        body,
        **{"class": "tc-strides", "data-storage-size": p.storage_size},
    )
