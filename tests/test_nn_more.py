"""glu, softmin, threshold and the in-place activations, pixel_shuffle/unshuffle,
unfold/fold and embedding_bag, functional and module forms: values against NumPy oracles,
gradients by gradcheck, PyTorch's reprs and errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F
from tensorcore import nn
from tensorcore.testing import assert_close

gc = tc.autograd.gradcheck


def t(x: Any, device: str, grad: bool = False) -> tc.Tensor:
    return tc.tensor(np.asarray(x, dtype=np.float64), device=device, requires_grad=grad)


def _np_softmax(x: Any, axis: int) -> Any:
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def test_glu_softmin_threshold(device: str) -> None:
    x = np.random.default_rng(0).normal(size=(3, 4))
    a, b = x[:, :2], x[:, 2:]
    assert_close(F.glu(t(x, device)), a / (1 + np.exp(-b)))
    assert_close(nn.GLU(0)(t(x[:2], device)), x[:1] / (1 + np.exp(-x[1:2])))
    assert_close(F.softmin(t(x, device), dim=1), _np_softmax(-x, 1))
    assert_close(nn.Softmin(0)(t(x, device)), _np_softmax(-x, 0))
    assert_close(F.threshold(t(x, device), 0.1, -5.0), np.where(x > 0.1, x, -5.0))
    assert_close(nn.Threshold(0.1, 2.0)(t(x, device)), np.where(x > 0.1, x, 2.0))
    for fn, args in ((F.glu, ()), (lambda z: F.softmin(z, 0), ()),
                     (lambda z: F.threshold(z, 0.1, 3.0), ())):  # fmt: skip
        assert gc(fn, (t(x, device, True), *args))
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 0"):
        F.glu(t([1.0, 2.0, 3.0], device))
    with pytest.raises(RuntimeError, match="glu does not support scalars"):
        F.glu(t(1.0, device))


def test_inplace_forms(device: str) -> None:
    x = np.array([-2.0, -0.5, 0.0, 0.5, 3.0])
    cases = [
        (lambda z: F.relu_(z), np.maximum(x, 0)),
        (lambda z: F.elu_(z, 2.0), np.where(x > 0, x, 2.0 * np.expm1(np.minimum(x, 0)))),
        (lambda z: F.leaky_relu_(z, 0.2), np.where(x > 0, x, 0.2 * x)),
        (lambda z: F.hardtanh_(z, -1.0, 2.0), np.clip(x, -1.0, 2.0)),
        (lambda z: F.threshold_(z, 0.2, 9.0), np.where(x > 0.2, x, 9.0)),
        (lambda z: F.threshold(z, 0.2, 9.0, inplace=True), np.where(x > 0.2, x, 9.0)),
    ]
    for fn, want in cases:
        z = t(x, device)
        out = fn(z)
        assert out is z
        assert_close(z, want)
        # through autograd: in place on a non-leaf, the gradient of the out-of-place form
        leaf = t([-1.5, 0.7, 2.5], device, True)
        assert gc(lambda v, fn=fn: fn(v * 1.0), (leaf,))


def _np_pixel_shuffle(x: Any, r: int) -> Any:
    *b, c, h, w = x.shape
    y = x.reshape(*b, c // (r * r), r, r, h, w)
    n = len(b)
    y = y.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return y.reshape(*b, c // (r * r), h * r, w * r)


def test_pixel_shuffle_and_unshuffle(device: str) -> None:
    x = np.random.default_rng(1).normal(size=(2, 3, 8, 2, 3))
    y = F.pixel_shuffle(t(x, device), 2)
    assert_close(y, _np_pixel_shuffle(x, 2))
    assert_close(F.pixel_unshuffle(y, 2), x)
    assert_close(nn.PixelUnshuffle(2)(nn.PixelShuffle(2)(t(x, device))), x)
    assert gc(lambda z: F.pixel_shuffle(z, 2), (t(x[0, :1], device, True),))
    small = t(np.arange(16.0).reshape(1, 4, 4), device, True)
    assert gc(lambda z: F.pixel_unshuffle(z, 2), (small,))
    assert repr(nn.PixelShuffle(2)) == "PixelShuffle(upscale_factor=2)"
    assert repr(nn.PixelUnshuffle(3)) == "PixelUnshuffle(downscale_factor=3)"
    with pytest.raises(RuntimeError, match=r"input.size\(-3\)=3 is not divisible by 4"):
        F.pixel_shuffle(t(np.ones((3, 2, 2)), device), 2)
    with pytest.raises(RuntimeError, match="at least 3 dimensions, but got input with 2"):
        F.pixel_unshuffle(t(np.ones((4, 4)), device), 2)
    msg = r"width to be divisible by downscale_factor, but input.size\(-1\)=5"
    with pytest.raises(RuntimeError, match=msg):
        F.pixel_unshuffle(t(np.ones((1, 4, 5)), device), 2)


def _np_unfold(x: Any, k: tuple[int, int], d: tuple[int, int], p: tuple[int, int],
               s: tuple[int, int]) -> Any:  # fmt: skip
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c, k[0], k[1], oh, ow))
    for i in range(k[0]):
        for j in range(k[1]):
            for a in range(oh):
                for b in range(ow):
                    out[:, :, i, j, a, b] = xp[:, :, a * s[0] + i * d[0], b * s[1] + j * d[1]]
    return out.reshape(n, c * k[0] * k[1], oh * ow)


FOLD_CASES = [
    ((2, 3, 5, 6), (2, 2), (1, 1), (0, 0), (1, 1)),
    ((1, 2, 7, 6), (2, 3), (2, 1), (1, 2), (2, 3)),
    ((1, 1, 5, 5), (3, 3), (1, 1), (1, 1), (2, 2)),
]


@pytest.mark.parametrize("case", FOLD_CASES)
def test_unfold_and_fold(device: str, case: Any) -> None:
    shape, k, d, p, s = case
    rng = np.random.default_rng(2)
    x = rng.normal(size=shape)
    cols = _np_unfold(x, k, d, p, s)
    kw = {"dilation": d, "padding": p, "stride": s}
    assert_close(F.unfold(t(x, device), k, **kw), cols)
    assert_close(nn.Unfold(k, **kw)(t(x[0], device)), cols[0])  # unbatched
    # fold is unfold's adjoint: <unfold(x), c> == <x, fold(c)>
    c = rng.normal(size=cols.shape)
    folded = F.fold(t(c, device), shape[2:], k, **kw)
    assert folded.shape == shape
    lhs, rhs = (cols * c).sum(), (x * np.array(folded.cpu().tolist())).sum()
    assert abs(lhs - rhs) < 1e-9 * max(1.0, abs(lhs))
    assert gc(lambda z: F.unfold(z, k, **kw), (t(x[:1, :1], device, True),))
    assert gc(lambda z: F.fold(z, shape[2:], k, **kw), (t(c[:1, : k[0] * k[1]], device, True),))


def test_fold_reprs_and_errors(device: str) -> None:
    assert repr(nn.Unfold(2)) == "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)"
    assert repr(nn.Fold((4, 5), 2)) == (
        "Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)"
    )
    with pytest.raises(RuntimeError, match=r"input.size\(1\)=5 and kernel_size=\(2, 2\)"):
        F.fold(t(np.ones((1, 5, 12)), device), (4, 5), 2)
    msg = r"sliding blocks 3 \* 4 = 12, but got input.size\(2\)=11"
    with pytest.raises(RuntimeError, match=msg):
        F.fold(t(np.ones((1, 8, 11)), device), (4, 5), 2)
    with pytest.raises(RuntimeError, match="calculated shape of the array of sliding blocks"):
        F.unfold(t(np.ones((1, 2, 3, 3)), device), 4)


def _np_bags(idx: Any, offsets: Any, w: Any, mode: str, psw: Any, pad: Any) -> Any:
    ends = [*offsets[1:], len(idx)]
    out = []
    for lo, hi in zip(offsets, ends, strict=True):
        rows = [w[i] * (1.0 if psw is None else psw[j])
                for j, i in enumerate(idx[lo:hi], lo) if i != pad]  # fmt: skip
        if not rows:
            out.append(np.zeros(w.shape[1]))
        else:
            out.append({"sum": np.sum, "mean": np.mean, "max": np.max}[mode](rows, axis=0))
    return np.array(out)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag(device: str, mode: str) -> None:
    rng = np.random.default_rng(3)
    w = rng.normal(size=(7, 3))
    idx, offsets = [1, 2, 4, 5, 4, 3, 0, 6], [0, 3, 3, 5]
    it, ot = tc.tensor(idx, device=device), tc.tensor(offsets, device=device)
    for pad in (None, 0, 4):
        got = F.embedding_bag(it, t(w, device), ot, mode=mode, padding_idx=pad)
        assert_close(got, _np_bags(idx, offsets, w, mode, None, pad))
    # an empty last bag (offsets[-1] == len(input)): no mask is built, the sizes are the gaps
    got = F.embedding_bag(it, t(w, device), tc.tensor([*offsets, 8], device=device), mode=mode)
    assert_close(got, _np_bags(idx, [*offsets, 8], w, mode, None, None))
    # 2-D input: one bag per row; include_last_offset closes the last bag
    got = F.embedding_bag(it.reshape(2, 4), t(w, device), mode=mode)
    assert_close(got, _np_bags(idx, [0, 4], w, mode, None, None))
    ot5 = tc.tensor([*offsets, 7], device=device)
    got = F.embedding_bag(it, t(w, device), ot5, mode=mode, include_last_offset=True)
    assert_close(got, _np_bags(idx[:7], offsets, w, mode, None, None))
    assert gc(lambda wt: F.embedding_bag(it, wt, ot, mode=mode), (t(w, device, True),))
    if mode == "sum":
        psw = rng.normal(size=len(idx))
        got = F.embedding_bag(it, t(w, device), ot, mode="sum", per_sample_weights=t(psw, device))
        assert_close(got, _np_bags(idx, offsets, w, "sum", psw, None))
        fn = lambda wt, p: F.embedding_bag(it, wt, ot, mode="sum", per_sample_weights=p)  # noqa: E731
        assert gc(fn, (t(w, device, True), t(psw, device, True)))
    module = nn.EmbeddingBag(7, 3, mode=mode, padding_idx=0).to(device)
    assert module.weight[0].abs().sum().item() == 0
    assert module(it, ot).shape == (4, 3)


def test_embedding_bag_from_pretrained(device: str) -> None:
    # The text-classification tutorials load GloVe-style vectors this way.
    w = np.arange(12.0).reshape(4, 3)
    bag = nn.EmbeddingBag.from_pretrained(t(w, device), mode="max", padding_idx=0)
    assert not bag.weight.requires_grad and bag.mode == "max" and bag.padding_idx == 0
    assert_close(bag(tc.tensor([[1, 3], [2, 1]], device=device)), w[[3, 2]])
    trainable = nn.EmbeddingBag.from_pretrained(t(w, device), freeze=False, mode="sum")
    trainable(tc.tensor([1, 1, 2], device=device), tc.tensor([0], device=device)).sum().backward()
    assert_close(trainable.weight.grad, np.array([[0.0] * 3, [2.0] * 3, [1.0] * 3, [0.0] * 3]))
    with pytest.raises(AssertionError, match="expected to be 2-dimensional"):
        nn.EmbeddingBag.from_pretrained(tc.ones(3))


def test_embedding_bag_max_ties_send_the_gradient_to_the_first(device: str) -> None:
    w = tc.tensor([[1.0, 2.0], [1.0, 2.0], [0.0, 5.0]], device=device, requires_grad=True)
    idx = tc.tensor([0, 1, 2, 1, 0], device=device)
    out = F.embedding_bag(idx, w, tc.tensor([0, 2, 2], device=device), mode="max")
    out.sum().backward()
    # Bag 0 ties rows 0 and 1 everywhere; bag 2 ties rows 1 and 0 in the first column.
    assert w.grad.tolist() == [[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]


def test_embedding_bag_reprs_and_errors() -> None:
    assert repr(nn.EmbeddingBag(10, 3)) == "EmbeddingBag(10, 3, mode='mean')"
    assert repr(nn.EmbeddingBag(10, 3, mode="sum", padding_idx=0, max_norm=1.0)) == (
        "EmbeddingBag(10, 3, max_norm=1.0, mode='sum', padding_idx=0)"
    )
    w = tc.ones(5, 2)
    i = tc.tensor([0, 1])
    msg = "only supported for mode='sum' \\(got mode='mean'\\)"
    with pytest.raises(NotImplementedError, match=msg):
        F.embedding_bag(i, w, tc.tensor([0]), per_sample_weights=tc.ones(2))
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(i, w)
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None"):
        F.embedding_bag(i.reshape(1, 2), w, tc.tensor([0]))
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        F.embedding_bag(i, w, tc.tensor([0]), mode="min")
    # PyTorch's checks of the offsets' values (the tutorials build them with cumsum)
    with pytest.raises(RuntimeError, match=r"offsets\[0\] has to be 0.*However, got 1"):
        F.embedding_bag(i, w, tc.tensor([1]))
    with pytest.raises(RuntimeError, match="can not be greater than input's length 2 but got"):
        nn.EmbeddingBag(5, 2, include_last_offset=True)(i, tc.tensor([0, 3]))
    assert nn.EmbeddingBag(5, 2, include_last_offset=True)(i, tc.tensor([0, 2])).shape == (1, 2)


def test_module_reprs() -> None:
    assert repr(nn.GLU()) == "GLU(dim=-1)"
    assert repr(nn.Softmin()) == "Softmin(dim=None)" and repr(nn.Softmin(1)) == "Softmin(dim=1)"
    assert repr(nn.Threshold(0.1, 20)) == "Threshold(threshold=0.1, value=20)"
    want = "Threshold(threshold=0.1, value=20.0, inplace=True)"
    assert repr(nn.Threshold(0.1, 20.0, True)) == want
    # AvgPool1d keeps 1-tuples, as PyTorch's (_single)
    pool = nn.AvgPool1d(3, padding=1)
    assert repr(pool) == "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(1,))"
    assert (pool.kernel_size, nn.AvgPool1d(3, 2).stride) == ((3,), (2,))
    assert pool(tc.arange(6.0).reshape(1, 1, 6)).flatten().tolist() == pytest.approx([1 / 3, 3])


@pytest.mark.parametrize("name", ["softplus", "logsigmoid"])
def test_softplus_and_logsigmoid_have_the_sigmoid_gradient_at_the_kink(
    device: str, name: str
) -> None:
    # d softplus = sigmoid(x), d logsigmoid = sigmoid(-x): 0.5 at 0, as PyTorch (a sum of
    # max and log1p(exp(-|x|)) took one-sided slopes there and gave 1)
    v = np.array([0.0, 1.0, -3.0, 15.0])
    x = tc.tensor(v, device=device, requires_grad=True)
    getattr(F, name)(x).sum().backward()
    sig = 1 / (1 + np.exp(-v if name == "softplus" else v))
    np.testing.assert_allclose(x.grad.cpu().numpy(), sig, rtol=1e-12)


@pytest.mark.parametrize(
    "name", ["elu", "leaky_relu", "selu", "silu", "mish", "hardsigmoid", "hardswish"]
)
def test_inplace_activations_of_a_graph_tensor_keep_their_gradient(device: str, name: str) -> None:
    # inplace=True on a tensor inside a graph: the gradient is the out-of-place one (the
    # result used to overwrite the input its backward reads: "modified by an inplace")
    v = np.array([0.5, -1.0, 2.0, -0.25])
    grads = []
    for inplace in (False, True):
        x = tc.tensor(v, device=device, requires_grad=True)
        y = x * 1.0
        out = getattr(F, name)(y, inplace=inplace)
        assert (out is y) == inplace
        out.sum().backward()
        grads.append(x.grad.cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)


def test_max_unpool_inverts_max_pool_with_indices(device: str) -> None:
    # SegNet's decoder: unpool with the encoder's pooling indices.
    x = np.random.default_rng(3).normal(size=(2, 3, 5, 6))
    out, idx = F.max_pool2d(t(x, device), 2, return_indices=True)
    got = nn.MaxUnpool2d(2)(out, idx, output_size=(2, 3, 5, 6))
    want = np.zeros_like(x)
    for n, c, i, j in np.ndindex(2, 3, 2, 3):
        block = x[n, c, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2]
        a, b = np.unravel_index(block.argmax(), block.shape)
        want[n, c, 2 * i + a, 2 * j + b] = block.max()
    assert_close(got, want)
    assert F.max_unpool2d(out, idx, 2).shape == (2, 3, 4, 6)
    assert (
        repr(nn.MaxUnpool2d(2)) == "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))"
    )
    assert gc(
        lambda v: F.max_unpool2d(v, idx, 2, output_size=(5, 6)),
        (t(out.cpu().numpy(), device, True),),
    )
    o1, i1 = F.max_pool1d(t(x[0], device), 2, return_indices=True)
    assert_close(nn.MaxUnpool1d(2)(o1, i1).sum(), o1.sum())
    with pytest.raises(ValueError, match=r"invalid output_size \"\[9, 6\]\""):
        F.max_unpool2d(out, idx, 2, output_size=(9, 6))


@pytest.mark.parametrize(
    "k, stride, pad", [(2, None, 0), (3, 2, 0), (1, 3, 0), (3, 2, 1), (4, 1, 2)]
)
def test_max_pool1d_without_a_gradient_is_the_indexed_pool(
    device: str, k: int, stride: Any, pad: int
) -> None:
    # (no gradient to route: the maxima of a view of the windows; with one: the operator
    # that also returns the indices)
    x = np.random.default_rng(5).normal(size=(2, 3, 11))
    x[0, 0, 4], x[1, 2, :3] = np.nan, -np.inf
    s = k if stride is None else stride
    xp = np.pad(x, [(0, 0), (0, 0), (pad, pad)], constant_values=-np.inf)
    want = np.stack([xp[..., i : i + k].max(-1) for i in range(0, 12 + 2 * pad - k, s)], -1)
    plain = F.max_pool1d(t(x, device), k, stride, pad)
    assert_close(plain, want, equal_nan=True)
    assert_close(F.max_pool1d(t(x[0], device), k, stride, pad), want[0], equal_nan=True)
    traced = F.max_pool1d(t(x, device, True), k, stride, pad)
    assert traced.grad_fn is not None and plain.grad_fn is None
    assert_close(traced.detach(), want, equal_nan=True)


def test_shrink_and_celu_activations(device: str) -> None:
    x = np.array([-2.0, -0.7, -0.3, 0.0, 0.4, 0.6, 3.0])
    xt = t(x, device)
    assert_close(F.celu(xt, alpha=0.5), np.where(x > 0, x, 0.5 * np.expm1(x / 0.5)))
    assert_close(F.hardshrink(xt), np.where(np.abs(x) > 0.5, x, 0.0))
    assert_close(nn.Softshrink(0.5)(xt), np.sign(x) * np.maximum(np.abs(x) - 0.5, 0))
    assert_close(nn.Tanhshrink()(xt), x - np.tanh(x))
    y = t(x, device)
    nn.CELU(inplace=True)(y)
    assert_close(y, np.where(x > 0, x, np.expm1(x)))
    assert [repr(m) for m in (nn.CELU(), nn.Hardshrink(0.3), nn.Softshrink())] == [
        "CELU(alpha=1.0)",
        "Hardshrink(0.3)",
        "Softshrink(0.5)",
    ]
    g = np.array([-1.3, -0.2, 0.9, 1.7])
    for fn in (F.celu, F.softshrink, F.hardshrink, F.tanhshrink):
        assert gc(fn, (t(g, device, True),))
    with pytest.raises(RuntimeError, match="lambda must be greater or equal to 0"):
        F.softshrink(xt, -1.0)


def test_channel_shuffle_local_response_norm_and_softmax2d(device: str) -> None:
    x = np.random.default_rng(5).normal(size=(2, 6, 3, 2))
    xt = t(x, device)
    # (N, g * c, ...) -> (N, c * g, ...): channel j * g + i takes channel i * c + j.
    want = x.reshape(2, 3, 2, 3, 2).transpose(0, 2, 1, 3, 4).reshape(2, 6, 3, 2)
    assert_close(nn.ChannelShuffle(3)(xt), want)
    assert repr(nn.ChannelShuffle(3)) == "ChannelShuffle(groups=3)"
    with pytest.raises(RuntimeError, match="Got 6 channels and 4 groups"):
        F.channel_shuffle(xt, 4)
    size, alpha, beta, k = 3, 0.5, 0.75, 2.0
    sq = np.pad(x * x, [(0, 0), (size // 2, (size - 1) // 2), (0, 0), (0, 0)])
    mean = np.stack([sq[:, c : c + size].mean(1) for c in range(6)], 1)
    want = x / (k + alpha * mean) ** beta
    assert_close(nn.LocalResponseNorm(size, alpha, beta, k)(xt), want)
    # a 3-D input is (N, C, L), as PyTorch reads it
    assert_close(F.local_response_norm(xt[..., 0], size, alpha, beta, k), want[..., 0])
    assert gc(lambda v: F.local_response_norm(v, 2, 0.5), (t(x[:1, :3, :2, :1], device, True),))
    e = np.exp(x)
    assert_close(nn.Softmax2d()(xt), e / e.sum(1, keepdims=True))
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D"):
        nn.Softmax2d()(xt[0, 0])


def test_upsampling_modules_are_upsample_presets(device: str) -> None:
    x = t(np.arange(4.0).reshape(1, 1, 2, 2), device)
    assert_close(nn.UpsamplingNearest2d(scale_factor=2)(x), F.interpolate(x, scale_factor=2))
    assert_close(
        nn.UpsamplingBilinear2d(size=(3, 3))(x),
        F.interpolate(x, size=(3, 3), mode="bilinear", align_corners=True),
    )
    assert repr(nn.UpsamplingBilinear2d(size=(3, 3))) == (
        "UpsamplingBilinear2d(size=(3, 3), mode='bilinear')"
    )


NODE_NAMES: list[tuple[str, Any, str]] = [
    # (what, the call on x of shape (4, 3) requiring grad, PyTorch 2.13's grad_fn name)
    ("linear 2-D", lambda x, w, b: F.linear(x, w, b), "AddmmBackward0"),
    ("linear 2-D, no bias", lambda x, w, b: F.linear(x, w), "MmBackward0"),
    ("linear 1-D", lambda x, w, b: F.linear(x[0], w, b), "ViewBackward0"),
    ("linear 1-D, no bias", lambda x, w, b: F.linear(x[0], w), "SqueezeBackward4"),
    ("linear 3-D", lambda x, w, b: F.linear(x[None], w, b), "ViewBackward0"),
    ("linear 3-D, no bias", lambda x, w, b: F.linear(x[None], w), "UnsafeViewBackward0"),
    ("mse_loss", lambda x, w, b: F.mse_loss(x, x.detach()), "MseLossBackward0"),
    ("mse_loss none", lambda x, w, b: F.mse_loss(x, x.detach(), reduction="none"),
     "MseLossBackward0"),
    ("smooth_l1_loss", lambda x, w, b: F.smooth_l1_loss(x, x.detach()), "SmoothL1LossBackward0"),
    ("huber_loss", lambda x, w, b: F.huber_loss(x, x.detach()), "HuberLossBackward0"),
    ("bce", lambda x, w, b: F.binary_cross_entropy(x.sigmoid(), x.detach().sigmoid()),
     "BinaryCrossEntropyBackward0"),
    ("bce_with_logits", lambda x, w, b: F.binary_cross_entropy_with_logits(x, x.detach()),
     "BinaryCrossEntropyWithLogitsBackward0"),
    ("leaky_relu", lambda x, w, b: F.leaky_relu(x), "LeakyReluBackward0"),
    ("hardtanh", lambda x, w, b: F.hardtanh(x), "HardtanhBackward0"),
    ("relu6", lambda x, w, b: F.relu6(x), "HardtanhBackward0"),
    ("elu", lambda x, w, b: F.elu(x), "EluBackward0"),
    ("selu", lambda x, w, b: F.selu(x), "EluBackward0"),
    ("celu", lambda x, w, b: F.celu(x), "CeluBackward0"),
    ("silu", lambda x, w, b: F.silu(x), "SiluBackward0"),
    ("mish", lambda x, w, b: F.mish(x), "MishBackward0"),
    ("softplus", lambda x, w, b: F.softplus(x), "SoftplusBackward0"),
    ("logsigmoid", lambda x, w, b: F.logsigmoid(x), "LogSigmoidBackward0"),
    ("hardsigmoid", lambda x, w, b: F.hardsigmoid(x), "HardsigmoidBackward0"),
    ("hardswish", lambda x, w, b: F.hardswish(x), "HardswishBackward0"),
    ("glu", lambda x, w, b: F.glu(x[:, :2]), "GluBackward0"),
    ("prelu", lambda x, w, b: F.prelu(x, b[:1]), "PreluKernelBackward0"),
    ("embedding", lambda x, w, b: F.embedding(tc.tensor([0, 1], device=x.device), x),
     "EmbeddingBackward0"),
    ("embedding_bag", lambda x, w, b: F.embedding_bag(tc.tensor([[0, 1]], device=x.device), x),
     "EmbeddingBagBackward0"),
    ("layer_norm", lambda x, w, b: F.layer_norm(x, (3,)), "NativeLayerNormBackward0"),
    ("batch_norm", lambda x, w, b: F.batch_norm(x, None, None, training=True),
     "NativeBatchNormBackward0"),
    ("group_norm", lambda x, w, b: F.group_norm(x.reshape(1, 4, 3), 2), "NativeGroupNormBackward0"),
    ("max_pool2d", lambda x, w, b: F.max_pool2d(x.reshape(1, 1, 4, 3), 2),
     "MaxPool2DWithIndicesBackward0"),
    ("avg_pool2d", lambda x, w, b: F.avg_pool2d(x.reshape(1, 1, 4, 3), 2), "AvgPool2DBackward0"),
    ("interpolate nearest", lambda x, w, b: F.interpolate(x.reshape(1, 1, 4, 3), scale_factor=2),
     "UpsampleNearest2DBackward0"),
    ("interpolate bilinear",
     lambda x, w, b: F.interpolate(x.reshape(1, 1, 4, 3), scale_factor=2, mode="bilinear"),
     "UpsampleBilinear2DBackward0"),
    ("pad constant", lambda x, w, b: F.pad(x, (1, 1)), "ConstantPadNdBackward0"),
    ("pad nothing", lambda x, w, b: F.pad(x, (0, 0)), "ConstantPadNdBackward0"),
    ("pad reflect", lambda x, w, b: F.pad(x[None], (1, 1), mode="reflect"),
     "ReflectionPad1DBackward0"),
    ("pad replicate", lambda x, w, b: F.pad(x[None, None], (1, 1, 1, 1), mode="replicate"),
     "ReplicationPad2DBackward0"),
    ("stack", lambda x, w, b: tc.stack([x, x]), "StackBackward0"),
    ("stack last", lambda x, w, b: tc.stack([x, x], -1), "StackBackward0"),
    ("to double", lambda x, w, b: x.double(), "ToCopyBackward0"),
    ("clamp", lambda x, w, b: x.clamp(0, 1), "ClampBackward1"),
    ("narrow", lambda x, w, b: x.narrow(0, 1, 2), "SliceBackward0"),
    ("gelu", lambda x, w, b: F.gelu(x), "GeluBackward0"),
    ("clamp_min", lambda x, w, b: x.clamp_min(0), "ClampMinBackward0"),
    ("clamp_max", lambda x, w, b: x.clamp_max(0), "ClampMaxBackward0"),
    ("soft_margin_loss", lambda x, w, b: F.soft_margin_loss(x, x.detach().sign()),
     "SoftMarginLossBackward0"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "call", "name"), NODE_NAMES, ids=[c[0] for c in NODE_NAMES])
def test_composites_carry_pytorchs_node_names(device: str, what: str, call: Any, name: str) -> None:
    # Programs print tensors (``grad_fn=<MseLossBackward0>``) and grad_fn; a composite's last
    # node takes the name of the PyTorch operator it stands for.
    x = tc.randn(4, 3, device=device, requires_grad=True)
    w = tc.randn(2, 3, device=device, requires_grad=True)
    b = tc.randn(2, device=device, requires_grad=True)
    y = call(x, w, b)
    assert y.grad_fn.name() == name and type(y.grad_fn).__name__ == name
    assert f"grad_fn=<{name}>" in repr(y)
    y.sum().backward()  # the renamed node still runs
    assert x.grad is not None or w.grad is not None
    with tc.no_grad():
        assert call(x, w, b).grad_fn is None
    z = x.detach().requires_grad_()
    assert F.pad(z, (0, 0)) is not z


def test_pytorchs_nn_modules_paths() -> None:
    # Custom layers import these from PyTorch's module paths.
    from tensorcore.nn.modules.activation import MultiheadAttention
    from tensorcore.nn.modules.batchnorm import BatchNorm2d, _BatchNorm
    from tensorcore.nn.modules.instancenorm import InstanceNorm2d, _InstanceNorm
    from tensorcore.nn.modules.utils import (
        _list_with_default,
        _pair,
        _quadruple,
        _reverse_repeat_tuple,
        _single,
        _triple,
        consume_prefix_in_state_dict_if_present,
    )

    assert MultiheadAttention is nn.MultiheadAttention
    assert nn.modules.utils._pair is _pair and nn.modules.batchnorm._BatchNorm is _BatchNorm
    assert BatchNorm2d is nn.BatchNorm2d and issubclass(nn.BatchNorm1d, _BatchNorm)
    assert InstanceNorm2d is nn.InstanceNorm2d and issubclass(nn.InstanceNorm1d, _InstanceNorm)
    assert (_single(2), _pair(3), _triple((1, 2, 3)), _quadruple(0)) == (
        (2,), (3, 3), (1, 2, 3), (0, 0, 0, 0)
    )  # fmt: skip
    assert _pair([4, 5]) == (4, 5)
    assert _reverse_repeat_tuple((1, 2), 2) == (2, 2, 1, 1)
    assert _list_with_default([None, 3], [1, 8, 9]) == [8, 3]
    with pytest.raises(ValueError, match="Input dimension should be at least 3"):
        _list_with_default([None, 3], [9])

    class _Meta(dict):  # type: ignore[type-arg]
        _metadata: dict[str, Any]

    sd = _Meta({"module.fc.weight": 1, "module.fc.bias": 2, "other": 3})
    sd._metadata = {"": {}, "module": {"v": 1}, "module.fc": {"v": 1}}
    consume_prefix_in_state_dict_if_present(sd, "module.")
    assert sorted(sd) == ["fc.bias", "fc.weight", "other"]
    assert sorted(sd._metadata) == ["", "fc"]
