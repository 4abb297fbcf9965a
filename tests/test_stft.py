"""``tc.stft`` and ``tc.istft`` against a NumPy short-time Fourier transform written out
(``np.pad``, frames, window, ``np.fft``), their round trip, PyTorch's warnings and errors, and
their gradients by gradcheck, on every device."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close

NP_PAD = {"reflect": "reflect", "constant": "constant", "replicate": "edge", "circular": "wrap"}


def _np_stft(x, n_fft, hop, window, center, pad_mode, normalized, onesided):  # type: ignore[no-untyped-def]
    if center:
        pad = [(0, 0)] * (x.ndim - 1) + [(n_fft // 2, n_fft // 2)]
        x = np.pad(x, pad, mode=NP_PAD[pad_mode])
    n_frames = 1 + (x.shape[-1] - n_fft) // hop
    frames = np.stack([x[..., i * hop : i * hop + n_fft] for i in range(n_frames)], -2)
    frames = frames * window
    spec = np.fft.rfft(frames, axis=-1) if onesided else np.fft.fft(frames, axis=-1)
    if normalized:
        spec = spec / np.sqrt(n_fft)
    return np.swapaxes(spec, -1, -2)


@pytest.mark.parametrize("pad_mode", sorted(NP_PAD))
@pytest.mark.parametrize("center", [True, False])
def test_stft_matches_numpy(device: str, pad_mode: str, center: bool) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 37))
    win = np.hanning(8)[:7]
    padded = np.concatenate([win, [0.0]])  # win_length 7 centred in n_fft 8: left 0, right 1
    got = tc.stft(tc.tensor(x, device=device), 8, hop_length=3, win_length=7,
                  window=tc.tensor(win, device=device), center=center, pad_mode=pad_mode,
                  return_complex=True)  # fmt: skip
    want = _np_stft(x, 8, 3, padded, center, pad_mode, False, True)
    assert got.dtype == tc.complex128 and got.shape == want.shape
    assert_close(got, want)
    ones = tc.ones(8, dtype=tc.float64, device=device)
    one = tc.stft(tc.tensor(x[0], device=device), 8, window=ones, center=center,
                  pad_mode=pad_mode, normalized=True, onesided=False,
                  return_complex=True)  # fmt: skip
    assert_close(one, _np_stft(x[0], 8, 2, np.ones(8), center, pad_mode, True, False))


@pytest.mark.parametrize(("n_fft", "win_length", "hop"), [(8, 4, 3), (8, 5, 2), (6, 6, 2)])
def test_stft_align_to_window(device: str, n_fft: int, win_length: int, hop: int) -> None:
    """PyTorch 2.13's ``align_to_window=True``: frame ``m`` is the ``win_length`` samples
    from ``m * hop`` times the window, centred in ``n_fft`` (``1 + (L - win_length) // hop``
    frames); ``False`` is the default framing (the window centred in ``n_fft`` samples)."""
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 24)), np.hanning(win_length + 2)[1:-1]
    left = (n_fft - win_length) // 2
    n_frames = 1 + (24 - win_length) // hop
    frames = np.zeros((2, n_frames, n_fft))
    for m in range(n_frames):
        frames[:, m, left : left + win_length] = x[:, m * hop : m * hop + win_length] * w
    want = np.swapaxes(np.fft.rfft(frames, axis=-1), -1, -2)
    xt, wt = tc.tensor(x, device=device), tc.tensor(w, device=device)
    kw = {"hop_length": hop, "win_length": win_length, "window": wt, "center": False,
          "return_complex": True}  # fmt: skip
    got = tc.stft(xt, n_fft, align_to_window=True, **kw)
    assert got.shape == want.shape
    assert_close(got, want)
    assert_close(tc.stft(xt[0], n_fft, align_to_window=True, **kw), want[0])
    assert_close(tc.stft(xt, n_fft, align_to_window=False, **kw), tc.stft(xt, n_fft, **kw))
    with pytest.raises(RuntimeError, match="align_to_window should only be set when center"):
        tc.stft(xt, n_fft, window=wt, win_length=win_length, align_to_window=False,
                return_complex=True)  # fmt: skip


def test_stft_of_complex_input_and_the_real_view(device: str) -> None:
    rng = np.random.default_rng(1)
    z = rng.standard_normal(20) + 1j * rng.standard_normal(20)
    w = np.hanning(6)
    got = tc.stft(tc.tensor(z, device=device), 6, window=tc.tensor(w, device=device))
    assert_close(got, _np_stft(z, 6, 1, w, True, "reflect", False, False))
    with pytest.raises(RuntimeError, match="Cannot have onesided output if window or input"):
        tc.stft(tc.tensor(z, device=device), 6, window=tc.tensor(w, device=device), onesided=True)
    x = tc.tensor(z.real, device=device)
    with pytest.warns(UserWarning, match="stft with return_complex=False is deprecated"):
        real = tc.stft(x, 6, window=tc.tensor(w, device=device), return_complex=False)
    spec = tc.stft(x, 6, window=tc.tensor(w, device=device), return_complex=True)
    assert_close(real, tc.view_as_real(spec))
    assert_close(x.stft(6, window=tc.tensor(w, device=device), return_complex=True), spec)


@pytest.mark.parametrize("hop", [1, 2, 4])
def test_istft_inverts_stft(device: str, hop: int) -> None:
    x = np.random.default_rng(2).standard_normal((3, 50))
    w = tc.hann_window(16, dtype=tc.float64, device=device)
    spec = tc.stft(tc.tensor(x, device=device), 16, hop_length=hop, window=w, return_complex=True)
    back = tc.istft(spec, 16, hop_length=hop, window=w, length=50)
    assert_close(back, x)
    assert_close(spec.istft(16, hop_length=hop, window=w, length=50), x)
    assert_close(tc.istft(spec[0], 16, hop_length=hop, window=w, length=50), x[0])
    # Without length: the frames' span less the centring's padding, here all 50 samples.
    assert (
        tc.istft(spec, 16, hop_length=hop, window=w).shape[-1]
        == 16 + hop * (spec.shape[-1] - 1) - 16
    )
    norm = tc.stft(tc.tensor(x, device=device), 16, hop_length=hop, window=w,
                   normalized=True, return_complex=True)  # fmt: skip
    assert_close(tc.istft(norm, 16, hop_length=hop, window=w, normalized=True, length=50), x)
    two = tc.stft(tc.tensor(x, device=device), 16, hop_length=hop, window=w, onesided=False,
                  return_complex=True)  # fmt: skip
    assert_close(tc.istft(two, 16, hop_length=hop, window=w, length=50), x)
    cplx = tc.istft(two, 16, hop_length=hop, window=w, length=50, return_complex=True)
    assert cplx.is_complex()
    assert_close(cplx, x.astype(complex))


def test_istft_length_pads_with_a_warning(device: str) -> None:
    w = tc.hann_window(8, dtype=tc.float64, device=device) + 0.5  # no zero at the ends
    x = tc.arange(20, dtype=tc.float64, device=device)
    spec = tc.stft(x, 8, window=w, return_complex=True)
    with pytest.warns(UserWarning, match="The length of signal is shorter than the length"):
        y = tc.istft(spec, 8, window=w, center=False, length=40)
    assert y.shape == (40,) and y[-10:].tolist() == [0.0] * 10


def test_warnings_and_errors_are_pytorchs(device: str) -> None:
    x = tc.ones(20, device=device)
    with pytest.raises(RuntimeError, match="stft requires the return_complex parameter be given"):
        tc.stft(x, 4)
    with pytest.warns(UserWarning, match="A window was not provided. A rectangular window"):
        spec = tc.stft(x, 4, return_complex=True)
    with pytest.warns(UserWarning, match="Please provide the same window used by stft"):
        tc.istft(spec, 4)
    cases = [
        ((tc.ones(20, dtype=tc.int64, device=device), 4), "floating point or complex values"),
        ((tc.ones(1, 2, 20, device=device), 4), "expected a 1D or 2D tensor"),
        ((x, 4, 0), "expected hop_length > 0, but got hop_length=0"),
        ((x, 4, 1, 5), "expected 0 < win_length <= n_fft, but got win_length=5"),
        ((tc.ones(2, device=device), 4), "Padding size should be less than the corresponding"),
    ]
    for args, message in cases:
        with pytest.raises(RuntimeError, match=message):
            tc.stft(
                *args,
                window=None if len(args) < 4 else tc.ones(args[3], device=device),
                return_complex=True,
            )
    with pytest.raises(RuntimeError, match="expected 0 < n_fft < 20, but got n_fft=40"):
        tc.stft(x, 40, window=tc.ones(40, device=device), center=False, return_complex=True)
    with pytest.raises(RuntimeError, match=r"1D window tensor of size equal to win_length=4, but"):
        tc.stft(x, 4, window=tc.ones(3, device=device), return_complex=True)
    w = tc.ones(4, device=device)
    with pytest.raises(RuntimeError, match="istft requires a complex-valued input tensor"):
        tc.istft(spec.real, 4, window=w)
    with pytest.raises(RuntimeError, match="match n_fft / 2 \\+ 1 when onesided=True, but got 3"):
        tc.istft(spec, 6, window=tc.ones(6, device=device))
    with pytest.raises(RuntimeError, match="expected 0 < hop_length <= win_length"):
        tc.istft(spec, 4, hop_length=5, window=w)
    with pytest.raises(RuntimeError, match="window overlap add min"):
        tc.istft(spec, 4, window=tc.zeros(4, device=device))


def test_gradients_by_gradcheck(device: str) -> None:
    gen = tc.Generator().manual_seed(0)
    x = tc.rand(2, 12, dtype=tc.float64, generator=gen).to(device).requires_grad_()
    w = (tc.rand(6, dtype=tc.float64, generator=gen) + 0.5).to(device).requires_grad_()
    assert tc.autograd.gradcheck(
        lambda a, b: tc.stft(a, 6, hop_length=2, window=b, return_complex=True).abs(), (x, w)
    )
    spec = tc.stft(x.detach(), 6, hop_length=2, window=w.detach(), return_complex=True)
    spec = spec.detach().requires_grad_()
    assert tc.autograd.gradcheck(
        lambda s, b: tc.istft(s, 6, hop_length=2, window=b, length=12), (spec, w)
    )
