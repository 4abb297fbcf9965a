"""The table itself (:class:`Derivative`, :data:`DERIVATIVES`, ``_d``) and the helpers
every family's rules share: ``sum_to``, the reductions' ``_unreduce``, ``_conj``...
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..._tensor import Tensor
from ...autograd.graph import TensorSpec
from ...dispatch import get_op
from .. import functions as ops

__all__ = ["DERIVATIVES", "Derivative", "sum_to"]


@dataclass(frozen=True)
class Derivative:
    """What a rule saves and how it maps output gradients to input gradients."""

    saves: tuple[str, ...]
    fn: Callable[..., Any]


DERIVATIVES: dict[str, Derivative] = {}


def _d(name: str, saves: str, fn: Callable[..., Any]) -> None:
    if name in DERIVATIVES:
        raise ValueError(f"derivative of {name} defined twice")
    DERIVATIVES[name] = Derivative(tuple(saves.split()), fn)


def sum_to(g: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sum ``g`` down to ``shape`` (the inverse of broadcasting)."""
    if g._shape == shape:
        return g
    plan = _SUM_TO.get((g._shape, shape))
    if plan is None:
        plan = _sum_to_plan(g._shape, shape)
    dims, keepdim = plan
    # (the lane first, as ``g.sum`` would go: two frames and the keyword call less)
    lane = _SUM.lane
    r = None if lane is None else lane(g, dims, keepdim, None)
    if r is None:
        r = g.sum(dims, keepdim=keepdim)
    if keepdim and len(shape) != len(g._shape):
        r = r.reshape(shape)
    return r


# (gradient's shape, input's shape) -> the dims ``sum_to`` sums over and whether it keeps
# them: every broadcast operand's gradient goes through ``sum_to`` on every backward, and the
# plan depends on the two shapes alone (``tests/test_autograd_fast.py`` compares it with the
# plain ``g.sum`` it stands for). About a microsecond of a small ``x - x.sum(0, keepdim=True)``.
_SUM_TO: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[int, ...], bool]] = {}
_SUM = get_op("sum")
_EXPAND = get_op("expand")


def _sum_to_plan(have: tuple[int, ...], shape: tuple[int, ...]) -> tuple[tuple[int, ...], bool]:
    """``sum_to``'s reduction from ``have`` to ``shape``: the leading dims alone (a bias: one
    reduction, no reshape), or with the inner broadcast ones, kept as size 1."""
    lead = len(have) - len(shape)
    inner = tuple(lead + i for i, s in enumerate(shape) if s == 1 and have[lead + i] != 1)
    plan = (tuple(range(lead)) + inner, bool(inner))
    if len(_SUM_TO) >= 1024:
        _SUM_TO.clear()
    _SUM_TO[have, shape] = plan
    return plan


def _reduced_count(shape: tuple[int, ...], dims: Any) -> int:
    """How many elements of a tensor of ``shape`` each result of a reduction over ``dims``
    (None: every dim) takes in: 1 for a 0-d tensor (reduced over dim 0 or -1)."""
    if dims is None or not shape:
        return math.prod(shape)
    return math.prod(shape[d] for d in dims)


def _unreduce(g: Tensor, shape: tuple[int, ...], dims: Any, keepdim: bool) -> Tensor:
    """Broadcast a reduced gradient back to the input's shape."""
    if dims is None:
        dims = tuple(range(len(shape)))
    if not keepdim and shape:  # (a 0-d input reduced over dim 0 or -1 stays 0-d)
        # Reduced leading dims come back through ``expand`` alone (it prepends dims): a full
        # reduction's gradient is one view, not one unsqueeze per dim and an expand.
        lead = 0
        for d in sorted(dims):
            if d == lead:
                lead += 1
            else:
                g = g.unsqueeze(d - lead)
    # (the lane first, as ``g.expand`` would go: a quarter of the backward of a reduction)
    lane = _EXPAND.lane
    r = None if lane is None else lane(g, shape)
    return g.expand(shape) if r is None else r


def _keepdim(g: Tensor, shape: tuple[int, ...], dims: Any, keepdim: bool) -> Tensor:
    """A reduced gradient (or result) with the reduced dims back as size 1: what
    :func:`_unreduce` expands, left to broadcast. Rules that go on computing with it use
    this: a small operand broadcasts in the arithmetic, where an expanded one takes every
    operator's strided path."""
    if keepdim or not shape:
        return g
    if dims is None:
        return g.reshape((1,) * len(shape))
    for d in sorted(dims):
        g = g.unsqueeze(d)
    return g


def _conj(t: Any) -> Any:
    if isinstance(t, Tensor) and t._dtype.is_complex:
        return t.conj()
    if isinstance(t, complex):
        return t.conjugate()
    return t


def _zeros_of(t: Any) -> Tensor:
    """Zeros shaped like ``t`` (a tensor or the ``TensorSpec`` a ``":spec"`` save keeps)."""
    return ops.zeros(t._shape, dtype=t._dtype, device=t._device)


def _is_tensor_arg(x: Any) -> bool:
    """Whether an argument was a tensor (saved whole or as ``TensorSpec``), not a scalar."""
    return isinstance(x, (Tensor, TensorSpec))


def _scalar_tensor(v: Any, like: Tensor) -> Tensor:
    """A Python scalar argument as a 0-dim tensor of ``like``'s dtype and device, for rules
    that apply an operator to it (operators take scalars only beside a tensor)."""
    return ops.full((), v, dtype=like._dtype, device=like._device)
