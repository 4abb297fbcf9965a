"""Transformer layers: ``TransformerEncoderLayer``, ``TransformerEncoder``,
``TransformerDecoderLayer``, ``TransformerDecoder`` and ``Transformer``, with PyTorch's
arguments, parameter names and (post-norm or ``norm_first``) structure."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

from ... import backends
from ... import dtypes as dt
from ..._tensor import Tensor
from ...amp.autocast_mode import is_autocast_enabled
from ...autograd import grad_mode
from ...ops import functions as ops
from .. import functional as F
from .. import init
from .._attention import canonical_mask
from .activation import GELU, ReLU
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = [
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
]


def _activation(activation: str | Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    if callable(activation):
        return activation
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _clones(module: Module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _why_no_nested_tensor(layer: Module) -> str:
    """Why PyTorch's encoder would not use nested tensors over copies of ``layer`` (its
    warning's reason), or ``""``."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attn = layer.self_attn
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not attn.batch_first:
        return f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"  # noqa: E501
    if not attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


def generate_square_subsequent_mask(
    sz: int, device: Any = None, dtype: dt.dtype | None = None
) -> Tensor:
    """A causal mask: ``-inf`` above the diagonal, 0 elsewhere (float, for ``attn_mask``)."""
    full = ops.full((sz, sz), float("-inf"), dtype=dtype or dt.get_default_dtype(), device=device)
    return full.triu(1)


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward block, each with dropout, a residual connection and
    layer normalisation (after, or before with ``norm_first=True``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> layer = tc.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16,
    ...                                       batch_first=True)
    >>> layer(tc.ones(3, 5, 8)).shape
    tensorcore.Size([3, 5, 8])
    """

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)
        # (PyTorch's record of a ReLU or GELU activation, 1 or 2, which its fast path reads)
        act = self.activation
        self.activation_relu_or_gelu = (
            1 if act is F.relu or isinstance(act, ReLU) else
            2 if act is F.gelu or isinstance(act, GELU) else 0
        )  # fmt: skip

    def _sa_block(
        self, x: Tensor, attn_mask: Any, key_padding_mask: Any, is_causal: bool
    ) -> Tensor:
        out = self.self_attn(
            x,
            x,
            x,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            need_weights=False,
            is_causal=is_causal,
        )[0]
        return self.dropout1(out)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        """One encoder layer over ``src`` (masks as :class:`MultiheadAttention` takes them)."""
        src_key_padding_mask = canonical_mask(
            src_key_padding_mask, "src_key_padding_mask", src_mask, "src_mask", src
        )
        src_mask = canonical_mask(src_mask, "src_mask", None, "", src)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x


class TransformerEncoder(Module):
    """``num_layers`` copies of an encoder layer, then an optional final norm."""

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _why_no_nested_tensor(encoder_layer)
        if enable_nested_tensor and why:
            warnings.warn(
                f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why}",
                stacklevel=2,
            )
            self.use_nested_tensor = False

    def forward(
        self,
        src: Tensor,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        """Every layer in turn.

        In inference (eval mode, no gradient wanted) with a ``src_key_padding_mask`` padding
        at the end of each sequence and no ``mask``, PyTorch runs the layers over nested
        tensors, which drop the padded positions: their outputs come back 0 (before the
        final ``norm``). The same inputs give the same outputs here."""
        kpm = canonical_mask(src_key_padding_mask, "src_key_padding_mask", mask, "mask", src)
        float_mask = canonical_mask(mask, "mask", None, "", src)
        padded = kpm != 0 if kpm is not None and self._nested_path(src, kpm, mask) else None
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=float_mask, src_key_padding_mask=kpm,
                        is_causal=bool(is_causal))  # fmt: skip
        if padded is not None:
            out = out.masked_fill(padded.unsqueeze(-1), 0.0)
        return self.norm(out) if self.norm is not None else out

    def _nested_path(self, src: Tensor, kpm: Tensor, mask: Tensor | None) -> bool:
        """Whether PyTorch would take its nested-tensor path for these inputs."""
        first = self.layers[0]
        if not (backends.mha.get_fastpath_enabled() and getattr(self, "use_nested_tensor", False)):
            return False
        if first.training or src.ndim != 3 or mask is not None or is_autocast_enabled():
            return False
        if src.device.type not in ("cpu", "cuda"):
            return False
        if grad_mode.is_grad_enabled() and (
            src.requires_grad or any(p.requires_grad for p in first.parameters())
        ):
            return False
        if getattr(self, "mask_check", True):
            # (each sequence's padding only at its end: "left aligned")
            valid = kpm == 0
            ends = valid.sum(1, keepdim=True)
            if not bool((valid == (ops.arange(kpm.shape[1], device=kpm.device) < ends)).all()):
                return False
        return True


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's output (``memory``) and a feed-forward
    block, each with dropout, a residual connection and layer normalisation."""

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.multihead_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def _sa(self, x: Tensor, mask: Any, kpm: Any, causal: bool) -> Tensor:
        out = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=kpm,
                             need_weights=False, is_causal=causal)[0]  # fmt: skip
        return self.dropout1(out)

    def _mha(self, x: Tensor, mem: Tensor, mask: Any, kpm: Any, causal: bool) -> Tensor:
        out = self.multihead_attn(x, mem, mem, attn_mask=mask, key_padding_mask=kpm,
                                  need_weights=False, is_causal=causal)[0]  # fmt: skip
        return self.dropout2(out)

    def _ff(self, x: Tensor) -> Tensor:
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """One decoder layer over ``tgt`` attending to ``memory``."""
        x = tgt
        if self.norm_first:
            x = x + self._sa(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha(self.norm2(x), memory, memory_mask, memory_key_padding_mask,
                              memory_is_causal)  # fmt: skip
            x = x + self._ff(self.norm3(x))
        else:
            x = self.norm1(x + self._sa(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha(x, memory, memory_mask, memory_key_padding_mask,
                                         memory_is_causal))  # fmt: skip
            x = self.norm3(x + self._ff(x))
        return x


class TransformerDecoder(Module):
    """``num_layers`` copies of a decoder layer, then an optional final norm."""

    def __init__(
        self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None
    ) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """Every layer in turn."""
        out = tgt
        for layer in self.layers:
            out = layer(
                out,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=bool(tgt_is_causal),
                memory_is_causal=memory_is_causal,
            )
        return self.norm(out) if self.norm is not None else out


class Transformer(Module):
    """An encoder-decoder transformer (``Attention Is All You Need``) with PyTorch's
    defaults: 6 + 6 layers, ``d_model=512``, 8 heads, final layer norms."""

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = "relu",
        custom_encoder: Module | None = None,
        custom_decoder: Module | None = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        common = {
            "dim_feedforward": dim_feedforward, "dropout": dropout, "activation": activation,
            "layer_norm_eps": layer_norm_eps, "batch_first": batch_first,
            "norm_first": norm_first, "bias": bias, **kw,
        }  # fmt: skip
        self.encoder = custom_encoder or TransformerEncoder(
            TransformerEncoderLayer(d_model, nhead, **common),
            num_encoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw),
        )
        self.decoder = custom_decoder or TransformerDecoder(
            TransformerDecoderLayer(d_model, nhead, **common),
            num_decoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw),
        )
        self._reset_parameters()
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def _reset_parameters(self) -> None:
        """Xavier-uniform every matrix (custom encoders and decoders included), as PyTorch's
        ``Transformer`` does after building its layers: the stacked layers, deep copies of
        one layer, then start from different weights."""
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """Encode ``src``, decode ``tgt`` against it."""
        if (
            src.ndim == 3
            and src.shape[0 if self.batch_first else 1] != tgt.shape[0 if self.batch_first else 1]
        ):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)  # fmt: skip
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )

    @staticmethod
    def generate_square_subsequent_mask(
        sz: int, device: Any = None, dtype: dt.dtype | None = None
    ) -> Tensor:
        """A causal float mask for ``tgt_mask``."""
        return generate_square_subsequent_mask(sz, device, dtype)
