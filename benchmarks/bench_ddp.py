"""A DistributedDataParallel training step against single-process training (the workload of
issue 14): an MLP 784-512-512-10, SGD with momentum, cross-entropy, global batch 256.

    mpiexec -n 2 python3 benchmarks/bench_ddp.py [--steps 30] [--bucket-cap-mb 25]

Rank 0 first times the single-process step on the full batch (256) while the other ranks
sleep (not spin); then every rank times the DDP step on its share (256 / N), then again with
``find_unused_parameters=True`` (a walk of the autograd graph after each forward, and one
more small all-reduce, of which parameters were used, at the end of backward). The
communication share is the time the step spends blocked on the gradient all-reduce: inside
``Work.wait`` (the end of backward, where DDP waits for its buckets) and in the MPI group's
waits for synchronous calls and for the agreement check's round trip (``_mpi.spin``),
measured by wrapping both.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from mpi4py import MPI

import tensorcore as tc
import tensorcore.distributed as dist
from tensorcore import nn
from tensorcore.distributed import _mpi
from tensorcore.nn.parallel import DistributedDataParallel as DDP

BATCH = 256


def make() -> nn.Module:
    tc.manual_seed(0)
    return nn.Sequential(
        nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)
    )


def timed_steps(model: nn.Module, x: tc.Tensor, y: tc.Tensor, steps: int) -> list[float]:
    opt = tc.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    times = []
    for _ in range(steps + 3):  # 3 warm-up steps
        t0 = time.perf_counter()
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
        times.append(time.perf_counter() - t0)
    return times[3:]


class Blocked:
    """Seconds spent blocked on communication: Work.wait and _mpi.spin."""

    total = 0.0

    @classmethod
    def wrap(cls, owner: object, name: str) -> None:
        inner = getattr(owner, name)

        def timed(*args: object, **kwargs: object) -> object:
            t0 = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                cls.total += time.perf_counter() - t0

        setattr(owner, name, timed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument(
        "--bucket-cap-mb", type=float, default=25.0, help="DDP's bucket_cap_mb (1: 4 buckets)"
    )
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    rank, world = comm.Get_rank(), comm.Get_size()
    rng = np.random.default_rng(0)
    x = tc.from_numpy(rng.standard_normal((BATCH, 784)).astype(np.float32))
    y = tc.from_numpy(rng.integers(0, 10, BATCH))

    single = None
    if rank == 0:
        single = float(np.median(timed_steps(make(), x, y, args.steps)))
    done = comm.Ibarrier()
    while not done.Test():  # the other ranks sleep while rank 0 runs alone
        time.sleep(0.005)

    dist.init_process_group("mpi")
    Blocked.wrap(dist.Work, "wait")
    # (a synchronous all-reduce and the agreement check wait in _mpi's spin)
    Blocked.wrap(_mpi, "spin")
    share = BATCH // world
    mine = slice(rank * share, (rank + 1) * share)
    runs = {}
    for label in ("", "find_unused_parameters=True"):
        model = DDP(make(), bucket_cap_mb=args.bucket_cap_mb, find_unused_parameters=bool(label))
        Blocked.total = 0.0
        times = timed_steps(model, x[mine], y[mine], args.steps)
        blocked = Blocked.total - 0.0
        # The warm-up steps' waits are in ``blocked`` too: scale to the timed steps.
        blocked *= args.steps / (args.steps + 3)
        step = float(np.median(times))
        mean = float(np.mean(times))
        runs[label] = comm.gather((step, mean, blocked / args.steps), root=0)
    dist.destroy_process_group()
    if rank == 0:
        assert single is not None
        print(f"MLP 784-512-512-10, SGD momentum, global batch {BATCH}, {args.steps} steps, "
              f"bucket_cap_mb={args.bucket_cap_mb:g}")  # fmt: skip
        print(f"  1 process, batch {BATCH}:          {single * 1e3:7.2f} ms / step (median)")
        for label, stats in runs.items():
            assert stats is not None
            if label:
                print(f"  {label}:")
            for r, (med, avg, wait) in enumerate(stats):
                print(
                    f"  DDP rank {r} of {world}, batch {share}:  {med * 1e3:7.2f} ms / step "
                    f"(median); blocked on communication {wait * 1e3:.2f} ms = "
                    f"{100 * wait / avg:.0f}% of the mean step"
                )
            print(f"  speed-up of the step: {single / stats[0][0]:.2f}x on {world} processes")


if __name__ == "__main__":
    main()
