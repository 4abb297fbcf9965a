"""The ``meta`` backend plugin: the meta device and a kernel for every operator.

Found through the entry point ``meta = "tensorcore_meta.plugin"`` in the group
``tensorcore.backends``; its hooks run once, when tensorcore first needs its plugins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tensorcore.plugins import hookimpl

if TYPE_CHECKING:
    from tensorcore.backend import Registrar

__all__ = ["tensorcore_register_devices", "tensorcore_register_kernels"]

#: The backend SPI this plugin is written for (``tensorcore.backend``).
TENSORCORE_SPI = "1.3"


@hookimpl
def tensorcore_register_devices(register: Registrar) -> None:
    """Register the ``meta`` device type."""
    from .device import MetaDevice

    register.device(MetaDevice())


@hookimpl
def tensorcore_register_kernels(register: Registrar) -> None:
    """Register a meta kernel for every operator declared so far that has no kernel for
    every device already (views and composites have)."""
    from .kernels import kernels_for

    for name, fn in kernels_for(register.ops()).items():
        register.kernel(name, "meta", "strided", fn)
