"""A rank that leaves while a peer waits for it (``python exit_notice.py MODE``, under
``mpiexec -n 2`` or as two processes with ``RANK``/``WORLD_SIZE``, as torchrun starts
them): the peer fails within a second or two, naming the rank and the collective, not at
the group's timeout (a minute here). Modes: ``exit`` (rank 1 calls ``sys.exit(0)``),
``end`` (its script ends), ``destroy`` (it calls ``destroy_process_group``), ``recv``
(rank 0 waits in a ``recv`` from it), ``normal`` and ``normal-destroy`` (every rank
finishes: nothing fails, with and without ``destroy_process_group``).

Rank 0 prints what it caught and ends with ``sys.exit(7)``: a job whose ranks all end,
one of them after such a failure, must not hang either.
"""

import os
import sys
import time
from datetime import timedelta

import tensorcore as tc
import tensorcore.distributed as dist

mode = sys.argv[1]
dist.init_process_group("gloo" if "RANK" in os.environ else "mpi", timeout=timedelta(seconds=60))
r = dist.get_rank()
t = tc.ones(2)
dist.all_reduce(t)
if mode.startswith("normal"):
    dist.barrier()
    if mode == "normal-destroy":
        dist.destroy_process_group()
    print(f"rank {r} done", flush=True)
elif r == 1:
    if mode == "exit":
        sys.exit(0)
    if mode == "destroy":
        dist.destroy_process_group()
else:
    start = time.monotonic()
    try:
        if mode == "recv":
            dist.recv(t, src=1)
        else:
            dist.all_reduce(t)
    except RuntimeError as exc:
        took = time.monotonic() - start
        print(f"rank 0 after {took:.1f} s: {type(exc).__name__}: {exc}", flush=True)
        sys.exit(7)
    print("rank 0 finished its collective", flush=True)
