"""Regressions for differences from PyTorch 2.13 that ``tools/diff_torch_edges.py`` found on
edge inputs (each checked against PyTorch by hand; the expectations are written out here):
``out=`` tensors of another shape, reductions that compute in their ``out`` tensor's dtype,
bfloat16 sorts with NaN, ``searchsorted`` of NaN, ``as_strided_scatter`` of a strided ``self``,
``ravel``'s and ``atleast_3d``'s strides."""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest

import tensorcore as tc

NAN = math.nan


def test_an_out_tensor_of_another_shape_is_resized_with_a_warning(device: str) -> None:
    a = tc.tensor([1.0, 2.0, 3.0], device=device)
    calls = [
        lambda o: tc.add(a, 1, out=o),
        lambda o: tc.exp(a, out=o),
        lambda o: tc.cumsum(a, 0, out=o),
        lambda o: tc.cat([a[:1], a[1:]], out=o),
    ]
    for call in calls:
        o = tc.zeros(2, 2, device=device)
        with pytest.warns(UserWarning, match=r"resized since it had shape \[2, 2\].*shape \[3\]"):
            r = call(o)
        assert r is o and o.shape == (3,)
    o = tc.zeros(0, device=device)  # an empty out tensor is resized silently
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tc.add(a, 1, out=o)
    assert o.tolist() == [2.0, 3.0, 4.0]
    with pytest.warns(UserWarning, match="resized"):
        tc.sum(a.reshape(1, 3), 1, out=o)
    assert o.shape == (1,) and o.item() == 6.0


def test_sum_family_computes_in_the_out_tensors_dtype(device: str) -> None:
    x = tc.tensor([[1.5, 2.5]], device=device)
    o = tc.zeros((), dtype=tc.int64, device=device)
    assert tc.sum(x, (0, 1), out=o).item() == 3  # 1 + 2: the values truncated first
    o = tc.zeros(1, dtype=tc.int64, device=device)
    assert tc.prod(x, 1, out=o).tolist() == [2]
    o = tc.zeros(1, 2, dtype=tc.int64, device=device)
    assert tc.cumsum(x, 1, out=o).tolist() == [[1, 3]]
    o = tc.zeros(1, dtype=tc.float16, device=device)
    assert tc.sum(x, 1, out=o).dtype == tc.float16
    # mean computes in float and refuses to narrow into an integer out tensor
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired"):
        tc.mean(x, 1, out=tc.zeros(1, dtype=tc.int64, device=device))


@pytest.mark.parametrize("dtype", [tc.bfloat16, tc.float16, tc.float32])
def test_sorts_put_nan_last_in_every_float_dtype(device: str, dtype: tc.dtype) -> None:
    x = tc.tensor([1.0, NAN, -2.0, 3.0, NAN, 0.5], dtype=dtype, device=device)
    v, i = tc.sort(x, stable=True)
    assert i.tolist() == [2, 5, 0, 3, 1, 4]
    assert v[:4].float().tolist() == [-2.0, 0.5, 1.0, 3.0] and v[4:].isnan().all()
    v, i = tc.sort(x, descending=True, stable=True)
    assert i.tolist() == [1, 4, 3, 0, 5, 2]
    assert tc.argsort(x, stable=True).tolist() == [2, 5, 0, 3, 1, 4]
    assert tc.topk(x, 3, largest=False).indices.tolist() == [2, 5, 0]
    assert tc.unique(x)[:4].float().tolist() == [-2.0, 0.5, 1.0, 3.0]
    assert tc.kthvalue(x, 2).values.item() == 0.5


def test_searchsorted_puts_nan_after_the_row(device: str) -> None:
    s = tc.tensor([1.0, 2.0, NAN], device=device)
    v = tc.tensor([NAN, 2.0, 0.0], device=device)
    assert tc.searchsorted(s, v).tolist() == [3, 1, 0]
    assert tc.searchsorted(s, v, right=True).tolist() == [3, 2, 0]
    rows = tc.searchsorted(s.expand(2, 3), v.expand(2, 3))
    assert rows.tolist() == [[3, 1, 0], [3, 1, 0]]


def test_reductions_of_a_0d_tensor_over_dim_0_differentiate(device: str) -> None:
    x = tc.tensor(3.0, dtype=tc.float64, device=device, requires_grad=True)
    for f in (
        lambda x: tc.sum(x, 0),
        lambda x: tc.mean(x, -1),
        lambda x: tc.var(x, 0, correction=0),
        lambda x: tc.std(x, 0, correction=0),
    ):
        (g,) = tc.autograd.grad(f(x), x)
        assert g.shape == () and g.item() in (0.0, 1.0)


def test_std_gradient_is_zero_where_the_deviation_is(device: str) -> None:
    x = tc.tensor([[1.0, 1.0], [1.0, 3.0]], dtype=tc.float64, device=device, requires_grad=True)
    (g,) = tc.autograd.grad(tc.std(x, 1).sum(), x)
    assert g[0].tolist() == [0.0, 0.0]
    assert g[1].tolist() == pytest.approx([-(2**-0.5), 2**-0.5])
    y = tc.tensor([1.0, 2.0, 4.0], dtype=tc.float64, device=device, requires_grad=True)
    assert tc.autograd.gradcheck(lambda t: tc.std(t, 0), (y,))


def test_hardswish_gradient_at_its_kinks(device: str) -> None:
    x = tc.tensor([-3.0, 3.0, -4.0, 4.0, 1.5], dtype=tc.float64, device=device)
    x.requires_grad_()
    y = tc.nn.functional.hardswish(x)
    assert y.tolist() == [0.0, 3.0, 0.0, 4.0, 1.125]
    (g,) = tc.autograd.grad(y.sum(), x)
    assert g.tolist() == [0.0, 1.0, 0.0, 1.0, 1.0]


def test_a_sparse_tensors_legacy_type_string() -> None:
    s = tc.eye(2).to_sparse()
    assert s.type() == "tensorcore.sparse.FloatTensor"
    assert tc.eye(2, dtype=tc.float64).type() == "tensorcore.DoubleTensor"


def _grads(f: Any, *values: list[float], device: str) -> list[list[float]]:
    xs = [tc.tensor(v, dtype=tc.float64, device=device, requires_grad=True) for v in values]
    return [g.tolist() for g in tc.autograd.grad(f(*xs).sum(), xs)]


def test_maximum_and_minimum_give_a_nan_side_the_whole_gradient(device: str) -> None:
    # PyTorch: each side gets the gradient unless it lost the comparison (halved at ties);
    # no comparison holds with a NaN, so both sides get all of it there.
    for f in (tc.maximum, tc.minimum):
        gs = _grads(f, [NAN, 1.0, NAN, 2.0, 1.0], [1.0, NAN, NAN, 2.0, 3.0], device=device)
        lost_by_self = 1.0 if f is tc.minimum else 0.0
        assert gs[0] == [1.0, 1.0, 1.0, 0.5, lost_by_self]
        assert gs[1] == [1.0, 1.0, 1.0, 0.5, 1.0 - lost_by_self]


def test_atan2_gradient_is_zero_at_the_origin(device: str) -> None:
    gs = _grads(tc.atan2, [0.0, 0.0, 1.0], [0.0, -0.0, 0.0], device=device)
    assert gs == [[0.0, 0.0, 0.0], [0.0, 0.0, -1.0]]


def test_pow_gradient_in_the_base_is_zero_where_the_exponent_is(device: str) -> None:
    gs = _grads(tc.pow, [0.0, 0.0, 2.0], [0.0, 2.0, 0.0], device=device)
    assert gs[0] == [0.0, 0.0, 0.0]
    assert gs[1][:2] == [0.0, 0.0]  # (0 ** p for p >= 0: 0, PyTorch's choice)


@pytest.mark.parametrize("p", [0.5, -1.0])
def test_vector_norm_below_1_is_differentiable_at_zero_elements(device: str, p: float) -> None:
    # PyTorch: 0 at a zero element (|x|^(p-1) is infinite there), the usual elsewhere.
    x = [0.0, 1.0, -2.0]
    (g,) = _grads(lambda t: tc.linalg.vector_norm(t, p), x, device=device)
    norm = sum(abs(v) ** p if v else (math.inf if p < 0 else 0.0) for v in x) ** (1 / p)
    expect = [0.0 if v == 0 else math.copysign(abs(v) ** (p - 1), v) * norm ** (1 - p) for v in x]
    assert g == pytest.approx(expect)
    assert _grads(lambda t: tc.linalg.vector_norm(t, p), [0.0, 0.0], device=device) == [[0, 0]]
    (gd, _) = _grads(lambda a, b: tc.cdist(a, b, 0.5), [[1.0, 2.0]], [[1.0, 3.0]], device=device)
    assert gd == [[0.0, -1.0]]  # (the coincident coordinate gets 0)


@pytest.mark.parametrize("name", ["median", "nanmedian", "max", "min"])
def test_whole_tensor_order_statistics_share_the_gradient(device: str, name: str) -> None:
    # PyTorch shares the gradient evenly over the elements equal to the result (over the
    # NaNs where it is NaN); the value stays exact, -0.0 and infinities included.
    f = getattr(tc, name)
    assert _grads(f, [2.0, 2.0, 2.0, 2.0], device=device) == [[0.25] * 4]
    if name in ("median", "max"):
        assert _grads(f, [1.0, math.inf, math.inf], device=device) == [[0.0, 0.5, 0.5]]
    if name != "nanmedian":
        assert _grads(f, [1.0, NAN, NAN, 0.5], device=device) == [[0.0, 0.5, 0.5, 0.0]]
    x = tc.tensor([-0.0, 0.1, -0.0, 0.1, -0.0], device=device, requires_grad=True)
    y = f(x)
    assert y.item() == f(x.detach()).item()
    if name in ("median", "nanmedian", "min"):
        assert math.copysign(1.0, y.item()) == -1.0


@pytest.mark.parametrize("nd", [1, 2])
def test_adaptive_max_pool_sends_the_gradient_to_the_first_maximum(device: str, nd: int) -> None:
    # Windows of 5 -> 2 (unequal) and of the whole input (a 1-long output): the gradient
    # goes to the index the pool returns, the first maximum, as PyTorch's; not split.
    pool = getattr(tc.nn.functional, f"adaptive_max_pool{nd}d")
    shape = (1, 1, 5) if nd == 1 else (1, 1, 1, 5)
    x = tc.tensor([1.0, 3.0, 3.0, 2.0, 2.0], device=device).reshape(shape).requires_grad_()
    for size in (2, 1):
        osize = size if nd == 1 else (1, size)
        _, idx = pool(x, osize, return_indices=True)
        (g,) = tc.autograd.grad(pool(x, osize).sum(), x)
        expect = tc.zeros(5, device=device).index_add_(
            0, idx.flatten(), tc.ones(size, device=device)
        )
        assert g.flatten().tolist() == expect.tolist()
    assert g.flatten().tolist() == [0.0, 1.0, 0.0, 0.0, 0.0]  # (size 1: ties at 1 and 2)
    # (PyTorch's names: its 1-D pools squeeze the result of its 2-D ones)
    name = "AdaptiveMaxPool2DBackward0" if nd == 2 else "SqueezeBackward1"
    assert pool(x, 2).grad_fn.name() == name


def test_sign_of_nan_is_zero(device: str) -> None:
    for d in (tc.float32, tc.float64, tc.float16):
        x = tc.tensor([NAN, -0.0, -2.0, 3.0], dtype=d, device=device)
        assert x.sign().tolist() == [0.0, 0.0, -1.0, 1.0]


def test_splitting_an_empty_dim_gives_one_empty_piece(device: str) -> None:
    assert [t.shape for t in tc.ones(0, device=device).split(2)] == [(0,)]
    assert [t.shape for t in tc.ones(3, 0, device=device).split(2, 1)] == [(3, 0)]
    assert [t.shape for t in tc.ones(0, 3, device=device).split(2, 1)] == [(0, 2), (0, 1)]


def test_squeeze_refuses_a_dim_given_twice(device: str) -> None:
    x = tc.zeros(1, 2, device=device)
    for dims in ((0, 0), (0, -2)):
        with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
            x.squeeze(dims)
    assert x.squeeze((0, 1)).shape == (2,)


def test_reductions_without_identity_on_empty_inputs(device: str) -> None:
    # PyTorch asks for a dim before it looks at the sizes (amax: RuntimeError, the flat
    # argmax: IndexError), and checks the reduced dim's size before anything else.
    e = tc.zeros(0, 3, device=device)
    for f in (tc.amax, tc.amin):
        with pytest.raises(RuntimeError, match=r"Expected reduction dim to be specified for input"):
            f(e)
        with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
            f(e, 0)
        assert f(e, 1).shape == (0,)
    for f in (tc.argmax, tc.argmin):
        with pytest.raises(IndexError, match=r"^\w+\(\): Expected reduction dim to be specified"):
            f(e)
    # the empty dim before a repeated one, named as given to amax's int[] (wrapped for an int)
    with pytest.raises(IndexError, match=r"amax\(\): Expected reduction dim -1 to have non-zero"):
        tc.amax(tc.zeros(2, 0, device=device), (-1, 1))
    with pytest.raises(IndexError, match=r"argmax\(\): Expected reduction dim 1 to have non-zero"):
        tc.argmax(tc.zeros(2, 0, device=device), -1)
    with pytest.raises(RuntimeError, match="dim 1 appears multiple times"):
        tc.amax(tc.zeros(0, 2, device=device), (1, 1))
    # the dtype before the sizes
    with pytest.raises(RuntimeError, match=r"argmax\(\): does not support bool input"):
        tc.argmax(tc.zeros(0, dtype=tc.bool, device=device))
    with pytest.raises(RuntimeError, match=r"argmin\(\): does not support complex input"):
        tc.argmin(tc.zeros(2, dtype=tc.complex64, device=device))
    with pytest.raises(IndexError, match="aminmax: Expected reduction dim 0 to have non-zero"):
        tc.aminmax(e, dim=0)
    with pytest.raises(RuntimeError, match="no identity"):
        tc.aminmax(e)
    with pytest.raises(IndexError, match=r"kthvalue\(\): Expected reduction dim 1 to have"):
        tc.kthvalue(tc.zeros(3, 0, device=device), 1, 1)


def test_median_of_an_empty_tensor_is_nan_cast_to_its_dtype(device: str) -> None:
    for d in (tc.float32, tc.int64, tc.int32, tc.int8):
        nan_as = tc.tensor(NAN, device=device).to(d)
        for f in (tc.median, tc.nanmedian):
            r = f(tc.zeros(0, dtype=d, device=device))
            assert r.dtype is d and r.shape == ()
            assert math.isnan(r.item()) if d is tc.float32 else r.item() == nan_as.item()


def test_out_dtype_rules_of_one_input_operators_and_matrix_products(device: str) -> None:
    x = tc.ones(2, 2, device=device)
    f64 = tc.zeros(2, 2, dtype=tc.float64, device=device)
    for call in (
        lambda o: tc.clamp(x, 0, 1, out=o),
        lambda o: tc.abs(x, out=o),
        lambda o: tc.floor(x, out=o),
        lambda o: tc.neg(x, out=o),
    ):
        with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
            call(f64)
    for call in (lambda o: tc.matmul(x, x, out=o), lambda o: tc.mm(x, x, out=o)):
        with pytest.raises(RuntimeError, match="to have dtype float, but got double instead"):
            call(f64)
    # More than one tensor input, or an operator that computes in floats: cast, as PyTorch's.
    assert tc.clamp(x, tc.zeros(2, device=device), out=f64).dtype is tc.float64
    assert tc.add(x, 1, out=f64).dtype is tc.float64
    assert tc.exp(x, out=f64).dtype is tc.float64
    c = tc.ones(2, dtype=tc.complex64, device=device)
    assert tc.abs(c, out=tc.zeros(2, device=device)).tolist() == [1.0, 1.0]


def test_elementwise_results_are_laid_out_from_every_operands_strides(device: str) -> None:
    # PyTorch's TensorIterator orders the result's dims by the first operand with an opinion
    # on each pair of dims (a broadcast one has none): the strides below are PyTorch's.
    col_major = tc.arange(6.0, device=device).reshape(3, 2).t()  # (2, 3), strides (1, 2)
    row = tc.arange(3.0, device=device)
    expanded = row.expand(2, 3)  # strides (0, 1)
    for a, b in ((expanded, col_major), (col_major, expanded), (row, col_major)):
        assert tc.add(a, b).stride() == (1, 2)
        assert tc.mul(a, b).stride() == (1, 2)
    assert tc.add(tc.ones(2, 3, device=device), col_major).stride() == (3, 1)  # first decides
    # a broadcast operand of 3 dims with an opinion on its last two
    b3 = tc.arange(12.0, device=device).reshape(1, 4, 3).transpose(1, 2)  # (1, 3, 4)
    c3 = tc.arange(24.0, device=device).reshape(2, 3, 4)
    assert tc.add(b3, c3).stride() == (12, 1, 3)
    assert tc.add(c3, b3).stride() == (12, 4, 1)
    cl = tc.ones(1, 2, 3, 4, device=device).contiguous(memory_format=tc.channels_last)
    assert tc.add(cl, tc.ones(1, 2, 3, 4, device=device)).stride() == (24, 1, 8, 2)
    assert tc.add(cl, tc.ones(2, 1, 1, device=device)).stride() == (24, 1, 8, 2)
    assert (tc.add(expanded, col_major) == row + col_major).all()


def _as_strided_scatter_oracle(
    x: Any, src: Any, size: Any, stride: Any, offset: Any, overlapping: bool = False
) -> Any:
    # PyTorch's model in NumPy: a fresh storage laid out as ``x`` is (its strides and offset;
    # contiguous from 0 when ``x`` overlaps itself), ``src`` written through as_strided of
    # that storage, the result read back in ``x``'s layout.
    import numpy as np
    from numpy.lib.stride_tricks import as_strided

    a = x.cpu().numpy()
    st = (
        tuple(s * a.itemsize for s in tc.empty(x.shape).stride())
        if overlapping
        else tuple(s * a.itemsize for s in x.stride())
    )
    base = 0 if overlapping else x.storage_offset()
    extent = base + 1 + sum((n - 1) * s // a.itemsize for n, s in zip(a.shape, st, strict=True))
    mem = np.zeros(extent + 64, a.dtype)
    as_strided(mem[base:], a.shape, st)[...] = a
    off = base if offset is None else offset
    as_strided(mem[off:], size, tuple(s * a.itemsize for s in stride))[...] = src.cpu().numpy()
    return as_strided(mem[base:], a.shape, st).copy()


def test_as_strided_scatter_addresses_a_storage_laid_out_as_self(device: str) -> None:
    # A transposed or sliced ``self``: size/stride/offset address a storage with its strides
    # and offset (found by diff_torch_edges: tensorcore used contiguous positions).
    import numpy as np

    b = tc.arange(36.0, device=device).reshape(6, 6)
    src = tc.tensor([[100.0, 101.0], [102.0, 103.0]], device=device)
    inputs = [b[::2, ::2], b.t()[:3, :3], b[1:4, 1:4], b[1:4, 1:4].t(), b[:3, :3].contiguous()]
    for x in inputs:
        for off in (None, 0, 1, 2, 4):
            got = tc.as_strided_scatter(x, src, (2, 2), (3, 1), off)
            want = _as_strided_scatter_oracle(x, src, (2, 2), (3, 1), off)
            np.testing.assert_array_equal(got.cpu().numpy(), want)
    e = tc.arange(3.0, device=device).expand(3, 3)  # overlapping: contiguous, from 0
    for off in (None, 1):
        got = tc.as_strided_scatter(e, src, (2, 2), (3, 1), off)
        want = _as_strided_scatter_oracle(e, src, (2, 2), (3, 1), off, overlapping=True)
        np.testing.assert_array_equal(got.cpu().numpy(), want)
    with pytest.raises(RuntimeError, match=r"out of bounds|require a storage"):
        tc.as_strided_scatter(b[:3, :3].contiguous(), src, (2, 2), (3, 1), 7)


def test_ravel_is_contiguous_and_atleast_3d_strides(device: str) -> None:
    x = tc.arange(12.0, device=device).reshape(2, 6)[:, ::2]  # reshape could give a view
    r = x.ravel()
    assert r.stride() == (1,) and r.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    c = tc.arange(4.0, device=device)
    assert c.ravel().data_ptr() == c.data_ptr()  # a contiguous tensor: a view
    v = tc.arange(6.0, device=device)[::2]
    assert tc.atleast_3d(v).stride() == (6, 2, 1)  # as unsqueeze(0).unsqueeze(-1)
