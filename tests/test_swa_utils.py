"""``tensorcore.optim.swa_utils``: the averaged weights, buffers, BN statistics and the SWALR
schedule against hand-computed values (PyTorch's documented formulas)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.optim.swa_utils import (
    SWALR,
    AveragedModel,
    get_ema_avg_fn,
    get_ema_multi_avg_fn,
    update_bn,
)
from tensorcore.testing import assert_close


def _model(device: str) -> nn.Module:
    return nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)).to(device).double()


def _set(model: nn.Module, value: float) -> None:
    with tc.no_grad():
        for p in model.parameters():
            p.fill_(value)


@pytest.mark.parametrize("kind", ["swa", "ema", "ema_single"])
def test_averaged_model_averages_the_weights(device: str, kind: str) -> None:
    model = _model(device)
    fn = {
        "swa": {},
        "ema": {"multi_avg_fn": get_ema_multi_avg_fn(0.75)},
        "ema_single": {"avg_fn": get_ema_avg_fn(0.75)},
    }[kind]
    avg = AveragedModel(model, **fn)  # type: ignore[arg-type]
    values = [1.0, 3.0, 8.0]
    for v in values:
        _set(model, v)
        avg.update_parameters(model)
    if kind == "swa":
        want = np.mean(values)
    else:  # the first update copies, then ema = 0.75 ema + 0.25 value
        want = 1.0
        for v in values[1:]:
            want = 0.75 * want + 0.25 * v
    for p in avg.module.parameters():
        assert_close(p, np.full(tuple(p.shape), want))
    assert avg.n_averaged.item() == 3
    # Buffers are copied from the model, not averaged.
    model[1].running_mean.fill_(5.0)
    avg.update_parameters(model)
    assert_close(avg.module[1].running_mean, np.full(2, 5.0))
    assert "n_averaged" in avg.state_dict()


def test_update_bn_recomputes_the_statistics_as_a_cumulative_average(device: str) -> None:
    model = nn.Sequential(nn.BatchNorm1d(2)).to(device).double().eval()
    batches = [np.array([[1.0, 2.0], [3.0, 6.0]]), np.array([[5.0, 0.0], [7.0, 4.0], [9.0, 8.0]])]
    loader = [(tc.tensor(b, device=device), 0) for b in batches]
    update_bn(loader, model)
    # momentum=None: the plain mean of the batches' statistics (unbiased variances).
    assert_close(model[0].running_mean, np.mean([b.mean(0) for b in batches], axis=0))
    assert_close(model[0].running_var, np.mean([b.var(0, ddof=1) for b in batches], axis=0))
    assert model[0].momentum == 0.1 and not model.training


@pytest.mark.parametrize("strategy", ["cos", "linear"])
def test_swalr_anneals_to_the_swa_lr(strategy: str) -> None:
    opt = tc.optim.SGD([tc.zeros(1, requires_grad=True)], lr=1.0)
    sched = SWALR(opt, swa_lr=0.2, anneal_epochs=3, anneal_strategy=strategy)
    got = [opt.param_groups[0]["lr"]]
    for _ in range(4):
        opt.step()
        sched.step()
        got.append(opt.param_groups[0]["lr"])

    def anneal(t: float) -> float:
        return t if strategy == "linear" else (1 - math.cos(math.pi * t)) / 2

    want = [1.0]
    for step in range(1, 5):
        # lr_t = swa_lr * a(t) + lr_0 * (1 - a(t)) with t = step / anneal_epochs, clamped
        a = anneal(min(1.0, step / 3))
        want.append(0.2 * a + 1.0 * (1 - a))
    np.testing.assert_allclose(got, want)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
        SWALR(opt, 0.1, anneal_strategy="exp")
    with pytest.raises(ValueError, match="Invalid decay value 2"):
        get_ema_multi_avg_fn(2)
