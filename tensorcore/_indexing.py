"""Tensor indexing: basic indices (ints, slices, None, ``...``) become one strided view;
integer and boolean tensors (advanced indexing) run the ``index``/``index_put`` operators."""

from __future__ import annotations

from typing import Any

from . import dtypes as dt
from ._tensor import Tensor
from .autograd.grad_mode import _state as _grad_mode
from .autograd.grad_mode import dual as _dual
from .ops import _call as _call_state
from .ops import _make_view
from .ops._make_view import make_view
from .ops._validate import as_scalar

__all__ = ["bind"]


def bind(get_op: Any, call: Any) -> None:
    """Bind the operator entries this module calls (done once at import)."""
    global _AS_STRIDED, _SLICE, _INDEX, _call
    _AS_STRIDED, _SLICE, _INDEX = get_op("as_strided"), get_op("slice"), get_op("index")
    _call = call


def _is_advanced(x: Any) -> bool:
    # A ``range`` indexes like the list of its values (``x[range(n), target]``, as in
    # PyTorch's "What is torch.nn really?" tutorial).
    return isinstance(x, (Tensor, list, range)) or (
        hasattr(x, "__array_interface__") and not isinstance(x, (int, float))
    )


def _index_tensor(x: Any, dev: Any) -> Tensor:
    from .ops.factories import tensor

    if isinstance(x, Tensor):
        t = x
    else:
        try:
            t = tensor(x, device=dev)
        except (TypeError, ValueError) as exc:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                f"are valid indices (got a {type(x).__name__} that is not one: {exc})"
            ) from None
    if t._dtype not in (dt.int64, dt.int32, dt.int16, dt.int8, dt.uint8, dt.bool_):
        if t.numel() == 0 and isinstance(x, (list, range)):
            return t.to(dt.int64)
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return t if t._device == dev else t.to(dev)


def _apply_index(
    self: Tensor, idx: Any, flips: list[int] | None = None
) -> tuple[Tensor, list[Any] | None]:
    """Apply the basic part of ``idx`` as views; return the view and the advanced indices.

    A slice with a negative step (which PyTorch refuses; NumPy and the array API standard
    allow it) becomes the slice of the same elements in increasing order, and its dim of the
    view is appended to ``flips``: the caller reverses those dims (``__getitem__`` copies
    with ``flip``, ``__setitem__`` writes a reversed value). Without ``flips`` it raises.

    PyTorch's rule, which differs from NumPy's where ints meet advanced indices: an int (a
    NumPy int, a 0-d integer tensor) always selects, as a basic index, so it never separates
    two advanced indices nor moves their result dims to the front (``x[0, ..., t]`` keeps
    ``t``'s dims where ``t`` stands); a Python bool (a 0-d bool tensor) is always an advanced
    index, over a new dim of size 1. An ``...`` that stands for no dims separates nothing.
    Advanced indices that are not adjacent put their dims first, as in NumPy.
    """
    if not isinstance(idx, tuple):
        idx = (idx,)
    consuming = 0
    for x in idx:
        c = x.__class__
        if c is slice or c is int:
            consuming += 1
        elif x is not None and x is not Ellipsis and c is not bool:
            consuming += x.ndim if isinstance(x, Tensor) and x._dtype is dt.bool_ else 1
    ndim = len(self._shape)
    if consuming > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    out = self
    d = 0
    adv: dict[int, Tensor] = {}
    seen_ellipsis = False
    whole = -1  # the first dim a ``:`` left as it was
    for x in idx:
        if x is None:
            out = out.unsqueeze(d)
            d += 1
        elif x is Ellipsis:
            if seen_ellipsis:
                raise IndexError("an index can only have a single ellipsis ('...')")
            seen_ellipsis = True
            d += ndim - consuming
        elif isinstance(x, bool):
            out, d = _bool_index(out, d, x, adv)
        elif isinstance(x, int) or (hasattr(x, "__index__") and not _is_advanced(x)):
            out = _select(out, d, x.__index__())
        elif isinstance(x, slice):
            step = 1 if x.step is None else x.step
            start, stop = x.start, x.stop
            if start is None and stop is None and step == 1:
                # ``:`` changes nothing: no view (and no node), as PyTorch records
                # ``x[:, 2:5]`` as one slice
                if whole < 0:
                    whole = d
                d += 1
                continue
            if step == 0:
                raise ValueError("the step of a slice index cannot be zero")
            if step < 0:
                if flips is None:
                    raise ValueError(
                        f"step must be greater than zero (got a slice index with step {step})"
                    )
                b, e, _ = x.indices(out._shape[d])
                n = max(0, (b - e - step - 1) // -step)
                # The same elements, in increasing order: [last, ..., b] with step -step.
                start, stop, step = b - (n - 1) * -step if n else 0, b + 1 if n else 0, -step
                flips.append(d)
            out = _slice(out, d, start, stop, step)
            d += 1
        elif _is_advanced(x):
            t = _index_tensor(x, self._device)
            if t.ndim == 0 and t._dtype is dt.bool_:
                out, d = _bool_index(out, d, bool(t.item()), adv)
            elif t.ndim == 0 and t._dtype is not dt.uint8:
                out = _select(out, d, int(t.item()))
            else:
                if t._dtype is dt.bool_:
                    t = _check_mask(out, d, t)
                adv[d] = t
                d += t.ndim if t._dtype is dt.bool_ and t.ndim > 1 else 1
        elif isinstance(x, (str, bytes)):
            # (PyTorch tries to make an index tensor of it, and that is a TypeError)
            raise TypeError(
                f"invalid index of type '{type(x).__name__}': only integers, slices (`:`), "
                "ellipsis (`...`), None and long or byte Variables are valid indices"
            )
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                f"are valid indices (got {type(x).__name__})"
            )
    if out is self and whole >= 0:
        out = _slice(out, whole, None, None, 1)  # (``x[:]`` is a view of x, not x)
    if not adv:
        return out, None
    indices: list[Any] = []
    k = 0
    while k < out.ndim:
        it = adv.get(k)
        indices.append(it)
        k += it.ndim if it is not None and it._dtype is dt.bool_ and it.ndim > 1 else 1
    return out, indices


def _check_mask(out: Tensor, d: int, mask: Tensor) -> Tensor:
    """A boolean mask indexing ``out`` from dim ``d`` must have the shape of those dims; a
    mask dim of size 0 selects nothing from a dim of any size (the array API standard's rule,
    where PyTorch refuses it), so such a mask is replaced by an all-False one of the indexed
    dims' shape."""
    empty = False
    for j, n in enumerate(mask._shape):
        if d + j < out.ndim and out._shape[d + j] != n:
            if n == 0:
                empty = True
                continue
            raise IndexError(
                f"The shape of the mask {list(mask._shape)} at index {j} does not match the "
                f"shape of the indexed tensor {list(out._shape)} at index {d + j}"
            )
    if empty and d + mask.ndim <= out.ndim:
        return mask.new_zeros(out._shape[d : d + mask.ndim])
    return mask


def _slice(out: Tensor, d: int, start: Any, stop: Any, step: int) -> Tensor:
    r = _SLICE.lane(out, d, start, stop, step)  # (None: a call the lane leaves to ``call``)
    return r if r is not None else _call(_SLICE, (out, d, start, stop, step))


def _select(out: Tensor, d: int, i: int) -> Tensor:
    size = out._shape[d]
    if not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for dimension {d} with size {size}")
    return out.select(d, i)


def _bool_index(out: Tensor, d: int, value: bool, adv: dict[int, Tensor]) -> tuple[Tensor, int]:
    """A bool index: a new dim of size 1, indexed by ``[0]`` (True) or ``[]`` (False)."""
    adv[d] = _index_tensor([0] if value else [], out._device)
    return out.unsqueeze(d), d + 1


_AS_STRIDED: Any = None
_SLICE: Any = None
_INDEX: Any = None
_call: Any = None


def _int_offset(i: int, size: int, stride: int, d: int) -> int:
    """The storage offset an int index ``i`` adds along dim ``d`` (of ``size`` and
    ``stride``), or PyTorch's IndexError."""
    if not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for dimension {d} with size {size}")
    return (i + size if i < 0 else i) * stride


def _slice_extent(sl: slice, size: int) -> tuple[int, int, int] | None:
    """(first index, length, step) of the slice ``sl`` along a dim of ``size``; None for a
    negative step (which no strided view takes), ValueError for a zero one."""
    step = 1 if sl.step is None else sl.step
    if step <= 0:
        if step == 0:
            raise ValueError("the step of a slice index cannot be zero")
        return None
    b, e, _ = sl.indices(size)
    return b, max(0, (e - b + step - 1) // step), step


def _basic_view(self: Tensor, idx: tuple[Any, ...]) -> Tensor | None:
    """Sizes, strides and offset for an index of ints, slices, None and ``...`` in one pass."""
    ndim = len(self._shape)
    consuming = 0
    for x in idx:
        c = x.__class__
        if c is int or c is slice:
            consuming += 1
        elif c is not type(None) and x is not Ellipsis:
            return None
    if consuming > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    shape: list[int] = []
    stride: list[int] = []
    off = self._offset
    d = 0
    ell = False
    for x in idx:
        c = x.__class__
        if c is int:
            off += _int_offset(x, self._shape[d], self._stride[d], d)
            d += 1
        elif c is slice:
            ext = _slice_extent(x, self._shape[d])
            if ext is None:
                return None  # (a negative step: the general path reverses a copy)
            b, n, step = ext
            off += b * self._stride[d]  # (an empty slice's offset too, as PyTorch)
            shape.append(n)
            stride.append(self._stride[d] * step)
            d += 1
        elif x is None:
            shape.append(1)
            stride.append(self._stride[d] * self._shape[d] if d < ndim else 1)
        else:
            if ell:
                raise IndexError("an index can only have a single ellipsis ('...')")
            ell = True
            k = ndim - consuming
            shape.extend(self._shape[d : d + k])
            stride.extend(self._stride[d : d + k])
            d += k
    shape.extend(self._shape[d:])
    stride.extend(self._stride[d:])
    return _view(self, tuple(shape), tuple(stride), off)


def _view(self: Tensor, sizes: tuple[int, ...], strides: tuple[int, ...], off: int) -> Tensor:
    """The view of a basic index, whose sizes, strides and offset address ``self``'s own
    elements (nothing to check): ``make_view`` directly where ``as_strided``'s lane would
    only check the arguments and call it (a plain tensor, the core's view kernel, no history
    to record, no mode or autocast to hand the call to: half of a small ``x[0]``;
    ``tests/test_views.py`` compares the two); else (a subclass, history to record, a mode,
    autocast) ``as_strided`` through its lane, or the call path."""
    b = self._base
    if (
        self.__class__ is Tensor  # (a subclass's call is handed to its __torch_function__)
        and _call_state._autocast is None
        and (
            not (self._requires_grad or (b is not None and b._requires_grad))
            or not (_grad_mode.enabled or _dual.on)
        )
        and _AS_STRIDED.table.get((self._device.type, "strided")) is _make_view.core_as_strided
    ):
        return make_view(self, sizes, strides, off)
    r = _AS_STRIDED.lane(self, sizes, strides, off)  # (None: a call it leaves to ``call``)
    return r if r is not None else _call(_AS_STRIDED, (self, sizes, strides, off))


def __getitem__(self: Tensor, idx: Any) -> Tensor:
    if (
        idx.__class__ is Tensor
        and (idx._dtype is dt.int64 or idx._dtype is dt.int32)
        and idx._shape
        and self._shape
        and idx._device is self._device
    ):
        # ``x[t]``, rows picked by a tensor of indices: the indices ``_apply_index`` makes
        # of it (``t`` for dim 0, the other dims whole), without its walk over the index
        return _advanced(self, [idx] + [None] * (len(self._shape) - 1))
    # One as_strided view is the fastest way to a basic index, but its gradient is the general
    # (scatter-add) one: a tensor whose indexing is recorded goes through slice/select/
    # unsqueeze instead, whose gradients write one region, as PyTorch records them.
    if self._layout.name == "strided" and not (
        self._requires_grad and (_grad_mode.enabled or _dual.on)
    ):
        # (``x[i]`` and ``x[a:b:k]``: ``_basic_view``'s arithmetic for one dim, without its
        # walk over the index)
        shape, st = self._shape, self._stride
        if idx.__class__ is int and shape:
            off = self._offset + _int_offset(idx, shape[0], st[0], 0)
            return _view(self, shape[1:], st[1:], off)
        if idx.__class__ is slice and shape:
            ext = _slice_extent(idx, shape[0])
            if ext is not None:
                b, n, step = ext
                return _view(
                    self, (n, *shape[1:]), (st[0] * step, *st[1:]), self._offset + b * st[0]
                )
        view = _basic_view(self, idx if idx.__class__ is tuple else (idx,))
        if view is not None:
            return view
    elif self._shape:  # (recorded: one slice or int over dim 0 is one node, as below)
        c = idx.__class__
        if c is slice:
            step = idx.step
            if step is None or (step.__class__ is int and step > 0):
                return _slice(self, 0, idx.start, idx.stop, 1 if step is None else step)
        elif c is int:
            return _select(self, 0, idx)
    flips: list[int] = []
    out, indices = _apply_index(self, idx, flips)
    if flips:
        out = out.flip(flips)  # a negative step: a reversed copy, as views cannot reverse
    if indices is None:
        return out
    return _advanced(out, indices)


def _advanced(out: Tensor, indices: list[Any]) -> Tensor:
    """``index(out, indices)``, through its lane first (None: a call it leaves to ``call``)."""
    r = _INDEX.lane(out, indices)
    return r if r is not None else _call(_INDEX, (out, indices))


def _value(self: Tensor, value: Any) -> Any:
    """The value of ``self[idx] = value``, checked before anything is written: a tensor, a
    number that fits ``self``'s dtype, or nested sequences of numbers (a new tensor)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (list, tuple)):
        from .ops.factories import tensor

        try:
            return tensor(value, dtype=self._dtype, device=self._device)
        except (TypeError, ValueError, RuntimeError) as exc:
            raise TypeError(f"can't assign {value!r} to a tensor by indexing: {exc}") from None
    v = as_scalar(value)
    if v is None:
        raise TypeError(
            f"can't assign a {type(value).__name__} to a {self._dtype.name} tensor by indexing"
        )
    try:
        dt.check_scalar(v, self._dtype)
    except RuntimeError as exc:
        raise RuntimeError(f"{exc} (in an indexed assignment)") from None
    return v


def _drop_leading_ones(value: Tensor) -> Tensor:
    """A tensor value without its leading size-1 dims, as PyTorch takes it before
    broadcasting it to the indexed region: ``adv[t] = row`` with ``row`` of shape ``(1, n)``
    and ``adv[t]`` of shape ``(n,)`` (PPO's GAE loop) assigns the row."""
    k = 0
    shape = value._shape
    while k < len(shape) and shape[k] == 1:
        k += 1
    return value[(0,) * k] if k else value


def __setitem__(self: Tensor, idx: Any, value: Any) -> None:
    value = _value(self, value)
    if isinstance(value, Tensor) and value._shape[:1] == (1,):
        value = _drop_leading_ones(value)
    view = None
    if self._layout.name == "strided":
        if idx.__class__ is bool:
            # PyTorch: a lone bool is basic indexing, a new dim (empty when False) written
            # by copy_ (which converts the value's dtype); in a tuple it is advanced
            view = self.unsqueeze(0) if idx else self.unsqueeze(0)[0:0]
        else:
            view = _basic_view(self, idx if idx.__class__ is tuple else (idx,))
    flips: list[int] = []
    if view is not None:
        out, indices = view, None
    else:
        out, indices = _apply_index(self, idx, flips)
    if flips and isinstance(value, Tensor):
        if indices is not None:
            raise NotImplementedError(
                "assignment through a slice with a negative step combined with advanced "
                "indexing is not supported; index with a positive step and flip the value"
            )
        value = value.expand(out.shape).flip(flips)  # written in the slice's own order
    if indices is None:
        if isinstance(value, Tensor):
            out.copy_(value)
        else:
            out.fill_(value)
        return
    from .ops.factories import scalar_tensor

    if not isinstance(value, Tensor):
        value = scalar_tensor(value, self).to(self._dtype)
    elif value._dtype is not self._dtype and value.ndim == 0 and _is_mask(idx):
        # ``x[mask] = v`` with a 0-d ``v`` is PyTorch's ``masked_fill_``, which casts it; any
        # other advanced assignment is ``index_put_``, which wants the destination's dtype.
        value = value.to(self._dtype)
    out.index_put_(indices, value)


def _is_mask(idx: Any) -> bool:
    """Whether ``idx`` is one bool (or uint8) tensor, alone or in a 1-tuple."""
    if idx.__class__ is tuple and len(idx) == 1:
        idx = idx[0]
    return isinstance(idx, Tensor) and idx._dtype in (dt.bool_, dt.uint8)
