"""Writing SVG and HTML text: escaping, elements, text widths and the shared page frame.

Everything is written as strings (no XML library): the output must be byte-for-byte the same
on every machine, so that the pictures in ``docs/`` can be checked to be current.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["PALETTE", "element", "esc", "html_page", "script_json", "svg_document", "text_width"]

#: One colour per view (strides) and per node kind (graph); colour-blind-safe (Tableau 10).
PALETTE = ("#4e79a7", "#e15759", "#59a14f", "#b07aa1", "#f28e2b", "#76b7b2", "#9c755f")

_FONT = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace"


def esc(value: Any) -> str:
    """``value`` as text safe inside an XML element or a double-quoted attribute.

    Examples
    --------
    >>> from tensorcore.viz._svg import esc
    >>> esc('a<b & "c"')
    'a&lt;b &amp; &quot;c&quot;'
    """
    return (
        str(value)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
    )


def element(tag: str, attrs: dict[str, Any], body: str | None = None) -> str:
    """One element, its attributes in the order given (``None`` values left out); ``body``
    is already-escaped markup, ``None`` for an empty element.

    Examples
    --------
    >>> from tensorcore.viz._svg import element
    >>> element("rect", {"x": 1, "class": "cell", "title": None})
    '<rect x="1" class="cell"/>'
    >>> element("text", {"x": 0}, "a &lt; b")
    '<text x="0">a &lt; b</text>'
    """
    parts = "".join(f' {k}="{esc(v)}"' for k, v in attrs.items() if v is not None)
    if body is None:
        return f"<{tag}{parts}/>"
    return f"<{tag}{parts}>{body}</{tag}>"


def text_width(text: str, size: int = 12) -> int:
    """Width in pixels of ``text`` in the monospace font the pictures use (0.6 em a
    character, as in most monospace fonts), rounded up.

    Examples
    --------
    >>> from tensorcore.viz._svg import text_width
    >>> text_width("MulBackward0", 10)
    72
    """
    return -(-len(text) * size * 6 // 10)


def svg_document(width: int, height: int, style: str, body: list[str], **attrs: Any) -> str:
    """A complete ``<svg>`` element (no XML prolog, so that it can be inlined in HTML)."""
    head = element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "width": width,
            "height": height,
            "viewBox": f"0 0 {width} {height}",
            **attrs,
        },
        "",
    )[: -len("</svg>")]
    css = f"<style>svg{{{_FONT}}}\n{style}</style>"
    return "\n".join([head, css, *body, "</svg>"]) + "\n"


def script_json(value: Any) -> str:
    """``value`` as JSON that is safe inside an HTML ``<script>`` element.

    Examples
    --------
    >>> from tensorcore.viz._svg import script_json
    >>> script_json({"name": "</script>"})
    '{"name": "\\\\u003c/script\\\\u003e"}'
    """
    text = json.dumps(value, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def html_page(title: str, body: str, style: str = "", script: str = "") -> str:
    """A standalone HTML page: everything inline, nothing fetched from a network."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{esc(title)}</title>",
        f"<style>body{{{_FONT};margin:1.5em;color:#222}}\n{style}</style>",
        "</head>",
        "<body>",
        body,
    ]
    if script:
        parts.append(f"<script>\n{script}\n</script>")
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"
