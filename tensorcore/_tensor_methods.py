"""Tensor methods that are not table operators: conversion, indexing, Python operators, and
the autograd attributes. Attached to :class:`Tensor` at import."""

from __future__ import annotations

import warnings
from typing import Any

from . import _comparison, _pinned, _shared_memory, _typed_storage
from . import dtypes as dt
from ._inplace_views import INPLACE_VIEWS
from ._memory_format import format_strides, suggest_memory_format
from ._storage import VersionCounter
from ._tensor import (
    _TORCH_NAMES,
    KEEP_MESSAGE,
    Tensor,
    contiguous_strides,
    cpp_name,
    make_tensor,
    torch_name,
)
from .autograd import grad_mode as _grad_mode
from .autograd.graph import current_grad_fn
from .autograd.graph import requires_grad as _public_rg
from .devices import device as _device
from .layouts import memory_format, preserve_format, strided
from .ops import functions as ops
from .ops._transfer import same_device, to_device_copy
from .ops._validate import STANDARD, checked, name_error, type_name, v_bool, v_device, v_dtype
from .ops.factories import copy_construct, warn_copy_construct
from .plugins import manager

__all__ = ["install"]


def native(self: Tensor) -> Any:
    """The backend's native array for this tensor (made once, lazily, never a copy); made
    afresh on every call for a device whose arrays are values (``mutable_arrays`` false),
    whose storage's array a write replaces."""
    n = self._native
    if n is None:
        iface = manager.device_backend(self._device)
        n = iface.materialize(self)
        if iface.mutable_arrays:
            self._native = n
    return n


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


def _layout_of(self: Tensor) -> Any:
    """The ``layout=`` of a ``new_*`` factory: ``self``'s (PyTorch's ``new_zeros`` of a
    sparse tensor is sparse: the factory runs the layout's kernel), None for strided."""
    return None if self._layout is strided else self._layout


def _new_factory(name: str) -> Any:
    factory = getattr(ops, name)

    def new(
        self: Tensor,
        *size: Any,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
        **kwargs: Any,
    ) -> Tensor:
        if "size" in kwargs:
            if size:
                raise TypeError(f"new_{name}() got multiple values for argument 'size'")
            size = (kwargs.pop("size"),)
        pin = kwargs.pop("pin_memory", False)
        layout = kwargs.pop("layout", None)
        if kwargs:
            raise TypeError(f"new_{name}() got unexpected keyword arguments {sorted(kwargs)}")
        res = factory(
            *size,
            dtype=self._dtype if dtype is None else dtype,
            device=self._device if device is None else device,
            requires_grad=requires_grad and not pin,
            layout=_layout_of(self) if layout is None else layout,
        )
        if pin:
            # Pinned memory comes from an accelerator backend: a pinned copy (PyTorch
            # allocates it pinned), a leaf as the factory's result is.
            res = _pinned.pin_memory(res).requires_grad_(requires_grad)
        return res

    new.__name__ = new.__qualname__ = f"new_{name}"
    new.__doc__ = (
        f"A new tensor from ``tensorcore.{name}(*size)``, with ``self``'s dtype and device "
        "unless given; ``pin_memory=True`` puts it in pinned host memory "
        "(:meth:`Tensor.pin_memory`)."
    )
    return new


def new_full(
    self: Tensor,
    size: Any,
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``tensorcore.full(size, fill_value)`` with ``self``'s dtype and device unless given.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.ones(2, dtype=tc.float64).new_full((3,), 7)
    tensor([7., 7., 7.], dtype=tensorcore.float64)
    """
    return ops.full(
        size,
        fill_value,
        dtype=self._dtype if dtype is None else dtype,
        device=self._device if device is None else device,
        requires_grad=requires_grad,
        layout=_layout_of(self),
    )


def new_tensor(
    self: Tensor,
    data: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``tensorcore.tensor(data)`` (a copy) with ``self``'s dtype and device unless given."""
    if isinstance(data, Tensor):
        warn_copy_construct("tensor.new_tensor(sourceTensor)", 3)
    return copy_construct(
        data,
        self._dtype if dtype is None else dtype,
        self._device if device is None else device,
        requires_grad,
        False,
    )


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


@checked("numpy(Tensor self, *, bool force=False) -> Any")
def numpy(self: Tensor, *, force: bool = False) -> Any:
    """The tensor as a NumPy array sharing its memory (CPU tensors only).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.arange(3).numpy()
    array([0, 1, 2])
    """
    if not force and _public_rg(self):
        raise RuntimeError(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
        )
    if self._layout.name != "strided":
        # Only strided tensors have memory NumPy can view (a sparse tensor has no storage).
        raise TypeError(
            f"can't convert {self._layout.name} layout tensor to numpy. Use Tensor.to_dense() "
            "first."
        )
    arr = manager.device_backend(self._device).to_numpy(self)
    if arr is None:
        if force:
            return numpy(self.cpu().detach())
        raise TypeError(
            f"can't convert {self._device} device type tensor to numpy. Use Tensor.cpu() to "
            "copy the tensor to host memory first."
        )
    return arr


def __array__(self: Tensor, dtype: Any = None, copy: Any = None) -> Any:
    arr = numpy(self.detach())
    return arr if dtype is None else arr.astype(dtype, copy=False)


def __dlpack__(
    self: Tensor,
    *,
    stream: Any = None,
    max_version: tuple[int, int] | None = None,
    dl_device: tuple[Any, int] | None = None,
    copy: bool | None = None,
) -> Any:
    """A DLPack capsule of this tensor's memory (the standard's keywords: a ``stream`` to
    order the export on, the consumer's ``max_version``, a ``dl_device`` to export to and
    ``copy``), produced by the device backend's ``to_dlpack`` (by default the native array's
    ``__dlpack__``)."""
    if _public_rg(self):
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
    if self._layout.name != "strided":
        raise BufferError(
            f"__dlpack__(): can't export a {self._layout.name} tensor (DLPack describes strided "
            "memory only); use Tensor.to_dense() first"
        )
    return manager.device_backend(self._device).to_dlpack(
        self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy
    )


def __array_namespace__(self: Tensor, /, *, api_version: str | None = None) -> Any:
    """The array API standard's namespace for tensors: :mod:`tensorcore.array_api`."""
    from . import array_api

    if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12"):
        raise ValueError(f"__array_namespace__(): unsupported api_version {api_version!r}")
    return array_api


def to_device(self: Tensor, device: Any, /, *, stream: Any = None) -> Tensor:
    """This tensor on ``device`` (itself when it is already there), as the array API
    standard spells ``.to(device)``."""
    if stream is not None:
        raise ValueError("to_device(): stream is not supported")
    return self.to(device)


def _cuda_array_interface(self: Tensor) -> Any:
    """The native array's ``__cuda_array_interface__`` (device backends that have one)."""
    if _public_rg(self):
        raise RuntimeError(
            "Can't get __cuda_array_interface__ on Variable that requires grad. "
            "If gradients aren't required, use var.detach() to get Variable that doesn't "
            "require grad."
        )
    n = native(self)
    try:
        return n.__cuda_array_interface__
    except AttributeError:
        raise AttributeError(
            f"Can't get __cuda_array_interface__ on non-CUDA tensor type: {self._device} tensor"
        ) from None


def __dlpack_device__(self: Tensor) -> Any:
    return native(self).__dlpack_device__()


# ------------------------------------------------------------------ autograd attributes
def _get_requires_grad(self: Tensor) -> bool:
    """Whether gradients are computed for this tensor (a dual tensor's tangent alone does
    not make it require grad, as in PyTorch); a view requires grad where its base does."""
    return _public_rg(self)


def _set_requires_grad(self: Tensor, value: bool) -> None:
    if value and not (self._dtype.is_floating_point or self._dtype.is_complex):
        # (the attribute's words; requires_grad_() says "floating point dtype")
        raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
    requires_grad_(self, value)


requires_grad = property(_get_requires_grad, _set_requires_grad)


@checked("requires_grad_(Tensor self, bool requires_grad=True) -> Tensor")
def requires_grad_(self: Tensor, requires_grad: bool = True) -> Tensor:
    """Set ``requires_grad`` in place; returns self.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.ones(2).requires_grad_().requires_grad
    True
    """
    if requires_grad and not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if requires_grad and is_inference(self) and not _grad_mode.is_inference_mode_enabled():
        exc = RuntimeError(
            "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
        )
        setattr(exc, KEEP_MESSAGE, True)  # (PyTorch's words, without the method's name)
        raise exc
    if not requires_grad and self._grad_fn is not None:
        raise RuntimeError(
            "you can only change requires_grad flags of leaf variables. If you want to use a "
            "computed variable in a subgraph that doesn't require differentiation use "
            "var_no_grad = var.detach()."
        )
    ag = self._ag
    if ag is not None and ag.fw_grad is not None:
        # A dual tensor stays in the autograd step's reach, whatever its public flag.
        ag.fw_only = not requires_grad
        return self
    self._requires_grad = bool(requires_grad)
    return self


def _is_leaf(self: Tensor) -> bool:
    """True for tensors not produced by a recorded operation."""
    return self._grad_fn is None


def _grad_fn(self: Tensor) -> Any:
    """The graph node that produced this tensor, or None for leaves. A view whose base (or
    another view of its base) was modified in place since gets a new one from the base's
    history, as in PyTorch (``AsStridedBackward0``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> b = tc.ones(3, requires_grad=True) * 1
    >>> v = b[0]
    >>> v.grad_fn.name()
    'SelectBackward0'
    >>> _ = b.mul_(10)
    >>> v.grad_fn.name()
    'AsStridedBackward0'
    """
    return current_grad_fn(self)


is_leaf = property(_is_leaf)
grad_fn = property(_grad_fn)


def is_inference(self: Tensor) -> bool:
    """Whether ``self`` is an inference tensor: one made inside ``inference_mode``, or a
    view of one (a view of an ordinary tensor taken inside is ordinary), as in PyTorch.
    A tensor without a storage (a sparse one) is never one here.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.ones(2)
    >>> with tc.inference_mode():
    ...     y = x * 2
    ...     v = x[:1]
    >>> y.is_inference(), y[:1].is_inference(), v.is_inference(), (y + 1).is_inference()
    (True, True, False, False)
    """
    st = self._storage
    return st is not None and st.inference


def detach(self: Tensor) -> Tensor:
    """A view of the same storage that does not require grad and has no history. It shares
    ``self``'s version counter: an in-place write through it is still seen by autograd
    where ``self`` was saved for backward (unlike a write through :attr:`data`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.ones(2, requires_grad=True)
    >>> x.detach().requires_grad
    False
    """
    vc = self._version_counter
    if vc is None and is_inference(self) and not _grad_mode.is_inference_mode_enabled():
        vc = VersionCounter()  # (PyTorch's detach of one may be written to, as .data)
    return _alias(self, vc)


def _get_data(self: Tensor) -> Tensor:
    """The tensor's values without its history: a tensor over the same storage that does not
    require grad (writes through it are not recorded). Assigning ``t.data = other`` makes
    ``t`` view ``other``'s storage, shape, strides, dtype and device, keeping ``t``'s identity
    (its ``requires_grad``, ``.grad``, hooks and version counter), as ``Module.to`` does with
    parameters.

    Unlike :meth:`detach`, ``t.data`` has a version counter of its own, as in PyTorch (each
    access makes a new one, at 0): an in-place write through it (or through its views) is
    hidden from autograd, so a backward that saved ``t`` does not raise, and a write through
    ``t`` does not move ``t.data._version``. That is what optimizers rely on to update
    parameters in place; prefer ``t.detach()`` under ``no_grad`` where autograd must see it.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.ones(2, requires_grad=True)
    >>> w.data.mul_(3)
    tensor([3., 3.])
    >>> w._version, w.data._version
    (0, 0)
    >>> w.data = tc.zeros(3, dtype=tc.float64)
    >>> w
    tensor([0., 0., 0.], dtype=tensorcore.float64, requires_grad=True)
    """
    return _alias(self, VersionCounter())


def _alias(self: Tensor, counter: VersionCounter | None) -> Tensor:
    """A tensor over ``self``'s storage and geometry, without history, counting its versions
    on ``counter`` (None: the storage's)."""
    t = make_tensor(
        self._storage,
        self._shape,
        self._stride,
        self._offset,
        self._dtype,
        self._device,
        self._native,
        self._layout,
    )
    t._version_counter = counter
    return t


def _set_part(part: Any) -> Any:
    # ``z.imag = v`` copies v into the view, as PyTorch's setter; ``kf.imag *= -1`` (an
    # in-place product on the view, then this assignment of the same view) conjugates kf.
    def setter(self: Tensor, value: Any) -> None:
        view = part(self)
        if isinstance(value, Tensor):
            view.copy_(value)
        else:
            view.fill_(value)

    return setter


def _set_data(self: Tensor, value: Tensor) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"Tensor.data must be assigned a Tensor, not {type(value).__name__}")
    if _public_rg(self) and not (value._dtype.is_floating_point or value._dtype.is_complex):
        raise RuntimeError(
            f"data set to a tensor of dtype {value._dtype.name}, but this tensor requires "
            "grad: only Tensors of floating point and complex dtype can require gradients"
        )
    version = self._version
    self._storage = value._storage
    self._shape = value._shape
    self._stride = value._stride
    self._offset = value._offset
    self._dtype = value._dtype
    self._device = value._device
    self._layout = value._layout
    self._native = value._native
    if self._version_counter is None:
        # ``self`` keeps its own count (PyTorch's set_data): its old storage's counter,
        # which it no longer views, carried on; ``value``'s writes are not ``self``'s.
        self._version_counter = VersionCounter(version)


data = property(_get_data, _set_data)


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


def detach_(self: Tensor) -> Tensor:
    """Detach in place: drop the history and stop requiring grad. A view cannot be (its
    history is its base's), as in PyTorch.

    Examples
    --------
    >>> import tensorcore as tc
    >>> y = tc.ones(2, requires_grad=True) * 2
    >>> y.detach_().requires_grad
    False
    >>> y[:1].detach_()
    Traceback (most recent call last):
      ...
    RuntimeError: Can't detach views in-place. Use detach() instead. ...
    """
    if self._base is not None:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead. If you are using "
            "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
            "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
            "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
            "function in torch/optim/optimizer.py as the solution."
        )
    self._grad_fn = None
    self._requires_grad = False
    if self._ag is not None:  # (and drop a tangent: a detached tensor has none)
        self._ag.fw_grad = None
        self._ag.fw_only = False
    return self


@checked(
    "backward(Tensor self, Tensor? gradient=None, bool? retain_graph=None, "
    "bool create_graph=False, Any inputs=None) -> None"
)
def backward(
    self: Tensor,
    gradient: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """Accumulate the gradient of this tensor into the ``.grad`` of the graph's leaves.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([1.0, 2.0], requires_grad=True)
    >>> (x * x).sum().backward(); x.grad
    tensor([2., 4.])
    """
    from .autograd.engine import backward as _backward

    _backward(self, gradient, retain_graph, create_graph, inputs)


def _get_grad(self: Tensor) -> Tensor | None:
    """The accumulated gradient (leaves, and non-leaves after :meth:`retain_grad`)."""
    return self._grad


def _set_grad(self: Tensor, value: Tensor | None) -> None:
    if value is not None:
        if not isinstance(value, Tensor):
            raise TypeError(
                f"assigned grad expected to be a Tensor or None but got {type(value).__name__}"
            )
        if value._shape != self._shape:
            raise RuntimeError(
                f"assigned grad has data of a different size: {list(value._shape)} vs "
                f"{list(self._shape)}"
            )
        if value._device != self._device:
            raise RuntimeError("assigned grad has data located on a different device")
        if value._dtype is not self._dtype:
            # (the optimizers and the accumulation in backward assume the parameter's dtype)
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{cpp_name(value._dtype)}' to a "
                f"tensor with grad_dtype '{torch_name(self._dtype)}'. The gradient must match "
                "the tensor's grad_dtype (defaults to the tensor's dtype)."
            )
    self._grad = value


grad = property(_get_grad, _set_grad)


def retain_grad(self: Tensor) -> None:
    """Keep the gradient of this non-leaf tensor in ``.grad`` during backward: the gradient
    after the tensor's hooks have run, whenever they were registered (PyTorch >= 2.0).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.ones(2, requires_grad=True)
    >>> y = x * 2
    >>> y.retain_grad()
    >>> _ = y.register_hook(lambda g: g * 10)
    >>> y.sum().backward(); y.grad
    tensor([10., 10.])
    """
    from .autograd.graph import RetainGrad, add_tensor_hook, autograd_meta

    if not _public_rg(self):
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self._grad_fn is None:
        return
    m = autograd_meta(self)
    if m.retains_grad:
        return
    m.retains_grad = True
    add_tensor_hook(self, RetainGrad(self))


def _retains_grad(self: Tensor) -> bool:
    """Whether :meth:`retain_grad` was called on this non-leaf tensor."""
    return bool(self._ag is not None and self._ag.retains_grad)


retains_grad = property(_retains_grad)


class _RemovableHandle:
    def __init__(self, hooks: list[Any], fn: Any) -> None:
        self._hooks, self._fn = hooks, fn

    def remove(self) -> None:
        if self._fn in self._hooks:
            self._hooks.remove(self._fn)


@checked("register_hook(Tensor self, Callable hook) -> Any")
def register_hook(self: Tensor, hook: Any) -> _RemovableHandle:
    """Call ``hook(grad)`` when this tensor's gradient is computed; a non-None return
    replaces the gradient. Returns a handle with ``remove()``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.ones(2, requires_grad=True)
    >>> h = x.register_hook(lambda g: g * 10)
    >>> x.sum().backward(); x.grad
    tensor([10., 10.])
    """
    from .autograd.graph import add_tensor_hook, autograd_meta

    if not _public_rg(self):
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if current_grad_fn(self) is None:  # (a view whose base joined the graph gets its node)
        hooks = autograd_meta(self).hooks
        hooks.append(hook)
    else:
        hooks = add_tensor_hook(self, hook)
    return _RemovableHandle(hooks, hook)


@checked("register_post_accumulate_grad_hook(Tensor self, Callable hook) -> Any")
def register_post_accumulate_grad_hook(self: Tensor, hook: Any) -> _RemovableHandle:
    """Call ``hook(tensor)`` after a gradient has been accumulated into this leaf's
    ``.grad`` during backward (its return value is ignored). Returns a handle with
    ``remove()``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.ones(2, requires_grad=True)
    >>> seen = []
    >>> h = w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.tolist()))
    >>> (w * 3).sum().backward(); seen
    [[3.0, 3.0]]
    """
    from .autograd.graph import autograd_meta

    if not _public_rg(self):
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    hooks = autograd_meta(self).post_accumulate_hooks
    hooks.append(hook)
    return _RemovableHandle(hooks, hook)


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
