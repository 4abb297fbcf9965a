"""``make_view``: a tensor over another's storage with new sizes, strides and offset -- every
view's constructor -- in a module of its own, which imports nothing of the plugin machinery:
basic indexing (``_indexing.py``) makes its views with it from ``import tensorcore`` on, while
the view kernels (``ops/views.py``, registered through a plugin hook) load on first use.

``core_as_strided`` is the core's ``as_strided`` kernel once ``ops/views.py`` is imported
(None before): indexing makes a view itself only where a device's table holds that kernel.
"""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..autograd import grad_mode as _grad_mode
from ..layouts import strided

__all__ = ["core_as_strided", "make_view"]

#: The core's ``as_strided`` kernel (set by ``ops/views.py`` when it is imported).
core_as_strided: Any = None


def make_view(base: Tensor, shape: tuple[int, ...], stride: tuple[int, ...], offset: int) -> Tensor:
    """A tensor over ``base``'s storage with new metadata; it never copies.

    The same tensor as ``make_tensor(base's storage, shape, stride, offset, base's dtype and
    device)`` with ``_base`` set and ``base``'s version counter (a view of ``x.data`` counts
    its writes where ``x.data`` does), its slots filled here rather than through that call:
    every view runs this (``tests/test_views.py`` compares the two slot by slot).

    As in PyTorch, a view requires grad where its base does (a view made under ``no_grad``
    too, without history), and notes how it was made where that was not in grad mode
    (``_view_meta``, ``autograd.grad_mode.view_meta``; a view of such a view inherits it)."""
    t = _new(Tensor)
    t._storage = base._storage
    t._shape = shape
    t._stride = stride
    t._offset = offset
    t._dtype = base._dtype
    t._device = base._device
    t._layout = strided
    t._native = None
    t._grad_fn = t._grad = t._ag = None
    b = base._base
    if b is None:
        t._base = base
        t._requires_grad = base._requires_grad
        t._view_meta = _view_meta(base, None) if _OFF else None
    else:
        t._base = b
        t._requires_grad = b._requires_grad
        m = base._view_meta
        t._view_meta = None if m is None and not _OFF else _view_meta(base, m)
    t._version_counter = base._version_counter
    return t


_new = object.__new__
_OFF = _grad_mode.OFF
_view_meta = _grad_mode.view_meta
