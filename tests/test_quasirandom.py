"""``tc.quasirandom.SobolEngine``: the unscrambled points are SciPy's Sobol' points (the same
Joe-Kuo direction numbers, 30 bits); scrambled ones keep the sequence's balance, are
reproducible from a seed, and the engine's state (draw, fast_forward, reset, draw_base2)
behaves as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.quasirandom import SobolEngine

qmc = pytest.importorskip("scipy.stats.qmc")


@pytest.mark.parametrize("dimension", [1, 3, 60])
def test_unscrambled_points_are_scipys(dimension: int) -> None:
    want = qmc.Sobol(dimension, scramble=False, bits=30).random(1024)
    engine = SobolEngine(dimension)
    got = tc.cat([engine.draw(1), engine.draw(511), engine.draw(512)], dim=0)
    assert got.dtype is tc.float32
    np.testing.assert_allclose(got.numpy(), want.astype(np.float32), rtol=0, atol=0)
    assert engine.num_generated == 1024


def test_high_dimensions_direction_numbers() -> None:
    # dimensions whose polynomials have high degrees: every direction number matters
    # for the 2**11 points
    want = qmc.Sobol(700, scramble=False, bits=30).random(2048)[:, -40:]
    got = SobolEngine(700).draw(2048, dtype=tc.float64)[:, -40:]
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("seed", [0, 7])
def test_scrambled_points_are_balanced_and_reproducible(seed: int) -> None:
    a = SobolEngine(5, scramble=True, seed=seed).draw(64, dtype=tc.float64)
    b = SobolEngine(5, scramble=True, seed=seed).draw(64, dtype=tc.float64)
    assert tc.equal(a, b)
    pts = a.numpy()
    assert ((pts >= 0) & (pts < 1)).all()
    # every 2**m first points put one point in each of the 2**m intervals of each axis
    for m in (1, 3, 6):
        cells = np.floor(pts[: 2**m] * 2**m).astype(int)
        for j in range(5):
            assert sorted(cells[:, j]) == list(range(2**m))
    # two dimensions together: one point in each of the 4 x 16 elementary boxes
    boxes = {(int(x * 4), int(y * 16)) for x, y in pts[:, :2]}
    assert len(boxes) == 64
    c = SobolEngine(5, scramble=True, seed=seed + 1).draw(64, dtype=tc.float64)
    assert not tc.equal(a, c)


def test_scrambling_without_seed_uses_the_default_generator() -> None:
    tc.manual_seed(3)
    a = SobolEngine(2, scramble=True).draw(4)
    tc.manual_seed(3)
    b = SobolEngine(2, scramble=True).draw(4)
    assert tc.equal(a, b)


def test_state_fast_forward_reset_and_base2() -> None:
    full = SobolEngine(4, scramble=True, seed=1).draw(40, dtype=tc.float64)
    e = SobolEngine(4, scramble=True, seed=1)
    e.fast_forward(7)
    assert tc.equal(e.draw(3, dtype=tc.float64), full[7:10])
    e.draw(5)
    e.fast_forward(11)
    assert e.num_generated == 26
    assert tc.equal(e.draw(2, dtype=tc.float64), full[26:28])
    assert tc.equal(e.quasi, (full[27] * 2**30).to(tc.int64))
    e.reset()
    assert e.num_generated == 0
    assert tc.equal(e.draw(2, dtype=tc.float64), full[:2])
    out = tc.empty(0, dtype=tc.float64)
    assert e.draw_base2(1, out=out, dtype=tc.float64) is out
    assert tc.equal(out, full[2:4])
    with pytest.raises(ValueError, match=r"n=4\+2\*\*1=6\. If you still want"):
        e.draw_base2(1)
    assert repr(e) == "SobolEngine(dimension=4, scramble=True, seed=1)"
    assert repr(SobolEngine(2)) == "SobolEngine(dimension=2)"


@pytest.mark.parametrize("dimension", [0, 21202])
def test_dimension_out_of_range(dimension: int) -> None:
    with pytest.raises(
        ValueError, match=r"^Supported range of dimensionality for SobolEngine is \[1, 21201\]$"
    ):
        SobolEngine(dimension)


def test_default_dtype() -> None:
    prev = tc.get_default_dtype()
    tc.set_default_dtype(tc.float64)
    try:
        assert SobolEngine(2).draw(3).dtype is tc.float64
    finally:
        tc.set_default_dtype(prev)
