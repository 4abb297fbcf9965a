"""Autograd as a dispatch step: record a graph node in front of the backend kernel.

``ops/_call.py`` calls :func:`autograd_step` only when grad mode is on and some input
requires grad, so calls without gradients pay one boolean check. The step runs the kernel
with recording off, then links the outputs to a :class:`~tensorcore.autograd.graph.Node`
whose rule comes from the derivative table (or a backend's override for the device/layout).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from .._tensor import Tensor
from ..dispatch import ops as dispatch_ops
from ..dtypes import FLOATING as _FLOATING
from ..ops import functions as ops
from ..ops._validate import keep_message
from ..ops.frontends import moves_version
from ..ops.frontends import prepare as _prepare
from ..ops.frontends import unstructured_unchecked as _unchecked
from . import _view_history, grad_mode
from . import graph as _graph
from ._record import compile_recorder, save_other
from ._rule_check import check_rule
from ._view_history import check_inplace_on_view, replay, view_edge, written
from .graph import (
    FREED_GRAPH,
    Node,
    SavedTensor,
    TensorSpec,
    autograd_meta,
    current_grad_fn,
    edge,
    grad_accumulator,
    move_retain_grad,
    node_type,
)

if TYPE_CHECKING:
    from ..dispatch import Op

__all__ = [
    "Ctx",
    "autograd_step",
    "derivative_overrides",
    "detect_mutation",
    "rule_for",
]

_gm = grad_mode._state
_new = object.__new__
# (op name, device type, layout name) -> Derivative, registered by backends.
derivative_overrides: dict[tuple[str, str, str], Any] = {}
# Names of the operators that have any override: the common case skips the lookup.
overridden_ops: set[str] = set()
_DERIVS: Any = None
sum_to: Any = None  # ops.derivatives.sum_to, bound by install() (import cycle)
_COMPOSITES: Any = None  # ops.composite.COMPOSITES, bound at the first recorded composite


class Ctx:
    """What a rule sees of its node: ``needs(i)``, and each saved value as an attribute
    (``c.self``), unpacked with its version check by the properties :func:`ctx_class` gives
    each rule's subclass."""

    __slots__ = ("_node",)

    def __init__(self, node: Node) -> None:
        self._node = node

    def needs(self, i: int) -> bool:
        """Whether tensor input ``i`` wants a gradient (rules skip the work otherwise)."""
        return self._node.next_functions[i][0] is not None

    def __getattr__(self, name: str) -> Any:
        # Only names the rule did not save get here (saved ones are properties).
        raise AttributeError(f"{self._node.name()} saved no '{name}'")


def _saved_getter(name: str) -> Any:
    def get(self: Ctx) -> Any:
        node = self._node
        try:
            v = node.saved[name]
        except KeyError:
            if node.released:
                raise RuntimeError(FREED_GRAPH) from None
            raise
        cls = v.__class__
        if cls is SavedTensor:
            return v.unpack(node)
        if cls is list and v and any(x.__class__ is SavedTensor for x in v):
            return [x.unpack(node) if x.__class__ is SavedTensor else x for x in v]
        return v

    return property(get, doc=f"The saved ``{name}``.")


def ctx_class(rule: Any) -> type[Ctx]:
    """A :class:`Ctx` subclass with one property per value ``rule`` saves: reading
    ``c.self`` is then a plain descriptor call, not a failed lookup plus ``__getattr__``."""
    names = {spec.partition(":")[0] for spec in rule.saves}
    ns: dict[str, Any] = {"__slots__": ()}
    ns.update({n: _saved_getter(n) for n in names})
    return type("Ctx", (Ctx,), ns)


def apply_rule(node: Node, grads: list[Any]) -> Any:
    """Run a derivative-table rule, then fit each gradient to its input (shape, dtype)."""
    ent = node.ctx
    c = _new(ent.ctx_cls)  # Ctx(node) without the __init__ frame
    c._node = node
    res = ent.rule.fn(c, grads[0] if node.n_outputs == 1 else grads)
    metas = node.input_meta
    for i, r in enumerate(res):
        if r is not None:
            m = metas[i]
            if m is None or r._shape != m[0] or r._dtype is not m[1]:
                return _fit(node._name, res, metas)
    return res


def _fit(name: str, res: Any, metas: list[Any]) -> list[Any]:
    """Gradients summed to their input's shape (undoing broadcasting) and cast to its dtype;
    None for arguments that were not tensors."""
    out: list[Any] = []
    for i, (r, m) in enumerate(zip(res, metas)):  # noqa: B905 (a rule may return fewer)
        if r is None or m is None:
            out.append(None)
            continue
        shape, dtype = m
        if r._shape != shape:
            r = fit_shape(name, i, r, shape)
        if r._dtype is not dtype:
            if r._dtype.is_complex and not dtype.is_complex:
                r = ops.real(r)  # a real input's gradient is the real part
            r = r.to(dtype)
        out.append(r)
    return out


def fit_shape(name: str, index: int, g: Tensor, shape: tuple[int, ...]) -> Tensor:
    """The gradient ``g`` that node ``name`` returned for its input ``index``, summed down
    to the input's ``shape`` (PyTorch's rule: a gradient of a shape the input broadcasts to is
    accepted). Any other shape is a bug in the backward, reported here by name rather than
    summed into a wrong gradient."""
    if (g._shape, shape) not in _FITTING:
        if len(shape) > len(g._shape) or not all(
            s in (1, t) for s, t in zip(reversed(shape), reversed(g._shape), strict=False)
        ):
            raise RuntimeError(
                f"Function {name} returned an invalid gradient at index {index} - got "
                f"{list(g._shape)} but expected shape compatible with {list(shape)}"
            )
        if len(_FITTING) >= 1024:
            _FITTING.clear()
        _FITTING.add((g._shape, shape))
    return sum_to(g, shape)


# The (gradient's shape, input's shape) pairs ``fit_shape`` found compatible: the check runs
# once per pair instead of once per broadcast operand per backward (a generator over the
# dims, about a microsecond); it depends on the two shapes alone.
_FITTING: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()


def _inputs(op: Op, args: tuple[Any, ...]) -> list[Any]:
    """The tensor inputs in signature order, tensor lists flattened in place without their
    ``None`` entries (the order in which derivative rules return their gradients)."""
    if not op.list_pos:
        return [args[i] for i in op.tensor_pos]
    ins: list[Any] = []
    for i in sorted(op.tensor_pos + op.list_pos):
        if i in op.list_pos:
            ins.extend(a for a in args[i] or () if a is not None)
        else:
            ins.append(args[i])
    return ins


def _saved_args(op: Op, args: tuple[Any, ...], prepared: list[Any]) -> tuple[Any, ...]:
    """What a rule's saves are read from: the prepared call (dims normalised, defaults filled,
    as the kernel received them), with each tensor list as the caller gave it (a rule returns
    one gradient per listed tensor; the kernel may have been handed fewer, as ``cat`` drops
    empty 1-D tensors). A kernel registered with ``direct=True`` prepares nothing: the call is
    prepared here, once, as its frontend would have."""
    kargs = prepared[0] if prepared else _prepare(op, args)
    for i in op.list_pos:
        kargs = kargs[:i] + (args[i],) + kargs[i + 1 :]
    return kargs


class _Entry:
    """Autograd's view of one operator on one dispatch key, cached in ``Op.autograd``: how to run
    it (record a node, differentiate through a composite, or not differentiate), its rule,
    the node name and what the rule saves."""

    __slots__ = (
        "composite",
        "ctx_cls",
        "frees",
        "inputs",
        "kind",
        "name",
        "node_type",
        "normalize",
        "plan",
        "record",
        "rule",
        "saves_self",
        "variant",
        "view",
    )

    def __init__(self, op: Op, key: tuple[str, str]) -> None:
        self.kind = _COMPOSITE if op.composite else _RECORD if op.differentiable else _NONDIFF
        if op.composite and _one_node_composite(op, key):
            self.kind = _RECORD
        # A composite's own definition, which autograd runs (looked up at its first recorded
        # call; False when the core has none and the resolved kernel runs).
        self.composite: Any = None
        self.name = op.decl.node_name
        self.node_type = node_type(self.name)
        #: ``(args) -> name | None``: the node's name for an overload PyTorch names apart
        #: (``sum(x, dim)`` is ``SumBackward1``); None for most operators.
        self.variant = op.decl.node_variant
        self.rule: Any = None
        self.plan: tuple[tuple[str, int, bool, bool, int], ...] = ()
        self.normalize = op.decl.frontend not in ("pointwise", "unstructured")
        #: Whether the result is a view of ``self`` (the recorder notes the view's version).
        self.view = "view" in op.decl.tags
        # The tensor inputs as one slice of the arguments where they are consecutive (all
        # but a few operators): a C-level copy instead of a comprehension per call.
        pos = op.tensor_pos
        consecutive = (
            bool(pos) and not op.list_pos and pos == tuple(range(pos[0], pos[0] + len(pos)))
        )
        self.inputs: slice | None = slice(pos[0], pos[0] + len(pos)) if consecutive else None
        self.ctx_cls: type[Ctx] = Ctx
        self.record: Any = None
        if self.kind == _RECORD:
            self.rule = rule_for(op, key)
            check_rule(
                op.name, [p.name for p in op.decl.parsed.params], self.rule.saves, self.rule.fn
            )
            self.plan = _save_plan(op, self.rule)
            self.ctx_cls = ctx_class(self.rule)

            def generic(
                args: tuple[Any, ...], outputs: tuple[Any, ...], sargs: tuple[Any, ...]
            ) -> Node:
                return _make_node(op, self, args, outputs, sargs)

            self.record = compile_recorder(op, self, apply_rule, _debug, generic) or generic
        # Whether an in-place call must keep a copy of self's old value for the rule.
        self.saves_self = any(k == "self" and not meta for k, _, _, meta, _ in self.plan)
        # Whether the node keeps tensor values that backward frees (PyTorch's saved
        # variables; a scalar given for a tensor parameter counts, as PyTorch wraps it): a
        # node that keeps only shapes and numbers may run again, as in PyTorch.
        tensor_params = set(op.tensor_pos) | set(op.list_pos)
        self.frees = any(
            res or (not meta and pos in tensor_params) for _, pos, res, meta, _ in self.plan
        )

    def record_outputs(
        self, args: tuple[Any, ...], outputs: tuple[Any, ...], sargs: tuple[Any, ...]
    ) -> Node:
        """Record a call of several results (None for one it did not make) and attach each
        floating result to the node as its output of that position (the autograd step's
        and the structured lanes' one way of doing it)."""
        node = self.record(args, outputs, sargs)
        for i, o in enumerate(outputs):
            if isinstance(o, Tensor) and o._dtype._category >= _FLOATING:
                o._requires_grad = True
                o._grad_fn = node
                if i:
                    autograd_meta(o).output_nr = i
        return node


_RECORD, _COMPOSITE, _NONDIFF = 0, 1, 2


def forget_rules() -> None:
    """Drop every cached rule (a plugin registered a derivative override)."""
    for op in dispatch_ops().values():
        op.autograd.clear()


def add_derivative_overrides(rules: list[tuple[str, str, str, Any]]) -> None:
    """Register a plugin's derivative rules, ``(op, device type, layout, Derivative)``, in
    front of the derivative table's (the plugin manager's commit calls it)."""
    for op, dev, lay, rule in rules:
        derivative_overrides[op, dev, lay] = rule
        overridden_ops.add(op)
    forget_rules()


def derivative_overrides_state() -> tuple[dict[tuple[str, str, str], Any], set[str]]:
    """A copy of the registered overrides, for :func:`restore_derivative_overrides`."""
    return dict(derivative_overrides), set(overridden_ops)


def restore_derivative_overrides(state: tuple[dict[tuple[str, str, str], Any], set[str]]) -> None:
    """Put the overrides back as :func:`derivative_overrides_state` copied them (a plugin's
    load failed or was withdrawn) and drop every cached rule."""
    derivative_overrides.clear()
    derivative_overrides.update(state[0])
    overridden_ops.clear()
    overridden_ops.update(state[1])
    forget_rules()


def _save_plan(op: Op, rule: Any) -> tuple[tuple[str, int, bool, bool, int], ...]:
    """(name, position, is_result, meta_only, cond) for each value ``rule`` saves.
    ``"self:spec"`` saves only the geometry, dtype and device of ``self``; ``"self:if=other"``
    saves ``self`` only when the tensor input ``other`` wants a gradient (``cond`` is that
    input's index among the tensor inputs, -1 for an unconditional save), else None."""
    params = op.decl.parsed.params
    items = []
    for spec in rule.saves:
        key, _, kind = spec.partition(":")
        cond = -1
        if kind.startswith("if="):
            dep = kind[3:]
            ppos = next((k for k, p in enumerate(params) if p.name == dep), None)
            if op.list_pos or ppos not in op.tensor_pos:
                raise RuntimeError(
                    f"derivative of {op.name}: '{spec}' needs '{dep}' to be a tensor parameter "
                    "of an operator without tensor lists"
                )
            cond = op.tensor_pos.index(ppos)
        if key.startswith("result"):
            items.append((key, int(key[6:] or 0), True, False, cond))
        else:
            pos = next((k for k, p in enumerate(params) if p.name == key), None)
            if pos is None:
                raise RuntimeError(f"derivative of {op.name} saves unknown argument '{key}'")
            items.append((key, pos, False, kind == "spec", cond))
    return tuple(items)


def _save(node: Node, ent: _Entry, args: tuple[Any, ...], outputs: tuple[Any, ...]) -> None:
    name = node._name
    saved = node.saved
    debug = _debug.on
    for key, pos, is_result, meta_only, cond in ent.plan:
        if cond >= 0 and node.next_functions[cond][0] is None:
            saved[key] = None  # only the gradient of an input that wants none reads it
            continue
        if is_result:
            o = outputs[pos]
            saved[key] = SavedTensor(o, True, name, pos) if isinstance(o, Tensor) else o
            if debug:
                _track(node, o)  # a saved output modified in place fails backward too
            continue
        v = args[pos]
        if isinstance(v, Tensor):
            # Shape-only rules (views, sum, ...) must not keep the values alive or fail the
            # version check when the input is later modified in place (PyTorch saves sizes).
            saved[key] = TensorSpec(v) if meta_only else SavedTensor(v, False, name)
        else:
            saved[key] = save_other(v, meta_only, name)
        if debug and not meta_only:
            _track(node, v)


def _plugin_rule(op: Op, key: tuple[str, str]) -> Any:
    """The derivative rule a plugin registered for ``op`` on ``key`` (looked up as kernels
    are), or None."""
    if op.name in overridden_ops:
        dev, lay = key
        for d, la in ((dev, lay), ("*", lay), (dev, "*"), ("*", "*")):
            r = derivative_overrides.get((op.name, d, la))
            if r is not None:
                return r
    return None


def _one_node_composite(op: Op, key: tuple[str, str]) -> bool:
    """Whether composite ``op`` is recorded on ``key`` as one node, like any operator, its
    kernel running under autograd too instead of the composite's definition: where a plugin
    gave it a derivative for the key (with a kernel of its own: a layout's ``contiguous``),
    or where the derivative table has a rule for it: PyTorch records it as one node
    (``mse_loss``, whose definition then runs untracked as its kernel; the views of
    ``unbind`` and ``split``, as one node's outputs, where the key resolves to a kernel of its
    own -- the strided views' -- not to the definition, which makes views of another layout
    through its parts)."""
    if _plugin_rule(op, key) is not None:
        return True
    if op.name not in _derivatives():
        return False
    if "view" not in op.decl.tags:
        return True  # (its definition, run untracked, is its kernel: ``mse_loss``)
    rec = op.record(key)
    return rec is not None and rec.fn is not _composites().get(op.name)


def _derivatives() -> dict[str, Any]:
    global _DERIVS
    if _DERIVS is None:
        from ..ops.derivatives import DERIVATIVES

        _DERIVS = DERIVATIVES
    return _DERIVS


def _composites() -> dict[str, Any]:
    global _COMPOSITES
    if _COMPOSITES is None:
        # (imported on first use: the composites' module loads the plugin machinery, which
        # ``import tensorcore`` must not)
        from ..ops.composite import COMPOSITES

        _COMPOSITES = COMPOSITES
    return _COMPOSITES


def rule_for(op: Op, key: tuple[str, str]) -> Any:
    """The derivative rule of ``op`` for the dispatch key ``(device type, layout)``: a
    plugin's rule registered for the key, looked up as kernels are (``D/L``, ``*/L``,
    ``D/*``, ``*/*``), else the derivative table's; RuntimeError when there is none.

    Examples
    --------
    >>> from tensorcore.autograd.step import rule_for
    >>> from tensorcore.dispatch import get_op
    >>> rule_for(get_op("mul"), ("cpu", "strided")).saves
    ('self:if=other', 'other:if=self')
    """
    r = _plugin_rule(op, key)
    if r is not None:
        return r
    r = _derivatives().get(op.name)
    if r is None:
        raise RuntimeError(f"the derivative for '{op.name}' is not implemented")
    return r


_NO_EDGE: tuple[None, int] = (None, 0)


def autograd_step(
    op: Op,
    kernel: Any,
    args: tuple[Any, ...],
    out: Any,
    dev: Any,
    inplace: bool,
    key: tuple[str, str],
) -> Any:
    """Run ``op`` and record it in the graph (the dispatch step in front of the kernel)."""
    ent = op.autograd.get(key)
    if ent is None:  # the first recorded call of op on this key
        ent = op.autograd[key] = _Entry(op, key)
    kind = ent.kind
    if kind == _RECORD and not inplace:  # the common case first
        prev = _gm.enabled
        _gm.enabled = False
        try:
            if ent.normalize:
                prepared: list[Any] = []
                res = op.frontend(op, kernel, args, out, dev, False, prepared)  # type: ignore[misc]
                sargs = (
                    prepared[0] if prepared and not op.list_pos else _saved_args(op, args, prepared)
                )
            elif op.frontend is _unchecked and out is None:
                res = kernel(*args)  # (the views: as ops/_call.py calls them)
                sargs = args
            else:
                res = op.frontend(op, kernel, args, out, dev, False)  # type: ignore[misc]
                sargs = args
        finally:
            _gm.enabled = prev
        if isinstance(res, Tensor):  # one output
            node = ent.record(args, (res,), sargs)
            if res._dtype._category >= _FLOATING:
                res._requires_grad = True
                res._grad_fn = node
            return res
        ent.record_outputs(args, res if isinstance(res, tuple) else (res,), sargs)
        return res
    if kind == _COMPOSITE:
        # A composite differentiates through its parts (a fused backend kernel has no rule).
        impl = ent.composite
        if impl is None:
            impl = ent.composite = _composites().get(op.name, False)
        if impl is False:
            # A composite a plugin declared, without a definition here: its kernel, as
            # resolved for this call (a later registration may replace it).
            impl = kernel
        if op.frontend is _unchecked and out is None and not inplace:
            res = impl(*args)  # (as ops/_call.py calls such a kernel)
        else:
            res = op.frontend(op, impl, args, out, dev, inplace)  # type: ignore[misc]
        if inplace and not moves_version(op, impl):
            args[0]._bump_version()
        return res
    if kind == _NONDIFF:
        if inplace:
            check_inplace(args[0])
        res = _untracked(op, kernel, args, out, dev, inplace)
        if inplace and not moves_version(op, kernel):
            args[0]._bump_version()
        return res
    return _inplace_step(op, kernel, args, dev, ent)  # a recorded in-place call


def _untracked(
    op: Op, kernel: Any, args: tuple[Any, ...], out: Any, dev: Any, inplace: bool
) -> Any:
    """The frontend and kernel with recording off (what they call is not part of the graph;
    the recorded path above spells this out to save a call)."""
    prev = _gm.enabled
    _gm.enabled = False
    try:
        return op.frontend(op, kernel, args, out, dev, inplace)  # type: ignore[misc]
    finally:
        _gm.enabled = prev


def _make_node(
    op: Op,
    ent: _Entry,
    args: tuple[Any, ...],
    outputs: tuple[Any, ...],
    save_args: tuple[Any, ...],
) -> Node:
    """The generic recorder: edges and metadata from ``args``, saved values from
    ``save_args`` (the prepared call; an in-place step saves a copy of ``self`` taken before
    the kernel overwrote it)."""
    edges: list[tuple[Node | None, int]] = []
    metas: list[Any] = []
    sl = ent.inputs
    for t in args[sl] if sl is not None else _inputs(op, args):
        if isinstance(t, Tensor):
            if t._requires_grad:
                fn = t._grad_fn
                if fn is not None:
                    if t._base is not None:
                        fn = current_grad_fn(t)  # (its base may have changed in place since)
                    ag = t._ag
                    edges.append((fn, ag.output_nr if ag is not None else 0))
                elif t._base is not None:
                    edges.append(view_edge(t))  # (a view that requires grad through its base)
                else:
                    edges.append((grad_accumulator(t), 0))
            else:
                edges.append(_NO_EDGE)
            metas.append((t._shape, t._dtype))
        else:
            edges.append(_NO_EDGE)
            metas.append(None)
    name = ent.name
    if ent.variant is not None:
        name = ent.variant(args) or name
    node = node_type(name)(name, apply_rule, ent, tuple(edges), metas, len(outputs))
    if ent.plan:
        _save(node, ent, save_args, outputs)
    if ent.view and (o := outputs[0])._base is not None:
        vc = o._version_counter
        node.view_version = (o._storage if vc is None else vc).version
    return node


def check_inplace(self: Tensor) -> None:
    """Refuse an in-place call on ``self`` with grad mode on and an input that requires
    grad, as PyTorch's ``check_inplace``: on a view made other than in grad mode by a plain
    view operator, on a view of a leaf (a base without history) where it requires grad, on
    a leaf that requires grad."""
    base = self._base
    if base is not None:
        check_inplace_on_view(self)
        rg = self._requires_grad or base._requires_grad
        if base._grad_fn is None and rg:
            msg = "a view of a leaf Variable that requires grad is being used in an in-place "
            raise _kept(RuntimeError(msg + "operation."))
    else:
        rg = self._requires_grad
    # (a view without history that requires grad through its base is a leaf here, as
    # PyTorch's is_leaf reads it: made before its base joined the graph)
    if self._grad_fn is None and rg:
        raise _kept(
            RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation."
            )
        )


def _kept(exc: RuntimeError) -> RuntimeError:
    keep_message(exc)  # (PyTorch's wording, which names no operator)
    return exc


def _inplace_step(
    op: Op, kernel: Any, args: tuple[Any, ...], dev: Any, ent: _Entry, saved: Any = None
) -> Any:
    """A recorded in-place call (``saved``, a list, receives what the rule saves from: the
    forward-mode step computes the tangent from it too)."""
    self = args[0]
    base = self._base
    check_inplace(self)
    if base is not None:
        # A view whose base changed in place since its grad_fn was made gets its new
        # history now, before this call moves the version it compares.
        current_grad_fn(self)
    if _debug.on:
        _check_mutation(self, op.name + "_")
    # Rules that read the input's old value get a copy taken before it is overwritten; the
    # copy is recorded (when grad mode is on), so that a double backward reaches the old
    # value's history, as PyTorch's saved original does.
    old_self = self.clone() if ent.saves_self else self
    prev = _gm.enabled
    _gm.enabled = False
    try:
        if ent.normalize:
            prepared: list[Any] = []
            op.frontend(op, kernel, args, None, dev, True, prepared)  # type: ignore[misc]
            saved_args = _saved_args(op, args, prepared)
        else:
            op.frontend(op, kernel, args, None, dev, True)  # type: ignore[misc]
            saved_args = args
        saved_args = (old_self,) + saved_args[1:]
        self._bump_version()
    finally:
        _gm.enabled = prev
    if saved is not None:
        saved.append(saved_args)
    if base is not None:
        # (the version moved by this call's own write: the view is rebased below, and its
        # history up to now, brought up to date above, is what the node's edge leads to)
        written(self)
    node = _make_node(op, ent, args, (self,), saved_args)
    node.next_functions = (edge(self),) + node.next_functions[1:]
    if base is None:
        _set_history(self, node)
        return self
    _rebase_view(self, base, node)
    _link_saved_output(node)
    return self


def _set_history(t: Tensor, node: Node) -> None:
    """``t`` (modified in place) is now output 0 of ``node``; retain_grad follows it."""
    old = t._grad_fn
    t._grad_fn = node
    t._requires_grad = True
    ag = t._ag
    if ag is not None:
        ag.fw_only = False  # (a dual tensor now in the graph requires grad for real)
        old_nr = ag.output_nr
        ag.output_nr = 0
        if ag.retains_grad and old is not None:
            move_retain_grad(t, old, old_nr)


def _in_reals(t: Tensor) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """The geometry of complex ``t`` counted in real numbers (``view_as_real``'s)."""
    return (*t._shape, 2), (*(2 * s for s in t._stride), 1), 2 * t._offset


def _rebase_view(view: Tensor, base: Tensor, fn: Node) -> None:
    """After an in-place op on ``view``, make ``base``'s history go through it (CopySlices).

    A real view of a complex base (``z.real``, ``z.imag``) or a complex view of a real one
    (``view_as_complex``) counts its strides in real numbers: CopySlices then works on the
    base's gradient as ``view_as_real`` sees it, and the view's geometry in reals."""
    geom = (view._shape, view._stride, view._offset)
    bgeom = (base._shape, base._stride, base._offset)
    mixed = 0
    if base._dtype is not view._dtype:
        if base._dtype.is_complex:
            mixed, bgeom = 1, _in_reals(base)
        else:
            mixed, geom = 2, _in_reals(view)
    cs = node_type("CopySlices")("CopySlices", _copy_slices)
    cs.ctx = (geom, bgeom, fn, mixed)
    cs.next_functions = (edge(base),) + fn.next_functions[1:]
    cs.input_meta = [(base._shape, base._dtype)] + fn.input_meta[1:]
    _set_history(base, cs)
    # The view's new history: a view of the new base.
    if mixed:
        fresh = replay(view, base)
        assert fresh is not None
    else:
        fresh = ops.as_strided(base, view._shape, view._stride, view._offset)
    _set_history(view, fresh._grad_fn)


def _link_saved_output(node: Node) -> None:
    """An in-place operator on a view that saved its result: under create_graph the result
    comes back as a view of the base, whose history runs through CopySlices (as the view's
    own history does now), not as the operator's output, as PyTorch's saved in-place view
    output does: a double backward then reaches the operator once, through CopySlices."""
    for v in node.saved.values():
        if v.__class__ is SavedTensor and v.data.__class__ is tuple:
            v.data = (*v.data, True)


def _copy_slices(node: Node, grads: list[Any]) -> list[Any]:
    (shape, stride, off), (bshape, bstride, boff), fn, mixed = node.ctx
    g = grads[0]
    if mixed == 1:  # (a real view of a complex base: the base's gradient in reals)
        g = ops.view_as_real(g)
    lo = min(off, boff)
    hi = max(_last(shape, stride, off), _last(bshape, bstride, boff))
    extent = max(hi - lo + 1, 0)
    buf = ops.zeros(extent, dtype=g._dtype, device=g._device)
    gbase = buf.as_strided(bshape, bstride, boff - lo)
    gbase.copy_(g)
    region = buf.as_strided(shape, stride, off - lo)
    gview = region.clone()
    if mixed == 2:  # (a complex view of a real base)
        gview = ops.view_as_complex(gview)
    res = fn.apply([gview])
    r = res[0] if res[0] is not None else ops.zeros_like(gview)
    region.copy_(ops.view_as_real(r) if mixed == 2 else r)
    # A fresh view of ``buf``: under create_graph, ``gbase``'s history predates the copy into
    # ``region``, so a double backward would miss the in-place operator's derivative.
    gnew = buf.as_strided(bshape, bstride, boff - lo).clone()
    return [ops.view_as_complex(gnew) if mixed == 1 else gnew, *res[1:]]


def _last(shape: tuple[int, ...], stride: tuple[int, ...], off: int) -> int:
    if any(s == 0 for s in shape):
        return off
    return off + sum((n - 1) * s for n, s in zip(shape, stride, strict=True))


# ------------------------------------------------------------------ detect_mutation
class _Debug:
    """The state of :class:`detect_mutation`; the in-place call path (``ops/_call.py``, which
    is given this object by :func:`install`) calls :meth:`check` while it is on."""

    def __init__(self) -> None:
        self.on = False
        self.saved: dict[int, list[tuple[weakref.ref[Node], str]]] = {}

    def check(self, t: Tensor, what: str) -> None:
        """Raise if ``t`` was saved for backward by a node still alive."""
        _check_mutation(t, what)


_debug = _Debug()


def _counter_id(t: Tensor) -> int:
    # Keyed by version counter, not storage: a write through ``x.data`` (a counter of its
    # own) is no mutation of a saved ``x``. A saved tensor keeps its counter alive.
    vc = t._version_counter
    return id(vc if vc is not None else t._storage)


def _track(node: Node, v: Any) -> None:
    for t in v if isinstance(v, (list, tuple)) else (v,):
        if isinstance(t, Tensor) and t._storage is not None:
            _debug.saved.setdefault(_counter_id(t), []).append((weakref.ref(node), node.name()))


def _check_mutation(t: Tensor, what: str) -> None:
    if t._storage is None:
        return
    for ref, name in _debug.saved.get(_counter_id(t), ()):
        n = ref()
        if n is not None and not n.released:
            raise RuntimeError(
                f"detect_mutation: {what} modifies a tensor that {name} saved for backward; "
                "the backward pass would fail. Clone it before modifying it in place."
            )


class detect_mutation:
    """Debug mode: raise at the in-place operation that modifies a tensor saved for backward.

    PyTorch reports such a modification only when ``backward`` runs; inside this context the
    mutating line itself raises, which points straight at the culprit.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.ones(2, requires_grad=True)
    >>> with tc.autograd.detect_mutation():
    ...     y = x.exp()
    ...     try:
    ...         y.mul_(2)
    ...     except RuntimeError as e:
    ...         print("raised")
    raised
    """

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self.prev = _debug.on
        _debug.on = self.mode

    def __exit__(self, *exc: object) -> None:
        _debug.on = self.prev
        if not _debug.on:
            _debug.saved.clear()


def install() -> None:
    """Put the autograd step in front of every kernel (done at ``import tensorcore``)."""
    global sum_to
    from ..ops._call import set_autograd_step
    from ..ops.derivatives import sum_to

    _graph.regenerate_view = _view_history.regenerate
    _graph.view_edge = _view_history.view_edge

    set_autograd_step(autograd_step, _debug)
