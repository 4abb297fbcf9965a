"""``tensorcore.array_api``: the Python array API standard (revision 2024.12) over tensorcore.

``tensorcore`` itself keeps PyTorch's names and semantics (``dim``, ``keepdim``, ``max``
returning values and indices, ``sum(dim=())`` reducing everything...). The standard disagrees
with PyTorch on some of them, so it lives in this separate namespace, which
``Tensor.__array_namespace__()`` returns: libraries written against the standard (SciPy,
scikit-learn, through ``array_api_compat``) find it from any tensor. Its functions take and
return ordinary tensorcore tensors, on the input's device, and gradients flow through them.
Where a standard function means exactly what a tensorcore function means, the namespace
holds that very function, so it costs nothing extra. ``docs/array-api.md`` explains the
choice and lists the differences.

Examples
--------
>>> import tensorcore as tc
>>> x = tc.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> xp = x.__array_namespace__()
>>> xp.sum(x, axis=0).tolist(), xp.max(x).item()
([4.0, 6.0], 4.0)
>>> xp.concat([x, x], axis=1).shape
tensorcore.Size([2, 4])
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import tensorcore as _tc
from tensorcore import dtypes as _dt
from tensorcore._finfo import finfo as _tc_finfo
from tensorcore._finfo import iinfo as _tc_iinfo
from tensorcore._tensor import Tensor as _Tensor

from ._info import __array_namespace_info__

__array_api_version__ = "2024.12"

# ------------------------------------------------------------------ dtypes and constants
bool = _dt.bool_
int8, int16, int32, int64 = _dt.int8, _dt.int16, _dt.int32, _dt.int64
uint8 = _dt.uint8
float32, float64 = _dt.float32, _dt.float64
complex64, complex128 = _dt.complex64, _dt.complex128

e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
newaxis = None

_STANDARD_DTYPES = (bool, int8, int16, int32, int64, uint8, float32, float64, complex64, complex128)


# ------------------------------------------------------------------ helpers
def _is_array(x: Any) -> builtins.bool:
    return isinstance(x, _Tensor)


def _axis_tuple(axis: Any, ndim: int, fn: str) -> tuple[int, ...]:
    """``axis`` (None, an int or a sequence) as a tuple of non-negative, distinct axes."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for a in axes:
        a = operator.index(a)
        if not -builtins.max(ndim, 1) <= a < builtins.max(ndim, 1):
            raise IndexError(f"{fn}(): axis {a} is out of bounds for an array of {ndim} dimensions")
        out.append(a % builtins.max(ndim, 1))
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}(): repeated axis in {axes}")
    return tuple(out)


def _standard_dtype(d1: _dt.dtype, d2: _dt.dtype) -> _dt.dtype:
    return _dt.promote_types(d1, d2)


def _promote(x1: Any, x2: Any) -> tuple[Any, Any]:
    """Cast two tensors to their common dtype by the standard's rules, which (unlike
    PyTorch's) give a zero-dimensional array the same say as any other array."""
    d1, d2 = x1._dtype, x2._dtype
    if d1 is d2:
        return x1, x2
    d = _dt.promote_types(d1, d2)
    return (x1 if d1 is d else x1.to(d)), (x2 if d2 is d else x2.to(d))


def _binary(name: str, fn: Callable[[Any, Any], Any], doc: str) -> Callable[[Any, Any], Any]:
    def f(x1: Any, x2: Any, /) -> Any:
        if isinstance(x1, _Tensor) and isinstance(x2, _Tensor) and x1._dtype is not x2._dtype:
            x1, x2 = _promote(x1, x2)
        elif not isinstance(x1, _Tensor):
            if not isinstance(x2, _Tensor):
                raise TypeError(f"{name}(): at least one argument must be an array")
            x1 = _scalar_as(x1, x2, name)
        elif not isinstance(x2, _Tensor):
            x2 = _scalar_as(x2, x1, name)
        return fn(x1, x2)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


def _scalar_as(s: Any, x: Any, name: str) -> Any:
    """A Python scalar beside an array: a zero-dimensional array of the array's dtype when
    their kinds agree (the standard's rule), else left to the operator's promotion."""
    if s.__class__ is builtins.bool or s.__class__ is int or s.__class__ is float:
        return s
    if isinstance(s, complex):
        return s
    raise TypeError(f"{name}(): expected an array or a Python scalar, got {type(s).__name__}")


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
    if isinstance(start, complex) or isinstance(stop, complex):
        dtype = dtype or _dt.complex64 if _dt.get_default_dtype() is _dt.float32 else _dt.complex128
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


def _shape(shape: Any) -> tuple[int, ...]:
    return (shape,) if isinstance(shape, int) else tuple(shape)


# ------------------------------------------------------------------ data types
def astype(x: Any, dtype: Any, /, *, copy: builtins.bool = True, device: Any = None) -> Any:
    """``x`` converted to ``dtype`` (and moved to ``device``); a copy unless ``copy`` is
    False and nothing changes."""
    return x.to(dtype=dtype, device=device, copy=copy)


def can_cast(from_: Any, to: Any, /) -> builtins.bool:
    """Whether the standard's promotion table turns ``from_`` (a dtype or an array) into
    ``to``: only within a kind (bool; integers; real and complex floating), never across.

    Examples
    --------
    >>> import tensorcore.array_api as xp
    >>> xp.can_cast(xp.int8, xp.int16), xp.can_cast(xp.int8, xp.float32)
    (True, False)
    """
    f = from_._dtype if isinstance(from_, _Tensor) else from_
    if f is to:
        return True
    if _kind_group(f) != _kind_group(to):
        return False
    return _dt.promote_types(f, to) is to


def _kind_group(d: _dt.dtype) -> int:
    return 2 if d._category >= _dt.FLOATING else d._category


class finfo(_tc_finfo):
    """Machine limits of a floating dtype, with ``dtype`` the (real) dtype object, as the
    standard asks (``tensorcore.finfo`` gives its name, as PyTorch does).

    Examples
    --------
    >>> import tensorcore.array_api as xp
    >>> xp.finfo(xp.float32).dtype
    tensorcore.float32
    """

    __slots__ = ()

    def __init__(self, type: Any, /) -> None:
        super().__init__(type)
        self.dtype = _dt.by_name[self.dtype]


class iinfo(_tc_iinfo):
    """Machine limits of an integer dtype, with ``dtype`` the dtype object."""

    __slots__ = ()

    def __init__(self, type: Any, /) -> None:
        super().__init__(type)
        self.dtype = _dt.by_name[self.dtype]


_KINDS = {
    "bool": lambda d: d is _dt.bool_,
    "signed integer": lambda d: d._category == _dt.INTEGRAL and d.is_signed,
    "unsigned integer": lambda d: d._category == _dt.INTEGRAL and not d.is_signed,
    "integral": lambda d: d._category == _dt.INTEGRAL,
    "real floating": lambda d: d._category == _dt.FLOATING,
    "complex floating": lambda d: d._category == _dt.COMPLEX,
    "numeric": lambda d: d is not _dt.bool_,
}


def isdtype(dtype: Any, kind: Any) -> builtins.bool:
    """Whether ``dtype`` is of ``kind``: a dtype, a kind name ("bool", "signed integer",
    "unsigned integer", "integral", "real floating", "complex floating", "numeric") or a
    tuple of them.

    Examples
    --------
    >>> import tensorcore.array_api as xp
    >>> xp.isdtype(xp.int8, "integral"), xp.isdtype(xp.float32, ("bool", xp.float64))
    (True, False)
    """
    if not isinstance(dtype, _dt.dtype):
        raise TypeError(f"isdtype(): expected a dtype, got {type(dtype).__name__}")
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, _dt.dtype):
        return dtype is kind
    if isinstance(kind, str):
        test = _KINDS.get(kind)
        if test is None:
            raise ValueError(f"isdtype(): unknown kind {kind!r}")
        return test(dtype)
    raise TypeError(
        f"isdtype(): kind must be a dtype, a string or a tuple, got {type(kind).__name__}"
    )


def result_type(*arrays_and_dtypes: Any) -> Any:
    """The dtype the standard's promotion rules give these arrays, dtypes and Python
    scalars (a scalar takes the dtype of the arrays when its kind fits)."""
    dts = [a._dtype if isinstance(a, _Tensor) else a for a in arrays_and_dtypes]
    out = None
    scalars = []
    for d in dts:
        if isinstance(d, _dt.dtype):
            out = d if out is None else _dt.promote_types(out, d)
        elif isinstance(d, (builtins.bool, int, float, complex)):
            scalars.append(d)
        else:
            raise TypeError(
                f"result_type(): expected arrays, dtypes or scalars, got {type(d).__name__}"
            )
    if out is None:
        if not scalars:
            raise ValueError("result_type(): at least one array or dtype is required")
        return _dt.result_type(*scalars)
    for s in scalars:
        out = _dt.result_type(_Proxy(out), s)
    return out


class _Proxy:
    """A dimensioned stand-in for a dtype in ``dtypes.result_type`` (no tensor needed)."""

    __slots__ = ("_dtype", "_shape")

    def __init__(self, d: _dt.dtype) -> None:
        self._dtype = d
        self._shape = (1,)


# ------------------------------------------------------------------ elementwise
abs = _tc.abs
acos = _tc.acos
asin = _tc.asin
atan = _tc.atan
ceil = _tc.ceil
conj = _tc.conj
cos = _tc.cos
cosh = _tc.cosh
exp = _tc.exp
expm1 = _tc.expm1
floor = _tc.floor
isfinite = _tc.isfinite
isinf = _tc.isinf
isnan = _tc.isnan
log = _tc.log
log1p = _tc.log1p
log2 = _tc.log2
log10 = _tc.log10
logical_not = _tc.logical_not
negative = _tc.neg
reciprocal = _tc.reciprocal
sign = _tc.sign
sin = _tc.sin
sinh = _tc.sinh
sqrt = _tc.sqrt
square = _tc.square
tan = _tc.tan
tanh = _tc.tanh
trunc = _tc.trunc
bitwise_invert = _tc.bitwise_not


def real(x: Any, /) -> Any:
    """The real part (a copy of a real array)."""
    return _tc.real(x).clone() if x._dtype._category == _dt.COMPLEX else x.clone()


def imag(x: Any, /) -> Any:
    """The imaginary part (zeros for a real array)."""
    return _tc.imag(x).clone() if x._dtype._category == _dt.COMPLEX else _tc.zeros_like(x)


def positive(x: Any, /) -> Any:
    """``+x``: a copy of ``x``."""
    if x._dtype is _dt.bool_:
        raise TypeError("positive(): bool arrays are not numeric")
    return x.clone()


def round(x: Any, /) -> Any:
    """Rounds half to even."""
    return _tc.round(x) if x._dtype._category >= _dt.FLOATING else x.clone()


def clip(x: Any, /, min: Any = None, max: Any = None) -> Any:
    """``x`` limited to ``[min, max]`` (either bound may be None, or both: a copy)."""
    if min is None and max is None:
        return x.clone()
    out = _tc.clamp(x, min, max)
    return out if out._dtype is x._dtype else out.to(x._dtype)


_BINARY: dict[str, tuple[Callable[[Any, Any], Any], str]] = {
    "add": (_tc.add, "``x1 + x2`` elementwise."),
    "subtract": (_tc.sub, "``x1 - x2`` elementwise."),
    "multiply": (_tc.mul, "``x1 * x2`` elementwise."),
    "divide": (_tc.div, "``x1 / x2`` elementwise (true division)."),
    "floor_divide": (_tc.floor_divide, "``x1 // x2`` elementwise."),
    "remainder": (_tc.remainder, "``x1 % x2`` elementwise (the sign of ``x2``)."),
    "pow": (_tc.pow, "``x1 ** x2`` elementwise."),
    "atan2": (_tc.atan2, "The arctangent of ``x1 / x2``, in the quadrant of ``(x2, x1)``."),
    "maximum": (_tc.maximum, "The larger of ``x1`` and ``x2`` elementwise (NaN propagates)."),
    "minimum": (_tc.minimum, "The smaller of ``x1`` and ``x2`` elementwise (NaN propagates)."),
    "equal": (_tc.eq, "``x1 == x2`` elementwise."),
    "not_equal": (_tc.ne, "``x1 != x2`` elementwise."),
    "less": (_tc.lt, "``x1 < x2`` elementwise."),
    "less_equal": (_tc.le, "``x1 <= x2`` elementwise."),
    "greater": (_tc.gt, "``x1 > x2`` elementwise."),
    "greater_equal": (_tc.ge, "``x1 >= x2`` elementwise."),
    "logical_and": (_tc.logical_and, "Logical AND elementwise."),
    "logical_or": (_tc.logical_or, "Logical OR elementwise."),
    "logical_xor": (_tc.logical_xor, "Logical XOR elementwise."),
    "bitwise_and": (_tc.bitwise_and, "Bitwise AND elementwise."),
    "bitwise_or": (_tc.bitwise_or, "Bitwise OR elementwise."),
    "bitwise_xor": (_tc.bitwise_xor, "Bitwise XOR elementwise."),
    "bitwise_left_shift": (_tc.bitwise_left_shift, "``x1 << x2`` elementwise."),
    "bitwise_right_shift": (_tc.bitwise_right_shift, "``x1 >> x2`` elementwise."),
}
for _name, (_fn, _doc) in _BINARY.items():
    globals()[_name] = _binary(_name, _fn, _doc)
del _name, _fn, _doc

# Elementwise functions that tensorcore provides under PyTorch's names only when the
# operator exists (they join as the operator table grows).
for _name, _torch in [
    ("acosh", "acosh"),
    ("asinh", "asinh"),
    ("atanh", "atanh"),
    ("signbit", "signbit"),
]:
    if hasattr(_tc, _torch):
        globals()[_name] = getattr(_tc, _torch)
for _name, _torch in [
    ("copysign", "copysign"),
    ("hypot", "hypot"),
    ("logaddexp", "logaddexp"),
    ("nextafter", "nextafter"),
]:
    if hasattr(_tc, _torch):
        globals()[_name] = _binary(_name, getattr(_tc, _torch), getattr(_tc, _torch).__doc__ or "")
del _name, _torch


# ------------------------------------------------------------------ linear algebra
def matmul(x1: Any, x2: Any, /) -> Any:
    """The matrix product (with the standard's promotion)."""
    if x1._dtype is not x2._dtype:
        x1, x2 = _promote(x1, x2)
    return _tc.matmul(x1, x2)


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
    return (a * x2).sum(axis)


# ------------------------------------------------------------------ manipulation
def broadcast_arrays(*arrays: Any) -> list[Any]:
    """The arrays broadcast against each other (views)."""
    shape = _broadcast_shapes([a.shape for a in arrays])
    return [a.expand(shape) for a in arrays]


def _broadcast_shapes(shapes: Sequence[Sequence[int]]) -> tuple[int, ...]:
    nd = builtins.max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        for i, n in enumerate(s, nd - len(s)):
            if n != out[i]:
                if out[i] == 1:
                    out[i] = n
                elif n != 1:
                    raise ValueError(
                        f"shapes {', '.join(str(tuple(t)) for t in shapes)} cannot be broadcast"
                    )
    return tuple(out)


def broadcast_to(x: Any, /, shape: Any) -> Any:
    """``x`` broadcast to ``shape`` (a view)."""
    shape = _shape(shape)
    if _broadcast_shapes([x.shape, shape]) != shape:
        raise ValueError(f"broadcast_to(): cannot broadcast {tuple(x.shape)} to {shape}")
    return x.expand(shape)


def concat(arrays: Any, /, *, axis: int | None = 0) -> Any:
    """The arrays joined along ``axis`` (flattened first when ``axis`` is None)."""
    arrays = list(arrays)
    d = result_type(*arrays)
    arrays = [a if a._dtype is d else a.to(d) for a in arrays]
    if axis is None:
        return _tc.cat([a.reshape(-1) for a in arrays])
    return _tc.cat(arrays, axis)


def stack(arrays: Any, /, *, axis: int = 0) -> Any:
    """The arrays joined along a new ``axis``."""
    arrays = list(arrays)
    d = result_type(*arrays)
    return _tc.stack([a if a._dtype is d else a.to(d) for a in arrays], axis)


def expand_dims(x: Any, /, *, axis: int = 0) -> Any:
    """``x`` with a new axis of size one at ``axis`` (a view)."""
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise IndexError(f"expand_dims(): axis {axis} is out of bounds for {x.ndim + 1} dimensions")
    return x.unsqueeze(axis)


def flip(x: Any, /, *, axis: Any = None) -> Any:
    """``x`` with the order of elements along ``axis`` (all axes when None) reversed."""
    return _tc.flip(x, _axis_tuple(axis, x.ndim, "flip") if x.ndim else ())


def moveaxis(x: Any, source: Any, destination: Any, /) -> Any:
    """``x`` with axes moved from ``source`` to ``destination`` (a view)."""
    src = _axis_tuple(source, x.ndim, "moveaxis")
    dst = _axis_tuple(destination, x.ndim, "moveaxis")
    if len(src) != len(dst):
        raise ValueError("moveaxis(): source and destination must have the same length")
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return x.permute(*order)


def permute_dims(x: Any, /, axes: Any) -> Any:
    """``x`` with its axes permuted (a view)."""
    axes = tuple(axes)
    if len(axes) != x.ndim or sorted(a % builtins.max(x.ndim, 1) for a in axes) != list(
        range(x.ndim)
    ):
        raise ValueError(f"permute_dims(): {axes} is not a permutation of {x.ndim} axes")
    return x.permute(*axes)


def repeat(x: Any, repeats: Any, /, *, axis: int | None = None) -> Any:
    """Each element repeated ``repeats`` times (an int or a 1-D integer array) along
    ``axis`` (the flattened array when None)."""
    if axis is None:
        x = x.reshape(-1)
        axis = 0
    if isinstance(repeats, _Tensor):
        counts = [int(r) for r in repeats.tolist()]
    else:
        counts = [operator.index(repeats)]
    n = x.shape[axis]
    if len(counts) == 1:
        counts = counts * n
    if len(counts) != n:
        raise ValueError(f"repeat(): {len(counts)} repeats for an axis of size {n}")
    if builtins.any(c < 0 for c in counts):
        raise ValueError("repeat(): repeats must be non-negative")
    index = [i for i, c in enumerate(counts) for _ in range(c)]
    return _tc.index_select(x, axis, _tc.tensor(index, dtype=_dt.int64, device=x.device))


def reshape(x: Any, /, shape: Any, *, copy: builtins.bool | None = None) -> Any:
    """``x`` with a new shape: a view when possible (``copy=False`` raises otherwise)."""
    shape = _shape(shape)
    if copy:
        return x.reshape(shape).clone()
    if copy is False:
        try:
            return x.view(shape)
        except RuntimeError as exc:
            raise ValueError(f"reshape(): copy=False, but a view is impossible: {exc}") from None
    return x.reshape(shape)


def roll(x: Any, /, shift: Any, *, axis: Any = None) -> Any:
    """Elements shifted by ``shift`` along ``axis`` (the flattened array when None)."""
    if axis is None:
        return _tc.roll(x, shift)
    return _tc.roll(x, shift, axis)


def squeeze(x: Any, /, axis: Any) -> Any:
    """``x`` without the size-one axes ``axis`` (a ``ValueError`` for an axis of another
    size)."""
    axes = _axis_tuple(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze(): axis {a} has size {x.shape[a]}, not 1")
    return _tc.squeeze(x, axes) if axes else x.view(x.shape)


def tile(x: Any, repetitions: Any, /) -> Any:
    """``x`` repeated ``repetitions`` times along each axis."""
    return _tc.tile(x, tuple(repetitions))


def unstack(x: Any, /, *, axis: int = 0) -> tuple[Any, ...]:
    """The slices of ``x`` along ``axis`` (views)."""
    if x.ndim == 0:
        raise ValueError("unstack(): x must have at least one dimension")
    return tuple(_tc.unbind(x, axis))


# ------------------------------------------------------------------ indexing
def take(x: Any, indices: Any, /, *, axis: int | None = None) -> Any:
    """Elements of ``x`` at the 1-D integer ``indices`` along ``axis`` (``axis`` may be
    omitted for a 1-D ``x``)."""
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take(): axis is required for arrays of more than one dimension")
        axis = 0
    n = x.shape[axis]
    idx = _tc.where(indices < 0, indices + n, indices) if indices._dtype.is_signed else indices
    return _tc.index_select(x, axis, idx)


def take_along_axis(x: Any, indices: Any, /, *, axis: int = -1) -> Any:
    """Elements of ``x`` at ``indices`` along ``axis`` (``indices`` broadcast against ``x``
    over the other axes)."""
    if x.ndim != indices.ndim:
        raise ValueError("take_along_axis(): x and indices must have the same number of axes")
    axis = axis % x.ndim
    shape = list(_broadcast_shapes([x.shape[:axis] + (1,) + x.shape[axis + 1 :], indices.shape]))
    xs = list(shape)
    xs[axis] = x.shape[axis]
    n = x.shape[axis]
    idx = _tc.where(indices < 0, indices + n, indices)
    return _tc.gather(x.expand(xs), axis, idx.expand(shape))


# ------------------------------------------------------------------ searching
def argmax(x: Any, /, *, axis: int | None = None, keepdims: builtins.bool = False) -> Any:
    """Index of the first maximum along ``axis`` (over the flattened array when None)."""
    if axis is None:
        out = _tc.argmax(x.reshape(-1))
        return out.reshape((1,) * x.ndim) if keepdims else out
    return _tc.argmax(x, axis, keepdims)


def argmin(x: Any, /, *, axis: int | None = None, keepdims: builtins.bool = False) -> Any:
    """Index of the first minimum along ``axis`` (over the flattened array when None)."""
    if axis is None:
        out = _tc.argmin(x.reshape(-1))
        return out.reshape((1,) * x.ndim) if keepdims else out
    return _tc.argmin(x, axis, keepdims)


def count_nonzero(x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Any:
    """The number of nonzero elements along ``axis`` (default integer dtype)."""
    return sum((x != 0), axis=axis, keepdims=keepdims, dtype=_dt.int64)


def nonzero(x: Any, /) -> tuple[Any, ...]:
    """The indices of the nonzero elements, one array per axis (a ``ValueError`` for a
    zero-dimensional array)."""
    if x.ndim == 0:
        raise ValueError("nonzero(): zero-dimensional arrays are not allowed")
    return tuple(_tc.nonzero(x).unbind(1))


def searchsorted(x1: Any, x2: Any, /, *, side: str = "left", sorter: Any = None) -> Any:
    """Indices where the elements of ``x2`` would be inserted into the sorted 1-D ``x1``
    (the first suitable position with ``side="left"``, the last with "right")."""
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted(): side must be 'left' or 'right', got {side!r}")
    if x1.ndim != 1:
        raise ValueError("searchsorted(): x1 must be one-dimensional")
    if sorter is not None:
        x1 = take(x1, sorter)
    x1, x2 = _promote(x1, x2)
    if hasattr(_tc, "searchsorted"):
        return _tc.searchsorted(x1, x2, right=side == "right")
    flat = x2.reshape(-1, 1)
    cmp = (x1 <= flat) if side == "right" else (x1 < flat)
    return cmp.sum(1).reshape(x2.shape)


def where(condition: Any, x1: Any, x2: Any, /) -> Any:
    """Elements of ``x1`` where ``condition`` holds, else of ``x2`` (either may be a
    Python scalar)."""
    if isinstance(x1, _Tensor) and isinstance(x2, _Tensor) and x1._dtype is not x2._dtype:
        x1, x2 = _promote(x1, x2)
    return _tc.where(condition, x1, x2)


# ------------------------------------------------------------------ sets
def unique_values(x: Any, /) -> Any:
    """The distinct values of ``x``, sorted (NaNs are each distinct)."""
    return unique_all(x).values


def unique_counts(x: Any, /) -> Any:
    """``(values, counts)``: the distinct values and how often each occurs."""
    r = unique_all(x)
    return _UniqueCounts(r.values, r.counts)


def unique_inverse(x: Any, /) -> Any:
    """``(values, inverse_indices)``: the distinct values, and for each element of ``x`` the
    index of its value (shaped like ``x``)."""
    r = unique_all(x)
    return _UniqueInverse(r.values, r.inverse_indices)


def unique_all(x: Any, /) -> Any:
    """``(values, indices, inverse_indices, counts)`` of the distinct values of ``x``."""
    flat = x.reshape(-1)
    n = flat.shape[0]
    if n == 0:
        empty_i = _tc.empty((0,), dtype=_dt.int64, device=x.device)
        return _UniqueAll(flat.clone(), empty_i, empty_i.reshape(x.shape), empty_i)
    order = _tc.argsort(flat, stable=True)
    s = flat[order]
    if s._dtype._category >= _dt.FLOATING:
        nan_ = _tc.isnan(s)
        new = _tc.ones(n, dtype=_dt.bool_, device=x.device)
        new[1:] = (s[1:] != s[:-1]) | nan_[1:]
    else:
        new = _tc.ones(n, dtype=_dt.bool_, device=x.device)
        new[1:] = s[1:] != s[:-1]
    group = _tc.cumsum(new.to(_dt.int64), 0) - 1
    starts = _tc.nonzero(new).reshape(-1)
    values = s[starts]
    ends = _tc.cat([starts[1:], _tc.tensor([n], device=x.device)])
    counts = ends - starts
    inverse = _tc.empty(n, dtype=_dt.int64, device=x.device)
    inverse[order] = group
    return _UniqueAll(values, order[starts], inverse.reshape(x.shape), counts)


class _UniqueAll(NamedTuple):
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class _UniqueCounts(NamedTuple):
    values: Any
    counts: Any


class _UniqueInverse(NamedTuple):
    values: Any
    inverse_indices: Any


# ------------------------------------------------------------------ sorting
def argsort(
    x: Any, /, *, axis: int = -1, descending: builtins.bool = False, stable: builtins.bool = True
) -> Any:
    """Indices that sort ``x`` along ``axis`` (always stable: equal elements keep their
    order, in either direction)."""
    if x.ndim == 0:
        return _tc.zeros((), dtype=_dt.int64, device=x.device)
    return _tc.argsort(x, axis, descending, stable=True)


def sort(
    x: Any, /, *, axis: int = -1, descending: builtins.bool = False, stable: builtins.bool = True
) -> Any:
    """``x`` sorted along ``axis``."""
    if x.ndim == 0:
        return x.clone()
    return _tc.sort(x, axis, descending, stable=True).values


# ------------------------------------------------------------------ statistics
def _reduce(
    fn: Callable[..., Any], x: Any, axis: Any, keepdims: builtins.bool, name: str, **kw: Any
) -> Any:
    axes = _axis_tuple(axis, x.ndim, name)
    if axis is not None and not axes:  # axis=(): nothing is reduced
        out = x.clone()
        dtype = kw.get("dtype")
        return out if dtype is None else out.to(dtype)
    if x.ndim == 0:
        return fn(x, **kw)
    return fn(x, axes, keepdims, **kw)


def _sum_dtype(x: Any, dtype: Any) -> Any:
    if dtype is None and x._dtype._category == _dt.INTEGRAL and x._dtype is not _dt.int64:
        return _dt.int64
    return dtype


def sum(x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: builtins.bool = False) -> Any:
    """The sum along ``axis`` (integers in the default integer dtype)."""
    return _reduce(_tc.sum, x, axis, keepdims, "sum", dtype=_sum_dtype(x, dtype))


def prod(x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: builtins.bool = False) -> Any:
    """The product along ``axis`` (integers in the default integer dtype)."""
    axes = _axis_tuple(axis, x.ndim, "prod")
    dtype = _sum_dtype(x, dtype)
    if axis is not None and not axes:
        return x.clone() if dtype is None else x.to(dtype, copy=True)
    out = x if dtype is None else x.to(dtype)
    for a in sorted(axes, reverse=True):
        out = _tc.prod(out, a, keepdims)
    return out


def max(x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Any:
    """The largest element along ``axis`` (a ``ValueError`` for an empty reduction)."""
    return _reduce(_tc.amax, x, axis, keepdims, "max")


def min(x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Any:
    """The smallest element along ``axis``."""
    return _reduce(_tc.amin, x, axis, keepdims, "min")


def mean(x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Any:
    """The arithmetic mean along ``axis``."""
    return _reduce(_tc.mean, x, axis, keepdims, "mean")


def _var_like(
    fn: Callable[..., Any], x: Any, axis: Any, correction: Any, keepdims: Any, name: str
) -> Any:
    axes = _axis_tuple(axis, x.ndim, name)
    if axis is not None and not axes:
        return fn(x.unsqueeze(-1), -1, correction=correction, keepdim=False)
    if x.ndim == 0:
        return fn(x, correction=correction)
    return fn(x, axes, correction=correction, keepdim=keepdims)


def var(
    x: Any, /, *, axis: Any = None, correction: Any = 0.0, keepdims: builtins.bool = False
) -> Any:
    """The variance along ``axis``, dividing by ``N - correction``."""
    return _var_like(_tc.var, x, axis, correction, keepdims, "var")


def std(
    x: Any, /, *, axis: Any = None, correction: Any = 0.0, keepdims: builtins.bool = False
) -> Any:
    """The standard deviation along ``axis``, dividing by ``N - correction``."""
    return _var_like(_tc.std, x, axis, correction, keepdims, "std")


def _cumulative(
    fn: Callable[..., Any],
    x: Any,
    axis: int | None,
    dtype: Any,
    include_initial: builtins.bool,
    initial: int,
    name: str,
) -> Any:
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{name}(): axis is required for arrays of more than one dimension")
        if x.ndim == 0:
            raise ValueError(f"{name}(): zero-dimensional arrays are not allowed")
        axis = 0
    dtype = _sum_dtype(x, dtype)
    out = fn(x, axis, dtype=dtype)
    if include_initial:
        shape = list(out.shape)
        shape[axis] = 1
        out = _tc.cat([_tc.full(shape, initial, dtype=out._dtype, device=out.device), out], axis)
    return out


def cumulative_sum(
    x: Any,
    /,
    *,
    axis: int | None = None,
    dtype: Any = None,
    include_initial: builtins.bool = False,
) -> Any:
    """The running sum along ``axis`` (with a leading zero when ``include_initial``)."""
    return _cumulative(_tc.cumsum, x, axis, dtype, include_initial, 0, "cumulative_sum")


def cumulative_prod(
    x: Any,
    /,
    *,
    axis: int | None = None,
    dtype: Any = None,
    include_initial: builtins.bool = False,
) -> Any:
    """The running product along ``axis`` (with a leading one when ``include_initial``)."""
    return _cumulative(_tc.cumprod, x, axis, dtype, include_initial, 1, "cumulative_prod")


# ------------------------------------------------------------------ utility
def all(x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Any:
    """Whether every element along ``axis`` is true."""
    axes = _axis_tuple(axis, x.ndim, "all")
    if axis is not None and not axes:
        return x.to(_dt.bool_, copy=True)
    out = x
    for a in sorted(axes, reverse=True):
        out = _tc.all(out, a, keepdims)
    return out if axes else _tc.all(x)


def any(x: Any, /, *, axis: Any = None, keepdims: builtins.bool = False) -> Any:
    """Whether any element along ``axis`` is true."""
    axes = _axis_tuple(axis, x.ndim, "any")
    if axis is not None and not axes:
        return x.to(_dt.bool_, copy=True)
    out = x
    for a in sorted(axes, reverse=True):
        out = _tc.any(out, a, keepdims)
    return out if axes else _tc.any(x)


def diff(x: Any, /, *, axis: int = -1, n: int = 1, prepend: Any = None, append: Any = None) -> Any:
    """The ``n``-th forward difference along ``axis`` (after joining ``prepend`` and
    ``append``)."""
    if x.ndim == 0:
        raise ValueError("diff(): zero-dimensional arrays are not allowed")
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = concat(parts, axis=axis)
    for _ in range(n):
        m = x.shape[axis]
        x = x.narrow(axis, 1, builtins.max(m - 1, 0)) - x.narrow(axis, 0, builtins.max(m - 1, 0))
    return x


from . import fft, linalg  # noqa: E402  (the extensions use the functions above)

__all__ = [
    "__array_api_version__",
    "__array_namespace_info__",
    "abs",
    "acos",
    "add",
    "all",
    "any",
    "arange",
    "argmax",
    "argmin",
    "argsort",
    "asarray",
    "asin",
    "astype",
    "atan",
    "atan2",
    "bitwise_and",
    "bitwise_invert",
    "bitwise_left_shift",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "bool",
    "broadcast_arrays",
    "broadcast_to",
    "can_cast",
    "ceil",
    "clip",
    "complex64",
    "complex128",
    "concat",
    "conj",
    "cos",
    "cosh",
    "count_nonzero",
    "cumulative_prod",
    "cumulative_sum",
    "diff",
    "divide",
    "e",
    "empty",
    "empty_like",
    "equal",
    "exp",
    "expand_dims",
    "expm1",
    "eye",
    "fft",
    "finfo",
    "flip",
    "float32",
    "float64",
    "floor",
    "floor_divide",
    "from_dlpack",
    "full",
    "full_like",
    "greater",
    "greater_equal",
    "iinfo",
    "imag",
    "inf",
    "int8",
    "int16",
    "int32",
    "int64",
    "isdtype",
    "isfinite",
    "isinf",
    "isnan",
    "less",
    "less_equal",
    "linalg",
    "linspace",
    "log",
    "log1p",
    "log2",
    "log10",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "matmul",
    "matrix_transpose",
    "max",
    "maximum",
    "mean",
    "meshgrid",
    "min",
    "minimum",
    "moveaxis",
    "multiply",
    "nan",
    "negative",
    "newaxis",
    "nonzero",
    "not_equal",
    "ones",
    "ones_like",
    "permute_dims",
    "pi",
    "positive",
    "pow",
    "prod",
    "real",
    "reciprocal",
    "remainder",
    "repeat",
    "reshape",
    "result_type",
    "roll",
    "round",
    "searchsorted",
    "sign",
    "sin",
    "sinh",
    "sort",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "subtract",
    "sum",
    "take",
    "take_along_axis",
    "tan",
    "tanh",
    "tensordot",
    "tile",
    "tril",
    "triu",
    "trunc",
    "uint8",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
    "unstack",
    "var",
    "vecdot",
    "where",
    "zeros",
    "zeros_like",
]
