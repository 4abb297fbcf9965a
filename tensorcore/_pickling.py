"""pickle, ``copy.copy`` and ``copy.deepcopy`` of tensors and storages, and the layout codecs.

A strided tensor reduces to its :class:`~tensorcore.Storage` (a separate object, so that
pickle's memo and deepcopy's memo keep views of one storage on one storage) and its view
metadata; a storage reduces to its device, dtype and contents as host bytes, which its
device's backend produces and consumes (``DeviceInterface.storage_to_bytes`` /
``storage_from_bytes``). A tensor of another layout has no storage: the plugin that owns the
layout registers a *codec* (:func:`register_layout_codec`) that takes such a tensor apart
into strided tensors plus a few plain attributes and builds it back, and pickle,
deepcopy and :func:`tensorcore.save` use it alike.

The semantics are PyTorch's: pickle and deepcopy keep ``requires_grad`` and return leaves (a
pickled non-leaf comes back as a leaf; deepcopy refuses non-leaves), deepcopy keeps ``.grad``
and pickle drops it, ``copy.copy`` returns a new tensor over the same storage.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._storage import Storage
from ._tensor import Tensor, make_tensor
from .devices import device
from .dtypes import dtype
from .layouts import get_codec, get_layout, set_codec, strided
from .plugins import manager

if TYPE_CHECKING:
    from .plugins import DeviceInterface

__all__ = [
    "check_view",
    "clone_storage",
    "deepcopy_tensor",
    "layout_codec",
    "new_storage",
    "reduce_storage",
    "reduce_tensor",
    "register_layout_codec",
    "storage_bytes",
]

#: What a layout codec's ``to_parts`` returns: named strided tensors and plain attributes
#: (``str``, ``int``, ``float``, ``bool`` or ``None`` values).
Parts = tuple[dict[str, Tensor], dict[str, Any]]
ToParts = Callable[[Tensor], Parts]
FromParts = Callable[[dict[str, Tensor], dict[str, Any], tuple[int, ...]], Tensor]


# ------------------------------------------------------------------ layout codecs
def register_layout_codec(layout: str, to_parts: ToParts, from_parts: FromParts) -> None:
    """Teach pickle, ``copy.deepcopy`` and :func:`tensorcore.save` a non-strided layout.

    The plugin that registers the layout calls this from its layouts hook.
    ``to_parts(tensor)`` returns ``(parts, attrs)``: a dict of strided tensors (for a sparse
    COO tensor, its indices and values) and a dict of plain attributes (``str``, ``int``,
    ``float``, ``bool`` or ``None`` values). ``from_parts(parts, attrs, shape)`` builds the
    tensor back, without ``requires_grad`` (the core restores it). It must check what it is
    given and raise ``ValueError`` or ``RuntimeError`` for anything inconsistent, since
    :func:`tensorcore.load` hands it whatever a file says. ``repr`` prints a tensor of the
    layout as its parts, in the order of the dict, each as ``name=tensor(...)``.

    Examples
    --------
    >>> import pickle
    >>> import tensorcore as tc
    >>> s = tc.sparse_coo_tensor([[0, 1]], [2.0, 3.0], (3,))  # tensorcore-sparse's codec
    >>> pickle.loads(pickle.dumps(s)).to_dense()
    tensor([2., 3., 0.])
    """
    if layout == "strided" or not layout.isidentifier():
        raise ValueError(f"register_layout_codec(): invalid layout name {layout!r}")
    if not (callable(to_parts) and callable(from_parts)):
        raise TypeError("register_layout_codec(): to_parts and from_parts must be callable")
    set_codec(layout, to_parts, from_parts)


def layout_codec(name: str) -> tuple[ToParts, FromParts]:
    """The codec of layout ``name``; a clear error when the layout or its codec is missing."""
    lay = get_layout(name)
    if lay is None:
        manager.load()
        lay = get_layout(name)
    if lay is None:
        raise RuntimeError(
            f"no installed backend provides the layout '{name}': {manager.install_hint(name)}"
        )
    codec = get_codec(name)
    if codec is None:
        raise NotImplementedError(
            f"tensors of layout '{name}' cannot be serialised: plugin '{lay.plugin}' "
            "registers no codec for it (tensorcore.serialization.register_layout_codec)"
        )
    return codec


# ------------------------------------------------------------------ storages
def storage_bytes(st: Storage) -> bytes:
    """``st``'s contents as host bytes, from its device's backend."""
    data = manager.device_backend(st.device).storage_to_bytes(st)
    if len(data) != st.nbytes:
        raise RuntimeError(
            f"the '{st.device.type}' backend's storage_to_bytes() returned {len(data)} bytes "
            f"for a storage of {st.nbytes} bytes"
        )
    return data


def new_storage(iface: DeviceInterface, data: Any, dt: dtype, dev: device) -> Storage:
    """A storage of ``dt`` on ``dev`` holding the host bytes ``data``, made by ``iface``."""
    if len(data) % dt.itemsize:
        raise ValueError(
            f"{len(data)} bytes do not hold a whole number of {dt.name} elements "
            f"({dt.itemsize} bytes each)"
        )
    st = iface.storage_from_bytes(data, dt, dev)
    if not isinstance(st, Storage) or st.nbytes != len(data) or st.dtype is not dt:
        raise RuntimeError(
            f"the '{dev.type}' backend's storage_from_bytes() did not return a {dt.name} "
            f"Storage of {len(data)} bytes"
        )
    return st


def clone_storage(st: Storage) -> Storage:
    """A copy of ``st`` on its device (``Storage.__copy__`` and ``__deepcopy__``)."""
    return manager.device_backend(st.device).clone_storage(st)


def reduce_storage(st: Storage) -> tuple[Any, ...]:
    """``Storage.__reduce_ex__``: device, dtype and host bytes."""
    return (_rebuild_storage, (st.device, st.dtype, storage_bytes(st)))


def _rebuild_storage(dev: device, dt: dtype, data: bytes) -> Storage:
    # (a weights-only load may call this with whatever the file says)
    if type(dev) is not device or type(dt) is not dtype or type(data) is not bytes:
        raise TypeError("cannot unpickle a storage: malformed arguments")
    try:
        iface = manager.device_backend(dev)
    except RuntimeError as exc:
        raise RuntimeError(f"cannot unpickle a storage of device '{dev}': {exc}") from None
    return new_storage(iface, data, dt, dev)


# ------------------------------------------------------------------ tensors
def check_view(
    shape: tuple[int, ...], stride: tuple[int, ...], offset: int, dt: dtype, st: Storage
) -> None:
    """Raise ``ValueError`` unless ``(shape, stride, offset)`` of ``dt`` elements addresses
    only bytes inside ``st``."""
    if len(shape) != len(stride):
        raise ValueError(f"shape {list(shape)} and stride {list(stride)} differ in length")
    if any(s < 0 for s in shape) or any(s < 0 for s in stride) or offset < 0:
        raise ValueError(
            f"negative size, stride or offset (shape {list(shape)}, stride {list(stride)}, "
            f"offset {offset})"
        )
    if 0 in shape:
        return
    last = offset + sum((n - 1) * s for n, s in zip(shape, stride, strict=True))
    if (last + 1) * dt.itemsize > st.nbytes:
        raise ValueError(
            f"a {dt.name} view of shape {list(shape)}, stride {list(stride)} and offset "
            f"{offset} reaches past the end of its storage of {st.nbytes} bytes"
        )


def reduce_tensor(t: Tensor) -> tuple[Any, ...]:
    """``Tensor.__reduce_ex__``: the storage and view metadata, or the layout's parts."""
    if t._layout is strided:
        return (
            _rebuild_strided,
            (t._storage, t._shape, t._stride, t._offset, t._dtype, t.requires_grad),
        )
    to_parts, _ = layout_codec(t._layout.name)
    parts, attrs = to_parts(t)
    return (_rebuild_layout, (t._layout.name, t._shape, parts, attrs, t.requires_grad))


def _retype(t: Tensor, cls: type) -> Tensor:
    """``t``'s fields in a new ``cls`` instance (``__class__`` assignment fails where ``cls``
    has an instance dict)."""
    new: Tensor = object.__new__(cls)
    for slot in _TENSOR_SLOTS:
        setattr(new, slot, getattr(t, slot))
    return new


_TENSOR_SLOTS = tuple(s for s in Tensor.__slots__ if s != "__weakref__")


def _rebuild_subclass(cls: type, fn: Any, args: tuple[Any, ...], state: Any) -> Tensor:
    t = _retype(fn(*args), cls)
    if state:
        t.__dict__.update(state)
    return t


def _rebuild_strided(
    st: Storage,
    shape: tuple[int, ...],
    stride: tuple[int, ...],
    offset: int,
    dt: dtype,
    requires_grad: bool,
) -> Tensor:
    # (a weights-only load may call this with whatever the file says)
    if (
        type(st) is not Storage
        or type(dt) is not dtype
        or not all(type(v) is int for v in (*shape, *stride, offset))
    ):
        raise TypeError("cannot unpickle a tensor: malformed arguments")
    check_view(shape, stride, offset, dt, st)
    t = make_tensor(st, tuple(shape), tuple(stride), offset, dt, st.device)
    if requires_grad:
        t.requires_grad = True  # (the attribute's words for an integer tensor, as PyTorch's)
    return t


def _rebuild_layout(
    name: str,
    shape: tuple[int, ...],
    parts: dict[str, Tensor],
    attrs: dict[str, Any],
    requires_grad: bool,
) -> Tensor:
    _, from_parts = layout_codec(name)
    t = from_parts(dict(parts), dict(attrs), tuple(shape))
    if not isinstance(t, Tensor) or t._layout.name != name or t._shape != tuple(shape):
        raise RuntimeError(
            f"the codec of layout '{name}' did not rebuild a {name} tensor of shape {list(shape)}"
        )
    if requires_grad:
        t.requires_grad = True  # (the attribute's words for an integer tensor, as PyTorch's)
    return t


def deepcopy_tensor(t: Tensor, memo: dict[int, Any]) -> Tensor:
    """``Tensor.__deepcopy__``: a leaf with copies of the storage (shared through ``memo``)
    and of ``.grad``."""
    if t._grad_fn is not None:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
            "protocol at the moment; deepcopy t.detach() to copy a non-leaf's values"
        )
    if t._layout is strided:
        new = make_tensor(
            copy.deepcopy(t._storage, memo), t._shape, t._stride, t._offset, t._dtype, t._device
        )
    else:
        to_parts, from_parts = layout_codec(t._layout.name)
        parts, attrs = to_parts(t)
        new = from_parts(copy.deepcopy(parts, memo), dict(attrs), t._shape)
    new._requires_grad = t.requires_grad
    if t.__class__ is not Tensor:
        # A subclass stays one, with a copy of its instance dict where it has one.
        new = _retype(new, t.__class__)
        if hasattr(t, "__dict__"):
            new.__dict__.update(copy.deepcopy(t.__dict__, memo))
    memo[id(t)] = new  # before .grad, which may be t itself (x.grad = x is allowed)
    if t._grad is not None:
        new._grad = copy.deepcopy(t._grad, memo)
    return new


def _tensor_reduce_ex(self: Tensor, protocol: Any) -> tuple[Any, ...]:
    if self.__class__ is not Tensor:  # a user's subclass (Tensor(...), as_subclass) stays one
        fn, args = reduce_tensor(self)[:2]
        return (_rebuild_subclass, (self.__class__, fn, args, getattr(self, "__dict__", None)))
    return reduce_tensor(self)


def _storage_reduce_ex(self: Storage, protocol: Any) -> tuple[Any, ...]:
    return reduce_storage(self)


def _storage_deepcopy(self: Storage, memo: dict[int, Any]) -> Storage:
    # (copy.deepcopy records the copy in ``memo``: views deep-copied together share it)
    return clone_storage(self)


def install() -> None:
    """Give ``Tensor`` and ``Storage`` their pickling and copying methods (done once by
    ``tensorcore/__init__.py``: they need the device backends, which the tensor model sits
    below)."""
    for cls, methods in (
        (Tensor, {"__reduce_ex__": _tensor_reduce_ex, "__deepcopy__": deepcopy_tensor}),
        (
            Storage,
            {
                "__reduce_ex__": _storage_reduce_ex,
                "__copy__": clone_storage,
                "__deepcopy__": _storage_deepcopy,
            },
        ),
    ):
        for name, fn in methods.items():
            setattr(cls, name, fn)
