"""The paths the kernels take on an array module other than NumPy, run here over NumPy under
another name: the fallbacks for NumPy's unbuffered ``ufunc.at`` and ``ufunc.accumulate``
loops (CuPy: no ``multiply.at``, ``add.at`` for a few dtypes, no ``maximum.accumulate``),
against NumPy's results, and the kernels' checks and passes that NumPy reads on the host."""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import pytest
from tensorcore_xp.helpers import accumulate, ufunc_at


class _NoLoops:
    """A ufunc without ``at`` and ``accumulate`` (as CuPy's ``multiply``)."""

    def __init__(self, ufunc: Any) -> None:
        self._u = ufunc

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._u(*args, **kwargs)

    def at(self, *args: Any) -> None:
        raise NotImplementedError(f"`{self._u.__name__}.at` is not supported")

    def accumulate(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"`{self._u.__name__}.accumulate` is not supported")


# NumPy under another name, so that the helpers do not take it for NumPy.
XP = types.SimpleNamespace(**{n: getattr(np, n) for n in dir(np) if not n.startswith("__")})
XP.__name__ = "cupy_like"


@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum])
@pytest.mark.parametrize("dtype", [np.float64, np.int16, np.complex64, np.bool_])
def test_ufunc_at_combines_repeated_positions_as_numpy(ufunc: Any, dtype: Any) -> None:
    if dtype is np.complex64 and ufunc in (np.maximum, np.minimum):
        pytest.skip("no ordering of complex numbers")
    rng = np.random.default_rng(0)
    target = (rng.standard_normal((4, 5)) * 3).astype(dtype)
    values = (rng.standard_normal((7, 5)) * 2).astype(dtype)
    rows = np.array([0, 3, 0, 0, 2, 3, 0])  # position 0 five times
    where = (rows[:, None], np.arange(5)[None, :])
    want = target.copy()
    ufunc.at(want, where, values)
    got = target.copy()
    ufunc_at(XP, _NoLoops(ufunc), got, where, values)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    # a non-contiguous target: written back through its view
    big = np.zeros((4, 10), dtype=dtype)
    view = big[:, ::2]
    view[...] = target
    ufunc_at(XP, _NoLoops(ufunc), view, where, values)
    np.testing.assert_allclose(big[:, ::2], want, rtol=1e-6)
    assert not big[:, 1::2].any()


def test_ufunc_at_with_slices_masks_and_a_scalar() -> None:
    target = np.zeros((3, 4))
    key = (np.array([2, 0, 2]), slice(None))
    want = target.copy()
    np.add.at(want, key, 1.5)
    ufunc_at(XP, _NoLoops(np.add), target, key, 1.5)
    np.testing.assert_array_equal(target, want)
    mask = np.array([[True, False, True, False]] * 3)
    ufunc_at(XP, _NoLoops(np.multiply), target, (mask,), 2.0)
    np.multiply.at(want, (mask,), 2.0)
    np.testing.assert_array_equal(target, want)


@pytest.mark.parametrize("ufunc", [np.maximum, np.minimum])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_accumulate_scans_as_numpy(ufunc: Any, axis: int) -> None:
    x = np.random.default_rng(1).standard_normal((3, 9, 4))
    x[1, 4, 2] = np.nan  # propagates from its first occurrence on
    got = accumulate(XP, _NoLoops(ufunc), x, axis)
    np.testing.assert_array_equal(got, ufunc.accumulate(x, axis=axis))
    ints = np.arange(17)[::-1] % 5
    np.testing.assert_array_equal(accumulate(XP, _NoLoops(ufunc), ints, 0), ufunc.accumulate(ints))


def test_indices_are_checked_where_the_module_would_wrap_them() -> None:
    # (CuPy wraps an out-of-range index around, or writes out of bounds: the kernels check)
    from tensorcore_xp.kernels import indexing

    import tensorcore as tc

    kernels = indexing.build(XP)
    x = tc.arange(6.0).reshape(3, 2)
    assert kernels["index"](x, [tc.tensor([2, -3])]).tolist() == [[4.0, 5.0], [0.0, 1.0]]
    for bad, dim, size in (([tc.tensor([0, 3])], 0, 3), ([None, tc.tensor([-3])], 1, 2)):
        with pytest.raises(IndexError, match=f"out of bounds for dimension {dim} with size {size}"):
            kernels["index"](x, bad)
        with pytest.raises(IndexError, match="out of bounds"):
            kernels["index_put"](x, x, bad, tc.tensor(1.0), True)
    assert x.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]  # nothing written
    with pytest.raises(
        IndexError, match=r"could not be broadcast together with shapes \[2\], \[3\]"
    ):
        kernels["index"](x, [tc.tensor([0, 1]), tc.tensor([0, 1, 1])])
    out = x.clone()
    kernels["index_put"](out, x, [tc.tensor([0, 0, 2])], tc.tensor(1.0), True)
    assert out.tolist() == [[2.0, 3.0], [2.0, 3.0], [5.0, 6.0]]


def test_max_pool_finds_nan_windows_without_asking_the_device() -> None:
    # Off NumPy, reading ``nan.any()`` would wait for the device: the NaN pass always runs.
    from tensorcore_xp.kernels import nn

    import tensorcore as tc

    pool = nn.build(XP)["max_pool2d_with_indices"]
    nan = float("nan")
    x = tc.tensor([[[[1.0, nan, nan, 2.0, 3.0, 3.0]]]])
    values, indices = tc.empty(1, 1, 1, 5), tc.empty(1, 1, 1, 5, dtype=tc.int64)
    pool((values, indices), x, (1, 2), (1, 1), (0, 0), (1, 1), False)
    assert indices.flatten().tolist() == [1, 2, 2, 4, 4]
    assert values.flatten()[3:].tolist() == [3.0, 3.0]
    assert values.flatten()[:3].isnan().all()


class _SinglePrecisionAt(_NoLoops):
    """``maximum``/``minimum`` with CuPy's ``at`` of floats: atomic ``fmaxf``/``fminf``,
    which round doubles to single precision and drop NaNs."""

    def at(self, target: Any, where: Any, values: Any = None) -> None:
        if target.dtype.kind != "f":
            if target.dtype not in (np.int32, np.uint32, np.uint64):
                raise TypeError(f"{self._u.__name__}.at: unsupported dtype")
            self._u.at(target, where, values)
            return
        single = target.astype(np.float32)
        (np.fmax if self._u is np.maximum else np.fmin).at(
            single, where, np.asarray(values).astype(np.float32)
        )
        named = np.zeros(target.shape, dtype=bool)
        named[where] = True
        target[named] = single[named]


XP_ATOMICS = types.SimpleNamespace(**vars(XP))
XP_ATOMICS.maximum = _SinglePrecisionAt(np.maximum)
XP_ATOMICS.minimum = _SinglePrecisionAt(np.minimum)


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.bool_])
def test_extrema_at_are_numpys_also_where_the_module_has_single_precision_atomics(
    largest: bool, dtype: Any
) -> None:
    # Off NumPy, maximum.at/minimum.at of floats sort instead of calling the module's loop
    # (CuPy's rounds doubles to float32: an amax that equals none of its inputs).
    rng = np.random.default_rng(2)
    floating = np.dtype(dtype).kind == "f"
    # small integers; for floats 1 + k * 1e-12: ties, and differences below float32's
    target, values = rng.integers(0, 8, (4, 6)), rng.integers(0, 8, (9, 6))
    if floating:
        target, values = 1.0 + target * 1e-12, 1.0 + values * 1e-12
    target, values = target.astype(dtype), values.astype(dtype)
    if floating:
        values[3, 2] = np.nan  # row 0 (named four times) gets it: NumPy's loop propagates it
        target[2, 5] = np.nan
        values[0, 0], values[5, 0] = -np.inf, np.inf
    rows = np.array([0, 3, 0, 0, 2, 3, 0, 1, 3])
    where = (rows[:, None], np.arange(6)[None, :])
    ufunc = np.maximum if largest else np.minimum
    want = target.copy()
    ufunc.at(want, where, values)
    got = target.copy()
    ufunc_at(XP_ATOMICS, XP_ATOMICS.maximum if largest else XP_ATOMICS.minimum, got, where, values)
    np.testing.assert_array_equal(got, want)
    # a non-contiguous target, and a 1-d one named by flat positions (the scatter kernels')
    big = np.zeros((4, 12), dtype=dtype)
    big[:, ::2] = target
    ufunc_at(XP_ATOMICS, getattr(XP_ATOMICS, ufunc.__name__), big[:, ::2], where, values)
    np.testing.assert_array_equal(big[:, ::2], want)
    assert not big[:, 1::2].any()
    flat = target.copy().reshape(-1)
    pos = (rows[:, None] * 6 + np.arange(6)[None, :]).reshape(-1)
    ufunc_at(XP_ATOMICS, getattr(XP_ATOMICS, ufunc.__name__), flat, (pos,), values.reshape(-1))
    np.testing.assert_array_equal(flat.reshape(4, 6), want)


def test_scatter_reduce_amax_of_doubles_is_one_of_its_inputs_off_numpy() -> None:
    # (the amax/amin derivative counts the inputs equal to the result: none gave 0 / 0)
    from tensorcore_xp.kernels import indexing

    import tensorcore as tc

    kernels = indexing.build(XP_ATOMICS)
    x = tc.tensor([[0.1, 0.2, 0.3]], dtype=tc.float64)
    src = tc.tensor([[0.1 + 1e-12, 0.2 - 1e-12, 0.35]], dtype=tc.float64)
    index = tc.tensor([[0, 1, 0]])
    for reduce, want in (("amax", [0.35, 0.2, 0.3]), ("amin", [0.1, 0.2 - 1e-12, 0.3])):
        out = x.clone()
        kernels["scatter_reduce"](out, x, 1, index, src, reduce)
        assert out.tolist() == [want], reduce
        assert out.tolist() == x.scatter_reduce(1, index, src, reduce).tolist()


def _floor_of_quotient(x: Any, y: Any, out: Any = None) -> Any:
    """CuPy's floor division of floats: floor(x / y), whose rounded quotient can be one
    too large (3.0 // 0.1 is 30.0)."""
    x, y = np.asarray(x), np.asarray(y)
    if np.result_type(x, y).kind != "f":
        return np.floor_divide(x, y, out=out)
    return np.floor(np.true_divide(x, y, out=out), out=out)


def _remainder_of_quotient(x: Any, y: Any, out: Any = None) -> Any:
    """CuPy's remainder of floats, consistent with its floor division."""
    x, y = np.asarray(x), np.asarray(y)
    if np.result_type(x, y).kind != "f":
        return np.remainder(x, y, out=out)
    return np.subtract(x, np.floor(x / y) * y, out=out)


XP_QUOTIENT = types.SimpleNamespace(**vars(XP))
XP_QUOTIENT.floor_divide = _floor_of_quotient
XP_QUOTIENT.remainder = _remainder_of_quotient

_SPECIAL = [0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 0.1, -0.1, 0.2, -0.2, 7.5, -7.5, 1e30, -1e30,
            1e-30, -1e-30, 2.0**24 + 1, 1e300, 5e-324, np.inf, -np.inf, np.nan]  # fmt: skip


def _torch_remainder(a: Any, b: Any) -> Any:
    """NumPy's remainder with PyTorch's zeros: a zero result keeps ``a``'s sign (fmod's)."""
    r = np.remainder(a, b)
    return np.where(r == 0, np.copysign(r, a), r)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_floor_division_and_remainder_of_floats_are_numpys_off_numpy(dtype: Any) -> None:
    # (CuPy's floor(x / y) gave 30 for 3.0 // 0.1 and 10 for -1 // -0.1 in float32); the
    # remainder's zeros keep the dividend's sign, as PyTorch's
    from tensorcore_xp.kernels import pointwise

    import tensorcore as tc

    kernels = pointwise.build(XP_QUOTIENT)
    rng = np.random.default_rng(3)
    with np.errstate(all="ignore"):
        special = np.array(_SPECIAL).astype(dtype)
        noise = (rng.standard_normal(250) * 10.0 ** rng.integers(-6, 7, 250)).astype(dtype)
        values = np.concatenate([special, noise])
        a = np.repeat(values, values.size)
        b = np.tile(values, values.size)
        want_q, want_r = np.floor_divide(a, b), _torch_remainder(a, b)
    ta, tb = tc.from_numpy(a), tc.from_numpy(b)
    for name, want in (("floor_divide", want_q), ("remainder", want_r)):
        out = tc.empty(a.shape, dtype=ta.dtype)
        kernels[name](out, ta, tb)
        got = out.numpy()
        np.testing.assert_array_equal(got, want, err_msg=name)
        assert (np.signbit(got) == np.signbit(want)).all(), name  # the zeros' signs too
    out = tc.empty(a.shape, dtype=ta.dtype)
    kernels["div"](out, ta, tb, rounding_mode="floor")
    np.testing.assert_array_equal(out.numpy(), want_q)
    # a Python float on either side (the kernels pass it as it is off NumPy), one that the
    # dtype holds, as the core makes it for a 16-bit tensor
    for scalar in (0.1, -0.2, 3.0):
        s = np.array(scalar).astype(dtype)
        scalar = float(s)
        with np.errstate(all="ignore"):
            pairs = (
                ("floor_divide", (ta, scalar), np.floor_divide(a, s)),
                ("remainder", (scalar, tb), _torch_remainder(s, b)),
            )
        for name, args, want in pairs:
            out = tc.empty(a.shape, dtype=ta.dtype)
            kernels[name](out, *args)
            np.testing.assert_array_equal(out.numpy(), want, err_msg=f"{name} {scalar}")


def test_clamp_keeps_x_on_a_tie_without_numpys_clip() -> None:
    # Off NumPy, clamp compares instead of calling maximum/minimum (CuPy's minimum(0.0, -0.0)
    # is -0.0): x is kept where it equals a bound, and a NaN bound gives NaN, with number and
    # tensor bounds.
    from tensorcore_xp.kernels import pointwise

    import tensorcore as tc

    clamp = pointwise.build(XP)["clamp"]
    nan, inf = float("nan"), float("inf")
    x = tc.tensor([-0.0, 0.0, 0.5, -0.5, nan, inf, -inf, 3.0])
    cases = [
        ((-inf, -0.0), [-0.0, 0.0, -0.0, -0.5, nan, -0.0, -inf, -0.0]),
        ((0.0, None), [-0.0, 0.0, 0.5, 0.0, nan, inf, 0.0, 3.0]),
        ((None, 0.0), [-0.0, 0.0, 0.0, -0.5, nan, 0.0, -inf, 0.0]),
        ((2.0, 1.0), [1.0] * 4 + [nan] + [1.0] * 3),
        ((nan, 1.0), [nan] * 8),
    ]
    for (lo, hi), want in cases:
        for as_tensor in (False, True):
            bounds = [tc.tensor(b) if as_tensor and b is not None else b for b in (lo, hi)]
            out = tc.empty(8)
            clamp(out, x, *bounds)
            got, w = out.numpy(), np.array(want)
            np.testing.assert_array_equal(got, w)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(w))


def test_half_nextafter_steps_on_the_bit_patterns() -> None:
    # CuPy's float16 nextafter gives NaN for nextafter(inf, 0): the kernel steps the bits
    from tensorcore_xp.kernels.special import _nextafter

    v = [0.0, -0.0, 1.0, -1.0, 65504, -65504, np.inf, -np.inf, np.nan, 6e-8, -6e-8, 3.0, -2.5]
    x, y = np.meshgrid(np.array(v, np.float16), np.array(v, np.float16))
    out = np.empty_like(x)
    _nextafter(XP)(x, y, out)
    with np.errstate(all="ignore"):
        want = np.nextafter(x, y)
    want = np.where(x == y, y, want)  # (C's nextafter gives y on a tie: -0.0 to 0.0 is 0.0)
    np.testing.assert_array_equal(out.view(np.uint16)[~np.isnan(want)],
                                  want.view(np.uint16)[~np.isnan(want)])  # fmt: skip
    assert np.array_equal(np.isnan(out), np.isnan(want))
    assert out[v.index(0.0), v.index(np.inf)] == 65504  # (row: y = 0; column: x = inf)


def test_complex64_division_does_not_overflow_off_numpy() -> None:
    # CuPy divides complex64 by |y|^2 in float32 (0 / 8.5e37j is NaN): the kernel widens
    from tensorcore_xp.kernels import pointwise

    import tensorcore as tc

    div = pointwise.build(XP)["div"]
    x = tc.tensor([0j, 1 + 3j, 2j, 1e30 + 1e30j], dtype=tc.complex64)
    for y in (complex(0, 8.5e37), tc.tensor(3e37 - 4e37j, dtype=tc.complex64)):
        out = tc.empty(4, dtype=tc.complex64)
        div(out, x, y)
        yv = y.item() if isinstance(y, tc.Tensor) else y
        want = (x.numpy().astype(np.complex128) / yv).astype(np.complex64)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
