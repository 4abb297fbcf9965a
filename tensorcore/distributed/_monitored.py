"""``monitored_barrier``: a barrier that names the ranks that did not reach it in time.

Rank 0 of the group receives a token from every other rank and then answers each one, as
PyTorch's Gloo backend does, over point-to-point messages (so it works on every
communication backend). A receive that timed out stays posted (its buffer kept alive here)
and is the one the next ``monitored_barrier`` of the group waits on, so that a late rank's
token is never read into freed memory.
"""

from __future__ import annotations

import time
import warnings
from datetime import timedelta
from typing import Any

from .. import dtypes
from ..ops.functions import zeros
from ._backend import MONITORED_BARRIER_TAG, DistBackendError, ProcessGroup, Work
from ._group import _group, _World
from ._objects import _device

__all__ = ["monitored_barrier"]

#: (group, peer's group rank) -> the receive left posted by a barrier that timed out.
_posted: dict[tuple[ProcessGroup, int], Work] = {}


def _receive(pg: ProcessGroup, peer: int, device: Any) -> Work:
    work = _posted.pop((pg, peer), None)
    if work is None:
        work = pg.recv(zeros(1, dtype=dtypes.uint8, device=device), peer, MONITORED_BARRIER_TAG)
    return work


def _wait(work: Work, deadline: float) -> bool:
    while not work.is_completed():
        if time.monotonic() > deadline:
            return False
    return True


def monitored_barrier(
    group: Any = None, timeout: timedelta | None = None, wait_all_ranks: bool = False
) -> None:
    """A barrier that raises, on rank 0 of ``group``, naming the ranks that did not reach
    it within ``timeout`` (the group's timeout when None), as PyTorch's (which only its Gloo
    backend has; this one runs on every communication backend).

    Parameters
    ----------
    group
        The process group; the default group when None.
    timeout
        A ``datetime.timedelta``; a float is taken as seconds, with a ``UserWarning``, as in
        PyTorch.
    wait_all_ranks
        Rank 0 waits for every rank and names all the missing ones; otherwise it raises at
        the first missing one, in rank order.

    Raises
    ------
    RuntimeError
        ``DistBackendError``: on rank 0, ``"Rank 1 failed to pass monitoredBarrier in 2000
        ms"`` (``"Ranks 1, 3 failed ..."`` with ``wait_all_ranks``), naming global ranks; on
        the others, when rank 0 does not answer in time.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> if dist.get_rank() != 1:  # doctest: +SKIP
    ...     dist.monitored_barrier()  # raises on rank 0, naming rank 1
    """
    what = "monitored_barrier"
    pg = _group(group, what)
    if pg is None:
        return
    if timeout is None:
        timeout = pg.timeout
    elif isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        warnings.warn(
            "Please specify timeout arg as a timedelta. Converting current value of "
            f"{timeout} assuming it represents seconds",
            stacklevel=2,
        )
        timeout = timedelta(seconds=timeout)
    if not isinstance(timeout, timedelta):
        raise TypeError(
            f"{what}(): timeout must be a datetime.timedelta, not {type(timeout).__name__}"
        )
    n, me = pg.size(), pg.rank()
    if n == 1:
        return
    ranks = _World.ranks.get(pg, list(range(n)))
    device = _device(group, what)
    deadline = time.monotonic() + timeout.total_seconds()
    ms = round(timeout.total_seconds() * 1000)
    if me == 0:
        waiting = {peer: _receive(pg, peer, device) for peer in range(1, n)}
        missing = []
        for peer, work in waiting.items():
            if not _wait(work, deadline):
                missing.append(peer)
                if not wait_all_ranks:
                    break
        if missing:
            for peer, work in waiting.items():
                if not work.is_completed():
                    _posted[(pg, peer)] = work
            if wait_all_ranks:
                named = ", ".join(str(ranks[p]) for p in missing)
                raise DistBackendError(f"Ranks {named} failed to pass monitoredBarrier in {ms} ms")
            raise DistBackendError(
                f"Rank {ranks[missing[0]]} failed to pass monitoredBarrier in {ms} ms"
            )
        token = zeros(1, dtype=dtypes.uint8, device=device)
        for work in [pg.send(token, peer, MONITORED_BARRIER_TAG) for peer in range(1, n)]:
            work.wait()
        return
    sent = pg.send(zeros(1, dtype=dtypes.uint8, device=device), 0, MONITORED_BARRIER_TAG)
    answer = _receive(pg, 0, device)
    if not _wait(answer, deadline):
        _posted[(pg, 0)] = answer
        raise DistBackendError(
            f"Rank {ranks[me]} successfully reached monitoredBarrier, but received errors "
            f"while waiting for send/recv from rank {ranks[0]}. Please check rank "
            f"{ranks[0]} logs for faulty rank."
        )
    sent.wait()
