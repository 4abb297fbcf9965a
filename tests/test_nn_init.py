"""``nn.init`` (statistics, fans, gains, errors) and ``nn.utils`` (clipping, parameter
vectors), with NumPy computations of PyTorch's documented rules as the oracle."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.init as init
import tensorcore.nn.utils as nn_utils
from tensorcore.testing import assert_close


def _grad(p: tc.Tensor) -> tc.Tensor:
    assert p.grad is not None
    return p.grad


def _gen(seed: int = 11) -> tc.Generator:
    return tc.Generator().manual_seed(seed)


# ---------------------------------------------------------------------------------------------
# gains and fans


@pytest.mark.parametrize(
    "name",
    ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
     "conv_transpose3d", "sigmoid"],
)  # fmt: skip
def test_gain_is_one_for_linear_functions(name: str) -> None:
    assert init.calculate_gain(name) == 1.0


def test_gain_table() -> None:
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("selu") == 0.75
    assert init.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01**2))
    assert init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2.0 / 1.04)
    assert init.calculate_gain("leaky_relu", 0) == math.sqrt(2.0)
    with pytest.raises(ValueError, match=r"^Unsupported nonlinearity swish$"):
        init.calculate_gain("swish")
    with pytest.raises(ValueError, match=r"negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)
    with pytest.raises(ValueError, match=r"negative_slope 0\.1 not a valid number"):
        init.calculate_gain("leaky_relu", "0.1")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("shape", "fans"),
    [((8, 3), (3, 8)), ((5, 4, 7), (28, 35)), ((16, 4, 3, 5), (60, 240)),
     ((2, 3, 2, 2, 2), (24, 16))],
)  # fmt: skip
def test_fan_in_and_fan_out(shape: tuple[int, ...], fans: tuple[int, int]) -> None:
    fan_in, fan_out = init._calculate_fan_in_and_fan_out(tc.empty(*shape))
    rf = int(np.prod(shape[2:]))
    assert (fan_in, fan_out) == (shape[1] * rf, shape[0] * rf) == fans


@pytest.mark.parametrize("shape", [(3,), ()])
def test_fans_need_two_dims(shape: tuple[int, ...]) -> None:
    msg = "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
    for fn in (init._calculate_fan_in_and_fan_out, init.xavier_uniform_, init.xavier_normal_,
               init.kaiming_uniform_, init.kaiming_normal_):  # fmt: skip
        with pytest.raises(ValueError, match=msg):
            fn(tc.empty(*shape))


def test_bad_mode_and_nonlinearity() -> None:
    msg = r"Mode fan_avg not supported, please use one of \['fan_in', 'fan_out'\]"
    for fn in (init.kaiming_uniform_, init.kaiming_normal_):
        with pytest.raises(ValueError, match=msg):
            fn(tc.empty(3, 3), mode="fan_avg")
        with pytest.raises(ValueError, match="Unsupported nonlinearity gelu"):
            fn(tc.empty(3, 3), nonlinearity="gelu")


# ---------------------------------------------------------------------------------------------
# random fills: statistics


_SHAPE = (400, 200)  # fan_in 200, fan_out 400
_UNIFORM_STD = 1 / math.sqrt(3)  # std of U(-1, 1)


@pytest.mark.parametrize(
    ("fill", "mean", "std", "bound"),
    [
        (lambda t, g: init.uniform_(t, -2, 3, generator=g), 0.5, 5 / math.sqrt(12), (-2, 3)),
        (lambda t, g: init.uniform_(t, generator=g), 0.5, 1 / math.sqrt(12), (0, 1)),
        (lambda t, g: init.normal_(t, 1.0, 0.5, generator=g), 1.0, 0.5, None),
        (lambda t, g: init.normal_(t, generator=g), 0.0, 1.0, None),
        (lambda t, g: init.xavier_uniform_(t, generator=g), 0.0, math.sqrt(2 / 600),
         (-math.sqrt(6 / 600), math.sqrt(6 / 600))),
        (lambda t, g: init.xavier_uniform_(t, gain=3.0, generator=g), 0.0,
         3 * math.sqrt(2 / 600), (-3 * math.sqrt(6 / 600), 3 * math.sqrt(6 / 600))),
        (lambda t, g: init.xavier_normal_(t, gain=2.0, generator=g), 0.0,
         2 * math.sqrt(2 / 600), None),
        (lambda t, g: init.kaiming_uniform_(t, generator=g), 0.0, math.sqrt(2 / 200),
         (-math.sqrt(6 / 200), math.sqrt(6 / 200))),
        (lambda t, g: init.kaiming_uniform_(t, a=math.sqrt(5), generator=g), 0.0,
         math.sqrt(1 / 3) / math.sqrt(200), (-1 / math.sqrt(200), 1 / math.sqrt(200))),
        (lambda t, g: init.kaiming_uniform_(t, mode="fan_out", nonlinearity="tanh", generator=g),
         0.0, 5 / 3 / math.sqrt(400), (-5 / 3 * math.sqrt(3 / 400), 5 / 3 * math.sqrt(3 / 400))),
        (lambda t, g: init.kaiming_normal_(t, generator=g), 0.0, math.sqrt(2 / 200), None),
        (lambda t, g: init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu", generator=g),
         0.0, math.sqrt(2) / math.sqrt(400), None),
        (lambda t, g: init.kaiming_normal_(t, a=0.3, nonlinearity="leaky_relu", generator=g),
         0.0, math.sqrt(2 / 1.09) / math.sqrt(200), None),
    ],
)  # fmt: skip
def test_random_fills_have_the_documented_statistics(
    fill: Callable[[tc.Tensor, tc.Generator], tc.Tensor],
    mean: float,
    std: float,
    bound: tuple[float, float] | None,
) -> None:
    t = tc.empty(*_SHAPE)
    assert fill(t, _gen()) is t
    x = t.numpy().astype(np.float64)
    assert abs(x.std() - std) < 0.02 * std
    assert abs(x.mean() - mean) < 5 * std / math.sqrt(x.size)
    if bound is not None:
        lo, hi = bound
        assert x.min() >= lo - 1e-6 and x.max() <= hi + 1e-6
        # The range is filled out, not just respected.
        assert x.min() < lo + 0.01 * (hi - lo) and x.max() > hi - 0.01 * (hi - lo)
    # The same seed gives the same values; another one does not.
    again = fill(tc.empty(*_SHAPE), _gen()).numpy()
    assert np.array_equal(again, t.numpy())
    assert not np.array_equal(fill(tc.empty(*_SHAPE), _gen(12)).numpy(), t.numpy())


def test_conv_weight_fans_drive_the_bounds() -> None:
    w = init.kaiming_uniform_(tc.empty(32, 16, 5, 5), a=math.sqrt(5), generator=_gen())
    bound = 1 / math.sqrt(16 * 25)
    x = w.numpy()
    assert x.max() <= bound and x.min() >= -bound and x.max() > 0.95 * bound
    w = init.xavier_normal_(tc.empty(64, 32, 3, 3), generator=_gen())
    assert abs(w.numpy().std() - math.sqrt(2 / (9 * (64 + 32)))) < 0.02 * w.numpy().std()


def test_float64_fills_keep_their_dtype() -> None:
    t = init.kaiming_normal_(tc.empty(100, 50, dtype=tc.float64), generator=_gen())
    assert t.dtype == tc.float64
    assert abs(t.numpy().std() - math.sqrt(2 / 50)) < 0.05 * math.sqrt(2 / 50)


def test_zero_element_tensors_are_left_alone() -> None:
    for fn in (init.kaiming_uniform_, init.kaiming_normal_):
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            t = tc.empty(0, 3)
            assert fn(t) is t
    t = tc.empty(0, 4)
    assert init.orthogonal_(t) is t and init.xavier_uniform_(t) is t


# ---------------------------------------------------------------------------------------------
# trunc_normal_


def _truncated_moments(mean: float, std: float, a: float, b: float) -> tuple[float, float]:
    phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda z: (1 + math.erf(z / math.sqrt(2))) / 2  # noqa: E731
    al, be = (a - mean) / std, (b - mean) / std
    mass = cdf(be) - cdf(al)
    m = mean + std * (phi(al) - phi(be)) / mass
    var = std**2 * (1 + (al * phi(al) - be * phi(be)) / mass - ((phi(al) - phi(be)) / mass) ** 2)
    return m, math.sqrt(var)


@pytest.mark.parametrize(
    ("mean", "std", "a", "b"),
    [(0.0, 1.0, -2.0, 2.0), (0.5, 1.0, -0.5, 2.0), (0.0, 0.02, -0.04, 0.04),
     (1.0, 3.0, 0.0, 10.0), (0.0, 1.0, -0.1, 0.1)],
)  # fmt: skip
def test_trunc_normal_is_bounded_with_the_truncated_moments(
    mean: float, std: float, a: float, b: float
) -> None:
    t = tc.empty(200_000)
    assert init.trunc_normal_(t, mean=mean, std=std, a=a, b=b, generator=_gen()) is t
    x = t.numpy().astype(np.float64)
    assert x.min() >= a and x.max() <= b
    m, s = _truncated_moments(mean, std, a, b)
    assert abs(x.mean() - m) < 6 * s / math.sqrt(x.size)
    assert abs(x.std() - s) < 0.02 * s
    # The histogram follows the truncated density (a coarse check of the shape).
    hist, edges = np.histogram(x, bins=10, range=(a, b))
    cdf = lambda z: (1 + math.erf((z - mean) / (std * math.sqrt(2)))) / 2  # noqa: E731
    expected = np.diff([cdf(e) for e in edges]) / (cdf(b) - cdf(a)) * x.size
    assert np.all(np.abs(hist - expected) < 6 * np.sqrt(expected) + 5)


def test_trunc_normal_defaults_and_warning() -> None:
    x = init.trunc_normal_(tc.empty(50_000), generator=_gen()).numpy()
    assert x.min() >= -2 and x.max() <= 2 and x.max() > 1.95
    with pytest.warns(UserWarning, match=r"mean is more than 2 std from \[a, b\]"):
        init.trunc_normal_(tc.empty(10), mean=5.0, std=1.0, a=-1.0, b=1.0)


# ---------------------------------------------------------------------------------------------
# deterministic fills


def test_constant_ones_zeros_eye() -> None:
    assert init.constant_(tc.empty(2, 2), 3.5).tolist() == [[3.5, 3.5], [3.5, 3.5]]
    assert init.ones_(tc.empty(2)).tolist() == [1.0, 1.0]
    assert init.zeros_(tc.ones(2, 1)).tolist() == [[0.0], [0.0]]
    assert np.array_equal(init.eye_(tc.empty(2, 3)).numpy(), np.eye(2, 3))
    assert np.array_equal(init.eye_(tc.ones(4, 3)).numpy(), np.eye(4, 3))
    for shape in [(3,), (2, 2, 2)]:
        with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
            init.eye_(tc.empty(*shape))


def _dirac_reference(shape: tuple[int, ...], groups: int) -> np.ndarray:
    w = np.zeros(shape)
    per = shape[0] // groups
    centre = tuple(s // 2 for s in shape[2:])
    for g in range(groups):
        for d in range(min(per, shape[1])):
            w[(g * per + d, d) + centre] = 1
    return w


@pytest.mark.parametrize(
    ("shape", "groups"),
    [((4, 2, 3, 3), 2), ((3, 5, 3), 1), ((6, 2, 3, 3, 3), 3), ((5, 3, 2, 4), 1)],
)  # fmt: skip
def test_dirac(shape: tuple[int, ...], groups: int) -> None:
    w = init.dirac_(tc.ones(*shape), groups=groups)
    assert np.array_equal(w.numpy(), _dirac_reference(shape, groups))


def test_dirac_is_the_identity_convolution() -> None:
    w = init.dirac_(tc.empty(4, 2, 3, 3), groups=2)
    x = tc.randn(1, 4, 5, 5)
    y = tc.nn.functional.conv2d(x, w, padding=1, groups=2)
    assert_close(y[:, 0], x[:, 0])
    assert_close(y[:, 1], x[:, 1])
    assert_close(y[:, 2], x[:, 2])


def test_dirac_errors() -> None:
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
        init.dirac_(tc.empty(3, 3))
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        init.dirac_(tc.empty(5, 2, 3), groups=2)


# ---------------------------------------------------------------------------------------------
# orthogonal_ and sparse_


def _orthogonal_reference(normal: np.ndarray) -> np.ndarray:
    """PyTorch's recipe in NumPy: QR of the (transposed if wide) normal matrix, Q's columns
    multiplied by the signs of R's diagonal."""
    rows, cols = normal.shape
    a = normal.T if rows < cols else normal
    q, r = np.linalg.qr(a)
    q = q * np.sign(np.diag(r))
    return q.T if rows < cols else q


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (5, 2, 3), (3, 2, 2, 2), (40, 7)])
def test_orthogonal(shape: tuple[int, ...]) -> None:
    t = tc.empty(*shape, dtype=tc.float64)
    assert init.orthogonal_(t, gain=2.0, generator=_gen()) is t
    m = t.numpy().reshape(shape[0], -1)
    gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    assert np.allclose(gram, 4 * np.eye(gram.shape[0]), atol=1e-10)
    # The same normal draw through NumPy's QR with the sign fix gives the same matrix.
    normal = tc.empty(shape[0], m.shape[1], dtype=tc.float64).normal_(0, 1, generator=_gen())
    assert np.allclose(m, 2.0 * _orthogonal_reference(normal.numpy()), atol=1e-10)


def test_orthogonal_float32_and_errors() -> None:
    q = init.orthogonal_(tc.empty(64, 64), generator=_gen()).numpy().astype(np.float64)
    assert np.allclose(q.T @ q, np.eye(64), atol=1e-5)
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        init.orthogonal_(tc.empty(3))


def test_sparse() -> None:
    w = init.sparse_(tc.empty(20, 30), sparsity=0.25, std=0.5, generator=_gen())
    x = w.numpy()
    assert np.all((x == 0).sum(axis=0) == 5)
    nonzero = x[x != 0]
    assert abs(nonzero.std() - 0.5) < 0.08
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.sparse_(tc.empty(3, 3, 3), 0.1)


# ---------------------------------------------------------------------------------------------
# autograd and aliases


def test_inits_do_not_record_gradients() -> None:
    fills: list[Callable[[tc.Tensor], tc.Tensor]] = [
        init.uniform_, init.normal_, init.trunc_normal_, init.ones_, init.zeros_, init.eye_,
        lambda t: init.constant_(t, 2.0), init.xavier_uniform_, init.xavier_normal_,
        init.kaiming_uniform_, init.kaiming_normal_, init.orthogonal_,
        lambda t: init.sparse_(t, 0.5),
    ]  # fmt: skip
    for fill in fills:
        w = tc.nn.Parameter(tc.empty(4, 3))
        assert fill(w) is w
        assert w.grad_fn is None and w.is_leaf and w.requires_grad
    w = tc.nn.Parameter(tc.empty(2, 2, 3))
    assert init.dirac_(w).grad_fn is None


def test_deprecated_aliases_warn() -> None:
    with pytest.warns(FutureWarning, match=r"`nn.init.xavier_uniform` is now deprecated"):
        t = init.xavier_uniform(tc.empty(3, 3))
    assert t.shape == (3, 3)
    with pytest.warns(FutureWarning, match=r"in favor of `nn.init.constant_`"):
        assert init.constant(tc.empty(2), 1.5).tolist() == [1.5, 1.5]


# ---------------------------------------------------------------------------------------------
# clip_grad_norm_ and friends


def _params_with_grads(grads: list[np.ndarray]) -> list[tc.nn.Parameter]:
    ps = [tc.nn.Parameter(tc.zeros(*g.shape, dtype=tc.float64)) for g in grads]
    for p, g in zip(ps, grads, strict=True):
        p.grad = tc.tensor(g)
    return ps


def _np_norm(flat: np.ndarray, norm_type: float) -> float:
    if math.isinf(norm_type):
        return float(np.abs(flat).max())
    return float((np.abs(flat) ** norm_type).sum() ** (1 / norm_type))


@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf, 3.0, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 1e3])
def test_clip_grad_norm_matches_numpy(norm_type: float | str, max_norm: float) -> None:
    rng = np.random.default_rng(2)
    grads = [rng.normal(size=(3, 4)), rng.normal(size=5), rng.normal(size=(2, 1, 2))]
    flat = np.concatenate([g.ravel() for g in grads])
    ref = _np_norm(flat, float(norm_type))
    ps = _params_with_grads(grads)
    ps.insert(1, tc.nn.Parameter(tc.zeros(3)))  # no grad: skipped
    total = nn_utils.clip_grad_norm_(ps, max_norm, norm_type=norm_type)  # type: ignore[arg-type]
    assert total.ndim == 0 and math.isclose(total.item(), ref, rel_tol=1e-12)
    coef = min(1.0, max_norm / (ref + 1e-6))
    assert ps[1].grad is None
    for p, g in zip([ps[0], *ps[2:]], grads, strict=True):
        assert_close(_grad(p), tc.tensor(g * coef))
    if coef < 1:
        clipped = np.concatenate([p.grad.numpy().ravel() for p in ps if p.grad is not None])
        assert _np_norm(clipped, float(norm_type)) <= max_norm


def test_clip_grad_norm_inputs() -> None:
    # A single tensor, a generator, no gradients at all, an empty list.
    p = tc.nn.Parameter(tc.zeros(2))
    p.grad = tc.tensor([3.0, 4.0])
    assert nn_utils.clip_grad_norm_(p, 1.0).item() == pytest.approx(5.0)
    assert_close(p.grad, tc.tensor([0.6, 0.8]), atol=1e-6, rtol=0)
    lin = tc.nn.Linear(3, 2)
    lin(tc.ones(4, 3)).sum().backward()
    ref = math.sqrt(sum(float((_grad(q).numpy().astype(np.float64) ** 2).sum())
                        for q in lin.parameters()))  # fmt: skip
    assert nn_utils.clip_grad_norm_(lin.parameters(), 1.0).item() == pytest.approx(ref)
    bare = tc.nn.Parameter(tc.zeros(1))
    assert nn_utils.clip_grad_norm_([bare], 1.0).item() == 0.0 and bare.grad is None
    assert nn_utils.clip_grad_norm_([], 1.0).item() == 0.0
    with pytest.warns(UserWarning, match="`parameters` is an empty generator"):
        nn_utils.clip_grad_norm_((t for t in list[tc.Tensor]()), 1.0)


def test_clip_grad_norm_mixed_dtypes() -> None:
    a, b = tc.nn.Parameter(tc.zeros(2)), tc.nn.Parameter(tc.zeros(1, dtype=tc.float64))
    a.grad, b.grad = tc.tensor([3.0, 0.0]), tc.tensor([4.0], dtype=tc.float64)
    total = nn_utils.clip_grad_norm_([a, b], 2.5)
    assert total.item() == pytest.approx(5.0)
    assert a.grad.dtype == tc.float32 and b.grad.dtype == tc.float64
    assert a.grad.tolist()[0] == pytest.approx(1.5, rel=1e-6)
    assert b.grad.tolist()[0] == pytest.approx(2.0, rel=1e-6)


def test_clip_grad_norm_nonfinite() -> None:
    for bad in (math.inf, math.nan):
        p = tc.nn.Parameter(tc.zeros(2))
        p.grad = tc.tensor([bad, 1.0])
        with pytest.raises(RuntimeError, match=r"The total norm of order 2\.0 for gradients"):
            nn_utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
        assert p.grad.tolist()[1] == 1.0  # untouched
    p = tc.nn.Parameter(tc.zeros(2))
    p.grad = tc.tensor([math.nan, 1.0])
    total = nn_utils.clip_grad_norm_(p, 1.0)
    assert math.isnan(total.item()) and all(math.isnan(v) for v in p.grad.tolist())
    p.grad = tc.tensor([math.inf, 1.0])
    with pytest.raises(RuntimeError, match=r"order inf .* non-finite"):
        nn_utils.clip_grad_norm_(p, 1.0, norm_type="inf", error_if_nonfinite=True)  # type: ignore[arg-type]


def test_clip_grad_norm_sparse_gradient() -> None:
    emb = tc.nn.Embedding(6, 3, sparse=True)
    emb(tc.tensor([1, 2, 1, 4])).sum().backward()
    assert emb.weight.grad is not None and emb.weight.grad.is_sparse
    dense = emb.weight.grad.to_dense().numpy().astype(np.float64)
    total = nn_utils.clip_grad_norm_(emb.parameters(), 0.5)
    assert total.item() == pytest.approx(np.linalg.norm(dense), rel=1e-6)
    assert emb.weight.grad.is_sparse
    scaled = emb.weight.grad.to_dense().numpy()
    assert np.allclose(scaled, dense * 0.5 / (np.linalg.norm(dense) + 1e-6), atol=1e-6)


def test_get_total_norm_and_clip_grads_with_norm() -> None:
    rng = np.random.default_rng(5)
    grads = [rng.normal(size=(4, 4)), rng.normal(size=3)]
    flat = np.concatenate([g.ravel() for g in grads])
    ps = _params_with_grads(grads)
    total = nn_utils.get_total_norm([_grad(p) for p in ps], 1.0)
    assert total.item() == pytest.approx(np.abs(flat).sum(), rel=1e-12)
    assert nn_utils.get_total_norm(tc.tensor(grads[0])).item() == pytest.approx(
        np.linalg.norm(grads[0]), rel=1e-12
    )
    assert nn_utils.get_total_norm([]).item() == 0.0
    nn_utils.clip_grads_with_norm_(ps, 2.0, total)
    for p, g in zip(ps, grads, strict=True):
        assert_close(_grad(p), tc.tensor(g * 2.0 / (np.abs(flat).sum() + 1e-6)))
    # Clamped at 1: a small total norm never scales up.
    nn_utils.clip_grads_with_norm_(ps, 2.0, tc.tensor(0.5, dtype=tc.float64))
    for p, g in zip(ps, grads, strict=True):
        assert_close(_grad(p), tc.tensor(g * 2.0 / (np.abs(flat).sum() + 1e-6)))


def test_deprecated_clip_grad_norm_warns() -> None:
    p = tc.nn.Parameter(tc.zeros(2))
    p.grad = tc.tensor([3.0, 4.0])
    with pytest.warns(FutureWarning, match="is now deprecated in favor of"):
        assert nn_utils.clip_grad_norm(p, 1.0).item() == pytest.approx(5.0)


def test_clip_grad_value() -> None:
    rng = np.random.default_rng(3)
    grads = [rng.normal(size=(5, 5)) * 3, rng.normal(size=7) * 3]
    ps = _params_with_grads(grads)
    bare = tc.nn.Parameter(tc.zeros(2))
    nn_utils.clip_grad_value_([*ps, bare], 1.25)
    for p, g in zip(ps, grads, strict=True):
        assert np.array_equal(_grad(p).numpy(), np.clip(g, -1.25, 1.25))
    assert bare.grad is None
    p = tc.nn.Parameter(tc.zeros(3))
    p.grad = tc.tensor([-3.0, 0.5, 2.0])
    nn_utils.clip_grad_value_(p, 1)
    assert p.grad.tolist() == [-1.0, 0.5, 1.0]
    nn_utils.clip_grad_value_((q for q in [p]), 0.25)
    assert p.grad.tolist() == [-0.25, 0.25, 0.25]


# ---------------------------------------------------------------------------------------------
# parameters_to_vector / vector_to_parameters


def test_parameter_vector_round_trip() -> None:
    model = tc.nn.Sequential(tc.nn.Linear(3, 4), tc.nn.ReLU(), tc.nn.Linear(4, 2))
    params = list(model.parameters())
    ref = np.concatenate([p.detach().numpy().ravel() for p in params])
    vec = nn_utils.parameters_to_vector(model.parameters())
    assert vec.shape == (sum(p.numel() for p in params),)
    assert np.array_equal(vec.detach().numpy(), ref)
    # Differentiable: the gradient reaches every parameter.
    (vec * 2).sum().backward()
    assert all(np.array_equal(_grad(p).numpy(), np.full(p.shape, 2.0)) for p in params)
    new = tc.arange(float(vec.numel()))
    nn_utils.vector_to_parameters(new, model.parameters())
    after = list(model.parameters())
    assert all(a is b for a, b in zip(after, params, strict=True))
    assert np.array_equal(nn_utils.parameters_to_vector(after).detach().numpy(), new.numpy())
    assert all(isinstance(p, tc.nn.Parameter) and p.requires_grad for p in after)
    assert params[0].tolist() == np.arange(12.0).reshape(4, 3).tolist()
    # As in PyTorch, the parameters now view ``new``.
    new[0] = 100.0
    assert params[0].tolist()[0][0] == 100.0
    out = model(tc.ones(1, 3))
    assert out.shape == (1, 2)


def test_vector_to_parameters_errors() -> None:
    a, b = tc.nn.Parameter(tc.zeros(2, 2)), tc.nn.Parameter(tc.zeros(3))
    with pytest.raises(TypeError, match=r"^expected torch\.Tensor, but got: list$"):
        nn_utils.vector_to_parameters([1.0] * 7, [a, b])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^expected torch\.Tensor, but got: numpy\.ndarray$"):
        nn_utils.vector_to_parameters(np.zeros(7), [a, b])  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match=r"shape '\[3\]' is invalid for input of size 2"):
        nn_utils.vector_to_parameters(tc.arange(6.0), [a, b])
    # Extra elements are ignored, as in PyTorch.
    nn_utils.vector_to_parameters(tc.arange(9.0), [a, b])
    assert a.tolist() == [[0, 1], [2, 3]] and b.tolist() == [4, 5, 6]


def test_no_warnings_from_plain_use() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        init.kaiming_uniform_(tc.empty(3, 3))
        init.trunc_normal_(tc.empty(3, 3))
        p = tc.nn.Parameter(tc.zeros(2))
        p.grad = tc.ones(2)
        nn_utils.clip_grad_norm_([p], 1.0)


# ------------------------------------------------------------------ fusion, skip_init, formats
def test_fuse_conv_bn_and_linear_bn(device: str) -> None:
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    rng = np.random.default_rng(3)
    for transpose in (False, True):
        conv_cls = tc.nn.ConvTranspose2d if transpose else tc.nn.Conv2d
        conv = conv_cls(3, 4, 3, bias=transpose, device=device).eval()
        bn = tc.nn.BatchNorm2d(4, device=device).eval()
        with tc.no_grad():
            bn.running_mean.copy_(tc.tensor(rng.normal(size=4), device=device))
            bn.running_var.copy_(tc.tensor(rng.uniform(0.5, 2.0, size=4), device=device))
            bn.weight.copy_(tc.tensor(rng.normal(size=4), device=device))
            bn.bias.copy_(tc.tensor(rng.normal(size=4), device=device))
        fused = nn_utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
        assert fused is not conv and type(fused) is conv_cls
        assert isinstance(fused.bias, tc.nn.Parameter) and fused.weight.grad_fn is None
        x = tc.tensor(rng.normal(size=(2, 3, 6, 6)), dtype=tc.float32, device=device)
        with tc.no_grad():
            assert_close(fused(x), bn(conv(x)), atol=1e-5, rtol=1e-5)
        scale = _np(bn.weight) / np.sqrt(_np(bn.running_var) + bn.eps)
        shape = (1, -1, 1, 1) if transpose else (-1, 1, 1, 1)
        assert_close(fused.weight, _np(conv.weight) * scale.reshape(shape), rtol=1e-6, atol=1e-7)
    fc, bn1 = tc.nn.Linear(3, 2, device=device).eval(), tc.nn.BatchNorm1d(2, device=device).eval()
    with tc.no_grad():
        bn1.running_var.fill_(4.0)
    x = tc.randn(5, 3, device=device)
    with tc.no_grad():
        assert_close(nn_utils.fuse_linear_bn_eval(fc, bn1)(x), bn1(fc(x)), atol=1e-6, rtol=1e-6)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        nn_utils.fuse_conv_bn_eval(conv.train(), bn)
    with pytest.raises(AssertionError, match="To fuse, linear"):
        nn_utils.fuse_linear_bn_eval(fc, tc.nn.BatchNorm1d(3, device=device).eval())


def _np(x: tc.Tensor) -> np.ndarray:
    return x.detach().cpu().numpy()


def test_skip_init_memory_format_and_stateless() -> None:
    fc = nn_utils.skip_init(tc.nn.Linear, in_features=4, out_features=2)
    assert fc.weight.shape == (2, 4) and fc.weight.device.type == "cpu"
    with pytest.raises(RuntimeError, match="Expected a Module"):
        nn_utils.skip_init(int, 3)
    net = tc.nn.Sequential(tc.nn.Conv2d(3, 4, 3), tc.nn.Sequential(tc.nn.ConvTranspose2d(4, 2, 2)))
    w = net[0].weight
    before = _np(w).copy()
    assert nn_utils.convert_conv2d_weight_memory_format(net, tc.channels_last) is net
    assert net[0].weight is w and w.is_contiguous(memory_format=tc.channels_last)
    assert net[1][0].weight.is_contiguous(memory_format=tc.channels_last)
    np.testing.assert_array_equal(_np(w), before)
    fc = tc.nn.Linear(2, 1)
    params = {"weight": tc.ones(1, 2), "bias": tc.zeros(1)}
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        out = nn_utils.stateless.functional_call(fc, params, (tc.ones(3, 2),))
    assert out.tolist() == [[2.0]] * 3
