"""The NumPy LSTM layer kernel puts the input's projections in its workspace's layout a chunk
of steps at a time (``tensorcore_xp/kernels/recurrent.py``, ``_CHUNK_BYTES``): both
directions, packed or not, give the bits of one chunk over the whole sequence, and the values
of the LSTM written out in NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from tensorcore_xp.kernels import recurrent as rec

import tensorcore as tc
from tensorcore.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

STEPS, BATCH, SIZE, HIDDEN = 7, 4, 3, 5


def _run(mod: tc.nn.LSTM, x: tc.Tensor, packed: bool) -> list[np.ndarray]:
    x = x.detach().requires_grad_()
    lengths = tc.tensor([3, 7, 1, 7])
    inp = pack_padded_sequence(x, lengths, enforce_sorted=False) if packed else x
    out, (h, c) = mod(inp)
    y = pad_packed_sequence(out)[0] if packed else out
    loss = (y * y).sum() + (h * c).sum()
    grads = tc.autograd.grad(loss, [x, *mod.parameters()])
    return [a.detach().numpy() for a in (y, h, c, *grads)]


def _chunk_of(steps: int, monkeypatch: pytest.MonkeyPatch, dtype: tc.dtype) -> None:
    """Chunks of ``steps`` steps (the kernel's projections: 4 * HIDDEN gates by BATCH)."""
    item = tc.empty(0, dtype=dtype).element_size()
    monkeypatch.setattr(rec, "_CHUNK_BYTES", steps * 4 * HIDDEN * BATCH * item)


@pytest.mark.parametrize("packed", [False, True])
def test_chunks_of_steps_compute_what_one_chunk_computes(
    monkeypatch: pytest.MonkeyPatch, packed: bool
) -> None:
    tc.manual_seed(0)
    mod = tc.nn.LSTM(SIZE, HIDDEN, bidirectional=True)
    x = tc.randn(STEPS, BATCH, SIZE)
    _chunk_of(3, monkeypatch, tc.float32)  # (3, 3 and 1 steps, walked both ways)
    chunked = _run(mod, x, packed)
    monkeypatch.setattr(rec, "_CHUNK_BYTES", 1 << 40)
    whole = _run(mod, x, packed)
    for a, b in zip(chunked, whole, strict=True):
        np.testing.assert_array_equal(a, b)


def _np_lstm(x: np.ndarray, mod: tc.nn.LSTM) -> np.ndarray:
    """The bidirectional layer's output, step by step in NumPy (PyTorch's gate order)."""

    def sigmoid(v: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-v))

    outs = []
    for sfx in ("", "_reverse"):
        w_ih, w_hh, b_ih, b_hh = (
            getattr(mod, f"{n}_l0{sfx}").detach().numpy()
            for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
        )
        h = np.zeros((x.shape[1], HIDDEN))
        c = np.zeros_like(h)
        ys = [np.empty(0)] * x.shape[0]
        for t in range(x.shape[0])[:: -1 if sfx else 1]:
            i, f, g, o = np.split(x[t] @ w_ih.T + b_ih + h @ w_hh.T + b_hh, 4, axis=1)
            c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
            h = sigmoid(o) * np.tanh(c)
            ys[t] = h
        outs.append(np.stack(ys))
    return np.concatenate(outs, axis=2)


def test_chunked_lstm_matches_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    tc.manual_seed(1)
    mod = tc.nn.LSTM(SIZE, HIDDEN, bidirectional=True, dtype=tc.float64)
    x = tc.randn(STEPS, BATCH, SIZE, dtype=tc.float64)
    _chunk_of(2, monkeypatch, tc.float64)
    got = mod(x)[0].detach().numpy()
    np.testing.assert_allclose(got, _np_lstm(x.numpy(), mod), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("packed", [False, True])
def test_chunked_lstm_gradients_match_the_composite_steps(
    monkeypatch: pytest.MonkeyPatch, packed: bool
) -> None:
    # (the layer's steps written with recorded operators, where ``_fusable`` says no)
    from tensorcore.nn.modules import rnn as rnn_mod

    tc.manual_seed(2)
    mod = tc.nn.LSTM(SIZE, HIDDEN, bidirectional=True, dtype=tc.float64)
    x = tc.randn(STEPS, BATCH, SIZE, dtype=tc.float64)
    _chunk_of(2, monkeypatch, tc.float64)
    got = _run(mod, x, packed)
    monkeypatch.setattr(rnn_mod, "_fusable", lambda *a: False)
    want = _run(mod, x, packed)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
