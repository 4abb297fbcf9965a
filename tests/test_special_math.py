"""The special and floating-point elementwise operators (``lgamma``, ``erfinv``, ``logit``,
``xlogy``, ``float_power``, ``frexp``...): what the generic pointwise tests cannot see --
PyTorch's values at poles, infinities and signed zeros, the argument checks with PyTorch's
wording, the dtypes of mixed calls, and the gradients at the points where PyTorch's rules
pick a value. The expected numbers are PyTorch 2.13's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close, dtype_unsupported

inf, nan = math.inf, math.nan


def _t(values: list[float], device: str, dtype: tc.dtype = tc.float64) -> tc.Tensor:
    return tc.tensor(values, dtype=dtype, device=device)


def test_gamma_functions_at_poles_and_infinities(device: str) -> None:
    x = _t([0.0, -0.0, -1.0, -2.0, -inf, inf, nan], device)
    assert_close(tc.lgamma(x), np.array([inf, inf, inf, inf, inf, inf, nan]))
    assert_close(tc.digamma(x), np.array([-inf, inf, nan, nan, nan, inf, nan]))
    assert_close(x.polygamma(1)[[0, 1, 4, 5, 6]], np.array([inf, inf, nan, 0.0, nan]))
    assert_close(tc.polygamma(0, x), tc.digamma(x), equal_nan=True)
    assert_close(tc.polygamma(3, x[:4]), np.array([inf] * 4))
    # subnormal and tiny arguments: lgamma(x) = -log|x| - gamma x + O(x^2), finite (1 / x
    # overflowed in the series)
    tiny = np.array([2.2250738585072014e-313, 5e-324, 1e-300, -1e-313, -5e-324])
    got = tc.lgamma(_t(tiny.tolist(), device)).cpu().numpy()
    np.testing.assert_allclose(got, -np.log(np.abs(tiny)), rtol=1e-14)
    # float32 and integer inputs compute in float32, as PyTorch does
    assert tc.lgamma(tc.tensor([3], device=device)).dtype is tc.float32
    assert_close(tc.lgamma(tc.tensor([3], device=device)), np.array([math.log(2.0)], np.float32))
    assert tc.polygamma(1, tc.tensor([1, 2], device=device)).dtype is tc.float32


def test_polygamma_refuses_a_negative_order(device: str) -> None:
    x = _t([1.0], device)
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n"):
        tc.polygamma(-1, x)
    assert x.tolist() == [1.0]


def test_error_functions(device: str) -> None:
    y = _t([-1.0, 1.0, 0.0, -0.0, 1.5, -inf, nan], device)
    assert_close(tc.erfinv(y), np.array([-inf, inf, 0.0, -0.0, nan, nan, nan]))
    assert tc.erfinv(y)[3].item() == 0.0 and math.copysign(1, tc.erfinv(y)[3].item()) < 0
    x = _t([-inf, inf, nan, 0.0, 10.0, -10.0], device)
    assert_close(tc.erfc(x), np.array([2.0, 0.0, nan, 1.0, 2.088487583762545e-45, 2.0]))
    # erfc keeps its relative accuracy where 1 - erf(x) would round to 0
    assert tc.erfc(_t([26.0], device)).item() == pytest.approx(5.663192408856143e-296, rel=1e-14)
    assert_close(tc.erf(tc.erfinv(_t([0.25, -0.999999], device))), np.array([0.25, -0.999999]))


def test_logit_and_eps(device: str) -> None:
    x = _t([0.0, 0.3, 1.0, 1.2, -0.5], device)
    assert_close(tc.logit(x), np.array([-inf, -0.8472978603872037, inf, nan, nan]))
    lo = math.log(0.1 / 0.9)
    assert_close(tc.logit(x, eps=0.1), np.array([lo, -0.8472978603872037, -lo, -lo, lo]))
    assert_close(x.logit(0.1), tc.logit(x, 0.1))
    y = x.clone()
    assert y.logit_(eps=0.1) is y
    assert_close(y, tc.logit(x, eps=0.1))
    # gradients: NaN outside [0, 1] without eps, 0 where eps clamps (PyTorch's logit_backward)
    z = _t([0.5, 1.5, 0.05], device).requires_grad_()
    (g,) = tc.autograd.grad(tc.logit(z).sum(), z)
    assert_close(g, np.array([4.0, nan, 1 / (0.05 * 0.95)]))
    (g,) = tc.autograd.grad(tc.logit(z, eps=0.1).sum(), z)
    assert_close(g, np.array([4.0, 0.0, 0.0]))


def test_sinc_and_degree_conversions(device: str) -> None:
    x = _t([0.0, 0.5, -2.0, inf], device)
    assert_close(tc.sinc(x), np.array([1.0, 2 / math.pi, -3.8981718325193755e-17, nan]))
    z = tc.tensor([0.0j, 0.5 + 0.5j], dtype=tc.complex128, device=device)
    assert_close(tc.sinc(z), np.sinc(np.array([0.0j, 0.5 + 0.5j])))
    x = _t([0.0, 0.5], device).requires_grad_()
    (g,) = tc.autograd.grad(tc.sinc(x).sum(), x)
    assert_close(g, np.array([0.0, -4 / math.pi]))  # (0 - 1) / (pi / 4)
    assert tc.deg2rad(tc.tensor([180], device=device)).dtype is tc.float32
    assert_close(tc.deg2rad(_t([180.0], device)), np.array([math.pi]))
    assert_close(tc.rad2deg(_t([math.pi], device)), np.array([180.0]))
    with pytest.raises(RuntimeError, match="deg2rad is not supported for complex tensors"):
        tc.deg2rad(z)


def test_bessel_i0_and_i1(device: str) -> None:
    x = _t([0.0, 1.0, -2.0], device)
    assert_close(tc.i0(x), np.array([1.0, 1.2660658777520082, 2.2795853023360673]))
    assert_close(tc.special_i1(x), np.array([0.0, 0.5651591039924851, -1.5906368546373291]))
    x = _t([0.0, 1.0], device).requires_grad_()
    (g,) = tc.autograd.grad(tc.special_i1(x).sum(), x)
    assert_close(g, np.array([0.5, 1.2660658777520082 - 0.5651591039924851]))


def test_hyperbolic_inverses(device: str) -> None:
    z = np.array([0.5 + 2j, -3 - 0.25j, 2.0 + 0j])
    for name, ref in (("acosh", np.arccosh), ("asinh", np.arcsinh), ("atanh", np.arctanh)):
        got = getattr(tc, name)(tc.tensor(z, device=device))
        assert got.dtype is tc.complex128
        assert_close(got, ref(z))
    assert tc.acosh(tc.tensor([1, 2], device=device)).dtype is tc.float32
    assert_close(tc.atanh(_t([1.0, -1.0, 2.0], device)), np.array([inf, -inf, nan]))


def test_signbit_frexp_and_positive(device: str) -> None:
    x = _t([-0.0, 0.0, -1.0, nan, -nan, -inf], device)
    assert tc.signbit(x).tolist() == [True, False, True, False, True, True]
    assert tc.signbit(tc.tensor([-3, 0, 2], device=device)).tolist() == [True, False, False]
    assert tc.signbit(tc.tensor([True], device=device)).tolist() == [False]
    m, e = tc.frexp(_t([0.0, 1.0, -3.5, inf, nan, 1e-310], device))
    assert_close(m, np.array([0.0, 0.5, -0.875, inf, nan, 0.5752618031559393]))
    assert e.dtype is tc.int32 and e.tolist()[:5] == [0, 1, 2, 0, 0] and e[5].item() == -1029
    assert tc.frexp(_t([3.0], device)).mantissa.tolist() == [0.75]
    with pytest.raises(RuntimeError, match=r"frexp\(\) only supports floating-point dtypes"):
        tc.frexp(tc.tensor([1], device=device))
    out = (tc.empty(0, device=device), tc.empty(0, dtype=tc.int32, device=device))
    res = tc.frexp(tc.tensor([6.0], device=device), out=out)
    assert res.mantissa is out[0] and res.exponent is out[1] and out[1].tolist() == [3]
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype int, but got float"):
        tc.frexp(tc.tensor([6.0], device=device), out=(out[0], tc.empty(0, device=device)))
    # the mantissa carries the gradient: d mantissa / d self = 2 ** -exponent
    x = _t([6.0, -0.3], device).requires_grad_()
    (g,) = tc.autograd.grad(tc.frexp(x).mantissa.sum(), x)
    assert_close(g, np.array([1 / 8, 2.0]))
    y = tc.tensor([1, -2], device=device)
    assert tc.positive(y) is y and +y is y
    with pytest.raises(RuntimeError, match="The `\\+` operator, on a bool tensor is not supported"):
        +tc.tensor([True], device=device)


def test_invert_refuses_floating_tensors(device: str) -> None:
    assert (~tc.tensor([0, 5], device=device)).tolist() == [-1, -6]
    assert (~tc.tensor([True, False], device=device)).tolist() == [False, True]
    with pytest.raises(TypeError, match="only implemented on integer and Boolean-type tensors"):
        ~tc.tensor([1.0], device=device)


def test_xlogy_convention(device: str) -> None:
    x = _t([0.0, 0.0, 0.0, 2.0, 2.0], device)
    y = _t([0.0, nan, -1.0, 0.0, math.e], device)
    assert_close(tc.xlogy(x, y), np.array([0.0, nan, 0.0, -inf, 2.0]))
    assert_close(tc.xlogy(2.0, _t([1.0], device)), np.array([0.0]))
    assert tc.xlogy(tc.tensor([1], device=device), tc.tensor([2], device=device)).dtype is (
        tc.float32
    )
    # PyTorch's rule: the gradient for self is log(other) also where self is 0
    a = _t([0.0, 1.0], device).requires_grad_()
    b = _t([2.0, 2.0], device).requires_grad_()
    ga, gb = tc.autograd.grad(tc.xlogy(a, b).sum(), (a, b))
    assert_close(ga, np.array([math.log(2.0), math.log(2.0)]))
    assert_close(gb, np.array([0.0, 0.5]))


def test_nan_ignoring_maximum_and_minimum(device: str) -> None:
    a = _t([nan, 1.0, nan, 2.0], device)
    b = _t([1.0, nan, nan, 2.0], device)
    assert_close(tc.fmax(a, b), np.array([1.0, 1.0, nan, 2.0]))
    assert_close(tc.fmin(a, b), np.array([1.0, 1.0, nan, 2.0]))
    t, f = tc.tensor([True], device=device), tc.tensor([False], device=device)
    assert tc.fmax(t, f).tolist() == [True]
    # gradients: ties and a NaN other go to self, as PyTorch's rule has it
    a = _t([3.0, 2.0, 1.0], device).requires_grad_()
    b = _t([1.0, 2.0, nan], device).requires_grad_()
    ga, gb = tc.autograd.grad(tc.fmax(a, b).sum(), (a, b))
    assert ga.tolist() == [1.0, 1.0, 1.0] and gb.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(RuntimeError, match="fmax not implemented for complex tensors"):
        tc.fmax(tc.tensor([1j], device=device), tc.tensor([1j], device=device))


def test_heaviside(device: str) -> None:
    x = _t([-1.0, 0.0, 2.0, nan], device)
    assert_close(tc.heaviside(x, _t([0.5], device)), np.array([0.0, 0.5, 1.0, 0.0]))
    i = tc.tensor([-2, 0, 3], device=device)
    assert tc.heaviside(i, tc.tensor([7], device=device)).tolist() == [0, 7, 1]
    with pytest.raises(
        RuntimeError, match="heaviside is not yet implemented for tensors with different dtypes"
    ):
        tc.heaviside(x, tc.tensor([1.0], device=device))


def test_float_power_computes_in_double(device: str) -> None:
    x = tc.tensor([2.0, 3.0], device=device)
    assert tc.float_power(x, 2).dtype is tc.float64
    assert tc.float_power(2, tc.tensor([3], device=device)).tolist() == [8.0]
    z = tc.float_power(x, tc.tensor([1j], device=device))
    assert z.dtype is tc.complex128
    with pytest.raises(
        RuntimeError,
        match="the base given to float_power_ has dtype Float but the operation's result "
        "requires dtype Double",
    ):
        x.float_power_(2)
    assert x.tolist() == [2.0, 3.0]
    with pytest.raises(
        RuntimeError,
        match="the output given to float_power has dtype Float but the operation's result "
        "requires dtype Double",
    ):
        tc.float_power(x, 2, out=tc.empty(2, device=device))
    d = x.double()
    assert d.float_power_(0.5) is d
    assert_close(d, np.sqrt([2.0, 3.0]))


def test_binary_floating_point_functions(device: str) -> None:
    a = _t([3.0, -0.0, 1e308, -inf], device)
    b = _t([4.0, -1.0, 1e308, 2.0], device)
    assert_close(tc.hypot(a, b), np.array([5.0, 1.0, math.hypot(1e308, 1e308), inf]))
    assert_close(tc.copysign(a, b), np.array([3.0, -0.0, 1e308, inf]))
    assert tc.copysign(tc.tensor([2], device=device), -1.0).tolist() == [-2.0]
    assert tc.nextafter(_t([1.0], device), _t([2.0], device)).item() == 1.0 + 2**-52
    h = tc.nextafter(tc.tensor([0.0], dtype=tc.float16, device=device), 1.0)
    assert h.dtype is tc.float16 and h.item() == 2.0**-24  # steps in the tensor's dtype
    with pytest.raises(NotImplementedError, match="\"hypot\" not implemented for 'Long'"):
        tc.hypot(tc.tensor([3], device=device), tc.tensor([4], device=device))
    assert_close(tc.ldexp(_t([1.5], device), tc.tensor([3], device=device)), np.array([12.0]))
    assert tc.ldexp(tc.tensor([1], device=device), tc.tensor([3], device=device)).dtype is (
        tc.float32
    )


def test_logaddexp(device: str) -> None:
    a = _t([1e4, -inf, inf, -inf, 0.0], device)
    b = _t([1e4, -inf, inf, 1.0, nan], device)
    assert_close(tc.logaddexp(a, b), np.array([1e4 + math.log(2.0), -inf, inf, 1.0, nan]))
    assert_close(tc.logaddexp2(a, b), np.array([1e4 + 1.0, -inf, inf, 1.0, nan]))
    z = np.array([1 + 2j, -3 + 0.5j, 700 + 1j])
    w = np.array([0.5 - 1j, 2 + 0j, 699 - 2j])
    ref = np.log(np.exp(z[:2]) + np.exp(w[:2]))
    got = tc.logaddexp(tc.tensor(z, device=device), tc.tensor(w, device=device))
    assert_close(got[:2], ref)
    assert np.isfinite(got[2].item())  # no overflow of exp(700)
    nz = tc.tensor([complex(-inf, 0.0), complex(nan, 0.0)], dtype=tc.complex128, device=device)
    assert_close(tc.logaddexp(nz, nz), np.array([complex(-inf, 0.0), complex(nan, nan)]))
    with pytest.raises(NotImplementedError, match='"logaddexp2" not implemented for \'Complex'):
        tc.logaddexp2(tc.tensor(z, device=device), tc.tensor(w, device=device))
    # PyTorch has no in-place logaddexp, fmax or fmin
    assert not hasattr(tc.Tensor, "logaddexp_") and not hasattr(tc.Tensor, "fmax_")


def test_sixteen_bit_floats(device: str) -> None:
    for d in (tc.float16, tc.bfloat16):
        if dtype_unsupported(device, d) is not None:
            continue
        x = tc.tensor([0.5, 2.0, 3.5], dtype=d, device=device)
        for name in ("lgamma", "digamma", "erfc", "erfinv", "i0", "sinc", "logit", "asinh"):
            got = getattr(tc, name)(x)
            assert got.dtype is d, name
            want = getattr(tc, name)(x.double())
            assert_close(
                got.double(),
                want,
                rtol=1e-2,
                atol=1e-2,
                equal_nan=True,  # (erfinv(2) is NaN)
                msg=lambda m, at=name: f"{at}: {m}",
            )
        assert tc.hypot(x, x).dtype is d and tc.xlogy(x, x).dtype is d
        assert tc.frexp(x).mantissa.dtype is d


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pow_of_special_exponents_at_the_edges(device: str, dtype: type) -> None:
    # PyTorch computes x ** 0.5 as sqrt, x ** -0.5 as rsqrt and x ** -1 as 1 / x: at -0.0
    # and -inf their values differ from the C power's (-0.0 ** -0.5 is -inf, not inf;
    # -inf ** -0.5 is NaN, not 0). The oracle is NumPy's sqrt and division.
    a = np.array([-0.0, 0.0, -inf, inf, nan, -4.0, 4.0, 0.25], dtype=dtype)
    x = tc.tensor(a, device=device)
    with np.errstate(all="ignore"):
        oracle = {0.5: np.sqrt(a), -0.5: 1 / np.sqrt(a), -1: 1 / a, -2: 1 / (a * a)}
    for e, want in oracle.items():
        for got in (x**e, x.pow(e), tc.pow(x, e)):
            assert_close(got, want, equal_nan=True)
            g = got.cpu().numpy()
            assert (np.signbit(g) == np.signbit(want))[~np.isnan(want)].all(), e
    # (16-bit floats take the general power, in float32, as PyTorch's: -0.0 ** -0.5 is inf)
    h = tc.tensor([-0.0, 4.0], dtype=tc.float16, device=device)
    assert (h**-0.5).tolist() == [inf, 0.5] and (h**0.5).tolist() == [0.0, 2.0]
    # the gradient reads x ** (p - 1): 0.5 * (-0.0) ** -0.5 is -inf, at -inf NaN
    xg = tc.tensor(a[:4], device=device, requires_grad=True)
    (gx,) = tc.autograd.grad((xg**0.5).sum(), xg)
    assert_close(gx, np.array([-inf, inf, nan, 0.0], dtype=dtype), equal_nan=True)


def test_pow_of_complex_tensors(device: str) -> None:
    # The roots of complex numbers are PyTorch's sqrt and 1 / sqrt (a negative number's is
    # exactly imaginary), 1 / x for -1; the gradients are conjugated (they were not: wrong
    # off the real axis) and read x ** (p - 1), not conj(x) ** (p - 1) (on the branch cut).
    a = np.array([-4.0 + 0j, 4.0, 0.25, 1 + 2j, -0.5 + 0.3j, 0.0], dtype=np.complex128)
    z = tc.tensor(a, device=device)
    with np.errstate(all="ignore"):
        assert_close(z**0.5, np.sqrt(a))
        assert (z**0.5)[0].item() == 2j
        assert_close(z**-0.5, 1 / np.sqrt(a), equal_nan=True)
        assert_close(z**-1, 1 / a, equal_nan=True)
    if device == "meta":
        return
    w = tc.tensor(a[3:5], device=device, requires_grad=True)
    p = tc.tensor([1.5 + 0.2j, 0.5 - 1j], dtype=tc.complex128, device=device, requires_grad=True)
    for e in (0.5, 1.5, -1, -0.5, 2, 3, 0.7):
        assert tc.autograd.gradcheck(lambda w, e=e: w**e, (w,))
    assert tc.autograd.gradcheck(lambda w, p: w**p, (w, p))
    assert tc.autograd.gradcheck(lambda p: (2 + 1j) ** p, (p,))
    # On the negative real axis (where finite differences straddle the cut): the gradient
    # of |z ** e| = |z| ** e is e |z| ** (e - 1) z / |z|.
    neg = tc.tensor([-4.0 + 0j], dtype=tc.complex128, device=device, requires_grad=True)
    for e in (0.5, 1.5, -0.5):
        (g,) = tc.autograd.grad((neg**e).abs().sum(), neg)
        assert_close(
            g, np.array([-e * 4.0 ** (e - 1)], dtype=np.complex128), rtol=1e-12, atol=1e-12
        )
