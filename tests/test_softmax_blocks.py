"""The NumPy softmax, log_softmax and _safe_softmax (and their backward) along the last axis
of a large array run over blocks of rows (``tensorcore_xp/kernels/reductions.py``,
``by_rows``): every row's result is the bits of one pass over the whole array; rows whose
values are all -inf stay zeros in _safe_softmax; other layouts keep the whole-array path."""

from __future__ import annotations

import numpy as np
import pytest
from tensorcore_xp.kernels import reductions as red

import tensorcore as tc


def _run(x: tc.Tensor, fn: str, dim: int) -> tuple[np.ndarray, np.ndarray]:
    x = x.detach().requires_grad_()
    y = getattr(tc, fn)(x, dim)
    g = tc.cos(tc.arange(y.numel(), dtype=x.dtype)).reshape(y.shape)
    y.backward(g)
    return y.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "_safe_softmax"])
@pytest.mark.parametrize("shape", [(30, 7, 64), (9, 1500)])
def test_blocks_of_rows_compute_what_one_pass_computes(
    monkeypatch: pytest.MonkeyPatch, dtype: tc.dtype, fn: str, shape: tuple[int, ...]
) -> None:
    x = tc.randn(*shape, dtype=dtype) * 4
    if fn == "_safe_softmax":
        x[1] = float("-inf")  # (a row, or rows, of -inf only: zeros)
    monkeypatch.setattr(red, "_ROW_BLOCK", 1 << 11)
    monkeypatch.setattr(red, "_LARGE_ROWS", 1 << 10)  # (several blocks)
    blocked = _run(x, fn, -1)
    monkeypatch.setattr(red, "_LARGE_ROWS", 1 << 40)  # one pass over the whole array
    whole = _run(x, fn, -1)
    for b, w in zip(blocked, whole, strict=True):
        np.testing.assert_array_equal(b, w)
    if fn == "_safe_softmax":
        assert not blocked[0][1].any() and not blocked[1][1].any()
    if fn == "softmax":
        z = x.numpy() - x.numpy().max(-1, keepdims=True)
        want = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
        np.testing.assert_allclose(blocked[0], want, rtol=1e-5, atol=1e-6)


def test_other_dims_and_layouts_take_the_whole_array_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(red, "_ROW_BLOCK", 1 << 8)
    monkeypatch.setattr(red, "_LARGE_ROWS", 1 << 8)
    x = tc.randn(40, 64, dtype=tc.float64)
    want = _run(x, "softmax", 0)
    xt = x.t().contiguous().t()  # the same values, column-major: no (rows, n) view
    for got, w in zip(_run(xt, "softmax", 0), want, strict=True):
        np.testing.assert_allclose(got, w, rtol=1e-12, atol=1e-15)
    for got, w in zip(_run(xt, "softmax", 1), _run(x, "softmax", 1), strict=True):
        np.testing.assert_allclose(got, w, rtol=1e-12, atol=1e-15)
