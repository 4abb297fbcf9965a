"""Samples of the operators of ``tensorcore/ops/schema/composite_more.py`` (joined to
:data:`tensorcore.testing.samples.SAMPLES`)."""

from __future__ import annotations

import math
from collections.abc import Callable

import tensorcore as tc
from tensorcore.testing._sample_base import Sample, _Maker

__all__ = ["more_samples"]


def more_samples(S: Callable[..., Sample]) -> dict[str, Callable[[_Maker], list[Sample]]]:
    """The sample generators, by operator name (``S`` is the ``Sample`` class)."""

    def sgn(m: _Maker) -> list[Sample]:
        out = [S((m.away(2, 3),)), S((m.away(3, 2, t=True),), desc="transposed")]
        if m.floating:
            out.append(S((m.away(3).to(m.dtype.to_complex()) * (1 + 0.5j),), desc="complex"))
        return out

    def frac(m: _Maker) -> list[Sample]:
        return [S((m.off_integer(2, 3),)), S((-m.off_integer(3, 2).t(),), desc="negative")]

    def gcd(m: _Maker) -> list[Sample]:
        d = m.int_dtype()
        out = [
            S((m.ints(2, 3, lo=-12, hi=12, dtype=d), m.ints(2, 3, hi=12, dtype=d))),
            S((m.ints(4, hi=30, dtype=d), m.ints(1, hi=9, dtype=d)), desc="broadcast"),
            S((m.ints(3, 2, hi=30, dtype=d).t(), m.ints(3, hi=9, dtype=d)), desc="transposed"),
        ]
        if m.dtype is tc.bool:  # (refused: PyTorch's gcd takes integers only)
            out.append(S((m.mask(2, 3), m.mask(2, 3)), desc="bool"))
        return out

    def infs(m: _Maker) -> list[Sample]:
        x = m.uniform(2, 3)
        if m.dtype.is_floating_point:
            x = x.clone()
            x[0, 0], x[1, 1] = math.inf, -math.inf
        return [S((x,)), S((m.uniform(3, 2, t=True),), desc="transposed")]

    def isreal(m: _Maker) -> list[Sample]:
        out = [S((m.uniform(2, 3),))]
        if m.floating:
            z = m.uniform(4).to(m.dtype.to_complex())
            out.append(S((z + tc.tensor([0, 1j, 0, 2j], device=m.device),), desc="complex"))
        return out

    def mvlgamma(m: _Maker) -> list[Sample]:
        return [
            S((m.positive(2, 3, lo=1.5, hi=4.0), 2)),
            S((m.positive(3, lo=2.0, hi=4.0), 3), desc="p=3"),
            S((m.positive(3, lo=1.0, hi=3.0), 1), desc="p=1: lgamma"),
        ]

    def msort(m: _Maker) -> list[Sample]:
        return [S((m.distinct(4, 3),)), S((m.distinct(3, 4, t=True),), desc="transposed")]

    def vdot(m: _Maker) -> list[Sample]:
        out = [S((m.uniform(4), m.uniform(4)))]
        if m.floating:
            c = m.dtype.to_complex()
            z = (m.uniform(3).to(c) * (1 + 2j), m.uniform(3).to(c) * (2 - 1j))
            out.append(S(z, desc="complex"))
        return out

    def inner(m: _Maker) -> list[Sample]:
        return [
            S((m.uniform(2, 3), m.uniform(4, 3))),
            S((m.uniform(3), m.uniform(2, 3)), desc="1-D, 2-D"),
            S((m.uniform(), m.uniform(2, 3)), desc="0-d"),
        ]

    def diagflat(m: _Maker) -> list[Sample]:
        return [
            S((m.uniform(3),)),
            S((m.uniform(2, 2), 1), desc="2-D, above"),
            S(
                (m.uniform(2), -2),
            ),
        ]

    def narrow_copy(m: _Maker) -> list[Sample]:
        return [S((m.uniform(4, 3), 0, 1, 2)), S((m.uniform(3, 4, t=True), -1, 0, 3), desc="t")]

    def masked_scatter(m: _Maker) -> list[Sample]:
        return [
            S((m.uniform(2, 3), m.mask(2, 3), m.uniform(6))),
            S((m.uniform(2, 3), m.mask(3), m.uniform(2, 4)), desc="broadcast mask, more source"),
        ]

    def select_scatter(m: _Maker) -> list[Sample]:
        return [S((m.uniform(3, 4), m.uniform(4), 0, 1)), S((m.uniform(3, 4), m.uniform(3), 1, -1))]

    def slice_scatter(m: _Maker) -> list[Sample]:
        return [
            S((m.uniform(4, 3), m.uniform(2, 3), 0, 1, 3)),
            S((m.uniform(3, 6), m.uniform(3, 3), 1, None, None, 2), desc="step"),
        ]

    def diagonal_scatter(m: _Maker) -> list[Sample]:
        return [
            S((m.uniform(3, 3), m.uniform(3))),
            S((m.uniform(3, 4), m.uniform(3), 1), desc="above"),
        ]

    def as_strided_scatter(m: _Maker) -> list[Sample]:
        return [S((m.uniform(3, 3), m.uniform(2, 2), (2, 2), (3, 1), 1))]

    return {
        "sgn": sgn,
        "frac": frac,
        "gcd": gcd,
        "lcm": gcd,
        "isneginf": infs,
        "isposinf": infs,
        "isreal": isreal,
        "mvlgamma": mvlgamma,
        "msort": msort,
        "vdot": vdot,
        "inner": inner,
        "diagflat": diagflat,
        "narrow_copy": narrow_copy,
        "masked_scatter": masked_scatter,
        "select_scatter": select_scatter,
        "slice_scatter": slice_scatter,
        "diagonal_scatter": diagonal_scatter,
        "as_strided_scatter": as_strided_scatter,
    }
