"""The discrete Fourier transforms' rules."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .. import functions as ops
from ._table import _d

# ------------------------------------------------------------------ discrete Fourier transforms
# A DFT is linear, so each gradient is the adjoint transform of ``g``. The adjoint of a DFT is
# the DFT of the other direction with the same scaling (``normalization`` counts the scaling,
# not the direction), so the primitives' rules are transforms themselves, and differentiable.
_d(
    "_fft_c2c",
    "dim normalization forward",
    lambda c, g: (ops._fft_c2c(g, c.dim, c.normalization, not c.forward),),
)


def _fft_r2c_backward(c: Any, g: Tensor) -> tuple[Any, ...]:
    # A one-sided r2c is the full transform with the upper half dropped: its adjoint puts
    # zeros back in that half. The real input takes the real part of the inverse transform.
    if c.onesided:
        last = c.dim[-1]
        missing = c.self._shape[last] - g._shape[last]
        if missing > 0:
            shape = list(g._shape)
            shape[last] = missing
            g = ops.cat([g, ops.zeros(shape, dtype=g._dtype, device=g._device)], last)
    return (ops.real(ops._fft_c2c(g, c.dim, c.normalization, False)),)


_d("_fft_r2c", "self:spec dim normalization onesided", _fft_r2c_backward)


def _fft_c2r_backward(c: Any, g: Tensor) -> tuple[Any, ...]:
    # c2r fills the upper half of the spectrum with the conjugates of the lower half, then
    # inverts. Its adjoint is the one-sided forward transform of ``g``, where each value whose
    # mirror image was filled in also collects that image's gradient: the values at
    # 1 .. n - (n // 2 + 1) of the last dim count twice (not 0, nor n / 2 for an even n).
    gi = ops._fft_r2c(g, c.dim, c.normalization, True)
    last = c.dim[-1]
    twice = g._shape[last] - gi._shape[last]
    if twice <= 0:
        return (gi,)
    rest = gi._shape[last] - 1 - twice
    parts = [gi.narrow(last, 0, 1), gi.narrow(last, 1, twice) * 2]
    if rest:
        parts.append(gi.narrow(last, 1 + twice, rest))
    return (ops.cat(parts, last),)


_d("_fft_c2r", "dim normalization", _fft_c2r_backward)
