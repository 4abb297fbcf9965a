"""End to end: a small MLP learns a non-linear 3-class problem (autograd + hand-written SGD)."""

from __future__ import annotations

import math
import time

import tensorcore as tc
import tensorcore.nn.functional as F


def _rings(n_per_class: int, g: tc.Generator) -> tuple[tc.Tensor, tc.Tensor]:
    """Points in three concentric rings (radius gaps between them); the label is the ring.

    No line separates the classes, so the hidden layer has to do the work.
    """
    xs, ys = [], []
    for k, (lo, hi) in enumerate([(0.0, 0.8), (1.3, 2.0), (2.5, 3.2)]):
        r = tc.rand(n_per_class, generator=g) * (hi - lo) + lo
        theta = tc.rand(n_per_class, generator=g) * (2 * math.pi)
        xs.append(tc.stack([r * theta.cos(), r * theta.sin()], 1))
        ys.append(tc.full((n_per_class,), k, dtype=tc.int64))
    return tc.cat(xs), tc.cat(ys)


def test_mlp_learns_three_rings(device: str) -> None:
    g = tc.Generator().manual_seed(1234)
    x, y = _rings(60, g)
    x, y = x.to(device), y.to(device)
    params = [
        (tc.randn(16, 2, generator=g) * 0.7).to(device).requires_grad_(),  # w1
        tc.zeros(16, device=device, requires_grad=True),  # b1
        (tc.randn(3, 16, generator=g) * 0.3).to(device).requires_grad_(),  # w2
        tc.zeros(3, device=device, requires_grad=True),  # b2
    ]
    w1, b1, w2, b2 = params

    def logits(inp: tc.Tensor) -> tc.Tensor:
        return F.linear(F.relu(F.linear(inp, w1, b1)), w2, b2)

    def accuracy() -> float:
        with tc.no_grad():
            return float((logits(x).argmax(1) == y).float().mean().item())

    lr = 0.5
    start = time.perf_counter()
    first_loss = None
    acc = accuracy()
    steps = 0
    for steps in range(1, 601):
        loss = F.cross_entropy(logits(x), y)
        if first_loss is None:
            first_loss = loss.item()
        loss.backward()
        with tc.no_grad():
            for p in params:
                p.sub_(lr * p.grad)
                p.grad = None
        if steps % 25 == 0:
            acc = accuracy()
            if acc >= 0.99:
                break
    elapsed = time.perf_counter() - start
    assert acc >= 0.99, f"accuracy {acc:.3f} after {steps} steps"
    assert loss.item() < 0.5 * first_loss
    assert all(p.is_leaf and p.requires_grad and p.grad is None for p in params)
    assert elapsed < 20, f"training took {elapsed:.1f} s"
