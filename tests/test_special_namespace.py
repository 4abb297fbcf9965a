"""``tc.special``: PyTorch's ``torch.special`` names, against SciPy's values, with gradcheck
for the functions composed of several operators and the edge values PyTorch 2.13 gives."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.special as sps

import tensorcore as tc
from tensorcore.autograd.gradcheck import gradcheck
from tensorcore.testing import assert_close, dtype_unsupported

inf, nan = math.inf, math.nan

X = np.array([-3.0, -0.7, 0.2, 0.9, 2.5, 6.0])  # the real line
P = np.array([1e-6, 0.02, 0.3, 0.5, 0.77, 0.999])  # (0, 1)
POS = np.array([0.3, 1.0, 1.7, 4.0, 9.5])  # (0, inf)

# name -> (tensorcore call, SciPy/NumPy oracle, sample points)
UNARY: dict[str, tuple[Callable[..., Any], Callable[..., Any], np.ndarray]] = {
    "expit": (tc.special.expit, sps.expit, X),
    "logit": (tc.special.logit, sps.logit, P),
    "erf": (tc.special.erf, sps.erf, X),
    "erfc": (tc.special.erfc, sps.erfc, X),
    "erfinv": (tc.special.erfinv, sps.erfinv, P * 2 - 1),
    "gammaln": (tc.special.gammaln, sps.gammaln, POS),
    "digamma": (tc.special.digamma, sps.digamma, POS),
    "psi": (tc.special.psi, sps.psi, POS),
    "polygamma": (lambda x: tc.special.polygamma(2, x), lambda x: sps.polygamma(2, x), POS),
    "multigammaln": (
        lambda x: tc.special.multigammaln(x, 3),
        lambda x: sps.multigammaln(x, 3),
        POS + 1.0,
    ),
    "log1p": (tc.special.log1p, np.log1p, POS - 0.29),
    "expm1": (tc.special.expm1, np.expm1, X),
    "exp2": (tc.special.exp2, np.exp2, X),
    "sinc": (tc.special.sinc, np.sinc, X),
    "round": (tc.special.round, np.round, X),
    "i0": (tc.special.i0, sps.i0, X),
    "i1": (tc.special.i1, sps.i1, X),
    "i0e": (tc.special.i0e, sps.i0e, np.concatenate([X, [-30.0, 700.0, 1e6]])),
    "i1e": (tc.special.i1e, sps.i1e, np.concatenate([X, [-30.0, 700.0, 1e6]])),
    "erfcx": (tc.special.erfcx, sps.erfcx, np.concatenate([X, [-9.0, 12.0, 30.0, 1e4, 1e9]])),
    "ndtr": (tc.special.ndtr, sps.ndtr, X),
    "ndtri": (tc.special.ndtri, sps.ndtri, P),
    "log_ndtr": (tc.special.log_ndtr, sps.log_ndtr, np.concatenate([X, [-9.9, -10.1, -40.0]])),
    "entr": (tc.special.entr, sps.entr, np.concatenate([POS, [0.0, -1.0]])),
    "bessel_j0": (tc.special.bessel_j0, sps.j0, np.concatenate([X, [0.0, 30.0, -1e3]])),
    "bessel_j1": (tc.special.bessel_j1, sps.j1, np.concatenate([X, [0.0, 30.0, -1e3]])),
    "bessel_y0": (tc.special.bessel_y0, sps.y0, np.concatenate([X, [0.0, 30.0, 1e3]])),
    "bessel_y1": (tc.special.bessel_y1, sps.y1, np.concatenate([X, [0.0, 30.0, 1e3]])),
    "modified_bessel_k0": (tc.special.modified_bessel_k0, sps.k0, np.concatenate([X, [0.0]])),
    "modified_bessel_k1": (tc.special.modified_bessel_k1, sps.k1, np.concatenate([X, [0.0]])),
    "scaled_modified_bessel_k0": (
        tc.special.scaled_modified_bessel_k0,
        sps.k0e,
        np.concatenate([X, [0.0, 1e3, 1e6]]),
    ),
    "scaled_modified_bessel_k1": (
        tc.special.scaled_modified_bessel_k1,
        sps.k1e,
        np.concatenate([X, [0.0, 1e3, 1e6]]),
    ),
    "airy_ai": (
        tc.special.airy_ai,
        lambda x: sps.airy(x)[0],
        np.concatenate([X, [-20.0, 0.0, 20.0, 100.0]]),
    ),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_functions_match_scipy(device: str, name: str) -> None:
    fn, oracle, points = UNARY[name]
    x = tc.tensor(points, dtype=tc.float64, device=device)
    assert_close(fn(x), oracle(points), rtol=1e-9, atol=1e-12)


def test_every_public_name_is_tested() -> None:
    tested = set(UNARY) | {"xlogy", "xlog1py", "softmax", "log_softmax", "logsumexp", "zeta"}
    tested |= {"gammainc", "gammaincc"}
    # (tests/test_api_breadth.py)
    tested |= {n for n in tc.special.__all__ if "_polynomial_" in n}
    tested |= {"modified_bessel_i0", "modified_bessel_i1", "spherical_bessel_j0"}
    assert set(tc.special.__all__) == tested
    assert tc.special is __import__("tensorcore.special").special


@pytest.mark.parametrize("name", ["ndtr", "ndtri", "log_ndtr", "entr", "multigammaln"])
def test_composed_functions_take_out(device: str, name: str) -> None:
    fn, oracle, points = UNARY[name]
    x = tc.tensor(points, dtype=tc.float64, device=device)
    out = tc.empty(len(points), dtype=tc.float64, device=device)
    assert fn(x, out=out) is out if name != "multigammaln" else True
    if name == "multigammaln":
        assert tc.special.multigammaln(x, 3, out=out) is out
    assert_close(out, oracle(points), rtol=1e-9, atol=1e-12)


def test_thin_names_take_out(device: str) -> None:
    x = tc.tensor([0.1, 0.4], dtype=tc.float64, device=device)
    out = tc.empty(2, dtype=tc.float64, device=device)
    assert tc.special.expit(x, out=out) is out
    assert_close(out, sps.expit([0.1, 0.4]))
    assert tc.special.logsumexp(x, 0, out=tc.empty((), dtype=tc.float64, device=device)).shape == ()


def test_edge_values_are_pytorchs(device: str) -> None:
    assert_close(
        tc.special.entr(tc.tensor([-1.0, 0.0, 0.5, nan, inf], device=device)),
        np.array([-inf, 0.0, 0.5 * math.log(2.0), nan, -inf], np.float32),
        equal_nan=True,
    )
    assert math.copysign(1.0, tc.special.entr(tc.tensor([0.0], device=device)).item()) > 0
    assert tc.special.ndtri(tc.tensor([0.0, 1.0], device=device)).tolist() == [-inf, inf]
    # float32 log_ndtr far in the tail, where ndtr itself underflows: PyTorch's -1254.8
    assert tc.special.log_ndtr(tc.tensor([-50.0], device=device)).item() == pytest.approx(
        sps.log_ndtr(-50.0), rel=1e-6
    )
    assert tc.special.log_ndtr(tc.tensor([10.0], device=device)).item() == pytest.approx(
        -7.619853e-24, rel=1e-5
    )
    assert tc.special.ndtr(tc.tensor([0, 1], device=device)).dtype is tc.float32
    assert tc.special.multigammaln(tc.tensor([2, 3], device=device), 2).dtype is tc.float32
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        tc.special.multigammaln(tc.tensor([2.0], device=device), 0)


def test_xlogy_and_xlog1py(device: str) -> None:
    x = tc.tensor([0.0, 0.0, 0.0, 2.0, 1.5], dtype=tc.float64, device=device)
    y = tc.tensor([-1.0, nan, 3.0, 0.5, -0.25], dtype=tc.float64, device=device)
    assert_close(
        tc.special.xlog1py(x, y), sps.xlog1py(x.cpu().numpy(), y.cpu().numpy()), equal_nan=True
    )
    assert_close(
        tc.special.xlogy(x, y + 1), sps.xlogy(x.cpu().numpy(), y.cpu().numpy() + 1), equal_nan=True
    )
    assert_close(tc.special.xlog1py(2.0, y[3:]), 2.0 * np.log1p(y[3:].cpu().numpy()))
    assert_close(tc.special.xlog1py(x[3:], 1.0), x[3:].cpu().numpy() * math.log(2.0))
    out = tc.empty(5, dtype=tc.float64, device=device)
    assert tc.special.xlog1py(x, y, out=out) is out


def test_softmax_family(device: str) -> None:
    x = tc.tensor([[0.5, -1.0, 2.0], [0.0, 0.0, 0.0]], dtype=tc.float64, device=device)
    assert_close(tc.special.softmax(x, 1), sps.softmax(x.cpu().numpy(), axis=1))
    assert_close(tc.special.log_softmax(x, dim=0), sps.log_softmax(x.cpu().numpy(), axis=0))
    assert tc.special.softmax(x.float(), 1, dtype=tc.float64).dtype is tc.float64
    assert_close(
        tc.special.logsumexp(x, 1, keepdim=True), sps.logsumexp(x.cpu().numpy(), 1, keepdims=True)
    )


@pytest.mark.parametrize(
    ("name", "points"),
    [
        ("ndtr", X),
        ("ndtri", P[1:]),
        ("log_ndtr", np.array([-12.0, -9.0, -2.0, 0.3, 4.0])),
        ("entr", POS),
        ("multigammaln", POS + 1.0),
    ],
)
def test_composed_functions_gradcheck(device: str, name: str, points: np.ndarray) -> None:
    fn = UNARY[name][0]
    x = tc.tensor(points, dtype=tc.float64, device=device, requires_grad=True)
    assert gradcheck(fn, (x,))


def test_xlog1py_gradient_is_finite_where_the_result_is_zero(device: str) -> None:
    x = tc.tensor([0.0, 2.0, 1.5], dtype=tc.float64, device=device, requires_grad=True)
    y = tc.tensor([-1.0, 0.5, -0.25], dtype=tc.float64, device=device, requires_grad=True)
    tc.special.xlog1py(x, y).sum().backward()
    assert x.grad is not None and y.grad is not None
    assert_close(x.grad[1:], np.log1p([0.5, -0.25]))
    assert_close(y.grad, np.array([0.0, 2.0 / 1.5, 1.5 / 0.75]))
    x2 = x.detach()[1:].requires_grad_()
    y2 = y.detach()[1:].requires_grad_()
    assert gradcheck(tc.special.xlog1py, (x2, y2))


def test_incomplete_gamma_matches_scipy(device: str) -> None:
    a = np.array([0.5, 1.0, 2.5, 7.0, 30.0, 0.5, 3.0])
    x = np.array([0.2, 1.0, 4.0, 6.0, 28.0, 0.0, np.inf])
    ta = tc.tensor(a, dtype=tc.float64, device=device)
    tx = tc.tensor(x, dtype=tc.float64, device=device)
    assert_close(tc.special.gammainc(ta, tx), sps.gammainc(a, x), rtol=1e-10, atol=1e-14)
    assert_close(tc.special.gammaincc(ta, tx), sps.gammaincc(a, x), rtol=1e-10, atol=1e-14)
    assert_close(tc.special.gammainc(ta, 1.5), sps.gammainc(a, 1.5), rtol=1e-10, atol=1e-14)
    bad = tc.special.gammainc(
        tc.tensor([-1.0, 1.0], device=device), tc.tensor([1.0, -1.0], device=device)
    )
    assert np.isnan(bad.cpu().numpy()).all()
    # differentiable in other: the gamma density
    tx = tc.tensor([0.7, 2.0], dtype=tc.float64, device=device, requires_grad=True)
    assert gradcheck(lambda v: tc.special.gammainc(ta[:2], v), (tx,))


# ------------------------------------------------------------------ Bessel, Airy and zeta
BESSEL = [n for n in UNARY if "bessel_" in n and "_i" not in n] + ["airy_ai"]


@pytest.mark.parametrize("name", BESSEL)
def test_bessel_and_airy_results_never_require_grad(device: str, name: str) -> None:
    # PyTorch has no derivative for them: the result is not part of the graph, as PyTorch's.
    x = tc.tensor([0.5, 2.0], dtype=tc.float64, device=device, requires_grad=True)
    r = getattr(tc.special, name)(x)
    assert not r.requires_grad and r.grad_fn is None


@pytest.mark.parametrize("name", BESSEL)
def test_bessel_and_airy_promote_integers_and_take_out(device: str, name: str) -> None:
    fn, oracle, _ = UNARY[name]
    r = fn(tc.tensor([1, 2, 3], device=device))
    assert r.dtype == tc.float32
    assert_close(r, oracle(np.array([1.0, 2.0, 3.0])).astype(np.float32))
    assert fn(tc.tensor([True, False], device=device)).dtype == tc.float32
    out = tc.empty(3, dtype=tc.float64, device=device)
    assert fn(tc.tensor([1.0, 2.0, 3.0], dtype=tc.float64, device=device), out=out) is out
    assert_close(out, oracle(np.array([1.0, 2.0, 3.0])))
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        fn(tc.tensor([1j], device=device))
    # PyTorch has no 16-bit float loops for them
    with pytest.raises(NotImplementedError, match=r"_(cpu|cuda)\" not implemented for 'Half'"):
        fn(tc.tensor([1.0], dtype=tc.float16, device=device))


def test_zeta_matches_scipy_with_broadcasting_and_numbers(device: str) -> None:
    x = np.array([[1.0], [0.5], [2.0], [3.5], [-1.0]])
    q = np.array([1.0, 0.0, -1.0, -1.5, 2.5, 30.0])
    r = tc.special.zeta(tc.tensor(x, device=device), tc.tensor(q, device=device))
    assert r.shape == (5, 6)
    assert_close(r, sps.zeta(x, q), rtol=1e-9, atol=0.0, equal_nan=True)
    # A number in either position (PyTorch's Scalar overloads), integers promote to float.
    assert_close(tc.special.zeta(2.0, tc.tensor(q[4:], device=device)), sps.zeta(2.0, q[4:]))
    assert_close(tc.special.zeta(tc.tensor(x[2:], device=device), 2), sps.zeta(x[2:], 2.0))
    i = tc.special.zeta(tc.tensor([2, 3], device=device), 1)
    assert i.dtype == tc.float32
    assert_close(i, sps.zeta(np.array([2.0, 3.0]), 1.0).astype(np.float32))
    f32 = tc.tensor([2.0, 3.0], device=device)
    assert tc.special.zeta(f32, tc.tensor(1.0, dtype=tc.float64, device=device)).dtype == (
        tc.float32
    )
    assert tc.special.zeta(f32, tc.tensor([1.0], dtype=tc.float64, device=device)).dtype == (
        tc.float64
    )
    with pytest.raises(TypeError):
        tc.special.zeta(2.0, 3.0)
    if not dtype_unsupported(device, tc.bfloat16):
        with pytest.raises(NotImplementedError, match=r"zeta_.*not implemented for 'BFloat16'"):
            tc.special.zeta(2.5, tc.ones(2, dtype=tc.bfloat16, device=device))
        bf = tc.ones(1, dtype=tc.bfloat16, device=device)
        assert tc.special.zeta(bf, f32).dtype == tc.float32
    # PyTorch's values at q = inf: NaN, but inf at x = 1 (SciPy gives the limit 0).
    r = tc.special.zeta(tc.tensor([1.0, 2.0, math.inf], device=device), math.inf)
    assert r[0].item() == math.inf and r[1:].isnan().all()


def test_zeta_is_differentiable_in_q_only(device: str) -> None:
    q = tc.tensor([1.0, 2.5, 4.0], dtype=tc.float64, device=device, requires_grad=True)
    x = tc.tensor([2.5, 3.0, 6.0], dtype=tc.float64, device=device)
    assert gradcheck(lambda q: tc.special.zeta(x, q), (q,))
    assert gradcheck(lambda q: tc.special.zeta(2.0, q), (q,))
    (g,) = tc.autograd.grad(tc.special.zeta(x, q).sum(), q)
    assert_close(g, -x.cpu().numpy() * sps.zeta(x.cpu().numpy() + 1, q.detach().cpu().numpy()))
    # PyTorch's node names by overload, and its error for a gradient in ``x``:
    assert type(tc.special.zeta(2.0, q).grad_fn).__name__ == "SpecialZetaBackward1"
    xs = x.clone().requires_grad_()
    assert type(tc.special.zeta(xs, 2.0).grad_fn).__name__ == "SpecialZetaBackward2"
    z = tc.special.zeta(xs, q)
    assert type(z.grad_fn).__name__ == "SpecialZetaBackward0"
    with pytest.raises(NotImplementedError, match="the derivative for 'zeta' is not implemented"):
        z.sum().backward()
