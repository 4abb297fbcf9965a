"""``multi_head_attention_forward``: the computation under ``nn.MultiheadAttention``, with
PyTorch's functional signature (inputs in ``(L, N, E)`` order, or unbatched ``(L, E)``)."""

from __future__ import annotations

import math
import warnings

from .. import dtypes as dt
from .._tensor import Tensor
from ..ops import functions as ops
from ..ops._padding import pad
from ..ops._validate import checked
from ._dense import dropout, linear

__all__ = ["as_float_mask", "canonical_mask", "multi_head_attention_forward"]


def as_float_mask(mask: Tensor | None, like: Tensor) -> Tensor | None:
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


def canonical_mask(
    mask: Tensor | None,
    name: str,
    other: Tensor | None,
    other_name: str,
    like: Tensor,
) -> Tensor | None:
    """PyTorch's ``_canonical_mask``: a bool ``mask`` (True: masked out) as an additive
    float mask of ``like``'s dtype, float masks unchanged, others refused by name; and its
    deprecation warning where ``mask`` and the ``other`` mask given with it differ in dtype
    (a bool padding mask with a float causal mask, a common mix)."""
    if mask is None:
        return None
    if mask.dtype is not dt.bool_ and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and mask.dtype != other.dtype:
        warnings.warn(
            f"Support for mismatched {name} and {other_name} is deprecated. Use same type "
            "for both instead.",
            stacklevel=3,
        )
    return as_float_mask(mask, like) if mask.dtype is dt.bool_ else mask


def _check_shapes(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Tensor | None,
    attn_mask: Tensor | None,
    num_heads: int,
) -> bool:
    """PyTorch's ``_mha_shape_check``: whether the inputs are batched."""
    if query.ndim not in (2, 3):
        raise AssertionError(
            "query should be unbatched 2D or batched 3D tensor but received "
            f"{query.ndim}-D query tensor"
        )
    batched = query.ndim == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be {query.ndim}-D but found "
            f"{key.ndim}-D and {value.ndim}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
            f"{query.ndim - 1}-D but found {key_padding_mask.ndim}-D tensor instead"
        )
    if attn_mask is not None:
        if attn_mask.ndim not in (2, 3):
            raise AssertionError(
                f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                f"{attn_mask.ndim}-D tensor instead"
            )
        if not batched and attn_mask.ndim == 3:
            want = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != want:
                raise AssertionError(
                    f"Expected `attn_mask` shape to be {want} but got {attn_mask.shape}"
                )
    return batched


def _static(t: Tensor, name: str, rows: int, head_dim: int) -> Tensor:
    if t.shape[0] != rows:
        raise AssertionError(f"expecting {name}.size(0) of {rows}, but got {t.shape[0]}")
    if t.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {t.shape[2]}")
    return t


@checked(
    "multi_head_attention_forward(Tensor query, Tensor key, Tensor value, "
    "int embed_dim_to_check, int num_heads, Tensor? in_proj_weight, Tensor? in_proj_bias, "
    "Tensor? bias_k, Tensor? bias_v, bool add_zero_attn, float dropout_p, "
    "Tensor out_proj_weight, Tensor? out_proj_bias, bool training=True, "
    "Tensor? key_padding_mask=None, bool need_weights=True, Tensor? attn_mask=None, "
    "bool use_separate_proj_weight=False, Tensor? q_proj_weight=None, "
    "Tensor? k_proj_weight=None, Tensor? v_proj_weight=None, Tensor? static_k=None, "
    "Tensor? static_v=None, bool average_attn_weights=True, bool is_causal=False) -> Any"
)
def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention of ``query`` ``(L, N, E)`` over ``key``/``value`` ``(S, N, E)``
    (or unbatched ``(L, E)``/``(S, E)``), what :class:`~tensorcore.nn.MultiheadAttention`
    computes with its parameters: the in-projections (``in_proj_weight`` packed as
    ``(3E, E)``, or ``q/k/v_proj_weight`` with ``use_separate_proj_weight=True``), optional
    ``bias_k``/``bias_v`` rows and a zero row (``add_zero_attn``), ``softmax(Q K^T /
    sqrt(E / num_heads) + masks)`` per head, dropout (when ``training``) and the output
    projection. ``static_k``/``static_v`` ``(N * num_heads, S, E / num_heads)`` replace the
    projected keys/values. Returns ``(attn_output, attn_weights)``: the weights averaged over
    heads unless ``average_attn_weights=False``, None when ``need_weights=False``.

    In ``attn_mask`` (``(L, S)`` or ``(N * num_heads, L, S)``) and ``key_padding_mask``
    (``(N, S)``) True marks positions that may *not* be attended to; float masks are added
    to the scores. ``is_causal`` is a hint that ``attn_mask`` is the causal mask, which must
    then be given.

    Examples
    --------
    >>> import tensorcore as tc
    >>> F = tc.nn.functional
    >>> x = tc.ones(4, 2, 6)  # (L, N, E)
    >>> w_in, w_out = tc.eye(6).repeat(3, 1), tc.eye(6)
    >>> out, w = F.multi_head_attention_forward(
    ...     x, x, x, 6, 2, w_in, None, None, None, False, 0.0, w_out, None)
    >>> out.shape, w.shape
    (tensorcore.Size([4, 2, 6]), tensorcore.Size([2, 4, 4]))
    """
    batched = _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    key_padding_mask = canonical_mask(
        key_padding_mask, "key_padding_mask", attn_mask, "attn_mask", query
    )
    attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    tgt, bsz, e = query.shape
    src = key.shape[0]
    if e != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {e}"
        )
    h = num_heads
    hd = e // h
    if hd * h != e:
        raise AssertionError(f"embed_dim {e} not divisible by num_heads {h}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {name}_proj_weight is None"
                )
        assert q_proj_weight is not None and k_proj_weight is not None  # (for mypy)
        assert v_proj_weight is not None
        wq, wk, wv = q_proj_weight, k_proj_weight, v_proj_weight
    else:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        wq, wk, wv = in_proj_weight.chunk(3)
    bq, bk, bv = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
    q, k, v = linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)
    mask = as_float_mask(attn_mask, q)
    if mask is not None:
        want = (tgt, src) if mask.ndim == 2 else (bsz * h, tgt, src)
        if tuple(mask.shape) != want:
            raise RuntimeError(
                f"The shape of the {mask.ndim}D attn_mask is {mask.shape}, but should be {want}."
            )
    kpm = as_float_mask(key_padding_mask, q)
    if kpm is not None and tuple(kpm.shape) != (bsz, src):
        raise AssertionError(
            f"expecting key_padding_mask shape of {(bsz, src)}, but got {kpm.shape}"
        )
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = ops.cat([k, bias_k.expand(1, bsz, e)])
        v = ops.cat([v, bias_v.expand(1, bsz, e)])
        mask = pad(mask, (0, 1)) if mask is not None else None
        kpm = pad(kpm, (0, 1)) if kpm is not None else None
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    # (L, N, E) -> (N * heads, L, head_dim)
    q = q.reshape(tgt, bsz * h, hd).transpose(0, 1)
    if static_k is None:
        k = k.reshape(k.shape[0], bsz * h, hd).transpose(0, 1)
    else:
        k = _static(static_k, "static_k", bsz * h, hd)
    if static_v is None:
        v = v.reshape(v.shape[0], bsz * h, hd).transpose(0, 1)
    else:
        v = _static(static_v, "static_v", bsz * h, hd)
    if add_zero_attn:
        zeros = ops.zeros((bsz * h, 1, hd), dtype=q.dtype, device=q.device)
        k, v = ops.cat([k, zeros], 1), ops.cat([v, zeros], 1)
        mask = pad(mask, (0, 1)) if mask is not None else None
        kpm = pad(kpm, (0, 1)) if kpm is not None else None
    src = k.shape[1]
    # (the query scaled before the product, as PyTorch does: hd <= src elements per row
    # instead of src, the scores equal up to rounding)
    scale = 1.0 / math.sqrt(hd)
    if hd <= src:
        scores = (q * scale).matmul(k.transpose(1, 2))
    else:
        scores = q.matmul(k.transpose(1, 2)) * scale
    if mask is not None:
        scores = scores + (mask if mask.ndim == 3 else mask.unsqueeze(0))
    if kpm is not None:
        scores = (scores.reshape(bsz, h, tgt, src) + kpm.reshape(bsz, 1, 1, src)).reshape(
            bsz * h, tgt, src
        )
    weights = ops.softmax(scores, -1)
    if training and dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    out = weights.matmul(v).transpose(0, 1).reshape(tgt, bsz, e)
    out = linear(out, out_proj_weight, out_proj_bias)
    if not batched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    w = weights.reshape(bsz, h, tgt, src)
    if average_attn_weights:
        w = w.mean(1)
    if not batched:
        w = w.squeeze(0)
    return out, w
