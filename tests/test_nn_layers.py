"""Layers and functional operations of ``tensorcore.nn`` against NumPy references, on every
device; gradients by finite differences (``gradcheck``) in float64."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.testing import assert_close, dtype_unsupported

F = nn.functional
F64 = tc.float64
RNG = np.random.default_rng(7)


def t(a: Any, device: str, grad: bool = False) -> tc.Tensor:
    return tc.tensor(np.asarray(a), device=device, requires_grad=grad)


def _np(x: tc.Tensor) -> Any:
    return x.detach().cpu().numpy()


def _sigmoid(x: Any) -> Any:
    return 1 / (1 + np.exp(-x))


def _softmax(x: Any, axis: int) -> Any:
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _erf(x: Any) -> Any:
    return np.vectorize(math.erf)(x)


ACTIVATIONS = {
    "relu": (F.relu, lambda x: np.maximum(x, 0)),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    "elu": (F.elu, lambda x: np.where(x > 0, x, np.expm1(x))),
    "gelu": (F.gelu, lambda x: x * 0.5 * (1 + _erf(x / math.sqrt(2)))),
    "gelu_tanh": (
        lambda x: F.gelu(x, approximate="tanh"),
        lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    ),
    "silu": (F.silu, lambda x: x * _sigmoid(x)),
    "softplus": (F.softplus, lambda x: np.log1p(np.exp(x))),
    "logsigmoid": (F.logsigmoid, lambda x: np.log(_sigmoid(x))),
    "mish": (F.mish, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    "hardswish": (F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "softsign": (F.softsign, lambda x: x / (1 + np.abs(x))),
    "relu6": (F.relu6, lambda x: np.clip(x, 0, 6)),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_values_and_gradients(device: str, name: str) -> None:
    fn, ref = ACTIVATIONS[name]
    x = RNG.uniform(-4, 4, size=(3, 5))
    x[np.abs(x) < 0.05] += 0.1  # away from kinks
    assert_close(fn(t(x, device)), ref(x))
    assert tc.autograd.gradcheck(fn, (t(x, device, grad=True),))


def test_activation_modules_match_functions(device: str) -> None:
    x = t(RNG.normal(size=(2, 4)), device)
    for mod, fn in [
        (nn.ReLU(), F.relu),
        (nn.GELU(), F.gelu),
        (nn.SiLU(), F.silu),
        (nn.Tanh(), F.tanh),
        (nn.Sigmoid(), F.sigmoid),
        (nn.ELU(0.5), lambda v: F.elu(v, 0.5)),
        (nn.LeakyReLU(0.1), lambda v: F.leaky_relu(v, 0.1)),
        (nn.Softmax(dim=1), lambda v: F.softmax(v, 1)),
        (nn.LogSoftmax(dim=0), lambda v: F.log_softmax(v, 0)),
    ]:
        assert_close(mod(x), fn(x))
    y = x.clone()
    assert nn.ReLU(inplace=True)(y) is y and float(y.min()) >= 0


# ------------------------------------------------------------------ losses
def _ce_ref(z: Any, tgt: Any, w: Any, ignore: int, red: str, eps: float) -> Any:
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    c = z.shape[1]
    w = np.ones(c) if w is None else w
    keep = tgt != ignore
    safe = np.where(keep, tgt, 0)
    wt = w[safe] * keep
    nll = -logp[np.arange(len(tgt)), safe] * wt
    smooth = -(logp * w).sum(1) * keep
    loss = nll * (1 - eps) + smooth * eps / c
    if red == "none":
        return loss
    if red == "sum":
        return loss.sum()
    return (nll.sum() * (1 - eps) + smooth.sum() * eps / c) / wt.sum()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(
    "opts",
    [
        {},
        {"weight": True},
        {"ignore_index": 1},
        {"label_smoothing": 0.2},
        {"weight": True, "ignore_index": 3, "label_smoothing": 0.1},
    ],
)
def test_cross_entropy_options(device: str, reduction: str, opts: dict[str, Any]) -> None:
    z = RNG.normal(size=(6, 4))
    tgt = np.array([0, 3, 1, 1, 2, 3])
    w = RNG.uniform(0.5, 2, size=4) if opts.get("weight") else None
    ignore = opts.get("ignore_index", -100)
    eps = opts.get("label_smoothing", 0.0)
    got = F.cross_entropy(
        t(z, device),
        t(tgt, device),
        None if w is None else t(w, device),
        ignore_index=ignore,
        reduction=reduction,
        label_smoothing=eps,
    )
    assert_close(got, _ce_ref(z, tgt, w, ignore, reduction, eps))
    mod = nn.CrossEntropyLoss(
        None if w is None else t(w, device),
        ignore_index=ignore,
        reduction=reduction,
        label_smoothing=eps,
    )
    assert_close(mod(t(z, device), t(tgt, device)), got)
    zz = t(z, device, grad=True)
    fn = lambda v: F.cross_entropy(  # noqa: E731
        v,
        t(tgt, device),
        None if w is None else t(w, device),
        ignore_index=ignore,
        reduction=reduction,
        label_smoothing=eps,
    )
    assert tc.autograd.gradcheck(fn, (zz,))


def test_cross_entropy_probability_targets_and_spatial(device: str) -> None:
    z = RNG.normal(size=(3, 4))
    p = RNG.uniform(size=(3, 4))
    p /= p.sum(1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    assert_close(F.cross_entropy(t(z, device), t(p, device)), -(logp * p).sum(1).mean())
    z4 = RNG.normal(size=(2, 3, 4, 5))
    tg = RNG.integers(0, 3, size=(2, 4, 5))
    flat = z4.transpose(0, 2, 3, 1).reshape(-1, 3)
    want = _ce_ref(flat, tg.reshape(-1), None, -100, "none", 0.0).reshape(2, 4, 5)
    assert_close(F.cross_entropy(t(z4, device), t(tg, device), reduction="none"), want)
    with pytest.raises(ValueError, match="batch_size"):
        F.cross_entropy(t(z, device), t(np.array([0, 1]), device))


def test_regression_and_binary_losses(device: str) -> None:
    a, b = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))
    d = a - b
    p = RNG.uniform(0.05, 0.95, size=(4, 3))
    y = (RNG.uniform(size=(4, 3)) > 0.5).astype(float)
    pw = np.array([1.0, 2.0, 0.5])
    cases = [
        (F.mse_loss(t(a, device), t(b, device)), (d**2).mean()),
        (F.l1_loss(t(a, device), t(b, device), reduction="sum"), np.abs(d).sum()),
        (
            F.smooth_l1_loss(t(a, device), t(b, device), beta=0.5),
            np.where(np.abs(d) < 0.5, d**2 / 1.0, np.abs(d) - 0.25).mean(),
        ),
        (
            F.huber_loss(t(a, device), t(b, device), delta=0.7),
            np.where(np.abs(d) <= 0.7, 0.5 * d**2, 0.7 * (np.abs(d) - 0.35)).mean(),
        ),
        (
            F.binary_cross_entropy(t(p, device), t(y, device)),
            -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean(),
        ),
        (
            F.binary_cross_entropy_with_logits(
                t(a, device), t(y, device), pos_weight=t(pw, device)
            ),
            -(pw * y * np.log(_sigmoid(a)) + (1 - y) * np.log(1 - _sigmoid(a))).mean(),
        ),
        (
            F.kl_div(t(np.log(p), device), t(y * 0.5 + 0.25, device), reduction="batchmean"),
            ((y * 0.5 + 0.25) * (np.log(y * 0.5 + 0.25) - np.log(p))).sum() / 4,
        ),
        (nn.MSELoss(reduction="none")(t(a, device), t(b, device)), d**2),
        (
            nn.BCEWithLogitsLoss()(t(a, device), t(y, device)),
            -(y * np.log(_sigmoid(a)) + (1 - y) * np.log(1 - _sigmoid(a))).mean(),
        ),
    ]
    for got, want in cases:
        assert_close(got, want)
    # Saturated probabilities give finite losses (logs clamped at -100), as PyTorch.
    assert math.isfinite(
        F.binary_cross_entropy(t([0.0, 1.0], device), t([1.0, 0.0], device)).item()
    )
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.mse_loss(t(a, device), t(b, device), reduction="avg")
    with pytest.raises(
        RuntimeError, match=r"size of tensor a \(4\) must match the size of tensor b \(2\)"
    ):
        F.mse_loss(t(a, device), t(b[:2], device))


def test_legacy_size_average_and_reduce(device: str) -> None:
    a, b = t(RNG.normal(size=4), device), t(RNG.normal(size=4), device)
    # PyTorch warns, naming the reduction to use instead (functions and modules alike).
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        got = F.mse_loss(a, b, size_average=False)
    assert_close(got, F.mse_loss(a, b, reduction="sum"))
    with pytest.warns(UserWarning, match="please use reduction='none' instead"):
        got = F.l1_loss(a, b, reduce=False)
    assert_close(got, F.l1_loss(a, b, reduction="none"))
    with pytest.warns(UserWarning, match="please use reduction='mean' instead"):
        assert nn.MSELoss(size_average=True).reduction == "mean"


def test_kl_div_pytorch_form_and_warnings(device: str) -> None:
    # xlogy(target, target) - target * input: 0 where target is 0, nan where it is negative,
    # and a 'mean' reduction warns that it is not the KL divergence (PyTorch's message).
    inp = t([-1.0, -2.0, -3.0], device, grad=True)
    tgt = t([0.0, 0.5, -0.5], device)
    loss = F.kl_div(inp, tgt, reduction="none")
    assert type(loss.grad_fn).__name__ == "SubBackward0"
    got = _np(loss)
    assert got[0] == 0.0 and np.isnan(got[2])
    assert math.isclose(got[1], 0.5 * (np.log(0.5) + 2.0), rel_tol=1e-12)
    loss[:2].sum().backward()
    assert_close(inp.grad, np.array([0.0, -0.5, 0.0]))
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        F.kl_div(inp, tgt, reduction="mean")
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        nn.KLDivLoss()(inp, tgt)
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        assert_close(
            F.kl_div(inp, tgt, size_average=False),
            F.kl_div(inp, tgt, reduction="sum"),
            equal_nan=True,
        )


# ------------------------------------------------------------------ layers
def test_linear_matches_numpy_and_default_init(device: str) -> None:
    lin = nn.Linear(5, 3, device=device)
    bound = 1 / math.sqrt(5)
    assert float(lin.weight.abs().max()) <= bound and float(lin.bias.abs().max()) <= bound
    x = RNG.normal(size=(4, 5)).astype(np.float32)
    assert_close(lin(t(x, device)), x @ _np(lin.weight).T + _np(lin.bias))
    assert lin(t(x[0], device)).shape == (3,)
    lin64 = nn.Linear(3, 2, device=device, dtype=F64)
    assert tc.autograd.gradcheck(
        lambda v: lin64(v).tanh(), (t(RNG.normal(size=(2, 3)), device, True),)
    )


def test_batch_norm_training_eval_and_running_stats(device: str) -> None:
    bn = nn.BatchNorm2d(3, momentum=0.2, device=device, dtype=F64)
    x = RNG.normal(2.0, 3.0, size=(4, 3, 5, 5))
    y = bn(t(x, device))
    mean = x.mean((0, 2, 3))
    var = x.var((0, 2, 3))
    want = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    assert_close(y, want)
    n = 4 * 25
    assert_close(bn.running_mean, 0.2 * mean)
    assert_close(bn.running_var, 0.8 + 0.2 * var * n / (n - 1))
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    rm, rv = _np(bn.running_mean), _np(bn.running_var)
    assert_close(
        bn(t(x, device)), (x - rm[None, :, None, None]) / np.sqrt(rv[None, :, None, None] + 1e-5)
    )
    assert bn.num_batches_tracked.item() == 1
    with pytest.raises(ValueError, match="expected 4D input"):
        bn(t(x[0], device))
    bn.train()
    assert tc.autograd.gradcheck(lambda v: bn(v), (t(RNG.normal(size=(3, 3, 2, 2)), device, True),))


def test_batch_norm_state_dict_version_and_num_batches_tracked() -> None:
    """Batch norms write version 2 into a state dict's metadata (PyTorch's: the version that
    added ``num_batches_tracked``); an older or metadata-free state dict without the count
    loads keeping the module's, a version-2 one without it reports the key missing."""
    net = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3), nn.InstanceNorm1d(3))
    sd = net.state_dict()
    assert [sd._metadata[k]["version"] for k in ("", "0", "1", "2")] == [1, 1, 2, 2]
    del sd["1.num_batches_tracked"]
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "1\.num_batches'):
        net.load_state_dict(sd)
    net[1].num_batches_tracked.fill_(7)
    assert net.load_state_dict(dict(sd)).missing_keys == []  # no metadata: an old checkpoint
    sd._metadata["1"]["version"] = 1
    assert net.load_state_dict(sd).missing_keys == []
    assert net[1].num_batches_tracked.item() == 7


def test_layer_and_group_norm(device: str) -> None:
    x = RNG.normal(size=(2, 4, 3))
    ln = nn.LayerNorm(3, device=device, dtype=F64)
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    assert_close(ln(t(x, device)), (x - mu) / np.sqrt(var + 1e-5))
    gn = nn.GroupNorm(2, 4, device=device, dtype=F64)
    g = x.reshape(2, 2, -1)
    want = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)
    assert_close(gn(t(x, device)), want.reshape(x.shape))
    for mod in (ln, gn):
        assert tc.autograd.gradcheck(lambda v, m=mod: m(v), (t(x, device, True),))
    with pytest.raises(RuntimeError, match="normalized_shape"):
        ln(t(RNG.normal(size=(2, 4)), device))


def test_norms_take_float32_parameters_for_16_bit_input(device: str) -> None:
    # PyTorch's mixed-type norms: a model's float32 norm layers receive bfloat16/float16
    # activations under autocast; they compute in float32 and return the input's dtype.
    x = RNG.normal(size=(4, 2, 3))
    low = tc.float16 if dtype_unsupported(device, tc.bfloat16) else tc.bfloat16
    xl = t(x, device).to(low)
    xr = _np(xl.float()).astype(np.float64)  # the input as bfloat16 rounded it
    mu, var = xr.mean(-1, keepdims=True), xr.var(-1, keepdims=True)
    ln_want = (xr - mu) / np.sqrt(var + 1e-5) * 2.0 + 0.5
    mu, var = xr.mean((0, 2), keepdims=True), xr.var((0, 2), keepdims=True)
    bn_want = (xr - mu) / np.sqrt(var + 1e-5)
    g = xr.reshape(4, 1, 6)
    gn_want = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)
    ln = nn.LayerNorm(3, device=device)
    ln.weight.data.fill_(2.0)
    ln.bias.data.fill_(0.5)
    bn, gn = nn.BatchNorm1d(2, device=device), nn.GroupNorm(1, 2, device=device)
    for mod, want in ((ln, ln_want), (bn, bn_want), (gn, gn_want.reshape(x.shape))):
        inp = xl.detach().requires_grad_()
        y = mod(inp)
        assert y.dtype == low
        assert_close(y.double(), want, rtol=0.02, atol=0.02)
        y.float().sum().backward()
        assert inp.grad.dtype == low
        assert mod.weight.grad.dtype == mod.bias.grad.dtype == tc.float32
    assert bn.running_mean.dtype == tc.float32
    assert_close(bn.running_mean.double(), 0.1 * xr.mean((0, 2)), rtol=1e-5, atol=1e-6)
    bn.eval()
    assert bn(xl).dtype == low
    with pytest.raises(RuntimeError, match="expected weight of dtype Float"):
        F.layer_norm(t(x, device).float(), (3,), tc.ones(3, dtype=F64, device=device))


def test_dropout_train_and_eval(device: str) -> None:
    tc.manual_seed(3)
    d = nn.Dropout(0.3)
    x = tc.ones(20000, device=device)
    y = d(x)
    kept = (y != 0).to(tc.float64).mean().item()
    assert abs(kept - 0.7) < 0.02
    assert_close(y[y != 0], tc.full(((y != 0).sum().item(),), 1 / 0.7, device=device))
    assert d.eval()(x) is x
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)


def test_embedding_padding_row_gets_no_gradient(device: str) -> None:
    emb = nn.Embedding(5, 3, padding_idx=1, device=device)
    assert float(emb.weight[1].abs().sum()) == 0
    idx = t(np.array([[0, 1], [1, 4]]), device)
    out = emb(idx)
    assert_close(out, _np(emb.weight)[np.array([[0, 1], [1, 4]])])
    out.sum().backward()
    g = _np(emb.weight.grad)
    assert (g[1] == 0).all() and (g[0] == 1).all() and (g[4] == 1).all() and (g[2] == 0).all()
    pre = nn.Embedding.from_pretrained(t(np.eye(3), device))
    assert not pre.weight.requires_grad


def test_embedding_scale_grad_by_freq_divides_by_each_index_count(device: str) -> None:
    idx = np.array([[1, 2, 1], [0, 1, 3]])
    up = np.arange(12.0).reshape(2, 3, 2)
    emb = nn.Embedding(4, 2, scale_grad_by_freq=True, device=device)
    (emb(t(idx, device)) * t(up, device).float()).sum().backward()
    want = np.zeros((4, 2))
    counts = np.bincount(idx.ravel(), minlength=4)
    for (i, j), k in np.ndenumerate(idx):
        want[k] += up[i, j] / counts[k]
    assert_close(emb.weight.grad, want.astype(np.float32))
    if hasattr(tc, "sparse_coo"):  # the sparse gradient is scaled the same way
        sp = nn.Embedding(4, 2, scale_grad_by_freq=True, sparse=True)
        (sp(t(idx, "cpu")) * t(up, "cpu").float()).sum().backward()
        assert_close(sp.weight.grad.to_dense(), want.astype(np.float32))


def test_lstm_proj_size_projects_the_hidden_state(device: str) -> None:
    lstm = nn.LSTM(4, 6, proj_size=2, device=device, dtype=tc.float64)
    assert [n for n, _ in lstm.named_parameters()] == [
        "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_hr_l0",
    ]  # fmt: skip
    assert tuple(lstm.weight_hh_l0.shape) == (24, 2) and tuple(lstm.weight_hr_l0.shape) == (2, 6)
    x = np.random.default_rng(3).standard_normal((5, 3, 4))
    out, (h, c) = lstm(t(x, device).double())
    w_ih, w_hh, b_ih, b_hh, w_hr = (_np(p) for p in lstm.parameters())
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    hh, cc = np.zeros((3, 2)), np.zeros((3, 6))
    for step in range(5):
        i, f, g, o = np.split(x[step] @ w_ih.T + b_ih + hh @ w_hh.T + b_hh, 4, axis=1)
        cc = sig(f) * cc + sig(i) * np.tanh(g)
        hh = (sig(o) * np.tanh(cc)) @ w_hr.T
        assert_close(out[step], hh)
    assert_close(h[0], hh)
    assert_close(c[0], cc)
    assert repr(lstm) == "LSTM(4, 6, proj_size=2)"
    with pytest.raises(ValueError, match="smaller than hidden_size"):
        nn.LSTM(4, 6, proj_size=6)
    with pytest.raises(ValueError, match="only supported for LSTM"):
        nn.GRU(4, 6, proj_size=2)


def _rnn_ref(mode: str, x: Any, params: list[Any], h0: Any, c0: Any) -> tuple[Any, Any, Any]:
    w_ih, w_hh, b_ih, b_hh = params
    h, c = h0, c0
    outs = []
    for xt in x:
        gi, gh = xt @ w_ih.T + b_ih, h @ w_hh.T + b_hh
        if mode == "LSTM":
            i, f, g, o = np.split(gi + gh, 4, -1)
            c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
            h = _sigmoid(o) * np.tanh(c)
        elif mode == "GRU":
            ir, iz, in_ = np.split(gi, 3, -1)
            hr, hz, hn = np.split(gh, 3, -1)
            r, z = _sigmoid(ir + hr), _sigmoid(iz + hz)
            n = np.tanh(in_ + r * hn)
            h = (1 - z) * n + z * h
        else:
            h = np.tanh(gi + gh)
        outs.append(h)
    return np.stack(outs), h, c


@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
def test_recurrent_layers_match_step_reference(device: str, mode: str) -> None:
    mod = getattr(nn, mode)(3, 4, device=device, dtype=F64)
    x = RNG.normal(size=(5, 2, 3))
    params = [_np(p) for p in mod.all_weights[0]]
    h0 = np.zeros((2, 4))
    out, h, c = _rnn_ref(mode, x, params, h0, h0)
    res = mod(t(x, device))
    assert_close(res[0], out)
    hn = res[1][0] if mode == "LSTM" else res[1]
    assert_close(hn, h[None])
    if mode == "LSTM":
        assert_close(res[1][1], c[None])
    # batch_first and bidirectional, two layers: shapes, and the reverse direction's first
    # output is the reference run over the reversed sequence.
    bi = getattr(nn, mode)(
        3, 4, num_layers=2, bidirectional=True, batch_first=True, device=device, dtype=F64
    )
    xb = RNG.normal(size=(2, 5, 3))
    out_b = bi(t(xb, device))[0]
    assert out_b.shape == (2, 5, 8)
    single = getattr(nn, mode)(3, 4, bidirectional=True, device=device, dtype=F64)
    rev = [_np(p) for p in single.all_weights[1]]
    want_rev = _rnn_ref(mode, x[::-1], rev, h0, h0)[0][::-1]
    assert_close(single(t(x, device))[0][..., 4:], want_rev)
    small = getattr(nn, mode)(2, 2, device=device, dtype=F64)
    assert tc.autograd.gradcheck(
        lambda v: small(v)[0], (t(RNG.normal(size=(3, 1, 2)), device, True),)
    )


def test_multihead_attention_matches_reference(device: str) -> None:
    mha = nn.MultiheadAttention(6, 2, device=device, dtype=F64)
    q, k = RNG.normal(size=(4, 2, 6)), RNG.normal(size=(5, 2, 6))
    mask = np.triu(np.ones((4, 5), bool), 1)
    out, w = mha(t(q, device), t(k, device), t(k, device), attn_mask=t(mask, device))
    wi, bi = _np(mha.in_proj_weight), _np(mha.in_proj_bias)
    wo, bo = _np(mha.out_proj.weight), _np(mha.out_proj.bias)
    qp, kp, vp = q @ wi[:6].T + bi[:6], k @ wi[6:12].T + bi[6:12], k @ wi[12:].T + bi[12:]
    heads, weights = [], []
    for hd in range(2):
        sl = slice(hd * 3, hd * 3 + 3)
        s = np.einsum("lnd,snd->nls", qp[..., sl], kp[..., sl]) / math.sqrt(3)
        s = np.where(mask[None], -np.inf, s)
        a = _softmax(s, -1)
        weights.append(a)
        heads.append(np.einsum("nls,snd->lnd", a, vp[..., sl]))
    want = np.concatenate(heads, -1) @ wo.T + bo
    assert_close(out, want)
    assert_close(w, np.mean(weights, 0))
    with pytest.raises(RuntimeError, match="Need attn_mask"):
        mha(t(q, device), t(k, device), t(k, device), is_causal=True)


def test_scaled_dot_product_attention(device: str) -> None:
    q, k, v = (RNG.normal(size=(2, 3, 4)) for _ in range(3))
    s = q @ k.transpose(0, 2, 1) / 2.0
    causal = np.triu(np.ones((3, 3), bool), 1)
    want = _softmax(np.where(causal, -np.inf, s), -1) @ v
    got = F.scaled_dot_product_attention(t(q, device), t(k, device), t(v, device), is_causal=True)
    assert_close(got, want)


@pytest.mark.parametrize("lk, e", [(5, 3), (2, 6)])  # the scale on the query; on the scores
def test_sdpa_scale_on_the_query_or_the_scores(device: str, lk: int, e: int) -> None:
    q, k, v = RNG.normal(size=(2, 3, e)), RNG.normal(size=(2, lk, e)), RNG.normal(size=(2, lk, 2))
    want = _softmax(q @ k.transpose(0, 2, 1) * 0.3, -1) @ v
    qt, kt, vt = (t(a, device, True) for a in (q, k, v))
    sdpa = F.scaled_dot_product_attention
    assert_close(sdpa(qt, kt, vt, scale=0.3), want)
    assert tc.autograd.gradcheck(lambda a, b, c: sdpa(a, b, c, scale=0.3), (qt, kt, vt))


def test_multihead_attention_head_wider_than_the_keys(device: str) -> None:
    # (head_dim 8 > 2 keys: the scores are scaled, not the query)
    mha = nn.MultiheadAttention(8, 1, bias=False, device=device, dtype=F64)
    q, k = RNG.normal(size=(3, 1, 8)), RNG.normal(size=(2, 1, 8))
    wi, wo = _np(mha.in_proj_weight), _np(mha.out_proj.weight)
    a = _softmax((q[:, 0] @ wi[:8].T) @ (k[:, 0] @ wi[8:16].T).T / math.sqrt(8), -1)
    want = (a @ (k[:, 0] @ wi[16:].T) @ wo.T)[:, None]
    assert_close(mha(t(q, device), t(k, device), t(k, device))[0], want)


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_sdpa_query_with_every_key_masked_attends_to_nothing(device: str, kind: str) -> None:
    # PyTorch's safe softmax: a fully masked row gives zeros (and zero gradients), not NaN.
    q, k, v = (RNG.normal(size=(1, 2, 3)) for _ in range(3))
    keep = np.array([[True, False], [False, False]])
    mask = t(keep, device) if kind == "bool" else t(np.where(keep, 0.0, -np.inf), device)
    s = q @ k.transpose(0, 2, 1) / math.sqrt(3)
    want = np.zeros((1, 2, 3))
    want[:, 0] = _softmax(np.where(keep, s, -np.inf)[:, 0], -1) @ v
    qt, kt, vt = (t(a, device, True) for a in (q, k, v))
    got = F.scaled_dot_product_attention(qt, kt, vt, attn_mask=mask)
    assert_close(got, want)
    grads = tc.autograd.grad(got.sum(), (qt, kt, vt))
    assert all(bool(g.isfinite().all()) for g in grads)
    assert_close(grads[0][:, 1], np.zeros((1, 3)))
    assert tc.autograd.gradcheck(
        lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=mask), (qt, kt, vt)
    )


def _node_names(out: tc.Tensor) -> set[str]:
    seen, todo = set(), [out.grad_fn]
    while todo:
        n = todo.pop()
        if n is not None and type(n).__name__ not in seen:
            seen.add(type(n).__name__)
            todo.extend(f for f, _ in n.next_functions)
    return seen


@pytest.mark.parametrize("kind", ["causal", "bool", "float"])
def test_sdpa_mask_is_an_additive_bias(device: str, kind: str) -> None:
    # As PyTorch's math path: the mask is added to the scores and _safe_softmax takes them
    # (no masked_fill or where over the scores, forward or backward); a bool mask of (L, S)
    # broadcasts over the batch and heads; a causal mask with more keys than queries.
    q, k, v = (
        RNG.normal(size=(2, 2, 3, 4)),
        RNG.normal(size=(2, 2, 5, 4)),
        RNG.normal(size=(2, 2, 5, 3)),
    )
    keep = np.tril(np.ones((3, 5), bool)) if kind == "causal" else RNG.random((3, 5)) > 0.4
    keep[:, 0] = True
    s = q @ k.transpose(0, 1, 3, 2) / 2.0
    want = _softmax(np.where(keep, s, -np.inf), -1) @ v
    qt, kt, vt = (t(a, device, True) for a in (q, k, v))
    kw: dict[str, Any] = {"is_causal": True}
    if kind == "bool":
        kw = {"attn_mask": t(keep, device)}
    elif kind == "float":
        kw = {"attn_mask": t(np.where(keep, 0.0, -np.inf), device)}
    got = F.scaled_dot_product_attention(qt, kt, vt, **kw)
    assert_close(got, want)
    names = _node_names(got)
    assert "SafeSoftmaxBackward0" in names and "AddBackward0" in names
    assert not names & {"MaskedFillBackward0", "WhereBackward0"}
    assert tc.autograd.gradcheck(
        lambda a, b, c: F.scaled_dot_product_attention(a, b, c, **kw), (qt, kt, vt)
    )


def test_sdpa_refuses_a_mask_with_is_causal() -> None:
    q = tc.ones(1, 2, 2)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=tc.ones(2, 2).bool(), is_causal=True)


def test_self_attention_packed_in_projection(device: str) -> None:
    # query is key is value (batch_first): the module's packed in_proj_weight gives the
    # values and gradients of the functional form with its thirds as separate weights
    mha = nn.MultiheadAttention(4, 2, batch_first=True, device=device, dtype=F64)
    x = t(RNG.normal(size=(2, 3, 4)), device, True)
    out = mha(x, x, x, need_weights=False)[0]
    w, b = mha.in_proj_weight, mha.in_proj_bias
    wq, wk, wv = w.chunk(3)
    xs = x.transpose(0, 1)
    want = F.multi_head_attention_forward(
        xs, xs, xs, 4, 2, None, b, None, None, False, 0.0, mha.out_proj.weight,
        mha.out_proj.bias, need_weights=False, use_separate_proj_weight=True,
        q_proj_weight=wq, k_proj_weight=wk, v_proj_weight=wv,
    )[0].transpose(0, 1)  # fmt: skip
    assert_close(out, want)
    g = t(RNG.normal(size=(2, 3, 4)), device)
    got_g = tc.autograd.grad(out, (x, w, b), g)
    want_g = tc.autograd.grad(want, (x, w, b), g)
    for a, e in zip(got_g, want_g, strict=True):
        assert_close(a, e)
    assert tc.autograd.gradcheck(lambda a: mha(a, a, a, need_weights=False)[0], (x,))


def test_safe_softmax_rows_of_minus_inf(device: str) -> None:
    x = RNG.normal(size=(3, 4))
    x[0] = -np.inf
    x[1, ::2] = -np.inf
    want = np.zeros_like(x)
    want[1:] = _softmax(x[1:], -1)
    xt = t(x, device, True)
    y = tc._safe_softmax(xt, 1)
    assert_close(y, want)
    g = RNG.normal(size=(3, 4))
    (gx,) = tc.autograd.grad(y, xt, t(g, device))
    # softmax's gradient y * (g - sum(g * y)), zero on the row of -inf only
    assert_close(gx, want * (g - (g * want).sum(-1, keepdims=True)))
    assert type(y.grad_fn).__name__ == "SafeSoftmaxBackward0"


def test_embedding_gradient_adds_repeated_rows_and_differentiates_again(device: str) -> None:
    w = RNG.normal(size=(7, 3))
    idx = np.array([[1, 4, 1], [6, 1, 0]])
    wt = t(w, device, True)
    out = F.embedding(t(idx, device), wt)
    g = t(RNG.normal(size=(2, 3, 3)), device, True)
    (gw,) = tc.autograd.grad(out, wt, g, create_graph=True)
    want = np.zeros_like(w)
    np.add.at(want, idx.reshape(-1), _np(g).reshape(-1, 3))
    assert_close(gw, want)
    # (the gradient is linear in g: its own gradient in g is the rows looked up)
    (gg,) = tc.autograd.grad((gw * t(w, device)).sum(), g)
    assert_close(gg, w[idx])


# ------------------------------------------------------------------ shapes and resizing
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_matches_numpy(device: str, mode: str) -> None:
    x = RNG.normal(size=(2, 3, 4, 5))
    np_mode = {
        "constant": "constant",
        "reflect": "reflect",
        "replicate": "edge",
        "circular": "wrap",
    }[mode]
    got = F.pad(t(x, device), (1, 2, 2, 1), mode=mode)
    assert_close(got, np.pad(x, [(0, 0), (0, 0), (2, 1), (1, 2)], mode=np_mode))
    assert tc.autograd.gradcheck(lambda v: F.pad(v, (1, 2), mode=mode), (t(x[0, 0], device, True),))


def test_constant_pad_crops_and_pads_in_one_result(device: str) -> None:
    # (one result filled with the value, the cropped input copied into its interior)
    x = RNG.normal(size=(2, 3, 4, 5))
    got = F.pad(t(x, device), (-1, 2, 0, 0, 1, -2), value=7.5)
    want = np.pad(x[:, :1, :, 1:], [(0, 0), (1, 0), (0, 0), (0, 2)], constant_values=7.5)
    assert_close(got, want)
    i = tc.arange(6, device=device).reshape(2, 3)
    assert F.pad(i, (1, 0, 0, 1), value=9).tolist() == [[9, 0, 1, 2], [9, 3, 4, 5], [9, 9, 9, 9]]
    src = t(x, device)
    cropped = F.pad(src, (-1, -1))
    assert_close(cropped, x[..., 1:-1])
    cropped.fill_(0.0)  # a new tensor, not a view of the input
    assert_close(src, x)
    assert tc.autograd.gradcheck(
        lambda v: F.pad(v, (2, -1, -1, 1), value=3.0), (t(x[0, :2], device, True),)
    )


def test_interpolate_nearest_and_bilinear(device: str) -> None:
    x = RNG.normal(size=(1, 2, 3, 4))
    got = F.interpolate(t(x, device), size=(6, 6))
    rows, cols = (
        np.floor(np.arange(6) * 3 / 6).astype(int),
        np.floor(np.arange(6) * 4 / 6).astype(int),
    )
    assert_close(got, x[:, :, rows][:, :, :, cols])
    got = F.interpolate(t(x, device), size=(5, 7), mode="bilinear", align_corners=True)
    ry, rx = np.linspace(0, 2, 5), np.linspace(0, 3, 7)
    want = np.zeros((1, 2, 5, 7))
    for i, yy in enumerate(ry):
        for j, xx in enumerate(rx):
            y0, x0 = min(int(yy), 1), min(int(xx), 2)
            fy, fx = yy - y0, xx - x0
            want[..., i, j] = (
                x[..., y0, x0] * (1 - fy) * (1 - fx)
                + x[..., y0, x0 + 1] * (1 - fy) * fx
                + x[..., y0 + 1, x0] * fy * (1 - fx)
                + x[..., y0 + 1, x0 + 1] * fy * fx
            )
    assert_close(got, want)
    assert tc.autograd.gradcheck(
        lambda v: F.interpolate(v, scale_factor=1.5, mode="bilinear"), (t(x, device, True),)
    )


def test_interpolate_antialias(device: str) -> None:
    x = np.arange(20.0).reshape(1, 1, 4, 5)
    got = F.interpolate(t(x, device), size=(2, 3), mode="bilinear", antialias=True)
    # PyTorch 2.13's output: each pixel averages a triangle filter twice as wide.
    want = [
        [4.0, 5.571428571428572, 7.142857142857144],
        [11.857142857142856, 13.428571428571429, 15.0],
    ]
    assert_close(got[0, 0], np.array(want))
    # Upscaling has nothing to smooth: plain bilinear interpolation.
    y = RNG.normal(size=(1, 2, 3, 4))
    up = dict(size=(5, 9), mode="bilinear")
    assert_close(
        F.interpolate(t(y, device), antialias=True, **up), F.interpolate(t(y, device), **up)
    )
    # A constant image stays constant; the weights of every pixel sum to one.
    ones = F.interpolate(
        t(np.ones((1, 1, 9, 7)), device), scale_factor=0.3, mode="bilinear", antialias=True
    )
    assert_close(ones, np.ones(tuple(ones.shape)))
    assert tc.autograd.gradcheck(
        lambda v: F.interpolate(v, size=(2, 3), mode="bilinear", antialias=True),
        (t(y, device, True),),
    )
    with pytest.raises(NotImplementedError, match="Anti-alias option"):
        F.interpolate(t(y, device), size=(2, 2), antialias=True)
    # bicubic: PIL's cubic filter (a = -0.5) widened likewise; PyTorch 2.13's output
    got = F.interpolate(t(x, device), size=(2, 3), mode="bicubic", antialias=True)
    want = [
        [3.2877304513668157, 4.9338842975206605, 6.580038143674509],
        [12.419961856325495, 14.066115702479339, 15.712269548633188],
    ]
    assert_close(got[0, 0], np.array(want))
    ones = F.interpolate(
        t(np.ones((1, 1, 9, 7)), device), scale_factor=0.3, mode="bicubic", antialias=True
    )
    assert_close(ones, np.ones(tuple(ones.shape)))


def _keys_aa_matrix(n_in: int, n_out: int) -> Any:
    """PIL's anti-aliased bicubic resampling weights (Keys' kernel, a = -0.5), (out, in)."""

    def kernel(v: Any) -> Any:
        v = np.abs(v)
        near = (1.5 * v - 2.5) * v * v + 1
        far = ((-0.5 * v + 2.5) * v - 4) * v + 2
        return np.where(v < 1, near, np.where(v < 2, far, 0.0))

    ratio = n_in / n_out
    scale = max(ratio, 1.0)
    centers = (np.arange(n_out) + 0.5) * ratio
    w = kernel((np.arange(n_in)[None, :] + 0.5 - centers[:, None]) / scale)
    w[np.abs(np.arange(n_in)[None, :] + 0.5 - centers[:, None]) >= 2 * scale + 0.5] = 0
    return w / w.sum(1, keepdims=True)


@pytest.mark.parametrize(("size", "out"), [((9, 7), (4, 3)), ((5, 6), (9, 11)), ((8, 8), (3, 5))])
def test_interpolate_bicubic_antialias(device: str, size: Any, out: Any) -> None:
    x = RNG.normal(size=(1, 2, *size))
    wh, ww = _keys_aa_matrix(size[0], out[0]), _keys_aa_matrix(size[1], out[1])
    want = np.einsum("oh,nchw,pw->ncop", wh, x, ww)
    xt = t(x, device, True)
    assert_close(F.interpolate(xt, size=out, mode="bicubic", antialias=True), want)
    assert tc.autograd.gradcheck(
        lambda v: F.interpolate(v, size=out, mode="bicubic", antialias=True), (xt,)
    )


def test_one_hot_normalize_and_errors(device: str) -> None:
    idx = t(np.array([2, 0, 1]), device)
    assert F.one_hot(idx).tolist() == np.eye(3, dtype=int)[[2, 0, 1]].tolist()
    assert F.one_hot(idx, 5).shape == (3, 5)
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        F.one_hot(idx, 2)
    x = RNG.normal(size=(3, 4))
    assert_close(F.normalize(t(x, device)), x / np.linalg.norm(x, axis=1, keepdims=True))


def test_one_hot_kernel_matches_the_composite(device: str) -> None:
    # a backend's one_hot kernel (one comparison written as int64) and the core's composite
    # (arange, ==, to) on strided, 0-d and empty indices; a meta tensor (no values to check)
    # takes an explicit num_classes, as PyTorch's, and cannot infer one
    from tensorcore.ops.composite import COMPOSITES

    composite = COMPOSITES["one_hot"]
    rng = np.random.default_rng(3)
    idx = t(rng.integers(0, 7, (4, 5)), device).to(tc.int64)
    for x, n in [(idx, -1), (idx.t(), 9), (idx[0, 0], 7), (idx[:0], 3)]:
        got = F.one_hot(x, n)
        want = composite(x, n)
        assert got.dtype == tc.int64 and got.shape == want.shape
        assert got.tolist() == want.tolist()
        assert got.tolist() == np.eye(got.shape[-1], dtype=int)[x.cpu().numpy()].tolist()
    with pytest.raises(RuntimeError, match="non-negative"):
        F.one_hot(idx - 1, 8)
    with pytest.raises(RuntimeError, match="LongTensor"):
        F.one_hot(idx.to(tc.int32), 8)
    meta = F.one_hot(tc.zeros(3, dtype=tc.int64, device="meta"), 4)
    assert meta.shape == (3, 4) and meta.device.type == "meta"
    with pytest.raises(RuntimeError, match="meta"):
        F.one_hot(tc.zeros(3, dtype=tc.int64, device="meta"))


def test_conv_and_pool_layers(device: str) -> None:
    conv = nn.Conv2d(2, 4, 3, padding="same", device=device, dtype=F64)
    x = t(RNG.normal(size=(1, 2, 5, 6)), device)
    assert conv(x).shape == (1, 4, 5, 6)
    assert_close(conv(x), F.conv2d(x, conv.weight, conv.bias, padding=1))
    assert nn.MaxPool2d(2)(x).shape == (1, 2, 2, 3)
    assert nn.AvgPool2d(2, stride=1)(x).shape == (1, 2, 4, 5)
    assert_close(nn.AdaptiveAvgPool2d(1)(x), x.mean((2, 3), keepdim=True))
    # None keeps the input's size along that dim (CRNN's AdaptiveAvgPool2d((1, None)))
    assert_close(nn.AdaptiveAvgPool2d((1, None))(x), x.mean(2, keepdim=True))
    assert_close(F.adaptive_max_pool2d(x, (None, 1)), x.amax(3, keepdim=True))
    up = nn.ConvTranspose2d(2, 3, 2, stride=2, device=device, dtype=F64)
    assert up(x).shape == (1, 3, 10, 12)
    assert up(x[0]).shape == (3, 10, 12)  # unbatched
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)


@pytest.mark.parametrize(
    ("mode", "np_mode"), [("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")]
)
@pytest.mark.parametrize(("kernel", "dilation"), [(4, 1), (3, 2), (5, 1)])
def test_conv_same_padding_with_a_padding_mode(
    device: str, mode: str, np_mode: str, kernel: int, dilation: int
) -> None:
    # PyTorch pads dilation * (kernel - 1) in all, the odd element on the right.
    conv = nn.Conv1d(2, 3, kernel, padding="same", dilation=dilation, padding_mode=mode,
                     device=device, dtype=F64)  # fmt: skip
    x = RNG.normal(size=(2, 2, 9))
    total = dilation * (kernel - 1)
    xp = np.pad(x, ((0, 0), (0, 0), (total // 2, total - total // 2)), mode=np_mode)
    w, b = _np(conv.weight), _np(conv.bias)
    taps = np.stack([xp[:, :, k * dilation : k * dilation + 9] for k in range(kernel)], -1)
    want = np.einsum("nckl,ock->nol", taps.transpose(0, 1, 3, 2), w) + b[:, None]
    assert_close(conv(t(x, device)), want)
    assert "padding='same'" in repr(conv)


@pytest.mark.parametrize(("lo", "hi"), [(-1, 1), (2, -1), (-2, -1), (-3, 2), (0, -2)])
def test_circular_pad_crops_before_it_wraps(device: str, lo: int, hi: int) -> None:
    # A negative pad crops first; the positive one wraps around what is left (PyTorch's order).
    x = RNG.normal(size=(2, 1, 3, 5))
    kept = x[..., max(-lo, 0) : 5 - max(-hi, 0)]
    want = np.pad(kept, [(0, 0), (0, 0), (0, 0), (max(lo, 0), max(hi, 0))], mode="wrap")
    xt = t(x, device, True)
    assert_close(F.pad(xt, (lo, hi), mode="circular"), want)
    assert tc.autograd.gradcheck(lambda a: F.pad(a, (lo, hi, 1, -1), mode="circular"), (xt,))
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        F.pad(xt, (-3, 3), mode="circular")


def test_channel_dropout_prelu_padding_and_upsample_layers(device: str) -> None:
    tc.manual_seed(0)
    x = tc.ones(4, 64, 3, 3, device=device)
    y = nn.Dropout2d(0.25)(x)
    per_channel = y.reshape(4, 64, 9)
    assert bool(((per_channel == 0).all(2) | (per_channel == 4 / 3).all(2)).all())
    assert abs((per_channel[:, :, 0] == 0).to(F64).mean().item() - 0.25) < 0.1
    assert nn.Dropout2d(0.5).eval()(x) is x
    with (
        pytest.warns(UserWarning, match="Received a 1-D input to dropout2d"),
        pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions"),
    ):
        F.dropout2d(tc.ones(2, device=device))
    pr = nn.PReLU(3, device=device, dtype=F64)
    v = RNG.normal(size=(2, 3, 4))
    assert_close(pr(t(v, device)), np.where(v > 0, v, 0.25 * v))
    assert tc.autograd.gradcheck(
        lambda a, w: F.prelu(a, w), (t(v, device, True), t([0.1, 0.2, 0.3], device, True))
    )
    img = RNG.normal(size=(1, 2, 3, 4))
    assert_close(nn.ZeroPad2d((1, 2, 0, 1))(t(img, device)),
                 np.pad(img, [(0, 0), (0, 0), (0, 1), (1, 2)]))  # fmt: skip
    assert_close(nn.ReflectionPad1d(2)(t(img, device)),
                 np.pad(img, [(0, 0), (0, 0), (0, 0), (2, 2)], mode="reflect"))  # fmt: skip
    assert_close(nn.ConstantPad2d(1, 3.5)(t(img, device)),
                 np.pad(img, [(0, 0), (0, 0), (1, 1), (1, 1)], constant_values=3.5))  # fmt: skip
    assert_close(nn.Upsample(scale_factor=2)(t(img, device)), img.repeat(2, 2).repeat(2, 3))
    cs = nn.CosineSimilarity(dim=1)(t(v[:, 0], device), t(v[:, 1], device))
    a, b = v[:, 0], v[:, 1]
    assert_close(cs, (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1))


def _np_mha(mha: nn.MultiheadAttention, q: Any, k: Any, heads: int) -> Any:
    wi, bi = _np(mha.in_proj_weight), _np(mha.in_proj_bias)
    wo, bo = _np(mha.out_proj.weight), _np(mha.out_proj.bias)
    e = q.shape[-1]
    hd = e // heads
    qp, kp, vp = (
        q @ wi[:e].T + bi[:e],
        k @ wi[e : 2 * e].T + bi[e : 2 * e],
        k @ wi[2 * e :].T + bi[2 * e :],
    )
    outs = []
    for h in range(heads):
        sl = slice(h * hd, (h + 1) * hd)
        a = _softmax(np.einsum("nld,nsd->nls", qp[..., sl], kp[..., sl]) / math.sqrt(hd), -1)
        outs.append(np.einsum("nls,nsd->nld", a, vp[..., sl]))
    return np.concatenate(outs, -1) @ wo.T + bo


def _np_layer_norm(x: Any, ln: nn.LayerNorm) -> Any:
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * _np(ln.weight) + _np(ln.bias)


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encoder_layer_matches_reference(device: str, norm_first: bool) -> None:
    layer = nn.TransformerEncoderLayer(6, 2, 10, dropout=0.0, batch_first=True,
                                       norm_first=norm_first, device=device, dtype=F64)  # fmt: skip
    x = RNG.normal(size=(2, 4, 6))

    def ff(v: Any) -> Any:
        h = np.maximum(v @ _np(layer.linear1.weight).T + _np(layer.linear1.bias), 0)
        return h @ _np(layer.linear2.weight).T + _np(layer.linear2.bias)

    if norm_first:
        n1 = _np_layer_norm(x, layer.norm1)
        y = x + _np_mha(layer.self_attn, n1, n1, 2)
        want = y + ff(_np_layer_norm(y, layer.norm2))
    else:
        y = _np_layer_norm(x + _np_mha(layer.self_attn, x, x, 2), layer.norm1)
        want = _np_layer_norm(y + ff(y), layer.norm2)
    assert_close(layer(t(x, device)), want)
    enc = nn.TransformerEncoder(
        layer, 2, nn.LayerNorm(6, device=device, dtype=F64), enable_nested_tensor=False
    )
    assert [n for n, _ in enc.named_parameters()][:2] == [
        "layers.0.self_attn.in_proj_weight", "layers.0.self_attn.in_proj_bias"
    ]  # fmt: skip
    assert enc(t(x, device)).shape == (2, 4, 6)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")
def test_transformer_masks_and_gradients(device: str) -> None:
    model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, device=device, dtype=F64)
    src, tgt = RNG.normal(size=(5, 2, 8)), RNG.normal(size=(3, 2, 8))
    mask = nn.Transformer.generate_square_subsequent_mask(3, device=device, dtype=F64)
    assert mask.tolist()[0] == [0.0, -math.inf, -math.inf]
    out = model(t(src, device), t(tgt, device), tgt_mask=mask)
    assert out.shape == (3, 2, 8)
    # Causality: the first target position does not see the later ones.
    tgt2 = tgt.copy()
    tgt2[1:] += 1.0
    out2 = model(t(src, device), t(tgt2, device), tgt_mask=mask)
    assert_close(out[0], out2[0])
    out.sum().backward()
    assert all(p.grad is not None for p in model.parameters())


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")
def test_transformer_starts_from_xavier_uniform_weights() -> None:
    # PyTorch's Transformer re-initializes every matrix (custom decoders too) with
    # xavier_uniform_ after building its layers, so its deep-copied layers differ.
    tc.manual_seed(0)
    model = nn.Transformer(8, 2, 2, 1, 16, custom_decoder=nn.Linear(8, 8))
    # The same draws by hand: the layers as Transformer builds them, then xavier in order.
    tc.manual_seed(0)
    decoder = nn.Linear(8, 8)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, nn.LayerNorm(8))
    want = [p for p in [*encoder.parameters(), *decoder.parameters()] if p.dim() > 1]
    for p in want:
        nn.init.xavier_uniform_(p)
    got = [p for p in model.parameters() if p.dim() > 1]
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert tc.equal(a, b)
        assert float(a.abs().max()) <= math.sqrt(6 / (a.shape[0] + a.shape[1]))
    layers = model.encoder.layers
    assert not tc.equal(layers[0].linear1.weight, layers[1].linear1.weight)


def test_rms_norm_matches_numpy(device: str) -> None:
    # LLaMA-style models: x * rsqrt(mean(x^2) + eps) * weight over the last dims.
    x = RNG.normal(size=(2, 3, 4))
    w = RNG.normal(size=(3, 4))
    want = x / np.sqrt((x * x).mean((1, 2), keepdims=True) + 1e-6) * w
    assert_close(F.rms_norm(t(x, device), (3, 4), t(w, device), eps=1e-6), want)
    # eps=None: the machine epsilon of the computing dtype.
    eps64 = np.finfo(np.float64).eps
    assert_close(
        F.rms_norm(t(x, device), [4]), x / np.sqrt((x * x).mean(-1, keepdims=True) + eps64)
    )
    norm = nn.RMSNorm(4, device=device, dtype=F64)
    assert repr(norm) == "RMSNorm((4,), eps=None, elementwise_affine=True)"
    assert_close(norm(t(x, device)), x / np.sqrt((x * x).mean(-1, keepdims=True) + eps64))
    assert nn.RMSNorm([3, 4], elementwise_affine=False).weight is None
    low = tc.float16 if dtype_unsupported(device, tc.bfloat16) else tc.bfloat16
    half = F.rms_norm(t(x, device).to(low), (4,))
    assert half.dtype == low
    assert tc.autograd.gradcheck(
        lambda a, b: F.rms_norm(a, (4,), b, eps=1e-3), (t(x, device, True), t(w[0], device, True))
    )
    with pytest.raises(RuntimeError, match=r"rms_norm\(\): given normalized_shape=\[5\]"):
        F.rms_norm(t(x, device), (5,))


def test_every_functional_is_argument_checked() -> None:
    """Each public ``nn.functional`` function is a ``checked`` wrapper (compiled from its
    signature): it checks argument types and names itself in errors. A scripted edit that
    slips a helper between a decorator and its function fails here."""
    unchecked = [
        name for name in F.__all__
        if not getattr(F, name).__code__.co_filename.startswith("<tensorcore ")
    ]  # fmt: skip
    assert unchecked == []
    with pytest.raises(TypeError, match=r"conv2d\(\): argument 'input' must be Tensor"):
        F.conv2d(None, tc.ones(1, 1, 1, 1))


def test_instance_norm_and_norm_layer_bias_flag(device: str) -> None:
    x = RNG.normal(size=(2, 3, 4, 5))
    mu = x.mean((2, 3), keepdims=True)
    var = x.var((2, 3), keepdims=True)
    want = (x - mu) / np.sqrt(var + 1e-5)
    layer = nn.InstanceNorm2d(3, track_running_stats=True, device=device, dtype=F64)
    assert_close(layer(t(x, device)), want)
    n = 20
    assert_close(layer.running_mean, 0.1 * x.mean((2, 3)).mean(0))
    assert_close(layer.running_var, 0.9 + 0.1 * (x.var((2, 3)) * n / (n - 1)).mean(0))
    assert layer(t(x[0], device)).shape == (3, 4, 5)  # unbatched
    assert tc.autograd.gradcheck(lambda v: F.instance_norm(v), (t(x[:1, :2, :2], device, True),))
    assert nn.BatchNorm1d(3, bias=False).bias is None
    assert "bias=False" in repr(nn.GroupNorm(1, 2, bias=False))


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
@pytest.mark.parametrize("wanted", ["output", "h_n", "c_n"])
def test_recurrent_layers_gradients_and_second_gradients(
    device: str, mode: str, wanted: str
) -> None:
    # A gated step is one graph node (the gates fused) fed by one node that splits the
    # sequence into steps; each output alone, its gradient and the gradient's gradient.
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    if mode == "GRU" and wanted == "c_n":
        wanted = "h_n"

    def run(layers: int, bidirectional: bool, size: int) -> None:
        mod = getattr(nn, mode)(2, size, num_layers=layers, bidirectional=bidirectional,
                                device=device, dtype=F64)  # fmt: skip
        n = layers * (2 if bidirectional else 1)
        x = t(RNG.normal(size=(2, 1, 2)), device, True)
        h0 = t(RNG.normal(size=(n, 1, size)), device, True)
        c0 = t(RNG.normal(size=(n, 1, size)), device, True)

        def f(x: tc.Tensor, h0: tc.Tensor, c0: tc.Tensor) -> tc.Tensor:
            out, hidden = mod(x, (h0, c0) if mode == "LSTM" else h0)
            if wanted == "output":
                return out
            if mode == "LSTM":
                return hidden[0] if wanted == "h_n" else hidden[1]
            return hidden

        if layers > 1:
            assert tc.autograd.gradcheck(f, (x, h0, c0))
        else:
            assert tc.autograd.gradgradcheck(f, (x, h0, c0))

    run(2, True, 2)
    run(1, False, 2)
    # Packed input and an LSTM's projection keep the step-by-step graph (fused gates).
    from tensorcore.nn.utils.rnn import pack_padded_sequence

    kw = {"proj_size": 2} if mode == "LSTM" else {}
    step = getattr(nn, mode)(2, 3, device=device, dtype=F64, **kw)
    xs = t(RNG.normal(size=(3, 2, 2)), device, True)
    assert tc.autograd.gradcheck(lambda v: step(v)[0], (xs,))
    assert tc.autograd.gradcheck(lambda v: step(pack_padded_sequence(v, [3, 2]))[0].data, (xs,))
    # Complex states keep the step's composite form (the fused gates are for real dtypes).
    mod = getattr(nn, mode)(2, 3, device=device, dtype=tc.complex128)
    x = RNG.normal(size=(3, 1, 2)) + 1j * RNG.normal(size=(3, 1, 2))
    zero = np.zeros((1, 3), dtype=complex)
    want = _rnn_ref(mode, x, [_np(p) for p in mod.all_weights[0]], zero, zero)[0]
    assert_close(mod(t(x, device))[0], want)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_packed_sequences_equal_running_each_sequence_alone(device: str, mode: str) -> None:
    from tensorcore.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    mod = getattr(nn, mode)(3, 4, num_layers=2, bidirectional=True, batch_first=True,
                            device=device, dtype=F64)  # fmt: skip
    x = RNG.normal(size=(3, 5, 3))
    lengths = [2, 5, 3]
    packed = pack_padded_sequence(t(x, device), lengths, batch_first=True, enforce_sorted=False)
    out, hidden = mod(packed)
    padded, lens = pad_packed_sequence(out, batch_first=True)
    assert lens.tolist() == lengths and padded.shape == (3, 5, 8)
    h = hidden[0] if mode == "LSTM" else hidden
    for b, n in enumerate(lengths):
        alone, h_alone = mod(t(x[b, :n], device))
        assert_close(padded[b, :n], alone)
        assert float(padded[b, n:].abs().sum()) == 0.0
        assert_close(h[:, b], h_alone[0] if mode == "LSTM" else h_alone)
    padded.sum().backward()
    assert all(p.grad is not None for p in mod.parameters())


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_dropout_between_layers_of_packed_input_draws_over_the_packed_data(
    device: str, mode: str
) -> None:
    # PyTorch drops out each layer's packed output (sum(lengths), H): a seeded program gets
    # the same mask only when the draws cover the packed data in its order.
    from tensorcore.nn.utils.rnn import pack_padded_sequence

    cls = getattr(nn, mode)
    deep = cls(3, 4, num_layers=2, dropout=0.5, device=device, dtype=F64)
    first, second = (cls(n, 4, device=device, dtype=F64) for n in (3, 4))
    for layer, one in enumerate((first, second)):
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(one, f"{name}_l0").data.copy_(getattr(deep, f"{name}_l{layer}"))
    packed = pack_padded_sequence(t(RNG.normal(size=(5, 3, 3)), device), [5, 3, 2])
    tc.manual_seed(3)
    out = deep(packed)[0]
    tc.manual_seed(3)
    mid = first(packed)[0]
    want = second(mid._replace(data=F.dropout(mid.data, 0.5, True)))[0]
    assert_close(out.data, want.data)


def test_pad_and_pack_utilities() -> None:
    from tensorcore.nn.utils.rnn import pack_sequence, pad_packed_sequence, pad_sequence

    seqs = [tc.tensor([1, 2, 3]), tc.tensor([4, 5]), tc.tensor([6])]
    assert pad_sequence(seqs).tolist() == [[1, 4, 6], [2, 5, 0], [3, 0, 0]]
    assert pad_sequence(seqs, batch_first=True, padding_value=-1, padding_side="left").tolist() == [
        [1, 2, 3], [-1, 4, 5], [-1, -1, 6]
    ]  # fmt: skip
    packed = pack_sequence(seqs)
    assert packed.data.tolist() == [1, 4, 6, 2, 5, 3] and packed.batch_sizes.tolist() == [3, 2, 1]
    padded, lengths = pad_packed_sequence(packed, total_length=4)
    assert padded.shape == (4, 3) and lengths.tolist() == [3, 2, 1]
    with pytest.raises(
        ValueError,
        match="sequence in input, but got total_length=2 and max sequence length being 3",
    ):
        pad_packed_sequence(packed, total_length=2)
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        pack_sequence([tc.tensor([1]), tc.tensor([1, 2])])


def test_unpad_and_unpack_invert_pad_and_pack(device: str) -> None:
    from tensorcore.nn.utils.rnn import (
        pack_sequence,
        pad_sequence,
        unpack_sequence,
        unpad_sequence,
    )

    seqs = [tc.arange(n * 2.0, device=device).reshape(n, 2) + n for n in (2, 4, 1)]
    for batch_first in (True, False):
        back = unpad_sequence(pad_sequence(seqs, batch_first), tc.tensor([2, 4, 1]), batch_first)
        assert [t.tolist() for t in back] == [t.tolist() for t in seqs]
    packed = pack_sequence(seqs, enforce_sorted=False)
    assert [t.tolist() for t in unpack_sequence(packed)] == [t.tolist() for t in seqs]
    # PackedSequence's casts and queries act on its data.
    assert packed.double().data.dtype is tc.float64 and packed.long().data.dtype is tc.int64
    assert packed.double().batch_sizes is packed.batch_sizes
    assert packed.is_cuda == (tc.device(device).type == "cuda") and not packed.cpu().is_cuda


@pytest.mark.parametrize("low", [tc.bfloat16, tc.float16])
def test_max_pools_of_16_bit_floats(device: str, low: tc.dtype) -> None:
    # autocast's bfloat16 activations reach max_pool (a program's conv -> relu -> max_pool):
    # padding takes -inf and a NaN wins its windows for every floating dtype, 16-bit too.
    if dtype_unsupported(device, low):
        pytest.skip(f"{device} has no {low}")
    for nd in (1, 2, 3):
        x = RNG.normal(size=(2, 3) + (5,) * nd)
        x.flat[7] = np.nan
        xl = t(x, device).to(low).requires_grad_()
        pool = getattr(nn.functional, f"max_pool{nd}d")
        vals, idx = pool(xl, 3, 2, 1, return_indices=True)
        want, want_idx = pool(xl.detach().float(), 3, 2, 1, return_indices=True)
        assert vals.dtype == low
        assert_close(vals.float(), want, rtol=0, atol=0, equal_nan=True)
        assert tc.equal(idx, want_idx)
        vals.float().nan_to_num().sum().backward()
        assert xl.grad.dtype == low


def _zero_pattern(y: tc.Tensor) -> Any:
    return _np(y == 0)


def test_channel_dropouts_by_rank_as_pytorch(device: str) -> None:
    # Which elements share a draw, per function and rank (PyTorch's rules): dropout2d never
    # adds a batch dim, so (N, C) drops single elements (mnist_rnn's Dropout2d after a
    # Linear) and (N, C, L) whole rows of L, with warnings; dropout1d and dropout3d read a
    # rank below theirs + 2 as unbatched, one draw per leading index.
    def pattern(fn: str, shape: tuple[int, ...]) -> Any:
        tc.manual_seed(0)
        return _zero_pattern(getattr(F, fn)(tc.ones(*shape, device=device), 0.5))

    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        z = pattern("dropout2d", (40, 50))
    assert z.sum(1).min() > 0 and z.sum(1).max() < 50  # not whole rows
    with pytest.warns(UserWarning, match=r"interpreted as shape \(N, C, L\)"):
        z = pattern("dropout2d", (6, 30, 4))
    assert (z == z[:, :, :1]).all() and 0 < z[0, :, 0].sum() < 30  # one draw per (n, c)
    for fn, shape in (("dropout1d", (30, 5)), ("dropout3d", (30, 2, 3, 4))):
        z = pattern(fn, shape).reshape(30, -1)
        assert (z == z[:, :1]).all() and 0 < z[:, 0].sum() < 30  # unbatched: one per channel
    with pytest.warns(UserWarning, match="Received a 3-D input to dropout3d"):
        z = pattern("dropout3d", (30, 2, 3)).reshape(30, -1)
    assert (z == z[:, :1]).all()
    with pytest.raises(RuntimeError, match="Expected 2D or 3D input, but received a 4D input"):
        F.dropout1d(tc.ones(2, 3, 4, 5, device=device))
    x = tc.ones(8, 6, device=device)
    with pytest.warns(UserWarning):
        y = nn.Dropout2d(0.5, inplace=True)(x)
    assert y is x and bool((x == 0).any())


@pytest.mark.parametrize("dtype", [tc.float32, tc.float16])
@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("bias", [True, False])
def test_layer_kernel_in_lower_precision_matches_float64(
    device: str, mode: str, dtype: Any, bias: bool
) -> None:
    # A backend's ``_lstm_layer`` / ``_gru_layer`` computes a whole direction in one call
    # (16-bit floats in float32): outputs and every gradient against the same module in
    # float64, whose gradients come from a backward that records (the steps written with
    # operators).
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    kw = {"num_layers": 2, "bidirectional": True, "bias": bias, "device": device}
    ref = getattr(nn, mode)(5, 7, dtype=F64, **kw)
    low = getattr(nn, mode)(5, 7, dtype=dtype, **kw)
    low.load_state_dict({k: v.to(dtype) for k, v in ref.state_dict().items()})
    x = RNG.normal(size=(6, 3, 5))
    h0, c0 = RNG.normal(size=(4, 3, 7)), RNG.normal(size=(4, 3, 7))
    g = RNG.normal(size=(6, 3, 14))
    tol = {"atol": 1e-4, "rtol": 1e-4} if dtype == tc.float32 else {"atol": 3e-2, "rtol": 3e-2}
    grads = []
    for mod, d in ((ref, F64), (low, dtype)):
        xs = [tc.tensor(a, dtype=d, device=device, requires_grad=True) for a in (x, h0, c0)]
        if mode == "LSTM":
            out, (h, c) = mod(xs[0], (xs[1], xs[2]))
        else:
            out, h = mod(xs[0], xs[1])
            c, xs = h, xs[:2]
        loss = (out * tc.tensor(g, dtype=d, device=device)).sum().add(h.sum() + 2 * c.sum())
        wrt = xs + list(mod.parameters())
        grads.append([out, h, c, *tc.autograd.grad(loss, wrt, create_graph=d == F64)])
    for want, got in zip(*grads, strict=True):
        assert_close(got.double(), want, **tol)


def test_lstm_parameter_gradients_with_the_recurrent_bias_folded(device: str) -> None:
    # nn.LSTM adds b_hh to the input projection's bias (one pass over the gates of all steps
    # instead of one per layer direction): every parameter's gradient, b_ih's and b_hh's
    # included, against finite differences, through the layer kernels forward and backward.
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    mod = nn.LSTM(2, 2, num_layers=2, bidirectional=True, device=device, dtype=F64)
    names = [n for n, _ in mod.named_parameters()]
    x = t(RNG.normal(size=(3, 2, 2)), device)

    def f(*params: tc.Tensor) -> tc.Tensor:
        out, (h, c) = tc.func.functional_call(mod, dict(zip(names, params, strict=True)), (x,))
        return out.sum() + (h * c).sum()

    params = [p.detach().clone().requires_grad_() for p in mod.parameters()]
    assert tc.autograd.gradcheck(f, tuple(params))


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_layers_run_a_direction_in_one_call_where_the_backend_has_it(
    monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    # (else the comparisons above would test the step-by-step path twice)
    from tensorcore.ops import functions

    name = {"LSTM": "_lstm_layer", "GRU": "_gru_layer", "RNN": "_rnn_layer"}[mode]
    calls = {name: 0, name + "_backward": 0}
    for op in calls:
        real = getattr(functions, op)

        def counted(*args: Any, _real: Any = real, _op: str = op) -> Any:
            calls[_op] += 1
            return _real(*args)

        monkeypatch.setattr(functions, op, counted)
    mod = getattr(nn, mode)(3, 4, num_layers=2, bidirectional=True)
    mod(tc.ones(5, 2, 3))[0].sum().backward()
    assert calls == {name: 4, name + "_backward": 4}


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_packed_layers_match_the_masked_step_by_step_recurrence(
    device: str, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Packed input runs each direction in one ``_lstm_layer`` / ``_gru_layer`` call with
    # ``batch_sizes`` (the sequences past their end carry their states): outputs, final
    # states and every gradient against the step-by-step recurrence with masked steps.
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    from tensorcore.nn.modules import rnn as rnn_mod
    from tensorcore.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    mod = getattr(nn, mode)(3, 4, num_layers=2, bidirectional=True, device=device, dtype=F64)
    x = t(RNG.normal(size=(6, 5, 3)), device, grad=True)
    h0 = t(RNG.normal(size=(4, 5, 4)), device, grad=True)
    lengths = tc.tensor([3, 6, 1, 4, 6])

    def run() -> list[tc.Tensor]:
        hx: Any = (h0, h0 * 0.5) if mode == "LSTM" else h0
        out, hid = mod(pack_padded_sequence(x, lengths, enforce_sorted=False), hx)
        y = pad_packed_sequence(out)[0]
        h = hid[0] * 2 + hid[1] if mode == "LSTM" else hid
        loss = (y * y).sum() + (h * h).sum()
        return [y, h, *tc.autograd.grad(loss, [x, h0, *mod.parameters()])]

    got = run()
    monkeypatch.setattr(rnn_mod, "_fusable", lambda *a: False)
    for g, w in zip(got, run(), strict=True):
        assert_close(g, w, atol=1e-12, rtol=1e-10)


def test_packed_lstm_layer_gradients_and_second_derivatives(device: str) -> None:
    # The packed layer's node against finite differences, and its recording backward too.
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    from tensorcore.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    mod = nn.LSTM(2, 2, bidirectional=True, device=device, dtype=F64)
    names = [n for n, _ in mod.named_parameters()]
    lengths = tc.tensor([2, 3, 1])

    def f(x: tc.Tensor, *params: tc.Tensor) -> tc.Tensor:
        packed = pack_padded_sequence(x, lengths, enforce_sorted=False)
        out, (h, c) = tc.func.functional_call(mod, dict(zip(names, params, strict=True)), (packed,))
        return pad_packed_sequence(out)[0].sum() + (h * c).sum()

    x = t(RNG.normal(size=(3, 3, 2)), device, grad=True)
    params = [p.detach().clone().requires_grad_() for p in mod.parameters()]
    assert tc.autograd.gradcheck(f, (x, *params))
    assert tc.autograd.gradgradcheck(lambda x, w: f(x, w, *params[1:]), (x, params[0]))


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
@pytest.mark.parametrize("packed", [False, True])
def test_rnn_layer_kernel_gradients_against_finite_differences(
    device: str, nonlinearity: str, packed: bool
) -> None:
    # nn.RNN's layer node (``_rnn_layer`` forward and backward, b_hh folded into the input's
    # projection): every parameter's, the input's and the initial state's gradient.
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    from tensorcore.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    mod = nn.RNN(2, 3, 2, nonlinearity=nonlinearity, bidirectional=True, device=device, dtype=F64)
    names = [n for n, _ in mod.named_parameters()]
    lengths = tc.tensor([2, 3, 1])

    def f(x: tc.Tensor, h0: tc.Tensor, *params: tc.Tensor) -> tc.Tensor:
        inp: Any = pack_padded_sequence(x, lengths, enforce_sorted=False) if packed else x
        ps = dict(zip(names, params, strict=True))
        out, h = tc.func.functional_call(mod, ps, (inp, h0))
        y = pad_packed_sequence(out)[0] if packed else out
        return (y * y).sum() + (h * h).sum()

    x = t(RNG.normal(size=(3, 3, 2)), device, grad=True)
    h0 = t(RNG.normal(size=(4, 3, 3)), device, grad=True)
    params = [p.detach().clone().requires_grad_() for p in mod.parameters()]
    assert tc.autograd.gradcheck(f, (x, h0, *params))


@pytest.mark.parametrize("cell", ["LSTMCell", "GRUCell"])
def test_cells_step_as_one_node_with_first_and_second_derivatives(device: str, cell: str) -> None:
    # LSTMCell and GRUCell run their step as a one-step layer (one node over the backend's
    # layer kernel): every parameter's and input's gradient against finite differences, and
    # the recording backward's (second derivatives).
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    mod = getattr(nn, cell)(2, 3, device=device, dtype=F64)
    names = [n for n, _ in mod.named_parameters()]

    def f(x: tc.Tensor, h: tc.Tensor, *params: tc.Tensor) -> tc.Tensor:
        hx: Any = (h, h * h) if cell == "LSTMCell" else h
        out = tc.func.functional_call(mod, dict(zip(names, params, strict=True)), (x, hx))
        return (out[0] * out[1]).sum() if cell == "LSTMCell" else (out * out).sum()

    x = t(RNG.normal(size=(3, 2)), device, grad=True)
    h = t(RNG.normal(size=(3, 3)), device, grad=True)
    params = [p.detach().clone().requires_grad_() for p in mod.parameters()]
    assert tc.autograd.gradcheck(f, (x, h, *params))
    assert tc.autograd.gradgradcheck(
        lambda x, h, w: f(x, h, params[0], w, *params[2:]), (x, h, params[1])
    )


@pytest.mark.parametrize("packed", [False, True])
def test_lstm_with_projection_runs_the_layer_kernel_and_matches_the_composite_steps(
    device: str, packed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # proj_size: ``_lstm_layer`` with ``w_hr`` (the next step reads the projected state):
    # outputs, final states and every gradient (W_hr's from one matmul over all steps)
    # against the steps written with recorded operators; then finite differences, and the
    # recording backward's second derivatives.
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    from tensorcore.nn.modules import rnn as rnn_mod
    from tensorcore.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    mod = nn.LSTM(3, 5, 2, bidirectional=True, proj_size=2, device=device, dtype=F64)
    x = t(RNG.normal(size=(6, 4, 3)), device, grad=True)
    h0 = t(RNG.normal(size=(4, 4, 2)), device, grad=True)
    c0 = t(RNG.normal(size=(4, 4, 5)), device, grad=True)
    lengths = tc.tensor([3, 6, 1, 6])

    def run() -> list[tc.Tensor]:
        inp: Any = pack_padded_sequence(x, lengths, enforce_sorted=False) if packed else x
        out, (h, c) = mod(inp, (h0, c0))
        y = pad_packed_sequence(out)[0] if packed else out
        loss = (y * y).sum() + (h * h).sum() + (c * h.sum(-1, keepdim=True)).sum()
        return [y, h, c, *tc.autograd.grad(loss, [x, h0, c0, *mod.parameters()])]

    got = run()
    with monkeypatch.context() as mp:
        mp.setattr(rnn_mod, "_fusable", lambda *a: False)
        want = run()
    for g, w in zip(got, want, strict=True):
        assert_close(g, w, atol=1e-12, rtol=1e-10)
    small = nn.LSTM(2, 3, proj_size=2, device=device, dtype=F64)
    names = [n for n, _ in small.named_parameters()]

    def f(x: tc.Tensor, *params: tc.Tensor) -> tc.Tensor:
        out, (h, c) = tc.func.functional_call(small, dict(zip(names, params, strict=True)), (x,))
        return (out * out).sum() + (h * c.sum(-1, keepdim=True)).sum()

    xs = t(RNG.normal(size=(3, 2, 2)), device, grad=True)
    params = [p.detach().clone().requires_grad_() for p in small.parameters()]
    assert tc.autograd.gradcheck(f, (xs, *params))
    assert tc.autograd.gradgradcheck(lambda x, w: f(x, *params[:-1], w), (xs, params[-1]))


def test_rnn_flatten_parameters_is_a_no_op_and_flat_weights_follow_the_names() -> None:
    # (d2l's BiRNN calls ``self.encoder.flatten_parameters()`` before each forward)
    tc.manual_seed(0)
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    x = tc.randn(5, 2, 3)
    before = lstm(x)[0]
    assert lstm.flatten_parameters() is None
    assert_close(lstm(x)[0], before.detach())
    assert [id(p) for p in lstm._flat_weights] == [
        id(getattr(lstm, n)) for n in lstm._flat_weights_names
    ]
    assert len(lstm._flat_weights) == 16 and "_flat_weights" not in lstm.state_dict()
