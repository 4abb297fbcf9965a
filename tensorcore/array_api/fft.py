"""The ``fft`` extension of the array API standard, over ``tensorcore.fft``."""

from __future__ import annotations

from typing import Any

import tensorcore as _tc

__all__ = [
    "fft", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifftn", "ifftshift", "ihfft",
    "irfft", "irfftn", "rfft", "rfftfreq", "rfftn",
]  # fmt: skip


def _lib() -> Any:
    return _tc.fft


def fft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
    """The one-dimensional discrete Fourier transform along ``axis``."""
    return _lib().fft(x, n, axis, norm)


def ifft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
    """The inverse of :func:`fft`."""
    return _lib().ifft(x, n, axis, norm)


def fftn(x: Any, /, *, s: Any = None, axes: Any = None, norm: str = "backward") -> Any:
    """The n-dimensional discrete Fourier transform over ``axes``."""
    return _lib().fftn(x, s, axes, norm)


def ifftn(x: Any, /, *, s: Any = None, axes: Any = None, norm: str = "backward") -> Any:
    """The inverse of :func:`fftn`."""
    return _lib().ifftn(x, s, axes, norm)


def rfft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
    """The transform of a real signal (the non-negative frequencies only)."""
    return _lib().rfft(x, n, axis, norm)


def irfft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
    """The inverse of :func:`rfft`: a real signal of ``n`` points."""
    return _lib().irfft(x, n, axis, norm)


def rfftn(x: Any, /, *, s: Any = None, axes: Any = None, norm: str = "backward") -> Any:
    """The n-dimensional transform of a real signal."""
    return _lib().rfftn(x, s, axes, norm)


def irfftn(x: Any, /, *, s: Any = None, axes: Any = None, norm: str = "backward") -> Any:
    """The inverse of :func:`rfftn`."""
    return _lib().irfftn(x, s, axes, norm)


def hfft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
    """The transform of a Hermitian-symmetric signal (a real result)."""
    return _lib().hfft(x, n, axis, norm)


def ihfft(x: Any, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Any:
    """The inverse of :func:`hfft`."""
    return _lib().ihfft(x, n, axis, norm)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Any:
    """The sample frequencies of :func:`fft` for ``n`` points spaced ``d`` apart."""
    return _lib().fftfreq(n, d, dtype=dtype, device=device)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Any:
    """The sample frequencies of :func:`rfft`."""
    return _lib().rfftfreq(n, d, dtype=dtype, device=device)


def fftshift(x: Any, /, *, axes: Any = None) -> Any:
    """``x`` with the zero frequency moved to the centre of ``axes``."""
    return _lib().fftshift(x, axes)


def ifftshift(x: Any, /, *, axes: Any = None) -> Any:
    """The inverse of :func:`fftshift`."""
    return _lib().ifftshift(x, axes)
