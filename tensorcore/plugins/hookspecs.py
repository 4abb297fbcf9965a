"""The backend contract: the pluggy hook specifications a tensorcore backend implements.

A backend is a module (usually ``tensorcore_<name>.plugin``) published under the entry-point
group ``tensorcore.backends``. Its hook implementations run **once**, when the plugins are first
needed, never per operator call. Each receives a :class:`~tensorcore.plugins.Registrar` and
calls methods on it; nothing a hook registers takes effect unless every hook of that plugin
succeeds and all of it can be committed, so a broken plugin never leaves half a backend behind.

Each implementation must be marked with ``hookimpl`` and named after one of the specs below; a
plugin with an implementation of an unknown hook (``tensorcore_register_kernel``), or with an
unmarked function named ``tensorcore_*``, fails to load with an error naming it.

Plugins load in two rounds (the core's own first, then entry points by name): first every
plugin's devices and layouts hooks run, so that a device type or layout two plugins claim goes
to its rightful provider whatever the load order; then, plugin by plugin, its kernels and
communication backends hooks run and what it registered is committed. A plugin implements
only the hooks it needs (the sparse backend registers a layout and kernels, no device).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from .registrar import Registrar

hookspec = pluggy.HookspecMarker("tensorcore")
hookimpl = pluggy.HookimplMarker("tensorcore")

#: The version of the backend SPI (``tensorcore.backend``, these hooks, the ``Registrar`` and
#: the ``DeviceInterface``): ``(major, minor)``. A minor version adds to the contract; a major
#: version changes or removes something. A plugin module declares the version it was written
#: for as ``TENSORCORE_SPI = "1.3"``. 1.1 added the communication-backend contract to
#: ``tensorcore.backend`` (``ProcessGroup``, ``Work``, ``ReduceOp``, ``DistBackendError``,
#: ``AllreducePlan``, ``Disagreement``, ``DEFAULT_TIMEOUT``, ``spin``, ``timed_out``) and
#: ``register.comm_backend(default_timeout=...)``. 1.2 added
#: ``DeviceInterface.set_num_threads`` (what ``tensorcore.set_num_threads`` calls). 1.3
#: added ``check_cast`` (PyTorch's cast check of a kernel writing its own result), and the
#: ``*_like`` operators' kernels receive ``layout`` (None: the input's) as their last argument.
SPI_VERSION = (1, 3)


def spi_compatible(declared: object) -> tuple[int, int]:
    """Parse a plugin's ``TENSORCORE_SPI`` declaration and check it against
    :data:`SPI_VERSION`: a plugin loads when it was written for this major version and for
    this minor version or an older one. Returns the declared ``(major, minor)``.

    Raises
    ------
    TypeError
        For a declaration that is not ``"MAJOR.MINOR"`` (or a pair of ints).
    RuntimeError
        For an incompatible version, naming both.

    Examples
    --------
    >>> from tensorcore.plugins.hookspecs import spi_compatible
    >>> spi_compatible("1.0")
    (1, 0)
    >>> try:
    ...     spi_compatible("2.0")
    ... except RuntimeError as exc:
    ...     print(str(exc).split(" (")[0])
    written for tensorcore backend SPI 2.0, but this tensorcore provides SPI 1.3
    """
    try:
        if isinstance(declared, str):
            major_s, minor_s = declared.split(".")
            version = (int(major_s), int(minor_s))
        elif isinstance(declared, tuple) and len(declared) == 2:
            version = (int(declared[0]), int(declared[1]))
        else:
            raise ValueError
        if not all(isinstance(v, int) and v >= 0 for v in version):
            raise ValueError
    except (ValueError, TypeError):
        raise TypeError(
            f'TENSORCORE_SPI must be a version string such as "1.0", not {declared!r}'
        ) from None
    have = f"{SPI_VERSION[0]}.{SPI_VERSION[1]}"
    want = f"{version[0]}.{version[1]}"
    if version[0] != SPI_VERSION[0] or version[1] > SPI_VERSION[1]:
        advice = (
            "upgrade tensorcore"
            if version > SPI_VERSION
            else "install a release of the plugin written for this SPI"
        )
        raise RuntimeError(
            f"written for tensorcore backend SPI {want}, but this tensorcore provides SPI "
            f"{have} (compatible: {SPI_VERSION[0]}.0 to {have}); {advice}"
        )
    return version


@hookspec
def tensorcore_register_devices(register: Registrar) -> None:
    """Register the device types this backend provides.

    Called once per plugin, first of all hooks. Call ``register.device(interface)`` with a
    :class:`~tensorcore.plugins.DeviceInterface` for each device type (``"cpu"``,
    ``"cuda"``, ...). A plugin whose device is not usable on this machine (no driver, missing
    library) still registers it, with ``is_available()`` false and ``unavailable_reason``
    saying why; it must not raise. A device type another plugin provides is an error for
    the plugin that is not its rightful provider (see ``docs/writing-a-backend.md``).
    """


@hookspec
def tensorcore_register_layouts(register: Registrar) -> None:
    """Register the tensor layouts this backend provides.

    Called once per plugin, after that plugin's devices hook. Call
    ``register.layout(name, priority=...)``; the new layout becomes ``tensorcore.<name>``.
    ``priority`` decides which kernel runs when one call mixes layouts (the highest wins).
    """


@hookspec
def tensorcore_register_kernels(register: Registrar) -> None:
    """Register kernels for (operator, device type, layout) triples.

    Called once per plugin, after that plugin's devices and layouts hooks. Call
    ``register.kernel(op_name, device_type, layout, fn, dtypes=None, override=False,
    direct=False)``; ``register.ops()`` lists the declared operators. See
    ``docs/writing-a-backend.md`` for the calling convention of each operator category, and of
    ``direct=True`` kernels, which the operator's frontend does not prepare. Registering a
    triple that another plugin already registered is an error naming both plugins, unless
    ``override=True`` is given; then the replacement is reported (a ``RuntimeWarning``,
    ``python -m tensorcore``, ``tc.explain``).
    """


@hookspec
def tensorcore_register_comm_backends(register: Registrar) -> None:
    """Register the communication backends (process-group engines) this backend provides.

    Called once per plugin, after that plugin's kernels hook. Call
    ``register.comm_backend(name, factory, devices=("cpu",), unavailable_reason=None)``
    for each engine (``"mpi"``, ``"nccl"``, ``"gloo"``...); ``tc.distributed.init_process_group
    (backend=name)`` then calls ``factory(world_size=..., rank=..., timeout=...,
    init_method=...)`` (with ``device_id=`` and ``store=`` when the program gave them, the
    latter also for a ``file://`` ``init_method``), which returns a
    :class:`tensorcore.backend.ProcessGroup`.
    ``devices`` are the device types whose tensors the engine moves (the default backend of
    ``init_process_group`` is picked by device). An engine whose library is missing still
    registers, with ``unavailable_reason`` saying why and what to install; the hook must not
    import that library (find it with ``importlib.util.find_spec``), nor raise. A name that
    another plugin registered is an error naming both plugins (see
    ``docs/distributed.md``).
    """
