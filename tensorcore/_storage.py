"""Storage: one flat buffer per allocation, shared by every view of it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _registry

if TYPE_CHECKING:
    from .devices import device
    from .dtypes import dtype

__all__ = ["INFERENCE", "Storage", "VersionCounter"]

#: ``[blocks, thread]``: how many ``inference_mode`` blocks are open in all threads, and the
#: function saying whether the calling thread is in one (both kept by
#: ``autograd.grad_mode``). A storage made in one is an inference storage, and every tensor
#: over it an inference tensor (``Tensor.is_inference``); while no block is open, making a
#: storage reads one list item.
INFERENCE: list[Any] = [0, None]


class Storage:
    """A flat buffer made by a device backend's allocator, plus a version counter.

    ``data`` is whatever the backend uses for a flat buffer (a 1-D NumPy array on the CPU,
    a CuPy array on CUDA); the core never looks inside it. Every tensor viewing this storage
    shares ``version``, which each in-place write bumps (autograd uses it to detect that a
    saved tensor was modified). ``inference`` says whether it was made inside
    ``inference_mode``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.zeros(4)
    >>> s = x.untyped_storage()
    >>> s.nbytes, s.device, x[1:].untyped_storage() is s
    (16, device(type='cpu'), True)
    """

    __slots__ = ("__weakref__", "data", "device", "dtype", "inference", "nbytes", "version")

    def __init__(self, data: Any, nbytes: int, device: device, dtype: dtype) -> None:
        self.data = data
        self.nbytes = nbytes
        self.device = device
        self.dtype = dtype
        self.version = 0
        self.inference = INFERENCE[0] != 0 and INFERENCE[1]()

    def data_ptr(self) -> int:
        """Address of the first byte of the buffer, as reported by the device backend."""
        return _registry.interface(self.device).data_ptr(self)

    def size(self) -> int:
        """Number of elements of the storage's dtype the buffer holds."""
        return self.nbytes // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def __repr__(self) -> str:
        return f"Storage(nbytes={self.nbytes}, device='{self.device}', dtype={self.dtype})"

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
