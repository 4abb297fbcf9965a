"""DDP and DistributedSampler (run under mpiexec): N steps of DDP on shards of a batch equal
N steps of single-process training on the full batch."""

from datetime import timedelta

import tensorcore as tc
import tensorcore.distributed as dist
from tensorcore import nn
from tensorcore.nn.parallel import DistributedDataParallel as DDP
from tensorcore.utils.data import DataLoader, TensorDataset
from tensorcore.utils.data.distributed import DistributedSampler

dist.init_process_group("mpi", timeout=timedelta(seconds=30))
r, n = dist.get_rank(), dist.get_world_size()


def close(a, b, atol=1e-6):
    return (a - b).abs().max().item() <= atol


def make_model(seed):
    tc.manual_seed(seed)
    return nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 3))


tc.manual_seed(0)
X, Y = tc.randn(8 * n, 5), tc.randn(8 * n, 3)

# Reference: one process, full batch (every rank computes it locally).
ref = make_model(1)
opt = tc.optim.SGD(ref.parameters(), lr=0.1)
for _ in range(3):
    opt.zero_grad()
    nn.functional.mse_loss(ref(X), Y).backward()
    opt.step()

# DDP: each rank starts from a different init (rank 0's is broadcast), takes its shard.
model = DDP(make_model(1 if r == 0 else 100 + r), bucket_cap_mb=0.0005)  # several buckets
assert len(model._buckets) > 1
opt = tc.optim.SGD(model.parameters(), lr=0.1)
sampler = DistributedSampler(TensorDataset(X, Y), shuffle=False)
loader = DataLoader(TensorDataset(X, Y), batch_size=8, sampler=sampler)
for _ in range(3):
    for xb, yb in loader:
        opt.zero_grad()
        nn.functional.mse_loss(model(xb), yb).backward()
        opt.step()
for (name, a), b in zip(ref.named_parameters(), model.module.parameters(), strict=True):
    assert close(a, b), (name, (a - b).abs().max())

# no_sync: two half-batches accumulated, the second synchronised = one full batch.
acc = DDP(make_model(2))
one = make_model(2)
half = X[r * 8 : (r + 1) * 8], Y[r * 8 : (r + 1) * 8]
with acc.no_sync():
    nn.functional.mse_loss(acc(half[0][:4]), half[1][:4]).backward()
local = [p.grad.clone() for p in acc.parameters()]
nn.functional.mse_loss(acc(half[0][4:]), half[1][4:]).backward()
(nn.functional.mse_loss(one(X[:4]), Y[:4]) * 0).backward()  # allocate grads
for p in one.parameters():
    p.grad = None
for k in range(n):
    for s in (slice(k * 8, k * 8 + 4), slice(k * 8 + 4, k * 8 + 8)):
        (nn.functional.mse_loss(one(X[s]), Y[s]) / n).backward()
for a, b, l in zip(one.parameters(), acc.parameters(), local, strict=True):
    assert close(a.grad, b.grad), (a.grad - b.grad).abs().max()
    assert n == 1 or not close(l, b.grad), "no_sync reduced"


# find_unused_parameters: a layer no rank uses keeps grad None; one rank 0 skips is averaged.
class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.never = nn.Linear(3, 3), nn.Linear(3, 3), nn.Linear(3, 3)

    def forward(self, x, use_b):
        return self.b(self.a(x)) if use_b else self.a(x)


m = DDP(Branchy(), find_unused_parameters=True)
m(tc.ones(2, 3), use_b=r != 0).sum().backward()
assert m.module.never.weight.grad is None
assert m.module.b.weight.grad is not None and m.module.a.weight.grad is not None
# Without the flag, as in PyTorch: the backward that leaves `never` without a gradient ends
# quietly; the next forward that synchronises raises, naming its parameters' indices.
strict = DDP(Branchy())
strict(tc.ones(2, 3), use_b=True).sum().backward()
with tc.no_grad():
    strict(tc.ones(2, 3), use_b=True)  # (no backward to prepare: nothing to say)
for _ in range(2):  # (and again: the reduction stays unfinished)
    try:
        strict(tc.ones(2, 3), use_b=True)
    except RuntimeError as exc:
        msg = str(exc)
        assert msg.startswith("Expected to have finished reduction in the prior iteration"), msg
        assert f"Parameter indices which did not receive grad for rank {r}: 4 5" in msg, msg
        assert "find_unused_parameters=True" in msg, msg
    else:
        raise AssertionError("an unused parameter went unnoticed")

# DistributedSampler: the shards cover the padded dataset, epochs reshuffle identically.
s = DistributedSampler(range(10), shuffle=True, seed=3)
s.set_epoch(1)
mine = list(s)
shards = [None] * n
gathered = [tc.zeros(len(mine), dtype=tc.int64) for _ in range(n)]
dist.all_gather(gathered, tc.tensor(mine))
allidx = sorted(i for g in gathered for i in g.tolist())
assert len(mine) == -(-10 // n) and set(allidx) == set(range(10)), allidx
s.set_epoch(2)
assert list(s) != mine or n == 1
dist.destroy_process_group()
print(f"rank {r} OK")
