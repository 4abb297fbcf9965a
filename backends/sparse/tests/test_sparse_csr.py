"""The compressed layouts (``sparse_csr``, ``sparse_csc``): construction and PyTorch's
invariant errors, conversions, accessors, ``repr``, operations against NumPy and SciPy,
gradients (``gradcheck`` through the values, and the pattern of a CSR leaf's gradient), and
serialisation. Device-generic: every device with sparse kernels."""

from __future__ import annotations

import copy
import io
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorcore as tc

CROW, COL, VALS = [0, 1, 3], [1, 0, 2], [1.0, 2.0, 3.0]
DENSE = [[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]]


def csr(device: str, dtype: tc.dtype = tc.float64, **kw: Any) -> tc.Tensor:
    return tc.sparse_csr_tensor(CROW, COL, VALS, (2, 3), dtype=dtype, device=device, **kw)


def np_of(t: tc.Tensor) -> np.ndarray:
    t = t.detach()
    if t.layout is not tc.strided:
        t = t.to_dense()
    return np.asarray(t.cpu().numpy(), dtype=np.float64)


@st.composite
def matrices(draw: Any, max_size: int = 6) -> np.ndarray:
    """A dense float64 matrix, about half zeros (empty rows, columns and sizes included)."""
    m, n = draw(st.integers(0, max_size)), draw(st.integers(0, max_size))
    vals = draw(st.lists(st.sampled_from([0.0, 0.0, 1.5, -2.0, 0.25, 3.0]), min_size=m * n,
                         max_size=m * n))  # fmt: skip
    return np.array(vals, dtype=np.float64).reshape(m, n)


def parts_equal(x: tc.Tensor, m: Any, names: tuple[str, str]) -> None:
    """``x``'s compressed parts equal SciPy's canonical matrix ``m``'s."""
    ptr, plain = (getattr(x, n)().cpu().numpy() for n in names)
    assert ptr.tolist() == m.indptr.tolist()
    assert plain.tolist() == m.indices.tolist()
    np.testing.assert_array_equal(x.values().cpu().numpy(), m.data)


# ------------------------------------------------------------------ construction
def test_construct_and_accessors(device: str) -> None:
    x = csr(device)
    assert x.layout is tc.sparse_csr and x.is_sparse_csr and not x.is_sparse
    assert x.shape == (2, 3) and x.dtype is tc.float64 and x.device.type == device
    assert x._nnz() == 3 and x.sparse_dim() == 2 and x.dense_dim() == 0 and x.ndim == 2
    assert x.crow_indices().tolist() == CROW and x.col_indices().tolist() == COL
    assert x.values().tolist() == VALS and x.crow_indices().dtype is tc.int64
    assert np_of(x).tolist() == DENSE


def test_size_is_inferred_and_int32_indices_are_kept(device: str) -> None:
    i32 = tc.int32
    x = tc.sparse_csr_tensor(tc.tensor(CROW, dtype=i32), tc.tensor(COL, dtype=i32),
                             tc.tensor(VALS), device=device)  # fmt: skip
    assert x.shape == (2, 3) and x.crow_indices().dtype is i32 and x.col_indices().dtype is i32
    for y in (x * 2, x + x, x * x, x.sin(), x.t(), x.to_sparse_csc(), x.to_sparse_csc().t()):
        assert y.layout.name[7:] in ("csr", "csc")
        idx = y.crow_indices() if y.layout is tc.sparse_csr else y.ccol_indices()
        assert idx.dtype is i32, y  # as PyTorch keeps them
    assert (x @ x.t()).crow_indices().dtype is tc.int64  # (a product's are int64 there too)
    y = tc.sparse_csc_tensor(CROW, COL, VALS, device=device)  # rows from the largest row index
    assert y.shape == (3, 2) and np_of(y).tolist() == [[0, 2], [1, 0], [0, 3]]
    e = tc.sparse_csr_tensor([0, 0, 0], tc.zeros(0, dtype=tc.int64), tc.zeros(0), device=device)
    assert e.shape == (2, 0) and e._nnz() == 0 and e.to_dense().shape == (2, 0)


def test_requires_grad_needs_a_floating_dtype(device: str) -> None:
    assert csr(device, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="floating point and complex dtype can require"):
        tc.sparse_csr_tensor(CROW, COL, [1, 2, 3], (2, 3), device=device, requires_grad=True)


# Each case: (crow, col, values, size, PyTorch 2.13's message with check_invariants=True).
BAD = [
    ([0, 1, 3], [1, 0, 2], VALS, (2, 2), "`0 <= col_indices < ncols` is not satisfied."),
    ([0, 1, 3], [1, 0, 2], VALS, (3, 3),
     "crow_indices.shape[-1] must be equal to the number of rows + 1 (=4), but got 3"),
    ([0, 1, 3], [1, 0, 2], [1.0, 2.0],  (2, 3),
     "col_indices.shape[-1] must be equal to nnz (=2) as defined by values.shape[0], but got 3"),
    ([1, 1, 3], [1, 0, 2], VALS, (2, 3), "`crow_indices[..., 0] == 0` is not satisfied."),
    ([0, 1, 2], [1, 0, 2], VALS, (2, 3), "`crow_indices[..., -1] == nnz` is not satisfied."),
    ([0, 3, 2, 3], [0, 1, 2], VALS, (3, 3),
     "`0 <= crow_indices[..., 1:] - crow_indices[..., :-1] <= ncols` is not satisfied."),
    ([0, 1, 3], [1, 2, 0], VALS, (2, 3), "for all i = 1, ..., nrows are sorted and distinct"),
    ([0, 1, 3], [1, 2, 2], VALS, (2, 3), "for all i = 1, ..., nrows are sorted and distinct"),
    ([0, 1, 3], [1, -1, 2], VALS, (2, 3), "`0 <= col_indices < ncols` is not satisfied."),
    ([0, 1, 3], [1, 0, 2], VALS, (2, 3, 4),
     "tensor dimensionality must be sum of batch, base, and dense dimensionalities "
     "(=0 + 2 + 0) but got 3"),
    ([0.0, 1, 3], [1.0, 0, 2], VALS, (2, 3),
     "crow_indices and col_indices dtype must be Int or Long, but got Float"),
    ([0, 1, 3], [1, 0, 2], 1.0, (2, 3),
     "values must have dimensionality > sum of batch and block dimensionalities (=0 + 0) but "
     "got 0"),
]  # fmt: skip


@pytest.mark.parametrize(("crow", "col", "vals", "size", "message"), BAD)
def test_invalid_input_raises_pytorchs_error(
    device: str, crow: Any, col: Any, vals: Any, size: Any, message: str
) -> None:
    with pytest.raises(RuntimeError) as info:
        tc.sparse_csr_tensor(crow, col, vals, size, device=device)
    assert message in str(info.value)


def test_index_checks_can_be_skipped_and_mixed_index_dtypes_are_refused(device: str) -> None:
    x = tc.sparse_csr_tensor([0, 1, 3], [1, 2, 0], VALS, (2, 3), check_invariants=False)
    assert x._nnz() == 3  # unsorted columns: the caller vouched for them
    with pytest.raises(RuntimeError, match="must have the same dtype, bot got Int and Long"):
        tc.sparse_csr_tensor(tc.tensor(CROW, dtype=tc.int32), tc.tensor(COL), tc.tensor(VALS))
    with pytest.raises(RuntimeError, match="dimensionalities must be equal but got 2 and 1"):
        tc.sparse_csr_tensor(tc.tensor([CROW]), tc.tensor(COL), tc.tensor(VALS), (2, 3))
    with pytest.raises(RuntimeError, match=r"`0 <= row_indices < nrows` is not satisfied"):
        tc.sparse_csc_tensor(CROW, COL, VALS, (2, 2), device=device)


def test_sparse_compressed_tensor_takes_the_layout(device: str) -> None:
    x = tc.sparse_compressed_tensor(CROW, COL, VALS, (2, 3), layout=tc.sparse_csr, device=device)
    assert x.layout is tc.sparse_csr and np_of(x).tolist() == DENSE
    with pytest.raises(RuntimeError, match="expected sparse compressed tensor layout but got none"):
        tc.sparse_compressed_tensor(CROW, COL, VALS, (2, 3))
    with pytest.raises(RuntimeError, match="layout but got Strided"):
        tc.sparse_compressed_tensor(CROW, COL, VALS, (2, 3), layout=tc.strided)
    with pytest.raises(NotImplementedError, match="sparse_bsr layout is not implemented"):
        tc.sparse_compressed_tensor(CROW, COL, VALS, (2, 3), layout=tc.sparse_bsr)


# ------------------------------------------------------------------ conversions
@settings(max_examples=30, deadline=None)
@given(a=matrices())
def test_conversions_match_scipy(device: str, a: np.ndarray) -> None:
    d = tc.tensor(a.tolist(), dtype=tc.float64, device=device).reshape(a.shape)
    m_csr, m_csc = sp.csr_matrix(a), sp.csc_matrix(a)
    names_r, names_c = ("crow_indices", "col_indices"), ("ccol_indices", "row_indices")
    for x in (d.to_sparse_csr(), d.to_sparse(layout=tc.sparse_csr), d.to_sparse().to_sparse_csr(),
              d.to_sparse_csc().to_sparse_csr()):  # fmt: skip
        assert x.layout is tc.sparse_csr and x.shape == a.shape
        parts_equal(x, m_csr, names_r)
        np.testing.assert_array_equal(np_of(x), a)
    for y in (d.to_sparse_csc(), d.to_sparse(layout=tc.sparse_csc),
              d.to_sparse_csr().to_sparse_csc(), d.to_sparse().to_sparse_csc()):  # fmt: skip
        assert y.layout is tc.sparse_csc
        parts_equal(y, m_csc, names_c)
        np.testing.assert_array_equal(np_of(y), a)
    coo = d.to_sparse_csr().to_sparse()
    assert coo.layout is tc.sparse_coo and coo.is_coalesced()
    np.testing.assert_array_equal(coo.indices().cpu().numpy(), np.stack(np.nonzero(a)))
    coo_c = d.to_sparse_csc().to_sparse(layout=tc.sparse_coo)
    np.testing.assert_array_equal(coo_c.indices().cpu().numpy(), np.stack(np.nonzero(a)))


def test_conversions_that_pytorch_refuses(device: str) -> None:
    x = csr(device)
    assert x.to_sparse_csr().layout is tc.sparse_csr
    assert x.to_sparse(layout=tc.strided).tolist() == DENSE
    for bad in (tc.sparse_bsr, tc.sparse_bsc):
        with pytest.raises(NotImplementedError, match=f"{bad.name}.*supported layouts"):
            x.to_dense().to_sparse(layout=bad)
    with pytest.raises(NotImplementedError, match="sparse_bsr, sparse_bsc"):
        x.to_dense().to_sparse_bsr((1, 1))
    with pytest.raises(NotImplementedError, match="sparse_bsr, sparse_bsc"):
        x.to_sparse_bsc((1, 1))
    with pytest.raises(RuntimeError, match="with sparse_dim argument !=2 is not supported"):
        x.to_sparse(1)
    with pytest.raises(TypeError, match="sparse_dim cannot be given with layout"):
        x.to_dense().to_sparse(1, layout=tc.sparse_coo)
    with pytest.raises(
        RuntimeError, match="dtype argument is not supported by sparse_csr_to_dense"
    ):
        x.to_dense(tc.float32)
    with pytest.raises(NotImplementedError, match="batched compressed tensors are not supported"):
        tc.zeros(2, 3, 4, device=device).to_sparse_csr()
    with pytest.raises(RuntimeError, match="at least 2 dims"):
        tc.zeros(3, device=device).to_sparse_csr()
    with pytest.raises(RuntimeError, match="sparse_dim\\(\\)!=2 is not supported"):
        tc.zeros(2, 3, 4, device=device).to_sparse().to_sparse_csr()
    with pytest.raises(NotImplementedError, match="hybrid compressed tensors"):
        tc.zeros(2, 3, device=device).to_sparse_csr(dense_dim=1)


def test_accessors_of_other_layouts_raise_pytorchs_error(device: str) -> None:
    x = csr(device)
    d = x.to_dense()
    with pytest.raises(RuntimeError, match="crow_indices expected sparse row compressed tensor "
                                           "layout but got Strided"):  # fmt: skip
        d.crow_indices()
    with pytest.raises(RuntimeError, match=r"layout but got Sparse$"):
        d.to_sparse().col_indices()
    with pytest.raises(RuntimeError, match="ccol_indices expected sparse column compressed "
                                           "tensor layout but got SparseCsr"):  # fmt: skip
        x.ccol_indices()
    assert x.t().ccol_indices().tolist() == CROW and x.t().row_indices().tolist() == COL
    for name, kind in [("indices", "sparse coordinate"), ("coalesce", "sparse coordinate"),
                       ("is_coalesced", "sparse coordinate")]:  # fmt: skip
        with pytest.raises(RuntimeError, match=f"{name} expected {kind} tensor layout but got "
                                               "SparseCsr"):  # fmt: skip
            getattr(x, name)()
    with pytest.raises(RuntimeError, match="values expected sparse tensor layout but got Strided"):
        d.values()


def test_the_blocked_layouts_exist() -> None:
    assert repr(tc.sparse_bsr) == "tensorcore.sparse_bsr"
    assert {tc.sparse_csr, tc.sparse_csc, tc.sparse_bsr, tc.sparse_bsc} <= set(
        tc.layouts.registered_layouts()
    )


def test_repr_is_pytorchs() -> None:
    x = tc.sparse_csr_tensor(CROW, COL, VALS, (2, 3))
    assert repr(x) == (
        "tensor(crow_indices=tensor([0, 1, 3]),\n"
        "       col_indices=tensor([1, 0, 2]),\n"
        "       values=tensor([1., 2., 3.]), size=(2, 3), nnz=3,\n"
        "       layout=tensorcore.sparse_csr)"
    )
    assert repr(x.t()) == (
        "tensor(ccol_indices=tensor([0, 1, 3]),\n"
        "       row_indices=tensor([1, 0, 2]),\n"
        "       values=tensor([1., 2., 3.]), size=(3, 2), nnz=3,\n"
        "       layout=tensorcore.sparse_csc)"
    )
    e = tc.zeros(2, 0).to_sparse_csr()
    assert repr(e) == (
        "tensor(crow_indices=tensor([0, 0, 0]),\n"
        "       col_indices=tensor([], size=(0,)),\n"
        "       values=tensor([], size=(0,)), size=(2, 0), nnz=0,\n"
        "       layout=tensorcore.sparse_csr)"
    )
    assert repr(tc.sparse_csr_tensor([0, 1], [0], [2], (1, 1))) == (
        "tensor(crow_indices=tensor([0, 1]),\n"
        "       col_indices=tensor([0]),\n"
        "       values=tensor([2]), size=(1, 1), nnz=1, layout=tensorcore.sparse_csr)"
    )
    assert repr(x * 2).endswith("layout=tensorcore.sparse_csr)")
    assert repr(x.requires_grad_() * 2).endswith("grad_fn=<MulBackward0>)")


# ------------------------------------------------------------------ operations
@settings(max_examples=25, deadline=None)
@given(a=matrices(), k=st.integers(1, 3), layout=st.sampled_from(["csr", "csc"]))
def test_products_match_numpy(device: str, a: np.ndarray, k: int, layout: str) -> None:
    d = tc.tensor(a.tolist(), dtype=tc.float64, device=device).reshape(a.shape)
    x = d.to_sparse_csr() if layout == "csr" else d.to_sparse_csc()
    rng = np.random.default_rng(0)
    b = rng.standard_normal((a.shape[1], k))
    v = rng.standard_normal(a.shape[1])
    c = rng.standard_normal((k, a.shape[0]))
    tb, tv, tcc = (tc.tensor(z.tolist(), dtype=tc.float64, device=device).reshape(z.shape)
                   for z in (b, v, c))  # fmt: skip
    for got in (tc.sparse.mm(x, tb), tc.mm(x, tb), x @ tb, tc.matmul(x, tb)):
        assert got.layout is tc.strided
        np.testing.assert_allclose(np_of(got), a @ b, atol=1e-12)
    np.testing.assert_allclose(np_of(x @ tv), a @ v, atol=1e-12)
    np.testing.assert_allclose(np_of(tcc @ x), c @ a, atol=1e-12)
    ones = tc.ones(a.shape[0], k, dtype=tc.float64, device=device)
    got = tc.sparse.addmm(ones, x, tb, beta=0.5, alpha=2.0)
    np.testing.assert_allclose(np_of(got), 0.5 + 2 * (a @ b), atol=1e-12)
    sq = x @ x.t()
    assert sq.layout is x.layout
    np.testing.assert_allclose(np_of(sq), a @ a.T, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(a=matrices(), k=st.integers(0, 3))
def test_sampled_addmm_matches_numpy(device: str, a: np.ndarray, k: int) -> None:
    x = tc.tensor(a.tolist(), dtype=tc.float64, device=device).reshape(a.shape).to_sparse_csr()
    rng = np.random.default_rng(k)
    m1, m2 = rng.standard_normal((a.shape[0], k)), rng.standard_normal((k, a.shape[1]))
    t1, t2 = (tc.tensor(z.tolist(), dtype=tc.float64, device=device).reshape(z.shape)
              for z in (m1, m2))  # fmt: skip
    got = tc.sparse.sampled_addmm(x, t1, t2, beta=0.5, alpha=-2.0)
    assert got.layout is tc.sparse_csr
    assert got.crow_indices().tolist() == x.crow_indices().tolist()
    np.testing.assert_allclose(np_of(got), (0.5 * a - 2.0 * (m1 @ m2)) * (a != 0), atol=1e-12)


@pytest.mark.parametrize("source", ["dense", "coo", "csr", "csc"])
def test_sparse_mask_by_a_compressed_mask(device: str, source: str) -> None:
    d = tc.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=tc.float64, device=device)
    x = {"dense": d, "coo": d.to_sparse(), "csr": d.to_sparse_csr(), "csc": d.to_sparse_csc()}
    for m in (csr(device), csr(device).to_sparse_csc()):
        got = x[source].sparse_mask(m)
        assert got.layout is m.layout
        np.testing.assert_array_equal(np_of(got), np_of(d) * (np.array(DENSE) != 0))


def test_sampled_addmm_checks_its_operands(device: str) -> None:
    x, ones = csr(device), tc.ones(2, 2, dtype=tc.float64, device=device)
    with pytest.raises(RuntimeError, match=r"^sampled_addmm: Expected result to have sparse csr"):
        tc.sparse.sampled_addmm(x.t().t().to_sparse_csc(), ones, ones)
    with pytest.raises(RuntimeError, match=r"^sampled_addmm: mat1 and mat2 shapes cannot be"):
        tc.sparse.sampled_addmm(x, ones, tc.ones(3, 3, dtype=tc.float64, device=device))
    with pytest.raises(RuntimeError, match="same dtype, but got Float and Double"):
        tc.sparse.sampled_addmm(x, tc.ones(2, 2, device=device), ones)
    with pytest.raises(NotImplementedError, match="'sparse_coo' layout"):
        tc.sparse.sampled_addmm(x.to_sparse(), ones, ones)


@settings(max_examples=25, deadline=None)
@given(a=matrices(4), data=st.data())
def test_elementwise_operations_match_numpy(device: str, a: np.ndarray, data: Any) -> None:
    b = data.draw(st.lists(st.sampled_from([0.0, 1.0, -0.5]), min_size=a.size, max_size=a.size))
    b = np.array(b, dtype=np.float64).reshape(a.shape)
    da = tc.tensor(a.tolist(), dtype=tc.float64, device=device).reshape(a.shape)
    db = tc.tensor(b.tolist(), dtype=tc.float64, device=device).reshape(a.shape)
    x, y = da.to_sparse_csr(), db.to_sparse_csr()
    cases: list[tuple[Any, np.ndarray, Any]] = [
        (x + y, a + b, tc.sparse_csr),
        (x - y, a - b, tc.sparse_csr),
        (tc.add(x, y, alpha=2), a + 2 * b, tc.sparse_csr),
        (x * y, a * b, tc.sparse_csr),
        (x * 2.5, a * 2.5, tc.sparse_csr),
        (3 * x, 3 * a, tc.sparse_csr),
        (x * tc.tensor(2.0, dtype=tc.float64, device=device), a * 2, tc.sparse_csr),
        (-x, -a, tc.sparse_csr),
        (x.sin(), np.sin(a), tc.sparse_csr),
        (x.abs(), np.abs(a), tc.sparse_csr),
        (x.pow(2), a**2, tc.sparse_csr),
        (x + db, a + b, tc.strided),
        (db + x, a + b, tc.strided),
        (x * db, a * b, tc.sparse_csr),
        (db * x, a * b, tc.sparse_csr),
        (x.t(), a.T, tc.sparse_csc),
        (x.t().t(), a, tc.sparse_csr),
        (x.transpose(0, 1) + y.t(), (a + b).T, tc.sparse_csc),
    ]
    for got, expected, layout in cases:
        assert got.layout is layout, (got.layout, layout)
        np.testing.assert_allclose(np_of(got), expected, atol=1e-12)
    assert x.sum().layout is tc.strided and abs(x.sum().item() - a.sum()) < 1e-9
    for dim in (0, 1):
        s = x.sum(dim, keepdim=True)
        assert s.layout is tc.sparse_csr
        np.testing.assert_allclose(np_of(s), a.sum(dim, keepdims=True), atol=1e-12)


def test_operations_pytorch_refuses(device: str) -> None:
    x = csr(device)
    with pytest.raises(RuntimeError, match="reduction operations on CSR tensors with keepdim"):
        x.sum(0)
    with pytest.raises(NotImplementedError, match="cannot be mixed"):
        x + x.to_sparse()
    with pytest.raises(NotImplementedError, match="sparse_csr"):
        x.exp()
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        x @ tc.ones(2, 2, dtype=tc.float64, device=device)
    with pytest.raises(RuntimeError, match="would make the result tensor dense"):
        x.pow(0)
    with pytest.raises(RuntimeError, match="cannot be multiplied by a sparse tensor in place"):
        x.to_dense().mul_(x)
    with pytest.raises(RuntimeError, match="in-place t is not supported for the sparse_csr"):
        x.t_()
    assert x.shape == (2, 3) and np_of(x).tolist() == DENSE  # unchanged


def test_in_place_operations_and_the_version_counter(device: str) -> None:
    x = csr(device)
    v0 = x._version
    x.mul_(2)
    assert x.layout is tc.sparse_csr and x.values().tolist() == [2.0, 4.0, 6.0]
    assert x._version == v0 + 1
    x.add_(csr(device))
    assert x.values().tolist() == [3.0, 6.0, 9.0] and x.crow_indices().tolist() == CROW
    d = tc.zeros(2, 3, dtype=tc.float64, device=device)
    d.add_(csr(device))
    assert d.tolist() == DENSE
    with pytest.raises(RuntimeError, match="dense result cannot be written"):
        x.add_(d)
    # a write through values() moves the version, as PyTorch's shared counter does
    before = x._version
    x.values().add_(1)
    assert x._version > before


def test_copies_and_transfers(device: str) -> None:
    x = csr(device)
    y = x.clone()
    y.values().mul_(10)
    assert x.values().tolist() == VALS  # the clone owns its parts
    z = x.detach()
    z.values().mul_(10)
    assert x.values().tolist() == [10.0, 20.0, 30.0]  # detach shares them
    h = x.to(tc.float32)
    assert h.layout is tc.sparse_csr and h.dtype is tc.float32 and h.crow_indices().tolist() == CROW
    assert x.to(device) is x
    c = x.cpu()
    assert (
        c.layout is tc.sparse_csr and c.device.type == "cpu" and c.to(device).device.type == device
    )
    w = tc.zeros_like(x)
    assert w.layout is tc.sparse_csr and w._nnz() == 0 and w.shape == (2, 3)
    w.copy_(x)
    assert np_of(w).tolist() == np_of(x).tolist()
    with pytest.raises(TypeError, match="to_dense"):
        x.numpy()


def test_serialisation_round_trips(device: str) -> None:
    for x in (csr(device), csr(device).t(), tc.zeros(3, 0).to_sparse_csr()):
        for back in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x)):
            assert back.layout is x.layout and back.shape == x.shape
            np.testing.assert_array_equal(np_of(back), np_of(x))
    buf = io.BytesIO()
    tc.save({"w": csr(device, requires_grad=True)}, buf)
    buf.seek(0)
    w = tc.load(buf)["w"]
    assert w.layout is tc.sparse_csr and w.requires_grad and np_of(w).tolist() == DENSE


def test_a_codec_refuses_an_invalid_file() -> None:
    from tensorcore_sparse.codec import compressed_from_parts

    bad = compressed_from_parts("sparse_csr")
    parts = {"crow_indices": tc.tensor([0, 1, 3]), "col_indices": tc.tensor([2, 1, 0]),
             "values": tc.tensor(VALS)}  # fmt: skip
    with pytest.raises(ValueError, match="sorted and distinct"):
        bad(parts, {}, (2, 3))
    with pytest.raises(ValueError, match="needs parts"):
        bad({"values": tc.tensor(VALS)}, {}, (2, 3))


# ------------------------------------------------------------------ gradients
def _values(device: str) -> tc.Tensor:
    return tc.tensor(VALS, dtype=tc.float64, device=device, requires_grad=True)


def _dense(device: str, *shape: int) -> tc.Tensor:
    g = np.random.default_rng(sum(shape)).standard_normal(shape)
    return tc.tensor(g.tolist(), dtype=tc.float64, device=device, requires_grad=True)


GRAD_CASES: dict[str, Callable[..., Any]] = {
    "mm": lambda x, w: tc.sparse.mm(x, w),
    "matmul_vector": lambda x, w: x @ w[:, 0],
    "dense_at_sparse": lambda x, w: w.t() @ x.t(),
    "csc_mm": lambda x, w: x.t() @ w[:2, :],
    "csc_sin_sum": lambda x, w: x.t().sin().sum(0, keepdim=True).to_dense() * w[0, 0],
    "csc_to_csr": lambda x, w: x.t().to_sparse_csr().to_dense(),
    "addmm": lambda x, w: tc.sparse.addmm(w[:2, :], x, w, beta=0.5, alpha=3.0),
    "to_dense": lambda x, w: x.to_dense() * w[:2, :].sum(),
    "scale": lambda x, w: (x * 2.5).to_dense(),
    "add": lambda x, w: (x + x * 3).to_dense(),
    "add_dense": lambda x, w: x + w.t(),
    "mul_dense": lambda x, w: x * w.t(),
    "sparse_product": lambda x, w: (x @ x.t()).to_dense(),
    "sin": lambda x, w: x.sin().to_dense(),
    "sum": lambda x, w: x.sum() * w.sum(),
    "sum_keepdim": lambda x, w: x.sum(1, keepdim=True).to_dense(),
    "values": lambda x, w: x.values() * 2,
    "to_coo": lambda x, w: x.to_sparse().to_dense(),
    "transpose": lambda x, w: x.t().to_dense(),
    "to_dtype": lambda x, w: x.to(tc.float64).to_dense(),
    "clone": lambda x, w: x.clone().to_dense(),
    "sparse_mask": lambda x, w: w.t().sparse_mask(x).to_dense() * x.to_dense(),
    "select_row": lambda x, w: x[1] * w[0, 0],
    "mv": lambda x, w: tc.mv(x, w[:, 1]),
    "sampled_addmm": lambda x, w: tc.sparse.sampled_addmm(x, w[:2, :], w.t(), beta=0.5, alpha=2),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradcheck_through_the_values(device: str, name: str) -> None:
    fn = GRAD_CASES[name]
    crow, col = tc.tensor(CROW, device=device), tc.tensor(COL, device=device)

    def f(v: tc.Tensor, w: tc.Tensor) -> tc.Tensor:
        x = tc.sparse_csr_tensor(crow, col, v, (2, 3))
        out = fn(x, w)
        return out.to_dense() if out.layout is not tc.strided else out

    assert tc.autograd.gradcheck(f, [_values(device), _dense(device, 3, 2)])


def test_gradient_of_a_csr_leaf_is_csr_with_its_pattern(device: str) -> None:
    x = csr(device).t().t().requires_grad_()  # (a leaf made from a CSC)
    w = _dense(device, 3, 2)
    tc.sparse.mm(x, w).sum().backward()
    g = x.grad
    assert g is not None and g.layout is tc.sparse_csr
    assert g.crow_indices().tolist() == CROW and g.col_indices().tolist() == COL
    # each value's derivative is the sum of the row of w that its column picks
    expected = [float(w[c].sum()) for c in COL]
    np.testing.assert_allclose(g.values().cpu().numpy(), expected)
    assert w.grad is not None and w.grad.layout is tc.strided
    np.testing.assert_allclose(np_of(w.grad), np.array(DENSE).T @ np.ones((2, 2)))
    # a second backward accumulates into the CSR .grad
    tc.sparse.mm(x, w).sum().backward()
    np.testing.assert_allclose(x.grad.values().cpu().numpy(), 2 * np.array(expected))


def test_gradient_of_a_csc_leaf_is_csc_with_its_pattern(device: str) -> None:
    x = csr(device).t().requires_grad_()
    (x @ tc.ones(2, 4, dtype=tc.float64, device=device)).sum().backward()
    g = x.grad
    assert g is not None and g.layout is tc.sparse_csc
    assert g.ccol_indices().tolist() == CROW and g.row_indices().tolist() == COL
    assert g.values().tolist() == [4.0, 4.0, 4.0]


def test_a_dense_leaf_converted_to_csr_gets_a_dense_gradient(device: str) -> None:
    # (without zeros, the CSR form keeps every entry: the masked gradient is the whole one)
    full = tc.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=tc.float64, device=device)
    assert tc.autograd.gradcheck(
        lambda t: t.to_sparse_csr().to_dense() * 3, [full.requires_grad_()]
    )
    d = tc.tensor(DENSE, dtype=tc.float64, device=device, requires_grad=True)
    tc.sparse.mm(d.to_sparse_csr(), tc.ones(3, 2, dtype=tc.float64, device=device)).sum().backward()
    assert d.grad is not None and d.grad.layout is tc.strided
    assert d.grad.tolist() == [[0.0, 2.0, 0.0], [2.0, 0.0, 2.0]]  # masked, as PyTorch


def test_backward_after_an_in_place_change_of_a_saved_csr_tensor_raises(device: str) -> None:
    x = csr(device)
    w = _dense(device, 3, 2)
    y = tc.sparse.mm(x, w)
    x.values().mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
