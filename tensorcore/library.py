"""PyTorch's ``torch.library``: operators defined in Python, with a kernel per device type, a
fake kernel for the ``meta`` device and an autograd formula.

>>> import numpy as np
>>> import tensorcore as tc
>>> from tensorcore import Tensor
>>> @tc.library.custom_op("mylib::scaled_sin", mutates_args=())
... def scaled_sin(x: Tensor, scale: float = 1.0) -> Tensor:
...     return tc.from_numpy(np.sin(x.numpy()) * scale)  # any Python library may compute it
>>> def setup_context(ctx, inputs, output):
...     ctx.save_for_backward(inputs[0])
...     ctx.scale = inputs[1]
>>> def backward(ctx, grad):
...     (x,) = ctx.saved_tensors
...     return grad * x.cos() * ctx.scale, None
>>> scaled_sin.register_autograd(backward, setup_context=setup_context)
>>> x = tc.zeros(2, requires_grad=True)
>>> scaled_sin(x, 2.0).sum().backward()
>>> x.grad
tensor([2., 2.])
>>> tc.ops.mylib.scaled_sin.default._schema
'mylib::scaled_sin(Tensor x, float scale=1.) -> Tensor'

The operators live in ``tensorcore.ops.<namespace>`` (``tensorcore._custom_ops`` says how a
call runs); ``tensorcore.ops.aten`` holds the built-in operators under PyTorch's names.
"""

from __future__ import annotations

import contextlib
import inspect
import types
import typing
import warnings
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from . import _custom_ops
from . import dtypes as dt
from ._custom_ops import OpOverload, OpOverloadPacket, parse_qualname, resolve
from ._opcheck import OpCheckError, opcheck
from ._tensor import Tensor
from .devices import device as _device
from .ops import functions as _functions
from .ops._namespaces import OpNamespace, namespace
from .ops._signature import MISSING, Param, Signature, parse_signature

__all__ = [
    "CustomOpDef",
    "Library",
    "OpCheckError",
    "custom_op",
    "define",
    "get_ctx",
    "impl",
    "impl_abstract",
    "infer_schema",
    "opcheck",
    "register_autograd",
    "register_fake",
    "register_kernel",
]


# ------------------------------------------------------------------ infer_schema
_SCALAR_TYPES = {int: "SymInt", float: "float", bool: "bool", str: "str"}


def _type_text(ann: Any) -> str | None:
    """The schema type of a parameter annotation, or None where it has none."""
    if ann is Tensor or (isinstance(ann, type) and issubclass(ann, Tensor)):
        return "Tensor"
    if ann in _SCALAR_TYPES:
        return _SCALAR_TYPES[ann]
    if ann is dt.dtype:
        return "ScalarType"
    if ann is _device:
        return "Device"
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if set(rest) == {int, float, bool}:
            return "Scalar?" if len(rest) < len(args) else "Scalar"
        if len(rest) == 1 and len(rest) < len(args):
            inner = _type_text(rest[0])
            if inner is not None and not inner.endswith("?"):
                return inner + "?"
        return None
    if origin in (list, Sequence, typing.Sequence, typing.List) and len(args) == 1:  # noqa: UP006
        elem = _type_text(args[0])
        if elem in ("Tensor", "Tensor?", "SymInt", "float", "bool", "Scalar"):
            return elem + "[]"
    return None


def _return_text(ann: Any) -> str | None:
    if ann is None or ann is type(None):
        return "()"
    if typing.get_origin(ann) is tuple:
        parts = [_type_text(a) for a in typing.get_args(ann)]
        if any(p is None for p in parts):
            return None
        return "(" + ", ".join(p for p in parts if p is not None) + ")"
    return _type_text(ann)


def _signature_of(
    fn: Callable[..., Any], mutates_args: Iterable[str] | str, op_name: str | None = None
) -> tuple[Signature, dict[str, Any]]:
    """``fn``'s schema from its type annotations, and its defaults by parameter name."""
    sig = inspect.signature(fn)

    def error(what: str) -> ValueError:
        return ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    try:
        hints = typing.get_type_hints(fn)
    except (NameError, TypeError):  # (an annotation that does not resolve: as written)
        hints = {k: p.annotation for k, p in sig.parameters.items()}
        hints["return"] = sig.return_annotation
    unknown = mutates_args == "unknown"
    if isinstance(mutates_args, str) and not unknown:
        raise ValueError(
            "mutates_args must be an iterable of the names of the arguments the operator "
            f"mutates, or the string 'unknown'; got {mutates_args!r}"
        )
    mutated = set() if unknown else set(mutates_args)
    params: list[Param] = []
    defaults: dict[str, Any] = {}
    n_mut = 0
    for name, p in sig.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise error(f"We don't support {p.kind.name} parameters.")
        if p.annotation is inspect.Parameter.empty:
            raise error(f"Parameter {name} must have a type annotation.")
        typ = _type_text(hints.get(name, p.annotation))
        if typ is None:
            raise error(f"Parameter {name} has unsupported type {p.annotation}.")
        if p.default is not inspect.Parameter.empty:
            d = p.default
            if d is not None and not isinstance(d, (bool, int, float, str, dt.dtype, _device)):
                raise error(f"Parameter {name} has an unsupported default value type {type(d)}.")
            defaults[name] = d
        if (unknown and typ.startswith("Tensor")) or name in mutated:
            if not typ.startswith("Tensor"):
                raise error(
                    f"Parameter {name} is in mutable_args but only Tensors or collections of "
                    "Tensors can be mutated"
                )
            typ = typ.replace("Tensor", f"Tensor(a{n_mut}!)", 1)
            n_mut += 1
        kw = p.kind is p.KEYWORD_ONLY
        params.append(
            Param(
                name, typ, defaults.get(name, MISSING) if name in defaults else MISSING, kw, False
            )
        )
    missing = mutated - set(sig.parameters)
    if missing:
        raise error(
            f"{missing} in mutates_args were not found in the custom op's signature. "
            "mutates_args should contain the names of all args that the custom op mutates, "
            "or just the string 'unknown' if you don't know."
        )
    if sig.return_annotation is inspect.Signature.empty:
        raise error("No return type annotation was provided. Please add one.")
    ret = _return_text(hints.get("return", sig.return_annotation))
    if ret is None:
        raise error(f"Return has unsupported type {sig.return_annotation}.")
    return Signature(op_name or "", tuple(params), ret), defaults


def infer_schema(
    prototype_function: Callable[..., Any],
    /,
    *,
    mutates_args: Iterable[str] | str,
    op_name: str | None = None,
) -> str:
    """The operator schema of a type-annotated function, as PyTorch writes it.

    >>> import tensorcore as tc
    >>> def f(x: tc.Tensor, n: int, *, scale: float = 1.0) -> tc.Tensor: ...
    >>> tc.library.infer_schema(f, mutates_args=())
    '(Tensor x, SymInt n, *, float scale=1.0) -> Tensor'
    """
    sig, _ = _signature_of(prototype_function, mutates_args, op_name)
    return (op_name or "") + infer_schema_text(sig)


def infer_schema_text(sig: Signature) -> str:
    """A schema as :func:`infer_schema` writes it (no operator name)."""
    return f"({_custom_ops.params_text(sig.params, _infer_default)}) -> {sig.returns}"


def _infer_default(v: Any) -> str:
    return f'"{v}"' if isinstance(v, str) else str(v)


# ------------------------------------------------------------------ custom_op
def _device_types(device_types: str | Sequence[str] | None) -> list[str]:
    if device_types is None:
        return ["default"]
    if isinstance(device_types, str):
        return [device_types]
    return list(device_types)


class CustomOpDef:
    """What :func:`custom_op` returns: the operator, callable as the decorated function was,
    with the methods that register its kernels, fake kernel and autograd formula."""

    def __init__(self, op: OpOverload, fn: Callable[..., Any]) -> None:
        self._opoverload = op
        self._init_fn = fn
        self._name = op.qualname
        self._namespace = op.namespace
        self.__name__ = getattr(fn, "__name__", op.op_name)
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._opoverload(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._name})>"

    @property
    def _schema(self) -> str:
        """The schema without the operator's name: ``(Tensor x, float scale=1.0) -> Tensor``."""
        return infer_schema_text(self._opoverload.sig)

    def register_kernel(
        self, device_types: str | Sequence[str] | None, fn: Callable[..., Any] | None = None, /
    ) -> Any:
        """Register ``fn`` as the kernel for ``device_types`` (``"cpu"``, ``"cuda"``, a
        plugin's device type; None for every device). Used as a decorator without ``fn``."""

        def reg(f: Callable[..., Any]) -> Callable[..., Any]:
            for d in _device_types(device_types):
                self._opoverload.kernels[d] = f
            return f

        return reg if fn is None else reg(fn)

    def register_fake(self, fn: Callable[..., Any], /) -> Callable[..., Any]:
        """Register the fake kernel: what the operator makes from ``meta`` tensors (its
        outputs' shapes and dtypes, no values)."""
        self._opoverload.fake = fn
        return fn

    def register_autograd(
        self,
        backward: Callable[..., Any],
        /,
        *,
        setup_context: Callable[..., Any] | None = None,
    ) -> None:
        """Make the operator differentiable: ``setup_context(ctx, inputs, output)`` saves
        what ``backward(ctx, *grads)`` needs, which returns one gradient per argument."""
        _set_autograd(self._opoverload, backward, setup_context)

    @contextlib.contextmanager
    def set_kernel_enabled(self, device_type: str, enabled: bool = True) -> Iterator[None]:
        """Within the block, disable (or enable again) the kernel registered for
        ``device_type``; the operator then uses its kernel for every device, if any."""
        off = self._opoverload.disabled
        was = device_type in off
        if enabled:
            off.discard(device_type)
        else:
            off.add(device_type)
        try:
            yield
        finally:
            if was:
                off.add(device_type)
            else:
                off.discard(device_type)


def _set_autograd(
    op: OpOverload, backward: Callable[..., Any], setup_context: Callable[..., Any] | None
) -> None:
    if not callable(backward):
        raise TypeError(f"register_autograd(): backward must be callable, got {backward!r}")
    if setup_context is not None and not callable(setup_context):
        raise TypeError(
            f"register_autograd(): setup_context must be callable or None, got {setup_context!r}"
        )
    op.backward, op.setup_context = backward, setup_context


def custom_op(
    name: str,
    fn: Callable[..., Any] | None = None,
    /,
    *,
    mutates_args: Iterable[str] | str,
    device_types: str | Sequence[str] | None = None,
    schema: str | None = None,
    tags: Any = None,
) -> Any:
    """Wrap a type-annotated function into an operator ``name`` (``"mylib::op"``), callable
    as ``tensorcore.ops.mylib.op`` too. ``mutates_args`` names the arguments it writes
    (``()`` for none, ``"unknown"`` for any tensor); ``device_types`` limits the function to
    those devices (others get a kernel with :meth:`CustomOpDef.register_kernel`); ``schema``
    gives the schema instead of inferring it from the annotations. Its results must not
    alias its inputs. Used as a decorator without ``fn``."""
    ns, opname, overload = parse_qualname(name)
    if overload != "default":
        raise ValueError(f"custom_op(): name must be 'namespace::name', got {name!r}")

    def wrap(f: Callable[..., Any]) -> CustomOpDef:
        if schema is None:
            sig, defaults = _signature_of(f, mutates_args, opname)
        else:
            sig, defaults = parse_signature(opname + schema), {}
        op = OpOverload(ns, opname, "default", sig, defaults, no_alias=True)
        for d in _device_types(device_types):
            op.kernels[d] = f
        _custom_ops.register(op)
        return CustomOpDef(op, f)

    return wrap if fn is None else wrap(fn)


# ------------------------------------------------------------------ Library
_DEF_NAMESPACES: set[str] = set()
# device-type dispatch keys of PyTorch -> our device types
_KEYS = {"CPU": "cpu", "CUDA": "cuda", "Meta": "meta", "MPS": "mps", "XPU": "xpu"}
_AUTOGRAD_KEYS = {"Autograd", "AutogradCPU", "AutogradCUDA", "AutogradMeta"}


def _register(op: OpOverload, key: str, fn: Callable[..., Any]) -> bool:
    """Register ``fn`` for ``op`` under PyTorch's dispatch ``key``; False for a name that is
    no dispatch key."""
    if key in _KEYS:
        op.kernels[_KEYS[key]] = fn
    elif key == "CompositeImplicitAutograd":
        op.kernels["default"] = fn
        op.implicit = True
    elif key in ("CompositeExplicitAutograd", "Default"):
        op.kernels["default"] = fn
    elif key in _AUTOGRAD_KEYS:
        op.autograd_kernel = fn
    else:
        return False
    return True


def _forget(ns: str, kind: str, ops: list[OpOverload]) -> None:
    for op in ops:
        _custom_ops.unregister(op)
    if kind == "DEF":
        _DEF_NAMESPACES.discard(ns)


class Library:
    """PyTorch's ``torch.library.Library``: ``kind`` ``"DEF"`` (the one library that defines
    namespace ``ns``), ``"FRAGMENT"`` (more definitions in it) or ``"IMPL"`` (kernels only).
    The operators a library defines live as long as it does."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if ns == "aten" and kind != "IMPL":
            raise ValueError("Library(): the 'aten' namespace holds the built-in operators")
        if kind == "DEF":
            if ns in _DEF_NAMESPACES:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; "
                    "please put all of your definitions in a single TORCH_LIBRARY block. If "
                    "you were trying to specify implementations, consider using "
                    "TORCH_LIBRARY_IMPL (Library(ns, 'IMPL')), and to add definitions in "
                    "another place, Library(ns, 'FRAGMENT')"
                )
            _DEF_NAMESPACES.add(ns)
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key
        self._ops: list[OpOverload] = []
        self._finalizer = weakref.finalize(self, _forget, ns, kind, self._ops)

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def define(self, schema: str, alias_analysis: str = "", *, tags: Any = ()) -> str:
        """Define the operator ``schema`` (``"foo(Tensor x, int n=2) -> Tensor"``,
        ``"foo.out(...)"`` for an overload) in this library's namespace; returns its name."""
        if self.kind == "IMPL":
            raise RuntimeError("define(): a Library of kind 'IMPL' cannot define operators")
        head, paren, rest = schema.partition("(")
        name, _, overload = head.strip().partition(".")
        if "::" in name:
            ns, name = name.split("::", 1)
            if ns != self.ns:
                raise ValueError(f"define(): {schema!r} is not in namespace {self.ns!r}")
        sig = parse_signature(name + paren + rest)
        qual = f"{self.ns}::{name}" + (f".{overload}" if overload else "")
        if _custom_ops.exists(qual):
            raise RuntimeError(
                f"Tried to register an operator ({qual}) with the same name and overload name "
                "multiple times."
            )
        op = OpOverload(self.ns, name, overload or "default", sig)
        _custom_ops.register(op)
        self._ops.append(op)
        return name

    def impl(
        self,
        op_name: str | OpOverload | OpOverloadPacket | CustomOpDef,
        fn: Callable[..., Any],
        dispatch_key: str = "",
        *,
        with_keyset: bool = False,
        allow_override: bool = False,
    ) -> None:
        """Register ``fn`` for ``op_name`` under PyTorch's ``dispatch_key``: a device's
        (``"CPU"``, ``"CUDA"``, ``"Meta"``), ``"CompositeImplicitAutograd"`` (every device,
        differentiable through what it calls: the default), ``"CompositeExplicitAutograd"``
        (every device) or ``"Autograd"`` (a kernel that records its own gradients)."""
        if with_keyset:
            raise NotImplementedError(
                "Library.impl(with_keyset=True): tensorcore has no dispatch key sets"
            )
        op = resolve(op_name, self.ns)
        if op.namespace == "aten":
            raise NotImplementedError(
                "Library.impl(): tensorcore's built-in operators take kernels from backend "
                "plugins (docs/writing-a-backend.md), not from torch.library"
            )
        key = dispatch_key or self.dispatch_key or "CompositeImplicitAutograd"
        if not _register(op, key, fn):
            raise ValueError(f"Library.impl(): unsupported dispatch key {key!r}")

    def fallback(
        self, fn: Callable[..., Any], dispatch_key: str = "", *, with_keyset: bool = False
    ) -> None:
        """PyTorch's boxed fallback kernels; tensorcore dispatches by device type only."""
        raise NotImplementedError("Library.fallback(): tensorcore has no boxed fallbacks")

    def _destroy(self) -> None:
        self._finalizer()


# ------------------------------------------------------------------ module-level registration
_KEEP_ALIVE: list[Library] = []


def _fragment(ns: str, lib: Library | None) -> Library:
    if lib is None:
        lib = Library(ns, "FRAGMENT")
        _KEEP_ALIVE.append(lib)
    return lib


def define(qualname: str, schema: str, *, lib: Library | None = None, tags: Any = ()) -> None:
    """Define operator ``qualname`` (``"mylib::foo"``) with ``schema``
    (``"(Tensor x) -> Tensor"``); its kernels come from :func:`impl` or
    :func:`register_kernel`."""
    ns, name, overload = parse_qualname(qualname)
    full = name + ("" if overload == "default" else f".{overload}") + schema
    _fragment(ns, lib).define(full, tags=tags)


def impl(
    qualname: Any, types: Any, func: Callable[..., Any] | None = None, *, lib: Any = None
) -> Any:
    """Register an implementation of ``qualname`` for device ``types`` (``"cpu"``, a list of
    device types, or ``"default"`` / ``"CompositeImplicitAutograd"`` for every device). The
    older form ``impl(library, name, dispatch_key)`` registers through that library. Used
    as a decorator without ``func``."""
    if isinstance(qualname, Library):
        library, name, key = qualname, types, func if isinstance(func, str) else ""

        def reg_lib(f: Callable[..., Any]) -> Callable[..., Any]:
            library.impl(name, f, key)
            return f

        return reg_lib

    def reg(f: Callable[..., Any]) -> Callable[..., Any]:
        op = resolve(qualname)
        for t in [types] if isinstance(types, str) else list(types):
            # (a name that is no dispatch key is a device type: "cpu", a plugin's)
            if not _register(op, "CompositeImplicitAutograd" if t == "default" else t, f):
                op.kernels[t] = f
        return f

    return reg if func is None else reg(func)


def register_kernel(
    op: Any,
    device_types: str | Sequence[str] | None,
    func: Callable[..., Any] | None = None,
    /,
    *,
    lib: Any = None,
) -> Any:
    """Register ``func`` as ``op``'s kernel for ``device_types`` (None: every device)."""

    def reg(f: Callable[..., Any]) -> Callable[..., Any]:
        target = resolve(op)
        for d in _device_types(device_types):
            target.kernels[d] = f
        return f

    return reg if func is None else reg(func)


def register_fake(
    op: Any,
    func: Callable[..., Any] | None = None,
    /,
    *,
    lib: Any = None,
    _stacklevel: int = 1,
    allow_override: bool = False,
) -> Any:
    """Register ``op``'s fake kernel: its outputs from ``meta`` tensors (shapes and dtypes,
    no values)."""

    def reg(f: Callable[..., Any]) -> Callable[..., Any]:
        resolve(op).fake = f
        return f

    return reg if func is None else reg(func)


def impl_abstract(
    qualname: Any, func: Callable[..., Any] | None = None, *, lib: Any = None, _stacklevel: int = 1
) -> Any:
    """The former name of :func:`register_fake` (deprecated, as in PyTorch)."""
    warnings.warn(
        "torch.library.impl_abstract was renamed to torch.library.register_fake. Please use "
        "that instead; we will remove torch.library.impl_abstract in a future version of "
        "PyTorch.",
        DeprecationWarning,
        stacklevel=2,
    )
    return register_fake(qualname, func, lib=lib)


def register_autograd(
    op: Any,
    backward: Callable[..., Any],
    /,
    *,
    setup_context: Callable[..., Any] | None = None,
    lib: Any = None,
) -> None:
    """Make ``op`` differentiable (see :meth:`CustomOpDef.register_autograd`)."""
    _set_autograd(resolve(op), backward, setup_context)


def get_ctx() -> Any:
    """PyTorch's context of a fake kernel, for outputs whose size depends on the data
    (``new_dynamic_size``): tensorcore's ``meta`` tensors have no symbolic sizes."""
    raise NotImplementedError(
        "torch.library.get_ctx(): tensorcore's meta tensors have no symbolic sizes, so a fake "
        "kernel cannot make a data-dependent size; run the operator on a real device"
    )


# ------------------------------------------------------------------ torch.ops.aten
class _AtenOverload:
    """A built-in operator under PyTorch's overload name (``tensorcore.ops.aten.add.Tensor``):
    tensorcore's one function takes every overload's arguments."""

    def __init__(self, fn: Callable[..., Any], op: str, overload: str) -> None:
        self._fn, self._op, self._overloadname = fn, op, overload

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    def name(self) -> str:
        """``"aten::add.Tensor"``."""
        return f"aten::{self._op}" + (
            "" if self._overloadname == "default" else f".{self._overloadname}"
        )

    def __repr__(self) -> str:
        return f"aten.{self._op}.{self._overloadname}"


class _AtenPacket:
    """A built-in operator in ``tensorcore.ops.aten``: callable, and each PyTorch overload
    name is an attribute."""

    def __init__(self, op: str, fn: Callable[..., Any]) -> None:
        self._op, self._fn = op, fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    def __getattr__(self, overload: str) -> _AtenOverload:
        if overload.startswith("_"):
            raise AttributeError(overload)
        return _AtenOverload(self._fn, self._op, overload)

    def overloads(self) -> list[str]:
        """``["default"]``: one function takes every overload's arguments."""
        return ["default"]

    def __repr__(self) -> str:
        return f"aten.{self._op}"


class _Aten(OpNamespace):
    """``tensorcore.ops.aten``: the built-in operators (``tensorcore.<name>``, else the
    ``Tensor`` method, for in-place ones such as ``add_``) under PyTorch's names."""

    def _missing(self, op: str) -> Any:
        fn = getattr(_functions, op, None)
        if fn is None:
            fn = getattr(Tensor, op, None)
        if fn is None or not callable(fn):
            return super()._missing(op)
        packet = _AtenPacket(op, fn)
        self._ops[op] = packet
        return packet


namespace("aten", _Aten)
