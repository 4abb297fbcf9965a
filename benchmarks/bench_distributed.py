"""all_reduce of float32 buffers (4 KiB .. 256 MiB): tensorcore.distributed vs raw mpi4py on
NumPy arrays, same process, same sizes. Run: ``mpiexec -n 2 python benchmarks/bench_distributed.py
[--quick]`` (``--quick`` stops at 16 MiB); rank 0 prints the medians: ``tc`` is
``dist.all_reduce`` as a program calls it (its shape and dtype agreement check included, one
extra small all-reduce), ``tc-nocheck`` the same call with the check turned off
(``TENSORCORE_DISTRIBUTED_CHECK=0``, the process group made again).

The three are interleaved: each size is timed in :data:`ROUNDS` rounds of mpi4py, ``tc`` and
``tc-nocheck`` blocks, and the medians are taken over every round's repetitions, so that a
change of the machine's load during the run (other jobs on a shared machine) weighs on the
three alike instead of on whichever ran at the time.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

import numpy as np
from mpi4py import MPI

import tensorcore as tc
import tensorcore.distributed as dist

ROUNDS = 4


def times_of(fn: Callable[[], object], reps: int) -> list[float]:
    comm = MPI.COMM_WORLD
    times = []
    for _ in range(reps):
        comm.Barrier()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def reps_for(nbytes: int) -> int:
    """Repetitions per round."""
    return 100 if nbytes <= (64 << 10) else 16 if nbytes <= (1 << 20) else 3


def time_raw(a: np.ndarray, reps: int) -> list[float]:
    comm = MPI.COMM_WORLD
    comm.Allreduce(MPI.IN_PLACE, a, MPI.SUM)  # untimed, as for tc below
    return times_of(lambda: comm.Allreduce(MPI.IN_PLACE, a, MPI.SUM), reps)


def time_tc(t: tc.Tensor, reps: int, check: bool) -> list[float]:
    os.environ["TENSORCORE_DISTRIBUTED_CHECK"] = "1" if check else "0"
    dist.init_process_group("mpi")
    # Untimed: the first collective on a new communicator, and a program's first call on a
    # tensor (which prepares it: _plan.py).
    dist.all_reduce(t)
    out = times_of(lambda: dist.all_reduce(t), reps)
    dist.destroy_process_group()
    return out


def median(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main() -> None:
    quick = "--quick" in sys.argv
    comm = MPI.COMM_WORLD
    sizes = [4 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20, 256 << 20]
    if quick:
        sizes = sizes[:4]
    rows = []
    for nbytes in sizes:
        a = np.ones(nbytes // 4, dtype=np.float32)
        t = tc.ones(nbytes // 4)
        reps = reps_for(nbytes)
        raw: list[float] = []
        checked: list[float] = []
        bare: list[float] = []
        for _ in range(ROUNDS):
            raw += time_raw(a, reps)
            checked += time_tc(t, reps, check=True)
            bare += time_tc(t, reps, check=False)
        rows.append((nbytes, median(raw), median(checked), median(bare)))
        del a, t
    if comm.Get_rank() == 0:
        print(f"all_reduce float32, {comm.Get_size()} processes (median microseconds)")
        head = ("size", "mpi4py", "tc", "tc/mpi4py", "tc-nocheck", "ratio")
        print("{:>8} {:>10} {:>10} {:>9} {:>10} {:>6}".format(*head))
        for nbytes, r, c, b in rows:
            size = f"{nbytes >> 10} KiB" if nbytes < (1 << 20) else f"{nbytes >> 20} MiB"
            print(f"{size:>8} {r * 1e6:10.1f} {c * 1e6:10.1f} {c / r:9.2f} {b * 1e6:10.1f} "
                  f"{b / r:6.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
