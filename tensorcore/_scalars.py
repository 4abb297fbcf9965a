"""Python scalars meeting tensors: their conversion to the dtype an operator computes in.

A Python number that takes part in a pointwise operation (``x * 1.1``, ``x > 0.5``,
``tc.where(c, x, 300)``) is a "wrapped number" in PyTorch: it does not change the result
dtype of a tensor of its category, and it is converted to the compute dtype before the
kernel runs, with the rounding and wrapping of a cast:

- integers wrap modulo 2**bits into an integer dtype (``int8_tensor + 300`` adds 44), and
  round to nearest (ties to even) into a floating one;
- floats round to nearest into ``float32``, overflow to ``inf`` and underflow to 0 or a
  subnormal (an ``int32`` tensor ``logical_and`` ``1e-166`` computes in ``float32``, where
  ``1e-166`` is 0); ``float16`` and ``bfloat16`` are reached through ``float32``, as
  PyTorch's casts do;
- complex numbers convert each part.

PyTorch keeps a scalar in ``float32`` (its "opmath" type) where it multiplies or divides a
16-bit float tensor, which is more accurate: operators declared with ``opmath_scalars``
(``mul``, ``div``, ``floor_divide``, ``lerp``) do the same (:func:`scalar_dtype`).

The core converts in the pointwise frontend, so that a backend receives a Python scalar that
its compute dtype holds exactly, whatever its array library would do with an out-of-range
one. Only the frontend's fast path passes a scalar on unconverted, where the backend's own
conversion is the same (:data:`FAST_FLOAT`, :data:`FAST_INT`).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import Any

from . import dtypes as dt

__all__ = ["FAST_FLOAT", "FAST_INT", "convert_scalar", "scalar_dtype"]

_F32 = struct.Struct("<f")
_F16 = struct.Struct("<e")
_U32 = struct.Struct("<I")

#: The dtypes a Python float may meet unconverted on the fast path: their backends round it
#: to the dtype as the cast does (a float32 0-d array, or NumPy's weak scalar, does).
FAST_FLOAT = frozenset({dt.float32, dt.float64, dt.complex64, dt.complex128})
#: The range of Python ints that may meet each dtype unconverted on the fast path: those the
#: dtype holds (integers), or those a double holds exactly (a backend that goes through a
#: double then rounds once, as the cast from int64 does).
FAST_INT: dict[dt.dtype, tuple[int, int]] = {
    dt.uint8: (0, 2**8 - 1),
    dt.int8: (-(2**7), 2**7 - 1),
    dt.int16: (-(2**15), 2**15 - 1),
    dt.int32: (-(2**31), 2**31 - 1),
    dt.int64: (-(2**63), 2**63 - 1),
    **{d: (-(2**53), 2**53) for d in FAST_FLOAT},
}


def _f32(v: float) -> float:
    """``v`` rounded to float32 (to nearest, ties to even; ``inf`` past the largest)."""
    try:
        return _F32.unpack(_F32.pack(v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


def _f16(v: float) -> float:
    """``v`` rounded to float16 through float32 (PyTorch's ``Half(float)``)."""
    f = _f32(v)
    try:
        return _F16.unpack(_F16.pack(f))[0]
    except OverflowError:
        return math.copysign(math.inf, f)


def _bf16(v: float) -> float:
    """``v`` rounded to bfloat16 through float32: the upper 16 bits, rounded to nearest even
    (PyTorch's ``round_to_nearest_even``); NaN stays NaN."""
    f = _f32(v)
    if f != f:
        return f
    bits = _U32.unpack(_F32.pack(f))[0]
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return _F32.unpack(_U32.pack(bits & 0xFFFFFFFF))[0]


def _int_to_float(v: int, digits: int) -> float:
    """The integer ``v`` rounded to ``digits`` significant bits (ties to even), as a float
    (``inf`` where a double cannot hold it): one rounding, as the cast from int64 makes."""
    n = -v if v < 0 else v
    extra = n.bit_length() - digits
    if extra > 0:
        q = n >> extra
        r = n & ((1 << extra) - 1)
        half = 1 << (extra - 1)
        if r > half or (r == half and q & 1):
            q += 1
        n = q << extra
    try:
        f = float(n)
    except OverflowError:
        f = math.inf
    return -f if v < 0 else f


_Conv = Callable[[Any, str, bool], Any]


def _real(rnd: Callable[[float], float], digits: int, d: dt.dtype) -> _Conv:
    def conv(v: Any, name: str, checked: bool) -> Any:
        if isinstance(v, bool):
            return v
        if not isinstance(v, (int, float)):
            raise _not_a_number(v, name)
        if checked:  # PyTorch's checked conversion: a finite number past the largest float
            _checked(v, d, name)
        return rnd(_int_to_float(v, digits)) if isinstance(v, int) else rnd(v)

    return conv


def _checked(v: Any, d: dt.dtype, name: str) -> None:
    """``dt.check_scalar`` with the operator's name in front of its error."""
    try:
        dt.check_scalar(v, d)
    except RuntimeError as exc:
        raise RuntimeError(f"{name}(): {exc}") from None


def _not_a_number(v: Any, name: str) -> TypeError:
    return TypeError(f"{name}(): expected a Tensor or a Python number, got {type(v).__name__}")


def _complex(part: _Conv) -> _Conv:
    def conv(v: Any, name: str, checked: bool) -> Any:
        if isinstance(v, complex):
            return complex(part(v.real, name, checked), part(v.imag, name, checked))
        return part(v, name, checked)

    return conv


def _integer(d: dt.dtype) -> _Conv:
    bits = 8 * d.itemsize
    lo, hi = FAST_INT[d]
    mask = (1 << bits) - 1

    def conv(v: Any, name: str, checked: bool) -> Any:
        if isinstance(v, bool) or (isinstance(v, int) and lo <= v <= hi):
            return v
        if isinstance(v, float):
            # Not reached through promotion (a float lifts an integer tensor); C's cast.
            if not math.isfinite(v):
                raise RuntimeError(f"{name}(): cannot convert {v} to {d.name}")
            v = int(v)
        elif not isinstance(v, int):
            raise _not_a_number(v, name)
        if checked:  # PyTorch's checked conversion (unsigned takes -max .. -1, wrapped)
            _checked(v, d, name)
        if not -(2**63) <= v < 2**64:
            raise RuntimeError(
                f"{name}(): the Python integer {v} does not fit in 64 bits, so it cannot "
                f"take part in a {d.name} operation"
            )
        w = v & mask
        return w - (1 << bits) if d.is_signed and w > hi else w

    return conv


def _boolean(v: Any, name: str, checked: bool) -> Any:
    if not isinstance(v, (bool, int, float, complex)):
        raise _not_a_number(v, name)
    return v if isinstance(v, bool) else bool(v)


_F64 = _real(float, 53, dt.float64)
_CONVERT: dict[dt.dtype, _Conv] = {
    dt.bool_: _boolean,
    **{d: _integer(d) for d in (dt.uint8, dt.int8, dt.int16, dt.int32, dt.int64)},
    dt.float16: _real(_f16, 24, dt.float16),
    dt.bfloat16: _real(_bf16, 24, dt.bfloat16),
    dt.float32: _real(_f32, 24, dt.float32),
    dt.float64: _F64,
    dt.complex64: _complex(_real(_f32, 24, dt.float32)),
    dt.complex128: _complex(_F64),
}


def convert_scalar(
    value: Any, dtype: dt.dtype, name: str = "convert_scalar", checked: bool = False
) -> Any:
    """The Python scalar ``value`` converted to ``dtype`` as PyTorch converts a number that
    meets a tensor: a Python number that ``dtype`` holds exactly. ``name`` (the operator)
    goes into the errors: for an integer wider than 64 bits, and, where ``checked``, for a
    number that ``dtype`` cannot hold (PyTorch checks its ``Scalar`` arguments, such as
    ``clamp``'s bounds, instead of wrapping them or rounding a finite one to ``inf``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore._scalars import convert_scalar
    >>> convert_scalar(1e-166, tc.float32), convert_scalar(300, tc.int8)
    (0.0, 44)
    >>> convert_scalar(1e6, tc.float16), convert_scalar(0.1, tc.bfloat16)
    (inf, 0.10009765625)
    >>> convert_scalar(300, tc.int8, "clamp", checked=True)
    Traceback (most recent call last):
    ...
    RuntimeError: clamp(): value cannot be converted to type int8 without overflow
    >>> convert_scalar(2**40, tc.float16, "clamp", checked=True)
    Traceback (most recent call last):
    ...
    RuntimeError: clamp(): value cannot be converted to type float16 without overflow
    """
    cls = value.__class__
    if cls is float:
        if dtype is dt.float64:
            return value
        key: tuple[Any, ...] = (value, dtype)
    elif cls is int:
        if dtype._category == dt.INTEGRAL:
            lo, hi = FAST_INT[dtype]
            if lo <= value <= hi:
                return value
        key = (value, dtype, int)  # (not found for a float: int 0 is 0.0, -0.0 stays -0.0)
    else:
        return _CONVERT[dtype](value, name, checked)
    # (a checked conversion that passed once passes again: its own table)
    table = _CHECKED if checked else _FLOATS
    hit = table.get(key)
    if hit is not None:
        return hit
    res = _CONVERT[dtype](value, name, checked)
    if value == value and value != 0.0:  # (NaN is never found again; 0.0 == -0.0)
        if len(table) >= 256:
            table.clear()
        table[key] = res
    return res


# The converted value of recent numbers, by (value, dtype), ints by (value, dtype, int): a
# conversion costs a microsecond, a lookup a tenth of one (``x > 0.5`` on the pointwise
# frontend's general path, ``x.clamp(-1, 1)``).
_FLOATS: dict[tuple[Any, ...], Any] = {}
# The same for checked conversions (``clamp``'s bounds) that passed their check.
_CHECKED: dict[tuple[Any, ...], Any] = {}


def scalar_dtype(compute: dt.dtype, opmath: bool) -> dt.dtype:
    """The dtype a Python scalar converts to in an operation computing in ``compute``:
    ``compute`` itself, or float32 for 16-bit floats where the operator keeps its scalars in
    PyTorch's ``opmath`` precision (``opmath``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore._scalars import scalar_dtype
    >>> scalar_dtype(tc.float16, opmath=True), scalar_dtype(tc.float16, opmath=False)
    (tensorcore.float32, tensorcore.float16)
    """
    if opmath and compute.itemsize == 2 and compute._category == dt.FLOATING:
        return dt.float32
    return compute
