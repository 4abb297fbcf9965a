"""The autograd graph: nodes, saved tensors and gradient accumulators.

A node is created for every recorded operation; ``next_functions`` point at the nodes that
produced its differentiable inputs (an :class:`AccumulateGrad` for leaves). Outputs are saved
without a ``grad_fn`` so that a node never keeps itself alive through its own outputs.
"""

from __future__ import annotations

import contextlib
import re
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .._tensor import KEEP_MESSAGE, Size, adopt_base_grad
from .._tensor import make_tensor as _make_tensor
from ..dtypes import FLOATING as _FLOATING
from ..layouts import contiguous_format, strided
from ..ops._signature import camel
from . import grad_mode
from .anomaly_mode import state as _anomaly

if TYPE_CHECKING:
    from .._tensor import Tensor

_gm = grad_mode._state
# A node's name without its ``Backward<n>`` (PyTorch's in-place error names ``Exp``).
_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")

FREED_GRAPH = (
    "Trying to backward through the graph a second time (or directly access saved "
    "tensors after they have already been freed). Saved intermediate values of the "
    "graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or "
    "if you need to access saved tensors after calling backward."
)

__all__ = [
    "AccumulateGrad",
    "AutogradMeta",
    "Node",
    "RetainGrad",
    "SavedTensor",
    "TensorSpec",
    "add_tensor_hook",
    "camel",
    "current_grad_fn",
    "disable_saved_tensors_hooks",
    "increment_version",
    "move_retain_grad",
    "node_type",
    "register_multi_grad_hook",
    "requires_grad",
    "save_on_cpu",
    "saved_tensors_hooks",
]


class AutogradMeta:
    """Per-tensor autograd state that most tensors never need."""

    __slots__ = (
        "accumulator",
        "fw_grad",
        "fw_only",
        "hooks",
        "output_nr",
        "post_accumulate_hooks",
        "retains_grad",
    )

    def __init__(self, output_nr: int = 0) -> None:
        self.output_nr = output_nr
        self.retains_grad = False
        self.hooks: list[Callable[[Any], Any]] = []
        # Called with the leaf after a gradient was accumulated into its ``.grad``.
        self.post_accumulate_hooks: list[Callable[[Any], Any]] = []
        self.accumulator: AccumulateGrad | None = None
        # Forward-mode AD: the tangent at the open dual level, and whether the tensor's
        # ``_requires_grad`` is set only because it has one (so that the call path's one
        # "needs autograd" test sends it to the autograd step); its public
        # ``requires_grad`` is then False (``requires_grad(t)`` below).
        self.fw_grad: Any = None
        self.fw_only = False


def requires_grad(t: Tensor) -> bool:
    """``t.requires_grad`` as the public API sees it: ``_requires_grad``, unless that is set
    only because ``t`` carries a forward-mode tangent; a view whose base requires grad
    requires grad (it was made before its base joined the graph)."""
    if not t._requires_grad:
        b = t._base
        return b is not None and b._requires_grad and adopt_base_grad(t)
    ag = t._ag
    return ag is None or not ag.fw_only


def autograd_meta(t: Tensor) -> AutogradMeta:
    """The tensor's autograd metadata, created on first need."""
    m = t._ag
    if m is None:
        m = t._ag = AutogradMeta()
    return m


class _SavedHooks(threading.local):
    """Per thread: the active ``saved_tensors_hooks`` pairs (innermost last), and the
    messages of the ``disable_saved_tensors_hooks`` blocks around them."""

    def __init__(self) -> None:
        self.stack: list[tuple[Callable[[Any], Any], Callable[[Any], Any]]] = []
        self.disabled: list[str] = []


_hooks = _SavedHooks()
#: How many ``saved_tensors_hooks`` blocks are open over all threads: a saved tensor looks
#: for this thread's hooks only while some are (nothing to pay otherwise).
_hooks_active = 0


class _Packed:
    """A saved tensor as a ``saved_tensors_hooks`` pack hook returned it."""

    __slots__ = ("acc", "is_output", "packed", "unpack")

    def __init__(
        self, packed: Any, unpack: Callable[[Any], Any], is_output: bool, acc: Any = None
    ) -> None:
        self.packed, self.unpack, self.is_output = packed, unpack, is_output
        #: A saved leaf's gradient accumulator: the unpacked tensor feeds it under
        #: create_graph, as the leaf itself would.
        self.acc = acc


#: PyTorch's refusal to save an inference tensor (made in ``inference_mode``) for backward.
INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead "
    "of `torch.inference_mode()`."
)


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    An input is kept as the tensor itself. An output is kept as its fields only (storage,
    geometry, dtype, ...): a node must not keep itself alive through its own output's
    ``grad_fn``, and a tensor is rebuilt only if backward runs.
    """

    __slots__ = ("data", "output_nr", "producer", "version")

    def __init__(self, t: Tensor, is_output: bool, node_name: str, output_nr: int = 0) -> None:
        st = t._storage
        if st is not None and st.inference:
            exc = RuntimeError(INFERENCE_SAVED)
            setattr(exc, KEEP_MESSAGE, True)
            raise exc
        vc = t._version_counter
        if vc is not None:
            self.version = vc.version
        else:
            self.version = st.version if st is not None else t._version
        if _hooks_active and _hooks.stack:
            # (``saved_tensors_hooks``: what the pack hook returns is kept instead)
            pack, unpack = _hooks.stack[-1]
            leaf = not is_output and t._grad_fn is None and t._requires_grad
            acc = grad_accumulator(t) if leaf else None
            self.data: Any = _Packed(pack(t), unpack, is_output, acc)
            self.producer: Any = node_name if is_output else t._grad_fn
            ag = t._ag
            self.output_nr = output_nr if is_output else ag.output_nr if ag is not None else 0
            return
        if is_output:
            self.data = (
                st,
                t._shape,
                t._stride,
                t._offset,
                t._dtype,
                t._device,
                t._native,
                t._layout,
                t._base,
                vc,
            )
            self.producer = node_name
            self.output_nr = output_nr
        else:
            self.data = t
            self.producer = t._grad_fn
            ag = t._ag
            self.output_nr = ag.output_nr if ag is not None else 0

    @property
    def grad_fn_name(self) -> str | None:
        """Name of the node that produced the saved tensor (for error messages)."""
        p = self.producer
        return p if isinstance(p, str) or p is None else p.name()

    def _modified_message(self, t: Tensor, is_input: bool, version: int) -> str:
        """PyTorch's words for a saved tensor changed in place: the legacy type name and
        shape, the operation that produced it (the node that saved an output; an input's
        grad_fn as it is now), its name without ``Backward0``, and the hint."""
        if is_input:
            fn = current_grad_fn(t)
            name = None if fn is None else fn.name()
            nr = t._ag.output_nr if t._ag is not None else 0
        else:
            name, nr = self.grad_fn_name, self.output_nr
        what = f", which is output {nr} of {_BACKWARD_SUFFIX.sub('', name)}," if name else ""
        if _anomaly.enabled:
            hint = (
                "the backtrace further above shows the operation that failed to compute its "
                "gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!"
            )
        else:
            hint = (
                "enable anomaly detection to find the operation that failed to compute its "
                "gradient, with tensorcore.autograd.set_detect_anomaly(True, check_nan=False)."
            )
        return (
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{t.type()} {list(t._shape)}]{what} is at version {version}; "
            f"expected version {self.version} instead. Hint: {hint}"
        )

    def unpack(self, node: Node | None) -> Tensor:
        """The saved tensor; raises if it was modified in place since it was saved. A saved
        output comes back with ``node`` as its ``grad_fn`` (so double backward flows through
        the node that saved it)."""
        d = self.data
        if d is None:
            raise RuntimeError(FREED_GRAPH)
        if d.__class__ is tuple:
            t = _make_tensor(d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7])
            t._base = d[8]
            t._version_counter = d[9]
        elif d.__class__ is _Packed:
            # The unpack hook's tensor: as PyTorch's, not checked for in-place changes (the
            # hooks own what was saved), and linked to ``node`` when it stands for an output.
            t = d.unpack(d.packed)
            if not isinstance(t, _tensor_type()):
                raise TypeError(
                    "Output of saved tensor unpack_hook expected to be a Tensor but got result "
                    f"of type {type(t).__name__}"
                )
            if not _gm.enabled or t._dtype._category < _FLOATING:
                return t
            # Linked into the graph where the saved tensor was (a graph recorded through the
            # rule, create_graph, differentiates through it), as PyTorch's unpacked value.
            fn = node if d.is_output else self.producer
            if fn is not None and not isinstance(fn, str):
                t = t.detach()
                t._requires_grad = True
                t._grad_fn = fn
                if self.output_nr:
                    autograd_meta(t).output_nr = self.output_nr
            elif d.acc is not None:
                t = t.detach()
                t._requires_grad = True
                autograd_meta(t).accumulator = d.acc
            return t
        else:
            t = d
        version = t._version
        if version != self.version:
            raise RuntimeError(self._modified_message(t, d is t, version))
        if t is not d and node is not None and _gm.enabled and t._dtype._category >= _FLOATING:
            # Only a graph recorded through the rule (create_graph) needs the link.
            if len(d) > 10:
                # An in-place operator's result on a view: a view of the base, through its
                # CopySlices (see autograd.step._link_saved_output).
                from ..ops.functions import as_strided

                return as_strided(d[8], t._shape, t._stride, t._offset)
            t._requires_grad = True
            t._grad_fn = node
            if self.output_nr:
                autograd_meta(t).output_nr = self.output_nr
        return t


class TensorSpec:
    """What a shape-only derivative rule keeps of an input: geometry, dtype and device.

    Saved instead of the tensor (``"self:spec"`` in a rule's saves), so the input's values
    are neither kept alive nor version-checked.
    """

    __slots__ = ("_device", "_dtype", "_layout", "_offset", "_shape", "_stride")

    def __init__(self, t: Tensor) -> None:
        self._shape = t._shape
        self._stride = t._stride
        self._offset = t._offset
        self._dtype = t._dtype
        self._device = t._device
        self._layout = t._layout

    @property
    def ndim(self) -> int:
        return len(self._shape)

    # What a plugin's rule reads (``ctx.self.shape``), with the names a tensor has.
    @property
    def shape(self) -> Size:
        return Size(self._shape)

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def device(self) -> Any:
        return self._device

    @property
    def layout(self) -> Any:
        return self._layout

    def __repr__(self) -> str:
        return f"TensorSpec(shape={list(self._shape)}, dtype={self._dtype}, device={self._device})"


class Node:
    """A recorded operation: computes its inputs' gradients from its outputs' gradients."""

    # Slots: the engine reads these attributes of every node on every backward.
    __slots__ = (
        "__weakref__",
        "_name",
        "ctx",
        "fn",
        "hooks",
        "input_meta",
        "n_outputs",
        "next_functions",
        "pre_hooks",
        "released",
        "saved",
        "view_output",
        "view_version",
    )

    def __init__(
        self,
        name: str,
        fn: Callable[..., Any] | None = None,
        ctx: Any = None,
        next_functions: tuple[tuple[Node | None, int], ...] = (),
        input_meta: list[Any] | None = None,
        n_outputs: int = 1,
    ) -> None:
        self._name = name
        self.fn = fn
        self.ctx = ctx
        self.n_outputs = n_outputs
        # Where each differentiable input's gradient goes: (node, output index).
        self.next_functions = next_functions
        # (shape, dtype) of each tensor input, in order (None for non-tensors).
        self.input_meta = [] if input_meta is None else input_meta
        self.saved: dict[str, Any] = {}
        self.pre_hooks: dict[int, list[Callable[[Any], Any]]] | None = None
        self.hooks: tuple[Callable[..., Any], ...] | list[Callable[..., Any]] = ()
        self.released = False
        # A view operator's node: the count of its view's version counter when it was made
        # (``autograd._view_history``); -1 for other nodes. Nodes the compiled recorders
        # make for other operators leave it unset (read with a default).
        self.view_version = -1
        # Which output of a function returning several views (``unbind``, ``split``) its
        # view is, -1 for others.
        self.view_output = -1

    def name(self) -> str:
        """PyTorch-style name, e.g. ``MulBackward0``."""
        return self._name

    def rename(self, name: str) -> None:
        """Name the node (and its type) ``name``."""
        self._name = name
        self.__class__ = node_type(name)

    def __repr__(self) -> str:
        return f"<{self._name} object at {id(self):#x}>"

    def register_hook(self, fn: Callable[..., Any]) -> NodeHookHandle:
        """Call ``fn(grad_inputs, grad_outputs)`` after this node runs (both tuples, with
        None for a gradient that does not flow); a non-None result, a sequence as long as
        ``grad_inputs``, replaces them. Returns a handle with ``remove()``.

        Examples
        --------
        >>> import tensorcore as tc
        >>> x = tc.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * 3
        >>> h = y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0 + 1, None))
        >>> y.sum().backward(); x.grad
        tensor([1., 1.])
        """
        self.hooks = [*self.hooks, fn]
        return NodeHookHandle(self, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> NodeHookHandle:
        """Call ``fn(grad_outputs)`` before this node runs (after the hooks of the tensors
        it made); a non-None result, a sequence as long as ``grad_outputs``, replaces them.
        Returns a handle with ``remove()``.

        Examples
        --------
        >>> import tensorcore as tc
        >>> x = tc.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * 3
        >>> h = y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
        >>> y.sum().backward(); x.grad
        tensor([6., 6.])
        """
        if self.pre_hooks is None:
            self.pre_hooks = {}
        self.pre_hooks[NODE_PRE_HOOKS] = [*self.pre_hooks.get(NODE_PRE_HOOKS, ()), fn]
        return NodeHookHandle(self, fn, pre=True)

    def __getattr__(self, name: str) -> Any:
        # (only names the class does not have come here) PyTorch's ``grad_fn._saved_<name>``:
        # what the node saved for backward under that name, a tensor unpacked (and checked
        # for in-place changes), or the number or tuple kept; after a backward that freed
        # the graph, PyTorch's error.
        if name.startswith("_saved_"):
            saved = self.saved
            if self.released and saved is NOTHING_SAVED:
                raise RuntimeError(FREED_GRAPH)
            v = saved.get(name[7:], _MISSING)
            if v.__class__ is SavedTensor:
                return v.unpack(self)
            if v is not _MISSING and v.__class__ is not TensorSpec:
                return v
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def apply(self, grads: list[Any]) -> tuple[Any, ...]:
        """Gradients of the inputs given the gradients of the outputs."""
        assert self.fn is not None
        return self.fn(self, grads)

    def release(self) -> None:
        """Free the saved tensors and the hooks (after a backward without ``retain_graph``):
        the node drops its dict of saved values, the only reference to them, and its hooks.

        A released node never runs again, so its hooks could only keep memory alive: a hook
        that refers to its tensor (``t.register_hook(lambda g: g * t)``) makes a cycle
        tensor -> node -> hook -> tensor, which PyTorch leaves to the cycle collector, and
        with it the whole graph behind the tensor. Dropping the hooks breaks it at once.

        A node that keeps no tensors (a view's, a sum's, an addition's: shapes and numbers
        only) frees nothing and stays runnable, hooks and all: as in PyTorch, a second
        backward through it works (its ``ctx.frees``, from the rule's saves).
        """
        if not getattr(self.ctx, "frees", True):
            return
        self.released = True
        self.saved = NOTHING_SAVED
        self.pre_hooks = None
        self.hooks = ()


NOTHING_SAVED: dict[str, Any] = {}
_MISSING = object()

#: The key of ``Node.pre_hooks`` under which the node's own pre-hooks (``register_prehook``,
#: called with every output gradient at once) wait; the other keys are output numbers, whose
#: hooks (the tensors' ``register_hook``) take one gradient each and run first.
NODE_PRE_HOOKS = -1


class NodeHookHandle:
    """What :meth:`Node.register_hook` and :meth:`Node.register_prehook` return:
    ``remove()`` unregisters the hook (a second call does nothing)."""

    def __init__(self, node: Node, fn: Callable[..., Any], pre: bool = False) -> None:
        self._node, self._fn, self._pre = node, fn, pre

    def remove(self) -> None:
        """Unregister the hook."""
        node, fn = self._node, self._fn
        if not self._pre:
            node.hooks = [h for h in node.hooks if h is not fn]
        elif node.pre_hooks and NODE_PRE_HOOKS in node.pre_hooks:
            node.pre_hooks[NODE_PRE_HOOKS] = [
                h for h in node.pre_hooks[NODE_PRE_HOOKS] if h is not fn
            ]


_NODE_TYPES: dict[str, type[Node]] = {}


def node_type(name: str) -> type[Node]:
    """The subclass of :class:`Node` named ``name``, made once per name: as in PyTorch,
    ``type(t.grad_fn).__name__`` is the node's name (``MulBackward0``), which programs print
    and graph drawers (torchviz) read.

    Examples
    --------
    >>> import tensorcore as tc
    >>> type(tc.ones(2, requires_grad=True).mul(2).grad_fn).__name__
    'MulBackward0'
    """
    cls = _NODE_TYPES.get(name)
    if cls is None:
        cls = _NODE_TYPES[name] = type(name, (Node,), {"__slots__": (), "__module__": __name__})
    return cls


class AccumulateGrad(Node):
    """The node of a leaf tensor: adds the incoming gradient to ``leaf.grad``.

    The leaf owns its accumulator; the accumulator refers back to the leaf weakly, so a leaf
    and its accumulator never form a reference cycle.
    """

    def __init__(self, variable: Tensor) -> None:
        super().__init__("AccumulateGrad")
        self._variable = weakref.ref(variable)

    @property
    def variable(self) -> Tensor | None:
        """The leaf tensor (None once it was garbage-collected)."""
        return self._variable()

    def release(self) -> None:
        pass


def grad_accumulator(t: Tensor) -> AccumulateGrad:
    """The (shared) AccumulateGrad node of a leaf that requires grad."""
    m = t._ag
    if m is None:
        m = t._ag = AutogradMeta()
    acc = m.accumulator
    if acc is None:
        acc = m.accumulator = AccumulateGrad(t)
    return acc


class RetainGrad:
    """The hook :meth:`Tensor.retain_grad` puts on a non-leaf's node: it stores the gradient
    in ``.grad`` (a row-major copy, then sums). It runs after the tensor's other hooks,
    whatever the order of registration (PyTorch >= 2.0), so ``.grad`` is the gradient that
    flows on, and it follows the tensor to the new node of an in-place operation. It refers
    to the tensor weakly: node -> hook -> tensor -> node is no reference cycle."""

    __slots__ = ("tensor",)

    def __init__(self, t: Tensor) -> None:
        self.tensor = weakref.ref(t)

    def __call__(self, g: Tensor) -> None:
        t = self.tensor()
        if t is None:
            return
        g = g.detach()
        if t._grad is not None:
            t._grad = t._grad + g
        elif g._layout is strided:
            t._grad = g.clone(memory_format=contiguous_format)
        else:
            t._grad = g.clone()


def add_tensor_hook(t: Tensor, fn: Callable[[Any], Any]) -> list[Callable[[Any], Any]]:
    """Put ``fn`` among the hooks of non-leaf ``t`` (on its node's output), before a
    :class:`RetainGrad`; returns the list it is in."""
    node = current_grad_fn(t)  # (first: a regenerated view's output number is 0)
    assert node is not None, "add_tensor_hook() is for non-leaf tensors"
    nr = t._ag.output_nr if t._ag is not None else 0
    if node.pre_hooks is None:
        node.pre_hooks = {}
    hooks = node.pre_hooks.setdefault(nr, [])
    if hooks and hooks[-1].__class__ is RetainGrad:
        hooks.insert(len(hooks) - 1, fn)
    else:
        hooks.append(fn)
    return hooks


def move_retain_grad(t: Tensor, old: Node, old_nr: int) -> None:
    """An in-place operation gave ``t`` a new node: its :class:`RetainGrad` moves there (the
    gradient it retains is the new value's); its other hooks stay with the old value."""
    hooks = old.pre_hooks.get(old_nr) if old.pre_hooks else None
    if hooks and hooks[-1].__class__ is RetainGrad:
        add_tensor_hook(t, hooks.pop())


#: ``autograd._view_history.regenerate``, bound by ``autograd.step.install()``: it records
#: an operator, which needs the operator table (a layer above this module).
regenerate_view: Callable[[Any], Node | None] = None  # type: ignore[assignment]
#: ``autograd._view_history.view_edge``, bound with it.
view_edge: Callable[[Any], tuple[Node | None, int]] = None  # type: ignore[assignment]


def current_grad_fn(t: Tensor) -> Node | None:
    """``t``'s ``grad_fn`` as PyTorch's ``grad_fn()`` reads it: for a view whose base (or
    another view of the base) was modified in place since its ``grad_fn`` was made, a new
    one made from the base's history (``AsStridedBackward0``), which ``t`` keeps. Costs a
    tensor that is no view one attribute test.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.autograd.graph import current_grad_fn
    >>> b = tc.ones(3, requires_grad=True) * 1
    >>> v = b[1:]
    >>> current_grad_fn(v).name()
    'SliceBackward0'
    >>> _ = b.mul_(2)
    >>> current_grad_fn(v).name()
    'AsStridedBackward0'
    """
    fn = t._grad_fn
    if t._base is not None:
        if fn is not None:
            made = getattr(fn, "view_version", -1)
            if made < 0:
                # (a node of no view operator: a custom Function's output notes its count)
                m = t._view_meta
                if m is None:
                    return fn
                made = m >> 3
            vc: Any = t._version_counter
            if vc is None:
                vc = t._storage
            if vc.version != made:
                return regenerate_view(t)
        elif requires_grad(t._base) and t._dtype._category >= _FLOATING:
            # A view without history of a base that requires grad: made under no_grad, or
            # before its base joined the graph by an in-place call.
            return regenerate_view(t)
    return fn


def edge(t: Any) -> tuple[Node | None, int]:
    """Where a gradient for tensor ``t`` goes: its grad_fn and output index, or its accumulator."""
    fn = t._grad_fn
    if fn is not None:
        if t._base is not None:
            fn = current_grad_fn(t)
        ag = t._ag
        return fn, (ag.output_nr if ag is not None else 0)
    if requires_grad(t):
        if t._base is not None:
            return view_edge(t)
        return grad_accumulator(t), 0
    return None, 0


def _tensor_type() -> type:
    from .._tensor import Tensor

    return Tensor


class saved_tensors_hooks:
    """Within the block, every tensor an operation saves for backward is passed to
    ``pack_hook``, which returns what to keep instead (a compressed copy, a copy on another
    device, a file name...); when backward needs it, ``unpack_hook`` gets that back and
    returns the tensor. Blocks nest (the innermost pair applies) and are per thread, as in
    PyTorch; tensors saved by a custom ``Function``'s ``save_for_backward`` go through them
    too.

    Examples
    --------
    >>> import tensorcore as tc
    >>> packed = []
    >>> def pack(t):
    ...     packed.append(t.shape)
    ...     return t.clone()
    >>> x = tc.tensor([1.0, 2.0], requires_grad=True)
    >>> with tc.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    ...     y = (x * x).sum()
    >>> y.backward(); x.grad, len(packed)
    (tensor([2., 4.]), 2)
    """

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        global _hooks_active
        if _hooks.disabled:
            raise RuntimeError(_hooks.disabled[-1])
        _hooks.stack.append((self.pack_hook, self.unpack_hook))
        _hooks_active += 1
        return self

    def __exit__(self, *exc: object) -> None:
        global _hooks_active
        _hooks.stack.pop()
        _hooks_active -= 1


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors go to host memory (pinned with ``pin_memory``) and come back to their
    device when backward needs them: activation memory moves off the accelerator.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.ones(3, requires_grad=True)
    >>> with tc.autograd.graph.save_on_cpu():
    ...     y = (x.exp() * x).sum()
    >>> y.backward(); x.grad
    tensor([5.4366, 5.4366, 5.4366])
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack(t: Any) -> tuple[Any, Any]:
            if t.device.type == "cpu" and not pin_memory:
                return t.device, t
            host = t.detach().to("cpu")
            return t.device, host.pin_memory() if pin_memory else host

        def unpack(saved: tuple[Any, Any]) -> Any:
            dev, t = saved
            return t.to(dev, non_blocking=pin_memory)

        super().__init__(pack, unpack)


#: ``engine.queue_callback``, bound by the engine (which imports this module): runs a
#: callable once the backward pass now running has finished.
queue_end_of_backward: Callable[[Callable[[], Any]], None] = None  # type: ignore[assignment]


class _MultiHandle:
    """Removes the per-tensor hooks of :func:`register_multi_grad_hook`."""

    def __init__(self, handles: list[Any]) -> None:
        self.handles = handles

    def remove(self) -> None:
        for h in self.handles:
            h.remove()

    def __enter__(self) -> _MultiHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def register_multi_grad_hook(tensors: Any, fn: Callable[[Any], Any], *, mode: str = "all") -> Any:
    """Call ``fn`` once per backward pass that computes gradients for some of ``tensors``:
    with ``mode="all"``, ``fn(grads)`` gets the gradient of each tensor in order (None for
    those this pass does not reach) once the pass has computed them; with ``mode="any"``,
    ``fn(grad)`` gets the first gradient computed. Returns a handle whose ``remove()``
    unregisters it.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.autograd.graph import register_multi_grad_hook
    >>> a, b = tc.ones(2, requires_grad=True), tc.ones(2, requires_grad=True)
    >>> seen = []
    >>> h = register_multi_grad_hook((a, b), lambda gs: seen.append([g is None for g in gs]))
    >>> (a * 2).sum().backward(); seen
    [[False, True]]
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    state: dict[str, Any] = {"grads": None}

    def finish() -> None:
        grads, state["grads"] = state["grads"], None
        fn(tuple(grads))

    def make_hook(i: int) -> Callable[[Any], None]:
        def hook(grad: Any) -> None:
            if mode == "any":
                if state["grads"] is None:
                    state["grads"] = True  # (this pass has called fn: once is all)
                    queue_end_of_backward(lambda: state.update(grads=None))
                    fn(grad)
                return
            if state["grads"] is None:
                state["grads"] = [None] * len(tensors)
                queue_end_of_backward(finish)
            state["grads"][i] = grad

        return hook

    return _MultiHandle(
        [t.register_hook(make_hook(i)) for i, t in enumerate(tensors) if t.requires_grad]
    )


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """Within the block, opening a :class:`saved_tensors_hooks` block raises a RuntimeError
    with ``error_message`` (a library whose code must not be hooked says why)."""
    _hooks.disabled.append(error_message)
    try:
        yield
    finally:
        _hooks.disabled.pop()


def increment_version(tensor: Any) -> None:
    """Count an in-place change to ``tensor`` made behind autograd's back (through its
    NumPy array, say), so that backward refuses to use the stale saved value."""
    tensor._bump_version()
