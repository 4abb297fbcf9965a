"""Meta functions: argument checks, output shapes and dtypes, before any kernel runs.

A meta function takes an operator's arguments (in signature order) and returns ``(args, spec)``:
the normalised arguments the kernel receives after ``out``, and ``(shape, dtype)`` -- or
``(shape, dtype, like)`` for a result laid out in memory like the tensor ``like``, or a tuple of
``(shape, dtype)`` for an operator with several outputs. Each structured or factory operator
names its meta function in its declaration (``meta_function=`` in ``ops/schema/``), as
PyTorch's ``TORCH_META_FUNC`` does; the frontends (``ops/frontends.py``) call it.

The shape and dtype rules the frontends share (broadcasting, dim normalisation, the ``alpha``
rule) live here too: meta functions use them, and this module sits below the frontends.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from .. import _registry
from .. import dtypes as dt
from .._memory_format import format_strides, layer_format
from .._tensor import Tensor, _wrap_dim, cpp_name, make_tensor, torch_name
from ..layouts import contiguous_format, preserve_format
from ._validate import check_shape, v_float, warn_caller

__all__ = ["blas_scale", "broadcast", "check_alpha", "index_range", "normalize_dims"]


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


def _need_tensor(name: str, arg: str, x: Any) -> Tensor:
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
    g = _need_tensor(name, "grad", grad)
    x = _need_tensor(name, "self", self)
    v = _need_tensor(name, "value", value)
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
    g = _need_tensor(name, "grad", grad)
    i = _need_tensor(name, "indices", indices)
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
    seq = _need_tensor("searchsorted", "sorted_sequence", sorted_sequence)
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
        g = _need_tensor(name, "grad_output", grad_output)
        y = _need_tensor(name, "output", output)
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
    _need_tensor(name, "weight", weight)
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
    _need_tensor("nll_loss", "target", target)
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
    g = _need_tensor("nll_loss_backward", "grad_output", grad_output)
    _need_tensor("nll_loss_backward", "target", target)
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


def _same_dtype(name: str, a: Tensor, b: Tensor) -> dt.dtype:
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"{name}(): expected both arguments to have the same dtype, but got: "
            f"{torch_name(a._dtype)} != {torch_name(b._dtype)}"
        )
    return a._dtype


def _matmul_mismatch(a: tuple[int, ...], b: tuple[int, ...]) -> str:
    """PyTorch's message for ``matmul`` of shapes whose inner sizes differ, which names the
    kernel the shapes lead to (dot, mv, mm or bmm)."""
    rows = math.prod(a[:-1])
    if len(a) == 1 and len(b) == 1:
        return (
            f"inconsistent tensor size, expected tensor [{a[0]}] and src [{b[0]}] to have the "
            f"same number of elements, but got {a[0]} and {b[0]} elements respectively"
        )
    if len(b) == 1:
        return f"size mismatch, got input ({rows}), mat ({rows}x{a[-1]}), vec ({b[0]})"
    if len(b) == 2:
        return f"mat1 and mat2 shapes cannot be multiplied ({rows}x{a[-1]} and {b[0]}x{b[1]})"
    batch = math.prod(broadcast(a[:-2], b[:-2]))
    return (
        f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {a[-1]}] "
        f"but got: [{batch}, {b[-2]}]."
    )


def meta_matmul(self: Tensor, other: Tensor) -> Any:
    _need_tensor("matmul", "other", other)
    d = _same_dtype("matmul", self, other)
    a, b = self._shape, other._shape
    if not a or not b:
        raise RuntimeError(
            f"matmul(): both arguments need at least 1 dimension, but got {len(a)}D and {len(b)}D"
        )
    k1 = a[-1]
    k2 = b[-2] if len(b) > 1 else b[0]
    if k1 != k2:
        raise RuntimeError(_matmul_mismatch(a, b))
    if len(a) == 1 and len(b) == 1:
        shape: tuple[int, ...] = ()
    elif len(b) == 1:
        shape = a[:-1]
    elif len(a) == 1:
        shape = b[:-2] + b[-1:]
    elif len(a) == 2 and len(b) == 2:  # (no batch dims to broadcast: the common case)
        shape = (a[0], b[1])
    else:
        shape = broadcast(a[:-2], b[:-2]) + (a[-2], b[-1])
    return (self, other), (shape, d)


def meta_mm(self: Tensor, mat2: Tensor) -> Any:
    _need_tensor("mm", "mat2", mat2)
    if self.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if self._shape[1] != mat2._shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({self._shape[0]}x{self._shape[1]} and "
            f"{mat2._shape[0]}x{mat2._shape[1]})"
        )
    return (self, mat2), ((self._shape[0], mat2._shape[1]), _same_dtype("mm", self, mat2))


def meta_addmm(self: Tensor, mat1: Tensor, mat2: Tensor, beta: Any = 1, alpha: Any = 1) -> Any:
    _need_tensor("addmm", "mat1", mat1)
    _need_tensor("addmm", "mat2", mat2)
    _, (shape, dtype) = meta_mm(mat1, mat2)
    if self._dtype is not dtype:
        raise RuntimeError(
            f"addmm(): expected self and the matrices to have the same dtype, but got "
            f"{torch_name(self._dtype)} and {torch_name(dtype)}"
        )
    try:
        fits = broadcast(self._shape, shape) == shape
    except RuntimeError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"addmm(): self of shape {list(self._shape)} cannot be broadcast to the product's "
            f"shape {list(shape)}"
        )
    beta, alpha = blas_scale(dtype, beta, "beta"), blas_scale(dtype, alpha, "alpha")
    return (self, mat1, mat2, beta, alpha), (shape, dtype)


def meta_bmm(self: Tensor, mat2: Tensor) -> Any:
    _need_tensor("bmm", "mat2", mat2)
    if self.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    (b1, n, k1), (b2, k2, m) = self._shape, mat2._shape
    if b1 != b2 or k1 != k2:
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{b1}, {k1}] but got: [{b2}, {k2}]."
        )
    return (self, mat2), ((b1, n, m), _same_dtype("bmm", self, mat2))


def meta_mv(self: Tensor, vec: Tensor) -> Any:
    _need_tensor("mv", "vec", vec)
    if self.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.ndim}, {vec.ndim}")
    if self._shape[1] != vec._shape[0]:
        n, k = self._shape
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{k}), vec ({vec._shape[0]})")
    return (self, vec), ((self._shape[0],), _same_dtype("mv", self, vec))


def meta_dot(self: Tensor, tensor: Tensor) -> Any:
    _need_tensor("dot", "tensor", tensor)
    if self.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.ndim}D and {tensor.ndim}D tensors")
    if self._shape != tensor._shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{self._shape[0]}] and src "
            f"[{tensor._shape[0]}] to have the same number of elements, but got "
            f"{self._shape[0]} and {tensor._shape[0]} elements respectively"
        )
    return (self, tensor), ((), _same_dtype("dot", self, tensor))


def meta_outer(self: Tensor, vec2: Tensor) -> Any:
    _need_tensor("outer", "vec2", vec2)
    if self.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"outer(): expected 1-D tensors, got {self.ndim}D and {vec2.ndim}D")
    return (self, vec2), (
        (self._shape[0], vec2._shape[0]),
        dt.promote_types(self._dtype, vec2._dtype),
    )


def meta_addmv(self: Tensor, mat: Tensor, vec: Tensor, beta: Any = 1, alpha: Any = 1) -> Any:
    _need_tensor("addmv", "mat", mat)
    _need_tensor("addmv", "vec", vec)
    if mat.ndim != 2 or vec.ndim != 1 or self.ndim > 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {self.ndim}, {mat.ndim}, {vec.ndim}"
        )
    n, m = mat._shape
    if m != vec._shape[0] or (self.ndim == 1 and self._shape[0] not in (1, n)):
        size = "" if self.ndim == 0 else str(self._shape[0])
        raise RuntimeError(
            f"size mismatch, got input ({size}), mat ({n}x{m}), vec ({vec._shape[0]})"
        )
    if not (self._dtype is mat._dtype is vec._dtype):
        raise RuntimeError(
            "addmv input tensors must have the same dtype, but got "
            f"{torch_name(self._dtype)}, {torch_name(mat._dtype)}, and {torch_name(vec._dtype)}"
        )
    dtype = self._dtype
    beta, alpha = blas_scale(dtype, beta, "beta"), blas_scale(dtype, alpha, "alpha")
    return (self, mat, vec, beta, alpha), ((n,), dtype)


def meta_addr(self: Tensor, vec1: Tensor, vec2: Tensor, beta: Any = 1, alpha: Any = 1) -> Any:
    _need_tensor("addr", "vec1", vec1)
    _need_tensor("addr", "vec2", vec2)
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    shape = (vec1._shape[0], vec2._shape[0])
    try:
        fits = broadcast(self._shape, shape) == shape
    except RuntimeError:
        fits = False
    if not fits:
        bad = next(
            i
            for i in range(-1, -self.ndim - 1, -1)
            if -i > 2 or self._shape[i] not in (1, shape[i])
        )
        have = self._shape[bad]
        raise RuntimeError(
            f"The expanded size of the tensor ({shape[bad] if -bad <= 2 else -1}) must match "
            f"the existing size ({have}) at non-singleton dimension {self.ndim + bad}.  "
            f"Target sizes: {list(shape)}.  Tensor sizes: {list(self._shape)}"
        )
    dtype = dt.result_type(self, vec1, vec2)
    check_alpha(dtype, beta, "beta")
    check_alpha(dtype, alpha, "alpha")
    return (self, vec1, vec2, beta, alpha), (shape, dtype)


def meta_cat(tensors: Any, dim: int = 0) -> Any:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError("cat(): argument 'tensors' must be a tuple or list of Tensors")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")  # (PyTorch's)
    ts = list(tensors)  # (a copy: autograd saves it, the caller may append to theirs)
    legacy = False
    for i, t in enumerate(ts):
        if not isinstance(t, Tensor):
            _need_tensor("cat", "tensors", t)
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


def _check_index(name: str, index: Tensor, self: Tensor, dim: int) -> int:
    _need_tensor(name, "index", index)
    # (PyTorch takes an empty index of any dtype: it indexes nothing)
    if index._dtype not in (dt.int64, dt.int32) and index.numel():
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    d = _wrap_dim(dim, self.ndim)
    if index.ndim != self.ndim and not (index.ndim <= 1 and self.ndim <= 1) and index.numel():
        raise RuntimeError(
            f"Index tensor must have the same number of dimensions as input tensor ({name})"
        )
    return d


def _integral_index(index: Tensor) -> Tensor:
    """An empty index of another dtype as int64 (what the kernels index with)."""
    return index if index._dtype in (dt.int64, dt.int32) else index.to(dt.int64)


def meta_gather(self: Tensor, dim: int, index: Tensor) -> Any:
    d = _check_index("gather", index, self, dim)
    index = _integral_index(index)
    return (self, d, index), (index._shape, self._dtype)


def meta_scatter(self: Tensor, dim: int, index: Tensor, src: Any, reduce: str | None = None) -> Any:
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    d = _check_index("scatter", index, self, dim)
    index = _integral_index(index)
    if isinstance(src, Tensor) and src._dtype is not self._dtype:
        raise RuntimeError(
            f"scatter(): Expected self.dtype to be equal to src.dtype ({torch_name(self._dtype)} "
            f"vs {torch_name(src._dtype)})"
        )
    if reduce is not None and isinstance(src, Tensor):
        warn_caller(
            "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
            "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
            "reduction options.",
        )
    return (self, d, index, src, reduce), (self._shape, self._dtype)


def meta_scatter_add(self: Tensor, dim: int, index: Tensor, src: Any) -> Any:
    args, outputs = meta_scatter(self, dim, index, src)
    return args[:4], outputs


_SCATTER_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def meta_scatter_reduce(
    self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, include_self: bool = True
) -> Any:
    # PyTorch also takes "max" and "min" (the legacy names of amax and amin).
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if reduce not in _SCATTER_REDUCTIONS:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    d = _check_index("scatter_reduce", index, self, dim)
    index = _integral_index(index)
    _need_tensor("scatter_reduce", "src", src)
    if src._dtype is not self._dtype:
        raise RuntimeError(
            f"scatter_reduce(): Expected self.dtype to be equal to src.dtype "
            f"({torch_name(self._dtype)} vs {torch_name(src._dtype)})"
        )
    return (self, d, index, src, reduce, include_self), (self._shape, self._dtype)


def meta_index_select(self: Tensor, dim: int, index: Tensor) -> Any:
    _need_tensor("index_select", "index", index)
    if index._dtype not in (dt.int64, dt.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    d = _wrap_dim(dim, self.ndim)
    shape = list(self._shape)
    if shape:
        shape[d] = index.numel()
    return (self, d, index), (tuple(shape), self._dtype)


def meta_masked_fill(self: Tensor, mask: Tensor, value: Any) -> Any:
    _need_tensor("masked_fill", "mask", mask)
    if mask._dtype is not dt.bool_:
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{cpp_name(mask._dtype)}"
        )
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value.ndim} dimension(s)."
        )
    if (
        isinstance(value, Tensor)
        and value._dtype is not self._dtype
        and dt.promote_types(value._dtype, self._dtype) is not self._dtype
        and value._device.type != "meta"
    ):
        # A 0-d value that self's dtype may not hold is read as the number it is and checked
        # as a number would be (PyTorch converts it with the same overflow check).
        dt.check_scalar(value.item(), self._dtype)
    shape = broadcast(self._shape, mask._shape)
    return (self, mask, value), (shape, self._dtype)


def meta_index_put(self: Tensor, indices: Any, values: Any, accumulate: bool = False) -> Any:
    if isinstance(values, Tensor) and values._dtype is not self._dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{torch_name(self._dtype)} for the destination and {torch_name(values._dtype)} "
            "for the source."
        )
    return (self, tuple(indices), values, accumulate), (self._shape, self._dtype)


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


# ---------------------------------------------------------------- argument rewrites (``convert=``)
def einsum_sublists(equation: Any, operands: Any) -> tuple[Any, Any]:
    """``einsum``'s sublist form, ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` (each operand
    followed by its subscripts as ints in ``[0, 52)`` or ``...``, then optionally the
    output's), as the equation form ``("ab,bc->ac", (a, b))``; the equation form unchanged."""
    if equation.__class__ is str or not isinstance(equation, Tensor):
        return equation, operands
    args = (equation, *operands)
    pairs = args[: len(args) - len(args) % 2]
    out = args[-1] if len(args) % 2 else None

    def letters(sub: Any) -> str:
        if not isinstance(sub, (list, tuple)):
            raise TypeError(
                f"einsum(): expected a list of subscripts after each operand, got "
                f"{type(sub).__name__}"
            )
        s = ""
        for v in sub:
            if v is Ellipsis:
                s += "..."
            elif isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 52:
                s += chr(ord("a") + v) if v < 26 else chr(ord("A") + v - 26)
            else:
                raise RuntimeError(
                    "einsum(): subscript in subscript list is not within the valid range [0, 52)"
                )
        return s

    eq = ",".join(letters(s) for s in pairs[1::2])
    if out is not None:
        eq += "->" + letters(out)
    return eq, tuple(pairs[0::2])


# ---------------------------------------------------------------- argument checks (``check=``)
def check_gelu_approximate(*args: Any) -> None:
    """``gelu``'s and ``gelu_backward``'s ``approximate`` (their last argument): ``'none'`` or
    ``'tanh'`` (PyTorch's error)."""
    if args[-1] not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


def check_rounding_mode(self: Any, other: Any, rounding_mode: Any = None) -> None:
    """``div``'s ``rounding_mode``: None, ``'trunc'`` or ``'floor'`` (PyTorch's error); a
    rounded quotient is not defined for bool and complex operands (PyTorch's dispatcher
    error)."""
    if rounding_mode is None:
        return
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    d = dt.result_type(self, other)
    if d is dt.bool_ or d.is_complex:
        raise NotImplementedError(f"\"div_{rounding_mode}\" not implemented for '{torch_name(d)}'")


def check_sub_bool(self: Any, other: Any, alpha: Any = 1) -> None:
    """``sub`` refuses a bool operand meeting a number, a bool tensor or a Python bool
    (PyTorch's error): promotion would otherwise subtract silently (``mask - 1``). Two bools
    promote to bool, which ``sub``'s declared dtypes refuse."""
    a = self.__class__ is bool or (isinstance(self, Tensor) and self._dtype is dt.bool_)
    b = other.__class__ is bool or (isinstance(other, Tensor) and other._dtype is dt.bool_)
    if a != b:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


def check_clamp_bool(self: Any, min: Any = None, max: Any = None) -> None:
    """``clamp`` computes in bool only as ``maximum`` or ``minimum`` do: with one bound, a
    bool tensor (PyTorch's kernels); both bounds, or a Python bool, are refused as PyTorch
    refuses them. A bound of another dtype promotes, and is not this check's."""
    if not (isinstance(self, Tensor) and self._dtype is dt.bool_):
        return
    bounds = [b for b in (min, max) if b is not None]
    if any(not (isinstance(b, bool) or (isinstance(b, Tensor) and b._dtype is dt.bool_))
           for b in bounds):  # fmt: skip
        return  # (it promotes: not a bool computation)
    if len(bounds) != 1 or not isinstance(bounds[0], Tensor):
        raise NotImplementedError("\"clamp\" not implemented for 'Bool'")


def check_round_decimals(self: Any, decimals: int = 0) -> None:
    """``round`` to ``decimals`` places scales by a power of ten, which PyTorch's kernels do
    in floating point only: integral and bool tensors are refused (without ``decimals``
    they are returned unchanged)."""
    if (
        decimals != 0
        and isinstance(self, Tensor)
        and not (self._dtype.is_floating_point or self._dtype.is_complex)
    ):
        raise NotImplementedError(
            f"\"round_{self._device.type}\" not implemented for '{torch_name(self._dtype)}' "
            f"(decimals={decimals})"
        )


def refuses_16bit_floats(
    kernel: str, *, device_suffix: bool = True, error: str = "", first: bool = False
) -> Callable[..., None]:
    """An operator's ``check``: PyTorch's ``NotImplementedError`` where the operands
    would compute in float16 or bfloat16, for the operators whose PyTorch kernels have no
    such loops (``"zeta_cpu" not implemented for 'Half'``; ``"cdist"`` without the device
    when not ``device_suffix``), which the dtype categories of a declaration cannot say; or
    the ``RuntimeError`` of wording ``error`` where PyTorch checks the dtype itself. The
    dtype is the promoted one of the tensors and numbers among the arguments (the first
    tensor's when ``first``)."""

    def check(*args: Any) -> None:
        if first:
            d = next(a for a in args if isinstance(a, Tensor))._dtype
        else:
            d = dt.result_type(*(a for a in args if isinstance(a, (Tensor, int, float, complex))))
        if d is dt.float16 or d is dt.bfloat16:
            if error:
                raise RuntimeError(error.format(dtype=torch_name(d)))
            where = next(a._device.type for a in args if isinstance(a, Tensor))
            name = f"{kernel}_{where}" if device_suffix else kernel
            raise NotImplementedError(f"\"{name}\" not implemented for '{torch_name(d)}'")

    check.refuses_16bit_floats = True  # type: ignore[attr-defined]  # (read by the dtype tests)
    return check


def refuses_category(kinds: str, error: str, param: int = 0) -> Callable[..., None]:
    """An operator's ``check``: PyTorch's ``RuntimeError`` of wording ``error`` where the
    tensor at position ``param`` has a dtype of the categories ``kinds`` (letters of
    ``'bifc'``), for a refusal PyTorch's operator makes itself, apart from the dtype it
    computes in (``mvlgamma`` of bools, ``normal``'s complex ``std``)."""
    cats = frozenset("bifc".index(k) for k in kinds)

    def check(*args: Any) -> None:
        a = args[param] if param < len(args) else None
        if isinstance(a, Tensor) and a._dtype._category in cats:
            raise RuntimeError(error)

    return check


#: PyTorch's names of the device types, as its messages print them (``DeviceType``).
_DEVICE_TYPE_NAMES = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta"}


def refuses_complex_on_device(name: str) -> Callable[..., None]:
    """An operator's ``check``: PyTorch's ``RuntimeError`` for a complex ``self``, worded with
    the tensor's device type as PyTorch words it for its CPU kernel (``nansum on CPU does not
    support complex inputs``); the refusal comes before the dtype the call computes in, so an
    explicit ``dtype=`` does not lift it."""

    def check(self: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(self, Tensor) and self._dtype.is_complex:
            t = self._device.type
            where = _DEVICE_TYPE_NAMES.get(t, t.upper())
            raise RuntimeError(f"{name} on {where} does not support complex inputs")

    return check


def refuses_bool_scan(kernel: str) -> Callable[..., None]:
    """``cumsum``/``cumprod``'s ``check``: PyTorch's scan kernels have no bool loop, so a
    ``dtype=bool`` is refused (``"cumsum_out_cpu" not implemented for 'Bool'``)."""

    def check(self: Tensor, dim: int, dtype: dt.dtype | None = None) -> None:
        if dtype is dt.bool_:
            where = self._device.type
            raise NotImplementedError(f"\"{kernel}_out_{where}\" not implemented for 'Bool'")

    return check


def check_normal(mean: Any, std: Any, *rest: Any) -> None:
    """``normal``'s ``check``: ``std`` is real and not negative, a number or every element of
    a tensor (read only where the device holds data: a meta tensor has none to check)."""
    if isinstance(std, Tensor):
        if std._dtype.is_complex:
            raise RuntimeError("normal expects standard deviation to be non-complex")
        if (
            std.numel()
            and _registry.interface(std._device).holds_data
            and not bool((std >= 0).all())
        ):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif isinstance(std, (int, float)) and not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def check_bernoulli(self: Tensor, p: float | None = None, generator: Any = None) -> None:
    """``bernoulli``'s ``check``: the probabilities ``self`` holds must be floating (a
    ``p`` draws into any real dtype)."""
    if p is None and self._dtype._category < dt.FLOATING:
        raise NotImplementedError(
            f'"bernoulli_tensor_{self._device.type}_p_" not implemented for '
            f"'{torch_name(self._dtype)}'"
        )


def check_uniform(self: Tensor, from_: float = 0.0, to: float = 1.0, generator: Any = None) -> None:
    """``uniform_``'s ``check``, PyTorch's: each bound lies within the finite range of the
    (real) dtype drawn in (so no infinity or NaN), ``from <= to``, and ``to - from`` is
    finite in that dtype.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.empty(2, dtype=tc.float16).uniform_(0.0, 7e4)
    Traceback (most recent call last):
    ...
    RuntimeError: uniform_(): to is out of bounds for c10::Half
    """
    real = self._dtype.to_real()
    top = dt._FLOAT_MAX.get(real)
    if top is None:
        return  # (the declared dtypes refuse the others)
    for name, v in (("from", from_), ("to", to)):
        if not -top <= v <= top:
            raise RuntimeError(f"{name} is out of bounds for {cpp_name(real)}")
    if from_ > to:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={from_:g} > to={to:g}"
        )
    if to - from_ > top:
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{torch_name(real)}>::max(), but "
            f"found to={to:g} and from={from_:g} which result in to-from to exceed the limit"
        )


def check_bernoulli_p(self: Tensor, p: Any = 0.5, generator: Any = None) -> Any:
    """``bernoulli_``'s ``check``: ``p`` is a probability, or a floating tensor of them that
    broadcasts to ``self`` (PyTorch's two overloads), each in [0, 1]."""
    if isinstance(p, Tensor):
        if p._dtype._category < dt.FLOATING:
            raise NotImplementedError(
                f'"bernoulli_tensor_{self._device.type}_p_" not implemented for '
                f"'{torch_name(p._dtype)}'"
            )
        p.expand(self._shape)  # (PyTorch's error for a p of another shape)
        # (the values only where the device holds data: a meta tensor's have none to check)
        # (two reductions: a NaN makes both fail, as PyTorch refuses it)
        if (
            p.numel()
            and _registry.interface(p._device).holds_data
            and not (p.amin().item() >= 0 and p.amax().item() <= 1)
        ):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        return
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        p = v_float("bernoulli_", "p", p)  # (a NumPy number passes; anything else raises)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")


def check_one_hot(self: Tensor, num_classes: int = -1) -> None:
    """``one_hot``'s ``check``, PyTorch's: int64 indices, at least one of them to infer
    ``num_classes`` from (-1), and each in ``[0, num_classes)`` (the values only where the
    device holds data: a meta tensor's have none to check).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.one_hot(tc.tensor([0, 3]), 3)
    Traceback (most recent call last):
    ...
    RuntimeError: one_hot(): Class values must be smaller than num_classes.
    """
    if self._dtype is not dt.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if not self.numel():
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return
    if not _registry.interface(self._device).holds_data:
        return
    lo, hi = index_range(self)
    if lo < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes != -1 and hi >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")


def check_scatter_reduce(
    self: Tensor, dim: int, index: Any, src: Any, reduce: str, include_self: bool = True
) -> None:
    """``scatter_reduce``'s ``check`` (``index_reduce`` runs it): PyTorch's reductions have
    no bool ``'mean'`` and no complex ``'amax'``/``'amin'``."""
    d = self._dtype
    if (reduce == "mean" and d is dt.bool_) or (reduce in ("amax", "amin") and d.is_complex):
        raise NotImplementedError(
            f'"scatter_gather_tensor_{self._device.type}_reduce_{reduce}" not implemented '
            f"for '{torch_name(d)}'"
        )


def _half_refused(kernel: str, t: Tensor) -> None:
    if t._dtype is dt.float16 or t._dtype is dt.bfloat16:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{torch_name(t._dtype)}'")


def check_cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str | None = None) -> None:
    """``cdist``'s ``check``: PyTorch's direct kernel has no 16-bit float loops; its matrix
    product path (``p=2`` with ``use_mm_for_euclid_dist``, or more than 25 rows by default)
    takes them."""
    rows = max(x1._shape[-2] if x1.ndim > 1 else 1, x2._shape[-2] if x2.ndim > 1 else 1)
    mm = p == 2 and (
        compute_mode == "use_mm_for_euclid_dist" or (compute_mode is None and rows > 25)
    )
    if not mm:
        _half_refused("cdist", x1)


def check_histogram(
    self: Tensor, bins: Any = 100, range: Any = None, weight: Any = None, density: bool = False
) -> None:
    """``histogram``'s ``check``: PyTorch finds the default range of 16-bit floats with a
    kernel that has no such loops (given edges or a ``range`` pass)."""
    if range is None and not isinstance(bins, Tensor):
        _half_refused("histogramdd", self)


# (their 16-bit refusals depend on the arguments: read by the dtype tests)
check_cdist.refuses_16bit_floats = True  # type: ignore[attr-defined]
check_histogram.refuses_16bit_floats = True  # type: ignore[attr-defined]


def check_index_reduce(
    self: Tensor, dim: int, index: Any, source: Any, reduce: str, include_self: bool = True
) -> None:
    """``index_reduce``'s ``check``: PyTorch's kernel without ``self``'s values has no bool
    or complex loops."""
    if not include_self and (self._dtype is dt.bool_ or self._dtype.is_complex):
        raise NotImplementedError(
            '"index_reduce_func_exclude_input_init" not implemented for '
            f"'{torch_name(self._dtype)}'"
        )


def check_pow(self: Any, exponent: Any) -> None:
    """``pow``'s ``check``: a negative Python integer exponent of integers is refused before
    it is converted (an unsigned dtype would wrap it), as PyTorch's."""
    if (
        exponent.__class__ is int
        and exponent < 0
        and isinstance(self, Tensor)
        and self._dtype._category == dt.INTEGRAL
    ):
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def check_random_range(self: Any, low: Any = None, high: Any = None, generator: Any = None) -> None:
    """``random_``'s ``check`` (PyTorch's errors): ``from < to``, both in the dtype's range
    (bool ``[0, 1]``, an integer dtype's limits, ``int64``'s for floating dtypes); checked
    before any backend runs, so that one without data (meta) refuses what the others do.
    ``random_()`` without bounds draws in a range the kernel derives from the dtype."""
    if not isinstance(self, Tensor) or low is None:
        return
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    if self._dtype is dt.bool_:
        lo, hi = 0, 1
    elif self._dtype._category == dt.INTEGRAL:
        lo, hi = dt.int_range(self._dtype)
    else:
        lo, hi = -(2**63), 2**63 - 1
    if low < lo or high - 1 > hi:
        raise RuntimeError(
            f"random_ expects 'from' and 'to' - 1 to be in the range of the dtype "
            f"[{lo}, {hi}], but got from={low} and to={high}"
        )


def check_polygamma_order(n: int, self: Any) -> None:
    """``polygamma``'s order: ``n >= 0`` (PyTorch's error)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


def space_bounds(name: str) -> Callable[..., tuple[Any, ...]]:
    """The argument rewrite of ``linspace``'s and ``logspace``'s tensor overloads: ``start``
    and ``end`` may be 0-d tensors (their values are the bounds); PyTorch refuses tensors of
    other ranks."""

    def convert(start: Any, end: Any, *rest: Any) -> tuple[Any, ...]:
        if isinstance(start, Tensor) or isinstance(end, Tensor):
            ranks = [x.ndim if isinstance(x, Tensor) else 0 for x in (start, end)]
            if ranks != [0, 0]:
                raise RuntimeError(
                    f"{name} only supports 0-dimensional start and end tensors, but got start "
                    f"with {ranks[0]} dimension(s) and end with {ranks[1]} dimension(s)."
                )
            start, end = (x.item() if isinstance(x, Tensor) else x for x in (start, end))
        return (start, end, *rest)

    return convert


def narrow_tensor_start(self: Any, dim: Any, start: Any, length: Any) -> tuple[Any, ...]:
    """``narrow``'s tensor overload: ``start`` may be a 0-d integer tensor."""
    if isinstance(start, Tensor):
        if start.ndim != 0 or start._dtype._category != dt.INTEGRAL:
            raise RuntimeError("narrow(): start must be an 0-dim integral Tensor.")
        start = start.item()
    return self, dim, start, length
