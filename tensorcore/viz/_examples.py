"""Small autograd graphs to draw: ``python -m tensorcore.viz graph --example NAME`` and the
pictures of ``docs/concepts.md`` (``tools/gen_viz_pictures.py``) are made from these."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorcore as tc

__all__ = ["EXAMPLES", "example"]


def _mlp() -> tuple[Any, dict[str, Any]]:
    x = tc.tensor([1.0, 2.0, 3.0])
    w = tc.full((2, 3), 0.1, requires_grad=True)
    b = tc.zeros(2, requires_grad=True)
    loss = (w @ x + b).tanh().sum()
    return loss, {"w": w, "b": b}


def clip(grad: Any) -> Any:
    """A gradient hook: clips the gradient to [-1, 1]."""
    return grad.clamp(-1.0, 1.0)


def halve(grad: Any) -> Any:
    """A gradient hook: halves the gradient."""
    return grad / 2


def _hooks() -> tuple[Any, dict[str, Any]]:
    x = tc.tensor([1.0, -2.0], requires_grad=True)
    x.register_hook(clip)
    y = x * 2
    y.retain_grad()
    y.register_hook(halve)  # runs before retain_grad stores y.grad, whatever the order
    loss = (y * y).sum()
    return loss, {"x": x}


def _inplace() -> tuple[Any, dict[str, Any]]:
    x = tc.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()  # ExpBackward0 saves its result, y
    loss = (y * 3).sum()
    y.add_(1)  # ... which this modifies: backward would raise
    return loss, {"x": x}


#: name -> (what it shows, a function making (output, params)).
EXAMPLES: dict[str, tuple[str, Callable[[], tuple[Any, dict[str, Any]]]]] = {
    "mlp": ("a linear layer, tanh and a sum: saved tensors and leaves", _mlp),
    "hooks": ("a hook on a leaf, retain_grad and a hook on a non-leaf", _hooks),
    "inplace": ("a saved tensor modified in place: the node is stale", _inplace),
}


def example(name: str) -> tuple[Any, dict[str, Any]]:
    """The output and named leaves of example ``name``.

    Examples
    --------
    >>> from tensorcore.viz._examples import example
    >>> loss, params = example("mlp")
    >>> loss.grad_fn.name(), sorted(params)
    ('SumBackward0', ['b', 'w'])
    """
    if name not in EXAMPLES:
        raise ValueError(f"no example {name!r}; the examples are {', '.join(EXAMPLES)}")
    return EXAMPLES[name][1]()
