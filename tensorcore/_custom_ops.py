"""Operators defined in Python through ``tensorcore.library`` (PyTorch's ``torch.library``).

An operator here is one overload (:class:`OpOverload`, ``mylib.crop.default``): a schema, a
kernel per device type (or one for every device), a fake kernel for the ``meta`` device, and
optionally an autograd formula. A call binds its arguments to the schema (PyTorch's errors
for a missing, extra or mistyped argument), then

- where grad mode is on and a tensor argument requires grad, runs through an autograd
  ``Function`` generated for the overload (``GeneratedBackwardFor_mylib_crop_default``): its
  forward runs the kernel with recording off and the registered ``setup_context``, its
  backward the registered ``backward`` -- or raises PyTorch's error naming
  ``register_autograd`` when none was registered;
- otherwise runs the kernel of the device type the tensors are on (a non-CPU device wins, as
  PyTorch's dispatcher prefers it), bumps the version of the arguments the schema says it
  mutates, and refuses a result that aliases an input where the operator promised none.

The dispatch is a dictionary lookup by device type, so a backend plugin's device (``"xpu"``,
a third party's) takes a kernel registered for it with no change here.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Sequence
from typing import Any

from . import dtypes as dt
from ._tensor import Tensor, tensors_in
from .autograd import grad_mode
from .autograd.function import Function, FunctionCtx
from .autograd.graph import requires_grad
from .devices import device as _device
from .layouts import layout as _layout
from .layouts import memory_format as _memory_format
from .ops._namespaces import namespace
from .ops._signature import MISSING, Param, Signature

__all__ = [
    "OpOverload",
    "OpOverloadPacket",
    "exists",
    "lookup",
    "lookup_packet",
    "parse_qualname",
    "register",
    "resolve",
    "schema_text",
    "unregister",
]

_QUAL = re.compile(r"(?P<ns>\w+)::(?P<name>\w+)(?:\.(?P<overload>\w+))?")


def parse_qualname(qualname: str) -> tuple[str, str, str]:
    """``"mylib::foo.out"`` -> ``("mylib", "foo", "out")``; the overload defaults to
    ``"default"``. A name without its namespace is a ``ValueError``, as in PyTorch."""
    m = _QUAL.fullmatch(qualname) if isinstance(qualname, str) else None
    if m is None:
        raise ValueError(
            f"Expected the operator name to look like '{{namespace}}::{{name}}' (e.g. "
            f"'mylib::my_op'), got {qualname!r}"
        )
    return m.group("ns"), m.group("name"), m.group("overload") or "default"


# ------------------------------------------------------------------ schema text and checks
def _default_text(v: Any) -> str:
    """A default as PyTorch's schema prints it (a float that is whole as ``1.``)."""
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, float):
        return f"{int(v)}." if v.is_integer() else repr(v)
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, dt.dtype):
        return str(v).rsplit(".", 1)[-1]
    if isinstance(v, tuple):
        return "[" + ", ".join(_default_text(x) for x in v) + "]"
    return str(v)


def params_text(params: Sequence[Param], fmt_default: Callable[[Any], str]) -> str:
    """The parameter list of a schema: ``Tensor x, *, SymInt k=3``."""
    parts: list[str] = []
    star = False
    for p in params:
        if p.kw_only and not star:
            parts.append("*")
            star = True
        text = f"{p.type} {p.name}"
        if p.default is not MISSING:
            text += "=" + fmt_default(p.default)
        parts.append(text)
    return ", ".join(parts)


def schema_text(qualname: str, sig: Signature) -> str:
    """The schema PyTorch prints for an overload (``OpOverload._schema``)."""
    return f"{qualname}({params_text(sig.params, _default_text)}) -> {sig.returns}"


_ALIAS = re.compile(r"\(\w+!?\)")


def _bare(typ: str) -> str:
    """A parameter type without its alias annotation: ``Tensor(a0!)`` -> ``Tensor``."""
    return _ALIAS.sub("", typ)


def _is_int(v: Any) -> bool:
    return isinstance(v, numbers.Integral)


def _is_float(v: Any) -> bool:
    return isinstance(v, numbers.Real)


def _is_scalar(v: Any) -> bool:
    return isinstance(v, numbers.Number)


_ONE: dict[str, Callable[[Any], bool]] = {
    "Tensor": lambda v: isinstance(v, Tensor),
    "int": _is_int,
    "SymInt": _is_int,
    "float": _is_float,
    "bool": lambda v: isinstance(v, (bool, numbers.Integral)) and v in (0, 1),
    "str": lambda v: isinstance(v, str),
    "Scalar": _is_scalar,
    "ScalarType": lambda v: isinstance(v, dt.dtype),
    "Device": lambda v: isinstance(v, (_device, str, int)),
    "Layout": lambda v: isinstance(v, _layout),
    "MemoryFormat": lambda v: isinstance(v, _memory_format),
}


def _fits(typ: str, v: Any) -> bool:
    """Whether ``v`` is a value of schema type ``typ`` (an unknown type takes anything)."""
    if typ.endswith("?"):
        return v is None or _fits(typ[:-1], v)
    if typ.endswith("]"):
        elem = typ[: typ.index("[")]
        if isinstance(v, Tensor) or not isinstance(v, (list, tuple)):
            # (an int where ``int[]`` is expected stands for a one-element list, as in PyTorch)
            return elem in ("int", "SymInt") and _is_int(v)
        return all(_fits(elem, x) for x in v)
    test = _ONE.get(typ)
    return True if test is None else test(v)


def _type_name(v: Any) -> str:
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


# ------------------------------------------------------------------ one overload
class OpOverload:
    """One overload of an operator defined in Python (``tensorcore.ops.mylib.crop.default``).

    Call it with the operator's arguments. Its kernels are registered through
    ``tensorcore.library`` (``register_kernel``, ``register_fake``, ``register_autograd``,
    ``Library.impl``).
    """

    def __init__(
        self,
        ns: str,
        name: str,
        overload: str,
        sig: Signature,
        defaults: dict[str, Any] | None = None,
        no_alias: bool = False,
    ) -> None:
        self.namespace, self.op_name, self._overloadname = ns, name, overload
        self.sig = sig
        self._params = sig.params
        #: each parameter's type without its alias annotation (``Tensor(a0!)`` -> ``Tensor``)
        self._types = tuple(_bare(p.type) for p in sig.params)
        #: which parameters are tensor lists (their tensors are flattened for autograd)
        self._lists = tuple(
            t.startswith("Tensor") and t.rstrip("?").endswith("]") for t in self._types
        )
        #: defaults by parameter name where the schema's text cannot hold the Python value
        self._defaults = defaults or {}
        self._mutated = tuple(
            i for i, p in enumerate(sig.params) if "!" in p.type and p.type.startswith("Tensor")
        )
        #: device type -> kernel; "default" serves every device type without its own
        self.kernels: dict[str, Callable[..., Any]] = {}
        self.disabled: set[str] = set()
        self.fake: Callable[..., Any] | None = None
        self.backward: Callable[..., Any] | None = None
        self.setup_context: Callable[..., Any] | None = None
        #: ``Library.impl(..., "Autograd")``: a kernel that records its own gradients
        self.autograd_kernel: Callable[..., Any] | None = None
        #: ``CompositeImplicitAutograd``: differentiable through the operators it calls
        self.implicit = False
        self.no_alias = no_alias
        self._function: type[Function] | None = None
        self.qualname = f"{ns}::{name}" + ("" if overload == "default" else f".{overload}")

    # ---- PyTorch's introspection
    def name(self) -> str:
        """``"mylib::crop"`` (with ``.overload`` for an overload other than the default)."""
        return self.qualname

    @property
    def _schema(self) -> str:
        return schema_text(self.qualname, self.sig)

    @property
    def overloadpacket(self) -> OpOverloadPacket:
        """The packet this overload belongs to (``tensorcore.ops.mylib.crop``)."""
        return lookup_packet(self.namespace, self.op_name)

    def __repr__(self) -> str:
        return f"{self.namespace}.{self.op_name}.{self._overloadname}"

    # ---- the call
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        bound = self._bind(args, kwargs)
        if (
            grad_mode.is_grad_enabled()
            and not self.implicit
            and any(requires_grad(t) for t in tensors_in(bound))
        ):
            if self.autograd_kernel is not None:
                return self.autograd_kernel(*bound)
            lengths, flat = self._flatten(bound)
            return self._autograd_function().apply(lengths, *flat)
        return self.redispatch(bound)

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        params = self._params
        npos = sum(not p.kw_only for p in params)
        if len(args) > npos or len(args) + len(kwargs) > len(params):
            raise RuntimeError(
                f"{self.qualname}() expected at most {len(params)} argument(s) but received "
                f"{len(args) + len(kwargs)} argument(s). Declaration: {self._schema}"
            )
        names = {p.name for p in params}
        for k in kwargs:
            if k not in names:
                raise RuntimeError(
                    f"{self.qualname}() got an unexpected keyword argument '{k}'. "
                    f"Declaration: {self._schema}"
                )
        bound: list[Any] = []
        for i, p in enumerate(params):
            if i < len(args):
                if p.name in kwargs:
                    raise RuntimeError(
                        f"{self.qualname}() got multiple values for argument '{p.name}'. "
                        f"Declaration: {self._schema}"
                    )
                v = args[i]
            elif p.name in kwargs:
                v = kwargs[p.name]
            elif p.name in self._defaults:
                v = self._defaults[p.name]
            elif p.default is not MISSING:
                v = p.default
            else:
                raise RuntimeError(
                    f"{self.qualname}() is missing value for argument '{p.name}'. "
                    f"Declaration: {self._schema}"
                )
            typ = self._types[i]
            if not _fits(typ, v):
                shown = typ.replace("SymInt", "int")  # (PyTorch's words for the type)
                raise RuntimeError(
                    f"{self.qualname}() Expected a value of type '{shown}' for argument "
                    f"'{p.name}' but instead found type '{_type_name(v)}'.\nPosition: {i}\n"
                    f"Value: {v!r}\nDeclaration: {self._schema}"
                )
            bound.append(v)
        return bound

    def _device_type(self, bound: Sequence[Any]) -> str:
        for t in tensors_in(bound):
            if t._device.type != "cpu":
                return t._device.type
        return "cpu"

    def redispatch(self, bound: Sequence[Any]) -> Any:
        """Run the kernel for the bound arguments' device type, below autograd."""
        kind = self._device_type(bound)
        kernel = None if kind in self.disabled else self.kernels.get(kind)
        if kernel is None and kind == "meta":
            kernel = self.fake
            if kernel is None:
                raise NotImplementedError(
                    f"{self.qualname}: attempted to run this operator with Meta tensors, but "
                    "there was no fake impl or Meta kernel registered; register one with "
                    f"tensorcore.library.register_fake('{self.qualname}')"
                )
        if kernel is None:
            kernel = self.kernels.get("default")
        if kernel is None:
            has = sorted(k for k in self.kernels if k not in self.disabled)
            raise NotImplementedError(
                f"Could not run '{self.qualname}' with arguments from the '{kind}' backend: "
                f"it has kernels for {has or 'no device type'}; register one with "
                f"tensorcore.library.register_kernel('{self.qualname}', '{kind}') (or "
                "define it with device_types=None, for every device)"
            )
        out = kernel(*bound)
        for i in self._mutated:
            for t in tensors_in((bound[i],)):
                t._bump_version()
        if self.no_alias:
            self._check_no_alias(bound, out)
        return out

    def _check_no_alias(self, bound: Sequence[Any], out: Any) -> None:
        outs = out if isinstance(out, (tuple, list)) else (out,)
        seen = {id(t._storage) for t in tensors_in(bound)}
        for o in outs:
            if isinstance(o, Tensor):
                if id(o._storage) in seen:
                    raise RuntimeError(
                        f"{self.qualname}: The output of this custom operator (1) must not "
                        "also be an input to this custom operator and (2) may not alias any "
                        "inputs to this custom operator or other returns. The most common way "
                        "to trigger this error is if we have y = custom_op(x) and y and x are "
                        "the same Tensor. Please instead return a clone of the offending "
                        "output tensor(s) (e.g. return x.clone()) or refactor the custom "
                        "operator to not return y."
                    )
                seen.add(id(o._storage))

    # ---- autograd
    def _flatten(self, bound: Sequence[Any]) -> tuple[tuple[int, ...], list[Any]]:
        """The arguments as one flat list (a tensor list's tensors each an argument of the
        ``Function``, so that each gets its edge), and how they regroup: per schema
        argument, -1 for one value or the length of its list."""
        flat: list[Any] = []
        lengths: list[int] = []
        for is_list, v in zip(self._lists, bound, strict=True):
            if is_list:
                flat.extend(v or ())
                lengths.append(len(v or ()))
            else:
                flat.append(v)
                lengths.append(-1)
        return tuple(lengths), flat

    def _unflatten(self, flat: Sequence[Any], lengths: Sequence[int]) -> list[Any]:
        out: list[Any] = []
        pos = 0
        for n in lengths:
            if n < 0:
                out.append(flat[pos])
                pos += 1
            else:
                out.append(list(flat[pos : pos + n]))
                pos += n
        return out

    def _autograd_function(self) -> type[Function]:
        """The ``Function`` this overload's differentiable calls run through (made once)."""
        if self._function is not None:
            return self._function
        op = self

        class Generated(Function):
            @staticmethod
            def forward(ctx: FunctionCtx, lengths: tuple[int, ...], *flat: Any) -> Any:
                ctx._lengths = lengths  # type: ignore[attr-defined]
                args = op._unflatten(flat, lengths)
                ctx.needs_input_grad = tuple(  # (one flag per schema argument, as PyTorch)
                    any(requires_grad(t) for t in tensors_in((a,))) for a in args
                )
                out = op.redispatch(args)
                if op.setup_context is not None:
                    op.setup_context(ctx, tuple(args), out)
                return tuple(out) if isinstance(out, list) else out

            @staticmethod
            def backward(ctx: FunctionCtx, *grads: Any) -> Any:
                if op.backward is None:
                    raise RuntimeError(
                        f"Trying to backward through {op!r} but no autograd formula was "
                        "registered. Please use register_autograd to add one."
                    )
                res = op.backward(ctx, *grads)
                lengths = ctx._lengths  # type: ignore[attr-defined]
                if not isinstance(res, (tuple, list)) or (
                    len(lengths) == 1
                    and lengths[0] >= 0
                    and not (len(res) == 1 and isinstance(res[0], (tuple, list)))
                ):
                    res = (res,)  # (one argument's gradient, given bare)
                if len(res) != len(op._params):
                    raise RuntimeError(
                        f"{op.qualname}: the backward registered with register_autograd "
                        f"returned {len(res)} gradients, expected {len(op._params)} (one per "
                        "argument of the operator, None for a non-tensor one)"
                    )
                flat: list[Any] = [None]  # (the lengths)
                for n, g in zip(lengths, res, strict=True):
                    if n < 0:
                        flat.append(g)
                    else:
                        flat.extend([None] * n if g is None else g)
                return tuple(flat)

        name = f"GeneratedBackwardFor_{self.namespace}_{self.op_name}_{self._overloadname}"
        Generated.__name__ = Generated.__qualname__ = name
        self._function = Generated
        return Generated


# ------------------------------------------------------------------ packets and the registry
class OpOverloadPacket:
    """All overloads of one operator (``tensorcore.ops.mylib.crop``): calling it calls the
    overload whose schema the arguments fit; ``.default`` and the other overload names are
    its attributes."""

    def __init__(self, ns: str, name: str) -> None:
        self.namespace, self.op_name = ns, name
        self._overloads: dict[str, OpOverload] = {}

    def __getattr__(self, overload: str) -> OpOverload:
        if overload.startswith("__") or overload == "_overloads":
            raise AttributeError(overload)
        found = self._overloads.get(overload)
        if found is None:
            raise AttributeError(
                f"The underlying op of '{self!r}' has no overload name '{overload}'"
            )
        return found

    @property
    def _qualified_op_name(self) -> str:
        return f"{self.namespace}::{self.op_name}"

    def overloads(self) -> list[str]:
        """The names of the operator's overloads (``["default", "out"]``)."""
        return list(self._overloads)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        overloads = list(self._overloads.values())
        if len(overloads) == 1:
            return overloads[0](*args, **kwargs)
        errors = []
        for ov in overloads:
            try:
                ov._bind(args, kwargs)
            except RuntimeError as exc:
                errors.append(str(exc))
                continue
            return ov(*args, **kwargs)
        raise RuntimeError(
            f"Overloaded operator {self._qualified_op_name} invoked from Python failed to "
            "match any schema:\n" + "\n".join(errors)
        )

    def __repr__(self) -> str:
        return f"{self.namespace}.{self.op_name}"


_PACKETS: dict[tuple[str, str], OpOverloadPacket] = {}


def lookup_packet(ns: str, name: str) -> OpOverloadPacket:
    """The packet of ``ns::name`` (a ``ValueError`` naming it when none is defined)."""
    found = _PACKETS.get((ns, name))
    if found is None:
        raise ValueError(f"operator {ns}::{name} does not exist; define it first")
    return found


def lookup(qualname: str) -> OpOverload:
    """The overload ``qualname`` names (``"mylib::foo"`` is its default overload)."""
    ns, name, overload = parse_qualname(qualname)
    packet = lookup_packet(ns, name)
    found = packet._overloads.get(overload)
    if found is None:
        raise ValueError(f"operator {qualname} does not exist (it has {packet.overloads()})")
    return found


def exists(qualname: str) -> bool:
    """Whether the overload ``qualname`` names is defined."""
    ns, name, overload = parse_qualname(qualname)
    packet = _PACKETS.get((ns, name))
    return packet is not None and overload in packet._overloads


def register(op: OpOverload) -> None:
    """Make ``op`` callable as ``tensorcore.ops.<namespace>.<name>.<overload>`` (replacing an
    earlier definition of that overload)."""
    key = (op.namespace, op.op_name)
    packet = _PACKETS.get(key)
    if packet is None:
        packet = _PACKETS[key] = OpOverloadPacket(*key)
    packet._overloads[op._overloadname] = op
    namespace(op.namespace).register(op.op_name, packet)


def unregister(op: OpOverload) -> None:
    """Undo :func:`register` (a ``Library`` that is destroyed takes its operators along)."""
    packet = _PACKETS.get((op.namespace, op.op_name))
    if packet is None or packet._overloads.get(op._overloadname) is not op:
        return
    del packet._overloads[op._overloadname]
    if not packet._overloads:
        del _PACKETS[(op.namespace, op.op_name)]
        namespace(op.namespace)._ops.pop(op.op_name, None)


def resolve(op: Any, ns: str | None = None) -> OpOverload:
    """The overload an argument names: an overload, a packet (its default overload), what
    ``custom_op`` returned, or a name (``"mylib::foo"``; ``"foo"`` in namespace ``ns``)."""
    if isinstance(op, OpOverload):
        return op
    if isinstance(op, OpOverloadPacket):
        return op.default
    inner = getattr(op, "_opoverload", None)  # (a CustomOpDef)
    if isinstance(inner, OpOverload):
        return inner
    if isinstance(op, str):
        return lookup(op if "::" in op or ns is None else f"{ns}::{op}")
    raise TypeError(f"expected an operator or its name ('namespace::name'), got {op!r}")
