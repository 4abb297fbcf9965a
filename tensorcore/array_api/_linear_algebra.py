"""Linear algebra functions of the array API standard (the main namespace's)."""

from __future__ import annotations

import builtins
import math
import operator
from typing import Any

import tensorcore as _tc
from tensorcore import dtypes as _dt
from tensorcore._tensor import Tensor as _Tensor

from ._common import _promote, checked_arrays


# ------------------------------------------------------------------ linear algebra
def matmul(x1: Any, x2: Any, /) -> Any:
    """The matrix product (with the standard's promotion)."""
    if isinstance(x1, _Tensor) and isinstance(x2, _Tensor) and x1._dtype is not x2._dtype:
        x1, x2 = _promote(x1, x2)
    return _tc.matmul(x1, x2)  # (which names a non-tensor argument itself)


def matrix_transpose(x: Any, /) -> Any:
    """The transpose of the last two axes (a view)."""
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose(): x must have at least 2 dimensions, got {x.ndim}")
    return x.mT


def tensordot(x1: Any, x2: Any, /, *, axes: Any = 2) -> Any:
    """Sums the products of ``x1`` and ``x2`` over ``axes`` (an int: the last ``axes`` axes
    of ``x1`` with the first of ``x2``; or a pair of axis sequences)."""
    x1, x2 = _promote(x1, x2)
    if isinstance(axes, int):
        if axes < 0:
            raise ValueError("tensordot(): axes must be non-negative")
        a1 = list(range(x1.ndim - axes, x1.ndim))
        a2 = list(range(axes))
    else:
        a1 = [operator.index(a) for a in axes[0]]
        a2 = [operator.index(a) for a in axes[1]]
        if len(a1) != len(a2):
            raise ValueError("tensordot(): the two axis sequences must have the same length")
        a1 = [a % x1.ndim for a in a1]
        a2 = [a % x2.ndim for a in a2]
    for i, j in zip(a1, a2, strict=True):
        if x1.shape[i] != x2.shape[j] and x1.shape[i] != 1 and x2.shape[j] != 1:
            raise ValueError(
                f"tensordot(): contracted axes differ in size: {x1.shape[i]} and {x2.shape[j]}"
            )
    free1 = [i for i in range(x1.ndim) if i not in a1]
    free2 = [j for j in range(x2.ndim) if j not in a2]
    k = math.prod(builtins.max(x1.shape[i], x2.shape[j]) for i, j in zip(a1, a2, strict=True))
    sizes = [builtins.max(x1.shape[i], x2.shape[j]) for i, j in zip(a1, a2, strict=True)]
    p1 = x1.permute(*free1, *a1).expand(*[x1.shape[i] for i in free1], *sizes)
    p2 = x2.permute(*a2, *free2).expand(*sizes, *[x2.shape[j] for j in free2])
    m1 = p1.reshape(math.prod(x1.shape[i] for i in free1), k)
    m2 = p2.reshape(k, math.prod(x2.shape[j] for j in free2))
    return (m1 @ m2).reshape(*[x1.shape[i] for i in free1], *[x2.shape[j] for j in free2])


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """The dot product of vectors along ``axis`` (``x1`` conjugated when complex), with
    broadcasting over the other axes."""
    x1, x2 = _promote(x1, x2)
    nd = builtins.max(x1.ndim, x2.ndim)
    if not -nd <= axis < 0 and not 0 <= axis < builtins.min(x1.ndim, x2.ndim):
        raise ValueError(f"vecdot(): axis {axis} is out of bounds")
    if axis >= 0:
        axis -= nd
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(
            f"vecdot(): the vectors' sizes differ: {x1.shape[axis]} and {x2.shape[axis]}"
        )
    a = x1.conj() if x1._dtype._category == _dt.COMPLEX else x1
    return (a * x2).sum(axis, dtype=a._dtype)  # (integers keep their dtype, as in matmul)


checked_arrays(globals(), "matrix_transpose tensordot vecdot")
