"""``tc.autograd.functional``: Jacobians, Hessians and their products against closed forms
and finite differences, with PyTorch's return structures."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp
from tensorcore.testing import assert_close


def _f(a: tc.Tensor, b: tc.Tensor) -> tuple[tc.Tensor, tc.Tensor]:
    return (a * b).sin(), a.exp().sum().reshape(1) + b[0]


def _numeric_jacobian(f, xs: list[np.ndarray], eps: float = 1e-6) -> list[list[np.ndarray]]:  # type: ignore[no-untyped-def]
    def call(vals: list[np.ndarray]) -> list[np.ndarray]:
        out = f(*[tc.tensor(v) for v in vals])
        return [o.numpy() for o in (out if isinstance(out, tuple) else (out,))]

    base = call(xs)
    blocks = [[np.zeros(o.shape + x.shape) for x in xs] for o in base]
    for j, x in enumerate(xs):
        for idx in np.ndindex(x.shape):
            up = [v.copy() for v in xs]
            dn = [v.copy() for v in xs]
            up[j][idx] += eps
            dn[j][idx] -= eps
            for i, (u, d) in enumerate(zip(call(up), call(dn), strict=True)):
                blocks[i][j][(..., *idx)] = (u - d) / (2 * eps)
    return blocks


A = np.array([0.3, -1.2, 0.8])
B = np.array([1.5, 0.4, -0.6])


def test_jacobian_against_finite_differences_and_structures(device: str) -> None:
    a = tc.tensor(A, device=device)
    b = tc.tensor(B, device=device)
    want = _numeric_jacobian(_f, [A, B])
    jac = jacobian(_f, (a, b))
    assert isinstance(jac, tuple) and len(jac) == 2 and all(len(r) == 2 for r in jac)
    for i in range(2):
        for j in range(2):
            assert_close(jac[i][j], want[i][j], atol=1e-7, rtol=1e-6)
    # a single input and a single output: a tensor; one of them a tuple: a tuple
    single = jacobian(lambda x: x.sin(), a)
    assert isinstance(single, tc.Tensor) and single.shape == (3, 3)
    assert_close(single, np.diag(np.cos(A)))
    over_outputs = jacobian(lambda x: (x.sin(), x.sum()), a)
    assert isinstance(over_outputs, tuple) and over_outputs[1].shape == (3,)
    over_inputs = jacobian(lambda x, y: x * y, (a, b))
    assert isinstance(over_inputs, tuple) and over_inputs[0].shape == (3, 3)
    assert not single.requires_grad


def test_independent_inputs_give_zeros_or_raise_in_strict_mode() -> None:
    a, b = tc.tensor(A), tc.tensor(B)
    jac = jacobian(lambda x, y: x * 2, (a, b))
    assert jac[1].tolist() == np.zeros((3, 3)).tolist()
    with pytest.raises(RuntimeError, match="independent of input 1"):
        jacobian(lambda x, y: x * 2, (a, b), strict=True)


def test_each_runs_with_grad_enabled_inside_no_grad(device: str) -> None:
    # As PyTorch's: a log-det check or a jacobian inside torch.no_grad() still differentiates.
    x = tc.tensor([1.0, 2.0], device=device)
    with tc.no_grad():
        assert_close(jacobian(lambda z: z**2, x), [[2.0, 0.0], [0.0, 4.0]])
        assert_close(hessian(lambda z: (z**3).sum(), x), [[6.0, 0.0], [0.0, 12.0]])
        assert_close(hvp(lambda z: (z**3).sum(), x, tc.ones(2, device=device))[1], [6.0, 12.0])
        assert_close(vhp(lambda z: (z**3).sum(), x, tc.ones(2, device=device))[1], [6.0, 12.0])
        assert_close(jvp(lambda z: z**2, x, tc.ones(2, device=device))[1], [2.0, 4.0])
        assert_close(vjp(lambda z: z**2, x, tc.ones(2, device=device))[1], [2.0, 4.0])
        assert not tc.is_grad_enabled()


def test_strict_mode_refuses_outputs_and_first_derivatives_that_need_no_grad() -> None:
    # A constant output is refused before any backward pass; a linear function's Hessian
    # (its jacobian needs no grad) likewise, each in PyTorch's words.
    x = tc.tensor([1.0, 2.0])
    for call in (
        lambda: jacobian(lambda z: tc.ones(2), x, strict=True),
        lambda: vjp(lambda z: tc.ones(2), x, tc.ones(2), strict=True),
        lambda: jvp(lambda z: tc.ones(2), x, tc.ones(2), strict=True),
        lambda: hvp(lambda z: tc.ones(()), x, tc.ones(2), strict=True),
        lambda: hessian(lambda z: tc.ones(()), x, strict=True),
    ):
        with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not"):
            call()
    for call in (
        lambda: hessian(lambda z: z.sum(), x, strict=True),
        lambda: hvp(lambda z: z.sum(), x, tc.ones(2), strict=True),
        lambda: vhp(lambda z: z.sum(), x, tc.ones(2), strict=True),
    ):
        with pytest.raises(RuntimeError, match="found that the jacobian of the user-provided"):
            call()
    assert jacobian(lambda z: tc.ones(2), x).tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_hessian_closed_form(device: str) -> None:
    a = tc.tensor(A, device=device)
    b = tc.tensor(B, device=device)

    def f(x: tc.Tensor) -> tc.Tensor:
        return (x**3).sum() + x[0] * x[1]

    want = np.diag(6 * A)
    want[0, 1] = want[1, 0] = 1.0
    h = hessian(f, a)
    assert isinstance(h, tc.Tensor)
    assert_close(h, want)
    hh = hessian(lambda x, y: (x * y * y).sum(), (a, b))
    assert isinstance(hh, tuple) and isinstance(hh[0], tuple)
    assert_close(hh[0][0], np.zeros((3, 3)))
    assert_close(hh[0][1], np.diag(2 * B))
    assert_close(hh[1][0], np.diag(2 * B))
    assert_close(hh[1][1], np.diag(2 * A))
    with pytest.raises(RuntimeError, match="given to hessian should contain a single element"):
        hessian(lambda x: x * 2, a)


def test_vjp_and_jvp_are_products_with_the_jacobian(device: str) -> None:
    a = tc.tensor(A, device=device)
    b = tc.tensor(B, device=device)
    jac = _numeric_jacobian(_f, [A, B])
    u = (
        tc.tensor([1.0, -2.0, 0.5], dtype=tc.float64, device=device),
        tc.tensor([3.0], dtype=tc.float64, device=device),
    )
    out, (ga, gb) = vjp(_f, (a, b), u)
    assert isinstance(out, tuple) and len(out) == 2
    want_a = u[0].cpu().numpy() @ jac[0][0] + u[1].cpu().numpy() @ jac[1][0]
    assert_close(ga, want_a, atol=1e-7, rtol=1e-6)
    want_b = u[0].cpu().numpy() @ jac[0][1] + u[1].cpu().numpy() @ jac[1][1]
    assert_close(gb, want_b, atol=1e-7, rtol=1e-6)
    v = (
        tc.tensor([0.2, 0.0, -1.0], dtype=tc.float64, device=device),
        tc.tensor([1.0, 1.0, 2.0], dtype=tc.float64, device=device),
    )
    out, (ja, jb) = jvp(_f, (a, b), v)
    va, vb = v[0].cpu().numpy(), v[1].cpu().numpy()
    assert_close(ja, jac[0][0] @ va + jac[0][1] @ vb, atol=1e-7, rtol=1e-6)
    assert_close(jb, jac[1][0] @ va + jac[1][1] @ vb, atol=1e-7, rtol=1e-6)
    # single tensors in, single tensors out; v may be left out for a one-element output
    out, g = vjp(lambda x: (x * x).sum(), a)
    assert isinstance(g, tc.Tensor) and not g.requires_grad
    assert_close(g, 2 * A)
    with pytest.raises(RuntimeError, match="v can only be None"):
        vjp(lambda x: x * x, a)
    # PyTorch's words: "Entry i in" only where the inputs (outputs for vjp) are a tuple
    with pytest.raises(RuntimeError, match=r"^v has invalid size: should be .*\(\[3\]\) but got"):
        jvp(lambda x: x * x, a, tc.ones(2, device=device))
    with pytest.raises(RuntimeError, match=r"^Entry 1 in v has invalid size"):
        vjp(_f, (a, b), (u[0], tc.ones(2, dtype=tc.float64, device=device)))
    with pytest.raises(RuntimeError, match=r"^The given v should contain a single Tensor"):
        jvp(lambda x: x * x, a, (v[0], v[1]))
    with pytest.raises(
        RuntimeError, match=r"^v is a tuple of invalid length: should be 2 but got 1"
    ):
        jvp(_f, (a, b), (v[0],))
    with pytest.raises(RuntimeError, match="if the input to the user-provided function is a"):
        jvp(lambda x: x * x, a)
    with pytest.raises(RuntimeError, match="if the user-provided function returns a single"):
        vjp(lambda x: x * x, a)
    with pytest.raises(TypeError, match="but the given inputs has type <class 'list'>"):
        vjp(_f, [a, b], u)  # (a tuple, as PyTorch's)
    with pytest.raises(TypeError, match="but the value at index 1 has type <class 'float'>"):
        jacobian(lambda x: (x, 3.0), a)


def test_hvp_and_vhp(device: str) -> None:
    a = tc.tensor(A, device=device)
    v = tc.tensor([1.0, 2.0, -1.0], dtype=tc.float64, device=device)

    def f(x: tc.Tensor) -> tc.Tensor:
        return (x**3).sum() + x[0] * x[1]

    h = np.diag(6 * A)
    h[0, 1] = h[1, 0] = 1.0
    out, hv = hvp(f, a, v)
    assert_close(out, np.array(float((A**3).sum() + A[0] * A[1])))
    assert_close(hv, h @ v.cpu().numpy())
    _, vh = vhp(f, a, v)
    assert_close(vh, v.cpu().numpy() @ h)
    _, (p, q) = hvp(lambda x, y: (x * y).sum(), (a, a), (v, v))
    assert_close(p, v.cpu().numpy())
    assert_close(q, v.cpu().numpy())


def test_create_graph_keeps_results_differentiable() -> None:
    a = tc.tensor(A, requires_grad=True)
    g = jacobian(lambda x: x**3, a, create_graph=True)
    assert g.requires_grad
    g.sum().backward()
    assert a.grad is not None
    assert_close(a.grad, 6 * A)


def test_refusals_in_pytorchs_words() -> None:
    """The combinations of strategy, vectorize, strict and create_graph that PyTorch does not
    run, and the checks that hessian, hvp and vhp get one number back."""
    x = tc.tensor([1.0, 2.0], dtype=tc.float64)
    sq = lambda z: z * z  # noqa: E731
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        jacobian(sq, x, strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="`create_graph=True` and `strategy="):
        jacobian(sq, x, strategy="forward-mode", vectorize=True, create_graph=True)
    with pytest.raises(RuntimeError, match="`strict=True` and `strategy="):
        jacobian(sq, x, strategy="forward-mode", vectorize=True, strict=True)
    with pytest.raises(RuntimeError, match="`strict=True` and `vectorized=True` are not"):
        jacobian(sq, x, vectorize=True, strict=True)
    with pytest.raises(AssertionError, match="Expected strategy to be either"):
        jacobian(sq, x, strategy="sideways")
    with pytest.raises(AssertionError, match="Expected strategy to be either"):
        hessian(lambda z: z.sum(), x, outer_jacobian_strategy="sideways")
    with pytest.raises(NotImplementedError, match="forward-over-reverse Hessian"):
        hessian(lambda z: z.sum(), x, outer_jacobian_strategy="forward-mode")
    # the allowed forward-mode calls give the reverse-mode values
    assert_close(jacobian(sq, x, strategy="forward-mode", vectorize=True), np.diag([2.0, 4.0]))
    h = hessian(lambda z: (z**3).sum(), x, vectorize=True, outer_jacobian_strategy="forward-mode")
    assert_close(h, np.diag([6.0, 12.0]))
    v = tc.ones(2, dtype=tc.float64)
    for fn, call in (("hessian", lambda f: hessian(f, x)), ("hvp", lambda f: hvp(f, x, v)),
                     ("vhp", lambda f: vhp(f, x, v))):  # fmt: skip
        with pytest.raises(RuntimeError, match=f"^The function given to {fn} should return a"):
            call(lambda z: (z.sum(), z.sum()))
        with pytest.raises(
            RuntimeError, match=f"^The Tensor returned by the function given to {fn} should"
        ):
            call(sq)
