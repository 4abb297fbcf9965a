"""Training workloads: tensorcore's nn/optim/data against PyTorch (same program, same API)
and hand-written NumPy (the limit of a NumPy backend).

    python3 benchmarks/bench_train.py            # about two minutes on 2 cores
    python3 benchmarks/bench_train.py --quick

Workloads: one SGD-with-momentum step of an MLP 784-512-512-10 (batch 256) written with
``nn.Linear`` and ``nn.CrossEntropyLoss``, and its eight matrix products alone (what the BLAS
libraries set: NumPy's OpenBLAS, PyTorch's MKL); one step of a LeNet-style CNN on (64, 1, 28, 28);
one Adam step over 10^6 parameters in 100 tensors; one Adam step of each of several common
model families (``FAMILIES``: LSTM and GRU layers, ResNet-style blocks, depthwise-separable
and 1-D convolutions, a DCGAN generator, GPT-style transformer blocks, an embedding +
LayerNorm text model); one epoch of
a shuffled ``DataLoader`` over a 60,000 x 784 ``TensorDataset`` (batch 256) against indexing
the tensors directly; and the wall time and accuracy of ``examples/train_digits.py``.
PyTorch is optional (install ``torch==2.13.0`` for the comparison; it is never a dependency
of tensorcore).
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from _timing import fmt_time, per_call_ns, print_table
from numpy.lib.stride_tricks import sliding_window_view

import tensorcore as tc

try:
    import torch
except ImportError:  # the comparison is optional
    torch = None


@dataclass(frozen=True)
class Settings:
    repeat: int
    target_ns: int


FULL = Settings(repeat=7, target_ns=300_000_000)
QUICK = Settings(repeat=3, target_ns=60_000_000)
LR, MOMENTUM = 0.01, 0.9


# ------------------------------------------------------------------ MLP with nn and optim
def mlp(lib: Any, rng: np.random.Generator) -> tuple[Callable[[], Any], Any]:
    nn = lib.nn
    model = nn.Sequential(
        nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)
    )
    opt = lib.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    loss_fn = nn.CrossEntropyLoss()
    x = lib.from_numpy(rng.standard_normal((256, 784)).astype(np.float32))
    y = lib.from_numpy(rng.integers(0, 10, 256))

    def step() -> float:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return float(loss.item())

    return step, model


def mlp_numpy(rng: np.random.Generator) -> Callable[[], Any]:
    sizes = [784, 512, 512, 10]
    params, bufs = [], []
    for fan_in, fan_out in itertools.pairwise(sizes):
        b = 1 / np.sqrt(fan_in)
        params += [rng.uniform(-b, b, (fan_out, fan_in)).astype(np.float32),
                   rng.uniform(-b, b, fan_out).astype(np.float32)]  # fmt: skip
    bufs = [None] * len(params)
    x = rng.standard_normal((256, 784)).astype(np.float32)
    y = rng.integers(0, 10, 256)
    rows = np.arange(256)

    def step() -> float:
        w1, b1, w2, b2, w3, b3 = params
        h1 = np.maximum(x @ w1.T + b1, 0)
        h2 = np.maximum(h1 @ w2.T + b2, 0)
        z = h2 @ w3.T + b3
        z -= z.max(1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(1, keepdims=True))
        loss = -logp[rows, y].mean()
        dz = np.exp(logp)
        dz[rows, y] -= 1
        dz /= 256
        dh2 = (dz @ w3) * (h2 > 0)
        dh1 = (dh2 @ w2) * (h1 > 0)
        grads = [dh1.T @ x, dh1.sum(0), dh2.T @ h1, dh2.sum(0), dz.T @ h2, dz.sum(0)]
        for i, (p, g) in enumerate(zip(params, grads, strict=True)):
            if bufs[i] is None:
                bufs[i] = g.copy()
            else:
                bufs[i] *= MOMENTUM
                bufs[i] += g
            p -= LR * bufs[i]
        return float(loss)

    return step


def mlp_products(lib: Any, rng: np.random.Generator) -> Callable[[], Any]:
    """The MLP step's eight matrix products alone (three forward, five backward: no input
    gradient for the first layer), in ``lib`` (``np``, ``tc`` or ``torch``): the floor the
    BLAS sets under the step, NumPy's OpenBLAS against PyTorch's MKL."""

    def arr(*shape: int) -> Any:
        a = rng.standard_normal(shape).astype(np.float32)
        return a if lib is np else lib.from_numpy(a)

    x, w1, w2, w3 = arr(256, 784), arr(512, 784), arr(512, 512), arr(10, 512)
    h1, h2, dz = arr(256, 512), arr(256, 512), arr(256, 10)

    def step() -> None:
        for a, b in ((x, w1.T), (h1, w2.T), (h2, w3.T), (dz, w3), (h2, w2), (h2.T, x),
                     (h2.T, h1), (dz.T, h2)):  # fmt: skip
            a @ b

    return step


# ------------------------------------------------------------------ LeNet-style CNN
def lenet(lib: Any, rng: np.random.Generator) -> Callable[[], Any]:
    nn = lib.nn
    model = nn.Sequential(
        nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(256, 120), nn.ReLU(), nn.Linear(120, 10),
    )  # fmt: skip
    opt = lib.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    x = lib.from_numpy(rng.standard_normal((64, 1, 28, 28)).astype(np.float32))
    y = lib.from_numpy(rng.integers(0, 10, 64))

    def step() -> float:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return float(loss.item())

    return step


def _conv_fwd(x: Any, w: Any) -> tuple[Any, Any]:
    k = w.shape[-1]
    cols = sliding_window_view(x, (k, k), axis=(2, 3))  # (N, C, H', W', k, k), a view
    n, c, ho, wo = cols.shape[:4]
    cm = cols.transpose(0, 2, 3, 1, 4, 5).reshape(n * ho * wo, c * k * k)  # im2col
    y = (cm @ w.reshape(w.shape[0], -1).T).reshape(n, ho, wo, -1).transpose(0, 3, 1, 2)
    return y, cm


def _conv_bwd(g: Any, cm: Any, w: Any, x_shape: tuple[int, ...]) -> tuple[Any, Any]:
    n, o, ho, wo = g.shape
    k = w.shape[-1]
    gm = g.transpose(0, 2, 3, 1).reshape(-1, o)
    dw = (gm.T @ cm).reshape(w.shape)
    dcols = (gm @ w.reshape(o, -1)).reshape(n, ho, wo, x_shape[1], k, k)
    dx = np.zeros(x_shape, dtype=g.dtype)
    for i in range(k):
        for j in range(k):
            dx[:, :, i : i + ho, j : j + wo] += dcols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return dx, dw


def _pool_fwd(x: Any) -> tuple[Any, Any]:
    n, c, h, w = x.shape
    blocks = x.reshape(n, c, h // 2, 2, w // 2, 2)
    out = blocks.max(axis=(3, 5))
    mask = blocks == out[:, :, :, None, :, None]
    return out, mask


def _pool_bwd(g: Any, mask: Any) -> Any:
    n, c, h2, _, w2, _ = mask.shape
    return (mask * g[:, :, :, None, :, None]).reshape(n, c, h2 * 2, w2 * 2)


def lenet_numpy(rng: np.random.Generator) -> Callable[[], Any]:
    def u(shape: tuple[int, ...], fan_in: int) -> Any:
        b = 1 / np.sqrt(fan_in)
        return rng.uniform(-b, b, shape).astype(np.float32)

    params = [u((6, 1, 5, 5), 25), u((6,), 25), u((16, 6, 5, 5), 150), u((16,), 150),
              u((120, 256), 256), u((120,), 256), u((10, 120), 120), u((10,), 120)]  # fmt: skip
    bufs: list[Any] = [None] * len(params)
    x = rng.standard_normal((64, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, 64)
    rows = np.arange(64)

    def step() -> float:
        c1w, c1b, c2w, c2b, f1w, f1b, f2w, f2b = params
        a1, cm1 = _conv_fwd(x, c1w)
        a1 += c1b[:, None, None]
        r1 = np.maximum(a1, 0)
        p1, m1 = _pool_fwd(r1)
        a2, cm2 = _conv_fwd(p1, c2w)
        a2 += c2b[:, None, None]
        r2 = np.maximum(a2, 0)
        p2, m2 = _pool_fwd(r2)
        flat = p2.reshape(64, -1)
        h = np.maximum(flat @ f1w.T + f1b, 0)
        z = h @ f2w.T + f2b
        z -= z.max(1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(1, keepdims=True))
        loss = -logp[rows, y].mean()
        dz = np.exp(logp)
        dz[rows, y] -= 1
        dz /= 64
        dh = (dz @ f2w) * (h > 0)
        dflat = dh @ f1w
        dr2 = _pool_bwd(dflat.reshape(p2.shape), m2) * (a2 > 0)
        dp1, dc2w = _conv_bwd(dr2, cm2, c2w, p1.shape)
        dr1 = _pool_bwd(dp1, m1) * (a1 > 0)
        _, dc1w = _conv_bwd(dr1, cm1, c1w, x.shape)
        grads = [dc1w, dr1.sum((0, 2, 3)), dc2w, dr2.sum((0, 2, 3)), dh.T @ flat, dh.sum(0),
                 dz.T @ h, dz.sum(0)]  # fmt: skip
        for i, (p, g) in enumerate(zip(params, grads, strict=True)):
            if bufs[i] is None:
                bufs[i] = g.copy()
            else:
                bufs[i] *= MOMENTUM
                bufs[i] += g
            p -= LR * bufs[i]
        return float(loss)

    return step


# ------------------------------------------------------------------ common model families
# One Adam step of each (the same program for tensorcore and PyTorch), several shapes: the
# recurrent layers' time loop, strided and depthwise convolutions, batch norm, transposed
# convolutions, embeddings and layer norm.
def _resnet(lib: Any, width: int) -> Any:
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):  # type: ignore[name-defined]
        def __init__(self, cin: int, cout: int, stride: int) -> None:
            super().__init__()
            self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.b1 = nn.BatchNorm2d(cout)
            self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.b2 = nn.BatchNorm2d(cout)
            self.short = None
            if stride != 1 or cin != cout:
                self.short = nn.Sequential(
                    nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)
                )

        def forward(self, x: Any) -> Any:
            h = self.b2(self.c2(F.relu(self.b1(self.c1(x)))))
            return F.relu(h + (x if self.short is None else self.short(x)))

    w = width
    return nn.Sequential(
        nn.Conv2d(3, w, 3, 1, 1, bias=False), nn.BatchNorm2d(w), nn.ReLU(),
        Block(w, w, 1), Block(w, 2 * w, 2), Block(2 * w, 4 * w, 2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4 * w, 10),
    )  # fmt: skip


def _separable(lib: Any, c: int) -> Any:
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(3, c, 3, 1, 1), nn.BatchNorm2d(c), nn.ReLU(),
        nn.Conv2d(c, c, 3, 1, 1, groups=c), nn.BatchNorm2d(c), nn.ReLU(),
        nn.Conv2d(c, 2 * c, 1), nn.BatchNorm2d(2 * c), nn.ReLU(),
        nn.Conv2d(2 * c, 2 * c, 3, 2, 1, groups=2 * c), nn.BatchNorm2d(2 * c), nn.ReLU(),
        nn.Conv2d(2 * c, 2 * c, 1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2 * c, 10),
    )  # fmt: skip


def _conv1d(lib: Any, c: int) -> Any:
    nn = lib.nn
    return nn.Sequential(
        nn.Conv1d(16, c, 7, padding=3), nn.ReLU(), nn.MaxPool1d(2),
        nn.Conv1d(c, c, 5, padding=2), nn.BatchNorm1d(c), nn.ReLU(),
        nn.Conv1d(c, 2 * c, 3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveMaxPool1d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(2 * c, 5),
    )  # fmt: skip


def _generator(lib: Any, nz: int) -> Any:
    nn = lib.nn
    return nn.Sequential(
        nn.ConvTranspose2d(nz, 128, 4, 1, 0, bias=False), nn.BatchNorm2d(128), nn.ReLU(),
        nn.ConvTranspose2d(128, 64, 4, 2, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
        nn.ConvTranspose2d(64, 32, 4, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
        nn.ConvTranspose2d(32, 3, 4, 2, 1, bias=False), nn.Tanh(),
    )  # fmt: skip


def _text(lib: Any, vocab: int, dim: int) -> Any:
    nn = lib.nn

    class Text(nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.emb, self.ln = nn.Embedding(vocab, dim), nn.LayerNorm(dim)
            self.hidden, self.drop = nn.Linear(dim, 2 * dim), nn.Dropout(0.1)
            self.ln2, self.out = nn.LayerNorm(2 * dim), nn.Linear(2 * dim, 4)

        def forward(self, i: Any) -> Any:
            h = self.drop(nn.functional.gelu(self.hidden(self.ln(self.emb(i)))))
            return self.out(self.ln2(h).mean(1))

    return Text()


def _gpt(lib: Any, vocab: int, dim: int, heads: int, layers: int, classes: int) -> Any:
    """Pre-norm transformer blocks with causal self-attention (GPT-style), their tokens
    averaged into a classifier."""
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
            self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
            self.fc, self.out = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

        def forward(self, x: Any) -> Any:
            b, t, d = x.shape
            q, k, v = (
                z.view(b, t, heads, d // heads).transpose(1, 2)
                for z in self.qkv(self.ln1(x)).split(d, dim=2)
            )
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, d))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, dim), nn.Embedding(512, dim)
            self.blocks = nn.Sequential(*(Block() for _ in range(layers)))
            self.ln, self.head = nn.LayerNorm(dim), nn.Linear(dim, classes)

        def forward(self, i: Any) -> Any:
            x = self.tok(i) + self.pos(lib.arange(i.shape[1]))
            return self.head(self.ln(self.blocks(x)).mean(1))

    return GPT()


class _Recurrent:
    """An RNN layer and a linear head on its last output."""

    def __init__(self, lib: Any, kind: str, size: int, hidden: int, **kw: Any) -> None:
        self.rnn = getattr(lib.nn, kind)(size, hidden, batch_first=True, **kw)
        self.head = lib.nn.Linear(hidden * (2 if kw.get("bidirectional") else 1), 10)

    def parameters(self) -> list[Any]:
        return list(self.rnn.parameters()) + list(self.head.parameters())

    def __call__(self, x: Any) -> Any:
        return self.head(self.rnn(x)[0][:, -1])


# name: (model builder, input shape, integer input below this bound (else normal), classes)
FAMILIES: dict[str, tuple[Callable[[Any], Any], tuple[int, ...], int, int]] = {
    "LSTM 2 layers 64->128, (32, 50, 64)": (
        lambda lib: _Recurrent(lib, "LSTM", 64, 128, num_layers=2), (32, 50, 64), 0, 10),
    "LSTM bidirectional 32->64, (16, 100, 32)": (
        lambda lib: _Recurrent(lib, "LSTM", 32, 64, bidirectional=True), (16, 100, 32), 0, 10),
    "GRU 2 layers 64->128, (32, 50, 64)": (
        lambda lib: _Recurrent(lib, "GRU", 64, 128, num_layers=2), (32, 50, 64), 0, 10),
    "ResNet blocks width 16, (32, 3, 32, 32)": (
        lambda lib: _resnet(lib, 16), (32, 3, 32, 32), 0, 10),
    "ResNet blocks width 32, (16, 3, 32, 32)": (
        lambda lib: _resnet(lib, 32), (16, 3, 32, 32), 0, 10),
    "depthwise-separable convs, (32, 3, 32, 32)": (
        lambda lib: _separable(lib, 32), (32, 3, 32, 32), 0, 10),
    "Conv1d net, (32, 16, 256)": (lambda lib: _conv1d(lib, 64), (32, 16, 256), 0, 5),
    "DCGAN generator (ConvTranspose2d), (32, 64, 1, 1)": (
        lambda lib: _generator(lib, 64), (32, 64, 1, 1), 0, 0),
    "GPT blocks (causal attention) 2x128, 4 heads, (16, 64) of 256": (
        lambda lib: _gpt(lib, 256, 128, 4, 2, 10), (16, 64), 256, 10),
    "Embedding + LayerNorm + Linear, (64, 40) of 5000": (
        lambda lib: _text(lib, 5000, 128), (64, 40), 5000, 4),
}  # fmt: skip


def family(lib: Any, name: str, seed: int = 0) -> Callable[[], Any]:
    """One Adam step of the model family ``name`` (cross entropy, or for the generator the
    mean squared error against a fixed image batch)."""
    build, shape, vocab, classes = FAMILIES[name]
    lib.manual_seed(seed)
    model = build(lib)
    rng = np.random.default_rng(seed)
    if vocab:
        x = lib.from_numpy(rng.integers(0, vocab, shape))
    else:
        x = lib.from_numpy(rng.standard_normal(shape).astype(np.float32))
    if classes:
        y = lib.from_numpy(rng.integers(0, classes, shape[0]))
        loss_fn = lib.nn.functional.cross_entropy
    else:
        y = lib.from_numpy(rng.standard_normal((shape[0], 3, 32, 32)).astype(np.float32))
        loss_fn = lib.nn.functional.mse_loss
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)

    def step() -> float:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return float(loss.item())

    return step


# ------------------------------------------------------------------ Adam over 10^6 parameters
SHAPE, COUNT = (100, 100), 100


def adam(lib: Any, rng: np.random.Generator) -> Callable[[], Any]:
    params = [lib.nn.Parameter(lib.from_numpy(rng.standard_normal(SHAPE).astype(np.float32)))
              for _ in range(COUNT)]  # fmt: skip
    for p in params:
        p.grad = lib.from_numpy(rng.standard_normal(SHAPE).astype(np.float32))
    opt = lib.optim.Adam(params, lr=1e-3)
    return opt.step


def adam_numpy(rng: np.random.Generator) -> Callable[[], Any]:
    params = [rng.standard_normal(SHAPE).astype(np.float32) for _ in range(COUNT)]
    grads = [rng.standard_normal(SHAPE).astype(np.float32) for _ in range(COUNT)]
    m = [np.zeros(SHAPE, np.float32) for _ in range(COUNT)]
    v = [np.zeros(SHAPE, np.float32) for _ in range(COUNT)]
    state = {"t": 0}
    b1, b2, lr, eps = 0.9, 0.999, 1e-3, 1e-8

    def step() -> None:
        state["t"] += 1
        t = state["t"]
        bc1, bc2 = 1 - b1**t, np.sqrt(1 - b2**t)
        for p, g, mi, vi in zip(params, grads, m, v, strict=True):
            mi += (g - mi) * (1 - b1)
            vi *= b2
            vi += g * g * (1 - b2)
            denom = np.sqrt(vi)
            denom /= bc2
            denom += eps
            p -= mi / denom * (lr / bc1)

    return step


# ------------------------------------------------------------------ DataLoader
def loader(rng: np.random.Generator) -> dict[str, Callable[[], Any]]:
    x = tc.from_numpy(rng.standard_normal((60000, 784)).astype(np.float32))
    y = tc.from_numpy(rng.integers(0, 10, 60000))
    ds = tc.utils.data.TensorDataset(x, y)
    dl = tc.utils.data.DataLoader(ds, batch_size=256, shuffle=True)

    def epoch_loader() -> int:
        n = 0
        for xb, _ in dl:
            n += xb.shape[0]
        return n

    def epoch_direct() -> int:
        perm = tc.randperm(60000)
        n = 0
        for i in range(0, 60000, 256):
            idx = perm[i : i + 256]
            xb, _ = x[idx], y[idx]
            n += xb.shape[0]
        return n

    fns = {"tensorcore": epoch_loader, "direct": epoch_direct}
    if torch is not None:
        tx, ty = torch.from_numpy(x.numpy()), torch.from_numpy(y.numpy())
        tdl = torch.utils.data.DataLoader(
            torch.utils.data.TensorDataset(tx, ty), batch_size=256, shuffle=True
        )

        def epoch_torch() -> int:
            n = 0
            for xb, _ in tdl:
                n += xb.shape[0]
            return n

        fns["torch"] = epoch_torch
    return fns


def _row(name: str, fns: dict[str, Callable[[], Any]], s: Settings, baseline: str) -> Any:
    t = per_call_ns(fns, s.repeat, s.target_ns)
    if baseline != "numpy":
        t["numpy"] = t.pop(baseline)
        t.samples["numpy"] = t.samples.pop(baseline)
    return (name, t, fmt_time)


def main(argv: list[str] | None = None) -> int:
    """Run every workload and print the comparison table."""
    parser = argparse.ArgumentParser(description="training workloads vs NumPy and PyTorch")
    parser.add_argument("--quick", action="store_true", help="fewer and shorter repeats")
    args = parser.parse_args(argv)
    s = QUICK if args.quick else FULL
    rng = np.random.default_rng(0)
    tc.manual_seed(0)
    print(f"tensorcore {tc.__version__}, numpy {np.__version__}, ", end="")
    if torch is not None:
        torch.manual_seed(0)
        print(f"torch {torch.__version__} ({torch.get_num_threads()} threads)")
    else:
        print("torch not installed")
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    print(f"median of {s.repeat} repeats; ratios: median of the per-turn ratios\n")

    rows = []
    fns: dict[str, Callable[[], Any]] = {"tensorcore": mlp(tc, rng)[0], "numpy": mlp_numpy(rng)}
    if torch is not None:
        fns["torch"] = mlp(torch, rng)[0]
    rows.append(_row("MLP 784-512-512-10 b256, nn + SGD(momentum) step", fns, s, "numpy"))
    fns = {"tensorcore": mlp_products(tc, rng), "numpy": mlp_products(np, rng)}
    if torch is not None:
        fns["torch"] = mlp_products(torch, rng)
    rows.append(_row("  its 8 matrix products alone (the BLAS)", fns, s, "numpy"))

    fns = {"tensorcore": lenet(tc, rng), "numpy": lenet_numpy(rng)}
    if torch is not None:
        fns["torch"] = lenet(torch, rng)
    rows.append(_row("LeNet CNN (64, 1, 28, 28), SGD step (NumPy: im2col)", fns, s, "numpy"))

    fns = {"tensorcore": adam(tc, rng), "numpy": adam_numpy(rng)}
    if torch is not None:
        fns["torch"] = adam(torch, rng)
    rows.append(_row("Adam step, 10^6 params in 100 tensors", fns, s, "numpy"))

    for name in FAMILIES:
        fns = {"tensorcore": family(tc, name)}
        if torch is not None:
            fns["torch"] = family(torch, name)
        rows.append(_row(name + ", Adam step", fns, s, "numpy"))

    rows.append(
        _row(
            "DataLoader epoch 60000x784 b256 (NumPy column: direct indexing)",
            loader(rng),
            Settings(max(3, s.repeat // 2), s.target_ns),
            "direct",
        )
    )
    print_table(rows)
    print("\nratios: tensorcore / other (above 1: tensorcore is slower)")

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
    import train_digits

    start = time.perf_counter()
    acc = train_digits.main(["--quiet", "--out-dir", "/tmp/bench_digits"])
    wall = time.perf_counter() - start
    print(f"\nexamples/train_digits.py: {wall:.1f} s wall, test accuracy {100 * acc:.2f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
