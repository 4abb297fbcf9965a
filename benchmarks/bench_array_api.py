"""What the array API namespace costs: ``tensorcore.array_api`` against the same operation
through tensorcore's PyTorch-style functions, with NumPy's own namespace for reference.

    python3 benchmarks/bench_array_api.py            # about half a minute on 2 cores
    python3 benchmarks/bench_array_api.py --quick

Small arrays, where a wrapper's cost shows most: binary operators (same dtypes, mixed dtypes
with a 0-d array, a Python scalar), reductions over an axis, ``concat``, ``where``,
``argsort``, ``astype``, ``matmul``, and a mid-sized reduction where the kernel dominates.
The ratio is the namespace's time over tensorcore's (the median of the per-turn ratios).
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
import tensorcore.array_api as xp


def workloads() -> list[tuple[str, Callable[[], Any], Callable[[], Any], Callable[[], Any]]]:
    """(name, PyTorch-style call, namespace call, NumPy call)."""
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal(8).astype(np.float32)
    b_np = rng.standard_normal(8).astype(np.float32)
    m_np = rng.standard_normal((64, 32)).astype(np.float32)
    big_np = rng.standard_normal((1000, 1000)).astype(np.float32)
    a, b, m, big = (tc.from_numpy(v) for v in (a_np, b_np, m_np, big_np))
    i8 = tc.arange(8, dtype=tc.int8)
    z64 = tc.tensor(3, dtype=tc.int64)
    i8_np, z64_np = np.arange(8, dtype=np.int8), np.asarray(3, dtype=np.int64)
    cond, cond_np = a > 0, a_np > 0
    return [
        ("add (8,) f32", lambda: tc.add(a, b), lambda: xp.add(a, b), lambda: np.add(a_np, b_np)),
        ("multiply by scalar", lambda: tc.mul(a, 2.0), lambda: xp.multiply(a, 2.0),
         lambda: np.multiply(a_np, 2.0)),
        ("add int8 + 0-d int64", lambda: tc.add(i8.to(tc.int64), z64), lambda: xp.add(i8, z64),
         lambda: np.add(i8_np, z64_np)),
        ("exp (8,)", lambda: tc.exp(a), lambda: xp.exp(a), lambda: np.exp(a_np)),
        ("sum axis=0 (64, 32)", lambda: tc.sum(m, 0), lambda: xp.sum(m, axis=0),
         lambda: np.sum(m_np, axis=0)),
        ("max axis=1 keepdims", lambda: tc.amax(m, 1, True),
         lambda: xp.max(m, axis=1, keepdims=True), lambda: np.max(m_np, axis=1, keepdims=True)),
        ("std axis=0", lambda: tc.std(m, 0, correction=0), lambda: xp.std(m, axis=0),
         lambda: np.std(m_np, axis=0)),
        ("concat axis=0", lambda: tc.cat([a, b]), lambda: xp.concat([a, b]),
         lambda: np.concatenate([a_np, b_np])),
        ("where", lambda: tc.where(cond, a, b), lambda: xp.where(cond, a, b),
         lambda: np.where(cond_np, a_np, b_np)),
        ("argsort (64, 32)", lambda: tc.argsort(m, -1, stable=True), lambda: xp.argsort(m),
         lambda: np.argsort(m_np, kind="stable")),
        ("astype int32", lambda: a.to(tc.int32), lambda: xp.astype(a, xp.int32),
         lambda: a_np.astype(np.int32)),
        ("matmul (64,32)@(32,64)", lambda: tc.matmul(m, m.mT), lambda: xp.matmul(m, m.mT),
         lambda: np.matmul(m_np, m_np.T)),
        ("sum axis=1 (1000, 1000)", lambda: tc.sum(big, 1), lambda: xp.sum(big, axis=1),
         lambda: np.sum(big_np, axis=1)),
    ]  # fmt: skip


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description="the array API namespace's overhead")
    parser.add_argument("--quick", action="store_true", help="fewer and shorter repeats")
    args = parser.parse_args()
    repeat, target = (3, 20_000_000) if args.quick else (7, 100_000_000)
    print(f"tensorcore {tc.__version__}, numpy {np.__version__}")
    print(f"Python {platform.python_version()} on {platform.machine()}, {sys.platform}")
    print(f"median of {repeat} repeats; ratio: namespace / PyTorch-style (per-turn median)\n")
    rows = [("workload", "tensorcore", "array_api", "numpy", "array_api / tensorcore")]
    for name, plain, ns, ref in workloads():
        t = per_call_ns({"tc": plain, "xp": ns, "np": ref}, repeat, target)
        ratio = t.ratio("xp", "tc")
        rows.append(
            (name, fmt_time(t["tc"]), fmt_time(t["xp"]), fmt_time(t["np"]), f"{ratio:.2f}x")
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for k, r in enumerate(rows):
        cells = [c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)]
        print("  ".join([r[0].ljust(widths[0]), *cells]))
        if k == 0:
            print("  ".join("-" * w for w in widths))


if __name__ == "__main__":
    main()
