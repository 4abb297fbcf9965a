"""The lanes of the general pointwise frontend (``where``, ``clamp``, ``lerp``), of the
factories and of the operators that make a tensor from no tensor (``ops/_lanes.py``): their
source, and what the general lanes keep per call shape (``_GENERAL_KEPT``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import dtypes as dt
from .._tensor import _CONTIG, Tensor, row_major
from ..dispatch import DirectKernel
from ._lane_parts import _REFUSE_INPLACE, _guarded, _rg
from .frontends import _ALLOC, _convert_scalar_at, _pointwise_dtypes, pointwise

if TYPE_CHECKING:
    from ..dispatch import Op

__all__ = ["factory_source", "no_tensor_source"]

# The start of a lane that makes a tensor from no tensor: the device given (a ``device``) or
# the default one as ``d``; none while a TorchFunctionMode is entered (the call path's).
_DEVICE_HEAD = """
        if _call._autocast is not None:
            return None
        d = {device}
        if d is None:
            d = _default_device()
        elif d.__class__ is not _Device:
            return None"""
# An operator that makes a tensor from no tensor: a factory (``full``, ``arange``...), whose
# frontend then runs as ``call`` would run it, or a composite (``zeros``, ``rand``...), whose
# definition runs; both on the device given (a ``device``) or the default one, without the
# call path's argument scan and device resolution.
_NO_TENSOR = (
    """
def make(op):
    table, name = op.table, op.name

    def no_tensor_lane({params}):"""
    + _DEVICE_HEAD
    + """
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
# decides them where every tensor has the compute dtype (nothing cast; a mask is bool) and
# the operator has no ``alpha`` (``_general_source``); a passive parameter (``lerp``'s weight)
# is keyed and converted as the others are. The declared check runs on every call. A
# converted float equal to the one given is passed as given (``-0.0`` and ``0.0`` share an
# entry). About half of a small ``x.clamp(-1, 1)``.
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
            if len(s) > 1 and a._stride is not _CONTIG.get(s) and not row_major(a):
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
    dtype), every tensor in the compute dtype (a mask in bool), every number converted as
    ``pointwise`` converts it (a passive one, ``lerp``'s weight, as ``_passive`` does)."""
    if o.__class__ is not Tensor or (
        not inplace
        and len(o._shape) > 1
        and o._stride is not _CONTIG.get(o._shape)
        and not row_major(o)
    ):
        return
    compute, res = _pointwise_dtypes(op, args)
    if (inplace and o is not args[0]) or res is not o._dtype:
        return
    conv = []
    masks = op.decl.pos.masks
    for i in op.tensor_pos:
        a = args[i]
        if a.__class__ is Tensor:
            # (a mask -- ``where``'s condition -- is bool; every other tensor, passive ones
            # such as ``lerp``'s weight included, has the compute dtype: ``_passive``'s checks)
            if a._dtype is not (dt.bool_ if i in masks else compute):
                return
        elif a is not None and i not in masks:
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
    kept = op.decl.pos.alpha < 0
    return (_GENERAL_INPLACE if inplace else _GENERAL).format(
        params=", ".join(f"a{i}" for i in range(len(params))),
        checks=checks,
        run="_general_kept" if kept else "_pointwise",
    )


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

    def factory_lane({params}):"""
    + _DEVICE_HEAD
    + """
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


def factory_source(op: Op) -> str:
    """``_FACTORY`` for ``op``'s parameters (a Python number keyed with its type)."""
    params = op.decl.parsed.params
    names = [f"a{i}" for i in range(len(params))]
    key = "".join(
        f"{n}, {n}.__class__, " if p.type.rstrip("?") in _VALUE_TYPES else f"{n}, "
        for n, p in zip(names, params, strict=True)
    )
    return _FACTORY.format(params=", ".join(names), device=f"a{op.decl.pos.device}", key=key)


# (the declared types whose Python values of different types compare equal: True == 1 == 1.0)
_VALUE_TYPES = frozenset({"Scalar", "float", "complex", "bool", "int"})


def no_tensor_source(op: Op, run: str) -> str:
    """``_NO_TENSOR`` ending with ``run`` for ``op``'s parameters (operators with the same
    parameter count, device position and ending share one lane factory)."""
    params = ", ".join(f"a{i}" for i in range(len(op.decl.parsed.params)))
    return _NO_TENSOR.replace("{run}", run).format(params=params, device=f"a{op.decl.pos.device}")
