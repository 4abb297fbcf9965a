"""The three primitives of the discrete Fourier transforms, and the window functions
(``ops/composite_spectral.py``)."""

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

# ---------------------------------------------------------------- window functions
_TAIL = "*, ScalarType? dtype=None, Device? device=None, bool? requires_grad=False) -> Tensor"
for _sig, _doc in [
    (
        "hann_window(int window_length, bool periodic=True, ",
        "The Hann window ``0.5 - 0.5 cos(2 pi k / (N - 1))``, ``N = window_length`` (``+ 1`` "
        "when ``periodic``, the last value dropped).",
    ),
    (
        "hamming_window(int window_length, bool periodic=True, float alpha=0.54, float beta=0.46, ",
        "The Hamming window ``alpha - beta cos(2 pi k / (N - 1))``, ``N = window_length`` "
        "(``+ 1`` when ``periodic``, the last value dropped).",
    ),
    (
        "blackman_window(int window_length, bool periodic=True, ",
        "The Blackman window ``0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))``, "
        "``N = window_length`` (``+ 1`` when ``periodic``, the last value dropped).",
    ),
    (
        "bartlett_window(int window_length, bool periodic=True, ",
        "The triangular Bartlett window ``1 - |2k / (N - 1) - 1|``, ``N = window_length`` "
        "(``+ 1`` when ``periodic``, the last value dropped).",
    ),
    (
        "kaiser_window(int window_length, bool periodic=True, float beta=12.0, ",
        "The Kaiser window ``I0(beta sqrt(1 - (2k / (N - 1) - 1)^2)) / I0(beta)``, "
        "``N = window_length`` (``+ 1`` when ``periodic``, the last value dropped).",
    ),
]:
    _name = _sig[: _sig.index("(")]
    _op(
        _sig + _TAIL,
        "factory nondifferentiable composite",
        _doc,
        method=False,
        dtypes="f",
        dtype_error=f"{_name} expects floating point dtypes, got: {{dtype}}",
    )
_op(
    "stft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, "
    "Tensor? window=None, bool center=True, str pad_mode='reflect', bool normalized=False, "
    "bool? onesided=None, bool? return_complex=None, bool? align_to_window=None) -> Tensor",
    "spectral composite",
    "The short-time Fourier transform of a 1-D or (batch, time) 2-D signal: frames of "
    "``n_fft`` samples ``hop_length`` apart (the signal padded by ``n_fft // 2`` on both sides "
    "with ``pad_mode`` when ``center``), times ``window`` (``win_length`` long, centred), "
    "transformed: (batch, frequencies, frames). ``align_to_window=True`` (only without "
    "``center``) starts each frame's window, rather than its ``n_fft`` samples, at its hop: "
    "``1 + (length - win_length) // hop_length`` frames. ``return_complex`` must be given for "
    "real input (``False``, deprecated, gives the real view).",
    dtypes="fc",
    dtype_error="expected a tensor of floating point or complex values",
    autocast="fp32",
)
_op(
    "istft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, "
    "Tensor? window=None, bool center=True, bool normalized=False, bool? onesided=None, "
    "int? length=None, bool return_complex=False) -> Tensor",
    "spectral composite",
    "The inverse of :func:`stft` (complex input only): each frame's inverse transform times "
    "``window``, overlapped and added, divided by the added squared windows; ``length`` "
    "trims or zero-pads the signal.",
    dtypes="c",
    dtype_error="istft requires a complex-valued input tensor matching the output from stft "
    "with return_complex=True.",
)
