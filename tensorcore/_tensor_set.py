"""``Tensor.set_``: PyTorch's re-pointing of a tensor at another storage.

``x.set_(source)`` makes ``x`` view ``source``'s storage with ``source``'s shape, strides and
offset; ``x.set_(storage, storage_offset, size, stride=None)`` views ``storage`` (an
untyped storage, or a typed one) with that geometry, in ``x``'s dtype, the offset counted in
its elements; ``x.set_()`` gives ``x`` an empty storage. Writes through either tensor then
reach the other. Not an operator of the table: like ``resize_`` it changes the tensor's
metadata, not its data.

Autograd follows PyTorch: refused on a leaf that requires grad while grad mode is on; where
``x`` or ``source`` is part of a graph, ``x`` gets a ``NotImplemented`` node whose backward
raises PyTorch's "derivative for set_ is not implemented".
"""

from __future__ import annotations

import math
from typing import Any

from ._storage import Storage, VersionCounter
from ._tensor import Tensor, contiguous_strides, cpp_name
from .autograd import grad_mode
from .autograd.graph import edge, node_type, requires_grad
from .ops import functions as ops

__all__ = ["set_"]


def _not_implemented(node: Any, grads: Any) -> Any:
    raise RuntimeError("derivative for set_ is not implemented")


def _storage_of(source: Any) -> Storage | None:
    if isinstance(source, Storage):
        return source
    untyped = getattr(source, "_untyped_storage", None)  # a TypedStorage
    return untyped if isinstance(untyped, Storage) else None


def set_(
    self: Tensor,
    source: Any = None,
    storage_offset: int = 0,
    size: Any = None,
    stride: Any = None,
) -> Tensor:
    """Make ``self`` view ``source``: a tensor (its storage, shape, strides and offset), or a
    storage with ``storage_offset`` (in ``self``'s elements), ``size`` and ``stride``
    (contiguous when None); with no ``source``, an empty storage. Writes through ``self``
    and through the source's other tensors reach each other. Returns ``self``.

    The storage must hold the geometry (tensorcore's storages do not grow: PyTorch's error
    for a storage that cannot be resized) and be on ``self``'s device; a tensor source must
    have ``self``'s dtype. Refused on a leaf that requires grad (outside ``no_grad``);
    elsewhere in a graph the result has no derivative, as in PyTorch.

    Examples
    --------
    >>> import tensorcore as tc
    >>> a = tc.arange(6.0)
    >>> b = tc.zeros(2).set_(a)
    >>> b[0] = 100.0
    >>> a
    tensor([100.,   1.,   2.,   3.,   4.,   5.])
    >>> tc.empty(0).set_(a.untyped_storage(), 2, (2, 2), (1, 2))
    tensor([[2., 4.],
            [3., 5.]])
    >>> b.set_().shape
    tensorcore.Size([0])
    """
    if self._storage is None:
        raise RuntimeError(f"set_ is not supported for tensors of layout {self._layout}")
    wants_graph = grad_mode.is_grad_enabled()
    if wants_graph and self._grad_fn is None and requires_grad(self):
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    src_tensor: Tensor | None = None
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    if source is None:
        if size is not None or stride is not None or storage_offset:
            raise TypeError("set_(): the storage form needs a source storage")
        fresh = ops.empty(0, dtype=self._dtype, device=self._device)
        storage, shape, strides, offset = fresh._storage, (0,), (1,), 0
    elif isinstance(source, Tensor):
        if size is not None or stride is not None or storage_offset:
            raise TypeError("set_(): a tensor source takes no storage_offset, size or stride")
        if source._dtype is not self._dtype:
            raise RuntimeError(
                f"Could not set tensor of type {cpp_name(source._dtype)} "
                f"to a tensor of type {cpp_name(self._dtype)}"
            )
        if source._storage is None:
            raise RuntimeError(f"set_ is not supported for tensors of layout {source._layout}")
        src_tensor = source
        storage, shape, strides = source._storage, source._shape, source._stride
        offset = source._offset
    else:
        found = _storage_of(source)
        if found is None:
            raise TypeError(
                f"set_(): argument 'source' must be Tensor or Storage, not {type(source).__name__}"
            )
        storage = found
        if size is None:
            if storage_offset:
                raise TypeError("set_(): the storage form with storage_offset needs a size")
            shape = (storage.nbytes // self._dtype.itemsize,)
        else:
            shape = tuple(int(s) for s in size)
        strides = contiguous_strides(shape) if stride is None else tuple(int(s) for s in stride)
        offset = int(storage_offset)
        if len(strides) != len(shape):
            raise RuntimeError(
                f"unequal size length ({len(shape)}) and stride length ({len(strides)})"
            )
        if offset < 0:
            raise RuntimeError(f"Tensor: invalid storage offset {offset}")
        if any(s < 0 for s in shape):
            raise RuntimeError(f"Trying to create tensor with negative dimension: {list(shape)}")
        extent = (
            0 if 0 in shape else 1 + sum((s - 1) * st for s, st in zip(shape, strides, strict=True))
        )
        if math.prod(shape) and (offset + extent) * self._dtype.itemsize > storage.nbytes:
            raise RuntimeError("Trying to resize storage that is not resizable")
    assert storage is not None
    if storage.device != self._device:
        raise RuntimeError(
            f'Attempted to set the storage of a tensor on device "{self._device}" to a '
            f'storage on different device "{storage.device}".  This is no longer allowed; '
            "the devices must match."
        )
    in_graph = wants_graph and (
        requires_grad(self) or (src_tensor is not None and requires_grad(src_tensor))
    )
    edges = (edge(self), edge(src_tensor) if src_tensor is not None else (None, 0))
    version = self._version
    self._storage, self._shape, self._stride, self._offset = storage, shape, strides, offset
    self._native = src_tensor._native if src_tensor is not None else None
    self._base = None
    self._view_meta = None
    # ``self`` keeps a count of its own, one write further, as PyTorch's: the source's
    # writes are not ``self``'s, nor ``self``'s the source's.
    self._version_counter = VersionCounter(version + 1)
    if in_graph:
        node = node_type("NotImplemented")(
            "NotImplemented",
            _not_implemented,
            next_functions=edges,
            input_meta=[None, None],
        )
        self._grad_fn = node
        self._requires_grad = True
        if self._ag is not None:
            self._ag.output_nr = 0
    return self
