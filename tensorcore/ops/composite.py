"""Composite operators: written with other operators, so every backend and layout gets them
(and autograd differentiates them through their parts). A backend may still register a fused
kernel for a composite on its own (device, layout) key. This module is an internal plugin.
"""

from __future__ import annotations

import builtins
import functools
import math
from collections.abc import Callable
from typing import Any

from .. import dtypes as dt
from .. import return_types
from .._memory_format import format_strides, preserve_format_strides
from .._tensor import _CONTIG, Tensor, _wrap_dim, contiguous_strides, make_tensor, torch_name
from ..dispatch import get_op
from ..layouts import contiguous_format, preserve_format, strided
from ..layouts import memory_format as _memory_format_cls
from ..plugins import hookimpl
from . import functions as ops
from ._call import call, call_lane
from ._transfer import to_device_copy
from .composite_complex import COMPLEX_COMPOSITES
from .composite_index import INDEX_COMPOSITES
from .composite_linalg import LINALG_COMPOSITES
from .composite_linalg_general import LINALG_GENERAL_COMPOSITES
from .composite_more import MORE_COMPOSITES
from .composite_random import RANDOM_COMPOSITES
from .composite_shape import SHAPE_COMPOSITES
from .composite_spectral import SPECTRAL_COMPOSITES
from .composite_stats import STATS_COMPOSITES
from .frontends import broadcast_shapes, named_as, named_view_output
from .meta_functions import split_sizes
from .schema import OPS
from .views import infer_size, release_temporary_view, view_strides, views_row_major

__all__ = ["COMPOSITES"]

COMPOSITES: dict[str, Callable[..., Any]] = {}


def _composite(fn: Callable[..., Any]) -> Callable[..., Any]:
    # A function is named after its operator, with a trailing underscore where the name would
    # clash with a Python one (``slice_``) unless the operator's own name ends with one (an
    # in-place-only operator, ``zero_``): the table says which.
    name = fn.__name__
    COMPOSITES[name if name in OPS else name.rstrip("_")] = fn
    return fn


# ------------------------------------------------------------------ pointwise
@_composite
def rsub(self: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    # ``sub`` takes a Python scalar as its first operand (a weak type, as in PyTorch).
    return ops.sub(other, self, alpha=alpha)


@_composite
def true_divide(self: Tensor, other: Any) -> Tensor:
    return ops.div(self, other)


@_composite
def clip(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
    return ops.clamp(self, min, max)


@_composite
def clamp_min(self: Tensor, min: Any) -> Tensor:
    return named_as(ops.clamp(self, min, None), "ClampMinBackward0")


@_composite
def clamp_max(self: Tensor, max: Any) -> Tensor:
    return named_as(ops.clamp(self, None, max), "ClampMaxBackward0")


def _promoted(*operands: Any) -> list[Any]:
    """The tensors among ``operands`` in the dtype all of them promote to (a pairwise
    promotion could differ: a 0-d float64 ``b`` makes ``b * int_tensor`` float64, where
    ``float32_tensor + b * int_tensor`` computes in float32)."""
    d = dt.result_type(*operands)
    return [x.to(d) if isinstance(x, Tensor) else x for x in operands]


@_composite
def addcmul(self: Tensor, tensor1: Any, tensor2: Any, value: Any = 1) -> Tensor:
    self, tensor1, tensor2 = _promoted(self, tensor1, tensor2)
    if isinstance(value, float) and dt.result_type(self, tensor1, tensor2)._category == dt.INTEGRAL:
        value = int(value)  # (PyTorch's integer kernel truncates a float value)
    value = _bool_value(value, self)
    return named_as(ops.add(self, ops.mul(tensor1, tensor2), alpha=value), "AddcmulBackward0")


def _bool_value(value: Any, self: Tensor) -> Any:
    """addcmul's and addcdiv's ``value`` as ``add``'s ``alpha``: a bool is the number 0 or
    1 for a result that is not bool (PyTorch's ``value`` is a plain Scalar, where ``alpha``
    refuses a bool for such results)."""
    if value.__class__ is bool and isinstance(self, Tensor) and self._dtype is not dt.bool_:
        return int(value)
    return value


@_composite
def addcdiv(self: Tensor, tensor1: Any, tensor2: Any, value: Any = 1) -> Tensor:
    for t in (tensor1, tensor2):
        if isinstance(t, Tensor) and not (t._dtype.is_floating_point or t._dtype.is_complex):
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future "
                "release addcdiv will perform a true division of tensor1 and tensor2. The "
                "historic addcdiv behavior can be implemented as (input + value * "
                "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
                "behavior is just the latter implementation: (input + value * tensor1 / "
                "tensor2), for all dtypes."
            )
    self, tensor1, tensor2 = _promoted(self, tensor1, tensor2)
    value = _bool_value(value, self)
    return named_as(ops.add(self, ops.div(tensor1, tensor2), alpha=value), "AddcdivBackward0")


@_composite
def square(self: Tensor) -> Tensor:
    if self._dtype is dt.bool_:
        return ops.pow(self, 2)  # PyTorch's square is pow(self, 2): int64 for bool
    return named_as(ops.mul(self, self), "PowBackward0")


@_composite
def positive(self: Tensor) -> Tensor:
    # (the frontend refuses bool first: ``positive`` declares ``dtypes="ifc"``)
    return self


@_composite
def isclose(
    self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Tensor:
    for position, (name, value) in enumerate((("input", self), ("other", other)), 1):
        if not isinstance(value, Tensor):  # (a pointwise declaration lets numbers through)
            raise TypeError(
                f"isclose(): argument '{name}' (position {position}) must be Tensor, not "
                f"{type(value).__name__}"
            )
    if self._dtype is not other._dtype:
        raise RuntimeError(f"{torch_name(self._dtype)} did not match {torch_name(other._dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    close = ops.eq(self, other)  # also equal infinities, which the tolerance test misses
    if self._dtype is dt.bool_:
        return close
    if equal_nan and (self.is_floating_point() or self.is_complex()):
        close = ops.logical_or(close, ops.logical_and(ops.isnan(self), ops.isnan(other)))
    a, b = self, other
    if not (self.is_floating_point() or self.is_complex()):
        # Integers compare through the default float dtype, so that |a - b| cannot wrap.
        a, b = a.to(dt.get_default_dtype()), b.to(dt.get_default_dtype())
    diff = ops.abs(ops.sub(a, b))
    within = ops.le(diff, ops.add(ops.mul(ops.abs(b), rtol), atol))
    return ops.logical_or(close, ops.logical_and(ops.isfinite(diff), within))


# ------------------------------------------------------------------ reductions
def _max_min(name: str, self: Tensor, dim: Any, keepdim: bool) -> Any:
    if dim is None:
        if self.numel() == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        # (an operator of its own, MaxBackward1's: its gradient is shared over ties, as
        # amax's is, and over the NaNs where the result is NaN, where amax's is NaN)
        return call_lane(get_op(f"{name}_all"), (self,))
    if isinstance(dim, Tensor):
        return (ops.maximum if name == "max" else ops.minimum)(self, dim)
    values, indices = call_lane(get_op(f"{name}_dim"), (self, dim, keepdim))
    return (return_types.max if name == "max" else return_types.min)(values, indices)


@_composite
def max(self: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return _max_min("max", self, dim, keepdim)


@_composite
def min(self: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return _max_min("min", self, dim, keepdim)


@_composite
def norm(
    self: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False, dtype: Any = None
) -> Tensor:
    if isinstance(dim, int):
        dim = (dim,)
    if p is None or (p == "fro" and (dim is None or len(dim) <= 2)):
        p = 2.0
    elif isinstance(p, str):
        # 'nuc' (and what matrix_norm refuses) is a matrix norm over dim, all dims by default.
        dims = tuple(range(self.ndim)) if dim is None else tuple(dim)
        return call(get_op("linalg_matrix_norm"), (self, p, dims, keepdim, dtype), None)
    return ops.vector_norm(self, p, dim, keepdim, dtype=dtype)


@_composite
def dist(self: Tensor, other: Tensor, p: Any = 2) -> Tensor:
    diff = self - other
    if not (diff._dtype.is_floating_point or diff._dtype.is_complex):
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. Got "
            f"{torch_name(diff._dtype)} instead."
        )
    return ops.vector_norm(diff, p)


@_composite
def renorm(self: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if self.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {self.ndim} dimensions")
    dim = _wrap_dim(dim, self.ndim)
    others = [d for d in range(self.ndim) if d != dim]
    norm = ops.vector_norm(self, float(p), others, True)
    # PyTorch scales with maxnorm / (norm + 1e-7), computed in the norm's (real) dtype.
    factor = ops.where(norm > maxnorm, maxnorm / (norm + 1e-7), ops.ones_like(norm))
    return self * factor


# ------------------------------------------------------------------ views and shapes
_VIEW = get_op("view")


def _view(self: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``self.view(shape)`` for sizes that are already a tuple of ints (a tensor's shape, or
    sizes computed from one): the operator's lane and then the call path, without the
    method's normalisation of the sizes (a sixth of a recorded ``x.flatten()``)."""
    return call_lane(_VIEW, (self, shape))


@_composite
def reshape(self: Tensor, shape: tuple[int, ...]) -> Tensor:
    if self._layout is strided and views_row_major(self, shape):
        return _view(self, shape)  # (what the lines below conclude, for a pair met before)
    new = infer_size(tuple(shape), self.numel())
    if self._layout is strided and (
        # (row-major: any shape of as many elements views it, no stride search)
        self._stride is _CONTIG.get(self._shape)
        or view_strides(self._shape, self._stride, new) is not None
    ):
        return _view(self, new)
    # (PyTorch's reshape of a copy ends in ``_unsafe_view``, the node programs print)
    return named_as(self.clone(memory_format=contiguous_format).view(new), "UnsafeViewBackward0")


@_composite
def view_as(self: Tensor, other: Tensor) -> Tensor:
    return _view(self, other._shape)


@_composite
def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    return self.reshape(other._shape)


@_composite
def t(self: Tensor) -> Tensor:
    n = len(self._shape)
    if n > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    if not n:
        return self
    return named_as(ops.transpose(self, 0, n - 1), "TBackward0")


@_composite
def swapaxes(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return self.transpose(axis0, axis1)


@_composite
def swapdims(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return self.transpose(dim0, dim1)


@_composite
def ravel(self: Tensor) -> Tensor:
    # (always contiguous, as PyTorch's: a view of a contiguous tensor, else a copy, even
    # where reshape could give a strided view)
    return ops.contiguous(self).view(-1)


@_composite
def movedim(self: Tensor, source: Any, destination: Any) -> Tensor:
    n = self.ndim
    src = [_wrap_dim(d, n) for d in ((source,) if isinstance(source, int) else source)]
    dst = [
        _wrap_dim(d, n) for d in ((destination,) if isinstance(destination, int) else destination)
    ]
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise RuntimeError("movedim: repeated dim in `source` or `destination`")
    order = [-1] * n
    for s, d in zip(src, dst, strict=True):
        order[d] = s
    rest = iter(i for i in range(n) if i not in src)
    order = [o if o != -1 else next(rest) for o in order]
    return self.permute(order)


@_composite
def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    shape = self._shape
    rank = len(shape)
    if rank == 0:
        return self.reshape(1)
    s, e = _wrap_dim(start_dim, rank), _wrap_dim(end_dim, rank)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return self
    new = (*shape[:s], math.prod(shape[s : e + 1]), *shape[e + 1 :])
    if self._layout is strided and (
        self._stride is _CONTIG.get(shape) or view_strides(shape, self._stride, new) is not None
    ):
        return _view(self, new)  # (what reshape would do, one dispatch less)
    return self.reshape(new)


@_composite
def unflatten(self: Tensor, dim: int, sizes: Any) -> Tensor:
    d = _wrap_dim(dim, self.ndim)
    if not len(sizes):
        raise RuntimeError("unflatten: sizes must be non-empty")
    sizes = infer_size(tuple(sizes), self._shape[d])
    return self.view(self._shape[:d] + sizes + self._shape[d + 1 :])


@_composite
def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return self.expand(other._shape)


@_composite
def broadcast_to(self: Tensor, size: Any) -> Tensor:
    return self.expand(tuple(size))


@_composite
def split(self: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    d = _wrap_dim(dim, self.ndim)
    sizes, listed = split_sizes(self._shape[d], split_size_or_sections, d)
    node = "SplitWithSizesBackward0" if listed else "SplitBackward0"
    out, start = [], 0
    for i, s in enumerate(sizes):
        out.append(named_view_output(self.narrow(d, start, s), node, i))
        start += s
    return tuple(out)


@_composite
def chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = self._shape[_wrap_dim(dim, self.ndim)]
    size = -(-n // chunks) if n else 0
    # (the operator, not the definition above: its outputs are then one node's, as PyTorch's
    # ``chunk`` gives ``SplitBackward0``)
    return tuple(ops.split(self, size, dim)) if size else (self,)


@_composite
def unbind(self: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    d = _wrap_dim(dim, self.ndim)
    return tuple(
        named_view_output(self.select(d, i), "UnbindBackward0", i) for i in range(self._shape[d])
    )


@_composite
def stack(tensors: Any, dim: int = 0) -> Tensor:
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]
    for i, t in enumerate(tensors):
        if t._shape != first._shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(first._shape)} at "
                f"entry 0 and {list(t._shape)} at entry {i}"
            )
    shape = first._shape
    d = _wrap_dim(dim, len(shape) + 1)
    if d < len(shape) and first._layout is strided:
        # Concatenated along d, the tensors lie one after the other there: splitting that dim
        # into (len(tensors), size) is the stack, without a view of each tensor.
        out = ops.cat(tensors, d).view(shape[:d] + (len(tensors),) + shape[d:])
        # (a view of the concatenation, never of an input: released here, where the
        # composite's wrapper would look for its base among every input)
        release_temporary_view(out, ())
    else:
        out = ops.cat([t.unsqueeze(d) for t in tensors], d)
    return named_as(out, "StackBackward0")


@_composite
def tile(self: Tensor, dims: Any) -> Tensor:
    dims = tuple(dims)
    if len(dims) < self.ndim:
        dims = (1,) * (self.ndim - len(dims)) + dims
    return self.repeat(dims)


@_composite
def contiguous(self: Tensor, memory_format: Any = None) -> Tensor:
    if memory_format is None:
        memory_format = contiguous_format
    if self.is_contiguous(memory_format=memory_format):
        return self
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if memory_format.order is not None:
        format_strides(memory_format, self._shape)  # (the rank error, as contiguous's own)
    return self.clone(memory_format=memory_format)


@_composite
def to_dense(self: Tensor, dtype: Any = None) -> Tensor:
    if self._layout is not strided:
        # A layout's plugin registers its own kernel (``*/<layout>``): reaching this one means
        # it did not, and a view of a tensor without strides would fail less clearly.
        lay = self._layout.name
        raise NotImplementedError(
            f"to_dense: not supported for a {lay} tensor: the plugin of the {lay} layout "
            "registers no to_dense kernel; it should register one with "
            "register.kernel('to_dense', '*', layout, fn)"
        )
    if dtype is None or dtype is self._dtype:
        return self.view_as(self)  # an alias, never ``self``, as PyTorch's
    return self.to(dtype)


@_composite
def type_as(self: Tensor, other: Tensor) -> Tensor:
    return self.to(other._dtype)


@_composite
def zero_(self: Tensor) -> Tensor:
    return self.fill_(0)


@_composite
def fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    # PyTorch's: the diagonal as one strided view (the sum of the strides), and for a tall
    # matrix with wrap, a second view starting ncols + 1 rows down.
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self._shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    height, width = self._shape[0], self._shape[1]
    size = builtins.min(height, width)
    step = builtins.sum(self._stride)
    self.as_strided((size,), (step,), self._offset).fill_(fill_value)
    if wrap and self.ndim == 2 and height > width + 1:
        wrap_size = (self.numel() + width) // (width + 1) - size
        offset = self._offset + self._stride[0] * (width + 1)
        self.as_strided((wrap_size,), (step,), offset).fill_(fill_value)
    return self


# ------------------------------------------------------------------ factories
_FACTORIES: dict[str, Any] = {}  # (``full``'s and ``empty``'s operators, on first use)


def _factory_lane(name: str) -> Any:
    op = _FACTORIES.get(name)
    if op is None:
        op = _FACTORIES[name] = get_op(name)
    return op.lane


# ``full`` and ``empty`` for the composites, whose arguments are already checked (a size
# tuple, a dtype, a device or None): through the factory's lane where it takes the call,
# since the public function would check them again (a third of a small ``zeros``).
def _new_full(size: tuple[int, ...], value: Any, dtype: Any, device: Any) -> Tensor:
    r = _factory_lane("full")(size, value, dtype, device, False)
    return r if r is not None else ops.full(size, value, dtype=dtype, device=device)


def _new_empty(size: tuple[int, ...], dtype: Any, device: Any) -> Tensor:
    r = _factory_lane("empty")(size, dtype, device, False, None)
    return r if r is not None else ops.empty(size, dtype=dtype, device=device)


@_composite
def zeros(size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _new_full(size, False if dtype is dt.bool_ else 0, dtype or dt._default_dtype, device)


@_composite
def ones(size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _new_full(size, True if dtype is dt.bool_ else 1, dtype or dt._default_dtype, device)


def _unwritten(t: Tensor) -> Tensor:
    """``t``, a tensor a factory just made and filled by an in-place draw, at version 0:
    PyTorch's random factories fill in their kernel, so their results read as unwritten
    (an in-place error later names the versions PyTorch names)."""
    st = t._storage
    if st is not None and t._version_counter is None:
        st.version = 0
    return t


@_composite
def rand(
    size: Any,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    # (``size`` came checked: the factory lane's ``empty``, not the public function)
    return _unwritten(
        _new_empty(size, dtype or dt._default_dtype, device).uniform_(generator=generator)
    )


@_composite
def randn(
    size: Any,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    return _unwritten(
        _new_empty(size, dtype or dt._default_dtype, device).normal_(generator=generator)
    )


@_composite
def bernoulli(self: Tensor, p: float | None = None, generator: Any = None) -> Tensor:
    if p is not None:
        return ops.empty_like(self).bernoulli_(p, generator=generator)
    # A row-major result drawn in its order through ``bernoulli_``'s kernel: a uniform below
    # each probability (float64 draws for float64 probabilities, float32 ones for the
    # others, as PyTorch's bernoulli_distribution<double> / <float>); ``bernoulli_``'s check
    # refuses probabilities outside [0, 1].
    out = _new_empty(self._shape, self._dtype, self._device)
    return _unwritten(out.bernoulli_(self, generator=generator))


@_composite
def bernoulli_(self: Tensor, p: Any = 0.5, generator: Any = None) -> Tensor:
    # (p was checked: a probability, or a floating tensor of them that broadcasts to self)
    # PyTorch's kernel visits the elements in memory order (dims by decreasing stride): draw in
    # that order, so a transposed or permuted tensor (a dropout of a transposed attention
    # output) gets PyTorch's mask for a seed. A float p is compared with a float64 draw, a
    # tensor of probabilities with float32 draws, float64 ones if they are float64
    # (PyTorch's CPU kernels: bernoulli_distribution<double> for a double p).
    order = sorted(range(self.ndim), key=lambda d: -self._stride[d])
    tensor_p = isinstance(p, Tensor)
    wide = dt.float32 if tensor_p and p._dtype is not dt.float64 else dt.float64
    u = ops.rand(
        [self._shape[d] for d in order], generator=generator, dtype=wide, device=self._device
    )
    if order != sorted(order):
        u = u.permute([order.index(d) for d in range(self.ndim)])
    return self.copy_(u < (p.to(wide) if tensor_p else float(p)))


@_composite
def multinomial(
    self: Tensor, num_samples: int, replacement: bool = False, generator: Any = None
) -> Tensor:
    # (``arg_checks.check_multinomial`` has checked the shape and ``num_samples``)
    n = self._shape[-1]
    w = self.unsqueeze(0) if self.ndim == 1 else self
    w = w.to(dt.float64)
    if bool((w < 0).any()) or not bool(w.isfinite().all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    total = w.sum(-1, keepdim=True)
    if bool((total <= 0).any()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rows = w._shape[0]
    if replacement and num_samples > 1:
        # Inverse CDF: the number of cumulative weights below u * total (PyTorch's draws:
        # one float64 uniform per sample, row by row).
        u = ops.rand(
            (rows, num_samples), generator=generator, dtype=dt.float64, device=self._device
        )
        cdf = w.cumsum(-1)
        idx = (cdf.unsqueeze(1) <= (u * total).unsqueeze(2)).sum(-1).clamp(max=n - 1)
    else:
        # Exponential races, as PyTorch runs them (also for one sample with replacement):
        # w / E with E exponential, the num_samples largest in order; zero weights never win.
        u = ops.rand((rows, n), generator=generator, dtype=dt.float64, device=self._device)
        scores = w / (-u).log1p().neg()
        idx = scores.topk(num_samples, -1, largest=True, sorted=True)[1]
    idx = idx.to(dt.int64)
    return idx.squeeze(0) if self.ndim == 1 else idx


@_composite
def randint(
    low: int = 0,
    high: Any = None,
    size: Any = None,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    # PyTorch's two forms, randint(high, size) and randint(low, high, size), by position or
    # by name (``randint(10, size=(3,))``, ``randint(high=10, size=(3,))``).
    if size is None:
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if isinstance(size, int) or size is None:
        raise TypeError(
            "randint(): argument 'size' must be tuple of ints, not " + type(size).__name__
        )
    out = _new_empty(tuple(size), dtype or dt.int64, device)
    # (random_'s check refuses bad bounds)
    return _unwritten(out.random_(low, high, generator=generator))


@_composite
def normal(
    mean: Any,
    std: Any,
    size: Any = None,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        ref = mean if isinstance(mean, Tensor) else std
        shape = ref._shape if size is None else tuple(size)
        if isinstance(mean, Tensor) and isinstance(std, Tensor):
            shape = broadcast_shapes(mean._shape, std._shape)
        noise = ops.empty(shape, dtype=dtype or ref._dtype, device=device or ref._device).normal_(
            generator=generator
        )
        return noise * std + mean
    if size is None:
        raise TypeError("normal(): with scalar mean and std, a size is required")
    return _unwritten(
        ops.empty(tuple(size), dtype=dtype, device=device).normal_(mean, std, generator=generator)
    )


def _like_empty(
    name: str, self: Tensor, dtype: Any, device: Any, memory_format: Any
) -> Tensor | None:
    """The uninitialised result of ``<name>_like`` where it is not row-major (the input's
    memory order, PyTorch's ``preserve_format``); None where a row-major factory makes it."""
    if memory_format is contiguous_format:
        return None
    shape, st = self._shape, self._stride
    if memory_format is not None and memory_format is not preserve_format:
        if memory_format.__class__ is not _memory_format_cls:
            raise TypeError(
                f"{name}(): argument 'memory_format' must be tensorcore.memory_format, not "
                f"{type(memory_format).__name__}"
            )
        st = format_strides(memory_format, shape)
    elif self._layout is not strided or st == contiguous_strides(shape):
        return None
    else:
        st = preserve_format_strides(shape, st)
    if st == contiguous_strides(shape):
        return None
    n = 1
    for s in shape:
        n *= s
    flat = ops.empty((n,), dtype=dtype or self._dtype, device=device or self._device)
    return make_tensor(flat._storage, shape, st, 0, flat._dtype, flat._device)


def _layout_of(self: Tensor, layout: Any) -> Any:
    """The ``layout=`` of the factory that makes ``self``'s ``*_like`` result: the one asked
    for, by default ``self``'s; None for strided. A layout without that factory refuses
    (PyTorch's ``ones_like`` of a sparse tensor raises ``NotImplementedError``); one with it
    makes the result in that layout."""
    if layout is None:
        layout = self._layout
    return None if layout is strided else layout


# ``*_like`` of a row-major input: a row-major result, made as ``<name>(shape, dtype, device)``
_ROW_MAJOR_LIKE: dict[str, Callable[..., Tensor]] = {
    "empty": _new_empty,
    "zeros": zeros,
    "ones": ones,
}


def _like(name: str, fill: Callable[[Tensor], Any]) -> Callable[..., Any]:
    row_major = _ROW_MAJOR_LIKE.get(name)

    def like(
        self: Tensor,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
        memory_format: Any = None,
        layout: Any = None,
    ) -> Tensor:
        if (
            row_major is not None
            and layout is None
            and memory_format is None
            and self._layout is strided
            and self._stride is _CONTIG.get(self._shape)
        ):
            return row_major(self._shape, dtype or self._dtype, device or self._device)
        lay = _layout_of(self, layout)
        out = (
            None
            if lay is not None
            else _like_empty(f"{name}_like", self, dtype, device, memory_format)
        )
        if out is None:
            return getattr(ops, name)(
                self._shape,
                dtype=dtype or self._dtype,
                device=device or self._device,
                layout=lay,
            )
        fill(out)
        return _unwritten(out)

    like.__name__ = f"{name}_like"
    return like


for _n, _fill in (
    ("empty", lambda t: t),
    ("zeros", lambda t: t.fill_(False if t._dtype is dt.bool_ else 0)),
    ("ones", lambda t: t.fill_(True if t._dtype is dt.bool_ else 1)),
    ("rand", lambda t: t.uniform_()),
    ("randn", lambda t: t.normal_()),
):
    COMPOSITES[f"{_n}_like"] = _like(_n, _fill)


@_composite
def full_like(
    self: Tensor,
    fill_value: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    layout: Any = None,
) -> Tensor:
    lay = _layout_of(self, layout)
    out = None if lay is not None else _like_empty("full_like", self, dtype, device, memory_format)
    if out is None:
        return ops.full(
            self._shape,
            fill_value,
            dtype=dtype or self._dtype,
            device=device or self._device,
            layout=lay,
        )
    return out.fill_(fill_value)


# Shapes, search and sets (ops/composite_shape.py), statistics (ops/composite_stats.py),
# indexing (ops/composite_index.py), complex numbers (ops/composite_complex.py), random
# fills (ops/composite_random.py) and window functions (ops/composite_spectral.py).
for _table in (
    SHAPE_COMPOSITES,
    STATS_COMPOSITES,
    INDEX_COMPOSITES,
    COMPLEX_COMPOSITES,
    RANDOM_COMPOSITES,
    SPECTRAL_COMPOSITES,
    MORE_COMPOSITES,
):
    for _name, _fn in _table.items():
        if _name in COMPOSITES:
            raise ValueError(f"composite {_name} defined twice")
        COMPOSITES[_name] = _fn


def to_device(self: Tensor, device: Any, non_blocking: bool = False) -> Tensor:
    """Copy to another device through the device backends (``DeviceInterface.copy_between``)."""
    return to_device_copy(self, device, non_blocking)


COMPOSITES.update(LINALG_COMPOSITES)
COMPOSITES.update(LINALG_GENERAL_COMPOSITES)


def _new_results(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn``, whose results that are views of its own temporaries become tensors of their
    own (``views.release_temporary_view``): a composite's result is new to its caller, as
    PyTorch's operators' are, unless it views one of the composite's inputs."""

    @functools.wraps(fn)
    def composite(*args: Any, **kwargs: Any) -> Any:
        res = fn(*args, **kwargs)
        if isinstance(res, Tensor):
            b = res._base
            # A view of the first argument, or of its base, stays one: the answer
            # ``release_temporary_view`` would give after its scan of every argument (half
            # of a small ``x.t()`` that records; ``tests/test_composite_results.py``).
            if b is not None and not (
                args and ((a := args[0]) is b or (a.__class__ is Tensor and a._base is b))
            ):
                release_temporary_view(res, (*args, *kwargs.values()))
        elif isinstance(res, (tuple, list)):
            for r in res:
                if isinstance(r, Tensor) and r._base is not None:
                    release_temporary_view(r, (*args, *kwargs.values()))
        return res

    return composite


# (both the registered kernels and the definitions autograd runs, ``autograd/step.py``)
COMPOSITES.update({_name: _new_results(_fn) for _name, _fn in COMPOSITES.items()})


@hookimpl
def tensorcore_register_kernels(register: Any) -> None:
    """Register every composite, and the core's device transfer, for every device and layout."""
    for name, fn in COMPOSITES.items():
        register.kernel(name, "*", "*", fn)
    register.kernel("to_device", "*", "*", to_device)
