"""Tensor: a logical view (sizes, strides, storage offset, dtype) over a Storage.

Only the metadata and the methods that are not operators live here; every operator method
(``add``, ``sum``, ``view``, ...) is attached from the operator table by ``ops/_api.py``.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from math import prod as _prod
from typing import TYPE_CHECKING, Any

from . import dtypes as _dt
from ._format import format_tensor
from ._memory_format import is_contiguous_in
from ._operator_methods import OperatorMethods
from ._storage import INFERENCE
from .layouts import contiguous_format, layout, memory_format, strided

_FLOATING_CATEGORY = _dt.FLOATING

_memory_format_cls = memory_format

if TYPE_CHECKING:
    from ._storage import Storage, VersionCounter
    from .devices import device
    from .dtypes import dtype

__all__ = ["Tensor", "contiguous_strides", "make_tensor", "row_major", "tensors_in"]

_CONTIG: dict[tuple[int, ...], tuple[int, ...]] = {}


def tensors_in(args: Any) -> list[Tensor]:
    """The tensors among ``args``, those in lists and tuples of them included."""
    out: list[Tensor] = []
    for a in args:
        if isinstance(a, Tensor):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(x for x in a if isinstance(x, Tensor))
    return out


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major strides (in elements) of a contiguous tensor of ``shape``."""
    hit = _CONTIG.get(shape)
    if hit is not None:
        return hit
    strides = []
    acc = 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    res = tuple(reversed(strides))
    if len(_CONTIG) < 4096:
        _CONTIG[shape] = res
    return res


def row_major(t: Tensor) -> bool:
    """Whether ``t``'s strides are row-major for its shape, asked where they are not the
    shared tuple of ``contiguous_strides`` by which the fast paths know a contiguous tensor
    (``t._stride is _CONTIG.get(t._shape)``, the test they make first). An equal tuple of its
    own -- a view's: ``x[2:4]``, the pieces of ``x.unbind(0)`` or ``x.chunk(2)`` -- is
    replaced by the shared one, so that the next test of ``t`` is the fast one; a view made
    that way otherwise sent every operator on it down the general path, at 4x the cost.
    (Sizes of 1 are not ignored, as PyTorch's ``is_contiguous`` ignores them: such a view is
    left to the general path, which lays its result out as PyTorch does.)

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore._tensor import _CONTIG, row_major
    >>> v = tc.zeros(4, 3)[1:3]
    >>> row_major(v), v._stride is _CONTIG[(2, 3)]
    (True, True)
    >>> row_major(tc.zeros(4, 3).t())
    False
    """
    c = contiguous_strides(t._shape)
    if t._stride != c:
        return False
    t._stride = c
    return True


_object_new = object.__new__  # not Tensor.__new__: that is the legacy constructor


def adopt_base_grad(t: Tensor) -> bool:
    """View ``t``, whose base requires grad while ``t._requires_grad`` is False (the base
    joined the graph after ``t`` was made: ``requires_grad_()``, an in-place call with an
    input that requires grad), requires grad from now on, as a PyTorch view does through its
    base (an integer view does not); returns whether it does. The call path asks this of a
    view argument that does not require grad (``ops/_call.py``, ``ops/_lanes.py``): the base
    cannot find its views, and a view's flag must be right before the call is recorded or
    not.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.zeros(3)
    >>> v = x[:2]
    >>> _ = x.requires_grad_()
    >>> v._requires_grad, v.requires_grad, v._requires_grad
    (False, True, True)
    """
    ag = t._base._ag  # type: ignore[union-attr]
    if t._dtype._category >= _FLOATING_CATEGORY and (ag is None or not ag.fw_only):
        t._requires_grad = True
        return True
    return False  # (an integer view; a base whose flag is set only for a forward tangent)


def make_tensor(
    storage: Storage | None,
    shape: tuple[int, ...],
    stride: tuple[int, ...],
    offset: int,
    dtype: dtype,
    device: device,
    native: Any = None,
    lay: layout = strided,
) -> Tensor:
    """Build a tensor over ``storage``; backends and the core's view code call this.

    A strided tensor: ``storage`` holds its memory, ``shape``/``stride`` (in elements) and
    ``offset`` place it there, and ``native`` is its native array when the caller has it
    (else :func:`tensorcore.backend.native` asks the device's ``materialize``). A tensor of
    a layout whose data is not one strided buffer (``sparse_coo``, a plugin's layout):
    ``storage`` None, ``stride`` ``()``, ``offset`` 0, ``native`` the layout's own record
    (whatever the layout's kernels read back with ``native``) and ``lay`` the layout.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import backend
    >>> x = tc.arange(6.0)
    >>> t = backend.make_tensor(x.untyped_storage(), (2, 2), (1, 2), 1, x.dtype, x.device)
    >>> t
    tensor([[1., 3.],
            [2., 4.]])
    """
    t = _object_new(Tensor)
    t._storage = storage
    t._shape = shape
    t._stride = stride
    t._offset = offset
    t._dtype = dtype
    t._device = device
    t._layout = lay
    t._native = native
    t._requires_grad = False
    t._grad_fn = None
    t._grad = None
    t._base = None
    t._ag = None
    t._version_counter = None
    t._view_meta = None
    return t


#: The attribute that marks an error as worded by PyTorch in full, to be raised without the
#: ``name(): `` prefix an operator's errors get (``ops._validate.keep_message`` sets it).
KEEP_MESSAGE = "_tensorcore_keep_message"


def refuse_inference_write(storage: Storage) -> None:
    """PyTorch's refusal of an in-place write to an inference tensor (one made in
    ``inference_mode``) outside that mode."""
    if storage.inference and not (INFERENCE[0] and INFERENCE[1]()):
        exc = RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
            "make a clone to get a normal tensor before doing inplace update.See "
            "https://github.com/pytorch/rfcs/pull/17 for more details."
        )
        setattr(exc, KEEP_MESSAGE, True)
        raise exc


class Tensor(OperatorMethods):
    """A multi-dimensional array on a device, with optional gradient tracking.

    Tensors are made by factories (:func:`tensorcore.tensor`, :func:`tensorcore.zeros`, ...)
    or by operators; view operators return tensors sharing the same storage.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> x.shape, x.stride(), x.dtype
    (tensorcore.Size([2, 2]), (2, 1), tensorcore.float32)
    >>> y = x.t()
    >>> y[0, 1] = 10.0
    >>> x
    tensor([[ 1.,  2.],
            [10.,  4.]])
    """

    __slots__ = (
        "__weakref__",
        "_ag",
        "_base",
        "_device",
        "_dtype",
        "_grad",
        "_grad_fn",
        "_layout",
        "_native",
        "_offset",
        "_requires_grad",
        "_shape",
        "_storage",
        "_stride",
        "_version_counter",
        "_view_meta",
    )

    _storage: Storage | None
    _shape: tuple[int, ...]
    _stride: tuple[int, ...]
    _offset: int
    _dtype: dtype
    _device: device
    _layout: layout
    _native: Any
    _requires_grad: bool
    _grad_fn: Any
    _grad: Tensor | None
    _base: Tensor | None
    _ag: Any
    # None: the storage's counter (or a storage-less layout's native record's) counts this
    # tensor's writes; a VersionCounter of its own for ``x.data`` and its views.
    _version_counter: VersionCounter | None
    # A view's creation (``autograd._view_history.ViewMeta``) where it was not the plain
    # case (made in grad mode by a view operator): None for every other tensor.
    _view_meta: Any

    if TYPE_CHECKING:
        # Operator methods are attached from the operator table at import (ops/_api.py);
        # these declarations tell the type checker they exist.
        grad: Tensor | None
        data: Tensor
        requires_grad: bool

        def __getattr__(self, name: str) -> Any: ...
        def __eq__(self, other: Any) -> Tensor: ...  # type: ignore[override]
        def __ne__(self, other: Any) -> Tensor: ...  # type: ignore[override]
        def __add__(self, other: Any) -> Tensor: ...
        def __radd__(self, other: Any) -> Tensor: ...
        def __sub__(self, other: Any) -> Tensor: ...
        def __rsub__(self, other: Any) -> Tensor: ...
        def __mul__(self, other: Any) -> Tensor: ...
        def __rmul__(self, other: Any) -> Tensor: ...
        def __truediv__(self, other: Any) -> Tensor: ...
        def __rtruediv__(self, other: Any) -> Tensor: ...
        def __pow__(self, other: Any) -> Tensor: ...
        def __rpow__(self, other: Any) -> Tensor: ...
        def __matmul__(self, other: Any) -> Tensor: ...
        def __neg__(self) -> Tensor: ...
        def __pos__(self) -> Tensor: ...
        def __invert__(self) -> Tensor: ...
        def __and__(self, other: Any) -> Tensor: ...
        def __or__(self, other: Any) -> Tensor: ...
        def __lt__(self, other: Any) -> Tensor: ...
        def __le__(self, other: Any) -> Tensor: ...
        def __gt__(self, other: Any) -> Tensor: ...
        def __ge__(self, other: Any) -> Tensor: ...
        def __getitem__(self, idx: Any) -> Tensor: ...
        def __setitem__(self, idx: Any, value: Any) -> None: ...

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # ``Tensor(...)`` is PyTorch's legacy constructor: ``__new__`` is installed by
        # tensorcore._legacy_types.install() (it needs the factories, a layer above) and builds
        # the tensor. The core never calls either: it makes tensors with object.__new__.
        pass

    # ------------------------------------------------------------ metadata
    @property
    def shape(self) -> Size:
        """The sizes of the dims, as a :class:`tensorcore.Size` (a tuple)."""
        return Size(self._shape)

    def size(self, dim: int | None = None) -> Any:
        """The shape, or the size of one dim."""
        if dim is None:
            return Size(self._shape)
        return self._shape[_method_dim("size", dim, len(self._shape))]

    def stride(self, dim: int | None = None) -> Any:
        """Strides in elements (not bytes), or the stride of one dim."""
        if dim is None:
            return self._stride
        return self._stride[_method_dim("stride", dim, len(self._shape))]

    def storage_offset(self) -> int:
        """Offset of the first element in the storage, in elements."""
        return self._offset

    @property
    def dtype(self) -> dtype:
        """The element type."""
        return self._dtype

    @property
    def device(self) -> device:
        """The device the tensor lives on."""
        return self._device

    @property
    def layout(self) -> layout:
        """The memory layout (``tensorcore.strided`` for dense tensors)."""
        return self._layout

    @property
    def is_sparse(self) -> bool:
        """True for sparse COO tensors (layout ``tensorcore.sparse_coo``), as in PyTorch:
        the compressed layouts (``sparse_csr``...) answer False here and True to their own
        ``is_sparse_csr``."""
        return self._layout.name == "sparse_coo"

    @property
    def is_sparse_csr(self) -> bool:
        """True for sparse CSR tensors (layout ``tensorcore.sparse_csr``), as in PyTorch."""
        return self._layout.name == "sparse_csr"

    @property
    def is_cuda(self) -> bool:
        """True for tensors on a CUDA device."""
        return self._device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        """True for tensors on the CPU."""
        return self._device.type == "cpu"

    def get_device(self) -> int:
        """The device index: -1 on the CPU (and on devices without an index), else the
        index (0 for ``cuda`` alone, as PyTorch resolves it).

        Examples
        --------
        >>> import tensorcore as tc
        >>> tc.ones(2).get_device()
        -1
        """
        dev = self._device
        if dev.type == "cpu":
            return -1
        return dev.index if dev.index is not None else 0 if dev.type == "cuda" else -1

    def dim(self) -> int:
        """Number of dims."""
        return len(self._shape)

    @property
    def ndim(self) -> int:
        """Number of dims."""
        return len(self._shape)

    def numel(self) -> int:
        """Number of elements."""
        return _prod(self._shape)

    def nelement(self) -> int:
        """Alias of :meth:`numel`."""
        return self.numel()

    def element_size(self) -> int:
        """Size of one element in bytes."""
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        """Size of one element in bytes."""
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes the elements take (``numel() * element_size()``)."""
        return self.numel() * self._dtype.itemsize

    def is_contiguous(self, *, memory_format: memory_format = contiguous_format) -> bool:
        """Whether the elements are laid out row-major without gaps (size-1 dims ignored), or
        in the order ``memory_format`` names (``tensorcore.channels_last``: NHWC; False for a
        tensor of another rank). False for a tensor of a layout made without strides (a
        composite such as ``contiguous`` then copies it with the layout's ``clone``).

        Examples
        --------
        >>> import tensorcore as tc
        >>> x = tc.zeros(2, 3, 4, 5)
        >>> x.is_contiguous(), x.is_contiguous(memory_format=tc.channels_last)
        (True, False)
        """
        if self._stride is _CONTIG.get(self._shape) and memory_format is contiguous_format:
            return True  # (row-major strides are the shared tuple of ``contiguous_strides``)
        if memory_format is not contiguous_format:
            if memory_format.__class__ is not _memory_format_cls:
                raise TypeError(
                    "is_contiguous(): argument 'memory_format' must be tensorcore.memory_format,"
                    f" not {type(memory_format).__name__}"
                )
            if self._layout is not strided:
                return False
            if memory_format.order is not None:
                return is_contiguous_in(memory_format, self._shape, self._stride)
        expected = 1
        try:
            for size, st in zip(reversed(self._shape), reversed(self._stride), strict=True):
                if size == 0:
                    return True
                if size != 1:
                    if st != expected:
                        return 0 in self._shape  # (an empty tensor is contiguous, as in PyTorch)
                    expected *= size
        except ValueError:
            # A tensor of a layout without strides (``()``): PyTorch's answer for a sparse
            # tensor. (Caught rather than tested first: this is a hot method, and the try
            # costs nothing.)
            return False
        return True

    def is_floating_point(self) -> bool:
        """Whether the dtype is a floating dtype."""
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        """Whether the dtype is complex."""
        return self._dtype.is_complex

    def untyped_storage(self) -> Storage:
        """The storage this tensor views."""
        if self._storage is None:
            # (PyTorch's type: "Cannot access storage of SparseTensorImpl")
            raise NotImplementedError(
                f"Cannot access storage of a tensor of layout {self._layout.name}: it has no "
                "storage (use its values(), or to_dense())"
            )
        return self._storage

    def data_ptr(self) -> int:
        """Address of the first element."""
        if self._storage is None:
            raise RuntimeError(
                "Cannot access data pointer of Tensor that doesn't have storage (layout "
                f"{self._layout.name})"
            )
        return self._storage.data_ptr() + self._offset * self._dtype.itemsize

    @property
    def _version(self) -> int:
        """The version counter; every in-place write bumps it. A strided tensor's is its
        storage's (shared by every view); a tensor of a layout without storage keeps it on
        its native record (its ``version``: the backend shares it among aliases), or has
        none (always 0). ``x.data`` and its views have a :class:`VersionCounter` of their
        own instead (``_version_counter``), as in PyTorch."""
        vc = self._version_counter
        if vc is not None:
            return vc.version
        st = self._storage
        if st is None:
            return getattr(self._native, "version", 0)
        return st.version

    def _bump_version(self) -> None:
        vc: Any = self._version_counter
        if vc is None:
            vc = self._storage
            if vc is None:
                vc = self._native
                if not hasattr(vc, "version"):
                    return
            elif vc.inference:
                # As PyTorch's, whose inference tensors have no version counter to bump
                # (raised after the write, as there).
                refuse_inference_write(vc)
        vc.version += 1

    # ------------------------------------------------------------ Python protocol
    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with more than one value is ambiguous "
                f"(shape {list(self._shape)})"
            )
        return bool(self.item())

    def __int__(self) -> int:
        return int(self._one_scalar())

    def __float__(self) -> float:
        return float(self._one_scalar())

    def __complex__(self) -> complex:
        return complex(self._one_scalar())

    def _one_scalar(self) -> Any:
        """The element of a one-element tensor, for ``int()``/``float()``/``complex()``,
        which refuse any other with PyTorch's ``ValueError``."""
        if self.numel() != 1:
            raise ValueError(
                "only one element tensors can be converted to Python scalars (got a tensor of "
                f"shape {list(self._shape)})"
            )
        return self.item()

    def __contains__(self, element: object) -> bool:
        """``element in t``: whether any element of ``t`` equals ``element`` (a number, or a
        tensor that broadcasts against ``t``), as PyTorch's."""
        if not isinstance(element, (Tensor, bool, int, float, complex)):
            raise RuntimeError(
                "Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                f"{type(element)}."
            )
        return bool((self == element).any())

    def __index__(self) -> int:
        if self._dtype.is_floating_point or self._dtype.is_complex or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return format_tensor(self)

    def __format__(self, format_spec: str) -> str:
        # PyTorch's rule: a 0-d tensor formats as its number (f"{t:+.2f}"; f"{t}" gives
        # str(t.item())); any other tensor takes only the empty spec, which gives its repr.
        if not self._shape:
            return format(self.item(), format_spec)
        if format_spec:
            raise TypeError(
                "unsupported format string passed to Tensor.__format__: only a 0-d tensor "
                f"formats as a number, this one has shape {list(self._shape)}; format "
                f"t.item() (one element) or the elements of t.tolist() with {format_spec!r}"
            )
        return format_tensor(self)

    # pickle and copy.copy go through __reduce_ex__, copy.deepcopy through __deepcopy__: set
    # by tensorcore._pickling.install() (they need the device backends, a layer above).


class Size(tuple):
    """The shape of a tensor: a tuple of ints.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.zeros(2, 3).shape
    tensorcore.Size([2, 3])
    """

    __slots__ = ()

    def numel(self) -> int:
        """Product of the sizes."""
        return _prod(self)

    def __repr__(self) -> str:
        return f"tensorcore.Size({list(self)})"

    # A slice, a concatenation or a repetition of a Size is a Size, as in PyTorch.
    def __getitem__(self, key: Any) -> Any:
        got = tuple.__getitem__(self, key)
        return Size(got) if key.__class__ is slice else got

    def __add__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(self, other))

    def __radd__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n: Any) -> Size:
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__


def is_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a tensor (``Parameter`` included).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.is_tensor(tc.ones(1)), tc.is_tensor([1.0])
    (True, False)
    """
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:
    """The number of elements of ``input``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.numel(tc.ones(2, 3))
    6
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"numel(): argument 'input' must be Tensor, not {type(input).__name__}")
    return input.numel()


def _method_dim(fn: str, dim: Any, ndim: int) -> int:
    """``dim`` of a metadata method, checked and wrapped, with errors naming ``fn``."""
    if dim.__class__ is not int:
        if isinstance(dim, bool) or not hasattr(type(dim), "__index__"):
            raise TypeError(f"{fn}(): argument 'dim' must be int, not {type(dim).__name__}")
        try:
            dim = operator.index(dim)
        except TypeError as exc:
            raise TypeError(f"{fn}(): argument 'dim': {exc}") from None
    try:
        return _wrap_dim(dim, ndim)
    except IndexError as exc:
        raise IndexError(f"{fn}(): {exc}") from None


def _wrap_dim(dim: int, ndim: int) -> int:
    n = ndim or 1  # a 0-d tensor takes dim 0 and -1 (max() would cost a call)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim + n if dim < 0 else dim


def torch_name(d: dtype) -> str:
    """PyTorch's ScalarType name of a dtype, as used in its error messages."""
    return _TORCH_NAMES[d.name]


def cpp_name(d: dtype) -> str:
    """PyTorch's C++ type name of a dtype, as some of its error messages print it."""
    return _CPP_NAMES[d.name]


_CPP_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}
_TORCH_NAMES = {
    "bool": "Bool",
    "uint8": "Byte",
    "int8": "Char",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
    "float16": "Half",
    "bfloat16": "BFloat16",
    "float32": "Float",
    "float64": "Double",
    "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
}
assert set(_TORCH_NAMES) == set(_dt.by_name)
