"""ReduceOp.BAND, BOR and BXOR over MPI (run under mpiexec), on integer and bool tensors, for
all_reduce (its plans too: the same tensor twice), reduce and reduce_scatter_tensor; PyTorch's
errors for floating tensors and for PREMUL_SUM, which no backend here runs."""

import functools
import operator
from datetime import timedelta

import tensorcore as tc
import tensorcore.distributed as dist

dist.init_process_group("mpi", timeout=timedelta(seconds=30))
r, n = dist.get_rank(), dist.get_world_size()
Op = dist.ReduceOp
FOLD = {Op.BAND: operator.and_, Op.BOR: operator.or_, Op.BXOR: operator.xor}


def values(rank):
    return [(rank * 37 + 11 * k) % 97 + k for k in range(6)]  # (fits in uint8)


def expected(op, dtype):
    per_rank = [values(q) for q in range(n)]
    if dtype is tc.bool:
        per_rank = [[bool(v % 3) for v in vs] for vs in per_rank]
    return [functools.reduce(FOLD[op], col) for col in zip(*per_rank, strict=True)]


for dtype in (tc.int32, tc.int64, tc.uint8, tc.int16, tc.int8, tc.bool):
    for op in FOLD:
        mine = values(r) if dtype is not tc.bool else [bool(v % 3) for v in values(r)]
        want = expected(op, dtype)
        t = tc.tensor(mine, dtype=dtype)
        dist.all_reduce(t, op=op)
        assert t.tolist() == want, (dtype, op, t.tolist(), want)
        t.copy_(tc.tensor(mine, dtype=dtype))  # the same tensor again: its plan
        dist.all_reduce(t, op=op)
        assert t.tolist() == want, (dtype, op, "plan")
        strided = tc.tensor([mine, mine], dtype=dtype).t()[:, 0]  # not contiguous
        dist.all_reduce(strided, op=op)
        assert strided.tolist() == want, (dtype, op, "strided")
        t = tc.tensor(mine, dtype=dtype)
        dist.reduce(t, dst=n - 1, op=op)
        assert r != n - 1 or t.tolist() == want, (dtype, op, "reduce")

# reduce_scatter_tensor: rank q gets block q of the bitwise or.
blocks = tc.tensor([[r + 1, 1 << r] for _ in range(n)], dtype=tc.int64)
out = tc.zeros(2, dtype=tc.int64)
dist.reduce_scatter_tensor(out, blocks.reshape(-1), op=Op.BOR)
assert out.tolist() == [functools.reduce(operator.or_, range(1, n + 1)), (1 << n) - 1], out

for op in FOLD:
    try:
        dist.all_reduce(tc.ones(2), op=op)
    except RuntimeError as exc:
        assert str(exc) == f"Cannot use ReduceOp.{op.name} with non-integral dtype", exc
    else:
        raise AssertionError(f"{op} on float32 was accepted")
for op in (Op.PREMUL_SUM, dist._make_nccl_premul_sum(2.0)):
    try:
        dist.all_reduce(tc.ones(2), op=op)
    except NotImplementedError as exc:
        assert str(exc).startswith("Cannot use ReduceOp.PREMUL_SUM with mpi"), exc
    else:
        raise AssertionError("PREMUL_SUM was accepted")

print(f"rank {r} OK", flush=True)
dist.destroy_process_group()
