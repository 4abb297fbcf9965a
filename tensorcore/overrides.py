"""PyTorch's ``__torch_function__`` protocol: a type can take over the calls of tensorcore's
functions that it is passed to.

A subclass of :class:`~tensorcore.Tensor`, or any object whose type defines a
``__torch_function__`` classmethod (a "tensor-like"), given to an operator's function or
method (``tc.add(x, 1)``, ``x.sum()``) has that call handed to its
``__torch_function__(func, types, args, kwargs)``, which returns the result (or
``NotImplemented``, and the next overriding argument's type is asked). ``Tensor``'s own
``__torch_function__`` runs the function as for plain tensors and returns its tensors as
instances of the subclass, so a subclass keeps its type through the operators, as in PyTorch;
``Parameter`` opts out (``__torch_function__ = _disabled_torch_function_impl``): operators on
it return plain tensors.

The protocol costs plain tensors nothing: the operators' fast paths take plain tensors (and
the opted-out subclasses) only, and the call path looks for overriding arguments only once a
type that overrides exists (``state.active``). Functions written in Python call
:func:`has_torch_function` and :func:`handle_torch_function` themselves, as PyTorch's
``torch.nn.functional`` does.

Examples
--------
>>> import tensorcore as tc
>>> class Tagged(tc.Tensor):
...     pass
>>> x = tc.ones(2).as_subclass(Tagged)
>>> type(x + 1).__name__, type(tc.exp(x)).__name__, type(x.sum()).__name__
('Tagged', 'Tagged', 'Tagged')
>>> type(tc.nn.Parameter(tc.ones(2)) * 2).__name__
'Tensor'
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from ._tensor import Tensor

__all__ = [
    "BaseTorchFunctionMode",
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "Overriding",
    "TorchFunctionMode",
    "get_default_nowrap_functions",
    "get_ignored_functions",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "is_tensor_method_or_property",
    "overrides",
    "resolve_name",
    "state",
    "watch_modes",
    "wrap_torch_function",
]


def _disabled_torch_function_impl(
    func: Callable[..., Any], types: Any, args: Sequence[Any] = (), kwargs: Any = None
) -> Any:
    """The ``__torch_function__`` of a type that opts out of the protocol
    (``torch._C._disabled_torch_function_impl``): its instances act as plain tensors. Called,
    it runs ``func`` with the protocol off."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


class Overriding(Exception):
    """Raised by an argument check that meets a tensor-like (an object whose type defines
    ``__torch_function__``) where a tensor goes: the function that runs the check catches it
    and hands the call over; it never reaches a caller."""


class _State:
    r"""``active``: whether a type that overrides tensorcore's functions has been made (a
    subclass of Tensor that keeps ``Tensor``'s ``__torch_function__`` or defines its own) or
    met (a tensor-like), or a ``TorchFunctionMode`` is entered: until then the call path
    looks for no overriding argument. ``off``: the depth of
    :class:`DisableTorchFunctionSubclass` blocks, inside which no argument's
    ``__torch_function__`` is called. ``modes``: the entered ``TorchFunctionMode``\ s,
    innermost last (``tensorcore._function_modes``). ``modes_off``: the depth of
    :class:`DisableTorchFunction` blocks (and of backward passes), inside which the modes
    are not called either."""

    __slots__ = ("active", "modes", "modes_off", "off")

    def __init__(self) -> None:
        self.active = False
        self.off = 0
        self.modes_off = 0
        self.modes: list[Any] = []

    def intercepting(self) -> bool:
        """Whether a call may be handed over, given that an overriding type exists or a
        mode is entered (``active``): the modes call it unless a
        :class:`DisableTorchFunction` block is open, the arguments unless any
        :class:`DisableTorchFunctionSubclass` block is."""
        return not self.off or self.modes_on()

    def modes_on(self) -> bool:
        """Whether the entered modes are handed calls now: some are entered and no
        :class:`DisableTorchFunction` block (nor backward pass) is open."""
        return bool(self.modes) and not self.modes_off


#: The protocol's state, which the call path reads (two attribute loads per call).
state = _State()
# type -> whether its instances override (its __torch_function__ is not the opted-out one)
_OVERRIDING: dict[type, bool] = {Tensor: False}


def overrides(cls: type) -> bool:
    """Whether instances of ``cls`` take over the functions they are passed to: ``cls``
    defines ``__torch_function__`` and is not ``Tensor`` nor a subclass that opted out."""
    hit = _OVERRIDING.get(cls)
    if hit is None:
        tf = getattr(cls, "__torch_function__", None)
        hit = tf is not None and getattr(tf, "__func__", tf) is not _disabled_torch_function_impl
        _OVERRIDING[cls] = hit
        if hit:
            state.active = True
    return hit


def _note(cls: type) -> None:
    """Look at a subclass of Tensor just made (or found at install): whether it overrides
    is computed afresh, and one that does turns the call path's search on."""
    _OVERRIDING.pop(cls, None)
    overrides(cls)  # (which activates the protocol where it does)


def _relevant(args: Iterable[Any]) -> list[Any]:
    """The overriding arguments among ``args`` (tensor lists looked into), one per type,
    each type before its superclasses and otherwise in argument order (PyTorch's order)."""
    found: list[Any] = []
    seen: set[type] = set()
    for a in args:
        items = a if a.__class__ is list or a.__class__ is tuple else (a,)
        for v in items:
            cls = v.__class__
            if cls in seen or cls is Tensor or not overrides(cls):
                continue
            seen.add(cls)
            for i, earlier in enumerate(found):
                if issubclass(cls, earlier.__class__):
                    found.insert(i, v)
                    break
            else:
                found.append(v)
    return found


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Whether any of ``relevant_args`` (tensors, tensor lists, tensor-likes) takes over the
    call: a function written in Python then hands itself to :func:`handle_torch_function`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.overrides.has_torch_function((tc.ones(1), 2.0))
    False
    """
    return state.modes_on() or (not state.off and bool(_relevant(relevant_args)))


def has_torch_function_unary(obj: Any) -> bool:
    """:func:`has_torch_function` of one argument."""
    return state.modes_on() or (
        not state.off and obj.__class__ is not Tensor and overrides(obj.__class__)
    )


def has_torch_function_variadic(*args: Any) -> bool:
    """:func:`has_torch_function` of the arguments given."""
    return has_torch_function(args)


def handle_torch_function(
    public_api: Callable[..., Any], relevant_args: Iterable[Any], *args: Any, **kwargs: Any
) -> Any:
    """Call ``public_api(*args, **kwargs)`` through the ``__torch_function__`` of the
    overriding arguments among ``relevant_args``, in PyTorch's order, until one returns
    something other than ``NotImplemented``; a ``TypeError`` names the types if none does.

    Examples
    --------
    >>> import tensorcore as tc
    >>> class Logged:
    ...     @classmethod
    ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
    ...         return f"{func.__name__} on {len(args)} argument(s)"
    >>> def my_op(x):
    ...     if tc.overrides.has_torch_function_unary(x):
    ...         return tc.overrides.handle_torch_function(my_op, (x,), x)
    ...     return x
    >>> my_op(Logged()), tc.mean(Logged())
    ('my_op on 1 argument(s)', 'mean on 1 argument(s)')
    """
    overloaded = [] if state.off else _relevant(relevant_args)
    types = tuple(a.__class__ for a in overloaded)
    if state.modes_on():
        # The innermost mode first, with itself off while it runs (its own calls go to the
        # modes outside it, then to the arguments), as PyTorch's mode stack does.
        mode = state.modes.pop()
        try:
            res = mode.__torch_function__(public_api, types, args, kwargs)
        finally:
            state.modes.append(mode)
        if res is not NotImplemented:
            return res
    for a in overloaded:
        res = a.__torch_function__(public_api, types, args, kwargs)
        if res is not NotImplemented:
            return res
    module = getattr(public_api, "__module__", None)
    name = getattr(public_api, "__qualname__", None) or getattr(public_api, "__name__", "")
    raise TypeError(
        f"no implementation found for '{f'{module}.{name}' if module else name}' on types that "
        "implement "
        f"__torch_function__: {list(types)}"
    )


# Called with True when the first mode is entered and False when the last is left: the call
# path registers itself (``ops._call.set_intercepted``), which turns its fast lanes off
# meanwhile (they take plain tensors without looking for anything to hand the call to).
_MODE_WATCHERS: list[Callable[[bool], None]] = []


def watch_modes(callback: Callable[[bool], None]) -> None:
    """Have ``callback(on)`` called when the first ``TorchFunctionMode`` is entered (True)
    and when the last is left (False)."""
    _MODE_WATCHERS.append(callback)


class TorchFunctionMode:
    """A block in which every tensorcore function call is handed to this object's
    ``__torch_function__(func, types, args=(), kwargs=None)``, as PyTorch's mode: enter it
    with ``with``. While the handler runs, the mode is off (a call it makes goes to the modes
    entered before it, then runs as usual); modes nest, the innermost first. The handler is
    given the public function (``tensorcore.add`` for ``a + b``; a method call hands over the
    function of its operator).

    Examples
    --------
    >>> import tensorcore as tc
    >>> class Log(tc.overrides.TorchFunctionMode):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.seen = []
    ...     def __torch_function__(self, func, types, args=(), kwargs=None):
    ...         self.seen.append(func.__name__)
    ...         return func(*args, **(kwargs or {}))
    >>> with Log() as log:
    ...     y = (tc.ones(2) * 3).sum()
    >>> log.seen, y.item()
    (['ones', 'mul', 'sum'], 6.0)
    """

    def __init__(self) -> None:
        pass

    def __torch_function__(
        self, func: Callable[..., Any], types: Any, args: Sequence[Any] = (), kwargs: Any = None
    ) -> Any:
        """Run (or replace) ``func(*args, **kwargs)``; ``NotImplemented`` passes the call on
        to the arguments' own ``__torch_function__``."""
        raise NotImplementedError

    def __enter__(self) -> Any:
        _push_mode(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _pop_mode(self)

    @classmethod
    def push(cls, *args: Any, **kwargs: Any) -> Any:
        """PyTorch's deprecated spelling: a new mode, to enter with ``with``."""
        warnings.warn(
            "`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
            stacklevel=2,
        )
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode whose handler runs each function as it is: subclass it to override only some
    functions (call ``super().__torch_function__`` for the others)."""

    def __torch_function__(
        self, func: Callable[..., Any], types: Any, args: Sequence[Any] = (), kwargs: Any = None
    ) -> Any:
        """Run ``func(*args, **kwargs)``."""
        return func(*args, **(kwargs or {}))


def _push_mode(mode: Any) -> None:
    state.modes.append(mode)
    state.active = True
    if len(state.modes) == 1:
        for watch in _MODE_WATCHERS:
            watch(True)


def _pop_mode(mode: Any = None) -> Any:
    """Leave ``mode`` (the innermost one when None); returns it."""
    if not state.modes:
        raise RuntimeError("Trying to pop from an empty mode stack")
    if mode is None or state.modes[-1] is mode:
        mode = state.modes.pop()
    else:
        state.modes.remove(mode)
    if not state.modes:
        state.active = any(_OVERRIDING.values())
        for watch in _MODE_WATCHERS:
            watch(False)
    return mode


def _get_current_function_mode() -> Any:
    """The innermost entered mode, or None."""
    return state.modes[-1] if state.modes else None


def _get_current_function_mode_stack() -> list[Any]:
    """The entered modes, innermost last."""
    return list(state.modes)


def _len_torch_function_stack() -> int:
    return len(state.modes)


@contextlib.contextmanager
def _pop_mode_temporarily() -> Iterator[Any]:
    """A block without the innermost mode (given to the block), entered again after it."""
    mode = _pop_mode()
    try:
        yield mode
    finally:
        _push_mode(mode)


def wrap_torch_function(dispatcher: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a function so that it hands itself over (:func:`handle_torch_function`)
    where an argument that ``dispatcher(*args, **kwargs)`` returns overrides, or a mode is
    entered.

    Examples
    --------
    >>> import tensorcore as tc
    >>> @tc.overrides.wrap_torch_function(lambda x: (x,))
    ... def twice(x):
    ...     return x * 2
    >>> twice(tc.ones(1))
    tensor([2.])
    """

    def inner(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)

        return wrapped

    return inner


def is_tensor_method_or_property(func: Callable[..., Any]) -> bool:
    """Whether ``func`` is a method of ``Tensor`` or a property's getter (whose handler is
    given the tensor as its first argument)."""
    return getattr(func, "__name__", None) == "__get__" or any(
        v is func for v in vars(Tensor).values()
    )


def resolve_name(f: Callable[..., Any]) -> str | None:
    """The dotted name of a function (``tensorcore.add``), or None where it has none."""
    module = getattr(f, "__module__", None)
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None)
    return f"{module}.{name}" if module and name else None


def get_ignored_functions() -> set[Callable[..., Any]]:
    """The public functions that never hand themselves over: in tensorcore those that take
    no tensor (the factories hand themselves over only to modes), so none is listed."""
    return set()


def get_default_nowrap_functions() -> set[Callable[..., Any]]:
    """The functions whose results ``Tensor.__torch_function__`` returns unconverted: in
    PyTorch the attribute reads that hand out another tensor's identity (``.grad``), which
    tensorcore does not hand over, so none."""
    return set()


def is_tensor_like(inp: Any) -> bool:
    """Whether ``inp`` is a tensor or a tensor-like (its type defines
    ``__torch_function__``), as PyTorch's.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.overrides.is_tensor_like(tc.ones(1)), tc.overrides.is_tensor_like([1.0])
    (True, False)
    """
    return isinstance(inp, Tensor) or hasattr(type(inp), "__torch_function__")


class DisableTorchFunctionSubclass:
    r"""A block in which no argument's ``__torch_function__`` is called: functions run as on
    plain tensors (``Tensor.__torch_function__`` runs the function in one). The entered
    ``TorchFunctionMode``\ s are still called, as in PyTorch. Also a decorator."""

    def __enter__(self) -> DisableTorchFunctionSubclass:
        state.off += 1
        return self

    def __exit__(self, *exc: Any) -> None:
        state.off -= 1

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            with self.__class__():
                return fn(*args, **kwargs)

        return run


class DisableTorchFunction(DisableTorchFunctionSubclass):
    r"""A block in which neither the arguments' ``__torch_function__`` nor the entered
    ``TorchFunctionMode``\ s are called."""

    def __enter__(self) -> DisableTorchFunction:
        state.off += 1
        state.modes_off += 1
        return self

    def __exit__(self, *exc: Any) -> None:
        state.off -= 1
        state.modes_off -= 1


def _convert(ret: Any, cls: type) -> Any:
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if ret.__class__ is tuple or ret.__class__ is list:
        return ret.__class__(_convert(r, cls) for r in ret)
    if isinstance(ret, tuple) and hasattr(ret, "_fields"):  # (a named tuple of results)
        return ret.__class__(*(_convert(r, cls) for r in ret))
    return ret


def _tensor_torch_function(
    cls: type, func: Callable[..., Any], types: Any, args: Sequence[Any] = (), kwargs: Any = None
) -> Any:
    """``Tensor.__torch_function__``: ``func`` run as on plain tensors, its tensor results
    returned as instances of ``cls`` (a subclass), as PyTorch's."""
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        return _convert(func(*args, **(kwargs or {})), cls)


def _init_subclass(cls: type, **kwargs: Any) -> None:
    super(Tensor, cls).__init_subclass__(**kwargs)  # type: ignore[misc]
    _note(cls)


def install() -> None:
    """Give ``Tensor`` PyTorch's ``__torch_function__`` and note each subclass made later."""
    Tensor.__torch_function__ = classmethod(_tensor_torch_function)  # type: ignore[attr-defined]
    Tensor.__init_subclass__ = classmethod(_init_subclass)  # type: ignore[assignment,method-assign]
    for cls in _subclasses(Tensor):
        _note(cls)


def _subclasses(cls: type) -> list[type]:
    out: list[type] = []
    sub: type
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out
