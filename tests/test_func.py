"""``tensorcore.func``: the function transforms against NumPy (closed-form derivatives) and
against per-example loops of plain autograd."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.func import (
    functional_call,
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    stack_module_state,
    vjp,
    vmap,
)
from tensorcore.testing import assert_close

F64 = tc.float64


def _x(device: str, *shape: int, seed: int = 0) -> tuple[np.ndarray, tc.Tensor]:
    a = np.random.default_rng(seed).standard_normal(shape)
    return a, tc.tensor(a, dtype=F64, device=device)


def test_grad_and_its_nesting(device: str) -> None:
    a, x = _x(device, 4)
    assert_close(grad(lambda t: (t.sin() * t).sum())(x), np.cos(a) * a + np.sin(a))
    g = grad(lambda t: (t**3).sum())(x)
    assert g.grad_fn is None and not g.requires_grad
    # Second and third derivatives of a scalar function.
    s = x[0]
    assert_close(grad(grad(lambda t: t**4))(s), 12 * a[0] ** 2)
    assert_close(grad(grad(grad(lambda t: t.exp() * t)))(s), np.exp(a[0]) * (a[0] + 3))
    # argnums as a tuple, pytrees, has_aux, unused inputs give zeros.
    b_np, b = _x(device, 4, seed=1)
    gx, gy = grad(lambda p, q: (p * q).sum(), argnums=(0, 1))(x, b)
    assert_close(gx, b_np)
    assert_close(gy, a)
    tree = grad(lambda d: (d["w"] ** 2).sum() + d["u"][0].sum())({"w": x, "u": [b, b]})
    assert_close(tree["w"], 2 * a)
    assert_close(tree["u"][0], np.ones(4))
    assert_close(tree["u"][1], np.zeros(4))
    gr, aux = grad(lambda t: ((t**2).sum(), t.mean()), has_aux=True)(x)
    assert_close(gr, 2 * a)
    assert_close(aux, a.mean())
    g2, v = grad_and_value(lambda t: (t**2).sum())(x)
    assert_close(v, (a**2).sum())
    assert_close(g2, 2 * a)
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
        grad(lambda t: t * 2)(x)
    with pytest.raises(RuntimeError, match="only 1 positional inputs"):
        grad(lambda t: t.sum(), argnums=1)(x)


def test_grad_composes_with_autograd_of_a_caller(device: str) -> None:
    # A tracked input: the gradient stays differentiable (d/dx of 2x*y is 2y).
    a, x = _x(device, 3)
    y = tc.tensor(2.0, dtype=F64, device=device, requires_grad=True)
    g = grad(lambda t: (t**2).sum() * y)(x.requires_grad_())
    g.sum().backward()
    assert_close(x.grad, np.full(3, 4.0))
    assert_close(y.grad, 2 * a.sum())


def test_vjp_and_jvp(device: str) -> None:
    a, x = _x(device, 3)
    out, fn = vjp(lambda t: t.sin(), x)
    assert_close(out, np.sin(a))
    v = np.arange(3.0)
    (g,) = fn(tc.tensor(v, dtype=F64, device=device))
    assert_close(g, np.cos(a) * v)
    out2, jv = jvp(lambda t, u: t * u.exp(), (x, x), (tc.ones_like(x), tc.zeros_like(x)))
    assert_close(out2, a * np.exp(a))
    assert_close(jv, np.exp(a))
    _, fn3, aux = vjp(lambda t: (t * 2, t.sum()), x, has_aux=True)
    assert_close(aux, a.sum())
    assert_close(fn3(tc.ones_like(x))[0], np.full(3, 2.0))


def test_jacobians_and_hessian(device: str) -> None:
    a, x = _x(device, 3)
    want = np.diag(np.cos(a) * a**2 + 2 * a * np.sin(a))
    for jac in (jacrev, jacfwd):
        assert_close(jac(lambda t: t.sin() * t**2)(x), want)
    m_np, m = _x(device, 2, 3, seed=2)
    assert_close(jacrev(lambda t: m @ t)(x), m_np)
    # Layout: output shape + input shape; tuple argnums; pytree outputs.
    j = jacrev(lambda t: t.reshape(3, 1) * tc.ones(1, 2, dtype=F64, device=device))(x)
    assert j.shape == (3, 2, 3)
    j0, j1 = jacrev(lambda p, q: p * q, argnums=(0, 1))(x, 2 * x)
    assert_close(j0, np.diag(2 * a))
    assert_close(j1, np.diag(a))
    outs = jacrev(lambda t: (t.sum(), t * 3))(x)
    assert_close(outs[0], np.ones(3))
    assert_close(outs[1], 3 * np.eye(3))
    # Hessian of sum(x^3) + x0 x1: diag(6x) plus the cross term.
    h = hessian(lambda t: (t**3).sum() + t[0] * t[1])(x)
    want_h = np.diag(6 * a)
    want_h[0, 1] = want_h[1, 0] = 1.0
    assert_close(h, want_h)


def test_vmap(device: str) -> None:
    a, x = _x(device, 4, 3)
    b, y = _x(device, 4, 3, seed=1)
    assert_close(vmap(tc.dot)(x, y), (a * b).sum(1))
    assert_close(vmap(lambda t: t.sum(0), in_dims=1)(x), a.sum(0))
    m_np, m = _x(device, 3, 3, seed=2)
    assert_close(vmap(tc.mv, in_dims=(None, 0))(m, x), a @ m_np.T)
    assert_close(vmap(lambda t: t * 2, out_dims=1)(x), (2 * a).T)
    # Pytree inputs and outputs, nesting.
    res = vmap(lambda d: (d["p"] + d["q"], d["p"].sum()))({"p": x, "q": y})
    assert_close(res[0], a + b)
    assert_close(res[1], a.sum(1))
    assert_close(vmap(vmap(lambda s: s * s))(x), a * a)
    with pytest.raises(ValueError, match="same size in the mapped dimension"):
        vmap(tc.add)(x, y[:2])
    with pytest.raises(ValueError, match="must only return Tensors"):
        vmap(lambda t: 1.0)(x)


def test_vmap_randomness(device: str) -> None:
    """PyTorch's ``randomness``: "error" refuses a draw (jacfwd's too), "same" repeats the
    first example's draws (explicit generators included) and leaves each stream one draw
    on, "different" draws on; nested levels combine."""
    x = tc.zeros(3, 2, device=device)
    draw = lambda t: t + tc.rand(2, device=device)  # noqa: E731
    msg = "vmap: called random operation while in randomness error mode"
    with pytest.raises(RuntimeError, match=f"^{msg}"):
        vmap(draw)(x)
    with pytest.raises(RuntimeError, match=f"^{msg}"):
        jacfwd(lambda t: t * tc.rand(2, device=device))(x[0])
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        vmap(draw, randomness="x")
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        jacfwd(draw, randomness="x")
    tc.manual_seed(0)
    same = vmap(draw, randomness="same")(x).cpu().numpy()
    after = tc.rand(2, device=device).cpu().numpy()
    tc.manual_seed(0)
    first, second = (tc.rand(2, device=device).cpu().numpy() for _ in range(2))
    np.testing.assert_array_equal(same, np.stack([first] * 3))
    np.testing.assert_array_equal(after, second)
    tc.manual_seed(0)
    diff = vmap(draw, randomness="different")(x).cpu().numpy()
    assert len({tuple(r) for r in diff.tolist()}) == 3
    np.testing.assert_array_equal(diff[0], first)
    gen_rows = vmap(
        lambda t: t + tc.randn(2, generator=tc.Generator(device).manual_seed(1), device=device),
        randomness="same",
    )(x)
    assert len({tuple(r) for r in gen_rows.tolist()}) == 1
    # outer "same", inner "different": the rows repeat, the columns differ; and the reverse
    scalar = lambda t: t + tc.rand((), device=device)  # noqa: E731
    grid = vmap(vmap(scalar, randomness="different"), randomness="same")(x).cpu().numpy()
    assert (grid[0] == grid[1]).all() and grid[0, 0] != grid[0, 1]
    grid = vmap(vmap(scalar, randomness="same"), randomness="different")(x).cpu().numpy()
    assert (grid[:, 0] == grid[:, 1]).all() and grid[0, 0] != grid[1, 0]
    # a draw outside any vmap is unaffected once the error left the level
    assert tc.rand(2, device=device).shape == (2,)


def test_per_sample_gradients_match_a_loop(device: str) -> None:
    tc.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).to(device, F64)
    params = {k: v.detach() for k, v in model.named_parameters()}
    data = tc.randn(5, 3, dtype=F64).to(device)
    target = tc.tensor([0, 1, 1, 0, 1], device=device)

    def loss(p: Any, xb: tc.Tensor, yb: tc.Tensor) -> tc.Tensor:
        out = functional_call(model, p, (xb.unsqueeze(0),))
        return nn.functional.cross_entropy(out, yb.unsqueeze(0))

    per = vmap(grad(loss), in_dims=(None, 0, 0))(params, data, target)
    for i in range(5):
        model.zero_grad()
        nn.functional.cross_entropy(model(data[i : i + 1]), target[i : i + 1]).backward()
        for k, p in model.named_parameters():
            assert_close(per[k][i], p.grad)


def test_functional_call(device: str) -> None:
    lin = nn.Linear(2, 1).to(device, F64)
    w = lin.weight
    p = {"weight": tc.ones(1, 2, dtype=F64, device=device)}
    x = tc.tensor([[1.0, 2.0]], dtype=F64, device=device)
    # A missing name keeps the module's own tensor; the module is restored afterwards.
    assert_close(functional_call(lin, p, x), 3.0 + lin.bias.detach().cpu().numpy()[None])
    assert lin.weight is w
    with pytest.raises(RuntimeError, match="Missing key\\(s\\): 'bias'"):
        functional_call(lin, p, (x,), strict=True)
    with pytest.raises(RuntimeError, match="Unexpected key\\(s\\): 'nope'"):
        functional_call(lin, {"nope": w}, (x,))

    class Tied(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(2, 2, bias=False)
            self.b = nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, t: tc.Tensor) -> tc.Tensor:
            return self.b(self.a(t))

    tied = Tied().to(device, F64)
    eye = tc.eye(2, dtype=F64, device=device) * 2
    assert_close(functional_call(tied, {"a.weight": eye}, (x,)), [[4.0, 8.0]])
    # Gradients flow to the given tensors.
    w2 = tc.ones(1, 2, dtype=F64, device=device, requires_grad=True)
    functional_call(
        lin, {"weight": w2, "bias": tc.zeros(1, dtype=F64, device=device)}, x
    ).sum().backward()
    assert_close(w2.grad, [[1.0, 2.0]])


def test_stack_module_state_ensemble(device: str) -> None:
    tc.manual_seed(0)
    models = [nn.Linear(3, 2).to(device, F64) for _ in range(3)]
    params, buffers = stack_module_state(models)
    assert params["weight"].shape == (3, 2, 3) and params["weight"].requires_grad
    assert params["weight"].grad_fn is None and buffers == {}
    x = tc.randn(4, 3, dtype=F64).to(device)
    out = vmap(lambda p, b, t: functional_call(models[0], (p, b), (t,)), in_dims=(0, 0, None))(
        params, buffers, x
    )
    for i, m in enumerate(models):
        assert_close(out[i], m(x))
