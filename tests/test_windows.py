"""PyTorch's window functions (``tc.hann_window``...) against SciPy's (``scipy.signal.windows``,
``sym=not periodic``) on every device, in float32 and float64; PyTorch's dtypes, lengths 0
and 1 and errors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.signal import windows

import tensorcore as tc
from tensorcore.testing import assert_close

ORACLES = {
    "hann_window": lambda n, sym: windows.hann(n, sym=sym),
    "hamming_window": lambda n, sym: windows.hamming(n, sym=sym),
    "blackman_window": lambda n, sym: windows.blackman(n, sym=sym),
    "bartlett_window": lambda n, sym: windows.bartlett(n, sym=sym),
    "kaiser_window": lambda n, sym: windows.kaiser(n, 12.0, sym=sym),
}


@pytest.mark.parametrize("name", sorted(ORACLES))
@pytest.mark.parametrize("n", [2, 5, 8, 33])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_scipy(device: str, name: str, n: int, periodic: bool) -> None:
    want = ORACLES[name](n, not periodic)
    fn = getattr(tc, name)
    got = fn(n, periodic, dtype=tc.float64, device=device)
    assert got.dtype == tc.float64 and got.device == tc.empty(0, device=device).device
    assert_close(got, want, rtol=1e-12, atol=1e-12)
    got32 = fn(n, periodic=periodic, device=device)  # the default dtype
    assert got32.dtype == tc.float32
    assert_close(got32, want.astype(np.float32), rtol=1e-5, atol=1e-6)
    # Lengths 0 and 1: empty and [1.].
    assert fn(0, periodic, device=device).shape == (0,)
    assert fn(1, periodic, device=device).tolist() == [1.0]


def test_window_parameters(device: str) -> None:
    k = np.arange(6)
    want = 0.5 - 0.4 * np.cos(2 * np.pi * k / 5)  # a symmetric Hamming with alpha, beta
    assert_close(tc.hamming_window(6, False, 0.5, 0.4, dtype=tc.float64, device=device), want)
    got = tc.kaiser_window(7, True, 5.0, dtype=tc.float64, device=device)
    assert_close(got, windows.kaiser(8, 5.0)[:7])
    assert_close(tc.kaiser_window(7, beta=5.0, dtype=tc.float64, device=device), got)
    half = tc.hann_window(8, dtype=tc.float16, device=device)
    assert half.dtype == tc.float16
    assert_close(half, windows.hann(8, sym=False).astype(np.float16), rtol=0, atol=1e-3)
    assert tc.hann_window(4, requires_grad=True, device=device).requires_grad


def test_window_errors(device: str) -> None:
    for name in ORACLES:
        fn = getattr(tc, name)
        with pytest.raises(RuntimeError, match=f"{name} requires non-negative window_length, "):
            fn(-1, device=device)
        with pytest.raises(RuntimeError, match=f"{name} expects floating point dtypes, got: "):
            fn(4, dtype=tc.int64, device=device)
