"""The wider half of ``bench_ops_survey.py``'s cases: what the first survey left thin.

Integer, bool and float64 inputs, broadcast and strided (sliced) operands, several-dim and
``keepdim`` reductions, in-place and ``out=`` variants, int + float promotion, comparisons to
bool, selection (``where``, ``masked_*``, ``nonzero``), sorting and counting on integers,
scans of integers, norms, ``clamp`` with tensor bounds, ``triu``, ``roll``/``flip`` over
several dims, ``repeat_interleave``, ``diff`` of order 2, ``einsum`` patterns, broadcast and
batched ``matmul``, and the backward of indexing, scatter and scan operators. Each name starts
with ``w:`` so that ``--only 'w:*'`` runs this half alone.

:func:`add_cases` receives the survey's ``case`` and ``data`` so that both halves share one
case list and one set of arrays (the same for both libraries).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["add_cases"]

Fwd = tuple[Callable[[], Any], list[Any]]


def add_cases(case: Callable[[str, Any], None], data: Callable[..., np.ndarray]) -> None:
    """Append this module's cases to the survey's list (``case(name, build)``)."""
    rng = np.random.default_rng(1)
    big = data((256, 256))
    big2 = data((256, 256), "pos")[::-1].copy()
    ints = rng.integers(-1000, 1000, (256, 256))
    small_ints = rng.integers(0, 100, 65536)
    f64 = big.astype(np.float64)

    def T(L: Any, a: np.ndarray, grad: bool = False) -> Any:
        t = L.from_numpy(np.ascontiguousarray(a).copy())
        return t.requires_grad_() if grad else t

    def one(name: str, arr: np.ndarray, fn: Callable[..., Any], diff: bool = False) -> None:
        def build(L: Any) -> Fwd:
            x = T(L, arr, diff)
            return (lambda: fn(L, x)), ([x] if diff else [])

        case(f"w:{name}", build)

    def two(
        name: str, a: np.ndarray, b: np.ndarray, fn: Callable[..., Any], diff: bool = False
    ) -> None:
        def build(L: Any) -> Fwd:
            x, y = T(L, a, diff), T(L, b, diff)
            return (lambda: fn(L, x, y)), ([x, y] if diff else [])

        case(f"w:{name}", build)

    # ---- integer, bool and float64 elementwise
    two("add int64", ints, ints[::-1], lambda L, a, b: a + b)
    two("mul int32", ints.astype(np.int32), ints[::-1].astype(np.int32), lambda L, a, b: a * b)
    two("floor_divide int64", ints, np.abs(ints[::-1]) + 1, lambda L, a, b: a // b)
    two("remainder int64", ints, np.abs(ints[::-1]) + 1, lambda L, a, b: a % b)
    one("abs int64", ints, lambda L, x: x.abs())
    one("neg int32", ints.astype(np.int32), lambda L, x: -x)
    two("bitwise_and int64", ints, ints[::-1], lambda L, a, b: a & b)
    two("lt int64 -> bool", ints, ints[::-1], lambda L, a, b: a < b)
    two("logical_and bool", big > 0, big2 > 1, lambda L, a, b: a & b)
    one("logical_not bool", big > 0, lambda L, x: ~x)
    two("add float64", f64, f64[::-1], lambda L, a, b: a + b, True)
    one("exp float64", f64, lambda L, x: x.exp(), True)
    one("sum float64 dim=0", f64, lambda L, x: x.sum(0), True)
    two("matmul float64 256", f64, f64[::-1], lambda L, a, b: a @ b, True)
    # ---- promotion and casts
    two("int64 + float32", ints, big, lambda L, a, b: a + b)
    one("int32 * 0.5", ints.astype(np.int32), lambda L, x: x * 0.5)
    one("int64 / 3", ints, lambda L, x: x / 3)
    one("int64 -> float32", ints, lambda L, x: x.float())
    one("float64 -> float32", f64, lambda L, x: x.float())
    one("bool -> float32", big > 0, lambda L, x: x.float())
    one("float32 -> int64", big * 100, lambda L, x: x.long())
    one("half().float()", big, lambda L, x: x.half().float())
    # ---- broadcast and strided operands
    two("a + col", big, big2[:, :1], lambda L, a, b: a + b, True)
    two("a * 0-d", big, np.array(2.0, np.float32), lambda L, a, b: a * b, True)
    two("a[::2] + b[::2]", big, big2, lambda L, a, b: a[::2] + b[::2], True)
    two("a[:, ::2] * b[:, 1::2]", big, big2, lambda L, a, b: a[:, ::2] * b[:, 1::2], True)
    two("a.T + b", big, big2, lambda L, a, b: a.T + b, True)
    two("outer-broadcast a[:,None]*b[None]", big[0], big2[0], lambda L, a, b: a[:, None] * b)
    # ---- reductions over several dims, keepdim, scalars
    x3 = data((64, 128, 32))
    one("sum dims (0,2)", x3, lambda L, x: x.sum((0, 2)), True)
    one("mean keepdim dim=1", x3, lambda L, x: x.mean(1, keepdim=True), True)
    one("amax dims (1,2)", x3, lambda L, x: x.amax((1, 2)), True)
    one("var dims (0,1)", x3, lambda L, x: x.var((0, 1)), True)
    one("sum int64 dim=1", ints, lambda L, x: x.sum(1))
    one("sum bool", big > 0, lambda L, x: x.sum())
    one("all dim=1", big > -3, lambda L, x: x.all(1))
    one("max all", big, lambda L, x: x.max(), True)
    one("min(dim) int64", ints, lambda L, x: x.min(1)[0])
    one("argmin dim=0", big, lambda L, x: x.argmin(0))
    one("nanmean dim=1", big, lambda L, x: x.nanmean(1), True)
    one("linalg.vector_norm", big, lambda L, x: L.linalg.vector_norm(x, dim=1), True)
    one("vector_norm ord=1", big, lambda L, x: L.linalg.vector_norm(x, 1, dim=1), True)
    one("vector_norm ord=inf", big, lambda L, x: L.linalg.vector_norm(x, float("inf"), 1), True)
    one("norm p=3", big, lambda L, x: x.norm(3, dim=0), True)
    # ---- in place and out=
    two("add_", big, big2, lambda L, a, b: a.add_(b))
    two("mul_/div_ strided", big, big2, lambda L, a, b: a[:, ::2].mul_(b[:, ::2]).div_(b[:, ::2]))
    one("clamp_", big, lambda L, x: x.clamp_(-1, 1))
    one("exp_ (then log_)", big, lambda L, x: x.exp_().log_())
    two("masked_fill_", big, big2, lambda L, a, b: a.masked_fill_(b > 1, 0.0))
    two("copy_ permuted", big, big2, lambda L, a, b: a.copy_(b.T))
    two("addcmul_", big, big2, lambda L, a, b: a.addcmul_(b, b, value=1e-3))

    def outs(name: str, fn: Callable[..., Any], shape: tuple[int, ...]) -> None:
        def build(L: Any) -> Fwd:
            a, b = T(L, big), T(L, big2)
            o = L.empty(shape)
            return (lambda: fn(L, a, b, o)), []

        case(f"w:{name}", build)

    outs("add out=", lambda L, a, b, o: L.add(a, b, out=o), (256, 256))
    outs("exp out=", lambda L, a, b, o: L.exp(a, out=o), (256, 256))
    outs("sum dim=0 out=", lambda L, a, b, o: L.sum(a, 0, out=o), (256,))
    outs("matmul out=", lambda L, a, b, o: L.matmul(a, b, out=o), (256, 256))
    outs("where out=", lambda L, a, b, o: L.where(a > 0, a, b, out=o), (256, 256))
    # ---- comparisons and selection
    two("ge", big, big2, lambda L, a, b: a >= b)
    two("ne 0-d", big, np.array(0.5, np.float32), lambda L, a, b: a != b)
    two("eq then sum", ints, ints[::-1], lambda L, a, b: (a == b).sum())
    two("where tensor/tensor", big, big2, lambda L, a, b: L.where(a > 0, a, b), True)
    one("where(x>0, x, 0.)", big, lambda L, x: L.where(x > 0, x, 0.0), True)
    one("where nan mask", big, lambda L, x: L.where(x.isnan(), 0.0, x), True)
    one("masked_select", big, lambda L, x: x.masked_select(x > 0), True)
    one("nonzero int64", ints, lambda L, x: x.nonzero())
    one("nonzero as_tuple", big > 0, lambda L, x: L.nonzero(x, as_tuple=True))
    one("argwhere", big > 0, lambda L, x: L.argwhere(x))
    two("clamp tensor bounds", big, big2, lambda L, a, b: a.clamp(-b, b), True)
    two("clamp min tensor", big, big2, lambda L, a, b: a.clamp(min=b - 1.5), True)
    # ---- sorting and counting
    one("sort int64 dim=1", ints, lambda L, x: x.sort(1)[0])
    one("sort stable 1-d", big.ravel(), lambda L, x: x.sort(stable=True)[0], True)
    one("argsort descending", big, lambda L, x: x.argsort(1, descending=True))
    one("msort", big, lambda L, x: L.msort(x), True)
    one("unique int64 sorted", small_ints, lambda L, x: L.unique(x))
    one("unique inverse", small_ints, lambda L, x: L.unique(x, return_inverse=True)[1])
    one("unique_consecutive", np.sort(small_ints), lambda L, x: L.unique_consecutive(x))
    one("unique dim=0", small_ints.reshape(-1, 4) % 3, lambda L, x: L.unique(x, dim=0))
    one("bincount weights", small_ints, lambda L, x: L.bincount(x, x.float()))
    one("histc 1-d", big.ravel(), lambda L, x: L.histc(x, 50, -3, 3))
    one("histogram", big.ravel(), lambda L, x: L.histogram(x, 50)[0])
    one("searchsorted right", big, lambda L, x: L.searchsorted(x.sort(1)[0], x, right=True))
    one("bucketize", big, lambda L, x: L.bucketize(x, L.linspace(-3, 3, 64)))
    one("topk 100 1-d", big.ravel(), lambda L, x: x.topk(100)[0], True)
    one("kthvalue 1-d", big.ravel(), lambda L, x: x.kthvalue(1000)[0], True)
    # ---- scans
    one("cumsum int64", ints, lambda L, x: x.cumsum(1))
    one("cumsum bool->int64", big > 0, lambda L, x: x.cumsum(0))
    one("cumsum float64", f64, lambda L, x: x.cumsum(0), True)
    one("cumprod small", data((256, 256), "p01") + 0.5, lambda L, x: x.cumprod(1), True)
    one("cummin dim=0", big, lambda L, x: x.cummin(0)[0], True)
    one("logcumsumexp 1-d", big.ravel(), lambda L, x: x.logcumsumexp(0), True)
    # ---- shape copies
    one("triu 1", big, lambda L, x: x.triu(1), True)
    one("tril -3 batched", x3, lambda L, x: x.tril(-3), True)
    one("roll 2 dims", big, lambda L, x: x.roll((3, -5), (0, 1)), True)
    one("roll flat", big, lambda L, x: x.roll(7), True)
    one("flip 2 dims", big, lambda L, x: x.flip(0, 1), True)
    one("fliplr", big, lambda L, x: x.fliplr(), True)
    one("rot90", big, lambda L, x: x.rot90(), True)
    one("repeat_interleave 3 dim=1", big, lambda L, x: x.repeat_interleave(3, 1), True)
    one("repeat_interleave flat", big, lambda L, x: x.repeat_interleave(2), True)
    one("diff n=2 dim=0", big, lambda L, x: x.diff(2, 0), True)
    one("tile", big, lambda L, x: x.tile((2, 2)), True)
    one("expand+contiguous", big[:1], lambda L, x: x.expand(256, 256).contiguous(), True)
    one("narrow+cat", big, lambda L, x: L.cat([x[:, 128:], x[:, :128]], 1), True)
    # ---- products
    two("kron 64x64", big[:64, :64], big2[:64, :64], lambda L, a, b: L.kron(a, b[:16, :16]), True)
    two("outer 256", big[0], big2[0], lambda L, a, b: L.outer(a, b), True)
    two("einsum ij,jk->ik", big, big2, lambda L, a, b: L.einsum("ij,jk->ik", a, b), True)
    two("einsum ij,ij->i", big, big2, lambda L, a, b: L.einsum("ij,ij->i", a, b), True)
    two("einsum i,j->ij", big[0], big2[0], lambda L, a, b: L.einsum("i,j->ij", a, b), True)
    one("einsum ii->i", big, lambda L, x: L.einsum("ii->i", x), True)
    one("einsum ij->ji (copy)", big, lambda L, x: L.einsum("ij->ji", x).contiguous(), True)
    q = data((8, 4, 64, 32))
    two(
        "einsum bhqd,bhkd->bhqk",
        q,
        q[::-1],
        lambda L, a, b: L.einsum("bhqd,bhkd->bhqk", a, b),
        True,
    )
    b3 = data((16, 64, 64))
    two("matmul (8,64,64)@(64,64)", b3[:8], big[:64, :64], lambda L, a, b: a @ b, True)
    two(
        "matmul (4,1,64,32)@(8,32,16)",
        q[:4, :1, :, :],
        x3[:8, :32, :16],
        lambda L, a, b: a @ b,
        True,
    )
    two("matmul vec@mat", big[0], big2, lambda L, a, b: a @ b, True)
    two("matmul mat@vec", big, big2[0], lambda L, a, b: a @ b, True)
    two("baddbmm", b3[:8], b3[8:], lambda L, a, b: L.baddbmm(a, a, b), True)
    two("addmm", big, big2, lambda L, a, b: L.addmm(a, a, b, beta=0.5), True)
    two("tensordot", x3[:16, :32, :16], x3[:32, :16, :8], lambda L, a, b: L.tensordot(a, b, 2))
    # ---- backward of indexing, scatter, scans (fwd+bwd rows)
    idx = rng.integers(0, 256, 4096)

    def ix(name: str, fn: Callable[..., Any]) -> None:
        def build(L: Any) -> Fwd:
            x, i = T(L, big, True), T(L, idx)
            return (lambda: fn(L, x, i)), [x]

        case(f"w:{name}", build)

    ix("index_select dim=1", lambda L, x, i: x.index_select(1, i))
    ix("x[:, idx]", lambda L, x, i: x[:, i])
    ix("x[idx, idx]", lambda L, x, i: x[i, i.flip(0)])
    ix("x[idx] = 0 (index_put)", lambda L, x, i: x.index_put((i,), L.zeros(256)))
    ix("scatter dim=1", lambda L, x, i: x.scatter(1, i.reshape(16, 256)[:, :64] % 64, 1.0))
    ix("gather dim=0", lambda L, x, i: x.gather(0, i.reshape(16, 256)))
    ix("index_fill dim=1", lambda L, x, i: x.index_fill(1, i[:64], -1.0))
    ix("masked_scatter", lambda L, x, i: x.masked_scatter(x > 0, x.flip(0)))
    ix("narrow copy", lambda L, x, i: x.narrow(1, 3, 200).contiguous())
