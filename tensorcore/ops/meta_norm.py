"""Meta functions of the normalisations (``layer_norm``, ``batch_norm``, ``group_norm``
and their backward operators): parameters, running statistics and saved statistics checked
against the input, and the statistics' dtype (float32 for a 16-bit float input, as PyTorch's
mixed-type norms). See ``meta_nn.py`` on channels-last results.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .. import dtypes as dt
from .._tensor import Size, Tensor, torch_name
from .meta_nn import check_param, layer_spec

__all__ = [
    "meta_batch_norm",
    "meta_batch_norm_backward",
    "meta_layer_norm",
    "meta_layer_norm_backward",
    "meta_native_batch_norm",
    "meta_native_group_norm",
    "meta_native_group_norm_backward",
    "meta_native_layer_norm",
]


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
    check_param(fn, "weight", weight, shape, input, mixed=True)
    check_param(fn, "bias", bias, shape, input, mixed=True)
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
    check_param(fn, "weight", weight, shape, input, mixed=True)
    check_param(fn, "grad_output", grad_output, input._shape, input)
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
        check_param(fn, name, t, c, x, mixed=True)
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
    return args, (layer_spec(input._shape, input._dtype, input), stat, stat)


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
    check_param(fn, "grad_output", grad_output, input._shape, input)
    saved = {"save_mean": save_mean, "save_invstd": save_invstd}
    _check_saved_stats(fn, saved, c, input, used=bool(training))
    if not training:  # (evaluation reads the running statistics)
        save_mean = save_invstd = None
    args = (grad_output, input, weight, running_mean, running_var, bool(training), float(eps),
            save_mean, save_invstd)  # fmt: skip
    pd = weight._dtype if weight is not None else input._dtype
    return args, (layer_spec(input._shape, input._dtype, input), (c, pd), (c, pd))


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
        check_param(fn, name, t, (c,), x, mixed=True)


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
    return args, (layer_spec(input._shape, input._dtype, input), stat, stat)


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
    check_param(fn, "grad_out", grad_out, input._shape, input)
    _check_saved_stats(fn, {"mean": mean, "rstd": rstd}, (n, group), input)
    pd = weight._dtype if weight is not None else input._dtype
    specs = (layer_spec(input._shape, input._dtype, input), ((c,), pd), ((c,), pd))
    # (an output not asked for is not made: PyTorch's undefined tensor, None here)
    args = (grad_out, input, mean, rstd, weight, n, c, hxw, group, mask)
    return args, tuple(spec if m else None for spec, m in zip(specs, mask, strict=True))
