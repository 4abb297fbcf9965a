"""``init_process_group("mpi")`` where a scheduler also set ``WORLD_SIZE`` (or ``RANK``), as
PyTorch's ``env://`` reads them: under MPI they must agree with the launcher's, or every rank
refuses with a ``ValueError`` naming both, before any collective."""

import os
import sys

import tensorcore.distributed as dist

try:
    dist.init_process_group("mpi")
except ValueError as exc:
    print(f"rank {os.environ.get('PMI_RANK', '?')} refused: {exc}", flush=True)
    sys.exit(0)
assert dist.get_world_size() == int(os.environ["WORLD_SIZE"])
print(f"rank {dist.get_rank()} OK", flush=True)
dist.destroy_process_group()
