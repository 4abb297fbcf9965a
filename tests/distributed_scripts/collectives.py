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
dist.barrier()
dist.destroy_process_group()
print(f"rank {r} OK")
