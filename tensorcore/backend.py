"""The backend SPI: everything a device, layout or kernel package needs from the core.

This module is the public contract for backend authors (``docs/writing-a-backend.md``). A
backend imports from here, from :mod:`tensorcore` and from the other public modules
(``tensorcore.plugins``, ``tensorcore.autograd``, ``tensorcore.dtypes``, ``tensorcore.layouts``,
``tensorcore.random``, ``tensorcore.serialization``), never a ``_private`` name: those change
without notice, while what is here changes only with :data:`SPI_VERSION`.

A plugin module declares the SPI version it was written for::

    TENSORCORE_SPI = "1.3"

The manager refuses to load a plugin written for another major version, or for a newer minor
version than this core provides, with an error naming both versions. A plugin that declares
nothing is taken to be written for 1.0, the first version.

What it offers, by topic:

- **Building tensors**: :class:`Storage`, :func:`make_tensor`, :func:`contiguous_strides`,
  :func:`contiguous_tensor` (a storage and its contiguous tensor in one call, the allocator's
  fast path), :func:`empty` (allocate through a device's backend), :func:`from_native`.
- **Native arrays**: :func:`native` (a tensor's native array, made by its device's
  ``materialize`` and cached), :func:`write` (store a kernel's result, the one way to write
  on a device whose arrays are values), :func:`writing` (run a kernel that writes in place
  on such a device), :func:`persist` (let a lazy device cut the history
  of long-lived tensors), :func:`interface` (a device type's :class:`DeviceInterface`),
  :func:`bump_version` (record an in-place write a kernel made to a tensor other than its
  ``out``).
- **Dims and shapes**: :func:`wrap_dim`, :func:`normalize_dims`, :func:`broadcast_shapes`,
  :func:`check_shape`, :func:`solve_is_vector`, :func:`einsum_dtype`.
- **Errors**: :func:`dtype_name` (PyTorch's name of a dtype in messages), :func:`describe`,
  :func:`unsupported` (the ``NotImplementedError`` naming operator, devices, layouts and
  dtypes), :func:`checked` (the operators' argument checks for a plugin's own functions).
- **Operators and autograd**: ``ops``, the typed namespace of every operator of the core's
  table (``ops.where(...)``, ``ops.sum(...)``, including those without a ``tensorcore.<name>``
  function), :func:`op_parameters`, :func:`generic_rule` (the derivative
  table's rule of an operator, to wrap in a ``register.derivative`` rule),
  :class:`DerivativeContext` (what a rule receives), :func:`sum_to`, :class:`Function`.
- **What a backend runs**: :func:`op_frontend` (how an operator's kernel is called),
  :func:`resolved_kernels` (the kernel each operator runs for a device type and layout).
- **Random numbers**: :class:`Generator`, :func:`default_generator`, :func:`generator_for`
  (the generator a random kernel draws from, checked against its device).
- **Communication backends** (``docs/distributed.md``, "Writing a communication backend"):
  :class:`ProcessGroup` (what a ``register.comm_backend`` factory returns), :class:`Work`,
  :class:`ReduceOp`, :class:`DistBackendError` (also in ``tensorcore.distributed``, as in
  PyTorch), and what only a backend needs: :class:`AllreducePlan` and
  :class:`Disagreement` (repeated all-reduces), :data:`DEFAULT_TIMEOUT` (a group's default
  ``timeout``), :func:`spin` (the frontend's polling loop, bounded by a timeout) and
  :func:`timed_out` (the error of a collective whose timeout ran out).

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore import backend
>>> backend.SPI_VERSION
(1, 3)
>>> x = tc.arange(6.0).reshape(2, 3)
>>> backend.wrap_dim(-1, x.ndim), backend.normalize_dims([-1, 0], x.ndim)
(1, (0, 1))
>>> t = backend.make_tensor(
...     x.untyped_storage(), (3, 2), (1, 3), 0, x.dtype, x.device
... )  # x.t(), built by hand
>>> t.tolist()
[[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from . import _registry
from ._storage import INFERENCE, Storage
from ._tensor import _CONTIG, Tensor, _wrap_dim, contiguous_strides, make_tensor, torch_name
from .autograd import Function
from .autograd.step import Ctx as DerivativeContext
from .devices import device as _device
from .dispatch import KernelRecord, get_op
from .dispatch import ops as _runtime_ops
from .distributed._backend import (
    DEFAULT_TIMEOUT,
    AllreducePlan,
    Disagreement,
    DistBackendError,
    ProcessGroup,
    ReduceOp,
    Work,
    spin,
    timed_out,
)
from .dtypes import can_cast
from .layouts import strided
from .ops import functions as ops
from .ops._out import cast_error as _cast_error
from .ops._validate import check_shape as _check_shape
from .ops._validate import checked, factory_requires_grad
from .ops._validate import keep_message as _keep_message
from .ops.derivatives import DERIVATIVES, sum_to
from .ops.frontends import broadcast_shapes
from .ops.frontends import empty as _empty
from .ops.meta_functions import normalize_dims as _normalize_dims
from .ops.meta_linalg import einsum_dtype, solve_is_vector
from .plugins import CommBackend, DeviceInterface, Registrar
from .plugins.hookspecs import SPI_VERSION, hookimpl, spi_compatible
from .random import Generator, _note_draw, _vmap_levels
from .random import default_generator_of as default_generator

if TYPE_CHECKING:
    from collections.abc import Callable

    from .devices import device
    from .dtypes import dtype

__all__ = [
    "DEFAULT_TIMEOUT",
    "SPI_VERSION",
    "AllreducePlan",
    "CommBackend",
    "DerivativeContext",
    "DeviceInterface",
    "Disagreement",
    "DistBackendError",
    "Function",
    "Generator",
    "ProcessGroup",
    "ReduceOp",
    "Registrar",
    "Storage",
    "Tensor",
    "Work",
    "broadcast_shapes",
    "bump_version",
    "check_cast",
    "check_shape",
    "checked",
    "contiguous_strides",
    "contiguous_tensor",
    "default_generator",
    "describe",
    "dtype_name",
    "einsum_dtype",
    "empty",
    "factory_requires_grad",
    "from_native",
    "generator_for",
    "generic_rule",
    "hookimpl",
    "interface",
    "make_tensor",
    "native",
    "normalize_dims",
    "op_frontend",
    "op_parameters",
    "ops",
    "persist",
    "resize_storageless",
    "resolved_kernels",
    "solve_is_vector",
    "spi_compatible",
    "spin",
    "sum_to",
    "timed_out",
    "unsupported",
    "wrap_dim",
    "write",
    "writing",
]

_new = object.__new__


# ------------------------------------------------------------------ building tensors
def contiguous_tensor(
    data: Any,
    nbytes: int,
    shape: tuple[int, ...],
    dtype: dtype,
    device: device,
    native: Any = None,
) -> Tensor:
    """A new :class:`Storage` over ``data`` and the contiguous strided tensor of ``shape``
    that views all of it: what an allocator (``DeviceInterface.empty``) returns.

    ``native`` is the tensor's native array when the allocator already has it (the array
    it allocated), so that :func:`native` need not ask ``materialize`` for it. The result is
    the same as ``make_tensor(Storage(data, nbytes, device, dtype), shape,
    contiguous_strides(shape), 0, dtype, device, native)``, built without the two calls:
    every operator allocates its result through here, so it is the allocator's fast path
    (``tests/test_backend_spi.py`` compares the two slot by slot).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import backend
    >>> x = tc.zeros(2, 3)
    >>> t = backend.contiguous_tensor(x.untyped_storage().data, 24, (2, 3), tc.float32, x.device)
    >>> t.shape, t.stride(), t.storage_offset()
    (tensorcore.Size([2, 3]), (3, 1), 0)
    """
    st = _new(Storage)
    st.data = data
    st._nbytes = nbytes
    st.device = device
    st.dtype = dtype
    st.version = 0
    st.inference = INFERENCE[0] != 0 and INFERENCE[1]()  # (as Storage.__init__)
    t = _new(Tensor)
    t._storage = st
    t._shape = shape
    t._stride = _CONTIG.get(shape) or contiguous_strides(shape)
    t._offset = 0
    t._dtype = dtype
    t._device = device
    t._layout = strided
    t._native = native
    t._requires_grad = False
    t._grad_fn = t._grad = t._base = t._ag = t._version_counter = t._view_meta = None
    return t


def empty(shape: tuple[int, ...], dtype: dtype, device: device) -> Tensor:
    """An uninitialised contiguous tensor of ``shape`` and ``dtype`` on ``device``, allocated
    by that device's backend (``DeviceInterface.empty``): how a kernel makes a temporary or
    a result of a shape only it knows.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import backend
    >>> backend.empty((2, 2), tc.int64, tc.device("cpu")).shape
    tensorcore.Size([2, 2])
    """
    return _empty(shape, dtype, device)


def resize_storageless(t: Tensor, shape: tuple[int, ...]) -> None:
    """Give ``t``, a tensor without storage (a sparse layout's), the shape ``shape`` in
    place: the core's part of a layout's in-place resize (``sparse_resize_``), whose kernel
    replaces the native object itself. Strided tensors resize with ``resize_``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import backend
    >>> backend.resize_storageless(tc.zeros(2), (3,))
    Traceback (most recent call last):
    ...
    ValueError: resize_storageless() takes a tensor without storage; use resize_()
    """
    if t._storage is not None:
        raise ValueError("resize_storageless() takes a tensor without storage; use resize_()")
    t._shape = tuple(int(n) for n in shape)
    t._stride = (0,) * len(t._shape)


def from_native(array: Any, device: device | str) -> Tensor:
    """A tensor of ``device`` over a native array of its backend, sharing its memory: the
    inverse of :func:`native`, through ``DeviceInterface.from_native``.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore import backend
    >>> a = np.arange(3.0)
    >>> t = backend.from_native(a, "cpu")
    >>> a[0] = 7.0
    >>> t.tolist()
    [7.0, 1.0, 2.0]
    """
    dev = _device(device)
    return _registry.interface(dev).from_native(array, dev)


# ------------------------------------------------------------------ native arrays
def native(t: Tensor) -> Any:
    """The native array of a strided tensor: its device's ``materialize`` result, made on
    first use and cached on the tensor (a view of the storage, never a copy); for a
    tensor of another layout, the object its layout keeps.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import backend
    >>> type(backend.native(tc.ones(2))).__name__
    'ndarray'
    """
    return t._arr()


def write(out: Tensor, value: Any) -> None:
    """Store ``value`` (a native array of ``out``'s shape, or a scalar) as ``out``'s
    elements, through its device's ``DeviceInterface.write``: for a device whose arrays are
    values (``mutable_arrays`` false) this replaces the storage's array, so every view of
    it sees the write; elsewhere it assigns into ``out``'s native array.

    Examples
    --------
    >>> import numpy as np
    >>> import tensorcore as tc
    >>> from tensorcore import backend
    >>> x = tc.zeros(2, 3)
    >>> backend.write(x[:, 1], np.array([5.0, 6.0], dtype=np.float32))
    >>> x.tolist()
    [[0.0, 5.0, 0.0], [0.0, 6.0, 0.0]]
    """
    _registry.interface(out._device).write(out, value)


@contextmanager
def writing(*tensors: Tensor | None) -> Iterator[None]:
    """Run a kernel written for mutable arrays on a device whose arrays are values whose
    objects the kernel may still update in place (dask arrays: ``o[...] = v`` and ``out=``
    replace the array object's graph).

    Inside the block, each tensor's :func:`native` array is one array object, made on entry
    from the storage; the kernel writes into it as it would into a NumPy array. On a normal
    exit each such array is stored with :func:`write`, so every alias of the storage sees it;
    after an exception nothing is stored (the tensors keep their values). On a device with
    mutable arrays it does nothing: writes reach the storage directly. ``None`` entries are
    skipped (an optional output).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import backend
    >>> x = tc.zeros(3)
    >>> with backend.writing(x):
    ...     backend.native(x)[...] = 2.0
    >>> x.tolist()
    [2.0, 2.0, 2.0]
    """
    pinned = []
    for t in tensors:
        if t is None or t._storage is None:
            continue
        iface = _registry.interface(t._device)
        if iface.mutable_arrays:
            continue
        arr = iface.materialize(t)
        t._native = arr
        pinned.append((iface, t, arr))
    try:
        yield
    finally:
        for _, t, _ in pinned:
            t._native = None
    for iface, t, arr in pinned:
        iface.write(t, arr)


def persist(*tensors: Tensor) -> None:
    """Ask the devices of ``tensors`` to compute what is pending for their storages and keep
    the results (``DeviceInterface.persist``): a lazy device's arrays then stop carrying
    the history that made them. Optimizers do this for their parameters and state after
    every step; call it for other long-lived tensors (running statistics, accumulators).
    A no-op on eager devices.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import backend
    >>> backend.persist(tc.ones(2), tc.zeros(3))
    """
    by_type: dict[str, tuple[DeviceInterface, dict[int, Storage]]] = {}
    for t in tensors:
        st = t._storage
        if st is None:
            continue
        entry = by_type.get(t._device.type)
        if entry is None:
            entry = by_type[t._device.type] = (_registry.interface(t._device), {})
        entry[1][id(st)] = st
    for iface, storages in by_type.values():
        iface.persist(list(storages.values()))  # (a no-op on eager devices)


def interface(device: device | str) -> DeviceInterface:
    """The :class:`DeviceInterface` of ``device``'s type; a ``RuntimeError`` saying what to
    install (or why the device is unavailable) when there is none.

    Examples
    --------
    >>> from tensorcore import backend
    >>> backend.interface("cpu").type
    'cpu'
    """
    iface: DeviceInterface = _registry.interface(_device(device))
    return iface


def bump_version(t: Tensor) -> None:
    """Record an in-place write to ``t`` (autograd then refuses to use an older saved copy
    of it). The core does this for a kernel's ``out`` and for ``self`` of an in-place
    operator; a kernel calls it for any other tensor it writes (``batch_norm``'s running
    statistics).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import backend
    >>> x = tc.zeros(2)
    >>> backend.bump_version(x)
    >>> x._version
    1
    """
    t._bump_version()


# ------------------------------------------------------------------ dims and shapes
def wrap_dim(dim: int, ndim: int) -> int:
    """``dim`` as a non-negative index into ``ndim`` dims (a 0-d tensor takes 0 and -1), or
    PyTorch's ``IndexError`` naming the range.

    Examples
    --------
    >>> from tensorcore import backend
    >>> backend.wrap_dim(-1, 3)
    2
    """
    return _wrap_dim(dim, ndim)


def normalize_dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """A reduction's ``dim`` argument as a sorted tuple of non-negative dims: ``None`` and
    ``()`` mean every dim; repeated dims are a ``RuntimeError``, as in PyTorch.

    Examples
    --------
    >>> from tensorcore import backend
    >>> backend.normalize_dims(None, 2), backend.normalize_dims(-1, 2)
    ((0, 1), (1,))
    """
    return _normalize_dims(dim, ndim)


def check_shape(op: str, shape: Sequence[int]) -> None:
    """PyTorch's ``RuntimeError`` for sizes whose product does not fit in int64, naming
    ``op``; negative sizes are the caller's to refuse.

    Examples
    --------
    >>> from tensorcore import backend
    >>> backend.check_shape("mydev_empty", (2, 3))
    """
    _check_shape(op, tuple(shape))


# ------------------------------------------------------------------ errors
def dtype_name(d: dtype) -> str:
    """PyTorch's name of a dtype in its error messages (``Float``, ``Long``, ``ComplexFloat``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import backend
    >>> backend.dtype_name(tc.float32), backend.dtype_name(tc.int64)
    ('Float', 'Long')
    """
    return torch_name(d)


def check_cast(dtype: dtype, to: dtype, name: str = "") -> None:
    """Raise PyTorch's ``RuntimeError`` unless a result of ``dtype`` may be written into a
    tensor of dtype ``to`` (an ``out=`` argument, or ``self`` of an in-place call, ``name``
    being then ``op_``): the check a kernel that writes its own result makes, in the words
    the core's out= and in-place checks use.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import backend
    >>> backend.check_cast(tc.int64, tc.float32)  # (an integer result into floats: fine)
    >>> backend.check_cast(tc.float32, tc.int64, "add_")
    Traceback (most recent call last):
        ...
    RuntimeError: result type Float can't be cast to the desired output type Long (in add_)
    """
    if not can_cast(dtype, to):
        raise _cast_error(name, dtype, to)


def describe(t: Any) -> str:
    """A tensor (or any value) as error messages name it: its dtype, shape, device and
    layout.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import backend
    >>> backend.describe(tc.zeros(2, 3))
    'float32 tensor of shape [2, 3] on cpu (strided)'
    >>> backend.describe(1.5)
    'float'
    """
    if not isinstance(t, Tensor):
        return type(t).__name__
    return f"{t._dtype.name} tensor of shape {list(t._shape)} on {t._device} ({t._layout.name})"


def unsupported(op: str, *args: Any, why: str = "", hint: str = "") -> NotImplementedError:
    """The ``NotImplementedError`` a kernel raises (``raise backend.unsupported(...)``) for
    arguments it cannot take: it names the operator, each tensor argument's dtype, shape,
    device and layout, why, and what to do instead.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import backend
    >>> exc = backend.unsupported("cholesky", tc.zeros(2, 2), why="no LAPACK", hint="use .cpu()")
    >>> for part in str(exc).split(": "):
    ...     print(part)
    cholesky
    not supported for (float32 tensor of shape [2, 2] on cpu (strided))
    no LAPACK; use .cpu()
    """
    parts = ", ".join(describe(a) for a in args if isinstance(a, Tensor))
    msg = f"{op}: not supported for ({parts})"
    if why:
        msg += f": {why}"
    if hint:
        msg += f"; {hint}"
    return NotImplementedError(msg)


# ------------------------------------------------------------------ operators and autograd
def op_parameters(op: str) -> tuple[str, ...]:
    """The parameter names of an operator's signature, in order (``out`` excluded): how a
    kernel that forwards its arguments to other operators names them.

    Examples
    --------
    >>> from tensorcore import backend
    >>> backend.op_parameters("round")
    ('self', 'decimals')
    """
    return tuple(p.name for p in get_op(op).decl.parsed.params)


def generic_rule(op: str) -> tuple[tuple[str, ...], Callable[..., Any]]:
    """The derivative table's rule of ``op``: ``(saves, fn)``, with ``fn(ctx, grad)``
    returning one gradient per tensor input. A ``register.derivative`` rule that adapts the
    generic one (fitting sparse gradients, say) calls it and saves what it saves.

    Examples
    --------
    >>> from tensorcore import backend
    >>> saves, fn = backend.generic_rule("mul")
    >>> saves
    ('self:if=other', 'other:if=self')
    """
    rule = DERIVATIVES[op]
    return rule.saves, rule.fn


# ------------------------------------------------------------------ random numbers
def generator_for(generator: Generator | None, device: device) -> Generator:
    """The generator a random kernel of ``device`` draws from: ``generator`` when the caller
    passed one (the operators' ``generator=`` argument), else the device type's default
    (:func:`default_generator`); PyTorch's ``RuntimeError`` when the caller's generator
    belongs to another device type.

    A backend keeps its random state in ``generator.state`` (``None`` until first used, and
    after ``manual_seed``): it makes its own state object from ``generator.initial_seed()``
    when ``state`` is not one of its own, and draws from it (so a reseeded generator, whose
    ``state`` is reset, starts a fresh stream).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import backend
    >>> g = backend.generator_for(None, tc.device("cpu"))
    >>> g is backend.default_generator("cpu")
    True
    """
    g = generator if generator is not None else default_generator(device.type)
    if g.device.type != device.type:
        raise RuntimeError(
            f"Expected a '{device.type}' device type for generator but found '{g.device.type}'"
        )
    if _vmap_levels.levels:  # (inside tc.func.vmap: its randomness= rules the draw)
        try:
            _note_draw(g)
        except RuntimeError as exc:
            _keep_message(exc)  # (vmap's error, as PyTorch words it: no operator's name)
            raise
    return g


# ------------------------------------------------------------------ what a backend runs
def op_frontend(op: str) -> str:
    """The frontend kind of an operator: what the core does before its kernel runs, and so
    how the kernel is called (``docs/writing-a-backend.md``, "Kernel calling conventions").

    ``"pointwise"``, ``"reduction"``, ``"structured"`` and ``"factory"`` operators have their
    outputs allocated by the core (with the right shape, dtype and strides) and their kernel
    called as ``kernel(out, *args)``; an ``"unstructured"`` operator's kernel is called as
    ``kernel(*args)`` and returns its result. A backend that registers kernels by kind (a
    device with no data, a tracing or counting backend) reads it for each name of
    ``register.ops()``. A ``ValueError`` for an unknown operator.

    Examples
    --------
    >>> from tensorcore import backend
    >>> [backend.op_frontend(op) for op in ("add", "sum", "softmax", "full", "tolist")]
    ['pointwise', 'reduction', 'structured', 'factory', 'unstructured']
    """
    frontend: str = get_op(op).decl.frontend
    return frontend


def resolved_kernels(device_type: str, layout: str = "strided") -> dict[str, KernelRecord]:
    """The kernel each operator of the runtime table runs for ``(device_type, layout)``.

    Every operator of :func:`tensorcore.dispatch.ops` (the core's and those plugins declare)
    whose lookup for the key finds a kernel -- exact, then ``*/layout``, ``device_type/*`` and
    ``*/*`` -- maps to that kernel's :class:`~tensorcore.dispatch.KernelRecord`. A record whose
    ``device_type`` or ``layout`` is ``"*"`` is a wildcard kernel another plugin wrote for
    every device (the core's views and composites): the key reaches it without claiming it.
    Loads the plugins first.

    Parameters
    ----------
    device_type : str
        A device type name (``"cpu"``), or ``"*"``.
    layout : str
        A layout name, ``"strided"`` by default.

    Returns
    -------
    dict
        Operator name to kernel record, in the runtime table's order.

    Examples
    --------
    >>> from tensorcore import backend
    >>> kernels = backend.resolved_kernels("cpu")
    >>> kernels["add"].plugin, kernels["transpose"].plugin, kernels["transpose"].device_type
    ('cpu', 'views', '*')
    """
    _registry.load()
    found: dict[str, KernelRecord] = {}
    for name, op in _runtime_ops().items():
        rec = op.record((device_type, layout))
        if rec is not None:
            found[name] = rec
    return found
