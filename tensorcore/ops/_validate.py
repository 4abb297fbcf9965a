"""Argument checks derived from the operator declarations.

Every compiled operator function (``ops/_api.py``) checks its non-tensor arguments against
their declared types before anything runs: a class test inline (a few tens of nanoseconds per
argument), and a call into this module only when the test fails, to convert what PyTorch also
accepts (a NumPy integer for an ``int``, a Python type for a ``ScalarType``, a list for an
``int[]``...) or to raise PyTorch's ``TypeError`` naming the function, the argument and the
expected type. Tensor arguments are checked by the dispatcher (``ops/_call.py``), which
already tests their class to find the kernel.
"""

from __future__ import annotations

import functools
import math
import numbers
import operator
import os
import re
import sys
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from .. import dtypes as dt
from .. import overrides as _overrides
from .._tensor import KEEP_MESSAGE, Tensor
from ..devices import device as _device
from ..devices import get_default_device
from ..layouts import layout as _layout
from ..layouts import memory_format, strided
from ._signature import MISSING, Param, parse_signature

__all__ = [
    "INT64_MAX",
    "STANDARD",
    "TRANSLATED",
    "TYPE_NAMES",
    "as_scalar",
    "check_shape",
    "check_source",
    "checked",
    "keep_message",
    "name_error",
    "names_op",
    "tagged",
    "translate_error",
    "type_name",
    "v_bool",
    "v_device",
    "v_dtype",
    "v_float",
    "v_int",
    "v_ints",
    "v_object",
    "v_scalar",
    "v_str",
    "v_tensor",
]

#: PyTorch's names of the declared types, as its argument errors spell them.
TYPE_NAMES = {
    "Tensor": "Tensor",
    "Tensor[]": "tuple of Tensors",
    "int": "int",
    "int[]": "tuple of ints",
    "bool": "bool",
    "float": "float",
    "Scalar": "Number",
    "str": "str",
    "ScalarType": "tensorcore.dtype",
    "Device": "tensorcore.device",
    "Generator": "tensorcore.Generator",
    "MemoryFormat": "tensorcore.memory_format",
    "Layout": "tensorcore.layout",
}

# Python's own types that PyTorch accepts as a dtype (``zeros(2, dtype=float)``).
_PY_DTYPES = {bool: "bool_", int: "int64", float: "float64", complex: "complex128"}
_SCALARS = (bool, int, float, complex)
_SCALAR_SET = frozenset(_SCALARS)


def type_name(value: Any) -> str:
    """The name of ``value``'s type as PyTorch's argument errors print it."""
    cls = type(value)
    mod = cls.__module__
    if mod == "builtins":
        return cls.__qualname__
    if mod.startswith("tensorcore"):
        return cls.__qualname__
    return f"{mod.split('.')[0]}.{cls.__qualname__}"


def _wrong(fn: str, arg: str, expected: str, value: Any) -> TypeError:
    return TypeError(f"{fn}(): argument '{arg}' must be {expected}, not {type_name(value)}")


def v_int(fn: str, arg: str, value: Any, optional: bool = False) -> Any:
    """An ``int`` argument: Python ints, NumPy integers and one-element integer tensors
    (anything with ``__index__``), not bools or floats."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise _wrong(fn, arg, "int" if not optional else "int or None", value)
    try:
        return operator.index(value)
    except TypeError:
        raise _wrong(fn, arg, "int", value) from None


def v_ints(fn: str, arg: str, value: Any, optional: bool = False) -> Any:
    """An ``int[]`` argument as a tuple of ints: a tuple or list of ``int`` (see
    :func:`v_int`), a ``Size``, a single int, or a 1-D integer tensor."""
    if value is None and optional:
        return None
    if isinstance(value, Tensor):
        if value._dtype._category != dt.INTEGRAL or value.ndim > 1:
            raise _wrong(fn, arg, "tuple of ints", value)
        value = value.tolist()
    if not isinstance(value, (tuple, list)):
        if isinstance(value, bool) or not hasattr(type(value), "__index__"):
            raise _wrong(fn, arg, "tuple of ints", value)
        return (operator.index(value),)
    out = []
    for i, x in enumerate(value):
        if x.__class__ is int:
            out.append(x)
            continue
        if isinstance(x, bool) or not hasattr(type(x), "__index__"):
            raise TypeError(
                f"{fn}(): argument '{arg}' must be tuple of ints, but found element of type "
                f"{type_name(x)} at pos {i}"
            )
        try:
            out.append(operator.index(x))
        except TypeError:
            raise TypeError(
                f"{fn}(): argument '{arg}' must be tuple of ints, but found element of type "
                f"{type_name(x)} at pos {i}"
            ) from None
    return tuple(out)


def v_bool(fn: str, arg: str, value: Any, optional: bool = False) -> Any:
    """A ``bool`` argument: only ``True`` or ``False`` (PyTorch refuses ints and ``None``)."""
    if value is None and optional:
        return None
    if value is True or value is False:
        return value
    raise _wrong(fn, arg, "bool", value)


def v_float(fn: str, arg: str, value: Any, optional: bool = False) -> Any:
    """A ``float`` argument: real Python and NumPy numbers, converted to ``float``, and (as
    PyTorch's argument parser allows) a 0-d tensor that does not require grad, of any real
    dtype (``uniform_(log_ratio[0], log_ratio[1])`` in torchvision's RandomResizedCrop)."""
    if value is None and optional:
        return None
    if isinstance(value, Tensor):
        if value.ndim == 0 and not value.requires_grad and not value.is_complex():
            return float(value.item())
    elif isinstance(value, numbers.Real):
        return float(value)
    raise _wrong(fn, arg, "float", value)


def v_scalar(fn: str, arg: str, value: Any, optional: bool = False) -> Any:
    """A ``Scalar`` argument: a Python number, a NumPy scalar or a 0-d tensor, converted to a
    Python bool, int, float or complex."""
    if value is None and optional:
        return None
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise _wrong(fn, arg, "Number", value)
        return value.item()
    v = as_scalar(value)
    if v is None:
        raise _wrong(fn, arg, "Number", value)
    return v


def as_scalar(value: Any) -> Any:
    """``value`` as a plain Python bool, int, float or complex (a NumPy scalar, or a
    subclass such as NumPy's float64, converted), or None when it is no number."""
    if value.__class__ in _SCALAR_SET:
        return value
    if isinstance(value, _SCALARS):
        for cls in _SCALARS:
            if isinstance(value, cls):
                return cls(value)  # type: ignore[arg-type]
    cls_ = type(value)
    if isinstance(value, numbers.Number) or (
        cls_.__module__ == "numpy" and cls_.__name__ in ("bool", "bool_")
    ):
        item = value.item() if hasattr(value, "item") else complex(value)
        if isinstance(item, _SCALARS):
            return item
    return None


def v_str(fn: str, arg: str, value: Any, optional: bool = False) -> Any:
    """A ``str`` argument (which values are valid is the operator's business)."""
    if value is None and optional:
        return None
    if isinstance(value, str):
        return value
    raise _wrong(fn, arg, "str", value)


def v_dtype(fn: str, arg: str, value: Any, optional: bool = False) -> Any:
    """A ``ScalarType`` argument: a tensorcore dtype, or Python's ``bool``/``int``/``float``/
    ``complex`` (as PyTorch allows: ``float`` means float64)."""
    if value is None and optional:
        return None
    if isinstance(value, dt.dtype):
        return value
    name = _PY_DTYPES.get(value) if isinstance(value, type) else None
    if name is not None:
        return getattr(dt, name)
    raise _wrong(fn, arg, "tensorcore.dtype", value)


def v_device(fn: str, arg: str, value: Any, optional: bool = False) -> Any:
    """A ``Device`` argument: a device, a string such as ``'cuda:1'``."""
    if value is None and optional:
        return None
    if isinstance(value, (str, _device)):
        try:
            return _device(value)
        except (TypeError, RuntimeError) as exc:
            raise RuntimeError(f"{fn}(): argument '{arg}': {exc}") from None
    raise _wrong(fn, arg, "tensorcore.device", value)


def v_tensor(fn: str, arg: str, value: Any, optional: bool = False) -> Any:
    """A ``Tensor`` argument of a hand-written function (see :func:`checked`)."""
    if value is None and optional:
        return None
    if isinstance(value, Tensor):
        return value
    if not _overrides.state.off and _overrides.overrides(value.__class__):
        raise _overrides.Overriding  # (a tensor-like: the checked function hands it the call)
    raise _wrong(fn, arg, "Tensor" if not optional else "Tensor or None", value)


def v_callable(fn: str, arg: str, value: Any, optional: bool = False) -> Any:
    """A function argument (a hook, a closure)."""
    if value is None and optional:
        return None
    if callable(value):
        return value
    raise _wrong(fn, arg, "callable", value)


def v_object(fn: str, arg: str, value: Any, optional: bool, cls: type, expected: str) -> Any:
    """An argument that must be an instance of ``cls`` (a Generator, a memory format)."""
    if value is None and optional:
        return None
    if isinstance(value, cls):
        return value
    raise _wrong(fn, arg, expected, value)


def _generator_cls() -> type:
    from ..random import Generator

    return Generator


# Per declared type (without ``?``): the inline test that lets a valid value through, and
# the validator called when it fails. ``{n}`` is the argument's name.
_INLINE = {
    "int": ("{n}.__class__ is not int", "_v_int"),
    "bool": ("{n}.__class__ is not bool", "_v_bool"),
    "float": ("{n}.__class__ is not float", "_v_float"),
    "Scalar": ("{n}.__class__ not in _SC", "_v_scalar"),
    "str": ("{n}.__class__ is not str", "_v_str"),
    "ScalarType": ("{n}.__class__ is not _DT", "_v_dtype"),
    "Device": ("{n}.__class__ is not _DEV", "_v_device"),
    "int[]": ("{n}.__class__ is not tuple or not _all_int({n})", "_v_ints"),
    "Generator": ("not isinstance({n}, _GEN)", "_v_generator"),
    "MemoryFormat": ("{n}.__class__ is not _MF", "_v_memory_format"),
    "Layout": ("{n}.__class__ is not _LAY", "_v_layout"),
    # Only in the signatures of hand-written functions (:func:`checked`); the operators'
    # tensors are checked by the dispatcher.
    "Tensor": ("{n}.__class__ is not _T", "_v_tensor"),
    "Callable": ("not callable({n})", "_v_callable"),
}


def _all_int(t: tuple[Any, ...]) -> bool:
    # A loop, not all(<generator>): a generator costs a frame per call.
    for x in t:  # noqa: SIM110
        if x.__class__ is not int:
            return False
    return True


def factory_requires_grad(t: Tensor) -> Tensor:
    """``t.requires_grad_()`` for a factory's ``requires_grad=True``, with PyTorch's
    factories' words (not ``requires_grad_``'s) for a dtype that cannot require gradients.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.ops._validate import factory_requires_grad
    >>> factory_requires_grad(tc.zeros(2)).requires_grad
    True
    >>> factory_requires_grad(tc.zeros(2, dtype=tc.int64))
    Traceback (most recent call last):
    ...
    RuntimeError: Only Tensors of floating point and complex dtype can require gradients
    """
    if not (t.dtype.is_floating_point or t.dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return t.requires_grad_()


def namespace() -> dict[str, Any]:
    """The names :func:`check_source`'s lines use, for the compiled functions' globals."""
    gen = _generator_cls()
    return {
        "_v_int": v_int,
        "_v_bool": v_bool,
        "_v_float": v_float,
        "_v_scalar": v_scalar,
        "_v_str": v_str,
        "_v_dtype": v_dtype,
        "_v_device": v_device,
        "_v_ints": v_ints,
        "_v_tensor": v_tensor,
        "_v_callable": v_callable,
        "_T": Tensor,
        "_factory_rg": factory_requires_grad,
        "_v_generator": lambda fn, arg, v, opt: v_object(
            fn, arg, v, opt, gen, "tensorcore.Generator"
        ),
        "_v_memory_format": lambda fn, arg, v, opt: v_object(
            fn, arg, v, opt, memory_format, "tensorcore.memory_format"
        ),
        "_v_layout": lambda fn, arg, v, opt: v_object(
            fn, arg, v, opt, _layout, "tensorcore.layout"
        ),
        "_SC": frozenset(_SCALARS),
        "_DT": dt.dtype,
        "_DEV": _device,
        "_GEN": gen,
        "_MF": memory_format,
        "_LAY": _layout,
        "_all_int": _all_int,
        "_v_options": v_tensor_options,
    }


def v_tensor_options(fname: str, layout: Any, pin_memory: Any, op: Any = None) -> Any:
    """PyTorch's ``layout=`` and ``pin_memory=`` of a function that makes a tensor (every
    function with ``dtype`` and ``device`` parameters takes them, as PyTorch's do): a layout
    (None means strided), and a bool; the compiled function pins the result when
    ``pin_memory`` is true.

    A factory without tensor inputs passes its operator ``op``: for another layout than
    strided this returns ``make(args, device)``, which runs the kernel registered for
    ``(op, device type, layout)`` on the factory's arguments (``direct``: it makes the
    result), or raises the registry's ``NotImplementedError`` where no plugin registers one;
    None otherwise.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.zeros(2, layout=tc.strided, pin_memory=False)
    tensor([0., 0.])
    """
    if pin_memory is not None and pin_memory.__class__ is not bool:
        raise TypeError(
            f"{fname}(): argument 'pin_memory' must be bool, not {type_name(pin_memory)}"
        )
    if layout is None or layout is strided:
        return None
    if not isinstance(layout, _layout):
        raise TypeError(
            f"{fname}(): argument 'layout' must be tensorcore.layout, not {type_name(layout)}"
        )
    if op is None:
        raise NotImplementedError(
            f"{fname}(): layout={layout!r} is not supported here; make a strided tensor and "
            "convert it"
        )
    if pin_memory:
        raise RuntimeError(f"{fname}(): only strided tensors can be pinned")

    def make(args: tuple[Any, ...], dev: Any) -> Any:
        dev = get_default_device() if dev is None else dev
        key = (dev.type, layout.name)
        rec = op.record(key)
        if rec is None or rec.layout != layout.name:  # (not the strided factory of any layout)
            raise NotImplementedError(
                f"{fname}(): layout={layout!r} is not supported for a new tensor on the "
                f"'{dev.type}' device: no installed backend registers a '{op.name}' kernel "
                "for it; make a strided tensor and convert it"
            )
        return op.resolve(key)(*args)

    return make


def check_source(fname: str, pyname: str, p: Param, tensors: bool = False) -> str | None:
    """One line of the compiled function that checks (and converts) argument ``p``, bound to
    the local ``pyname``; None for ``Any`` and, unless ``tensors``, for tensors (the
    dispatcher checks an operator's tensors)."""
    if p.vararg or p.is_tensor_list or (p.is_tensor and not tensors):
        return None  # varargs are normalised (and checked) by _norm_size / _norm_list
    optional = p.type.endswith("?")
    base = p.type.rstrip("?")
    if base.startswith("Tensor("):
        base = "Tensor"
    hit = _INLINE.get(base)
    if hit is None:
        return None
    test, fn = hit
    cond = test.format(n=pyname)
    # ``None`` is taken for an optional argument, one that defaults to None, and an ``int[]``
    # that defaults to empty (``amax(x, dim=None)`` reduces every dim, as in PyTorch).
    none_ok = optional or p.default is None or (base == "int[]" and p.default == ())
    if none_ok:
        cond = f"{pyname} is not None and ({cond})"
    line = f"if {cond}: {pyname} = {fn}({fname!r}, {p.name!r}, {pyname}, {none_ok})"
    if base == "int[]":
        # An int stands for a one-element list (``sum(x, 1)``): no call for the common case.
        line = f"if {pyname}.__class__ is int: {pyname} = ({pyname},)\nel{line}"
    return line


#: The largest int64: sizes, strides and element counts must not exceed it.
INT64_MAX = (1 << 63) - 1


def check_shape(fn: str, shape: tuple[int, ...]) -> None:
    """Raise PyTorch's ``RuntimeError`` for sizes whose product does not fit in int64 (a view
    of them would address memory no storage has, and ``numel()`` would be wrong everywhere).
    Negative sizes are the caller's to refuse, with its own wording."""
    n = math.prod(shape)
    if n > INT64_MAX or (n == 0 and shape and max(shape) > INT64_MAX):
        raise RuntimeError(
            f"{fn}(): the shape {list(shape)} has more elements than int64 can count "
            "(integer multiplication overflow)"
        )


# ------------------------------------------------------------------ errors that name the callee
#: The exceptions a bad argument may raise (``NotImplementedError`` is a ``RuntimeError``).
STANDARD = (TypeError, ValueError, RuntimeError, IndexError)
#: Raised by Python or the array library underneath for a value that cannot be represented
#: (an int beyond int64, an allocation no machine has) or by a bug (a ``StopIteration`` would
#: end the caller's loop silently): each becomes a ``RuntimeError`` that names the callee.
TRANSLATED = (OverflowError, MemoryError, StopIteration)
_NAMED: dict[str, re.Pattern[str]] = {}


def names_op(message: str, name: str) -> bool:
    """Whether an error message already names ``name`` (``name(``, ``'name'``, ``"name"``,
    ``(in name)``, ``name[``, or a message opening with ``name `` as its subject; ``name_``
    and ``name`` name each other). An operator of a
    Python module (``linalg_inv``, and the internal ``_linalg_svd``) is named by its public
    spelling too, as PyTorch's messages write it (``linalg.inv: ...``).

    Examples
    --------
    >>> from tensorcore.ops._validate import names_op
    >>> names_op("t(): expects a 2-D tensor", "t"), names_op("can't do it", "t")
    (True, False)
    >>> names_op("where expected condition to be a boolean tensor", "where")
    True
    >>> names_op("linalg.inv: The input tensor A must have at least 2 dimensions.", "linalg_inv")
    True
    """
    pat = _NAMED.get(name)
    if pat is None:
        base = re.escape(name if name.endswith("__") else name.rstrip("_"))
        module, _, short = name.lstrip("_").partition("_")
        if module in _PYTHON_MODULES and short:
            # (``multi_dot(): ...`` is linalg.multi_dot's own wording)
            short = re.escape(short.rstrip("_"))
            base = f"(?:{base}|{module}\\.{short}|{short}(?=\\())"
        # PyTorch also opens some messages with the bare name as their subject
        # (``where expected condition to be a boolean tensor``, ``stft requires ...``).
        pat = _NAMED[name] = re.compile(
            rf"(?<!\w){base}_?(?:\(|'|\"|\)|\[|:)|'{base}_?'|^{base}_? (?=[a-z])"
        )
    return pat.search(message) is not None


#: PyTorch's Python modules whose operators are declared as ``<module>_<name>``.
_PYTHON_MODULES = frozenset({"linalg"})


_KEEP = KEEP_MESSAGE


def keep_message(exc: BaseException) -> None:
    """Mark ``exc`` so that :func:`name_error` leaves its message as it is: an error raised
    while the autograd graph runs comes from a node, a hook or a user's ``Function``, not from
    the arguments of the ``backward()``/``grad()`` call that ran it (PyTorch names no callee)."""
    setattr(exc, _KEEP, True)


# PyTorch's tags of a module's operator: ``linalg.inv: ``, ``torch.lu_factor: ``,
# ``linalg.pinv(Float{[2]}): ``.
_OP_TAG = re.compile(r"[A-Za-z_]\w*(?:\.\w+)+(?:\([^()\s]*\))?: ")


def tagged(message: str) -> bool:
    """Whether ``message`` opens with the tag of a module's operator (``linalg.inv: ``), as
    PyTorch's errors of an operator built on that one do (``inverse``), so that no other
    name is put in front of it.

    Examples
    --------
    >>> from tensorcore.ops._validate import tagged
    >>> tagged("linalg.inv: A must be batches of square matrices"), tagged("shape is bad: 2")
    (True, False)
    """
    return _OP_TAG.match(message) is not None


def name_error(exc: BaseException, name: str) -> None:
    """Prefix ``exc``'s message with ``name(): `` unless it names ``name`` already or was
    marked by :func:`keep_message`; the type, the traceback and the rest of the message
    (PyTorch's wording) stay."""
    if getattr(exc, _KEEP, False):
        return
    args = exc.args
    if args and isinstance(args[0], str):
        msg = args[0]
        # A message that opens with a module operator's name (``linalg.inv: ``) was named
        # by the operator that raised it: an operator built on that one keeps it, as
        # PyTorch's ``inverse`` reports ``linalg.inv: ...``, rather than naming both.
        if not names_op(msg, name) and _OP_TAG.match(msg) is None:
            exc.args = (f"{name}(): {msg}",) + args[1:]
    elif not args:
        exc.args = (f"{name}(): {type(exc).__name__}",)


def translate_error(exc: BaseException, name: str) -> RuntimeError:
    """The ``RuntimeError`` that replaces one of :data:`TRANSLATED` raised inside ``name``."""
    if isinstance(exc, MemoryError):
        return RuntimeError(f"{name}(): not enough memory: {exc}")
    if isinstance(exc, OverflowError):
        return RuntimeError(f"{name}(): value out of range: {exc}")
    return RuntimeError(f"{name}(): internal error: {type(exc).__name__} {exc}".rstrip())


_F = TypeVar("_F", bound=Callable[..., Any])


def checked(signature: str) -> Callable[[_F], _F]:
    """Give a hand-written public function the argument checks and the error naming of the
    operators: ``signature`` declares its parameters in the operator table's form (PyTorch's
    schema types: ``Tensor``, ``Tensor?``, ``int``, ``int[]``, ``bool``, ``float``, ``str``,
    ``Scalar``, ``ScalarType``, ``Device``, ``Callable``, ``Any``...), and the wrapper checks
    each argument as a compiled operator function does, then names the function in any error
    raised inside it.

    Examples
    --------
    >>> from tensorcore.ops._validate import checked
    >>> @checked("double(Tensor input, int times=2) -> Tensor")
    ... def double(input, times=2):
    ...     return input * times
    >>> double(None)
    Traceback (most recent call last):
    ...
    TypeError: double(): argument 'input' must be Tensor, not NoneType
    """
    sig = parse_signature(signature)

    def deco(fn: _F) -> _F:
        name = sig.name
        params, lines, names = [], [], []
        kw = False
        for p in sig.params:
            if p.kw_only and not kw:
                params.append("*")
                kw = True
            params.append(p.name if p.default is MISSING else f"{p.name}={p.default!r}")
            check = check_source(name, p.name, p, tensors=True)
            if check is not None:
                lines.append(check)
            names.append(f"{p.name}={p.name}" if p.kw_only else p.name)
        tensors = [p.name for p in sig.params if p.is_tensor or p.is_tensor_list]
        if tensors:
            # An overriding argument (``tensorcore.overrides``) is handed the call, with every
            # parameter, as PyTorch's Python functions hand themselves over: a subclass
            # before the checks (two attribute reads until a type that overrides exists), a
            # tensor-like where its check meets it (``v_tensor``).
            relevant = "(" + "".join(f"{n}, " for n in tensors) + ")"
            hand_over = f"return _handle_tf({name}, {relevant}, {', '.join(names)})"
            checks = "\n".join(lines).replace("\n", "\n    ")
            lines = [
                f"try:\n    if _tfs.active and _has_tf({relevant}):\n"
                f"        {hand_over}\n    {checks}\n"
                f"except _Overriding:\n    {hand_over}"
            ]
        src = (
            f"def {name}({', '.join(params)}):\n"
            + "".join(f"    {part}\n" for line in lines for part in line.split("\n"))
            + f"    try:\n        return _fn({', '.join(names)})\n"
            + f"    except _STD as exc:\n        _name(exc, {name!r})\n        raise\n"
            + f"    except _TR as exc:\n        raise _tr(exc, {name!r}) from exc\n"
        )
        ns = {
            **namespace(),
            "_fn": fn,
            "_STD": STANDARD,
            "_TR": TRANSLATED,
            "_name": name_error,
            "_tr": translate_error,
            "_tfs": _overrides.state,
            "_has_tf": _overrides.has_torch_function,
            "_handle_tf": _overrides.handle_torch_function,
            "_Overriding": _overrides.Overriding,
        }
        exec(compile(src, f"<tensorcore {name}>", "exec"), ns)
        wrapper = functools.update_wrapper(ns[name], fn)
        wrapper.__signature_declared__ = signature  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return deco


_CORE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_TESTING = os.path.join(_CORE, "testing") + os.sep


def warn_caller(message: str, category: type[Warning] = UserWarning) -> None:
    """Warn with ``message``, attributed to the line that called into tensorcore, as
    PyTorch's warnings point at the user's call: the dispatch path between takes more or
    fewer frames (a lane, the call path, autograd, a composite), so no fixed ``stacklevel``
    fits every call.

    Examples
    --------
    >>> import warnings
    >>> from tensorcore.ops._validate import warn_caller
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_caller("careful")
    >>> caught[0].filename.endswith("_validate.py"), str(caught[0].message)
    (False, 'careful')
    """
    level, frame = 1, sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not (name.startswith("<tensorcore") or name.startswith(_CORE)) or name.startswith(
            _TESTING
        ):
            break
        level, frame = level + 1, frame.f_back  # type: ignore[assignment]
    warnings.warn(message, category, stacklevel=level + 1)
