"""``nn.functional.ctc_loss`` through the ``_ctc_loss`` / ``_ctc_loss_backward`` operators,
against a NumPy oracle (the recursions in probability space, one sample and one state at a
time) on sequences too long for ``test_losses.py``'s brute force, and PyTorch's edge cases:
impossible alignments, empty inputs and targets, the gradient's convention, its errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F
from tensorcore.testing import assert_close


def _oracle(lp: np.ndarray, target: list[int], blank: int) -> tuple[float, np.ndarray]:
    """-log p(target) and the posterior (T, C) of one sample's valid steps ``lp`` (T, C)."""
    steps, classes = lp.shape
    ext = [blank]
    for c in target:
        ext += [c, blank]
    size = len(ext)
    y = np.exp(lp)
    if steps == 0:
        return (0.0 if not target else math.inf), np.zeros((0, classes))

    def skip(s: int) -> bool:
        return s > 1 and ext[s] != blank and ext[s] != ext[s - 2]

    alpha, beta = np.zeros((steps, size)), np.zeros((steps, size))
    alpha[0, : min(size, 2)] = [y[0, ext[s]] for s in range(min(size, 2))]
    for t in range(1, steps):
        for s in range(size):
            a = alpha[t - 1, s] + (alpha[t - 1, s - 1] if s else 0.0)
            a += alpha[t - 1, s - 2] if skip(s) else 0.0
            alpha[t, s] = a * y[t, ext[s]]
    for s in range(max(size - 2, 0), size):
        beta[-1, s] = y[-1, ext[s]]
    for t in range(steps - 2, -1, -1):
        for s in range(size):
            b = beta[t + 1, s] + (beta[t + 1, s + 1] if s + 1 < size else 0.0)
            b += beta[t + 1, s + 2] if s + 2 < size and skip(s + 2) else 0.0
            beta[t, s] = b * y[t, ext[s]]
    p = alpha[-1, -1] + (alpha[-1, -2] if size > 1 else 0.0)
    post = np.zeros((steps, classes))
    if p > 0:
        for s in range(size):
            post[:, ext[s]] += alpha[:, s] * beta[:, s] / y[:, ext[s]] / p
    return (-math.log(p) if p > 0 else math.inf), post


@pytest.mark.parametrize("concatenated", [False, True])
def test_ctc_loss_and_gradient_match_the_recursions(device: str, concatenated: bool) -> None:
    rng = np.random.default_rng(3)
    steps, batch, classes, blank = 14, 5, 5, 2
    x = rng.normal(size=(batch, steps, classes))
    lp_np = (x - np.log(np.exp(x).sum(2, keepdims=True))).transpose(1, 0, 2)
    labels = [c for c in range(classes) if c != blank]
    targets = rng.choice(labels, size=(batch, 6))
    targets[1, :4] = labels[0]  # repeated labels need a blank between them
    in_len = [14, 11, 0, 14, 3]
    tg_len = [6, 4, 0, 0, 2]
    want, grad = [], np.zeros_like(lp_np)
    for n in range(batch):
        loss, post = _oracle(lp_np[: in_len[n], n], list(targets[n, : tg_len[n]]), blank)
        want.append(loss)
        grad[: in_len[n], n] = np.exp(lp_np[: in_len[n], n]) - post
    # (a non-contiguous input: the (N, T, C) array seen as (T, N, C))
    lp = tc.tensor(lp_np.transpose(1, 0, 2), device=device).transpose(0, 1).requires_grad_()
    if concatenated:
        tg = tc.tensor(np.concatenate([targets[n, : tg_len[n]] for n in range(batch)]))
    else:
        tg = tc.tensor(targets, dtype=tc.int32)
    got = F.ctc_loss(lp, tg.to(device), tc.tensor(in_len), tuple(tg_len), blank, "none")
    assert_close(got, np.array(want))
    scale = rng.normal(size=batch)
    got.backward(tc.tensor(scale, device=device))
    assert_close(lp.grad, grad * scale[None, :, None])


def test_ctc_loss_reductions_and_gradcheck(device: str) -> None:
    x = tc.randn(9, 3, 4, dtype=tc.float64, generator=tc.Generator().manual_seed(0))
    x = x.to(device).requires_grad_()
    tg = tc.tensor([[1, 2, 2, 3], [3, 3, 0, 0], [1, 0, 0, 0]], device=device)
    lens = ((9, 7, 4), (4, 2, 1))
    per = F.ctc_loss(x.log_softmax(2), tg, *lens, reduction="none")
    assert_close(F.ctc_loss(x.log_softmax(2), tg, *lens), (per / tc.tensor([4, 2, 1])).mean())
    assert_close(F.ctc_loss(x.log_softmax(2), tg, *lens, reduction="sum"), per.sum())
    for reduction in ("none", "mean", "sum"):
        assert tc.autograd.gradcheck(
            lambda t, r=reduction: F.ctc_loss(t.log_softmax(2), tg, *lens, reduction=r), (x,)
        )


def test_ctc_loss_of_an_impossible_alignment(device: str) -> None:
    # [1, 1] needs three steps (1, blank, 1): with two, the loss is infinite; PyTorch's
    # gradient is then NaN over the sample's steps (0 after), or 0 with zero_infinity.
    lp = tc.full((3, 2, 3), -math.log(3), dtype=tc.float64, device=device, requires_grad=True)
    tg = tc.tensor([[1, 1], [2, 0]], device=device)
    loss = F.ctc_loss(lp, tg, (2, 3), (2, 1), reduction="none")
    assert loss[0].item() == math.inf and math.isfinite(loss[1].item())
    (g,) = tc.autograd.grad(loss.sum(), lp)
    assert bool(g[:2, 0].isnan().all()) and g[2, 0].tolist() == [0.0, 0.0, 0.0]
    loss = F.ctc_loss(lp, tg, (2, 3), (2, 1), reduction="none", zero_infinity=True)
    assert loss[0].item() == 0.0
    (g,) = tc.autograd.grad(loss.sum(), lp)
    assert g[:, 0].abs().sum().item() == 0.0 and bool(g[:, 1].isfinite().all())


def test_ctc_loss_refusals(device: str) -> None:
    lp = tc.zeros(4, 2, 3, device=device).log_softmax(2).requires_grad_()
    tg = tc.tensor([[1, 2], [1, 0]], device=device)
    with pytest.raises(NotImplementedError, match="\"ctc_loss_cpu\" not implemented for 'Half'"):
        F.ctc_loss(lp.half(), tg, (4, 4), (2, 1))
    with pytest.raises(RuntimeError, match="log_probs tensor must not be empty"):
        F.ctc_loss(lp[:0], tg, (0, 0), (2, 1))
    with pytest.raises(RuntimeError, match="input_lengths to have value at most 4"):
        F.ctc_loss(lp, tg, (5, 4), (2, 1))
    with pytest.raises(RuntimeError, match="target_lengths must be of size batch_size"):
        F.ctc_loss(lp, tg, (4, 4), (2,))
    with pytest.raises(RuntimeError, match="size at least 3 at dimension 1"):
        F.ctc_loss(lp, tg, (4, 4), (3, 1))
    # PyTorch does not differentiate its backward again.
    (g,) = tc.autograd.grad(F.ctc_loss(lp, tg, (4, 4), (2, 1)), lp, create_graph=True)
    with pytest.raises(RuntimeError, match="_ctc_loss_backward is not implemented"):
        tc.autograd.grad(g.sum(), lp)
