"""Samples of the shape, indexing and view operators, the conversions, the in-place operators and
the factories. Each generator registers itself with ``_samples``; ``samples.py`` gathers them
into :data:`tensorcore.testing.samples.SAMPLES`."""

from __future__ import annotations

from typing import Any

import tensorcore as tc
from tensorcore import dtypes as dt
from tensorcore.testing._sample_base import SEED, S, Sample, _Maker, _samples


# ------------------------------------------------------------------ shapes and indexing
@_samples("stack")
def _stack(m: _Maker) -> list[Sample]:
    return [
        S(([m.uniform(2, 3), m.uniform(2, 3)],), desc="dim 0"),
        S(([m.uniform(2, 3), m.uniform(2, 3, t=True), m.uniform(2, 3)], 1), desc="dim 1"),
    ]


@_samples("cat")
def _cat(m: _Maker) -> list[Sample]:
    return [*_stack(m), S(([m.uniform(1, 3), m.uniform(2, 3)], -2), desc="different sizes")]


@_samples("flip")
def _flip(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), (0,))), S((m.uniform(4, 3, t=True), (0, 1)), desc="transposed")]


@_samples("roll")
def _roll(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), (1,), (1,))),
        S((m.uniform(4, 3, t=True), (1, -2), (0, 1)), desc="two dims, transposed"),
        S((m.uniform(2, 3), (2,)), desc="flattened"),
    ]


@_samples("repeat", "tile")
def _repeat(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), (2, 1))),
        S((m.uniform(3, 2, t=True), (1, 2, 1)), desc="new leading dim, transposed"),
    ]


@_samples("tril", "triu")
def _tril(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3),)),
        S((m.uniform(4, 3, t=True), 1), desc="diagonal 1, transposed"),
        S((m.uniform(2, 3, 3), -1), desc="batched, diagonal -1"),
    ]


@_samples("gather")
def _gather(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), 1, m.index([[0, 0, 2], [1, 2, 1]])), desc="repeated indices"),
        S(
            (m.uniform(4, 3, t=True), 0, m.index([[2, 0, 3], [1, 1, 0]])),
            desc="dim 0 of transposed",
        ),
    ]


@_samples("scatter")
def _scatter(m: _Maker) -> list[Sample]:
    # Unique target positions: with duplicates, which src value wins is unspecified.
    return [
        S((m.uniform(2, 3), 1, m.index([[2, 0], [1, 2]]), m.uniform(2, 2)), desc="tensor src"),
        S(
            (m.uniform(4, 3, t=True), 0, m.index([[1, 0, 3], [2, 3, 1]]), m.uniform(2, 3)),
            desc="dim 0 of transposed",
        ),
        S((m.uniform(2, 3), 1, m.index([[1], [0]]), 0.5), desc="scalar src"),
    ]


@_samples("scatter_add")
def _scatter_add(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), 1, m.index([[2, 2, 0], [1, 0, 1]]), m.uniform(2, 3)), desc="dups"),
        S((m.uniform(3, 2, t=True), 0, m.index([[1, 1], [1, 0]]), m.uniform(2, 2)), desc="dim 0"),
    ]


@_samples("scatter_reduce")
def _scatter_reduce(m: _Maker) -> list[Sample]:
    # Targets with several values (no ties for amax/amin), targets with none.
    ix = m.index([[2, 2, 0], [1, 0, 1]])
    return [
        S((m.uniform(2, 3), 1, ix, m.uniform(2, 3), "sum"), desc="sum"),
        S((m.away(2, 3), 1, ix, m.away(2, 3), "prod"), {"include_self": False}, desc="prod"),
        S((m.uniform(3, 2, t=True), 0, m.index([[1, 1], [1, 0]]), m.uniform(2, 2), "mean"),
          desc="mean, dim 0 of transposed"),
        S((m.uniform(2, 3), 1, ix, m.uniform(2, 3), "amax"), desc="amax"),
        S((m.uniform(2, 3), 1, ix, m.uniform(2, 3), "amin"), {"include_self": False},
          desc="amin without self"),
    ]  # fmt: skip


@_samples("index_reduce")
def _index_reduce(m: _Maker) -> list[Sample]:
    # Rows 0 and 2 receive two slices, row 1 one, row 3 none; distinct values (no ties).
    ix = m.index([2, 0, 2, 1, 0])
    return [
        S((m.away(4, 3), 0, ix, m.away(5, 3), "prod"), desc="prod"),
        S((m.uniform(4, 3), 0, ix, m.uniform(5, 3), "mean"), {"include_self": False},
          desc="mean without self"),
        S((m.distinct(3, 4, t=True), 1, ix, m.distinct(3, 5), "amax"), desc="amax, transposed"),
        S((m.distinct(4, 3), 0, ix, m.distinct(5, 3), "amin"), {"include_self": False},
          desc="amin without self"),
    ]  # fmt: skip


@_samples("segment_reduce")
def _segment_reduce(m: _Maker) -> list[Sample]:
    # Distinct values for max and min (no ties); their empty segments take ``initial``.
    return [
        S((m.uniform(6, 3), "sum"), {"lengths": m.index([2, 0, 3, 1])}, desc="sum, empty segment"),
        S((m.uniform(6), "mean"), {"lengths": m.index([3, 0, 3]), "initial": 0.5},
          desc="mean, initial"),
        S((m.distinct(2, 5), "max"), {"offsets": m.index([[0, 2, 5], [1, 1, 4]]), "axis": 1,
          "initial": -9.0}, desc="max by offsets along axis 1"),
        S((m.distinct(2, 4, 3), "min"), {"lengths": m.index([[1, 3], [4, 0]]), "axis": -2,
          "initial": 9.0}, desc="min, batched lengths"),
        S((m.away(5), "prod"), {"lengths": m.index([2, 3]), "initial": 2.0}, desc="prod"),
    ]  # fmt: skip


@_samples("index_select")
def _index_select(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), 0, m.index([2, 0, 2])), desc="repeated"),
        S((m.uniform(4, 3, t=True), 1, m.index([2, 1])), desc="dim 1 of transposed"),
    ]


@_samples("masked_fill")
def _masked_fill(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.mask(2, 3), m.uniform()), desc="0-dim tensor value"),
        S((m.uniform(3, 2, t=True), m.mask(2), 0.25), desc="broadcast mask, scalar value"),
    ]


@_samples("index")
def _index(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), [m.index([2, 0, 2])]), desc="repeated rows"),
        S((m.uniform(4, 3, t=True), [None, m.index([2, 0])]), desc="columns of transposed"),
        S((m.uniform(2, 3), [m.index([0, 1]), m.index([2, 0])]), desc="points"),
        S((m.uniform(2, 3), [m.mask(2, 3)]), desc="bool mask"),
    ]


@_samples("index_put")
def _index_put(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), [m.index([2, 0])], m.uniform(2, 2)), desc="rows"),
        S(
            (m.uniform(4, 3, t=True), [m.index([0, 3]), m.index([1, 2])], m.uniform(2)),
            desc="points of transposed",
        ),
        S(
            (m.uniform(3, 2), [m.index([1, 1, 0])], m.uniform(2), True),
            desc="accumulate, repeated, broadcast values",
        ),
    ]


@_samples("nonzero")
def _nonzero(m: _Maker) -> list[Sample]:
    return [
        S((m.mask(2, 3).to(m.dtype),)),
        S((m.mask(4),), desc="bool"),
        S((m.mask(3, 2).to(m.dtype),), {"as_tuple": True}, desc="as_tuple"),
    ]


@_samples("nonzero_numpy")
def _nonzero_numpy(m: _Maker) -> list[Sample]:
    return [S((m.mask(2, 3).to(m.dtype),)), S((m.mask(4)[0],), desc="0-d")]


@_samples("argwhere")
def _argwhere(m: _Maker) -> list[Sample]:
    return [S((m.mask(2, 3).to(m.dtype),)), S((m.mask(4),), desc="bool")]


# ------------------------------------------------------------------ views
@_samples("view")
def _view(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), 3, 2)), S((m.uniform(2, 3), (-1,)), desc="flatten")]


@_samples("reshape")
def _reshape(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), (3, 2))),
        S((m.uniform(3, 2, t=True), (-1,)), desc="transposed (copies)"),
    ]


@_samples("as_strided")
def _as_strided(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), (3, 2), (1, 3)), desc="transpose"),
        S((m.uniform(6), (3, 2), (1, 1)), desc="overlapping windows"),
        S((m.uniform(2, 3), (2,), (2,), 1), desc="offset"),
    ]


@_samples("expand")
def _expand(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 1), 3, 2)), S((m.uniform(3), (2, -1)), desc="new dim")]


@_samples("transpose", "swapaxes")
def _transpose(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), 0, 1)), S((m.uniform(2, 3, 2), -1, 0), desc="3-D")]


@_samples("permute")
def _permute(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3, 2), (2, 0, 1))), S((m.uniform(4, 3, t=True), 1, 0), desc="T")]


@_samples("squeeze")
def _squeeze(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 1, 3),)), S((m.uniform(1, 3, 1), (0,)), desc="one dim")]


@_samples("unsqueeze")
def _unsqueeze(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), 1)), S((m.uniform(4, 3, t=True), -1), desc="transposed")]


@_samples("narrow")
def _narrow(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 4), 1, 1, 2)), S((m.uniform(4, 3, t=True), 0, 1, 2), desc="T")]


@_samples("select")
def _select(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), 1, 2)), S((m.uniform(4, 3, t=True), 0, -1), desc="T")]


@_samples("slice")
def _slice(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 4), 1, 1, 4, 2), desc="step 2"),
        S((m.uniform(4, 3, t=True), 0, None, 2), desc="transposed"),
    ]


@_samples("diagonal")
def _diagonal(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3),)),
        S((m.uniform(3, 4, t=True), 1), desc="offset 1, transposed"),
        S((m.uniform(2, 3, 3), -1, 1, 2), desc="batched"),
    ]


@_samples("unfold")
def _unfold(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(5), 0, 2, 1), desc="overlapping windows"),
        S((m.uniform(2, 4), 1, 2, 2), desc="disjoint windows"),
    ]


@_samples("alias", "clone", "contiguous")
def _alias(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3),)), S((m.uniform(4, 3, t=True),), desc="transposed")]


@_samples("view_as", "reshape_as")
def _view_as(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.uniform(3, 2))), S((m.uniform(3, 1), m.uniform(1, 3)))]


@_samples("expand_as")
def _expand_as(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 1), m.uniform(3, 2))), S((m.uniform(3), m.uniform(2, 3)), desc="new")]


@_samples("broadcast_to")
def _broadcast_to(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 1), (3, 2))), S((m.uniform(3), (2, 3)), desc="new dim")]


@_samples("t")
def _t(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3),)), S((m.uniform(3),), desc="1-D")]


@_samples("movedim")
def _movedim(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3, 2), (0,), (2,))), S((m.uniform(2, 3, 2), (0, 1), (2, 0)))]


@_samples("flatten")
def _flatten(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3, 2),)),
        S((m.uniform(2, 3, 2), 1), desc="from dim 1"),
        S((m.uniform(4, 3, t=True),), desc="transposed (copies)"),
    ]


@_samples("unflatten")
def _unflatten(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 6), 1, (2, 3))), S((m.uniform(6), 0, (-1, 2)), desc="inferred")]


@_samples("split")
def _split(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(5, 2), 2), desc="equal pieces"),
        S((m.uniform(3, 4, t=True), (1, 3), 1), desc="sections of transposed"),
    ]


@_samples("chunk")
def _chunk(m: _Maker) -> list[Sample]:
    return [S((m.uniform(5, 2), 2)), S((m.uniform(3, 4, t=True), 2, 1), desc="dim 1")]


@_samples("unbind")
def _unbind(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3),)), S((m.uniform(4, 3, t=True), 1), desc="dim 1")]


# ------------------------------------------------------------------ conversions and in-place
@_samples("to_dtype")
def _to_dtype(m: _Maker) -> list[Sample]:
    x = m.uniform(2, 3)
    out = [S((x, m.dtype), desc="same dtype")]
    if m.dtype is not dt.float64:
        out.append(S((m.uniform(2, 3), tc.float64), desc="to float64"))
    return out


@_samples("to_dense")
def _to_dense(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3),)), S((m.uniform(4, 3, t=True), tc.float64), desc="to float64")]


@_samples("type_as")
def _type_as(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.uniform(1)))]


@_samples("to_device")
def _to_device(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.device)), S((m.uniform(3, 2, t=True), m.device, False))]


@_samples("copy_")
def _copy(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3)), desc="same shape"),
        S((m.uniform(2, 3), m.uniform(3)), desc="broadcast src"),
        S((m.uniform(2, 3, t=True), m.uniform(2, 3)), desc="into transposed"),
    ]


@_samples("fill_")
def _fill(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), 1.5)), S((m.uniform(3, 2, t=True), 0), desc="transposed")]


@_samples("zero_")
def _zero(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3),)), S((m.uniform(3, 2, t=True),), desc="transposed")]


@_samples("fill_diagonal_")
def _fill_diagonal(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4), 1.5), desc="wide"),
        S((m.uniform(7, 3, t=True), 0.5), {"wrap": True}, desc="tall, transposed, wrap"),
        S((m.uniform(3, 3), 2), desc="square"),
    ]


@_samples("item")
def _item(m: _Maker) -> list[Sample]:
    return [S((m.uniform(),)), S((m.uniform(1, 1),), desc="one element")]


@_samples("tolist")
def _tolist(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3),)), S((m.uniform(),), desc="0-dim")]


@_samples("uniform_", "normal_")
def _fill_random(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3),), {"generator": m.generator(SEED)}),
        S((m.uniform(3), -2.0, 2.0), {"generator": m.generator(SEED)}),
    ]


@_samples("_standard_gamma")
def _standard_gamma(m: _Maker) -> list[Sample]:
    alpha = m.uniform(3, 4, lo=0.2, hi=5.0)
    return [S((alpha,), {"generator": m.generator(SEED)}, desc="concentrations")]


@_samples("random_")
def _random(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), 0, 5), {"generator": m.generator(SEED)})]


# ------------------------------------------------------------------ factories
def _fk(m: _Maker, **kw: Any) -> dict[str, Any]:
    return {"dtype": m.dtype, "device": m.device, **kw}


@_samples("empty", "zeros", "ones")
def _empty(m: _Maker) -> list[Sample]:
    return [S((2, 3), _fk(m)), S(((3,),), _fk(m), desc="size tuple")]


@_samples("rand", "randn")
def _rand(m: _Maker) -> list[Sample]:
    return [S((2, 3), m.factory_kwargs(SEED, dtype=m.dtype))]


@_samples("full")
def _full(m: _Maker) -> list[Sample]:
    return [S(((2, 3), 1.5), _fk(m)), S(((0,), 7), _fk(m), desc="empty")]


@_samples("arange")
def _arange(m: _Maker) -> list[Sample]:
    return [S((5,), _fk(m)), S((1, 7, 2), _fk(m), desc="start, end, step")]


@_samples("linspace")
def _linspace(m: _Maker) -> list[Sample]:
    return [S((0.0, 1.0, 5), _fk(m))]


@_samples("eye")
def _eye(m: _Maker) -> list[Sample]:
    return [S((3,), _fk(m)), S((2, 4), _fk(m), desc="rectangular")]


@_samples("bernoulli")
def _bernoulli(m: _Maker) -> list[Sample]:
    p = m.uniform(3, 4, lo=0.0, hi=1.0)
    return [
        S((p,), {"generator": m.generator(1)}, desc="probabilities"),
        S((p, 0.3), {"generator": m.generator(2)}, desc="one probability p"),
    ]


@_samples("bernoulli_")
def _bernoulli_inplace(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4), 0.3), {"generator": m.generator(2)}, desc="p=0.3"),
        S((m.uniform(5),), {"generator": m.generator(3)}, desc="default p"),
    ]


@_samples("exponential_", "cauchy_", "log_normal_")
def _continuous_fill(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4),), {"generator": m.generator(2)}, desc="defaults"),
        S((m.uniform(3, 2, t=True), 0.5), {"generator": m.generator(3)},
          desc="transposed"),
    ]  # fmt: skip


@_samples("geometric_")
def _geometric_inplace(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4), 0.3), {"generator": m.generator(2)}),
        S((m.uniform(3, 2, t=True), 0.9), {"generator": m.generator(3)},
          desc="transposed"),
    ]  # fmt: skip


@_samples("multinomial")
def _multinomial(m: _Maker) -> list[Sample]:
    w = m.positive(5, lo=0.1, hi=1.0) if m.floating else m.positive(5).to(tc.float32)
    return [
        S((w, 3), {"generator": m.generator(1)}, desc="without replacement"),
        S(
            (w.expand(2, 5), 7, True),
            {"generator": m.generator(2)},
            desc="2-D, with replacement",
        ),
    ]


@_samples("randperm")
def _randperm(m: _Maker) -> list[Sample]:
    return [S((5,), m.factory_kwargs(SEED))]


@_samples("randint")
def _randint(m: _Maker) -> list[Sample]:
    return [
        S((0, 5, (2, 3)), m.factory_kwargs(SEED)),
        S((5, (4,)), m.factory_kwargs(SEED + 1), desc="high only"),
    ]


@_samples("normal")
def _normal(m: _Maker) -> list[Sample]:
    return [
        S((0.0, 1.0, (2, 3)), m.factory_kwargs(SEED, dtype=m.dtype)),
        S(
            (m.uniform(2, 3), m.positive(3)),
            {"generator": m.generator(SEED)},
            desc="tensor mean and std",
        ),
    ]


@_samples("empty_like", "zeros_like", "ones_like", "rand_like", "randn_like")
def _like(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3),)), S((m.uniform(3, 2, t=True),), {"dtype": m.dtype})]


@_samples("full_like")
def _full_like(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), 2.5)), S((m.uniform(3, 2, t=True), 1), {"dtype": m.dtype})]
