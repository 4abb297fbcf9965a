"""DDP with ``find_unused_parameters=True`` (run under mpiexec): buckets start while backward
goes on, in bucket order on every rank, when a branch is unused on one rank only; the averaged
gradients equal the average of the ranks' local gradients; a parameter that gets a gradient
although the forward's graph does not reach it is an error; the forward decides whether its
backward synchronises (``no_sync``)."""

from datetime import timedelta

import tensorcore as tc
import tensorcore.distributed as dist
from tensorcore import nn
from tensorcore.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("mpi", timeout=timedelta(seconds=30))
r, n = dist.get_rank(), dist.get_world_size()


class Net(nn.Module):
    """Four layers in a chain, a branch that rank 0 skips, and a layer nobody uses."""

    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Linear(4, 8), nn.Linear(8, 8), nn.Linear(8, 8)
        self.branch, self.never = nn.Linear(8, 8), nn.Linear(8, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, x, use_branch):
        h = self.l3(self.l2(self.l1(x)).tanh()).tanh()
        if use_branch:
            h = h + self.branch(h)
        return {"out": self.head(h), "aux": [h.detach()]}


def local_grads(seed, x, use_branch):
    tc.manual_seed(seed)
    m = Net()
    m(x, use_branch)["out"].pow(2).sum().backward()
    return {name: p.grad for name, p in m.named_parameters()}


tc.manual_seed(0)
xs = [tc.randn(3, 4) for _ in range(n)]
use = r != 0
tc.manual_seed(7)
model = DDP(Net(), find_unused_parameters=True, bucket_cap_mb=300 / 2**20)  # ~one layer each
nb = len(model._buckets)
assert nb >= 5, nb

events = []
launch = model._launch


def recording_launch(bucket):
    events.append(("launch", model._buckets.index(bucket)))
    launch(bucket)


model._launch = recording_launch
names = {id(p): name for name, p in model.module.named_parameters()}
for p in model.module.parameters():  # after DDP's own hooks
    p.register_post_accumulate_grad_hook(lambda p: events.append(("grad", names[id(p)])))

for _ in range(2):  # the second time with the state the first left
    events.clear()
    model.zero_grad()
    model(xs[r], use)["out"].pow(2).sum().backward()
    launches = [i for kind, i in events if kind == "launch"]
    assert launches == list(range(nb)), (r, launches)  # every bucket, in bucket order
    last_grad = max(k for k, e in enumerate(events) if e[0] == "grad")
    first_launch = events.index(("launch", 0))
    # Buckets start while backward goes on (before the last gradient), not at its end.
    assert first_launch < last_grad, (r, events)
    orders = [None] * n
    dist.all_gather_object(orders, launches)
    assert all(o == launches for o in orders), orders

    # The average of every rank's local gradients (zeros where a rank did not use the
    # branch); `never`, used by no rank, keeps grad None.
    for name, p in model.module.named_parameters():
        if name.startswith("never."):
            assert p.grad is None, name
            continue
        mine = local_grads(7, xs[r], use)[name]
        want = tc.zeros_like(p) if mine is None else mine.clone()
        dist.all_reduce(want, op=dist.ReduceOp.AVG)
        assert (p.grad - want).abs().max().item() <= 1e-6, (name, p.grad, want)

# A parameter the forward's graph does not reach but that gets a gradient: an error, as in
# PyTorch (its bucket may have started with zeros for it).
bad = DDP(Net(), find_unused_parameters=True)
try:
    out = bad(xs[r], use_branch=False)["out"]
    (out.sum() + bad.module.branch.weight.sum()).backward()
except RuntimeError as exc:
    assert "mark a variable ready only once" in str(exc) and "branch.weight" in str(exc), exc
else:
    raise AssertionError("a parameter outside the forward's graph went unnoticed")

# The forward decides: a forward under no_sync, then a backward outside it, stays local.
tc.manual_seed(3)
acc = DDP(nn.Linear(4, 2))
with acc.no_sync():
    out = acc(xs[r])
out.sum().backward()
tc.manual_seed(3)
plain = nn.Linear(4, 2)
plain(xs[r]).sum().backward()
assert (acc.module.weight.grad - plain.weight.grad).abs().max().item() == 0.0
dist.barrier()
dist.destroy_process_group()
print(f"rank {r} OK")
