"""Operations on sparse tensors, checked against the dense computation on every device that
has sparse kernels, for Hypothesis-generated sparsity patterns: empty tensors, duplicate
indices, uncoalesced and coalesced inputs, hybrid (sparse + dense dims) tensors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.special as sps
from _sparse_helpers import as_np, coo_parts, dense_of, make
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorcore as tc

F64 = tc.float64
EXAMPLES = settings(max_examples=20, deadline=None)


@st.composite
def two_patterns(draw: Any, **kw: Any) -> tuple[Any, Any]:
    """Two sparse tensors of one size and sparse_dim (independent patterns)."""
    a = draw(coo_parts(**kw))
    idx, _, shape = a
    sd = idx.shape[0]
    nnz = 0 if 0 in shape[:sd] else draw(st.integers(0, 8))
    idx2 = np.array(
        [[draw(st.integers(0, shape[d] - 1)) for _ in range(nnz)] for d in range(sd)],
        dtype=np.int64,
    ).reshape(sd, nnz)
    vals2 = np.array(
        draw(st.lists(st.floats(-3, 3, width=32), min_size=nnz, max_size=nnz)), dtype=np.float64
    )
    vals2 = np.broadcast_to(vals2.reshape((nnz,) + (1,) * (len(shape) - sd)), (nnz,) + shape[sd:])
    return a, (idx2, np.ascontiguousarray(vals2), shape)


def pattern_of(parts: Any) -> np.ndarray:
    idx, _, shape = parts
    pat = np.zeros(shape[: idx.shape[0]], dtype=bool)
    pat[tuple(idx)] = True
    return pat


@EXAMPLES
@given(pair=two_patterns(), coalesce=st.booleans())
def test_add_sub_sparse_sparse(device: str, pair: Any, coalesce: bool) -> None:
    pa, pb = pair
    a, b = make(pa, device, coalesce=coalesce), make(pb, device, coalesce=coalesce)
    da, db = dense_of(pa), dense_of(pb)
    s = a + b
    # Coalesced operands give a coalesced sum; otherwise the entries are concatenated.
    assert s.is_sparse and (s.is_coalesced() == (a.is_coalesced() and b.is_coalesced()))
    np.testing.assert_allclose(as_np(s), da + db)
    np.testing.assert_allclose(as_np(a - b), da - db)
    np.testing.assert_allclose(as_np(tc.add(a, b, alpha=2.5)), da + 2.5 * db)


@EXAMPLES
@given(pair=two_patterns())
def test_add_sub_sparse_dense(device: str, pair: Any) -> None:
    pa, pb = pair
    a, da, db = make(pa, device), dense_of(pa), dense_of(pb)
    d = tc.from_numpy(db).to(device)
    for got, want in [(a + d, da + db), (d + a, db + da), (a - d, da - db), (d - a, db - da)]:
        assert not got.is_sparse
        np.testing.assert_allclose(as_np(got), want)


@EXAMPLES
@given(pair=two_patterns())
def test_dense_add_sparse_in_place(device: str, pair: Any) -> None:
    pa, pb = pair
    a, da = make(pa, device), dense_of(pa)
    d = tc.from_numpy(dense_of(pb).copy()).to(device)
    expected = as_np(d) + da
    before = d._version
    assert d.add_(a) is d
    np.testing.assert_allclose(as_np(d), expected)
    assert d._version == before + 1
    d.sub_(a, alpha=0.5)
    np.testing.assert_allclose(as_np(d), expected - 0.5 * da)


def test_dense_add_sparse_in_place_on_a_view(device: str) -> None:
    base = tc.zeros(3, 4, dtype=F64, device=device)
    view = base.t()
    view.add_(tc.sparse_coo_tensor([[0, 3, 3], [1, 2, 2]], [1.0, 2.0, 3.0], (4, 3), device=device))
    assert base.tolist()[1][0] == 1.0 and base.tolist()[2][3] == 5.0


def test_sparse_add_sparse_in_place(device: str) -> None:
    a = tc.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,), device=device)
    a.add_(tc.sparse_coo_tensor([[1, 2]], [10.0, 20.0], (3,), device=device))
    assert a.is_sparse and a.to_dense().tolist() == [1.0, 12.0, 20.0]
    with pytest.raises(RuntimeError, match="in place"):
        a.add_(tc.ones(3, device=device))


@EXAMPLES
@given(pair=two_patterns(), scalar=st.floats(-3, 3, width=32))
def test_mul(device: str, pair: Any, scalar: float) -> None:
    pa, pb = pair
    a, b = make(pa, device), make(pb, device)
    da, db = dense_of(pa), dense_of(pb)
    ss = a * b
    # (flagged coalesced when both operands are, as PyTorch flags it)
    assert ss.is_sparse and ss.is_coalesced() == (
        (a.is_coalesced() and b.is_coalesced()) or ss._nnz() < 2
    )
    np.testing.assert_allclose(as_np(ss), da * db)
    d = tc.from_numpy(db).to(device)
    for got in (a * d, d * a):
        assert got.is_sparse
        np.testing.assert_allclose(as_np(got), da * db)
    for got in (a * scalar, scalar * a, a * tc.tensor(scalar, dtype=F64, device=device)):
        assert got.is_sparse
        np.testing.assert_allclose(as_np(got), da * scalar, rtol=1e-6)
    np.testing.assert_allclose(as_np(-a), -da)
    if scalar != 0:
        np.testing.assert_allclose(as_np(a / scalar), da / scalar, rtol=1e-6)


def test_mul_broadcasts_the_dense_operand(device: str) -> None:
    a = tc.sparse_coo_tensor([[0, 2, 2], [1, 0, 1]], [1.0, 2.0, 3.0], (3, 2), device=device)
    row = tc.tensor([10.0, 100.0], device=device)
    got = a * row
    assert got.is_sparse
    assert got.to_dense().tolist() == [[0.0, 100.0], [0.0, 0.0], [20.0, 300.0]]
    with pytest.raises(NotImplementedError, match="broadcast"):
        a * tc.ones(2, 3, 2, device=device)


def test_in_place_mul_and_div(device: str) -> None:
    a = tc.sparse_coo_tensor([[0, 2]], [1.0, 2.0], (3,), device=device)
    a.mul_(3)
    a.div_(2)
    assert a.is_sparse and a.to_dense().tolist() == [1.5, 0.0, 3.0]
    d = tc.ones(3, device=device)
    with pytest.raises(RuntimeError, match="in place"):
        d.mul_(a)
    with pytest.raises(RuntimeError, match="divid"):
        d / a


def _quiet(fn: Any) -> Any:
    """``fn`` without floating-point warnings (summed duplicates may reach +-1: atanh's poles)."""

    def call(v: Any) -> Any:
        with np.errstate(all="ignore"):
            return fn(v)

    return call


UNARY = {
    "abs": np.abs,
    "neg": np.negative,
    "sign": np.sign,
    "sqrt": lambda v: np.sqrt(np.abs(v)),
    "sin": np.sin,
    "tan": np.tan,
    "atan": np.arctan,
    "asinh": np.arcsinh,
    "atanh": _quiet(lambda v: np.arctanh(v / 5)),
    "erfinv": _quiet(lambda v: sps.erfinv(v / 5)),
    "deg2rad": np.deg2rad,
    "rad2deg": np.rad2deg,
    "sinh": np.sinh,
    "tanh": np.tanh,
    "expm1": np.expm1,
    "log1p": lambda v: np.log1p(np.abs(v)),
    "relu": lambda v: np.maximum(v, 0),
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "round": np.round,
    "erf": sps.erf,
    "frac": lambda v: v - np.trunc(v),
    "sgn": np.sign,
    "square": np.square,
    "conj": np.conj,
}
#: The operators whose result keeps an uncoalesced input as it is (PyTorch's neg and conj);
#: the others coalesce it, and their in-place forms refuse an uncoalesced ``self``.
KEEPS_UNCOALESCED = {"neg", "conj"}


@pytest.mark.parametrize("name", sorted(UNARY))
@settings(max_examples=10, deadline=None)
@given(parts=coo_parts())
def test_zero_preserving_unary(device: str, name: str, parts: Any) -> None:
    x = make(parts, device)
    if name in ("sqrt", "log1p"):
        x = x.abs()
    if name in ("atanh", "erfinv"):
        x = x / 5  # (the values lie in (-4, 4))
    got = getattr(x, name)()
    assert got.is_sparse
    np.testing.assert_allclose(as_np(got), UNARY[name](dense_of(parts)), rtol=1e-6, atol=1e-12)
    keeps = name in KEEPS_UNCOALESCED
    assert got.is_coalesced() == (x.is_coalesced() or not keeps or got._nnz() < 2)
    if name == "conj":
        return  # (no in-place form)
    inplace = x.clone()
    # (frac_, square_ and sgn_, composites of the core, refuse too: their sparse kernels are
    # direct, so the in-place call reaches them with out=self)
    if not (keeps or x.is_coalesced()):
        with pytest.raises(RuntimeError, match=f"{name}_ requires coalesced input"):
            getattr(inplace, name + "_")()
        inplace = inplace.coalesce()
    assert getattr(inplace, name + "_")() is inplace
    np.testing.assert_allclose(as_np(inplace), as_np(got), rtol=1e-12)


@EXAMPLES
@given(parts=coo_parts())
def test_signbit(device: str, parts: Any) -> None:
    got = make(parts, device).signbit()
    assert got.is_sparse and got.dtype is tc.bool
    np.testing.assert_array_equal(as_np(got), np.signbit(dense_of(parts)))


@EXAMPLES
@given(parts=coo_parts(), p=st.sampled_from([1, 2, 3, 0.5, -1, -0.5]))
def test_pow_with_a_scalar(device: str, parts: Any, p: float) -> None:
    x = make(parts, device).abs()
    got = x**p
    assert got.is_sparse and got.is_coalesced()
    d = np.abs(dense_of(parts))
    # A negative power maps the specified values only (PyTorch's): zeros stay zeros.
    with np.errstate(divide="ignore"):
        want = (
            np.where(
                pattern_of(parts).reshape(
                    pattern_of(parts).shape + (1,) * (d.ndim - parts[0].shape[0])
                ),
                d**p,
                0.0,
            )
            if p < 0
            else d**p
        )
    np.testing.assert_allclose(as_np(got), want, rtol=1e-6)
    with pytest.raises(RuntimeError, match="cannot raise to zeroth power"):
        x.pow(0)


@st.composite
def matrices(draw: Any) -> tuple[Any, Any]:
    n, k, m = (draw(st.integers(0, 5)) for _ in range(3))
    nnz = 0 if 0 in (n, k) else draw(st.integers(0, 8))
    ia = np.array(
        [draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=nnz, max_size=nnz)),
         draw(st.lists(st.integers(0, max(k - 1, 0)), min_size=nnz, max_size=nnz))],
        dtype=np.int64,
    ).reshape(2, nnz)  # fmt: skip
    va = np.array(draw(st.lists(st.floats(-2, 2, width=32), min_size=nnz, max_size=nnz)))
    nnz2 = 0 if 0 in (k, m) else draw(st.integers(0, 8))
    ib = np.array(
        [draw(st.lists(st.integers(0, max(k - 1, 0)), min_size=nnz2, max_size=nnz2)),
         draw(st.lists(st.integers(0, max(m - 1, 0)), min_size=nnz2, max_size=nnz2))],
        dtype=np.int64,
    ).reshape(2, nnz2)  # fmt: skip
    vb = np.array(draw(st.lists(st.floats(-2, 2, width=32), min_size=nnz2, max_size=nnz2)))
    return (ia, va.reshape(nnz), (n, k)), (ib, vb.reshape(nnz2), (k, m))


@EXAMPLES
@given(mats=matrices(), coalesce=st.booleans())
def test_matrix_products(device: str, mats: Any, coalesce: bool) -> None:
    pa, pb = mats
    a, b = make(pa, device, coalesce=coalesce), make(pb, device, coalesce=coalesce)
    da, db = dense_of(pa), dense_of(pb)
    ta, tb = tc.from_numpy(da).to(device), tc.from_numpy(db).to(device)
    for got, want, sparse in [
        (a @ tb, da @ db, False),
        (tc.sparse.mm(a, tb), da @ db, False),
        (ta @ b, da @ db, False),
        (tc.mm(ta, b), da @ db, False),
        (a @ b, da @ db, True),
        (tc.sparse.mm(a, b), da @ db, True),
    ]:
        assert got.is_sparse == sparse
        assert tuple(got.shape) == (da.shape[0], db.shape[1])
        np.testing.assert_allclose(as_np(got), want, atol=1e-9)
    v = tc.from_numpy(db[:, 0].copy() if db.shape[1] else np.zeros(db.shape[0])).to(device)
    np.testing.assert_allclose(as_np(a @ v), da @ as_np(v), atol=1e-9)
    np.testing.assert_allclose(as_np(tc.mv(a, v)), da @ as_np(v), atol=1e-9)
    # The rows of a that have entries: hybrid (hspmm) or with every column (smm).
    rows = np.unique(pa[0][0])
    for got, sd in [(tc.hspmm(a, tb), 1), (tc.smm(a, tb), 2)]:
        assert got.layout == tc.sparse_coo and got.sparse_dim() == sd
        # flagged uncoalesced, as PyTorch flags them; sorted and unique in fact
        assert not got.is_coalesced() or got._nnz() < 2
        np.testing.assert_array_equal(got._indices().cpu(), got.coalesce()._indices().cpu())
        np.testing.assert_allclose(as_np(got), da @ db, atol=1e-9)
        if sd == 1 or db.shape[1]:  # (smm of a matrix without columns has no entries)
            assert sorted(set(got._indices()[0].tolist())) == rows.tolist()
    np.testing.assert_allclose(
        as_np(tc.sparse.addmm(ta @ tb, a, tb, beta=0.5, alpha=2)),
        0.5 * (da @ db) + 2 * (da @ db),
        atol=1e-9,
    )
    # sspaddmm: a sparse self, a sparse mat1; self's entries, then the rows of the product
    s = (ta @ tb).to_sparse()
    got = tc.sspaddmm(s, a, tb, beta=0.5, alpha=2)
    assert got.layout == tc.sparse_coo and not (got.is_coalesced() and got._nnz() > 1)
    np.testing.assert_allclose(as_np(got), 0.5 * (da @ db) + 2 * (da @ db), atol=1e-9)
    np.testing.assert_allclose(as_np(s.sspaddmm(a, tb)), 2 * (da @ db), atol=1e-9)


@EXAMPLES
@given(parts=coo_parts(min_ndim=3, max_ndim=3, dense_dims=False), p=st.integers(0, 3))
def test_bmm(device: str, parts: Any, p: int) -> None:
    x = make(parts, device)
    d = dense_of(parts)
    m = np.random.default_rng(p).normal(size=(d.shape[0], d.shape[2], p))
    got = tc.bmm(x, tc.from_numpy(m).to(device))
    assert got.layout == tc.strided
    np.testing.assert_allclose(as_np(got), d @ m, atol=1e-9)
    with pytest.raises(RuntimeError, match="must be dense"):
        tc.bmm(x, x.transpose(1, 2))


def test_mm_checks_its_operands(device: str) -> None:
    a = tc.sparse_coo_tensor([[0], [1]], [1.0], (2, 3), device=device)
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        a @ tc.ones(2, 2, device=device)
    with pytest.raises(RuntimeError, match="same dtype"):
        a @ tc.ones(3, 2, dtype=F64, device=device)


@EXAMPLES
@given(parts=coo_parts(), p=st.sampled_from([1, 2, 3, 0, float("inf"), "fro"]))
def test_norm(device: str, parts: Any, p: Any) -> None:
    x = make(parts, device)
    d = dense_of(parts).reshape(-1)
    if p == float("inf") and not x._values().numel():
        # (PyTorch's error too: the norm of the values, and the max of none has no identity)
        with pytest.raises(RuntimeError, match="cannot compute the inf norm on an empty"):
            x.norm(p)
        return
    want = np.linalg.norm(d, 2 if p == "fro" else p) if d.size else 0.0
    got = x.norm(p)
    assert got.layout == tc.strided and got.ndim == 0
    np.testing.assert_allclose(float(got), want, rtol=1e-9)
    assert x.norm(p, dim=tuple(range(x.ndim)), keepdim=True).shape == (1,) * x.ndim
    if x.ndim > 1:
        with pytest.raises(RuntimeError, match="norm_sparse currently only supports full"):
            x.norm(p, dim=0)


@pytest.mark.parametrize("layout", ["coo", "csr", "csc"])
def test_zero_removes_every_entry(device: str, layout: str) -> None:
    d = tc.tensor([[0.0, 1.0], [2.0, 3.0]], dtype=F64, device=device)
    x = {"coo": d.to_sparse, "csr": d.to_sparse_csr, "csc": d.to_sparse_csc}[layout]()
    before = x._version
    assert x.zero_() is x
    assert x.layout == {"coo": tc.sparse_coo, "csr": tc.sparse_csr, "csc": tc.sparse_csc}[layout]
    assert x._nnz() == 0 and x.shape == (2, 2) and x._version == before + 1
    assert not as_np(x.to_dense()).any()


def test_zero_grad_without_set_to_none_empties_a_sparse_grad(device: str) -> None:
    emb = tc.nn.Embedding(5, 3, sparse=True).to(device)
    opt = tc.optim.SGD(emb.parameters(), lr=0.1)
    emb(tc.tensor([1, 2], device=device)).sum().backward()
    opt.zero_grad(set_to_none=False)
    g = emb.weight.grad
    assert g is not None and g.layout == tc.sparse_coo and g._nnz() == 0


@EXAMPLES
@given(parts=coo_parts(min_ndim=2))
def test_transpose(device: str, parts: Any) -> None:
    x = make(parts, device)
    d = dense_of(parts)
    sd = x.sparse_dim()
    if x.ndim == 2 and sd == 2:
        np.testing.assert_allclose(as_np(x.t()), d.T)
    if sd >= 2:
        np.testing.assert_allclose(as_np(x.transpose(0, 1)), np.swapaxes(d, 0, 1))
    if x.ndim - sd >= 2:
        np.testing.assert_allclose(as_np(x.transpose(-1, -2)), np.swapaxes(d, -1, -2))


@EXAMPLES
@given(parts=coo_parts(), data=st.data())
def test_index_select(device: str, parts: Any, data: Any) -> None:
    # Along a sparse dim (entries repeated per matching position) or a dense one, with
    # repeated and unordered indices; the result is what the dense tensor gives.
    x = make(parts, device)
    d = dense_of(parts)
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1), label="dim")
    n = x.shape[dim]
    # (negative positions count from the end, as PyTorch's sparse index_select takes them)
    picks = data.draw(st.lists(st.integers(-n, n - 1), max_size=6) if n else st.just([]))
    got = x.index_select(dim, tc.tensor(picks, dtype=tc.int64, device=device))
    assert got.layout == tc.sparse_coo and got.sparse_dim() == x.sparse_dim()
    np.testing.assert_array_equal(as_np(got), np.take(d, np.asarray(picks, dtype=int), axis=dim))


def test_index_select_checks_its_index(device: str) -> None:
    x = tc.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]], device=device).to_sparse()
    with pytest.raises(IndexError, match=r"index contains 3 that is out of range for tensor of"):
        x.index_select(1, tc.tensor([3], device=device))
    with pytest.raises(IndexError, match=r"index contains -4 that is out of range"):
        x.index_select(1, tc.tensor([0, -4], device=device))
    with pytest.raises(IndexError, match="int32 or int64"):
        x.index_select(1, tc.tensor([0.0], device=device))


def test_transpose_cannot_mix_sparse_and_dense_dims(device: str) -> None:
    h = tc.sparse_coo_tensor([[0, 1]], [[1.0, 2.0], [3.0, 4.0]], device=device)
    with pytest.raises(RuntimeError, match="sparse dim with a dense dim"):
        h.t()


@EXAMPLES
@given(parts=coo_parts(), data=st.data())
def test_sum(device: str, parts: Any, data: Any) -> None:
    x = make(parts, device)
    d = dense_of(parts)
    np.testing.assert_allclose(as_np(x.sum()), d.sum(), atol=1e-9)
    np.testing.assert_allclose(as_np(tc.sparse.sum(x)), d.sum(), atol=1e-9)
    dims = data.draw(st.lists(st.integers(0, x.ndim - 1), min_size=1, max_size=x.ndim, unique=True))
    got = tc.sparse.sum(x, dims)
    # PyTorch's rule: dense once every sparse dim is summed, sparse otherwise.
    assert got.is_sparse == (not set(range(x.sparse_dim())) <= set(dims))
    np.testing.assert_allclose(as_np(got), d.sum(axis=tuple(dims)), atol=1e-9)
    kept = x.sum(dims, keepdim=True)
    np.testing.assert_allclose(as_np(kept), d.sum(axis=tuple(dims), keepdims=True), atol=1e-9)


def test_integer_sum_gives_int64(device: str) -> None:
    x = tc.sparse_coo_tensor([[0, 1]], tc.tensor([2, 3], dtype=tc.int32), (3,), device=device)
    assert x.sum().dtype is tc.int64 and x.sum().item() == 5


def _masked_softmax(d: np.ndarray, pat: np.ndarray, dim: int, log: bool) -> np.ndarray:
    pat = np.broadcast_to(pat.reshape(pat.shape + (1,) * (d.ndim - pat.ndim)), d.shape)
    if d.size == 0:
        return d
    masked = np.where(pat, d, -np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        shifted = masked - np.max(masked, axis=dim, keepdims=True)
        e = np.exp(shifted)
        s = e.sum(axis=dim, keepdims=True)
        out = shifted - np.log(s) if log else e / s
    return np.where(pat, out, 0.0)


@EXAMPLES
@given(parts=coo_parts(), data=st.data(), log=st.booleans())
def test_softmax(device: str, parts: Any, data: Any, log: bool) -> None:
    x = make(parts, device)
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1))
    fn = tc.sparse.log_softmax if log else tc.sparse.softmax
    got = fn(x, dim)
    assert got.is_sparse and got._nnz() == x.coalesce()._nnz()
    want = _masked_softmax(dense_of(parts), pattern_of(parts), dim % x.ndim, log)
    np.testing.assert_allclose(as_np(got), want, rtol=1e-6, atol=1e-12)


@EXAMPLES
@given(pair=two_patterns())
def test_sparse_mask(device: str, pair: Any) -> None:
    pa, pb = pair
    mask = make(pb, device)
    dense = tc.from_numpy(dense_of(pa)).to(device)
    pat = pattern_of(pb)
    pat_full = pat.reshape(pat.shape + (1,) * (dense.ndim - pat.ndim))
    got = dense.sparse_mask(mask)
    # The mask's index columns as they are (a repeated one repeats the value, which
    # to_dense() adds up), flagged coalesced where the mask is, as PyTorch gives.
    assert got.is_sparse and got._nnz() == mask._nnz()
    assert got.is_coalesced() == (mask.is_coalesced() or got._nnz() < 2)
    assert dense.sparse_mask(mask.coalesce()).is_coalesced()
    counts = np.zeros(pat.shape)
    np.add.at(counts, tuple(mask._indices().cpu().numpy()), 1)
    counts = counts.reshape(pat_full.shape)
    np.testing.assert_allclose(as_np(got), counts * dense_of(pa))
    got2 = make(pa, device).sparse_mask(mask)
    np.testing.assert_allclose(as_np(got2), counts * dense_of(pa))


def test_sparse_operands_must_have_one_size(device: str) -> None:
    a = tc.sparse_coo_tensor([[0]], [1.0], (2,), device=device)
    b = tc.sparse_coo_tensor([[0]], [1.0], (3,), device=device)
    match = r"expected sizes of 'self' and 'other' to match, but \[2\] != \[3\]"
    with pytest.raises(RuntimeError, match=match):
        a + b
    with pytest.raises(RuntimeError, match=match):
        a * b


def test_mixed_dtypes_promote(device: str) -> None:
    a = tc.sparse_coo_tensor([[0]], tc.tensor([2], dtype=tc.int64), (2,), device=device)
    b = tc.sparse_coo_tensor([[1]], tc.tensor([0.5], dtype=F64), (2,), device=device)
    assert (a + b).dtype is F64 and (a + b).to_dense().tolist() == [2.0, 0.5]
    assert (a * 1.5).dtype is tc.float32
    assert (a + tc.ones(2, dtype=tc.float32, device=device)).dtype is tc.float32
    with pytest.raises(RuntimeError, match="can't be cast"):
        tc.zeros(2, dtype=tc.int64, device=device).add_(b)


def test_coalesced_tensors_keep_their_scipy_matrix() -> None:
    from tensorcore_sparse._coo import record

    rng = np.random.default_rng(0)
    a = tc.sparse_coo_tensor(tc.from_numpy(rng.integers(0, 50, (2, 300))), tc.ones(300), (50, 50))
    a = a.coalesce()
    b = tc.ones(50, 3)
    assert record(a)._scipy is None
    first = a @ b
    m = record(a)._scipy
    assert m is not None and np.shares_memory(m.data, a.values().numpy())
    again = a @ b
    assert record(a)._scipy is m  # neither re-sorted nor re-converted
    assert again.tolist() == first.tolist()
    a.values().mul_(2)  # the cached matrix shares the values: it sees in-place changes
    np.testing.assert_allclose((a @ b).numpy(), 2 * first.numpy())
    s = a + a
    assert record(s)._scipy is not None and record(s)._indices is None  # indices made lazily
    np.testing.assert_allclose(as_np(s), 2 * as_np(a))
    assert s.indices().shape == (2, s._nnz())


@pytest.mark.parametrize("coalesce", [False, True])
def test_hyper_sparse_paths_match_scipy(coalesce: bool) -> None:
    import scipy.sparse as sp

    n, nnz = 100_000, 40  # far more rows than non-zeros: COO arithmetic, no row pointers
    rng = np.random.default_rng(1)
    parts = []
    for _ in range(2):
        idx = rng.integers(0, n, (2, nnz))
        idx[:, :5] = idx[:, 5:10]  # duplicates
        parts.append((idx, rng.standard_normal(nnz)))
    a, b = (tc.sparse_coo_tensor(tc.from_numpy(i), tc.from_numpy(v), (n, n)) for i, v in parts)
    if coalesce:
        a, b = a.coalesce(), b.coalesce()
    sa, sb = (sp.coo_matrix((v, (i[0], i[1])), shape=(n, n)).tocsr() for i, v in parts)

    def same(t: tc.Tensor, m: object) -> None:
        c = t.coalesce()
        got = sp.coo_matrix((c.values().numpy(), tuple(c.indices().numpy())), shape=c.shape)
        assert abs(got - m).max() < 1e-12

    same(a + b, sa + sb)
    same(a - b * 2, sa - sb * 2)
    same(a * b, sa.multiply(sb))
    same(a @ b, sa @ sb)
    same(a.t(), sa.T)
    dense = rng.standard_normal((n, 2))
    np.testing.assert_allclose((a @ tc.from_numpy(dense)).numpy(), sa @ dense)
    np.testing.assert_allclose((tc.from_numpy(dense.T.copy()) @ a).numpy(), dense.T @ sa)
    np.testing.assert_allclose(as_np(tc.sparse.sum(a, 1)), np.asarray(sa.sum(1)).ravel())


def test_addmm_with_a_sparse_factor(device: str) -> None:
    # torch.addmm(bias, adjacency, features), as GNN layers write it: dense.
    a = np.array([[0.0, 0.0, 1.0], [2.0, 0.0, 3.0]])
    d = np.arange(6.0).reshape(3, 2)
    bias = np.array([1.0, -1.0])
    x = tc.from_numpy(a).to(device).to_sparse()
    td, tb = tc.from_numpy(d).to(device), tc.from_numpy(bias).to(device)
    got = tc.addmm(tb, x, td, beta=0.5, alpha=2.0)
    assert got.layout is tc.strided
    np.testing.assert_allclose(as_np(got), 0.5 * bias + 2.0 * (a @ d))
    np.testing.assert_allclose(as_np(tc.addmm(tb, x, td)), bias + a @ d)
    nan_bias = tc.full((2, 2), float("nan"), dtype=tc.float64, device=device)
    np.testing.assert_allclose(as_np(tc.addmm(nan_bias, x, td, beta=0)), a @ d)
    with pytest.raises(RuntimeError, match="expected strided result tensor"):
        tc.addmm(x, x, tc.from_numpy(np.eye(3)).to(device))


def test_floor_divide_by_a_scalar(device: str) -> None:
    a = np.array([[0.0, 0.0, 3.0], [-4.0, 0.0, 5.0]])
    x = tc.from_numpy(a).to(device).to_sparse()
    got = x // 2
    assert got.is_sparse
    np.testing.assert_array_equal(as_np(got), np.floor_divide(a, 2))
    x.floor_divide_(2)
    np.testing.assert_array_equal(as_np(x), np.floor_divide(a, 2))
