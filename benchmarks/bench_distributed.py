"""all_reduce of float32 buffers (4 KiB .. 256 MiB): tensorcore.distributed vs raw mpi4py on
NumPy arrays, same process, same sizes. Run: ``mpiexec -n 2 python benchmarks/bench_distributed.py
[--quick]`` (``--quick`` stops at 16 MiB); rank 0 prints the medians: ``tc`` is
``dist.all_reduce`` with its shape and dtype agreement check (one extra 16-byte all-reduce),
``tc-nocheck`` the same call with the check turned off (``TENSORCORE_DISTRIBUTED_CHECK=0``, the
process group made again).
"""

from __future__ import annotations

import os
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


def reps_for(nbytes: int) -> int:
    return 400 if nbytes <= (64 << 10) else 50 if nbytes <= (1 << 20) else 8


def time_tc(sizes: list[int], check: bool) -> list[float]:
    os.environ["TENSORCORE_DISTRIBUTED_CHECK"] = "1" if check else "0"
    dist.init_process_group("mpi")
    out = []
    for nbytes in sizes:
        t = tc.ones(nbytes // 4)
        out.append(median_time(lambda t=t: dist.all_reduce(t), reps_for(nbytes)))
        del t
    dist.destroy_process_group()
    return out


def main() -> None:
    quick = "--quick" in sys.argv
    comm = MPI.COMM_WORLD
    sizes = [4 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20, 256 << 20]
    if quick:
        sizes = sizes[:4]
    raw = []
    for nbytes in sizes:
        a = np.ones(nbytes // 4, dtype=np.float32)
        raw.append(
            median_time(lambda a=a: comm.Allreduce(MPI.IN_PLACE, a, MPI.SUM), reps_for(nbytes))
        )
        del a
    checked = time_tc(sizes, check=True)
    bare = time_tc(sizes, check=False)
    if comm.Get_rank() == 0:
        print(f"all_reduce float32, {comm.Get_size()} processes (median microseconds)")
        head = ("size", "mpi4py", "tc", "tc/mpi4py", "tc-nocheck", "ratio")
        print("{:>8} {:>10} {:>10} {:>9} {:>10} {:>6}".format(*head))
        for nbytes, r, c, b in zip(sizes, raw, checked, bare, strict=True):
            size = f"{nbytes >> 10} KiB" if nbytes < (1 << 20) else f"{nbytes >> 20} MiB"
            print(f"{size:>8} {r * 1e6:10.1f} {c * 1e6:10.1f} {c / r:9.2f} {b * 1e6:10.1f} "
                  f"{b / r:6.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
