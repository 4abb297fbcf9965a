"""PyTorch's names around the process groups: :class:`Backend`, the availability checks,
the debug level, and the deprecated ``reduce_op``.

Nothing here runs on the collectives' path.
"""

from __future__ import annotations

import enum
import os
import warnings
from collections.abc import Callable
from typing import Any, ClassVar

from ..plugins import manager
from ._backend import ReduceOp

__all__ = [
    "Backend",
    "DebugLevel",
    "get_debug_level",
    "get_default_backend_for_device",
    "is_gloo_available",
    "is_torchelastic_launched",
    "is_ucc_available",
    "is_xccl_available",
    "reduce_op",
    "set_debug_level",
    "set_debug_level_from_env",
    "supports_complex",
]


class Backend(str):
    """The name of a communication backend, as ``torch.distributed.Backend``.

    ``Backend(name)`` returns the name as a plain lower-case ``str`` (``Backend("MPI") ==
    "mpi"``); the class attributes (``Backend.MPI``, ``Backend.NCCL``, ``Backend.GLOO``...)
    are PyTorch's names, whether or not a backend of that name is registered here (only
    ``mpi`` is built in; ``tensorcore-cuda`` adds ``nccl``; there is no ``gloo``).

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist.Backend("MPI"), dist.Backend.NCCL, dist.Backend("mpi") == dist.Backend.MPI
    ('mpi', 'nccl', True)
    """

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    FAKE = "fake"

    backend_list: ClassVar[list[str]] = [UNDEFINED, GLOO, NCCL, XCCL, UCC, MPI, FAKE]
    #: The backend ``init_process_group`` picks for a device type when given none
    #: (PyTorch's maps ``cpu`` to ``gloo``, which tensorcore lacks: here it is ``mpi``).
    default_device_backend_map: ClassVar[dict[str, str]] = {"cpu": MPI, "cuda": NCCL}
    #: The device types whose tensors each backend moves.
    backend_capability: ClassVar[dict[str, list[str]]] = {MPI: ["cpu"], NCCL: ["cuda"]}

    def __new__(cls, name: str) -> Any:  # (a plain str, as PyTorch's)
        if not isinstance(name, str):
            raise ValueError("Backend constructor parameter must be string-ish")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return value

    @classmethod
    def register_backend(
        cls,
        name: str,
        func: Callable[..., Any],
        extended_api: bool = False,
        devices: str | list[str] | None = None,
    ) -> None:
        """Register a communication backend called ``name`` at runtime, as a plugin's
        ``register.comm_backend`` does (see ``docs/distributed.md``).

        ``func(world_size=..., rank=..., timeout=..., init_method=...)`` makes the
        process group (a ``tensorcore.backend.ProcessGroup``), the factory of
        ``register.comm_backend``, not PyTorch's ``func(store, rank, size, timeout)``;
        ``devices`` are the device types it moves (``"cpu"`` and ``"cuda"``, with a
        ``UserWarning``, when None, as in PyTorch). ``extended_api`` is accepted for
        compatibility; unused. A name registered already raises ``RuntimeError``.
        """
        if not isinstance(name, str):
            raise ValueError("Backend.register_backend(): name must be a str")
        lower = name.lower()
        if devices is None:
            warnings.warn(
                f"Device capability of {name} unspecified, assuming `cpu` and `cuda`. Please "
                "specify it via the `devices` argument of `register_backend`.",
                stacklevel=2,
            )
            devices = ["cpu", "cuda"]
        elif isinstance(devices, str):
            devices = [devices]
        kinds = tuple(devices)
        if lower in manager.comm_backends():
            raise RuntimeError(
                f"Backend.register_backend(): a communication backend named '{lower}' is "
                "already registered"
            )

        from ..plugins import hookimpl

        class _Plugin:
            @hookimpl
            def tensorcore_register_comm_backends(self, register: Any) -> None:
                register.comm_backend(lower, func, devices=kinds)

        manager.register(_Plugin(), name=f"Backend.register_backend({lower})")
        if not hasattr(Backend, name.upper()):
            setattr(Backend, name.upper(), lower)
        if lower not in Backend.backend_list:
            Backend.backend_list.append(lower)
        for device in kinds:
            Backend.default_device_backend_map.setdefault(device, lower)
        Backend.backend_capability[lower] = list(kinds)


#: PyTorch's backend names that another engine serves where no plugin registers them:
#: programs written for PyTorch name ``"gloo"`` for the CPU, which is MPI's work here.
STAND_INS = {"gloo": "mpi"}


def stand_in(name: str) -> str:
    """The registered backend that serves ``name``: ``name`` itself when a plugin registered
    it, else its stand-in (``"gloo"`` -> ``"mpi"``), else ``name``.

    Examples
    --------
    >>> from tensorcore.distributed._names import stand_in
    >>> stand_in("nccl"), stand_in("gloo")
    ('nccl', 'mpi')
    """
    if name in manager.comm_backends():
        return name
    return STAND_INS.get(name, name)


def is_gloo_available() -> bool:
    """Whether ``init_process_group("gloo")`` can run: with no Gloo plugin installed, the
    ``mpi`` backend serves that name (so it is whether mpi4py is installed).

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist.is_gloo_available() == dist.is_mpi_available()
    True
    """
    return _usable(stand_in("gloo"))


def is_ucc_available() -> bool:
    """Whether the UCC backend can be used: False unless a plugin registers one.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist.is_ucc_available()
    False
    """
    return _usable("ucc")


def is_xccl_available() -> bool:
    """Whether the XCCL backend (Intel GPUs) can be used: False unless a plugin registers one.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist.is_xccl_available()
    False
    """
    return _usable("xccl")


def _usable(name: str) -> bool:
    cb = manager.comm_backends().get(name)
    return cb is not None and cb.is_available()


def is_torchelastic_launched() -> bool:
    """Whether this process was started by ``torchrun`` (torchelastic): whether
    ``TORCHELASTIC_RUN_ID`` is in the environment, as PyTorch checks.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> isinstance(dist.is_torchelastic_launched(), bool)
    True
    """
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def get_default_backend_for_device(device: Any) -> str:
    """The backend ``init_process_group`` picks for ``device`` (a device or its string):
    ``"mpi"`` for the CPU (PyTorch's ``"gloo"``), ``"nccl"`` for CUDA.

    Raises
    ------
    ValueError
        For a device type no backend is the default of.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist.get_default_backend_for_device("cpu"), dist.get_default_backend_for_device("cuda:1")
    ('mpi', 'nccl')
    """
    from ..devices import device as _device

    kind = device.type if isinstance(device, _device) else _device(device).type
    backend = Backend.default_device_backend_map.get(kind)
    if backend is None:
        raise ValueError(f"Default backend not registered for device : {device}")
    return backend


class DebugLevel(enum.Enum):
    """How much ``tensorcore.distributed`` checks and reports (``torch.distributed``'s
    ``DebugLevel``): OFF, INFO or DETAIL, from ``TENSORCORE_DISTRIBUTED_DEBUG`` (or
    PyTorch's ``TORCH_DISTRIBUTED_DEBUG``). tensorcore's agreement check runs at every
    level (``TENSORCORE_DISTRIBUTED_CHECK=0`` turns it off); the level is kept for programs
    that read or set it.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> [level.name for level in dist.DebugLevel]
    ['OFF', 'INFO', 'DETAIL']
    """

    OFF = 0
    INFO = 1
    DETAIL = 2


class _Debug:
    level: DebugLevel | None = None  # None: not read from the environment yet


def set_debug_level_from_env() -> None:
    """Set the debug level from ``TENSORCORE_DISTRIBUTED_DEBUG`` (else
    ``TORCH_DISTRIBUTED_DEBUG``): ``OFF`` (the default), ``INFO`` or ``DETAIL``, in any case.

    Raises
    ------
    ValueError
        For another value.
    """
    for var in ("TENSORCORE_DISTRIBUTED_DEBUG", "TORCH_DISTRIBUTED_DEBUG"):
        value = os.environ.get(var)
        if value is not None:
            break
    else:
        _Debug.level = DebugLevel.OFF
        return
    try:
        _Debug.level = DebugLevel[value.upper()]
    except KeyError:
        raise ValueError(f"The value of {var} must be OFF, INFO or DETAIL, got {value!r}") from None


def get_debug_level() -> DebugLevel:
    """The debug level of ``tensorcore.distributed`` (see :class:`DebugLevel`).

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> isinstance(dist.get_debug_level(), dist.DebugLevel)
    True
    """
    if _Debug.level is None:
        set_debug_level_from_env()
    assert _Debug.level is not None
    return _Debug.level


def set_debug_level(level: DebugLevel) -> None:
    """Set the debug level of ``tensorcore.distributed`` (a :class:`DebugLevel`).

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> before = dist.get_debug_level()
    >>> dist.set_debug_level(dist.DebugLevel.INFO)
    >>> dist.get_debug_level()
    <DebugLevel.INFO: 1>
    >>> dist.set_debug_level(before)
    """
    if not isinstance(level, DebugLevel):
        raise TypeError(
            f"set_debug_level(): argument 'level' must be a DebugLevel, not {type(level).__name__}"
        )
    _Debug.level = level


def supports_complex(reduceOp: ReduceOp) -> bool:
    """Whether ``reduceOp`` is defined on complex tensors: False for MAX, MIN and PRODUCT,
    as in PyTorch (complex numbers have no order), and for the bitwise BAND, BOR, BXOR.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist.supports_complex(dist.ReduceOp.SUM), dist.supports_complex(dist.ReduceOp.MAX)
    (True, False)
    """
    return reduceOp not in (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT, ReduceOp.BAND,
                            ReduceOp.BOR, ReduceOp.BXOR)  # fmt: skip


class _DeprecatedReduceOp:
    """``reduce_op``: :class:`ReduceOp` under its old name; each attribute warns."""

    def __getattr__(self, name: str) -> Any:
        if name not in ReduceOp.__members__:  # (introspection: __wrapped__ and such)
            raise AttributeError(f"reduce_op has no attribute {name!r}")
        warnings.warn(
            "`tensorcore.distributed.reduce_op` is deprecated, please use "
            "`tensorcore.distributed.ReduceOp` instead",
            FutureWarning,
            stacklevel=2,
        )
        return getattr(ReduceOp, name)

    def __repr__(self) -> str:
        return "<tensorcore.distributed.reduce_op (deprecated: use ReduceOp)>"


#: Deprecated: :class:`ReduceOp`'s former name (``reduce_op.SUM`` warns, then is
#: ``ReduceOp.SUM``).
reduce_op = _DeprecatedReduceOp()
