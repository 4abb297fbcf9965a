"""``linear_cross_entropy``: the cross entropy of linearly transformed inputs (PyTorch 2.13's
``torch.nn.functional.linear_cross_entropy``), and its ``LinearCrossEntropyOptions``.

It is PyTorch's reference path, ``cross_entropy(linear(input, W, b), target)``, with the
class dims of a K-dimensional ``linear_weight`` (``(C, d1, ..., dK, in_features)``) restored
on the logits. PyTorch's chunked path (``options`` given), which never holds the whole
logits tensor, gives the same values and gradients; here ``options`` is checked and
accepted, and the reference path computes.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor
from ..ops._validate import checked
from ._dense import linear
from ._losses import cross_entropy

__all__ = ["LinearCrossEntropyOptions", "linear_cross_entropy"]

_ACC_DTYPES = (dt.float16, dt.bfloat16, dt.float32, dt.float64)


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """PyTorch's options of the chunked :func:`linear_cross_entropy` (``batch_chunk_size``,
    ``chunking_method``, ``acc_policy``, ``acc_dtype``, ``allow_retain_graph``), checked as
    PyTorch checks them. tensorcore computes the reference path whatever they say, with the
    same values and gradients.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.LinearCrossEntropyOptions(batch_chunk_size=64).batch_chunk_size
    64
    >>> tc.nn.LinearCrossEntropyOptions(acc_policy="fast")
    Traceback (most recent call last):
    ...
    ValueError: invalid acc_policy: 'fast'
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: Any = None

    def __post_init__(self) -> None:
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if not (size is None or (isinstance(size, int) and size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in _ACC_DTYPES:
            raise ValueError(
                "acc_dtype must be one of {None, torch.float16, torch.bfloat16, "
                f"torch.float32, torch.float64}}, got {self.acc_dtype!r}. Pass "
                "acc_dtype=None to let the op pick automatically."
            )


@checked(
    "linear_cross_entropy(Tensor input, Tensor linear_weight, Tensor target, *, "
    'Tensor? linear_bias=None, Tensor? weight=None, str reduction="mean", '
    "int? ignore_index=None, float label_smoothing=0.0, Any options=None) -> Tensor"
)
def linear_cross_entropy(
    input: Tensor,
    linear_weight: Tensor,
    target: Tensor,
    *,
    linear_bias: Tensor | None = None,
    weight: Tensor | None = None,
    reduction: str = "mean",
    ignore_index: int | None = None,
    label_smoothing: float = 0.0,
    options: LinearCrossEntropyOptions | None = None,
) -> Tensor:
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``: the cross
    entropy of the logits that a linear layer makes of ``input`` (``(in_features,)`` or
    ``(N, in_features)``).

    ``linear_weight`` is ``(C, in_features)``, or ``(C, d1, ..., dK, in_features)`` for a
    K-dimensional loss (logits ``(N, C, d1, ..., dK)``; batched input only), and
    ``linear_bias`` has its shape without the last dim. ``target`` holds class indices, or
    class probabilities when it has the logits' shape (``ignore_index`` must then be None;
    for indices None means -100). ``weight``, ``reduction`` and ``label_smoothing`` are
    :func:`cross_entropy`'s. ``options`` (:class:`LinearCrossEntropyOptions`) selects
    PyTorch's chunked path, which gives the same result; it is accepted, with PyTorch's
    warning where that path would not apply.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([[1.0, 0.0], [0.0, 1.0]])
    >>> W = tc.tensor([[2.0, 0.0], [0.0, 2.0], [0.0, 0.0]])
    >>> round(tc.nn.functional.linear_cross_entropy(x, W, tc.tensor([0, 1])).item(), 4)
    0.2395
    """
    if input.ndim < 1 or input.ndim > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise RuntimeError(
            f"expected linear_weight with dimensionality at least 2, got {linear_weight.ndim}"
        )
    batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), "
            f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively"
        )
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(
            f"expected linear_bias shape {(num_classes, *out_features)}, got "
            f"{tuple(linear_bias.shape)}"
        )
    if out_features and not batches:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
            f"requires batched input, (N, {in_features}), got unbatched input with shape "
            f"{tuple(input.shape)}"
        )
    logits_shape = (*batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    if options is not None and (
        out_features
        or reduction not in {"mean", "sum", "none"}
        or label_smoothing != 0.0
        or target.dtype != dt.int64
    ):
        bias_shape = tuple(linear_bias.shape) if linear_bias is not None else None
        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs "
            "reduction in {'mean','sum','none'}, label_smoothing == 0, target.dtype"
            " == int64, out_features == (). Got "
            f"reduction={reduction!r}, label_smoothing={label_smoothing}, "
            f"target.dtype={target.dtype}, out_features={out_features}"
            f", tracing=False, linear_bias.shape={bias_shape}.",
            stacklevel=2,
        )
    if out_features:
        rows = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape(rows, in_features)
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(rows)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(
        logits,
        target,
        weight=weight,
        reduction=reduction,
        ignore_index=-100 if ignore_index is None else ignore_index,
        label_smoothing=label_smoothing,
    )
