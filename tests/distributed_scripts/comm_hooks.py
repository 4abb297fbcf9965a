"""DDP communication hooks (run under mpiexec): training with each of PyTorch's default hooks
equals (allreduce_hook) or is close to (fp16, bf16 compression) plain DDP; a hook of the
program's own sees PyTorch's GradBucket; registration errors are PyTorch's."""

from datetime import timedelta

import tensorcore as tc
import tensorcore.distributed as dist
from tensorcore import nn
from tensorcore.distributed.algorithms.ddp_comm_hooks import default_hooks
from tensorcore.futures import Future
from tensorcore.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("mpi", timeout=timedelta(seconds=30))
r, n = dist.get_rank(), dist.get_world_size()
tc.manual_seed(0)
X, Y = tc.randn(8 * n, 5), tc.randn(8 * n, 3)
mine = slice(8 * r, 8 * r + 8)


def train(hook=None, state=None, steps=4):
    tc.manual_seed(1)
    model = DDP(nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 3)),
                bucket_cap_mb=0.0005)  # fmt: skip
    assert len(model._buckets) > 1
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


plain = train()
same = max_diff(train(default_hooks.allreduce_hook), plain)
assert same < 1e-6, same
assert max_diff(train(default_hooks.allreduce_hook, dist.group.WORLD), plain) < 1e-6
fp16 = max_diff(train(default_hooks.fp16_compress_hook), plain)
bf16 = max_diff(train(default_hooks.bf16_compress_hook), plain)
assert 0 < fp16 < 1e-4 and fp16 < bf16 < 1e-3, (fp16, bf16)
wrapped = max_diff(train(default_hooks.fp16_compress_wrapper(default_hooks.allreduce_hook)), plain)
assert 0 < wrapped < 1e-4, wrapped

# A hook of one's own: it sees the buckets in order, ending with the last, and its own
# reduction (a SUM without the division) doubles the gradients on 2 ranks.
seen = []


def summing_hook(state, bucket: dist.GradBucket) -> Future:
    seen.append((bucket.index(), bucket.is_last(), len(bucket.parameters())))
    for g, p in zip(bucket.gradients(), bucket.parameters(), strict=True):
        assert g.shape == p.shape
    state["calls"] += 1
    return dist.all_reduce(bucket.buffer(), async_op=True).get_future()


state = {"calls": 0}
model = DDP(nn.Linear(5, 3), bucket_cap_mb=0.00005)
model.register_comm_hook(state, summing_hook)
nn.functional.mse_loss(model(X[mine]), Y[mine]).backward()
grads = [p.grad.clone() for p in model.parameters()]
k = len(model._buckets)
assert state["calls"] == k == 2 and [s[0] for s in seen] == list(range(k)), seen
assert [s[1] for s in seen] == [False] * (k - 1) + [True], seen
ref = nn.Linear(5, 3)
ref.load_state_dict(model.module.state_dict())
nn.functional.mse_loss(ref(X[mine]), Y[mine]).backward()
total = [p.grad.clone() for p in ref.parameters()]
for t in total:
    dist.all_reduce(t)
assert max_diff(grads, total) < 1e-6

# Registration errors, in PyTorch's words.
for bad, kind, words in [
    (3, TypeError, "Communication hook must be callable."),
    (lambda s, bucket: None, RuntimeError, "can only be called once."),
]:
    try:
        model.register_comm_hook(None, bad)
    except kind as exc:
        assert words in str(exc), exc
    else:
        raise AssertionError(f"{bad!r} was accepted")


def badly_annotated(state, bucket: int) -> Future:
    return Future()


try:
    DDP(nn.Linear(2, 2)).register_comm_hook(None, badly_annotated)
except ValueError as exc:
    assert "bucket annotation should be dist.GradBucket" in str(exc), exc
else:
    raise AssertionError("the annotation was accepted")

# A hook whose future holds the wrong thing is named at the end of backward.
wrong = DDP(nn.Linear(2, 2))


def wrong_hook(state, bucket):
    fut = Future()
    fut.set_result("nothing")
    return fut


wrong.register_comm_hook(None, wrong_hook)
try:
    wrong(tc.randn(3, 2)).sum().backward()
except RuntimeError as exc:
    assert "must hold the bucket's reduced buffer" in str(exc), exc
else:
    raise AssertionError("the hook's result was accepted")

print(f"rank {r} OK allreduce {same:.1e} fp16 {fp16:.2e} bf16 {bf16:.2e}", flush=True)
dist.destroy_process_group()
