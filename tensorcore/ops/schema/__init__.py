"""THE operator table: one declaration per operator.

Everything else derives from these declarations: the ``tensorcore.<op>`` functions and
``Tensor`` methods (``ops/_api.py``), their in-place ``op_`` and ``out=`` variants, the
dispatch entries a backend fills in, the derivative table's keys and ``docs/operators.md``.

A declaration gives the PyTorch-style signature, a set of tags from :data:`TAGS`, a one-line
summary, and -- for structured operators -- how the core computes the result's shape and
dtype before the kernel runs (``meta``), so a backend writes only the computation.
"""

from __future__ import annotations

import importlib

from ._declare import (
    ALIASES,
    DTYPE_CATEGORIES,
    FRONTEND_KINDS,
    INPLACE_FUNCTIONS,
    OPS,
    PROMOTIONS,
    TAGS,
    OpDecl,
)

__all__ = [
    "ALIASES",
    "DTYPE_CATEGORIES",
    "FRONTEND_KINDS",
    "INPLACE_FUNCTIONS",
    "OPS",
    "PROMOTIONS",
    "TAGS",
    "OpDecl",
]

#: The category modules, which declare their operators when imported, in this order: the
#: order of the table, of each category of ``docs/operators.md``, and of the stubs.
CATEGORY_MODULES = (
    "pointwise",
    "reductions",
    "nn",
    "linalg",
    "spectral",
    "shape",
    "composite_shape",
    "views",
    "copies",
    "composites",
    "composite_index",
    "composite_complex",
    "composite_more",
    "aliases",
)
for _module in CATEGORY_MODULES:
    importlib.import_module(f"{__name__}.{_module}")
