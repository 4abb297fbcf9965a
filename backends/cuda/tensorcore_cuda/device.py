"""The CUDA device: CuPy memory-pool buffers as storage, CuPy views as native arrays."""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np
from tensorcore_xp.dtypes import DtypeMap

import tensorcore as tc
from tensorcore.backend import (
    DeviceInterface,
    Storage,
    Tensor,
    contiguous_strides,
    contiguous_tensor,
    from_native,
    make_tensor,
    native,
)

__all__ = ["CUDADevice"]

_MAX_BYTES = 2**63 - 1


def _out_of_memory(
    nbytes: int, shape: tuple[int, ...], dtype: tc.dtype, idx: int, why: str
) -> Exception:
    """PyTorch's out-of-memory error for an allocation of ``nbytes`` on GPU ``idx``."""
    return tc.cuda.OutOfMemoryError(
        f"CUDA out of memory. Tried to allocate {nbytes} bytes (a {dtype.name} tensor of shape "
        f"{list(shape)}) on cuda:{idx}: {why}"
    )


class CUDADevice(DeviceInterface):
    """CUDA devices through CuPy; unavailable (with the reason) when CuPy or a GPU is missing."""

    type = "cuda"

    def __init__(self, cupy: Any, reason: str | None) -> None:
        self.cp = cupy
        self.unavailable_reason = reason
        # CuPy's dtypes are NumPy's: the map is NumPy's own, without bfloat16.
        self.dtypes = DtypeMap(np, array_name="cupy.ndarray")
        # The host storages empty_pinned made (the driver knows no address for an empty one).
        self._pinned: weakref.WeakSet[Storage] = weakref.WeakSet()

    @property
    def array_module(self) -> Any:
        """CuPy (None when it is not importable): what ``materialize`` returns arrays of."""
        return self.cp

    # ------------------------------------------------------------ devices
    def device_count(self) -> int:
        """Number of visible GPUs."""
        if self.unavailable_reason is not None:
            return 0
        return int(self.cp.cuda.runtime.getDeviceCount())

    def index(self, device: Any) -> int:
        """The device index of ``device`` (the current device when it has none)."""
        d = tc.device(device)
        return int(self.cp.cuda.runtime.getDevice()) if d.index is None else d.index

    def synchronize(self, device: Any) -> None:
        """Wait for all work queued on ``device``."""
        with self.cp.cuda.Device(self.index(device)):
            self.cp.cuda.Device().synchronize()

    def _dev(self, index: int) -> tc.device:
        return tc.device("cuda", index)

    def _check_dtype(self, dtype: tc.dtype) -> Any:
        if dtype is tc.bfloat16:
            raise TypeError("bfloat16 is not supported on the cuda device (CuPy has no bfloat16)")
        return self.dtypes.to_native(dtype)

    def wrap(self, arr: Any, dtype: tc.dtype | None = None) -> Tensor:
        """A tensor over a CuPy array's memory (no copy)."""
        cp = self.cp
        if dtype is None:
            dtype = self.dtypes.from_native(arr.dtype)
        dev = self._dev(arr.device.id)
        if not arr.flags.c_contiguous:
            arr = cp.ascontiguousarray(arr)
        st = Storage(arr, arr.nbytes, dev, dtype)
        return make_tensor(st, arr.shape, contiguous_strides(arr.shape), 0, dtype, dev, arr)

    # ------------------------------------------------------------ DeviceInterface
    def empty(self, shape: tuple[int, ...], dtype: tc.dtype, device: Any) -> Tensor:
        """Allocate from CuPy's memory pool on ``device``; ``tensorcore.cuda.OutOfMemoryError``
        (a ``RuntimeError``, as PyTorch's) where the GPU cannot hold it."""
        npd = self._check_dtype(dtype)
        idx = self.index(device)
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes > _MAX_BYTES:
            # (CuPy counts bytes in 64 bits: past that the count wraps, and a small buffer
            # would be allocated for a huge shape, which kernels would then write past)
            raise _out_of_memory(nbytes, shape, dtype, idx, "more bytes than 64 bits count")
        try:
            with self.cp.cuda.Device(idx):
                arr = self.cp.empty(shape, npd)
        except self.cp.cuda.memory.OutOfMemoryError as exc:
            raise _out_of_memory(nbytes, shape, dtype, idx, str(exc)) from None
        return contiguous_tensor(arr, arr.nbytes, shape, dtype, self._dev(idx), arr)

    def materialize(self, t: Tensor) -> Any:
        """A CuPy view (``memptr``, shape, strides) over the storage: never a copy."""
        st = t._storage
        assert st is not None
        isz = t._dtype.itemsize
        base = st.data
        if 0 in t._shape:
            return self.cp.empty(t._shape, self.dtypes.to_native(t._dtype))
        return self.cp.ndarray(
            t._shape,
            self.dtypes.to_native(t._dtype),
            base.data + t._offset * isz,
            tuple(s * isz for s in t._stride),
        )

    def data_ptr(self, storage: Storage) -> int:
        """Device address of the buffer."""
        return int(storage.data.data.ptr)

    def from_data(
        self, flat: list[Any], shape: tuple[int, ...], dtype: tc.dtype, device: Any
    ) -> Tensor:
        """Build on the host with NumPy, then one transfer."""
        npd = self._check_dtype(dtype)
        host = np.array(flat, dtype=npd if not dtype.is_complex else np.complex128).astype(npd)
        with self.cp.cuda.Device(self.index(device)):
            return self.wrap(self.cp.asarray(host.reshape(shape)), dtype)

    def from_object(
        self, obj: Any, dtype: tc.dtype | None, device: Any, copy: bool
    ) -> Tensor | None:
        """CuPy arrays (shared when ``copy`` is false)."""
        if not isinstance(obj, self.cp.ndarray):
            return None
        arr = obj.copy() if copy else obj
        t = self.wrap(arr)
        if device is not None and tc.device(device).type != "cuda":
            return t.to(device=device, dtype=dtype or t.dtype)
        return t if dtype is None else t.to(dtype)

    def from_dlpack(self, obj: Any, copy: bool | None = None) -> Tensor | None:
        """Zero-copy import of a DLPack producer on a CUDA device (a negatively strided one
        is copied, or refused with ``BufferError`` under ``copy=False``)."""
        dev_type, _ = obj.__dlpack_device__()
        if int(dev_type) != 2:  # kDLCUDA
            return None
        arr = self.cp.from_dlpack(obj)
        if any(s < 0 for s in arr.strides):
            if copy is False:
                raise BufferError(
                    "from_dlpack(): copy=False, but the producer's memory is negatively "
                    "strided, which a tensor cannot share"
                )
            arr = arr.copy()
        return self.wrap(arr)

    def storage_to_bytes(self, storage: Storage) -> bytes:
        """One device-to-host copy of the buffer."""
        return self.cp.asnumpy(storage.data).tobytes()

    def storage_from_bytes(self, data: bytes | bytearray, dtype: tc.dtype, device: Any) -> Storage:
        """One host-to-device copy of ``data`` onto ``device``."""
        host = np.frombuffer(data, self._check_dtype(dtype))
        idx = self.index(device)
        with self.cp.cuda.Device(idx):
            arr = self.cp.asarray(host)
        return Storage(arr, arr.nbytes, self._dev(idx), dtype)

    def clone_storage(self, storage: Storage) -> Storage:
        """A copy of the buffer on its own device."""
        with self.cp.cuda.Device(self.index(storage.device)):
            arr = storage.data.copy()
        return Storage(arr, storage.nbytes, storage.device, storage.dtype)

    def copy_between(self, src: Tensor, dst: Tensor) -> bool:
        """Host <-> device and device <-> device copies of a contiguous ``src``."""
        s, d = src.device.type, dst.device.type
        if s == "cpu" and d == "cuda":
            host = np.ascontiguousarray(native(src))
            with self.cp.cuda.Device(self.index(dst.device)):
                native(dst)[...] = self.cp.asarray(host)
            return True
        if s == "cuda" and d == "cpu":
            native(dst)[...] = self.cp.asnumpy(native(src))
            return True
        if s == "cuda" and d == "cuda":
            with self.cp.cuda.Device(self.index(dst.device)):
                native(dst)[...] = self.cp.asarray(native(src))
            return True
        return False

    # ------------------------------------------------------------ pinned host memory
    def can_pin_memory(self) -> bool:
        """CUDA pins host memory (through CuPy) wherever the device is available."""
        return True

    def empty_pinned(self, nbytes: int) -> Tensor:
        """``nbytes`` of page-locked host memory from CuPy's pinned memory pool
        (``cupyx.empty_pinned``: a NumPy array whose buffer CuPy allocated with
        ``cudaHostAlloc``), as a ``uint8`` CPU tensor over that array; the array, kept as
        the storage's buffer, keeps the allocation alive."""
        import cupyx  # shipped with CuPy, which the device's availability implies

        # (nothing to lock for an empty buffer; it counts as pinned through self._pinned)
        arr = cupyx.empty_pinned((nbytes,), dtype=np.uint8) if nbytes else np.empty(0, np.uint8)
        t = from_native(arr, "cpu")
        self._pinned.add(t.untyped_storage())
        return t

    def is_pinned(self, storage: Storage) -> bool:
        """Whether a host storage is page-locked: one :meth:`empty_pinned` made, or any
        other whose address the CUDA driver reports as host memory it registered (memory
        pinned by CuPy or another library)."""
        if storage in self._pinned:
            return True
        if storage.device.type != "cpu" or storage.nbytes == 0 or self.unavailable_reason:
            return False
        rt = self.cp.cuda.runtime
        try:
            attrs = rt.pointerGetAttributes(storage.data_ptr())
        except rt.CUDARuntimeError:  # (before CUDA 11: an address the driver does not know)
            return False
        return int(attrs.type) == int(rt.memoryTypeHost)
