"""``finfo`` and ``iinfo``: the numerical limits of the floating and integer dtypes.

The values are PyTorch's (``torch.finfo``/``torch.iinfo``), written down once per dtype so
that the core needs no NumPy to answer them.
"""

from __future__ import annotations

from typing import Any

from . import dtypes as dt

__all__ = ["finfo", "iinfo"]

# bits, eps, tiny (smallest normal), resolution; the largest values are ``dtypes``' table.
_FLOATS: dict[dt.dtype, tuple[int, float, float, float]] = {
    dt.float16: (16, 2.0**-10, 2.0**-14, 0.001),
    dt.bfloat16: (16, 2.0**-7, 2.0**-126, 0.01),
    dt.float32: (32, 2.0**-23, 2.0**-126, 1e-06),
    dt.float64: (64, 2.0**-52, 2.0**-1022, 1e-15),
}


def _as_dtype(fn: str, type: Any) -> dt.dtype:
    d = getattr(type, "dtype", type)  # a tensor stands for its dtype, as in the standard
    if not isinstance(d, dt.dtype):
        raise TypeError(
            f"{fn}(): argument 'type' must be tensorcore.dtype, not {d.__class__.__name__}"
        )
    return d


class finfo:
    """Machine limits of a floating dtype (of the real part, for a complex dtype).

    Attributes follow PyTorch: ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (the smallest
    positive normal number, also ``smallest_normal``), ``resolution`` and ``dtype`` (the
    dtype's name).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.finfo(tc.float32).eps
    1.1920928955078125e-07
    >>> tc.finfo(tc.float16).max, tc.finfo(tc.complex128).bits
    (65504.0, 64)
    """

    __slots__ = ("bits", "dtype", "eps", "max", "min", "resolution", "smallest_normal", "tiny")

    def __init__(self, type: Any = None) -> None:
        d = dt.get_default_dtype() if type is None else _as_dtype("finfo", type)
        real = d.to_real()
        if real not in _FLOATS:
            raise TypeError(
                f"finfo(): {d} is not a floating point or complex dtype; use iinfo for "
                "integer dtypes"
            )
        bits, eps, tiny, resolution = _FLOATS[real]
        fmax = dt._FLOAT_MAX[real]
        self.bits = bits
        self.eps = eps
        self.max = fmax
        self.min = -fmax
        self.tiny = self.smallest_normal = tiny
        self.resolution = resolution
        self.dtype: Any = real.name

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:
    """Machine limits of an integer dtype (``bits``, ``min``, ``max``, ``dtype``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.iinfo(tc.int8).min, tc.iinfo(tc.uint8).max, tc.iinfo(tc.int64).bits
    (-128, 255, 64)
    """

    __slots__ = ("bits", "dtype", "max", "min")

    def __init__(self, type: Any) -> None:
        d = _as_dtype("iinfo", type)
        if d._category != dt.INTEGRAL:
            raise TypeError(
                f"iinfo(): {d} is not an integer dtype; use finfo for floating point dtypes"
            )
        self.bits = 8 * d.itemsize
        self.min, self.max = dt.int_range(d)
        self.dtype: Any = d.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"
