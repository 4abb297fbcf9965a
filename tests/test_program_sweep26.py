"""Gaps found by running small PyTorch programs of domains the earlier sweeps left out
(nanoGPT/Llama-style language models, seq2seq with beam search, custom autograd Functions,
higher-order autograd, parametrizations and pruning, model surgery, data pipelines, mixed
precision and numerics, the "makemore" lectures) with ``import tensorcore as torch`` (the
twenty-sixth sweep): each test pins PyTorch 2.13's behaviour that such a program meets."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.autograd import Function
from tensorcore.autograd.function import once_differentiable
from tensorcore.ops import functions as ops


class _Linear(Function):
    """The tutorial's LinearFunction: ``backward`` returns a bias gradient (None) even when
    the caller left the optional bias out."""

    @staticmethod
    def forward(ctx, x, w, bias=None):  # type: ignore[no-untyped-def]
        ctx.save_for_backward(x, w, bias)
        out = x.mm(w.t())
        return out if bias is None else out + bias

    @staticmethod
    def backward(ctx, g):  # type: ignore[no-untyped-def]
        x, w, bias = ctx.saved_tensors
        gb = g.sum(0) if bias is not None and ctx.needs_input_grad[2] else None
        return g.mm(w), g.t().mm(x), gb


def test_function_backward_may_return_surplus_trailing_nones() -> None:
    x = tc.randn(4, 3, dtype=tc.float64, requires_grad=True)
    w = tc.randn(5, 3, dtype=tc.float64, requires_grad=True)
    _Linear.apply(x, w).sum().backward()
    assert x.grad is not None and w.grad is not None
    assert tc.autograd.gradcheck(_Linear.apply, (x, w))

    class TooMany(Function):
        @staticmethod
        def forward(ctx, a):  # type: ignore[no-untyped-def]
            return a * 2

        @staticmethod
        def backward(ctx, g):  # type: ignore[no-untyped-def]
            return g * 2, g

    with pytest.raises(RuntimeError, match=r"incorrect number of gradients \(expected 1, got 2\)"):
        TooMany.apply(tc.ones(2, requires_grad=True)).sum().backward()


def test_function_apply_passes_keywords_to_forward_as_inputs() -> None:
    # PyTorch hands keyword arguments to forward by name and counts them as inputs after
    # the positional ones: in needs_input_grad, and a tensor passed so gets its gradient.
    seen = []

    class Scale(Function):
        @staticmethod
        def forward(ctx, x, scale=None, name="s"):  # type: ignore[no-untyped-def]
            ctx.scale = 1.0 if scale is None else scale
            return x * ctx.scale

        @staticmethod
        def backward(ctx, g):  # type: ignore[no-untyped-def]
            seen.append(ctx.needs_input_grad)
            return g * ctx.scale, None, None

    x = tc.ones(2, requires_grad=True)
    Scale.apply(x, scale=2.0).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    Scale.apply(x=x, scale=3.0).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]
    assert seen == [(True, False), (True, False)]

    class WithContext(Function):
        @staticmethod
        def forward(x, k=1.0):  # type: ignore[no-untyped-def]
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):  # type: ignore[no-untyped-def]
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):  # type: ignore[no-untyped-def]
            return g * ctx.k, None

    y = tc.ones(2, requires_grad=True)
    WithContext.apply(y, k=4.0).sum().backward()
    assert y.grad.tolist() == [4.0, 4.0]


def test_mark_dirty_tensor_saved_for_backward_is_saved_as_changed() -> None:
    class ExpInplace(Function):
        @staticmethod
        def forward(ctx, x):  # type: ignore[no-untyped-def]
            ctx.mark_dirty(x)
            x.exp_()
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, g):  # type: ignore[no-untyped-def]
            (result,) = ctx.saved_tensors
            return g * result

    a = tc.tensor([0.0, 1.0], requires_grad=True)
    y = a.clone()
    z = ExpInplace.apply(y)
    assert z is y and y._version == 2
    (z * 2).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 2 * np.exp([0.0, 1.0]), rtol=1e-6)


def test_instantiating_a_function_warns_and_calling_it_is_refused() -> None:
    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        f = _Linear()
    with pytest.raises(RuntimeError, match=r"^Legacy autograd function with non-static forward"):
        f(tc.ones(1, 1), tc.ones(1, 1))


def test_once_differentiable_result_node_is_named_error() -> None:
    class Twice(Function):
        @staticmethod
        def forward(ctx, x):  # type: ignore[no-untyped-def]
            return x.clone()

        @staticmethod
        @once_differentiable
        def backward(ctx, g):  # type: ignore[no-untyped-def]
            return 2 * g

    a = tc.tensor(2.0, requires_grad=True)
    o = Twice.apply(a)
    (g,) = tc.autograd.grad(o * o, a, create_graph=True)
    assert repr(g) == "tensor(8., grad_fn=<Error>)"
    assert g.grad_fn.name() == "Error"


def test_legacy_contiguous_format_is_contiguous_format() -> None:
    assert tc.legacy_contiguous_format is tc.contiguous_format
    x = tc.zeros(2, 3, 4, 5).to(memory_format=tc.channels_last)
    assert tc.zeros_like(x, memory_format=tc.legacy_contiguous_format).stride() == (60, 20, 5, 1)


def test_dynamo_settings_and_queries_of_an_eager_run() -> None:
    import tensorcore._dynamo as dynamo

    assert tc._dynamo is dynamo
    assert dynamo.is_compiling() is False
    assert dynamo.config.suppress_errors is False and dynamo.config.cache_size_limit == 8
    old = dynamo.config.suppress_errors
    try:
        dynamo.config.suppress_errors = True
        assert tc._dynamo.config.suppress_errors is True
    finally:
        dynamo.config.suppress_errors = old
    with pytest.raises(AttributeError, match=r"_dynamo\.config\.no_such_setting does not exist"):
        dynamo.config.no_such_setting = 1
    dynamo.reset()
    x = tc.ones(3)
    dynamo.mark_dynamic(x, 0)
    assert dynamo.disable(len) is len


# Values of y and g where the roundings differ: PyTorch forms tanh's ``1 - y*y`` with one
# fused multiply-add and sigmoid's gradient as ``(g * (1 - y)) * y``.
_Y = [0.1234567, -0.7654321, 0.9990001, 0.3333333, -0.05, 0.6180339, 0.8414709, -0.999]
_G = [1.7, -0.3, 2.5, 0.9, -1.1, 0.123, 3.3, -0.77]


def test_tanh_backward_rounds_once_as_pytorchs_fused_kernel(device: str) -> None:
    y32 = np.array(_Y, np.float32)
    g32 = np.array(_G, np.float32)
    want32 = g32 * (1.0 - y32.astype(np.float64) ** 2).astype(np.float32)
    got = ops.tanh_backward(tc.tensor(g32, device=device), tc.tensor(y32, device=device))
    assert got.cpu().numpy().tolist() == want32.tolist()
    # 16-bit floats: computed in float32, rounded once at the end
    yh = tc.tensor(_Y, device=device).to(tc.bfloat16)
    gh = tc.tensor(_G, device=device).to(tc.bfloat16)
    yf, gf = yh.float().cpu().numpy(), gh.float().cpu().numpy()
    want = tc.tensor(gf * (1.0 - yf.astype(np.float64) ** 2).astype(np.float32)).to(tc.bfloat16)
    assert tc.equal(ops.tanh_backward(gh, yh).cpu(), want)
    # through autograd, as the "makemore" lecture compares it with its own formula
    x = tc.tensor([0.3, -1.2, 2.0, 0.05], device=device, requires_grad=True)
    t = tc.tanh(x)
    t.backward(tc.tensor(_G[:4], device=device))
    tn = t.detach().cpu().numpy()
    want_x = np.array(_G[:4], np.float32) * (1.0 - tn.astype(np.float64) ** 2).astype(np.float32)
    assert x.grad.cpu().numpy().tolist() == want_x.tolist()


def test_sigmoid_backward_multiplies_in_pytorchs_order(device: str) -> None:
    y = np.array([0.1234567, 0.7654321, 0.9990001, 0.3333333, 0.05, 0.6180339], np.float32)
    g = np.array(_G[:6], np.float32)
    got = ops.sigmoid_backward(tc.tensor(g, device=device), tc.tensor(y, device=device))
    assert got.cpu().numpy().tolist() == ((g * (np.float32(1) - y)) * y).tolist()
    # float16 steps in float16 in PyTorch's kernel (bfloat16 computes in float32)
    yh, gh = y.astype(np.float16), g.astype(np.float16)
    goth = ops.sigmoid_backward(tc.tensor(gh, device=device), tc.tensor(yh, device=device))
    assert goth.cpu().numpy().tolist() == ((gh * (np.float16(1) - yh)) * yh).tolist()


def test_function_instantiation_warning_points_at_the_caller() -> None:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _Linear()
    assert len(w) == 1 and w[0].filename == __file__


def test_reading_grad_of_a_non_leaf_warns_as_pytorch() -> None:
    x = tc.ones(2, requires_grad=True)
    y = x * 2
    with pytest.warns(UserWarning, match=r"^The \.grad attribute of a Tensor that is not a leaf"):
        assert y.grad is None
    y.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad is None and x.grad is None


def test_modified_saved_tensor_error_names_as_pytorch() -> None:
    # (PyTorch 2.13's words: the legacy type name, the producing operation without
    # ``Backward0`` -- the saving node for an output, the tensor's grad_fn now for an input)
    def message(fn):  # type: ignore[no-untyped-def]
        with pytest.raises(RuntimeError) as info:
            fn()
        return str(info.value).replace("tensorcore", "torch")

    head = (
        "one of the variables needed for gradient computation has been modified by an "
        "inplace operation: "
    )
    hint = (
        " Hint: enable anomaly detection to find the operation that failed to compute its "
        "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )

    def saved_output():  # type: ignore[no-untyped-def]
        y = tc.randn(3, requires_grad=True).exp()
        y.add_(1)
        y.sum().backward()

    def saved_input():  # type: ignore[no-untyped-def]
        y = tc.randn(3, dtype=tc.float64, requires_grad=True) * 1
        z = y.pow(2)
        y.add_(1)
        z.sum().backward()

    def saved_leaf():  # type: ignore[no-untyped-def]
        w = tc.randn(3, requires_grad=True)
        y = tc.randn(3, requires_grad=True) * w
        with tc.no_grad():
            w.add_(1)
        y.sum().backward()

    assert message(saved_output) == (
        head + "[torch.FloatTensor [3]], which is output 0 of Exp, is at version 1; "
        "expected version 0 instead." + hint
    )
    assert message(saved_input) == (
        head + "[torch.DoubleTensor [3]], which is output 0 of Add, is at version 1; "
        "expected version 0 instead." + hint
    )
    assert message(saved_leaf) == (
        head + "[torch.FloatTensor [3]] is at version 1; expected version 0 instead." + hint
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tc.autograd.detect_anomaly():
            assert message(saved_output).endswith(
                "Hint: the backtrace further above shows the operation that failed to compute "
                "its gradient. The variable in question was changed in there or anywhere "
                "later. Good luck!"
            )


def test_random_factories_make_unwritten_tensors() -> None:
    p = tc.full((3,), 0.5)
    made = [
        tc.randn(3),
        tc.rand(3),
        tc.randint(0, 5, (3,)),
        tc.normal(0.0, 1.0, (3,)),
        tc.bernoulli(p),
        tc.rand_like(p),
        tc.randn_like(p),
        tc.rand_like(tc.zeros(3, 4).t()),
        tc.randn(3, requires_grad=True),
    ]
    assert [t._version for t in made] == [0] * len(made)
    assert tc.empty(3).uniform_()._version == 1  # (an in-place draw is a write)


def test_multi_grad_hook_all_and_any() -> None:
    from tensorcore.autograd.graph import register_multi_grad_hook

    a, b = tc.ones(2, requires_grad=True), tc.ones(2, requires_grad=True)
    fired = []
    h = register_multi_grad_hook((a, b), lambda gs: fired.append([g is not None for g in gs]))
    (a * 2).sum().backward()
    (a * b).sum().backward()
    assert fired == [[True, False], [True, True]]
    h.remove()
    (a * b).sum().backward()
    assert len(fired) == 2
    firsts = []
    h = register_multi_grad_hook((a, b), lambda g: firsts.append(g.tolist()), mode="any")
    (a * 3 + b * 5).sum().backward()
    assert len(firsts) == 1 and firsts[0] in ([3.0, 3.0], [5.0, 5.0])
    h.remove()
    with pytest.raises(ValueError, match="Expects mode to be one of"):
        register_multi_grad_hook((a,), print, mode="some")


def test_grad_fn_saved_attributes() -> None:
    p = tc.randn(3, requires_grad=True)
    e = p.exp()
    assert tc.equal(e.grad_fn._saved_result, e) and e.grad_fn._saved_result is not e
    assert p.pow(3).grad_fn._saved_self is p
    assert not hasattr(e.grad_fn, "_saved_nothing")
    e.sum().backward()
    with pytest.raises(RuntimeError, match=r"^Trying to backward through the graph a second time"):
        _ = e.grad_fn._saved_result


@pytest.mark.parametrize("dtype", [tc.bfloat16, tc.float16])
def test_16_bit_softmax_rounds_the_steps_pytorchs_kernels_round(
    device: str, dtype: tc.dtype
) -> None:
    # PyTorch's CPU kernels: over the last dim, log_softmax rounds its sum of exponentials
    # and that sum's log to the 16-bit type; over another dim, softmax rounds the
    # exponentials (stored in the result first) and divides them by the float32 sum.
    def rnd(a: np.ndarray) -> np.ndarray:
        return tc.tensor(np.asarray(a, np.float32)).to(dtype).float().numpy()

    gen = np.random.default_rng(0)
    x = tc.tensor(gen.standard_normal((32, 6)).astype(np.float32)).to(dtype)
    h = x.float().numpy()
    for dim in (1, 0):
        m = h.max(dim, keepdims=True)
        e = np.exp(h - m)
        s = e.sum(dim, keepdims=True)
        if dim == 1:
            want_log = rnd(h - m - rnd(np.log(rnd(s))))
            want = rnd(e / s)
        else:
            want_log = rnd(h - m - np.log(s))
            want = rnd(rnd(e) / s)
        xd = x.to(device)
        got_log = tc.log_softmax(xd, dim).float().cpu().numpy()
        got = tc.softmax(xd, dim).float().cpu().numpy()
        # (exp may differ from PyTorch's in the last bit of float32: a rare flip allowed)
        assert (got_log == want_log).mean() > 0.99 and (got == want).mean() > 0.99
    if dtype is tc.bfloat16:  # (recorded from PyTorch 2.13: a pure-bf16 model's logits)
        logits = tc.tensor([[0.02258301, -0.09375], [0.06884766, 0.04394531]]).to(dtype)
        assert tc.log_softmax(logits.to(device), 1).float().tolist() == [
            [-0.63671875, -0.75390625],
            [-0.6796875, -0.703125],
        ]
