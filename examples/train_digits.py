"""Train a small convolutional network on scikit-learn's handwritten digits with tensorcore.

The 1,797 8x8 images ship inside scikit-learn (no download). The script trains with
``nn.Module``, ``optim.Adam`` and a ``DataLoader`` on the device you pick, saves a checkpoint
with ``tc.save`` (safetensors), reloads it into a fresh model and evaluates again, and writes
a PNG of the loss and accuracy curves::

    python3 examples/train_digits.py                 # CPU
    python3 examples/train_digits.py --device cuda   # with tensorcore-cuda and a GPU
    mpiexec -n 2 python3 examples/train_digits.py --distributed   # data-parallel, 2 processes
    python3 -m tensorcore.distributed.run --nproc 2 examples/train_digits.py --distributed

With ``--distributed`` every process holds the model wrapped in ``DistributedDataParallel``
and trains on its shard of each epoch (``DistributedSampler``); ``--batch-size`` stays the
global batch (each of N processes takes ``batch_size // N``), so the optimizer sees the same
averaged gradients as one process would. Only rank 0 evaluates, prints, saves and plots.

It is written as a PyTorch user would write it; with ``import torch as tc`` it runs on
PyTorch too.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; no display needed
import matplotlib.pyplot as plt
from sklearn.datasets import load_digits
from tqdm import tqdm

import tensorcore as tc
import tensorcore.distributed as dist
from tensorcore import nn
from tensorcore.nn.parallel import DistributedDataParallel
from tensorcore.utils.data import DataLoader, TensorDataset, random_split
from tensorcore.utils.data.distributed import DistributedSampler


class DigitNet(nn.Module):
    """Two 3x3 convolutions, a 2x2 max pool and two linear layers."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(32 * 4 * 4, 64),
            nn.ReLU(),
            nn.Dropout(0.2),
            nn.Linear(64, 10),
        )

    def forward(self, x: tc.Tensor) -> tc.Tensor:
        return self.classifier(self.features(x))


def load_data(seed: int, test_fraction: float) -> tuple[TensorDataset, TensorDataset]:
    digits = load_digits()
    images = tc.tensor(digits.images, dtype=tc.float32).unsqueeze(1) / 16.0
    labels = tc.tensor(digits.target, dtype=tc.int64)
    full = TensorDataset(images, labels)
    n_test = round(len(full) * test_fraction)
    train, test = random_split(
        full, [len(full) - n_test, n_test], generator=tc.Generator().manual_seed(seed)
    )
    # Materialise the subsets as tensors: batches are then one gather each.
    return _as_tensors(train), _as_tensors(test)


def _as_tensors(subset: object) -> TensorDataset:
    idx = tc.tensor(subset.indices)  # type: ignore[attr-defined]
    base = subset.dataset  # type: ignore[attr-defined]
    return TensorDataset(*(t[idx] for t in base.tensors))


@tc.no_grad()
def evaluate(model: nn.Module, loader: DataLoader, device: str) -> tuple[float, float]:
    """Mean loss and accuracy over ``loader``."""
    model.eval()
    loss_fn = nn.CrossEntropyLoss(reduction="sum")
    total, correct, loss = 0, 0, 0.0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        logits = model(x)
        loss += loss_fn(logits, y).item()
        correct += (logits.argmax(1) == y).sum().item()
        total += y.shape[0]
    return loss / total, correct / total


def plot(history: dict[str, list[float]], path: Path) -> None:
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
    epochs = range(1, len(history["train_loss"]) + 1)
    ax1.plot(epochs, history["train_loss"], label="train")
    ax1.plot(epochs, history["test_loss"], label="test")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("cross-entropy")
    ax1.legend()
    ax2.plot(epochs, [100 * a for a in history["test_acc"]], color="tab:green")
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("test accuracy (%)")
    fig.suptitle("tensorcore: CNN on scikit-learn's 8x8 digits")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", help="cpu or cuda (default: cpu)")
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out-dir", type=Path, default=Path("digits_run"))
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--distributed", action="store_true", help="data-parallel (launch with mpiexec -n N)"
    )
    args = parser.parse_args(argv)

    tc.manual_seed(args.seed)
    device = args.device
    if device.startswith("cuda") and not tc.cuda.is_available():
        parser.error("--device cuda: no usable CUDA device (see `python3 -m tensorcore`)")
    rank, world = 0, 1
    if args.distributed:
        dist.init_process_group()  # rank and world size come from the launcher
        rank, world = dist.get_rank(), dist.get_world_size()
    train_set, test_set = load_data(args.seed, test_fraction=0.2)
    test_loader = DataLoader(test_set, batch_size=256)
    sampler = None
    if args.distributed:
        sampler = DistributedSampler(train_set, shuffle=True, seed=args.seed)
        batch = max(1, args.batch_size // world)
        train_loader = DataLoader(train_set, batch_size=batch, sampler=sampler)
    else:
        g = tc.Generator().manual_seed(args.seed)
        train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, generator=g)

    net = DigitNet().to(device)
    # DDP broadcasts rank 0's parameters and buffers; ``net`` stays the plain model to
    # evaluate and save (no ``module.`` prefix in the checkpoint).
    model = DistributedDataParallel(net) if args.distributed else net
    if args.distributed:
        tc.manual_seed(args.seed + rank)  # each rank its own dropout masks
    optimizer = tc.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = tc.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    loss_fn = nn.CrossEntropyLoss()
    history: dict[str, list[float]] = {"train_loss": [], "test_loss": [], "test_acc": []}

    start = time.perf_counter()
    bar = tqdm(range(args.epochs), desc="training", unit="epoch", disable=args.quiet or rank > 0)
    for epoch in bar:
        if sampler is not None:
            sampler.set_epoch(epoch)  # reshuffle, identically on every rank
        model.train()
        running, seen = 0.0, 0
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            running += loss.item() * y.shape[0]
            seen += y.shape[0]
        scheduler.step()
        if args.distributed:  # the training loss over every rank's shard
            sums = tc.tensor([running, float(seen)], dtype=tc.float64)
            dist.all_reduce(sums)
            running, seen = sums[0].item(), int(sums[1].item())
        if rank > 0:
            continue
        test_loss, test_acc = evaluate(net, test_loader, device)
        history["train_loss"].append(running / seen)
        history["test_loss"].append(test_loss)
        history["test_acc"].append(test_acc)
        bar.set_postfix(loss=f"{running / seen:.3f}", test_acc=f"{100 * test_acc:.1f}%")
    elapsed = time.perf_counter() - start
    if rank > 0:  # rank 0 reports; the others learn its accuracy
        return _finish_rank(args.distributed, 0.0)

    args.out_dir.mkdir(parents=True, exist_ok=True)
    ckpt = args.out_dir / "digits.safetensors"
    tc.save(net.state_dict(), ckpt)
    fresh = DigitNet().to(device)
    fresh.load_state_dict(tc.load(ckpt, map_location=device))
    _, reloaded_acc = evaluate(fresh, test_loader, device)
    png = args.out_dir / "digits_curves.png"
    plot(history, png)

    final = history["test_acc"][-1]
    where = f"{world} processes" if args.distributed else device
    print(f"trained {args.epochs} epochs on {where} in {elapsed:.1f} s")
    print(f"test accuracy: {100 * final:.2f}% (reloaded from {ckpt}: {100 * reloaded_acc:.2f}%)")
    print(f"curves: {png}")
    if abs(reloaded_acc - final) > 1e-9:
        raise SystemExit("the reloaded checkpoint does not reproduce the trained model")
    return _finish_rank(args.distributed, final)


def _finish_rank(distributed: bool, accuracy: float) -> float:
    """Every rank returns rank 0's test accuracy; the process group is left."""
    if not distributed:
        return accuracy
    acc = tc.tensor([accuracy], dtype=tc.float64)
    dist.broadcast(acc, src=0)
    dist.destroy_process_group()
    return acc.item()


if __name__ == "__main__":
    main()
