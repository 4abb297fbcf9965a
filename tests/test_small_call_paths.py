"""The paths that small, everyday calls take (one nested loop for a small ``einsum``,
NumPy's set routines for ``unique``...) against NumPy or the general path they bypass, on
edge values (nan, -0), empty, non-contiguous and 16-bit inputs, and sizes on both sides of
each path's limit."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc


def _skip_meta(device: str) -> None:
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")


@pytest.mark.parametrize(
    ("equation", "shapes"),
    [
        ("ij,jk->ik", [(4, 8), (8, 8)]),
        ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
        ("i,i->", [(7,), (7,)]),
        ("ij,ij->ij", [(3, 4), (3, 4)]),
        ("ii,i->i", [(3, 3), (3,)]),
        ("ij,kj->ik", [(64, 64), (64, 64)]),  # (past the nested loop's limit: BLAS)
        ("ij,jk", [(2, 3), (3, 4)]),  # (implicit output)
        ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 4)]),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_two_operand_einsum_is_numpys(
    device: str, equation: str, shapes: list, dtype: type
) -> None:
    _skip_meta(device)
    rng = np.random.default_rng(0)
    arrays = [(rng.standard_normal(s) * 4).astype(dtype) for s in shapes]
    got = tc.einsum(equation, *(tc.from_numpy(a).to(device) for a in arrays))
    want = np.einsum(equation, *arrays)
    assert got.dtype == tc.from_numpy(want).dtype
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-5, atol=1e-4)


def test_small_einsum_edge_operands(device: str) -> None:
    _skip_meta(device)
    x = tc.tensor([[np.nan, 1.0], [-0.0, 2.0]], device=device)
    y = tc.tensor([[1.0, 0.0], [0.0, 1.0]], device=device)
    r = tc.einsum("ij,jk->ik", x, y).cpu().numpy()
    assert np.isnan(r[0]).all() and r[1].tolist() == [0.0, 2.0]
    # a transposed operand, bools (counted: int64), an empty operand, a mismatch
    a = tc.arange(6.0, device=device).reshape(2, 3)
    np.testing.assert_array_equal(
        tc.einsum("ij,jk->ik", a.t(), a).cpu().numpy(), a.t().cpu().numpy() @ a.cpu().numpy()
    )
    b = tc.tensor([[True, True], [False, True]], device=device)
    assert tc.einsum("ij,k->ik", b, b[1]).tolist() == [[0, 2], [0, 1]]
    assert tc.einsum("ij,jk->ik", tc.ones(0, 3, device=device), a.t()).shape == (0, 2)
    with pytest.raises(RuntimeError):
        tc.einsum("ij,jk->ik", a, a)


def _unique_inputs(device: str) -> list[tc.Tensor]:
    rng = np.random.default_rng(3)
    f = rng.integers(-2, 3, (5, 4)).astype(np.float32)
    f[0, :2] = np.nan
    f[1, 0], f[2, 0] = -0.0, 0.0
    return [
        tc.from_numpy(rng.integers(-3, 4, (6, 3))).to(device),
        tc.from_numpy(rng.integers(0, 2, (4, 5)).astype(bool)).to(device),
        tc.from_numpy(f).to(device),
        tc.from_numpy(f).to(device).t(),  # (non-contiguous)
        tc.from_numpy(f).to(device).to(tc.float16),
        tc.from_numpy(f).to(device).to(tc.bfloat16),
        tc.from_numpy(rng.integers(0, 3, (2, 3, 4))).to(device).to(tc.float64),
        tc.tensor(2.5, device=device),
        # (enough integers of a narrow range to be counted, and of a wide one)
        tc.from_numpy(rng.integers(-5, 40, (30, 25))).to(device),
        tc.from_numpy(rng.integers(0, 2, 700).astype(bool)).to(device),
        tc.from_numpy(rng.integers(0, 9, 600).astype(np.uint8)).to(device),
        tc.from_numpy(rng.integers(-(10**6), 10**6, 600)).to(device),
    ]


@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_unique_kernel_is_the_composite(device: str, dim: int | None) -> None:
    from tensorcore.ops.composite import COMPOSITES

    _skip_meta(device)
    for x in _unique_inputs(device):
        if dim is not None and (x.ndim == 0 or dim >= x.ndim):
            continue
        for inverse in (False, True):
            for counts in (False, True):
                got = tc.unique(x, return_inverse=inverse, return_counts=counts, dim=dim)
                want = COMPOSITES["unique"](x, True, inverse, counts, dim)
                got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
                assert len(got) == len(want)
                for g, w in zip(got, want, strict=True):
                    assert g.dtype == w.dtype and g.shape == w.shape and g.is_contiguous()
                    gv, wv = g.cpu().double().numpy(), w.cpu().double().numpy()
                    np.testing.assert_array_equal(gv, wv)
                    np.testing.assert_array_equal(np.signbit(gv), np.signbit(wv))  # (-0.0)


@pytest.mark.parametrize("composite", [False, True])
def test_unique_of_empty_and_zero_dim_tensors_as_pytorch(device: str, composite: bool) -> None:
    from tensorcore.ops.composite import COMPOSITES

    _skip_meta(device)
    unique = COMPOSITES["unique"] if composite else tc.unique

    def call(x: tc.Tensor, return_inverse: bool = False, return_counts: bool = False,
             dim: int | None = None) -> object:  # fmt: skip
        return unique(x, True, return_inverse, return_counts, dim)

    # (recorded from PyTorch 2.13)
    for shape, dim, values in [((0, 3), 0, (0, 3)), ((2, 0), 1, (2, 0)), ((0,), 0, (0,))]:
        v, inv, cnt = call(
            tc.ones(shape, device=device), return_inverse=True, return_counts=True, dim=dim
        )
        assert v.shape == values and inv.shape == (0,) and cnt.shape == (0,)
        assert inv.dtype == cnt.dtype == tc.int64
    for shape, dim in [((0, 3), 1), ((2, 0), 0)]:
        with pytest.raises(RuntimeError, match="0 sized dimensions"):
            call(tc.ones(shape, device=device), dim=dim)
    with pytest.raises(IndexError, match="no dimensions"):
        call(tc.tensor(3.0, device=device), dim=0)
    v, inv, cnt = call(tc.tensor(3.0, device=device), return_inverse=True, return_counts=True)
    assert v.tolist() == [3.0] and inv.shape == () and inv.item() == 0 and cnt.tolist() == [1]
    x = tc.tensor([-0.0, 0.0, -0.0], device=device)
    v, inv = call(x, return_inverse=True)
    assert np.signbit(v.cpu().numpy()).tolist() == [True] and inv.tolist() == [0, 0, 0]
    x = tc.tensor([[-0.0, 1.0], [0.0, 1.0]], device=device)
    assert np.signbit(call(x, dim=0).cpu().numpy()).tolist() == [[True, False]]


def test_take_along_with_kept_positions_is_numpys() -> None:
    from tensorcore_xp.helpers import take_along

    rng = np.random.default_rng(5)
    for shape, axis in [((4, 8), 1), ((4, 8), 0), ((2, 3, 5), 1), ((2, 3, 5), -1), ((3, 1), 0)]:
        x = rng.standard_normal(shape)
        for _ in range(2):  # (the second call takes the positions the first one kept)
            ix = rng.integers(
                0, shape[axis], shape[: axis % len(shape)] + (2,) + shape[axis % len(shape) + 1 :]
            )
            np.testing.assert_array_equal(
                take_along(np, x, ix, axis), np.take_along_axis(x, ix, axis)
            )
    # a result is the caller's: writing to it leaves the kept positions as they were
    r = take_along(np, np.arange(6.0).reshape(2, 3), np.array([[0], [1]]), 1)
    r[...] = -1
    assert take_along(np, np.arange(6.0).reshape(2, 3), np.array([[0], [1]]), 1).tolist() == [
        [0.0],
        [4.0],
    ]


@pytest.mark.parametrize(
    ("start", "end", "steps"),
    [(0, 1, 10), (-0.0, 1.0, 3), (0.0, -0.0, 4), (1, -1, 7), (0.1, 0.7, 50), (-3.5, 1e30, 9)],
)
def test_float32_linspace_kept_per_bounds_is_computed_again_the_same(
    device: str, start: float, end: float, steps: int
) -> None:
    _skip_meta(device)
    first = tc.linspace(start, end, steps, device=device)
    first_values = first.cpu().numpy().copy()
    first.fill_(7.0)  # (a result is the caller's: the kept range stays as it was)
    again = tc.linspace(start, end, steps, device=device).cpu().numpy()
    np.testing.assert_array_equal(again, first_values)
    np.testing.assert_array_equal(np.signbit(again), np.signbit(first_values))
    # PyTorch's values: float32 bounds and step, each value rounded once from float64
    s, e = np.float32(start), np.float32(end)
    step = np.float64((e - s) / np.float32(steps - 1))
    i = np.arange(steps, dtype=np.float64)
    h = steps // 2
    want = np.where(i < h, np.float64(s) + step * i, np.float64(e) - step * (steps - 1 - i))
    np.testing.assert_array_equal(again, want.astype(np.float32))
    # the other sign of a zero bound is another range (the first value is ``start + 0 *
    # step``, -0.0 for a negative step)
    a = tc.linspace(0.0, -1.0, 3, device=device).cpu().numpy()
    b = tc.linspace(-0.0, -1.0, 3, device=device).cpu().numpy()
    assert np.signbit(b[0]) and not np.signbit(a[0])


@pytest.mark.parametrize("dtype", [tc.float64, tc.float16, tc.int64, tc.complex64])
def test_linspace_of_other_dtypes_kept_per_bounds(device: str, dtype: tc.dtype) -> None:
    _skip_meta(device)
    for start, end, steps in [(0, 1, 10), (-2.5, 7, 6), (0.1, 0.3, 33), (3, -4, 5)]:
        if dtype is tc.int64 and isinstance(start, float):
            continue
        first = tc.linspace(start, end, steps, dtype=dtype, device=device)
        want = first.cpu().numpy().copy()
        first.fill_(1)
        again = tc.linspace(start, end, steps, dtype=dtype, device=device)
        assert again.dtype == dtype
        np.testing.assert_array_equal(again.cpu().numpy(), want)
        out = tc.empty(steps, dtype=dtype, device=device)
        tc.linspace(start, end, steps, out=out)
        np.testing.assert_array_equal(out.cpu().numpy(), want)
    # float64: both halves exact at their ends, values within a rounding of NumPy's
    if dtype is tc.float64:
        r = tc.linspace(0.1, 0.3, 33, dtype=dtype, device=device).cpu().numpy()
        assert r[0] == 0.1 and r[-1] == 0.3
        np.testing.assert_allclose(r, np.linspace(0.1, 0.3, 33), rtol=1e-15)


@pytest.mark.parametrize(
    ("shape", "shifts", "dims"),
    [
        ((4, 8), 1, 1),
        ((4, 8), (1, -3), (0, 1)),
        ((4, 8), (2, 3), (1, 1)),  # (a dim named twice rolls by the sum)
        ((3, 0, 5), (1, 7), (0, 2)),
        ((2, 3, 4), 11, -1),
        ((5,), -12, 0),
    ],
)
def test_roll_and_flip_with_kept_index_tuples_are_numpys(
    device: str, shape: tuple, shifts: object, dims: object
) -> None:
    _skip_meta(device)
    rng = np.random.default_rng(6)
    for _ in range(2):  # (the second call takes the index tuples the first one kept)
        a = rng.standard_normal(shape).astype(np.float32)
        x = tc.from_numpy(a).to(device)
        np.testing.assert_array_equal(
            tc.roll(x, shifts, dims).cpu().numpy(), np.roll(a, shifts, dims)
        )
        d = (dims,) if isinstance(dims, int) else tuple(set(dims))
        np.testing.assert_array_equal(tc.flip(x, d).cpu().numpy(), np.flip(a, d))
        # a transposed input
        np.testing.assert_array_equal(
            tc.flip(x.mT if x.ndim > 1 else x, [0]).cpu().numpy(),
            np.flip(a.swapaxes(-1, -2) if a.ndim > 1 else a, 0),
        )


@pytest.mark.parametrize("shape", [(4, 8), (7,), (2, 3, 4), (3, 0), ()])
def test_argwhere_and_nonzero_are_numpys(device: str, shape: tuple) -> None:
    _skip_meta(device)
    a = np.random.default_rng(7).integers(0, 3, shape) > 0
    x = tc.from_numpy(a).to(device)
    got = tc.argwhere(x)
    assert got.dtype == tc.int64 and got.is_contiguous()
    np.testing.assert_array_equal(got.cpu().numpy(), np.argwhere(a))
    np.testing.assert_array_equal(tc.nonzero(x.float()).cpu().numpy(), np.argwhere(a))
    for g, w in zip(tc.nonzero(x, as_tuple=True), np.nonzero(np.atleast_1d(a)), strict=True):
        assert g.dtype == tc.int64 and g.is_contiguous()
        np.testing.assert_array_equal(g.cpu().numpy(), w)
    if x.ndim > 1:  # (a transposed input: positions in its own, logical order)
        np.testing.assert_array_equal(
            tc.argwhere(x.mT).cpu().numpy(), np.argwhere(a.swapaxes(-1, -2))
        )


def test_unique_rows_by_column_sorts_as_lexsort() -> None:
    """``unique`` along a dim orders the rows with NumPy's ``lexsort``, and with a stable
    sort per column on other array modules (here NumPy under another name): the same."""
    from tensorcore_xp.kernels import sets

    class OtherModule:
        __name__ = "other"

        def __getattr__(self, name: str) -> object:
            return getattr(np, name)

    plain, other = sets.build(np)["unique"], sets.build(OtherModule())["unique"]
    for x in _unique_inputs("cpu"):
        for dim in range(x.ndim):
            a = plain(x, True, True, True, dim)
            b = other(x, True, True, True, dim)
            for g, w in zip(a, b, strict=True):
                np.testing.assert_array_equal(g.double().numpy(), w.double().numpy())
