"""Recording a node, compiled once per (operator, dispatch key).

The generic recorder (``step._make_node``) loops over the tensor inputs and over the rule's
save plan on every call. Both are fixed for an operator: its signature says where the tensors
are, its derivative rule what it saves. So the first recorded call of an operator on a
dispatch key compiles a function with those loops unrolled (as ``ops/_api.py`` compiles the
operator functions from their signatures), which builds the node's edges, input metadata and
saved values in straight-line code. It makes the same node as the generic recorder; operators
with tensor-list parameters and ``detect_mutation`` mode keep the generic one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._tensor import Tensor
from . import _view_history
from .graph import (
    Node,
    SavedTensor,
    TensorSpec,
    current_grad_fn,
    grad_accumulator,
    node_type,
)

if TYPE_CHECKING:
    from ..dispatch import Op

__all__ = ["compile_recorder", "save_other"]

_NO_EDGE: tuple[None, int] = (None, 0)

_INPUT = """\
    t{i} = args[{pos}]
    if isinstance(t{i}, Tensor):
        m{i} = (t{i}._shape, t{i}._dtype)
        if t{i}._requires_grad:
            f = t{i}._grad_fn
            if f is None:
                e{i} = (_acc(t{i}), 0) if t{i}._base is None else _view_edge(t{i})
            else:
                if t{i}._base is not None:
                    f = _current(t{i})  # (a view: its base may have changed in place since)
                ag = t{i}._ag
                e{i} = (f, 0) if ag is None else (f, ag.output_nr)
        else:
            e{i} = _NO_EDGE
    else:
        m{i} = None
        e{i} = _NO_EDGE
"""


def save_other(v: Any, meta_only: bool, name: str) -> Any:
    """What is saved of a non-tensor argument: tensors inside a list or tuple are saved one
    by one, anything else as it is (both recorders use it)."""
    if isinstance(v, (list, tuple)):
        for x in v:  # (a loop, not ``any`` over a generator: a third of a reduction's save)
            if isinstance(x, Tensor):
                return [
                    x
                    if not isinstance(x, Tensor)
                    else TensorSpec(x)
                    if meta_only
                    else SavedTensor(x, False, name)
                    for x in v
                ]
    return v


#: :attr:`OpDecl.node_rules`' kinds as inline tests of an argument ``{a}`` (the tests of
#: ``_declare._NODE_KINDS``, written out for the compiled recorder).
_NODE_TESTS = {
    "": "{a} is not None",
    "tensor": "isinstance({a}, Tensor)",
    "number": "isinstance({a}, _NUMBERS)",
    "list": "isinstance({a}, (list, tuple))",
}

#: Classes of arguments that :func:`save_other` returns as they are.
_PLAIN = frozenset({int, float, bool, complex, str, type(None)})


def compile_recorder(
    op: Op,
    ent: Any,
    apply_rule: Callable[..., Any],
    debug: Any,
    generic: Callable[..., Node],
) -> Callable[[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]], Node] | None:
    """``record(args, outputs, sargs) -> Node`` for ``op``'s entry ``ent`` (a
    ``step._Entry``): edges from the caller's ``args``, saved values from the prepared call
    ``sargs``; None where the generic recorder must run (tensor-list parameters)."""
    if op.list_pos:
        return None
    src = [
        "def record(args, outputs, sargs):",
        "    if _debug.on:",
        "        return _generic(args, outputs, sargs)",
    ]
    n = len(op.tensor_pos)
    for i, pos in enumerate(op.tensor_pos):
        src.append(_INPUT.format(i=i, pos=pos).rstrip("\n"))
    items = []
    params = op.decl.parsed.params
    for key, pos, is_result, meta_only, cond in ent.plan:
        if is_result:
            expr = (
                f"(SavedTensor(outputs[{pos}], True, _NAME, {pos}) "
                f"if isinstance(outputs[{pos}], Tensor) else outputs[{pos}])"
            )
        else:
            v = f"sargs[{pos}]"
            saved = "TensorSpec(v)" if meta_only else "SavedTensor(v, False, _NAME)"
            # (a number, a string or None is saved as it is: no call for the common case,
            # and no test for a tensor first where the parameter is not declared one)
            other = f"_save_other(v, {meta_only}, _NAME)"
            if params[pos].type.startswith("Tensor"):
                expr = (
                    f"({saved} if isinstance((v := {v}), Tensor) else "
                    f"v if v.__class__ in _PLAIN else {other})"
                )
            else:
                expr = (
                    f"(v if (v := {v}).__class__ in _PLAIN else "
                    f"{saved} if isinstance(v, Tensor) else {other})"
                )
        if cond >= 0:
            expr = f"(None if e{cond} is _NO_EDGE else {expr})"
        items.append(f"{key!r}: {expr}")
    if ent.variant is not None:
        # (saved values name the node they belong to, whose name the arguments decide)
        items = [item.replace("_NAME", "node._name") for item in items]
    tup = "".join(f"e{i}, " for i in range(n))
    mtup = "".join(f"m{i}, " for i in range(n))
    variants: dict[str, Any] = {}
    if ent.variant is None:
        src += ["    node = _new(Node)", "    node._name = _NAME"]
    elif op.decl.node_rules:
        # An overload PyTorch names apart (``step._Entry.variant``), its rules inlined: the
        # first that holds names the node.
        for i, (pos, kind, name) in enumerate(op.decl.node_rules):
            test = _NODE_TESTS[kind].format(a=f"args[{pos}]")
            src.append(f"    {'el' if i else ''}if len(args) > {pos} and {test}:")
            src += [f"        node = _new(_V{i})", f"        node._name = {name!r}"]
            variants[f"_V{i}"] = node_type(name)
        src += ["    else:", "        node = _new(Node)", "        node._name = _NAME"]
    else:
        src += [
            "    name = _variant(args) or _NAME",
            "    node = _new(_node_type(name))",
            "    node._name = name",
        ]
    src += [
        "    node.fn = _apply_rule",
        "    node.ctx = _ENT",
        "    node.n_outputs = len(outputs)",
        f"    node.next_functions = ({tup})",
        f"    node.input_meta = [{mtup}]",
        "    node.pre_hooks = None",
        "    node.hooks = ()",
        "    node.released = False",
        "    node.saved = {" + ", ".join(items) + "}",
    ]
    if ent.view:
        # (the view's grad_fn is this node, made at its version counter's current count)
        src += [
            "    if (o := outputs[0])._base is not None:",
            "        vc = o._version_counter",
            "        node.view_version = (o._storage if vc is None else vc).version",
        ]
    src += ["    return node"]
    ns: dict[str, Any] = {
        "Tensor": Tensor,
        "Node": node_type(ent.name),
        "SavedTensor": SavedTensor,
        "TensorSpec": TensorSpec,
        "_new": object.__new__,
        "_acc": grad_accumulator,
        "_NO_EDGE": _NO_EDGE,
        "__name__": __name__,  # (the compiled recorder's frames belong to this module)
        "_NAME": ent.name,
        "_variant": ent.variant,
        "_node_type": node_type,
        "_NUMBERS": (bool, int, float, complex),
        **variants,
        "_ENT": ent,
        "_apply_rule": apply_rule,
        "_save_other": save_other,
        "_PLAIN": _PLAIN,
        "_debug": debug,
        "_generic": generic,
        "_current": current_grad_fn,
        "_view_edge": _view_history.view_edge,
    }
    exec(compile("\n".join(src) + "\n", f"<tensorcore record {op.name}>", "exec"), ns)
    return ns["record"]
