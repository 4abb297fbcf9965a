"""Committing what one plugin registered: validate everything, then apply; all or nothing.

A plugin's registrations reach many registries: the manager's device types and ``tensorcore``
attributes, the layout registry, the runtime operator table and each operator's kernels, the
derived ``tensorcore.<op>`` functions and ``Tensor`` methods, and autograd's derivative
overrides. :func:`commit` checks every registration against all of them before it changes
any, and :class:`Snapshot` puts them all back if applying still fails half-way (or if a
``KeyboardInterrupt`` stops loading), so nothing of a failed plugin remains.

The manager imports this module when plugins first load: it needs the operator API
(``ops._api``, ``autograd.step``), which itself uses the manager at every allocation.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

import tensorcore

from .. import _registry, dispatch, layouts
from .._tensor import Tensor
from ..autograd import step
from ..autograd._rule_check import check_rule
from ..devices import _DEVICE_RE
from ..ops import _api, frontends, functions
from ..ops.derivatives import Derivative
from ..ops.schema import OPS

if TYPE_CHECKING:
    from .registrar import DeviceInterface, Registrar

__all__ = ["Snapshot", "commit"]

Overridden = list[tuple[str, str, str, dispatch.KernelRecord]]


class Snapshot:
    """Every registry a plugin can change, copied, so that :meth:`restore` can undo a
    commit (or a whole load) exactly, whatever part of it ran."""

    def __init__(self, devices: dict[str, Any], attributes: dict[str, Any]) -> None:
        self.devices, self.attributes = devices, attributes
        self._devices, self._attributes = dict(devices), dict(attributes)
        table = dispatch.ops()
        self._ops = dict(table)
        self._kernels = {name: dict(op.registered) for name, op in table.items()}
        self._functions = dict(_api.FUNCTIONS)
        self._namespace = dict(vars(functions))
        self._tensor = dict(vars(Tensor))
        self._layouts = dict(layouts._layouts)
        self._derivatives = step.derivative_overrides_state()
        self._comm = dict(_registry.comm_backends)

    def restore(self) -> None:
        """Put every registry back as it was and drop every cache resolved since."""
        _reset(self.devices, self._devices)
        _reset(self.attributes, self._attributes)
        table = dispatch.ops()
        _reset(table, self._ops)
        for name, op in table.items():
            _reset(op.registered, self._kernels[name])
            op.forget_resolved()
        _reset(_api.FUNCTIONS, self._functions)
        _reset(vars(functions), self._namespace)
        for name in set(vars(Tensor)) - set(self._tensor):
            delattr(Tensor, name)
        for name, value in self._tensor.items():
            if vars(Tensor).get(name) is not value:
                setattr(Tensor, name, value)
        _reset(layouts._layouts, self._layouts)
        step.restore_derivative_overrides(self._derivatives)
        _reset(_registry.comm_backends, self._comm)
        # Allocators cached per device key would outlive a withdrawn device interface.
        frontends.forget_allocators()


def _reset(target: dict[Any, Any], saved: dict[Any, Any]) -> None:
    if target != saved:
        target.clear()
        target.update(saved)


def commit(
    reg: Registrar,
    devices: dict[str, DeviceInterface],
    attributes: dict[str, tuple[Any, str]],
    describe: Callable[[str], str],
) -> Overridden:
    """Make everything ``reg`` recorded take effect, or nothing of it.

    ``describe(plugin name)`` says where a plugin comes from, for clash messages. Returns the
    kernels that replaced another plugin's (``override=True``), as ``(op, device type, layout,
    replaced record)``, for the manager to report.
    """
    overridden = _validate(reg, devices, attributes, describe)
    snap = Snapshot(devices, attributes)
    try:
        _apply(reg, devices, attributes)
    except BaseException:
        snap.restore()
        raise
    return overridden


def _validate(
    reg: Registrar,
    devices: dict[str, DeviceInterface],
    attributes: dict[str, tuple[Any, str]],
    describe: Callable[[str], str],
) -> Overridden:
    """Raise on the first registration that cannot take effect; change nothing."""
    me = describe(reg.plugin)
    # Names the core defines at ``tensorcore.<name>`` (plugin attributes are not among them).
    core = vars(tensorcore)
    seen: set[str] = set()
    for iface in reg.devices:
        t = iface.type
        m = _DEVICE_RE.fullmatch(t) if isinstance(t, str) else None
        if m is None or m.group(2) is not None:
            raise ValueError(
                f"plugin '{reg.plugin}' registers a device interface whose type is {t!r}: "
                "set DeviceInterface.type to the device type's name (lower case letters, "
                "digits and '_'), e.g. 'mydev'"
            )
        if t in seen:
            raise RuntimeError(f"plugin '{reg.plugin}' registers the device type '{t}' twice")
        seen.add(t)
        old = devices.get(t)
        if old is not None:
            raise RuntimeError(
                f"device type '{t}' is registered by both {describe(_owner(old))} and {me}"
            )
    # Names that become ``tensorcore.<name>``: layouts, new operators' functions, attributes.
    exposed: dict[str, str] = {}

    def expose(name: str, what: str) -> None:
        # A core namespace that forwards to the plugin registering it (tensorcore.cuda) is
        # the one name a plugin attribute may share with the core.
        if name in core and getattr(core[name], "__plugin_attribute__", None) != name:
            kind = "module" if isinstance(core[name], ModuleType) else type(core[name]).__name__
            raise RuntimeError(
                f"plugin '{reg.plugin}' cannot replace tensorcore.{name} ({what}): the core "
                f"defines tensorcore.{name} (a {kind}); choose another name"
            )
        if name in attributes:
            raise RuntimeError(
                f"tensorcore.{name} is exposed by both {describe(attributes[name][1])} and "
                f"{me} ({what})"
            )
        old_layout = layouts.get_layout(name)
        if old_layout is not None:
            raise RuntimeError(
                f"tensorcore.{name} is the layout of {describe(old_layout.plugin)}; {me} cannot "
                f"take the name ({what})"
            )
        if name in exposed:
            raise RuntimeError(
                f"plugin '{reg.plugin}' exposes tensorcore.{name} twice ({exposed[name]} and "
                f"{what})"
            )
        exposed[name] = what

    for lname, priority in reg.layouts:
        if not isinstance(lname, str) or not lname.isidentifier():
            raise ValueError(f"plugin '{reg.plugin}': layout name must be an identifier, "
                             f"got {lname!r}")  # fmt: skip
        if not isinstance(priority, int):
            raise TypeError(f"plugin '{reg.plugin}': layout priority must be an int, "
                            f"got {priority!r}")  # fmt: skip
        old_layout = layouts.get_layout(lname)
        if old_layout is not None:
            raise RuntimeError(
                f"layout '{lname}' is registered by both {describe(old_layout.plugin)} and {me}"
            )
        if lname in exposed:
            raise RuntimeError(f"plugin '{reg.plugin}' registers the layout '{lname}' twice")
        expose(lname, "a layout")

    table = dispatch.ops()
    declared: set[str] = set()
    for decl in reg.new_ops:
        name = decl.name
        if name in declared:
            raise RuntimeError(f"plugin '{reg.plugin}' declares operator '{name}' twice")
        if name in table:
            # Two layouts' plugins that each declared a conversion would exclude each other.
            who = "tensorcore's own table" if name in OPS else "a plugin loaded before it"
            raise RuntimeError(
                f"plugin '{reg.plugin}' declares operator '{name}', which {who} already "
                f"declares: register kernels for it (register.kernel('{name}', device_type, "
                "layout, fn)) instead of declaring it again"
            )
        declared.add(name)
        if decl.function:
            expose(name, f"the function of operator '{name}'")
        methods = [name] * decl.method + [name + "_"] * decl.inplace
        for method in methods:
            if hasattr(Tensor, method):
                raise RuntimeError(
                    f"plugin '{reg.plugin}' cannot replace Tensor.{method} (declared by its "
                    f"operator '{name}')"
                )
    for name, _value in reg.attributes:
        expose(name, "an attribute")

    comm_seen: set[str] = set()
    for cb in reg.comm_backends:
        if cb.name in comm_seen:
            raise RuntimeError(
                f"plugin '{reg.plugin}' registers the communication backend '{cb.name}' twice"
            )
        comm_seen.add(cb.name)
        old_cb = _registry.comm_backends.get(cb.name)
        if old_cb is not None:
            raise RuntimeError(
                f"communication backend '{cb.name}' is registered by both "
                f"{describe(old_cb.plugin)} and {me}"
            )
    for op_name, *_rest in (*reg.kernels, *reg.derivatives):
        if op_name not in table and op_name not in declared:
            raise RuntimeError(f"plugin '{reg.plugin}': unknown operator '{op_name}'")
    new = {d.name: d for d in reg.new_ops}
    for op_name, _dev, _lay, saves, fn in reg.derivatives:
        decl = new[op_name] if op_name in new else table[op_name].decl
        try:
            check_rule(op_name, [p.name for p in decl.parsed.params], saves, fn)
        except ValueError as exc:
            raise ValueError(f"plugin '{reg.plugin}': {exc}") from None
    return dispatch.check_kernels(reg.kernels, reg.plugin)


def _apply(
    reg: Registrar, devices: dict[str, DeviceInterface], attributes: dict[str, tuple[Any, str]]
) -> None:
    for iface in reg.devices:
        iface._plugin = reg.plugin  # type: ignore[attr-defined]
        devices[iface.type] = iface
    for lname, priority in reg.layouts:
        layouts.register_layout(lname, priority, reg.plugin)
    for decl in reg.new_ops:
        # Into the runtime table (dispatch.ops()), not the core's table (ops.schema.OPS),
        # which stays the core's operators whatever the installed plugins declare.
        _api.build_one(decl)
        if decl.function:
            attributes[decl.name] = (_api.FUNCTIONS[decl.name], reg.plugin)
    dispatch.add_kernels(reg.kernels, reg.plugin)
    for name, value in reg.attributes:
        attributes[name] = (value, reg.plugin)
    for cb in reg.comm_backends:
        _registry.comm_backends[cb.name] = cb
    if reg.derivatives:
        step.add_derivative_overrides(
            [(op, dev, lay, Derivative(saves, fn)) for op, dev, lay, saves, fn in reg.derivatives]
        )


def _owner(iface: DeviceInterface) -> str:
    return getattr(iface, "_plugin", "?")
