"""DDP with sparse gradients (run under mpiexec): an ``Embedding(sparse=True)`` model trained
for N steps on shards of a batch equals single-process training on the full batch; the
embedding's gradient stays sparse (all-gathered indices and values, not the dense buckets)."""

from datetime import timedelta

import tensorcore as tc
import tensorcore.distributed as dist
from tensorcore import nn
from tensorcore.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("mpi", timeout=timedelta(seconds=30))
r, n = dist.get_rank(), dist.get_world_size()


class Bag(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(30, 4, sparse=True)
        self.head = nn.Linear(4, 2)

    def forward(self, idx):
        return self.head(self.emb(idx).mean(1))


def make_model(seed):
    tc.manual_seed(seed)
    return Bag()


def close(a, b, atol=1e-6):
    return (a - b).abs().max().item() <= atol


def optimizers(m):
    # SparseAdam for the embedding (sparse gradient), SGD for the head (dense gradient).
    return [tc.optim.SparseAdam(list(m.emb.parameters()), lr=0.05),
            tc.optim.SGD(list(m.head.parameters()), lr=0.1)]  # fmt: skip


tc.manual_seed(0)
per = 6
# Rank k's shard looks up rows of its own range (and a few shared ones): the ranks' nnz differ.
X = tc.cat([tc.randint(0, 10 + 5 * k, (per, 3)) for k in range(n)])
Y = tc.randn(n * per, 2)

ref = make_model(1)
opts = optimizers(ref)
for _ in range(3):
    for o in opts:
        o.zero_grad()
    nn.functional.mse_loss(ref(X), Y).backward()
    for o in opts:
        o.step()

model = DDP(make_model(1 if r == 0 else 50 + r))
assert sum(b.sparse for b in model._buckets) == 1
opts = optimizers(model.module)
mine = slice(r * per, (r + 1) * per)
for _ in range(3):
    for o in opts:
        o.zero_grad()
    nn.functional.mse_loss(model(X[mine]), Y[mine]).backward()
    g = model.module.emb.weight.grad
    assert g.is_sparse and g.is_coalesced(), g.layout
    for o in opts:
        o.step()
for (name, a), b in zip(ref.named_parameters(), model.module.parameters(), strict=True):
    assert close(a, b), (name, (a - b).abs().max())

# no_sync: two half-shards accumulated (sparse + sparse), the second synchronised.
acc = DDP(make_model(2))
one = make_model(2)
half = per // 2
with acc.no_sync():
    nn.functional.mse_loss(acc(X[mine][:half]), Y[mine][:half]).backward()
nn.functional.mse_loss(acc(X[mine][half:]), Y[mine][half:]).backward()
for k in range(n):
    for s in (slice(k * per, k * per + half), slice(k * per + half, (k + 1) * per)):
        (nn.functional.mse_loss(one(X[s]), Y[s]) / n).backward()
for a, b in zip(one.parameters(), acc.parameters(), strict=True):
    ga = a.grad.to_dense() if a.grad.is_sparse else a.grad
    gb = b.grad.to_dense() if b.grad.is_sparse else b.grad
    assert close(ga, gb), (ga - gb).abs().max()


# An embedding one rank does not use (find_unused_parameters): the others' rows are averaged.
class Two(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Embedding(8, 2, sparse=True), nn.Embedding(8, 2, sparse=True)

    def forward(self, i, use_b):
        return self.a(i) + self.b(i) if use_b else self.a(i)


tc.manual_seed(3)
two = DDP(Two(), find_unused_parameters=True)
two(tc.tensor([1, 2]), use_b=r == 0).sum().backward()
gb = two.module.b.weight.grad
assert gb.is_sparse and close(gb.to_dense()[1], tc.full((2,), 1.0 / n)), gb.to_dense()
dist.destroy_process_group()
print(f"rank {r} OK")
