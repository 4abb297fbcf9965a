"""``Tensor`` methods and properties PyTorch programs call that are not operators: the
predicates (``is_signed``, ``is_nonzero``, ``is_meta``, the accelerators tensorcore has no
backend for), the conjugate/negative bits tensorcore never sets (``is_conj``,
``resolve_conj``), the legacy constructor ``x.new(...)``, Python-callable fills
(``apply_``, ``map_``, ``map2_``), ``resize_``/``resize_as_``, ``sum_to_size`` and
``dim_order``.

Examples
--------
>>> import tensorcore as tc
>>> x = tc.arange(6.0).reshape(2, 3)
>>> x.new(2, 2).shape, x.new([1, 2]), x.is_signed(), x.is_meta
(tensorcore.Size([2, 2]), tensor([1., 2.]), True, False)
>>> x.sum_to_size(1, 3)
tensor([[3., 5., 7.]])
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from . import dtypes as dt
from ._tensor import (
    Size,
    Tensor,
    contiguous_strides,
    make_tensor,
    refuse_inference_write,
    torch_name,
)
from ._tensor_set import set_
from .ops import functions as ops

__all__ = ["install"]


def is_signed(self: Tensor) -> bool:
    """Whether the dtype is signed (every floating and complex dtype, and int8..int64).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.ones(1).is_signed(), tc.ones(1, dtype=tc.uint8).is_signed()
    (True, False)
    """
    return bool(self._dtype.is_signed)


def is_nonzero(self: Tensor) -> bool:
    """Whether the single element is not zero (a tensor of more or fewer elements is an
    error, as ``bool(x)``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.tensor([3]).is_nonzero(), tc.tensor(0.0).is_nonzero()
    (True, False)
    """
    n = self.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())


def is_same_size(self: Tensor, other: Tensor) -> bool:
    """Whether ``other`` has the same shape.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.ones(2, 3).is_same_size(tc.zeros(2, 3))
    True
    """
    return self._shape == other._shape


def _false(self: Tensor) -> bool:
    return False


def _resolved(self: Tensor) -> Tensor:
    return self


def conj_physical(self: Tensor) -> Tensor:
    """The complex conjugate, computed (``self`` itself for a real tensor).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.tensor([1 + 2j]).conj_physical()
    tensor([1.-2.j])
    """
    return ops.conj(self) if self._dtype.is_complex else self


def conj_physical_(self: Tensor) -> Tensor:
    """In-place :meth:`conj_physical`."""
    if self._dtype.is_complex:
        self.copy_(ops.conj(self))
    return self


def new(self: Tensor, *args: Any, device: Any = None) -> Tensor:
    """PyTorch's legacy constructor with ``self``'s dtype and device: ``x.new(2, 3)`` (or a
    :class:`Size`) is uninitialised, ``x.new(data)`` copies a sequence, ``x.new(tensor)``
    aliases a tensor of the same dtype, ``x.new()`` is empty.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.zeros(2, dtype=tc.int32)
    >>> x.new([1, 2]), x.new(3).shape, x.new().shape
    (tensor([1, 2], dtype=tensorcore.int32), tensorcore.Size([3]), tensorcore.Size([0]))
    """
    dev = self._device if device is None else device
    if not args:
        return ops.empty(0, dtype=self._dtype, device=dev)
    if all(a.__class__ is int for a in args) or (len(args) == 1 and isinstance(args[0], Size)):
        return ops.empty(*args, dtype=self._dtype, device=dev)
    if len(args) > 1:
        raise TypeError(f"new(): expected sizes (ints) or one sequence of data, got {args!r}")
    data = args[0]
    if isinstance(data, Tensor):
        if data._dtype is not self._dtype:
            raise TypeError(
                f"new(): expected a tensor of dtype {torch_name(self._dtype)}, got "
                f"{torch_name(data._dtype)}"
            )
        return data.detach()
    if isinstance(data, (bool, int, float, complex)):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    from .ops.factories import tensor

    return tensor(data, dtype=self._dtype, device=dev)


def new_empty_strided(
    self: Tensor,
    size: Any,
    stride: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised tensor of ``size`` and ``stride``, of ``self``'s dtype and device
    unless given.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.ones(1).new_empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    out = empty_strided(
        size,
        stride,
        dtype=self._dtype if dtype is None else dtype,
        device=self._device if device is None else device,
    )
    return out.requires_grad_() if requires_grad else out


def empty_strided(
    size: Any,
    stride: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised tensor of ``size`` and ``stride`` (a storage just large enough).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"mismatch in length of strides and shape: {len(stride)} strides for {len(size)} dims"
        )
    n = 0 if 0 in size else 1 + sum((s - 1) * st for s, st in zip(size, stride, strict=True))
    base = ops.empty(n, dtype=dtype, device=device)
    out = ops.as_strided(base, size, stride, 0).detach()
    out._base = None
    return out.requires_grad_() if requires_grad else out


def _cpu_only(self: Tensor, name: str) -> None:
    if self._device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")


def _python_fill(self: Tensor, name: str, fn: Callable[..., Any], *others: Tensor) -> Tensor:
    _cpu_only(self, name)
    for o in others:
        _cpu_only(o, name)
    args = [o.expand(self._shape).reshape(-1).tolist() for o in others]
    values = [fn(*xs) for xs in zip(self.reshape(-1).tolist(), *args, strict=True)]
    with _no_grad():
        self.copy_(_tensor(values, dtype=self._dtype).reshape(self._shape))
    return self


def _tensor(data: Any, dtype: dt.dtype) -> Tensor:
    from .ops.factories import tensor

    return tensor(data, dtype=dtype)


def _no_grad() -> Any:
    from .autograd.grad_mode import no_grad

    return no_grad()


def apply_(self: Tensor, callable: Callable[[Any], Any]) -> Tensor:
    """Replaces each element with ``callable(element)`` (CPU tensors only; slow, as
    PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.tensor([1, 2]).apply_(lambda v: v * 10)
    tensor([10, 20])
    """
    return _python_fill(self, "apply_", callable)


def map_(self: Tensor, tensor: Tensor, callable: Callable[[Any, Any], Any]) -> Tensor:
    """Replaces each element with ``callable(element, other)`` (``tensor`` broadcast; CPU
    tensors only).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.tensor([1, 2]).map_(tc.tensor([3, 4]), lambda a, b: a * b)
    tensor([3, 8])
    """
    return _python_fill(self, "map_", callable, tensor)


def map2_(self: Tensor, x: Tensor, y: Tensor, callable: Callable[[Any, Any, Any], Any]) -> Tensor:
    """Replaces each element with ``callable(element, x, y)`` (broadcast; CPU only).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.tensor([1, 2]).map2_(tc.tensor([3, 4]), tc.tensor(1), lambda a, b, c: a + b + c)
    tensor([5, 7])
    """
    return _python_fill(self, "map2_", callable, x, y)


def _sizes(args: tuple[Any, ...]) -> tuple[int, ...]:
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def sum_to_size(self: Tensor, *size: Any) -> Tensor:
    """``self`` summed to ``size``, which it must be expandable from (the gradient of an
    ``expand``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.ones(2, 3).sum_to_size(3)
    tensor([2., 2., 2.])
    """
    shape = _sizes(size)
    lead = self.ndim - len(shape)
    ok = lead >= 0 and all(s == 1 or s == t for s, t in zip(shape, self._shape[lead:], strict=True))
    if not ok:
        raise RuntimeError(
            f"size {{{list(shape)}}} is not expandable to size {{{list(self._shape)}}}."
        )
    if not shape:  # (PyTorch's sum_to: an empty size sums everything, a 0-d tensor too)
        return ops.sum(self)
    out = self
    if lead:
        out = ops.sum(out, tuple(range(lead)))
    dims = tuple(i for i, s in enumerate(shape) if s == 1 and out._shape[i] != 1)
    if dims:
        out = ops.sum(out, dims, keepdim=True)
    return out


def dim_order(self: Tensor, *, ambiguity_check: Any = False) -> tuple[int, ...]:
    """The dims from outermost to innermost in memory (by decreasing stride, ties kept in
    order): ``(0, 1, ..., n-1)`` for a contiguous tensor.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.ones(2, 3).t().dim_order()
    (1, 0)
    """
    return tuple(sorted(range(self.ndim), key=lambda d: -self._stride[d]))


def storage_type(self: Tensor) -> Any:
    """The legacy typed storage class of the dtype (``FloatStorage`` for float32).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.ones(1).storage_type().__name__
    'FloatStorage'
    """
    cls = _STORAGE_TYPES.get(self._dtype)
    if cls is None:
        from ._typed_storage import TypedStorage

        name = f"{torch_name(self._dtype)}Storage"
        cls = _STORAGE_TYPES[self._dtype] = type(name, (TypedStorage,), {"dtype": self._dtype})
        cls.__module__ = "tensorcore"
    return cls


_STORAGE_TYPES: dict[dt.dtype, type] = {}


def resize_(self: Tensor, *size: Any, memory_format: Any = None) -> Tensor:
    """Gives ``self`` the shape ``size``, contiguous: the storage is kept when it is large
    enough (the first elements keep their values), else it grows (new elements
    uninitialised), as PyTorch's. Refused on a tensor that requires grad.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.arange(6.0)
    >>> x.resize_(2, 2)
    tensor([[0., 1.],
            [2., 3.]])
    """
    shape = _sizes(size)
    if any(s.__class__ is not int or s < 0 for s in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(shape)}")
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    storage = self._storage
    if storage is None:
        raise NotImplementedError(f"resize_ is not supported for tensors of layout {self._layout}")
    refuse_inference_write(storage)  # (before the storage is replaced)
    need = self._offset + math.prod(shape)
    if need > storage.size():
        fresh = ops.empty(need, dtype=self._dtype, device=self._device)
        old = make_tensor(storage, (storage.size(),), (1,), 0, self._dtype, self._device)
        fresh[: storage.size()].copy_(old)
        self._storage = fresh._storage
    self._shape = shape
    self._stride = contiguous_strides(shape)
    if memory_format is not None and memory_format.name.startswith("channels_last"):
        from ._memory_format import format_strides

        self._stride = format_strides(memory_format, shape)
    self._native = None
    self._bump_version()
    return self


def resize_as_(self: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    """:meth:`resize_` to the shape of ``the_template``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.zeros(4).resize_as_(tc.ones(2, 2)).shape
    tensorcore.Size([2, 2])
    """
    if self.is_sparse and the_template.is_sparse:
        # (PyTorch's resize_as_ of two sparse tensors: the layout's resize_as_sparse_)
        return self.resize_as_sparse_(the_template)
    return resize_(self, the_template._shape, memory_format=memory_format)


def view_dtype(self: Tensor, dtype: dt.dtype) -> Tensor:
    """``self``'s bytes seen as ``dtype`` (``x.view(tc.int32)``): with a smaller element the
    last dim grows by the ratio of the sizes, with a larger one it shrinks (the last dim must
    be contiguous, and its size, the other strides and the offset divisible by the ratio), as
    PyTorch's. The result has no history.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.tensor([1.0]).view(tc.int32)
    tensor([1065353216], dtype=tensorcore.int32)
    >>> tc.zeros(2, 4, dtype=tc.int16).view(tc.int64).shape
    tensorcore.Size([2, 1])
    """
    from .ops.views import _reinterpret

    old, new = self._dtype.itemsize, dtype.itemsize
    if dtype is self._dtype:
        return self.view(self._shape)
    shape, stride, offset = list(self._shape), list(self._stride), self._offset
    what = f"to view {torch_name(self._dtype)} as {torch_name(dtype)} (different element sizes)"
    if old != new:
        if self.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if stride[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
    if new < old:
        r = old // new
        shape[-1] *= r
        stride = [s * r for s in stride[:-1]] + [1]
        offset *= r
    elif new > old:
        r = new // old
        if shape[-1] % r:
            raise RuntimeError(
                f"self.size(-1) must be divisible by {r} {what}, but got {shape[-1]}"
            )
        if offset % r:
            raise RuntimeError(
                f"self.storage_offset() must be divisible by {r} {what}, but got {offset}"
            )
        for i, s in enumerate(stride[:-1]):
            if s % r:
                raise RuntimeError(f"self.stride({i}) must be divisible by {r} {what}, but got {s}")
        shape[-1] //= r
        stride = [s // r for s in stride[:-1]] + [1]
        offset //= r
    return _reinterpret(self.detach(), tuple(shape), tuple(stride), offset, dtype)


def _view_dtype(self: Tensor, *args: Any, **kwargs: Any) -> Any:
    """``x.view(dtype)`` (the ``overload`` of the ``view`` declaration)."""
    if len(args) == 1 and not kwargs and isinstance(args[0], dt.dtype):
        return view_dtype(self, args[0])
    if not args and isinstance(kwargs.get("dtype"), dt.dtype) and len(kwargs) == 1:
        return view_dtype(self, kwargs["dtype"])
    return NotImplemented


def as_strided_(self: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """Gives ``self`` the geometry ``size``/``stride``/``storage_offset`` over its storage, in
    place (no history: refused on a tensor that requires grad).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.arange(6.0).as_strided_((2, 2), (1, 2))
    tensor([[0., 2.],
            [1., 3.]])
    """
    if self._requires_grad:
        raise RuntimeError(
            "as_strided_(): a tensor that requires grad cannot be restrided in place"
        )
    view = ops.as_strided(self, tuple(size), tuple(stride), storage_offset)
    self._shape, self._stride, self._offset = view._shape, view._stride, view._offset
    self._native = None
    return self


def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Whether ``tensor`` is the same view of the same storage (shape, strides, offset).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.ones(2)
    >>> x.is_set_to(x), x.is_set_to(x.clone())
    (True, False)
    """
    return (
        self._storage is tensor._storage
        and self._shape == tensor._shape
        and self._stride == tensor._stride
        and self._offset == tensor._offset
    )


def resize(self: Tensor, *sizes: Any) -> Tensor:
    """Deprecated: a view of another shape with as many elements (PyTorch warns; use
    :meth:`reshape`)."""
    import warnings

    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    shape = _sizes(sizes)
    if math.prod(shape) != self.numel():
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, shape))} ({math.prod(shape)} elements in "
            f"total), but the given tensor has a size of {'x'.join(map(str, self._shape))} "
            f"({self.numel()} elements). autograd's resize can only change the shape of a given "
            "tensor, while preserving the number of elements. "
        )
    return self.reshape(shape)


def resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    """Deprecated: :meth:`resize` to ``tensor``'s shape."""
    return resize(self, tensor._shape)


def reinforce(self: Tensor, reward: Any) -> None:
    """Removed from PyTorch: raises, pointing to ``tensorcore.distributions``."""
    raise RuntimeError(
        "reinforce() was removed.\nUse torch.distributions instead.\nSee "
        "https://pytorch.org/docs/main/distributions.html"
    )


def _no_device_method(kind: str) -> Callable[..., Tensor]:
    def fn(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        raise RuntimeError(f"tensorcore has no {kind.upper()} backend: {kind}() is unavailable")

    fn.__name__ = kind
    fn.__doc__ = f"Unavailable: tensorcore has no {kind.upper()} backend."
    return fn


def _nonzero_static(self: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    from ._torch_extras_ops import nonzero_static

    return nonzero_static(self, size=size, fill_value=fill_value)


def _not_on_device(kind: str) -> property:
    return property(_false, doc=f"False: tensorcore has no {kind} backend.")


def install() -> None:
    """Attach the methods of this module to :class:`Tensor`."""
    for name, value in {
        "is_signed": is_signed,
        "is_nonzero": is_nonzero,
        "is_same_size": is_same_size,
        "is_conj": _false,
        "is_neg": _false,
        "resolve_conj": _resolved,
        "resolve_neg": _resolved,
        "conj_physical": conj_physical,
        "conj_physical_": conj_physical_,
        "new": new,
        "new_empty_strided": new_empty_strided,
        "apply_": apply_,
        "map_": map_,
        "map2_": map2_,
        "sum_to_size": sum_to_size,
        "dim_order": dim_order,
        "storage_type": storage_type,
        "resize_": resize_,
        "resize_as_": resize_as_,
        "resize": resize,
        "resize_as": resize_as,
        "as_strided_": as_strided_,
        "is_set_to": is_set_to,
        "set_": set_,
        "reinforce": reinforce,
        "is_distributed": _false,
        "record_stream": lambda self, stream: None,
        "const_data_ptr": lambda self: self.data_ptr(),
        "grad_dtype": property(lambda self: self._dtype, doc="The dtype of the gradient."),
        "nonzero_static": _nonzero_static,
        "xpu": _no_device_method("xpu"),
        "ipu": _no_device_method("ipu"),
        "mtia": _no_device_method("mtia"),
        "is_meta": property(lambda self: self._device.type == "meta", doc="On the meta device."),
        "output_nr": property(_output_nr, doc="Which output of its node this tensor is."),
    }.items():
        setattr(Tensor, name, value)
    Tensor._view_dtype = _view_dtype  # type: ignore[attr-defined]
    for kind in ("mps", "xpu", "ipu", "xla", "mkldnn", "vulkan", "mtia", "maia"):
        setattr(Tensor, f"is_{kind}", _not_on_device(kind))
    Tensor.is_quantized = property(_false, doc="False: tensorcore has no quantized tensors.")  # type: ignore[attr-defined]
    Tensor.is_nested = property(_false, doc="False: tensorcore has no nested tensors.")  # type: ignore[attr-defined]


def _output_nr(self: Tensor) -> int:
    ag = self._ag
    return 0 if ag is None else int(getattr(ag, "output_nr", 0) or 0)
