"""Serialisation of tensors: :func:`register_layout_codec`, through which the plugin that owns
a layout lets pickle and ``copy.deepcopy`` take its tensors apart and build them back.
"""

from __future__ import annotations

from ._pickling import register_layout_codec

__all__ = ["register_layout_codec"]
