"""``Tensor.storage()``: PyTorch's legacy, typed view of a tensor's storage.

PyTorch deprecates ``TypedStorage`` in favour of ``untyped_storage()`` but old programs still
call ``x.storage()`` (for ``data_ptr()`` comparisons, ``size()``, element access); the object
here answers those calls over the tensor's :class:`~tensorcore.Storage`, in the tensor's
dtype, and warns once per process, as PyTorch does.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from . import _registry
from ._storage import Storage
from ._tensor import Tensor, make_tensor

if TYPE_CHECKING:
    from .devices import device
    from .dtypes import dtype

__all__ = ["TypedStorage", "storage"]

_WARNED = [False]

DEPRECATION = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be "
    "the only storage class. This should only matter to you if you are using storages "
    "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
    "tensor.storage()"
)


class TypedStorage:
    """A storage seen as elements of one dtype: what ``Tensor.storage()`` returns.

    Indexing reads and writes single elements of the whole storage (not only the part the
    tensor views); ``untyped()`` is the :class:`~tensorcore.Storage` itself.

    Examples
    --------
    >>> import warnings
    >>> import tensorcore as tc
    >>> x = tc.arange(4.0)[1:]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     s = x.storage()
    >>> s.size(), s[0], s.dtype
    (4, 0.0, tensorcore.float32)
    """

    __slots__ = ("_dtype", "_untyped_storage")

    def __init__(self, untyped: Storage, dtype: dtype) -> None:
        self._untyped_storage = untyped
        self._dtype = dtype

    @property
    def dtype(self) -> dtype:
        """The elements' dtype."""
        return self._dtype

    @property
    def device(self) -> device:
        """The device of the memory."""
        return self._untyped_storage.device

    @property
    def is_cuda(self) -> bool:
        """Whether the memory is on a CUDA device."""
        return self.device.type == "cuda"

    def _flat(self) -> Tensor:
        st = self._untyped_storage
        return make_tensor(st, (self.size(),), (1,), 0, self._dtype, st.device)

    def untyped(self) -> Storage:
        """The untyped storage (the tensor's ``untyped_storage()``)."""
        return self._untyped_storage

    def size(self) -> int:
        """The number of elements of ``dtype`` the storage holds."""
        return self._untyped_storage.nbytes // self._dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def nbytes(self) -> int:
        """The size of the memory in bytes."""
        return self._untyped_storage.nbytes

    def element_size(self) -> int:
        """Bytes per element."""
        return self._dtype.itemsize

    def data_ptr(self) -> int:
        """Address of the first element."""
        return self._untyped_storage.data_ptr()

    def _index(self, idx: Any) -> int:
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if not isinstance(idx, int):
            raise RuntimeError(f"can't index a {type(self).__name__} with {type(idx).__name__}")
        n = self.size()
        if not -n <= idx < n:
            raise IndexError(f"index {idx} out of range for storage of size {n}")
        return idx % n if n else idx

    def __getitem__(self, idx: Any) -> Any:
        return self._flat()[self._index(idx)].item()

    def __setitem__(self, idx: Any, value: Any) -> None:
        self._flat()[self._index(idx)] = value

    def __iter__(self) -> Any:
        return iter(self.tolist())

    def tolist(self) -> list[Any]:
        """The elements as Python numbers."""
        return self._flat().tolist()

    def fill_(self, value: Any) -> TypedStorage:
        """Write ``value`` into every element; returns self."""
        self._flat().fill_(value)
        return self

    def is_shared(self) -> bool:
        """Whether the memory is shared between processes."""
        st = self._untyped_storage
        return bool(_registry.interface(st.device).is_shared(st))

    def share_memory_(self) -> TypedStorage:
        """Move the memory into memory shared between processes; returns self."""
        self._flat().share_memory_()
        return self

    def is_pinned(self) -> bool:
        """Whether the memory is pinned host memory."""
        return bool(self._flat().is_pinned())

    def get_device(self) -> int | None:
        """The device index; None for the CPU, as PyTorch's storages answer."""
        return self._untyped_storage.get_device()

    def clone(self) -> TypedStorage:
        """A copy, on the same device, in the same dtype."""
        return TypedStorage(self._untyped_storage.clone(), self._dtype)

    def cpu(self) -> TypedStorage:
        """The storage on the CPU (itself when it is there)."""
        st = self._untyped_storage
        return self if st.device.type == "cpu" else TypedStorage(st.cpu(), self._dtype)

    def __repr__(self) -> str:
        body = "\n".join(f" {v}" for v in self.tolist()) if self.device.type != "meta" else " ..."
        return (
            f"{body}\n[TypedStorage(dtype={self._dtype}, "
            f"device={self.device}) of size {self.size()}]"
        )


def storage(self: Tensor) -> TypedStorage:
    """The tensor's storage as a legacy ``TypedStorage`` in the tensor's dtype (PyTorch
    deprecates it: use :meth:`untyped_storage`). Warns once per process, as PyTorch does."""
    if not _WARNED[0]:
        _WARNED[0] = True
        warnings.warn(DEPRECATION, UserWarning, stacklevel=2)
    return TypedStorage(self.untyped_storage(), self._dtype)
