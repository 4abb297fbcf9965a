"""Top-level functions PyTorch programs call that are not operators of the table: the
function forms of Tensor predicates (``torch.is_complex(x)``), torch's positional forms of
the ``nn.functional`` layers (``torch.conv2d``, ``torch.batch_norm``, the losses with an
integer ``reduction``), the ``*_copy`` forms of the views, and small utilities (``typename``,
``vander``, ``unravel_index``, ``scalar_tensor``...). ``tensorcore/__init__.py`` loads them
on first use, so that ``import tensorcore`` does not import ``nn``.

Examples
--------
>>> import tensorcore as tc
>>> tc.is_floating_point(tc.ones(2)), tc.typename(tc.ones(2))
(True, 'tensorcore.FloatTensor')
>>> tc.unravel_index(tc.tensor([4, 5]), (2, 3))
(tensor([1, 1]), tensor([1, 2]))
"""

from __future__ import annotations

import builtins
import math
import warnings
from collections.abc import Callable
from typing import Any

from . import _tensor_compat
from . import dtypes as dt
from ._tensor import Tensor, torch_name
from .autograd import grad_mode
from .layouts import strided
from .ops import functions as ops
from .ops._out import write_out
from .ops._validate import checked

__all__: list[str] = []  # filled by _public below

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _public(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn.__module__ = "tensorcore"
    __all__.append(fn.__name__)
    return fn


def _reduction(reduction: Any) -> str:
    if reduction.__class__ is not int or reduction not in _REDUCTIONS:
        raise TypeError(
            f"argument 'reduction' must be int (0: none, 1: mean, 2: sum), not {reduction!r}"
        )
    return _REDUCTIONS[reduction]


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


@_public
def randint_like(
    input: Tensor, *args: Any, dtype: Any = None, device: Any = None, **kw: Any
) -> Tensor:
    """Random integers in ``[low, high)`` (``low`` 0 when only ``high`` is given) in the
    shape of ``input``, of its dtype and device unless given.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.randint_like(tc.zeros(3), 5)
    >>> x.dtype, ((x >= 0) & (x < 5)).all().item()
    (tensorcore.float32, True)
    """
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args
    else:
        raise TypeError("randint_like(): expected (input, high) or (input, low, high)")
    requires_grad = kw.pop("requires_grad", False)
    kw.pop("memory_format", None)
    # (a non-strided ``input``'s layout, as the other ``*_like`` factories take it)
    layout = kw.pop("layout", None) or (None if input.layout is strided else input.layout)
    kw.pop("pin_memory", None)
    out = ops.randint(
        low,
        high,
        tuple(input.shape),
        dtype=input.dtype if dtype is None else dtype,
        device=input.device if device is None else device,
        layout=layout,
        **kw,
    )
    return out.requires_grad_() if requires_grad else out


@_public
def poisson(input: Tensor, generator: Any = None) -> Tensor:
    """Draws from Poisson distributions of rates ``input`` (same shape and dtype).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.poisson(tc.zeros(3))
    tensor([0., 0., 0.])
    """
    from .distributions._samplers import poisson as draw

    return draw(input, generator).to(input.dtype)


@_public
def binomial(count: Tensor, prob: Tensor, generator: Any = None) -> Tensor:
    """Draws from binomial distributions of ``count`` trials of probability ``prob``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.binomial(tc.full((2,), 4.0), tc.ones(2))
    tensor([4., 4.])
    """
    from .distributions._samplers import binomial as draw

    return draw(count, prob, generator).to(count.dtype)


@_public
def _sample_dirichlet(input: Tensor, generator: Any = None) -> Tensor:
    """Draws from Dirichlet distributions of concentrations ``input`` (its last dim the
    categories), PyTorch's private sampler that programs call directly (no gradient: a
    differentiable draw is ``tc.distributions.Dirichlet(c).rsample()``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc._sample_dirichlet(tc.ones(2, 3))
    >>> x.shape, ((x.sum(-1) - 1).abs() < 1e-6).all().item()
    (tensorcore.Size([2, 3]), True)
    """
    from .distributions._samplers import sample_dirichlet

    return sample_dirichlet(input, generator)


@_public
def _dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """PyTorch's ``_dirichlet_grad``: the derivative of Dirichlet draws ``x`` in their
    concentrations ``alpha`` (``total``: the concentrations' sum), through each coordinate's
    Beta marginal, divided by ``1 - x``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> g = tc._dirichlet_grad(tc.tensor([0.3, 0.7]), tc.tensor([1.0, 2.0]), tc.tensor([3.0, 3.0]))
    >>> [f"{v:.4f}" for v in g.tolist()]
    ['0.4123', '0.4161']
    """
    from .distributions._samplers import dirichlet_grad

    return dirichlet_grad(x, alpha, total)


@_public
def nuclear_norm(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Deprecated: :func:`tensorcore.linalg.matrix_norm` with ``ord="nuc"``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nuclear_norm(tc.eye(2))
    tensor(2.)
    """
    from . import linalg

    if isinstance(dim, bool):
        dim, keepdim = None, dim
    return linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


@_public
def frobenius_norm(input: Tensor, dim: Any = (-2, -1), keepdim: bool = False) -> Tensor:
    """Deprecated: :func:`tensorcore.linalg.vector_norm` of order 2 over ``dim``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.frobenius_norm(tc.ones(2, 2), (0, 1))
    tensor(2.)
    """
    from . import linalg

    return linalg.vector_norm(input, 2, dim, keepdim)


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
def matrix_rank(input: Tensor, tol: Any = None, symmetric: bool = False, *, out: Any = None) -> Any:
    """Removed in PyTorch 1.9: raises, pointing to :func:`tensorcore.linalg.matrix_rank`."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed.\nPlease use the "
        "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed "
        "in `torch.linalg.matrix_rank()` to 'hermitian'."
    )


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


@_public
@checked("constant_pad_nd(Tensor input, int[] pad, Scalar value=0) -> Tensor")
def constant_pad_nd(input: Tensor, pad: Any, value: Any = 0) -> Tensor:
    """``nn.functional.pad(input, pad, "constant", value)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.constant_pad_nd(tc.ones(2), [1, 1], 5.0)
    tensor([5., 1., 1., 5.])
    """
    from .ops._padding import pad as pad_fn

    # (the unchecked function: F.pad's value is a float, constant_pad_nd's any Scalar,
    # a complex one for complex tensors)
    unchecked: Any = pad_fn.__wrapped__  # type: ignore[attr-defined]
    return unchecked(input, pad, "constant", value)


@_public
def empty_permuted(
    size: Any,
    physical_layout: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised tensor of ``size`` whose dims lie in memory in the order
    ``physical_layout`` (outermost first).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
    (12, 1, 3)
    """
    size, order = tuple(size), tuple(physical_layout)
    if sorted(order) != list(builtins.range(len(size))):
        raise RuntimeError(
            f"Number of dimensions in size does not match the length of the physical_layout; "
            f"got {len(size)} and {len(order)}"
        )
    base = ops.empty(tuple(size[d] for d in order), dtype=dtype, device=device)
    out = base.permute(tuple(order.index(d) for d in builtins.range(len(size))))
    return out.requires_grad_() if requires_grad else out


@_public
def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """:func:`nonzero` of exactly ``size`` rows: cut, or padded with ``fill_value``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nonzero_static(tc.tensor([0, 1]), size=3).tolist()
    [[1], [-1], [-1]]
    """
    found = ops.nonzero(input)
    if found.shape[0] >= size:
        return found[:size]
    pad = ops.full(
        (size - found.shape[0], input.ndim), fill_value, dtype=dt.int64, device=input.device
    )
    return ops.cat([found, pad])


@_public
def histogramdd(
    input: Tensor,
    bins: Any = 10,
    *,
    range: Any = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> Any:
    """The histogram of the points in the rows of ``input`` (``(..., D)``) over a grid of
    ``D``-dimensional bins: ``bins`` is a count for every dim, one count per dim, or one
    tensor of edges per dim; ``range`` (``[lo0, hi0, lo1, hi1, ...]``) bounds the equal-width
    bins (by default the data's extent, widened by 1/2 where it is a point). Each bin holds
    its left edge, the last also its right one; points outside are left out. ``weight``
    weighs the points; ``density`` divides by the total and the bins' volumes.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([[0.0, 0.0], [1.0, 1.0], [0.5, 0.2], [2.0, 0.0]])
    >>> tc.histogramdd(x, bins=[2, 3]).hist
    tensor([[2., 0., 0.],
            [1., 0., 1.]])
    """
    from . import return_types

    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"torch.histogramdd: input tensor and bins tensors should have the same dtype, "
            f"but got input {torch_name(input.dtype)}"
        )
    d = input.shape[-1]
    points = input.reshape(-1, d)
    if isinstance(bins, int):
        bins = [bins] * d
    if len(bins) != d:
        raise RuntimeError(
            f"torch.histogramdd: expected {d} sequences of bin edges for each of the {d} input "
            f"dimensions, but got {len(bins)} bin sequences instead."
        )
    edges: list[Tensor] = []
    for k, b in enumerate(bins):
        if isinstance(b, Tensor):
            edges.append(b.to(input.dtype))
            continue
        col = points[:, k]
        if range is not None:
            lo, hi = float(range[2 * k]), float(range[2 * k + 1])
        elif col.numel():
            lo, hi = float(col.min()), float(col.max())
        else:
            lo, hi = 0.0, 1.0
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(ops.linspace(lo, hi, int(b) + 1, dtype=input.dtype, device=input.device))
    sizes = [e.numel() - 1 for e in edges]
    flat = ops.zeros(points.shape[0], dtype=dt.int64, device=input.device)
    inside = ops.ones(points.shape[0], dtype=dt.bool_, device=input.device)
    for k, e in enumerate(edges):
        col = points[:, k]
        idx = ops.bucketize(col, e, right=True) - 1
        idx = ops.where(col == e[-1], sizes[k] - 1, idx)
        inside = inside & (col >= e[0]) & (col <= e[-1])
        flat = flat * sizes[k] + idx.clamp(0, max(sizes[k] - 1, 0))
    w = ops.ones(points.shape[0], dtype=input.dtype, device=input.device)
    if weight is not None:
        w = weight.reshape(-1).to(input.dtype)
    total = math.prod(sizes)
    hist = ops.zeros(total, dtype=input.dtype, device=input.device)
    hist = hist.index_add(0, flat[inside], w[inside]).reshape(sizes)
    if density:
        volume = ops.ones((), dtype=input.dtype, device=input.device)
        for k, e in enumerate(edges):
            shape = [1] * d
            shape[k] = sizes[k]
            volume = volume * (e[1:] - e[:-1]).reshape(shape)
        hist = hist / (hist.sum() * volume)
    return return_types.histogramdd(hist, tuple(edges))


@_public
def embedding_renorm_(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Rescales, in place and without history, each row of ``weight`` named in ``indices``
    whose ``norm_type``-norm exceeds ``max_norm`` to norm ``max_norm`` (by
    ``max_norm / (norm + 1e-7)``), as ``embedding(..., max_norm=)`` does.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.tensor([[3.0, 4.0], [0.3, 0.4]])
    >>> tc.embedding_renorm_(w, tc.tensor([0, 1]), 1.0, 2.0)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    from .autograd.grad_mode import no_grad

    with no_grad():
        rows = ops.unique(indices.reshape(-1))
        picked = weight[rows]
        norms = ops.vector_norm(picked, norm_type, (-1,), True)
        scale = ops.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[rows] = picked * scale.to(weight.dtype)
    return weight


@_public
def cond(
    pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any], operands: Any = ()
) -> Any:
    """``true_fn(*operands)`` if ``pred`` (a bool or a one-element tensor) else
    ``false_fn(*operands)``, run eagerly.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.cond(tc.tensor(True), lambda a: a + 1, lambda a: a - 1, (tc.ones(1),))
    tensor([2.])
    """
    return true_fn(*operands) if bool(pred) else false_fn(*operands)


@_public
def while_loop(
    cond_fn: Callable[..., Any], body_fn: Callable[..., Any], carried_inputs: Any
) -> Any:
    """Runs ``carried = body_fn(*carried)`` while ``cond_fn(*carried)``, eagerly; returns the
    final tuple.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.while_loop(lambda i: i < 3, lambda i: (i + 1,), (tc.tensor(0),))
    (tensor(3),)
    """
    carried = tuple(carried_inputs)
    while bool(cond_fn(*carried)):
        out = body_fn(*carried)
        carried = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    return carried


def _feature_dropout(input: Tensor, p: float, train: bool, inplace: bool) -> Tensor:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not train or p == 0.0:
        return input
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    keep = ops.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1.0 - p)
    if p < 1.0:
        keep = keep / (1.0 - p)
    return input.mul_(keep) if inplace else input * keep


@_public
def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Dropout of whole channels (dim 1) with probability ``p`` when ``train``."""
    return _feature_dropout(input, p, train, False)


@_public
def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place :func:`feature_dropout`."""
    return _feature_dropout(input, p, train, True)


def _views_copy() -> None:
    for view in (
        "view",
        "permute",
        "transpose",
        "t",
        "expand",
        "squeeze",
        "unsqueeze",
        "select",
        "diagonal",
        "unfold",
        "as_strided",
        "detach",
        "alias",
        "unbind",
        "split",
        "split_with_sizes",
        "view_as_real",
        "view_as_complex",
        "slice",
        "values",
        "indices",
    ):
        fn = _public(_copy_of(view))
        globals()[fn.__name__] = fn


def _copy_of(view: str) -> Callable[..., Any]:
    name = f"{view}_copy"

    def fn(input: Tensor, *args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is not None:
            # PyTorch's generated ``*_copy.out``: the copy, then written into ``out`` (of the
            # result's dtype, resized like any out=); not recorded by autograd, and the
            # list-returning views (unbind, split) fill a list of as many tensors and return
            # None.
            with grad_mode.no_grad():
                result = fn(input, *args, **kwargs)
            if not isinstance(result, list):
                return write_out(name, result, out, exact="exact")
            if not isinstance(out, (list, tuple)) or len(out) != len(result):
                got = len(out) if isinstance(out, (list, tuple)) else type(out).__name__
                raise RuntimeError(
                    f"{name}(): expected an out= argument of size {len(result)}, got size {got}"
                )
            write_out(name, tuple(result), tuple(out), exact="exact")
            return None
        if view == "slice":
            dim, start, end, step = (list(args) + [0, None, None, 1][len(args) :])[:4]
            out = input[(slice(None),) * (dim % max(input.ndim, 1)) + (slice(start, end, step),)]
        elif view == "alias":  # (an alias is the whole tensor, as it is)
            out = input
        elif view in ("view_as_real", "view_as_complex"):
            out = getattr(ops, view)(input, *args, **kwargs)
        else:
            out = getattr(input, view)(*args, **kwargs)
        if isinstance(out, (tuple, list)):
            return [o.clone(memory_format=_contiguous()) for o in out]
        return out.clone(memory_format=_contiguous())

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"A copy of ``input.{view}(...)`` (the view's values, in new memory); ``out=`` takes "
        "a tensor of the result's dtype"
        + (
            " (a list of as many, for a list)."
            if view in ("unbind", "split", "split_with_sizes")
            else "."
        )
    )
    return fn


def _contiguous() -> Any:
    from .layouts import contiguous_format

    return contiguous_format


_views_copy()
