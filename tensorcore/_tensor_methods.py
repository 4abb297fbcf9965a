"""Tensor methods that are not table operators: conversion (``to``, ``copy_``, ``type``, the
dtype casts, Python numbers) and the Python operators; :func:`install` attaches them, and
those of ``_tensor_autograd``, ``_tensor_factories`` and ``_tensor_interop``, to
:class:`Tensor` at import."""

from __future__ import annotations

import warnings
from typing import Any

from . import _comparison, _pinned, _shared_memory, _typed_storage
from . import dtypes as dt
from ._inplace_views import INPLACE_VIEWS
from ._memory_format import format_strides, suggest_memory_format
from ._tensor import _TORCH_NAMES, Tensor, contiguous_strides, torch_name
from ._tensor_autograd import (
    _set_part,
    backward,
    data,
    detach,
    detach_,
    grad,
    grad_fn,
    is_inference,
    is_leaf,
    register_hook,
    register_post_accumulate_grad_hook,
    requires_grad,
    requires_grad_,
    retain_grad,
    retains_grad,
)
from ._tensor_factories import _new_factory, new_full, new_tensor
from ._tensor_interop import (
    __array__,
    __array_namespace__,
    __dlpack__,
    __dlpack_device__,
    _cuda_array_interface,
    native,
    numpy,
    to_device,
)
from .autograd import grad_mode as _grad_mode
from .autograd.graph import requires_grad as _public_rg
from .devices import device as _device
from .layouts import memory_format, preserve_format
from .ops import functions as ops
from .ops._transfer import same_device, to_device_copy
from .ops._validate import STANDARD, name_error, type_name, v_bool, v_device, v_dtype

__all__ = ["install"]


# ------------------------------------------------------------------ conversion
def _parse_to(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Any, bool, bool, memory_format | None]:
    """PyTorch's three forms: ``to(dtype, non_blocking, copy)``, ``to(device, dtype,
    non_blocking, copy)`` and ``to(other, non_blocking, copy)``, each with the keyword
    ``memory_format``; anything else is a ``TypeError`` naming what was passed."""
    unknown = set(kwargs) - {"device", "dtype", "non_blocking", "copy", "memory_format"}
    if unknown:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(unknown)}")
    dev = kwargs.get("device")
    dtype = kwargs.get("dtype")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        other = rest.pop(0)
        dev, dtype = other._device, other._dtype
    elif rest and isinstance(rest[0], dt.dtype):
        dtype = rest.pop(0)
    elif rest and (
        rest[0] is None
        or (isinstance(rest[0], (str, _device, int)) and not isinstance(rest[0], bool))
    ):
        dev = rest.pop(0)
        if rest and isinstance(rest[0], dt.dtype):
            dtype = rest.pop(0)
    flags = rest
    if len(flags) > 2 or not all(isinstance(f, bool) for f in flags):
        got = ", ".join(type_name(a) for a in args)
        raise TypeError(
            f"to() received an invalid combination of arguments - got ({got}), but expected one "
            "of: (dtype, non_blocking=False, copy=False), (device=None, dtype=None, "
            "non_blocking=False, copy=False) or (Tensor other, non_blocking=False, copy=False)"
        )
    non_blocking = kwargs.get("non_blocking", flags[0] if flags else False)
    copy = kwargs.get("copy", flags[1] if len(flags) > 1 else False)
    non_blocking = v_bool("to", "non_blocking", non_blocking)
    copy = v_bool("to", "copy", copy)
    dtype = v_dtype("to", "dtype", dtype, True)
    if isinstance(dev, int) and not isinstance(dev, bool):
        dev = f"cuda:{dev}"  # PyTorch: an int is an accelerator index
    dev = v_device("to", "device", dev, True)
    fmt = kwargs.get("memory_format")
    if fmt is not None and fmt.__class__ is not memory_format:
        raise TypeError(
            f"to(): argument 'memory_format' must be tensorcore.memory_format, not {type_name(fmt)}"
        )
    return dev, dtype, non_blocking, copy, fmt


def to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Convert to another dtype and/or device; returns ``self`` when nothing changes.

    Accepts ``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)`` and the
    keywords ``dtype``, ``device``, ``non_blocking``, ``copy`` and ``memory_format`` (the
    result's layout, ``tensorcore.channels_last`` for NHWC; ``self`` when already in it).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.ones(2)
    >>> x.to(tc.float32) is x, x.to(tc.int64).dtype
    (True, tensorcore.int64)
    >>> y = tc.ones(2, 3, 4, 5).to(memory_format=tc.channels_last)
    >>> y.stride(), y.to(memory_format=tc.channels_last) is y
    ((60, 1, 15, 3), True)
    """
    if not kwargs and len(args) == 1 and args[0].__class__ is dt.dtype:
        dev, dtype, non_blocking, copy, fmt = None, args[0], False, False, None  # x.to(dtype)
    else:
        dev, dtype, non_blocking, copy, fmt = _parse_to(args, kwargs)
    try:
        out = _to(self, dev, dtype, non_blocking, copy)
        if fmt is None or fmt is preserve_format:
            return out
        return _to_format(self, out, fmt)
    except STANDARD as exc:
        name_error(exc, "to")
        raise


def _to_format(self: Tensor, out: Tensor, fmt: memory_format) -> Tensor:
    """``out`` (``self`` converted) in the memory format ``fmt``: ``self`` itself where its
    strides already suggest ``fmt`` (PyTorch's ``to_will_alias``), else a tensor with the
    strides of ``fmt``."""
    shape = self._shape
    want = contiguous_strides(shape) if fmt.order is None else format_strides(fmt, shape)
    if out is self:
        if suggest_memory_format(shape, self._stride) is fmt:
            return self
    elif out._stride == want:
        return out
    return out.clone(memory_format=fmt)


def _to(self: Tensor, dev: Any, dtype: Any, non_blocking: bool, copy: bool) -> Tensor:
    out = self
    if (
        dev is not None
        and dev != self._device
        and not (dev.index is None and dev.type == self._device.type)
    ):
        out = _call(_TO_DEVICE, (out, dev, non_blocking))
    if dtype is not None and dtype is not out._dtype:
        r = _TO_DTYPE.lane(out, dtype)  # (None: a call the lane leaves to ``call``)
        out = r if r is not None else _call(_TO_DTYPE, (out, dtype))
    if copy and out is self:
        out = self.clone()
    return out


def copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    """Copy ``src`` into ``self`` (broadcast, cast to ``self.dtype``, across devices).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.zeros(2, 3)
    >>> x.copy_(tc.tensor([1, 2, 3])).tolist()
    [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    """
    if not isinstance(self, Tensor):
        raise TypeError(f"copy_(): expected a Tensor as self, got {type_name(self)}")
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type_name(src)}")
    non_blocking = v_bool("copy_", "non_blocking", non_blocking)
    if (
        src._device != self._device
        and src.ndim + self.ndim
        and not (src._device.type == "cpu" and not src._shape)
        and not same_device(src._device, self._device)
    ):
        moved = to_device_copy(src, self._device, non_blocking)
        return _call_inplace(_COPY, (self, moved, non_blocking))
    return _call_inplace(_COPY, (self, src, non_blocking))


def _cast(d: dt.dtype) -> Any:
    def cast(self: Tensor, memory_format: Any = None) -> Tensor:
        if memory_format is None:
            return self.to(d)
        return self.to(d, memory_format=memory_format)

    cast.__doc__ = f"``self.to(tensorcore.{d.name})``."
    return cast


_BY_TORCH_NAME = {v: dt.by_name[k] for k, v in _TORCH_NAMES.items()}


def legacy_type_name(t: Tensor) -> str:
    """PyTorch's legacy type string of a tensor: ``tensorcore.FloatTensor``,
    ``tensorcore.cuda.LongTensor``, ``tensorcore.sparse.FloatTensor`` (sparse COO)..."""
    dev = "" if t._device.type == "cpu" else f"{t._device.type}."
    sparse = "sparse." if t.layout.name == "sparse_coo" else ""
    return f"tensorcore.{dev}{sparse}{torch_name(t._dtype)}Tensor"


def type_(self: Tensor, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
    """With no argument, the type string (``'tensorcore.FloatTensor'``); with a dtype (or a
    type string such as ``'torch.LongTensor'``), ``self`` cast to it (``self`` itself when it
    already has that dtype), as PyTorch's ``Tensor.type``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> t = tc.tensor([True, False])
    >>> t.type()
    'tensorcore.BoolTensor'
    >>> t.type(tc.float32)
    tensor([1., 0.])
    >>> t.type("torch.LongTensor")
    tensor([1, 0])
    >>> t.type(tc.DoubleTensor).dtype
    tensorcore.float64
    """
    if dtype is None:
        return legacy_type_name(self)
    legacy = getattr(dtype, "dtype", None) if isinstance(dtype, type) else None
    if isinstance(legacy, dt.dtype):
        dtype = legacy  # a legacy type: x.type(tc.LongTensor)
    if isinstance(dtype, str):
        name = dtype.rsplit(".", 1)[-1]
        if not name.endswith("Tensor") or name[: -len("Tensor")] not in _BY_TORCH_NAME:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _BY_TORCH_NAME[name[: -len("Tensor")]]
    if not isinstance(dtype, dt.dtype):
        raise TypeError(f"type(): expected a dtype or a type string, got {type(dtype).__name__}")
    return self if dtype is self._dtype else self.to(dtype)


def cpu(self: Tensor) -> Tensor:
    """A copy on the CPU (``self`` when already there)."""
    return to(self, "cpu")


def cuda(self: Tensor, device: Any = None, non_blocking: bool = False) -> Tensor:
    """A copy on a CUDA device (``self`` when already there)."""
    d = (
        _device("cuda")
        if device is None
        else _device(device if not isinstance(device, int) else f"cuda:{device}")
    )
    return to(self, d, non_blocking=non_blocking)


_SCALAR_OF_GRAPH_WARNED = [False]


def _warn_scalar_of_graph(t: Tensor) -> None:
    """``float(t)`` or ``complex(t)`` of a tensor that requires grad, in grad mode: the number
    leaves the graph unnoticed, so PyTorch warns, once per process (its ``TORCH_WARN_ONCE``;
    ``int()``, ``item()`` and formatting do not warn)."""
    if _SCALAR_OF_GRAPH_WARNED[0] or not _grad_mode.is_grad_enabled() or not _public_rg(t):
        return
    _SCALAR_OF_GRAPH_WARNED[0] = True
    warnings.warn(
        "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
        "behavior.\nConsider using tensor.detach() first.",
        UserWarning,
        stacklevel=3,
    )


def __float__(self: Tensor) -> float:
    """``float(t)`` of a one-element tensor; warns once where ``t`` requires grad, as
    PyTorch does.

    Examples
    --------
    >>> import warnings
    >>> import tensorcore as tc
    >>> from tensorcore import _tensor_methods
    >>> _tensor_methods._SCALAR_OF_GRAPH_WARNED[0] = False
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     x = float(tc.ones(2, requires_grad=True).sum())
    ...     y = float(tc.ones(2, requires_grad=True).sum())  # (once per process)
    >>> len(w), str(w[0].message).splitlines()[1], x
    (1, 'Consider using tensor.detach() first.', 2.0)
    """
    if self._requires_grad:
        _warn_scalar_of_graph(self)
    return float(self._one_scalar())


def __complex__(self: Tensor) -> complex:
    """``complex(t)`` of a one-element tensor; warns as :func:`__float__` does."""
    if self._requires_grad:
        _warn_scalar_of_graph(self)
    return complex(self._one_scalar())


_TO_DEVICE: Any = None
_TO_DTYPE: Any = None
_COPY: Any = None
_call_inplace: Any = None
_PERMUTE: Any = None
_TRANSPOSE: Any = None
_call: Any = None


# ------------------------------------------------------------------ Python operators
def _binop(name: str, reflected: bool = False, inplace: bool = False) -> Any:
    if not reflected and not inplace:
        # The operator function itself: ``a + b`` costs no extra Python frame.
        return getattr(ops, name)
    fn = getattr(ops, name)

    def op(self: Tensor, other: Any) -> Any:
        if not isinstance(other, (Tensor, bool, int, float, complex)):
            return NotImplemented
        if inplace:
            return getattr(self, name + "_")(other)
        # Pointwise operators take a Python scalar in any tensor position (as a weak type).
        return fn(other, self)

    op.__name__ = name
    return op


def _cmp(name: str) -> Any:
    fn = getattr(ops, name)

    def op(self: Tensor, other: Any) -> Any:
        if not isinstance(other, (Tensor, bool, int, float, complex)):
            return NotImplemented
        return fn(self, other)

    op.__name__ = f"__{name}__"
    return op


def _invert(self: Tensor) -> Tensor:
    if self._dtype is dt.bool_:
        return ops.logical_not(self)
    if self._dtype._category > dt.INTEGRAL:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return ops.bitwise_not(self)


def _T(self: Tensor) -> Tensor:
    n = len(self._shape)
    dims = _REVERSED.get(n)
    if dims is None:
        dims = _REVERSED[n] = tuple(range(n - 1, -1, -1))
    # (the operator's lane first, as its compiled function tries it: ``x.T`` costs what
    # ``x.permute(dims)`` does, without the call path's argument scan)
    r = _PERMUTE.lane(self, dims)
    return _call(_PERMUTE, (self, dims)) if r is None else r


# ``x.T``'s dim orders by number of dims (a tuple made once, not per call).
_REVERSED: dict[int, tuple[int, ...]] = {}


def _mT(self: Tensor) -> Tensor:
    if len(self._shape) < 2:
        raise RuntimeError(
            "tensor.mT is only supported on matrices or batches of matrices. "
            f"Got {self.ndim}-D tensor."
        )
    n = len(self._shape)
    r = _TRANSPOSE.lane(self, n - 2, n - 1)  # (as ``_T``)
    return _call(_TRANSPOSE, (self, n - 2, n - 1)) if r is None else r


def _adjoint_of(self: Tensor, what: str) -> Tensor:
    if len(self._shape) < 2:
        raise RuntimeError(
            f"{what} is only supported on matrices or batches of matrices. "
            f"Got {self.ndim}-D tensor."
        )
    t = _mT(self)
    return t.conj() if self._dtype.is_complex else t


def _mH(self: Tensor) -> Tensor:
    return _adjoint_of(self, "tensor.mH")


def _H(self: Tensor) -> Tensor:
    if len(self._shape) != 2:
        raise RuntimeError(
            "tensor.H is only supported on matrices (2-D tensors). Got "
            f"{self.ndim}-D tensor."
            + (" For batches of matrices, consider using tensor.mH" if self.ndim > 2 else "")
        )
    return _adjoint_of(self, "tensor.H")


def adjoint(self: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims (``x.mH``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.tensor([[1 + 2j, 3j]]).adjoint()
    tensor([[1.-2.j],
            [0.-3.j]])
    """
    return _adjoint_of(self, "tensor.adjoint()")


def _unsupported_int_matmul(self: Tensor, other: Any) -> Any:
    if not isinstance(other, Tensor):
        return NotImplemented
    return ops.matmul(self, other)


def install() -> None:
    """Attach the methods of this module to :class:`Tensor`."""
    from . import _legacy_linalg, _tensor_compat

    _tensor_compat.install()
    _legacy_linalg.install()
    global _TO_DEVICE, _TO_DTYPE, _COPY, _PERMUTE, _TRANSPOSE, _call, _call_inplace
    from . import _indexing
    from .dispatch import get_op
    from .ops._call import call, call_inplace

    _TO_DEVICE, _TO_DTYPE, _COPY = get_op("to_device"), get_op("to_dtype"), get_op("copy_")
    _call, _call_inplace = call, call_inplace
    _PERMUTE, _TRANSPOSE = get_op("permute"), get_op("transpose")
    _indexing.bind(get_op, call)
    T = Tensor
    for _name, _value in {
        "_arr": native,
        "to": to,
        "copy_": copy_,
        "cpu": cpu,
        "cuda": cuda,
        "numpy": numpy,
        "__array__": __array__,
        "__array_priority__": 1000,
        "__dlpack__": __dlpack__,
        "__dlpack_device__": __dlpack_device__,
        "__array_namespace__": __array_namespace__,
        "to_device": to_device,
        "__cuda_array_interface__": property(_cuda_array_interface),
    }.items():
        setattr(T, _name, _value)
    for name, d in [
        ("float", dt.float32),
        ("double", dt.float64),
        ("half", dt.float16),
        ("bfloat16", dt.bfloat16),
        ("int", dt.int32),
        ("long", dt.int64),
        ("short", dt.int16),
        ("char", dt.int8),
        ("byte", dt.uint8),
        ("bool", dt.bool_),
        ("cfloat", dt.complex64),
        ("cdouble", dt.complex128),
    ]:
        setattr(T, name, _cast(d))
    for _name, _value in INPLACE_VIEWS.items():
        setattr(T, _name, _value)
    for _name, _value in {
        "requires_grad": requires_grad,
        "requires_grad_": requires_grad_,
        "is_leaf": is_leaf,
        "is_inference": is_inference,
        "grad_fn": grad_fn,
        "detach": detach,
        "data": data,
        "type": type_,
        "new_zeros": _new_factory("zeros"),
        "new_ones": _new_factory("ones"),
        "new_empty": _new_factory("empty"),
        "new_full": new_full,
        "new_tensor": new_tensor,
        "backward": backward,
        "grad": grad,
        "retain_grad": retain_grad,
        "retains_grad": retains_grad,
        "register_hook": register_hook,
        "register_post_accumulate_grad_hook": register_post_accumulate_grad_hook,
        "detach_": detach_,
        "__float__": __float__,
        "__complex__": __complex__,
        "pin_memory": _pinned.pin_memory,
        "is_pinned": _pinned.is_pinned,
        "share_memory_": _shared_memory.share_memory_,
        "is_shared": _shared_memory.is_shared,
        "storage": _typed_storage.storage,
        "__getitem__": _indexing.__getitem__,
        "__setitem__": _indexing.__setitem__,
        "T": property(_T),
        "real": property(
            lambda self: ops.real(self),
            _set_part(ops.real),
            doc="The real part (a view); assigning to it writes into the tensor.",
        ),
        "imag": property(
            lambda self: ops.imag(self),
            _set_part(ops.imag),
            doc="The imaginary part (a view); assigning to it writes into the tensor.",
        ),
        "mT": property(_mT),
        "mH": property(_mH, doc="The conjugate transpose of the last two dims."),
        "H": property(_H, doc="The conjugate transpose of a matrix."),
        "adjoint": adjoint,
    }.items():
        setattr(T, _name, _value)
    for dunder, name in [
        ("add", "add"),
        ("sub", "sub"),
        ("mul", "mul"),
        ("truediv", "div"),
        ("floordiv", "floor_divide"),
        ("mod", "remainder"),
        ("pow", "pow"),
        ("and", "bitwise_and"),
        ("or", "bitwise_or"),
        ("xor", "bitwise_xor"),
        ("lshift", "bitwise_left_shift"),
        ("rshift", "bitwise_right_shift"),
    ]:
        setattr(T, f"__{dunder}__", _binop(name))
        setattr(T, f"__i{dunder}__", _binop(name, inplace=True))
        setattr(T, f"__r{dunder}__", _binop(name, reflected=True))
    for _name, _value in {
        "__radd__": _binop("add"),
        "__rmul__": _binop("mul"),
        "__matmul__": _unsupported_int_matmul,
        "__rmatmul__": lambda self, other: ops.matmul(other, self),
    }.items():
        setattr(T, _name, _value)
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):
        setattr(T, f"__{name}__", _cmp(name))
    for _name, _value in {
        "__neg__": lambda self: ops.neg(self),
        "__pos__": lambda self: ops.positive(self),
        "__abs__": lambda self: ops.abs(self),
        "__invert__": _invert,
        "where": lambda self, condition, other: ops.where(condition, self, other),
        "allclose": _comparison.allclose,
        "equal": _comparison.equal,
        # (declared as PyTorch declares it, ``polygamma(int n, Tensor self)``: the method binds
        # ``self``, which is not the first parameter)
        "polygamma": lambda self, n: ops.polygamma(n, self),
        "polygamma_": lambda self, n: self.copy_(ops.polygamma(n, self)),
    }.items():
        setattr(T, _name, _value)
