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
- ``random_(from, to)`` is a draw (``random64`` when the range is at least ``2**28``)
  modulo the range, ``random_()`` one (``random64`` for the 64-bit dtypes) modulo the
  dtype's range; ``randperm`` is a Fisher-Yates shuffle with ``random() % (n - i)``.

A normal's ``z * std + mean`` is one fused multiply-add in PyTorch's compiled kernels (for
double arithmetic: the double path, and float64's blocks), emulated here exactly. The double
path calls libm's ``log1p``, ``cos`` and ``sin`` (``math``'s, or NumPy's float64 ``cos`` and
``sin``, which give the same values): its values are PyTorch's bit for bit. Blocked float32
normals can differ from PyTorch's in the last bit (about one in seven), where its vectorised
``log``/``sincos`` (``avx_mathfun``) round otherwise than NumPy's float32 functions, and
blocked float64 ones (about one in a thousand) where NumPy's SIMD ``log`` does than libm's.
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
# ufunc calls, each mostly overhead). ``_MASK24``: the mask of a draw's low 24 bits for
# the draws' dtypes; ``_UNIT_SCALE``: the float32 ``2**-24``.
_MASK24 = {np.dtype(t): np.array((1 << 24) - 1, dtype=t) for t in (np.uint64, np.uint32)}
_UNIT_SCALE = np.array(2.0**-24, dtype=np.float32)


class TorchCPUStream:
    """One generator's state: the Mersenne Twister and the cached normal sample."""

    def __init__(self, seed: int) -> None:
        self._mt = np.random.MT19937()
        self._mt._legacy_seeding(seed & 0xFFFFFFFF)
        self._next_normal: float | None = None
        self._gen: Any = None  # a numpy Generator on ``_mt``, made on first need

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
            if n <= _FEW_UNIFORMS:
                # (Python's integers and floats: fewer calls than the arrays' five)
                r = self._mt.random_raw(2 * n).tolist()
                u = [
                    (((h & _HIGH21) << 32) | low) * 2.0**-53
                    for h, low in zip(r[0::2], r[1::2], strict=True)
                ]
                if lo != 0.0 or hi != 1.0:
                    u = [_fma(v, hi - lo, lo) for v in u]
                return np.array(u, dtype=np.float64)
            if n >= _BULK:
                # (32-bit draws: ``high * 2**32 + low`` in float64, exact below 2**53)
                r = self._u32_bulk(2 * n)
                v = np.bitwise_and(r[0::2], np.uint32((1 << 21) - 1)).astype(np.float64)
                v *= 2.0**32
                v += r[1::2]
                v *= 2.0**-53
                # (``x * (to - from) + from`` is one fused multiply-add in PyTorch's kernel)
                return v if lo == 0.0 and hi == 1.0 else _fma_arrays(v, hi - lo, lo)
            r = self.u32(2 * n)
            high = r[0::2]
            np.bitwise_and(high, np.uint64((1 << 21) - 1), out=high)
            np.left_shift(high, np.uint64(32), out=high)
            np.bitwise_or(high, r[1::2], out=high)
            v = high.astype(np.float64)
            v *= 2.0**-53
            if lo == 0.0 and hi == 1.0:  # (``v * 1 + 0`` is v)
                return v
            return _fma_arrays(v, hi - lo, lo)
        if lo == 0.0 and hi == 1.0:
            return self._unit_floats(n)[0]
        raw = self._draws(n)
        np.bitwise_and(raw, _MASK24[raw.dtype], out=raw)
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
        r = self._draws(2 * n)
        h = r[0::2].astype(np.uint32)
        np.bitwise_and(h, np.uint32((1 << 21) - 1), out=h)
        below = np.less(h, np.uint32(c >> 32))
        tie = np.flatnonzero(np.equal(h, np.uint32(c >> 32)))
        if tie.size:
            below[tie] = r[1::2][tie] < np.uint64(c & 0xFFFFFFFF)
        return below

    def _unit_floats(self, n: int) -> tuple[Any, Any]:
        """``n`` float32 uniforms in [0, 1) of 24 bits, and the draws' array (free once they
        are converted: scratch memory of at least ``4 * n`` bytes)."""
        raw = self._draws(n)
        np.bitwise_and(raw, _MASK24[raw.dtype], out=raw)
        # ``x * 1 + 0`` is x, and a 24-bit integer times 2**-24 is exact in float32.
        x = raw.astype(np.float32)
        np.multiply(x, _UNIT_SCALE, out=x)
        return x, raw

    def normal(self, n: int, dtype: Any, mean: float, std: float, contiguous: bool) -> Any:
        """``n`` normal values in PyTorch's order (see the module docstring)."""
        if n >= 16 and contiguous:
            # In the dtype's precision (float32 for the 16-bit floats), as PyTorch computes.
            blocks = n // 16
            # float64's ``x * std + mean`` is one fused multiply-add in PyTorch's kernel: a
            # product then a sum round twice where neither is trivial, so that case scales
            # after the standard normals are made.
            fused = dtype == np.float64 and mean != 0.0 and std != 1.0
            m, s = (0.0, 1.0) if fused else (mean, std)
            # The last 16 of a size not a multiple of 16 are drawn right after the others:
            # one draw of them all, and the tail's uniforms moved to follow the full blocks
            # (one Box-Muller call for all the blocks)
            rest = n % 16
            drawn = blocks * 16 if np.dtype(dtype) in _HALF_FLOATS else n
            drawn += 16 if rest else 0
            if dtype == np.float64:
                d, scratch = self.uniform(drawn, dtype), None
            else:
                d, scratch = self._unit_floats(drawn)
            full = blocks * 16
            if rest and drawn > full + 16:
                d[full : full + 16] = d[drawn - 16 :]  # (overlapping: NumPy buffers it)
            whole = full + 16 if rest else full
            _box_muller_16(d[:whole].reshape(-1, 16), m, s, scratch)
            out = d[:whole]
            if rest:
                out[n - 16 : n] = out[full:]  # (the tail replaces the last 16 values)
                out = out[:n]
            return _fma_arrays(out, std, mean) if fused else out
        if n <= _FEW_NORMALS:
            # (float32 rounded here, as ``astype`` rounds: the kernel then stores them as
            # they are, without a conversion's error state)
            return np.array(self._few_double_normals(n, mean, std), _FEW_OUT.get(dtype))
        return self._double_normals(n, mean, std)

    def _few_double_normals(self, n: int, mean: float, std: float) -> list[float]:
        """``_double_normals`` for a few values, with Python floats and the ``math`` module
        (C's libm, which PyTorch's scalar kernel calls): a dozen NumPy calls on arrays of a
        few elements cost several times more. The same values bit for bit (``tests``)."""
        out: list[float] = []
        cached = self._next_normal
        if n and cached is not None:
            out.append(cached)
            self._next_normal = None
        pairs = (n - len(out) + 1) // 2
        if pairs:
            raw = self._mt.random_raw(4 * pairs).tolist()
            for i in range(0, 4 * pairs, 4):
                # (two double uniforms: the low 53 bits of two joined draws, times 2**-53)
                u1 = (((raw[i] & _HIGH21) << 32) | raw[i + 1]) * 2.0**-53
                u2 = (((raw[i + 2] & _HIGH21) << 32) | raw[i + 3]) * 2.0**-53
                r = _sqrt(-2.0 * _log1p(-u2))
                theta = _TWO_PI * u1
                out.append(r * _cos(theta))
                out.append(r * _sin(theta))
            if len(out) > n:
                self._next_normal = out.pop()
        if std == 1.0:  # (``+ mean`` even for 0: -0.0 becomes +0.0, as the fused form gives)
            return [v + mean for v in out]
        if mean == 0.0:  # (``+ 0.0``: -0.0 becomes +0.0, as the fused form gives)
            return [v * std + 0.0 for v in out]
        return [_fma(v, std, mean) for v in out]

    def _double_normals(self, n: int, mean: float, std: float) -> Any:
        """``n`` normals ``z * std + mean`` (fused) from double Box-Muller pairs, the cached
        value first. ``log1p`` is libm's, through ``math`` (NumPy's differs from it in the
        last bit for about one value in twelve); NumPy's float64 ``sqrt`` (exact), ``cos``
        and ``sin`` give libm's values."""
        out = np.empty(n, dtype=np.float64)
        i = 0
        if n and self._next_normal is not None:
            out[0] = self._next_normal
            self._next_normal = None
            i = 1
        pairs = (n - i + 1) // 2
        if pairs:
            u = self.uniform(2 * pairs, np.float64)
            np.negative(u, out=u)
            logs = np.fromiter(map(_log1p, u[1::2].tolist()), np.float64, pairs)
            r = np.sqrt(-2.0 * logs)
            theta = _TWO_PI * -u[0::2]
            vals = np.empty(2 * pairs)
            vals[0::2] = r * np.cos(theta)
            vals[1::2] = r * np.sin(theta)
            need = n - i
            out[i:] = vals[:need]
            if need % 2:
                self._next_normal = float(vals[-1])
        return _fma_arrays(out, std, mean)

    def integers(self, lo: int, hi: int, n: int, wide: bool | None = None) -> Any:
        """``n`` integers in ``[lo, hi)``: a draw modulo the range, a ``random64`` where
        ``wide`` (by default where the range is at least ``2**28``, as PyTorch's
        ``random_(from, to)`` does; its ``random_()`` takes ``random64`` for 64-bit dtypes
        only, whatever the range)."""
        span = hi - lo
        if span >= 1 << 28 if wide is None else wide:
            return (self.u64(n) % np.uint64(span)).astype(np.int64) + lo
        if n < _BULK or span > 0xFFFFFFFF:  # (a uint32's random_(): 2**32)
            v = self.u32(n)
            np.remainder(v, np.uint64(span), out=v)
            v = v.view(np.int64)  # (below 2**32: the same bits as int64)
        else:
            # 32-bit draws and a 32-bit remainder: about half the time of 64-bit ones
            w = self._u32_bulk(n)
            np.remainder(w, np.uint32(span), out=w)
            v = w.astype(np.int64)
        if lo:
            v += lo
        return v

    def _draws(self, n: int) -> Any:
        """``n`` raw draws, a new array: uint64 (``u32``) for a few, uint32 for many."""
        return self._u32_bulk(n) if n >= _BULK else self._mt.random_raw(n)

    def _u32_bulk(self, n: int) -> Any:
        """``n`` raw draws as uint32: ``Generator.integers`` over the whole 32-bit range takes
        one draw per value, in order (``tests``), in a cheaper loop than ``random_raw``'s,
        into half the memory."""
        gen = self._gen
        if gen is None:
            gen = self._gen = np.random.Generator(self._mt)
        return gen.integers(0, 1 << 32, n, dtype=np.uint32)

    def __getstate__(self) -> dict[str, Any]:
        # (the Generator is a view of ``_mt``, remade on first use: a saved state holds the
        # engine once)
        return {**self.__dict__, "_gen": None}

    def permutation(self, n: int) -> Any:
        """A random permutation of ``0 .. n - 1`` (Fisher-Yates: step ``i`` swaps position
        ``i`` with ``i + random() % (n - i)``)."""
        if n <= 1:
            return np.arange(n, dtype=np.int64)
        if n <= _FEW_PERMUTED:  # (Python's integers: no arrays of the partners)
            r = list(range(n))
            for i, x in enumerate(self._mt.random_raw(n - 1).tolist()):
                j = i + x % (n - i)
                r[i], r[j] = r[j], r[i]
            return np.array(r, dtype=np.int64)
        steps = np.arange(n - 1, dtype=np.int64)
        # The swap partners, all at once; the swaps themselves depend on each other.
        draws = self.u32(n - 1) if n <= _BULK else self._u32_bulk(n - 1)
        partners = steps + (draws % (n - steps).astype(draws.dtype)).astype(np.int64)
        if n <= _FEW_SWAPS:
            r = list(range(n))
            for i, j in enumerate(partners.tolist()):
                r[i], r[j] = r[j], r[i]
            return np.array(r, dtype=np.int64)
        return _swaps_in_order(partners, n)

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
_HIGH21 = (1 << 21) - 1  # the bits a double uniform keeps of its first draw
_TWO_PI = 2.0 * math.pi  # (``2.0 * pi`` is exact: PyTorch's ``2 * pi * u`` rounds once)
_sqrt, _log1p, _cos, _sin = math.sqrt, math.log1p, math.cos, math.sin

# Up to this many normals from double Box-Muller pairs, Python floats: a pair costs about a
# microsecond there, a call of the array path about fifteen.
_FEW_NORMALS = 32

# From this many draws on, ``_u32_bulk`` (its call costs a few microseconds more than
# ``random_raw``'s, each draw about a nanosecond less).
_BULK = 4096

# Up to this many elements a permutation is drawn with Python's integers alone (10: 2.1 us,
# the arrays' partners 3.9 us; even at 64).
_FEW_PERMUTED = 48

# Up to this many elements a permutation's swaps run one by one in Python (about 0.1 us a
# swap); above, ``_swaps_in_order`` (a few dozen array calls).
_FEW_SWAPS = 512

# The dtype of a few double normals as returned, by the dtype asked for (float64 for the
# 16-bit floats, which the kernel converts; NumPy's default for None)
_FEW_OUT = {np.dtype(np.float32): np.float32, np.dtype(np.float64): np.float64}

# Up to this many float64 uniforms, Python's integers and floats (2.9 us for 8, the arrays
# 4.1 us; the arrays' time hardly grows, Python's by 0.2 us a value).
_FEW_UNIFORMS = 8

# Dekker's splitting constant (2**27 + 1): ``x`` into two halves of 26 bits whose products
# are exact.
_SPLIT = 134217729.0


def _fma(a: float, b: float, c: float) -> float:
    """``a * b + c`` rounded once, as C's ``fma`` (which PyTorch's compiled ``x * std +
    mean`` is). (Python 3.11 has no ``math.fma``.)"""
    p = a * b
    if not math.isfinite(p):  # (Dekker's halves overflow: the plain form's inf or NaN)
        return p + c
    return _fused(a, b, c, p)


def _fma_arrays(x: Any, std: float, mean: float) -> Any:
    """``x * std + mean`` for the float64 array ``x`` rounded once per element (``_fma``),
    in place where a product or a sum alone is exact (``std`` 1 or ``mean`` 0)."""
    if std == 1.0 or mean == 0.0:
        if std != 1.0:
            x *= std
        x += mean  # (even 0: -0.0 becomes +0.0, as the fused form gives)
        return x
    with np.errstate(all="ignore"):
        p = x * std
        return np.where(np.isfinite(p), _fused(x, std, mean, p), p + mean)


def _fused(a: Any, b: Any, c: Any, p: Any) -> Any:
    """``a * b + c`` rounded once, from the rounded product ``p = a * b``: the product's exact
    two-term form (Dekker) added to ``c`` with the sum's error kept (Knuth's two-sum). Plain
    arithmetic, the same for Python floats and float64 arrays (``_fma``, ``_fma_arrays``);
    wrong where ``p`` is not finite, which both callers leave to the plain form."""
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    p_err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    total = p + c
    back = total - p
    s_err = (p - (total - back)) + (c - back)
    return total + (s_err + p_err)


_THIRD_F = float(np.float32(1.0) / np.float32(3.0))  # C++'s ``1.0f / 3.0f``
_C0331_F = float(np.float32(0.0331))
_TINY32 = float(np.finfo(np.float32).tiny)
_TINY64 = float(np.finfo(np.float64).tiny)


def _float32(x: float) -> float:
    """``x`` rounded to float32 (inf beyond its range), as a Python float."""
    return float(np.float32(x))


def _same(x: float) -> float:
    return x


def _swaps_in_order(partners: Any, n: int) -> Any:
    """The permutation that swapping position ``k`` with ``partners[k]`` (at least ``k``)
    for ``k = 0, 1, ..., n - 2`` in turn leaves in ``arange(n)``, without a loop over the
    swaps.

    After step ``k`` position ``k`` is final (later steps touch only later positions), and
    holds what position ``partners[k]`` held just before step ``k``. A position ``p`` is
    written before step ``t`` only by the steps ``k' < t`` with ``partners[k'] = p``, each
    putting there what position ``k'`` held before its own step. So, with ``last(p, t)``
    the latest such step, position ``p`` holds ``first[last(p, t)]`` before step ``t`` (or
    ``p``, where no step wrote it), where ``first[q]``, what position ``q`` holds before its
    own step, follows ``q -> last(q, q)`` (always to a smaller position) down to a position
    no step wrote before its own, whose value is its index. With the steps sorted
    by (partner, step) (a stable sort by partner), ``last(partners[k], k)`` is the step
    sorted just before ``k`` where it has the same partner, and ``last(p, p)`` the last step
    of partner ``p`` unless that is step ``p`` itself (a step that keeps its element), then
    the one before it; ``first`` comes by pointer jumping."""
    m = n - 1  # steps
    k = np.arange(n, dtype=np.int64)
    # (a stable sort of 16-bit keys is a radix sort: several times faster than int64's)
    order = np.argsort(partners.astype(np.uint16 if n <= 1 << 16 else np.int64), kind="stable")
    grouped = partners[order]
    same = grouped[1:] == grouped[:-1]
    before = np.full(n, -1, dtype=np.int64)  # last(partners[k], k); (n - 1: no step)
    before[order[1:]] = np.where(same, order[:-1], -1)
    ends = np.append(~same, True)  # each partner's last step
    last = np.full(n, -1, dtype=np.int64)
    last[grouped[ends]] = order[ends]
    last = np.where(last == k, before, last)  # last(p, p)
    first = np.where(last >= 0, last, k)
    while True:
        nxt = first[first]
        if np.array_equal(nxt, first):
            break
        first = nxt
    before[m] = last[m]  # (position n - 1 holds what it held "before step n - 1")
    return np.where(before >= 0, first[before], np.append(partners, m))


def _box_constants(dtype: Any, mean: float, std: float) -> tuple[Any, ...]:
    """``normal_fill_16``'s constants as 0-d arrays of ``dtype`` (see ``_MASK24``): 1, -2,
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
