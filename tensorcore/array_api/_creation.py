"""Creation functions of the array API standard."""

from __future__ import annotations

import builtins
from typing import Any

import tensorcore as _tc
from tensorcore import dtypes as _dt
from tensorcore._tensor import Tensor as _Tensor

from ._common import _shape


# ------------------------------------------------------------------ creation
def asarray(
    obj: Any, /, *, dtype: Any = None, device: Any = None, copy: builtins.bool | None = None
) -> Any:
    """An array from ``obj`` (an array, a nested sequence of numbers, a scalar, or an object
    supporting DLPack or the buffer protocol).

    ``copy=True`` always copies, ``copy=False`` never does (a ``ValueError`` when it would
    have to), and ``copy=None`` copies only when needed.

    Examples
    --------
    >>> import tensorcore.array_api as xp
    >>> xp.asarray([[1, 2], [3, 4]], dtype=xp.float64).dtype
    tensorcore.float64
    """
    if isinstance(obj, _Tensor):
        same = (dtype is None or obj._dtype is dtype) and (
            device is None or obj._device == _tc.device(device)
        )
        if copy is False and not same:
            raise ValueError("asarray(): copy=False, but the dtype or device must change")
        if copy:
            return obj.to(dtype=dtype, device=device, copy=True)
        return obj if same else obj.to(dtype=dtype, device=device)
    if copy is False:
        if hasattr(obj, "__dlpack__"):
            out = _tc.from_dlpack(obj)
        elif isinstance(obj, (builtins.bool, int, float, complex, list, tuple)):
            raise ValueError("asarray(): copy=False, but a Python object must be copied")
        else:
            out = _tc.as_tensor(obj)
        if (dtype is not None and out._dtype is not dtype) or (
            device is not None and out._device != _tc.device(device)
        ):
            raise ValueError("asarray(): copy=False, but the dtype or device must change")
        return out
    if copy:
        return _tc.tensor(obj, dtype=dtype, device=device)
    if isinstance(obj, (builtins.bool, int, float, complex)) and dtype is None:
        return _tc.tensor(obj, device=device)
    return _tc.as_tensor(obj, dtype=dtype, device=device)


def arange(
    start: Any, /, stop: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None
) -> Any:
    """``[start, stop)`` in steps of ``step``; empty when the range holds no value.

    Examples
    --------
    >>> import tensorcore.array_api as xp
    >>> xp.arange(5).tolist(), xp.arange(1, 0, 1).shape
    ([0, 1, 2, 3, 4], tensorcore.Size([0]))
    """
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ValueError("arange(): step must be nonzero")
    if (stop - start) * step <= 0:
        if dtype is None:
            floats = builtins.any(isinstance(v, float) for v in (start, stop, step))
            dtype = _dt.get_default_dtype() if floats else _dt.int64
        return _tc.empty((0,), dtype=dtype, device=device)
    return _tc.arange(start, stop, step, dtype=dtype, device=device)


def empty(shape: Any, *, dtype: Any = None, device: Any = None) -> Any:
    """An uninitialised array of ``shape``."""
    return _tc.empty(_shape(shape), dtype=dtype, device=device)


def zeros(shape: Any, *, dtype: Any = None, device: Any = None) -> Any:
    """An array of zeros."""
    return _tc.zeros(_shape(shape), dtype=dtype, device=device)


def ones(shape: Any, *, dtype: Any = None, device: Any = None) -> Any:
    """An array of ones."""
    return _tc.ones(_shape(shape), dtype=dtype, device=device)


def full(shape: Any, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Any:
    """An array of ``shape`` filled with ``fill_value`` (its dtype follows the value's kind
    when ``dtype`` is None)."""
    if dtype is None and isinstance(fill_value, _Tensor):
        dtype = fill_value._dtype
    return _tc.full(_shape(shape), fill_value, dtype=dtype, device=device)


def empty_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> Any:
    """An uninitialised array like ``x``."""
    return _tc.empty_like(x, dtype=dtype, device=device)


def zeros_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> Any:
    """Zeros shaped like ``x``."""
    return _tc.zeros_like(x, dtype=dtype, device=device)


def ones_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> Any:
    """Ones shaped like ``x``."""
    return _tc.ones_like(x, dtype=dtype, device=device)


def full_like(x: Any, /, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Any:
    """An array shaped like ``x`` filled with ``fill_value``."""
    return _tc.full_like(x, fill_value, dtype=dtype, device=device)


def eye(
    n_rows: int, n_cols: int | None = None, /, *, k: int = 0, dtype: Any = None, device: Any = None
) -> Any:
    """Ones on the ``k``-th diagonal, zeros elsewhere.

    Examples
    --------
    >>> import tensorcore.array_api as xp
    >>> xp.eye(2, 3, k=1).tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    n_cols = n_rows if n_cols is None else n_cols
    if k == 0:
        return _tc.eye(n_rows, n_cols, dtype=dtype, device=device)
    out = _tc.zeros((n_rows, n_cols), dtype=dtype, device=device)
    if -n_rows < k < n_cols:
        out.diagonal(k).fill_(1)
    return out


def linspace(
    start: Any,
    stop: Any,
    /,
    num: int,
    *,
    dtype: Any = None,
    device: Any = None,
    endpoint: builtins.bool = True,
) -> Any:
    """``num`` evenly spaced values from ``start`` to ``stop`` (excluded when ``endpoint`` is
    False)."""
    if dtype is None and (isinstance(start, complex) or isinstance(stop, complex)):
        dtype = _dt.get_default_dtype().to_complex()
    if endpoint or num == 0:
        return _tc.linspace(start, stop, num, dtype=dtype, device=device)
    return _tc.linspace(start, stop, num + 1, dtype=dtype, device=device)[:-1]


def meshgrid(*arrays: Any, indexing: str = "xy") -> list[Any]:
    """Coordinate arrays from 1-D arrays (``indexing`` "xy", the default, or "ij")."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid(): indexing must be 'xy' or 'ij', got {indexing!r}")
    if not arrays:
        return []
    if len(arrays) == 1:
        return [arrays[0].reshape(-1).clone()]
    shape = [a.numel() for a in arrays]
    if indexing == "xy":
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, a in enumerate(arrays):
        axis = i
        if indexing == "xy" and i < 2:
            axis = 1 - i
        view = [1] * len(arrays)
        view[axis] = -1
        out.append(a.reshape(view).expand(shape))
    return out


def tril(x: Any, /, *, k: int = 0) -> Any:
    """The lower triangle of the last two axes (below the ``k``-th diagonal, included)."""
    return _tc.tril(x, k)


def triu(x: Any, /, *, k: int = 0) -> Any:
    """The upper triangle of the last two axes (above the ``k``-th diagonal, included)."""
    return _tc.triu(x, k)


def from_dlpack(x: Any, /, *, device: Any = None, copy: builtins.bool | None = None) -> Any:
    """An array from an object supporting DLPack, sharing its memory unless ``copy`` is True
    or ``device`` differs."""
    return _tc.from_dlpack(x, device=device, copy=copy)
