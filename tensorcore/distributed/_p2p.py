"""Batched point-to-point operations: ``P2POp`` and ``batch_isend_irecv``, as in PyTorch."""

from __future__ import annotations

from typing import Any

from ._backend import Work
from ._collectives import irecv, isend

__all__ = ["P2POp", "batch_isend_irecv"]


class P2POp:
    """One point-to-point operation for :func:`batch_isend_irecv`: ``op`` is
    :func:`isend` or :func:`irecv`, ``peer`` a global rank.

    Examples
    --------
    >>> import tensorcore as tc, tensorcore.distributed as dist
    >>> dist.P2POp(dist.isend, tc.ones(2), peer=1).peer
    1
    """

    __slots__ = ("group", "op", "peer", "tag", "tensor")

    def __init__(
        self, op: Any, tensor: Any, peer: int | None = None, group: Any = None, tag: int = 0
    ) -> None:
        if op not in (isend, irecv):
            raise ValueError(
                "P2POp(): op must be tensorcore.distributed.isend or "
                f"tensorcore.distributed.irecv, not {op!r}"
            )
        if peer is None and op is isend:
            raise ValueError("P2POp(): isend needs a peer")
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag

    def __repr__(self) -> str:
        return f"P2POp({self.op.__name__}, peer={self.peer}, tag={self.tag})"


def batch_isend_irecv(p2p_op_list: list[P2POp]) -> list[Work]:
    """Start every operation of ``p2p_op_list`` (sends and receives, in any order, without
    deadlocking on each other) and return their works, in the list's order.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist.batch_isend_irecv([])
    []
    """
    if not isinstance(p2p_op_list, (list, tuple)) or not all(
        isinstance(p, P2POp) for p in p2p_op_list
    ):
        raise TypeError("batch_isend_irecv(): expected a list of P2POp")
    works: list[Work] = []
    for p in p2p_op_list:
        if p.op is isend:
            w = isend(p.tensor, p.peer, group=p.group, tag=p.tag)
        else:
            w = irecv(p.tensor, p.peer, group=p.group, tag=p.tag)
        if w is not None:
            works.append(w)
    return works
