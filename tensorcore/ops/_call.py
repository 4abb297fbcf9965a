"""The per-call path: dispatch key, device check, autograd step, frontend, kernel.

Everything here runs on every operator call, so it is written for speed: a loop over the
tensor arguments, one dict lookup for the kernel, and nothing that inspects or imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._tensor import Tensor
from ..autograd import grad_mode
from ..layouts import strided

if TYPE_CHECKING:
    from ..dispatch import Op

__all__ = ["call", "call_inplace", "set_autograd_step"]

_gm = grad_mode._state
# Installed by tensorcore.autograd: ``step(op, kernel, args, out, device, inplace, key)``.
_autograd_step: Any = None


_mutation_check: Any = None
_SCALARS = frozenset({int, float, bool, complex})


def set_autograd_step(step: Any, debug: Any = None) -> None:
    """Install the autograd dispatch step (done once by ``tensorcore.autograd``)."""
    global _autograd_step, _mutation_check
    _autograd_step = step
    _mutation_check = debug


def _device_error(op: Op, a: Any, b: Any) -> RuntimeError:
    return RuntimeError(
        f"Expected all tensors to be on the same device, but found at least two devices, "
        f"{a} and {b}! (when checking arguments for {op.name})"
    )


def _scan(op: Op, args: tuple[Any, ...]) -> tuple[Any, Any, bool, tuple[Any, ...]]:
    """Device, layout and requires-grad of the tensor arguments (slow path: lists, mixing)."""
    dev = None
    lay = strided
    rg = False
    args_l: list[Any] | None = None
    tensors: list[Tensor] = []
    for i in op.tensor_pos:
        a = args[i]
        if isinstance(a, Tensor):
            tensors.append(a)
    for i in op.list_pos:
        seq = args[i]
        if seq is None:
            continue
        if isinstance(seq, Tensor) or not isinstance(seq, (list, tuple)):
            name = op.decl.parsed.params[i].name
            raise TypeError(
                f"{op.name}(): argument '{name}' must be a tuple or list of Tensors, "
                f"not {type(seq).__name__}"
            )
        for a in seq:
            if isinstance(a, Tensor):
                tensors.append(a)
    for a in tensors:
        d = a._device
        if dev is None:
            dev = d
        elif d is not dev and d != dev:
            # PyTorch lets zero-dim CPU tensors take part in calls on any device.
            if d.type == "cpu" and not a._shape:
                continue
            if dev.type == "cpu" and tensors[0] is not a and not tensors[0]._shape:
                dev = d
                continue
            raise _device_error(op, dev, d)
        if a._layout.priority > lay.priority:
            lay = a._layout
        if a._requires_grad:
            rg = True
    if dev is not None and len(tensors) > 1:
        # Move zero-dim CPU tensors that met another device onto it.
        for i in op.tensor_pos:
            a = args[i]
            if isinstance(a, Tensor) and a._device != dev:
                if args_l is None:
                    args_l = list(args)
                args_l[i] = a.to(dev)  # type: ignore[attr-defined]
    return dev, lay, rg, tuple(args_l) if args_l is not None else args


def call(op: Op, args: tuple[Any, ...], out: Any = None) -> Any:
    """Run operator ``op`` on ``args`` (in signature order), writing to ``out`` if given."""
    npos = op.npos
    if npos == 1:
        a = args[op.tensor_pos[0]]
        if a.__class__ is Tensor:
            dev, lay, rg = a._device, a._layout, a._requires_grad
        else:
            dev, lay, rg, args = _scan(op, args)
    elif npos == 2:
        # Fast path for the common binary case: two tensor parameters, no tensor lists.
        i, j = op.tensor_pos
        a, b = args[i], args[j]
        if a.__class__ is Tensor:
            dev = a._device
            lay = a._layout
            rg = a._requires_grad
            if b.__class__ is Tensor:
                if b._device is not dev or b._layout is not lay:
                    dev, lay, rg, args = _scan(op, args)
                elif b._requires_grad:
                    rg = True
        elif b.__class__ is Tensor:
            dev, lay, rg = b._device, b._layout, b._requires_grad
        else:
            dev, lay, rg, args = _scan(op, args)
    else:
        dev, lay, rg, args = _scan(op, args)
    if dev is None:
        dev, lay = _factory_device(op, args)
    key = (dev.type, lay.name)
    kernel = op.table.get(key)
    if kernel is None:
        kernel = op.resolve(key, tuple(a._dtype for a in args if isinstance(a, Tensor)))
    if out is not None:
        _check_out(op, out, dev)
    if rg and _gm.enabled and _autograd_step is not None:
        res = _autograd_step(op, kernel, args, out, dev, False, key)
    else:
        res = op.frontend(op, kernel, args, out, dev, False)  # type: ignore[misc]
    if out is not None:
        # A write into out= is an in-place write: autograd must see the new version.
        for o in out if isinstance(out, tuple) else (out,):
            o._bump_version()
    return res


def call_inplace(op: Op, args: tuple[Any, ...]) -> Any:
    """Run the in-place variant ``op_`` of ``op``: the result is written into ``args[0]``."""
    self = args[0]
    if self.__class__ is not Tensor:
        if not isinstance(self, Tensor):
            raise TypeError(f"{op.name}_(): expected a Tensor as self, got {type(self).__name__}")
        dev, lay, rg, args = _scan(op, args)
    elif op.npos == 1 or (
        op.npos == 2
        and op.tensor_pos[0] == 0
        and (
            (b := args[op.tensor_pos[1]]).__class__ in _SCALARS
            or (
                b.__class__ is Tensor
                and b._device is self._device
                and b._layout is self._layout
                and not b._requires_grad
            )
        )
    ):
        # ``x.exp_()``, ``x.mul_(2.0)``, ``p.sub_(g)``: nothing to move or mix.
        dev, lay, rg = self._device, self._layout, self._requires_grad
    else:
        dev, lay, rg, args = _scan(op, args)
    if dev != self._device:
        raise _device_error(op, self._device, dev)
    if 0 in self._stride:
        _check_no_internal_overlap(self)
    key = (dev.type, lay.name)
    kernel = op.table.get(key)
    if kernel is None:
        kernel = op.resolve(key, tuple(a._dtype for a in args if isinstance(a, Tensor)))
    if _mutation_check is not None and _mutation_check.on:
        from ..autograd.step import check_inplace_mutation

        check_inplace_mutation(self, op.name + "_")
    if _autograd_step is not None and (rg or self._grad_fn is not None) and _gm.enabled:
        return _autograd_step(op, kernel, args, None, dev, True, key)
    op.frontend(op, kernel, args, None, dev, True)  # type: ignore[misc]
    self._bump_version()
    return self


def _check_no_internal_overlap(t: Tensor) -> None:
    """Refuse to write into a tensor whose elements share memory (a dim of stride 0, as an
    ``expand`` makes): the result would depend on the order of the writes. PyTorch's check."""
    if t._layout is strided and any(
        s == 0 and n > 1 for n, s in zip(t._shape, t._stride, strict=True)
    ):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )


def _check_out(op: Op, out: Any, dev: Any) -> None:
    outs = out if isinstance(out, tuple) else (out,)
    for o in outs:
        if not isinstance(o, Tensor):
            raise TypeError(f"{op.name}(): argument 'out' must be Tensor, not {type(o).__name__}")
        if o._device != dev:
            raise RuntimeError(
                f"Expected out tensor to have device {dev}, but got {o._device} instead "
                f"(in {op.name})"
            )
        if 0 in o._stride:
            _check_no_internal_overlap(o)
        if o._requires_grad and _gm.enabled:
            raise RuntimeError(
                f"{op.name}(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad."
            )


def _factory_device(op: Op, args: tuple[Any, ...]) -> tuple[Any, Any]:
    from ..devices import device, get_default_device

    i = op.extra.get("device_pos")
    if i is None:
        i = op.extra["device_pos"] = op.decl.param("device")
    d = args[i] if i >= 0 else None
    return (get_default_device() if d is None else device(d)), strided
