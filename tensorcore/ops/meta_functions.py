"""Meta functions: argument checks, output shapes and dtypes, before any kernel runs.

A meta function takes an operator's arguments (in signature order) and returns ``(args, spec)``:
the normalised arguments the kernel receives after ``out``, and ``(shape, dtype)`` -- or
``(shape, dtype, like)`` for a result laid out in memory like the tensor ``like``, or a tuple of
``(shape, dtype)`` for an operator with several outputs. Each structured or factory operator
names its meta function in its declaration (``meta_function=`` in ``ops/schema/``), as
PyTorch's ``TORCH_META_FUNC`` does; the frontends (``ops/frontends.py``) call it.
This module holds the reductions', scans', sorts', shape operators' and factories' meta
functions; the other families have their own modules (``meta_products``, ``meta_indexing``,
``meta_nn``, ``meta_conv``, ``meta_norm``, ``meta_linalg``, ``meta_fft``), and the argument
checks that declarations name (``check=``, ``convert=``) are in ``arg_checks``.

The shape and dtype rules the frontends share (broadcasting, dim normalisation, the ``alpha``
rule) live here too: meta functions use them, and this module sits below the frontends.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from .. import dtypes as dt
from .._memory_format import format_strides, layer_format
from .._tensor import Tensor, _wrap_dim, make_tensor, torch_name
from ..layouts import contiguous_format, preserve_format
from ._validate import check_shape

__all__ = [
    "blas_scale",
    "broadcast",
    "check_alpha",
    "index_range",
    "need_tensor",
    "normalize_dims",
    "split_sizes",
]


# shapes -> the shape they broadcast to: operators meet the same shapes again and again (a
# training step's bias adds, a chain's backward, ``where``), and a hit costs a tenth of the loop.
_BROADCASTS: dict[tuple[tuple[int, ...], ...], tuple[int, ...]] = {}


# The most elements for which ``index_range`` reads the values in one ``tolist`` and takes
# their extremes in Python: below it, that is a fifth of two reductions read with ``item``
# (each a full operator call); above it, the reductions' own cost dominates.
_RANGE_BY_LIST = 64


def index_range(index: Tensor) -> tuple[int, int]:
    """The smallest and the largest value of the integer tensor ``index`` (not empty, on a
    device that holds data): the checks of the indexing operators that refuse an index out
    of range before anything is written. A small tensor is read in one ``tolist`` (one read
    from the device instead of two); a larger one through ``amin`` and ``amax``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.ops.meta_functions import index_range
    >>> index_range(tc.tensor([[3, -1], [7, 0]]))
    (-1, 7)
    >>> index_range(tc.arange(1000) - 5)
    (-5, 994)
    """
    if index.numel() <= _RANGE_BY_LIST:
        v = (index.reshape(-1) if index.ndim != 1 else index).tolist()
        if v.__class__ is not list:  # (a 0-d tensor)
            return v, v
        return min(v), max(v)
    return index.amin().item(), index.amax().item()


def broadcast(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape ``shapes`` (tuples of ints) broadcast to; a ``RuntimeError`` naming the clash."""
    try:
        hit = _BROADCASTS.get(shapes)
    except TypeError:  # (a list among them: not kept)
        return _broadcast(shapes)
    if hit is None:
        hit = _broadcast(shapes)
        if len(_BROADCASTS) >= 4096:
            _BROADCASTS.clear()
        _BROADCASTS[shapes] = hit
    return hit


def _broadcast(shapes: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    ndim = max(map(len, shapes)) if shapes else 0
    out = [1] * ndim
    for s in shapes:
        off = ndim - len(s)
        for i, n in enumerate(s):
            cur = out[off + i]
            if n != cur:
                if cur == 1:
                    out[off + i] = n
                elif n != 1:
                    raise RuntimeError(
                        f"The size of tensor a ({cur}) must match the size of tensor b ({n}) "
                        f"at non-singleton dimension {off + i}"
                    )
    return tuple(out)


def normalize_dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """Dims as a sorted tuple of non-negative ints; ``None``/``()`` mean every dim."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    res = []
    for d in dims:
        if not isinstance(d, int) or isinstance(d, bool):
            raise TypeError(f"dim must be an int or a tuple of ints, got {dim!r}")
        w = _wrap_dim(d, ndim)
        if w in res:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        res.append(w)
    return tuple(sorted(res))


def check_alpha(compute: dt.dtype, alpha: Any, name: str = "alpha", bool_ok: bool = False) -> None:
    """PyTorch's rule for a scaling ``alpha`` (``beta``): no float with integral tensors,
    no complex number with real ones, and (for ``add``/``sub``) no bool with non-bool ones."""
    cat = compute._category
    if isinstance(alpha, bool) and cat != 0 and not bool_ok:
        raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
    if isinstance(alpha, complex) and cat < 3:
        raise RuntimeError(
            f"For non-complex input tensors, argument {name} must not be a complex number."
        )
    if isinstance(alpha, float) and cat < 2:
        raise RuntimeError(
            f"For integral input tensors, argument {name} must not be a floating point number."
        )


def blas_scale(compute: dt.dtype, value: Any, name: str) -> Any:
    """``beta`` or ``alpha`` of the ``addmm`` family as its kernel receives it: PyTorch
    converts it to an integral compute dtype (a float truncates, ``0.5`` scales by 0; a
    complex one, or one beyond int64, is refused as that conversion overflows), and refuses a
    complex one for real floating tensors.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.ops.meta_functions import blas_scale
    >>> blas_scale(tc.int64, 2.7, "alpha"), blas_scale(tc.float32, 0.5, "beta")
    (2, 0.5)
    """
    if compute._category == 1 and isinstance(value, (float, complex)):
        if isinstance(value, complex) or not math.isfinite(value) or abs(value) >= 2.0**63:
            raise RuntimeError(
                f"value cannot be converted to type int64_t without overflow (argument {name})"
            )
        return int(value)
    check_alpha(compute, value, name, bool_ok=True)
    return value


def need_tensor(name: str, arg: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' must be Tensor, not {type(x).__name__}")
    return x


def _scan_dtype(self: Tensor, dtype: dt.dtype | None) -> dt.dtype:
    if dtype is not None:
        return dtype
    d = self._dtype
    return dt.int64 if not (d.is_floating_point or d.is_complex) else d


def meta_cumsum(self: Tensor, dim: int, dtype: dt.dtype | None = None) -> Any:
    d = _wrap_dim(dim, self.ndim)
    res = _scan_dtype(self, dtype)
    return (self, d, res), (self._shape, res)


def meta_extreme_all(self: Tensor) -> Any:
    return (self,), ((), self._dtype)


def meta_evenly_distribute_backward(
    grad: Tensor, self: Tensor, value: Tensor, dim: Any, keepdim: bool, nan_ties: bool = False
) -> Any:
    name = "evenly_distribute_backward"
    g = need_tensor(name, "grad", grad)
    x = need_tensor(name, "self", self)
    v = need_tensor(name, "value", value)
    dims = normalize_dims(dim, x.ndim)
    reduced = tuple(
        1 if i in dims else n for i, n in enumerate(x._shape) if keepdim or i not in dims
    )
    if g._shape != reduced or v._shape != reduced:
        raise RuntimeError(
            f"{name}(): grad of shape {list(g._shape)} and value of shape {list(v._shape)} "
            f"do not match self of shape {list(x._shape)} reduced over {list(dims)}"
        )
    if not (g._dtype.is_floating_point or g._dtype.is_complex):
        raise RuntimeError(f"{name}(): expected a floating grad, got {torch_name(g._dtype)}")
    return (g, x, v, dims, keepdim, bool(nan_ties)), (x._shape, g._dtype)


def meta_value_selecting_reduction_backward(
    grad: Tensor, dim: int, indices: Tensor, sizes: Any, keepdim: bool
) -> Any:
    name = "value_selecting_reduction_backward"
    g = need_tensor(name, "grad", grad)
    i = need_tensor(name, "indices", indices)
    shape = tuple(int(n) for n in sizes)
    d = _wrap_dim(dim, len(shape)) if shape else 0
    reduced = tuple(
        1 if k == d else n for k, n in enumerate(shape) if keepdim or k != d
    )  # (a 0-d self: grad and indices 0-d too)
    if g._shape != reduced or i._shape != reduced:
        raise RuntimeError(
            f"{name}(): grad of shape {list(g._shape)} and indices of shape "
            f"{list(i._shape)} do not match sizes {list(shape)} reduced over dim {d}"
        )
    if i._dtype is not dt.int64:
        raise RuntimeError(f"{name}(): expected int64 indices, got {torch_name(i._dtype)}")
    return (g, d, i, shape, bool(keepdim)), (shape, g._dtype)


def meta_cummax(self: Tensor, dim: int) -> Any:
    d = _wrap_dim(dim, self.ndim)
    return (self, d), ((self._shape, self._dtype), (self._shape, dt.int64))


def meta_logcumsumexp(self: Tensor, dim: int) -> Any:
    return (self, _wrap_dim(dim, self.ndim)), (self._shape, self._dtype)


def meta_searchsorted(
    sorted_sequence: Tensor,
    input: Any,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Tensor | None = None,
) -> Any:
    name = "searchsorted()"
    seq = need_tensor("searchsorted", "sorted_sequence", sorted_sequence)
    if not seq._shape:
        raise RuntimeError(
            f"{name}: boundaries tensor should have positive dimension, but got 0 dimension"
        )
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"{name}: side can only be 'left' or 'right' but got {side}")
        if side == "left" and right:
            raise RuntimeError(
                f"{name}: side and right can't be set to opposites, got side of left while "
                "right was True"
            )
        right = side == "right"
    if isinstance(input, Tensor):
        shape = input._shape
        if seq.ndim > 1 and seq._shape[:-1] != shape[:-1]:
            raise RuntimeError(
                f"{name}: boundaries tensor should be 1 dimension or the first N-1 dimensions "
                "of boundaries tensor and input value tensor must match, but we got "
                f"boundaries tensor {list(seq._shape)} and input value tensor {list(shape)}"
            )
    else:
        shape = ()
        if seq.ndim != 1:
            raise RuntimeError(
                f"{name}: input value can be a scalar only when boundaries tensor dimension "
                f"is 1, but we got boundaries tensor dim({seq.ndim}) and input value's dim(0) "
                "numel(1)"
            )
    if sorter is not None:
        if sorter._dtype is not dt.int64:
            raise RuntimeError(
                f"{name}: sorter must be a tensor of long dtype but got dtype "
                f"{torch_name(sorter._dtype)}"
            )
        if sorter._shape != seq._shape:
            raise RuntimeError(
                f"{name}: boundary and sorter must have the same size, but got boundary "
                f"tensor {list(seq._shape)}and got sorter tensor {list(sorter._shape)}"
            )
    if seq._dtype.is_complex or (isinstance(input, Tensor) and input._dtype.is_complex):
        raise RuntimeError(f"{name}: complex tensors are not supported")
    res = dt.int32 if out_int32 else dt.int64
    return (seq, input, out_int32, right, None, sorter), (shape, res)


def meta_softmax(self: Tensor, dim: int, dtype: dt.dtype | None = None) -> Any:
    d = _wrap_dim(dim, self.ndim)
    res = dtype or self._dtype
    if not (res.is_floating_point or res.is_complex):
        res = dt.get_default_dtype() if dtype is None else res
    if not (res.is_floating_point or res.is_complex):
        raise RuntimeError(f"softmax(): expected a floating dtype, got {torch_name(res)}")
    return (self, d, res), (self._shape, res)


def _meta_softmax_backward(name: str) -> Callable[..., Any]:
    def meta(grad_output: Tensor, output: Tensor, dim: int) -> Any:
        g = need_tensor(name, "grad_output", grad_output)
        y = need_tensor(name, "output", output)
        if g._shape != y._shape:
            raise RuntimeError(
                f"{name}(): grad_output of shape {list(g._shape)} does not match output of "
                f"shape {list(y._shape)}"
            )
        res = dt.promote_types(g._dtype, y._dtype)
        if not (res.is_floating_point or res.is_complex):
            raise RuntimeError(f"{name}(): expected floating tensors, got {torch_name(res)}")
        return (g, y, _wrap_dim(dim, y.ndim)), (y._shape, res)

    return meta


meta_softmax_backward_data = _meta_softmax_backward("_softmax_backward_data")
meta_log_softmax_backward_data = _meta_softmax_backward("_log_softmax_backward_data")

_REDUCTIONS = ("mean", "sum", "none")


def _nll_checks(name: str, target: Tensor, reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction ({name})")
    if target._dtype is not dt.int64:
        raise RuntimeError(
            f"expected scalar type Long but found {torch_name(target._dtype)} ({name} target)"
        )
    if target.ndim != 1:
        raise ValueError(f"{name}(): expected a 1-D target (N,), got {list(target._shape)}")


def _nll_weight(name: str, weight: Tensor | None, classes: int, like: Tensor) -> None:
    if weight is None:
        return
    need_tensor(name, "weight", weight)
    if weight.ndim != 1 or weight._shape[0] != classes:
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes "
            f"but got weight tensor of shape: {list(weight._shape)} ({name})"
        )
    if weight._dtype is not like._dtype:
        raise RuntimeError(
            f"{name}(): expected weight of dtype {torch_name(like._dtype)}, got "
            f"{torch_name(weight._dtype)}"
        )


def meta_nll_loss(
    self: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: str = "mean",
    ignore_index: int = -100,
) -> Any:
    need_tensor("nll_loss", "target", target)
    _nll_checks("nll_loss", target, reduction)
    if self.ndim != 2:
        raise ValueError(
            f"nll_loss expects input (N, C) and target (N,), got {list(self._shape)} and "
            f"{list(target._shape)}"
        )
    if self._shape[0] != target._shape[0]:
        raise ValueError(
            f"Expected input batch_size ({self._shape[0]}) to match target batch_size "
            f"({target._shape[0]})."
        )
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError(f"\"nll_loss\" not implemented for '{torch_name(self._dtype)}'")
    _nll_weight("nll_loss", weight, self._shape[1], self)
    shape = target._shape if reduction == "none" else ()
    return (self, target, weight, reduction, ignore_index), (shape, self._dtype)


def meta_nll_loss_backward(
    grad_output: Tensor,
    target: Tensor,
    num_classes: int,
    reduction: str = "mean",
    weight: Tensor | None = None,
    ignore_index: int = -100,
) -> Any:
    g = need_tensor("nll_loss_backward", "grad_output", grad_output)
    need_tensor("nll_loss_backward", "target", target)
    _nll_checks("nll_loss_backward", target, reduction)
    want = target._shape if reduction == "none" else ()
    if g._shape != want:
        raise RuntimeError(
            f"nll_loss_backward(): grad_output of shape {list(g._shape)} does not fit "
            f"reduction '{reduction}' of a target of shape {list(target._shape)} (expected "
            f"{list(want)})"
        )
    if not (g._dtype.is_floating_point or g._dtype.is_complex):
        raise RuntimeError(
            f"nll_loss_backward(): expected a floating grad_output, got {torch_name(g._dtype)}"
        )
    _nll_weight("nll_loss_backward", weight, num_classes, g)
    args = (g, target, num_classes, reduction, weight, ignore_index)
    return args, ((target._shape[0], num_classes), g._dtype)


def meta_sort(self: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:
    d = _wrap_dim(dim, self.ndim)
    return (self, d, descending, stable), ((self._shape, self._dtype), (self._shape, dt.int64))


def meta_frexp(self: Tensor) -> Any:
    # (the frontend refuses non-floating dtypes first: ``frexp`` declares ``dtypes="f"``)
    return (self,), ((self._shape, self._dtype), (self._shape, dt.int32))


def meta_argsort(
    self: Tensor, dim: int = -1, descending: bool = False, stable: bool = False
) -> Any:
    d = _wrap_dim(dim, self.ndim)
    return (self, d, descending, stable), (self._shape, dt.int64)


def meta_topk(
    self: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
) -> Any:
    d = _wrap_dim(dim, self.ndim)
    n = self._shape[d] if self._shape else 1
    if not 0 <= k <= n:
        raise RuntimeError(f"topk(): selected index k={k} out of range for a dim of size {n}")
    shape = list(self._shape)
    if shape:
        shape[d] = k
    s = tuple(shape)
    return (self, k, d, largest, sorted), ((s, self._dtype), (s, dt.int64))


def meta_cat(tensors: Any, dim: int = 0) -> Any:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError("cat(): argument 'tensors' must be a tuple or list of Tensors")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")  # (PyTorch's)
    ts = list(tensors)  # (a copy: autograd saves it, the caller may append to theirs)
    legacy = False
    for i, t in enumerate(ts):
        if not isinstance(t, Tensor):
            need_tensor("cat", "tensors", t)
        s = t._shape
        if not s:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        if s == (0,):
            legacy = True
    # PyTorch skips legacy empty 1-D tensors of shape (0,).
    full = ([t for t in ts if t._shape != (0,)] or ts[:1]) if legacy else ts
    ref = full[0]._shape
    n = len(ref)
    d = _wrap_dim(dim, n)
    res = ts[0]._dtype
    for t in ts[1:]:
        if t._dtype is not res:
            res = dt.promote_types(res, t._dtype)
    before, after = ref[:d], ref[d + 1 :]
    total = 0
    for i, t in enumerate(full):
        s = t._shape
        if len(s) != n:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {n} and {len(s)}")
        if s[:d] != before or s[d + 1 :] != after:
            k = next(k for k in range(n) if k != d and s[k] != ref[k])
            raise RuntimeError(
                f"Sizes of tensors must match except in dimension {d}. Expected size "
                f"{ref[k]} but got size {s[k]} for tensor number {i} in the list."
            )
        total += s[d]
    shape = before + (total,) + after
    if n == 4 or n == 5:
        # PyTorch's format for the result: the one every input suggests, else row-major
        fmt = layer_format(full[0])
        if fmt is not None and all(layer_format(t) is fmt for t in full[1:]):
            return (full, d), format_spec(shape, res, fmt, full[0]._device)
    return (full, d), (shape, res)


def meta_flip(self: Tensor, dims: Any) -> Any:
    return (self, normalize_dims(dims, self.ndim) if dims else ()), (self._shape, self._dtype)


def meta_roll(self: Tensor, shifts: Any, dims: Any = None) -> Any:
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if dims is not None:
        dims = (dims,) if isinstance(dims, int) else tuple(dims)
        if self.ndim == 0 and dims:
            raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
        if len(dims) != len(shifts):
            raise RuntimeError(
                f"roll(): shifts and dimensions must align. shifts: {len(shifts)}, "
                f"dims: {len(dims)}"
            )
        dims = tuple(_wrap_dim(d, self.ndim) for d in dims)
    elif len(shifts) != 1:
        raise RuntimeError("roll(): without dims, shifts must be a single int")
    return (self, shifts, dims), (self._shape, self._dtype)


def meta_repeat(self: Tensor, repeats: Any) -> Any:
    reps = tuple(repeats)
    if len(reps) < self.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    if any(r < 0 for r in reps):
        raise RuntimeError(f"repeat(): repeats must be non-negative, got {list(reps)}")
    padded = (1,) * (len(reps) - self.ndim) + self._shape
    return (self, reps), (tuple(s * r for s, r in zip(padded, reps, strict=True)), self._dtype)


def meta_tril(self: Tensor, diagonal: int = 0) -> Any:
    if self.ndim < 2:
        raise RuntimeError(
            f"tril/triu: input tensor must have at least 2 dimensions, got {self.ndim}"
        )
    return (self, diagonal), (self._shape, self._dtype)


def format_spec(shape: tuple[int, ...], dtype: dt.dtype, fmt: Any, dev: Any) -> tuple[Any, ...]:
    """The spec of a result laid out in the channels-last format ``fmt``: ``(shape, dtype,
    like)``, ``like`` a template over no storage that carries the format's strides, which
    are dense, so the allocation keeps them as they are; ``(shape, dtype)`` (row-major) for
    ``fmt`` None or a format of another rank."""
    if fmt is None or len(fmt.order) != len(shape):
        return shape, dtype
    like = make_tensor(None, shape, format_strides(fmt, shape), 0, dtype, dev)
    return shape, dtype, like


def meta_clone(self: Tensor, memory_format: Any = None) -> Any:
    if memory_format is contiguous_format:
        return (self,), (self._shape, self._dtype)
    if memory_format is not None and memory_format is not preserve_format:
        format_strides(memory_format, self._shape)  # (the rank error)
        return (self,), format_spec(self._shape, self._dtype, memory_format, self._device)
    # (shape, dtype, like): the output follows ``self``'s memory order.
    return (self,), (self._shape, self._dtype, self)


def meta_empty(
    size: Sequence[int], dtype: dt.dtype | None, device: Any, requires_grad: Any, fmt: Any = None
) -> Any:
    shape = _check_size("empty", size)
    spec: tuple[Any, ...] = (shape, dtype or dt.get_default_dtype())
    if fmt is not None and fmt is not contiguous_format:
        if fmt is preserve_format:
            raise RuntimeError("unsupported memory format Preserve")  # (PyTorch's words)
        spec += (format_strides(fmt, shape),)  # (shape, dtype, strides): see ``factory``
    return (size, dtype, device, requires_grad), spec


def meta_to_dtype(self: Tensor, dtype: dt.dtype) -> Any:
    if not isinstance(dtype, dt.dtype):
        raise TypeError(f"to(): expected a tensorcore dtype, got {dtype!r}")
    # (shape, dtype, like): the copy keeps ``self``'s memory order (a channels-last batch
    # stays channels-last), as PyTorch's ``to`` does by default (``preserve_format``).
    return (self, dtype), (self._shape, dtype, self)


# ------------------------------------------------------------------ factories
def _check_size(name: str, size: Any) -> tuple[int, ...]:
    size = tuple(size)
    for s in size:
        if isinstance(s, bool) or not isinstance(s, int):
            raise TypeError(f"{name}(): size must be a tuple of ints, but got {size!r}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    check_shape(name, size)
    return size


def meta_full(size: Sequence[int], fill_value: Any, dtype: dt.dtype | None, *rest: Any) -> Any:
    shape = _check_size("full", size)
    return (size, fill_value, dtype, *rest), (shape, dtype or dt.scalar_dtype(fill_value))


def meta_arange(start: Any, end: Any, step: Any, dtype: dt.dtype | None, *rest: Any) -> Any:
    if end is None:
        start, end = 0, start
    for v in (start, end, step):
        if isinstance(v, complex) or not math.isfinite(v):
            raise RuntimeError(f"arange(): unsupported range: {start} -> {end} (step {step})")
    if step == 0:
        raise RuntimeError("arange(): step must be nonzero")
    if dtype is None:
        ints = all(isinstance(v, int) for v in (start, end, step))
        dtype = dt.int64 if ints else dt.get_default_dtype()
    # The length from the bounds as given (int64: as truncated to integers, exactly)
    n = math.ceil((end - start) / step)
    if dtype._category == dt.INTEGRAL:
        # PyTorch computes an integer range in int64: the bounds and step truncated first.
        start, end, step = int(start), int(end), int(step)
        if step == 0:
            raise ValueError("step must be nonzero")
        if dtype is dt.int64:
            n = -((start - end) // step)
    if (end - start) * step < 0:
        raise RuntimeError("arange(): upper bound and larger bound inconsistent with step sign")
    return (start, end, step, dtype, *rest), ((max(0, n),), dtype)


def meta_linspace(start: Any, end: Any, steps: int, dtype: dt.dtype | None, *rest: Any) -> Any:
    if steps < 0:
        raise RuntimeError("linspace(): number of steps must be non-negative")
    cplx = isinstance(start, complex) or isinstance(end, complex)
    if dtype is None:
        dtype = dt.get_default_dtype().to_complex() if cplx else dt.get_default_dtype()
    elif cplx and not dtype.is_complex:
        raise RuntimeError(
            f"linspace(): a complex start or end needs a complex dtype, got {dtype.name}"
        )
    return (start, end, steps, dtype, *rest), ((steps,), dtype)


def meta_eye(n: int, m: int | None, dtype: dt.dtype | None, *rest: Any) -> Any:
    m = n if m is None else m
    if n < 0 or m < 0:
        raise RuntimeError(f"eye(): n and m must be non-negative, got {n} and {m}")
    dtype = dtype or dt.get_default_dtype()
    return (n, m, dtype, *rest), ((n, m), dtype)


def meta_standard_gamma(self: Tensor, generator: Any = None) -> Any:
    return (self, generator), (self._shape, self._dtype)


def meta_randperm(n: int, generator: Any, dtype: dt.dtype | None, *rest: Any) -> Any:
    if n < 0:
        raise RuntimeError(f"randperm(): n must be non-negative, got {n}")
    return (n, generator, dtype, *rest), ((n,), dtype or dt.int64)


def split_sizes(n: int, split_size_or_sections: Any, d: int) -> tuple[list[int], bool]:
    """The sizes of ``split``'s pieces of dim ``d``, of size ``n`` (an int: pieces of that size,
    the last one shorter; a list: those sizes), with PyTorch's errors, and whether the sizes
    were given as a list (PyTorch's ``split_with_sizes``, whose node is named apart)."""
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0:
            raise RuntimeError(
                f"split expects split_size be non-negative, but got split_size={step}"
            )
        if step == 0 and n != 0:
            raise RuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
            )
        if not step or not n:
            return [0], False  # (an empty dim splits into one empty piece, as PyTorch's)
        return [min(step, n - i) for i in range(0, n, step)], False
    sizes = list(split_size_or_sections)
    if sum(sizes) != n:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size "
            f"at dimension {d}), but got split_sizes={sizes}"
        )
    return sizes, True
