"""The smooth activations' gradients at extreme inputs and incoming gradients (x = +-100,
+-1e30, ...; grad_output = +-inf, 1e30): ``grad_output * f'(x)`` as IEEE arithmetic gives
it, never a NaN from ``inf * 0`` inside a product rule where ``f'(x)`` itself is a normal
number (``silu``, ``mish`` and ``hardswish`` differentiate through their own backward
operators; ``logaddexp``, ``expm1`` and ``div`` through rules that do not overflow). The
oracle is ``f'`` in float64 with SciPy/NumPy."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.special as sps

import tensorcore as tc

F = tc.nn.functional
_ALPHA, _SCALE = 1.6732632423543772, 1.0507009873554805


def _tsp(x: Any) -> Any:
    return np.tanh(np.logaddexp(x, 0.0))


def _gelu_grad(x: Any) -> Any:
    return 0.5 * sps.erfc(-x / math.sqrt(2)) + x * np.exp(-x * x / 2) / math.sqrt(2 * math.pi)


#: name: (function, its derivative in float64)
CASES: dict[str, tuple[Callable[[tc.Tensor], tc.Tensor], Callable[[Any], Any]]] = {
    "silu": (F.silu, lambda x: sps.expit(x) * (1 + x * (1 - sps.expit(x)))),
    "mish": (F.mish, lambda x: _tsp(x) + x * sps.expit(x) * (1 - _tsp(x) ** 2)),
    "hardswish": (
        F.hardswish,
        lambda x: np.where(x <= -3, 0.0, np.where(x < 3, x / 3 + 0.5, 1.0)),
    ),
    "softplus": (F.softplus, lambda x: np.where(x > 20, 1.0, sps.expit(x))),
    "elu": (F.elu, lambda x: np.where(x > 0, 1.0, np.exp(x))),
    "selu": (F.selu, lambda x: _SCALE * np.where(x > 0, 1.0, _ALPHA * np.exp(x))),
    "celu": (lambda x: F.celu(x, 0.5), lambda x: np.where(x > 0, 1.0, np.exp(x / 0.5))),
    "logsigmoid": (F.logsigmoid, lambda x: sps.expit(-x)),
    "gelu": (F.gelu, _gelu_grad),
}
# (sigmoid and tanh differentiate from their result, as PyTorch's do: 1 - y rounds to 0 where
# f' does not; softsign is a quotient of operators, as in PyTorch, and cancels for |x| >> 1)
_X = [-1e30, -1e4, -100.0, -90.0, -30.0, -20.0, -10.0, -1.0, -0.0, 0.0, 1.0, 10.0, 20.0,
      30.0, 90.0, 100.0, 1e4, 1e30]  # fmt: skip


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_at_extremes_follow_ieee_products(
    device: str, name: str, dtype: tc.dtype
) -> None:
    if device == "meta":
        pytest.skip("meta holds no values")
    fn, deriv = CASES[name]
    x64 = np.array(_X)
    with np.errstate(all="ignore"):
        d = deriv(x64)
    np_dtype = np.float32 if dtype == tc.float32 else np.float64
    # f' well above the subnormals (where the compute dtype represents it)
    normal = np.abs(d) > np.finfo(np_dtype).tiny * 1e4
    x = tc.tensor(_X, dtype=dtype, device=device, requires_grad=True)
    y = fn(x)
    for g in (1.0, math.inf, -math.inf, 1e30):
        (gx,) = tc.autograd.grad(y, [x], tc.full_like(y, g), retain_graph=True)
        got = gx.cpu().numpy().astype(np.float64)
        assert not np.isnan(got[normal]).any(), (g, x64[np.isnan(got) & normal])
        if math.isinf(g):
            want = np.copysign(math.inf, g * d[normal])
            assert np.array_equal(got[normal], want), (g, x64[normal], got[normal])
        else:
            want = (g * d).astype(np_dtype).astype(np.float64)
            # (errors in ulps of the result, or of g where f' is tiny next to 1: gelu's tail
            # in float64 is 1 + erf, which cancels)
            eps = float(np.finfo(np_dtype).eps)
            ok = normal & np.isfinite(want)
            np.testing.assert_allclose(
                got[ok], want[ok], rtol=64 * eps, atol=4 * eps * g, err_msg=f"g={g}"
            )


def test_double_backward_names_are_pytorchs(device: str) -> None:
    x = tc.tensor([-2.0, 0.5, 4.0], dtype=tc.float64, device=device, requires_grad=True)
    for fn, name in [(F.silu, "Silu"), (F.mish, "Mish"), (F.hardswish, "Hardswish")]:
        y = fn(x)
        assert y.grad_fn is not None and y.grad_fn.name() == f"{name}Backward0"
        (g,) = tc.autograd.grad(y.sum(), x, create_graph=True)
        assert g.grad_fn is not None and g.grad_fn.name() == f"{name}BackwardBackward0"


@pytest.mark.parametrize("name", ["silu", "mish", "hardswish"])
def test_second_derivatives_match_finite_differences(device: str, name: str) -> None:
    if device == "meta":
        pytest.skip("meta holds no values")
    fn = CASES[name][0]
    # (hardswish: away from its kinks at +-3)
    x = tc.tensor([-2.5, -0.7, 0.3, 1.9, 2.6], dtype=tc.float64, device=device)
    assert tc.autograd.gradgradcheck(fn, (x.requires_grad_(),))


def test_piecewise_gradients_pass_at_nan(device: str) -> None:
    # (PyTorch's comparisons: a NaN input is on no flat part, and its gradient passes)
    if device == "meta":
        pytest.skip("meta holds no values")
    x = tc.tensor([math.nan, -5.0, 0.5, 5.0], device=device, requires_grad=True)
    for fn, want in [
        (F.hardtanh, [1.0, 0.0, 1.0, 0.0]),
        (F.relu6, [1.0, 0.0, 1.0, 1.0]),
        (lambda v: F.leaky_relu(v, 0.25), [0.25, 0.25, 1.0, 1.0]),
        (F.hardswish, [1.0, 0.0, 0.5 / 3 + 0.5, 1.0]),
    ]:
        (g,) = tc.autograd.grad(fn(x).sum(), [x])
        np.testing.assert_allclose(g.cpu().numpy(), np.array(want, np.float32), rtol=1e-6)


@pytest.mark.parametrize(
    "inplace_fn, lo, hi",
    [
        (lambda v: F.hardtanh(v, -0.5, 1.0, inplace=True), -0.5, 1.0),
        (lambda v: F.hardtanh_(v, -0.5, 1.0), -0.5, 1.0),
        (lambda v: F.relu6(v, inplace=True), 0.0, 6.0),
    ],
)
def test_inplace_hardtanh_without_a_graph_is_the_operator(
    device: str, inplace_fn: Any, lo: float, hi: float
) -> None:
    # (no derivative to record: an in-place clamp; with one: hardtanh, whose gradient is 0
    # at the bounds, unlike clamp's)
    if device == "meta":
        pytest.skip("meta holds no values")
    vals = np.array([math.nan, -math.inf, -0.5, -0.2, 0.0, 1.0, 3.0, 6.0, 7.0, math.inf])
    x = tc.tensor(vals.tolist(), dtype=tc.float64, device=device)
    out = inplace_fn(x)
    assert out is x and out.grad_fn is None
    np.testing.assert_array_equal(x.cpu().numpy(), np.clip(vals, lo, hi))
    leaf = tc.tensor(vals.tolist(), dtype=tc.float64, device=device, requires_grad=True)
    y = inplace_fn(leaf * 1)
    np.testing.assert_array_equal(y.detach().cpu().numpy(), np.clip(vals, lo, hi))
    (g,) = tc.autograd.grad(y.sum(), [leaf])
    inside = ((vals > lo) & (vals < hi)) | np.isnan(vals)
    np.testing.assert_array_equal(g.cpu().numpy(), inside.astype(float))
