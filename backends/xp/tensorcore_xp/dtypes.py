"""The mapping between tensorcore dtypes and an array module's dtypes.

Every dtype but ``bfloat16`` has a dtype of the same name in NumPy and in modules that follow
it (CuPy); ``bfloat16`` is mapped when the module has one (``xp.bfloat16``) or when the backend
passes it (the CPU backend gives NumPy ``ml_dtypes.bfloat16``). :func:`to_native` and
:func:`from_native` use a module's default :class:`DtypeMap`; a backend with extra dtypes
builds its own.

Examples
--------
>>> import numpy as np
>>> import tensorcore as tc
>>> from tensorcore_xp import dtypes
>>> dtypes.to_native(tc.float32, np)
dtype('float32')
>>> dtypes.from_native(np.dtype("int16"), np)
tensorcore.int16
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import tensorcore as tc

__all__ = ["NAMES", "DtypeMap", "dtype_map", "from_native", "to_native"]

#: The array dtype's name of each tensorcore dtype that NumPy-like modules name alike.
NAMES: dict[tc.dtype, str] = {
    tc.bool: "bool",
    tc.uint8: "uint8",
    tc.int8: "int8",
    tc.int16: "int16",
    tc.int32: "int32",
    tc.int64: "int64",
    tc.float16: "float16",
    tc.float32: "float32",
    tc.float64: "float64",
    tc.complex64: "complex64",
    tc.complex128: "complex128",
}

# PyTorch's order in its message for an array of a dtype it cannot take.
_MESSAGE_ORDER = (tc.float64, tc.float32, tc.float16, tc.bfloat16, tc.complex64, tc.complex128,
                  tc.int64, tc.int32, tc.int16, tc.int8, tc.uint8, tc.bool)  # fmt: skip


class DtypeMap:
    """Both directions between tensorcore dtypes and the dtypes of one array module.

    Parameters
    ----------
    xp
        The array module.
    extra
        More dtypes, ``{tensorcore dtype: array dtype}`` (``{tc.bfloat16:
        ml_dtypes.bfloat16}`` for NumPy); they take precedence over the defaults.
    array_name
        How :meth:`from_native`'s error names the module's arrays (PyTorch's ``np.ndarray``
        for NumPy); ``"<module>.ndarray"`` by default.

    Attributes
    ----------
    native : dict
        ``{tensorcore dtype: array dtype}``: read it directly on a hot path (an allocator).

    Examples
    --------
    >>> import numpy as np
    >>> import tensorcore as tc
    >>> from tensorcore_xp.dtypes import DtypeMap
    >>> m = DtypeMap(np)
    >>> m.to_native(tc.complex64), tc.bfloat16 in m.native
    (dtype('complex64'), False)
    >>> m.from_native(np.float16)
    tensorcore.float16
    """

    def __init__(
        self, xp: Any, extra: Mapping[tc.dtype, Any] | None = None, array_name: str | None = None
    ) -> None:
        native: dict[tc.dtype, Any] = {d: xp.dtype(name) for d, name in NAMES.items()}
        bf16 = getattr(xp, "bfloat16", None)
        if bf16 is not None:
            native[tc.bfloat16] = xp.dtype(bf16)
        for d, nd in (extra or {}).items():
            native[d] = xp.dtype(nd)
        self.xp = xp
        self.native = native
        self.array_name = array_name or f"{xp.__name__}.ndarray"
        self._tc = {nd: d for d, nd in native.items()}

    def to_native(self, dtype: tc.dtype) -> Any:
        """The array dtype of ``dtype``; a ``TypeError`` when the module has none.

        Examples
        --------
        >>> import numpy as np
        >>> import tensorcore as tc
        >>> from tensorcore_xp.dtypes import DtypeMap
        >>> DtypeMap(np).to_native(tc.bfloat16)
        Traceback (most recent call last):
        ...
        TypeError: bfloat16 has no dtype in numpy
        """
        try:
            return self.native[dtype]
        except KeyError:
            raise TypeError(f"{dtype.name} has no dtype in {self.xp.__name__}") from None

    def from_native(self, d: Any) -> tc.dtype:
        """The tensorcore dtype of an array dtype (or anything ``xp.dtype`` takes); PyTorch's
        ``TypeError`` when there is none.

        Examples
        --------
        >>> import numpy as np
        >>> from tensorcore_xp.dtypes import DtypeMap
        >>> DtypeMap(np, array_name="np.ndarray").from_native(np.uint16)
        Traceback (most recent call last):
        ...
        TypeError: can't convert np.ndarray of type uint16. The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.
        """  # noqa: E501
        try:
            return self._tc[self.xp.dtype(d)]
        except (KeyError, TypeError):
            names = [d.name for d in _MESSAGE_ORDER if d in self.native]
            raise TypeError(
                f"can't convert {self.array_name} of type {self.xp.dtype(d)}. The only supported "
                f"types are: {', '.join(names[:-1])}, and {names[-1]}."
            ) from None

    @property
    def dtypes(self) -> frozenset[tc.dtype]:
        """The tensorcore dtypes the module has.

        Examples
        --------
        >>> import numpy as np
        >>> import tensorcore as tc
        >>> from tensorcore_xp.dtypes import DtypeMap
        >>> len(DtypeMap(np).dtypes), len(tc.dtypes.all_dtypes)
        (11, 12)
        """
        return frozenset(self.native)


@functools.cache
def dtype_map(xp: Any) -> DtypeMap:
    """The default :class:`DtypeMap` of the array module ``xp`` (made once).

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.dtypes import dtype_map
    >>> dtype_map(np) is dtype_map(np)
    True
    """
    return DtypeMap(xp)


def to_native(dtype: tc.dtype, xp: Any) -> Any:
    """The dtype of ``xp`` for a tensorcore dtype (``TypeError`` when it has none).

    Examples
    --------
    >>> import numpy as np
    >>> import tensorcore as tc
    >>> from tensorcore_xp.dtypes import to_native
    >>> to_native(tc.int64, np)
    dtype('int64')
    """
    return dtype_map(xp).to_native(dtype)


def from_native(d: Any, xp: Any) -> tc.dtype:
    """The tensorcore dtype of an array dtype of ``xp`` (``TypeError`` when there is none).

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.dtypes import from_native
    >>> from_native(np.complex128, np)
    tensorcore.complex128
    """
    return dtype_map(xp).from_native(d)
