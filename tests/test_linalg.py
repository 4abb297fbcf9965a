"""Linear algebra against NumPy: matmul's batching and broadcasting (1-D cases included),
mm, addmm, bmm, mv, dot, outer, einsum and the ``@`` operator."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tensorcore as tc
from tensorcore.testing import assert_close
from tensorcore.testing import strategies as tcst

DTYPES = (tc.float32, tc.float64, tc.int64)


def _tol(d: tc.dtype) -> dict[str, float]:
    return {"rtol": 1e-5, "atol": 1e-4} if d is tc.float32 else {}


MATMUL_SHAPES = [
    ((3,), (3,), ()),
    ((2, 3), (3,), (2,)),
    ((3,), (3, 4), (4,)),
    ((2, 3), (3, 4), (2, 4)),
    ((5, 2, 3), (3, 4), (5, 2, 4)),
    ((2, 3), (5, 3, 4), (5, 2, 4)),
    ((1, 2, 3), (5, 3, 4), (5, 2, 4)),
    ((4, 1, 2, 3), (5, 3, 4), (4, 5, 2, 4)),
    ((5,), (2, 5, 3), (2, 3)),
    ((2, 3, 5), (5,), (2, 3)),
    ((0, 3), (3, 2), (0, 2)),
    ((2, 0), (0, 2), (2, 2)),
]


@pytest.mark.parametrize(("sa", "sb", "result"), MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_matmul_shapes(device: str, sa: tuple, sb: tuple, result: tuple, dtype: tc.dtype) -> None:
    rng = np.random.default_rng(0)
    npd = np.dtype(dtype.name)
    a = rng.integers(-5, 5, sa).astype(npd)
    b = rng.integers(-5, 5, sb).astype(npd)
    ta, tb = tc.tensor(a, device=device), tc.tensor(b, device=device)
    expected = np.matmul(a, b)
    assert expected.shape == result
    assert_close(tc.matmul(ta, tb), expected)
    assert_close(ta @ tb, expected)
    assert_close(ta.matmul(tb), expected)
    assert_close(tc.linalg.matmul(ta, tb), expected)


@given(data=st.data())
def test_matmul_broadcasting_and_layouts(device: str, data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(DTYPES), label="dtype")
    batch_a, batch_b = data.draw(tcst.broadcastable_shapes(max_dims=2, max_side=3), label="batches")
    n, k, m = (data.draw(st.integers(1, 4)) for _ in range(3))
    a = data.draw(tcst.arrays(dtype, (*batch_a, n, k)), label="a")
    b = data.draw(tcst.arrays(dtype, (*batch_b, k, m)), label="b")
    ta, a = data.draw(tcst.tensors_from_arrays(a, device), label="ta")
    tb, b = data.draw(tcst.tensors_from_arrays(b, device), label="tb")
    assert_close(ta @ tb, np.matmul(a, b), **_tol(dtype))


def test_mm_bmm_mv_dot_outer(device: str) -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3))
    b = rng.standard_normal((3, 4))
    v = rng.standard_normal(3)
    w = rng.standard_normal(4)
    x = rng.standard_normal((5, 2, 3))
    y = rng.standard_normal((5, 3, 4))
    T = lambda z: tc.tensor(z, device=device)  # noqa: E731
    assert_close(tc.mm(T(a), T(b)), a @ b)
    assert_close(T(a).mm(T(b)), a @ b)
    assert_close(tc.mm(T(b).t().contiguous().t(), T(b.T)), b @ b.T)
    assert_close(tc.bmm(T(x), T(y)), x @ y)
    assert_close(tc.mv(T(a), T(v)), a @ v)
    assert_close(tc.dot(T(v), T(v)), np.dot(v, v))
    assert tc.dot(T(v), T(v)).shape == ()
    assert_close(tc.outer(T(v), T(w)), np.outer(v, w))
    ints = tc.tensor([1, 2], device=device)
    assert (
        tc.outer(ints, tc.tensor([0.5, 1.0], dtype=tc.float64, device=device)).dtype is tc.float64
    )


@pytest.mark.parametrize("dtype", DTYPES)
@given(data=st.data())
def test_addmm_matches_numpy(device: str, dtype: tc.dtype, data: st.DataObject) -> None:
    n, k, m = (data.draw(st.integers(0, 4), label=f"dim{i}") for i in range(3))
    self_shape = data.draw(st.sampled_from([(n, m), (m,), (1, m), (n, 1), ()]), label="self")
    c = data.draw(tcst.arrays(dtype, self_shape), label="self")
    a = data.draw(tcst.arrays(dtype, (n, k)), label="mat1")
    b = data.draw(tcst.arrays(dtype, (k, m)), label="mat2")
    scalars = st.integers(-2, 2) if dtype is tc.int64 else st.sampled_from([1, 0, 0.5, -2.0])
    beta, alpha = data.draw(scalars, label="beta"), data.draw(scalars, label="alpha")
    tcc, c = data.draw(tcst.tensors_from_arrays(c, device), label="tc")
    ta, a = data.draw(tcst.tensors_from_arrays(a, device), label="ta")
    tb, b = data.draw(tcst.tensors_from_arrays(b, device), label="tb")
    want = alpha * (a @ b) + (beta * c if beta != 0 else 0)
    got = tc.addmm(tcc, ta, tb, beta=beta, alpha=alpha)
    assert got.shape == (n, m) and got.dtype is dtype
    assert_close(got, np.asarray(want).astype(a.dtype), **_tol(dtype))


def test_addmm_beta_zero_ignores_nan_and_out_may_alias(device: str) -> None:
    a = tc.tensor(np.eye(2), device=device)
    nan = tc.full((2,), float("nan"), dtype=tc.float64, device=device)
    assert tc.addmm(nan, a, a, beta=0).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    c = tc.tensor(np.ones((2, 2)), device=device)
    m = tc.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=tc.float64, device=device)
    assert tc.addmm(c, m, m, out=m) is m  # out= over mat1 and mat2: the product comes first
    assert m.tolist() == [[8.0, 11.0], [16.0, 23.0]]


@pytest.mark.parametrize("dtype", [tc.bfloat16, tc.float16])
def test_addmm_of_16_bit_floats_rounds_once(device: str, dtype: tc.dtype) -> None:
    # PyTorch computes beta * self + alpha * (mat1 @ mat2) in float32 and rounds the sum
    # once; rounding the product first moves the result by an ulp (Muon's Newton-Schulz
    # iteration is five of these in bfloat16)
    rng = np.random.default_rng(3)
    c, a, b = (tc.tensor(rng.normal(size=s), dtype=dtype) for s in ((6, 5), (6, 4), (4, 5)))
    got = tc.addmm(c.to(device), a.to(device), b.to(device), beta=3.4, alpha=-2.1)
    f = [t.float().numpy() for t in (c, a, b)]
    want = tc.tensor(3.4 * f[0] - 2.1 * (f[1] @ f[2])).to(dtype)
    assert got.cpu().float().tolist() == want.float().tolist()


@pytest.mark.parametrize("dtype", DTYPES)
@given(data=st.data())
def test_addmv_matches_numpy(device: str, dtype: tc.dtype, data: st.DataObject) -> None:
    n, m = (data.draw(st.integers(0, 4), label=f"dim{i}") for i in range(2))
    self_shape = data.draw(st.sampled_from([(n,), (1,), ()]), label="self")
    c = data.draw(tcst.arrays(dtype, self_shape), label="self")
    a = data.draw(tcst.arrays(dtype, (n, m)), label="mat")
    v = data.draw(tcst.arrays(dtype, (m,)), label="vec")
    scalars = st.integers(-2, 2) if dtype is tc.int64 else st.sampled_from([1, 0, 0.5, -2.0])
    beta, alpha = data.draw(scalars, label="beta"), data.draw(scalars, label="alpha")
    tcc, c = data.draw(tcst.tensors_from_arrays(c, device), label="tc")
    ta, a = data.draw(tcst.tensors_from_arrays(a, device), label="ta")
    tv, v = data.draw(tcst.tensors_from_arrays(v, device), label="tv")
    want = alpha * (a @ v) + (beta * c if beta != 0 else 0)
    got = tc.addmv(tcc, ta, tv, beta=beta, alpha=alpha)
    assert got.shape == (n,) and got.dtype is dtype
    assert_close(got, np.broadcast_to(np.asarray(want).astype(a.dtype), (n,)), **_tol(dtype))
    assert_close(tcc.addmv(ta, tv, beta=beta, alpha=alpha), got, **_tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@given(data=st.data())
def test_addr_matches_numpy(device: str, dtype: tc.dtype, data: st.DataObject) -> None:
    n, m = (data.draw(st.integers(0, 4), label=f"dim{i}") for i in range(2))
    self_shape = data.draw(st.sampled_from([(n, m), (m,), (n, 1), ()]), label="self")
    c = data.draw(tcst.arrays(dtype, self_shape), label="self")
    a = data.draw(tcst.arrays(dtype, (n,)), label="vec1")
    b = data.draw(tcst.arrays(dtype, (m,)), label="vec2")
    scalars = st.integers(-2, 2) if dtype is tc.int64 else st.sampled_from([1, 0, 0.5, -2.0])
    beta, alpha = data.draw(scalars, label="beta"), data.draw(scalars, label="alpha")
    tcc, c = data.draw(tcst.tensors_from_arrays(c, device), label="tc")
    ta, a = data.draw(tcst.tensors_from_arrays(a, device), label="ta")
    tb, b = data.draw(tcst.tensors_from_arrays(b, device), label="tb")
    want = alpha * np.outer(a, b) + (beta * c if beta != 0 else 0)
    got = tc.addr(tcc, ta, tb, beta=beta, alpha=alpha)
    assert got.shape == (n, m) and got.dtype is dtype
    assert_close(got, np.broadcast_to(np.asarray(want).astype(a.dtype), (n, m)), **_tol(dtype))


def test_addmv_addr_in_place_out_and_beta_zero(device: str) -> None:
    f64 = {"dtype": tc.float64, "device": device}
    mat, vec = tc.tensor([[1.0, 2.0], [3.0, 4.0]], **f64), tc.tensor([1.0, -1.0], **f64)
    y = tc.ones(2, **f64)
    assert y.addmv_(mat, vec, beta=2, alpha=3) is y and y.tolist() == [-1.0, -1.0]
    nan = tc.full((2,), float("nan"), **f64)
    assert tc.addmv(nan, mat, vec, beta=0).tolist() == [-1.0, -1.0]  # self ignored
    out = tc.empty(2, **f64)
    assert tc.addmv(y, mat, vec, out=out) is out and out.tolist() == [-2.0, -2.0]
    assert tc.addmv(vec, mat, vec, out=vec) is vec  # out= over an input: product first
    assert vec.tolist() == [0.0, -2.0]
    z = tc.ones(2, 3, **f64)
    v1, v2 = tc.tensor([1.0, 2.0], **f64), tc.tensor([1.0, 0.0, -1.0], **f64)
    assert z.addr_(v1, v2, alpha=2) is z
    assert z.tolist() == [[3.0, 1.0, -1.0], [5.0, 1.0, -3.0]]
    assert tc.addr(tc.full((2, 3), float("nan"), **f64), v1, v2, beta=0).tolist() == [
        [1.0, 0.0, -1.0],
        [2.0, 0.0, -2.0],
    ]
    out = tc.empty(2, 3, **f64)
    assert tc.addr(z, v1, v2, out=out) is out and out[0].tolist() == [4.0, 1.0, -2.0]


def test_addr_promotes_and_takes_bools(device: str) -> None:
    f32 = tc.ones(2, device=device)
    assert tc.addr(tc.ones(2, 2, dtype=tc.float64, device=device), f32, f32).dtype is tc.float64
    ints = tc.ones(2, dtype=tc.int64, device=device)
    assert tc.addr(tc.ones(2, 2, device=device), ints, ints).dtype is tc.float32
    b = tc.tensor([True, False], device=device)
    got = tc.addr(
        tc.zeros(2, 2, dtype=tc.bool, device=device), b, tc.tensor([True, True], device=device)
    )
    assert got.tolist() == [[True, True], [False, False]]
    full = tc.ones(2, 2, dtype=tc.bool, device=device)
    assert tc.addr(full, b, b, beta=0).tolist() == [[True, False], [False, False]]
    assert tc.addr(full, b, b, beta=False, alpha=False).tolist() == [[False] * 2] * 2


def test_addmv_addr_gradients_and_node_names(device: str) -> None:
    def f64(*shape: int) -> tc.Tensor:
        return tc.randn(*shape, dtype=tc.float64, device=device, requires_grad=True)

    c, mat, vec = f64(3), f64(3, 2), f64(2)
    assert tc.addmv(c, mat, vec).grad_fn.name() == "AddmvBackward0"
    for kw in ({}, {"beta": 0.5, "alpha": -2.0}):
        assert tc.autograd.gradcheck(lambda *a, kw=kw: tc.addmv(*a, **kw), (c, mat, vec))
        assert tc.autograd.gradcheck(lambda *a, kw=kw: tc.addmv(*a, **kw), (f64(1), mat, vec))
    s, v1, v2 = f64(3, 2), f64(3), f64(2)
    assert tc.addr(s, v1, v2).grad_fn.name() == "AddrBackward0"
    for kw in ({}, {"beta": 0.5, "alpha": -2.0}):
        assert tc.autograd.gradcheck(lambda *a, kw=kw: tc.addr(*a, **kw), (s, v1, v2))
        assert tc.autograd.gradcheck(lambda *a, kw=kw: tc.addr(*a, **kw), (f64(2), v1, v2))
    assert tc.autograd.gradgradcheck(lambda *a: tc.addr(*a, alpha=3.0), (s, v1, v2))
    # vectors of a lower dtype than the result get gradients of their own dtype
    w = tc.ones(3, device=device, requires_grad=True)
    tc.addr(
        tc.ones(3, 2, dtype=tc.float64, device=device), w, tc.ones(2, device=device)
    ).sum().backward()
    assert w.grad is not None and w.grad.dtype is tc.float32 and w.grad.tolist() == [2.0] * 3


def test_addmv_addr_errors(device: str) -> None:
    m = tc.ones(3, 2, device=device)
    with pytest.raises(
        RuntimeError, match=r"size mismatch, got input \(3\), mat \(3x2\), vec \(3\)"
    ):
        tc.addmv(tc.ones(3, device=device), m, tc.ones(3, device=device))
    with pytest.raises(RuntimeError, match=r"vector \+ matrix @ vector expected, got 2, 2, 1"):
        tc.addmv(tc.ones(3, 1, device=device), m, tc.ones(2, device=device))
    with pytest.raises(RuntimeError, match="addmv input tensors must have the same dtype"):
        tc.addmv(tc.ones(3, dtype=tc.float64, device=device), m, tc.ones(2, device=device))
    bools = tc.ones(3, 2, dtype=tc.bool, device=device)
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tc.addmv(bools[:, 0], bools, bools[0])
    with pytest.raises(RuntimeError, match="addr: Expected 1-D argument vec1, but got 2-D"):
        tc.addr(m, m, tc.ones(2, device=device))
    with pytest.raises(RuntimeError, match="The expanded size of the tensor"):
        tc.addr(tc.ones(3, 3, device=device), tc.ones(3, device=device), tc.ones(2, device=device))
    ints = tc.ones(3, dtype=tc.int64, device=device)
    with pytest.raises(RuntimeError, match="argument beta must not be a floating point number"):
        tc.addr(tc.ones(3, 3, dtype=tc.int64, device=device), ints, ints, beta=0.5)
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        tc.addr(m, m[:, 0], m[0], alpha=True)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        tc.ones(1, device=device).addmv_(m, tc.ones(2, device=device))


def test_linear_runs_one_operator_and_matches_numpy(device: str) -> None:
    rng = np.random.default_rng(2)
    x, w, b = rng.standard_normal((3, 4)), rng.standard_normal((5, 4)), rng.standard_normal(5)
    tx = tc.tensor(x, device=device)
    tw = tc.tensor(w, device=device, requires_grad=True)
    tb = tc.tensor(b, device=device, requires_grad=True)
    y = tc.nn.functional.linear(tx, tw, tb)
    # One node (PyTorch's name for a matrix input: addmm), with the three inputs as edges.
    assert y.grad_fn.name() == "AddmmBackward0" and len(y.grad_fn.next_functions) == 3
    assert_close(y, x @ w.T + b)
    y.sum().backward()
    assert_close(tw.grad, np.ones((3, 5)).T @ x)
    assert tw.grad.is_contiguous()
    assert_close(tb.grad, np.full(5, 3.0))


def test_matmul_errors(device: str) -> None:
    a = tc.tensor(np.ones((2, 3)), device=device)
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        a @ a
    with pytest.raises(RuntimeError, match="same dtype"):
        a @ tc.tensor(np.ones((3, 2), np.float32), device=device)
    with pytest.raises(RuntimeError, match="both arguments need at least 1 dimension"):
        tc.matmul(tc.tensor(1.0, dtype=tc.float64, device=device), a)
    with pytest.raises(
        RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)"
    ):
        tc.mm(a, a)
    with pytest.raises(RuntimeError, match="self must be a matrix"):
        tc.mm(a[0], a)
    with pytest.raises(RuntimeError, match="batch1 must be a 3D tensor"):
        tc.bmm(a, a)
    with pytest.raises(RuntimeError, match=r"self of shape \[3\] cannot be broadcast"):
        tc.addmm(a[0], a, a.t())
    with pytest.raises(RuntimeError, match="same dtype"):
        tc.addmm(tc.zeros(2, device=device), a, a.t())
    with pytest.raises(RuntimeError, match="1D tensors expected"):
        tc.dot(a, a)
    with pytest.raises(RuntimeError, match="inconsistent tensor size"):
        tc.dot(a[0], a[0, :2])
    with pytest.raises(RuntimeError, match="mv"):
        tc.mv(a, a[0, :2])


EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij->ji", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("i,i->", [(4,), (4,)]),
    ("i,j->ij", [(2,), (3,)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (3, 4)]),
    ("ij->", [(2, 3)]),
    ("ijk->kji", [(2, 3, 4)]),
]


@pytest.mark.parametrize(("eq", "shapes"), EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum(device: str, eq: str, shapes: list[tuple[int, ...]]) -> None:
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal(s) for s in shapes]
    tensors = [tc.tensor(a, device=device) for a in arrays]
    expected = np.einsum(eq, *arrays)
    assert_close(tc.einsum(eq, tensors), expected)


def test_einsum_takes_operands_as_arguments(device: str) -> None:
    # PyTorch's documented form is torch.einsum(equation, *operands).
    a = tc.tensor(np.eye(2), device=device)
    assert_close(tc.einsum("ij,jk->ik", a, a), np.eye(2))


def test_einsum_sublist_form(device: str) -> None:
    # PyTorch's (and NumPy's) einsum(op, sublist, op, sublist, ..., [out sublist])
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 3)), rng.standard_normal((4, 3, 5))
    tx, ty = tc.tensor(x, device=device), tc.tensor(y, device=device)
    assert_close(
        tc.einsum(tx, [0, 1], ty, [2, 1, 3], [2, 0, 3]),
        np.einsum(x, [0, 1], y, [2, 1, 3], [2, 0, 3]),
    )
    assert_close(tc.einsum(tx, [0, 1], ty, [2, 1, 3]), np.einsum(x, [0, 1], y, [2, 1, 3]))
    assert_close(tc.einsum(ty, [..., 51]), np.einsum(y, [..., 51]))
    with pytest.raises(RuntimeError, match=r"not within the valid range \[0, 52\)"):
        tc.einsum(tx, [0, 52])
    with pytest.raises(TypeError, match="expected a list of subscripts"):
        tc.einsum(tx, 0)
