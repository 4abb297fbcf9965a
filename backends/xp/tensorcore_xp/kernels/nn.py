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
    blas_functions,
    quiet_tokens,
    writes_through_views,
)

__all__ = ["build"]

#: Elements per block of rows in the NumPy layer norm backward (``row_blocks``): float32
#: temporaries of 256 KiB.
_ROW_BLOCK = 1 << 16
#: Whether a depthwise convolution takes its own paths (``depthwise_forward``, the stride-1
#: weight gradient ``depthwise_weight_grad``) instead of im2col (the tests compare them by
#: turning it off).
_DEPTHWISE_FLAT = True
#: Output elements per block of samples in the NumPy depthwise kernels: a block's input,
#: output and product stay in the CPU's cache across the kernel positions' passes.
_DEPTHWISE_BLOCK = 1 << 17


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """Convolution and pooling kernels for the array module ``xp``."""
    as_strided = xp.lib.stride_tricks.as_strided
    host = xp.__name__ == "numpy"  # (arrays in host memory: reading a result costs no wait)
    enter, leave = quiet_tokens(xp)

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

    def columns(x: Any, w_shape: Sequence[int], geo: tuple[Any, ...]) -> tuple[Any, ...]:
        """im2col: the windows of ``x`` (N, C, *spatial) copied once into one matrix per group,
        ``(cols, outs, last)``: ``outs`` the output's spatial size and ``last`` whether the
        columns are (g, N * P, K * C/g), channels last, or else (g, C/g * K, N * P).

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
        p, k = math.prod(outs), math.prod(kernel)
        if channels_last(cg, g, kernel, outs, stride, dilation):
            # (N, *padded, C): windows (g, N, *outs, *kernel, C/g)
            cl = xp.zeros((n,) + tuple(x.shape[2 + i] + 2 * padding[i] for i in range(nd)) + (c,),
                          dtype=x.dtype)  # fmt: skip
            cl[(slice(None),) + interior(padding, x.shape[2:])] = xp.moveaxis(x, 1, -1)
            st = cl.strides
            shape = (g, n) + outs + kernel + (cg,)
            strides = (
                (st[-1] * cg, st[0])
                + tuple(st[1 + i] * stride[i] for i in range(nd))
                + tuple(st[1 + i] * dilation[i] for i in range(nd))
                + (st[-1],)
            )
            return as_strided(cl, shape, strides).reshape(g, n * p, k * cg), outs, True
        xpad = pad(x, padding, padding)
        st = xpad.strides
        shape = (g, cg) + kernel + (n,) + outs
        strides = (
            (st[1] * cg, st[1])
            + tuple(st[2 + i] * dilation[i] for i in range(nd))
            + (st[0],)
            + tuple(st[2 + i] * stride[i] for i in range(nd))
        )
        return as_strided(xpad, shape, strides).reshape(g, cg * k, n * p), outs, False

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
            wm = xp.moveaxis(wm, 2, -1)
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

    def depthwise_forward(x: Any, w: Any, geo: tuple[Any, ...], wide: Any) -> Any:
        """A depthwise convolution as one multiply-add per kernel position, without the
        columns (K times the output) that im2col copies for a matmul of one-row groups.

        On NumPy it runs over blocks of samples, each padded into a buffer made once: the
        block's input, product and output stay in the CPU's cache across the kernel
        positions' passes, and the whole arrays are read and written once. At stride 1 the
        padded block is flattened, so that a kernel position reads one contiguous run per
        sample and channel (the output laid on the padded grid's rows, as
        ``depthwise_weight_grad`` does) where a 2-D window reads one output row at a time
        (measured: 12.7 -> 5 ms for (32, 32, 32, 32) float32 and 3x3; PyTorch's oneDNN
        kernel takes 1.4)."""
        stride, padding, dilation = geo[:3]
        n, c = x.shape[:2]
        kernel = tuple(w.shape[2:])
        nd = len(kernel)
        outs = tuple(
            out_size(x.shape[2 + i], kernel[i], stride[i], padding[i], dilation[i])
            for i in range(nd)
        )
        padded = tuple(x.shape[2 + i] + 2 * padding[i] for i in range(nd))
        positions = list(itertools.product(*(range(kk) for kk in kernel)))
        lead = (slice(None), slice(None))
        inner = lead + interior(padding, x.shape[2:])
        size = math.prod(padded)
        flat = all(st == 1 for st in stride)
        shape: tuple[int, ...]
        if flat:
            steps = [math.prod(padded[i + 1 :]) for i in range(nd)]
            grid = (outs[0],) + padded[1:]
            span = math.prod(grid)
            offs = [sum(k[j] * dilation[j] * steps[j] for j in range(nd)) for k in positions]
            length, shape = max(offs) + span, (span,)
            valid = lead + (slice(None),) + tuple(slice(0, m) for m in outs[1:])
        else:
            length, shape = size, outs
        res = xp.empty((n, c) + outs, dtype=wide)
        per = c * max(length, 1)
        block = min(n, max(1, _DEPTHWISE_BLOCK // per)) if host else n
        src = xp.zeros((block, c, length), dtype=wide)  # (its padding stays zero)
        acc = xp.empty((block, c) + shape, dtype=wide) if flat else None
        tmp = xp.empty((block, c) + shape, dtype=wide)
        wk = w.astype(wide, copy=False).reshape(c, -1)
        cols = [wk[:, i].reshape((c,) + (1,) * len(shape)) for i in range(len(positions))]
        if flat:
            reads: list[Any] = [(slice(None), slice(None), slice(o, o + span)) for o in offs]
        else:
            reads = [lead + tap(k, stride, dilation, outs) for k in positions]
        for s0 in range(0, n, block):
            b = min(block, n - s0)
            sb = src[:b]
            sb[:, :, :size].reshape((b, c) + padded)[inner] = x[s0 : s0 + b]
            ob = acc[:b] if acc is not None else res[s0 : s0 + b]
            t = tmp[:b]
            if not flat:
                sb = sb.reshape((b, c) + padded)
            for i, (where, col) in enumerate(zip(reads, cols, strict=True)):
                xp.multiply(sb[where], col, out=ob if i == 0 else t)
                if i:
                    ob += t
            if flat:
                res[s0 : s0 + b] = ob.reshape((b, c) + grid)[valid]
        return res

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

    def conv_forward(x: Any, w: Any, geo: tuple[Any, ...], wide: Any) -> Any:
        groups = geo[3]
        if is_depthwise(w.shape, groups):
            return depthwise_forward(x, w, geo, wide)
        n = x.shape[0]
        o = w.shape[0]
        pw = pointwise_samples(x.astype(wide, copy=False), w.shape, geo)
        if pw is not None:
            wm = w.astype(wide, copy=False).reshape(o, -1)
            return xp.matmul(wm, pw[0]).reshape((n, o) + pw[1])
        cols, outs, last = columns(x.astype(wide, copy=False), w.shape, geo)
        wm = weight_matrix(w.astype(wide, copy=False), groups, last)
        nd = len(outs)
        if last:
            y = xp.matmul(cols, wm.transpose(0, 2, 1))  # (g, N * P, O/g)
            y = y.reshape((groups, n) + outs + (o // groups,))
            y = y.transpose((1, 0, nd + 2) + tuple(range(2, 2 + nd)))
        else:
            y = xp.matmul(wm, cols)  # (g, O/g, N * P)
            y = y.reshape((groups, o // groups, n) + outs)
            y = y.transpose((2, 0, 1) + tuple(range(3, 3 + nd)))
        return y.reshape((n, o) + outs)

    def conv_input_grad(
        gy: Any, w: Any, x_shape: Sequence[int], geo: tuple[Any, ...], wide: Any
    ) -> Any:
        """The gradient with respect to the input: at stride 1 a convolution of the padded
        gradient with the flipped weight where that measures faster, for a depthwise weight
        one multiply-add per kernel position, else col2im (the columns' gradient added back
        one kernel position at a time into a padded buffer)."""
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
            return depthwise_forward(gy, w[back], ((1,) * nd, reach, dilation, g), wide)
        if cg == 1 and w.shape[0] == g > 1:
            return depthwise_input_grad(gy, w, x_shape, geo, wide)
        if cg >= 8 and all(s == 1 for s in stride) and all(r >= 0 for r in reach):
            # Every input position sees the gradient through the whole flipped kernel: the
            # columns come from the (smaller or equal) gradient and no buffer of K times the
            # input's size is made and added back (measured: 1.2 to 2.2 times faster for 3x3
            # kernels from 16 channels; fewer channels make a matmul too thin to gain).
            o = w.shape[0]
            flipped = w.reshape((g, o // g, cg) + kernel).swapaxes(1, 2)
            back = (Ellipsis,) + (slice(None, None, -1),) * nd
            flipped = flipped.reshape((c, o // g) + kernel)[back]
            return conv_forward(gy, flipped, ((1,) * nd, reach, dilation, g), wide)
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
            return xp.moveaxis(res, -1, 1)
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
        per group): one multiply and one strided add per kernel position, without the
        columns' gradient (K times the input's size) that col2im would fill."""
        stride, padding, dilation = geo[:3]
        n, c = x_shape[:2]
        kernel = tuple(w.shape[2:])
        nd = len(kernel)
        outs = tuple(gy.shape[2:])
        padded = tuple(x_shape[2 + i] + 2 * padding[i] for i in range(nd))
        acc = xp.zeros((n, c) + padded, dtype=wide)
        gy = gy.astype(wide, copy=False)
        wk = w.astype(wide, copy=False).reshape(c, -1)
        # (in blocks of samples that stay in cache on NumPy, as ``depthwise_forward``)
        per = c * math.prod(padded)
        block = min(n, max(1, _DEPTHWISE_BLOCK // max(per, 1))) if host else n
        tmp = xp.empty((block,) + gy.shape[1:], dtype=wide)
        lead = (slice(None), slice(None))
        positions = list(itertools.product(*(range(kk) for kk in kernel)))
        taps = [lead + tap(k, stride, dilation, outs) for k in positions]
        cols = [wk[:, i].reshape((c,) + (1,) * nd) for i in range(len(positions))]
        for s0 in range(0, n, block):
            ab, gb = acc[s0 : s0 + block], gy[s0 : s0 + block]
            t = tmp[: gb.shape[0]]
            for where, col in zip(taps, cols, strict=True):
                xp.multiply(gb, col, out=t)
                ab[where] += t
        return acc[lead + interior(padding, x_shape[2:])]

    def depthwise_weight_grad(
        gy: Any, x: Any, w_shape: Sequence[int], geo: tuple[Any, ...], wide: Any
    ) -> Any:
        """The weight gradient of a depthwise convolution (one stride in every dim): per kernel
        position one reduction ``sum(gy * shifted x)`` per channel, over the flattened padded
        input.

        Flattened, the input a kernel position reads is one contiguous run per sample and
        channel, starting at the position's offset, when the gradient is laid on the padded
        grid (zeros where the padded grid has no output); the reductions then run over long
        rows, without the columns (K times the input) that im2col copies for a matmul of
        one-row groups (measured: 19 -> 6.5 ms for (32, 64, 32, 32) float32 and 3x3)."""
        stride, padding, dilation = geo[:3]
        n, c = x.shape[:2]
        kernel = tuple(w_shape[2:])
        nd = len(kernel)
        outs = tuple(gy.shape[2:])
        padded = tuple(x.shape[2 + i] + 2 * padding[i] for i in range(nd))
        st = [math.prod(padded[i + 1 :]) for i in range(nd)]
        size = math.prod(padded)
        span = outs[0] * st[0]  # the padded grid's rows that hold outputs
        # One stride s in every dim: output m of the grid reads flat position s * m (its row
        # s times further down, its column s times further right), so a kernel position
        # reads every s-th element of a run (the grid's columns past the outputs hold zero
        # gradients). The last positions of the span read past the padded input: zeros.
        s_ = stride[0]
        offs = [
            sum(k[j] * dilation[j] * st[j] for j in range(nd))
            for k in itertools.product(*(range(kk) for kk in kernel))
        ]
        length = max(size, max(offs) + s_ * (span - 1) + 1)
        lead = (slice(None), slice(None))
        inner = lead + interior(padding, x.shape[2:])
        valid = lead + tuple(slice(0, m) for m in outs)
        # In blocks of samples padded into buffers made once (on NumPy), as
        # ``depthwise_forward``: the kernel positions' reductions then read cached blocks.
        block = min(n, max(1, _DEPTHWISE_BLOCK // max(c * length, 1))) if host else n
        xf = xp.zeros((block, c, length), dtype=wide)  # (the padding stays zero)
        gf = xp.zeros((block, c, outs[0]) + padded[1:], dtype=wide)
        gw = xp.zeros((c, len(offs)), dtype=wide)
        for s0 in range(0, n, block):
            b = min(block, n - s0)
            xb, gb = xf[:b], gf[:b]
            xb[:, :, :size].reshape((b, c) + padded)[inner] = x[s0 : s0 + b]
            gb[valid] = gy[s0 : s0 + b]
            g3 = gb.reshape(b, c, span)
            for i, off in enumerate(offs):
                gw[:, i] += xp.einsum(
                    "ncl,ncl->c", g3, xb[:, :, off : off + s_ * (span - 1) + 1 : s_]
                )
        return gw.reshape(tuple(w_shape))

    def conv_weight_grad(
        gy: Any, x: Any, w_shape: Sequence[int], geo: tuple[Any, ...], wide: Any
    ) -> Any:
        groups = geo[3]
        if is_depthwise(w_shape, groups) and all(s == geo[0][0] for s in geo[0]):
            return depthwise_weight_grad(gy, x, w_shape, geo, wide)
        pw = pointwise_samples(x.astype(wide, copy=False), w_shape, geo)
        if pw is not None:
            gy3 = gy.astype(wide, copy=False).reshape(gy.shape[0], gy.shape[1], -1)
            gw = xp.matmul(gy3, pw[0].transpose(0, 2, 1))  # (N, O, C), one per sample
            return gw.sum(axis=0).reshape(tuple(w_shape))
        cols, _, last = columns(x.astype(wide, copy=False), w_shape, geo)
        gym = grad_matrix(gy.astype(wide, copy=False), groups, False)
        if last:
            gw = xp.matmul(gym, cols)  # (g, O/g, K * C/g)
            gw = gw.reshape((w_shape[0],) + tuple(w_shape[2:]) + (w_shape[1],))
            return xp.moveaxis(gw, -1, 1)
        return xp.matmul(gym, cols.transpose(0, 2, 1)).reshape(tuple(w_shape))

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
        if transposed:
            # The transposed convolution is the input-gradient of the convolution that maps
            # the output's space to the input's.
            y = conv_input_grad(x, w, o.shape, geo, wide)
        else:
            y = conv_forward(x, w, geo, wide)
        if bias is not None:
            y = y + array_of(bias).astype(wide, copy=False).reshape((1, -1) + (1,) * (o.ndim - 2))
        o[...] = y

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
        o[...] = conv_input_grad(
            array_of(grad_output), array_of(weight), tuple(input_size), geo, wide
        )

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
        nd = len(kernel_size)
        outs, hi = pool_geometry(x.shape, kernel_size, stride, padding, dilation, ceil_mode)
        # (the tensor's dtype decides: bfloat16 arrays are of NumPy kind "V")
        low = -xp.inf if self._dtype.is_floating_point else xp.iinfo(x.dtype).min
        xpad = pad(x, padding, hi, low)
        win = windows(xpad, kernel_size, stride, dilation, outs)
        # Passes over output-sized arrays, one per kernel position, never a copy of the
        # windows: the maximum (NaN if any, as PyTorch's), then the first position holding it
        # (from the last position back), and for a window with NaN its last NaN (PyTorch's
        # CPU kernel takes a later element if greater or NaN).
        positions = list(itertools.product(*(range(kk) for kk in kernel_size)))
        taps = [win[(Ellipsis,) + pos] for pos in positions]
        best = taps[0].copy()
        for v in taps[1:]:
            xp.maximum(best, v, out=best)
        kt = xp.int16 if len(taps) < 2**15 else xp.int64
        k = xp.full(best.shape, len(taps) - 1, dtype=kt)
        for flat in range(len(taps) - 2, -1, -1):
            k -= (taps[flat] == best) * (k - kt(flat))
        if x.dtype.kind in "fcV":
            nan = xp.isnan(best)
            # (Reading ``any`` waits for the device off NumPy: there the pass always runs.)
            if not host or nan.any():
                last = xp.zeros(best.shape, dtype=kt)
                for flat, v in enumerate(taps):
                    last = xp.where(xp.isnan(v), kt(flat), last)
                k = xp.where(nan, last, k)
        values[...] = best
        # The flat index into the input's spatial plane: the window's start plus the offset
        # of its position k (a table of one entry per kernel position).
        plane = [math.prod(x.shape[3 + i :]) for i in range(nd)]
        offsets = [sum(pos[i] * dilation[i] * plane[i] for i in range(nd)) for pos in positions]
        index = xp.asarray(offsets, dtype=xp.int64)[k]
        for i in range(nd):
            shape = [1] * (2 + nd)
            shape[2 + i] = outs[i]
            start = xp.arange(outs[i], dtype=xp.int64) * stride[i] - padding[i]
            index += (start * plane[i]).reshape(shape)
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
        outs, hi = pool_geometry(x.shape, kernel_size, stride, padding, (1,) * nd, ceil_mode)
        win = windows(
            pad(x.astype(wide, copy=False), padding, hi), kernel_size, stride, (1,) * nd, outs
        )
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
        took 60% of a (2560, 256) float32 backward). (The forward makes one temporary; in
        blocks it measured no faster.)"""
        if not numpy or not n or any(not a.flags.c_contiguous for a in arrays):
            return None
        rows = arrays[0].size // n
        flat = [a.reshape(rows, n) for a in arrays]
        step = max(1, _ROW_BLOCK // n)
        return [[a[i : i + step] for a in flat] for i in range(0, rows, step)]

    def normalized_rows(x2: Any, y2: Any, eps: float) -> Any:
        """``y2 = (x2 - mean) * rstd`` row by row of the (rows, n) views, the row sums as
        contractions (NumPy's reduction over short rows measured 3-4 times slower than
        einsum's, and no temporary); returns ``rstd`` as a (rows, 1) column."""
        n = x2.shape[1]
        xp.subtract(x2, (xp.einsum("ij->i", x2) / n)[:, None], out=y2)
        rstd = xp.einsum("ij,ij->i", y2, y2)[:, None]
        rstd /= n
        rstd += eps
        xp.sqrt(rstd, out=rstd)
        xp.reciprocal(rstd, out=rstd)
        y2 *= rstd
        return rstd

    def layer_norm(
        out: Any, input: Any, normalized_shape: Any, weight: Any, bias: Any, eps: float
    ) -> None:
        o = array_of(out)
        wide = acc_dtype(xp, o.dtype)
        x = array_of(input).astype(wide, copy=False)
        axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
        # ``stats``' operations, in the result's memory where it has the computing dtype:
        # one temporary (the squares) instead of three and the final copy.
        y = o if o.dtype == wide else xp.empty(x.shape, dtype=wide)
        n = math.prod(x.shape[i] for i in axes)
        if n and writes_through_views(x) and writes_through_views(y):
            # Rows as (rows, n) views (normalized_rows: no temporary)
            x2, y2 = x.reshape(-1, n), y.reshape(-1, n)
            normalized_rows(x2, y2, eps)
            if weight is not None:
                y2 *= array_of(weight).reshape(n)
            if bias is not None:
                y2 += array_of(bias).reshape(n)
            if y is not o:
                o[...] = y
            return
        xp.subtract(x, mean(x, axes), out=y)
        rstd = mean(y * y, axes)
        rstd += eps
        xp.sqrt(rstd, out=rstd)
        xp.reciprocal(rstd, out=rstd)
        y *= rstd
        if weight is not None:
            y *= array_of(weight)
        if bias is not None:
            y += array_of(bias)
        if y is not o:
            o[...] = y

    def layer_norm_backward(
        out: Any, grad_output: Any, input: Any, normalized_shape: Any, weight: Any, eps: float
    ) -> None:
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
            # ``stats`` and ``norm_backward`` per block of rows (the same operations, so the
            # input's gradient has the same bits); the weight's and bias's gradients add the
            # blocks' sums.
            w = array_of(weight).reshape(n) if weight is not None else None
            gw, gb = gw_o.reshape(n), gb_o.reshape(n)
            gw[...] = 0
            gb[...] = 0
            for ob, xb, gg in blocks:
                # xhat in the gradient's block, the row sums as contractions (no temporary
                # but g * w): gx = (g * w - mean(g * w) - xhat * mean(g * w * xhat)) * rstd
                rstd = normalized_rows(xb, ob, eps)
                gw += xp.einsum("ij,ij->j", gg, ob)
                gb += gg.sum(axis=0)
                gxhat = gg if w is None else gg * w
                am = xp.einsum("ij->i", gxhat)[:, None]
                bm = xp.einsum("ij,ij->i", gxhat, ob)[:, None]
                ob *= bm
                ob += am
                ob *= -1.0 / n
                ob += gxhat
                ob *= rstd
            return
        xhat, rstd = stats(x, axes, eps)[:2]
        w = array_of(weight) if weight is not None else None
        gx_o[...], gw_o[...], gb_o[...] = norm_backward(g, xhat, rstd, w, axes, batch)

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
        o = array_of(out)
        wide = acc_dtype(xp, o.dtype)
        x = array_of(input).astype(wide, copy=False)
        axes = (0, *range(2, x.ndim))
        cs = channel_shape(x)
        rows = channel_rows(x, o) if training and o.dtype == wide else None
        if rows is not None:
            x3, y3 = rows
            m = x.size // x.shape[1]
            mu = xp.einsum("ncl->c", x3) / m
            xp.subtract(x3, mu[:, None], out=y3)
            var = xp.einsum("ncl,ncl->c", y3, y3) / m
            scale = 1.0 / xp.sqrt(var + eps)
            if weight is not None:
                scale *= array_of(weight)
            y3 *= scale[:, None]
            if bias is not None:
                y3 += array_of(bias)[:, None]
        elif training:
            y, _, mu, var = stats(x, axes, eps)
        else:
            rm = array_of(running_mean).astype(wide, copy=False).reshape(cs)
            rv = array_of(running_var).astype(wide, copy=False).reshape(cs)
            y = (x - rm) / xp.sqrt(rv + eps)
        if rows is None:
            if weight is not None:
                y *= array_of(weight).reshape(cs)
            if bias is not None:
                y += array_of(bias).reshape(cs)
            o[...] = y
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
    ) -> None:
        gx_o, gw_o, gb_o = (array_of(t) for t in out)
        wide = acc_dtype(xp, gx_o.dtype)
        x = array_of(input).astype(wide, copy=False)
        g = array_of(grad_output).astype(wide, copy=False)
        axes = (0, *range(2, x.ndim))
        cs = channel_shape(x)
        w = array_of(weight).reshape(cs) if weight is not None else None
        rows = channel_rows(x, g, gx_o) if training and gx_o.dtype == wide else None
        if rows is not None:
            # gx = w * rstd * (g - mean(g) - xhat * mean(g * xhat)): per channel an affine
            # function of g and the centred input, which sits in gx's memory until the end.
            x3, g3, c3 = rows
            m = x.size // x.shape[1]
            xp.subtract(x3, (xp.einsum("ncl->c", x3) / m)[:, None], out=c3)
            rstd = 1.0 / xp.sqrt(xp.einsum("ncl,ncl->c", c3, c3) / m + eps)
            gb = xp.einsum("ncl->c", g3)
            gw = xp.einsum("ncl,ncl->c", g3, c3) * rstd
            a = rstd if w is None else rstd * w.reshape(-1)
            c3 *= (-a * rstd * gw / m)[:, None]
            c3 += g3 * a[:, None]
            c3 -= (a * gb / m)[:, None]
            gw_o[...], gb_o[...] = gw, gb
            return
        if training:
            xhat, rstd = stats(x, axes, eps)[:2]
            gx_o[...], gw_o[...], gb_o[...] = norm_backward(g, xhat, rstd, w, axes, axes)
            return
        rm = array_of(running_mean).astype(wide, copy=False).reshape(cs)
        rstd = 1.0 / xp.sqrt(array_of(running_var).astype(wide, copy=False).reshape(cs) + eps)
        xhat = (x - rm) * rstd
        gx_o[...] = (g * w if w is not None else g) * rstd
        gw_o[...] = (g * xhat).sum(axis=axes)
        gb_o[...] = g.sum(axis=axes)

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
            if bias is not None and gemm is not None and bias_in_gemm(o, x, w, array_of(bias)):
                return
            xp.matmul(as_2d(x), w.T, out=as_2d(o))
        else:
            o[...] = (as_2d(x) @ w.T).reshape(o.shape)
        if bias is not None:
            xp.add(o, array_of(bias), out=o)  # (an augmented assignment may rebind o)

    gemm = blas_functions(xp, "gemm")

    def bias_in_gemm(o: Any, x: Any, w: Any, b: Any) -> bool:
        """``o = x @ w.T + b`` as one BLAS ``gemm`` whose C operand is ``o`` filled with the
        bias (PyTorch's ``addmm``): the bias costs a write of ``o`` instead of a second pass
        that reads and writes it. For C-ordered operands of one dtype BLAS takes, none empty;
        False (nothing written) otherwise, and where ``o`` overlaps an input (filling it
        first would overwrite that input)."""
        f = gemm.get(o.dtype)  # type: ignore[union-attr]
        x2, o2 = as_2d(x), as_2d(o)
        if (
            f is None
            or not (x2.dtype == w.dtype == b.dtype == o.dtype)
            or not (x2.flags.c_contiguous and w.flags.c_contiguous and o2.flags.c_contiguous)
            or b.ndim != 1
            or not o2.size
            or not x2.shape[1]
            or any(xp.may_share_memory(o2, a) for a in (x2, w, b))  # (out= over an input)
        ):
            return False
        o2[...] = b
        # In BLAS's Fortran order the C-ordered arrays are transposed: o.T = w @ x.T + o.T.
        r = f(1.0, w.T, x2.T, 1.0, o2.T, trans_a=1, overwrite_c=1)
        if r.ctypes.data != o2.ctypes.data:  # (f2py returns a copy where it cannot write o)
            o2.T[...] = r
        return True

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
        layer_norm, layer_norm_backward, batch_norm, batch_norm_backward, convolution,
        convolution_backward_input, convolution_backward_weight, max_pool2d_with_indices,
        max_pool2d_with_indices_backward, avg_pool2d, avg_pool2d_backward,
    ]  # fmt: skip
    return {k.__name__: quiet(k) for k in kernels}
