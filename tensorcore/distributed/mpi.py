"""The ``mpi`` communication backend plugin: ``tc.distributed`` over MPI through mpi4py.

A built-in plugin, loaded like the core's views and composites. Its hook only checks whether
``mpi4py`` can be imported (``importlib.util.find_spec``: importing ``mpi4py.MPI`` would start
MPI); the process group (:mod:`tensorcore.distributed._mpi`) imports mpi4py when
``init_process_group(backend="mpi")`` makes it.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from ..plugins import hookimpl

__all__ = ["tensorcore_register_comm_backends", "unavailable_reason"]


def unavailable_reason() -> str | None:
    """Why the MPI backend cannot run here (mpi4py missing), or None when it can.

    Examples
    --------
    >>> from tensorcore.distributed.mpi import unavailable_reason
    >>> unavailable_reason() is None or "mpi4py" in unavailable_reason()
    True
    """
    try:
        found = importlib.util.find_spec("mpi4py") is not None
    except (ImportError, ValueError):  # a broken or blocked installation
        found = False
    if not found:
        return (
            "mpi4py is not installed: pip install mpi4py mpich (the mpich wheel brings "
            "mpiexec), or mpi4py built against the system's MPI"
        )
    return None


def _make_group(**kwargs: Any) -> Any:
    from ._mpi import MPIProcessGroup

    return MPIProcessGroup.create(**kwargs)


@hookimpl
def tensorcore_register_comm_backends(register: Any) -> None:
    """Register the ``mpi`` communication backend (host memory: the ``cpu`` device)."""
    register.comm_backend("mpi", _make_group, devices=("cpu",),
                          unavailable_reason=unavailable_reason())  # fmt: skip
