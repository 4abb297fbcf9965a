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

Each kind's frontend has its module (``frontend_pointwise.py``, ``frontend_reduction.py``,
``frontend_structured.py`` for the structured, unstructured and factory ones), and what they
share -- allocation, the ``out=`` and in-place checks, the dtype and value checks -- is in
``_frontend_common.py``. This module binds each operator to its frontend (:func:`bind`) and
keeps the names the rest of the core imports from ``ops.frontends``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import dtypes as dt
from .. import return_types
from ..dispatch import ALL_DTYPES

# The frontends of each kind live in their own modules; this one binds them to the operators
# (``bind``) and keeps the names other modules import from ``ops.frontends`` (the lanes, the
# autograd step, composites, ``tc.broadcast_shapes``).
from ._frontend_common import _ALLOC as _ALLOC
from ._frontend_common import _FLOATING
from ._frontend_common import _alloc_many as _alloc_many
from ._frontend_common import broadcast_shapes as broadcast_shapes
from ._frontend_common import check_values as check_values
from ._frontend_common import empty as empty
from ._frontend_common import empty_like_layout as empty_like_layout
from ._frontend_common import forget_allocators as forget_allocators
from ._frontend_common import run_direct as run_direct
from ._out import resize_out as resize_out
from ._out import warn_resized as warn_resized
from .frontend_pointwise import _convert_scalar_at as _convert_scalar_at
from .frontend_pointwise import _pointwise_dtypes as _pointwise_dtypes
from .frontend_pointwise import pointwise, pointwise_binary, pointwise_unary
from .frontend_reduction import _REDUCED as _REDUCED
from .frontend_reduction import _prepare_reduction as _prepare_reduction
from .frontend_reduction import prepare as prepare
from .frontend_reduction import reduction
from .frontend_structured import _composite_inplace as _composite_inplace
from .frontend_structured import _remember as _remember
from .frontend_structured import factory, structured, unstructured, unstructured_unchecked
from .frontend_structured import moves_version as moves_version
from .frontend_structured import named_as as named_as
from .frontend_structured import named_view_output as named_view_output
from .meta_functions import broadcast as broadcast
from .meta_functions import check_alpha as check_alpha
from .meta_functions import normalize_dims as normalize_dims

if TYPE_CHECKING:
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
