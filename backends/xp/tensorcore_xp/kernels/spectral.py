"""The discrete Fourier transform primitives, written once against an array module ``xp``
(NumPy's and CuPy's ``xp.fft`` share ``fftn``, ``ifftn``, ``rfftn`` and ``irfftn``).

Single precision stays single: NumPy >= 2.0 and CuPy transform complex64 and float32 in
their own precision, and the result is written into ``out`` of the declared dtype either way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..helpers import array_of, errstate

__all__ = ["build"]

#: ``xp.fft``'s ``norm=`` for each ``normalization`` (0 none, 1 ``1/sqrt(n)``, 2 ``1/n``):
#: ``norm`` names the direction that is scaled by ``1/n``, ours the scaling itself.
_FORWARD_NORM = ("backward", "ortho", "forward")
_INVERSE_NORM = ("forward", "ortho", "backward")


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """The ``_fft_*`` kernels for the array module ``xp``."""
    fft = xp.fft
    # NaN and infinity go through a transform silently, as in PyTorch.
    quiet = errstate(xp)

    def _fft_c2c(out: Any, a: Any, dim: Any, normalization: int, forward: bool) -> None:
        x, o = array_of(a), array_of(out)
        if not dim or o.size == 0:
            o[...] = x
            return
        with quiet(all="ignore"):
            if forward:
                o[...] = fft.fftn(x, axes=dim, norm=_FORWARD_NORM[normalization])
            else:
                o[...] = fft.ifftn(x, axes=dim, norm=_INVERSE_NORM[normalization])

    def _fft_r2c(out: Any, a: Any, dim: Any, normalization: int, onesided: bool) -> None:
        x, o = array_of(a), array_of(out)
        if o.size == 0:
            return
        norm = _FORWARD_NORM[normalization]
        with quiet(all="ignore"):
            o[...] = (fft.rfftn if onesided else fft.fftn)(x, axes=dim, norm=norm)

    def _fft_c2r(out: Any, a: Any, dim: Any, normalization: int, last_dim_size: int) -> None:
        x, o = array_of(a), array_of(out)
        if o.size == 0:
            return
        s = [x.shape[d] for d in dim[:-1]] + [last_dim_size]
        with quiet(all="ignore"):
            o[...] = fft.irfftn(x, s=s, axes=dim, norm=_INVERSE_NORM[normalization])

    return {"_fft_c2c": _fft_c2c, "_fft_r2c": _fft_r2c, "_fft_c2r": _fft_c2r}
