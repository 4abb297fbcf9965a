"""Window functions, as ``torch.signal.windows`` (SciPy's ``scipy.signal.windows``).

Each takes the window length ``M`` and, keyword-only, ``sym`` (True: a symmetric window for
filter design; False: a periodic one for spectral analysis, the first ``M`` points of the
symmetric window of length ``M + 1``) and the factory options ``dtype`` (float32 or float64),
``layout``, ``device`` and ``requires_grad``.

Examples
--------
>>> import tensorcore as tc
>>> tc.signal.windows.hann(5)
tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
>>> tc.signal.windows.hann(4, sym=False)
tensor([0.0000, 0.5000, 1.0000, 0.5000])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor
from ..layouts import strided
from ..ops import functions as ops

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]


def _window(
    name: str,
    M: int,
    sym: bool,
    dtype: dt.dtype | None,
    layout: Any,
    device: Any,
    requires_grad: bool,
    values: Callable[[Tensor, int], Tensor],
) -> Tensor:
    """The checks every window makes, then ``values(n, length)`` at the points ``n`` of the
    symmetric window of ``length`` (``M``, or ``M + 1`` for a periodic one, cut to ``M``)."""
    if not isinstance(M, int) or isinstance(M, bool):
        raise TypeError(f"{name}(): argument 'M' must be int, not {type(M).__name__}")
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    dtype = dt.get_default_dtype() if dtype is None else dtype
    if dtype not in (dt.float32, dt.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    if M <= 1:
        out = ops.ones(M, dtype=dtype, device=device)
    else:
        length = M if sym else M + 1
        out = values(ops.arange(M, dtype=dtype, device=device), length)
    return out.requires_grad_(requires_grad) if requires_grad else out


def general_cosine(
    M: int,
    *,
    a: Iterable[float],
    sym: bool = True,
    dtype: dt.dtype | None = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The generalised cosine window ``sum_k (-1)^k a[k] cos(2 pi k n / (M - 1))``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.signal.windows.general_cosine(3, a=[0.5, 0.5])
    tensor([0., 1., 0.])
    """
    if not isinstance(a, (list, tuple)):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    coeffs = list(a)

    def values(n: Tensor, length: int) -> Tensor:
        phase = n * (2 * math.pi / (length - 1))
        out = ops.zeros_like(n) + coeffs[0]
        for k, c in enumerate(coeffs[1:], 1):
            out = out + (-1) ** k * c * ops.cos(phase * k)
        return out

    return _window("general_cosine", M, sym, dtype, layout, device, requires_grad, values)


def general_hamming(
    M: int,
    *,
    alpha: float = 0.54,
    sym: bool = True,
    dtype: dt.dtype | None = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The generalised Hamming window ``alpha - (1 - alpha) cos(2 pi n / (M - 1))``."""
    return general_cosine(
        M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
        requires_grad=requires_grad,
    )  # fmt: skip


def hamming(
    M: int,
    *,
    sym: bool = True,
    dtype: dt.dtype | None = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Hamming window (:func:`general_hamming` with ``alpha = 0.54``)."""
    return general_hamming(
        M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def hann(
    M: int,
    *,
    sym: bool = True,
    dtype: dt.dtype | None = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Hann window ``0.5 - 0.5 cos(2 pi n / (M - 1))``."""
    return general_hamming(
        M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
        requires_grad=requires_grad,
    )  # fmt: skip


def blackman(
    M: int,
    *,
    sym: bool = True,
    dtype: dt.dtype | None = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Blackman window (:func:`general_cosine` with ``a = [0.42, 0.5, 0.08]``)."""
    return general_cosine(
        M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
        requires_grad=requires_grad,
    )  # fmt: skip


def nuttall(
    M: int,
    *,
    sym: bool = True,
    dtype: dt.dtype | None = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The minimum 4-term Blackman-Harris window of Nuttall."""
    return general_cosine(
        M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype,
        layout=layout, device=device, requires_grad=requires_grad,
    )  # fmt: skip


def bartlett(
    M: int,
    *,
    sym: bool = True,
    dtype: dt.dtype | None = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The triangular Bartlett window ``1 - |2 n / (M - 1) - 1|``."""

    def values(n: Tensor, length: int) -> Tensor:
        return 1 - ops.abs(n * (2.0 / (length - 1)) - 1)

    return _window("bartlett", M, sym, dtype, layout, device, requires_grad, values)


def cosine(
    M: int,
    *,
    sym: bool = True,
    dtype: dt.dtype | None = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The cosine (sine) window ``sin(pi (n + 1/2) / M)``."""

    def values(n: Tensor, length: int) -> Tensor:
        return ops.sin((n + 0.5) * (math.pi / length))

    return _window("cosine", M, sym, dtype, layout, device, requires_grad, values)


def gaussian(
    M: int,
    *,
    std: float = 1.0,
    sym: bool = True,
    dtype: dt.dtype | None = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Gaussian window ``exp(-((n - (M - 1) / 2) / std)^2 / 2)``."""
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")

    def values(n: Tensor, length: int) -> Tensor:
        return ops.exp(-(((n - (length - 1) / 2) / std) ** 2) / 2)

    return _window("gaussian", M, sym, dtype, layout, device, requires_grad, values)


def exponential(
    M: int,
    *,
    center: float | None = None,
    tau: float = 1.0,
    sym: bool = True,
    dtype: dt.dtype | None = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The exponential (Poisson) window ``exp(-|n - center| / tau)``, centred by default."""
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")

    def values(n: Tensor, length: int) -> Tensor:
        c = (length - 1) / 2 if center is None else center
        return ops.exp(-ops.abs(n - c) / tau)

    return _window("exponential", M, sym, dtype, layout, device, requires_grad, values)


def kaiser(
    M: int,
    *,
    beta: float = 12.0,
    sym: bool = True,
    dtype: dt.dtype | None = None,
    layout: Any = strided,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The Kaiser window ``I0(beta sqrt(1 - (2 n / (M - 1) - 1)^2)) / I0(beta)``."""
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")

    def values(n: Tensor, length: int) -> Tensor:
        r = n * (2.0 / (length - 1)) - 1
        arg = ops.sqrt(ops.clamp(1 - r * r, min=0.0)) * beta
        return ops.i0(arg) / ops.i0(ops.full((), beta, dtype=n.dtype, device=n.device))

    return _window("kaiser", M, sym, dtype, layout, device, requires_grad, values)
