"""``nn.utils.prune``: masks against NumPy rankings, the reparametrization and its removal,
iterative pruning and global pruning."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.nn.utils import prune
from tensorcore.testing import assert_close, to_numpy


def _linear(device: str, w: np.ndarray) -> nn.Linear:
    lin = nn.Linear(w.shape[1], w.shape[0]).to(device, tc.float64)
    with tc.no_grad():
        lin.weight.copy_(tc.tensor(w))
    return lin


W = np.random.default_rng(0).normal(size=(4, 5))


def test_l1_unstructured_reparametrizes_and_masks(device: str) -> None:
    lin = _linear(device, W)
    orig = lin.weight
    assert prune.l1_unstructured(lin, "weight", amount=0.3) is lin
    k = round(0.3 * W.size)
    want = np.ones(W.size)
    want[np.argsort(np.abs(W).ravel())[:k]] = 0
    assert_close(lin.weight_mask, want.reshape(W.shape))
    assert lin.weight_orig is orig and "weight" not in dict(lin.named_parameters())
    assert sorted(lin.state_dict()) == ["bias", "weight_mask", "weight_orig"]
    assert_close(lin.weight, W * want.reshape(W.shape))
    # The forward pre-hook recomputes the pruned weight from the parameter.
    with tc.no_grad():
        orig.mul_(2)
    x = tc.ones(1, 5, dtype=tc.float64, device=device)
    out = lin(x)
    assert_close(out, (2 * W * want.reshape(W.shape)).sum(1)[None] + to_numpy(lin.bias))
    out.sum().backward()
    assert_close(orig.grad, np.broadcast_to(want.reshape(W.shape), W.shape))
    assert prune.is_pruned(nn.Sequential(lin)) and not prune.is_pruned(nn.Linear(2, 2))
    # remove: the pruned values become the parameter again.
    prune.remove(lin, "weight")
    assert isinstance(lin.weight, nn.Parameter) and lin.weight is orig
    assert sorted(lin.state_dict()) == ["bias", "weight"]
    assert_close(lin.weight, 2 * W * want.reshape(W.shape))
    with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
        prune.remove(lin, "weight")


def test_amount_checks(device: str) -> None:
    lin = _linear(device, W)
    with pytest.raises(TypeError, match="Invalid type for amount"):
        prune.l1_unstructured(lin, "weight", amount="half")
    with pytest.raises(ValueError, match="should either be a float in the range"):
        prune.l1_unstructured(lin, "weight", amount=1.5)
    with pytest.raises(ValueError, match="should be smaller than the number of parameters"):
        prune.l1_unstructured(lin, "weight", amount=21)
    assert "weight" in dict(lin.named_parameters())  # a failed pruning leaves it as it was
    prune.l1_unstructured(lin, "bias", amount=2)
    assert int(lin.bias_mask.sum().item()) == 2


def test_random_unstructured_prunes_the_amount(device: str) -> None:
    lin = _linear(device, W)
    prune.random_unstructured(lin, "weight", amount=7)
    assert int((lin.weight_mask == 0).sum().item()) == 7
    assert int((lin.weight == 0).sum().item()) == 7


def test_structured_and_iterative_pruning(device: str) -> None:
    conv = nn.Conv2d(2, 6, 3).to(device, tc.float64)
    w = to_numpy(conv.weight)
    prune.ln_structured(conv, "weight", amount=0.5, n=2, dim=0)
    norms = np.sqrt((w**2).sum((1, 2, 3)))
    keep = np.zeros(6, dtype=bool)
    keep[np.argsort(-norms)[:3]] = True
    assert_close(conv.weight_mask.sum((1, 2, 3)) > 0, keep)
    # A second pruning sees only the kept channels: one more channel goes.
    prune.ln_structured(conv, "weight", amount=1, n=1, dim=0)
    hook = next(
        h for h in conv._forward_pre_hooks.values() if isinstance(h, prune.BasePruningMethod)
    )
    assert isinstance(hook, prune.PruningContainer) and len(hook) == 2
    kept = np.nonzero(keep)[0]
    l1 = np.abs(w[kept]).sum((1, 2, 3))
    keep2 = keep.copy()
    keep2[kept[np.argmin(l1)]] = False
    assert_close(conv.weight_mask.sum((1, 2, 3)) > 0, keep2)
    prune.random_structured(conv, "weight", amount=1, dim=0)
    assert int((conv.weight_mask.sum((1, 2, 3)) > 0).sum().item()) == 1
    with pytest.raises(ValueError, match="Structured pruning can only be applied"):
        prune.ln_structured(conv, "bias", amount=1, n=2, dim=0)


def test_global_unstructured_and_custom_mask(device: str) -> None:
    a = _linear(device, W)
    b = _linear(device, W[:2] * 3)
    prune.global_unstructured(
        [(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured, amount=10
    )
    both = np.concatenate([np.abs(W).ravel(), np.abs(W[:2] * 3).ravel()])
    want = np.ones(both.size)
    want[np.argsort(both)[:10]] = 0
    got = tc.cat([a.weight_mask.reshape(-1), b.weight_mask.reshape(-1)])
    assert_close(got, want)
    c = _linear(device, W)
    mask = tc.tensor((W > 0).astype(np.float64), device=device)
    prune.custom_from_mask(c, "weight", mask)
    assert_close(c.weight, W * (W > 0))
    with pytest.raises(TypeError, match='Only "unstructured" PRUNING_TYPE'):
        prune.global_unstructured([(c, "bias")], pruning_method=prune.LnStructured, amount=1, n=1)
