"""Memory shared between processes: ``Tensor.share_memory_()`` and ``Tensor.is_shared()``.

The core allocates no memory, so the device's backend moves a storage into shared memory
(``DeviceInterface.share_memory``) and says what multiprocessing's pickler should send for it
(``DeviceInterface.reduce_shared``: on the CPU, the descriptor of the memory file, so that a
process started by ``spawn``, or one reading a ``multiprocessing.Queue``, maps the same
pages). Hogwild training (``model.share_memory()``, then processes that each step the same
parameters) needs nothing more.
"""

from __future__ import annotations

import gc
from typing import Any

from . import _registry
from ._pickling import reduce_storage
from ._storage import Storage
from ._tensor import Tensor

__all__ = ["is_shared", "register", "share_memory_"]

_REGISTERED = [False]
#: Whether multiprocessing's pickler moves a storage it sends into shared memory first
#: (``tensorcore.multiprocessing`` turns it on, as ``torch.multiprocessing`` does).
_SHARE_ON_SEND = [False]


def register(share_on_send: bool = False) -> None:
    """Let multiprocessing's pickler send shared storages as handles on their memory; with
    ``share_on_send``, also move every storage it sends into shared memory first (where the
    device can share), so that the receiver and the sender share it, as in PyTorch."""
    _register()
    if share_on_send:
        _SHARE_ON_SEND[0] = True


def _register() -> None:
    # multiprocessing's pickler (not pickle's) sends a shared storage as a handle on its
    # memory; registered on first use, since importing multiprocessing.reduction costs
    # every ``import tensorcore`` 5 ms.
    if _REGISTERED[0]:
        return
    from multiprocessing.reduction import ForkingPickler

    ForkingPickler.register(Storage, _reduce_for_process)
    _REGISTERED[0] = True


def _reduce_for_process(st: Storage) -> tuple[Any, ...]:
    iface = _registry.interface(st.device)
    if _SHARE_ON_SEND[0] and not iface.is_shared(st):
        try:
            _move(iface, st)
        except RuntimeError:  # a device that cannot share sends its values
            return reduce_storage(st)
    if iface.is_shared(st):
        sent = iface.reduce_shared(st)
        if sent is not None:
            return _rebuild_shared, sent
    return reduce_storage(st)


def _rebuild_shared(fn: Any, args: tuple[Any, ...]) -> Storage:
    # A process that received shared memory sends it on the same way.
    _register()
    st = fn(*args)
    if not isinstance(st, Storage):
        raise RuntimeError(f"rebuilding a shared storage gave {type(st).__name__}, not a Storage")
    return st


def share_memory_(self: Tensor) -> Tensor:
    """Move the tensor's storage into memory shared between processes (a no-op when it is
    there already) and return ``self``. Every tensor over the storage sees the move; tensors
    sent to another process through :mod:`multiprocessing` (a process's arguments, a queue)
    then share their memory with this one, so that in-place updates (Hogwild training) reach
    both. Strided CPU tensors only, where the backend can share (the CPU backend can).

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.zeros(3)
    >>> w.share_memory_() is w, w.is_shared()
    (True, True)
    """
    st = self._storage
    if st is None:
        raise RuntimeError(
            f"share_memory_(): tensors of layout {self._layout.name} have no storage"
        )
    iface = _registry.interface(st.device)
    _register()
    if iface.is_shared(st):
        return self
    _move(iface, st)
    return self


def _move(iface: Any, st: Storage) -> None:
    iface.share_memory(st)
    # The buffer moved: drop the native arrays that tensors over this storage cached of the
    # old one (views made before the call). A one-time scan; the operator path never pays.
    for ref in gc.get_referrers(st):
        if isinstance(ref, Tensor) and ref._storage is st:
            ref._native = None


def is_shared(self: Tensor) -> bool:
    """Whether the tensor's storage lies in memory shared between processes
    (:meth:`share_memory_`, or received from another process).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.zeros(2).is_shared()
    False
    """
    st = self._storage
    if st is None:
        return False
    return bool(_registry.interface(st.device).is_shared(st))
