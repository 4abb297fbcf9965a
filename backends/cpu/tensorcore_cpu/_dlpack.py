"""DLPack for the dtype NumPy cannot exchange, bfloat16, written with ctypes.

NumPy's ``__dlpack__`` refuses ``ml_dtypes`` arrays and ``np.from_dlpack`` refuses
``kDLBfloat`` capsules, so the CPU backend lays out the DLPack C structures itself (from
``dlpack.h``, version 1.0) for bfloat16 and leaves every other dtype to NumPy:

- :func:`export` wraps a bfloat16 array in a ``DLManagedTensor`` (capsule ``"dltensor"``) or a
  ``DLManagedTensorVersioned`` (capsule ``"dltensor_versioned"``) over the array's memory. The
  ctypes objects and the array stay in a registry keyed by the managed tensor's address until
  the consumer calls the deleter, or until the capsule is abandoned unconsumed (see
  ``_sweep`` for why that is not the capsule's destructor).
- :func:`request` asks a producer for a capsule the way the standard says (``max_version=(1,
  0)`` first, the legacy call after a ``TypeError``); :func:`to_array` turns a bfloat16
  capsule into an ``ml_dtypes.bfloat16`` array over the producer's memory, renames the capsule
  ``"used_dltensor[_versioned]"``, and calls the producer's deleter when the array (and every
  view of it) is collected. Other dtypes give None: :class:`Captured` hands the capsule to
  ``np.from_dlpack``, so the producer exports once.
"""

from __future__ import annotations

import ctypes
import gc
import sys
import threading
import weakref
from typing import Any

import ml_dtypes
import numpy as np

__all__ = ["Captured", "export", "live_exports", "request", "to_array"]

_BF16 = np.dtype(ml_dtypes.bfloat16)
_KDL_CPU = 1
_KDL_BFLOAT = 4
_FLAG_READ_ONLY = 1 << 0
_FLAG_IS_COPIED = 1 << 1

_LEGACY = b"dltensor"
_VERSIONED = b"dltensor_versioned"
_USED_LEGACY = b"used_dltensor"
_USED_VERSIONED = b"used_dltensor_versioned"

_i64p = ctypes.POINTER(ctypes.c_int64)


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", _i64p),
        ("strides", _i64p),
        ("byte_offset", ctypes.c_uint64),
    ]


#: ``void (*deleter)(struct DLManagedTensor[Versioned] *self)``; the argument as an address.
_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", _Deleter),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


# The capsule C API through prototypes of our own, so that ctypes.pythonapi's shared function
# objects keep whatever argtypes other libraries gave them.
_api = ctypes.pythonapi
_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_capsule_new = ctypes.PYFUNCTYPE(
    ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, _CapsuleDestructor
)(("PyCapsule_New", _api))
_capsule_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_IsValid", _api)
)
_capsule_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api)
)
_capsule_set_name = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", _api)
)

# ----------------------------------------------------------------------------- export
# Lifetimes. The consumer of a capsule renames it "used_..." and calls the deleter when done
# (``_release``). A capsule nobody consumes must free its context too, which C exporters do in
# the capsule's destructor. Here the destructor would be a ctypes callback, that is Python code,
# and CPython refuses a Python call while an exception is pending: exactly when a consumer
# refuses the capsule (``np.from_dlpack`` of bfloat16 raises, then drops it), which turned
# NumPy's error into a SystemError and leaked the export. So the capsules carry no destructor:
# the registry holds each capsule, and ``_sweep`` (after each garbage collection, and on every
# export and ``live_exports()``) releases the unconsumed ones that nobody else holds any more,
# and lets go of consumed ones (their consumer calls the deleter).

#: Address of a managed tensor -> everything its C structures point into (the struct, its
#: shape and strides arrays, and the exported array, which holds the memory).
_live: dict[int, tuple[Any, ...]] = {}
#: Address of a managed tensor -> its capsule, until the capsule is consumed or abandoned.
#: Key 0 is a probe capsule that only this dict holds: its reference count, read in the same
#: loop, is what "abandoned" looks like.
_probe_target = ctypes.c_char()
_capsules: dict[int, Any] = {
    0: _capsule_new(ctypes.addressof(_probe_target), b"tensorcore probe", _CapsuleDestructor())
}


def live_exports() -> int:
    """How many exported bfloat16 capsules still hold their memory: not yet released by the
    consumer's call of the deleter, nor abandoned unconsumed (collected)."""
    _sweep()
    return len(_live)


@_Deleter
def _release(address: int | None) -> None:
    # Called by the consumer (from C or Python) when it is done with the memory.
    if address is not None:
        _live.pop(address, None)
        _capsules.pop(address, None)


#: One sweep at a time: a second one (another thread's, or a collection's during a sweep)
#: would count the first one's loop variable as a holder of the probe.
_sweeping = threading.Lock()


def _sweep() -> None:
    if len(_capsules) == 1 or not _sweeping.acquire(blocking=False):
        return
    try:
        alone = 0
        for address, capsule in list(_capsules.items()):
            held = sys.getrefcount(capsule)
            if address == 0:
                alone = held
            elif held <= alone:
                _capsules.pop(address, None)
                if _capsule_is_valid(capsule, _LEGACY) or _capsule_is_valid(capsule, _VERSIONED):
                    _live.pop(address, None)  # never consumed
    finally:
        _sweeping.release()


def _after_collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "stop":
        _sweep()


gc.callbacks.append(_after_collection)


def export(arr: Any, *, versioned: bool, copied: bool = False) -> Any:
    """A DLPack capsule over a bfloat16 array's memory (no copy; pass a copy to export one).

    ``versioned`` picks a ``DLManagedTensorVersioned`` (version 1.0, writable; ``copied`` sets
    its ``IS_COPIED`` flag) in a ``"dltensor_versioned"`` capsule over a legacy
    ``DLManagedTensor`` in a ``"dltensor"`` one. The array's strides must be non-negative
    multiples of its item size (a tensor's always are)."""
    isz = arr.itemsize
    ndim = arr.ndim
    shape = (ctypes.c_int64 * ndim)(*arr.shape)
    strides = (ctypes.c_int64 * ndim)(*(s // isz for s in arr.strides))
    managed: Any
    if versioned:
        managed = DLManagedTensorVersioned()
        managed.version = DLPackVersion(1, 0)
        managed.flags = _FLAG_IS_COPIED if copied else 0
    else:
        managed = DLManagedTensor()
    dl = managed.dl_tensor  # (a view into managed, not a copy)
    dl.data = arr.ctypes.data
    dl.device = DLDevice(_KDL_CPU, 0)
    dl.ndim = ndim
    dl.dtype = DLDataType(_KDL_BFLOAT, 16, 1)
    dl.shape = ctypes.cast(shape, _i64p)
    dl.strides = ctypes.cast(strides, _i64p)
    dl.byte_offset = 0
    managed.deleter = _release
    address = ctypes.addressof(managed)
    _sweep()
    _live[address] = (managed, shape, strides, arr)
    capsule = _capsule_new(address, _VERSIONED if versioned else _LEGACY, _CapsuleDestructor())
    _capsules[address] = capsule
    return capsule


# ----------------------------------------------------------------------------- import
def request(producer: Any) -> Any:
    """The producer's capsule: ``__dlpack__(max_version=(1, 0))``, or the legacy
    ``__dlpack__()`` when the producer predates the keyword (``TypeError``)."""
    try:
        return producer.__dlpack__(max_version=(1, 0))
    except TypeError:
        return producer.__dlpack__()


class Captured:
    """A producer whose capsule was already taken: hands that capsule to ``np.from_dlpack``
    (whatever keywords it asks with), so that a dtype NumPy knows takes NumPy's path."""

    def __init__(self, capsule: Any, device: tuple[int, int]) -> None:
        self.capsule = capsule
        self.device = device

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device


def _call_deleter(deleter: Any, address: int) -> None:
    deleter(address)


def to_array(capsule: Any) -> Any:
    """An ``ml_dtypes.bfloat16`` array over a bfloat16 capsule's memory, or None (the capsule
    left untouched) when the capsule holds another dtype.

    The capsule is renamed ``"used_dltensor[_versioned]"``; the producer's deleter runs when the
    array and every view of it are gone. A versioned capsule flagged read-only gives a read-only
    array (the caller copies it or refuses). Raises ``BufferError`` for a capsule that was
    already consumed, a major version other than 1, or a bfloat16 tensor on another device."""
    if _capsule_is_valid(capsule, _VERSIONED):
        versioned, name, used = True, _VERSIONED, _USED_VERSIONED
    elif _capsule_is_valid(capsule, _LEGACY):
        versioned, name, used = False, _LEGACY, _USED_LEGACY
    else:
        raise BufferError(
            "from_dlpack(): the producer's __dlpack__ returned no unused DLPack capsule (was it "
            "consumed already?); call __dlpack__ once per import"
        )
    address = _capsule_get_pointer(capsule, name)
    managed: Any = (DLManagedTensorVersioned if versioned else DLManagedTensor).from_address(
        address
    )
    dl = managed.dl_tensor
    if (dl.dtype.code, dl.dtype.bits, dl.dtype.lanes) != (_KDL_BFLOAT, 16, 1):
        return None
    if versioned and managed.version.major != 1:
        raise BufferError(
            f"from_dlpack(): the producer exported DLPack {managed.version.major}."
            f"{managed.version.minor}, which is newer than 1.x; ask it for max_version=(1, 0)"
        )
    if dl.device.device_type != _KDL_CPU:
        raise BufferError(
            f"from_dlpack(): the capsule's memory is on DLPack device type "
            f"{dl.device.device_type}, not the CPU (1); move the tensor to host memory first"
        )
    read_only = versioned and bool(managed.flags & _FLAG_READ_ONLY)
    if _capsule_set_name(capsule, used) != 0:
        raise BufferError("from_dlpack(): could not mark the DLPack capsule as used")
    # From here on the deleter is ours to call, once. (A function pointer read from the struct
    # would read the struct's memory at call time: copy the address out.)
    fn = ctypes.cast(managed.deleter, ctypes.c_void_p).value
    deleter = _Deleter(fn) if fn else None
    ndim = dl.ndim
    shape = tuple(dl.shape[i] for i in range(ndim))
    isz = _BF16.itemsize
    if dl.strides:
        strides = tuple(dl.strides[i] * isz for i in range(ndim))
    else:  # (NULL strides: compact row-major, as DLPack < 1.2 allowed)
        strides = tuple(int(np.prod(shape[i + 1 :], dtype=np.int64)) * isz for i in range(ndim))
    if 0 in shape or not dl.data:
        if deleter:
            deleter(address)
        if 0 not in shape:
            raise BufferError(
                "from_dlpack(): the producer's DLPack tensor has elements but a NULL data "
                "pointer; the producer is broken"
            )
        return np.empty(shape, _BF16)
    first = dl.data + dl.byte_offset
    low = first + sum((n - 1) * s for n, s in zip(shape, strides, strict=True) if s < 0)
    high = first + sum((n - 1) * s for n, s in zip(shape, strides, strict=True) if s > 0) + isz
    buffer = (ctypes.c_char * (high - low)).from_address(low)
    if deleter:
        # The array's base is the buffer; the buffer dies with the last view.
        done = weakref.finalize(buffer, _call_deleter, deleter, address)
        done.atexit = False  # (at exit the producer's library may be gone; the OS frees all)
    arr = np.ndarray(shape, _BF16, buffer, first - low, strides)
    if read_only:
        arr.flags.writeable = False
    return arr
