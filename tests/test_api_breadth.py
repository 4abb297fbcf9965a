"""Names PyTorch programs call that are other spellings or small conveniences: the aliases
of ``schema/aliases.py`` (``absolute``, ``multiply``...), the in-place functions
(``torch.exp_(x)``), the Tensor predicates and the legacy forms."""

from __future__ import annotations

from typing import Any

import pytest

import tensorcore as tc
from tensorcore.ops.schema import ALIASES, INPLACE_FUNCTIONS, OPS
from tensorcore.testing import assert_close
from tensorcore.testing.samples import SAMPLES, call_op


def _flat(x: Any) -> list[Any]:
    return list(x) if isinstance(x, (tuple, list)) else [x]


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_an_alias_runs_its_operator(name: str, device: str) -> None:
    alias = ALIASES[name]
    decl = OPS[alias.target]
    for sample in SAMPLES[alias.target](device, tc.float64)[:3]:
        want = call_op(alias.target, sample)
        if alias.has("function"):
            got = getattr(tc, name)(*sample.args, **sample.kwargs)
            for g, w in zip(_flat(got), _flat(want), strict=True):
                assert_close(g, w, equal_nan=True)
        if alias.has("method"):
            self, *rest = sample.args
            got = getattr(self, name)(*rest, **sample.kwargs)
            for g, w in zip(_flat(got), _flat(want), strict=True):
                assert_close(g, w, equal_nan=True)
        if alias.has("inplace") and want.dtype == sample.args[0].dtype:
            self, *rest = sample.args
            if want.shape == self.shape:
                copy = self.clone()
                assert getattr(copy, name + "_")(*rest, **sample.kwargs) is copy
                assert_close(copy, want, equal_nan=True)
    fn = getattr(tc, name, None) if alias.has("function") else getattr(tc.Tensor, name)
    assert fn.__name__ == name and f":func:`{decl.name}`" in fn.__doc__


def test_an_alias_records_its_operators_node() -> None:
    x = tc.tensor([-1.5, 2.0], requires_grad=True)
    assert type(tc.absolute(x).grad_fn).__name__ == "AbsBackward0"
    assert type(x.multiply(2).grad_fn).__name__ == "MulBackward0"
    assert type(tc.fix(x).grad_fn).__name__ == "TruncBackward0"
    (g,) = tc.autograd.grad(tc.subtract(x, 1, alpha=2).sum() + tc.arctan2(x, x).sum(), x)
    assert g.tolist() == [1.0, 1.0]
    assert tc.divide(x, 2, rounding_mode="floor").tolist() == [-1.0, 1.0]
    assert x.greater_equal(2).tolist() == [False, True]
    assert tc.concatenate([x, x], 0).shape == (4,)
    with pytest.raises(TypeError, match="absolute"):
        tc.absolute(x, 1)


@pytest.mark.parametrize("name", sorted(INPLACE_FUNCTIONS))
def test_an_inplace_function_writes_its_first_argument(name: str, device: str) -> None:
    target = ALIASES[name].target if name in ALIASES else name
    fname = name if name.endswith("_") else name + "_"
    fn = getattr(tc, fname)
    assert fn.__name__ == fname
    for sample in SAMPLES[target](device, tc.float64)[:2]:
        self, *rest = sample.args
        copy = self.clone()
        if target.endswith("_"):
            want = getattr(self.clone(), target)(*rest, **sample.kwargs)
        else:
            want = call_op(target, sample)
            if want.shape != self.shape or want.dtype != self.dtype:
                continue
        assert fn(copy, *rest, **sample.kwargs) is copy
        assert_close(copy, want, equal_nan=True)


def test_inplace_functions_take_input_by_keyword() -> None:
    x = tc.tensor([-1.0, 2.0])
    assert tc.relu_(input=x) is x and x.tolist() == [0.0, 2.0]
    tc.clamp_(x, max=1.0)
    assert x.tolist() == [0.0, 1.0]
    x.square_().clip_(0.5)
    assert x.tolist() == [0.5, 1.0]
    x.true_divide_(2)
    assert x.tolist() == [0.25, 0.5]
    with pytest.raises(TypeError, match="abs_"):
        tc.abs_(1.0)


# ------------------------------------------------------------------ Tensor predicates, legacy
def test_tensor_predicates(device: str) -> None:
    x = tc.arange(6.0, device=device).reshape(2, 3)
    assert x.is_signed() and not tc.ones(1, dtype=tc.uint8, device=device).is_signed()
    assert x.is_same_size(x * 2) and not x.is_same_size(x.t())
    assert not x.is_conj() and not x.is_neg() and x.resolve_conj() is x and x.resolve_neg() is x
    assert x.is_meta == (device == "meta")
    assert not (x.is_mps or x.is_xpu or x.is_xla or x.is_quantized or x.is_nested)
    assert tc.is_floating_point(x) and not tc.is_complex(x) and tc.is_signed(x)
    assert tc.is_same_size(x, x) and not tc.is_inference(x)
    assert x.conj_physical() is x
    assert x.dim_order() == (0, 1) and x.t().dim_order() == (1, 0)
    assert x.storage_type().__name__ == "FloatStorage"


def test_is_nonzero_needs_one_element() -> None:
    assert tc.tensor([3]).is_nonzero() and not tc.is_nonzero(tc.tensor(0.0))
    with pytest.raises(RuntimeError, match="no values is ambiguous"):
        tc.tensor([]).is_nonzero()
    with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
        tc.ones(2).is_nonzero()


def test_conj_physical_of_complex() -> None:
    z = tc.tensor([1 + 2j])
    assert tc.conj_physical(z).tolist() == [1 - 2j]
    z.conj_physical_()
    assert z.tolist() == [1 - 2j]


def test_legacy_new(device: str) -> None:
    x = tc.zeros(2, dtype=tc.int32, device=device)
    assert x.new(2, 3).shape == (2, 3) and x.new(2, 3).dtype == tc.int32
    assert x.new(tc.Size([4])).shape == (4,) and x.new().shape == (0,)
    assert x.new(2).device == x.device
    if device != "meta":
        assert x.new([1, 2]).tolist() == [1, 2] and x.new((5, 6)).tolist() == [5, 6]
    y = tc.ones(2, dtype=tc.int32, device=device)
    assert x.new(y).untyped_storage() is y.untyped_storage()
    with pytest.raises(TypeError, match="data must be a sequence"):
        x.new(2.5)
    with pytest.raises(TypeError, match="dtype"):
        x.new(tc.ones(2, device=device))
    s = x.new_empty_strided((2, 3), (1, 2))
    assert s.stride() == (1, 2) and s.dtype == tc.int32


def test_apply_map_map2_run_python_on_cpu() -> None:
    x = tc.tensor([1, 2])
    assert x.apply_(lambda v: v * 10) is x and x.tolist() == [10, 20]
    x.map_(tc.tensor([3, 4]), lambda a, b: a + b)
    assert x.tolist() == [13, 24]
    x.map2_(tc.tensor([1, 1]), tc.tensor(2), lambda a, b, c: a - b * c)
    assert x.tolist() == [11, 22]


def test_resize_keeps_or_grows_the_storage() -> None:
    x = tc.arange(6.0)
    assert x.resize_(2, 2) is x and x.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    x.resize_(3, 3)
    assert x.shape == (3, 3) and x.is_contiguous() and x[:2].reshape(-1)[:6].tolist() == [
        0.0, 1.0, 2.0, 3.0, 4.0, 5.0,
    ]  # fmt: skip
    y = tc.zeros(4).resize_as_(tc.ones(2, 2))
    assert y.shape == (2, 2)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        tc.ones(2, requires_grad=True).resize_(4)


def test_sum_to_size() -> None:
    x = tc.arange(6.0).reshape(2, 3)
    assert x.sum_to_size(1, 3).tolist() == [[3.0, 5.0, 7.0]]
    assert x.sum_to_size((3,)).tolist() == [3.0, 5.0, 7.0]
    assert x.sum_to_size(2, 1).tolist() == [[3.0], [12.0]]
    with pytest.raises(RuntimeError, match="is not expandable to size"):
        x.sum_to_size(2)


# ------------------------------------------------------------------ the composites' errors
def test_composite_errors_are_pytorchs() -> None:
    with pytest.raises(IndexError, match="tried to access index 6 on a tensor of 6"):
        tc.take(tc.arange(6.0), tc.tensor([6]))
    with pytest.raises(RuntimeError, match="1D tensors expected, but got 2D and 2D"):
        tc.vdot(tc.ones(2, 2), tc.ones(2, 2))
    with pytest.raises(RuntimeError, match="the last dimension must match"):
        tc.inner(tc.ones(2, 3), tc.ones(2))
    with pytest.raises(RuntimeError, match="only supports boolean masks"):
        tc.zeros(2).masked_scatter(tc.ones(2), tc.ones(2))
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones"):
        tc.zeros(3).masked_scatter(tc.ones(3, dtype=tc.bool), tc.ones(2))
    with pytest.raises(RuntimeError, match="isneginf does not support complex inputs"):
        tc.isneginf(tc.tensor([1j]))
    with pytest.raises(RuntimeError, match="Expected src to have a size equal to the slice"):
        tc.select_scatter(tc.zeros(2, 3), tc.ones(2), 0, 0)
    with pytest.raises(TypeError, match="must be Tensor, not int"):
        tc.gcd(tc.tensor([4]), 6)


def test_inplace_composites_and_scatter_gradients() -> None:
    x = tc.zeros(2, 3)
    x.masked_scatter_(tc.tensor([True, False, True]), tc.arange(6.0))
    assert x.tolist() == [[0.0, 0.0, 1.0], [2.0, 0.0, 3.0]]
    g = tc.tensor([12, 18])
    g.gcd_(tc.tensor([8, 12]))
    assert g.tolist() == [4, 6] and tc.lcm(tc.tensor([4, 0]), tc.tensor([6, 3])).tolist() == [12, 0]
    a = tc.zeros(3, 3, dtype=tc.float64, requires_grad=True)
    b = tc.ones(3, dtype=tc.float64, requires_grad=True)
    for fn in (
        lambda a, b: tc.select_scatter(a, b, 1, 0),
        lambda a, b: tc.diagonal_scatter(a, b),
        lambda a, b: tc.slice_scatter(a, b.unsqueeze(0), 0, 1, 2),
        lambda a, b: tc.as_strided_scatter(a, b, (3,), (4,), 0),
    ):
        assert tc.autograd.gradcheck(fn, (a, b))


# ------------------------------------------------------------------ torch-level functions
def test_torch_level_utilities() -> None:
    assert tc.typename(tc.ones(1, dtype=tc.int64)) == "tensorcore.LongTensor"
    assert tc.typename(3) == "int"
    assert tc.scalar_tensor(2).dtype == tc.float32 and tc.scalar_tensor(2).item() == 2.0
    assert tc.vander(tc.tensor([1, 2, 3])).tolist() == [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    assert tc.vander(tc.tensor([1.0, 2.0]), 3, increasing=True).tolist() == [
        [1.0, 1.0, 1.0], [1.0, 2.0, 4.0],
    ]  # fmt: skip
    rows, cols = tc.unravel_index(tc.tensor([4, 5, -1]), (2, 3))
    assert rows.tolist() == [1, 1, 1] and cols.tolist() == [1, 2, 2]
    assert tc.fill(tc.zeros(2), 3.0).tolist() == [3.0, 3.0]
    assert tc.frombuffer(bytearray(b"\x01\x00\x02\x00"), dtype=tc.int16).tolist() == [1, 2]
    x = tc.ones(2)
    assert tc.asarray(x) is x and tc.asarray(x, copy=True) is not x
    assert tc.empty_strided((2, 3), (1, 2)).stride() == (1, 2)
    assert tc.randint_like(tc.zeros(3), 1, 2).tolist() == [1.0, 1.0, 1.0]
    assert tc.nuclear_norm(tc.eye(2)).item() == 2.0
    assert tc.frobenius_norm(tc.ones(2, 2), (0, 1)).item() == 2.0
    assert not tc.is_warn_always_enabled() and tc.set_flush_denormal(True) is False
    assert tc.vmap is tc.func.vmap
    v = tc.view_copy(tc.arange(4), (2, 2))
    assert v.tolist() == [[0, 1], [2, 3]] and v._base is None
    assert tc.permute_copy(tc.ones(2, 3), (1, 0)).shape == (3, 2)
    assert tc.slice_copy(tc.arange(5), 0, 1, 3).tolist() == [1, 2]
    assert [t.shape for t in tc.split_with_sizes(tc.ones(5), [2, 3])] == [(2,), (3,)]
    assert len(tc.ones(4).unsafe_chunk(2)) == 2


def test_set_default_tensor_type_warns() -> None:
    with pytest.warns(UserWarning, match="set_default_tensor_type"):
        tc.set_default_tensor_type(tc.DoubleTensor)
    try:
        assert tc.get_default_dtype() == tc.float64
    finally:
        tc.set_default_dtype(tc.float32)


def test_torch_level_layer_forms() -> None:
    F = tc.nn.functional
    x = tc.randn(4, 3, dtype=tc.float64)
    rm, rv = tc.zeros(3, dtype=tc.float64), tc.ones(3, dtype=tc.float64)
    w, b = tc.full((3,), 2.0, dtype=tc.float64), tc.ones(3, dtype=tc.float64)
    want = F.batch_norm(x, rm.clone(), rv.clone(), w, b, True, 0.1, 1e-5)
    assert_close(tc.batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5), want)  # (an operator)
    weight = tc.randn(5, 2)
    assert_close(tc.embedding(weight, tc.tensor([1, 4])), weight[tc.tensor([1, 4])])
    y = x.softmax(-1)
    assert_close(tc.kl_div(x, y, 2), F.kl_div(x, y, reduction="sum"))
    with pytest.raises(TypeError, match="reduction"):
        tc.kl_div(x, y, "sum")
    assert tc.conv1d(tc.ones(1, 1, 4), tc.ones(1, 1, 2)).tolist() == [[[2.0, 2.0, 2.0]]]
    assert tc.dropout(x, 0.5, False) is x
    assert tc.celu(tc.tensor([-1.0]), 1.0).tolist() == F.celu(tc.tensor([-1.0])).tolist()


def test_functional_additions() -> None:
    F = tc.nn.functional
    x = tc.randn(40000)
    y = F.alpha_dropout(x, 0.2, training=True)
    assert abs(float(y.mean())) < 0.05 and abs(float(y.std()) - 1) < 0.05
    assert F.alpha_dropout(x, 0.2) is x
    z = F.feature_alpha_dropout(tc.ones(2, 8, 3), 0.5, training=True)
    assert bool((z == z[:, :, :1]).all())
    a, b = tc.randn(2, 3, dtype=tc.float64), tc.randn(2, 4, dtype=tc.float64)
    w, bias = tc.randn(5, 3, 4, dtype=tc.float64), tc.randn(5, dtype=tc.float64)
    want = tc.einsum("bi,oij,bj->bo", a, w, b) + bias
    assert_close(F.bilinear(a, b, w, bias), want)
    assert_close(tc.bilinear(a, b, w, bias), want)
    values, indices = F.max_pool1d_with_indices(tc.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    assert values.tolist() == [[[3.0, 2.0]]] and indices.tolist() == [[[1, 2]]]
    v = tc.tensor([-1.0, 2.0])
    assert F.selu_(v) is v and v[1].item() == pytest.approx(2.1014018)
    with pytest.warns(UserWarning, match="upsample_nearest` is deprecated"):
        assert F.upsample_nearest(tc.ones(1, 1, 2, 2), scale_factor=2).shape == (1, 1, 4, 4)


# ------------------------------------------------------------------ varargs, view(dtype)
def test_an_only_int_list_argument_may_be_spread_out(device: str) -> None:
    x = tc.ones(2, 1, 3, 1, device=device)
    assert x.flip(0, 1).shape == x.shape
    assert x.squeeze(1, 3).shape == (2, 3) and x.squeeze(1).shape == (2, 3, 1)
    assert x.squeeze().shape == (2, 3) and x.squeeze(dim=(1,)).shape == (2, 3, 1)
    assert x.tile(2, 2).shape == (2, 1, 6, 2)
    assert x.broadcast_to(2, 2, 1, 3, 1).shape == (2, 2, 1, 3, 1)
    assert x.flip([0]).shape == x.flip(dims=0).shape == x.shape
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'dims'"):
        x.flip()
    with pytest.raises(TypeError, match="multiple values for argument 'dims'"):
        x.flip(0, dims=1)
    with pytest.raises(TypeError):
        tc.flip(x, 0, 1)  # (functions take the list, as PyTorch's)


def test_view_as_another_dtype() -> None:
    assert tc.tensor([1.0]).view(tc.int32).tolist() == [1065353216]
    x = tc.arange(8, dtype=tc.int16).reshape(2, 4)
    y = x.view(tc.int64)
    assert y.shape == (2, 1) and y.untyped_storage() is x.untyped_storage()
    assert y.view(tc.int16).tolist() == x.tolist()
    assert tc.ones(2, 3).view(tc.float16).shape == (2, 6)
    with pytest.raises(RuntimeError, match=r"self.size\(-1\) must be divisible by 4"):
        tc.zeros(2, 3, dtype=tc.int16).view(tc.int64)
    with pytest.raises(RuntimeError, match=r"self.stride\(-1\) must be 1"):
        tc.zeros(4, 2, dtype=tc.int16).t().view(tc.int32)
    assert tc.ones(6).view(2, 3).shape == (2, 3)


def test_bernoulli_with_a_probability() -> None:
    x = tc.full((2000,), 0.9)
    y = x.bernoulli(0.5)
    assert y.shape == x.shape and 0.4 < float(y.mean()) < 0.6
    assert tc.bernoulli(x, p=0.0).sum().item() == 0


# ------------------------------------------------------------------ legacy linear algebra
def test_legacy_linear_algebra() -> None:
    a = tc.tensor([[4.0, 2.0], [2.0, 3.0]], dtype=tc.float64)
    with pytest.warns(UserWarning, match="torch.cholesky is deprecated"):
        low = tc.cholesky(a)
    assert_close(low @ low.mT, a)
    with pytest.warns(UserWarning, match="torch.cholesky is deprecated"):
        assert_close(a.cholesky(upper=True), low.mT)
    with pytest.warns(UserWarning, match="torch.qr is deprecated"):
        q, r = a.qr()
    assert_close(q @ r, a)
    for call in (lambda: tc.solve(a, a), lambda: a.lstsq(a), lambda: a.eig(), lambda: tc.symeig(a)):
        with pytest.raises(RuntimeError, match=r"deprecated since version 1\.9 and is now removed"):
            call()
    assert_close(tc.igamma(a, a) + a.igammac(a), tc.ones_like(a))
    m = tc.ones(2, 2, dtype=tc.float64)
    assert m.addmm_(a, a, beta=2) is m
    assert_close(m, 2 + a @ a)
    assert a.hardshrink(2.5).tolist() == [[4.0, 0.0], [0.0, 3.0]]
    assert tc.tensor([-2.0]).prelu(tc.tensor([0.5])).tolist() == [-1.0]


# ------------------------------------------------------------------ nn layers
def test_nn_layer_additions(device: str) -> None:
    nn = tc.nn
    x = tc.randn(2, 3, 4, device=device)
    assert nn.AlphaDropout(0.5).eval()(x) is x
    assert nn.FeatureAlphaDropout(0.5)(x).shape == x.shape
    assert issubclass(nn.LSTM, nn.RNNBase) and issubclass(nn.GRUCell, nn.RNNCellBase)
    assert isinstance(nn.NLLLoss2d(), nn.NLLLoss)
    m = nn.LazyInstanceNorm1d(device=device)
    assert m(x).shape == x.shape and type(m) is nn.InstanceNorm1d and m.weight.shape == (3,)
    wrapped = nn.DataParallel(nn.Linear(4, 2, device=device))
    assert wrapped(x).shape == (2, 3, 2) and next(iter(wrapped.state_dict())) == "module.weight"
    if device != "meta":
        vals, idx = tc.nn.functional.max_pool3d(
            tc.arange(8.0, device=device).reshape(1, 1, 2, 2, 2), 2, return_indices=True
        )
        out = nn.MaxUnpool3d(2)(vals, idx)
        assert out.reshape(-1).tolist() == [0.0] * 7 + [7.0]


def test_buffer_registers_on_assignment() -> None:
    m = tc.nn.Module()
    m.scale = tc.nn.Buffer(tc.ones(2))
    m.tmp = tc.nn.Buffer(tc.zeros(1), persistent=False)
    assert [n for n, _ in m.named_buffers()] == ["scale", "tmp"]
    assert list(m.state_dict()) == ["scale"]
    m.scale = tc.zeros(2)  # a plain tensor replaces the registered buffer
    assert m._buffers["scale"].tolist() == [0.0, 0.0]


def test_container_is_deprecated() -> None:
    with pytest.warns(UserWarning, match="nn.Container is deprecated"):
        c = tc.nn.Container(a=tc.nn.Linear(1, 1))
    assert isinstance(c.a, tc.nn.Linear)


def test_cross_map_lrn2d_follows_the_legacy_window() -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 6, 3, 3))
    for size in (3, 4):
        sq, pre = x * x, int((size - 1) / 2 + 1)
        scale = [sq[:, :pre].sum(1)]
        for c in range(1, 6):
            s = scale[-1].copy()
            if c < 6 - pre + 1:
                s += sq[:, c + pre - 1]
            if c > pre:
                s -= sq[:, c - pre]
            scale.append(s)
        want = x * (np.stack(scale, 1) * (1e-2 / size) + 1.0) ** -0.75
        got = tc.nn.CrossMapLRN2d(size, 1e-2, 0.75, 1.0)(tc.from_numpy(x))
        assert_close(got, tc.from_numpy(want))
    with pytest.raises(ValueError, match="Expected input to be 4D"):
        tc.nn.CrossMapLRN2d(3)(tc.ones(2, 3, 4))


# ------------------------------------------------------------------ linalg
def test_inv_ex_and_solve_ex_report_singular_matrices() -> None:
    a = tc.stack([tc.eye(2, dtype=tc.float64) * 2, tc.zeros(2, 2, dtype=tc.float64)])
    inverse, info = tc.linalg.inv_ex(a)
    assert info.tolist() == [0, 1] and info.dtype == tc.int32
    assert inverse[0].tolist() == [[0.5, 0.0], [0.0, 0.5]] and bool(inverse[1].isnan().all())
    result, info = tc.linalg.solve_ex(a, tc.ones(2, 2, 1, dtype=tc.float64))
    assert info.tolist() == [0, 1] and result[0].reshape(-1).tolist() == [0.5, 0.5]
    assert bool(result[1].isnan().all())
    with pytest.raises(tc.linalg.LinAlgError):
        tc.linalg.inv_ex(a, check_errors=True)
    inverse, info = tc.linalg.inv_ex(a[0])
    assert info.tolist() == 0 and inverse.shape == (2, 2)


def test_householder_product_is_orgqr() -> None:
    import numpy as np

    rng = np.random.default_rng(1)
    a, tau = rng.normal(size=(4, 3)), rng.uniform(size=2)
    q = np.eye(4)
    for i in range(2):
        v = np.where(np.arange(4) > i, a[:, i], 0.0)
        v[i] = 1.0
        q = q @ (np.eye(4) - tau[i] * np.outer(v, v))
    got = tc.linalg.householder_product(tc.from_numpy(a), tc.from_numpy(tau))
    assert_close(got, tc.from_numpy(q[:, :3]))
    assert tc.autograd.gradcheck(
        tc.linalg.householder_product,
        (tc.from_numpy(a).requires_grad_(), tc.from_numpy(tau).requires_grad_()),
    )
    with pytest.raises(RuntimeError, match="must be greater than or equal"):
        tc.linalg.householder_product(tc.ones(2, 3), tc.ones(1))


def test_top_level_extras_do_not_shadow_operators() -> None:
    from tensorcore.ops._api import FUNCTIONS

    assert not set(tc._EXTRAS) & set(FUNCTIONS)
    assert all(getattr(tc, n) is f for n, f in tc._EXTRAS.items())


# ------------------------------------------------------------------ orthogonal polynomials
def test_orthogonal_polynomials_match_scipy_and_their_closed_forms(device: str) -> None:
    import numpy as np
    import scipy.special as sps

    if device == "meta":
        pytest.skip("no data to compare")
    x = np.array([-1.0, -0.7, -0.2, 0.0, 0.35, 0.9, 1.0, 1.7])
    n = np.arange(13)
    xs, ns = np.meshgrid(x, n)
    tx, tn = tc.tensor(xs, device=device), tc.tensor(ns, device=device)
    S = tc.special
    theta = np.arccos(np.clip(xs, -1, 1))
    inside = np.abs(xs) < 1
    with np.errstate(all="ignore"):
        v = np.cos((ns + 0.5) * theta) / np.cos(theta / 2)
        w = np.sin((ns + 0.5) * theta) / np.sin(theta / 2)
    cases = [
        (S.chebyshev_polynomial_t, sps.eval_chebyt(ns, xs), None),
        (S.chebyshev_polynomial_u, sps.eval_chebyu(ns, xs), None),
        (S.chebyshev_polynomial_v, v, inside),
        (S.chebyshev_polynomial_w, w, inside),
        (S.hermite_polynomial_h, sps.eval_hermite(ns, xs), None),
        (S.hermite_polynomial_he, sps.eval_hermitenorm(ns, xs), None),
        (S.laguerre_polynomial_l, sps.eval_laguerre(ns, xs), None),
        (S.legendre_polynomial_p, sps.eval_legendre(ns, xs), None),
        (S.shifted_chebyshev_polynomial_t, sps.eval_sh_chebyt(ns, xs), None),
        (S.shifted_chebyshev_polynomial_u, sps.eval_sh_chebyu(ns, xs), None),
    ]
    for fn, want, where in cases:
        got = fn(tx, tn).cpu().numpy()
        if where is not None:
            got, want = got[where], want[where]
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9, err_msg=fn.__name__)
    assert S.chebyshev_polynomial_t(tx, -1).abs().sum().item() == 0
    y = S.legendre_polynomial_p(tc.tensor([0.5], requires_grad=True), 3)
    assert not y.requires_grad  # (PyTorch's have no gradient)
    assert S.chebyshev_polynomial_t(tc.tensor([1, 2]), 2).dtype == tc.float32


# ------------------------------------------------------------------ more legacy and small names
def test_more_top_level_names() -> None:
    with pytest.warns(UserWarning, match=r"torch\.range is deprecated"):
        assert tc.range(0, 1, 0.5).tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(RuntimeError, match=r"linalg\.matrix_rank"):
        tc.matrix_rank(tc.eye(2))
    assert tc.is_storage(tc.ones(1).untyped_storage()) and not tc.is_storage(tc.ones(1))
    assert not tc.is_vulkan_available() and tc.get_num_interop_threads() >= 1
    assert tc.constant_pad_nd(tc.ones(2), [1, 1], 5.0).tolist() == [5.0, 1.0, 1.0, 5.0]
    assert tc.empty_permuted((2, 3, 4), (0, 2, 1)).stride() == (12, 1, 3)
    assert tc.nonzero_static(tc.tensor([0, 1, 0, 1, 1]), size=2).tolist() == [[1], [3]]
    assert tc.ones(2).nonzero_static(size=3).tolist() == [[0], [1], [-1]]
    assert tc.adjoint(tc.ones(2, 3)).shape == (3, 2) and not tc.is_distributed(tc.ones(1))
    y = tc.feature_dropout(tc.ones(4, 8, 3), 0.5, True)
    assert bool(((y == 0) | (y == 2)).all()) and bool((y == y[:, :, :1]).all())
    tc.set_anomaly_enabled(True)
    try:
        assert tc.is_anomaly_enabled()
    finally:
        tc.set_anomaly_enabled(False)


def test_more_tensor_methods() -> None:
    x = tc.arange(6.0)
    assert x.as_strided_((2, 2), (1, 2)) is x and x.tolist() == [[0.0, 2.0], [1.0, 3.0]]
    assert x.is_set_to(x) and not x.is_set_to(x.clone())
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        assert tc.ones(2).resize(2, 1).shape == (2, 1)
    with pytest.raises(RuntimeError, match="reinforce\\(\\) was removed"):
        x.reinforce(1)
    with pytest.raises(RuntimeError, match="no XPU backend"):
        x.xpu()
    assert x.const_data_ptr() == x.data_ptr() and x.grad_dtype == x.dtype
    assert x.record_stream(None) is None


def test_special_bessel_names() -> None:
    import scipy.special as sps

    x = tc.tensor([0.0, 0.5, 3.0], dtype=tc.float64, requires_grad=True)
    assert_close(tc.special.modified_bessel_i0(x), tc.tensor(sps.i0([0.0, 0.5, 3.0])))
    assert_close(tc.special.modified_bessel_i1(x), tc.tensor(sps.i1([0.0, 0.5, 3.0])))
    j0 = tc.special.spherical_bessel_j0(x)
    assert_close(j0, tc.tensor(sps.spherical_jn(0, [0.0, 0.5, 3.0])))
    assert not j0.requires_grad


def test_adaptive_max_pooling_returns_pytorchs_indices() -> None:
    import numpy as np

    F = tc.nn.functional
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 3, 7, 9))
    values, indices = F.adaptive_max_pool2d(tc.from_numpy(x), (3, 4), return_indices=True)
    bounds = [
        [((i * s) // o, -((-(i + 1) * s) // o)) for i in range(o)] for s, o in ((7, 3), (9, 4))
    ]
    for a, (h0, h1) in enumerate(bounds[0]):
        for b, (w0, w1) in enumerate(bounds[1]):
            window = x[:, :, h0:h1, w0:w1].reshape(2, 3, -1)
            k = window.argmax(-1)
            rows, cols = np.unravel_index(k, (h1 - h0, w1 - w0))
            assert (indices[:, :, a, b].numpy() == (rows + h0) * 9 + cols + w0).all()
            assert np.allclose(values[:, :, a, b].numpy(), window.max(-1))
    v1, i1 = F.adaptive_max_pool1d_with_indices(tc.tensor([[1.0, 5.0, 2.0, 4.0, 3.0]]), 2)
    assert v1.tolist() == [[5.0, 4.0]] and i1.tolist() == [[1, 3]]
    v3, i3 = F.adaptive_max_pool3d_with_indices(tc.arange(8.0).reshape(1, 1, 2, 2, 2), 1)
    assert v3.reshape(-1).tolist() == [7.0] and i3.reshape(-1).tolist() == [7]
    t = tc.from_numpy(x[:1, :1, :5, :5]).requires_grad_()
    assert tc.autograd.gradcheck(lambda u: F.adaptive_max_pool2d(u, 2, True)[0], (t,))


def test_nn_grad_matches_the_convolutions_backward(device: str) -> None:
    if device == "meta":
        pytest.skip("no data to compare")
    F = tc.nn.functional
    for nd in (1, 2, 3):
        x = tc.randn(2, 4, *([5] * nd), dtype=tc.float64, device=device, requires_grad=True)
        w = tc.randn(6, 2, *([3] * nd), dtype=tc.float64, device=device, requires_grad=True)
        conv = getattr(F, f"conv{nd}d")
        y = conv(x, w, None, 2, 1, 1, 2)
        g = tc.randn(y.shape, dtype=tc.float64, device=device)
        gx, gw = tc.autograd.grad(y, (x, w), g)
        grad_input = getattr(tc.nn.grad, f"conv{nd}d_input")
        grad_weight = getattr(tc.nn.grad, f"conv{nd}d_weight")
        assert_close(grad_input(x.shape, w.detach(), g, 2, 1, 1, 2), gx)
        assert_close(grad_weight(x.detach(), w.shape, g, 2, 1, 1, 2), gw)
    assert F.grad is tc.nn.grad


def test_fractional_max_pool3d_windows(device: str) -> None:
    if device == "meta":
        pytest.skip("no data to compare")
    import numpy as np

    F = tc.nn.functional
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 3, 6, 7, 8))
    samples = rng.uniform(size=(2, 3, 3))
    out, idx = F.fractional_max_pool3d(
        tc.tensor(x, device=device), (2, 3, 2), output_size=(3, 4, 5), return_indices=True,
        _random_samples=tc.tensor(samples, device=device),
    )  # fmt: skip

    def starts(u: float, size: int, o: int, k: int) -> list[int]:
        alpha = (size - k) / (o - 1)
        return [int((i + u) * alpha) - int(u * alpha) for i in range(o - 1)] + [size - k]

    flat = x.reshape(2, 3, -1)
    for b in range(2):
        for ch in range(3):
            ts, hs, ws = (
                starts(samples[b, ch, d], s, o, k)
                for d, (s, o, k) in enumerate(zip((6, 7, 8), (3, 4, 5), (2, 3, 2), strict=True))
            )
            for a, t0 in enumerate(ts):
                for c, h0 in enumerate(hs):
                    for e, w0 in enumerate(ws):
                        window = x[b, ch, t0 : t0 + 2, h0 : h0 + 3, w0 : w0 + 2]
                        assert out[b, ch, a, c, e].item() == window.max()
                        assert flat[b, ch, idx[b, ch, a, c, e].item()] == window.max()
    assert tc.nn.FractionalMaxPool3d(2, output_ratio=0.5)(tc.randn(1, 2, 6, 6, 8)).shape == (
        1, 2, 3, 3, 4,
    )  # fmt: skip


def test_histogramdd_matches_numpy() -> None:
    import numpy as np

    rng = np.random.default_rng(4)
    pts = rng.normal(size=(50, 3))
    w = rng.uniform(size=50)
    for kwargs in (
        {"bins": 4},
        {"bins": [2, 3, 4], "density": True},
        {"bins": 3, "range": [-1.0, 1.0, -2.0, 2.0, 0.0, 1.0]},
    ):
        np_kwargs = dict(kwargs)
        if "range" in np_kwargs:
            r = np_kwargs.pop("range")
            np_kwargs["range"] = [r[0:2], r[2:4], r[4:6]]
        want, want_edges = np.histogramdd(pts, weights=w, **np_kwargs)
        got = tc.histogramdd(tc.from_numpy(pts), weight=tc.from_numpy(w), **kwargs)
        assert_close(got.hist, tc.from_numpy(want))
        for e, we in zip(got.bin_edges, want_edges, strict=True):
            assert_close(e, tc.from_numpy(we))
    edges = tc.histogramdd(tc.tensor([[1.0, 1.0], [1.0, 1.0]]), bins=2).bin_edges
    assert edges[0].tolist() == [0.5, 1.0, 1.5]


def test_eager_control_flow_and_pool_tuple() -> None:
    x = tc.ones(1)
    assert tc.cond(tc.tensor(False), lambda a: a + 1, lambda a: a - 1, (x,)).tolist() == [0.0]
    assert tc.while_loop(lambda i: i < 3, lambda i: (i + 1,), (tc.tensor(0),))[0].item() == 3
    values, indices = tc.adaptive_max_pool1d(tc.tensor([[1.0, 5.0, 2.0, 4.0, 3.0]]), 2)
    assert values.tolist() == [[5.0, 4.0]] and indices.tolist() == [[1, 3]]


def test_embedding_renorm_and_as_strided_functions() -> None:
    w = tc.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    assert tc.embedding_renorm_(w, tc.tensor([0, 1, 0]), 1.0, 2.0) is w
    assert_close(w, tc.tensor([[0.6, 0.8], [0.3, 0.4], [6.0, 8.0]]), rtol=1e-6, atol=1e-6)
    x = tc.arange(6.0)
    assert tc.as_strided_(x, (2, 2), (1, 2)) is x and x.shape == (2, 2)
