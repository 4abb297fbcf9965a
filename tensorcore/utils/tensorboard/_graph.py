"""``SummaryWriter.add_graph``: a model's graph for TensorBoard's graph plugin.

PyTorch traces the model with TorchScript and writes the trace as a TensorFlow ``GraphDef``.
tensorcore has no TorchScript; it runs the model once with recording on and reads the
autograd graph of the outputs instead: each recorded operation is a node (``addmm``,
``relu``...), named in the scope of the module that ran it (``Net/Linear[fc]/addmm``, as
PyTorch's names are), with its inputs as edges, the parameters as ``Parameter`` nodes and the
inputs and outputs as ``IO Node`` nodes. Operations that record nothing (on tensors that
need no gradient, integer arithmetic) do not appear.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from typing import Any

from ..._tensor import Tensor
from ...autograd import grad_mode
from ...nn.modules.module import Module
from . import _proto

__all__ = ["graph_def"]

_BACKWARD = re.compile(r"Backward\d*$")


def _shape(t: Tensor) -> bytes:
    # TensorShapeProto: dim 2 (Dim: size 1)
    return b"".join(_proto.bytes_field(2, _proto.int_field(1, n)) for n in t.shape)


def _node(name: str, op: str, inputs: list[str], shape: Tensor | None, attr: str) -> bytes:
    """A ``NodeDef``: name 1, op 2, input 3, attr 5 (map entries: key 1, ``AttrValue`` 2,
    whose list 1 holds shapes 7 and whose s 2 a string)."""
    out = _proto.string_field(1, name) + _proto.string_field(2, op)
    out += b"".join(_proto.string_field(3, i) for i in inputs)
    entry = _proto.string_field(1, "attr") + _proto.bytes_field(2, _proto.string_field(2, attr))
    out += _proto.bytes_field(5, entry)
    if shape is not None:
        shapes = _proto.bytes_field(1, _proto.bytes_field(7, _shape(shape)))
        entry = _proto.string_field(1, "_output_shapes") + _proto.bytes_field(2, shapes)
        out += _proto.bytes_field(5, entry)
    return out


def _tensors(obj: Any) -> Iterator[Tensor]:
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _tensors(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _tensors(o)


def graph_def(model: Module, input_to_model: Any) -> bytes:
    """The serialized ``GraphDef`` of ``model(*input_to_model)``."""
    args = input_to_model if isinstance(input_to_model, (list, tuple)) else (input_to_model,)
    if input_to_model is None:
        args = ()
    # The inputs as leaves that require grad, so that the graph reaches them.
    leaves = [
        a.detach().requires_grad_() if isinstance(a, Tensor) and a.is_floating_point() else a
        for a in args
    ]
    root = type(model).__name__
    scopes = {id(model): root}
    for name, m in model.named_modules():
        if name:
            parent = scopes[id(model.get_submodule(name.rpartition(".")[0]))]
            scopes.setdefault(id(m), f"{parent}/{type(m).__name__}[{name.rpartition('.')[2]}]")
    scope_of: dict[int, str] = {}  # id(autograd node) -> scope of the module that made it
    keep: list[Any] = []  # (the nodes, so that their ids stay theirs)

    def claim(outputs: Any, scope: str) -> None:
        todo = [t.grad_fn for t in _tensors(outputs) if t.grad_fn is not None]
        while todo:
            fn = todo.pop()
            if fn is None or id(fn) in scope_of or fn.name() == "AccumulateGrad":
                continue
            scope_of[id(fn)] = scope
            keep.append(fn)
            todo.extend(f for f, _ in fn.next_functions)

    running = [root]  # the scopes of the module calls under way

    def pre(m: Module, inputs: Any) -> None:
        # What the inputs' history holds that no module claimed yet was made by the caller.
        claim(inputs, running[-1])
        running.append(scopes.get(id(m), root))

    def post(m: Module, inputs: Any, output: Any) -> None:
        claim(output, running.pop())

    handles = [m.register_forward_pre_hook(pre) for m in model.modules() if m is not model]
    handles += [m.register_forward_hook(post) for m in model.modules() if m is not model]
    try:
        with grad_mode.enable_grad():
            output = model(*leaves)
    finally:
        for h in handles:
            h.remove()
    claim(output, root)

    params = {id(p): n for n, p in model.named_parameters()}
    try:
        arg_names = list(inspect.signature(model.forward).parameters)
    except (TypeError, ValueError):
        arg_names = []
    nodes: list[bytes] = []
    names: dict[int, str] = {}
    counts: dict[str, int] = {}
    for i, a in enumerate(leaves):
        if isinstance(a, Tensor):
            name = f"input/{arg_names[i] if i < len(arg_names) else f'input.{i}'}"
            names[id(a)] = name
            nodes.append(_node(name, "IO Node", [], a, ""))

    def leaf(var: Tensor) -> str:
        if id(var) not in names:
            pname = params.get(id(var), f"leaf.{len(names)}")
            module, _, attr = pname.rpartition(".")
            scope = scopes[id(model.get_submodule(module))] if module else root
            names[id(var)] = f"{scope}/{attr}"
            nodes.append(_node(names[id(var)], "Parameter", [], var, f"{{ name :  {attr} }}"))
        return names[id(var)]

    def name_of(top: Any) -> str:
        """The node of ``top``, written after the nodes it uses (iteratively: a deep model's
        graph is deeper than Python's recursion)."""
        stack = [(top, False)]
        while stack:
            fn, ready = stack.pop()
            if id(fn) in names:
                continue
            if fn.name() == "AccumulateGrad":
                names[id(fn)] = leaf(fn.variable)
                keep.append(fn)
                continue
            pending = [f for f, _ in fn.next_functions if f is not None and id(f) not in names]
            if not ready and pending:
                stack.append((fn, True))
                stack.extend((f, False) for f in pending)
                continue
            inputs = [names[id(f)] for f, _ in fn.next_functions if f is not None]
            op = _BACKWARD.sub("", fn.name()).lower()
            base = f"{scope_of.get(id(fn), root)}/{op}"
            counts[base] = counts.get(base, 0) + 1
            names[id(fn)] = base if counts[base] == 1 else f"{base}.{counts[base] - 1}"
            keep.append(fn)
            nodes.append(_node(names[id(fn)], op, inputs, None, "{}"))
        return names[id(top)]

    for i, t in enumerate(_tensors(output)):
        src = names.get(id(t)) if t.grad_fn is None else name_of(t.grad_fn)
        nodes.append(_node(f"output/output.{i + 1}", "IO Node", [src] if src else [], t, ""))
    # GraphDef: node 1, versions 4 (VersionDef: producer 1), PyTorch's producer number.
    return b"".join(_proto.bytes_field(1, n) for n in nodes) + _proto.bytes_field(
        4, _proto.int_field(1, 22)
    )
