"""The in-place view changes: ``unsqueeze_``, ``squeeze_``, ``t_``, ``transpose_``,
``swapdims_``, ``swapaxes_``. Each changes the tensor's shape and strides (its metadata) in
place, as PyTorch's do: no data moves, and the tensor takes the history of the view it now
equals, so gradients flow through it as through the out-of-place view. Its node is the out-of-place
view's, numbered as PyTorch numbers the in-place variant's: after the out-of-place
overloads' (``t_`` records ``TBackward1``, ``squeeze_(dim)`` ``SqueezeBackward4``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._tensor import Tensor
from .autograd import grad_mode
from .autograd.step import check_inplace

__all__ = ["INPLACE_VIEWS"]

#: How many out-of-place overloads of each in-place view's operator PyTorch's derivative
#: table numbers before the in-place ones (``squeeze``: no dim, a dim, dims).
_OVERLOADS = {
    "unsqueeze_": 1,
    "squeeze_": 3,
    "transpose_": 1,
    "swapdims_": 1,
    "swapaxes_": 1,
    "t_": 1,
}


def _become(self: Tensor, view: Tensor, name: str) -> Tensor:
    if view._layout is not self._layout:
        # (a layout whose view is of another layout: a CSR matrix's transpose is CSC)
        raise RuntimeError(
            f"{name}(): in-place {name[:-1]} is not supported for the {self._layout.name} "
            f"layout (its result is {view._layout.name})"
        )
    ag = self._ag
    fw_only = ag is not None and ag.fw_only
    if self._requires_grad and not fw_only and grad_mode.is_grad_enabled():
        check_inplace(self)  # (PyTorch's checks of an in-place call on a leaf, on a view)
    self._shape, self._stride, self._offset = view._shape, view._stride, view._offset
    self._native = view._native
    fn = view._grad_fn
    if fn is not None:
        stem = fn._name.rstrip("0123456789")
        fn.rename(stem + str(int(fn._name[len(stem) :]) + _OVERLOADS[name]))
        self._grad_fn = fn
        if self._ag is not None:
            self._ag.output_nr = 0  # (the view's node has one output)
    if ag is not None and ag.fw_grad is not None and view._ag is not None:
        ag.fw_grad = view._ag.fw_grad  # (the same view of the tangent)
    return self


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    """In-place :meth:`unsqueeze`: insert a dim of size 1 at ``dim`` into ``self``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.zeros(2, 3)
    >>> x.unsqueeze_(0).shape
    tensorcore.Size([1, 2, 3])
    >>> x.shape
    tensorcore.Size([1, 2, 3])
    """
    return _become(self, self.unsqueeze(dim), "unsqueeze_")


def squeeze_(self: Tensor, dim: Any = None) -> Tensor:
    """In-place :meth:`squeeze`: drop the dims of size 1 (or those of ``dim``) of ``self``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.zeros(1, 2, 1)
    >>> x.squeeze_(0).shape
    tensorcore.Size([2, 1])
    >>> x.squeeze_().shape
    tensorcore.Size([2])
    """
    return _become(self, self.squeeze() if dim is None else self.squeeze(dim), "squeeze_")


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """In-place :meth:`transpose`: swap dims ``dim0`` and ``dim1`` of ``self``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.zeros(2, 3, 4)
    >>> x.transpose_(0, 2).shape
    tensorcore.Size([4, 3, 2])
    >>> x.is_contiguous()
    False
    """
    return _become(self, self.transpose(dim0, dim1), "transpose_")


def swapdims_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """Alias of :meth:`transpose_`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.zeros(2, 3).swapdims_(0, 1).shape
    tensorcore.Size([3, 2])
    """
    return _become(self, self.transpose(dim0, dim1), "swapdims_")


def swapaxes_(self: Tensor, axis0: int, axis1: int) -> Tensor:
    """Alias of :meth:`transpose_`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.zeros(2, 3).swapaxes_(0, 1).shape
    tensorcore.Size([3, 2])
    """
    return _become(self, self.transpose(axis0, axis1), "swapaxes_")


def t_(self: Tensor) -> Tensor:
    """In-place :meth:`t`: transpose a tensor of at most 2 dims.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.arange(6).reshape(2, 3)
    >>> x.t_()
    tensor([[0, 3],
            [1, 4],
            [2, 5]])
    """
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _become(self, self.t(), "t_")


def ndimension(self: Tensor) -> int:
    """Alias of :meth:`dim`: the number of dims.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.zeros(2, 3).ndimension()
    2
    """
    return len(self._shape)


INPLACE_VIEWS: dict[str, Callable[..., Any]] = {
    f.__name__: f for f in (unsqueeze_, squeeze_, transpose_, swapdims_, swapaxes_, t_, ndimension)
}
