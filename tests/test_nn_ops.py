"""Convolution and pooling operators against direct NumPy loops (the oracle), on every
device; their gradients are checked by the generic gradcheck over the operator samples."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close

F64 = tc.float64


def _conv_oracle(
    x: Any,
    w: Any,
    b: Any,
    stride: tuple[int, ...],
    pad: tuple[int, ...],
    dil: tuple[int, ...],
    groups: int,
) -> Any:
    """Direct sum over output positions, channels and kernel taps."""
    n = x.shape[0]
    o, cg = w.shape[:2]
    k = w.shape[2:]
    nd = len(k)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    outs = [
        (x.shape[2 + i] + 2 * pad[i] - dil[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(nd)
    ]
    y = np.zeros((n, o, *outs))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for pos in itertools.product(*(range(s) for s in outs)):
            acc = np.zeros(n)
            for tap in itertools.product(*(range(s) for s in k)):
                idx = tuple(pos[i] * stride[i] + tap[i] * dil[i] for i in range(nd))
                acc += (
                    xp[(slice(None), slice(g * cg, (g + 1) * cg), *idx)]
                    * w[(oc, slice(None), *tap)]
                ).sum(1)
            y[(slice(None), oc, *pos)] = acc + (b[oc] if b is not None else 0)
    return y


def _conv_transpose_oracle(
    x: Any,
    w: Any,
    stride: tuple[int, ...],
    pad: tuple[int, ...],
    dil: tuple[int, ...],
    opad: tuple[int, ...],
    groups: int,
) -> Any:
    """Scatter form: each input element adds weight * value into the output."""
    n, c = x.shape[:2]
    cin_g = c // groups
    og = w.shape[1]
    k = w.shape[2:]
    nd = len(k)
    full = [(x.shape[2 + i] - 1) * stride[i] + dil[i] * (k[i] - 1) + 1 + opad[i] for i in range(nd)]
    y = np.zeros((n, og * groups, *full))
    for ic in range(c):
        g = ic // cin_g
        for pos in itertools.product(*(range(s) for s in x.shape[2:])):
            v = x[(slice(None), ic, *pos)]
            for tap in itertools.product(*(range(s) for s in k)):
                idx = tuple(pos[i] * stride[i] + tap[i] * dil[i] for i in range(nd))
                y[(slice(None), slice(g * og, (g + 1) * og), *idx)] += (
                    v[:, None] * w[(ic, slice(None), *tap)][None, :]
                )
    crop = tuple(slice(pad[i], full[i] - pad[i] + 0) for i in range(nd))
    out = y[(slice(None), slice(None), *crop)]
    return out


CONV_CASES = [
    # (input shape, weight shape, stride, padding, dilation, groups)
    ((2, 3, 7), (4, 3, 3), (1,), (0,), (1,), 1),
    ((1, 4, 9), (6, 2, 2), (2,), (1,), (2,), 2),
    ((2, 3, 6, 5), (4, 3, 3, 2), (1, 2), (1, 0), (1, 1), 1),
    ((1, 4, 7, 7), (4, 1, 3, 3), (2, 2), (1, 1), (2, 1), 4),
    ((1, 2, 4, 5, 4), (3, 2, 2, 3, 2), (1, 2, 1), (0, 1, 1), (1, 1, 2), 1),
    # Many channels: the kernels copy windows channels last (see ``columns`` in
    # tensorcore_xp/kernels/nn.py), with and without groups; few channels, positions last.
    ((2, 8, 5, 4), (3, 8, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((1, 12, 5, 5), (6, 4, 2, 3), (2, 1), (0, 2), (1, 1), 3),
    ((1, 1, 9, 8), (2, 1, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    # The input gradient (and a transposed convolution's output) at stride 1 with 8 or more
    # channels per group is a convolution of the gradient with the flipped weight; padding
    # beyond the kernel's reach, or fewer channels, keeps col2im; a depthwise weight (one
    # channel per group) takes one multiply-add per kernel position.
    ((1, 8, 5, 5), (16, 8, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((1, 16, 6, 5), (4, 8, 3, 3), (1, 1), (2, 0), (2, 1), 2),
    ((2, 8, 5), (4, 8, 3), (1,), (3,), (1,), 1),
    ((2, 6, 9), (6, 1, 3), (1,), (2,), (2,), 6),
    # 1x1 kernels without padding or groups: one matmul per sample (strided: the positions
    # read copied once), in 1, 2 and 3 dims; with groups or padding, the general path.
    ((2, 8, 5, 4), (3, 8, 1, 1), (1, 1), (0, 0), (1, 1), 1),
    ((2, 3, 7, 6), (4, 3, 1, 1), (2, 3), (0, 0), (1, 1), 1),
    ((2, 3, 7), (5, 3, 1), (2,), (0,), (1,), 1),
    ((1, 2, 3, 4, 5), (3, 2, 1, 1, 1), (1, 2, 1), (0, 0, 0), (1, 1, 1), 1),
    ((2, 4, 5, 4), (6, 2, 1, 1), (1, 1), (0, 0), (1, 1), 2),
    ((2, 3, 5, 4), (4, 3, 1, 1), (1, 1), (1, 0), (1, 1), 1),
]


@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: f"{len(c[0]) - 2}d")
@pytest.mark.parametrize("transposed", [False, True])
def test_convolution_gradients(device: str, case: Any, transposed: bool) -> None:
    xs, ws, stride, pad, dil, groups = case
    if transposed:  # the weight maps the input's channels to the output's channels per group
        ws = (xs[1], ws[0] // groups, *ws[2:])
        pad = tuple(min(p, d * (k - 1)) for p, d, k in zip(pad, dil, ws[2:], strict=True))
    g = tc.Generator().manual_seed(0)
    x = tc.randn(xs, dtype=F64, generator=g).to(device).requires_grad_()
    w = tc.randn(ws, dtype=F64, generator=g).to(device).requires_grad_()
    opad = (0,) * len(stride)

    def f(x: tc.Tensor, w: tc.Tensor) -> tc.Tensor:
        return tc.convolution(x, w, None, stride, pad, dil, transposed, opad, groups)

    assert tc.autograd.gradcheck(f, (x, w))


@pytest.mark.parametrize("case", CONV_CASES, ids=lambda c: f"{len(c[0]) - 2}d")
def test_convolution_matches_direct_sum(device: str, case: Any) -> None:
    xs, ws, stride, pad, dil, groups = case
    rng = np.random.default_rng(0)
    x, w, b = rng.normal(size=xs), rng.normal(size=ws), rng.normal(size=ws[0])
    got = tc.convolution(
        tc.tensor(x, device=device),
        tc.tensor(w, device=device),
        tc.tensor(b, device=device),
        stride,
        pad,
        dil,
        False,
        (0,),
        groups,
    )
    assert_close(got, _conv_oracle(x, w, b, stride, pad, dil, groups))


@pytest.mark.parametrize(
    "case",
    [
        ((1, 2, 3, 4), (2, 3, 3, 3), (2, 2), (1, 1), (1, 1), (1, 0), 1),
        ((2, 4, 5), (4, 1, 3), (2,), (0,), (2,), (1,), 2),
        ((1, 3, 2, 2), (3, 2, 2, 2), (1, 1), (0, 0), (1, 1), (0, 0), 1),
    ],
)
def test_transposed_convolution_matches_scatter(device: str, case: Any) -> None:
    xs, ws, stride, pad, dil, opad, groups = case
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=xs), rng.normal(size=ws)
    got = tc.convolution(
        tc.tensor(x, device=device),
        tc.tensor(w, device=device),
        None,
        stride,
        pad,
        dil,
        True,
        opad,
        groups,
    )
    assert_close(got, _conv_transpose_oracle(x, w, stride, pad, dil, opad, groups))


def _pool_oracle(
    x: Any,
    k: tuple[int, int],
    s: tuple[int, int],
    p: tuple[int, int],
    d: tuple[int, int],
    ceil: bool,
    kind: str,
    include_pad: bool = True,
    divisor: int | None = None,
) -> tuple[Any, Any]:
    n, c, h, w = x.shape
    outs = []
    for i, size in enumerate((h, w)):
        span = size + 2 * p[i] - d[i] * (k[i] - 1) - 1
        o = (math.ceil(span / s[i]) if ceil else span // s[i]) + 1
        if ceil and (o - 1) * s[i] >= size + p[i]:
            o -= 1
        outs.append(o)
    vals = np.zeros((n, c, *outs))
    idx = np.zeros((n, c, *outs), dtype=np.int64)
    for oh, ow in itertools.product(range(outs[0]), range(outs[1])):
        h0, w0 = oh * s[0] - p[0], ow * s[1] - p[1]
        taps = [(h0 + a * d[0], w0 + b * d[1]) for a in range(k[0]) for b in range(k[1])]
        inside = [(i, j) for i, j in taps if 0 <= i < h and 0 <= j < w]
        stack = np.stack([x[:, :, i, j] for i, j in inside], -1)
        if kind == "max":
            am = stack.argmax(-1)
            vals[:, :, oh, ow] = stack.max(-1)
            flat = np.array([i * w + j for i, j in inside])
            idx[:, :, oh, ow] = flat[am]
        else:
            if divisor is not None:
                div = divisor
            elif include_pad:
                he = min(h0 + k[0], h + p[0])
                we = min(w0 + k[1], w + p[1])
                div = (he - h0) * (we - w0)
            else:
                div = len(inside)
            vals[:, :, oh, ow] = stack.sum(-1) / div
    return vals, idx


POOL_CASES = [
    # kernel, stride, padding, dilation, ceil_mode
    ((2, 2), (2, 2), (0, 0), (1, 1), False),
    ((3, 3), (2, 2), (1, 1), (1, 1), True),
    ((3, 2), (1, 2), (1, 0), (1, 1), False),
    ((2, 3), (2, 1), (1, 1), (2, 1), True),
]


@pytest.mark.parametrize("case", POOL_CASES)
def test_max_pool2d_matches_loops(device: str, case: Any) -> None:
    k, s, p, d, ceil = case
    x = np.random.default_rng(2).permutation(2 * 3 * 7 * 8).reshape(2, 3, 7, 8) * 0.5
    vals, idx = tc.max_pool2d_with_indices(tc.tensor(x, device=device), k, s, p, d, ceil)
    want_v, want_i = _pool_oracle(x, k, s, p, d, ceil, "max")
    assert_close(vals, want_v)
    assert idx.tolist() == want_i.tolist()


@pytest.mark.parametrize("case", [c for c in POOL_CASES if c[3] == (1, 1)])
@pytest.mark.parametrize("include_pad", [True, False])
@pytest.mark.parametrize("divisor", [None, 3])
def test_avg_pool2d_matches_loops(device: str, case: Any, include_pad: bool, divisor: Any) -> None:
    k, s, p, _, ceil = case
    x = np.random.default_rng(3).normal(size=(2, 2, 7, 8))
    got = tc.avg_pool2d(tc.tensor(x, device=device), k, s, p, ceil, include_pad, divisor)
    want, _ = _pool_oracle(x, k, s, p, (1, 1), ceil, "avg", include_pad, divisor)
    assert_close(got, want)


@pytest.mark.parametrize(
    ("row", "kernel", "stride", "want"),
    [
        # Ties: the first maximum; NaN: the last NaN of the window (PyTorch's CPU kernel).
        ([3.0, 3.0, 1.0, 2.0], 4, 4, [0]),
        ([math.nan, 1.0, math.nan, 2.0], 4, 4, [2]),
        ([1.0, math.nan, math.nan, 2.0], 2, 1, [1, 2, 2]),
        ([-math.inf, -math.inf, 5.0, 5.0], 2, 2, [0, 2]),
    ],
)
def test_max_pool_indices_of_ties_and_nan(
    device: str, row: list[float], kernel: int, stride: int, want: list[int]
) -> None:
    x = tc.tensor(row, device=device).reshape(1, 1, 1, -1)
    values, indices = tc.max_pool2d_with_indices(x, (1, kernel), (1, stride), (0, 0), (1, 1), False)
    assert indices.flatten().tolist() == want
    assert_close(values.flatten(), np.asarray(row, dtype=np.float32)[want], equal_nan=True)


def test_pool_and_conv_gradients_on_larger_inputs(device: str) -> None:
    g = tc.Generator().manual_seed(0)
    x = tc.randn(2, 3, 9, 8, dtype=F64, generator=g).to(device).requires_grad_()
    w = tc.randn(4, 3, 3, 3, dtype=F64, generator=g).to(device).requires_grad_()

    def f(x: tc.Tensor, w: tc.Tensor) -> tc.Tensor:
        y = tc.convolution(x, w, None, (1,), (1,), (1,), False, (0,), 1)
        y = tc.max_pool2d_with_indices(y, (2,), (2,), (0,), (1,), True)[0]
        return tc.avg_pool2d(y, (2,), (1,), (1,), False, False)

    assert tc.autograd.gradcheck(f, (x, w))


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (((1, 3, 5, 5), (4, 2, 3, 3), 1), "expected input\\[1, 3, 5, 5\\] to have 2 channels"),
        (((1, 3, 2, 2), (4, 3, 3, 3), 1), "Kernel size can't be greater than actual input size"),
        (((3, 5, 5), (4, 3, 3, 3), 1), "expected a 4-D input"),
        (((1, 4, 5, 5), (3, 2, 3, 3), 2), "divisible by 2"),
    ],
)
def test_convolution_errors_name_the_shapes(args: Any, match: str) -> None:
    xs, ws, groups = args
    with pytest.raises(RuntimeError, match=match):
        tc.convolution(tc.ones(*xs), tc.ones(*ws), None, (1,), (0,), (1,), False, (0,), groups)


def test_convolution_dtypes(device: str) -> None:
    with pytest.raises(RuntimeError, match="should be the same"):
        tc.convolution(
            tc.ones(1, 1, 3, 3, device=device),
            tc.ones(1, 1, 2, 2, dtype=F64, device=device),
            None,
            (1,),
            (0,),
            (1,),
            False,
            (0,),
            1,
        )
    # Integers compute, as PyTorch's CPU convolution and pools do; complex and bool do not.
    x = np.arange(16).reshape(1, 1, 4, 4)
    w = np.array([[[[1, -2], [3, 1]]]])
    got = tc.convolution(
        tc.tensor(x, device=device),
        tc.tensor(w, device=device),
        None,
        (1,),
        (0,),
        (1,),
        False,
        (0,),
        1,
    )
    assert got.dtype is tc.int64
    assert got.tolist() == _conv_oracle(x, w, None, (1, 1), (0, 0), (1, 1), 1).astype(int).tolist()
    pooled = tc.avg_pool2d(tc.tensor(-x, device=device), (2,))
    assert pooled.tolist() == [[[[-2, -4], [-10, -12]]]]  # truncated toward zero
    with pytest.raises(NotImplementedError, match="ComplexFloat"):
        tc.convolution(
            tc.ones(1, 1, 3, 3, dtype=tc.complex64, device=device),
            tc.ones(1, 1, 2, 2, dtype=tc.complex64, device=device),
            None,
            (1,),
            (0,),
            (1,),
            False,
            (0,),
            1,
        )


def test_pool_errors() -> None:
    with pytest.raises(RuntimeError, match="pad should be at most half"):
        tc.max_pool2d_with_indices(tc.ones(1, 1, 4, 4), (2,), (2,), (2,))
    with pytest.raises(RuntimeError, match="output size would be too small"):
        tc.avg_pool2d(tc.ones(1, 1, 2, 2), (3,))


@pytest.mark.parametrize("mask", list(itertools.product((0, 1), repeat=3)))
def test_linear_backward_makes_only_the_gradients_asked_for(device: str, mask: Any) -> None:
    # PyTorch returns an undefined tensor (None) for an output the mask leaves out: the first
    # layer's input gradient is never allocated nor filled.
    rng = np.random.default_rng(0)
    g, x, w = (rng.standard_normal(s) for s in ((4, 5, 2), (4, 5, 3), (2, 3)))
    res = tc.ops.functions.linear_backward(*(tc.tensor(a, device=device) for a in (g, x, w)), mask)
    g2, x2 = g.reshape(-1, 2), x.reshape(-1, 3)
    want = ((g2 @ w).reshape(x.shape), g2.T @ x2, g2.sum(0))
    for got, exp, m in zip(res, want, mask, strict=True):
        if m:
            assert_close(got, exp)
        else:
            assert got is None


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "3d"])
def test_batch_norm_training_against_numpy(device: str, affine: bool, layout: str) -> None:
    # The training kernels take per-channel contractions over (N, C, L) views of contiguous
    # arrays, and the reductions of the general path for any other layout: both against the
    # float64 formulas, the running statistics included.
    rng = np.random.default_rng(0)
    shape = (3, 4, 5) if layout == "3d" else (3, 4, 5, 6)
    x = rng.standard_normal(shape) * 2 + 3
    g = rng.standard_normal(shape)
    w, b = rng.uniform(0.5, 1.5, 4), rng.standard_normal(4)
    axes = (0, *range(2, len(shape)))
    cs = (1, 4) + (1,) * (len(shape) - 2)
    mu, var = x.mean(axes), x.var(axes)
    xhat = (x - mu.reshape(cs)) / np.sqrt(var.reshape(cs) + 1e-5)
    ww = w if affine else np.ones(4)
    y = xhat * ww.reshape(cs) + (b.reshape(cs) if affine else 0)
    gxhat = g * ww.reshape(cs)
    gx = gxhat - gxhat.mean(axes, keepdims=True) - xhat * (gxhat * xhat).mean(axes, keepdims=True)
    gx /= np.sqrt(var.reshape(cs) + 1e-5)
    for dtype, tol in ((tc.float64, {}), (tc.float32, {"atol": 1e-4, "rtol": 1e-4})):
        t = tc.tensor(x, dtype=dtype, device=device)
        if layout == "channels_last":
            t = t.contiguous(memory_format=tc.channels_last)
        t.requires_grad_()
        wt, bt = (tc.tensor(a, dtype=dtype, device=device, requires_grad=True) for a in (w, b))
        rm, rv = tc.zeros(4, dtype=dtype, device=device), tc.ones(4, dtype=dtype, device=device)
        out = tc.nn.functional.batch_norm(
            t, rm, rv, wt if affine else None, bt if affine else None, True, 0.1, 1e-5
        )
        out.backward(tc.tensor(g, dtype=dtype, device=device))
        assert_close(out, y, check_dtype=False, **tol)
        assert_close(t.grad, gx, check_dtype=False, **tol)
        assert_close(rm, 0.1 * mu, check_dtype=False, **tol)
        n = x.size // 4
        assert_close(rv, 0.9 + 0.1 * var * n / (n - 1), check_dtype=False, **tol)
        if affine:
            assert_close(wt.grad, (g * xhat).sum(axes), check_dtype=False, **tol)
            assert_close(bt.grad, g.sum(axes), check_dtype=False, **tol)
