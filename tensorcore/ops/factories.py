"""Factories that take Python data: ``tensor``, ``as_tensor``, ``from_numpy``, ``from_dlpack``.

The core infers shape and dtype from nested Python sequences; foreign arrays (NumPy, CuPy, ...)
are recognised by whichever device backend understands them (``DeviceInterface.from_object``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

from .. import _registry
from .. import dtypes as dt
from .._tensor import Tensor
from ..devices import device as _device
from ..devices import get_default_device
from ._validate import checked, factory_requires_grad

__all__ = ["as_tensor", "from_dlpack", "from_numpy", "scalar_tensor", "tensor"]

_SCALARS = (bool, int, float, complex)


#: The dtype a Python number of each type contributes to an inferred dtype.
_PYTHON_DTYPE: dict[type, Any] = {
    bool: lambda: dt.bool_,
    int: lambda: dt.int64,
    float: dt.get_default_dtype,
    complex: lambda: dt.get_default_dtype().to_complex(),
}


def _numpy_scalar_dtype(x: Any) -> dt.dtype | None:
    """The dtype of a NumPy scalar (``np.float32(1.5)``), None for anything else; NumPy is
    not imported (the object's type says where it comes from)."""
    if type(x).__module__ != "numpy" or not hasattr(x, "dtype") or getattr(x, "ndim", 1) != 0:
        return None
    name = str(x.dtype)
    d = getattr(dt, "bool_" if name == "bool" else name, None)
    return d if isinstance(d, dt.dtype) else None


def _infer(data: Any) -> tuple[tuple[int, ...], list[Any], dt.dtype | None]:
    """Shape, row-major flat values and the inferred dtype of nested sequences."""
    if data.__class__ in (list, tuple) and data:
        # A flat sequence of Python numbers of one type (a batch of indices, a row of
        # values): its types checked at C speed instead of one call per element.
        kinds0 = set(map(type, data))
        if len(kinds0) == 1:
            kind = next(iter(kinds0))
            if kind is int or kind is float or kind is bool:
                guess = (
                    dt.int64 if kind is int else dt.bool_ if kind is bool
                    else dt.get_default_dtype()
                )  # fmt: skip
                return (len(data),), list(data), guess
    flat: list[Any] = []
    kinds: set[type] = set()
    tensor_dtypes: list[dt.dtype] = []

    def shape_of(x: Any) -> tuple[int, ...]:
        if isinstance(x, Tensor):
            return tuple(x._shape)
        if isinstance(x, _SCALARS) or not isinstance(x, Sequence) or isinstance(x, str):
            return ()
        return (len(x),) + (shape_of(x[0]) if len(x) else ())

    shape = shape_of(data)

    def walk(x: Any, depth: int) -> None:
        if depth == len(shape):
            if isinstance(x, Tensor):
                if x.numel() != 1 or x.ndim:
                    raise ValueError("only one element tensors can be converted to Python scalars")
                tensor_dtypes.append(x._dtype)
                flat.append(x.item())
                return
            cls = x.__class__
            d = (
                None
                if cls is float or cls is int or cls is bool or cls is complex
                else _numpy_scalar_dtype(x)
            )
            if d is not None:  # a NumPy scalar counts with its dtype, as a 0-d tensor
                tensor_dtypes.append(d)
                flat.append(x.item())
                return
            if not isinstance(x, _SCALARS):
                raise TypeError(
                    f"tensor(): could not convert an object of type {type(x).__name__} to a "
                    "tensor element; expected bool, int, float or complex"
                )
            kinds.add(type(x))
            flat.append(x)
            return
        if isinstance(x, Tensor) and x.ndim == len(shape) - depth:
            for v in x.tolist() if x.ndim else [x.item()]:
                walk(v, depth + 1)
            tensor_dtypes.append(x._dtype)
            return
        if isinstance(x, _SCALARS) or not isinstance(x, Sequence) or isinstance(x, str):
            raise ValueError(
                f"expected sequence of length {shape[depth]} at dim {depth} "
                f"(got {type(x).__name__})"
            )
        if len(x) != shape[depth]:
            raise ValueError(
                f"expected sequence of length {shape[depth]} at dim {depth} (got {len(x)})"
            )
        for v in x:
            walk(v, depth + 1)

    walk(data, 0)
    if tensor_dtypes:
        # PyTorch promotes the elements' dtypes: a tensor's (or NumPy scalar's) own, and
        # int64, the default float or complex dtype, or bool for a Python number.
        inferred: dt.dtype | None = tensor_dtypes[0]
        for d in tensor_dtypes[1:] + [_PYTHON_DTYPE[k]() for k in kinds]:
            inferred = dt.promote_types(inferred, d)  # type: ignore[arg-type]
    elif complex in kinds:
        inferred = dt.get_default_dtype().to_complex()
    elif float in kinds:
        inferred = dt.get_default_dtype()
    elif int in kinds:
        inferred = dt.int64
    elif bool in kinds:
        inferred = dt.bool_
    else:
        inferred = None  # empty: default dtype
    return shape, flat, inferred


@checked(
    "tensor(Any data, *, ScalarType? dtype=None, Device? device=None, bool? requires_grad=False,"
    " bool pin_memory=False) -> Tensor"
)
def tensor(
    data: Any,
    *,
    dtype: dt.dtype | None = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor holding a copy of ``data`` (nested sequences, scalars, or arrays).

    The dtype is inferred as in PyTorch: bools give ``bool``, ints ``int64``, floats the
    default dtype, complex numbers the matching complex dtype. ``pin_memory=True`` puts the
    copy in an accelerator's page-locked host memory (:meth:`Tensor.pin_memory`). A tensor
    ``data`` is copied (detached, on its own device unless ``device`` is given) with PyTorch's
    ``UserWarning`` recommending ``data.detach().clone()``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.tensor([[1, 2], [3, 4]]).dtype
    tensorcore.int64
    >>> tc.tensor([1.5, 2]).tolist()
    [1.5, 2.0]
    """
    if isinstance(data, Tensor):
        warn_copy_construct("tensorcore.tensor(sourceTensor)", 4)  # (under its checker)
    return copy_construct(data, dtype, device, requires_grad, pin_memory)


def warn_copy_construct(spelling: str, stacklevel: int) -> None:
    """PyTorch's ``UserWarning`` for a tensor built from a tensor (``spelling``: the call),
    pointing ``stacklevel`` frames up: at the caller of the public function."""
    warnings.warn(
        "To copy construct from a tensor, it is recommended to use "
        "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
        f"rather than {spelling}.",
        UserWarning,
        stacklevel=stacklevel,
    )


def copy_construct(
    data: Any, dtype: dt.dtype | None, device: Any, requires_grad: bool, pin_memory: bool
) -> Tensor:
    """:func:`tensor` without its argument checks and warning (``Tensor.new_tensor``)."""
    if isinstance(data, Tensor):
        # (PyTorch: without ``device``, the copy stays on the data's device.)
        dev = data._device if device is None else _device(device)
        out = data.detach().to(device=dev, dtype=dtype or data._dtype, copy=True)
    else:
        dev = get_default_device() if device is None else _device(device)
        out = _from_foreign(data, dtype, dev, copy=True)
        if out is None:
            shape, flat, inferred = _infer(data)
            target = dtype or inferred or dt.get_default_dtype()
            _check_elements(flat, target)
            iface = _registry.interface(dev)
            out = iface.from_data(flat, shape, target, dev)
    if pin_memory:
        out = out.pin_memory()
    if requires_grad:
        factory_requires_grad(out)
    return out


def _check_elements(flat: list[Any], d: dt.dtype) -> None:
    """Refuse values ``d`` cannot hold before any backend sees them (PyTorch's checks):
    a complex number for a real dtype, a number outside an integer dtype's range, NaN or
    infinity for an integer dtype. Only the extremes are checked one by one."""
    if not flat or d._category == dt.BOOL:
        return
    # The element types, collected at C speed (subclasses such as NumPy's float64 included).
    kinds = set(map(type, flat))
    if d._category < dt.COMPLEX and any(issubclass(k, complex) for k in kinds):
        bad = next(v for v in flat if isinstance(v, complex))
        if bad.imag != 0 or d._category < dt.FLOATING:
            raise TypeError(f"can't convert complex value {bad} to a {d.name} tensor")
        flat[:] = [v.real if isinstance(v, complex) else v for v in flat]
    if d._category != dt.INTEGRAL:
        return
    if any(issubclass(k, float) for k in kinds) and not all(map(math.isfinite, flat)):
        dt.check_scalar(next(v for v in flat if not math.isfinite(v)), d)
    dt.check_scalar(min(flat), d)
    dt.check_scalar(max(flat), d)


def _from_foreign(data: Any, dtype: dt.dtype | None, dev: Any, copy: bool) -> Tensor | None:
    if isinstance(data, (list, tuple, *_SCALARS)):
        return None
    for iface in _registry.interfaces().values():
        if not iface.is_available():
            continue
        # Each backend is asked for a tensor on a device of its own type (``dev`` where it
        # is one); one that understands ``data`` elsewhere is moved here.
        own = dev if dev.type == iface.type else _device(iface.type)
        t = iface.from_object(data, dtype, own, copy)
        if t is not None:
            return t if own is dev else t.to(device=dev)
    return None


@checked("as_tensor(Any data, ScalarType? dtype=None, Device? device=None) -> Tensor")
def as_tensor(data: Any, dtype: dt.dtype | None = None, device: Any = None) -> Tensor:
    """Like :func:`tensor`, but shares memory with ``data`` when dtype and device allow.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.ones(2)
    >>> tc.as_tensor(x) is x
    True
    """
    if isinstance(data, Tensor):
        return data.to(device=device or data._device, dtype=dtype or data._dtype)
    dev = get_default_device() if device is None else _device(device)
    out = _from_foreign(data, dtype, dev, copy=False)
    if out is not None:
        return out
    return tensor(data, dtype=dtype, device=dev)


@checked("from_numpy(Any ndarray) -> Tensor")
def from_numpy(ndarray: Any) -> Tensor:
    """A CPU tensor sharing memory with a NumPy array.

    Examples
    --------
    >>> import numpy as np, tensorcore as tc
    >>> a = np.zeros(3, dtype=np.float32)
    >>> t = tc.from_numpy(a); t[0] = 5
    >>> a.tolist()
    [5.0, 0.0, 0.0]
    """
    if type(ndarray).__module__ != "numpy" or not hasattr(ndarray, "__array_interface__"):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    cpu = _device("cpu")
    t = _registry.interface(cpu).from_object(ndarray, None, cpu, False)
    if t is None:
        raise TypeError(f"can't convert np.ndarray of type {ndarray.dtype}")
    return t


@checked("from_dlpack(Any ext_tensor, *, Device? device=None, bool? copy=None) -> Tensor")
def from_dlpack(ext_tensor: Any, *, device: Any = None, copy: bool | None = None) -> Tensor:
    """A tensor over the memory of any object that implements the DLPack protocol.

    ``copy=None`` (the default) shares memory whenever it can; ``copy=True`` always copies;
    ``copy=False`` never copies and raises ``BufferError`` where sharing is impossible (a
    read-only or negatively strided producer, or another ``device``). ``device`` moves the
    result there.

    Examples
    --------
    >>> import numpy as np, tensorcore as tc
    >>> a = np.arange(3)
    >>> t = tc.from_dlpack(a); t[0] = 7
    >>> a.tolist()
    [7, 1, 2]
    >>> tc.from_dlpack(a, copy=True).data_ptr() == t.data_ptr()
    False
    """
    if not hasattr(ext_tensor, "__dlpack__"):
        raise TypeError(f"from_dlpack(): {type(ext_tensor).__name__} does not implement __dlpack__")
    dev_type, _ = ext_tensor.__dlpack_device__()
    target = None if device is None else _device(device)
    for iface in _registry.interfaces().values():
        fn = getattr(iface, "from_dlpack", None)
        if fn is not None and iface.is_available():
            # A backend shares where it can; asked with copy=False, it raises BufferError
            # where it cannot (the keyword is passed only then, so older backends work).
            t = fn(ext_tensor, copy=False) if copy is False else fn(ext_tensor)
            if t is not None:
                break
    else:
        raise RuntimeError(
            f"from_dlpack(): no installed backend accepts DLPack device type {dev_type}"
        )
    if target is not None and t._device != target:
        if copy is False:
            raise BufferError(
                f"from_dlpack(): copy=False, but the producer's memory is on {t._device}, "
                f"not {target}"
            )
        return t.to(target)
    return t.clone() if copy else t


def scalar_tensor(value: Any, like: Tensor) -> Tensor:
    """A 0-d tensor holding ``value`` on ``like``'s device, with the scalar's own dtype."""
    return _registry.interface(like._device).from_data(
        [value], (), dt.scalar_dtype(value), like._device
    )
