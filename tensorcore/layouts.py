"""Layouts: how a tensor's elements are arranged. ``strided`` lives in the core; other layouts
(``sparse_coo``, a third party's) are registered by backend plugins.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "channels_last",
    "channels_last_3d",
    "contiguous_format",
    "get_codec",
    "get_layout",
    "layout",
    "legacy_contiguous_format",
    "memory_format",
    "preserve_format",
    "register_layout",
    "registered_layouts",
    "set_codec",
    "strided",
]


class layout:
    """A tensor layout such as ``tensorcore.strided``.

    ``priority`` decides dispatch when one call mixes layouts: the kernel registered for the
    highest-priority layout among the tensor arguments runs (so a sparse kernel sees
    ``sparse + dense``). ``strided`` has priority 0.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.strided, tc.zeros(2).layout is tc.strided
    (tensorcore.strided, True)
    """

    __slots__ = ("name", "plugin", "priority")

    def __init__(self, name: str, priority: int = 0, plugin: str = "tensorcore") -> None:
        self.name = name
        self.priority = priority
        self.plugin = plugin

    def __repr__(self) -> str:
        return f"tensorcore.{self.name}"

    def __reduce__(self) -> str:
        return self.name


strided = layout("strided")
_layouts: dict[str, layout] = {"strided": strided}


def register_layout(name: str, priority: int = 1, plugin: str = "<runtime>") -> layout:
    """Create and register a new layout (the manager calls it for ``register.layout``).

    Registering a name twice is an error naming both plugins.
    """
    if not name.isidentifier():
        raise ValueError(f"layout name must be an identifier, got {name!r}")
    old = _layouts.get(name)
    if old is not None:
        raise RuntimeError(
            f"layout '{name}' is registered by both plugin '{old.plugin}' and plugin '{plugin}'"
        )
    obj = _layouts[name] = layout(name, priority, plugin)
    return obj


#: Each layout's serialisation codec, ``(to_parts, from_parts)``: set by
#: ``tensorcore.serialization.register_layout_codec``, read by pickling and by ``repr`` (which
#: prints a tensor of the layout as its parts).
_codecs: dict[str, tuple[Any, Any]] = {}


def set_codec(name: str, to_parts: Any, from_parts: Any) -> None:
    """Record layout ``name``'s codec (``register_layout_codec`` checks it first)."""
    _codecs[name] = (to_parts, from_parts)


def get_codec(name: str) -> tuple[Any, Any] | None:
    """Layout ``name``'s codec ``(to_parts, from_parts)``, or None."""
    return _codecs.get(name)


def get_layout(name: str) -> layout | None:
    """The registered layout called ``name``, or None."""
    return _layouts.get(name)


def registered_layouts() -> tuple[layout, ...]:
    """Every registered layout, ``strided`` first."""
    return tuple(_layouts.values())


class memory_format:
    """The order of a strided tensor's dims in memory that a copy should produce.

    ``preserve_format`` (the default of ``clone`` and the ``*_like`` factories) keeps the order
    of the input's strides; ``contiguous_format`` asks for row-major strides;
    ``channels_last`` lays a 4-D ``(N, C, H, W)`` tensor out as NHWC (channels innermost) and
    ``channels_last_3d`` a 5-D ``(N, C, D, H, W)`` one as NDHWC, as PyTorch's do.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.zeros(2, 3).t()
    >>> x.clone().stride(), x.clone(memory_format=tc.contiguous_format).stride()
    ((1, 3), (2, 1))
    >>> tc.zeros(2, 3, 4, 5).contiguous(memory_format=tc.channels_last).stride()
    (60, 1, 15, 3)
    """

    __slots__ = ("name", "order")

    def __init__(self, name: str, order: tuple[int, ...] | None = None) -> None:
        self.name = name
        #: For a channels-last format, the dims from innermost (stride 1) to outermost; its
        #: length is the rank the format requires.
        self.order = order

    def __repr__(self) -> str:
        return f"tensorcore.{self.name}"

    def __reduce__(self) -> str:
        return self.name


preserve_format = memory_format("preserve_format")
contiguous_format = memory_format("contiguous_format")
# PyTorch keeps the older name as the same object (custom backward code still spells it).
legacy_contiguous_format = contiguous_format
channels_last = memory_format("channels_last", (1, 3, 2, 0))
channels_last_3d = memory_format("channels_last_3d", (1, 4, 3, 2, 0))
