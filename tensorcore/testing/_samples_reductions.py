"""Samples of the reductions, scans, searches, sets and statistics. Each generator registers
itself with ``_samples``; ``samples.py`` gathers them into
:data:`tensorcore.testing.samples.SAMPLES`."""

from __future__ import annotations

import math

import tensorcore as tc
from tensorcore.testing._sample_base import S, Sample, _Maker, _samples
from tensorcore.testing._samples_linalg import _spectrum
from tensorcore.testing._samples_shape import _fk


# ------------------------------------------------------------------ reductions and scans
@_samples("sum", "mean")
def _sum(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3),), desc="all"),
        S((m.uniform(4, 3, t=True), 1), desc="dim 1 of transposed"),
        S((m.uniform(2, 3, 2), (0, 2)), {"keepdim": True}, desc="two dims, keepdim"),
        S((m.uniform(2, 3), -1), {"dtype": m.dtype}, desc="dtype"),
    ]


@_samples("prod")
def _prod(m: _Maker) -> list[Sample]:
    with_zero = m.away(2, 3, lo=0.5, hi=1.5)
    with_zero[1, 1] = 0.0
    return [
        S((m.away(2, 3, lo=0.5, hi=1.5),), desc="all"),
        S((m.away(4, 3, lo=0.5, hi=1.5, t=True), 1), desc="dim 1 of transposed"),
        S((with_zero, 1, True), desc="with a zero, keepdim"),
        S((with_zero,), desc="with a zero, all"),
    ]


@_samples("amax", "amin")
def _amax(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 3),), desc="all"),
        S((m.distinct(3, 4, t=True), 1), desc="dim 1 of transposed"),
        S((m.distinct(2, 3, 2), (0, 2), True), desc="two dims, keepdim"),
    ]


@_samples("evenly_distribute_backward")
def _evenly_distribute_backward(m: _Maker) -> list[Sample]:
    # (integer self and value with ties: constants to finite differences, whose steps would
    # break the ties that the operator reads)
    x = m.ints(3, 4, hi=3)
    return [
        S((m.uniform(3), x, x.amax(1), [1], False), desc="dim 1, ties"),
        S((m.uniform(1, 4), x, x.amin(0, keepdim=True), [0], True), desc="dim 0, keepdim"),
        S((m.uniform(), x, x.amax(), [], False), desc="every dim"),
        S((m.uniform(), x, x.amax(), [], False, True), desc="every dim, NaN ties"),
    ]


@_samples("value_selecting_reduction_backward")
def _value_selecting_reduction_backward(m: _Maker) -> list[Sample]:
    i = tc.tensor([2, 0, 3], device=m.device)
    i0 = tc.tensor([[1, 2, 0, 2]], device=m.device)
    return [
        S((m.uniform(3), 1, i, [3, 4], False), desc="dim 1"),
        S((m.uniform(1, 4), 0, i0, [3, 4], True), desc="dim 0, keepdim"),
        S((m.uniform(), 0, tc.tensor(0, device=m.device), [], False), desc="0-d"),
    ]


@_samples("max_all", "min_all")
def _extreme_all(m: _Maker) -> list[Sample]:
    return [S((m.distinct(2, 3),), desc="2-d"), S((m.distinct(4, t=True),), desc="1-d")]


@_samples("max_dim", "min_dim")
def _max_dim(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 3), 1), desc="dim 1"),
        S((m.distinct(3, 4, t=True), 0, True), desc="dim 0 of transposed, keepdim"),
    ]


@_samples("max", "min")
def _max(m: _Maker) -> list[Sample]:
    b = m.uniform(2, 3)
    return [
        S((m.distinct(2, 3),), desc="all"),
        S((m.distinct(3, 4, t=True), 1), desc="dim"),
        S((m.distinct(2, 3), 0, True), desc="dim, keepdim"),
        S((b + m.away(2, 3, lo=0.1, hi=0.5), b), desc="elementwise with a tensor"),
    ]


@_samples("argmax", "argmin")
def _argmax(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 3),), desc="flattened"),
        S((m.distinct(3, 4, t=True), 1), desc="dim"),
        S((m.distinct(2, 3), 0, True), desc="dim, keepdim"),
    ]


@_samples("var", "std")
def _var(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3),), desc="all"),
        S((m.uniform(4, 3, t=True), 1), desc="dim 1 of transposed"),
        S((m.uniform(2, 3, 2), (0, 2)), {"correction": 0, "keepdim": True}, desc="correction 0"),
    ]


@_samples("vector_norm", "norm")
def _vector_norm(m: _Maker) -> list[Sample]:
    return [
        S((m.away(2, 3),), desc="2-norm, all"),
        S((m.away(4, 3, t=True), 1, 1), desc="1-norm, dim 1 of transposed"),
        S((m.distinct(2, 3), math.inf, (0,), True), desc="inf-norm, keepdim"),
        S((m.away(2, 3), 3, -1), desc="3-norm"),
    ]


@_samples("logsumexp")
def _logsumexp(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), 1), desc="dim 1"),
        S((m.uniform(4, 3, t=True), (0, 1), True), desc="all dims of transposed, keepdim"),
    ]


@_samples("all", "any")
def _all(m: _Maker) -> list[Sample]:
    return [
        S((m.mask(2, 3),), desc="all"),
        S((m.mask(2, 3), 1), desc="dim"),
        S((m.ints(2, 3, hi=2).to(m.dtype), (0,), True), desc="numbers, keepdim"),
    ]


@_samples("cumsum")
def _cumsum(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), 1), desc="dim 1"),
        S((m.uniform(4, 3, t=True), 0), desc="dim 0 of transposed"),
        S((m.uniform(3), 0), {"dtype": m.dtype}, desc="dtype"),
    ]


@_samples("cumprod")
def _cumprod(m: _Maker) -> list[Sample]:
    with_zero = m.away(2, 4, lo=0.5, hi=1.5)
    with_zero[0, 1] = 0.0
    return [
        S((m.away(2, 3, lo=0.5, hi=1.5), 1), desc="dim 1"),
        S((m.away(4, 3, lo=0.5, hi=1.5, t=True), 0), desc="dim 0 of transposed"),
        S((with_zero, 1), desc="with a zero"),
    ]


@_samples("softmax", "log_softmax")
def _softmax(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), 1), desc="dim 1"),
        S((m.uniform(4, 3, t=True), 0), desc="dim 0 of transposed"),
        S((m.uniform(2, 3), -1, m.dtype), desc="dtype"),
    ]


@_samples("_safe_softmax")
def _safe_softmax(m: _Maker) -> list[Sample]:
    # (a row of -inf only, a row with two, a row with none)
    masked = tc.tensor([[1, 1, 1, 1], [0, 1, 0, 1], [0, 0, 0, 0]], dtype=tc.bool, device=m.device)
    return [
        *_softmax(m),
        S((m.uniform(3, 4).masked_fill(masked, float("-inf")), 1), desc="rows of -inf"),
    ]


@_samples("_softmax_backward_data", "_log_softmax_backward_data")
def _softmax_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3, lo=-2.0, hi=0.0), 1), desc="dim 1"),
        S((m.uniform(4, 3, t=True), m.uniform(4, 3, lo=-2.0, hi=0.0), 0), desc="dim 0"),
    ]


@_samples("nll_loss")
def _nll_loss(m: _Maker) -> list[Sample]:
    t = m.index([0, 2, 1, 2])
    w = m.positive(3, lo=0.5, hi=2.0)
    return [
        S((m.uniform(4, 3, lo=-2.0, hi=0.0), t), desc="mean"),
        S((m.uniform(4, 3, lo=-2.0, hi=0.0), t, None, "sum"), desc="sum"),
        S((m.uniform(4, 3, lo=-2.0, hi=0.0, t=True), t), {"reduction": "none"}, desc="none"),
        S((m.uniform(4, 3, lo=-2.0, hi=0.0), m.index([0, -100, 1, 2]), w), desc="weight, ignored"),
        S(
            (m.uniform(4, 3, lo=-2.0, hi=0.0), m.index([0, 2, 2, 1]), w, "none", 2),
            desc="weight, none, ignore_index=2",
        ),
    ]


@_samples("nll_loss_backward")
def _nll_loss_backward(m: _Maker) -> list[Sample]:
    t = m.index([0, 2, 1, 2])
    return [
        S((m.uniform(), t, 3), desc="mean"),
        S((m.uniform(), t, 3, "sum"), desc="sum"),
        S((m.uniform(4), t, 3, "none"), desc="none"),
        S(
            (m.uniform(), m.index([0, -100, 1, 2]), 3, "mean", m.positive(3, lo=0.5, hi=2.0)),
            desc="weight, ignored",
        ),
    ]


# ------------------------------------------------------------------ search, sets, scans, statistics
@_samples("searchsorted")
def _searchsorted(m: _Maker) -> list[Sample]:
    seq = m.distinct(2, 5).sort().values
    return [
        S((seq[0], m.uniform(3, 2, lo=-3, hi=3)), desc="1-D sequence"),
        S((seq, m.uniform(2, 4, lo=-3, hi=3)), {"right": True}, desc="rows, right"),
        S((seq[0], 0.5), {"out_int32": True}, desc="number, int32"),
        S(
            (seq[0].flip(0), m.uniform(3, lo=-3, hi=3)),
            {"side": "left", "sorter": m.index([4, 3, 2, 1, 0])},
            desc="sorter",
        ),
    ]


@_samples("bucketize")
def _bucketize(m: _Maker) -> list[Sample]:
    edges = m.distinct(5).sort().values
    return [
        S((m.uniform(2, 3, lo=-3, hi=3), edges)),
        S((m.uniform(4, lo=-3, hi=3), edges), {"right": True, "out_int32": True}, desc="right"),
    ]


@_samples("cummax", "cummin")
def _cummax(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 4), 1), desc="dim 1"),
        S((m.distinct(4, 3, t=True), 0), desc="dim 0 of transposed"),
    ]


@_samples("logcumsumexp")
def _logcumsumexp(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 4), 1), desc="dim 1"),
        S((m.uniform(4, 3, t=True), -2), desc="dim 0 of transposed"),
    ]


@_samples("meshgrid")
def _meshgrid(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3), m.uniform(2)), {"indexing": "ij"}),
        S((m.uniform(3), m.uniform(2), m.uniform()), {"indexing": "xy"}, desc="xy, 0-d"),
    ]


@_samples("broadcast_tensors")
def _broadcast_tensors(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 1), m.uniform(2)), desc="(3, 1) and (2,)")]


@_samples("moveaxis")
def _moveaxis(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3, 4), 0, -1)), S((m.uniform(2, 3, 4), (0, 1), (2, 0)), desc="lists")]


@_samples("atleast_1d", "atleast_2d", "atleast_3d")
def _atleast(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(),), desc="0-d"),
        S((m.uniform(3), m.uniform(2, 3, t=True)), desc="1-d and transposed 2-d"),
    ]


@_samples("hstack", "vstack", "row_stack")
def _hstack(m: _Maker) -> list[Sample]:
    return [
        S(([m.uniform(3), m.uniform(3)],), desc="1-D"),
        S(([m.uniform(3, 2), m.uniform(3, 2, t=True)],), desc="2-D, transposed"),
    ]


@_samples("dstack")
def _dstack(m: _Maker) -> list[Sample]:
    return [
        S(([m.uniform(3), m.uniform(3)],), desc="1-D"),
        S(([m.uniform(2, 3), m.uniform(2, 3)],)),
    ]


@_samples("column_stack")
def _column_stack(m: _Maker) -> list[Sample]:
    return [S(([m.uniform(3), m.uniform(3, 2), m.uniform(3, 1, t=True)],))]


@_samples("tensor_split")
def _tensor_split(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(7, 2), 3), desc="sections"),
        S((m.uniform(2, 6), [1, -2, 9], 1), desc="indices"),
        S((m.uniform(5), m.index(2)), desc="sections as a tensor"),
    ]


@_samples("hsplit")
def _hsplit(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 4), 2)), S((m.uniform(6), [1, 4]), desc="1-D, indices")]


@_samples("vsplit")
def _vsplit(m: _Maker) -> list[Sample]:
    return [S((m.uniform(4, 2), 2)), S((m.uniform(3, 2, t=True), [1]), desc="indices")]


@_samples("dsplit")
def _dsplit(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 1, 4), 2)), S((m.uniform(1, 2, 3), [2]), desc="indices")]


@_samples("flipud", "fliplr")
def _flipud(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 2),)), S((m.uniform(2, 3, t=True),), desc="transposed")]


@_samples("rot90")
def _rot90(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3),)),
        S((m.uniform(2, 3, 2), -1, [2, 0]), desc="k=-1, dims (2, 0)"),
        S((m.uniform(3, 2, t=True), 2), desc="k=2, transposed"),
    ]


@_samples("take_along_dim")
def _take_along_dim(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4), m.index([[0], [3], [1]]), 1), desc="dim 1, broadcast"),
        S((m.uniform(2, 3, t=True), m.index([[1, 0, 1]]), 0), desc="transposed"),
        S((m.uniform(2, 3), m.index([5, 0])), desc="flattened"),
    ]


@_samples("diff")
def _diff(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 5),)),
        S((m.uniform(4, 3, t=True), 2, 0), desc="n=2 along dim 0 of transposed"),
        S(
            (m.uniform(2, 3),),
            {"dim": 1, "prepend": m.uniform(2, 1), "append": m.uniform(2, 2)},
            desc="prepend and append",
        ),
    ]


@_samples("trapezoid", "trapz", "cumulative_trapezoid")
def _trapezoid(m: _Maker) -> list[Sample]:
    # (x in the samples' dtype where it is floating: the spacing must not widen the result)
    xs = m.uniform(5).cumsum(0) if m.floating else m.ints(5).cumsum(0)
    return [
        S((m.uniform(2, 5),), desc="unit spacing"),
        S((m.uniform(4, 3, t=True),), {"dx": 0.5, "dim": 0}, desc="dx along dim 0 of transposed"),
        S((m.uniform(3, 5), xs), desc="1-D x"),
        S((m.uniform(2, 4), m.uniform(2, 4)), {"dim": 1}, desc="x of y's shape"),
    ]


@_samples("gradient")
def _gradient(m: _Maker) -> list[Sample]:
    out = [
        S((m.uniform(3, 4),), desc="every dim"),
        S((m.uniform(4, 3, t=True),), {"spacing": 2.0, "dim": 1, "edge_order": 2}, desc="dim 1"),
        S((m.uniform(3, 4),), {"spacing": (0.5, 2.0), "dim": (1, 0)}, desc="a number per dim"),
    ]
    if m.floating:  # (coordinates in the samples' dtype: the spacing must not widen the result)
        xs = [m.away(3).cumsum(0), m.away(4).cumsum(0)]
        out.append(S((m.uniform(3, 4),), {"spacing": xs, "edge_order": 2}, desc="coordinates"))
    return out


@_samples("renorm")
def _renorm(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4), 2, 0, 0.5), desc="rows"),
        S((m.uniform(4, 3, t=True), 1, 1, 0.8), desc="columns of transposed, p=1"),
        S((m.uniform(2, 3, 2), 3.0, -1, 100.0), desc="nothing to scale"),
    ]


@_samples("put")
def _put(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.index([4, -1, 0]), m.uniform(3)), desc="negative index"),
        S(
            (m.uniform(3, 2, t=True), m.index([[1, 1], [5, 0]]), m.uniform(2, 2)),
            {"accumulate": True},
            desc="accumulate repeated",
        ),
    ]


@_samples("take")
def _take(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.index([[4, -1], [0, 4]])), desc="negative and repeated"),
        S((m.uniform(3, 2, t=True), m.index([5, 0, 1])), desc="transposed self"),
    ]


@_samples("chain_matmul")
def _chain_matmul(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.uniform(3, 4), m.uniform(4, 2))), S((m.uniform(3, 3),))]


@_samples("repeat_interleave")
def _repeat_interleave(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), 2), desc="flattened"),
        S((m.uniform(3, 2, t=True), m.index([1, 0, 2]), 0), desc="counts along dim 0"),
        S((m.uniform(2, 3), m.index([2, 1, 1]), 1), {"output_size": 4}, desc="output_size"),
        S((m.index([2, 0, 1]),), desc="indices"),
    ]


@_samples("block_diag")
def _block_diag(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.uniform(), m.uniform(2), m.uniform(3, 2, t=True)))]


@_samples("cartesian_prod")
def _cartesian_prod(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3), m.uniform(2))), S((m.uniform(2), m.uniform(2), m.uniform(1)))]


@_samples("combinations")
def _combinations(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4),)),
        S((m.uniform(3), 3), {"with_replacement": True}, desc="with replacement"),
    ]


@_samples("tril_indices", "triu_indices")
def _tril_indices(m: _Maker) -> list[Sample]:
    kw = {"dtype": m.int_dtype(), "device": m.device}
    # (the third leaves the dtype at its default; every sample names the device under test)
    return [
        S((3, 4), kw),
        S((4, 3, -1), kw, desc="offset -1"),
        S((3, 3, 1), {"device": m.device}, desc="default dtype"),
    ]


@_samples("logspace")
def _logspace(m: _Maker) -> list[Sample]:
    return [S((0.0, 2.0, 5), _fk(m)), S((1, -1, 3, 2.0), _fk(m), desc="base 2")]


@_samples("hann_window", "blackman_window", "bartlett_window")
def _window(m: _Maker) -> list[Sample]:
    return [S((8,), _fk(m)), S((5, False), _fk(m), desc="symmetric"), S((1,), _fk(m), desc="1")]


@_samples("hamming_window")
def _hamming_window(m: _Maker) -> list[Sample]:
    return [S((8,), _fk(m)), S((5, False, 0.5, 0.4), _fk(m), desc="symmetric, alpha, beta")]


@_samples("kaiser_window")
def _kaiser_window(m: _Maker) -> list[Sample]:
    return [S((8,), _fk(m)), S((5, False, 5.0), _fk(m), desc="symmetric, beta 5")]


@_samples("stft")
def _stft(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(20), 8), {"window": m.positive(8), "return_complex": True}),
        S((m.uniform(2, 16), 8), {"hop_length": 3, "win_length": 6, "window": m.positive(6),
          "normalized": True, "return_complex": True}, desc="batched, short window"),
        S((m.uniform(2, 12, t=True), 4), {"window": m.positive(4), "center": False,
          "onesided": False, "return_complex": True}, desc="not centred, two-sided"),
        S((m.uniform(10), 4), {"window": m.positive(4), "pad_mode": "constant",
          "return_complex": True}, desc="zero padding"),
        S((m.uniform(2, 14), 8), {"hop_length": 3, "win_length": 5, "window": m.positive(5),
          "center": False, "align_to_window": True, "return_complex": True},
          desc="windows aligned to the hops"),
    ]  # fmt: skip


@_samples("istft")
def _istft(m: _Maker) -> list[Sample]:
    window = tc.linspace(0.5, 1.5, 8, dtype=tc.float64, device=m.device)
    return [
        S((_spectrum(m, 5, 6), 8), {"window": window}),
        S((_spectrum(m, 2, 5, 6), 8), {"window": window, "hop_length": 3, "normalized": True,
          "length": 17}, desc="batched, length"),
        S((_spectrum(m, 8, 4), 8), {"window": window, "center": False, "onesided": False,
          "return_complex": True}, desc="two-sided, complex"),
    ]  # fmt: skip


@_samples("count_nonzero")
def _count_nonzero(m: _Maker) -> list[Sample]:
    x = m.ints(3, 4, hi=3).to(m.dtype)
    return [S((x,)), S((x, 1), desc="dim 1"), S((x.t(), (0, 1)), desc="dims, transposed")]


@_samples("isin")
def _isin(m: _Maker) -> list[Sample]:
    x = m.ints(3, 4, hi=6).to(m.dtype)
    return [
        S((x, m.ints(3, hi=6).to(m.dtype))),
        S((x.t(), m.ints(2, 2, hi=6).to(m.dtype)), {"invert": True}, desc="invert"),
        S((x, 3), desc="a number"),
    ]


@_samples("unique", "unique_consecutive")
def _unique(m: _Maker) -> list[Sample]:
    x = m.ints(3, 4, hi=3).to(m.dtype)
    return [
        S((x,)),
        S((x.t(),), {"return_inverse": True, "return_counts": True}, desc="inverse, counts"),
        S((x,), {"dim": 1, "return_inverse": True, "return_counts": True}, desc="dim 1"),
    ]


@_samples("histc")
def _histc(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4),), desc="default range"),
        S((m.uniform(3, 4, t=True), 4, -0.5, 0.5), desc="4 bins of [-0.5, 0.5]"),
    ]


@_samples("histogram")
def _histogram(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4),), desc="default bins and range"),
        S((m.uniform(3, 4, t=True), 4), {"range": (-0.5, 0.5), "density": True}, desc="range"),
    ]


@_samples("kthvalue")
def _kthvalue(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 4), 2), desc="k=2"),
        S((m.distinct(4, 3, t=True), 3, 0, True), desc="dim 0 of transposed, keepdim"),
    ]


@_samples("mode")
def _mode(m: _Maker) -> list[Sample]:
    # Distinct values (a tie would move under gradcheck's perturbations): the smallest wins.
    return [
        S((m.distinct(2, 4),)),
        S((m.distinct(4, 3, t=True), 0, True), desc="dim 0 of transposed, keepdim"),
    ]


@_samples("median", "nanmedian")
def _median(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 5),), desc="all"),
        S((m.distinct(4, 3, t=True), 0, True), desc="dim 0 of transposed, keepdim"),
        S((m.distinct(3, 4), -1), desc="dim -1"),
    ]


@_samples("median_dim", "nanmedian_dim", "mode_dim")
def _order_statistic_dim(m: _Maker) -> list[Sample]:
    # (the kernels behind the composites ``median``, ``nanmedian``, ``mode`` along a dim)
    return [
        S((m.distinct(2, 5), 1), desc="dim 1"),
        S((m.distinct(4, 3, t=True), 0, True), desc="dim 0 of transposed, keepdim"),
    ]


@_samples("kthvalue_dim")
def _kthvalue_dim(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 4), 2, 1), desc="k=2"),
        S((m.distinct(4, 3, t=True), 3, 0, True), desc="dim 0 of transposed, keepdim"),
    ]


@_samples("quantile", "nanquantile")
def _quantile(m: _Maker) -> list[Sample]:
    x = m.distinct(3, 4)
    q = tc.tensor([0.25, 0.5, 0.9], dtype=m.dtype, device=m.device)
    return [
        S((x, 0.3), desc="all"),
        S((x, q, 1, True), desc="q tensor, dim 1, keepdim"),
        S((m.distinct(4, 3, t=True), 0.6, 0), {"interpolation": "midpoint"}, desc="midpoint"),
        S((x, q, -1), {"interpolation": "lower"}, desc="lower"),
    ]


@_samples("nanmean", "nansum")
def _nanmean(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3),), desc="all"),
        S((m.uniform(4, 3, t=True), 1, True), desc="dim 1 of transposed, keepdim"),
    ]


@_samples("var_mean", "std_mean")
def _var_mean(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3),), desc="all"),
        S((m.uniform(4, 3, t=True), 1), {"correction": 0, "keepdim": True}, desc="dim 1"),
    ]


@_samples("aminmax")
def _aminmax(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 3),), desc="all"),
        S((m.distinct(4, 3, t=True),), {"dim": 0, "keepdim": True}, desc="dim 0, keepdim"),
    ]
