"""The array API standard's namespace (``tensorcore.array_api``), checked against the
standard's reference implementation (``array_api_strict``, NumPy underneath) call by call,
on every device, and the Tensor's side of the standard (``__array_namespace__``, DLPack,
negative-step slices)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.array_api as xp
from tensorcore.testing import assert_close

strict = pytest.importorskip("array_api_strict")

RNG = np.random.default_rng(0)


def _data(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    if dtype == "bool":
        return RNG.random(shape) > 0.5
    if dtype.startswith(("int", "uint")):
        return RNG.integers(0 if dtype.startswith("u") else -5, 6, shape).astype(dtype)
    if dtype.startswith("complex"):
        return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def _pair(shape: tuple[int, ...], dtype: str, device: str) -> tuple[Any, Any]:
    a = _data(shape, dtype)
    return xp.asarray(tc.from_numpy(a.copy()).to(device)), strict.asarray(a)


def _check(got: Any, want: Any) -> None:
    """Same type of result, same dtype name, same shape, same values."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _check(g, w)
        return
    if not hasattr(want, "dtype"):
        if hasattr(want, "__module__") and "dtype" in type(want).__name__.lower():
            assert got.name == str(want).rsplit(".", 1)[-1]  # a dtype
        else:
            assert got == want
        return
    assert isinstance(got, tc.Tensor)
    assert got.dtype.name == str(want.dtype).rsplit(".", 1)[-1], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    expected = tc.from_numpy(np.asarray(want).copy())
    assert_close(got.cpu(), expected, equal_nan=True, rtol=1e-5, atol=1e-6)


# (name, how to call it with the namespace ``m`` and the inputs, input shapes and dtypes)
Call = tuple[str, Callable[..., Any], list[tuple[tuple[int, ...], str]]]
F, F64, I, B = "float32", "float64", "int64", "bool"
CALLS: list[Call] = [
    ("sum axis", lambda m, x: m.sum(x, axis=0), [((3, 4), F)]),
    ("sum empty axis", lambda m, x: m.sum(x, axis=()), [((3, 4), F)]),
    ("sum int", lambda m, x: m.sum(x, axis=(0, 1), keepdims=True), [((3, 4), "int8")]),
    ("prod", lambda m, x: m.prod(x, axis=1), [((3, 4), F64)]),
    ("prod uint8", lambda m, x: m.prod(x, axis=(0, 1), dtype=m.uint8), [((2, 3), "uint8")]),
    ("prod int8 default", lambda m, x: m.prod(x, axis=0), [((2, 3), "int8")]),
    ("max", lambda m, x: m.max(x, axis=-1, keepdims=True), [((3, 4), F)]),
    ("min all", lambda m, x: m.min(x), [((3, 4), I)]),
    ("mean", lambda m, x: m.mean(x, axis=(0, 2)), [((2, 3, 4), F64)]),
    ("var", lambda m, x: m.var(x, axis=0, correction=1), [((5, 3), F64)]),
    ("std", lambda m, x: m.std(x), [((5, 3), F64)]),
    (
        "cumulative_sum",
        lambda m, x: m.cumulative_sum(x, axis=1, include_initial=True),
        [((3, 4), I)],
    ),
    ("cumulative_prod", lambda m, x: m.cumulative_prod(x), [((5,), F64)]),
    ("all", lambda m, x: m.all(x, axis=1), [((3, 4), B)]),
    ("any", lambda m, x: m.any(x), [((3, 4), B)]),
    ("diff", lambda m, x: m.diff(x, axis=0, n=2), [((5, 3), F)]),
    ("argmax", lambda m, x: m.argmax(x, axis=1, keepdims=True), [((3, 4), F)]),
    ("argmin flat", lambda m, x: m.argmin(x), [((3, 4), F)]),
    ("count_nonzero", lambda m, x: m.count_nonzero(x, axis=0), [((3, 4), I)]),
    ("nonzero", lambda m, x: m.nonzero(x), [((3, 4), I)]),
    ("where", lambda m, c, a, b: m.where(c, a, b), [((3, 4), B), ((3, 4), F), ((4,), F64)]),
    ("where scalar", lambda m, c, a: m.where(c, a, 0.5), [((3, 4), B), ((3, 4), F)]),
    (
        "searchsorted",
        lambda m, a, v: m.searchsorted(m.sort(a), v, side="right"),
        [((6,), F), ((3, 2), F)],
    ),
    ("argsort", lambda m, x: m.argsort(x, axis=0, descending=True), [((6, 3), I)]),
    ("sort", lambda m, x: m.sort(x, descending=True), [((3, 6), F)]),
    ("unique_values", lambda m, x: m.unique_values(x), [((12,), "int8")]),
    ("unique_counts", lambda m, x: m.unique_counts(x), [((3, 4), I)]),
    ("unique_inverse", lambda m, x: m.unique_inverse(x), [((3, 4), I)]),
    ("unique_all", lambda m, x: m.unique_all(x), [((10,), I)]),
    (
        "unique_counts complex",
        lambda m, x: m.unique_counts(m.round(m.concat([x, x]))),
        [((6,), "complex128")],
    ),
    ("concat", lambda m, a, b: m.concat([a, b], axis=1), [((2, 3), F), ((2, 2), F64)]),
    ("concat flat", lambda m, a, b: m.concat([a, b], axis=None), [((2, 3), I), ((4,), I)]),
    ("stack", lambda m, a, b: m.stack([a, b], axis=-1), [((2, 3), F), ((2, 3), F)]),
    ("expand_dims", lambda m, x: m.expand_dims(x, axis=-1), [((2, 3), F)]),
    ("flip", lambda m, x: m.flip(x, axis=(0, 2)), [((2, 3, 4), F)]),
    ("moveaxis", lambda m, x: m.moveaxis(x, (0, 1), (2, 0)), [((2, 3, 4), F)]),
    ("permute_dims", lambda m, x: m.permute_dims(x, (2, 0, 1)), [((2, 3, 4), F)]),
    ("repeat", lambda m, x: m.repeat(x, 2, axis=1), [((2, 3), F)]),
    ("repeat flat", lambda m, x: m.repeat(x, 3), [((2, 2), I)]),
    ("reshape", lambda m, x: m.reshape(x, (4, -1)), [((2, 3, 4), F)]),
    ("roll", lambda m, x: m.roll(x, (1, -1), axis=(0, 1)), [((3, 4), F)]),
    ("roll flat", lambda m, x: m.roll(x, 2), [((3, 4), F)]),
    ("squeeze", lambda m, x: m.squeeze(x, axis=(0, 2)), [((1, 3, 1), F)]),
    ("tile", lambda m, x: m.tile(x, (2, 1, 2)), [((2, 3), F)]),
    ("unstack", lambda m, x: m.unstack(x, axis=1), [((2, 3), F)]),
    ("broadcast_arrays", lambda m, a, b: m.broadcast_arrays(a, b), [((3, 1), F), ((4,), F)]),
    ("broadcast_to", lambda m, x: m.broadcast_to(x, (2, 3, 4)), [((3, 1), F)]),
    (
        "take",
        lambda m, x, i: m.take(x, m.asarray([2, 0, -1], device=x.device), axis=1),
        [((3, 4), F), ((1,), I)],
    ),
    (
        "take_along_axis",
        lambda m, x: m.take_along_axis(x, m.argsort(x, axis=0), axis=0),
        [((4, 3), F)],
    ),
    ("matmul", lambda m, a, b: m.matmul(a, b), [((2, 3, 4), F64), ((4, 2), F64)]),
    ("matrix_transpose", lambda m, x: m.matrix_transpose(x), [((2, 3, 4), F)]),
    (
        "tensordot",
        lambda m, a, b: m.tensordot(a, b, axes=([1, 0], [0, 1])),
        [((3, 4, 5), F64), ((4, 3, 2), F64)],
    ),
    ("tensordot int", lambda m, a, b: m.tensordot(a, b, axes=1), [((3, 4), F64), ((4, 2), F64)]),
    (
        "vecdot",
        lambda m, a, b: m.vecdot(a, b, axis=-2),
        [((3, 4), "complex128"), ((3, 1), "complex128")],
    ),
    ("add promotes 0-d", lambda m, a, b: m.add(a, b), [((3,), "int8"), ((), "int16")]),
    ("multiply scalar", lambda m, a: m.multiply(a, 3), [((3,), "int8")]),
    ("divide", lambda m, a, b: m.divide(a, b), [((3, 4), F), ((4,), F64)]),
    ("floor_divide", lambda m, a: m.floor_divide(a, 3), [((3, 4), I)]),
    ("remainder", lambda m, a: m.remainder(a, -3), [((3, 4), I)]),
    ("pow", lambda m, a, b: m.pow(m.abs(a), b), [((3,), F64), ((3,), F64)]),
    ("equal", lambda m, a, b: m.equal(a, b), [((3, 4), I), ((4,), I)]),
    ("less_equal scalar", lambda m, a: m.less_equal(a, 0.5), [((3, 4), F)]),
    ("bitwise_invert", lambda m, a: m.bitwise_invert(a), [((5,), "int16")]),
    ("bitwise_left_shift", lambda m, a: m.bitwise_left_shift(a, 2), [((5,), "uint8")]),
    ("logical_xor", lambda m, a, b: m.logical_xor(a, b), [((5,), B), ((5,), B)]),
    ("negative", lambda m, a: m.negative(a), [((5,), I)]),
    ("positive", lambda m, a: m.positive(a), [((5,), F)]),
    ("real", lambda m, a: m.real(a), [((5,), "complex64")]),
    ("imag", lambda m, a: m.imag(a), [((5,), "complex128")]),
    ("conj", lambda m, a: m.conj(a), [((5,), "complex64")]),
    ("round", lambda m, a: m.round(a * 3), [((5,), F)]),
    ("round complex", lambda m, a: m.round(a * 3), [((5,), "complex64")]),
    ("clip", lambda m, a: m.clip(a, -0.5, 0.5), [((3, 4), F)]),
    ("clip none", lambda m, a: m.clip(a), [((3, 4), I)]),
    ("sqrt", lambda m, a: m.sqrt(m.abs(a)), [((3, 4), F)]),
    ("exp", lambda m, a: m.exp(a), [((3, 4), "complex128")]),
    ("astype", lambda m, a: m.astype(a, m.int32), [((3, 4), F)]),
    ("arange", lambda m: m.arange(1, 7, 2), []),
    ("arange empty", lambda m: m.arange(1, 0, 1), []),
    ("arange float", lambda m: m.arange(0.5, 3.0, dtype=m.float64), []),
    ("linspace", lambda m: m.linspace(0, 1, 5, endpoint=False, dtype=m.float32), []),
    ("eye", lambda m: m.eye(3, 4, k=-1, dtype=m.int32), []),
    ("full", lambda m: m.full((2, 2), 7), []),
    ("full bool", lambda m: m.full((2,), True), []),
    ("zeros", lambda m: m.zeros((2, 0), dtype=m.int8), []),
    ("ones_like", lambda m, a: m.ones_like(a, dtype=m.complex64), [((2, 3), F)]),
    ("full_like", lambda m, a: m.full_like(a, 3), [((2, 3), I)]),
    ("tril", lambda m, a: m.tril(a, k=1), [((3, 4), F)]),
    ("triu", lambda m, a: m.triu(a, k=-1), [((2, 3, 4), F)]),
    ("meshgrid", lambda m, a, b: m.meshgrid(a, b), [((3,), F), ((4,), F)]),
    (
        "meshgrid ij",
        lambda m, a, b, c: m.meshgrid(a, b, c, indexing="ij"),
        [((3,), F), ((2,), F), ((4,), F)],
    ),
    ("result_type", lambda m, a: m.result_type(a, m.int16, 1), [((2,), "int8")]),
    ("result_type uint", lambda m: m.result_type(m.uint8, m.int8), []),
    (
        "can_cast",
        lambda m: (
            m.can_cast(m.int8, m.uint8),
            m.can_cast(m.int8, m.float32),
            m.can_cast(m.float64, m.float32),
        ),
        [],
    ),
    (
        "isdtype",
        lambda m: (
            m.isdtype(m.uint8, "signed integer"),
            m.isdtype(m.complex64, ("numeric", m.bool)),
        ),
        [],
    ),
    (
        "finfo",
        lambda m: (m.finfo(m.float32).eps, m.finfo(m.float64).max, m.finfo(m.complex64).bits),
        [],
    ),
    ("iinfo", lambda m: (m.iinfo(m.int16).min, m.iinfo(m.uint8).max, m.iinfo(m.int64).bits), []),
    ("acosh", lambda m, a: m.acosh(m.abs(a) + 1), [((3, 4), F64)]),
    ("asinh", lambda m, a: m.asinh(a), [((3, 4), F)]),
    ("atanh", lambda m, a: m.atanh(a / 4), [((3, 4), F64)]),
    ("signbit", lambda m, a: m.signbit(m.multiply(a, -0.0)), [((5,), F)]),
    ("copysign", lambda m, a, b: m.copysign(a, b), [((3, 4), F), ((4,), F)]),
    ("hypot", lambda m, a: m.hypot(a, 2.0), [((3, 4), F64)]),
    ("logaddexp", lambda m, a, b: m.logaddexp(a, b), [((3, 4), F64), ((3, 4), F64)]),
    ("nextafter", lambda m, a, b: m.nextafter(a, b), [((6,), F), ((6,), F)]),
    # the linalg extension
    (
        "linalg.cholesky",
        lambda m, a: m.linalg.cholesky(
            a @ m.matrix_transpose(a) + 3 * m.eye(3, dtype=m.float64, device=a.device), upper=True
        ),
        [((2, 3, 3), F64)],
    ),
    ("linalg.cross", lambda m, a, b: m.linalg.cross(a, b, axis=-2), [((3, 4), F64), ((3, 4), F64)]),
    (
        "linalg.cross broadcast",
        lambda m, a, b: m.linalg.cross(a, b),
        [((2, 4, 3), F64), ((3,), F64)],
    ),
    ("linalg.det", lambda m, a: m.linalg.det(a), [((2, 3, 3), F64)]),
    ("linalg.diagonal", lambda m, a: m.linalg.diagonal(a, offset=1), [((2, 3, 4), F)]),
    ("linalg.eigvalsh", lambda m, a: m.linalg.eigvalsh(a + m.matrix_transpose(a)), [((3, 3), F64)]),
    (
        "linalg.inv",
        lambda m, a: m.linalg.inv(a + 4 * m.eye(3, dtype=m.float64, device=a.device)),
        [((3, 3), F64)],
    ),
    (
        "linalg.matrix_norm",
        lambda m, a: m.linalg.matrix_norm(a, ord=1, keepdims=True),
        [((2, 3, 4), F64)],
    ),
    ("linalg.matrix_norm nuc", lambda m, a: m.linalg.matrix_norm(a, ord="nuc"), [((3, 4), F64)]),
    ("linalg.matrix_power", lambda m, a: m.linalg.matrix_power(a, 3), [((3, 3), F64)]),
    (
        "linalg.matrix_rank",
        lambda m, a: m.linalg.matrix_rank(a @ m.matrix_transpose(a)),
        [((4, 2), F64)],
    ),
    ("linalg.outer", lambda m, a, b: m.linalg.outer(a, b), [((3,), F), ((4,), F)]),
    ("linalg.pinv", lambda m, a: m.linalg.pinv(a), [((4, 3), F64)]),
    ("linalg.slogdet", lambda m, a: m.linalg.slogdet(a), [((3, 3), F64)]),
    (
        "linalg.solve vector",
        lambda m, a, b: m.linalg.solve(a + 4 * m.eye(3, dtype=m.float64, device=a.device), b),
        [((3, 3), F64), ((3,), F64)],
    ),
    (
        "linalg.solve matrix",
        lambda m, a, b: m.linalg.solve(a + 4 * m.eye(3, dtype=m.float64, device=a.device), b),
        [((2, 3, 3), F64), ((3, 2), F64)],
    ),
    ("linalg.svdvals", lambda m, a: m.linalg.svdvals(a), [((4, 3), F64)]),
    ("linalg.trace", lambda m, a: m.linalg.trace(a, offset=-1), [((2, 3, 3), I)]),
    (
        "linalg.vector_norm",
        lambda m, a: m.linalg.vector_norm(a, axis=(0, 1), ord=3),
        [((2, 3, 4), F64)],
    ),
    (
        "linalg.vector_norm inf",
        lambda m, a: m.linalg.vector_norm(a, ord=m.inf, keepdims=True),
        [((2, 3), F)],
    ),
    (
        "linalg.pinv array rtol",
        lambda m, a, r: m.linalg.pinv(a, rtol=m.abs(r)),
        [((2, 4, 3), F64), ((2,), F64)],
    ),
    (
        "linalg.matrix_rank array rtol",
        lambda m, a, r: m.linalg.matrix_rank(a, rtol=m.abs(r) / 4),
        [((2, 4, 3), F64), ((2,), F64)],
    ),
    (
        "sign complex",
        lambda m, a: m.sign(a * m.asarray([0, 1, 1], dtype=a.dtype, device=a.device)),
        [((3,), "complex128")],
    ),
    ("vecdot uint8", lambda m, a, b: m.vecdot(a, b), [((2, 3), "uint8"), ((3,), "uint8")]),
    # the fft extension
    ("fft.fft", lambda m, a: m.fft.fft(a, n=6, axis=0, norm="ortho"), [((4, 3), "complex128")]),
    ("fft.ifftn", lambda m, a: m.fft.ifftn(a, axes=(0, 1)), [((4, 3, 2), "complex64")]),
    ("fft.rfft", lambda m, a: m.fft.rfft(a), [((3, 8), F64)]),
    (
        "fft.irfftn",
        lambda m, a: m.fft.irfftn(a, s=(4, 6), axes=(0, 1), norm="forward"),
        [((4, 4), "complex128")],
    ),
    ("fft.hfft", lambda m, a: m.fft.hfft(a, n=8), [((5,), "complex128")]),
    ("fft.ihfft", lambda m, a: m.fft.ihfft(a), [((7,), F64)]),
    ("fft.fftfreq", lambda m: m.fft.fftfreq(7, d=0.5, dtype=m.float64), []),
    ("fft.rfftfreq", lambda m: m.fft.rfftfreq(8, dtype=m.float32), []),
    ("fft.fftshift", lambda m, a: m.fft.fftshift(a, axes=1), [((3, 5), F)]),
    ("fft.ifftshift", lambda m, a: m.fft.ifftshift(a), [((4, 5), F)]),
]


@pytest.mark.parametrize("call", CALLS, ids=[c[0] for c in CALLS])
def test_against_reference(call: Call, device: str) -> None:
    _, fn, specs = call
    pairs = [_pair(shape, dtype, device) for shape, dtype in specs]
    got = fn(xp, *(p[0] for p in pairs)) if pairs else fn(xp)
    want = fn(strict, *(p[1] for p in pairs)) if pairs else fn(strict)
    _check(got, want)
    for r in got if isinstance(got, (tuple, list)) else (got,):
        if isinstance(r, tc.Tensor) and pairs:
            assert r.device.type == device


def test_namespace_is_found_from_tensors() -> None:
    compat = pytest.importorskip("array_api_compat")
    t = tc.ones(3)
    assert t.__array_namespace__() is xp is tc.array_api
    assert compat.array_namespace(t) is xp
    assert xp.__array_api_version__ == "2024.12"
    with pytest.raises(ValueError, match="api_version"):
        t.__array_namespace__(api_version="1999.01")


def test_inspection() -> None:
    info = xp.__array_namespace_info__()
    assert info.capabilities()["data-dependent shapes"] is True
    assert tc.device("cpu") in info.devices()
    assert info.default_device() == tc.get_default_device()
    assert info.default_dtypes() == {
        "real floating": xp.float32,
        "complex floating": xp.complex64,
        "integral": xp.int64,
        "indexing": xp.int64,
    }
    assert set(info.dtypes(kind="integral")) == {"int8", "int16", "int32", "int64", "uint8"}
    assert set(info.dtypes(kind=("bool", "complex floating"))) == {
        "bool",
        "complex64",
        "complex128",
    }
    with pytest.raises(ValueError, match="kind"):
        info.dtypes(kind="real")


def test_constants() -> None:
    assert xp.pi == math.pi and xp.e == math.e and xp.inf == math.inf and math.isnan(xp.nan)
    x = xp.arange(3)
    assert x[xp.newaxis].shape == (1, 3)


def test_asarray_copy_semantics(device: str) -> None:
    a = tc.arange(4.0, device=device)
    assert xp.asarray(a) is a
    assert xp.asarray(a, copy=False) is a
    c = xp.asarray(a, copy=True)
    c[0] = 9
    assert a[0].item() == 0
    with pytest.raises(ValueError, match="copy=False"):
        xp.asarray(a, dtype=xp.int32, copy=False)
    with pytest.raises(ValueError, match="copy=False"):
        xp.asarray([1, 2], copy=False)
    assert xp.asarray([[True], [False]]).dtype == xp.bool
    assert xp.asarray(2**40).dtype == xp.int64
    assert xp.asarray([1.5, 2]).dtype == xp.float32


def test_asarray_shares_numpy_memory() -> None:
    a = np.arange(3.0)
    t = xp.asarray(a, copy=False)
    t[1] = 7
    assert a[1] == 7
    assert xp.asarray(a, copy=True).data_ptr() != t.data_ptr()


def test_reshape_copy_false_raises_when_a_view_is_impossible() -> None:
    x = xp.permute_dims(xp.reshape(xp.arange(6), (2, 3)), (1, 0))
    with pytest.raises(ValueError, match="copy=False"):
        xp.reshape(x, (6,), copy=False)
    assert xp.reshape(x, (6,)).tolist() == [0, 3, 1, 4, 2, 5]


def test_errors_are_the_standards() -> None:
    with pytest.raises(ValueError, match="cannot be broadcast"):
        xp.broadcast_arrays(xp.ones(2), xp.ones(3))
    with pytest.raises(ValueError, match="zero-dimensional"):
        xp.nonzero(xp.asarray(3))
    with pytest.raises(ValueError, match="size 3, not 1"):
        xp.squeeze(xp.ones((3, 1)), axis=0)
    with pytest.raises(ValueError, match="axis is required"):
        xp.cumulative_sum(xp.ones((2, 2)))


def test_gradients_flow_through_the_namespace() -> None:
    x = tc.randn(4, 3, dtype=tc.float64, requires_grad=True)
    y = xp.sum(xp.std(x, axis=0, correction=1) * xp.mean(xp.exp(x), axis=0))
    y.backward()
    x2 = x.detach().clone().requires_grad_()
    (x2.std(0, correction=1) * x2.exp().mean(0)).sum().backward()
    assert_close(x.grad, x2.grad)


def test_namespace_functions_cost_no_more_than_the_wrappers() -> None:
    # Where the standard's function means what tensorcore's means, it is the same object.
    assert xp.exp is tc.exp and xp.isnan is tc.isnan and xp.bitwise_invert is tc.bitwise_not


# ------------------------------------------------------------------ the Tensor's side
def test_negative_step_slices_read_and_write(device: str) -> None:
    a = np.arange(24.0).reshape(2, 3, 4)
    x = tc.from_numpy(a.copy()).to(device)
    for idx in [
        np.s_[::-1],
        np.s_[:, ::-2],
        np.s_[1, ::-1, 3:0:-2],
        np.s_[..., ::-3],
        np.s_[:, 5:-10:-1],
        np.s_[:, 0:2:-1],
        np.s_[::-1, None, 1],
        np.s_[[1, 0], ::-1],
    ]:
        np.testing.assert_array_equal(x[idx].cpu().numpy(), a[idx])
        if isinstance(idx, tuple) and isinstance(idx[0], list):
            continue
        y, b = x.clone(), a.copy()
        v = np.arange(a[idx].size, dtype=float).reshape(a[idx].shape) + 100
        y[idx] = tc.from_numpy(v).to(device)
        b[idx] = v
        np.testing.assert_array_equal(y.cpu().numpy(), b)
        y[idx] = -1.0
        b[idx] = -1.0
        np.testing.assert_array_equal(y.cpu().numpy(), b)
    with pytest.raises(ValueError, match="step of a slice index cannot be zero"):
        x[::0]


def test_negative_step_slice_gradient() -> None:
    w = tc.arange(5.0, requires_grad=True)
    (w[::-2] * tc.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert w.grad.tolist() == [3.0, 0.0, 2.0, 0.0, 1.0]


def test_to_device(device: str) -> None:
    x = tc.ones(2)
    y = x.to_device(device)
    assert y.device.type == device
    assert x.to_device("cpu") is x


def test_dlpack_keywords_and_copies() -> None:
    x = tc.arange(4.0)
    shared = np.from_dlpack(x)
    shared[0] = 5
    assert x[0].item() == 5
    copied = np.from_dlpack(x, copy=True)
    copied[1] = 9
    assert x[1].item() == 1
    assert x.__dlpack_device__() == (1, 0)
    capsule = x.__dlpack__(max_version=(1, 0))
    assert capsule is not None
    with pytest.raises(RuntimeError, match="detach"):
        tc.ones(2, requires_grad=True).__dlpack__()


def test_dlpack_refuses_sparse_tensors() -> None:
    if not hasattr(tc, "sparse_coo"):
        pytest.skip("needs the tensorcore-sparse backend")
    with pytest.raises(BufferError, match="to_dense"):
        tc.ones(2).to_sparse().__dlpack__()


def test_from_dlpack_device_and_copy(device: str) -> None:
    a = np.arange(3.0)
    t = tc.from_dlpack(a)
    t[0] = 4
    assert a[0] == 4
    c = tc.from_dlpack(a, copy=True)
    c[0] = 0
    assert a[0] == 4
    moved = tc.from_dlpack(a, device=device)
    assert moved.device.type == device
    if device != "cpu":
        with pytest.raises(BufferError, match="copy=False"):
            tc.from_dlpack(a, device=device, copy=False)


def test_from_dlpack_read_only_or_reversed_producers() -> None:
    r = np.arange(3.0)
    r.flags.writeable = False
    t = tc.from_dlpack(r)  # a copy: tensors are writable
    t[0] = 5
    assert r[0] == 0 and t[0].item() == 5
    with pytest.raises(BufferError, match="read-only"):
        tc.from_dlpack(r, copy=False)
    rev = np.arange(4.0)[::-1]
    assert tc.from_dlpack(rev).tolist() == [3.0, 2.0, 1.0, 0.0]
    with pytest.raises(BufferError, match="negatively strided"):
        tc.from_dlpack(rev, copy=False)


def test_finfo_and_iinfo_follow_pytorch() -> None:
    f = tc.finfo(tc.float32)
    assert (f.bits, f.eps, f.tiny, f.resolution, f.dtype) == (
        32,
        2.0**-23,
        2.0**-126,
        1e-6,
        "float32",
    )
    assert tc.finfo(tc.bfloat16).eps == 2.0**-7 and tc.finfo(tc.float16).max == 65504.0
    assert tc.finfo().dtype == "float32"
    assert tc.finfo(tc.complex128).dtype == "float64"
    i = tc.iinfo(tc.int32)
    assert (i.bits, i.min, i.max, i.dtype) == (32, -(2**31), 2**31 - 1, "int32")
    with pytest.raises(TypeError, match="iinfo"):
        tc.finfo(tc.int32)
    with pytest.raises(TypeError, match="finfo"):
        tc.iinfo(tc.float32)
    assert xp.finfo(xp.float64).dtype is xp.float64 and xp.iinfo(xp.int8).dtype is xp.int8


# ------------------------------------------------------------------ real consumers
def test_scikit_learn_takes_and_returns_tensors(run_py: Any) -> None:
    pytest.importorskip("sklearn")
    pytest.importorskip("array_api_compat")
    # scikit-learn's array API mode needs SciPy's, which is read at import: a fresh process.
    run_py(
        """
        import sklearn
        import tensorcore as tc
        from sklearn.preprocessing import StandardScaler

        from sklearn.decomposition import PCA
        from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
        from sklearn.linear_model import Ridge

        x = tc.randn(40, 3, dtype=tc.float64) * 3 + 1
        y = (x[:, 0] > 1).to(tc.int64)
        with sklearn.config_context(array_api_dispatch=True):
            out = StandardScaler().fit_transform(x)
        assert isinstance(out, tc.Tensor) and out.dtype == tc.float64, type(out)
        assert out.mean(0).abs().max().item() < 1e-12
        assert (out.std(0, correction=0) - 1).abs().max().item() < 1e-12

        # The same estimators on NumPy arrays are the oracle.
        for make, fit, apply in [
            (lambda: PCA(n_components=2, svd_solver="full"), (x,), "transform"),
            (lambda: Ridge(alpha=1.0, solver="svd"), (x, x[:, 1] * 2), "predict"),
            (lambda: LinearDiscriminantAnalysis(), (x, y), "predict_proba"),
        ]:
            with sklearn.config_context(array_api_dispatch=True):
                got = getattr(make().fit(*fit), apply)(x)
            want = getattr(make().fit(*(a.numpy() for a in fit)), apply)(x.numpy())
            assert isinstance(got, tc.Tensor), (make, type(got))
            # (PCA's components are defined up to sign)
            assert abs(abs(got.numpy()) - abs(want)).max() < 1e-8, make
        """,
        env={"SCIPY_ARRAY_API": "1"},
    )


def test_scipy_with_the_array_api_differentiates_through_tensorcore(run_py: Any) -> None:
    pytest.importorskip("scipy")
    pytest.importorskip("array_api_compat")
    # SCIPY_ARRAY_API is read when SciPy is first imported: a fresh interpreter.
    run_py(
        """
        import math
        import tensorcore as tc
        from scipy import special, stats

        x = tc.tensor([[0.5, -1.0, 2.0], [3.0, 0.0, -2.0]], dtype=tc.float64,
                      requires_grad=True)
        lse = special.logsumexp(x, axis=1)
        assert isinstance(lse, tc.Tensor), type(lse)
        want = [math.log(sum(math.exp(v) for v in row)) for row in x.tolist()]
        assert all(abs(a - b) < 1e-12 for a, b in zip(lse.tolist(), want))
        lse.sum().backward()
        assert all(abs(g - s) < 1e-12 for g, s in zip(x.grad.flatten().tolist(),
                   x.detach().softmax(1).flatten().tolist()))
        z = stats.zscore(x.detach(), axis=0)
        assert isinstance(z, tc.Tensor) and z.shape == (2, 3)

        import numpy as np
        import scipy.fft

        f = scipy.fft.rfft(x.detach(), axis=1)
        assert isinstance(f, tc.Tensor), type(f)
        assert abs(f.numpy() - np.fft.rfft(x.detach().numpy(), axis=1)).max() < 1e-12
        """,
        env={"SCIPY_ARRAY_API": "1"},
    )


def test_sparse_tensors_through_the_namespace() -> None:
    if not hasattr(tc, "sparse_coo"):
        pytest.skip("needs the tensorcore-sparse backend")
    d = tc.tensor([[0.0, 1.0], [2.0, 0.0]])
    s = d.to_sparse()
    assert s.__array_namespace__() is xp
    out = xp.add(xp.multiply(s, 2.0), s)
    assert out.layout is tc.sparse_coo
    assert out.to_dense().tolist() == [[0.0, 3.0], [6.0, 0.0]]
    assert xp.matmul(s, d).tolist() == [[2.0, 0.0], [0.0, 2.0]]
    with pytest.raises(NotImplementedError, match="sparse_coo"):
        xp.max(s)  # no sparse kernel: the error names the layout


def test_boolean_scalar_indices_add_a_dimension(device: str) -> None:
    # The standard's (and NumPy's) rule: x[True] has a new axis of size 1, x[False] of size 0,
    # for a 0-d array too.
    for x in (xp.asarray(5.0, device=device), xp.arange(3.0, device=device)):
        assert x[xp.asarray(False, device=device)].shape == (0, *x.shape)
        assert x[xp.asarray(True, device=device)].shape == (1, *x.shape)
        assert x[False].shape == (0, *x.shape)


@pytest.mark.parametrize(
    "call",
    [
        lambda: xp.sum("abc"),
        lambda: xp.std([1.0]),
        lambda: xp.prod(3),
        lambda: xp.reshape(None, (2,)),
        lambda: xp.sort([3, 1]),
        lambda: xp.round("x"),
        lambda: xp.vecdot([1], [2]),
        lambda: xp.astype("x", xp.int8),
        lambda: xp.astype(xp.ones(2), "float32"),
        lambda: xp.sum(xp.ones(2), axis=1.5),
        lambda: xp.add("a", xp.ones(2)),
    ],
)
def test_non_arrays_get_a_type_error_naming_the_function(call: Callable[[], Any]) -> None:
    with pytest.raises(TypeError, match=r"^\w+\(\): "):
        call()


def test_linspace_keeps_an_explicit_complex_dtype() -> None:
    tc.set_default_dtype(tc.float64)  # (the fixture restores it)
    assert xp.linspace(0j, 1, 3, dtype=xp.complex64).dtype == xp.complex64
    assert xp.linspace(0j, 1, 3).dtype == xp.complex128


def test_floor_divide_follows_the_standard_at_infinities(device: str) -> None:
    # PyTorch's // gives NaN for inf // 2 and -1 for -1 // inf; the standard's floor_divide
    # gives floor(x1 / x2) there, and the operator keeps PyTorch's answer.
    inf, nan = math.inf, math.nan
    x1 = tc.tensor([inf, inf, -inf, -inf, 1.0, -1.0, 1.0, inf, 7.0, -7.0, nan], device=device)
    x2 = tc.tensor([2.0, -2.0, 2.0, -2.0, -inf, inf, inf, inf, 2.0, 2.0, 1.0], device=device)
    got = xp.floor_divide(x1, x2).cpu().numpy()
    want = np.array([inf, -inf, -inf, inf, -0.0, -0.0, 0.0, nan, 3.0, -4.0, nan], np.float32)
    np.testing.assert_array_equal(got, want)
    assert list(np.signbit(got[4:7])) == [True, True, False]
    assert xp.floor_divide(x1[:4], 2.0).tolist() == [inf, inf, -inf, -inf]
    assert xp.floor_divide(tc.tensor([5, -5], device=device), 2).tolist() == [2, -3]
    assert math.isnan((x1[:1] // x2[:1]).item())  # the operator: PyTorch's


def test_complex_expm1_follows_the_standard_at_infinities(device: str) -> None:
    inf, nan = math.inf, math.nan
    z = [complex(inf, 0), complex(-inf, inf), complex(inf, inf), complex(-inf, nan),
         complex(inf, nan), complex(nan, 0), complex(-inf, 2.0), complex(inf, 2.0),
         complex(2.0, inf), complex(1e-9, 2e-9), complex(1.0, -1.0)]  # fmt: skip
    x = tc.tensor(z, dtype=tc.complex128, device=device)
    got = xp.expm1(x).cpu().numpy()
    assert got[0] == complex(inf, 0) and got[1] == -1 and got[3] == -1 and got[6] == -1
    assert got[2].real == inf and math.isnan(got[2].imag)
    assert got[4].real == inf and math.isnan(got[4].imag)
    assert math.isnan(got[5].real) and got[5].imag == 0
    assert got[7].real == -inf and got[7].imag == inf  # inf * cis(2)
    assert math.isnan(got[8].real) and math.isnan(got[8].imag)
    np.testing.assert_allclose(got[9:], np.expm1(np.array(z[9:])), rtol=1e-15)
    real = tc.tensor([-1.0, 0.5], device=device)
    assert xp.expm1(real).tolist() == tc.expm1(real).tolist()


def test_sign_remainder_and_expm1_zeros_follow_the_standard(device: str) -> None:
    # Where PyTorch's kernels differ from the standard (sign(nan) is 0, a zero remainder keeps
    # x1's sign, expm1(-0 + 0j) is -0 + 0j), the namespace gives the standard's answer and the
    # tensorcore functions keep PyTorch's.
    x = tc.tensor([math.nan, -2.0, 0.0, 3.0], device=device)
    got = xp.sign(x).cpu().numpy()
    assert math.isnan(got[0]) and list(got[1:]) == [-1.0, 0.0, 1.0]
    assert tc.sign(x)[0].item() == 0.0
    assert xp.sign(tc.tensor([-3, 0, 2], device=device)).tolist() == [-1, 0, 1]
    x1 = tc.tensor([-0.0, 0.0, 4.0, -4.0, 5.0], device=device)
    x2 = tc.tensor([2.0, -2.0, 2.0, -2.0, -3.0], device=device)
    got = xp.remainder(x1, x2).cpu().numpy()
    want = np.remainder(x1.cpu().numpy(), x2.cpu().numpy())
    np.testing.assert_array_equal(got, want)
    assert list(np.signbit(got)) == list(np.signbit(want)) == [False, True, False, True, True]
    assert list(np.signbit(xp.remainder(x1[:2], 2.0).cpu().numpy())) == [False, False]
    assert xp.remainder(tc.tensor([-7, 7], device=device), 3).tolist() == [2, 1]
    assert np.signbit(tc.remainder(x1[:1], x2[:1]).cpu().numpy()[0])  # the operator: PyTorch's
    z = tc.tensor([complex(-0.0, 0.0), complex(0.0, 0.0)], dtype=tc.complex128, device=device)
    got = xp.expm1(z).cpu().numpy()
    assert not np.signbit(got.real).any() and not np.signbit(got.imag).any()


def test_complex_tanh_follows_the_standard_at_an_infinite_real_part(device: str) -> None:
    # The standard: tanh(+inf + bj) is 1 + 0j for a finite b > 0 (and, by tanh(conj(z)) =
    # conj(tanh(z)) and oddness, +-1 with the sign of b); C99's ctanh (PyTorch's, NumPy's)
    # gives the sign of sin(2b), -0 for b = 2e120.
    inf = math.inf
    z = [complex(inf, 2e120), complex(inf, -2e120), complex(-inf, 2e120), complex(-inf, -3.0),
         complex(inf, 0.0), complex(0.5, -1.0)]  # fmt: skip
    x = tc.tensor(z, dtype=tc.complex128, device=device)
    got = xp.tanh(x).cpu().numpy()
    assert list(got.real[:5]) == [1.0, 1.0, -1.0, -1.0, 1.0]
    assert list(got.imag[:5]) == [0.0] * 5
    assert list(np.signbit(got.imag[:5])) == [False, True, False, True, False]
    np.testing.assert_allclose(got[5], np.tanh(z[5]), rtol=1e-15)
    real = tc.tensor([inf, -0.5], device=device)
    assert xp.tanh(real).tolist() == tc.tanh(real).tolist() == [1.0, tc.tanh(real)[1].item()]


def test_a_zero_sized_mask_dim_selects_nothing(device: str) -> None:
    # The standard: a mask dim must equal the indexed dim's size "or be 0" (PyTorch raises).
    x = xp.reshape(xp.arange(12.0, device=device), (3, 4))
    assert x[xp.zeros((3, 0), dtype=xp.bool, device=device)].shape == (0,)
    assert x[xp.zeros((0,), dtype=xp.bool, device=device)].shape == (0, 4)
    assert xp.zeros((0, 1), device=device)[xp.zeros((0, 0), dtype=xp.bool)].shape == (0,)
    x[xp.zeros((0, 4), dtype=xp.bool, device=device)] = -1.0
    assert float(xp.sum(x)) == 66.0
    with pytest.raises(IndexError, match="shape of the mask"):
        x[xp.zeros((2, 4), dtype=xp.bool, device=device)]
