"""``MultiheadAttention`` with PyTorch's parameters, masks and outputs."""

from __future__ import annotations

import math
from typing import Any

from ... import dtypes as dt
from ..._tensor import Tensor
from ...ops import functions as ops
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import Linear, _factory
from .module import Module

__all__ = ["MultiheadAttention", "NonDynamicallyQuantizableLinear"]


class NonDynamicallyQuantizableLinear(Linear):
    """The output projection of :class:`MultiheadAttention` (PyTorch's class name, so that
    ``repr`` and checkpoints match)."""


def _as_float_mask(mask: Tensor | None, like: Tensor) -> Tensor | None:
    """A bool mask (True: masked out) as an additive float mask; float masks pass."""
    if mask is None:
        return None
    if mask.dtype is dt.bool_:
        return ops.zeros(mask.shape, dtype=like.dtype, device=like.device).masked_fill(
            mask, float("-inf")
        )
    if not mask.is_floating_point():
        raise AssertionError(
            f"only bool and floating types of masks are supported, got {mask.dtype}"
        )
    return mask.to(like.dtype)


class MultiheadAttention(Module):
    """Multi-head attention: ``softmax(Q K^T / sqrt(d)) V`` per head over projections of
    ``query``, ``key`` and ``value``, then an output projection.

    ``forward`` returns ``(attn_output, attn_weights)``; the weights are averaged over heads
    unless ``average_attn_weights=False``, and None when ``need_weights=False``. In
    ``attn_mask`` and ``key_padding_mask``, True marks positions that may *not* be attended
    to; float masks are added to the scores.

    Examples
    --------
    >>> import tensorcore as tc
    >>> mha = tc.nn.MultiheadAttention(8, 2, batch_first=True)
    >>> out, w = mha(tc.ones(3, 5, 8), tc.ones(3, 7, 8), tc.ones(3, 7, 8))
    >>> out.shape, w.shape
    (tensorcore.Size([3, 5, 8]), tensorcore.Size([3, 5, 7]))
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                f"and num_heads={num_heads} instead"
            )
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        kw = _factory(device, dtype)
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(ops.empty((3 * embed_dim, embed_dim), **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(ops.empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(ops.empty((embed_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(ops.empty((embed_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(ops.empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        self.bias_k: Parameter | None = None
        self.bias_v: Parameter | None = None
        if add_bias_kv:
            self.bias_k = Parameter(ops.empty((1, 1, embed_dim), **kw))
            self.bias_v = Parameter(ops.empty((1, 1, embed_dim), **kw))
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        """``(attn_output, attn_weights)`` as in PyTorch (see the class docstring)."""
        if is_causal and attn_mask is None:
            raise RuntimeError(
                "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
                "module method `generate_square_subsequent_mask` to create this mask."
            )
        unbatched = query.ndim == 2
        if unbatched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        tgt, bsz, e = query.shape
        if e != self.embed_dim:
            raise AssertionError(
                f"was expecting embedding dimension of {self.embed_dim}, but got {e}"
            )
        h, hd = self.num_heads, self.head_dim
        b = self.in_proj_bias
        bq, bk, bv = (None, None, None) if b is None else b.chunk(3)
        if self._qkv_same_embed_dim:
            wq, wk, wv = self.in_proj_weight.chunk(3)
        else:
            wq, wk, wv = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        q = F.linear(query, wq, bq)
        k = F.linear(key, wk, bk)
        v = F.linear(value, wv, bv)
        mask = _as_float_mask(attn_mask, q)
        kpm = _as_float_mask(key_padding_mask, q)
        if self.bias_k is not None and self.bias_v is not None:
            k = ops.cat([k, self.bias_k.expand(1, bsz, e)])
            v = ops.cat([v, self.bias_v.expand(1, bsz, e)])
            mask = F.pad(mask, (0, 1)) if mask is not None else None
            kpm = F.pad(kpm, (0, 1)) if kpm is not None else None
        # (L, N, E) -> (N * heads, L, head_dim)
        q = q.reshape(tgt, bsz * h, hd).transpose(0, 1)
        k = k.reshape(k.shape[0], bsz * h, hd).transpose(0, 1)
        v = v.reshape(v.shape[0], bsz * h, hd).transpose(0, 1)
        if self.add_zero_attn:
            zeros = ops.zeros((bsz * h, 1, hd), dtype=q.dtype, device=q.device)
            k, v = ops.cat([k, zeros], 1), ops.cat([v, zeros], 1)
            mask = F.pad(mask, (0, 1)) if mask is not None else None
            kpm = F.pad(kpm, (0, 1)) if kpm is not None else None
        src = k.shape[1]
        scores = q.matmul(k.transpose(1, 2)) * (1.0 / math.sqrt(hd))
        if mask is not None:
            scores = scores + (mask if mask.ndim == 3 else mask.unsqueeze(0))
        if kpm is not None:
            scores = (scores.reshape(bsz, h, tgt, src) + kpm.reshape(bsz, 1, 1, src)).reshape(
                bsz * h, tgt, src
            )
        weights = ops.softmax(scores, -1)
        if self.dropout > 0.0 and self.training:
            weights = F.dropout(weights, self.dropout)
        out = weights.matmul(v).transpose(0, 1).reshape(tgt, bsz, e)
        out = self.out_proj(out)
        if unbatched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
        if not need_weights:
            return out, None
        w = weights.reshape(bsz, h, tgt, src)
        if average_attn_weights:
            w = w.mean(1)
        if unbatched:
            w = w.squeeze(0)
        return out, w
