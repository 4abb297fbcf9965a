"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` (multi-layer, bidirectional, ``batch_first``),
and their single-step cells ``RNNCell``, ``LSTMCell``, ``GRUCell``, with PyTorch's parameter
names, gate order and initialisation.

Each layer computes the input projection of every time step in one matmul and then loops
over time for the recurrent part (the only sequential work, ``_recurrence.py``).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ..._tensor import Tensor
from ...amp.autocast_mode import _is_any_autocast_enabled, get_autocast_dtype, is_autocast_enabled
from ...ops import functions as ops
from ...ops.frontends import named_as
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence
from . import _recurrence
from ._recurrence import (
    _batch_sizes,
    _fusable,
    _gru_step,
    _has_layer_kernel,
    _lstm_step,
    _permute_hidden,
    _recording,
    _rnn_step,
    _where_state,
)
from .linear import _factory
from .module import Module

# Bound by assignment, not imported: CPython compiles a method call on a name that ``from ...
# import`` binds (``_LAYER_NODE.get(...)``) as an attribute load and a bound-method call, where
# on a module's own global it compiles the cheaper method call these steps had before the split.
_Sequence = _recurrence._Sequence
_LAYER_NODE, _CELL_NODE = _recurrence._LAYER_NODE, _recurrence._CELL_NODE

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _to(state: Any, dtype: Any) -> Any:
    """A layer's initial state (a tensor, or an LSTM's pair) in ``dtype``."""
    return tuple(t.to(dtype) for t in state) if isinstance(state, tuple) else state.to(dtype)


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
        # PyTorch's CPU LSTM is one ``mkldnn_rnn_layer`` a layer, on autocast's lower-precision
        # list: the recurrence, its states and its results in autocast's dtype (an RNN's steps
        # are ``linear`` calls, which autocast itself; a GRU's stay in float32, as PyTorch's;
        # an LSTM with projections takes PyTorch's steps of linear calls, left as they are).
        lower = (
            get_autocast_dtype("cpu")
            if self.mode == "LSTM"
            and not self.proj_size
            and input.device.type == "cpu"
            and is_autocast_enabled("cpu")
            else None
        )
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
                if lower is not None:
                    proj, w_hh, state = proj.to(lower), w_hh.to(lower), _to(state, lower)
                    b_hh = None if b_hh is None else b_hh.to(lower)
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
                xs = proj.unbind(0)  # (one node for all the steps: UnbindBackward0)
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
