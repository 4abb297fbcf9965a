"""Collectives of picklable Python objects (``all_gather_object`` and friends), written on the
tensor collectives as PyTorch writes them: each object is pickled into a uint8 tensor, the
sizes travel first, then the padded bytes. They work over any communication backend.

Unpickling runs code chosen by the sender: use them only between trusted processes (the
ranks of one job), as PyTorch warns for its own.
"""

from __future__ import annotations

import pickle
from typing import Any

from .. import devices, dtypes
from ..ops.factories import as_tensor
from ..ops.functions import zeros
from ._collectives import all_gather, broadcast, recv, send
from ._group import _canonical_rank, _default, _group, _World, get_rank, get_world_size

__all__ = [
    "all_gather_object",
    "broadcast_object_list",
    "gather_object",
    "recv_object_list",
    "scatter_object_list",
    "send_object_list",
]


def _device(group: Any, what: str) -> Any:
    """Where ``group`` moves the objects' bytes (PyTorch's ``_get_object_coll_device``): the
    group's own device, or the default device when the group moves its type."""
    pg = _group(group, what)
    if pg is None:
        return devices.get_default_device()
    if pg.device is not None:
        return pg.device
    default = devices.get_default_device()
    return default if default.type in pg.devices else devices.device(pg.devices[0])


def _to_bytes_tensor(obj: Any, device: Any) -> Any:
    return as_tensor(memoryview(bytearray(pickle.dumps(obj)))).to(device)


def _from_bytes_tensor(t: Any, n: int) -> Any:
    return pickle.loads(bytes(t[:n].cpu().tolist()))


def all_gather_object(object_list: list[Any], obj: Any, group: Any = None) -> None:
    """Gather ``obj`` from every rank of ``group`` into ``object_list`` (one entry per rank,
    in rank order), as ``torch.distributed.all_gather_object``.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist.all_gather_object  # doctest: +ELLIPSIS
    <function all_gather_object at ...>
    """
    world = get_world_size(group)
    if len(object_list) != world:
        raise ValueError(
            f"all_gather_object(): object_list has {len(object_list)} entries for a group of "
            f"{world} ranks"
        )
    dev = _device(group, "all_gather_object")
    data = _to_bytes_tensor(obj, dev)
    size = as_tensor([data.numel()], dtype=dtypes.int64, device=dev)
    sizes = [zeros(1, dtype=dtypes.int64, device=dev) for _ in range(world)]
    all_gather(sizes, size, group=group)
    longest = max(int(s.item()) for s in sizes)
    padded = zeros(longest, dtype=dtypes.uint8, device=dev)
    padded[: data.numel()] = data
    chunks = [zeros(longest, dtype=dtypes.uint8, device=dev) for _ in range(world)]
    all_gather(chunks, padded, group=group)
    for i, (chunk, n) in enumerate(zip(chunks, sizes, strict=True)):
        object_list[i] = _from_bytes_tensor(chunk, int(n.item()))


def _root(group: Any, rank: Any, group_rank: Any, what: str, arg: str) -> int:
    """The global rank of a root given as a global rank or as a rank in ``group``."""
    pg = _group(group, what)
    if pg is None:  # (not a member: the rank as given, which no member's rank equals)
        return -1 if rank is None else rank
    return _World.ranks[pg][_canonical_rank(pg, rank, group_rank, what, arg)]


def gather_object(
    obj: Any,
    object_gather_list: list[Any] | None = None,
    dst: int | None = None,
    group: Any = None,
    group_dst: int | None = None,
) -> None:
    """Gather ``obj`` from every rank into ``object_gather_list`` on rank ``dst`` (a global
    rank; or ``group_dst``, a rank in ``group``; None on the other ranks), as
    ``torch.distributed.gather_object``."""
    dst = _root(group, dst, group_dst, "gather_object", "dst")
    world = get_world_size(group)
    mine = get_rank() == dst  # (src and dst are global ranks, as in PyTorch)
    if mine and (object_gather_list is None or len(object_gather_list) != world):
        raise ValueError(
            f"gather_object(): rank {dst} needs an object_gather_list of {world} entries"
        )
    gathered: list[Any] = [None] * world
    all_gather_object(gathered, obj, group=group)
    if mine and object_gather_list is not None:
        object_gather_list[:] = gathered


def broadcast_object_list(
    object_list: list[Any],
    src: int | None = None,
    group: Any = None,
    device: Any = None,
    group_src: int | None = None,
) -> None:
    """Replace ``object_list``'s entries on every rank with rank ``src``'s (a global rank;
    or ``group_src``, a rank in ``group``; the lists have the same length everywhere), as
    ``torch.distributed.broadcast_object_list``; ``device`` is where the bytes are staged
    (the group's device when None)."""
    src = _root(group, src, group_src, "broadcast_object_list", "src")
    sending = get_rank() == src
    n = len(object_list)
    dev = device if device is not None else _device(group, "broadcast_object_list")
    if sending:
        blobs = [_to_bytes_tensor(o, dev) for o in object_list]
        sizes = as_tensor([b.numel() for b in blobs], dtype=dtypes.int64, device=dev)
    else:
        sizes = zeros(n, dtype=dtypes.int64, device=dev)
    broadcast(sizes, src, group=group)
    counts = [int(s) for s in sizes.tolist()]
    payload = zeros(sum(counts), dtype=dtypes.uint8, device=dev)
    if sending:
        start = 0
        for blob, k in zip(blobs, counts, strict=True):
            payload[start : start + k] = blob
            start += k
    broadcast(payload, src, group=group)
    if not sending:
        start = 0
        for i, k in enumerate(counts):
            object_list[i] = _from_bytes_tensor(payload[start : start + k], k)
            start += k


def scatter_object_list(
    scatter_object_output_list: list[Any],
    scatter_object_input_list: list[Any] | None = None,
    src: int | None = None,
    group: Any = None,
    group_src: int | None = None,
) -> None:
    """Give rank ``i`` the ``i``-th object of rank ``src``'s (a global rank; or
    ``group_src``, a rank in ``group``) ``scatter_object_input_list``, in
    ``scatter_object_output_list[0]``, as ``torch.distributed.scatter_object_list``."""
    src = _root(group, src, group_src, "scatter_object_list", "src")
    world = get_world_size(group)
    if not scatter_object_output_list:
        raise ValueError("scatter_object_list(): scatter_object_output_list must not be empty")
    objects: list[Any] = [None] * world
    if get_rank() == src:
        if scatter_object_input_list is None or len(scatter_object_input_list) != world:
            raise ValueError(
                f"scatter_object_list(): rank {src} needs a scatter_object_input_list of "
                f"{world} objects"
            )
        objects = list(scatter_object_input_list)
    broadcast_object_list(objects, src=src, group=group)
    scatter_object_output_list[0] = objects[get_rank(group)]


def _peer(group: Any, rank: Any, group_rank: Any, what: str, arg: str, role: str) -> Any:
    """The group and the peer's global rank of a point-to-point object call; None for the
    group when this process is not in it."""
    pg = _group(group, what)
    if pg is None:
        return None, -1
    peer = _canonical_rank(pg, rank, group_rank, what, arg)
    if peer == pg.rank():
        raise ValueError(
            f"Invalid {role} rank: {role} rank should not be the same as the rank of the "
            "current process."
        )
    return pg, _World.ranks[pg][peer]


def send_object_list(
    object_list: list[Any],
    dst: int | None = None,
    group: Any = None,
    device: Any = None,
    group_dst: int | None = None,
    use_batch: bool = False,
) -> None:
    """Send the picklable objects of ``object_list`` to rank ``dst`` (a global rank; or
    ``group_dst``, a rank in ``group``), which receives them with :func:`recv_object_list`
    into a list of the same length, as ``torch.distributed.send_object_list``.

    ``device`` is where the bytes are staged (the group's device when None);
    ``use_batch`` is accepted for compatibility (the sends are the same).

    Raises
    ------
    ValueError
        When ``dst`` is this process's rank, both or neither of ``dst`` and ``group_dst``
        are given, or the rank is not in the group.

    Examples
    --------
    >>> if dist.get_rank() == 0:  # doctest: +SKIP
    ...     dist.send_object_list(["config", {"lr": 0.1}], dst=1)
    ... else:
    ...     got = [None, None]
    ...     dist.recv_object_list(got, src=0)
    """
    what = "send_object_list"
    _default(what)
    pg, peer = _peer(group, dst, group_dst, what, "dst", "destination")
    if pg is None:
        return
    dev = device if device is not None else _device(group, what)
    blobs = [_to_bytes_tensor(o, dev) for o in object_list]
    send(as_tensor([b.numel() for b in blobs], dtype=dtypes.int64, device=dev), peer, group)
    payload = zeros(sum(b.numel() for b in blobs), dtype=dtypes.uint8, device=dev)
    start = 0
    for blob in blobs:
        payload[start : start + blob.numel()] = blob
        start += blob.numel()
    send(payload, peer, group)


def recv_object_list(
    object_list: list[Any],
    src: int | None = None,
    group: Any = None,
    device: Any = None,
    group_src: int | None = None,
    use_batch: bool = False,
) -> int:
    """Receive the objects rank ``src`` (a global rank; or ``group_src``, a rank in
    ``group``) sent with :func:`send_object_list` into ``object_list``, which has as many
    entries as the sender's; return the sender's global rank (-1 when this process is not
    in ``group``), as ``torch.distributed.recv_object_list``.

    Unpickling runs code chosen by the sender: use it between the trusted ranks of one job.

    Examples
    --------
    >>> got = [None, None]  # doctest: +SKIP
    >>> dist.recv_object_list(got, src=0)  # doctest: +SKIP
    0
    """
    what = "recv_object_list"
    _default(what)
    pg, peer = _peer(group, src, group_src, what, "src", "source")
    if pg is None:
        return -1
    dev = device if device is not None else _device(group, what)
    sizes = zeros(len(object_list), dtype=dtypes.int64, device=dev)
    sender = recv(sizes, peer, group)
    counts = [int(k) for k in sizes.tolist()]
    payload = zeros(sum(counts), dtype=dtypes.uint8, device=dev)
    recv(payload, peer, group)
    start = 0
    for i, k in enumerate(counts):
        object_list[i] = _from_bytes_tensor(payload[start : start + k], k)
        start += k
    return sender
