"""Selection and joining of sparse tensors (``select``, ``s[i]``, ``narrow_copy``,
``unsqueeze``, ``cat``, ``stack``) against the dense NumPy computation on every device that
has sparse kernels, for Hypothesis-generated patterns (duplicates, empty tensors, hybrid
tensors), and the errors PyTorch gives."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _sparse_helpers import as_np, coo_parts, dense_of, make
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorcore as tc

EXAMPLES = settings(max_examples=20, deadline=None)


def _sizes_ok(x: Any, got: Any, sd: int) -> None:
    """``got`` is sparse with ``sd`` sparse dims, or dense where no sparse dim is left."""
    if sd == 0:
        assert got.layout == tc.strided
    else:
        assert got.layout == tc.sparse_coo and got.sparse_dim() == sd


@EXAMPLES
@given(parts=coo_parts(), data=st.data(), coalesce=st.booleans())
def test_select(device: str, parts: Any, data: Any, coalesce: bool) -> None:
    x = make(parts, device, coalesce=coalesce)
    d = dense_of(parts)
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1), label="dim")
    n = x.shape[dim]
    if n == 0:
        return
    i = data.draw(st.integers(-n, n - 1), label="index")
    got = x.select(dim, i)
    sd = x.sparse_dim() - (1 if dim % x.ndim < x.sparse_dim() else 0)
    _sizes_ok(x, got, sd)
    np.testing.assert_allclose(as_np(got), np.take(d, i, axis=dim))
    if sd:  # flagged uncoalesced (PyTorch's flag); sorted and unique in fact when x was
        assert not got.is_coalesced() or got._nnz() < 2
        if coalesce:
            idx = got._indices()
            np.testing.assert_array_equal(idx.cpu().numpy(), got.coalesce()._indices().cpu())


def test_indexing_with_ints_selects(device: str) -> None:
    d = np.array([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]])
    x = tc.tensor(d, device=device).to_sparse()
    np.testing.assert_array_equal(as_np(x[1]), d[1])
    np.testing.assert_array_equal(as_np(x[:, 2]), d[:, 2])
    np.testing.assert_array_equal(as_np(x[-1, 2]), d[-1, 2])
    assert x[1].layout == tc.sparse_coo and x[1, 2].layout == tc.strided
    c = x.to_sparse_csr()
    np.testing.assert_array_equal(as_np(c[1]), d[1])
    np.testing.assert_array_equal(as_np(c.select(1, 0)), d[:, 0])
    assert c[1].layout == tc.sparse_coo  # (PyTorch's compressed select gives COO)
    assert x.to_sparse_csc().select(0, 1).layout == tc.sparse_coo


def test_select_checks_its_arguments(device: str) -> None:
    x = tc.eye(3, device=device).to_sparse()
    with pytest.raises(IndexError, match=r"select\(\): index 3 out of range for tensor of size"):
        x.select(0, 3)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.select(2, 0)
    # PyTorch's sparse tensors have no strides: views of ranges stay strided-only.
    with pytest.raises(NotImplementedError, match=r"'narrow'.*'sparse_coo'"):
        x.narrow(0, 0, 2)
    with pytest.raises(NotImplementedError, match=r"'slice'.*'sparse_coo'"):
        x[0:2]


@EXAMPLES
@given(parts=coo_parts(), data=st.data(), coalesce=st.booleans())
def test_narrow_copy(device: str, parts: Any, data: Any, coalesce: bool) -> None:
    x = make(parts, device, coalesce=coalesce)
    d = dense_of(parts)
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1), label="dim")
    n = x.shape[dim]
    start = data.draw(st.integers(0, n), label="start")
    length = data.draw(st.integers(0, n - start), label="length")
    got = x.narrow_copy(dim, start, length)
    assert got.layout == tc.sparse_coo and got.sparse_dim() == x.sparse_dim()
    np.testing.assert_allclose(as_np(got), np.take(d, range(start, start + length), axis=dim))
    assert got.is_coalesced() == x.is_coalesced() or got._nnz() < 2
    with pytest.raises(RuntimeError, match="Invalid range to narrow"):
        x.narrow_copy(dim, start, n - start + 1)


@EXAMPLES
@given(parts=coo_parts(), data=st.data())
def test_unsqueeze_and_stack(device: str, parts: Any, data: Any) -> None:
    x = make(parts, device)
    d = dense_of(parts)
    dim = data.draw(st.integers(-x.ndim - 1, x.ndim), label="dim")
    got = x.unsqueeze(dim)
    # A new dim among (or just after) the sparse dims is sparse, as in PyTorch.
    extra = 1 if dim % (x.ndim + 1) <= x.sparse_dim() else 0
    assert got.layout == tc.sparse_coo and got.sparse_dim() == x.sparse_dim() + extra
    np.testing.assert_array_equal(as_np(got), np.expand_dims(d, dim))
    stacked = tc.stack([x, x * 2], dim)
    assert stacked.layout == tc.sparse_coo
    np.testing.assert_allclose(as_np(stacked), np.stack([d, d * 2], dim))


@EXAMPLES
@given(parts=coo_parts(), data=st.data())
def test_cat(device: str, parts: Any, data: Any) -> None:
    x = make(parts, device)
    d = dense_of(parts)
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1), label="dim")
    # A second operand whose size along dim differs: narrow_copy of x twice over.
    y = tc.cat([x, x], dim).narrow_copy(dim, 1, 2 * x.shape[dim] - 1) if x.shape[dim] else x
    dy = (
        np.take(np.concatenate([d, d], dim), range(1, 2 * d.shape[dim]), axis=dim)
        if d.shape[dim]
        else d
    )
    got = tc.cat([x, y.to(tc.float32)], dim)
    assert got.layout == tc.sparse_coo and got.dtype == tc.float64  # (promoted)
    np.testing.assert_allclose(as_np(got), np.concatenate([d, dy], dim), rtol=1e-6)


def test_cat_checks_its_operands(device: str) -> None:
    x = tc.eye(3, device=device).to_sparse()
    with pytest.raises(RuntimeError, match="a dense tensor was found at position 1"):
        tc.cat([x, tc.eye(3, device=device)])
    with pytest.raises(RuntimeError, match="same sparse_dim and dense_dim: 2, 0"):
        tc.cat([x, tc.eye(3, device=device).to_sparse(1)])
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 0"):
        tc.cat([x, tc.ones(2, 2, device=device).to_sparse()])


def test_coalesced_flags_follow_pytorch(device: str) -> None:
    # Which results PyTorch flags coalesced; the flag never claims what is false.
    x = tc.sparse_coo_tensor(
        [[0, 0, 1, 1], [0, 1, 0, 2], [1, 2, 0, 1]], [1.0, 2.0, 3.0, 4.0], (2, 3, 3), device=device
    ).coalesce()
    flags = {
        "permute(0, 2, 1)": x.permute(0, 2, 1).is_coalesced(),  # first dim first, sorted
        "permute(1, 0, 2)": x.permute(1, 0, 2).is_coalesced(),
        "transpose(0, 0)": x.transpose(0, 0).is_coalesced(),
        "transpose(0, 1)": x.transpose(0, 1).is_coalesced(),
        "unsqueeze(0)": x.unsqueeze(0).is_coalesced(),
        "unsqueeze(3)": x.unsqueeze(3).is_coalesced(),
        "index_select": x.index_select(0, tc.tensor([0, 1], device=device)).is_coalesced(),
        "narrow_copy": x.narrow_copy(0, 0, 2).is_coalesced(),
        "cat of one": tc.cat([x]).is_coalesced(),
        "sum(1)": tc.sparse.sum(x, 1).is_coalesced(),
        "sum(1, keepdim=True)": x.sum(1, keepdim=True).is_coalesced(),
        "neg": (-x).is_coalesced(),
    }
    assert flags == {
        "permute(0, 2, 1)": True,
        "permute(1, 0, 2)": False,
        "transpose(0, 0)": True,
        "transpose(0, 1)": False,
        "unsqueeze(0)": False,
        "unsqueeze(3)": False,
        "index_select": False,
        "narrow_copy": True,
        "cat of one": False,
        "sum(1)": True,
        "sum(1, keepdim=True)": False,
        "neg": True,
    }
    # PyTorch flags permute(0, 2, 1) coalesced even where the indices come out unsorted;
    # here the flag stays true to the indices.
    y = tc.sparse_coo_tensor([[0, 0], [0, 1], [1, 0]], [1.0, 2.0], (2, 2, 2), device=device)
    p = y.coalesce().permute(0, 2, 1)
    assert not p.is_coalesced()
    np.testing.assert_array_equal(as_np(p.coalesce()), as_np(p))
