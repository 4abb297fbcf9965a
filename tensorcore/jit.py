"""``tensorcore.jit``: PyTorch's TorchScript names, for programs that use them.

tensorcore has no compiler: every program runs eagerly, in Python. TorchScript's semantics
are a subset of Python's, so a scripted or traced function computes what the plain function
computes; these functions let such programs run unchanged, as :func:`tensorcore.compile`
does for ``torch.compile``:

- :func:`script` returns the function or module it is given (also as a decorator); a module
  becomes a :class:`ScriptModule` too (its class a subclass of its own that adds
  :meth:`ScriptModule.save`), so that ``torch.jit.script(model).save(path)`` works;
- :func:`trace` runs the function or module once on the example inputs (as PyTorch does,
  so that an input it cannot take fails there) and returns it (a module, as a
  :class:`ScriptModule`); during that run, as PyTorch's
  tracer, it warns :class:`TracerWarning` where the function turns a tensor into a Python
  value (``.item()``, ``bool(t)``, ``int(t)``, ``float(t)``, ``.tolist()``) or makes one with
  ``tensorcore.tensor``: PyTorch's trace would freeze that value as a constant;
- :func:`save` writes a module with :func:`tensorcore.save` (pickled around its tensors,
  with ``_extra_files``) and :func:`load` reads it back, as a ``ScriptModule``: a program
  that saves and reloads its scripted model runs. The file holds no compiled code: loading
  it needs the module's classes importable (as ``tensorcore.load`` of a whole module does)
  and unpickles, so load only files you trust. A TorchScript archive written by PyTorch
  raises ``NotImplementedError`` (tensorcore cannot run its compiled code);
- :func:`ignore`, :func:`unused`, :func:`export`, :func:`script_if_tracing`,
  :func:`freeze`, :func:`optimize_for_inference` return what they are given;
  :func:`is_scripting` and :func:`is_tracing` are False; :func:`annotate` returns the value;
  :func:`fork` runs the function at once and :func:`wait` returns its result.

Examples
--------
>>> import tensorcore as tc
>>> @tc.jit.script
... def scaled(x: tc.Tensor, k: float) -> tc.Tensor:
...     return x * k
>>> scaled(tc.ones(2), 3.0)
tensor([3., 3.])
>>> net = tc.nn.Linear(2, 1)
>>> tc.jit.trace(net, tc.ones(1, 2)) is net
True
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any, Final, Generic, TypeVar

from .autograd import no_grad
from .nn.modules.module import Module
from .serialization import load as _tc_load
from .serialization import save as _tc_save

__all__ = [
    "Final",
    "Future",
    "ScriptModule",
    "TracerWarning",
    "annotate",
    "export",
    "fork",
    "freeze",
    "ignore",
    "is_scripting",
    "is_tracing",
    "load",
    "optimize_for_inference",
    "save",
    "script",
    "script_if_tracing",
    "script_method",
    "trace",
    "unused",
    "wait",
]

_T = TypeVar("_T")
# ``Final`` is ``torch.jit.Final``: ``typing.Final`` (a class attribute that does not change).


def script(obj: Any = None, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None,
           example_inputs: Any = None) -> Any:  # fmt: skip
    """``torch.jit.script``: returns ``obj`` (a function, module or class) as it is, since
    tensorcore runs eagerly; used as ``@script`` it leaves the function unchanged. A module
    instance becomes a :class:`ScriptModule` (see :func:`_scripted`)."""
    return _scripted(obj)


class ScriptModule(Module):
    """``torch.jit.ScriptModule``: what :func:`script`, :func:`trace` and :func:`load` make of
    a module. tensorcore gives the module's own class this base (a subclass made once per
    class, with the class's name), so the module keeps its type, its forward and its
    ``repr``; :meth:`save` is :func:`save`. A module may also subclass it, as TorchScript's
    older API has it (with :func:`script_method` on its methods).

    Examples
    --------
    >>> import io
    >>> import tensorcore as tc
    >>> net = tc.jit.script(tc.nn.Linear(2, 1))
    >>> isinstance(net, tc.jit.ScriptModule), isinstance(net, tc.nn.Linear)
    (True, True)
    >>> buf = io.BytesIO()
    >>> net.save(buf)
    >>> _ = buf.seek(0)
    >>> tc.jit.load(buf)
    Linear(in_features=2, out_features=1, bias=True)
    """

    def save(self, f: str | os.PathLike[str] | Any, _extra_files: Any = None) -> None:
        """Write the module to ``f`` (a path or binary file): :func:`save`."""
        save(self, f, _extra_files)

    def __reduce_ex__(self, protocol: Any) -> Any:
        # A module scripted by ``script``: pickled as an instance of its own class (the
        # subclass is made at run time, so pickle could not find it by name), scripted again
        # when unpickled (a deepcopy too). A subclass written by hand pickles as any object.
        original = type(self).__dict__.get("_scripted_from")
        if original is None:
            return object.__reduce_ex__(self, protocol)
        plain: Any = object.__new__(original)
        plain.__dict__.update(self.__dict__)
        return _scripted, (plain,)


def script_method(fn: _T) -> _T:
    """``torch.jit.script_method``: returns the method (a :class:`ScriptModule` subclass's
    methods run as written)."""
    return fn


# module class -> its ScriptModule subclass (made once, named as the class, which notes the
# class it was made for as ``_scripted_from``)
_SCRIPTED: dict[type, type] = {}


def _scripted(obj: Any) -> Any:
    """``obj``, a module instance, with its class changed to its :class:`ScriptModule`
    subclass (in place: the module is the same object, as tensorcore's script returns what it
    is given); anything else as it is."""
    if not isinstance(obj, Module) or isinstance(obj, ScriptModule):
        return obj
    cls = type(obj)
    sub = _SCRIPTED.get(cls)
    if sub is None:
        sub = _SCRIPTED[cls] = type(
            cls.__name__,
            (ScriptModule, cls),
            {"__module__": cls.__module__, "_scripted_from": cls},
        )
    obj.__class__ = sub
    return obj


def trace(func: Any, example_inputs: Any = None, *args: Any, **kwargs: Any) -> Any:
    """``torch.jit.trace``: calls ``func`` once on ``example_inputs`` (a tensor or a tuple
    of arguments; ``example_kwarg_inputs=`` a dict) and returns ``func``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> f = tc.jit.trace(lambda a, b: a + b, (tc.ones(2), tc.ones(2)))
    >>> f(tc.ones(1), tc.ones(1))
    tensor([2.])
    """
    kw = kwargs.get("example_kwarg_inputs")
    if example_inputs is None and kw is None:
        raise RuntimeError("trace(): example_inputs or example_kwarg_inputs must be given")
    pos = example_inputs if isinstance(example_inputs, tuple) else (
        () if example_inputs is None else (example_inputs,))  # fmt: skip
    with no_grad(), _tracer_warnings():
        func(*pos, **(kw or {}))
    return _scripted(func)


class TracerWarning(Warning):
    """``torch.jit.TracerWarning``: :func:`trace`'s warning that the traced function turns a
    tensor into a Python value (``.item()``, ``bool(t)``...), which PyTorch's trace records
    as a constant, so that the trace may not generalize to other inputs."""

    @staticmethod
    def ignore_lib_warnings() -> None:
        """Ignore the warnings raised inside tensorcore itself (as PyTorch ignores its own)."""
        warnings.filterwarnings("ignore", category=TracerWarning, module="tensorcore(?!.jit)")


_CONVERTED = (
    "Converting a tensor to a Python {} might cause the trace to be incorrect. We can't record "
    "the data flow of Python values, so this value will be treated as a constant in the "
    "future. This means that the trace might not generalize to other inputs!"
)
_CONSTANT = (
    "torch.tensor results are registered as constants in the trace. You can safely ignore "
    "this warning if you use this function to create tensors out of constant variables that "
    "would be the same every time you call this function. In any other case, this might cause "
    "the trace to be incorrect."
)
#: The Tensor methods that give Python values, and what PyTorch's warning calls the value.
_CONVERSIONS = {
    "item": "number",
    "__bool__": "boolean",
    "__int__": "integer",
    "__float__": "float",
    "tolist": "list",
}
_tracing = [0]  # depth of nested trace() runs


def _warning(fn: Callable[..., Any], message: str) -> Callable[..., Any]:
    def warned(*args: Any, **kwargs: Any) -> Any:
        # (not for calls that tensorcore makes itself: bool(t) calls t.item())
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller != "tensorcore" and not caller.startswith("tensorcore."):
            warnings.warn(message, TracerWarning, stacklevel=2)
        return fn(*args, **kwargs)

    warned.__name__ = getattr(fn, "__name__", "warned")
    warned.__doc__ = fn.__doc__
    return warned


@contextlib.contextmanager
def _tracer_warnings() -> Iterator[None]:
    """Swap the Tensor methods that give Python values (and ``tensorcore.tensor``) for
    warning ones during :func:`trace`'s run, and back: nothing costs more outside it."""
    import tensorcore

    from ._tensor import Tensor

    _tracing[0] += 1
    saved: list[tuple[Any, str, Any]] = []
    try:
        if _tracing[0] == 1:
            for name, what in _CONVERSIONS.items():
                saved.append((Tensor, name, Tensor.__dict__[name]))
                setattr(Tensor, name, _warning(Tensor.__dict__[name], _CONVERTED.format(what)))
            saved.append((tensorcore, "tensor", tensorcore.tensor))
            tensorcore.tensor = _warning(tensorcore.tensor, _CONSTANT)
        yield
    finally:
        for owner, name, value in reversed(saved):
            setattr(owner, name, value)
        _tracing[0] -= 1


def _returns_first(name: str) -> Callable[..., Any]:
    def same(obj: Any = None, *args: Any, **kwargs: Any) -> Any:
        return obj

    same.__name__ = same.__qualname__ = name
    same.__doc__ = f"``torch.jit.{name}``: returns what it is given (tensorcore runs eagerly)."
    return same


ignore = _returns_first("ignore")
unused = _returns_first("unused")
export = _returns_first("export")
script_if_tracing = _returns_first("script_if_tracing")
freeze = _returns_first("freeze")
optimize_for_inference = _returns_first("optimize_for_inference")


def is_scripting() -> bool:
    """``torch.jit.is_scripting``: False (nothing is compiled)."""
    return False


def is_tracing() -> bool:
    """``torch.jit.is_tracing``: False (:func:`trace` runs the function as it is)."""
    return False


def annotate(the_type: Any, the_value: _T) -> _T:
    """``torch.jit.annotate``: returns ``the_value``."""
    return the_value


class Future(Generic[_T]):
    """The result of :func:`fork`: the call has already run."""

    def __init__(self, value: _T) -> None:
        self._value = value

    def wait(self) -> _T:
        """The call's result."""
        return self._value

    def done(self) -> bool:
        """True: the call ran when it was forked."""
        return True


def fork(func: Callable[..., _T], *args: Any, **kwargs: Any) -> Future[_T]:
    """``torch.jit.fork``: runs ``func(*args, **kwargs)`` now; :func:`wait` gives its result."""
    return Future(func(*args, **kwargs))


def wait(future: Future[_T]) -> _T:
    """``torch.jit.wait``: the result of a :func:`fork`."""
    return future.wait()


_ARCHIVE_KEY = "tensorcore.jit"


def save(m: Any, f: str | os.PathLike[str] | Any, _extra_files: Any = None) -> None:
    """``torch.jit.save``: write the module ``m`` to ``f`` (a path or binary file) with
    :func:`tensorcore.save`, pickled around its tensors, with ``_extra_files`` (a dict of
    names to ``str`` or ``bytes``) beside it. :func:`load` reads it back. The file holds no
    compiled code: loading it needs the module's classes importable."""
    if not isinstance(m, Module):
        raise TypeError(
            f"jit.save(): expected a module (an nn.Module, scripted or not), got "
            f"{type(m).__name__}: tensorcore writes modules only (save a function's module)"
        )
    extra = {}
    for name, content in (_extra_files or {}).items():
        if not isinstance(content, (str, bytes)):
            raise TypeError(f"jit.save(): _extra_files[{name!r}] must be str or bytes")
        extra[str(name)] = content.encode() if isinstance(content, str) else bytes(content)
    _tc_save({_ARCHIVE_KEY: 1, "module": m, "extra_files": extra}, f)


def load(
    f: str | os.PathLike[str] | Any, map_location: Any = None, _extra_files: Any = None
) -> Any:
    """``torch.jit.load``: the module :func:`save` wrote to ``f``, as a :class:`ScriptModule`,
    its tensors placed by ``map_location`` (as :func:`tensorcore.load`'s); the names of
    ``_extra_files`` (a dict) get the saved contents (``bytes``), as PyTorch fills them. A
    module saved whole with :func:`tensorcore.save` loads too. This unpickles the file:
    load only files you trust. A TorchScript archive written by PyTorch (a zip of compiled
    code) raises ``NotImplementedError``: tensorcore cannot run its code."""
    if _is_zip(f):
        raise NotImplementedError(
            "jit.load(): this is a TorchScript archive written by PyTorch; tensorcore cannot "
            "run its compiled code. Save the model's state_dict() with torch.save, load it "
            "with tensorcore.load and load_state_dict() it into the model's class"
        )
    obj = _tc_load(f, map_location, weights_only=False)
    if isinstance(obj, dict) and obj.get(_ARCHIVE_KEY) == 1:
        saved: dict[str, bytes] = obj.get("extra_files") or {}
        if _extra_files is not None:
            for name in list(_extra_files):
                if name in saved:
                    _extra_files[name] = saved[name]
        obj = obj["module"]
    if not isinstance(obj, Module):
        raise RuntimeError(
            f"jit.load(): the file holds a {type(obj).__name__}, not a module; load it with "
            "tensorcore.load"
        )
    return _scripted(obj)


def _is_zip(f: Any) -> bool:
    """Whether ``f`` (a path or a seekable binary file, left where it was) starts as a zip."""
    magic = b"PK\x03\x04"
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return fh.read(4) == magic
    pos = f.tell()
    try:
        return bool(f.read(4) == magic)
    finally:
        f.seek(pos)
