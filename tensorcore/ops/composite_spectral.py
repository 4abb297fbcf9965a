"""Window functions for spectral analysis (``hann_window``, ``hamming_window``,
``blackman_window``, ``bartlett_window``, ``kaiser_window``), written with ``arange`` and
pointwise operators in the requested dtype, step for step as PyTorch computes them (so that
float32 and float16 windows round alike), and the short-time Fourier transform and its
inverse (``stft``, ``istft``): frames as an ``unfold`` view, the FFT primitives, and an
overlap-add by ``index_add``, so autograd differentiates them through their parts.
``ops/composite.py`` registers them.

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
from ._padding import pad as _pad
from ._validate import warn_caller

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


def _raised_cosine(alpha: float, beta: float) -> Callable[[Tensor, int], Tensor]:
    """Hamming's window body (Hann's with alpha = beta = 0.5)."""

    def body(k: Tensor, n: int) -> Tensor:
        return (k * (2 * math.pi / (n - 1))).cos() * -beta + alpha

    return body


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
    return _window(
        "hamming_window", window_length, periodic, dtype, device, _raised_cosine(alpha, beta)
    )


@_composite
def hann_window(
    window_length: int,
    periodic: bool = True,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    return _window("hann_window", window_length, periodic, dtype, device, _raised_cosine(0.5, 0.5))


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


# ------------------------------------------------------------------ short-time Fourier transform
_NO_WINDOW = (
    "To suppress this warning and use a rectangular window, explicitly set "
    "`window=torch.ones(n_fft, device=<device>)`."
)


def _pad_last(x: Tensor, pad: int, mode: str) -> Tensor:
    """``stft``'s centring: ``x`` padded by ``pad`` on both sides of its last dim in ``mode``,
    as PyTorch pads it (a 3-d view, so that errors name its dims as PyTorch's do)."""
    shape = x._shape
    x3 = x.reshape((1,) * (3 - x.ndim) + shape)
    return _pad(x3, (pad, pad), mode).reshape((*shape[:-1], shape[-1] + 2 * pad))


def _centred(window: Tensor, n_fft: int) -> Tensor:
    """``window`` padded with zeros on both sides to ``n_fft`` (the left side the shorter)."""
    win_length = window._shape[0]
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    right = n_fft - win_length - left
    parts = [ops.zeros(k, dtype=window._dtype, device=window._device) for k in (left, right)]
    return ops.cat([parts[0], window, parts[1]])


@_composite
def stft(
    self: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided: bool | None = None,
    return_complex: bool | None = None,
    align_to_window: bool | None = None,
) -> Tensor:
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    complex_input = self.is_complex() or (window is not None and window.is_complex())
    if return_complex is None and not complex_input:
        raise RuntimeError(
            "stft requires the return_complex parameter be given for real inputs, and will "
            "further require that return_complex=True in a future PyTorch release."
        )
    if not (complex_input if return_complex is None else return_complex):
        warn_caller(
            "stft with return_complex=False is deprecated. In a future pytorch release, stft "
            "will return complex tensors for all inputs, and return_complex=False will raise "
            "an error.\nNote: you can still call torch.view_as_real on the complex output to "
            "recover the old return format.",
        )
    if self.ndim not in (1, 2):
        raise RuntimeError("expected a 1D or 2D tensor")
    x = _pad_last(self, n_fft // 2, pad_mode) if center else self
    x = x if x.ndim == 2 else x.unsqueeze(0)
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    length = x._shape[1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(f"expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        raise RuntimeError(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.ndim != 1 or window._shape[0] != win):
        raise RuntimeError(
            f"expected a 1D window tensor of size equal to win_length={win}, but got window "
            f"with size {list(window._shape)}"
        )
    if window is None:
        warn_caller(
            "A window was not provided. A rectangular window will be applied,which is known to "
            "cause spectral leakage. Other windows such as torch.hann_window or "
            "torch.hamming_window are recommended to reduce spectral leakage." + _NO_WINDOW,
        )
    w = window
    if win < n_fft:  # (ones where no window is given, zeros around it)
        w = ops.ones(win, dtype=self._dtype, device=self._device) if w is None else w
        w = _centred(w, n_fft)
    if align_to_window and win < n_fft:
        # Each window starts at its hop: the signal shifted right by the window's left zeros
        # (and as many on the right as the frames then reach past its end).
        left = (n_fft - win) // 2
        zeros = [
            ops.zeros((x._shape[0], k), dtype=x._dtype, device=x._device)
            for k in (left, n_fft - win - left)
        ]
        x = ops.cat([zeros[0], x, zeros[1]], -1)
    frames = x.unfold(-1, n_fft, hop)  # (batch, n_frames, n_fft), a view
    if w is not None:
        frames = frames * w
    side = not frames.is_complex() if onesided is None else onesided
    norm = 1 if normalized else 0  # 1/sqrt(n_fft) or none
    if frames.is_complex():
        if side:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = ops._fft_c2c(frames, [2], norm, True)
    else:
        out = ops._fft_r2c(frames, [2], norm, side)
    out = out.transpose(1, 2)  # (batch, frequencies, frames)
    if self.ndim == 1:
        out = out.squeeze(0)
    return out if return_complex or return_complex is None else ops.view_as_real(out)


def _overlap_add(frames: Tensor, hop: int, total: int) -> Tensor:
    """Sums (..., n_frames, n_fft) frames placed ``hop`` apart into (..., total)."""
    n_frames, n_fft = frames._shape[-2], frames._shape[-1]
    dev = frames._device
    starts = ops.arange(n_frames, dtype=dt.int64, device=dev) * hop
    where = (starts.unsqueeze(1) + ops.arange(n_fft, dtype=dt.int64, device=dev)).reshape(-1)
    lead = frames._shape[:-2]
    out = ops.zeros((*lead, total), dtype=frames._dtype, device=dev)
    return out.index_add(len(lead), where, frames.reshape((*lead, n_frames * n_fft)))


@_composite
def istft(
    self: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    normalized: bool = False,
    onesided: bool | None = None,
    length: int | None = None,
    return_complex: bool = False,
) -> Tensor:
    hop = n_fft >> 2 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not self.is_complex():
        raise RuntimeError(
            "istft requires a complex-valued input tensor matching the output from stft with "
            "return_complex=True."
        )
    if window is None:
        warn_caller(
            "A window was not provided. A rectangular window will be applied.Please provide "
            "the same window used by stft to make the inversion lossless." + _NO_WINDOW,
        )
    if self.numel() == 0:
        raise RuntimeError("input tensor cannot be empty.")
    if self.ndim not in (2, 3):
        raise RuntimeError(
            "expected a tensor with 3 or 4 dimensions of real, or 2 or 3 dimensions of  "
            f"complex, but got {self.ndim + 1}"
        )
    n_frames, fft_size = self._shape[-1], self._shape[-2]
    expected = n_fft + hop * (n_frames - 1)
    side = fft_size != n_fft if onesided is None else onesided
    if side and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(
            "expected the frequency dimension (3rd to the last) of the input tensor to match "
            f"n_fft / 2 + 1 when onesided=True, but got {fft_size}"
        )
    if not side and n_fft != fft_size:
        raise RuntimeError(
            "expected the frequency dimension (3rd to the last) of the input tensor to match "
            f"n_fft when onesided=False, but got {fft_size}"
        )
    if not 0 < hop <= win:
        raise RuntimeError("expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError("expected 0 < win_length <= n_fft")
    if window is not None and (window.ndim != 1 or window._shape[0] != win):
        raise RuntimeError("Invalid window shape. window has to be 1D and length of `win_length`")
    real = self.real
    w = window if window is not None else ops.ones(win, dtype=real._dtype, device=self._device)
    w = _centred(w, n_fft)
    x = (self if self.ndim == 3 else self.unsqueeze(0)).transpose(1, 2)  # (ch, frames, freq)
    norm = 1 if normalized else 2  # 1/sqrt(n_fft) or 1/n_fft
    if return_complex:
        if side:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = ops._fft_c2c(x, [2], norm, False)
    else:
        if w.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not side:
            x = x.narrow(-1, 0, n_fft // 2 + 1)
        frames = ops._fft_c2r(x, [2], norm, n_fft)
    y = _overlap_add(frames * w, hop, expected)
    envelope = _overlap_add((w * w).expand(n_frames, n_fft), hop, expected)
    start = n_fft // 2 if center else 0
    end = expected - start  # the centring's padding trimmed from both ends
    if length is not None:
        end = start + length
    stop = min(end, expected)
    y = y.narrow(1, start, max(stop - start, 0))
    envelope = envelope.narrow(0, start, max(stop - start, 0))
    if bool(envelope.abs().min() < 1e-11):
        raise RuntimeError("window overlap add min: 1")
    y = y / envelope
    if self.ndim == 2:
        y = y.squeeze(0)
    if end > expected:
        warn_caller(
            "The length of signal is shorter than the length parameter. Result is being padded "
            "with zeros in the tail. Please check your center and hop_length settings.",
        )
        tail = ops.zeros((*y._shape[:-1], end - expected), dtype=y._dtype, device=y._device)
        y = ops.cat([y, tail], -1)
    return y
