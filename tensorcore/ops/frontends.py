"""Frontends: what the core computes before a kernel runs, once for every backend.

For structured operators the core checks the arguments, computes the broadcast shape, the
result dtype and the reduced dims, allocates the output on the device, and calls
``kernel(out, *args)``; the backend writes only the computation (the role of PyTorch's
structured kernels and TensorIterator). ``unstructured`` operators call ``kernel(*args)``.

Every frontend is called as ``frontend(op, kernel, args, out, device, inplace)``. Those that
normalise arguments (``reduction``, ``structured``, ``factory``) also take ``prepared``: a list
to which they append the arguments the kernel receives after ``out`` -- the prepared call, which
the autograd step saves from instead of normalising the arguments a second time. A kernel
registered with ``direct=True`` gets the caller's arguments, so nothing is appended then.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from operator import is_ as _is
from typing import TYPE_CHECKING, Any

from .. import _registry, return_types
from .. import dtypes as dt
from .._memory_format import preserve_format_strides, result_strides
from .._scalars import FAST_FLOAT, FAST_INT, convert_scalar, scalar_dtype
from .._tensor import (
    _CONTIG,
    Size,
    Tensor,
    _wrap_dim,
    contiguous_strides,
    make_tensor,
    torch_name,
)
from ..autograd import grad_mode as _grad_mode
from ..dispatch import ALL_DTYPES, DirectKernel, ops
from ._out import (
    cast_error,
    check_out_spec,
    overlap_error,
    reads_out,
    resize_out,
    warn_resized,
    write_out,
)
from ._validate import check_shape, v_ints
from .meta_functions import broadcast, check_alpha, normalize_dims

if TYPE_CHECKING:
    from ..devices import device
    from ..dispatch import Op

__all__ = [
    "FRONTENDS",
    "bind",
    "broadcast",
    "broadcast_shapes",
    "check_alpha",
    "empty",
    "normalize_dims",
    "prepare",
    "resize_out",
    "run_direct",
    "warn_resized",
]

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


# ------------------------------------------------------------------ pointwise
def _pointwise_dtypes(op: Op, args: tuple[Any, ...]) -> tuple[dt.dtype, dt.dtype]:
    """(compute dtype, result dtype) for a pointwise call."""
    pos = op.decl.pos
    operands = [args[i] for i in pos.promote if args[i] is not None]
    try:
        compute = dt.result_type(*operands)
    except TypeError:
        bad = next(a for a in operands if not isinstance(a, (Tensor, bool, int, float, complex)))
        raise TypeError(
            f"{op.name}(): expected Tensor or Python scalar arguments, got {type(bad).__name__}"
        ) from None
    policy = op.decl.promote
    given, when_given = pos.promote_when
    if given >= 0 and args[given] is not None:
        policy = when_given
    if policy == "same":
        return compute, compute
    if policy == "float":
        if not (compute.is_floating_point or compute.is_complex):
            compute = dt.get_default_dtype()
        return compute, compute
    if policy == "double":
        compute = dt.complex128 if compute.is_complex else dt.float64
        return compute, compute
    if policy == "bool":
        return compute, dt.bool_
    if policy == "real":
        return compute, compute.to_real()
    if policy == "int":
        if compute.is_floating_point or compute.is_complex:
            # PyTorch's dispatcher error: the bitwise kernels exist for integers and bools only
            raise unsupported_dtype(op, compute)
        return compute, compute
    raise AssertionError(policy)


def pointwise_unary(
    op: Op, kernel: Any, args: tuple[Any, ...], out: Any, dev: device, inplace: bool
) -> Any:
    """:func:`pointwise` for unary operators (``op.fast`` 1 or 3): a call whose result has
    the input's dtype (or ``fast_result``, bool for ``isnan``) and shape allocates it and
    runs the kernel, nothing else."""
    a = args[0]
    res = op.fast_result
    if (
        out is None
        and isinstance(a, Tensor)
        and a._dtype in op.fast_dtypes
        and kernel.__class__ is not DirectKernel
        and (res is None or not inplace)  # (in place, ``pointwise`` casts the bool result)
    ):
        check = op.decl.check
        if check is not None:  # (on the arguments as given, as ``pointwise`` checks them)
            check(*args)
        return _run_like(kernel, args, a, res or a._dtype, dev, inplace)
    return pointwise(op, kernel, args, out, dev, inplace)


def _run_like(
    kernel: Any, args: tuple[Any, ...], a: Tensor, dtype: dt.dtype, dev: device, inplace: bool
) -> Any:
    """Run ``kernel`` into ``a`` (in place) or into a new tensor of ``a``'s shape and memory
    order (the fast pointwise paths)."""
    if inplace:
        kernel(a, *args)
        return a
    shape = a._shape
    alloc = _ALLOC.get(dev._key)
    if alloc is not None and (len(shape) < 2 or a._stride is _CONTIG.get(shape)):
        o = alloc(shape, dtype, dev)
    else:
        o = empty_like_inputs([t for t in args[:2] if isinstance(t, Tensor)], shape, dtype, dev)
    kernel(o, *args)
    return o


def pointwise_binary(
    op: Op, kernel: Any, args: tuple[Any, ...], out: Any, dev: device, inplace: bool
) -> Any:
    """:func:`pointwise` for binary operators: two tensors of one dtype and shape, or a
    tensor and a Python scalar that cannot promote it (a weak int into a non-bool tensor, a
    weak float into a floating one), skip promotion, broadcasting and the checks. The result
    has the inputs' dtype (``fast_result`` None: promotion ``same``, or ``float`` for the
    floating ``fast_dtypes``) or ``fast_result`` (``bool`` for the comparisons), and the
    arguments after the two tensors must be of a class in ``fast_extra`` (a Python number
    for ``alpha``, a float one for floating tensors only; None for an optional parameter
    such as ``div``'s ``rounding_mode``). A declared check still runs.
    The scalar goes on as it is where the backend converts it as the core would
    (``_scalars.FAST_FLOAT``/``FAST_INT``: a float into a 32- or 64-bit floating tensor, an
    int the dtype holds), converted otherwise."""
    if out is None and kernel.__class__ is not DirectKernel:
        a = args[0]
        b = args[1]
        if not isinstance(a, Tensor) and not inplace:
            a, b = b, a
        if (
            isinstance(a, Tensor)
            and (d := a._dtype) in op.fast_dtypes
            and (
                len(args) < 3
                or (
                    (c := args[2].__class__) in op.fast_extra
                    and (c is not float or d._category >= _FLOATING)
                )
            )
        ):
            res = op.fast_result
            cls = b.__class__
            if cls is Tensor:
                ok = b._dtype is d and b._shape == a._shape
                if not ok and b._dtype is d and not inplace:
                    # One dtype, two shapes: broadcast, but nothing to promote or convert.
                    check = op.decl.check
                    if check is not None:
                        check(*args)
                    return _run_broadcast(kernel, args, a, b, res or d, dev)
            elif cls is float:
                ok = d._category >= _FLOATING
                if ok and (d not in FAST_FLOAT or res is not None):
                    # a 16-bit float, or a result dtype (bool) that is not the one the
                    # kernel would convert the scalar to: the core converts
                    args = _convert_scalar_at(op, args, -1, d)
            elif cls is int:
                ok = d._category >= _INTEGRAL
                r = FAST_INT.get(d)
                if ok and (r is None or not r[0] <= b <= r[1] or res is not None):
                    args = _convert_scalar_at(op, args, -1, d)
            else:
                ok = False
            if ok and (res is None or not inplace):
                # (a float alpha for integers, or a complex one, goes on to ``pointwise``)
                check = op.decl.check
                if check is not None:  # (on the numbers given, before any conversion)
                    if a is args[0]:
                        check(a, b, *args[2:])
                    else:
                        check(b, a, *args[2:])
                return _run_like(kernel, args, a, res or d, dev, inplace)
    return pointwise(op, kernel, args, out, dev, inplace)


def _run_broadcast(
    kernel: Any, args: tuple[Any, ...], a: Tensor, b: Tensor, dtype: dt.dtype, dev: device
) -> Any:
    """Run ``kernel`` into a new tensor of the broadcast shape of ``a`` and ``b`` (one dtype),
    in the memory order of the input that has that shape, as :func:`pointwise` lays it out."""
    shape = broadcast(a._shape, b._shape)
    o = empty_like_inputs((a, b) if a is args[0] else (b, a), shape, dtype, dev)
    kernel(o, *args)
    return o


def pointwise(
    op: Op, kernel: Any, args: tuple[Any, ...], out: Any, dev: device, inplace: bool
) -> Any:
    """Broadcast, promote, allocate and run an elementwise kernel as ``kernel(out, *args)``."""
    check = op.decl.check
    if check is not None:
        check(*args)
    if kernel.__class__ is DirectKernel:
        return run_direct(kernel, args, out, inplace)
    shape = _shape_of(op, args)
    compute, res = _pointwise_dtypes(op, args)
    if compute not in op.dtypes_ok:
        raise unsupported_dtype(op, compute)
    facts = op.decl.pos
    if facts.alpha >= 0:
        alpha = args[facts.alpha]
        check_alpha(compute, alpha)
        if compute is dt.bool_ and alpha.__class__ is int:
            # (PyTorch converts it to the bool compute dtype: ``b + 2 * c`` is ``b | c``)
            i = facts.alpha
            args = args[:i] + (alpha != 0,) + args[i + 1 :]
    pos = facts.promote
    if op.decl.promote_args:
        args = _passive(op, args, pos, compute)
    if op.decl.values:
        # (numbers in tensor positions are converted below, checked where declared)
        check_values(op, args, compute, skip=op.tensor_pos)
    self0 = args[0]
    # (before the numbers become tensors)
    lone = out is not None and op.decl.out_dtype == "same" and _tensor_count(args, pos) == 1
    for i in pos:
        t = args[i]
        if isinstance(t, Tensor):
            if t._dtype is not compute:
                args = args[:i] + (_cast(t, compute),) + args[i + 1 :]
        elif t is not None:  # a Python scalar
            args = _convert_scalar_at(op, args, i, compute)
    if op.decl.promote == "double" and (inplace or out is not None):
        # PyTorch writes a float64 (complex128) result into a tensor of that dtype only.
        given = self0 if inplace else out
        if given._dtype is not res:
            what = "base" if inplace else "output"
            raise RuntimeError(
                f"the {what} given to {op.name}{'_' if inplace else ''} has dtype "
                f"{torch_name(given._dtype)} but the operation's result requires dtype "
                f"{torch_name(res)}"
            )
    if inplace:
        if op.decl.promote == "real" and self0._dtype.is_complex:
            # (a real result written back into complex numbers: PyTorch refuses it)
            raise RuntimeError(f"In-place {op.name} is not supported for complex tensors.")
        _check_inplace(op, self0, shape, res)
        if self0._dtype is not res and _wraps(res, self0._dtype):
            return _through_result_dtype(kernel, args, self0, shape, res, dev)
        kernel(self0, *args)
        return self0
    if out is None:
        # The result follows the memory order of the inputs, as TensorIterator orders it.
        o = empty_like_inputs([a for a in args if isinstance(a, Tensor)], shape, res, dev)
    else:
        if op.decl.mixed_dtypes_error and out._dtype is not res:
            raise RuntimeError(op.decl.mixed_dtypes_error)
        if lone and out._dtype is not res:
            raise RuntimeError(
                f"Found dtype {torch_name(out._dtype)} but expected {torch_name(res)}"
            )
        o = _alloc_or_check(op, out, shape, res, dev, args)
        if o._dtype is not res and _wraps(res, o._dtype):
            return _through_result_dtype(kernel, args, o, shape, res, dev)
    kernel(o, *args)
    return o


def _tensor_count(args: tuple[Any, ...], pos: Any) -> int:
    return sum(1 for i in pos if isinstance(args[i], Tensor))


def _wraps(res: dt.dtype, dest: dt.dtype) -> bool:
    """Whether storing a ``res`` result in ``dest`` is a cast between signed and unsigned
    integers (``uint8.add_(int16)``), which PyTorch does with wraparound but an array
    module's kernel may refuse (NumPy's ``same_kind`` rule)."""
    return res._category == dest._category == _INTEGRAL and res.is_signed != dest.is_signed


def _through_result_dtype(
    kernel: Any,
    args: tuple[Any, ...],
    dest: Tensor,
    shape: tuple[int, ...],
    res: dt.dtype,
    dev: device,
) -> Tensor:
    """Run ``kernel`` into a temporary of the result dtype, then copy that into ``dest``."""
    tmp = empty(shape, res, dev)
    kernel(tmp, *args)
    dest.copy_(tmp)
    return dest


def _passive(
    op: Op, args: tuple[Any, ...], pos: tuple[int, ...], compute: dt.dtype
) -> tuple[Any, ...]:
    """``args`` with the tensor parameters that take no part in promotion checked: a declared
    mask (``where``'s ``condition``) must be bool, any other tensor (``lerp``'s weight) must
    already have the compute dtype, as in PyTorch; a Python number there is converted to it."""
    params = op.decl.parsed.params
    masks = op.decl.pos.masks
    for i in op.tensor_pos:
        t = args[i]
        if i in pos or t is None:
            continue
        name = params[i].name
        if not isinstance(t, Tensor):
            if i not in masks:
                args = _convert_scalar_at(op, args, i, compute)
            continue
        if i in masks:
            if t._dtype is not dt.bool_:
                raise RuntimeError(
                    f"{op.name} expected {name} to be a boolean tensor, but got a tensor with "
                    f"dtype {torch_name(t._dtype)}"
                )
        elif t._dtype is not compute:
            if op.decl.mixed_dtypes_error:
                raise RuntimeError(op.decl.mixed_dtypes_error)
            raise RuntimeError(
                f"{op.name}(): expected dtype {torch_name(compute)} for `{name}` but got dtype "
                f"{torch_name(t._dtype)}"
            )
    return args


def _convert_scalar_at(op: Op, args: tuple[Any, ...], i: int, compute: dt.dtype) -> Any:
    """``args`` with the Python scalar ``args[i]`` converted to the compute dtype as PyTorch
    converts it (``tensorcore/_scalars.py``): what a kernel receives is a number that dtype
    holds exactly. ``i`` -1: the scalar of a binary call's (tensor, scalar) pair."""
    if i < 0:
        i = 1 if isinstance(args[0], Tensor) else 0
    sd = scalar_dtype(compute, op.decl.opmath_scalars)
    # (a declared ``values`` parameter's int must fit an integer dtype, as PyTorch checks it)
    rounds = op.decl.values_round_floats
    checked = i in op.decl.pos.values and not (
        rounds and sd._category >= _FLOATING and sd.itemsize >= rounds
    )
    return args[:i] + (convert_scalar(args[i], sd, op.name, checked),) + args[i + 1 :]


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
        t._stride is _CONTIG.get(t._shape) or not any(t._stride) for t in tensors
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


# ------------------------------------------------------------------ reductions
def _reduction_dtype(op: Op, self: Tensor, dtype: dt.dtype | None) -> dt.dtype:
    policy = op.decl.promote
    d = self._dtype
    if policy.startswith("float_only") and dtype is not None and dtype._category < _FLOATING:
        raise RuntimeError(
            f"{op.name}(): could not infer output dtype. Optional dtype must be either a "
            f"floating point or complex dtype. Got: {torch_name(dtype)}"
        )
    if policy in ("sum", "float_only", "float_only_real", "float") and dtype is not None:
        return dtype
    if policy == "same":
        return d
    if policy == "sum":
        return dt.int64 if not (d.is_floating_point or d.is_complex) else d
    if policy.startswith("float_only"):
        if not (d.is_floating_point or d.is_complex):
            raise RuntimeError(
                f"{op.name}(): could not infer output dtype. Input dtype must be either a "
                f"floating point or complex dtype. Got: {torch_name(d)}"
            )
        return d.to_real() if policy == "float_only_real" else d
    if policy == "float":
        return d if (d.is_floating_point or d.is_complex) else dt.get_default_dtype()
    if policy == "index":
        return dt.int64
    if policy == "bool":
        return dt.bool_
    raise AssertionError(policy)


def reduction(
    op: Op,
    kernel: Any,
    args: tuple[Any, ...],
    out: Any,
    dev: device,
    inplace: bool,
    prepared: list[Any] | None = None,
) -> Any:
    """Normalise ``dim``, compute the reduced shape and dtype, allocate, run ``kernel(out, *args)``.

    The kernel receives ``dim`` as a sorted tuple of non-negative ints (every dim when the
    caller gave None or ``[]``), except for a reduction over one optional dim (``int? dim``:
    ``argmax``) given None, which reduces the flattened tensor and receives None. Parameters
    the declaration's ``none_means`` names get their value where the caller passed None. An
    operator with several named results (``-> (Tensor values, Tensor indices)``) gets one
    output per result, int64 for ``indices``.
    """
    if kernel.__class__ is DirectKernel:
        return run_direct(kernel, args, out, inplace)
    args, shape, res = _prepare_reduction(op, out_sets_dtype(op, args, out))
    if op.decl.pos.result_names:
        specs = tuple(
            (shape, dt.int64 if r == "indices" else res) for r in op.decl.pos.result_names
        )
        o: Any = op.result_type._make(_alloc_many(op, out, specs, dev))
    elif op.decl.promote == "index" and out is not None:
        check_out_spec(op.name, out, shape, res, exact=True)
        o = resize_out(out, shape, dev)
    else:
        o = _alloc_or_check(op, out, shape, res, dev, args)
    if prepared is not None:
        prepared.append(args)
    kernel(o, *args)
    return o


def _check_nonempty_dims(op: Op, raw: Any, in_shape: tuple[int, ...]) -> None:
    """PyTorch's errors for a reduction without identity over an empty dim of an empty
    input, before it checks the dims otherwise (a repeated one): every dim, implicitly, asks
    for a dim (in an IndexError for the flat ``argmax``); an empty one names its dim (as
    given to an ``int[]`` parameter, wrapped for an ``int`` one: ``argmax``, ``max_dim``)."""
    facts = op.decl.pos
    if raw is None or (raw.__class__ in (tuple, list) and not raw):
        msg = f"{op.name}(): Expected reduction dim to be specified for input.numel() == 0."
        if facts.flat_when_dim_none:
            raise IndexError(msg)
        raise RuntimeError(f"{msg} Specify the reduction dim with the 'dim' argument.")
    ndim = len(in_shape)
    as_given = op.decl.parsed.params[facts.dim].type.startswith("int[]")
    for d in (raw,) if raw.__class__ is int else raw:
        if d.__class__ is not int or not ndim:  # (a 0-d tensor reduces over dim 0 / -1)
            continue
        w = _wrap_dim(d, ndim)
        if in_shape[w] == 0:
            shown = d if as_given else w
            raise IndexError(f"{op.name}(): Expected reduction dim {shown} to have non-zero size.")


def _prepare_reduction(
    op: Op, args: tuple[Any, ...]
) -> tuple[tuple[Any, ...], tuple[int, ...], dt.dtype]:
    """A reduction's kernel arguments, result shape and result dtype."""
    self = args[0]
    if not isinstance(self, Tensor):
        raise TypeError(f"{op.name}(): argument 'input' must be Tensor, not {type(self).__name__}")
    facts = op.decl.pos
    dpos, kpos, tpos = facts.dim, facts.keepdim, facts.dtype
    in_shape = self._shape
    ndim = len(in_shape)
    raw = args[dpos]
    keepdim = bool(args[kpos])
    given = args[tpos] if tpos >= 0 else None
    subject = self._dtype if given is None else given
    if subject not in op.dtypes_ok:  # (first, as PyTorch: ``argmax`` of an empty bool tensor)
        raise unsupported_dtype(op, subject)
    if not op.decl.identity and 0 in in_shape:
        _check_nonempty_dims(op, raw, in_shape)
    if raw is None:
        red = tuple(range(ndim))
        dims = None if facts.flat_when_dim_none else red
    else:
        dims = red = normalize_dims(raw, ndim)
    if len(red) == ndim:  # every dim (the common case of a loss or a total)
        shape = (1,) * ndim if keepdim else ()
    elif keepdim:
        shape = tuple(1 if i in red else s for i, s in enumerate(in_shape))
    else:
        shape = tuple(s for i, s in enumerate(in_shape) if i not in red)
    # (the result dtype depends on the policy and the two dtypes only)
    policy = op.decl.promote
    res = _REDUCED.get((policy, self._dtype, given))
    if res is None:
        res = _reduction_dtype(op, self, given)
        if given is not None or policy != "float" or self._dtype._category >= _FLOATING:
            # (an integer input of the "float" policy gets the default dtype, which can change)
            _REDUCED[policy, self._dtype, given] = res
    if dims is not raw:
        args = args[:dpos] + (dims,) + args[dpos + 1 :]
    if tpos >= 0 and given is not res:
        args = args[:tpos] + (res,) + args[tpos + 1 :]
    for i, value in facts.none_means:
        if args[i] is None:
            args = args[:i] + (value,) + args[i + 1 :]
    return args, shape, res


#: (promotion policy, input dtype, dtype argument) -> a reduction's result dtype, for the
#: combinations whose result does not depend on the default dtype.
_REDUCED: dict[tuple[str, dt.dtype, Any], dt.dtype] = {}


def prepare(op: Op, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The arguments ``op``'s kernel would receive after ``out`` -- what the frontends hand
    back through ``prepared`` -- computed without running anything (for a kernel registered
    with ``direct=True``, which the frontend does not prepare for)."""
    kind = op.decl.frontend
    if kind == "reduction":
        return _prepare_reduction(op, args)[0]
    if op.meta_function is not None:
        return op.meta_function(*args)[0]
    return args


# ------------------------------------------------------------------ structured (per operator)
Spec = tuple[tuple[int, ...], dt.dtype]


def structured(
    op: Op,
    kernel: Any,
    args: tuple[Any, ...],
    out: Any,
    dev: device,
    inplace: bool,
    prepared: list[Any] | None = None,
) -> Any:
    """Run the operator's meta function, allocate its outputs, run ``kernel(out, *args)``."""
    if kernel.__class__ is DirectKernel:
        return run_direct(kernel, args, out, inplace)
    if inplace and (i := op.decl.pos.dtype) >= 0 and args[i] is None:
        # In place, the result is computed in self's dtype (``cumsum_``), as PyTorch's
        # ``out=self`` call does.
        args = args[:i] + (args[0]._dtype,) + args[i + 1 :]
    args = out_sets_dtype(op, args, out)
    if op.dtypes_ok is not ALL_DTYPES:
        check_subject_dtype(op, args)
    check = op.decl.check
    if check is not None:
        check(*args)
    if op.decl.values:
        check_values(op, args, args[0]._dtype)
    given = args  # (the meta function may drop an input: cat's legacy empty tensors)
    args, spec = op.meta_function(*args)  # type: ignore[misc]
    if not isinstance(spec[1], dt.dtype):
        # several outputs: ((shape, dtype), (shape, dtype), ...), None for one not made
        o: Any = _alloc_many(op, out, spec, dev)
    elif inplace:
        self = args[0]
        _check_inplace(op, self, spec[0], spec[1])
        o = self
    elif len(spec) == 3 and out is None:  # (shape, dtype, like): in like's memory order
        o = empty_like_layout(spec[2], spec[0], spec[1], dev)
    else:
        o = _alloc_or_check(op, out, spec[0], spec[1], dev, given)
    if prepared is not None:
        prepared.append(args)
    kernel(o, *args)
    return o if op.result_type is None else op.result_type._make(o)


def unstructured(
    op: Op, kernel: Any, args: tuple[Any, ...], out: Any, dev: device, inplace: bool
) -> Any:
    """Call ``kernel(*args)`` and return what it returns (written into ``out`` where the
    caller gave one)."""
    if op.dtypes_ok is not ALL_DTYPES:
        check_subject_dtype(op, args)
    check = op.decl.check
    if check is not None:
        check(*args)
    if op.decl.values and op.tensor_pos:
        check_values(op, args, args[op.tensor_pos[0]]._dtype)
    if inplace and op.composite and op.decl.inplace:
        return _composite_inplace(op, kernel, args)
    if out is not None:
        return _into_out(op, kernel, args, out)
    return kernel(*args)


def unstructured_unchecked(
    op: Op, kernel: Any, args: tuple[Any, ...], out: Any, dev: device, inplace: bool
) -> Any:
    """:func:`unstructured` for an operator without dtype or value checks (the views, most
    composites): the same behaviour, a few attribute reads less on every call."""
    if out is not None:
        return _into_out(op, kernel, args, out)
    if inplace and op.composite and op.decl.inplace:
        return _composite_inplace(op, kernel, args)
    return kernel(*args)


def _composite_inplace(op: Op, kernel: Any, args: tuple[Any, ...]) -> Any:
    """The in-place variant of a composite: a kernel registered with ``direct=True`` (a
    layout's own kernel for the composite) gets ``out=self`` and writes itself, as for every
    other operator (it may refuse, as a sparse ``frac_`` of an uncoalesced tensor does); a
    composite definition with an in-place variant (its ``into_self``: ``index_add_`` through
    ``index_put_``) writes into ``self`` through an in-place operator; the composite's
    result is copied into ``self`` otherwise. Both of the last two move ``self``'s version
    themselves (:func:`moves_version`)."""
    if kernel.__class__ is DirectKernel:
        return run_direct(kernel, args, None, True)
    into = getattr(kernel, "into_self", None)
    if into is not None:
        return into(*args)
    return _write_into_self(op, kernel, args)


def moves_version(op: Op, kernel: Any) -> bool:
    """Whether the in-place call of ``op`` through ``kernel`` moves ``self``'s version by
    itself: a composite's in-place variant writes through an in-place operator (``copy_``,
    or its ``into_self``'s), which moves it, so that the caller must not move it again (the
    version moves once per in-place call, as in PyTorch)."""
    return op.composite and op.decl.inplace and kernel.__class__ is not DirectKernel


def _into_out(op: Op, kernel: Any, args: tuple[Any, ...], out: Any) -> Any:
    """An ``out=`` call of an operator whose kernel makes its own result (a composite): the
    result, computed as without ``out=``, written into ``out`` under PyTorch's rules
    (``ops/_out.py``). Where the operator has a ``dtype`` parameter left None, a factory
    (it has a ``device`` parameter) and the ``"sum"`` policy compute in ``out``'s dtype."""
    i = op.decl.pos.dtype
    if (
        i >= 0
        and args[i] is None
        and isinstance(out, Tensor)
        and (op.decl.out_sets_dtype or op.decl.pos.device >= 0)
    ):
        args = args[:i] + (out._dtype,) + args[i + 1 :]
    rule = op.decl.out_dtype
    if rule == "same":
        rule = "same" if sum(isinstance(a, Tensor) for a in args) == 1 else ""
    return write_out(
        op.name, kernel(*args), out, args, rule, no_overlap="pointwise" not in op.decl.tags
    )


def _write_into_self(op: Op, kernel: Any, args: tuple[Any, ...]) -> Tensor:
    """The in-place variant of a composite (``x.addcmul_(a, b)``): its result, checked as
    every in-place result is (``self``'s shape, a dtype castable to ``self``'s), copied into
    ``self`` (a recorded ``copy_`` when autograd records). A ``self`` in the graph is read
    through a copy, since the parts of the composite may save it for their gradients and the
    write into it would invalidate them."""
    self = args[0]
    if self._requires_grad or self._grad_fn is not None:
        before = self.clone()
        args = tuple(before if a is self else a for a in args)
    result = kernel(*args)
    _check_inplace(op, self, result._shape, result._dtype)
    before_node = self._grad_fn
    self.copy_(result)
    node = self._grad_fn
    if node is not None and node is not before_node:
        # The recorded write stands for the whole in-place operator: PyTorch names it after
        # the operator (``AddcmulBackward0``), not after the copy that implements it here.
        node.rename(op.decl.node_name)
    return self


def named_as(t: Tensor, name: str) -> Tensor:
    """``t``, whose node (when it has one) now carries PyTorch's name for the operator a
    composite stands for (``F.mse_loss``'s last node is ``MseLossBackward0``, not
    ``MeanBackward0``): programs print ``grad_fn`` and graph drawers read it. Only the name
    changes; ``t`` must be the composite's own new result, never one of its inputs."""
    fn = t._grad_fn
    if fn is not None and fn._name != name:
        fn.rename(name)
    return t


def named_view_output(t: Tensor, name: str, i: int) -> Tensor:
    """:func:`named_as` for output ``i`` of a composite returning several views of its input
    (``unbind``, ``split``): as in PyTorch, such a view may not be modified in place, nor used
    once its base (or another view of it) was (``autograd._view_history``)."""
    named_as(t, name)
    fn = t._grad_fn
    if fn is not None:
        fn.view_output = i
    if t._base is not None:
        _grad_mode.mark_view(t, _grad_mode.MULTI_OUTPUT_NODE)
    return t


def _remember(
    op: Op,
    key: Any,
    kernel: Any,
    shape: tuple[int, ...],
    dtype: dt.dtype,
    dev: device,
    args: tuple[Any, ...],
    given: tuple[Any, ...],
) -> None:
    """Keep a factory call's outcome for its lane (``ops/_lanes.py``) under ``key``: the
    kernel, shape, dtype and allocator, and how the kernel takes the arguments -- the call's
    own (None), the first ``k`` of them (an int: ``empty``'s kernel takes no memory format)
    or the meta function's (a tuple: ``eye``'s ``m`` and dtype filled in), the last only
    where no argument is a float or complex number, which the key cannot tell from an equal
    one (``-0.0`` and ``0.0``)."""
    alloc = _ALLOC.get(dev._key)
    if alloc is None:
        return
    k = len(args)
    if all(map(_is, args, given[:k])):
        how: Any = None if k == len(given) else k
    elif not any(a.__class__ in (float, complex) for a in given):
        how = args
    else:
        return
    if len(op.lane_keys) >= 4096:
        op.lane_keys.clear()
    op.lane_keys[key] = (kernel, shape, dtype, alloc, how)


def factory(
    op: Op,
    kernel: Any,
    args: tuple[Any, ...],
    out: Any,
    dev: device,
    inplace: bool,
    prepared: list[Any] | None = None,
    remember: Any = None,
) -> Any:
    """Resolve a factory call's shape and dtype, allocate, run ``kernel(out, *args)``.

    ``remember`` is the factory lane's key for this call (``ops/_lanes.py``): for a
    row-major result, the lane keeps what it needs under it (:func:`_remember`)."""
    if kernel.__class__ is DirectKernel:
        return run_direct(kernel, args, out, inplace)
    i = op.decl.pos.dtype
    if out.__class__ is Tensor and i >= 0:
        # out=: the result takes its dtype; another dtype asked for is PyTorch's error
        if args[i] is None:
            args = args[:i] + (out._dtype,) + args[i + 1 :]
        elif args[i] is not out._dtype:
            raise RuntimeError(
                f"dtype {torch_name(args[i])} does not match dtype of out parameter "
                f"({torch_name(out._dtype)})"
            )
    given = args
    args, spec = op.meta_function(*args)  # type: ignore[misc]
    shape, dtype = spec[0], spec[1]
    check_shape(op.name, shape)
    if not isinstance(dtype, dt.dtype):
        raise TypeError(f"{op.name}(): dtype must be a tensorcore dtype, got {dtype!r}")
    if dtype not in op.dtypes_ok:
        raise unsupported_dtype(op, dtype)
    if op.decl.values:
        check_values(op, args, dtype)
    if len(spec) == 3 and out is None:  # (shape, dtype, strides): a dense memory format
        flat = empty((math.prod(shape),), dtype, dev)
        o = make_tensor(flat._storage, shape, spec[2], 0, dtype, dev)
    else:
        o = _alloc_or_check(op, out, shape, dtype, dev)
        if remember is not None and out is None:
            _remember(op, remember, kernel, shape, dtype, dev, args, given)
    if prepared is not None:
        prepared.append(args)
    kernel(o, *args)
    return o


FRONTENDS = {
    "pointwise": pointwise,
    "reduction": reduction,
    "structured": structured,
    "factory": factory,
    "unstructured": unstructured,
}


def bind(op: Op) -> None:
    """Give ``op`` its frontend and the declaration's facts that the call path reads.

    Pointwise operators whose result dtype follows from the input's alone get the fast
    frontends: a unary operator of promotion ``same`` (``neg``), or ``float`` for floating
    inputs (``exp``), and a binary operator of promotion ``same`` (``add``), ``float`` for
    floating inputs (``div``) or ``bool`` (``lt``) skip promotion and broadcasting when
    nothing needs them (``fast_dtypes``: the input dtypes for which the compute dtype is the
    input's).
    """
    decl = op.decl
    ok = frozenset(d for d in dt.all_dtypes if "bifc"[d._category] in decl.dtypes)
    op.dtypes_ok = ALL_DTYPES if ok == ALL_DTYPES else ok
    op.scalars = frozenset({int, float, bool, complex}) if decl.scalar_params else frozenset()
    op.meta_function = decl.meta_function
    op.frontend = FRONTENDS[decl.frontend]
    if (
        op.frontend is unstructured
        and op.dtypes_ok is ALL_DTYPES
        and not decl.values
        and decl.check is None
    ):
        op.frontend = unstructured_unchecked
    op.fast_dtypes = frozenset()
    op.fast_result = None
    op.fast_extra = frozenset()
    params = decl.parsed.params
    if (
        decl.frontend == "pointwise"
        and op.n_tensor_args == 2
        and op.tensor_pos == (0, 1)
        and decl.promote in ("same", "float", "bool", "int")
        and all(p.type == "Scalar" or p.type.endswith("?") for p in params[2:])
        and (not decl.promote_when or params[decl.pos.promote_when[0]].type.endswith("?"))
    ):
        # (a ``promote_when`` parameter changes the policy only when given: not on this path)
        op.frontend = pointwise_binary
        op.fast_dtypes = frozenset(
            d
            for d in op.dtypes_ok
            if (decl.promote != "float" or d._category >= _FLOATING)
            # (``int``: the bitwise operators, of bools and integers)
            and (decl.promote != "int" or d._category < _FLOATING)
            # (bool with an ``alpha``: ``pointwise`` converts an int alpha to bool)
            and not (d is dt.bool_ and decl.pos.alpha >= 0)
        )
        op.fast_result = dt.bool_ if decl.promote == "bool" else None
        op.fast_extra = frozenset(
            {type(None)}
            if any(p.type.endswith("?") for p in params[2:])
            else {int, float}
            if len(params) > 2
            else ()
        )
    elif (
        decl.frontend == "pointwise"
        and op.tensor_pos == (0,)
        and not op.list_pos
        and not decl.promote_when
        and decl.promote in ("same", "float", "real", "bool")
    ):
        # (the fast path runs the declared check, then takes the dtypes whose result is the
        # input's: floating ones for "float", real ones for "real" (``abs`` of complex is
        # real); or, for "bool" (``isnan``), every dtype, whose result is bool)
        op.frontend = pointwise_unary
        op.fast_result = dt.bool_ if decl.promote == "bool" else None
        op.fast_dtypes = frozenset(
            d
            for d in op.dtypes_ok
            if (decl.promote != "float" or d._category >= _FLOATING)
            and (decl.promote != "real" or not d.is_complex)
        )
    names = decl.pos.result_names
    op.result_type = None
    if names:
        op.result_type = getattr(return_types, op.name, None)
        if op.result_type is None or op.result_type._fields != names:
            op.result_type = return_types.make(op.name, list(names))
            setattr(return_types, op.name, op.result_type)
