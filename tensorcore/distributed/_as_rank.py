"""``python -m tensorcore.distributed._as_rank script.py [args]``: run ``script.py`` as one
rank of a job that ``mpiexec`` (or ``srun``) started, with the variables that PyTorch's
``torchrun`` sets (``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``) taken from
the launcher's own; :mod:`tensorcore.distributed.run` starts every rank through it, so that a
program written for ``torchrun`` (``int(os.environ["LOCAL_RANK"])``) runs unchanged."""

from __future__ import annotations

import os
import runpy
import sys
from collections.abc import Mapping

__all__ = ["launcher_environment", "main"]

#: For each variable torchrun sets, the names MPI launchers and Slurm give it: MPICH's
#: Hydra, Open MPI, Slurm's srun, PMIx.
_SOURCES = {
    "RANK": ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "PMIX_RANK"),
    "WORLD_SIZE": ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS"),
    "LOCAL_RANK": ("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"),
    "LOCAL_WORLD_SIZE": ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE"),
}


def launcher_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The torchrun variables missing from ``environ`` that a launcher's variables give.

    Examples
    --------
    >>> from tensorcore.distributed._as_rank import launcher_environment
    >>> launcher_environment({"PMI_RANK": "1", "PMI_SIZE": "2", "MPI_LOCALRANKID": "1"})
    {'RANK': '1', 'WORLD_SIZE': '2', 'LOCAL_RANK': '1'}
    >>> launcher_environment({"RANK": "0", "OMPI_COMM_WORLD_RANK": "3"})
    {}
    """
    found: dict[str, str] = {}
    for name, sources in _SOURCES.items():
        if name in environ:
            continue
        for source in sources:
            value = environ.get(source, "")
            if value.isdigit():
                found[name] = value
                break
    return found


def main(argv: list[str]) -> None:
    """Set the variables, then run ``argv[0]`` as ``__main__`` with ``argv`` as ``sys.argv``,
    as ``python script.py`` would (the script's folder first on ``sys.path``)."""
    os.environ.update(launcher_environment(os.environ))
    script = argv[0]
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit("usage: python -m tensorcore.distributed._as_rank script.py [args]")
    main(sys.argv[1:])
