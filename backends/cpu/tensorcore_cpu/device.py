"""The CPU device: NumPy buffers as storage, NumPy views as native arrays."""

from __future__ import annotations

import math
import sys
import warnings
from types import FrameType
from typing import Any

import numpy as np

import tensorcore as tc
from tensorcore.backend import (
    DeviceInterface,
    Storage,
    Tensor,
    contiguous_strides,
    contiguous_tensor,
    make_tensor,
    native,
)

from . import _dlpack, _shared
from ._cache import MIN_BYTES
from ._cache import cache as _blocks
from ._dtypes import TO_NUMPY as _TO_NP
from ._dtypes import from_numpy, to_numpy

__all__ = ["CPUDevice", "wrap"]

_CPU = tc.device("cpu")

# PyTorch warns once per process about a read-only array it is handed to share.
_warned_read_only = False


def _user_level() -> int:
    """The ``stacklevel`` of the first caller outside tensorcore (from_numpy and as_tensor
    reach this module through different numbers of frames)."""
    frame: FrameType | None = sys._getframe(2)
    level = 2
    while frame is not None and (
        frame.f_globals.get("__name__", "").startswith("tensorcore")
        or frame.f_code.co_filename.startswith("<tensorcore")  # (the generated API)
    ):
        frame, level = frame.f_back, level + 1
    return level


def _writable(arr: Any) -> Any:
    """A writable array over a read-only one's memory, as PyTorch shares it (``np.diag``'s
    views, pandas' copy-on-write ``.values``): a tensor's in-place operators write through.
    Memory that cannot be written at all (an array over ``bytes``) is copied instead."""
    global _warned_read_only
    if not _warned_read_only:
        _warned_read_only = True
        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support non-writable "
            "tensors. This means writing to this tensor will result in undefined behavior. You "
            "may want to copy the array to protect its data or make it writable before "
            "converting it to a tensor. This type of warning will be suppressed for the rest "
            "of this program.",
            UserWarning,
            stacklevel=_user_level(),
        )
    view = arr.view()
    try:
        view.setflags(write=True)
    except ValueError:  # (its base is read-only too)
        return arr.copy()
    return view


def wrap(arr: Any, dtype: tc.dtype | None = None) -> Tensor:
    """A tensor over a NumPy array's memory (no copy); the array becomes its storage."""
    if dtype is None:
        dtype = from_numpy(arr.dtype)
    isz = arr.itemsize
    if arr.flags.c_contiguous:  # (the allocator's fast path: the array is the storage)
        return contiguous_tensor(arr, arr.nbytes, arr.shape, dtype, _CPU, arr)
    # A strided array: its storage is the smallest flat range covering it.
    strides = tuple(s // isz for s in arr.strides)
    if any(s * isz != b for s, b in zip(strides, arr.strides, strict=True)) or any(
        s < 0 for s in strides
    ):
        return wrap(np.ascontiguousarray(arr), dtype)
    extent = (
        1 + sum((n - 1) * s for n, s in zip(arr.shape, strides, strict=True)) if arr.size else 0
    )
    flat = np.lib.stride_tricks.as_strided(arr, (extent,), (isz,))
    st = Storage(flat, extent * isz, _CPU, dtype)
    return make_tensor(st, arr.shape, strides, 0, dtype, _CPU, arr)


# (strides in elements, item size) -> strides in bytes: every view's first use makes its
# NumPy array (``materialize``), and a view meets the same strides again and again (the rows
# of a batch, a transpose); spelling them out was a third of the call.
_BYTE_STRIDES: dict[tuple[tuple[int, ...], int], tuple[int, ...]] = {}


class CPUDevice(DeviceInterface):
    """NumPy-backed host memory."""

    type = "cpu"
    array_module = np

    def set_num_threads(self, n: int) -> None:
        """Limit the BLAS libraries loaded in the process (NumPy's, SciPy's) to ``n``
        threads, through ``threadpoolctl``."""
        from threadpoolctl import threadpool_limits

        threadpool_limits(n, user_api="blas")

    def from_native(self, array: Any, device: Any) -> Tensor:
        """A tensor over a NumPy array's memory (:func:`wrap`)."""
        if not isinstance(array, np.ndarray):
            return super().from_native(array, device)
        return wrap(array)

    def empty(self, shape: tuple[int, ...], dtype: tc.dtype, device: Any) -> Tensor:
        """Allocate with ``np.empty``; the (contiguous) array is the storage buffer. Large
        buffers come from, and go back to, the block cache (``_cache.py``)."""
        try:
            arr = np.empty(shape, _TO_NP[dtype])
        except (MemoryError, ValueError):  # (ValueError: more bytes than an address holds)
            nbytes = math.prod(shape) * dtype.itemsize
            raise RuntimeError(
                f"DefaultCPUAllocator: not enough memory: you tried to allocate {nbytes} bytes "
                f"(a {dtype.name} tensor of shape {list(shape)})"
            ) from None
        nbytes = arr.nbytes
        if nbytes < MIN_BYTES or _blocks is None:
            # The allocator's fast path (small allocations are on every operation's path).
            return contiguous_tensor(arr, nbytes, shape, dtype, _CPU, arr)
        block = _blocks.take(nbytes)
        if block is None:
            block = arr  # fresh (its pages untouched until the kernel writes)
        else:
            arr = block.reshape(-1).view(np.uint8).view(arr.dtype).reshape(shape)
        st = Storage(arr, nbytes, _CPU, dtype)
        _blocks.watch(st, block, arr if arr is not block else None)
        return make_tensor(st, shape, contiguous_strides(shape), 0, dtype, _CPU, arr)

    def materialize(self, t: Tensor) -> Any:
        """``np.ndarray`` over the storage buffer with the tensor's sizes and strides."""
        st = t._storage
        assert st is not None
        isz = t._dtype.itemsize
        if 0 in t._shape:
            # An empty view may point past the end of its storage; it addresses no memory.
            return np.empty(t._shape, _TO_NP[t._dtype])
        key = (t._stride, isz)
        strides = _BYTE_STRIDES.get(key)
        if strides is None:
            strides = tuple(s * isz for s in t._stride)
            if len(_BYTE_STRIDES) >= 4096:
                _BYTE_STRIDES.clear()
            _BYTE_STRIDES[key] = strides
        return np.ndarray(t._shape, to_numpy(t._dtype), st.data, t._offset * isz, strides)

    def data_ptr(self, storage: Storage) -> int:
        """Address of the buffer."""
        return int(storage.data.__array_interface__["data"][0])

    def from_data(
        self, flat: list[Any], shape: tuple[int, ...], dtype: tc.dtype, device: Any
    ) -> Tensor:
        """Build from row-major Python scalars."""
        npd = to_numpy(dtype)
        if dtype.is_floating_point or dtype.is_complex:
            with np.errstate(over="ignore"):  # a float beyond the dtype's range is inf
                arr = np.array(flat, dtype=npd if dtype is not tc.bfloat16 else np.float64)
        else:
            # Integers as int64 first, then cast: a value the core let through wraps as in
            # PyTorch (-1 into uint8 is 255) instead of raising NumPy's OverflowError.
            arr = np.array(flat, dtype=np.uint64 if flat and max(flat) > 2**63 - 1 else None)
        if arr.dtype != npd:
            with np.errstate(over="ignore"):
                arr = arr.astype(npd)
        return wrap(arr.reshape(shape), dtype)

    def from_object(
        self, obj: Any, dtype: tc.dtype | None, device: Any, copy: bool
    ) -> Tensor | None:
        """NumPy arrays and NumPy scalars (shared when ``copy`` is false)."""
        if not isinstance(obj, (np.ndarray, np.generic)):
            return None
        arr = np.asarray(obj)
        tdt = from_numpy(arr.dtype)
        if copy:
            arr = arr.copy()
        elif not arr.flags.c_contiguous and any(s < 0 for s in arr.strides):
            raise ValueError(
                "At least one stride in the given numpy array is negative, and tensors with "
                "negative strides are not currently supported. (You can probably work around "
                "this by making a copy of your array with array.copy().)"
            )
        elif not arr.flags.writeable:
            arr = _writable(arr)
        t = wrap(arr, tdt)
        if device is not None and device is not _CPU and tc.device(device).type != "cpu":
            return t.to(device=device, dtype=dtype or tdt)
        return t if dtype is None else t.to(dtype)

    def to_numpy(self, t: Tensor) -> Any:
        """The native array itself: it shares memory with the tensor."""
        return native(t)

    def to_dlpack(
        self,
        tensor: Tensor,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[Any, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """NumPy's export, except for bfloat16, which NumPy cannot export: a capsule built by
        ``_dlpack.export`` over the tensor's memory (a copy's under ``copy=True``), versioned
        when the consumer's ``max_version`` is 1.0 or later."""
        if tensor._dtype is not tc.bfloat16:
            return super().to_dlpack(
                tensor, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy
            )
        if stream is not None:
            raise RuntimeError("__dlpack__(): stream must be None for a CPU tensor")
        if dl_device is not None and tuple(int(v) for v in dl_device) != (1, 0):
            raise BufferError(
                f"__dlpack__(): can't export a CPU tensor to DLPack device {tuple(dl_device)}; "
                "only (1, 0), the CPU, is supported"
            )
        arr = native(tensor)
        if copy:
            arr = arr.copy()
        versioned = max_version is not None and int(max_version[0]) >= 1
        return _dlpack.export(arr, versioned=versioned, copied=bool(copy))

    def from_dlpack(self, obj: Any, copy: bool | None = None) -> Tensor | None:
        """Zero-copy import of a DLPack producer in host memory: NumPy's for the dtypes NumPy
        knows, ``_dlpack.to_array`` for bfloat16. A read-only or negatively strided producer is
        copied (tensors are writable and their strides non-negative), or refused with
        ``BufferError`` under ``copy=False``."""
        dev_type, dev_id = obj.__dlpack_device__()
        if int(dev_type) != 1:  # kDLCPU
            return None
        capsule = _dlpack.request(obj)
        arr = _dlpack.to_array(capsule)
        if arr is None:  # (the producer exports once: NumPy gets the capsule already taken)
            arr = np.from_dlpack(_dlpack.Captured(capsule, (int(dev_type), int(dev_id))))
        if not arr.flags.writeable or any(s < 0 for s in arr.strides):
            if copy is False:
                why = "read-only" if not arr.flags.writeable else "negatively strided"
                raise BufferError(
                    f"from_dlpack(): copy=False, but the producer's memory is {why}, which a "
                    "tensor cannot share"
                )
            arr = arr.copy()
        return wrap(arr)

    def storage_to_bytes(self, storage: Storage) -> bytes:
        """The buffer's bytes (NumPy's layout is the contract's on little-endian hosts)."""
        return np.ndarray((storage.nbytes,), np.uint8, storage.data).tobytes()

    def storage_from_bytes(self, data: bytes | bytearray, dtype: tc.dtype, device: Any) -> Storage:
        """An array over ``data``: shared when it is writable (a ``bytearray``), else a copy."""
        arr = np.frombuffer(data, _TO_NP[dtype])
        if not arr.flags.writeable:
            arr = arr.copy()
        return Storage(arr, arr.nbytes, _CPU, dtype)

    def clone_storage(self, storage: Storage) -> Storage:
        """A copy of the buffer."""
        return Storage(storage.data.copy(), storage.nbytes, _CPU, storage.dtype)

    def share_memory(self, storage: Storage) -> None:
        """Move the buffer into a shared mapping of a memory file (``_shared.py``)."""
        _shared.share(storage)

    def is_shared(self, storage: Storage) -> bool:
        """Whether the buffer is a shared mapping (``share_memory``, or received)."""
        return _shared.is_shared(storage)

    def reduce_shared(self, storage: Storage) -> tuple[Any, tuple[Any, ...]] | None:
        """Send the memory file's descriptor (``multiprocessing.reduction.DupFd``)."""
        return _shared.reduce(storage)
