"""The ``cuda`` backend plugin: the CUDA device, tensorcore-xp's dense kernels over CuPy, the
``tensorcore.cuda`` namespace, and the ``nccl`` communication backend.

It never raises at import: without CuPy or a GPU it registers ``cuda`` as unavailable, with
the reason, and no kernels; ``nccl`` is then unavailable with the same reason.
"""

from __future__ import annotations

from typing import Any

from tensorcore.plugins import hookimpl

__all__ = [
    "device_interface",
    "tensorcore_register_comm_backends",
    "tensorcore_register_devices",
    "tensorcore_register_kernels",
]

#: The backend SPI this plugin is written for (``tensorcore.backend``).
TENSORCORE_SPI = "1.3"

_state: dict[str, Any] = {}


def device_interface() -> Any:
    """The CUDA device interface (``CUDADevice``), made on first use: its probe imports CuPy
    once, or finds why it cannot."""
    iface = _state.get("iface")
    if iface is None:
        from ._probe import probe
        from .device import CUDADevice

        cupy, reason = probe()
        iface = _state["iface"] = CUDADevice(cupy, reason)
    return iface


@hookimpl
def tensorcore_register_devices(register: Any) -> None:
    """Register the ``cuda`` device type (available or not) and ``tensorcore.cuda``."""
    from . import namespace

    iface = device_interface()
    namespace._bind(iface)
    register.device(iface)
    register.attribute("cuda", namespace)


@hookimpl
def tensorcore_register_kernels(register: Any) -> None:
    """Register tensorcore-xp's kernels over CuPy, with CuPy's own where they are better."""
    iface = device_interface()
    if iface.unavailable_reason is not None:
        return
    import tensorcore_xp

    from . import kernels

    cp = iface.cp
    tensorcore_xp.register_kernels(
        register,
        "cuda",
        cp,
        extra=kernels.extra(cp),
        erf=kernels.erf(cp),
        solve_triangular=kernels.solve_triangular(cp),
    )


@hookimpl
def tensorcore_register_comm_backends(register: Any) -> None:
    """Register the ``nccl`` communication backend for CUDA tensors (available or not)."""
    from . import nccl

    reason = nccl.unavailable_reason(device_interface().unavailable_reason)
    register.comm_backend("nccl", nccl.create, devices=("cuda",), unavailable_reason=reason,
                          default_timeout=nccl.DEFAULT_TIMEOUT)  # fmt: skip
