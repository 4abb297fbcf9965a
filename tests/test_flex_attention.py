"""``tensorcore.nn.attention.flex_attention`` (PyTorch's eager flex attention): values against
a NumPy reference (checked against PyTorch 2.13's eager implementation when written), masks
and score mods as PyTorch calls them, gradients by finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.nn.attention.flex_attention import (
    and_masks,
    create_block_mask,
    create_mask,
    flex_attention,
    or_masks,
)

RNG = np.random.default_rng(7)
Q, K, V = (
    RNG.normal(size=(2, 4, 5, 8)),
    RNG.normal(size=(2, 2, 6, 8)),
    RNG.normal(size=(2, 2, 6, 3)),
)
BIAS = RNG.normal(size=(4, 5, 6))


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def first_query_of_batch_1_sees_nothing(b, h, q_idx, kv_idx):
    return (b == 0) | (q_idx > 0)


def _reference(score_fn, keep) -> tuple[np.ndarray, np.ndarray]:
    k, v = np.repeat(K, 2, axis=1), np.repeat(V, 2, axis=1)
    s = Q @ k.transpose(0, 1, 3, 2) / np.sqrt(8)
    b, h, qi, ki = np.ogrid[:2, :4, :5, :6]
    s = score_fn(s, b, h, qi, ki)
    s = np.where(keep, s, -np.inf)
    m = s.max(-1, keepdims=True)
    with np.errstate(invalid="ignore"):
        lse = np.where(np.isneginf(m[..., 0]), -np.inf, np.log(np.exp(s - m).sum(-1)) + m[..., 0])
        p = np.where(keep, np.exp(s - lse[..., None]), 0.0)
    return p @ v, lse


def test_flex_attention_matches_the_reference(device: str) -> None:
    bias = tc.tensor(BIAS, device=device)

    def score_mod(score, b, h, q_idx, kv_idx):
        return score + bias[h, q_idx, kv_idx] + 0.1 * (q_idx - kv_idx)

    mask = create_block_mask(
        and_masks(causal, first_query_of_batch_1_sees_nothing), 2, None, 5, 6, device=device
    )
    q, k, v = (tc.tensor(a, device=device) for a in (Q, K, V))
    out, lse = flex_attention(
        q, k, v, score_mod=score_mod, block_mask=mask, enable_gqa=True, return_lse=True
    )
    b, _, qi, ki = np.ogrid[:2, :4, :5, :6]
    keep = (qi >= ki) & ((b == 0) | (qi > 0))
    want, want_lse = _reference(lambda s, b, h, qi, ki: s + BIAS[h, qi, ki] + 0.1 * (qi - ki), keep)
    # (0.1 * (q_idx - kv_idx) is float32, as in PyTorch: an int64 tensor times a float)
    np.testing.assert_allclose(out.cpu().numpy(), want, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(lse.cpu().numpy(), want_lse, rtol=1e-6, atol=1e-9)
    assert (out[1, :, 0] == 0).all()  # (a query with no key left: zeros, as PyTorch)


def test_flex_attention_gradients(device: str) -> None:
    mask = create_block_mask(causal, None, None, 5, 6, device=device)
    args = tuple(tc.tensor(a[:1, :2], device=device, requires_grad=True) for a in (Q, K, V))

    def f(q, k, v):
        return flex_attention(q, k, v, score_mod=lambda s, b, h, i, j: s * 0.5, block_mask=mask)

    assert tc.autograd.gradcheck(f, args)


def test_masks_combine_and_report_their_blocks() -> None:
    dense = create_mask(or_masks(causal, lambda b, h, i, j: j == 5), None, None, 4, 6, "cpu")
    assert dense.shape == (1, 1, 4, 6) and dense[0, 0, 0].tolist() == [1, 0, 0, 0, 0, 1]
    mask = create_block_mask(causal, 1, 1, 256, 256, device="cpu")
    assert mask.to_dense()[0, 0].tolist() == [[1, 0], [1, 1]]
    assert mask.sparsity() == 25.0
    assert "BlockMask(shape=(1, 1, 256, 256)" in repr(mask)


def test_flex_attention_refuses_what_pytorch_refuses() -> None:
    q, k = tc.ones(1, 4, 3, 2), tc.ones(1, 2, 3, 2)
    with pytest.raises(ValueError, match="Try setting enable_gqa=True"):
        flex_attention(q, k, k)
    mask = create_block_mask(causal, None, None, 5, 5, device="cpu")
    with pytest.raises(ValueError, match="block_mask was created for"):
        flex_attention(q, k, k, block_mask=mask, enable_gqa=True)
