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
from .layouts import strided
from .ops import functions as ops
from .ops.factories import tensor as _tensor

__all__ = ["LEGACY_TYPES", "as_subclass", "install", "make_subclass", "tensor_new"]


class _LegacyType(type):
    """The metaclass: ``isinstance(x, tc.FloatTensor)`` is "a dense float32 CPU tensor" (a
    sparse one is a ``tc.sparse.FloatTensor``)."""

    dtype: dt.dtype

    def __instancecheck__(cls, obj: Any) -> bool:
        return (
            isinstance(obj, Tensor)
            and obj._dtype is cls.dtype
            and obj._device.type == "cpu"
            and obj._layout is strided
        )

    def __repr__(cls) -> str:
        return f"<class 'tensorcore.{cls.__name__}'>"


def _construct(name: str, d: dt.dtype | None, args: tuple[Any, ...], device: Any) -> Tensor:
    """The legacy constructors' body: ``d`` None is ``tc.Tensor``'s (the default dtype, and
    a tensor argument of any dtype is aliased rather than refused)."""
    if device is not None and _device(device).type != "cpu":
        prefix = f"{name}(): " if d is not None else ""
        raise RuntimeError(
            f"{prefix}legacy constructor expects device type: cpu but device type: "
            f"{_device(device).type} was passed"
        )
    dtype = d if d is not None else dt.get_default_dtype()
    if not args:
        return ops.empty(0, dtype=dtype)
    if all(a.__class__ is int for a in args) or (len(args) == 1 and isinstance(args[0], Size)):
        return ops.empty(*args, dtype=dtype)  # a size: uninitialised, as PyTorch's
    if len(args) > 1:
        raise TypeError(f"{name}(): expected sizes (ints) or one sequence of data, got {args!r}")
    data = args[0]
    if isinstance(data, Tensor):
        if d is None:
            return data.detach()  # ``Tensor(other)``: an alias of ``other``, without history
        if data._dtype is not d or data._device.type != "cpu":
            raise TypeError(
                f"{name}(): expected a CPU tensor of dtype {d.name} (got "
                f"{data._device.type} {torch_name(data._dtype)}); use .to() to convert"
            )
        return data
    if isinstance(data, (bool, int, float, complex)):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    if d is None and _has_complex(data):
        raise TypeError("must be real number, not complex")
    return _tensor(data, dtype=dtype)


def _has_complex(data: Any) -> bool:
    if isinstance(data, complex):
        return True
    if isinstance(data, (list, tuple)):
        return any(_has_complex(x) for x in data)
    return str(getattr(data, "dtype", "")).startswith("complex")


def _new(cls: _LegacyType, *args: Any, device: Any = None) -> Tensor:
    return _construct(cls.__name__, cls.dtype, args, device)


def _as_class(cls: type, src: Tensor) -> Tensor:
    """A ``cls`` instance over ``src``'s storage and geometry, sharing its version counter,
    without history (``src`` is a fresh tensor or one to alias)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(
            "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
            "possible. Make sure your class inherits from Tensor."
        )
    if src.__class__ is cls and src._grad_fn is None and not src._requires_grad:
        return src
    t = object.__new__(cls)
    for slot in _SLOTS:
        setattr(t, slot, getattr(src, slot))
    t._requires_grad = False
    t._grad_fn = None
    t._grad = None
    t._base = None
    t._ag = None
    t._view_meta = None
    return t


_SLOTS = (
    "_storage",
    "_shape",
    "_stride",
    "_offset",
    "_dtype",
    "_device",
    "_layout",
    "_native",
    "_version_counter",
)


def tensor_new(cls: type, *args: Any, device: Any = None, **kwargs: Any) -> Tensor:
    """``tc.Tensor(...)``, PyTorch's legacy constructor (installed as ``Tensor.__new__``).

    ``Tensor(data)`` copies a sequence into a tensor of the default dtype; ``Tensor(*sizes)``
    (or a :class:`~tensorcore.Size`) makes an uninitialised one; ``Tensor()`` an empty one;
    ``Tensor(other)`` an alias of ``other`` (same storage, no history). Called on a subclass
    of :class:`~tensorcore.Tensor`, it returns an instance of that subclass. The core builds
    its tensors without calling this.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.Tensor([1, 2])
    tensor([1., 2.])
    >>> tc.Tensor(2, 3).shape, tc.Tensor().shape
    (tensorcore.Size([2, 3]), tensorcore.Size([0]))
    >>> class Tagged(tc.Tensor):
    ...     pass
    >>> type(Tagged([1.0])).__name__
    'Tagged'
    """
    if kwargs:
        raise TypeError(
            "new() received an invalid combination of arguments - got an unexpected keyword "
            f"argument {next(iter(kwargs))!r}; the legacy constructor takes only device= (use "
            "tensorcore.tensor(data, dtype=...) for a dtype)"
        )
    t = _construct("new", None, args, device)
    return t if cls is Tensor else _as_class(cls, t)


def as_subclass(self: Tensor, cls: type) -> Tensor:
    """``self`` viewed as an instance of ``cls`` (a subclass of :class:`Tensor`): same storage,
    and it keeps ``self``'s place in the autograd graph, as PyTorch's.

    Examples
    --------
    >>> import tensorcore as tc
    >>> class Tagged(tc.Tensor):
    ...     pass
    >>> x = tc.ones(2).as_subclass(Tagged)
    >>> type(x).__name__, x.tolist()
    ('Tagged', [1.0, 1.0])
    """
    t = _as_class(cls, self)
    if t is not self:
        t._requires_grad = self._requires_grad
        t._grad_fn = self._grad_fn
        t._base = self._base
        t._ag = self._ag
        t._view_meta = self._view_meta
    return t


def make_subclass(cls: type, data: Any, require_grad: bool = False, *args: Any, **kw: Any) -> Any:
    """``Tensor._make_subclass(cls, data, require_grad=False)``: a ``cls`` instance (a leaf)
    over ``data``'s storage, as PyTorch's ``nn.Parameter`` is made.

    Examples
    --------
    >>> import tensorcore as tc
    >>> class Tagged(tc.Tensor):
    ...     pass
    >>> x = tc.Tensor._make_subclass(Tagged, tc.zeros(2), True)
    >>> type(x).__name__, x.requires_grad, x.is_leaf
    ('Tagged', True, True)
    """
    if not isinstance(data, Tensor):
        raise TypeError(
            f"_make_subclass(): argument 'data' (position 2) must be Tensor, not "
            f"{type(data).__name__}"
        )
    t = _as_class(cls, data.detach())
    if require_grad:
        t.requires_grad_()
    return t


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


def install() -> None:
    """Make ``Tensor(...)`` the legacy constructor and attach ``as_subclass`` and
    ``_make_subclass`` (here rather than in the class body: they need the factories, which
    import :class:`Tensor`)."""
    Tensor.__new__ = tensor_new  # type: ignore[assignment,method-assign]
    Tensor.as_subclass = as_subclass  # type: ignore[attr-defined]
    Tensor._make_subclass = staticmethod(make_subclass)  # type: ignore[attr-defined]
