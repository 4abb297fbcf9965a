"""The meta device's use: build a model without memory, check its shapes and count its
parameters, train-step it, then materialise it on a real device."""

from __future__ import annotations

import math
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

import tensorcore as tc
from tensorcore import nn

#: Layers with their factory keywords, and an input that runs them.
LAYERS: dict[str, tuple[Callable[..., nn.Module], Callable[..., Any]]] = {
    "Linear": (lambda **k: nn.Linear(4, 8, **k), lambda **k: (tc.empty(5, 4, **k),)),
    "Bilinear": (
        lambda **k: nn.Bilinear(3, 4, 2, **k),
        lambda **k: (tc.empty(5, 3, **k), tc.empty(5, 4, **k)),
    ),
    "Conv2d": (
        lambda **k: nn.Conv2d(3, 8, 3, stride=2, padding=1, **k),
        lambda **k: (tc.empty(2, 3, 9, 9, **k),),
    ),
    "ConvTranspose2d": (
        lambda **k: nn.ConvTranspose2d(3, 8, 3, stride=2, **k),
        lambda **k: (tc.empty(2, 3, 5, 5, **k),),
    ),
    "BatchNorm2d": (lambda **k: nn.BatchNorm2d(3, **k), lambda **k: (tc.empty(2, 3, 4, 4, **k),)),
    "LayerNorm": (lambda **k: nn.LayerNorm(6, **k), lambda **k: (tc.empty(2, 6, **k),)),
    "GroupNorm": (lambda **k: nn.GroupNorm(2, 4, **k), lambda **k: (tc.empty(2, 4, 3, **k),)),
    "LSTM": (lambda **k: nn.LSTM(4, 8, num_layers=2, **k), lambda **k: (tc.empty(7, 3, 4, **k),)),
    "GRU": (lambda **k: nn.GRU(4, 8, batch_first=True, **k), lambda **k: (tc.empty(3, 7, 4, **k),)),
    "MultiheadAttention": (
        lambda **k: nn.MultiheadAttention(8, 2, **k),
        lambda **k: (tc.empty(5, 2, 8, **k),) * 3,
    ),
    "TransformerEncoderLayer": (
        lambda **k: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **k),
        lambda **k: (tc.empty(5, 2, 8, **k),),
    ),
    "PReLU": (lambda **k: nn.PReLU(**k), lambda **k: (tc.empty(3, 4, **k),)),
}


def _shapes(r: Any) -> Any:
    if isinstance(r, tc.Tensor):
        return (tuple(r.shape), r.dtype, r.stride())
    if isinstance(r, (list, tuple)):
        return [_shapes(x) for x in r]
    return r


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layers_take_device_and_dtype_and_run_on_meta(name: str) -> None:
    """Every parameter and floating buffer gets the factory keywords; the forward pass and
    ``backward`` give the CPU's shapes, on meta."""
    make, inputs = LAYERS[name]
    tc.manual_seed(0)
    cpu = make(dtype=tc.float64)
    meta = make(device="meta", dtype=tc.float64)
    tensors = [*meta.parameters(), *meta.buffers()]
    assert {t.device.type for t in tensors} == {"meta"}
    assert {t.dtype for t in tensors if t.is_floating_point()} == {tc.float64}
    kw = {"dtype": tc.float64}
    expected = cpu(*(x.normal_() for x in inputs(**kw)))
    got = meta(*inputs(device="meta", **kw))
    assert _shapes(got) == _shapes(expected)
    out = got[0] if isinstance(got, tuple) else got
    out.sum().backward()
    for p in meta.parameters():
        assert p.grad is not None and p.grad.device.type == "meta"
        assert (p.grad.shape, p.grad.dtype) == (p.shape, p.dtype)


def _mlp(width: int, depth: int, **kw: Any) -> nn.Sequential:
    layers: list[nn.Module] = []
    for _ in range(depth):
        layers += [nn.Linear(width, width, **kw), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


def test_a_large_model_builds_without_allocating() -> None:
    """Ten 8192x8192 Linear layers (2.7 GB of float32 on a real device) build, run forward
    and backward on meta with a few MB of Python allocations at most."""
    width, depth = 8192, 10
    tracemalloc.start()
    try:
        model = _mlp(width, depth, device="meta")
        loss = model(tc.empty(64, width, device="meta")).square().mean()
        loss.backward()
        tc.optim.Adam(model.parameters()).step()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    n = sum(p.numel() for p in model.parameters())
    assert n == depth * (width * width + width) == 671_170_560
    assert sum(p.untyped_storage().nbytes for p in model.parameters()) == 4 * n
    assert peak < 8 * 2**20, f"peak Python allocation {peak} bytes"
    assert all(p.grad is not None and p.grad.device.type == "meta" for p in model.parameters())


def test_an_mlp_trains_on_meta() -> None:
    """Loss, backward and optimizer steps (fused and per-parameter) run on meta; gradients
    have the parameters' shapes."""
    model = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 3)).to("meta")
    x = tc.empty(16, 10, device="meta")
    y = tc.empty(16, dtype=tc.int64, device="meta")
    for opt in (
        tc.optim.SGD(model.parameters(), lr=0.1, momentum=0.9),
        tc.optim.Adam(model.parameters(), amsgrad=True),
        tc.optim.SGD(model.parameters(), lr=0.1, foreach=False),
        tc.optim.RMSprop(model.parameters()),
    ):
        for _ in range(2):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            assert loss.shape == () and loss.device.type == "meta"
            loss.backward()
            opt.step()
    assert [tuple(p.grad.shape) for p in model.parameters()] == [(32, 10), (32,), (3, 32), (3,)]


def test_to_empty_then_reset_parameters_materialises_the_model() -> None:
    """A model built on meta moves to the CPU without its (absent) values, and each layer's
    ``reset_parameters()`` initialises it as the CPU-built model is initialised."""
    with tc.device("meta"):
        model = nn.Sequential(
            nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(4 * 4 * 4, 2)
        )
    assert {p.device.type for p in model.parameters()} == {"meta"}
    model.to_empty(device="cpu")
    assert {t.device.type for t in [*model.parameters(), *model.buffers()]} == {"cpu"}
    tc.manual_seed(3)
    for m in model.modules():
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()
    tc.manual_seed(3)
    reference = nn.Sequential(
        nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(4 * 4 * 4, 2)
    )
    for (name, got), want in zip(
        model.state_dict().items(), reference.state_dict().values(), strict=True
    ):
        assert got.tolist() == want.tolist(), name
    out = model(tc.randn(2, 3, 6, 6))
    assert out.shape == (2, 2) and all(math.isfinite(v) for v in out.flatten().tolist())
