"""Edge cases that PyTorch's operator database (OpInfo) exercises: empty inputs that must
still give a result (and a gradient), ``fill``'s gradient, ``sum_to_size`` to an empty size.
NumPy and finite differences (gradcheck) are the oracles."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F
from tensorcore.autograd import gradcheck


def test_fill_is_differentiable_in_input_and_value(device: str) -> None:
    x = tc.tensor([1.5, -2.0, 3.0], dtype=tc.float64, device=device, requires_grad=True)
    y = tc.fill(x, True)
    assert y.requires_grad and y.tolist() == [1.0, 1.0, 1.0]
    v = tc.tensor(0.25, dtype=tc.float64, device=device, requires_grad=True)
    assert gradcheck(lambda a, b: tc.fill(a, b), (x, v))
    (gx, gv) = tc.autograd.grad(tc.fill(x, v).sum(), (x, v))
    assert gx.tolist() == [0.0, 0.0, 0.0] and gv.item() == 3.0
    assert not tc.fill(x.detach(), 2.0).requires_grad


@pytest.mark.parametrize("dtype", [tc.bool, tc.int8, tc.float32])
def test_sum_to_size_of_an_empty_size_sums_everything(dtype: tc.dtype, device: str) -> None:
    # An empty size sums every dim, a 0-d tensor's too, so bool and integers become int64
    # as any sum (NumPy's sum of a 0-d integer array is its platform integer as well).
    for a in (np.array(True), np.ones((2, 3), dtype=bool)):
        x = tc.tensor(a, device=device).to(dtype)
        y = x.sum_to_size([])
        want = tc.int64 if dtype in (tc.bool, tc.int8) else dtype
        assert y.dtype == want and y.shape == () and y.item() == a.sum()
    x = tc.ones(2, 3, dtype=dtype, device=device)
    assert x.sum_to_size(2, 3).dtype == dtype  # (nothing to sum: the tensor as it is)


def test_householder_product_without_reflectors(device: str) -> None:
    for m, n in ((0, 0), (3, 2)):
        a = tc.randn(m, n, dtype=tc.float64, device=device, requires_grad=True)
        tau = tc.zeros(0, dtype=tc.float64, device=device, requires_grad=True)
        q = tc.linalg.householder_product(a, tau)
        np.testing.assert_array_equal(q.detach().cpu().numpy(), np.eye(m, n))
        assert q.requires_grad
        if m:
            ga, gt = tc.autograd.grad(q.sum(), (a, tau))
            assert ga.abs().sum().item() == 0.0 and gt.shape == (0,)


def test_householder_product_out(device: str) -> None:
    a = tc.randn(4, 3, dtype=tc.float64, device=device)
    tau = tc.rand(2, dtype=tc.float64, device=device)
    out = tc.empty(0, dtype=tc.float64, device=device)
    assert tc.linalg.householder_product(a, tau, out=out) is out
    want = tc.linalg.householder_product(a, tau)
    np.testing.assert_array_equal(out.cpu().numpy(), want.cpu().numpy())
    # the product's definition: H_1 H_2 with H_i = I - tau_i v_i v_i^T, v_i a's column below
    # the diagonal with a 1 on it
    an, tn = a.cpu().numpy(), tau.cpu().numpy()
    q = np.eye(4)
    for i in range(2):
        v = np.where(np.arange(4) > i, an[:, i], np.arange(4) == i)
        q = q @ (np.eye(4) - tn[i] * np.outer(v, v))
    np.testing.assert_allclose(want.cpu().numpy(), q[:, :3], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0, 4)])
def test_batch_norm_of_an_empty_input(shape: tuple[int, ...], device: str) -> None:
    x = tc.empty(*shape, device=device, requires_grad=True)
    c = shape[1] if len(shape) > 1 else 0
    rm, rv = tc.zeros(c, device=device), tc.ones(c, device=device)
    y = F.batch_norm(x, rm, rv, training=True)
    assert y.shape == shape and y.requires_grad
    assert rm.tolist() == [0.0] * c and rv.tolist() == [1.0] * c  # (not updated)
    if len(shape) > 1:  # the operator too, with a weight's (zero) gradient
        w = tc.ones(c, device=device, requires_grad=True)
        y = tc.batch_norm(x, w, None, rm, rv, True, 0.1, 1e-5)
        gx, gw = tc.autograd.grad(y.sum(), (x, w))
        assert gx.shape == shape and gw.tolist() == [0.0] * c
        assert rm.tolist() == [0.0] * c
        with pytest.raises(RuntimeError, match="at least one element"):
            tc.native_batch_norm(x, None, None, rm, rv, True, 0.1, 1e-5)


def test_batch_norm_refusals(device: str) -> None:
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.batch_norm(tc.ones(3, device=device), None, None, training=True)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        F.batch_norm(tc.ones(1, 3, device=device), None, None, training=True)


@pytest.mark.parametrize("dtype", [tc.int32, tc.float64])
def test_tensordot_broadcasts_a_unit_contracted_dim_in_the_operands_dtype(
    dtype: tc.dtype, device: str
) -> None:
    # A contracted dim of size 1 against n sums the other side over it (PyTorch's rule; NumPy
    # needs the sum spelled out), and an integer operand stays in its dtype.
    a = np.array([[[3]]])
    b = np.arange(1, 5).reshape(2, 1, 2)
    got = tc.tensordot(
        tc.tensor(a, device=device).to(dtype), tc.tensor(b, device=device).to(dtype),
        dims=[[0, 1], [2, 0]],
    )  # fmt: skip
    want = np.tensordot(a, b.sum(axis=(0, 2), keepdims=True), axes=[[0, 1], [2, 0]])
    assert got.dtype == dtype and got.cpu().numpy().tolist() == want.tolist()


def test_tensordot_out(device: str) -> None:
    a = np.arange(8.0).reshape(2, 2, 2)
    out = tc.empty(0, dtype=tc.float64, device=device)
    x = tc.tensor(a, device=device)
    assert tc.tensordot(x, x, dims=2, out=out) is out
    np.testing.assert_array_equal(out.cpu().numpy(), np.tensordot(a, a, axes=2))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double"):
        tc.tensordot(x, x, dims=2, out=tc.empty(0, device=device))


def test_complex_convolutions_against_numpy_and_finite_differences(device: str) -> None:
    rng = np.random.default_rng(0)

    def cplx(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)

    x, w, b = cplx(2, 2, 7), cplx(3, 2, 3), cplx(3)
    got = F.conv1d(*(tc.tensor(a, device=device) for a in (x, w, b)), padding=1)
    win = np.lib.stride_tricks.sliding_window_view(np.pad(x, ((0, 0), (0, 0), (1, 1))), 3, 2)
    want = np.einsum("ncik,ock->noi", win, w) + b[:, None]
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12, atol=1e-12)
    # a transposed convolution scatters each input element times the kernel
    wt = cplx(2, 3, 3)
    got = F.conv_transpose1d(tc.tensor(x, device=device), tc.tensor(wt, device=device), stride=2)
    want = np.zeros((2, 3, 15), complex)
    for i in range(7):
        want[:, :, 2 * i : 2 * i + 3] += np.einsum("nc,cok->nok", x[:, :, i], wt)
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12, atol=1e-12)
    xs, ws = (
        tc.tensor(cplx(1, 2, 4, 4), device=device, requires_grad=True),
        tc.tensor(cplx(2, 2, 2, 2), device=device, requires_grad=True),
    )
    assert gradcheck(lambda a, k: F.conv2d(a, k, stride=2), (xs, ws))


def test_masked_fill_checks_a_tensor_value_as_a_number(device: str) -> None:
    # A 0-d value of another dtype is converted as the number it holds: one that self's
    # dtype cannot hold is refused (it wrapped to -2**63 before), as for a Python number.
    x = tc.ones(3, dtype=tc.int8, device=device)
    m = tc.tensor([True, False, True], device=device)
    for bad in (tc.tensor(2.0**70), tc.tensor(300), tc.tensor(float("nan"))):
        with pytest.raises(RuntimeError, match="cannot be converted to type int8 without overflow"):
            x.masked_fill(m, bad.to(device))
    got = x.masked_fill(m, tc.tensor(3.5, device=device))
    assert got.tolist() == np.where([True, False, True], np.int8(3.5), 1).tolist()
    with pytest.raises(RuntimeError, match="to type float32 without overflow"):
        tc.ones(2, device=device).masked_fill(m[:2], tc.tensor(1e300, dtype=tc.float64))


@pytest.mark.parametrize(
    ("pool", "shape"),
    [
        (F.max_pool2d, (0, 2, 10)),
        (F.max_pool2d, (1, 0, 2, 10)),
        (F.avg_pool2d, (2, 3, 0, 4)),
        (F.max_pool3d, (0, 1, 2, 10)),
        (F.avg_pool3d, (0, 1, 2, 10)),
    ],
)
def test_pools_refuse_an_empty_non_batch_dim(pool: Any, shape: tuple, device: str) -> None:
    with pytest.raises(RuntimeError, match="with optional 0 dim batch size"):
        pool(tc.ones(*shape, device=device), 1)
    # an empty batch is fine
    assert F.max_pool2d(tc.ones(0, 1, 2, 10, device=device), 1).shape == (0, 1, 2, 10)
