"""A PMI-1 process manager for MPI processes that no ``mpiexec`` started.

MPI libraries of the MPICH family (MPICH, the ``mpich`` wheel, Intel MPI, MVAPICH) find
their peers in ``MPI_Init`` through a process manager that speaks PMI-1: a line protocol
(``cmd=put key=.. value=..``, ``cmd=barrier_in``, ``cmd=get key=..``) over a socket named
by ``PMI_PORT`` (``host:port``), with ``PMI_RANK`` and ``PMI_SIZE`` in the environment.
``mpiexec`` is one such manager. This is another, small one, for programs started the way
PyTorch's are (``torch.multiprocessing.spawn``, ``torchrun``, a scheduler's own launch) that
call ``init_process_group(rank=..., world_size=...)`` with a ``MASTER_ADDR``/``MASTER_PORT``
or ``tcp://`` address: rank 0 runs it at that address, and every rank's MPI joins through
it. Only the wiring goes through it: the data moves between the processes, through the MPI
library's own shared memory and network transports.

It runs as its own process (``python _pmi_server.py --port P --size N --timeout S``; the
standard library only): ``MPI_Init`` blocks in C while it waits for the other ranks, holding
Python's global lock, so a server thread inside rank 0 could never answer it.

Protocol, besides PMI-1's commands: before ``MPI_Init``, each rank connects once and says
``cmd=tensorcore_hello rank=R size=N node=NAME pid=PID``. The node names make
``PMI_process_mapping`` (which ranks share a machine, and so memory); the pids let the
server stop this machine's ranks when one of them dies, as ``mpiexec`` does. A rank whose
program ends says ``cmd=tensorcore_leaving rank=R`` (on a connection of its own) before
``MPI_Finalize``: if the job fails while it waits there for the others, it is let out of
the barrier to end with its own status instead of being stopped.

The server prints ``listening PORT`` (or ``error MESSAGE``) on its first output line, and
exits when every rank has finalized and disconnected (0), or when the job fails (1): a rank
that aborts (``MPI_Abort``) or drops its connection without finalizing, or ranks missing
after ``--timeout`` seconds. A failing job's ranks on this machine get ``SIGTERM``, after
:data:`_TOLD_GRACE` seconds when a rank aborted (it told the others first, and those
waiting for it end on their own with their own error); ranks on other machines notice at
their next collective (the aborting rank's exit notice, or their group's timeout).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import sys
import threading
import time

__all__ = ["Manager", "main", "process_mapping"]


def process_mapping(nodes: list[str]) -> str:
    """PMI's ``PMI_process_mapping`` value for ranks on machines ``nodes`` (one name per
    rank, in rank order): ``(vector,(node,1,count),...)``, one triple per run of
    consecutive ranks on one machine, machines numbered in order of first appearance.

    Examples
    --------
    >>> process_mapping(["a", "a", "b", "b"])
    '(vector,(0,1,2),(1,1,2))'
    >>> process_mapping(["a", "b", "a"])
    '(vector,(0,1,1),(1,1,1),(0,1,1))'
    """
    ids: dict[str, int] = {}
    runs: list[list[int]] = []
    for name in nodes:
        node = ids.setdefault(name, len(ids))
        if runs and runs[-1][0] == node:
            runs[-1][1] += 1
        else:
            runs.append([node, 1])
    return "(vector," + ",".join(f"({node},1,{count})" for node, count in runs) + ")"


def _fields(line: str) -> dict[str, str]:
    out = {}
    for token in line.split():
        key, _, value = token.partition("=")
        out[key] = value
    return out


class Manager:
    """The job's state: the ranks' hellos, the key-value space, the barrier and the
    connections of the ranks' MPI libraries."""

    def __init__(self, size: int, timeout: float) -> None:
        self.size, self.timeout = size, timeout
        self.cond = threading.Condition()
        self.hellos: dict[int, tuple[str, int]] = {}  # rank -> (node, pid)
        self.kvs: dict[str, str] = {}
        self.arrived = 0  # at the barrier
        self.generation = 0
        self.clients: list[socket.socket] = []
        self.joined = 0  # PMI connections made
        self.finished = 0  # PMI connections closed after finalize
        self.failed: str | None = None
        self.aborting: int | None = None  # the rank that called MPI_Abort
        self.aborting_conn: socket.socket | None = None  # its PMI connection
        # Ranks whose program ended (they said so before MPI_Finalize), and those of them
        # let out of its barrier after the job failed: they end on their own.
        self.leaving: set[int] = set()
        self.released: set[int] = set()
        self.stop = True
        self.started = time.monotonic()
        self.kvsname = f"tensorcore_{socket.gethostname()}_{os.getpid()}_{time.time_ns()}"

    # -- the hello -----------------------------------------------------------------------
    def hello(self, f: dict[str, str]) -> str:
        try:
            rank, size, pid = int(f["rank"]), int(f["size"]), int(f["pid"])
            node = f["node"]
        except (KeyError, ValueError):
            return "cmd=tensorcore_hello_ack rc=1 msg=malformed_hello"
        with self.cond:
            if size != self.size:
                return (f"cmd=tensorcore_hello_ack rc=1 msg=rank_{rank}_says_world_size_{size}_"
                        f"but_rank_0_says_{self.size}")  # fmt: skip
            if not 0 <= rank < self.size:
                return f"cmd=tensorcore_hello_ack rc=1 msg=rank_{rank}_is_not_in_0..{self.size - 1}"
            if rank in self.hellos:
                return f"cmd=tensorcore_hello_ack rc=1 msg=two_processes_say_they_are_rank_{rank}"
            self.hellos[rank] = (node, pid)
            self.cond.notify_all()
            # The answer waits for every rank (the rendezvous): a rank that never comes
            # makes the others' init_process_group raise, before MPI starts.
            if not self.cond.wait_for(lambda: len(self.hellos) == self.size, self._left()):
                joined = len(self.hellos)
                self.fail("ranks missing", stop=False)
                return (f"cmd=tensorcore_hello_ack rc=2 joined={joined} "
                        f"msg=timed_out_after_{self.timeout:g}_seconds")  # fmt: skip
        return "cmd=tensorcore_hello_ack rc=0"

    def _mapping(self) -> str | None:
        """``PMI_process_mapping`` once every rank said hello (None on a timeout)."""
        with self.cond:
            if not self.cond.wait_for(lambda: len(self.hellos) == self.size, self._left()):
                return None
            return process_mapping([self.hellos[r][0] for r in range(self.size)])

    def _left(self) -> float:
        return max(0.0, self.timeout - (time.monotonic() - self.started))

    # -- PMI-1 ---------------------------------------------------------------------------
    def answer(self, f: dict[str, str]) -> str | None:
        """The reply to one PMI-1 command (None: no reply, the job is over)."""
        cmd = f.get("cmd", "")
        if cmd == "initack":  # a PMI_PORT client names itself (PMI_ID: its rank)
            rank = f.get("pmiid", "-1")
            return (f"cmd=initack rc=0\ncmd=set size={self.size}\ncmd=set rank={rank}\n"
                    "cmd=set debug=0")  # fmt: skip
        if cmd == "init":
            return "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0"
        if cmd == "get_maxes":
            return "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024"
        if cmd == "get_appnum":
            return "cmd=appnum rc=0 appnum=0"
        if cmd == "get_my_kvsname":
            # Unique per job: MPICH names its shared-memory segments after it, and a job
            # must never attach to another's (one still running, or one that crashed).
            return f"cmd=my_kvsname rc=0 kvsname={self.kvsname}"
        if cmd == "get_universe_size":
            return f"cmd=universe_size rc=0 size={self.size}"
        if cmd == "put":
            with self.cond:
                self.kvs[f.get("key", "")] = f.get("value", "")
            return "cmd=put_result rc=0"
        if cmd == "get":
            key = f.get("key", "")
            if key == "PMI_process_mapping":
                value = self._mapping()
                if value is None:
                    self.fail(f"timed out after {self.timeout:g}s waiting for all ranks to join")
                    return None
            else:
                with self.cond:
                    value = self.kvs.get(key)
            if value is None:
                return "cmd=get_result rc=-1 msg=key_not_found"
            return f"cmd=get_result rc=0 value={value}"
        if cmd == "barrier_in":
            with self.cond:
                if self.failed is not None:
                    return self._release(f)
                generation = self.generation
                self.arrived += 1
                if self.arrived == self.size:
                    self.arrived, self.generation = 0, generation + 1
                    self.cond.notify_all()
                elif not self.cond.wait_for(
                    lambda: self.generation != generation or self.failed is not None,
                    self._barrier_wait(),
                ):
                    self.fail(f"timed out after {self.timeout:g}s waiting at a barrier")
                if self.failed is not None:
                    return self._release(f)
            return "cmd=barrier_out rc=0"
        if cmd == "finalize":
            return "cmd=finalize_ack rc=0"
        if cmd == "abort":
            self.fail(f"a rank called MPI_Abort (exit code {f.get('exitcode', '?')})")
            return None
        return f"cmd={cmd}_result rc=-1 msg=unsupported_by_tensorcore_pmi_server"

    def _release(self, f: dict[str, str]) -> str | None:
        """The answer to a rank at a barrier once the job failed: None (no answer, the
        connection closes), unless the rank said it is leaving (its program ended, and it
        waits for the others in ``MPI_Finalize``'s barrier): that one is let out, to end
        on its own with its own exit status (as a PyTorch rank whose program ended does),
        rather than be stopped. (Called with the lock held; ``f`` carries the rank, from
        :meth:`serve`.)"""
        rank = f.get("_rank")
        if rank is None or int(rank) not in self.leaving:
            return None
        self.released.add(int(rank))
        return "cmd=barrier_out rc=0"

    def _barrier_wait(self) -> float | None:
        # Before every rank has joined, the start-up timeout applies; after that a barrier
        # (MPI_Finalize's, a communicator's creation) waits as long as the ranks do.
        return self._left() if self.joined < self.size else None

    def serve(self, conn: socket.socket) -> None:
        """One connection: a hello, or a rank's MPI library for its whole life."""
        reader = conn.makefile("rb")
        finalized = joined = False
        who = "a rank"
        try:
            while True:
                raw = reader.readline()
                if not raw:
                    break
                f = _fields(raw.decode("utf-8", "replace"))
                if f.get("cmd") == "tensorcore_hello":
                    conn.sendall((self.hello(f) + "\n").encode())
                    return
                if f.get("cmd") == "tensorcore_leaving":
                    with self.cond, contextlib.suppress(KeyError, ValueError):
                        self.leaving.add(int(f["rank"]))
                    conn.sendall(b"cmd=tensorcore_leaving_ack rc=0\n")
                    return
                if not joined:
                    joined = True
                    with self.cond:
                        self.joined += 1
                        self.clients.append(conn)
                if f.get("cmd") == "initack":
                    who = f"rank {f.get('pmiid', '?')}"
                if who != "a rank":
                    f["_rank"] = who.removeprefix("rank ")
                if f.get("cmd") == "abort" and who != "a rank":
                    # MPI_Abort ends its own process with its exit code: not signalled.
                    with self.cond:
                        if self.aborting is None:
                            self.aborting = int(who.removeprefix("rank "))
                            self.aborting_conn = conn
                reply = self.answer(f)
                if reply is None:
                    if f.get("cmd") == "abort":
                        # The aborting rank ends itself (with its exit code) after sending
                        # this: its connection stays open until it does (closing it under
                        # it makes its PMI client crash on the way out).
                        finalized = True  # (not a second failure)
                        reader.read()
                    return
                conn.sendall((reply + "\n").encode())
                if f.get("cmd") == "finalize":
                    finalized = True
        except OSError:
            pass
        finally:
            conn.close()
            if joined:
                if finalized:
                    with self.cond:
                        self.finished += 1
                        self.cond.notify_all()
                else:
                    self.fail(f"{who} ended without finalizing MPI (it died or was killed)")

    def stop_aborting_rank(self, grace: float) -> None:
        """SIGTERM to the rank that called ``MPI_Abort`` if it is still there after
        ``grace`` seconds (on this machine)."""
        here = self.hellos.get(0, (socket.gethostname(), 0))[0]
        node, pid = (
            self.hellos.get(self.aborting, ("", 0)) if self.aborting is not None else ("", 0)
        )
        if node != here or not pid or pid == os.getpid():
            return
        deadline = time.monotonic() + grace
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)

    # -- the end -------------------------------------------------------------------------
    def fail(self, why: str, stop: bool = True) -> None:
        """End the job: ``why`` it failed; ``stop``: whether its ranks must be stopped
        (not when they are told, before MPI starts)."""
        with self.cond:
            if self.failed is not None:
                return
            self.failed, self.stop = why, stop
            self.cond.notify_all()

    def done(self) -> bool:
        with self.cond:
            return self.failed is not None or self.finished == self.size

    def stop_ranks(self, grace: float = 0.0) -> None:
        """SIGTERM to this machine's ranks but the one that called ``MPI_Abort`` (which ends
        itself, with its exit code) and those let out of ``MPI_Finalize``; the others'
        connections are closed. With a ``grace`` (seconds), the ranks get that long to end
        on their own first: when a rank aborts, it tells the others (its exit notice, see
        ``_notice.py``), and those waiting for it in a collective end with their own error
        (exit status 1) at once; the signal is for those that do not."""
        here = self.hellos.get(0, (socket.gethostname(), 0))[0]
        deadline = time.monotonic() + grace
        while True:
            with self.cond:
                alive = {rank: pid for rank, (node, pid) in self.hellos.items()
                         if node == here and pid != os.getpid() and rank != self.aborting
                         and _alive(pid)}  # fmt: skip
                released = set(self.released)
            # (The ranks let out of MPI_Finalize need this server until they end.)
            if not alive or time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        for pid in (pid for rank, pid in alive.items() if rank not in released):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        for conn in list(self.clients):
            if conn is not self.aborting_conn:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)


#: How long the ranks of a job that a rank aborted get to end on their own (seconds).
_TOLD_GRACE = 2.0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    """Run the server (see the module's docstring); the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--timeout", type=float, default=1800.0)
    args = parser.parse_args(argv)
    try:
        if socket.has_dualstack_ipv6():
            listener = socket.create_server(("", args.port), family=socket.AF_INET6,
                                            dualstack_ipv6=True)  # fmt: skip
        else:
            listener = socket.create_server(("", args.port))
    except OSError as exc:
        print(f"error {exc}", flush=True)
        return 1
    print(f"listening {listener.getsockname()[1]}", flush=True)
    manager = Manager(args.size, args.timeout)
    listener.settimeout(0.2)
    while not manager.done():
        if manager.joined < manager.size and manager._left() == 0.0:
            # (Ranks that said hello are told so by their answers.)
            manager.fail(
                f"timed out after {args.timeout:g}s: {len(manager.hellos)} of {args.size} "
                f"ranks said hello, {manager.joined} started MPI",
                stop=len(manager.hellos) == args.size,
            )
            break
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        except OSError:
            break
        conn.settimeout(None)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=manager.serve, args=(conn,), daemon=True).start()
    listener.close()
    if manager.failed is not None:
        if manager.stop:
            print(f"tensorcore.distributed: the job failed: {manager.failed}; stopping its "
                  "ranks", file=sys.stderr, flush=True)  # fmt: skip
            manager.stop_ranks(grace=_TOLD_GRACE if manager.aborting is not None else 0.0)
            manager.stop_aborting_rank(grace=5.0)
        else:
            time.sleep(1.0)  # (the waiting ranks' answers go out from their threads)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
