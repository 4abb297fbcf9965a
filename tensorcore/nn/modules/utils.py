"""Argument helpers at PyTorch's module path (``torch.nn.modules.utils``), which custom layers
import: ``_pair(3) == (3, 3)`` for a kernel size, ``consume_prefix_in_state_dict_if_present``
for a checkpoint saved from a ``DataParallel``/``DistributedDataParallel`` wrapper.

Examples
--------
>>> from tensorcore.nn.modules.utils import _pair, _triple
>>> _pair(3), _pair((1, 2)), _triple(0)
((3, 3), (1, 2), (0, 0, 0))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import repeat
from typing import Any

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple[Any, ...]]:
    """A function that repeats a single value ``n`` times and passes an iterable through as a
    tuple (PyTorch's ``_ntuple``: it does not check the iterable's length)."""

    def parse(x: Any) -> tuple[Any, ...]:
        if isinstance(x, Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: Iterable[Any], n: int) -> tuple[Any, ...]:
    """Reverse ``t`` and repeat each element ``n`` times: a conv layer's per-dim padding as
    :func:`tensorcore.nn.functional.pad` takes it (``((1, 2), 2) -> (2, 2, 1, 1)``)."""
    return tuple(x for x in reversed(tuple(t)) for _ in range(n))


def _list_with_default(out_size: Any, defaults: list[int]) -> Any:
    """An adaptive pooling's output size with each ``None`` taken from the input's trailing
    sizes ``defaults``."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [
        v if v is not None else d
        for v, d in zip(out_size, defaults[-len(out_size) :], strict=False)
    ]


def consume_prefix_in_state_dict_if_present(state_dict: dict[str, Any], prefix: str) -> None:
    """Strip ``prefix`` from the keys of ``state_dict`` that start with it, in place (and from
    its ``_metadata``, when it has one).

    A checkpoint saved from a ``DataParallel`` or ``DistributedDataParallel`` wrapper names
    every entry ``module.<name>``; strip ``"module."`` before loading it into the bare model.

    Parameters
    ----------
    state_dict : dict
        The state dict (modified in place).
    prefix : str
        The prefix, e.g. ``"module."``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.modules.utils import consume_prefix_in_state_dict_if_present
    >>> sd = {"module.weight": tc.ones(1), "module.bias": tc.zeros(1)}
    >>> consume_prefix_in_state_dict_if_present(sd, "module.")
    >>> sorted(sd)
    ['bias', 'weight']
    """
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix) :]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata.keys()):
            # '' is the wrapper's own entry (kept); 'module' or 'module.x' are the model's.
            if key and (key == prefix.replace(".", "") or key.startswith(prefix)):
                metadata[key[len(prefix) :]] = metadata.pop(key)
