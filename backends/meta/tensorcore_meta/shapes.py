"""Shape rules of the unstructured operators that need one on meta: each computes its
result's shape, dtype and strides from the arguments' metadata, with the checks that need no
values, and allocates it (empty, on meta).

``einsum`` and ``index`` have no frontend to do this for them. The others are composites of
the core (``histc``, ``quantile``, ``multinomial`` ...) whose results' shapes do not depend
on the values, but which read values along the way (to check them, or through an
intermediate boolean mask): on meta they are shape computations instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import tensorcore as tc
import tensorcore.backend as backend
from tensorcore.backend import Tensor

from .device import data_dependent_error

__all__ = ["SHAPES"]

_BOOL_INDEX = (tc.bool, tc.uint8)


# ------------------------------------------------------------------ no frontend
def index(self: Tensor, indices: Sequence[Tensor | None]) -> Tensor:
    """Advanced indexing with integer tensors: NumPy's rule for the result's shape (the
    broadcast index shape replaces the indexed dims, in place when they are adjacent, first
    otherwise). A boolean mask's result depends on its values: an error."""
    idx = list(indices)
    if len(idx) > self.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self.ndim} (got {len(idx)})")
    used = [i for i, t in enumerate(idx) if t is not None]
    given = [t for t in idx if t is not None]
    if any(t.dtype in _BOOL_INDEX for t in given):
        raise data_dependent_error(
            "index",
            self,
            what="indexing with a boolean mask: the shape of its result",
            hint="index with integer tensors, or run it on a device with data",
        )
    try:
        bshape = tuple(backend.broadcast_shapes(*(t.shape for t in given)))
    except RuntimeError:
        listed = ", ".join(str(list(t.shape)) for t in given)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {listed}"
        ) from None
    sizes = tuple(self.shape)
    if used == list(range(used[0], used[-1] + 1)):
        shape = sizes[: used[0]] + bshape + sizes[used[-1] + 1 :]
    else:
        shape = bshape + tuple(s for i, s in enumerate(sizes) if i >= len(idx) or idx[i] is None)
    return backend.empty(shape, self.dtype, self.device)


def einsum(equation: str, operands: Sequence[Tensor]) -> Tensor:
    """The result's shape from the subscripts (with ``...`` and the implicit output of
    labels used once, in alphabetical order) and the operands' sizes; size-1 dims broadcast;
    the dtype is :func:`tensorcore.backend.einsum_dtype`'s."""
    ts = list(operands)
    if not ts:
        raise RuntimeError("einsum(): must provide at least one operand")
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ts):
        raise RuntimeError(
            f"einsum(): {len(terms)} operands in the equation, but {len(ts)} were given"
        )
    sizes: dict[str, int] = {}
    ellipsis: tuple[int, ...] = ()
    counts: dict[str, int] = {}
    for term, t in zip(terms, ts, strict=True):
        labels = term.replace("...", ".")
        named = labels.replace(".", "")
        if not all(c.isalpha() for c in named) or labels.count(".") > 1:
            raise RuntimeError(f"einsum(): invalid subscripts '{term}'")
        n_ell = t.ndim - len(named)
        if n_ell < 0 or ("." not in labels and n_ell):
            raise RuntimeError(
                f"einsum(): the subscripts '{term}' name {len(named)} dims of an operand "
                f"with {t.ndim}"
            )
        dims = iter(t.shape)
        for c in labels:
            if c == ".":
                part = tuple(next(dims) for _ in range(n_ell))
                ellipsis = tuple(backend.broadcast_shapes(ellipsis, part))
                continue
            s = next(dims)
            counts[c] = counts.get(c, 0) + 1
            old = sizes.get(c, s)
            if old != s and 1 not in (old, s):
                raise RuntimeError(
                    f"einsum(): subscript {c} has size {s}, which does not broadcast with "
                    f"size {old} seen before"
                )
            sizes[c] = max(old, s) if 0 not in (old, s) else 0
    if not arrow:
        rhs = "..." + "".join(sorted(c for c, n in counts.items() if n == 1))
    shape: tuple[int, ...] = ()
    for c in rhs.replace("...", "."):
        if c == ".":
            shape += ellipsis
        elif c not in sizes:
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the inputs")
        else:
            shape += (sizes[c],)
    return backend.empty(shape, backend.einsum_dtype(equation, [t.dtype for t in ts]), ts[0].device)


# ------------------------------------------------------------------ composites reading values
def histc(self: Tensor, bins: int = 100, min: Any = 0, max: Any = 0) -> Tensor:
    """``bins`` counts."""
    if bins <= 0:
        raise RuntimeError(f"histc(): bins must be > 0, but got {bins} for dimension 0")
    if float(min) > float(max):
        raise RuntimeError("histc: max must be larger than min")
    return backend.empty((bins,), self.dtype, self.device)


def bernoulli(
    self: Tensor, p: float | None = None, generator: tc.Generator | None = None
) -> Tensor:
    """One draw per probability (of ``self``, or ``p`` for every element)."""
    return backend.empty(tuple(self.shape), self.dtype, self.device)


def multinomial(
    self: Tensor, num_samples: int, replacement: bool = False, generator: Any = None
) -> Tensor:
    """``num_samples`` int64 indices per row."""
    if self.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim, got {self.ndim}-dim input")
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: {self.dtype.name}"
        )
    if num_samples <= 0:
        raise RuntimeError(f"cannot sample n_sample <= 0 samples (got {num_samples})")
    if not replacement and num_samples > self.shape[-1]:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    return backend.empty((*self.shape[:-1], num_samples), tc.int64, self.device)


def _triangle(row: int, col: int, offset: int, dtype: Any, device: Any, lower: bool) -> Tensor:
    if row < 0 or col < 0:
        which, value = ("row", row) if row < 0 else ("col", col)
        raise RuntimeError(f"{which} must be non-negative, got{value}")

    def below(k: int) -> int:
        # Elements with c - r <= k: row r holds min(col, r + k + 1) of them (none before
        # row ``start``, all ``col`` from row ``full``), summed in closed form since the
        # sizes may be huge.
        a = k + 1
        start = min(row, max(0, 1 - a))
        full = min(row, max(start, col - a))
        return (full - start) * (start + full - 1 + 2 * a) // 2 + (row - full) * col

    n = below(offset) if lower else row * col - below(offset - 1)
    return backend.empty((2, n), dtype or tc.int64, tc.device(device or "meta"))


def tril_indices(
    row: int, col: int, offset: int = 0, dtype: Any = None, device: Any = None
) -> Tensor:
    """The (2, N) shape of the lower triangle's coordinates."""
    return _triangle(row, col, offset, dtype, device, True)


def triu_indices(
    row: int, col: int, offset: int = 0, dtype: Any = None, device: Any = None
) -> Tensor:
    """The (2, N) shape of the upper triangle's coordinates."""
    return _triangle(row, col, offset, dtype, device, False)


def repeat_interleave(
    self: Tensor, repeats: Any = None, dim: int | None = None, output_size: int | None = None
) -> Tensor:
    """Repeating by a number, or by counts with ``output_size`` given (PyTorch's way to make
    it data-independent); counts without ``output_size`` give a length that depends on them."""
    counts = self if repeats is None else repeats
    if output_size is None and isinstance(counts, Tensor):
        raise data_dependent_error(
            "repeat_interleave",
            self,
            what="with a tensor of repeats, the length of its result",
            hint="pass output_size=, or repeat by an int",
        )
    if repeats is None:
        return backend.empty((output_size or 0,), self.dtype, self.device)
    shape = [self.numel()] if dim is None or self.ndim == 0 else list(self.shape)
    d = 0 if dim is None or self.ndim == 0 else backend.wrap_dim(dim, self.ndim)
    if isinstance(repeats, Tensor):
        if repeats.ndim > 1 or (repeats.ndim == 1 and repeats.shape[0] not in (1, shape[d])):
            raise RuntimeError("repeats must have the same size as input along dim")
        shape[d] = output_size or 0
    else:
        if isinstance(repeats, bool) or not isinstance(repeats, int):
            raise TypeError(
                "repeat_interleave(): argument 'repeats' must be int or Tensor, not "
                f"{type(repeats).__name__}"
            )
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        shape[d] *= repeats
    return backend.empty(tuple(shape), self.dtype, self.device)


def _quantile(
    op: str, self: Tensor, q: Any, dim: int | None, keepdim: bool, interpolation: str
) -> Tensor:
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
        if q.dtype is not self.dtype:
            raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor")
    elif not 0 <= q <= 1:
        raise RuntimeError(f"{op}() q must be in the range [0, 1] but got {q}")
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise RuntimeError(
            f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
            f"but got {interpolation}"
        )
    if self.numel() == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    # Laid out as the CPU's composite lays it out: the quantiles' dim innermost in memory,
    # moved to the front.
    n_q = (q.shape[0],) if isinstance(q, Tensor) and q.ndim == 1 else ()
    if dim is None:
        shape = (1,) * self.ndim if keepdim else ()
        return backend.empty(n_q + shape, self.dtype, self.device)
    d = backend.wrap_dim(dim, self.ndim)
    rest = tuple(s for i, s in enumerate(self.shape) if i != d)
    out = backend.empty(rest + n_q, self.dtype, self.device)
    if n_q:
        out = out.movedim(-1, 0)
    return out.unsqueeze(d + len(n_q)) if keepdim and self.ndim else out


def quantile(
    self: Tensor,
    q: Any,
    dim: int | None = None,
    keepdim: bool = False,
    interpolation: str = "linear",
) -> Tensor:
    """The quantiles' shape: ``q``'s dim first, then the reduced shape."""
    return _quantile("quantile", self, q, dim, keepdim, interpolation)


def nanquantile(
    self: Tensor,
    q: Any,
    dim: int | None = None,
    keepdim: bool = False,
    interpolation: str = "linear",
) -> Tensor:
    """The quantiles' shape, as :func:`quantile`."""
    return _quantile("nanquantile", self, q, dim, keepdim, interpolation)


#: Operator name -> its shape rule on meta.
SHAPES: dict[str, Callable[..., Tensor]] = {
    "index": index,
    "einsum": einsum,
    "histc": histc,
    "bernoulli": bernoulli,
    "multinomial": multinomial,
    "tril_indices": tril_indices,
    "triu_indices": triu_indices,
    "repeat_interleave": repeat_interleave,
    "quantile": quantile,
    "nanquantile": nanquantile,
}
