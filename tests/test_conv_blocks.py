"""The im2col convolution and weight gradient in blocks of samples
(``tensorcore_xp/kernels/nn.py``: ``_COLUMN_BLOCK``) against one block of the whole batch, in
both column layouts (channels last, positions last), with groups, strides, padding and
dilation in one to three spatial dims; and the forward's output written in place (with and
without a bias, in the computing dtype and in a 16-bit one). The flat kernels
(``flat_forward``, ``flat_input_grad``: the padded input split into the stride's phases, one
run per kernel position) against im2col and col2im, in one to three spatial dims, with
groups, strides, padding and dilation, and with a non-finite weight."""

from __future__ import annotations

import numpy as np
import pytest
from tensorcore_xp.kernels import nn as nn_kernels

import tensorcore as tc
from tensorcore.ops import functions as ops
from tensorcore.testing import assert_close

CASES = [
    # (input shape, weight shape, stride, padding, dilation, groups)
    ((3, 16, 9, 8), (8, 16, 3, 3), (1, 1), (1, 1), (1, 1), 1),  # channels last
    ((3, 2, 12, 11), (4, 2, 3, 3), (1, 1), (1, 0), (1, 1), 1),  # positions last
    ((4, 6, 10, 9), (6, 2, 3, 2), (2, 1), (1, 1), (1, 2), 3),
    ((5, 8, 20), (4, 8, 5), (2,), (2,), (1,), 1),
    ((3, 4, 5, 6, 5), (6, 2, 2, 3, 2), (1, 2, 1), (1, 1, 0), (1, 1, 2), 2),
]


@pytest.mark.parametrize(("xs", "ws", "stride", "padding", "dilation", "groups"), CASES)
def test_blocks_of_samples_are_the_whole_batch(
    monkeypatch: pytest.MonkeyPatch,
    xs: tuple[int, ...],
    ws: tuple[int, ...],
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    groups: int,
) -> None:
    nd = len(stride)
    x = tc.randn(*xs)
    w = tc.randn(*ws)
    geo = (list(stride), list(padding), list(dilation))

    def run() -> list[tc.Tensor]:
        y = tc.convolution(x, w, None, *geo, False, [0] * nd, groups)
        gy = tc.cos(tc.arange(y.numel(), dtype=tc.float32)).reshape(y.shape)
        gw = ops.convolution_backward_weight(gy, x, list(ws), *geo, groups)
        return [y, gw]

    monkeypatch.setattr(nn_kernels, "_COLUMN_BLOCK", 1)  # (one sample per block)
    blocked = run()
    monkeypatch.setattr(nn_kernels, "_COLUMN_BLOCK", 1 << 40)  # (one block)
    whole = run()
    for a, b in zip(blocked, whole, strict=True):
        assert a.shape == b.shape
        assert_close(a, b)


@pytest.mark.parametrize("dtype", [tc.float32, tc.float16])
@pytest.mark.parametrize("bias", [False, True])
def test_forward_written_in_place_is_the_float64_result(dtype: tc.dtype, bias: bool) -> None:
    x = tc.randn(3, 16, 7, 6, dtype=tc.float64)
    w = tc.randn(8, 16, 3, 3, dtype=tc.float64)
    b = tc.randn(8, dtype=tc.float64) if bias else None
    want = tc.nn.functional.conv2d(x, w, b, padding=1)
    low = [None if t is None else t.to(dtype) for t in (x, w, b)]
    got = tc.nn.functional.conv2d(*low, padding=1)
    assert got.dtype == dtype and got.is_contiguous()
    tol = 1e-4 if dtype == tc.float32 else 2e-2
    assert_close(got.double(), want, rtol=tol, atol=tol * 10)
    # channels-last output memory (not written in place) gives the same values
    cl = tc.nn.functional.conv2d(
        *(t if t is None or t.ndim < 4 else t.to(memory_format=tc.channels_last) for t in low),
        padding=1,
    )
    assert cl.is_contiguous(memory_format=tc.channels_last)
    assert_close(cl, got)


FLAT = [
    # (input shape, weight shape, stride, padding, dilation, groups)
    ((3, 5, 17), (4, 5, 3), (1,), (1,), (1,), 1),
    ((2, 6, 20), (6, 2, 5), (3,), (2,), (2,), 3),
    ((3, 8, 9, 8), (8, 8, 3, 3), (1, 1), (1, 1), (1, 1), 1),
    ((2, 4, 11, 12), (6, 2, 3, 2), (2, 2), (1, 0), (1, 2), 2),
    ((2, 3, 10, 9), (4, 3, 2, 3), (2, 1), (0, 2), (2, 1), 1),
    ((2, 4, 6, 7, 8), (4, 4, 2, 3, 2), (1, 2, 1), (1, 1, 0), (1, 1, 2), 1),
]


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
@pytest.mark.parametrize(("xs", "ws", "stride", "padding", "dilation", "groups"), FLAT)
def test_flat_forward_is_the_im2col_one(
    monkeypatch: pytest.MonkeyPatch,
    dtype: tc.dtype,
    xs: tuple[int, ...],
    ws: tuple[int, ...],
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    groups: int,
) -> None:
    nd = len(stride)
    x = tc.randn(*xs, dtype=dtype).transpose(-1, -2).contiguous().transpose(-1, -2)
    w = tc.randn(*ws, dtype=dtype)
    b = tc.randn(ws[0], dtype=dtype)
    geo = (list(stride), list(padding), list(dilation))

    def run() -> list[tc.Tensor]:
        y = tc.convolution(x, w, b, *geo, False, [0] * nd, groups)
        gy = tc.cos(tc.arange(y.numel(), dtype=dtype)).reshape(y.shape)
        gx = ops.convolution_backward_input(gy, w, list(xs), *geo, groups)
        gw = ops.convolution_backward_weight(gy, x, list(ws), *geo, groups)
        return [y, gx, gw]

    monkeypatch.setattr(nn_kernels, "_FLAT_WASTE", 100.0)  # (every one flat)
    flat = run()
    monkeypatch.setattr(nn_kernels, "_DEPTHWISE_BLOCK", 1)  # (one sample per block)
    one = run()
    monkeypatch.setattr(nn_kernels, "_FLAT_WASTE", 0)  # (im2col)
    want = run()
    for a, c, w_ in zip(flat, one, want, strict=True):
        assert a.shape == w_.shape
        assert_close(a, w_)
        assert_close(c, w_)


def test_flat_input_grad_of_a_non_finite_weight_is_col2im_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the flat layout multiplies zeros past each row's outputs by the weight: an infinite
    # weight would add NaN where col2im adds nothing
    w = tc.randn(4, 3, 3, 3)
    w[0, 1, 2, 2] = float("inf")
    gy = tc.randn(2, 4, 15, 15)  # (rows of 15 outputs on phase rows of 16)
    args = (gy, w, [2, 3, 32, 32], [2, 2], [0, 0], [1, 1], 1)
    got = ops.convolution_backward_input(*args)
    monkeypatch.setattr(nn_kernels, "_FLAT_WASTE", 0)
    want = ops.convolution_backward_input(*args)
    np.testing.assert_array_equal(np.isnan(got.numpy()), np.isnan(want.numpy()))
    assert_close(got, want, equal_nan=True)


def test_flat_weight_grad_of_a_non_finite_input_is_the_im2col_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the zeros past each row's outputs times an infinite input element would make NaN in
    # kernel positions that never met it
    x = tc.randn(2, 3, 32, 32)
    x[1, 2, 5, 0] = float("inf")
    gy = tc.randn(2, 4, 15, 15)
    args = (gy, x, [4, 3, 3, 3], [2, 2], [0, 0], [1, 1], 1)
    got = ops.convolution_backward_weight(*args)
    monkeypatch.setattr(nn_kernels, "_FLAT_WASTE", 0)
    want = ops.convolution_backward_weight(*args)
    np.testing.assert_array_equal(np.isnan(got.numpy()), np.isnan(want.numpy()))
    assert_close(got, want, equal_nan=True)
