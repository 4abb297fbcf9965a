"""The reduction frontend: the result dtype, the reduced dims and the output's allocation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import dtypes as dt
from .._tensor import Tensor, _wrap_dim, torch_name
from ..dispatch import DirectKernel
from ._out import check_out_spec, resize_out
from .meta_functions import normalize_dims

if TYPE_CHECKING:
    from ..devices import device
    from ..dispatch import Op
from ._frontend_common import (
    _FLOATING,
    _alloc_many,
    _alloc_or_check,
    out_sets_dtype,
    run_direct,
    unsupported_dtype,
)


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
