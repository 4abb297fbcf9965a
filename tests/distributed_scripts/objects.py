"""Collectives of Python objects (run under mpiexec)."""

from datetime import timedelta

import tensorcore.distributed as dist

dist.init_process_group("mpi", timeout=timedelta(seconds=20))
r, n = dist.get_rank(), dist.get_world_size()

gathered = [None] * n
dist.all_gather_object(gathered, {"rank": r, "name": "x" * (r * 100 + 1)})
assert gathered == [{"rank": i, "name": "x" * (i * 100 + 1)} for i in range(n)], gathered

got = [None, None, None] if r else [("config", 1.5), [1, 2, 3], None]
dist.broadcast_object_list(got, src=0)
assert got == [("config", 1.5), [1, 2, 3], None], got

out = [None] * n if r == n - 1 else None
dist.gather_object(r * 10, out, dst=n - 1)
assert out == ([i * 10 for i in range(n)] if r == n - 1 else None), out

mine = [None]
dist.scatter_object_list(mine, [f"to {i}" for i in range(n)] if r == 0 else None, src=0)
assert mine == [f"to {r}"], mine

try:
    dist.all_gather_object([None], r)
except ValueError as exc:
    assert "object_list has 1 entries" in str(exc)
else:
    raise AssertionError("a short object_list must raise")

import tensorcore as tc  # noqa: E402

# A ring exchange in one batch: every rank sends to the next and receives from the previous.
send_t = tc.full((3,), float(r))
recv_t = tc.empty(3)
ops = [
    dist.P2POp(dist.isend, send_t, (r + 1) % n),
    dist.P2POp(dist.irecv, recv_t, (r - 1) % n),
]
for w in dist.batch_isend_irecv(ops):
    w.wait()
assert recv_t.tolist() == [float((r - 1) % n)] * 3, recv_t

# The roots as ranks in a group: the odd ranks (or rank 0 alone, in a world of one rank).
odd = dist.new_group(list(range(1, n, 2)) or [0])
if r % 2 or n == 1:
    k = dist.get_world_size(odd)
    objs = [None] if r != 1 else ["from 1"]
    dist.broadcast_object_list(objs, group=odd, group_src=0)
    assert objs == ["from 1" if n > 1 else None], objs
    out = [None] * k if dist.get_rank(odd) == k - 1 else None
    dist.gather_object(r, out, group=odd, group_dst=k - 1)
    assert out is None or out == list(range(1, n, 2)) or n == 1, out
    mine = [None]
    dist.scatter_object_list(mine, list(range(k)) if dist.get_rank(odd) == 0 else None,
                             group=odd, group_src=0)  # fmt: skip
    assert mine == [dist.get_rank(odd)], mine

# Objects point to point: rank 0 sends to the last rank (a global rank, or group_dst).
if r == 0:
    dist.send_object_list(["config", {"lr": 0.1}, None], dst=n - 1)
    dist.send_object_list([r], group_dst=n - 1)
    for call, text in [
        (lambda: dist.send_object_list([1], dst=0), "Invalid destination rank"),
        (lambda: dist.send_object_list([1], dst=1, group_dst=1), "Can't specify both"),
        (lambda: dist.recv_object_list([None]), "Must specify global_rank or group_rank"),
    ]:
        try:
            call()
            raise AssertionError(text)
        except ValueError as exc:
            assert text in str(exc), exc
elif r == n - 1:
    got = [None, None, None]
    assert dist.recv_object_list(got, src=0) == 0
    assert got == ["config", {"lr": 0.1}, None], got
    one = [None]
    assert dist.recv_object_list(one, group_src=0) == 0 and one == [0], one

dist.destroy_process_group()
print(f"rank {r} OK", flush=True)
