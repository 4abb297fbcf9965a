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

A view also notes how it was made where that was not in grad mode by a plain view operator
(``Tensor._view_meta``, PyTorch's ``CreationMeta``, set by ``ops.views.make_view``): under
``no_grad`` or ``inference_mode``, as an output of a function returning several views
(``unbind``, ``split``; their composites note which output each is,
``ops.frontends.named_view_output``), or as an output of a custom ``Function``. Such a view
is neither regenerated nor written in place with grad mode on: PyTorch refuses both, with
the errors raised here (:func:`view_error`), where the write is checked
(:func:`check_inplace_on_view`) and where the view's ``grad_fn`` is read after its base
changed. A view requires grad where its base does, as in PyTorch; one without history whose
base requires grad (made under ``no_grad``, or before its base joined the graph by an
in-place call) has a ``grad_fn`` only once its base changed in place (or an error, made
under ``no_grad``), and leads nowhere until then (:func:`view_edge`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ops import functions as ops
from ..ops._validate import keep_message
from . import grad_mode
from .grad_mode import IN_CUSTOM_FUNCTION, INFERENCE_MODE, MULTI_OUTPUT_NODE, NO_GRAD_MODE
from .graph import Node, grad_accumulator, move_retain_grad

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = [
    "check_inplace_on_view",
    "regenerate",
    "replay",
    "view_edge",
    "view_error",
    "written",
]

_gm = grad_mode._state

#: What PyTorch's error adds for each way a view was made.
_WHY = {
    MULTI_OUTPUT_NODE: " This view is the output of a function that returns multiple views. "
    "Such functions do not allow the output views to be modified inplace. You should replace "
    "the inplace operation by an out-of-place one.",
    NO_GRAD_MODE: " Given that this use case is ambiguous and error-prone, it is forbidden. "
    "You can clarify your code by moving both the view and the inplace either both inside the "
    "no_grad block (if you don't want the inplace to be tracked) or both outside (if you want "
    "the inplace to be tracked).",
    INFERENCE_MODE: " Given that this use case is ambiguous and error-prone, it is forbidden. "
    "You can clarify your code by moving both the view and the inplace either both inside the "
    "inference_mode block (if you don't want the inplace to be tracked) or both outside (if "
    "you want the inplace to be tracked).",
    IN_CUSTOM_FUNCTION: " This view was created inside a custom Function (or because an input "
    "was returned as-is) and the autograd logic to handle view+inplace would override the "
    "custom backward associated with the custom Function, leading to incorrect gradients. "
    "This behavior is forbidden. You can fix this by cloning the output of the custom "
    "Function.",
}


def _kept(exc: RuntimeError) -> RuntimeError:
    keep_message(exc)  # (PyTorch's wording, which names no operator)
    return exc


def _counter(t: Tensor) -> Any:
    vc = t._version_counter
    return t._storage if vc is None else vc


def view_error(t: Tensor, indirect: bool) -> RuntimeError:
    """PyTorch's error for view ``t``, made other than in grad mode by a plain view operator
    (``t._view_meta``), being modified in place (or, ``indirect``, read after its base or
    another view of it was)."""
    mode = t._view_meta & 7
    fn = t._grad_fn
    what = "its base or another view of its base has been" if indirect else "is being"
    if fn is not None:
        nr = getattr(fn, "view_output", -1)
        if nr < 0:
            nr = t._ag.output_nr if t._ag is not None else 0
        # (PyTorch's Python error names the node without "Backward0")
        out = f"Output {nr} of {fn.name().replace('Backward0', '').replace('Backward', '')}"
    if mode in (NO_GRAD_MODE, INFERENCE_MODE) or fn is None:
        head = (
            "A view was created in"
            if fn is None
            else f"{out} is a view of a view which was created in"
        )
        if mode == INFERENCE_MODE:
            msg = f"{head} inference mode and {what} modified inplace in normal mode."
        else:
            msg = f"{head} no_grad mode and {what} modified inplace with grad mode enabled."
    else:
        msg = f"{out} is a view and {what} modified inplace."
    return _kept(RuntimeError(msg + _WHY[mode]))


def check_inplace_on_view(t: Tensor) -> None:
    """Refuse an in-place call, recorded with grad mode on, on view ``t`` made other than in
    grad mode by a plain view operator (PyTorch's ``handle_view_on_rebase``)."""
    if t._view_meta is not None:
        raise view_error(t, False)


def view_edge(t: Tensor) -> tuple[Node | None, int]:
    """Where the gradient of view ``t``, which requires grad and has no ``grad_fn``, goes:
    its new history where its base changed in place since it was made, nowhere where it
    requires grad through its base (made under ``no_grad``, as PyTorch's edge to nothing),
    its own accumulator where ``requires_grad_()`` made it a leaf."""
    base = t._base
    assert base is not None
    if base._requires_grad and (base._ag is None or not base._ag.fw_only):
        fn = regenerate(t)
        return (fn, 0) if fn is not None else (None, 0)
    return grad_accumulator(t), 0


def written(t: Tensor) -> None:
    """View ``t``, whose history is current, was just written in place by a recorded call
    (which rebases it): its node counts as made at the new count, so that the call's own
    node does not regenerate it first."""
    fn = t._grad_fn
    if getattr(fn, "view_version", -1) >= 0:
        fn.view_version = _counter(t).version


def regenerate(t: Tensor) -> Node | None:
    """Give view ``t``, whose version moved since its ``grad_fn`` was made (or which has
    none while its base requires grad), a new ``grad_fn`` from its base's current history,
    and return it; raise PyTorch's error for a view made other than in grad mode by a plain
    view operator (None for one without history whose base did not change since). Tensor
    hooks stay on the old node; ``retain_grad`` follows the new one (PyTorch's
    ``update_tensor_hooks_on_new_gradfn``). Runs in grad mode whatever the caller's (the
    engine and ``no_grad`` blocks read views too)."""
    old = t._grad_fn
    meta = t._view_meta
    # (a view without history whose base requires grad now: where it was made under
    # no_grad, nothing until its base changes, then the error; made in grad mode, its base
    # joined the graph since)
    if old is None and meta is not None and meta >> 3 == _counter(t).version:
        return None
    if meta is not None:
        raise view_error(t, True)
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
        if old is not None:
            old.view_version = _counter(t).version
        return old
    t._grad_fn = fn
    t._requires_grad = True
    ag = t._ag
    if ag is not None:
        old_nr = ag.output_nr
        ag.output_nr = 0
        if ag.retains_grad and old is not None:
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


def replay(t: Tensor, base: Tensor) -> Tensor | None:
    """A view of ``base`` over the elements view ``t`` views, recorded from ``base``'s
    current history (through ``view_as_real``/``view_as_complex`` where their dtypes
    differ); None where no gradient can flow between them."""
    return _replay(t, base)
