"""Reductions, scans, softmax and sorting against NumPy: dims as int/tuple/None, keepdim, the
dtype argument, named-tuple results, corrections and norms."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import tensorcore as tc
from tensorcore.ops.schema import OPS
from tensorcore.testing import assert_close, numpy_dtype, to_numpy
from tensorcore.testing import strategies as tcst

FLOATS = (tc.float32, tc.float64)
INTS = (tc.int32, tc.int64)
ALL = (tc.bool, *INTS, *FLOATS)
NO_BOOL = (*INTS, *FLOATS)


def _axis(a: np.ndarray, dims: Any) -> Any:
    """NumPy's axis for tensorcore's dim argument (None, int or tuple; 0-d takes 0/-1)."""
    if a.ndim == 0 or dims is None:
        return None
    return dims if isinstance(dims, int) else tuple(dims)


def _sum_dtype(d: np.dtype) -> Any:
    return np.int64 if d.kind in "biu" else d


def _vector_norm(a: np.ndarray, ord: float, axis: Any, keepdims: bool) -> Any:
    x = np.abs(a)
    if ord == np.inf:
        return np.max(x, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return np.min(x, axis=axis, keepdims=keepdims)
    if ord == 0:
        return np.sum(x != 0, axis=axis, keepdims=keepdims).astype(a.dtype)
    return np.sum(x**ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)


def _logsumexp(a: np.ndarray, axis: Any, keepdims: bool) -> Any:
    m = np.max(a, axis=axis, keepdims=True)
    r = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    if not keepdims:
        r = np.squeeze(r, axis=axis) if axis is not None else r.reshape(())
    return r


@dataclass(frozen=True)
class Reduction:
    """A NumPy oracle ``fn(array, axis, keepdims, **kw)`` and the inputs it accepts."""

    fn: Callable[..., Any]
    dtypes: tuple[tc.dtype, ...] = ALL
    #: "many": None, an int or a tuple; "one": an int or None; "required": an int or a tuple.
    dims: str = "many"
    result: Callable[[np.dtype], Any] = lambda d: d
    bounds: tuple[float, float] | None = None


def _bool(d: np.dtype) -> np.dtype:
    return np.dtype(bool)


REDUCTIONS: dict[str, Reduction] = {
    "sum": Reduction(lambda a, ax, k: np.sum(a, axis=ax, keepdims=k, dtype=_sum_dtype(a.dtype)),
                     result=_sum_dtype),
    "prod": Reduction(lambda a, ax, k: np.prod(a, axis=ax, keepdims=k, dtype=_sum_dtype(a.dtype)),
                      result=_sum_dtype, bounds=(-2, 2)),
    "mean": Reduction(lambda a, ax, k: np.mean(a, axis=ax, keepdims=k), FLOATS),
    "amax": Reduction(lambda a, ax, k: np.amax(a, axis=ax, keepdims=k)),
    "amin": Reduction(lambda a, ax, k: np.amin(a, axis=ax, keepdims=k)),
    "argmax": Reduction(lambda a, ax, k: np.argmax(a, axis=ax, keepdims=k), NO_BOOL, "one",
                        lambda d: np.dtype(np.int64)),
    "argmin": Reduction(lambda a, ax, k: np.argmin(a, axis=ax, keepdims=k), NO_BOOL, "one",
                        lambda d: np.dtype(np.int64)),
    "all": Reduction(lambda a, ax, k: np.all(a, axis=ax, keepdims=k), result=_bool),
    "any": Reduction(lambda a, ax, k: np.any(a, axis=ax, keepdims=k), result=_bool),
    "logsumexp": Reduction(_logsumexp, FLOATS, "required"),
}  # fmt: skip


@st.composite
def _dims(draw: Any, ndim: int, kind: str) -> Any:
    n = max(ndim, 1)
    one = st.integers(-n, n - 1)
    many = st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True).map(
        lambda ds: tuple(d - n if i % 2 else d for i, d in enumerate(ds))
    )
    if kind == "one":
        return draw(st.none() | one)
    if kind == "required":
        return draw(one | many)
    return draw(st.none() | one | many)


def _tol(d: tc.dtype) -> dict[str, float]:
    # Summation order differs between layouts (NumPy's pairwise sum), so float32 results
    # of cancelling sums get an absolute tolerance.
    return {"rtol": 1e-5, "atol": 1e-4} if d is tc.float32 else {}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@given(data=st.data())
def test_reduction_matches_numpy(device: str, name: str, data: st.DataObject) -> None:
    spec = REDUCTIONS[name]
    dtype = data.draw(tcst.dtypes(spec.dtypes), label="dtype")
    lo, hi = spec.bounds or (None, None)
    a = data.draw(
        tcst.arrays(dtype, tcst.shapes(max_dims=3, max_side=4), min_value=lo, max_value=hi)
    )
    t, a = data.draw(tcst.tensors_from_arrays(a, device), label="tensor")
    dims = data.draw(_dims(a.ndim, spec.dims), label="dim")
    keepdim = data.draw(st.booleans(), label="keepdim")
    with np.errstate(all="ignore"):
        expected = np.asarray(spec.fn(a, _axis(a, dims), keepdim)).astype(spec.result(a.dtype))
    if a.ndim == 0 and keepdim:
        expected = expected.reshape(())
    got = getattr(tc, name)(t, dims, keepdim)
    assert_close(got, expected, **_tol(dtype))
    assert_close(getattr(t, name)(dims, keepdim=keepdim), expected, **_tol(dtype))


@pytest.mark.parametrize("name", ["var", "std"])
@given(data=st.data())
def test_var_std_correction(device: str, name: str, data: st.DataObject) -> None:
    dtype = data.draw(tcst.dtypes(FLOATS), label="dtype")
    a = data.draw(tcst.arrays(dtype, tcst.shapes(max_dims=3, max_side=4)))
    t, a = data.draw(tcst.tensors_from_arrays(a, device), label="tensor")
    dims = data.draw(_dims(a.ndim, "many"), label="dim")
    keepdim = data.draw(st.booleans(), label="keepdim")
    correction = data.draw(st.sampled_from([None, 0, 1, 2]), label="correction")
    axis = _axis(a, dims)
    n = a.size if axis is None else int(np.prod([a.shape[d] for d in np.atleast_1d(axis)]))
    ddof = 1 if correction is None else correction
    assume(n > ddof)
    expected = getattr(np, name)(a, axis=axis, ddof=ddof, keepdims=keepdim and a.ndim > 0)
    got = getattr(tc, name)(t, dims, correction=correction, keepdim=keepdim)
    assert_close(got, np.asarray(expected, dtype=a.dtype), **_tol(dtype))


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, 0, float("inf"), float("-inf")])
@given(data=st.data())
def test_vector_norm(device: str, ord: float, data: st.DataObject) -> None:
    dtype = data.draw(tcst.dtypes(FLOATS), label="dtype")
    a = data.draw(tcst.arrays(dtype, tcst.shapes(min_dims=1, max_dims=3, max_side=4)))
    t, a = data.draw(tcst.tensors_from_arrays(a, device), label="tensor")
    dims = data.draw(_dims(a.ndim, "many"), label="dim")
    keepdim = data.draw(st.booleans(), label="keepdim")
    with np.errstate(all="ignore"):
        expected = np.asarray(_vector_norm(a, ord, _axis(a, dims), keepdim), dtype=a.dtype)
    assert_close(tc.linalg.vector_norm(t, ord, dims, keepdim), expected, **_tol(dtype))
    assert_close(tc.vector_norm(t, ord, dims, keepdim), expected, **_tol(dtype))
    if ord not in (0,) and ord != float("-inf"):
        assert_close(t.norm(ord, dims, keepdim), expected, **_tol(dtype))


def _share_oracle(a: np.ndarray, g: np.ndarray, v: np.ndarray, axis: Any) -> np.ndarray:
    """``g`` shared evenly among the elements of ``a`` equal to ``v`` (kept dims) over axis."""
    mask = a == v
    with np.errstate(all="ignore"):
        return g / mask.sum(axis=axis, keepdims=True) * mask


@pytest.mark.parametrize("name", ["amax", "amin"])
def test_amax_amin_gradient_is_shared_among_ties(device: str, name: str) -> None:
    rng = np.random.default_rng(5)
    for shape, dims, keepdim in [
        ((3, 5), (1,), False),
        ((4, 3), (0,), True),
        ((2, 3, 4), (0, 2), False),
        ((3, 4), (), False),
        ((), (0,), True),
    ]:
        a = rng.integers(0, 3, shape).astype(np.float64)  # ties in most rows
        x = tc.tensor(a, device=device, requires_grad=True)
        y = getattr(x, name)(dims, keepdim) if dims else getattr(x, name)()
        g = rng.standard_normal(y.shape)
        axis = dims if a.ndim and dims else None
        v = getattr(np, name)(a, axis=axis, keepdims=True)
        (got,) = tc.autograd.grad(y, [x], tc.tensor(g, device=device))
        want = _share_oracle(a, g.reshape(v.shape), v, axis)
        assert_close(got, tc.tensor(want, device=device), rtol=1e-12, atol=0)
    # A NaN result has no ties: NaN everywhere, as PyTorch's amax.
    x = tc.tensor([1.0, float("nan"), 2.0], device=device, requires_grad=True)
    (got,) = tc.autograd.grad(getattr(x, name)(), [x])
    assert np.isnan(to_numpy(got)).all()


@pytest.mark.parametrize("name", ["max", "min"])
def test_whole_tensor_max_min_gradient_is_shared_among_ties_and_nans(
    device: str, name: str
) -> None:
    nan = float("nan")
    for a, want in [
        ([[1.0, 3.0, 3.0], [0.0, 3.0, 0.0]], None),
        ([1.0, nan, 2.0, nan], [0.0, 1.0, 0.0, 1.0]),  # (amax's is NaN everywhere)
    ]:
        arr = np.array(a)
        x = tc.tensor(arr, device=device, requires_grad=True)
        y = getattr(x, name)()
        assert y.grad_fn.name() == f"{name.capitalize()}Backward1"
        (got,) = tc.autograd.grad(y, [x], tc.tensor(2.0, dtype=tc.float64, device=device))
        if want is None:
            v = getattr(np, name)(arr)
            want = 2.0 * (arr == v) / (arr == v).sum()
        assert_close(got, tc.tensor(want, dtype=tc.float64, device=device))


def test_amax_backward_is_one_operator_and_twice_differentiable(device: str) -> None:
    x = tc.tensor([[1.0, 3.0, 2.5], [2.0, -2.0, 0.0]], dtype=tc.float64, device=device)
    x.requires_grad_()
    gy = tc.ones(2, dtype=tc.float64, device=device, requires_grad=True)
    (gx,) = tc.autograd.grad(x.amax(1), [x], gy, create_graph=True)
    assert gx.grad_fn.name() == "EvenlyDistributeBackwardBackward0"
    # d(sum(gx * x))/d(gy) is each row's maximum; x gets zeros that flow
    ggy, ggx = tc.autograd.grad((gx * x).sum(), [gy, x])
    assert_close(ggy, tc.tensor([3.0, 2.0], dtype=tc.float64, device=device))
    assert_close(ggx, gx.detach())
    for f in (lambda t: t.amax(1), lambda t: t.amin((0, 1), keepdim=True)):
        assert tc.autograd.gradgradcheck(lambda t, f=f: f(t) * f(t).exp(), (x,))


@pytest.mark.parametrize("keepdim", [False, True])
def test_max_dim_backward_is_one_operator_and_twice_differentiable(
    device: str, keepdim: bool
) -> None:
    # the gradient at the index, as value_selecting_reduction_backward (PyTorch's name);
    # its own gradient in grad is the incoming one gathered at the indices
    x = tc.tensor([[1.0, 3.0, 2.5], [2.0, -2.0, 0.0]], dtype=tc.float64, device=device)
    x.requires_grad_()
    for name in ("max", "min", "median", "mode"):
        r = getattr(x, name)(1, keepdim)
        gy = tc.tensor([[2.0], [5.0]] if keepdim else [2.0, 5.0], dtype=tc.float64, device=device)
        gy.requires_grad_()
        (gx,) = tc.autograd.grad(r.values, [x], gy, create_graph=True)
        assert gx.grad_fn.name() == "ValueSelectingReductionBackwardBackward0"
        want = np.zeros((2, 3))
        want[[0, 1], r.indices.reshape(-1).tolist()] = [2.0, 5.0]
        np.testing.assert_array_equal(gx.detach().cpu().numpy(), want)
        (ggy,) = tc.autograd.grad((gx * x).sum(), [gy])
        assert_close(ggy, r.values.detach())
        f = getattr(tc.Tensor, name)
        assert tc.autograd.gradgradcheck(lambda t, f=f: f(t, 0, keepdim).values.exp(), (x,))


@pytest.mark.parametrize("correction", [0, 1, 3, 5])
def test_var_gradient_for_every_correction(device: str, correction: int) -> None:
    # 2 (x - mean) / (n - correction), a negative divisor included (PyTorch's), inf at 0
    a = np.array([[1.0, 2.0, 4.0, 7.0], [0.5, -1.0, 3.0, 2.0]])
    x = tc.tensor(a, device=device, requires_grad=True)
    (got,) = tc.autograd.grad(x.var(1, correction=correction).sum(), [x])
    want = 2 * (a - a.mean(1, keepdims=True)) / (4 - correction)
    assert_close(got, tc.tensor(want, device=device), rtol=1e-12, atol=1e-12)


def test_vector_norm_inf_gradient_is_shared_among_ties(device: str) -> None:
    a = np.array([[1.0, -2.0, 0.5], [-1.0, 2.0, 2.0]])
    x = tc.tensor(a, device=device, requires_grad=True)
    (got,) = tc.autograd.grad(tc.linalg.vector_norm(x, math.inf, 0).sum(), [x])
    want = [[0.5, -0.5, 0.0], [-0.5, 0.5, 1.0]]
    assert_close(got, tc.tensor(want, dtype=tc.float64, device=device))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@given(data=st.data())
def test_scans(device: str, name: str, data: st.DataObject) -> None:
    dtype = data.draw(tcst.dtypes(ALL), label="dtype")
    a = data.draw(
        tcst.arrays(dtype, tcst.shapes(max_dims=3, max_side=4), min_value=-2, max_value=2)
    )
    t, a = data.draw(tcst.tensors_from_arrays(a, device), label="tensor")
    n = max(a.ndim, 1)
    dim = data.draw(st.integers(-n, n - 1), label="dim")
    out_dtype = data.draw(st.sampled_from([None, tc.float64]), label="dtype arg")
    npd = numpy_dtype(out_dtype) if out_dtype is not None else _sum_dtype(a.dtype)
    fn = np.cumsum if name == "cumsum" else np.cumprod
    expected = fn(a, axis=dim, dtype=npd) if a.ndim else a.astype(npd)
    assert_close(getattr(tc, name)(t, dim, dtype=out_dtype), expected, **_tol(dtype))
    assert_close(getattr(t, name)(dim, dtype=out_dtype), expected, **_tol(dtype))


def _cumprod_grad_oracle(a: np.ndarray, g: np.ndarray, dim: int) -> np.ndarray:
    """sum_{j >= i} g_j * conj(prod_{k <= j, k != i} a_k), term by term."""
    a, g = np.moveaxis(a, dim, -1), np.moveaxis(g, dim, -1)
    n = a.shape[-1]
    out = np.zeros_like(a)
    for i in range(n):
        others = a.copy()
        others[..., i] = 1
        out[..., i] = (g[..., i:] * np.conj(np.cumprod(others, -1)[..., i:])).sum(-1)
    return np.moveaxis(out, -1, dim)


@pytest.mark.parametrize("dtype", [tc.float64, tc.complex128])
def test_cumprod_backward_with_and_without_zeros(device: str, dtype: Any) -> None:
    # The first-order gradient divides a reversed cumulative sum by x except at and after
    # each slice's first zero; a backward that builds a graph sums the terms one by one.
    rng = np.random.default_rng(3)
    for shape, dim in [((4, 7), 1), ((7, 3), 0), ((2, 5, 3), 1), ((6,), 0)]:
        for zeros in ([], [1], [0, 3, 4], [2, 5]):
            a = rng.standard_normal(shape)
            if dtype.is_complex:
                a = a + 1j * rng.standard_normal(shape)
            np.moveaxis(a, dim, -1)[..., [z for z in zeros if z < shape[dim]]] = 0
            g = rng.standard_normal(shape).astype(a.dtype)
            x = tc.tensor(a, dtype=dtype, device=device, requires_grad=True)
            (got,) = tc.autograd.grad(x.cumprod(dim), [x], tc.tensor(g, device=device))
            assert_close(got, _cumprod_grad_oracle(a, g, dim), rtol=1e-10, atol=1e-12)
    x = tc.tensor([[0.5, 0.0, 2.0, 0.0, 3.0]], dtype=tc.float64, device=device)
    x.requires_grad_()
    assert tc.autograd.gradgradcheck(lambda t: t.cumprod(1), (x,))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scans_in_place_and_into_a_strided_out(device: str, name: str) -> None:
    # (NumPy accumulates straight into out, which may be the input or a strided view.)
    a = np.random.default_rng(0).uniform(0.5, 1.5, (5, 6)).astype(np.float32)
    fn = np.cumsum if name == "cumsum" else np.cumprod
    for dim in (0, 1):
        t = tc.tensor(a, device=device)
        assert getattr(t, name + "_")(dim) is t
        assert_close(t, fn(a, axis=dim), rtol=1e-6, atol=1e-6)
        big = tc.zeros(6, 10, device=device)
        out = big[:, ::2].T  # (5, 6), neither C- nor F-ordered
        getattr(tc, name)(tc.tensor(a, device=device).T.T, dim, out=out)
        assert_close(out, fn(a, axis=dim), rtol=1e-6, atol=1e-6)
        assert not to_numpy(big[:, 1::2]).any()
    t = tc.tensor(np.array([[1, 2], [3, 4]], np.int32), device=device)
    assert_close(t.cumsum(1), np.array([[1, 3], [3, 7]], np.int64))


def _softmax(a: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(a - np.max(a, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@given(data=st.data())
def test_softmax(device: str, name: str, data: st.DataObject) -> None:
    dtype = data.draw(tcst.dtypes(FLOATS), label="dtype")
    a = data.draw(tcst.arrays(dtype, tcst.shapes(min_dims=1, max_dims=3, max_side=4)))
    t, a = data.draw(tcst.tensors_from_arrays(a, device), label="tensor")
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1), label="dim")
    expected = _softmax(a, dim)
    if name == "log_softmax":
        m = np.max(a, axis=dim, keepdims=True)
        expected = a - m - np.log(np.sum(np.exp(a - m), axis=dim, keepdims=True))
    assert_close(getattr(tc, name)(t, dim), expected.astype(a.dtype), **_tol(dtype))
    assert_close(getattr(t, name)(dim), expected.astype(a.dtype), **_tol(dtype))


def test_softmax_dtype_argument(device: str) -> None:
    x = tc.tensor([[1.0, 2.0, 3.0]], device=device)
    r = tc.softmax(x, -1, dtype=tc.float64)
    assert r.dtype is tc.float64
    assert_close(r, _softmax(np.array([[1.0, 2.0, 3.0]]), -1))
    big = tc.tensor([1000.0, 1000.0], device=device)
    assert big.softmax(0).tolist() == [0.5, 0.5]
    assert_close(big.log_softmax(0), np.log(np.array([0.5, 0.5], np.float32)))


@given(data=st.data())
def test_stable_sort_and_argsort(device: str, data: st.DataObject) -> None:
    dtype = data.draw(tcst.dtypes(NO_BOOL), label="dtype")
    a = data.draw(
        tcst.arrays(
            dtype, tcst.shapes(min_dims=1, max_dims=3, max_side=5), min_value=-3, max_value=3
        )
    )
    t, a = data.draw(tcst.tensors_from_arrays(a, device), label="tensor")
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1), label="dim")
    descending = data.draw(st.booleans(), label="descending")
    idx = np.argsort(-a if descending else a, axis=dim, kind="stable")
    values = np.take_along_axis(a, idx, axis=dim)
    v, i = tc.sort(t, dim, descending, stable=True)
    assert_close(v, values)
    assert_close(i, idx.astype(np.int64))
    v, i = t.sort(dim=dim, descending=descending, stable=True)
    assert_close(v, values)
    assert_close(i, idx.astype(np.int64))
    assert_close(tc.argsort(t, dim, descending, stable=True), idx.astype(np.int64))


def test_sort_default_is_consistent(device: str) -> None:
    a = np.array([[3.0, 1.0, 2.0], [0.5, -1.0, 9.0]], np.float32)
    t = tc.tensor(a, device=device)
    values, indices = t.sort()
    assert_close(values, np.sort(a, axis=-1))
    assert_close(t.gather(-1, indices), np.sort(a, axis=-1))
    values, indices = t.sort(0, descending=True)
    assert_close(values, -np.sort(-a, axis=0))
    assert_close(t.argsort(dim=1), np.argsort(a, axis=1))


@given(data=st.data())
def test_topk(device: str, data: st.DataObject) -> None:
    dtype = data.draw(tcst.dtypes(NO_BOOL), label="dtype")
    a = data.draw(tcst.arrays(dtype, tcst.shapes(min_dims=1, max_dims=3, max_side=5)))
    t, a = data.draw(tcst.tensors_from_arrays(a, device), label="tensor")
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1), label="dim")
    k = data.draw(st.integers(0, a.shape[dim]), label="k")
    largest = data.draw(st.booleans(), label="largest")
    values, indices = tc.topk(t, k, dim, largest=largest)
    ordered = -np.sort(-a, axis=dim) if largest else np.sort(a, axis=dim)
    expected = np.take(ordered, np.arange(k), axis=dim)
    assert_close(values, expected)
    assert indices.dtype is tc.int64
    assert_close(values, np.take_along_axis(a, to_numpy(indices), axis=dim))
    values, _ = t.topk(k, dim=dim, largest=largest)
    assert_close(values, expected)


def _stable_order(a: np.ndarray, dim: int, largest: bool) -> np.ndarray:
    """The stable sort's indices, NaN largest, equal values by index (descending too)."""
    if not largest:
        return np.argsort(a, axis=dim, kind="stable")
    s = np.argsort(np.flip(a, axis=dim), axis=dim, kind="stable")
    return (a.shape[dim] - 1) - np.flip(s, axis=dim)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.uint8, np.float16])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_ties_and_nan_keep_the_stable_order(device: str, dtype: Any, largest: bool) -> None:
    # Few distinct values: the k-th value has ties inside and outside the top k, and NaN
    # (largest, as in the sort) fills whole prefixes; k <= n / 2 takes the partition path.
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, (6, 40, 30)).astype(dtype)
    if a.dtype.kind == "f":
        a[a == 3] = np.nan
        a[0, :, 0] = -0.0
        a[1] = np.nan
    t = tc.tensor(a, device=device)
    for dim, k in ((-1, 1), (-1, 7), (-1, 15), (1, 20), (0, 3), (1, 40)):
        values, indices = t.topk(k, dim, largest=largest)
        idx = np.take(_stable_order(a, dim, largest), np.arange(k), axis=dim)
        assert_close(indices, idx.astype(np.int64))
        assert_close(values, np.take_along_axis(a, idx, axis=dim), equal_nan=True)
    # A non-contiguous input takes the same path.
    values, indices = t.transpose(0, 2)[::2].topk(5, 1, largest=largest)
    b = a.transpose(2, 1, 0)[::2]
    idx = np.take(_stable_order(b, 1, largest), np.arange(5), axis=1)
    assert_close(indices, idx.astype(np.int64))


def test_sort_and_topk_return_named_tuples(device: str) -> None:
    t = tc.tensor([3.0, 1.0, 2.0], device=device)
    r = tc.sort(t)
    assert type(r) is tc.return_types.sort
    assert r.values.tolist() == [1.0, 2.0, 3.0] and r.indices.tolist() == [1, 2, 0]
    r = t.topk(2)
    assert type(r) is tc.return_types.topk
    assert r.values.tolist() == [3.0, 2.0] and r.indices.tolist() == [0, 2]


def test_topk_out_of_range(device: str) -> None:
    with pytest.raises(RuntimeError, match="out of range"):
        tc.topk(tc.tensor([1.0, 2.0], device=device), 3)


# ---------------------------------------------------------------- explicit cases
def _m(device: str) -> tuple[tc.Tensor, np.ndarray]:
    a = np.array([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], np.float32)
    return tc.tensor(a, device=device), a


def test_max_min_named_tuples(device: str) -> None:
    t, a = _m(device)
    assert tc.max(t).item() == 6.0 and tc.min(t).item() == 1.0
    assert t.max().shape == ()
    r = tc.max(t, 1)
    assert type(r) is tc.return_types.max
    assert r.values.tolist() == [5.0, 6.0] and r.indices.tolist() == [1, 2]
    assert r[0].tolist() == r.values.tolist() and r[1].tolist() == r.indices.tolist()
    values, indices = t.min(dim=0, keepdim=True)
    assert values.tolist() == [[1.0, 2.0, 3.0]] and indices.tolist() == [[0, 1, 0]]
    r = tc.min(t, -1)
    assert type(r) is tc.return_types.min and r.indices.dtype is tc.int64
    other = tc.tensor([[2.0, 2.0, 2.0]], device=device)
    assert_close(tc.max(t, other), np.maximum(a, 2.0))
    assert_close(t.min(other), np.minimum(a, 2.0))
    ties = tc.tensor([1, 3, 3, 0], device=device)
    assert ties.max(0).indices.item() == 1
    assert ties.argmax().item() == 1


@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_values_are_the_elements_at_their_indices(device: str, keepdim: bool) -> None:
    # max(dim)/min(dim) give the element at the index they give, as PyTorch does: of equal
    # zeros, the first one's sign (a reduce of the values may pick the other zero), and the
    # first NaN; along the last dim and along another, contiguous or not
    a = np.array([[-0.0, 0.0, -1.0], [0.0, -0.0, -2.0], [1.0, np.nan, np.nan]], np.float32)
    for x, arr in ((a, a), (-a, -a), (a.T.copy(), a.T)):
        for t in (tc.tensor(x, device=device), tc.tensor(arr.T.copy(), device=device).T):
            for name in ("max", "min"):
                for dim in (0, 1):
                    r = getattr(t, name)(dim, keepdim)
                    idx = r.indices.cpu().numpy()
                    want = np.take_along_axis(
                        t.cpu().numpy(), idx if keepdim else np.expand_dims(idx, dim), dim
                    )
                    got = r.values.cpu().numpy()
                    np.testing.assert_array_equal(got, want if keepdim else want.squeeze(dim))
                    expected = getattr(np, f"arg{name}")(t.cpu().numpy(), dim, keepdims=keepdim)
                    np.testing.assert_array_equal(idx, expected)
                    if device == "cpu":  # (bit for bit: the sign of a zero)
                        assert (np.signbit(got) == np.signbit(want.reshape(got.shape))).all()


def test_dtype_argument(device: str) -> None:
    i = tc.tensor([[1, 2], [3, 4]], dtype=tc.int32, device=device)
    assert i.sum().dtype is tc.int64
    assert tc.sum(i, dtype=tc.int32).dtype is tc.int32
    assert tc.sum(i, 0, dtype=tc.float64).dtype is tc.float64
    assert tc.prod(i, dtype=tc.float32).item() == 24.0
    assert tc.mean(i, dtype=tc.float64).item() == 2.5
    assert tc.tensor([True, True], device=device).sum().dtype is tc.int64
    h = tc.tensor([1.0, 2.0], dtype=tc.float16, device=device)
    assert h.sum().dtype is tc.float16
    assert tc.sum(h, dtype=tc.float32).dtype is tc.float32


def test_mean_of_integers_needs_a_dtype(device: str) -> None:
    i = tc.tensor([1, 2], device=device)
    with pytest.raises(RuntimeError, match=r"mean\(\): could not infer output dtype.*Got: Long"):
        i.mean()
    with pytest.raises(RuntimeError, match="could not infer output dtype"):
        i.var()


def test_reduction_out_argument(device: str) -> None:
    t, a = _m(device)
    out = tc.tensor([0.0, 0.0, 0.0], device=device)
    assert tc.sum(t, 0, out=out) is out
    assert_close(out, a.sum(0))
    out = tc.tensor([0, 0], device=device)
    assert tc.argmax(t, 1, out=out) is out
    assert out.tolist() == [1, 2]


def test_empty_reductions(device: str) -> None:
    e = tc.tensor(np.zeros((0, 3), np.float32), device=device)
    assert e.sum().item() == 0.0
    assert e.prod().item() == 1.0
    assert e.sum(0).tolist() == [0.0, 0.0, 0.0]
    assert e.sum(1).shape == (0,)
    assert tc.isnan(e.mean()).item()
    assert e.all().item() is True and e.any().item() is False
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        e.amax(0)
    with pytest.raises(IndexError, match="Expected reduction dim"):
        e.argmax(0)
    with pytest.raises(
        RuntimeError, match=r"Expected reduction dim to be specified for input\.numel\(\) == 0"
    ):
        e.max()
    assert e.amax(1).shape == (0,)


def test_zero_dim_reductions(device: str) -> None:
    s = tc.tensor(3.0, device=device)
    assert s.sum().item() == 3.0
    assert s.sum(0).shape == () and s.sum(-1, keepdim=True).shape == ()
    assert s.argmax().item() == 0
    assert s.max(0).values.item() == 3.0
    assert s.cumsum(0).item() == 3.0
    assert s.softmax(0).item() == 1.0


def test_repeated_and_bad_dims(device: str) -> None:
    t, _ = _m(device)
    with pytest.raises(RuntimeError, match="dim 1 appears multiple times in the list of dims"):
        t.sum((1, -1))
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.sum(2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.cumsum(-3)


def test_norm_variants(device: str) -> None:
    t, a = _m(device)
    assert_close(t.norm(), np.float32(np.linalg.norm(a)))
    assert_close(t.norm("fro"), np.float32(np.linalg.norm(a)))
    assert_close(tc.norm(t, 1, dim=1), np.abs(a).sum(1))
    assert_close(tc.linalg.norm(t, dim=(0, 1)), np.float32(np.linalg.norm(a)))
    assert tc.linalg.vector_norm(tc.tensor([3.0, 4.0], device=device)).item() == 5.0
    with pytest.raises(RuntimeError):
        tc.linalg.vector_norm(tc.tensor([3, 4], device=device))


def test_all_any_on_numbers(device: str) -> None:
    x = tc.tensor([[0, 2], [1, 3]], device=device)
    assert x.all().item() is False and x.any().item() is True
    assert x.all(1).tolist() == [False, True]
    assert x.any(0, keepdim=True).tolist() == [[True, True]]
    assert x.all(1).dtype is tc.bool


COVERED = {"max_dim", "min_dim", "max", "min", "norm", "vector_norm", "var", "std", "cumsum",
           "cumprod", "softmax", "log_softmax", "sort", "argsort", "topk",
           # tests/test_api_breadth.py:
           "msort",
           # tests/test_losses.py:
           "_softmax_backward_data", "_log_softmax_backward_data", "nll_loss",
           "nll_loss_backward",
           # above (amax's and amin's backward):
           "evenly_distribute_backward", "max_all", "min_all",
           # (max_dim's backward, test_statistics_ops.py's order statistics'):
           "value_selecting_reduction_backward",
           # tests/test_shape_ops.py:
           "cummax", "cummin", "logcumsumexp", "count_nonzero", "histc", "kthvalue", "median",
           "nanmedian", "quantile", "nanquantile", "nanmean", "nansum", "var_mean", "std_mean",
           "aminmax",
           # tests/test_statistics_ops.py:
           "trapezoid", "trapz", "cumulative_trapezoid", "histogram", "mode",
           "median_dim", "nanmedian_dim", "kthvalue_dim", "mode_dim",
           # tests/test_linalg_decompositions.py:
           "dist",
           # tests/test_segment_reduce.py:
           "segment_reduce",
           # tests/test_nn_layers.py, tests/test_softmax_blocks.py:
           "_safe_softmax"}  # fmt: skip


def test_every_reduction_is_tested() -> None:
    tagged = {name for name, decl in OPS.items() if "reduction" in decl.tags}
    assert tagged == set(REDUCTIONS) | COVERED


def test_reductions_of_an_expanded_tensor_need_no_full_size_temporary(device: str) -> None:
    # 2**40 rows: a temporary of the expanded size (4 TiB) cannot be allocated, so these
    # pass only if the kernel reduces the memory the tensor really has.
    x = tc.tensor([[1.0, 5.0, 3.0]], device=device).expand(2**40, 3)
    n = 2**40 * 3
    assert x.argmax().item() == 1 and x.argmin().item() == 0
    assert x.argmax(0).tolist() == [0, 0, 0]
    values, indices = x.max(0)
    assert values.tolist() == [1.0, 5.0, 3.0] and indices.tolist() == [0, 0, 0]
    assert x.var(0).tolist() == [0.0, 0.0, 0.0]
    mean = 3.0
    var = 2**40 * ((1 - mean) ** 2 + (5 - mean) ** 2 + (3 - mean) ** 2) / (n - 1)
    assert math.isclose(x.var().item(), var, rel_tol=1e-6)
    assert math.isclose(x.std(correction=0).item(), math.sqrt(8 / 3), rel_tol=1e-6)
    norms = tc.linalg.vector_norm(x, dim=0).tolist()
    expected = [2**20 * v for v in (1, 5, 3)]
    assert all(math.isclose(a, b, rel_tol=1e-6) for a, b in zip(norms, expected, strict=True))
    assert math.isclose(x.logsumexp(0)[1].item(), 5 + 40 * math.log(2), rel_tol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_norm_2_of_large_strided_and_expanded_tensors(device: str, dtype: Any) -> None:
    # Real 2-norms over every dim take a dot product (NumPy): as accurate as the sum.
    a = np.random.default_rng(0).standard_normal((300, 400)).astype(dtype) + 3
    exact = math.sqrt(float(np.sum(a.astype(np.float64) ** 2)))
    t = tc.tensor(a, device=device)
    for x in (t, t.T, t[::2, 1::3], t.reshape(-1)):
        n = tc.linalg.vector_norm(x)
        assert n.dtype is t.dtype
        want = math.sqrt(float(np.sum(to_numpy(x).astype(np.float64) ** 2)))
        assert math.isclose(n.item(), want, rel_tol=1e-6)
    assert math.isclose(tc.linalg.vector_norm(t, dim=(0, 1)).item(), exact, rel_tol=1e-6)
    assert tc.linalg.vector_norm(t, dim=(1, 0), keepdim=True).shape == (1, 1)
    assert_close(tc.linalg.vector_norm(t, dim=1), np.sqrt(np.sum(a * a, axis=1)), rtol=1e-5, atol=0)
    e = tc.tensor(np.array([3.0, 4.0], dtype), device=device).expand(2**20, 2)
    assert tc.linalg.vector_norm(e).item() == 5.0 * 2**10
    assert tc.linalg.vector_norm(tc.zeros(0, 3, dtype=t.dtype, device=device)).item() == 0.0
    assert math.isnan(tc.linalg.vector_norm(tc.tensor([1.0, math.nan], device=device)).item())
    assert tc.linalg.vector_norm(tc.tensor([1.0, -math.inf], device=device)).item() == math.inf


def test_a_reduction_follows_the_default_dtype_when_it_changes(device: str) -> None:
    # logsumexp of integers gives the default dtype, read at each call (the core remembers
    # a reduction's result dtype only where the default dtype plays no part).
    x = tc.arange(4, device=device)
    assert tc.logsumexp(x, 0).dtype is tc.float32
    prev = tc.get_default_dtype()
    tc.set_default_dtype(tc.float64)
    try:
        assert tc.logsumexp(x, 0).dtype is tc.float64
        assert x.sum().dtype is tc.int64
    finally:
        tc.set_default_dtype(prev)
    assert tc.logsumexp(x, 0).dtype is tc.float32


def test_nansum_counts_nan_as_zero_and_passes_no_gradient_there(device: str) -> None:
    # (NaN masked to zero by masked_fill, then summed: NumPy's nansum, and a gradient of 0
    # at the NaNs and 1 elsewhere; inf and -0.0 pass through)
    x = np.random.default_rng(3).standard_normal((6, 50)).astype(np.float32)
    x[0, :3] = np.nan
    x[1, 3] = np.inf
    x[2, :] = np.nan
    x[3, 5] = -0.0
    t = tc.tensor(x, device=device, requires_grad=True)
    for dim in (None, 0, 1):
        got = t.nansum() if dim is None else t.nansum(dim)
        want = np.nansum(x) if dim is None else np.nansum(x, dim)
        assert_close(got, want, rtol=1e-6, atol=1e-6)
    (g,) = tc.autograd.grad(t.nansum(1).sum(), [t])
    assert_close(g, (~np.isnan(x)).astype(np.float32), rtol=0, atol=0)
