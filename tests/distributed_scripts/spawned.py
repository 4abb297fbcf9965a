"""Ranks that no ``mpiexec`` started, as PyTorch programs start them; the ranks meet at
``MASTER_ADDR:MASTER_PORT`` through rank 0's rendezvous (``tensorcore.distributed._wireup``).

``python spawned.py spawn N``: ``tc.multiprocessing.spawn`` runs N ranks of PyTorch's DDP
tutorial shape (``init_process_group("gloo", rank=, world_size=)``); each checks an
all_reduce and that one DDP step on its shard equals a plain step on the whole batch.
``python spawned.py raise 2``: rank 1 raises after the group is up while rank 0 waits in an
all_reduce; the parent's ``spawn`` must raise rank 1's error. ``python spawned.py exit 2``:
rank 1 ends with ``sys.exit(5)`` instead; ``spawn`` must report that exit status.
``python spawned.py env``: one rank, with ``RANK``/``WORLD_SIZE`` from the environment (as
``torchrun`` or a scheduler sets them), running the collectives check;
``python spawned.py env raise``: rank 1 raises while rank 0 waits for it, and both must end.
"""

import sys

import tensorcore as tc
import tensorcore.distributed as dist
import tensorcore.multiprocessing as mp
from tensorcore import nn
from tensorcore.nn.parallel import DistributedDataParallel as DDP


def collectives() -> None:
    r, n = dist.get_rank(), dist.get_world_size()
    t = tc.arange(50_000, dtype=tc.float32) * (r + 1)
    dist.all_reduce(t)
    assert float(t[3]) == 3 * n * (n + 1) / 2, t[:4]
    got = [tc.zeros(2, dtype=tc.int64) for _ in range(n)]
    dist.all_gather(got, tc.full((2,), r, dtype=tc.int64))
    assert [int(g[0]) for g in got] == list(range(n)), got


def ddp_step() -> None:
    r, n = dist.get_rank(), dist.get_world_size()
    tc.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 2))
    reference = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 2))
    reference.load_state_dict(model.state_dict())
    x, y = tc.randn(4 * n, 6), tc.randn(4 * n, 2)
    ddp = DDP(model)
    nn.functional.mse_loss(ddp(x[4 * r : 4 * r + 4]), y[4 * r : 4 * r + 4]).backward()
    nn.functional.mse_loss(reference(x), y).backward()
    for p, q in zip(model.parameters(), reference.parameters(), strict=True):
        assert p.grad is not None and q.grad is not None
        assert tc.allclose(p.grad, q.grad, atol=1e-6), (p.grad, q.grad)


def rank_main(rank: int, world_size: int, mode: str) -> None:
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    assert dist.get_backend() == "gloo" and dist.get_world_size() == world_size
    if mode in ("raise", "exit"):
        if rank == 1 and mode == "raise":
            raise ValueError("rank 1 failed on purpose")
        if rank == 1:
            sys.exit(5)
        dist.all_reduce(tc.ones(3))  # waits for rank 1, which never comes
    collectives()
    ddp_step()
    print(f"rank {rank} OK", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "env":
        dist.init_process_group("gloo")
        sub = dist.new_group([0, 1])
        print(f"backend {dist.get_backend()} {dist.get_backend(sub)}", flush=True)
        if sys.argv[2:] == ["raise"]:
            if dist.get_rank() == 1:
                raise ValueError("rank 1 failed on purpose")
            dist.all_reduce(tc.ones(3))  # waits for rank 1, which never comes
        collectives()
        print(f"rank {dist.get_rank()} OK", flush=True)
        dist.destroy_process_group()
    else:
        n = int(sys.argv[2])
        try:
            mp.spawn(rank_main, args=(n, mode), nprocs=n)
        except mp.ProcessRaisedException as exc:
            print(f"spawn raised: {exc}", flush=True)
            sys.exit(3)
        except mp.ProcessExitedException as exc:
            print(f"spawn: {exc} (exit_code={exc.exit_code})", flush=True)
            sys.exit(4)
    sys.exit(0)
