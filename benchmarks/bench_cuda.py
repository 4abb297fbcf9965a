"""GPU benchmarks of the CUDA backend, next to CuPy and PyTorch CUDA in the same run.

Workloads: per-op overhead of a small add, an elementwise chain on 10^8 float32, an 8192^2
float32 matmul, and one SGD step of an MLP 784-2048-2048-10 (batch 1024, log-softmax
cross-entropy). Times are medians of synchronised runs. Without a usable GPU the script says
why and exits 0.

    python benchmarks/bench_cuda.py [--quick]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time
from collections.abc import Callable
from typing import Any

import tensorcore as tc


def bench(fn: Callable[[], Any], sync: Callable[[], None], repeat: int, number: int) -> float:
    """Median seconds per call of ``fn`` over ``repeat`` rounds of ``number`` calls."""
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer repeats and smaller sizes")
    args = ap.parse_args()
    if "cuda" not in tc.backends.devices() or not tc.cuda.is_available():
        reason = (
            tc.cuda.unavailable_reason() if "cuda" in tc.backends.devices() else "not installed"
        )
        print(f"no usable GPU: {reason}")
        return
    import cupy as cp

    try:
        import torch

        has_torch = torch.cuda.is_available()
    except ImportError:
        torch, has_torch = None, False
    rep = 3 if args.quick else 7
    n_chain = 10**7 if args.quick else 10**8
    n_mm = 4096 if args.quick else 8192
    tsync = tc.cuda.synchronize
    csync = cp.cuda.Device().synchronize
    rows: list[tuple[str, float, float, float | None]] = []

    a, b = tc.ones(8, device="cuda"), tc.ones(8, device="cuda")
    ca, cb = cp.ones(8, cp.float32), cp.ones(8, cp.float32)
    row_t = None
    if has_torch:
        ta, tb = torch.ones(8, device="cuda"), torch.ones(8, device="cuda")
        row_t = bench(lambda: ta + tb, torch.cuda.synchronize, rep, 2000)
    rows.append(
        (
            "add (8,) per call",
            bench(lambda: a + b, tsync, rep, 2000),
            bench(lambda: ca + cb, csync, rep, 2000),
            row_t,
        )
    )

    x, y, z = (tc.rand(n_chain, device="cuda") for _ in range(3))
    cx, cy, cz = (cp.random.rand(n_chain, dtype=cp.float32) for _ in range(3))
    row_t = None
    if has_torch:
        tx, ty, tz = (torch.rand(n_chain, device="cuda") for _ in range(3))
        row_t = bench(lambda: (tx * ty + tz).exp(), torch.cuda.synchronize, rep, 5)
    rows.append(
        (
            f"(x*y+z).exp() on {n_chain:.0e}",
            bench(lambda: (x * y + z).exp(), tsync, rep, 5),
            bench(lambda: cp.exp(cx * cy + cz), csync, rep, 5),
            row_t,
        )
    )

    m1, m2 = tc.rand(n_mm, n_mm, device="cuda"), tc.rand(n_mm, n_mm, device="cuda")
    c1, c2 = (
        cp.random.rand(n_mm, n_mm, dtype=cp.float32),
        cp.random.rand(n_mm, n_mm, dtype=cp.float32),
    )
    row_t = None
    if has_torch:
        t1, t2 = torch.rand(n_mm, n_mm, device="cuda"), torch.rand(n_mm, n_mm, device="cuda")
        row_t = bench(lambda: t1 @ t2, torch.cuda.synchronize, rep, 3)
    rows.append(
        (
            f"matmul {n_mm}^2",
            bench(lambda: m1 @ m2, tsync, rep, 3),
            bench(lambda: c1 @ c2, csync, rep, 3),
            row_t,
        )
    )

    F = tc.nn.functional
    sizes = [784, 2048, 2048, 10]
    ws = [
        (tc.randn(o, i, device="cuda") * (2 / i) ** 0.5).requires_grad_()
        for i, o in itertools.pairwise(sizes)
    ]
    bs = [tc.zeros(o, device="cuda", requires_grad=True) for o in sizes[1:]]
    xb = tc.randn(1024, 784, device="cuda")
    yb = tc.randint(0, 10, (1024,), device="cuda")

    def step() -> None:
        h = xb
        for i, (w, bb) in enumerate(zip(ws, bs, strict=True)):
            h = F.linear(h, w, bb)
            if i < 2:
                h = h.relu()
        loss = F.cross_entropy(h, yb)
        loss.backward()
        with tc.no_grad():
            for p in ws + bs:
                p.sub_(0.01 * p.grad)
                p.grad = None

    row_t = None
    if has_torch:
        tws = [
            torch.tensor(w.detach().cpu().numpy(), device="cuda", requires_grad=True) for w in ws
        ]
        tbs = [torch.zeros(o, device="cuda", requires_grad=True) for o in sizes[1:]]
        txb = torch.tensor(xb.cpu().numpy(), device="cuda")
        tyb = torch.tensor(yb.cpu().numpy(), device="cuda")

        def tstep() -> None:
            h = txb
            for i, (w, bb) in enumerate(zip(tws, tbs, strict=True)):
                h = torch.nn.functional.linear(h, w, bb)
                if i < 2:
                    h = h.relu()
            torch.nn.functional.cross_entropy(h, tyb).backward()
            with torch.no_grad():
                for p in tws + tbs:
                    p.sub_(0.01 * p.grad)
                    p.grad = None

        row_t = bench(tstep, torch.cuda.synchronize, rep, 5)
    rows.append(
        ("MLP 784-2048-2048-10 step, batch 1024", bench(step, tsync, rep, 5), float("nan"), row_t)
    )

    print(
        f"{'workload':40} {'tensorcore':>12} {'cupy':>12} {'torch':>12} "
        f"{'tc/cupy':>8} {'tc/torch':>8}"
    )
    for name, t_tc, t_cp, t_t in rows:
        print(
            f"{name:40} {t_tc * 1e6:10.1f}us {t_cp * 1e6:10.1f}us "
            f"{(t_t or float('nan')) * 1e6:10.1f}us {t_tc / t_cp:8.2f} "
            f"{(t_tc / t_t) if t_t else float('nan'):8.2f}"
        )


if __name__ == "__main__":
    main()
