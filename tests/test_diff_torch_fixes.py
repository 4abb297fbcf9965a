"""Regressions for differences from PyTorch 2.13 that ``tools/diff_torch.py`` found (each
checked against PyTorch by hand; the expectations are written out here): writes by index
with a source of another dtype, ``clamp`` of bool tensors, the LAPACK-backed operators'
refusals of 16-bit floats, integer ``addmm`` with a float ``beta``, ``add`` of bools with an
integer ``alpha``; and arithmetic on lazy modules' placeholders, ``gradgradcheck`` with no
first derivative to check."""

from __future__ import annotations

import math
from typing import Any

import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.autograd import GradcheckError, gradgradcheck
from tensorcore.testing import dtype_unsupported

DTYPE_MISMATCH = "Index put requires the source and destination dtypes match"


def test_index_put_wants_the_destinations_dtype(device: str) -> None:
    x = tc.zeros(3, device=device)
    idx = tc.tensor([0, 1], device=device)
    longs = tc.tensor([1, 2], device=device)
    doubles = tc.tensor(5.0, dtype=tc.float64, device=device)
    calls = [
        lambda: x.index_put_((idx,), longs),
        lambda: tc.index_put(x, (idx,), longs, accumulate=True),
        lambda: x.index_put_((idx,), doubles),
        lambda: x.__setitem__(idx, longs),
        lambda: x.__setitem__(idx, doubles),
        lambda: x.__setitem__(tc.tensor([True, False, True], device=device), longs),
    ]
    for call in calls:
        with pytest.raises(RuntimeError, match=f"{DTYPE_MISMATCH}, got Float for the destination"):
            call()
    assert x.tolist() == [0.0, 0.0, 0.0]  # nothing written
    with pytest.raises(RuntimeError, match=r"index_copy_\(\): self and source expected to have"):
        x.index_copy_(0, idx, longs)
    with pytest.raises(RuntimeError, match=r"index_add_\(\): self \(Float\) and source \(Long\)"):
        x.index_add_(0, idx, longs)
    # What PyTorch converts: a Python number, a basic index (copy_), a bool mask with a 0-d
    # value (masked_fill_), index_fill_'s 0-d value.
    x[idx] = 5
    x[:1] = tc.tensor([7], device=device)
    x[tc.tensor([False, False, True], device=device)] = tc.tensor(9, device=device)
    assert x.tolist() == [7.0, 5.0, 9.0]
    x.index_fill_(0, tc.tensor([1], device=device), doubles)
    assert x.tolist() == [7.0, 5.0, 9.0]


def test_clamp_of_bool_tensors_as_pytorch(device: str) -> None:
    b = tc.tensor([[True, False, True], [False, False, True]], device=device)
    c = tc.tensor([True, False, False], device=device)
    lo = tc.clamp(b, c)
    assert lo.dtype is tc.bool and lo.tolist() == [[True, False, True], [True, False, True]]
    hi = tc.clamp(b, None, tc.tensor([[True], [False]], device=device))
    assert hi.tolist() == [[True, False, True], [False, False, False]]
    assert (
        tc.clamp_min(b, c).tolist() == lo.tolist() and b.clone().clamp_(c).tolist() == lo.tolist()
    )
    assert tc.clamp_max(b, c).tolist() == [[True, False, False], [False, False, False]]
    # both bounds, or a Python bool: PyTorch's kernels have no bool clamp
    for call in (
        lambda: tc.clamp(b, c, c),
        lambda: tc.clamp(b, True),
        lambda: tc.clamp_min(b, True),
    ):
        with pytest.raises(NotImplementedError, match="\"clamp\" not implemented for 'Bool'"):
            call()
    # a bound of another dtype promotes
    assert tc.clamp(b, 0, 1).dtype is tc.int64 and tc.clamp(b, 0.5).dtype is tc.float32
    assert tc.clamp(b, tc.tensor([1, 0, 2], dtype=tc.int8, device=device)).dtype is tc.int8


@pytest.mark.parametrize("dtype", [tc.float16, tc.bfloat16])
def test_lapack_operators_refuse_16_bit_floats_with_not_implemented(
    device: str, dtype: Any
) -> None:
    L = tc.linalg
    a = tc.eye(3, dtype=dtype, device=device)
    refused = {
        "lu": [L.det, tc.det, lambda m: L.solve(m, m)],
        "cholesky": [L.cholesky, L.cholesky_ex],
        "linalg_eigh": [L.eigh, L.eigvalsh],
        "geqrf": [L.qr],
        "linalg_svd": [L.svd, L.svdvals],
        "triangular_solve": [lambda m: L.solve_triangular(m, m, upper=True)],
        "cholesky_solve": [lambda m: tc.cholesky_solve(m, m)],
        "cholesky_inverse": [tc.cholesky_inverse],
    }
    name = "Half" if dtype is tc.float16 else "BFloat16"
    for kernel, fns in refused.items():
        for fn in fns:
            with pytest.raises(
                NotImplementedError, match=f"\"{kernel}\" not implemented for '{name}'"
            ):
                fn(a)
    # PyTorch's own check comes first for these: a RuntimeError
    for fn in (L.inv, L.slogdet):
        with pytest.raises(RuntimeError, match="Low precision dtypes not supported"):
            fn(a)
    ints = tc.eye(3, dtype=tc.int64, device=device)
    with pytest.raises(NotImplementedError, match="\"linalg_eigh\" not implemented for 'Long'"):
        L.eigh(ints)
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor"):
        L.det(ints)


def test_integer_addmm_family_truncates_float_scales(device: str) -> None:
    def ones(*shape: int) -> tc.Tensor:
        return tc.ones(*shape, dtype=tc.int64, device=device)

    x = tc.arange(8, device=device).reshape(2, 4)
    m1, m2 = ones(2, 3), ones(3, 4)
    r = tc.addmm(x, m1, m2, beta=0.5, alpha=2.0)  # beta 0 (self ignored), alpha 2
    assert r.dtype is tc.int64 and r.tolist() == [[6] * 4] * 2
    assert tc.addmm(x, m1, m2, alpha=2.5).tolist() == (x + 6).tolist()
    b = tc.baddbmm(ones(1, 2, 2), ones(1, 2, 2), ones(1, 2, 2), beta=0.5)
    assert b.dtype is tc.int64 and b.tolist() == [[[2, 2], [2, 2]]]
    a = tc.addbmm(ones(2, 2), ones(1, 2, 2), ones(1, 2, 2), alpha=2.5)
    assert a.dtype is tc.int64 and a.tolist() == [[5, 5], [5, 5]]
    for call in (
        lambda: tc.addmm(x, m1, m2, beta=1j),
        lambda: tc.baddbmm(ones(1, 2, 2), ones(1, 2, 2), ones(1, 2, 2), alpha=1j),
        lambda: tc.addmm(x, m1, m2, beta=float("inf")),
    ):
        with pytest.raises(RuntimeError, match="cannot be converted to type int64_t"):
            call()
    f = tc.ones(2, 2, device=device)
    assert tc.addmm(f, f, f, beta=0.5, alpha=2.0).tolist() == [[4.5, 4.5], [4.5, 4.5]]


def test_add_of_bools_with_an_integer_alpha(device: str) -> None:
    b = tc.tensor([[True, False, True], [False, False, True]], device=device)
    c = tc.tensor([True, False, False], device=device)
    either = [[True, False, True], [True, False, True]]
    for alpha in (2, -1, 1, True):
        r = tc.add(b, c, alpha=alpha)
        assert r.dtype is tc.bool and r.tolist() == either, alpha
    assert tc.add(b, c, alpha=0).tolist() == b.tolist()
    assert tc.add(b, b, alpha=2).tolist() == b.tolist()  # (one shape: the fast path)
    x = b.clone()
    x.add_(c, alpha=2)
    assert x.tolist() == either
    with pytest.raises(RuntimeError, match="argument alpha must not be a floating point"):
        tc.add(b, c, alpha=2.5)


LAZY = "Attempted to use an uninitialized parameter"


def test_operators_refuse_lazy_placeholders() -> None:
    p = nn.UninitializedParameter()
    F = nn.functional
    for call in (
        lambda: p + 1,
        lambda: p * tc.ones(2),
        lambda: tc.add(p, 1),
        lambda: p.sum(),
        lambda: tc.ones(2, 2) @ p,
        lambda: F.linear(tc.ones(2, 3), p),
        lambda: p.numel(),
        lambda: nn.UninitializedBuffer() + 1,
    ):
        with pytest.raises(ValueError, match=LAZY):
            call()
    with pytest.raises(ValueError, match=r"add\(\): Attempted .* `tensorcore.nn.parameter.Unini"):
        tc.add(p, 1)
    # what PyTorch allows: size(), data, dtype, requires_grad, conversions
    assert p.size() == (0,) and p.data.shape == (0,) and p.dtype is tc.float32
    q = p.to(tc.float64)
    assert type(q) is nn.UninitializedParameter and q.dtype is tc.float64 and q.requires_grad
    m = nn.LazyLinear(2).double()
    assert m(tc.ones(1, 3, dtype=tc.float64)).dtype is tc.float64
    p.materialize((2, 3))
    assert type(p) is nn.Parameter and (p * 0 + 1).sum().item() == 6.0


class _Detached(tc.autograd.Function):
    """x * x whose backward drops its graph: no second derivative under create_graph."""

    @staticmethod
    def forward(ctx: Any, x: tc.Tensor) -> tc.Tensor:
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx: Any, g: tc.Tensor) -> tc.Tensor:
        (x,) = ctx.saved_tensors
        return (2 * x * g).detach()


def test_gradgradcheck_cannot_pass_without_first_derivatives() -> None:
    x = tc.tensor([0.5, 1.5], dtype=tc.float64, requires_grad=True)
    other = tc.tensor([1.0, 2.0], dtype=tc.float64, requires_grad=True)
    # an undefined (None) first derivative must be zero, numerically: here it is not
    with pytest.raises(GradcheckError, match=r"derivative of output 0 with respect to input 0 is"):
        gradgradcheck(lambda t: t.detach() * 2, (x,))
    with pytest.raises(GradcheckError, match="undefined"):
        gradgradcheck(lambda t, u: t.detach() * u, (x, other))  # one of two
    # a first derivative outside the graph: its numerical derivative is not zero
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradgradcheck(_Detached.apply, (x,))
    # undefined and truly zero: nothing to check, as in PyTorch
    assert gradgradcheck(lambda t: other * 2, (x,))
    assert gradgradcheck(lambda t: (t > 0).double(), (x,))
    assert gradgradcheck(lambda t: t.exp() * t, (x,))
    assert gradgradcheck(lambda t: t.floor(), (x,))  # zero, but defined
    assert gradgradcheck(lambda t, u: t * 2 + u.sin(), (x, other))


@pytest.mark.parametrize(
    ("upper", "x", "gB", "gL", "g_inv"),
    [
        (
            False,
            [0.2013888888888889, 0.19444444444444445],
            [0.22916666666666666, 0.08333333333333333],
            [-0.2152777777777778, -0.2763310185185185, -0.13888888888888887, -0.1585648148148148],
            [-0.2291666666666666, -0.2535686728395061, -0.08333333333333333, 0.05594135802469136],
        ),
        (
            True,
            [0.16666666666666669, 0.16666666666666666],
            [0.2222222222222222, 0.05555555555555555],
            [-0.19444444444444448, -0.1111111111111111, -0.17592592592592593, -0.0787037037037037],
            [-0.22222222222222227, -0.05555555555555555, -0.19135802469135804, 0.10493827160493827],
        ),
    ],
)
def test_cholesky_solve_gradients_of_a_non_triangular_factor(
    device: str, upper: bool, x: list[float], gB: list[float], gL: list[float], g_inv: list[float]
) -> None:
    # PyTorch 2.13's values: the solves read one triangle, but the factor's gradient is
    # -(C L) (-(U C)) with the whole factor, C = gB X^H + X gB^H (both triangles get one).
    f64 = {"dtype": tc.float64, "device": device}
    L = tc.tensor([[2.0, 1.0], [0.5, 3.0]], **f64, requires_grad=True)
    B = tc.tensor([[1.0], [2.0]], **f64, requires_grad=True)
    out = tc.cholesky_solve(B, L, upper=upper)
    assert out.flatten().tolist() == pytest.approx(x, rel=1e-12)
    got_B, got_L = tc.autograd.grad(out, (B, L), tc.ones_like(out))
    assert got_B.flatten().tolist() == pytest.approx(gB, rel=1e-12)
    assert got_L.flatten().tolist() == pytest.approx(gL, rel=1e-12)
    inv = tc.cholesky_inverse(L, upper=upper)
    (got,) = tc.autograd.grad(inv, (L,), tc.tensor([[1.0, 2.0], [0.0, -1.0]], **f64))
    assert got.flatten().tolist() == pytest.approx(g_inv, rel=1e-12)


def test_as_strided_scatter_gradient_of_self_skips_the_scattered_slice(device: str) -> None:
    # (PyTorch 2.13 keeps the slice and zeroes the rest instead: it fails its own gradcheck)
    x = tc.zeros(3, 3, dtype=tc.float64, device=device, requires_grad=True)
    s = tc.zeros(2, 2, dtype=tc.float64, device=device, requires_grad=True)
    y = tc.as_strided_scatter(x, s, (2, 2), (3, 1), 1)
    g = tc.arange(1.0, 10.0, dtype=tc.float64, device=device).reshape(3, 3)
    gx, gs = tc.autograd.grad(y, (x, s), g)
    assert gx.tolist() == [[1.0, 0.0, 0.0], [4.0, 0.0, 0.0], [7.0, 8.0, 9.0]]
    assert gs.tolist() == [[2.0, 3.0], [5.0, 6.0]]


def test_einsum_of_integral_operands_sums_as_pytorch(device: str) -> None:
    b = tc.tensor([[True, False, True], [False, True, True]], device=device)
    sq = tc.ones(3, 3, dtype=tc.bool, device=device)
    # a sum within one operand is PyTorch's sum: int64 counts (not NumPy's "or")
    for eq, ops, want in [
        ("ij->", [b], 4),
        ("ij->j", [b], [1, 1, 2]),
        ("ii", [sq], 3),
        ("ij,k->k", [b, b[0]], [4, 0, 4]),
    ]:
        r = tc.einsum(eq, *ops)
        assert r.dtype is tc.int64
        if device != "meta":
            assert r.tolist() == want
    # no sum: the operands' dtype
    assert tc.einsum("ii->i", sq).dtype is tc.bool
    assert tc.einsum("ij,jk->ijk", b, sq).dtype is tc.bool
    i8 = tc.ones(2, 3, dtype=tc.int8, device=device)
    assert tc.einsum("ij,kj->ik", i8, i8).dtype is tc.int8
    # bools contracted together: PyTorch's bmm has no bool kernel
    for eq in ("ij,jk->ik", "ij,ij->i"):
        with pytest.raises(NotImplementedError, match="\"bmm\" not implemented for 'Bool'"):
            tc.einsum(eq, b, sq if eq == "ij,jk->ik" else b)


def _raises(exc: type, match: str, fn: Any) -> None:
    with pytest.raises(exc, match=match):
        fn()


def test_refusals_of_dtypes_pytorch_refuses(device: str) -> None:
    # (PyTorch 2.13's exception types and wording, checked by hand)
    NI = NotImplementedError
    h = tc.ones(3, 2, dtype=tc.float16, device=device)
    bf = None if dtype_unsupported(device, tc.bfloat16) else h.to(tc.bfloat16)
    b = tc.tensor([True, False, True], device=device)
    c = tc.tensor([1 + 1j, 2j], device=device)
    f = tc.tensor([1.0, 2.0], device=device)
    i = tc.tensor([1, 2], device=device)
    _raises(NI, "\"cdist\" not implemented for 'Half'", lambda: tc.cdist(h, h))
    if bf is not None:
        _raises(NI, "\"pdist\" not implemented for 'BFloat16'", lambda: tc.pdist(bf))
    _raises(NI, "\"histogramdd\" not implemented for 'Half'", lambda: tc.histogram(h, 4))
    if bf is not None:  # (a device without bfloat16: CuPy's)
        _raises(NI, '"gamma_', lambda: tc._standard_gamma(bf))
        for q in (tc.quantile, tc.nanquantile):
            _raises(RuntimeError, "input tensor must be either float or double",
                    lambda q=q: q(bf, 0.3))  # fmt: skip
    _raises(NI, "\"gcd\" not implemented for 'Float'", lambda: tc.gcd(i, f))
    _raises(NI, "\"lcm\" not implemented for 'Float'", lambda: tc.lcm(f, i))
    _raises(RuntimeError, "may not be a boolean tensor", lambda: tc.mvlgamma(b, 2))
    _raises(
        RuntimeError, "Half, Float or Double tensors but got Long and Long", lambda: tc.polar(i, i)
    )
    # (worded by the tensor's device, with or without dtype=; a dtype refusal came first)
    where = {"cpu": "CPU", "cuda": "CUDA"}.get(c.device.type, c.device.type)
    for kw in ({}, {"dtype": tc.float64}):
        _raises(
            RuntimeError,
            f"nansum on {where} does not support complex",
            lambda kw=kw: tc.nansum(c, **kw),
        )
    _raises(RuntimeError, "standard deviation to be non-complex", lambda: tc.normal(f, c))
    _raises(NI, '"cumsum_out_', lambda: tc.cumsum(i, 0, dtype=tc.bool))
    _raises(NI, '"cumprod_out_', lambda: b.clone().cumprod_(0))
    _raises(RuntimeError, "In-place abs is not supported for complex", lambda: c.clone().abs_())
    _raises(NI, "not implemented for 'ComplexFloat'", lambda: c.clone().bernoulli_(0.3))
    _raises(NI, '"bernoulli_tensor_', lambda: tc.bernoulli(i))
    idx = tc.tensor([[0, 1]], device=device)
    _raises(
        NI,
        "reduce_mean\" not implemented for 'Bool'",
        lambda: tc.scatter_reduce(b[:2].reshape(1, 2), 0, idx, b[:2].reshape(1, 2), "mean"),
    )
    _raises(
        NI,
        "reduce_amax\" not implemented for 'ComplexFloat'",
        lambda: tc.scatter_reduce(c.reshape(1, 2), 0, idx, c.reshape(1, 2), "amax"),
    )
    _raises(
        NI,
        "exclude_input_init\" not implemented for 'Bool'",
        lambda: tc.index_reduce(
            b, 0, tc.tensor([0], device=device), b[:1], "amin", include_self=False
        ),
    )
    different = "heaviside is not yet implemented for tensors with different dtypes"
    _raises(
        RuntimeError,
        different,
        lambda: tc.heaviside(f, f, out=tc.empty(2, dtype=tc.float64, device=device)),
    )
    _raises(RuntimeError, different, lambda: tc.heaviside(f, f.double()))
    u8 = tc.tensor([1, 2], dtype=tc.uint8, device=device)
    _raises(RuntimeError, "Integers to negative integer powers", lambda: u8**-1)
    for call in (
        lambda: tc.pow(h, 2**40),
        lambda: tc.clamp(h, max=1e6),
        lambda: tc.clamp_min(h, 70000),
    ):
        _raises(RuntimeError, "value cannot be converted to type float16 without overflow", call)
    # where's number rounds to inf, an infinite bound fits
    assert tc.where(b[:2], f.half(), 1e6).tolist() == [1.0, math.inf]
    assert tc.clamp(h, max=math.inf).dtype is tc.float16


def test_what_pytorch_accepts(device: str) -> None:
    b = tc.tensor([True, False], device=device)
    i16 = tc.tensor([4, 6], dtype=tc.int16, device=device)
    g = tc.gcd(b, i16)
    assert g.dtype is tc.int16 and g.tolist() == [1, 6]
    h = tc.ones(3, 2, dtype=tc.float16, device=device)
    assert tc.cdist(h, h, compute_mode="use_mm_for_euclid_dist").shape == (3, 3)
    assert tc.histogram(h, 4, range=(-0.5, 0.5)).hist.dtype is tc.float16
    assert tc.bernoulli(b, 0.3).dtype is tc.bool
    a = tc.tensor([1, 2, 3], device=device)
    m = tc.tensor([[1, 2, 3], [4, 5, 6]], device=device)
    # an integer addcmul truncates a float value (0.5 -> 0, 1.7 -> 1)
    assert tc.addcmul(a, m, tc.tensor([[2], [3]], device=device), value=0.5).tolist() == [
        [1, 2, 3],
        [1, 2, 3],
    ]
    assert tc.addcmul(a[:2], a[:2], a[:2], value=1.7).tolist() == [2, 6]
    if not dtype_unsupported(device, tc.bfloat16):
        x = tc.tensor([[[[1.0, 3.0], [2.0, 0.5]]]], device=device).to(tc.bfloat16)
        v, ind = tc.max_pool2d_with_indices(x, (2,))
        assert v.dtype is tc.bfloat16
        assert v.flatten().tolist() == [3.0] and ind.flatten().tolist() == [1]
    out = tc.empty(2, dtype=tc.complex128, device=device)
    tc.logaddexp(tc.tensor([0.0, 1.0], device=device), 0.0, out=out)
    assert out.real.tolist() == pytest.approx([math.log(2.0), math.log1p(math.e)])


def test_a_lone_bool_index_writes_through_copy(device: str) -> None:
    # PyTorch: x[True] is a view with a new dim (copy_ converts the value); in a tuple the
    # bool is an advanced index (index_put_ wants the destination's dtype)
    x = tc.zeros(4, device=device)
    x[True] = tc.tensor([1, 0, 1, 0], device=device)
    x[False] = tc.tensor(3.5, dtype=tc.float64, device=device)
    assert x.tolist() == [1.0, 0.0, 1.0, 0.0]
    b = tc.zeros(3, dtype=tc.bool, device=device)
    b[True] = tc.tensor(3.5, dtype=tc.float64, device=device)
    assert b.tolist() == [True, True, True]
    with pytest.raises(RuntimeError, match=DTYPE_MISMATCH):
        x[True, 1:] = tc.tensor(2.5, dtype=tc.float64, device=device)
