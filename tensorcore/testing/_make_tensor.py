"""``make_tensor``: PyTorch's ``torch.testing.make_tensor``, a tensor of a shape and dtype
filled with random values from a range that suits the dtype."""

from __future__ import annotations

import math
import warnings
from typing import Any

from .. import dtypes as dt
from .._finfo import finfo, iinfo
from .._tensor import Size, Tensor
from ..ops import functions as ops

__all__ = ["make_tensor"]


def _shape(shape: tuple[Any, ...]) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def _bounds(dtype: dt.dtype, low: float | None, high: float | None) -> tuple[float, float]:
    """``[low, high)`` for ``dtype``: PyTorch's defaults (``[-9, 10)`` for signed integers,
    ``[0, 10)`` for unsigned ones, ``[-9, 9)`` for floating and complex parts), with a given
    bound clamped to the dtype's finite range."""
    if dtype.is_floating_point or dtype.is_complex:
        f = finfo(dtype.to_real() if dtype.is_complex else dtype)
        lo_d, hi_d, lowest, highest = -9.0, 9.0, float(f.min), float(f.max)
    else:
        i = iinfo(dtype)
        lo_d = 0.0 if i.min == 0 else -9.0
        hi_d, lowest, highest = 10.0, float(i.min), float(i.max)
    for name, v in (("low", low), ("high", high)):
        if v is not None and math.isnan(v):
            raise ValueError(f"`{name}` cannot be NaN, but got {name}={v}")
    lo = lo_d if low is None else min(max(low, lowest), highest)
    hi = hi_d if high is None else min(max(high, lowest), highest)
    floating = dtype.is_floating_point or dtype.is_complex
    if lo > hi or (lo == hi and not floating):
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    if lo == hi:
        warnings.warn(
            "Passing `low==high` to `tensorcore.testing.make_tensor` for floating or complex "
            "types is deprecated since 2.1 and will be removed in 2.3. Use "
            "`tensorcore.full(...)` instead.",
            FutureWarning,
            stacklevel=3,
        )
    return lo, hi


def make_tensor(
    *shape: Any,
    dtype: dt.dtype,
    device: Any,
    low: float | None = None,
    high: float | None = None,
    requires_grad: bool = False,
    noncontiguous: bool = False,
    exclude_zero: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """A tensor of ``shape`` (ints, or one sequence) with random values in ``[low, high)``
    (PyTorch's default range for the dtype when not given; booleans are random
    True/False). ``noncontiguous`` gives a view with gaps between elements (when there is
    more than one), ``exclude_zero`` replaces zeros by the dtype's smallest positive value
    (1 for integers), ``memory_format`` lays it out so.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.testing import make_tensor
    >>> t = make_tensor(2, 3, dtype=tc.int64, device="cpu", low=0, high=5)
    >>> t.shape, t.dtype, bool(((t >= 0) & (t < 5)).all())
    (tensorcore.Size([2, 3]), tensorcore.int64, True)
    >>> make_tensor((4,), dtype=tc.float32, device="cpu", noncontiguous=True).is_contiguous()
    False
    """
    size = _shape(shape)
    if requires_grad and not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(
            f"make_tensor: requires_grad=True is not supported for tensors of dtype {dtype}"
        )
    if noncontiguous and memory_format is not None:
        raise ValueError(
            "The parameters `noncontiguous` and `memory_format` are mutually exclusive, but "
            f"got noncontiguous={noncontiguous} and memory_format={memory_format}"
        )
    alloc = (
        (*size[:-1], 2 * size[-1]) if noncontiguous and size and Size(size).numel() > 1 else size
    )
    if dtype is dt.bool_:
        t = ops.randint(0, 2, alloc, device=device).to(dt.bool_)
    elif dtype.is_floating_point or dtype.is_complex:
        lo, hi = _bounds(dtype, low, high)
        real = dtype.to_real() if dtype.is_complex else dtype
        parts = [ops.rand(alloc, dtype=dt.float64, device=device) * (hi - lo) + lo]
        if dtype.is_complex:
            parts.append(ops.rand(alloc, dtype=dt.float64, device=device) * (hi - lo) + lo)
            t = ops.complex(parts[0].to(real), parts[1].to(real))
        else:
            t = parts[0].to(dtype)
    else:
        lo, hi = _bounds(dtype, low, high)
        t = ops.randint(math.ceil(lo), max(math.ceil(lo) + 1, math.ceil(hi)), alloc, device=device)
        t = t.to(dtype)
    if exclude_zero:
        if dtype is dt.bool_:
            t = ops.ones_like(t)
        else:
            tiny: Any = 1
            if dtype.is_floating_point or dtype.is_complex:
                tiny = float(finfo(dtype.to_real() if dtype.is_complex else dtype).tiny)
                if dtype.is_complex:
                    tiny = complex(tiny, tiny)
            t = ops.where(t == 0, ops.full((), tiny, dtype=dtype, device=device), t)
    if alloc != size:
        t = t[..., ::2]
    elif memory_format is not None:
        t = t.clone(memory_format=memory_format)
    if requires_grad:
        t.requires_grad_(True)
    return t
