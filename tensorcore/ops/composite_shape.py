"""Composite shape, search and set operators: grids, stacks and splits, differences and
repeats, Kronecker and block-diagonal products, searching, counting and unique values.

Written with other operators, so every backend gets them and autograd differentiates them
through their parts; ``ops/composite.py`` registers them with the other composites. Results
whose size depends on the data (``unique``, ``argwhere``, ``repeat_interleave`` with a tensor
of repeats) get it from the operators that compute it on the device (``nonzero``, masked
indexing), or from one read of a sum.
"""

from __future__ import annotations

import builtins
import itertools
import math
from collections.abc import Callable
from typing import Any

from .. import dtypes as dt
from .. import return_types
from .._tensor import Tensor, _wrap_dim, torch_name
from ..dispatch import get_op
from . import functions as ops
from ._call import call_lane
from ._validate import warn_caller
from .factories import tensor
from .meta_functions import broadcast

__all__ = ["SHAPE_COMPOSITES"]

SHAPE_COMPOSITES: dict[str, Callable[..., Any]] = {}


def _composite(fn: Callable[..., Any]) -> Callable[..., Any]:
    SHAPE_COMPOSITES[fn.__name__] = fn
    return fn


# ------------------------------------------------------------------ grids and broadcasting
@_composite
def meshgrid(tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing is None:
        warn_caller(
            "tensorcore.meshgrid: in an upcoming release, it will be required to pass the "
            "indexing argument."
        )
        indexing = "ij"
    elif indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(
                f"meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of "
                f"shape {list(t._shape)}"
            )
        if t._dtype is not tensors[0]._dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    ts = list(tensors)
    # 'xy' is 'ij' with the first two inputs (and outputs) swapped.
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.numel() for t in ts)
    out = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        out.append(t.reshape(view).expand(shape))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


@_composite
def broadcast_tensors(tensors: Any) -> tuple[Tensor, ...]:
    shape = broadcast(*(t._shape for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


@_composite
def moveaxis(self: Tensor, source: Any, destination: Any) -> Tensor:
    return ops.movedim(self, source, destination)


def _at_least(tensors: Any, fn: Callable[[Tensor], Tensor]) -> Any:
    # A tensor with enough dims comes back as a view (PyTorch returns it itself): results
    # of operators are plain tensors, a Parameter's too.
    out = tuple(r.view(r._shape) if r is t else r for t in tensors for r in (fn(t),))
    return out[0] if len(out) == 1 else out


def _one_d(t: Tensor) -> Tensor:
    return t.reshape(1) if t.ndim == 0 else t


def _two_d(t: Tensor) -> Tensor:
    return t.reshape(1, 1) if t.ndim == 0 else t.unsqueeze(0) if t.ndim == 1 else t


def _three_d(t: Tensor) -> Tensor:
    if t.ndim == 0:
        return t.reshape(1, 1, 1)
    if t.ndim == 1:  # (unsqueezed, as PyTorch: a new last dim has stride 1)
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1) if t.ndim == 2 else t


@_composite
def atleast_1d(tensors: Any) -> Any:
    return _at_least(tensors, _one_d)


@_composite
def atleast_2d(tensors: Any) -> Any:
    return _at_least(tensors, _two_d)


@_composite
def atleast_3d(tensors: Any) -> Any:
    return _at_least(tensors, _three_d)


# ------------------------------------------------------------------ stacks and splits
def _nonempty(name: str, tensors: Any) -> None:
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


@_composite
def hstack(tensors: Any) -> Tensor:
    _nonempty("hstack", tensors)
    ts = [_one_d(t) for t in tensors]
    return ops.cat(ts, 0 if ts[0].ndim == 1 else 1)


@_composite
def vstack(tensors: Any) -> Tensor:
    _nonempty("vstack", tensors)
    return ops.cat([_two_d(t) for t in tensors], 0)


@_composite
def row_stack(tensors: Any) -> Tensor:
    _nonempty("row_stack", tensors)
    return ops.cat([_two_d(t) for t in tensors], 0)


@_composite
def dstack(tensors: Any) -> Tensor:
    _nonempty("dstack", tensors)
    return ops.cat([_three_d(t) for t in tensors], 2)


@_composite
def column_stack(tensors: Any) -> Tensor:
    _nonempty("column_stack", tensors)
    return ops.cat([t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in tensors], 1)


def _sections_or_indices(name: str, arg: Any) -> tuple[int | None, list[int]]:
    """``(sections, [])`` or ``(None, indices)`` from an int, a sequence or a tensor."""
    if isinstance(arg, Tensor):
        if arg._dtype is not dt.int64:
            raise RuntimeError(
                f"{name} expected tensor_indices_or_sections to have dtype of long, but got "
                f"{torch_name(arg._dtype)}"
            )
        if arg.ndim > 1:
            raise RuntimeError(
                f"{name} expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {arg.ndim} dims"
            )
        return (int(arg.item()), []) if arg.ndim == 0 else (None, [int(i) for i in arg.tolist()])
    if isinstance(arg, int) and not isinstance(arg, bool):
        return arg, []
    if isinstance(arg, (list, tuple)) and all(
        isinstance(i, int) and not isinstance(i, bool) for i in arg
    ):
        return None, list(arg)
    raise TypeError(
        f"{name}(): argument 'indices_or_sections' must be int, tuple of ints or Tensor, not "
        f"{type(arg).__name__}"
    )


@_composite
def tensor_split(self: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    if self.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = _wrap_dim(dim, self.ndim)
    n = self._shape[d]
    sections, indices = _sections_or_indices("tensor_split", indices_or_sections)
    if sections is not None:
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        q, r = divmod(n, sections)
        out, start = [], 0
        for i in range(sections):
            size = q + (1 if i < r else 0)
            out.append(self.narrow(d, start, size))
            start += size
        return tuple(out)
    # Python's slice semantics between consecutive indices, as PyTorch's ``slice``.
    bounds = [0, *indices, n]
    out = []
    for a, b in itertools.pairwise(bounds):
        s, e, _ = builtins.slice(a, b).indices(n)
        out.append(self.narrow(d, s, builtins.max(e - s, 0)))
    return tuple(out)


def _split_along(name: str, self: Tensor, arg: Any, dim: int, need: int) -> tuple[Tensor, ...]:
    if self.ndim < need:
        raise RuntimeError(
            f"{name} requires a tensor with at least {need} dimension, but got a tensor with "
            f"{self.ndim} dimensions!"
        )
    sections, _ = _sections_or_indices(name, arg)
    if (
        sections is not None
        and not isinstance(arg, Tensor)
        and (sections == 0 or self._shape[dim] % sections)
    ):
        raise RuntimeError(
            f"{name} attempted to split along dimension {dim}, but the size of the dimension "
            f"{self._shape[dim]} is not divisible by the split_size {sections}!"
        )
    return tensor_split(self, arg, dim)


@_composite
def hsplit(self: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    return _split_along("hsplit", self, indices_or_sections, 1 if self.ndim > 1 else 0, 1)


@_composite
def vsplit(self: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    return _split_along("vsplit", self, indices_or_sections, 0, 2)


@_composite
def dsplit(self: Tensor, indices_or_sections: Any) -> tuple[Tensor, ...]:
    return _split_along("dsplit", self, indices_or_sections, 2, 3)


# ------------------------------------------------------------------ flips and rotations
@_composite
def flipud(self: Tensor) -> Tensor:
    if self.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return self.flip((0,))


@_composite
def fliplr(self: Tensor) -> Tensor:
    if self.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return self.flip((1,))


@_composite
def rot90(self: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if self.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {self.ndim}")
    d0, d1 = _wrap_dim(dims[0], self.ndim), _wrap_dim(dims[1], self.ndim)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}"
        )
    k %= 4
    if k == 1:
        return self.flip((d1,)).transpose(d0, d1)
    if k == 2:
        return self.flip((d0, d1))
    if k == 3:
        return self.flip((d0,)).transpose(d0, d1)
    return self.clone()


# ------------------------------------------------------------------ indexing and differences
@_composite
def take_along_dim(self: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    if dim is None:
        return self.reshape(-1).gather(0, indices.reshape(-1))
    if indices._dtype is not dt.int64:
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            f"{torch_name(indices._dtype)}"
        )
    if self.ndim != indices.ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {self.ndim} dimensions for input, and {indices.ndim} "
            "dimensions for indices"
        )
    d = _wrap_dim(dim, self.ndim)
    if self.ndim == 0:
        return self.reshape(1).gather(0, indices.reshape(1)).reshape(())
    # Along a given dim, negative indices count from the end (not with dim=None: a flat gather).
    indices = indices + (indices < 0).to(indices._dtype) * self._shape[d]
    # The two broadcast over every dim but ``d``.
    sizes = list(self._shape)
    sizes[d] = indices._shape[d]
    shape = list(broadcast(tuple(sizes), indices._shape))
    idx = indices.expand(tuple(shape))
    shape[d] = self._shape[d]
    return self.expand(tuple(shape)).gather(d, idx)


@_composite
def diff(
    self: Tensor,
    n: int = 1,
    dim: int = -1,
    prepend: Tensor | None = None,
    append: Tensor | None = None,
) -> Tensor:
    if self.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, self.ndim)
    if n == 0:
        return self  # prepend and append are not added either (NumPy and PyTorch)
    parts = [self]
    for extra, front in ((prepend, True), (append, False)):
        if extra is not None:
            if extra.ndim != self.ndim:
                raise RuntimeError(
                    "diff expects prepend or append to be the same dimension as input"
                )
            parts.insert(0, extra) if front else parts.append(extra)
    x = ops.cat(parts, d) if len(parts) > 1 else self
    for _ in range(n):
        m = x._shape[d]
        if m == 0:
            break
        a, b = x.narrow(d, 1, m - 1), x.narrow(d, 0, m - 1)
        x = ops.logical_xor(a, b) if x._dtype is dt.bool_ else a - b
    return x


def _repeat_index(repeats: Tensor, output_size: int | None) -> Tensor:
    """``0..n-1``, each ``repeats[i]`` times (the one-argument ``repeat_interleave``)."""
    if repeats.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    d = repeats._dtype
    if d is dt.bool_ or d.is_floating_point or d.is_complex:
        raise NotImplementedError(f"\"repeat_interleave\" not implemented for '{torch_name(d)}'")
    counts = repeats.reshape(-1).to(dt.int64)
    if counts.numel() and bool((counts < 0).any()):
        raise RuntimeError("repeats can not be negative")
    ends = counts.cumsum(0)
    total = output_size if output_size is not None else int(ends[-1]) if counts.numel() else 0
    positions = ops.arange(total, device=repeats._device)
    return ops.searchsorted(ends, positions, right=True)


@_composite
def repeat_interleave(
    self: Tensor, repeats: Any = None, dim: int | None = None, output_size: int | None = None
) -> Tensor:
    if repeats is None:  # repeat_interleave(repeats): the indices, repeated
        return _repeat_index(self, output_size)
    x, d = (self.reshape(-1), 0) if dim is None or self.ndim == 0 else (self, dim)
    d = _wrap_dim(d, x.ndim)
    if isinstance(repeats, Tensor) and repeats.ndim <= 1 and repeats.numel() == 1:
        if repeats._dtype.is_floating_point or repeats._dtype.is_complex:
            _repeat_index(repeats, output_size)  # raises PyTorch's error
        repeats = int(repeats.item())
    if isinstance(repeats, Tensor):
        if repeats.ndim == 1 and repeats._shape[0] != x._shape[d]:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got "
                f"repeats.size(0) = {repeats._shape[0]} and input.size({d}) = {x._shape[d]}"
            )
        return x.index_select(d, _repeat_index(repeats, output_size))
    if not isinstance(repeats, int) or isinstance(repeats, bool):
        raise TypeError(
            "repeat_interleave(): argument 'repeats' must be int or Tensor, not "
            f"{type(repeats).__name__}"
        )
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = list(x._shape)
    shape.insert(d + 1, repeats)
    out = x.unsqueeze(d + 1).expand(tuple(shape))
    return out.flatten(d, d + 1)


# ------------------------------------------------------------------ products
@_composite
def block_diag(tensors: Any) -> Tensor:
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(
                "block_diag: Input tensors must have 2 or fewer dimensions. Input "
                f"{i} has {t.ndim} dimensions"
            )
    if not tensors:
        return ops.empty((1, 0))
    mats = [_two_d(t) for t in tensors]
    res = mats[0]._dtype
    for m in mats[1:]:
        res = dt.promote_types(res, m._dtype)
    dev = mats[0]._device
    cols = builtins.sum(m._shape[1] for m in mats)
    rows, before = [], 0
    for m in mats:
        r, c = m._shape
        left = ops.zeros((r, before), dtype=res, device=dev)
        right = ops.zeros((r, cols - before - c), dtype=res, device=dev)
        rows.append(ops.cat([left, m.to(res), right], 1))
        before += c
    return ops.cat(rows, 0)


def _need_1d(t: Tensor) -> None:
    if t.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._shape)}")


@_composite
def cartesian_prod(tensors: Any) -> Tensor:
    for t in tensors:
        _need_1d(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(tensors, "ij")
    return ops.stack([g.reshape(-1) for g in grids], 1)


@_composite
def combinations(self: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    _need_1d(self)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return ops.empty((0,), dtype=self._dtype, device=self._device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = [i for combo in pick(range(self._shape[0]), r) for i in combo]
    index = tensor(rows, dtype=dt.int64, device=self._device)
    return self.index_select(0, index).reshape(-1, r)


def _triangle_indices(
    name: str, row: int, col: int, offset: int, dtype: Any, device: Any, lower: bool
) -> Tensor:
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    r = ops.arange(row, device=device).unsqueeze(1)
    c = ops.arange(col, device=device).unsqueeze(0)
    mask = (c - r <= offset) if lower else (c - r >= offset)
    return mask.nonzero().t().contiguous().to(dtype or dt.int64)


@_composite
def tril_indices(
    row: int, col: int, offset: int = 0, dtype: Any = None, device: Any = None
) -> Tensor:
    return _triangle_indices("tril_indices", row, col, offset, dtype, device, True)


@_composite
def triu_indices(
    row: int, col: int, offset: int = 0, dtype: Any = None, device: Any = None
) -> Tensor:
    return _triangle_indices("triu_indices", row, col, offset, dtype, device, False)


@_composite
def logspace(
    start: Any,
    end: Any,
    steps: int,
    base: float = 10.0,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    cplx = isinstance(start, complex) or isinstance(end, complex)
    if dtype is None:
        dtype = dt.get_default_dtype()
        dtype = dtype.to_complex() if cplx else dtype
    wide = dt.complex128 if cplx or dtype.is_complex else dt.float64
    exponents = ops.linspace(start, end, steps, dtype=wide, device=device)
    return ops.pow(base, exponents).to(dtype)


# ------------------------------------------------------------------ search, count, sets
@_composite
def nonzero(self: Tensor, as_tuple: bool = False) -> Any:
    if as_tuple:
        # (through the operator: a backend's kernel for it, where it has one)
        return call_lane(get_op("nonzero_numpy"), (self,))
    return ops.argwhere(self)


@_composite
def nonzero_numpy(self: Tensor) -> tuple[Tensor, ...]:
    rows = ops.argwhere(self if self.ndim else self.reshape(1))
    # One contiguous index tensor per dim, as PyTorch returns them.
    return tuple(rows.t().contiguous().unbind(0))


@_composite
def bucketize(input: Any, boundaries: Tensor, out_int32: bool = False, right: bool = False) -> Any:
    if not isinstance(boundaries, Tensor):
        raise TypeError(
            f"bucketize(): argument 'boundaries' must be Tensor, not {type(boundaries).__name__}"
        )
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return ops.searchsorted(boundaries, input, out_int32=out_int32, right=right)


@_composite
def count_nonzero(self: Tensor, dim: Any = None) -> Tensor:
    return (self != 0).sum(dim)


@_composite
def isin(
    elements: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False
) -> Tensor:
    ref = elements if isinstance(elements, Tensor) else test_elements
    common = dt.result_type(elements, test_elements)
    e = (
        elements.to(common)
        if isinstance(elements, Tensor)
        else ops.full((), elements, dtype=common, device=ref._device)
    )
    t = (
        test_elements
        if isinstance(test_elements, Tensor)
        else ops.full((1,), test_elements, dtype=common, device=ref._device)
    )
    table = t.reshape(-1).to(common).sort().values
    n = table.numel()
    if n == 0:
        found = ops.zeros(e._shape, dtype=dt.bool_, device=e._device)
    else:
        at = ops.searchsorted(table, e).clamp(max=n - 1)
        found = table[at] == e
    return found.logical_not() if invert else found


def _run_starts(rows: Tensor) -> Tensor:
    """True where a row (dim 0) differs from the one before it, and for the first row."""
    m = rows._shape[0]
    first = ops.ones((builtins.min(m, 1),), dtype=dt.bool_, device=rows._device)
    if m <= 1:
        return first
    changed = rows.narrow(0, 1, m - 1) != rows.narrow(0, 0, m - 1)
    if changed.ndim > 1:
        changed = changed.any(1)
    return ops.cat([first, changed], 0)


def _runs(
    x: Tensor, starts: Tensor, order: Tensor | None, inverse: bool, counts: bool, dim: int | None
) -> Any:
    """The results of ``unique``/``unique_consecutive`` from the first row of each run:
    ``x`` holds the rows (along dim 0; ``order`` sorted them), ``starts`` marks the runs."""
    m = x._shape[0]
    first = starts.nonzero().reshape(-1)
    pick = first if order is None else order.index_select(0, first)
    values = x.index_select(0, pick)
    if dim is not None:
        values = values.movedim(0, dim)
    out = [values]
    if inverse:
        inv = starts.cumsum(0) - 1
        if order is not None:
            inv = ops.zeros((m,), dtype=dt.int64, device=x._device).scatter(0, order, inv)
        out.append(inv)
    if counts:
        ends = ops.cat([first, ops.full((1,), m, dtype=dt.int64, device=x._device)], 0)
        out.append(ends.narrow(0, 1, first._shape[0]) - first)
    return out


def _rows(self: Tensor, dim: int | None) -> tuple[Tensor, Tensor, int | None]:
    """``self`` as rows along dim 0 (flattened when ``dim`` is None), the same rows as 2-D
    for comparing, and the wrapped dim."""
    if dim is None:
        flat = self.reshape(-1)
        return flat, flat, None
    d = _wrap_dim(dim, self.ndim)
    x = self.movedim(d, 0)
    # (the row length spelled out: ``-1`` cannot be inferred for no rows)
    return x, x.reshape(x._shape[0], math.prod(x._shape[1:])), d


def _results(out: list[Any], self: Tensor, dim: int | None, inverse: bool) -> Any:
    if inverse and dim is None:
        out[1] = out[1].reshape(self._shape)
    return out[0] if len(out) == 1 else tuple(out)


def _unique_by_counting(self: Tensor, inverse: bool, counts: bool) -> Any:
    """``unique`` of integers or booleans whose range is at most a few times their number,
    from a histogram of the range (values, counts and each value's rank, in O(n + range))
    instead of a sort; None for a wider range (or no elements)."""
    n = self.numel()
    if n == 0:
        return None
    flat = self.reshape(-1)
    lo, hi = int(flat.amin()), int(flat.amax())
    span = hi - lo + 1
    if span > 4 * n + 1024:
        return None
    shifted = flat.to(dt.int64) - lo if lo else flat.to(dt.int64)
    hist = ops.bincount(shifted, minlength=span)
    present = hist > 0
    at = present.nonzero().reshape(-1)
    out = [(at + lo).to(self._dtype) if lo else at.to(self._dtype)]
    if inverse:
        out.append((present.cumsum(0) - 1).index_select(0, shifted).reshape(self._shape))
    if counts:
        out.append(hist.index_select(0, at))
    return out[0] if len(out) == 1 else tuple(out)


@_composite
def unique(
    self: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    if dim is None and not (self._dtype.is_floating_point or self._dtype.is_complex):
        counted = _unique_by_counting(self, return_inverse, return_counts)
        if counted is not None:
            return counted
    if dim is not None:
        if not self.ndim:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        if 0 in self._shape and self._shape[_wrap_dim(dim, self.ndim)] != 0:
            raise RuntimeError(
                "There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                "applied"
            )
    x, rows, d = _rows(self, dim)
    m = rows._shape[0]
    if rows.ndim == 1 and m:
        # The sort's values are the sorted elements: each run's first value is read there
        # through the mask of run starts (the same element as ``x[order[first]]``), with no
        # positions and no gather of ``x`` through the order.
        ranked = rows.sort(stable=True)
        starts = _run_starts(ranked.values)
        out = [ranked.values[starts]]
        if return_inverse:
            inv = starts.cumsum(0) - 1
            at = ops.zeros((m,), dtype=dt.int64, device=x._device)
            out.append(at.scatter(0, ranked.indices, inv))
        if return_counts:
            first = starts.nonzero().reshape(-1)
            ends = ops.cat([first, ops.full((1,), m, dtype=dt.int64, device=x._device)], 0)
            out.append(ends.narrow(0, 1, first._shape[0]) - first)
        return _results(out, self, dim, return_inverse)
    # Sort the rows lexicographically: stable sorts by each column, the last one first.
    if rows.ndim == 1:
        order = ops.zeros((0,), dtype=dt.int64)
    else:
        order = ops.arange(m, device=self._device)
        for c in range(rows._shape[1] - 1, -1, -1):
            key = rows.select(1, c).index_select(0, order)
            order = order.index_select(0, key.sort(stable=True).indices)
    order = order.to(self._device)
    starts = _run_starts(rows.index_select(0, order))
    out = _runs(x, starts, order, return_inverse, return_counts, d)
    return _results(out, self, dim, return_inverse)


@_composite
def unique_consecutive(
    self: Tensor, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None
) -> Any:
    x, rows, d = _rows(self, dim)
    out = _runs(x, _run_starts(rows), None, return_inverse, return_counts, d)
    return _results(out, self, dim, return_inverse)


@_composite
def histogram(
    self: Tensor,
    bins: Any = 100,
    range: Any = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> Any:
    x = self.reshape(-1)
    if isinstance(bins, Tensor):
        if bins.ndim != 1 or bins.numel() < 2:
            raise RuntimeError(
                "torch.histogramdd: bins tensor should have one dimension and at least 2 "
                f"elements, but got {bins.ndim} dimensions and {bins.numel()} elements"
            )
        if bins._dtype is not self._dtype:
            raise RuntimeError(
                "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                f"but got input {torch_name(self._dtype)} and bins {torch_name(bins._dtype)}"
            )
        edges = bins
    else:
        n = int(bins)
        if n <= 0:
            raise RuntimeError(
                f"torch.histogramdd(): bins must be > 0, but got {n} for dimension 0"
            )
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif x.numel():
            lo, hi = float(x.amin()), float(x.amax())
        else:
            lo = hi = 0.0
        if lo > hi:
            raise RuntimeError(
                f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} "
                "for dimension 0"
            )
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = ops.linspace(lo, hi, n + 1, dtype=self._dtype, device=self._device)
    nbins = edges.numel() - 1
    if weight is not None:
        if tuple(weight.shape) != tuple(self.shape):
            raise RuntimeError(
                "torch.histogramdd: if weight tensor is provided it should have the same shape "
                f"as the input tensor excluding its innermost dimension, but got input with "
                f"shape {tuple(self.shape)} and weight with shape {tuple(weight.shape)}"
            )
        w = weight.reshape(-1)
    else:
        w = ops.ones_like(x)
    inside = (x >= edges[0]) & (x <= edges[-1])
    pos = (ops.searchsorted(edges, x, right=True) - 1).clamp(0, nbins - 1)
    w = ops.where(inside, w, ops.zeros_like(w))
    hist = ops.zeros((nbins,), dtype=self._dtype, device=self._device).scatter_add(0, pos, w)
    if density:
        hist = hist / (hist.sum() * (edges[1:] - edges[:-1]))
    return return_types.histogram(hist, edges.clone() if edges is bins else edges)


@_composite
def histc(self: Tensor, bins: int = 100, min: Any = 0, max: Any = 0) -> Tensor:
    if bins <= 0:
        raise RuntimeError(f"histc(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo > hi:
        raise RuntimeError("histc: max must be larger than min")
    x = self.reshape(-1)
    if lo == hi and x.numel():
        lo, hi = float(x.amin()), float(x.amax())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (abs(lo) < float("inf") and abs(hi) < float("inf")):
        raise RuntimeError(f"histc: range of [{lo:g}, {hi:g}] is not finite")
    inside = (x >= lo) & (x <= hi)
    x = x[inside]
    # PyTorch's bin of an element: trunc((x - min) * bins / (max - min)), the last bin
    # closed on the right; computed in the input's dtype.
    pos = ((x - lo) * bins / (hi - lo)).to(dt.int64).clamp(max=bins - 1)
    counts = ops.zeros((bins,), dtype=self._dtype, device=self._device)
    return counts.scatter_add(0, pos, ops.ones_like(x))
