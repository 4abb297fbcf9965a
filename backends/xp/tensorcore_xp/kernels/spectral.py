"""The discrete Fourier transform primitives, written once against an array module ``xp``
(NumPy's and CuPy's ``xp.fft`` share ``fftn``, ``ifftn``, ``rfftn`` and ``irfftn``).

Single precision stays single: NumPy >= 2.0 and CuPy transform complex64 and float32 in
their own precision, and the result is written into ``out`` of the declared dtype either way.

On NumPy the transforms are SciPy's (``scipy.fft``, the same interface) where SciPy is
importable: several times faster than ``numpy.fft``, and a large batch of transforms runs on
``tensorcore.get_num_threads()`` workers, as PyTorch's intra-op threads. SciPy stays optional:
without it, ``numpy.fft``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import tensorcore as tc

from ..helpers import array_of, errstate

__all__ = ["build"]

#: Elements from which a transform may use several workers (SciPy's threads cost more than
#: they save on small ones).
_PARALLEL_SIZE = 1 << 16

#: ``xp.fft``'s ``norm=`` for each ``normalization`` (0 none, 1 ``1/sqrt(n)``, 2 ``1/n``):
#: ``norm`` names the direction that is scaled by ``1/n``, ours the scaling itself.
_FORWARD_NORM = ("backward", "ortho", "forward")
_INVERSE_NORM = ("forward", "ortho", "backward")


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """The ``_fft_*`` kernels for the array module ``xp``."""
    # NaN and infinity go through a transform silently, as in PyTorch.
    quiet = errstate(xp)
    lib: list[Any] = []  # [module, takes workers=]: found at the first transform

    def fft(x: Any) -> tuple[Any, dict[str, int]]:
        """The FFT module for ``x`` and its extra keyword arguments."""
        if not lib:
            mod: Any = xp.fft
            workers = False
            if xp.__name__ == "numpy":
                try:
                    mod = importlib.import_module("scipy.fft")
                    workers = True
                except ImportError:
                    pass
            lib[:] = [mod, workers]
        mod, workers = lib
        if workers and x.size >= _PARALLEL_SIZE:
            return mod, {"workers": tc.get_num_threads()}
        return mod, {}

    def _fft_c2c(out: Any, a: Any, dim: Any, normalization: int, forward: bool) -> None:
        x, o = array_of(a), array_of(out)
        if not dim or o.size == 0:
            o[...] = x
            return
        f, kw = fft(x)
        with quiet(all="ignore"):
            if forward:
                o[...] = f.fftn(x, axes=dim, norm=_FORWARD_NORM[normalization], **kw)
            else:
                o[...] = f.ifftn(x, axes=dim, norm=_INVERSE_NORM[normalization], **kw)

    def _fft_r2c(out: Any, a: Any, dim: Any, normalization: int, onesided: bool) -> None:
        x, o = array_of(a), array_of(out)
        if o.size == 0:
            return
        norm = _FORWARD_NORM[normalization]
        f, kw = fft(x)
        with quiet(all="ignore"):
            if onesided:
                o[...] = f.rfftn(x, axes=dim, norm=norm, **kw)
            else:  # (complex input: SciPy's fftn of a real array gives zeros as -0j)
                o[...] = f.fftn(x.astype(o.dtype), axes=dim, norm=norm, **kw)

    def _fft_c2r(out: Any, a: Any, dim: Any, normalization: int, last_dim_size: int) -> None:
        x, o = array_of(a), array_of(out)
        if o.size == 0:
            return
        s = [x.shape[d] for d in dim[:-1]] + [last_dim_size]
        f, kw = fft(x)
        with quiet(all="ignore"):
            o[...] = f.irfftn(x, s=s, axes=dim, norm=_INVERSE_NORM[normalization], **kw)

    return {"_fft_c2c": _fft_c2c, "_fft_r2c": _fft_r2c, "_fft_c2r": _fft_c2r}
