"""Window functions for spectral analysis (``hann_window``, ``hamming_window``,
``blackman_window``, ``bartlett_window``, ``kaiser_window``), written with ``arange`` and
pointwise operators in the requested dtype, step for step as PyTorch computes them (so that
float32 and float16 windows round alike). ``ops/composite.py`` registers them.

A periodic window of length ``N`` is the first ``N`` values of the symmetric window of length
``N + 1`` (what spectral analysis with overlapping frames wants); lengths 0 and 1 give an
empty tensor and ``[1.]``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor
from . import functions as ops

__all__ = ["SPECTRAL_COMPOSITES"]

SPECTRAL_COMPOSITES: dict[str, Callable[..., Any]] = {}


def _composite(fn: Callable[..., Any]) -> Callable[..., Any]:
    SPECTRAL_COMPOSITES[fn.__name__] = fn
    return fn


def _window(
    name: str,
    window_length: int,
    periodic: bool,
    dtype: Any,
    device: Any,
    body: Callable[[Tensor, int], Tensor],
) -> Tensor:
    """Checks, the trivial lengths, then ``body(arange(n), n)`` for the symmetric length ``n``
    (one more than asked for a periodic window, whose last value is dropped)."""
    if window_length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window_length, got window_length={window_length}"
        )
    dtype = dt.get_default_dtype() if dtype is None else dtype
    if window_length == 0:
        return ops.empty(0, dtype=dtype, device=device)
    if window_length == 1:
        return ops.ones(1, dtype=dtype, device=device)
    n = window_length + 1 if periodic else window_length
    window = body(ops.arange(n, dtype=dtype, device=device), n)
    return window.narrow(0, 0, window_length) if periodic else window


@_composite
def hamming_window(
    window_length: int,
    periodic: bool = True,
    alpha: float = 0.54,
    beta: float = 0.46,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    def body(k: Tensor, n: int) -> Tensor:
        return (k * (2 * math.pi / (n - 1))).cos() * -beta + alpha

    return _window("hamming_window", window_length, periodic, dtype, device, body)


@_composite
def hann_window(
    window_length: int,
    periodic: bool = True,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    if window_length < 0:  # (hamming_window would name itself)
        raise RuntimeError(
            f"hann_window requires non-negative window_length, got window_length={window_length}"
        )
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype, device)


@_composite
def blackman_window(
    window_length: int,
    periodic: bool = True,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    def body(k: Tensor, n: int) -> Tensor:
        x = k * (math.pi / (n - 1))
        return (x * 4).cos() * 0.08 - (x * 2).cos() * 0.5 + 0.42

    return _window("blackman_window", window_length, periodic, dtype, device, body)


@_composite
def bartlett_window(
    window_length: int,
    periodic: bool = True,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    def body(k: Tensor, n: int) -> Tensor:
        rising = k * (2.0 / (n - 1))
        # The second half falls back: 2 - x.
        return ops.where(k >= (n - 1) // 2 + 1, 2 - rising, rising)

    return _window("bartlett_window", window_length, periodic, dtype, device, body)


@_composite
def kaiser_window(
    window_length: int,
    periodic: bool = True,
    beta: float = 12.0,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    def body(k: Tensor, n: int) -> Tensor:
        # i0(beta * sqrt(1 - ((k - a) / a)^2)) / i0(beta), a = (n - 1) / 2, in float32 at
        # least (PyTorch's opmath for 16-bit floats).
        work = k._dtype if k._dtype in (dt.float32, dt.float64) else dt.float32
        a = (n - 1) / 2.0
        r = ((k.to(work) - a) / a).pow(2)
        num = ((1 - r).sqrt() * beta).i0()
        den = ops.full((), beta, dtype=work, device=k._device).i0()
        return (num / den).to(k._dtype)

    return _window("kaiser_window", window_length, periodic, dtype, device, body)
