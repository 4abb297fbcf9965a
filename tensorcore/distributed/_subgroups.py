"""Splitting the world into subgroups in one call: ``new_subgroups`` (equal blocks of
consecutive ranks), ``new_subgroups_by_enumeration`` (given lists) and ``split_group``
(given lists of ranks in a parent group), as in PyTorch."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from ._backend import DEFAULT_TIMEOUT
from ._group import (
    _default,
    _World,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    new_group,
)

__all__ = ["new_subgroups", "new_subgroups_by_enumeration", "split_group"]


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


def split_group(
    parent_pg: Any = None,
    split_ranks: list[list[int]] | None = None,
    timeout: timedelta | None = None,
    pg_options: Any = None,
    group_desc: str | None = None,
    backend: str | None = None,
) -> Any:
    """Split ``parent_pg`` (the default group when None) into the subgroups of
    ``split_ranks``, lists of ranks *in the parent group* that do not overlap; return the
    subgroup this rank is in, or None (PyTorch's ``split_group``). Every rank of the parent
    calls it, with the same lists. A subgroup's ranks are sorted.

    PyTorch runs it on NCCL groups bound to a device only; here every backend whose groups
    split (MPI, NCCL) runs it. ``pg_options``, ``group_desc`` and ``backend`` are accepted
    for PyTorch compatibility: the subgroups use the parent's backend.

    Raises
    ------
    ValueError
        When ``split_ranks`` is empty, a rank is in two splits or is not a rank of the
        parent, the parent is not a live group, or this rank is not in it.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> pairs = dist.split_group(split_ranks=[[0, 1], [2, 3]])  # on 4 ranks  # doctest: +SKIP
    >>> dist.get_process_group_ranks(pairs)  # on rank 2  # doctest: +SKIP
    [2, 3]
    """
    if split_ranks is None or len(split_ranks) == 0:
        raise ValueError("split_ranks cannot be None or empty")
    parent = _default("split_group") if parent_pg is None else parent_pg
    if parent not in _World.ranks:
        raise ValueError(f"Group {parent} is not registered")
    members = _World.ranks[parent]
    me = get_rank()
    if me not in members:
        raise ValueError(f"Global rank {me} is not part of the parent group {parent}")
    seen: dict[int, list[int]] = {}
    for ranks in split_ranks:
        for rank in ranks:
            if not isinstance(rank, int) or not 0 <= rank < len(members):
                raise ValueError(
                    f"split_group(): {rank!r} is not a rank of the parent group, whose ranks "
                    f"are 0 to {len(members) - 1} (split_ranks holds ranks in the parent)"
                )
            if rank in seen:
                raise ValueError(
                    f"Rank {rank} has appeared in both subgroup {seen[rank]} and {ranks}"
                )
            seen[rank] = ranks
    if timeout is None:  # (the backend's default, as new_group's)
        cb = _World.registration
        timeout = (cb.default_timeout if cb is not None else None) or DEFAULT_TIMEOUT
    mine = None
    # One split of the parent per subgroup: every rank of the parent takes part in each.
    for ranks in split_ranks:
        in_parent = sorted(ranks)
        pg = parent.split(in_parent)
        if pg is not None:
            pg.timeout = timeout
            _World.ranks[pg] = [members[r] for r in in_parent]
            mine = pg
    return mine
