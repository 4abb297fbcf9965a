"""Cost of autograd in tensorcore, next to NumPy (hand-written backward) and PyTorch.

    python3 benchmarks/bench_autograd.py            # full run
    python3 benchmarks/bench_autograd.py --quick    # fewer, shorter repeats

Rows:

* ``a * b`` on (8,) float32 tensors that require grad: forward only, under ``no_grad``
  (NumPy has nothing to skip; PyTorch and tensorcore pay for the context manager), and
  forward recording the graph (the price of a node);
* a 100-operation chain (``mul``/``tanh`` alternating) on an (8,) tensor, forward + backward;
  NumPy runs the same chain with a hand-written backward;
* chains of about 100 operations of other patterns (tensor-tensor binary operators with
  constant operands, unary operators, Python scalars, views, and a mix with reductions),
  forward + backward, against PyTorch;
* recurrences written by hand (a tanh RNN over ``unbind(0)``, an LSTM cell with
  ``chunk(4, 1)`` gates, slices of rows in a loop), forward + backward, against PyTorch;
* one SGD training step of an MLP 784-512-512-10 (ReLU), batch 256, float32, log-softmax
  cross-entropy: forward, backward, in-place update; NumPy runs a hand-written forward and
  backward; PyTorch the same code as tensorcore;
* the peak memory of that step, measured with ``tracemalloc`` (which sees NumPy's buffers,
  hence tensorcore's CPU buffers, but not PyTorch's allocator).

Each time is the median over repeats of (time of a loop of N calls) / N, N chosen so one loop
lasts at least the target time; the libraries take turns within each repeat, and each ratio
is the median over the repeats of the ratio within one turn. Results are checked against
NumPy before timing. PyTorch is optional: without it its columns show ``-``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import sys
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from _timing import fmt_time, per_call_ns, print_table

import tensorcore as tc
import tensorcore.nn.functional as F

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # PyTorch is an optional comparison, never a requirement
    torch = None  # type: ignore[assignment]
    TF = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Settings:
    """How long and how often to measure."""

    repeat: int
    target_ns: int


# Many short turns rather than a few long ones: this host has slow and fast spells lasting
# seconds, and a ratio is only fair between loops that ran in the same spell.
FULL = Settings(repeat=31, target_ns=50_000_000)
QUICK = Settings(repeat=7, target_ns=20_000_000)


def peak_bytes(fn: Callable[[], Any]) -> int:
    """Peak traced memory above the starting point during one call of ``fn``."""
    fn()  # warm up
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


# ------------------------------------------------------------------ workloads
def mul_workloads(rng: np.random.Generator) -> dict[str, dict[str, Callable[[], Any]]]:
    """``a * b`` on (8,) float32: under no_grad, and recording the graph."""
    a, b = rng.random(8, dtype=np.float32), rng.random(8, dtype=np.float32)
    ta = tc.from_numpy(a.copy()).requires_grad_()
    tb = tc.from_numpy(b.copy()).requires_grad_()

    def tc_nograd() -> Any:
        with tc.no_grad():
            return ta * tb

    fwd: dict[str, Callable[[], Any]] = {"tensorcore": tc_nograd, "numpy": lambda: a * b}
    graph: dict[str, Callable[[], Any]] = {"tensorcore": lambda: ta * tb, "numpy": lambda: a * b}
    if torch is not None:
        pa = torch.from_numpy(a.copy()).requires_grad_()
        pb = torch.from_numpy(b.copy()).requires_grad_()

        def torch_nograd() -> Any:
            with torch.no_grad():
                return pa * pb

        fwd["torch"] = torch_nograd
        graph["torch"] = lambda: pa * pb
    return {
        "a * b  (8,) f32 requiring grad, forward only": fwd,
        "a * b  (8,) f32 requiring grad, forward + graph": graph,
    }


CHAIN = 100  # operations


def chain_workload(rng: np.random.Generator) -> tuple[dict[str, Callable[[], Any]], Any]:
    """100 operations (``y * c`` and ``tanh`` alternating) forward and backward."""
    x = rng.standard_normal(8).astype(np.float32)
    c = np.float32(1.1)

    def numpy_step() -> np.ndarray:
        ys = [x]
        y = x
        for i in range(CHAIN):
            y = y * c if i % 2 == 0 else np.tanh(y)
            ys.append(y)
        g = np.ones_like(y)
        for i in reversed(range(CHAIN)):
            g = g * c if i % 2 == 0 else g * (1 - ys[i + 1] * ys[i + 1])
        return g

    def autograd_step(lib: Any, leaf: Any) -> Callable[[], Any]:
        def step() -> Any:
            y = leaf
            for i in range(CHAIN):
                y = y * 1.1 if i % 2 == 0 else lib.tanh(y)
            y.sum().backward()
            g = leaf.grad
            leaf.grad = None
            return g

        return step

    fns: dict[str, Callable[[], Any]] = {
        "tensorcore": autograd_step(tc, tc.from_numpy(x.copy()).requires_grad_()),
        "numpy": numpy_step,
    }
    if torch is not None:
        fns["torch"] = autograd_step(torch, torch.from_numpy(x.copy()).requires_grad_())
    return fns, numpy_step()


# Chains of other shapes: no single pattern stands for "autograd on small tensors". Each step
# maps an (8,) tensor to an (8,) tensor; ``w``/``b`` are constant tensors (no grad).
_PATTERNS: dict[str, list[Callable[[Any, Any, Any, Any], Any]]] = {
    "tensor-tensor binary": [
        lambda lib, y, w, b: y * w,
        lambda lib, y, w, b: y + b,
        lambda lib, y, w, b: y - b,
        lambda lib, y, w, b: y / w,
    ],
    "unary": [
        lambda lib, y, w, b: lib.tanh(y),
        lambda lib, y, w, b: lib.sin(y),
        lambda lib, y, w, b: lib.sigmoid(y),
        lambda lib, y, w, b: -y,
        lambda lib, y, w, b: lib.cos(y),
    ],
    "Python scalars": [
        lambda lib, y, w, b: y * 1.1,
        lambda lib, y, w, b: y + 0.5,
        lambda lib, y, w, b: 0.3 - y,
        lambda lib, y, w, b: y / 1.2,
    ],
    "views": [
        lambda lib, y, w, b: y.unsqueeze(1),
        lambda lib, y, w, b: y.t(),
        lambda lib, y, w, b: y.reshape(8),
        lambda lib, y, w, b: y[::1],
        lambda lib, y, w, b: y.reshape(2, 4),
        lambda lib, y, w, b: y.flatten(),
    ],
    "mixed, with reductions": [
        lambda lib, y, w, b: y * w,
        lambda lib, y, w, b: lib.tanh(y),
        lambda lib, y, w, b: y - y.sum(0, keepdim=True) * 0.1,
        lambda lib, y, w, b: y.unsqueeze(0).squeeze(0),
        lambda lib, y, w, b: y + b,
        lambda lib, y, w, b: y * 0.9,
        lambda lib, y, w, b: y / (y.abs().amax(0, keepdim=True) + 1.0),
    ],
}


def pattern_workloads(rng: np.random.Generator) -> dict[str, dict[str, Callable[[], Any]]]:
    """For each pattern, ~100 of its steps forward then backward (tensorcore vs PyTorch;
    each library's gradient is checked against the other's)."""
    x = rng.standard_normal(8).astype(np.float32)
    w = rng.random(8).astype(np.float32) * 0.5 + 0.75
    b = rng.standard_normal(8).astype(np.float32) * 0.1
    out: dict[str, dict[str, Callable[[], Any]]] = {}
    for name, steps in _PATTERNS.items():
        n = CHAIN // len(steps) * len(steps)

        def run(lib: Any, wrap: Callable[[Any], Any], steps: Any = steps, n: int = n) -> Any:
            leaf = wrap(x.copy()).requires_grad_()
            cw, cb = wrap(w.copy()), wrap(b.copy())

            def step() -> Any:
                y = leaf
                for i in range(n):
                    y = steps[i % len(steps)](lib, y, cw, cb)
                y.sum().backward()
                g = leaf.grad
                leaf.grad = None
                return g

            return step

        fns = {"tensorcore": run(tc, tc.from_numpy)}
        if torch is not None:
            fns["torch"] = run(torch, torch.from_numpy)
        out[f"{n}-op chain (8,) f32, fwd + bwd: {name}"] = fns
    return out


def loop_workloads(rng: np.random.Generator) -> dict[str, dict[str, Callable[[], Any]]]:
    """Recurrences written by hand, as tutorials write them, forward then backward: a tanh RNN
    over ``x.unbind(0)``, an LSTM cell whose gates come from ``chunk(4, 1)``, and rows sliced
    from a batch (``x[i:i + 4]``) in a loop (tensorcore vs PyTorch; gradients compared)."""
    T, B, H = 50, 16, 32
    x = rng.standard_normal((T, B, H)).astype(np.float32)
    wi = (rng.standard_normal((4 * H, H)) * 0.1).astype(np.float32)
    wh = (rng.standard_normal((4 * H, H)) * 0.1).astype(np.float32)

    def rnn(lib: Any, wrap: Callable[[Any], Any]) -> Callable[[], Any]:
        xs = wrap(x.copy()).requires_grad_()

        def step() -> Any:
            h = lib.zeros(B, H)
            for xt in xs.unbind(0):
                h = lib.tanh(xt + h)
            h.sum().backward()
            g, xs.grad = xs.grad, None
            return g

        return step

    def lstm(lib: Any, wrap: Callable[[Any], Any]) -> Callable[[], Any]:
        xs, w_i, w_h = wrap(x[:20].copy()), wrap(wi.copy()), wrap(wh.copy())
        w_i.requires_grad_()
        w_h.requires_grad_()

        def step() -> Any:
            h = c = lib.zeros(B, H)
            for t in range(20):
                i, f, g, o = (xs[t] @ w_i.T + h @ w_h.T).chunk(4, 1)
                c = lib.sigmoid(f) * c + lib.sigmoid(i) * lib.tanh(g)
                h = lib.sigmoid(o) * lib.tanh(c)
            h.sum().backward()
            grad, w_h.grad, w_i.grad = w_h.grad, None, None
            return grad

        return step

    def rows(lib: Any, wrap: Callable[[Any], Any]) -> Callable[[], Any]:
        data = wrap(x.reshape(T * B, H)[:400].copy()).requires_grad_()

        def step() -> Any:
            total = lib.zeros(4, H)
            for i in range(0, 400, 4):
                total = total + data[i : i + 4] * 0.5
            total.sum().backward()
            g, data.grad = data.grad, None
            return g

        return step

    out: dict[str, dict[str, Callable[[], Any]]] = {}
    for name, make in [
        (f"tanh RNN over x.unbind(0), {T} steps of ({B}, {H}), fwd + bwd", rnn),
        (f"LSTM cell, gates by chunk(4, 1), 20 steps of ({B}, {H}), fwd + bwd", lstm),
        ("100 row slices x[i:i + 4] of (400, 32) summed, fwd + bwd", rows),
    ]:
        fns = {"tensorcore": make(tc, tc.from_numpy)}
        if torch is not None:
            fns["torch"] = make(torch, torch.from_numpy)
        out[name] = fns
    return out


SIZES = (784, 512, 512, 10)
BATCH = 256
LR = 0.01


def mlp_workload(
    rng: np.random.Generator,
) -> tuple[dict[str, Callable[[], Any]], dict[str, Callable[[], list[np.ndarray]]]]:
    """One SGD step of the MLP; also a function per library giving its parameters (to
    check that one step from the same start gives the same parameters)."""
    init = []
    for fan_in, fan_out in itertools.pairwise(SIZES):
        bound = 1 / np.sqrt(fan_in)
        init.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        init.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], BATCH)

    # NumPy: forward and backward by hand.
    np_params = [p.copy() for p in init]

    def numpy_step() -> float:
        w1, b1, w2, b2, w3, b3 = np_params
        h1 = np.maximum(x @ w1.T + b1, 0)
        h2 = np.maximum(h1 @ w2.T + b2, 0)
        z = h2 @ w3.T + b3
        z = z - z.max(1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(1, keepdims=True))
        loss = -logp[np.arange(BATCH), y].mean()
        dz = np.exp(logp)
        dz[np.arange(BATCH), y] -= 1
        dz /= BATCH
        dw3, db3 = dz.T @ h2, dz.sum(0)
        dh2 = (dz @ w3) * (h2 > 0)
        dw2, db2 = dh2.T @ h1, dh2.sum(0)
        dh1 = (dh2 @ w2) * (h1 > 0)
        dw1, db1 = dh1.T @ x, dh1.sum(0)
        for p, g in zip(np_params, (dw1, db1, dw2, db2, dw3, db3), strict=True):
            p -= LR * g
        return float(loss)

    def autograd_step(lib: Any, functional: Any, params: list[Any], xt: Any, yt: Any) -> Any:
        w1, b1, w2, b2, w3, b3 = params

        def step() -> float:
            h = functional.relu(functional.linear(xt, w1, b1))
            h = functional.relu(functional.linear(h, w2, b2))
            loss = functional.cross_entropy(functional.linear(h, w3, b3), yt)
            loss.backward()
            with lib.no_grad():
                for p in params:
                    p.sub_(LR * p.grad)
                    p.grad = None
            return float(loss.item())

        return step

    tc_params = [tc.from_numpy(p.copy()).requires_grad_() for p in init]
    fns: dict[str, Callable[[], Any]] = {
        "tensorcore": autograd_step(tc, F, tc_params, tc.from_numpy(x), tc.from_numpy(y)),
        "numpy": numpy_step,
    }
    params: dict[str, Callable[[], list[np.ndarray]]] = {
        "tensorcore": lambda: [p.detach().numpy() for p in tc_params],
        "numpy": lambda: np_params,
    }
    if torch is not None:
        pt_params = [torch.from_numpy(p.copy()).requires_grad_() for p in init]
        fns["torch"] = autograd_step(torch, TF, pt_params, torch.from_numpy(x), torch.from_numpy(y))
        params["torch"] = lambda: [p.detach().numpy() for p in pt_params]
    return fns, params


# ------------------------------------------------------------------ checks and report
def _as_numpy(x: Any) -> Any:
    if isinstance(x, tc.Tensor):
        return x.detach().numpy()
    if torch is not None and isinstance(x, torch.Tensor):
        return x.detach().numpy()
    return x


def check(name: str, results: dict[str, Any], rtol: float = 1e-4, atol: float = 1e-5) -> None:
    """Warn when a library's result differs from NumPy's."""
    ref = results["numpy"]
    for lib, res in results.items():
        if lib == "numpy":
            continue
        got, want = _as_numpy(res), ref
        if isinstance(want, list):
            ok = all(
                np.allclose(g, w, rtol=rtol, atol=atol) for g, w in zip(got, want, strict=True)
            )
        else:
            ok = np.allclose(got, want, rtol=rtol, atol=atol)
        if not ok:
            print(f"  warning: {lib} disagrees with numpy on {name!r}", file=sys.stderr)


def _fmt_bytes(n: float | None) -> str:
    if n is None:
        return "-"
    for unit, scale in (("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def main(argv: list[str] | None = None) -> int:
    """Run every workload and print the comparison table."""
    parser = argparse.ArgumentParser(description="tensorcore autograd costs vs NumPy and PyTorch")
    parser.add_argument("--quick", action="store_true", help="fewer and shorter repeats")
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else FULL
    rng = np.random.default_rng(0)

    print(f"tensorcore {tc.__version__}, numpy {np.__version__}, ", end="")
    if torch is not None:
        print(f"torch {torch.__version__} ({torch.get_num_threads()} threads)")
    else:
        print("torch not installed")
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    print(f"median of {settings.repeat} repeats; ratios: median of the per-turn ratios\n")

    rows: list[tuple[str, dict[str, Any], Callable[[Any], str]]] = []
    for name, fns in mul_workloads(rng).items():
        check(name, {lib: fn() for lib, fn in fns.items()})
        rows.append((name, per_call_ns(fns, settings.repeat, settings.target_ns), fmt_time))

    fns, expected = chain_workload(rng)
    results = {lib: fn() for lib, fn in fns.items()}
    results["numpy"] = expected
    check("chain", results)
    rows.append(
        (
            f"{CHAIN}-op chain (8,) f32, fwd + bwd",
            per_call_ns(fns, settings.repeat, settings.target_ns),
            fmt_time,
        )
    )

    for name, fns in pattern_workloads(rng).items():
        results = {lib: fn() for lib, fn in fns.items()}
        if "torch" in results:
            check(name, {"numpy": results["torch"].numpy(), **results})
        rows.append((name, per_call_ns(fns, settings.repeat, settings.target_ns), fmt_time))

    for name, fns in loop_workloads(rng).items():
        results = {lib: fn() for lib, fn in fns.items()}
        if "torch" in results:
            check(name, {"numpy": results["torch"].numpy(), **results}, rtol=1e-3, atol=1e-4)
        rows.append((name, per_call_ns(fns, settings.repeat, settings.target_ns), fmt_time))

    # The MLP: one step from the same start must give the same parameters everywhere.
    step_fns, params = mlp_workload(rng)
    for fn in step_fns.values():
        fn()
    check("MLP step", {lib: get() for lib, get in params.items()}, rtol=1e-3, atol=1e-5)
    label = f"MLP {'-'.join(map(str, SIZES))} batch {BATCH} f32, SGD step"
    rows.append((label, per_call_ns(step_fns, settings.repeat, settings.target_ns), fmt_time))
    memory: dict[str, Any] = {
        lib: peak_bytes(fn) for lib, fn in step_fns.items() if lib in ("tensorcore", "numpy")
    }
    rows.append(("  peak memory of the step (tracemalloc)", memory, _fmt_bytes))

    print_table(rows)
    print("\nratios: tensorcore / other library (above 1: tensorcore is slower or uses more)")
    print("torch memory: not visible to tracemalloc (its own allocator)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
