"""``gelu`` and ``gelu_backward``: the float32 kernel's error bounds against the float64
formula (``tensorcore_xp/kernels/activations.py`` explains its erfc form), float64 as the
composite ``x * (erf(x / sqrt(2)) + 1) / 2`` computed it, the tanh form, the gradient
formulas of both (and their second derivatives), 16-bit inputs and PyTorch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.special as sps

import tensorcore as tc
from tensorcore.testing import assert_close, flushes_subnormals

F = tc.nn.functional


def _points() -> np.ndarray:
    rng = np.random.default_rng(0)
    tiny = np.logspace(-30, 1, 2000)
    return np.concatenate(
        [
            np.linspace(-14, 14, 200_001),
            rng.standard_normal(100_000),
            tiny,
            -tiny,
            [0.0, -0.0],
        ]
    ).astype(np.float32)


def _ulps(got: np.ndarray, want: np.ndarray, scale: np.ndarray) -> np.ndarray:
    ulp = np.spacing(np.abs(scale).astype(np.float32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / ulp


def _phi_terms(x64: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Phi(x)`` and ``x * phi(x)``, the two terms of the gradient."""
    return 0.5 * sps.erfc(-x64 / math.sqrt(2)), x64 * np.exp(-x64 * x64 / 2) / math.sqrt(
        2 * math.pi
    )


def test_float32_gelu_and_its_gradient_are_within_the_documented_ulps(device: str) -> None:
    if device == "meta":
        pytest.skip("meta holds no values")
    x = _points()
    x64 = x.astype(np.float64)
    cdf, dens = _phi_terms(x64)
    want, dwant = x64 * cdf, cdf + dens
    t = tc.tensor(x, device=device)
    got = F.gelu(t).cpu().numpy()
    dgot = tc.gelu_backward(tc.ones_like(t), t).cpu().numpy()
    normal = np.abs(want) > 1.2e-38
    err = _ulps(got, want, want)
    # the gradient cancels near x = -0.75: counted in ulps of its larger term
    derr = _ulps(dgot, dwant, np.maximum(np.abs(cdf), np.abs(dens)))
    for lo, bound, dbound in [(-3, 20, 16), (-6, 80, 64), (-10, 160, 128)]:
        sel = normal & (x > lo)
        assert err[sel].max() <= bound, (lo, err[sel].max())
        assert derr[sel].max() <= dbound, (lo, derr[sel].max())
    # the negative tail keeps its relative precision (1 + erf would round it to 0), down to
    # x = -12.95 where Phi(x) leaves float32's normal range: a device that flushes subnormals
    # (flushes_subnormals: its arithmetic, as CuPy's -ftz kernels) gives 0 for x * Phi(x)
    # below, and loses Phi(x) from the gradient there
    sel = normal & (x > -13)
    if flushes_subnormals(device):
        sel &= cdf >= 2 * np.finfo(np.float32).tiny
    assert (np.abs(got[sel] - want[sel]) <= 1e-4 * np.abs(want[sel])).all()
    big = np.maximum(np.abs(cdf), np.abs(dens))[sel]
    assert (np.abs(dgot[sel] - dwant[sel]) <= 1e-4 * big).all()


def test_float64_gelu_is_the_composite_formula_bit_for_bit(device: str) -> None:
    if device == "meta":
        pytest.skip("meta holds no values")
    x = tc.linspace(-9, 9, 10_001, dtype=tc.float64, device=device)
    want = x * ((x * (1 / math.sqrt(2))).erf() + 1) * 0.5
    np.testing.assert_array_equal(F.gelu(x).cpu().numpy(), want.cpu().numpy())
    x64 = x.cpu().numpy()
    cdf, dens = _phi_terms(x64)
    got = tc.gelu_backward(tc.ones_like(x), x).cpu().numpy()
    np.testing.assert_allclose(got, cdf + dens, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
def test_the_tanh_form_is_pytorchs_formula(device: str, dtype: tc.dtype) -> None:
    if device == "meta":
        pytest.skip("meta holds no values")
    x64 = np.linspace(-8, 8, 4001)
    k, c = math.sqrt(2 / math.pi), 0.044715
    t = np.tanh(k * (x64 + c * x64**3))
    want = 0.5 * x64 * (1 + t)
    dwant = 0.5 * (1 + t) + 0.5 * x64 * (1 - t * t) * k * (1 + 3 * c * x64 * x64)
    x = tc.tensor(x64, dtype=dtype, device=device)
    assert_close(F.gelu(x, approximate="tanh").cpu(), tc.tensor(want, dtype=dtype))
    got = tc.gelu_backward(tc.ones_like(x), x, approximate="tanh").cpu()
    assert_close(got, tc.tensor(dwant, dtype=dtype))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_gradients_and_second_derivatives(device: str, approximate: str) -> None:
    x = tc.linspace(-3.5, 3.5, 9, dtype=tc.float64, device=device).requires_grad_()

    def f(v: tc.Tensor) -> tc.Tensor:
        return F.gelu(v, approximate=approximate)

    assert tc.autograd.gradcheck(f, (x,))
    assert tc.autograd.gradgradcheck(f, (x,))
    g = tc.linspace(-1, 1, 9, dtype=tc.float64, device=device).requires_grad_()

    def back(gv: tc.Tensor, xv: tc.Tensor) -> tc.Tensor:
        return tc.gelu_backward(gv, xv, approximate=approximate)

    assert tc.autograd.gradcheck(back, (g, x))


@pytest.mark.parametrize("dtype", [tc.float16, tc.bfloat16])
def test_16_bit_inputs_compute_in_float32(device: str, dtype: tc.dtype) -> None:
    if device == "meta":
        pytest.skip("meta holds no values")
    x = tc.linspace(-5, 5, 101, device=device).to(dtype)
    for approximate in ("none", "tanh"):
        want = F.gelu(x.float(), approximate=approximate).to(dtype)
        got = F.gelu(x, approximate=approximate)
        assert got.dtype is dtype
        assert_close(got.cpu(), want.cpu(), rtol=0, atol=0)


def test_gelu_edges_out_and_errors(device: str) -> None:
    x = tc.tensor([float("inf"), float("nan"), -0.0, 0.0], device=device)
    if device != "meta":
        got = F.gelu(x).cpu().numpy()
        assert got[0] == np.inf and np.isnan(got[1])
        assert got[2] == 0 and np.signbit(got[2]) and not np.signbit(got[3])
        y = tc.randn(5, device=device)
        want = F.gelu(y).cpu()
        assert_close(F.gelu(y.reshape(5, 1)).reshape(5).cpu(), want)
        tc.gelu(y, out=y)  # out= over its own input
        assert_close(y.cpu(), want)
        assert_close(F.gelu(tc.tensor(0.5, device=device)).cpu(), F.gelu(tc.tensor([0.5])).cpu()[0])
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(x, approximate="fast")
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        tc.gelu_backward(x, x, approximate="fast")
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.gelu(tc.ones(2, dtype=tc.int64, device=device))
    assert tc.nn.GELU("tanh")(x).shape == (4,)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
def test_gelu_at_infinities_and_nan(device: str, approximate: str, dtype: tc.dtype) -> None:
    # PyTorch's values (its scalar kernel, and float64: its vectorised float32 kernel gives
    # nan for gelu(inf) in tensors of two or more elements, which a one-element tensor and
    # every other dtype do not): gelu(inf) = inf, gelu(-inf) = nan (-inf * 0), nan -> nan;
    # the derivative is nan at all three, and cut to 0 / 1 for large finite inputs (tanh's
    # float32 derivative at +-1e30 is nan: its x**3 overflows).
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    x = tc.tensor(
        [math.inf, -math.inf, math.nan, 1e30, -1e30, 20.0, -20.0],
        dtype=dtype,
        device=device,
        requires_grad=True,
    )
    y = F.gelu(x, approximate=approximate)
    y.sum().backward()
    got, grad = y.detach().cpu().numpy(), x.grad.cpu().numpy()
    assert got[0] == np.inf and np.isnan(got[1:3]).all()
    assert got[3] == np.float32(1e30) if dtype is tc.float32 else got[3] == 1e30
    assert got[4] == 0 and got[5] == 20 and got[6] == 0
    assert np.isnan(grad[:3]).all()
    if approximate == "tanh" and dtype is tc.float32:
        assert np.isnan(grad[3:5]).all()
    else:
        assert grad[3] == 1 and grad[4] == 0
    assert grad[5] == 1 and abs(grad[6]) <= 1e-80


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_permuted_inputs_give_the_contiguous_bits(device: str, approximate: str) -> None:
    # A permuted input (and its result, laid out as it) is computed in memory order, in
    # cache-sized blocks, as a contiguous one is: the same bits, forward and backward.
    rng = np.random.default_rng(5)
    a = tc.tensor(rng.normal(size=(40, 50, 70)), dtype=tc.float32, device=device)
    x = a.permute(2, 0, 1)
    g = tc.tensor(rng.normal(size=(70, 40, 50)), dtype=tc.float32, device=device)
    F = tc.nn.functional
    got = F.gelu(x, approximate=approximate)
    assert got.stride() == x.stride()
    assert tc.equal(got, F.gelu(x.contiguous(), approximate=approximate))
    a.requires_grad_()
    y = x.detach().contiguous().requires_grad_()
    (back,) = tc.autograd.grad(F.gelu(a.permute(2, 0, 1), approximate=approximate), a, g)
    (want,) = tc.autograd.grad(F.gelu(y, approximate=approximate), y, g)
    assert tc.equal(back.permute(2, 0, 1), want)
