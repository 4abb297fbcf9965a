"""Top-level functions PyTorch programs call that are not operators of the table: the
function forms of Tensor predicates (``torch.is_complex(x)``), small utilities (``typename``,
``vander``, ``unravel_index``, ``scalar_tensor``...) and the process settings
(``set_warn_always``, the thread counts...). The computations among them (random draws,
norms, ``histogramdd``...) are in ``_torch_extras_ops.py``, the ``*_copy`` forms of the views
in ``_torch_view_copies.py``, torch's positional forms of the ``nn.functional`` layers in
``_torch_nn.py``; ``tensorcore/__init__.py`` gathers their ``__all__``.

Examples
--------
>>> import tensorcore as tc
>>> tc.is_floating_point(tc.ones(2)), tc.typename(tc.ones(2))
(True, 'tensorcore.FloatTensor')
>>> tc.unravel_index(tc.tensor([4, 5]), (2, 3))
(tensor([1, 1]), tensor([1, 2]))
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

from . import _tensor_compat
from . import dtypes as dt
from ._tensor import Tensor, torch_name
from .autograd import grad_mode
from .ops import functions as ops

__all__: list[str] = []  # filled by _public below


def public(names: list[str]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator that lists a function in ``names`` (a module's ``__all__``, which
    ``tensorcore/__init__.py`` exports) under the ``tensorcore`` module."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.__module__ = "tensorcore"
        names.append(fn.__name__)
        return fn

    return deco


_public = public(__all__)


# ------------------------------------------------------------------ Tensor predicates
def _method_function(name: str, doc: str) -> Callable[..., Any]:
    def fn(input: Tensor, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}(): argument 'input' (position 1) must be Tensor, not "
                f"{type(input).__name__}"
            )
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{doc}: ``input.{name}(...)``, see :meth:`Tensor.{name}`."
    return _public(fn)


for _name, _doc in [
    ("is_complex", "Whether the dtype is complex"),
    ("is_floating_point", "Whether the dtype is floating point"),
    ("is_signed", "Whether the dtype is signed"),
    ("is_nonzero", "Whether the single element is nonzero"),
    ("is_same_size", "Whether two tensors have the same shape"),
    ("is_conj", "False: tensorcore has no lazy conjugation"),
    ("is_neg", "False: tensorcore has no lazy negation"),
    ("is_inference", "Whether the tensor was made in inference mode"),
    ("detach", "A tensor sharing the storage, without history"),
    ("detach_", "Detaches the tensor from its history in place"),
    ("resolve_conj", "The tensor itself (no lazy conjugation to resolve)"),
    ("resolve_neg", "The tensor itself (no lazy negation to resolve)"),
    ("conj_physical", "The complex conjugate, computed"),
    ("conj_physical_", "The complex conjugate, in place"),
    ("resize_as_", "Resizes to the template's shape"),
    ("get_device", "The CUDA device index, -1 on the CPU"),
    ("adjoint", "The conjugate transpose of the last two dims"),
    ("is_distributed", "False: tensorcore tensors are never distributed"),
    ("as_strided_", "Gives the tensor another geometry over its storage, in place"),
]:
    globals()[_name] = _method_function(_name, _doc)


@_public
def fill(input: Tensor, value: Any) -> Tensor:
    """A tensor like ``input`` filled with ``value``: differentiable in ``value`` when it is
    a 0-d tensor, and in ``input`` (a zero gradient), as PyTorch's ``fill`` records both.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.fill(tc.zeros(2), 3.0)
    tensor([3., 3.])
    """
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(
            "fill only supports 0-dimension value tensor but got tensor with "
            f"{value.ndim} dimensions."
        )
    if grad_mode.is_grad_enabled() and (
        input._requires_grad or (isinstance(value, Tensor) and value._requires_grad)
    ):
        # (a fill of every element that autograd records: input's gradient is zero there)
        return ops.masked_fill(input, ops.ones_like(input, dtype=dt.bool_), value)
    if isinstance(value, Tensor):
        return ops.zeros_like(input) + value.to(input.dtype)
    return ops.full_like(input, value)


@_public
def typename(obj: Any) -> str:
    """The type's name as PyTorch prints it: ``tensorcore.FloatTensor`` for a float32 CPU
    tensor (``tensorcore.cuda.FloatTensor`` on a GPU), else the object's class name.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.typename(tc.ones(1, dtype=tc.int64)), tc.typename(3)
    ('tensorcore.LongTensor', 'int')
    """
    if isinstance(obj, Tensor):
        where = "" if obj.device.type == "cpu" else f"{obj.device.type}."
        return f"tensorcore.{where}{torch_name(obj.dtype)}Tensor"
    module = getattr(type(obj), "__module__", "")
    name = type(obj).__qualname__
    return name if module in ("builtins", "", None) else f"{module}.{name}"


@_public
def scalar_tensor(
    s: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """A 0-d tensor holding ``s``, of the default dtype unless ``dtype`` is given.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.scalar_tensor(2)
    tensor(2.)
    """
    out = ops.full((), s, dtype=dtype or dt.get_default_dtype(), device=device)
    return out.requires_grad_() if requires_grad else out


@_public
def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of the 1-D ``x``: columns ``x ** (N - 1) ... x ** 0`` (the
    other order with ``increasing``); integers and bools compute in int64.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.vander(tc.tensor([1, 2, 3]), N=3)
    tensor([[1, 1, 1],
            [4, 2, 1],
            [9, 3, 1]])
    """
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    base = x if x.dtype._category >= dt.FLOATING else x.to(dt.int64)
    powers = ops.arange(n, device=x.device)
    if not increasing:
        powers = powers.flip(0)
    if n == 0:
        return ops.empty((x.shape[0], 0), dtype=base.dtype, device=x.device)
    return base.unsqueeze(-1) ** powers.to(base.dtype)


@_public
def unravel_index(indices: Any, shape: Any) -> tuple[Tensor, ...]:
    """The coordinates, in a tensor of ``shape``, of the flat (row-major) ``indices``: one
    int64 tensor per dim, each of the shape of ``indices``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.unravel_index(tc.tensor(7), (2, 4))
    (tensor(1), tensor(3))
    """
    if not isinstance(indices, Tensor):
        indices = ops.as_tensor(indices) if hasattr(ops, "as_tensor") else _as_tensor(indices)
    if indices.dtype._category != dt.INTEGRAL:
        raise TypeError(
            f"expected 'indices' to be integer dtype, but got {torch_name(indices.dtype)}"
        )
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    total = math.prod(shape)
    if indices.numel() and (int(indices.min()) < -total or int(indices.max()) >= total):
        raise ValueError(f"'indices' must be in range [-{total}, {total} - 1]")
    flat = ops.remainder(indices.to(dt.int64), total) if total else indices.to(dt.int64)
    out = []
    for size in reversed(shape):
        out.append(ops.remainder(flat, size))
        flat = ops.floor_divide(flat, size)
    return tuple(reversed(out))


def _as_tensor(data: Any) -> Tensor:
    from .ops.factories import as_tensor

    return as_tensor(data)


@_public
def asarray(
    obj: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    copy: bool | None = None,
    requires_grad: bool = False,
) -> Tensor:
    """``obj`` as a tensor, sharing memory when it can (a tensor, a NumPy array, a DLPack
    object) unless ``copy=True``; ``copy=False`` refuses to copy.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.ones(2)
    >>> tc.asarray(x) is x, tc.asarray([1, 2]).dtype
    (True, tensorcore.int64)
    """
    from .ops.factories import as_tensor

    out = as_tensor(obj, dtype=dtype, device=device)
    if (copy and out is obj) or (copy and isinstance(obj, Tensor)):
        out = out.clone()
    elif copy is False and isinstance(obj, Tensor) and out is not obj:
        raise ValueError("can't alias tensor: copy=False, but a copy is needed")
    if requires_grad:
        out = out.detach().requires_grad_() if out is obj else out.requires_grad_()
    return out


@_public
def frombuffer(
    buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0, requires_grad: bool = False
) -> Tensor:
    """A 1-D tensor over the bytes of an object of the buffer protocol (``count`` elements
    of ``dtype`` from byte ``offset``; all of them with ``count=-1``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.frombuffer(bytearray(b"\\x01\\x00\\x02\\x00"), dtype=tc.int16)
    tensor([1, 2], dtype=tensorcore.int16)
    """
    import numpy as np

    from .ops.factories import from_numpy

    view = memoryview(buffer)
    n = (view.nbytes - offset) // dtype.itemsize if count == -1 else count
    if n <= 0 or offset < 0 or offset + n * dtype.itemsize > view.nbytes:
        raise ValueError(
            f"both buffer length ({view.nbytes}) and offset ({offset}) must be positive and "
            f"leave room for count ({count}) elements of size {dtype.itemsize}"
        )
    arr = np.frombuffer(buffer, dtype=_numpy_dtype(dtype), count=n, offset=offset)
    if arr.flags.writeable is False:
        warnings.warn(
            "The given buffer is not writable, and PyTorch does not support non-writable tensors.",
            UserWarning,
            stacklevel=2,
        )
        arr = arr.copy()
    out = from_numpy(arr)
    return out.requires_grad_() if requires_grad else out


def _numpy_dtype(d: dt.dtype) -> Any:
    import numpy as np

    return np.dtype("uint16" if d is dt.bfloat16 else d.name.replace("bool_", "bool"))


# (the factory ``Tensor.new_empty_strided`` makes its result with)
empty_strided = _public(_tensor_compat.empty_strided)


_WARN_ALWAYS = [False]


@_public
def set_warn_always(b: bool) -> None:
    """Record whether warnings that PyTorch raises once should always be raised (kept for
    :func:`is_warn_always_enabled`; tensorcore's once-only warnings read it too where they
    can)."""
    _WARN_ALWAYS[0] = bool(b)


@_public
def is_warn_always_enabled() -> bool:
    """What :func:`set_warn_always` last set (False at start).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.is_warn_always_enabled()
    False
    """
    return _WARN_ALWAYS[0]


@_public
def set_flush_denormal(mode: bool) -> bool:
    """Whether flushing denormal floats to zero is supported: False (NumPy computes with
    denormals; nothing changes).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.set_flush_denormal(False)
    False
    """
    return False


@_public
def set_default_tensor_type(t: Any) -> None:
    """Deprecated: sets the default dtype from a legacy tensor type (``tc.DoubleTensor``) or
    its name (``"torch.DoubleTensor"``); CPU types only.

    Examples
    --------
    >>> import warnings
    >>> import tensorcore as tc
    >>> with warnings.catch_warnings():  # (it warns that it is deprecated, as PyTorch's)
    ...     warnings.simplefilter("ignore")
    ...     tc.set_default_tensor_type(tc.DoubleTensor)
    >>> tc.get_default_dtype()
    tensorcore.float64
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     tc.set_default_tensor_type("torch.FloatTensor")
    >>> tc.get_default_dtype()
    tensorcore.float32
    """
    from ._legacy_types import LEGACY_TYPES

    warnings.warn(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
        UserWarning,
        stacklevel=2,
    )
    if isinstance(t, str):
        name = t.rsplit(".", 1)[-1]
        if name not in LEGACY_TYPES:
            raise TypeError(f"invalid type: '{t}'")
        t = LEGACY_TYPES[name]
    d = getattr(t, "dtype", None)
    if not isinstance(d, dt.dtype) or d._category < dt.FLOATING:
        raise TypeError("only floating-point types are supported as the default type")
    dt.set_default_dtype(d)


@_public
def range(
    start: Any = 0,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    out: Any = None,
    layout: Any = None,
) -> Tensor:
    """Deprecated: ``start, start + step, ...`` up to ``end`` *included* (of the default
    float dtype unless ``dtype``), with PyTorch's warning; use :func:`arange`.

    Examples
    --------
    >>> import tensorcore as tc, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     tc.range(0, 1, 0.5)
    tensor([0.0000, 0.5000, 1.0000])
    """
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its "
        "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
        "which produces values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    n = math.floor((end - start) / step) + 1
    d = dt.get_default_dtype() if dtype is None else dtype
    result = ops.arange(max(n, 0), dtype=dt.float64, device=device) * step + start
    result = result.to(d)
    if out is not None:
        return out.copy_(result) if out.shape == result.shape else out.resize_(n).copy_(result)
    return result.requires_grad_() if requires_grad else result


@_public
def is_storage(obj: Any) -> bool:
    """Whether ``obj`` is a storage (:class:`Storage` or a legacy typed storage).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.is_storage(tc.ones(1).untyped_storage()), tc.is_storage(tc.ones(1))
    (True, False)
    """
    from ._storage import Storage
    from ._typed_storage import TypedStorage

    return isinstance(obj, (Storage, TypedStorage))


@_public
def is_vulkan_available() -> bool:
    """False: tensorcore has no Vulkan backend."""
    return False


_INTEROP = [1]


@_public
def get_num_interop_threads() -> int:
    """The number of threads for inter-op parallelism (tensorcore runs operators one after
    another: what :func:`set_num_interop_threads` last set, 1 at start)."""
    return _INTEROP[0]


@_public
def set_num_interop_threads(n: int) -> None:
    """Records ``n`` for :func:`get_num_interop_threads` (operators run one at a time)."""
    if n.__class__ is not int or n < 1:
        raise RuntimeError("Number of threads must be positive")
    _INTEROP[0] = n


@_public
def init_num_threads() -> None:
    """Nothing to initialise: the CPU backend's thread pools are NumPy's."""


@_public
def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turns anomaly detection on or off (:class:`tensorcore.autograd.set_detect_anomaly`)."""
    from .autograd.anomaly_mode import _set

    _set(bool(enabled), bool(check_nan))


@_public
def to_dlpack(tensor: Tensor) -> Any:
    """A DLPack capsule of ``tensor``'s data (``tensor.__dlpack__()``)."""
    return tensor.__dlpack__()
