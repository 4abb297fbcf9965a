"""The ``cpu`` backend plugin: the CPU device and the dense NumPy kernels.

Found through the entry point ``cpu = "tensorcore_cpu.plugin"`` in the group
``tensorcore.backends``. Its hooks run once, when tensorcore first needs its plugins.
"""

from __future__ import annotations

from typing import Any

from tensorcore.plugins import hookimpl

__all__ = ["tensorcore_register_devices", "tensorcore_register_kernels"]

#: The backend SPI this plugin is written for (``tensorcore.backend``).
TENSORCORE_SPI = "1.0"


@hookimpl
def tensorcore_register_devices(register: Any) -> None:
    """Register the ``cpu`` device type."""
    from .device import CPUDevice

    register.device(CPUDevice())


@hookimpl
def tensorcore_register_kernels(register: Any) -> None:
    """Register every dense NumPy kernel for (op, "cpu", "strided")."""
    import numpy as np

    from .kernels import build

    for name, fn in build(np).items():
        register.kernel(name, "cpu", "strided", fn)
