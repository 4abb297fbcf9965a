"""The ``nccl`` backend, one process per rank: ``python nccl_collectives.py MODE``, started
by ``tests/test_nccl.py`` with the fake CuPy (``tests/fake_cupy``) first on ``PYTHONPATH``,
or on a GPU machine with the real one.

On the fake, CUDA tensors live in host memory and the fake NCCL moves their bytes between the
processes: every line of ``tensorcore_cuda/nccl.py`` (and its ``_nccl_*.py``) runs, but no
GPU. That checks the backend's logic (rendezvous, dtype and op mapping, conversions, groups,
streams and events, Work), not NCCL.

Modes, by how the ranks meet: ``env`` (``MASTER_ADDR``...; ``backend=None`` with CUDA as
the default device), ``tcp`` (``init_method="tcp://..."``), ``file`` (``init_method="file://$TEST_FILE"``:
the unique id through a ``FileStore``, no ``MASTER_ADDR``), ``mpi`` (started by mpiexec,
no ``MASTER_ADDR``); by what goes wrong: ``timeout`` and ``watchdog`` (rank 1 never joins;
``wait()`` blocks the host, or the group's watchdog acts), ``raise`` (rank 1 raises),
``samedevice`` (every rank on device 0, which NCCL refuses). Every other mode gives
each rank a GPU of its own, from ``LOCAL_RANK`` (or MPICH's ``MPI_LOCALRANKID``), as a
torchrun program does.
"""

import contextlib
import os
import sys
import time
from datetime import timedelta

from cupy.cuda import nccl

import tensorcore as tc
import tensorcore.distributed as dist

#: The fake records the NCCL calls it gets; real CuPy does not.
FAKE = hasattr(nccl, "calls")
calls = nccl.calls if FAKE else []
OLD_NCCL = nccl.get_version() < 21000  # before 2.10: no NCCL_AVG

mode = sys.argv[1]
timeout = timedelta(seconds=3 if mode in ("timeout", "watchdog", "raise") else 30)
if mode == "mpi":
    # In a job mpiexec started, the launcher's rank and world size win over the arguments.
    from tensorcore_cuda import _nccl_rendezvous

    try:
        _nccl_rendezvous._mpi_meet(nccl, world_size=5, rank=-1)
        raise AssertionError("a wrong world_size accepted")
    except ValueError as exc:
        assert "world_size=5 but MPI says 2" in str(exc), exc
if mode == "samedevice":
    try:
        dist.init_process_group("nccl", timeout=timeout)
        raise AssertionError("two ranks on one device accepted")
    except dist.DistBackendError as exc:
        assert "Duplicate GPU" in str(exc) and "set_device(local_rank)" in str(exc), exc
    print(f"rank {os.environ['RANK']} OK")
    sys.exit(0)
local = int(os.environ.get("LOCAL_RANK", os.environ.get("MPI_LOCALRANKID", 0)))
device_id = None
if mode in ("tcp", "mpi"):
    # init_process_group(device_id=...) binds the process to its GPU (no set_device first);
    # a bad one raises before any rank waits for another.
    for bad, err, text in [
        ("cuda:0", TypeError, "device_id must be a tensorcore.device or an int, not str"),
        (tc.device("cpu"), ValueError, "device_id=cpu is not a device of the 'nccl' backend"),
        (tc.device("cuda"), ValueError, "device_id must name one device, with its index"),
        (-1, ValueError, "device_id must be a non-negative index, got -1"),
        (tc.device("cuda", 7), ValueError, "device_id=cuda:7, but this process sees"),
    ]:
        try:
            dist.init_process_group("nccl", timeout=timeout, device_id=bad)
            raise AssertionError(f"device_id={bad!r} accepted")
        except err as exc:
            assert text in str(exc), exc
        assert not dist.is_initialized() and tc.cuda.current_device() == 0
    device_id = local if mode == "tcp" else tc.device("cuda", local)
else:
    tc.cuda.set_device(local)
if mode == "tcp":
    url = f"tcp://127.0.0.1:{os.environ['MASTER_PORT']}"
    rank, size = int(os.environ["TEST_RANK"]), int(os.environ["TEST_N"])
    dist.init_process_group("nccl", init_method=url, timeout=timeout, rank=rank,
                            world_size=size, device_id=device_id)  # fmt: skip
elif mode == "file":
    rank, size = int(os.environ["TEST_RANK"]), int(os.environ["TEST_N"])
    dist.init_process_group("nccl", init_method=f"file://{os.environ['TEST_FILE']}",
                            timeout=timeout, rank=rank, world_size=size)  # fmt: skip
elif mode == "env":
    tc.set_default_device("cuda")
    dist.init_process_group(timeout=timeout)  # picked by the default device
    tc.set_default_device("cpu")
else:
    dist.init_process_group("nccl", timeout=timeout, device_id=device_id)
assert dist.get_backend() == "nccl" and dist.is_nccl_available()
world = dist.GroupMember.WORLD
# The group, its communicator and the current device are the rank's own GPU.
assert tc.cuda.current_device() == local and world.device == tc.device("cuda", local)
assert world._comm.device_id() == local
r, n = dist.get_rank(), dist.get_world_size()
CUDA = tc.device("cuda", tc.cuda.current_device())
# The unique id travelled through the store, or through MPI when mpiexec started the job
# (a world of one, without MASTER_ADDR, needs neither).
via_mpi = "MASTER_ADDR" not in os.environ and "PMI_RANK" in os.environ  # (MPICH's mpiexec)
assert (world._mpi is not None) == via_mpi
assert (world._store is None) == ("MASTER_ADDR" not in os.environ)


def full(shape, value, dt):
    return tc.full(shape, value, device=CUDA).to(dt)


def noncontig(t):
    return t.t().contiguous().t()


def used(name, op=None, datatype=None):
    """Whether the fake saw the NCCL call ``name`` (with ``op``, of ``datatype``) since the
    last check (always true over a real NCCL, which keeps no record)."""
    found = any(c[0] == name and op in (None, c[2]) and datatype in (None, c[1]) for c in calls)
    calls.clear()
    return found or not FAKE


if mode == "timeout":
    if r == 0:
        start = time.monotonic()
        try:
            dist.all_reduce(tc.ones(4, device=CUDA))
            raise AssertionError("no timeout")
        except dist.DistBackendError as exc:
            assert "timed out after 3 s" in str(exc), exc
        assert used("abort"), "the communicator was not aborted after the timeout"
        try:
            dist.broadcast(tc.ones(4, device=CUDA), src=0)
            raise AssertionError("the aborted group still ran a collective")
        except dist.DistBackendError as exc:
            assert "was aborted" in str(exc), exc
        print(f"rank 0 timed out after {time.monotonic() - start:.1f} s", flush=True)
        world._store.set("rank 0 timed out", b"")
        world._store.wait(["rank 1 saw it"], timedelta(seconds=60))  # (rank 0 serves it)
        dist.destroy_process_group()  # (aborted: nothing to wait for)
    else:  # alive, never joining, until rank 0 has timed out
        world._store.wait(["rank 0 timed out"], timedelta(seconds=60))
        world._store.set("rank 1 saw it", b"")
    sys.exit(0)

if mode == "watchdog":
    # Rank 1 never joins. wait() does not block the host (no agreement check here:
    # TENSORCORE_DISTRIBUTED_CHECK=0), so the all-reduce returns at once; after the timeout
    # the group's watchdog does what TENSORCORE_NCCL_ASYNC_ERROR_HANDLING says (PyTorch's
    # modes): 3 (the default) and 1 end the process (1 aborts the communicator first), 2 and
    # 0 fail the work and let the process go on (2 aborts the communicator). Under
    # TENSORCORE_NCCL_BLOCKING_WAIT=1 the mode is 0, as in PyTorch.
    handling = os.environ.get("TENSORCORE_NCCL_ASYNC_ERROR_HANDLING", "3")
    if os.environ.get("TENSORCORE_NCCL_BLOCKING_WAIT") == "1":
        handling = "0"
    if r == 0:
        if FAKE:  # (say so when the communicator is aborted: the process may end right after)
            abort_comm = world._comm.abort

            def noisy_abort():
                print("rank 0: the communicator is aborted", file=sys.stderr, flush=True)
                abort_comm()

            world._comm.abort = noisy_abort
        start = time.monotonic()
        work = dist.all_reduce(tc.ones(4, device=CUDA), async_op=True)
        if handling in ("1", "3"):
            work.wait()
            print(f"rank 0 returned after {time.monotonic() - start:.1f} s", flush=True)
            time.sleep(60)
            print("rank 0 still runs", flush=True)
        else:
            while work.exception() is None and time.monotonic() - start < 60:
                time.sleep(0.05)
            assert "all_reduce: timed out after 3 s" in str(work.exception()), work.exception()
            assert not work.is_completed() and not work.is_success()
            try:
                work.wait(timedelta(seconds=1))
                raise AssertionError("a failed work waited for")
            except dist.DistBackendError as exc:
                assert "timed out after 3 s" in str(exc), exc
            if handling == "2":
                try:
                    dist.broadcast(tc.ones(4, device=CUDA), src=0)
                    raise AssertionError("the aborted group still ran a collective")
                except dist.DistBackendError as exc:
                    assert "was aborted" in str(exc), exc
            print(f"rank 0 went on after {time.monotonic() - start:.1f} s", flush=True)
            world._store.set("rank 0 ended", b"")
            world._store.wait(["rank 1 saw it"], timedelta(seconds=60))  # (rank 0 serves it)
    else:  # alive, never joining, until rank 0 (which serves the store) has ended
        with contextlib.suppress(dist.DistError):  # (the store's server ends: DistNetworkError)
            world._store.wait(["rank 0 ended"], timedelta(seconds=60))
            world._store.set("rank 1 saw it", b"")
    sys.exit(0)

if mode == "raise":
    # Rank 1 raises: the abort hook ends it (under mpiexec, MPI_Abort ends the job); rank 0
    # learns it from NCCL (a remote error) before its timeout.
    if r == 1:
        raise ValueError("rank 1 failed on purpose")
    try:
        dist.all_reduce(tc.ones(4, device=CUDA))
        # (all_reduce may return before the collective fails, as PyTorch's does: its wait
        # orders the stream, not the host; a barrier waits on the host)
        dist.barrier()
    except dist.DistBackendError as exc:
        print(f"rank 0 got: {exc}", flush=True)
    sys.exit(0)

# ------------------------------------------------------------------ bad calls
try:  # an NCCL call that fails at once (here a datatype NCCL does not know)
    world._launch("all_reduce", lambda s: world._comm.allReduce(0, 0, 1, 99, 0, s), ()).wait()
    raise AssertionError("NCCL's error was lost")
except dist.DistBackendError as exc:
    assert "all_reduce: NCCL failed" in str(exc), exc
# Tensors of another CUDA device than the group's, and CPU tensors, are refused.
bad = [(tc.ones(2), RuntimeError, "the 'nccl' backend moves tensors of cuda; move it with")]
if n > 1:
    other = tc.device("cuda", (r + 1) % n)
    bad.append((tc.ones(2, device=other), ValueError, "Tensors must be on the process group's"))
for t, err, text in bad:
    try:
        dist.all_reduce(t)
        raise AssertionError(f"{t.device} accepted")
    except err as exc:
        assert text in str(exc), exc
try:
    dist.recv(tc.ones(2, device=CUDA))
    raise AssertionError("recv from any source accepted")
except RuntimeError as exc:
    assert "recvAnysource" in str(exc), exc
try:
    dist.all_reduce(tc.ones(2, device=CUDA, dtype=tc.complex64), op=dist.ReduceOp.MAX)
    raise AssertionError("complex MAX accepted")
except ValueError as exc:
    assert "all_reduce does not support ReduceOp.MAX on complex tensors" in str(exc), exc
if n > 1:
    # Shapes differ across ranks: every rank names every rank's call; the group goes on.
    try:
        dist.all_reduce(tc.ones(r + 2, device=CUDA, dtype=tc.float32 if r else tc.float64))
        raise AssertionError("no error")
    except RuntimeError as exc:
        assert "rank 0: all_reduce: (2,) float64" in str(exc), exc
        assert "rank 1: all_reduce: (3,) float32" in str(exc), exc

# ------------------------------------------------------------------ every collective
DTYPES = [tc.float32, tc.float64, tc.int64, tc.int32, tc.int16, tc.int8, tc.uint8, tc.bool,
          tc.float16, tc.complex64, tc.complex128]  # fmt: skip
total = sum(range(1, n + 1))
for dt in DTYPES:
    for make in (lambda t: t, noncontig):
        t = make(full((2, 3), r + 1, dt))
        dist.all_reduce(t)
        want = True if dt is tc.bool else total
        assert t.device == CUDA and t.tolist() == [[want] * 3] * 2, (dt, t)

        t = make(full((2, 3), r, dt)) if r else make(tc.arange(6).reshape(2, 3).to(CUDA, dt))
        dist.broadcast(t, src=0)
        assert t.tolist() == tc.arange(6).reshape(2, 3).to(dt).tolist(), (dt, t)

        outs = [make(full((2, 3), -1, dt)) for _ in range(n)]
        dist.all_gather(outs, make(full((2, 3), r, dt)))
        assert [o.tolist() for o in outs] == [full((2, 3), i, dt).tolist() for i in range(n)]

        out = make(full((n * 2, 3), -1, dt))
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

# Reduction operators, AVG (NCCL_AVG from NCCL 2.10 on, else a SUM divided here).
SUM, PROD, MAX, MIN, AVG = (nccl.NCCL_SUM, nccl.NCCL_PROD, nccl.NCCL_MAX, nccl.NCCL_MIN,
                            nccl.NCCL_AVG)  # fmt: skip
calls.clear()
for op, want, nop in [
    (dist.ReduceOp.PRODUCT, float(tc.arange(1, n + 1).prod()), PROD),
    (dist.ReduceOp.MIN, 1.0, MIN),
    (dist.ReduceOp.MAX, float(n), MAX),
    (dist.ReduceOp.AVG, total / n, AVG if not OLD_NCCL else SUM),
]:
    t = tc.full((4,), float(r + 1), device=CUDA)
    dist.all_reduce(t, op=op)
    assert t.tolist() == [want] * 4, (op, t)
    assert used("allReduce", nop, nccl.NCCL_FLOAT32), (op, nop)  # (the check: int64 MAX)
t = tc.full((3,), r + 1, dtype=tc.int64, device=CUDA)
dist.all_reduce(t, op=dist.ReduceOp.AVG)  # integers: a SUM, truncated by the division
assert t.tolist() == [total // n] * 3 and used("allReduce", SUM), t
t = tc.full((3,), 1.0 + r, dtype=tc.complex64, device=CUDA)
dist.all_reduce(t, op=dist.ReduceOp.AVG)  # pairs of float32
assert t.tolist() == [complex(total / n)] * 3, t
assert used("allReduce", AVG if not OLD_NCCL else SUM, nccl.NCCL_FLOAT32)
for dt, kind, nop in [(tc.bool, nccl.NCCL_UINT8, MAX), (tc.int16, nccl.NCCL_INT32, SUM)]:
    calls.clear()
    t = full((3,), r % 2, dt)
    dist.all_reduce(t)  # bool: uint8 MAX (a logical or); int16: in an int32 copy
    assert used("allReduce", nop, kind), dt
    assert t.tolist() == full((3,), n > 1 if dt is tc.bool else n // 2, dt).tolist(), (dt, t)
t = full((3,), (r + 1) % 2, tc.bool)  # True on rank 0 only
dist.all_reduce(t, op=dist.ReduceOp.PRODUCT)  # a logical and: uint8 MIN
assert t.tolist() == [n == 1] * 3 and used("allReduce", MIN, nccl.NCCL_UINT8)

# A repeated all_reduce runs the tensor's plan (NCCLPlan: the fingerprint kept on the
# device); the check still runs every call, so a rank that all-reduces another shape
# while the others reuse their plan is named.
from tensorcore.distributed._group import _World  # noqa: E402

t = tc.ones(4, device=CUDA)
for _ in range(3):
    calls.clear()
    dist.all_reduce(t)
    assert type(_World.plans[id(t)].backend).__name__ == "NCCLPlan"
    checks = [c for c in calls if c == ("allReduce", nccl.NCCL_INT64, MAX)]
    assert len(checks) == 1 or not FAKE, calls
assert t.tolist() == [float(n**3)] * 4, t
if n > 1:
    u = tc.ones(5, device=CUDA) if r == n - 1 else t
    try:
        dist.all_reduce(u)
        raise AssertionError("a mismatch with a planned all_reduce went through")
    except RuntimeError as exc:
        assert "rank 0: all_reduce: (4,) float32 SUM" in str(exc), exc
        assert f"rank {n - 1}: all_reduce: (5,) float32 SUM" in str(exc), exc
    dist.all_reduce(t, op=dist.ReduceOp.AVG)  # (the group goes on; AVG through a plan)
    assert t.tolist() == [float(n**3)] * 4, t

# async_op: a Work over an event on the group's stream.
calls.clear()
t = tc.ones(1000, device=CUDA)
work = dist.all_reduce(t, async_op=True)
assert work.wait() is True and t.tolist() == [float(n)] * 1000  # (the read comes after it)
assert work.is_completed() and work.is_success()
works = [dist.broadcast(tc.ones(5, device=CUDA) * r, src=0, async_op=True) for _ in range(3)]
assert all(w.wait() for w in works)

# send / recv in a ring (even ranks send first: NCCL's send waits for its receiver).
if n > 1:
    buf = tc.zeros(3, 2, device=CUDA).t()
    nxt, prev = (r + 1) % n, (r - 1) % n
    if r % 2 == 0:
        dist.send(tc.full((2, 3), float(r), device=CUDA), dst=nxt)
        sender = dist.recv(buf, src=prev)
    else:
        sender = dist.recv(buf, src=prev)
        dist.send(tc.full((2, 3), float(r), device=CUDA), dst=nxt)
    assert sender == prev and buf.tolist() == [[float(prev)] * 3] * 2, (sender, buf)

    # A ring exchange in one batch, where every rank sends first: only one NCCL group
    # completes it (NCCL's sends, and the fake's, wait for their receiver). A bounded wait,
    # so that a batch issued one operation at a time fails here instead of hanging.
    got = tc.zeros(3, 2, device=CUDA).t()  # (non-contiguous: copied back after the batch)
    works = dist.batch_isend_irecv([
        dist.P2POp(dist.isend, tc.full((2, 3), float(r), device=CUDA), nxt),
        dist.P2POp(dist.irecv, got, prev),
    ])  # fmt: skip
    assert all(w.wait(timedelta(seconds=10)) for w in works)
    assert works[1].result() == prev and got.tolist() == [[float(prev)] * 3] * 2, got
    # ...receives listed first, and wait() without a timeout: ordered on the stream.
    got = tc.zeros(4, device=CUDA)
    works = dist.batch_isend_irecv([
        dist.P2POp(dist.irecv, got, prev),
        dist.P2POp(dist.isend, tc.full((4,), float(r), device=CUDA), nxt),
    ])  # fmt: skip
    assert all(w.wait() for w in works) and got.tolist() == [float(prev)] * 4, got
    try:
        dist.batch_isend_irecv([dist.P2POp(dist.isend, got, nxt),
                                dist.P2POp(dist.irecv, got, prev, group=world)])  # fmt: skip
        raise AssertionError("ops of different groups accepted")
    except ValueError as exc:
        assert "all ops need to use the same group" in str(exc), exc

    # wait() makes the current stream wait, not the host (PyTorch's NCCL semantics): rank 0
    # arrives first, its wait returns at once, and what the stream does next (here the copy
    # to the host) comes after the all-reduce.
    t = tc.full((4,), float(r + 1), device=CUDA)
    if r:
        time.sleep(1.0)
    start = time.monotonic()
    work = world.allreduce(t, dist.ReduceOp.SUM)
    assert work.wait() is True
    took = time.monotonic() - start
    if r == 0:
        assert took < 0.5 and not work.is_completed(), f"wait() blocked the host {took:.2f} s"
    assert t.tolist() == [float(total)] * 4, t
    assert work.is_completed() and work.is_success() and work.exception() is None
    work = world.broadcast(t, 0)
    work.synchronize()  # (the same as wait())
    assert t.tolist() == [float(total)] * 4 and work.is_completed()

# Objects ride on the tensor collectives (uint8 tensors on the default device).
objs = [None] * n
dist.all_gather_object(objs, {"rank": r})
assert objs == [{"rank": i} for i in range(n)]
if n > 1:  # point to point: rank 0 to the last rank
    if r == 0:
        dist.send_object_list([{"lr": 0.1}, "x"], dst=n - 1)
    elif r == n - 1:
        got = [None, None]
        assert dist.recv_object_list(got, src=0) == 0 and got == [{"lr": 0.1}, "x"], got

# all_to_all_single / all_to_all: the contract's generic all-to-all (a send and a receive
# per peer, in one NCCL group through batch_p2p); monitored_barrier's tokens on the GPU.
ins, outs = [r + j + 1 for j in range(n)], [i + r + 1 for i in range(n)]
x = tc.cat([full((k, 3), 10 * r + j, tc.float32) for j, k in enumerate(ins)])
out = noncontig(full((sum(outs), 3), -1, tc.float32))
dist.all_to_all_single(out, x, outs, ins)
want = tc.cat([full((k, 3), 10 * i + r, tc.float32) for i, k in enumerate(outs)])
assert out.tolist() == want.tolist(), out
lists = [tc.empty(r + 1, device=CUDA) for _ in range(n)]
dist.all_to_all(lists, [full((j + 1,), 10 * r + j, tc.float32) for j in range(n)])
assert [t.tolist() for t in lists] == [[float(10 * i + r)] * (r + 1) for i in range(n)]
dist.monitored_barrier(timeout=timedelta(seconds=30))

# DistributedDataParallel of a CUDA model: buckets, unused parameters and their flags all
# on the model's device; the gradients are the average of the ranks' local ones.
from tensorcore import nn  # noqa: E402
from tensorcore.nn.parallel import DistributedDataParallel as DDP  # noqa: E402


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.never = nn.Linear(3, 4), nn.Linear(4, 2), nn.Linear(2, 2)

    def forward(self, x, use_b):
        h = self.a(x).tanh()
        return self.b(h) if use_b else h[:, :2]


def local_grads(x, use_b):
    tc.manual_seed(3)
    m = Net().to(CUDA)
    m(x, use_b).pow(2).sum().backward()
    return {k: None if p.grad is None else p.grad.cpu() for k, p in m.named_parameters()}


tc.manual_seed(0)
xs = [tc.randn(5, 3).to(CUDA) for _ in range(n)]
tc.manual_seed(3)
model = DDP(Net().to(CUDA), find_unused_parameters=True, bucket_cap_mb=40 / 2**20)
model(xs[r], r != 0).pow(2).sum().backward()
mine = dict(model.module.named_parameters())
for name, _ in Net().named_parameters():
    ranks = [local_grads(xs[i], i != 0)[name] for i in range(n)]
    used_ranks = [g for g in ranks if g is not None]
    if not used_ranks:
        assert mine[name].grad is None, name
        continue
    want = sum(g if g is not None else tc.zeros_like(used_ranks[0]) for g in ranks) / n
    assert mine[name].grad.device == CUDA, name
    assert (mine[name].grad.cpu() - want).abs().max().item() < 1e-6, name

# Groups: a new communicator whose id travels over the world's.
evens = dist.new_group([i for i in range(n) if i % 2 == 0])
if r % 2 == 0:
    t = tc.ones(2, device=CUDA)
    dist.all_reduce(t, group=evens)
    assert t.tolist() == [float((n + 1) // 2)] * 2
else:
    assert dist.get_rank(evens) == -1
calls.clear()
dist.barrier()
assert used("allReduce"), "barrier is an all-reduce"
dist.destroy_process_group()
assert used("destroy")
print(f"rank {r} OK")
