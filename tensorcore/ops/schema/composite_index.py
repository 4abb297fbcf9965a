"""Indexing operators written with other operators (``ops/composite_index.py``)."""

from __future__ import annotations

from .. import arg_checks as AC
from ._declare import _op

_op(
    "masked_select(Tensor self, Tensor mask) -> Tensor",
    "indexing composite",
    "The elements of ``self`` where the bool ``mask`` is true (both broadcast), as a 1-D tensor.",
    out=True,
    out_dtype="exact",
)
_op(
    "index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor",
    "indexing composite",
    "Copy of ``self`` with ``alpha * source`` added at ``index`` along ``dim`` (repeated "
    "indices accumulate).",
    inplace=True,
    out=True,
    out_dtype="exact",
)
_op(
    "index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor",
    "indexing composite",
    "Copy of ``self`` with the slices of ``source`` written at ``index`` along ``dim``.",
    inplace=True,
    autocast="promote",
    out=True,
    out_dtype="exact",
)
_op(
    "index_fill(Tensor self, int dim, Tensor index, Tensor value) -> Tensor",
    "indexing composite",
    "Copy of ``self`` with ``value`` (a number or a 0-d tensor) written at ``index`` along "
    "``dim``.",
    inplace=True,
    scalars="value",
    values="value",
)
_op(
    "index_reduce(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, "
    "bool include_self=True) -> Tensor",
    "indexing composite",
    "Copy of ``self`` with the slices of ``source`` along ``dim`` reduced into the slices "
    "``index`` of ``self``: ``reduce`` is ``'prod'``, ``'mean'`` (floor division for "
    "integers), ``'amax'`` or ``'amin'``; ``include_self=False`` leaves the values of "
    "``self`` where something is reduced out of the reduction (through :func:`scatter_reduce`).",
    inplace=True,
    check=AC.check_index_reduce,
    out=True,
    out_dtype="exact",
)
_op(
    "put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor",
    "indexing composite",
    "Copy of ``self`` with the elements of ``source`` written at the positions ``index`` of "
    "``self`` seen as 1-D (row-major; negative indices count from the end); "
    "``accumulate=True`` adds them instead (repeated indices accumulate).",
    inplace=True,
)
_op(
    "take(Tensor self, Tensor index) -> Tensor",
    "indexing composite",
    "The elements of ``self`` seen as 1-D (row-major; negative indices count from the end) at "
    "the positions ``index``, in the shape of ``index``.",
    out=True,
    out_dtype="exact",
)
_op(
    "bincount(Tensor self, Tensor? weights=None, int minlength=0) -> Tensor",
    "indexing nondifferentiable composite",
    "How many times each value ``0..max(self)`` occurs in the 1-D non-negative ``self`` (at "
    "least ``minlength`` counts), or the sums of ``weights`` (float64 unless float32/64). A "
    "backend's kernel counts in one pass; the composite accumulates with ``index_put``.",
    dtypes="i",
    check=AC.check_bincount,
)
_op(
    "diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor",
    "shape composite",
    "Matrices (in dims ``dim1``, ``dim2`` of the result) with the last dim of ``self`` on "
    "their ``offset``-th diagonal, zeros elsewhere.",
)
_op(
    "diag(Tensor self, int diagonal=0) -> Tensor",
    "shape composite",
    "A 1-D ``self`` on the ``diagonal``-th diagonal of a square matrix; the ``diagonal``-th "
    "diagonal of a 2-D ``self`` (a copy).",
    out=True,
    out_dtype="exact",
)
_op(
    "segment_reduce(Tensor data, str reduce, *, Tensor? lengths=None, Tensor? indices=None, "
    "Tensor? offsets=None, int axis=0, bool unsafe=False, Scalar? initial=None) -> Tensor",
    "reduction composite",
    "Reduces consecutive segments of ``data`` along ``axis``: ``reduce`` is ``'sum'``, "
    "``'prod'``, ``'mean'``, ``'max'`` or ``'min'``; the segments are given by their "
    "``lengths`` or by ``offsets`` (their starts and the last end; it wins over ``lengths``), "
    "of shape ``data.shape[:axis] + (segments,)`` (``segments + 1`` for offsets). "
    "``initial`` joins every segment's reduction (an empty segment's result; without it an "
    "empty one gives 0, 1, nan, -inf or inf); ``unsafe=True`` skips the checks of the "
    "values of ``lengths``/``offsets`` (a bad one then gives an unspecified result). "
    "``indices`` is not supported, as in PyTorch.",
    method=False,
    dtypes="f",
    values="initial",
)
