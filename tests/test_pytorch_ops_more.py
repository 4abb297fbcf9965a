"""Operators that public PyTorch programs call and tensorcore lacked: ``where(condition)``,
``nonzero(as_tuple=True)``, ``diag``, ``index_add_``, ``addcmul``, ``cdist``, the in-place
view changes (``unsqueeze_``...) and the random state. Each test compares with NumPy (or a
value computed by hand) on every device; the generic tests (samples, gradcheck, fuzz) cover
the new operators' other properties."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close


def test_where_alone_and_nonzero_as_tuple_give_index_tensors(device: str) -> None:
    a = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])
    x = tc.tensor(a, device=device)
    rows, cols = tc.where(x > 0)
    want = np.nonzero(a > 0)
    assert_close(rows, want[0])
    assert_close(cols, want[1])
    assert rows.dtype == tc.int64 and rows.is_contiguous()
    for got in (x.nonzero(as_tuple=True), tc.nonzero(x, as_tuple=True)):
        assert isinstance(got, tuple) and len(got) == 2
        assert_close(got[0], want[0])
        assert_close(got[1], want[1])
    assert_close(x[tc.where(x > 0)], a[a > 0])
    assert_close(tc.nonzero(x), np.argwhere(a))
    assert_close(tc.argwhere(x), np.argwhere(a))
    # A 0-d tensor counts as 1-D, as in PyTorch.
    (only,) = tc.tensor(5.0, device=device).nonzero(as_tuple=True)
    assert only.tolist() == [0]
    assert tuple(tc.tensor(5.0, device=device).nonzero().shape) == (1, 0)
    # The three-argument form is unchanged; two arguments are refused.
    assert_close(tc.where(x > 0, x, -1.0), np.where(a > 0, a, -1.0))
    with pytest.raises(TypeError, match=r"where\(\) missing 1 required argument: 'other'"):
        tc.where(x > 0, x)


def test_diag_and_diag_embed(device: str) -> None:
    v = np.array([1.0, 2.0, 3.0])
    m = np.arange(12.0).reshape(3, 4)
    for k in (0, 1, -2):
        assert_close(tc.diag(tc.tensor(v, device=device), k), np.diag(v, k))
        assert_close(tc.tensor(m, device=device).diag(k), np.diag(m, k))
    b = np.arange(6.0).reshape(2, 3)
    got = tc.diag_embed(tc.tensor(b, device=device), 1, 0, 2)
    want = np.zeros((4, 2, 4))
    for i in range(2):
        want[:, i, :] = np.diag(b[i], 1)
    assert_close(got, want)
    # NaN stays on the diagonal (a product with the identity would spread it).
    nan = tc.diag(tc.tensor([np.nan, 1.0], device=device))
    assert nan.isnan().sum().item() == 1
    with pytest.raises(RuntimeError, match=r"diag\(\): Supports 1D or 2D tensors. Got 3D"):
        tc.diag(tc.zeros(1, 1, 1, device=device))
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical"):
        tc.diag_embed(tc.zeros(2, device=device), 0, 1, 1)


def test_masked_select_broadcasts(device: str) -> None:
    a = np.arange(6.0).reshape(2, 3)
    mask = np.array([True, False, True])
    got = tc.masked_select(tc.tensor(a, device=device), tc.tensor(mask, device=device))
    assert_close(got, a[np.broadcast_to(mask, a.shape)])
    with pytest.raises(RuntimeError, match="expected BoolTensor for mask"):
        tc.masked_select(tc.ones(3, device=device), tc.ones(3, device=device))


def test_index_add_copy_fill(device: str) -> None:
    a = np.ones((3, 2))
    src = np.arange(6.0).reshape(3, 2)
    idx = np.array([2, 0, 2])
    x = tc.tensor(a, device=device)
    assert (
        x.index_add_(0, tc.tensor(idx, device=device), tc.tensor(src, device=device), alpha=2) is x
    )
    want = a.copy()
    np.add.at(want, idx, 2 * src)
    assert_close(x, want)
    got = tc.index_copy(
        tc.tensor(a, device=device),
        1,
        tc.tensor([1], device=device),
        tc.zeros(3, 1, dtype=tc.float64, device=device),  # (of self's dtype, as PyTorch wants)
    )
    assert_close(got, np.array([[1.0, 0.0]] * 3))
    y = tc.tensor(a, device=device)
    y.index_fill_(1, tc.tensor([0], device=device), -1.0)
    assert_close(y, np.array([[-1.0, 1.0]] * 3))
    with pytest.raises(RuntimeError, match="Expected dtype int32/int64 for index"):
        x.index_add_(0, tc.tensor([0.0], device=device), tc.ones(1, 2, device=device))
    with pytest.raises(RuntimeError, match=r"Number of indices \(2\) should be equal"):
        x.index_add_(0, tc.tensor([0, 1], device=device), tc.ones(3, 2, device=device))


def test_index_add_and_copy_refuse_indices_out_of_range_before_writing(device: str) -> None:
    # PyTorch (CPU): index_add takes [0, size) only (RuntimeError), index_copy too
    # (IndexError), index_fill also [-size, 0); a negative index used to wrap silently.
    a = np.arange(12.0).reshape(3, 4)
    src = tc.ones(2, 4, dtype=tc.float64, device=device)
    for bad, dim, n in (([0, -1], 0, 3), ([1, 3], 0, 3), ([-1, 0], 1, 4)):
        idx = tc.tensor(bad, device=device)
        s = src if dim == 0 else tc.ones(3, 2, dtype=tc.float64, device=device)
        first = next(i for i in bad if not 0 <= i < n)
        msg = f"index {first} is out of bounds for dimension {dim} with size {n}"
        x = tc.tensor(a, device=device)
        with pytest.raises(RuntimeError, match=msg):
            x.index_add_(dim, idx, s)
        with pytest.raises(RuntimeError, match=msg):
            tc.index_add(x, dim, idx, s)
        with pytest.raises(IndexError, match=r"index_copy_\(\): " + msg):
            x.index_copy_(dim, idx, s)
        assert_close(x, a)  # nothing written
    x = tc.tensor(a, device=device)
    assert_close(x.index_fill(0, tc.tensor([-1], device=device), -1.0)[2], [-1.0] * 4)
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 0 with size 3"):
        x.index_fill_(0, tc.tensor([-4], device=device), -1.0)
    assert_close(x, a)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.complex64, np.bool_])
def test_index_add_and_accumulating_index_put_of_rows(device: str, dtype: Any) -> None:
    # Rows of >= 32 elements take whole-row adds on NumPy: unique indices at once, repeated
    # ones in rounds (at most 32), the values past those summed per index; all as np.add.at.
    rng = np.random.default_rng(0)
    a = rng.standard_normal((7, 8, 6)) * 4
    a = (a > 0) if dtype is np.bool_ else a.astype(dtype)
    unique, repeated, many = rng.permutation(8)[:5], rng.integers(0, 5, 12), np.zeros(20, int)
    most = rng.permutation(np.r_[np.zeros(40, int), np.ones(33, int), np.arange(2, 6)])
    for dim in (0, 1, 2):
        for idx in (unique, repeated, many, most, np.array([], int)):
            idx = idx % a.shape[dim]
            shape = list(a.shape)
            shape[dim] = idx.size
            src = rng.standard_normal(shape) * 4
            src = (src > 0) if dtype is np.bool_ else src.astype(dtype)
            want = a.copy()
            np.add.at(want, (slice(None),) * dim + (idx,), src)
            x, i, s = (tc.tensor(v, device=device) for v in (a, idx, src))
            assert_close(x.index_add(dim, i, s), want)
            t = tc.tensor(np.ascontiguousarray(a.transpose(2, 1, 0)), device=device)
            got = t.transpose(0, 2).index_add_(dim, i, s)  # a non-contiguous self
            assert_close(got, want)
            assert_close(t.transpose(0, 2), want)
    # index_put: negative indices, an index tensor of 2 dims, a value that broadcasts.
    idx = np.array([[-1, 2], [6, 2]])
    v = np.ones((1, 8, 6), dtype)
    want = a.copy()
    np.add.at(want, idx, np.broadcast_to(v, (2, 2, 8, 6)))
    x = tc.tensor(a, device=device)
    got = x.index_put((tc.tensor(idx, device=device),), tc.tensor(v, device=device), True)
    assert_close(got, want)
    with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 0 with size 7"):
        x.index_put_((tc.tensor([0, 7, 0], device=device),), tc.tensor(v, device=device), True)
    assert_close(x, a)  # (nothing written)


def test_addcmul_addcdiv_and_their_inplace_forms(device: str) -> None:
    a, b, c = (np.linspace(1.0, 2.0, 6).reshape(2, 3) + i for i in range(3))
    ta, tb, tc_ = (tc.tensor(v, device=device) for v in (a, b, c))
    assert_close(tc.addcmul(ta, tb, tc_, value=0.5), a + 0.5 * b * c)
    assert_close(tc.addcdiv(ta, tb, tc_, value=-2), a - 2 * b / c)
    x = ta.clone()
    assert x.addcdiv_(tb, tc_) is x
    assert_close(x, a + b / c)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        tc.addcdiv(ta, tc.ones(3, dtype=tc.int64, device=device), tb)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        tc.ones(3, dtype=tc.int64, device=device).addcmul_(tb[0], tc_[0])
    # The in-place form records a graph like the out-of-place one (Adam written by hand).
    w = tc.tensor(a, device=device, requires_grad=True)
    y = w * 1.0
    y.addcmul_(w, w, value=2.0)
    y.sum().backward()
    assert_close(w.grad, 1 + 4 * a)


def test_clamp_min_and_clamp_max(device: str) -> None:
    a = np.array([-2.0, 0.5, 3.0])
    x = tc.tensor(a, device=device)
    assert_close(tc.clamp_min(x, 0.0), np.maximum(a, 0.0))
    assert_close(x.clamp_max(1.0), np.minimum(a, 1.0))
    assert x.clamp_min_(0.0) is x
    assert_close(x, np.maximum(a, 0.0))


def test_bincount(device: str) -> None:
    v = np.array([1, 1, 3, 0, 3, 3])
    w = np.linspace(0.5, 1.0, 6)
    x = tc.tensor(v, device=device)
    assert_close(tc.bincount(x), np.bincount(v))
    assert tc.bincount(x).dtype == tc.int64
    assert_close(x.bincount(tc.tensor(w, device=device)), np.bincount(v, w))
    assert_close(tc.bincount(x, minlength=7), np.bincount(v, minlength=7))
    assert tc.bincount(x, tc.ones(6, dtype=tc.int32, device=device)).dtype == tc.float64
    assert tc.bincount(tc.zeros(0, dtype=tc.int64, device=device), minlength=2).tolist() == [0, 0]
    with pytest.raises(RuntimeError, match="1-d non-negative integral inputs"):
        tc.bincount(tc.tensor([1, -1], device=device))
    with pytest.raises(NotImplementedError, match="\"bincount\" not implemented for 'Float'"):
        tc.bincount(tc.ones(2, device=device))


def test_baddbmm_and_addbmm(device: str) -> None:
    rng = np.random.default_rng(0)
    s, b1, b2 = rng.random((2, 3, 4)), rng.random((2, 3, 5)), rng.random((2, 5, 4))
    t = [tc.tensor(v, device=device) for v in (s, b1, b2)]
    assert_close(tc.baddbmm(*t, beta=0.5, alpha=2), 0.5 * s + 2 * (b1 @ b2))
    assert_close(tc.addbmm(t[0][0], t[1], t[2]), s[0] + (b1 @ b2).sum(0))
    nan = tc.full((2, 3, 4), float("nan"), dtype=tc.float64, device=device)
    assert_close(tc.baddbmm(nan, t[1], t[2], beta=0), b1 @ b2)
    x = t[0].clone()
    assert x.baddbmm_(t[1], t[2]) is x
    assert_close(x, s + b1 @ b2)


@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.5, float("inf")])
def test_cdist_matches_numpy(device: str, p: float) -> None:
    rng = np.random.default_rng(1)
    a, b = rng.random((2, 30, 3)), rng.random((2, 4, 3))
    diff = a[:, :, None, :] - b[:, None, :, :]
    if p == 0:
        want = (diff != 0).sum(-1).astype(float)
    elif p == float("inf"):
        want = np.abs(diff).max(-1)
    else:
        want = (np.abs(diff) ** p).sum(-1) ** (1 / p)
    got = tc.cdist(tc.tensor(a, device=device), tc.tensor(b, device=device), p=p)
    assert_close(got, want, rtol=1e-6, atol=1e-6)
    for mode in ("use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        if p == 2:
            got = tc.cdist(
                tc.tensor(a, device=device), tc.tensor(b, device=device), compute_mode=mode
            )
            assert_close(got, want, rtol=1e-6, atol=1e-6)
    with pytest.raises(RuntimeError, match="X1 and X2 must have the same number of columns"):
        tc.cdist(tc.ones(2, 3, device=device), tc.ones(2, 2, device=device))
    with pytest.raises(RuntimeError, match="only supports non-negative p values"):
        tc.cdist(tc.ones(2, 3, device=device), tc.ones(2, 3, device=device), p=-1)
    for d1, d2, which in ((tc.int64, tc.int64, "X1"), (tc.float32, tc.int64, "X2")):
        with pytest.raises(RuntimeError, match=f"only supports floating-point dtypes, {which} got"):
            tc.cdist(tc.ones(2, 3, dtype=d1, device=device), tc.ones(2, 3, dtype=d2, device=device))


def test_inplace_composites_name_their_node(device: str) -> None:
    x = tc.ones(3, device=device, requires_grad=True)
    for call, name in (
        (lambda y: y.addcmul_(x, x, value=3), "AddcmulBackward0"),
        (lambda y: y.addcdiv_(x, x + 1), "AddcdivBackward0"),
        (lambda y: y.clamp_min_(0.5), "ClampMinBackward0"),
    ):
        y = x * 2
        assert call(y).grad_fn.name() == name
    y = x * 2
    y.addcmul_(x, x, value=3)
    y.sum().backward()
    assert x.grad.tolist() == [8.0, 8.0, 8.0]  # 2 + 3 * 2x


def test_ravel_ndimension_swapdims(device: str) -> None:
    a = np.arange(6.0).reshape(2, 3)
    x = tc.tensor(a, device=device)
    assert_close(x.t().ravel(), a.T.ravel())
    assert tc.ravel(x).shape == (6,) and x.ndimension() == 2
    assert_close(x.swapdims(0, 1), a.T)
    assert_close(tc.swapdims(x, 0, 1), a.T)


def test_inplace_view_changes_keep_data_and_history(device: str) -> None:
    a = np.arange(6.0).reshape(2, 3)
    x = tc.tensor(a, device=device)
    storage = x.untyped_storage().data_ptr() if hasattr(x, "untyped_storage") else None
    assert x.unsqueeze_(0) is x and tuple(x.shape) == (1, 2, 3)
    assert tuple(x.squeeze_(0).shape) == (2, 3)
    x.t_()
    assert_close(x, a.T)
    x.transpose_(0, 1)
    assert_close(x, a)
    assert x.swapdims_(0, 1) is x and x.swapaxes_(0, 1) is x
    if storage is not None:
        assert x.untyped_storage().data_ptr() == storage
    with pytest.raises(RuntimeError, match=r"t_\(\) expects a tensor with <= 2 dimensions"):
        tc.zeros(1, 1, 1, device=device).t_()
    w = tc.tensor(a, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w.unsqueeze_(0)
    y = w * 2
    y.unsqueeze_(0).transpose_(1, 2)
    assert tuple(y.shape) == (1, 3, 2)
    (y * tc.arange(6.0, device=device).reshape(1, 3, 2)).sum().backward()
    assert_close(w.grad, 2 * np.arange(6.0).reshape(3, 2).T)


def test_rng_state_round_trip_replays_the_draws() -> None:
    tc.manual_seed(7)
    tc.randn(5)
    state = tc.get_rng_state()
    assert state.dtype == tc.uint8 and state.ndim == 1
    first = (tc.randn(20), tc.rand(3), tc.randint(0, 9, (4,)), tc.randperm(5))
    tc.set_rng_state(state)
    again = (tc.randn(20), tc.rand(3), tc.randint(0, 9, (4,)), tc.randperm(5))
    for x, y in zip(first, again, strict=True):
        assert tc.equal(x, y)
    # The saved state stays valid: restoring it twice replays twice.
    tc.set_rng_state(state)
    assert tc.equal(tc.randn(20), first[0])
    g = tc.Generator().manual_seed(1)
    s = g.get_state()
    a = tc.rand(4, generator=g)
    assert g.set_state(s) is g
    assert tc.equal(tc.rand(4, generator=g), a)
    with pytest.raises(TypeError, match=r"RNG state must be a tensorcore\.ByteTensor"):
        tc.set_rng_state(tc.zeros(3))
    with pytest.raises(TypeError, match=r"expected a tensorcore\.ByteTensor, but got int"):
        g.set_state(5)
    with pytest.raises(RuntimeError, match="expected a generator state of tensorcore"):
        tc.set_rng_state(tc.zeros(8, dtype=tc.uint8))


def test_a_rng_state_never_unpickles_other_classes() -> None:
    import pickle

    class Evil:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (print, ("unpickled",))

    bad = tc.tensor(list(pickle.dumps(("tensorcore-rng-state-1", 0, Evil()))), dtype=tc.uint8)
    with pytest.raises(RuntimeError, match="expected a generator state") as info:
        tc.set_rng_state(bad)
    assert "is not part of a generator's state" in str(info.value.__cause__)


def test_named_tuple_results_print_as_pytorch_prints_them(device: str) -> None:
    x = tc.tensor([[1.0, 5.0], [3.0, 2.0]], device=device)
    if device != "meta":
        assert repr(tc.max(x, 1)) == (
            "tensorcore.return_types.max(\nvalues=tensor([5., 3.]),\nindices=tensor([1, 0]))"
        ).replace("])", f"]{_dev(device)})")
    text = str(tc.sort(x))
    assert text.startswith("tensorcore.return_types.sort(\nvalues=tensor(")
    assert "\nindices=tensor(" in text and text.endswith(")")
    # A result type made from a signature prints the same way.
    assert repr(tc.linalg.slogdet(tc.eye(2, device=device))).startswith(
        "tensorcore.return_types.linalg_slogdet(\nsign="
    )
    values, indices = tc.max(x, 1)
    assert values.shape == (2,) and indices.dtype == tc.int64


def _dev(device: str) -> str:
    return "" if device == "cpu" else f", device='{tc.empty(0, device=device).device}'"
