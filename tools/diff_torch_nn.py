"""Differential runs of tensorcore's training API against PyTorch: a developer tool, run by hand.

``tools/diff_torch.py`` covers the declared operators; this tool covers what is built on them:
the functions of ``torch.nn.functional`` that tensorcore has, ``torch.nn`` modules, the
optimizers and the learning-rate schedulers. Every case is drawn at random (seeded: a run is
repeatable) among valid configurations: shapes with batch 1 and odd sizes, strides, padding,
dilation, groups, reductions, weights, ``ignore_index``, modes... One body, written once against
PyTorch's API, is called with ``tensorcore`` and with ``torch`` on the same inputs (same values,
dtypes, shapes and strides: contiguous, non-contiguous or channels-last).

Compared: exceptions (both raise, builtin types related, or neither), result structure, dtypes,
shapes and values; then ``tc.autograd.grad`` against ``torch.autograd.grad`` (same
``grad_outputs``) for the floating inputs and the module parameters; the modules' buffers
after the call (batch norm's running statistics). Modules get equal parameters by copying
PyTorch's initial values. Optimizers and schedulers run N steps of a small model from equal
parameters and gradients; compared are the parameters and learning rates after every step and
the ``state_dict`` structure (keys, nesting, value types; tensors' dtypes, shapes and values).

Tolerances: float64 about 1e-10 relative; float32 loose. A summary by function and kind is
printed; the details go to ``--out``. Known, deliberate differences are listed in
:data:`EXPECTED`, with the reason. PyTorch is this tool's oracle only: the package and its
tests never import it.

Usage::

    python3 tools/diff_torch_nn.py                       # everything, 4 draws per function
    python3 tools/diff_torch_nn.py --only 'conv*,*pool*' --draws 20 -v
    python3 tools/diff_torch_nn.py --kinds optim,sched
"""

# The closures made in loops are called in the same iteration:
# ruff: noqa: B023

from __future__ import annotations

import argparse
import collections
import fnmatch
import math
import random
import sys
import traceback
import warnings
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

try:
    import torch
except ImportError:  # pragma: no cover - a developer tool
    sys.exit("diff_torch_nn.py needs PyTorch (pip install torch): it is the oracle it compares to")

import tensorcore as tc

#: (rtol, atol) of values and gradients per dtype.
TOLERANCE = {"float64": (1e-10, 1e-12), "float32": (2e-4, 2e-5)}

#: Known, deliberate differences: (case name, description, dtype, kind) fnmatch patterns and
#: the reason. A mismatch matching one is counted as "expected", not reported. (Not drawn at
#: all: a sparse embedding gradient of a non-contiguous weight view, whose tc.autograd.grad
#: runs the view's own backward, which cannot copy a sparse gradient; PyTorch stops at the
#: view. Its backward() to the base fails in both libraries.)
EXPECTED: list[tuple[str, str, str, str, str]] = [
    (
        "LBFGS",
        "*",
        "float32",
        "*values",
        "near convergence float32 rounding decides the line search (float64 agrees)",
    ),
    (
        "LBFGS",
        "*",
        "float32",
        "state-[sr]*",
        "near convergence float32 rounding decides the number of iterations (float64 agrees)",
    ),
    (
        "*onv*3d",
        "*channels_last*",
        "float64",
        "memory-format",
        "PyTorch's float64 CPU conv3d (its slow path) returns row-major; its float32 one "
        "keeps channels-last, as ours does for both",
    ),
    (
        "*",
        "*",
        "*",
        "state-aliasing",
        "PyTorch's Optimizer.load_state_dict keeps the dict's tensors (same dtype and device: "
        "no copy), so the loaded optimizer shares them with the one saved; ours copies them "
        "(optimizer.py is being restructured elsewhere; a copy is the safe behaviour)",
    ),
    (
        "*onv*ranspose3d",
        "x(1, *channels_last*",
        "*",
        "memory-format",
        "layout only: PyTorch's CPU conv_transpose3d of a batch of one gives a row-major "
        "result (a larger batch keeps channels-last, as ours always does)",
    ),
    (
        "logsigmoid",
        "*",
        "*",
        "memory-format",
        "layout only: PyTorch's logsigmoid allocates a row-major result (its buffer); ours "
        "keeps the input's format as the other elementwise functions do",
    ),
    (
        "rrelu",
        "*",
        "*",
        "memory-format",
        "layout only: PyTorch's rrelu (eval) gives a row-major result; ours keeps the "
        "input's format as leaky_relu does",
    ),
    (
        "Conv[23]d",
        "*padding_mode=circular*",
        "*",
        "memory-format",
        "layout only: PyTorch's circular pad gives a row-major input to the convolution; "
        "ours keeps channels-last through it",
    ),
    (
        "fractional_max_pool2d",
        "*'output_ratio': 0.*",
        "*",
        "raises-only-torch",
        "PyTorch's functional form fails on a float output_ratio (TypeError: no len(); its "
        "module takes one); ours takes it, as the module does",
    ),
    (
        "hardsigmoid",
        "*",
        "float64",
        "grad-values",
        "PyTorch's float64 hardsigmoid backward multiplies by float32's 1/6 (ours is exact)",
    ),
    (
        "nll_loss",
        "*channels_last*",
        "*",
        "grad-raises-only-torch",
        "PyTorch's nll_loss2d backward refuses a channels-last input ('grad_input must be "
        "contiguous')",
    ),
    (
        "max_pool3d",
        "x(*, *, *, *) *channels_last*",
        "*",
        "raises-only-torch",
        "PyTorch refuses an unbatched 3-d pooling input with channels-last (2-d) strides",
    ),
]


# ------------------------------------------------------------------ cases
@dataclass
class In:
    """One input: its shape and how its values are drawn.

    ``kind``: ``f`` normal floats, ``pos`` positive floats, ``p`` in (0, 1), ``i`` int64 in
    ``[0, high)``, ``b`` bools, ``v`` the given ``values`` (floats keep the run's dtype).
    Floating inputs with ``grad`` are differentiated.
    """

    shape: tuple[int, ...]
    kind: str = "f"
    grad: bool = True
    high: int = 2
    values: Any = None
    layout: bool = True  # whether the run's layout (non-contiguous, channels-last) applies

    def __post_init__(self) -> None:
        if self.values in ("sign", "counts", "labels", "mask"):
            self.grad = False


@dataclass
class Case:
    kind: str  # functional, module, optim, sched
    name: str
    desc: str
    inputs: list[In]
    call: Callable[..., Any]  # call(L, mod, *xs): L is tensorcore or torch
    make: Callable[[Any], Any] | None = None  # make(L) -> a module
    train: bool = False
    grad: bool = True
    dtypes: tuple[str, ...] = ("float64", "float32")


@dataclass
class Mismatch:
    kind: str
    name: str
    dtype: str
    desc: str
    detail: str


@dataclass
class Report:
    items: list[Mismatch] = field(default_factory=list)
    expected: list[tuple[Mismatch, str]] = field(default_factory=list)
    runs: collections.Counter[str] = field(default_factory=collections.Counter)

    def add(self, kind: str, name: str, dtype: str, desc: str, detail: str) -> None:
        m = Mismatch(kind, name, dtype, desc, detail.replace("\n", " ")[:500])
        for pname, pdesc, pdt, pkind, reason in EXPECTED:
            if (
                fnmatch.fnmatchcase(name, pname)
                and fnmatch.fnmatchcase(f"{desc} | {m.detail}", pdesc)
                and fnmatch.fnmatchcase(dtype, pdt)
                and fnmatch.fnmatchcase(kind, pkind)
            ):
                self.expected.append((m, reason))
                return
        self.items.append(m)


def F(L: Any) -> Any:
    return L.nn.functional


def tup(n: int, v: Any) -> tuple[Any, ...]:
    return tuple(v for _ in range(n))


# ------------------------------------------------------------------ functional draws
def conv_cases(r: random.Random, d: int) -> Iterator[Case]:
    for transposed in (False, True):
        name = f"conv_transpose{d}d" if transposed else f"conv{d}d"
        for _ in range(DRAWS):
            groups = r.choice([1, 1, 2, 3])
            cin, cout = groups * r.randint(1, 2), groups * r.randint(1, 3)
            k = tuple(r.randint(1, 3) for _ in range(d))
            stride = r.choice([1, 2, tuple(r.randint(1, 3) for _ in range(d))])
            dil = r.choice([1, 1, 2])
            n = r.choice([1, 2, 3])
            spatial = tuple(r.randint(4, 8) for _ in range(d))
            bias = r.random() < 0.7
            if transposed:
                pad = r.choice([0, 1])
                s = stride if isinstance(stride, tuple) else tup(d, stride)
                outpad = tuple(r.randint(0, max(0, min(si, dil) - 1)) for si in s)
                w = (cin, cout // groups, *k)
                kw = dict(stride=stride, padding=pad, output_padding=outpad, groups=groups)
                kw["dilation"] = dil
            else:
                pad = r.choice([0, 1, "same", "valid", tuple(r.randint(0, 2) for _ in range(d))])
                if pad == "same":
                    stride = 1
                w = (cout, cin // groups, *k)
                kw = dict(stride=stride, padding=pad, dilation=dil, groups=groups)
            ins = [In((n, cin, *spatial)), In(w)] + ([In((cout,))] if bias else [])
            yield Case(
                "functional",
                name,
                f"x{ins[0].shape} w{w} bias={bias} {kw}",
                ins,
                lambda L, m, x, w, b=None, kw=kw: getattr(F(L), name)(x, w, b, **kw),
            )


def pool_cases(r: random.Random, d: int) -> Iterator[Case]:
    for _ in range(DRAWS):
        n, c = r.choice([1, 2]), r.choice([1, 3])
        spatial = tuple(r.randint(5, 9) for _ in range(d))
        k = r.choice([2, 3, tuple(r.randint(1, 3) for _ in range(d))])
        kk = k if isinstance(k, tuple) else tup(d, k)
        stride = r.choice([None, 1, 2, tuple(r.randint(1, 3) for _ in range(d))])
        pad = r.choice([0, 1]) if min(kk) >= 2 else 0
        ceil = r.random() < 0.5
        batched = r.random() < 0.8
        shape = (n, c, *spatial) if batched else (c, *spatial)
        # max pooling
        dil = r.choice([1, 1, 2])
        ri = r.random() < 0.5
        kw: dict[str, Any] = dict(stride=stride, padding=pad, dilation=dil, ceil_mode=ceil)
        kw["return_indices"] = ri
        yield Case(
            "functional",
            f"max_pool{d}d",
            f"x{shape} k={k} {kw}",
            [In(shape, values="distinct")],
            lambda L, m, x, k=k, kw=kw: getattr(F(L), f"max_pool{d}d")(x, k, **kw),
        )
        # unpool what was pooled, with and without output_size
        if ri and batched and d < 3:
            osize = r.choice([None, shape[2:]])
            yield Case(
                "functional",
                f"max_unpool{d}d",
                f"x{shape} k={k} {kw} output_size={osize}",
                [In(shape, values="distinct")],
                lambda L, m, x, k=k, kw=kw, osize=osize: (
                    getattr(F(L), f"max_unpool{d}d")(
                        *getattr(F(L), f"max_pool{d}d")(x, k, **kw),
                        k,
                        stride=kw["stride"],
                        padding=kw["padding"],
                        output_size=osize,
                    )
                    if kw["dilation"] == 1
                    else None
                ),
            )
        # average pooling
        kw = dict(stride=stride, padding=pad, ceil_mode=ceil)
        kw["count_include_pad"] = r.random() < 0.5
        if d > 1:
            kw["divisor_override"] = r.choice([None, None, 3])
        yield Case(
            "functional",
            f"avg_pool{d}d",
            f"x{shape} k={k} {kw}",
            [In(shape)],
            lambda L, m, x, k=k, kw=kw: getattr(F(L), f"avg_pool{d}d")(x, k, **kw),
        )
        # power-average pooling (positive inputs: the p-th root of a sum)
        p = r.choice([1, 2, 3.0])
        kw = dict(stride=stride, ceil_mode=ceil)
        yield Case(
            "functional",
            f"lp_pool{d}d",
            f"x{shape} p={p} k={k} {kw}",
            [In(shape, "pos")],
            lambda L, m, x, p=p, k=k, kw=kw: getattr(F(L), f"lp_pool{d}d")(x, p, k, **kw),
        )
        # adaptive pooling
        out = r.choice([1, 3, tuple(r.choice([None, 2, 4, 5]) for _ in range(d))])
        if d == 1 and isinstance(out, tuple):
            out = out[0] or 2
        for kind in ("avg", "max"):
            extra = {"return_indices": r.random() < 0.5} if kind == "max" else {}
            yield Case(
                "functional",
                f"adaptive_{kind}_pool{d}d",
                f"x{shape} output_size={out} {extra}",
                [In(shape, values="distinct")],
                lambda L, m, x, kind=kind, out=out, extra=extra: getattr(
                    F(L), f"adaptive_{kind}_pool{d}d"
                )(x, out, **extra),
            )


def interpolate_cases(r: random.Random) -> Iterator[Case]:
    modes = {
        1: ["nearest", "nearest-exact", "linear", "area"],
        2: ["nearest", "nearest-exact", "bilinear", "bicubic", "area"],
        3: ["nearest", "nearest-exact", "trilinear", "area"],
    }
    for _ in range(DRAWS * 3):
        d = r.choice([1, 2, 3])
        mode = r.choice(modes[d])
        shape = (r.choice([1, 2]), r.choice([1, 3]), *(r.randint(3, 7) for _ in range(d)))
        kw: dict[str, Any] = {"mode": mode}
        if r.random() < 0.5:
            kw["size"] = r.choice([r.randint(2, 9), tuple(r.randint(2, 9) for _ in range(d))])
        else:
            kw["scale_factor"] = r.choice(
                [2, 0.5, 1.7, tuple(r.choice([0.6, 1.5, 2.0, 3]) for _ in range(d))]
            )
            kw["recompute_scale_factor"] = r.choice([None, True, False])
        if mode in ("linear", "bilinear", "bicubic", "trilinear"):
            kw["align_corners"] = r.choice([None, False, True])
        if mode in ("bilinear", "bicubic") and r.random() < 0.4:
            kw["antialias"] = True
        yield Case(
            "functional",
            "interpolate",
            f"x{shape} {kw}",
            [In(shape)],
            lambda L, m, x, kw=kw: F(L).interpolate(x, **kw),
        )


def grid_cases(r: random.Random) -> Iterator[Case]:
    for _ in range(DRAWS * 2):
        d = r.choice([2, 2, 3])
        n = r.choice([1, 2])
        align = r.choice([False, True])
        mode = r.choice(["bilinear", "nearest", "bicubic"] if d == 2 else ["bilinear", "nearest"])
        pm = r.choice(["zeros", "border", "reflection"])
        shape = (n, r.choice([1, 3]), *(r.randint(3, 6) for _ in range(d)))
        gshape = (n, *(r.randint(2, 5) for _ in range(d)), d)
        yield Case(
            "functional",
            "grid_sample",
            f"x{shape} grid{gshape} {mode} {pm} align_corners={align}",
            [In(shape), In(gshape, "v", values="grid", layout=False)],
            lambda L, m, x, g, mode=mode, pm=pm, align=align: F(L).grid_sample(
                x, g, mode=mode, padding_mode=pm, align_corners=align
            ),
            grad=mode != "nearest" or True,
        )
        size = (n, 3, *(r.randint(2, 5) for _ in range(d)))
        yield Case(
            "functional",
            "affine_grid",
            f"theta({n}, {d}, {d + 1}) size={size} align_corners={align}",
            [In((n, d, d + 1))],
            lambda L, m, th, size=size, align=align: F(L).affine_grid(
                th, list(size), align_corners=align
            ),
        )


def pad_cases(r: random.Random) -> Iterator[Case]:
    for _ in range(DRAWS * 3):
        mode = r.choice(["constant", "reflect", "replicate", "circular"])
        nd = r.choice([1, 2, 3])
        batched = r.random() < 0.7
        sizes = tuple(r.randint(3, 6) for _ in range(nd))
        shape = ((r.choice([1, 2]),) if batched else ()) + (r.choice([1, 2]),) + sizes
        npad = r.choice(range(1, nd + 1)) if mode == "constant" else nd
        pads = []
        for i in range(npad):
            top = sizes[-1 - i] - 1 if mode == "reflect" else sizes[-1 - i]
            lo = -1 if mode in ("constant", "circular") else 0
            pads += [r.randint(lo, min(2, top)), r.randint(lo, min(2, top))]
        kw: dict[str, Any] = {"mode": mode}
        if mode == "constant":
            kw["value"] = r.choice([0.0, 1.5])
        yield Case(
            "functional",
            "pad",
            f"x{shape} pad={pads} {kw}",
            [In(shape)],
            lambda L, m, x, pads=pads, kw=kw: F(L).pad(x, pads, **kw),
        )


def norm_cases(r: random.Random) -> Iterator[Case]:
    for _ in range(DRAWS):
        n, c = r.choice([1, 2, 4]), r.choice([1, 3, 4])
        sp = tuple(r.randint(1, 5) for _ in range(r.choice([0, 1, 2, 3])))
        shape = (n, c, *sp)
        p = r.choice([1, 2, 3.0, float("inf")])
        dim = r.choice([1, -1, 0])
        yield Case(
            "functional",
            "normalize",
            f"x{shape} p={p} dim={dim}",
            [In(shape)],
            lambda L, m, x, p=p, dim=dim: F(L).normalize(x, p=p, dim=dim),
        )
        k = r.randint(1, len(shape) - 1)
        ns = shape[-k:]
        aff = r.random() < 0.7
        ins = [In(shape)] + ([In(ns), In(ns)] if aff else [])
        yield Case(
            "functional",
            "layer_norm",
            f"x{shape} normalized_shape={ns} affine={aff}",
            ins,
            lambda L, m, x, w=None, b=None, ns=ns: F(L).layer_norm(x, ns, w, b, eps=1e-5),
        )
        eps = r.choice([None, 1e-6])
        yield Case(
            "functional",
            "rms_norm",
            f"x{shape} normalized_shape={ns} weight={aff} eps={eps}",
            ins[:2],
            lambda L, m, x, w=None, ns=ns, eps=eps: F(L).rms_norm(x, ns, w, eps=eps),
        )
        g = r.choice([gg for gg in (1, 2, 4) if c % gg == 0])
        ins = [In(shape)] + ([In((c,)), In((c,))] if aff else [])
        yield Case(
            "functional",
            "group_norm",
            f"x{shape} groups={g} affine={aff}",
            ins,
            lambda L, m, x, w=None, b=None, g=g: F(L).group_norm(x, g, w, b),
        )
        training = r.random() < 0.6
        stats = r.random() < 0.7 or not training
        mom = r.choice([0.1, 0.3])
        ok = not training or n * math.prod(sp) > 1
        if ok:
            ins = [In(shape)]
            ins += [In((c,), grad=False), In((c,), "pos", grad=False)] if stats else []
            ins += [In((c,)), In((c,))] if aff else []

            def bn(L: Any, m: Any, x: Any, *rest: Any, stats=stats, aff=aff, tr=training, mom=mom):
                rm, rv = rest[:2] if stats else (None, None)
                w, b = rest[-2:] if aff else (None, None)
                y = F(L).batch_norm(x, rm, rv, w, b, training=tr, momentum=mom, eps=1e-4)
                return (y, rm, rv) if stats else y

            yield Case(
                "functional",
                "batch_norm",
                f"x{shape} training={training} stats={stats} affine={aff} momentum={mom}",
                ins,
                bn,
            )
        if sp and (math.prod(sp) > 1):
            use_input_stats = r.random() < 0.8 or not stats
            ins = [In(shape)]
            ins += [In((c,), grad=False), In((c,), "pos", grad=False)] if stats else []
            ins += [In((c,)), In((c,))] if aff else []

            def inorm(L: Any, m: Any, x: Any, *rest: Any, stats=stats, aff=aff, u=use_input_stats):
                rm, rv = rest[:2] if stats else (None, None)
                w, b = rest[-2:] if aff else (None, None)
                y = F(L).instance_norm(x, rm, rv, w, b, use_input_stats=u, momentum=0.2)
                return (y, rm, rv) if stats else y

            yield Case(
                "functional",
                "instance_norm",
                f"x{shape} stats={stats} use_input_stats={use_input_stats} affine={aff}",
                ins,
                inorm,
            )
        if sp:
            size = r.randint(1, 4)
            kw = dict(alpha=r.choice([1e-4, 0.5]), beta=r.choice([0.75, 1.5]), k=r.choice([1.0, 2]))
            yield Case(
                "functional",
                "local_response_norm",
                f"x{shape} size={size} {kw}",
                [In(shape)],
                lambda L, m, x, size=size, kw=kw: F(L).local_response_norm(x, size, **kw),
            )


def embedding_cases(r: random.Random) -> Iterator[Case]:
    for _ in range(DRAWS):
        num, dim = r.randint(3, 7), r.randint(1, 4)
        ishape = r.choice([(5,), (2, 3), (1, 4), ()])
        pidx = r.choice([None, 0, -1])
        sgf = r.random() < 0.4
        kw: dict[str, Any] = dict(padding_idx=pidx, scale_grad_by_freq=sgf)
        kw["sparse"] = r.random() < 0.3  # (a sparse COO gradient of the weight)
        if r.random() < 0.3:
            kw["max_norm"] = r.choice([0.5, 1.0])
            kw["norm_type"] = r.choice([1.0, 2.0])
        yield Case(
            "functional",
            "embedding",
            f"idx{ishape} weight({num}, {dim}) {kw}",
            # (a sparse gradient of a contiguous weight: see the note on EXPECTED)
            [
                In(ishape, "i", high=num),
                In((num, dim), grad="max_norm" not in kw, layout=not kw["sparse"]),
            ],
            lambda L, m, i, w, kw=kw: F(L).embedding(i, w.clone() if "max_norm" in kw else w, **kw),
        )
        mode = r.choice(["sum", "mean", "max"])
        two_d = r.random() < 0.4
        psw = mode == "sum" and r.random() < 0.5
        kw = dict(mode=mode, padding_idx=r.choice([None, 1]))
        kw["sparse"] = mode != "max" and r.random() < 0.3
        if two_d:
            ins = [In((3, 4), "i", high=num), In((num, dim), layout=not kw["sparse"])]
            ins += [In((3, 4))] if psw else []
            desc = "2-d input"
        else:
            kw["include_last_offset"] = r.random() < 0.4
            # (with include_last_offset the last offset is the input's size, as documented)
            last = 7 if kw["include_last_offset"] else r.choice([2, 5])
            ins = [
                In((7,), "i", high=num),
                In((num, dim), layout=not kw["sparse"]),
                In((3,), "v", values=[0, 2, last]),
            ]
            ins += [In((7,))] if psw else []
            desc = "1-d input with offsets"

        def bag(L: Any, m: Any, i: Any, w: Any, *rest: Any, kw=kw, two_d=two_d, psw=psw):
            offs = None if two_d else rest[0].long()
            ps = rest[-1] if psw else None
            return F(L).embedding_bag(i, w, offs, per_sample_weights=ps, **kw)

        yield Case("functional", "embedding_bag", f"{desc} weight({num}, {dim}) {kw}", ins, bag)


REDUCTIONS = ("mean", "sum", "none")


def loss_cases(r: random.Random) -> Iterator[Case]:
    def red() -> str:
        return r.choice(REDUCTIONS)

    def shape() -> tuple[int, ...]:
        return r.choice([(4,), (3, 5), (1, 2, 3), ()])

    for _ in range(DRAWS):
        for name in ("l1_loss", "mse_loss", "soft_margin_loss"):
            s, rd = shape(), red()
            yield Case(
                "functional",
                name,
                f"{s} reduction={rd}",
                [In(s), In(s, "v", values="sign") if name == "soft_margin_loss" else In(s)],
                lambda L, m, a, b, name=name, rd=rd: getattr(F(L), name)(a, b, reduction=rd),
            )
        s, rd, beta = shape(), red(), r.choice([1.0, 0.5, 0.0])
        yield Case(
            "functional",
            "smooth_l1_loss",
            f"{s} reduction={rd} beta={beta}",
            [In(s), In(s)],
            lambda L, m, a, b, rd=rd, beta=beta: F(L).smooth_l1_loss(a, b, reduction=rd, beta=beta),
        )
        s, rd, delta = shape(), red(), r.choice([1.0, 0.5, 2.0])
        yield Case(
            "functional",
            "huber_loss",
            f"{s} reduction={rd} delta={delta}",
            [In(s), In(s)],
            lambda L, m, a, b, rd=rd, delta=delta: F(L).huber_loss(a, b, reduction=rd, delta=delta),
        )
        # classification
        n, c = r.choice([1, 3, 4]), r.choice([2, 5])
        sp = r.choice([(), (), (3,), (2, 3)])
        batched = r.random() < 0.85 or sp
        xs = (n, c, *sp) if batched else (c,)
        ts = (n, *sp) if batched else ()
        for name in ("nll_loss", "cross_entropy"):
            rd = red()
            kw: dict[str, Any] = {"reduction": rd, "ignore_index": r.choice([-100, 1])}
            weighted = r.random() < 0.5
            probs = name == "cross_entropy" and r.random() < 0.3
            if name == "cross_entropy":
                kw["label_smoothing"] = r.choice([0.0, 0.0, 0.2])
            ins = [In(xs)]
            ins.append(In(xs, "p", grad=True) if probs else In(ts, "i", high=c))
            ins += [In((c,), "pos", grad=False)] if weighted else []
            yield Case(
                "functional",
                name,
                f"x{xs} {'prob targets' if probs else 'targets'} weight={weighted} {kw}",
                ins,
                lambda L, m, x, t, w=None, name=name, kw=kw: getattr(F(L), name)(
                    x, t, weight=w, **kw
                ),
            )
        # binary
        s, rd = shape(), red()
        weighted = r.random() < 0.5
        ins = [In(s, "p"), In(s, "p", grad=r.random() < 0.5)]
        ins += [In(s, "pos", grad=False)] if weighted else []
        yield Case(
            "functional",
            "binary_cross_entropy",
            f"{s} reduction={rd} weight={weighted}",
            ins,
            lambda L, m, x, t, w=None, rd=rd: F(L).binary_cross_entropy(x, t, w, reduction=rd),
        )
        s = r.choice([(4,), (3, 5), (2, 1, 3)])
        pw = r.random() < 0.5
        ins = [
            In(s),
            In(s, "p"),
            In(s[-1:], "pos", grad=False) if weighted else In((), "v", values=1.0),
        ]
        ins += [In(s[-1:], "pos", grad=False)] if pw else []

        def bcel(L: Any, m: Any, x: Any, t: Any, w: Any, pwt: Any = None, rd=rd, weighted=weighted):
            return F(L).binary_cross_entropy_with_logits(
                x, t, w if weighted else None, reduction=rd, pos_weight=pwt
            )

        yield Case(
            "functional",
            "binary_cross_entropy_with_logits",
            f"{s} reduction={rd} weight={weighted} pos_weight={pw}",
            ins,
            bcel,
        )
        s, rd, lt = shape(), r.choice([*REDUCTIONS, "batchmean"]), r.random() < 0.5
        yield Case(
            "functional",
            "kl_div",
            f"{s} reduction={rd} log_target={lt}",
            [In(s), In(s, "f" if lt else "p")],
            lambda L, m, a, b, rd=rd, lt=lt: F(L).kl_div(a, b, reduction=rd, log_target=lt),
        )
        s, rd = shape(), red()
        li, full = r.random() < 0.5, r.random() < 0.5
        yield Case(
            "functional",
            "poisson_nll_loss",
            f"{s} reduction={rd} log_input={li} full={full}",
            [In(s, "f" if li else "pos"), In(s, "v", values="counts")],
            lambda L, m, a, b, rd=rd, li=li, full=full: F(L).poisson_nll_loss(
                a, b, log_input=li, full=full, reduction=rd
            ),
        )
        s = r.choice([(4, 3), (2, 3, 2), (5,)])
        vs = r.choice([s, s[:-1] + (1,), s[:-1]]) if len(s) > 1 else s
        rd, full = red(), r.random() < 0.5
        yield Case(
            "functional",
            "gaussian_nll_loss",
            f"input{s} var{vs} reduction={rd} full={full}",
            [In(s), In(s), In(vs, "pos")],
            lambda L, m, a, b, v, rd=rd, full=full: F(L).gaussian_nll_loss(
                a, b, v, full=full, reduction=rd
            ),
        )
        # margins and embeddings
        n, dd = r.choice([1, 3]), r.choice([2, 4])
        rd, margin = red(), r.choice([0.0, 0.5, -0.2])
        yield Case(
            "functional",
            "cosine_embedding_loss",
            f"({n}, {dd}) reduction={rd} margin={margin}",
            [In((n, dd)), In((n, dd)), In((n,), "v", values="sign")],
            lambda L, m, a, b, y, rd=rd, margin=margin: F(L).cosine_embedding_loss(
                a, b, y, margin=margin, reduction=rd
            ),
        )
        s, rd, margin = shape(), red(), r.choice([1.0, 0.3])
        yield Case(
            "functional",
            "hinge_embedding_loss",
            f"{s} reduction={rd} margin={margin}",
            [In(s), In(s, "v", values="sign")],
            lambda L, m, a, y, rd=rd, margin=margin: F(L).hinge_embedding_loss(
                a, y, margin=margin, reduction=rd
            ),
        )
        s, rd, margin = r.choice([(4,), (1,)]), red(), r.choice([0.0, 0.5])
        yield Case(
            "functional",
            "margin_ranking_loss",
            f"{s} reduction={rd} margin={margin}",
            [In(s), In(s), In(s, "v", values="sign")],
            lambda L, m, a, b, y, rd=rd, margin=margin: F(L).margin_ranking_loss(
                a, b, y, margin=margin, reduction=rd
            ),
        )
        n, c = r.choice([1, 3]), r.choice([2, 4])
        p, margin, rd, weighted = r.choice([1, 2]), r.choice([1.0, 0.5]), red(), r.random() < 0.5
        ins = [In((n, c)), In((n,), "i", high=c)] + (
            [In((c,), "pos", grad=False)] if weighted else []
        )
        yield Case(
            "functional",
            "multi_margin_loss",
            f"({n}, {c}) p={p} margin={margin} weight={weighted} reduction={rd}",
            ins,
            lambda L, m, x, t, w=None, p=p, margin=margin, rd=rd: F(L).multi_margin_loss(
                x, t, p=p, margin=margin, weight=w, reduction=rd
            ),
        )
        rd = red()
        yield Case(
            "functional",
            "multilabel_margin_loss",
            f"({n}, {c}) reduction={rd}",
            [In((n, c)), In((n, c), "v", values="labels")],
            lambda L, m, x, t, rd=rd: F(L).multilabel_margin_loss(x, t.long(), reduction=rd),
        )
        rd = red()
        ins = [In((n, c)), In((n, c), "i", high=2)] + (
            [In((c,), "pos", grad=False)] if weighted else []
        )
        yield Case(
            "functional",
            "multilabel_soft_margin_loss",
            f"({n}, {c}) weight={weighted} reduction={rd}",
            ins,
            lambda L, m, x, t, w=None, rd=rd: F(L).multilabel_soft_margin_loss(
                x, t, weight=w, reduction=rd
            ),
        )
        s = r.choice([(3, 4), (1, 2), (5,)])
        kw = dict(margin=r.choice([1.0, 0.2]), p=r.choice([1, 2, 3]), swap=r.random() < 0.5)
        kw["reduction"] = red()
        yield Case(
            "functional",
            "triplet_margin_loss",
            f"{s} {kw}",
            [In(s), In(s), In(s)],
            lambda L, m, a, p, n, kw=kw: F(L).triplet_margin_loss(a, p, n, **kw),
        )
        kw2 = dict(margin=kw["margin"], swap=kw["swap"], reduction=kw["reduction"])
        yield Case(
            "functional",
            "triplet_margin_with_distance_loss",
            f"{s} cosine distance {kw2}",
            [In(s), In(s), In(s)],
            lambda L, m, a, p, n, kw2=kw2: F(L).triplet_margin_with_distance_loss(
                a,
                p,
                n,
                distance_function=lambda u, v: 1 - F(L).cosine_similarity(u, v, dim=-1),
                **kw2,
            ),
        )
        # connectionist temporal classification
        t_len, n, c = r.randint(5, 8), r.choice([1, 2]), r.randint(3, 5)
        blank = r.choice([0, c - 1])
        rd, zi = red(), r.random() < 0.5
        tl = [r.randint(1, 3) for _ in range(n)]
        il = [r.randint(max(tl) + 1, t_len) for _ in range(n)]
        labels = [r.choice([k for k in range(c) if k != blank]) for _ in range(n * 3)]
        yield Case(
            "functional",
            "ctc_loss",
            f"T={t_len} N={n} C={c} blank={blank} reduction={rd} zero_infinity={zi} "
            f"target_lengths={tl}",
            [In((t_len, n, c)), In((n, 3), "v", values=labels, grad=False, layout=False)],
            lambda L, m, x, t, il=il, tl=tl, blank=blank, rd=rd, zi=zi: F(L).ctc_loss(
                F(L).log_softmax(x, -1),
                t.long(),
                il,
                tl,
                blank=blank,
                reduction=rd,
                zero_infinity=zi,
            ),
        )


def activation_cases(r: random.Random) -> Iterator[Case]:
    acts: list[tuple[str, Callable[[], dict[str, Any]]]] = [
        ("relu", dict),
        ("relu6", dict),
        ("elu", lambda: {"alpha": r.choice([1.0, 0.5, 2.0])}),
        ("celu", lambda: {"alpha": r.choice([1.0, 0.5, 2.0])}),
        ("selu", dict),
        ("gelu", lambda: {"approximate": r.choice(["none", "tanh"])}),
        ("glu", lambda: {"dim": r.choice([-1, 0])}),
        ("hardshrink", lambda: {"lambd": r.choice([0.5, 0.2])}),
        ("softshrink", lambda: {"lambd": r.choice([0.5, 0.2])}),
        ("hardsigmoid", dict),
        ("hardswish", dict),
        ("hardtanh", lambda: {"min_val": r.choice([-1.0, -0.5]), "max_val": r.choice([1.0, 2])}),
        ("leaky_relu", lambda: {"negative_slope": r.choice([0.01, 0.2])}),
        ("logsigmoid", dict),
        ("mish", dict),
        ("sigmoid", dict),
        ("silu", dict),
        ("softplus", lambda: {"beta": r.choice([1.0, 2.0, 0.5]), "threshold": r.choice([20, 1])}),
        ("softsign", dict),
        ("tanh", dict),
        ("tanhshrink", dict),
        ("threshold", lambda: {"threshold": r.choice([0.1, -0.2]), "value": r.choice([0.0, 2.0])}),
        ("rrelu", lambda: {"lower": 0.1, "upper": 0.3, "training": False}),
        ("softmax", lambda: {"dim": r.choice([0, -1])}),
        ("log_softmax", lambda: {"dim": r.choice([0, -1])}),
        ("softmin", lambda: {"dim": r.choice([0, -1])}),
        ("dropout", lambda: {"p": r.choice([0.0, 0.5]), "training": False}),
        ("dropout1d", lambda: {"p": 0.0, "training": True}),
        ("dropout2d", lambda: {"p": 0.3, "training": False}),
        ("dropout3d", lambda: {"p": 0.0}),
    ]
    for _ in range(max(1, DRAWS // 2)):
        for name, kwf in acts:
            kw = kwf()
            s = r.choice([(2, 4), (3, 2, 4), (1, 2, 2, 4), (4,), (1, 2, 2, 2, 2)])
            if name == "dropout1d":
                s = r.choice([(2, 3, 4), (3, 4)])
            if name == "dropout2d":
                s = (2, 3, 2, 4)
            if name == "dropout3d":
                s = r.choice([(2, 3, 2, 2, 4), (3, 2, 2, 4)])
            if name in ("softmax", "log_softmax", "softmin") and r.random() < 0.3:
                kw["dtype"] = "float64"
            yield Case(
                "functional",
                name,
                f"x{s} {kw}",
                [In(s)],
                lambda L, m, x, name=name, kw=kw: getattr(F(L), name)(
                    x,
                    **{k: getattr(L, v) if k == "dtype" else v for k, v in kw.items()},
                ),
            )
        # in-place forms, on a copy (a non-leaf: its gradient flows back through the copy)
        for name, kw in (
            ("relu_", {}),
            ("elu_", {"alpha": r.choice([1.0, 0.5])}),
            ("leaky_relu_", {"negative_slope": r.choice([0.01, 0.3])}),
            ("hardtanh_", {"min_val": -0.5, "max_val": r.choice([0.5, 1.0])}),
            ("threshold_", {"threshold": 0.1, "value": r.choice([0.0, -1.0])}),
            ("rrelu_", {"lower": 0.2, "upper": 0.4, "training": False}),
        ):
            s = r.choice([(2, 4), (1, 3, 2, 2)])
            yield Case(
                "functional",
                name,
                f"x{s} {kw}",
                [In(s)],
                lambda L, m, x, name=name, kw=kw: getattr(F(L), name)(x * 1, **kw),
            )
        # fractional max pooling, its random samples given
        n, c = r.choice([1, 2]), r.choice([1, 3])
        hw = (r.randint(5, 9), r.randint(5, 9))
        k = r.choice([2, 3])
        size = {"output_size": (r.randint(2, hw[0] - k + 1), r.randint(2, hw[1] - k + 1))}
        if r.random() < 0.4:
            size = {"output_ratio": r.choice([0.5, (0.6, 0.7)])}
        ri = r.random() < 0.5
        yield Case(
            "functional",
            "fractional_max_pool2d",
            f"x{(n, c, *hw)} k={k} {size} return_indices={ri} (_random_samples given)",
            [In((n, c, *hw), values="distinct"), In((n, c, 2), "p", grad=False, layout=False)],
            lambda L, m, x, u, k=k, size=size, ri=ri: F(L).fractional_max_pool2d(
                x, k, **size, return_indices=ri, _random_samples=u
            ),
        )
        # gumbel_softmax is random: its dtype and shape, and each row a distribution
        hard = r.random() < 0.5
        yield Case(
            "functional",
            "gumbel_softmax",
            f"logits(3, 5) tau=0.7 hard={hard} (row sums)",
            [In((3, 5))],
            lambda L, m, x, hard=hard: F(L).gumbel_softmax(x, tau=0.7, hard=hard).sum(-1),
            grad=False,
        )
        c = r.choice([1, 3])
        s = r.choice([(2, c, 4), (1, c), (c,)])
        yield Case(
            "functional",
            "prelu",
            f"x{s} weight({c})",
            [In(s), In((r.choice([1, c]),))],
            lambda L, m, x, w: F(L).prelu(x, w),
        )


def misc_cases(r: random.Random) -> Iterator[Case]:
    for _ in range(DRAWS):
        nc = r.choice([-1, 5])
        s = r.choice([(4,), (2, 3), ()])
        yield Case(
            "functional",
            "one_hot",
            f"idx{s} num_classes={nc}",
            [In(s, "i", high=4)],
            lambda L, m, i, nc=nc: F(L).one_hot(i, nc),
        )
        n, dd, p = r.randint(2, 5), r.randint(1, 4), r.choice([1.0, 2.0, 0.5, 3.0, float("inf")])
        yield Case(
            "functional",
            "pdist",
            f"({n}, {dd}) p={p}",
            [In((n, dd))],
            lambda L, m, x, p=p: F(L).pdist(x, p),
        )
        b = r.choice([(), (2,)])
        mode = r.choice(
            [
                "use_mm_for_euclid_dist_if_necessary",
                "use_mm_for_euclid_dist",
                "donot_use_mm_for_euclid_dist",
            ]
        )
        yield Case(
            "functional",
            "cdist",
            f"x1{(*b, n, dd)} x2{(*b, 3, dd)} p={p} {mode}",
            [In((*b, n, dd)), In((*b, 3, dd))],
            lambda L, m, a, c, p=p, mode=mode: L.cdist(a, c, p=p, compute_mode=mode),
        )
        s = r.choice([(3, 4), (2, 3, 4), (4,)])
        dim, eps = r.choice([-1, 0]), r.choice([1e-8, 0.5])
        yield Case(
            "functional",
            "cosine_similarity",
            f"{s} dim={dim} eps={eps}",
            [In(s), In(s[-1:] if r.random() < 0.3 else s)],
            lambda L, m, a, c, dim=dim, eps=eps: F(L).cosine_similarity(a, c, dim=dim, eps=eps),
        )
        kd = r.random() < 0.5
        yield Case(
            "functional",
            "pairwise_distance",
            f"{s} p={p} keepdim={kd}",
            [In(s), In(s)],
            lambda L, m, a, c, p=p, kd=kd: F(L).pairwise_distance(a, c, p=p, keepdim=kd),
        )
        # unfold / fold
        k = r.choice([2, (2, 3), 1])
        kw = dict(dilation=r.choice([1, 2]), padding=r.choice([0, 1]), stride=r.choice([1, 2]))
        kk = k if isinstance(k, tuple) else (k, k)
        hw = (r.randint(4, 7), r.randint(4, 7))
        batched = r.random() < 0.8
        c = r.choice([1, 3])
        s = ((r.choice([1, 2]),) if batched else ()) + (c, *hw)
        yield Case(
            "functional",
            "unfold",
            f"x{s} k={k} {kw}",
            [In(s)],
            lambda L, m, x, k=k, kw=kw: F(L).unfold(x, k, **kw),
        )
        blocks = [
            (hw[i] + 2 * kw["padding"] - kw["dilation"] * (kk[i] - 1) - 1) // kw["stride"] + 1
            for i in range(2)
        ]
        fs = ((s[0],) if batched else ()) + (c * kk[0] * kk[1], blocks[0] * blocks[1])
        yield Case(
            "functional",
            "fold",
            f"x{fs} output_size={hw} k={k} {kw}",
            [In(fs)],
            lambda L, m, x, k=k, kw=kw, hw=hw: F(L).fold(x, hw, k, **kw),
        )
        f = r.choice([1, 2, 3])
        s = (r.choice([1, 2]), 2 * f * f, 2, 3)
        yield Case(
            "functional",
            "pixel_shuffle",
            f"x{s} factor={f}",
            [In(s)],
            lambda L, m, x, f=f: F(L).pixel_shuffle(x, f),
        )
        s2 = (1, 2, 2 * f, 3 * f)
        yield Case(
            "functional",
            "pixel_unshuffle",
            f"x{s2} factor={f}",
            [In(s2)],
            lambda L, m, x, f=f: F(L).pixel_unshuffle(x, f),
        )
        yield Case(
            "functional",
            "channel_shuffle",
            "x(2, 6, 2, 3) groups=3",
            [In((2, 6, 2, 3))],
            lambda L, m, x: F(L).channel_shuffle(x, 3),
        )
        # linear
        s = r.choice([(3, 4), (4,), (2, 3, 4)])
        bias = r.random() < 0.5
        yield Case(
            "functional",
            "linear",
            f"x{s} bias={bias}",
            [In(s), In((5, 4))] + ([In((5,))] if bias else []),
            lambda L, m, x, w, b=None: F(L).linear(x, w, b),
        )
        # attention
        bsz, heads, lq, lk, e, ev = (
            r.choice([1, 2]),
            r.choice([1, 2]),
            r.randint(1, 5),
            r.randint(1, 5),
            r.choice([2, 4]),
            r.choice([3, 4]),
        )
        mask = r.choice([None, "bool", "float"])
        causal = mask is None and r.random() < 0.5
        scale = r.choice([None, 0.3])
        gqa = heads == 2 and r.random() < 0.4  # (grouped query attention: one key head)
        kh = 1 if gqa else heads
        ins = [In((bsz, heads, lq, e)), In((bsz, kh, lk, e)), In((bsz, kh, lk, ev))]
        if mask == "bool":
            ins.append(In((lq, lk), "v", values="mask", grad=False, layout=False))
        elif mask == "float":
            ins.append(In((bsz, 1, lq, lk)))

        def sdpa(
            L: Any,
            m: Any,
            q: Any,
            k: Any,
            v: Any,
            am: Any = None,
            causal=causal,
            scale=scale,
            gqa=gqa,
        ):
            if am is not None and am.dtype == L.int64:
                am = am.bool()
            kw = {"enable_gqa": True} if gqa else {}
            return F(L).scaled_dot_product_attention(
                q, k, v, attn_mask=am, is_causal=causal, scale=scale, **kw
            )

        yield Case(
            "functional",
            "scaled_dot_product_attention",
            f"q{ins[0].shape} k{ins[1].shape} v{ins[2].shape} mask={mask} causal={causal} "
            f"scale={scale} enable_gqa={gqa}",
            ins,
            sdpa,
        )


def mha_cases(r: random.Random) -> Iterator[Case]:
    for _ in range(DRAWS):
        e, heads = r.choice([4, 6]), r.choice([1, 2])
        lq, lk, bsz = r.randint(1, 4), r.randint(1, 4), r.choice([1, 2])
        kw: dict[str, Any] = dict(
            need_weights=r.random() < 0.7,
            average_attn_weights=r.random() < 0.5,
            add_zero_attn=r.random() < 0.3,
        )
        bias_kv = r.random() < 0.3
        kpm = r.choice([None, "bool", "float"])
        am = r.choice([None, "bool", "float"])
        ins = [In((lq, bsz, e)), In((lk, bsz, e)), In((lk, bsz, e))]
        ins += [In((3 * e, e)), In((3 * e,)), In((e, e)), In((e,))]
        ins += [In((1, 1, e)), In((1, 1, e))] if bias_kv else []
        extra = lk + int(kw["add_zero_attn"]) + int(bias_kv)
        del extra

        def mhaf(
            L: Any,
            m: Any,
            q: Any,
            k: Any,
            v: Any,
            w: Any,
            b: Any,
            ow: Any,
            ob: Any,
            *rest: Any,
            kw=kw,
            bias_kv=bias_kv,
            kpm=kpm,
            am=am,
            heads=heads,
            lq=lq,
            lk=lk,
            bsz=bsz,
        ):
            bk, bv = rest[:2] if bias_kv else (None, None)
            g = L.Generator().manual_seed(0)
            kp = None
            if kpm is not None:
                kp = L.rand(bsz, lk, generator=g) < 0.3
                kp[:, 0] = False
                kp = kp if kpm == "bool" else L.where(kp, -1e4, 0.0).to(q.dtype)
            mask = None
            if am is not None:
                mask = L.rand(lq, lk, generator=g) < 0.3
                mask[:, 0] = False
                mask = mask if am == "bool" else L.where(mask, -1e4, 0.0).to(q.dtype)
            return F(L).multi_head_attention_forward(
                q,
                k,
                v,
                q.shape[-1],
                heads,
                w,
                b,
                bk,
                bv,
                kw["add_zero_attn"],
                0.0,
                ow,
                ob,
                training=False,
                key_padding_mask=kp,
                need_weights=kw["need_weights"],
                attn_mask=mask,
                average_attn_weights=kw["average_attn_weights"],
            )

        yield Case(
            "functional",
            "multi_head_attention_forward",
            f"e={e} heads={heads} Lq={lq} Lk={lk} N={bsz} bias_kv={bias_kv} "
            f"key_padding_mask={kpm} attn_mask={am} {kw}",
            ins,
            mhaf,
        )


# ------------------------------------------------------------------ module draws
def module_cases(r: random.Random) -> Iterator[Case]:
    def mod(
        name: str,
        cls: str,
        desc: str,
        ins: list[In],
        *args: Any,
        train: bool = False,
        call: Callable[..., Any] | None = None,
        **kwargs: Any,
    ) -> Case:
        return Case(
            "module",
            name,
            desc,
            ins,
            call or (lambda L, m, *xs: m(*xs)),
            make=lambda L: getattr(L.nn, cls)(*args, **kwargs),
            train=train,
        )

    for _ in range(DRAWS):
        bias = r.random() < 0.7
        s = r.choice([(3, 4), (4,), (2, 3, 4)])
        yield mod("Linear", "Linear", f"x{s} bias={bias}", [In(s)], 4, 5, bias=bias)
        yield mod(
            "Bilinear", "Bilinear", f"bias={bias}", [In((3, 2)), In((3, 4))], 2, 4, 3, bias=bias
        )
        for d in (1, 2, 3):
            g = r.choice([1, 2])
            k = r.choice([1, 3])
            kw = dict(stride=r.choice([1, 2]), padding=r.choice([0, 1]), groups=g, bias=bias)
            pm = r.choice(["zeros", "reflect", "replicate", "circular"])
            spatial = tuple(r.randint(3, 6) for _ in range(d))
            x = In((r.choice([1, 2]), 2 * g, *spatial))
            yield mod(
                f"Conv{d}d",
                f"Conv{d}d",
                f"x{x.shape} k={k} {kw} padding_mode={pm}",
                [x],
                2 * g,
                3 * g,
                k,
                padding_mode=pm,
                **kw,
            )
            yield mod(
                f"ConvTranspose{d}d",
                f"ConvTranspose{d}d",
                f"x{x.shape} k={k} {kw}",
                [x],
                2 * g,
                3 * g,
                k,
                **kw,
            )
            c = r.choice([1, 3])
            shape = (r.choice([2, 3]), c, *spatial) if d > 1 else r.choice([(4, c), (2, c, 5)])
            aff, trs = r.random() < 0.7, r.random() < 0.7
            train = r.random() < 0.7
            mom = r.choice([0.1, None])
            yield mod(
                f"BatchNorm{d}d",
                f"BatchNorm{d}d",
                f"x{shape} affine={aff} track_running_stats={trs} momentum={mom} train={train}",
                [In(shape)],
                c,
                affine=aff,
                track_running_stats=trs,
                momentum=mom,
                train=train,
            )
            if d > 1 or len(shape) == 3:
                ishape = (r.choice([1, 2]), c, *spatial) if d > 1 else shape
                yield mod(
                    f"InstanceNorm{d}d",
                    f"InstanceNorm{d}d",
                    f"x{ishape} affine={aff} track_running_stats={trs} train={train}",
                    [In(ishape)],
                    c,
                    affine=aff,
                    track_running_stats=trs,
                    train=train,
                )
            ks = r.choice([2, 3])
            yield mod(
                f"MaxPool{d}d",
                f"MaxPool{d}d",
                f"x{x.shape} k={ks} ceil_mode=True",
                [In(x.shape, values="distinct")],
                ks,
                ceil_mode=True,
            )
            yield mod(
                f"AvgPool{d}d",
                f"AvgPool{d}d",
                f"x{x.shape} k={ks} padding=1",
                [x],
                ks,
                padding=1,
                count_include_pad=False,
            )
            yield mod(f"AdaptiveAvgPool{d}d", f"AdaptiveAvgPool{d}d", f"x{x.shape} out=2", [x], 2)
        s = (r.choice([1, 3]), 3, 4)
        aff = r.random() < 0.7
        yield mod(
            "LayerNorm",
            "LayerNorm",
            f"x{s} (3, 4) elementwise_affine={aff} bias={bias}",
            [In(s)],
            (3, 4),
            elementwise_affine=aff,
            bias=bias,
        )
        yield mod(
            "GroupNorm",
            "GroupNorm",
            f"x(2, 4, 3) groups=2 affine={aff}",
            [In((2, 4, 3))],
            2,
            4,
            affine=aff,
        )
        yield mod(
            "RMSNorm",
            "RMSNorm",
            f"x{s} (4,) elementwise_affine={aff}",
            [In(s)],
            4,
            elementwise_affine=aff,
        )
        yield mod("PReLU", "PReLU", "x(2, 3, 4) num_parameters=3", [In((2, 3, 4))], 3)
        for cls in ("RNNCell", "LSTMCell", "GRUCell"):
            n = r.choice([1, 3])
            batched = r.random() < 0.8
            h0 = r.random() < 0.5
            xs = (n, 4) if batched else (4,)
            hs = (n, 3) if batched else (3,)
            ins = [In(xs)] + ([In(hs)] * (2 if cls == "LSTMCell" else 1) if h0 else [])

            def cell(L: Any, m: Any, x: Any, *h: Any, cls=cls) -> Any:
                hx = None if not h else ((h[0], h[1]) if cls == "LSTMCell" else h[0])
                return m(x, hx)

            yield mod(
                cls,
                cls,
                f"x{xs} h0={h0} bias={bias}",
                ins,
                4,
                3,
                bias=bias,
                call=cell,
            )
        # a whole encoder (layers deep-copied from one: equal after the copy of parameters)
        nl, norm = r.choice([1, 2]), r.random() < 0.5
        bf = r.random() < 0.5
        n, ls = r.choice([1, 2]), r.randint(2, 4)
        kpm = r.random() < 0.5

        def encoder(L: Any, nl=nl, norm=norm, bf=bf) -> Any:
            layer = L.nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, batch_first=bf)
            final = L.nn.LayerNorm(4) if norm else None
            return L.nn.TransformerEncoder(layer, nl, norm=final, enable_nested_tensor=False)

        def run_encoder(L: Any, m: Any, x: Any, kpm=kpm, n=n, ls=ls) -> Any:
            mask = None
            if kpm:
                mask = L.rand(n, ls, generator=L.Generator().manual_seed(2)) < 0.4
                mask[:, 0] = False
            return m(x, src_key_padding_mask=mask)

        yield Case(
            "module",
            "TransformerEncoder",
            f"layers={nl} norm={norm} batch_first={bf} N={n} S={ls} key_padding_mask={kpm}",
            [In((n, ls, 4) if bf else (ls, n, 4))],
            run_encoder,
            make=encoder,
            train=r.random() < 0.5,
        )
        yield Case(
            "module",
            "Transformer",
            f"N={n} S={ls} T=3 batch_first={bf}",
            [In((n, ls, 4) if bf else (ls, n, 4)), In((n, 3, 4) if bf else (3, n, 4))],
            lambda L, m, src, tgt: m(src, tgt),
            make=lambda L, bf=bf: L.nn.Transformer(4, 2, 1, 1, 6, dropout=0.0, batch_first=bf),
            train=True,
        )
        yield mod(
            "Embedding",
            "Embedding",
            "idx(2, 3) padding_idx=1",
            [In((2, 3), "i", high=6)],
            6,
            3,
            padding_idx=1,
        )
        yield mod(
            "EmbeddingBag",
            "EmbeddingBag",
            "idx(2, 3) mean",
            [In((2, 3), "i", high=6)],
            6,
            3,
            mode="mean",
        )
        # recurrent
        for cls in ("RNN", "LSTM", "GRU"):
            nl = r.choice([1, 2])
            bidi = r.random() < 0.5
            bf = r.random() < 0.5
            kw = dict(num_layers=nl, bidirectional=bidi, batch_first=bf, bias=r.random() < 0.8)
            if cls == "RNN":
                kw["nonlinearity"] = r.choice(["tanh", "relu"])
            if cls == "LSTM" and r.random() < 0.4:
                kw["proj_size"] = 2
            t, n = r.randint(1, 4), r.choice([1, 3])
            batched = r.random() < 0.8
            xs = ((n, t) if bf else (t, n)) if batched else (t,)
            packed = batched and r.random() < 0.4
            h0 = r.random() < 0.4
            hsz = 3
            ins = [In((*xs, 4))]
            if h0:
                nd = nl * (2 if bidi else 1)
                hs = (
                    (nd, n, kw.get("proj_size", hsz)) if batched else (nd, kw.get("proj_size", hsz))
                )
                ins.append(In(hs))
                if cls == "LSTM":
                    ins.append(In((*hs[:-1], hsz)))
            lengths = sorted((r.randint(1, t) for _ in range(n)), reverse=r.random() < 0.5)
            lengths[0] = t
            es = r.random() < 0.5
            if es:
                lengths.sort(reverse=True)

            def rnn(
                L: Any,
                m: Any,
                x: Any,
                *h: Any,
                cls=cls,
                packed=packed,
                lengths=lengths,
                bf=bf,
                es=es,
            ):
                hx = None
                if h:
                    hx = (h[0], h[1]) if cls == "LSTM" else h[0]
                if packed:
                    rnn_utils = L.nn.utils.rnn
                    p = rnn_utils.pack_padded_sequence(
                        x, lengths, batch_first=bf, enforce_sorted=es
                    )
                    out, hn = m(p, hx)
                    return rnn_utils.pad_packed_sequence(out, batch_first=bf), hn
                return m(x, hx)

            yield mod(
                cls,
                cls,
                f"x{ins[0].shape} {kw} h0={h0} packed={packed} lengths={lengths}"
                f" enforce_sorted={es}",
                ins,
                4,
                hsz,
                call=rnn,
                **kw,
            )
        # transformer layers
        d_model, nhead = 4, r.choice([1, 2])
        kw = dict(
            dim_feedforward=6,
            dropout=0.0,
            activation=r.choice(["relu", "gelu"]),
            batch_first=r.random() < 0.5,
            norm_first=r.random() < 0.5,
        )
        kw["bias"] = r.random() < 0.8
        n, ls, lt = r.choice([1, 2]), r.randint(1, 4), r.randint(1, 4)
        src = (n, ls, d_model) if kw["batch_first"] else (ls, n, d_model)
        tgt = (n, lt, d_model) if kw["batch_first"] else (lt, n, d_model)
        causal = r.random() < 0.5

        def enc(L: Any, m: Any, x: Any, causal=causal, ls=ls):
            mask = (
                L.nn.Transformer.generate_square_subsequent_mask(ls, dtype=x.dtype)
                if causal
                else None
            )
            return m(x, src_mask=mask, is_causal=causal)

        yield mod(
            "TransformerEncoderLayer",
            "TransformerEncoderLayer",
            f"src{src} nhead={nhead} {kw} causal={causal}",
            [In(src)],
            d_model,
            nhead,
            call=enc,
            train=True,
            **kw,
        )

        def dec(L: Any, m: Any, x: Any, mem: Any, causal=causal, lt=lt):
            mask = (
                L.nn.Transformer.generate_square_subsequent_mask(lt, dtype=x.dtype)
                if causal
                else None
            )
            return m(x, mem, tgt_mask=mask, tgt_is_causal=causal)

        yield mod(
            "TransformerDecoderLayer",
            "TransformerDecoderLayer",
            f"tgt{tgt} memory{src} nhead={nhead} {kw} causal={causal}",
            [In(tgt), In(src)],
            d_model,
            nhead,
            call=dec,
            train=True,
            **kw,
        )
        # multi-head attention
        e, heads = r.choice([4, 6]), r.choice([1, 2])
        kdim = r.choice([None, 3])
        vdim = r.choice([None, 5])
        bf = r.random() < 0.5
        ckw = dict(
            bias=r.random() < 0.8,
            add_bias_kv=r.random() < 0.3,
            add_zero_attn=r.random() < 0.3,
            kdim=kdim,
            vdim=vdim,
            batch_first=bf,
        )
        lq, lk = r.randint(1, 4), r.randint(1, 4)
        batched = r.random() < 0.8
        bsz = r.choice([1, 2])

        def shp(length: int, dim: int, bf=bf, batched=batched, bsz=bsz) -> tuple[int, ...]:
            if not batched:
                return (length, dim)
            return (bsz, length, dim) if bf else (length, bsz, dim)

        fkw = dict(need_weights=r.random() < 0.7, average_attn_weights=r.random() < 0.5)
        kpm = batched and r.random() < 0.4
        ins = [In(shp(lq, e)), In(shp(lk, kdim or e)), In(shp(lk, vdim or e))]

        def mha(L: Any, m: Any, q: Any, k: Any, v: Any, fkw=fkw, kpm=kpm, bsz=bsz, lk=lk):
            mask = None
            if kpm:
                mask = L.rand(bsz, lk, generator=L.Generator().manual_seed(1)) < 0.4
                mask[:, 0] = False
            return m(q, k, v, key_padding_mask=mask, **fkw)

        yield mod(
            "MultiheadAttention",
            "MultiheadAttention",
            f"q{ins[0].shape} k{ins[1].shape} v{ins[2].shape} heads={heads} {ckw} {fkw} "
            f"key_padding_mask={kpm}",
            ins,
            e,
            heads,
            call=mha,
            **ckw,
        )


# ------------------------------------------------------------------ values and layouts
def draw_values(spec: In, rng: np.random.Generator) -> np.ndarray:
    s = spec.shape
    v = spec.values
    if isinstance(v, str):
        n = math.prod(s)
        if v == "distinct":  # no ties, so that argmax-like results are unique
            return (
                rng.permutation(n).astype(np.float64) / n - 0.5 + rng.normal(0, 1e-3, n)
            ).reshape(s)
        if v == "grid":
            return rng.uniform(-1.2, 1.2, s)
        if v == "sign":
            return rng.choice([-1.0, 1.0], s)
        if v == "counts":
            return rng.integers(0, 5, s).astype(np.float64)
        if v == "mask":
            m = rng.random(s) < 0.3
            m[..., 0] = False
            return m.astype(np.int64)
        if v == "labels":  # multilabel_margin_loss targets: labels then -1
            out = -np.ones(s, dtype=np.int64)
            for row in out.reshape(-1, s[-1]):
                k = rng.integers(0, s[-1] + 1)
                row[:k] = rng.permutation(s[-1])[:k]
            return out
    if v is not None:
        return np.asarray(v, dtype=np.float64).reshape(s)
    if spec.kind == "f":
        return rng.normal(size=s)
    if spec.kind == "pos":
        return rng.uniform(0.3, 2.0, s)
    if spec.kind == "p":
        return rng.uniform(0.05, 0.95, s)
    if spec.kind == "i":
        return rng.integers(0, spec.high, s)
    if spec.kind == "b":
        return rng.random(s) < 0.5
    raise ValueError(spec.kind)


def make_pair(arr: np.ndarray, spec: In, dtype: str, layout: str) -> tuple[Any, Any]:
    """The same tensor in both libraries: values, dtype, shape and strides."""
    floating = arr.dtype.kind == "f"
    if floating:
        arr = arr.astype(dtype)
    grad = floating and spec.grad
    ndim = arr.ndim
    if layout == "noncontiguous" and spec.layout and ndim >= 1:
        big = np.zeros((*arr.shape[:-1], 2 * arr.shape[-1]), dtype=arr.dtype)
        big[..., ::2] = arr
        a = tc.from_numpy(big.copy()).requires_grad_(grad)
        b = torch.from_numpy(big.copy()).requires_grad_(grad)
        return a[..., ::2], b[..., ::2]
    a = tc.from_numpy(arr.copy()).requires_grad_(grad)
    b = torch.from_numpy(arr.copy()).requires_grad_(grad)
    if layout == "channels_last" and spec.layout and ndim in (4, 5):
        fmt = "channels_last" if ndim == 4 else "channels_last_3d"
        return (
            a.contiguous(memory_format=getattr(tc, fmt)),
            b.contiguous(memory_format=getattr(torch, fmt)),
        )
    return a, b


def flatten(x: Any) -> list[Any]:
    if isinstance(x, (tuple, list)):
        return [y for item in x for y in flatten(item)]
    return [x]


def tc_numpy(t: Any) -> np.ndarray:
    return t.detach().cpu().numpy()


def base_exception(e: BaseException) -> type:
    for cls in type(e).__mro__:
        if cls.__module__ == "builtins":
            return cls
    return type(e)


def attempt(fn: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(), None
    except Exception as e:  # noqa: BLE001 - every failure is data here
        return None, e


def compare(
    rep: Report, c: Case, dtype: str, desc: str, a: Any, b: Any, where: str, prefix: str = ""
) -> None:
    """Compare one tensorcore value ``a`` with PyTorch's ``b``."""
    if isinstance(a, tc.Tensor) != isinstance(b, torch.Tensor):
        rep.add(
            prefix + "structure",
            c.name,
            dtype,
            desc,
            f"{where}: {type(a).__name__} vs {type(b).__name__}",
        )
        return
    if not isinstance(a, tc.Tensor):
        same = a == b
        if isinstance(a, float) and isinstance(b, float):
            same = math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) or (
                math.isnan(a) and math.isnan(b)
            )
        if not same or type(a) is not type(b):
            rep.add(prefix + "values", c.name, dtype, desc, f"{where}: {a!r} vs {b!r}")
        return
    if a.dtype.name != str(b.dtype).removeprefix("torch."):
        rep.add(prefix + "dtype", c.name, dtype, desc, f"{where}: {a.dtype.name} vs {b.dtype}")
        return
    if tuple(a.shape) != tuple(b.shape):
        rep.add(
            prefix + "shape", c.name, dtype, desc, f"{where}: {tuple(a.shape)} vs {tuple(b.shape)}"
        )
        return
    if b.is_sparse or getattr(a, "is_sparse", False):
        a, b = (a.to_dense() if a.is_sparse else a), (b.to_dense() if b.is_sparse else b)
    x, y = tc_numpy(a), b.detach().numpy()
    if x.dtype.kind in "biu":
        ok = np.array_equal(x, y)
        worst = "" if ok else f"{int((x != y).sum())} of {x.size} differ"
    else:
        rtol, atol = TOLERANCE.get(a.dtype.name, (1e-4, 1e-5))
        ok = np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
        with np.errstate(all="ignore"):
            diff = np.abs(x.astype(np.float64) - y.astype(np.float64))
            rel = diff / np.maximum(np.abs(y.astype(np.float64)), 1e-300)
        worst = (
            ""
            if ok
            else (
                f"max abs diff {np.nanmax(diff):.3g} rel {np.nanmax(rel):.3g}" if diff.size else ""
            )
        )
    if not ok:
        rep.add(
            prefix + "values",
            c.name,
            dtype,
            desc,
            f"{where}: {worst}; ours {x.ravel()[:4]} torch {y.ravel()[:4]}",
        )
        return
    if a.dim() in (4, 5) and a.numel() > 1 and prefix == "":
        fmt = "channels_last" if a.dim() == 4 else "channels_last_3d"
        ours = a.is_contiguous(memory_format=getattr(tc, fmt)) and not a.is_contiguous()
        theirs = b.is_contiguous(memory_format=getattr(torch, fmt)) and not b.is_contiguous()
        if ours != theirs:
            rep.add(
                "memory-format",
                c.name,
                dtype,
                desc,
                f"{where}: {'channels-last' if ours else 'not channels-last'} vs "
                f"{'channels-last' if theirs else 'not channels-last'}",
            )


def compare_all(
    rep: Report,
    c: Case,
    dtype: str,
    desc: str,
    ours: Any,
    theirs: Any,
    where: str,
    prefix: str = "",
) -> None:
    fa, fb = flatten(ours), flatten(theirs)
    if len(fa) != len(fb):
        rep.add(
            prefix + "structure", c.name, dtype, desc, f"{where}: {len(fa)} vs {len(fb)} values"
        )
        return
    for k, (a, b) in enumerate(zip(fa, fb, strict=True)):
        compare(rep, c, dtype, desc, a, b, f"{where}[{k}]", prefix)


def sync_module(tm: Any, om: Any, dtype: str) -> str | None:
    """Give tensorcore's module PyTorch's parameters and buffers; a name mismatch is returned."""
    tn = dict(tm.named_parameters())
    on = dict(om.named_parameters())
    tb = {k: v for k, v in tm.named_buffers() if v is not None}
    ob = {k: v for k, v in om.named_buffers() if v is not None}
    if list(tn) != list(on) or set(tb) != set(ob):
        return f"parameters {list(on)} buffers {sorted(ob)} vs torch's {list(tn)} {sorted(tb)}"
    with tc.no_grad():
        for name, p in tn.items():
            if tuple(on[name].shape) != tuple(p.shape):
                return f"{name}: shape {tuple(on[name].shape)} vs torch's {tuple(p.shape)}"
            on[name].copy_(tc.from_numpy(p.detach().numpy().copy()))
        for name, b in tb.items():
            ob[name].copy_(tc.from_numpy(b.detach().numpy().copy()))
    return None


def run_case(rep: Report, c: Case, dtype: str, layout: str, seed: int) -> None:
    desc = f"{c.desc} [{layout}]"
    rep.runs[c.name] += 1
    rng = np.random.default_rng(seed)
    arrays = [draw_values(s, rng) for s in c.inputs]
    pairs = [make_pair(a, s, dtype, layout) for a, s in zip(arrays, c.inputs, strict=True)]
    ours_in = [p[0] for p in pairs]
    theirs_in = [p[1] for p in pairs]
    om = tm = None
    params_o: list[Any] = []
    params_t: list[Any] = []
    if c.make is not None:
        torch.manual_seed(seed)
        tm, e2 = attempt(lambda: c.make(torch))
        om, e1 = attempt(lambda: c.make(tc))
        if e1 is not None or e2 is not None:
            report_raise(rep, c, dtype, desc, e1, e2, "constructor ")
            return
        tm = tm.to(getattr(torch, dtype)).train(c.train)
        om = om.to(getattr(tc, dtype)).train(c.train)
        bad = sync_module(tm, om, dtype)
        if bad:
            rep.add("module-structure", c.name, dtype, desc, bad)
            return
        params_o, params_t = list(om.parameters()), list(tm.parameters())
        if layout == "contiguous" and repr(om) != repr(tm):
            rep.add("repr", c.name, dtype, desc, f"{repr(om)!r} vs {repr(tm)!r}")
        keys_o, keys_t = list(om.state_dict()), list(tm.state_dict())
        if keys_o != keys_t:
            rep.add("state-structure", c.name, dtype, desc, f"state_dict keys {keys_o} vs {keys_t}")
    ours, e1 = attempt(lambda: c.call(tc, om, *ours_in))
    theirs, e2 = attempt(lambda: c.call(torch, tm, *theirs_in))
    if e1 is not None or e2 is not None:
        report_raise(rep, c, dtype, desc, e1, e2)
        return
    compare_all(rep, c, dtype, desc, ours, theirs, "out")
    for (a, b), s in zip(pairs, c.inputs, strict=True):
        if not s.grad:  # running statistics updated in place
            compare(rep, c, dtype, desc, a, b, "input after the call")
    if om is not None:
        ob = dict(om.named_buffers())
        for name, b in tm.named_buffers():
            if b is not None:
                compare(rep, c, dtype, desc, ob.get(name), b, f"buffer {name}")
    if not c.grad:
        return
    outs_o = [o for o in flatten(ours) if isinstance(o, tc.Tensor) and o.requires_grad]
    outs_t = [o for o in flatten(theirs) if isinstance(o, torch.Tensor) and o.requires_grad]
    if len(outs_o) != len(outs_t):
        rep.add(
            "grad-structure",
            c.name,
            dtype,
            desc,
            f"{len(outs_o)} vs {len(outs_t)} outputs requiring grad",
        )
        return
    leaves_o = [x for x in ours_in if x.requires_grad] + params_o
    leaves_t = [x for x in theirs_in if x.requires_grad] + params_t
    if not outs_t or not leaves_t:
        return
    gos = [rng.normal(size=tuple(o.shape)) for o in outs_t]
    g1, e1 = attempt(
        lambda: tc.autograd.grad(
            outs_o,
            leaves_o,
            [tc.from_numpy(g).to(o.dtype) for g, o in zip(gos, outs_o, strict=True)],
            allow_unused=True,
        )
    )
    g2, e2 = attempt(
        lambda: torch.autograd.grad(
            outs_t,
            leaves_t,
            [torch.from_numpy(g).to(o.dtype) for g, o in zip(gos, outs_t, strict=True)],
            allow_unused=True,
        )
    )
    if e1 is not None or e2 is not None:
        report_raise(rep, c, dtype, desc, e1, e2, "grad-")
        return
    for k, (a, b) in enumerate(zip(g1, g2, strict=True)):
        if a is None and b is None:
            continue
        a = tc.zeros_like(leaves_o[k]) if a is None else a
        b = torch.zeros_like(leaves_t[k]) if b is None else b
        nparam = len(leaves_t) - len(params_t)
        where = f"grad[{k}]" if k < nparam else f"grad[param {k - nparam}]"
        compare(rep, c, dtype, desc, a, b, where, "grad-")


def report_raise(
    rep: Report,
    c: Case,
    dtype: str,
    desc: str,
    e1: BaseException | None,
    e2: BaseException | None,
    prefix: str = "",
) -> None:
    if e1 is None:
        rep.add(prefix + "raises-only-torch", c.name, dtype, desc, f"{type(e2).__name__}: {e2}")
    elif e2 is None:
        tb = "".join(traceback.format_exception(e1)[-3:])
        rep.add(prefix + "raises-only-tc", c.name, dtype, desc, f"{type(e1).__name__}: {e1} {tb}")
    elif not issubclass(base_exception(e1), base_exception(e2)):
        rep.add(
            prefix + "exception-type",
            c.name,
            dtype,
            desc,
            f"ours {type(e1).__name__}: {e1} | torch {type(e2).__name__}: {e2}",
        )


# ------------------------------------------------------------------ bad input
def bad_cases() -> Iterator[Case]:
    """Invalid calls both libraries must refuse with related exception types."""
    bad: list[tuple[str, str, list[In], Callable[..., Any]]] = [
        (
            "conv2d",
            "channels mismatch",
            [In((1, 3, 5, 5)), In((2, 2, 3, 3))],
            lambda L, m, x, w: F(L).conv2d(x, w),
        ),
        (
            "conv2d",
            "kernel larger than input",
            [In((1, 1, 2, 2)), In((1, 1, 3, 3))],
            lambda L, m, x, w: F(L).conv2d(x, w),
        ),
        (
            "conv2d",
            "same padding with stride 2",
            [In((1, 1, 5, 5)), In((1, 1, 3, 3))],
            lambda L, m, x, w: F(L).conv2d(x, w, stride=2, padding="same"),
        ),
        (
            "conv2d",
            "groups not dividing channels",
            [In((1, 3, 5, 5)), In((2, 1, 3, 3))],
            lambda L, m, x, w: F(L).conv2d(x, w, groups=2),
        ),
        (
            "max_pool2d",
            "padding over half the kernel",
            [In((1, 1, 5, 5))],
            lambda L, m, x: F(L).max_pool2d(x, 2, padding=2),
        ),
        (
            "avg_pool2d",
            "kernel larger than input",
            [In((1, 1, 2, 2))],
            lambda L, m, x: F(L).avg_pool2d(x, 3),
        ),
        (
            "interpolate",
            "align_corners with nearest",
            [In((1, 1, 3))],
            lambda L, m, x: F(L).interpolate(x, size=4, align_corners=True),
        ),
        (
            "interpolate",
            "size and scale_factor",
            [In((1, 1, 3))],
            lambda L, m, x: F(L).interpolate(x, size=4, scale_factor=2),
        ),
        (
            "interpolate",
            "bilinear on 3-d input",
            [In((1, 1, 3))],
            lambda L, m, x: F(L).interpolate(x, size=4, mode="bilinear"),
        ),
        (
            "interpolate",
            "unknown mode",
            [In((1, 1, 3))],
            lambda L, m, x: F(L).interpolate(x, size=4, mode="cubic"),
        ),
        (
            "pad",
            "reflect wider than input",
            [In((1, 1, 3))],
            lambda L, m, x: F(L).pad(x, (3, 3), mode="reflect"),
        ),
        ("pad", "odd pad length", [In((1, 1, 3))], lambda L, m, x: F(L).pad(x, (1,))),
        ("pad", "unknown mode", [In((1, 1, 3))], lambda L, m, x: F(L).pad(x, (1, 1), mode="wrap")),
        (
            "cross_entropy",
            "target out of range",
            [In((2, 3)), In((2,), "v", values=[0, 3])],
            lambda L, m, x, t: F(L).cross_entropy(x, t.long()),
        ),
        (
            "cross_entropy",
            "float target of other shape",
            [In((2, 3)), In((2, 4), "p")],
            lambda L, m, x, t: F(L).cross_entropy(x, t),
        ),
        (
            "nll_loss",
            "target of batch size",
            [In((2, 3)), In((3,), "i", high=3)],
            lambda L, m, x, t: F(L).nll_loss(x, t),
        ),
        (
            "nll_loss",
            "unknown reduction",
            [In((2, 3)), In((2,), "i", high=3)],
            lambda L, m, x, t: F(L).nll_loss(x, t, reduction="avg"),
        ),
        (
            "mse_loss",
            "unknown reduction",
            [In((3,)), In((3,))],
            lambda L, m, x, t: F(L).mse_loss(x, t, reduction="avg"),
        ),
        (
            "binary_cross_entropy",
            "shapes differ",
            [In((3,), "p"), In((2, 3), "p")],
            lambda L, m, x, t: F(L).binary_cross_entropy(x, t),
        ),
        (
            "embedding",
            "index out of range",
            [In((2,), "v", values=[0, 5]), In((4, 2))],
            lambda L, m, i, w: F(L).embedding(i.long(), w),
        ),
        (
            "embedding",
            "float indices",
            [In((2,)), In((4, 2))],
            lambda L, m, i, w: F(L).embedding(i, w),
        ),
        (
            "one_hot",
            "negative index",
            [In((2,), "v", values=[0, -1])],
            lambda L, m, i: F(L).one_hot(i.long()),
        ),
        (
            "one_hot",
            "too few classes",
            [In((2,), "v", values=[0, 3])],
            lambda L, m, i: F(L).one_hot(i.long(), 2),
        ),
        (
            "layer_norm",
            "normalized_shape mismatch",
            [In((2, 3))],
            lambda L, m, x: F(L).layer_norm(x, (4,)),
        ),
        (
            "group_norm",
            "groups not dividing channels",
            [In((2, 3, 4))],
            lambda L, m, x: F(L).group_norm(x, 2),
        ),
        (
            "batch_norm",
            "one value per channel in training",
            [In((1, 3)), In((3,), grad=False), In((3,), "pos", grad=False)],
            lambda L, m, x, rm, rv: F(L).batch_norm(x, rm, rv, training=True),
        ),
        ("softmax", "dim out of range", [In((2, 3))], lambda L, m, x: F(L).softmax(x, dim=2)),
        ("glu", "odd size", [In((2, 3))], lambda L, m, x: F(L).glu(x)),
        (
            "pixel_shuffle",
            "channels not divisible",
            [In((1, 3, 2, 2))],
            lambda L, m, x: F(L).pixel_shuffle(x, 2),
        ),
        ("unfold", "3-d input batch", [In((1, 1, 2, 3, 3))], lambda L, m, x: F(L).unfold(x, 2)),
        ("fold", "blocks mismatch", [In((1, 4, 5))], lambda L, m, x: F(L).fold(x, (3, 3), 2)),
        (
            "linear",
            "inner size mismatch",
            [In((2, 3)), In((4, 5))],
            lambda L, m, x, w: F(L).linear(x, w),
        ),
        (
            "scaled_dot_product_attention",
            "head size mismatch",
            [In((1, 2, 3)), In((1, 4, 3)), In((1, 4, 3))],
            lambda L, m, q, k, v: F(L).scaled_dot_product_attention(q, k.transpose(-1, -2), v),
        ),
        (
            "grid_sample",
            "grid of other batch",
            [In((2, 1, 3, 3)), In((1, 2, 2, 2))],
            lambda L, m, x, g: F(L).grid_sample(x, g, align_corners=False),
        ),
        (
            "grid_sample",
            "bicubic on 5-d",
            [In((1, 1, 3, 3, 3)), In((1, 2, 2, 2, 3))],
            lambda L, m, x, g: F(L).grid_sample(x, g, mode="bicubic", align_corners=False),
        ),
        (
            "affine_grid",
            "theta of wrong shape",
            [In((1, 3, 3))],
            lambda L, m, t: F(L).affine_grid(t, [1, 1, 2, 2], align_corners=False),
        ),
        (
            "kl_div",
            "unknown reduction",
            [In((3,)), In((3,))],
            lambda L, m, x, t: F(L).kl_div(x, t, reduction="avg"),
        ),
        (
            "ctc_loss",
            "target longer than input",
            [In((2, 1, 3)), In((1, 4), "i", high=2)],
            lambda L, m, x, t: F(L).ctc_loss(x.log_softmax(-1), t.long() + 1, [2], [4]),
        ),
        (
            "Linear",
            "input features mismatch",
            [In((2, 3))],
            lambda L, m, x: L.nn.Linear(4, 2).to(x.dtype)(x),
        ),
        (
            "LSTM",
            "input size mismatch",
            [In((2, 1, 3))],
            lambda L, m, x: L.nn.LSTM(4, 2).to(x.dtype)(x),
        ),
        (
            "MultiheadAttention",
            "embed_dim not divisible",
            [In((2, 1, 3))],
            lambda L, m, x: L.nn.MultiheadAttention(3, 2),
        ),
        (
            "Conv2d",
            "padding_mode unknown",
            [In((1, 1, 3, 3))],
            lambda L, m, x: L.nn.Conv2d(1, 1, 2, padding_mode="wrap"),
        ),
        (
            "Conv2d",
            "groups not dividing",
            [In((1, 1, 3, 3))],
            lambda L, m, x: L.nn.Conv2d(3, 2, 2, groups=2),
        ),
        (
            "BatchNorm2d",
            "3-d input",
            [In((1, 2, 3))],
            lambda L, m, x: L.nn.BatchNorm2d(2).to(x.dtype)(x),
        ),
    ]
    bad += [
        (
            "binary_cross_entropy",
            "input outside [0, 1]",
            [In((3,)), In((3,), "p")],
            lambda L, m, x, t: F(L).binary_cross_entropy(x * 5, t),
        ),
        (
            "cross_entropy",
            "label_smoothing above 1",
            [In((2, 3)), In((2,), "i", high=3)],
            lambda L, m, x, t: F(L).cross_entropy(x, t, label_smoothing=1.5),
        ),
        (
            "multi_margin_loss",
            "p = 3",
            [In((2, 3)), In((2,), "i", high=3)],
            lambda L, m, x, t: F(L).multi_margin_loss(x, t, p=3),
        ),
        (
            "avg_pool2d",
            "divisor_override 0",
            [In((1, 1, 4, 4))],
            lambda L, m, x: F(L).avg_pool2d(x, 2, divisor_override=0),
        ),
        (
            "grid_sample",
            "unknown mode",
            [In((1, 1, 3, 3)), In((1, 2, 2, 2))],
            lambda L, m, x, g: F(L).grid_sample(x, g, mode="area", align_corners=False),
        ),
        (
            "local_response_norm",
            "2-d input",
            [In((2, 3))],
            lambda L, m, x: F(L).local_response_norm(x, 2),
        ),
        (
            "max_unpool2d",
            "index out of range",
            [In((1, 1, 2, 2)), In((1, 1, 2, 2), "v", values=[0, 1, 2, 99])],
            lambda L, m, x, i: F(L).max_unpool2d(x, i.long(), 2),
        ),
        (
            "embedding_bag",
            "offsets not starting at 0",
            [In((4,), "i", high=3), In((3, 2)), In((2,), "v", values=[1, 2])],
            lambda L, m, i, w, o: F(L).embedding_bag(i, w, o.long()),
        ),
        (
            "LSTM",
            "proj_size not below hidden_size",
            [In((2, 1, 3))],
            lambda L, m, x: L.nn.LSTM(3, 2, proj_size=2),
        ),
        (
            "Transformer",
            "d_model not divisible by nhead",
            [In((2, 1, 3))],
            lambda L, m, x: L.nn.TransformerEncoderLayer(6, 4),
        ),
        (
            "Adam",
            "negative lr",
            [In((2,))],
            lambda L, m, x: L.optim.Adam([L.nn.Parameter(x.detach())], lr=-1.0),
        ),
        (
            "Adam",
            "beta out of range",
            [In((2,))],
            lambda L, m, x: L.optim.Adam([L.nn.Parameter(x.detach())], betas=(1.0, 0.9)),
        ),
        (
            "SGD",
            "nesterov without momentum",
            [In((2,))],
            lambda L, m, x: L.optim.SGD([L.nn.Parameter(x.detach())], lr=0.1, nesterov=True),
        ),
        (
            "Optimizer",
            "no parameters",
            [In((2,))],
            lambda L, m, x: L.optim.SGD([], lr=0.1),
        ),
        (
            "Optimizer",
            "a parameter in two groups",
            [In((2,))],
            lambda L, m, x: (lambda p: L.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1))(
                L.nn.Parameter(x.detach())
            ),
        ),
        (
            "StepLR",
            "optimizer of another type",
            [In((2,))],
            lambda L, m, x: L.optim.lr_scheduler.StepLR(object(), 2),
        ),
        (
            "OneCycleLR",
            "no total_steps nor epochs",
            [In((2,))],
            lambda L, m, x: L.optim.lr_scheduler.OneCycleLR(
                L.optim.SGD([L.nn.Parameter(x.detach())], lr=0.1), 1.0
            ),
        ),
    ]
    for name, desc, ins, call in bad:
        yield Case("bad-input", name, desc, ins, call, grad=False, dtypes=("float64",))


# ------------------------------------------------------------------ optimizers and schedulers
OPTIMIZERS: list[tuple[str, dict[str, Any]]] = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "maximize": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "foreach": False, "_groups": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "fused": True}),
    ("Adagrad", {"lr": 0.1, "fused": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.1, "maximize": True}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.9), "eps": 1e-6}),
    ("Adam", {"lr": 0.01, "foreach": False, "weight_decay": 0.1, "_groups": True}),
    ("Adam", {"lr": 0.01, "fused": True, "amsgrad": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "fused": True}),
    ("AdamW", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.3}),
    ("Adagrad", {"lr": 0.1}),
    (
        "Adagrad",
        {"lr": 0.1, "lr_decay": 0.1, "weight_decay": 0.1, "initial_accumulator_value": 0.2},
    ),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "maximize": True}),
    ("Adamax", {"lr": 0.01}),
    ("Adamax", {"lr": 0.01, "weight_decay": 0.1, "betas": (0.5, 0.9)}),
    ("ASGD", {"lr": 0.01}),
    ("ASGD", {"lr": 0.05, "lambd": 0.1, "alpha": 0.5, "t0": 2, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.01}),
    (
        "NAdam",
        {"lr": 0.01, "momentum_decay": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True},
    ),
    ("RAdam", {"lr": 0.01}),
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "_groups": True}),
    ("Adagrad", {"lr": 0.1, "_groups": True, "maximize": True}),
    ("Rprop", {"lr": 0.01}),
    ("Rprop", {"lr": 0.01, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.05), "maximize": True}),
    ("SparseAdam", {"lr": 0.01}),
    ("SparseAdam", {"lr": 0.01, "betas": (0.5, 0.9), "maximize": True}),
    ("LBFGS", {"lr": 0.5, "max_iter": 4}),
    ("LBFGS", {"lr": 1, "max_iter": 5, "history_size": 3, "line_search_fn": "strong_wolfe"}),
]

SCHEDULERS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("StepLR", lambda L, o: L.optim.lr_scheduler.StepLR(o, 2, gamma=0.5)),
    ("MultiStepLR", lambda L, o: L.optim.lr_scheduler.MultiStepLR(o, [1, 3, 3], gamma=0.3)),
    ("ConstantLR", lambda L, o: L.optim.lr_scheduler.ConstantLR(o, factor=0.4, total_iters=3)),
    ("LinearLR", lambda L, o: L.optim.lr_scheduler.LinearLR(o, 0.2, 1.0, total_iters=4)),
    ("ExponentialLR", lambda L, o: L.optim.lr_scheduler.ExponentialLR(o, 0.7)),
    ("PolynomialLR", lambda L, o: L.optim.lr_scheduler.PolynomialLR(o, total_iters=4, power=2)),
    ("CosineAnnealingLR", lambda L, o: L.optim.lr_scheduler.CosineAnnealingLR(o, 3, eta_min=0.01)),
    (
        "CosineAnnealingWarmRestarts",
        lambda L, o: L.optim.lr_scheduler.CosineAnnealingWarmRestarts(
            o, 2, T_mult=2, eta_min=0.001
        ),
    ),
    ("LambdaLR", lambda L, o: L.optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (e + 1))),
    ("MultiplicativeLR", lambda L, o: L.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.9)),
    ("CyclicLR", lambda L, o: L.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=2)),
    (
        "CyclicLR-exp_range",
        lambda L, o: L.optim.lr_scheduler.CyclicLR(
            o, 0.01, 0.1, step_size_up=2, step_size_down=3, mode="exp_range", gamma=0.9
        ),
    ),
    ("OneCycleLR", lambda L, o: L.optim.lr_scheduler.OneCycleLR(o, 1.0, total_steps=8)),
    (
        "OneCycleLR-linear",
        lambda L, o: L.optim.lr_scheduler.OneCycleLR(
            o, 1.0, total_steps=8, anneal_strategy="linear", three_phase=True
        ),
    ),
    (
        "ReduceLROnPlateau",
        lambda L, o: L.optim.lr_scheduler.ReduceLROnPlateau(o, patience=1, factor=0.5, cooldown=1),
    ),
    (
        "SequentialLR",
        lambda L, o: L.optim.lr_scheduler.SequentialLR(
            o,
            [
                L.optim.lr_scheduler.ConstantLR(o, 0.5, total_iters=2),
                L.optim.lr_scheduler.ExponentialLR(o, 0.8),
            ],
            milestones=[2],
        ),
    ),
    (
        "ChainedScheduler",
        lambda L, o: L.optim.lr_scheduler.ChainedScheduler(
            [L.optim.lr_scheduler.StepLR(o, 2, 0.5), L.optim.lr_scheduler.ExponentialLR(o, 0.9)]
        ),
    ),
]

STEPS = 6


def state_structure(x: Any) -> Any:
    """A state_dict's shape: keys and nesting, value types; tensors as (dtype, shape)."""
    if isinstance(x, dict):
        return {k: state_structure(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [state_structure(v) for v in x]
    if isinstance(x, (tc.Tensor, torch.Tensor)):
        return "Tensor", str(x.dtype).rpartition(".")[2], tuple(x.shape)
    if callable(x):
        return "callable"
    return type(x).__name__


def state_diff(a: Any, b: Any, path: str = "") -> Iterator[tuple[str, str, Any, Any]]:
    """(kind, path, ours, theirs) of every difference between two state_dicts: keys, nesting,
    value types (tensors: dtype and shape), then values."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a.keys() - b.keys():
            yield "state-structure", f"{path}/{k}", "present", "absent"
        for k in b.keys() - a.keys():
            yield "state-structure", f"{path}/{k}", "absent", "present"
        for k in a.keys() & b.keys():
            yield from state_diff(a[k], b[k], f"{path}/{k}")
        return
    sa, sb = state_structure(a), state_structure(b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and type(a) is type(b):
        if len(a) != len(b):
            yield "state-structure", path, f"{len(a)} items", f"{len(b)} items"
            return
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            yield from state_diff(x, y, f"{path}[{k}]")
        return
    if sa != sb:
        yield "state-structure", path, sa, sb
        return
    if callable(a):
        return
    yield "state-values", path, a, b


def state_tensors(opt: Any) -> list[Any]:
    """The tensors of an optimizer's state, in order."""
    return [v for st in opt.state.values() for v in st.values() if hasattr(v, "shape")]


def optim_run(
    rep: Report, name: str, kw: dict[str, Any], sched: tuple[str, Any] | None, dtype: str
) -> None:
    desc = f"{kw}" + (f" + {sched[0]}" if sched else "")
    options = {k: v for k, v in kw.items() if k != "_groups"}

    def groups(ps: list[Any]) -> Any:
        """The parameters, or (``_groups``) two groups, the second with half the lr."""
        if not kw.get("_groups"):
            return ps
        return [{"params": ps[:1]}, {"params": ps[1:], "lr": kw.get("lr", 1.0) / 2}]

    label = sched[0] if sched else name
    fake = Case("sched" if sched else "optim", label, desc, [], lambda *a: None)
    rep.runs[label] += 1
    rng = np.random.default_rng(zlib.crc32(desc.encode()))
    shapes = [(3, 4), (4,)]
    init = [rng.normal(size=s).astype(dtype) for s in shapes]
    grads = [[rng.normal(size=s).astype(dtype) for s in shapes] for _ in range(STEPS)]
    targets = [rng.normal(size=s).astype(dtype) for s in shapes]

    def setup(L: Any) -> Any:
        ps = [L.nn.Parameter(L.from_numpy(a.copy())) for a in init]
        opt = getattr(L.optim, name)(groups(ps), **options)
        sch = sched[1](L, opt) if sched else None
        return ps, opt, sch

    (po, oo, so), e1 = attempt(lambda: setup(tc))
    (pt, ot, st), e2 = attempt(lambda: setup(torch))
    if e1 is not None or e2 is not None:
        report_raise(rep, fake, dtype, desc, e1, e2, "constructor ")
        return
    for step in range(STEPS):

        def one(L: Any, ps: Any, opt: Any, sch: Any) -> Any:
            opt.zero_grad()
            if name == "LBFGS":
                tgt = [L.from_numpy(t) for t in targets]

                def closure() -> Any:
                    opt.zero_grad()
                    pairs = zip(ps, tgt, strict=True)
                    loss = sum(((p - t) ** 4).sum() + (p * t).sum() for p, t in pairs)
                    loss.backward()
                    return loss

                loss = opt.step(closure)
            else:
                for p, g in zip(ps, grads[step], strict=True):
                    p.grad = L.from_numpy(g.copy())
                    if name == "SparseAdam":  # (rows of zeros: a sparse gradient of some rows)
                        g = g.copy()
                        g[: step % 3] = 0
                        p.grad = L.from_numpy(g).to_sparse()
                loss = opt.step()
            if sch is not None:
                if sched and sched[0] == "ReduceLROnPlateau":
                    sch.step([1.0, 0.9, 0.95, 0.97, 0.99, 0.5][step])
                else:
                    sch.step()
            return loss

        lo, e1 = attempt(lambda: one(tc, po, oo, so))
        lt, e2 = attempt(lambda: one(torch, pt, ot, st))
        if e1 is not None or e2 is not None:
            report_raise(rep, fake, dtype, f"{desc} step {step}", e1, e2)
            return
        compare_all(
            rep,
            fake,
            dtype,
            f"{desc} step {step}",
            [p.detach() for p in po],
            [p.detach() for p in pt],
            "params",
        )
        compare_all(
            rep,
            fake,
            dtype,
            f"{desc} step {step}",
            [g["lr"] for g in oo.param_groups],
            [g["lr"] for g in ot.param_groups],
            "lr",
        )
        if so is not None and hasattr(st, "get_last_lr"):
            compare_all(
                rep,
                fake,
                dtype,
                f"{desc} step {step}",
                so.get_last_lr(),
                st.get_last_lr(),
                "get_last_lr()",
            )
        if name == "LBFGS":
            compare(rep, fake, dtype, f"{desc} step {step}", lo, lt, "closure loss")
    for what, a, b in (("optimizer", oo, ot), ("scheduler", so, st)):
        if a is None:
            continue
        sa, e1 = attempt(a.state_dict)
        sb, e2 = attempt(b.state_dict)
        if e1 is not None or e2 is not None:
            report_raise(rep, fake, dtype, f"{desc} {what}.state_dict()", e1, e2)
            continue
        for kind, path, va, vb in state_diff(sa, sb):
            where = f"{what}.state_dict(){path}"
            if kind == "state-structure":
                rep.add(kind, label, dtype, desc, f"{where}: {va} vs {vb}")
            elif isinstance(va, float) and isinstance(vb, float) and dtype == "float32":
                if not math.isclose(va, vb, rel_tol=1e-5):
                    rep.add(kind, label, dtype, desc, f"{where}: {va} vs {vb}")
            else:
                compare(rep, fake, dtype, desc, va, vb, where, "state-")
        # a state_dict loads back into a fresh object
        if what == "optimizer":

            def reload(L: Any, sd: Any) -> Any:
                ps = [L.nn.Parameter(L.from_numpy(a.copy())) for a in init]
                opt = getattr(L.optim, name)(groups(ps), **options)
                opt.load_state_dict(sd)
                return opt.state_dict()

            ra, e1 = attempt(lambda: reload(tc, sa))
            rb, e2 = attempt(lambda: reload(torch, sb))
            if e1 is not None or e2 is not None:
                report_raise(rep, fake, dtype, f"{desc} load_state_dict", e1, e2)
                continue
            for kind, path, va, vb in state_diff(ra, rb):
                if kind == "state-structure":
                    rep.add("state-reload", label, dtype, desc, f"{path}: {va} vs {vb}")

    if sched is None and name != "LBFGS":
        # whether an optimizer loaded from another's state dict shares its state tensors
        def shares(L: Any, opt: Any) -> bool:
            ps2, opt2, _ = setup(L)
            opt2.load_state_dict(opt.state_dict())
            before = [v.clone() for v in state_tensors(opt)]
            for p, g in zip(ps2, grads[0], strict=True):
                p.grad = L.from_numpy(g.copy())
                if name == "SparseAdam":
                    p.grad = p.grad.to_sparse()
            opt2.step()
            return any(
                not bool((a == b).all()) for a, b in zip(before, state_tensors(opt), strict=True)
            )

        sa, e1 = attempt(lambda: shares(tc, oo))
        sb, e2 = attempt(lambda: shares(torch, ot))
        if e1 is not None or e2 is not None:
            report_raise(rep, fake, dtype, f"{desc} load_state_dict", e1, e2)
        elif sa != sb:
            rep.add(
                "state-aliasing",
                label,
                dtype,
                desc,
                f"a loaded optimizer's steps move the saved one's state: {sa} vs {sb}",
            )
    if sched is not None:
        # a fresh optimizer and scheduler loaded from the state dicts go on as the first did
        # (last: PyTorch's loaded optimizer shares the state tensors of the dict it loads,
        # so its steps move the first optimizer's state too; ours copies them)
        def resume(L: Any, opt: Any, sch: Any) -> list[list[float]]:
            ps2, opt2, sch2 = setup(L)
            opt2.load_state_dict(opt.state_dict())
            sch2.load_state_dict(sch.state_dict())
            lrs = []
            for k in range(3):
                for p in ps2:
                    p.grad = L.zeros_like(p)
                opt2.step()
                if sched[0] == "ReduceLROnPlateau":
                    sch2.step(2.0 + k)
                else:
                    sch2.step()
                lrs.append([g["lr"] for g in opt2.param_groups])
            return lrs

        ra, e1 = attempt(lambda: resume(tc, oo, so))
        rb, e2 = attempt(lambda: resume(torch, ot, st))
        if e1 is not None or e2 is not None:
            report_raise(rep, fake, dtype, f"{desc} resumed", e1, e2)
        else:
            compare_all(rep, fake, dtype, f"{desc} resumed", ra, rb, "lr")


def optim_cases(rep: Report, only: list[str] | None, kinds: set[str]) -> None:
    def wanted(n: str) -> bool:
        return not only or any(fnmatch.fnmatchcase(n, p) for p in only)

    for dtype in ("float64", "float32"):
        if "optim" in kinds:
            for name, kw in OPTIMIZERS:
                if wanted(name):
                    optim_run(rep, name, kw, None, dtype)
        if "sched" in kinds:
            for sname, make in SCHEDULERS:
                if wanted(sname):
                    for opt in (("SGD", {"lr": 0.1, "momentum": 0.9}), ("Adam", {"lr": 0.1})):
                        optim_run(rep, opt[0], opt[1], (sname, make), dtype)


# ------------------------------------------------------------------ driver
DRAWS = 4


def all_cases(seed: int) -> Iterator[Case]:
    r = random.Random(seed)
    for d in (1, 2, 3):
        yield from conv_cases(r, d)
        yield from pool_cases(r, d)
    yield from interpolate_cases(r)
    yield from grid_cases(r)
    yield from pad_cases(r)
    yield from norm_cases(r)
    yield from embedding_cases(r)
    yield from loss_cases(r)
    yield from activation_cases(r)
    yield from misc_cases(r)
    yield from mha_cases(r)
    yield from module_cases(r)
    yield from bad_cases()


def layouts_for(c: Case) -> list[str]:
    nd = max((len(s.shape) for s in c.inputs if s.layout), default=0)
    out = ["contiguous"]
    if nd >= 1 and c.kind != "bad-input":
        out.append("noncontiguous")
    if nd in (4, 5) and c.kind != "bad-input":
        out.append("channels_last")
    return out


def summarize(rep: Report, out: str, verbose: bool) -> None:
    total = sum(rep.runs.values())
    print(
        f"{total} runs of {len(rep.runs)} functions, modules, optimizers and schedulers; "
        f"{len(rep.items)} mismatches, {len(rep.expected)} expected"
    )
    by_name: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for m in rep.items:
        by_name[m.name][m.kind] += 1
    print(f"{'function / kind':<34} {'runs':>5} {'bad':>5}  kinds")
    for name, kinds in sorted(by_name.items(), key=lambda kv: -sum(kv[1].values())):
        ks = ", ".join(f"{k}({n})" for k, n in kinds.most_common())
        print(f"{name:<34} {rep.runs[name]:>5} {sum(kinds.values()):>5}  {ks}")
    with open(out, "w") as f:
        for m in sorted(rep.items, key=lambda m: (m.name, m.kind, m.dtype)):
            f.write(f"{m.kind}\t{m.name}\t{m.dtype}\t{m.desc}\t{m.detail}\n")
        for m, reason in rep.expected:
            f.write(f"expected[{reason}]\t{m.name}\t{m.dtype}\t{m.desc}\t{m.kind}: {m.detail}\n")
    print(f"details: {out}")
    if verbose:
        for m in rep.items:
            print(f"  {m.kind:<20} {m.name:<24} {m.dtype:<8} {m.desc[:70]:<70} {m.detail[:200]}")


def main(argv: list[str] | None = None) -> int:
    global DRAWS
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", help="comma-separated names or fnmatch patterns (conv2d,*Loss*)")
    p.add_argument(
        "--kinds",
        default="functional,module,bad-input,optim,sched",
        help="which kinds of case to run",
    )
    p.add_argument("--draws", type=int, default=DRAWS, help="random draws per function")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--all-layouts",
        action="store_true",
        help="non-contiguous and channels-last inputs in float32 too (float64 always)",
    )
    p.add_argument("--out", default="diff_torch_nn.tsv", help="the details file")
    p.add_argument("-v", "--verbose", action="store_true", help="print every mismatch")
    a = p.parse_args(argv)
    DRAWS = a.draws
    only = a.only.split(",") if a.only else None
    kinds = set(a.kinds.split(","))
    rep = Report()
    try:
        for i, c in enumerate(all_cases(a.seed)):
            if c.kind not in kinds or (
                only and not any(fnmatch.fnmatchcase(c.name, q) for q in only)
            ):
                continue
            for dtype in c.dtypes:
                every = dtype == "float64" or a.all_layouts
                for layout in layouts_for(c) if every else ["contiguous"]:
                    seed = zlib.crc32(f"{a.seed}/{i}/{c.name}/{dtype}/{layout}".encode())
                    _, e = attempt(lambda: run_case(rep, c, dtype, layout, seed))
                    if e is not None:
                        rep.add(
                            "tool-error",
                            c.name,
                            dtype,
                            c.desc,
                            "".join(traceback.format_exception(e)[-4:]),
                        )
        optim_cases(rep, only, kinds)
    except KeyboardInterrupt:
        traceback.print_exc()
    summarize(rep, a.out, a.verbose)
    return 1 if rep.items else 0


if __name__ == "__main__":
    sys.exit(main())
