"""Parameter initialisation (``tensorcore.nn.init``), with PyTorch's names, formulas and
errors.

Every function fills its tensor in place under ``no_grad`` and returns it. The random ones use
the tensor's own random operators (``uniform_``, ``normal_``), so they work on any device and
take an optional :class:`tensorcore.Generator`.

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.nn import init
>>> w = init.xavier_uniform_(tc.empty(3, 5), gain=init.calculate_gain("tanh"))
>>> w.shape
tensorcore.Size([3, 5])
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops

if TYPE_CHECKING:
    from ..random import Generator

__all__ = [
    "calculate_gain",
    "constant_",
    "dirac_",
    "eye_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "orthogonal_",
    "sparse_",
    "trunc_normal_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]

_LINEAR_FNS = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
)


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (PyTorch's table): 1 for ``linear``, the
    ``conv*`` names and ``sigmoid``; 5/3 for ``tanh``; sqrt(2) for ``relu``;
    ``sqrt(2 / (1 + negative_slope**2))`` for ``leaky_relu``; 3/4 for ``selu``.

    Parameters
    ----------
    nonlinearity : str
        The function's name, as in ``nn.functional``.
    param : float, optional
        The negative slope of ``leaky_relu`` (default 0.01).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For an unknown nonlinearity or a slope that is not a number.

    Examples
    --------
    >>> from tensorcore.nn import init
    >>> init.calculate_gain("relu")
    1.4142135623730951
    >>> round(init.calculate_gain("leaky_relu", 0.2), 6)
    1.38675
    """
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight: ``size(1)`` and ``size(0)`` times the receptive
    field (the product of the dims after the first two).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn import init
    >>> init._calculate_fan_in_and_fan_out(tc.empty(16, 4, 3, 3))
    (36, 144)
    """
    if tensor.ndim < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = math.prod(tensor.shape[2:]) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(
    tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Fill ``tensor`` with values drawn from ``U(a, b)``.

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill (in place).
    a, b : float
        The bounds of the uniform distribution.
    generator : Generator, optional
        The source of randomness.

    Returns
    -------
    Tensor
        ``tensor``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.init.uniform_(tc.empty(3, 5), -1.0, 1.0)
    >>> bool(w.abs().max() <= 1.0)
    True
    """
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Fill ``tensor`` with values drawn from ``N(mean, std**2)``.

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill (in place).
    mean, std : float
        The mean and standard deviation.
    generator : Generator, optional
        The source of randomness.

    Returns
    -------
    Tensor
        ``tensor``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.init.normal_(tc.empty(2, 3), std=0.0).tolist()
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Generator | None = None,
) -> Tensor:
    """Fill ``tensor`` with values drawn from ``N(mean, std**2)`` truncated to ``[a, b]``.

    Sampled as PyTorch (2.13) does, so that a seed gives PyTorch's values: where the interval
    holds more than 30% of the normal's mass, normal draws, with every draw outside ``[a, b]``
    redrawn (a whole tensor of fresh draws per round) until none is left; otherwise uniform
    proposals on ``[a, b]``, each accepted with probability ``pdf(x) / pdf(mode)`` (a uniform
    draw per proposal) and the rejected ones proposed again. A warning is issued when
    ``mean`` is more than two ``std`` outside the interval.

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill (in place).
    mean, std : float
        The mean and standard deviation of the untruncated normal.
    a, b : float
        The truncation bounds (absolute values, not in units of ``std``).
    generator : Generator, optional
        The source of randomness.

    Returns
    -------
    Tensor
        ``tensor``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.init.trunc_normal_(tc.empty(1000), std=2.0, a=-1.0, b=1.0)
    >>> bool(w.abs().max() <= 1.0)
    True
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )

    if tensor.device.type == "meta":  # no values to draw (PyTorch's no-op)
        return tensor

    def cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    with no_grad():
        if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
            # The bounds as the tensor's dtype holds them, so that no value on the boundary
            # is redrawn for its rounding.
            lo = ops.full((), a, dtype=tensor.dtype).item()
            hi = ops.full((), b, dtype=tensor.dtype).item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < lo) | (result > hi)
                if not bool(outside.any()):
                    break
                fresh = ops.empty_like(result).normal_(mean, std, generator=generator)
                result = ops.where(outside, fresh, result)
            return tensor if result is tensor else tensor.copy_(result)
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def rejected(x: Tensor) -> Tensor:
            log_ratio = ((x - mean) / std).pow(2).mul(-0.5).sub(log_peak)
            return ops.empty_like(x).uniform_(generator=generator).log_().gt(log_ratio)

        result = tensor.uniform_(a, b, generator=generator)
        pending = rejected(result)
        while bool(pending.any()):
            proposal = ops.empty_like(tensor).uniform_(a, b, generator=generator)
            result = ops.where(pending, proposal, result)
            pending = ops.where(pending, rejected(proposal), pending)
        return tensor if result is tensor else tensor.copy_(result)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill ``tensor`` with the value ``val``.

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill (in place).
    val : float
        The value.

    Returns
    -------
    Tensor
        ``tensor``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.init.constant_(tc.empty(2), 0.3).tolist()
    [0.30000001192092896, 0.30000001192092896]
    """
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with ones.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.init.ones_(tc.empty(2)).tolist()
    [1.0, 1.0]
    """
    with no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with zeros.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.init.zeros_(tc.ones(2)).tolist()
    [0.0, 0.0]
    """
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fill the 2-D ``tensor`` with the identity matrix (ones on the main diagonal).

    Raises
    ------
    ValueError
        If ``tensor`` is not 2-D.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.init.eye_(tc.empty(2, 3)).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(ops.eye(*tensor.shape, dtype=tensor.dtype, device=tensor.device))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta, so that the convolution
    preserves as many input channels as it can, in each of ``groups`` groups.

    Parameters
    ----------
    tensor : Tensor
        A weight of shape ``(out_channels, in_channels / groups, *kernel)``.
    groups : int
        The number of groups; ``out_channels`` must be divisible by it.

    Returns
    -------
    Tensor
        ``tensor``.

    Raises
    ------
    ValueError
        For another number of dims, or ``size(0)`` not divisible by ``groups``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.init.dirac_(tc.empty(2, 2, 3))[:, :, 1].tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if tensor.shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = tensor.shape[0] // groups
    n = min(out_per_group, tensor.shape[1])
    centre = tuple(s // 2 for s in tensor.shape[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(n):
                tensor[(g * out_per_group + d, d) + centre] = 1
    return tensor


def xavier_uniform_(
    tensor: Tensor, gain: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Glorot uniform: ``U(-a, a)`` with ``a = gain * sqrt(6 / (fan_in + fan_out))``.

    Parameters
    ----------
    tensor : Tensor
        The weight to fill (at least 2-D).
    gain : float
        A scaling factor (see :func:`calculate_gain`).
    generator : Generator, optional
        The source of randomness.

    Returns
    -------
    Tensor
        ``tensor``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.init.xavier_uniform_(tc.empty(10, 14))
    >>> bool(w.abs().max() <= 0.5)
    True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Glorot normal: ``N(0, std**2)`` with ``std = gain * sqrt(2 / (fan_in + fan_out))``.

    Parameters are as for :func:`xavier_uniform_`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.init.xavier_normal_(tc.empty(3, 5)).shape
    tensorcore.Size([3, 5])
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:
    """He uniform: ``U(-bound, bound)`` with ``bound = gain * sqrt(3 / fan)``.

    Parameters
    ----------
    tensor : Tensor
        The weight to fill (at least 2-D).
    a : float
        The negative slope of the rectifier after this layer (``leaky_relu`` only).
    mode : {'fan_in', 'fan_out'}
        ``fan_in`` keeps the variance of the forward pass, ``fan_out`` that of the backward.
    nonlinearity : str
        The nonlinearity's name, for :func:`calculate_gain`.
    generator : Generator, optional
        The source of randomness.

    Returns
    -------
    Tensor
        ``tensor`` (unchanged, with a warning, when it has no elements).

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.init.kaiming_uniform_(tc.empty(64, 100), a=5 ** 0.5)
    >>> bool(w.abs().max() <= 0.1)
    True
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:
    """He normal: ``N(0, std**2)`` with ``std = gain / sqrt(fan)``.

    Parameters are as for :func:`kaiming_uniform_`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.init.kaiming_normal_(tc.empty(3, 5), mode="fan_out").shape
    tensorcore.Size([3, 5])
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Fill ``tensor`` with a (semi-)orthogonal matrix times ``gain``.

    As PyTorch: the Q factor of the QR decomposition of a standard normal matrix, with the
    signs fixed so that R's diagonal is positive (which makes Q Haar-distributed). Dims after
    the first are flattened; rows are orthonormal when there are fewer rows than columns,
    columns otherwise.

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill (at least 2-D).
    gain : float
        A scaling factor.
    generator : Generator, optional
        The source of randomness.

    Returns
    -------
    Tensor
        ``tensor``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> q = tc.nn.init.orthogonal_(tc.empty(3, 5))
    >>> bool(((q @ q.t()) - tc.eye(3)).abs().max() < 1e-5)
    True
    """
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flat = ops.empty((rows, cols), dtype=tensor.dtype, device=tensor.device)
        flat.normal_(0, 1, generator=generator)
        if rows < cols:
            flat = flat.t()
        q = _orthonormal_columns(flat)
        if rows < cols:
            q = q.t()
        tensor.copy_(q.reshape(tensor.shape))
        tensor.mul_(gain)
    return tensor


def _orthonormal_columns(a: Tensor) -> Tensor:
    """Q of the reduced QR decomposition of the tall matrix ``a`` with R's diagonal positive:
    classical Gram-Schmidt with re-orthogonalisation (CGS2), one column at a time, each step a
    pair of matrix-vector products (tensorcore has no ``linalg.qr``)."""
    n, k = a.shape
    q = ops.zeros((n, k), dtype=a.dtype, device=a.device)
    for j in range(k):
        v = a[:, j]
        if j:
            basis = q[:, :j]
            for _ in range(2):
                v = v - basis @ (basis.t() @ v)
        q[:, j] = v / ops.vector_norm(v)
    return q


def sparse_(
    tensor: Tensor, sparsity: float, std: float = 0.01, generator: Generator | None = None
) -> Tensor:
    """Fill the 2-D ``tensor`` with ``N(0, std**2)`` values, then zero a fraction ``sparsity``
    of the entries of every column (``ceil(sparsity * rows)`` rows chosen at random).

    Parameters
    ----------
    tensor : Tensor
        The 2-D tensor to fill.
    sparsity : float
        The fraction of each column to set to zero.
    std : float
        The standard deviation of the non-zero values.
    generator : Generator, optional
        The source of randomness (also for the choice of the zeroed rows).

    Returns
    -------
    Tensor
        ``tensor``.

    Raises
    ------
    ValueError
        If ``tensor`` is not 2-D.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.init.sparse_(tc.empty(10, 3), sparsity=0.2)
    >>> [int((w[:, c] == 0).sum()) for c in range(3)]
    [2, 2, 2]
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            perm = ops.randperm(rows, generator=generator, device=tensor.device)
            tensor[perm[:num_zeros], col] = 0
    return tensor


def _make_deprecated(meth: Callable[..., Tensor]) -> Callable[..., Tensor]:
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args: Any, **kwargs: Any) -> Tensor:
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"Deprecated alias of :func:`{new_name}` (warns)."
    deprecated_init.__name__ = old_name
    deprecated_init.__qualname__ = old_name
    return deprecated_init


# PyTorch's deprecated names without the trailing underscore.
uniform = _make_deprecated(uniform_)
normal = _make_deprecated(normal_)
constant = _make_deprecated(constant_)
eye = _make_deprecated(eye_)
dirac = _make_deprecated(dirac_)
xavier_uniform = _make_deprecated(xavier_uniform_)
xavier_normal = _make_deprecated(xavier_normal_)
kaiming_uniform = _make_deprecated(kaiming_uniform_)
kaiming_normal = _make_deprecated(kaiming_normal_)
orthogonal = _make_deprecated(orthogonal_)
sparse = _make_deprecated(sparse_)
