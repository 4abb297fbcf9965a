"""The per-call path: dispatch key, device check, autograd step, frontend, kernel.

Everything here runs on every operator call, so it is written for speed: a loop over the
tensor arguments, one dict lookup for the kernel, and nothing that inspects or imports.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from .. import overrides as _ov
from .._tensor import Tensor, adopt_base_grad
from ..autograd import grad_mode
from ..devices import device, get_default_device
from ..layouts import strided
from . import functions as _functions
from ._validate import STANDARD as _STANDARD
from ._validate import TRANSLATED as _TRANSLATED
from ._validate import as_scalar, type_name
from ._validate import name_error as _name
from ._validate import translate_error as _translate
from .frontends import moves_version
from .frontends import unstructured_unchecked as _unchecked

if TYPE_CHECKING:
    from ..dispatch import Op

__all__ = [
    "call",
    "call_inplace",
    "call_lane",
    "set_autocast",
    "set_autograd_step",
    "set_intercepted",
]

_gm = grad_mode._state
# Forward-mode AD: ``on`` while a dual level is open (dual tensors then reach the step under
# ``no_grad`` too); read only after an input was found to require grad.
_dual = grad_mode.dual
# Installed by tensorcore.autograd: ``step(op, kernel, args, out, device, inplace, key)``.
_autograd_step: Any = None


_mutation_check: Any = None
_SCALARS = frozenset({int, float, bool, complex})


# Installed by tensorcore.amp while an autocast region is active (None otherwise, so that a
# call outside any region pays one test): ``hook(op, args)`` runs a call of an operator with
# an autocast policy on its cast arguments (with autocast off inside, as PyTorch runs the
# operators of its lists) and returns the result, or returns ``AUTOCAST_PASS`` for a call it
# leaves as it is.
_autocast: Any = None
AUTOCAST_PASS: Any = object()
# The autocast hook tensorcore.amp installed, and whether a ``TorchFunctionMode`` is entered:
# while one is, ``_autocast`` is at least ``_pass``, so that the lanes (which take a call only
# where ``_autocast`` is None) leave every call to the call path, which hands it to the mode.
_amp_hook: Any = None
_intercepted = False


def _pass(op: Op, args: tuple[Any, ...]) -> Any:
    return AUTOCAST_PASS


def set_autocast(hook: Any) -> None:
    """Install (or remove, with None) the autocast hook that casts a call's arguments."""
    global _amp_hook
    _amp_hook = hook
    _set_hook()


def set_intercepted(on: bool) -> None:
    """Send every call through the call path (``on``: a ``TorchFunctionMode`` is entered), or
    let the lanes take plain calls again."""
    global _intercepted
    _intercepted = on
    _set_hook()


def _set_hook() -> None:
    global _autocast
    _autocast = _amp_hook if _amp_hook is not None else (_pass if _intercepted else None)


_ov.watch_modes(set_intercepted)


def set_autograd_step(step: Any, debug: Any = None) -> None:
    """Install the autograd dispatch step (done once by ``tensorcore.autograd``)."""
    global _autograd_step, _mutation_check
    _autograd_step = step
    _mutation_check = debug


def _same_device(a: device, b: device) -> bool:
    """Whether two unequal device objects name one device (only asked on the error path)."""
    from ._transfer import same_device

    return same_device(a, b)


def _device_error(op: Op, a: Any, b: Any) -> RuntimeError:
    return RuntimeError(
        f"Expected all tensors to be on the same device, but found at least two devices, "
        f"{a} and {b}! (when checking arguments for {op.name})"
    )


# Per operator: (position, shown name, optional, takes a Python scalar) of each tensor
# parameter, and (position, shown name, elements optional) of each tensor-list parameter.
_PARAMS: dict[str, tuple[tuple[tuple[int, str, bool, bool], ...], tuple[Any, ...]]] = {}


def _tensor_params(op: Op) -> tuple[tuple[tuple[int, str, bool, bool], ...], tuple[Any, ...]]:
    hit = _PARAMS.get(op.name)
    if hit is None:
        params = op.decl.parsed.params
        takes = op.decl.scalar_params
        single = tuple(
            (
                i,
                "input" if i == 0 and params[i].name == "self" else params[i].name,
                params[i].type.endswith("?"),
                params[i].name in takes,
            )
            for i in op.tensor_pos
        )
        lists = tuple((i, params[i].name, "?" in params[i].type) for i in op.list_pos)
        hit = _PARAMS[op.name] = (single, lists)
    return hit


_OPTIONAL: dict[str, frozenset[int]] = {}


def _optional_positions(op: Op) -> frozenset[int]:
    """The positions of ``op``'s optional tensor parameters (``Tensor?``)."""
    hit = _OPTIONAL.get(op.name)
    if hit is None:
        hit = _OPTIONAL[op.name] = frozenset(i for i, _, opt, _ in _tensor_params(op)[0] if opt)
    return hit


def _bad_tensor(fn: str, name: str, a: Any, scalar_ok: bool) -> TypeError:
    want = "Tensor or Number" if scalar_ok else "Tensor"  # (only with another tensor)
    return TypeError(f"{fn}(): argument '{name}' must be {want}, not {type_name(a)}")


_tf = _ov.state
_NONE: Any = object()


_PUBLIC: dict[tuple[str, bool], Any] = {}


def _public(op: Op, inplace: bool) -> Any:
    """The function an overriding argument's ``__torch_function__`` is given for ``op``:
    ``tensorcore.<op>`` (a method call is handed the function too), ``Tensor.<op>_`` in
    place, the method where the operator has no function, else a function of that name
    that calls the operator (the ``torch._C._nn`` ones such as ``silu``)."""
    key = (op.name, inplace)
    fn = _PUBLIC.get(key)
    if fn is None:
        name = _inplace_name(op) if inplace else op.name
        fn = (None if inplace else getattr(_functions, name, None)) or getattr(Tensor, name, None)
        if fn is None:

            def fn(*args: Any) -> Any:
                return call(op, args)

            fn.__name__ = fn.__qualname__ = name
            fn.__module__ = "tensorcore"
        _PUBLIC[key] = fn
    return fn


def _override(op: Op, args: tuple[Any, ...], out: Any, inplace: bool = False) -> Any:
    """The call handed to the ``__torch_function__`` of its overriding arguments
    (``tensorcore.overrides``) with the positional parameters as ``args`` and the keyword-only
    ones (and ``out``) as ``kwargs``; ``_NONE`` where no argument overrides."""
    relevant = tuple(args[i] for i in op.tensor_pos) + tuple(args[i] for i in op.list_pos)
    if not _ov.has_torch_function(relevant):
        return _NONE
    # (what the caller may have left out is left out: the trailing positional arguments and
    # the keyword-only ones that hold their defaults, as a handler would be given them)
    params = op.decl.parsed.params
    pos = [a for a, p in zip(args, params, strict=True) if not p.kw_only]
    while pos and _default(pos[-1], params[len(pos) - 1].default):
        pos.pop()
    kwargs = {
        p.name: a
        for a, p in zip(args, params, strict=True)
        if p.kw_only and not _default(a, p.default)
    }
    if out is not None:
        kwargs["out"] = out
    return _ov.handle_torch_function(_public(op, inplace), relevant, *pos, **kwargs)


def _default(value: Any, default: Any) -> bool:
    """Whether ``value`` is the declared ``default`` (never a tensor, never a required
    parameter's marker)."""
    if value is default:
        return True
    if isinstance(value, Tensor) or value.__class__ is not default.__class__:
        return False
    try:
        return bool(value == default)
    except (TypeError, ValueError, RuntimeError):  # (no plain equality)
        return False


def _scan(
    op: Op, args: tuple[Any, ...], inplace: bool = False
) -> tuple[Any, Any, bool, tuple[Any, ...]]:
    """Device, layout and requires-grad of the tensor arguments (slow path: lists, mixing,
    scalars); a ``TypeError`` naming the operator for anything that is not a tensor where
    one is declared."""
    dev = None
    lay = strided
    rg = False
    args_l: list[Any] | None = None
    tensors: list[Tensor] = []
    single, lists = _tensor_params(op)
    fn = _inplace_name(op) if inplace else op.name
    for i, name, optional, scalar_ok in single:
        a = args[i]
        if isinstance(a, Tensor):
            tensors.append(a)
        elif a is None:
            if not optional:
                raise _bad_tensor(fn, name, a, scalar_ok and len(single) > 1)
        elif a.__class__ not in _SCALARS:
            if not _tf.off and _ov.overrides(a.__class__):
                raise _ov.Overriding
            v = as_scalar(a) if scalar_ok else None
            if v is None:
                raise _bad_tensor(fn, name, a, scalar_ok and len(single) > 1)
            if args_l is None:
                args_l = list(args)
            args_l[i] = v
        elif not scalar_ok:
            raise _bad_tensor(fn, name, a, scalar_ok)
    for i, name, optional in lists:
        seq = args[i]
        if seq is None and optional:
            continue
        if isinstance(seq, Tensor) or not isinstance(seq, (list, tuple)):
            raise TypeError(
                f"{fn}(): argument '{name}' must be tuple of Tensors, not {type_name(seq)}"
            )
        for k, a in enumerate(seq):
            if isinstance(a, Tensor):
                tensors.append(a)
            elif not _tf.off and _ov.overrides(a.__class__):
                raise _ov.Overriding
            elif a is not None or not optional:
                raise TypeError(
                    f"{fn}(): expected Tensor as element {k} in argument '{name}', but got "
                    f"{type_name(a)}"
                )
    if not tensors and single and not lists and op.decl.param("device") < 0:
        # A pointwise operator takes Python scalars, but not only scalars.
        i, name, _, _ = single[0]
        raise TypeError(
            f"{fn}(): argument '{name}' must be Tensor, not {type_name(args[i])}"
            + (" (at least one argument must be a Tensor)" if len(single) > 1 else "")
        )
    if args_l is not None:
        args = tuple(args_l)
        args_l = None
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
            if _same_device(d, dev):  # "mydev" and "mydev:0" of a one-device type
                continue
            raise _device_error(op, dev, d)
        if a._layout.priority > lay.priority:
            lay = a._layout
        if a._requires_grad or (
            (v := a._base) is not None and v._requires_grad and adopt_base_grad(a)
        ):
            rg = True
    if dev is not None and len(tensors) > 1:
        # Move zero-dim CPU tensors that met another device onto it.
        for i in op.tensor_pos:
            a = args[i]
            if (
                isinstance(a, Tensor)
                and a._device is not dev
                and a._device != dev
                and not _same_device(a._device, dev)
            ):
                if args_l is None:
                    args_l = list(args)
                args_l[i] = a.to(dev)
    return dev, lay, rg, tuple(args_l) if args_l is not None else args


def call(op: Op, args: tuple[Any, ...], out: Any = None) -> Any:
    """Run operator ``op`` on ``args`` (in signature order), writing to ``out`` if given."""
    try:
        if _autocast is not None and out is None:
            res = _autocast(op, args)
            if res is not AUTOCAST_PASS:
                return res
        if _tf.active and _tf.intercepting():  # (an overriding type exists: is it an argument?)
            res = _override(op, args, out)
            if res is not _NONE:
                return res
        n_tensor_args = op.n_tensor_args
        if n_tensor_args == 1:
            a = args[op.tensor_pos[0]]
            if isinstance(a, Tensor):
                dev, lay, rg = a._device, a._layout, a._requires_grad
                if not rg and (v := a._base) is not None and v._requires_grad:
                    rg = adopt_base_grad(a)
            else:
                dev, lay, rg, args = _scan(op, args)
        elif n_tensor_args == 2:
            # Fast path for the common binary case: two tensor parameters, no tensor lists,
            # or a tensor and a Python scalar where the operator takes one.
            i, j = op.tensor_pos
            a, b = args[i], args[j]
            if isinstance(a, Tensor):
                dev = a._device
                lay = a._layout
                rg = a._requires_grad
                if not rg and (v := a._base) is not None and v._requires_grad:
                    rg = adopt_base_grad(a)
                if isinstance(b, Tensor):
                    if b._device is not dev or b._layout is not lay:
                        dev, lay, rg, args = _scan(op, args)
                    elif b._requires_grad:
                        rg = True
                    elif (v := b._base) is not None and v._requires_grad:
                        rg = adopt_base_grad(b) or rg
                elif b.__class__ not in op.scalars:
                    dev, lay, rg, args = _scan(op, args)
            elif isinstance(b, Tensor) and a.__class__ in op.scalars:
                dev, lay, rg = b._device, b._layout, b._requires_grad
                if not rg and (v := b._base) is not None and v._requires_grad:
                    rg = adopt_base_grad(b)
            else:
                dev, lay, rg, args = _scan(op, args)
        elif n_tensor_args > 2:
            # Three or more tensor parameters (linear and its backward, addmm, the losses):
            # the plain case is every one a tensor on one device and layout, or None where
            # the signature allows it; anything else takes the scan (mixing, scalars, errors).
            dev = None
            rg = False
            for i in op.tensor_pos:
                a = args[i]
                if isinstance(a, Tensor):
                    if dev is None:
                        dev, lay = a._device, a._layout
                    elif a._device is not dev or a._layout is not lay:
                        dev = None
                        break
                    if a._requires_grad:
                        rg = True
                elif a is not None or i not in _optional_positions(op):
                    dev = None
                    break
            if dev is None:
                dev, lay, rg, args = _scan(op, args)
        elif not op.tensor_pos and not op.list_pos:  # a factory: no tensor to scan
            dev, lay, rg = None, strided, False
        else:
            dev, lay, rg, args = _scan(op, args)
        if dev is None:
            dev, lay = _factory_device(op, args)
            if out.__class__ is Tensor and args[op.decl.pos.device] is None:
                dev = out._device  # (a factory's out=: its device, as in PyTorch)
        key = (dev.type, lay.name)
        kernel = op.table.get(key)
        if kernel is None:
            kernel = op.resolve(key, tuple(a._dtype for a in args if isinstance(a, Tensor)))
        if out is not None:
            if out.__class__ is list:  # (several outputs: PyTorch takes a list as well)
                out = tuple(out)
            _check_out(op, out, dev)
            if rg and _gm.enabled and op.differentiable and not _dual.on:
                # (under forward AD the step refuses out= with its own error)
                raise RuntimeError(
                    f"{op.name}(): functions with out=... arguments don't support automatic "
                    "differentiation, but one of the arguments requires grad."
                )
        if rg and (_gm.enabled or _dual.on) and _autograd_step is not None:
            res = _autograd_step(op, kernel, args, out, dev, False, key)
        elif op.frontend is _unchecked and out is None:
            res = kernel(*args)  # (the views: what that frontend does, one frame less)
        else:
            res = op.frontend(op, kernel, args, out, dev, False)  # type: ignore[misc]
        if out is not None:
            # A write into out= is an in-place write: autograd must see the new version.
            for o in out if isinstance(out, tuple) else (out,):
                o._bump_version()
        return res
    except _ov.Overriding:
        return _override(op, args, out)
    except _STANDARD as exc:
        _name(exc, op.name)
        raise
    except _TRANSLATED as exc:
        raise _translate(exc, op.name) from exc


def call_lane(op: Op, args: tuple[Any, ...]) -> Any:
    """``call(op, args)``, through the operator's lane first as its compiled function would
    go: for the operators without a public function (PyTorch's ``torch._C._nn`` ones such as
    ``silu`` and the ``*_backward`` operators) that ``nn.functional`` and the derivative rules
    call by name. ``args`` gives every parameter, in signature order."""
    lane = op.lane  # (read per call: a profiler swaps it for its recording wrapper)
    if lane is not None:
        res = lane(*args)
        if res is not None:
            return res
    return call(op, args)


def call_inplace(op: Op, args: tuple[Any, ...]) -> Any:
    """Run the in-place variant ``op_`` of ``op``: the result is written into ``args[0]``."""
    try:
        if _tf.active and _tf.intercepting():  # (an overriding type exists: is it an argument?)
            res = _override(op, args, None, True)
            if res is not _NONE:
                return res
        self = args[0]
        if not isinstance(self, Tensor):
            if not isinstance(self, Tensor):
                raise TypeError(
                    f"{_inplace_name(op)}(): expected a Tensor as self, got {type_name(self)}"
                )
            dev, lay, rg, args = _scan(op, args, True)
        elif op.n_tensor_args == 1 or (
            op.n_tensor_args == 2
            and op.tensor_pos[0] == 0
            and (
                (b := args[op.tensor_pos[1]]).__class__ in op.scalars
                or (
                    isinstance(b, Tensor)
                    and b._device is self._device
                    and b._layout is self._layout
                    and not b._requires_grad
                    and not ((v := b._base) is not None and v._requires_grad and adopt_base_grad(b))
                )
            )
        ):
            # ``x.exp_()``, ``x.mul_(2.0)``, ``p.sub_(g)``: nothing to move or mix.
            dev, lay, rg = self._device, self._layout, self._requires_grad
            if not rg and (v := self._base) is not None and v._requires_grad:
                rg = adopt_base_grad(self)
        else:
            dev, lay, rg, args = _scan(op, args, True)
        if dev is not self._device and dev != self._device and not _same_device(dev, self._device):
            raise _device_error(op, self._device, dev)
        if 0 in self._stride:
            _check_no_internal_overlap(self, op.decl.internal_overlap, _inplace_name(op))
        key = (dev.type, lay.name)
        kernel = op.table.get(key)
        if kernel is None:
            kernel = op.resolve(key, tuple(a._dtype for a in args if isinstance(a, Tensor)))
        if _mutation_check is not None and _mutation_check.on:
            _mutation_check.check(self, _inplace_name(op))
        if (
            _autograd_step is not None
            and (rg or self._grad_fn is not None)
            and (_gm.enabled or _dual.on)
        ):
            return _autograd_step(op, kernel, args, None, dev, True, key)
        op.frontend(op, kernel, args, None, dev, True)  # type: ignore[misc]
        if not moves_version(op, kernel):
            self._bump_version()
        return self
    except _STANDARD as exc:
        _name(exc, _inplace_name(op))
        raise
    except _TRANSLATED as exc:
        raise _translate(exc, _inplace_name(op)) from exc


def _inplace_name(op: Op) -> str:
    """``add_`` for ``add``; in-place-only operators (``copy_``) carry the ``_`` already."""
    return op.name if op.name.endswith("_") else op.name + "_"


def _check_no_internal_overlap(t: Tensor, policy: str = "", name: str = "") -> None:
    """Refuse to write into a tensor whose elements share memory (a dim of stride 0, as an
    ``expand`` makes): the result would depend on the order of the writes. PyTorch's check;
    ``policy`` is the operator's declared ``internal_overlap``."""
    if policy == "allow":
        return
    if (
        t._layout is strided
        and any(s == 0 and n > 1 for n, s in zip(t._shape, t._stride, strict=True))
        and 0 not in t._shape  # (an empty tensor has no elements to share)
    ):
        if policy == "deprecated":
            warnings.warn(
                f"Use of {name} on expanded tensors is deprecated. Please clone() the tensor "
                "before performing this operation. This also applies to advanced indexing e.g. "
                "tensor[mask] = scalar",
                UserWarning,
                stacklevel=4,
            )
            return
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )


def _check_out(op: Op, out: Any, dev: Any) -> None:
    outs = out if isinstance(out, tuple) else (out,)
    for o in outs:
        if not isinstance(o, Tensor):
            raise TypeError(f"{op.name}(): argument 'out' must be Tensor, not {type(o).__name__}")
        if o._device != dev and not (
            # (a factory's device without an index is the current one: "cuda" takes cuda:0)
            getattr(dev, "index", 0) is None and o._device.type == dev.type
        ):
            raise RuntimeError(
                f"Expected out tensor to have device {dev}, but got {o._device} instead "
                f"(in {op.name})"
            )
        if 0 in o._stride:
            _check_no_internal_overlap(o)
        if o._requires_grad and o._ag is not None and o._ag.fw_grad is not None and _dual.on:
            raise NotImplementedError(
                f"Trying to use forward AD with {op.name}_out that does not support it because "
                "it is an out= function"
            )
        if _gm.enabled and (
            o._requires_grad
            or ((v := o._base) is not None and v._requires_grad and adopt_base_grad(o))
        ):
            raise RuntimeError(
                f"{op.name}(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad."
            )


def _factory_device(op: Op, args: tuple[Any, ...]) -> tuple[Any, Any]:
    i = op.decl.pos.device
    d = args[i] if i >= 0 else None
    if d.__class__ is device:
        return d, strided
    return (get_default_device() if d is None else device(d)), strided
