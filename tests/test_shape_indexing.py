"""Shape and indexing operators against NumPy: cat, stack, flip, roll, repeat, tile, tril,
triu, gather, scatter, index_select, masked_fill, nonzero; advanced indexing (a copy) and
``__setitem__`` with every index kind."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import tensorcore as tc
from tensorcore.testing import assert_close, to_numpy
from tensorcore.testing import strategies as tcst


def _a(
    device: str, shape: tuple[int, ...] = (3, 4), dtype: Any = np.float32
) -> tuple[tc.Tensor, np.ndarray]:
    a = np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)
    return tc.tensor(a, device=device), a


# ---------------------------------------------------------------- cat / stack
@given(data=st.data())
def test_cat_matches_numpy(device: str, data: st.DataObject) -> None:
    shape = data.draw(tcst.shapes(min_dims=1, max_dims=3, max_side=3), label="shape")
    dim = data.draw(st.integers(-len(shape), len(shape) - 1), label="dim")
    n = data.draw(st.integers(1, 3), label="count")
    arrays, tensors = [], []
    for i in range(n):
        s = list(shape)
        s[dim] = data.draw(st.integers(0, 3), label=f"size{i}")
        dtype = data.draw(tcst.dtypes(), label=f"dtype{i}")
        t, a = data.draw(tcst.tensors_from_arrays(data.draw(tcst.arrays(dtype, tuple(s))), device))
        arrays.append(a)
        tensors.append(t)
    result = tc.result_type(*[tc.tensor(np.zeros(1, a.dtype)) for a in arrays])
    expected = np.concatenate([a.astype(np.dtype(result.name)) for a in arrays], axis=dim)
    assert_close(tc.cat(tensors, dim), expected)
    assert_close(tc.cat(tuple(tensors), dim=dim), expected)


def test_cat_details(device: str) -> None:
    t, a = _a(device)
    out = tc.tensor(np.zeros((6, 4), np.float32), device=device)
    assert tc.cat([t, t], out=out) is out
    assert_close(out, np.concatenate([a, a]))
    # A legacy empty 1-D tensor is skipped, as in PyTorch.
    assert_close(tc.cat([t, tc.tensor([], device=device)]), a)
    assert tc.cat([t, t.to(tc.int64)]).dtype is tc.float32
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 0"):
        tc.cat([t, t[:, :2]])
    with pytest.raises(RuntimeError, match="Tensors must have same number of dimensions"):
        tc.cat([t, t[0]])
    with pytest.raises(ValueError, match="expected a non-empty list of Tensors"):
        tc.cat([])


def test_cat_rejects_a_tensor_in_place_of_a_list(device: str) -> None:
    t, _ = _a(device)
    with pytest.raises(TypeError, match="must be tuple of Tensors, not Tensor"):
        tc.cat(t)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_stack(device: str, dim: int) -> None:
    t, a = _a(device)
    assert_close(tc.stack([t, t + 1, t * 2], dim), np.stack([a, a + 1, a * 2], axis=dim))
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        tc.stack([t, t[:2]])


# ---------------------------------------------------------------- reordering and repeating
@given(data=st.data())
def test_flip_roll(device: str, data: st.DataObject) -> None:
    shape = data.draw(tcst.shapes(min_dims=1, max_dims=3, max_side=4), label="shape")
    t, a = data.draw(tcst.tensors_from_arrays(data.draw(tcst.arrays(tc.int64, shape)), device))
    n = len(shape)
    dims = data.draw(
        st.lists(st.integers(-n, n - 1), max_size=n, unique_by=lambda d: d % n), label="dims"
    )
    assert_close(tc.flip(t, dims), np.flip(a, axis=tuple(dims)) if dims else a)
    assert_close(t.flip(dims), np.flip(a, axis=tuple(dims)) if dims else a)
    shifts = [data.draw(st.integers(-6, 6)) for _ in dims]
    if dims:
        assert_close(tc.roll(t, shifts, dims), np.roll(a, shifts, axis=tuple(dims)))
    shift = data.draw(st.integers(-6, 6), label="flat shift")
    assert_close(t.roll(shift), np.roll(a, shift))


@given(data=st.data())
def test_repeat_tile(device: str, data: st.DataObject) -> None:
    shape = data.draw(tcst.shapes(max_dims=3, max_side=3), label="shape")
    t, a = data.draw(tcst.tensors_from_arrays(data.draw(tcst.arrays(tc.float32, shape)), device))
    reps = data.draw(
        st.lists(st.integers(0, 3), min_size=len(shape), max_size=len(shape) + 2), label="reps"
    )
    assert_close(t.repeat(*reps), np.tile(a, reps))
    assert_close(t.repeat(reps), np.tile(a, reps))
    tile_reps = data.draw(st.lists(st.integers(0, 3), max_size=4), label="tile reps")
    assert_close(tc.tile(t, tile_reps), np.tile(a, tile_reps))
    assert_close(t.tile(tile_reps), np.tile(a, tile_reps))


def test_repeat_needs_enough_dims(device: str) -> None:
    t, _ = _a(device)
    with pytest.raises(
        RuntimeError, match="Number of dimensions of repeat dims can not be smaller"
    ):
        t.repeat(2)


@pytest.mark.parametrize("diagonal", [-2, -1, 0, 1, 3])
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 3), (4, 2)])
def test_tril_triu(device: str, diagonal: int, shape: tuple[int, ...]) -> None:
    t, a = _a(device, shape)
    assert_close(tc.tril(t, diagonal), np.tril(a, diagonal))
    assert_close(t.triu(diagonal), np.triu(a, diagonal))
    out = tc.tensor(np.zeros(shape, np.float32), device=device)
    assert tc.triu(t, diagonal, out=out) is out
    assert_close(out, np.triu(a, diagonal))
    v = t.transpose(-1, -2)
    assert v.tril_(diagonal) is v
    assert_close(t, np.swapaxes(np.tril(np.swapaxes(a, -1, -2), diagonal), -1, -2))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        tc.tril(t.flatten())


@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.float64, np.complex64])
def test_tril_triu_of_every_dtype_into_strided_and_aliasing_outs(device: str, dtype: Any) -> None:
    a = np.array([[np.nan, 2, -np.inf], [1, 0, 3], [4, 5, 6], [7, 8, 9]])
    if dtype in (np.bool_, np.int16):
        a = np.arange(12).reshape(4, 3) % 3  # (zeros and non-zeros on both sides)
    a = a.astype(dtype)
    for diagonal in (-1, 0, 2):
        t = tc.tensor(a, device=device)
        assert_close(t.tril(diagonal), np.tril(a, diagonal), equal_nan=True)
        assert_close(t.triu(diagonal), np.triu(a, diagonal), equal_nan=True)
        big = tc.tensor(np.ones((4, 6), dtype), device=device)
        tc.tril(t, diagonal, out=big[:, ::2])
        assert_close(big[:, ::2], np.tril(a, diagonal), equal_nan=True)
        assert_close(big[:, 1::2], np.ones((4, 3), dtype))
        u = tc.tensor(a, device=device).T
        assert u.tril_(diagonal) is u  # (in place, of a strided tensor)
        assert_close(u, np.tril(a.T, diagonal), equal_nan=True)
        # an out that overlaps self without being it
        s = tc.tensor(np.concatenate([a, a]), device=device)
        tc.triu(s[:4], diagonal, out=s[4:])
        assert_close(s[4:], np.triu(a, diagonal), equal_nan=True)
        assert_close(s[:4], a, equal_nan=True)


# ---------------------------------------------------------------- gather / scatter
@given(data=st.data())
def test_gather_matches_take_along_axis(device: str, data: st.DataObject) -> None:
    shape = data.draw(tcst.shapes(min_dims=1, max_dims=3, max_side=4), label="shape")
    t, a = data.draw(tcst.tensors_from_arrays(data.draw(tcst.arrays(tc.float64, shape)), device))
    d = data.draw(st.integers(-len(shape), len(shape) - 1), label="dim")
    ishape = tuple(data.draw(st.integers(1, s)) for s in shape)
    ishape = (
        ishape[: d % len(shape)] + (data.draw(st.integers(0, 4)),) + ishape[d % len(shape) + 1 :]
    )
    index = data.draw(
        tcst.arrays(tc.int64, ishape, min_value=0, max_value=shape[d] - 1), label="index"
    )
    part = a[tuple(slice(None) if i == d % a.ndim else slice(0, n) for i, n in enumerate(ishape))]
    expected = np.take_along_axis(part, index, axis=d)
    ti = tc.tensor(index, device=device)
    assert_close(tc.gather(t, d, ti), expected)
    assert_close(t.gather(d, ti), expected)


def test_scatter_and_scatter_add(device: str) -> None:
    base = np.zeros((3, 4), np.float32)
    src = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    index = np.array([[0, 1, 2, 0], [2, 0, 1, 1]])
    t = tc.tensor(base, device=device)
    ti, ts = tc.tensor(index, device=device), tc.tensor(src, device=device)
    expected = base.copy()
    for i in range(2):
        for j in range(4):
            expected[index[i, j], j] = src[i, j]
    r = tc.scatter(t, 0, ti, ts)
    assert_close(r, expected)
    assert_close(t, base)
    added = base.copy()
    np.add.at(added, (index, np.arange(4)[None, :].repeat(2, 0)), src[:2])
    assert_close(t.scatter_add(0, ti, ts), added)
    assert t.scatter_add_(0, ti, ts) is t
    assert_close(t, added)
    t2 = tc.tensor(base, device=device)
    t2.scatter_(1, tc.tensor([[3], [0], [1]], device=device), tc.tensor(src, device=device))
    assert_close(t2, np.array([[0, 0, 0, 1], [5, 0, 0, 0], [0, 9, 0, 0]], np.float32))


@pytest.mark.parametrize("dim", [0, 1, 2])
@pytest.mark.parametrize("reduce", ["sum", "prod", None])
def test_scatter_accumulates_into_contiguous_and_strided_targets(
    device: str, dim: int, reduce: str | None
) -> None:
    # A contiguous target takes flat positions, a strided one (a transposed view) one index
    # array per dim; an index smaller than the target in its other dims; repeated positions.
    rng = np.random.default_rng(2)
    index = rng.integers(0, 3, size=(2, 3, 2))
    src = rng.normal(size=(3, 4, 3))
    want = rng.normal(size=(3, 4, 3))
    where = tuple(index if i == dim else np.indices(index.shape)[i] for i in range(3))
    got = tc.tensor(want, device=device)
    strided = tc.tensor(want.transpose(2, 1, 0).copy(), device=device).permute(2, 1, 0)
    ix, ts = tc.tensor(index, device=device), tc.tensor(src, device=device)
    if reduce is None:
        np.add.at(want, where, src[: index.shape[0], : index.shape[1], : index.shape[2]])
        res = [t.scatter_add_(dim, ix, ts) for t in (got, strided)]
    else:
        ufunc = np.add if reduce == "sum" else np.multiply
        ufunc.at(want, where, src[: index.shape[0], : index.shape[1], : index.shape[2]])
        res = [t.scatter_reduce_(dim, ix, ts, reduce) for t in (got, strided)]
    assert not strided.is_contiguous()
    for r in res:
        assert_close(r, want)


def test_gather_and_scatter_take_int32_indices(device: str) -> None:
    t, a = _a(device, dtype=np.float64)
    index = np.array([[0, 2, 1, 0], [2, 2, 0, 1]])
    ti = tc.tensor(index, dtype=tc.int32, device=device)
    assert_close(t.gather(0, ti), np.take_along_axis(a, index, 0))
    src = np.arange(1.0, 9.0).reshape(2, 4)
    ts = tc.tensor(src, device=device)
    added = a.copy()
    np.add.at(added, (index, np.arange(4)[None, :].repeat(2, 0)), src)
    assert_close(t.scatter_add(0, ti, ts), added)
    assert_close(t.scatter_reduce(0, ti, ts, "sum"), added)
    assert_close(
        t.scatter(0, tc.tensor([[1, 0, 2, 2]], dtype=tc.int32, device=device), ts[:1]),
        np.where(np.arange(3)[:, None] == [1, 0, 2, 2], src[:1], a),
    )
    # The gradient scatters through the same int32 index.
    leaf = tc.tensor(a, device=device, requires_grad=True)
    (g,) = tc.autograd.grad(leaf.gather(0, ti).sum(), [leaf])
    counts = np.zeros_like(a)
    np.add.at(counts, (index, np.arange(4)[None, :].repeat(2, 0)), 1.0)
    assert_close(g, counts)


def test_scatter_with_a_scalar_value(device: str) -> None:
    t = tc.tensor(np.zeros((2, 3), np.float32), device=device)
    r = t.scatter(1, tc.tensor([[0], [2]], device=device), 1.5)
    assert r.tolist() == [[1.5, 0.0, 0.0], [0.0, 0.0, 1.5]]


def test_gather_scatter_errors(device: str) -> None:
    t, _ = _a(device)
    with pytest.raises(RuntimeError, match="Expected dtype int32/int64 for index"):
        t.gather(0, tc.tensor([[0]], dtype=tc.int16, device=device))
    with pytest.raises(RuntimeError, match=r"scatter\(\): Expected dtype int32/int64 for index"):
        t.scatter(0, tc.tensor([[0]], dtype=tc.float32, device=device), 1.0)
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions"):
        t.gather(0, tc.tensor([0], device=device))
    with pytest.raises(RuntimeError, match="out of bounds"):
        t.gather(0, tc.tensor([[5]], device=device))
    with pytest.raises(RuntimeError, match=r"Expected self\.dtype to be equal to src\.dtype"):
        t.scatter(0, tc.tensor([[0]], device=device), tc.tensor([[1]], device=device))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select(device: str, dim: int) -> None:
    t, a = _a(device)
    index = np.array([2, 0, 2]) if dim == 0 else np.array([3, 1])
    ti = tc.tensor(index, device=device)
    assert_close(tc.index_select(t, dim, ti), np.take(a, index, axis=dim))
    assert_close(t.index_select(dim, ti.to(tc.int32)), np.take(a, index, axis=dim))
    out = tc.tensor(np.zeros(np.take(a, index, axis=dim).shape, np.float32), device=device)
    assert tc.index_select(t, dim, ti, out=out) is out
    with pytest.raises(IndexError, match="index_select"):  # (PyTorch's type)
        t.index_select(0, tc.tensor([[0]], device=device))


def test_index_select_from_strided_into_strided_and_scalar_indices(device: str) -> None:
    # (NumPy takes straight into a C-contiguous out of the result's shape; others copy)
    a = np.arange(24.0).reshape(4, 6)
    t = tc.tensor(a, device=device)
    i = tc.tensor([5, 0, 5, 2], device=device)
    assert_close(t.T.index_select(0, i), a.T[[5, 0, 5, 2]])
    assert_close(t[:, ::2].index_select(1, i[1:].to(tc.int32) % 3), a[:, ::2][:, [0, 2, 2]])
    big = tc.zeros(4, 8, device=device, dtype=tc.float64)
    tc.index_select(t, 1, i, out=big[:, ::2])
    assert_close(big[:, ::2], a[:, [5, 0, 5, 2]])
    assert not to_numpy(big[:, 1::2]).any()
    assert_close(t.index_select(0, tc.tensor(3, device=device)), a[[3]])
    with pytest.raises(IndexError, match="index out of range in self"):
        t.index_select(1, tc.tensor([6], device=device))


def test_masked_fill(device: str) -> None:
    t, a = _a(device)
    mask = a % 3 == 0
    tm = tc.tensor(mask, device=device)
    assert_close(t.masked_fill(tm, -1.0), np.where(mask, np.float32(-1), a))
    assert_close(
        tc.masked_fill(t, tm, tc.tensor(7.0, device=device)), np.where(mask, np.float32(7), a)
    )
    row = tc.tensor([True, False, False, True], device=device)
    assert_close(t.masked_fill(row, 0.0), np.where([True, False, False, True], np.float32(0), a))
    assert t.masked_fill_(tm, 5.0) is t
    assert_close(t, np.where(mask, np.float32(5), a))
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks"):
        t.masked_fill(tc.tensor(mask.astype(np.int64), device=device), 0.0)
    with pytest.raises(RuntimeError, match="0-dimensional value tensor"):
        t.masked_fill(tm, tc.tensor([1.0], device=device))


def test_nonzero(device: str) -> None:
    a = np.array([[0, 1, 0], [2, 0, 3]])
    t = tc.tensor(a, device=device)
    r = tc.nonzero(t)
    assert r.dtype is tc.int64
    assert_close(r, np.argwhere(a).astype(np.int64))
    assert t.nonzero().shape == (3, 2)
    assert tc.tensor(np.zeros((2, 2)), device=device).nonzero().shape == (0, 2)


# ---------------------------------------------------------------- advanced indexing
@st.composite
def _index(draw: Any, shape: tuple[int, ...], device: str, single_advanced: bool = False) -> Any:
    """A getitem index for ``shape`` mixing ints, slices, int tensors/lists, bool masks,
    None and ``...``; returns (tensorcore index, NumPy index)."""
    n = len(shape)
    k = draw(st.integers(0, n))
    kinds = draw(
        st.lists(st.sampled_from(["int", "slice", "array", "list", "mask"]), min_size=k, max_size=k)
    )
    adv = [i for i, kind in enumerate(kinds) if kind in ("array", "list", "mask")]
    if ("mask" in [kinds[i] for i in adv] and len(adv) > 1) or (single_advanced and len(adv) > 1):
        keep = adv[0]
        kinds = [k if i == keep or k not in ("array", "list", "mask") else "slice"
                 for i, k in enumerate(kinds)]  # fmt: skip
    idx_shape = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    tc_idx: list[Any] = []
    np_idx: list[Any] = []
    for size, kind in zip(shape, kinds, strict=False):
        if kind == "int":
            assume(size > 0)
            i = draw(st.integers(-size, size - 1))
            as_tensor = draw(st.booleans())  # a 0-d integer tensor selects as an int does
            tc_idx.append(tc.tensor(i, device=device) if as_tensor else i)
            np_idx.append(np.array(i) if as_tensor else i)
        elif kind == "slice":
            bound = st.none() | st.integers(-size - 1, size + 1)
            s = slice(draw(bound), draw(bound), draw(st.none() | st.integers(1, 3)))
            tc_idx.append(s)
            np_idx.append(s)
        elif kind == "mask":
            m = np.array(draw(st.lists(st.booleans(), min_size=size, max_size=size)), dtype=bool)
            tc_idx.append(tc.tensor(m, device=device))
            np_idx.append(m)
        else:
            assume(size > 0)
            unique = single_advanced
            ix_shape = (min(size, idx_shape[0] if idx_shape else 1),) if unique else idx_shape
            if unique:
                values = draw(st.permutations(range(size)))[: ix_shape[0]]
                ix = np.array(values, dtype=np.int64)
            else:
                ix = draw(tcst.arrays(tc.int64, ix_shape, min_value=-size, max_value=size - 1))
            tc_idx.append(tc.tensor(ix, device=device) if kind == "array" else ix.tolist())
            np_idx.append(ix)
    if draw(st.booleans()):
        pos = draw(st.integers(0, len(tc_idx)))
        extra = draw(st.sampled_from([None, Ellipsis, True, False]))
        tc_idx.insert(pos, extra)
        np_idx.insert(pos, extra)
    if len(tc_idx) == 1 and not isinstance(tc_idx[0], list) and draw(st.booleans()):
        return tc_idx[0], np_idx[0]
    return tuple(tc_idx), tuple(np_idx)


def _torch_split(ndim: int, idx: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """A NumPy index split into (basic part, rest) so that ``a[basic][rest]`` means what the
    index means in PyTorch: ints (NumPy's or 0-d integer arrays) select first, as basic
    indices, so they never separate advanced indices (NumPy counts them as advanced, which
    puts ``t``'s dims first in ``x[0, ..., t]``); an ``...`` standing for no dim separates
    nothing (NumPy's does). Raises IndexError where NumPy would."""
    idx = idx if isinstance(idx, tuple) else (idx,)

    def is_int(x: Any) -> bool:
        return not isinstance(x, bool) and (
            isinstance(x, (int, np.integer)) or (isinstance(x, np.ndarray) and x.ndim == 0)
        )

    def consumed(x: Any) -> int:
        if x is None or x is Ellipsis or isinstance(x, bool):
            return 0
        return x.ndim if getattr(x, "dtype", None) == np.bool_ else 1

    n_used = sum(consumed(x) for x in idx)
    if n_used > ndim:
        raise IndexError("too many indices")
    full: list[Any] = []
    for x in idx:
        full.extend([slice(None)] * (ndim - n_used) if x is Ellipsis else [x])
    basic = tuple(s for x in full for s in ([int(x)] if is_int(x) else [slice(None)] * consumed(x)))
    # (the trailing ``...`` keeps a[basic] a view, even of a single element)
    return (*basic, ...), tuple(x for x in full if not is_int(x))


def _torch_getitem(a: Any, idx: Any) -> Any:
    basic, rest = _torch_split(a.ndim, idx)
    return a[basic][rest]


#: x[idx].shape in PyTorch 2.13, for x of shape (2, 3, 4) or (2, 3, 4, 6) and t an index
#: tensor of 5 elements: where ints, ``...`` (standing for no dims or some), None and bools
#: meet advanced indices.
TORCH_SHAPES = [
    ((2, 3, 4), (slice(None), "t", ..., "t"), (2, 5)),
    ((2, 3, 4), ("t", ..., "t"), (5, 3)),
    ((2, 3, 4), (0, ..., "t"), (3, 5)),
    ((2, 3, 4), (slice(None), 0, ..., "t"), (2, 5)),
    ((2, 3, 4), (slice(None), "t", ..., 0), (2, 5)),
    ((2, 3, 4), (None, "t", ..., "t"), (5, 1, 3)),
    ((2, 3, 4), ("t", 0, "t"), (5,)),
    ((2, 3, 4), ("t", slice(None), "t"), (5, 3)),
    ((2, 3, 4), (slice(None), "t", None, "t"), (5, 2, 1)),
    ((2, 3, 4), ("0d", ..., "t"), (3, 5)),
    ((2, 3, 4, 6), (0, ..., "t"), (3, 4, 5)),
    ((2, 3, 4, 6), (slice(None), 0, ..., "t"), (2, 4, 5)),
    ((2, 3, 4, 6), (slice(None), "t", ..., 0), (2, 5, 4)),
    ((2, 3, 4, 6), (slice(None), "t", ..., "t"), (5, 2, 4)),
    ((2, 3, 4, 6), (slice(None), "t", ..., slice(None), "t"), (5, 2, 4)),
    ((2, 3, 4, 6), ("t", 0, slice(None), "t"), (5, 4)),
    ((2, 3, 4, 6), (0, "t", slice(None), "t"), (5, 4)),
    ((2, 3, 4, 6), ("t", slice(None), "t", 0), (5, 3)),
    ((2, 3, 4, 6), ("t", 1, "t", 0), (5,)),
    ((2, 3, 4, 6), (..., "t", 0, "t"), (2, 5)),
    ((2, 3, 4, 6), ("0d", ..., "t"), (3, 4, 5)),
    ((2, 3, 4, 6), (slice(None), "t", ..., "0d"), (2, 5, 4)),
    ((2, 3, 4, 6), (slice(None), "t", True, "t"), (2, 5, 6)),
    ((2, 3, 4, 6), (slice(None), "t", "True", "t"), (2, 5, 6)),
    ((2, 3, 4, 6), (True, "t", slice(None), "t"), (5, 3, 6)),
    ((2, 3, 4, 6), (None, "t", ..., "t"), (5, 1, 3, 4)),
    ((2, 3, 4, 6), ("t", ..., "t", None), (5, 3, 4, 1)),
]


@pytest.mark.parametrize(("shape", "index", "expected"), TORCH_SHAPES, ids=str)
def test_advanced_index_placement_is_pytorchs(
    device: str, shape: tuple[int, ...], index: tuple[Any, ...], expected: tuple[int, ...]
) -> None:
    a = np.arange(int(np.prod(shape))).reshape(shape)
    t = tc.tensor(a, device=device)
    kinds = {
        "t": (tc.tensor([0, 1, 0, 1, 1], device=device), np.array([0, 1, 0, 1, 1])),
        "0d": (tc.tensor(1, device=device), np.array(1)),
        "True": (tc.tensor(True, device=device), True),
    }
    tc_idx = tuple(kinds[x][0] if isinstance(x, str) else x for x in index)
    np_idx = tuple(kinds[x][1] if isinstance(x, str) else x for x in index)
    got = t[tc_idx]
    assert got.shape == expected
    assert_close(got, _torch_getitem(a, np_idx))


def test_a_zero_dim_integer_tensor_index_selects(device: str) -> None:
    # As in PyTorch: a view, like an int (not a copy made by advanced indexing).
    t = tc.zeros(3, 4, device=device)
    row = t[tc.tensor(1, device=device)]
    assert row.shape == (4,) and row.untyped_storage() is t.untyped_storage()
    row.fill_(5)
    assert to_numpy(t)[1].tolist() == [5.0] * 4


def test_a_false_index_does_not_broadcast_with_others(device: str) -> None:
    t = tc.zeros(2, 3, 4, device=device)
    i = tc.tensor([0, 1, 0, 1, 1], device=device)
    with pytest.raises(IndexError):
        t[False, i, ..., i]
    assert t[False].shape == (0, 2, 3, 4) and t[True].shape == (1, 2, 3, 4)


@given(data=st.data())
def test_getitem_matches_numpy(device: str, data: st.DataObject) -> None:
    shape = data.draw(tcst.shapes(min_dims=1, max_dims=3, max_side=4), label="shape")
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    t = tc.tensor(a, device=device)
    tc_idx, np_idx = data.draw(_index(shape, device), label="index")
    try:
        expected = _torch_getitem(a, np_idx)
    except IndexError:
        # An index past the end (``...`` moved the ints onto shorter dims): the oracle's
        # exception type is the one to raise.
        with pytest.raises(IndexError):
            t[tc_idx]
        return
    got = t[tc_idx]
    assert_close(got, np.asarray(expected))
    if any(
        (isinstance(x, tc.Tensor) and x.ndim) or isinstance(x, (list, bool))
        for x in (tc_idx if isinstance(tc_idx, tuple) else (tc_idx,))
    ):
        # Advanced indexing reads a copy: writing to it leaves the source alone.
        assert got.numel() == 0 or got.untyped_storage() is not t.untyped_storage()
        got.fill_(-1)
        assert_close(t, a)


@given(data=st.data())
def test_setitem_matches_numpy(device: str, data: st.DataObject) -> None:
    shape = data.draw(tcst.shapes(min_dims=1, max_dims=3, max_side=4), label="shape")
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    t = tc.tensor(a, device=device)
    tc_idx, np_idx = data.draw(_index(shape, device, single_advanced=True), label="index")
    try:
        basic, rest = _torch_split(a.ndim, np_idx)
        target = a[basic][rest].shape
    except IndexError:
        with pytest.raises(IndexError):
            t[tc_idx] = 1.0
        return
    kind = data.draw(st.sampled_from(["scalar", "full", "broadcast"]), label="value kind")
    if kind == "scalar":
        value: Any = -7.5
        tc_value: Any = value
    else:
        vshape = (
            target
            if kind == "full"
            else tuple(data.draw(st.sampled_from([1, s])) for s in target[1:])
        )
        value = -np.arange(int(np.prod(vshape)), dtype=np.float32).reshape(vshape) - 1
        tc_value = tc.tensor(value, device=device)
    storage, version = t.untyped_storage(), t._version
    t[tc_idx] = tc_value
    a[basic][rest] = value  # a[basic] is a view of a
    assert_close(t, a)
    assert t.untyped_storage() is storage
    assert t._version > version or a[basic][rest].size == 0


def test_index_kinds_explicitly(device: str) -> None:
    t, a = _a(device, (3, 4, 2))
    cases = [
        ([0, 2], [0, 2]),
        ((slice(None), [1, 0]), (slice(None), [1, 0])),
        (([0, 1], [1, 2]), ([0, 1], [1, 2])),
        (([[0], [1]], [1, 2]), ([[0], [1]], [1, 2])),
        ((slice(1, None), [0, 2]), (slice(1, None), [0, 2])),
        (([0, 1], slice(None), [0, 1]), ([0, 1], slice(None), [0, 1])),
        ((None, [2, 0], ..., 1), (None, [2, 0], Ellipsis, 1)),
        ((1, [3, 0], slice(None)), (1, [3, 0], slice(None))),
        ((-1, [-1, -4]), (-1, [-1, -4])),
    ]
    for tc_idx, np_idx in cases:
        tc_i = (
            tuple(tc.tensor(x, device=device) if isinstance(x, list) else x for x in tc_idx)
            if isinstance(tc_idx, tuple)
            else tc.tensor(tc_idx, device=device)
        )
        np_i = (
            tuple(np.array(x) if isinstance(x, list) else x for x in np_idx)
            if isinstance(np_idx, tuple)
            else np.array(np_idx)
        )
        assert_close(t[tc_i], _torch_getitem(a, np_i))
    mask = a[..., 0] > 3
    assert_close(t[tc.tensor(mask, device=device)], a[mask])
    assert_close(t[tc.tensor(a > 10, device=device)], a[a > 10])
    assert_close(
        t[:, tc.tensor([True, False, True, False], device=device)], a[:, [True, False, True, False]]
    )
    assert_close(t[[0, 2]], a[[0, 2]])
    assert_close(t[tc.tensor([1, 2], dtype=tc.int32, device=device)], a[[1, 2]])
    assert t[[]].shape == (0, 4, 2)


def test_setitem_kinds_explicitly(device: str) -> None:
    t, a = _a(device, (3, 4))
    t[1] = 5
    a[1] = 5
    t[:, 1] = tc.tensor([7.0, 8.0, 9.0], device=device)
    a[:, 1] = [7, 8, 9]
    t[tc.tensor(a > 8, device=device)] = 0
    a[a > 8] = 0
    t[[0, 2]] = tc.tensor([1.0, 2.0, 3.0, 4.0], device=device)
    a[[0, 2]] = [1, 2, 3, 4]
    t[tc.tensor([2], device=device), 3] = -1
    a[[2], 3] = -1
    t[..., None] = t[..., None] * 2
    a[..., None] = a[..., None] * 2
    t[0, ::2] = tc.tensor(10, device=device)
    a[0, ::2] = 10
    assert_close(t, a)
    i = tc.tensor([1, 2, 3], device=device)
    i[0] = 2.7
    assert i.tolist() == [2, 2, 3]


def test_setitem_drops_the_values_leading_unit_dims(device: str) -> None:
    # PyTorch strips a tensor value's leading size-1 dims before broadcasting it (NumPy
    # refuses a (1, 4) value for a (4,) region): CleanRL's GAE loop, adv[t] = (1, n) row.
    t = tc.zeros(3, 4, device=device)
    t[0] = tc.arange(4.0, device=device).view(1, 1, 4)
    t[[1, 2]] = tc.ones(1, 1, 2, 4, device=device)
    assert t.tolist() == [[0.0, 1.0, 2.0, 3.0], [1.0] * 4, [1.0] * 4]
    t[t > 0.5] = tc.full((1, 11), 5.0, device=device)
    assert t.sum().item() == 55.0
    v = tc.zeros(4, device=device)
    v[1:3] = tc.ones(1, 1, device=device)
    assert v.tolist() == [0.0, 1.0, 1.0, 0.0]
    with pytest.raises(RuntimeError):
        t[0] = tc.ones(1, 2, 4, device=device)  # (2, 4) after the strip: too many dims
    # A value that does not fit the region: PyTorch's words, no NumPy text.
    msg = r"shape mismatch: value tensor of shape \[2, 3\] cannot be broadcast to indexing "
    with pytest.raises(RuntimeError, match=msg + r"result of shape \[12\]"):
        t[t > -1] = tc.ones(2, 3, device=device)
    with pytest.raises(RuntimeError, match=msg + r"result of shape \[2, 4\]"):
        t[[0, 1]] = tc.ones(2, 3, device=device)
    w = tc.ones(1, 4, device=device, requires_grad=True)
    y = tc.zeros(3, 4, device=device)
    y[1] = w * 2
    y.sum().backward()
    assert w.grad is not None and w.grad.tolist() == [[2.0] * 4]


def test_indexing_errors(device: str) -> None:
    t, _ = _a(device)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        t[3]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        t[0, 0, 0]
    with pytest.raises(
        IndexError, match="tensors used as indices must be long, int, byte or bool tensors"
    ):
        t[tc.tensor([0.0], device=device)]
    with pytest.raises(IndexError, match="an index can only have a single ellipsis"):
        t[..., ...]
    with pytest.raises(IndexError):
        t[tc.tensor([5], device=device)]
    with pytest.raises(TypeError, match="invalid index of type 'str'"):  # (as PyTorch)
        t["a"]  # type: ignore[index]


def test_index_put(device: str) -> None:
    t, a = _a(device, (4,))
    idx = tc.tensor([0, 2, 0], device=device)
    r = tc.index_put(t, (idx,), tc.tensor([1.0, 2.0, 3.0], device=device), accumulate=True)
    assert r.tolist() == [4.0, 1.0, 4.0, 3.0]
    assert_close(t, a)
    t.index_put_((tc.tensor([3], device=device),), tc.tensor([9.0], device=device))
    assert t.tolist() == [0.0, 1.0, 2.0, 9.0]


def test_getitem_result_is_independent(device: str) -> None:
    t, _ = _a(device)
    r = t[[0, 1]]
    r[0, 0] = 100
    assert to_numpy(t)[0, 0] == 0


def test_rows_by_a_tensor_of_indices_as_the_general_path(device: str) -> None:
    """``x[t]`` (a tensor of int64 or int32 indices, alone) skips ``_apply_index``'s walk;
    ``x[(t,)]`` takes it: the same values, errors and gradients, and NumPy's values."""
    from tensorcore.dispatch import get_op

    a = np.arange(24.0).reshape(4, 6)
    x = tc.tensor(a, device=device)
    for dtype in (tc.int64, tc.int32):
        for idx in ([2, 0, -1, 2], [[1, -4], [3, 0]], [3]):
            t = tc.tensor(idx, dtype=dtype, device=device)
            got, want = x[t], x[(t,)]
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_array_equal(to_numpy(got), a[np.array(idx)])
            np.testing.assert_array_equal(to_numpy(got), to_numpy(want))
        bad = tc.tensor([0, 4], dtype=dtype, device=device)
        errors = []
        for key in (bad, (bad,)):
            with pytest.raises(IndexError) as info:
                x[key]
            errors.append(str(info.value))
        assert errors[0] == errors[1]
    w = tc.tensor(a, device=device, requires_grad=True)
    t = tc.tensor([1, 1, 3], device=device)
    (g1,) = tc.autograd.grad((w[t] * 2).sum(), [w])
    (g2,) = tc.autograd.grad((w[(t,)] * 2).sum(), [w])
    np.testing.assert_array_equal(to_numpy(g1), to_numpy(g2))
    assert w[t].grad_fn.name() == w[(t,)].grad_fn.name()
    # (the lane takes the plain call; one that requires grad is the call path's)
    assert get_op("index").lane(x, [t, None]) is not None
    assert get_op("index").lane(w, [t, None]) is None
