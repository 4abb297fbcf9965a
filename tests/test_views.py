"""Views: strides, offsets and storage sharing, against NumPy's views and PyTorch's numbers."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tensorcore as tc
from tensorcore.testing import assert_close, to_numpy
from tensorcore.testing import strategies as tcst


def _ptr(a: np.ndarray) -> int:
    return int(a.__array_interface__["data"][0])


def _assert_same_view(tv: tc.Tensor, tbase: tc.Tensor, nv: np.ndarray, nbase: np.ndarray) -> None:
    """tc view of tbase has the shape, strides, offset and values NumPy gives nv of nbase."""
    assert tuple(tv.shape) == nv.shape
    isz = tv.element_size()
    # Strides of size-1 dims, and all strides of empty tensors, never address memory; PyTorch
    # and NumPy choose them differently (np.newaxis gives 0, NumPy recomputes strides of
    # empty arrays). The explicit tests below pin PyTorch's choice.
    if nv.size:
        for d, size in enumerate(nv.shape):
            if size > 1:
                assert tv.stride(d) * isz == nv.strides[d], (d, tv.stride(), nv.strides)
        assert tv.storage_offset() * isz == _ptr(nv) - _ptr(nbase)
        assert tv.data_ptr() - tbase.data_ptr() == _ptr(nv) - _ptr(nbase)
    assert tv.untyped_storage() is tbase.untyped_storage()
    assert_close(tv, nv)


@given(data=st.data())
def test_view_chains_match_numpy(device: str, data: st.DataObject) -> None:
    shape = data.draw(tcst.shapes(min_dims=0, max_dims=4), label="shape")
    chain = data.draw(tcst.view_chains(shape), label="chain")
    nbase = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    tbase = tc.tensor(nbase, device=device)
    tv = tcst.apply_view_chain(tbase, chain)
    nv = tcst.apply_view_chain(nbase, chain)
    _assert_same_view(tv, tbase, nv, nbase)


@given(data=st.data())
def test_writes_through_view_chains_reach_the_base(device: str, data: st.DataObject) -> None:
    shape = data.draw(tcst.shapes(min_dims=1, max_dims=4), label="shape")
    chain = data.draw(tcst.view_chains(shape, writable=True), label="chain")
    nbase = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    tbase = tc.tensor(nbase, device=device)
    tv = tcst.apply_view_chain(tbase, chain)
    # The base holds the flat index of each element, so the view's values say which storage
    # elements it aliases; NumPy computes the same set independently.
    touched = tcst.apply_view_chain(nbase, chain).astype(np.int64).ravel()
    version = tbase._version
    assert tv.add_(1000) is tv
    assert tbase._version > version
    expected = nbase.copy()
    expected.ravel()[touched] += 1000
    assert_close(tbase, expected)


@given(data=st.data())
def test_base_writes_are_seen_by_views(device: str, data: st.DataObject) -> None:
    shape = data.draw(tcst.shapes(min_dims=1, max_dims=3), label="shape")
    chain = data.draw(tcst.view_chains(shape), label="chain")
    nbase = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    tbase = tc.tensor(nbase, device=device)
    tv = tcst.apply_view_chain(tbase, chain)
    tbase.mul_(-2)
    assert_close(tv, tcst.apply_view_chain(nbase * -2, chain))


# ---------------------------------------------------------------- explicit PyTorch strides
def _x(device: str) -> tc.Tensor:
    """arange(24) as (2, 3, 4): strides (12, 4, 1)."""
    return tc.tensor(np.arange(24).reshape(2, 3, 4), device=device)


def _meta(t: tc.Tensor) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    return tuple(t.shape), t.stride(), t.storage_offset()


# (expression applied to x = arange(24).view(2, 3, 4), (shape, strides, offset) from PyTorch)
VIEW_CASES = [
    ("x.view(6, 4)", ((6, 4), (4, 1), 0)),
    ("x.view(-1)", ((24,), (1,), 0)),
    ("x.view(2, -1, 2)", ((2, 6, 2), (12, 2, 1), 0)),
    ("x.permute(1, 0, 2).view(3, 2, 2, 2)", ((3, 2, 2, 2), (4, 12, 2, 1), 0)),
    ("x.reshape(4, 6)", ((4, 6), (6, 1), 0)),
    ("x.view(4, 6).view_as(x)", ((2, 3, 4), (12, 4, 1), 0)),
    ("x.transpose(0, 2)", ((4, 3, 2), (1, 4, 12), 0)),
    ("x.transpose(-1, -2)", ((2, 4, 3), (12, 1, 4), 0)),
    ("x.swapaxes(0, 1)", ((3, 2, 4), (4, 12, 1), 0)),
    ("x[0].t()", ((4, 3), (1, 4), 0)),
    ("x[0].T", ((4, 3), (1, 4), 0)),
    ("x.mT", ((2, 4, 3), (12, 1, 4), 0)),
    ("x.permute(2, 0, 1)", ((4, 2, 3), (1, 12, 4), 0)),
    ("x.permute(-1, 0, 1)", ((4, 2, 3), (1, 12, 4), 0)),
    ("x.movedim(0, -1)", ((3, 4, 2), (4, 1, 12), 0)),
    ("x.movedim((0, 1), (2, 0))", ((3, 4, 2), (4, 1, 12), 0)),
    ("x.unsqueeze(0)", ((1, 2, 3, 4), (24, 12, 4, 1), 0)),
    ("x.unsqueeze(1)", ((2, 1, 3, 4), (12, 12, 4, 1), 0)),
    ("x.unsqueeze(-1)", ((2, 3, 4, 1), (12, 4, 1, 1), 0)),
    ("x[:, :1].squeeze()", ((2, 4), (12, 1), 0)),
    ("x[:, :1].squeeze(1)", ((2, 4), (12, 1), 0)),
    ("x[:, :1].squeeze(0)", ((2, 1, 4), (12, 4, 1), 0)),
    ("x.flatten()", ((24,), (1,), 0)),
    ("x.flatten(1)", ((2, 12), (12, 1), 0)),
    ("x.flatten(0, 1)", ((6, 4), (4, 1), 0)),
    ("x.flatten(1).unflatten(1, (3, -1))", ((2, 3, 4), (12, 4, 1), 0)),
    ("x.view(24).unflatten(0, (2, 3, 4))", ((2, 3, 4), (12, 4, 1), 0)),
    ("x[:, :1].expand(2, 3, 4)", ((2, 3, 4), (12, 0, 1), 0)),
    ("x[:, :1].expand(-1, 5, -1)", ((2, 5, 4), (12, 0, 1), 0)),
    ("x[:1].expand(3, 2, 3, 4)", ((3, 2, 3, 4), (0, 0, 4, 1), 0)),
    ("x[0, 0].expand_as(x)", ((2, 3, 4), (0, 0, 1), 0)),
    ("x[0, :, :1].broadcast_to((2, 3, 4))", ((2, 3, 4), (0, 4, 0), 0)),
    ("x.narrow(1, 1, 2)", ((2, 2, 4), (12, 4, 1), 4)),
    ("x.narrow(-1, 2, 2)", ((2, 3, 2), (12, 4, 1), 2)),
    ("x.narrow(0, -1, 1)", ((1, 3, 4), (12, 4, 1), 12)),
    ("x.select(1, 2)", ((2, 4), (12, 1), 8)),
    ("x.select(-1, -1)", ((2, 3), (12, 4), 3)),
    ("x[1]", ((3, 4), (4, 1), 12)),
    ("x[-1, 1:3, ::3]", ((2, 2), (4, 3), 16)),
    ("x[:, ::2]", ((2, 2, 4), (12, 8, 1), 0)),
    ("x[..., 1::2]", ((2, 3, 2), (12, 4, 2), 1)),
    ("x[None]", ((1, 2, 3, 4), (24, 12, 4, 1), 0)),
    ("x[:, None]", ((2, 1, 3, 4), (12, 12, 4, 1), 0)),
    ("x[1, ..., None]", ((3, 4, 1), (4, 1, 1), 12)),
    ("x[..., 2]", ((2, 3), (12, 4), 2)),
    ("x[1, 2, 3]", ((), (), 23)),
    ("x[:, 1:-1, -3:]", ((2, 1, 3), (12, 4, 1), 5)),
    ("x[0].diagonal()", ((3,), (5,), 0)),
    ("x[0].diagonal(1)", ((3,), (5,), 1)),
    ("x[0].diagonal(-1)", ((2,), (5,), 4)),
    ("x.diagonal(0, 1, 2)", ((2, 3), (12, 5), 0)),
    ("x.diagonal(2, 0, 2)", ((3, 2), (4, 13), 2)),
    ("x.diagonal(-1, -1, 0)", ((3, 2), (4, 13), 1)),
    ("x.view(24).unfold(0, 5, 5)", ((4, 5), (5, 1), 0)),
    ("x.view(24)[:7].unfold(0, 2, 2)", ((3, 2), (2, 1), 0)),
    ("x.view(24)[:7].unfold(0, 3, 1)", ((5, 3), (1, 1), 0)),
    ("x.unfold(2, 2, 1)", ((2, 3, 3, 2), (12, 4, 1, 1), 0)),
    ("x.unfold(1, 2, 1)", ((2, 2, 4, 2), (12, 4, 1, 4), 0)),
    ("x.as_strided((2, 2), (1, 2), 1)", ((2, 2), (1, 2), 1)),
    ("x.as_strided((3,), (0,))", ((3,), (0,), 0)),
    ("x[1].as_strided((2,), (3,))", ((2,), (3,), 12)),
]


@pytest.mark.parametrize(("expr", "expected"), VIEW_CASES, ids=[c[0] for c in VIEW_CASES])
def test_view_metadata_matches_pytorch(device: str, expr: str, expected: tuple) -> None:
    x = _x(device)
    v = eval(expr, {"x": x})
    assert _meta(v) == expected
    assert v.untyped_storage() is x.untyped_storage()
    # Values: NumPy's as_strided over the same buffer is the oracle.
    shape, strides, offset = expected
    flat = np.arange(24)
    nv = np.lib.stride_tricks.as_strided(flat[offset:], shape, tuple(s * 8 for s in strides))
    assert_close(v, nv)


def test_as_strided_values(device: str) -> None:
    base = tc.tensor(np.arange(9), device=device)
    assert base.as_strided((2, 2), (1, 2), 1).tolist() == [[1, 3], [2, 4]]
    with pytest.raises(RuntimeError):
        base.as_strided((3, 3), (3, 1), 1)


def test_split_chunk_unbind_are_views(device: str) -> None:
    v = tc.tensor(np.arange(10), device=device)
    parts = v.split(3)
    assert [tuple(p.shape) for p in parts] == [(3,), (3,), (3,), (1,)]
    assert [p.storage_offset() for p in parts] == [0, 3, 6, 9]
    assert all(p.untyped_storage() is v.untyped_storage() for p in parts)
    assert [p.storage_offset() for p in v.split([2, 8])] == [0, 2]
    assert [tuple(p.shape) for p in v.split([2, 8])] == [(2,), (8,)]
    assert [tuple(p.shape) for p in v.chunk(3)] == [(4,), (4,), (2,)]
    assert [tuple(p.shape) for p in tc.tensor(np.arange(6), device=device).chunk(4)] == [
        (2,),
        (2,),
        (2,),
    ]
    m = tc.tensor(np.arange(6).reshape(2, 3), device=device)
    cols = m.unbind(1)
    assert len(cols) == 3
    assert [(tuple(c.shape), c.stride(), c.storage_offset()) for c in cols] == [
        ((2,), (3,), 0), ((2,), (3,), 1), ((2,), (3,), 2),
    ]  # fmt: skip
    rows = m.split(1, dim=0)
    assert [(tuple(r.shape), r.storage_offset()) for r in rows] == [((1, 3), 0), ((1, 3), 3)]
    assert [r.tolist() for r in m] == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(RuntimeError, match="split_with_sizes"):
        v.split([2, 2])


def test_write_through_basic_indexing(device: str) -> None:
    x = tc.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    y = x.t()
    y[0, 1] = 10.0
    assert x.tolist() == [[1.0, 2.0], [10.0, 4.0]]
    x[:, 1] = tc.tensor([7.0, 8.0], device=device)
    assert y.tolist() == [[1.0, 10.0], [7.0, 8.0]]
    x[0] = 0
    assert x.tolist() == [[0.0, 0.0], [10.0, 8.0]]
    x.diagonal().fill_(5)
    assert x.tolist() == [[5.0, 0.0], [10.0, 5.0]]
    x.view(4)[1:3] = -1
    assert x.tolist() == [[5.0, -1.0], [-1.0, 5.0]]


def test_inplace_on_view_bumps_the_shared_version(device: str) -> None:
    x = tc.tensor([1.0, 2.0, 3.0], device=device)
    v = x[1:]
    before = x._version
    v.mul_(2)
    assert x._version == v._version == before + 1
    assert x.tolist() == [1.0, 4.0, 6.0]


def test_view_requires_compatible_strides(device: str) -> None:
    x = _x(device)
    with pytest.raises(
        RuntimeError, match=r"view size is not compatible.*Use \.reshape\(\.\.\.\) instead"
    ):
        x.transpose(0, 1).view(24)
    with pytest.raises(RuntimeError, match=r"reshape"):
        x.permute(1, 0, 2).view(3, 8)
    with pytest.raises(RuntimeError, match=r"shape '\[5, 5\]' is invalid for input of size 24"):
        x.view(5, 5)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        x.view(-1, -1)


def test_reshape_views_when_it_can_and_copies_when_it_must(device: str) -> None:
    x = _x(device)
    r = x.reshape(4, 6)
    assert r.untyped_storage() is x.untyped_storage()
    t = x.transpose(0, 1)
    c = t.reshape(24)
    assert c.untyped_storage() is not x.untyped_storage()
    assert c.stride() == (1,)
    assert_close(c, np.arange(24).reshape(2, 3, 4).transpose(1, 0, 2).reshape(24))
    f = t.flatten()
    assert f.untyped_storage() is not x.untyped_storage()
    assert_close(f, to_numpy(c))
    assert x.reshape(-1, 4).shape == (6, 4)
    assert x.reshape_as(tc.tensor(np.zeros((4, 6)), device=device)).shape == (4, 6)
    assert tc.tensor(5, device=device).flatten().shape == (1,)


def test_contiguous_and_clone(device: str) -> None:
    x = _x(device)
    assert x.is_contiguous()
    assert x.contiguous() is x
    t = x.transpose(0, 2)
    assert not t.is_contiguous()
    c = t.contiguous()
    assert c.is_contiguous() and c.stride() == (6, 2, 1)
    assert c.untyped_storage() is not x.untyped_storage()
    assert_close(c, np.arange(24).reshape(2, 3, 4).transpose(2, 1, 0))
    k = x.clone()
    assert k.untyped_storage() is not x.untyped_storage()
    assert_close(k, to_numpy(x))
    k[0, 0, 0] = 100
    assert x[0, 0, 0].item() == 0
    # Size-1 dims and expanded dims: contiguity ignores strides of size-1 dims.
    assert x[:, :1].is_contiguous() is False
    assert x[:1].is_contiguous()
    assert x[0, :, :1].expand(3, 1).is_contiguous() is False


def test_expand_errors(device: str) -> None:
    x = _x(device)
    with pytest.raises(
        RuntimeError,
        match=r"The expanded size of the tensor \(5\) must match the existing size \(3\)",
    ):
        x.expand(2, 5, 4)
    with pytest.raises(RuntimeError, match="must be greater or equal to the number of dimensions"):
        x.expand(3, 4)


def test_view_op_errors(device: str) -> None:
    x = _x(device)
    with pytest.raises(RuntimeError, match="duplicate dims"):
        x.permute(0, 0, 1)
    with pytest.raises(
        RuntimeError, match="number of dimensions in the tensor input does not match"
    ):
        x.permute(0, 1)
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical"):
        x.diagonal(0, 1, 1)
    with pytest.raises(
        RuntimeError, match="maximum size for tensor at dimension 2 is 4 but size is 5"
    ):
        x.unfold(2, 5, 1)
    with pytest.raises(RuntimeError, match="t\\(\\) expects a tensor with <= 2 dimensions"):
        x.t()
    with pytest.raises(ValueError, match="step of a slice index cannot be zero"):
        x[::0]
    # (PyTorch: a start out of range is an IndexError, a length too long a RuntimeError)
    with pytest.raises(
        RuntimeError, match="start \\(2\\) \\+ length \\(3\\) exceeds dimension size \\(3\\)"
    ):
        x.narrow(1, 2, 3)
    with pytest.raises(IndexError, match=r"start out of range \(expected to be in range of"):
        x.narrow(1, -4, 1)
    with pytest.raises(RuntimeError, match="length must be non-negative"):
        x.narrow(1, 0, -1)


def test_views_of_zero_dim_and_empty_tensors(device: str) -> None:
    s = tc.tensor(3.0, device=device)
    assert s.unsqueeze(0).shape == (1,)
    assert s.view(1, 1).shape == (1, 1)
    assert s.t() is s or s.t().shape == ()
    assert s.expand(2, 3).stride() == (0, 0)
    e = tc.tensor(np.zeros((0, 3)), device=device)
    assert e.view(3, 0).shape == (3, 0)
    assert e.transpose(0, 1).shape == (3, 0)
    assert e.reshape(-1).shape == (0,)
    assert _x(device)[:, 5:].shape == (2, 0, 4)


def test_empty_views_past_the_end_of_storage(device: str) -> None:
    # PyTorch allows an empty view's storage offset to lie past the end of its storage
    # (narrow at start == size, twice): the view must still be usable.
    x = tc.tensor(np.zeros((2, 2)), device=device)
    v = x.narrow(0, 2, 0).narrow(1, 2, 0)
    assert _meta(v) == ((0, 0), (2, 1), 6)
    assert v.tolist() == []
    assert to_numpy(v).shape == (0, 0)
    assert (v + 1).shape == (0, 0)


def test_real_and_imag_are_views(device: str) -> None:
    z = tc.tensor([1 + 2j, 3 - 4j, 5 + 0j], device=device)
    re, im = z.real, z.imag
    assert re.dtype is tc.float32 and im.dtype is tc.float32
    assert re.stride() == (2,) and im.storage_offset() == 1
    assert re.untyped_storage() is z.untyped_storage()
    assert re.tolist() == [1.0, 3.0, 5.0] and im.tolist() == [2.0, -4.0, 0.0]
    re.mul_(10)
    im[0] = 7.0
    assert z.tolist() == [10 + 7j, 30 - 4j, 50 + 0j]
    m = tc.tensor([[1 + 1j, 2 + 2j], [3 + 3j, 4 + 4j]], dtype=tc.complex128, device=device).t()
    assert m.imag.stride() == (2, 4) and m.imag.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    x = tc.ones(2, device=device)
    assert x.real.untyped_storage() is x.untyped_storage()
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex"):
        _ = x.imag
    assert z.conj().tolist() == [10 - 7j, 30 + 4j, 50 - 0j]


def test_assigning_real_and_imag_writes_into_the_tensor(device: str) -> None:
    # PyTorch's setters copy into the part: z.imag = v, z.real = 3.0, and kf.imag *= -1 (the
    # conjugate, in fft-convolution code: an in-place product, then this assignment).
    z = tc.tensor([1 + 2j, 3 - 1j], device=device)
    z.imag *= -1
    assert z.tolist() == [1 - 2j, 3 + 1j]
    z.imag = tc.tensor([5.0, 6.0], device=device)
    z.real = 3.0
    assert z.tolist() == [3 + 5j, 3 + 6j]
    x = tc.ones(2, device=device)
    x.real = tc.tensor([3.0, 4.0], device=device)
    assert x.tolist() == [3.0, 4.0]
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex"):
        x.imag = 1.0


def test_inplace_on_a_complex_part_in_the_graph_is_recorded(device: str) -> None:
    # (refused once; PyTorch records it, see tests/test_autograd_views.py for gradients)
    leaf = tc.tensor([1 + 2j], device=device, requires_grad=True)
    z = leaf.clone()
    z.real.mul_(2)
    assert z.tolist() == [2 + 2j]
    z.real.sum().backward()
    assert leaf.grad is not None and leaf.grad.tolist() == [2 + 0j]


def _ar(*shape: int, device: str) -> tc.Tensor:
    n = 1
    for k in shape:
        n *= k
    return tc.arange(n, dtype=tc.float32, device=device).reshape(shape)


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        # (the input, built on a device; the strides PyTorch's clone gives it)
        (lambda d: _ar(2, 3, device=d).t(), (1, 3)),
        (lambda d: _ar(2, 3, 4, device=d).permute(2, 0, 1), (1, 12, 4)),
        (lambda d: _ar(4, 6, device=d).t()[::2], (1, 3)),  # sliced, not dense
        (lambda d: _ar(4, 6, device=d)[:, ::2], (3, 1)),
        (lambda d: _ar(3, device=d).expand(2, 3), (3, 1)),  # broadcast: row-major
    ],
)
def test_clone_preserves_the_memory_order(device: str, make: Any, expected: tuple) -> None:
    x = make(device)
    c = x.clone()
    assert c.stride() == expected
    assert c.untyped_storage() is not x.untyped_storage()
    assert c.tolist() == x.tolist()
    r = x.clone(memory_format=tc.contiguous_format)
    assert r.is_contiguous() and r.tolist() == x.tolist()
    assert (x * 2).stride() == expected  # elementwise results follow the same order
    with pytest.raises(TypeError, match=r"argument 'memory_format' must be tensorcore\.memory"):
        x.clone(memory_format=tc.strided)


def test_empty_slices_keep_pytorchs_storage_offset() -> None:
    # PyTorch advances the offset to the (clamped) start even when the slice is empty.
    x = tc.arange(12.0).reshape(3, 4)
    for t in (x, x.clone().requires_grad_()):
        assert t[:, 4:].storage_offset() == 4
        assert t[5:].storage_offset() == 12
        assert t[:, 2:1].storage_offset() == 2


def test_basic_index_shortcuts_give_the_as_strided_view() -> None:
    """``x[i]`` and ``x[a:b:k]`` (and every basic index) make their view with ``make_view``
    where ``as_strided``'s lane would only check and call it: the same view, slot by slot,
    as ``as_strided`` of the same geometry, for a base, a view, a tensor without history
    that requires grad (under ``no_grad``) and a view of ``x.data``."""
    base = tc.arange(24.0).reshape(4, 6)
    leaf = tc.arange(24.0).reshape(4, 6).requires_grad_()
    indices: list[Any] = [0, 2, -1, -3, slice(1, 3), slice(None, None, 2), slice(5, 2),
                          slice(-3, None), slice(1, 9, 3), (1, slice(None, None, 2)),
                          (Ellipsis, None), (None, 2)]  # fmt: skip
    for src in (base, base[1:], base.data, base.t()):
        for idx in indices:
            with tc.no_grad():
                for t in (src, leaf):
                    got = t[idx]
                    want = t.as_strided(got.shape, got.stride(), got.storage_offset())
                    ref = np.asarray(t.detach().numpy())[idx]
                    assert got.tolist() == ref.tolist(), (idx, t.shape)
                    for slot in tc.Tensor.__slots__:
                        if slot not in ("__weakref__", "_native"):
                            a, b = getattr(got, slot), getattr(want, slot)
                            assert a is b if isinstance(a, tc.Tensor) else a == b, (slot, idx)
    for bad in (4, -5):
        with pytest.raises(IndexError, match=f"index {bad} is out of bounds for dimension 0"):
            base[bad]
    with pytest.raises(ValueError, match="step of a slice index cannot be zero"):
        base[::0]
    assert base[::-1].tolist() == np.arange(24.0).reshape(4, 6)[::-1].tolist()


def test_expand_cache_gives_the_walks_view() -> None:
    """``expand`` remembers the geometries it accepted (``views._EXPANDED``): a hit must give
    the view the walk gives, and a refused expansion is refused again."""
    from tensorcore.ops import views

    views._EXPANDED.clear()
    x = tc.arange(6.0).reshape(2, 3)
    cases: list[tuple[Any, Any]] = [
        (x[:1], (4, 3)),
        (x[:, :1], (2, 5)),
        (x, (2, 2, 3)),
        (x, (-1, 3)),
        (x.t()[:1], (3, -1, 2)),
        (x[0], (0, 3)),
    ]
    walked = []
    for t, size in cases:
        v = t.expand(size)
        walked.append((v.shape, v.stride(), v.storage_offset()))
        assert v.tolist() == np.broadcast_to(t.numpy(), v.shape).tolist()
    assert len(views._EXPANDED) == len(cases)
    for (t, size), want in zip(cases, walked, strict=True):
        v = t.expand(size)  # (from the cache)
        assert (v.shape, v.stride(), v.storage_offset()) == want
        assert v._base is (t._base if t._base is not None else t)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="must match the existing size"):
            x.expand(3, 3)
    assert x.expand([2, 3]).shape == (2, 3) and x.expand(tc.Size([2, 3])).shape == (2, 3)


def test_make_view_sets_every_slot_as_make_tensor_does() -> None:
    """``make_view`` fills a view's slots by hand (it runs for every view): a slot added to
    Tensor must be set there too, to what the plain constructor sets."""
    from tensorcore._tensor import make_tensor
    from tensorcore.ops.views import make_view

    base = tc.arange(12.0).reshape(3, 4)
    # a base, a view of one, and x.data (a version counter of its own, which views inherit)
    for src in (base, base[1:], base.data):
        fast = make_view(src, (4, 2), (1, 4), 1)
        plain = make_tensor(src._storage, (4, 2), (1, 4), 1, src._dtype, src._device)
        plain._base = src._base if src._base is not None else src
        plain._version_counter = src._version_counter
        for slot in tc.Tensor.__slots__:
            if slot == "__weakref__":
                continue
            assert hasattr(fast, slot), f"make_view leaves Tensor.{slot} unset"
            a, b = getattr(fast, slot), getattr(plain, slot)
            assert a is b if isinstance(a, tc.Tensor) else a == b, slot


def test_contiguous_view_cache_gives_the_plain_strides() -> None:
    """``_contiguous_view`` remembers the pairs of shapes it accepted: a hit must give the
    view the plain stride search gives, and a miss must not be remembered as a hit."""
    from tensorcore.ops import views

    views._CONTIGUOUS_VIEWS.clear()
    x = tc.arange(24.0)
    cases = [
        (x, (2, 12)),
        (x, (4, 3, 2)),
        (x.reshape(2, 12), (24,)),
        (x.reshape(4, 6), (6, 4)),
        (x.reshape(4, 6), (-1,)),  # (one -1: inferred once, then read back)
        (x, (2, -1, 3)),
    ]
    for _ in range(2):  # the first round fills the cache, the second reads it
        for t, shape in cases:
            fast = views._contiguous_view(t, shape)
            assert fast is not None
            new = views.infer_size(shape, t.numel())
            plain = views.view_strides(t._shape, t._stride, new)
            assert (fast._shape, fast._stride, fast._offset) == (new, plain, t._offset)
            assert fast._storage is t._storage
            assert views._CONTIGUOUS_VIEWS[t._shape, shape] == (t._stride, plain, new)
    # the pair of shapes remembered, over non-contiguous strides: no fast view
    t, s = x.reshape(4, 6).t(), x.reshape(6, 4)[:, :3]
    for _ in range(2):
        assert views._contiguous_view(t, (24,)) is None
        assert views._contiguous_view(s, (18,)) is None
    n = len(views._CONTIGUOUS_VIEWS)
    # sizes that do not fit, or whose inference fails: not remembered
    assert views._contiguous_view(x, (5, 5)) is None
    assert views._contiguous_view(x, (-1, 5)) is None
    assert views._contiguous_view(x, (-1, -1)) is None
    assert views._contiguous_view(x, (-2, 12)) is None
    assert views._contiguous_view(x, (2.0, 12.0)) is not None  # (a float size: kept out)
    assert len(views._CONTIGUOUS_VIEWS) == n
    assert x.reshape(6, 4).tolist() == np.arange(24.0).reshape(6, 4).tolist()


def test_a_fused_composite_kernel_agrees_with_the_definition(device: str) -> None:
    """The strided kernels of composites (``views._FUSED_COMPOSITES``: ``t``, ``reshape``,
    ``unbind``) give what the composite definitions give, view by view: geometry, values,
    base, the way the view was made, and errors."""
    from tensorcore.ops.composite import COMPOSITES
    from tensorcore.ops.views import _FUSED_COMPOSITES
    from tensorcore.testing.samples import SAMPLES

    assert {"t", "reshape", "unbind"} <= set(_FUSED_COMPOSITES)

    def outcome(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        try:
            res = fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the error is what is compared
            return type(exc), str(exc)
        parts = res if isinstance(res, tuple) else (res,)
        return type(res), [
            (
                tuple(r.shape),
                r.stride(),
                r.storage_offset(),
                r._base is None,
                r._view_meta,
                r.tolist(),
            )
            for r in parts
        ]

    for name, fused in _FUSED_COMPOSITES.items():
        cases = 0
        for s in SAMPLES[name](device, tc.float32):
            for grad in (False, True):  # (a view made under no_grad is marked so)
                with tc.set_grad_enabled(grad):
                    want = outcome(COMPOSITES[name], s.args, s.kwargs)
                    got = outcome(fused, s.args, s.kwargs)
                if isinstance(want[0], type) and issubclass(want[0], Exception):
                    assert got[0] is want[0], (name, s)
                else:
                    assert got == want, (name, s)
                cases += 1
        assert cases, name


def test_squeeze_of_one_dim_gives_the_plain_paths_view() -> None:
    """``squeeze(self, i)`` with ``i`` a valid index skips the index lists of the plain path
    (``views._squeeze_dims``): same shape, strides (the shared row-major tuple where self is
    row-major), offset and storage, on row-major and strided tensors."""
    from tensorcore.ops import views

    x = tc.arange(24.0)
    for t in (
        x.view(1, 4, 1, 6),
        x.view(2, 1, 12),
        x.view(4, 6)[:, :1],
        x.view(4, 6)[::2, 1:2].t(),
        x.view(24, 1)[3:],
        x[5:6],
    ):
        for d in (*range(t.ndim), *((i,) for i in range(t.ndim)), *([i] for i in range(t.ndim))):
            fast, plain = views.squeeze(t, d), views._squeeze_dims(t, d)
            assert fast._shape == plain._shape and fast._offset == plain._offset
            assert fast._stride == plain._stride and fast._storage is plain._storage
            row_major = views._CONTIG.get
            assert (fast._stride is row_major(fast._shape)) == (
                plain._stride is row_major(plain._shape)
            )


def test_views_row_major_answers_as_the_stride_search() -> None:
    """``views_row_major`` (``reshape``'s shortcut to ``view``) says yes only for a pair of
    shapes ``_contiguous_view`` met, over strides the stride search accepts as they are."""
    from tensorcore.ops import views

    views._CONTIGUOUS_VIEWS.clear()
    x = tc.arange(24.0)
    cases = [
        (x, (2, 12)),
        (x.view(4, 6), (24,)),
        (x.view(4, 6).t(), (24,)),
        (x.view(6, 4)[:, :3], (18,)),
        (x[::2], (3, 4)),
        (x, [2, 12]),
        (x, (-1, 12)),
    ]
    assert not any(views.views_row_major(t, s) for t, s in cases)  # (nothing met yet)
    for t, s in cases:
        if isinstance(s, tuple):
            views._contiguous_view(t, s)
    for t, s in cases:
        new = views.infer_size(tuple(s), t.numel())
        plain = (
            isinstance(s, tuple)
            and views.view_strides(t._shape, t._stride, new) == views.contiguous_strides(new)
            and t._stride == views.contiguous_strides(t._shape)
        )
        assert views.views_row_major(t, s) == plain, (t.shape, t.stride(), s)
        if plain:
            assert t.reshape(s)._stride == views.contiguous_strides(new)


def test_remembered_stride_searches_give_the_walks_answer() -> None:
    """``view_strides`` remembers its walk's answer for geometries other than row-major
    (``views._SEARCHED``): the answer read back is the walk's, for views that exist and
    views that do not, and sizes given as a list or as floats are not remembered."""
    from tensorcore.ops import views

    views._SEARCHED.clear()
    x = tc.arange(48.0)
    bases = [x.view(8, 6).t(), x[:8].view(8, 1).t(), x.view(4, 12)[:, ::3], x[::2].view(6, 4)[1:]]
    for _ in range(2):  # the first round fills the memo, the second reads it
        for t in bases:
            n = t.numel()
            for new in ((n,), (1, n), (n, 1), (2, n // 2), (n // 2, 2), (3, n // 3), (1, 1, n)):
                if math.prod(new) != n:
                    continue
                got = views.view_strides(t._shape, t._stride, new)
                assert got == views._search_strides(t._shape, t._stride, new), (t.shape, new)
    assert views._SEARCHED
    n = len(views._SEARCHED)
    t = bases[0]
    views.view_strides(t._shape, t._stride, [48])
    views.view_strides(t._shape, t._stride, (4.0, 12.0))  # (a pair never met)
    assert len(views._SEARCHED) == n


@pytest.mark.parametrize("grad", [False, True], ids=["plain", "grad"])
def test_the_composites_view_is_the_methods(grad: bool) -> None:
    """``composite._view`` (the lane of ``view``, then the call path) gives what
    ``t.view(shape)`` gives: geometry, base, node and gradient; and the same error."""
    from tensorcore.ops.composite import _view

    def outcome(fn: Any) -> Any:
        leaf = tc.arange(24.0, dtype=tc.float64).requires_grad_(grad)
        cases = [(leaf * 1, (4, 6)), ((leaf * 1).view(4, 6).t(), (24,)), (leaf[::2] * 1, (3, 4))]
        cases.append(((leaf * 1).view(4, 6)[:, ::2], (12,)))  # (no view: an error)
        out = []
        for t, shape in cases:
            try:
                v = fn(t, shape)
            except RuntimeError as exc:
                out.append(str(exc))
                continue
            name = None if v.grad_fn is None else v.grad_fn.name()
            if grad:
                (v * tc.arange(float(v.numel()), dtype=tc.float64).view(shape)).sum().backward()
            out.append((v._shape, v._stride, v._offset, v._base is t or v._base is t._base, name))
        return out, None if leaf.grad is None else leaf.grad.tolist()

    assert outcome(_view) == outcome(lambda t, s: t.view(s))
