"""Layers and functions of ``torch.nn`` that real programs use, added together: ``RReLU`` /
``rrelu``, the circular (and remaining 1-D/3-D) padding layers, fractional max pooling,
``AdaptiveLogSoftmaxWithLoss`` and ``F.multi_head_attention_forward``. Each against a NumPy
reference of PyTorch's documented computation, on every device; gradients by gradcheck."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.nn import functional as F
from tensorcore.testing import assert_close

F64 = tc.float64
RNG = np.random.default_rng(7)


def t(a: Any, device: str, **kw: Any) -> tc.Tensor:
    return tc.tensor(a, device=device, **kw)


def _np(x: tc.Tensor) -> Any:
    return x.detach().cpu().numpy()


# ------------------------------------------------------------------ rrelu
def test_rrelu_eval_uses_the_mean_slope(device: str) -> None:
    a = RNG.normal(size=(3, 4))
    want = np.where(a > 0, a, a * (0.1 + 0.3) / 2)
    assert_close(F.rrelu(t(a, device), 0.1, 0.3), want)
    assert_close(nn.RReLU(0.1, 0.3).eval()(t(a, device)), want)
    x = t(a, device)
    assert F.rrelu_(x, 0.1, 0.3) is x
    assert_close(x, want)
    # default slopes 1/8 .. 1/3
    assert_close(F.rrelu(t([-3.0], device)), [-3.0 * (1 / 8 + 1 / 3) / 2])


def test_rrelu_training_draws_a_slope_per_element_and_differentiates(device: str) -> None:
    a = RNG.normal(size=(200,))
    a[0] = 0.0
    x = t(a, device, requires_grad=True)
    m = nn.RReLU(0.2, 0.4)
    assert m.training
    y = m(x)
    ratio = _np(y)[a < 0] / a[a < 0]
    assert np.all((ratio >= 0.2) & (ratio <= 0.4)) and len(np.unique(ratio)) > 50
    np.testing.assert_allclose(_np(y)[a > 0], a[a > 0])
    y.sum().backward()
    assert x.grad is not None
    g = _np(x.grad)
    np.testing.assert_allclose(g[a > 0], 1.0)
    np.testing.assert_allclose(g[a < 0], ratio, rtol=1e-6)  # the gradient is the drawn slope
    # seeded draws repeat; in place under autograd keeps the graph right
    tc.manual_seed(3)
    first = F.rrelu(t(-np.ones(5), device), training=True)
    tc.manual_seed(3)
    assert_close(F.rrelu(t(-np.ones(5), device), training=True), first)
    w = t(a, device, dtype=F64, requires_grad=True)
    h = w * 1.0
    out = F.rrelu(h, 0.2, 0.4, training=True, inplace=True)
    assert out is h
    out.sum().backward()
    assert w.grad is not None and np.all(_np(w.grad)[a < 0] >= 0.2)


def test_rrelu_refuses_as_pytorch(device: str) -> None:
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal"):
        F.rrelu(t([1.0], device), 0.5, 0.2)
    with pytest.raises(NotImplementedError, match="not implemented for 'Int64'"):
        F.rrelu(t([1, 2], device), training=True)
    assert repr(nn.RReLU()) == "RReLU(lower=0.125, upper=0.3333333333333333)"
    assert repr(nn.RReLU(0.1, 0.3, True)) == "RReLU(lower=0.1, upper=0.3, inplace=True)"


# ------------------------------------------------------------------ padding layers
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_circular_padding_layers_wrap_around(device: str, nd: int) -> None:
    cls = {1: nn.CircularPad1d, 2: nn.CircularPad2d, 3: nn.CircularPad3d}[nd]
    pads = [1, 2, 0, 1, 2, 1][: 2 * nd]
    shape = (2, 3) + (4,) * nd
    a = RNG.normal(size=shape)
    np_pads = [(0, 0), (0, 0)] + [(pads[2 * i], pads[2 * i + 1]) for i in range(nd)][::-1]
    assert_close(cls(tuple(pads))(t(a, device)), np.pad(a, np_pads, mode="wrap"))
    # unbatched input, and an int padding
    assert_close(cls(1)(t(a[0], device)), np.pad(a[0], [(0, 0)] + [(1, 1)] * nd, mode="wrap"))
    with pytest.raises(ValueError, match=f"expected {nd + 1}D or {nd + 2}D input"):
        cls(1)(t(np.ones((1,) * (nd + 3)), device))
    x = t(a, device, requires_grad=True)
    assert tc.autograd.gradcheck(lambda x: cls(1)(x), (x,))


def test_the_3d_and_1d_padding_layers(device: str) -> None:
    a = RNG.normal(size=(1, 2, 3, 3, 3))
    x = t(a, device)
    p3 = [(0, 0), (0, 0)] + [(1, 1)] * 3
    assert_close(nn.ReflectionPad3d(1)(x), np.pad(a, p3, mode="reflect"))
    assert_close(nn.ReplicationPad3d(1)(x), np.pad(a, p3, mode="edge"))
    assert_close(nn.ConstantPad3d(1, 2.5)(x), np.pad(a, p3, constant_values=2.5))
    assert_close(nn.ZeroPad3d(1)(x), np.pad(a, p3))
    b = RNG.normal(size=(2, 5))
    assert_close(nn.ZeroPad1d((2, 1))(t(b, device)), np.pad(b, [(0, 0), (2, 1)]))
    assert repr(nn.CircularPad2d((1, 0, 2, 1))) == "CircularPad2d((1, 0, 2, 1))"


# ------------------------------------------------------------------ fractional max pooling
def _np_starts(u: Any, size: int, out: int, k: int) -> list[int]:
    # PyTorch's generate_intervals, in the samples' dtype
    if out == 1:
        return [size - k]
    alpha = u.dtype.type(size - k) / u.dtype.type(out - 1)
    seq = [int((u.dtype.type(i) + u) * alpha) - int(u * alpha) for i in range(out - 1)]
    return seq + [size - k]


def _np_fractional(a: Any, k: tuple[int, int], out: tuple[int, int], s: Any) -> Any:
    n, c, h, w = a.shape
    res = np.empty((n, c) + out, a.dtype)
    idx = np.empty((n, c) + out, np.int64)
    for i in range(n):
        for j in range(c):
            rows = _np_starts(s[i, j, 1], h, out[0], k[0])
            cols = _np_starts(s[i, j, 0], w, out[1], k[1])
            for oi, r in enumerate(rows):
                for oj, q in enumerate(cols):
                    win = a[i, j, r : r + k[0], q : q + k[1]]
                    m = int(np.argmax(win))
                    res[i, j, oi, oj] = win.flat[m]
                    idx[i, j, oi, oj] = (r + m // k[1]) * w + q + m % k[1]
    return res, idx


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
def test_fractional_max_pool2d_matches_the_reference(device: str, dtype: tc.dtype) -> None:
    npd = np.float32 if dtype == tc.float32 else np.float64
    for shape, k, out in [((2, 3, 9, 7), (2, 3), (4, 3)), ((1, 2, 10, 10), (3, 3), (5, 5)),
                          ((1, 1, 7, 7), (3, 2), (1, 6))]:  # fmt: skip
        a = RNG.normal(size=shape).astype(npd)
        s = RNG.random((shape[0], shape[1], 2)).astype(npd)
        want, want_idx = _np_fractional(a, k, out, s)
        got, idx = F.fractional_max_pool2d(t(a, device), k, output_size=out, return_indices=True,
                                           _random_samples=t(s, device))  # fmt: skip
        assert_close(got, want, rtol=0, atol=0)
        assert idx.dtype == tc.int64 and idx.tolist() == want_idx.tolist()
    # unbatched input; output_ratio; the module keeps its samples as a buffer
    a = RNG.normal(size=(3, 8, 6)).astype(npd)
    s = RNG.random((1, 3, 2)).astype(npd)
    pool = nn.FractionalMaxPool2d(2, output_ratio=0.5, _random_samples=t(s, device))
    assert "_random_samples" in dict(pool.named_buffers())
    assert_close(pool(t(a, device)), _np_fractional(a[None], (2, 2), (4, 3), s)[0][0])
    assert tuple(F.fractional_max_pool2d(t(a, device), 2, output_size=(5, 2)).shape) == (3, 5, 2)


def test_fractional_max_pool2d_gradient_and_errors(device: str) -> None:
    a = RNG.permutation(2 * 2 * 7 * 6).reshape(2, 2, 7, 6).astype(np.float64)
    s = t(RNG.random((2, 2, 2)), device)
    x = t(a, device, requires_grad=True)
    assert tc.autograd.gradcheck(
        lambda x: F.fractional_max_pool2d(x, 3, output_size=(3, 3), _random_samples=s), (x,)
    )
    with pytest.raises(RuntimeError, match="pool height 3 too large relative to input height 5"):
        F.fractional_max_pool2d(t(np.ones((1, 1, 5, 5)), device), 3, output_size=4)
    with pytest.raises(ValueError, match="either an output_size or an output_ratio"):
        F.fractional_max_pool2d(x, 2)
    with pytest.raises(RuntimeError, match="same dtype as input"):
        F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=s.float())
    with pytest.raises(RuntimeError, match=r"size\(1\) equals to input channel size"):
        F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=s[:, :1])
    with pytest.raises(ValueError, match="either an output size, or a pooling ratio"):
        nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError, match="only one of output_size and output_ratio"):
        nn.FractionalMaxPool2d(2, 3, 0.5)
    with pytest.raises(ValueError, match=r"output_ratio must be between 0 and 1 \(got 1.5\)"):
        nn.FractionalMaxPool2d(2, output_ratio=1.5)


# ------------------------------------------------------------------ adaptive softmax
def _np_asm_log_prob(asm: nn.AdaptiveLogSoftmaxWithLoss, x: Any) -> Any:
    def log_softmax(z: Any) -> Any:
        z = z - z.max(1, keepdims=True)
        return z - np.log(np.exp(z).sum(1, keepdims=True))

    head = log_softmax(x @ _np(asm.head.weight).T + _np(asm.head.bias))
    parts = [head[:, : asm.shortlist_size]]
    for i, proj in enumerate(asm.tail):
        z = x @ _np(proj[0].weight).T @ _np(proj[1].weight).T
        parts.append(log_softmax(z) + head[:, asm.shortlist_size + i : asm.shortlist_size + i + 1])
    return np.concatenate(parts, 1)


def test_adaptive_log_softmax_with_loss(device: str) -> None:
    tc.manual_seed(0)
    asm = nn.AdaptiveLogSoftmaxWithLoss(8, 12, [3, 6, 9], div_value=2.0, head_bias=True,
                                        device=device, dtype=F64)  # fmt: skip
    assert [tuple(p[0].weight.shape) for p in asm.tail] == [(4, 8), (2, 8), (1, 8)]
    x = RNG.normal(size=(7, 8))
    target = np.array([0, 4, 7, 11, 2, 5, 10])
    full = _np_asm_log_prob(asm, x)
    np.testing.assert_allclose(np.exp(full).sum(1), 1.0)
    out, loss = asm(t(x, device), t(target, device))
    assert_close(out, full[np.arange(7), target])
    assert_close(loss, -full[np.arange(7), target].mean())
    assert_close(asm.log_prob(t(x, device)), full)
    assert asm.predict(t(x, device)).tolist() == full.argmax(1).tolist()
    res = asm(t(x[0], device), t(target[1], device))  # unbatched
    assert res.output.shape == () and abs(res.loss.item() + full[0, 4]) < 1e-12
    xi = t(x, device, requires_grad=True)
    assert tc.autograd.gradcheck(lambda xi: asm(xi, t(target, device)).loss, (xi,))
    loss.backward()
    assert all(p.grad is not None for p in asm.parameters())


def test_adaptive_log_softmax_errors_as_pytorch() -> None:
    with pytest.raises(ValueError, match="sequence of length larger than 0"):
        nn.AdaptiveLogSoftmaxWithLoss(4, 10, [])
    for bad in ([5, 3], [0, 4], [4, 10], [3, 3]):
        with pytest.raises(ValueError, match="unique, positive integers sorted"):
            nn.AdaptiveLogSoftmaxWithLoss(4, 10, bad)
    asm = nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\]"):
        asm(tc.ones(2, 4), tc.tensor([1, 10]))
    with pytest.raises(RuntimeError, match="same size in the batch dimension"):
        asm(tc.ones(3, 4), tc.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="0D target tensor expects 1D input"):
        asm(tc.ones(3, 4), tc.tensor(1))
    with pytest.raises(RuntimeError, match="multi-target not supported"):
        asm(tc.ones(3, 4), tc.ones(3, 1, dtype=tc.int64))


# ------------------------------------------------------------------ multi_head_attention_forward
def _np_softmax(z: Any) -> Any:
    z = z - z.max(-1, keepdims=True)
    return np.exp(z) / np.exp(z).sum(-1, keepdims=True)


def test_multi_head_attention_forward_is_what_the_module_runs(device: str) -> None:
    mha = nn.MultiheadAttention(6, 2, kdim=4, vdim=5, add_bias_kv=True, device=device, dtype=F64)
    q, k, v = RNG.normal(size=(3, 2, 6)), RNG.normal(size=(4, 2, 4)), RNG.normal(size=(4, 2, 5))
    kpm = np.array([[False, False, True, False], [False, True, False, False]])
    args = (t(q, device), t(k, device), t(v, device))
    want = mha(*args, key_padding_mask=t(kpm, device), average_attn_weights=False)
    got = F.multi_head_attention_forward(
        *args, 6, 2, None, mha.in_proj_bias, mha.bias_k, mha.bias_v, False, 0.0,
        mha.out_proj.weight, mha.out_proj.bias, key_padding_mask=t(kpm, device),
        use_separate_proj_weight=True, q_proj_weight=mha.q_proj_weight,
        k_proj_weight=mha.k_proj_weight, v_proj_weight=mha.v_proj_weight,
        average_attn_weights=False,
    )  # fmt: skip
    assert_close(got[0], want[0])
    assert_close(got[1], want[1])
    assert tuple(got[1].shape) == (2, 2, 3, 5)  # per head; bias_k adds a key


def test_multi_head_attention_forward_static_kv_and_unbatched(device: str) -> None:
    e, h = 4, 2
    w_in = RNG.normal(size=(3 * e, e))
    w_out, b_out = RNG.normal(size=(e, e)), RNG.normal(size=e)
    q = RNG.normal(size=(3, e))  # unbatched (L, E)
    sk, sv = RNG.normal(size=(h, 5, 2)), RNG.normal(size=(h, 5, 2))
    out, w = F.multi_head_attention_forward(
        t(q, device), t(q, device), t(q, device), e, h, t(w_in, device), None, None, None,
        False, 0.0, t(w_out, device), t(b_out, device), static_k=t(sk, device),
        static_v=t(sv, device), need_weights=True,
    )  # fmt: skip
    qp = (q @ w_in[:e].T).reshape(3, h, 2).transpose(1, 0, 2)
    a = _np_softmax(qp @ sk.transpose(0, 2, 1) / math.sqrt(2))
    want = (a @ sv).transpose(1, 0, 2).reshape(3, e) @ w_out.T + b_out
    assert_close(out, want)
    assert_close(w, a.mean(0))
    assert tuple(out.shape) == (3, e) and tuple(w.shape) == (3, 5)


def test_multi_head_attention_forward_errors(device: str) -> None:
    x = tc.ones(3, 2, 4, device=device)
    w_in, w_out = tc.ones(12, 4, device=device), tc.ones(4, 4, device=device)
    base = (x, x, x, 4, 2, w_in, None, None, None, False, 0.0, w_out, None)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 6"):
        F.multi_head_attention_forward(x, x, x, 6, *base[4:])
    with pytest.raises(AssertionError, match="expected `key` and `value` to be 3-D"):
        F.multi_head_attention_forward(x, x[0], x[0], *base[3:])
    with pytest.raises(RuntimeError, match="The shape of the 2D attn_mask is"):
        F.multi_head_attention_forward(*base, attn_mask=tc.zeros(2, 2, device=device))
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal"):
        F.multi_head_attention_forward(*base, is_causal=True)
    with pytest.raises(AssertionError, match=r"expecting static_k.size\(0\) of 4"):
        F.multi_head_attention_forward(*base, static_k=tc.ones(3, 3, 2, device=device))
    with pytest.raises(AssertionError, match="q_proj_weight is None"):
        F.multi_head_attention_forward(*base, use_separate_proj_weight=True)
    # dropout only while training
    out1, _ = F.multi_head_attention_forward(*base[:10], 0.9, *base[11:], training=False)
    out2, _ = F.multi_head_attention_forward(*base)
    assert_close(out1, out2)


# ------------------------------------------------------------------ SyncBatchNorm
def test_sync_batchnorm_outside_a_process_group_is_batchnorm(device: str) -> None:
    """Without a process group (PyTorch's CPU fallback) SyncBatchNorm computes what
    BatchNorm does, for any N-D input; the MPI tests (tests/test_distributed.py) cover the
    synchronised path."""
    a = RNG.normal(size=(4, 3, 5))
    for momentum in (0.1, None):
        sync = nn.SyncBatchNorm(3, momentum=momentum, device=device, dtype=F64)
        plain = nn.BatchNorm1d(3, momentum=momentum, device=device, dtype=F64)
        for _ in range(2):
            xs, xp = t(a, device, requires_grad=True), t(a, device, requires_grad=True)
            ys, yp = sync(xs), plain(xp)
            assert_close(ys, yp)
            (ys * ys).sum().backward()
            (yp * yp).sum().backward()
            assert_close(xs.grad, xp.grad)
        assert_close(sync.running_var, plain.running_var)
        assert sync.num_batches_tracked.item() == 2
        assert_close(sync.eval()(t(a, device)), plain.eval()(t(a, device)))
    assert_close(nn.SyncBatchNorm(3, dtype=F64, device=device)(t(a[:, :, 0], device)),
                 nn.BatchNorm1d(3, dtype=F64, device=device)(t(a[:, :, 0], device)))  # fmt: skip


def test_convert_sync_batchnorm_keeps_the_tensors() -> None:
    inner = nn.Sequential(nn.BatchNorm3d(2), nn.InstanceNorm2d(2))
    net = nn.Sequential(nn.Conv2d(1, 2, 1), nn.BatchNorm2d(2, momentum=None, affine=False), inner)
    net.eval()
    bn, bn3 = net[1], inner[0]
    out = nn.SyncBatchNorm.convert_sync_batchnorm(net, process_group="pg")
    assert out is net
    assert type(net[1]) is nn.SyncBatchNorm and type(inner[0]) is nn.SyncBatchNorm
    assert type(inner[1]) is nn.InstanceNorm2d  # instance norms are not batch norms
    assert net[1].running_mean is bn.running_mean and net[1].weight is None
    assert inner[0].weight is bn3.weight and inner[0].bias is bn3.bias
    assert inner[0].num_batches_tracked is bn3.num_batches_tracked
    assert not net[1].training and net[1].momentum is None and net[1].process_group == "pg"
    alone = nn.BatchNorm1d(4)
    conv = nn.SyncBatchNorm.convert_sync_batchnorm(alone)
    assert type(conv) is nn.SyncBatchNorm and conv.weight is alone.weight
    assert repr(conv) == (
        "SyncBatchNorm(4, eps=1e-05, momentum=0.1, affine=True, bias=True, "
        "track_running_stats=True)"
    )
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
        conv(tc.ones(4))
    with pytest.raises(ValueError, match="number of input channels should be non-zero"):
        nn.SyncBatchNorm(0)(tc.ones(2, 0))


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_eval_matches_the_pair(transpose: bool) -> None:
    tc.manual_seed(0)
    conv = (tc.nn.ConvTranspose2d(2, 3, 3) if transpose else tc.nn.Conv2d(2, 3, 3)).double()
    bn = tc.nn.BatchNorm2d(3).double()
    with tc.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-1, 1)
    conv.eval(), bn.eval()
    fused = tc.nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
    x = tc.randn(2, 2, 6, 6, dtype=tc.float64)
    want = bn(conv(x))
    assert_close(fused(x), want, rtol=1e-12, atol=1e-12)
    # the oracle: the formula in NumPy
    s = bn.weight.detach().numpy() / np.sqrt(bn.running_var.numpy() + bn.eps)
    np.testing.assert_allclose(
        fused.bias.detach().numpy(),
        (conv.bias.detach().numpy() - bn.running_mean.numpy()) * s + bn.bias.detach().numpy(),
    )
    assert isinstance(fused.weight, tc.nn.Parameter) and fused is not conv
    with pytest.raises(AssertionError, match="eval"):
        tc.nn.utils.fuse_conv_bn_eval(conv.train(), bn)


def test_fuse_linear_bn_eval_and_skip_init_and_memory_format() -> None:
    lin, bn = tc.nn.Linear(4, 3, bias=False).eval(), tc.nn.BatchNorm1d(3).eval()
    with tc.no_grad():
        bn.running_var.fill_(4.0)
    fused = tc.nn.utils.fuse_linear_bn_eval(lin, bn)
    x = tc.randn(5, 4)
    assert_close(fused(x), bn(lin(x)), rtol=1e-5, atol=1e-6)
    with pytest.raises(AssertionError, match="out_features"):
        tc.nn.utils.fuse_linear_bn_eval(lin, tc.nn.BatchNorm1d(2).eval())
    m = tc.nn.utils.skip_init(tc.nn.Linear, 3, 2, bias=True)
    assert m.weight.shape == (2, 3) and m.weight.device.type == "cpu"
    with pytest.raises(RuntimeError, match="'device' arg"):
        tc.nn.utils.skip_init(tc.nn.ReLU)
    net = tc.nn.Sequential(tc.nn.Conv2d(3, 4, 2), tc.nn.Sequential(tc.nn.ConvTranspose2d(4, 2, 2)))
    tc.nn.utils.convert_conv2d_weight_memory_format(net, tc.channels_last)
    assert net[0].weight.is_contiguous(memory_format=tc.channels_last)
    assert net[1][0].weight.is_contiguous(memory_format=tc.channels_last)
    assert isinstance(net[0].weight, tc.nn.Parameter)
