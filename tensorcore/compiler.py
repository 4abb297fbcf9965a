"""``tensorcore.compiler``: PyTorch's ``torch.compiler`` for code that asks about or steers
compilation. tensorcore runs every program eagerly, so nothing is ever being compiled:
``is_compiling()`` is False, the decorators return their function unchanged and
:func:`compile` returns a function as it is and a module wrapped as PyTorch wraps it.

Examples
--------
>>> import tensorcore as tc
>>> tc.compiler.is_compiling()
False
>>> @tc.compiler.disable
... def step(x):
...     return x + 1
>>> step(tc.tensor(1))
tensor(2)
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from ._runtime import compile

__all__ = [
    "allow_in_graph",
    "assume_constant_result",
    "compile",
    "cudagraph_mark_step_begin",
    "disable",
    "is_compiling",
    "is_dynamo_compiling",
    "is_exporting",
    "list_backends",
    "reset",
    "set_stance",
    "substitute_in_graph",
]

F = TypeVar("F", bound=Callable[..., Any])


def is_compiling() -> bool:
    """Whether the code runs inside a compiled region: never here (tensorcore is eager)."""
    return False


def is_dynamo_compiling() -> bool:
    """Whether a graph is being traced: never here."""
    return False


def is_exporting() -> bool:
    """Whether a model is being exported: never here."""
    return False


def disable(fn: Any = None, recursive: bool = True, *, reason: str | None = None) -> Any:
    """Keep ``fn`` out of compilation: a decorator (with or without arguments) that returns
    ``fn`` unchanged, since nothing is compiled."""
    if fn is None:
        return lambda f: f
    return fn


def allow_in_graph(fn: F) -> F:
    """Let a compiled graph call ``fn`` as it is: ``fn`` unchanged."""
    return fn


def assume_constant_result(fn: F) -> F:
    """Treat ``fn``'s result as a constant while compiling: ``fn`` unchanged."""
    return fn


def substitute_in_graph(original_fn: Any, *, can_constant_fold_through: bool = False,
                        skip_signature_check: bool = False) -> Callable[[F], F]:  # fmt: skip
    """Register a traceable stand-in for ``original_fn``: the stand-in, unchanged (nothing
    is traced here)."""
    return lambda fn: fn


def reset() -> None:
    """Clear the compilation caches: there are none."""


def list_backends(exclude_tags: Any = ("debug", "experimental")) -> list[str]:
    """The compilation backends available: none (tensorcore runs eagerly)."""
    return []


def cudagraph_mark_step_begin() -> None:
    """Mark the start of a training step for CUDA graphs: nothing to mark here."""


@contextlib.contextmanager
def _stance() -> Iterator[None]:
    yield


def set_stance(stance: str = "default", *, skip_guard_eval_unsafe: bool = False,
               force_backend: Any = None) -> Any:  # fmt: skip
    """Change how compiled functions behave (a context manager and a decorator, as
    PyTorch's): nothing is compiled here, so it changes nothing."""
    if stance not in ("default", "force_eager", "eager_on_recompile", "fail_on_recompile",
                      "eager_then_compile", "aot_eager_then_compile"):  # fmt: skip
        raise RuntimeError(f"invalid torch.compile stance '{stance}'")
    return _stance()
