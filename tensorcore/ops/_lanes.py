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
from .._tensor import _CONTIG, Tensor, adopt_base_grad
from ..autograd import grad_mode
from ..devices import device, get_default_device
from ..dispatch import ALL_DTYPES, FRESH, DirectKernel, get_op
from ..overrides import overrides
from . import _call
from ._validate import STANDARD, TRANSLATED, name_error, translate_error
from .frontends import (
    _ALLOC,
    _REDUCED,
    _alloc_many,
    _convert_scalar_at,
    _pointwise_dtypes,
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


def _rg(t: str) -> str:
    """The lane's test that tensor ``t`` requires grad: its flag, or, for a view, its base's
    (a view made before its base joined the graph takes the flag on here,
    ``_tensor.adopt_base_grad``, as ``call`` does)."""
    return (
        f"({t}._requires_grad or "
        f"((b_ := {t}._base) is not None and b_._requires_grad and _adopt({t})))"
    )


# What refuses a call: out of place, an autocast region (it may cast the arguments); in place,
# a tensor that requires grad or has history or a mutation check on (the autograd step and
# the debug check see it), a result dtype other than self's (bool comparisons in place
# convert), a self whose elements overlap (``call_inplace`` refuses it).
_REFUSE = "_call._autocast is not None"
_REFUSE_INPLACE = (
    _rg("t") + " or t._grad_fn is not None or {res}"
    "((mc := _call._mutation_check) is not None and mc.on) or 0 in t._stride"
)


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
    if t._stride is _CONTIG.get(t._shape):
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


def _guarded(body: str, indent: int, cleanup: str = "") -> str:
    """Lane source: ``body`` in a ``try`` whose except clauses name an error raised inside the
    operator as ``call`` names it (and a ``finally`` running ``cleanup``), ``indent`` deep."""
    pad = " " * indent
    lines = [f"{pad}try:", *(f"{pad}    {line}" for line in body.split("\n"))]
    lines += [
        f"{pad}except _STANDARD as exc:",
        f"{pad}    _name_error(exc, name)",
        f"{pad}    raise",
        f"{pad}except _TRANSLATED as exc:",
        f"{pad}    raise _translate_error(exc, name) from exc",
    ]
    if cleanup:
        lines += [f"{pad}finally:", *(f"{pad}    {line}" for line in cleanup.split("\n"))]
    return "\n" + "\n".join(lines)


# The kernel's run out of place, recording the call where an input requires grad and grad
# mode is on, as the autograd step does: the kernel with recording off, then the node (from
# the entry the step made at the operator's first recorded call on this key; none yet, or an
# operator the step does not record, such as a composite, leaves the call to the call path).
def _run(body: str) -> str:
    """The source above around the kernel call ``body``."""
    return (
        """
        rec = None
        if ({rg}) and (_gm.enabled or _dual.on):
            if _dual.on:
                return None  # (a dual level is open: the step computes tangents)
            ent = autograd.get((dev.type, t._layout.name))
            if ent is None:
                return None
            rec = ent.record
            if rec is None:{composite}
                return None{single}
            _gm.enabled = False"""
        + _guarded(body, 8, cleanup="if rec is not None:\n    _gm.enabled = True")
        + """
        if rec is not None:
            a = (x{args},)
            node = rec(a, (o,), a)
            if o._dtype._category >= _FLOATING:
                o._requires_grad = True
                o._grad_fn = node
        return o"""
    )


_CHECKED = "if check is not None:\n    check(x{args})\n"
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
    + "    if t._stride is not _CONTIG.get(t._shape):\n"
    + "        like = t\n"
    + "    elif s._stride is not _CONTIG.get(s._shape):\n"
    + "        like = s",
    8,
)
# The end of an out-of-place pointwise lane: a result like ``like`` (contiguous ones only;
# ``pointwise`` lays out the others), the kernel. A kernel with a ``fresh`` variant
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
            len(shape) > 1 and like is not None and like._stride is not _CONTIG.get(shape)
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

# A composite the autograd step differentiates through its parts: its core definition, as
# the step runs it (the parts record themselves); a composite without one (a plugin's) takes
# the call path.
_COMPOSITE = """
                comp = ent.composite
                if comp:""" + _guarded("return comp(x{args})", 20)

# An operator of the unchecked unstructured frontend: its kernel makes the result (one
# tensor, or several that only the call path records).
_KERNEL = (
    """
def make(op):
    table, name = op.table, op.name
    autograd = op.autograd

    def kernel_lane(x{args}):
        t = x
        if t.__class__ is not Tensor or _call._autocast is not None:
            return None
        dev = t._device
        kernel = table.get((dev.type, t._layout.name))
        if kernel is None:
            return None"""
    + _run("o = kernel(x{args})").replace("{rg}", _rg("t")).replace("{composite}", _COMPOSITE)
    + """

    return kernel_lane
"""
)


def _alloc_specs(op: Op, specs: Any, alloc: Any, dev: Any) -> tuple[Any, ...]:
    """``frontends._alloc_many(op, None, specs, dev)`` with the device's allocator ``alloc``:
    the common two row-major outputs (values and indices) allocated directly, without the
    generator and the allocator's lookup per output."""
    if len(specs) == 2:
        a, b = specs
        if a is not None and b is not None and len(a) == 2 and len(b) == 2:
            return (alloc(a[0], a[1], dev), alloc(b[0], b[1], dev))
    return _alloc_many(op, None, specs, dev)


# A reduction: what ``reduction`` prepares from the arguments (the kernel's
# arguments after ``self``, the result's shape and dtype) depends on nothing but self's shape
# and dtype and the other arguments, so it is kept per operator under those (hashable ones:
# an unhashable ``dim`` list takes the call path). A call the preparation refuses takes the
# call path, which raises its error; a result dtype that depends on the default dtype (an
# integer mean) is prepared on every call.
_REDUCTION = (
    """
def make(op):
    table, name, autograd = op.table, op.name, op.autograd
    policy = op.decl.promote
    cache = {{}}

    def reduction_lane(x{args}):
        t = x
        if t.__class__ is not Tensor or _call._autocast is not None:
            return None
        dev = t._device
        kernel = table.get((dev.type, t._layout.name))
        if kernel is None or kernel.__class__ is _DirectKernel:
            return None
        key = (t._shape, t._dtype{args})
        try:
            hit = cache.get(key)
        except TypeError:  # (an unhashable argument)
            return None
        if hit is None:
            try:
                prepared, shape, res = _prepare_reduction(op, (x{args}))
            except Exception:
                return None
            hit = (prepared[1:], shape, res)
            if _REDUCED.get((policy, t._dtype, {given})) is res:
                if len(cache) >= 512:
                    cache.clear()
                cache[key] = hit
        tail, shape, res = hit
        alloc = _ALLOC.get(dev._key)
        if alloc is None:
            return None"""
    + _run("{alloc}\nkernel(o, x, *tail)")
    .replace("{rg}", _rg("t"))
    .replace("{composite}", "")
    .replace("{single}", "")
    # (edges from the caller's arguments, saved values from the prepared ones)
    .replace("node = rec(a, (o,), a)", "node = rec(a, (o,), (x, *tail))")
    + """

    return reduction_lane
"""
)
# A reduction of several results (``max_dim``, ``min_dim``: values and indices): one output
# per result as ``reduction`` allocates them (the result dtype, int64 for ``indices``) in the
# operator's named tuple (``_reduction_many``); each floating result recorded as the node's
# output of its position by the autograd step's ``record_outputs``, as the structured lanes
# of several results record theirs.
_REDUCTION_RECORD_ONE = """
            node = rec(a, (o,), (x, *tail))
            if o._dtype._category >= _FLOATING:
                o._requires_grad = True
                o._grad_fn = node
        return o"""
assert _REDUCTION_RECORD_ONE in _REDUCTION
_REDUCTION_RECORD_MANY = """
            ent.record_outputs(a, o, (x, *tail))
        return o"""


def _reduction_source(n: int, tpos: int, results: tuple[str, ...]) -> str:
    """``_REDUCTION`` for ``n`` parameters (``dtype`` at ``tpos``) and the named ``results``
    (none: one result)."""
    src = _REDUCTION.format(
        args="".join(f", a{i}" for i in range(1, n)),
        given=f"a{tpos}" if tpos > 0 else "None",
        alloc=(
            "o = _make(("
            + "".join(
                f"alloc(shape, {'_int64' if r == 'indices' else 'res'}, dev), " for r in results
            )
            + "))"
            if results
            else "o = alloc(shape, res, dev)"
        ),
    )
    if results:
        src = src.replace(
            "    table, name,", "    _make = op.result_type._make\n    table, name,", 1
        )
        src = src.replace(_REDUCTION_RECORD_ONE, _REDUCTION_RECORD_MANY)
    return src


# A structured operator with one result and no tensor lists: its tensors (None where the
# parameter is optional) on one device and layout, a dtype it declares; the meta function,
# the allocation and the kernel as ``structured`` runs them, without the call path around.
# Its tensors may be of a subclass: ``nn.Linear`` passes its ``Parameter``s, and the call path
# would treat them as plain tensors too (``structured`` allocates a plain result either way;
# ``tests/test_tensor_subclass.py`` runs every sample with parameters); not of one that takes
# over the call (``tensorcore.overrides``): the call path hands that to it.
def _structured_template(body: str, record: str = "") -> str:
    """A structured lane's source around ``body`` (the meta function, the allocation and
    the kernel), with ``record`` in place of the one result's recording."""
    run = (
        _run(body)
        .replace("{composite}", "")
        .replace("{single}", "")
        .replace(
            # (edges from the caller's arguments, saved values from the meta function's)
            "node = rec(a, (o,), a)",
            "node = rec(a, (o,), margs)",
        )
    )
    if record:
        assert _RECORD_ONE in run
        run = run.replace(_RECORD_ONE, record)
    return (
        """
def make(op):
    table, name, autograd, meta = op.table, op.name, op.autograd, op.meta_function
    dtypes_ok, result_type = op.dtypes_ok, op.result_type
    scalars, values = op.scalars, bool(op.decl.values)

    def structured_lane(x{args}):
        if _call._autocast is not None:
            return None
        t = {first}
        if t.__class__ is not Tensor and (not isinstance(t, Tensor) or _overrides(t.__class__)):
            return None
        dev = t._device
        lay = t._layout{others}
        kernel = table.get((dev.type, lay.name))
        if kernel is None or kernel.__class__ is _DirectKernel:
            return None{dtype_check}
        alloc = _ALLOC.get(dev._key)
        if alloc is None:
            return None"""
        + run
        + """

    return structured_lane
"""
    )


_RECORD_ONE = """
            node = rec(a, (o,), margs)
            if o._dtype._category >= _FLOATING:
                o._requires_grad = True
                o._grad_fn = node
        return o"""
_STRUCTURED = _structured_template(
    "if values:\n"
    "    _check_values(op, (x{args},), x._dtype)\n"
    "margs, spec = meta(x{args})\n"
    "if len(spec) == 3:\n"
    "    o = _empty_like_layout(spec[2], spec[0], spec[1], dev)\n"
    "else:\n"
    "    o = alloc(spec[0], spec[1], dev)\n"
    "kernel(o, *margs)"
)
# The same for a structured operator of several results (``sort``, ``topk``, ``cummax``,
# ``frexp``...): the meta function's specs allocated as ``structured`` allocates them, each
# floating result recorded as the node's output of its position by the autograd step's own
# ``record_outputs``, the results in the operator's named tuple.
_STRUCTURED_MANY = _structured_template(
    "margs, spec = meta(x{args})\no = _alloc_specs(op, spec, alloc, dev)\nkernel(o, *margs)",
    """
            ent.record_outputs(a, o, margs)
        return result_type._make(o)""",
)
# An operator whose one tensor parameter is a list: a list or tuple of plain tensors on one
# device and layout, none requiring grad (the autograd step records the others, and saves
# what its rule needs of the list), no autocast region; then, for a structured operator
# (``cat``), the meta function, the allocation and the kernel, as ``structured`` runs them,
# and for an unchecked composite (``stack``, ``hstack``...) its kernel, as ``call`` runs it.
_LIST_HEAD = """
def make(op):
    table, name, meta = op.table, op.name, op.meta_function

    def list_lane(x{args}):
        if _call._autocast is not None or (x.__class__ is not list and x.__class__ is not tuple):
            return None
        if not x:
            return None
        t = x[0]
        if t.__class__ is not Tensor:
            return None
        dev = t._device
        lay = t._layout
        for v in x:
            if v.__class__ is not Tensor or v._device is not dev or v._layout is not lay:
                return None
            if {rg}:
                return None
        kernel = table.get((dev.type, lay.name))
        if kernel is None or kernel.__class__ is _DirectKernel:
            return None
"""
_STRUCTURED_LIST = (
    _LIST_HEAD
    + """
        alloc = _ALLOC.get(dev._key)
        if alloc is None:
            return None"""
    + _guarded(
        "margs, spec = meta(x{args})\n"
        "if len(spec) == 3:\n"
        "    o = _empty_like_layout(spec[2], spec[0], spec[1], dev)\n"
        "else:\n"
        "    o = alloc(spec[0], spec[1], dev)\n"
        "kernel(o, *margs)",
        8,
    )
    + """
        return o

    return list_lane
"""
)
# An unchecked operator of a tensor and a list of optional tensors (``index``, what
# ``x[t]`` runs): all plain tensors on one device and layout, none requiring grad; then its
# kernel, as ``call`` runs it.
_KERNEL_TENSOR_LIST = (
    """
def make(op):
    table, name = op.table, op.name

    def tensor_list_lane(x, a1{args}):
        if x.__class__ is not Tensor or _call._autocast is not None:
            return None
        if a1.__class__ is not list and a1.__class__ is not tuple:
            return None
        dev = x._device
        lay = x._layout
        v = x
        if {rg}:
            return None
        for v in a1:
            if v is None:
                continue
            if v.__class__ is not Tensor or v._device is not dev or v._layout is not lay:
                return None
            if {rg}:
                return None
        kernel = table.get((dev.type, lay.name))
        if kernel is None or kernel.__class__ is _DirectKernel:
            return None"""
    + _guarded("return kernel(x, a1{args})", 8)
    + """

    return tensor_list_lane
"""
)
_KERNEL_LIST = (
    _LIST_HEAD
    + _guarded("return kernel(x{args})", 8)
    + """

    return list_lane
"""
)
# An operator that makes a tensor from no tensor: a factory (``full``, ``arange``...), whose
# frontend then runs as ``call`` would run it, or a composite (``zeros``, ``rand``...), whose
# definition runs; both on the device given (a ``device``) or the default one, without the
# call path's argument scan and device resolution.
_NO_TENSOR = (
    """
def make(op):
    table, name = op.table, op.name

    def no_tensor_lane({params}):
        d = {device}
        if d is None:
            d = _default_device()
        elif d.__class__ is not _Device:
            return None
        kernel = table.get((d.type, "strided"))
        if kernel is None:
            return None"""
    + _guarded("return {run}", 8)
    + """

    return no_tensor_lane
"""
)
# The general lanes' device, layout and kernel: the tensors' checks (``_GENERAL_TENSOR``, which
# set ``dev`` and ``lay`` from the first tensor), then the kernel of that key.
_GENERAL_KERNEL = """
        dev = lay = None{checks}
        if dev is None:
            return None
        kernel = table.get((dev.type, lay.name))
        if kernel is None:
            return None"""
# A pointwise operator of the general frontend (``where``, ``clamp``, ``lerp``, ``abs``...):
# its tensors (None where optional, a Python number where it takes one) on one device and
# layout, none requiring grad; then ``pointwise`` itself (promotion, broadcasting, checks),
# without the call path's scan.
_GENERAL = (
    """
def make(op):
    table, name, scalars = op.table, op.name, op.scalars

    def general_lane({params}):
        if _call._autocast is not None:
            return None"""
    + _GENERAL_KERNEL
    + _guarded("return {run}(op, kernel, ({params},), None, dev, False)", 8)
    + """

    return general_lane
"""
)
# What ``pointwise`` prepares for a call of contiguous tensors (their dtypes and shapes) and
# Python numbers (their types and values), under the default dtype: the result's shape and
# dtype and the numbers converted for the kernel, by (operator, that key). Nothing else
# decides them where every tensor has the compute dtype (nothing cast) and the operator has
# no ``alpha`` or passive parameter (``_general_source``); the declared check runs on
# every call. A converted float equal to the one given is passed as given (``-0.0`` and
# ``0.0`` share an entry). About half of a small ``x.clamp(-1, 1)``.
_GENERAL_KEPT: dict[tuple[Any, ...], tuple[Any, ...]] = {}


def _general_kept(
    op: Op, kernel: Any, args: tuple[Any, ...], out: Any, dev: Any, inplace: bool
) -> Any:
    """``pointwise(op, kernel, args, None, dev, inplace)`` for a lane's call (``out``
    None), through ``_GENERAL_KEPT``."""
    key: list[Any] = [op, inplace, dt._default_dtype]
    for a in args:
        cls = a.__class__
        if cls is Tensor:
            s = a._shape
            if len(s) > 1 and a._stride is not _CONTIG.get(s):
                return pointwise(op, kernel, args, None, dev, inplace)
            key.append(a._dtype)
            key.append(s)
        elif cls is float or cls is int or cls is bool or a is None:
            key.append(cls)
            key.append(a)
        else:
            return pointwise(op, kernel, args, None, dev, inplace)
    k = tuple(key)
    hit = _GENERAL_KEPT.get(k)
    alloc = _ALLOC.get(dev._key)
    if hit is None or (alloc is None and not inplace) or kernel.__class__ is DirectKernel:
        o = pointwise(op, kernel, args, None, dev, inplace)
        if kernel.__class__ is not DirectKernel:
            _general_keep(op, k, args, o, inplace)
        return o
    shape, res, conv = hit
    check = op.decl.check
    if check is not None:
        check(*args)
    if conv:
        given = list(args)
        for i, v in conv:
            if not (v.__class__ is float and v == given[i]):
                given[i] = v
        args = tuple(given)
    # (alloc is not None out of place: the test above)
    o = args[0] if inplace else alloc(shape, res, dev)  # type: ignore[misc]
    kernel(o, *args)
    return o


def _general_keep(
    op: Op, key: tuple[Any, ...], args: tuple[Any, ...], o: Any, inplace: bool
) -> None:
    """Keep what ``pointwise`` prepared for ``args`` (which gave ``o``) under ``key``, where
    the entry holds all it did: a contiguous result (in place: ``self``, of the result's
    dtype), every tensor in the compute dtype."""
    if o.__class__ is not Tensor or (
        not inplace and len(o._shape) > 1 and o._stride is not _CONTIG.get(o._shape)
    ):
        return
    compute, res = _pointwise_dtypes(op, args)
    if (inplace and o is not args[0]) or res is not o._dtype:
        return
    conv = []
    for i in op.decl.pos.promote:
        a = args[i]
        if a.__class__ is Tensor:
            if a._dtype is not compute:
                return
        elif a is not None:
            conv.append((i, _convert_scalar_at(op, args, i, compute)[i]))
    if len(_GENERAL_KEPT) >= 4096:
        _GENERAL_KEPT.clear()
    _GENERAL_KEPT[key] = (o._shape, res, tuple(conv))


# The in-place call of such an operator (``x.clamp_(-1, 1)``): a ``self`` without history
# that does not require grad (no mutation check on, no overlapping elements), the other
# tensors as above; then ``pointwise`` in place, and the version moves, as ``call_inplace``
# runs it (whose name, ``clamp_``, the errors take).
_GENERAL_INPLACE = (
    """
def make(op):
    table, name, scalars = op.table, op.name + "_", op.scalars

    def general_lane_({params}):
        t = a0
        if t.__class__ is not Tensor or """
    + _REFUSE_INPLACE.format(res="")
    + """:
            return None"""
    + _GENERAL_KERNEL
    + _guarded("{run}(op, kernel, ({params},), None, dev, True)", 8)
    + """
        t._bump_version()
        return t

    return general_lane_
"""
)
_GENERAL_TENSOR = """
        v = {v}
        if v.__class__ is Tensor:
            if {rg_v}:
                return None
            if dev is None:
                dev, lay = v._device, v._layout
            elif v._device is not dev or v._layout is not lay:
                return None
        elif {refuse}:
            return None"""


def _general_source(op: Op, inplace: bool = False) -> str:
    """``_GENERAL`` (``_GENERAL_INPLACE``) for ``op``'s tensor parameters (which take
    numbers, which may be None)."""
    params = op.decl.parsed.params
    takes = op.decl.scalar_params
    refusals = []
    for i in op.tensor_pos:
        ok = []
        if params[i].type.endswith("?"):
            ok.append("v is None")
        if params[i].name in takes:
            ok.append("v.__class__ in scalars")
        refusals.append("not (" + " or ".join(ok) + ")" if ok else "True")
    checks = "".join(
        _GENERAL_TENSOR.format(v=f"a{i}", refuse=refuse, rg_v=_rg("v"))
        for i, refuse in zip(op.tensor_pos, refusals, strict=True)
    )
    kept = op.decl.pos.alpha < 0 and not op.decl.promote_args
    return (_GENERAL_INPLACE if inplace else _GENERAL).format(
        params=", ".join(f"a{i}" for i in range(len(params))),
        checks=checks,
        run="_general_kept" if kept else "_pointwise",
    )


_OTHER_TENSOR = """
        v = {v}
        if v.__class__ is Tensor or (isinstance(v, Tensor) and not _overrides(v.__class__)):
            if v._device is not dev or v._layout is not lay:
                return None
        elif {refuse_none}:
            return None"""


def _structured_source(op: Op) -> str:
    """``_STRUCTURED`` (``_STRUCTURED_MANY`` for several results) for ``op``'s tensor
    parameters (a Python number where one takes it: ``scatter``'s ``src``, ``masked_fill``'s
    ``value``, checked against self's dtype where declared, as ``structured`` checks it) and
    dtype rule."""
    params = op.decl.parsed.params
    names = ["x", *(f"a{i}" for i in range(1, len(params)))]
    first, *others = op.tensor_pos
    takes = op.decl.scalar_params

    def refusal(i: int) -> str:
        ok = ["v is None"] if params[i].type == "Tensor?" else []
        if params[i].name in takes:
            ok.append("v.__class__ in scalars")
        return "not (" + " or ".join(ok) + ")" if ok else "True"

    checks = "".join(_OTHER_TENSOR.format(v=names[i], refuse_none=refusal(i)) for i in others)
    tpos = op.decl.pos.dtype
    dtype_check = ""
    if op.dtypes_ok is not ALL_DTYPES:
        given = f"{names[tpos]} if {names[tpos]} is not None else " if tpos >= 0 else ""
        # (a dtype it does not declare: the call path raises the error)
        dtype_check = f"\n        if ({given}t._dtype) not in dtypes_ok:\n            return None"
    rg = " or ".join(
        _rg(names[i])
        if i == first
        else f"({names[i]} is not None and {names[i]}.__class__ not in scalars and {_rg(names[i])})"
        for i in op.tensor_pos
    )
    return (_STRUCTURED if op.result_type is None else _STRUCTURED_MANY).format(
        args="".join(f", {n}" for n in names[1:]),
        first=names[first],
        others=checks,
        dtype_check=dtype_check,
        rg=rg,
    )


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
            src = _KERNEL.format(
                args="".join(f", a{i}" for i in range(1, n)),
                single="" if single else "\n            return None",
            )
        else:
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


# A factory (``empty``, ``full``, ``eye``...): what its meta function makes of the arguments
# (the result's shape and dtype) depends on nothing but them, the device and the default
# dtype, so it is kept per operator under those (in ``Op.lane_keys``, emptied with the
# kernels and allocators it holds, as the pointwise lanes' entries are). A Python number
# is keyed with its type (``full(s, True)`` is bool, ``full(s, 1)`` int64); its value is
# keyed too, for the checks the meta function runs on it, but the kernel always gets the
# call's own arguments (0.0 and -0.0 share an entry) or, where no argument is a float, the
# meta function's (``frontends._remember`` fills the entry, for a row-major result only); an
# unhashable argument takes the plain path.
_FACTORY = (
    """
def make(op):
    table, name, keyed = op.table, op.name, op.lane_keys

    def factory_lane({params}):
        d = {device}
        if d is None:
            d = _default_device()
        elif d.__class__ is not _Device:
            return None
        key = ({key}d._key, _dt._default_dtype)
        try:
            hit = keyed.get(key)
        except TypeError:  # (an unhashable argument)
            hit = key = None
        if hit is None:
            kernel = table.get((d.type, "strided"))
            if kernel is None:
                return None"""
    + _guarded("return _factory(op, kernel, ({params},), None, d, False, None, key)", 12)
    + """
        kernel, shape, dtype, alloc, how = hit
        o = alloc(shape, dtype, d)"""
    + _guarded(
        "if how is None:\n    kernel(o, {params})\nelif how.__class__ is int:\n"
        "    kernel(o, *({params},)[:how])\nelse:\n    kernel(o, *how)",
        8,
    )
    + """
        return o

    return factory_lane
"""
)


def _factory_maker(op: Op) -> Callable[[Op], Any]:
    """The factory of ``_FACTORY`` lanes for ``op``'s parameters (a Python number keyed with
    its type)."""
    params = op.decl.parsed.params
    names = [f"a{i}" for i in range(len(params))]
    key = "".join(
        f"{n}, {n}.__class__, " if p.type.rstrip("?") in _VALUE_TYPES else f"{n}, "
        for n, p in zip(names, params, strict=True)
    )
    src = _FACTORY.format(params=", ".join(names), device=f"a{op.decl.pos.device}", key=key)
    return _structured_maker(src)


# (the declared types whose Python values of different types compare equal: True == 1 == 1.0)
_VALUE_TYPES = frozenset({"Scalar", "float", "complex", "bool", "int"})


def _no_tensor_maker(op: Op, run: str) -> Callable[[Op], Any]:
    """The factory of ``_NO_TENSOR`` lanes that end with ``run`` for ``op``'s parameters
    (operators with the same parameter count, device position and ending share one)."""
    params = ", ".join(f"a{i}" for i in range(len(op.decl.parsed.params)))
    src = _NO_TENSOR.replace("{run}", run).format(params=params, device=f"a{op.decl.pos.device}")
    return _structured_maker(src)


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
            return _factory_maker(op)(op)
        if op.frontend is unstructured_unchecked:
            return _no_tensor_maker(op, "kernel({params})")(op)
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
