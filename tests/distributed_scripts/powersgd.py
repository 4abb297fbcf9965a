"""PowerSGD hooks (run under mpiexec): before ``start_powerSGD_iter`` they train as plain
DDP; a rank as large as the matrices (or a gradient of rank one) reconstructs the exact
average; rank 1 on a general model approximates it, with error feedback and warm start; the
batched hook at full rank is exact; the state pickles without its group."""

import pickle
from datetime import timedelta

import tensorcore as tc
import tensorcore.distributed as dist
from tensorcore import nn
from tensorcore.distributed.algorithms.ddp_comm_hooks import default_hooks
from tensorcore.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as powerSGD
from tensorcore.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("mpi", timeout=timedelta(seconds=30))
r, n = dist.get_rank(), dist.get_world_size()
tc.manual_seed(0)
X, Y = tc.randn(8 * n, 5), tc.randn(8 * n, 3)
mine = slice(8 * r, 8 * r + 8)


def model_of(seed=1):
    tc.manual_seed(seed)
    return nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 3))


def train(hook=None, state=None, steps=4, cap=0.0005):
    model = DDP(model_of(), bucket_cap_mb=cap)
    if hook is not None:
        model.register_comm_hook(state, hook)
    opt = tc.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        opt.zero_grad()
        nn.functional.mse_loss(model(X[mine]), Y[mine]).backward()
        opt.step()
    return [p.detach().clone() for p in model.parameters()]


def max_diff(a, b):
    return max((x - y).abs().max().item() for x, y in zip(a, b, strict=True))


plain = train(default_hooks.allreduce_hook)

# Before start_powerSGD_iter: the plain all-reduce, bit for bit.
state = powerSGD.PowerSGDState(None, start_powerSGD_iter=10)
assert max_diff(train(powerSGD.powerSGD_hook, state), plain) == 0
assert state.iter == 4 and state.compression_stats() == (0, 0, 0), state.iter

# A rank as large as every matrix (and compression forced): P Q^T is the exact average.
state = powerSGD.PowerSGDState(
    None, matrix_approximation_rank=16, start_powerSGD_iter=2, min_compression_rate=0
)
full = max_diff(train(powerSGD.powerSGD_hook, state), plain)
assert full < 1e-5, full
rate, before, after = state.compression_stats()
assert before == 2 * (16 * 5 + 3 * 16), before  # (two compressed steps of both weights)
assert after == 2 * ((16 + 5) * 5 + (3 + 16) * 3), after
# (error feedback keeps, per bucket, the local gradient minus the approximated average)
assert set(state.error_dict) == set(state.p_memory_dict) == set(state.q_memory_dict)

# Rank 1 where the summed gradient has rank one (every rank multiplies the same input): exact.
tc.manual_seed(2)
x = tc.randn(1, 6)
targets = tc.randn(n, 4)


def one_step(hook=None, state=None):
    tc.manual_seed(3)
    model = DDP(nn.Linear(6, 4, bias=False))
    if hook is not None:
        model.register_comm_hook(state, hook)
    nn.functional.mse_loss(model(x), targets[r : r + 1]).backward()
    return [p.grad.clone() for p in model.parameters()]


state = powerSGD.PowerSGDState(
    None, matrix_approximation_rank=1, start_powerSGD_iter=2, min_compression_rate=0
)
state.iter = 2
exact = max_diff(one_step(powerSGD.powerSGD_hook, state), one_step())
assert exact < 1e-6, exact

# Rank 1 on the general model: an approximation that still trains, with the error fed back.
state = powerSGD.PowerSGDState(
    None, matrix_approximation_rank=1, start_powerSGD_iter=2, min_compression_rate=0
)
rank1 = train(powerSGD.powerSGD_hook, state, steps=6)
gap = max_diff(rank1, plain)
assert 0 < gap < 0.5, gap
assert state.iter == 6 and state.compression_stats()[0] > 1
assert any(e.abs().max().item() > 0 for e in state.error_dict.values())
# every rank ends with the same parameters (the hook averaged the same numbers everywhere)
for p in rank1:
    copies = [tc.empty_like(p) for _ in range(n)]
    dist.all_gather(copies, p)
    assert all(tc.equal(c, copies[0]) for c in copies)

# Without warm start nor error feedback: nothing kept between iterations.
state = powerSGD.PowerSGDState(
    None, start_powerSGD_iter=1, use_error_feedback=False, warm_start=False,
    min_compression_rate=0,
)  # fmt: skip
train(powerSGD.powerSGD_hook, state, steps=2)
assert not state.error_dict and not state.p_memory_dict and not state.q_memory_dict

# The batched hook: the bucket as one square matrix (zero-padded to side x side); at full
# rank, exact where the square has full rank (80 numbers: side 9, no zero row).
tc.manual_seed(4)
local = [tc.randn(80, dtype=tc.float64) for _ in range(n)]
state = powerSGD.PowerSGDState(None, matrix_approximation_rank=16, start_powerSGD_iter=2)
state.iter = 2
bucket = dist.GradBucket(0, local[r].clone(), [nn.Parameter(tc.zeros(80))], is_last=True)
got = powerSGD.batched_powerSGD_hook(state, bucket).wait()
batched = (got - sum(local) / n).abs().max().item()
assert batched < 1e-10, batched
assert state.compression_stats()[1:] == (80, 2 * 9 * 9) and state.iter == 3
state = powerSGD.PowerSGDState(None, matrix_approximation_rank=1, start_powerSGD_iter=2)
assert 0 < max_diff(train(powerSGD.batched_powerSGD_hook, state), plain) < 0.5

# The state pickles without its process group (a checkpoint), as PyTorch's.
state.process_group = dist.group.WORLD
back = pickle.loads(pickle.dumps(state))
assert back.process_group is None and back.iter == state.iter
assert back.error_dict.keys() == state.error_dict.keys()

try:
    powerSGD.PowerSGDState(None, start_powerSGD_iter=1)
except ValueError as exc:
    assert "start_powerSGD_iter" in str(exc), exc
else:
    raise AssertionError("start_powerSGD_iter=1 with error feedback was accepted")

print(f"rank {r} OK full {full:.1e} rank-one {exact:.1e} rank1 {gap:.2e} batched {batched:.1e}")
dist.destroy_process_group()
