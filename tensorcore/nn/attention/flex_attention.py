"""PyTorch's ``torch.nn.attention.flex_attention``: attention whose scores a Python function
modifies (``score_mod``) and whose positions a Python predicate masks (``mask_mod``, made into
a :class:`BlockMask` by :func:`create_block_mask`).

PyTorch compiles these functions into one fused kernel; eagerly (tensorcore, or PyTorch
without ``torch.compile``) the scores are materialised: ``score_mod`` and ``mask_mod`` are
called once, on the whole score tensor, with index tensors that broadcast against it
(``b``: (B, 1, 1, 1), ``h``: (1, H, 1, 1), ``q_idx``: (1, 1, L, 1), ``kv_idx``:
(1, 1, 1, S)), so that what they compute with tensor operations and indexing is what the
per-element call computes. Gradients flow through both.

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.nn.attention.flex_attention import create_block_mask, flex_attention
>>> def causal(b, h, q_idx, kv_idx):
...     return q_idx >= kv_idx
>>> mask = create_block_mask(causal, None, None, 3, 3, device="cpu")
>>> q = k = v = tc.eye(3).reshape(1, 1, 3, 3)
>>> flex_attention(q, k, v, block_mask=mask)[0, 0, 0]
tensor([1., 0., 0.])
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ... import dtypes as dt
from ..._tensor import Tensor
from ...ops import functions as ops

__all__ = [
    "BlockMask",
    "and_masks",
    "create_block_mask",
    "create_mask",
    "flex_attention",
    "noop_mask",
    "or_masks",
]

_DEFAULT_BLOCK = 128


def _indices(b: int, h: int, q: int, kv: int, device: Any) -> tuple[Tensor, ...]:
    """The index tensors a mod is called with, shaped to broadcast against the scores."""
    return (
        ops.arange(b, device=device).view(b, 1, 1, 1),
        ops.arange(h, device=device).view(1, h, 1, 1),
        ops.arange(q, device=device).view(1, 1, q, 1),
        ops.arange(kv, device=device).view(1, 1, 1, kv),
    )


def noop_mask(b: Any, h: Any, q_idx: Any, kv_idx: Any) -> Any:
    """The mask that keeps every position."""
    return ops.ones_like(q_idx * kv_idx, dtype=dt.bool_)


def and_masks(*mask_mods: Callable[..., Any]) -> Callable[..., Any]:
    """The mask that keeps a position where every one of ``mask_mods`` keeps it."""
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def and_mask(b: Any, h: Any, q_idx: Any, kv_idx: Any) -> Any:
        result = noop_mask(b, h, q_idx, kv_idx)
        for m in mask_mods:
            result = result & m(b, h, q_idx, kv_idx)
        return result

    return and_mask


def or_masks(*mask_mods: Callable[..., Any]) -> Callable[..., Any]:
    """The mask that keeps a position where any of ``mask_mods`` keeps it."""
    if not all(callable(m) for m in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def or_mask(b: Any, h: Any, q_idx: Any, kv_idx: Any) -> Any:
        result = ~noop_mask(b, h, q_idx, kv_idx)
        for m in mask_mods:
            result = result | m(b, h, q_idx, kv_idx)
        return result

    return or_mask


def create_mask(
    mod_fn: Callable[..., Any], B: int | None, H: int | None, Q_LEN: int, KV_LEN: int,
    device: Any = "cuda",
) -> Tensor:  # fmt: skip
    """The dense boolean mask ``mask_mod`` gives: shape (B, H, Q_LEN, KV_LEN), a batch or
    head count of None being 1 (the mask then broadcasts over it)."""
    idx = _indices(B or 1, H or 1, Q_LEN, KV_LEN, device)
    keep = mod_fn(*idx)
    if not isinstance(keep, Tensor):
        keep = ops.full((), bool(keep), dtype=dt.bool_, device=device)
    return keep.to(dt.bool_).expand(B or 1, H or 1, Q_LEN, KV_LEN)


class BlockMask:
    """A mask for :func:`flex_attention`, made by :func:`create_block_mask`: ``mask_mod``
    and its dense mask, and PyTorch's block view of it (``BLOCK_SIZE`` square blocks, a
    block skipped when the mask keeps none of its positions)."""

    def __init__(
        self, mask_mod: Callable[..., Any], dense: Tensor, block_size: tuple[int, int]
    ) -> None:
        self.mask_mod = mask_mod
        self._dense = dense
        self.BLOCK_SIZE = block_size
        self.shape = tuple(dense.shape)
        self.seq_lengths = self.shape[2:]

    def to_dense(self) -> Tensor:
        """Which (query block, key block) pairs keep a position, as 0/1 int32 of shape
        (B, H, query blocks, key blocks)."""
        b, h, q, kv = self.shape
        bq, bk = self.BLOCK_SIZE
        nq, nk = -(-q // bq), -(-kv // bk)
        padded = ops.zeros(b, h, nq * bq, nk * bk, dtype=dt.bool_, device=self._dense.device)
        padded[:, :, :q, :kv] = self._dense
        blocks = padded.reshape(b, h, nq, bq, nk, bk).any(dim=5).any(dim=3)
        return blocks.to(dt.int32)

    def sparsity(self) -> float:
        """The percentage of blocks the mask skips entirely."""
        blocks = self.to_dense()
        return 100.0 * (1.0 - float(blocks.sum().item()) / blocks.numel())

    def to(self, device: Any) -> BlockMask:
        """The mask on ``device``."""
        return BlockMask(self.mask_mod, self._dense.to(device), self.BLOCK_SIZE)

    def __repr__(self) -> str:
        return (
            f"BlockMask(shape={self.shape}, sparsity={self.sparsity():.2f}%, "
            f"mask_mod={getattr(self.mask_mod, '__name__', self.mask_mod)})"
        )


def create_block_mask(
    mask_mod: Callable[..., Any],
    B: int | None,
    H: int | None,
    Q_LEN: int,
    KV_LEN: int,
    device: Any = "cuda",
    BLOCK_SIZE: int | tuple[int, int] = _DEFAULT_BLOCK,
    _compile: bool = False,
) -> BlockMask:
    """The :class:`BlockMask` of ``mask_mod(b, h, q_idx, kv_idx)`` (True keeps a position)
    over (B, H, Q_LEN, KV_LEN); a batch or head count of None broadcasts."""
    block = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else tuple(BLOCK_SIZE)
    dense = create_mask(mask_mod, B, H, Q_LEN, KV_LEN, device)
    return BlockMask(mask_mod, dense, (int(block[0]), int(block[1])))


def flex_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    score_mod: Callable[..., Any] | None = None,
    block_mask: BlockMask | None = None,
    scale: float | None = None,
    enable_gqa: bool = False,
    return_lse: bool = False,
    kernel_options: Any = None,
) -> Any:
    """``softmax(score_mod(query @ key^T * scale) masked by block_mask) @ value`` over
    (B, H, L, E) queries and (B, H_kv, S, E) keys and values (``enable_gqa``: H a multiple of
    H_kv); a query whose every key is masked gets zeros. ``return_lse`` also returns the
    log-sum-exp of each query's scores (-inf where all are masked)."""
    if query.ndim != 4 or key.ndim != 4 or value.ndim != 4:
        raise ValueError(
            "flex_attention(): query, key and value must be 4-D (B, H, L, E), got "
            f"{list(query.shape)}, {list(key.shape)} and {list(value.shape)}"
        )
    b, hq, lq, e = query.shape
    hkv, s = key.shape[1], key.shape[2]
    if key.shape[-1] != e or value.shape[2] != s or value.shape[1] != hkv:
        raise ValueError(
            f"flex_attention(): mismatched shapes: query {list(query.shape)}, key "
            f"{list(key.shape)}, value {list(value.shape)}"
        )
    if hq != hkv:
        if not enable_gqa or hq % hkv:
            raise ValueError(
                f"Expect query and key/value to have the same number of heads but got "
                f"Hq={hq} and Hkv={hkv}. Try setting enable_gqa=True for GQA."
            )
        key = key.repeat_interleave(hq // hkv, dim=1)
        value = value.repeat_interleave(hq // hkv, dim=1)
    scale = 1.0 / math.sqrt(e) if scale is None else scale
    scores = (query @ key.transpose(-2, -1)) * scale
    if score_mod is not None:
        scores = score_mod(scores, *_indices(b, hq, lq, s, query.device))
    keep = None
    if block_mask is not None:
        if tuple(block_mask.seq_lengths) != (lq, s):
            raise ValueError(
                f"block_mask was created for block_mask.shape={block_mask.shape} but got "
                f"q_len={lq} and kv_len={s}. Make a BlockMask for these lengths."
            )
        keep = block_mask._dense.to(query.device)
        scores = scores.masked_fill(~keep, -math.inf)
    lse = scores.logsumexp(dim=-1)
    probs = (scores - lse.unsqueeze(-1)).exp()
    if keep is not None:  # (a query without keys: zeros, not NaN; its gradients too)
        probs = probs.masked_fill(~keep, 0.0)
    out = probs.to(value.dtype) @ value
    return (out, lse) if return_lse else out
