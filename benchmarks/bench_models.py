"""Model workloads: one training step (forward, backward, optimizer step) and one inference
forward of small networks, tensorcore against PyTorch on the CPU, one thread each.

    python3 benchmarks/bench_models.py              # every size, several minutes on 2 cores
    python3 benchmarks/bench_models.py --quick      # the first size of each model, about 1 minute
    python3 benchmarks/bench_models.py --only lstm,resnet --profile   # per-operator times

Workloads (``WORKLOADS``), each at two or three sizes: a transformer encoder block
(``nn.TransformerEncoderLayer``, and one written with ``nn.MultiheadAttention`` or
``F.scaled_dot_product_attention``, ``LayerNorm`` and GELU); LSTM and GRU language models
(``Embedding`` -> recurrent layers -> ``Linear`` -> cross entropy, sequence 35, batch 20); a
stack of ResNet basic blocks with ``BatchNorm2d`` and a ``MaxPool2d``/``AdaptiveAvgPool2d``
head, and a depthwise-separable block (``groups=channels``) on 32x32 images; a dilated
``Conv1d`` audio net with ``GroupNorm``; a convolutional autoencoder with a
``ConvTranspose2d`` decoder and a U-Net step with a skip connection; an ``EmbeddingBag``
recommender (``mode="sum"``, offsets) and ``Embedding(sparse=True)`` with ``SparseAdam``.

The same program runs with ``lib`` = tensorcore and ``lib`` = torch, from equal parameters
(copied from the tensorcore model). Both libraries run on one thread (``OMP_NUM_THREADS=1``
and its BLAS siblings are set before NumPy loads; ``torch.set_num_threads(1)``), so that the
ratio compares the work each does, not how many cores each grabs on a shared host. The
libraries take turns within each repeat; a ratio is the median of the per-turn ratios
(``_timing.per_call_ns``). Without PyTorch the script times tensorcore alone.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import cProfile  # noqa: E402
import fnmatch  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import pstats  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
from _timing import fmt_time, per_call_ns, print_table  # noqa: E402
from scipy import special  # noqa: E402

import tensorcore as tc  # noqa: E402

try:
    import torch
except ImportError:  # the comparison is optional
    torch = None
else:
    torch.set_num_threads(1)


@dataclass(frozen=True)
class Settings:
    repeat: int
    target_ns: int


FULL = Settings(repeat=7, target_ns=200_000_000)
QUICK = Settings(repeat=5, target_ns=40_000_000)


# ------------------------------------------------------------------ transformer encoder
def _encoder_builtin(lib: Any, d: int, heads: int) -> Any:
    return lib.nn.TransformerEncoderLayer(
        d, heads, dim_feedforward=4 * d, dropout=0.0, activation="gelu", batch_first=True
    )


def _encoder_mha(lib: Any, d: int, heads: int) -> Any:
    """Pre-norm block: ``nn.MultiheadAttention`` (a padding mask), LayerNorm, GELU MLP."""
    nn = lib.nn

    class Block(nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
            self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x: Any) -> Any:
            h = self.ln1(x)
            x = x + self.attn(h, h, h, need_weights=False)[0]
            return x + self.fc2(nn.functional.gelu(self.fc1(self.ln2(x))))

    return Block()


def _encoder_sdpa(lib: Any, d: int, heads: int) -> Any:
    """Pre-norm block with a fused QKV projection and ``F.scaled_dot_product_attention``."""
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x: Any) -> Any:
            b, t, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, heads, d // heads).permute(2, 0, 3, 1, 4)
            y = F.scaled_dot_product_attention(q, k, v)
            x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
            return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))

    return Block()


def _regression(build: Callable[[Any], Any], shape: tuple[int, ...]) -> Callable[..., Any]:
    """A workload whose loss is the mean squared error against a fixed random target."""

    def make(lib: Any, rng: np.random.Generator) -> tuple[Any, Any, Any, Callable[..., Any]]:
        x = rng.standard_normal(shape).astype(np.float32)
        return build(lib), (x,), None, _mse

    return make


def _mse(lib: Any, out: Any, _target: Any) -> Any:
    return (out * out).mean()


# ------------------------------------------------------------------ recurrent language model
def _language_model(kind: str, hidden: int, layers: int, vocab: int = 1000) -> Callable:
    seq, batch = 35, 20

    def build(lib: Any) -> Any:
        nn = lib.nn

        class LM(nn.Module):  # type: ignore[name-defined]
            def __init__(self) -> None:
                super().__init__()
                self.emb = nn.Embedding(vocab, hidden)
                self.rnn = getattr(nn, kind)(hidden, hidden, layers)  # (seq, batch, feature)
                self.out = nn.Linear(hidden, vocab)

            def forward(self, i: Any) -> Any:
                return self.out(self.rnn(self.emb(i))[0]).view(-1, vocab)

        return LM()

    def make(lib: Any, rng: np.random.Generator) -> tuple[Any, Any, Any, Callable[..., Any]]:
        i = rng.integers(0, vocab, (seq, batch))
        y = rng.integers(0, vocab, seq * batch)
        return build(lib), (i,), y, _cross_entropy

    return make


def _cross_entropy(lib: Any, out: Any, target: Any) -> Any:
    return lib.nn.functional.cross_entropy(out, target)


# ------------------------------------------------------------------ convolutional nets
def _resnet(lib: Any, w: int, blocks: int) -> Any:
    nn, F = lib.nn, lib.nn.functional

    class Basic(nn.Module):  # type: ignore[name-defined]
        def __init__(self, c: int) -> None:
            super().__init__()
            self.c1, self.b1 = nn.Conv2d(c, c, 3, 1, 1, bias=False), nn.BatchNorm2d(c)
            self.c2, self.b2 = nn.Conv2d(c, c, 3, 1, 1, bias=False), nn.BatchNorm2d(c)

        def forward(self, x: Any) -> Any:
            return F.relu(x + self.b2(self.c2(F.relu(self.b1(self.c1(x))))))

    return nn.Sequential(
        nn.Conv2d(3, w, 3, 1, 1, bias=False), nn.BatchNorm2d(w), nn.ReLU(), nn.MaxPool2d(2),
        *(Basic(w) for _ in range(blocks)),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(w, 10),
    )  # fmt: skip


def _separable(lib: Any, c: int) -> Any:
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(3, c, 3, 1, 1, bias=False), nn.BatchNorm2d(c), nn.ReLU(),
        nn.Conv2d(c, c, 3, 1, 1, groups=c, bias=False), nn.BatchNorm2d(c), nn.ReLU(),
        nn.Conv2d(c, 2 * c, 1, bias=False), nn.BatchNorm2d(2 * c), nn.ReLU(),
        nn.Conv2d(2 * c, 2 * c, 3, 2, 1, groups=2 * c, bias=False), nn.BatchNorm2d(2 * c),
        nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2 * c, 10),
    )  # fmt: skip


def _classifier(build: Callable[[Any], Any], shape: tuple[int, ...], classes: int = 10) -> Any:
    def make(lib: Any, rng: np.random.Generator) -> tuple[Any, Any, Any, Callable[..., Any]]:
        x = rng.standard_normal(shape).astype(np.float32)
        y = rng.integers(0, classes, shape[0])
        return build(lib), (x,), y, _cross_entropy

    return make


def _audio(lib: Any, c: int) -> Any:
    """Dilated 1-D convolutions (kernels 9, 5, 3; dilation 1, 2, 4) with GroupNorm."""
    nn = lib.nn
    return nn.Sequential(
        nn.Conv1d(1, c, 9, stride=2, padding=4), nn.GroupNorm(4, c), nn.GELU(),
        nn.Conv1d(c, c, 5, padding=4, dilation=2), nn.GroupNorm(4, c), nn.GELU(),
        nn.Conv1d(c, c, 3, padding=4, dilation=4), nn.GroupNorm(4, c), nn.GELU(),
        nn.Conv1d(c, 2 * c, 3, stride=2, padding=1), nn.GELU(),
        nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(2 * c, 12),
    )  # fmt: skip


def _autoencoder(lib: Any, c: int) -> Any:
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(3, c, 3, 2, 1), nn.GroupNorm(4, c), nn.ReLU(),
        nn.Conv2d(c, 2 * c, 3, 2, 1), nn.GroupNorm(4, 2 * c), nn.ReLU(),
        nn.ConvTranspose2d(2 * c, c, 4, 2, 1), nn.GroupNorm(4, c), nn.ReLU(),
        nn.ConvTranspose2d(c, 3, 4, 2, 1), nn.Sigmoid(),
    )  # fmt: skip


def _unet(lib: Any, c: int) -> Any:
    """One U-Net level: encoder, max-pool, bottleneck, transposed-conv upsampling, skip."""
    nn, F = lib.nn, lib.nn.functional

    def double(cin: int, cout: int) -> Any:
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, 1, 1), nn.GroupNorm(8, cout), nn.ReLU(),
            nn.Conv2d(cout, cout, 3, 1, 1), nn.GroupNorm(8, cout), nn.ReLU(),
        )  # fmt: skip

    class UNet(nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.enc, self.mid = double(3, c), double(c, 2 * c)
            self.up = nn.ConvTranspose2d(2 * c, c, 2, 2)
            self.dec, self.head = double(2 * c, c), nn.Conv2d(c, 1, 1)

        def forward(self, x: Any) -> Any:
            e = self.enc(x)
            m = self.mid(F.max_pool2d(e, 2))
            return self.head(self.dec(lib.cat([self.up(m), e], 1)))

    return UNet()


# ------------------------------------------------------------------ embeddings
def _recommender(num: int, dim: int, batch: int, per_bag: int) -> Callable[..., Any]:
    """Two EmbeddingBag tables (users' histories summed with offsets, item tags averaged
    over fixed-length bags), an MLP on their concatenation, binary cross entropy."""

    def build(lib: Any) -> Any:
        nn = lib.nn

        class Rec(nn.Module):  # type: ignore[name-defined]
            def __init__(self) -> None:
                super().__init__()
                self.hist = nn.EmbeddingBag(num, dim, mode="sum")
                self.tags = nn.EmbeddingBag(num // 10, dim, mode="sum")
                self.mlp = nn.Sequential(nn.Linear(2 * dim, dim), nn.ReLU(), nn.Linear(dim, 1))

            def forward(self, idx: Any, offsets: Any, tags: Any) -> Any:
                h = lib.cat([self.hist(idx, offsets), self.tags(tags)], 1)
                return self.mlp(h).squeeze(1)

        return Rec()

    def make(lib: Any, rng: np.random.Generator) -> tuple[Any, Any, Any, Callable[..., Any]]:
        lengths = rng.integers(1, 2 * per_bag, batch)
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        idx = rng.integers(0, num, int(lengths.sum()))
        tags = rng.integers(0, num // 10, (batch, 4))
        y = (rng.random(batch) < 0.5).astype(np.float32)
        return build(lib), (idx, offsets, tags), y, _bce

    return make


def _bce(lib: Any, out: Any, target: Any) -> Any:
    return lib.nn.functional.binary_cross_entropy_with_logits(out, target)


def _sparse_embedding(num: int, dim: int, batch: int, seq: int) -> Callable[..., Any]:
    """``Embedding(sparse=True)`` averaged over a sequence, a linear head; trained with
    ``SparseAdam`` (embedding) and ``Adam`` (head), as PyTorch's docs suggest."""

    def build(lib: Any) -> Any:
        nn = lib.nn

        class Bag(nn.Module):  # type: ignore[name-defined]
            def __init__(self) -> None:
                super().__init__()
                self.emb = nn.Embedding(num, dim, sparse=True)
                self.head = nn.Linear(dim, 5)

            def forward(self, i: Any) -> Any:
                return self.head(self.emb(i).mean(1))

        return Bag()

    def make(lib: Any, rng: np.random.Generator) -> tuple[Any, Any, Any, Callable[..., Any]]:
        i = rng.integers(0, num, (batch, seq))
        y = rng.integers(0, 5, batch)
        return build(lib), (i,), y, _cross_entropy

    return make


def _sparse_opt(lib: Any, model: Any) -> Any:
    class Both:
        def __init__(self) -> None:
            self.a = lib.optim.SparseAdam(list(model.emb.parameters()), lr=1e-3)
            self.b = lib.optim.Adam(list(model.head.parameters()), lr=1e-3)

        def zero_grad(self) -> None:
            self.a.zero_grad()
            self.b.zero_grad()

        def step(self) -> None:
            self.a.step()
            self.b.step()

    return Both()


# name: (maker(lib, rng) -> (model, inputs, target, loss), optimizer factory or None)
Maker = Callable[..., Any]
WORKLOADS: dict[str, list[tuple[str, Maker, Any]]] = {
    "transformer": [
        (f"TransformerEncoderLayer d{d} h{h}, ({b}, {t}, {d})",
         _regression(lambda lib, d=d, h=h: _encoder_builtin(lib, d, h), (b, t, d)), None)
        for b, t, d, h in ((16, 64, 64, 4), (8, 128, 128, 4), (8, 256, 256, 8))
    ] + [
        (f"MHA pre-norm block d{d} h{h}, ({b}, {t}, {d})",
         _regression(lambda lib, d=d, h=h: _encoder_mha(lib, d, h), (b, t, d)), None)
        for b, t, d, h in ((16, 64, 64, 4), (8, 128, 128, 4))
    ] + [
        (f"SDPA pre-norm block d{d} h{h}, ({b}, {t}, {d})",
         _regression(lambda lib, d=d, h=h: _encoder_sdpa(lib, d, h), (b, t, d)), None)
        for b, t, d, h in ((32, 64, 64, 4), (8, 128, 128, 4))
    ],
    "lstm": [
        (f"LSTM LM {n}x{h}, vocab 1000, (35, 20)", _language_model("LSTM", h, n), None)
        for n, h in ((1, 128), (2, 256))
    ],
    "gru": [
        (f"GRU LM {n}x{h}, vocab 1000, (35, 20)", _language_model("GRU", h, n), None)
        for n, h in ((1, 128), (2, 256))
    ],
    "resnet": [
        (f"ResNet {k} basic blocks w{w}, ({b}, 3, 32, 32)",
         _classifier(lambda lib, w=w, k=k: _resnet(lib, w, k), (b, 3, 32, 32)), None)
        for b, w, k in ((32, 16, 2), (64, 32, 2), (32, 64, 1))
    ],
    "separable": [
        (f"depthwise-separable c{c}, ({b}, 3, 32, 32)",
         _classifier(lambda lib, c=c: _separable(lib, c), (b, 3, 32, 32)), None)
        for b, c in ((32, 16), (64, 32))
    ],
    "audio": [
        (f"Conv1d dilated + GroupNorm c{c}, ({b}, 1, {n})",
         _classifier(lambda lib, c=c: _audio(lib, c), (b, 1, n), 12), None)
        for b, c, n in ((16, 32, 4000), (16, 64, 8000))
    ],
    "autoencoder": [
        (f"conv autoencoder c{c} (ConvTranspose2d), ({b}, 3, 32, 32)",
         _regression(lambda lib, c=c: _autoencoder(lib, c), (b, 3, 32, 32)), None)
        for b, c in ((32, 16), (64, 32))
    ] + [
        (f"U-Net level c{c}, ({b}, 3, 32, 32)",
         _regression(lambda lib, c=c: _unet(lib, c), (b, 3, 32, 32)), None)
        for b, c in ((16, 16), (32, 32))
    ],
    "embedding": [
        (f"EmbeddingBag recommender {n} x {d}, batch {b}",
         _recommender(n, d, b, 20), None)
        for n, d, b in ((10_000, 32, 256), (100_000, 64, 1024))
    ] + [
        (f"Embedding(sparse) + SparseAdam {n} x {d}, ({b}, {s})",
         _sparse_embedding(n, d, b, s), _sparse_opt)
        for n, d, b, s in ((10_000, 32, 64, 20), (100_000, 64, 256, 50))
    ],
}  # fmt: skip


# ------------------------------------------------------------------ the NumPy limit
# The inference forward of two workloads written by hand in NumPy from the tensorcore
# model's parameters: what a NumPy backend can reach with the same arithmetic (the same
# matrix products, softmax and GELU; SciPy's erf), against which tensorcore's overhead and
# its kernels' extra passes are judged.
def _np_params(model: Any) -> dict[str, Any]:
    return {k: v.detach().numpy() for k, v in model.state_dict().items()}


def _np_layer_norm(x: Any, w: Any, b: Any, eps: float = 1e-5) -> Any:
    xc = x - x.mean(-1, keepdims=True)
    return xc / np.sqrt((xc * xc).mean(-1, keepdims=True) + eps) * w + b


def _np_sdpa_block(model: Any, heads: int) -> Callable[[Any], Any]:
    p = _np_params(model)

    def fwd(x: Any) -> Any:
        b, t, d = x.shape
        h = _np_layer_norm(x, p["ln1.weight"], p["ln1.bias"]).reshape(-1, d)
        qkv = h @ p["qkv.weight"].T + p["qkv.bias"]
        q, k, v = qkv.reshape(b, t, 3, heads, d // heads).transpose(2, 0, 3, 1, 4)
        s = (q * np.float32(1 / math.sqrt(d // heads))) @ k.transpose(0, 1, 3, 2)
        s -= s.max(-1, keepdims=True)
        np.exp(s, out=s)
        s /= s.sum(-1, keepdims=True)
        y = (s @ v).transpose(0, 2, 1, 3).reshape(b * t, d)
        x = x + (y @ p["proj.weight"].T + p["proj.bias"]).reshape(b, t, d)
        h = _np_layer_norm(x, p["ln2.weight"], p["ln2.bias"]).reshape(-1, d)
        h = h @ p["fc1.weight"].T + p["fc1.bias"]
        h = h * (1 + special.erf(h * np.float32(1 / math.sqrt(2)))) * np.float32(0.5)
        return x + (h @ p["fc2.weight"].T + p["fc2.bias"]).reshape(b, t, d)

    return fwd


def _np_lstm_lm(model: Any, layers: int) -> Callable[[Any], Any]:
    p = _np_params(model)

    def sigmoid(z: Any) -> Any:
        return 1 / (1 + np.exp(-z))

    def fwd(i: Any) -> Any:
        x = p["emb.weight"][i]  # (seq, batch, hidden)
        seq, batch, hid = x.shape
        for n in range(layers):
            w_hh = p[f"rnn.weight_hh_l{n}"].T
            pre = x.reshape(-1, hid) @ p[f"rnn.weight_ih_l{n}"].T
            pre = (pre + (p[f"rnn.bias_ih_l{n}"] + p[f"rnn.bias_hh_l{n}"])).reshape(seq, batch, -1)
            h = np.zeros((batch, hid), np.float32)
            c = np.zeros((batch, hid), np.float32)
            out = np.empty((seq, batch, hid), np.float32)
            for t in range(seq):
                g = pre[t] + h @ w_hh
                c = sigmoid(g[:, hid : 2 * hid]) * c + sigmoid(g[:, :hid]) * np.tanh(
                    g[:, 2 * hid : 3 * hid]
                )
                h = sigmoid(g[:, 3 * hid :]) * np.tanh(c)
                out[t] = h
            x = out
        return x.reshape(-1, hid) @ p["out.weight"].T + p["out.bias"]

    return fwd


#: row-name prefix: (NumPy forward builder(model, name), ...)
NUMPY_FORWARD: dict[str, Callable[[Any, str], Callable[[Any], Any]]] = {
    "SDPA pre-norm block": lambda m, name: _np_sdpa_block(m, int(name.split(" h")[1][0])),
    "LSTM LM": lambda m, name: _np_lstm_lm(m, int(name.split("LSTM LM ")[1][0])),
}


def _copy_parameters(src: Any, dst: Any) -> None:
    """Give the PyTorch model the tensorcore model's parameters and buffers."""
    theirs = dict(dst.state_dict())
    for name, value in src.state_dict().items():
        if hasattr(value, "numpy"):
            theirs[name].copy_(torch.from_numpy(value.detach().numpy().copy()))


def _tensor(lib: Any, a: Any) -> Any:
    return lib.from_numpy(np.ascontiguousarray(a))


def programs(lib: Any, make: Maker, opt_factory: Any, seed: int, like: Any = None) -> Any:
    """The training step and the inference forward of one workload, in ``lib``."""
    lib.manual_seed(seed)
    model, inputs, target, loss_fn = make(lib, np.random.default_rng(seed))
    if like is not None:
        _copy_parameters(like, model)
    xs = [_tensor(lib, a) for a in inputs]
    y = None if target is None else _tensor(lib, target)
    opt = (opt_factory or (lambda lib, m: lib.optim.Adam(m.parameters(), lr=1e-3)))(lib, model)

    def train() -> float:
        model.train()
        opt.zero_grad()
        loss = loss_fn(lib, model(*xs), y)
        loss.backward()
        opt.step()
        return float(loss.item())

    def infer() -> Any:
        model.eval()
        with lib.no_grad():
            return model(*xs)

    train.inputs = inputs  # type: ignore[attr-defined]  # (for the NumPy forward)
    return train, infer, model


def _check(tc_fn: Callable[[], Any], torch_fn: Callable[[], Any], name: str) -> None:
    """The two libraries compute the same forward from equal parameters (a benchmark of a
    wrong result measures nothing)."""
    a, b = tc_fn().numpy(), torch_fn().numpy()
    if not np.allclose(a, b, rtol=2e-3, atol=2e-4):
        print(f"  ! {name}: outputs differ, max abs {np.abs(a - b).max():.3g}")


def _profile(train: Callable[[], Any], name: str, calls: int = 3) -> None:
    train()
    with tc.profiler.profile() as prof:
        for _ in range(calls):
            train()
    print(f"\n== {name}: tensorcore operators over {calls} steps")
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=15))
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(calls):
        train()
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(12)


def main(argv: list[str] | None = None) -> int:
    """Run the selected workloads and print the comparison table."""
    parser = argparse.ArgumentParser(description="model training steps vs PyTorch (1 thread)")
    parser.add_argument("--quick", action="store_true", help="first size of each model")
    parser.add_argument("--only", default="", help=f"comma list of {', '.join(WORKLOADS)}")
    parser.add_argument("--match", default="*", help="glob on the row names")
    parser.add_argument("--profile", action="store_true", help="per-operator and cProfile times")
    parser.add_argument("--no-infer", action="store_true", help="time the training step only")
    args = parser.parse_args(argv)
    s = QUICK if args.quick else FULL
    groups = [g for g in WORKLOADS if not args.only or g in args.only.split(",")]
    print(f"tensorcore {tc.__version__}, numpy {np.__version__}, ", end="")
    if torch is not None:
        print(f"torch {torch.__version__} ({torch.get_num_threads()} thread)")
    else:
        print("torch not installed")
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    print(f"median of {s.repeat} repeats; ratios: median of the per-turn ratios\n")

    rows = []
    for g in groups:
        seen = set()
        for name, make, opt in WORKLOADS[g]:
            family = name.split(" ")[0]  # (--quick: the first size of each model)
            if not fnmatch.fnmatch(name, args.match) or (args.quick and family in seen):
                continue
            seen.add(family)
            train, infer, model = programs(tc, make, opt, 0)
            fns_t: dict[str, Callable[[], Any]] = {"tensorcore": train}
            fns_i: dict[str, Callable[[], Any]] = {"tensorcore": infer}
            if torch is not None:
                t_train, t_infer, _ = programs(torch, make, opt, 0, like=model)
                _check(infer, t_infer, name)
                fns_t["torch"], fns_i["torch"] = t_train, t_infer
            for prefix, np_build in NUMPY_FORWARD.items():
                if name.startswith(prefix):
                    inputs = train.inputs  # type: ignore[attr-defined]
                    fwd = np_build(model, name)
                    fns_i["numpy"] = lambda fwd=fwd, inputs=inputs: fwd(*inputs)
                    _check(infer, lambda f=fns_i["numpy"]: tc.from_numpy(f()), name + " (NumPy)")
            if args.profile:
                _profile(train, name)
            rows.append((name + ", train step", per_call_ns(fns_t, s.repeat, s.target_ns),
                         fmt_time))  # fmt: skip
            if not args.no_infer:
                rows.append(("  forward, no_grad", per_call_ns(fns_i, s.repeat, s.target_ns),
                             fmt_time))  # fmt: skip
            print(f"  {rows[-1 if args.no_infer else -2][0]} done", flush=True)
    print()
    print_table(rows)
    print("\nratios: tensorcore / other (above 1: tensorcore is slower)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
