"""Meta functions of the convolutions, the poolings and ``prelu``: the geometry (stride,
padding, dilation, groups, output size) checked and normalised in PyTorch's words, and each
result's shape and memory format (see ``meta_nn.py`` on channels-last results).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._memory_format import conv1d_result_strides
from .._tensor import Tensor, make_tensor, torch_name
from ..dtypes import int64
from .meta_nn import layer_spec, require_floating

__all__ = [
    "meta_avg_pool2d",
    "meta_avg_pool2d_backward",
    "meta_convolution",
    "meta_convolution_backward_input",
    "meta_convolution_backward_weight",
    "meta_max_pool2d_with_indices",
    "meta_max_pool2d_with_indices_backward",
    "meta_prelu_kernel",
    "meta_prelu_kernel_backward",
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
    return args, layer_spec(shape, x._dtype, x, w)


def _backward_geometry(
    fn: str,
    grad_output: Tensor,
    other: Tensor,
    stride: Any,
    padding: Any,
    dilation: Any,
    groups: int,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    require_floating(fn, grad_output)
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
    return args, layer_spec(size, grad_output._dtype, grad_output, weight)


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
    return args, layer_spec(size, grad_output._dtype, grad_output, input)


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
    return args, (layer_spec(shape, self._dtype, self), layer_spec(shape, int64, self))


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
    require_floating(fn, grad_output)
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
    return args, layer_spec(size, grad_output._dtype, grad_output)


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
    return args, layer_spec(self._shape[:2] + outs, self._dtype, self)


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
    return args, layer_spec(size, grad_output._dtype, grad_output)


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
    return (self, weight), layer_spec(self._shape, self._dtype, self)


def meta_prelu_kernel_backward(grad_output: Tensor, self: Tensor, weight: Tensor) -> Any:
    meta_prelu_kernel(self, weight)
    if grad_output._shape != self._shape:
        raise RuntimeError(
            f"prelu: grad_output of shape {list(grad_output._shape)} does not have the "
            f"input's shape {list(self._shape)}"
        )
    spec = layer_spec(self._shape, self._dtype, self)
    return (grad_output, self, weight), (spec, spec)
