"""Distance, embedding and margin losses (``F.pairwise_distance``, ``triplet_margin_loss``,
``cosine_embedding_loss``, ...) and their modules against NumPy written from PyTorch's
documented formulas, on every device, with gradcheck."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F
from tensorcore import nn
from tensorcore.testing import assert_close

RNG = np.random.default_rng(7)
A, P, N = (RNG.normal(size=(5, 4)) for _ in range(3))
S = np.array([1.0, -1.0, 1.0, -1.0, 1.0])
Y = np.array([0, 3, 1, 1, 2])
W = RNG.uniform(0.5, 1.5, size=4)


def t(a: Any, device: str, grad: bool = False) -> Any:
    return tc.tensor(a, device=device, requires_grad=grad)


def _dist(x: Any, y: Any, p: float = 2.0, eps: float = 1e-6) -> Any:
    return (np.abs(x - y + eps) ** p).sum(-1) ** (1 / p)


def _logsig(x: Any) -> Any:
    return -np.logaddexp(-x, 0)


def test_pairwise_and_triplet(device: str) -> None:
    a, p, n = t(A, device), t(P, device), t(N, device)
    assert_close(F.pairwise_distance(a, p, p=3.0, keepdim=True), _dist(A, P, 3.0)[:, None])
    assert_close(nn.PairwiseDistance(p=1, eps=0.0)(a, p[0]), _dist(A, P[0], 1, 0.0))
    d_neg = np.minimum(_dist(A, N, 1), _dist(P, N, 1))
    want = np.maximum(2.0 + _dist(A, P, 1) - d_neg, 0)
    got = F.triplet_margin_loss(a, p, n, margin=2.0, p=1, swap=True, reduction="none")
    assert_close(got, want)
    assert_close(nn.TripletMarginLoss(margin=2.0, p=1, swap=True)(a, p, n), want.mean())
    cos = lambda x, y: 1 - F.cosine_similarity(x, y)  # noqa: E731
    got = F.triplet_margin_with_distance_loss(a, p, n, distance_function=cos, reduction="sum")

    def np_cos(x: Any, y: Any) -> Any:
        return 1 - (x * y).sum(-1) / (np.linalg.norm(x, axis=-1) * np.linalg.norm(y, axis=-1))

    assert_close(got, np.maximum(1.0 + np_cos(A, P) - np_cos(A, N), 0).sum())
    with pytest.raises(RuntimeError, match="anchor 2D, positive 1D, and negative 2D"):
        F.triplet_margin_loss(a, p[0], n)
    with pytest.raises(ValueError, match="margin must be greater than 0, got 0"):
        F.triplet_margin_with_distance_loss(a, p, n, margin=0.0)
    with pytest.raises(ValueError, match="TripletMarginLoss: expected margin"):
        nn.TripletMarginLoss(margin=-1.0)


def test_cosine_ranking_hinge_and_soft_margin(device: str) -> None:
    a, p, s = t(A, device), t(P, device), t(S, device)
    cos = (A * P).sum(1) / np.sqrt(((A * A).sum(1) + 1e-12) * ((P * P).sum(1) + 1e-12))
    want = np.where(S == 1, 1 - cos, np.maximum(cos - 0.2, 0))
    assert_close(F.cosine_embedding_loss(a, p, s.long(), 0.2, reduction="none"), want)
    assert_close(nn.CosineEmbeddingLoss(0.2)(a, p, s), want.mean())
    want = np.maximum(-S * (A[:, 0] - P[:, 0]) + 0.3, 0).sum()
    assert_close(F.margin_ranking_loss(a[:, 0], p[:, 0], s, margin=0.3, reduction="sum"), want)
    assert_close(nn.MarginRankingLoss(0.3, reduction="sum")(a[:, 0], p[:, 0], s), want)
    sign = np.where(A > 0, 1, -1)
    want = np.where(sign == 1, A, np.maximum(0.5 - A, 0))
    assert_close(F.hinge_embedding_loss(a, t(sign, device), 0.5, reduction="none"), want)
    assert_close(nn.HingeEmbeddingLoss(0.5)(a, t(sign, device)), want.mean())
    want = np.log1p(np.exp(-A * np.sign(P)))
    assert_close(nn.SoftMarginLoss(reduction="none")(a, t(np.sign(P), device)), want)
    with pytest.raises(RuntimeError, match="should have same dimension"):
        F.margin_ranking_loss(a, p[:, 0], s)


def test_multilabel_and_multi_margin(device: str) -> None:
    a, w = t(A, device), t(W, device)
    tgt = (P > 0).astype(np.float64)
    want = (-(tgt * _logsig(A) + (1 - tgt) * _logsig(-A)) * W).sum(1) / 4
    got = F.multilabel_soft_margin_loss(a, t(tgt, device), weight=w, reduction="none")
    assert_close(got, want)
    assert_close(nn.MultiLabelSoftMarginLoss(weight=w)(a, t(tgt, device)), want.mean())
    want = np.zeros(5)
    for i, y in enumerate(Y):
        for d in range(4):
            if d != y:
                want[i] += max(0.0, 0.7 - A[i, y] + A[i, d]) ** 2 * W[y]
    want /= 4
    y = tc.tensor(Y, device=device)
    got = F.multi_margin_loss(a, y, p=2, margin=0.7, weight=w, reduction="none")
    assert_close(got, want)
    assert_close(nn.MultiMarginLoss(p=2, margin=0.7, weight=w)(a, y), want.mean())
    one = F.multi_margin_loss(a[0], y[0], p=2, margin=0.7, weight=w)
    assert one.shape == () and math.isclose(one.item(), want[0])
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        F.multi_margin_loss(a, y, p=3)


ML_TARGET = np.array([[3, 0, -1, 1], [1, 1, 2, -1], [2, -1, 0, 0], [0, 1, 2, 3], [-1, 2, 2, 2]])


def _multilabel_margin(x: Any, target: Any) -> Any:
    """Per row: listed classes j (before the first -1; repeats count again) against the
    classes i not listed, ``max(0, 1 - x[j] + x[i]) / C``."""
    out = np.zeros(len(x))
    for r, (row, tg) in enumerate(zip(x, target, strict=True)):
        listed = []
        for c in tg:
            if c < 0:
                break
            listed.append(c)
        for j in listed:
            for i in range(len(row)):
                if i not in listed:
                    out[r] += max(0.0, 1 - row[j] + row[i])
    return out / x.shape[1]


def test_multilabel_margin(device: str) -> None:
    a, y = t(A, device), tc.tensor(ML_TARGET, device=device)
    want = _multilabel_margin(A, ML_TARGET)
    assert_close(F.multilabel_margin_loss(a, y, reduction="none"), want)
    assert_close(nn.MultiLabelMarginLoss()(a, y), want.mean())
    assert_close(nn.MultiLabelMarginLoss(reduction="sum")(a, y), want.sum())
    one = F.multilabel_margin_loss(a[0], y[0], reduction="none")
    assert one.shape == () and math.isclose(one.item(), want[0])
    with pytest.raises(RuntimeError, match=r"inconsistent target size: \[5, 3\]"):
        F.multilabel_margin_loss(a, y[:, :3])
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Float"):
        F.multilabel_margin_loss(a, y.float())
    with pytest.raises(RuntimeError, match="'target' is out of range"):
        F.multilabel_margin_loss(a, y + 4)


def test_poisson_and_gaussian_nll(device: str) -> None:
    a, p = t(A, device), t(P, device)
    k = np.abs(P) * 3
    stirling = k * np.log(k) - k + 0.5 * np.log(2 * math.pi * k)
    want = np.exp(A) - k * A + np.where(k > 1, stirling, 0)
    assert_close(F.poisson_nll_loss(a, t(k, device), full=True, reduction="none"), want)
    want = np.abs(A) - k * np.log(np.abs(A) + 1e-8)
    got = nn.PoissonNLLLoss(log_input=False, reduction="none")(a.abs(), t(k, device))
    assert_close(got, want)
    var = np.abs(N[:, :1])
    want = 0.5 * (np.log(var) + (A - P) ** 2 / var) + 0.5 * math.log(2 * math.pi)
    got = F.gaussian_nll_loss(a, p, t(var, device), full=True, reduction="none")
    assert_close(got, want)
    # var one dim short of input (homoscedastic), and a number.
    want = (0.5 * (np.log(var) + (A - P) ** 2 / var)).mean()
    assert_close(nn.GaussianNLLLoss()(a, p, t(var[:, 0], device)), want)
    assert_close(F.gaussian_nll_loss(a, p, 0.5), (0.5 * (np.log(0.5) + (A - P) ** 2 / 0.5)).mean())
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(a, p, t(np.ones(4), device))
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(a, p, -1.0)


@pytest.mark.parametrize(
    "fn",
    [
        lambda a, p, n: F.triplet_margin_loss(a, p, n, swap=True),
        lambda a, p, n: F.cosine_embedding_loss(a, p, tc.tensor(S, device=a.device), 0.1),
        lambda a, p, n: F.multi_margin_loss(a, tc.tensor(Y, device=a.device), p=2),
        lambda a, p, n: F.multilabel_soft_margin_loss(a, (p > 0).double()),
        lambda a, p, n: F.multilabel_margin_loss(a, tc.tensor(ML_TARGET, device=a.device)),
        lambda a, p, n: F.gaussian_nll_loss(a, p, n.abs() + 0.1),
        lambda a, p, n: F.soft_margin_loss(a, p.sign()) + F.poisson_nll_loss(a, p.abs()),
    ],
)
def test_margin_losses_gradcheck(device: str, fn: Any) -> None:
    args = (t(A, device, True), t(P, device, True), t(N, device, True))
    assert tc.autograd.gradcheck(lambda a, p, n: fn(a, p, n), args)


def test_soft_margin_loss_refuses_a_target_that_broadcasts_input_wider(device: str) -> None:
    # PyTorch's kernel writes ``-input * target`` into a tensor of input's shape: a target
    # that broadcasts it wider is refused, one that broadcasts to it is taken.
    x = tc.zeros(3, 1, device=device)
    with pytest.raises(RuntimeError, match=r"output with shape \[3, 1\] doesn't match the "
                       r"broadcast shape \[3, 3\]"):  # fmt: skip
        F.soft_margin_loss(x, tc.ones(3, device=device))
    got = F.soft_margin_loss(tc.zeros(3, device=device), tc.ones(1, device=device))
    assert abs(got.item() - np.log(2.0)) < 1e-6
