"""Gaps found by running scientific machine-learning programs written for PyTorch (PINNs,
neural ODEs, Hamiltonian networks, neural operators, Gaussian processes, optimal transport,
meta-learning) with ``import tensorcore as torch`` (the twenty-third sweep): each test pins
PyTorch 2.13's behaviour that such a program meets."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import func

F = tc.nn.functional


# ---------------------------------------------------------------- torch.func and the caller
def _sin_wx(w: tc.Tensor) -> object:
    return lambda x: (x * w).sin()


def test_func_transforms_keep_closed_over_parameters_on_the_graph() -> None:
    # A PINN written with torch.func takes u_x = jacrev(model)(x) into its loss and calls
    # loss.backward() for the model's parameters: the transform's result must stay on the
    # graph of the tensors the function closes over, as PyTorch's outer autograd level keeps it.
    xs, ws = np.array([3.0, 4.0]), np.array([1.0, 2.0])
    # d/dw sum(diag(cos(x w) w)) = cos(x w) - x w sin(x w)
    want = np.cos(xs * ws) - xs * ws * np.sin(xs * ws)
    x = tc.tensor(xs)
    cases = {
        "jacrev": lambda f: func.jacrev(f)(x).sum(),
        "jacfwd": lambda f: func.jacfwd(f)(x).sum(),
        "grad": lambda f: func.grad(lambda v: f(v).sum())(x).sum(),
        "vjp": lambda f: func.vjp(f, x)[1](tc.ones(2, dtype=tc.float64))[0].sum(),
        "jvp": lambda f: func.jvp(f, (x,), (tc.ones(2, dtype=tc.float64),))[1].sum(),
    }
    for name, make in cases.items():
        w = tc.tensor(ws, requires_grad=True)
        loss = make(_sin_wx(w))
        assert loss.requires_grad, name
        loss.backward()
        np.testing.assert_allclose(w.grad.numpy(), want, rtol=1e-12, err_msg=name)
    w = tc.tensor(ws, requires_grad=True)
    out, _ = func.jvp(_sin_wx(w), (x,), (tc.ones(2, dtype=tc.float64),))
    assert out.requires_grad
    # the Hessian of sum(sin(x w)) is diag(-w^2 sin(x w)); its sum's gradient in w
    h = func.hessian(lambda v: _sin_wx(w)(v).sum())(x)
    h.sum().backward()
    np.testing.assert_allclose(
        w.grad.numpy(), -2 * ws * np.sin(xs * ws) - ws**2 * xs * np.cos(xs * ws), rtol=1e-12
    )


def test_func_transforms_detach_what_the_caller_does_not_track() -> None:
    w = tc.tensor([1.0, 2.0], requires_grad=True)
    x = tc.tensor([3.0, 4.0])
    assert not func.grad(lambda v: (v * v).sum())(x).requires_grad
    assert not func.jacrev(lambda v: v.exp())(x).requires_grad
    with tc.no_grad():
        assert not func.grad(lambda v: (v * w).sum())(x).requires_grad
        out, t = func.jvp(_sin_wx(w), (w,), (w,))
        assert not out.requires_grad and not t.requires_grad


def test_grad_of_grad_through_a_closed_over_input() -> None:
    # MAML-style: the inner gradient depends on the outer transform's input only through
    # the closure; PyTorch gives d/dx sum(2 x y) = 2 y (it was zeros: the inner result was
    # detached).
    y0, x0 = tc.tensor([1.0, 2.0]), tc.tensor([3.0, 4.0])
    g = func.grad(lambda x: func.grad(lambda y: (x * y * y).sum())(y0).sum())(x0)
    assert g.tolist() == [2.0, 4.0]
    assert not g.requires_grad
    h = func.hessian(lambda x: (x**3).sum())(x0)
    assert h.tolist() == [[18.0, 0.0], [0.0, 24.0]]


# ---------------------------------------------------------------- the engine with inputs
def test_grad_with_inputs_runs_only_the_nodes_that_lead_to_them() -> None:
    # PyTorch's engine runs only the part of the graph between the outputs and the inputs:
    # hooks behind or beside the inputs are not called (and their history is not
    # differentiated: a jvp through a neural ODE solver went exponential in the steps).
    calls: list[str] = []
    x = tc.tensor([1.0, 2.0], requires_grad=True)
    a = x * 3
    a.register_hook(lambda g: calls.append("a"))
    mid = a.exp()
    mid.register_hook(lambda g: calls.append("mid"))
    b = x.sin()
    b.register_hook(lambda g: calls.append("b"))
    out = (mid * b).sum()
    (g,) = tc.autograd.grad(out, mid, retain_graph=True)
    assert calls == ["mid"]
    np.testing.assert_allclose(g.numpy(), np.sin([1.0, 2.0]), rtol=1e-6)
    calls.clear()
    out.backward(inputs=[mid], retain_graph=True)
    assert calls == ["mid"] and x.grad is None
    calls.clear()
    (g,) = tc.autograd.grad(out, a)
    assert calls == ["mid", "a"]
    np.testing.assert_allclose(g.numpy(), np.exp([3.0, 6.0]) * np.sin([1.0, 2.0]), rtol=1e-6)


def test_nested_gradients_stay_linear_in_the_depth_of_the_graph() -> None:
    # jvp is two reverse passes with create_graph; each rule that differentiates through
    # autograd (linear's double backward) once walked the whole history behind its inputs.
    calls = [0]

    class Count(tc.autograd.Function):
        @staticmethod
        def forward(ctx: object, t: tc.Tensor) -> tc.Tensor:
            return t.clone()

        @staticmethod
        def backward(ctx: object, g: tc.Tensor) -> tc.Tensor:
            calls[0] += 1
            return g

    lin = tc.nn.Linear(2, 2).double()
    y0 = tc.ones(1, 2, dtype=tc.float64)

    def f(y: tc.Tensor) -> tc.Tensor:
        y = Count.apply(y)
        for _ in range(12):
            y = y + 0.1 * lin(y.tanh())
        return y

    func.jvp(f, (y0,), (tc.ones_like(y0),))
    assert calls[0] <= 4


# ---------------------------------------------------------------- custom Function in forward AD
class _Softclip(tc.autograd.Function):
    @staticmethod
    def forward(x: tc.Tensor, bound: float) -> tc.Tensor:
        return bound * tc.tanh(x / bound)

    @staticmethod
    def setup_context(ctx: object, inputs: tuple[object, ...], output: object) -> None:
        x, bound = inputs
        ctx.save_for_backward(x)  # type: ignore[attr-defined]
        ctx.save_for_forward(x)  # type: ignore[attr-defined]
        ctx.bound = bound  # type: ignore[attr-defined]

    @staticmethod
    def backward(ctx: object, g: tc.Tensor) -> tuple[object, ...]:
        (x,) = ctx.saved_tensors  # type: ignore[attr-defined]
        return g * (1 - tc.tanh(x / ctx.bound) ** 2), None  # type: ignore[attr-defined]

    @staticmethod
    def jvp(ctx: object, x_t: tc.Tensor, bound_t: object) -> tc.Tensor:
        (x,) = ctx.saved_tensors  # type: ignore[attr-defined]
        return x_t * (1 - tc.tanh(x / ctx.bound) ** 2)  # type: ignore[attr-defined]


def test_custom_function_jvp_tangent_is_off_the_graph() -> None:
    # The dual input is not a tensor that requires grad: the tangent jvp computes from it
    # has no grad_fn (it had MulBackward0), unless a primal really requires grad.
    fw = tc.autograd.forward_ad
    xs = np.array([-4.0, 0.0, 4.0])
    want = 1 - np.tanh(xs / 2) ** 2
    with fw.dual_level():
        dual = fw.make_dual(tc.tensor(xs), tc.ones(3, dtype=tc.float64))
        tangent = fw.unpack_dual(_Softclip.apply(dual, 2.0)).tangent
    assert tangent.grad_fn is None and not tangent.requires_grad
    np.testing.assert_allclose(tangent.numpy(), want, rtol=1e-12)
    with fw.dual_level():
        x = tc.tensor(xs, requires_grad=True)
        dual = fw.make_dual(x, tc.ones(3, dtype=tc.float64))
        tangent = fw.unpack_dual(_Softclip.apply(dual, 2.0)).tangent
    assert tangent.requires_grad


def test_custom_function_jvp_reads_what_save_for_forward_saved() -> None:
    # PyTorch's ctx.saved_tensors in jvp are save_for_forward's only: a Function that saved
    # for backward alone finds none there.
    class BackwardOnly(_Softclip):
        @staticmethod
        def setup_context(ctx: object, inputs: tuple[object, ...], output: object) -> None:
            ctx.save_for_backward(inputs[0])  # type: ignore[attr-defined]
            ctx.bound = inputs[1]  # type: ignore[attr-defined]

    fw = tc.autograd.forward_ad
    with fw.dual_level():
        dual = fw.make_dual(tc.zeros(2), tc.ones(2))
        with pytest.raises(ValueError, match="not enough values to unpack"):
            BackwardOnly.apply(dual, 2.0)


def test_func_linearize() -> None:
    # torch.func.linearize: one call of the function, then as many jvps as wanted.
    calls = [0]

    def f(a: tc.Tensor, b: tc.Tensor) -> tuple[tc.Tensor, tc.Tensor]:
        calls[0] += 1
        return a.sin() * b, a + b

    a, b = tc.tensor([1.0, 2.0]), tc.tensor([3.0, -1.0])
    out, jvp_fn = func.linearize(f, a, b)
    np.testing.assert_allclose(out[0].numpy(), np.sin([1.0, 2.0]) * [3.0, -1.0], rtol=1e-6)
    for ta, tb in (([1.0, 0.0], [0.0, 0.0]), ([0.5, 2.0], [1.0, 1.0])):
        ja, jb = jvp_fn(tc.tensor(ta), tc.tensor(tb))
        want = np.cos([1.0, 2.0]) * [3.0, -1.0] * ta + np.sin([1.0, 2.0]) * tb
        np.testing.assert_allclose(ja.numpy(), want, rtol=1e-6)
        np.testing.assert_allclose(jb.numpy(), np.add(ta, tb), rtol=1e-6)
    assert calls[0] == 1
    with pytest.raises(
        RuntimeError,
        match=r"tangent:0 with shape \S+Size\(\[3\]\) in flattened pytree doesn't match the "
        r"shape \S+Size\(\[2\]\) of the corresponding primal\.",
    ):
        jvp_fn(tc.ones(3), tc.ones(2))
    with pytest.raises(RuntimeError, match="tangent:1 with dtype"):
        jvp_fn(tc.ones(2), tc.ones(2, dtype=tc.float64))
    with pytest.raises(RuntimeError, match="to have the same argspec as the primals"):
        jvp_fn(tc.ones(2))


def test_triangular_solve_warns_once_that_it_is_deprecated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Old GP code calls torch.triangular_solve; PyTorch 2.13 warns once per process,
    # attributed to the caller's line (its message misses a space: "solve_triangularand").
    from tensorcore.ops import composite_linalg

    monkeypatch.setattr(composite_linalg, "_WARNED_TRIANGULAR_SOLVE", [])
    L = tc.tensor([[2.0, 0.0], [1.0, 1.0]])
    with pytest.warns(
        UserWarning,
        match=r"^torch\.triangular_solve is deprecated in favor of "
        r"torch\.linalg\.solve_triangularand will be removed in a future PyTorch release\.\n"
        r"torch\.linalg\.solve_triangular has its arguments reversed",
    ) as caught:
        x = tc.triangular_solve(tc.ones(2, 1), L, upper=False).solution
    assert caught[0].filename == __file__
    assert x.flatten().tolist() == [0.5, 0.5]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tc.ones(2, 1).triangular_solve(L, upper=False)


def test_pytorch_213_wordings() -> None:
    x = tc.randn(2, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match=r"Mismatch in shape: grad_output\[0\] has a shape of \S+Size\(\[3\]\) and "
        r"output\[0\] has a shape of \S+Size\(\[2\]\)\.",
    ):
        tc.autograd.grad(x.sin(), x, tc.ones(3))
    from tensorcore.utils.checkpoint import checkpoint, checkpoint_sequential

    with pytest.warns(
        UserWarning,
        match=r"checkpoint: the use_reentrant parameter should be passed explicitly\. "
        r"Starting in PyTorch 2\.9, calling checkpoint without use_reentrant will raise an "
        r"exception\. use_reentrant=False is recommended",
    ):
        checkpoint(tc.sin, x)
    with pytest.warns(
        UserWarning,
        match=r"checkpoint_sequential: the use_reentrant parameter should be passed "
        r"explicitly\. In version 2\.9 we will raise an exception if use_reentrant is not "
        r"passed\. use_reentrant=False",
    ):
        checkpoint_sequential(tc.nn.Sequential(tc.nn.Identity(), tc.nn.Identity()), 2, x)


def test_lobpcg_extreme_eigenpairs() -> None:
    # torch.lobpcg: the k largest or smallest eigenpairs (batched, sparse, generalized,
    # preconditioned), PyTorch's size refusal and the gradient of the eigenvalues.
    rng = np.random.RandomState(0)
    a = rng.randn(12, 12)
    a = a @ a.T
    w = np.linalg.eigvalsh(a)
    A = tc.tensor(a)
    E, X = tc.lobpcg(A, k=2)
    np.testing.assert_allclose(E.numpy(), w[::-1][:2], rtol=1e-6)
    np.testing.assert_allclose((A @ X - X * E).abs().max().item(), 0.0, atol=1e-5)
    E, _ = tc.lobpcg(A, k=2, largest=False, iK=tc.linalg.inv(A + tc.eye(12, dtype=tc.float64)))
    np.testing.assert_allclose(E.numpy(), w[:2], rtol=1e-6)
    E, X = tc.lobpcg(tc.stack([A, 2 * A]), k=2)
    assert X.shape == (2, 12, 2)
    np.testing.assert_allclose(E.numpy(), [w[::-1][:2], 2 * w[::-1][:2]], rtol=1e-6)
    E, _ = tc.lobpcg(A, k=1, B=2 * tc.eye(12, dtype=tc.float64))
    np.testing.assert_allclose(E.item(), w[-1] / 2, rtol=1e-6)
    np.testing.assert_allclose(tc.lobpcg(A.to_sparse(), k=1)[0].item(), w[-1], rtol=1e-6)
    assert tc.lobpcg(A.float(), k=1)[0].dtype == tc.float32
    Ar = A.clone().requires_grad_()
    E, X = tc.lobpcg(Ar, k=2)
    E.sum().backward()
    v = np.linalg.eigh(a)[1][:, ::-1][:, :2]
    np.testing.assert_allclose(Ar.grad.numpy(), v @ v.T, atol=1e-6)
    with pytest.raises(
        ValueError,
        match=r"^LOBPCG algorithm is not applicable when the number of A rows \(=5\) is "
        r"smaller than 3 x the number of requested eigenpairs \(=2\)$",
    ):
        tc.lobpcg(A[:5, :5], k=2)
