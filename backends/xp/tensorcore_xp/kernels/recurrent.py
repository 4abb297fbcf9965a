"""A whole LSTM, GRU or Elman RNN layer direction's recurrence and its backward, written once
against an array module ``xp`` (NumPy or CuPy).

The time loop is the only sequential work of a recurrent layer, and at the sizes recurrent
models use (a batch of tens, a few hundred gate columns) each step's arithmetic costs less
than one operator call: a step written with operators (a dozen forward, twice that backward)
is all dispatch. Here a step is a handful of array calls, each writing into a slice of a
buffer made once per layer (the gates' activations, the cell states and their tanh, kept in
the workspace for the backward), and the reverse direction walks the same buffers backwards
instead of reversing a copy of the sequence. The core has checked shapes and dtypes
(``ops/meta_nn.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..helpers import acc_dtype, array_of, quiet_tokens, writes_through_views

__all__ = ["build"]

#: Bytes of the input projections an LSTM layer puts in its workspace's layout at a time: the
#: next steps' blocks, copied while they are in the cache and read back from it.
_CHUNK_BYTES = 1 << 18


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """``_lstm_layer``, ``_gru_layer``, ``_rnn_layer`` and their backwards for the array module
    ``xp``."""
    enter, leave = quiet_tokens(xp)

    def buffer(o: Any, wide: Any) -> Any:
        """``o`` itself where the kernel can write into it in the computing dtype, else a
        scratch array that is copied into ``o`` at the end."""
        if o.dtype == wide and writes_through_views(o):
            return o
        return xp.empty(o.shape, dtype=wide)

    def gates_in_workspace_order(a: Any, axis: int) -> Any:
        """``a``'s gate blocks along ``axis`` (input, forget, cell, output: PyTorch's order)
        in the workspace's order, the three sigmoid gates first: input, forget, output, cell."""
        hsz = a.shape[axis] // 4
        blocks = [a[(slice(None),) * axis + (slice(k * hsz, (k + 1) * hsz),)] for k in range(4)]
        return xp.concatenate([blocks[0], blocks[1], blocks[3], blocks[2]], axis=axis)

    def copy_gates_from_workspace_order(dst: Any, src: Any) -> None:
        """``dst`` (..., 4H), gates in PyTorch's order, from ``src`` (..., 4H, N) in the
        workspace's (feature-major: the last two axes swapped)."""
        hsz = dst.shape[-1] // 4
        for d, s in ((0, 0), (1, 1), (3, 2), (2, 3)):
            dst[..., d * hsz : (d + 1) * hsz] = xp.swapaxes(
                src[..., s * hsz : (s + 1) * hsz, :], -1, -2
            )

    def _lstm_layer(
        out: Any,
        proj: Any,
        h0: Any,
        c0: Any,
        w_hh: Any,
        reverse: bool,
        batch_sizes: list[int] | None = None,
        train: bool = True,
        w_hr: Any = None,
    ) -> None:
        # A step's workspace (7H, N), feature-major so that every gate, state and product
        # is one contiguous block (an (N, H) slice of an (N, 4H) row is N short runs, and
        # an operation on it measured 2-6 times slower): sigmoid(i), sigmoid(f), sigmoid(o),
        # tanh(g), c, tanh(c), h. The three sigmoid gates come first, so that their
        # activation is two scalar operations on one block (scaling the rows by a (4H, 1)
        # column costs as much as three passes).
        outs = [array_of(t) for t in out]
        wide = acc_dtype(xp, outs[0].dtype)
        hn, cn, ws = (buffer(o, wide) for o in outs[1:])
        x = array_of(proj).astype(wide, copy=False)
        w = gates_in_workspace_order(array_of(w_hh).astype(wide, copy=False), 0)
        steps, batch, gates = x.shape
        hsz = gates // 4
        sig = 3 * hsz
        tmp = xp.empty((hsz, batch), dtype=wide)
        h = array_of(h0).astype(wide, copy=False).T
        c = array_of(c0).astype(wide, copy=False).T
        # Without ``train`` nothing reads the workspace back: two rows serve in turn (the
        # step's and the previous one's), the outputs go to a buffer of their own.
        hs = ws[:, 6 * hsz :] if train else xp.empty((steps, hsz, batch), dtype=wide)
        # (proj_size: the state the next step reads, and the output, is h's projection)
        wr = None if w_hr is None else array_of(w_hr).astype(wide, copy=False)
        hp = hs if wr is None else xp.empty((steps, wr.shape[0], batch), dtype=wide)
        # The input's projections, transposed, gates in the workspace's order, a chunk of
        # steps at a time (``_CHUNK_BYTES``): a step then adds one contiguous block instead
        # of three strided views of ``x``, and the copy of a chunk is read back from the
        # cache (a copy of the whole sequence costs more than the strided adds once it
        # leaves the cache: 132 against 112 ms at (200, 64, 4 * 256)). The same sums.
        chunk = min(steps, max(1, _CHUNK_BYTES // (gates * batch * x.itemsize)))
        xc = xp.empty((chunk, gates, batch), dtype=wide)
        # (0-d constants: a ufunc takes one in about 0.3 us less than a Python float)
        half = xp.asarray(0.5, dtype=wide)
        tok = enter()
        try:
            for k, t in enumerate(range(steps - 1, -1, -1) if reverse else range(steps)):
                j = k % chunk
                if not j:
                    n = min(chunk, steps - k)
                    src = x[t - n + 1 : t + 1][::-1] if reverse else x[t : t + n]
                    src, dst = src.transpose(0, 2, 1), xc[:n]
                    dst[:, : 2 * hsz] = src[:, : 2 * hsz]
                    dst[:, 2 * hsz : sig] = src[:, sig:]
                    dst[:, sig:] = src[:, 2 * hsz : sig]
                row = ws[t] if train else ws[k % 2]
                act = row[:gates]
                xp.matmul(w, h, out=act)
                act += xc[j]
                # sigmoid(v) = (tanh(v / 2) + 1) / 2: one tanh over all four gates (the
                # halving and doubling are exact: powers of two)
                s = act[:sig]
                s *= half
                xp.tanh(act, out=act)
                s *= half
                s += half
                c_new, tc_new, h_new = (
                    row[gates : gates + hsz],
                    row[gates + hsz : 6 * hsz],
                    hs[t],
                )
                xp.multiply(act[hsz : 2 * hsz], c, out=c_new)
                xp.multiply(act[:hsz], act[sig:gates], out=tmp)
                c_new += tmp
                xp.tanh(c_new, out=tc_new)
                xp.multiply(act[2 * hsz : sig], tc_new, out=h_new)
                if wr is not None:
                    xp.matmul(wr, h_new, out=hp[t])
                    h_new = hp[t]
                b = batch if batch_sizes is None else batch_sizes[t]
                if b < batch:
                    # (packed) the sequences past their end carry their states: the step ran
                    # on all columns (contiguous rows cost less than sliced ones), and the
                    # others' gates, unread, stay in the workspace
                    c_new[:, b:] = c[:, b:]
                    h_new[:, b:] = h[:, b:]
                h, c = h_new, c_new
            hn[...] = h.T
            cn[...] = c.T
            if not train:  # (scratch that nothing reads back: zeros, not stale memory)
                ws[...] = 0
        finally:
            leave(tok)
        outs[0][...] = hp.transpose(0, 2, 1)
        for o, b in zip(outs[1:], (hn, cn, ws), strict=True):
            if b is not o:
                o[...] = b

    def backward_arrays(
        out: Any, grad_output: Any, workspace: Any, w_hh: Any, state0: Any
    ) -> tuple[Any, ...]:
        """A layer backward's arrays: the outputs', their accumulation dtype, the output's
        gradient feature-major ``(steps, features, batch)``, the workspace, the recurrent
        weight and the first state (transposed, feature-major), in that dtype."""
        outs = [array_of(t) for t in out]
        wide = acc_dtype(xp, outs[0].dtype)
        gy = array_of(grad_output).astype(wide, copy=False).transpose(0, 2, 1).copy()
        ws = array_of(workspace).astype(wide, copy=False)
        w = array_of(w_hh).astype(wide, copy=False)
        return outs, wide, gy, ws, w, array_of(state0).astype(wide, copy=False).T

    def _lstm_layer_backward(
        out: Any,
        grad_output: Any,
        grad_h_n: Any,
        grad_c_n: Any,
        c0: Any,
        w_hh: Any,
        workspace: Any,
        reverse: bool,
        batch_sizes: list[int] | None = None,
        w_hr: Any = None,
    ) -> None:
        outs, wide, gy, ws, w, c_first = backward_arrays(out, grad_output, workspace, w_hh, c0)
        steps, gates, batch = ws.shape[0], outs[0].shape[2], outs[0].shape[1]
        hsz = gates // 4
        sig = 3 * hsz
        g_proj = xp.empty((steps, gates, batch), dtype=wide)  # as ``ws``: feature-major, ...
        gh = array_of(grad_h_n).astype(wide).T.copy()
        # (proj_size: gh is the projected state's gradient, g_h the state's before it)
        wrt = None if w_hr is None else array_of(w_hr).astype(wide, copy=False).T
        g_h = gh if wrt is None else xp.empty((hsz, batch), dtype=wide)
        g_hr = None if wrt is None else xp.empty((steps, gh.shape[0], batch), dtype=wide)
        gc = array_of(grad_c_n).astype(wide).T.copy()
        tmp = xp.empty((hsz, batch), dtype=wide)
        deriv = xp.empty((gates, batch), dtype=wide)
        wt = gates_in_workspace_order(w, 0).T  # ... gates in the workspace's order
        order = list(range(steps - 1, -1, -1) if reverse else range(steps))
        one = xp.asarray(1, dtype=wide)  # (0-d: as ``half`` in ``_lstm_layer``)
        tok = enter()
        try:
            for k in range(steps - 1, -1, -1):
                t = order[k]
                # (packed) only the first ``b`` sequences run at step t: the others' state
                # gradients pass it unchanged (as the forward, the step runs on all columns
                # and theirs are put back), their gates' are zero
                b = batch if batch_sizes is None else batch_sizes[t]
                if b < batch:
                    carried = gh[:, b:].copy(), gc[:, b:].copy()
                row, gg = ws[t], g_proj[t]
                act = row[:gates]
                si, sf = row[:hsz], row[hsz : 2 * hsz]
                so, tg = row[2 * hsz : sig], row[sig:gates]
                tc_t = row[gates + hsz : 6 * hsz]
                c_prev = ws[order[k - 1]][gates : gates + hsz] if k else c_first
                gh += gy[t]
                if g_hr is not None:
                    g_hr[t] = gh
                    if b < batch:
                        g_hr[t][:, b:] = 0
                    xp.matmul(wrt, gh, out=g_h)
                # gc += g_h * o * (1 - tanh(c)^2)
                xp.multiply(tc_t, tc_t, out=tmp)
                xp.subtract(one, tmp, out=tmp)
                tmp *= so
                tmp *= g_h
                gc += tmp
                xp.multiply(gc, tg, out=gg[:hsz])
                xp.multiply(gc, c_prev, out=gg[hsz : 2 * hsz])
                xp.multiply(g_h, tc_t, out=gg[2 * hsz : sig])
                xp.multiply(gc, si, out=gg[sig:])
                # the activations' derivatives: a(1 - a) for the sigmoids, 1 - a^2 for tanh
                ds = deriv[:sig]
                xp.subtract(one, act[:sig], out=ds)
                ds *= act[:sig]
                dg = deriv[sig:]
                xp.multiply(tg, tg, out=dg)
                xp.subtract(one, dg, out=dg)
                gg *= deriv
                gc *= sf
                if b < batch:
                    gg[:, b:] = 0
                xp.matmul(wt, gg, out=gh)
                if b < batch:
                    gh[:, b:], gc[:, b:] = carried
        finally:
            leave(tok)
        copy_gates_from_workspace_order(outs[0], g_proj)
        outs[1][...] = gh.T
        outs[2][...] = gc.T
        if g_hr is not None:
            outs[3][...] = g_hr.transpose(0, 2, 1)

    def _gru_layer(
        out: Any,
        proj: Any,
        h0: Any,
        w_hh: Any,
        b_hh: Any,
        reverse: bool,
        batch_sizes: list[int] | None = None,
        train: bool = True,
    ) -> None:
        # A step's workspace (5H, N), feature-major as the LSTM's: sigmoid(r), sigmoid(z),
        # the state's projection of the new gate (h W_hn^T + b_hn, which r scales), the new
        # gate n and the output h. The state's projection is written into the first 3H rows
        # by the matmul itself; r and z are then activated in place.
        outs = [array_of(t) for t in out]
        wide = acc_dtype(xp, outs[0].dtype)
        hn, ws = (buffer(o, wide) for o in outs[1:])
        x = array_of(proj).astype(wide, copy=False)
        w = array_of(w_hh).astype(wide, copy=False)
        steps, batch, gates = x.shape
        hsz = gates // 3
        rz = 2 * hsz
        # sigmoid(v) = (tanh(v / 2) + 1) / 2, with the r and z rows halved once (exact), as
        # in ``_lstm_layer``.
        half = xp.full((gates,), 0.5, dtype=wide)
        half[rz:] = 1
        wh = w * half[:, None]
        bh = None
        if b_hh is not None:
            bh = (array_of(b_hh).astype(wide, copy=False) * half).reshape(gates, 1)
        xs = (x * half).transpose(0, 2, 1).copy()  # (L, 3H, N)
        h = array_of(h0).astype(wide, copy=False).T
        # (without ``train``: two workspace rows in turn, as in ``_lstm_layer``)
        hs = ws[:, gates + hsz :] if train else xp.empty((steps, hsz, batch), dtype=wide)
        half = xp.asarray(0.5, dtype=wide)  # (0-d: as in ``_lstm_layer``)
        tok = enter()
        try:
            for k, t in enumerate(range(steps - 1, -1, -1) if reverse else range(steps)):
                row = ws[t] if train else ws[k % 2]
                xp.matmul(wh, h, out=row[:gates])
                if bh is not None:
                    row[:gates] += bh
                act = row[:rz]
                act += xs[t, :rz]
                xp.tanh(act, out=act)
                act *= half
                act += half
                n, h_new = row[gates : gates + hsz], hs[t]
                xp.multiply(row[:hsz], row[rz:gates], out=n)
                n += xs[t, rz:]
                xp.tanh(n, out=n)
                # h' = n + z * (h - n)
                xp.subtract(h, n, out=h_new)
                h_new *= row[hsz:rz]
                h_new += n
                b = batch if batch_sizes is None else batch_sizes[t]
                if b < batch:  # (packed: as in ``_lstm_layer``)
                    h_new[:, b:] = h[:, b:]
                h = h_new
            hn[...] = h.T
            if not train:  # (as in ``_lstm_layer``)
                ws[...] = 0
        finally:
            leave(tok)
        outs[0][...] = hs.transpose(0, 2, 1)
        for o, b in zip(outs[1:], (hn, ws), strict=True):
            if b is not o:
                o[...] = b

    def _gru_layer_backward(
        out: Any,
        grad_output: Any,
        grad_h_n: Any,
        h0: Any,
        w_hh: Any,
        workspace: Any,
        reverse: bool,
        batch_sizes: list[int] | None = None,
    ) -> None:
        outs, wide, gy, ws, w, h_first = backward_arrays(out, grad_output, workspace, w_hh, h0)
        steps, batch, gates = outs[0].shape
        hsz = gates // 3
        rz = 2 * hsz
        g_x = xp.empty((steps, gates, batch), dtype=wide)  # feature-major, as ``ws``
        g_hp = xp.empty((steps, gates, batch), dtype=wide)
        gh = array_of(grad_h_n).astype(wide).T.copy()
        tmp = xp.empty((hsz, batch), dtype=wide)
        back = xp.empty((hsz, batch), dtype=wide)
        wt = w.T
        order = list(range(steps - 1, -1, -1) if reverse else range(steps))
        one = xp.asarray(1, dtype=wide)  # (0-d: as ``half`` in ``_lstm_layer``)
        tok = enter()
        try:
            for k in range(steps - 1, -1, -1):
                t = order[k]
                # (packed) only the first ``b`` sequences run at step t, as in
                # ``_lstm_layer_backward``
                b = batch if batch_sizes is None else batch_sizes[t]
                if b < batch:
                    carried = gh[:, b:].copy()
                row, gx, gp = ws[t], g_x[t], g_hp[t]
                r, z = row[:hsz], row[hsz:rz]
                hp_n, n = row[rz:gates], row[gates : gates + hsz]
                h_prev = ws[order[k - 1]][gates + hsz :] if k else h_first
                gh += gy[t]
                gr, gz, gn = gx[:hsz], gx[hsz:rz], gx[rz:]
                # gn = gh (1 - z) (1 - n^2)
                xp.multiply(n, n, out=gn)
                xp.subtract(one, gn, out=gn)
                xp.subtract(one, z, out=tmp)
                gn *= tmp
                gn *= gh
                # gz = gh (h_prev - n) z (1 - z)
                xp.subtract(h_prev, n, out=gz)
                gz *= gh
                tmp *= z
                gz *= tmp
                # gr = gn hp_n r (1 - r)
                xp.subtract(one, r, out=tmp)
                tmp *= r
                xp.multiply(gn, hp_n, out=gr)
                gr *= tmp
                # the state's projection: r scales its new-gate rows
                if b < batch:
                    gx[:, b:] = 0
                gp[:rz] = gx[:rz]
                xp.multiply(gn, r, out=gp[rz:])
                gh *= z
                xp.matmul(wt, gp, out=back)
                gh += back
                if b < batch:
                    gh[:, b:] = carried
        finally:
            leave(tok)
        outs[0][...] = g_x.transpose(0, 2, 1)
        outs[1][...] = g_hp.transpose(0, 2, 1)
        outs[2][...] = gh.T

    def _rnn_layer(
        out: Any,
        proj: Any,
        h0: Any,
        w_hh: Any,
        relu: bool,
        reverse: bool,
        batch_sizes: list[int] | None = None,
    ) -> None:
        # One gate block, so the batch-major layout of the output serves as the workspace:
        # each step is a matmul into its (N, H) slice of the output, the input's projection
        # added and the nonlinearity applied there in place (the backward reads the
        # derivative off the output). Packed: the first ``b`` rows of a step are contiguous.
        outs = [array_of(t) for t in out]
        wide = acc_dtype(xp, outs[0].dtype)
        y, hn = (buffer(o, wide) for o in outs)
        x = array_of(proj).astype(wide, copy=False)
        wt = array_of(w_hh).astype(wide, copy=False).T
        steps, batch, _ = x.shape
        h = array_of(h0).astype(wide, copy=False)
        tok = enter()
        try:
            for t in range(steps - 1, -1, -1) if reverse else range(steps):
                b = batch if batch_sizes is None else batch_sizes[t]
                row = y[t]
                if b < batch:  # (packed) the sequences past their end carry their states
                    row[b:] = h[b:]
                    row = row[:b]
                xp.matmul(h[:b], wt, out=row)
                row += x[t, :b]
                if relu:
                    xp.maximum(row, 0, out=row)
                else:
                    xp.tanh(row, out=row)
                h = y[t]
            hn[...] = h
        finally:
            leave(tok)
        for o, a in zip(outs, (y, hn), strict=True):
            if a is not o:
                o[...] = a

    def _rnn_layer_backward(
        out: Any,
        grad_output: Any,
        grad_h_n: Any,
        output: Any,
        w_hh: Any,
        relu: bool,
        reverse: bool,
        batch_sizes: list[int] | None = None,
    ) -> None:
        outs = [array_of(t) for t in out]
        wide = acc_dtype(xp, outs[0].dtype)
        g_x = buffer(outs[0], wide)
        gy = array_of(grad_output).astype(wide, copy=False)
        y = array_of(output).astype(wide, copy=False)
        w = array_of(w_hh).astype(wide, copy=False)
        steps, batch, hsz = y.shape
        gh = array_of(grad_h_n).astype(wide)  # (a copy: accumulated in place)
        deriv = xp.empty((batch, hsz), dtype=wide)
        order = list(range(steps - 1, -1, -1) if reverse else range(steps))
        one = xp.asarray(1, dtype=wide)  # (0-d: as ``half`` in ``_lstm_layer``)
        tok = enter()
        try:
            for k in range(steps - 1, -1, -1):
                t = order[k]
                # (packed) only the first ``b`` sequences run at step t: the others' state
                # gradients pass it unchanged, their projections' are zero
                b = batch if batch_sizes is None else batch_sizes[t]
                if b < batch:
                    g_x[t, b:] = 0
                ghp, gp, yt, dv = gh[:b], g_x[t, :b], y[t, :b], deriv[:b]
                ghp += gy[t, :b]
                # the nonlinearity's derivative from its output: 1 - y^2, or y > 0
                if relu:
                    xp.greater(yt, 0, out=dv)
                else:
                    xp.multiply(yt, yt, out=dv)
                    xp.subtract(one, dv, out=dv)
                xp.multiply(ghp, dv, out=gp)
                xp.matmul(gp, w, out=ghp)
        finally:
            leave(tok)
        if g_x is not outs[0]:
            outs[0][...] = g_x
        outs[1][...] = gh

    return {
        k.__name__: k
        for k in (
            _lstm_layer,
            _lstm_layer_backward,
            _gru_layer,
            _gru_layer_backward,
            _rnn_layer,
            _rnn_layer_backward,
        )
    }
