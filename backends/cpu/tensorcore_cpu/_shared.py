"""Host memory shared between processes: ``Tensor.share_memory_()`` on the CPU.

A shared storage's buffer is a ``MAP_SHARED`` mapping of an anonymous memory file
(``os.memfd_create`` on Linux, an unlinked temporary file elsewhere): a process made by
``fork`` inherits the mapping itself, and multiprocessing's pickler (queues, and the arguments
of a process started by ``spawn`` or ``forkserver``) sends the file descriptor
(``multiprocessing.reduction.DupFd``), which the receiver maps again. Either way both processes
write the same pages, which is what Hogwild training needs. The descriptor stays open while
the storage lives (to be sent again); the mapping lives while any array over it does.
"""

from __future__ import annotations

import mmap
import os
import tempfile
import weakref
from typing import Any

import numpy as np

import tensorcore as tc
from tensorcore.backend import Storage

from ._dtypes import TO_NUMPY

__all__ = ["is_shared", "rebuild", "reduce", "share"]

_CPU = tc.device("cpu")

#: The descriptor of each shared storage's memory file.
_FDS: weakref.WeakKeyDictionary[Storage, int] = weakref.WeakKeyDictionary()


def _memory_file(nbytes: int) -> int:
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("tensorcore-shared", 0)
    else:  # pragma: no cover (no memfd outside Linux)
        fd, path = tempfile.mkstemp(prefix="tensorcore-shared-")
        os.unlink(path)
    os.ftruncate(fd, max(nbytes, 1))  # (an empty mapping is refused)
    return fd


def _map(fd: int, nbytes: int, dtype: Any) -> Any:
    mem = mmap.mmap(fd, max(nbytes, 1), flags=mmap.MAP_SHARED)
    return np.frombuffer(mem, dtype=dtype, count=nbytes // dtype.itemsize)


def _adopt(storage: Storage, fd: int) -> None:
    _FDS[storage] = fd
    weakref.finalize(storage, os.close, fd)


def share(storage: Storage) -> None:
    """Move ``storage``'s buffer into a shared mapping holding the same bytes."""
    old = storage.data
    fd = _memory_file(storage.nbytes)
    new = _map(fd, storage.nbytes, old.dtype)
    np.copyto(new, np.ascontiguousarray(old).reshape(-1)[: new.size])
    storage.data = new
    _adopt(storage, fd)


def is_shared(storage: Storage) -> bool:
    """Whether ``storage`` lies in a shared mapping."""
    return storage in _FDS


def reduce(storage: Storage) -> tuple[Any, tuple[Any, ...]]:
    """``(rebuild, args)`` sending a shared storage's memory file to another process."""
    # Imported here, not at the top: only a multiprocessing pickler calls this, and
    # importing multiprocessing's reduction costs every ``import tensorcore`` 5 ms.
    from multiprocessing.reduction import DupFd

    return rebuild, (DupFd(_FDS[storage]), storage.nbytes, storage.dtype)


def rebuild(handle: Any, nbytes: int, dtype: tc.dtype) -> Storage:
    """The receiving side of :func:`reduce`: a storage over the sender's memory."""
    fd = handle.detach()
    st = Storage(_map(fd, nbytes, np.dtype(TO_NUMPY[dtype])), nbytes, _CPU, dtype)
    _adopt(st, fd)
    return st
