"""View operators on strided tensors: pure arithmetic on sizes, strides and storage offset.

Computed once, here, for every strided backend: a backend only materialises
``(storage, sizes, strides, offset)`` (``DeviceInterface.materialize``), so every device gets
the same views, with the strides and offsets PyTorch gives. Registered as the kernels of the
view operators for layout ``strided`` on any device (this module is an internal plugin).
"""

from __future__ import annotations

import builtins
import math
import operator
from typing import Any

from .._tensor import _CONTIG, Tensor, _wrap_dim, contiguous_strides, torch_name
from ..autograd import grad_mode as _grad_mode
from ..dtypes import FLOATING as _FLOATING
from ..layouts import contiguous_format
from ..plugins import hookimpl
from . import _make_view
from ._make_view import make_view
from ._validate import INT64_MAX as _INT64_MAX
from ._validate import check_shape
from .meta_functions import split_sizes

__all__ = ["infer_size", "make_view", "view_strides", "views_row_major"]


def release_temporary_view(t: Tensor, inputs: tuple[Any, ...]) -> None:
    """Make ``t``, a composite's result, a tensor of its own when it is a view of a tensor
    the composite made itself rather than of one of ``inputs`` (``stack`` is a ``cat``
    viewed in a new shape, a copying ``reshape`` a view of the copy).

    The caller never held that temporary, so to it the result is new, as PyTorch's are: not
    a view (``_base`` None), so ``detach_()`` and in-place calls treat it as any new tensor.
    A view without history of a temporary that requires grad stays one: its gradient
    reaches the graph only through its base.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.ops.views import release_temporary_view
    >>> x = tc.arange(4.0)
    >>> v = (x * 2).view(2, 2)
    >>> release_temporary_view(v, (x,))
    >>> v._base is None
    True
    >>> w = x.view(2, 2)
    >>> release_temporary_view(w, (x,))
    >>> w._base is x
    True
    """
    base = t._base
    if base is None or (t._grad_fn is None and base._requires_grad):
        return
    for a in inputs:
        for x in a if isinstance(a, (list, tuple)) else (a,):
            if isinstance(x, Tensor) and (x is base or x._base is base):
                return
    t._base = None
    t._view_meta = None


_py_slice = builtins.slice  # (this module's ``slice`` is the view operator)


# (size with a -1, numel) -> the size inferred (``x.view(-1)``, ``x.view(n, -1)`` repeat)
_INFERRED: dict[tuple[tuple[int, ...], int], tuple[int, ...]] = {}


def infer_size(size: tuple[int, ...], numel: int) -> tuple[int, ...]:
    """Replace one ``-1`` in ``size`` so the product is ``numel``; raise if impossible."""
    hit = _INFERRED.get((size, numel))
    if hit is not None:
        return hit
    if -1 not in size and (not size or min(size) >= 0):  # (min's default= is slow)
        if math.prod(size) != numel:
            raise RuntimeError(f"shape '{list(size)}' is invalid for input of size {numel}")
        return size
    neg = [i for i, s in enumerate(size) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for s in size:
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s}")
    known = math.prod(s for s in size if s != -1)
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(size)}' is invalid for input of size {numel}")
        inferred = size[: neg[0]] + (numel // known,) + size[neg[0] + 1 :]
        if len(_INFERRED) >= 4096:
            _INFERRED.clear()
        _INFERRED[size, numel] = inferred
        return inferred
    elif known != numel:
        raise RuntimeError(f"shape '{list(size)}' is invalid for input of size {numel}")
    return size


def view_strides(
    shape: tuple[int, ...], stride: tuple[int, ...], new: tuple[int, ...]
) -> tuple[int, ...] | None:
    """Strides for viewing (shape, stride) as ``new`` without copying, or None if impossible.

    The same algorithm as PyTorch's ``computeStride``: walk chunks of dims that are
    contiguous with each other and split them into the new sizes.
    """
    if stride == contiguous_strides(shape):
        return contiguous_strides(new)  # the common case: any shape of the same numel
    key = (shape, stride, new)
    try:
        return _SEARCHED[key]
    except KeyError:
        pass
    except TypeError:  # (a list of sizes)
        return _search_strides(shape, stride, new)
    found = _search_strides(shape, stride, new)
    if all(s.__class__ is int for s in new):  # (not 2.0, which equals and hashes as 2)
        if len(_SEARCHED) >= 4096:
            _SEARCHED.clear()
        _SEARCHED[key] = found
    return found


# (sizes, strides, new sizes) -> ``_search_strides``' answer, for the geometries other than
# row-major that were viewed before: a view of a transposed or sliced tensor in a loop (a
# chain's ``x.t().reshape(-1)``, whose definition and ``view`` kernel both ask) costs one
# lookup instead of the walk, a tenth of such a recorded ``reshape``. Safe because the
# answer depends on nothing but the three tuples; ``tests/test_views.py`` compares the two.
_SEARCHED: dict[tuple[tuple[int, ...], ...], tuple[int, ...] | None] = {}


def _search_strides(
    shape: tuple[int, ...], stride: tuple[int, ...], new: tuple[int, ...]
) -> tuple[int, ...] | None:
    """``view_strides``' walk for a geometry other than row-major."""
    if not shape:
        return (1,) * len(new)
    numel = math.prod(shape)
    if numel == 0:
        return contiguous_strides(new) if new != shape else stride
    out = [0] * len(new)
    view_d = len(new) - 1
    chunk_base_stride = stride[-1]
    tensor_numel = 1
    view_numel = 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and stride[d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new[view_d] == 1):
                out[view_d] = view_numel * chunk_base_stride
                view_numel *= new[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base_stride = stride[d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(out)


# (sizes, new sizes) -> (contiguous strides of sizes, contiguous strides of the new sizes,
# the new sizes with a -1 inferred), for the pairs ``_contiguous_view`` accepted: a repeated
# reshape (a training step's, ``x.view(-1)`` in a loop) then costs one dict lookup instead of
# a ``min``, two ``prod``s, the inference and two stride lookups, about half of
# ``x.reshape(50, 200)``'s kernel. Safe because the entry depends on nothing but the two
# shapes; ``tests/test_views.py`` compares it with the plain path.
_CONTIGUOUS_VIEWS: dict[
    tuple[tuple[int, ...], tuple[int, ...]],
    tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]],
] = {}


def _contiguous_view(self: Tensor, shape: Any) -> Tensor | None:
    """The common case of ``view``/``reshape``: a contiguous tensor and sizes (with at most
    one -1) of the same number of elements, one check and no stride search (the pair of
    shapes met before: one lookup in ``_CONTIGUOUS_VIEWS``); None for any other case."""
    if shape.__class__ is not tuple:
        return None
    old = self._shape
    hit = _CONTIGUOUS_VIEWS.get((old, shape))
    if hit is None:
        hit = _contiguous_pair(old, shape)
        if hit is None:
            return None
    stride = self._stride
    if stride is hit[0] or stride == hit[0]:
        return make_view(self, hit[2], hit[1], self._offset)
    return None


def views_row_major(self: Tensor, shape: Any) -> bool:
    """Whether ``_contiguous_view`` views ``self`` as ``shape`` from a pair of shapes it met
    before (one lookup, no arithmetic): ``reshape``'s definition, which autograd runs,
    then goes straight to ``view``."""
    if shape.__class__ is not tuple:
        return False
    hit = _CONTIGUOUS_VIEWS.get((self._shape, shape))
    return hit is not None and (self._stride is hit[0] or self._stride == hit[0])


def _contiguous_pair(
    old: tuple[int, ...], shape: tuple[int, ...]
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None:
    """``_contiguous_view``'s plain path: the contiguous strides of ``old`` and of ``shape``
    (its -1 inferred), and the inferred sizes, where ``shape`` gives ``old``'s number of
    elements (remembered), else None (the caller's plain path raises what is wrong)."""
    new = shape
    if shape and min(shape) < 0:
        if min(shape) < -1 or shape.count(-1) != 1:
            return None
        try:
            new = infer_size(shape, math.prod(old))
        except RuntimeError:
            return None
    if math.prod(new) != math.prod(old):
        return None
    pair = (contiguous_strides(old), contiguous_strides(new), new)
    if all(s.__class__ is int for s in shape):  # (not 2.0, which equals and hashes as 2)
        if len(_CONTIGUOUS_VIEWS) >= 4096:
            _CONTIGUOUS_VIEWS.clear()
        _CONTIGUOUS_VIEWS[old, shape] = pair
    return pair


def view(self: Tensor, size: tuple[int, ...]) -> Tensor:
    fast = _contiguous_view(self, size)
    if fast is not None:
        return fast
    shape = infer_size(tuple(size), self.numel())
    st = view_strides(self._shape, self._stride, shape)
    if st is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return make_view(self, shape, st, self._offset)


def as_strided(self: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"mismatch in length of strides and shape ({len(size)} vs {len(stride)})"
        )
    last = off = self._offset if storage_offset is None else storage_offset
    if off < 0:
        raise RuntimeError(f"as_strided(): Tensor: invalid storage offset {off}")
    for n, s in zip(size, stride):  # noqa: B905 - lengths checked above
        if n < 0 or s < 0:
            raise RuntimeError("as_strided: negative sizes or strides are not supported")
        if n == 0:
            last = -1
            break
        last += (n - 1) * s
    big = last > _INT64_MAX or math.prod(size) > _INT64_MAX
    if big or (last < 0 and size and max(size) > _INT64_MAX):
        raise RuntimeError(
            f"as_strided(): sizes {list(size)}, strides {list(stride)} and storage offset "
            f"{off} address elements beyond what int64 can count"
        )
    if last >= 0:
        storage = self._storage
        if storage is not None and (last + 1) * self._dtype.itemsize > storage.nbytes:
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {off} "
                f"require a storage of {(last + 1) * self._dtype.itemsize} bytes, but it has "
                f"{storage.nbytes}"
            )
    return make_view(self, size, stride, off)


_make_view.core_as_strided = as_strided  # (basic indexing's check: ``_make_view``)


# (sizes, strides, expanded sizes) -> (sizes, strides) of the view, for the geometries
# ``expand`` accepted: a broadcast repeated in a loop costs one lookup instead of the walk
# (a third of a small ``x.expand(...)``). Safe because the entry depends on nothing else;
# ``tests/test_views.py`` compares it with the walk.
_EXPANDED: dict[tuple[Any, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}


def expand(self: Tensor, size: tuple[int, ...]) -> Tensor:
    key = (self._shape, self._stride, size)
    try:
        hit = _EXPANDED.get(key)
    except TypeError:  # (an unhashable size: the walk says what is wrong)
        hit = None
    if hit is not None:
        return make_view(self, hit[0], hit[1], self._offset)
    size = tuple(size)
    if len(size) < self.ndim:
        raise RuntimeError(
            f"expand: the number of sizes provided ({len(size)}) must be greater or equal to "
            f"the number of dimensions in the tensor ({self.ndim})"
        )
    lead = len(size) - self.ndim
    shape, stride = [], []
    for i, target in enumerate(size):
        if i < lead:
            if target < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            shape.append(target)
            stride.append(0)
            continue
        cur, st = self._shape[i - lead], self._stride[i - lead]
        if target == -1:
            target = cur
        elif target < 0:
            raise RuntimeError(
                f"expand(): the expanded size of the tensor ({target}) must be non-negative, or "
                f"-1 to keep the existing size ({cur}) at dimension {i}.  Target sizes: "
                f"{list(size)}.  Tensor sizes: {list(self._shape)}"
            )
        if cur == target:
            shape.append(cur)
            stride.append(st)
        elif cur == 1:
            shape.append(target)
            stride.append(0)
        else:
            raise RuntimeError(
                f"The expanded size of the tensor ({target}) must match the existing size ({cur}) "
                f"at non-singleton dimension {i}.  Target sizes: {list(size)}.  Tensor sizes: "
                f"{list(self._shape)}"
            )
    geometry = tuple(shape), tuple(stride)
    check_shape("expand", geometry[0])
    if key[2].__class__ is tuple and all(s.__class__ is int for s in key[2]):
        if len(_EXPANDED) >= 4096:
            _EXPANDED.clear()
        _EXPANDED[key] = geometry
    return make_view(self, geometry[0], geometry[1], self._offset)


def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    shape, stride = self._shape, self._stride
    n = len(shape)
    a = dim0 if 0 <= dim0 < n else _wrap_dim(dim0, n)
    b = dim1 if 0 <= dim1 < n else _wrap_dim(dim1, n)
    if a == b:
        return make_view(self, shape, stride, self._offset)
    if n == 2:  # a matrix (``x.mT``, ``x.transpose(0, 1)``): no list round trip
        return make_view(self, (shape[1], shape[0]), (stride[1], stride[0]), self._offset)
    sh, st = list(shape), list(stride)
    sh[a], sh[b] = sh[b], sh[a]
    st[a], st[b] = st[b], st[a]
    return make_view(self, tuple(sh), tuple(st), self._offset)


# Valid permutations met so far: dims as the caller wrote them -> (number of dims, getter).
# ``itemgetter`` builds the permuted shape and strides in C; validation runs once per dims.
_PERMUTATIONS: dict[tuple[int, ...], tuple[int, Any]] = {}


def permute(self: Tensor, dims: tuple[int, ...]) -> Tensor:
    shape, stride = self._shape, self._stride
    n = len(shape)
    hit = _PERMUTATIONS.get(dims) if dims.__class__ is tuple else None
    if hit is not None and hit[0] == n:
        get = hit[1]
        return make_view(self, get(shape), get(stride), self._offset)
    if len(dims) != n:
        raise RuntimeError(
            f"permute(): number of dimensions in the tensor input does not match the length of "
            f"the desired ordering of dimensions i.e. input.dim() = {n} is not equal to "
            f"len(dims) = {len(dims)}"
        )
    w = [d if 0 <= d < n else _wrap_dim(d, n) for d in dims]
    if len(set(w)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    if n < 2:  # (itemgetter of one item returns the item, not a tuple)
        return make_view(self, shape, stride, self._offset)
    get = operator.itemgetter(*w)
    if len(_PERMUTATIONS) < 1024:
        _PERMUTATIONS[tuple(dims)] = (n, get)
    return make_view(self, get(shape), get(stride), self._offset)


def squeeze(self: Tensor, dim: Any = None) -> Tensor:
    shape = self._shape
    n = len(shape)
    d = dim[0] if (dim.__class__ is tuple or dim.__class__ is list) and len(dim) == 1 else dim
    if d.__class__ is int and 0 <= d < n:
        # One dim given as a valid index (``x.squeeze(0)``, which the API passes as
        # ``(0,)``): no index lists, the same view as the plain path's
        # (``tests/test_views.py`` compares the two).
        if shape[d] != 1:
            return make_view(self, shape, self._stride, self._offset)
        new = shape[:d] + shape[d + 1 :]
        if self._stride is _CONTIG.get(shape):
            return make_view(self, new, contiguous_strides(new), self._offset)
        return make_view(self, new, self._stride[:d] + self._stride[d + 1 :], self._offset)
    return _squeeze_dims(self, dim)


def _squeeze_dims(self: Tensor, dim: Any) -> Tensor:
    """``squeeze``'s plain path: any ``dim`` (None, negative, a list)."""
    n = self.ndim
    if dim is None:
        keep = [i for i in range(n) if self._shape[i] != 1]
    elif isinstance(dim, int):
        dims = {_wrap_dim(dim, n)}
    else:
        dims = set()
        for d in dim:
            w = _wrap_dim(d, n)
            if w in dims:
                raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
            dims.add(w)
    if dim is not None:
        keep = [i for i in range(n) if not (i in dims and self._shape[i] == 1)]
    shape = tuple(self._shape[i] for i in keep)
    if self._stride is _CONTIG.get(self._shape):
        # A row-major tensor's squeeze is row-major: the shared strides of its shape, by
        # whose identity the lanes know a contiguous operand (as ``unsqueeze``'s).
        return make_view(self, shape, contiguous_strides(shape), self._offset)
    return make_view(self, shape, tuple(self._stride[i] for i in keep), self._offset)


def unsqueeze(self: Tensor, dim: int) -> Tensor:
    d = _wrap_dim(dim, self.ndim + 1)
    st = self._stride[d] * self._shape[d] if d < self.ndim else 1
    shape = self._shape[:d] + (1,) + self._shape[d:]
    if self._stride is _CONTIG.get(self._shape):
        # A row-major tensor's unsqueeze is row-major (but where the new dim's stride is
        # another, past a dim of size 0): it takes the shared strides of its shape, by whose
        # identity the lanes and frontends know a contiguous operand, so that an operation
        # on ``x.unsqueeze(0)`` takes its lane rather than the call path.
        c = _CONTIG.get(shape) or contiguous_strides(shape)
        if c[d] == st:
            return make_view(self, shape, c, self._offset)
    return make_view(self, shape, self._stride[:d] + (st,) + self._stride[d:], self._offset)


def narrow(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    if self.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, self.ndim)
    size = self._shape[d]
    # PyTorch's checks, in its order and with its exception types: a start outside the dim is
    # an IndexError, a length that does not fit a RuntimeError.
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    shape = self._shape[:d] + (length,) + self._shape[d + 1 :]
    return make_view(self, shape, self._stride, self._offset + start * self._stride[d])


def select(self: Tensor, dim: int, index: int) -> Tensor:
    if self.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, self.ndim)
    size = self._shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(self._shape)} at "
            f"dimension {d}"
        )
    if index < 0:
        index += size
    return make_view(
        self,
        self._shape[:d] + self._shape[d + 1 :],
        self._stride[:d] + self._stride[d + 1 :],
        self._offset + index * self._stride[d],
    )


def slice(
    self: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1
) -> Tensor:
    d = _wrap_dim(dim, len(self._shape))
    if step <= 0:
        raise ValueError("step must be greater than zero")
    size = self._shape[d]
    b, e, _ = _slice_indices(start, end, step, size)
    n = max(0, (e - b + step - 1) // step)
    shape = self._shape[:d] + (n,) + self._shape[d + 1 :]
    stride = self._stride[:d] + (self._stride[d] * step,) + self._stride[d + 1 :]
    return make_view(self, shape, stride, self._offset + b * self._stride[d])  # (also empty)


def _slice_indices(
    start: int | None, end: int | None, step: int, size: int
) -> tuple[int, int, int]:
    return _py_slice(start, end, step).indices(size)


def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    n = self.ndim
    a, b = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    off = self._offset
    if offset >= 0:
        length = max(min(self._shape[a], self._shape[b] - offset), 0)
        if length:
            off += offset * self._stride[b]
    else:
        length = max(min(self._shape[a] + offset, self._shape[b]), 0)
        if length:
            off -= offset * self._stride[a]
    keep = [i for i in range(n) if i not in (a, b)]
    shape = tuple(self._shape[i] for i in keep) + (length,)
    stride = tuple(self._stride[i] for i in keep) + (self._stride[a] + self._stride[b],)
    return make_view(self, shape, stride, off)


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    d = _wrap_dim(dimension, self.ndim)
    cur = self._shape[d] if self.ndim else 1
    if size < 0:
        raise RuntimeError(f"unfold(): size is {size} but must be >= 0")
    if size > cur:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {cur} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if self.ndim == 0:
        return make_view(self, (size,), (1,), self._offset)
    n = (cur - size) // step + 1
    shape = self._shape[:d] + (n,) + self._shape[d + 1 :] + (size,)
    stride = (
        self._stride[:d] + (self._stride[d] * step,) + self._stride[d + 1 :] + (self._stride[d],)
    )
    return make_view(self, shape, stride, self._offset)


def _part(self: Tensor, part: int) -> Tensor:
    """The real (0) or imaginary (1) parts of a complex tensor: a view in the real dtype, whose
    strides and offset count real numbers (two per complex element)."""
    t = make_view(self, self._shape, tuple(2 * s for s in self._stride), 2 * self._offset + part)
    t._dtype = self._dtype.to_real()
    return t


def real(self: Tensor) -> Tensor:
    if not self._dtype.is_complex:
        return self  # (the tensor itself, as PyTorch's ``x.real is x``)
    return _part(self, 0)


def imag(self: Tensor) -> Tensor:
    if not self._dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _part(self, 1)


def _reinterpret(self: Tensor, shape: Any, stride: Any, offset: int, dtype: Any) -> Tensor:
    """A view of ``self``'s storage in another dtype (strides and offset in its units)."""
    t = make_view(self, tuple(shape), tuple(stride), offset)
    t._dtype = dtype
    if dtype._category < _FLOATING:
        t._requires_grad = False  # (an integer view is no view for autograd, as in PyTorch)
    return t


def view_as_real(self: Tensor) -> Tensor:
    if not self._dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    stride = (*(2 * s for s in self._stride), 1)
    return _reinterpret(self, (*self._shape, 2), stride, 2 * self._offset, self._dtype.to_real())


def view_as_complex(self: Tensor) -> Tensor:
    if not self._dtype.is_floating_point:
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a "
            f"tensor of scalar type: {torch_name(self._dtype)}"
        )
    if self._dtype.itemsize < 4:
        # PyTorch views half as complex32 (and refuses bfloat16); tensorcore has no complex32,
        # and complex64 would pair the wrong bytes.
        raise RuntimeError(
            "view_as_complex is only supported for float and double tensors here (complex32, "
            f"the view of half, is not a tensorcore dtype), but got a tensor of scalar type: "
            f"{torch_name(self._dtype)}"
        )
    if self.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if self._shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if self._stride[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in self._stride[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if self._offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    stride = tuple(s // 2 for s in self._stride[:-1])
    return _reinterpret(self, self._shape[:-1], stride, self._offset // 2, self._dtype.to_complex())


def alias(self: Tensor) -> Tensor:
    return make_view(self, self._shape, self._stride, self._offset)


def t(self: Tensor) -> Tensor:
    """Fused strided kernel of the composite ``t`` (used when no gradient is recorded)."""
    if self.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return make_view(self, self._shape[::-1], self._stride[::-1], self._offset)


def reshape(self: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Fused strided kernel of the composite ``reshape``: one size/stride computation."""
    fast = _contiguous_view(self, shape)
    if fast is not None:
        return fast
    old = self._shape
    new = infer_size(tuple(shape), math.prod(old))
    found = view_strides(old, self._stride, new)
    if found is not None:
        return make_view(self, new, found, self._offset)
    out = self.clone(memory_format=contiguous_format).view(new)
    release_temporary_view(out, ())
    return out


def unbind(self: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """Fused strided kernel of the composite ``unbind``: every slice's view made here, where
    the composite dispatches ``select`` once per slice (a tenth of the time each). Each is
    marked as the output of a function of several views, as the composite marks it."""
    d = _wrap_dim(dim, self.ndim)
    n = self._shape[d]
    shape = self._shape[:d] + self._shape[d + 1 :]
    stride = self._stride[:d] + self._stride[d + 1 :]
    step, at = self._stride[d], self._offset
    mark, multi = _grad_mode.mark_view, _grad_mode.MULTI_OUTPUT_NODE
    views = []
    for i in range(n):
        v = make_view(self, shape, stride, at + i * step)
        mark(v, multi)
        views.append(v)
    return tuple(views)


def split(self: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Fused strided kernel of the composite ``split``: every piece's view made here, where
    the composite dispatches ``narrow`` once per piece, each marked as an output of a
    function of several views (as ``unbind``'s)."""
    d = _wrap_dim(dim, self.ndim)
    shape, stride = self._shape, self._stride
    sizes, _ = split_sizes(shape[d], split_size_or_sections, d)
    mark, multi = _grad_mode.mark_view, _grad_mode.MULTI_OUTPUT_NODE
    head, tail, step, at = shape[:d], shape[d + 1 :], stride[d], self._offset
    views = []
    for s in sizes:
        v = make_view(self, (*head, s, *tail), stride, at)
        mark(v, multi)
        views.append(v)
        at += s * step
    return tuple(views)


# Composites whose strided kernel here avoids a second dispatch. With a gradient to record,
# ``t`` is recorded as one node and ``unbind`` and ``split`` as one node of several outputs
# (their rules in ops/derivatives/shape.py, as PyTorch's ``TBackward0``, ``UnbindBackward0``);
# autograd runs ``reshape``'s definition instead (ops/composite.py).
_FUSED_COMPOSITES = {"t": t, "reshape": reshape, "unbind": unbind, "split": split}

_VIEW_KERNELS = {
    f.__name__: f
    for f in (
        view,
        as_strided,
        expand,
        transpose,
        permute,
        squeeze,
        unsqueeze,
        narrow,
        select,
        slice,
        diagonal,
        unfold,
        alias,
        real,
        imag,
        view_as_real,
        view_as_complex,
    )
}


@hookimpl
def tensorcore_register_kernels(register: Any) -> None:
    """Register the strided view arithmetic for every device."""
    for name, fn in {**_VIEW_KERNELS, **_FUSED_COMPOSITES}.items():
        register.kernel(name, "*", "strided", fn)
