"""The history of a view after its base changed in place: PyTorch's lazy ``grad_fn``.

A view and its base share a version counter, which every in-place write bumps. A view that a
recorded view operator made keeps, in its ``AutogradMeta``, that counter and the count at
which its ``grad_fn`` was made (:func:`mark_view`). When the base, or another view of it, is
modified in place, nothing looks for the views (finding them would mean scanning the heap):
the view's ``grad_fn`` still leads to the base's old history, and the next read of it
(``graph.current_grad_fn``: an input of a recorded operator, ``.grad_fn``, a root of
backward, a hook) sees the counts differ and makes a new one from the base's current
history, as PyTorch's ``VariableHooks::grad_fn`` does (:func:`regenerate`): an
``AsStridedBackward0`` of the base, or of ``view_as_real(base)`` for a real view of a
complex base (``ViewAsRealBackward0`` itself when the view is all of it). A tensor that is no
such view pays nothing; a view pays one comparison where its ``grad_fn`` is read.

The outputs of a function returning several views (``unbind``, ``split``; their composites
note which output each is, ``ops.frontends.named_view_output``) are neither regenerated nor
written in place: PyTorch refuses both, with the errors raised here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ops import functions as ops
from . import grad_mode
from .graph import AutogradMeta, Node, move_retain_grad

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["check_inplace_on_view", "mark_view", "regenerate"]

_gm = grad_mode._state


def mark_view(t: Tensor) -> None:
    """Note the count of ``t``'s version counter: ``t`` is a view whose ``grad_fn`` was just
    made (by a recorded view operator, or an in-place call on ``t`` that rebased it)."""
    vc: Any = t._version_counter
    if vc is None:
        vc = t._storage
        if vc is None:  # (a layout without storage: no view of it is tracked)
            return
    ag = t._ag
    if ag is None:
        ag = t._ag = AutogradMeta()
    ag.view_counter = vc
    ag.view_version = vc.version


def _multi_output_error(t: Tensor, what: str) -> RuntimeError:
    fn = t._grad_fn
    name = fn.name().removesuffix("Backward0") if fn is not None else "a function"
    return RuntimeError(
        f"Output {t._ag.view_output} of {name} is a view and {what}. This view is the output "
        "of a function that returns multiple views. Such functions do not allow the output "
        "views to be modified inplace. You should replace the inplace operation by an "
        "out-of-place one."
    )


def check_inplace_on_view(t: Tensor) -> None:
    """Refuse an in-place call on an output of a function returning several views."""
    ag = t._ag
    if ag is not None and ag.view_output >= 0:
        raise _multi_output_error(t, "is being modified inplace")


def regenerate(t: Tensor) -> Node:
    """Give view ``t``, whose version moved since its ``grad_fn`` was made, a new
    ``grad_fn`` from its base's current history, and return it. Tensor hooks stay on the
    old node; ``retain_grad`` follows the new one (PyTorch's
    ``update_tensor_hooks_on_new_gradfn``). Runs in grad mode whatever the caller's (the
    engine and ``no_grad`` blocks read views too)."""
    ag = t._ag
    old = t._grad_fn
    if ag.view_output >= 0:
        raise _multi_output_error(
            t, "its base or another view of its base has been modified inplace"
        )
    base = t._base
    prev = _gm.enabled
    _gm.enabled = True
    try:
        fresh = _replay(t, base) if base is not None else None
    finally:
        _gm.enabled = prev
    ag.view_version = ag.view_counter.version
    fn = fresh._grad_fn if fresh is not None else None
    if fn is None:
        # The base no longer requires grad (a leaf set back), or a view of its bytes in
        # another dtype: nothing flows to the base; the old history stays.
        return old
    t._grad_fn = fn
    old_nr = ag.output_nr
    ag.output_nr = 0
    if ag.retains_grad:
        move_retain_grad(t, old, old_nr)
    return fn


def _replay(t: Tensor, base: Tensor) -> Tensor | None:
    """A view of ``base`` over the elements ``t`` views, recorded from ``base``'s history."""
    geom = (t._shape, t._stride, t._offset)
    bd, td = base._dtype, t._dtype
    if td is bd:
        return ops.as_strided(base, *geom)
    if bd.is_complex and td is bd.to_real():
        # (``x.real``, ``x.imag``, ``view_as_real(x)`` and views of them: strides in reals)
        r = ops.view_as_real(base)
        return r if (r._shape, r._stride, r._offset) == geom else ops.as_strided(r, *geom)
    if td.is_complex and bd is td.to_real():
        # (``view_as_complex(x)`` and views of it: a view of the whole base as complex where
        # there is one, as PyTorch replays it, else of the same elements counted in reals)
        try:
            c = ops.view_as_complex(base)
        except RuntimeError:
            real = ((*t._shape, 2), (*(2 * s for s in t._stride), 1), 2 * t._offset)
            return ops.view_as_complex(ops.as_strided(base, *real))
        return c if (c._shape, c._stride, c._offset) == geom else ops.as_strided(c, *geom)
    return None
