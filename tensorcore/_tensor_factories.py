"""The ``new_*`` methods of :class:`Tensor` (``new_zeros``, ``new_full``, ``new_tensor``...):
new tensors of ``self``'s dtype, device and layout unless told otherwise. Attached by
``_tensor_methods.install``."""

from __future__ import annotations

from typing import Any

from . import _pinned
from ._tensor import Tensor
from .layouts import strided
from .ops import functions as ops
from .ops.factories import copy_construct, warn_copy_construct


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
