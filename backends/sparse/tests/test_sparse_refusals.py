"""Where PyTorch refuses a sparse tensor, or takes an input that looks invalid, this backend
does the same: float indices cast, ``item()`` of one element, the ``*_like`` factories that
have no sparse form, in-place composites of an uncoalesced tensor, ``reshape``, ``copy_``
between layouts and ``masked_fill`` (NumPy as the oracle, PyTorch's exception types and
wording)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorcore as tc


def _unc(device: Any) -> Any:
    """An uncoalesced matrix: (2, 1) repeated, unsorted."""
    i = tc.tensor([[2, 0, 2, 1], [1, 2, 1, 0]])
    v = tc.tensor([1.5, 2.0, 3.0, -4.25], dtype=tc.float64)
    return tc.sparse_coo_tensor(i, v, (3, 3), device=device)


def _dense_of_unc() -> np.ndarray:
    d = np.zeros((3, 3))
    d[2, 1], d[0, 2], d[1, 0] = 4.5, 2.0, -4.25
    return d


@pytest.mark.parametrize("as_list", [False, True])
def test_floating_and_bool_indices_are_cast_to_int64(device: Any, as_list: bool) -> None:
    idx: Any = [[0.7, 2.0]] if as_list else tc.tensor([[0.7, 2.0]])
    x = tc.sparse_coo_tensor(idx, [1.0, 2.0], (3,), device=device)
    assert x._indices().dtype is tc.int64
    np.testing.assert_array_equal(x.to_dense().cpu().numpy(), [1.0, 0.0, 2.0])
    b = tc.sparse_coo_tensor(tc.tensor([[True, False]]), [1.0, 2.0], device=device)
    np.testing.assert_array_equal(b._indices().cpu().numpy(), [[1, 0]])
    with pytest.raises(RuntimeError, match="must be an int64 tensor, but got complex64"):
        tc.sparse_coo_tensor(tc.tensor([[1j]]), [1.0], device=device)


def test_item_of_one_element(device: Any) -> None:
    x = tc.sparse_coo_tensor([[0, 0], [0, 0]], [2.0, 3.5], (1, 1), device=device)
    assert x.item() == 5.5  # (repeated entries add up)
    empty = tc.sparse_coo_tensor(tc.zeros(1, 0, dtype=tc.int64), tc.zeros(0), (1,), device=device)
    assert empty.item() == 0.0
    hybrid = tc.sparse_coo_tensor([[0]], [[2.0]], (1, 1), device=device)
    assert hybrid.item() == 2.0
    with pytest.raises(RuntimeError, match="a Tensor with 9 elements cannot be converted"):
        _unc(device).item()


@pytest.mark.parametrize(
    "make",
    [
        lambda x: tc.ones_like(x),
        lambda x: tc.full_like(x, 2.0),
        lambda x: tc.rand_like(x),
        lambda x: tc.randn_like(x),
        lambda x: tc.randint_like(x, 3),
    ],
    ids=["ones_like", "full_like", "rand_like", "randn_like", "randint_like"],
)
def test_like_factories_without_a_sparse_form_refuse(device: Any, make: Any) -> None:
    with pytest.raises(NotImplementedError, match="sparse_coo"):
        make(_unc(device))
    # (a dense input is unaffected)
    assert make(tc.zeros(2, 2, device=device)).layout is tc.strided


def test_like_factories_with_a_sparse_form_keep_the_layout(device: Any) -> None:
    for fn in (tc.zeros_like, tc.empty_like):
        r = fn(_unc(device))
        assert r.layout is tc.sparse_coo and r._nnz() == 0 and r.shape == (3, 3)


@pytest.mark.parametrize(
    ("name", "fn", "fill"),
    [
        ("zeros_like", tc.zeros_like, 0.0),
        ("empty_like", tc.empty_like, None),
        ("ones_like", tc.ones_like, 1.0),
        ("full_like", lambda x, **kw: tc.full_like(x, 2.5, **kw), 2.5),
        ("rand_like", tc.rand_like, None),
        ("randn_like", tc.randn_like, None),
    ],
)
@pytest.mark.parametrize("source", ["sparse_coo", "sparse_csr"])
def test_like_factories_honour_layout(
    device: Any, name: str, fn: Any, fill: Any, source: str
) -> None:
    # ``layout=`` names the result's layout, as in PyTorch: strided from a sparse input, a
    # sparse layout from a dense one (where that layout has the factory), none: the input's.
    dense = tc.tensor([[0.0, 1.0], [2.0, 0.0]], dtype=tc.float64, device=device)
    x = getattr(dense, f"to_{source.replace('_coo', '')}")()
    r = fn(x, layout=tc.strided)
    assert r.layout is tc.strided and r.shape == (2, 2) and r.dtype is tc.float64
    assert r.device == x.device
    if fill is not None:
        np.testing.assert_array_equal(r.cpu().numpy(), np.full((2, 2), fill))
    r = fn(x, layout=tc.strided, dtype=tc.float32, memory_format=tc.contiguous_format)
    assert r.layout is tc.strided and r.dtype is tc.float32 and r.is_contiguous()
    if name in ("zeros_like", "empty_like"):
        r = fn(dense, layout=getattr(tc, source))
        assert r.layout is getattr(tc, source) and r._nnz() == 0 and r.shape == (2, 2)
        assert fn(x, layout=None).layout is x.layout


@pytest.mark.parametrize(
    ("name", "fn"), [("frac", np.modf), ("square", np.square), ("sgn", np.sign)]
)
def test_inplace_composites_refuse_uncoalesced_input(device: Any, name: str, fn: Any) -> None:
    x = _unc(device)
    before = x.to_dense().cpu().numpy()
    with pytest.raises(RuntimeError, match=f"^{name}_ requires coalesced input$"):
        getattr(x, name + "_")()
    np.testing.assert_array_equal(x.to_dense().cpu().numpy(), before)
    c = _unc(device).coalesce()
    r = getattr(c, name + "_")()
    assert r is c and c.layout is tc.sparse_coo and c.is_coalesced()
    want = fn(_dense_of_unc())
    want = want[0] if isinstance(want, tuple) else want
    np.testing.assert_allclose(c.to_dense().cpu().numpy(), want)


def test_reshape_copy_and_masked_fill_raise_pytorchs_errors(device: Any) -> None:
    x = _unc(device)
    d = tc.zeros(3, 3, dtype=tc.float64, device=device)
    for call in (lambda: x.reshape(9), lambda: x.flatten(), lambda: x.reshape(3, 3)):
        with pytest.raises(RuntimeError, match="reshape is not implemented for sparse tensors"):
            call()
    with pytest.raises(RuntimeError, match=r"copy_\(\) between dense and sparse Tensors"):
        d.copy_(x)
    with pytest.raises(RuntimeError, match=r"copy_\(\) between dense and sparse Tensors"):
        x.copy_(d)
    np.testing.assert_array_equal(d.cpu().numpy(), np.zeros((3, 3)))
    mask = tc.ones(3, 3, dtype=tc.bool, device=device)
    with pytest.raises(RuntimeError, match="unsupported memory format option Contiguous"):
        x.masked_fill(mask, 1.0)


def test_sspaddmm_refuses_what_pytorch_refuses(device: Any) -> None:
    s = _unc(device)
    m1 = tc.sparse_coo_tensor([[0, 2], [1, 0]], [3.0, 4.0], (3, 2), dtype=tc.float64)
    m2 = tc.arange(6.0, dtype=tc.float64).reshape(2, 3).to(device)
    m1 = m1.to(device)
    got = tc.sspaddmm(s, m1, m2, beta=2.0)
    np.testing.assert_allclose(
        got.to_dense().cpu().numpy(),
        2 * _dense_of_unc() + m1.to_dense().cpu().numpy() @ m2.cpu().numpy(),
    )
    cases = [
        ((s.to_dense(), m1, m2), "expected 'self' to have sparse layout, got 'self' with"),
        ((s, m1.to_dense(), m2), "expected 'mat1' to have sparse layout"),
        ((s, m1, m2.to_sparse()), "expected 'mat2' to have strided layout"),
        ((s, m1, tc.ones(3, 3, dtype=tc.float64, device=device)), "Argument #3: Expected dim 0"),
        ((s, m1, m2[:, :2]), "Argument #1: Expected dim 1 size 2, got 3"),
        ((s.float(), m1, m2), "the same dtype, but got Float, Double and Double"),
    ]
    for args, message in cases:
        with pytest.raises(RuntimeError, match=message):
            tc.sspaddmm(*args)
    # No derivative, as in PyTorch: the result joins the graph, and backward raises.
    r = tc.sspaddmm(s.clone().requires_grad_(), m1, m2)
    assert r.requires_grad and type(r.grad_fn).__name__ == "SspaddmmBackward0"
    with pytest.raises(RuntimeError, match="derivative for aten::sspaddmm is not implemented"):
        r.to_dense().sum().backward()


def test_sparse_coo_tensor_of_a_size_alone(device: Any) -> None:
    # PyTorch's third overload: a tensor without entries, every dim sparse.
    for x in (
        tc.sparse_coo_tensor((2, 3), dtype=tc.float64, device=device),
        tc.sparse_coo_tensor(size=[2, 3], dtype=tc.float64, device=device),
    ):
        assert (x.shape, x._nnz(), x.sparse_dim(), x.dtype) == ((2, 3), 0, 2, tc.float64)
        assert x.device == tc.device(device)
    assert tc.sparse_coo_tensor((2,), requires_grad=True).requires_grad
    with pytest.raises(TypeError, match="missing 2 required positional arguments"):
        tc.sparse_coo_tensor()
    with pytest.raises(
        TypeError, match="'size' \\(position 1\\) must be tuple of ints, not Tensor"
    ):
        tc.sparse_coo_tensor(tc.zeros(1, 0, dtype=tc.int64))
    with pytest.raises(RuntimeError, match="negative size"):
        tc.sparse_coo_tensor((2, -1))
