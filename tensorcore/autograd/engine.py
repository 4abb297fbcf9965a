"""The backward engine: iterative topological execution of the graph (no recursion)."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from .._tensor import Tensor
from ..ops import factories
from ..ops import functions as ops
from ..ops._validate import STANDARD, keep_message
from ..overrides import state as _tf
from . import grad_mode
from . import graph as _graph
from ._accumulate import HELD as _HELD
from ._accumulate import accumulate as _accumulate
from .anomaly_mode import check_nan
from .anomaly_mode import state as _anomaly
from .graph import (
    FREED_GRAPH,
    NODE_PRE_HOOKS,
    NOTHING_SAVED,
    AccumulateGrad,
    Node,
    edge,
    requires_grad,
)

__all__ = ["backward", "grad", "queue_callback", "run_backward"]


class _Running(threading.local):
    """Per thread: how deep backward calls nest, and the callbacks queued for the end."""

    depth = 0
    callbacks: list[Callable[[], Any]] | None = None


_running = _Running()


def queue_callback(callback: Callable[[], Any]) -> None:
    """Run ``callback()`` once the backward pass now running (in this thread) has finished,
    after every gradient has been accumulated (PyTorch's
    ``Variable._execution_engine.queue_callback``; ``DistributedDataParallel`` waits for its
    gradient all-reduces this way). Callbacks run in the order queued; one may queue more.

    Raises
    ------
    RuntimeError
        When no backward pass is running (call it from a gradient hook).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.autograd.engine import queue_callback
    >>> x = tc.ones(2, requires_grad=True)
    >>> seen = []
    >>> h = x.register_hook(lambda g: queue_callback(lambda: seen.append(x.grad.tolist())))
    >>> x.sum().backward(); seen
    [[1.0, 1.0]]
    """
    if _running.depth == 0 or _running.callbacks is None:
        raise RuntimeError(
            "queue_callback(): no backward pass is running; call it from a gradient hook"
        )
    _running.callbacks.append(callback)


def _as_list(x: Any, arg: str = "", optional: bool = True) -> list[Any]:
    """``x`` (a tensor, or an iterable of tensors; None where ``optional``) as a list; with
    ``arg`` named, anything else is a ``TypeError`` naming it."""
    if x is None and optional:
        return []
    if isinstance(x, Tensor):
        return [x]
    if not arg:
        return list(x)
    if not isinstance(x, (list, tuple)) and hasattr(x, "__iter__") and not isinstance(x, str):
        x = tuple(x)  # PyTorch takes any iterable: dict.values(), a generator
    if not isinstance(x, (list, tuple)) or not (x or optional):
        raise TypeError(
            f"argument '{arg}' must be a Tensor or a non-empty sequence of Tensors, not "
            f"{type(x).__name__}"
        )
    for i, t in enumerate(x):
        if not isinstance(t, Tensor) and not (optional and t is None):
            raise TypeError(f"{arg}[{i}] must be a Tensor, not {type(t).__name__}")
    return list(x)


def _make_grads(outputs: list[Tensor], grads: list[Any]) -> list[Tensor]:
    res = []
    for i, out in enumerate(outputs):
        g = grads[i] if i < len(grads) else None
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not (out._dtype.is_floating_point or out._dtype.is_complex):
                raise RuntimeError(
                    "grad can be implicitly created only for real scalar outputs but got "
                    f"{out._dtype}"
                )
            g = _ones_like(out)
        elif not isinstance(g, Tensor):
            g = factories.tensor(g, dtype=out._dtype, device=out._device)
        elif g._shape != out._shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                f"output[{i}] has a shape of {out.shape}."
            )
        res.append(g)
    return res


def _ones_like(t: Tensor) -> Tensor:

    # ``full`` itself: ones_like and ones are composites of it (two calls less per backward).
    return ops.full(t._shape, 1, dtype=t._dtype, device=t._device)


_graph.queue_end_of_backward = queue_callback


def run_backward(
    outputs: Sequence[Tensor],
    grad_outputs: Sequence[Any],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Tensor] | None = None,
    accumulate: bool = True,
    allow_unused: bool = False,
) -> list[Tensor | None]:
    """Run backward from ``outputs``; accumulate into leaves or return grads of ``inputs``.
    Then run the callbacks hooks queued (:func:`queue_callback`), for the outermost call."""
    outer = _running.depth == 0
    if outer:
        _running.callbacks = []
    _running.depth += 1
    # (the rules run with __torch_function__ off, as PyTorch's run in its engine: an
    # overriding subclass saved for backward is not handed the gradient's operators)
    _tf.off += 1
    _tf.modes_off += 1
    try:
        results = _run_backward(
            outputs, grad_outputs, retain_graph, create_graph, inputs, accumulate, allow_unused
        )
        if outer:
            pending = _running.callbacks
            while pending:
                pending.pop(0)()
    finally:
        _tf.off -= 1
        _tf.modes_off -= 1
        _running.depth -= 1
        if outer:
            _running.callbacks = None
            _HELD.clear()
    return results


def _run_backward(
    outputs: Sequence[Tensor],
    grad_outputs: Sequence[Any],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Tensor] | None,
    accumulate: bool,
    allow_unused: bool,
) -> list[Tensor | None]:
    outputs = list(outputs)
    for i, o in enumerate(outputs):
        if not isinstance(o, Tensor):
            raise TypeError(f"backward(): outputs must be Tensors, got {type(o).__name__}")
        if not requires_grad(o):
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
    grads = _make_grads(outputs, list(grad_outputs))
    roots = [edge(o) for o in outputs]

    # Capture points for autograd.grad / backward(inputs=...).
    capture: dict[tuple[Node | None, int], int] = {}
    wanted_leaves: set[int] | None = None
    if inputs is not None:
        wanted_leaves = set()
        for k, t in enumerate(inputs):
            if not isinstance(t, Tensor):
                raise TypeError("inputs must be Tensors")
            if not requires_grad(t):
                raise RuntimeError(
                    f"One of the differentiated Tensors does not require grad (input {k})"
                )
            capture[edge(t)] = k
            if t._grad_fn is None:
                wanted_leaves.add(id(t))
        if accumulate:
            # backward(inputs=...) accumulates into a non-leaf's .grad too (PyTorch makes it
            # retain its gradient), once every input has passed the checks above.
            for t in inputs:
                if t._grad_fn is not None:
                    t.retain_grad()
    results: list[Tensor | None] = [None] * (len(inputs) if inputs is not None else 0)

    # Dependency counts over the reachable graph, found iteratively (nodes hash by identity).
    deps: dict[Node, int] = {}
    # Each root node once: several outputs of one node are one start (counting its inputs
    # once per output would leave them waiting for consumers that never come).
    starts = {n for n, _ in roots if n is not None}
    stack = list(starts)
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is not None:
                if nxt in deps:
                    deps[nxt] += 1
                else:
                    deps[nxt] = 1
                    if nxt not in starts:
                        stack.append(nxt)
    # With inputs, only the nodes on a path to one of them run (PyTorch's engine does the
    # same): the history behind an input, or beside it, is not differentiated. Without this
    # a gradient with respect to a late tensor would differentiate the whole graph before it
    # (and, with create_graph, nested gradients would do so again at every level).
    unneeded = _unneeded(starts, {n for n, _ in capture}) if capture else _NONE
    for skipped in unneeded:
        deps.pop(skipped, None)

    # Gradients waiting for more of their node's consumers; a node's last (most often its
    # only) consumer hands the node and its gradients to ``ready`` directly.
    buffers: dict[Node, list[Any]] = {}
    for (n, nr), g in zip(roots, grads, strict=True):
        if n is None:
            continue
        buf = buffers.setdefault(n, [None] * n.n_outputs)
        buf[nr] = g if buf[nr] is None else buf[nr] + g
    ready: list[tuple[Node, list[Any] | None]] = []
    for n in list(buffers):
        if n not in deps and n not in unneeded:
            ready.append((n, buffers.pop(n)))

    # Storages already handed out as a .grad (or given by the caller) are never stolen.
    stored: set[int] = {id(g._storage) for g in grads}
    pop, push = ready.pop, ready.append
    # The general path checks for NaN in anomaly mode.
    plain = not capture and not (_anomaly.enabled and _anomaly.check_nan)
    with grad_mode.set_grad_enabled(create_graph):
        try:
            while ready:
                node, gbuf = pop()
                if plain and node.__class__ is not AccumulateGrad and node.pre_hooks is None:
                    # The common node: a rule or a Function, no hooks before it, nothing to capture.
                    if node.released:
                        raise RuntimeError(FREED_GRAPH)
                    if gbuf is None or (gbuf[0] is None and all(g is None for g in gbuf)):
                        in_grads: Sequence[Any] = (None,) * len(node.next_functions)
                    else:
                        in_grads = node.fn(node, gbuf)  # type: ignore[misc]
                        if node.hooks:
                            in_grads = _run_hooks(node, in_grads, gbuf)
                    if not retain_graph and getattr(node.ctx, "frees", True):  # Node.release
                        node.released = True
                        node.saved = NOTHING_SAVED
                        if node.hooks:
                            node.hooks = ()
                else:
                    general = _run_node_general(
                        node,
                        gbuf,
                        capture,
                        results,
                        accumulate,
                        wanted_leaves,
                        create_graph,
                        stored,
                    )
                    if general is None:
                        continue
                    in_grads = general
                    if not retain_graph:
                        node.release()
                # (no strict= keyword: it costs 0.2 us per call on this per-node path)
                for (nxt, nr), g in zip(node.next_functions, in_grads):  # noqa: B905
                    if nxt is None or nxt in unneeded:
                        continue
                    left = deps[nxt] - 1
                    if left == 0 and nxt not in buffers:
                        # The last consumer, and nothing buffered: straight to ready.
                        if g is None:
                            push((nxt, None))
                        elif nxt.n_outputs == 1:
                            push((nxt, [g]))
                        else:
                            fresh: list[Any] = [None] * nxt.n_outputs
                            fresh[nr] = g
                            push((nxt, fresh))
                        continue
                    deps[nxt] = left
                    if g is not None:
                        nbuf = buffers.get(nxt)
                        if nbuf is None:
                            nbuf = buffers[nxt] = [None] * nxt.n_outputs
                        nbuf[nr] = g if nbuf[nr] is None else nbuf[nr] + g
                    if left == 0:
                        push((nxt, buffers.pop(nxt, None)))
        except STANDARD as exc:
            keep_message(exc)
            raise
    if inputs is not None and not allow_unused:
        for i, r in enumerate(results):
            if r is None:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
    return results


_NONE: frozenset[Node] = frozenset()


def _unneeded(starts: set[Node], targets: set[Node | None]) -> set[Node]:
    """The nodes reachable from ``starts`` from which no path leads to a node of
    ``targets``."""
    consumers: dict[Node, list[Node]] = {}
    seen = set(starts)
    stack = list(starts)
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is not None:
                consumers.setdefault(nxt, []).append(node)
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    needed = {t for t in targets if t in seen}
    stack = list(needed)
    while stack:
        for up in consumers.get(stack.pop(), ()):
            if up not in needed:
                needed.add(up)
                stack.append(up)
    return seen - needed


def _run_node_general(
    node: Node,
    gbuf: list[Any] | None,
    capture: dict[tuple[Node | None, int], int],
    results: list[Any],
    accumulate: bool,
    wanted_leaves: set[int] | None,
    create_graph: bool,
    stored: set[int],
) -> Sequence[Any] | None:
    """One node with hooks before it, a capture point or a leaf's accumulator: the
    gradients of its inputs, or None when nothing flows on (a leaf)."""
    if gbuf is None:
        gbuf = [None] * node.n_outputs
    if node.pre_hooks:
        for nr, hooks in node.pre_hooks.items():
            if nr == NODE_PRE_HOOKS:
                continue
            for hook in hooks:
                if gbuf[nr] is not None:
                    r = hook(gbuf[nr])
                    if r is not None and r is not gbuf[nr]:
                        _check_hook_result(hook, gbuf[nr], r)
                        gbuf[nr] = r
                        stored.add(id(r._storage))  # the hook's caller may keep it
        for hook in node.pre_hooks.get(NODE_PRE_HOOKS, ()):
            r = hook(tuple(gbuf))
            if r is not None:
                gbuf = list(_replaced(node, "pre-hook", tuple(gbuf), r))
                stored.update(id(g._storage) for g in gbuf if g is not None)
    if capture:
        for nr in range(node.n_outputs):
            slot = capture.get((node, nr))
            if slot is not None and gbuf[nr] is not None:
                results[slot] = gbuf[nr]
    if node.__class__ is AccumulateGrad:
        g = gbuf[0]
        leaf = node.variable
        if leaf is None:
            return None
        if g is not None and leaf._ag is not None:
            for hook in leaf._ag.hooks:
                r = hook(g)
                if r is not None and r is not g:
                    _check_hook_result(hook, g, r)
                    g = r
                    stored.add(id(r._storage))  # the hook's caller may keep it
        if g is not None and accumulate and (wanted_leaves is None or id(leaf) in wanted_leaves):
            _accumulate(leaf, g, create_graph, stored)
            if leaf._ag is not None:
                for post in leaf._ag.post_accumulate_hooks:
                    post(leaf)
        return None
    if node.released:
        raise RuntimeError(FREED_GRAPH)
    if all(g is None for g in gbuf):
        return (None,) * len(node.next_functions)
    in_grads: Sequence[Any] = node.apply(gbuf)
    if _anomaly.enabled and _anomaly.check_nan:
        check_nan(node.name(), in_grads)
    if node.hooks:
        in_grads = _run_hooks(node, in_grads, gbuf)
    return in_grads


def _check_hook_result(hook: Any, old: Any, new: Any) -> None:
    """A tensor hook's result stands in for the gradient ``old``: PyTorch's errors where it
    could not (another shape, dtype or device would fail later, far from the hook)."""
    name = getattr(hook, "__name__", type(hook).__name__)
    if not isinstance(new, Tensor):
        raise TypeError(
            f"expected Variable, but hook returned '{type(new).__name__}' (hook '{name}' must "
            "return a Tensor or None)"
        )
    if new._shape != old._shape:
        raise RuntimeError(
            f"hook '{name}' has changed the size of value (was {list(old._shape)} got "
            f"{list(new._shape)})"
        )
    if new._dtype is not old._dtype or new._device != old._device:
        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was {old._dtype} on {old._device} "
            f"got {new._dtype} on {new._device})"
        )


def _run_hooks(node: Node, in_grads: Sequence[Any], gbuf: list[Any]) -> Sequence[Any]:
    """``node``'s hooks, each called with its inputs' and outputs' gradients; a non-None
    result replaces the inputs' gradients."""
    outs = tuple(gbuf)
    for hook in node.hooks:
        r = hook(tuple(in_grads), outs)
        if r is not None:
            in_grads = _replaced(node, "hook", tuple(in_grads), r)
    return in_grads


def _replaced(node: Node, kind: str, old: tuple[Any, ...], new: Any) -> tuple[Any, ...]:
    """A node hook's result, checked to stand in for ``old``."""
    new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
    if len(new) != len(old):
        raise RuntimeError(
            f"{kind} of {node.name()} returned an incorrect number of gradients "
            f"(got {len(new)}, but expected {len(old)})"
        )
    return new


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """Compute the gradients of ``tensors`` and accumulate them into the leaves' ``.grad``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([1.0, 2.0], requires_grad=True)
    >>> tc.autograd.backward((x * x).sum())
    >>> x.grad
    tensor([2., 4.])
    """
    outs = _as_list(tensors, "tensors", optional=False)
    gs = _as_list(grad_tensors, "grad_tensors")
    if retain_graph is None:
        retain_graph = create_graph
    ins = None if inputs is None else _as_list(inputs, "inputs")
    if ins is not None and not ins:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    run_backward(outs, gs, retain_graph, create_graph, ins, accumulate=True, allow_unused=True)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, without touching ``.grad``.

    ``only_inputs`` is PyTorch's deprecated argument, ignored (``False`` warns).
    With ``is_grads_batched=True`` the first dimension of each of ``grad_outputs`` is a
    batch: each gradient gets the same leading dimension, one vector-Jacobian product per
    entry (PyTorch vectorizes the loop with vmap; the values are the same).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor(3.0, requires_grad=True)
    >>> (g,) = tc.autograd.grad(x ** 3, x, create_graph=True)
    >>> g.item(), tc.autograd.grad(g, x)[0].item()
    (27.0, 18.0)
    """
    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but "
            "got: allow_unused=False."
        )
    outs = _as_list(outputs, "outputs", optional=False)
    ins = _as_list(inputs, "inputs")
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    gs = _as_list(grad_outputs, "grad_outputs")
    if not only_inputs:
        warnings.warn(
            "only_inputs argument is deprecated and is ignored now (defaults to True). To "
            "accumulate gradient for other parts of the graph, please use "
            "torch.autograd.backward.",
            FutureWarning,
            stacklevel=2,
        )
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        return _batched_grad(
            outs, ins, gs, retain_graph, create_graph, allow_unused, materialize_grads
        )
    res = run_backward(
        outs,
        gs,
        retain_graph,
        create_graph,
        ins,
        accumulate=False,
        allow_unused=bool(allow_unused) or materialize_grads,
    )
    if materialize_grads:
        res = [r if r is not None else ops.zeros_like(i) for r, i in zip(res, ins, strict=True)]
    return tuple(res)


def _batched_grad(
    outs: list[Tensor],
    ins: list[Tensor],
    gs: list[Any],
    retain_graph: bool,
    create_graph: bool,
    allow_unused: bool | None,
    materialize_grads: bool,
) -> tuple[Tensor | None, ...]:
    """``grad`` with ``is_grads_batched``: one call per entry of the leading dimension."""
    if len(gs) != len(outs) or any(g is None for g in gs):
        raise RuntimeError(
            "If `is_grads_batched=True`, we interpret the first dimension of "
            "each grad_output as the batch dimension. The sizes of the remaining "
            "dimensions are expected to match the shape of corresponding output"
        )
    n = gs[0].shape[0] if gs[0].dim() else 0
    for g, o in zip(gs, outs, strict=True):
        if g.dim() == 0 or g.shape[0] != n or tuple(g.shape[1:]) != tuple(o.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions "
                f"are expected to match the shape of corresponding output, but a mismatch "
                f"was detected: grad_output has shape {list(g.shape)} and output has shape "
                f"{list(o.shape)}."
            )
    rows = [
        grad(
            outs,
            ins,
            [g[k] for g in gs],
            retain_graph=retain_graph or k < n - 1,
            create_graph=create_graph,
            allow_unused=allow_unused,
            materialize_grads=materialize_grads,
        )
        for k in range(n)
    ]
    res: list[Tensor | None] = []
    for j, i in enumerate(ins):
        col = [c for r in rows if (c := r[j]) is not None]
        if len(col) < len(rows):
            res.append(None)
        elif not col:
            res.append(ops.zeros((0, *i.shape), dtype=i.dtype, device=i.device))
        else:
            res.append(ops.stack(col))
    return tuple(res)
