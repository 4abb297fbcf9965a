"""The ``cpu`` backend plugin: the CPU device, and tensorcore-xp's dense kernels over NumPy
with PyTorch's CPU random streams.

Found through the entry point ``cpu = "tensorcore_cpu.plugin"`` in the group
``tensorcore.backends``. Its hooks run once, when tensorcore first needs its plugins.
"""

from __future__ import annotations

from typing import Any

from tensorcore.plugins import hookimpl

__all__ = ["tensorcore_register_devices", "tensorcore_register_kernels"]

#: The backend SPI this plugin is written for (``tensorcore.backend``).
TENSORCORE_SPI = "1.3"


@hookimpl
def tensorcore_register_devices(register: Any) -> None:
    """Register the ``cpu`` device type."""
    from .device import CPUDevice

    register.device(CPUDevice())


@hookimpl
def tensorcore_register_kernels(register: Any) -> None:
    """Register tensorcore-xp's kernels over NumPy for (op, "cpu", "strided"), drawing random
    numbers as PyTorch's CPU generator does."""
    import numpy as np
    import tensorcore_xp

    from ._cache import MIN_BYTES
    from ._torch_random import TorchCPUStream

    # (below MIN_BYTES the allocator is ``np.empty`` itself, so a ufunc may make a small
    # result: the kernels' ``fresh`` variants)
    tensorcore_xp.register_kernels(
        register, "cpu", np, random_stream=TorchCPUStream, fresh_bytes=MIN_BYTES
    )
