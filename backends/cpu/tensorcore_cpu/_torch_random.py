"""PyTorch's CPU random streams, reproduced with NumPy: the same seed gives the same numbers.

PyTorch's CPU generator is a 32-bit Mersenne Twister seeded with the classic
``init_genrand`` (NumPy's ``MT19937`` with legacy seeding). On top of it, as PyTorch 2.x's
CPU kernels do:

- ``random64`` joins two draws, the first as the high half;
- a uniform float keeps the low 24 bits of one draw (float32; float16 and bfloat16 take the
  float32 value, rounded) and a double the low 53 bits of a ``random64``, scaled by
  ``2**-digits``, then ``x * (to - from) + from`` (rounded once, as the fused multiply-add
  does);
- ``normal_`` on a contiguous tensor of at least 16 elements draws all uniforms first, then
  applies Box-Muller to blocks of 16 (the first 8 against the last 8), redrawing the last 16
  when the size is not a multiple of 16; float16 and bfloat16 fill block by block through a
  float32 buffer of 16, so they draw only the full blocks' uniforms before the last 16 (the
  same numbers, rounded, where the size is a multiple of 16); otherwise each element comes
  from a double Box-Muller pair whose second value is cached in the generator for the next
  element;
- ``random_(from, to)`` is a draw (``random64`` when the range needs more than 32 bits)
  modulo the range; ``randperm`` is a Fisher-Yates shuffle with ``random() % (n - i)``.

Float32 results can differ from PyTorch's in the last bit where PyTorch's vectorised
``log``/``cos`` round differently.
"""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np

__all__ = ["TorchCPUStream"]

# The 16-bit floats, whose blocked normals draw block by block (keyed by the dtype itself:
# NumPy's ``dtype.name`` costs microseconds).
_HALF_FLOATS = frozenset({np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)})

# The constants of the kernels below as 0-d arrays, made once: a ufunc takes a 0-d array
# operand in about half the time of a NumPy scalar made per call (small draws are a dozen
# ufunc calls, each mostly overhead). ``_UNIT``: the mask of a draw's low 24 bits and the
# float32 ``2**-24``.
_UNIT = (np.array((1 << 24) - 1, dtype=np.uint64), np.array(2.0**-24, dtype=np.float32))


class TorchCPUStream:
    """One generator's state: the Mersenne Twister and the cached normal sample."""

    def __init__(self, seed: int) -> None:
        self._mt = np.random.MT19937()
        self._mt._legacy_seeding(seed & 0xFFFFFFFF)
        self._next_normal: float | None = None

    def u32(self, n: int) -> Any:
        """``n`` raw 32-bit draws (as uint64, a new array the caller may write)."""
        return self._mt.random_raw(n)

    def u64(self, n: int) -> Any:
        """``n`` 64-bit values, each from two draws (the first as the high half)."""
        r = self.u32(2 * n)
        return (r[0::2] << np.uint64(32)) | r[1::2]

    def uniform(self, n: int, dtype: Any, lo: float = 0.0, hi: float = 1.0) -> Any:
        """``n`` uniform values in ``[lo, hi)`` of ``dtype`` (its compute dtype for 16-bit
        floats: float32)."""
        if dtype == np.float64:
            # The low 53 bits of ``random64``: the first draw's low 21 bits above the second
            # draw, joined in place in the draws' memory (no temporary of the 64-bit values).
            r = self.u32(2 * n)
            high = r[0::2]
            np.bitwise_and(high, np.uint64((1 << 21) - 1), out=high)
            np.left_shift(high, np.uint64(32), out=high)
            np.bitwise_or(high, r[1::2], out=high)
            v = high.astype(np.float64)
            v *= 2.0**-53
            if lo == 0.0 and hi == 1.0:  # (``v * 1 + 0`` is v)
                return v
            v *= hi - lo
            v += lo
            return v
        if lo == 0.0 and hi == 1.0:
            return self._unit_floats(n)[0]
        raw = self.u32(n)
        np.bitwise_and(raw, np.uint64((1 << 24) - 1), out=raw)
        x = raw.astype(np.float64)
        x *= 2.0**-24
        width = float(np.float32(np.float32(hi) - np.float32(lo)))
        # In float64 and rounded once to float32: the fused multiply-add's result.
        return (x * width + float(np.float32(lo))).astype(np.float32)

    def bernoulli(self, n: int, p: float) -> Any:
        """``n`` booleans, each True with probability ``p``: ``uniform(n, float64) < p``
        without the floats. A draw is ``k * 2**-53`` with ``k = h * 2**32 + l`` (``h`` the
        first draw's low 21 bits, ``l`` the second draw), and ``k * 2**-53 < p`` exactly where
        the integer ``k`` is below ``c = ceil(p * 2**53)`` (a product by a power of two is
        exact): where ``h`` is below ``c``'s high part, or equal to it (one draw in 2**21)
        and ``l`` below its low part."""
        c = math.ceil(p * 2.0**53)
        r = self.u32(2 * n)
        h = r[0::2].astype(np.uint32)
        np.bitwise_and(h, np.uint32((1 << 21) - 1), out=h)
        below = np.less(h, np.uint32(c >> 32))
        tie = np.flatnonzero(np.equal(h, np.uint32(c >> 32)))
        if tie.size:
            below[tie] = r[1::2][tie] < np.uint64(c & 0xFFFFFFFF)
        return below

    def _unit_floats(self, n: int) -> tuple[Any, Any]:
        """``n`` float32 uniforms in [0, 1) of 24 bits, and the draws' array (uint64, free
        once they are converted: scratch memory of ``8 * n`` bytes)."""
        raw = self.u32(n)
        mask, scale = _UNIT
        np.bitwise_and(raw, mask, out=raw)
        # ``x * 1 + 0`` is x, and a 24-bit integer times 2**-24 is exact in float32.
        x = raw.astype(np.float32)
        np.multiply(x, scale, out=x)
        return x, raw

    def normal(self, n: int, dtype: Any, mean: float, std: float, contiguous: bool) -> Any:
        """``n`` normal values in PyTorch's order (see the module docstring)."""
        if n >= 16 and contiguous:
            # In the dtype's precision (float32 for the 16-bit floats), as PyTorch computes.
            blocks = n // 16
            if dtype == np.float64:
                d, scratch = self.uniform(n, dtype), None
            else:
                drawn = blocks * 16 if np.dtype(dtype) in _HALF_FLOATS else n
                d, scratch = self._unit_floats(drawn)
            body = d[: blocks * 16].reshape(blocks, 16)
            _box_muller_16(body, mean, std, scratch)
            out = body.reshape(-1)
            if n % 16:
                tail = self.uniform(16, dtype).astype(d.dtype, copy=False).reshape(1, 16)
                _box_muller_16(tail, mean, std)
                out = np.concatenate([out[: n - 16], tail.reshape(-1)])
            return out
        return self._double_normals(n) * std + mean

    def _double_normals(self, n: int) -> Any:
        """Standard normals from double Box-Muller pairs, the cache first."""
        out = np.empty(n, dtype=np.float64)
        i = 0
        if n and self._next_normal is not None:
            out[0] = self._next_normal
            self._next_normal = None
            i = 1
        pairs = (n - i + 1) // 2
        if pairs:
            u = self.uniform(2 * pairs, np.float64)
            r = np.sqrt(-2.0 * np.log1p(-u[1::2]))
            theta = 2.0 * math.pi * u[0::2]
            vals = np.empty(2 * pairs)
            vals[0::2] = r * np.cos(theta)
            vals[1::2] = r * np.sin(theta)
            need = n - i
            out[i:] = vals[:need]
            if need % 2:
                self._next_normal = float(vals[-1])
        return out

    def integers(self, lo: int, hi: int, n: int) -> Any:
        """``n`` integers in ``[lo, hi)``."""
        span = hi - lo
        v = self.u64(n) if span >= 1 << 32 else self.u32(n)
        return (v % np.uint64(span)).astype(np.int64) + lo

    def permutation(self, n: int) -> Any:
        """A random permutation of ``0 .. n - 1`` (Fisher-Yates)."""
        r = list(range(n))
        if n > 1:
            steps = np.arange(n - 1, dtype=np.uint64)
            # The swap partners, all at once; the swaps themselves depend on each other.
            partners = (steps + self.u32(n - 1) % (np.uint64(n) - steps)).tolist()
            for i, j in enumerate(partners):
                r[i], r[j] = r[j], r[i]
        return np.array(r, dtype=np.int64)

    # -------------------------------------------------------------- one value at a time
    def _double(self) -> float:
        """One double uniform in [0, 1) (``at::uniform_real_distribution<double>``)."""
        hi, lo = self._mt.random_raw(2).tolist()
        return (((hi << 32) | lo) & _MASK53) * 2.0**-53

    def _double_normal(self) -> float:
        """One standard normal (``at::normal_distribution<double>``): the cached second value
        of the last Box-Muller pair, or a new pair whose second value is cached."""
        cached = self._next_normal
        if cached is not None:
            self._next_normal = None
            return cached
        u1, u2 = self._double(), self._double()
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self._next_normal = r * math.sin(theta)
        return r * math.cos(theta)

    def standard_gamma(self, alpha: Any, single: bool) -> Any:
        """Gamma(alpha, 1) draws for the float64 array ``alpha`` (in memory order), as
        PyTorch's CPU ``_standard_gamma`` makes them: one element after the other, each by
        Marsaglia and Tsang's rejection (boosted below 1) from double uniforms and normals.
        ``single``: a float32 result, whose kernel computes ``1 / alpha``, ``alpha + 1`` and
        ``alpha - 1/3`` in float32 and rounds the draw to float32; at least the dtype's
        smallest normal number, as PyTorch's kernel clamps (so 0, negative or NaN
        concentrations give it)."""
        f32 = _float32 if single else _same
        tiny = _TINY32 if single else _TINY64
        out = np.empty(alpha.size, dtype=np.float64)
        with np.errstate(all="ignore"):
            for i, a in enumerate(alpha.tolist()):
                g = f32(self._gamma(f32(a), f32))
                out[i] = g if g >= tiny else tiny  # (NaN -> tiny, as std::max(tiny, NaN))
        return out.astype(np.float32) if single else out

    def _gamma(self, alpha: float, f32: Any) -> float:
        # ATen's sample_gamma<scalar_t, double>, step by step: float constants (1.0f / 3.0f,
        # 0.0331f) and the float arithmetic of a float32 ``scalar_t`` through ``f32``.
        scale = 1.0
        if alpha < 1.0:
            if alpha == 0.0:
                return 0.0
            # (np.power: inf where C++'s pow overflows, where Python's raises)
            scale *= float(np.power(1.0 - self._double(), f32(1.0 / alpha)))
            alpha = f32(alpha + 1.0)
        d = f32(alpha - _THIRD_F)
        nine_d = 9.0 * d
        c = 1.0 / math.sqrt(nine_d) if nine_d > 0 else math.nan
        while True:
            x = self._double_normal()
            y = 1.0 + c * x
            while y <= 0:
                x = self._double_normal()
                y = 1.0 + c * x
            v = y * y * y
            u = 1.0 - self._double()
            xx = x * x
            if u < 1.0 - _C0331_F * xx * xx:
                return scale * d * v
            if v > 0 and math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
                return scale * d * v


_MASK53 = (1 << 53) - 1
_THIRD_F = float(np.float32(1.0) / np.float32(3.0))  # C++'s ``1.0f / 3.0f``
_C0331_F = float(np.float32(0.0331))
_TINY32 = float(np.finfo(np.float32).tiny)
_TINY64 = float(np.finfo(np.float64).tiny)


def _float32(x: float) -> float:
    """``x`` rounded to float32 (inf beyond its range), as a Python float."""
    return float(np.float32(x))


def _same(x: float) -> float:
    return x


def _box_constants(dtype: Any, mean: float, std: float) -> tuple[Any, ...]:
    """``normal_fill_16``'s constants as 0-d arrays of ``dtype`` (see ``_UNIT``): 1, -2,
    2 * pi, the mean and the standard deviation (None for 1: ``x * 1`` is x, bit for bit)."""
    one, minus_two, two_pi, zero = _BOX[dtype]
    m = zero if mean == 0.0 else np.array(mean, dtype=dtype)
    return one, minus_two, two_pi, m, None if std == 1 else np.array(std, dtype=dtype)


_BOX = {
    np.dtype(t): tuple(np.array(v, dtype=t) for v in (1.0, -2.0, 2.0 * math.pi, 0.0))
    for t in (np.float32, np.float64)
}


def _box_muller_16(blocks: Any, mean: float, std: float, scratch: Any = None) -> None:
    """PyTorch's ``normal_fill_16`` on each row of ``blocks`` (a C-contiguous array of rows
    of 16 uniforms); ``scratch``, where given, is a contiguous 1-d array of at least
    ``blocks.nbytes`` bytes that the function may overwrite."""
    one, minus_two, two_pi, m, sd = _box_constants(blocks.dtype, mean, std)
    if blocks.shape[0] <= _FEW_BLOCKS:
        _box_muller_16_few(blocks, one, minus_two, two_pi, m, sd)
        return
    k = blocks.shape[0] * 8
    scratch = np.empty(2 * k, dtype=blocks.dtype) if scratch is None else scratch.view(blocks.dtype)
    # Each row's halves (8 values) are taken out as single items of 8 values into two
    # contiguous buffers: the arithmetic then runs on NumPy's contiguous (SIMD) loops, the
    # same values element by element as on the strided halves, without their per-row cost.
    half = blocks.view(np.dtype((np.void, 8 * blocks.itemsize)))  # (rows, 2)
    radius, theta = scratch[:k], scratch[k : 2 * k]
    np.copyto(radius.view(half.dtype), half[:, 0])
    np.copyto(theta.view(half.dtype), half[:, 1])
    # radius * cos(theta) * std + mean and the same with sin, in PyTorch's order of
    # operations.
    np.subtract(one, radius, out=radius)
    np.log(radius, out=radius)
    np.multiply(radius, minus_two, out=radius)
    np.sqrt(radius, out=radius)
    np.multiply(theta, two_pi, out=theta)
    cos = np.cos(theta)
    np.sin(theta, out=theta)
    for vals, at in ((cos, 0), (theta, 1)):
        vals *= radius
        if sd is not None:
            np.multiply(vals, sd, out=vals)
        np.add(vals, m, out=vals)  # (always: -0.0 + 0.0 is +0.0, as in PyTorch)
        np.copyto(half[:, at], vals.view(half.dtype))


# Up to this many blocks the arithmetic runs on the strided halves directly: fewer NumPy
# calls (a tenth of a microsecond or more each), where the contiguous buffers of
# ``_box_muller_16`` pay off only for longer rows of work.
_FEW_BLOCKS = 64


def _box_muller_16_few(blocks: Any, one: Any, minus_two: Any, two_pi: Any, m: Any, sd: Any) -> None:
    """``_box_muller_16`` for a few blocks, with the same operations in the same order (the
    same values bit for bit: ``tests`` compare the two); the constants of
    ``_box_constants``."""
    u1, u2 = blocks[:, :8], blocks[:, 8:]
    radius = np.subtract(one, u1)
    np.log(radius, out=radius)
    np.multiply(radius, minus_two, out=radius)
    np.sqrt(radius, out=radius)
    theta = np.multiply(u2, two_pi)
    cos = np.cos(theta)
    np.sin(theta, out=theta)
    # The products straight into the halves, then the scale and shift on all of ``blocks``
    # at once (contiguous: one call each where the halves would take two strided ones).
    np.multiply(cos, radius, out=u1)
    np.multiply(theta, radius, out=u2)
    if sd is not None:
        np.multiply(blocks, sd, out=blocks)
    np.add(blocks, m, out=blocks)  # (always: -0.0 + 0.0 is +0.0, as in PyTorch)
