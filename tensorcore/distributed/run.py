"""``python -m tensorcore.distributed.run --nproc N script.py [args]``: start N processes.

A thin wrapper of ``mpiexec -n N python script.py [args]`` (the ``mpiexec`` next to the
running Python first, as a virtual environment's ``mpich`` wheel installs it, then the one on
``PATH``). Under MPI the launcher gives every process its rank and the world size, so no
``RANK``, ``WORLD_SIZE`` or ``MASTER_ADDR`` is needed; each rank also gets the variables
PyTorch's ``torchrun`` sets (``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``,
and ``MASTER_ADDR``/``MASTER_PORT``, 127.0.0.1 and a free port unless given), for programs
written for it and communication backends that meet over the network (``env://``);
several machines or a scheduler use ``mpiexec`` or ``srun`` directly
(``docs/distributed.md``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Sequence

__all__ = ["find_mpiexec", "main", "mpiexec_command"]


def find_mpiexec() -> str | None:
    """The ``mpiexec`` to use: next to ``sys.executable`` first, then on ``PATH``.

    Examples
    --------
    >>> from tensorcore.distributed.run import find_mpiexec
    >>> found = find_mpiexec()
    >>> found is None or found.endswith("mpiexec")
    True
    """
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.exists(here):
        return here
    return shutil.which("mpiexec")


def mpiexec_command(nproc: int, script: str, args: Sequence[str], mpiexec: str) -> list[str]:
    """The command line that runs ``script`` with ``args`` on ``nproc`` processes.

    Examples
    --------
    >>> from tensorcore.distributed.run import mpiexec_command
    >>> mpiexec_command(2, "train.py", ["--epochs", "3"], "mpiexec")[:3]
    ['mpiexec', '-n', '2']
    """
    return [mpiexec, "-n", str(nproc), sys.executable, "-m", "tensorcore.distributed._as_rank",
            script, *args]  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse ``--nproc N script [args]``, run mpiexec, return its exit status.
    With more than one process and no ``OMP_NUM_THREADS`` in the environment, each process
    gets ``OMP_NUM_THREADS=1`` (as with torchrun), which NumPy's BLAS and
    ``tensorcore.get_num_threads`` read."""
    parser = argparse.ArgumentParser(
        prog="python -m tensorcore.distributed.run",
        description="Run a tensorcore.distributed program on N processes of this machine "
        "(wraps mpiexec -n N python script.py).",
    )
    parser.add_argument("--nproc", "--nproc-per-node", "--nproc_per_node", type=int,
                        default=1, help="number of processes (default 1)")  # fmt: skip
    # torchrun's other options of a one-machine run, so that its command lines work here.
    parser.add_argument("--standalone", action="store_true", help="accepted (torchrun's)")
    parser.add_argument("--nnodes", default="1",
                        help="1 (several machines: mpiexec -hosts or srun directly)")  # fmt: skip
    parser.add_argument("--master_addr", "--master-addr",
                        help="MASTER_ADDR of every rank (default: MASTER_ADDR, else 127.0.0.1), "
                        "for env:// rendezvous (MPI needs none)")  # fmt: skip
    parser.add_argument("--master_port", "--master-port",
                        help="MASTER_PORT of every rank (default: MASTER_PORT, else a free "
                        "port)")  # fmt: skip
    for flag in ("rdzv_backend", "rdzv_endpoint", "rdzv_id"):
        parser.add_argument(f"--{flag}", f"--{flag.replace('_', '-')}",
                            help="accepted (torchrun's); MPI needs no rendezvous")  # fmt: skip
    parser.add_argument("script", help="the Python program each process runs")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the program's arguments")
    ns = parser.parse_args(argv)
    if ns.nproc < 1:
        parser.error(f"--nproc must be at least 1, got {ns.nproc}")
    if str(ns.nnodes) not in ("1", "1:1"):
        parser.error(
            f"--nnodes={ns.nnodes}: this launcher starts the processes of one machine; for "
            "several, run mpiexec -n N -hosts a,b python script.py (or srun), as "
            "docs/distributed.md shows"
        )
    mpiexec = find_mpiexec()
    if mpiexec is None:
        print(
            "python -m tensorcore.distributed.run: no mpiexec next to the Python interpreter "
            "nor on PATH; install one with: pip install mpich mpi4py",
            file=sys.stderr,
        )
        return 2
    env = dict(os.environ)
    if ns.nproc > 1 and "OMP_NUM_THREADS" not in env:
        # As torchrun: N processes that each start a BLAS thread per core oversubscribe it.
        env["OMP_NUM_THREADS"] = "1"
        print(
            "python -m tensorcore.distributed.run: OMP_NUM_THREADS is set to 1 in each process "
            "(so that the processes' BLAS threads do not oversubscribe the cores); set it "
            "yourself to tune it",
            file=sys.stderr,
        )
    # As torchrun: the address of an env:// rendezvous, which a communication backend that
    # meets over the network (and a program's own TCPStore) reads; MPI itself needs none.
    env["MASTER_ADDR"] = ns.master_addr or env.get("MASTER_ADDR") or "127.0.0.1"
    env["MASTER_PORT"] = str(ns.master_port or env.get("MASTER_PORT") or _free_port())
    return subprocess.call(mpiexec_command(ns.nproc, ns.script, ns.args, mpiexec), env=env)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


if __name__ == "__main__":
    raise SystemExit(main())
