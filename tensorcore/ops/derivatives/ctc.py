"""Derivative rules of the CTC loss operators, part of THE derivative table:
``ops/derivatives/losses.py`` adds each of :data:`CTC_RULES` with its own.

``_ctc_loss``'s gradient is its own operator, ``_ctc_loss_backward`` (a kernel with the
backward recursion, as PyTorch's), which PyTorch does not differentiate again; neither do we.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._tensor import Tensor
from ...dispatch import get_op
from .._call import call

__all__ = ["CTC_RULES"]

#: ``(operator, saves, rule)`` as ``_table._d`` takes them.
CTC_RULES: list[tuple[str, str, Callable[..., Any]]] = []


def _ctc_loss(c: Any, grads: Any) -> tuple[Any, ...]:
    # (log_alpha, the second output, is the forward's working state: no gradient flows
    # through it, as in PyTorch)
    g = grads[0]
    if g is None or not c.needs(0):
        return None, None
    gl = call(
        get_op("_ctc_loss_backward"),
        (
            g,
            c.log_probs,
            c.targets,
            c.input_lengths,
            c.target_lengths,
            c.result,
            c.result1,
            c.blank,
            c.zero_infinity,
        ),
    )
    return gl, None


CTC_RULES.append(
    (
        "_ctc_loss",
        "log_probs targets input_lengths target_lengths blank zero_infinity result result1",
        _ctc_loss,
    )
)


def _ctc_loss_backward(c: Any, g: Tensor) -> tuple[Any, ...]:
    raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


CTC_RULES.append(("_ctc_loss_backward", "", _ctc_loss_backward))
