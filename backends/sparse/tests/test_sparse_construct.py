"""Making sparse COO tensors, taking them apart, converting them, and the errors on the way."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _sparse_helpers import as_np, coo_parts, dense_of, make
from hypothesis import given, settings

import tensorcore as tc

F64 = tc.float64


def small(device: str, dtype: tc.dtype = F64) -> tc.Tensor:
    # (0, 2) appears twice: an uncoalesced tensor whose entries sum to 4 there.
    return tc.sparse_coo_tensor(
        [[0, 1, 1, 0], [2, 0, 2, 2]], [3.0, 4.0, 5.0, 1.0], (2, 3), dtype=dtype, device=device
    )


def test_layout_and_metadata(device: str) -> None:
    x = small(device)
    assert x.layout is tc.sparse_coo and x.is_sparse
    assert x.layout.priority > tc.strided.priority
    assert x.shape == (2, 3) and x.dtype is F64 and x.device == tc.device(device)
    assert (x.sparse_dim(), x.dense_dim(), x._nnz()) == (2, 0, 4)
    assert not x.is_coalesced()
    assert not x.is_contiguous()
    assert "sparse_coo" in repr(x)


def test_repr_is_pytorchs_text(device: str) -> None:
    # Indices and values as PyTorch prints them; size, nnz, a non-default dtype, the layout
    # and grad_fn after them, the first always on a line of its own.
    x = tc.tensor([[0.0, 2.0, 0.0], [3.0, 0.0, 4.5]], device=device).to_sparse()
    dev = "" if device == "cpu" else f"device='{x.device}', "
    assert repr(x) == (
        "tensor(indices=tensor([[0, 1, 1],\n"
        "                       [1, 0, 2]]),\n"
        "       values=tensor([2.0000, 3.0000, 4.5000]),\n"
        f"       {dev}size=(2, 3), nnz=3, layout=tensorcore.sparse_coo)"
    )
    if device != "cpu":
        return
    empty = tc.zeros(2, 3, dtype=tc.int32).to_sparse()
    assert repr(empty) == (
        "tensor(indices=tensor([], size=(2, 0)),\n"
        "       values=tensor([], size=(0,)),\n"
        "       size=(2, 3), nnz=0, dtype=tensorcore.int32, layout=tensorcore.sparse_coo)"
    )
    y = tc.tensor([[1.0, 0.0]], requires_grad=True).to_sparse()
    assert repr(y).endswith("layout=tensorcore.sparse_coo,\n       grad_fn=<ToSparseBackward0>)")


def test_accessors_of_a_coalesced_tensor(device: str) -> None:
    x = small(device).coalesce()
    assert x.is_coalesced() and x._nnz() == 3
    assert x.indices().tolist() == [[0, 1, 1], [2, 0, 2]]
    assert x.values().tolist() == [4.0, 4.0, 5.0]
    assert x.indices().dtype is tc.int64 and not x.indices().is_sparse
    assert x.coalesce().is_coalesced()


def test_values_and_indices_need_a_coalesced_tensor(device: str) -> None:
    x = small(device)
    with pytest.raises(RuntimeError, match="uncoalesced"):
        x.values()
    with pytest.raises(RuntimeError, match="uncoalesced"):
        x.indices()
    assert x._values().tolist() == [3.0, 4.0, 5.0, 1.0]
    assert x._indices().shape == (2, 4)


def test_values_alias_the_tensor(device: str) -> None:
    x = small(device).coalesce()
    x.values().mul_(2)
    assert x.to_dense().tolist() == [[0.0, 0.0, 8.0], [8.0, 0.0, 10.0]]


def test_to_dense_sums_duplicates(device: str) -> None:
    assert small(device).to_dense().tolist() == [[0.0, 0.0, 4.0], [4.0, 0.0, 5.0]]
    assert small(device).to_dense(dtype=tc.float32).dtype is tc.float32


def test_dense_to_dense_is_an_alias(device: str) -> None:
    d = tc.ones(2, 2, device=device)
    y = d.to_dense()
    assert y is not d and y.tolist() == d.tolist() and not y.is_sparse
    assert (d.sparse_dim(), d.dense_dim()) == (0, 2)


def test_to_sparse(device: str) -> None:
    d = tc.tensor([[0.0, 2.0], [3.0, 0.0], [0.0, 0.0]], device=device)
    s = d.to_sparse()
    assert s.is_sparse and s.is_coalesced() and s.shape == (3, 2)
    assert s.indices().tolist() == [[0, 1], [1, 0]]
    assert s.values().tolist() == [2.0, 3.0]
    h = d.to_sparse(1)  # hybrid: rows are sparse, each row a dense value
    assert (h.sparse_dim(), h.dense_dim(), h._nnz()) == (1, 1, 2)
    assert h.values().tolist() == [[0.0, 2.0], [3.0, 0.0]]
    assert h.to_dense().tolist() == d.tolist()
    assert s.to_sparse() is not s and s.to_sparse().is_sparse
    with pytest.raises(RuntimeError, match="sparse_dim"):
        s.to_sparse(1)


def test_size_is_inferred(device: str) -> None:
    x = tc.sparse_coo_tensor([[0, 4], [1, 1]], [1.0, 2.0], device=device)
    assert x.shape == (5, 2)
    h = tc.sparse_coo_tensor([[2]], [[1.0, 2.0, 3.0]], device=device)
    assert h.shape == (3, 3) and h.dense_dim() == 1


def test_empty_tensors(device: str) -> None:
    e = tc.sparse_coo_tensor(tc.zeros(2, 0, dtype=tc.int64), tc.zeros(0), (3, 4), device=device)
    assert e._nnz() == 0 and e.is_coalesced()
    assert e.to_dense().tolist() == [[0.0] * 4] * 3
    assert (e + e)._nnz() == 0 and e.sum().item() == 0.0
    z = tc.sparse_coo_tensor(tc.zeros(2, 0, dtype=tc.int64), tc.zeros(0), device=device)
    assert z.shape == (0, 0)
    zs = tc.zeros_like(small(device))
    assert zs.is_sparse and zs._nnz() == 0 and zs.shape == (2, 3)
    # PyTorch: a sparse tensor has no memory order to keep or to give.
    for fmt in (tc.preserve_format, tc.contiguous_format):
        with pytest.raises(RuntimeError, match="only supported by strided tensors"):
            tc.zeros_like(small(device), memory_format=fmt)


def test_dtype_device_requires_grad(device: str) -> None:
    x = tc.sparse_coo_tensor([[0]], [1], (2,), dtype=tc.float32, device=device, requires_grad=True)
    assert x.dtype is tc.float32 and x.requires_grad and x.is_leaf
    assert tc.sparse_coo_tensor([[0]], [1], (2,)).dtype is tc.int64
    v = tc.tensor([1.0, 2.0], dtype=F64)
    assert tc.sparse_coo_tensor([[0, 1]], v, dtype=tc.float32).dtype is tc.float32


@pytest.mark.parametrize(
    ("indices", "values", "size", "match"),
    [
        ([[0, 5]], [1.0, 2.0], (3,), "inconsistent with indices: for dim 0, size is 3"),
        ([[0, -1]], [1.0, 2.0], (3,), "negative index -1 for dim 0"),
        ([[0, 1], [0, 2]], [1.0, 2.0], (2, 2), "for dim 1, size is 2 but found index 2"),
        ([0, 1], [1.0, 2.0], (3,), "indices must be sparse_dim x nnz"),
        ([[0, 1]], [1.0, 2.0, 3.0], (3,), "same nnz"),
        ([[0, 1]], [1.0, 2.0], (3, 3), "len\\(size\\) == sparse_dim \\+ dense_dim"),
        ([[0, 1]], [[1.0], [2.0]], (3, 2), "dense sizes"),
        ([[0j, 1j]], [1.0, 2.0], (3,), "indices must be integers"),
    ],
)
def test_invalid_input_raises_at_construction(
    device: str, indices: object, values: object, size: object, match: str
) -> None:
    with pytest.raises(RuntimeError, match=match):
        tc.sparse_coo_tensor(indices, values, size, device=device)


def test_checks_can_be_switched_off(device: str) -> None:
    x = tc.sparse_coo_tensor([[0, 5]], [1.0, 2.0], (3,), device=device, check_invariants=False)
    assert x._nnz() == 2


def test_conversions_keep_the_layout(device: str) -> None:
    x = small(device)
    y = x.to(tc.float32)
    assert y.is_sparse and y.dtype is tc.float32 and x.dtype is F64
    assert y.to_dense().tolist() == x.to_dense().tolist()
    c = x.clone()
    assert c.is_sparse and c._values().tolist() == x._values().tolist()
    c._values().mul_(0)
    assert x.to_dense().abs().sum().item() > 0  # the clone owns its values
    d = x.detach()
    assert d.is_sparse and d._values().tolist() == x._values().tolist()
    assert x.to(device) is x
    s = tc.sparse_coo_tensor([[0]], [1.0], (2,), device=device)
    s.copy_(tc.sparse_coo_tensor([[1]], [7.0], (2,), device=device))
    assert s.to_dense().tolist() == [0.0, 7.0]


def test_an_operator_without_a_sparse_kernel_names_the_layout(device: str) -> None:
    x = small(device)
    with pytest.raises(NotImplementedError, match="'sparse_coo' layout"):
        x.exp()  # not zero-preserving: never densified silently
    with pytest.raises(NotImplementedError, match="'sparse_coo' layout"):
        x.cos()
    with pytest.raises(RuntimeError, match="would make it dense"):
        x + 1
    with pytest.raises(RuntimeError, match="dense"):
        x.pow(0)


def test_explain_names_the_plugin(device: str) -> None:
    x = small(device)
    assert tc.explain("add", tc.ones(2, 3, device=device), x) == (
        f"add[{device}, sparse_coo] -> kernel 'add' from plugin 'sparse'"
    )


def test_plugin_is_listed() -> None:
    info = {p.name: p for p in tc.backends.list()}["sparse"]
    assert info.status == "loaded"
    assert info.layouts == ["sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc"]
    assert info.distribution == "tensorcore-sparse"


@settings(max_examples=25, deadline=None)
@given(parts=coo_parts())
def test_roundtrip_matches_the_dense_oracle(device: str, parts: object) -> None:
    x = make(parts, device)
    expected = dense_of(parts)
    np.testing.assert_allclose(as_np(x), expected)
    c = x.coalesce()
    assert c.is_coalesced() and c._nnz() <= x._nnz()
    np.testing.assert_allclose(as_np(c), expected)
    if c._nnz() > 1:
        idx = np.array(c.indices().tolist())
        keys = np.ravel_multi_index(tuple(idx), c.shape[: c.sparse_dim()])
        assert (np.diff(keys) > 0).all()  # sorted and unique
    back = tc.from_numpy(expected).to(device).to_sparse(x.sparse_dim())
    np.testing.assert_allclose(as_np(back), expected)


def test_legacy_sparse_constructors() -> None:
    # pygcn's torch.sparse.FloatTensor(indices, values, shape), the sized and empty forms,
    # isinstance by layout and dtype, and the errors of PyTorch's legacy constructor.
    i = tc.tensor([[0, 1, 1], [2, 0, 2]])
    with pytest.warns(UserWarning, match="sparse_coo_tensor"):
        x = tc.sparse.FloatTensor(i, tc.tensor([3.0, 4.0, 5.0]), tc.Size([2, 3]))
    assert x.layout is tc.sparse_coo and x.dtype is tc.float32
    np.testing.assert_array_equal(x.to_dense().numpy(), [[0, 0, 3], [4, 0, 5]])
    with pytest.warns(UserWarning):
        assert tc.sparse.FloatTensor(i, tc.tensor([1.0, 1.0, 1.0])).shape == (2, 3)
        assert tc.sparse.LongTensor(i, tc.tensor([1, 2, 3]), (2, 3)).dtype is tc.int64
    e = tc.sparse.DoubleTensor(2, 3)
    assert (e.shape, e.dtype, e._nnz(), e.sparse_dim()) == ((2, 3), tc.float64, 0, 2)
    e = tc.sparse.FloatTensor()
    assert (e.shape, e._nnz(), e.sparse_dim()) == ((0,), 0, 1)
    assert isinstance(x, tc.sparse.FloatTensor) and not isinstance(x, tc.sparse.DoubleTensor)
    assert not isinstance(x, tc.FloatTensor) and not isinstance(x.to_dense(), tc.sparse.FloatTensor)
    assert isinstance(x.to_dense(), tc.FloatTensor)
    assert repr(tc.sparse.FloatTensor) == "<class 'tensorcore.sparse.FloatTensor'>"
    with pytest.raises(RuntimeError, match="indices must be an int64 tensor"):
        tc.sparse.FloatTensor(i.int(), tc.ones(3), (2, 3))
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        tc.sparse.FloatTensor([[0, 1]], [1.0, 2.0], (2,))
    with pytest.raises(RuntimeError, match="expects device type: cpu"):
        tc.sparse.FloatTensor(2, device="meta")
    # torch.sparse.torch is torch (capsule-network code spells torch.sparse.torch.eye(n))
    assert tc.sparse.torch is tc


def test_to_sparse_coo_is_to_sparse_with_its_defaults(device: str) -> None:
    d = tc.tensor([[0.0, 2.0], [3.0, 0.0]], device=device, requires_grad=True)
    s = d.to_sparse_coo()
    assert s.layout is tc.sparse_coo and s.grad_fn.name() == d.to_sparse().grad_fn.name()
    assert s.to_dense().tolist() == [[0.0, 2.0], [3.0, 0.0]]
    (g,) = tc.autograd.grad(s.to_dense().sum(), d)
    assert g.tolist() == [[0.0, 1.0], [1.0, 0.0]]  # (the pattern's entries, as to_sparse's)
    for x in (s, d.detach().to_sparse_csr(), d.detach().to_sparse_csc()):
        assert x.to_sparse_coo().layout is tc.sparse_coo
    assert not hasattr(tc, "to_sparse_coo")  # (a method only, as PyTorch's)


@pytest.mark.parametrize("layout", [None, tc.sparse_csr, tc.sparse_csc])
def test_spdiags_matches_scipy(device: str, layout: Any) -> None:
    import scipy.sparse as sps

    data = np.arange(1.0, 13.0).reshape(3, 4)
    for offsets, shape in [([0, -1, 2], (4, 4)), ([1, -2, 0], (3, 5)), ([3, -3, 1], (5, 2))]:
        got = tc.sparse.spdiags(
            tc.tensor(data, device=device), tc.tensor(offsets, device=device), shape, layout
        )
        assert got.layout == (layout or tc.sparse_coo) and tuple(got.shape) == shape
        want = sps.spdiags(data, offsets, *shape).toarray()
        np.testing.assert_array_equal(got.to_dense().cpu().numpy(), want)


def test_spdiags_checks_its_arguments(device: str) -> None:
    d = tc.ones(2, 3, device=device)
    with pytest.raises(RuntimeError, match=r"Number of diagonals \(2\) does not match"):
        tc.sparse.spdiags(d, tc.tensor([0], device=device), (3, 3))
    with pytest.raises(RuntimeError, match="duplicate values"):
        tc.sparse.spdiags(d, tc.tensor([1, 1], device=device), (3, 3))
    with pytest.raises(RuntimeError, match="must have dtype Long but got Float"):
        tc.sparse.spdiags(d, tc.tensor([0.0, 1.0], device=device), (3, 3))
    with pytest.raises(RuntimeError, match="got Strided"):
        tc.sparse.spdiags(d, tc.tensor([0, 1], device=device), (3, 3), layout=tc.strided)


def test_check_sparse_tensor_invariants_sets_the_default() -> None:
    inv = tc.sparse.check_sparse_tensor_invariants
    assert inv.is_enabled()  # (tensorcore checks by default; PyTorch does not)
    with inv(enable=False):
        assert not inv.is_enabled()
        tc.sparse_coo_tensor([[5]], [1.0], (3,))  # unchecked
        with pytest.raises(RuntimeError, match="size is inconsistent with indices"):
            tc.sparse_coo_tensor([[5]], [1.0], (3,), check_invariants=True)
    assert inv.is_enabled()
    inv.disable()
    try:
        assert not inv.is_enabled()
        tc.sparse_csr_tensor([0, 1], [7], [1.0], (1, 2))  # unchecked
    finally:
        inv.enable()

    @inv()
    def build() -> Any:
        return tc.sparse_coo_tensor([[5]], [1.0], (3,))

    inv.disable()
    try:
        with pytest.raises(RuntimeError, match="size is inconsistent with indices"):
            build()
    finally:
        inv.enable()


@pytest.mark.parametrize("layout", ["sparse_coo", "sparse_csr", "sparse_csc"])
def test_factories_of_a_sparse_layout(device: str, layout: str) -> None:
    # PyTorch's zeros/empty(layout=...), new_zeros/new_empty of a sparse tensor and
    # empty_like: sparse, without entries; factories that would fill it refuse.
    lay = getattr(tc, layout)
    x = tc.tensor([[1.0, 0.0], [0.0, 2.0]], dtype=tc.float64, device=device).to_sparse(layout=lay)
    made = {
        "zeros": tc.zeros(2, 3, layout=lay, device=device),
        "empty": tc.empty((2, 3), layout=lay, device=device),
        "new_zeros": x.new_zeros(2, 3),
        "new_empty": x.new_empty((2, 3)),
        "new_zeros of empty_like": tc.empty_like(x).new_zeros(2, 3),
    }
    for name, z in made.items():
        assert (z.layout, tuple(z.shape), z._nnz()) == (lay, (2, 3), 0), name
        np.testing.assert_array_equal(z.to_dense().cpu().numpy(), np.zeros((2, 3)))
    assert made["new_zeros"].dtype is tc.float64 and made["zeros"].dtype is tc.float32
    assert tc.empty_like(x).layout is lay and tc.empty_like(x)._nnz() == 0
    if layout == "sparse_coo":
        assert made["zeros"].is_coalesced() and made["zeros"].sparse_dim() == 2
    z = tc.zeros(2, 3, layout=lay, device=device, requires_grad=True)
    assert z.requires_grad and z.is_leaf
    with pytest.raises(NotImplementedError, match=r"layout=tensorcore\.sparse"):
        x.new_ones(2, 3)
    with pytest.raises(NotImplementedError, match=r"layout=tensorcore\.sparse"):
        x.new_full((2, 3), 1.0)
    with pytest.raises(NotImplementedError, match=r"layout=tensorcore\.sparse"):
        tc.ones(2, 3, layout=lay)


def test_sparse_resize(device: str) -> None:
    d = np.array([[0.0, 1.0], [2.0, 0.0]])
    x = tc.from_numpy(d).to(device).to_sparse()
    # A non-empty tensor may grow, keeping its entries and its numbers of sparse/dense dims.
    assert x.sparse_resize_((3, 4), 2, 0) is x
    want = np.zeros((3, 4))
    want[:2, :2] = d
    assert tuple(x.shape) == (3, 4) and x._nnz() == 2
    np.testing.assert_array_equal(as_np(x), want)
    with pytest.raises(
        RuntimeError, match=r"shrinking the size of sparse dimensions \(from \[3, 4\] to \[2, 4\]\)"
    ):
        x.sparse_resize_((2, 4), 2, 0)
    with pytest.raises(
        RuntimeError, match=r"changing the number of dense dimensions \(from 0 to 1\)"
    ):
        x.sparse_resize_((3, 4, 2), 2, 1)
    with pytest.raises(
        RuntimeError, match=r"must be sparse_dim \(2\) \+ dense_dim \(0\), but got 3"
    ):
        x.sparse_resize_((3, 4, 2), 2, 0)
    # Cleared (or empty), any size and dims.
    x.sparse_resize_and_clear_((2, 5, 3), 1, 2)
    assert (tuple(x.shape), x.sparse_dim(), x.dense_dim(), x._nnz()) == ((2, 5, 3), 1, 2, 0)
    # resize_as_ of two sparse tensors is resize_as_sparse_; the template's dims come along.
    e = tc.zeros(1, 1, layout=tc.sparse_coo, device=device)
    h = tc.sparse_coo_tensor([[0, 2]], [[1.0, 2.0], [3.0, 4.0]], (3, 2), device=device)
    assert e.resize_as_(h) is e
    assert (tuple(e.shape), e.sparse_dim(), e.dense_dim()) == ((3, 2), 1, 1)
    y = tc.from_numpy(d).to(device).to_sparse()
    with pytest.raises(
        RuntimeError, match=r"changing the number of sparse dimensions \(from 2 to 1\)"
    ):
        y.resize_as_(h)
    # A dense template: resize_, which a sparse tensor has not (PyTorch's error type).
    with pytest.raises(NotImplementedError, match="resize_"):
        y.resize_as_(tc.zeros(4, 4))
    with pytest.raises(NotImplementedError, match="resize_"):
        y.resize_(4, 4)
    # _coalesced_ sets the flag, as PyTorch's.
    u = tc.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2,), device=device)
    assert not u.is_coalesced() and u._coalesced_(True).is_coalesced()
