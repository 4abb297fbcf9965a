"""Data-parallel training across processes (``torch.distributed``'s API), over MPI or NCCL.

Start one process per worker with an MPI launcher (``mpiexec -n 4 python train.py``, or
``python -m tensorcore.distributed.run --nproc 4 train.py``); each calls
:func:`init_process_group`, then runs collectives on its tensors. Communication backends are
plugins (``register.comm_backend``); the built-in one is ``mpi`` (mpi4py), and
``tensorcore-cuda`` adds ``nccl`` (NCCL through CuPy) for CUDA tensors. See
``docs/distributed.md``. The names here are PyTorch's; what only a communication backend
needs (its polling loop, timeout error, all-reduce plans) is in :mod:`tensorcore.backend`.

Examples
--------
>>> import tensorcore.distributed as dist
>>> dist.is_available(), dist.is_initialized()
(True, False)
>>> dist.ReduceOp.AVG in list(dist.ReduceOp)
True
"""

from __future__ import annotations

from ._backend import DEFAULT_TIMEOUT as _DEFAULT_TIMEOUT
from ._backend import DistBackendError, ProcessGroup, ReduceOp, Work
from ._collectives import (
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    barrier,
    broadcast,
    gather,
    irecv,
    isend,
    recv,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
    send,
)
from ._group import (
    GroupMember,
    destroy_process_group,
    get_backend,
    get_node_local_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    init_process_group,
    is_available,
    is_backend_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    new_group,
)
from ._objects import (
    all_gather_object,
    broadcast_object_list,
    gather_object,
    scatter_object_list,
)
from ._p2p import P2POp, batch_isend_irecv
from ._store import DistStoreError, TCPStore, rendezvous

#: PyTorch's name of the default timeout of a group (30 minutes); a communication backend
#: finds it as ``tensorcore.backend.DEFAULT_TIMEOUT``.
default_pg_timeout = _DEFAULT_TIMEOUT

__all__ = [
    "DistBackendError",
    "DistStoreError",
    "GroupMember",
    "P2POp",
    "ProcessGroup",
    "ReduceOp",
    "TCPStore",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "barrier",
    "batch_isend_irecv",
    "broadcast",
    "broadcast_object_list",
    "default_pg_timeout",
    "destroy_process_group",
    "gather",
    "gather_object",
    "get_backend",
    "get_node_local_rank",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "init_process_group",
    "irecv",
    "is_available",
    "is_backend_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "isend",
    "new_group",
    "recv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "rendezvous",
    "scatter",
    "scatter_object_list",
    "send",
]
