"""Convolution and pooling kernels, written once against an array module ``xp`` (NumPy or
CuPy).

Every kernel works on windows: a strided view of the (padded) input with one axis per output
position and one per kernel position, made without copying. A convolution copies the windows
once into columns (im2col) and multiplies them with the weight in one batched matmul (BLAS);
the gradients with respect to the input add columns back with one strided add per kernel
position (col2im), never a Python loop over output positions. The core has checked shapes,
dtypes and arguments (``ops/meta_functions.py``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

from ..helpers import (
    acc_dtype,
    array_of,
    contraction,
    quiet_tokens,
    shares_storage,
    writes_through_views,
)

__all__ = ["build"]

#: Largest pooling window (in elements) that ``avg_pool2d`` sums as strided slices
#: (``strided_window_sum``).
_AVG_TAPS = 16

#: Elements per block of rows in the NumPy layer norm backward (``row_blocks``): float32
#: temporaries of 256 KiB.
_ROW_BLOCK = 1 << 16
#: Elements above which the NumPy layer norm forward runs over blocks of rows too (a few
#: MiB of float32: larger than the CPU's caches).
_LARGE_ROWS = 1 << 20
#: Whether a depthwise convolution takes its own paths (``flat_forward``,
#: ``depthwise_input_grad``, ``depthwise_weight_grad``) instead of im2col and col2im (the tests
#: compare them by turning it off).
_DEPTHWISE_FLAT = True
#: Most positions per row of the phase grid, as a multiple of the output's positions, for which
#: a convolution takes ``flat_forward`` instead of im2col and its input gradient
#: ``flat_input_grad`` instead of col2im (the matmul's extra positions against im2col's short
#: copies and transpose, col2im's strided adds; measured on NumPy: 1.1 keeps 32x32 and 1-D
#: convolutions, where both gain, and leaves 16x16 ones at stride 2 (grid rows of 9 for 8
#: outputs), where both lose; 0 turns them off but for depthwise ones).
_FLAT_WASTE = 1.1
#: Output elements per block of samples in the NumPy flat and depthwise kernels: a block's input,
#: output and product stay in the CPU's cache across the kernel positions' passes.
_DEPTHWISE_BLOCK = 1 << 17
#: Column elements per block of samples in the NumPy im2col convolution and weight gradient
#: (1 MiB of float32: the block's columns stay in the CPU's cache for the matmul).
_COLUMN_BLOCK = 1 << 18


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """Convolution and pooling kernels for the array module ``xp``."""
    as_strided = xp.lib.stride_tricks.as_strided
    host = xp.__name__ == "numpy"  # (arrays in host memory: reading a result costs no wait)
    enter, leave = quiet_tokens(xp)
    einsum = contraction(xp)

    def quiet(fn: Callable[..., None]) -> Callable[..., None]:
        """``fn`` with floating-point warnings silenced (PyTorch never warns on inf or nan)."""

        def k(*args: Any) -> None:
            tok = enter()
            try:
                fn(*args)
            finally:
                leave(tok)

        k.__name__ = fn.__name__
        return k

    def windows(
        x: Any,
        kernel: Sequence[int],
        stride: Sequence[int],
        dilation: Sequence[int],
        out: Sequence[int],
    ) -> Any:
        """A read-only view (N, C, *out, *kernel) of ``x`` (N, C, *spatial)."""
        nd = len(kernel)
        st = x.strides
        shape = x.shape[:2] + tuple(out) + tuple(kernel)
        strides = (
            st[:2]
            + tuple(st[2 + i] * stride[i] for i in range(nd))
            + tuple(st[2 + i] * dilation[i] for i in range(nd))
        )
        return as_strided(x, shape, strides)

    def to_last(ndim: int, axis: int) -> tuple[int, ...]:
        """The axes that move ``axis`` last (``moveaxis(a, axis, -1)`` without its
        normalisation, microseconds per call on a convolution's path)."""
        return tuple(range(axis)) + tuple(range(axis + 1, ndim)) + (axis,)

    def from_last(ndim: int, axis: int) -> tuple[int, ...]:
        """The axes that move the last axis to ``axis``."""
        return tuple(range(axis)) + (ndim - 1,) + tuple(range(axis, ndim - 1))

    def pad(x: Any, lo: Sequence[int], hi: Sequence[int], value: float = 0.0) -> Any:
        if not any(lo) and not any(hi):
            return x
        width = [(0, 0), (0, 0)] + [(a, b) for a, b in zip(lo, hi, strict=True)]
        return xp.pad(x, width, mode="constant", constant_values=value)

    def out_size(size: int, k: int, s: int, p: int, d: int, ceil: bool = False) -> int:
        span = size + 2 * p - d * (k - 1) - 1
        if ceil:
            o = -(-span // s) + 1
            if (o - 1) * s >= size + p:  # the last window must start inside input or left pad
                o -= 1
            return o
        return span // s + 1

    def tap(k: Sequence[int], stride: Any, dilation: Any, outs: Sequence[int]) -> tuple[slice, ...]:
        """The slices of a padded input that kernel position ``k`` reads, one element per
        output position (what col2im adds back there)."""
        return tuple(
            slice(k[i] * dilation[i], k[i] * dilation[i] + stride[i] * (outs[i] - 1) + 1, stride[i])
            for i in range(len(k))
        )

    def interior(padding: Any, sizes: Sequence[int]) -> tuple[slice, ...]:
        """The slices of a padded array that hold the unpadded one (spatial sizes ``sizes``)."""
        return tuple(slice(p, p + n) for p, n in zip(padding, sizes, strict=True))

    def channels_last(
        cg: int, g: int, kernel: Sequence[int], outs: Sequence[int], stride: Any, dilation: Any
    ) -> bool:
        """Whether a convolution's columns are laid out channels last (see ``columns``): the
        copy's runs are then a window row's channels, else an output row."""
        run_last = cg * (kernel[-1] if g == 1 and dilation[-1] == 1 else 1)
        return run_last > (outs[-1] if stride[-1] == 1 else 1)

    def column_windows(x: Any, w_shape: Sequence[int], geo: tuple[Any, ...]) -> tuple[Any, ...]:
        """im2col's source: ``(windows, outs, last)``, a view of the windows of ``x`` (N, C,
        *spatial) that ``columns`` copies into one matrix per group, ``outs`` the output's
        spatial size and ``last`` whether the columns are (g, N * P, K * C/g), channels last
        (the view (g, N, *outs, *kernel, C/g)), or else (g, C/g * K, N * P) (the view (g,
        C/g, *kernel, N, *outs)).

        The copy is the cost of a convolution beside the matmul, and its speed is the length
        of the runs it copies: with the channels last a run is a window row's channels
        (``kw * C``), with the positions last an output row (``ow``, at stride 1). The longer
        one is taken; each layout makes its own weight matrix and result (below)."""
        stride, padding, dilation, groups = geo
        kernel = tuple(w_shape[2:])
        nd = len(kernel)
        n, c = x.shape[:2]
        g, cg = groups, c // groups
        outs = tuple(
            out_size(x.shape[2 + i], kernel[i], stride[i], padding[i], dilation[i])
            for i in range(nd)
        )
        if channels_last(cg, g, kernel, outs, stride, dilation):
            # (N, *padded, C): windows (g, N, *outs, *kernel, C/g)
            cl = xp.zeros((n,) + tuple(x.shape[2 + i] + 2 * padding[i] for i in range(nd)) + (c,),
                          dtype=x.dtype)  # fmt: skip
            cl[(slice(None),) + interior(padding, x.shape[2:])] = x.transpose(to_last(x.ndim, 1))
            st = cl.strides
            shape = (g, n) + outs + kernel + (cg,)
            strides = (
                (st[-1] * cg, st[0])
                + tuple(st[1 + i] * stride[i] for i in range(nd))
                + tuple(st[1 + i] * dilation[i] for i in range(nd))
                + (st[-1],)
            )
            return as_strided(cl, shape, strides), outs, True
        xpad = pad(x, padding, padding)
        st = xpad.strides
        shape = (g, cg) + kernel + (n,) + outs
        strides = (
            (st[1] * cg, st[1])
            + tuple(st[2 + i] * dilation[i] for i in range(nd))
            + (st[0],)
            + tuple(st[2 + i] * stride[i] for i in range(nd))
        )
        return as_strided(xpad, shape, strides), outs, False

    def columns(windows: Any, last: bool, s0: int, s1: int) -> Any:
        """The columns of samples ``s0`` to ``s1`` (``column_windows``) copied into one
        matrix per group: (g, b * P, K * C/g) channels last, else (g, C/g * K, b * P)."""
        g, b = windows.shape[0], s1 - s0
        nd = (windows.ndim - 3) // 2
        if last:
            part = windows[:, s0:s1]
            return part.reshape(g, b * math.prod(part.shape[2 : 2 + nd]), -1)
        part = windows[(slice(None),) * (2 + nd) + (slice(s0, s1),)]
        return part.reshape(g, math.prod(part.shape[1 : 2 + nd]), -1)

    def column_block(n: int, per_sample: int) -> int:
        """Samples per block of columns on NumPy (all of them elsewhere): a block's columns
        stay in the CPU's cache between their copy and the matmul that reads them."""
        return min(n, max(1, _COLUMN_BLOCK // max(per_sample, 1))) if host else n

    def col2im(
        cols: Any,
        shape: Sequence[int],
        kernel: Sequence[int],
        geo: tuple[Any, ...],
        outs: Sequence[int],
        dtype: Any,
    ) -> Any:
        """Add ``cols`` (N, C, *outs, *kernel) back into an (N, C, *shape) array."""
        stride, padding, dilation = geo[:3]
        nd = len(kernel)
        padded = tuple(shape[2 + i] + 2 * padding[i] for i in range(nd))
        acc = xp.zeros(tuple(shape[:2]) + padded, dtype=dtype)
        for k in itertools.product(*(range(kk) for kk in kernel)):
            acc[(slice(None), slice(None)) + tap(k, stride, dilation, outs)] += cols[
                (Ellipsis,) + k
            ]
        return acc[(slice(None), slice(None)) + interior(padding, shape[2:])]

    def weight_matrix(w: Any, groups: int, last: bool) -> Any:
        """The weight (O, C/g, *kernel) as (g, O/g, C/g * K), or (g, O/g, K * C/g) for
        channels-last columns."""
        o = w.shape[0]
        wm = w.reshape((groups, o // groups) + w.shape[1:])
        if last:
            wm = wm.transpose(to_last(wm.ndim, 2))
        return wm.reshape(groups, o // groups, -1)

    def grad_matrix(gy: Any, groups: int, last: bool) -> Any:
        """The output's gradient (N, O, *outs) as (g, O/g, N * P), or (g, N * P, O/g) for
        channels-last columns."""
        n, o = gy.shape[:2]
        gym = gy.reshape(n, groups, o // groups, -1)
        if last:
            return gym.transpose(1, 0, 3, 2).reshape(groups, -1, o // groups)
        return gym.transpose(1, 2, 0, 3).reshape(groups, o // groups, -1)

    def is_depthwise(w_shape: Sequence[int], groups: int) -> bool:
        """One input and one output channel per group."""
        return _DEPTHWISE_FLAT and w_shape[1] == 1 and w_shape[0] == groups > 1

    def phases_fit(x_shape: Sequence[int], geo: tuple[Any, ...]) -> bool:
        """Whether the phases of ``phase_layout`` hold at most twice the padded input: a
        stride no longer than the padded size (a stride past it makes a phase per skipped
        position: one of 10**9 asked for gigabytes)."""
        stride, padding = geo[:2]
        return all(s <= n + 2 * p for s, n, p in zip(stride, x_shape[2:], padding, strict=True))

    def remembered(fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn``, a pure function of hashable arguments (Python numbers and tuples), with its
        results kept per arguments (up to 256 of them; unhashable ones, lists, are computed
        each time): a layer's geometry is the same at every step, and its Python arithmetic
        costs more than a small convolution's array work."""
        memo: dict[Any, Any] = {}

        def call(*args: Any) -> Any:
            try:
                return memo[args]
            except KeyError:
                res = memo[args] = fn(*args)
                if len(memo) > 256:
                    memo.clear()
                return res
            except TypeError:
                return fn(*args)

        call.__name__ = fn.__name__
        call.__doc__ = fn.__doc__
        return call

    @remembered
    def phase_layout(
        sizes: Sequence[int], kernel: Sequence[int], geo: tuple[Any, ...], outs: Sequence[int]
    ) -> tuple[Any, ...]:
        """How the depthwise kernels lay a sample's padded input out so that every kernel
        position reads one contiguous run per sample and channel, at any stride.

        The padded input splits into ``prod(stride)`` phases (the positions congruent to
        ``a`` modulo the stride, ``a`` per dim), each a grid of ``ceil(padded / stride)``
        per dim, flattened. Output ``o`` at kernel position ``k`` reads padded position
        ``s * o + k * d = s * (o + q) + a``: phase ``a``'s position ``o + q``. With the
        output laid on the phase grid's rows (zeros or unused values past the last output
        of a row), a kernel position reads the run of ``span`` elements from its offset
        ``q`` in its phase (at stride 1: one phase, the padded input itself).

        Returns ``(grid, reads, span, length, fills)``: ``reads`` is ``(phase, offset)`` per
        kernel position, ``length`` each flat phase's length, and ``fills`` ``(phase, phase
        slices, input slices)`` per phase, where the input's elements sit."""
        stride, padding, dilation = geo[:3]
        nd = len(kernel)
        padded = [sizes[i] + 2 * padding[i] for i in range(nd)]
        grid = tuple(-(-padded[i] // stride[i]) for i in range(nd))
        steps = [math.prod(grid[i + 1 :]) for i in range(nd)]
        span = outs[0] * steps[0]
        phases = list(itertools.product(*(range(st) for st in stride)))
        index = {a: j for j, a in enumerate(phases)}
        reads = []
        for k in itertools.product(*(range(kk) for kk in kernel)):
            at = [k[i] * dilation[i] for i in range(nd)]
            a = tuple(at[i] % stride[i] for i in range(nd))
            reads.append((index[a], sum(at[i] // stride[i] * steps[i] for i in range(nd))))
        length = max(math.prod(grid), max(off for _, off in reads) + span)
        fills = []
        for j, a in enumerate(phases):
            ph, src = [], []
            for i in range(nd):
                u0 = max(0, -(-(padding[i] - a[i]) // stride[i]))  # the first inside the input
                x0 = a[i] + stride[i] * u0 - padding[i]
                count = len(range(x0, sizes[i], stride[i]))
                ph.append(slice(u0, u0 + count))
                src.append(slice(x0, x0 + stride[i] * (count - 1) + 1 if count else x0, stride[i]))
            fills.append((j, tuple(ph), tuple(src)))
        return grid, tuple(reads), span, length, tuple(fills)

    def depthwise_block(n: int, c: int, per_sample: int) -> int:
        """Samples per block of the NumPy depthwise kernels (all of them elsewhere)."""
        return min(n, max(1, _DEPTHWISE_BLOCK // max(c * per_sample, 1))) if host else n

    def flat_fits(
        x_shape: Sequence[int], w_shape: Sequence[int], geo: tuple[Any, ...], waste: float
    ) -> bool:
        """Whether a convolution takes ``flat_forward``: depthwise ones always, others where
        the phase grid's rows (``phase_layout``) add at most ``waste`` times the output
        positions to the matmul (one spatial dim: none)."""
        if not phases_fit(x_shape, geo):
            return False
        if is_depthwise(w_shape, geo[3]):
            return True
        stride, padding, dilation = geo[:3]
        nd = len(w_shape) - 2
        if nd == 1:
            return waste >= 1
        kernel = w_shape[2:]
        row = row_out = 1
        for i in range(1, nd):
            row *= -(-(x_shape[2 + i] + 2 * padding[i]) // stride[i])
            row_out *= out_size(x_shape[2 + i], kernel[i], stride[i], padding[i], dilation[i])
        return row <= waste * max(row_out, 1)

    def flat_forward(x: Any, w: Any, geo: tuple[Any, ...], wide: Any, out: Any = None) -> Any:
        """A convolution over the padded input laid out flat (``phase_layout``: split into
        the stride's phases), where every kernel position reads one contiguous run per
        sample and channel: the columns (N, C * K, span) are K * C long copies, and one
        matmul per sample, ``W (O/g, C/g * K) @ cols``, writes the (N, O, span) result in
        the output's own layout (into ``out`` where the phase grid's rows are the output's).

        im2col's copy is one short run per window row (``kw * C`` or an output row) and
        its result must be transposed from (N * P, O) into (N, O, P): measured for
        (32, 16, 32, 32) float32 and 3x3, 4.7 -> 3.9 ms; (32, 16, 256) and 7 taps 1.8 ->
        1.5 ms (one thread; PyTorch's oneDNN kernels 1.6 and 1.2). A depthwise one (one
        input and one output channel per group) thereby avoids im2col's matmul of one-row
        groups: for (32, 32, 32, 32) and 3x3, 12.7 -> 5 ms; (32, 64, 32, 32) at stride 2,
        7.1 -> 1.6 ms. On NumPy it runs over blocks of samples, each laid out once into
        buffers made once, so that a block's input, columns and output stay in the CPU's
        cache."""
        n, c = x.shape[:2]
        o = w.shape[0]
        kernel = tuple(w.shape[2:])
        nd = len(kernel)
        stride, padding, dilation, g = geo
        outs = tuple(
            out_size(x.shape[2 + i], kernel[i], stride[i], padding[i], dilation[i])
            for i in range(nd)
        )
        grid, reads, span, length, fills = phase_layout(x.shape[2:], kernel, geo, outs)
        n_ph, taps, cg, og = len(fills), len(reads), c // g, o // g
        lead = (slice(None), slice(None))
        res = out if out is not None else xp.empty((n, o) + outs, dtype=wide)
        exact = tuple(grid[1:]) == outs[1:]  # (the matmul writes the output's rows)
        block = depthwise_block(n, c, n_ph * length + taps * span)
        src = xp.zeros((block, c, n_ph, length), dtype=wide)  # (its padding stays zero)
        # Each kernel position's run copied into one row of a (C/g * K, span) matrix per
        # sample and group, then one matmul: K copies and the matmul's fused multiply-adds,
        # where (depthwise) a multiply and an add per kernel position measured 1.5 times
        # slower (NumPy's binary operations run at memory speed).
        cols = xp.empty((block, c, taps, span), dtype=wide)
        acc = xp.empty((0 if exact else block, g, og, span), dtype=wide)
        # (contiguous: the flipped kernel of the input gradient reshapes to a view of
        # negative strides, which NumPy's matmul multiplies without BLAS, 4 times slower)
        wm = xp.ascontiguousarray(w.astype(wide, copy=False).reshape(g, og, cg * taps))
        valid = lead + (slice(None),) + tuple(slice(0, m) for m in outs[1:])
        size = math.prod(grid)
        for s0 in range(0, n, block):
            b = min(block, n - s0)
            sb, cb = src[:b], cols[:b]
            xb = x[s0 : s0 + b]
            for j, ph, part in fills:
                sb[:, :, j, :size].reshape((b, c) + grid)[lead + ph] = xb[lead + part]
            for i, (j, off) in enumerate(reads):
                cb[:, :, i] = sb[:, :, j, off : off + span]
            c4 = cb.reshape(b, g, cg * taps, span)
            if exact:
                xp.matmul(wm, c4, out=res[s0 : s0 + b].reshape(b, g, og, span))
            else:
                ab = acc[:b]
                xp.matmul(wm, c4, out=ab)
                res[s0 : s0 + b] = ab.reshape((b, o, outs[0]) + grid[1:])[valid]
        return res

    def flat_input_grad(
        gy: Any, w: Any, x_shape: Sequence[int], geo: tuple[Any, ...], wide: Any, out: Any = None
    ) -> Any:
        """col2im over the input laid out as ``flat_forward`` reads it: per block of samples
        one matmul per group, ``W^T (C/g * K, O/g) @ gy``, of the gradient laid on the phase
        grid's rows (zeros past a row's outputs) as (O, b * span), gives the columns'
        gradient (C * K, b * span); each kernel position's run is added to its contiguous
        run of the phases, which then go back to the input's elements once. col2im adds
        each kernel position into a strided slice of the padded input (single elements at
        stride 2) and reads its columns from an (N * P, ...) matmul result. ``out`` as
        ``conv_forward``'s."""
        n, c = x_shape[:2]
        o = w.shape[0]
        kernel = tuple(w.shape[2:])
        g = geo[3]
        cg, og = c // g, o // g
        outs = tuple(gy.shape[2:])
        grid, reads, span, length, fills = phase_layout(x_shape[2:], kernel, geo, outs)
        n_ph, taps = len(fills), len(reads)
        lead = (slice(None), slice(None))
        valid = lead + tuple(slice(0, m) for m in outs)
        res = out if out is not None else xp.empty(tuple(x_shape), dtype=wide)
        wt = w.astype(wide, copy=False).reshape(g, og, cg * taps).transpose(0, 2, 1)
        wt = xp.ascontiguousarray(wt)  # (g, C/g * K, O/g)
        block = depthwise_block(n, c, n_ph * length + taps * span)
        acc = xp.empty((block, c, n_ph, length), dtype=wide)
        # the block's gradient as (O, b, span): one matmul per group for the whole block
        gl = xp.zeros((o, block, outs[0]) + grid[1:], dtype=wide)
        gcols = xp.empty((g, cg * taps, block * span), dtype=wide)
        size = math.prod(grid)
        for s0 in range(0, n, block):
            b = min(block, n - s0)
            ab, gb, cb = acc[:b], gl[:, :b], gcols[:, :, : b * span]
            ab[...] = 0
            gb[valid] = gy[s0 : s0 + b].swapaxes(0, 1)
            xp.matmul(wt, gb.reshape(g, og, b * span), out=cb)
            c4 = cb.reshape(c, taps, b, span)
            for i, (j, off) in enumerate(reads):
                ab[:, :, j, off : off + span] += c4[:, i].swapaxes(0, 1)
            rb = res[s0 : s0 + b]
            for j, ph, part in fills:
                rb[lead + part] = ab[:, :, j, :size].reshape((b, c) + grid)[lead + ph]
        return res

    def flat_weight_grad(
        gy: Any, x: Any, w_shape: Sequence[int], geo: tuple[Any, ...], wide: Any
    ) -> Any:
        """The weight gradient over the input laid out as ``flat_forward`` reads it: per
        block of samples the columns (C * K, b * span), K * C long copies, and one matmul
        per group against the gradient laid on the phase grid's rows (zeros past a row's
        outputs), ``cols @ gy^T`` (its operand transposed as NumPy's BLAS call takes it
        at full speed). Where the input holds a non-finite value, the zeros times it may
        make NaN in kernel positions that never met it: the caller then takes im2col."""
        n, c = x.shape[:2]
        o = w_shape[0]
        kernel = tuple(w_shape[2:])
        g = geo[3]
        cg, og = c // g, o // g
        outs = tuple(gy.shape[2:])
        grid, reads, span, length, fills = phase_layout(x.shape[2:], kernel, geo, outs)
        n_ph, taps = len(fills), len(reads)
        lead = (slice(None), slice(None))
        valid = lead + tuple(slice(0, m) for m in outs)
        block = depthwise_block(n, c, n_ph * length + taps * span)
        src = xp.zeros((block, c, n_ph, length), dtype=wide)  # (its padding stays zero)
        cols = xp.empty((c, taps, block * span), dtype=wide)
        gl = xp.zeros((o, block, outs[0]) + grid[1:], dtype=wide)
        gw = xp.zeros((g, cg * taps, og), dtype=wide)
        size = math.prod(grid)
        for s0 in range(0, n, block):
            b = min(block, n - s0)
            sb, cb, gb = src[:b], cols[:, :, : b * span], gl[:, :b]
            xb = x[s0 : s0 + b]
            for j, ph, part in fills:
                sb[:, :, j, :size].reshape((b, c) + grid)[lead + ph] = xb[lead + part]
            c4 = cb.reshape(c, taps, b, span)
            for i, (j, off) in enumerate(reads):
                c4[:, i] = sb[:, :, j, off : off + span].swapaxes(0, 1)
            gb[valid] = gy[s0 : s0 + b].swapaxes(0, 1)
            gw += xp.matmul(
                cb.reshape(g, cg * taps, b * span),
                gb.reshape(g, og, b * span).transpose(0, 2, 1),
            )  # (g, C/g * K, O/g)
        return gw.transpose(0, 2, 1).reshape(tuple(w_shape))

    def pointwise_samples(x: Any, w_shape: Sequence[int], geo: tuple[Any, ...]) -> Any:
        """For a 1x1 kernel without padding and groups: ``(x3, outs)``, the positions that
        the stride reads as (N, C, P) (a view at stride 1) and their spatial size, else
        None. Such a convolution is one matmul per sample, ``W (O, C) @ x_n (C, P)``,
        written in the output's own layout: no columns are copied and no (O, N * P) result
        is transposed into (N, O, P) afterwards."""
        stride, padding, _, groups = geo
        if groups != 1 or any(k != 1 for k in w_shape[2:]) or any(padding):
            return None
        if any(st != 1 for st in stride):
            x = x[(slice(None), slice(None)) + tuple(slice(None, None, st) for st in stride)]
        return x.reshape(x.shape[0], x.shape[1], -1), tuple(x.shape[2:])

    def conv_forward(x: Any, w: Any, geo: tuple[Any, ...], wide: Any, out: Any = None) -> Any:
        """The convolution (N, O, *outs); where ``out`` is given (C-contiguous, of the
        computing dtype), written into it: the matmul's result goes to its place in one
        pass, where a copy into the (N, O, *outs) layout and then into the output made
        two."""
        groups = geo[3]
        n = x.shape[0]
        o = w.shape[0]
        pw = pointwise_samples(x.astype(wide, copy=False), w.shape, geo)
        if pw is None and flat_fits(x.shape, w.shape, geo, _FLAT_WASTE):
            return flat_forward(x, w, geo, wide, out)
        if pw is not None:
            wm = w.astype(wide, copy=False).reshape(o, -1)
            if out is not None:
                xp.matmul(wm, pw[0], out=out.reshape(n, o, -1))
                return out
            return xp.matmul(wm, pw[0]).reshape((n, o) + pw[1])
        windows, outs, last = column_windows(x.astype(wide, copy=False), w.shape, geo)
        wm = weight_matrix(w.astype(wide, copy=False), groups, last)
        nd, og = len(outs), o // groups
        res = out if out is not None else xp.empty((n, o) + outs, dtype=wide)
        r5 = res.reshape((n, groups, og) + outs)
        # In blocks of samples (on NumPy): the columns of the whole batch (K * C times the
        # output, 19 MB for a 3x3 convolution of (32, 16, 32, 32)) would be written to
        # memory and read back by the matmul; a block's stay in cache (measured: 6.0 -> 4.0
        # ms for that convolution on one thread).
        block = column_block(n, math.prod(outs) * wm.shape[2] * groups)
        wmt = wm.transpose(0, 2, 1)
        for s0 in range(0, n, block):
            s1 = min(n, s0 + block)
            cols = columns(windows, last, s0, s1)
            if last:
                y = xp.matmul(cols, wmt)  # (g, b * P, O/g)
                y = y.reshape((groups, s1 - s0) + outs + (og,))
                r5[s0:s1] = y.transpose((1, 0, nd + 2) + tuple(range(2, 2 + nd)))
            else:
                y = xp.matmul(wm, cols)  # (g, O/g, b * P)
                y = y.reshape((groups, og, s1 - s0) + outs)
                r5[s0:s1] = y.transpose((2, 0, 1) + tuple(range(3, 3 + nd)))
        return res

    def conv_input_grad(
        gy: Any, w: Any, x_shape: Sequence[int], geo: tuple[Any, ...], wide: Any, out: Any = None
    ) -> Any:
        """The gradient with respect to the input: at stride 1 a convolution of the padded
        gradient with the flipped weight where that measures faster, for a depthwise weight
        one multiply-add per kernel position, else col2im (the columns' gradient added back
        one kernel position at a time into a padded buffer). ``out`` as ``conv_forward``'s:
        the convolutions write into it (the others return their own array)."""
        stride, padding, dilation, groups = geo
        n, c = x_shape[:2]
        kernel = tuple(w.shape[2:])
        nd = len(kernel)
        outs = tuple(gy.shape[2:])
        g, cg = groups, c // groups
        reach = tuple(dilation[i] * (kernel[i] - 1) - padding[i] for i in range(nd))
        flipped_fits = all(s == 1 for s in stride) and all(r >= 0 for r in reach)
        if is_depthwise(w.shape, g) and flipped_fits:
            # the depthwise convolution of the gradient with the flipped kernel
            back = (Ellipsis,) + (slice(None, None, -1),) * nd
            return flat_forward(gy, w[back], ((1,) * nd, reach, dilation, g), wide, out)
        if is_depthwise(w.shape, g) and phases_fit(x_shape, geo):
            return depthwise_input_grad(gy, w, x_shape, geo, wide)
        few_more = math.prod(x_shape[2:]) <= 2 * math.prod(outs)
        if cg >= 8 and all(s == 1 for s in stride) and all(r >= 0 for r in reach) and few_more:
            # Every input position sees the gradient through the whole flipped kernel: the
            # columns come from the (smaller or equal) gradient and no buffer of K times the
            # input's size is made and added back (measured: 1.2 to 2.2 times faster for 3x3
            # kernels from 16 channels; fewer channels make a matmul too thin to gain). Its
            # matmul has a row per input position where col2im's has one per gradient
            # position: not for an input of many more positions (a transposed convolution
            # from 1x1 to 4x4 took 4 times longer).
            o = w.shape[0]
            flipped = w.reshape((g, o // g, cg) + kernel).swapaxes(1, 2)
            back = (Ellipsis,) + (slice(None, None, -1),) * nd
            flipped = flipped.reshape((c, o // g) + kernel)[back]
            return conv_forward(gy, flipped, ((1,) * nd, reach, dilation, g), wide, out)
        if flat_fits(x_shape, w.shape, geo, _FLAT_WASTE) and bool(xp.isfinite(w).all()):
            # (a non-finite weight times the zeros past a row's outputs would add NaN to
            # positions that never met it: col2im multiplies the gradient's positions only)
            return flat_input_grad(gy, w, x_shape, geo, wide, out)
        # Adding back is its own layout choice: positions first keeps each kernel position's
        # columns whole (one contiguous read per add), which wins but where a stride leaves
        # single-element runs to write and a group has many channels (measured on NumPy).
        last = stride[-1] > 1 and cg >= 16
        gym = grad_matrix(gy.astype(wide, copy=False), g, last)
        wm = weight_matrix(w.astype(wide, copy=False), g, last)
        padded = tuple(x_shape[2 + i] + 2 * padding[i] for i in range(nd))
        inner = interior(padding, x_shape[2:])
        positions = itertools.product(*(range(kk) for kk in kernel))
        if last:
            gcols = xp.matmul(gym, wm)  # (g, N * P, K * C/g)
            gcols = gcols.reshape((g, n) + outs + kernel + (cg,))
            acc = xp.zeros((n,) + padded + (g, cg), dtype=wide)
            moved = (1,) + tuple(range(2, 2 + nd)) + (0, 2 + nd)
            for k in positions:
                part = gcols[(slice(None), slice(None)) + (slice(None),) * nd + k]
                acc[(slice(None),) + tap(k, stride, dilation, outs)] += part.transpose(moved)
            res = acc[(slice(None),) + inner].reshape((n,) + tuple(x_shape[2:]) + (c,))
            return res.transpose(from_last(res.ndim, 1))
        gcols = xp.matmul(wm.transpose(0, 2, 1), gym)  # (g, C/g * K, N * P)
        gcols = gcols.reshape((c,) + kernel + (n,) + outs)
        acc = xp.zeros((c, n) + padded, dtype=wide)
        for k in positions:
            acc[(slice(None), slice(None)) + tap(k, stride, dilation, outs)] += gcols[
                (slice(None),) + k
            ]
        return acc[(slice(None), slice(None)) + inner].swapaxes(0, 1)

    def depthwise_input_grad(
        gy: Any, w: Any, x_shape: Sequence[int], geo: tuple[Any, ...], wide: Any
    ) -> Any:
        """The input gradient of a depthwise convolution (one input and one output channel
        per group): per kernel position one multiply and one add of a contiguous run into
        the phases of the padded input (``phase_layout``), without the columns' gradient (K
        times the input's size) that col2im would fill; each phase then goes back to its
        elements of the input once (measured for (32, 64, 32, 32) float32, 3x3, stride 2:
        10.8 -> 2.5 ms; PyTorch 1.7)."""
        n, c = x_shape[:2]
        kernel = tuple(w.shape[2:])
        outs = tuple(gy.shape[2:])
        grid, reads, span, length, fills = phase_layout(x_shape[2:], kernel, geo, outs)
        n_ph = len(fills)
        lead = (slice(None), slice(None))
        valid = lead + tuple(slice(0, m) for m in outs)
        res = xp.empty(tuple(x_shape), dtype=wide)
        wk = w.astype(wide, copy=False).reshape(c, -1)
        cols = [wk[:, i].reshape(c, 1) for i in range(len(reads))]
        block = depthwise_block(n, c, n_ph * length)
        acc = xp.empty((block, c, n_ph, length), dtype=wide)
        # the gradient laid on the phase grid's rows (zeros past a row's outputs)
        gl = xp.zeros((block, c, outs[0]) + grid[1:], dtype=wide)
        tmp = xp.empty((block, c, span), dtype=wide)
        size = math.prod(grid)
        for s0 in range(0, n, block):
            b = min(block, n - s0)
            ab, gb, t = acc[:b], gl[:b], tmp[:b]
            ab[...] = 0
            gb[valid] = gy[s0 : s0 + b]
            g3 = gb.reshape(b, c, span)
            for (j, off), col in zip(reads, cols, strict=True):
                xp.multiply(g3, col, out=t)
                ab[:, :, j, off : off + span] += t
            rb = res[s0 : s0 + b]
            for j, ph, part in fills:
                rb[lead + part] = ab[:, :, j, :size].reshape((b, c) + grid)[lead + ph]
        return res

    def depthwise_weight_grad(
        gy: Any, x: Any, w_shape: Sequence[int], geo: tuple[Any, ...], wide: Any
    ) -> Any:
        """The weight gradient of a depthwise convolution: per kernel position one reduction
        ``sum(gy * shifted x)`` per channel, over the input laid out as ``phase_layout``
        does, with the gradient on the phase grid's rows (zeros past a row's outputs): the
        reductions run over contiguous runs, without the columns (K times the input) that
        im2col copies for a matmul of one-row groups (measured: 19 -> 6.5 ms for (32, 64, 32,
        32) float32 and 3x3; at stride 2, 9.0 -> 2.3 ms, PyTorch 1.5)."""
        n, c = x.shape[:2]
        kernel = tuple(w_shape[2:])
        outs = tuple(gy.shape[2:])
        grid, reads, span, length, fills = phase_layout(x.shape[2:], kernel, geo, outs)
        n_ph = len(fills)
        lead = (slice(None), slice(None))
        valid = lead + tuple(slice(0, m) for m in outs)
        # In blocks of samples laid out into buffers made once (on NumPy), as
        # ``flat_forward``: the kernel positions' reductions then read cached blocks.
        block = depthwise_block(n, c, n_ph * length)
        xf = xp.zeros((block, c, n_ph, length), dtype=wide)  # (the padding stays zero)
        gl = xp.zeros((block, c, outs[0]) + grid[1:], dtype=wide)
        gw = xp.zeros((c, len(reads)), dtype=wide)
        size = math.prod(grid)
        for s0 in range(0, n, block):
            b = min(block, n - s0)
            xb, gb = xf[:b], gl[:b]
            xs = x[s0 : s0 + b]
            for j, ph, part in fills:
                xb[:, :, j, :size].reshape((b, c) + grid)[lead + ph] = xs[lead + part]
            gb[valid] = gy[s0 : s0 + b]
            g3 = gb.reshape(b, c, span)
            for i, (j, off) in enumerate(reads):
                gw[:, i] += einsum("ncl,ncl->c", g3, xb[:, :, j, off : off + span])
        return gw.reshape(tuple(w_shape))

    def conv_weight_grad(
        gy: Any, x: Any, w_shape: Sequence[int], geo: tuple[Any, ...], wide: Any
    ) -> Any:
        groups = geo[3]
        if is_depthwise(w_shape, groups) and phases_fit(x.shape, geo):
            gw = depthwise_weight_grad(gy, x, w_shape, geo, wide)
            if bool(xp.isfinite(gw).all()):
                return gw
            # Its layout multiplies the zeros past each row's outputs by input elements: an
            # infinite one gives NaN (0 * inf) in kernel positions that never met it. The
            # columns below multiply the gradient's own positions only, as PyTorch's kernel.
        pw = pointwise_samples(x.astype(wide, copy=False), w_shape, geo)
        if pw is not None:
            gy3 = gy.astype(wide, copy=False).reshape(gy.shape[0], gy.shape[1], -1)
            gw = xp.matmul(gy3, pw[0].transpose(0, 2, 1))  # (N, O, C), one per sample
            return gw.sum(axis=0).reshape(tuple(w_shape))
        if flat_fits(x.shape, w_shape, geo, _FLAT_WASTE) and not is_depthwise(w_shape, groups):
            gw = flat_weight_grad(gy, x, w_shape, geo, wide)
            if bool(xp.isfinite(gw).all()):
                return gw
            # (a non-finite input: the columns below multiply the gradient's positions only)
        windows, outs, last = column_windows(x.astype(wide, copy=False), w_shape, geo)
        n = x.shape[0]
        gyw = gy.astype(wide, copy=False)
        gw = None
        # in blocks of samples whose columns stay in cache, as ``conv_forward``
        block = column_block(n, math.prod(outs) * math.prod(w_shape[1:]))
        for s0 in range(0, n, block):
            s1 = min(n, s0 + block)
            cols = columns(windows, last, s0, s1)
            gym = grad_matrix(gyw[s0:s1], groups, False)  # (g, O/g, b * P)
            part = xp.matmul(gym, cols if last else cols.transpose(0, 2, 1))
            if gw is None:
                gw = part
            else:
                gw += part
        if last:  # (g, O/g, K * C/g)
            gw = gw.reshape((w_shape[0],) + tuple(w_shape[2:]) + (w_shape[1],))
            return gw.transpose(from_last(gw.ndim, 1))
        return gw.reshape(tuple(w_shape))

    def convolution(
        out: Any,
        input: Any,
        weight: Any,
        bias: Any,
        stride: Any,
        padding: Any,
        dilation: Any,
        transposed: bool,
        output_padding: Any,
        groups: int,
    ) -> None:
        o = array_of(out)
        x, w = array_of(input), array_of(weight)
        wide = acc_dtype(xp, o.dtype)
        geo = (stride, padding, dilation, groups)
        direct = o.dtype == wide and writes_through_views(o)
        if transposed:
            # The transposed convolution is the input-gradient of the convolution that maps
            # the output's space to the input's.
            y = conv_input_grad(x, w, o.shape, geo, wide, o if direct else None)
        else:
            y = conv_forward(x, w, geo, wide, o if direct else None)
        b = None
        if bias is not None:
            b = array_of(bias).astype(wide, copy=False).reshape((1, -1) + (1,) * (o.ndim - 2))
        if y is o:
            if b is not None:
                o += b
        elif b is not None and writes_through_views(o):
            xp.add(y, b, out=o)  # (one pass, rounded once to o's dtype)
        else:
            o[...] = y if b is None else y + b

    def convolution_backward_input(
        out: Any,
        grad_output: Any,
        weight: Any,
        input_size: Any,
        stride: Any,
        padding: Any,
        dilation: Any,
        groups: int,
    ) -> None:
        o = array_of(out)
        wide = acc_dtype(xp, o.dtype)
        geo = (stride, padding, dilation, groups)
        # (written into ``o`` where a convolution computes it: no copy of the whole gradient)
        direct = o if o.dtype == wide and writes_through_views(o) else None
        gx = conv_input_grad(
            array_of(grad_output), array_of(weight), tuple(input_size), geo, wide, direct
        )
        if gx is not o:
            o[...] = gx

    def convolution_backward_weight(
        out: Any,
        grad_output: Any,
        input: Any,
        weight_size: Any,
        stride: Any,
        padding: Any,
        dilation: Any,
        groups: int,
    ) -> None:
        o = array_of(out)
        wide = acc_dtype(xp, o.dtype)
        geo = (stride, padding, dilation, groups)
        o[...] = conv_weight_grad(
            array_of(grad_output), array_of(input), tuple(weight_size), geo, wide
        )

    # ------------------------------------------------------------ pooling
    def pool_geometry(
        shape: Sequence[int],
        kernel: Any,
        stride: Any,
        padding: Any,
        dilation: Any,
        ceil_mode: bool,
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Output sizes and the right padding that the last (ceil-mode) window needs."""
        nd = len(kernel)
        outs = tuple(
            out_size(shape[2 + i], kernel[i], stride[i], padding[i], dilation[i], ceil_mode)
            for i in range(nd)
        )
        hi = tuple(
            max(
                padding[i],
                (outs[i] - 1) * stride[i]
                + dilation[i] * (kernel[i] - 1)
                + 1
                - shape[2 + i]
                - padding[i],
            )
            for i in range(nd)
        )
        return outs, hi

    # A pool's geometry per input shape and arguments (``pool_plan``): the Python arithmetic
    # and the small index arrays that would otherwise cost more than the passes themselves on
    # a small input (an (8, 16) plane: 25 of 45 us). Keyed by the arrays' device too, as the
    # index arrays live there.
    plans: dict[Any, Any] = {}

    def device_of(a: Any) -> Any:
        """The device an array lives on, hashable (None for NumPy's: CuPy's GPU number, or
        what another module's ``device`` says)."""
        if host:
            return None
        dev = getattr(a, "device", None)
        return getattr(dev, "id", dev)

    def pool_plan(
        x: Any, kernel: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool
    ) -> tuple[Any, ...]:
        """``(outs, hi, taps, offsets, base)`` of a max pool of ``x``: the output sizes, the
        right padding, each kernel position's slices of the padded input, the flat offset of
        each kernel position in the input's plane (an int64 array) and each window's start
        there (an int64 array of shape (1, 1, *outs))."""
        key = (x.shape[2:], kernel, stride, padding, dilation, ceil_mode, device_of(x))
        try:
            return plans[key]
        except KeyError:
            pass
        except TypeError:  # (arguments given as lists: the backward operators')
            key = (key[0], *(tuple(v) for v in key[1:5]), *key[5:])
            if key in plans:
                return plans[key]
        nd = len(kernel)
        outs, hi = pool_geometry(x.shape, kernel, stride, padding, dilation, ceil_mode)
        positions = list(itertools.product(*(range(kk) for kk in kernel)))
        lead = (slice(None), slice(None))
        taps = [lead + tap(pos, stride, dilation, outs) for pos in positions]
        plane = [math.prod(x.shape[3 + i :]) for i in range(nd)]
        offsets = [sum(pos[i] * dilation[i] * plane[i] for i in range(nd)) for pos in positions]
        base = xp.zeros((1, 1) + tuple(outs), dtype=xp.int64)
        for i in range(nd):
            shape = [1] * (2 + nd)
            shape[2 + i] = outs[i]
            start = xp.arange(outs[i], dtype=xp.int64) * stride[i] - padding[i]
            base += (start * plane[i]).reshape(shape)
        plan = (outs, hi, taps, xp.asarray(offsets, dtype=xp.int64), base)
        if len(plans) >= 256:
            plans.clear()
        plans[key] = plan
        return plan

    def max_pool2d_with_indices(
        out: Any,
        self: Any,
        kernel_size: Any,
        stride: Any,
        padding: Any,
        dilation: Any,
        ceil_mode: bool,
    ) -> None:
        values, indices = (array_of(t) for t in out)
        x = array_of(self)
        _outs, hi, taps, offsets, base = pool_plan(
            x, kernel_size, stride, padding, dilation, ceil_mode
        )
        # (the tensor's dtype decides: bfloat16 arrays are of NumPy kind "V")
        low = -xp.inf if self._dtype.is_floating_point else xp.iinfo(x.dtype).min
        xpad = pad(x, padding, hi, low)
        # Passes over output-sized arrays, one per kernel position (a strided slice of the
        # padded input), never a copy of the windows: the maximum (NaN if any, as PyTorch's),
        # then the first position holding it (from the last position back), and for a window
        # with NaN its last NaN (PyTorch's CPU kernel takes a later element if greater or NaN).
        views = [xpad[t] for t in taps]
        if len(views) == 1:
            best = views[0].copy()
        else:
            best = xp.maximum(views[0], views[1])
            for v in views[2:]:
                xp.maximum(best, v, out=best)
        kt = xp.int16 if len(views) < 2**15 else xp.int64
        last = len(views) - 1
        if last:
            # (arithmetic, not ``where`` or a masked ``copyto``: those take 3 to 4 times as
            # long on NumPy)
            k = xp.subtract(kt(last), views[last - 1] == best, dtype=kt)
            for flat in range(last - 2, -1, -1):
                k -= (views[flat] == best) * (k - kt(flat))
        else:
            k = xp.zeros(best.shape, dtype=kt)
        if x.dtype.kind in "fcV":
            nan = xp.isnan(best)
            # (Reading ``any`` waits for the device off NumPy: there the pass always runs.)
            if not host or nan.any():
                lastnan = xp.zeros(best.shape, dtype=kt)
                for flat, v in enumerate(views):
                    lastnan = xp.where(xp.isnan(v), kt(flat), lastnan)
                k = xp.where(nan, lastnan, k)
        values[...] = best
        # The flat index into the input's spatial plane: the window's start plus the offset
        # of its position k (a table of one entry per kernel position).
        index = offsets[k]
        index += base
        indices[...] = index

    def max_pool2d_with_indices_backward(
        out: Any,
        grad_output: Any,
        self: Any,
        kernel_size: Any,
        stride: Any,
        padding: Any,
        dilation: Any,
        ceil_mode: bool,
        indices: Any,
    ) -> None:
        o = array_of(out)
        g, idx = array_of(grad_output), array_of(indices)
        n, c = o.shape[:2]
        plane = math.prod(o.shape[2:])
        base = (xp.arange(n * c, dtype=xp.int64) * plane).reshape(n, c, *([1] * (idx.ndim - 2)))
        flat = (idx + base).ravel()
        wide = acc_dtype(xp, o.dtype)
        total = xp.zeros(n * c * plane, dtype=wide)
        try:  # (overlapping windows may route several gradients to one element)
            xp.add.at(total, flat, g.ravel().astype(wide, copy=False))
        except (AttributeError, TypeError, NotImplementedError):  # (no such loop: a bin count)
            total = xp.bincount(flat, weights=g.ravel().astype(xp.float64), minlength=total.size)
        o[...] = total.reshape(o.shape)

    def avg_divisor(
        shape: Sequence[int],
        kernel: Any,
        stride: Any,
        padding: Any,
        ceil_mode: bool,
        count_include_pad: bool,
        divisor_override: Any,
        outs: Sequence[int],
        hi: Sequence[int],
        wide: Any,
    ) -> Any:
        nd = len(kernel)
        if divisor_override is not None:
            return divisor_override
        if hi == tuple(padding) and (count_include_pad or not any(padding)):
            # Every window lies inside the padded input and all of it counts: the kernel's
            # size everywhere (what the sum below gives, without its passes).
            return math.prod(kernel)
        ones = xp.ones((1, 1) + tuple(shape[2:]), dtype=wide)
        if count_include_pad:
            # Padding counts; the extra right padding of a ceil-mode window does not.
            ones = pad(ones, padding, padding, 1.0)
            extra = tuple(max(0, h - p) for h, p in zip(hi, padding, strict=True))
            ones = pad(ones, (0,) * nd, extra, 0.0)
        else:
            ones = pad(ones, padding, hi, 0.0)
        win = windows(ones, kernel, stride, (1,) * nd, outs)
        return win.sum(axis=tuple(range(2 + nd, 2 + 2 * nd)))

    def strided_window_sum(xw: Any, kernel: Sequence[int], taps: Sequence[Any]) -> Any:
        """The sums over the windows of ``xw`` (padded) as strided slices, one per kernel
        position (``taps``, in row-major order of the kernel positions: ``pool_plan``'s), in
        the order of NumPy's sum over the windows view (the last kernel axis first, each one
        sequentially: the same bits where every kernel size is below 8, past which NumPy's
        reduction splits its loop, and where ``xw`` is C-contiguous: NumPy orders its loops
        by the strides), without the time that reduction spends iterating over short strided
        axes (a tenth of it for 2 x 2 windows)."""
        nd = len(kernel)

        def part(first: int, level: int) -> Any:
            """The sum of the block of taps from ``first`` that share their positions on the
            kernel axes before ``level``."""
            if level == nd:
                return xw[taps[first]]
            block = math.prod(kernel[level + 1 :])
            acc = None
            for i in range(kernel[level]):
                p = part(first + i * block, level + 1)
                if acc is None:
                    acc = p
                elif acc.base is None:  # a fresh sum: add in place
                    acc += p
                else:
                    acc = acc + p
            return acc

        total = part(0, 0)
        return total if total.base is None else total.copy()

    def avg_pool2d(
        out: Any,
        self: Any,
        kernel_size: Any,
        stride: Any,
        padding: Any,
        ceil_mode: bool,
        count_include_pad: bool,
        divisor_override: Any,
    ) -> None:
        o = array_of(out)
        x = array_of(self)
        nd = len(kernel_size)
        wide = acc_dtype(xp, o.dtype)
        outs, hi, taps = pool_plan(x, kernel_size, stride, padding, (1,) * nd, ceil_mode)[:3]
        xw = pad(x.astype(wide, copy=False), padding, hi)
        if 1 < len(taps) <= _AVG_TAPS and max(kernel_size) < 8 and writes_through_views(xw):
            total = strided_window_sum(xw, kernel_size, taps)
        else:
            win = windows(xw, kernel_size, stride, (1,) * nd, outs)
            total = win.sum(axis=tuple(range(2 + nd, 2 + 2 * nd)))
        div = avg_divisor(
            x.shape,
            kernel_size,
            stride,
            padding,
            ceil_mode,
            count_include_pad,
            divisor_override,
            outs,
            hi,
            wide,
        )
        o[...] = total / div

    def avg_pool2d_backward(
        out: Any,
        grad_output: Any,
        self: Any,
        kernel_size: Any,
        stride: Any,
        padding: Any,
        ceil_mode: bool,
        count_include_pad: bool,
        divisor_override: Any,
    ) -> None:
        o = array_of(out)
        g = array_of(grad_output)
        nd = len(kernel_size)
        wide = acc_dtype(xp, o.dtype)
        shape = o.shape
        outs, hi = pool_geometry(shape, kernel_size, stride, padding, (1,) * nd, ceil_mode)
        div = avg_divisor(
            shape,
            kernel_size,
            stride,
            padding,
            ceil_mode,
            count_include_pad,
            divisor_override,
            outs,
            hi,
            wide,
        )
        if o.dtype.kind in "iu":  # each share truncated toward zero, as integer division
            share = xp.trunc(g / div).astype(wide).reshape(g.shape + (1,) * nd)
        else:
            share = (g.astype(wide, copy=False) / div).reshape(g.shape + (1,) * nd)
        cols = xp.broadcast_to(share, g.shape + tuple(kernel_size))
        extra = tuple(h - p for h, p in zip(hi, padding, strict=True))
        # col2im pads both sides by ``padding``; a ceil-mode window may reach further right.
        big = tuple(shape[:2]) + tuple(shape[2 + i] + max(0, extra[i]) for i in range(nd))
        acc = col2im(cols, big, kernel_size, (stride, padding, (1,) * nd), outs, wide)
        o[...] = acc[(slice(None), slice(None)) + tuple(slice(0, s) for s in shape[2:])]

    # ------------------------------------------------------------ normalisation
    numpy = getattr(xp, "errstate", None) is not None

    def mean(a: Any, axes: tuple[int, ...]) -> Any:
        """``a.mean(axis=axes, keepdims=True)``; on NumPy the sum and the division it makes,
        without its Python wrapper (a third of a small layer norm's time)."""
        if not numpy:
            return a.mean(axis=axes, keepdims=True)
        s = xp.add.reduce(a, axis=axes, keepdims=True)
        s /= math.prod(a.shape[i] for i in axes)
        return s

    def stats(x: Any, axes: tuple[int, ...], eps: float) -> tuple[Any, Any, Any, Any]:
        """``(x - mean) * rstd``, ``rstd``, the mean and the (biased) variance over
        ``axes``."""
        mu = mean(x, axes)
        xc = x - mu
        sq = xc * xc
        var = mean(sq, axes)
        rstd = 1.0 / xp.sqrt(var + eps)
        xc *= rstd
        return xc, rstd, mu, var

    def norm_backward(
        g: Any, xhat: Any, rstd: Any, w: Any, axes: tuple[int, ...], batch: tuple[int, ...]
    ) -> tuple[Any, Any, Any]:
        """The gradients with respect to ``x``, the weight ``w`` (None: none) and the bias of
        ``y = xhat * w + b``, ``xhat = (x - mean(x)) * rstd`` (statistics over ``axes``; the
        weight and bias broadcast over ``batch``). ``g * xhat`` serves both the weight's
        gradient and the input's, and the temporaries are updated in place (a pass over a
        large temporary costs as much as the arithmetic)."""
        gx_hat = g * xhat
        gw = gx_hat.sum(axis=batch)
        gb = g.sum(axis=batch)
        if w is not None:
            gx_hat *= w
            gxhat = g * w
        else:
            gxhat = g
        b = mean(gx_hat, axes)
        a = mean(gxhat, axes)
        gx = xhat * b  # (the product's buffer, reused: gx = (gxhat - a - xhat * b) * rstd)
        gx -= gxhat
        gx += a
        gx *= -rstd
        return gx, gw, gb

    def row_blocks(n: int, *arrays: Any) -> Any:
        """The rows of ``(rows, n)`` views of C-contiguous ``arrays`` (one shape), in blocks
        of about ``_ROW_BLOCK`` elements, or None where a view is not possible (not NumPy,
        another layout). A layer norm's statistics are per row, so a block computes what the
        whole array would, bit for bit; its temporaries are then small enough for malloc's
        heap, where whole-array ones are fresh pages from the OS on every call (page faults
        took 60% of a (2560, 256) float32 backward). (The forward makes no whole-array
        temporary: it takes blocks only above ``_LARGE_ROWS``, for the cache.)"""
        if not numpy or not n or any(not a.flags.c_contiguous for a in arrays):
            return None
        rows = arrays[0].size // n
        flat = [a.reshape(rows, n) for a in arrays]
        step = max(1, _ROW_BLOCK // n)
        return [[a[i : i + step] for a in flat] for i in range(0, rows, step)]

    def normalized_rows(x2: Any, y2: Any, eps: float, mu: Any, rstd: Any) -> None:
        """``y2 = (x2 - mean) * rstd`` row by row of the (rows, n) views, the row sums as
        contractions (NumPy's reduction over short rows measured 3-4 times slower than
        einsum's, and no temporary), the rows' ``mean`` and ``rstd`` written into the (rows,)
        arrays given."""
        n = x2.shape[1]
        xp.divide(einsum("ij->i", x2), n, out=mu)
        xp.subtract(x2, mu[:, None], out=y2)
        xp.divide(einsum("ij,ij->i", y2, y2), n, out=rstd)
        rstd += eps
        xp.sqrt(rstd, out=rstd)
        xp.reciprocal(rstd, out=rstd)
        y2 *= rstd[:, None]

    def stat_rows(dest: Any, rows: int, dtype: Any) -> Any:
        """A saved statistic ``dest`` (None: not asked for) as a (rows,) array that writes
        into it, or a fresh one (then copied into ``dest`` at the end)."""
        if dest is not None:
            d = array_of(dest)
            if writes_through_views(d):
                return d.reshape(rows)
        return xp.empty(rows, dtype=dtype)

    def put_stats(dest: Any, values: Any) -> None:
        """Write the statistics ``values`` into the saved statistic ``dest`` (None: not asked
        for)."""
        if dest is not None:
            d = array_of(dest)
            d[...] = values.reshape(d.shape)

    def layer_norm(
        out: Any, input: Any, normalized_shape: Any, weight: Any, bias: Any, eps: float
    ) -> None:
        native_layer_norm((out, None, None), input, normalized_shape, weight, bias, eps)

    def native_layer_norm(
        out: Any, input: Any, normalized_shape: Any, weight: Any, bias: Any, eps: float
    ) -> None:
        # (``out``'s statistics None: ``layer_norm``'s call, which saves none)
        out, mean_o, rstd_o = out
        o = array_of(out)
        wide = acc_dtype(xp, o.dtype)
        x = array_of(input).astype(wide, copy=False)
        axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
        # ``stats``' operations, in the result's memory where it has the computing dtype:
        # one temporary (the squares) instead of three and the final copy.
        y = o if o.dtype == wide else xp.empty(x.shape, dtype=wide)
        n = math.prod(x.shape[i] for i in axes)
        if n and writes_through_views(x) and writes_through_views(y):
            # Rows as (rows, n) views (normalized_rows: no temporary); an array larger than
            # the CPU's caches in blocks of rows, so that the passes after the first find
            # their block in cache (the same bits: a row's statistics are its own; a
            # (32768, 1024) float32 forward measured 100 -> 74 ms, smaller ones no faster).
            wv = array_of(weight).reshape(n) if weight is not None else None
            bv = array_of(bias).reshape(n) if bias is not None else None
            blocks = row_blocks(n, x, y) if x.size > _LARGE_ROWS else None
            rows = x.size // n
            mus, rstds = stat_rows(mean_o, rows, wide), stat_rows(rstd_o, rows, wide)
            r0 = 0
            for x2, y2 in blocks or [(x.reshape(-1, n), y.reshape(-1, n))]:
                k = x2.shape[0]
                normalized_rows(x2, y2, eps, mus[r0 : r0 + k], rstds[r0 : r0 + k])
                r0 += k
                if wv is not None:
                    y2 *= wv
                if bv is not None:
                    y2 += bv
            if y is not o:
                o[...] = y
            for dest, v in ((mean_o, mus), (rstd_o, rstds)):
                if dest is not None and not writes_through_views(array_of(dest)):
                    put_stats(dest, v)  # (else stat_rows wrote there)
            return
        mu = mean(x, axes)
        xp.subtract(x, mu, out=y)
        rstd = mean(y * y, axes)
        rstd += eps
        xp.sqrt(rstd, out=rstd)
        xp.reciprocal(rstd, out=rstd)
        y *= rstd
        put_stats(mean_o, mu)
        put_stats(rstd_o, rstd)
        if weight is not None:
            y *= array_of(weight)
        if bias is not None:
            y += array_of(bias)
        if y is not o:
            o[...] = y

    def layer_norm_backward(
        out: Any,
        grad_output: Any,
        input: Any,
        normalized_shape: Any,
        weight: Any,
        eps: float,
        mean: Any = None,
        rstd: Any = None,
    ) -> None:
        # ``mean``/``rstd``: the forward's row statistics (native_layer_norm's), read instead
        # of the centring pass and the sums of the input and its squares; None: recomputed.
        gx_o, gw_o, gb_o = (array_of(t) for t in out)
        wide = acc_dtype(xp, gx_o.dtype)
        x = array_of(input).astype(wide, copy=False)
        g = array_of(grad_output).astype(wide, copy=False)
        nd = len(normalized_shape)
        axes = tuple(range(x.ndim - nd, x.ndim))
        batch = tuple(range(x.ndim - nd))
        n = math.prod(x.shape[i] for i in axes)
        blocks = row_blocks(n, gx_o, x, g) if gx_o.dtype == wide else None
        if blocks is not None and gw_o.dtype == wide:
            # Per block of rows (a row's statistics are its own); the weight's and bias's
            # gradients add the blocks' sums.
            w = array_of(weight).reshape(n) if weight is not None else None
            gw, gb = gw_o.reshape(n), gb_o.reshape(n)
            gw[...] = 0
            gb[...] = 0
            if not blocks:  # (no rows: an empty batch)
                return
            scratch = xp.empty(blocks[0][0].shape, dtype=wide)
            saved = None
            if mean is not None:
                saved = (array_of(mean).reshape(-1), array_of(rstd).reshape(-1))
            r0 = 0
            for ob, xb, gg in blocks:
                # gx = rstd * (g * w - mean(g * w) - c * rstd * mean(g * w * c) * rstd), with c
                # the centred input in the gradient's block and g * c made once in a scratch
                # block: five elementwise passes besides the centring. The row sums are
                # contractions (a row's bits do not depend on its block: BLAS's matrix-vector
                # product sums rows differently by their place), the weight's gradient a
                # matrix-vector product of g * c and rstd.
                k = ob.shape[0]
                tmp = scratch[:k]
                if saved is not None:
                    xp.subtract(xb, saved[0][r0 : r0 + k, None], out=ob)
                    rs = saved[1][r0 : r0 + k]
                else:
                    xp.subtract(xb, (einsum("ij->i", xb) / n)[:, None], out=ob)
                    rs = einsum("ij,ij->i", ob, ob)
                    rs /= n
                    rs += eps
                    xp.sqrt(rs, out=rs)
                    xp.reciprocal(rs, out=rs)
                r0 += k
                xp.multiply(gg, ob, out=tmp)
                gw += tmp.T @ rs
                gb += gg.sum(axis=0)
                am = einsum("ij->i", gg) if w is None else einsum("ij,j->i", gg, w)
                am /= n
                bm = einsum("ij->i", tmp) if w is None else einsum("ij,j->i", tmp, w)
                bm *= rs * rs / -n
                ob *= bm[:, None]
                ob -= am[:, None]
                if w is None:
                    ob += gg
                else:
                    xp.multiply(gg, w, out=tmp)
                    ob += tmp
                ob *= rs[:, None]
            return
        if mean is not None:
            rs = array_of(rstd)
            xhat = (x - array_of(mean)) * rs
        else:
            xhat, rs = stats(x, axes, eps)[:2]
        w = array_of(weight) if weight is not None else None
        gx_o[...], gw_o[...], gb_o[...] = norm_backward(g, xhat, rs, w, axes, batch)

    def channel_shape(x: Any) -> tuple[int, ...]:
        return (1, x.shape[1]) + (1,) * (x.ndim - 2)

    def channel_rows(*arrays: Any) -> list[Any] | None:
        """``arrays`` (one shape (N, C, *spatial), C-contiguous) as (N, C, L) views, or None
        where one is not (channels last, dask's arrays): a batch norm's per-channel sums
        are then ``einsum`` contractions over N and L that read the arrays in place. A
        whole-array temporary costs a pass of page faults besides its arithmetic (each
        (32, 32, 32, 32) float32 one about as much as the sum itself), so the batch norm
        below writes its one centred copy into its output's memory and takes every other
        sum as a contraction, where reducing over (0, 2, 3) made five temporaries."""
        if not all(writes_through_views(a) for a in arrays):
            return None
        n, c = arrays[0].shape[:2]
        return [a.reshape(n, c, -1) for a in arrays]

    def channel_plane(v: Any, length: int) -> Any:
        """Per-channel values ``v`` (C,) repeated over a channel's ``length`` positions: a
        (C * length,) row that broadcasts over the samples of an (N, C * length) view. An
        operation with it runs contiguous inner loops over whole samples, where ``v[:, None]``
        against (N, C, L) ran one per channel (measured 1.3 to 2 times faster per pass at
        (32, 16, 32, 32) and (8, 256, 8, 8) float32)."""
        p = xp.empty((v.shape[0], length), dtype=v.dtype)
        p[...] = v[:, None]
        return p.reshape(-1)

    def batch_norm(
        out: Any,
        input: Any,
        weight: Any,
        bias: Any,
        running_mean: Any,
        running_var: Any,
        training: bool,
        momentum: float,
        eps: float,
    ) -> None:
        native_batch_norm(
            (out, None, None), input, weight, bias, running_mean, running_var, training,
            momentum, eps,
        )  # fmt: skip

    def native_batch_norm(
        out: Any,
        input: Any,
        weight: Any,
        bias: Any,
        running_mean: Any,
        running_var: Any,
        training: bool,
        momentum: float,
        eps: float,
    ) -> None:
        # (``out``'s statistics None: ``batch_norm``'s call, which saves none; empty when not
        # training)
        out, mean_o, rstd_o = out
        o = array_of(out)
        if o.size == 0:  # (PyTorch's: nothing to normalise, the running statistics untouched)
            return
        wide = acc_dtype(xp, o.dtype)
        x = array_of(input).astype(wide, copy=False)
        axes = (0, *range(2, x.ndim))
        cs = channel_shape(x)
        rows = channel_rows(x, o) if training and o.dtype == wide else None
        if rows is not None:
            x3, y3 = rows
            m = x.size // x.shape[1]
            flat, length = (x3.shape[0], x3.shape[1] * x3.shape[2]), x3.shape[2]
            y2 = y3.reshape(flat)
            mu = einsum("ncl->c", x3) / m
            xp.subtract(x3.reshape(flat), channel_plane(mu, length), out=y2)
            var = einsum("ncl,ncl->c", y3, y3) / m
            rstd = 1.0 / xp.sqrt(var + eps)
            scale = rstd * array_of(weight) if weight is not None else rstd
            y2 *= channel_plane(scale, length)
            if bias is not None:
                y2 += channel_plane(array_of(bias).astype(wide, copy=False), length)
        elif training:
            y, rstd, mu, var = stats(x, axes, eps)
        else:
            # Evaluation: one fused ``x * s + t`` per channel (PyTorch's form), with
            # ``s = weight / sqrt(var + eps)`` and ``t = bias - mean * s`` computed per channel
            # in the compute dtype, written straight into ``out`` where it has that dtype (and
            # is an array that ``out=`` writes into: not dask's).
            rm = array_of(running_mean).astype(wide, copy=False).reshape(-1)
            s = 1 / xp.sqrt(array_of(running_var).astype(wide, copy=False).reshape(-1) + eps)
            if weight is not None:
                s = s * array_of(weight).astype(wide, copy=False).reshape(-1)
            t = -rm * s
            if bias is not None:
                t += array_of(bias).astype(wide, copy=False).reshape(-1)
            direct = o.dtype == wide and writes_through_views(o)
            if direct and writes_through_views(x) and not shares_storage(out, input):
                length = math.prod(x.shape[2:])
                flat = (x.shape[0], x.shape[1] * length)
                o2 = o.reshape(flat)
                xp.multiply(x.reshape(flat), channel_plane(s, length), out=o2)
                o2 += channel_plane(t, length)
                return
            s, t = s.reshape(cs), t.reshape(cs)
            if direct and not shares_storage(out, input):
                xp.multiply(x, s, out=o)
                o += t
            else:
                y = x * s
                y += t
                o[...] = y
            return
        if rows is None:
            if weight is not None:
                y *= array_of(weight).reshape(cs)
            if bias is not None:
                y += array_of(bias).reshape(cs)
            o[...] = y
        if training:
            put_stats(mean_o, mu)
            put_stats(rstd_o, rstd)
        if training and (running_mean is not None or running_var is not None):
            # Last, after everything else: the running statistics (the variance unbiased),
            # from the batch's statistics above. As PyTorch, the update leaves their version
            # counters alone: a module called twice before one backward (a siamese network)
            # saved them at its first call, and training's backward never reads them.
            n = x.size // x.shape[1]
            if running_mean is not None:
                rm_o = array_of(running_mean)
                rm_o *= 1 - momentum
                rm_o += mu.reshape(-1) * momentum
            if running_var is not None:
                rv_o = array_of(running_var)
                rv_o *= 1 - momentum
                rv_o += var.reshape(-1) * (n / (n - 1) * momentum)

    def batch_norm_backward(
        out: Any,
        grad_output: Any,
        input: Any,
        weight: Any,
        running_mean: Any,
        running_var: Any,
        training: bool,
        eps: float,
        save_mean: Any = None,
        save_invstd: Any = None,
    ) -> None:
        # ``save_mean``/``save_invstd``: the forward's batch statistics (native_batch_norm's),
        # read instead of the sum, the centring pass and the sum of squares; None: recomputed.
        gx_o, gw_o, gb_o = (array_of(t) for t in out)
        if gx_o.size == 0:  # (an empty input: no element depends on the parameters)
            gw_o[...] = 0
            gb_o[...] = 0
            return
        wide = acc_dtype(xp, gx_o.dtype)
        x = array_of(input).astype(wide, copy=False)
        g = array_of(grad_output).astype(wide, copy=False)
        axes = (0, *range(2, x.ndim))
        cs = channel_shape(x)
        w = array_of(weight).reshape(cs) if weight is not None else None
        rows = channel_rows(x, g, gx_o) if training and gx_o.dtype == wide else None
        if rows is not None:
            # gx = w * rstd * (g - mean(g) - xhat * mean(g * xhat)) = a * (g + k * c - gb / m)
            # per channel, c the centred input, which sits in gx's memory until the end: four
            # in-place passes and no temporary (``g * a`` was a fresh whole-array one).
            x3, g3, c3 = rows
            m = x.size // x.shape[1]
            flat, length = (x3.shape[0], x3.shape[1] * x3.shape[2]), x3.shape[2]
            c2 = c3.reshape(flat)
            if save_mean is not None:
                mu, rstd = array_of(save_mean), array_of(save_invstd)
                xp.subtract(x3.reshape(flat), channel_plane(mu, length), out=c2)
            else:
                mu = einsum("ncl->c", x3) / m
                xp.subtract(x3.reshape(flat), channel_plane(mu, length), out=c2)
                rstd = 1.0 / xp.sqrt(einsum("ncl,ncl->c", c3, c3) / m + eps)
            gb = einsum("ncl->c", g3)
            gw = einsum("ncl,ncl->c", g3, c3) * rstd
            a = rstd if w is None else rstd * w.reshape(-1)
            c2 *= channel_plane(-rstd * gw / m, length)
            c2 += g3.reshape(flat)
            c2 -= channel_plane(gb / m, length)
            c2 *= channel_plane(a, length)
            gw_o[...], gb_o[...] = gw, gb
            return
        if training:
            if save_mean is not None:
                rstd = array_of(save_invstd).reshape(cs)
                xhat = (x - array_of(save_mean).reshape(cs)) * rstd
            else:
                xhat, rstd = stats(x, axes, eps)[:2]
            gx_o[...], gw_o[...], gb_o[...] = norm_backward(g, xhat, rstd, w, axes, axes)
            return
        rm = array_of(running_mean).astype(wide, copy=False).reshape(cs)
        rstd = 1.0 / xp.sqrt(array_of(running_var).astype(wide, copy=False).reshape(cs) + eps)
        xhat = (x - rm) * rstd
        gx_o[...] = (g * w if w is not None else g) * rstd
        gw_o[...] = (g * xhat).sum(axis=axes)
        gb_o[...] = g.sum(axis=axes)

    def native_group_norm(
        out: Any,
        input: Any,
        weight: Any,
        bias: Any,
        N: int,
        C: int,
        HxW: int,
        group: int,
        eps: float,
    ) -> None:
        # Each (sample, group) is one row of N * group rows of C / group * HxW values: the
        # layer norm's statistics (the sums as contractions), the centred rows written into
        # the result, which is then scaled by rstd * weight per (sample, channel) in one pass
        # and shifted by the bias as a (C * HxW,) plane over the samples (``channel_plane``):
        # five passes.
        out, mean_o, rstd_o = out
        o = array_of(out)
        wide = acc_dtype(xp, o.dtype)
        rows, cg = N * group, C // group
        d = cg * HxW
        # (a reshape copies a channels-last input into the row-major order)
        x2 = array_of(input).astype(wide, copy=False).reshape(rows, d)
        direct = o.dtype == wide and writes_through_views(o)
        y2 = o.reshape(rows, d) if direct else xp.empty((rows, d), dtype=wide)
        mus, rstds = stat_rows(mean_o, rows, wide), stat_rows(rstd_o, rows, wide)
        w = array_of(weight).astype(wide, copy=False) if weight is not None else None
        if d and writes_through_views(x2) and writes_through_views(y2):
            xp.divide(einsum("ij->i", x2), d, out=mus)
            xp.subtract(x2, mus[:, None], out=y2)
            xp.divide(einsum("ij,ij->i", y2, y2), d, out=rstds)
            rstds += eps
            xp.sqrt(rstds, out=rstds)
            xp.reciprocal(rstds, out=rstds)
            if w is None:
                y2 *= rstds[:, None]
            else:
                y3 = y2.reshape(rows, cg, HxW)
                y3 *= (rstds.reshape(N, group, 1) * w.reshape(group, cg)).reshape(rows, cg, 1)
        else:  # (dask's arrays; no positions: nan statistics, as PyTorch's)
            xhat, rs, mu = stats(x2, (1,), eps)[:3]
            y2[...] = xhat
            mus[...], rstds[...] = mu.reshape(rows), rs.reshape(rows)
            if not d:
                mus[...] = 0  # (PyTorch's mean of no values; the rstd is nan)
            if w is not None:
                y2[...] = (y2.reshape(N, C, HxW) * w[:, None]).reshape(rows, d)
        if N and bias is not None:
            plane = channel_plane(array_of(bias).astype(wide, copy=False), HxW)
            if writes_through_views(y2):
                ys = y2.reshape(N, C * HxW)
                ys += plane
            else:
                y2[...] = (y2.reshape(N, C * HxW) + plane).reshape(rows, d)
        if not direct:
            o[...] = y2.reshape(o.shape)
        for dest, v in ((mean_o, mus), (rstd_o, rstds)):
            if dest is not None and not writes_through_views(array_of(dest)):
                put_stats(dest, v)  # (else stat_rows wrote there)

    def native_group_norm_backward(
        out: Any,
        grad_out: Any,
        input: Any,
        mean: Any,
        rstd: Any,
        weight: Any,
        N: int,
        C: int,
        HxW: int,
        group: int,
        output_mask: Any,
    ) -> None:
        # (an output not asked for in output_mask is None: the core made no tensor for it)
        gx_o, gw_o, gb_o = (None if t is None else array_of(t) for t in out)
        x0 = array_of(input)
        wide = acc_dtype(xp, x0.dtype)
        x = x0.astype(wide, copy=False).reshape(N, C, HxW)
        g = array_of(grad_out).astype(wide, copy=False).reshape(N, C, HxW)
        cg = C // group
        mu = array_of(mean).astype(wide, copy=False).reshape(N, group)
        rs = array_of(rstd).astype(wide, copy=False).reshape(N, group)
        # Per (sample, channel): the sums of g * x and of g, from which every gradient
        # follows (two reading passes), the group's statistics repeated over its channels.
        gxs = einsum("nch,nch->nc", g, x)
        gs = einsum("nch->nc", g)
        mu_c, rs_c = xp.repeat(mu, cg, axis=1), xp.repeat(rs, cg, axis=1)
        if gb_o is not None:
            gb_o[...] = gs.sum(axis=0)
        if gw_o is not None:  # sum over the samples of g * (x - mean) * rstd
            gw_o[...] = ((gxs - gs * mu_c) * rs_c).sum(axis=0)
        if gx_o is None:
            return
        w = array_of(weight).astype(wide, copy=False) if weight is not None else None
        # gx = g * w * rstd + x * k + j per group, with (d the group's size)
        # k = (mean * sum(g w) - sum(g w x)) * rstd^3 / d, j = -(k * mean + sum(g w) * rstd / d)
        gwx = (gxs * w if w is not None else gxs).reshape(N, group, cg).sum(axis=2)
        gw_ = (gs * w if w is not None else gs).reshape(N, group, cg).sum(axis=2)
        d = cg * HxW
        k = (mu * gw_ - gwx) * (rs * rs * rs) / d
        j = -(k * mu + gw_ * rs / d)
        a = rs_c * w if w is not None else rs_c
        direct = gx_o.dtype == wide and writes_through_views(gx_o)
        gx = gx_o.reshape(N, C, HxW) if direct else xp.empty((N, C, HxW), dtype=wide)
        if d and not writes_through_views(gx):
            # Arrays that are values (dask's): the blocks' out= views would not reach gx, so
            # one expression, assigned whole below.
            gx = (x.reshape(N, group, d) * k[:, :, None] + j[:, :, None]).reshape(
                N, C, HxW
            ) + g * a[:, :, None]
        elif d:
            # In blocks of samples, so that the scratch product ``g * a`` stays in the
            # CPU's cache (a whole-array temporary costs a pass of page faults).
            step = max(1, _ROW_BLOCK // (C * HxW) if numpy else N)  # (N may be 0)
            scratch = xp.empty((min(step, N), C, HxW), dtype=wide)
            for i in range(0, N, step):
                s_ = slice(i, i + step)
                gx4, t = gx[s_].reshape(-1, group, d), scratch[: gx[s_].shape[0]]
                xp.multiply(x[s_].reshape(-1, group, d), k[s_, :, None], out=gx4)
                gx4 += j[s_, :, None]
                xp.multiply(g[s_], a[s_, :, None], out=t)
                gx[s_] += t
        if not direct:
            gx_o[...] = gx.reshape(gx_o.shape)

    # ------------------------------------------------------------ linear
    def as_2d(a: Any) -> Any:
        return a.reshape(-1, a.shape[-1]) if a.ndim != 2 else a

    def linear(out: Any, input: Any, weight: Any, bias: Any) -> None:
        o = array_of(out)
        x, w = array_of(input), array_of(weight)
        wide = acc_dtype(xp, o.dtype)
        if wide != o.dtype:  # 16-bit floats: compute in float32
            x, w = x.astype(wide), w.astype(wide)
            y = as_2d(x) @ w.T
            if bias is not None:
                y += array_of(bias).astype(wide)
            o[...] = y.reshape(o.shape)
            return
        if writes_through_views(o):  # (then its 2-D reshape is a view)
            # (NumPy's matmul and then the bias, not SciPy's gemm with the bias as its C
            # operand: see helpers.axpy on mixing the two libraries' BLAS thread pools)
            xp.matmul(as_2d(x), w.T, out=as_2d(o))
        else:
            o[...] = (as_2d(x) @ w.T).reshape(o.shape)
        if bias is not None:
            xp.add(o, array_of(bias), out=o)  # (an augmented assignment may rebind o)

    def linear_backward(
        out: Any, grad_output: Any, input: Any, weight: Any, output_mask: Any
    ) -> None:
        # (an output not asked for in output_mask is None: the core made no tensor for it)
        gx_o, gw_o, gb_o = (None if t is None else array_of(t) for t in out)
        if gx_o is None and gw_o is None and gb_o is None:
            return
        g, x, w = array_of(grad_output), array_of(input), array_of(weight)
        odtype = array_of(next(t for t in out if t is not None)).dtype
        wide = acc_dtype(xp, odtype)
        if wide != odtype:
            g, x, w = g.astype(wide), x.astype(wide), w.astype(wide)
        complex_ = odtype.kind == "c"
        g2 = as_2d(g)
        direct = odtype == g.dtype  # results written in place, without a temporary
        if gx_o is not None:
            wc = w.conj() if complex_ else w
            if direct and writes_through_views(gx_o):
                xp.matmul(g2, wc, out=as_2d(gx_o))
            else:
                gx_o[...] = (g2 @ wc).reshape(gx_o.shape)
        if gw_o is not None:
            x2 = as_2d(x)
            xc = x2.conj() if complex_ else x2
            if direct and writes_through_views(gw_o):
                xp.matmul(g2.T, xc, out=gw_o)
            else:
                gw_o[...] = g2.T @ xc
        if gb_o is not None:
            gb_o[...] = g2.sum(axis=0)

    kernels: list[Callable[..., None]] = [
        linear, linear_backward,
        layer_norm, native_layer_norm, layer_norm_backward, batch_norm, native_batch_norm,
        batch_norm_backward, native_group_norm, native_group_norm_backward, convolution,
        convolution_backward_input, convolution_backward_weight, max_pool2d_with_indices,
        max_pool2d_with_indices_backward, avg_pool2d, avg_pool2d_backward,
    ]  # fmt: skip
    return {k.__name__: quiet(k) for k in kernels}
