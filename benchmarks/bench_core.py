"""Per-call cost of tensorcore next to NumPy (and PyTorch, when it is installed).

    python3 benchmarks/bench_core.py            # full run
    python3 benchmarks/bench_core.py --quick    # fewer, shorter repeats

Each timing is the median over repeats of (time of a loop of N calls) / N, with N chosen so
that one loop takes at least the target time (as ``timeit.Timer.autorange`` does), measured
with ``time.perf_counter_ns``; the libraries take turns within each repeat. All libraries
run the same expression on the same data (the tensorcore and PyTorch tensors share NumPy's
memory). Import times are measured in fresh subprocesses. PyTorch is optional: without it
its columns show ``-``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from _timing import fmt_time, per_call_ns, print_table

import tensorcore as tc

try:
    import torch
except ImportError:  # PyTorch is an optional comparison, never a requirement
    torch = None


@dataclass(frozen=True)
class Settings:
    """How long and how often to measure."""

    repeat: int
    target_ns: int
    import_runs: int


FULL = Settings(repeat=7, target_ns=200_000_000, import_runs=5)
QUICK = Settings(repeat=3, target_ns=20_000_000, import_runs=3)


def import_ns(module: str, runs: int, setup: str = "") -> float | None:
    """Median time of ``import module`` (plus ``setup``) in a fresh interpreter, or None.

    Measured as an installed package imports: with bytecode caches. An untimed first run
    writes them (into a temporary ``PYTHONPYCACHEPREFIX``, never into the checkout), also
    where ``PYTHONDONTWRITEBYTECODE`` is set, which would otherwise compile every module of
    an editable install from source on every import while pip-installed libraries (NumPy,
    PyTorch) load their precompiled bytecode.
    """
    code = (
        "import time\n"
        "t = time.perf_counter_ns()\n"
        f"import {module}\n"
        f"{setup}\n"
        "print(time.perf_counter_ns() - t)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    samples = []
    with tempfile.TemporaryDirectory() as cache:
        env["PYTHONPYCACHEPREFIX"] = cache
        for i in range(runs + 1):
            proc = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, env=env
            )
            if proc.returncode != 0:
                return None
            if i:  # the first run writes the caches
                samples.append(int(proc.stdout.strip().splitlines()[-1]))
    return statistics.median(samples)


@dataclass
class Workload:
    """One row of the table: the same computation written for each library."""

    name: str
    make: Callable[[Any], Callable[[], Any]]  # library adapter -> zero-argument callable


class Lib:
    """What a workload needs from a library: its name and how to wrap a NumPy array."""

    def __init__(self, name: str, wrap: Callable[[np.ndarray], Any], exp: Callable[[Any], Any]):
        self.name = name
        self.wrap = wrap
        self.exp = exp


def _libs() -> list[Lib]:
    libs = [
        Lib("tensorcore", tc.from_numpy, tc.exp),
        Lib("numpy", lambda a: a, np.exp),
    ]
    if torch is not None:
        libs.append(Lib("torch", torch.from_numpy, torch.exp))
    return libs


def _data(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.random(shape, dtype=np.float32)


def workloads() -> list[Workload]:
    """Every timed workload; arrays are made once per library from the same NumPy data."""
    rng = np.random.default_rng(0)
    v8 = (_data(rng, 8), _data(rng, 8))
    m100 = (_data(rng, 100, 100), _data(rng, 100, 100))
    big = (_data(rng, 10**7), _data(rng, 10**7), _data(rng, 10**7))
    mat = (_data(rng, 1024, 1024), _data(rng, 1024, 1024))
    wide = _data(rng, 1000, 10000)
    dual8 = (_data(rng, 8), _data(rng, 8), _data(rng, 8))

    def add(arrays: tuple[np.ndarray, ...]) -> Callable[[Lib], Callable[[], Any]]:
        def make(lib: Lib) -> Callable[[], Any]:
            a, b = (lib.wrap(x) for x in arrays)
            return lambda: a + b

        return make

    def scale(lib: Lib) -> Callable[[], Any]:
        # A Python scalar operand: the pointwise fast path, which passes it on unconverted.
        x = lib.wrap(v8[0])
        return lambda: x * 1.1

    def view(kind: str) -> Callable[[Lib], Callable[[], Any]]:
        def make(lib: Lib) -> Callable[[], Any]:
            x = lib.wrap(m100[0])
            numpy = lib.name == "numpy"
            if kind == "t":
                # NumPy spells the 2-D transpose view `.T`; tensorcore and PyTorch `.t()`.
                return (lambda: x.T) if numpy else (lambda: x.t())
            if kind == "T":
                return lambda: x.T
            if kind == "mT":
                return (lambda: x.swapaxes(-1, -2)) if numpy else (lambda: x.mT)
            if kind == "permute":
                return (lambda: x.transpose(1, 0)) if numpy else (lambda: x.permute(1, 0))
            if kind == "slice":
                return lambda: x[1:, ::2]
            if kind == "row":
                return lambda: x[3]
            if kind == "flat":
                return (lambda: x.reshape(-1)) if numpy else (lambda: x.view(-1))
            if kind == "expand":
                return (
                    (lambda: np.broadcast_to(x, (2, 100, 100)))
                    if numpy
                    else (lambda: x.expand(2, 100, 100))
                )
            return lambda: x.reshape(50, 200)

        return make

    def small(shape_a: tuple[int, ...], shape_b: tuple[int, ...], dtype: Any) -> Any:
        a = rng.random(shape_a).astype(dtype) * 10
        b = rng.random(shape_b).astype(dtype) * 10 + 1
        return add((a, b))

    def reduce(kind: str) -> Callable[[Lib], Callable[[], Any]]:
        def make(lib: Lib) -> Callable[[], Any]:
            x = lib.wrap(wide)
            if kind == "sum1":
                return lambda: x.sum(1)
            return lambda: x.mean()

        return make

    def chain(lib: Lib) -> Callable[[], Any]:
        a, b, c = (lib.wrap(x) for x in big)
        exp = lib.exp
        return lambda: exp(a * b + c)

    def matmul(lib: Lib) -> Callable[[], Any]:
        a, b = (lib.wrap(x) for x in mat)
        return lambda: a @ b

    def jvp(op: str) -> Callable[[Lib], Callable[[], Any]]:
        # Forward-mode AD: open a level, make a dual tensor, run, read the tangent.
        def make(lib: Lib) -> Callable[[], Any]:
            a, b, t = (lib.wrap(x) for x in dual8)
            if lib.name == "numpy":  # the tangent, by hand
                return (lambda: t * b) if op == "mul" else (lambda: np.exp(a * b) * (t * b))
            fw = tc.autograd.forward_ad if lib.name == "tensorcore" else torch.autograd.forward_ad
            exp = lib.exp

            def run() -> Any:
                with fw.dual_level():
                    y = fw.make_dual(a, t) * b
                    return fw.unpack_dual(y if op == "mul" else exp(y)).tangent

            return run

        return make

    def total(lib: Lib) -> Callable[[], Any]:
        x = lib.wrap(big[0])
        return lambda: x.sum()

    return [
        Workload("a + b  float32 (8,)", add(v8)),
        Workload("a + b  float64 (8,)", small((8,), (8,), np.float64)),
        Workload("a + b  int64 (3, 4)", small((3, 4), (3, 4), np.int64)),
        Workload("a + b  float32 (8, 1) + (8,)", small((8, 1), (8,), np.float32)),
        Workload("a + b  float32 (100, 100)", add(m100)),
        Workload("x * 1.1  float32 (8,)", scale),
        Workload("x.t()  (100, 100)", view("t")),
        Workload("x.T  (100, 100)", view("T")),
        Workload("x.mT  (100, 100)", view("mT")),
        Workload("x.permute(1, 0)  (100, 100)", view("permute")),
        Workload("x[1:, ::2]  (100, 100)", view("slice")),
        Workload("x[3]  (100, 100)", view("row")),
        Workload("x.view(-1)  (100, 100)", view("flat")),
        Workload("x.expand(2, 100, 100)", view("expand")),
        Workload("x.reshape(50, 200)", view("reshape")),
        Workload("exp(a * b + c)  float32 1e7", chain),
        Workload("a @ b  float32 1024x1024", matmul),
        Workload("x.sum()  float32 1e7", total),
        Workload("x.sum(1)  float32 (1000, 10000)", reduce("sum1")),
        Workload("x.mean()  float32 (1000, 10000)", reduce("mean")),
        Workload("forward AD: tangent of d * b  (8,)", jvp("mul")),
        Workload("forward AD: tangent of exp(d * b)  (8,)", jvp("exp")),
    ]


def _to_numpy(x: Any) -> np.ndarray:
    if isinstance(x, np.ndarray | np.generic):
        return np.asarray(x)
    if isinstance(x, tc.Tensor):
        return x.numpy()
    return x.numpy()  # a torch tensor


def _prepare(make: Callable[[Lib], Callable[[], Any]], lib: Lib) -> tuple[Any, Any]:
    """The workload's callable for ``lib`` and its result, or (None, None) when unsupported."""
    try:
        fn = make(lib)
        return fn, fn()
    except NotImplementedError as exc:  # a kernel the installed backend does not provide
        print(f"  {lib.name}: skipped ({str(exc).splitlines()[0][:90]})", file=sys.stderr)
        return None, None


def main(argv: list[str] | None = None) -> int:
    """Run every workload and print the comparison table."""
    parser = argparse.ArgumentParser(description="tensorcore per-call costs vs NumPy and PyTorch")
    parser.add_argument("--quick", action="store_true", help="fewer and shorter repeats")
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else FULL
    libs = _libs()

    print(f"tensorcore {tc.__version__}, numpy {np.__version__}, ", end="")
    if torch is not None:
        print(f"torch {torch.__version__} ({torch.get_num_threads()} threads)")
    else:
        print("torch not installed")
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    noop = per_call_ns({"noop": lambda: None}, settings.repeat, settings.target_ns)["noop"]
    print(
        f"median of {settings.repeat} repeats; each includes ~{fmt_time(noop)} of loop overhead\n"
    )

    rows: list[tuple[str, dict[str, Any]]] = []
    for w in workloads():
        fns: dict[str, Callable[[], Any]] = {}
        results: dict[str, Any] = {}
        for lib in libs:
            fn, results[lib.name] = _prepare(w.make, lib)
            if fn is not None:
                fns[lib.name] = fn
        times: dict[str, Any] = per_call_ns(fns, settings.repeat, settings.target_ns)
        ref = results.get("numpy")
        for name, res in results.items():
            if res is not None and name != "numpy":
                ok = np.allclose(_to_numpy(res), ref, rtol=1e-4, atol=1e-3)
                if not ok:
                    print(f"  warning: {name} disagrees with numpy on {w.name!r}", file=sys.stderr)
        rows.append((w.name, times))

    imports: dict[str, float | None] = {
        "tensorcore": import_ns("tensorcore", settings.import_runs),
        "numpy": import_ns("numpy", settings.import_runs),
        "torch": import_ns("torch", settings.import_runs) if torch is not None else None,
    }
    rows.append(("import (fresh interpreter)", imports))
    loaded = import_ns("tensorcore", settings.import_runs, "tensorcore.backends.list()")
    rows.append(("import tensorcore + load backends", {"tensorcore": loaded}))

    print()
    print_table([(name, t, fmt_time) for name, t in rows])
    print("\nratios: tensorcore time / other library's time (above 1: tensorcore is slower)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
