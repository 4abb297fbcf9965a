"""More functional activations and rearrangements: ``glu``, ``softmin``, ``gumbel_softmax``,
``threshold``, the
shrinkage functions (``hardshrink``, ``softshrink``, ``tanhshrink``), the in-place forms
(``relu_``, ``elu_``, ``leaky_relu_``, ``hardtanh_``, ``threshold_``, and :func:`_activation`,
which runs every ``inplace=True`` activation), the randomized leaky
ReLU (``rrelu``, ``rrelu_``),
``pixel_shuffle``/``pixel_unshuffle``, ``channel_shuffle`` and ``local_response_norm``,
re-exported by ``tensorcore.nn.functional``."""

from __future__ import annotations

import warnings
from typing import Any

from .. import dtypes as dt
from .._memory_format import layer_format
from .._tensor import Tensor
from ..autograd.grad_mode import is_grad_enabled
from ..dispatch import get_op
from ..layouts import contiguous_format
from ..ops import functions as ops
from ..ops._call import call_inplace, call_lane
from ..ops._validate import checked
from ..ops.frontends import named_as

__all__ = [
    "channel_shuffle",
    "elu_",
    "glu",
    "gumbel_softmax",
    "hardshrink",
    "hardtanh_",
    "leaky_relu_",
    "local_response_norm",
    "pixel_shuffle",
    "pixel_unshuffle",
    "relu_",
    "rrelu",
    "rrelu_",
    "softmin",
    "softshrink",
    "tanhshrink",
    "threshold",
    "threshold_",
]


def _nn_op(name: str, *args: Any) -> Any:
    """Operator ``name`` on ``args``: the activations PyTorch declares as operators of
    ``torch._C._nn`` (``leaky_relu``, ``hardtanh``, ...), which are not public functions."""
    return call_lane(get_op(name), args)


def _activation(name: str, input: Tensor, inplace: bool, *args: Any) -> Tensor:
    """Activation operator ``name`` (one of :func:`_nn_op`'s) of ``input`` and ``args``;
    with ``inplace``, written into ``input`` and returned, as ``nn.functional``'s
    ``inplace=True`` forms. Where no derivative is recorded (``input`` takes no part in a
    graph), that is the operator's in-place variant (``torch._C._nn``'s ``leaky_relu_``):
    one kernel writing over ``input``, no result to allocate and copy back. Otherwise the
    result is computed from a copy of ``input`` (the backward reads the input, which the
    write would overwrite) and copied into it.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn._activations import _activation
    >>> x = tc.tensor([-2.0, 3.0])
    >>> _activation("leaky_relu", x, True, 0.5) is x, x
    (True, tensor([-1.,  3.]))
    >>> w = tc.tensor([-2.0, 3.0], requires_grad=True)
    >>> y = _activation("leaky_relu", w * 1, True, 0.5)
    >>> y.sum().backward()
    >>> w.grad
    tensor([0.5000, 1.0000])
    """
    op = get_op(name)
    if not inplace:
        return call_lane(op, (input, *args))
    if not (input._requires_grad or input.requires_grad):
        return call_inplace(op, (input, *args))
    x = input.clone() if is_grad_enabled() else input
    return input.copy_(call_lane(op, (x, *args)))


@checked("glu(Tensor input, int dim=-1) -> Tensor")
def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit: ``a * sigmoid(b)`` with ``a``, ``b`` the two halves of ``input``
    along ``dim``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.glu(tc.tensor([1.0, 2.0, 0.0, 100.0]))
    tensor([0.5000, 2.0000])
    """
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.ndim if -input.ndim <= dim < input.ndim else dim
    n = input.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    a, b = input.split(n // 2, d)
    return named_as(a * b.sigmoid(), "GluBackward0")


@checked(
    "softmin(Tensor input, int? dim=None, int _stacklevel=3, ScalarType? dtype=None) -> Tensor"
)
def softmin(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: dt.dtype | None = None
) -> Tensor:
    """``softmax(-input)`` along ``dim`` (PyTorch's legacy choice of dim when None).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.softmin(tc.tensor([0.0, 0.0, 1e9]), dim=0)
    tensor([0.5000, 0.5000, 0.0000])
    """
    if dim is None:
        dim = implicit_softmax_dim("softmin", input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return ops.softmax(-input, dim)


def implicit_softmax_dim(name: str, ndim: int) -> int:
    """The dim that ``name`` (softmax, log_softmax, softmin) takes when called without one,
    PyTorch's legacy choice, with PyTorch's deprecation warning.

    Examples
    --------
    >>> import warnings
    >>> from tensorcore.nn._activations import implicit_softmax_dim
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     implicit_softmax_dim("softmax", 2)
    1
    >>> str(caught[0].message)[:44]
    'Implicit dimension choice for softmax has be'
    """
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument.",
        UserWarning,
        stacklevel=4,
    )
    return 0 if ndim in (0, 1, 3) else 1


@checked(
    "gumbel_softmax(Tensor logits, float tau=1, bool hard=False, float eps=1e-10, int dim=-1) "
    "-> Tensor"
)
def gumbel_softmax(
    logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """A sample of the Gumbel-softmax (Concrete) distribution over ``dim``:
    ``softmax((logits + g) / tau)`` with ``g = -log(Exponential(1))`` standard Gumbel noise.

    With ``hard=True`` the result is the one-hot vector of the sample's largest entry in the
    forward pass, with the soft sample's gradient (the straight-through estimator:
    ``y_hard - y_soft.detach() + y_soft``). ``eps`` is deprecated and has no effect. The noise
    comes from the default generator, as in PyTorch (which it reproduces on the CPU).

    Examples
    --------
    >>> import tensorcore as tc
    >>> _ = tc.manual_seed(0)
    >>> y = tc.nn.functional.gumbel_softmax(tc.zeros(2, 3), tau=0.5, hard=True)
    >>> y.sum(-1).tolist(), ((y == 0) | (y == 1)).all().item()
    ([1.0, 1.0], True)
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -ops.empty_like(logits, memory_format=contiguous_format).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft  # the reparametrization trick
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = ops.zeros_like(logits, memory_format=contiguous_format).scatter(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


@checked("threshold(Tensor input, float threshold, float value, bool inplace=False) -> Tensor")
def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``x`` where ``x > threshold``, else ``value``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.threshold(tc.tensor([0.5, 1.0, 2.0]), 1.0, -3.0)
    tensor([-3., -3.,  2.])
    """
    if inplace:
        return threshold_(input, threshold, value)
    return _nn_op("threshold", input, threshold, value)


@checked("threshold_(Tensor input, float threshold, float value) -> Tensor")
def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In-place :func:`threshold`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([0.5, 2.0])
    >>> _ = tc.nn.functional.threshold_(x, 1.0, 0.0)
    >>> x
    tensor([0., 2.])
    """
    return _activation("threshold", input, True, threshold, value)


@checked("relu_(Tensor input) -> Tensor")
def relu_(input: Tensor) -> Tensor:
    """In-place ``relu``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([-1.0, 2.0])
    >>> tc.nn.functional.relu_(x) is x, x
    (True, tensor([0., 2.]))
    """
    return input.relu_()


@checked("elu_(Tensor input, float alpha=1.0) -> Tensor")
def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place ``elu``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([-1.0, 2.0])
    >>> tc.nn.functional.elu_(x, 2.0)
    tensor([-1.2642,  2.0000])
    """
    return _activation("elu", input, True, alpha, 1.0, 1.0)


@checked("leaky_relu_(Tensor input, float negative_slope=0.01) -> Tensor")
def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place ``leaky_relu``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.leaky_relu_(tc.tensor([-2.0, 3.0]), 0.5)
    tensor([-1.,  3.])
    """
    return _activation("leaky_relu", input, True, negative_slope)


@checked("hardtanh_(Tensor input, float min_val=-1.0, float max_val=1.0) -> Tensor")
def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place ``hardtanh``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.hardtanh_(tc.tensor([-2.0, 0.5, 3.0]))
    tensor([-1.0000,  0.5000,  1.0000])
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _activation("hardtanh", input, True, min_val, max_val)


def _rrelu(input: Tensor, lower: float, upper: float, training: bool, inplace: bool) -> Tensor:
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"rrelu\" not implemented for '{input.dtype.name.title()}'")
    x = _source(input) if inplace else input
    if training:
        # One slope per element, drawn from the default generator; the positive elements'
        # slope is 1. The product with x is what autograd differentiates: the gradient is
        # the slope, as PyTorch's RReLU backward gives.
        slopes = ops.empty_like(x).uniform_(lower, upper)
        out = x * ops.where(x > 0, ops.ones_like(x), slopes)
    else:
        out = _nn_op("leaky_relu", x, (lower + upper) / 2)
    return input.copy_(out) if inplace else named_as(out, "RreluWithNoiseBackward0")


@checked(
    "rrelu(Tensor input, float lower=0.125, float upper=0.3333333333333333, "
    "bool training=False, bool inplace=False) -> Tensor"
)
def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """Randomized leaky ReLU: ``x`` where ``x > 0``, else ``a * x`` with each element's slope
    ``a`` drawn uniformly from ``[lower, upper]`` when ``training``, and the mean slope
    ``(lower + upper) / 2`` otherwise.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.rrelu(tc.tensor([-2.0, 3.0]), 0.25, 0.75)
    tensor([-1.,  3.])
    """
    return _rrelu(input, lower, upper, training, inplace)


@checked(
    "rrelu_(Tensor input, float lower=0.125, float upper=0.3333333333333333, "
    "bool training=False) -> Tensor"
)
def rrelu_(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False
) -> Tensor:
    """In-place ``rrelu``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.rrelu_(tc.tensor([-2.0, 3.0]), 0.25, 0.75)
    tensor([-1.,  3.])
    """
    return _rrelu(input, lower, upper, training, True)


def _source(input: Tensor) -> Tensor:
    """What an in-place form computes from: under autograd a copy, so that the values the
    backward saves are not the ones the write overwrites."""
    return input.clone() if input.requires_grad else input


def _check_factor(fn: str, input: Tensor, factor: int, what: str) -> None:
    if input.ndim < 3:
        raise RuntimeError(
            f"{fn} expects input to have at least 3 dimensions, but got input with "
            f"{input.ndim} dimension(s)"
        )
    if factor <= 0:
        raise RuntimeError(f"{fn} expects a positive {what}, but got {factor}")


@checked("pixel_shuffle(Tensor input, int upscale_factor) -> Tensor")
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C r^2, H, W) -> (*, C, H r, W r)``: each group of ``r^2`` channels becomes an
    ``r x r`` block of pixels (a reshape, a permutation and one copy, as PyTorch).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.pixel_shuffle(tc.arange(4.0).reshape(1, 4, 1, 1), 2)
    tensor([[[[0., 1.],
              [2., 3.]]]])
    """
    r = upscale_factor
    _check_factor("pixel_shuffle", input, r, "upscale_factor")
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    nb = len(batch)
    x = input.reshape(*batch, c // (r * r), r, r, h, w)
    order = [*range(nb), nb, nb + 3, nb + 1, nb + 4, nb + 2]
    out = x.permute(order).reshape(*batch, c // (r * r), h * r, w * r)
    return named_as(_keep_format(input, out), "PixelShuffleBackward0")


def _keep_format(input: Tensor, out: Tensor) -> Tensor:
    """``out`` in the channels-last format that ``input`` suggests (PyTorch's shuffles keep
    it)."""
    fmt = layer_format(input) if input.ndim in (4, 5) else None
    return out if fmt is None else out.contiguous(memory_format=fmt)


@checked("pixel_unshuffle(Tensor input, int downscale_factor) -> Tensor")
def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """``(*, C, H r, W r) -> (*, C r^2, H, W)``, the inverse of :func:`pixel_shuffle`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.pixel_unshuffle(tc.arange(4.0).reshape(1, 1, 2, 2), 2).flatten()
    tensor([0., 1., 2., 3.])
    """
    r = downscale_factor
    _check_factor("pixel_unshuffle", input, r, "downscale_factor")
    *batch, c, h, w = input.shape
    for name, size, d in (("height", h, -2), ("width", w, -1)):
        if size % r:
            raise RuntimeError(
                f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                f"input.size({d})={size} is not divisible by {r}"
            )
    nb = len(batch)
    x = input.reshape(*batch, c, h // r, r, w // r, r)
    order = [*range(nb), nb, nb + 2, nb + 4, nb + 1, nb + 3]
    out = x.permute(order).reshape(*batch, c * r * r, h // r, w // r)
    return named_as(_keep_format(input, out), "PixelUnshuffleBackward0")


@checked("hardshrink(Tensor input, float lambd=0.5) -> Tensor")
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``|x| > lambd``, else 0.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.hardshrink(tc.tensor([-0.3, 0.7, -2.0]))
    tensor([ 0.0000,  0.7000, -2.0000])
    """
    return _nn_op("hardshrink", input, lambd)


@checked("softshrink(Tensor input, float lambd=0.5) -> Tensor")
def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` moved ``lambd`` towards 0, and 0 within ``lambd`` of it.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.softshrink(tc.tensor([-0.3, 0.7, -2.0]))  # (-0.3 * 0, as PyTorch's)
    tensor([-0.0000,  0.2000, -1.5000])
    """
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return _nn_op("softshrink", input, lambd)


@checked("tanhshrink(Tensor input) -> Tensor")
def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.tanhshrink(tc.tensor([1.0]))
    tensor([0.2384])
    """
    return input - ops.tanh(input)


@checked("channel_shuffle(Tensor input, int groups) -> Tensor")
def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the channels (dim 1) of ``groups`` groups, as ShuffleNet does:
    ``(N, g * c, *) -> (N, c * g, *)`` through a transpose of the two factors.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.channel_shuffle(tc.arange(4.0).reshape(1, 4, 1, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    if groups <= 0:
        raise RuntimeError(
            f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
        )
    if input.ndim < 3:
        raise RuntimeError(
            f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"sizes {list(input.shape)}"
        )
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups."
        )
    n, rest = input.shape[0], tuple(input.shape[2:])
    x = input.reshape(n, groups, c // groups, *rest).transpose(1, 2)
    return _keep_format(input, x.reshape(n, c, *rest))


@checked(
    "local_response_norm(Tensor input, int size, float alpha=0.0001, float beta=0.75, "
    "float k=1.0) -> Tensor"
)
def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    """Divide by ``(k + alpha * mean of x^2 over a window of size channels) ** beta``, the
    window centred on each channel and zero-padded, as AlexNet's normalization.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([[[[1.0]], [[2.0]]]])
    >>> tc.nn.functional.local_response_norm(x, 2, alpha=1.0, beta=1.0, k=0.0).flatten()
    tensor([2.0000, 0.8000])
    """
    if input.ndim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions)"
        )
    if input.numel() == 0:
        return input
    sq = input * input
    shape = list(sq.shape)
    before, after = size // 2, (size - 1) // 2
    pads = []
    for n in (before, after):
        shape[1] = n
        pads.append(ops.zeros(tuple(shape), dtype=sq.dtype, device=sq.device))
    padded = ops.cat([pads[0], sq, pads[1]], 1)
    windows = padded.unfold(1, size, 1)
    if input.is_floating_point() or input.is_complex():
        window_mean = windows.mean(-1)
    else:
        # (PyTorch averages integers as its integer pooling does: the truncated mean, then
        # computes the rest in the default float dtype)
        window_mean = windows.sum(-1).div(size, rounding_mode="floor")
    return input / (window_mean * alpha + k).pow(beta)
