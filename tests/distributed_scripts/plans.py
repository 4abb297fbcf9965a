"""all_reduce's fast path (``_plan.py``, the MPI backend's persistent requests) against the
plain path (run under mpiexec): a tensor all-reduced again and again gets the results a
non-contiguous tensor gets (whose plan is made for one call); ranks whose plans differ (one
reuses its tensor, another makes a new one each call, or passes a strided view) still agree
on every call; a tensor whose memory or metadata changed is planned again; an ``async_op``
all-reduce on a planned tensor; more tensors than plans are kept; a disagreement after plans
were made.
"""

import os
from datetime import timedelta

import tensorcore as tc
import tensorcore.distributed as dist
from tensorcore.distributed import _plan
from tensorcore.distributed._group import _World

dist.init_process_group("mpi", timeout=timedelta(seconds=20))
r, n = dist.get_rank(), dist.get_world_size()
pg = dist.GroupMember.WORLD
check = os.environ.get("TENSORCORE_DISTRIBUTED_CHECK", "1") != "0"
Op = dist.ReduceOp


def persistent(t):
    """Whether ``t``'s plan has a persistent request (the MPI backend's fastest path; with
    the check off, its signature's staging buffer's)."""
    plan = _World.plans.get(id(t))
    return plan is not None and getattr(plan.backend, "req", None) is not None


def plain(values, op):
    """The all-reduce of ``values`` through the plain path: a non-contiguous tensor."""
    t = values.unsqueeze(1).expand(values.shape[0], 2).contiguous().t()[0]
    assert not t.is_contiguous()
    dist.all_reduce(t, op=op)
    return t.tolist()


# The same tensor, four calls (no request, one made, then started twice), every dtype and op.
CASES = [(dt, op) for dt in (tc.float32, tc.float64, tc.int64, tc.int32, tc.uint8,
                             tc.complex64, tc.bfloat16)
         for op in (Op.SUM, Op.PRODUCT, Op.MIN, Op.MAX, Op.AVG)
         if not (dt.is_complex and op in (Op.MIN, Op.MAX))]  # fmt: skip
CASES += [(tc.bool, op) for op in (Op.SUM, Op.PRODUCT, Op.MIN, Op.MAX)]
for dt, op in CASES:
    t = tc.zeros(5, dtype=dt)
    for step in range(4):
        values = (tc.arange(5) + r + step).to(dt) if dt is not tc.bool else tc.arange(5) % 2 == r
        t.copy_(values)  # same memory: the plan stays
        dist.all_reduce(t, op=op)
        assert t.tolist() == plain(values, op), (dt, op, step, t)
    half = dt in (tc.bfloat16,)  # reduced in a float32 copy: no backend plan
    assert persistent(t) == (not half), (dt, op)

# Ranks whose plans differ: rank 0 reuses one tensor, the others make a new one each call,
# then the other way round; the ranks still agree on every call, by the check's state.
kept = tc.zeros(4)
for step in range(6):
    mine = kept if (r == 0) == (step < 3) else tc.zeros(4)
    mine.copy_(tc.full((4,), float(r + step)))
    dist.all_reduce(mine)
    assert mine.tolist() == [float(sum(range(n)) + n * step)] * 4, (step, mine)

# One rank passes its planned tensor, the other a strided view of the same shape (legal, as
# in PyTorch): the view goes through a plan too, so that the ranks never mix a persistent
# request with a one-off one (MPI never matches them: this waited until the timeout).
for numel in (4, 20000):  # a staging buffer's size (check off), and above it
    kept = tc.zeros(numel)
    base = tc.zeros(numel, 2)
    for step in range(5):
        mine = kept if (r + step) % 2 else base[:, 1]
        mine.fill_(float(r + step))
        op = Op.AVG if step == 3 else Op.SUM
        if step == 4:
            dist.all_reduce(mine, op=op, async_op=True).wait()
        else:
            dist.all_reduce(mine, op=op)
        want = float(sum(range(n)) + n * step) / (n if op is Op.AVG else 1)
        assert mine.tolist() == [want] * numel, (numel, step, mine[:4])
        assert base[:, 0].tolist() == [0.0] * numel  # (the view's neighbours untouched)

# A tensor whose memory changes is planned again: t.data = another tensor.
t = tc.ones(3)
for _ in range(3):
    t.fill_(1.0)
    dist.all_reduce(t)
old = t.data
t.data = t + 1.0  # new memory, the same shape and stride tuples
assert t._shape is old._shape and t._storage is not old._storage
dist.all_reduce(t)
assert t.tolist() == [float(n * (n + 1))] * 3 and old.tolist() == [float(n)] * 3, (t, old)
t.data = tc.ones(6)
dist.all_reduce(t)
assert t.tolist() == [float(n)] * 6, t
view = t[1:4]  # a view of the same storage at another offset
view.fill_(2.0)
dist.all_reduce(view)
assert t.tolist() == [float(n)] + [2.0 * n] * 3 + [float(n)] * 2, t

# async_op on a planned tensor (its persistent request in flight), then a plain call.
t = tc.ones(8)
for step in range(4):
    t.fill_(float(step))
    work = dist.all_reduce(t, async_op=True)
    assert work.wait() and t.tolist() == [float(step * n)] * 8, (step, t)
t.fill_(1.0)
dist.all_reduce(t, op=Op.AVG)
assert t.tolist() == [1.0] * 8

# async_op all-reduces of one signature in flight together (with the check off they share a
# staging buffer: the second waits for the first), and a plain call before their wait().
ts = [tc.full((6,), float(i)) for i in range(3)]
works = [dist.all_reduce(t, async_op=True) for t in ts[:2]]
dist.all_reduce(ts[2])
for w in works:
    w.wait()
assert [t.tolist() for t in ts] == [[float(i * n)] * 6 for i in range(3)], ts

# More signatures than the group keeps staging buffers for (check off): the oldest are
# dropped, then made again, at the same call on every rank.
from tensorcore.distributed import _mpi  # noqa: E402

for _ in range(2):
    for k in range(1, _mpi._CHANNELS + 6):
        t = tc.ones(k, dtype=tc.float64)
        dist.all_reduce(t)
        assert t.tolist() == [float(n)] * k, (k, t)
assert len(pg._channels) <= _mpi._CHANNELS

# More tensors than plans kept: the oldest are dropped and their requests freed.
hot = [tc.zeros(2) for _ in range(40)]
for _ in range(3):
    for i, t in enumerate(hot):
        t.fill_(float(i))
        dist.all_reduce(t)
        assert t.tolist() == [float(i * n)] * 2
assert all(persistent(t) for t in hot)
cold = [tc.ones(2) for _ in range(_plan.LIMIT)]
for t in cold:
    dist.all_reduce(t)
    assert t.tolist() == [float(n)] * 2
assert len(_World.plans) == _plan.LIMIT and not any(persistent(t) for t in hot)
# The check's own request, and the staging buffers' (check off) of the signatures above.
assert len(pg._persistent) == 1 + len(pg._channels), len(pg._persistent)
assert bool(pg._channels) == (not check)

# A disagreement after plans were made: named on every rank, and the group goes on.
if check:
    t = tc.ones(4)
    for _ in range(3):
        t.fill_(1.0)
        dist.all_reduce(t)
    try:
        if r == 0:
            dist.all_reduce(t)
        else:
            dist.broadcast(t, src=0)
    except RuntimeError as exc:
        assert "all_reduce" in str(exc) and "broadcast" in str(exc), exc
    else:
        raise AssertionError("a disagreement went unnoticed")
    t.fill_(1.0)
    dist.all_reduce(t)
    assert t.tolist() == [float(n)] * 4, t

dist.destroy_process_group()
assert not _World.plans and not pg._persistent
print(f"rank {r} OK")
