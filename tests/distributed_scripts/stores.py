"""Stores shared by processes, and ranks that meet through one (no mpiexec, no MASTER_ADDR).

``python stores.py file N DIR``: ``tc.multiprocessing.spawn`` runs N ranks that first use a
``FileStore`` in DIR together (counters, a compare-and-set race, a blocking ``get`` of a key
another rank sets late, deletion), then call ``init_process_group("gloo",
init_method="file://DIR/rdzv", rank=, world_size=)`` and run collectives and a DDP step.
``python stores.py store N DIR``: the same through ``init_process_group(store=FileStore)``;
``python stores.py tcp N PORT``: through ``store=TCPStore(...)`` with rank 0 its master.
"""

import os
import sys
import time
from datetime import timedelta

from spawned import collectives, ddp_step

import tensorcore.distributed as dist
import tensorcore.multiprocessing as mp


def share_a_file_store(rank: int, n: int, path: str) -> None:
    store = dist.FileStore(path, n)
    store.set_timeout(timedelta(seconds=20))
    # Every rank adds its share at once: the adds are atomic.
    for _ in range(20):
        store.add("count", rank + 1)
    # Exactly one rank wins the compare-and-set race for "leader".
    won = store.compare_set("leader", "", str(rank)) == str(rank).encode()
    store.add("winners", int(won))
    store.set(f"ready/{rank}", "1")
    store.wait([f"ready/{r}" for r in range(n)])
    assert store.add("winners", 0) == 1, store.get("winners")
    assert int(store.get("count")) == 20 * n * (n + 1) // 2, store.get("count")
    # A blocking get of a key that the last rank sets a little later.
    if rank == n - 1:
        time.sleep(0.3)
        store.set("late", b"\x00\xff")
    assert store.get("late") == b"\x00\xff"
    prefixed = dist.PrefixStore(f"rank{rank}", store)
    prefixed.set("mine", str(rank))
    store.wait([f"rank{r}/mine" for r in range(n)])
    assert [int(store.get(f"rank{r}/mine")) for r in range(n)] == list(range(n))
    store.set(f"done/{rank}", "1")
    store.wait([f"done/{r}" for r in range(n)])
    if rank == 0:
        assert store.delete_key("late") and not store.delete_key("late")
    # The wait for a key nobody sets ends with PyTorch's error.
    try:
        store.wait(["never"], timedelta(milliseconds=50))
    except dist.DistStoreError as exc:
        assert str(exc) == "Wait timeout", exc
    else:
        raise AssertionError("wait() did not time out")


def rank_main(rank: int, n: int, mode: str, where: str) -> None:
    if mode == "file":
        share_a_file_store(rank, n, os.path.join(where, "shared"))
        dist.init_process_group("gloo", init_method=f"file://{where}/rdzv", rank=rank,
                                world_size=n)  # fmt: skip
    elif mode == "store":
        store = dist.FileStore(os.path.join(where, "rdzv"), n)
        dist.init_process_group("gloo", store=store, rank=rank, world_size=n)
    else:
        store = dist.TCPStore("127.0.0.1", int(where), n, rank == 0)
        dist.init_process_group("gloo", store=store, rank=rank, world_size=n)
    assert dist.get_world_size() == n and dist.get_rank() == rank
    collectives()
    ddp_step()
    print(f"rank {rank} OK", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    for var in ("MASTER_ADDR", "MASTER_PORT"):
        os.environ.pop(var, None)  # (the ranks must meet through the store alone)
    mode, n, where = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    mp.spawn(rank_main, args=(n, mode, where), nprocs=n)
    if mode != "tcp":
        # The last of the n users of each file removed it.
        assert sorted(os.listdir(where)) == [], os.listdir(where)
    sys.exit(0)
