"""Forward-mode AD: tangents carried by dual tensors, propagated by the autograd step.

A dual tensor keeps its tangent in its :class:`~tensorcore.autograd.graph.AutogradMeta`
(``fw_grad``) and has ``_requires_grad`` set, so that the one test the call path already
makes ("does an input need autograd?") sends every call with a dual input to the autograd
step; a tensor that has that flag only because of its tangent (``fw_only``) reports
``requires_grad`` False. While a dual level is open, :func:`dual_step` is the installed step:
it runs the operator as the reverse-mode step would (recording a node only for the inputs
that really require grad) and then computes the outputs' tangents.

There is no forward rule per operator. A view's tangent is the same view of the input's
tangent. Any other operator's Jacobian-vector product comes from its reverse rule in the
derivative table: the rule maps an output gradient ``u`` linearly to input gradients
``vjp(u) = J^T u``, so ``J t`` is the gradient with respect to ``u`` of the real inner
product ``<vjp(u), t>`` (for complex tensors ``Re(sum(conj(vjp(u)) * t))``, the inner product
under which PyTorch's convention makes the rule ``J^T``). That gradient is computed eagerly,
with reverse mode, over the few operations of the rule (the "double-vjp" identity). A
composite propagates tangents through its parts; a few hot operators have their tangents
written out (``FORWARD``). With grad mode on, tangents are differentiable in the primals and
tangents that require grad: the rule then runs on leaf aliases of them, linked back by one
node (``_reattach``), so that the backward over the rule never reaches their own graph.

While tangents are computed the level is suspended (:func:`suspend`: the reverse-mode step is
installed again) and the dual-only inputs' flags are cleared (``_mask``), so that the
computation sees plain tensors. The level's state is global, as PyTorch's is: forward AD is
not meant for several threads at once.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from .._tensor import Tensor, make_tensor
from ..dtypes import FLOATING as _FLOATING
from ..layouts import strided
from ..ops import _call
from ..ops import functions as ops
from ..ops.frontends import unstructured_unchecked as _unchecked
from . import grad_mode
from . import step as _step
from ._record import save_other
from .engine import run_backward
from .graph import TensorSpec, autograd_meta, edge, node_type, requires_grad

if TYPE_CHECKING:
    from ..dispatch import Op

__all__ = ["attach", "dual_step", "resume", "suspend", "tangent"]

_gm = grad_mode._state
_dual = grad_mode.dual
_SINK = object()  # a stand-in edge: ``Ctx.needs(i)`` asks only whether an input has one


def tangent(t: Tensor) -> Tensor | None:
    """The tangent of ``t`` at the open dual level, or None."""
    ag = t._ag
    return ag.fw_grad if ag is not None else None


def attach(t: Tensor, tan: Tensor) -> None:
    """Give ``t`` the tangent ``tan`` (of ``t``'s geometry) at the open level."""
    ag = autograd_meta(t)
    ag.fw_grad = tan
    if not t._requires_grad:
        t._requires_grad = True
        ag.fw_only = True
    refs = _dual.tensors
    refs.append(weakref.ref(t))
    if len(refs) >= _dual.compact_at:
        # (a long loop inside one level: drop the dead references, amortised)
        refs[:] = [r for r in refs if r() is not None]
        _dual.compact_at = max(1024, 2 * len(refs))


def drop_all() -> None:
    """Drop every tangent of the level that exits, with the flags they set."""
    for ref in _dual.tensors:
        t = ref()
        if t is None or t._ag is None:
            continue
        ag = t._ag
        ag.fw_grad = None
        if ag.fw_only:
            ag.fw_only = False
            t._requires_grad = False
    _dual.tensors = []
    _dual.compact_at = 1024


def suspend() -> None:
    """Stop propagating tangents (while tangents themselves, or the primals of a custom
    Function, are computed): calls go to the reverse-mode step again."""
    _dual.on = False
    _call.set_autograd_step(_step.autograd_step, _step._debug)


def resume() -> None:
    """Propagate tangents again (the level is still open)."""
    _dual.on = True
    _call.set_autograd_step(dual_step, _step._debug)


def _mask(ts: Any, fw_only: bool) -> list[Tensor]:
    """Clear ``_requires_grad`` of the tensors among ``ts`` that have it (only those that
    have it for a tangent with ``fw_only``); returns them, for :func:`_unmask`."""
    masked = []
    for t in ts:
        if t.__class__ is not Tensor and not isinstance(t, Tensor):
            continue
        if t._requires_grad and (not fw_only or (t._ag is not None and t._ag.fw_only)):
            t._requires_grad = False
            masked.append(t)
    return masked


def _unmask(masked: list[Tensor]) -> None:
    for t in masked:
        t._requires_grad = True


def same_meta(t: Tensor, like: Tensor) -> Tensor:
    """``t`` with ``like``'s geometry: itself when it has it, else a copy into a zero buffer
    laid out as ``like``'s storage (so that any view of ``like``, ``as_strided`` included,
    applies to its tangent unchanged)."""
    if like._layout is not strided:
        return t
    st = like._storage
    n = st.nbytes // like._dtype.itemsize if st is not None else 0
    ts = t._storage
    if (
        t._shape == like._shape
        and t._stride == like._stride
        and t._offset == like._offset
        and ts is not None
        and ts.nbytes // t._dtype.itemsize == n
    ):
        return t
    buf = ops.zeros(n, dtype=like._dtype, device=like._device)
    out = ops.as_strided(buf, like._shape, like._stride, like._offset)
    out.copy_(t)
    return out


def _plain(
    op: Op, kernel: Any, args: tuple[Any, ...], out: Any, dev: Any, inplace: bool, key: Any
) -> Any:
    """What the call path does without forward AD."""
    if _gm.enabled:
        return _step.autograd_step(op, kernel, args, out, dev, inplace, key)
    res = _step._untracked(op, kernel, args, out, dev, inplace)
    if inplace:
        args[0]._bump_version()
    return res


def dual_step(
    op: Op,
    kernel: Any,
    args: tuple[Any, ...],
    out: Any,
    dev: Any,
    inplace: bool,
    key: tuple[str, str],
) -> Any:
    """The autograd step while a dual level is open: the reverse-mode step, plus tangents
    for the outputs of a call with a dual input."""
    ins = _step._inputs(op, args)
    tans = [tangent(t) if isinstance(t, Tensor) else None for t in ins]
    if _gm.inference or all(t is None for t in tans):
        return _plain(op, kernel, args, out, dev, inplace, key)
    if out is not None:
        raise NotImplementedError(
            f"Trying to use forward AD with {op.name}_out that does not support it because it "
            "is an out= function"
        )
    ent = op.autograd.get(key)
    if ent is None:
        try:
            ent = op.autograd[key] = _step._Entry(op, key)
        except RuntimeError as exc:  # no rule: PyTorch's forward-AD wording
            raise NotImplementedError(
                f"Trying to use forward AD with {op.name} that does not support it"
            ) from exc
    if ent.kind == _step._COMPOSITE:
        return _plain(op, kernel, args, out, dev, inplace, key)  # the parts carry the tangents
    masked = _mask(ins, True)
    try:
        if ent.kind == _step._NONDIFF:
            res = _plain(op, kernel, args, out, dev, inplace, key)
            if inplace and tans[0] is not None:
                _zero(tans[0])  # (values no longer depend on the old ones: ``uniform_``)
            return res
        record = _gm.enabled and any(isinstance(t, Tensor) and t._requires_grad for t in ins)
        if inplace:
            res, sargs = _run_inplace(op, kernel, args, dev, ent, record)
        else:
            res, sargs = _run(op, kernel, args, dev, ent, record)
    finally:
        _unmask(masked)
    outputs = res if isinstance(res, tuple) else (res,)
    if "view" in op.decl.tags and not inplace:
        news = _view_tangents(op, args, tans[0], outputs)
    elif not inplace and (fast := FORWARD.get(op.name)) is not None:
        news = [_forward_rule(fast, args, tans, res)]
    else:
        news = _jvp(ent, sargs, outputs, ins, tans)
    if inplace:
        _update_inplace(args[0], news[0])
        return res
    for o, g in zip(outputs, news, strict=True):
        if g is not None:
            attach(o, g)
    return res


# ------------------------------------------------------------------ hand-written rules
# The Jacobian-vector products of the hottest simple operators, written out: one operation or
# two instead of the rule's run and a backward through it. ``fn(args, tangents, result)``,
# the tangents None for inputs without one (at least one has one); the result is fitted to the
# output (broadcast, dtype, layout) by ``_forward_rule``. tests/test_forward_ad.py compares
# each with the generic path on every sample.
def _add(args: tuple[Any, ...], tans: list[Any], res: Tensor, sign: int = 1) -> Any:
    ta, tb = tans
    if tb is not None:
        alpha = args[2] * sign
        tb = tb if alpha == 1 else ops.mul(tb, alpha)
    return tb if ta is None else ta if tb is None else ops.add(ta, tb)


def _mul(args: tuple[Any, ...], tans: list[Any], res: Tensor) -> Any:
    a, b = args
    ta, tb = tans
    p = None if ta is None else ops.mul(ta, b)
    q = None if tb is None else ops.mul(a, tb)
    return q if p is None else p if q is None else ops.add(p, q)


def _div(args: tuple[Any, ...], tans: list[Any], res: Tensor) -> Any:
    _, b, mode = args
    if mode is not None:  # (a rounded quotient is piecewise constant)
        return ops.zeros_like(res)
    ta, tb = tans
    # d(a / b) = (da - (a / b) db) / b
    num = (
        ta
        if tb is None
        else ops.mul(tb, res).neg()
        if ta is None
        else ops.sub(ta, ops.mul(tb, res))
    )
    return ops.div(num, b)


FORWARD: dict[str, Any] = {
    "add": _add,
    "sub": lambda args, tans, res: _add(args, tans, res, -1),
    "mul": _mul,
    "div": _div,
    "neg": lambda args, tans, res: ops.neg(tans[0]),
}


def _forward_rule(fn: Any, args: tuple[Any, ...], tans: list[Any], res: Tensor) -> Tensor:
    """``fn``'s tangent for the result ``res``, broadcast, cast and laid out as ``res``. It is
    computed with the primals and tangents themselves, so that (grad mode on) it is
    differentiable in both, as PyTorch's tangents are."""
    suspend()
    masked = _mask([*args, res], True)  # (dual-only primals: constants)
    try:
        t = fn(args, tans, res)
        if any(t is g for g in tans):
            t = ops.clone(t)  # (a tangent of its own, not the input's)
        if t._shape != res._shape:
            t = t.expand(res._shape)
        if t._dtype is not res._dtype:
            t = t.to(res._dtype)
        return same_meta(t, res)
    finally:
        _unmask(masked)
        resume()


def _zero(tan: Tensor) -> None:
    suspend()
    try:
        tan.zero_()
    finally:
        resume()


def _run(
    op: Op, kernel: Any, args: tuple[Any, ...], dev: Any, ent: Any, record: bool
) -> tuple[Any, tuple[Any, ...]]:
    """The primal call as ``autograd_step`` runs it (recording off), with what the rule
    saves from, then the node where an input really requires grad."""
    prev = _gm.enabled
    _gm.enabled = False
    try:
        if ent.normalize:
            prepared: list[Any] = []
            res = op.frontend(op, kernel, args, None, dev, False, prepared)  # type: ignore[misc]
            sargs = _step._saved_args(op, args, prepared)
        elif op.frontend is _unchecked:
            res = kernel(*args)
            sargs = args
        else:
            res = op.frontend(op, kernel, args, None, dev, False)  # type: ignore[misc]
            sargs = args
    finally:
        _gm.enabled = prev
    if record:
        ent.record_outputs(args, res if isinstance(res, tuple) else (res,), sargs)
    return res, sargs


def _run_inplace(
    op: Op, kernel: Any, args: tuple[Any, ...], dev: Any, ent: Any, record: bool
) -> tuple[Any, tuple[Any, ...]]:
    """An in-place call: the reverse-mode in-place step where an input really requires
    grad, else the kernel; with what the rule saves from (self's old value where it reads
    it)."""
    if record:
        saved: list[Any] = []
        res = _step._inplace_step(op, kernel, args, dev, ent, saved)
        return res, saved[0]
    self = args[0]
    prev = _gm.enabled
    _gm.enabled = False
    try:
        old_self = self.clone() if ent.saves_self else self
        if ent.normalize:
            prepared: list[Any] = []
            op.frontend(op, kernel, args, None, dev, True, prepared)  # type: ignore[misc]
            sargs = _step._saved_args(op, args, prepared)
        else:
            op.frontend(op, kernel, args, None, dev, True)  # type: ignore[misc]
            sargs = args
        self._bump_version()
    finally:
        _gm.enabled = prev
    return self, (old_self,) + tuple(sargs[1:])


def _view_tangents(
    op: Op, args: tuple[Any, ...], tan: Tensor | None, outputs: tuple[Any, ...]
) -> list[Any]:
    """A view's tangent: the same view of its input's tangent."""
    if tan is None:
        return [None] * len(outputs)
    suspend()
    try:
        res = _call.call(op, (tan, *args[1:]))
    finally:
        resume()
    return list(res) if isinstance(res, (tuple, list)) else [res]


def _jvp(
    ent: Any, sargs: tuple[Any, ...], outputs: tuple[Any, ...], ins: list[Any], tans: list[Any]
) -> list[Any]:
    """The outputs' tangents ``J t``, from the operator's reverse rule (module docstring)."""
    if not any(isinstance(o, Tensor) and o._dtype._category >= _FLOATING for o in outputs):
        return [None] * len(outputs)  # (integer or boolean results have no tangent)
    node = ent.node_type(
        ent.name,
        _step.apply_rule,
        ent,
        tuple((_SINK, 0) if t is not None else (None, 0) for t in tans),
        [(t._shape, t._dtype) if isinstance(t, Tensor) else None for t in ins],
        len(outputs),
    )
    # With grad mode on, each primal or tangent that requires grad enters the computation as
    # a leaf alias of itself: the tangents are then differentiable in them (as PyTorch's
    # are), through a node that links the leaves back (``_reattach``), while the backward
    # below reaches no graph but the rule's (it would run, and free, the primals' graph).
    leaves: dict[int, tuple[Tensor, Tensor]] = {}
    grad_on = _gm.enabled

    def value(v: Any) -> Any:
        if not (grad_on and isinstance(v, Tensor) and requires_grad(v)):
            return v
        hit = leaves.get(id(v))
        if hit is None:
            hit = leaves[id(v)] = (v, _leaf(v))
        return hit[1]

    saved = node.saved
    for key, pos, is_result, meta_only, cond in ent.plan:
        if cond >= 0 and tans[cond] is None:
            saved[key] = None
        elif is_result:
            saved[key] = value(outputs[pos])
        else:
            v = sargs[pos]
            if isinstance(v, Tensor):
                saved[key] = TensorSpec(v) if meta_only else value(v)
            elif isinstance(v, (list, tuple)) and any(isinstance(x, Tensor) for x in v):
                saved[key] = [
                    TensorSpec(x) if meta_only and isinstance(x, Tensor) else value(x) for x in v
                ]
            else:
                saved[key] = save_other(v, meta_only, ent.name)
    used = [value(t) for t in tans]
    create = bool(leaves)
    edges = tuple(edge(real) for real, _ in leaves.values())  # (before the masks below)
    suspend()
    masked = _mask([*ins, *outputs, *tans], False)  # the rule's graph reaches only leaves
    prev = _gm.enabled
    _gm.enabled = True
    try:
        us, vjps = _apply_linear(node, outputs)
        # The gradient in u of <vjp(u), t> is the backward of vjp(u) with t as its output
        # gradient (for complex tensors too: t is the gradient of Re(sum(conj(v) * t)) in v).
        pairs = [
            (v, t)
            for v, t in zip(vjps, used)  # noqa: B905 (a rule may return fewer)
            if v is not None and t is not None and v._requires_grad
        ]
        wanted = [u for u in us if u is not None]
        grads: list[Any] = [None] * len(wanted)
        given = {t._storage for t in used if t is not None}
        if pairs and wanted:
            _gm.enabled = create
            grads = run_backward(
                [v for v, _ in pairs],
                [t for _, t in pairs],
                create,
                create,
                inputs=wanted,
                accumulate=False,
                allow_unused=True,
            )
        _gm.enabled = prev  # (the copy into the output's layout keeps the tangent's graph)
        if create:
            grads = _reattach(grads, list(leaves.values()), edges)
        it = iter(grads)
        news: list[Any] = []
        for o, u in zip(outputs, us, strict=True):
            if u is None:
                news.append(None)
                continue
            g = next(it)
            if g is None:
                g = ops.zeros_like(o)
            elif g._storage is not None and g._storage in given:
                g = ops.clone(g)  # (the backward handed back a given tangent, or a view of it)
            news.append(same_meta(g, o))
        return news
    finally:
        _gm.enabled = prev
        _unmask(masked)
        resume()


def _leaf(t: Tensor) -> Tensor:
    """A leaf that requires grad, over ``t``'s memory (its version counter too)."""
    a = make_tensor(
        t._storage, t._shape, t._stride, t._offset, t._dtype, t._device, t._native, t._layout
    )
    a._version_counter = t._version_counter
    a._requires_grad = True
    return a


def _reattach(ts: list[Any], leaves: list[tuple[Tensor, Tensor]], edges: Any) -> list[Any]:
    """``ts`` (functions of the leaf aliases) as tensors whose gradients flow to the tensors
    the leaves stand for: one node, whose backward differentiates ``ts`` in the leaves."""
    live = [k for k, t in enumerate(ts) if t is not None and t._requires_grad]
    if not live:
        return ts
    name = "ForwardADTangentBackward"
    node = node_type(name)(name, _reattach_apply)
    node.ctx = ([ts[k] for k in live], [leaf for _, leaf in leaves])
    node.n_outputs = len(live)
    node.next_functions = edges
    node.input_meta = [(real._shape, real._dtype) for real, _ in leaves]
    out = list(ts)
    for i, k in enumerate(live):
        o = ts[k].detach()
        o._requires_grad = True
        o._grad_fn = node
        if i:
            autograd_meta(o).output_nr = i
        out[k] = o
    return out


def _reattach_apply(node: Any, grads: list[Any]) -> list[Any]:
    ts, leaves = node.ctx
    pairs = [(t, g) for t, g in zip(ts, grads, strict=True) if g is not None]
    if not pairs:
        return [None] * len(leaves)
    return run_backward(
        [t for t, _ in pairs],
        [g for _, g in pairs],
        True,
        _gm.enabled,
        inputs=leaves,
        accumulate=False,
        allow_unused=True,
    )


def _apply_linear(node: Any, outputs: tuple[Any, ...]) -> tuple[list[Any], Any]:
    """The rule of ``node`` at output gradients ``us`` that require grad, and ``us``. Any
    value would do, the rule being linear in them: ones first, since a rule may take the log
    of its gradient (logcumsumexp's, whose derivative at zero is lost); zeros where the rule
    refuses ones (svd's complex rule checks that the gradient ignores the vectors' phases)."""
    for fill in (1, 0):
        us = [
            ops.full_like(o, fill).requires_grad_()
            if isinstance(o, Tensor) and o._dtype._category >= _FLOATING
            else None
            for o in outputs
        ]
        try:
            return us, _step.apply_rule(node, us)
        except RuntimeError:
            if fill == 0:
                raise
    raise AssertionError("unreachable")


def _update_inplace(self: Tensor, new: Tensor | None) -> None:
    """After ``self`` was modified in place: its tangent (made, as a view of its base's,
    where it had none) takes the new value in place, so views of it see the change."""
    tan = tangent(self)
    suspend()
    try:
        if tan is None:
            tan = _fresh_tangent(self)
        if new is None:
            tan.zero_()
        else:
            tan.copy_(new)
    finally:
        resume()


def _fresh_tangent(t: Tensor) -> Tensor:
    """A zero tangent for ``t``: a view of its base's tangent (given one) when ``t`` is a
    view."""
    base = t._base
    if base is None:
        tan = same_meta(ops.zeros_like(t), t)
    else:
        bt = tangent(base)
        if bt is None:
            bt = same_meta(ops.zeros_like(base), base)
            attach(base, bt)
        tan = ops.as_strided(bt, t._shape, t._stride, t._offset)
    attach(t, tan)
    return tan
