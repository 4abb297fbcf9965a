"""``tensorcore.jit``: PyTorch's TorchScript names, for programs that use them.

tensorcore has no compiler: every program runs eagerly, in Python. TorchScript's semantics
are a subset of Python's, so a scripted or traced function computes what the plain function
computes; these functions let such programs run unchanged, as :func:`tensorcore.compile`
does for ``torch.compile``:

- :func:`script` returns the function or module it is given (also as a decorator);
- :func:`trace` runs the function or module once on the example inputs (as PyTorch does,
  so that an input it cannot take fails there) and returns it; during that run, as PyTorch's
  tracer, it warns :class:`TracerWarning` where the function turns a tensor into a Python
  value (``.item()``, ``bool(t)``, ``int(t)``, ``float(t)``, ``.tolist()``) or makes one with
  ``tensorcore.tensor``: PyTorch's trace would freeze that value as a constant;
- :func:`save` and :func:`load` raise ``NotImplementedError`` naming what to do instead
  (save the ``state_dict()``): there is no archive of compiled code to write or read;
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

__all__ = [
    "Final",
    "Future",
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
    "trace",
    "unused",
    "wait",
]

_T = TypeVar("_T")
# ``Final`` is ``torch.jit.Final``: ``typing.Final`` (a class attribute that does not change).


def script(obj: Any = None, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None,
           example_inputs: Any = None) -> Any:  # fmt: skip
    """``torch.jit.script``: returns ``obj`` (a function, module or class) as it is, since
    tensorcore runs eagerly; used as ``@script`` it leaves the function unchanged."""
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
    return func


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


_NO_ARCHIVE = (
    "tensorcore has no TorchScript, so there is no archive of compiled code to {}: save the "
    "model's state_dict() with tensorcore.save and load it into a new model with "
    "load_state_dict() (or pickle the model object)"
)


def save(m: Any, f: str | os.PathLike[str] | Any, _extra_files: Any = None) -> None:
    """``torch.jit.save``: raises ``NotImplementedError`` saying what to do instead (a
    TorchScript archive holds compiled code, which tensorcore does not make)."""
    raise NotImplementedError("jit.save(): " + _NO_ARCHIVE.format("write"))


def load(
    f: str | os.PathLike[str] | Any, map_location: Any = None, _extra_files: Any = None
) -> Any:
    """``torch.jit.load``: raises ``NotImplementedError`` saying what to do instead
    (tensorcore cannot run a TorchScript archive's compiled code)."""
    raise NotImplementedError("jit.load(): " + _NO_ARCHIVE.format("read"))
