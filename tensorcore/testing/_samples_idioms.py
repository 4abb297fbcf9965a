"""Samples of the composites PyTorch programs reach for (``clamp_min``, ``addcmul``, ``cdist``,
``index_add``, ``bincount``, ``one_hot``...). Each generator registers itself with
``_samples``; ``samples.py`` gathers them into :data:`tensorcore.testing.samples.SAMPLES`."""

from __future__ import annotations

import tensorcore as tc
from tensorcore import dtypes as dt
from tensorcore.testing._sample_base import S, Sample, _Maker, _samples


@_samples("clamp_min", "clamp_max")
def _clamp_one(m: _Maker) -> list[Sample]:
    x = m.away(2, 3, lo=0.3, hi=1.5)
    return [
        S((x, 0.1), desc="scalar bound"),
        S((x.t().contiguous().t(), m.uniform(3, lo=-0.2, hi=0.2)), desc="tensor bound, broadcast"),
    ]


@_samples("addcmul", "addcdiv")
def _addcmul(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3), m.away(2, 3))),
        S((m.uniform(3), m.uniform(2, 3, t=True), m.away(2, 1)), {"value": 0.5}, desc="broadcast"),
    ]


@_samples("swapdims")
def _swapdims(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), 0, 1)), S((m.uniform(2, 3, 2), -1, 0), desc="3-D")]


@_samples("ravel")
def _ravel(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3),)), S((m.uniform(3, 2, t=True),), desc="transposed: a copy")]


@_samples("baddbmm", "addbmm")
def _baddbmm(m: _Maker) -> list[Sample]:
    return [
        S(
            (m.uniform(2, 3), m.uniform(2, 2, 4), m.uniform(2, 4, 3)),
            {"beta": 0.5, "alpha": 2},
            desc="broadcast self",
        ),
        S((m.uniform(2, 3), m.uniform(1, 2, 4), m.uniform(1, 4, 3)), {"beta": 0}, desc="beta 0"),
    ]


@_samples("cdist")
def _cdist(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), m.uniform(4, 2))),
        S((m.uniform(2, 3, 2), m.uniform(2, 2, 2)), {"p": 1.0}, desc="batched, p=1"),
        S((m.uniform(3, 2), m.uniform(2, 2)), {"p": 3.0}, desc="p=3"),
        S(
            (m.uniform(3, 2), m.uniform(4, 2)),
            {"compute_mode": "use_mm_for_euclid_dist"},
            desc="matrix product",
        ),
    ]


@_samples("pdist")
def _pdist(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(4, 3),)),
        S((m.distinct(3, 2, t=True),), {"p": 1.0}, desc="p=1, transposed"),
        S((m.distinct(3, 2),), {"p": 3.0}, desc="p=3"),
    ]


@_samples("cosine_similarity")
def _cosine_similarity(m: _Maker) -> list[Sample]:
    return [
        S((m.away(3, 4), m.away(3, 4))),
        S((m.away(2, 3), m.away(1, 3)), {"dim": -1}, desc="broadcast, dim -1"),
        S((m.away(4, 2, t=True), m.away(4, 2)), {"dim": 0}, desc="dim 0 of transposed"),
    ]


@_samples("cov")
def _cov(m: _Maker) -> list[Sample]:
    fw = m.ints(5, lo=1, hi=4)
    aw = tc.tensor([0.5, 1.5, 1.0, 2.0, 0.25], dtype=tc.float64, device=m.device)
    return [
        S((m.uniform(3, 5),)),
        S((m.uniform(5),), {"correction": 0}, desc="one variable"),
        S((m.uniform(2, 5, t=True),), {"fweights": fw}, desc="fweights, transposed"),
        S((m.uniform(2, 5),), {"fweights": fw, "aweights": aw}, desc="both weights"),
        S((m.uniform(2, 5),), {"aweights": aw, "correction": 0}, desc="aweights"),
    ]


@_samples("corrcoef")
def _corrcoef(m: _Maker) -> list[Sample]:
    return [S((m.distinct(3, 5),)), S((m.distinct(4, 2, t=True),), desc="transposed")]


@_samples("masked_select")
def _masked_select(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.mask(2, 3))),
        S((m.uniform(3, 2, t=True), m.mask(2)), desc="broadcast mask"),
    ]


@_samples("index_add")
def _index_add(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), 0, m.index([2, 0, 2]), m.uniform(3, 2)), desc="repeated"),
        S((m.uniform(2, 4), 1, m.index([3, 1]), m.uniform(2, 2)), {"alpha": 2}, desc="alpha"),
    ]


@_samples("index_copy")
def _index_copy(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), 0, m.index([2, 0]), m.uniform(2, 2))),
        S((m.uniform(2, 4, t=True), 1, m.index([3, 1]), m.uniform(2, 2)), desc="dim 1"),
    ]


@_samples("index_fill")
def _index_fill(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), 0, m.index([2, 0]), 0.5), desc="scalar"),
        S((m.uniform(2, 4, t=True), 1, m.index([3, 1, 3]), m.uniform()), desc="0-d tensor"),
    ]


@_samples("bincount")
def _bincount(m: _Maker) -> list[Sample]:
    x = m.ints(6, hi=5, dtype=m.int_dtype())
    return [
        # (a bool data dtype gives a bool input, which bincount refuses)
        S((m.ints(5, hi=4).to(dt.bool_ if m.dtype is dt.bool_ else x.dtype),), desc="short"),
        S((x, m.uniform(6)), desc="weights"),
        S((x,), {"minlength": 8}, desc="minlength"),
    ]


@_samples("one_hot")
def _one_hot(m: _Maker) -> list[Sample]:
    # (int64 indices whatever the dtype under test: one_hot takes no other)
    return [
        S((m.ints(6, hi=5),), desc="inferred classes"),
        S((m.ints(2, 3, hi=4), 6), desc="2-D"),
        S((m.index(2), 3), desc="0-d"),
        S((m.index([]), 4), desc="empty"),
    ]


# (Every element clamped, where the straight-through gradient, 0 there and the incoming one
# within the range, is also the derivative, so that gradcheck can compare them;
# tests/test_program_sweep25.py checks the values and gradients within the range.)
@_samples("fake_quantize_per_tensor_affine")
def _fake_quantize_per_tensor(m: _Maker) -> list[Sample]:
    return [S((m.away(2, 3, lo=1.0, hi=2.0), 0.1, 0, -8, 7), desc="clamped")]


@_samples("fake_quantize_per_channel_affine")
def _fake_quantize_per_channel(m: _Maker) -> list[Sample]:
    # (clamped to quant_max == zero_point: 0, whatever the scale, which takes no gradient)
    scale = tc.tensor([0.1, 0.1, 0.05], device=m.device)
    zero_point = tc.zeros(3, dtype=tc.int32, device=m.device)
    return [
        S((m.positive(2, 3, lo=1.0), scale, zero_point, 1, -8, 0), desc="clamped", constant=(1,))
    ]


@_samples("diag")
def _diag(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3),)),
        S((m.uniform(3), -1), desc="1-D, below"),
        S((m.uniform(3, 4, t=True), 1), desc="2-D, above"),
    ]


@_samples("diag_embed")
def _diag_embed(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3),)),
        S((m.uniform(2, 3), 1, 0, 2), desc="offset, dims"),
        S((m.uniform(3), -2), desc="below"),
    ]
