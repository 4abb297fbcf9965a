"""A minimal third-party backend for the tests: a device type whose storage is a Python list.

It implements the device contract (:class:`tensorcore.plugins.DeviceInterface`) and kernels
for ``add``, ``mul``, ``neg`` and ``tolist`` with the core's calling conventions, and nothing
else; so it shows what a backend gets from the core for free (views, dispatch, errors) and
what it lacks. ``test_plugins.py`` also packages this very file as a pip-installable plugin
(entry point ``tensorcore_toy.plugin``), with ``PLUGIN = ToyPlugin("toy")`` appended.
"""

from __future__ import annotations

import itertools
from typing import Any

from tensorcore import Storage
from tensorcore._tensor import Tensor, contiguous_strides, make_tensor
from tensorcore.plugins import DeviceInterface, hookimpl


class ToyDevice(DeviceInterface):
    """Host memory as Python lists; synchronous, one device."""

    def __init__(self, device_type: str) -> None:
        self.type = device_type

    def empty(self, shape: tuple[int, ...], dtype: Any, device: Any) -> Tensor:
        n = 1
        for s in shape:
            n *= s
        return self._wrap([0] * n, shape, dtype, device)

    def from_data(self, flat: list[Any], shape: tuple[int, ...], dtype: Any, device: Any) -> Tensor:
        conv = (
            bool
            if dtype.name == "bool"
            else complex
            if dtype.is_complex
            else (float if dtype.is_floating_point else int)
        )
        return self._wrap([conv(v) for v in flat], shape, dtype, device)

    def _wrap(self, data: list[Any], shape: tuple[int, ...], dtype: Any, device: Any) -> Tensor:
        st = Storage(data, len(data) * dtype.itemsize, device, dtype)
        return make_tensor(st, tuple(shape), contiguous_strides(tuple(shape)), 0, dtype, device)

    def materialize(self, tensor: Tensor) -> Any:
        return tensor._storage.data  # type: ignore[union-attr]

    def data_ptr(self, storage: Storage) -> int:
        return id(storage.data)

    def copy_between(self, src: Tensor, dst: Tensor) -> bool:
        """Copies to and from other devices go through Python lists."""
        import tensorcore as tc

        if dst.device.type == self.type:
            flat: list[Any] = []
            _flatten(src.tolist(), flat)  # type: ignore[attr-defined]
            _fill(
                dst,
                lambda i: flat[i],
                tc.tensor(list(range(len(flat))), device=dst.device).view(dst.shape),
            )
        else:
            dst.copy_(tc.tensor(tolist(src), dtype=src.dtype, device=dst.device))  # type: ignore[attr-defined]
        return True


def _flatten(x: Any, acc: list[Any]) -> None:
    if isinstance(x, list):
        for y in x:
            _flatten(y, acc)
    else:
        acc.append(x)


def _get(t: Any, index: tuple[int, ...]) -> Any:
    """Element of ``t`` at ``index`` of the broadcast shape (scalars broadcast too)."""
    if not isinstance(t, Tensor):
        return t
    index = index[len(index) - t.ndim :]
    pos = t._offset + sum(
        0 if n == 1 else i * s for i, n, s in zip(index, t._shape, t._stride, strict=True)
    )
    return t._storage.data[pos]  # type: ignore[union-attr]


def _fill(out: Tensor, fn: Any, *args: Any) -> None:
    data = out._storage.data  # type: ignore[union-attr]
    for index in itertools.product(*(range(n) for n in out._shape)):
        pos = out._offset + sum(i * s for i, s in zip(index, out._stride, strict=True))
        data[pos] = fn(*(_get(a, index) for a in args))


def add(out: Tensor, a: Any, b: Any, alpha: Any = 1) -> None:
    _fill(out, lambda x, y: x + alpha * y, a, b)


def mul(out: Tensor, a: Any, b: Any) -> None:
    _fill(out, lambda x, y: x * y, a, b)


def neg(out: Tensor, a: Any) -> None:
    _fill(out, lambda x: -x, a)


def tolist(t: Tensor) -> Any:
    def build(prefix: tuple[int, ...]) -> Any:
        if len(prefix) == t.ndim:
            return _get(t, prefix)
        return [build((*prefix, i)) for i in range(t._shape[len(prefix)])]

    return build(())


KERNELS = {"add": add, "mul": mul, "neg": neg, "tolist": tolist}


class ToyPlugin:
    """Hook implementations registering device type ``device_type`` and its kernels."""

    def __init__(self, device_type: str, kernels: tuple[str, ...] = tuple(KERNELS)) -> None:
        self.device_type = device_type
        self.kernels = kernels

    @hookimpl
    def tensorcore_register_devices(self, register: Any) -> None:
        register.device(ToyDevice(self.device_type))

    @hookimpl
    def tensorcore_register_kernels(self, register: Any) -> None:
        for name in self.kernels:
            register.kernel(name, self.device_type, "strided", KERNELS[name])
