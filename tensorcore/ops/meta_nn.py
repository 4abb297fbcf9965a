"""Meta functions of the neural-network operators (convolution, pooling): argument checks
and output shapes, as ``meta_functions.py`` does for the others.

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
from .._memory_format import conv1d_result_strides, layer_format
from .._tensor import Size, Tensor, make_tensor, torch_name
from ..dtypes import int64
from .meta_functions import format_spec

__all__ = [
    "meta_avg_pool2d",
    "meta_avg_pool2d_backward",
    "meta_batch_norm",
    "meta_batch_norm_backward",
    "meta_binary_cross_entropy",
    "meta_binary_cross_entropy_backward",
    "meta_binary_cross_entropy_with_logits",
    "meta_binary_cross_entropy_with_logits_backward",
    "meta_convolution",
    "meta_convolution_backward_input",
    "meta_convolution_backward_weight",
    "meta_embedding_bag",
    "meta_embedding_bag_dense_backward",
    "meta_gru_layer",
    "meta_gru_layer_backward",
    "meta_huber_loss",
    "meta_huber_loss_backward",
    "meta_layer_norm",
    "meta_layer_norm_backward",
    "meta_linear",
    "meta_linear_backward",
    "meta_lstm_layer",
    "meta_lstm_layer_backward",
    "meta_max_pool2d_with_indices",
    "meta_max_pool2d_with_indices_backward",
    "meta_native_batch_norm",
    "meta_native_group_norm",
    "meta_native_group_norm_backward",
    "meta_native_layer_norm",
    "meta_prelu_kernel",
    "meta_prelu_kernel_backward",
    "meta_smooth_l1_loss",
    "meta_smooth_l1_loss_backward",
]


def _remembered(fn: Any) -> Any:
    """``fn``, a pure function of hashable arguments (shapes, ints, tuples of ints), with its
    results kept per arguments (up to 1024 of them): a layer asks the same geometry at every
    step, and its checks and arithmetic in Python cost a small call more than its kernel's
    passes. An unhashable argument (a list) computes it each time; an error is never kept."""
    memo: dict[Any, Any] = {}

    def call(*args: Any) -> Any:
        try:
            return memo[args]
        except KeyError:
            res = fn(*args)
            if len(memo) >= 1024:
                memo.clear()
            memo[args] = res
            return res
        except TypeError:
            return fn(*args)

    call.__name__, call.__doc__, call.__wrapped__ = fn.__name__, fn.__doc__, fn  # type: ignore[attr-defined]
    return call


def _spec(shape: tuple[int, ...], dtype: dt.dtype, *inputs: Tensor | None) -> tuple[Any, ...]:
    """A result's spec: in the channels-last format one of ``inputs`` suggests, if any."""
    fmt = layer_format(*inputs)
    if fmt is None:
        return shape, dtype
    return format_spec(shape, dtype, fmt, next(t for t in inputs if t is not None)._device)


def _expand(fn: str, name: str, value: Sequence[int], nd: int, low: int) -> tuple[int, ...]:
    """``value`` (one int or ``nd`` ints) as ``nd`` ints, each at least ``low``."""
    v = tuple(value)
    if len(v) == 1:
        v = v * nd
    if len(v) != nd:
        raise RuntimeError(
            f"{fn}(): expected {name} to be a single integer value or a list of {nd} values "
            f"to match the convolution dimensions, but got {name}={list(value)}"
        )
    if any(x < low for x in v):
        what = "non-negative" if low == 0 else "positive"
        raise RuntimeError(f"{fn}(): {name} should be {what}, got {name}={list(value)}")
    return v


def _floating(fn: str, *tensors: Tensor) -> None:
    for t in tensors:
        if not t._dtype.is_floating_point:
            raise RuntimeError(f"\"{fn}\" not implemented for '{torch_name(t._dtype)}'")


def _same(fn: str, a: Tensor, b: Tensor, what: str) -> None:
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"{fn}(): input type ({torch_name(a._dtype)}) and {what} type "
            f"({torch_name(b._dtype)}) should be the same"
        )
    if a._device is not b._device and a._device != b._device:
        raise RuntimeError(
            f"{fn}(): input ({a._device}) and {what} ({b._device}) must be on the same device"
        )


_conv1d_strides = _remembered(conv1d_result_strides)


def _conv_geometry(
    fn: str, ndim: int, stride: Any, padding: Any, dilation: Any, groups: int
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    nd = ndim - 2
    if groups < 1:
        raise RuntimeError(f"{fn}(): non-positive groups is not supported (groups={groups})")
    return (
        _expand(fn, "stride", stride, nd, 1),
        _expand(fn, "padding", padding, nd, 0),
        _expand(fn, "dilation", dilation, nd, 1),
    )


@_remembered
def _conv_shape(
    x_shape: tuple[int, ...],
    w_shape: tuple[int, ...],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
) -> tuple[Any, ...]:
    """``meta_convolution``'s checks of the shapes and arguments, and its geometry: ``(stride,
    padding, dilation, output_padding, output channels, output spatial sizes)``."""
    fn = "convolution"
    st, pad, dil = _conv_geometry(fn, len(x_shape), stride, padding, dilation, groups)
    nd = len(x_shape) - 2
    opad = _expand(fn, "output_padding", output_padding, nd, 0)
    c = x_shape[1]
    if transposed:
        if c != w_shape[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {list(w_shape)}, expected input"
                f"{list(x_shape)} to have {w_shape[0]} channels, but got {c} channels "
                "instead"
            )
        out_ch = w_shape[1] * groups
        if w_shape[0] % groups:
            raise RuntimeError(
                f"{fn}(): the weight's {w_shape[0]} input channels are not divisible by "
                f"groups={groups}"
            )
        for i in range(nd):
            if opad[i] >= max(st[i], dil[i]):
                raise RuntimeError(
                    f"output padding must be smaller than either stride or dilation, but got "
                    f"output_padding={list(opad)}, stride={list(st)}, dilation={list(dil)}"
                )
        spatial = tuple(
            (x_shape[2 + i] - 1) * st[i] - 2 * pad[i] + dil[i] * (w_shape[2 + i] - 1) + opad[i] + 1
            for i in range(nd)
        )
    else:
        if any(opad):
            raise RuntimeError(
                f"{fn}(): output_padding={list(output_padding)} is only used by transposed "
                "convolutions; pass zeros (or transposed=True)"
            )
        if w_shape[0] % groups:
            raise RuntimeError(
                f"Given groups={groups}, expected weight to be divisible by {groups} at "
                f"dimension 0, but got weight of size {list(w_shape)} instead"
            )
        if c != w_shape[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {list(w_shape)}, expected input"
                f"{list(x_shape)} to have {w_shape[1] * groups} channels, but got {c} "
                "channels instead"
            )
        out_ch = w_shape[0]
        padded = [x_shape[2 + i] + 2 * pad[i] for i in range(nd)]
        span = [dil[i] * (w_shape[2 + i] - 1) + 1 for i in range(nd)]
        if any(span[i] > padded[i] for i in range(nd)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, padded))})."
                f" Kernel size: ({' x '.join(map(str, span))}). Kernel size can't be greater "
                "than actual input size"
            )
        spatial = tuple((padded[i] - span[i]) // st[i] + 1 for i in range(nd))
    return st, pad, dil, opad, out_ch, spatial


def meta_convolution(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
) -> Any:
    fn = "convolution"
    x, w = input, weight
    if w.ndim < 3 or x.ndim != w.ndim:
        raise RuntimeError(
            f"{fn}(): expected a {w.ndim}-D input (batched, (N, C, *spatial)) for a "
            f"{w.ndim}-D weight of size {list(w._shape)}, but got input of size "
            f"{list(x._shape)}"
        )
    _same(fn, x, w, "weight")
    st, pad, dil, opad, out_ch, spatial = _conv_shape(
        x._shape, w._shape, stride, padding, dilation, transposed, output_padding, groups
    )
    if bias is not None:
        _same(fn, x, bias, "bias")
        if bias.ndim != 1 or bias._shape[0] != out_ch:
            raise RuntimeError(
                f"Given weight of size {list(w._shape)}, expected bias to be 1-dimensional "
                f"with {out_ch} elements, but got bias of size {list(bias._shape)} instead"
            )
    shape = (x._shape[0], out_ch, *spatial)
    args = (x, w, bias, st, pad, dil, bool(transposed), opad, groups)
    if len(spatial) == 1:
        strides = _conv1d_strides(x._shape, x._stride, w._shape, w._stride, shape)
        if strides is not None:
            return args, (
                shape,
                x._dtype,
                make_tensor(None, shape, strides, 0, x._dtype, x._device),
            )
    return args, _spec(shape, x._dtype, x, w)


def _backward_geometry(
    fn: str,
    grad_output: Tensor,
    other: Tensor,
    stride: Any,
    padding: Any,
    dilation: Any,
    groups: int,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    _floating(fn, grad_output)
    _same(fn, grad_output, other, "grad_output")
    return _conv_geometry(fn, grad_output.ndim, stride, padding, dilation, groups)


def _check_grad_shape(
    fn: str,
    grad_output: Tensor,
    x_size: Sequence[int],
    w_size: Sequence[int],
    st: Sequence[int],
    pad: Sequence[int],
    dil: Sequence[int],
) -> None:
    nd = len(x_size) - 2
    want = (x_size[0], w_size[0]) + tuple(
        (x_size[2 + i] + 2 * pad[i] - dil[i] * (w_size[2 + i] - 1) - 1) // st[i] + 1
        for i in range(nd)
    )
    if tuple(grad_output._shape) != want:
        raise RuntimeError(
            f"{fn}(): grad_output of size {list(grad_output._shape)} does not fit a "
            f"convolution of an input of size {list(x_size)} with a weight of size "
            f"{list(w_size)} (expected {list(want)})"
        )


def meta_convolution_backward_input(
    grad_output: Tensor,
    weight: Tensor,
    input_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
) -> Any:
    fn = "convolution_backward_input"
    size = tuple(input_size)
    if len(size) != weight.ndim or grad_output.ndim != weight.ndim:
        raise RuntimeError(
            f"{fn}(): input_size {list(size)}, grad_output of size "
            f"{list(grad_output._shape)} and weight of size {list(weight._shape)} must have "
            "the same number of dims"
        )
    st, pad, dil = _backward_geometry(fn, grad_output, weight, stride, padding, dilation, groups)
    _check_grad_shape(fn, grad_output, size, weight._shape, st, pad, dil)
    args = (grad_output, weight, size, st, pad, dil, groups)
    return args, _spec(size, grad_output._dtype, grad_output, weight)


def meta_convolution_backward_weight(
    grad_output: Tensor,
    input: Tensor,
    weight_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
) -> Any:
    fn = "convolution_backward_weight"
    size = tuple(weight_size)
    if len(size) != input.ndim or grad_output.ndim != input.ndim:
        raise RuntimeError(
            f"{fn}(): weight_size {list(size)}, grad_output of size "
            f"{list(grad_output._shape)} and input of size {list(input._shape)} must have "
            "the same number of dims"
        )
    st, pad, dil = _backward_geometry(fn, grad_output, input, stride, padding, dilation, groups)
    _check_grad_shape(fn, grad_output, input._shape, size, st, pad, dil)
    args = (grad_output, input, size, st, pad, dil, groups)
    return args, _spec(size, grad_output._dtype, grad_output, input)


@_remembered
def _pool_geometry(
    fn: str,
    shape: tuple[int, ...],
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
) -> tuple[tuple[int, ...], ...]:
    if len(shape) != 4:
        raise RuntimeError(
            f"{fn}(): expected a 4-D input (N, C, H, W), but got input of size {list(shape)}"
        )
    if 0 in shape[1:]:  # (PyTorch's pools take an empty batch only)
        raise RuntimeError(
            f"{fn}(): Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
            f"input, but got:{list(shape)}"
        )
    k = _expand(fn, "kernel_size", kernel_size, 2, 1)
    st = _expand(fn, "stride", stride, 2, 1) if len(stride) else k
    pad = _expand(fn, "padding", padding, 2, 0)
    dil = _expand(fn, "dilation", dilation, 2, 1)
    for i in range(2):
        if pad[i] > k[i] // 2:
            raise RuntimeError(
                f"{fn}(): pad should be at most half of effective kernel size, but got "
                f"pad={list(pad)}, kernel_size={list(k)} and dilation={list(dil)}"
            )
    outs = []
    for i in range(2):
        size = shape[2 + i]
        span = size + 2 * pad[i] - dil[i] * (k[i] - 1) - 1
        if ceil_mode:
            o = -(-span // st[i]) + 1
            if (o - 1) * st[i] >= size + pad[i]:
                o -= 1
        else:
            o = span // st[i] + 1
        if o < 1 or span < 0:
            raise RuntimeError(
                f"{fn}(): given input size {list(shape)}, the output size would be too "
                f"small (kernel_size={list(k)}, stride={list(st)}, padding={list(pad)}, "
                f"dilation={list(dil)})"
            )
        outs.append(o)
    return k, st, pad, dil, tuple(outs)


def meta_max_pool2d_with_indices(
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    ceil_mode: bool = False,
) -> Any:
    k, st, pad, dil, outs = _pool_geometry(
        "max_pool2d", self._shape, kernel_size, stride, padding, dilation, ceil_mode
    )
    shape = self._shape[:2] + outs
    args = (self, k, st, pad, dil, bool(ceil_mode))
    return args, (_spec(shape, self._dtype, self), _spec(shape, int64, self))


def meta_max_pool2d_with_indices_backward(
    grad_output: Tensor,
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
    indices: Tensor,
) -> Any:
    fn = "max_pool2d_with_indices_backward"
    size = self._shape
    _floating(fn, grad_output)
    k, st, pad, dil, outs = _pool_geometry(
        fn, size, kernel_size, stride, padding, dilation, ceil_mode
    )
    want = size[:2] + outs
    if indices._dtype is not int64:
        raise RuntimeError(
            f"{fn}(): expected indices of dtype Long (int64), got {torch_name(indices._dtype)}"
        )
    if grad_output._shape != want or indices._shape != want:
        raise RuntimeError(
            f"{fn}(): grad_output of size {list(grad_output._shape)} and indices of size "
            f"{list(indices._shape)} must both have the pooled size {list(want)}"
        )
    args = (grad_output, self, k, st, pad, dil, bool(ceil_mode), indices)
    return args, _spec(size, grad_output._dtype, grad_output)


def meta_avg_pool2d(
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Any:
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("avg_pool2d(): divisor must be not zero")
    k, st, pad, _, outs = _pool_geometry(
        "avg_pool2d", self._shape, kernel_size, stride, padding, (1,), ceil_mode
    )
    args = (self, k, st, pad, bool(ceil_mode), bool(count_include_pad), divisor_override)
    return args, _spec(self._shape[:2] + outs, self._dtype, self)


def meta_avg_pool2d_backward(
    grad_output: Tensor,
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
) -> Any:
    fn = "avg_pool2d_backward"
    size = self._shape
    k, st, pad, _, outs = _pool_geometry(fn, size, kernel_size, stride, padding, (1,), ceil_mode)
    want = size[:2] + outs
    if grad_output._shape != want:
        raise RuntimeError(
            f"{fn}(): grad_output of size {list(grad_output._shape)} does not have the pooled "
            f"size {list(want)}"
        )
    args = (
        grad_output,
        self,
        k,
        st,
        pad,
        bool(ceil_mode),
        bool(count_include_pad),
        divisor_override,
    )
    return args, _spec(size, grad_output._dtype, grad_output)


def meta_prelu_kernel(self: Tensor, weight: Tensor) -> Any:
    if self._dtype is not weight._dtype:
        raise RuntimeError(
            "prelu: Type promoting not supported. Got "
            f"{torch_name(self._dtype)} and {torch_name(weight._dtype)}"
        )
    w = weight._shape
    lead = len(self._shape) - len(w)
    if lead < 0 or any(b not in (1, s) for s, b in zip(self._shape[lead:], w, strict=True)):
        raise RuntimeError(
            f"prelu: weight of shape {list(w)} does not broadcast to the input's "
            f"{list(self._shape)}"
        )
    return (self, weight), _spec(self._shape, self._dtype, self)


def meta_prelu_kernel_backward(grad_output: Tensor, self: Tensor, weight: Tensor) -> Any:
    meta_prelu_kernel(self, weight)
    if grad_output._shape != self._shape:
        raise RuntimeError(
            f"prelu: grad_output of shape {list(grad_output._shape)} does not have the "
            f"input's shape {list(self._shape)}"
        )
    spec = _spec(self._shape, self._dtype, self)
    return (grad_output, self, weight), (spec, spec)


def _mixed(x: Tensor, param: Tensor | None) -> bool:
    """Whether a normalisation's ``param`` is float32 for a 16-bit float input: PyTorch's
    mixed-type layer and batch norms (the parameters of a model run under autocast), which
    compute in float32 and return the input's dtype."""
    return (
        param is not None and param._dtype is dt.float32 and x._dtype in (dt.float16, dt.bfloat16)
    )


def _norm_param(
    fn: str, name: str, t: Tensor | None, shape: tuple[int, ...], x: Tensor, mixed: bool = False
) -> None:
    """Check a parameter's shape, dtype and device against the input's; ``mixed``: a float32
    parameter of a 16-bit float input is accepted too (see :func:`_mixed`)."""
    if t is None:
        return
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if t._shape != shape:
        raise RuntimeError(
            f"{fn}(): expected {name} of shape {list(shape)} for an input of shape "
            f"{list(x._shape)}, got {list(t._shape)}"
        )
    if (t._dtype is not x._dtype and not (mixed and _mixed(x, t))) or (
        t._device is not x._device and t._device != x._device
    ):
        raise RuntimeError(
            f"{fn}(): expected {name} of dtype {torch_name(x._dtype)} on {x._device} (the "
            f"input's), got {torch_name(t._dtype)} on {t._device}"
        )


def _layer_norm_shape(fn: str, x: Tensor, normalized_shape: Sequence[int]) -> tuple[int, ...]:
    shape = tuple(normalized_shape)
    if not shape or x._shape[x.ndim - len(shape) :] != shape or len(shape) > x.ndim:
        raise RuntimeError(
            f"{fn}(): given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size {list(x._shape)}"
        )
    return shape


def meta_layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
    cudnn_enable: bool = True,
) -> Any:
    # (the kernel takes the first five: ``cudnn_enable`` is PyTorch's CUDA switch)
    args, (spec, _, _) = meta_native_layer_norm(input, normalized_shape, weight, bias, eps)
    return args, spec


def _stat_dtype(x: Tensor) -> dt.dtype:
    """The dtype of a normalisation's saved statistics: float32 for a 16-bit float input
    (what the kernels compute in), else the input's."""
    return dt.float32 if x._dtype in (dt.float16, dt.bfloat16) else x._dtype


def _row_stats_shape(x: Tensor, shape: tuple[int, ...]) -> tuple[int, ...]:
    return x._shape[: x.ndim - len(shape)] + (1,) * len(shape)


def _check_saved_stats(
    fn: str, stats: dict[str, Tensor | None], shape: tuple[int, ...], x: Tensor, used: bool = True
) -> None:
    """Refuse a normalisation backward's saved mean and inverse std (``stats``, by name)
    unless both or neither are given and, where ``used``, each has ``shape`` and the
    statistics' dtype for ``x``."""
    (a, ta), (b, tb) = stats.items()
    if (ta is None) != (tb is None):
        raise RuntimeError(f"{fn}(): expected {a} and {b} both given or both None")
    for name, t in stats.items() if used else ():
        if t is not None and (t._shape != shape or t._dtype is not _stat_dtype(x)):
            raise RuntimeError(
                f"{fn}(): expected {name} of shape {list(shape)} and dtype "
                f"{torch_name(_stat_dtype(x))}, got {list(t._shape)} and "
                f"{torch_name(t._dtype)}"
            )


def meta_native_layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None,
    bias: Tensor | None,
    eps: float,
) -> Any:
    fn = "layer_norm"  # (the public function's name, which its errors carry)
    shape = _layer_norm_shape(fn, input, normalized_shape)
    _norm_param(fn, "weight", weight, shape, input, mixed=True)
    _norm_param(fn, "bias", bias, shape, input, mixed=True)
    stat = (_row_stats_shape(input, shape), _stat_dtype(input))
    return (input, shape, weight, bias, float(eps)), ((input._shape, input._dtype), stat, stat)


def meta_layer_norm_backward(
    grad_output: Tensor,
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    eps: float = 1e-5,
    mean: Tensor | None = None,
    rstd: Tensor | None = None,
) -> Any:
    fn = "layer_norm_backward"
    shape = _layer_norm_shape(fn, input, normalized_shape)
    _norm_param(fn, "weight", weight, shape, input, mixed=True)
    _norm_param(fn, "grad_output", grad_output, input._shape, input)
    _check_saved_stats(fn, {"mean": mean, "rstd": rstd}, _row_stats_shape(input, shape), input)
    spec = (input._shape, input._dtype)
    pd = weight._dtype if weight is not None else input._dtype
    args = (grad_output, input, shape, weight, float(eps), mean, rstd)
    return args, (spec, (shape, pd), (shape, pd))


def _batch_norm_checks(
    fn: str, x: Tensor, tensors: dict[str, Tensor | None], training: bool
) -> tuple[int, ...]:
    if x.ndim < 2:
        raise ValueError(f"{fn}(): expected 2D or more input (got {x.ndim}D input)")
    c = (x._shape[1],)
    for name, t in tensors.items():
        _norm_param(fn, name, t, c, x, mixed=True)
    if not training and (tensors.get("running_mean") is None or tensors.get("running_var") is None):
        raise RuntimeError(f"{fn}(): running_mean and running_var must be given when not training")
    if training and x._shape[0] * math.prod(x._shape[2:]) == 1:  # (PyTorch's check)
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {Size(x._shape)}"
        )
    return c


def meta_batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool = True,
) -> Any:
    # (the kernel takes the first eight: ``cudnn_enabled`` is PyTorch's CUDA switch)
    args, (spec, _, _) = _meta_batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )
    return args, spec


def meta_native_batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
) -> Any:
    if input._shape and 0 in input._shape:  # (batch_norm gives an empty result instead)
        raise RuntimeError(
            "input tensor must have at least one element, but got input_sizes = "
            f"{list(input._shape)}"
        )
    return _meta_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


def _meta_batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
) -> Any:
    c = _batch_norm_checks(
        "batch_norm", input,
        {"weight": weight, "bias": bias, "running_mean": running_mean, "running_var": running_var},
        bool(training),
    )  # fmt: skip
    args = (input, weight, bias, running_mean, running_var, bool(training), float(momentum),
            float(eps))  # fmt: skip
    stat = (c if training else (0,), _stat_dtype(input))
    return args, (_spec(input._shape, input._dtype, input), stat, stat)


def meta_batch_norm_backward(
    grad_output: Tensor,
    input: Tensor,
    weight: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    eps: float,
    save_mean: Tensor | None = None,
    save_invstd: Tensor | None = None,
) -> Any:
    fn = "batch_norm_backward"
    c = _batch_norm_checks(
        fn, input, {"weight": weight, "running_mean": running_mean, "running_var": running_var},
        bool(training),
    )  # fmt: skip
    _norm_param(fn, "grad_output", grad_output, input._shape, input)
    saved = {"save_mean": save_mean, "save_invstd": save_invstd}
    _check_saved_stats(fn, saved, c, input, used=bool(training))
    if not training:  # (evaluation reads the running statistics)
        save_mean = save_invstd = None
    args = (grad_output, input, weight, running_mean, running_var, bool(training), float(eps),
            save_mean, save_invstd)  # fmt: skip
    pd = weight._dtype if weight is not None else input._dtype
    return args, (_spec(input._shape, input._dtype, input), (c, pd), (c, pd))


def _group_norm_checks(
    fn: str, x: Tensor, n: int, c: int, hxw: int, group: int, params: dict[str, Tensor | None]
) -> None:
    """Check a group norm's input (N, C, *) against its sizes ``n``, ``c``, ``hxw`` (the
    positions per channel) and ``group``, and its per-channel ``params`` (by name)."""
    if x.ndim < 2 or x._shape[:2] != (n, c) or math.prod(x._shape[2:]) != hxw:
        raise RuntimeError(
            f"{fn}(): expected an input of shape (N, C, *) with N={n}, C={c} and HxW={hxw} "
            f"positions per channel, got input of shape {list(x._shape)}"
        )
    if group <= 0 or c % group:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got "
            f"input of shape {list(x._shape)} and num_groups={group}"
        )
    for name, t in params.items():
        if t is not None and isinstance(t, Tensor) and t._shape != (c,):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {list(t._shape)} and input of shape "
                f"{list(x._shape)}"
            )
        _norm_param(fn, name, t, (c,), x, mixed=True)


def meta_native_group_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    eps: float,
) -> Any:
    n, c, hxw, group = int(N), int(C), int(HxW), int(group)
    _group_norm_checks(
        "native_group_norm", input, n, c, hxw, group, {"weight": weight, "bias": bias}
    )
    stat = ((n, group), _stat_dtype(input))
    args = (input, weight, bias, n, c, hxw, group, float(eps))
    return args, (_spec(input._shape, input._dtype, input), stat, stat)


def meta_native_group_norm_backward(
    grad_out: Tensor,
    input: Tensor,
    mean: Tensor,
    rstd: Tensor,
    weight: Tensor | None,
    N: int,
    C: int,
    HxW: int,
    group: int,
    output_mask: Sequence[int],
) -> Any:
    fn = "native_group_norm_backward"
    mask = tuple(output_mask)
    if len(mask) != 3 or any(m not in (0, 1) for m in mask):
        raise RuntimeError(f"{fn}(): output_mask must be three 0/1 flags, got {list(mask)}")
    n, c, hxw, group = int(N), int(C), int(HxW), int(group)
    _group_norm_checks(fn, input, n, c, hxw, group, {"weight": weight})
    _norm_param(fn, "grad_out", grad_out, input._shape, input)
    _check_saved_stats(fn, {"mean": mean, "rstd": rstd}, (n, group), input)
    pd = weight._dtype if weight is not None else input._dtype
    specs = (_spec(input._shape, input._dtype, input), ((c,), pd), ((c,), pd))
    # (an output not asked for is not made: PyTorch's undefined tensor, None here)
    args = (grad_out, input, mean, rstd, weight, n, c, hxw, group, mask)
    return args, tuple(spec if m else None for spec, m in zip(specs, mask, strict=True))


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
        _norm_param(fn, "bias", bias, (weight._shape[0],), input)
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
    _norm_param(fn, "grad_output", grad_output, want, input)
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
    _norm_param(fn, "w_hh", w_hh, (gates, hsz), proj)
    for name, t in states.items():
        _norm_param(fn, name, t, (batch, hsz), proj)
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
        _norm_param(fn, "w_hr", w_hr, (psz, hsz), proj)
        _norm_param(fn, "w_hh", w_hh, (4 * hsz, psz), proj)
        _norm_param(fn, "h0", h0, (batch, psz), proj)
        _norm_param(fn, "c0", c0, (batch, hsz), proj)
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
    _norm_param(fn, "w_hh", w_hh, (gates * hsz, hsz), grad_output)
    _norm_param(fn, "workspace", workspace, (steps, rows * hsz, batch), grad_output)
    for name, t in states.items():
        _norm_param(fn, name, t, (batch, hsz), grad_output)
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
        _norm_param(fn, "w_hr", w_hr, (psz, hsz), grad_output)
        _norm_param(fn, "w_hh", w_hh, (4 * hsz, psz), grad_output)
        _norm_param(fn, "workspace", workspace, (steps, 7 * hsz, batch), grad_output)
        _norm_param(fn, "grad_h_n", grad_h_n, (batch, psz), grad_output)
        _norm_param(fn, "grad_c_n", grad_c_n, (batch, hsz), grad_output)
        _norm_param(fn, "c0", c0, (batch, hsz), grad_output)
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
    _norm_param(fn, "b_hh", b_hh, (3 * hsz,), proj)
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
    _norm_param(fn, "output", output, (steps, batch, hsz), grad_output)
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
    _floating(fn, self)
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
