"""A test-only stand-in for CuPy: NumPy in host memory, under CuPy's names.

Never installed: ``tests/test_nccl.py`` puts ``tests/fake_cupy`` first on ``PYTHONPATH`` of
the processes it starts, so that ``tensorcore-cuda`` loads over it. Then the ``cuda`` device,
its kernels (tensorcore-xp's, over this module) and the ``nccl`` communication backend run
without a GPU, on "device" memory that is host memory: a tensor's ``data_ptr()`` is a host
address, which the fake ``cupy.cuda.nccl`` reads and writes as NCCL would device memory.

What it is: :class:`ndarray`, a NumPy subclass with CuPy's constructor
(``ndarray(shape, dtype, memptr, strides)``), ``.data`` (a :class:`MemoryPointer`:
``.ptr``, ``+ offset``) and ``.device``; every NumPy function, whose array results come back
as :class:`ndarray`; CuPy's few extras that tensorcore-cuda uses (``asnumpy``,
``get_default_memory_pool``, ``ElementwiseKernel``). What it is not: a GPU. Nothing here is
asynchronous except the fake NCCL's stream (``cupy.cuda``); every function, ufunc, copy
and transfer here is a kernel launch on the current stream, which first waits for what that
stream was told to wait for (``cupy.cuda.kernel_point``).
"""

from __future__ import annotations

import functools
import re
import types
from typing import Any

import numpy as _np

from . import cuda

__version__ = "13.0.0+fake"
_MODULES = ("linalg", "fft", "random", "lib")


class MemoryPointer:
    """CuPy's ``MemoryPointer``: an address into an allocation (``owner``), kept alive."""

    def __init__(self, owner: _np.ndarray, offset: int = 0) -> None:
        self.owner, self.offset = owner, offset
        self.ptr = int(owner.__array_interface__["data"][0]) + offset

    def __add__(self, n: int) -> MemoryPointer:
        return MemoryPointer(self.owner, self.offset + int(n))


class ndarray(_np.ndarray):
    """A NumPy array that answers to CuPy's constructor and attributes."""

    def __new__(
        cls, shape: Any, dtype: Any = float, memptr: MemoryPointer | None = None,
        strides: Any = None,
    ) -> ndarray:  # fmt: skip
        if memptr is None:
            return _np.empty(shape, dtype).view(cls)
        base = memptr.owner.reshape(-1).view(_np.uint8)
        return _np.ndarray.__new__(cls, shape, dtype, base, memptr.offset, strides)

    @property  # type: ignore[misc]
    def data(self) -> MemoryPointer:  # type: ignore[override]
        """Where the array's first element is (CuPy's ``arr.data.ptr``)."""
        owner = self
        while isinstance(owner.base, _np.ndarray):
            owner = owner.base
        here = self.__array_interface__["data"][0]
        start = owner.__array_interface__["data"][0]
        return MemoryPointer(_np.asarray(owner), here - start)

    def __array_finalize__(self, obj: Any) -> None:
        # A new array is on the current device; a view, on its base's.
        self._device = getattr(obj, "_device", None)
        if self._device is None:
            self._device = cuda.runtime.getDevice()

    @property
    def device(self) -> cuda.Device:  # type: ignore[override]
        """The device the array was made on (the current one then)."""
        return cuda.Device(self._device)

    def get(self) -> _np.ndarray:
        """A NumPy copy (CuPy's device-to-host transfer, on the current stream)."""
        cuda.kernel_point()
        return _np.array(self)

    def tolist(self) -> Any:
        """The elements as Python objects (a transfer to the host, on the current stream)."""
        cuda.kernel_point()
        return super().tolist()

    def item(self, *args: Any) -> Any:
        """One element as a Python object (a transfer to the host)."""
        cuda.kernel_point()
        return super().item(*args)

    def tobytes(self, order: Any = "C") -> bytes:
        """The bytes (a transfer to the host)."""
        cuda.kernel_point()
        return super().tobytes(order)

    def __setitem__(self, key: Any, value: Any) -> None:
        cuda.kernel_point()
        super().__setitem__(key, value)

    def copy(self, order: Any = "C") -> ndarray:  # type: ignore[override]
        """A copy (a kernel on the current stream)."""
        cuda.kernel_point()
        return super().copy(order)

    def astype(self, dtype: Any, *args: Any, **kwargs: Any) -> ndarray:  # type: ignore[override]
        """A converted copy (a kernel on the current stream)."""
        cuda.kernel_point()
        return super().astype(dtype, *args, **kwargs)


def _wrap(r: Any) -> Any:
    if type(r) is _np.ndarray:
        return r.view(ndarray)
    if isinstance(r, tuple):
        items = [_wrap(x) for x in r]
        return type(r)(*items) if hasattr(r, "_fields") else tuple(items)
    if isinstance(r, list):
        return [_wrap(x) for x in r]
    return r


def _wrapped(fn: Any) -> Any:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        cuda.kernel_point()
        return _wrap(fn(*args, **kwargs))

    return call


class _Ufunc:
    """A NumPy ufunc whose calls (and ``reduce``...) are kernels on the current stream."""

    def __init__(self, ufunc: _np.ufunc) -> None:
        self._ufunc = ufunc
        self.__name__ = ufunc.__name__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        cuda.kernel_point()
        return self._ufunc(*args, **kwargs)

    def __getattr__(self, key: str) -> Any:
        value = getattr(self._ufunc, key)
        return _wrapped(value) if callable(value) else value


def _proxy(name: str, mod: types.ModuleType) -> types.ModuleType:
    out = types.ModuleType(name)

    def attr(key: str) -> Any:
        value = getattr(mod, key)
        if isinstance(value, types.ModuleType):
            value = _proxy(f"{name}.{key}", value)
        elif isinstance(value, _np.ufunc):
            value = _Ufunc(value)
        elif callable(value) and not isinstance(value, type):
            value = _wrapped(value)
        setattr(out, key, value)
        return value

    out.__getattr__ = attr  # type: ignore[method-assign]
    return out


_SUBMODULES = {key: _proxy(f"cupy.{key}", getattr(_np, key)) for key in _MODULES}


def __getattr__(key: str) -> Any:
    if key in _SUBMODULES:
        return _SUBMODULES[key]
    value = getattr(_np, key)
    if isinstance(value, _np.ufunc):
        value = _Ufunc(value)
    elif callable(value) and not isinstance(value, type):
        value = _wrapped(value)
    globals()[key] = value
    return value


def asnumpy(a: Any) -> _np.ndarray:
    """A NumPy array of ``a`` (a copy, as a transfer from the device would be)."""
    cuda.kernel_point()
    return _np.array(a)


def asarray(a: Any, dtype: Any = None, order: Any = None) -> ndarray:
    """``a`` as a (fake) device array; a copy when it is host data, as in CuPy."""
    cuda.kernel_point()
    if isinstance(a, ndarray) and (dtype is None or a.dtype == dtype):
        return a
    return _np.array(a, dtype=dtype, order=order or "K").view(ndarray)


def empty(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    """Uninitialised memory."""
    return _np.empty(shape, dtype, order).view(ndarray)


class _Pool:
    def used_bytes(self) -> int:
        return 0

    def total_bytes(self) -> int:
        return 0

    def free_all_blocks(self) -> None:
        pass


_POOL = _Pool()


def get_default_memory_pool() -> _Pool:
    """CuPy's device memory pool: nothing is pooled here."""
    return _POOL


class ElementwiseKernel:
    """CuPy's ``ElementwiseKernel`` for one-statement bodies (``y = f(x)``), in NumPy."""

    def __init__(self, in_params: str, out_params: str, operation: str, name: str) -> None:
        self.ins = [p.split()[-1] for p in in_params.split(",")]
        self.outs = [p.split()[-1] for p in out_params.split(",")]
        target, expr = operation.split("=", 1)
        self.target, self.expr = target.strip(), re.sub(r"\s+", " ", expr).strip(" ;")

    def __call__(self, *arrays: Any) -> None:
        cuda.kernel_point()
        scope: dict[str, Any] = {"exp": _np.exp, "log": _np.log, "sqrt": _np.sqrt}
        scope.update(zip(self.ins, arrays, strict=False))
        out = arrays[len(self.ins)]
        out[...] = eval(self.expr, {"__builtins__": {}}, scope)
