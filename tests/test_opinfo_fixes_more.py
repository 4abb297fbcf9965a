"""Fixes found by running PyTorch's OpInfo database through tensorcore (the second round):
NumPy as the oracle, PyTorch's error types."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc

F = tc.nn.functional


def _np(t: tc.Tensor) -> np.ndarray:
    return t.cpu().numpy()


def test_tensordot_broadcasts_a_contracted_dim_of_size_1(device: str) -> None:
    g = np.random.default_rng(0)
    a, b = g.standard_normal((3, 1, 4)), g.standard_normal((1, 5, 2))
    r = tc.tensordot(
        tc.tensor(a, device=device), tc.tensor(b, device=device), dims=([0, 1], [0, 2])
    )
    assert r.shape == (4, 5)
    if device != "meta":
        # (dim 0: size 3 against 1, a is summed over it; a's dim 1 of size 1 against b's
        # dim 2 of size 2: b is summed over it)
        want = np.tensordot(
            a.sum(axis=0, keepdims=True), b.sum(axis=2, keepdims=True), axes=([0, 1], [0, 2])
        )
        np.testing.assert_allclose(_np(r), want, rtol=1e-12)
    with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
        tc.tensordot(tc.ones(3, 2, device=device), tc.ones(2, 2, device=device), dims=([0], [0]))


def test_addcmul_takes_a_bool_value(device: str) -> None:
    x = tc.tensor([1.0, 2.0], device=device)
    r, q = tc.addcmul(x, x, x, value=True), tc.addcdiv(x, x, x, value=False)
    if device != "meta":
        np.testing.assert_array_equal(_np(r), [2.0, 6.0])
        np.testing.assert_array_equal(_np(q), [1.0, 2.0])


def test_space_and_narrow_take_0d_tensors(device: str) -> None:
    r = tc.linspace(tc.tensor(1.0), 3.0, 3, device=device)
    s = tc.logspace(tc.tensor(1), tc.tensor(3), 3, dtype=tc.float64, device=device)
    if device != "meta":
        np.testing.assert_array_equal(_np(r), [1.0, 2.0, 3.0])
        np.testing.assert_allclose(_np(s), [10.0, 100.0, 1000.0])
    with pytest.raises(RuntimeError, match="only supports 0-dimensional start and end tensors"):
        tc.linspace(tc.tensor([1.0, 2.0]), 1.0, 3)
    x = tc.arange(12.0, device=device).reshape(4, 3)
    assert tc.narrow(x, 0, tc.tensor(1), 2).shape == (2, 3)
    for bad in (tc.tensor([1]), tc.tensor(1.0)):
        with pytest.raises(RuntimeError, match="start must be an 0-dim integral Tensor"):
            tc.narrow(x, 0, bad, 2)


def test_adaptive_pool_errors_have_pytorchs_types(device: str) -> None:
    x = tc.ones(1, 2, 3, device=device)
    for fn in (F.adaptive_avg_pool1d, F.adaptive_max_pool1d):
        with pytest.raises(RuntimeError, match="should contain one int"):
            fn(x, [])
    # (a sequence output_size longer than the input's rank allows: PyTorch's ValueError)
    with pytest.raises(ValueError, match="Input dimension should be at least 3"):
        F.adaptive_avg_pool2d(tc.ones(2, 2, device=device), [2, 2])
    with pytest.raises(ValueError, match="Input dimension should be at least 4"):
        F.adaptive_max_pool3d(tc.ones(2, 2, 2, device=device), [2, 2, 2])
    with pytest.raises(RuntimeError, match="expected 3D"):
        F.adaptive_avg_pool2d(tc.ones(2, 2, device=device), 2)


def test_out_dtype_of_gather_and_index_select_is_exact(device: str) -> None:
    x = tc.ones(2, 2, device=device)
    i = tc.zeros(2, 2, dtype=tc.int64, device=device)
    for call in (
        lambda o: tc.gather(x, 1, i, out=o),
        lambda o: tc.index_select(x, 0, i[0], out=o),
    ):
        with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float"):
            call(tc.empty(0, dtype=tc.float64, device=device))
        assert call(tc.empty(0, device=device)).shape == (2, 2)


def test_cat_out_that_is_an_empty_input_is_refused(device: str) -> None:
    e = tc.empty(0, device=device)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        tc.cat([e, tc.ones(4, 6, device=device)], out=e)
    assert e.shape == (0,)


def test_constant_pad_nd_takes_a_complex_value(device: str) -> None:
    x = tc.ones(1, 3, dtype=tc.complex64, device=device)
    r = tc.constant_pad_nd(x, [1, 2], 1 + 2j)
    assert r.shape == (1, 6) and r.dtype == tc.complex64
    if device != "meta":
        np.testing.assert_array_equal(
            _np(r), np.pad(np.ones((1, 3), complex), ((0, 0), (1, 2)), constant_values=1 + 2j)
        )
    with pytest.raises(TypeError, match="argument 'value' must be Number"):
        tc.constant_pad_nd(x, [1, 2], "a")


def test_group_norm_of_an_empty_batch(device: str) -> None:
    for shape, groups in (((0, 2), 1), ((0, 4, 3), 2)):
        x = tc.ones(*shape, device=device, requires_grad=True)
        y = F.group_norm(x, groups, weight=tc.ones(shape[1], device=device))
        assert y.shape == shape
        (g,) = tc.autograd.grad(y.sum(), x)
        assert g.shape == shape


def test_silu_of_complex_numbers(device: str) -> None:
    z = np.array([1 + 1j, -2 + 0.5j, 0.3 - 0.7j])
    x = tc.tensor(z, dtype=tc.complex128, device=device, requires_grad=True)
    y = F.silu(x)
    if device != "meta":
        np.testing.assert_allclose(_np(y.detach()), z / (1 + np.exp(-z)), rtol=1e-12)
        # (the conjugate Wirtinger derivative: finite differences agree)
        assert tc.autograd.gradcheck(F.silu, (x,))


def test_local_response_norm_of_integers(device: str) -> None:
    a = np.arange(18).reshape(1, 6, 3) * 1000
    r = F.local_response_norm(tc.tensor(a, device=device), 3, alpha=1e-3, beta=0.5, k=1.25)
    assert r.dtype == tc.float32
    if device != "meta":
        sq = np.pad(a * a, ((0, 0), (1, 1), (0, 0)))
        mean = (sq[:, :-2] + sq[:, 1:-1] + sq[:, 2:]) // 3  # (integer pooling truncates)
        np.testing.assert_allclose(_np(r), a / (mean * 1e-3 + 1.25) ** 0.5, rtol=1e-5)


def test_negative_integers_wrap_into_unsigned_dtypes(device: str) -> None:
    # PyTorch's Scalar conversion: an int down to -max wraps, a negative float overflows
    a = tc.ones(3, dtype=tc.uint8, device=device)
    results = (
        a.clone().fill_(-3),
        tc.full((3,), -1, dtype=tc.uint8, device=device),
        tc.add(a, a, alpha=-3),
        tc.zeros(3, dtype=tc.uint8, device=device).masked_fill(a.bool(), -255),
    )
    if device != "meta":
        want = [(-3) % 256, 255, (1 - 3) % 256, 1]
        for r, w in zip(results, want, strict=True):
            np.testing.assert_array_equal(_np(r), np.full(3, w, np.uint8))
    for bad in (-256, -0.5):
        with pytest.raises(RuntimeError, match="without overflow"):
            a.clone().fill_(bad)
    with pytest.raises(RuntimeError, match="without overflow"):
        tc.ones(2, dtype=tc.int8, device=device).fill_(127.9)


def test_a_number_operand_of_zeta_is_rounded_to_the_compute_dtype(device: str) -> None:
    sps = pytest.importorskip("scipy.special")
    r = tc.special.zeta(tc.tensor(2.0, device=device), 6e-08)
    if device != "meta":
        # (6e-8 is first a float32, as PyTorch converts a scalar operand: near the pole the
        # difference is an ulp of the result)
        want = np.float32(sps.zeta(2.0, np.float64(np.float32(6e-08))))
        assert r.item() == want
