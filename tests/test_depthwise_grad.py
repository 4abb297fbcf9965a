"""The depthwise convolution's own kernels (``tensorcore_xp/kernels/nn.py``:
``flat_forward``, ``depthwise_input_grad`` and ``depthwise_weight_grad``, in blocks of
samples, on the padded input split into the stride's phases and flattened; the input gradient
as the forward of the flipped kernel at stride 1) against the im2col paths, in one, two and
three spatial dims, with padding, dilation, strides (unequal ones too), non-square kernels and
non-contiguous inputs; grouped (not depthwise) convolutions keep the im2col path."""

from __future__ import annotations

import numpy as np
import pytest
from tensorcore_xp.kernels import nn as nn_kernels

import tensorcore as tc
from tensorcore.ops import functions as ops
from tensorcore.testing import assert_close

CASES = [
    # (input shape, kernel, padding, dilation)
    ((2, 3, 9), (3,), (1,), (1,)),
    ((2, 4, 11), (5,), (0,), (2,)),
    ((3, 5, 8, 7), (3, 3), (1, 1), (1, 1)),
    ((2, 6, 9, 10), (2, 3), (0, 2), (1, 1)),
    ((1, 4, 12, 9), (3, 2), (2, 1), (2, 3)),
    ((2, 3, 5, 6, 4), (3, 2, 3), (1, 0, 1), (1, 2, 1)),
]


def _input(shape: tuple[int, ...], dtype: tc.dtype) -> tc.Tensor:
    """A random input of ``shape``, non-contiguous where it has two spatial dims or more."""
    x = tc.randn(*shape, dtype=dtype)
    if len(shape) > 3:
        x = x.transpose(-1, -2).contiguous().transpose(-1, -2)
    return x


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
@pytest.mark.parametrize(("shape", "kernel", "padding", "dilation"), CASES)
def test_depthwise_weight_grad_is_the_im2col_one(
    monkeypatch: pytest.MonkeyPatch,
    dtype: tc.dtype,
    shape: tuple[int, ...],
    kernel: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
) -> None:
    nd = len(kernel)
    c = shape[1]
    x = _input(shape, dtype)
    outs = [shape[2 + i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) for i in range(nd)]
    gy = tc.randn(shape[0], c, *outs, dtype=dtype)
    args = (gy, x, [c, 1, *kernel], [1] * nd, list(padding), list(dilation), c)
    flat = ops.convolution_backward_weight(*args)
    monkeypatch.setattr(nn_kernels, "_DEPTHWISE_FLAT", False)
    im2col = ops.convolution_backward_weight(*args)
    assert flat.shape == im2col.shape == (c, 1, *kernel)
    assert_close(flat, im2col)


STRIDED = [
    # (input shape, kernel, stride, padding, dilation)
    ((2, 3, 9), (3,), (2,), (1,), (1,)),
    ((3, 4, 9, 8), (3, 3), (2, 2), (1, 1), (1, 1)),
    ((2, 5, 11, 10), (3, 2), (3, 3), (2, 0), (2, 1)),
    ((2, 3, 8, 9), (3, 3), (2, 1), (1, 1), (1, 1)),
    ((2, 3, 5, 6, 7), (2, 3, 2), (2, 2, 2), (0, 1, 1), (1, 1, 2)),
    # strides past the kernel's reach (inputs no window reads), padding past a stride, and
    # fewer positions than the stride (phases without elements)
    ((2, 2, 13), (3,), (4,), (0,), (1,)),
    ((2, 3, 10, 7), (2, 2), (3, 3), (4, 1), (1, 1)),
    ((1, 2, 2), (1,), (3,), (0,), (1,)),
]


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
@pytest.mark.parametrize(
    ("shape", "kernel", "stride", "padding", "dilation"),
    [(s, k, (1,) * len(k), p, d) for s, k, p, d in CASES] + STRIDED,
)
def test_depthwise_forward_and_gradients_are_the_im2col_ones(
    monkeypatch: pytest.MonkeyPatch,
    dtype: tc.dtype,
    shape: tuple[int, ...],
    kernel: tuple[int, ...],
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
) -> None:
    nd = len(kernel)
    c = shape[1]
    x = _input(shape, dtype)
    w = tc.randn(c, 1, *kernel, dtype=dtype)
    geo = (list(stride), list(padding), list(dilation))

    def run() -> list[tc.Tensor]:
        y = tc.convolution(x, w, None, *geo, False, [0] * nd, c)
        gy = tc.cos(tc.arange(y.numel(), dtype=dtype)).reshape(y.shape)
        gx = ops.convolution_backward_input(gy, w, list(shape), *geo, c)
        gw = ops.convolution_backward_weight(gy, x, [c, 1, *kernel], *geo, c)
        return [y, gx, gw]

    got = run()
    monkeypatch.setattr(nn_kernels, "_DEPTHWISE_FLAT", False)
    monkeypatch.setattr(nn_kernels, "_FLAT_WASTE", 0)  # (im2col for every convolution)
    want = run()
    monkeypatch.setattr(nn_kernels, "_FLAT_WASTE", 1.1)
    monkeypatch.setattr(nn_kernels, "_DEPTHWISE_BLOCK", 1)  # (one sample per block)
    monkeypatch.setattr(nn_kernels, "_DEPTHWISE_FLAT", True)
    for a, b, one in zip(got, want, run(), strict=True):
        assert a.shape == b.shape
        assert_close(a, b)
        assert_close(one, b)


def test_depthwise_conv_gradients_through_autograd() -> None:
    x = tc.randn(2, 3, 6, 5, dtype=tc.float64, requires_grad=True)
    w = tc.randn(3, 1, 3, 2, dtype=tc.float64, requires_grad=True)

    def f(a: tc.Tensor, b: tc.Tensor) -> tc.Tensor:
        return tc.nn.functional.conv2d(a, b, padding=(1, 2), dilation=(1, 2), groups=3)

    assert tc.autograd.gradcheck(f, (x, w))


def test_grouped_convolutions_keep_the_im2col_path_and_unequal_strides_take_the_phases(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    x = tc.randn(2, 4, 8, 8, dtype=tc.float64)
    for w_shape, stride, groups in [([4, 1, 3, 3], [2, 1], 4), ([4, 2, 3, 3], [1, 1], 2)]:
        outs = [(8 + 2 - 3) // s + 1 for s in stride]
        gy = tc.randn(2, 4, *outs, dtype=tc.float64)
        args = (gy, x, w_shape, stride, [1, 1], [1, 1], groups)
        got = ops.convolution_backward_weight(*args)
        monkeypatch.setattr(nn_kernels, "_DEPTHWISE_FLAT", False)
        want = ops.convolution_backward_weight(*args)
        monkeypatch.setattr(nn_kernels, "_DEPTHWISE_FLAT", True)
        assert got.shape == tuple(w_shape)
        if groups == 4:  # depthwise: its own sums, equal up to rounding
            assert_close(got, want)
            assert not np.array_equal(got.numpy(), want.numpy())
        else:  # grouped: the same im2col path, bit for bit
            np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("stride", [1, 2])
def test_depthwise_weight_grad_with_an_infinite_input_is_finite_where_it_never_met_it(
    stride: int,
) -> None:
    """An infinite input element reaches only the kernel positions that multiply it by the
    gradient of a real output: the others stay finite (a direct sum over the outputs, in
    float64, is the oracle)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 6, 6))
    x[0, 0, 0, 0] = np.inf
    w = rng.standard_normal((3, 1, 3, 3))
    xt = tc.from_numpy(x)
    wt = tc.from_numpy(w).requires_grad_()
    y = tc.nn.functional.conv2d(xt, wt, stride=stride, padding=1, groups=3)
    (gw,) = tc.autograd.grad(y.sum(), wt)
    xp_ = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    oh, ow = y.shape[2:]
    want = np.zeros_like(w)
    for ki in range(3):
        for kj in range(3):
            patch = xp_[:, :, ki : ki + stride * oh : stride, kj : kj + stride * ow : stride]
            want[:, 0, ki, kj] = patch.sum(axis=(0, 2, 3))  # (the gradient of a sum: ones)
    np.testing.assert_allclose(gw.numpy(), want, rtol=1e-9, atol=1e-12)
    assert np.isfinite(gw.numpy()[0, 0, 2, 2])
