"""``tc.autocast``: regions where operators run in a lower-precision dtype, as PyTorch's.

Inside ``with tc.autocast(device_type, dtype=...)``, each out-of-place call of an operator
that declares an ``autocast=`` policy (``ops/schema/``) first casts its floating tensor
arguments on that device type:

* ``"lower"`` (matmuls, convolutions, ``linear``): floating inputs to the region's dtype
  (bfloat16 by default on the CPU, float16 on CUDA);
* ``"fp32"`` (decompositions, FFTs, ``prod``, ``nll_loss``, the loss functions): 16-bit inputs
  to float32;
* ``"promote"`` (``cat``, ``stack``): every floating input to the widest one's dtype.

float64 tensors are never cast, as in PyTorch. The casts are ordinary recorded operators, so
gradients flow back to float32 parameters in float32. In-place calls, ``out=`` calls and
operators without a policy run as they are. The state is per thread, as in PyTorch; regions
nest, and ``enabled=False`` turns it off inside.
"""

from __future__ import annotations

import functools
import threading
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from .. import dtypes as dt
from .._tensor import Tensor, tensors_in
from ..ops import _call

__all__ = [
    "autocast",
    "autocast_decrement_nesting",
    "autocast_increment_nesting",
    "clear_autocast_cache",
    "custom_fwd",
    "get_autocast_cpu_dtype",
    "get_autocast_dtype",
    "get_autocast_gpu_dtype",
    "get_autocast_ipu_dtype",
    "get_autocast_xla_dtype",
    "is_autocast_cache_enabled",
    "is_autocast_cpu_enabled",
    "is_autocast_enabled",
    "is_autocast_ipu_enabled",
    "is_autocast_xla_enabled",
    "set_autocast_cache_enabled",
    "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled",
    "set_autocast_dtype",
    "set_autocast_enabled",
    "set_autocast_gpu_dtype",
    "set_autocast_ipu_dtype",
    "set_autocast_ipu_enabled",
    "set_autocast_xla_dtype",
    "set_autocast_xla_enabled",
]

_F = TypeVar("_F", bound=Callable[..., Any])

#: The default lower-precision dtype of each device type (PyTorch's; ``xla``'s is bfloat16).
_DEFAULT_DTYPES = {"cpu": dt.bfloat16, "cuda": dt.float16, "xla": dt.bfloat16}
_LOWER_OK = {"cpu": (dt.bfloat16, dt.float16), "cuda": (dt.float16, dt.bfloat16)}


class _State(threading.local):
    """Per thread: the device types whose autocast is on, with their dtypes; the dtypes set
    with :func:`set_autocast_dtype`; the device types turned on by
    :func:`set_autocast_enabled` (outside any region); the regions' nesting; whether casts
    would be cached."""

    def __init__(self) -> None:
        self.on: dict[str, dt.dtype] = {}
        self.dtypes: dict[str, dt.dtype] = {}
        self.manual: set[str] = set()
        self.nesting = 0
        self.cache = True


_state = _State()
_lock = threading.Lock()
_active = 0  # regions entered and not yet left, over all threads: the call path's hook is
# installed while there is one, so calls outside any region pay nothing


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on in this thread for ``device_type`` (``"cuda"`` when not given,
    as in PyTorch).

    Examples
    --------
    >>> import tensorcore as tc
    >>> with tc.autocast("cpu"):
    ...     tc.is_autocast_enabled("cpu")
    True
    """
    return (device_type or "cuda") in _state.on


def _is_any_autocast_enabled() -> bool:
    """Whether autocast is on in this thread for any device type (layers that refuse mixed
    dtypes, as an RNN's input and weights, let them through inside a region)."""
    return bool(_state.on)


def get_autocast_dtype(device_type: str) -> dt.dtype:
    """The lower-precision dtype autocast uses for ``device_type`` in this thread (the
    default when no region is active).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.get_autocast_dtype("cpu")
    tensorcore.bfloat16
    """
    return (
        _state.on.get(device_type)
        or _state.dtypes.get(device_type)
        or _DEFAULT_DTYPES.get(device_type, dt.float16)
    )


def set_autocast_dtype(device_type: str, dtype: dt.dtype) -> None:
    """Set the dtype autocast uses for ``device_type`` in this thread: a region entered
    without ``dtype=`` takes it, and a region active now runs in it.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.set_autocast_dtype("cpu", tc.float16)
    >>> tc.get_autocast_dtype("cpu")
    tensorcore.float16
    >>> tc.set_autocast_dtype("cpu", tc.bfloat16)
    """
    if not isinstance(dtype, dt.dtype):
        raise TypeError(f"set_autocast_dtype(): dtype must be a tensorcore dtype, got {dtype!r}")
    _state.dtypes[device_type] = dtype
    if device_type in _state.on:
        _state.on[device_type] = dtype


def _hook(delta: int) -> None:
    """Count a region (or a manual enabling) in or out; the call path's hook is installed
    while the count is positive."""
    global _active
    with _lock:
        _active += delta
        _call.set_autocast(_cast_args if _active > 0 else None)


def set_autocast_enabled(device_type: Any, enabled: bool | None = None) -> None:
    """Turn autocast on or off for ``device_type`` in this thread, outside any region
    (PyTorch's ``torch.set_autocast_enabled(device_type, enabled)``; the deprecated
    one-argument form ``set_autocast_enabled(enabled)`` is CUDA's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.set_autocast_enabled("cpu", True)
    >>> (tc.ones(2, 2) @ tc.ones(2, 2)).dtype
    tensorcore.bfloat16
    >>> tc.set_autocast_enabled("cpu", False)
    >>> tc.is_autocast_enabled("cpu")
    False
    """
    if enabled is None:  # (the old signature: CUDA's switch, without a warning in PyTorch)
        device_type, enabled = "cuda", device_type
    on = _state.on
    if enabled:
        on[device_type] = get_autocast_dtype(device_type)
        if device_type not in _state.manual:
            _state.manual.add(device_type)
            _hook(1)
    else:
        on.pop(device_type, None)
        if device_type in _state.manual:
            _state.manual.discard(device_type)
            _hook(-1)


def _deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"torch.{old} is deprecated. Please use torch.{new} instead.",
        DeprecationWarning,
        stacklevel=3,
    )


def _enabled_query(device_type: str) -> Callable[[], bool]:
    def query() -> bool:
        _deprecated(f"is_autocast_{device_type}_enabled()", f"is_autocast_enabled('{device_type}')")
        return is_autocast_enabled(device_type)

    query.__name__ = query.__qualname__ = f"is_autocast_{device_type}_enabled"
    query.__doc__ = (
        f"Deprecated (a ``DeprecationWarning``, as PyTorch's): "
        f"``is_autocast_enabled('{device_type}')``.\n\n"
        "Examples\n--------\n>>> import warnings, tensorcore as tc\n"
        ">>> with warnings.catch_warnings():\n"
        "...     warnings.simplefilter('ignore')\n"
        f"...     tc.is_autocast_{device_type}_enabled()\nFalse\n"
    )
    return query


def _enabled_setter(device_type: str) -> Callable[[bool], None]:
    def setter(enabled: bool) -> None:
        _deprecated(
            f"set_autocast_{device_type}_enabled(enabled)",
            f"set_autocast_enabled('{device_type}', enabled)",
        )
        set_autocast_enabled(device_type, enabled)

    setter.__name__ = setter.__qualname__ = f"set_autocast_{device_type}_enabled"
    setter.__doc__ = (
        f"Deprecated (a ``DeprecationWarning``, as PyTorch's): "
        f"``set_autocast_enabled('{device_type}', enabled)``."
    )
    return setter


def _dtype_query(name: str, device_type: str) -> Callable[[], dt.dtype]:
    def query() -> dt.dtype:
        _deprecated(f"get_autocast_{name}_dtype()", f"get_autocast_dtype('{device_type}')")
        return get_autocast_dtype(device_type)

    query.__name__ = query.__qualname__ = f"get_autocast_{name}_dtype"
    query.__doc__ = (
        f"Deprecated (a ``DeprecationWarning``, as PyTorch's): "
        f"``get_autocast_dtype('{device_type}')``.\n\n"
        "Examples\n--------\n>>> import warnings, tensorcore as tc\n"
        ">>> with warnings.catch_warnings():\n"
        "...     warnings.simplefilter('ignore')\n"
        f"...     tc.get_autocast_{name}_dtype()\n"
        f"tensorcore.{_DEFAULT_DTYPES.get(device_type, dt.float16).name}\n"
    )
    return query


def _dtype_setter(name: str, device_type: str) -> Callable[[dt.dtype], None]:
    def setter(dtype: dt.dtype) -> None:
        _deprecated(
            f"set_autocast_{name}_dtype(dtype)", f"set_autocast_dtype('{device_type}', dtype)"
        )
        set_autocast_dtype(device_type, dtype)

    setter.__name__ = setter.__qualname__ = f"set_autocast_{name}_dtype"
    setter.__doc__ = (
        f"Deprecated (a ``DeprecationWarning``, as PyTorch's): "
        f"``set_autocast_dtype('{device_type}', dtype)``."
    )
    return setter


is_autocast_cpu_enabled = _enabled_query("cpu")
is_autocast_ipu_enabled = _enabled_query("ipu")
is_autocast_xla_enabled = _enabled_query("xla")
set_autocast_cpu_enabled = _enabled_setter("cpu")
set_autocast_ipu_enabled = _enabled_setter("ipu")
set_autocast_xla_enabled = _enabled_setter("xla")
get_autocast_cpu_dtype = _dtype_query("cpu", "cpu")
get_autocast_gpu_dtype = _dtype_query("gpu", "cuda")
get_autocast_ipu_dtype = _dtype_query("ipu", "ipu")
get_autocast_xla_dtype = _dtype_query("xla", "xla")
set_autocast_cpu_dtype = _dtype_setter("cpu", "cpu")
set_autocast_gpu_dtype = _dtype_setter("gpu", "cuda")
set_autocast_ipu_dtype = _dtype_setter("ipu", "ipu")
set_autocast_xla_dtype = _dtype_setter("xla", "xla")


def is_autocast_cache_enabled() -> bool:
    """Whether autocast would cache its casts of leaf tensors (the flag PyTorch keeps; here
    casts are not cached, so it changes nothing but this answer).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.is_autocast_cache_enabled()
    True
    """
    return _state.cache


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Set the flag :func:`is_autocast_cache_enabled` answers.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.set_autocast_cache_enabled(True)
    """
    _state.cache = bool(enabled)


def clear_autocast_cache() -> None:
    """Drop autocast's cached casts (there are none: casts are not cached).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.clear_autocast_cache()
    """


def autocast_increment_nesting() -> int:
    """Count one more autocast region in this thread; the new depth (PyTorch's
    bookkeeping, which ``autocast`` regions also keep).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.autocast_increment_nesting(), tc.autocast_decrement_nesting()
    (1, 0)
    """
    _state.nesting += 1
    return _state.nesting


def autocast_decrement_nesting() -> int:
    """Count one autocast region less in this thread; the new depth.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.autocast_increment_nesting(), tc.autocast_decrement_nesting()
    (1, 0)
    """
    _state.nesting -= 1
    return _state.nesting


class autocast:
    """A region (context manager or decorator) where operators with an autocast policy run in
    ``dtype`` on ``device_type`` (PyTorch's ``torch.autocast``).

    Parameters
    ----------
    device_type
        ``"cpu"`` or ``"cuda"`` (any registered device type).
    dtype
        The lower-precision dtype: bfloat16 (the CPU's default) or float16 (CUDA's).
    enabled
        False turns autocast off inside the region (nested in an enabled one).
    cache_enabled
        Accepted for compatibility; casts are not cached.

    Examples
    --------
    >>> import tensorcore as tc
    >>> a = tc.ones(2, 2)
    >>> with tc.autocast("cpu"):
    ...     (a @ a).dtype
    tensorcore.bfloat16
    >>> (a @ a).dtype
    tensorcore.float32
    """

    def __init__(
        self,
        device_type: str,
        dtype: dt.dtype | None = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        if not isinstance(device_type, str):
            raise ValueError(
                f"Expected `device_type` of type `str`, got: `{type(device_type).__name__}`"
            )
        if dtype is not None and not isinstance(dtype, dt.dtype):
            raise TypeError(f"autocast(): dtype must be a tensorcore dtype, got {dtype!r}")
        self.device = device_type
        self.fast_dtype = dtype or get_autocast_dtype(device_type)
        ok = _LOWER_OK.get(device_type, (dt.float16, dt.bfloat16))
        if enabled and self.fast_dtype not in ok:
            raise RuntimeError(
                f"In {device_type} autocast, but the target dtype {self.fast_dtype.name} is "
                f"not supported; autocast on {device_type} supports "
                f"{' and '.join(d.name for d in ok)}"
            )
        self._enabled = bool(enabled)
        self._prev: list[dt.dtype | None] = []

    def __enter__(self) -> autocast:
        on = _state.on
        self._prev.append(on.get(self.device))
        if self._enabled:
            on[self.device] = self.fast_dtype
        else:
            on.pop(self.device, None)
        _state.nesting += 1
        _hook(1)
        return self

    def __exit__(self, *exc: object) -> None:
        prev = self._prev.pop()
        if prev is None:
            _state.on.pop(self.device, None)
        else:
            _state.on[self.device] = prev
        _state.nesting -= 1
        _hook(-1)

    def __call__(self, fn: _F) -> _F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with autocast(self.device, self.fast_dtype, self._enabled):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


def _cast_args(op: Any, args: tuple[Any, ...]) -> Any:
    """The call path's hook while any region is active: a call of an operator with a policy
    runs on ``args`` cast by it, with autocast off inside (PyTorch runs the operators of its
    lists below the autocast layer, so that ``linalg.lstsq``'s products stay in float32);
    other calls pass (an operator without a policy that calls one gets it cast, as
    ``einsum``'s products are in PyTorch)."""
    policy = op.decl.autocast
    on = _state.on
    if not policy or not on:
        return _call.AUTOCAST_PASS
    args = _cast(policy, args, on)
    _state.on = {}
    try:
        return _call.call(op, args)
    finally:
        _state.on = on


def _cast(policy: str, args: Any, on: dict[str, dt.dtype]) -> Any:
    """``args`` (a tuple, possibly holding lists of tensors) cast by ``policy``."""
    if policy == "promote":
        floats = [t for t in tensors_in(args) if _eligible(t, on)]
        if len({t._dtype for t in floats}) < 2:
            return args
        wide = functools.reduce(dt.promote_types, (t._dtype for t in floats))
        ids = {id(t) for t in floats}
        return _map(args, lambda t: t.to(wide) if id(t) in ids else t)

    def one(t: Tensor) -> Tensor:
        if not _eligible(t, on):
            return t
        if policy == "lower":
            low = on[t._device.type]
            return t.to(low) if t._dtype is not low else t
        return t.to(dt.float32) if t._dtype.itemsize < 4 else t  # "fp32"

    return _map(args, one)


def _eligible(t: Tensor, on: dict[str, dt.dtype]) -> bool:
    """Whether autocast casts ``t``: a floating tensor, not float64 (which PyTorch's autocast
    leaves alone), on a device type whose autocast is on."""
    d = t._dtype
    return d.is_floating_point and d is not dt.float64 and t._device.type in on


def _map(args: Any, fn: Callable[[Tensor], Tensor]) -> Any:
    res: list[Any] = []
    for a in args:
        if isinstance(a, Tensor):
            res.append(fn(a))
        elif isinstance(a, (list, tuple)) and any(isinstance(x, Tensor) for x in a):
            res.append(type(a)(fn(x) if isinstance(x, Tensor) else x for x in a))
        else:
            res.append(a)
    return tuple(res)


def custom_fwd(
    fwd: Callable[..., Any] | None = None,
    *,
    device_type: str = "cuda",
    cast_inputs: dt.dtype | None = None,
) -> Any:
    """PyTorch's decorator for a custom ``Function.forward`` under autocast: with
    ``cast_inputs``, floating tensor arguments are cast to it and autocast is off inside;
    without, the forward runs as it is.

    Examples
    --------
    >>> import tensorcore as tc
    >>> f = tc.amp.custom_fwd(lambda x: x.dtype, device_type="cpu", cast_inputs=tc.float32)
    >>> with tc.autocast("cpu"):
    ...     f(tc.ones(1, dtype=tc.bfloat16))
    tensorcore.float32
    """
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if args:
            # What :func:`custom_bwd` restores: the forward's autocast state, on its ctx.
            ctx = args[0]
            try:
                ctx._fwd_used_autocast = device_type in _state.on and cast_inputs is None
                ctx._dtype = get_autocast_dtype(device_type)
            except AttributeError:  # (not a Function's ctx: nothing to restore)
                pass
        if cast_inputs is None or device_type not in _state.on:
            return fwd(*args, **kwargs)

        def cast(t: Tensor) -> Tensor:
            return t.to(cast_inputs) if t._dtype.is_floating_point else t

        with autocast(device_type, enabled=False):
            return fwd(*_map(args, cast), **kwargs)

    return wrapper


def custom_bwd(bwd: Callable[..., Any] | None = None, *, device_type: str = "cuda") -> Any:
    """PyTorch's decorator for a custom ``Function.backward`` under autocast: it runs with
    the autocast state its forward (decorated with :func:`custom_fwd`) ran with.

    Examples
    --------
    >>> import tensorcore as tc
    >>> class Square(tc.autograd.Function):
    ...     @staticmethod
    ...     @tc.amp.custom_fwd(device_type="cpu")
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     @tc.amp.custom_bwd(device_type="cpu")
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return 2 * x * g
    >>> x = tc.tensor(3.0, requires_grad=True)
    >>> Square.apply(x).backward(); x.grad
    tensor(6.)
    """
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0] if args else None
        used = getattr(ctx, "_fwd_used_autocast", False)
        dtype = getattr(ctx, "_dtype", None)
        with autocast(device_type, enabled=used, dtype=dtype):
            return bwd(*args, **kwargs)

    return wrapper


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast runs on ``device_type`` (the CPU and CUDA, as PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.amp.is_autocast_available("cpu")
    True
    """
    return device_type in ("cpu", "cuda")


def fp32_function(fn: _F) -> _F:
    """Run ``fn`` (a loss function of ``tc.nn.functional``, written with operators) with its
    16-bit floating tensor arguments cast to float32 inside an autocast region, as PyTorch's
    autocast runs its losses (its "fp32" list)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        on = _state.on
        if not on:
            return fn(*args, **kwargs)
        args = _cast("fp32", args, on)
        kwargs = dict(zip(kwargs, _cast("fp32", tuple(kwargs.values()), on), strict=True))
        _state.on = {}  # (autocast off inside, as for an operator of a list)
        try:
            return fn(*args, **kwargs)
        finally:
            _state.on = on

    return wrapper  # type: ignore[return-value]
