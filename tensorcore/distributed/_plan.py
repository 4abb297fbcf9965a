"""The all_reduce fast path: what ``all_reduce`` checked about a tensor, kept for its next call.

A training loop all-reduces the same tensors (gradient buckets, a loss, statistics) again and
again. The first call with a contiguous tensor checks its arguments, builds the description
the ranks compare, and asks the communication backend for an
:class:`~._backend.AllreducePlan` (MPI: the memory as an MPI buffer, the datatype and
operation, later a persistent request). A :class:`Plan` keeps them, keyed by the tensor's
``id``, and is reused while the tensor is the same memory with the same metadata: the same
storage object (held by a weak reference, so a plan keeps no memory alive), offset, dtype and
the same shape and stride *tuples* (identity tests: tensorcore replaces these tuples, never
edits them, whenever a tensor's metadata changes, as ``t.data = other`` or a resized ``out=``
do). What it buys: on a 4 KiB all-reduce between 2 processes, the checks, the description and
finding the memory cost about 3 us a call, of a 5 us operation; ``Plan.fits`` costs 0.2 us.

At most :data:`LIMIT` plans are kept (the oldest is dropped and its backend plan released);
``destroy_process_group`` releases the plans of the groups it destroys.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from .._tensor import Tensor
from ..autograd import grad_mode
from ._agreement import describe
from ._backend import AllreducePlan, Disagreement
from ._group import _World

if TYPE_CHECKING:
    from ._backend import ProcessGroup, ReduceOp, Work

__all__ = ["LIMIT", "GenericPlan", "Plan", "make", "temporary"]

#: How many plans are kept (one per tensor a program all-reduces repeatedly is enough).
LIMIT = 256


class Plan:
    """A checked ``all_reduce`` of one tensor with one op over one group: ``run(tensor,
    async_op)`` is its :class:`~._backend.AllreducePlan`'s (the backend's, or a
    :class:`GenericPlan`)."""

    __slots__ = ("backend", "dtype", "offset", "op", "pg", "run", "shape", "storage", "stride")

    def __init__(self, pg: ProcessGroup, tensor: Tensor, op: Any, backend: AllreducePlan) -> None:
        self.pg, self.op, self.backend = pg, op, backend
        # The bound method itself: all_reduce calls it without a call of ours in between.
        self.run = backend.run
        self.storage = weakref.ref(tensor._storage)
        self.shape, self.stride = tensor._shape, tensor._stride
        self.offset, self.dtype = tensor._offset, tensor._dtype

    def fits(self, tensor: Any, pg: ProcessGroup, op: Any) -> bool:
        """Whether ``all_reduce(tensor, op, pg)`` is the call this plan was made for, on the
        same memory: then the checks it passed still hold."""
        return (
            self.pg is pg
            and self.op is op
            and isinstance(tensor, Tensor)
            and self.shape is tensor._shape
            and self.stride is tensor._stride
            and self.storage() is tensor._storage
            and self.offset == tensor._offset
            and self.dtype is tensor._dtype
        )

    def release(self) -> None:
        """Release the backend's plan (the plan is dropped)."""
        self.backend.release()


class GenericPlan(AllreducePlan):
    """The plan of a backend that has none: :meth:`ProcessGroup.agree` and
    :meth:`ProcessGroup.allreduce` at every call."""

    def __init__(self, pg: ProcessGroup, rop: ReduceOp, description: str | None) -> None:
        self.pg, self.rop, self.description = pg, rop, description

    def run(self, tensor: Tensor, async_op: bool) -> Work | None:
        """Check (unless the check is off), then all-reduce ``tensor``."""
        pg = self.pg
        if self.description is not None:
            found = pg.agree(self.description, "all_reduce")
            if found is not None:
                raise Disagreement(found)
        with grad_mode.no_grad():
            work = pg.allreduce(tensor, self.rop)
            if async_op:
                return work
            work.wait()
        return None


def temporary(pg: ProcessGroup, tensor: Tensor, rop: ReduceOp) -> AllreducePlan:
    """A plan for one ``all_reduce`` of ``tensor`` (a contiguous copy of a non-contiguous
    tensor), not kept: the caller releases it once the all-reduce is done.

    A non-contiguous tensor goes through a plan as a contiguous one does, so that what the
    ranks run never depends on whether each rank's tensor is contiguous: MPI does not match
    a persistent request (a planned tensor's, or a staging buffer's) with a one-off one, so a
    rank that passed a strided view while another passed its planned tensor used to wait
    until the timeout (``tests/distributed_scripts/plans.py``).
    """
    description = describe("all_reduce", tensor, rop.name) if _World.check else None
    return pg.allreduce_plan(tensor, rop, description) or GenericPlan(pg, rop, description)


def make(pg: ProcessGroup, tensor: Tensor, op: Any, rop: ReduceOp) -> Plan:
    """A plan for ``all_reduce(tensor, op)`` over ``pg`` (a contiguous tensor that passed the
    checks), kept for the next calls; the one it replaces, or the oldest, is released."""
    plans = _World.plans
    key = id(tensor)
    old = plans.pop(key, None)
    if old is not None:
        old.release()
    elif len(plans) >= LIMIT:
        plans.pop(next(iter(plans))).release()
    # The check is on or off for a group's whole life (and plans do not outlive it).
    description = describe("all_reduce", tensor, rop.name) if _World.check else None
    backend = pg.allreduce_plan(tensor, rop, description)
    plan = Plan(pg, tensor, op, backend or GenericPlan(pg, rop, description))
    plans[key] = plan
    return plan
