"""The lanes of the structured operators, the reductions, the operators of a tensor list and
the unchecked unstructured ones (``ops/_lanes.py``): their source, from each operator's
parameters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..dispatch import ALL_DTYPES
from ._lane_parts import _guarded, _rg, _run
from .frontends import _alloc_many

if TYPE_CHECKING:
    from ..dispatch import Op

__all__ = ["kernel_source"]

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
# A list lane's test of each element (``v``) of its list, then its kernel: a plain tensor on
# ``dev`` and ``lay`` that does not require grad (``{rg}``, filled in by ``ops/_lanes.py``).
_ELEMENT_THEN_KERNEL = """
            if v.__class__ is not Tensor or v._device is not dev or v._layout is not lay:
                return None
            if {rg}:
                return None
        kernel = table.get((dev.type, lay.name))
        if kernel is None or kernel.__class__ is _DirectKernel:
            return None"""
# An operator whose one tensor parameter is a list: a list or tuple of plain tensors on one
# device and layout, none requiring grad (the autograd step records the others, and saves
# what its rule needs of the list), no autocast region; then, for a structured operator
# (``cat``), the meta function, the allocation and the kernel, as ``structured`` runs them,
# and for an unchecked composite (``stack``, ``hstack``...) its kernel, as ``call`` runs it.
_LIST_HEAD = (
    """
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
        for v in x:"""
    + _ELEMENT_THEN_KERNEL
    + "\n"
)
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
                continue"""
    + _ELEMENT_THEN_KERNEL
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


def kernel_source(n: int, single: bool) -> str:
    """``_KERNEL`` for ``n`` parameters (``single``: one result, which a recorded call gets
    its node for; several leave a recorded call to the call path)."""
    return _KERNEL.format(
        args="".join(f", a{i}" for i in range(1, n)),
        single="" if single else "\n            return None",
    )
