"""PyTorch's symbolic-shape helpers (``torch.sym_int``, ``torch.sym_max``...), which model
code written for ``torch.compile`` calls on sizes. tensorcore runs eagerly, so a size is a
plain Python number and each helper is the plain operation on it."""

from __future__ import annotations

import builtins
import math
from collections.abc import Iterable
from typing import Any

__all__ = [
    "sym_float",
    "sym_fresh_size",
    "sym_int",
    "sym_ite",
    "sym_max",
    "sym_min",
    "sym_not",
    "sym_sqrt",
    "sym_sum",
]


def sym_int(a: Any) -> int:
    """``int(a)``, rounding towards zero.

    >>> import tensorcore as tc
    >>> tc.sym_int(2.7), tc.sym_max(3, 5), tc.sym_ite(True, "a", "b")
    (2, 5, 'a')
    """
    return math.trunc(a)


def sym_float(a: Any) -> float:
    """``float(a)``."""
    return float(a)


def sym_max(a: Any, b: Any) -> Any:
    """``max(a, b)``."""
    return builtins.max(a, b)


def sym_min(a: Any, b: Any) -> Any:
    """``min(a, b)``."""
    return builtins.min(a, b)


def sym_not(a: Any) -> bool:
    """``not a``."""
    return not a


def sym_ite(b: Any, t: Any, f: Any) -> Any:
    """``t if b else f``."""
    return t if b else f


def sym_sqrt(a: Any) -> float:
    """``math.sqrt(a)``."""
    return math.sqrt(a)


def sym_sum(args: Iterable[Any]) -> Any:
    """``sum(args)``."""
    return builtins.sum(args)


def sym_fresh_size(expr: Any) -> Any:
    """The size ``expr`` itself (a compiler makes a fresh symbol of it)."""
    return expr
