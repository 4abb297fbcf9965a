"""Parameter initialisation (``tensorcore.nn.init``), with PyTorch's names, formulas and
errors. Every function fills its tensor in place under ``no_grad`` and returns it, using the
tensor's own random operators, so it works on any device."""

from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops

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
    "trunc_normal_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for ``nonlinearity`` (PyTorch's table).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.init.calculate_gain("relu")
    1.4142135623730951
    """
    linear = (
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
    )
    if nonlinearity in linear or nonlinearity == "sigmoid":
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
    if tensor.ndim < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = math.prod(tensor.shape[2:]) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with ``U(a, b)``."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with ``N(mean, std**2)``."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Any = None,
) -> Tensor:
    """Fill with ``N(mean, std**2)`` truncated to ``[a, b]`` (inverse-CDF sampling, as in
    PyTorch)."""

    def cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    lo, hi = cdf((a - mean) / std), cdf((b - mean) / std)
    with no_grad():
        tensor.uniform_(2 * lo - 1, 2 * hi - 1, generator=generator)
        # erfinv through the inverse of erf by Newton steps on the tensor (no erfinv op).
        y = tensor.clamp(-1 + 1e-7, 1 - 1e-7)
        x = _erfinv(y)
        x = x * (std * math.sqrt(2.0)) + mean
        return tensor.copy_(x.clamp(a, b))


def _erfinv(y: Tensor) -> Tensor:
    # Giles' single-precision approximation as the start, then two Newton steps on erf.
    w = -((1 - y) * (1 + y)).log()
    small = w < 5.0
    ws = w - 2.5
    p1: Any = 2.81022636e-08
    for c in (
        3.43273939e-07,
        -3.5233877e-06,
        -4.39150654e-06,
        0.00021858087,
        -0.00125372503,
        -0.00417768164,
        0.246640727,
        1.50140941,
    ):
        p1 = p1 * ws + c
    wl = w.clamp(min=5.0).sqrt() - 3.0
    p2: Any = -0.000200214257
    for c in (
        0.000100950558,
        0.00134934322,
        -0.00367342844,
        0.00573950773,
        -0.0076224613,
        0.00943887047,
        1.00167406,
        2.83297682,
    ):
        p2 = p2 * wl + c
    x = ops.where(small, p1, p2) * y
    for _ in range(2):
        err = x.erf() - y
        x = x - err / ((-(x * x)).exp() * (2 / math.sqrt(math.pi)))
    return x


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with zeros."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """The identity matrix in a 2-D tensor."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(ops.eye(*tensor.shape, dtype=tensor.dtype, device=tensor.device))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The Dirac delta in a 3-, 4- or 5-D convolution weight: the identity map for each group
    of channels."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_per = tensor.shape[0] // groups
    if tensor.shape[0] % groups:
        raise ValueError("dim 0 must be divisible by groups")
    n = min(out_per, tensor.shape[1])
    with no_grad():
        tensor.zero_()
        centre = tuple(s // 2 for s in tensor.shape[2:])
        for g in range(groups):
            for d in range(n):
                tensor[(g * out_per + d, d) + centre] = 1
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """``U(-a, a)`` with ``a = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """``N(0, std**2)`` with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """``U(-b, b)`` with ``b = gain * sqrt(3 / fan)`` (He).

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.init.kaiming_uniform_(tc.empty(64, 100), a=5 ** 0.5)
    >>> bool(w.abs().max() <= 0.1)
    True
    """
    if 0 in tensor.shape:
        return tensor
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / _fan(tensor, mode))
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Tensor:
    """``N(0, std**2)`` with ``std = gain / sqrt(fan)`` (He)."""
    if 0 in tensor.shape:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """A (semi-)orthogonal matrix (rows or columns orthonormal), from the QR decomposition of a
    normal matrix with the signs made unique, times ``gain``; higher dims are flattened."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flat = ops.empty((rows, cols), dtype=tensor.dtype, device=tensor.device).normal_(
            0, 1, generator=generator
        )
        if rows < cols:
            flat = flat.t()
        q = _orthonormal_columns(flat)
        if rows < cols:
            q = q.t()
        return tensor.copy_(q.reshape(tensor.shape) * gain)


def _orthonormal_columns(a: Tensor) -> Tensor:
    """Q of the QR decomposition of the tall matrix ``a`` (modified Gram-Schmidt, twice for
    stability), with R's diagonal made positive as PyTorch's sign fix does."""
    cols: list[Tensor] = []
    for j in range(a.shape[1]):
        v = a[:, j]
        for _ in range(2):
            for q in cols:
                v = v - (q * v).sum() * q
        cols.append(v / ops.vector_norm(v))
    return ops.stack(cols, 1)
