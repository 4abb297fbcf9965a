"""The weights-only unpickler behind ``tensorcore.load(f, weights_only=True)`` for files that
hold a pickled object (format 2), and the allowlist that
:func:`tensorcore.serialization.add_safe_globals` extends.

As PyTorch's ``torch._weights_only_unpickler``: the pickle may name only allowlisted globals
(tensorcore's dtypes, devices, layouts, ``Size``, its tensor rebuild functions,
``OrderedDict``, ``Counter``, ``set``, ``complex``, ...: what PyTorch allows by default, plus
the classes and functions the user allowlisted), it may call or instantiate only those, and
it may fill only builtin containers and objects of allowlisted classes. Tensors and
parameters are not in the pickle at all (``tc.save`` stores them as safetensors entries and
the pickle names them by number), so the unpickler never builds a tensor from pickled
fields, except through the rebuild functions, which check every view against its storage.

It is pickle's pure-Python ``_Unpickler`` with the opcodes that import, call or mutate
guarded: ``find_class`` looks names up in the allowlist and imports nothing. It is slower
than the C unpickler, which does not matter here: the pickle holds no tensor data.
"""

from __future__ import annotations

import collections
import pickle
from collections.abc import Callable
from typing import Any, ClassVar

from . import dtypes, layouts
from ._pickling import _rebuild_layout, _rebuild_storage, _rebuild_strided, _rebuild_subclass
from ._tensor import Size
from .devices import device
from .nn.parameter import _rebuild_parameter

__all__ = [
    "Unpickler",
    "add",
    "allowed",
    "clear",
    "globals_in",
    "remove",
    "unsupported",
    "user_globals",
]

# Never allowed, even when the user allowlists a name from them (as in PyTorch).
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")

#: The user's allowlist, in the order added: callables, or (callable, "module.qualname").
user_globals: list[Any] = []


def _check(item: Any) -> None:
    if isinstance(item, tuple):
        if len(item) != 2:
            raise ValueError(
                "Expected tuple of length 2 (global, str of callable full path), but got tuple "
                f"of length: {len(item)}"
            )
        if type(item[1]) is not str:
            raise TypeError(
                "Expected second item in tuple to be str of callable full path, but got: "
                f"{type(item[1])}"
            )
    elif not hasattr(item, "__module__") or not hasattr(item, "__qualname__"):
        raise TypeError(
            "add_safe_globals(): expected a class or function (or a (global, 'module.name') "
            f"tuple), got {type(item).__name__}"
        )


def add(items: Any) -> None:
    """Add ``items`` to the user's allowlist (each once)."""
    if not isinstance(items, (list, tuple, set)):
        raise TypeError(
            f"add_safe_globals(): expected a list of globals, got {type(items).__name__}"
        )
    for item in items:
        _check(item)
    for item in items:
        if not any(_same(item, have) for have in user_globals):
            user_globals.append(item)


def remove(items: Any) -> None:
    """Take ``items`` off the user's allowlist."""
    user_globals[:] = [g for g in user_globals if not any(_same(g, i) for i in items)]


def clear() -> None:
    user_globals.clear()


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return a[0] is b[0] and a[1] == b[1]
    return a is b


def _defaults() -> dict[str, Any]:
    rc: dict[str, Any] = {
        "collections.OrderedDict": collections.OrderedDict,
        "collections.Counter": collections.Counter,
        "builtins.set": set,
        "builtins.frozenset": frozenset,
        "builtins.bytearray": bytearray,
        "builtins.complex": complex,
        "builtins.slice": slice,
        "tensorcore.Size": Size,
        "tensorcore.device": device,
        "tensorcore._pickling._rebuild_storage": _rebuild_storage,
        "tensorcore._pickling._rebuild_strided": _rebuild_strided,
        "tensorcore._pickling._rebuild_layout": _rebuild_layout,
        "tensorcore._pickling._rebuild_subclass": _rebuild_subclass,
        "tensorcore.nn.parameter._rebuild_parameter": _rebuild_parameter,
    }
    import _codecs  # bytes pickled with protocol < 3

    rc["_codecs.encode"] = _codecs.encode
    constants: list[Any] = [*dtypes.all_dtypes, *layouts._layouts.values()]
    constants += [
        layouts.preserve_format,
        layouts.contiguous_format,
        layouts.channels_last,
        layouts.channels_last_3d,
    ]
    for c in constants:
        rc[f"tensorcore.{c.__reduce__()}"] = c
    return rc


def allowed() -> dict[str, Any]:
    """Every allowlisted global by its pickled name: the defaults and the user's."""
    rc = _defaults()
    for g in user_globals:
        if isinstance(g, tuple):
            rc[g[1]] = g[0]
        else:
            rc[f"{g.__module__}.{g.__qualname__}"] = g
    return rc


def unsupported(full_path: str) -> str:
    """PyTorch's words for a global that is not allowlisted."""
    if full_path.startswith("builtins."):
        full_path = full_path[len("builtins.") :]
    return (
        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
        f"Please use `tensorcore.serialization.add_safe_globals([{full_path}])` or the "
        f"`tensorcore.serialization.safe_globals([{full_path}])` context manager to allowlist "
        "this global if you trust this class/function."
    )


_Dispatch = dict[int, Callable[[Any], None]]


# pickle's pure-Python unpickler (typeshed describes little of it)
_Base: Any = pickle._Unpickler


class Unpickler(_Base):
    """Unpickles only allowlisted globals; ``persistent_load`` gives the file's tensors."""

    dispatch: ClassVar[_Dispatch] = dict(_Base.dispatch)

    def __init__(self, f: Any, persistent_load: Callable[[Any], Any]) -> None:
        super().__init__(f)
        self._persistent = persistent_load
        self._globals = allowed()
        self._ids = {id(v) for v in self._globals.values()}
        # what may be filled by APPEND(S), SETITEM(S), ADDITEMS and BUILD
        self._types = {id(v) for v in self._globals.values() if isinstance(v, type)}
        self._types |= {id(list), id(dict), id(set)}

    def persistent_load(self, pid: Any) -> Any:
        return self._persistent(pid)

    def find_class(self, module: str, name: str) -> Any:
        full_path = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise pickle.UnpicklingError(
                f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked."
            )
        try:
            return self._globals[full_path]
        except KeyError:
            raise pickle.UnpicklingError(unsupported(full_path)) from None

    def _callable(self, fn: Any) -> None:
        if id(fn) not in self._ids:
            raise pickle.UnpicklingError(
                f"Trying to call reduce for unrecognized function {fn!r:.80}"
            )

    def _fillable(self, obj: Any, what: str) -> None:
        if id(type(obj)) not in self._types:
            raise pickle.UnpicklingError(
                f"Can only {what} builtin containers or types allowlisted via "
                f"`add_safe_globals`, but got {type(obj)}"
            )

    # --- guarded opcodes: each checks, then runs pickle's own handler
    def _reduce(self) -> None:
        self._callable(self.stack[-2])
        _Base.load_reduce(self)

    def _newobj(self) -> None:
        self._callable(self.stack[-2])
        _Base.load_newobj(self)

    def _newobj_ex(self) -> None:
        self._callable(self.stack[-3])
        _Base.load_newobj_ex(self)

    def _instantiate(self, klass: Any, args: Any) -> None:  # OBJ and INST
        self._callable(klass)
        super()._instantiate(klass, args)

    def _build(self) -> None:
        self._fillable(self.stack[-2], "build")
        _Base.load_build(self)

    def _append(self) -> None:
        self._fillable(self.stack[-2], "append to")
        _Base.load_append(self)

    def _appends(self) -> None:
        self._fillable(self.metastack[-1][-1], "extend")
        _Base.load_appends(self)

    def _setitem(self) -> None:
        self._fillable(self.stack[-3], "set items of")
        _Base.load_setitem(self)

    def _setitems(self) -> None:
        self._fillable(self.metastack[-1][-1], "set items of")
        _Base.load_setitems(self)

    def _additems(self) -> None:
        self._fillable(self.metastack[-1][-1], "add items to")
        _Base.load_additems(self)

    def _extension(self) -> None:
        # (copyreg's extension registry caches objects outside find_class's reach; tc.save
        # never writes these opcodes)
        raise pickle.UnpicklingError("Unsupported operand: copyreg extension codes (EXT1/2/4)")

    for _op, _fn in (
        (pickle.EXT1, _extension),
        (pickle.EXT2, _extension),
        (pickle.EXT4, _extension),
        (pickle.REDUCE, _reduce),
        (pickle.NEWOBJ, _newobj),
        (pickle.NEWOBJ_EX, _newobj_ex),
        (pickle.BUILD, _build),
        (pickle.APPEND, _append),
        (pickle.APPENDS, _appends),
        (pickle.SETITEM, _setitem),
        (pickle.SETITEMS, _setitems),
        (pickle.ADDITEMS, _additems),
    ):
        dispatch[_op[0]] = _fn
    del _op, _fn


def globals_in(data: bytes) -> list[str]:
    """The globals a pickle names, in order (``GLOBAL``; ``STACK_GLOBAL`` after two strings,
    memoized ones included), read without running it."""
    import pickletools

    found: list[str] = []
    stack: list[Any] = []  # the strings pushed (None for anything else), enough for names
    memo: dict[int, Any] = {}
    for op, arg, _ in pickletools.genops(data):
        name = op.name
        if name == "GLOBAL":
            found.append(str(arg).replace(" ", ".", 1))
            stack.append(None)
        elif name == "STACK_GLOBAL":
            if len(stack) >= 2 and isinstance(stack[-1], str) and isinstance(stack[-2], str):
                found.append(f"{stack[-2]}.{stack[-1]}")
            stack.append(None)
        elif name == "MEMOIZE":
            memo[len(memo)] = stack[-1] if stack else None
        elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
            memo[int(str(arg))] = stack[-1] if stack else None
        elif name in ("GET", "BINGET", "LONG_BINGET"):
            stack.append(memo.get(int(str(arg))))
        else:
            stack.append(arg if isinstance(arg, str) and "UNICODE" in name else None)
    return list(dict.fromkeys(found))
