"""``nn.functional``'s normalisation: ``layer_norm``, ``rms_norm``, ``batch_norm``,
``group_norm``, ``instance_norm`` and ``normalize``. ``functional.py`` exports them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .. import dtypes as dt
from .._finfo import finfo
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..ops import functions as ops
from ..ops._validate import checked


def _norm_shape(input: Tensor, normalized_shape: Any, fn: str) -> tuple[int, ...]:
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            "one element, but got normalized_shape = []"
        )
    if tuple(input.shape[input.ndim - len(shape) :]) != shape or len(shape) > input.ndim:
        raise RuntimeError(
            f"{fn}(): given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size {list(input.shape)}"
        )
    return shape


@checked(
    "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, "
    "Tensor? bias=None, float eps=1e-05) -> Tensor"
)
def layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int] | int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dims (biased variance), then scale
    and shift.

    Examples
    --------
    >>> import tensorcore as tc
    >>> y = tc.nn.functional.layer_norm(tc.tensor([[1.0, 2.0, 3.0]]), (3,))
    >>> [round(v, 4) for v in y[0].tolist()]
    [-1.2247, 0.0, 1.2247]
    """
    shape = _norm_shape(input, normalized_shape, "layer_norm")
    if _saves_statistics(input, weight, bias):
        return ops.native_layer_norm(input, shape, weight, bias, eps)[0]
    return ops.layer_norm(input, shape, weight, bias, eps)


#: Below this many input elements the normalisations run their one-output operator: the
#: ``native_*`` operators' saved statistics spare the backward a pass over the input (about
#: 0.3 ns per element here), but recording a three-output node costs about 18 us a call.
_SAVED_STATISTICS_MIN = 1 << 16


def _saves_statistics(input: Tensor, *params: Tensor | None) -> bool:
    """Whether a normalisation should run its ``native_*`` operator, which also returns the
    mean and inverse standard deviation for its backward to read: when a backward will run
    (grad mode on and an input that requires grad) and the input is large enough that the
    pass saved outweighs the bigger node (:data:`_SAVED_STATISTICS_MIN`). Both paths give
    the same values, bit for bit."""
    if input.numel() < _SAVED_STATISTICS_MIN or not is_grad_enabled():
        return False
    return input.requires_grad or any(p is not None and p.requires_grad for p in params)


@checked(
    "rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor"
)
def rms_norm(
    input: Tensor,
    normalized_shape: Sequence[int] | int,
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """Divide by the root mean square over the last ``len(normalized_shape)`` dims (plus
    ``eps``, by default the machine epsilon of the computing dtype), then scale by
    ``weight``. Half and bfloat16 inputs are computed in float32, as PyTorch's.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.rms_norm(tc.tensor([[3.0, 4.0]]), (2,), eps=0.0)
    tensor([[0.8485, 1.1314]])
    """
    shape = _norm_shape(input, normalized_shape, "rms_norm")
    x = input.float() if input.dtype in (dt.float16, dt.bfloat16) else input
    if eps is None:
        eps = finfo(x.dtype).eps
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    out = (x * ops.rsqrt((x * x).mean(dims, keepdim=True) + eps)).to(input.dtype)
    return out * weight if weight is not None else out


def _channel_shape(input: Tensor) -> tuple[int, ...]:
    return (1, input.shape[1]) + (1,) * (input.ndim - 2)


@checked(
    "batch_norm(Tensor input, Tensor? running_mean, Tensor? running_var, "
    "Tensor? weight=None, Tensor? bias=None, bool training=False, "
    "float? momentum=0.1, float eps=1e-05) -> Tensor"
)
def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float | None = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel (dim 1) with the batch's statistics (``training``) or the
    running ones; in training, the running statistics are updated in place with
    ``momentum`` (the unbiased variance, as PyTorch). ``momentum=None`` keeps a cumulative
    average (the caller passes the factor as ``momentum``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([[1.0], [3.0]])
    >>> rm, rv = tc.zeros(1), tc.ones(1)
    >>> tc.nn.functional.batch_norm(x, rm, rv, training=True).flatten()
    tensor([-1.0000,  1.0000])
    >>> rm, rv
    (tensor([0.2000]), tensor([1.1000]))
    """
    if training and input.shape[0] * math.prod(input.shape[2:]) == 1:  # (PyTorch's check)
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {input.shape}"
        )
    if input.numel() == 0:
        # (PyTorch's: an empty input, 1-D too, gives an empty copy of itself, differentiable,
        # and leaves the running statistics as they are)
        return input.clone()
    if input.ndim < 2:
        raise IndexError(
            f"batch_norm(): Dimension out of range (expected to be in range of [-1, 0], but got "
            f"1): the input must have a channel dim (got {input.ndim}D input)"
        )
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):  # fmt: skip
        if t is not None and (tuple(t.shape) != (c,) or not t.is_floating_point()):
            raise RuntimeError(
                f"batch_norm(): expected {name} to be a floating tensor of shape [{c}] (one "
                f"value per channel of the input of shape {list(input.shape)}), got "
                f"{t.dtype.name} of shape {list(t.shape)}"
            )
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError(
            "batch_norm(): running_mean and running_var must be given when not training"
        )
    m = 0.1 if momentum is None else momentum
    if training and _saves_statistics(input, weight, bias):
        native = ops.native_batch_norm
        return native(input, weight, bias, running_mean, running_var, training, m, eps)[0]
    return ops.batch_norm(input, weight, bias, running_mean, running_var, training, m, eps)


@checked(
    "group_norm(Tensor input, int num_groups, Tensor? weight=None, "
    "Tensor? bias=None, float eps=1e-05) -> Tensor"
)
def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise over groups of channels (and the spatial dims) of an (N, C, *) input."""
    if input.ndim < 2:
        raise RuntimeError(f"group_norm(): expected at least 2D input, got {input.ndim}D")
    n, c = input.shape[:2]
    if c % num_groups:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got "
            f"input of shape {list(input.shape)} and num_groups={num_groups}"
        )
    if n * c // num_groups * math.prod(input.shape[2:]) == 1:  # (PyTorch's check)
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size "
            f"{list(input.shape)}"
        )
    # One operator (its backward reads the (sample, group) statistics it returns); a
    # channels-last input keeps its format, and a 16-bit input with float32 parameters
    # (PyTorch's mixed type) is computed in float32 and returned in the input's dtype.
    hxw = math.prod(input.shape[2:])
    return ops.native_group_norm(input, weight, bias, n, c, hxw, num_groups, eps)[0]


@checked(
    "instance_norm(Tensor input, Tensor? running_mean=None, Tensor? running_var=None, "
    "Tensor? weight=None, Tensor? bias=None, bool use_input_stats=True, float momentum=0.1, "
    "float eps=1e-05) -> Tensor"
)
def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel of each sample over its spatial dims (batch normalisation of
    the (1, N * C, *) reshaped input, as PyTorch computes it); running statistics, when
    given, are updated with the mean over the batch.

    Examples
    --------
    >>> import tensorcore as tc
    >>> y = tc.nn.functional.instance_norm(tc.arange(8.0).reshape(1, 2, 4))
    >>> [round(v, 3) for v in y[0, 0].tolist()]
    [-1.342, -0.447, 0.447, 1.342]
    """
    if input.ndim < 3:
        raise ValueError(
            f"instance_norm(): expected an input of 3 or more dims (N, C, *), got "
            f"{list(input.shape)}"
        )
    n, c = input.shape[:2]
    x = input.reshape(1, n * c, *input.shape[2:])
    rm = running_mean.repeat(n) if running_mean is not None else None
    rv = running_var.repeat(n) if running_var is not None else None
    w = weight.repeat(n) if weight is not None else None
    b = bias.repeat(n) if bias is not None else None
    out = batch_norm(x, rm, rv, w, b, use_input_stats, momentum, eps)
    if use_input_stats:
        with no_grad():
            if running_mean is not None and rm is not None:
                running_mean.copy_(rm.reshape(n, c).mean(0))
            if running_var is not None and rv is not None:
                running_var.copy_(rv.reshape(n, c).mean(0))
    return out.reshape(input.shape)


@checked(
    "normalize(Tensor input, float p=2.0, int dim=1, float eps=1e-12, Tensor? out=None) -> Tensor"
)
def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None
) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.normalize(tc.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    norm = ops.vector_norm(input, float(p), (dim,), True).clamp(min=eps)
    res = input / norm
    if out is not None:
        return out.copy_(res)
    return res


# The operators tensorcore.cosine_similarity and tensorcore.pdist, as in PyTorch.
