"""PyTorch's top-level ``cov``, ``corrcoef``, ``pdist`` and ``cosine_similarity`` (composites
of other operators), against NumPy and SciPy on every device; the generic tests (samples,
gradcheck, fuzz) cover their other properties."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy.spatial.distance import pdist as scipy_pdist

import tensorcore as tc
import tensorcore.nn.functional as F
from tensorcore.testing import assert_close


def test_cov_matches_numpy(device: str) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 6))
    fw = np.array([1, 2, 0, 3, 1, 1])
    aw = np.array([0.5, 1.0, 2.0, 0.3, 1.0, 0.7])
    x = tc.tensor(a, device=device)
    f, w = tc.tensor(fw, device=device), tc.tensor(aw, device=device)
    assert_close(tc.cov(x), np.cov(a))
    assert_close(x.cov(correction=0), np.cov(a, ddof=0))
    assert_close(tc.cov(x, correction=2), np.cov(a, ddof=2))
    assert_close(tc.cov(x, fweights=f), np.cov(a, fweights=fw))
    assert_close(tc.cov(x, aweights=w), np.cov(a, aweights=aw))
    assert_close(tc.cov(x, fweights=f, aweights=w), np.cov(a, fweights=fw, aweights=aw))
    assert_close(tc.cov(x, correction=0, aweights=w), np.cov(a, ddof=0, aweights=aw))
    # One variable: a 0-d result; integers compute in the default float dtype.
    assert_close(tc.cov(x[0]), np.cov(a[0]))
    assert tc.cov(x[0]).shape == ()
    ints = tc.tensor([[1, 4, 2], [0, 3, 3]], device=device)
    assert ints.cov().dtype == tc.float32
    assert_close(ints.cov(), np.cov([[1, 4, 2], [0, 3, 3]]).astype(np.float32))
    z = np.array([[1 + 2j, 0.5 - 1j, 3j], [2 - 1j, 1 + 1j, 0.25]])
    assert_close(tc.cov(tc.tensor(z, device=device)), np.cov(z))


def test_cov_warns_and_refuses_as_pytorch(device: str) -> None:
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        got = tc.cov(tc.ones(2, 1, device=device))
    assert bool(got.isnan().all())
    cases = [
        ((tc.ones(2, 2, 2),), {}, "expected input to have two or fewer dimensions"),
        ((tc.ones(2, 2, dtype=tc.bool),), {}, "bool dtype is not supported for input"),
        ((tc.ones(2, 3),), {"fweights": tc.ones(3)}, "expected fweights to have integral dtype"),
        ((tc.ones(2, 3),), {"aweights": tc.ones(3, dtype=tc.int64)}, "floating point dtype"),
        ((tc.ones(2, 3),), {"fweights": tc.tensor([1, -1, 1])}, "fweights cannot be negative"),
        ((tc.ones(2, 3),), {"aweights": tc.tensor([1.0, -1, 1])}, "aweights cannot be negative"),
        ((tc.ones(2, 3),), {"fweights": tc.tensor([1, 1])}, r"observations .* but got 2 != 3"),
        ((tc.ones(2, 3),), {"fweights": tc.zeros(3, dtype=tc.int64)}, "weights sum to zero"),
    ]
    for args, kwargs, message in cases:
        args = tuple(t.to(device) for t in args)
        kwargs = {k: v.to(device) for k, v in kwargs.items()}
        with pytest.raises(RuntimeError, match=message):
            tc.cov(*args, **kwargs)


def test_corrcoef_matches_numpy(device: str) -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 7))
    assert_close(tc.corrcoef(tc.tensor(a, device=device)), np.corrcoef(a))
    assert_close(tc.tensor(a, device=device).corrcoef(), np.corrcoef(a))
    z = a[:2] + 1j * a[2:]
    assert_close(tc.corrcoef(tc.tensor(z, device=device)), np.corrcoef(z))
    # One variable: 1, or NaN where its variance is 0.
    assert tc.corrcoef(tc.tensor(a[0], device=device)).item() == pytest.approx(1.0)
    assert tc.corrcoef(tc.ones(5, device=device)).isnan().item()
    # Perfectly correlated rows stay within [-1, 1] after rounding.
    r = tc.corrcoef(tc.tensor([[0.1, 0.2, 0.3], [0.3, 0.6, 0.9]], device=device))
    assert bool((r.abs() <= 1).all())
    with pytest.raises(RuntimeError, match="corrcoef\\(\\): expected input to have two or fewer"):
        tc.corrcoef(tc.ones(2, 2, 2, device=device))


@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.5, float("inf")])
def test_pdist_matches_scipy(device: str, p: float) -> None:
    a = np.random.default_rng(2).random((5, 3))
    metric = {2.0: "euclidean", 1.0: "cityblock", float("inf"): "chebyshev"}.get(p)
    if p == 0:
        want = np.array([(a[i] != a[j]).sum() for i in range(5) for j in range(i + 1, 5)], float)
    elif metric is None:
        want = scipy_pdist(a, "minkowski", p=p)
    else:
        want = scipy_pdist(a, metric)
    assert_close(tc.pdist(tc.tensor(a, device=device), p), want, rtol=1e-6, atol=1e-6)
    assert_close(F.pdist(tc.tensor(a, device=device), p=p), want, rtol=1e-6, atol=1e-6)
    assert tc.pdist(tc.ones(1, 3, device=device)).shape == (0,)


def test_pdist_refuses_as_pytorch(device: str) -> None:
    with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 1D"):
        tc.pdist(tc.ones(3, device=device))
    with pytest.raises(RuntimeError, match="pdist only supports floating-point dtypes"):
        tc.pdist(tc.ones(3, 2, dtype=tc.int64, device=device))
    with pytest.raises(RuntimeError, match="pdist only supports non-negative p values"):
        tc.pdist(tc.ones(3, 2, device=device), -1.0)


def test_cosine_similarity_matches_numpy(device: str) -> None:
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((1, 3))
    want = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    x, y = tc.tensor(a, device=device), tc.tensor(b, device=device)
    assert_close(tc.cosine_similarity(x, y), want)
    assert_close(F.cosine_similarity(x, y, dim=1), want)
    assert_close(tc.cosine_similarity(x.t(), y.t(), dim=0), want)
    # Integers meet floats in a floating common dtype; a zero vector gives 0, not NaN.
    mixed = tc.cosine_similarity(tc.ones(2, 3, dtype=tc.int64), tc.ones(2, 3))
    assert mixed.dtype == tc.float32
    assert_close(mixed, np.ones(2, np.float32))
    zero = tc.cosine_similarity(tc.zeros(1, 3, device=device), y)
    assert zero.tolist() == [0.0]
    with pytest.raises(RuntimeError, match="yet common dtype is Long"):
        tc.cosine_similarity(tc.ones(2, 3, dtype=tc.int64), tc.ones(2, 3, dtype=tc.int64))


def test_cosine_similarity_clamp_passes_the_norms_gradient(device: str) -> None:
    # A norm below eps is clamped in the forward pass only (PyTorch clamps it in place under
    # no_grad): the gradient still flows through the norm, d|b|/db = b / |b|.
    a, b, eps = np.array([1.5, -2.0, 0.5]), np.array([0.2, 0.1, -0.3]), 0.9
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    u = a / na
    want_b = u / eps - (u @ b) / eps**2 * b / nb
    x = tc.tensor(a, device=device, requires_grad=True)
    y = tc.tensor(b, device=device, requires_grad=True)
    out = F.cosine_similarity(x, y, dim=0, eps=eps)
    assert_close(out, u @ b / eps)
    gx, gy = tc.autograd.grad(out, (x, y))
    assert_close(gy, want_b)
    assert_close(gx, b / eps / na - (u @ b / eps) * a / na**2)


def test_gradients_by_gradcheck(device: str) -> None:
    gen = tc.Generator().manual_seed(0)
    x = tc.rand(3, 5, dtype=tc.float64, generator=gen).to(device).requires_grad_()
    w = (tc.rand(5, dtype=tc.float64, generator=gen) + 0.5).to(device).requires_grad_()
    f = tc.tensor([1, 2, 1, 3, 1], device=device)
    assert tc.autograd.gradcheck(lambda x, w: tc.cov(x, fweights=f, aweights=w), (x, w))
    assert tc.autograd.gradcheck(tc.corrcoef, (x,))
    assert tc.autograd.gradcheck(tc.pdist, (x,))
    y = (tc.rand(3, 5, dtype=tc.float64, generator=gen) - 0.5).to(device).requires_grad_()
    assert tc.autograd.gradcheck(lambda a, b: tc.cosine_similarity(a, b, 0), (x, y))


@pytest.mark.parametrize("dtype", [tc.float64, tc.float32, tc.int64])
def test_trapezoid_rules_match_numpy_and_scipy(device: str, dtype: tc.dtype) -> None:
    from scipy.integrate import cumulative_trapezoid as scipy_cumulative

    rng = np.random.default_rng(3)
    y = (rng.standard_normal((3, 6)) * 4).astype(np.float64)
    if not dtype.is_floating_point:
        y = np.round(y)
    x = np.cumsum(rng.random(6))
    ty = tc.tensor(y, dtype=dtype, device=device)
    tx = tc.tensor(x, dtype=tc.float64, device=device)
    tol: dict[str, Any] = {"check_dtype": dtype is tc.float64}
    if dtype is not tc.float64:
        tol.update(rtol=1e-5, atol=1e-5)
    for fn in (tc.trapezoid, tc.trapz):
        assert_close(fn(ty), np.trapezoid(y), **tol)
        assert_close(fn(ty, dx=0.25, dim=0), np.trapezoid(y, dx=0.25, axis=0), **tol)
        assert_close(fn(ty, tx), np.trapezoid(y, x), **tol)
    assert_close(tc.cumulative_trapezoid(ty), scipy_cumulative(y), **tol)
    assert_close(tc.cumulative_trapezoid(ty, tx), scipy_cumulative(y, x), **tol)
    assert_close(tc.cumulative_trapezoid(ty, dx=2, dim=0), scipy_cumulative(y, dx=2, axis=0), **tol)
    # integers integrate in the default dtype; no sample, one sample: zeros
    assert tc.trapezoid(tc.tensor([1, 2, 3], device=device)).dtype == tc.float32
    assert tc.trapezoid(tc.zeros(2, 0, device=device)).tolist() == [0.0, 0.0]
    assert tc.cumulative_trapezoid(tc.ones(2, 1, device=device)).shape == (2, 0)


def test_trapezoid_errors_are_pytorchs(device: str) -> None:
    y = tc.ones(3, device=device)
    with pytest.raises(RuntimeError, match="There must be one `x` value for each sample point"):
        tc.trapezoid(y, tc.ones(2, device=device))
    with pytest.raises(RuntimeError, match="received a bool input for `y`"):
        tc.trapezoid(y.bool())
    with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no dimensions"):
        tc.trapezoid(tc.tensor(1.0, device=device))
    with pytest.raises(TypeError, match="x and dx"):
        tc.trapezoid(y, tc.ones(3, device=device), dx=1.0)


def test_chain_matmul_is_multi_dot_with_pytorchs_warning(
    device: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tensorcore.ops import composite_stats

    monkeypatch.setattr(composite_stats, "_WARNED", set())
    a, b, c = (tc.randn(*s, dtype=tc.float64, device=device) for s in ((2, 3), (3, 4), (4, 2)))
    with pytest.warns(UserWarning, match="torch.chain_matmul is deprecated"):
        got = tc.chain_matmul(a, b, c)
    assert_close(got, (a.cpu().numpy() @ b.cpu().numpy()) @ c.cpu().numpy())


def _mode_oracle(a: np.ndarray) -> tuple[Any, Any]:
    """Per row of ``a``: the smallest most frequent value, the index of its last occurrence."""
    vals, idxs = [], []
    for row in a.reshape(-1, a.shape[-1]):
        uniq, counts = np.unique(row, return_counts=True)
        v = uniq[np.argmax(counts)]
        vals.append(v)
        idxs.append(np.nonzero(row == v)[0][-1])
    shape = a.shape[:-1]
    return np.array(vals, dtype=a.dtype).reshape(shape), np.array(idxs).reshape(shape)


@pytest.mark.parametrize("dtype", [tc.float32, tc.int64, tc.bool])
def test_mode_matches_numpy(device: str, dtype: Any) -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, size=(3, 5, 7)).astype(np.dtype(str(dtype).split(".")[-1]))
    t = tc.tensor(a, device=device)
    for dim in (-1, 0, 1):
        moved = np.moveaxis(a, dim, -1)
        want_v, want_i = _mode_oracle(moved)
        got = tc.mode(t, dim)
        assert type(got).__name__ == "mode"
        assert_close(got.values, want_v)
        assert_close(got.indices, want_i)
        kept = t.mode(dim, keepdim=True)
        assert_close(kept.values, np.expand_dims(want_v, dim))
    v, i = tc.mode(tc.tensor(2.0, device=device))
    assert v.item() == 2.0 and i.item() == 0
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        tc.mode(tc.ones(0, device=device))


def test_histogram_matches_numpy(device: str) -> None:
    a = np.random.default_rng(1).normal(size=(40, 5)) * 3
    w = np.random.default_rng(2).uniform(size=(40, 5))
    t = tc.tensor(a, device=device)
    for kwargs in [{}, {"range": (-2.0, 3.0)}, {"density": True}]:
        h = tc.histogram(t, 7, **kwargs)
        want_h, want_e = np.histogram(a, 7, **kwargs)
        assert type(h).__name__ == "histogram"
        assert_close(h.hist, want_h.astype(np.float64))
        assert_close(h.bin_edges, want_e)
    edges = np.array([-5.0, -1.0, 0.0, 0.5, 4.0])
    h = t.histogram(tc.tensor(edges, device=device), weight=tc.tensor(w, device=device))
    assert_close(h.hist, np.histogram(a, edges, weights=w)[0])
    h1 = tc.histogram(tc.tensor([1.0, 1.0, 1.0], device=device), 2)
    assert_close(h1.bin_edges, [0.5, 1.0, 1.5])
    assert_close(h1.hist, [0.0, 3.0])
    with pytest.raises(RuntimeError, match="min should not exceed max"):
        tc.histogram(t, 2, range=(3.0, 1.0))


def _stable_order_statistic(a: np.ndarray, dim: int, name: str, k: int = 1) -> Any:
    """NumPy oracle: (values, indices) of median / nanmedian / kthvalue along ``dim`` from a
    stable ascending sort (NaN last), as PyTorch picks them."""
    moved = np.moveaxis(a, dim, -1)
    order = np.argsort(moved, axis=-1, kind="stable")
    n = moved.shape[-1]
    valid = n - np.isnan(moved).sum(-1, keepdims=True)
    if name == "median":
        pos = np.where(valid < n, valid, (n - 1) // 2)
    elif name == "nanmedian":
        pos = np.maximum(valid - 1, 0) // 2
    else:
        pos = np.full(valid.shape, k - 1)
    idx = np.take_along_axis(order, pos, -1)
    return np.take_along_axis(moved, idx, -1)[..., 0], idx[..., 0]


@pytest.mark.parametrize("name", ["median", "nanmedian", "kthvalue"])
def test_order_statistics_along_a_dim_match_a_stable_sort(device: str, name: str) -> None:
    # one kernel each (``median_dim``...): ties by the stable order, NaN sorting last, a
    # transposed input, keepdim; the gradient goes to the element at the index, one node
    rng = np.random.default_rng(1)
    a = rng.integers(0, 5, size=(4, 6, 5)).astype(np.float64)
    a[0, 0, :] = np.nan
    a[1, :2, 3] = np.nan
    for t in (tc.tensor(a, device=device), tc.tensor(a.T.copy(), device=device).T):
        for dim in (0, 1, -1):
            for keepdim in (False, True):
                args = (3, dim, keepdim) if name == "kthvalue" else (dim, keepdim)
                got = getattr(t, name)(*args)
                assert type(got).__name__ == name
                want_v, want_i = _stable_order_statistic(a, dim, name, 3)
                if keepdim:
                    want_v, want_i = np.expand_dims(want_v, dim), np.expand_dims(want_i, dim)
                np.testing.assert_array_equal(got.values.cpu().numpy(), want_v)
                np.testing.assert_array_equal(got.indices.cpu().numpy(), want_i)
    w = tc.tensor(a, device=device, requires_grad=True)
    r = getattr(w, name)(*((3, 1) if name == "kthvalue" else (1,)))
    assert type(r.values.grad_fn).__name__.startswith(name.capitalize())
    assert r.values.grad_fn.next_functions[0][0].name().endswith("AccumulateGrad")
    r.values.sum().backward()
    want = np.zeros_like(a)
    np.put_along_axis(want, r.indices.cpu().numpy()[:, None, :], 1.0, 1)
    np.testing.assert_array_equal(w.grad.cpu().numpy(), want)


def test_mode_of_nans_is_the_last_nan(device: str) -> None:
    # every NaN is a run of its own: a row of NaNs only has NaN as its mode, at the last NaN
    # (the composite of operators raised an index error there)
    t = tc.tensor([[float("nan")] * 3, [1.0, float("nan"), 1.0]], device=device)
    got = t.mode(1)
    v = got.values.cpu().numpy()
    assert np.isnan(v[0]) and v[1] == 1.0
    assert got.indices.tolist() == [2, 2]
