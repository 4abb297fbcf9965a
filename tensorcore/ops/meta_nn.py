"""Meta functions of the neural-network operators: argument checks and output shapes, as
``meta_functions.py`` does for the others. This module holds ``linear``, the recurrent layers,
the losses and ``embedding_bag``, and the checks the layer modules share (a result's
channels-last spec, floating inputs, a parameter against its input); ``meta_conv.py`` the
convolutions and poolings, ``meta_norm.py`` the normalisations.

Errors name the operator, the shapes involved and what would fit, as PyTorch's do.

Memory formats: the results of a convolution, a pooling and a batch normalisation are laid
out channels-last where an input suggests it (``_memory_format.layer_format``: the input or
the weight of a convolution, the input of the others; a 1-D convolution's as PyTorch's 2-D
view of it suggests, ``_memory_format.conv1d_result_strides``), as PyTorch's are; their backward
operators' input gradients follow ``grad_output`` (and the weight or input they are given),
which the derivative rules hand over in the forward input's format, as PyTorch's backward
kernels read it. A spec of three, ``(shape, dtype, like)``, asks the frontend for a result
in ``like``'s memory order.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from .. import dtypes as dt
from .._memory_format import layer_format
from .._tensor import Tensor, torch_name
from ..dtypes import int64
from .meta_functions import format_spec

__all__ = [
    "check_param",
    "layer_spec",
    "meta_binary_cross_entropy",
    "meta_binary_cross_entropy_backward",
    "meta_binary_cross_entropy_with_logits",
    "meta_binary_cross_entropy_with_logits_backward",
    "meta_embedding_bag",
    "meta_embedding_bag_dense_backward",
    "meta_gru_layer",
    "meta_gru_layer_backward",
    "meta_huber_loss",
    "meta_huber_loss_backward",
    "meta_linear",
    "meta_linear_backward",
    "meta_lstm_layer",
    "meta_lstm_layer_backward",
    "meta_rnn_layer",
    "meta_rnn_layer_backward",
    "meta_smooth_l1_loss",
    "meta_smooth_l1_loss_backward",
    "mixed_param",
    "require_floating",
]


def layer_spec(shape: tuple[int, ...], dtype: dt.dtype, *inputs: Tensor | None) -> tuple[Any, ...]:
    """A result's spec: in the channels-last format one of ``inputs`` suggests, if any."""
    fmt = layer_format(*inputs)
    if fmt is None:
        return shape, dtype
    return format_spec(shape, dtype, fmt, next(t for t in inputs if t is not None)._device)


def require_floating(fn: str, *tensors: Tensor) -> None:
    for t in tensors:
        if not t._dtype.is_floating_point:
            raise RuntimeError(f"\"{fn}\" not implemented for '{torch_name(t._dtype)}'")


def mixed_param(x: Tensor, param: Tensor | None) -> bool:
    """Whether a normalisation's ``param`` is float32 for a 16-bit float input: PyTorch's
    mixed-type layer and batch norms (the parameters of a model run under autocast), which
    compute in float32 and return the input's dtype."""
    return (
        param is not None and param._dtype is dt.float32 and x._dtype in (dt.float16, dt.bfloat16)
    )


def check_param(
    fn: str, name: str, t: Tensor | None, shape: tuple[int, ...], x: Tensor, mixed: bool = False
) -> None:
    """Check a parameter's shape, dtype and device against the input's; ``mixed``: a float32
    parameter of a 16-bit float input is accepted too (see :func:`mixed_param`)."""
    if t is None:
        return
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if t._shape != shape:
        raise RuntimeError(
            f"{fn}(): expected {name} of shape {list(shape)} for an input of shape "
            f"{list(x._shape)}, got {list(t._shape)}"
        )
    if (t._dtype is not x._dtype and not (mixed and mixed_param(x, t))) or (
        t._device is not x._device and t._device != x._device
    ):
        raise RuntimeError(
            f"{fn}(): expected {name} of dtype {torch_name(x._dtype)} on {x._device} (the "
            f"input's), got {torch_name(t._dtype)} on {t._device}"
        )


def meta_linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Any:
    fn = "linear"
    if weight.ndim != 2 or input.ndim < 1 or input._shape[-1] != weight._shape[1]:
        if weight.ndim == 2 and input.ndim >= 1:  # (PyTorch's words: input @ weight.t())
            rows, k = math.prod(input._shape[:-1]), input._shape[-1]
            o, i = weight._shape
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and {i}x{o})"
            )
        raise RuntimeError(
            f"{fn}(): mat1 and mat2 shapes cannot be multiplied (input of shape "
            f"{list(input._shape)} and weight of shape {list(weight._shape)}: the input's last "
            "dim must equal the weight's second)"
        )
    if weight._dtype is not input._dtype:
        raise RuntimeError(
            f"{fn}(): mat1 and mat2 must have the same dtype, but got "  # (PyTorch's words)
            f"{torch_name(input._dtype)} and {torch_name(weight._dtype)}"
        )
    if bias is not None:
        check_param(fn, "bias", bias, (weight._shape[0],), input)
    shape = input._shape[:-1] + (weight._shape[0],)
    return (input, weight, bias), (shape, input._dtype)


def meta_linear_backward(
    grad_output: Tensor, input: Tensor, weight: Tensor, output_mask: Sequence[int]
) -> Any:
    fn = "linear_backward"
    mask = tuple(output_mask)
    if len(mask) != 3 or any(m not in (0, 1) for m in mask):
        raise RuntimeError(f"{fn}(): output_mask must be three 0/1 flags, got {list(mask)}")
    meta_linear(input, weight)
    want = input._shape[:-1] + (weight._shape[0],)
    check_param(fn, "grad_output", grad_output, want, input)
    d = input._dtype
    specs = ((input._shape, d), (weight._shape, d), ((weight._shape[0],), d))
    # An output not asked for is not made (PyTorch's undefined tensor, None here): the
    # first layer's input gradient would be a batch-sized buffer filled for nothing.
    return (grad_output, input, weight, mask), tuple(
        spec if m else None for spec, m in zip(specs, mask, strict=True)
    )


def _lstm_checks(
    fn: str, proj: Tensor, w_hh: Tensor, n_gates: int = 4, **states: Tensor
) -> tuple[int, ...]:
    """The shape (L, N, H) of a layer's output, after checking the gate projection (L, N,
    ``n_gates`` * H) and the recurrent weight (``n_gates`` * H, H) and every state (N, H)
    against it."""
    if proj.ndim != 3 or proj._shape[2] % n_gates:
        raise RuntimeError(
            f"{fn}(): expected proj of shape (L, N, {n_gates} * hidden_size), got "
            f"{list(proj._shape)}"
        )
    steps, batch, gates = proj._shape
    hsz = gates // n_gates
    check_param(fn, "w_hh", w_hh, (gates, hsz), proj)
    for name, t in states.items():
        check_param(fn, name, t, (batch, hsz), proj)
    return steps, batch, hsz


def _batch_sizes(fn: str, sizes: Any, steps: int, batch: int) -> tuple[int, ...] | None:
    """A packed layer's ``batch_sizes``: one per step, non-increasing, each in [0, batch]."""
    if sizes is None:
        return None
    sizes = tuple(int(b) for b in sizes)
    if (
        len(sizes) != steps
        or any(not 0 <= b <= batch for b in sizes)
        or any(a < b for a, b in itertools.pairwise(sizes))
    ):
        raise RuntimeError(
            f"{fn}(): expected batch_sizes of {steps} non-increasing sizes in [0, {batch}], "
            f"got {list(sizes)}"
        )
    return sizes


def meta_lstm_layer(
    proj: Tensor,
    h0: Tensor,
    c0: Tensor,
    w_hh: Tensor,
    reverse: bool,
    batch_sizes: Any = None,
    train: bool = True,
    w_hr: Tensor | None = None,
) -> Any:
    fn = "_lstm_layer"
    if w_hr is None:
        steps, batch, hsz = _lstm_checks(fn, proj, w_hh, h0=h0, c0=c0)
        psz = hsz
    else:  # (a projection: h is (N, P) and W_hh reads it)
        if proj.ndim != 3 or proj._shape[2] % 4:
            raise RuntimeError(
                f"{fn}(): expected proj of shape (L, N, 4 * hidden_size), got {list(proj._shape)}"
            )
        steps, batch, hsz = proj._shape[0], proj._shape[1], proj._shape[2] // 4
        psz = w_hr._shape[0] if w_hr.ndim == 2 else -1
        check_param(fn, "w_hr", w_hr, (psz, hsz), proj)
        check_param(fn, "w_hh", w_hh, (4 * hsz, psz), proj)
        check_param(fn, "h0", h0, (batch, psz), proj)
        check_param(fn, "c0", c0, (batch, hsz), proj)
    sizes = _batch_sizes(fn, batch_sizes, steps, batch)
    d = proj._dtype
    specs = (
        ((steps, batch, psz), d),
        ((batch, psz), d),
        ((batch, hsz), d),
        ((steps if train else min(steps, 2), 7 * hsz, batch), d),
    )
    return (proj, h0, c0, w_hh, bool(reverse), sizes, bool(train), w_hr), specs


def _layer_backward_checks(
    fn: str,
    grad_output: Tensor,
    w_hh: Tensor,
    gates: int,
    workspace: Tensor,
    rows: int,
    states: dict[str, Tensor],
) -> tuple[int, int, int]:
    """A recurrent layer backward's arguments against ``grad_output`` ``(L, N, H)``: the
    recurrent weight ``(gates * H, H)``, the workspace ``(L, rows * H, N)`` and each state
    ``(N, H)``; ``(L, N, H)``."""
    if grad_output.ndim != 3:
        raise RuntimeError(f"{fn}(): expected grad_output of shape (L, N, H), got "
                           f"{list(grad_output._shape)}")  # fmt: skip
    steps, batch, hsz = grad_output._shape
    check_param(fn, "w_hh", w_hh, (gates * hsz, hsz), grad_output)
    check_param(fn, "workspace", workspace, (steps, rows * hsz, batch), grad_output)
    for name, t in states.items():
        check_param(fn, name, t, (batch, hsz), grad_output)
    return steps, batch, hsz


def meta_lstm_layer_backward(
    grad_output: Tensor,
    grad_h_n: Tensor,
    grad_c_n: Tensor,
    c0: Tensor,
    w_hh: Tensor,
    workspace: Tensor,
    reverse: bool,
    batch_sizes: Any = None,
    w_hr: Tensor | None = None,
) -> Any:
    fn = "_lstm_layer_backward"
    d = grad_output._dtype
    if w_hr is None:
        states = {"grad_h_n": grad_h_n, "grad_c_n": grad_c_n, "c0": c0}
        steps, batch, hsz = _layer_backward_checks(fn, grad_output, w_hh, 4, workspace, 7, states)
        psz = hsz
        g_hr: tuple[tuple[int, ...], Any] = ((0,), d)
    else:
        if grad_output.ndim != 3 or w_hr.ndim != 2:
            raise RuntimeError(
                f"{fn}(): expected grad_output of shape (L, N, P) and w_hr of shape (P, H), "
                f"got {list(grad_output._shape)} and {list(w_hr._shape)}"
            )
        steps, batch, psz = grad_output._shape
        hsz = w_hr._shape[1]
        check_param(fn, "w_hr", w_hr, (psz, hsz), grad_output)
        check_param(fn, "w_hh", w_hh, (4 * hsz, psz), grad_output)
        check_param(fn, "workspace", workspace, (steps, 7 * hsz, batch), grad_output)
        check_param(fn, "grad_h_n", grad_h_n, (batch, psz), grad_output)
        check_param(fn, "grad_c_n", grad_c_n, (batch, hsz), grad_output)
        check_param(fn, "c0", c0, (batch, hsz), grad_output)
        g_hr = ((steps, batch, psz), d)
    sizes = _batch_sizes(fn, batch_sizes, steps, batch)
    specs = (((steps, batch, 4 * hsz), d), ((batch, psz), d), ((batch, hsz), d), g_hr)
    args = (grad_output, grad_h_n, grad_c_n, c0, w_hh, workspace, bool(reverse), sizes, w_hr)
    return args, specs


def meta_gru_layer(
    proj: Tensor,
    h0: Tensor,
    w_hh: Tensor,
    b_hh: Tensor | None,
    reverse: bool,
    batch_sizes: Any = None,
    train: bool = True,
) -> Any:
    fn = "_gru_layer"
    steps, batch, hsz = _lstm_checks(fn, proj, w_hh, 3, h0=h0)
    sizes = _batch_sizes(fn, batch_sizes, steps, batch)
    check_param(fn, "b_hh", b_hh, (3 * hsz,), proj)
    d = proj._dtype
    rows = steps if train else min(steps, 2)
    specs = (((steps, batch, hsz), d), ((batch, hsz), d), ((rows, 5 * hsz, batch), d))
    return (proj, h0, w_hh, b_hh, bool(reverse), sizes, bool(train)), specs


def meta_gru_layer_backward(
    grad_output: Tensor,
    grad_h_n: Tensor,
    h0: Tensor,
    w_hh: Tensor,
    workspace: Tensor,
    reverse: bool,
    batch_sizes: Any = None,
) -> Any:
    states = {"grad_h_n": grad_h_n, "h0": h0}
    steps, batch, hsz = _layer_backward_checks(
        "_gru_layer_backward", grad_output, w_hh, 3, workspace, 5, states
    )
    sizes = _batch_sizes("_gru_layer_backward", batch_sizes, steps, batch)
    d = grad_output._dtype
    specs = (((steps, batch, 3 * hsz), d), ((steps, batch, 3 * hsz), d), ((batch, hsz), d))
    args = (grad_output, grad_h_n, h0, w_hh, workspace, bool(reverse), sizes)
    return args, specs


def meta_rnn_layer(
    proj: Tensor,
    h0: Tensor,
    w_hh: Tensor,
    relu: bool,
    reverse: bool,
    batch_sizes: Any = None,
) -> Any:
    fn = "_rnn_layer"
    steps, batch, hsz = _lstm_checks(fn, proj, w_hh, 1, h0=h0)
    sizes = _batch_sizes(fn, batch_sizes, steps, batch)
    d = proj._dtype
    specs = (((steps, batch, hsz), d), ((batch, hsz), d))
    return (proj, h0, w_hh, bool(relu), bool(reverse), sizes), specs


def meta_rnn_layer_backward(
    grad_output: Tensor,
    grad_h_n: Tensor,
    output: Tensor,
    w_hh: Tensor,
    relu: bool,
    reverse: bool,
    batch_sizes: Any = None,
) -> Any:
    fn = "_rnn_layer_backward"
    steps, batch, hsz = _lstm_checks(fn, grad_output, w_hh, 1, grad_h_n=grad_h_n)
    check_param(fn, "output", output, (steps, batch, hsz), grad_output)
    sizes = _batch_sizes(fn, batch_sizes, steps, batch)
    d = grad_output._dtype
    specs = (((steps, batch, hsz), d), ((batch, hsz), d))
    return (grad_output, grad_h_n, output, w_hh, bool(relu), bool(reverse), sizes), specs


def _pointwise_loss(
    fn: str, self: Tensor, target: Tensor, reduction: str, param: str, v: float
) -> Any:
    """Checks of a loss of ``self`` and ``target`` elementwise (the functional has broadcast and
    promoted them): one shape, one floating dtype, a known reduction; the result's spec."""
    if self._shape != target._shape:
        raise RuntimeError(
            f"{fn}(): target size {list(target._shape)} does not match input size "
            f"{list(self._shape)}"
        )
    if self._dtype is not target._dtype:
        raise RuntimeError(
            f"{fn}(): expected target of dtype {torch_name(self._dtype)}, got "
            f"{torch_name(target._dtype)}"
        )
    require_floating(fn, self)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(
            f"{reduction} is not a valid value for reduction ({fn}: expected 'mean', 'sum' or "
            "'none')"
        )
    if v < 0 or (v == 0 and param == "delta"):
        what = "non-positive" if param == "delta" else "negative"
        raise RuntimeError(f"{fn} does not support {what} values for {param} (got {v})")
    return self._shape if reduction == "none" else (), self._dtype


def _pointwise_loss_backward(
    fn: str, grad_output: Tensor, self: Tensor, target: Tensor, reduction: str, param: str, v: float
) -> Any:
    shape, dtype = _pointwise_loss(fn, self, target, reduction, param, v)
    if grad_output._shape != shape or grad_output._dtype is not dtype:
        raise RuntimeError(
            f"{fn}(): grad_output of shape {list(grad_output._shape)} and dtype "
            f"{torch_name(grad_output._dtype)} does not fit the loss's {list(shape)}, "
            f"{torch_name(dtype)}"
        )
    return self._shape, dtype


def meta_smooth_l1_loss(
    self: Tensor, target: Tensor, reduction: str = "mean", beta: float = 1.0
) -> Any:
    spec = _pointwise_loss("smooth_l1_loss", self, target, reduction, "beta", beta)
    return (self, target, reduction, beta), spec


def meta_smooth_l1_loss_backward(
    grad_output: Tensor, self: Tensor, target: Tensor, reduction: str, beta: float
) -> Any:
    spec = _pointwise_loss_backward(
        "smooth_l1_loss_backward", grad_output, self, target, reduction, "beta", beta
    )
    return (grad_output, self, target, reduction, beta), spec


def meta_huber_loss(
    self: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0
) -> Any:
    spec = _pointwise_loss("huber_loss", self, target, reduction, "delta", delta)
    return (self, target, reduction, delta), spec


def meta_huber_loss_backward(
    grad_output: Tensor, self: Tensor, target: Tensor, reduction: str, delta: float
) -> Any:
    spec = _pointwise_loss_backward(
        "huber_loss_backward", grad_output, self, target, reduction, "delta", delta
    )
    return (grad_output, self, target, reduction, delta), spec


def _bce(
    fn: str, self: Tensor, target: Tensor, weight: Tensor | None, reduction: str
) -> tuple[Any, ...]:
    """Checks of ``binary_cross_entropy``'s tensors (the functional has checked them as
    PyTorch words it; these guard a direct call): one shape and floating dtype, a weight of
    that dtype broadcasting to the input's shape; the loss's spec."""
    shape, dtype = _pointwise_loss(fn, self, target, reduction, "", 0.0)
    _bce_weight(fn, self, weight)
    return shape, dtype


def _bce_weight(fn: str, self: Tensor, weight: Tensor | None) -> None:
    dtype = self._dtype
    if weight is not None:
        if weight._dtype is not dtype:
            raise RuntimeError(
                f"{fn}(): expected weight of dtype {torch_name(dtype)}, got "
                f"{torch_name(weight._dtype)}"
            )
        w = weight._shape
        lead = len(self._shape) - len(w)
        if lead < 0 or any(b not in (1, s) for s, b in zip(self._shape[lead:], w, strict=True)):
            raise RuntimeError(
                f"{fn}(): weight of shape {list(w)} does not broadcast to the input's "
                f"{list(self._shape)}"
            )


def meta_binary_cross_entropy(
    self: Tensor, target: Tensor, weight: Tensor | None = None, reduction: str = "mean"
) -> Any:
    spec = _bce("binary_cross_entropy", self, target, weight, reduction)
    return (self, target, weight, reduction), spec


def meta_binary_cross_entropy_backward(
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: str = "mean",
) -> Any:
    fn = "binary_cross_entropy_backward"
    shape, dtype = _bce(fn, self, target, weight, reduction)
    if grad_output._shape != shape or grad_output._dtype is not dtype:
        raise RuntimeError(
            f"{fn}(): grad_output of shape {list(grad_output._shape)} and dtype "
            f"{torch_name(grad_output._dtype)} does not fit the loss's {list(shape)}, "
            f"{torch_name(dtype)}"
        )
    return (grad_output, self, target, weight, reduction), (self._shape, dtype)


def meta_binary_cross_entropy_with_logits(
    self: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    pos_weight: Tensor | None = None,
    reduction: str = "mean",
) -> Any:
    fn = "binary_cross_entropy_with_logits"
    spec = _bce(fn, self, target, weight, reduction)
    _bce_weight(fn, self, pos_weight)
    return (self, target, weight, pos_weight, reduction), spec


def meta_binary_cross_entropy_with_logits_backward(
    grad_output: Tensor,
    self: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    pos_weight: Tensor | None = None,
    reduction: str = "mean",
) -> Any:
    fn = "binary_cross_entropy_with_logits_backward"
    _, spec = meta_binary_cross_entropy_backward(grad_output, self, target, weight, reduction)
    _bce_weight(fn, self, pos_weight)
    return (grad_output, self, target, weight, pos_weight, reduction), spec


def _index_tensor(arg: str, t: Tensor) -> None:
    if t._dtype not in (dt.int64, dt.int32):
        raise RuntimeError(
            f"Expected tensor for argument #1 '{arg}' to have one of the following scalar "
            f"types: Long, Int; but got {torch_name(t._dtype)} instead"
        )
    if t.ndim != 1:
        raise ValueError(f"{arg} has to be a 1D Tensor, but got Tensor of dimension {t.ndim}")


def meta_embedding_bag(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int = -1,
) -> Any:
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    _index_tensor("indices", indices)
    _index_tensor("offsets", offsets)
    if mode not in (0, 1, 2):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None:
        if mode != 0:
            raise NotImplementedError(
                "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                "supported for mode='sum'"
            )
        if per_sample_weights._shape != indices._shape:
            raise ValueError(
                f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights._shape)}) is "
                f"not None, then it must have the same shape as the input "
                f"({tuple(indices._shape)})"
            )
        if per_sample_weights._dtype is not weight._dtype:
            raise RuntimeError(
                "expected scalar type "
                f"{torch_name(weight._dtype)} but found {torch_name(per_sample_weights._dtype)}"
            )
    bags = max(offsets._shape[0] - 1, 0) if include_last_offset else offsets._shape[0]
    dim = weight._shape[1]
    args = (
        weight,
        indices,
        offsets,
        bool(scale_grad_by_freq),
        int(mode),
        bool(sparse),
        per_sample_weights,
        bool(include_last_offset),
        int(padding_idx),
    )
    most = (bags, dim) if mode == 2 else (0,)
    specs = (
        ((bags, dim), weight._dtype),
        (indices._shape, int64),
        ((bags,), int64),
        (most, int64),
    )
    return args, specs


def meta_embedding_bag_dense_backward(
    grad: Tensor,
    indices: Tensor,
    offset2bag: Tensor,
    bag_size: Tensor,
    maximum_indices: Tensor,
    num_weights: int,
    scale_grad_by_freq: bool,
    mode: int,
    per_sample_weights: Tensor | None,
    padding_idx: int = -1,
) -> Any:
    _index_tensor("indices", indices)
    bags = bag_size._shape[0]
    if grad.ndim != 2 or grad._shape[0] != bags:
        raise RuntimeError(
            f"_embedding_bag_dense_backward(): grad of shape {list(grad._shape)} does not fit "
            f"{bags} bags"
        )
    if offset2bag._shape != indices._shape:
        raise RuntimeError(
            f"_embedding_bag_dense_backward(): offset2bag of shape {list(offset2bag._shape)} "
            f"does not have the indices' shape {list(indices._shape)}"
        )
    if mode == 2 and maximum_indices._shape != grad._shape:
        raise RuntimeError(
            "_embedding_bag_dense_backward(): maximum_indices of shape "
            f"{list(maximum_indices._shape)} does not have grad's shape {list(grad._shape)}"
        )
    args = (
        grad,
        indices,
        offset2bag,
        bag_size,
        maximum_indices,
        int(num_weights),
        bool(scale_grad_by_freq),
        int(mode),
        per_sample_weights,
        int(padding_idx),
    )
    return args, ((int(num_weights), grad._shape[1]), grad._dtype)
