"""The dispatch registry: (operator, device type, layout) -> kernel.

Plugins fill it once at load time. A call looks its kernel up in the operator's resolved
table -- one dict lookup keyed by ``(device type, layout)`` -- and only on a miss (the first call
for that key) resolves wildcards, loads plugins and caches the result. No pluggy call, no
entry-point scan and no ``inspect`` happen per call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import _registry, layouts
from .devices import device
from .dtypes import all_dtypes

if TYPE_CHECKING:
    from .ops.schema import OpDecl

__all__ = [
    "FRESH",
    "DirectKernel",
    "KernelRecord",
    "Op",
    "coverage",
    "explain",
    "get_op",
    "ops",
    "overrides",
]

ANY = "*"
#: Every dtype: ``Op.dtypes_ok`` is this very object for operators that take them all.
ALL_DTYPES = frozenset(all_dtypes)
#: A resolved kernel -> its ``fresh`` variant, for the kernels that have one (an elementwise
#: kernel that can also make its result itself: see :meth:`Op.resolve`). Keyed by the
#: kernel object, so that a kernel wrapped or replaced in ``Op.table`` (a dtype guard, a
#: test's spy, a profiler's wrapper) has none and runs as registered.
FRESH: dict[Callable[..., Any], Callable[..., Any]] = {}


class DirectKernel:
    """A kernel registered with ``direct=True`` (see :meth:`Registrar.kernel
    <tensorcore.plugins.Registrar.kernel>`): the operator's frontend does not run for it.

    The frontends hand such a kernel the caller's arguments unchanged -- ``fn(*args)``,
    ``fn(*args, out=out)`` for an ``out=`` call, ``fn(*args, out=self)`` for the in-place
    variant -- and return what it returns. A layout whose results are not dense strided
    tensors (a sparse layout) needs this: the frontends allocate dense outputs.
    """

    __slots__ = ("__name__", "fn")

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.__name__ = getattr(fn, "__name__", repr(fn))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<direct kernel {self.__name__}>"


@dataclass(frozen=True)
class KernelRecord:
    """A registered kernel and where it came from.

    ``overrides`` is the record of another plugin that this one replaced with
    ``override=True`` (None when the key had no kernel before).
    """

    fn: Callable[..., Any]
    plugin: str
    device_type: str
    layout: str
    dtypes: frozenset[Any] | None = None
    overrides: KernelRecord | None = None


class Op:
    """The runtime entry of one declared operator.

    Its slots belong to three concerns, each filled by its own layer:

    * dispatch (this module): ``decl``, ``name``, ``registered`` (the kernels plugins
      registered) and ``table`` (the resolved-key cache a call looks its kernel up in);
    * the call path (``ops/frontends.bind``): ``frontend`` and the declaration's facts the
      per-call code reads -- ``tensor_pos``, ``list_pos``, ``n_tensor_args``, ``scalars``,
      ``dtypes_ok``, ``fast_dtypes``, ``fast_result``, ``fast_extra``, ``meta_function``,
      ``result_type``; and ``lane`` and ``lane_inplace``, the operator's one-function
      entries for plain calls (``ops/_lanes.py``), or None, and ``lane_keys``, what the
      pointwise lanes derived from ``table`` per (dtype, device, layout) and the factory
      lanes per arguments (kernel, shape, dtype, allocator). They are copies of
      what the declaration says, kept flat on the entry because an attribute hop costs a
      measurable part of a small call;
    * autograd (``autograd/step.py``): ``autograd``, its per-dispatch-key cache of rules.
    """

    __slots__ = (
        "autograd",
        "composite",
        "decl",
        "differentiable",
        "dtypes_ok",
        "fast_dtypes",
        "fast_extra",
        "fast_result",
        "frontend",
        "lane",
        "lane_inplace",
        "lane_keys",
        "list_pos",
        "meta_function",
        "n_tensor_args",
        "name",
        "registered",
        "result_type",
        "scalars",
        "table",
        "tensor_pos",
    )

    def __init__(self, decl: OpDecl) -> None:
        self.decl = decl
        self.name = decl.name
        self.registered: dict[tuple[str, str], KernelRecord] = {}
        # (device type, layout name) -> callable; filled lazily by `resolve`.
        self.table: dict[tuple[str, str], Callable[..., Any]] = {}
        self.differentiable = decl.differentiable
        self.composite = "composite" in decl.tags
        # The call path's facts; ``ops.frontends.bind`` fills them before the first call.
        self.frontend: Callable[..., Any] | None = None
        self.lane: Callable[..., Any] | None = None
        self.lane_inplace: Callable[..., Any] | None = None
        # (dtype, device key, layout) -> (kernel, its fresh variant, allocator): a pointwise
        # lane's checks of a combination it took before, as one lookup (``ops/_lanes.py``);
        # emptied with ``table`` (``forget_resolved``), whose kernels it holds.
        self.lane_keys: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self.tensor_pos = decl.parsed.tensor_positions
        self.list_pos = decl.parsed.tensor_list_positions
        # 1 or 2: number of tensor parameters when there is no tensor list (fast call path).
        self.n_tensor_args = 0 if self.list_pos else len(self.tensor_pos)
        self.scalars: frozenset[type] = frozenset()
        self.dtypes_ok: frozenset[Any] = ALL_DTYPES
        self.fast_dtypes: frozenset[Any] = frozenset()
        self.fast_result: Any = None
        self.fast_extra: frozenset[type] = frozenset()
        self.meta_function = decl.meta_function
        self.result_type: Any = None
        # Autograd's per-dispatch-key cache (rule, save plan), filled by autograd.step.
        self.autograd: dict[tuple[str, str], Any] = {}

    def record(self, key: tuple[str, str]) -> KernelRecord | None:
        """The kernel record a key resolves to: exact, then any device, then any layout."""
        _registry.load()
        dev, lay = key
        for k in ((dev, lay), (ANY, lay), (dev, ANY), (ANY, ANY)):
            rec = self.registered.get(k)
            if rec is not None:
                return rec
        return None

    def resolve(self, key: tuple[str, str], dtypes: tuple[Any, ...] = ()) -> Callable[..., Any]:
        """Find, cache and return the kernel for ``key``; raise a helpful error if none."""
        rec = self.record(key)
        if rec is None:
            iface = _registry.devices.get(key[0])
            if iface is None and key[0] != ANY:
                _registry.interface(device(key[0]))  # raises with the install hint
            if iface is not None and iface.unavailable_reason is not None:
                reason = iface.unavailable_reason
                raise RuntimeError(f"device '{key[0]}' is not available: {reason}")
            raise NotImplementedError(_missing_message(self, key, dtypes))
        fn = rec.fn
        direct = isinstance(fn, DirectKernel)
        if (
            isinstance(fn, DirectKernel)
            and self.decl.frontend == "unstructured"
            and not (self.composite and self.decl.inplace)
        ):
            # The operator's own convention already has no frontend. (A composite's in-place
            # variant copies its result into ``self``, unless the kernel is direct: the
            # frontend needs to know, so that the kernel gets ``out=self``.)
            fn = fn.fn
            direct = False
        if rec.dtypes is not None:
            fn = _dtype_guard(self, rec, direct)
        if direct and not isinstance(fn, DirectKernel):
            fn = DirectKernel(fn)
        # A pointwise kernel may carry ``fresh(shape, dtype, *args)``: the result computed
        # into new memory of the backend's choosing, returned as a new contiguous tensor of
        # that shape and dtype (or None: the caller then allocates and runs the kernel). The
        # lanes use it for a small out-of-place result, where allocating and computing in one
        # array-library call is a fifth of the call (writing-a-backend.md, "fresh results").
        fresh = getattr(fn, "fresh", None)
        if fresh is not None and fn is rec.fn:
            FRESH[fn] = fresh
        self.table[key] = fn
        return fn

    def forget_resolved(self) -> None:
        """Drop what was resolved from the registrations: the kernels of ``table`` and what
        the lanes derived from them (``lane_keys``); the next call resolves anew."""
        self.table.clear()
        self.lane_keys.clear()

    def __repr__(self) -> str:
        return f"<op {self.name}>"


def _dtype_guard(op: Op, rec: KernelRecord, direct: bool = False) -> Callable[..., Any]:
    allowed = rec.dtypes
    inner = rec.fn.fn if isinstance(rec.fn, DirectKernel) else rec.fn
    assert allowed is not None

    def refuse(d: Any) -> None:
        raise TypeError(
            f"{op.name}: the '{rec.device_type}' kernel from plugin '{rec.plugin}' "
            f"does not support dtype {d.name} "
            f"(supported: {', '.join(sorted(x.name for x in allowed))})"
        )

    # Every tensor the kernel receives is checked, outputs included: a frontend hands the
    # kernel the caller's ``out=`` (or ``self`` of an in-place call) in any dtype the result
    # can be cast to, and a factory kernel receives nothing but its ``out``.
    def guarded(*args: Any, **kwargs: Any) -> Any:
        for a in (*args, *kwargs.values()):
            if a.__class__ is tuple or a.__class__ is list:
                for x in a:
                    d = getattr(x, "_dtype", None)
                    if d is not None and d not in allowed:
                        refuse(d)
            else:
                d = getattr(a, "_dtype", None)
                if d is not None and d not in allowed:
                    refuse(d)
        return inner(*args, **kwargs)

    return guarded


def _missing_message(op: Op, key: tuple[str, str], dtypes: tuple[Any, ...]) -> str:
    dev, lay = key
    have = sorted(f"{d}/{l}" for d, l in op.registered)
    dt = f" (dtypes: {', '.join(d.name for d in dtypes)})" if dtypes else ""
    msg = (
        f"Could not run '{op.name}' with arguments from the '{dev}' device and '{lay}' layout{dt}: "
        f"no installed backend registers a kernel for it. "
        f"It is available for: {', '.join(have) or 'no device/layout'}. "
        f"Installed backends: {_registry.installed_summary()}."
    )
    known_dev = dev in _registry.devices
    if not known_dev:
        msg += f" To use the '{dev}' device, {_registry.install_hint(dev)}."
    if layouts.get_layout(lay) is None:
        msg += f" To use the '{lay}' layout, {_registry.install_hint(lay)}."
    elif lay != "strided" and op.record((dev, "strided")) is not None:
        # What to do: every layout converts its tensors to strided ones (the contract of
        # "the minimum a layout provides"), where the operator runs.
        msg += (
            f" The {lay} layout has no '{op.name}': convert the tensor with .to_dense() "
            f"to run it on the dense ({dev}/strided) form."
        )
    return msg


_OPS: dict[str, Op] = {}


def ops() -> dict[str, Op]:
    """Every operator's runtime entry, by name."""
    if not _OPS:
        from .ops.schema import OPS

        for name, decl in OPS.items():
            _OPS[name] = Op(decl)
    return _OPS


def get_op(name: str) -> Op:
    """The runtime entry of operator ``name``."""
    try:
        return ops()[name]
    except KeyError:
        raise ValueError(f"unknown operator '{name}'") from None


def check_kernels(
    kernels: list[tuple[Any, ...]], plugin: str
) -> list[tuple[str, str, str, KernelRecord]]:
    """Raise if any registration clashes with an existing one and has no ``override``.

    Returns the registrations that replace another plugin's kernel, as ``(op, device type,
    layout, replaced record)``. Operators not in the table yet (declared by the same plugin)
    have no kernels to clash with.
    """
    seen: set[tuple[str, str, str]] = set()
    table = ops()
    replaced = []
    for name, dev, lay, _fn, _dtypes, override in kernels:
        k = (name, dev, lay)
        if k in seen:
            raise RuntimeError(f"plugin '{plugin}' registers the kernel {name}[{dev}, {lay}] twice")
        seen.add(k)
        op = table.get(name)
        old = None if op is None else op.registered.get((dev, lay))
        if old is None:
            continue
        if not override:
            raise RuntimeError(
                f"kernel {name}[{dev}, {lay}] is registered by both plugin '{old.plugin}' and "
                f"plugin '{plugin}'; pass override=True to replace it deliberately"
            )
        replaced.append((name, dev, lay, old))
    return replaced


def add_kernels(kernels: list[tuple[Any, ...]], plugin: str) -> None:
    """Record validated registrations and drop every cached resolution.

    A registration that replaces another plugin's kernel keeps the replaced record in
    :attr:`KernelRecord.overrides`.
    """
    table = ops()
    for name, dev, lay, fn, dtypes, _override in kernels:
        reg = table[name].registered
        reg[dev, lay] = KernelRecord(fn, plugin, dev, lay, dtypes, reg.get((dev, lay)))
    for op in table.values():
        op.forget_resolved()


def overrides() -> list[tuple[str, KernelRecord]]:
    """Every kernel that replaced another plugin's (``override=True``), as ``(operator,
    record)``; ``record.overrides`` is the replaced one.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.dispatch.overrides()  # the installed backends replace no one's kernels
    []
    """
    _registry.load()
    return [
        (name, rec)
        for name, op in ops().items()
        for rec in op.registered.values()
        if rec.overrides is not None
    ]


def explain(op_name: str, *args: Any, **kwargs: Any) -> str:
    """Say which kernel, from which plugin, a call of ``op_name`` with these arguments runs.

    Examples
    --------
    >>> import tensorcore as tc
    >>> print(tc.explain("add", tc.ones(2), tc.ones(2)))
    add[cpu, strided] -> kernel 'add' from plugin 'cpu'
    """
    from ._tensor import Tensor

    if not isinstance(op_name, str):
        raise TypeError(f"explain(): argument 'op_name' must be str, not {type(op_name).__name__}")
    try:
        op = get_op(op_name)
    except ValueError as exc:
        raise ValueError(f"explain(): {exc}") from None
    found = [a for a in args if isinstance(a, Tensor)]
    for a in args:
        if isinstance(a, (list, tuple)):
            found += [t for t in a if isinstance(t, Tensor)]
    if found:
        dev = found[0].device.type
        lay = max((t.layout for t in found), key=lambda x: x.priority).name
    else:
        from .devices import get_default_device

        d = kwargs.get("device")
        dev = device(d).type if d is not None else get_default_device().type
        lay = "strided"
    rec = op.record((dev, lay))
    if rec is None:
        return f"{op_name}[{dev}, {lay}] -> no kernel: " + _missing_message(op, (dev, lay), ())
    notes = []
    if (rec.device_type, rec.layout) != (dev, lay):
        notes.append(f"registered as [{rec.device_type}, {rec.layout}]")
    if rec.overrides is not None:
        notes.append(f"overrides plugin '{rec.overrides.plugin}'")
    where = f" ({'; '.join(notes)})" if notes else ""
    fname = getattr(rec.fn, "__name__", repr(rec.fn))
    return f"{op_name}[{dev}, {lay}] -> kernel '{fname}' from plugin '{rec.plugin}'{where}"


def coverage() -> dict[str, dict[str, str]]:
    """Operator x (device/layout) -> plugin name, for every registered kernel."""
    _registry.load()
    return {
        name: {f"{d}/{l}": rec.plugin for (d, l), rec in op.registered.items()}
        for name, op in ops().items()
    }
