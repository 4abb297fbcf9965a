"""``native_group_norm`` and its backward (``F.group_norm``/``nn.GroupNorm`` run them): values
against a NumPy formula, gradients by finite differences, shapes on the meta device."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close, dtype_unsupported

F = tc.nn.functional


def _reference(x: np.ndarray, groups: int, w: Any, b: Any, eps: float) -> tuple[Any, ...]:
    """Group norm by its definition, in float64: the output, mean and rstd (N, groups)."""
    n, c = x.shape[:2]
    rows = x.astype(np.float64).reshape(n, groups, -1)
    mean = rows.mean(axis=2)
    rstd = 1 / np.sqrt(rows.var(axis=2) + eps)
    y = ((rows - mean[..., None]) * rstd[..., None]).reshape(x.shape)
    cs = (1, c) + (1,) * (x.ndim - 2)
    if w is not None:
        y = y * np.asarray(w, dtype=np.float64).reshape(cs)
    if b is not None:
        y = y + np.asarray(b, dtype=np.float64).reshape(cs)
    return y, mean, rstd


@pytest.mark.parametrize(
    ("shape", "groups", "affine"),
    [
        ((8, 16, 8, 8), 4, True),
        ((3, 6, 5), 3, False),
        ((4, 6), 2, True),
        ((2, 4, 3, 2, 2), 1, True),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_statistics_against_the_formula(
    device: str, shape: tuple[int, ...], groups: int, affine: bool, dtype: str
) -> None:
    rng = np.random.default_rng(0)
    xn = (rng.standard_normal(shape) * 3 + 2).astype(dtype)
    wn, bn = (rng.standard_normal(shape[1]).astype(dtype) if affine else None for _ in range(2))
    x = tc.tensor(xn, device=device)
    w, b = (None if a is None else tc.tensor(a, device=device) for a in (wn, bn))
    n, c, hxw = shape[0], shape[1], math.prod(shape[2:])
    y, mean, rstd = tc.native_group_norm(x, w, b, n, c, hxw, groups, 1e-5)
    assert (y.shape, mean.shape, rstd.shape) == (shape, (n, groups), (n, groups))
    assert y.dtype == mean.dtype == rstd.dtype == getattr(tc, dtype)
    tol = {"float32": 2e-5, "float64": 1e-12}[dtype]
    for got, want in zip((y, mean, rstd), _reference(xn, groups, wn, bn, 1e-5), strict=True):
        assert_close(got, want, rtol=tol, atol=tol, check_dtype=False)
    assert tc.equal(F.group_norm(x, groups, w, b), y)


def test_one_node_named_as_pytorchs(device: str) -> None:
    x = tc.randn(2, 4, 3, device=device, requires_grad=True)
    w = tc.ones(4, device=device, requires_grad=True)
    y = F.group_norm(x, 2, w, tc.zeros(4, device=device, requires_grad=True))
    assert type(y.grad_fn).__name__ == "NativeGroupNormBackward0"
    # one node, straight onto the leaves (the composite recorded a node per step)
    names = [type(f).__name__ for f, _ in y.grad_fn.next_functions]
    assert names == ["AccumulateGrad"] * 3


def test_gradients_by_finite_differences(device: str) -> None:
    tc.manual_seed(0)
    kw = {"device": device, "dtype": tc.float64, "requires_grad": True}
    x, w, b = tc.randn(2, 6, 3, **kw), tc.randn(6, **kw), tc.randn(6, **kw)

    def all_outputs(x: tc.Tensor, w: tc.Tensor, b: tc.Tensor) -> tuple[tc.Tensor, ...]:
        # (the statistics' gradients flow into the input too)
        return tc.native_group_norm(x, w, b, 2, 6, 3, 3, 1e-5)

    assert tc.autograd.gradcheck(all_outputs, (x, w, b))
    assert tc.autograd.gradgradcheck(all_outputs, (x, w, b))
    assert tc.autograd.gradgradcheck(lambda x: F.group_norm(x, 2), (x,))


def test_gradients_against_the_composite(device: str) -> None:
    """The input's, weight's and bias's gradients of the kernel match the operator-written
    composite of reductions, in float32 at a diffusion UNet's shape."""
    tc.manual_seed(1)
    x = tc.randn(4, 16, 6, 6, device=device, requires_grad=True)
    w = tc.randn(16, device=device, requires_grad=True)
    b = tc.randn(16, device=device, requires_grad=True)
    gy = tc.randn(4, 16, 6, 6, device=device)
    got = tc.autograd.grad(F.group_norm(x, 4, w, b), (x, w, b), gy)
    # the same function written with reductions (the composite)
    xr = x.reshape(4, 4, -1)
    xhat = ((xr - xr.mean(2, keepdim=True)) / (xr.var(2, unbiased=False, keepdim=True) + 1e-5)
            .sqrt()).reshape(x.shape)  # fmt: skip
    want = tc.autograd.grad(xhat * w.reshape(1, 16, 1, 1) + b.reshape(1, 16, 1, 1), (x, w, b), gy)
    for g, e in zip(got, want, strict=True):
        assert_close(g, e.detach(), rtol=1e-4, atol=1e-4)


def test_channels_last_and_mixed_dtype(device: str) -> None:
    x = tc.randn(2, 6, 3, 4, device=device).to(memory_format=tc.channels_last)
    y = F.group_norm(x, 3)
    assert y.is_contiguous(memory_format=tc.channels_last)
    if dtype_unsupported(device, tc.bfloat16):
        return
    h = tc.randn(2, 4, 5, device=device).to(tc.bfloat16)
    out = F.group_norm(h, 2, tc.ones(4, device=device), tc.zeros(4, device=device))
    _, mean, _ = tc.native_group_norm(h, None, None, 2, 4, 5, 2, 1e-5)
    assert (out.dtype, mean.dtype) == (tc.bfloat16, tc.float32)
    assert_close(y, F.group_norm(x.contiguous(), 3), rtol=1e-6, atol=1e-6)
    assert_close(out.float(), F.group_norm(h.float(), 2), rtol=1e-2, atol=1e-2)


def test_backward_output_mask(device: str) -> None:
    x, g = tc.randn(2, 4, 3, device=device), tc.randn(2, 4, 3, device=device)
    _, mean, rstd = tc.native_group_norm(x, None, None, 2, 4, 3, 2, 1e-5)
    w = tc.ones(4, device=device)
    gx, gw, gb = tc.native_group_norm_backward(g, x, mean, rstd, w, 2, 4, 3, 2, [0, 1, 1])
    assert gx is None and gw.shape == gb.shape == (4,)
    assert_close(gb, g.sum((0, 2)), rtol=1e-5, atol=1e-5)


def test_bad_input_is_refused_with_pytorchs_words(device: str) -> None:
    x = tc.randn(2, 6, 3, device=device)
    with pytest.raises(RuntimeError, match=r"divisible by num_groups, but got input of shape "
                       r"\[2, 6, 3\] and num_groups=4"):  # fmt: skip
        F.group_norm(x, 4)
    with pytest.raises(RuntimeError, match=r"divisible by num_groups"):
        tc.native_group_norm(x, None, None, 2, 6, 3, 4, 1e-5)
    with pytest.raises(RuntimeError, match=r"Expected weight to be a vector of size equal to"):
        F.group_norm(x, 2, tc.ones(4, device=device))
    with pytest.raises(RuntimeError, match=r"HxW=4"):
        tc.native_group_norm(x, None, None, 2, 6, 4, 2, 1e-5)


def test_meta_shapes() -> None:
    """On the meta device (shapes only, no kernel): the results' shapes, dtypes and formats,
    and the backward's."""
    x = tc.empty(2, 6, 3, 4, device="meta").to(memory_format=tc.channels_last)
    w = tc.empty(6, device="meta", requires_grad=True)
    y, mean, rstd = tc.native_group_norm(x.requires_grad_(), w, None, 2, 6, 12, 3, 1e-5)
    assert (y.shape, mean.shape, rstd.shape) == ((2, 6, 3, 4), (2, 3), (2, 3))
    assert y.is_contiguous(memory_format=tc.channels_last)
    gx, gw = tc.autograd.grad(y, (x, w), tc.empty(2, 6, 3, 4, device="meta"))
    assert (gx.shape, gw.shape, gx.device.type) == ((2, 6, 3, 4), (6,), "meta")
    h = tc.empty(4, 8, 5, device="meta", dtype=tc.float16)
    outs = tc.native_group_norm(h, None, None, 4, 8, 5, 2, 1e-5)
    assert [t.dtype for t in outs] == [tc.float16, tc.float32, tc.float32]
