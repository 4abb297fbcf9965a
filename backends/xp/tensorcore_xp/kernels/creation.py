"""Factories and random fills, written once against an array module ``xp``.

Random numbers come from a per-generator stream kept in ``Generator.state`` and made on first
use from the generator's seed, so ``tc.manual_seed(s)`` makes every later draw reproducible.
The stream is the backend's ``random_stream`` (a :class:`tensorcore_xp.RandomStream`, which
draws in memory order: the CPU backend passes PyTorch's CPU generator, so that a seeded
program draws the numbers it draws under PyTorch in ``rand``, ``randn``, ``randint``,
``randperm``, ``uniform_``, ``normal_``, and so every layer's initialisation), or else the
array module's own generator (``xp.random.default_rng(seed)``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import tensorcore as tc
from tensorcore import Tensor
from tensorcore import dtypes as dt
from tensorcore.backend import dtype_name, generator_for
from tensorcore.backend import empty as new_tensor

from ..helpers import array_of, errstate, quiet_tokens, writes_through_views

__all__ = ["build"]

#: The Python number types whose ``linspace`` bounds the float32 ranges are kept for.
_BOUNDS = (int, float)

#: The significand bits of the float dtypes by item size (float16 11, float32 24, float64 53;
#: bfloat16, an ``ml_dtypes`` void-kind dtype, has 8): ``random_()``'s range is up to
#: ``2**digits``.
_FLOAT_DIGITS = {2: 11, 4: 24, 8: 53}


#: Integer bounds well inside int64 (``arange``'s one-call case).
_INT62 = 1 << 62

#: PyTorch's ``at::internal::GRAIN_SIZE``: ranges up to it run on one thread.
_GRAIN = 32768


def build(xp: Any, random_stream: Any = None) -> dict[str, Callable[..., Any]]:
    """Factory and random kernels for the array module ``xp``, drawing from ``random_stream``
    (a :class:`tensorcore_xp.RandomStream` class) or, when it is None, from ``xp.random``."""
    K: dict[str, Callable[..., Any]] = {}
    quiet = errstate(xp)
    enter, leave = quiet_tokens(xp)
    rng_type = xp.random.Generator

    def assign(o: Any, x: Any) -> None:
        with quiet(all="ignore"):
            xp.copyto(o, x, casting="unsafe")

    def is_float(d: Any) -> bool:
        return d.is_floating_point or d.is_complex

    # ------------------------------------------------------------ deterministic factories
    def empty(
        out: Any, size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
    ) -> None:
        """Nothing to compute: the core has allocated ``out``."""

    def full(
        out: Any,
        size: Any,
        fill_value: Any,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
    ) -> None:
        if fill_value.__class__ in (bool, int, float):
            tok = enter()  # (every backward's seed gradient is a full: the cheap errstate)
            try:
                array_of(out)[...] = fill_value
                return
            except (OverflowError, ValueError):
                pass
            finally:
                leave(tok)
        out.fill_(fill_value)  # the rare cases, and the error messages, live in fill_

    def arange(
        out: Any,
        start: Any,
        end: Any,
        step: Any = 1,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
    ) -> None:
        o = array_of(out)
        n = o.shape[0]
        d = out._dtype
        if d.is_floating_point and n and not _whole(start, step, n, o.dtype):
            _float_arange(o, float(start), float(step), n)
            return
        if (
            d.is_floating_point
            or d.is_complex
            or not (isinstance(start, int) and isinstance(step, int))
        ):
            # PyTorch computes ``start + i * step`` in double precision, then casts.
            r = start + step * xp.arange(n, dtype=xp.float64)
        elif o.dtype == xp.int64 and -_INT62 < start + step * n < _INT62:
            # (the common ``arange(n)``: the integers themselves, nothing to cast)
            o[...] = xp.arange(start, start + step * n, step, dtype=xp.int64)
            return
        else:
            r = start + step * xp.arange(n, dtype=xp.int64)
        assign(o, r)

    def _whole(start: Any, step: Any, n: int, dtype: Any) -> bool:
        """Whether every ``start + i * step`` is an integer the dtype holds exactly (the common
        ``arange(n, dtype=float32)``): then every way of counting gives the same values."""
        if not (float(start).is_integer() and float(step).is_integer()):
            return False
        digits = _FLOAT_DIGITS.get(dtype.itemsize, 8) if dtype.kind == "f" else 8
        return max(abs(start), abs(start + step * n)) < 2**digits

    def _float_arange(o: Any, start: float, step: float, n: int) -> None:
        """Floating ``arange`` bit for bit as PyTorch's CPU kernel makes it: its vectorised
        loop runs over blocks of two 256-bit vectors, each vector counting ``base + j * step``
        from a ``base = start + k * step`` rounded to the dtype; the elements after the last
        whole block take ``start + i * step``. Each step is a fused multiply-add (as the
        compiler builds that kernel), in float64 (in float32 for the 16-bit dtypes, PyTorch's
        accumulate type), and ranges of more than 32768 elements split between its threads,
        each such chunk starting its own blocks. (Within an ulp of ``start + i * step``; but
        a program that feeds a float32 time axis to ``sin`` of large arguments prints the
        difference.)"""
        f64, f32 = xp.float64, xp.float32
        wide = o.dtype.itemsize >= 4
        lanes = 32 // o.dtype.itemsize
        first, step_a = f64(start), f64(step)
        if not wide:  # (the 16-bit dtypes count in float32, whose products float64 holds)
            first, step_a = f64(f32(start)), f64(f32(step))

        def count(a: Any, b: Any, c: Any) -> Any:
            return _fma(a, b, c) if wide else (a * b + c).astype(f32)

        chunk = n
        if n > _GRAIN:  # (at::parallel_for's chunks: one per thread, at most n / grain)
            threads = max(1, min(tc.get_num_threads(), -(-n // _GRAIN)))
            chunk = -(-n // threads)
        lane = xp.arange(lanes, dtype=f64)
        parts = []
        with quiet(all="ignore"):
            for begin in range(0, n, chunk):
                end = min(n, begin + chunk)
                whole = (end - begin) // (2 * lanes) * 2 * lanes
                if whole:
                    k = xp.arange(begin, begin + whole, lanes, dtype=xp.int64)
                    k = k.astype(f64 if wide else f32).astype(f64)
                    base = count(step_a, k, first).astype(o.dtype).astype(f64)
                    parts.append(count(lane, step_a, base[:, None]).reshape(-1))
                if begin + whole < end:
                    i = xp.arange(begin + whole, end, dtype=xp.int64)
                    parts.append(count(step_a, i.astype(f64 if wide else f32).astype(f64), first))
            assign(o, parts[0] if len(parts) == 1 else xp.concatenate(parts))

    def _linspace_key(o: Any, start: Any, end: Any, steps: int) -> Any:
        """The key of ``_LINSPACES`` for these bounds, None for ones it does not keep
        (numbers of other types; zeros are told apart by their sign)."""
        if steps > 4096 or type(start) not in _BOUNDS or type(end) not in _BOUNDS:
            return None
        return (o.dtype, start, math.copysign(1, start), end, math.copysign(1, end), steps)

    # Small ranges computed once per dtype and bounds (``linspace(0, 1, 10)`` in a loop): the
    # dozen scalar and array steps of ``_float32_linspace`` cost twenty times the copy, the
    # fused multiply-adds of ``_float_linspace`` (float64) a hundred times.
    _LINSPACES: dict[Any, Any] = {}
    host = xp.__name__ == "numpy"

    def linspace(
        out: Any,
        start: Any,
        end: Any,
        steps: int,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
    ) -> None:
        o = array_of(out)
        if steps == 0:
            return
        if steps == 1:
            assign(o, xp.asarray(start))
            return
        key = _linspace_key(o, start, end, steps) if host else None
        if key is not None:
            kept = _LINSPACES.get(key)
            if kept is not None:
                o[...] = kept
                return
        fill_linspace(out, o, start, end, steps)
        if key is not None:
            if len(_LINSPACES) >= 256:
                _LINSPACES.clear()
            _LINSPACES[key] = o.copy()

    def fill_linspace(out: Any, o: Any, start: Any, end: Any, steps: int) -> None:
        cplx = out._dtype.is_complex or isinstance(start, complex) or isinstance(end, complex)
        # PyTorch's symmetric form: the first half counts up from ``start``, the second half
        # down from ``end``, so both endpoints are exact.
        with quiet(all="ignore"):  # an infinite bound gives NaN, as in PyTorch
            if (
                out._dtype.is_floating_point
                and not cplx
                and o.dtype.itemsize == 4
                and writes_through_views(o)  # (its halves are out= views: not dask's)
            ):
                _float32_linspace(o, start, end, steps)
                return
            if out._dtype.is_floating_point and not cplx:
                r = _float_linspace(o.dtype, start, end, steps)
            elif not cplx and o.dtype.kind in "iu":
                # integer dtypes: the bounds are cast to the dtype first (truncated), the
                # values computed in float64 and truncated
                r = _float_linspace(xp.dtype(xp.float64), int(start), int(end), steps)
            else:
                i = xp.arange(steps, dtype=xp.complex128 if cplx else xp.float64)
                step = (end - start) / (steps - 1)
                up = xp.arange(steps) < steps // 2
                r = xp.where(up, start + step * i, end - step * (steps - 1 - i))
        assign(o, r)

    def _float_linspace(dt: Any, start: Any, end: Any, steps: int) -> Any:
        # PyTorch's values to the bit: the step is computed in the tensor's dtype, and each
        # value is ``start + step * i`` (``end - step * k`` on the second half). Its compiled
        # loop fuses that multiply-add for float32 and float64 (one rounding), while 16-bit
        # types round after each operation.
        s, e = xp.asarray(start, dtype=dt), xp.asarray(end, dtype=dt)
        step = (e - s) / xp.asarray(steps - 1, dtype=dt)
        n = xp.arange(steps)
        up = n < steps // 2
        if dt.itemsize == 2:
            return xp.where(up, s + step * n.astype(dt), e - step * (steps - 1 - n).astype(dt))
        i = n.astype(xp.float64)
        s, e, step = s.astype(xp.float64), e.astype(xp.float64), step.astype(xp.float64)
        if dt.itemsize == 4:  # (``_float32_linspace``'s values, for arrays that are values)
            return xp.where(up, s + step * i, e - step * (steps - 1 - i))
        plain = xp.where(up, s + step * i, e - step * (steps - 1 - i))
        fused = xp.where(up, _fma(step, i, s), _fma(-step, steps - 1 - i, e))
        return xp.where(xp.isfinite(plain), fused, plain)

    def _float32_linspace(o: Any, start: Any, end: Any, steps: int) -> None:
        """``_float_linspace`` for float32, written into ``o``: each value computed in
        float64 (the product of the float32 step by an index is exact) and rounded once as
        it is stored, the fused multiply-add's value. The bounds and the step are host
        scalars of the dtype (the same float32 operations as 0-d arrays, at a fraction of
        their cost), and each half is computed on its own (the first ``steps // 2`` values
        from ``start``, the rest from ``end``) rather than both everywhere and then a choice
        between them."""
        t = o.dtype.type
        s, e = t(start), t(end)
        step, h = float((e - s) / t(steps - 1)), steps // 2
        up = xp.multiply(xp.arange(h, dtype=xp.float64), step)
        xp.add(up, float(s), out=o[:h])
        down = xp.multiply(xp.arange(steps - 1 - h, -1, -1, dtype=xp.float64), step)
        xp.subtract(float(e), down, out=o[h:])

    def _fma(a: Any, b: Any, c: Any) -> Any:
        # a * b + c rounded once, in float64: the product's exact two-term form (Dekker's
        # split) added to c with the error of the sum kept (Knuth's two-sum).
        def split(x: Any) -> tuple[Any, Any]:
            t = 134217729.0 * x  # 2**27 + 1
            hi = t - (t - x)
            return hi, x - hi

        p = a * b
        ah, al = split(a)
        bh, bl = split(b)
        p_err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        total = c + p
        back = total - c
        s_err = (c - (total - back)) + (p - back)
        return total + (s_err + p_err)

    def eye(
        out: Any,
        n: int,
        m: int | None = None,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
    ) -> None:
        o = array_of(out)
        o[...] = 0
        k = min(o.shape)
        r = xp.arange(k)
        o[r, r] = 1

    K.update(empty=empty, full=full, arange=arange, linspace=linspace, eye=eye)

    # ------------------------------------------------------------ random
    # A RandomStream draws in the order of the tensor's memory (as PyTorch's CPU kernels do);
    # ``xp.random``'s generator fills the tensor in its logical order.
    memory_order = random_stream is not None

    def stream(gen: Any, t_device: Any) -> Any:
        g = generator_for(gen, t_device)
        st = g.state
        if random_stream is not None:
            if not isinstance(st, random_stream):
                st = g.state = random_stream(g.initial_seed())
        elif not isinstance(st, rng_type):
            st = g.state = xp.random.default_rng(g.initial_seed())
        return st

    def floats_only(name: str, self: Any) -> None:
        if not is_float(self._dtype):
            raise RuntimeError(f"\"{name}\" not implemented for '{dtype_name(self._dtype)}'")

    def real_view(o: Any) -> Any:
        """The array to fill: ``o``, or its (..., 2) real view for complex ``o``."""
        if o.dtype.kind != "c":
            return o
        if writes_through_views(o):  # (a flat view first: a 0-d array cannot change itemsize)
            return o.reshape(-1).view(o.real.dtype).reshape(*o.shape, 2)
        return None

    def fill_in_memory_order(o: Any, make: Callable[[int, bool], Any]) -> None:
        """Fill ``o`` with ``make(n, contiguous)`` taken in ``o``'s memory order (the order
        PyTorch's serial kernels visit the elements in)."""
        target = real_view(o)
        if target is None:  # a non-contiguous complex tensor: a contiguous copy, then back
            tmp = xp.empty(o.shape, dtype=o.dtype)
            fill_in_memory_order(tmp, make)
            assign(o, tmp)
            return
        n = target.size
        contiguous = bool(writes_through_views(target))
        v = make(n, contiguous)
        if contiguous:
            if v.dtype == target.dtype:  # (nothing to convert: no error state to switch)
                target[...] = v.reshape(target.shape)
            else:
                assign(target, v.reshape(target.shape))
            return
        offsets = xp.zeros(target.shape, dtype=xp.int64)
        for axis, st in enumerate(target.strides):
            shape = [1] * target.ndim
            shape[axis] = target.shape[axis]
            offsets = offsets + xp.arange(target.shape[axis]).reshape(shape) * st
        order = xp.argsort(offsets.reshape(-1), kind="stable")
        flat = xp.empty(n, dtype=v.dtype)
        flat[order] = v
        assign(target, flat.reshape(target.shape))

    def fill_random(o: Any, sample: Any, scale: float, shift: float) -> None:
        """Fill ``o`` with ``sample(shape) * scale + shift`` (real and imaginary parts)."""
        shape = (*o.shape, 2) if o.dtype.kind == "c" else o.shape
        v = sample(shape)
        v *= scale
        v += shift
        if o.dtype.kind == "c":
            # Interleaved parts, as PyTorch fills ``view_as_real(self)``.
            assign(o.real, v[..., 0])
            assign(o.imag, v[..., 1])
        else:
            assign(o, v)

    def stream_dtype(o: Any) -> Any:
        real = o.real.dtype if o.dtype.kind == "c" else o.dtype
        return xp.float64 if real == xp.float64 else real

    def uniform_(self: Any, from_: float = 0.0, to: float = 1.0, generator: Any = None) -> Any:
        floats_only("check_uniform_bounds", self)
        if from_ > to:
            raise RuntimeError(
                "uniform_ expects to return a [from, to) range, but found "
                f"from={from_:g} > to={to:g}"
            )
        rng, o = stream(generator, self._device), array_of(self)
        if memory_order:
            d = stream_dtype(o)
            fill_in_memory_order(o, lambda n, c: rng.uniform(n, d, from_, to))
        else:
            fill_random(o, rng.random, to - from_, from_)
        exact = memory_order and from_ == 0.0 and to == 1.0 and o.dtype.itemsize >= 4
        if o.size and from_ < to and not exact:
            # Rounding (to the dtype, or of ``r * width + from``) can reach ``to``: keep the
            # interval half-open. (The stream's [0, 1) float32 and float64 values are
            # multiples of 2**-24 and 2**-53 below 1: nothing rounds there.)
            for p in (o.real, o.imag) if o.dtype.kind == "c" else (o,):
                p[p >= to] = from_
        return self

    def normal_(self: Any, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Any:
        floats_only("normal_kernel_cpu", self)
        if not std >= 0:  # (NaN too)
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        rng, o = stream(generator, self._device), array_of(self)
        # Complex: each part gets std / sqrt(2), so the complex variance is std**2.
        s = std / 2**0.5 if o.dtype.kind == "c" else std
        if memory_order:
            d = stream_dtype(o)
            fill_in_memory_order(o, lambda n, c: rng.normal(n, d, mean, s, c))
        else:
            fill_random(o, rng.standard_normal, s, mean)
        return self

    def random_(
        self: Any, low: int | None = None, high: int | None = None, generator: Any = None
    ) -> Any:
        o = array_of(self)
        # (the bounds were checked by the operator's declared check, meta_functions'
        # check_random_range)
        wide = None  # (the stream's rule for random_(from, to))
        if low is None:  # random_(): 0 to the largest integer the dtype holds exactly
            wide = o.dtype.itemsize == 8  # (64-bit draws for the 64-bit dtypes alone)
            if o.dtype.kind == "b":
                top = 1
            elif o.dtype.kind in "iu":
                top = int(xp.iinfo(o.dtype).max)
            else:
                top = 2 ** (_FLOAT_DIGITS[o.dtype.itemsize] if o.dtype.kind == "f" else 8)
            low, high = 0, top + 1  # (kind "V": bfloat16, 8 digits)
        elif high is None:  # random_(to)
            low, high = 0, low
        rng = stream(generator, self._device)
        if memory_order and wide is not None:
            fill_in_memory_order(o, lambda n, c: rng.integers(low, high, n, wide))
        elif memory_order:
            fill_in_memory_order(o, lambda n, c: rng.integers(low, high, n))
        else:
            assign(o, rng.integers(low, high, size=o.shape, dtype=xp.int64))
        return self

    def bernoulli_(self: Any, p: Any = 0.5, generator: Any = None) -> Any:
        # (the composite's draws, compared as the stream's integers: see the registration;
        # p was checked by the operator's declared check)
        rng = stream(generator, self._device)
        o = array_of(self)
        if isinstance(p, Tensor):
            # draws in self's memory order, each compared with its probability: float64
            # draws for float64 probabilities, float32 ones for the others (PyTorch's
            # bernoulli_distribution<double> / <float>)
            pa = array_of(p)
            wide = xp.float64 if pa.dtype == xp.float64 else xp.float32
            u = xp.empty_like(o, dtype=wide)
            fill_in_memory_order(u, lambda n, c: rng.uniform(n, wide))
            assign(o, u < xp.broadcast_to(pa.astype(wide), o.shape))
            return self
        fill_in_memory_order(o, lambda n, c: rng.bernoulli(n, float(p)))
        return self

    def randperm(
        out: Any,
        n: int,
        generator: Any = None,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
    ) -> None:
        rng = stream(generator, out._device)
        if hasattr(rng, "permutation"):
            assign(array_of(out), rng.permutation(n))
        else:  # (CuPy's Generator has none: the order of n random keys)
            assign(array_of(out), xp.argsort(rng.random(n)))

    def _standard_gamma(out: Any, self: Any, generator: Any = None) -> None:
        o, a = array_of(out), array_of(self)
        rng = stream(generator, self._device)
        # Drawn in float64 (a float32 result's draws rounded, as PyTorch's kernels round
        # theirs), at least the result dtype's smallest normal number (PyTorch's clamp: a
        # concentration of 0, below 0 or NaN gives it; an infinite one gives inf).
        tiny = float(xp.finfo(o.dtype).tiny)
        alpha = xp.reshape(xp.broadcast_to(a, o.shape), (-1,)).astype(xp.float64)
        if memory_order:
            # The stream's sampler, element by element in the result's (row-major) order.
            v = xp.asarray(rng.standard_gamma(alpha, o.dtype.itemsize < 8))
        else:
            with quiet(all="ignore"):
                ok = alpha > 0  # (False for NaN)
                v = gamma_draws(rng, xp.where(ok & (alpha < math.inf), alpha, 1.0))
                v = xp.where(ok, v, 0.0)
                v = xp.where(alpha == math.inf, math.inf, v)
        with quiet(all="ignore"):
            v = v.astype(o.dtype)
            assign(o, xp.maximum(v, xp.asarray(tiny, dtype=o.dtype)).reshape(o.shape))

    def gamma_draws(rng: Any, alpha: Any) -> Any:
        """Gamma(alpha, 1) draws for finite positive float64 ``alpha``: the generator's own
        sampler, or Marsaglia and Tsang's rejection (boosted below 1) vectorised."""
        if hasattr(rng, "standard_gamma"):
            return rng.standard_gamma(alpha)
        boost = alpha < 1
        a = xp.where(boost, alpha + 1, alpha)
        d = a - 1.0 / 3.0
        c = 1.0 / xp.sqrt(9.0 * d)
        out = xp.zeros_like(a)
        pending = xp.ones(a.shape, dtype=bool)
        while bool(pending.any()):
            x = rng.standard_normal(a.shape)
            u = rng.random(a.shape)
            v = (1 + c * x) ** 3
            ok = (v > 0) & (xp.log(u) < 0.5 * x * x + d - d * v + d * xp.log(xp.maximum(v, 1e-300)))
            out = xp.where(ok & pending, d * v, out)
            pending &= ~ok
        u = rng.random(a.shape)
        return xp.where(boost, out * xp.exp(xp.log1p(-u) / alpha), out)

    def multinomial(
        self: Any, num_samples: int, replacement: bool = False, generator: Any = None
    ) -> Tensor:
        """The composite's draws and arithmetic (``ops/composite.py``), bit for bit, on the
        arrays: its dozen operators cost ten times the draws for a few categories (a
        sampling step's ``multinomial(probs, 1)``; the declared check has checked the shape
        and ``num_samples``)."""
        n = self._shape[-1]
        rows = self._shape[0] if self.ndim == 2 else 1
        w = array_of(self).astype(xp.float64).reshape(rows, n)
        with quiet(all="ignore"):
            total = xp.add.reduce(w, axis=-1, keepdims=True)
            # Weights of at least 0 whose row sums are finite and positive are finite: the
            # composite's checks (and their order) only where that fails
            if not (w.size and w.min() >= 0 and bool(((total > 0) & (total < math.inf)).all())):
                if bool((w < 0).any()) or not bool(xp.isfinite(w).all()):
                    raise RuntimeError(
                        "probability tensor contains either `inf`, `nan` or element < 0"
                    )
                if bool((total <= 0).any()):
                    raise RuntimeError(
                        "invalid multinomial distribution (sum of probabilities <= 0)"
                    )
            rng = stream(generator, self._device)
            if replacement and num_samples > 1:
                # (the composite's count of the cumulative weights at or below u * total:
                # a binary search in a row's non-decreasing sums, where all are finite)
                u = rng.uniform(rows * num_samples, xp.float64).reshape(rows, num_samples)
                u *= total
                cdf = xp.add.accumulate(w, axis=-1)
                if rows == 1 and bool(xp.isfinite(total).all()):
                    idx = xp.searchsorted(cdf[0], u[0], side="right")[None]
                else:
                    idx = (cdf[:, None, :] <= u[:, :, None]).sum(-1)
                idx = xp.minimum(idx, n - 1)
            else:
                # (w / E, E = -log1p(-u) exponential, the largest first and ties by index:
                # ``topk``'s stable order, NaN largest; here the ascending order of
                # w / log1p(-u), its negation)
                u = rng.uniform(rows * n, xp.float64).reshape(rows, n)
                xp.negative(u, out=u)
                xp.log1p(u, out=u)
                scores = xp.divide(w, u, out=u)
                nan = xp.isnan(scores)  # (0 / 0: a zero weight's draw of exactly 0)
                if bool(nan.any()):
                    scores[nan] = 0.0
                    order = xp.lexsort((scores, ~nan), axis=-1)
                else:
                    order = scores.argsort(axis=-1, kind="stable")
                idx = order[:, :num_samples]
        out = new_tensor(idx.shape if self.ndim == 2 else idx.shape[1:], dt.int64, self._device)
        array_of(out)[...] = idx.reshape(array_of(out).shape)
        return out

    if memory_order and hasattr(random_stream, "bernoulli"):
        # In place of the composite (``uniform_`` in float64, compared with ``p``, copied
        # into ``self``) where the stream draws the booleans itself: the same draws in the
        # same memory order, without the float64 tensor and its passes (a dropout's mask).
        K["bernoulli_"] = bernoulli_
    if memory_order:
        # In place of the composite (see the kernel): the same draws, the same numbers.
        K["multinomial"] = multinomial
    K.update(
        uniform_=uniform_,
        normal_=normal_,
        random_=random_,
        randperm=randperm,
        _standard_gamma=_standard_gamma,
    )
    return K
