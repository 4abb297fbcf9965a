"""Failure behaviour (run under mpiexec -n 2): ``python failures.py MODE``."""

import sys
import time
from datetime import timedelta

import tensorcore as tc
import tensorcore.distributed as dist

mode = sys.argv[1]
dist.init_process_group("mpi", timeout=timedelta(seconds=2))
r = dist.get_rank()
if mode == "mismatch":
    # Shapes differ across ranks: a RuntimeError naming both, on every rank.
    try:
        dist.all_reduce(tc.ones(r + 2, dtype=tc.float32 if r else tc.float64))
    except RuntimeError as exc:
        msg = str(exc)
        assert "rank 0: all_reduce: (2,) float64" in msg, msg
        assert "rank 1: all_reduce: (3,) float32" in msg, msg
        print(f"rank {r} mismatch named")
    try:
        if r == 0:
            dist.broadcast(tc.ones(2), src=0)
        else:
            dist.all_reduce(tc.ones(2))
    except RuntimeError as exc:
        assert "broadcast" in str(exc) and "all_reduce" in str(exc), exc
        print(f"rank {r} collective mismatch named")
    dist.destroy_process_group()
elif mode == "nocheck":
    # TENSORCORE_DISTRIBUTED_CHECK=0: no agreement round trip before a collective.
    pg = dist.GroupMember.WORLD

    def refuse(description, what):
        raise AssertionError(f"the agreement check ran for {description}")

    pg.agree = refuse
    t = tc.ones(3)
    dist.all_reduce(t)
    dist.broadcast(t, src=0)
    assert t.tolist() == [2.0] * 3, t
    print(f"rank {r} ran without the check")
    dist.destroy_process_group()
elif mode == "nocheck-mismatch":
    # TENSORCORE_DISTRIBUTED_CHECK=0, and the ranks' small all-reduces differ: each rank starts
    # the persistent request of its own message's staging buffer, which MPI never matches
    # with the other's; every rank's call raises at the timeout instead of hanging.
    t = tc.ones(4)
    dist.all_reduce(t)  # a signature both ranks use
    start = time.monotonic()
    try:
        dist.all_reduce(t if r == 0 else tc.ones(5))
    except RuntimeError as exc:
        assert "timed out after 2 s" in str(exc), exc
        print(f"rank {r} timed out after {time.monotonic() - start:.1f} s", flush=True)
        raise  # the abort hook ends the job
    raise AssertionError(f"rank {r}: the mismatch went through")
elif mode == "timeout":
    # Rank 1 never joins: rank 0's collective raises within the timeout.
    if r == 0:
        start = time.monotonic()
        try:
            dist.all_reduce(tc.ones(4))
        except RuntimeError as exc:
            assert "timed out after 2 s" in str(exc), exc
            print(f"rank 0 timed out after {time.monotonic() - start:.1f} s", flush=True)
            raise  # the abort hook then ends rank 1 too
    else:
        time.sleep(60)
elif mode == "raise":
    # Rank 1 raises: the abort hook ends the job; rank 0 never finishes its collective.
    if r == 1:
        raise ValueError("rank 1 failed on purpose")
    dist.all_reduce(tc.ones(4))
    time.sleep(60)
