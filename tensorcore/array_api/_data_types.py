"""Data type functions of the array API standard."""

from __future__ import annotations

import builtins
from typing import Any

from tensorcore import dtypes as _dt
from tensorcore._finfo import finfo as _tc_finfo
from tensorcore._finfo import iinfo as _tc_iinfo
from tensorcore._tensor import Tensor as _Tensor


# ------------------------------------------------------------------ data types
def astype(x: Any, dtype: Any, /, *, copy: builtins.bool = True, device: Any = None) -> Any:
    """``x`` converted to ``dtype`` (and moved to ``device``); a copy unless ``copy`` is
    False and nothing changes."""
    if not isinstance(dtype, _dt.dtype) or not isinstance(x, _Tensor):
        what = "dtype must be a dtype" if isinstance(x, _Tensor) else "expected an array"
        bad = dtype if isinstance(x, _Tensor) else x
        raise TypeError(f"astype(): {what}, not {type(bad).__name__}")
    if device is None:
        if x._dtype is dtype:
            return x.clone() if copy else x
        return x.to(dtype)  # (a new tensor)
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
        out = _dt.result_type(out, s)  # (a dtype counts as a dimensioned operand)
    return out
