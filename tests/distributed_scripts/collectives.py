"""Every collective, for several dtypes and non-contiguous tensors (run under mpiexec)."""

from datetime import timedelta

import tensorcore as tc
import tensorcore.distributed as dist

dist.init_process_group("mpi", timeout=timedelta(seconds=20))
r, n = dist.get_rank(), dist.get_world_size()
DTYPES = [tc.float32, tc.float64, tc.int64, tc.int32, tc.uint8, tc.bool, tc.bfloat16,
          tc.float16, tc.complex64]  # fmt: skip


def full(shape, value, dt):
    return tc.full(shape, value).to(dt)


def noncontig(t):
    # The same values as ``t``, in a transposed (non-contiguous) view.
    return t.t().contiguous().t()


total = sum(range(1, n + 1))
for dt in DTYPES:
    for make in (lambda t: t, noncontig):
        t = make(full((2, 3), r + 1, dt))
        dist.all_reduce(t)
        want = True if dt is tc.bool else total
        assert t.tolist() == [[want] * 3] * 2, (dt, t)

        t = make(full((2, 3), r, dt)) if r else make(tc.arange(6).reshape(2, 3).to(dt))
        dist.broadcast(t, src=0)
        assert t.tolist() == tc.arange(6).reshape(2, 3).to(dt).tolist(), (dt, t)

        outs = [make(full((2, 3), -1, dt)) for _ in range(n)]
        dist.all_gather(outs, make(full((2, 3), r, dt)))
        assert [o.tolist() for o in outs] == [full((2, 3), i, dt).tolist() for i in range(n)]

        out = make(full((n * 2, 3), -1, dt).reshape(n * 2, 3))
        dist.all_gather_into_tensor(out, full((2, 3), r, dt))
        assert out.tolist() == tc.cat([full((2, 3), i, dt) for i in range(n)]).tolist()

        if dt is not tc.bool:
            out = make(full((2, 3), 0, dt))
            dist.reduce_scatter(out, [full((2, 3), i + 1, dt) for i in range(n)])
            assert out.tolist() == full((2, 3), (r + 1) * n, dt).tolist(), (dt, out)
            out = full((2,), 0, dt)
            dist.reduce_scatter_tensor(out, full((2 * n,), 1, dt))
            assert out.tolist() == full((2,), n, dt).tolist()

        t = make(full((2, 3), r + 1, dt))
        dist.reduce(t, dst=n - 1)
        if r == n - 1:
            assert t.tolist() == full((2, 3), True if dt is tc.bool else total, dt).tolist()
        else:
            assert t.tolist() == full((2, 3), r + 1, dt).tolist(), "reduce changed a sender"

        got = [make(full((2, 3), -1, dt)) for _ in range(n)] if r == 0 else None
        dist.gather(make(full((2, 3), r, dt)), got, dst=0)
        if r == 0:
            assert [g.tolist() for g in got] == [full((2, 3), i, dt).tolist() for i in range(n)]

        t = make(full((2, 3), -1, dt))
        parts = [full((2, 3), i, dt) for i in range(n)] if r == 0 else None
        dist.scatter(t, parts, src=0)
        assert t.tolist() == full((2, 3), r, dt).tolist()

# Reduction operators and AVG.
for op, want in [
    (dist.ReduceOp.PRODUCT, float(tc.arange(1, n + 1).prod())),
    (dist.ReduceOp.MIN, 1.0),
    (dist.ReduceOp.MAX, float(n)),
    (dist.ReduceOp.AVG, total / n),
]:
    t = tc.full((4,), float(r + 1))
    dist.all_reduce(t, op=op)
    assert t.tolist() == [want] * 4, (op, t)
t = tc.full((3,), r + 1, dtype=tc.bfloat16)
dist.all_reduce(t, op=dist.ReduceOp.MAX)
assert t.tolist() == [float(n)] * 3
# no mean of truth values (PyTorch's TypeError), refused on every rank before any message
for call in (
    lambda: dist.all_reduce(tc.ones(2, dtype=tc.bool), op=dist.ReduceOp.AVG),
    lambda: dist.reduce(tc.ones(2, dtype=tc.bool), dst=0, op="avg"),
):
    try:
        call()
        raise AssertionError("bool AVG was not refused")
    except TypeError as exc:
        assert "Cannot use ReduceOp.AVG with boolean inputs" in str(exc)

# async_op: a Work handle; the result is there after wait().
t = tc.ones(1000)
work = dist.all_reduce(t, async_op=True)
assert work.wait() is True and work.is_completed() and work.is_success()
assert t.tolist() == [float(n)] * 1000
works = [dist.broadcast(tc.ones(5) * r, src=0, async_op=True) for _ in range(3)]
assert all(w.wait() for w in works)
# Work.get_future(): a Future of what the collective wrote, for every collective.
t = tc.ones(3)
assert dist.all_reduce(t, async_op=True).get_future().wait()[0] is t
fut = dist.broadcast(tc.full((2,), float(r)), src=0, async_op=True).get_future()
assert fut.wait()[0].tolist() == [0.0, 0.0] and fut.done()
outs = [tc.empty(2) for _ in range(n)]
got = dist.all_gather(outs, tc.full((2,), float(r)), async_op=True).get_future().wait()
assert got is outs and [o.tolist() for o in got] == [[float(i)] * 2 for i in range(n)]
out = tc.empty(2)
fut = dist.reduce_scatter(out, [tc.ones(2)] * n, async_op=True).get_future()
assert fut.wait()[0] is out and out.tolist() == [float(n)] * 2
out = tc.empty(2 * n)
got = dist.all_gather_into_tensor(out, tc.ones(2), async_op=True).get_future().wait()
assert got[0] is out and out.tolist() == [1.0] * (2 * n)
assert dist.barrier(async_op=True).get_future().wait() == []

# send / recv in a ring, non-contiguous receive buffer.
buf = tc.zeros(3, 2).t()
send = dist.isend(tc.full((2, 3), float(r)), dst=(r + 1) % n)
sender = dist.recv(buf, src=None)
send.wait()
assert sender == (r - 1) % n and buf.tolist() == [[float(sender)] * 3] * 2, (sender, buf)

# Groups: ranks are global ranks, as in PyTorch.
evens = dist.new_group([i for i in range(n) if i % 2 == 0])
# (a new group's timeout is the backend's default, not the world group's 20 s: PyTorch's)
assert r % 2 or evens.timeout == dist.default_pg_timeout, evens.timeout
assert dist.new_group(timeout=timedelta(seconds=7)).timeout == timedelta(seconds=7)
if r % 2 == 0:
    t = tc.ones(2)
    dist.all_reduce(t, group=evens)
    assert t.tolist() == [float((n + 1) // 2)] * 2
    assert dist.get_process_group_ranks(evens) == list(range(0, n, 2))
else:
    assert dist.get_rank(evens) == -1 and dist.all_reduce(tc.ones(2), group=evens) is None

# all_to_all_single: equal blocks, uneven split sizes, trailing dims, non-contiguous, bf16.
for dt in (tc.float32, tc.int64, tc.bfloat16, tc.bool):
    x = (tc.arange(2 * n) + 100 * r).to(dt)
    out = full((2 * n,), -1, dt)
    dist.all_to_all_single(out, x)
    want = [100 * i + 2 * r + k for i in range(n) for k in range(2)]
    assert out.tolist() == tc.tensor(want).to(dt).tolist(), (dt, out)
# rank i sends i + j + 1 rows of 3 to rank j (rows tell the sender and the row)
ins = [r + j + 1 for j in range(n)]
outs = [i + r + 1 for i in range(n)]
x = tc.cat([tc.full((k, 3), float(10 * r + j)) for j, k in enumerate(ins)])
out = noncontig(tc.full((sum(outs), 3), -1.0))
work = dist.all_to_all_single(out, x, outs, ins, async_op=True)
assert work.wait()
want = tc.cat([tc.full((k, 3), float(10 * i + r)) for i, k in enumerate(outs)])
assert out.tolist() == want.tolist(), out
for bad, kind, text in [
    (lambda: dist.all_to_all_single(tc.empty(n), tc.ones(n), [1] * (n + 1)), RuntimeError,
     "Number of tensor splits not equal to group size"),
    (lambda: dist.all_to_all_single(tc.empty(n), tc.ones(n, dtype=tc.int64)), ValueError,
     "Invalid usage of tensors with different dtypes"),
    (lambda: dist.all_to_all_single(tc.empty(n + 1), tc.ones(n + 1)), ValueError,
     "world_size"),
    (lambda: dist.all_to_all([tc.empty(1)], [tc.ones(1)] * n), RuntimeError,
     f"must be a list of {n} tensors"),
]:  # fmt: skip
    try:
        bad()
        raise AssertionError(f"not refused: {text}")
    except kind as exc:
        assert text in str(exc), exc
# all_to_all: tensors of any shapes, one dtype
ins = [tc.full((j + 1,), float(10 * r + j)) for j in range(n)]
outs = [tc.empty(r + 1) for _ in range(n)]
dist.all_to_all(outs, ins)
assert [o.tolist() for o in outs] == [[float(10 * i + r)] * (r + 1) for i in range(n)], outs

# The contract's generic all-to-all (sends and receives), which a backend without its own
# gets, run here over MPI's point-to-point operations.
from tensorcore.backend import ProcessGroup  # noqa: E402

ins, outs = [r + j + 1 for j in range(n)], [i + r + 1 for i in range(n)]
x = tc.cat([tc.full((k,), float(10 * r + j)) for j, k in enumerate(ins)])
out = tc.full((sum(outs),), -1.0)
assert ProcessGroup.alltoall(dist.group.WORLD, out, x, outs, ins).wait()
assert (
    out.tolist() == tc.cat([tc.full((k,), float(10 * i + r)) for i, k in enumerate(outs)]).tolist()
)

# The deprecated coalesced collectives (PyTorch's FutureWarning).
import warnings  # noqa: E402

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    ts = [tc.ones(2), noncontig(tc.ones(2, 3))]
    dist.all_reduce_coalesced(ts, op=dist.ReduceOp.SUM)
    assert ts[0].tolist() == [float(n)] * 2 and ts[1].tolist() == [[float(n)] * 3] * 2
    got = [[tc.empty(2), tc.empty(1, 1)] for _ in range(n)]
    dist.all_gather_coalesced(got, [tc.full((2,), float(r)), tc.full((1, 1), -float(r))])
    assert [[g.tolist() for g in gs] for gs in got] == [
        [[float(i)] * 2, [[-float(i)]]] for i in range(n)
    ]
    assert dist.reduce_op.MAX is dist.ReduceOp.MAX
assert [w.category for w in caught] == [FutureWarning] * 3, caught
assert "all_reduce_coalesced` will be deprecated" in str(caught[0].message)

# Ranks between groups; group.WORLD is the default group.
assert dist.group.WORLD is dist.GroupMember.WORLD is not None
assert dist.get_global_rank(dist.group.WORLD, 1) == 1 == dist.get_group_rank(dist.group.WORLD, 1)
if r % 2 == 0:
    assert dist.get_global_rank(evens, group_rank=1 if n > 2 else 0) == (2 if n > 2 else 0)
    assert dist.get_group_rank(evens, global_rank=0) == 0
    for call, text in [
        (lambda: dist.get_group_rank(evens, 1), "Global rank 1 is not part of group"),
        (lambda: dist.get_global_rank(evens, n), f"Group rank {n} is not part of group"),
    ]:
        try:
            call()
            raise AssertionError(text)
        except ValueError as exc:
            assert text in str(exc), exc
# group_src / group_dst: the root as a rank in the group (PyTorch 2.13's keyword forms).
last = n - 1 if (n - 1) % 2 == 0 else n - 2  # the last even rank
if r % 2 == 0:
    t = tc.full((2,), float(r))
    dist.broadcast(t, group=evens, group_src=len(range(0, n, 2)) - 1)
    assert t.tolist() == [float(last)] * 2, t
    t = tc.ones(2)
    dist.reduce(t, group=evens, group_dst=0)
    assert t.tolist() == [float(len(range(0, n, 2))) if r == 0 else 1.0] * 2, t
    got = [tc.empty(1) for _ in range(0, n, 2)] if r == last else None
    dist.gather(tc.full((1,), float(r)), got, group=evens, group_dst=len(range(0, n, 2)) - 1)
    assert got is None or [g.item() for g in got] == [float(i) for i in range(0, n, 2)], got
    t = tc.empty(1)
    parts = [tc.full((1,), float(i)) for i in range(0, n, 2)] if r == 0 else None
    dist.scatter(t, parts, group=evens, group_src=0)
    assert t.item() == float(r), t
for call, kind, text in [
    (lambda: dist.broadcast(tc.ones(1)), ValueError, "Must specify global_rank or group_rank"),
    (lambda: dist.broadcast(tc.ones(1), src=0, group_src=0), ValueError, "Can't specify both"),
    (lambda: dist.send(tc.ones(1), group_dst=n), ValueError, f"group_dst={n} is not a rank"),
]:
    try:
        call()
        raise AssertionError(text)
    except kind as exc:
        assert text in str(exc), exc
# sort_ranks=False: the group's ranks in the list's order
rev = dist.new_group(list(range(n))[::-1], sort_ranks=False)
assert dist.get_rank(rev) == n - 1 - r == dist.get_group_rank(rev, r)
assert dist.get_global_rank(rev, 0) == n - 1 and dist.get_process_group_ranks(rev)[0] == n - 1
t = tc.full((1,), float(r))
dist.broadcast(t, group=rev, group_src=0)
assert t.item() == float(n - 1), t
dist.barrier(timeout=timedelta(seconds=10))
if n > 1:  # a ring as ranks in the world, with group_peer
    got = tc.empty(1)
    works = dist.batch_isend_irecv([
        dist.P2POp(dist.isend, tc.full((1,), float(r)), group_peer=(r + 1) % n),
        dist.P2POp(dist.irecv, got, group_peer=(r - 1) % n),
    ])  # fmt: skip
    assert all(w.wait() for w in works) and got.item() == float((r - 1) % n)
    if r == 0:
        dist.send(tc.ones(1), group_dst=1)
    elif r == 1:
        assert dist.recv(got, group_src=0) == 0 and got.item() == 1.0
try:
    dist.get_group_rank(dist.GroupMember.NON_GROUP_MEMBER, 0)
    raise AssertionError("a non-member group")
except ValueError as exc:
    assert "is not registered" in str(exc), exc

# Subgroups of consecutive ranks, and enumerated ones.
if n % 2 == 0:
    mine, groups = dist.new_subgroups(group_size=2)
    assert len(groups) == n // 2 and dist.get_process_group_ranks(mine) == [
        r - r % 2,
        r - r % 2 + 1,
    ]
    t = tc.ones(1)
    dist.all_reduce(t, group=mine)
    assert t.item() == 2.0
mine, groups = dist.new_subgroups_by_enumeration([[0], list(range(1, n))])
assert dist.get_process_group_ranks(mine) == ([0] if r == 0 else list(range(1, n)))
assert len(groups) == 2 and (groups[0] is dist.GroupMember.NON_GROUP_MEMBER) == (r != 0)
# split_group: ranks in the parent group. The odd global ranks, split from a parent of the
# odd ranks, into their halves; a rank in no split gets None.
pairs = dist.split_group(split_ranks=[list(range(0, n, 2)), list(range(1, n, 2))])
assert dist.get_process_group_ranks(pairs) == list(range(r % 2, n, 2))
t = tc.ones(1)
dist.all_reduce(t, group=pairs)
assert t.item() == len(range(r % 2, n, 2))
solo = dist.split_group(split_ranks=[[0]])
assert (solo is None) == (r != 0)
if n >= 4:
    odd = dist.new_group(list(range(1, n, 2)))
    if r % 2:
        half = dist.split_group(odd, [[1, 0]])  # the parent's ranks 0 and 1: global 1 and 3
        assert (half is not None) == (r in (1, 3))
        if half is not None:
            assert dist.get_process_group_ranks(half) == [1, 3]
            assert dist.get_global_rank(half, 1) == 3
            t = tc.tensor([r])
            dist.all_reduce(t, group=half)
            assert t.item() == 4
for call, text in [
    (lambda: dist.split_group(split_ranks=[]), "split_ranks cannot be None or empty"),
    (lambda: dist.split_group(split_ranks=[[0, n]]), "is not a rank of the parent group"),
    (lambda: dist.split_group(split_ranks=[[0], [0]]), "Rank 0 has appeared in both"),
    (lambda: dist.new_subgroups(group_size=n + 1), f"must not exceed the world size ({n})"),
    (lambda: dist.new_subgroups(group_size=0), "The arg 'group_size' (0) must be positive"),
    (lambda: dist.new_subgroups_by_enumeration([]), "cannot be empty"),
    (lambda: dist.new_subgroups_by_enumeration([[0, 1], [1]]), "Rank 1 has appeared in both"),
]:
    try:
        call()
        raise AssertionError(text)
    except ValueError as exc:
        assert text in str(exc), exc

# monitored_barrier: all arrive; then the last rank is late, and rank 0 names it (the others
# time out waiting for rank 0's answer); the late rank's token is the next barrier's.
dist.monitored_barrier(timeout=timedelta(seconds=20))
short = timedelta(seconds=0.5)
for wait_all in (False, True):
    late = [n - 1] if not wait_all else list(range(n // 2, n))
    if r not in late:
        try:
            dist.monitored_barrier(timeout=short, wait_all_ranks=wait_all)
            raise AssertionError("monitored_barrier passed without the late ranks")
        except dist.DistBackendError as exc:
            if r == 0:
                names = ", ".join(map(str, late))
                want = f"{names} failed to pass monitoredBarrier in 500 ms"
                want = ("Ranks " if wait_all else "Rank ") + want
                assert str(exc) == want, exc
            else:
                assert f"Rank {r} successfully reached monitoredBarrier" in str(exc), exc
        if r == 0:  # (the late ranks come once rank 0 has given up on them)
            for peer in late:
                dist.send(tc.ones(1), dst=peer)
    else:
        dist.recv(tc.empty(1), src=0)
    dist.monitored_barrier()
dist.barrier()
dist.destroy_process_group()
print(f"rank {r} OK")
