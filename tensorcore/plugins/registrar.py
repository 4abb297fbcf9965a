"""What a backend's hooks receive: the registration object and the device interface."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from .. import layouts
from .._storage_bytes import flat_view, pack, unpack

if TYPE_CHECKING:
    from .._storage import Storage
    from .._tensor import Tensor
    from ..devices import device
    from ..dtypes import dtype

__all__ = ["CommBackend", "DeviceInterface", "Registrar"]


class DeviceInterface:
    """What a backend provides for a device type: allocation and materialisation.

    Subclass it and register an instance with ``register.device(...)``. Everything else a
    device does is an operator kernel. Methods marked required must be overridden.
    """

    #: Device type name, e.g. ``"cuda"``.
    type: str = ""
    #: Why the device cannot be used here, or None when it can.
    unavailable_reason: str | None = None
    #: Whether tensors of this device type hold data. False for a device that keeps only
    #: shapes, dtypes and strides (``meta``): its tensors have no values to read, compare or
    #: copy out, so value-comparing tests (``tensorcore.testing``, the core's suite) leave it
    #: out, and printing shows ``...`` instead of elements.
    holds_data: bool = True
    #: The array module whose arrays :meth:`materialize` returns (``numpy``, ``cupy``), for
    #: kernel libraries and layout backends written against an array module; None when the
    #: native arrays are not those of a NumPy-like module. Read it where the module is needed,
    #: not at plugin load (a backend may import its library lazily, as a property).
    array_module: Any = None
    #: Whether a native array is a window onto its storage's memory, so that writing into it
    #: writes the storage (NumPy, CuPy). A device whose arrays are *values* (dask, JAX:
    #: lazy or immutable arrays) sets it False. Then the core never caches a tensor's native
    #: array (each :meth:`materialize` call reads the storage's current ``data``), and
    #: kernels write their results with ``tensorcore.backend.write``, which calls
    #: :meth:`write` (see ``docs/writing-a-backend.md``, "Devices whose arrays are values").
    mutable_arrays: bool = True

    def is_available(self) -> bool:
        """Whether tensors can be created on this device type on this machine."""
        return self.unavailable_reason is None

    def device_count(self) -> int:
        """How many devices of this type exist (indices ``0 .. count-1``)."""
        return 1 if self.is_available() else 0

    def synchronize(self, device: device) -> None:
        """Wait for all queued work on ``device``; a no-op for synchronous devices."""

    def set_num_threads(self, n: int) -> None:
        """Use ``n`` threads for this device type's work on the host (its BLAS, its own
        thread pools): what ``tensorcore.set_num_threads(n)`` calls on every registered
        device type, as PyTorch's sets its intra-op threads. A no-op by default."""

    def empty(self, shape: tuple[int, ...], dtype: dtype, device: device) -> Tensor:
        """Required: allocate an uninitialised contiguous strided tensor."""
        raise NotImplementedError

    def write(self, tensor: Tensor, value: Any) -> None:
        """Store ``value`` (a native array of ``tensor``'s shape and dtype, or a scalar) as
        ``tensor``'s elements: the one way a kernel of a value device writes its results
        (``tensorcore.backend.write``). ``tensor`` may be any view of its storage.

        The default assigns into the native array (``native[...] = value``), which is
        right when :attr:`mutable_arrays` is true. A device whose arrays are values replaces
        ``tensor.untyped_storage().data`` by a new flat array: the old one with the
        elements that ``tensor``'s sizes, strides and offset address replaced by ``value``.
        Every view of the storage then reads the write."""
        tensor._arr()[...] = value

    def persist(self, storages: list[Storage]) -> None:
        """Compute what is pending for ``storages`` and keep the results, replacing each
        ``storage.data`` by its computed value: how a lazy device bounds the history its
        arrays carry (otherwise every training step adds to every weight's graph).

        The core calls it after each optimizer step with the storages of the parameters and
        of the optimizer's state on this device type, and ``tensorcore.backend.persist
        (*tensors)`` calls it on request. The default does nothing (eager devices have
        nothing pending)."""

    def materialize(self, tensor: Tensor) -> Any:
        """Required: the backend's native array for a strided tensor's (storage, sizes,
        strides, offset). Called lazily, at most once per tensor; it must not copy."""
        raise NotImplementedError

    def data_ptr(self, storage: Storage) -> int:
        """Required: the address of a storage's first byte."""
        raise NotImplementedError

    def from_data(
        self, flat: list[Any], shape: tuple[int, ...], dtype: dtype, device: device
    ) -> Tensor:
        """Required: a new tensor holding ``flat`` (Python scalars, row-major) as ``shape``."""
        raise NotImplementedError

    def from_object(
        self, obj: Any, dtype: dtype | None, device: device, copy: bool
    ) -> Tensor | None:
        """A tensor for a foreign array object (a NumPy or CuPy array), or None when ``obj``
        is not one this backend understands. ``copy=False`` should share memory.

        ``device`` is always of this backend's type: the one the caller asked for where it
        is, else ``tensorcore.device(self.type)`` (``tc.as_tensor(obj)`` on another default
        device); the core moves the result to the caller's device. Build the tensor on
        ``device`` and apply ``dtype`` where it is not None."""
        return None

    def from_native(self, array: Any, device: device) -> Tensor:
        """A tensor of ``device`` over one of this backend's native arrays (what
        :meth:`materialize` returns), sharing its memory: what ``tensorcore.backend.from_native``
        calls, and how a layout backend (``tensorcore-sparse``) turns the arrays it computes
        into dense tensors of the device. The default is :meth:`from_object` with
        ``copy=False``; override it when that would not share memory."""
        t = self.from_object(array, None, device, False)
        if t is None:
            raise TypeError(
                f"from_native(): the '{self.type}' backend does not take a "
                f"{type(array).__module__}.{type(array).__qualname__} as its native array"
            )
        return t

    def to_numpy(self, tensor: Tensor) -> Any:
        """A NumPy array sharing the tensor's memory, for devices whose memory the host
        addresses directly (the CPU); None otherwise, and ``Tensor.numpy()`` then raises
        PyTorch's "use Tensor.cpu() first" error."""
        return None

    def to_dlpack(
        self,
        tensor: Tensor,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[Any, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """The DLPack capsule that ``tensor.__dlpack__(...)`` returns for a strided tensor of
        this device type (the core has checked that it does not require grad); the keywords
        are the consumer's, as the standard defines them.

        The default asks the native array (:meth:`materialize`): its ``__dlpack__`` gets the
        keywords that are not None. Override it for dtypes the native library cannot export
        (the CPU backend exports bfloat16 itself, as NumPy cannot)."""
        kwargs = {
            key: value
            for key, value in (
                ("stream", stream),
                ("max_version", max_version),
                ("dl_device", dl_device),
                ("copy", copy),
            )
            if value is not None
        }
        return tensor._arr().__dlpack__(**kwargs)

    def from_dlpack(self, obj: Any, copy: bool | None = None) -> Tensor | None:
        """A tensor sharing the memory of a DLPack-exporting ``obj`` on this device type, or
        None when ``obj`` lives elsewhere (``obj.__dlpack_device__()`` tells where).

        Where sharing is impossible (say, read-only memory) return a copy; the core passes
        ``copy=False`` (and only then) when the caller forbids copies: raise ``BufferError``
        instead of copying."""
        return None

    def copy_between(self, src: Tensor, dst: Tensor) -> bool:
        """Copy ``src`` into ``dst`` when one of them is on another device type.

        Return True when this backend did the copy, False when it cannot (the other
        device's backend is asked next)."""
        return False

    # Pinned host memory: an accelerator's backend may offer page-locked host memory, which
    # its device copies from faster and asynchronously. ``Tensor.pin_memory()``,
    # ``Tensor.is_pinned()`` and ``DataLoader(pin_memory=True)`` ask the available device
    # types that can pin, in the order they were registered.

    def can_pin_memory(self) -> bool:
        """Whether this backend can allocate pinned host memory (:meth:`empty_pinned`) when
        its device type is available (the core asks :meth:`is_available` as well). False by
        default: a device that is not an accelerator has nothing to pin for."""
        return False

    def empty_pinned(self, nbytes: int) -> Tensor:
        """A new, uninitialised one-dimensional ``uint8`` CPU tensor of ``nbytes`` elements
        over page-locked host memory that this backend allocated (``cupyx.empty_pinned`` on
        CUDA), and that stays allocated while the tensor's storage lives: the tensor views
        all of its storage, from offset 0. Make it with the CPU backend
        (``tensorcore.backend.from_native(array, "cpu")`` over a NumPy array of pinned
        memory). ``Tensor.pin_memory()`` copies into it; :meth:`is_pinned` must then be true
        for its storage. Called only where :meth:`can_pin_memory` is true; the default
        raises."""
        raise RuntimeError(f"the '{self.type}' backend cannot allocate pinned host memory")

    def is_pinned(self, storage: Storage) -> bool:
        """Whether a CPU ``storage`` lies in host memory pinned for this backend's device
        (by :meth:`empty_pinned` or by anyone else, where the driver can tell): what
        ``Tensor.is_pinned()`` asks. False by default."""
        return False

    # Memory shared between processes: ``Tensor.share_memory_()``, ``Tensor.is_shared()`` and
    # what multiprocessing's pickler sends for a shared storage (Hogwild training).

    def share_memory(self, storage: Storage) -> None:
        """Move ``storage``'s contents into memory that other processes can map, in place:
        replace ``storage.data`` by a buffer of the same size over such memory holding the
        same values (the core then drops the native arrays that tensors cached of the old
        buffer). Called once per storage, where :meth:`is_shared` is false. The default
        raises ``RuntimeError``: the device cannot share its memory."""
        raise RuntimeError(
            f"share_memory_(): the '{self.type}' backend cannot share memory between processes"
        )

    def is_shared(self, storage: Storage) -> bool:
        """Whether ``storage`` lies in memory shared between processes (made so by
        :meth:`share_memory`, or received from another process). False by default."""
        return False

    def reduce_shared(self, storage: Storage) -> tuple[Any, tuple[Any, ...]] | None:
        """What multiprocessing's pickler sends for a shared ``storage`` (one that
        :meth:`is_shared` says is shared): a ``(function, args)`` pair as ``__reduce__``
        returns, whose call in the receiving process gives a :class:`Storage` over the same
        memory. None by default: the storage is pickled by value, as any other."""
        return None

    # Serialisation: pickle, copy.deepcopy and tensorcore.save/load move a storage's contents
    # through these three methods only, so any device can take part. The defaults work on
    # every device that has ``from_data`` and a ``tolist`` kernel, element by element in
    # Python; a backend overrides them with one bulk transfer.

    def storage_to_bytes(self, storage: Storage) -> bytes:
        """A storage's contents as host ``bytes``: ``storage.nbytes`` bytes, its elements of
        ``storage.dtype`` in order, each little-endian (the layout of a NumPy array and of
        safetensors data; bfloat16 is the upper half of a float32, complex numbers are
        (real, imaginary) pairs).

        The default reads the elements with the ``tolist`` kernel and packs them with
        :mod:`struct`."""
        return pack(flat_view(storage).tolist(), storage.dtype)

    def storage_from_bytes(self, data: bytes | bytearray, dtype: dtype, device: device) -> Storage:
        """A new storage of ``dtype`` on ``device`` holding ``data`` (host bytes in the layout
        :meth:`storage_to_bytes` returns; ``len(data)`` is a multiple of ``dtype.itemsize``,
        which the core checks). The backend may keep ``data`` when it is a ``bytearray``; the
        caller does not reuse it.

        The default unpacks the elements with :mod:`struct` and calls :meth:`from_data`."""
        flat = unpack(data, dtype)
        return self.from_data(flat, (len(flat),), dtype, device).untyped_storage()

    def clone_storage(self, storage: Storage) -> Storage:
        """A new storage on the same device holding a copy of ``storage`` (what
        ``copy.deepcopy`` of a tensor copies). The default goes through host memory with
        :meth:`storage_to_bytes` and :meth:`storage_from_bytes`; a backend that can copy
        on the device should."""
        return self.storage_from_bytes(
            self.storage_to_bytes(storage), storage.dtype, storage.device
        )


class CommBackend:
    """A communication backend as a plugin registered it (``register.comm_backend``).

    ``factory(world_size=..., rank=..., timeout=..., init_method=...)`` (and ``device_id=``
    when ``init_process_group`` got one, ``store=`` when it got a store or made one from
    ``init_method="file://..."``) makes the process group
    (``tensorcore.backend.ProcessGroup``); ``devices`` are the device types whose
    tensors it moves; ``unavailable_reason`` says why it cannot be used here (None when it
    can); ``plugin`` is the registering plugin's name; ``default_timeout`` is a group's
    timeout when ``init_process_group`` gets none (None: the frontend's, 30 minutes).
    """

    def __init__(
        self,
        name: str,
        factory: Callable[..., Any],
        devices: tuple[str, ...],
        unavailable_reason: str | None,
        plugin: str,
        default_timeout: timedelta | None = None,
    ) -> None:
        self.name, self.factory, self.devices = name, factory, devices
        self.unavailable_reason, self.plugin = unavailable_reason, plugin
        self.default_timeout = default_timeout

    def is_available(self) -> bool:
        """Whether this backend can make process groups on this machine."""
        return self.unavailable_reason is None

    def __repr__(self) -> str:
        state = "available" if self.is_available() else f"unavailable: {self.unavailable_reason}"
        return f"<communication backend {self.name!r} from plugin {self.plugin!r}, {state}>"


class Registrar:
    """The object a plugin's hooks receive; it records what the plugin registers.

    Nothing takes effect until all of the plugin's hooks have succeeded.
    """

    def __init__(self, plugin: str) -> None:
        self.plugin = plugin
        self.devices: list[DeviceInterface] = []
        self.layouts: list[tuple[str, int]] = []
        self.kernels: list[
            tuple[str, str, str, Callable[..., Any], frozenset[Any] | None, bool]
        ] = []
        self.derivatives: list[tuple[str, str, str, tuple[str, ...], Callable[..., Any]]] = []
        self.attributes: list[tuple[str, Any]] = []
        self.new_ops: list[Any] = []
        self.comm_backends: list[CommBackend] = []

    def device(self, interface: DeviceInterface) -> None:
        """Register a device type; ``interface.type`` names it."""
        if not isinstance(interface, DeviceInterface):
            raise TypeError(f"register.device() expects a DeviceInterface, got {interface!r}")
        self.devices.append(interface)

    def comm_backend(
        self,
        name: str,
        factory: Callable[..., Any],
        devices: Iterable[str] = ("cpu",),
        unavailable_reason: str | None = None,
        default_timeout: timedelta | None = None,
    ) -> None:
        """Register a communication backend called ``name`` for ``tc.distributed``.

        ``factory(world_size=..., rank=..., timeout=..., init_method=...)`` (and
        ``device_id=``, a device of ``devices``, when ``init_process_group`` got one; and
        ``store=``, a ``tensorcore.distributed.Store`` the ranks meet through, when it got
        a store or made one from ``init_method="file://..."``) returns
        a ``tensorcore.backend.ProcessGroup``; ``devices`` are the device types whose
        tensors it moves. Where the engine cannot run here (its library is missing), give
        ``unavailable_reason``, a sentence saying why and what to install.
        ``default_timeout`` (a ``datetime.timedelta``) is the ``timeout`` the factory gets
        when ``init_process_group`` is given none, where the engine's differs from the
        frontend's 30 minutes (PyTorch gives NCCL groups 10 minutes).
        """
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(
                f"register.comm_backend(): name must be an identifier such as 'mpi', got "
                f"{name!r} (plugin '{self.plugin}')"
            )
        if not callable(factory):
            raise TypeError(
                f"register.comm_backend(): factory must be callable, got "
                f"{type(factory).__name__} (plugin '{self.plugin}')"
            )
        if default_timeout is not None and not isinstance(default_timeout, timedelta):
            raise TypeError(
                f"register.comm_backend(): default_timeout must be a datetime.timedelta, got "
                f"{type(default_timeout).__name__} (plugin '{self.plugin}')"
            )
        self.comm_backends.append(
            CommBackend(
                name, factory, tuple(devices), unavailable_reason, self.plugin, default_timeout
            )
        )

    def layout(self, name: str, priority: int = 1) -> None:
        """Register a new layout called ``name`` (available as ``tensorcore.<name>``)."""
        self.layouts.append((name, priority))

    def kernel(
        self,
        op: str,
        device_type: str,
        layout: str | layouts.layout,
        fn: Callable[..., Any],
        dtypes: Iterable[dtype] | None = None,
        override: bool = False,
        *,
        direct: bool = False,
    ) -> None:
        """Register ``fn`` as the kernel of operator ``op`` for a device type and layout.

        ``device_type`` may be ``"*"`` for every device (used for layout-generic code such
        as the core's strided views). ``dtypes`` restricts the kernel to those dtypes: every
        tensor it receives, outputs included, must have one of them, or the call raises a
        ``TypeError`` naming the plugin. ``override=True`` replaces another plugin's kernel
        for the same triple, with a ``RuntimeWarning`` when the plugin loads.

        ``direct=True`` skips the operator's frontend for this kernel: the core checks,
        normalises and allocates nothing, and calls ``fn(*args)`` -- ``fn(*args, out=out)``
        for an ``out=`` call, ``fn(*args, out=self)`` for the in-place variant -- which
        returns the result. A layout whose results are not dense (a sparse layout) needs it,
        since the frontends allocate dense outputs. It changes nothing for ``direct``
        operators.
        """
        self._check_op(op, "kernel")
        if direct:
            from ..dispatch import DirectKernel

            fn = DirectKernel(fn)
        lname = layout.name if isinstance(layout, layouts.layout) else layout
        self.kernels.append(
            (op, device_type, lname, fn, None if dtypes is None else frozenset(dtypes), override)
        )

    def derivative(
        self,
        op: str,
        device_type: str,
        layout: str | layouts.layout,
        saves: str | Sequence[str],
        fn: Callable[..., Any],
    ) -> None:
        """Register a derivative rule for ``op`` on one (device type, layout) that replaces the
        generic one in ``tensorcore/ops/derivatives/`` (e.g. to keep gradients sparse).

        ``saves`` and ``fn`` follow the derivative table: ``saves`` names the parameters (or
        ``result``) the rule reads, space-separated or as a sequence of names (the form
        :func:`tensorcore.backend.generic_rule` returns), ``fn(ctx, grad)`` returns one
        gradient per tensor input.
        """
        self._check_op(op, "derivative")
        lname = layout.name if isinstance(layout, layouts.layout) else layout
        names = tuple(saves.split()) if isinstance(saves, str) else tuple(saves)
        self.derivatives.append((op, device_type, lname, names, fn))

    def _check_op(self, op: str, what: str) -> None:
        from ..dispatch import ops

        if op not in ops() and all(d.name != op for d in self.new_ops):
            raise ValueError(f"register.{what}(): unknown operator '{op}' (plugin '{self.plugin}')")

    def op(
        self,
        signature: str,
        tags: str = "",
        doc: str = "",
        *,
        frontend: str = "unstructured",
        promote: str = "same",
        method: bool = True,
        function: bool = True,
        inplace: bool = False,
        out: bool = False,
        **fields: Any,
    ) -> None:
        """Declare a new operator (e.g. ``to_dense`` for a sparse layout), exactly like an
        entry of ``tensorcore/ops/schema/``: it gets a ``tensorcore.<name>`` function and/or
        a ``Tensor`` method, dispatch entries and a derivative-table key. Its kernels are
        registered with :meth:`kernel` like any other; a differentiable one needs a
        :meth:`derivative` (or the ``nondifferentiable`` tag). ``fields`` are the other
        declaration fields (:class:`~tensorcore.ops.schema.OpDecl`): a ``structured`` or
        ``factory`` operator passes its ``meta_function``, others ``dtypes``, ``values``,
        ``masks``..."""
        from ..ops.schema import OpDecl

        self.new_ops.append(
            OpDecl(
                signature,
                frozenset(tags.split()),
                doc,
                frontend=frontend,
                promote=promote,
                method=method,
                function=function,
                inplace=inplace,
                out=out,
                **fields,
            )
        )

    def attribute(self, name: str, value: Any) -> None:
        """Expose ``value`` as ``tensorcore.<name>`` (a namespace such as ``tensorcore.cuda``
        or a factory such as ``tensorcore.sparse_coo_tensor``). Names the core defines, or
        that another plugin exposes, cannot be taken."""
        if not name.isidentifier() or name.startswith("_"):
            raise ValueError(f"register.attribute(): invalid name {name!r}")
        self.attributes.append((name, value))

    def ops(self) -> tuple[str, ...]:
        """Names of every declared operator: the core's, then those committed plugins
        declared (the built-in ones and those of earlier loads; an entry point loading in the
        same round commits only after every plugin's hooks have run)."""
        from ..dispatch import ops

        return tuple(ops())
