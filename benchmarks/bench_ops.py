"""Large single operators: tensorcore's CPU kernels next to NumPy (the same computation written
directly, where it has one) and PyTorch, on about 10^6 float32 elements.

    python3 benchmarks/bench_ops.py            # about a minute on 2 cores
    python3 benchmarks/bench_ops.py --quick

Where the other benchmarks time a call's overhead (``bench_core.py``) or whole training steps
(``bench_train.py``), this one times the kernels behind everyday operators (pointwise,
reductions, scans, sorting, indexing, shape copies, nn layers, FFT, random numbers), so that a
kernel far slower than NumPy's best or PyTorch's shows up by name. Set
``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`` for single-thread figures (PyTorch then runs on one
thread too). PyTorch is optional (install ``torch==2.13.0`` for the comparison; it is never a
dependency of tensorcore).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from _timing import fmt_time, per_call_ns, print_table

import tensorcore as tc
import tensorcore.nn.functional as F

try:
    import torch
except ImportError:  # the comparison is optional
    torch = None

Fn = Callable[[], Any]


def workloads() -> list[tuple[str, Fn, Fn | None, Fn | None]]:
    """(name, tensorcore call, NumPy call or None, PyTorch call or None) for each row; the
    three compute the same result from the same data."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1000, 1000)).astype(np.float32)
    b = rng.standard_normal((1000, 1000)).astype(np.float32)
    x4 = rng.standard_normal((32, 64, 16, 16)).astype(np.float32)
    idx = rng.integers(0, 1000, 100_000)
    rows = idx[:1000]
    ta, tb, tx4, ti, tr = (tc.from_numpy(v) for v in (a, b, x4, idx, rows))
    tq = tc.from_numpy(a * 0.01 + 1).requires_grad_()  # (a differentiable input)
    tx4g = tc.from_numpy(x4).requires_grad_()
    up = rng.standard_normal((32, 64, 32, 32)).astype(np.float32)
    words = rng.integers(0, 1000, 100_000)  # (100 repeats per index on average)
    emb = rng.standard_normal((1000, 64)).astype(np.float32)
    gemb = rng.standard_normal((100_000, 64)).astype(np.float32)
    tw, temb, tgemb = tc.from_numpy(words), tc.from_numpy(emb).requires_grad_(), tc.from_numpy(gemb)
    tup = tc.from_numpy(up)
    pt: Any = torch
    if pt is not None:
        pt.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", pt.get_num_threads())))
        pa, pb, px4, pi, pr = (pt.from_numpy(v) for v in (a, b, x4, idx, rows))
        pq = pt.from_numpy(a * 0.01 + 1).requires_grad_()
        px4g, pup = pt.from_numpy(x4).requires_grad_(), pt.from_numpy(up)
        pw, pemb, pgemb = (
            pt.from_numpy(words),
            pt.from_numpy(emb).requires_grad_(),
            pt.from_numpy(gemb),
        )
        PF = pt.nn.functional
    out: list[tuple[str, Fn, Fn | None, Fn | None]] = [
        ("a + b", lambda: ta + tb, lambda: a + b, lambda: pa + pb),
        ("exp", lambda: ta.exp(), lambda: np.exp(a), lambda: pa.exp()),
        ("sigmoid", lambda: ta.sigmoid(), lambda: 1 / (1 + np.exp(-a)), lambda: pa.sigmoid()),
        ("gelu", lambda: F.gelu(ta), None, lambda: PF.gelu(pa)),
        ("erf", lambda: ta.erf(), None, lambda: pa.erf()),
        ("softplus", lambda: F.softplus(ta), lambda: np.logaddexp(a, np.float32(0)),
         lambda: PF.softplus(pa)),
        ("mish", lambda: F.mish(ta), None, lambda: PF.mish(pa)),
        ("silu fwd+bwd", lambda: tc.autograd.grad(F.silu(tq), [tq], ta), None,
         lambda: pt.autograd.grad(PF.silu(pq), [pq], pa)),
        ("hardswish fwd+bwd", lambda: tc.autograd.grad(F.hardswish(tq), [tq], ta), None,
         lambda: pt.autograd.grad(PF.hardswish(pq), [pq], pa)),
        ("clamp(-1, 1)", lambda: ta.clamp(-1, 1), lambda: np.clip(a, -1, 1),
         lambda: pa.clamp(-1, 1)),
        ("a ** 3", lambda: ta**3, lambda: a * a * a, lambda: pa**3),
        ("to float16", lambda: ta.half(), lambda: a.astype(np.float16), lambda: pa.half()),
        ("sum(1)", lambda: ta.sum(1), lambda: a.sum(1), lambda: pa.sum(1)),
        ("vector_norm", lambda: tc.linalg.vector_norm(ta),
         lambda: np.sqrt(np.dot(a.ravel(), a.ravel())), lambda: pt.linalg.vector_norm(pa)),
        ("softmax(-1)", lambda: ta.softmax(-1), None, lambda: pa.softmax(-1)),
        ("cumsum(1)", lambda: ta.cumsum(1), lambda: np.cumsum(a, 1), lambda: pa.cumsum(1)),
        ("cummax(1)", lambda: ta.cummax(1), lambda: np.maximum.accumulate(a, 1),
         lambda: pa.cummax(1)),
        ("topk(10)", lambda: ta.topk(10), None, lambda: pa.topk(10)),
        ("sort(1)", lambda: ta.sort(1), lambda: np.take_along_axis(a, np.argsort(a, 1), 1),
         lambda: pa.sort(1)),
        ("unique of 10^5 ints", lambda: tc.unique(ti), lambda: np.unique(idx),
         lambda: pt.unique(pi)),
        ("index_select(0)", lambda: ta.index_select(0, tr), lambda: a[rows],
         lambda: pa.index_select(0, pr)),
        ("index_add(0)", lambda: tc.zeros(1000, 1000).index_add(0, tr, ta), None,
         lambda: pt.zeros(1000, 1000).index_add(0, pr, pa)),
        ("tril", lambda: ta.tril(), lambda: np.tril(a), lambda: pa.tril()),
        ("T.contiguous()", lambda: ta.T.contiguous(), lambda: np.ascontiguousarray(a.T),
         lambda: pa.T.contiguous()),
        ("pad 4-d by 1", lambda: F.pad(tx4, (1, 1, 1, 1)),
         lambda: np.pad(x4, ((0, 0), (0, 0), (1, 1), (1, 1))),
         lambda: PF.pad(px4, (1, 1, 1, 1))),
        ("layer_norm", lambda: F.layer_norm(ta, (1000,)), None,
         lambda: PF.layer_norm(pa, (1000,))),
        ("batch_norm (eval)", lambda: F.batch_norm(tx4, tc.zeros(64), tc.ones(64)), None,
         lambda: PF.batch_norm(px4, pt.zeros(64), pt.ones(64))),
        ("conv2d 3x3 64->64", lambda: F.conv2d(tx4, tc.ones(64, 64, 3, 3), padding=1), None,
         lambda: PF.conv2d(px4, pt.ones(64, 64, 3, 3), padding=1)),
        ("avg_pool2d 2", lambda: F.avg_pool2d(tx4, 2), None, lambda: PF.avg_pool2d(px4, 2)),
        ("max_pool2d 2", lambda: F.max_pool2d(tx4, 2), None, lambda: PF.max_pool2d(px4, 2)),
        ("fft.rfft(-1)", lambda: tc.fft.rfft(ta), lambda: np.fft.rfft(a),
         lambda: pt.fft.rfft(pa)),
        ("randn", lambda: tc.randn(1000, 1000), lambda: rng.standard_normal((1000, 1000),
         dtype=np.float32), lambda: pt.randn(1000, 1000)),
        ("matmul 1000^2", lambda: ta @ tb, lambda: a @ b, lambda: pa @ pb),
        ("leaky_relu(0.1)", lambda: F.leaky_relu(ta, 0.1),
         lambda: np.maximum(a, a * np.float32(0.1)), lambda: PF.leaky_relu(pa, 0.1)),
        ("leaky_relu fwd+bwd", lambda: tc.autograd.grad(F.leaky_relu(tq, 0.1), [tq], ta), None,
         lambda: pt.autograd.grad(PF.leaky_relu(pq, 0.1), [pq], pa)),
        ("cumprod(1) backward", lambda: tc.autograd.grad(tq.cumprod(1), [tq], ta), None,
         lambda: pt.autograd.grad(pq.cumprod(1), [pq], pa)),
        ("embedding backward, 100 repeats", lambda: tc.autograd.grad(F.embedding(tw, temb),
         [temb], tgemb), None, lambda: pt.autograd.grad(PF.embedding(pw, pemb), [pemb], pgemb)),
        ("x[rows] backward", lambda: tc.autograd.grad(tq[tr], [tq], ta[:1000]), None,
         lambda: pt.autograd.grad(pq[pr], [pq], pa[:1000])),
        ("interpolate nearest x2 fwd+bwd",
         lambda: tc.autograd.grad(F.interpolate(tx4g, scale_factor=2), [tx4g], tup), None,
         lambda: pt.autograd.grad(PF.interpolate(px4g, scale_factor=2), [px4g], pup)),
        ("interpolate bilinear x2 fwd+bwd",
         lambda: tc.autograd.grad(F.interpolate(tx4g, scale_factor=2, mode="bilinear"), [tx4g],
                                  tup), None,
         lambda: pt.autograd.grad(PF.interpolate(px4g, scale_factor=2, mode="bilinear"), [px4g],
                                  pup)),
    ]  # fmt: skip
    if pt is None:
        out = [(name, t, n, None) for name, t, n, _ in out]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description="large single operators vs NumPy and PyTorch")
    parser.add_argument("--quick", action="store_true", help="fewer and shorter repeats")
    args = parser.parse_args()
    repeat, target_ns = (3, 20_000_000) if args.quick else (7, 100_000_000)
    versions = f"tensorcore {tc.__version__}, numpy {np.__version__}"
    if torch is not None:
        versions += f", torch {torch.__version__} ({torch.get_num_threads()} threads)"
    print(versions)
    print(f"Python {sys.version.split()[0]} on {platform.machine()}, {os.cpu_count()} CPUs")
    print(f"median of {repeat} repeats; ratios: median of the per-turn ratios\n")
    rows = []
    for name, mine, numpy_fn, torch_fn in workloads():
        fns = {"tensorcore": mine}
        if numpy_fn is not None:
            fns["numpy"] = numpy_fn
        if torch_fn is not None:
            fns["torch"] = torch_fn
        rows.append((name, per_call_ns(fns, repeat, target_ns), fmt_time))
    print_table(rows)
    print("\nratios: tensorcore / other (above 1: tensorcore is slower)")


if __name__ == "__main__":
    main()
