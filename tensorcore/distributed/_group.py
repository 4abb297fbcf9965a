"""The process-group state of ``tensorcore.distributed``: init, groups, ranks, failure.

One default group per process (``init_process_group``), made by a communication backend
that a plugin registered (``register.comm_backend``); ``new_group`` splits it. A rank that
dies with an uncaught exception takes the whole job down (``MPI_Abort`` through the group's
``abort``), so the other ranks never wait for it.
"""

from __future__ import annotations

import os
import sys
import time
from datetime import timedelta
from types import TracebackType
from typing import Any, ClassVar

from ..devices import device as _device_type
from ..plugins import manager
from ._as_rank import launcher_environment
from ._backend import DEFAULT_TIMEOUT, ProcessGroup
from ._names import stand_in
from ._store import rendezvous

__all__ = [
    "GroupMember",
    "destroy_process_group",
    "get_backend",
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "is_available",
    "is_backend_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "new_group",
]


class _World:
    default: ProcessGroup | None = None
    # group -> its members' global ranks, in group-rank order
    ranks: ClassVar[dict[ProcessGroup, list[int]]] = {}
    previous_hook: Any = None
    # The agreement check before each collective (TENSORCORE_DISTRIBUTED_CHECK=0: off).
    check: bool = True
    # id(tensor) -> the all_reduce plan made for it (_plan.Plan), oldest first.
    plans: ClassVar[dict[int, Any]] = {}
    # The registration of the default group's communication backend (its default timeout).
    registration: Any = None
    # The name the program gave for a backend served by a stand-in ("gloo" served by "mpi"),
    # by the serving backend's name: what get_backend says, as the program branches on it.
    asked: ClassVar[dict[str, str]] = {}


class GroupMember:
    """``GroupMember.WORLD`` is the default group once initialised; ``NON_GROUP_MEMBER`` is
    what ``new_group`` returns on the ranks it leaves out (collectives on it do nothing)."""

    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = object()


class _WorldMeta(type):
    @property
    def WORLD(cls) -> ProcessGroup | None:
        return _World.default


class group(metaclass=_WorldMeta):
    """``group.WORLD``: the default process group once initialised, else None (PyTorch's
    ``torch.distributed.group``; the same group as ``GroupMember.WORLD``).

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist.group.WORLD is None
    True
    """


def is_available() -> bool:
    """Whether ``tensorcore.distributed`` can be used: True (the package is always there;
    ``is_backend_available`` tells whether an engine such as MPI is).

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist.is_available()
    True
    """
    return True


def is_backend_available(backend: str) -> bool:
    """Whether the communication backend ``backend`` (``"mpi"``) is registered and usable.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist.is_backend_available("no-such-engine")
    False
    """
    cb = manager.comm_backends().get(backend)
    return cb is not None and cb.is_available()


def is_mpi_available() -> bool:
    """Whether the MPI backend can be used (mpi4py is installed).

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> isinstance(dist.is_mpi_available(), bool)
    True
    """
    return is_backend_available("mpi")


def is_nccl_available() -> bool:
    """Whether the NCCL backend can be used (``tensorcore-cuda`` registers it; it needs
    CuPy with NCCL and a GPU).

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> isinstance(dist.is_nccl_available(), bool)
    True
    """
    return is_backend_available("nccl")


def is_initialized() -> bool:
    """Whether ``init_process_group`` has run (and ``destroy_process_group`` has not).

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist.is_initialized()
    False
    """
    return _World.default is not None


def _pick_backend(backend: str | None) -> str:
    found = manager.comm_backends()
    if backend is not None:
        name = stand_in(str(backend).lower())
        cb = found.get(name)
        if cb is None:
            raise ValueError(
                f"init_process_group(): unknown backend {backend!r}; registered communication "
                f"backends: {', '.join(sorted(found)) or 'none'} (python -m tensorcore lists "
                "them; a plugin adds one with register.comm_backend)"
            )
        if not cb.is_available():
            raise RuntimeError(
                f"init_process_group(): the '{name}' backend is unavailable: "
                f"{cb.unavailable_reason}"
            )
        return name
    # The default picks by device: the first available backend for the default device type.
    from ..devices import get_default_device

    device_type = get_default_device().type
    usable = [cb for cb in found.values() if cb.is_available()]
    for cb in sorted(usable, key=lambda c: (c.name != "mpi", c.name)):
        if device_type in cb.devices:
            return cb.name
    reasons = "; ".join(f"{cb.name}: {cb.unavailable_reason}" for cb in found.values()
                        if not cb.is_available())  # fmt: skip
    raise RuntimeError(
        f"init_process_group(): no available communication backend for device "
        f"'{device_type}'" + (f" ({reasons})" if reasons else "")
    )


def init_process_group(
    backend: str | None = None,
    init_method: str | None = None,
    timeout: timedelta | None = None,
    world_size: int = -1,
    rank: int = -1,
    store: Any = None,
    group_name: str = "",
    pg_options: Any = None,
    device_id: Any = None,
) -> None:
    """Join the job's default process group (PyTorch's ``init_process_group``).

    Parameters
    ----------
    backend
        ``"mpi"``, ``"nccl"`` or another registered communication backend; None picks the
        first available one for the default device (as PyTorch: ``mpi`` for the CPU,
        ``nccl`` for CUDA).
    init_method
        How processes find each other. Under MPI the launcher (``mpiexec``, ``srun``) has
        already wired them: no ``MASTER_ADDR``, ``RANK`` or ``WORLD_SIZE`` is needed.
        ``"env://"`` (PyTorch's default) and no ``init_method`` read ``WORLD_SIZE`` and
        ``RANK`` from the environment, where it has them, for the arguments left at -1;
        engines that rendezvous over the network (NCCL) read ``MASTER_ADDR``/``MASTER_PORT``
        themselves, or take ``"tcp://host:port"`` (see :func:`rendezvous`).
        ``"file:///path"`` (with ``rank`` and ``world_size``) makes the ranks meet through a
        :class:`FileStore` at ``path``, as ``store`` below.
    timeout
        How long any collective waits for the other ranks before raising a
        ``RuntimeError`` (``DistBackendError``); by default 30 minutes, and 10 for
        ``nccl``, as in PyTorch (a backend's ``register.comm_backend(default_timeout=...)``).
    world_size, rank
        Given, or read from the environment (``init_method`` above); under MPI, taken from
        the launcher when neither says, and they must agree with it.
    device_id
        The one device this process works on, as in PyTorch: a ``tensorcore.device`` with an
        index (``tc.device("cuda", local_rank)``), or an int, the index of a device of the
        backend's accelerator (``cuda`` for ``nccl``). The backend binds the process to it:
        NCCL makes it the current CUDA device and makes the group's communicator there, at
        once (it is never made lazily here). A value of the wrong type raises
        ``TypeError``; a device the backend does not move, one without an index, or an
        index this process has no device for, ``ValueError``, before any rank waits for
        another.
    store
        A :class:`Store` (``TCPStore``, ``FileStore``, ...) that every rank can reach, for
        ranks that no launcher wired: they meet through it (with ``rank`` and
        ``world_size``, which must then be given), as ``init_method="file:///path"`` makes
        them meet through a ``FileStore`` at ``path``. The backend gets it as its factory's
        ``store=``; under ``mpiexec`` MPI is wired already and the store is not used.
    group_name, pg_options
        Accepted for PyTorch compatibility; unused.

    Raises
    ------
    ValueError
        When called twice (PyTorch's "trying to initialize the default process group
        twice!"), or for an unknown backend.
    AssertionError
        With both ``store`` and ``init_method``, or a ``store`` without a positive
        ``world_size`` and a ``rank`` (PyTorch's type and words).
    RuntimeError
        When the backend is unavailable (with the reason).

    Notes
    -----
    An uncaught exception on any rank aborts the whole job (``MPI_Abort``), after printing
    its traceback, so that the other ranks do not wait for it (``sys.excepthook`` is
    wrapped until ``destroy_process_group``). Set ``TENSORCORE_DISTRIBUTED_ABORT=0`` to keep
    Python's own hook.

    Before each collective the ranks check that they run the same collective on tensors of
    the same shapes and dtypes (one 24-byte all-reduce; a mismatch raises a ``RuntimeError``
    naming every rank's call). ``TENSORCORE_DISTRIBUTED_CHECK=0`` in the environment turns
    the check off for this process group (a mismatch is then undefined behaviour of MPI:
    wrong results, a truncation error or a timeout). It saves little: under MPI the check
    also decides, for every rank at once, when a repeated all-reduce gets a persistent
    request, which makes up for its round trip (``docs/distributed.md``, "Performance").
    """
    if _World.default is not None:
        raise ValueError(
            "trying to initialize the default process group twice! (call "
            "destroy_process_group() first)"
        )
    if timeout is not None and not isinstance(timeout, timedelta):
        raise TypeError(
            f"init_process_group(): timeout must be a datetime.timedelta, not "
            f"{type(timeout).__name__}"
        )
    if store is not None and init_method is not None:
        raise AssertionError("Cannot specify both init_method and store.")
    if store is not None:
        if not world_size > 0:
            raise AssertionError("world_size must be positive if using store")
        if not rank >= 0:
            raise AssertionError("rank must be non-negative if using store")
    name = _pick_backend(backend)
    cb = manager.comm_backends()[name]
    if timeout is None:
        timeout = cb.default_timeout or DEFAULT_TIMEOUT
    bound = _bound_device(device_id, name, cb.devices)
    if init_method is not None and init_method.startswith("file:"):
        store, rank, world_size = next(rendezvous(init_method, rank, world_size, timeout))
    world_size, rank = _rendezvous(init_method, world_size, rank)
    extra: dict[str, Any] = {} if bound is None else {"device_id": bound}
    if store is not None:
        extra["store"] = store
    pg = cb.factory(world_size=world_size, rank=rank, timeout=timeout, init_method=init_method,
                    **extra)  # fmt: skip
    _World.default = GroupMember.WORLD = pg
    _World.registration = cb
    asked = str(backend).lower() if backend is not None else name
    _World.asked = {name: asked} if asked != name else {}
    _World.check = os.environ.get("TENSORCORE_DISTRIBUTED_CHECK", "1") != "0"
    _World.ranks = {pg: list(range(pg.size()))}
    if pg.size() > 1 and os.environ.get("TENSORCORE_DISTRIBUTED_ABORT", "1") != "0":
        _install_abort_hook(pg)


def _bound_device(device_id: Any, backend: str, devices: tuple[str, ...]) -> Any:
    """``device_id`` as a device of one of ``devices`` (the types ``backend`` moves), or
    None; an int is an index of the backend's first device type other than the CPU."""
    what = "init_process_group()"
    if device_id is None:
        return None
    if isinstance(device_id, int) and not isinstance(device_id, bool):
        accelerators = [t for t in devices if t != "cpu"]
        if not accelerators:
            raise ValueError(
                f"{what}: device_id={device_id} is the index of an accelerator, but the "
                f"'{backend}' backend moves tensors of {', '.join(devices)} only"
            )
        if device_id < 0:
            raise ValueError(f"{what}: device_id must be a non-negative index, got {device_id}")
        return _device_type(accelerators[0], device_id)
    if not isinstance(device_id, _device_type):
        raise TypeError(
            f"{what}: device_id must be a tensorcore.device or an int, not "
            f"{type(device_id).__name__}"
        )
    if device_id.type not in devices:
        raise ValueError(
            f"{what}: device_id={device_id} is not a device of the '{backend}' backend, "
            f"which moves tensors of {', '.join(devices)}"
        )
    if device_id.index is None and device_id.type != "cpu":
        raise ValueError(
            f"{what}: device_id must name one device, with its index, such as "
            f"tc.device('{device_id.type}', local_rank); got {device_id}"
        )
    return device_id


def _rendezvous(init_method: str | None, world_size: int, rank: int) -> tuple[int, int]:
    """``world_size`` and ``rank`` completed from the environment, as PyTorch's ``env://``
    rendezvous reads it: ``WORLD_SIZE`` and ``RANK`` (which schedulers and launchers such as
    ``torchrun`` set) fill the ones the caller left at -1, for ``init_method="env://"`` and
    for no ``init_method``. What is still -1 is the engine's to find: a launcher-wired engine
    (MPI) asks its launcher, a network engine raises naming what it lacks. Engines that need
    an address read ``MASTER_ADDR``/``MASTER_PORT`` themselves."""
    if init_method not in (None, "env://"):
        return world_size, rank
    values = {"WORLD_SIZE": world_size, "RANK": rank}
    for var, value in values.items():
        if value in (-1, None) and var in os.environ:
            try:
                values[var] = int(os.environ[var])
            except ValueError:
                raise ValueError(
                    f"Error initializing tensorcore.distributed using env:// rendezvous: "
                    f"environment variable {var} must be an integer, got {os.environ[var]!r}"
                ) from None
    return values["WORLD_SIZE"], values["RANK"]


def _install_abort_hook(pg: ProcessGroup) -> None:
    previous = sys.excepthook

    def hook(tp: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        abort_job(f"rank {pg.rank()} raised {tp.__name__}", lambda: previous(tp, value, tb))

    _World.previous_hook = previous
    sys.excepthook = hook


def abort_job(why: str, report: Any = None, code: int = 1) -> None:
    """Stop every rank of the job (the backend's ``abort``: ``MPI_Abort`` for MPI) after
    a failure on this one, ``why``: an uncaught exception (the ``sys.excepthook`` that
    ``init_process_group`` installs), or a ``tc.multiprocessing.spawn`` process that raised
    or exited with a nonzero status. ``report()``, when given, writes the failure first;
    ``code`` is the exit status the job ends with. Nothing happens without a default
    group of several ranks, or with ``TENSORCORE_DISTRIBUTED_ABORT=0``."""
    pg = _World.default
    if pg is None or _World.previous_hook is None:  # (the hook is installed when enabled)
        return
    # The one-line reason first: MPI_Abort kills the launcher's output forwarding, which
    # may drop the end of a long traceback written just before it.
    print(f"tensorcore.distributed: {why}; aborting all {pg.size()} ranks", file=sys.stderr,
          flush=True)  # fmt: skip
    if report is not None:
        report()
    sys.stderr.flush()
    sys.stdout.flush()
    time.sleep(0.2)  # (time for the launcher to forward what was written)
    pg.abort(code)


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Leave ``group`` (the default group, and every group, when None)."""
    if group is None or group is _World.default:
        _release_plans(set(_World.ranks))
        for pg in list(_World.ranks):
            pg.shutdown()
        _World.ranks = {}
        _World.default = GroupMember.WORLD = None
        _World.registration = None
        _World.asked = {}
        if _World.previous_hook is not None:
            sys.excepthook = _World.previous_hook
            _World.previous_hook = None
        return
    if group in _World.ranks:
        _release_plans({group})
        group.shutdown()
        del _World.ranks[group]


def _release_plans(groups: set[ProcessGroup]) -> None:
    """Drop the all_reduce plans of ``groups`` (before they shut down: a plan may hold
    requests of their engine)."""
    for key, plan in list(_World.plans.items()):
        if plan.pg in groups:
            del _World.plans[key]
            plan.release()


def _default(what: str) -> ProcessGroup:
    if _World.default is None:
        raise ValueError(
            f"Default process group has not been initialized, please make sure to call "
            f"init_process_group. ({what})"
        )
    return _World.default


def _group(group: Any, what: str) -> ProcessGroup | None:
    """The process group to run on; None when this rank is not in ``group``."""
    if group is None or group is GroupMember.WORLD:
        return _default(what)
    _default(what)
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    if group not in _World.ranks:
        raise ValueError(f"{what}: the group is not a live process group of this process")
    return group


def _group_rank(pg: ProcessGroup, global_rank: Any, what: str, arg: str) -> int:
    ranks = _World.ranks[pg]
    if not isinstance(global_rank, int) or global_rank not in ranks:
        raise ValueError(
            f"{what}: {arg}={global_rank!r} is not a rank of the group (its global ranks are "
            f"{ranks})"
        )
    return ranks.index(global_rank)


def get_rank(group: Any = None) -> int:
    """This process's rank in ``group`` (the default group when None); -1 when it is not a
    member."""
    pg = _group(group, "get_rank")
    return -1 if pg is None else pg.rank()


def get_world_size(group: Any = None) -> int:
    """The number of processes in ``group`` (the default group when None); -1 when this
    process is not a member."""
    pg = _group(group, "get_world_size")
    return -1 if pg is None else pg.size()


def get_node_local_rank(fallback_rank: int | None = None) -> int:
    """This process's rank among the processes of its machine, to pick its GPU with:
    ``LOCAL_RANK`` (set by ``torchrun`` and by ``python -m tensorcore.distributed.run``),
    else the one an MPI launcher or Slurm gives (``MPI_LOCALRANKID``,
    ``OMPI_COMM_WORLD_LOCAL_RANK``, ``SLURM_LOCALID``), else ``fallback_rank``.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist.get_node_local_rank(fallback_rank=0) >= 0
    True
    """
    value = os.environ.get("LOCAL_RANK") or launcher_environment(os.environ).get("LOCAL_RANK")
    if value is not None:
        return int(value)
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError(
        "LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
        "`get_node_local_rank` to work, assuming you are not running in a multi-device "
        "context and want the code to run locally instead."
    )


def get_backend(group: Any = None) -> str:
    """The name of ``group``'s communication backend (the default group's when None), as
    ``init_process_group`` was given it: ``"gloo"`` for a job started with ``"gloo"``, which
    the ``mpi`` backend serves where no plugin registers Gloo (PyTorch programs branch on
    the name), else the backend's own (``"mpi"``, ``"nccl"``).

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist.init_process_group("gloo", rank=0, world_size=1)  # doctest: +SKIP
    >>> dist.get_backend()  # doctest: +SKIP
    'gloo'
    """
    pg = _group(group, "get_backend")
    name = _default("get_backend").backend if pg is None else pg.backend
    return _World.asked.get(name, name)


def _registered(group: Any, what: str) -> list[int]:
    ranks = _World.ranks.get(group) if isinstance(group, ProcessGroup) else None
    if ranks is None:
        raise ValueError(
            f"{what}(): Group {group} is not registered, please create group with "
            "tensorcore.distributed.new_group API"
        )
    return ranks


def get_global_rank(group: Any, group_rank: int) -> int:
    """The global rank of the process whose rank in ``group`` is ``group_rank``; on
    ``group.WORLD``, ``group_rank`` itself (PyTorch's ``get_global_rank``).

    Raises
    ------
    ValueError
        When ``group`` is not a live group of this process (``new_group``'s
        ``NON_GROUP_MEMBER`` included), or has no rank ``group_rank``.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> g = dist.new_group([1, 3])  # doctest: +SKIP
    >>> dist.get_global_rank(g, 1)  # on ranks 1 and 3  # doctest: +SKIP
    3
    """
    if group is GroupMember.WORLD:
        return group_rank
    ranks = _registered(group, "get_global_rank")
    if not isinstance(group_rank, int) or not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return ranks[group_rank]


def get_group_rank(group: Any, global_rank: int) -> int:
    """The rank in ``group`` of the process whose global rank is ``global_rank``; on
    ``group.WORLD``, ``global_rank`` itself (PyTorch's ``get_group_rank``).

    Raises
    ------
    ValueError
        When ``group`` is not a live group of this process, or ``global_rank`` is not one
        of its members.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> g = dist.new_group([1, 3])  # doctest: +SKIP
    >>> dist.get_group_rank(g, 3)  # on ranks 1 and 3  # doctest: +SKIP
    1
    """
    if group is GroupMember.WORLD:
        return global_rank
    ranks = _registered(group, "get_group_rank")
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks.index(global_rank)


def _canonical_rank(pg: ProcessGroup, global_rank: Any, group_rank: Any, what: str,
                    arg: str) -> int:  # fmt: skip
    """A rank given either as a global rank (``src``/``dst``) or as a rank in the group
    (``group_src``/``group_dst``), as the group's rank; PyTorch's rules for the pair."""
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError("Can't specify both group_rank and global_rank")
        if not isinstance(group_rank, int) or not 0 <= group_rank < pg.size():
            raise ValueError(
                f"{what}: group_{arg}={group_rank!r} is not a rank of the group (of size "
                f"{pg.size()})"
            )
        return group_rank
    if global_rank is None:
        raise ValueError("Must specify global_rank or group_rank")
    return _group_rank(pg, global_rank, what, arg)


def get_process_group_ranks(group: Any) -> list[int]:
    """The global ranks of ``group``'s members, in group-rank order."""
    pg = _group(group, "get_process_group_ranks")
    if pg is None:
        raise ValueError("get_process_group_ranks(): this process is not in the group")
    return list(_World.ranks[pg])


def new_group(
    ranks: list[int] | None = None,
    timeout: timedelta | None = None,
    backend: str | None = None,
    pg_options: Any = None,
    use_local_synchronization: bool = False,
    group_desc: str | None = None,
    device_id: Any = None,
    sort_ranks: bool = True,
) -> Any:
    """A process group of the global ``ranks`` (all of them when None), sorted as in PyTorch
    (with ``sort_ranks=False``, the group's ranks follow the list's order).

    Every process of the default group must call it, members or not. On a non-member it
    returns ``GroupMember.NON_GROUP_MEMBER``, on which collectives do nothing.
    ``backend``, ``pg_options``, ``use_local_synchronization``, ``group_desc`` and
    ``device_id`` are accepted for PyTorch compatibility; the group uses the default
    group's backend and device.
    """
    world = _default("new_group")
    if timeout is not None and not isinstance(timeout, timedelta):
        raise TypeError(
            f"new_group(): timeout must be a datetime.timedelta, not {type(timeout).__name__}"
        )
    n = world.size()
    given = range(n) if ranks is None else ranks
    members = sorted(set(given)) if sort_ranks else list(dict.fromkeys(given))
    bad = [r for r in members if not isinstance(r, int) or not 0 <= r < n]
    if bad:
        raise ValueError(f"new_group(): ranks {bad} are not ranks of a world of size {n}")
    pg = world.split(members)
    if pg is None:
        return GroupMember.NON_GROUP_MEMBER
    if timeout is None:  # (the backend's default, as PyTorch's; not the world group's)
        cb = _World.registration
        timeout = (cb.default_timeout if cb is not None else None) or DEFAULT_TIMEOUT
    pg.timeout = timeout
    _World.ranks[pg] = members
    return pg
