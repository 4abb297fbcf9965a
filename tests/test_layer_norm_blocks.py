"""The NumPy layer norm backward runs over blocks of rows (``tensorcore_xp/kernels/nn.py``,
``row_blocks``): every row's input gradient is the bits of one pass over the whole array, the
weight's and bias's gradients the same sums added block by block; layouts a block view cannot
take (a transposed input) keep the whole-array path."""

from __future__ import annotations

import numpy as np
import pytest
from tensorcore_xp.kernels import nn as nn_kernels

import tensorcore as tc
from tensorcore.testing import assert_close


def _run(x: tc.Tensor, shape: list[int], affine: bool) -> tuple[np.ndarray, ...]:
    x = x.detach().requires_grad_()
    n = int(np.prod(shape))
    w = tc.linspace(0.5, 1.5, n, dtype=x.dtype).reshape(shape).requires_grad_() if affine else None
    b = tc.linspace(-1, 1, n, dtype=x.dtype).reshape(shape).requires_grad_() if affine else None
    y = tc.nn.functional.layer_norm(x, shape, w, b)
    g = tc.cos(tc.arange(y.numel(), dtype=x.dtype)).reshape(y.shape)
    y.backward(g)
    grads = (w.grad.numpy(), b.grad.numpy()) if affine else ()
    return (y.detach().numpy(), x.grad.numpy(), *grads)


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize(("shape", "norm"), [((300, 7, 64), [64]), ((50, 33, 20), [33, 20])])
def test_blocks_of_rows_compute_what_one_pass_computes(
    monkeypatch: pytest.MonkeyPatch,
    dtype: tc.dtype,
    affine: bool,
    shape: tuple[int, ...],
    norm: list[int],
) -> None:
    x = tc.randn(*shape, dtype=dtype) * 3 + 1
    assert x.numel() > 4 * nn_kernels._ROW_BLOCK // 64  # (several blocks)
    monkeypatch.setattr(nn_kernels, "_ROW_BLOCK", 1 << 12)
    blocked = _run(x, norm, affine)
    monkeypatch.setattr(nn_kernels, "_ROW_BLOCK", 1 << 40)  # one block: the whole array
    whole = _run(x, norm, affine)
    np.testing.assert_array_equal(blocked[0], whole[0])
    np.testing.assert_array_equal(blocked[1], whole[1])
    # (sums of 2100 float32 rows, added in another order: float32 rounding)
    tol = 1e-4 if dtype is tc.float32 else 1e-12
    for b, w in zip(blocked[2:], whole[2:], strict=True):
        assert_close(tc.from_numpy(b), tc.from_numpy(w), rtol=tol, atol=tol)


def test_a_layout_without_row_blocks_takes_the_whole_array_path() -> None:
    x = tc.randn(40, 64, dtype=tc.float64)
    xt = x.t().contiguous().t()  # the same values, column-major: no (rows, n) view
    assert not xt.is_contiguous()
    for got, want in zip(_run(xt, [64], True), _run(x, [64], True), strict=True):
        assert_close(tc.from_numpy(got), tc.from_numpy(want))


@pytest.mark.parametrize("affine", [True, False])
def test_forward_blocks_of_a_large_array_compute_what_one_pass_computes(
    monkeypatch: pytest.MonkeyPatch, affine: bool
) -> None:
    x = tc.randn(300, 7, 64) * 3 + 1
    monkeypatch.setattr(nn_kernels, "_ROW_BLOCK", 1 << 12)
    monkeypatch.setattr(nn_kernels, "_LARGE_ROWS", 1 << 10)  # (several blocks)
    blocked = _run(x, [64], affine)
    monkeypatch.setattr(nn_kernels, "_LARGE_ROWS", 1 << 40)  # one pass over the whole array
    whole = _run(x, [64], affine)
    np.testing.assert_array_equal(blocked[0], whole[0])
