"""Idioms of public PyTorch programs (the official tutorials and examples) that tensorcore
must run unchanged: each test is one line or two such a program writes, with NumPy (or
a hand-computed value) as the oracle."""

from __future__ import annotations

import io
import pickle
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.autograd.function import once_differentiable
from tensorcore.testing import assert_close, dtype_unsupported


def test_range_indexes_like_the_list_of_its_values(device: str) -> None:
    # "What is torch.nn really?": ``-input[range(target.shape[0]), target].mean()``
    a = np.arange(12.0).reshape(3, 4)
    x = tc.tensor(a, device=device, requires_grad=True)
    target = tc.tensor([0, 3, 1], device=device)
    picked = x[range(3), target]
    assert_close(picked, a[range(3), [0, 3, 1]])
    (-picked.mean()).backward()
    want = np.zeros_like(a)
    want[range(3), [0, 3, 1]] = -1 / 3
    assert_close(x.grad, want)
    assert_close(x[:, range(1, 3)], a[:, 1:3])
    assert tuple(x[range(0)].shape) == (0, 4)
    y = tc.zeros(3, 4, device=device)
    y[range(2), [1, 2]] = 5.0
    b = np.zeros((3, 4), dtype=np.float32)
    b[range(2), [1, 2]] = 5.0
    assert_close(y, b)


def test_accelerator_picks_the_quickstarts_device() -> None:
    # The FashionMNIST quickstart's device line.
    acc = tc.accelerator.current_accelerator()
    device = acc.type if tc.accelerator.is_available() else "cpu"
    assert tc.ones(2, device=device).device.type == device
    assert tc.accelerator.is_available() == tc.cuda.is_available()
    assert tc.accelerator.device_count() == tc.cuda.device_count()
    if tc.accelerator.is_available():
        assert tc.accelerator.current_accelerator(check_available=True) == tc.device("cuda")
        assert tc.accelerator.current_device_index() >= 0
        tc.accelerator.synchronize()
    else:
        assert tc.accelerator.current_accelerator(check_available=True) is None
        with pytest.raises(RuntimeError, match="accelerator"):
            tc.accelerator.synchronize()
        with pytest.raises(RuntimeError, match="accelerator"):
            tc.accelerator.current_device_index()


def test_saving_a_whole_module_needs_weights_only_false_to_load() -> None:
    # As PyTorch 2.6+: a whole module saves (pickled), and loads only with weights_only=False.
    model = nn.Linear(2, 3)
    buf = io.BytesIO()
    tc.save(model, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="weights_only"):
        tc.load(buf)
    buf.seek(0)
    again = tc.load(buf, weights_only=False)
    assert isinstance(again, nn.Linear)
    assert again.weight.tolist() == model.weight.tolist()


@pytest.mark.parametrize("name", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("unbiased", [True, False])
def test_unbiased_is_the_older_spelling_of_correction(
    device: str, name: str, unbiased: bool
) -> None:
    a = np.random.default_rng(0).standard_normal((3, 4))
    x = tc.tensor(a, device=device)
    ddof = int(unbiased)
    var = a.var(axis=0, ddof=ddof)
    want = {
        "var": var,
        "std": np.sqrt(var),
        "var_mean": (var, a.mean(0)),
        "std_mean": (np.sqrt(var), a.mean(0)),
    }[name]
    got = getattr(tc, name)(x, 0, unbiased=unbiased)
    gots = got if isinstance(got, tuple) else (got,)
    for g, w in zip(gots, want if isinstance(want, tuple) else (want,), strict=True):
        assert_close(g, w)
    if name in ("var", "std"):
        assert_close(getattr(x, name)(unbiased=unbiased), getattr(a, name)(ddof=ddof))
    with pytest.raises(TypeError, match="not both"):
        getattr(tc, name)(x, unbiased=unbiased, correction=1)
    # PyTorch's older overloads take it by position: f(x, unbiased), f(x, dim, unbiased, keepdim)
    for g, w in zip(
        getattr(tc, name)(x, 0, unbiased, True)
        if name.endswith("mean")
        else (getattr(x, name)(0, unbiased, True),),
        want if isinstance(want, tuple) else (want,),
        strict=True,
    ):
        assert_close(g, np.expand_dims(w, 0))
    whole = getattr(tc, name)(x, unbiased)
    assert_close(
        whole[0] if isinstance(whole, tuple) else whole,
        (np.sqrt if name.startswith("std") else abs)(a.var(ddof=ddof)),
    )
    with pytest.raises(TypeError, match="invalid combination"):
        getattr(tc, name)(x, 0, unbiased, True, True)


def test_allclose_isclose_and_equal(device: str) -> None:
    a = tc.tensor([1.0, 2.0, float("inf"), float("nan")], device=device)
    b = tc.tensor([1.0 + 1e-9, 2.1, float("inf"), float("nan")], device=device)
    assert tc.isclose(a, b).tolist() == [True, False, True, False]
    assert a.isclose(b, equal_nan=True, rtol=0.1).tolist() == [True, True, True, True]
    assert not tc.allclose(a, b)
    assert a.allclose(b, rtol=0.1, equal_nan=True) is True
    ints = tc.tensor([1, 5], device=device)
    assert tc.isclose(ints, tc.tensor([2, 9], device=device), atol=1).tolist() == [True, False]
    with pytest.raises(RuntimeError, match="Float did not match Double"):
        tc.isclose(a, a.double())
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero"):
        tc.allclose(a, a, rtol=-1)
    with pytest.raises(RuntimeError, match="size of tensor"):
        tc.allclose(a, a[:2])
    with pytest.raises(TypeError, match="must be Tensor"):
        tc.allclose(a, 1.0)  # type: ignore[arg-type]
    assert tc.equal(ints, tc.tensor([1.0, 5.0], device=device)) is True
    assert not tc.equal(ints, ints.reshape(2, 1))
    assert not ints.equal(tc.tensor([1, 4], device=device))


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-v))


@pytest.mark.parametrize(
    ("cell", "layer", "kw"),
    [
        ("RNNCell", "RNN", {}),
        ("RNNCell", "RNN", {"nonlinearity": "relu", "bias": False}),
        ("LSTMCell", "LSTM", {}),
        ("GRUCell", "GRU", {"bias": False}),
    ],
)
def test_a_recurrent_cell_is_one_step_of_its_layer(
    device: str, cell: str, layer: str, kw: dict[str, object]
) -> None:
    # The char-RNN tutorials' loop: ``for i in range(len(x)): hx, cx = cell(x[i], (hx, cx))``
    tc.manual_seed(0)
    c = getattr(nn, cell)(3, 4, device=device, dtype=tc.float64, **kw)
    full = getattr(nn, layer)(3, 4, device=device, dtype=tc.float64, **kw)
    assert [n.removesuffix("_l0") for n, _ in full.named_parameters()] == [
        n for n, _ in c.named_parameters()
    ]
    with tc.no_grad():
        for (_, p), (_, q) in zip(c.named_parameters(), full.named_parameters(), strict=True):
            q.copy_(p)
    x = tc.randn(5, 2, 3, device=device, dtype=tc.float64)
    h0 = tc.randn(2, 4, device=device, dtype=tc.float64)
    state: object = (h0, h0 * 0.5) if cell == "LSTMCell" else h0
    outs = []
    for t in range(5):
        state = c(x[t], state)
        outs.append(state[0] if isinstance(state, tuple) else state)
    want, _ = full(x, (h0[None], (h0 * 0.5)[None]) if cell == "LSTMCell" else h0[None])
    assert_close(tc.stack(outs), want)
    unbatched = c(x[0, 0])
    first = unbatched[0] if isinstance(unbatched, tuple) else unbatched
    batched = c(x[0, :1])
    assert_close(first, (batched[0] if isinstance(batched, tuple) else batched)[0])
    assert tuple(first.shape) == (4,)


def test_lstm_cell_matches_numpy_and_gradcheck(device: str) -> None:
    tc.manual_seed(1)
    c = nn.LSTMCell(3, 2, device=device, dtype=tc.float64)
    x = tc.randn(4, 3, device=device, dtype=tc.float64, requires_grad=True)
    h = tc.randn(4, 2, device=device, dtype=tc.float64, requires_grad=True)
    cx = tc.randn(4, 2, device=device, dtype=tc.float64)
    w_ih, w_hh, b_ih, b_hh = (p.detach().cpu().numpy() for p in c.parameters())
    xn, hn, cn = (t.detach().cpu().numpy() for t in (x, h, cx))
    i, f, g, o = np.split(xn @ w_ih.T + b_ih + hn @ w_hh.T + b_hh, 4, axis=1)
    c_new = _sigmoid(f) * cn + _sigmoid(i) * np.tanh(g)
    h1, c1 = c(x, (h, cx))
    assert_close(c1, c_new)
    assert_close(h1, _sigmoid(o) * np.tanh(c_new))
    assert tc.autograd.gradcheck(lambda a, b: c(a, (b, cx))[0], (x, h))
    assert repr(nn.RNNCell(3, 4, bias=False, nonlinearity="relu")) == (
        "RNNCell(3, 4, bias=False, nonlinearity=relu)"
    )
    with pytest.raises(ValueError, match="Unknown nonlinearity"):
        nn.RNNCell(3, 4, nonlinearity="gelu")
    with pytest.raises(ValueError, match="Expected input to be 1D or 2D"):
        c(tc.ones(1, 1, 3, device=device, dtype=tc.float64))


def test_module_list_prints_repeated_blocks_once() -> None:
    # print(model) of a transformer: its identical blocks print as one line.
    blocks = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2)])
    assert repr(blocks) == (
        "ModuleList(\n"
        "  (0-1): 2 x Linear(in_features=2, out_features=2, bias=True)\n"
        "  (2): ReLU()\n"
        "  (3): Linear(in_features=2, out_features=2, bias=True)\n"
        ")"
    )
    assert repr(nn.ModuleList([nn.ReLU()])) == "ModuleList(\n  (0): ReLU()\n)"
    assert repr(nn.ModuleList()) == "ModuleList()"


def test_module_level_constants() -> None:
    assert (tc.pi, tc.e, tc.inf) == (np.pi, np.e, np.inf)
    assert np.isnan(tc.nan) and tc.newaxis is None
    mask = tc.ones(2, 2).triu(1).bool()
    assert tc.zeros(2, 2).masked_fill(mask, -tc.inf).tolist() == [[0.0, -np.inf], [0.0, 0.0]]


class _LinearFunction(tc.autograd.Function):
    # The "Extending PyTorch" tutorial's LinearFunction: forward without ctx, setup_context.
    @staticmethod
    def forward(x: Any, w: Any) -> Any:
        return x.mm(w.t())

    @staticmethod
    def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        x, w = ctx.saved_tensors
        return g.mm(w) if ctx.needs_input_grad[0] else None, g.t().mm(x)


class _Cube(tc.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, g: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 3 * x**2 * g


def test_function_with_setup_context(device: str) -> None:
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(4, 3) / 10
    x = tc.tensor(a, device=device)
    w = tc.tensor(b, device=device, requires_grad=True)
    out = _LinearFunction.apply(x, w)
    assert_close(out, a @ b.T)
    out.sum().backward()
    assert_close(w.grad, np.ones((2, 4)).T @ a)


def test_once_differentiable_backward_refuses_a_double_backward(device: str) -> None:
    x = tc.tensor([1.0, 2.0], device=device, requires_grad=True)
    _Cube.apply(x).sum().backward()
    assert_close(x.grad, np.array([3.0, 12.0], dtype=np.float32))
    # Nothing that backward reads requires grad: its result is a constant, as in PyTorch.
    (g,) = tc.autograd.grad(_Cube.apply(x).sum(), x, create_graph=True)
    assert not g.requires_grad
    go = tc.ones(2, device=device, requires_grad=True)
    (g,) = tc.autograd.grad(_Cube.apply(x), x, go, create_graph=True)
    assert_close(g, np.array([3.0, 12.0], dtype=np.float32))
    assert g.requires_grad
    with pytest.raises(RuntimeError, match="marked with @once_differentiable"):
        g.sum().backward()


def test_autograd_grad_takes_pytorchs_only_inputs_and_is_grads_batched(device: str) -> None:
    # WGAN-GP's gradient penalty passes only_inputs=True; False is deprecated and warns.
    a = np.array([1.0, 2.0, 3.0])
    x = tc.tensor(a, device=device, requires_grad=True)
    (g,) = tc.autograd.grad((x**2).sum(), x, only_inputs=True)
    assert_close(g, 2 * a)
    with pytest.warns(FutureWarning, match="only_inputs argument is deprecated"):
        tc.autograd.grad((x**2).sum(), x, only_inputs=False)
    # One vector-Jacobian product per row of the batched grad_outputs: here the Jacobian.
    y = x**2
    (jac,) = tc.autograd.grad(
        y, x, tc.eye(3, device=device, dtype=tc.float64), is_grads_batched=True
    )
    assert_close(jac, np.diag(2 * a))
    with pytest.raises(RuntimeError, match="is_grads_batched=True"):
        tc.autograd.grad(y, x, tc.ones(2, 2, device=device), is_grads_batched=True)


def test_gradgradcheck_draws_its_grad_outputs_as_pytorch(device: str) -> None:
    # PyTorch draws them with make_tensor(low=-1, high=1): one uniform_ per output, so a
    # seeded program's next draw is the same as after the same uniform_.
    x = tc.tensor([0.5, 1.5], dtype=tc.float64, device=device, requires_grad=True)
    tc.manual_seed(0)
    assert tc.autograd.gradgradcheck(lambda t: t * t.exp(), (x,))
    after = tc.rand(3)
    tc.manual_seed(0)
    tc.empty(2, dtype=tc.float64, device=device).uniform_(-1, 1)
    assert_close(after, tc.rand(3))


def test_batch_norm_module_called_twice_before_one_backward(device: str) -> None:
    # pytorch/examples' siamese network runs both images through one BatchNorm2d in
    # training mode, then calls backward once: the second call's update of the running
    # statistics must not invalidate the first call's graph (PyTorch bumps no version).
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(4, 3, 2, 2)), rng.normal(size=(4, 3, 2, 2))

    def grads(together: bool) -> Any:
        bn = nn.BatchNorm2d(3).to(device).double()
        xa = tc.tensor(a, device=device, requires_grad=True)
        xb = tc.tensor(b, device=device, requires_grad=True)
        version = bn.running_mean._version
        ya = bn(xa)
        yb = bn(xb)
        assert bn.running_mean._version == version
        if together:
            (ya.sum() + (yb * yb).sum()).backward()
        else:
            ya.sum().backward()
            (yb * yb).sum().backward()
        return xa.grad, xb.grad, bn.weight.grad

    for got, want in zip(grads(True), grads(False), strict=True):
        assert_close(got, want)
    # An in-place change the user makes is still caught where backward reads the statistics.
    bn = nn.BatchNorm2d(3).to(device).double().eval()
    y = bn(tc.tensor(a, device=device, requires_grad=True))
    bn.running_var.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_rotary_embedding_through_complex_views(device: str) -> None:
    # LLaMA's rotary embedding: polar, view_as_complex, multiply, view_as_real, flatten.
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3, 4)).astype(np.float32)
    theta = rng.uniform(-3, 3, size=(3, 2)).astype(np.float32)
    xt = tc.tensor(x, device=device, requires_grad=True)
    freqs = tc.polar(tc.ones(3, 2, device=device), tc.tensor(theta, device=device))
    assert freqs.dtype == tc.complex64
    assert_close(freqs, np.exp(1j * theta).astype(np.complex64))
    xc = tc.view_as_complex(xt.reshape(2, 3, 2, 2))
    assert xc.shape == (2, 3, 2) and xc._base is not None
    out = tc.view_as_real(xc * freqs).flatten(2)
    zc = x.reshape(2, 3, 2, 2)[..., 0] + 1j * x.reshape(2, 3, 2, 2)[..., 1]
    rot = zc * np.exp(1j * theta)
    assert_close(out, np.stack([rot.real, rot.imag], -1).reshape(2, 3, 4))
    out.sum().backward()
    # d sum(re + im of z e^{i theta}) / d(re, im): (cos - sin, sin + cos)
    c, s = np.cos(theta), np.sin(theta)
    want = np.stack([c + s, c - s], -1)[None].repeat(2, 0).reshape(2, 3, 4)
    assert_close(xt.grad, want.astype(np.float32))


def test_complex_views_and_constructors(device: str) -> None:
    z = np.array([[1 + 2j, -3 + 0.5j], [0j, 4 - 1j]])
    zt = tc.tensor(z, device=device)
    r = tc.view_as_real(zt)
    assert r.dtype == tc.float64 and r.shape == (2, 2, 2)
    assert_close(r, np.stack([z.real, z.imag], -1))
    r[0, 0, 1] = 7.0  # a view: writes reach the complex tensor
    assert complex(zt[0, 0].item()) == 1 + 7j
    back = tc.view_as_complex(r)
    assert_close(back, zt)
    a, b = np.array([1.0, -np.inf, 2.0]), np.array([[np.inf], [0.5]])
    got = tc.complex(tc.tensor(a, device=device), tc.tensor(b, device=device))
    want = np.empty((2, 3), dtype=np.complex128)
    want.real, want.imag = np.broadcast_to(a, (2, 3)), np.broadcast_to(b, (2, 3))
    assert_close(got, want)  # exact where a part is infinite
    assert_close(tc.angle(tc.tensor(z, device=device)), np.angle(z))
    real = tc.tensor([-2.0, 0.0, 3.0, float("nan")], device=device)
    assert_close(tc.angle(real), np.array([np.pi, 0, 0, np.nan], dtype=np.float32))
    assert tc.angle(tc.tensor([-1, 2], device=device)).dtype == tc.float32
    with pytest.raises(RuntimeError, match="view_as_real is only supported for complex tensors"):
        tc.view_as_real(real)
    with pytest.raises(RuntimeError, match="last dimension of size 2"):
        tc.view_as_complex(tc.ones(2, 3, device=device))
    with pytest.raises(RuntimeError, match="last dimension with stride 1"):
        tc.view_as_complex(tc.ones(2, 2, device=device).t())
    with pytest.raises(RuntimeError, match="storage_offset divisible by 2"):
        tc.view_as_complex(tc.ones(6, device=device)[1:5].view(2, 2))
    for d in (tc.int64, tc.complex64):  # PyTorch's RuntimeError, not a TypeError
        with pytest.raises(RuntimeError, match="only supported for half, float and double"):
            tc.view_as_complex(tc.ones(2, 2, dtype=d, device=device))
    with pytest.raises(RuntimeError, match="Half, Float or Double tensors but got Long and Long"):
        tc.complex(tc.ones(2, dtype=tc.int64), tc.ones(2, dtype=tc.int64))
    with pytest.raises(RuntimeError, match="scalar type Float but got scalar type Double"):
        tc.polar(tc.ones(2, device=device), tc.ones(2, dtype=tc.float64, device=device))


def test_angle_gradient_is_zero_at_zero_and_for_reals(device: str) -> None:
    z = tc.tensor([0j, 1 + 1j], device=device, requires_grad=True)
    z.angle().sum().backward()
    assert_close(z.grad, np.array([0, -0.5 + 0.5j], dtype=np.complex64))
    x = tc.tensor([-1.0, 2.0], device=device, requires_grad=True)
    x.angle().sum().backward()
    assert_close(x.grad, np.zeros(2, dtype=np.float32))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_matches_a_loop(device: str, reduce: str, include_self: bool) -> None:
    # Graph networks pool messages per node: x.scatter_reduce(0, index, src, "amax").
    rng = np.random.default_rng(1)
    base = rng.normal(size=(4, 3))
    src = rng.normal(size=(5, 3))
    index = np.array([[0, 1, 0], [3, 1, 0], [0, 0, 2], [3, 1, 0], [1, 2, 2]])
    want = base.copy()
    groups: dict[tuple[int, int], list[float]] = {}
    for (i, j), k in np.ndenumerate(index):
        groups.setdefault((k, j), [base[k, j]] if include_self else []).append(src[i, j])
    fold = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}
    for pos, vals in groups.items():
        want[pos] = fold[reduce](vals)
    x, s = tc.tensor(base, device=device), tc.tensor(src, device=device)
    ix = tc.tensor(index, device=device)
    assert_close(x.scatter_reduce(0, ix, s, reduce, include_self=include_self), want)
    x.scatter_reduce_(0, ix, s, reduce, include_self=include_self)
    assert_close(x, want)
    assert tc.autograd.gradcheck(
        lambda a, b: a.scatter_reduce(0, ix, b, reduce, include_self=include_self),
        (
            tc.tensor(base, device=device, requires_grad=True),
            tc.tensor(src, device=device, requires_grad=True),
        ),
    )


@pytest.mark.parametrize("reduce", ["mean", "amax", "amin"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_scatter_reduce_of_16_bit_floats(device: str, reduce: str, dtype: str) -> None:
    # bfloat16 is floating although NumPy's kind of it is "V": mean divides (no floor),
    # and the positions written without self start from +-inf.
    if why := dtype_unsupported(device, getattr(tc, dtype)):
        pytest.skip(why)
    base = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    src = np.array([[0.5, -1.0], [2.5, 3.0]])
    index = np.array([[0, 2], [0, 2]])
    fold = {"mean": np.mean, "amax": np.max, "amin": np.min}[reduce]
    want = base.copy()
    for j in range(2):
        k = index[0, j]
        want[k, j] = fold(src[:, j])
    x = tc.tensor(base, dtype=getattr(tc, dtype), device=device)
    s = tc.tensor(src, dtype=getattr(tc, dtype), device=device)
    got = x.scatter_reduce(0, tc.tensor(index, device=device), s, reduce, include_self=False)
    assert got.dtype is getattr(tc, dtype)
    assert_close(got.float(), want.astype(np.float32))


def test_scatter_reduce_mean_of_integers_and_errors(device: str) -> None:
    x = tc.tensor([-7, 2], device=device)
    got = x.scatter_reduce(
        0, tc.tensor([0, 0], device=device), tc.tensor([4, -6], device=device), "mean"
    )
    assert got.tolist() == [-3, 2]  # floor(-9 / 3)
    with pytest.raises(RuntimeError, match="must be either sum, prod, mean, amax or amin, got foo"):
        x.scatter_reduce(0, tc.tensor([0], device=device), x, "foo")
    # PyTorch's legacy names of amax and amin
    got = x.scatter_reduce(0, tc.tensor([0], device=device), tc.tensor([9], device=device), "max")
    assert got.tolist() == [9, 2]


def test_scatter_with_pytorchs_deprecated_reduce(device: str) -> None:
    # Older code accumulates with x.scatter_(dim, index, src, reduce="add"|"multiply").
    index = np.array([[0, 1, 0], [2, 1, 0]])
    src = np.array([[2.0, 3.0, 4.0], [5.0, 6.0, 7.0]])
    ix, s = tc.tensor(index, device=device), tc.tensor(src, device=device)
    for reduce, ufunc in (("add", np.add), ("multiply", np.multiply)):
        want = np.full((3, 3), 1.5)
        ufunc.at(want, (index, np.arange(3)), src)
        x = tc.full((3, 3), 1.5, dtype=tc.float64, device=device)
        with pytest.warns(UserWarning, match="reduce argument of torch.scatter with Tensor src"):
            assert x.scatter_(0, ix, s, reduce=reduce) is x
        assert_close(x, want)
        with pytest.warns(UserWarning, match="deprecated"):
            assert_close(tc.scatter(x.fill_(1.5), 0, ix, s, reduce=reduce), want)
        # A number: no warning; it is taken in self's dtype.
        want = np.ones((3, 3), dtype=np.int64)
        ufunc.at(want, (index, np.arange(3)), 3)
        got = tc.ones(3, 3, dtype=tc.int64, device=device).scatter_(0, ix, 3, reduce=reduce)
        assert_close(got, want)
    with pytest.raises(RuntimeError, match="reduce argument must be either add or multiply"):
        tc.ones(3, 3, dtype=tc.float64, device=device).scatter_(0, ix, s, reduce="mean")
    # Without reduce, scatter is unchanged and differentiable; with it, as in PyTorch, not.
    x = tc.ones(3, 3, dtype=tc.float64, device=device, requires_grad=True)
    with pytest.warns(UserWarning, match="deprecated"):
        y = x.scatter(0, ix, s, reduce="add")
    with pytest.raises(RuntimeError, match="derivative for aten::scatter is not implemented"):
        y.sum().backward()
    x.scatter(0, ix, s).sum().backward()
    assert x.grad is not None


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_matches_a_loop(device: str, reduce: str, include_self: bool) -> None:
    rng = np.random.default_rng(2)
    base, src = rng.normal(size=(3, 4)), rng.normal(size=(3, 5))
    index = np.array([2, 0, 2, 1, 2])  # along dim 1: column 3 receives nothing
    fold = {"prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}[reduce]
    want = base.copy()
    for k in set(index.tolist()):
        parts = [src[:, i] for i in range(5) if index[i] == k]
        stack = np.stack(([base[:, k]] if include_self else []) + parts)
        want[:, k] = fold(stack, axis=0)
    x, s = tc.tensor(base, device=device), tc.tensor(src, device=device)
    ix = tc.tensor(index, device=device)
    assert_close(x.index_reduce(1, ix, s, reduce, include_self=include_self), want)
    assert_close(tc.index_reduce(x, -1, ix, s, reduce, include_self=include_self), want)
    assert x.index_reduce_(1, ix, s, reduce, include_self=include_self) is x
    assert_close(x, want)
    assert tc.autograd.gradcheck(
        lambda a, b: a.index_reduce(1, ix, b, reduce, include_self=include_self),
        (
            tc.tensor(base, device=device, requires_grad=True),
            tc.tensor(src, device=device, requires_grad=True),
        ),
    )


def test_index_reduce_integers_and_errors(device: str) -> None:
    x = tc.tensor([-7, 2, 5], device=device)
    got = x.index_reduce(
        0, tc.tensor([0, 0], device=device), tc.tensor([4, -6], device=device), "mean"
    )
    assert got.tolist() == [-3, 2, 5]  # floor(-9 / 3)
    y, i = tc.ones(3, 2, device=device), tc.tensor([0, 2, 0, 1], device=device)
    s = tc.ones(4, 2, device=device)
    cases = [
        (RuntimeError, "Expected reduce to be one of prod, mean, amax or amin but got sum",
         (0, i, s, "sum")),
        (IndexError, "Index is supposed to be a vector, but got dim: 2",
         (0, i.view(2, 2), s, "prod")),
        (RuntimeError, "Expected dtype int32/int64 for index but got: Float",
         (0, i.float(), s, "prod")),
        (RuntimeError, r"self \(Float\) and source \(Double\) must have the same scalar type",
         (0, i, s.double(), "prod")),
        (RuntimeError, r"Number of indices \(3\) should be equal to source.size\(dim\): \(4\)",
         (0, i[:3], s, "prod")),
        (RuntimeError, "source tensor shape must match self tensor shape",
         (0, i, tc.ones(4, 3, device=device), "prod")),
        (IndexError, "index out of range in self", (0, i + 5, s, "prod")),
        (IndexError, "index out of range in self", (0, -i - 1, s, "prod")),
    ]  # fmt: skip
    for exc, message, args in cases:
        with pytest.raises(exc, match=message):
            y.index_reduce(*args)
    # 0-d self and source
    got = tc.tensor(1.0, device=device).index_reduce(
        0, tc.tensor([0], device=device), tc.tensor(5.0, device=device), "amax"
    )
    assert got.item() == 5.0 and got.shape == ()


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (7, 3), (3, 3, 3)])
@pytest.mark.parametrize("wrap", [False, True])
def test_fill_diagonal_matches_numpy(device: str, shape: tuple[int, ...], wrap: bool) -> None:
    # SimCLR masks the self-similarities: sim.fill_diagonal_(-inf).
    a = np.arange(float(np.prod(shape))).reshape(shape)
    x = tc.tensor(a, device=device)
    assert x.fill_diagonal_(-1.0, wrap=wrap) is x
    np.fill_diagonal(a, -1.0, wrap=wrap)
    assert_close(x, a)


def test_fill_diagonal_in_a_graph_and_errors(device: str) -> None:
    w = tc.ones(3, 3, device=device, requires_grad=True)
    sim = w * 2
    sim.fill_diagonal_(float("-inf"))
    F_ = tc.nn.functional
    F_.cross_entropy(sim, tc.tensor([1, 2, 0], device=device)).backward()
    assert_close(w.grad.diagonal(), np.zeros(3, dtype=np.float32))
    with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
        tc.ones(2, 3, 4, device=device).fill_diagonal_(0)
    with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
        tc.ones(2, device=device).fill_diagonal_(0)


def test_index_reduce_on_a_device_without_data_gives_the_shape() -> None:
    # (the index range check reads values; a meta tensor has none)
    x = tc.zeros(3, 2, device="meta")
    i, s = tc.tensor([0, 2], device="meta"), tc.ones(2, 2, device="meta")
    for reduce in ("prod", "mean", "amax", "amin"):
        r = x.index_reduce(0, i, s, reduce)
        assert r.device.type == "meta" and r.shape == (3, 2)


def test_pytorch_module_paths_programs_import() -> None:
    # Modules PyTorch programs import by path, each where PyTorch has it.
    import importlib

    from tensorcore.autograd.variable import Variable
    from tensorcore.nn.utils.spectral_norm import SpectralNorm
    from tensorcore.optim.adamw import AdamW
    from tensorcore.optim.asgd import ASGD
    from tensorcore.optim.radam import RAdam

    from tensorcore.nn.attention import SDPBackend, sdpa_kernel
    from tensorcore.nn.modules.pooling import _AvgPoolNd, _MaxPoolNd
    from tensorcore.types import Number

    cudnn = importlib.import_module("tensorcore.backends.cudnn")
    cudnn.benchmark = True
    assert (
        not cudnn.is_available()
        and not importlib.import_module("tensorcore.backends.mps").is_available()
    )
    assert AdamW is tc.optim.AdamW and RAdam is tc.optim.RAdam and ASGD is tc.optim.ASGD
    assert importlib.import_module("tensorcore.optim.adamax").Adamax is tc.optim.Adamax
    assert Variable is tc.autograd.Variable and isinstance(1.5, Number)
    assert isinstance(tc.nn.MaxPool2d(2), _MaxPoolNd) and isinstance(tc.nn.AvgPool1d(2), _AvgPoolNd)
    assert not isinstance(tc.nn.MaxPool2d(2), _AvgPoolNd)
    assert callable(tc.nn.utils.spectral_norm) and SpectralNorm.__name__ == "SpectralNorm"
    q = tc.ones(1, 2, 4)
    with sdpa_kernel([SDPBackend.MATH, SDPBackend.FLASH_ATTENTION]):
        assert tc.nn.functional.scaled_dot_product_attention(q, q, q).shape == (1, 2, 4)
    with pytest.raises(ValueError, match="Expected a SDPBackend"), sdpa_kernel("math"):
        pass
