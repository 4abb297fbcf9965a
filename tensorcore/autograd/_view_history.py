"""The history of a view after its base changed in place: PyTorch's lazy ``grad_fn``.

A view and its base share a version counter, which every in-place write bumps. A view
operator's node notes the count of its view's counter when it was made
(``Node.view_version``, set by the recorders). When the base, or another view of it, is
modified in place, nothing looks for the views (finding them would mean scanning the heap):
the view's ``grad_fn`` still leads to the base's old history, and the next read of it
(``graph.current_grad_fn``: an input of a recorded operator, ``.grad_fn``, a root of
backward, a hook) sees the counts differ and makes a new one from the base's current
history, as PyTorch's ``VariableHooks::grad_fn`` does (:func:`regenerate`): an
``AsStridedBackward0`` of the base, or of ``view_as_real(base)`` for a real view of a
complex base (``ViewAsRealBackward0`` itself when the view is all of it). The new node is a
view operator's, made at the current count. Nothing is allocated for a view; a tensor that
is no view pays one attribute test where its ``grad_fn`` is read, a view one comparison.

The outputs of a function returning several views (``unbind``, ``split``; their composites
note which output each is, ``ops.frontends.named_view_output``) are neither regenerated nor
written in place: PyTorch refuses both, with the errors raised here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ops import functions as ops
from . import grad_mode
from .graph import Node, move_retain_grad

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["check_inplace_on_view", "regenerate", "written"]

_gm = grad_mode._state


def _counter(t: Tensor) -> Any:
    vc = t._version_counter
    return t._storage if vc is None else vc


def _multi_output_error(t: Tensor, what: str) -> RuntimeError:
    fn = t._grad_fn
    return RuntimeError(
        f"Output {fn.view_output} of {fn.name().removesuffix('Backward0')} is a view and "
        f"{what}. This view is the output of a function that returns multiple views. Such "
        "functions do not allow the output views to be modified inplace. You should replace "
        "the inplace operation by an out-of-place one."
    )


def check_inplace_on_view(t: Tensor) -> None:
    """Refuse an in-place call on an output of a function returning several views."""
    if getattr(t._grad_fn, "view_output", -1) >= 0:
        raise _multi_output_error(t, "is being modified inplace")


def written(t: Tensor) -> None:
    """View ``t``, whose history is current, was just written in place by a recorded call
    (which rebases it): its node counts as made at the new count, so that the call's own
    node does not regenerate it first."""
    fn = t._grad_fn
    if getattr(fn, "view_version", -1) >= 0:
        fn.view_version = _counter(t).version


def regenerate(t: Tensor) -> Node:
    """Give view ``t``, whose version moved since its ``grad_fn`` was made, a new
    ``grad_fn`` from its base's current history, and return it. Tensor hooks stay on the
    old node; ``retain_grad`` follows the new one (PyTorch's
    ``update_tensor_hooks_on_new_gradfn``). Runs in grad mode whatever the caller's (the
    engine and ``no_grad`` blocks read views too)."""
    old = t._grad_fn
    if getattr(old, "view_output", -1) >= 0:
        raise _multi_output_error(
            t, "its base or another view of its base has been modified inplace"
        )
    base = t._base
    assert base is not None, "regenerate() is for views"
    prev = _gm.enabled
    _gm.enabled = True
    try:
        fresh = _replay(t, base)
    finally:
        _gm.enabled = prev
    fn = fresh._grad_fn if fresh is not None else None
    if fn is None:
        # The base no longer requires grad (a leaf set back), or a view of its bytes in
        # another dtype: nothing flows to the base; the old history stays.
        old.view_version = _counter(t).version
        return old
    t._grad_fn = fn
    ag = t._ag
    if ag is not None:
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
