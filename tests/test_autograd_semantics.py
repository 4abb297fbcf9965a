"""Autograd semantics that PyTorch users rely on without reading about them (issue 15):

* the gradient layout contract of ``.grad`` (dense, the parameter's strides or row-major);
* ``retain_grad()`` reports the gradient after the tensor's hooks (PyTorch >= 2.0);
* a custom Function's ``ctx.saved_tensors`` is freed by backward, like a rule's saves;
* graphs die by reference counting alone (no reference cycles through hooks or ``ctx``).

Expected strides and results were checked against PyTorch 2.13.
"""

from __future__ import annotations

import gc
import warnings
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close

F64 = tc.float64


# ------------------------------------------------------------------ .grad layout contract
#: Parameter layouts: (make the leaf's data from a device, the strides PyTorch gives .grad).
#: A non-overlapping and dense parameter gets its own strides, any other one row-major.
LAYOUTS: dict[str, tuple[Callable[[str], tc.Tensor], tuple[int, ...]]] = {
    "contiguous": (lambda d: tc.ones(2, 3, dtype=F64, device=d), (3, 1)),
    "transposed": (lambda d: tc.ones(3, 2, dtype=F64, device=d).t(), (1, 2)),
    "sliced": (lambda d: tc.ones(3, 4, dtype=F64, device=d)[:, 1:3], (2, 1)),
    "step-sliced": (lambda d: tc.ones(3, 4, dtype=F64, device=d)[:, ::2], (2, 1)),
    "expanded": (lambda d: tc.ones(3, 1, dtype=F64, device=d).expand(3, 4), (4, 1)),
    "permuted, size-1 dim": (
        lambda d: tc.ones(3, 1, 2, dtype=F64, device=d).permute(2, 1, 0),
        (1, 2, 2),
    ),
}


def _broadcast(a: tc.Tensor) -> None:
    """sum's rule expands the output gradient: a stride-0 gradient reaches the leaf."""
    (a.sum(-1) * 2).sum().backward()


def _reordered(a: tc.Tensor) -> None:
    """A dense gradient in the other memory order (through a transposing copy)."""
    (a.transpose(0, -1).contiguous() * 2).sum().backward()


def _twice(a: tc.Tensor) -> None:
    """A second accumulation: into the stored .grad."""
    (a * 1).sum().backward()
    _broadcast(a)
    a.grad.sub_(1)  # the expected values are those of one _broadcast


def _create_graph(a: tc.Tensor) -> None:
    (a.sum(-1) * 2).sum().backward(create_graph=True)


def _hook(a: tc.Tensor) -> None:
    """A leaf hook returning an expanded tensor."""
    a.register_hook(lambda g: (g.sum() / g.numel()).expand(g.shape))
    _broadcast(a)


def _callers_gradient(a: tc.Tensor) -> None:
    """The caller's gradient, expanded, reaching the leaf unchanged (and never aliased)."""
    g = tc.full((), 2.0, dtype=F64, device=a.device).expand(a.shape)
    a.backward(g)
    assert a.grad.untyped_storage() is not g.untyped_storage()


WAYS = {
    "broadcast": _broadcast,
    "reordered": _reordered,
    "twice": _twice,
    "create_graph": _create_graph,
    "hook": _hook,
    "caller": _callers_gradient,
}


@pytest.mark.parametrize("way", WAYS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_grad_obeys_the_layout_contract(device: str, layout: str, way: str) -> None:
    make, strides = LAYOUTS[layout]
    a = make(device).detach().requires_grad_()
    WAYS[way](a)
    g = a.grad
    assert g.shape == a.shape
    assert g.stride() == strides, f"{layout} parameter, {way}: .grad strides {g.stride()}"
    assert_close(g, np.full(tuple(a.shape), 2.0))
    # What an optimizer does to it (weight decay, clipping): in place.
    with tc.no_grad():
        g.add_(1)
    assert_close(a.grad, np.full(tuple(a.shape), 3.0))


@pytest.mark.parametrize("on", ["leaf", "non-leaf"])
def test_grad_is_never_a_tensor_a_hook_returned(device: str, on: str) -> None:
    """A hook may return a tensor its caller keeps: .grad gets a copy (PyTorch copies a
    gradient that anyone else refers to), so updating .grad leaves that tensor alone."""
    x = tc.ones(3, dtype=F64, device=device, requires_grad=True)
    kept = tc.full((3,), 5.0, dtype=F64, device=device)
    y = x if on == "leaf" else x.clone()
    y.register_hook(lambda g: kept)
    (y * 1).sum().backward()
    with tc.no_grad():
        x.grad.add_(1)
    assert_close(kept, np.full(3, 5.0))
    assert_close(x.grad, np.full(3, 6.0))


@pytest.mark.parametrize("kept", ["global", "saved", "fresh", "the incoming gradient"])
def test_grad_is_never_a_tensor_a_functions_backward_keeps(device: str, kept: str) -> None:
    """A custom Function's backward may return a tensor it (or its caller) still refers to:
    .grad gets a copy then, as in PyTorch; a fresh result is stored as it is (stolen)."""
    outside = tc.full((3,), 5.0, dtype=F64, device=device)

    class Twice(tc.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(outside)
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            if kept == "global":
                return outside
            if kept == "saved":
                return ctx.saved_tensors[0]
            if kept == "fresh":
                return g * 5.0
            return g  # the engine's own gradient: a copy costs little, and is safe

    x = tc.ones(3, dtype=F64, device=device, requires_grad=True)
    y = Twice.apply(x)
    y.backward(tc.ones(3, dtype=F64, device=device))
    with tc.no_grad():
        x.grad.add_(1)
    assert_close(outside, np.full(3, 5.0))
    assert_close(x.grad, np.full(3, 6.0 if kept != "the incoming gradient" else 2.0))
    if kept == "fresh":  # stolen: nothing to copy from, nobody else to see it
        from tensorcore.autograd._accumulate import HELD

        assert not HELD  # (emptied when the backward ended)


def test_autograd_grad_returns_the_gradient_as_computed(device: str) -> None:
    """tc.autograd.grad stores nothing, so it copies nothing: sum's gradient comes back as
    the expanded view its rule makes (PyTorch returns the same stride-0 tensor)."""
    a = tc.ones(2, 3, dtype=F64, device=device, requires_grad=True)
    (g,) = tc.autograd.grad(a.sum(), a)
    assert g.stride() == (0, 0)
    assert a.grad is None


def test_retained_grad_is_row_major(device: str) -> None:
    """retain_grad() keeps a row-major copy, whatever the gradient's layout (PyTorch)."""
    a = tc.ones(2, 3, dtype=F64, device=device, requires_grad=True)
    y = a * 2
    y.retain_grad()
    w = tc.arange(6, dtype=F64, device=device).reshape(3, 2)
    (y.t().contiguous() * w).sum().backward()  # y's gradient arrives transposed: w.t()
    assert y.grad.stride() == (3, 1)
    with tc.no_grad():
        y.grad.add_(1)
    assert_close(y.grad, np.arange(6.0).reshape(3, 2).T + 1)


def test_backward_inputs_accumulates_into_a_non_leaf(device: str) -> None:
    """backward(inputs=[y]) with a non-leaf y fills y.grad (PyTorch retains its grad), and
    leaves that are not among the inputs get nothing."""
    x = tc.ones(2, 3, dtype=F64, device=device, requires_grad=True)
    y = x * 2
    (y * 3).sum().backward(inputs=[y])
    assert_close(y.grad, np.full((2, 3), 3.0))
    assert y.retains_grad and x.grad is None


# ------------------------------------------------------------------ retain_grad and hooks
@pytest.mark.parametrize("retain_first", [True, False], ids=["retain-first", "hook-first"])
def test_retain_grad_runs_after_the_hooks(device: str, retain_first: bool) -> None:
    x = tc.ones(3, dtype=F64, device=device, requires_grad=True)
    y = x * 2
    if retain_first:
        y.retain_grad()
    y.register_hook(lambda g: g * 10)
    if not retain_first:
        y.retain_grad()
    y.register_hook(lambda g: g + 1)
    y.sum().backward()
    assert_close(y.grad, np.full(3, 11.0), msg=lambda m: f"the gradient after every hook: {m}")
    assert_close(x.grad, np.full(3, 22.0))


def test_retain_grad_follows_an_in_place_change(device: str) -> None:
    """After y.mul_(3) (or an in-place change of a view of y), y.grad is the gradient of the
    new value of y; hooks registered before stay with the old value (PyTorch)."""
    x = tc.ones(3, dtype=F64, device=device, requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.mul_(3)
    y.sum().backward()
    assert_close(y.grad, np.ones(3))
    y = x * 2
    y.retain_grad()
    y[:2].mul_(3)
    (y * y).sum().backward()
    assert_close(y.grad, [12.0, 12.0, 4.0])


# ------------------------------------------------------------------ Function saved tensors
class _Scale(tc.autograd.Function):
    """``x * 2``, saving its input; appends its ctx to the list passed in (state per call)."""

    @staticmethod
    def forward(ctx: Any, x: tc.Tensor, ctxs: list[Any]) -> tc.Tensor:
        ctx.save_for_backward(x)
        ctxs.append(ctx)
        return x * 2

    @staticmethod
    def backward(ctx: Any, g: tc.Tensor) -> Any:
        (x,) = ctx.saved_tensors
        return g * 2 + x * 0, None


def test_function_saved_tensors_are_freed_by_backward(device: str) -> None:
    ctxs: list[Any] = []
    x = tc.ones(3, dtype=F64, device=device, requires_grad=True)
    y = _Scale.apply(x * 1, ctxs)
    y.sum().backward(retain_graph=True)
    (saved,) = ctxs[0].saved_tensors  # retain_graph keeps them
    assert_close(saved, np.ones(3))
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        _ = ctxs[0].saved_tensors
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()


# ------------------------------------------------------------------ reference cycles
@contextmanager
def _no_cycle_collector() -> Iterator[None]:
    """Objects must die by reference counting alone: nothing may sit in a cycle."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _graph(device: str, attach: Callable[[tc.Tensor], Any]) -> tuple[Any, ...]:
    """x -> t = x * 2 -> u = t.exp(), with ``attach(t)`` (a hook...); returns the loss and
    weak references to t, its node and u's node."""
    x = tc.ones(3, dtype=F64, device=device, requires_grad=True)
    t = x * 2
    u = t.exp()
    attach(t)
    return u.sum(), weakref.ref(t), weakref.ref(t.grad_fn), weakref.ref(u.grad_fn)


HOOKS: dict[str, Callable[[tc.Tensor], Any]] = {
    "tensor hook holding its tensor": lambda t: t.register_hook(lambda g: g * t),
    # (the default argument holds t, as a closure that reads it would)
    "node hook holding the tensor": lambda t: t.grad_fn.register_hook(lambda gi, go, t=t: None),
    "retain_grad": lambda t: t.retain_grad(),
}


@pytest.mark.parametrize("hook", HOOKS)
def test_backward_frees_the_graph_of_a_hooked_tensor(device: str, hook: str) -> None:
    """PyTorch keeps such a graph alive until the cycle collector runs (the tensor holds
    its node, the node the hook, the hook the tensor); tensorcore drops a node's hooks when
    backward frees the node, which breaks the cycle."""
    with _no_cycle_collector():
        loss, *refs = _graph(device, HOOKS[hook])
        loss.backward()
        del loss
        assert [r() is None for r in refs] == [True] * len(refs)


@pytest.mark.parametrize("backward", [False, True], ids=["no-backward", "backward"])
def test_function_graph_dies_without_the_cycle_collector(device: str, backward: bool) -> None:
    """The ctx of a custom Function refers to its node weakly and drops what forward
    declared (saved outputs, non-differentiable outputs): no node <-> ctx cycle."""

    class SortValues(tc.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: tc.Tensor) -> tuple[tc.Tensor, tc.Tensor]:
            values, indices = x.sort()
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices, values)
            return values, indices

        @staticmethod
        def backward(ctx: Any, g: tc.Tensor, _: tc.Tensor) -> tc.Tensor:
            indices, _values = ctx.saved_tensors
            return tc.zeros_like(g).scatter(0, indices, g)

    with _no_cycle_collector():
        x = tc.tensor([3.0, 1.0, 2.0], dtype=F64, device=device, requires_grad=True)
        values, indices = SortValues.apply(x * 1)
        refs = [weakref.ref(values), weakref.ref(indices), weakref.ref(values.grad_fn)]
        if backward:
            values.sum().backward()
        del values, indices
        assert [r() is None for r in refs] == [True, True, True]


# ------------------------------------------------------------------ rules read what they save
def test_every_rule_reads_exactly_what_it_saves() -> None:
    from tensorcore.autograd._rule_check import check_rule
    from tensorcore.ops.derivatives import DERIVATIVES
    from tensorcore.ops.schema import OPS

    for name, rule in DERIVATIVES.items():
        check_rule(name, [p.name for p in OPS[name].parsed.params], rule.saves, rule.fn)


def test_a_rule_that_reads_an_unsaved_value_is_refused() -> None:

    from tensorcore.autograd._rule_check import check_rule

    params = ["self", "other"]
    with pytest.raises(ValueError, match=r"reads \['other'\] without saving it"):
        check_rule("mul", params, ("self",), lambda c, g: (g * c.other, g * c.self))

    def helper(c: Any, g: Any) -> Any:  # a helper handed the context is read too
        return g * c.other

    def rule(c: Any, g: Any) -> Any:
        return (helper(c, g), None)

    with pytest.raises(ValueError, match="without saving it"):
        check_rule("mul", params, ("self",), rule)
    with pytest.raises(ValueError, match=r"saves \['other'\] but never reads it"):
        check_rule("mul", params, ("self", "other:spec"), lambda c, g: (g * c.self, None))
    with pytest.raises(ValueError, match="signature does not have"):
        check_rule("mul", params, ("nope",), lambda c, g: (c.nope,))
    # A rule that hands its context to code the scan cannot follow may read anything it saves.
    name = "other"
    check_rule("mul", params, ("self", "other"), lambda c, g: (getattr(c, name) * g, None))


def test_a_plugin_rule_that_reads_an_unsaved_value_fails_its_load(run_py: Any) -> None:
    code = """
        import tensorcore as tc
        from tensorcore.plugins import hookimpl

        class P:
            @hookimpl
            def tensorcore_register_kernels(self, register):
                register.derivative("exp", "cpu", "strided", "self", lambda c, g: (g * c.result,))

        try:
            tc.backends.register(P(), name="bad-rule")
        except RuntimeError as exc:
            assert "derivative of exp reads ['result'] without saving it" in str(exc), exc
            print("OK")
        """
    assert run_py(code).stdout.strip() == "OK"


def test_a_plugin_rule_may_name_its_saves_as_generic_rule_returns_them(run_py: Any) -> None:
    code = """
        import tensorcore as tc
        from tensorcore import backend
        from tensorcore.plugins import hookimpl

        saves, rule = backend.generic_rule("exp")
        assert not isinstance(saves, str)

        class P:
            @hookimpl
            def tensorcore_register_kernels(self, register):
                register.derivative("exp", "cpu", "strided", saves, rule)

        tc.backends.register(P(), name="tuple-saves")
        x = tc.tensor([0.0, 1.0], requires_grad=True)
        x.exp().sum().backward()
        assert x.grad.allclose(x.detach().exp()), x.grad
        print("OK")
        """
    assert run_py(code).stdout.strip() == "OK"


def test_nodes_that_keep_no_tensors_run_again(device: str) -> None:
    # As in PyTorch: backward frees saved tensors only; a node that kept shapes and numbers
    # (a view's, a sum's, an addition's) may run in a second backward, a node that kept a
    # tensor (or a scalar for a tensor parameter, which PyTorch wraps) may not.
    x = tc.ones(2, device=device, requires_grad=True)
    a = x.view(2)
    (a * 2).sum().backward()
    (a * 3).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]
    for again in (lambda: x + 1, lambda: x.sum(), lambda: x.unsqueeze(0)):
        y = again()
        y.sum().backward()
        y.sum().backward()
    for freed in (lambda: x * 2, lambda: x.exp(), lambda: x * x):
        y = freed()
        y.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.sum().backward()


def test_double_backward_through_an_in_place_op_reads_the_old_value(device: str) -> None:
    # The rule of sin_ reads self's old value: its copy is recorded, so the second derivative
    # reaches x (it was cut off: "does not require grad").
    x = tc.tensor([0.3, 1.2], dtype=tc.float64, device=device, requires_grad=True)
    y = x * 1
    y.sin_()
    (g,) = tc.autograd.grad(y.sum(), x, create_graph=True)
    (gg,) = tc.autograd.grad(g.sum(), x)
    assert_close(g, np.cos([0.3, 1.2]))
    assert_close(gg, -np.sin([0.3, 1.2]))


def test_saved_tensors_hooks_pack_and_unpack_every_saved_tensor(device: str) -> None:
    graph = tc.autograd.graph
    packed: list[Any] = []
    unpacked: list[Any] = []

    def pack(t: Any) -> Any:
        packed.append(tuple(t.shape))
        return ("box", t.detach().clone())

    def unpack(box: Any) -> Any:
        unpacked.append(box[0])
        return box[1]

    x = tc.tensor([0.5, 1.0, 2.0], dtype=tc.float64, device=device, requires_grad=True)
    with graph.saved_tensors_hooks(pack, unpack):
        y = x.exp() * x  # exp saves its result, mul saves both inputs
    assert len(packed) == 3 and not unpacked
    (g,) = tc.autograd.grad(y.sum(), x, create_graph=True)
    assert len(unpacked) == 3
    xn = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(g.detach().cpu().numpy(), np.exp(xn) * (xn + 1))
    # the second derivative flows through the unpacked saved output of exp
    (gg,) = tc.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.cpu().numpy(), np.exp(xn) * (xn + 2))


def test_saved_tensors_hooks_nest_and_cover_custom_functions(device: str) -> None:
    graph = tc.autograd.graph
    calls: list[str] = []

    def tag(name: str) -> Any:
        return lambda t: (calls.append(name), t)[1]

    class Cube(tc.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 3 * x * x * g

    x = tc.tensor([2.0], device=device, requires_grad=True)
    with graph.saved_tensors_hooks(tag("outer"), lambda t: t):
        with graph.saved_tensors_hooks(tag("inner"), lambda t: t):
            y = Cube.apply(x)
        z = y.sin()
    assert calls == ["inner", "outer"]
    z.backward()
    assert abs(x.grad.item() - 12.0 * float(np.cos(8.0))) < 1e-4
    with (
        graph.disable_saved_tensors_hooks("hooks are off in this library"),
        pytest.raises(RuntimeError, match="hooks are off"),
        graph.saved_tensors_hooks(tag("x"), lambda t: t),
    ):
        pass


def test_save_on_cpu_and_increment_version(device: str) -> None:
    graph = tc.autograd.graph
    x = tc.tensor([1.0, 2.0], device=device, requires_grad=True)
    with graph.save_on_cpu():
        y = (x * x).sum()
    y.backward()
    assert x.grad.device == x.device and x.grad.tolist() == [2.0, 4.0]
    a = tc.tensor([1.0, 2.0], device=device, requires_grad=True)
    b = a * 1.0
    c = (b * b).sum()
    graph.increment_version(b)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.backward()


def test_relus_second_derivative_is_a_zero_that_reaches_the_input(device: str) -> None:
    # relu's gradient is threshold_backward(grad, result, 0), piecewise constant in result:
    # its derivative is zero but connected (PyTorch's zeros_like), so x is "used" and gets
    # zeros, also without allow_unused.
    x = tc.tensor([1.5, -0.3, 2.0], device=device, requires_grad=True)
    (g,) = tc.autograd.grad(tc.relu(x).sum(), x, create_graph=True)
    assert g.requires_grad
    (gg,) = tc.autograd.grad(g.sum(), x)
    assert_close(gg, np.zeros(3, dtype=np.float32))


_F = tc.nn.functional
#: The piecewise-linear activations: PyTorch differentiates each through a backward operator
#: that reads the input, whose derivative in it is a zero that flows (names: PyTorch 2.13's).
_PIECEWISE: dict[str, tuple[Callable[[tc.Tensor], tc.Tensor], str]] = {
    "leaky_relu": (lambda x: _F.leaky_relu(x, 0.2), "LeakyReluBackwardBackward0"),
    "hardtanh": (lambda x: _F.hardtanh(x, -0.5, 1.0), "HardtanhBackwardBackward0"),
    "relu6": (_F.relu6, "HardtanhBackwardBackward0"),
    "hardsigmoid": (_F.hardsigmoid, "HardsigmoidBackwardBackward0"),
    "softshrink": (lambda x: _F.softshrink(x, 0.5), "SoftshrinkBackwardBackward0"),
    "hardshrink": (lambda x: _F.hardshrink(x, 0.5), "HardshrinkBackwardBackward0"),
    "threshold": (lambda x: _F.threshold(x, 0.1, 20.0), "ThresholdBackwardBackward0"),
    "relu": (_F.relu, "ThresholdBackwardBackward0"),
    "rrelu": (lambda x: _F.rrelu(x, 0.1, 0.3), "LeakyReluBackwardBackward0"),
    "prelu": (
        lambda x: _F.prelu(x, tc.tensor([0.25], dtype=x.dtype, device=x.device)),
        "PreluKernelBackwardBackward0",
    ),
    # in place on a non-leaf: the gradient runs through the product x * 1
    "leaky_relu_": (lambda x: _F.leaky_relu(x * 1, 0.2, inplace=True), "MulBackward0"),
    "hardtanh_": (lambda x: _F.hardtanh(x * 1, inplace=True), "MulBackward0"),
    "relu6_": (lambda x: _F.relu6(x * 1, inplace=True), "MulBackward0"),
    "hardsigmoid_": (lambda x: _F.hardsigmoid(x * 1, inplace=True), "MulBackward0"),
    "threshold_": (lambda x: _F.threshold_(x * 1, 0.1, 20.0), "MulBackward0"),
}
_X = [1.5, -0.3, 2.0, -2.5, 0.2, 7.0, -7.0, 0.7]


@pytest.mark.parametrize("name", sorted(_PIECEWISE))
def test_second_derivative_of_piecewise_activations_is_a_zero_that_flows(
    device: str, name: str
) -> None:
    # g = d f(x) / dx must require grad (PyTorch's does), and its derivative is zeros that
    # reach x, also without allow_unused; they used to be where/clamp composites whose
    # gradient did not depend on x ("element 0 of tensors does not require grad").
    fn, node = _PIECEWISE[name]
    x = tc.tensor(_X, dtype=F64, device=device, requires_grad=True)
    (g,) = tc.autograd.grad(fn(x).sum(), x, create_graph=True)
    assert g.requires_grad and g.grad_fn is not None
    assert g.grad_fn.name() == node
    (gg,) = tc.autograd.grad(g.sum(), x)
    assert_close(gg, np.zeros(len(_X)))


@pytest.mark.parametrize("name", ["leaky_relu", "hardtanh", "hardsigmoid", "softshrink", "prelu"])
def test_gradient_penalty_through_a_linear_layer_and_an_activation(device: str, name: str) -> None:
    # WGAN-GP's penalty ||d critic / d input||^2, differentiated in the weights: finite
    # differences are the oracle (pre-activations stay away from the kinks).
    fn = _PIECEWISE[name][0]
    x = tc.tensor([[0.9, -1.3, 0.4], [-0.2, 0.8, 1.7]], dtype=F64, device=device)
    v = tc.tensor([0.5, -1.5, 2.0, 1.0], dtype=F64, device=device)

    def penalty(w: tc.Tensor) -> tc.Tensor:
        xi = x.detach().requires_grad_()
        (g,) = tc.autograd.grad((fn(xi @ w.T) * v).sum(), xi, create_graph=True)
        return (g * g).sum()

    w = tc.tensor(
        [[0.7, -0.4, 1.1], [-0.9, 0.3, 0.6], [1.2, 0.8, -0.5], [0.1, -1.4, 0.9]],
        dtype=F64,
        device=device,
        requires_grad=True,
    )
    assert tc.autograd.gradcheck(penalty, (w,))


_POOLS: dict[str, Callable[[tc.Tensor], tc.Tensor]] = {
    "max_pool1d": lambda x: _F.max_pool1d(x.reshape(1, 1, 8), 2),
    "max_pool2d": lambda x: _F.max_pool2d(x.reshape(1, 2, 2, 2), (1, 2)),
    "max_pool2d_indices": lambda x: _F.max_pool2d(x.reshape(1, 1, 2, 4), 2, 1, 0, 1, False, True)[
        0
    ],
    "max_pool3d": lambda x: _F.max_pool3d(x.reshape(1, 1, 2, 2, 2), 2),
    "avg_pool1d": lambda x: _F.avg_pool1d(x.reshape(1, 1, 8), 3, 2, 1),
    "avg_pool2d": lambda x: _F.avg_pool2d(x.reshape(1, 1, 2, 4), 2),
}


@pytest.mark.parametrize("name", sorted(_POOLS))
def test_second_derivative_of_pooling_reaches_the_input(device: str, name: str) -> None:
    # The pooling backward operators take the forward input (PyTorch's signatures), with a
    # zero that flows as its derivative: grad(g.sum(), x) is zeros, as PyTorch's, instead of
    # "does not require grad" (the gradient of a pool does not depend on its input's values).
    pool = _POOLS[name]
    x = tc.tensor(_X, dtype=F64, device=device, requires_grad=True)
    (g,) = tc.autograd.grad(pool(x).sum(), x, create_graph=True)
    assert g.requires_grad
    (gg,) = tc.autograd.grad(g.sum(), x)
    assert_close(gg, np.zeros(len(_X)))
    assert tc.autograd.gradgradcheck(lambda t: pool(t).pow(2).sum(), (x,))


def test_prelu_is_twice_differentiable_in_input_and_weight(device: str) -> None:
    # _prelu_kernel_backward's own rule (PyTorch's PreluKernelBackwardBackward0): against
    # finite differences, with one slope per channel, the input away from 0.
    x = tc.tensor(
        [[[0.9, -1.3], [0.4, -0.6], [-2.0, 1.1]], [[-0.5, 0.7], [1.9, -0.8], [0.3, -1.2]]],
        dtype=F64,
        device=device,
        requires_grad=True,
    )
    w = tc.tensor([0.2, -0.4, 0.7], dtype=F64, device=device, requires_grad=True)
    assert tc.autograd.gradcheck(_F.prelu, (x, w))
    assert tc.autograd.gradgradcheck(_F.prelu, (x, w))
    (g,) = tc.autograd.grad(_F.prelu(x, w).sum(), x, create_graph=True)
    gx, gw = tc.autograd.grad((g * g).sum(), (x, w))
    assert_close(gx, np.zeros((2, 3, 2)))
    neg = (x.detach() <= 0).to(F64).sum((0, 2))  # d/dw sum(w^2 [x <= 0]) = 2 w count
    assert_close(gw, 2 * w.detach() * neg)


def test_masked_gradients_drop_infinite_and_nan_values_as_pytorchs_where() -> None:
    # clamp, maximum/minimum and fmax/fmin send the gradient through a where (PyTorch's
    # masked_fill): a non-finite gradient on the side that gets none is 0, not inf * 0 = nan
    inf, nan = float("inf"), float("nan")
    x = tc.tensor([inf, 0.5, 2.0], requires_grad=True)
    x.clamp(max=1.0).backward(tc.tensor([inf, 1.0, nan]))
    assert x.grad.tolist() == [0.0, 1.0, 0.0]
    got = {}
    for fn in ("maximum", "minimum", "fmax", "fmin"):
        a = tc.tensor([1.0, 3.0, 2.0, nan], requires_grad=True)
        b = tc.tensor([2.0, 1.0, 2.0, 1.0], requires_grad=True)
        getattr(tc, fn)(a, b).backward(tc.tensor([inf, 5.0, inf, 1.0]))
        got[fn] = (a.grad.tolist(), b.grad.tolist())
    assert got == {
        "maximum": ([0.0, 5.0, inf, 1.0], [inf, 0.0, inf, 1.0]),
        "minimum": ([inf, 0.0, inf, 1.0], [0.0, 5.0, inf, 1.0]),
        "fmax": ([0.0, 5.0, inf, 0.0], [inf, 0.0, 0.0, 1.0]),
        "fmin": ([inf, 0.0, inf, 0.0], [0.0, 5.0, 0.0, 1.0]),
    }


def test_zero_gradients_are_zeros_not_the_gradient_times_zero() -> None:
    # PyTorch's rules of the piecewise-constant operators give zeros_like(grad): an infinite
    # or NaN incoming gradient does not become NaN (inf * 0)
    g = tc.tensor([float("inf"), float("nan"), 1.0])
    for f in (
        lambda x: x.floor(),
        lambda x: x.round(),
        lambda x: x.sign(),
        lambda x: x.div(2.0, rounding_mode="floor"),
        lambda x: x**0,
    ):
        x = tc.tensor([1.5, -2.0, 0.0], requires_grad=True)
        f(x).backward(g)
        assert x.grad.tolist() == [0.0, 0.0, 0.0]
    w = tc.tensor([0.25], requires_grad=True)
    x = tc.tensor([-2.0, 0.0, 3.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (PyTorch never warns on inf * 0)
        tc.nn.functional.prelu(x, w).backward(g)


def test_prelu_with_one_weight_takes_any_input_and_refuses_bad_weights(device: str) -> None:
    # One slope (shape [1] or 0-d) applies to every element, of a 0-d input too.
    w = tc.tensor([0.25], dtype=F64, device=device, requires_grad=True)
    x = tc.tensor(-2.0, dtype=F64, device=device, requires_grad=True)
    y = _F.prelu(x, w)
    assert y.shape == () and y.item() == -0.5
    assert tc.autograd.gradcheck(_F.prelu, (x, w))
    v = tc.tensor([-2.0, 3.0], dtype=F64, device=device)
    assert _F.prelu(v, tc.tensor(0.5, dtype=F64, device=device)).tolist() == [-1.0, 3.0]
    with pytest.raises(RuntimeError, match="Not allow zero-dim input tensor"):
        _F.prelu(x.detach(), tc.ones(2, dtype=F64, device=device))
    with pytest.raises(RuntimeError, match="scalar or 1D tensor, but got: ndim = 2"):
        _F.prelu(v, tc.ones(1, 1, dtype=F64, device=device))
