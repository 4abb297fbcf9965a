"""A storage's elements as host bytes and back, in pure Python.

This is the portable half of the serialisation contract: the default
``DeviceInterface.storage_to_bytes`` / ``storage_from_bytes`` pack the Python scalars of a
``tolist`` with :mod:`struct`, so that a device backend written without NumPy can be pickled
and saved. The byte layout is the one NumPy and safetensors use: each element little-endian,
bfloat16 as the upper half of a float32, complex numbers as (real, imaginary) pairs.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

from ._tensor import make_tensor

if TYPE_CHECKING:
    from ._storage import Storage
    from ._tensor import Tensor
    from .dtypes import dtype

__all__ = ["flat_view", "pack", "unpack"]

# struct codes of one element (of one component, for complex dtypes).
_CODES = {
    "bool": "?",
    "uint8": "B",
    "int8": "b",
    "int16": "h",
    "int32": "i",
    "int64": "q",
    "float16": "e",
    "bfloat16": "f",  # packed as float32, then the upper two bytes are kept
    "float32": "f",
    "float64": "d",
    "complex64": "f",
    "complex128": "d",
}


def flat_view(storage: Storage) -> Tensor:
    """A 1-D tensor of ``storage.dtype`` over all of ``storage`` (no copy)."""
    n = storage.nbytes // storage.dtype.itemsize
    return make_tensor(storage, (n,), (1,), 0, storage.dtype, storage.device)


def pack(values: list[Any], dt: dtype) -> bytes:
    """The little-endian bytes of ``values`` (Python scalars) as elements of ``dt``."""
    if dt.is_complex:
        values = [part for v in values for part in (v.real, v.imag)]
    raw = struct.pack(f"<{len(values)}{_CODES[dt.name]}", *values)
    if dt.name != "bfloat16":
        return raw
    # A bfloat16 is the upper half of the float32 with the same value (bfloat16 values are
    # exact float32 values, so nothing is rounded here).
    out = bytearray(2 * len(values))
    out[0::2] = raw[2::4]
    out[1::2] = raw[3::4]
    return bytes(out)


def unpack(data: bytes | bytearray | memoryview, dt: dtype) -> list[Any]:
    """The Python scalars stored in ``data`` as little-endian elements of ``dt``."""
    n = len(data) // dt.itemsize
    if dt.name == "bfloat16":
        wide = bytearray(4 * n)
        wide[2::4] = data[0::2]
        wide[3::4] = data[1::2]
        data = wide
    if dt.is_complex:
        parts = struct.unpack(f"<{2 * n}{_CODES[dt.name]}", data)
        return [complex(parts[i], parts[i + 1]) for i in range(0, 2 * n, 2)]
    return list(struct.unpack(f"<{n}{_CODES[dt.name]}", data))
