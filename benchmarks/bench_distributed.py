"""all_reduce of float32 buffers (4 KiB .. 64 MiB): tensorcore.distributed vs raw mpi4py on
NumPy arrays, same process, same sizes. Run: ``mpiexec -n 2 python benchmarks/bench_distributed.py
[--quick]``; rank 0 prints the medians: ``tc`` is ``dist.all_reduce`` (with its shape and
dtype agreement check, one extra 16-byte all-reduce), ``tc-nocheck`` the process group's own
all-reduce (non-blocking MPI, polled).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from mpi4py import MPI

import tensorcore as tc
import tensorcore.distributed as dist


def median_time(fn, reps: int) -> float:
    comm = MPI.COMM_WORLD
    times = []
    for _ in range(reps):
        comm.Barrier()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def main() -> None:
    quick = "--quick" in sys.argv
    dist.init_process_group("mpi")
    pg = dist.GroupMember.WORLD
    comm = MPI.COMM_WORLD
    sizes = [4 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20]
    if quick:
        sizes = sizes[:4]
    rows = []
    for nbytes in sizes:
        n = nbytes // 4
        reps = 50 if nbytes <= (1 << 20) else 10
        a = np.ones(n, dtype=np.float32)
        t = tc.ones(n)
        raw = median_time(lambda a=a: comm.Allreduce(MPI.IN_PLACE, a, MPI.SUM), reps)
        ours = median_time(lambda t=t: dist.all_reduce(t), reps)
        # Without the frontend's agreement check: the process group's own all-reduce.
        bare = median_time(lambda t=t: pg.allreduce(t, dist.ReduceOp.SUM).wait(), reps)
        rows.append((nbytes, raw, ours, bare))
    if dist.get_rank() == 0:
        print(f"all_reduce float32, {dist.get_world_size()} processes (median seconds)")
        print(f"{'size':>10} {'mpi4py':>10} {'tc':>10} {'tc/mpi4py':>10} {'tc-nocheck':>11} "
              f"{'ratio':>6}")  # fmt: skip
        for nbytes, raw, ours, bare in rows:
            size = f"{nbytes >> 10} KiB" if nbytes < (1 << 20) else f"{nbytes >> 20} MiB"
            print(f"{size:>10} {raw:10.6f} {ours:10.6f} {ours / raw:10.2f} {bare:11.6f} "
                  f"{bare / raw:6.2f}")  # fmt: skip
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
