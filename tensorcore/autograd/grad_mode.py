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
        # The grad mode the blocks and calls of this module set, which the library's own
        # switches of ``enabled`` (recording off while a kernel runs) leave alone: the mode
        # a view is made in (``view_meta``).
        self.user = True


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

#: How a view was made, where not in grad mode by a plain view operator (PyTorch's
#: ``CreationMeta``; that plain case is ``Tensor._view_meta`` None): the code of the way
#: below, plus eight times the view's version count when it was made (an int, so that a
#: view made under ``no_grad`` allocates nothing more). ``autograd._view_history`` reads it.
NO_GRAD_MODE = 1
INFERENCE_MODE = 2
MULTI_OUTPUT_NODE = 3
IN_CUSTOM_FUNCTION = 4

#: One entry for each thread whose grad mode is off (``no_grad``, ``set_grad_enabled(False)``,
#: ``inference_mode``; ``_State.user``; appending and popping need no lock): while it is
#: empty, a view being made is made in grad mode, which ``make_view`` (run for every view)
#: learns without reading this thread's state.
OFF: list[None] = []


def _set_user(st: _State, on: bool) -> None:
    if st.user is not on:
        st.user = on
        if on:
            OFF.pop()
        else:
            OFF.append(None)


def view_meta(base: Any, inherited: int | None) -> int | None:
    """``Tensor._view_meta`` of a view of ``base`` being made now, where ``base`` is a view
    whose own is ``inherited`` (else None) or a grad-disabling block is open somewhere: as
    PyTorch propagates it, a view made in grad mode takes its parent's way (made again at
    the current count), one made under ``no_grad`` or ``inference_mode`` is of that way,
    except that a view of one made in inference mode stays of that way.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.autograd import grad_mode
    >>> x = tc.ones(3, requires_grad=True)
    >>> with tc.no_grad():
    ...     v = x[1:]
    >>> v._view_meta & 7 == grad_mode.NO_GRAD_MODE, x[1:]._view_meta
    (True, None)
    """
    st = _state
    if st.inference:
        mode = INFERENCE_MODE
        if base._storage is not None and base._storage.inference:
            return None  # (a view of an inference tensor: no view for autograd)
    elif not st.user:
        mode = NO_GRAD_MODE
    elif inherited is None:
        return None
    else:
        mode = inherited & 7
    if inherited is not None and inherited & 7 == INFERENCE_MODE:
        mode = INFERENCE_MODE
    return base._version << 3 | mode


def mark_view(t: Any, mode: int) -> None:
    """Note that view ``t`` (a tensor whose ``_base`` is set) was made as ``mode`` says
    (``MULTI_OUTPUT_NODE``: by a function returning several views; ``IN_CUSTOM_FUNCTION``:
    by a custom ``Function``), where it was made in grad mode (one made under ``no_grad`` or
    in inference mode stays of that way, as PyTorch propagates it)."""
    m = t._view_meta
    if m is None or m & 7 not in (NO_GRAD_MODE, INFERENCE_MODE):
        t._view_meta = t._version << 3 | mode


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
        st = _state
        self._prev = st.enabled
        self._prev_user = u = st.user
        st.enabled = t = self._target
        if u is not t:  # (_set_user, inlined: no_grad blocks are entered in loops)
            st.user = t
            if t:
                OFF.pop()
            else:
                OFF.append(None)

    def __exit__(self, *exc: object) -> None:
        st = _state
        st.enabled = self._prev
        u = self._prev_user
        if st.user is not u:
            st.user = u
            if u:
                OFF.pop()
            else:
                OFF.append(None)

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
        st = _state
        self._target = mode
        self._prev = st.enabled
        self._prev_user = st.user
        st.enabled = mode
        _set_user(st, mode)

    def __enter__(self) -> None:
        pass

    def __call__(self, fn: F) -> F:
        _state.enabled = self._prev
        _set_user(_state, self._prev_user)
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
        self._prev_user = _state.user
        self._prev_inf = _state.inference
        _state.enabled = not self._mode
        _set_user(_state, not self._mode)
        _state.inference = self._mode
        if self._mode:
            with _blocks_lock:
                _storage.INFERENCE[0] += 1

    def __exit__(self, *exc: object) -> None:
        _state.enabled = self._prev
        _set_user(_state, self._prev_user)
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
