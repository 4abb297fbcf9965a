"""``tensorcore._dynamo``: the part of PyTorch's ``torch._dynamo`` that programs touch
without compiling anything themselves (``torch._dynamo.config.suppress_errors = True``,
``torch._dynamo.reset()``, ``torch._dynamo.is_compiling()``, ``mark_dynamic``). tensorcore
runs eagerly, so these answer as an eager PyTorch does and change nothing.

Examples
--------
>>> import tensorcore as tc
>>> tc._dynamo.config.suppress_errors = True
>>> tc._dynamo.is_compiling(), tc._dynamo.config.cache_size_limit
(False, 8)
"""

from __future__ import annotations

from typing import Any

from ..compiler import (
    allow_in_graph,
    assume_constant_result,
    disable,
    is_compiling,
    list_backends,
    reset,
)
from ..nn.modules.compiled import OptimizedModule
from . import config

__all__ = [
    "OptimizedModule",
    "allow_in_graph",
    "assume_constant_result",
    "config",
    "disable",
    "disallow_in_graph",
    "forbid_in_graph",
    "graph_break",
    "is_compiling",
    "list_backends",
    "mark_dynamic",
    "mark_static",
    "maybe_mark_dynamic",
    "reset",
]


def mark_dynamic(t: Any, index: Any, *, min: Any = None, max: Any = None) -> None:
    """Mark a dimension of ``t`` as dynamic for compilation: nothing to do eagerly."""


def maybe_mark_dynamic(t: Any, index: Any) -> None:
    """Hint that a dimension of ``t`` may vary: nothing to do eagerly."""


def mark_static(t: Any, index: Any = None) -> None:
    """Mark a dimension (or a module) as static for compilation: nothing to do eagerly."""


def graph_break() -> None:
    """Split a compiled graph here: nothing to split eagerly."""


def disallow_in_graph(fn: Any) -> Any:
    """Keep ``fn`` out of compiled graphs: ``fn`` unchanged."""
    return fn


def forbid_in_graph(fn: Any) -> Any:
    """Make tracing ``fn`` an error: ``fn`` unchanged, since nothing is traced."""
    return fn
