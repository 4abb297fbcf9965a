"""``__array_namespace_info__``: what the namespace supports, per device."""

from __future__ import annotations

from typing import Any

from tensorcore import _registry
from tensorcore import dtypes as _dt
from tensorcore.devices import device as _device
from tensorcore.devices import get_default_device

from ._data_types import isdtype

__all__ = ["__array_namespace_info__"]

#: The standard's dtypes that tensorcore has (no uint16, uint32, uint64).
_STANDARD = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "float32", "float64", "complex64",
    "complex128",
)  # fmt: skip


class __array_namespace_info__:
    """The inspection API of the array API standard: capabilities, devices and dtypes.

    Examples
    --------
    >>> import tensorcore.array_api as xp
    >>> info = xp.__array_namespace_info__()
    >>> info.default_dtypes()["real floating"], info.capabilities()["boolean indexing"]
    (tensorcore.float32, True)
    """

    __module__ = "tensorcore.array_api"

    def capabilities(self) -> dict[str, Any]:
        """Optional features: boolean indexing and data-dependent shapes are supported;
        ``max dimensions`` is None (no limit)."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": None}

    def default_device(self) -> Any:
        """The device arrays are created on when none is named."""
        return get_default_device()

    def devices(self) -> list[Any]:
        """Every usable device of the installed backends."""
        out = []
        for name, iface in _registry.interfaces().items():
            if iface.unavailable_reason is not None:
                continue
            count = iface.device_count()
            if name == "cpu" or count <= 1:
                out.append(_device(name))
            else:
                out.extend(_device(name, i) for i in range(count))
        return out

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        """The default dtypes (the same on every device)."""
        real = _dt.get_default_dtype()
        return {
            "real floating": real,
            "complex floating": real.to_complex(),
            "integral": _dt.int64,
            "indexing": _dt.int64,
        }

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, Any]:
        """The standard's dtypes supported (on ``device``), by name, optionally only those of
        ``kind`` (a kind name or a tuple of them)."""
        if kind is None:
            return {n: _dt.by_name[n] for n in _STANDARD}
        try:
            return {n: _dt.by_name[n] for n in _STANDARD if isdtype(_dt.by_name[n], kind)}
        except ValueError:
            raise ValueError(f"dtypes(): unknown kind {kind!r}") from None
