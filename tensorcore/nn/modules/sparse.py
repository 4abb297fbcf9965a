"""``Embedding``: a lookup table of vectors."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops import functions as ops
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import _factory
from .module import Module

__all__ = ["Embedding", "EmbeddingBag"]


class Embedding(Module):
    """``num_embeddings`` vectors of size ``embedding_dim``, initialised from N(0, 1) (the
    ``padding_idx`` row zero); ``sparse=True`` gives the weight a sparse COO gradient.

    Examples
    --------
    >>> import tensorcore as tc
    >>> emb = tc.nn.Embedding(10, 3, padding_idx=0)
    >>> emb(tc.tensor([[1, 0]])).shape
    tensorcore.Size([1, 2, 3])
    >>> emb.weight[0].tolist()
    [0.0, 0.0, 0.0]
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight: Tensor | None = None,
        _freeze: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(
                ops.empty((num_embeddings, embedding_dim), **_factory(device, dtype)),
                requires_grad=not _freeze,
            )
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError(
                    "Shape of weight does not match num_embeddings and embedding_dim"
                )
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        """N(0, 1), with the padding row zeroed."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.embedding`."""
        return F.embedding(
            input,
            self.weight,
            self.padding_idx,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.sparse,
        )

    @classmethod
    def from_pretrained(
        cls,
        embeddings: Tensor,
        freeze: bool = True,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
    ) -> Embedding:
        """An embedding over the 2-D ``embeddings`` (frozen by default)."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(
            rows,
            cols,
            padding_idx,
            max_norm,
            norm_type,
            scale_grad_by_freq,
            sparse,
            _weight=embeddings,
            _freeze=freeze,
        )

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.sparse:
            s += ", sparse=True"
        return s


class EmbeddingBag(Module):
    """Sums, means or maxima of bags of ``num_embeddings`` vectors of size
    ``embedding_dim`` (N(0, 1) initialised, the ``padding_idx`` row zero).

    Examples
    --------
    >>> import tensorcore as tc
    >>> bag = tc.nn.EmbeddingBag(10, 3, mode="sum")
    >>> bag
    EmbeddingBag(10, 3, mode='sum')
    >>> bag(tc.tensor([1, 2, 4, 5]), tc.tensor([0, 2])).shape
    tensorcore.Size([2, 3])
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        _weight: Tensor | None = None,
        include_last_offset: bool = False,
        padding_idx: int | None = None,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.mode, self.sparse = scale_grad_by_freq, mode, sparse
        self.include_last_offset = include_last_offset
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            shape = (num_embeddings, embedding_dim)
            self.weight = Parameter(ops.empty(shape, **_factory(device, dtype)))
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise AssertionError(
                    "Shape of weight does not match num_embeddings and embedding_dim"
                )
            self.weight = Parameter(_weight)

    def reset_parameters(self) -> None:
        """N(0, 1), with the padding row zeroed."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(
        self,
        input: Tensor,
        offsets: Tensor | None = None,
        per_sample_weights: Tensor | None = None,
    ) -> Tensor:
        """See :func:`tensorcore.nn.functional.embedding_bag`."""
        return F.embedding_bag(
            input, self.weight, offsets, self.max_norm, self.norm_type,
            self.scale_grad_by_freq, self.mode, self.sparse, per_sample_weights,
            self.include_last_offset, self.padding_idx,
        )  # fmt: skip

    @classmethod
    def from_pretrained(
        cls,
        embeddings: Tensor,
        freeze: bool = True,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        include_last_offset: bool = False,
        padding_idx: int | None = None,
    ) -> EmbeddingBag:
        """An embedding bag over the 2-D ``embeddings`` (frozen by default), as
        :meth:`Embedding.from_pretrained`.

        Examples
        --------
        >>> import tensorcore as tc
        >>> weight = tc.tensor([[1.0, 2.3, 3.0], [4.0, 5.1, 6.3]])
        >>> bag = tc.nn.EmbeddingBag.from_pretrained(weight)
        >>> bag(tc.tensor([[1, 0]]))
        tensor([[2.5000, 3.7000, 4.6500]])
        >>> bag.weight.requires_grad
        False
        """
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(
            rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
            _weight=embeddings, include_last_offset=include_last_offset,
            padding_idx=padding_idx,
        )  # fmt: skip
        bag.weight.requires_grad = not freeze
        return bag

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s
