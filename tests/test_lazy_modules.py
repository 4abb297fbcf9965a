"""Lazy modules: shapes inferred on the first forward, the conversion to the plain class,
placeholders in state dicts, loading into a lazy module, and PyTorch's errors."""

from __future__ import annotations

import copy

import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.nn.parameter import is_lazy


def test_uninitialized_placeholders() -> None:
    p = nn.UninitializedParameter(dtype=tc.float64)
    assert repr(p) == "<UninitializedParameter>" and is_lazy(p) and p.requires_grad
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        p.shape  # noqa: B018
    assert type(copy.deepcopy(p)) is nn.UninitializedParameter
    p.materialize((2, 3))
    assert type(p) is nn.Parameter and p.shape == (2, 3) and p.dtype is tc.float64
    b = nn.UninitializedBuffer()
    b.materialize(4)
    assert type(b) is tc.Tensor and b.shape == (4,) and not b.requires_grad


def test_lazy_linear() -> None:
    m = nn.LazyLinear(4)
    assert repr(m) == "LazyLinear(in_features=0, out_features=4, bias=True)"
    assert m.has_uninitialized_params()
    sd = m.state_dict()
    assert list(sd) == ["weight", "bias"] and all(is_lazy(v) for v in sd.values())
    tc.manual_seed(0)
    y = m(tc.ones(2, 3))
    assert y.shape == (2, 4) and type(m) is nn.Linear and m.in_features == 3
    assert type(m.weight) is nn.Parameter and m.weight.shape == (4, 3)
    bound = 1 / 3**0.5  # reset_parameters ran: PyTorch's bounds
    assert float(m.weight.abs().max()) <= bound and float(m.bias.abs().max()) <= bound
    assert not m._forward_pre_hooks
    assert nn.LazyLinear(2, bias=False)(tc.ones(1, 5)).shape == (1, 2)
    d = nn.LazyLinear(2).double()
    d(tc.ones(1, 5, dtype=tc.float64))
    assert d.weight.dtype is tc.float64


def test_lazy_convolutions() -> None:
    c = nn.LazyConv2d(4, 3, padding=1, groups=2)
    assert repr(c).startswith("LazyConv2d(0, 4, kernel_size=(3, 3)")
    assert c(tc.ones(2, 6, 5, 5)).shape == (2, 4, 5, 5)
    assert type(c) is nn.Conv2d and c.weight.shape == (4, 3, 3, 3)
    assert nn.LazyConv1d(3, 2)(tc.ones(4, 7)).shape == (3, 6)  # unbatched: channels first
    assert nn.LazyConv3d(2, 1)(tc.ones(1, 3, 2, 2, 2)).shape == (1, 2, 2, 2, 2)
    t = nn.LazyConvTranspose2d(5, 2, stride=2)
    assert t(tc.ones(1, 3, 4, 4)).shape == (1, 5, 8, 8) and t.weight.shape == (3, 5, 2, 2)
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input"):
        nn.LazyConv2d(4, 3)(tc.ones(5, 5))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.LazyConv2d(4, 3, groups=2)(tc.ones(1, 3, 5, 5))


def test_lazy_batch_norm() -> None:
    bn = nn.LazyBatchNorm1d()
    assert sorted(bn.state_dict()) == [
        "bias",
        "num_batches_tracked",
        "running_mean",
        "running_var",
        "weight",
    ]
    x = tc.randn(8, 3)
    y = bn(x)
    assert type(bn) is nn.BatchNorm1d and bn.num_features == 3
    ref = nn.BatchNorm1d(3)
    tc.testing.assert_close(y, ref(x))
    tc.testing.assert_close(bn.running_mean, ref.running_mean)
    assert int(bn.num_batches_tracked) == 1
    bn2 = nn.LazyBatchNorm2d(affine=False, track_running_stats=False)
    assert bn2(tc.randn(2, 4, 3, 3)).shape == (2, 4, 3, 3) and bn2.weight is None


def test_load_state_dict_materializes_and_training_works() -> None:
    src = nn.Linear(3, 2)
    m = nn.LazyLinear(2)
    m.load_state_dict(src.state_dict())
    assert type(m.weight) is nn.Parameter and m.weight.shape == (2, 3)
    tc.testing.assert_close(m(tc.ones(1, 3)), src(tc.ones(1, 3)))
    assert type(m) is nn.Linear
    net = nn.Sequential(
        nn.LazyConv2d(4, 3), nn.LazyBatchNorm2d(), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10)
    )
    x = tc.randn(2, 3, 8, 8)
    net(x)  # the dummy forward, then the optimizer, as in PyTorch
    opt = tc.optim.SGD(net.parameters(), lr=0.1)
    loss = net(x).pow(2).mean()
    loss.backward()
    opt.step()
    assert net(x).pow(2).mean().item() < loss.item()
    assert type(net[4]) is nn.Linear and net[4].in_features == 144
