"""The ``nccl`` communication backend: ``tensorcore.distributed`` over NCCL, through CuPy.

Registered by the ``cuda`` plugin (``tensorcore_register_comm_backends``) for CUDA tensors,
available where the ``cuda`` device is and CuPy's ``cupy.cuda.nccl`` has an NCCL library
(2.7 or newer: point-to-point calls). Nothing here imports CuPy by itself: the plugin's
device probe has imported it, or found it missing, before.

How it works (PyTorch's ``ProcessGroupNCCL``, in Python):

* **Rendezvous** (:func:`create`, ``_nccl_rendezvous.py``): NCCL ranks need one id, made by rank 0
  (``nccl.get_unique_id()``), before the communicator exists. It travels through a
  :class:`tensorcore.distributed.TCPStore` that rank 0 serves (``init_method="env://"``:
  ``MASTER_ADDR``/``MASTER_PORT``; ``"tcp://host:port"``), or, in a job started by ``mpiexec`` where
  ``env://`` lacks ``MASTER_ADDR``, ``RANK`` or ``WORLD_SIZE``, by an MPI broadcast (mpi4py). A
  world of one needs neither. Each rank uses the CUDA device that is current at
  ``init_process_group``.
* **Streams** (``NCCLProcessGroup``, ``_nccl_group.py``): every operation runs on the group's own
  stream, after the work queued on the current stream so far (an event recorded there); an event
  recorded after the NCCL calls is what the returned ``Work`` (``_nccl_work.py``) follows. As in
  PyTorch, ``wait()`` makes the current stream wait for it, without blocking the host, and queues
  the finishers (copies back, averages) there; a watchdog thread ends the process when a
  collective outlives the group's timeout or NCCL reports an error (PyTorch's modes of
  ``TORCH_NCCL_ASYNC_ERROR_HANDLING`` as ``TENSORCORE_NCCL_ASYNC_ERROR_HANDLING``;
  ``TENSORCORE_NCCL_BLOCKING_WAIT=1``: ``wait()`` blocks the host and raises instead).
* **Dtypes**: reductions use NCCL's types: int8, uint8, int32, int64, float16, float32,
  float64 (bfloat16 with NCCL 2.10, where a device has it). ``bool`` is uint8 with SUM and
  MAX as MAX (a logical or), PRODUCT and MIN as MIN (a logical and), and AVG refused (as
  PyTorch: ``tensorcore.distributed`` raises before the backend is called); ``int16`` (and
  bfloat16 before 2.10) is reduced in an int32 (float32) copy and copied back; complex
  tensors are pairs of floats for SUM and AVG, and PRODUCT, MIN and MAX raise, as in
  PyTorch. Data movement (broadcast, gathers, scatter, send/recv) moves bytes: every dtype.
* **AVG**: ``NCCL_AVG`` for floating types with NCCL 2.10 or newer; otherwise, and for
  integers, a SUM divided by the group's size (integers truncated).
* **gather, scatter, batch_isend_irecv**: point-to-point calls in one NCCL group
  (``groupStart``/``groupEnd``), so that sends and receives progress together.
  ``barrier`` is an all-reduce of one element. ``recv`` needs its source (NCCL has no
  "any source") and ignores tags, as PyTorch's.
* **The agreement check** (``agree``, ``_nccl_plan.py``): one all-reduce (MAX) of two
  int64s, a fingerprint of the ranks' descriptions and its negation, on the device, read back
  by the host; when the ranks differ, their descriptions are all-gathered so that each rank
  names every call. ``all_reduce`` of a tensor it saw before runs its plan (``NCCLPlan``):
  the fingerprint stays on the device, the check still runs every call.
"""

from __future__ import annotations

import importlib
from datetime import timedelta
from typing import Any

from ._nccl_group import NCCLProcessGroup, version_string
from ._nccl_rendezvous import bind, communicator, meet
from ._nccl_work import async_error_handling, blocking_wait

__all__ = ["DEFAULT_TIMEOUT", "NCCLProcessGroup", "create", "unavailable_reason", "version_string"]

#: A group's timeout when ``init_process_group`` gets none: 10 minutes, PyTorch's for NCCL
#: (``torch.distributed.constants.default_pg_nccl_timeout``; 30 for its other backends).
DEFAULT_TIMEOUT = timedelta(minutes=10)


def _nccl_module() -> Any:
    return importlib.import_module("cupy.cuda.nccl")


def unavailable_reason(device_reason: str | None) -> str | None:
    """Why the ``nccl`` backend cannot run here, or None when it can: the ``cuda`` device's
    reason (``device_reason``: CuPy missing, no GPU) first, then CuPy's NCCL module.

    Examples
    --------
    >>> from tensorcore_cuda.nccl import unavailable_reason
    >>> unavailable_reason("CuPy is not importable (...)")
    'CuPy is not importable (...)'
    """
    if device_reason is not None:
        return device_reason
    try:
        nccl = _nccl_module()
    except Exception as exc:  # noqa: BLE001 - any failure means "unavailable"
        return f"CuPy's NCCL module is not importable ({type(exc).__name__}: {exc})"
    if not getattr(nccl, "available", True):
        return (
            "CuPy found no NCCL library: pip install nvidia-nccl-cu12 (or nvidia-nccl-cu13, "
            "matching CuPy's CUDA version)"
        )
    try:
        code = int(nccl.get_version())
    except Exception as exc:  # noqa: BLE001
        return f"cannot read NCCL's version ({type(exc).__name__}: {exc})"
    if code < 2700:
        return (
            f"NCCL {version_string(code)} is too old: send/recv (and gather, scatter) need "
            "NCCL 2.7 or newer"
        )
    return None


def create(
    world_size: int = -1,
    rank: int = -1,
    timeout: timedelta = DEFAULT_TIMEOUT,
    init_method: str | None = None,
    device_id: Any = None,
    store: Any = None,
) -> NCCLProcessGroup:
    """The default process group over NCCL (``init_process_group("nccl")`` calls it).

    The ranks meet through ``init_method`` (``"env://"`` or None: ``MASTER_ADDR``,
    ``MASTER_PORT``, ``RANK``, ``WORLD_SIZE``; ``"tcp://host:port"`` with ``rank`` and
    ``world_size``), or through ``store`` (a ``tensorcore.distributed.Store`` that
    ``init_process_group(store=)`` or ``init_method="file://..."`` gave, with ``rank`` and
    ``world_size``), or, in a job started by ``mpiexec`` where those are missing, through
    MPI. The group runs on ``device_id`` (a CUDA device with an index, which becomes the
    current device here, before the ranks meet), or else on the CUDA device current here:
    one device per rank.
    """
    async_error_handling(blocking_wait())  # (a bad value raises before the ranks meet)
    cp = _cupy()
    nccl = _nccl_module()
    if device_id is not None:
        bind(cp, device_id)
    uid, rank, world_size, store, mpi = meet(nccl, init_method, world_size, rank, timeout, store)
    index = int(cp.cuda.runtime.getDevice())
    comm = communicator(cp, nccl, world_size, uid, rank, index, "init_process_group()")
    return NCCLProcessGroup(cp, nccl, comm, rank, world_size, index, timeout, store, mpi)


def _cupy() -> Any:
    from .plugin import device_interface

    # (available: init_process_group checked the backend, which needs the device)
    return device_interface().cp
