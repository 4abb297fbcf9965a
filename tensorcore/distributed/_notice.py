"""Exit notices: how the MPI backend's ranks learn that a peer has left the job.

A rank that ends (``sys.exit``, the end of its script, an exception the abort hook does not
see), leaves the default group (``destroy_process_group``) or aborts the job tells every
other rank so, with one small message each on a communicator of their own (a duplicate of
the world's, so that no program or collective message can match them). Without it, a peer
waiting for the rank in a collective or a ``recv`` would wait until its group's timeout (30
minutes by default): the rank that ended sits in ``MPI_Finalize``, whose MPICH waits for
every rank, and MPI tells nobody. PyTorch's Gloo peer fails at once ("Connection closed by
peer"); with the notice ours fails within :data:`~._backend.LEFT_GRACE` of a second too.

The notices cost nothing on the way of a collective that completes: a waiting rank looks
for them (``Iprobe``) only when its wait reads the clock, every 1024 polls
(:func:`~._backend.spin`'s ``watch``). A rank that never waits for a peer that left never
reads its notice, and MPI drops the unread messages at ``MPI_Finalize`` (they are sent
eagerly: the sender does not wait for them to be read).

A notice carries the epoch of the default group it belongs to (the number of default groups
this process has made), so that one left unread by an earlier group of the same process,
whose communicator's context MPI may reuse, is never taken for this group's.
"""

from __future__ import annotations

import array
import contextlib
from typing import Any

__all__ = ["Notices"]

#: The tag of the notices, on their own communicator.
NOTICE_TAG = 0x7A2C

#: What a notice says (its second int64): how the rank left.
EXITED, DESTROYED, ABORTED = 1, 2, 3
_HOW = {
    EXITED: "exited (its program ended)",
    DESTROYED: "left the process group (destroy_process_group)",
    ABORTED: "failed and is aborting the job",
}

_epochs = 0


class Notices:
    """The exit notices of one default group's world: ``comm`` (a duplicate of the world's
    communicator, which this object frees), and the world ranks known to have left
    (``gone``: rank -> how)."""

    def __init__(self, comm: Any, mpi: Any) -> None:
        global _epochs
        _epochs += 1
        self.epoch = _epochs
        self.comm = comm
        self.mpi = mpi
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.gone: dict[int, str] = {}
        self.told = False
        self._buf = array.array("q", [0, 0])
        self._status = mpi.Status()
        self._out: Any = None  # the notice this rank sent (its memory lives while MPI sends it)

    def world_ranks(self, comm: Any) -> list[int]:
        """The world ranks of ``comm``'s ranks, in its order."""
        mpi = self.mpi
        ours, world = comm.Get_group(), self.comm.Get_group()
        try:
            return list(mpi.Group.Translate_ranks(ours, list(range(comm.Get_size())), world))
        finally:
            ours.Free()
            world.Free()

    def tell(self, how: int) -> None:
        """Tell every other rank that this one leaves, ``how`` (once; later calls do
        nothing). The sends are eager: this never waits for a peer."""
        if self.told or self.comm is None:
            return
        self.told = True
        mpi = self.mpi
        self._out = msg = array.array("q", [self.epoch, how])
        with contextlib.suppress(mpi.Exception):
            for r in range(self.size):
                if r != self.rank:
                    # Freed at once: MPI completes it on its own (a few bytes, sent
                    # eagerly), and nothing must wait on a peer that may be gone.
                    self.comm.Isend([msg, mpi.INT64_T], dest=r, tag=NOTICE_TAG).Free()

    def read(self) -> dict[int, str]:
        """Take in the notices that have arrived; the ranks known to have left."""
        comm = self.comm
        if comm is None:
            return self.gone
        mpi, status, buf = self.mpi, self._status, self._buf
        with contextlib.suppress(mpi.Exception):
            while comm.Iprobe(mpi.ANY_SOURCE, NOTICE_TAG, status):
                src = status.Get_source()
                comm.Recv([buf, mpi.INT64_T], src, NOTICE_TAG)
                if buf[0] == self.epoch:
                    self.gone.setdefault(src, _HOW.get(buf[1], "left"))
        return self.gone

    def close(self) -> None:
        """Free the communicator (after :meth:`tell`: a rank that leaves tells first)."""
        comm, self.comm = self.comm, None
        if comm is not None:
            with contextlib.suppress(self.mpi.Exception):
                comm.Free()


def left_error(what: str, rank: int, how: str) -> str:
    """The words of the error of a wait whose peer ``rank`` left, ``how``.

    Examples
    --------
    >>> print(left_error("barrier", 1, "exited"))
    barrier: rank 1 exited while this rank waited for it; Connection closed by peer
    """
    return f"{what}: rank {rank} {how} while this rank waited for it; Connection closed by peer"
