"""Quasi-random sequences: ``SobolEngine``, PyTorch's ``torch.quasirandom``.

The Sobol' sequence is built from Joe and Kuo's direction numbers (the ``new-joe-kuo-6.21201``
table), which this module reads from the copy SciPy ships (``scipy.stats``); a point is the
XOR of the direction numbers that the Gray code of its index selects, 30 bits each, as in
PyTorch. Scrambling (a random linear matrix scramble of each dimension's direction numbers and
a random digital shift) draws its bits from ``tensorcore.randint`` in the same order as
PyTorch, so that a seeded engine gives PyTorch's points.
"""

from __future__ import annotations

import functools
import os
from typing import Any

from . import dtypes as _dt
from ._tensor import Tensor
from .ops import factories as _f
from .ops import functions as _ops

__all__ = ["SobolEngine"]


@functools.cache
def _direction_table() -> tuple[Any, Any]:
    """Joe and Kuo's primitive polynomials and initial direction numbers, per dimension."""
    try:
        import numpy as np
        import scipy.stats
    except ImportError:  # pragma: no cover - SciPy is installed with the test extras
        raise ImportError(
            "SobolEngine reads Joe and Kuo's direction numbers from SciPy: pip install scipy"
        ) from None
    path = os.path.join(os.path.dirname(scipy.stats.__file__), "_sobol_direction_numbers.npz")
    with np.load(path) as table:
        return table["poly"].tolist(), table["vinit"].tolist()


def _direction_numbers(dimension: int, bits: int) -> list[list[int]]:
    """The ``bits`` direction numbers of each of the first ``dimension`` dimensions, as
    integers whose bit ``bits - 1`` is the first binary digit of the point."""
    polys, vinit = _direction_table()
    rows = [[1 << (bits - 1 - k) for k in range(bits)]]  # the first: van der Corput
    for d in range(1, dimension):
        poly = polys[d]
        s = poly.bit_length() - 1
        m = list(vinit[d][:s])
        for k in range(s, bits):
            new = m[k - s] ^ (m[k - s] << s)
            for i in range(1, s):
                if (poly >> (s - i)) & 1:
                    new ^= m[k - i] << i
            m.append(new)
        rows.append([m[k] << (bits - 1 - k) for k in range(bits)])
    return rows


def _parity(x: Tensor) -> Tensor:
    """The parity (0 or 1) of the set bits of each non-negative int64 below ``2**32``."""
    for shift in (16, 8, 4, 2, 1):
        x = _ops.bitwise_xor(x, _ops.bitwise_right_shift(x, shift))
    return _ops.bitwise_and(x, 1)


class SobolEngine:
    """A generator of (optionally scrambled) Sobol' low-discrepancy points in the unit cube
    ``[0, 1)^dimension``, as PyTorch's ``torch.quasirandom.SobolEngine``.

    Parameters
    ----------
    dimension : int
        The dimension of the points, 1 to 21201.
    scramble : bool
        Scramble the sequence (Owen's linear matrix scramble and a digital shift).
    seed : int, optional
        The seed of the scrambling's random bits; None draws them from the default
        generator.

    Examples
    --------
    >>> import tensorcore as tc
    >>> engine = tc.quasirandom.SobolEngine(dimension=2)
    >>> engine.draw(4)
    tensor([[0.0000, 0.0000],
            [0.5000, 0.5000],
            [0.7500, 0.2500],
            [0.2500, 0.7500]])
    >>> engine.num_generated
    4
    >>> tc.quasirandom.SobolEngine(2, scramble=True, seed=0).draw(1).shape
    tensorcore.Size([1, 2])
    """

    MAXBIT = 30
    MAXDIM = 21201

    def __init__(self, dimension: int, scramble: bool = False, seed: int | None = None) -> None:
        if dimension > self.MAXDIM or dimension < 1:
            raise ValueError(
                f"Supported range of dimensionality for SobolEngine is [1, {self.MAXDIM}]"
            )
        self.seed = seed
        self.scramble = scramble
        self.dimension = dimension
        self.sobolstate = _f.tensor(
            _direction_numbers(dimension, self.MAXBIT), dtype=_dt.int64, device="cpu"
        )
        if scramble:
            self._scramble()
        else:
            self.shift = _ops.zeros(dimension, dtype=_dt.int64, device="cpu")
        self.quasi = self.shift.clone()
        self._first_point = (self.quasi / 2**self.MAXBIT).reshape(1, -1)
        self.num_generated = 0

    def _scramble(self) -> None:
        """Draw the digital shift and the lower triangular scrambling matrices (a unit
        diagonal) and apply the matrices to the direction numbers."""
        from .random import Generator

        g = None
        if self.seed is not None:
            g = Generator()
            g.manual_seed(self.seed)
        d, b = self.dimension, self.MAXBIT
        shift_bits = _ops.randint(2, (d, b), generator=g, device="cpu")
        self.shift = _ops.mv(shift_bits, _ops.pow(2, _ops.arange(b, device="cpu")))
        ltm = _ops.tril(_ops.randint(2, (d, b, b), generator=g, device="cpu"))
        ltm = _ops.maximum(ltm, _ops.eye(b, dtype=_dt.int64, device="cpu"))
        # Row i of each matrix as a mask of the direction numbers' bits (column k is the
        # (k+1)-th binary digit, bit ``b - 1 - k``); the new bit ``b - 1 - i`` of a direction
        # number is the parity of the bits the mask keeps.
        weights = _ops.pow(2, _ops.arange(b - 1, -1, -1, device="cpu"))
        masks = _ops.matmul(ltm, weights)  # (d, b): row i's mask
        kept = _ops.bitwise_and(self.sobolstate.unsqueeze(-1), masks.unsqueeze(1))
        bits = _parity(kept)  # (d, direction j, row i)
        self.sobolstate = _ops.matmul(bits, weights)

    def _points(self, start: int, n: int) -> Tensor:
        """The integer points of indices ``start`` to ``start + n - 1`` (the XOR of the
        shift and the direction numbers that the Gray code of the index selects)."""
        index = _ops.arange(start, start + n, dtype=_dt.int64, device="cpu")
        gray = _ops.bitwise_xor(index, _ops.bitwise_right_shift(index, 1))
        points = self.shift.unsqueeze(0).expand(n, self.dimension)
        for bit in range(max(start + n - 1, 0).bit_length()):
            take = _ops.bitwise_and(_ops.bitwise_right_shift(gray, bit), 1).unsqueeze(-1)
            points = _ops.bitwise_xor(points, take * self.sobolstate[:, bit])
        return points

    def draw(self, n: int = 1, out: Tensor | None = None, dtype: Any = None) -> Tensor:
        """The next ``n`` points, ``(n, dimension)`` in ``dtype`` (the default dtype when
        None); ``out`` is resized to them and filled."""
        if dtype is None:
            dtype = _dt.get_default_dtype()
        if self.num_generated == 0 and n == 1:
            result = self._first_point.to(dtype)
        else:
            points = self._points(self.num_generated, n)
            self.quasi = points[-1].clone()
            result = points.to(dtype) * (1.0 / 2**self.MAXBIT)
            if self.num_generated == 0:
                result = _ops.cat([self._first_point.to(dtype), result[1:]], dim=-2)
        self.num_generated += n
        if out is not None:
            out.resize_as_(result).copy_(result)
            return out
        return result

    def draw_base2(self, m: int, out: Tensor | None = None, dtype: Any = None) -> Tensor:
        """The next ``2**m`` points; the points drawn so far and these must number a power
        of 2 (the balance of Sobol' points), else ValueError."""
        n = 2**m
        total_n = self.num_generated + n
        if total_n & (total_n - 1) != 0:
            raise ValueError(
                "The balance properties of Sobol' points require n to be a power of 2. "
                f"{self.num_generated} points have been previously generated, then: "
                f"n={self.num_generated}+2**{m}={total_n}. If you still want to do this, "
                "please use 'SobolEngine.draw()' instead."
            )
        return self.draw(n=n, out=out, dtype=dtype)

    def reset(self) -> SobolEngine:
        """Back to the first point."""
        self.quasi.copy_(self.shift)
        self.num_generated = 0
        return self

    def fast_forward(self, n: int) -> SobolEngine:
        """Skip ``n`` points, as drawing them would."""
        if n > 0:
            self.quasi = self._points(self.num_generated + n - 1, 1)[0].clone()
        self.num_generated += n
        return self

    def __repr__(self) -> str:
        parts = [f"dimension={self.dimension}"]
        if self.scramble:
            parts.append("scramble=True")
        if self.seed is not None:
            parts.append(f"seed={self.seed}")
        return f"{type(self).__name__}({', '.join(parts)})"
