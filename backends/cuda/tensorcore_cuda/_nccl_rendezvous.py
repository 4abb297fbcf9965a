"""How the ranks of an NCCL group meet: the communicator's unique id, its trip from rank 0 to
the others (a :class:`tensorcore.distributed.TCPStore`, or MPI in a job started by
``mpiexec``), and the communicator made from it (see :mod:`tensorcore_cuda.nccl`)."""

from __future__ import annotations

import importlib.util
import os
from datetime import timedelta
from typing import Any

from tensorcore.backend import DistBackendError
from tensorcore.distributed import rendezvous

__all__ = [
    "ID_KEY",
    "MPI_LAUNCHER_VARS",
    "bind",
    "communicator",
    "id_from_bytes",
    "id_to_bytes",
    "meet",
]

#: The store key under which rank 0 publishes the communicator's unique id.
ID_KEY = "tensorcore/nccl/unique_id"
#: Environment variables that MPI launchers set in every process they start (MPICH's Hydra,
#: Open MPI, PMIx launchers such as srun --mpi=pmix).
MPI_LAUNCHER_VARS = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK")


# ------------------------------------------------------------------ the unique id
def id_to_bytes(uid: tuple[int, ...] | bytes) -> bytes:
    """A unique id as 129 bytes: the first says the form CuPy gave, so that any rank can
    rebuild the very value ``NcclCommunicator`` takes back.

    CuPy 14 gives the id as ``bytes`` (form 2); older CuPy as a tuple of 128 C ``char``
    values, signed where C's ``char`` is (x86: -128..127, form 1) and unsigned where it is
    not (ARM, form 0).
    """
    if isinstance(uid, (bytes, bytearray)):
        return bytes([2]) + bytes(uid)
    signed = any(v < 0 for v in uid)
    return bytes([int(signed)]) + bytes(v & 0xFF for v in uid)


def id_from_bytes(data: bytes) -> tuple[int, ...] | bytes:
    """The unique id :func:`id_to_bytes` encoded, in the form CuPy gave it."""
    if data[0] == 2:
        return bytes(data[1:])
    if data[0]:
        return tuple(b - 256 if b > 127 else b for b in data[1:])
    return tuple(data[1:])


def launched_by_mpi() -> bool:
    return any(var in os.environ for var in MPI_LAUNCHER_VARS)


def meet(
    nccl: Any,
    init_method: str | None,
    world_size: int,
    rank: int,
    timeout: timedelta,
    given: Any = None,
) -> tuple[tuple[int, ...] | bytes, int, int, Any, Any]:
    """``(unique id, rank, world size, store or None, MPI communicator or None)``; the
    store is one this made (the group closes it), never the caller's ``given`` one."""
    if given is not None:
        return _store_id(nccl, given, rank), rank, world_size, None, None
    url = init_method or "env://"
    incomplete = "MASTER_ADDR" not in os.environ or -1 in (rank, world_size)
    if url.startswith("env://") and incomplete:
        if launched_by_mpi() and importlib.util.find_spec("mpi4py") is not None:
            return _mpi_meet(nccl, world_size, rank)
        if world_size == 1 and rank in (-1, 0):
            return nccl.get_unique_id(), 0, 1, None, None
        # (rendezvous() raises, naming the variable that is missing)
    store, rank, world_size = next(rendezvous(url, rank, world_size, timeout))
    return _store_id(nccl, store, rank), rank, world_size, store, None


def _store_id(nccl: Any, store: Any, rank: int) -> tuple[int, ...] | bytes:
    """NCCL's unique id, made by rank 0 and read by the others from ``store``."""
    if rank == 0:
        uid = nccl.get_unique_id()
        store.set(ID_KEY, id_to_bytes(uid))
        return uid
    return id_from_bytes(store.get(ID_KEY))


def _mpi_meet(
    nccl: Any, world_size: int, rank: int
) -> tuple[tuple[int, ...] | bytes, int, int, Any, Any]:
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    for name, given, actual in (
        ("world_size", world_size, comm.Get_size()),
        ("rank", rank, comm.Get_rank()),
    ):
        if given not in (-1, None) and given != actual:
            raise ValueError(
                f"init_process_group(): {name}={given} but MPI says {actual}: in a job "
                f"started by mpiexec the launcher sets the rank and world size; leave {name} "
                "out, or set MASTER_ADDR and MASTER_PORT to rendezvous through a store"
            )
    rank = comm.Get_rank()
    data = id_to_bytes(nccl.get_unique_id()) if rank == 0 else None
    uid = id_from_bytes(comm.bcast(data, root=0))
    return uid, rank, comm.Get_size(), None, comm


def bind(cp: Any, device_id: Any) -> None:
    """Make ``device_id`` (a ``cuda`` device with an index: the frontend checked that) the
    current device, after checking that this process has it."""
    count = int(cp.cuda.runtime.getDeviceCount())
    if not 0 <= device_id.index < count:
        raise ValueError(
            f"init_process_group(): device_id={device_id}, but this process sees {count} CUDA "
            f"device{'s' if count != 1 else ''}"
            + (f" (cuda:0 to cuda:{count - 1})" if count > 1 else "")
            + " (CUDA_VISIBLE_DEVICES may hide the others)"
        )
    cp.cuda.runtime.setDevice(device_id.index)


def communicator(cp: Any, nccl: Any, size: int, uid: tuple[int, ...] | bytes, rank: int,
                  index: int, what: str) -> Any:  # fmt: skip
    try:
        with cp.cuda.Device(index):
            return nccl.NcclCommunicator(size, uid, rank)
    except nccl.NcclError as exc:
        raise DistBackendError(
            f"{what}: NCCL could not make the communicator of rank {rank} of {size} on "
            f"cuda:{index} ({exc}); every rank needs a GPU of its own: call "
            "tensorcore.cuda.set_device(local_rank) before init_process_group"
        ) from None
