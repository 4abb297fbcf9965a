"""A survey of about 150 public operators at medium and large sizes, tensorcore next to PyTorch
in the same process, ranked by how much slower tensorcore is: the operators to fix first.

    OMP_NUM_THREADS=1 python3 benchmarks/bench_ops_survey.py --quick     # a few minutes
    TENSORCORE_BENCH_CLOCK=thread python3 benchmarks/bench_ops_survey.py --quick  # shared host
    python3 benchmarks/bench_ops_survey.py --only 'ctc*,scatter_reduce*' --top 0
    python3 benchmarks/bench_ops_survey.py --tsv survey.tsv
    python3 benchmarks/bench_ops_survey.py --quick --only 'w:*'   # the wider half alone

Where ``bench_ops.py`` times a few kernels next to NumPy's best, this one sweeps the API:
pointwise unary and binary operators, reductions along a dim, scans, indexing (gather,
scatter, index_add, index_put, masks), sorting, shape copies, casts of non-contiguous inputs,
convolution, pooling, normalisation, losses, linear algebra and FFTs, each on two or three
shapes (``(256, 256)``, and ``(64, 128, 32)`` permuted: non-contiguous) and, where the
operator is differentiable, also forward and backward together (``autograd.grad`` of the
output's sum). Per-call overhead on tiny tensors is ``bench_core.py``'s subject; these sizes
are where a NumPy backend should stay within about 1.5x of PyTorch's CPU kernels.

Both libraries run on one thread (``OMP_NUM_THREADS=1`` unless set, and
``torch.set_num_threads(1)``); the turns alternate and each ratio is the median of the
per-turn ratios (``_timing.Timings.ratio``). On a host shared with other work, time with
``TENSORCORE_BENCH_CLOCK=thread`` (each thread's CPU time: both libraries run on the calling
thread here); wall-clock ratios of a quick run there vary by 2-10x. PyTorch is required
here (``pip install torch==2.13.0``); it is never a dependency of tensorcore.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # (before NumPy and PyTorch start their pools)

import argparse  # noqa: E402
import fnmatch  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
from _survey_wide import add_cases  # noqa: E402
from _timing import fmt_time, per_call_ns  # noqa: E402

import tensorcore as tc  # noqa: E402

torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))

#: A case builds, for a library ``L`` (``tensorcore`` or ``torch``), the forward call and the
#: leaves to differentiate (empty: forward only).
Build = Callable[[Any], tuple[Callable[[], Any], list[Any]]]
CASES: list[tuple[str, Build]] = []

#: The shapes of the elementwise and reduction cases: (shape of the array, permutation).
SHAPES = {
    "256x256": ((256, 256), None),
    "64x128x32.T": ((64, 128, 32), (2, 0, 1)),  # (a (32, 64, 128) non-contiguous view)
}
_rng = np.random.default_rng(0)
_DATA: dict[tuple[Any, ...], np.ndarray] = {}


def data(shape: tuple[int, ...], dom: str = "x", dtype: Any = np.float32) -> np.ndarray:
    """One array per (shape, domain, dtype), the same for both libraries."""
    key = (shape, dom, dtype)
    if key not in _DATA:
        if dom == "x":
            a = _rng.standard_normal(shape)
        elif dom == "pos":
            a = _rng.uniform(0.1, 3.0, shape)
        elif dom == "unit":
            a = _rng.uniform(-0.95, 0.95, shape)
        elif dom == "p01":
            a = _rng.uniform(0.05, 0.95, shape)
        elif dom == "gt1":
            a = _rng.uniform(1.1, 4.0, shape)
        else:
            raise ValueError(dom)
        _DATA[key] = a.astype(dtype)
    return _DATA[key]


def inp(L: Any, key: str, dom: str = "x", grad: bool = False, dtype: Any = np.float32) -> Any:
    """(leaf, view) of the shape ``key`` of :data:`SHAPES` in library ``L``."""
    shape, perm = SHAPES[key]
    leaf = L.from_numpy(data(shape, dom, dtype).copy())
    if grad:
        leaf.requires_grad_()
    return leaf, (leaf.permute(*perm) if perm else leaf)


def T(L: Any, a: np.ndarray, grad: bool = False) -> Any:
    t = L.from_numpy(np.ascontiguousarray(a).copy())
    return t.requires_grad_() if grad else t


def case(name: str, build: Build) -> None:
    CASES.append((name, build))


# ------------------------------------------------------------------ pointwise
def _unary(name: str, fn: Callable[..., Any], dom: str = "x", diff: bool = True) -> None:
    for key in SHAPES:

        def build(L: Any, key: str = key) -> tuple[Callable[[], Any], list[Any]]:
            leaf, x = inp(L, key, dom, grad=diff)
            return (lambda: fn(L, x)), ([leaf] if diff else [])

        case(f"{name} {key}", build)


_UNARY: list[tuple[str, Callable[..., Any], str, bool]] = [
    ("abs", lambda L, x: x.abs(), "x", True),
    ("neg", lambda L, x: -x, "x", True),
    ("exp", lambda L, x: x.exp(), "x", True),
    ("log", lambda L, x: x.log(), "pos", True),
    ("sqrt", lambda L, x: x.sqrt(), "pos", True),
    ("rsqrt", lambda L, x: x.rsqrt(), "pos", True),
    ("reciprocal", lambda L, x: x.reciprocal(), "pos", True),
    ("sin", lambda L, x: x.sin(), "x", True),
    ("cos", lambda L, x: x.cos(), "x", True),
    ("tan", lambda L, x: x.tan(), "unit", True),
    ("tanh", lambda L, x: x.tanh(), "x", True),
    ("sigmoid", lambda L, x: x.sigmoid(), "x", True),
    ("erf", lambda L, x: x.erf(), "x", True),
    ("erfc", lambda L, x: x.erfc(), "x", True),
    ("erfinv", lambda L, x: x.erfinv(), "unit", True),
    ("lgamma", lambda L, x: x.lgamma(), "pos", True),
    ("digamma", lambda L, x: x.digamma(), "pos", True),
    ("expm1", lambda L, x: x.expm1(), "x", True),
    ("log1p", lambda L, x: x.log1p(), "pos", True),
    ("log2", lambda L, x: x.log2(), "pos", True),
    ("floor", lambda L, x: x.floor(), "x", False),
    ("round", lambda L, x: x.round(), "x", False),
    ("sign", lambda L, x: x.sign(), "x", False),
    ("asin", lambda L, x: x.asin(), "unit", True),
    ("atan", lambda L, x: x.atan(), "x", True),
    ("sinh", lambda L, x: x.sinh(), "x", True),
    ("acosh", lambda L, x: x.acosh(), "gt1", True),
    ("atanh", lambda L, x: x.atanh(), "unit", True),
    ("square", lambda L, x: x.square(), "x", True),
    ("frac", lambda L, x: x.frac(), "x", True),
    ("sinc", lambda L, x: x.sinc(), "x", True),
    ("i0", lambda L, x: x.i0(), "x", False),
    ("logit", lambda L, x: x.logit(), "p01", True),
    ("nan_to_num", lambda L, x: x.nan_to_num(), "x", True),
    ("clamp", lambda L, x: x.clamp(-0.5, 0.5), "x", True),
    ("pow 3", lambda L, x: x.pow(3), "x", True),
    ("pow 0.5", lambda L, x: x.pow(0.5), "pos", True),
    ("relu", lambda L, x: L.nn.functional.relu(x), "x", True),
    ("gelu", lambda L, x: L.nn.functional.gelu(x), "x", True),
    ("gelu tanh", lambda L, x: L.nn.functional.gelu(x, approximate="tanh"), "x", True),
    ("silu", lambda L, x: L.nn.functional.silu(x), "x", True),
    ("mish", lambda L, x: L.nn.functional.mish(x), "x", True),
    ("softplus", lambda L, x: L.nn.functional.softplus(x), "x", True),
    ("elu", lambda L, x: L.nn.functional.elu(x), "x", True),
    ("selu", lambda L, x: L.nn.functional.selu(x), "x", True),
    ("leaky_relu", lambda L, x: L.nn.functional.leaky_relu(x, 0.1), "x", True),
    ("hardswish", lambda L, x: L.nn.functional.hardswish(x), "x", True),
    ("logsigmoid", lambda L, x: L.nn.functional.logsigmoid(x), "x", True),
    ("softsign", lambda L, x: L.nn.functional.softsign(x), "x", True),
    ("special.erfcx", lambda L, x: L.special.erfcx(x), "x", True),
    ("special.ndtri", lambda L, x: L.special.ndtri(x), "p01", True),
    ("special.i1e", lambda L, x: L.special.i1e(x), "x", True),
    ("isnan", lambda L, x: x.isnan(), "x", False),
    ("isfinite", lambda L, x: x.isfinite(), "x", False),
]
for _n, _f, _d, _g in _UNARY:
    _unary(_n, _f, _d, _g)


def _binary(name: str, fn: Callable[..., Any], dom: str = "x", diff: bool = True) -> None:
    for key in SHAPES:

        def build(L: Any, key: str = key) -> tuple[Callable[[], Any], list[Any]]:
            la, a = inp(L, key, dom, grad=diff)
            shape, perm = SHAPES[key]
            lb = L.from_numpy(data(shape, "pos")[::-1].copy())  # (another array)
            b = lb.permute(*perm) if perm else lb
            if diff:
                # (after the view: b's node is AsStridedBackward0, as in PyTorch, whose
                # backward over a permutation of its base must stay a copy)
                lb.requires_grad_()
            return (lambda: fn(L, a, b)), ([la, lb] if diff else [])

        case(f"{name} {key}", build)


_BINARY: list[tuple[str, Callable[..., Any], str, bool]] = [
    ("add", lambda L, a, b: a + b, "x", True),
    ("mul", lambda L, a, b: a * b, "x", True),
    ("div", lambda L, a, b: a / b, "x", True),
    ("pow", lambda L, a, b: a.pow(b), "pos", True),
    ("maximum", lambda L, a, b: L.maximum(a, b), "x", True),
    ("atan2", lambda L, a, b: L.atan2(a, b), "x", True),
    ("fmod", lambda L, a, b: L.fmod(a, b), "x", True),
    ("remainder", lambda L, a, b: L.remainder(a, b), "x", True),
    ("hypot", lambda L, a, b: L.hypot(a, b), "x", True),
    ("copysign", lambda L, a, b: L.copysign(a, b), "x", True),
    ("logaddexp", lambda L, a, b: L.logaddexp(a, b), "x", True),
    ("xlogy", lambda L, a, b: L.xlogy(a, b), "x", True),
    ("floor_divide", lambda L, a, b: L.floor_divide(a, b), "x", False),
    ("lt", lambda L, a, b: a < b, "x", False),
    ("eq", lambda L, a, b: a == b, "x", False),
    ("where", lambda L, a, b: L.where(a > 0, a, b), "x", True),
    ("lerp", lambda L, a, b: L.lerp(a, b, 0.3), "x", True),
    ("addcmul", lambda L, a, b: L.addcmul(a, a, b, value=0.5), "x", True),
    ("a + row", lambda L, a, b: a + b[..., :1, :], "x", True),
    ("isclose", lambda L, a, b: L.isclose(a, b), "x", False),
    ("mse (binary)", lambda L, a, b: L.nn.functional.mse_loss(a, b), "x", True),
]
for _n, _f, _d, _g in _BINARY:
    _binary(_n, _f, _d, _g)


def _first(out: Any) -> Any:
    return out[0] if isinstance(out, tuple) else out


# ------------------------------------------------------------------ reductions and scans
_REDUCE: list[tuple[str, Callable[..., Any], bool]] = [
    ("sum", lambda L, x, d: x.sum(d), True),
    ("mean", lambda L, x, d: x.mean(d), True),
    ("prod", lambda L, x, d: x.prod(d), True),
    ("amax", lambda L, x, d: x.amax(d), True),
    ("max(dim)", lambda L, x, d: x.max(d)[0], True),
    ("argmax", lambda L, x, d: x.argmax(d), False),
    ("std", lambda L, x, d: x.std(d), True),
    ("var_mean", lambda L, x, d: L.var_mean(x, d)[0], True),
    ("norm", lambda L, x, d: x.norm(dim=d), True),
    ("logsumexp", lambda L, x, d: x.logsumexp(d), True),
    ("softmax", lambda L, x, d: x.softmax(d), True),
    ("log_softmax", lambda L, x, d: x.log_softmax(d), True),
    ("median(dim)", lambda L, x, d: x.median(d)[0], True),
    ("nanmedian(dim)", lambda L, x, d: x.nanmedian(d)[0], True),
    ("mode(dim)", lambda L, x, d: x.mode(d)[0], False),
    ("kthvalue", lambda L, x, d: x.kthvalue(3, d)[0], True),
    ("quantile", lambda L, x, d: L.quantile(x, 0.3, dim=d), True),
    ("nansum", lambda L, x, d: x.nansum(d), True),
    ("any", lambda L, x, d: (x > 0).any(d), False),
    ("count_nonzero", lambda L, x, d: L.count_nonzero(x > 0, d), False),
    ("cumsum", lambda L, x, d: x.cumsum(d), True),
    ("cumprod", lambda L, x, d: x.cumprod(d), True),
    ("cummax", lambda L, x, d: x.cummax(d)[0], True),
    ("logcumsumexp", lambda L, x, d: x.logcumsumexp(d), True),
    ("diff", lambda L, x, d: x.diff(dim=d), True),
    ("sort", lambda L, x, d: x.sort(d)[0], True),
    ("argsort", lambda L, x, d: x.argsort(d), False),
    ("topk 10", lambda L, x, d: x.topk(10, d)[0], True),
]
for _n, _f, _g in _REDUCE:
    for _key in SHAPES:
        for _dim in (0, -1):

            def _build(
                L: Any, key: str = _key, fn: Any = _f, dim: int = _dim, diff: bool = _g
            ) -> tuple[Callable[[], Any], list[Any]]:
                leaf, x = inp(L, key, grad=diff)
                return (lambda: fn(L, x, dim)), ([leaf] if diff else [])

            case(f"{_n} dim={_dim} {_key}", _build)

for _key in SHAPES:

    def _full(L: Any, key: str = _key) -> tuple[Callable[[], Any], list[Any]]:
        leaf, x = inp(L, key, grad=True)
        return (lambda: x.sum()), [leaf]

    def _uniq(L: Any, key: str = _key) -> tuple[Callable[[], Any], list[Any]]:
        _, x = inp(L, key)
        xi = (x * 100).round()
        return (lambda: L.unique(xi, return_counts=True)), []

    case(f"sum all {_key}", _full)
    case(f"unique {_key}", _uniq)


# ------------------------------------------------------------------ indexing and scatter
def _index_cases() -> None:
    n, m = 100_000, 1000
    src = data((n, 16))
    idx = _rng.integers(0, m, n)
    mat = data((m, 16))
    gidx = _rng.integers(0, 256, (256, 256))

    def sc(name: str, fn: Callable[..., Any], diff: bool = True) -> None:
        def build(L: Any) -> tuple[Callable[[], Any], list[Any]]:
            s, base = T(L, src, diff), T(L, mat, diff)
            i1 = T(L, idx)
            i2 = i1.unsqueeze(1).expand(n, 16)
            return (lambda: fn(L, base, s, i1, i2)), ([base, s] if diff else [])

        case(name, build)

    sc("index_add 100k->1k", lambda L, b, s, i1, i2: b.index_add(0, i1, s))
    sc("index_select 1k->100k", lambda L, b, s, i1, i2: b.index_select(0, i1))
    sc("x[idx] 1k->100k", lambda L, b, s, i1, i2: b[i1])
    sc("gather 1k->100k", lambda L, b, s, i1, i2: b.gather(0, i2))
    sc("scatter_add 100k->1k", lambda L, b, s, i1, i2: b.scatter_add(0, i2, s))
    sc("scatter 100k->1k", lambda L, b, s, i1, i2: b.scatter(0, i2, s), False)
    for r in ("sum", "prod", "mean", "amax", "amin"):
        sc(
            f"scatter_reduce {r} 100k->1k",
            lambda L, b, s, i1, i2, r=r: b.scatter_reduce(0, i2, s, r),
        )
    sc(
        "index_put acc 100k->1k",
        lambda L, b, s, i1, i2: b.index_put((i1,), s, accumulate=True),
    )
    sc("index_copy", lambda L, b, s, i1, i2: b.index_copy(0, i1[:m].argsort(), b), True)
    sc("index_fill", lambda L, b, s, i1, i2: b.index_fill(0, i1[:100], 0.0), True)
    sc("take", lambda L, b, s, i1, i2: b.take(i1), True)
    sc("put_ acc", lambda L, b, s, i1, i2: b.detach().clone().put_(i1, s[:, 0], True), False)
    sc("bincount", lambda L, b, s, i1, i2: L.bincount(i1, minlength=m), False)
    sc("histc", lambda L, b, s, i1, i2: L.histc(s, 100), False)
    sc("searchsorted", lambda L, b, s, i1, i2: L.searchsorted(b[:, 0].sort()[0], s[:, 0]), False)
    sc("embedding", lambda L, b, s, i1, i2: L.nn.functional.embedding(i1, b))
    sc(
        "embedding_bag mean",
        lambda L, b, s, i1, i2: L.nn.functional.embedding_bag(
            i1, b, L.arange(0, n, 10), mode="mean"
        ),
    )
    sc(
        "embedding_bag max",
        lambda L, b, s, i1, i2: L.nn.functional.embedding_bag(
            i1, b, L.arange(0, n, 10), mode="max"
        ),
    )
    sc(
        "repeat_interleave",
        lambda L, b, s, i1, i2: b.repeat_interleave(i1[:m] % 5, dim=0),
    )

    def g2(L: Any) -> tuple[Callable[[], Any], list[Any]]:
        x = T(L, data((256, 256)), True)
        gi = T(L, gidx)
        return (lambda: x.gather(1, gi)), [x]

    case("gather 256x256 dim=1", g2)

    for key in SHAPES:

        def masks(L: Any, key: str = key) -> tuple[Callable[[], Any], list[Any]]:
            leaf, x = inp(L, key, grad=True)
            mask = x.detach() > 0
            return (lambda: x.masked_fill(mask, 0.0)), [leaf]

        def msel(L: Any, key: str = key) -> tuple[Callable[[], Any], list[Any]]:
            leaf, x = inp(L, key, grad=True)
            mask = x.detach() > 0
            return (lambda: x[mask]), [leaf]

        def nz(L: Any, key: str = key) -> tuple[Callable[[], Any], list[Any]]:
            _, x = inp(L, key)
            return (lambda: (x > 0).nonzero()), []

        def tad(L: Any, key: str = key) -> tuple[Callable[[], Any], list[Any]]:
            leaf, x = inp(L, key, grad=True)
            i = x.detach().argsort(-1)
            return (lambda: L.take_along_dim(x, i, -1)), [leaf]

        case(f"masked_fill {key}", masks)
        case(f"x[mask] {key}", msel)
        case(f"nonzero {key}", nz)
        case(f"take_along_dim {key}", tad)


_index_cases()


# ------------------------------------------------------------------ shape copies and casts
def _shape_cases() -> None:
    for key in SHAPES:

        def add(name: str, fn: Callable[..., Any], diff: bool = True, key: str = key) -> None:
            def build(L: Any) -> tuple[Callable[[], Any], list[Any]]:
                leaf, x = inp(L, key, grad=diff)
                return (lambda: fn(L, x)), ([leaf] if diff else [])

            case(f"{name} {key}", build)

        add("contiguous", lambda L, x: x.contiguous())
        add("clone", lambda L, x: x.clone())
        add("to float16", lambda L, x: x.to(L.float16))
        add("to bfloat16", lambda L, x: x.to(L.bfloat16))
        add("to float64", lambda L, x: x.to(L.float64))
        add("to int32", lambda L, x: x.to(L.int32), False)
        add("to bool", lambda L, x: x.to(L.bool), False)
        add("cat dim 0", lambda L, x: L.cat([x, x, x], 0))
        add("cat dim -1", lambda L, x: L.cat([x, x, x], -1))
        add("stack", lambda L, x: L.stack([x, x, x], 1))
        add("pad constant", lambda L, x: L.nn.functional.pad(x, (2, 3, 1, 1)))
        add("pad reflect", lambda L, x: L.nn.functional.pad(x, (2, 3), mode="reflect"))
        add("pad replicate", lambda L, x: L.nn.functional.pad(x, (2, 3), mode="replicate"))
        add("pad circular", lambda L, x: L.nn.functional.pad(x, (2, 3), mode="circular"))
        add("flip", lambda L, x: x.flip(-1))
        add("roll", lambda L, x: x.roll(3, -1))
        add("repeat", lambda L, x: x.repeat(2, 1) if x.ndim == 2 else x.repeat(2, 1, 1))
        add("tril", lambda L, x: x.tril())
        add("transpose.contiguous", lambda L, x: x.transpose(0, 1).contiguous())
        add("reshape (copy)", lambda L, x: x.reshape(-1))
        add("unfold 8/4", lambda L, x: x.unfold(-1, 8, 4).contiguous())
        add(
            "x[::2] = 0 (copy_)",
            lambda L, x: x.detach().clone().index_fill_(-1, L.arange(0, x.shape[-1], 2), 0.0),
            False,
        )
        add("diag_embed", lambda L, x: L.diag_embed(x[..., :64]))
        add("chunk+cat", lambda L, x: L.cat(x.chunk(4, -1)[::-1], -1))

        def setitem(L: Any, key: str = key) -> tuple[Callable[[], Any], list[Any]]:
            _, x = inp(L, key)
            y = L.zeros(x.shape)

            def f() -> Any:
                y[..., ::2] = x[..., ::2]
                return y

            return f, []

        case(f"y[..., ::2] = x {key}", setitem)


_shape_cases()


# ------------------------------------------------------------------ nn layers
def _nn_cases() -> None:
    x4 = data((16, 32, 32, 32))
    w3 = data((32, 32, 3, 3)) * 0.1
    x3 = data((16, 64, 256))
    w1 = data((64, 64, 5)) * 0.1

    def nn(name: str, fn: Callable[..., Any], arr: np.ndarray = x4, extra: Any = None) -> None:
        def build(L: Any) -> tuple[Callable[[], Any], list[Any]]:
            x = T(L, arr, True)
            e = None if extra is None else T(L, extra, True)
            return (lambda: fn(L, L.nn.functional, x, e)), [x] + ([e] if e is not None else [])

        case(name, build)

    nn("conv2d 3x3 32->32", lambda L, F, x, w: F.conv2d(x, w, padding=1), x4, w3)
    nn("conv2d stride 2", lambda L, F, x, w: F.conv2d(x, w, stride=2), x4, w3)
    nn("conv1d k5", lambda L, F, x, w: F.conv1d(x, w, padding=2), x3, w1)
    nn("conv_transpose2d", lambda L, F, x, w: F.conv_transpose2d(x, w, stride=2), x4, w3)
    nn("depthwise conv2d", lambda L, F, x, w: F.conv2d(x, w[:, :1], padding=1, groups=32), x4, w3)
    nn("max_pool2d 2", lambda L, F, x, _: F.max_pool2d(x, 2))
    nn("max_pool2d 3/2 pad", lambda L, F, x, _: F.max_pool2d(x, 3, 2, 1))
    nn("avg_pool2d 2", lambda L, F, x, _: F.avg_pool2d(x, 2))
    nn("adaptive_avg_pool2d 5", lambda L, F, x, _: F.adaptive_avg_pool2d(x, 5))
    nn("adaptive_max_pool2d 5", lambda L, F, x, _: F.adaptive_max_pool2d(x, 5))
    nn("max_pool1d 3", lambda L, F, x, _: F.max_pool1d(x, 3), x3)
    nn("lp_pool2d", lambda L, F, x, _: F.lp_pool2d(x, 2, 2))
    nn("batch_norm train", lambda L, F, x, _: F.batch_norm(x, None, None, training=True))
    nn("layer_norm", lambda L, F, x, _: F.layer_norm(x, (32,)))
    nn("group_norm 4", lambda L, F, x, _: F.group_norm(x, 4))
    nn("instance_norm", lambda L, F, x, _: F.instance_norm(x))
    nn("local_response_norm", lambda L, F, x, _: F.local_response_norm(x, 3))
    nn("rms_norm", lambda L, F, x, _: F.rms_norm(x, (32,)))
    nn("normalize", lambda L, F, x, _: F.normalize(x, dim=1))
    nn("interpolate nearest", lambda L, F, x, _: F.interpolate(x, scale_factor=2))
    nn(
        "interpolate bilinear",
        lambda L, F, x, _: F.interpolate(x, scale_factor=2, mode="bilinear"),
    )
    nn(
        "interpolate bicubic",
        lambda L, F, x, _: F.interpolate(x, scale_factor=2, mode="bicubic"),
    )
    nn("pixel_shuffle", lambda L, F, x, _: F.pixel_shuffle(x, 2))
    nn("unfold (im2col)", lambda L, F, x, _: F.unfold(x, 3, padding=1))
    nn("dropout eval", lambda L, F, x, _: F.dropout(x, 0.5, training=False))
    nn("softmax2d dim=1", lambda L, F, x, _: F.softmax(x, 1))
    nn("glu", lambda L, F, x, _: F.glu(x, 1))
    nn(
        "grid_sample",
        lambda L, F, x, g: F.grid_sample(x, g.tanh(), align_corners=False),
        x4,
        data((16, 32, 32, 2)),
    )
    nn("cosine_similarity", lambda L, F, x, y: F.cosine_similarity(x, y, 1), x3, x3[::-1])
    nn("pairwise_distance", lambda L, F, x, y: F.pairwise_distance(x, y), x3, x3[::-1])
    nn("cdist", lambda L, F, x, y: L.cdist(x[:4], y[:4]), x3, x3[::-1])
    nn(
        "scaled_dot_product_attention",
        lambda L, F, x, _: F.scaled_dot_product_attention(x, x, x),
        data((8, 4, 128, 64)),
    )


_nn_cases()


# ------------------------------------------------------------------ losses
def _loss_cases() -> None:
    n, c = 4096, 100
    logits = data((n, c))
    target = _rng.integers(0, c, n)
    pred = data((256, 256))
    ref = data((256, 256))[::-1]
    prob = data((256, 256), "p01")

    def loss(name: str, fn: Callable[..., Any]) -> None:
        def build(L: Any) -> tuple[Callable[[], Any], list[Any]]:
            x, t = T(L, logits, True), T(L, target)
            p, r, q = T(L, pred, True), T(L, ref), T(L, prob)
            return (lambda: fn(L.nn.functional, x, t, p, r, q)), [x, p]

        case(name, build)

    loss("cross_entropy", lambda F, x, t, p, r, q: F.cross_entropy(x, t))
    loss(
        "cross_entropy smooth",
        lambda F, x, t, p, r, q: F.cross_entropy(x, t, label_smoothing=0.1),
    )
    loss("nll_loss", lambda F, x, t, p, r, q: F.nll_loss(x, t))
    loss("multi_margin", lambda F, x, t, p, r, q: F.multi_margin_loss(x, t))
    loss("mse", lambda F, x, t, p, r, q: F.mse_loss(p, r))
    loss("l1", lambda F, x, t, p, r, q: F.l1_loss(p, r))
    loss("smooth_l1", lambda F, x, t, p, r, q: F.smooth_l1_loss(p, r))
    loss("huber", lambda F, x, t, p, r, q: F.huber_loss(p, r))
    loss("bce", lambda F, x, t, p, r, q: F.binary_cross_entropy(p.sigmoid(), q))
    loss("bce_with_logits", lambda F, x, t, p, r, q: F.binary_cross_entropy_with_logits(p, q))
    loss("kl_div", lambda F, x, t, p, r, q: F.kl_div(p.log_softmax(1), q, reduction="batchmean"))
    loss("soft_margin", lambda F, x, t, p, r, q: F.soft_margin_loss(p, r.sign()))
    loss("poisson_nll", lambda F, x, t, p, r, q: F.poisson_nll_loss(p, q))
    loss("gaussian_nll", lambda F, x, t, p, r, q: F.gaussian_nll_loss(p, r, q))
    loss("cosine_embedding", lambda F, x, t, p, r, q: F.cosine_embedding_loss(p, r, r[:, 0].sign()))
    loss("triplet_margin", lambda F, x, t, p, r, q: F.triplet_margin_loss(p, r, q))
    loss(
        "margin_ranking",
        lambda F, x, t, p, r, q: F.margin_ranking_loss(p, r, q.sign() * 2 - 1),
    )
    loss(
        "multilabel_soft_margin",
        lambda F, x, t, p, r, q: F.multilabel_soft_margin_loss(p, (q > 0.5).float()),
    )

    # CTC: T=100 steps, N=16 samples, C=20 classes, targets of 30 labels.
    steps, batch, classes, s = 100, 16, 20, 30
    lp = data((steps, batch, classes))
    tg = _rng.integers(1, classes, (batch, s))
    ilen = _rng.integers(80, steps + 1, batch)
    tlen = _rng.integers(10, s + 1, batch)

    def ctc(L: Any) -> tuple[Callable[[], Any], list[Any]]:
        x, t = T(L, lp, True), T(L, tg)
        il, tl = T(L, ilen), T(L, tlen)
        F = L.nn.functional
        return (lambda: F.ctc_loss(x.log_softmax(2), t, il, tl)), [x]

    case("ctc_loss T100 N16 C20 S30", ctc)


_loss_cases()


# ------------------------------------------------------------------ linear algebra and FFT
def _linalg_cases() -> None:
    a = data((256, 256))
    spd = (a @ a.T / 256 + np.eye(256)).astype(np.float32)
    ab = data((64, 32, 32))
    spdb = (ab @ ab.transpose(0, 2, 1) / 32 + np.eye(32)).astype(np.float32)

    def la(name: str, fn: Callable[..., Any], arr: np.ndarray, diff: bool = True) -> None:
        def build(L: Any) -> tuple[Callable[[], Any], list[Any]]:
            x = T(L, arr, diff)
            return (lambda: fn(L, x)), ([x] if diff else [])

        case(name, build)

    for tag, m, s in (("256", a, spd), ("64x32x32", ab, spdb)):
        la(f"matmul {tag}", lambda L, x: x @ x, m)
        la(f"linalg.inv {tag}", lambda L, x: L.linalg.inv(x), s)
        la(f"linalg.solve {tag}", lambda L, x: L.linalg.solve(x, x[..., :8]), s)
        la(f"linalg.cholesky {tag}", lambda L, x: L.linalg.cholesky(x), s)
        la(f"linalg.qr {tag}", lambda L, x: L.linalg.qr(x)[0], m)
        la(f"linalg.eigh {tag}", lambda L, x: L.linalg.eigh(x)[0], s)
        la(f"linalg.svdvals {tag}", lambda L, x: L.linalg.svdvals(x), m)
        la(f"linalg.det {tag}", lambda L, x: L.linalg.det(x), s)
        la(f"linalg.slogdet {tag}", lambda L, x: L.linalg.slogdet(x)[1], s)
        la(f"linalg.matrix_norm fro {tag}", lambda L, x: L.linalg.matrix_norm(x), m)
        la(f"linalg.pinv {tag}", lambda L, x: L.linalg.pinv(x), s)
        la(f"matrix_exp {tag}", lambda L, x: L.linalg.matrix_exp(x * 0.01), m)
        la(
            f"solve_triangular {tag}",
            lambda L, x: L.linalg.solve_triangular(x.tril() + 16 * L.eye(x.shape[-1]), x,
                                                   upper=False),
            m,
        )  # fmt: skip
    la("einsum bij,bjk", lambda L, x: L.einsum("bij,bjk->bik", x, x), ab)
    la("bmm", lambda L, x: L.bmm(x, x), ab)
    la("outer", lambda L, x: L.outer(x[0], x[1]), a)
    la("trace-like diagonal.sum", lambda L, x: x.diagonal(0, -2, -1).sum(), ab)
    la("kron", lambda L, x: L.kron(x[0, :16, :16], x[1, :16, :16]), ab)
    for key in SHAPES:
        la(f"fft.fft {key}", lambda L, x: L.fft.fft(x).abs(), data(SHAPES[key][0]))
        la(f"fft.rfft {key}", lambda L, x: L.fft.rfft(x).abs(), data(SHAPES[key][0]))
        la(f"fft.irfft {key}", lambda L, x: L.fft.irfft(x), data(SHAPES[key][0]))
        la(f"fft.fft2 {key}", lambda L, x: L.fft.fft2(x).real, data(SHAPES[key][0]))
        la(f"fft.fftshift {key}", lambda L, x: L.fft.fftshift(x), data(SHAPES[key][0]))


_linalg_cases()


# ------------------------------------------------------------------ higher-order autograd
def _double_backward() -> None:
    # FFJORD's trace estimate: d/dtheta of (eps^T J(x)) eps, a backward through a backward.
    w1, w2 = data((64, 256)) * 0.1, data((256, 64)) * 0.1
    x0, eps = data((512, 64)), data((512, 64))

    def build(L: Any) -> tuple[Callable[[], Any], list[Any]]:
        a, b = T(L, w1, True), T(L, w2, True)
        x, e = T(L, x0, True), T(L, eps)

        def f() -> Any:
            y = (x @ a).tanh() @ b
            (vjp,) = L.autograd.grad(y, x, e, create_graph=True)
            return (vjp * e).sum()

        return f, [a, b]

    case("FFJORD double backward (MLP 64-256-64)", build)


_double_backward()
add_cases(case, data)  # (the wider half: dtypes, in-place, out=, promotion, sorting...)


# ------------------------------------------------------------------ running
def fwd_bwd(L: Any, fwd: Callable[[], Any], leaves: list[Any]) -> Callable[[], Any]:
    def run() -> Any:
        out = _first(fwd())
        return L.autograd.grad(out.sum(), leaves, allow_unused=True)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description="operators vs PyTorch, ranked")
    parser.add_argument("--quick", action="store_true", help="fewer and shorter repeats")
    parser.add_argument("--only", default="*", help="fnmatch patterns (comma-separated)")
    parser.add_argument("--top", type=int, default=40, help="rows to print (0: all)")
    parser.add_argument("--tsv", help="write every row to this file")
    args = parser.parse_args()
    repeat, target_ns = (3, 2_000_000) if args.quick else (7, 20_000_000)
    pats = args.only.split(",")
    print(
        f"tensorcore {tc.__version__}, numpy {np.__version__}, torch {torch.__version__} "
        f"({torch.get_num_threads()} threads); median of {repeat} turns"
    )
    rows: list[tuple[float, str, str, float, float]] = []
    for name, build in CASES:
        if not any(fnmatch.fnmatch(name, p) for p in pats):
            continue
        try:
            mine, my_leaves = build(tc)
            theirs, their_leaves = build(torch)
            modes = [("fwd", mine, theirs)]
            if my_leaves:
                modes.append(
                    ("fwd+bwd", fwd_bwd(tc, mine, my_leaves), fwd_bwd(torch, theirs, their_leaves))
                )
            for mode, a, b in modes:
                t = per_call_ns({"tensorcore": a, "torch": b}, repeat, target_ns)
                r = t.ratio("tensorcore", "torch") or float("nan")
                rows.append((r, name, mode, t["tensorcore"], t["torch"]))
                print(f"  {r:7.2f}x  {name} [{mode}]", file=sys.stderr, flush=True)
        except Exception as e:  # noqa: BLE001 - a gap is a finding too, not the end
            print(f"  FAILED   {name}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
            rows.append((float("inf"), name, f"error: {type(e).__name__}", 0.0, 0.0))
    rows.sort(key=lambda r: -r[0] if r[0] == r[0] else 0.0)
    shown = rows if args.top == 0 else rows[: args.top]
    width = max((len(f"{n} [{m}]") for _, n, m, _, _ in shown), default=10)
    print(f"\n{'workload'.ljust(width)}  {'tensorcore':>10}  {'torch':>10}  {'ratio':>8}")
    for r, n, m, a, b in shown:
        print(f"{f'{n} [{m}]'.ljust(width)}  {fmt_time(a):>10}  {fmt_time(b):>10}  {r:7.2f}x")
    print(f"\n{len(rows)} rows; ratio: tensorcore / torch, median of per-turn ratios")
    if args.tsv:
        with open(args.tsv, "w") as f:
            f.write("ratio\tworkload\tmode\ttensorcore_ns\ttorch_ns\n")
            for r, n, m, a, b in rows:
                f.write(f"{r:.3f}\t{n}\t{m}\t{a:.0f}\t{b:.0f}\n")


if __name__ == "__main__":
    main()
