"""Batched point-to-point operations: ``P2POp`` and ``batch_isend_irecv``, as in PyTorch."""

from __future__ import annotations

from typing import Any

from ._backend import Work
from ._collectives import irecv, isend, p2p_op
from ._group import _group

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

    __slots__ = ("group", "group_peer", "op", "peer", "tag", "tensor")

    def __init__(
        self,
        op: Any,
        tensor: Any,
        peer: int | None = None,
        group: Any = None,
        tag: int = 0,
        group_peer: int | None = None,
    ) -> None:
        if op not in (isend, irecv):
            raise ValueError(
                "P2POp(): op must be tensorcore.distributed.isend or "
                f"tensorcore.distributed.irecv, not {op!r}"
            )
        if peer is None and group_peer is None and op is isend:
            raise ValueError("P2POp(): isend needs a peer")
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag
        self.group_peer = group_peer

    def __repr__(self) -> str:
        return f"P2POp({self.op.__name__}, peer={self.peer}, tag={self.tag})"


def batch_isend_irecv(p2p_op_list: list[P2POp]) -> list[Work]:
    """Start every operation of ``p2p_op_list`` (sends and receives of one group, in any
    order, without deadlocking on each other) and return their works, in the list's order.

    The communication backend starts them together where it can (NCCL: one NCCL group, as
    PyTorch does), so a ring in which every rank sends to the next and receives from the
    previous completes; otherwise (MPI) one by one, as non-blocking operations.

    Raises
    ------
    ValueError
        When the operations name different groups (PyTorch's "All ops need to use the same
        group").

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist.batch_isend_irecv([])
    []
    """
    what = "batch_isend_irecv"
    if not isinstance(p2p_op_list, (list, tuple)) or not all(
        isinstance(p, P2POp) for p in p2p_op_list
    ):
        raise TypeError(f"{what}(): expected a list of P2POp")
    if not p2p_op_list:
        return []
    group = p2p_op_list[0].group
    if any(p.group is not group for p in p2p_op_list):
        raise ValueError(f"{what}(): all ops need to use the same group")
    pg = _group(group, what)
    if pg is None:
        return []
    prepared = [
        p2p_op(pg, "send" if p.op is isend else "recv", p.tensor, p.peer, p.tag, what, p.group_peer)
        for p in p2p_op_list
    ]
    ops = [(kind, buf, peer, tag) for kind, buf, peer, tag, _ in prepared]
    works = pg.batch_p2p(ops)
    if works is None:
        works = []
        for kind, buf, peer, tag in ops:
            if kind == "send":
                assert peer is not None
                works.append(pg.send(buf, peer, tag))
            else:
                works.append(pg.recv(buf, peer, tag))
    for work, (*_, back) in zip(works, prepared, strict=True):
        if back is not None:
            work.then(back)
    return works
