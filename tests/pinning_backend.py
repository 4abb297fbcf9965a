"""A test-only accelerator that offers pinned host memory, so that the pinning paths
(``Tensor.pin_memory``, ``Tensor.is_pinned``, ``DataLoader(pin_memory=True)``) run without a
GPU.

Its device type, ``pinacc``, has no kernels and no memory of its own: it implements only the
pinning members of the ``DeviceInterface`` (``can_pin_memory``, ``empty_pinned``,
``is_pinned``), written against the public backend SPI. Its "page-locked" memory is ordinary
CPU memory it allocated and remembers, which is all the core can observe. It is registered
at runtime (``tc.backends.register``) and stays unavailable outside :func:`switched_on`, so
that other tests in the same process see no accelerator.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import tensorcore as tc
from tensorcore.backend import DeviceInterface, Storage, Tensor, hookimpl

TENSORCORE_SPI = "1.0"

OFF = "the pinning test device is switched off outside the tests that use it"


class PinningDevice(DeviceInterface):
    """An accelerator reduced to its pinned host memory."""

    type = "pinacc"

    def __init__(self) -> None:
        self.unavailable_reason: str | None = OFF
        self.pinned: weakref.WeakSet[Storage] = weakref.WeakSet()
        self.allocations: list[int] = []

    def can_pin_memory(self) -> bool:
        return True

    def empty_pinned(self, nbytes: int) -> Tensor:
        t = tc.empty(nbytes, dtype=tc.uint8, device="cpu")
        self.pinned.add(t.untyped_storage())
        self.allocations.append(nbytes)
        return t

    def is_pinned(self, storage: Storage) -> bool:
        return storage in self.pinned


IFACE = PinningDevice()


class PinningPlugin:
    """The hooks, as an object to register at runtime."""

    @hookimpl
    def tensorcore_register_devices(self, register: Any) -> None:
        register.device(IFACE)


def install() -> PinningDevice:
    """Register the ``pinacc`` device once per process (switched off)."""
    if "pinacc" not in [d for p in tc.backends.list() for d in p.devices]:
        tc.backends.register(PinningPlugin(), name="pinning-test")
    return IFACE


@contextmanager
def switched_on() -> Iterator[PinningDevice]:
    """The ``pinacc`` accelerator, available for the duration of the block."""
    iface = install()
    iface.unavailable_reason = None
    iface.allocations.clear()
    try:
        yield iface
    finally:
        iface.unavailable_reason = OFF
