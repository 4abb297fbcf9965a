"""Forward + backward of each reduction, against PyTorch, with the operators each backward runs.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 TENSORCORE_BENCH_CLOCK=thread \
        python3 benchmarks/bench_reduction_grads.py [--quick] [--only amax,norm] [--chains]

For each reduction (``amax``/``amin``, ``max``/``min``, ``sum``/``mean``, ``var``/``std``,
``norm``/``linalg.vector_norm``, ``logsumexp``, ``prod``, ``cumsum``/``cumprod``,
``softmax``/``log_softmax``) on a float32 (8, 16) and (256, 1024) tensor that requires grad:
the time of the forward call and its backward (given an explicit gradient of the result's
shape, so no extra node), tensorcore and PyTorch taking turns; the operators tensorcore runs
in that backward (``bwd ops``, counted with ``tensorcore.autograd.profiler``), against the
one node PyTorch records per forward operator. ``--chains`` adds the six chains of
``bench_autograd.py``. PyTorch is required (a comparison only).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from _timing import fmt_time, per_call_ns

import tensorcore as tc

try:
    import torch
except ImportError:  # pragma: no cover - the comparison needs PyTorch
    torch = None  # type: ignore[assignment]

SHAPES = ((8, 16), (256, 1024))


def _first(r: Any) -> Any:
    """The differentiable result of a call (``values`` of a (values, indices) pair)."""
    return r[0] if isinstance(r, tuple) else r


def _vnorm(lib: Any) -> Any:
    return lib.linalg.vector_norm


# name -> f(lib, x); ``lib`` is tensorcore or torch.
WORKLOADS: dict[str, Callable[[Any, Any], Any]] = {
    "amax(dim=0, keepdim)": lambda lib, x: x.amax(0, keepdim=True),
    "amax(dim=1)": lambda lib, x: x.amax(1),
    "amax()": lambda lib, x: x.amax(),
    "amin(dim=1)": lambda lib, x: x.amin(1),
    "max()": lambda lib, x: x.max(),
    "max(dim=1).values": lambda lib, x: x.max(1),
    "min(dim=0).values": lambda lib, x: x.min(0),
    "sum(dim=1)": lambda lib, x: x.sum(1),
    "sum()": lambda lib, x: x.sum(),
    "mean(dim=1)": lambda lib, x: x.mean(1),
    "mean()": lambda lib, x: x.mean(),
    "var(dim=1)": lambda lib, x: x.var(1),
    "var(correction=0)": lambda lib, x: x.var(correction=0),
    "std(dim=1)": lambda lib, x: x.std(1),
    "std()": lambda lib, x: x.std(),
    "norm(p=2, dim=1)": lambda lib, x: x.norm(2, 1),
    "norm()": lambda lib, x: x.norm(),
    "vector_norm(ord=1, dim=1)": lambda lib, x: _vnorm(lib)(x, 1, 1),
    "vector_norm(ord=2, dim=1)": lambda lib, x: _vnorm(lib)(x, 2, 1),
    "vector_norm(ord=inf, dim=1)": lambda lib, x: _vnorm(lib)(x, math.inf, 1),
    "vector_norm(ord=3, dim=1)": lambda lib, x: _vnorm(lib)(x, 3, 1),
    "logsumexp(dim=1)": lambda lib, x: x.logsumexp(1),
    "prod(dim=1)": lambda lib, x: x.prod(1),
    "cumsum(dim=1)": lambda lib, x: x.cumsum(1),
    "cumprod(dim=1)": lambda lib, x: x.cumprod(1),
    "softmax(dim=1)": lambda lib, x: x.softmax(1),
    "softmax(dim=0)": lambda lib, x: x.softmax(0),
    "log_softmax(dim=1)": lambda lib, x: x.log_softmax(1),
}


def _step(lib: Any, f: Callable[[Any, Any], Any], leaf: Any, g: Any) -> Callable[[], Any]:
    def step() -> Any:
        _first(f(lib, leaf)).backward(g)
        r = leaf.grad
        leaf.grad = None
        return r

    return step


def backward_ops(f: Callable[[], Any]) -> int:
    """How many operators a call of ``f`` runs in its backward (forward excluded)."""
    with tc.autograd.profiler.profile() as prof:
        f()
    return sum(1 for e in prof.function_events or () if e.name.startswith("tensorcore::"))


def torch_nodes(out: Any) -> int:
    """Nodes in the graph behind ``out``, leaves' accumulators excluded."""
    seen, todo = set(), [out.grad_fn]
    while todo:
        n = todo.pop()
        if n is None or n in seen or type(n).__name__ == "AccumulateGrad":
            continue
        seen.add(n)
        todo.extend(fn for fn, _ in n.next_functions)
    return len(seen)


def measure(
    label: str, shape: tuple[int, ...], f: Callable[[Any, Any], Any], settings: tuple[int, int]
) -> tuple[str, ...]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    tleaf = tc.from_numpy(x.copy()).requires_grad_()
    pleaf = torch.from_numpy(x.copy()).requires_grad_()
    gshape = tuple(_first(f(torch, pleaf)).shape)
    gnp = rng.standard_normal(gshape).astype(np.float32)
    tg, pg = tc.from_numpy(gnp.copy()), torch.from_numpy(gnp.copy())
    fns = {"tensorcore": _step(tc, f, tleaf, tg), "torch": _step(torch, f, pleaf, pg)}
    got, want = fns["tensorcore"]().numpy(), fns["torch"]().numpy()
    if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
        print(f"  warning: gradients differ on {label} {shape}", file=sys.stderr)
    out = _first(f(tc, tleaf))
    n_ops = backward_ops(lambda: out.backward(tg))
    tleaf.grad = None
    nodes = torch_nodes(_first(f(torch, pleaf)))
    t = per_call_ns(fns, *settings)
    ratio = t.ratio("tensorcore", "torch")
    return (
        label,
        "x".join(map(str, shape)),
        fmt_time(t["tensorcore"]),
        fmt_time(t["torch"]),
        f"{ratio:.2f}x",
        str(n_ops),
        str(nodes),
    )


def chain_rows(settings: tuple[int, int]) -> list[tuple[str, ...]]:
    """The chains of ``bench_autograd.py`` (forward + backward, 96-100 operations)."""
    import bench_autograd as ba

    rows = []
    workloads = {"mul/tanh": ba.chain_workload(np.random.default_rng(0))[0]}
    workloads.update(ba.pattern_workloads(np.random.default_rng(0)))
    for name, fns in workloads.items():
        fns = {k: v for k, v in fns.items() if k in ("tensorcore", "torch")}
        fns["tensorcore"]()
        n_ops = backward_ops(fns["tensorcore"])
        t = per_call_ns(fns, *settings)
        short = name.split(": ")[-1]
        rows.append(
            (
                f"chain: {short}",
                "8",
                fmt_time(t["tensorcore"]),
                fmt_time(t["torch"]),
                f"{t.ratio('tensorcore', 'torch'):.2f}x",
                f"{n_ops} (fwd+bwd)",
                "-",
            )
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer and shorter repeats")
    parser.add_argument("--only", default="", help="comma-separated substrings of workloads")
    parser.add_argument("--chains", action="store_true", help="add bench_autograd's chains")
    parser.add_argument("--no-reductions", action="store_true", help="only the chains")
    args = parser.parse_args(argv)
    if torch is None:
        print("PyTorch is needed for this comparison", file=sys.stderr)
        return 1
    settings = (5, 10_000_000) if args.quick else (11, 40_000_000)
    only = [s for s in args.only.split(",") if s]
    header = ("workload", "shape", "tc", "torch", "ratio", "bwd ops", "torch nodes")
    rows = [header]
    if not args.no_reductions:
        for label, f in WORKLOADS.items():
            if only and not any(s in label for s in only):
                continue
            for shape in SHAPES:
                rows.append(measure(label, shape, f, settings))
                print("  ".join(rows[-1]), file=sys.stderr)
    if args.chains:
        rows.extend(chain_rows(settings))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for i, r in enumerate(rows):
        cells = [c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)]
        print("  ".join([r[0].ljust(widths[0]), *cells]))
        if i == 0:
            print("  ".join("-" * w for w in widths))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
