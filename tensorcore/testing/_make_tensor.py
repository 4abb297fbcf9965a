"""``make_tensor``: PyTorch's ``torch.testing.make_tensor``, random test inputs of a shape,
dtype and device (the values come from tensorcore's generator, not PyTorch's)."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["make_tensor"]


def make_tensor(
    *shape: Any,
    dtype: Any,
    device: Any,
    low: float | None = None,
    high: float | None = None,
    requires_grad: bool = False,
    noncontiguous: bool = False,
    exclude_zero: bool = False,
    memory_format: Any = None,
) -> Any:
    """A random tensor for tests, as PyTorch's ``torch.testing.make_tensor``: uniform in
    ``[low, high)`` (by default ``[-9, 9)`` for floating and complex parts, ``[-9, 10)`` for
    integers, ``[0, 10)`` for uint8), random booleans for ``bool``.

    ``noncontiguous=True`` returns a strided view of a larger tensor, ``exclude_zero=True``
    replaces zeros (by 1 for integers, the dtype's smallest normal number for floats).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.testing import make_tensor
    >>> t = make_tensor((2, 3), dtype=tc.float32, device="cpu", low=-1, high=1)
    >>> t.shape, t.dtype, bool(((t >= -1) & (t < 1)).all())
    (tensorcore.Size([2, 3]), tensorcore.float32, True)
    >>> make_tensor(4, dtype=tc.float64, device="cpu", noncontiguous=True).is_contiguous()
    False
    """
    import tensorcore as tc

    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if low is not None and high is not None and low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    for name, v in (("low", low), ("high", high)):
        if v is not None and math.isnan(v):
            raise ValueError(f"`{name}` cannot be NaN, but got {name}={v}")
    if dtype is tc.bool:
        t = tc.randint(0, 2, shape, device=device).to(tc.bool)
    elif not (dtype.is_floating_point or dtype.is_complex):
        lo_default = 0 if dtype is tc.uint8 else -9
        lo = math.ceil(lo_default if low is None else low)
        hi = math.ceil(10 if high is None else high)
        t = tc.randint(lo, hi, shape, dtype=dtype, device=device)
    else:
        flo = -9.0 if low is None else float(low)
        fhi = 9.0 if high is None else float(high)
        real = dtype.to_real() if dtype.is_complex else dtype
        t = tc.empty(shape, dtype=real, device=device).uniform_(flo, fhi)
        if dtype.is_complex:
            t = tc.complex(t, tc.empty(shape, dtype=real, device=device).uniform_(flo, fhi))
    if exclude_zero:
        fill = 1 if not (dtype.is_floating_point or dtype.is_complex) else tc.finfo(dtype).tiny
        t = tc.where(t == 0, tc.full_like(t, fill), t)
    if noncontiguous and t.numel() > 1:
        t = tc.repeat_interleave(t, 2, dim=-1)[..., ::2]
    elif memory_format is not None:
        t = t.clone(memory_format=memory_format)
    if requires_grad:
        t.requires_grad_()
    return t
