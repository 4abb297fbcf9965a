"""Regressions for differences from PyTorch 2.13 that PyTorch's own operator database (its
OpInfo samples, run through tensorcore by hand) found; NumPy or finite differences are the
oracle here."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close

F64 = tc.float64


def test_norm_nuc_is_the_matrix_norm_over_dim(device: str) -> None:
    a = np.random.default_rng(0).standard_normal((2, 3, 4))
    x = tc.tensor(a, device=device)
    nuc = np.linalg.svd(a[0], compute_uv=False).sum()
    assert_close(tc.norm(x[0], p="nuc"), nuc)
    assert_close(x[0].norm("nuc", (0, 1)), nuc)
    want = np.linalg.svd(a.transpose(1, 0, 2), compute_uv=False).sum(-1)
    got = tc.norm(x, p="nuc", dim=(0, 2), keepdim=True)
    assert got.shape == (1, 3, 1)
    assert_close(got.reshape(-1), want)
    # 'fro' over one or two dims is the vector 2-norm; over all dims of a 3-D input it is not.
    assert_close(tc.norm(x, p="fro", dim=1), np.sqrt((a**2).sum(1)))
    with pytest.raises(RuntimeError, match="dim must be a 2-tuple"):
        tc.norm(x, p="nuc")
    with pytest.raises(RuntimeError, match="Order abc not supported"):
        tc.norm(x, p="abc", dim=(0, 1))


def test_dtype_cast_methods_take_memory_format(device: str) -> None:
    a = np.arange(24.0).reshape(1, 2, 3, 4)
    x = tc.tensor(a, device=device)
    for name, want in (("float", tc.float32), ("double", tc.float64), ("int", tc.int32)):
        y = getattr(x, name)(memory_format=tc.channels_last)
        assert y.dtype == want and y.stride() == (24, 1, 8, 2)
        assert_close(y.double(), a)
        assert getattr(x, name)(memory_format=tc.preserve_format).stride() == (24, 12, 4, 1)


@pytest.mark.parametrize(
    "kw",
    [
        dict(stride=2, padding=3, output_padding=2, dilation=3),
        dict(stride=3, padding=1, output_padding=2, groups=2, dilation=4),
    ],
)
def test_conv_transpose_gradients_with_a_large_output_padding(device: str, kw: dict) -> None:
    # output_padding >= stride (allowed below the dilation): the output has positions that a
    # convolution of the input's size with the same symmetric padding does not read.
    rng = np.random.default_rng(0)
    groups = kw.get("groups", 1)
    x = tc.tensor(rng.standard_normal((1, 2, 3)), dtype=F64, device=device, requires_grad=True)
    w = tc.tensor(
        rng.standard_normal((2, 2 // groups, 3)), dtype=F64, device=device, requires_grad=True
    )
    assert tc.autograd.gradcheck(lambda a, b: tc.nn.functional.conv_transpose1d(a, b, **kw), (x, w))
    y = tc.nn.functional.conv_transpose1d(x, w, **kw)
    gx, gw = tc.autograd.grad(y.sum(), (x, w))
    assert gx.shape == x.shape and gw.shape == w.shape


def test_special_polynomials_of_empty_broadcast_inputs_and_two_numbers(device: str) -> None:
    # An empty result broadcast from an expanded operand (a stride-0 dim of an empty tensor
    # shares no elements: in-place writes into it are fine).
    x = tc.zeros(0, 1, 3, device=device)
    n = tc.zeros(0, 10, 3, device=device)
    for name in ("chebyshev_polynomial_t", "hermite_polynomial_h", "legendre_polynomial_p"):
        assert getattr(tc.special, name)(x, n).shape == (0, 10, 3)
        with pytest.raises(TypeError, match="take a Tensor input or a Tensor n"):
            getattr(tc.special, name)(2, 3)
    e = tc.zeros(0, 1, device=device).expand(0, 4)
    assert e.fill_(1.0).shape == (0, 4)
    assert tc.zeros_like(e).shape == (0, 4)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        tc.zeros(1, device=device).expand(3).add_(1.0)  # (fill_ may: PyTorch allows it)


def test_gradient_takes_spacing_none(device: str) -> None:
    a = np.arange(6.0) ** 2
    (g,) = tc.gradient(tc.tensor(a, device=device), spacing=None, dim=None, edge_order=1)
    assert_close(g, np.gradient(a))


def test_gather_and_scatter_take_an_empty_index_of_any_dtype(device: str) -> None:
    x = tc.arange(5.0, dtype=F64, device=device)
    empty = tc.zeros(0, device=device)  # (float32)
    assert tc.gather(x, 0, empty).shape == (0,)
    assert_close(tc.scatter_add(x, 0, empty, empty.double()), np.arange(5.0))
    assert_close(tc.scatter(x, 0, empty, 1.0), np.arange(5.0))
    # ... and of any number of dims
    idx = tc.zeros(2, 0, dtype=tc.int64, device=device)
    assert tc.gather(x, 0, idx).shape == (2, 0)
    assert_close(
        tc.scatter_reduce(x, 0, idx, tc.zeros(2, 0, dtype=F64, device=device), "sum"),
        np.arange(5.0),
    )
    with pytest.raises(RuntimeError, match="Expected dtype int32/int64 for index"):
        tc.gather(x, 0, tc.zeros(1, device=device))


def test_ldl_factor_ex_of_empty_matrices_reports_success(device: str) -> None:
    for shape in ((0, 0), (3, 0, 0)):
        _, pivots, info = tc.linalg.ldl_factor_ex(tc.zeros(shape, device=device))
        assert pivots.shape == shape[:-1] and info.shape == shape[:-2]
        assert (info == 0).all()


def test_index_select_of_a_0d_tensor_is_differentiable(device: str) -> None:
    x = tc.tensor(2.0, dtype=F64, device=device, requires_grad=True)
    idx = tc.tensor([0], device=device)
    assert tc.autograd.gradcheck(lambda t: tc.index_select(t, 0, idx), (x,))
    (g,) = tc.autograd.grad(tc.index_select(x, 0, idx).sum() * 3, x)
    assert g.shape == () and g.item() == 3.0


def test_integer_arange_truncates_its_bounds_first(device: str) -> None:
    def r(*a: float, dtype: tc.dtype = tc.int64) -> list[int]:
        return tc.arange(*a, dtype=dtype, device=device).tolist()

    # int64: the bounds and step truncated to integers, the length from those exactly.
    assert r(0.0, -8.000001, -4.0) == [0, -4]
    assert r(1.0, 5.000001, 2.0) == [1, 3]
    assert r(-0.5, 4.7, 1.3) == [0, 1, 2, 3]
    # Other integer dtypes: the values as int64's, the length from the bounds as given.
    assert r(1.0, 5.000001, 2.0, dtype=tc.int32) == [1, 3, 5]
    assert r(0.0, 3.5, 1.0, dtype=tc.int32) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="step must be nonzero"):
        r(0, 5, 0.5)


def test_bad_inputs_raise_pytorchs_errors(device: str) -> None:
    F = tc.nn.functional
    z = tc.zeros(3, 4, device=device)
    with pytest.raises(RuntimeError, match="'weight' must be 2-D"):
        F.embedding(tc.tensor([1], device=device), tc.zeros(2, 2, 2, device=device))
    with pytest.raises(RuntimeError, match="'weight' must be 2-D"):
        F.embedding(tc.tensor(1, device=device), tc.zeros((), device=device))
    with pytest.raises(RuntimeError, match=r"max_pool1d: Expected 2D or 3D .* but got:\[\]"):
        F.max_pool1d(tc.zeros((), device=device), kernel_size=1)
    with pytest.raises(RuntimeError, match=r"but got:\[0, 10\]"):
        F.max_pool1d(tc.zeros(0, 10, device=device), kernel_size=1)
    assert F.max_pool1d(tc.zeros(0, 2, 10, device=device), kernel_size=2).shape == (0, 2, 5)
    with pytest.raises(RuntimeError, match=r"Expected 3-dimensional input for 3-dimensional"):
        F.conv2d(
            tc.zeros(1, 1, 4, 3, device=device), tc.zeros(1, 2, 2, device=device), padding="same"
        )
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        tc.roll(tc.tensor(1.0, device=device), 0, 0)
    assert tc.roll(tc.tensor(1.0, device=device), 1).item() == 1.0
    with pytest.raises(ValueError, match=r"margin must be greater than 0, got -1\.0"):
        F.triplet_margin_loss(z, z, z, margin=-1.0)
    for norm in (F.rms_norm, F.layer_norm):
        with pytest.raises(RuntimeError, match="normalized_shape to be at least 1-dimensional"):
            norm(z, [])


def test_avg_pool3d_of_integers_truncates_each_window_mean_once(device: str) -> None:
    a = np.random.default_rng(0).integers(-9, 10, (1, 2, 3, 4, 5))
    got = tc.nn.functional.avg_pool3d(tc.tensor(a, device=device), 2, padding=1)
    padded = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1), (1, 1)))
    want = np.zeros(got.shape, np.int64)
    for i, j, k in np.ndindex(*got.shape[2:]):
        window = padded[:, :, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2, 2 * k : 2 * k + 2]
        want[:, :, i, j, k] = np.trunc(window.sum((2, 3, 4)) / 8)
    assert got.dtype == tc.int64
    assert got.tolist() == want.tolist()


def test_index_add_into_a_0d_tensor_keeps_its_dtype(device: str) -> None:
    idx = tc.tensor([0], device=device)
    r = tc.index_add(tc.tensor(False, device=device), 0, idx, tc.tensor(True, device=device))
    assert r.dtype == tc.bool and r.item() is True
    r = tc.index_add(tc.tensor(2, device=device), 0, idx, tc.tensor(3, device=device), alpha=2)
    assert r.dtype == tc.int64 and r.item() == 8


def test_linalg_vander_of_a_0d_tensor_is_one_row_and_n_must_exceed_1(device: str) -> None:
    v = tc.linalg.vander(tc.tensor(2.0, dtype=F64, device=device), N=3)
    assert_close(v, np.vander([2.0], 3, increasing=True))
    for bad in (tc.tensor(2.0, device=device), tc.tensor([2.0, 3.0], device=device)):
        with pytest.raises(RuntimeError, match="N must be greater than 1"):
            tc.linalg.vander(bad, N=None if bad.ndim == 0 else 1)


def test_layer_norm_gradients_of_an_empty_batch_are_zeros(device: str) -> None:
    x = tc.zeros(0, 3, dtype=F64, device=device, requires_grad=True)
    w = tc.ones(3, dtype=F64, device=device, requires_grad=True)
    b = tc.zeros(3, dtype=F64, device=device, requires_grad=True)
    gx, gw, gb = tc.autograd.grad(tc.nn.functional.layer_norm(x, [3], w, b).sum(), (x, w, b))
    assert gx.shape == (0, 3)
    assert gw.tolist() == [0.0, 0.0, 0.0] and gb.tolist() == [0.0, 0.0, 0.0]
