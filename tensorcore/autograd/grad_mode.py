"""Grad mode: whether operators record the autograd graph (thread-local, as in PyTorch)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from .. import _storage

__all__ = [
    "enable_grad",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_grad_enabled",
]

F = TypeVar("F", bound=Callable[..., Any])


class _State(threading.local):
    def __init__(self) -> None:
        self.enabled = True
        self.inference = False


_state = _State()


class _DualState:
    """Forward-mode AD's state (global, not per thread, as in PyTorch): ``on`` while a dual
    level is open and its tangents propagate, the level's number, and weak references to the
    tensors that got a tangent in it (their tangents are dropped when it exits). The call
    path reads ``on`` only after an input was found to require grad, which every dual tensor
    does internally (``tensorcore/autograd/_dual.py``), so a call on plain tensors never
    reads it."""

    __slots__ = ("compact_at", "level", "on", "tensors")

    def __init__(self) -> None:
        self.on = False
        self.level: int | None = None
        self.tensors: list[Any] = []
        self.compact_at = 1024  # (the length at which dead references are dropped)


dual = _DualState()
# Counts the open inference_mode blocks of all threads (``_storage.INFERENCE``).
_blocks_lock = threading.Lock()


def is_grad_enabled() -> bool:
    """Whether operators currently record the autograd graph.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.is_grad_enabled()
    True
    >>> with tc.no_grad():
    ...     tc.is_grad_enabled()
    False
    """
    return _state.enabled


def is_inference_mode_enabled() -> bool:
    """Whether an :class:`inference_mode` block is active.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.is_inference_mode_enabled()
    False
    >>> with tc.inference_mode():
    ...     tc.is_inference_mode_enabled()
    True
    """
    return _state.inference


_storage.INFERENCE[1] = is_inference_mode_enabled


class _Mode:
    """Base for grad-mode switches usable as context managers and decorators."""

    _target: bool = True

    def __enter__(self) -> None:
        self._prev = _state.enabled
        _state.enabled = self._target

    def __exit__(self, *exc: object) -> None:
        _state.enabled = self._prev

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class no_grad(_Mode):
    """Context manager and decorator that turns graph recording off.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.ones(2, requires_grad=True)
    >>> with tc.no_grad():
    ...     (x * 2).requires_grad
    False
    """

    _target = False


class enable_grad(_Mode):
    """Context manager and decorator that turns graph recording on (inside ``no_grad``)."""

    _target = True


class set_grad_enabled(_Mode):
    """Turn graph recording on or off: as a function call, a context manager or a decorator.

    Examples
    --------
    >>> import tensorcore as tc
    >>> with tc.set_grad_enabled(False):
    ...     tc.is_grad_enabled()
    False
    """

    def __init__(self, mode: bool) -> None:
        if mode is not True and mode is not False:
            raise TypeError(
                f"set_grad_enabled(): argument 'mode' must be bool, not {type(mode).__name__}"
            )
        self._target = mode
        self._prev = _state.enabled
        _state.enabled = self._target

    def __enter__(self) -> None:
        pass

    def __call__(self, fn: F) -> F:
        _state.enabled = self._prev
        target = self._target

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(target):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class inference_mode(_Mode):
    """Like :class:`no_grad`; tensors made inside never record history, and are *inference
    tensors* (``Tensor.is_inference()``), as are the views of them; a view of an ordinary
    tensor taken inside stays ordinary.

    ``inference_mode(False)`` turns inference mode off and grad mode on, as PyTorch's does
    (even inside ``no_grad``).
    """

    def __init__(self, mode: bool = True) -> None:
        if mode is not True and mode is not False:
            raise TypeError(
                f"inference_mode(): argument 'mode' must be bool, not {type(mode).__name__}"
            )
        self._mode = mode

    def __enter__(self) -> None:
        self._prev = _state.enabled
        self._prev_inf = _state.inference
        _state.enabled = not self._mode
        _state.inference = self._mode
        if self._mode:
            with _blocks_lock:
                _storage.INFERENCE[0] += 1

    def __exit__(self, *exc: object) -> None:
        _state.enabled = self._prev
        _state.inference = self._prev_inf
        if self._mode:
            with _blocks_lock:
                _storage.INFERENCE[0] -= 1

    def __call__(self, fn: F) -> F:
        mode = self._mode

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(mode):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]
