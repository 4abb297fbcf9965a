"""Meta functions of the indexing operators (``gather``, ``scatter`` and its reductions,
``index_select``, ``masked_fill``, ``index_put``): the index's dtype, rank and bounds against
self's, in PyTorch's words. The contract of a meta function is ``ops/meta_functions.py``'s.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor, _wrap_dim, cpp_name, torch_name
from ._validate import warn_caller
from .meta_functions import broadcast, need_tensor

__all__ = [
    "meta_gather",
    "meta_index_put",
    "meta_index_select",
    "meta_masked_fill",
    "meta_scatter",
    "meta_scatter_add",
    "meta_scatter_reduce",
]


def _check_index(name: str, index: Tensor, self: Tensor, dim: int) -> int:
    need_tensor(name, "index", index)
    # (PyTorch takes an empty index of any dtype: it indexes nothing)
    if index._dtype not in (dt.int64, dt.int32) and index.numel():
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    d = _wrap_dim(dim, self.ndim)
    if index.ndim != self.ndim and not (index.ndim <= 1 and self.ndim <= 1) and index.numel():
        raise RuntimeError(
            f"Index tensor must have the same number of dimensions as input tensor ({name})"
        )
    return d


def _integral_index(index: Tensor) -> Tensor:
    """An empty index of another dtype as int64 (what the kernels index with)."""
    return index if index._dtype in (dt.int64, dt.int32) else index.to(dt.int64)


def meta_gather(self: Tensor, dim: int, index: Tensor) -> Any:
    d = _check_index("gather", index, self, dim)
    index = _integral_index(index)
    return (self, d, index), (index._shape, self._dtype)


def meta_scatter(self: Tensor, dim: int, index: Tensor, src: Any, reduce: str | None = None) -> Any:
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    d = _check_index("scatter", index, self, dim)
    index = _integral_index(index)
    if isinstance(src, Tensor) and src._dtype is not self._dtype:
        raise RuntimeError(
            f"scatter(): Expected self.dtype to be equal to src.dtype ({torch_name(self._dtype)} "
            f"vs {torch_name(src._dtype)})"
        )
    if reduce is not None and isinstance(src, Tensor):
        warn_caller(
            "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
            "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
            "reduction options.",
        )
    return (self, d, index, src, reduce), (self._shape, self._dtype)


def meta_scatter_add(self: Tensor, dim: int, index: Tensor, src: Any) -> Any:
    args, outputs = meta_scatter(self, dim, index, src)
    return args[:4], outputs


_SCATTER_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def meta_scatter_reduce(
    self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, include_self: bool = True
) -> Any:
    # PyTorch also takes "max" and "min" (the legacy names of amax and amin).
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if reduce not in _SCATTER_REDUCTIONS:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    d = _check_index("scatter_reduce", index, self, dim)
    index = _integral_index(index)
    need_tensor("scatter_reduce", "src", src)
    if src._dtype is not self._dtype:
        raise RuntimeError(
            f"scatter_reduce(): Expected self.dtype to be equal to src.dtype "
            f"({torch_name(self._dtype)} vs {torch_name(src._dtype)})"
        )
    return (self, d, index, src, reduce, include_self), (self._shape, self._dtype)


def meta_index_select(self: Tensor, dim: int, index: Tensor) -> Any:
    need_tensor("index_select", "index", index)
    if index._dtype not in (dt.int64, dt.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    d = _wrap_dim(dim, self.ndim)
    shape = list(self._shape)
    if shape:
        shape[d] = index.numel()
    return (self, d, index), (tuple(shape), self._dtype)


def meta_masked_fill(self: Tensor, mask: Tensor, value: Any) -> Any:
    need_tensor("masked_fill", "mask", mask)
    if mask._dtype is not dt.bool_:
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{cpp_name(mask._dtype)}"
        )
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value.ndim} dimension(s)."
        )
    if (
        isinstance(value, Tensor)
        and value._dtype is not self._dtype
        and dt.promote_types(value._dtype, self._dtype) is not self._dtype
        and value._device.type != "meta"
    ):
        # A 0-d value that self's dtype may not hold is read as the number it is and checked
        # as a number would be (PyTorch converts it with the same overflow check).
        dt.check_scalar(value.item(), self._dtype)
    shape = broadcast(self._shape, mask._shape)
    return (self, mask, value), (shape, self._dtype)


def meta_index_put(self: Tensor, indices: Any, values: Any, accumulate: bool = False) -> Any:
    if isinstance(values, Tensor) and values._dtype is not self._dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{torch_name(self._dtype)} for the destination and {torch_name(values._dtype)} "
            "for the source."
        )
    return (self, tuple(indices), values, accumulate), (self._shape, self._dtype)
