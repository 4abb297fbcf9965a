"""The ``nccl`` backend's agreement check and its all-reduce plan (:class:`NCCLPlan`).

**The check** compares the ranks' descriptions of a collective (shapes, dtypes, op) before
its NCCL calls: one all-reduce (MAX) of two int64s, a fingerprint of the description and its
negation, on the device, read back by the host. It is a device round trip per collective,
and it must stay one: NCCL's calls cannot be made conditional on a result the device has not
yet told the host, and a collective whose ranks disagree on the count is undefined in NCCL
(it hangs, or reads and writes past a rank's buffer), so the host must see the answer before
it issues the data's calls. Remembering that the ranks agreed last time proves nothing about
this call (a rank may take another branch at any step): skipping the check for a repeated
tensor would let a mismatch through unnamed. So, as under MPI (whose plan also checks every
call, with a persistent request), what a plan keeps is the work around the check: the
description's fingerprint already on the device (no host-to-device copy per call) and the
buffer the answer comes back in, next to the data's count, NCCL datatype and operation.

**The plan** (:meth:`NCCLProcessGroup.allreduce_plan`) is made for a tensor whose dtype NCCL
reduces natively (int16, and bfloat16 before NCCL 2.10, are reduced in a wider copy by the
group's plain ``allreduce``: no plan) and an op it supports on it.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING, Any

import tensorcore as tc
from tensorcore.backend import AllreducePlan, Disagreement, ReduceOp

if TYPE_CHECKING:
    from tensorcore.backend import Work

    from ._nccl_group import NCCLProcessGroup

__all__ = ["NCCLPlan", "compare", "fingerprint"]


def fingerprint(description: str) -> int:
    """A 62-bit fingerprint of ``description`` (so that its negation fits an int64).

    Examples
    --------
    >>> from tensorcore_cuda._nccl_plan import fingerprint
    >>> fingerprint("all_reduce: (2,) float32 SUM") == fingerprint("all_reduce: (2,) float32 SUM")
    True
    >>> 0 <= fingerprint("x") < 2**62
    True
    """
    data = description.encode()
    return (zlib.crc32(data) ^ (zlib.adler32(data) << 32)) & ((1 << 62) - 1)


def on_device(group: NCCLProcessGroup, description: str) -> Any:
    """``[h, -h]`` for ``description``'s fingerprint ``h``: an int64 tensor on the group's
    device, which the check all-reduces with MAX (equal everywhere when the ranks agree)."""
    h = fingerprint(description)
    return tc.tensor([h, -h], dtype=tc.int64, device=group.device)


def compare(group: NCCLProcessGroup, mine: Any, seen: Any, description: str,
            what: str) -> list[str] | None:  # fmt: skip
    """All-reduce (MAX) ``mine`` (:func:`on_device`) into ``seen`` (may be ``mine``) and
    read it back: None when every rank passed ``description``, else every rank's."""
    src, dst, comm = mine.data_ptr(), seen.data_ptr(), group._comm
    dtype, op = group._nccl.NCCL_INT64, group._ops[ReduceOp.MAX]

    def issue(stream: int) -> None:
        comm.allReduce(src, dst, 2, dtype, op, stream)

    group._launch(what, issue, (mine, seen), host=True).wait()
    top, neg_bottom = seen.tolist()
    if top == -neg_bottom:
        return None
    return group._allgather_text(description, what)


class NCCLPlan(AllreducePlan):
    """Repeated all-reduces of one tensor's memory with one op (see the module): the check's
    buffers, the count, datatype and operation are made once; each :meth:`run` checks, then
    all-reduces. It keeps no reference to the tensor."""

    def __init__(self, group: NCCLProcessGroup, count: int, dtype: int, op: int,
                 average: bool, description: str | None) -> None:  # fmt: skip
        self._group, self._count, self._dtype, self._op = group, count, dtype, op
        # AVG as a SUM divided here (integers, or NCCL before 2.10)
        self._average = average
        self._description = description
        if description is not None:
            self._mine = on_device(group, description)
            self._seen = tc.empty(2, dtype=tc.int64, device=group.device)

    def run(self, tensor: Any, async_op: bool) -> Work | None:
        """Check that every rank passes this plan's description (unless the check is off),
        then all-reduce ``tensor`` in place on the group's stream; ``wait()`` as the group's
        works do (the current stream waits)."""
        group = self._group
        if self._description is not None:
            found = compare(group, self._mine, self._seen, self._description, "all_reduce")
            if found is not None:
                raise Disagreement(found)
        ptr, count, dtype, op, comm = (
            tensor.data_ptr(),
            self._count,
            self._dtype,
            self._op,
            group._comm,
        )

        def issue(stream: int) -> None:
            comm.allReduce(ptr, ptr, count, dtype, op, stream)

        fins = [lambda: group._average(tensor)] if self._average else None
        work = group._launch("all_reduce", issue, (tensor,), fins)
        if async_op:
            return work
        work.wait()
        return None
