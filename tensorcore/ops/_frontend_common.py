"""What every frontend shares: the output's allocation (per device, and laid out like the
inputs), broadcasting, the checks of ``out=`` and in-place calls, of dtypes and of values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .. import _registry
from .. import dtypes as dt
from .._memory_format import preserve_format_strides, result_strides
from .._tensor import (
    _CONTIG,
    Size,
    Tensor,
    contiguous_strides,
    make_tensor,
    row_major,
    torch_name,
)
from ..dispatch import DirectKernel, ops
from ._out import cast_error, check_out_spec, overlap_error, reads_out, resize_out
from ._validate import v_ints
from .meta_functions import broadcast

if TYPE_CHECKING:
    from ..devices import device
    from ..dispatch import Op


_FLOATING, _INTEGRAL = dt.FLOATING, dt.INTEGRAL

# Device allocators by the device's (type, index) key: a tuple hashes in C, a device object
# through its Python __hash__ (a measurable part of a small operation).
_ALLOC: dict[Any, Callable[..., Tensor]] = {}


def empty(shape: tuple[int, ...], dtype: dt.dtype, dev: device) -> Tensor:
    """Allocate a contiguous tensor through the device's backend."""
    alloc = _ALLOC.get(dev._key)
    if alloc is None:
        alloc = _ALLOC[dev._key] = _registry.interface(dev).empty
    return alloc(shape, dtype, dev)


def forget_allocators() -> None:
    """Drop the allocators cached per device (a device interface was withdrawn), also where
    a lane keeps them (``Op.lane_keys``)."""
    _ALLOC.clear()
    for op in ops().values():
        op.lane_keys.clear()


def broadcast_shapes(*shapes: Sequence[int]) -> Size:
    """The shape the given shapes broadcast to (a ``Size``, as PyTorch's), or a
    ``RuntimeError`` naming the clash.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.broadcast_shapes((3, 1), (1, 4))
    tensorcore.Size([3, 4])
    """
    checked = tuple(_shape_arg(i, s) for i, s in enumerate(shapes))
    try:
        return Size(broadcast(*checked))
    except RuntimeError as exc:
        raise RuntimeError(f"broadcast_shapes(): {exc}") from None


def _shape_arg(i: int, s: Any) -> tuple[int, ...]:
    """One argument of :func:`broadcast_shapes`: a shape of non-negative ints (or one int)."""
    if s.__class__ is tuple and all(x.__class__ is int and x >= 0 for x in s):
        return s
    shape: tuple[int, ...] = v_ints("broadcast_shapes", f"shapes[{i}]", s)
    for x in shape:
        if x < 0:
            raise ValueError(
                "broadcast_shapes(): Attempting to broadcast a dimension with negative length! "
                f"(shapes[{i}] is {list(shape)})"
            )
    return shape


def out_sets_dtype(op: Op, args: tuple[Any, ...], out: Any) -> tuple[Any, ...]:
    """``args`` with the ``dtype`` argument set to ``out``'s dtype where the caller gave an
    ``out=`` tensor and no ``dtype``, for the operators of the ``"sum"`` promotion policy
    (sum, prod, cumsum, cumprod, nansum): as in PyTorch, they compute in the dtype of the
    tensor they write (``sum`` of floats into an int64 ``out`` sums the truncated values)."""
    if out is not None and op.decl.out_sets_dtype and isinstance(out, Tensor):
        i = op.decl.pos.dtype
        if args[i] is None:
            return args[:i] + (out._dtype,) + args[i + 1 :]
    return args


def _alloc_or_check(
    op: Op,
    out: Any,
    shape: tuple[int, ...],
    dtype: dt.dtype,
    dev: device,
    inputs: tuple[Any, ...] = (),
) -> Tensor:
    if out is None:
        return empty(shape, dtype, dev)
    if isinstance(out, Tensor) and out._shape != shape and reads_out(out, inputs):
        # Resizing would change an input under the kernel (``cat([a, a], out=a)``) or, for
        # ``add(a, b, out=a)``, silently make an in-place call broadcast into a new shape:
        # PyTorch refuses both, and so the call leaves ``out`` as it was.
        if op.decl.frontend == "pointwise":
            raise RuntimeError(
                f"output with shape {list(out._shape)} doesn't match the broadcast shape "
                f"{list(shape)} (in {op.name})"
            )
        raise overlap_error(op.name)
    check_out_spec(op.name, out, shape, dtype, exact=op.decl.out_dtype == "exact")
    return resize_out(out, shape, dev)


def _alloc_many(op: Op, out: Any, specs: Sequence[Any], dev: device) -> tuple[Tensor | None, ...]:
    """The outputs of a multi-output operator: every ``out`` tensor is checked before any is
    resized (a failed call changes none); integer outputs (indices, exponents) need their exact
    dtype. A None spec is an output the call does not make (``linear_backward``'s outputs
    that ``output_mask`` leaves out): None, and a given ``out`` tensor there is left alone.
    A spec ``(shape, dtype, like)`` makes its output in ``like``'s memory order."""
    if out is None:
        return tuple(
            None
            if sp is None
            else empty(sp[0], sp[1], dev)
            if len(sp) == 2
            else empty_like_layout(sp[2], sp[0], sp[1], dev)
            for sp in specs
        )
    if not isinstance(out, (tuple, list)) or len(out) != len(specs):
        n = len(out) if isinstance(out, (tuple, list)) else 1
        raise TypeError(f"{op.name}(): out must be a tuple of {len(specs)} tensors, got {n}")
    for o, sp in zip(out, specs, strict=True):
        if sp is not None:
            exact = sp[1]._category == _INTEGRAL or op.decl.out_dtype == "exact"
            check_out_spec(op.name, o, sp[0], sp[1], exact=exact)
    return tuple(
        None if sp is None else resize_out(o, sp[0], dev) for o, sp in zip(out, specs, strict=True)
    )


def _check_inplace(op: Op, self: Tensor, shape: tuple[int, ...], dtype: dt.dtype) -> None:
    if shape != self._shape:
        raise RuntimeError(
            f"output with shape {list(self._shape)} doesn't match the broadcast shape "
            f"{list(shape)} (in {op.name}_)"
        )
    if not dt.can_cast(dtype, self._dtype):
        raise cast_error(f"{op.name}_", dtype, self._dtype)


def run_direct(kernel: DirectKernel, args: tuple[Any, ...], out: Any, inplace: bool) -> Any:
    """Call a kernel registered with ``direct=True``: no frontend work, the caller's arguments
    (``out=self`` for an in-place call, the caller's ``out=``), and its own result."""
    if inplace:
        return kernel.fn(*args, out=args[0])
    if out is not None:
        return kernel.fn(*args, out=out)
    return kernel.fn(*args)


def unsupported_dtype(op: Op, d: dt.dtype) -> Exception:
    """PyTorch's error for a dtype outside the operator's declared ``dtypes``: the
    dispatcher's ``NotImplementedError``, or the operator's own ``RuntimeError`` where the
    declaration gives its wording (``dtype_error``)."""
    if op.decl.dtype_error:
        kind = (
            "bool"
            if d is dt.bool_
            else "complex"
            if d.is_complex
            else "floating"
            if d.is_floating_point
            else "integer"
        )
        return RuntimeError(op.decl.dtype_error.format(dtype=torch_name(d), kind=kind))
    hint = op.decl.dtype_hint
    return NotImplementedError(
        f"\"{op.name}\" not implemented for '{torch_name(d)}'" + (f". {hint}" if hint else "")
    )


def check_subject_dtype(op: Op, args: tuple[Any, ...]) -> None:
    """Refuse a call whose dtype the operator does not declare: the ``dtype`` argument when
    one is given, else the promoted dtype of the tensors of a pointwise composite (``gcd``),
    else the first tensor argument's (non-pointwise operators)."""
    pos = op.decl.pos.dtype
    d = args[pos] if pos >= 0 else None
    if d is None and "pointwise" in op.decl.tags and len(op.tensor_pos) > 1:
        d = dt.result_type(*(a for a in args if isinstance(a, Tensor)))
    if d is None:
        for i in sorted(op.tensor_pos + op.list_pos):
            a = args[i]
            if isinstance(a, (list, tuple)):
                a = next((x for x in a if isinstance(x, Tensor)), None)
            if isinstance(a, Tensor):
                d = a._dtype
                break
    if d is not None and d not in op.dtypes_ok:
        raise unsupported_dtype(op, d)


def check_values(op: Op, args: tuple[Any, ...], d: dt.dtype, skip: tuple[int, ...] = ()) -> None:
    """Refuse a Python number in one of the declared ``values`` parameters that dtype ``d``
    cannot hold (:func:`tensorcore.dtypes.check_scalar`); positions in ``skip`` are not
    looked at."""
    for i in op.decl.pos.values:
        v = args[i]
        if v is None or isinstance(v, Tensor) or i in skip:
            continue
        # Small ints fit every dtype, moderate finite floats every floating one.
        c = v.__class__
        if (c is int and -128 <= v <= 127) or (
            c is float and d._category >= _FLOATING and -65504.0 <= v <= 65504.0
        ):
            continue
        dt.check_scalar(v, d)


def _cast(t: Any, d: dt.dtype) -> Any:
    if isinstance(t, Tensor) and t._dtype is not d:
        return t.to(d)
    return t


def empty_like_layout(like: Tensor, shape: tuple[int, ...], dtype: dt.dtype, dev: device) -> Tensor:
    """A new dense tensor of ``shape`` that lies in memory in the order of ``like``'s strides
    (a transposed matrix, a permuted batch, a slice of one), as PyTorch's elementwise results
    and ``clone`` do (``preserve_format``: ``tensorcore/_memory_format.py``, the rule of the
    ``*_like`` factories too): the kernel then streams through memory instead of striding
    across it. A broadcast input gives a row-major result."""
    st = like._stride
    if len(shape) < 2 or st == contiguous_strides(shape) or like._layout.name != "strided":
        return empty(shape, dtype, dev)
    st = preserve_format_strides(shape, st)
    if st == contiguous_strides(shape):
        return empty(shape, dtype, dev)
    flat = empty((math.prod(shape),), dtype, dev)
    return make_tensor(flat._storage, shape, st, 0, dtype, dev)


def empty_like_inputs(
    tensors: Sequence[Tensor], shape: tuple[int, ...], dtype: dt.dtype, dev: device
) -> Tensor:
    """A new dense tensor for the elementwise result of ``shape`` on ``tensors``, laid out
    as PyTorch's TensorIterator lays it out (:func:`~tensorcore._memory_format.result_strides`:
    every operand's strides have a say, broadcast ones included); contiguous when every
    operand is. An operand expanded from one element (all strides 0: the gradient of a
    ``sum``) has no say, so it keeps the contiguous case short."""
    if len(shape) < 2 or all(
        t._stride is _CONTIG.get(t._shape) or not any(t._stride) or row_major(t) for t in tensors
    ):
        return empty(shape, dtype, dev)
    n = len(shape)
    operands = []
    for t in tensors:
        if t._layout.name != "strided":
            continue
        k = n - t.ndim
        operands.append(
            (0,) * k
            + tuple(
                0 if s == 1 and shape[k + i] != 1 else st
                for i, (s, st) in enumerate(zip(t._shape, t._stride, strict=True))
            )
        )
    st = result_strides(shape, operands)
    if st == contiguous_strides(shape):
        return empty(shape, dtype, dev)
    flat = empty((math.prod(shape),), dtype, dev)
    return make_tensor(flat._storage, shape, st, 0, dtype, dev)


def _shape_of(op: Op, args: tuple[Any, ...]) -> tuple[int, ...]:
    shapes = [args[i]._shape for i in op.tensor_pos if isinstance(args[i], Tensor)]
    if len(shapes) == 1:
        return shapes[0]
    return broadcast(*shapes)
