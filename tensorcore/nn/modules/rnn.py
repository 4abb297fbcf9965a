"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` (multi-layer, bidirectional, ``batch_first``),
and their single-step cells ``RNNCell``, ``LSTMCell``, ``GRUCell``, with PyTorch's parameter
names, gate order and initialisation.

Each layer computes the input projection of every time step in one matmul and then loops
over time for the recurrent part (the only sequential work).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..._tensor import Tensor
from ...amp.autocast_mode import _is_any_autocast_enabled
from ...autograd import grad as autograd_grad
from ...autograd import grad_mode
from ...autograd.function import Function
from ...dispatch import get_op
from ...ops import functions as ops
from ...ops.frontends import named_as
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence
from .linear import _factory
from .module import Module

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


class RNNBase(Module):
    """The shared machinery of :class:`RNN`, :class:`LSTM` and :class:`GRU`."""

    #: Whether the recurrent bias ``b_hh`` only adds to every step's gates, so that it joins
    #: the input's bias in the projection of all steps at once (one pass over the gates of
    #: the whole sequence fewer, forward and backward): not a GRU's, which its reset gate
    #: scales.
    _fold_recurrent_bias = False

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if not 0 <= dropout <= 1:
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of "
                "an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                "dropout expects num_layers greater than 1, but got "
                f"dropout={dropout} and num_layers={num_layers}",
                stacklevel=3,
            )
        if hidden_size <= 0 or num_layers <= 0:
            raise ValueError("hidden_size and num_layers must be positive integers")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        gate = _GATES[mode] * hidden_size
        dirs = 2 if bidirectional else 1
        out_size = proj_size or hidden_size  # the size of h (an LSTM projects it)
        kw = _factory(device, dtype)
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            for d in range(dirs):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                in_size = input_size if layer == 0 else out_size * dirs
                names = [f"weight_ih{sfx}", f"weight_hh{sfx}"]
                setattr(self, names[0], Parameter(ops.empty((gate, in_size), **kw)))
                setattr(self, names[1], Parameter(ops.empty((gate, out_size), **kw)))
                if bias:
                    names += [f"bias_ih{sfx}", f"bias_hh{sfx}"]
                    setattr(self, names[2], Parameter(ops.empty(gate, **kw)))
                    setattr(self, names[3], Parameter(ops.empty(gate, **kw)))
                if proj_size:
                    names.append(f"weight_hr{sfx}")
                    setattr(self, names[-1], Parameter(ops.empty((proj_size, hidden_size), **kw)))
                self._flat_weights_names.extend(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def flatten_parameters(self) -> None:
        """Nothing to do: PyTorch packs the weights into one buffer for cuDNN here (and does
        nothing off cuDNN); tensorcore's layers read each weight where it is, on every device.
        Programs call it before each forward, as PyTorch's warning asks.

        Examples
        --------
        >>> from tensorcore import nn
        >>> lstm = nn.LSTM(2, 3)
        >>> lstm.flatten_parameters() is None
        True
        """

    @property
    def _flat_weights(self) -> list[Parameter]:
        """The parameters in PyTorch's flat order (``_flat_weights_names``'s)."""
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters of each layer and direction, in PyTorch's order."""
        per = (4 if self.bias else 2) + (1 if self.proj_size else 0)
        flat = self._flat_weights
        return [flat[i : i + per] for i in range(0, len(flat), per)]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s

    # ------------------------------------------------------------ the recurrence
    def _cell(
        self, x_proj: Tensor, h: Any, w_hh: Tensor, b_hh: Tensor | None, w_hr: Tensor | None
    ) -> tuple[Any, Tensor]:
        """One time step: the new state and the output (``w_hr``: an LSTM's projection)."""
        raise NotImplementedError

    def _run(self, input: Any, hx: Any) -> tuple[Any, Any]:
        if isinstance(input, PackedSequence):
            return self._run_packed(input, hx)
        return self._run_padded(input, hx, None)

    def _run_packed(self, packed: PackedSequence, hx: Any) -> tuple[Any, Any]:
        """Variable-length sequences: run the padded batch (longest first) with each
        sequence's state frozen after its last step, then pack the outputs again."""
        padded, lengths = pad_packed_sequence(packed._replace(unsorted_indices=None))
        if hx is not None and packed.sorted_indices is not None:
            hx = _permute_hidden(hx, packed.sorted_indices)
        output, hidden = self._run_padded(padded, hx, lengths)
        out = pack_padded_sequence(output, lengths)
        if packed.unsorted_indices is not None:
            hidden = _permute_hidden(hidden, packed.unsorted_indices)
        return out._replace(
            sorted_indices=packed.sorted_indices, unsorted_indices=packed.unsorted_indices
        ), hidden

    def _run_padded(self, input: Tensor, hx: Any, lengths: Tensor | None) -> tuple[Tensor, Any]:
        """``lengths`` (sorted, longest first) is given for packed input, which comes
        time-major."""
        active = sizes = None
        if lengths is not None:
            times = ops.arange(input.shape[0]).unsqueeze(1)
            active = (times < lengths.unsqueeze(0)).to(input.device)  # (T, B)
            sizes = _batch_sizes(lengths.tolist(), input.shape[0])
        unbatched = input.ndim == 2 and active is None
        if input.ndim not in (2, 3):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.ndim}D instead"
            )
        if unbatched:
            input = input.unsqueeze(1)
        elif self.batch_first and active is None:
            input = input.transpose(0, 1)
        w0 = getattr(self, self._flat_weights_names[0])
        if input.dtype != w0.dtype and not _is_any_autocast_enabled():
            # (a ValueError, as PyTorch's, which programs catch to convert the input)
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({w0.dtype}). "
                f"Convert input: input.to({w0.dtype}), or convert model: model.to({input.dtype})"
            )
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                f"{input.shape[-1]}"
            )
        seq, batch = input.shape[0], input.shape[1]
        dirs = 2 if self.bidirectional else 1
        states = self._initial_states(hx, batch, dirs, unbatched, input)
        per = (4 if self.bias else 2) + (1 if self.proj_size else 0)
        flat = [getattr(self, n) for n in self._flat_weights_names]
        layer_in = input
        finals: list[Any] = []
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                k = layer * dirs + d
                w_ih, w_hh, *rest = flat[k * per : (k + 1) * per]
                w_hr = rest.pop() if self.proj_size else None
                b_ih, b_hh = (rest[0], rest[1]) if rest else (None, None)
                if b_hh is not None and self._fold_recurrent_bias:
                    b_ih, b_hh = b_ih + b_hh, None
                proj = F.linear(layer_in, w_ih, b_ih)  # (L, N, gates * H), all steps at once
                state = states[k]
                steps = range(seq - 1, -1, -1) if d else range(seq)
                if _fusable(self.mode, proj, state, sizes, w_hr):
                    h0, c0 = state if self.mode == "LSTM" else (state, None)
                    out, h, c = _Sequence.apply(
                        self.mode, bool(d), proj, h0, c0, w_hh, b_hh, sizes, _recording(), w_hr
                    )
                    # (PyTorch's layer node, which programs print as the output's grad_fn)
                    names = _LAYER_NODE.get(out.device.type, _LAYER_NODE["cpu"])
                    named_as(out, names["LSTM_PROJ" if w_hr is not None else self.mode])
                    outs.append(out)
                    finals.append((h, c) if self.mode == "LSTM" else h)
                    continue
                ys: list[Tensor] = [None] * seq  # type: ignore[list-item]
                xs = _Steps.apply(proj) if proj.requires_grad else proj.unbind(0)
                for t in steps:
                    new_state, y = self._cell(xs[t], state, w_hh, b_hh, w_hr)
                    if active is not None:
                        # Steps past a sequence's end keep its state and output zeros.
                        m = active[t].unsqueeze(1)
                        new_state = _where_state(m, new_state, state)
                        y = ops.where(m, y, 0.0)
                    state, ys[t] = new_state, y
                size = self.proj_size or self.hidden_size
                outs.append(ops.stack(ys, 0) if seq else proj[..., :size])
                finals.append(state)
            layer_in = outs[0] if dirs == 1 else ops.cat(outs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_in = self._dropout_between_layers(layer_in, lengths)
        output = layer_in
        if unbatched:
            output = output.squeeze(1)
        elif self.batch_first and active is None:
            output = output.transpose(0, 1)
        return output, self._final_states(finals, unbatched)

    def _dropout_between_layers(self, x: Tensor, lengths: Tensor | None) -> Tensor:
        if lengths is None:
            return F.dropout(x, self.dropout, True)
        # PyTorch drops out the packed data (sum(lengths), H), not the padded batch: the same
        # random draws reach the same elements only in that order.
        packed = pack_padded_sequence(x, lengths)
        dropped = packed._replace(data=F.dropout(packed.data, self.dropout, True))
        return pad_packed_sequence(dropped, total_length=x.shape[0])[0]

    def _initial_states(
        self, hx: Any, batch: int, dirs: int, unbatched: bool, like: Tensor
    ) -> list[Any]:
        n = self.num_layers * dirs
        if hx is None:
            return [self._zero_state(batch, like) for _ in range(n)]
        return self._split_states(hx, n, batch, unbatched)

    def _zero_state(self, batch: int, like: Tensor) -> Any:
        return ops.zeros((batch, self.hidden_size), dtype=like.dtype, device=like.device)

    def _split_states(self, hx: Any, n: int, batch: int, unbatched: bool) -> list[Any]:
        h = hx.unsqueeze(1) if unbatched else hx
        _check_hidden(h, (n, batch, self.hidden_size), "hidden")
        return [h[i] for i in range(n)]

    def _final_states(self, finals: list[Any], unbatched: bool) -> Any:
        h = ops.stack(finals, 0)
        return h.squeeze(1) if unbatched else h


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


class _Steps(Function):
    """``x.unbind(0)`` (the time steps) as one graph node whose backward stacks the steps'
    gradients: one ``select`` per step would give each step's gradient a zero tensor of the
    whole sequence's size for the engine to add up (quadratic in the length)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> tuple[Tensor, ...]:
        ctx.set_materialize_grads(False)
        return tuple(t.clone() for t in x.unbind(0))

    @staticmethod
    def backward(ctx: Any, *grads: Tensor | None) -> Tensor:
        like = next(g for g in grads if g is not None)
        zero = None
        parts = []
        for g in grads:
            if g is None:
                zero = ops.zeros_like(like) if zero is None else zero
                g = zero
            parts.append(g)
        return ops.stack(parts, 0)


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


def _check_hidden(h: Tensor, want: tuple[int, ...], what: str) -> None:
    if tuple(h.shape) != want:
        raise RuntimeError(f"Expected {what} size {want}, got {list(h.shape)}")


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (``relu`` with
    ``nonlinearity="relu"``). Returns ``(output, h_n)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> rnn = tc.nn.RNN(3, 5, num_layers=2)
    >>> out, h = rnn(tc.ones(7, 2, 3))
    >>> out.shape, h.shape
    (tensorcore.Size([7, 2, 5]), tensorcore.Size([2, 2, 5]))
    """

    def __init__(self, input_size: int, hidden_size: int, *args: Any, **kwargs: Any) -> None:
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        self.nonlinearity = nonlinearity
        mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(mode, input_size, hidden_size, *args, **kwargs)

    _fold_recurrent_bias = True

    def _cell(
        self, x_proj: Tensor, h: Any, w_hh: Tensor, b_hh: Tensor | None, w_hr: Tensor | None
    ) -> tuple[Any, Tensor]:
        h = _rnn_step(x_proj, h, w_hh, b_hh, self.nonlinearity)
        return h, h

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """``(output, h_n)`` for ``input`` (L, N, H_in) (or batch first, or unbatched)."""
        return self._run(input, hx)


class LSTM(RNNBase):
    """Long short-term memory; gates in PyTorch's order (input, forget, cell, output).
    Returns ``(output, (h_n, c_n))``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> lstm = tc.nn.LSTM(3, 4, batch_first=True)
    >>> out, (h, c) = lstm(tc.ones(2, 6, 3))
    >>> out.shape, h.shape, c.shape
    (tensorcore.Size([2, 6, 4]), tensorcore.Size([1, 2, 4]), tensorcore.Size([1, 2, 4]))
    """

    _fold_recurrent_bias = True

    def __init__(self, input_size: int, hidden_size: int, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", input_size, hidden_size, *args, **kwargs)

    def _zero_state(self, batch: int, like: Tensor) -> Any:
        c = ops.zeros((batch, self.hidden_size), dtype=like.dtype, device=like.device)
        if not self.proj_size:
            return (c, c)
        return (ops.zeros((batch, self.proj_size), dtype=like.dtype, device=like.device), c)

    def _split_states(self, hx: Any, n: int, batch: int, unbatched: bool) -> list[Any]:
        h, c = hx
        if unbatched:
            h, c = h.unsqueeze(1), c.unsqueeze(1)
        _check_hidden(h, (n, batch, self.proj_size or self.hidden_size), "hidden[0]")
        _check_hidden(c, (n, batch, self.hidden_size), "hidden[1]")
        return [(h[i], c[i]) for i in range(n)]

    def _final_states(self, finals: list[Any], unbatched: bool) -> Any:
        h = ops.stack([s[0] for s in finals], 0)
        c = ops.stack([s[1] for s in finals], 0)
        return (h.squeeze(1), c.squeeze(1)) if unbatched else (h, c)

    def _cell(
        self, x_proj: Tensor, state: Any, w_hh: Tensor, b_hh: Tensor | None, w_hr: Tensor | None
    ) -> tuple[Any, Tensor]:
        h, c = _lstm_step(x_proj, state, w_hh, b_hh)
        if w_hr is not None:  # proj_size: h_t = W_hr (o_t * tanh(c_t))
            h = F.linear(h, w_hr)
        return (h, c), h

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Any]:
        """``(output, (h_n, c_n))``."""
        return self._run(input, hx)


class GRU(RNNBase):
    """Gated recurrent unit; gates in PyTorch's order (reset, update, new). Returns
    ``(output, h_n)``."""

    def __init__(self, input_size: int, hidden_size: int, *args: Any, **kwargs: Any) -> None:
        super().__init__("GRU", input_size, hidden_size, *args, **kwargs)

    def _cell(
        self, x_proj: Tensor, h: Any, w_hh: Tensor, b_hh: Tensor | None, w_hr: Tensor | None
    ) -> tuple[Any, Tensor]:
        h = _gru_step(x_proj, h, w_hh, b_hh)
        return h, h

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """``(output, h_n)``."""
        return self._run(input, hx)


class RNNCellBase(Module):
    """The shared parameters of :class:`RNNCell`, :class:`LSTMCell` and :class:`GRUCell`:
    ``weight_ih`` (gates * hidden, input), ``weight_hh`` (gates * hidden, hidden) and the
    biases ``bias_ih``, ``bias_hh``, all from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        kw = _factory(device, dtype)
        gate = num_chunks * hidden_size
        self.weight_ih = Parameter(ops.empty((gate, input_size), **kw))
        self.weight_hh = Parameter(ops.empty((gate, hidden_size), **kw))
        if bias:
            self.bias_ih: Parameter | None = Parameter(ops.empty(gate, **kw))
            self.bias_hh: Parameter | None = Parameter(ops.empty(gate, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0.0
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s

    def _prepare(self, input: Tensor, hx: Any) -> tuple[Tensor, bool]:
        """``input`` as a batch (an unbatched 1-D input gets a batch dim of 1)."""
        if input.ndim not in (1, 2):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.ndim}D instead"
            )
        for h in hx if isinstance(hx, tuple) else (hx,):
            if h is not None and h.ndim != input.ndim:
                raise ValueError(
                    f"{type(self).__name__}: Expected hidden to be {input.ndim}D, got "
                    f"{h.ndim}D instead"
                )
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.shape[-1]} expected "
                f"{self.input_size}"
            )
        # PyTorch's cell checks, by the state's place in hx (an LSTM's c is hidden1).
        batch = input.shape[0] if input.ndim == 2 else None
        for i, h in enumerate(hx if isinstance(hx, tuple) else (hx,)):
            if h is None:
                continue
            if batch is not None and h.shape[0] != batch:
                raise RuntimeError(
                    f"Input batch size {batch} doesn't match hidden{i} batch size {h.shape[0]}"
                )
            if h.shape[-1] != self.hidden_size:
                raise RuntimeError(
                    f"hidden{i} has inconsistent hidden_size: got {h.shape[-1]}, expected "
                    f"{self.hidden_size}"
                )
        return (input.unsqueeze(0), True) if input.ndim == 1 else (input, False)

    def _zeros(self, input: Tensor) -> Tensor:
        return ops.zeros((input.shape[0], self.hidden_size), dtype=input.dtype, device=input.device)

    def _project(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight_ih, self.bias_ih)


def _one_step(
    mode: str, proj: Tensor, h: Tensor, c: Tensor | None, w_hh: Tensor, b_hh: Tensor | None
) -> tuple[Tensor, Tensor | None] | None:
    """A cell's step ``(h', c')`` (``c'`` None but for an LSTM) as a one-step layer: one
    :class:`_Sequence` node running the backend's layer kernel (a composite step records a
    dozen operators, each a dispatch that costs more than its arithmetic at a cell's sizes);
    None where the backend lacks the kernel or the dtypes differ."""
    if not (proj._dtype.is_floating_point and h._dtype == proj._dtype) or (
        c is not None and c._dtype != proj._dtype
    ):
        return None
    if not _has_layer_kernel(mode, proj):
        return None
    if b_hh is not None and mode != "GRU":  # (it only adds to the gates)
        proj, b_hh = proj + b_hh, None
    step = proj.unsqueeze(0)
    _, h2, c2 = _Sequence.apply(mode, False, step, h, c, w_hh, b_hh, None, _recording(), None)
    named_as(h2, _CELL_NODE.get(h2.device.type, _CELL_NODE["cpu"])[mode])
    return h2, c2


def _batch(h: Tensor | None, unbatched: bool) -> Tensor | None:
    return h.unsqueeze(0) if h is not None and unbatched else h


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (``relu``
    with ``nonlinearity="relu"``); ``hx`` defaults to zeros. Input (N, H_in) or (H_in).

    Examples
    --------
    >>> import tensorcore as tc
    >>> cell = tc.nn.RNNCell(3, 5)
    >>> h = cell(tc.ones(2, 3))
    >>> cell(tc.ones(2, 3), h).shape
    tensorcore.Size([2, 5])
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        """The next hidden state."""
        x, unbatched = self._prepare(input, hx)
        h = _batch(hx, unbatched)
        # (the composite step: four operators, fewer than a one-step layer node costs)
        h = _rnn_step(
            self._project(x),
            self._zeros(x) if h is None else h,
            self.weight_hh,
            self.bias_hh,
            self.nonlinearity,
        )
        return h.squeeze(0) if unbatched else h


class LSTMCell(RNNCellBase):
    """One step of an LSTM; gates in PyTorch's order (input, forget, cell, output). Returns
    ``(h', c')``; ``hx = (h, c)`` defaults to zeros.

    Examples
    --------
    >>> import tensorcore as tc
    >>> cell = tc.nn.LSTMCell(3, 4)
    >>> h, c = cell(tc.ones(2, 3))
    >>> h, c = cell(tc.ones(2, 3), (h, c))
    >>> h.shape, c.shape
    (tensorcore.Size([2, 4]), tensorcore.Size([2, 4]))
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Tensor]:
        """``(h', c')``."""
        x, unbatched = self._prepare(input, hx)
        if hx is None:
            h = c = self._zeros(x)
        else:
            h, c = (t.unsqueeze(0) if unbatched else t for t in hx)
        proj = self._project(x)
        fused = _one_step("LSTM", proj, h, c, self.weight_hh, self.bias_hh)
        if fused is not None:
            h, c = fused  # type: ignore[assignment]
        else:
            h, c = _lstm_step(proj, (h, c), self.weight_hh, self.bias_hh)
        return (h.squeeze(0), c.squeeze(0)) if unbatched else (h, c)


class GRUCell(RNNCellBase):
    """One step of a GRU; gates in PyTorch's order (reset, update, new). Returns ``h'``;
    ``hx`` defaults to zeros.

    Examples
    --------
    >>> import tensorcore as tc
    >>> cell = tc.nn.GRUCell(3, 4)
    >>> cell(tc.ones(3)).shape
    tensorcore.Size([4])
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        """The next hidden state."""
        x, unbatched = self._prepare(input, hx)
        h = _batch(hx, unbatched)
        h = self._zeros(x) if h is None else h
        proj = self._project(x)
        fused = _one_step("GRU", proj, h, None, self.weight_hh, self.bias_hh)
        h = fused[0] if fused is not None else _gru_step(proj, h, self.weight_hh, self.bias_hh)
        return h.squeeze(0) if unbatched else h
