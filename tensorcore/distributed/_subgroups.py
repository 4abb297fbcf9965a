"""Splitting the world into subgroups in one call: ``new_subgroups`` (equal blocks of
consecutive ranks) and ``new_subgroups_by_enumeration`` (given lists), as in PyTorch."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from ._group import get_process_group_ranks, get_rank, get_world_size, new_group

__all__ = ["new_subgroups", "new_subgroups_by_enumeration"]


def new_subgroups(
    group_size: int | None = None,
    group: Any = None,
    timeout: timedelta | None = None,
    backend: str | None = None,
    pg_options: Any = None,
    group_desc: str | None = None,
) -> tuple[Any, list[Any]]:
    """Split ``group`` (the world when None) into subgroups of ``group_size`` consecutive
    ranks; return ``(this rank's subgroup, every subgroup)``. Every rank calls it.

    ``group_size`` None means one subgroup per machine in PyTorch (the number of CUDA
    devices), which needs CUDA; give it on the CPU.

    Raises
    ------
    ValueError
        When ``group_size`` is None without CUDA, not positive, larger than the world, or
        does not divide it.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> mine, groups = dist.new_subgroups(2)  # on 4 ranks: [0, 1] and [2, 3]  # doctest: +SKIP
    >>> dist.get_process_group_ranks(mine)  # on rank 3  # doctest: +SKIP
    [2, 3]
    """
    if group_size is None:
        from .. import cuda

        if not cuda.is_available():
            raise ValueError(
                "Default group size only takes effect when CUDA is available.If your subgroup "
                "using a backend that does not depend on CUDA,please pass in 'group_size' "
                "correctly."
            )
        group_size = cuda.device_count()
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    world_size = get_world_size(group=group)
    if world_size < group_size:
        raise ValueError(
            f"The arg 'group_size' ({group_size}) must not exceed the world size ({world_size})"
        )
    if world_size % group_size != 0:
        raise ValueError(f"The world size ({world_size}) must be divisible by '{group_size=}'")
    ranks = get_process_group_ranks(group)
    blocks = [ranks[i : i + group_size] for i in range(0, len(ranks), group_size)]
    return new_subgroups_by_enumeration(
        blocks, timeout=timeout, backend=backend, pg_options=pg_options, group_desc=group_desc
    )


def new_subgroups_by_enumeration(
    ranks_per_subgroup_list: list[list[int]],
    timeout: timedelta | None = None,
    backend: str | None = None,
    pg_options: Any = None,
    group_desc: str | None = None,
) -> tuple[Any, list[Any]]:
    """One subgroup per list of global ranks in ``ranks_per_subgroup_list`` (the lists must
    not overlap); return ``(this rank's subgroup or None, every subgroup)``, where a
    subgroup this rank is not in is ``GroupMember.NON_GROUP_MEMBER``. Every rank calls it.

    Raises
    ------
    ValueError
        When the list is empty or a rank is in two subgroups.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> mine, groups = dist.new_subgroups_by_enumeration([[0, 2], [1, 3]])  # doctest: +SKIP
    >>> dist.get_process_group_ranks(mine)  # on rank 2  # doctest: +SKIP
    [0, 2]
    """
    if ranks_per_subgroup_list is None or len(ranks_per_subgroup_list) == 0:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    # Checked before any group is made, so that no rank makes one that another refuses.
    seen: dict[int, list[int]] = {}
    for ranks in ranks_per_subgroup_list:
        for rank in ranks:
            if rank in seen:
                raise ValueError(
                    f"Rank {rank} has appeared in both subgroup {seen[rank]} and {ranks}"
                )
            seen[rank] = ranks
    me = get_rank()
    subgroups, mine = [], None
    for ranks in ranks_per_subgroup_list:
        subgroup = new_group(ranks=ranks, timeout=timeout, backend=backend,
                             pg_options=pg_options, group_desc=group_desc)  # fmt: skip
        subgroups.append(subgroup)
        if me in ranks:
            mine = subgroup
    return mine, subgroups
