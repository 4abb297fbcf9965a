"""Lanes: one operator's entry for the calls that need nothing of the call path but the kernel.

A plain call -- every tensor argument a ``Tensor`` (not a subclass, which may carry behaviour
of its own) on one device and layout, none requiring grad, no autocast region, no ``out=`` --
needs no argument scan, no autograd step and none of the general frontend's promotion or
broadcasting. Its operator's lane does in one frame what ``call`` and the operator's fast
frontend would do for it: look up the kernel, allocate the result, run the kernel, and name
an error as ``call`` names it. For any other call the lane returns None, and the compiled API
function (``ops/_api.py``) goes on to ``call``.

Lanes exist for the operators whose frontend has a fast path (``ops/frontends.bind``): the
pointwise operators with a fast unary or binary frontend, and the operators of the unchecked
unstructured frontend (the views, most composites). Each is compiled for its operator's
number of parameters, so that the API function calls it, and it calls the kernel, with plain
positional arguments (a ``*args`` call is several times dearer than the rest of a lane).
``tests/test_fast_frontends.py`` runs every sample through the lane and through ``call`` and
compares the results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import dtypes as dt
from .._scalars import FAST_FLOAT, FAST_INT
from .._tensor import _CONTIG, Tensor
from ..dispatch import DirectKernel
from . import _call
from ._validate import STANDARD, TRANSLATED, name_error, translate_error
from .frontends import _ALLOC, pointwise_binary, pointwise_unary, unstructured_unchecked

if TYPE_CHECKING:
    from ..dispatch import Op

__all__ = ["lane"]

# A binary pointwise operator: two tensors of one dtype, shape, device and layout, or a
# tensor and a Python number its kernel takes unconverted (``pointwise_binary``'s fast path
# without its conversions), and at most one more parameter (``alpha``, ``rounding_mode``).
# ``t`` is the tensor operand, ``s`` the other one; the kernel gets them in call order.
_BINARY = """
def make(op):
    table, fast_dtypes, res, extra = op.table, op.fast_dtypes, op.fast_result, op.fast_extra
    scalars, check, name = op.scalars, op.decl.check, op.name

    def binary_lane(x, y{more}):
        t = x
        s = y
        if t.__class__ is not Tensor:{swap}
        if {refuse}:
            return None
        d = t._dtype
        if d not in fast_dtypes:
            return None{extra_check}
        dev = t._device
        lay = t._layout
        cls = s.__class__
        if cls is Tensor:
            if (
                s._dtype is not d
                or s._shape != t._shape
                or s._device is not dev
                or s._layout is not lay
                or s._requires_grad
            ):
                return None
        elif cls is float:
            if d._category < _FLOATING or d not in _FAST_FLOAT or res is not None:
                return None
        elif cls is int:
            r = _FAST_INT.get(d)
            if r is None or not r[0] <= s <= r[1] or res is not None:
                return None
        else:
            return None
        if cls is not Tensor and cls not in scalars:
            return None
        kernel = table.get((dev.type, lay.name))
        if kernel is None or kernel.__class__ is _DirectKernel:
            return None{finish}

    return binary_lane
"""
_EXTRA_CHECK = """
        c = e.__class__
        if c not in extra or (c is float and d._category < _FLOATING):
            return None"""

# A unary pointwise operator whose result has its input's dtype (``pointwise_unary``).
_UNARY = """
def make(op):
    table, fast_dtypes, name = op.table, op.fast_dtypes, op.name
    check = None

    def unary_lane(x{more}):
        t = x
        if t.__class__ is not Tensor or {refuse} or t._dtype not in fast_dtypes:
            return None
        d = t._dtype
        dev = t._device
        kernel = table.get((dev.type, t._layout.name))
        if kernel is None or kernel.__class__ is _DirectKernel:
            return None{finish}

    return unary_lane
"""

# What refuses a call, out of place and in place: a tensor that requires grad (the autograd
# step records it); an autocast region (out of place: it may cast the arguments); a tensor
# with history or a mutation check on (in place: the autograd step and the debug check
# see it), a result dtype other than self's (bool comparisons in place convert), a self
# whose elements overlap (``call_inplace`` refuses it).
_REFUSE = "_call._autocast is not None or t._requires_grad"
_REFUSE_INPLACE = (
    "t._requires_grad or t._grad_fn is not None or {res}"
    "((mc := _call._mutation_check) is not None and mc.on) or 0 in t._stride"
)

# The kernel's run in every lane: ``call``'s naming of an error raised inside the operator.
_GUARDED = """
        try:
            {run}
        except _STANDARD as exc:
            _name_error(exc, name)
            raise
        except _TRANSLATED as exc:
            raise _translate_error(exc, name) from exc"""
_CHECKED = "if check is not None:\n                check(x{args})\n            "
# The end of an out-of-place lane: a result like the tensor operand (contiguous ones only;
# ``pointwise`` lays out the others), the declared check, the kernel.
_FINISH = (
    """
        shape = t._shape
        alloc = _ALLOC.get(dev._key)
        if alloc is None or (len(shape) > 1 and t._stride is not _CONTIG.get(shape)):
            return None"""
    + _GUARDED.format(
        run=_CHECKED + "o = alloc(shape, {dtype}, dev)\n            kernel(o, x{args})"
    )
    + "\n        return o"
)
# The end of an in-place lane: the kernel writes into self, whose version moves.
_FINISH_INPLACE = (
    _GUARDED.format(run=_CHECKED + "kernel(x, x{args})")
    + "\n        x._bump_version()\n        return x"
)

# An operator of the unchecked unstructured frontend: its kernel makes the result.
_KERNEL = (
    """
def make(op):
    table, name = op.table, op.name

    def kernel_lane(x{more}):
        if x.__class__ is not Tensor or _call._autocast is not None or x._requires_grad:
            return None
        kernel = table.get((x._device.type, x._layout.name))
        if kernel is None:
            return None"""
    + _GUARDED.format(run="return kernel(x{more})")
    + """

    return kernel_lane
"""
)

_NAMESPACE: dict[str, Any] = {
    "Tensor": Tensor,
    "_call": _call,
    "_ALLOC": _ALLOC,
    "_CONTIG": _CONTIG,
    "_DirectKernel": DirectKernel,
    "_FAST_FLOAT": FAST_FLOAT,
    "_FAST_INT": FAST_INT,
    "_FLOATING": dt.FLOATING,
    "_STANDARD": STANDARD,
    "_TRANSLATED": TRANSLATED,
    "_name_error": name_error,
    "_translate_error": translate_error,
}
# (kind, in place, number of parameters) -> the factory of that kind's lanes
_MAKERS: dict[tuple[str, bool, int], Callable[[Op], Callable[..., Any]]] = {}


def _maker(kind: str, inplace: bool, n: int) -> Callable[[Op], Callable[..., Any]]:
    hit = _MAKERS.get((kind, inplace, n))
    if hit is None:
        if kind == "kernel":
            src = _KERNEL.format(more="".join(f", a{i}" for i in range(1, n)))
        else:
            binary = kind == "binary"
            more = (", e" if n == 3 else "") if binary else "".join(f", a{i}" for i in range(1, n))
            args = (", y" if binary else "") + more
            src = (_BINARY if binary else _UNARY).format(
                more=more,
                extra_check=_EXTRA_CHECK if binary and n == 3 else "",
                swap=(
                    "\n            return None"
                    if inplace
                    else "\n            t = y\n            s = x\n"
                    "            if t.__class__ is not Tensor:\n                return None"
                ),
                refuse=(
                    _REFUSE_INPLACE.format(res="res is not None or " if binary else "")
                    if inplace
                    else _REFUSE
                ),
                finish=(
                    _FINISH_INPLACE.format(args=args)
                    if inplace
                    else _FINISH.format(args=args, dtype="res or d" if binary else "d")
                ),
            )
        ns: dict[str, Any] = dict(_NAMESPACE)
        where = f"<tensorcore {kind} lane{'_' if inplace else ''}/{n}>"
        exec(compile(src, where, "exec"), ns)
        hit = _MAKERS[(kind, inplace, n)] = ns["make"]
    return hit


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
    >>> add(tc.ones(2), tc.ones(3), 1) is None  # broadcasting: left to the call path
    True
    """
    n = len(op.decl.parsed.params)
    if op.frontend is pointwise_binary and n <= 3:
        return _maker("binary", inplace, n)(op)
    if op.frontend is pointwise_unary:
        return _maker("unary", inplace, n)(op)
    if (
        not inplace
        and op.frontend is unstructured_unchecked
        and op.tensor_pos == (0,)
        and not op.list_pos
    ):
        return _maker("kernel", False, n)(op)
    return None
