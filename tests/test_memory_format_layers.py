"""Memory formats through the layers: convolution, pooling and batch normalisation keep a
channels-last input's format, in their results and in their gradients, as PyTorch's do.

The expected layouts are PyTorch 2.13's (CPU, float32), written out: ``"CL"`` for a result
dense in ``channels_last`` (``channels_last_3d`` for 5-D) and not row-major, ``"C"`` for a
row-major one. The values are those of the row-major input, which the layers' own tests check
against NumPy; raw gradients (``autograd.grad``, which leaves them as the rules make them)
and ``.grad`` of leaves (laid out like their leaf, PyTorch's layout contract) are checked.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close, to_numpy

CL, CL3 = tc.channels_last, tc.channels_last_3d
F = tc.nn.functional


def _fmt(t: tc.Tensor) -> str:
    """``"CL"`` (``channels_last`` for 4-D, ``channels_last_3d`` for 5-D, and not row-major),
    ``"C"`` (row-major) or the strides."""
    fmt = CL if t.dim() == 4 else CL3
    if t.dim() in (4, 5) and t.is_contiguous(memory_format=fmt) and not t.is_contiguous():
        return "CL"
    return "C" if t.is_contiguous() else str(t.stride())


def _rand(device: str, *shape: int, seed: int = 0, dtype: Any = np.float32) -> tc.Tensor:
    n = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return tc.tensor(n, device=device)


def _cl(t: tc.Tensor) -> tc.Tensor:
    return t.contiguous(memory_format=CL if t.dim() == 4 else CL3)


class _Call(tc.nn.Module):
    def __init__(self, fn: Any) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x: tc.Tensor) -> tc.Tensor:
        return self.fn(x)


# (layer, PyTorch's layout of its result and of its input's raw gradient, for a row-major
# output gradient, on a channels-last (2, 3, 6, 8) input)
LAYERS = [
    ("conv", lambda: tc.nn.Conv2d(3, 4, 3, padding=1), "CL", "CL"),
    ("conv groups", lambda: tc.nn.Conv2d(3, 6, 3, stride=2, groups=3), "CL", "CL"),
    ("conv bias-free", lambda: tc.nn.Conv2d(3, 4, (2, 3), dilation=2, bias=False), "CL", "CL"),
    ("conv_transpose", lambda: tc.nn.ConvTranspose2d(3, 4, 3, stride=2), "CL", "CL"),
    ("max_pool", lambda: tc.nn.MaxPool2d(2), "CL", "CL"),
    ("max_pool ceil", lambda: tc.nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), "CL", "CL"),
    ("avg_pool", lambda: tc.nn.AvgPool2d(3, stride=2, padding=1), "CL", "CL"),
    ("adaptive_avg_pool", lambda: tc.nn.AdaptiveAvgPool2d((3, 4)), "CL", "CL"),
    ("adaptive_max_pool", lambda: tc.nn.AdaptiveMaxPool2d((2, 2)), "CL", "CL"),
    ("adaptive_avg_pool unequal", lambda: tc.nn.AdaptiveAvgPool2d((4, 3)), "CL", "CL"),
    ("adaptive_max_pool unequal", lambda: tc.nn.AdaptiveMaxPool2d((5, 3)), "CL", "CL"),
    ("batch_norm", lambda: tc.nn.BatchNorm2d(3), "CL", "CL"),
    ("batch_norm eval", lambda: tc.nn.BatchNorm2d(3).eval(), "CL", "CL"),
    ("layer_norm", lambda: tc.nn.LayerNorm(8), "C", "C"),
    # group_norm and upsample: PyTorch's gradient for a row-major output gradient is CL for
    # group_norm, C for upsample; here it follows that gradient's order (see below)
    ("group_norm", lambda: tc.nn.GroupNorm(3, 3), "CL", None),
    ("upsample nearest", lambda: tc.nn.Upsample(scale_factor=2), "CL", None),
    ("upsample bilinear", lambda: tc.nn.Upsample(size=(5, 9), mode="bilinear"), "CL", None),
    (
        "interpolate antialias",
        lambda: _Call(lambda x: F.interpolate(x, size=(4, 5), mode="bilinear", antialias=True)),
        "CL",
        None,
    ),
    # relu's gradient: PyTorch's threshold_backward lays it out as its input (CL), ours as
    # the output gradient, as every other elementwise backward
    ("relu", lambda: tc.nn.ReLU(), "CL", None),
    ("lp_pool", lambda: tc.nn.LPPool2d(2.0, 2), "CL", "CL"),
    ("pixel_unshuffle", lambda: tc.nn.PixelUnshuffle(2), "CL", None),
    ("channel_shuffle", lambda: tc.nn.ChannelShuffle(3), "CL", None),
]


@pytest.mark.parametrize(("layer", "out_fmt", "grad_fmt"), [p[1:] for p in LAYERS],
                         ids=[p[0] for p in LAYERS])  # fmt: skip
def test_layer_keeps_channels_last(
    device: str, layer: Any, out_fmt: str, grad_fmt: str | None
) -> None:
    tc.manual_seed(0)
    m = layer().to(device)
    x = _rand(device, 2, 3, 6, 8)
    xc = _cl(x)
    tc.manual_seed(1)
    a = m(x.requires_grad_())
    tc.manual_seed(1)
    b = m(xc.requires_grad_())
    assert _fmt(a) == "C"
    assert _fmt(b) == out_fmt
    assert_close(b, to_numpy(a.detach()), rtol=1e-5, atol=1e-5)
    gy = _rand(device, *a.shape, seed=2)
    (ga,) = tc.autograd.grad(a, x, gy)
    (gb,) = tc.autograd.grad(b, xc, gy)
    assert _fmt(ga) == "C"
    if grad_fmt is not None:
        assert _fmt(gb) == grad_fmt
    assert_close(gb, to_numpy(ga), rtol=1e-5, atol=1e-5)


def test_dropout_keeps_channels_last_with_the_mask_of_its_memory_order(device: str) -> None:
    # As in PyTorch, the mask is drawn in memory order: a channels-last input gets the mask
    # its (N, H, W, C) storage would get, not the row-major input's.
    x = _rand(device, 2, 3, 6, 8)
    xc = _cl(x)
    m = tc.nn.Dropout(0.5)
    tc.manual_seed(1)
    b = m(xc.requires_grad_())
    tc.manual_seed(1)
    expected = m(x.permute(0, 2, 3, 1).contiguous()).permute(0, 3, 1, 2)
    assert _fmt(b) == "CL"
    assert_close(b, to_numpy(expected.detach()), rtol=0, atol=0)
    (gb,) = tc.autograd.grad(b, xc, tc.ones_like(b))
    assert_close(gb, to_numpy((expected != 0).float() * 2), rtol=0, atol=0)


def test_channels_last_output_gradient(device: str) -> None:
    """With a channels-last output gradient (what the layers above hand down in a
    channels-last network) group_norm's and interpolate's input gradients are channels-last,
    as PyTorch's; 5-D inputs keep ``channels_last_3d``."""
    x = _cl(_rand(device, 2, 6, 5, 7)).requires_grad_()
    for f in (
        lambda t: F.group_norm(t, 3, tc.ones(6, device=device), tc.zeros(6, device=device)),
        lambda t: F.interpolate(t, scale_factor=2),
        lambda t: F.interpolate(t, size=(4, 9), mode="bicubic", align_corners=True),
    ):
        y = f(x)
        (g,) = tc.autograd.grad(y, x, _cl(_rand(device, *y.shape, seed=1)))
        assert (_fmt(y), _fmt(g)) == ("CL", "CL")
    x3 = _cl(_rand(device, 2, 4, 3, 4, 5))
    assert _fmt(F.interpolate(x3, scale_factor=2, mode="trilinear")) == "CL"
    assert _fmt(F.group_norm(x3, 2)) == "CL"
    want = to_numpy(F.group_norm(x3.contiguous(), 2))
    assert_close(F.group_norm(x3, 2), want, rtol=1.3e-6, atol=1e-5)


@pytest.mark.parametrize(
    ("pad", "mode", "fmt"),
    [  # PyTorch's layouts
        ((1, 2, 3, 0), "constant", "CL"),
        ((-1, 2, 1, -2), "constant", "CL"),
        ((1, 1, 1, 1), "reflect", "CL"),
        ((2, 1, 0, 1), "replicate", "CL"),
        ((1, 1, 2, 2), "circular", "C"),
        ((2, 1, 0, 1, 1, 2), "reflect", "CL"),
        ((0, 1, 2, 1, 1, 0, 1, 1), "constant", "CL"),
    ],
)
def test_pad(device: str, pad: tuple[int, ...], mode: str, fmt: str) -> None:
    x = _rand(device, 2, 3, 5, 6)
    y = F.pad(_cl(x).requires_grad_(), pad, mode)
    assert _fmt(y) == fmt
    assert_close(y, to_numpy(F.pad(x, pad, mode)))


def test_convolution_formats(device: str) -> None:
    """A convolution is channels-last when its input or its weight is (PyTorch's rule), and
    so are both gradients, whatever the output gradient's layout."""
    x, w, b = _rand(device, 2, 4, 7, 6), _rand(device, 6, 2, 3, 3, seed=1), _rand(device, 6)
    want = to_numpy(F.conv2d(x, w, b, groups=2))
    gy_c = _rand(device, 2, 6, 5, 4, seed=3)
    for xf, wf, gf, fmt in [
        ("CL", "C", "C", "CL"),
        ("C", "CL", "C", "CL"),
        ("CL", "CL", "CL", "CL"),
        ("C", "C", "CL", "C"),  # the output gradient does not decide: PyTorch copies it
        ("C", "C", "C", "C"),
    ]:
        xi = (_cl(x) if xf == "CL" else x.clone()).requires_grad_()
        wi = (_cl(w) if wf == "CL" else w.clone()).requires_grad_()
        bi = b.clone().requires_grad_()
        y = F.conv2d(xi, wi, bi, groups=2)
        assert _fmt(y) == fmt
        assert_close(y, want, rtol=1e-5, atol=1e-5)
        gy = _cl(gy_c) if gf == "CL" else gy_c
        gx, gw, gb = tc.autograd.grad(y, (xi, wi, bi), gy)
        assert (_fmt(gx), _fmt(gw), gb.stride()) == (fmt, fmt, (1,))
        xr, wr = x.clone().requires_grad_(), w.clone().requires_grad_()
        rx, rw = tc.autograd.grad(F.conv2d(xr, wr, b, groups=2), (xr, wr), gy_c)
        assert_close(gx, to_numpy(rx), rtol=1e-5, atol=1e-5)
        assert_close(gw, to_numpy(rw), rtol=1e-5, atol=1e-5)


def test_conv3d_channels_last_3d(device: str) -> None:
    x, w = _rand(device, 2, 3, 4, 5, 4), _rand(device, 2, 3, 3, 2, 3, seed=1)
    xc = _cl(x).requires_grad_()
    y = F.conv3d(xc, w)
    assert _fmt(y) == "CL" and y.is_contiguous(memory_format=CL3)
    assert_close(y, to_numpy(F.conv3d(x, w)), rtol=1e-5, atol=1e-5)
    (gx,) = tc.autograd.grad(y, xc, tc.ones_like(y, memory_format=tc.contiguous_format))
    assert gx.is_contiguous(memory_format=CL3) and not gx.is_contiguous()


@pytest.mark.parametrize(
    ("make", "strides"),
    [  # PyTorch 2.13's result strides (CPU): it runs these as 2-D convolutions of a
        # (N, C, 1, L) view, channels-last where that view (or the weight's) suggests it
        (lambda d: _rand(d, 2, 5, 1).transpose(1, 2), (12, 1, 3)),  # (5, 1, 1): a channel of 1
        (lambda d: _rand(d, 2, 1, 5), (12, 4, 1)),
        (lambda d: _rand(d, 2, 4, 5)[:, :1], (12, 4, 1)),  # (20, 5, 1)
        (lambda d: _rand(d, 1, 5, 4).transpose(1, 2), (12, 4, 1)),  # not contiguous
    ],
)
def test_conv1d_result_strides(device: str, make: Any, strides: tuple[int, ...]) -> None:
    x = make(device)
    w = _rand(device, 3, x.shape[1], 2, seed=1)
    y = F.conv1d(x, w)
    assert y.stride() == strides
    assert_close(y, to_numpy(F.conv1d(x.contiguous(), w)), rtol=1e-5, atol=1e-5)
    # dropout and the other random fills draw in memory order, so a model's masks follow
    assert tc.empty_like(y).stride() == strides
    wt = _rand(device, 3, 2, 1, seed=2).transpose(1, 2)  # a (3, 1, 2) weight, strides (2, 1, 2)
    assert F.conv1d(_rand(device, 2, 1, 5), wt).stride() == (12, 1, 3)
    yt = F.conv_transpose1d(x, w.transpose(0, 1).contiguous())
    assert yt.stride() == ((18, 1, 3) if strides[1] == 1 else (18, 6, 1))


@pytest.mark.parametrize(
    ("fn", "fmt"),
    [  # PyTorch's layouts on a channels_last_3d input
        (lambda t: F.max_pool3d(t, 2), "CL"),
        (lambda t: F.max_pool3d(t, 2, return_indices=True)[1], "CL"),
        (lambda t: F.avg_pool3d(t, 2), "C"),
        (lambda t: F.adaptive_avg_pool3d(t, (2, 3, 4)), "C"),
        (lambda t: F.adaptive_max_pool3d(t, (2, 3, 4)), "C"),
        (lambda t: F.batch_norm(t, None, None, training=True), "CL"),
        (lambda t: F.lp_pool3d(t, 2.0, 2), "C"),
    ],
)
def test_5d_layouts(device: str, fn: Any, fmt: str) -> None:
    x = _rand(device, 2, 4, 6, 6, 6)
    y = fn(_cl(x))
    assert _fmt(y) == fmt
    assert_close(y, to_numpy(fn(x)), rtol=1e-5, atol=1e-5)


def test_pooling_gradient_follows_input(device: str) -> None:
    """A pooling's input gradient is in its input's format, not the output gradient's."""
    x = _rand(device, 2, 3, 6, 8)
    for pool in (lambda t: F.max_pool2d(t, 2), lambda t: F.avg_pool2d(t, 2)):
        xi = x.clone().requires_grad_()
        y = pool(xi)
        (g,) = tc.autograd.grad(y, xi, _cl(_rand(device, *y.shape, seed=1)))
        assert _fmt(g) == "C"


def test_max_pool_indices_and_cat(device: str) -> None:
    x = _rand(device, 2, 3, 6, 8)
    xc = _cl(x)
    v, i = F.max_pool2d(xc, 2, return_indices=True)
    v0, i0 = F.max_pool2d(x, 2, return_indices=True)
    assert (_fmt(v), _fmt(i)) == ("CL", "CL")
    assert_close(v, to_numpy(v0))
    np.testing.assert_array_equal(to_numpy(i), to_numpy(i0))
    # cat: the format every input suggests, else row-major (PyTorch's rule)
    assert _fmt(tc.cat([xc, xc], 1)) == "CL"
    assert _fmt(tc.cat([xc, x], 1)) == "C"
    assert_close(tc.cat([xc, xc * 2], 2), np.concatenate([to_numpy(x), to_numpy(x) * 2], 2))


def test_batch_norm_backward_follows_input(device: str) -> None:
    x = _rand(device, 4, 3, 5, 5)
    for xf, gf, fmt in [("CL", "C", "CL"), ("C", "CL", "C")]:
        xi = (_cl(x) if xf == "CL" else x.clone()).requires_grad_()
        y = F.batch_norm(xi, None, None, training=True)
        gy = _rand(device, *y.shape, seed=1)
        (g,) = tc.autograd.grad(y, xi, _cl(gy) if gf == "CL" else gy)
        assert _fmt(g) == fmt


def test_double_backward_on_channels_last(device: str) -> None:
    x = _cl(_rand(device, 1, 2, 5, 4, dtype=np.float64)).requires_grad_()
    w = _rand(device, 3, 2, 2, 3, seed=1, dtype=np.float64).requires_grad_()
    assert tc.autograd.gradcheck(lambda a, b: F.conv2d(a, b, padding=1), (x, w))
    assert tc.autograd.gradgradcheck(lambda a, b: F.conv2d(a, b, padding=1), (x, w))
    assert tc.autograd.gradgradcheck(lambda a: F.avg_pool2d(a, 2), (x,))


def test_training_loop_stays_channels_last(device: str) -> None:
    """Two SGD steps of a small CNN in channels-last: every activation and every weight's
    gradient stays channels-last, and the parameters are those of the row-major run."""

    def model() -> tc.nn.Module:
        tc.manual_seed(0)
        return tc.nn.Sequential(
            tc.nn.Conv2d(3, 8, 3, padding=1),
            tc.nn.BatchNorm2d(8),
            tc.nn.ReLU(),
            tc.nn.MaxPool2d(2),
            tc.nn.Conv2d(8, 4, 3, padding=1),
            tc.nn.ReLU(),
            tc.nn.AdaptiveAvgPool2d(1),
            tc.nn.Flatten(),
            tc.nn.Linear(4, 2),
        ).to(device)

    x = _rand(device, 4, 3, 8, 8)
    target = tc.tensor([0, 1, 1, 0], device=device)
    runs = []
    for fmt in (tc.contiguous_format, CL):
        m = model().to(memory_format=fmt)
        opt = tc.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        for _ in range(2):
            h = x.contiguous(memory_format=fmt)
            for layer in m:
                h = layer(h)
                if fmt is CL and h.dim() == 4 and not isinstance(layer, tc.nn.AdaptiveAvgPool2d):
                    assert _fmt(h) == "CL", layer
            loss = F.cross_entropy(h, target)
            opt.zero_grad()
            loss.backward()
            if fmt is CL:
                assert _fmt(m[0].weight.grad) == "CL" and _fmt(m[4].weight.grad) == "CL"
            opt.step()
        runs.append(list(m.parameters()))
    for p, q in zip(*runs, strict=True):
        assert p.stride() == q.contiguous().stride() or _fmt(q) == "CL"
        assert_close(q.detach(), to_numpy(p.detach()), rtol=1e-4, atol=1e-5)


def test_max_unpool2d_keeps_channels_last(device: str) -> None:
    x = _rand(device, 2, 3, 6, 8)
    pooled, idx = F.max_pool2d(_cl(x), 2, return_indices=True)
    got = F.max_unpool2d(pooled, idx, 2)
    assert _fmt(got) == "CL"
    assert_close(got, to_numpy(F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2)))


def test_pixel_shuffle_keeps_channels_last(device: str) -> None:
    x = _rand(device, 1, 8, 2, 3)
    got = F.pixel_shuffle(_cl(x), 2)
    assert _fmt(got) == "CL"
    assert_close(got, to_numpy(F.pixel_shuffle(x, 2)))
    assert _fmt(F.pixel_shuffle(x, 2)) == "C"
