"""Meta functions of the discrete Fourier transform primitives (``_fft_c2c``, ``_fft_r2c``,
``_fft_c2r``, PyTorch's internal operators of the same names): argument checks and output
shapes, as ``meta_functions.py`` does for the others.

The primitives transform over ``dim`` (in the caller's order: the last one is the halved dim
of the real transforms) without padding or trimming; ``tensorcore.fft`` resizes the input
first. ``normalization`` is the scaling applied, whatever the direction: 0 none, 1 by
``1/sqrt(n)``, 2 by ``1/n`` (``n`` the number of points transformed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor, _wrap_dim, torch_name

__all__ = ["fft_dims", "meta_fft_c2c", "meta_fft_c2r", "meta_fft_r2c", "points_error"]


def points_error(n: int) -> RuntimeError:
    """PyTorch's error for a transform of ``n`` < 1 points."""
    return RuntimeError(f"Invalid number of data points ({n}) specified")


def fft_dims(self: Tensor, dim: Sequence[int]) -> tuple[int, ...]:
    """``dim`` wrapped to non-negative dims of ``self``, in their order; each dim once."""
    if self.ndim == 0 and dim:
        raise IndexError(f"Dimension specified as {dim[0]} but tensor has no dimensions")
    dims = tuple(_wrap_dim(d, self.ndim) for d in dim)
    if len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    return dims


def _check_norm(normalization: int) -> None:
    if normalization not in (0, 1, 2):
        raise RuntimeError(
            f"normalization must be 0 (none), 1 (1/sqrt(n)) or 2 (1/n), got {normalization}"
        )


def _check_points(self: Tensor, dims: tuple[int, ...]) -> None:
    for d in dims:
        if self._shape[d] < 1:
            raise points_error(self._shape[d])


def _check_precision(d: dt.dtype) -> None:
    # PyTorch's CPU transforms have no 16-bit kernels (pocketfft and MKL neither).
    if d.itemsize == 2:
        raise RuntimeError(f"Unsupported dtype {torch_name(d)}")


def meta_fft_c2c(self: Tensor, dim: Sequence[int], normalization: int, forward: bool) -> Any:
    dims = fft_dims(self, dim)
    _check_norm(normalization)
    _check_points(self, dims)
    return (self, dims, normalization, forward), (self._shape, self._dtype)


def meta_fft_r2c(self: Tensor, dim: Sequence[int], normalization: int, onesided: bool) -> Any:
    dims = fft_dims(self, dim)
    if not dims:
        raise RuntimeError("must transform at least one axis")
    _check_norm(normalization)
    _check_precision(self._dtype)
    _check_points(self, dims)
    shape = list(self._shape)
    if onesided:
        shape[dims[-1]] = shape[dims[-1]] // 2 + 1
    return (self, dims, normalization, onesided), (tuple(shape), self._dtype.to_complex())


def meta_fft_c2r(self: Tensor, dim: Sequence[int], normalization: int, last_dim_size: int) -> Any:
    dims = fft_dims(self, dim)
    if not dims:
        raise RuntimeError("must transform at least one axis")
    _check_norm(normalization)
    if last_dim_size < 1:
        raise points_error(last_dim_size)
    _check_points(self, dims)
    last = dims[-1]
    half = last_dim_size // 2 + 1
    if self._shape[last] != half:
        raise RuntimeError(
            f"expected the last transformed dim ({last}) to hold "
            f"last_dim_size // 2 + 1 = {half} values (a one-sided spectrum of "
            f"{last_dim_size} points), got {self._shape[last]}"
        )
    shape = list(self._shape)
    shape[last] = last_dim_size
    return (self, dims, normalization, last_dim_size), (tuple(shape), self._dtype.to_real())
