"""Data types: the dtype objects, the default dtype and PyTorch's type-promotion rules.

The core knows dtypes by name only; how a backend stores them (NumPy, CuPy, ...) is the
backend's business.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    # the categories, which kernels (tensorcore_xp) compare a dtype's ``_category`` with
    "BOOL",
    "COMPLEX",
    "FLOATING",
    "INTEGRAL",
    "all_dtypes",
    "bfloat16",
    "bool_",
    "can_cast",
    "complex64",
    "complex128",
    "dtype",
    "float16",
    "float32",
    "float64",
    "get_default_dtype",
    "int8",
    "int16",
    "int32",
    "int64",
    "promote_types",
    "result_type",
    "set_default_dtype",
    "uint8",
]

# Category ranks used by promotion: a higher category always wins over a lower one.
#: A dtype's ``_category``, in this order: hot paths compare the slot with these constants
#: (``d._category >= FLOATING``: floating or complex) instead of calling the properties,
#: which costs a function call each; ``tests/test_dtypes.py`` checks the two agree.
BOOL, INTEGRAL, FLOATING, COMPLEX = 0, 1, 2, 3
_BOOL, _INT, _FLOAT, _COMPLEX = BOOL, INTEGRAL, FLOATING, COMPLEX


class dtype:
    """A tensor element type, such as ``tensorcore.float32``.

    Instances are singletons: compare them with ``==`` or ``is``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.float32.itemsize, tc.float32.is_floating_point, tc.int8.is_signed
    (4, True, True)
    """

    __slots__ = ("_category", "is_signed", "itemsize", "name")

    def __init__(self, name: str, itemsize: int, category: int, is_signed: bool) -> None:
        self.name = name
        self.itemsize = itemsize
        self._category = category
        self.is_signed = is_signed

    @property
    def is_floating_point(self) -> bool:
        """True for float16, bfloat16, float32 and float64."""
        return self._category == _FLOAT

    @property
    def is_complex(self) -> bool:
        """True for complex64 and complex128."""
        return self._category == _COMPLEX

    def to_real(self) -> dtype:
        """The real dtype of a complex dtype (``complex64 -> float32``); self otherwise."""
        return _TO_REAL.get(self, self)

    def to_complex(self) -> dtype:
        """The complex dtype with this dtype's precision (``float32 -> complex64``)."""
        if self._category == _COMPLEX:
            return self
        if self._category != _FLOAT:
            raise TypeError(f"to_complex is only defined for floating dtypes, got {self}")
        return _TO_COMPLEX[self]

    def __repr__(self) -> str:
        return f"tensorcore.{self.name}"

    def __reduce__(self) -> str:
        return "bool_" if self.name == "bool" else self.name


bool_ = dtype("bool", 1, _BOOL, False)
uint8 = dtype("uint8", 1, _INT, False)
int8 = dtype("int8", 1, _INT, True)
int16 = dtype("int16", 2, _INT, True)
int32 = dtype("int32", 4, _INT, True)
int64 = dtype("int64", 8, _INT, True)
float16 = dtype("float16", 2, _FLOAT, True)
bfloat16 = dtype("bfloat16", 2, _FLOAT, True)
float32 = dtype("float32", 4, _FLOAT, True)
float64 = dtype("float64", 8, _FLOAT, True)
complex64 = dtype("complex64", 8, _COMPLEX, True)
complex128 = dtype("complex128", 16, _COMPLEX, True)

all_dtypes: tuple[dtype, ...] = (
    bool_,
    uint8,
    int8,
    int16,
    int32,
    int64,
    float16,
    bfloat16,
    float32,
    float64,
    complex64,
    complex128,
)
by_name: dict[str, dtype] = {d.name: d for d in all_dtypes}
# PyTorch's aliases, exported by the package facade as tc.float, tc.long, ...
aliases: dict[str, dtype] = {
    "half": float16,
    "float": float32,
    "double": float64,
    "short": int16,
    "int": int32,
    "long": int64,
    "cfloat": complex64,
    "cdouble": complex128,
    "chalf": complex64,
}

_TO_REAL = {complex64: float32, complex128: float64}
_TO_COMPLEX = {float16: complex64, bfloat16: complex64, float32: complex64, float64: complex128}

# PyTorch's promotion lattice, in the order of `all_dtypes`.
_ORDER = ["b1", "u1", "i1", "i2", "i4", "i8", "f2", "bf", "f4", "f8", "c4", "c8"]
_TABLE = """
     b1 u1 i1 i2 i4 i8 f2 bf f4 f8 c4 c8
b1   b1 u1 i1 i2 i4 i8 f2 bf f4 f8 c4 c8
u1   u1 u1 i2 i2 i4 i8 f2 bf f4 f8 c4 c8
i1   i1 i2 i1 i2 i4 i8 f2 bf f4 f8 c4 c8
i2   i2 i2 i2 i2 i4 i8 f2 bf f4 f8 c4 c8
i4   i4 i4 i4 i4 i4 i8 f2 bf f4 f8 c4 c8
i8   i8 i8 i8 i8 i8 i8 f2 bf f4 f8 c4 c8
f2   f2 f2 f2 f2 f2 f2 f2 f4 f4 f8 c4 c8
bf   bf bf bf bf bf bf f4 bf f4 f8 c4 c8
f4   f4 f4 f4 f4 f4 f4 f4 f4 f4 f8 c4 c8
f8   f8 f8 f8 f8 f8 f8 f8 f8 f8 f8 c8 c8
c4   c4 c4 c4 c4 c4 c4 c4 c4 c4 c8 c4 c8
c8   c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8
"""


def _build_table() -> dict[tuple[dtype, dtype], dtype]:
    code = dict(zip(_ORDER, all_dtypes, strict=True))
    rows = [line.split() for line in _TABLE.strip().splitlines()[1:]]
    return {
        (code[row[0]], code[col]): code[cell]
        for row in rows
        for col, cell in zip(_ORDER, row[1:], strict=True)
    }


_PROMOTE = _build_table()
_default_dtype = float32


def get_default_dtype() -> dtype:
    """Return the default floating dtype (``float32`` unless changed).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.get_default_dtype()
    tensorcore.float32
    """
    return _default_dtype


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype used for Python floats and float factories.

    Any floating dtype is accepted, as in PyTorch; the default complex dtype follows it
    (``complex128`` for ``float64``, else ``complex64``: tensorcore has no ``complex32``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.set_default_dtype(tc.float64); tc.tensor([1.5]).dtype
    tensorcore.float64
    >>> tc.set_default_dtype(tc.float32)
    """
    global _default_dtype
    if not isinstance(d, dtype):
        raise TypeError(
            "set_default_dtype(): invalid dtype object: only floating-point types are "
            "supported as the default type"
        )
    if d._category != _FLOAT:
        raise TypeError(
            "set_default_dtype(): only floating-point types are supported as the default type, "
            f"got {d!r}"
        )
    _default_dtype = d


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """Return the smallest dtype to which both dtypes can be cast (PyTorch's lattice).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.promote_types(tc.uint8, tc.int8)
    tensorcore.int16
    """
    try:
        return _PROMOTE[type1, type2]
    except (KeyError, TypeError):
        _need_dtypes("promote_types", type1=type1, type2=type2)
        raise


def _need_dtypes(fn: str, **args: Any) -> None:
    for name, value in args.items():
        if not isinstance(value, dtype):
            raise TypeError(
                f"{fn}(): argument '{name}' must be tensorcore.dtype, not {type(value).__name__}"
            )


def scalar_dtype(value: Any) -> dtype:
    """The dtype a Python scalar has when it takes part in promotion (bool, int64, default)."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return _default_dtype
    if isinstance(value, complex):
        return _default_dtype.to_complex()
    raise TypeError(
        f"expected a Python scalar (bool, int, float or complex), got {type(value).__name__}"
    )


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    # A participant of lower priority only matters when its category is higher.
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher._category == _COMPLEX:
        return higher
    if lower._category == _COMPLEX:
        return higher.to_complex() if higher._category == _FLOAT else lower
    if higher._category == _FLOAT:
        return higher
    if lower._category > higher._category or higher is bool_:
        return _PROMOTE[higher, lower]
    return higher


def result_type(*operands: Any) -> dtype:
    """The dtype an operator computes in for these operands, following PyTorch.

    Tensors with dimensions take priority over zero-dimensional tensors, which take priority
    over Python scalars; a lower-priority operand only changes the result when its category
    (bool < integer < floating < complex) is higher. So ``int8_tensor * 3`` stays ``int8`` and
    ``int_tensor * 1.5`` becomes the default float dtype.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.result_type(tc.tensor([1, 2], dtype=tc.int8), 3)
    tensorcore.int8
    >>> tc.result_type(tc.tensor([1, 2]), 1.5)
    tensorcore.float32
    """
    dim: dtype | None = None
    zero: dtype | None = None
    wrapped: dtype | None = None
    for op in operands:
        d = getattr(op, "_dtype", None)
        if d is not None:
            if op._shape:
                dim = d if dim is None else _PROMOTE[dim, d]
            else:
                zero = d if zero is None else _PROMOTE[zero, d]
        elif isinstance(op, dtype):
            dim = op if dim is None else _PROMOTE[dim, op]
        else:
            try:
                s = scalar_dtype(op)
            except TypeError as exc:
                raise TypeError(f"result_type(): {exc}") from None
            wrapped = s if wrapped is None else _PROMOTE[wrapped, s]
    out = _combine(dim, _combine(zero, wrapped))
    if out is None:
        raise TypeError("result_type needs at least one operand")
    return out


def can_cast(from_: dtype, to: dtype) -> bool:
    """Whether PyTorch's casting rules allow an in-place result of ``from_`` into ``to``.

    A cast may not lower the category: complex to real, floating to integral, or anything
    other than bool to bool.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.can_cast(tc.float64, tc.int32), tc.can_cast(tc.int32, tc.float16)
    (False, True)
    """
    if from_.__class__ is not dtype or to.__class__ is not dtype:
        _need_dtypes("can_cast", from_=from_, to=to)
    return from_._category <= to._category or (to._category == _BOOL and from_ is bool_)


# Largest finite values of the floating dtypes (PyTorch's ``finfo(d).max``).
_FLOAT_MAX = {
    float16: 65504.0,
    bfloat16: 3.3895313892515355e38,
    float32: 3.4028234663852886e38,
    float64: 1.7976931348623157e308,
}


def int_range(d: dtype) -> tuple[int, int]:
    """``(min, max)`` of an integer dtype.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.dtypes import int_range
    >>> int_range(tc.int8), int_range(tc.uint8)
    ((-128, 127), (0, 255))
    """
    bits = 8 * d.itemsize
    if d.is_signed:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def check_scalar(value: Any, d: dtype) -> None:
    """Raise PyTorch's ``RuntimeError`` if the Python scalar ``value`` cannot be stored in
    dtype ``d`` without overflow (the check PyTorch makes when it converts a ``Scalar``
    argument, as ``fill_``, ``full`` and ``masked_fill`` do; pointwise operators instead
    wrap a scalar operand without a check).

    NaN and infinities do not fit an integer dtype, finite values beyond the largest float
    do not fit a floating dtype (infinities do), a complex number with an imaginary part does
    not fit a real dtype; every value fits ``bool``. As in PyTorch, an unsigned dtype also
    takes negative integers down to ``-max`` (they wrap; a negative float does not fit), and
    floats are truncated.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.dtypes import check_scalar
    >>> check_scalar(-1, tc.uint8)
    >>> check_scalar(300, tc.int8)
    Traceback (most recent call last):
    ...
    RuntimeError: value cannot be converted to type int8 without overflow
    """
    cat = d._category
    if cat == _BOOL:
        return
    v = value
    if isinstance(v, complex):
        if cat != _COMPLEX and v.imag != 0:
            raise _overflow(d)
        v = v.real if cat != _COMPLEX else v
    if cat == _COMPLEX:
        parts = (v.real, v.imag) if isinstance(v, complex) else (v,)
        limit = _FLOAT_MAX[d.to_real()]
        for p in parts:
            if isinstance(p, float) and p == p and abs(p) != float("inf") and abs(p) > limit:
                raise _overflow(d)
        return
    if cat == _FLOAT:
        if isinstance(v, int):
            v = float(v) if abs(v) < 1 << 1024 else float("inf")
            if v == float("inf"):
                raise _overflow(d)
        if v == v and abs(v) != float("inf") and abs(v) > _FLOAT_MAX[d]:
            raise _overflow(d)
        return
    # integral
    # (only an int wraps, as PyTorch; a float is compared before its truncation)
    wraps = not d.is_signed and not isinstance(v, float)
    if isinstance(v, float) and (v != v or abs(v) == float("inf")):
        raise _overflow(d)
    lo, hi = int_range(d)
    if wraps:
        lo = -hi
    if v < lo or v > hi:
        raise _overflow(d)


def _overflow(d: dtype) -> RuntimeError:
    return RuntimeError(f"value cannot be converted to type {d.name} without overflow")
