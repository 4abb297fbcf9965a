"""The stride picture: logical tensors beside the storage they read.

A view is sizes, strides and an offset over a flat storage; its element ``(i, j, ...)`` reads
storage index ``offset + i * stride[0] + j * stride[1] + ...`` (``docs/concepts.md``, "Tensors
and storage"). :func:`strides` computes that index for every element of one or more views of
one storage and draws it three ways: SVG (inline in Jupyter), plain text (terminals) and a
standalone interactive HTML page (:mod:`tensorcore.viz._page`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._page import stride_page
from ._strides_svg import draw

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["MAX_CELLS", "StridePicture", "View", "strides"]

#: The most storage cells or logical elements one picture draws: it is for small examples.
MAX_CELLS = 4096

_LINKS_UP_TO = 24  # the most logical elements drawn with a line to their storage cell


@dataclass(frozen=True)
class View:
    """One view's geometry: ``size``, ``stride`` and ``offset`` in its own elements, each of
    which covers ``scale`` storage cells (2 for a complex view drawn over real cells).

    Examples
    --------
    >>> from tensorcore.viz import View
    >>> v = View("t", (2, 3), (1, 2), 0)
    >>> v.storage_index((1, 2)), v.is_contiguous()
    (5, False)
    """

    name: str
    size: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int
    dtype: str | None = None
    scale: int = 1

    def numel(self) -> int:
        """Number of logical elements."""
        return math.prod(self.size)

    def indices(self) -> Iterable[tuple[int, ...]]:
        """Every logical index, in row-major order."""
        return itertools.product(*(range(s) for s in self.size))

    def storage_index(self, index: Sequence[int]) -> int:
        """The storage index (in this view's elements) that element ``index`` reads."""
        return self.offset + sum(i * s for i, s in zip(index, self.stride, strict=True))

    def cells(self, index: Sequence[int]) -> range:
        """The storage cells element ``index`` covers."""
        first = self.storage_index(index) * self.scale
        return range(first, first + self.scale)

    def extent(self) -> int:
        """Storage elements the view needs: one past the last it reads (its offset if empty)."""
        if self.numel() == 0:
            return self.offset
        return (
            self.offset + sum((n - 1) * s for n, s in zip(self.size, self.stride, strict=True)) + 1
        )

    def is_contiguous(self) -> bool:
        """Row-major without gaps, as :meth:`tensorcore.Tensor.is_contiguous` decides."""
        expected = 1
        for n, s in zip(reversed(self.size), reversed(self.stride), strict=True):
            if n == 0:
                return True
            if n != 1:
                if s != expected:
                    return False
                expected *= n
        return True

    def describe(self) -> str:
        """``size (3, 4)  stride (4, 1)  offset 0``."""
        return f"size {_tup(self.size)}  stride {_tup(self.stride)}  offset {self.offset}"


def _tup(t: Sequence[int]) -> str:
    return "(" + ", ".join(map(str, t)) + ("," if len(t) == 1 else "") + ")"


class StridePicture:
    """Views of one storage and the storage cell each logical element reads.

    Made by :func:`strides`. ``str(p)`` is the plain-text form, ``p.svg()`` the picture
    (what Jupyter shows), ``p.html()`` the interactive page and ``p.save(path)`` writes one of
    them, chosen by the file's suffix.

    Examples
    --------
    >>> import tensorcore as tc
    >>> p = tc.viz.strides(size=(2, 2), stride=(0, 1))
    >>> p.reads[0], p.repeated(0), p.gaps()
    ([(0, (0, 0)), (0, (1, 0))], True, [])
    """

    def __init__(
        self,
        views: Sequence[View],
        storage_size: int,
        unit: str = "",
        auto_storage: bool = False,
        cell: str = "element",
    ) -> None:
        self.views = tuple(views)
        self.storage_size = storage_size
        #: Whether the storage size was left to what the views need (a view given by hand
        #: without ``storage_size=``): the interactive page then recomputes it on each edit.
        self.auto_storage = auto_storage
        #: What one storage cell holds: a dtype's name, ``""`` for a view given by hand, or
        #: ``"4 bytes"`` where views of several dtypes share the storage (``cell`` is then
        #: ``"cell"``: a complex element covers two of them).
        self.unit = unit
        self.cell = cell
        #: For each storage cell, the (view number, logical index) of the elements reading it.
        self.reads: list[list[tuple[int, tuple[int, ...]]]] = [[] for _ in range(storage_size)]
        for k, v in enumerate(self.views):
            for idx in v.indices():
                for c in v.cells(idx):
                    self.reads[c].append((k, idx))

    # ------------------------------------------------------------ facts
    def gaps(self) -> list[int]:
        """Storage cells that no view reads."""
        return [c for c, r in enumerate(self.reads) if not r]

    def repeated(self, view: int) -> bool:
        """Whether some storage cell is read by two elements of view number ``view`` (an
        ``expand``, a stride of 0, overlapping windows)."""
        v = self.views[view]
        seen = [c for idx in v.indices() for c in v.cells(idx)]
        return len(seen) != len(set(seen))

    def view_gaps(self, view: int) -> bool:
        """Whether view number ``view`` skips storage cells between its first and last."""
        v = self.views[view]
        seen = {c for idx in v.indices() for c in v.cells(idx)}
        return bool(seen) and max(seen) - min(seen) + 1 > len(seen)

    def flags(self, view: int) -> list[str]:
        """What the caption says of view number ``view``."""
        v = self.views[view]
        out = ["contiguous" if v.is_contiguous() else "non-contiguous"]
        if self.repeated(view):
            out.append("repeated reads")
        if self.view_gaps(view):
            out.append("gaps")
        if v.scale > 1:
            out.append(f"{v.scale} cells an element")
        return out

    # ------------------------------------------------------------ text
    def _cells(self) -> str:
        n = self.storage_size
        what = f"{n} {self.cell}{'' if n == 1 else 's'}"
        return f"{what} of {self.unit}" if self.unit else what

    def text(self, width: int = 16) -> str:
        """The plain-text form (``str(p)``): each view's storage indices, then a table of how
        often each view reads each storage cell, ``width`` cells a row."""
        lines = [f"storage: {self._cells()}"]
        for k, v in enumerate(self.views):
            lines.append(f"{v.name}: {v.describe()}  [{', '.join(self.flags(k))}]")
            lines.extend("  " + row for row in _nest(v))
        n = max(len(v.name) for v in self.views)
        n = max(n, len("cell"))
        col = max(len(str(max(self.storage_size - 1, 0))), 1)
        counts = [[0] * self.storage_size for _ in self.views]
        for c, r in enumerate(self.reads):
            for k, _ in r:
                counts[k][c] += 1
        col = max(col, *(len(str(x)) for row in counts for x in row)) if self.storage_size else col
        lines.append("reads of each storage cell (. = none):")
        for start in range(0, max(self.storage_size, 1), width):
            stop = min(start + width, self.storage_size)
            cells = range(start, stop)
            lines.append("  " + "cell".ljust(n) + " " + " ".join(str(c).rjust(col) for c in cells))
            for k, v in enumerate(self.views):
                marks = (str(counts[k][c]) if counts[k][c] else "." for c in cells)
                lines.append("  " + v.name.ljust(n) + " " + " ".join(m.rjust(col) for m in marks))
        return "\n".join(line.rstrip() for line in lines)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        names = ", ".join(v.name for v in self.views)
        return f"<StridePicture of {names} over {self.storage_size} storage cells>"

    # ------------------------------------------------------------ SVG
    def svg(self, links: bool | None = None) -> str:
        """The picture as an SVG document: each view's logical elements (labelled with the
        storage cell they read) above the storage. Hovering an element highlights its storage
        cell (CSS only, so it works where scripts do not run). ``links`` draws a line from
        each element to its cell; by default only when there are at most 24 elements."""
        if links is None:
            links = sum(v.numel() for v in self.views) <= _LINKS_UP_TO
        return draw(self, links)

    def _repr_html_(self) -> str:
        return f'<div style="overflow-x:auto">{self.svg()}</div>'

    def _repr_svg_(self) -> str:
        return self.svg()

    def html(self, title: str | None = None) -> str:
        """The standalone interactive page: edit sizes, strides and offsets, hover an element
        to highlight the storage cell it reads. It needs no server and no network."""
        return stride_page(self, title, MAX_CELLS)

    def save(self, path: str | Path) -> Path:
        """Write the picture: ``.html``/``.htm`` the interactive page, ``.svg`` the SVG, any
        other suffix the text. Returns the path."""
        p = Path(path)
        suffix = p.suffix.lower()
        if suffix in (".html", ".htm"):
            text = self.html()
        elif suffix == ".svg":
            text = self.svg()
        else:
            text = self.text() + "\n"
        p.write_text(text, encoding="utf-8")
        return p


def _nest(v: View) -> list[str]:
    """The storage cell of each element, nested like the tensor's repr."""
    if v.numel() == 0:
        return [f"(no elements: size {_tup(v.size)})"]
    if not v.size:
        return [f"storage index {v.storage_index(()) * v.scale}"]
    w = len(str(max(v.storage_index(i) * v.scale for i in v.indices())))

    def rows(prefix: tuple[int, ...], depth: int) -> list[str]:
        if depth == len(v.size) - 1:
            items = (
                str(v.storage_index(prefix + (i,)) * v.scale).rjust(w) for i in range(v.size[-1])
            )
            return ["[" + ", ".join(items) + "]"]
        out: list[str] = []
        for i in range(v.size[depth]):
            sub = rows(prefix + (i,), depth + 1)
            if i < v.size[depth] - 1:
                sub[-1] += ","
            out.extend(sub)
        out = ["[" + out[0]] + [" " + s for s in out[1:]]
        out[-1] += "]"
        return out

    return rows((), 0)


# ---------------------------------------------------------------- building a picture
def _ints(value: Any, what: str) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value,)
    try:
        items = tuple(value)
    except TypeError:
        raise TypeError(f"{what} must be a sequence of ints, not {type(value).__name__}") from None
    for x in items:
        if isinstance(x, bool) or not isinstance(x, int):
            raise TypeError(f"{what} must be a sequence of ints, got {x!r}")
    return items


def _check_view(v: View, storage_size: int | None) -> None:
    if len(v.size) != len(v.stride):
        raise ValueError(
            f"{v.name}: size {_tup(v.size)} has {len(v.size)} dims but stride "
            f"{_tup(v.stride)} has {len(v.stride)}"
        )
    if any(n < 0 for n in v.size):
        raise ValueError(f"{v.name}: sizes must be non-negative, got {_tup(v.size)}")
    if any(s < 0 for s in v.stride):
        raise ValueError(f"{v.name}: strides must be non-negative, got {_tup(v.stride)}")
    if v.offset < 0:
        raise ValueError(f"{v.name}: the offset must be non-negative, got {v.offset}")
    if v.numel() > MAX_CELLS:
        raise ValueError(
            f"{v.name} has {v.numel()} elements; the picture draws at most {MAX_CELLS}"
        )
    if storage_size is not None and v.extent() * v.scale > storage_size:
        if v.numel() == 0:
            raise ValueError(f"{v.name}: offset {v.offset} is beyond the storage ({storage_size})")
        raise ValueError(
            f"{v.name}: {v.describe()} reads storage index {v.extent() - 1}, beyond a storage "
            f"of {storage_size // v.scale} elements"
        )


def _tensors(args: tuple[Any, ...], names: Sequence[str] | None) -> list[tuple[str, Tensor]]:
    if len(args) == 1 and isinstance(args[0], Mapping):
        return [(str(k), t) for k, t in args[0].items()]
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    if names is not None:
        names = list(names)
        if len(names) != len(args):
            raise ValueError(f"{len(names)} names for {len(args)} tensors")
    else:
        names = ["t"] if len(args) == 1 else [f"t{i}" for i in range(len(args))]
    return list(zip(names, args, strict=True))


def strides(
    *tensors: Any,
    size: Sequence[int] | None = None,
    stride: Sequence[int] | None = None,
    offset: int = 0,
    storage_size: int | None = None,
    names: Sequence[str] | None = None,
) -> StridePicture:
    """Picture the views of one storage: each logical element linked to the storage cell it
    reads.

    Parameters
    ----------
    *tensors : Tensor, or one list of tensors, or one dict of name to tensor
        Strided tensors sharing one storage (``x``, ``x.t()``, ``x[1:, ::2]``,
        ``x.expand(...)``), drawn over that storage. Only their metadata is read (sizes,
        strides, offset, dtype, storage size), never their values, so any device works.
    size, stride, offset, storage_size
        Instead of tensors: one view given by hand (``stride`` defaults to row-major,
        ``storage_size`` to what the view needs).
    names : sequence of str, optional
        Names of the tensors in the picture (default ``t``, or ``t0``, ``t1``...).

    Returns
    -------
    StridePicture
        ``print()`` it, show it in Jupyter, or ``.save("p.html")`` the interactive page.

    Raises
    ------
    ValueError
        Sizes and strides of different lengths, a negative size, stride or offset, a view
        reading past the storage, views of different storages, or a picture of more than
        :data:`MAX_CELLS` cells.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.arange(6.0).reshape(2, 3)
    >>> print(tc.viz.strides({"x": x, "x.t()": x.t()}))
    storage: 6 elements of float32
    x: size (2, 3)  stride (3, 1)  offset 0  [contiguous]
      [[0, 1, 2],
       [3, 4, 5]]
    x.t(): size (3, 2)  stride (1, 3)  offset 0  [non-contiguous]
      [[0, 3],
       [1, 4],
       [2, 5]]
    reads of each storage cell (. = none):
      cell  0 1 2 3 4 5
      x     1 1 1 1 1 1
      x.t() 1 1 1 1 1 1
    >>> p = tc.viz.strides(size=(2,), stride=(2,), offset=1)
    >>> p.storage_size, p.gaps()
    (4, [0, 2])
    """
    if tensors and (size is not None or stride is not None):
        raise TypeError("strides() takes tensors or size=/stride=/offset=, not both")
    if not tensors:
        if size is None:
            raise TypeError("strides() needs tensors, or a size= (and stride=, offset=)")
        sz = _ints(size, "size")
        if stride is None:
            if any(n < 0 for n in sz):
                raise ValueError(f"sizes must be non-negative, got {_tup(sz)}")
            st: tuple[int, ...] = tuple(
                math.prod(max(n, 1) for n in sz[i + 1 :]) for i in range(len(sz))
            )
        else:
            st = _ints(stride, "stride")
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise TypeError(f"offset must be an int, not {type(offset).__name__}")
        name = names[0] if names else "t"
        v = View(name, sz, st, offset)
        if storage_size is not None:
            if isinstance(storage_size, bool) or not isinstance(storage_size, int):
                raise TypeError("storage_size must be an int")
            if storage_size < 0:
                raise ValueError(f"storage_size must be non-negative, got {storage_size}")
        _check_view(v, storage_size)
        n = v.extent() if storage_size is None else storage_size
        if n > MAX_CELLS:
            raise ValueError(f"a storage of {n} cells; the picture draws at most {MAX_CELLS}")
        return StridePicture([v], n, auto_storage=storage_size is None)
    if storage_size is not None or offset != 0:
        raise TypeError("offset= and storage_size= are for a view given by hand, not tensors")
    pairs = _tensors(tensors, names)
    if not pairs:
        raise TypeError("strides() needs at least one tensor")
    storage = None
    for name, t in pairs:
        if not hasattr(t, "untyped_storage"):
            raise TypeError(f"{name}: expected a tensor, got {type(t).__name__}")
        if t.layout.name != "strided":
            raise TypeError(f"{name}: a {t.layout.name} tensor has no strides to draw")
        s = t.untyped_storage()
        if storage is None:
            storage = s
        elif s is not storage:
            raise ValueError(
                f"{name} does not share the storage of {pairs[0][0]}: "
                "draw views of different storages in separate pictures"
            )
    assert storage is not None
    unit = math.gcd(*(t.element_size() for _, t in pairs))
    dtypes = {t.dtype for _, t in pairs}
    views = [
        View(
            name,
            tuple(t.shape),
            tuple(t.stride()),
            t.storage_offset(),
            t.dtype.name,
            t.element_size() // unit,
        )
        for name, t in pairs
    ]
    cells = storage.nbytes // unit
    if cells > MAX_CELLS:
        raise ValueError(f"a storage of {cells} cells; the picture draws at most {MAX_CELLS}")
    for v in views:
        _check_view(v, cells)
    if len(dtypes) == 1 and next(iter(dtypes)).itemsize == unit:
        return StridePicture(views, cells, next(iter(dtypes)).name)
    return StridePicture(views, cells, f"{unit} bytes", cell="cell")
