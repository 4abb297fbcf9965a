"""``tc._foreach_*``: PyTorch's list operators (EMA updates, hand-written optimizers), against
the single-tensor operators and NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close


def _lists(device: str) -> tuple[list[tc.Tensor], list[np.ndarray]]:
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(3), rng.standard_normal((2, 2))]
    return [tc.tensor(a, device=device) for a in arrays], arrays


def test_binary_overloads_number_numbers_tensor_and_tensors(device: str) -> None:
    ts, arrays = _lists(device)
    out = tc._foreach_add(ts, 2.0)
    assert isinstance(out, tuple) and len(out) == 2
    for o, a in zip(out, arrays, strict=True):
        assert_close(o, a + 2.0)
    for o, a, s in zip(tc._foreach_mul(ts, [2.0, 3.0]), arrays, (2.0, 3.0), strict=True):
        assert_close(o, a * s)
    for o, a in zip(tc._foreach_sub(ts, ts, alpha=0.5), arrays, strict=True):
        assert_close(o, a - 0.5 * a)
    two = tc.tensor(2.0, device=device, dtype=tc.float64)
    for o, a in zip(tc._foreach_div(ts, two), arrays, strict=True):
        assert_close(o, a / 2.0)
    for o, a in zip(tc._foreach_maximum(ts, 0.0), arrays, strict=True):
        assert_close(o, np.maximum(a, 0.0))
    for o, a in zip(tc._foreach_minimum(ts, ts), arrays, strict=True):
        assert_close(o, a)
    for o, a in zip(tc._foreach_pow(2.0, ts), arrays, strict=True):
        assert_close(o, 2.0**a)


def test_inplace_forms_update_self_and_return_it(device: str) -> None:
    # The EMA idiom of timm/diffusers: ema = d * ema + (1 - d) * params.
    ema, arrays = _lists(device)
    params = [t * 2 for t in ema]
    res = tc._foreach_mul_(ema, 0.9)
    assert res is ema
    tc._foreach_add_(ema, params, alpha=0.1)
    for t, a in zip(ema, arrays, strict=True):
        assert_close(t, 0.9 * a + 0.1 * 2 * a)
    tc._foreach_lerp_(ema, params, 0.5)
    for t, a in zip(ema, arrays, strict=True):
        assert_close(t, 0.5 * (1.1 * a) + 0.5 * 2 * a)
    tc._foreach_addcmul_(ema, params, params, value=-0.25)
    for t, a in zip(ema, arrays, strict=True):
        assert_close(t, 1.55 * a - a * a)
    tc._foreach_zero_(ema)
    assert all(not t.any() for t in ema)
    tc._foreach_copy_(ema, params)
    for t, a in zip(ema, arrays, strict=True):
        assert_close(t, 2 * a)


def test_unary_ternary_and_reductions(device: str) -> None:
    ts, arrays = _lists(device)
    pos = tc._foreach_abs(ts)
    for o, a in zip(tc._foreach_sqrt(pos), arrays, strict=True):
        assert_close(o, np.sqrt(np.abs(a)))
    scalars = tc.tensor([1.0, 2.0])
    for o, a, s in zip(tc._foreach_addcdiv(ts, ts, pos, scalars), arrays, (1, 2), strict=True):
        assert_close(o, a + s * a / np.abs(a))
    for n, a in zip(tc._foreach_norm(ts), arrays, strict=True):
        assert n.dim() == 0
        assert_close(n, np.linalg.norm(a.ravel()))
    for n, a in zip(tc._foreach_norm(ts, 1), arrays, strict=True):
        assert_close(n, np.abs(a).sum())
    for n, a in zip(tc._foreach_max(ts), arrays, strict=True):
        assert_close(n, a.max())


def test_gradients_flow_through_the_out_of_place_forms(device: str) -> None:
    x = [tc.ones(2, device=device, requires_grad=True), tc.ones(3, device=device)]
    (y, _) = tc._foreach_mul(x, 3.0)
    y.sum().backward()
    assert_close(x[0].grad, [3.0, 3.0])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        tc._foreach_add_(x, 1.0)


def test_bad_lists_are_refused_in_pytorch_words(device: str) -> None:
    ts, _ = _lists(device)
    with pytest.raises(RuntimeError, match="Tensor list must have at least one tensor"):
        tc._foreach_add([], 1.0)
    with pytest.raises(RuntimeError, match="same number of tensors, got 2 and 1"):
        tc._foreach_add(ts, ts[:1])
    with pytest.raises(RuntimeError, match="same number of elements as scalar list"):
        tc._foreach_mul(ts, [1.0])
    with pytest.raises(TypeError, match="argument 'other'"):
        tc._foreach_add(ts, "x")
    ints = [tc.ones(2, dtype=tc.int64, device=device)]
    with pytest.raises(RuntimeError, match="can't be cast"):
        tc._foreach_mul_(ints, 1.5)
