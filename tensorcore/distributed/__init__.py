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

from . import algorithms  # (after the names its hooks use)
from ._all_to_all import (
    all_gather_coalesced,
    all_reduce_coalesced,
    all_to_all,
    all_to_all_single,
)
from ._backend import DEFAULT_TIMEOUT as _DEFAULT_TIMEOUT
from ._backend import ProcessGroup, ReduceOp, Work
from ._backend import _make_nccl_premul_sum as _make_nccl_premul_sum
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
from ._errors import DistBackendError, DistError, DistNetworkError, DistStoreError
from ._file_store import FileStore
from ._grad_bucket import GradBucket
from ._group import (
    GroupMember,
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_node_local_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_available,
    is_backend_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    new_group,
)
from ._monitored import monitored_barrier
from ._names import (
    Backend,
    DebugLevel,
    get_debug_level,
    get_default_backend_for_device,
    is_gloo_available,
    is_torchelastic_launched,
    is_ucc_available,
    is_xccl_available,
    reduce_op,
    set_debug_level,
    set_debug_level_from_env,
    supports_complex,
)
from ._objects import (
    all_gather_object,
    broadcast_object_list,
    gather_object,
    recv_object_list,
    scatter_object_list,
    send_object_list,
)
from ._p2p import P2POp, batch_isend_irecv
from ._store import TCPStore, rendezvous
from ._stores import HashStore, PrefixStore, Store
from ._subgroups import new_subgroups, new_subgroups_by_enumeration, split_group

#: PyTorch's name of the default timeout of a group (30 minutes); a communication backend
#: finds it as ``tensorcore.backend.DEFAULT_TIMEOUT``.
default_pg_timeout = _DEFAULT_TIMEOUT

__all__ = [
    "Backend",
    "DebugLevel",
    "DistBackendError",
    "DistError",
    "DistNetworkError",
    "DistStoreError",
    "FileStore",
    "GradBucket",
    "GroupMember",
    "HashStore",
    "P2POp",
    "PrefixStore",
    "ProcessGroup",
    "ReduceOp",
    "Store",
    "TCPStore",
    "Work",
    "algorithms",
    "all_gather",
    "all_gather_coalesced",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "all_reduce_coalesced",
    "all_to_all",
    "all_to_all_single",
    "barrier",
    "batch_isend_irecv",
    "broadcast",
    "broadcast_object_list",
    "default_pg_timeout",
    "destroy_process_group",
    "gather",
    "gather_object",
    "get_backend",
    "get_debug_level",
    "get_default_backend_for_device",
    "get_global_rank",
    "get_group_rank",
    "get_node_local_rank",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "irecv",
    "is_available",
    "is_backend_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "is_torchelastic_launched",
    "is_ucc_available",
    "is_xccl_available",
    "isend",
    "monitored_barrier",
    "new_group",
    "new_subgroups",
    "new_subgroups_by_enumeration",
    "recv",
    "recv_object_list",
    "reduce",
    "reduce_op",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "rendezvous",
    "scatter",
    "scatter_object_list",
    "send",
    "send_object_list",
    "set_debug_level",
    "set_debug_level_from_env",
    "split_group",
    "supports_complex",
]
