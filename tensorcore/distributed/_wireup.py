"""MPI for processes that no ``mpiexec`` started: the wiring through rank 0's PMI server.

PyTorch programs start their ranks themselves (``torch.multiprocessing.spawn``,
``torchrun``) and meet at ``MASTER_ADDR:MASTER_PORT`` (or a ``tcp://`` address). For MPI,
each such process would otherwise start as a world of its own. So, before mpi4py starts
MPI: rank 0 runs a PMI-1 process manager at that address (:mod:`._pmi_server`, a process of
its own), every rank says hello to it (its rank, machine and pid), and points its MPI
library at it (``PMI_PORT``, ``PMI_RANK``, ``PMI_SIZE``). ``MPI_Init`` then joins the
``world_size`` processes into one ``MPI.COMM_WORLD``, exactly as under ``mpiexec``.

This works with the MPI libraries that speak PMI-1 (MPICH, the ``mpich`` wheel, Intel MPI,
MVAPICH). Open MPI does not: its processes must be started by its ``mpirun``.
"""

from __future__ import annotations

import atexit
import os
import socket
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from ._errors import DistStoreError
from ._store import _rendezvous_error, master_address

__all__ = ["launched_by_mpi", "mpi_started", "node_name", "wire_up"]

#: Environment variables that some MPI launcher (hydra's ``mpiexec``, Open MPI's
#: ``mpirun``, Slurm's ``srun --mpi=...``, PMIx) gives the processes it starts.
_LAUNCHER_VARS = ("PMI_FD", "PMI_PORT", "PMI_RANK", "PMI_SIZE", "PMIX_RANK",
                  "OMPI_COMM_WORLD_RANK", "MPI_LOCALRANKID")  # fmt: skip

#: The store key under which rank 0 leaves its process manager's address ("host port").
_SERVER_KEY = "tensorcore/pmi_server"
_server: Any = None  # rank 0's PMI server process (kept so that it is not reaped early)
_manager: tuple[str, int, int] | None = None  # (host, port, rank) of this wired-up process


def launched_by_mpi() -> bool:
    """Whether an MPI launcher started this process (its variables are in the environment)."""
    return any(var in os.environ for var in _LAUNCHER_VARS)


def mpi_started() -> bool:
    """Whether mpi4py has started MPI in this process already (``mpi4py.MPI`` imported)."""
    mod = sys.modules.get("mpi4py.MPI")
    return mod is not None and bool(mod.Is_initialized())


def node_name() -> str:
    """The name of this process's machine in the process mapping: ``TENSORCORE_NODE_NAME``,
    or the host name. Ranks with the same name share memory (MPI's shared-memory transport);
    the others talk over the network."""
    return os.environ.get("TENSORCORE_NODE_NAME") or socket.gethostname()


def _start_server(port: int, size: int, timeout: timedelta) -> int:
    global _server
    script = Path(__file__).with_name("_pmi_server.py")
    cmd = [sys.executable, str(script), "--port", str(port), "--size", str(size),
           "--timeout", str(timeout.total_seconds())]  # fmt: skip
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    proc.stdout.close()
    if not line.startswith("listening "):
        proc.wait()
        raise RuntimeError(
            f"init_process_group(): rank 0 could not serve the rendezvous at port {port}: "
            f"{line.removeprefix('error ') or 'the server did not start'} (is another job "
            "using MASTER_PORT? pick a free port)"
        )
    _server = proc
    return int(line.split()[1])


def _hello(host: str, port: int, rank: int, size: int, timeout: timedelta) -> None:
    deadline = time.monotonic() + timeout.total_seconds()
    delay = 0.01
    while True:
        try:
            conn = socket.create_connection((host, port), timeout=10)
            break
        except OSError as exc:
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"init_process_group(): rank {rank} timed out after "
                    f"{timeout.total_seconds():g}s connecting to rank 0 at {host}:{port} "
                    f"({exc}); is rank 0 running, and MASTER_ADDR/MASTER_PORT (or the "
                    "tcp:// address) its address?"
                ) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.5)
    with conn:
        conn.sendall(
            f"cmd=tensorcore_hello rank={rank} size={size} node={node_name()} "
            f"pid={os.getpid()}\n".encode()
        )
        conn.settimeout(timeout.total_seconds() + 30)
        try:
            line = conn.makefile("rb").readline().decode()
        except OSError:
            line = ""
    reply = dict(r.partition("=")[::2] for r in line.split())
    if reply.get("rc") == "2":
        # PyTorch's TCPStore's words, for the same event.
        raise DistStoreError(
            f"Timed out after {timeout.total_seconds():g} seconds waiting for clients. "
            f"{reply.get('joined', '?')}/{size} clients joined."
        )
    if reply.get("rc") != "0":
        msg = reply.get("msg", "rank 0's rendezvous ended without an answer")
        raise ValueError(
            f"init_process_group(): rank 0's rendezvous refused rank {rank}: "
            f"{msg.replace('_', ' ')}"
        )


def wire_up(
    init_method: str | None, rank: int, world_size: int, timeout: timedelta, store: Any = None
) -> None:
    """Point this process's MPI library at rank 0's process manager, starting it on rank 0
    (see the module's docstring); call before mpi4py starts MPI. With a ``store`` (a
    ``tensorcore.distributed.Store``), rank 0 serves at a free port and leaves its address
    in the store under ``_SERVER_KEY`` for the others."""
    if rank in (-1, None):
        raise _rendezvous_error(
            "env:// rendezvous: environment variable RANK expected, but not set (give "
            "init_process_group rank=, or start the ranks with mpiexec -n N)"
        )
    if not 0 <= rank < world_size:
        raise ValueError(
            f"init_process_group(): rank={rank} is not a rank of a world of size {world_size}"
        )
    if store is not None:
        host, port = _meet_in_store(store, rank, world_size, timeout)
    else:
        host, port = master_address(
            init_method,
            hint=" (the ranks of a job started without mpiexec meet at MASTER_ADDR:MASTER_PORT; "
            "or start them with mpiexec -n N)",
        )
        if rank == 0:
            _start_server(port, world_size, timeout)
    _hello(host, port, rank, world_size, timeout)
    global _manager
    if _manager is None:
        # (Python's exit handlers run before mpi4py's MPI_Finalize.)
        atexit.register(leaving)
    _manager = (host, port, rank)
    # PMI_ID: MPICH's PMI_PORT clients ask the server for their rank and size by it.
    os.environ.update(PMI_PORT=f"{host}:{port}", PMI_ID=str(rank), PMI_RANK=str(rank),
                      PMI_SIZE=str(world_size))  # fmt: skip


def _meet_in_store(store: Any, rank: int, world_size: int, timeout: timedelta) -> tuple[str, int]:
    """Rank 0's process manager's address, through ``store``: rank 0 starts the manager at
    a free port and sets the key; the others wait for it (at most ``timeout``)."""
    if rank == 0:
        port = _start_server(0, world_size, timeout)
        store.set(_SERVER_KEY, f"{_reachable_address()} {port}")
        return "127.0.0.1", port
    store.wait([_SERVER_KEY], timeout)
    host, port = store.get(_SERVER_KEY).decode().split()
    return host, int(port)


def _reachable_address() -> str:
    """An address of this machine for the other ranks: ``MASTER_ADDR`` where it is set,
    else the address of the host name (127.0.0.1 where the name does not resolve)."""
    if "MASTER_ADDR" in os.environ:
        return os.environ["MASTER_ADDR"]
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"


def forget() -> None:
    """Take the PMI variables out of the environment once MPI has started: processes this
    one starts (data loader workers) must not join the job."""
    for var in ("PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE"):
        os.environ.pop(var, None)


def leaving() -> None:
    """Tell rank 0's process manager, if this process was wired up by it, that this rank's
    program has ended and it is about to finalize MPI (see ``_pmi_server.py``); errors are
    ignored (a manager that is gone has nothing to be told)."""
    if _manager is None:
        return
    host, port, rank = _manager
    try:
        with socket.create_connection((host, port), timeout=2) as conn:
            conn.sendall(f"cmd=tensorcore_leaving rank={rank}\n".encode())
            conn.makefile("rb").readline()
    except OSError:
        pass
