"""The pointwise frontend, general (promotion, broadcasting, Python scalars, ``out=``) and
fast (``pointwise_unary``, ``pointwise_binary``: see ``frontends.bind``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import dtypes as dt
from .._scalars import FAST_FLOAT, FAST_INT, convert_scalar, scalar_dtype
from .._tensor import _CONTIG, Tensor, row_major, torch_name
from ..dispatch import DirectKernel
from . import _frontend_common
from ._frontend_common import (
    _FLOATING,
    _INTEGRAL,
    _alloc_or_check,
    _cast,
    _check_inplace,
    _shape_of,
    check_values,
    empty,
    empty_like_inputs,
    run_direct,
    unsupported_dtype,
)
from .meta_functions import broadcast, check_alpha

if TYPE_CHECKING:
    from ..devices import device
    from ..dispatch import Op

# Bound by assignment, not imported: CPython compiles a method call on a name that ``from ...
# import`` binds (``_ALLOC.get(...)``) as an attribute load and a bound-method call, where on
# a module's own global it compiles the cheaper method call of the frontends before the split.
_ALLOC = _frontend_common._ALLOC


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
    if alloc is not None and (len(shape) < 2 or a._stride is _CONTIG.get(shape) or row_major(a)):
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
