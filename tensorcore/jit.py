"""``tensorcore.jit``: PyTorch's TorchScript names, for programs that use them.

tensorcore has no compiler: every program runs eagerly, in Python. TorchScript's semantics
are a subset of Python's, so a scripted or traced function computes what the plain function
computes; these functions let such programs run unchanged, as :func:`tensorcore.compile`
does for ``torch.compile``:

- :func:`script` returns the function or module it is given (also as a decorator);
- :func:`trace` runs the function or module once on the example inputs (as PyTorch does,
  so that an input it cannot take fails there) and returns it;
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

import os
from collections.abc import Callable
from typing import Any, Final, Generic, TypeVar

from .autograd import no_grad

__all__ = [
    "Final",
    "Future",
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
    with no_grad():
        func(*pos, **(kw or {}))
    return func


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
