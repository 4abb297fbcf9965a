"""Triangular solves: ``tc.linalg.solve_triangular`` next to SciPy's ``solve_triangular`` (a
loop over a batch, which SciPy solves one matrix at a time) and PyTorch's, in float64.

    OMP_NUM_THREADS=1 python3 benchmarks/bench_linalg.py            # full run
    python3 benchmarks/bench_linalg.py --quick                      # fewer, shorter repeats

Each timing is the median over repeats of (time of a loop of N calls) / N; the libraries
take turns within each repeat, and each ratio is the median of the ratios of the same turn
(``_timing.Timings.ratio``), which a shared, noisy host disturbs less. PyTorch is optional.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.linalg as sl
from _timing import fmt_time, per_call_ns

import tensorcore as tc

try:
    import torch
except ImportError:  # PyTorch is an optional comparison, never a requirement
    torch = None

#: (batch, n, k): ``A`` is ``batch + (n, n)`` upper triangular, ``B`` is ``batch + (n, k)``.
CASES = [
    ((), 8, 1),
    ((), 8, 8),
    ((), 64, 1),
    ((), 64, 64),
    ((), 512, 1),
    ((), 512, 512),
    ((64,), 16, 16),
    ((1024,), 4, 4),
]


def _fns(batch: tuple[int, ...], n: int, k: int) -> dict[str, Callable[[], Any]]:
    rng = np.random.default_rng(0)
    a = np.triu(rng.standard_normal(batch + (n, n))) + n * np.eye(n)
    b = rng.standard_normal(batch + (n, k))
    ta, tb = tc.tensor(a), tc.tensor(b)
    want = np.linalg.solve(a, b)
    assert np.allclose(tc.linalg.solve_triangular(ta, tb, upper=True).numpy(), want)

    def scipy_solve() -> Any:
        if not batch:
            return sl.solve_triangular(a, b, check_finite=False)
        return [sl.solve_triangular(x, y, check_finite=False) for x, y in zip(a, b, strict=True)]

    fns = {"tensorcore": lambda: tc.linalg.solve_triangular(ta, tb, upper=True)}
    fns["scipy"] = scipy_solve
    if torch is not None:
        pa, pb = torch.tensor(a), torch.tensor(b)
        fns["torch"] = lambda: torch.linalg.solve_triangular(pa, pb, upper=True)
    return fns


def main(argv: list[str] | None = None) -> int:
    """Time every case and print the table."""
    parser = argparse.ArgumentParser(description="triangular solves vs SciPy and PyTorch")
    parser.add_argument("--quick", action="store_true", help="fewer and shorter repeats")
    args = parser.parse_args(argv)
    repeat, target = (5, 5_000_000) if args.quick else (15, 50_000_000)
    rows = [("A, B", "tensorcore", "scipy", "torch", "vs scipy", "vs torch")]
    for batch, n, k in CASES:
        t = per_call_ns(_fns(batch, n, k), repeat, target)
        ratio = {o: t.ratio("tensorcore", o) for o in ("scipy", "torch")}
        rows.append(
            (
                f"{batch + (n, n)}, k={k}",
                *(fmt_time(t.get(name)) for name in ("tensorcore", "scipy", "torch")),
                *("-" if r is None else f"{r:.2f}x" for r in ratio.values()),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for i, r in enumerate(rows):
        cells = [c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)]
        print("  ".join([r[0].ljust(widths[0]), *cells]))
        if i == 0:
            print("  ".join("-" * w for w in widths))
    print("\nratios: tensorcore time / other library's time (above 1: tensorcore is slower)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
