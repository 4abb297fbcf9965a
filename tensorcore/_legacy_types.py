"""PyTorch's legacy typed constructors: ``tc.FloatTensor``, ``tc.LongTensor``...

Old PyTorch programs (and many still written) make CPU tensors with ``torch.FloatTensor(2, 3)``
(an uninitialised tensor of that size) or ``torch.LongTensor([1, 2])`` (from data), test
``isinstance(x, torch.FloatTensor)``, and convert with ``x.type(torch.LongTensor)``. Each name
here is a class of that behaviour: calling it makes an ordinary :class:`~tensorcore.Tensor` of
its dtype on the CPU, and ``isinstance`` asks the tensor's dtype and device, as PyTorch's
metaclass does.

Examples
--------
>>> import tensorcore as tc
>>> tc.LongTensor([1, 2])
tensor([1, 2])
>>> tc.FloatTensor(2, 3).shape
tensorcore.Size([2, 3])
>>> isinstance(tc.ones(2), tc.FloatTensor), isinstance(tc.ones(2), tc.LongTensor)
(True, False)
"""

from __future__ import annotations

from typing import Any

from . import dtypes as dt
from ._tensor import Size, Tensor, torch_name
from .devices import device as _device
from .ops import functions as ops
from .ops.factories import tensor as _tensor

__all__ = ["LEGACY_TYPES"]


class _LegacyType(type):
    """The metaclass: ``isinstance(x, tc.FloatTensor)`` is "a float32 CPU tensor"."""

    dtype: dt.dtype

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj._dtype is cls.dtype and obj._device.type == "cpu"

    def __repr__(cls) -> str:
        return f"<class 'tensorcore.{cls.__name__}'>"


def _new(cls: _LegacyType, *args: Any, device: Any = None) -> Tensor:
    name = cls.__name__
    if device is not None and _device(device).type != "cpu":
        raise RuntimeError(
            f"{name}(): legacy constructor expects device type: cpu but device type: "
            f"{_device(device).type} was passed"
        )
    d = cls.dtype
    if not args:
        return ops.empty(0, dtype=d)
    if all(a.__class__ is int for a in args) or (len(args) == 1 and isinstance(args[0], Size)):
        return ops.empty(*args, dtype=d)  # a size: uninitialised, as PyTorch's
    if len(args) > 1:
        raise TypeError(f"{name}(): expected sizes (ints) or one sequence of data, got {args!r}")
    data = args[0]
    if isinstance(data, Tensor):
        if data._dtype is not d or data._device.type != "cpu":
            raise TypeError(
                f"{name}(): expected a CPU tensor of dtype {d.name} (got "
                f"{data._device.type} {torch_name(data._dtype)}); use .to() to convert"
            )
        return data
    if isinstance(data, (bool, int, float, complex)):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    return _tensor(data, dtype=d)


def _make(name: str, d: dt.dtype) -> _LegacyType:
    doc = (
        f"``tc.{name}(*sizes)``: an uninitialised {d.name} CPU tensor; ``tc.{name}(data)``: "
        f"one from data; ``isinstance(x, tc.{name})``: whether ``x`` is a {d.name} CPU tensor."
    )
    cls = _LegacyType(name, (), {"__doc__": doc, "__module__": "tensorcore", "dtype": d})
    cls.__new__ = _new  # type: ignore[assignment,method-assign]
    return cls


#: The legacy constructors by name (PyTorch's CPU tensor types).
LEGACY_TYPES: dict[str, _LegacyType] = {
    f"{torch_name(d)}Tensor": _make(f"{torch_name(d)}Tensor", d)
    for d in (
        dt.float32,
        dt.float64,
        dt.float16,
        dt.bfloat16,
        dt.uint8,
        dt.int8,
        dt.int16,
        dt.int32,
        dt.int64,
        dt.bool_,
    )
}
