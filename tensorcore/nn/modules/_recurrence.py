"""The recurrence under the layers of ``rnn.py``: one time step of each kind, the choice
of a backend's fused layer kernel, and the autograd functions that run a whole sequence
(``_Sequence``) or a step's gates (``_LSTMGates``, ``_GRUGates``) as one node.
"""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from ...autograd import grad as autograd_grad
from ...autograd import grad_mode
from ...autograd.function import Function
from ...dispatch import get_op
from ...ops import functions as ops
from ...ops.frontends import named_as
from .. import functional as F


def _recording() -> bool:
    """Whether the graph records here (read before :class:`_Sequence` runs its forward,
    where it does not)."""
    return grad_mode.is_grad_enabled()


def _batch_sizes(lengths: list[int], steps: int) -> tuple[int, ...]:
    """How many of the sequences of ``lengths`` (longest first) run at each of ``steps``."""
    sizes, k = [], len(lengths)
    for t in range(steps):
        while k and lengths[k - 1] <= t:
            k -= 1
        sizes.append(k)
    return tuple(sizes)


def _where_state(m: Tensor, new: Any, old: Any) -> Any:
    if isinstance(new, tuple):
        return tuple(ops.where(m, a, b) for a, b in zip(new, old, strict=True))
    return ops.where(m, new, old)


def _permute_hidden(h: Any, order: Tensor) -> Any:
    """Reorder the batch dim (1) of a hidden state (or an LSTM's pair)."""
    if isinstance(h, tuple):
        return tuple(x.index_select(1, order) for x in h)
    return h.index_select(1, order)


# ------------------------------------------------------------ one time step, shared by the
# layers and the cells (``x_proj``: the input's projection ``x W_ih^T + b_ih``)
def _rnn_step(
    x_proj: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None, nonlinearity: str
) -> Tensor:
    pre = x_proj + F.linear(h, w_hh, b_hh)
    return pre.tanh() if nonlinearity == "tanh" else pre.relu()


def _lstm_step(
    x_proj: Tensor, state: tuple[Tensor, Tensor], w_hh: Tensor, b_hh: Tensor | None
) -> tuple[Tensor, Tensor]:
    h, c = state
    gates = x_proj + F.linear(h, w_hh, b_hh)
    if gates._dtype.is_floating_point and c._dtype == gates._dtype:
        h2, c2 = _LSTMGates.apply(gates, c)
        # (PyTorch's last node of h; c shares it)
        return named_as(h2, _CELL_NODE.get(h2.device.type, _CELL_NODE["cpu"])["LSTM"]), c2
    i, f, g, o = gates.chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c


def _gru_step(x_proj: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    h_proj = F.linear(h, w_hh, b_hh)
    if x_proj._dtype.is_floating_point and h._dtype == x_proj._dtype == h_proj._dtype:
        out = _GRUGates.apply(x_proj, h_proj, h)
        return named_as(out, _CELL_NODE.get(out.device.type, _CELL_NODE["cpu"])["GRU"])
    xr, xz, xn = x_proj.chunk(3, -1)
    hr, hz, hn = h_proj.chunk(3, -1)
    r = (xr + hr).sigmoid()
    z = (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return n + z * (h - n)


#: The operator that runs a whole layer direction of each mode in one call.
_LAYER_OP = {
    "LSTM": "_lstm_layer",
    "GRU": "_gru_layer",
    "RNN_TANH": "_rnn_layer",
    "RNN_RELU": "_rnn_layer",
}


def _has_layer_kernel(mode: str, proj: Tensor) -> bool:
    """Whether ``proj``'s backend runs a whole ``mode`` layer as one call (``_lstm_layer``,
    ``_gru_layer``, ``_rnn_layer``; a backend without it gets the step-by-step recurrence of
    :class:`_Sequence`, or for an Elman RNN the layer's own)."""
    try:
        return get_op(_LAYER_OP[mode]).record((proj._device.type, "strided")) is not None
    except KeyError:
        return False


def _fusable(mode: str, proj: Tensor, state: Any, sizes: Any, w_hr: Any) -> bool:
    """Whether a layer's recurrence runs as one :class:`_Sequence` node: layers of real
    floating dtype; over packed input (``sizes``), an LSTM's with a projection (``w_hr``) and
    an Elman RNN's at all where the backend has the layer kernel."""
    if not proj._dtype.is_floating_point or proj.shape[0] == 0:
        return False
    special = sizes is not None or w_hr is not None or mode not in ("LSTM", "GRU")
    if special and not _has_layer_kernel(mode, proj):
        return False
    if w_hr is not None and w_hr._dtype != proj._dtype:
        return False
    states = state if isinstance(state, tuple) else (state,)
    return all(t._dtype == proj._dtype for t in states)


#: The node PyTorch's kernels leave on a layer's output (named as its ATen operator), by device
#: type: its CPU kernels elsewhere, cuDNN's on CUDA.
_LAYER_NODE = {
    "cpu": {
        "LSTM": "MkldnnRnnLayerBackward0",
        "GRU": "StackBackward0",
        "RNN_TANH": "StackBackward0",
        "RNN_RELU": "StackBackward0",
        "LSTM_PROJ": "StackBackward0",  # (not oneDNN's: it has no projection)
    },
    "cuda": dict.fromkeys(
        ("LSTM", "GRU", "RNN_TANH", "RNN_RELU", "LSTM_PROJ"), "CudnnRnnBackward0"
    ),
}
#: Likewise for one step of a cell: PyTorch's composite on the CPU, its fused kernels on CUDA.
_CELL_NODE = {
    "cpu": {"LSTM": "MulBackward0", "GRU": "AddBackward0"},
    "cuda": {"LSTM": "ThnnFusedLstmCellBackward0", "GRU": "ThnnFusedGruCellBackward0"},
}


class _Sequence(Function):
    """A whole LSTM, GRU or Elman RNN layer direction's recurrence as one graph node:
    ``(output, h_n, c_n)`` (``c_n`` None but for an LSTM) from the input's projection
    ``proj`` (L, N, gates * H) and the initial state (``sizes``: a packed batch's sizes per
    step). Per step, the forward computes the gates without recording a graph (in one
    backend call where it has the layer kernel); the backward walks the steps in reverse and
    takes the recurrent weight's gradient in one matmul over all steps (a step-by-step graph
    records a dozen nodes per step and adds a weight-sized gradient per step). A backward
    that records (create_graph) instead differentiates the same steps written with recorded
    operators, so second derivatives hold."""

    @staticmethod
    def forward(
        ctx: Any,
        mode: str,
        reverse: bool,
        proj: Tensor,
        h0: Tensor,
        c0: Tensor | None,
        w_hh: Tensor,
        b_hh: Tensor | None,
        sizes: tuple[int, ...] | None = None,
        recording: bool = True,
        w_hr: Tensor | None = None,
    ) -> tuple[Tensor, Tensor, Any]:
        ctx.mode, ctx.reverse, ctx.layer, ctx.sizes = mode, reverse, None, sizes
        # (without a backward to come, the layer kernels keep no workspace of every step)
        train = recording and any(ctx.needs_input_grad)
        if mode == "LSTM" and c0 is not None and _has_layer_kernel(mode, proj):
            p = proj if b_hh is None else proj + b_hh
            out, h, c, ws = ops._lstm_layer(p, h0, c0, w_hh, reverse, sizes, train, w_hr)
            ctx.save_for_backward(proj, h0, c0, w_hh, b_hh, w_hr)
            ctx.layer = (out, ws)
            return out, h, c
        if mode == "GRU" and _has_layer_kernel(mode, proj):
            out, h, ws = ops._gru_layer(proj, h0, w_hh, b_hh, reverse, sizes, train)
            ctx.save_for_backward(proj, h0, c0, w_hh, b_hh, w_hr)
            ctx.layer = (out, ws)
            return out, h, None
        if mode in ("RNN_TANH", "RNN_RELU"):  # (``_fusable``: where the backend has the kernel)
            p = proj if b_hh is None else proj + b_hh
            out, h = ops._rnn_layer(p, h0, w_hh, mode == "RNN_RELU", reverse, sizes)
            ctx.save_for_backward(proj, h0, c0, w_hh, b_hh, w_hr)
            ctx.layer = (out, None)
            return out, h, None
        seq = proj.shape[0]
        order = range(seq - 1, -1, -1) if reverse else range(seq)
        h, c = h0, c0
        hs: list[Tensor] = [None] * seq  # type: ignore[list-item]
        prev: list[Tensor] = []
        acts: list[Any] = []
        for t in order:
            prev.append(h)
            h_proj = F.linear(h, w_hh, b_hh)
            if mode == "LSTM":
                si, sf, so, tg, c_new, tc2 = _lstm_acts(proj[t] + h_proj, c)  # type: ignore[arg-type]
                acts.append((si, sf, so, tg, tc2, c))
                h, c = so * tc2, c_new
            else:
                r, z, n, hn = _gru_acts(proj[t], h_proj)
                acts.append((r, z, n, hn))
                h = n + z * (h - n)
            hs[t] = h
        ctx.save_for_backward(proj, h0, c0, w_hh, b_hh, w_hr)
        ctx.prev, ctx.acts = prev, acts
        return ops.stack(hs, 0), h, c

    @staticmethod
    def backward(ctx: Any, g_out: Tensor, g_h: Tensor, g_c: Tensor | None) -> tuple[Any, ...]:
        proj, h0, _, w_hh, _, _ = ctx.saved_tensors
        if grad_mode.is_grad_enabled():
            return _Sequence.recorded_backward(ctx, g_out, g_h, g_c)
        if ctx.layer is not None and ctx.mode in ("RNN_TANH", "RNN_RELU"):
            return _Sequence.rnn_layer_backward(ctx, g_out, g_h)
        if ctx.layer is not None and ctx.mode == "GRU":
            return _Sequence.gru_layer_backward(ctx, g_out, g_h)
        if ctx.layer is not None and g_c is not None:
            return _Sequence.layer_backward(ctx, g_out, g_h, g_c)
        mode = ctx.mode
        seq = proj.shape[0]
        order = list(range(seq - 1, -1, -1) if ctx.reverse else range(seq))
        g_proj: list[Tensor] = [None] * seq  # type: ignore[list-item]
        g_hps: list[Tensor] = [None] * seq  # type: ignore[list-item]
        gh, gc = g_h, g_c
        for k in range(seq - 1, -1, -1):
            t = order[k]
            gh = gh + g_out[t]
            if mode == "LSTM":
                si, sf, so, tg, tc2, c_prev = ctx.acts[k]
                go = gh * tc2 * so * (1 - so)
                gc = gc + gh * so * (1 - tc2 * tc2)
                gi = gc * tg * si * (1 - si)
                gf = gc * c_prev * sf * (1 - sf)
                gg = gc * si * (1 - tg * tg)
                g_gates = ops.cat([gi, gf, gg, go], -1)
                g_proj[t] = g_hps[k] = g_gates
                gc = gc * sf
                gh = g_gates.matmul(w_hh)
            else:
                r, z, n, hn = ctx.acts[k]
                gn = gh * (1 - z) * (1 - n * n)
                gz = gh * (ctx.prev[k] - n) * z * (1 - z)
                gr = gn * hn * r * (1 - r)
                g_proj[t] = ops.cat([gr, gz, gn], -1)
                g_hps[k] = ops.cat([gr, gz, gn * r], -1)
                gh = gh * z + g_hps[k].matmul(w_hh)
        n_g = g_hps[0].shape[-1]
        g_hp = ops.stack(g_hps, 0).reshape(-1, n_g)
        needs = ctx.needs_input_grad
        g_w = (
            g_hp.t().matmul(ops.stack(ctx.prev, 0).reshape(-1, h0.shape[-1])) if needs[5] else None
        )
        g_b = g_hp.sum(0) if needs[6] else None
        return (
            None,
            None,
            ops.stack(g_proj, 0) if needs[2] else None,
            gh if needs[3] else None,
            gc if mode == "LSTM" and needs[4] else None,
            g_w,
            g_b,
            None,
            None,
            None,
        )

    @staticmethod
    def recurrent_grads(ctx: Any, g_proj: Tensor, h0: Tensor, out: Tensor) -> tuple[Any, Any]:
        """The recurrent weight's and bias's gradients over all steps at once, from the
        gradients ``g_proj`` of every step's state projection ``(steps, batch, gates)``: the
        weight's from the state each step read (h0 first, then the previous step's output),
        each None where ``ctx`` does not need it."""
        needs = ctx.needs_input_grad
        g_w = g_b = None
        gm = g_proj.reshape(-1, g_proj.shape[-1])
        if needs[5]:
            first = h0.unsqueeze(0)
            prev = ops.cat([out[1:], first] if ctx.reverse else [first, out[:-1]], 0)
            g_w = gm.t().matmul(prev.reshape(-1, h0.shape[-1]))
        if needs[6]:
            g_b = gm.sum(0)
        return g_w, g_b

    @staticmethod
    def layer_grads(
        ctx: Any, g_proj: Any, g_h0: Any, g_c0: Any, g_w: Any, g_b: Any, g_w_hr: Any = None
    ) -> tuple[Any, ...]:
        """A layer function's gradients in its arguments' order (the projected input, the
        initial states, the recurrent weight and bias, the projection weight), each where
        an input needs it."""
        needs = ctx.needs_input_grad
        return (
            None,
            None,
            g_proj if needs[2] else None,
            g_h0 if needs[3] else None,
            g_c0 if g_c0 is not None and needs[4] else None,
            g_w,
            g_b,
            None,
            None,
            g_w_hr,
        )

    @staticmethod
    def layer_backward(ctx: Any, g_out: Tensor, g_h: Tensor, g_c: Tensor) -> tuple[Any, ...]:
        """The backward of a layer that ``_lstm_layer`` ran: the recurrence's gradients in
        one call, then the recurrent weight's and bias's over all steps at once."""
        _, h0, c0, w_hh, _, w_hr = ctx.saved_tensors
        out, ws = ctx.layer
        g_proj, g_h0, g_c0, g_hr = ops._lstm_layer_backward(
            g_out, g_h, g_c, c0, w_hh, ws, ctx.reverse, ctx.sizes, w_hr
        )
        needs = ctx.needs_input_grad
        g_w, g_b = _Sequence.recurrent_grads(ctx, g_proj, h0, out)
        g_w_hr = None
        if w_hr is not None and needs[9]:
            # over all steps at once, from each step's state before its projection
            hsz = w_hr.shape[1]
            h_full = ws[:, 6 * hsz :].transpose(1, 2).reshape(-1, hsz)
            g_w_hr = g_hr.reshape(-1, w_hr.shape[0]).t().matmul(h_full)
        return _Sequence.layer_grads(ctx, g_proj, g_h0, g_c0, g_w, g_b, g_w_hr)

    @staticmethod
    def gru_layer_backward(ctx: Any, g_out: Tensor, g_h: Tensor) -> tuple[Any, ...]:
        """The backward of a layer that ``_gru_layer`` ran, as :meth:`layer_backward`: the
        recurrence's gradients in one call, the recurrent weight's and bias's from the
        gradients of every step's state projection at once."""
        _, h0, _, w_hh, _, _ = ctx.saved_tensors
        out, ws = ctx.layer
        g_proj, g_hp, g_h0 = ops._gru_layer_backward(
            g_out, g_h, h0, w_hh, ws, ctx.reverse, ctx.sizes
        )
        g_w, g_b = _Sequence.recurrent_grads(ctx, g_hp, h0, out)
        return _Sequence.layer_grads(ctx, g_proj, g_h0, None, g_w, g_b)

    @staticmethod
    def rnn_layer_backward(ctx: Any, g_out: Tensor, g_h: Tensor) -> tuple[Any, ...]:
        """The backward of a layer that ``_rnn_layer`` ran, as :meth:`layer_backward`."""
        _, h0, _, w_hh, _, _ = ctx.saved_tensors
        out, _ = ctx.layer
        relu = ctx.mode == "RNN_RELU"
        g_proj, g_h0 = ops._rnn_layer_backward(g_out, g_h, out, w_hh, relu, ctx.reverse, ctx.sizes)
        g_w, g_b = _Sequence.recurrent_grads(ctx, g_proj, h0, out)
        return _Sequence.layer_grads(ctx, g_proj, g_h0, None, g_w, g_b)

    @staticmethod
    def recorded_backward(
        ctx: Any, g_out: Tensor, g_h: Tensor, g_c: Tensor | None
    ) -> tuple[Any, ...]:
        proj, h0, c0, w_hh, b_hh, w_hr = ctx.saved_tensors
        seq = proj.shape[0]
        order = range(seq - 1, -1, -1) if ctx.reverse else range(seq)
        h, c = h0, c0
        hs: list[Tensor] = [None] * seq  # type: ignore[list-item]
        rows = ops.arange(h0.shape[0], device=h0.device).unsqueeze(1)
        for t in order:
            if ctx.mode == "LSTM":
                i, f, g, o = (proj[t] + F.linear(h, w_hh, b_hh)).chunk(4, -1)
                c_new = f.sigmoid() * c + i.sigmoid() * g.tanh()
                h_new = o.sigmoid() * c_new.tanh()
                if w_hr is not None:
                    h_new = F.linear(h_new, w_hr)
            elif ctx.mode == "GRU":
                h_new, c_new = _gru_step(proj[t], h, w_hh, b_hh), None
            else:
                relu = ctx.mode == "RNN_RELU"
                h_new = _rnn_step(proj[t], h, w_hh, b_hh, "relu" if relu else "tanh")
                c_new = None
            if ctx.sizes is not None and ctx.sizes[t] < h0.shape[0]:
                # (packed) the sequences past their end carry their states, as the kernels
                m = rows < ctx.sizes[t]
                h_new = ops.where(m, h_new, h)
                c_new = None if c is None else ops.where(m, c_new, c)
            h, c = h_new, c_new
            hs[t] = h
        outs = [ops.stack(hs, 0), h] + ([c] if ctx.mode == "LSTM" else [])
        grads = [g_out, g_h] + ([g_c] if ctx.mode == "LSTM" else [])
        positions = (2, 3, 4, 5, 6, 9)  # (of these in ``forward``'s arguments)
        inputs = [(i, x) for i, x in zip(positions, (proj, h0, c0, w_hh, b_hh, w_hr), strict=True)
                  if x is not None and ctx.needs_input_grad[i]]  # fmt: skip
        res = autograd_grad(outs, [x for _, x in inputs], grads, create_graph=True,
                            allow_unused=True)  # fmt: skip
        full: list[Any] = [None] * 10
        for (i, _), r in zip(inputs, res, strict=True):
            full[i] = r
        return tuple(full)


# The pointwise part of a step as one graph node each: the composite form above records a
# dozen nodes per step, and its gate split's backward fills a zero tensor per gate that the
# engine then adds up; these give the same values (up to rounding) at under half the cost of
# a step's backward. A backward that records (create_graph) recomputes the gates from the
# saved inputs, so that the gradient is itself differentiable.
class _LSTMGates(Function):
    """``(h', c')`` from the pre-activation gates ``(i, f, g, o)`` and ``c``."""

    @staticmethod
    def forward(ctx: Any, gates: Tensor, c: Tensor) -> tuple[Tensor, Tensor]:
        ctx.set_materialize_grads(False)
        si, sf, so, tg, c2, tc2 = _lstm_acts(gates, c)
        ctx.save_for_backward(gates, c, si, sf, so, tg, tc2)
        return so * tc2, c2

    @staticmethod
    def backward(ctx: Any, gh: Tensor | None, gc: Tensor | None) -> tuple[Any, Any]:
        gates, c, si, sf, so, tg, tc2 = ctx.saved_tensors
        if grad_mode.is_grad_enabled():
            si, sf, so, tg, _, tc2 = _lstm_acts(gates, c)
        if gh is None and gc is None:
            return None, None
        if gh is None:
            go = ops.zeros_like(so)
            gc_all = gc
        else:
            go = gh * tc2 * so * (1 - so)
            gc_all = gh * so * (1 - tc2 * tc2)
            if gc is not None:
                gc_all = gc_all + gc
        gi = gc_all * tg * si * (1 - si)
        gf = gc_all * c * sf * (1 - sf)
        gg = gc_all * si * (1 - tg * tg)
        g_c = gc_all * sf if ctx.needs_input_grad[1] else None
        return ops.cat([gi, gf, gg, go], -1), g_c


def _lstm_acts(gates: Tensor, c: Tensor) -> tuple[Tensor, ...]:
    i, f, g, o = gates.chunk(4, -1)
    si, sf, so, tg = i.sigmoid(), f.sigmoid(), o.sigmoid(), g.tanh()
    c2 = sf * c + si * tg
    return si, sf, so, tg, c2, c2.tanh()


class _GRUGates(Function):
    """``h'`` from the input's and the state's projections (gates ``r, z, n``) and ``h``."""

    @staticmethod
    def forward(ctx: Any, x_proj: Tensor, h_proj: Tensor, h: Tensor) -> Tensor:
        r, z, n, hn = _gru_acts(x_proj, h_proj)
        ctx.save_for_backward(x_proj, h_proj, h, r, z, n, hn)
        return n + z * (h - n)

    @staticmethod
    def backward(ctx: Any, gh: Tensor) -> tuple[Any, Any, Any]:
        x_proj, h_proj, h, r, z, n, hn = ctx.saved_tensors
        if grad_mode.is_grad_enabled():
            r, z, n, hn = _gru_acts(x_proj, h_proj)
        gn = gh * (1 - z) * (1 - n * n)
        gz = gh * (h - n) * z * (1 - z)
        gr = gn * hn * r * (1 - r)
        g_x = ops.cat([gr, gz, gn], -1) if ctx.needs_input_grad[0] else None
        g_hp = ops.cat([gr, gz, gn * r], -1) if ctx.needs_input_grad[1] else None
        g_h = gh * z if ctx.needs_input_grad[2] else None
        return g_x, g_hp, g_h


def _gru_acts(x_proj: Tensor, h_proj: Tensor) -> tuple[Tensor, ...]:
    xr, xz, xn = x_proj.chunk(3, -1)
    hr, hz, hn = h_proj.chunk(3, -1)
    r = (xr + hr).sigmoid()
    z = (xz + hz).sigmoid()
    return r, z, (xn + r * hn).tanh(), hn
