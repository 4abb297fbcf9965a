"""``tc.segment_reduce`` (PyTorch's ``torch.segment_reduce``) against a NumPy loop over the
segments, on every device: lengths and offsets, batched segments along an inner axis,
``initial``, empty segments, PyTorch's errors and its gradients' tie rules. The generic tests
(samples, gradcheck, fuzz) cover the rest."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close, to_numpy

_NP = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "max": np.max, "min": np.min}
_EMPTY = {"sum": 0.0, "prod": 1.0, "mean": np.nan, "max": -np.inf, "min": np.inf}


def _np_segment_reduce(
    data: np.ndarray, reduce: str, offsets: np.ndarray, axis: int, initial: float | None
) -> np.ndarray:
    """The oracle: each row of ``offsets`` (data.shape[:axis] + (S + 1,)) cuts its slice of
    ``data`` along ``axis`` into S segments, each reduced (with ``initial`` joined in)."""
    lead = data.shape[:axis]
    n = offsets.shape[-1] - 1
    out = np.empty(lead + (n,) + data.shape[axis + 1 :], data.dtype)
    for idx in np.ndindex(*lead):
        for k in range(n):
            seg = np.moveaxis(data[idx], 0, -1)[..., offsets[idx][k] : offsets[idx][k + 1]]
            count = seg.shape[-1]
            if count == 0:
                value = np.full(seg.shape[:-1], _EMPTY[reduce] if initial is None else initial)
            elif reduce == "mean":
                total = seg.sum(-1) + (0.0 if initial is None else initial)
                value = total / count
            else:
                if initial is not None:
                    extra = np.full(seg.shape[:-1] + (1,), initial)
                    seg = np.concatenate([seg, extra], -1)
                value = _NP[reduce](seg, axis=-1)
            out[idx + (k,)] = value
    return out


@pytest.mark.parametrize("reduce", sorted(_NP))
@pytest.mark.parametrize("initial", [None, 0.75])
def test_lengths_matches_numpy(device: str, reduce: str, initial: float | None) -> None:
    rng = np.random.default_rng(0)
    data = rng.standard_normal((7, 3)) + 0.5
    lengths = np.array([2, 0, 4, 1])
    got = tc.segment_reduce(tc.tensor(data, device=device), reduce,
                            lengths=tc.tensor(lengths, device=device), initial=initial)  # fmt: skip
    want = _np_segment_reduce(data, reduce, np.concatenate([[0], np.cumsum(lengths)]), 0, initial)
    assert got.dtype is tc.float64 and got.shape == want.shape
    assert_close(got, want, equal_nan=True)


@pytest.mark.parametrize("reduce", sorted(_NP))
def test_batched_offsets_along_an_inner_axis(device: str, reduce: str) -> None:
    rng = np.random.default_rng(1)
    data = rng.standard_normal((2, 3, 6, 2)).astype(np.float32)
    offsets = np.array([[[0, 2, 6], [1, 1, 5], [0, 6, 6]], [[0, 0, 0], [3, 4, 6], [0, 3, 6]]])
    x = tc.tensor(data, device=device)
    got = tc.segment_reduce(x, reduce, offsets=tc.tensor(offsets, device=device), axis=2)
    assert got.dtype is tc.float32 and got.shape == (2, 3, 2, 2)
    assert_close(got, _np_segment_reduce(data, reduce, offsets, 2, None), equal_nan=True)
    lengths = tc.full((2, 3, 1), 6, dtype=tc.int64, device=device)  # one segment per row
    whole = tc.segment_reduce(x, reduce, lengths=lengths, axis=-2)
    want = _np_segment_reduce(data, reduce, np.broadcast_to([0, 6], (2, 3, 2)), 2, None)
    assert_close(whole, want)
    # offsets win over lengths, as in PyTorch
    both = tc.segment_reduce(x, reduce, offsets=tc.tensor(offsets, device=device), axis=2,
                             lengths=lengths)  # fmt: skip
    assert_close(both, to_numpy(got), equal_nan=True)


def test_int32_lengths_half_data_and_unsafe(device: str) -> None:
    x = tc.arange(6.0, device=device)
    lengths = tc.tensor([3, 3], dtype=tc.int32, device=device)
    assert_close(tc.segment_reduce(x.half(), "mean", lengths=lengths), np.array([1.0, 4.0],
                 np.float16))  # fmt: skip
    # unsafe: the lengths' sum is not checked (the first 2 elements, here)
    short = tc.tensor([1, 1], device=device)
    got = tc.segment_reduce(x, "sum", lengths=short, unsafe=True)
    assert_close(got, np.array([0.0, 1.0], np.float32))


def _errors(device: str) -> list[tuple[type[Exception], str, Any]]:
    x = tc.arange(6.0, device=device)
    ix = lambda v: tc.tensor(v, device=device)  # noqa: E731
    return [
        (RuntimeError, "must be either sum, prod, mean, amax or amin, got any",
         lambda: tc.segment_reduce(x, "any", lengths=ix([6]))),
        (RuntimeError, "Either lengths or offsets must be defined",
         lambda: tc.segment_reduce(x, "sum")),
        (RuntimeError, "indices based reduction is not supported yet",
         lambda: tc.segment_reduce(x, "sum", indices=ix([0, 1]))),
        (RuntimeError, "lengths along axis to sum to data.size",
         lambda: tc.segment_reduce(x, "sum", lengths=ix([2, 2]))),
        (RuntimeError, "lengths contains negative value",
         lambda: tc.segment_reduce(x, "sum", lengths=ix([7, -1]))),
        (RuntimeError, "Expected axis to be the last dimension of lengths but got 1",
         lambda: tc.segment_reduce(x.reshape(2, 3), "sum", lengths=ix([1, 1]), axis=1)),
        (RuntimeError, "offsets must be non-decreasing",
         lambda: tc.segment_reduce(x, "sum", offsets=ix([0, 4, 3, 6]))),
        (IndexError, "Dimension out of range",
         lambda: tc.segment_reduce(x, "sum", lengths=ix([6]), axis=2)),
        (NotImplementedError, "int32 or int64",
         lambda: tc.segment_reduce(x, "sum", lengths=ix([3.0, 3.0]))),
        (NotImplementedError, "not implemented for 'Long'",
         lambda: tc.segment_reduce(ix([1, 2]), "sum", lengths=ix([2]))),
        (RuntimeError, "cannot be converted to type float32 without overflow",
         lambda: tc.segment_reduce(x.float(), "sum", lengths=ix([6]), initial=1 + 2j)),
    ]  # fmt: skip


@pytest.mark.parametrize("case", range(11))
def test_errors_are_pytorchs(device: str, case: int) -> None:
    exc, match, call = _errors(device)[case]
    with pytest.raises(exc, match=match):
        call()


def test_gradients_share_ties_as_pytorch(device: str) -> None:
    """max/min share a segment's gradient among its tied maxima (an ``initial`` that ties
    takes none; one that wins takes all), prod gives a single zero the product of the
    others, mean divides by the segment's length (``initial`` not counted); PyTorch's
    numbers, written out."""
    g = tc.tensor([1.0, 2.0, 3.0], dtype=tc.float64, device=device)
    want = {
        "sum": [1, 1, 1, 3, 3, 3],
        "mean": [1 / 3, 1 / 3, 1 / 3, 1, 1, 1],
        "max": [0, 0.5, 0.5, 0, 0, 3],
        "min": [1, 0, 0, 3, 0, 0],
        "prod": [9, 3, 3, 30, 0, 0],
    }
    for reduce, grad in want.items():
        for initial in (None, 1.0):
            d = tc.tensor([1.0, 3.0, 3.0, 0.0, 2.0, 5.0], dtype=tc.float64, device=device)
            d.requires_grad_()
            y = tc.segment_reduce(d, reduce, lengths=tc.tensor([3, 0, 3], device=device),
                                  initial=initial)  # fmt: skip
            (gd,) = tc.autograd.grad(y, d, g)
            scale = 1.0 if reduce != "prod" or initial is None else initial
            assert_close(gd, np.array(grad) * scale)
    d = tc.tensor([1.0, 1.0], dtype=tc.float64, device=device, requires_grad=True)
    for initial, grad in [(1.0, [0.5, 0.5]), (3.0, [0.0, 0.0])]:
        y = tc.segment_reduce(d, "max", lengths=tc.tensor([2], device=device), initial=initial)
        assert_close(tc.autograd.grad(y.sum(), d)[0], np.array(grad))
