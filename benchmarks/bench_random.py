"""Random draws at small and medium sizes: tensorcore's CPU streams (PyTorch's numbers, bit
for bit) next to PyTorch's own generator, when it is installed.

    OMP_NUM_THREADS=1 TENSORCORE_BENCH_CLOCK=thread python3 benchmarks/bench_random.py
    python3 benchmarks/bench_random.py --quick      # under a minute

The libraries take turns within each repeat (see ``_timing.per_call_ns``); the ratio is the
median of the per-turn ratios. PyTorch runs with one thread (``torch.set_num_threads(1)``),
as small draws are serial in both. ``--only SUBSTRING`` keeps the matching workloads.
"""

from __future__ import annotations

import argparse
import platform
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from _timing import fmt_time, per_call_ns

import tensorcore as tc

try:
    import torch
except ImportError:  # PyTorch is an optional comparison, never a requirement
    torch = None


def workloads(lib: Any) -> list[tuple[str, Callable[[], Any]]]:
    """(name, call) pairs written once against ``lib`` (tensorcore or torch)."""
    ones10 = lib.ones(10)
    probs = lib.softmax(lib.arange(100, dtype=lib.float32) / 10, 0)
    x = lib.empty(4, 8)
    return [
        ("randn(4, 8)", lambda: lib.randn(4, 8)),
        ("randn(3)", lambda: lib.randn(3)),
        ("randn(8, float64)", lambda: lib.randn(8, dtype=lib.float64)),
        ("randn(1000)", lambda: lib.randn(1000)),
        ("randn(256, 256)", lambda: lib.randn(256, 256)),
        ("rand(4, 8)", lambda: lib.rand(4, 8)),
        ("rand(256, 256)", lambda: lib.rand(256, 256)),
        ("rand(8, float64)", lambda: lib.rand(8, dtype=lib.float64)),
        ("empty(4, 8).normal_()", lambda: lib.empty(4, 8).normal_()),
        ("x(4, 8).uniform_()", lambda: x.uniform_()),
        ("x(4, 8).uniform_(-1, 1)", lambda: x.uniform_(-1, 1)),
        ("randint(0, 10, (4, 8))", lambda: lib.randint(0, 10, (4, 8))),
        ("randint(0, 10, (256, 256))", lambda: lib.randint(0, 10, (256, 256))),
        ("randperm(10)", lambda: lib.randperm(10)),
        ("randperm(1000)", lambda: lib.randperm(1000)),
        ("randperm(60000)", lambda: lib.randperm(60000)),
        ("multinomial(ones(10), 3)", lambda: lib.multinomial(ones10, 3)),
        ("multinomial(p100, 5, True)", lambda: lib.multinomial(probs, 5, True)),
        ("bernoulli_(0.5) (4, 8)", lambda: x.bernoulli_(0.5)),
    ]


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description="small and medium random draws")
    parser.add_argument("--quick", action="store_true", help="fewer and shorter repeats")
    parser.add_argument("--only", default="", help="keep the workloads whose name has this")
    args = parser.parse_args()
    repeat, target = (3, 10_000_000) if args.quick else (7, 100_000_000)
    print(f"tensorcore {tc.__version__}, numpy {np.__version__}", end="")
    print(f", torch {torch.__version__}" if torch is not None else " (no torch)")
    print(f"Python {platform.python_version()} on {platform.machine()}, {sys.platform}")
    print(f"median of {repeat} repeats; ratio: tensorcore / torch (per-turn median)\n")
    tc.manual_seed(0)
    mine = workloads(tc)
    theirs: list[tuple[str, Callable[[], Any]]] = []
    if torch is not None:
        torch.set_num_threads(1)
        torch.manual_seed(0)
        theirs = workloads(torch)
    rows = [("workload", "tensorcore", "torch", "ratio")]
    for i, (name, fn) in enumerate(mine):
        if args.only not in name:
            continue
        fns = {"tc": fn}
        if theirs:
            fns["torch"] = theirs[i][1]
        t = per_call_ns(fns, repeat, target)
        ratio = t.ratio("tc", "torch") if theirs else None
        rows.append(
            (name, fmt_time(t["tc"]), fmt_time(t.get("torch")),
             "-" if ratio is None else f"{ratio:.1f}x")
        )  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for k, r in enumerate(rows):
        print(
            "  ".join(
                [r[0].ljust(widths[0])]
                + [c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)]
            )
        )
        if k == 0:
            print("  ".join("-" * w for w in widths))


if __name__ == "__main__":
    main()
