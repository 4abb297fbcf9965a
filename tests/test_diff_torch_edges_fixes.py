"""Regressions for differences from PyTorch 2.13 that ``tools/diff_torch_edges.py`` found on
edge inputs (each checked against PyTorch by hand; the expectations are written out here):
``out=`` tensors of another shape, reductions that compute in their ``out`` tensor's dtype,
bfloat16 sorts with NaN, ``searchsorted`` of NaN."""

from __future__ import annotations

import math
import warnings

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
