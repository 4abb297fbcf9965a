"""The pointwise lanes (``ops/_lanes.py``): the source of the binary and unary operators'
lanes, and what those lanes call -- the conversion of a Python number, the cast of two
operands of different dtypes, the lookup of a dtype, device and layout met before."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import dtypes as dt
from .._tensor import _CONTIG, Tensor, row_major
from ..autograd import grad_mode
from ..dispatch import FRESH, DirectKernel, get_op
from ._lane_parts import _CHECKED, _REFUSE, _REFUSE_INPLACE, _guarded, _rg, _run
from ._validate import STANDARD
from .frontends import _ALLOC, _convert_scalar_at, _pointwise_dtypes

if TYPE_CHECKING:
    from ..dispatch import Op

__all__ = ["in_order", "pointwise_source"]

# A binary pointwise operator: two tensors of one dtype, device and layout (and, in place, one
# shape), or a tensor and a Python number its kernel takes unconverted (``pointwise_binary``'s
# fast paths without their conversions), and at most one more parameter (``alpha``,
# ``rounding_mode``).
# ``t`` is the tensor operand, ``s`` the other one; the kernel gets them in call order.
_BINARY = """
def make(op):
    res, extra, keyed = op.fast_result, op.fast_extra, op.lane_keys
    scalars, check, name, autograd = op.scalars, op.decl.check, op.name, op.autograd

    def binary_lane(x, y{more}):
        t = x
        s = y
        if t.__class__ is not Tensor:{swap}
        if {refuse}:
            return None
        d = t._dtype
        dev = t._device
        lay = t._layout{known}{extra_check}
        cls = s.__class__
        if cls is Tensor:
            if s._dtype is not d:{mixed}
            if s._device is not dev or s._layout is not lay{same_shape}:
                return None
        elif cls is float:
            if d._category < _FLOATING:{mixed}
            if d not in _FAST_FLOAT or res is not None:{convert}
        elif cls is int:
            r = _FAST_INT.get(d)
            if r is None or not r[0] <= s <= r[1] or res is not None:
                if d._category < _INTEGRAL:
                    return None{convert}
        else:
            return None
        if cls is not Tensor and cls not in scalars:
            return None{finish}

    return binary_lane
"""
# A pointwise lane's checks of its tensor's dtype, device and layout -- a dtype it takes, a
# kernel resolved for the device and layout that is no direct one -- and their results (the
# kernel, its fresh variant, the allocator): one lookup in ``Op.lane_keys`` for a combination
# met before, ``_lane_key`` (the plain path, which fills it) otherwise. About a tenth of a
# small ``a + b``. Safe because the entry holds what the plain path reads from ``table``,
# ``FRESH`` and ``_ALLOC`` and is emptied with them (``Op.forget_resolved``,
# ``frontends.forget_allocators``); ``tests/test_fast_frontends.py`` compares the two.
_KNOWN = """
        hit = keyed.get((d, dev._key, lay))
        if hit is None:
            hit = _lane_key(op, d, dev, lay)
            if hit is None:
                return None
        kernel, fk, alloc = hit"""

# A number the kernel does not take as it is (for a bool result, a 16-bit float, an int the
# dtype does not hold): converted as ``pointwise_binary`` converts it (``_lane_scalar``).
_CONVERT = """
                v = _lane_scalar(op, x, y, d)
                if v is None:
                    return None
                if t is x:
                    y = v
                else:
                    x = v"""
# The converted scalars of recent calls, by (operator, scalar first, class, value, dtype): a
# conversion costs a microsecond or two (``x > 0.5``, ``x == 1``), a lookup a tenth of one.
_LANE_SCALARS: dict[tuple[Any, ...], Any] = {}


def _lane_scalar(op: Op, x: Any, y: Any, d: Any) -> Any:
    """The Python number among ``x`` and ``y`` (the other is a tensor of dtype ``d``)
    converted for ``op``'s kernel as ``pointwise_binary`` converts it
    (``frontends._convert_scalar_at``), or None where the lane leaves the call to the call
    path: an operator with a declared check (which sees the number as given), a number the
    conversion refuses (the call path raises the error)."""
    first = x.__class__ is not Tensor
    v = x if first else y
    cls = v.__class__
    key = (op, first, cls, v, d)
    hit = _LANE_SCALARS.get(key)
    if hit is not None:
        return hit
    if op.decl.check is not None:
        return None
    try:
        hit = _convert_scalar_at(op, (x, y), -1, d)[0 if first else 1]
    except STANDARD:
        return None
    if cls is int or (v == v and v != 0.0):  # (NaN is never found again; 0.0 == -0.0)
        if len(_LANE_SCALARS) >= 1024:
            _LANE_SCALARS.clear()
        _LANE_SCALARS[key] = hit
    return hit


_EXTRA_CHECK = """
        c = e.__class__
        if c not in extra or (c is float and d._category < _FLOATING):
            return None"""

# A unary pointwise operator whose result has its input's dtype, or bool (``fast_result``:
# ``isnan``; ``pointwise_unary``); its declared check (``gelu``'s ``approximate``) runs in
# ``_FINISH`` on the arguments as given.
_UNARY = """
def make(op):
    name, autograd, keyed = op.name, op.autograd, op.lane_keys
    check, res = op.decl.check, op.fast_result

    def unary_lane(x{more}):
        t = x
        if t.__class__ is not Tensor or {refuse}:
            return None
        d = t._dtype
        dev = t._device
        lay = t._layout{known}{finish}

    return unary_lane
"""


# Two tensors of different dtypes (``x * mask``, ``floats + ints``), or an integer or bool
# tensor and a float (``ints * 0.5``): the declared check on
# the arguments as given, a cast to the call's compute dtype (``frontends._pointwise_dtypes``,
# the call path's own), then the lane again, now with one dtype. Out of place, for an
# operator whose parameters all promote, where no operand requires grad (the autograd step
# records such a call as one node of the uncast operands).
_MIXED = """
                return _mixed(op, binary_lane, x, y{more})"""
_TO_DTYPE: list[Any] = []  # (``to_dtype``'s operator, looked up on first use)
_gm_state, _dual_state = grad_mode._state, grad_mode.dual
# (operator, dtypes, 0-d or not, default dtype, the other arguments) -> the compute dtype
_MIXED_DTYPES: dict[tuple[Any, ...], Any] = {}


def _mixed(op: Op, again: Callable[..., Any], x: Any, y: Any, *more: Any) -> Any:
    """A binary lane's call on two tensors of different dtypes, or on an integer or bool
    tensor and a float, or None (the call path's)."""
    if op.decl.promote_args:
        return None
    tx, ty = x.__class__ is Tensor, y.__class__ is Tensor
    if tx and ty and (x._device is not y._device or x._layout is not y._layout):
        return None
    if ((tx and x._requires_grad) or (ty and y._requires_grad)) and (
        _gm_state.enabled or _dual_state.on
    ):
        return None
    key = (
        op,
        x._dtype if tx else x.__class__,
        y._dtype if ty else y.__class__,
        tx and not x._shape,
        ty and not y._shape,
        dt._default_dtype,  # (an integer tensor and a float: the default dtype)
        *more,
    )
    try:
        compute = _MIXED_DTYPES.get(key)
    except TypeError:  # (an unhashable argument)
        return None
    if compute is None:
        try:
            compute = _pointwise_dtypes(op, (x, y, *more))[0]
        except STANDARD:  # (the call path raises it, naming the operator)
            return None
        if compute not in op.dtypes_ok or (
            compute._category < dt.FLOATING and not (tx and ty)
        ):  # (a float operand always makes a floating compute dtype: else no second lane)
            return None
        if len(_MIXED_DTYPES) >= 4096:
            _MIXED_DTYPES.clear()
        _MIXED_DTYPES[key] = compute
    check = op.decl.check
    if check is not None:  # (on the arguments as given, as the call path checks them)
        try:
            check(x, y, *more)
        except STANDARD:
            return None
    if tx:
        x = _cast(x, compute)
    if ty:
        y = _cast(y, compute)
    if x is None or y is None:
        return None
    return again(x, y, *more)


def _cast(t: Tensor, d: Any) -> Tensor | None:
    """``t`` converted to dtype ``d`` (itself when it has it) for a kernel's operand, or None
    where ``to_dtype``'s lane does not take it. A contiguous ``t`` gets a contiguous copy
    from the allocator and the kernel directly (the lane's meta function and layout
    choice would give the same)."""
    if t._dtype is d:
        return t
    if not _TO_DTYPE:
        _TO_DTYPE.append(get_op("to_dtype"))
    op = _TO_DTYPE[0]
    dev = t._device
    if t._stride is _CONTIG.get(t._shape) or row_major(t):
        kernel = op.table.get((dev.type, t._layout.name))
        alloc = _ALLOC.get(dev._key)
        if kernel is not None and alloc is not None and kernel.__class__ is not DirectKernel:
            o = alloc(t._shape, d, dev)
            kernel(o, t, d)
            return o
    return op.lane(t, d)


def _lane_key(op: Op, d: Any, dev: Any, lay: Any) -> tuple[Any, Any, Any] | None:
    """``_KNOWN``'s plain path: ``(kernel, fresh variant or None, allocator or None)`` for a
    pointwise lane of ``op`` on a tensor of dtype ``d`` on ``dev`` in layout ``lay``, or None
    where the lane does not take it (a dtype it leaves to the frontend, no kernel resolved
    yet, a direct kernel). Remembered in ``op.lane_keys`` once the device has an allocator."""
    if d not in op.fast_dtypes:
        return None
    kernel = op.table.get((dev.type, lay.name))
    if kernel is None or kernel.__class__ is DirectKernel:
        return None
    hit = (kernel, FRESH.get(kernel), _ALLOC.get(dev._key))
    if hit[2] is not None:  # (else the call path makes one, and this is asked again)
        op.lane_keys[d, dev._key, lay] = hit
    return hit


# A binary lane's declared check, then (operands of two shapes) the broadcast shape, or
# ``pointwise``'s error, before anything is allocated; the result is laid out like the
# operand of its shape, or contiguous where both operands broadcast. A non-contiguous
# operand leaves the layout to ``pointwise`` (every operand has a say there, as in
# TensorIterator): it stands in as ``like``, which ``_FINISH`` gives up on.
_BROADCAST = _guarded(
    _CHECKED
    + "if cls is Tensor and s._shape != shape:\n"
    + "    shape = _broadcast(shape, s._shape)\n"
    + "    like = t if t._shape == shape else s if s._shape == shape else None\n"
    + "    if t._stride is not _CONTIG.get(t._shape) and not _row_major(t):\n"
    + "        like = t\n"
    + "    elif s._stride is not _CONTIG.get(s._shape) and not _row_major(s):\n"
    + "        like = s",
    8,
)
# What sets a pointwise result's layout, ``like``, in row-major order: the result is then
# contiguous, as TensorIterator lays it out (the first operand whose strides order two dims
# decides): a row-major tensor (``_tensor.row_major``), or one whose dims are in row-major
# order with gaps or overlaps between them -- each stride above the next, no dim of size 1 to
# leave an order open -- the pieces of ``chunk(4, 1)`` (an LSTM's gates), a slice of columns.
# (shape, strides) -> the answer for the second kind.
_ORDERED: dict[tuple[tuple[int, ...], tuple[int, ...]], bool] = {}


def in_order(like: Tensor, shape: tuple[int, ...]) -> bool:
    """Whether a pointwise result of ``shape`` laid out after ``like`` is contiguous (see
    above); False for a ``like`` of another shape (a broadcast operand)."""
    if like._shape != shape:
        return False
    if row_major(like):
        return True
    st = like._stride
    key = (shape, st)
    hit = _ORDERED.get(key)
    if hit is None:
        hit = min(shape) > 1 and st[-1] > 0 and all(st[i] > st[i + 1] for i in range(len(st) - 1))
        if len(_ORDERED) >= 1024:
            _ORDERED.clear()
        _ORDERED[key] = hit
    return hit


# The end of an out-of-place pointwise lane: a result like ``like`` (laid out in row-major
# order only; ``pointwise`` lays out the others), the kernel. A kernel with a ``fresh`` variant
# (``dispatch.FRESH``, ``fk`` from ``_KNOWN``) makes the result itself where it takes the
# call (a small one): the allocation and the computation are then one array-library call
# instead of two, which is a fifth of a small call. Safe because the variant returns what
# the two steps would (a new contiguous tensor of this shape and dtype, the kernel's values)
# or None, and this is its one caller; ``tests/test_fast_frontends.py`` compares it with
# the kernel on every sample.
_FINISH = """
        shape = t._shape
        like = t{prepare}
        if alloc is None or (
            len(shape) > 1
            and like is not None
            and like._stride is not _CONTIG.get(shape)
            and not _in_order(like, shape)
        ):
            return None""" + _run(
    "o = None if fk is None else fk(shape, {dtype}, x{args})\n"
    "if o is None:\n"
    "    o = alloc(shape, {dtype}, dev)\n"
    "    kernel(o, x{args})"
).replace("{single}", "").replace("{composite}", "")
# The end of an in-place lane: the kernel writes into self, whose version moves.
_FINISH_INPLACE = (
    """
        if {s_rg}:
            return None  # (an operand that requires grad: the autograd step records it)"""
    + _guarded(_CHECKED + "kernel(x, x{args})", 8)
    + """
        x._bump_version()
        return x"""
)


def pointwise_source(kind: str, inplace: bool, n: int) -> str:
    """The source of a binary (``kind`` "binary") or unary pointwise lane of ``n``
    parameters (in place with ``inplace``)."""
    binary = kind == "binary"
    more = (", e" if n == 3 else "") if binary else "".join(f", a{i}" for i in range(1, n))
    args = (", y" if binary else "") + more
    src = (_BINARY if binary else _UNARY).format(
        more=more,
        known=_KNOWN,
        extra_check=_EXTRA_CHECK if binary and n == 3 else "",
        same_shape=" or s._shape != t._shape" if inplace else "",
        mixed="\n                return None" if inplace else _MIXED.format(more=more),
        convert=_CONVERT,
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
            _FINISH_INPLACE.format(
                args=args, s_rg=f"cls is Tensor and {_rg('s')}" if binary else "False"
            )
            if inplace
            else _FINISH.format(
                args=args,
                prepare=(
                    _BROADCAST.format(args=args)
                    if binary
                    else _guarded(_CHECKED.format(args=args), 8)
                ),
                dtype="res or d",
                rg=f"{_rg('t')} or (cls is Tensor and {_rg('s')})" if binary else _rg("t"),
            )
        ),
    )
    return src
