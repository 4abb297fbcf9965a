"""Storage: one flat buffer per allocation, shared by every view of it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _registry

if TYPE_CHECKING:
    from .devices import device
    from .dtypes import dtype

__all__ = ["INFERENCE", "ByteCount", "Storage", "VersionCounter"]

#: ``[blocks, thread]``: how many ``inference_mode`` blocks are open in all threads, and the
#: function saying whether the calling thread is in one (both kept by
#: ``autograd.grad_mode``). A storage made in one is an inference storage, and every tensor
#: over it an inference tensor (``Tensor.is_inference``); while no block is open, making a
#: storage reads one list item.
INFERENCE: list[Any] = [0, None]


def _uint8() -> Any:
    from .dtypes import uint8

    return uint8


class ByteCount(int):
    """A number of bytes that may also be called: ``storage.nbytes`` (tensorcore's attribute,
    which backends read) and ``storage.nbytes()`` (PyTorch's method) are both the count.

    Examples
    --------
    >>> from tensorcore._storage import ByteCount
    >>> n = ByteCount(16)
    >>> n, n(), n // 4
    (16, 16, 4)
    """

    __slots__ = ()

    def __call__(self) -> int:
        return int(self)


class Storage:
    """A flat buffer made by a device backend's allocator, plus a version counter: what
    ``Tensor.untyped_storage()`` returns, PyTorch's ``UntypedStorage``.

    ``data`` is whatever the backend uses for a flat buffer (a 1-D NumPy array on the CPU,
    a CuPy array on CUDA); the core never looks inside it. Every tensor viewing this storage
    shares ``version``, which each in-place write bumps (autograd uses it to detect that a
    saved tensor was modified). ``inference`` says whether it was made inside
    ``inference_mode``. ``dtype`` is the dtype it was allocated for (a backend's business);
    as PyTorch's untyped storage, its public API counts bytes: ``size()``, ``len()``,
    ``nbytes()``, indexing (one byte, 0..255).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.zeros(4)
    >>> s = x.untyped_storage()
    >>> s.nbytes(), s.size(), len(s), s.element_size(), s.device, x[1:].untyped_storage() is s
    (16, 16, 16, 1, device(type='cpu'), True)
    """

    __slots__ = ("__weakref__", "_nbytes", "data", "device", "dtype", "inference", "version")

    def __init__(self, data: Any, nbytes: int, device: device, dtype: dtype) -> None:
        self.data = data
        self._nbytes = nbytes
        self.device = device
        self.dtype = dtype
        self.version = 0
        self.inference = INFERENCE[0] != 0 and INFERENCE[1]()

    @property
    def nbytes(self) -> ByteCount:
        """The size of the buffer in bytes (an attribute that may be called, as PyTorch's
        ``nbytes()``)."""
        return ByteCount(self._nbytes)

    @nbytes.setter
    def nbytes(self, value: int) -> None:
        self._nbytes = value

    def data_ptr(self) -> int:
        """Address of the first byte of the buffer, as reported by the device backend."""
        return _registry.interface(self.device).data_ptr(self)

    def size(self) -> int:
        """The number of bytes (PyTorch's ``UntypedStorage.size()``; a typed storage,
        ``Tensor.storage()``, counts elements)."""
        return self._nbytes

    def __len__(self) -> int:
        return self._nbytes

    def element_size(self) -> int:
        """Bytes per element: 1, an untyped storage's elements are bytes."""
        return 1

    @property
    def is_cuda(self) -> bool:
        """Whether the memory is on a CUDA device."""
        return self.device.type == "cuda"

    def get_device(self) -> int | None:
        """The device index; None for the CPU, as PyTorch's storages answer."""
        return None if self.device.type == "cpu" else (self.device.index or 0)

    def _bytes(self) -> Any:
        from ._tensor import make_tensor

        return make_tensor(self, (self._nbytes,), (1,), 0, _uint8(), self.device)

    def __getitem__(self, idx: Any) -> Any:
        n = self._nbytes
        if not isinstance(idx, int) or isinstance(idx, bool):
            raise TypeError(f"can't index an untyped storage with {type(idx).__name__}")
        if not -n <= idx < n:
            raise IndexError(f"index {idx} out of range for storage of size {n}")
        return self._bytes()[idx].item()

    def __setitem__(self, idx: Any, value: Any) -> None:
        if not isinstance(idx, int) or isinstance(idx, bool):
            raise TypeError(f"can't index an untyped storage with {type(idx).__name__}")
        self._bytes()[idx] = value

    def __iter__(self) -> Any:
        return iter(self.tolist())

    def tolist(self) -> list[int]:
        """The bytes, as ints in 0..255."""
        return self._bytes().tolist()

    def fill_(self, value: int) -> Storage:
        """Set every byte to ``value``; returns self."""
        self._bytes().fill_(value)
        return self

    def is_shared(self) -> bool:
        """Whether the memory is shared between processes."""
        return bool(_registry.interface(self.device).is_shared(self))

    def is_pinned(self) -> bool:
        """Whether the memory is pinned host memory."""
        return bool(self._bytes().is_pinned())

    def resizable(self) -> bool:
        """False: a tensorcore storage keeps its size (``Tensor.resize_`` allocates anew)."""
        return False

    def clone(self) -> Storage:
        """A copy of the storage, on its device."""
        from ._storage_bytes import flat_view

        return flat_view(self).clone().untyped_storage()

    def cpu(self) -> Storage:
        """The storage on the CPU (itself when it is there)."""
        from ._storage_bytes import flat_view

        return self if self.device.type == "cpu" else flat_view(self).cpu().untyped_storage()

    def __repr__(self) -> str:
        return f"Storage(nbytes={self._nbytes}, device='{self.device}', dtype={self.dtype})"

    # pickle, copy.copy and copy.deepcopy: set by tensorcore._pickling.install() (they need
    # the device backends, a layer above the storage model).


class VersionCounter:
    """A version counter of its own, for a tensor that must not share its storage's.

    An ordinary tensor counts its writes in its storage's ``version`` (its
    ``Tensor._version_counter`` slot is None, so that making a tensor allocates nothing
    more). ``x.data`` gets one of these instead, as in PyTorch: writes through ``x.data``
    and its views (which inherit the counter) do not move ``x``'s version, and writes through
    ``x`` do not move ``x.data``'s, although both view the same storage. ``detach()`` shares
    its source's counter, whichever it is.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.zeros(2)
    >>> d = x.data
    >>> _ = d.add_(1)
    >>> x._version, d._version
    (0, 1)
    """

    __slots__ = ("version",)

    def __init__(self, version: int = 0) -> None:
        self.version = version

    def __repr__(self) -> str:
        return f"VersionCounter(version={self.version})"
