"""Runtime knobs PyTorch programs set around their training loop: ``compile``, thread
counts, matmul precision. tensorcore runs eagerly and lets NumPy's BLAS pick its threads, so
these record the setting (and answer it back) without changing how anything computes."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

__all__ = [
    "compile",
    "get_float32_matmul_precision",
    "get_num_threads",
    "set_float32_matmul_precision",
    "set_num_threads",
]

_settings: dict[str, Any] = {"threads": os.cpu_count() or 1, "precision": "highest"}


def compile(model: Any = None, **kwargs: Any) -> Any:
    """PyTorch's ``torch.compile``: tensorcore runs eagerly, so the model (or function) is
    returned as it is; used as a decorator, with or without arguments, it returns the
    function unchanged.

    Examples
    --------
    >>> import tensorcore as tc
    >>> net = tc.nn.Linear(2, 2)
    >>> tc.compile(net) is net
    True
    """
    if model is None:

        def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
            return fn

        return deco
    return model


def set_num_threads(n: int) -> None:
    """Record the intra-op thread count (NumPy's BLAS keeps its own setting)."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise RuntimeError(f"set_num_threads expects a positive integer, got {n!r}")
    _settings["threads"] = n


def get_num_threads() -> int:
    """The thread count last set (the CPU count by default)."""
    return int(_settings["threads"])


def set_float32_matmul_precision(precision: str) -> None:
    """Record ``"highest"``, ``"high"`` or ``"medium"`` (tensorcore always computes float32
    matmuls in float32)."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(
            f"Invalid precision {precision!r}: expected 'highest', 'high' or 'medium'"
        )
    _settings["precision"] = precision


def get_float32_matmul_precision() -> str:
    """The precision last set (``"highest"`` by default)."""
    return str(_settings["precision"])
