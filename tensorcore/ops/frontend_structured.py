"""The frontends of the other kinds: ``structured`` (a meta function computes the outputs'
shapes and dtypes), ``unstructured`` and ``factory``; and the naming of composites' results
(``named_as``).
"""

from __future__ import annotations

import math
from operator import is_ as _is
from typing import TYPE_CHECKING, Any

from .. import dtypes as dt
from .._tensor import Tensor, make_tensor, torch_name
from ..autograd import grad_mode as _grad_mode
from ..dispatch import ALL_DTYPES, DirectKernel
from . import _frontend_common
from ._frontend_common import (
    _alloc_many,
    _alloc_or_check,
    _check_inplace,
    check_subject_dtype,
    check_values,
    empty,
    empty_like_layout,
    out_sets_dtype,
    run_direct,
    unsupported_dtype,
)
from ._out import write_out
from ._validate import check_shape

if TYPE_CHECKING:
    from ..devices import device
    from ..dispatch import Op

# Bound by assignment, not imported: CPython compiles a method call on a name that ``from ...
# import`` binds (``_ALLOC.get(...)``) as an attribute load and a bound-method call, where on
# a module's own global it compiles the cheaper method call of the frontends before the split.
_ALLOC = _frontend_common._ALLOC

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
