"""``tc.signal.windows`` against SciPy's windows (the oracle), on every device."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.signal.windows as sw

import tensorcore as tc

W = tc.signal.windows

_CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("hann", {}, {}),
    ("hamming", {}, {}),
    ("blackman", {}, {}),
    ("nuttall", {}, {}),
    ("bartlett", {}, {}),
    ("cosine", {}, {}),
    ("gaussian", {"std": 1.7}, {"std": 1.7}),
    ("kaiser", {"beta": 5.0}, {"beta": 5.0}),
    ("exponential", {"tau": 2.0}, {"tau": 2.0}),
    ("general_hamming", {"alpha": 0.6}, {"alpha": 0.6}),
    ("general_cosine", {"a": [0.4, 0.5, 0.1]}, {"a": [0.4, 0.5, 0.1]}),
]


@pytest.mark.parametrize(("name", "ours", "scipys"), _CASES, ids=[c[0] for c in _CASES])
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("m", [1, 2, 7, 16])
def test_windows_match_scipy(
    device: str, name: str, ours: dict[str, Any], scipys: dict[str, Any], sym: bool, m: int
) -> None:
    w = getattr(W, name)(m, sym=sym, dtype=tc.float64, device=device, **ours)
    assert w.shape == (m,) and w.dtype is tc.float64 and w.device.type == device.split(":")[0]
    if device == "meta":
        return
    sci = getattr(sw, name)
    want = sci(m, *scipys.values(), sym=sym) if name in ("kaiser", "general_cosine") else None
    if want is None:
        want = sci(m, sym=sym, **scipys)
    np.testing.assert_allclose(w.cpu().numpy(), want, rtol=1e-12, atol=1e-12)


def test_window_options_and_errors() -> None:
    assert W.hann(4).dtype is tc.get_default_dtype() and W.hann(0).shape == (0,)
    w = W.hann(3, requires_grad=True)
    assert w.requires_grad and w.is_leaf
    with pytest.raises(ValueError, match="non-negative window length"):
        W.hann(-1)
    with pytest.raises(ValueError, match="float32 or float64"):
        W.gaussian(3, dtype=tc.int64)
    with pytest.raises(ValueError, match="Center must be None"):
        W.exponential(5, center=1.0)
    with pytest.raises(ValueError, match="Standard deviation"):
        W.gaussian(5, std=0)
    with pytest.raises(ValueError, match="beta must be non-negative"):
        W.kaiser(5, beta=-1)
    with pytest.raises(TypeError, match="list/tuple"):
        W.general_cosine(5, a=3)  # type: ignore[arg-type]
    np.testing.assert_allclose(
        W.exponential(5, center=1.0, sym=False, dtype=tc.float64).numpy(),
        sw.exponential(5, center=1.0, sym=False),
    )
