"""The three primitives of the discrete Fourier transforms."""

from __future__ import annotations

from .. import meta_fft as MF
from ._declare import _op

# ---------------------------------------------------------------- discrete Fourier transforms
# PyTorch's three internal primitives, which every function of ``tensorcore.fft`` is written
# with. ``normalization`` is the scaling applied (0 none, 1 ``1/sqrt(n)``, 2 ``1/n``) in
# either direction, so that the adjoint of a transform is the other direction's with the same
# ``normalization``; ``dim`` keeps the caller's order (the last dim is the halved one).
_FFT = "spectral"
_op(
    "_fft_c2c(Tensor self, int[] dim, int normalization, bool forward) -> Tensor",
    _FFT,
    "The complex-to-complex DFT of ``self`` over ``dim`` (``forward``: exponent ``-2 pi i``, "
    "else the inverse's ``+2 pi i``), scaled as ``normalization`` says.",
    frontend="structured",
    meta_function=MF.meta_fft_c2c,
    method=False,
    out=True,
    dtypes="c",
    autocast="fp32",
)
_op(
    "_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor",
    _FFT,
    "The forward DFT of the real ``self`` over ``dim``; ``onesided`` keeps the first "
    "``n // 2 + 1`` values of the last dim (the rest follow by Hermitian symmetry).",
    frontend="structured",
    meta_function=MF.meta_fft_r2c,
    method=False,
    out=True,
    dtypes="f",
    autocast="fp32",
)
_op(
    "_fft_c2r(Tensor self, int[] dim, int normalization, int last_dim_size) -> Tensor",
    _FFT,
    "The real inverse DFT over ``dim`` of a one-sided Hermitian spectrum (the last dim holds "
    "``last_dim_size // 2 + 1`` values), giving ``last_dim_size`` points on that dim.",
    frontend="structured",
    meta_function=MF.meta_fft_c2r,
    method=False,
    out=True,
    dtypes="c",
    autocast="fp32",
)
