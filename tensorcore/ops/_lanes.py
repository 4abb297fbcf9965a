"""Lanes: one operator's entry for the calls that need nothing of the call path but the kernel.

A plain call -- every tensor argument a ``Tensor`` (not a subclass, which may carry behaviour
of its own; a structured operator's lane takes subclasses, see ``_STRUCTURED``) on one device
and layout, none requiring grad, no autocast region, no ``out=`` -- needs no argument scan, no
autograd step and none of the general frontend's promotion or broadcasting. Its operator's
lane does in one frame what ``call`` and the operator's fast frontend would do for it: look
up the kernel, allocate the result, run the kernel, and name an error as ``call`` names it.
For any other call the lane returns None, and the compiled API function (``ops/_api.py``)
goes on to ``call``.

Lanes exist for the operators whose frontend has a fast path (``ops/frontends.bind``): the
pointwise operators with a fast unary or binary frontend, the operators of the unchecked
unstructured frontend (the views, most composites), the reductions (which keep what
``reduction`` prepares per input shape, dtype and arguments; several results, ``max_dim``'s
values and indices, in the operator's named tuple), the structured operators (meta function,
allocation, kernel), the operators of one tensor list (``cat``, ``stack``: a list of plain
tensors that do not require grad), the pointwise operators of the general frontend (``where``,
``clamp``, ``lerp``: the frontend without the call path's scan), and the operators that make
a tensor from no tensor (the factories, and composites such as ``zeros``: the device given
or the default one, then what ``factory`` or the composite does). Each is compiled for its
operator's parameters, so that the API function calls it, and it calls the kernel, with plain
positional arguments (a ``*args`` call is several times dearer than the rest of a lane).
``tests/test_fast_frontends.py`` runs every sample through the lane and through ``call`` and
compares the results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import dtypes as dt
from .._scalars import FAST_FLOAT, FAST_INT
from .._tensor import _CONTIG, Tensor, adopt_base_grad, row_major
from ..autograd import grad_mode
from ..devices import device, get_default_device
from ..dispatch import ALL_DTYPES, DirectKernel
from ..overrides import overrides
from . import _call
from ._lane_parts import _rg
from ._lanes_general import (
    _general_kept,
    _general_source,
    factory_source,
    no_tensor_source,
)
from ._lanes_pointwise import _lane_key, _lane_scalar, _mixed, in_order, pointwise_source
from ._lanes_structured import (
    _KERNEL_LIST,
    _KERNEL_TENSOR_LIST,
    _STRUCTURED_LIST,
    _alloc_specs,
    _reduction_source,
    _structured_source,
    kernel_source,
)
from ._validate import STANDARD, TRANSLATED, name_error, translate_error
from .frontends import (
    _ALLOC,
    _REDUCED,
    _prepare_reduction,
    check_values,
    empty_like_layout,
    factory,
    pointwise,
    pointwise_binary,
    pointwise_unary,
    reduction,
    structured,
    unstructured_unchecked,
)
from .meta_functions import broadcast

if TYPE_CHECKING:
    from ..dispatch import Op

__all__ = ["lane"]

_NAMESPACE: dict[str, Any] = {
    "__name__": __name__,  # (tracebacks and profilers name this module for a lane's frames)
    "Tensor": Tensor,
    "_call": _call,
    "_overrides": overrides,
    "_gm": grad_mode._state,
    "_adopt": adopt_base_grad,
    "_dual": grad_mode.dual,
    "_ALLOC": _ALLOC,
    "_CONTIG": _CONTIG,
    "_row_major": row_major,
    "_in_order": in_order,
    "_DirectKernel": DirectKernel,
    "_FAST_FLOAT": FAST_FLOAT,
    "_FAST_INT": FAST_INT,
    "_broadcast": broadcast,
    "_lane_key": _lane_key,
    "_factory": factory,
    "_dt": dt,
    "_default_device": get_default_device,
    "_Device": device,
    "_empty_like_layout": empty_like_layout,
    "_alloc_specs": _alloc_specs,
    "_prepare_reduction": _prepare_reduction,
    "_pointwise": pointwise,
    "_check_values": check_values,
    "_general_kept": _general_kept,
    "_mixed": _mixed,
    "_REDUCED": _REDUCED,
    "_FLOATING": dt.FLOATING,
    "_int64": dt.int64,
    "_INTEGRAL": dt.INTEGRAL,
    "_lane_scalar": _lane_scalar,
    "_STANDARD": STANDARD,
    "_TRANSLATED": TRANSLATED,
    "_name_error": name_error,
    "_translate_error": translate_error,
}
# (kind, in place, number of parameters, one output, position of a reduction's ``dtype``,
# the names of a reduction's several results) -> the factory of that kind's lanes
_MAKERS: dict[tuple[str, bool, int, bool, int, tuple[str, ...]], Callable[[Op], Any]] = {}


def _maker(
    kind: str,
    inplace: bool,
    n: int,
    single: bool = True,
    tpos: int = -1,
    results: tuple[str, ...] = (),
) -> Callable[[Op], Any]:
    hit = _MAKERS.get((kind, inplace, n, single, tpos, results))
    if hit is None:
        if kind == "reduction":
            src = _reduction_source(n, tpos, results)
        elif kind == "kernel":
            src = kernel_source(n, single)
        else:
            src = pointwise_source(kind, inplace, n)
        where = f"<tensorcore {kind} lane{'_' if inplace else ''}/{n}>"
        hit = _MAKERS[(kind, inplace, n, single, tpos, results)] = _compile(src, where)
    return hit


# lane source -> its factory (operators with the same tensor parameters share one)
_STRUCTURED_MAKERS: dict[str, Callable[[Op], Any]] = {}


def _structured_maker(src: str) -> Callable[[Op], Any]:
    hit = _STRUCTURED_MAKERS.get(src)
    if hit is None:
        hit = _STRUCTURED_MAKERS[src] = _compile(src, "<tensorcore structured lane>")
    return hit


def _compile(src: str, where: str) -> Callable[[Op], Any]:
    """The ``make`` that lane source ``src`` defines, compiled in the lanes' namespace."""
    ns: dict[str, Any] = dict(_NAMESPACE)
    exec(compile(src, where, "exec"), ns)
    return ns["make"]


def lane(op: Op, inplace: bool = False) -> Callable[..., Any] | None:
    """The lane of ``op`` (of its in-place variant ``op_`` with ``inplace``), called with the
    operator's arguments in signature order, or None where its frontend has no fast path.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.dispatch import get_op
    >>> add = get_op("add").lane
    >>> _ = tc.ones(2) + tc.ones(2)  # (the call path resolves the kernel on a first call)
    >>> add(tc.ones(2), tc.ones(2), 1)  # a plain call: the lane runs it
    tensor([2., 2.])
    >>> _ = tc.ones(2) + tc.ones(2, dtype=tc.float64)  # (and resolves the cast's kernel)
    >>> add(tc.ones(2), tc.ones(2, dtype=tc.float64), 1)  # two dtypes: cast, then the lane
    tensor([2., 2.], dtype=tensorcore.float64)
    >>> w = tc.ones(2, requires_grad=True)
    >>> add(w, tc.ones(2, dtype=tc.float64), 1) is None  # to promote and record: the step's
    True
    """
    n = len(op.decl.parsed.params)
    if "inplace" in op.decl.tags:
        return None  # (``zero_``, ``copy_``: ``call_inplace``'s, whatever their frontend)
    if not inplace and not op.tensor_pos and not op.list_pos and op.decl.pos.device >= 0:
        if op.frontend is factory:
            return _structured_maker(factory_source(op))(op)
        if op.frontend is unstructured_unchecked:
            return _structured_maker(no_tensor_source(op, "kernel({params})"))(op)
        return None
    if op.frontend is pointwise_binary and n <= 3:
        return _maker("binary", inplace, n)(op)
    if op.frontend is pointwise_unary:
        if inplace and op.decl.check is not None:
            return None  # (``call_inplace`` names a check's error after ``op_``)
        if inplace and op.fast_result is not None:
            return None  # (a bool result into self: ``pointwise`` casts it)
        return _maker("unary", inplace, n)(op)
    if op.frontend is pointwise and op.tensor_pos and not op.list_pos:
        if not inplace:
            return _structured_maker(_general_source(op))(op)
        if op.tensor_pos[0] == 0:
            return _structured_maker(_general_source(op, True))(op)
        return None
    if (
        not inplace
        and op.frontend is structured
        and (op.decl.parsed.one_tensor or op.result_type is not None)
        and op.tensor_pos
        and not op.list_pos
        and (not op.decl.values or (op.tensor_pos[0] == 0 and op.result_type is None))
        and op.decl.check is None
    ):
        return _structured_maker(_structured_source(op))(op)
    if (
        not inplace
        and op.frontend is unstructured_unchecked
        and op.tensor_pos == (0,)
        and op.list_pos == (1,)
    ):
        args = "".join(f", a{i}" for i in range(2, n))
        rg = _rg("v") + " and (_gm.enabled or _dual.on)"
        return _structured_maker(_KERNEL_TENSOR_LIST.format(args=args, rg=rg))(op)
    if not inplace and op.list_pos == (0,) and not op.tensor_pos:
        args = "".join(f", a{i}" for i in range(1, n))
        rg = _rg("v") + " and (_gm.enabled or _dual.on)"
        if (
            op.frontend is structured
            and op.result_type is None
            and op.dtypes_ok is ALL_DTYPES
            and not op.decl.values
            and op.decl.check is None
        ):
            return _structured_maker(_STRUCTURED_LIST.format(args=args, rg=rg))(op)
        if op.frontend is unstructured_unchecked:
            return _structured_maker(_KERNEL_LIST.format(args=args, rg=rg))(op)
    if (
        not inplace
        and op.frontend is reduction
        and (op.decl.parsed.one_tensor or op.decl.pos.result_names)
    ):
        return _maker(
            "reduction", False, n, tpos=op.decl.pos.dtype, results=op.decl.pos.result_names
        )(op)
    if (
        not inplace
        and op.frontend is unstructured_unchecked
        and op.tensor_pos == (0,)
        and not op.list_pos
    ):
        return _maker("kernel", False, n, op.decl.parsed.one_tensor)(op)
    return None
