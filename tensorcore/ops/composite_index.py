"""Composite operators that select, scatter, count or place elements by index:
``masked_select``, ``index_add``/``index_copy``/``index_fill``/``index_reduce``, ``put``,
``bincount``, ``diag``, ``diag_embed`` and ``segment_reduce``. Each is a few calls of the
indexing operators (``index``, ``index_put``, ``masked_fill``, ``scatter_reduce``), so every
backend gets them and autograd differentiates through them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .. import _registry
from .. import dtypes as dt
from .._tensor import Tensor, _wrap_dim, torch_name
from . import functions as ops
from .frontends import named_as
from .meta_functions import index_range

__all__ = ["INDEX_COMPOSITES"]

INDEX_COMPOSITES: dict[str, Callable[..., Any]] = {}


def _composite(fn: Callable[..., Any]) -> Callable[..., Any]:
    INDEX_COMPOSITES[fn.__name__] = fn
    return fn


@_composite
def masked_select(self: Tensor, mask: Tensor) -> Tensor:
    if mask._dtype is not dt.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    if self._shape == mask._shape:  # (nothing to broadcast: no views to make)
        return self[mask]
    values, where = ops.broadcast_tensors(self, mask)
    return values[where]


def _check_index(
    fn: str, self: Tensor, dim: int, index: Tensor, long_only: Exception | None = None
) -> int:
    """The dim, wrapped, after ``index``'s checks; ``long_only``: the error, PyTorch's own for
    the operator, where its kernel takes int64 indices only (``index_fill_``,
    ``index_copy_``)."""
    if index._dtype is not dt.int64 and long_only is not None:
        raise long_only
    if index._dtype not in (dt.int32, dt.int64):
        raise RuntimeError(
            f"{fn}(): Expected dtype int32/int64 for index but got: {torch_name(index._dtype)}"
        )
    if index.ndim > 1:
        raise IndexError(f"{fn}(): Index is supposed to be a vector")
    return _wrap_dim(dim, self.ndim)


def _check_source(fn: str, self: Tensor, dim: int, index: Tensor, source: Tensor) -> None:
    n = index.numel()
    if source.ndim == 0 and self.ndim == 0:
        if n != 1:
            raise RuntimeError(f"{fn}(): Index should have dimension 1 or 0 (got {n})")
        return
    if (source._shape[dim] if source.ndim else 1) != n:
        raise RuntimeError(
            f"{fn}(): Number of indices ({n}) should be equal to source.size(dim): "
            f"({source._shape[dim] if source.ndim else 1}), for dim: {dim}"
        )
    dst = self._shape[:dim] + self._shape[dim + 1 :]
    src = source._shape[:dim] + source._shape[dim + 1 :]
    if src != dst:
        i = next((i for i, (a, b) in enumerate(zip(dst, src, strict=False)) if a != b), 0)
        raise RuntimeError(
            f"{fn}(): Source/destination tensor must have same slice shapes. Destination "
            f"slice shape: {dst[i] if dst else 1} at dimension {i} and source slice shape: "
            f"{src[i] if src else 1} at dimension {i}."
        )


def _check_bounds(
    self: Tensor, dim: int, index: Tensor, negative: bool, exc: type[Exception], tag: str = ""
) -> None:
    """Refuse an index outside ``self``'s dim ``dim`` before anything is written, with
    PyTorch's wording: ``index_add``/``index_copy`` take ``[0, size)`` only (a negative index
    would wrap in ``index_put``), ``index_fill`` also ``[-size, 0)`` (``negative``)."""
    # (meta holds no indices to check, as for put)
    if index.numel() == 0 or not _registry.interface(self._device).holds_data:
        return
    n = self._shape[dim] if self.ndim else 1
    lo = -n if negative else 0
    # (the extremes for the common case, all in range; the first bad index only then)
    least, most = index_range(index)
    if least < lo or most >= n:
        bad = (index < lo) | (index >= n)
        i = int(index.reshape(-1)[bad.reshape(-1)][0].item())
        raise exc(f"{tag}index {i} is out of bounds for dimension {dim} with size {n}")


def _along(self: Tensor, dim: int, index: Tensor) -> list[Tensor | None]:
    """The advanced index that picks ``index`` along ``dim`` (all of every other dim)."""
    flat = index if index.ndim == 1 else index.reshape(-1)
    return [None] * dim + [flat.to(dt.int64)]


def _into_self(definition: Callable[..., Any]) -> Callable[[Callable[..., Any]], Any]:
    """Give the composite ``definition`` its in-place variant: the decorated function, which
    writes into ``self`` through an in-place operator (whose call moves ``self``'s version,
    once) and returns it (``frontends._composite_inplace``), instead of computing a new
    result and copying it into ``self``."""

    def attach(fn: Callable[..., Any]) -> Any:
        definition.into_self = fn  # type: ignore[attr-defined]
        return fn

    return attach


def _index_add_checks(self: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    dim = _check_index("index_add_", self, dim, index)
    _check_source("index_add_", self, dim, index, source)
    if source._dtype is not self._dtype:
        raise RuntimeError(
            f"index_add_(): self ({torch_name(self._dtype)}) and source "
            f"({torch_name(source._dtype)}) must have the same scalar type"
        )
    _check_bounds(self, dim, index, False, RuntimeError)
    return dim


@_composite
def index_add(self: Tensor, dim: int, index: Tensor, source: Tensor, alpha: Any = 1) -> Tensor:
    dim = _index_add_checks(self, dim, index, source)
    if self.ndim == 0:
        return ops.add(self, source.sum().to(self._dtype), alpha=alpha)
    values = source if alpha == 1 else ops.mul(source, alpha)
    out = ops.index_put(self, _along(self, dim, index), values.to(self._dtype), True)
    return named_as(out, "IndexAddBackward0")


@_into_self(index_add)
def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, alpha: Any = 1) -> Tensor:
    # (``index_put_`` accumulates in place: no copy of ``self`` made and copied back)
    dim = _index_add_checks(self, dim, index, source)
    before = self._grad_fn
    if self.ndim == 0:
        self.add_(source.sum().to(self._dtype), alpha=alpha)
    else:
        values = source if alpha == 1 else ops.mul(source, alpha)
        ops.index_put_(self, _along(self, dim, index), values.to(self._dtype), True)
    if self._grad_fn is not before:
        named_as(self, "IndexAddBackward0")
    return self


@_composite
def index_copy(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    dim = _check_index(
        "index_copy_",
        self,
        dim,
        index,
        RuntimeError(
            f"index_copy_(): Expected a long tensor for index, but got {torch_name(index._dtype)}"
        ),
    )
    _check_source("index_copy_", self, dim, index, source)
    if source._dtype is not self._dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{torch_name(self._dtype)} and (source) {torch_name(source._dtype)}"
        )
    _check_bounds(self, dim, index, False, IndexError, "index_copy_(): ")
    if self.ndim == 0:
        return source.to(self._dtype).clone()
    return ops.index_put(self, _along(self, dim, index), source.to(self._dtype))


@_composite
def index_fill(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    dim = _check_index(
        "index_fill_",
        self,
        dim,
        index,
        IndexError("index_fill_(): Expected dtype int64 for index."),
    )
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value.ndim} dimension(s)."
        )
    _check_bounds(self, dim, index, True, IndexError)
    n = self._shape[dim] if self.ndim else 1
    hit = ops.zeros(n, dtype=dt.bool_, device=self._device)
    hit = ops.index_put(
        hit, [index.reshape(-1).to(dt.int64)], ops.ones((), dtype=dt.bool_, device=self._device)
    )
    # A mask over dim ``dim`` that broadcasts over the others.
    mask = hit.reshape((n,) + (1,) * (self.ndim - dim - 1)) if self.ndim else hit.reshape(())
    return ops.masked_fill(self, mask, value)


@_composite
def put(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    if index._dtype is not dt.int64:
        raise RuntimeError(
            f"put_(): Expected a long tensor for index, but got {torch_name(index._dtype)}"
        )
    if source._dtype is not self._dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{torch_name(self._dtype)} and source.dtype = {torch_name(source._dtype)}"
        )
    n = self.numel()
    if source.numel() != index.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    flat = index.reshape(-1)
    # (a device without data, meta, has no indices to check: PyTorch's meta put skips it too)
    if flat.numel() and _registry.interface(self._device).holds_data:
        for bound in index_range(flat):
            if not -n <= bound < n:
                raise IndexError(
                    f"out of range: tried to access index {bound} on a tensor of {n} elements."
                )
    values = ops.index_put(self.reshape(-1), [flat], source.reshape(-1), accumulate)
    return values.reshape(self._shape)


@_composite
def take(self: Tensor, index: Tensor) -> Tensor:
    if index._dtype is not dt.int64:
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got {torch_name(index._dtype)}"
        )
    n = self.numel()
    flat = index.reshape(-1)
    # (meta holds no indices to check, as for put)
    if flat.numel() and _registry.interface(self._device).holds_data:
        for bound in index_range(flat):
            if not -n <= bound < n:
                raise IndexError(
                    f"out of range: tried to access index {bound} on a tensor of {n} elements."
                )
    return named_as(self.reshape(-1)[flat].reshape(index._shape), "TakeBackward0")


@_composite
def bincount(self: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    # (the declared check, ``arg_checks.check_bincount``, has refused what PyTorch refuses)
    n = minlength
    if self.numel():
        n = max(n, int(self.max()) + 1)
    if weights is None:
        counts = ops.zeros(n, dtype=dt.int64, device=self._device)
        ones = ops.ones((), dtype=dt.int64, device=self._device).expand(self._shape)
        return ops.index_put(counts, [self.to(dt.int64)], ones, True)
    wd = weights._dtype if weights._dtype in (dt.float32, dt.float64) else dt.float64
    sums = ops.zeros(n, dtype=wd, device=self._device)
    return ops.index_put(sums, [self.to(dt.int64)], weights.to(wd), True)


@_composite
def diag_embed(self: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    nd = self.ndim + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = self._shape[-1] if self.ndim else 1
    v = self if self.ndim else self.reshape(1)
    k = abs(offset)
    # The result first (a size no memory holds fails here, before anything is filled), then
    # the diagonal written into it: NaN and inf stay on the diagonal only.
    square = ops.zeros((*v._shape[:-1], n + k, n + k), dtype=self._dtype, device=self._device)
    square.diagonal(offset, -2, -1).copy_(v)
    return square.movedim((-2, -1), (d1, d2))


@_composite
def diag(self: Tensor, diagonal: int = 0) -> Tensor:
    if self.ndim == 1:
        return diag_embed(self, diagonal)
    if self.ndim == 2:
        return self.diagonal(diagonal).clone()
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.ndim}D")


_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


@_composite
def index_reduce(
    self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, include_self: bool = True
) -> Tensor:
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(
            "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    d = _wrap_dim(dim, self.ndim)
    if index.ndim > 1:
        raise IndexError(
            "index_reduce_(): Index is supposed to be a vector, but got dim: "
            f"{index.ndim} with type: {torch_name(index._dtype)} and size: {list(index._shape)}"
        )
    if index._dtype not in (dt.int32, dt.int64):
        raise RuntimeError(
            "index_reduce_(): Expected dtype int32/int64 for index but got: "
            f"{torch_name(index._dtype)}"
        )
    if source._dtype is not self._dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({torch_name(self._dtype)}) and source "
            f"({torch_name(source._dtype)}) must have the same scalar type"
        )
    n, along = index.numel(), source._shape[d] if source.ndim else 1
    if along != n:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({n}) should be equal to source.size(dim): "
            f"({along}), for dim: {d}"
        )
    shape = self._shape or (1,)
    src = source if source.ndim else source.reshape(1)
    if len(src._shape) != len(shape) or any(
        a != b for i, (a, b) in enumerate(zip(shape, src._shape, strict=True)) if i != d
    ):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(self._shape)} source.shape = "
            f"{list(source._shape)}"
        )
    size = shape[d]
    # (the indices' values, where the device holds any: a meta tensor has none to check)
    holds_data = _registry.interface(index._device).holds_data
    if n and holds_data and (bool((index < 0).any()) or bool((index >= size).any())):
        raise IndexError("index out of range in self")
    # scatter_reduce with index[i] at every position of source's slice i along dim.
    ix = index.to(dt.int64).reshape([-1 if i == d else 1 for i in range(len(shape))])
    target = self if self.ndim else self.reshape(1)
    out = target.scatter_reduce(d, ix.expand(src._shape), src, reduce, include_self=include_self)
    return out if self.ndim else out.reshape(())


# reduce -> (the scatter_reduce that computes it, the value of a segment with no element)
_SEGMENT = {
    "sum": ("sum", 0.0),
    "mean": ("sum", 0.0),
    "prod": ("prod", 1.0),
    "max": ("amax", -math.inf),
    "min": ("amin", math.inf),
}


def _segment_offsets(
    data: Tensor, lengths: Tensor | None, offsets: Tensor | None, axis: int, unsafe: bool
) -> tuple[Tensor, int]:
    """The segments' (..., S + 1) int64 offsets along ``axis`` and the wrapped axis, the
    arguments checked as PyTorch checks them (the values only without ``unsafe``)."""
    name, seg = ("offsets", offsets) if offsets is not None else ("lengths", lengths)
    assert seg is not None
    if seg._dtype not in (dt.int32, dt.int64):
        raise NotImplementedError(
            f"segment_reduce(): {name} must be int32 or int64, got {torch_name(seg._dtype)}"
        )
    axis = _wrap_dim(axis, data.ndim)
    if seg.ndim > data.ndim:
        raise RuntimeError(
            f"segment_reduce(): expected data of at least {seg.ndim} dims for {name} of shape "
            f"{list(seg._shape)}, got data of shape {list(data._shape)}"
        )
    if axis != seg.ndim - 1:
        raise RuntimeError(
            f"segment_reduce(): Expected axis to be the last dimension of {name} but got {axis}."
        )
    if seg._shape[:-1] != data._shape[:axis]:
        raise RuntimeError(
            f"segment_reduce(): {name} of shape {list(seg._shape)} must have the leading dims "
            f"of data (shape {list(data._shape)}) before axis {axis}"
        )
    if offsets is None and lengths is not None and seg._shape[-1] == 0 and data._shape[axis]:
        # (PyTorch fails here too, with an error about an empty min())
        raise RuntimeError("segment_reduce(): no segments (empty lengths) for a non-empty axis")
    seg = seg.to(dt.int64)
    size = data._shape[axis]
    check = not unsafe and seg.numel() and _registry.interface(seg._device).holds_data
    if offsets is None:
        if check and bool((seg < 0).any()):
            raise RuntimeError("lengths contains negative value!")
        if check and bool((seg.sum(-1) != size).any()):
            raise RuntimeError(
                "segment_reduce(): Expected all rows of lengths along axis to sum to "
                "data.size(lengths.dim()-1) when !unsafe."
            )
        zero = ops.zeros((*seg._shape[:-1], 1), dtype=dt.int64, device=seg._device)
        return ops.cat([zero, seg.cumsum(-1)], -1), axis
    if seg._shape[-1] == 0:
        raise RuntimeError("segment_reduce(): offsets must hold at least one value")
    if check and (
        bool((seg.diff(dim=-1) < 0).any()) or bool((seg < 0).any()) or bool((seg > size).any())
    ):
        raise RuntimeError(
            f"segment_reduce(): offsets must be non-decreasing and within [0, {size}] (the "
            "size of data along axis) when !unsafe"
        )
    return seg, axis


@_composite
def segment_reduce(
    data: Tensor,
    reduce: str,
    lengths: Tensor | None = None,
    indices: Tensor | None = None,
    offsets: Tensor | None = None,
    axis: int = 0,
    unsafe: bool = False,
    initial: Any = None,
) -> Tensor:
    if reduce not in _SEGMENT:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    offs, axis = _segment_offsets(data, lengths, offsets, axis, unsafe)
    lead, size, trail = data._shape[:axis], data._shape[axis], data._shape[axis + 1 :]
    n = offs._shape[-1] - 1
    # Each element's segment: how many segment ends lie at or before it; elements before the
    # first offset or past the last go to an extra segment n, dropped at the end.
    pos = ops.arange(size, dtype=dt.int64, device=data._device).expand((*lead, size))
    seg = ops.searchsorted(offs[..., 1:].contiguous(), pos.contiguous(), right=True)
    seg = seg.masked_fill((pos < offs[..., :1]) | (seg >= n), n)
    index = seg.reshape((*lead, size) + (1,) * len(trail)).expand(data._shape)
    how, empty = _SEGMENT[reduce]
    base = ops.full((*lead, n + 1, *trail), empty, dtype=data._dtype, device=data._device)
    red = base.scatter_reduce(axis, index, data, how, include_self=False).narrow(axis, 0, n)
    if reduce == "mean":
        count = (offs[..., 1:] - offs[..., :-1]).reshape((*lead, n) + (1,) * len(trail))
        total = red if initial is None else red + initial
        mean = total / count.clamp_min(1).to(data._dtype)
        # (an empty segment's mean: the initial value, else 0 / 0)
        return mean.masked_fill(count == 0, math.nan if initial is None else initial)
    if initial is None:
        return red
    if reduce == "sum":
        return red + initial
    if reduce == "prod":
        return red * initial
    # (a NaN stays: it compares false; a tie keeps the data's value, and its gradient)
    if reduce == "max":
        return ops.where(red < initial, initial, red)
    return ops.where(red > initial, initial, red)
