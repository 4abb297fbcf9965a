"""``tensorcore.autograd.Function``: user-defined operations with their own backward."""

from __future__ import annotations

import functools
import inspect
import warnings
import weakref
from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..dtypes import FLOATING as _FLOATING
from ..ops import functions as ops
from . import _dual, grad_mode
from ._accumulate import held_elsewhere
from .graph import (
    FREED_GRAPH,
    Node,
    SavedTensor,
    autograd_meta,
    edge,
    node_type,
    requires_grad,
)
from .step import fit_shape

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


_forward_defaults: weakref.WeakKeyDictionary[type, tuple[Any, ...]] = weakref.WeakKeyDictionary()


def _positional_defaults(forward: Callable[..., Any]) -> tuple[Any, ...]:
    """The default of each positional parameter of ``forward`` (``inspect._empty`` where it
    has none): read once per Function class, then cached in ``_forward_defaults``."""
    return tuple(
        p.default
        for p in inspect.signature(forward).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    )


class FunctionCtx:
    """The ``ctx`` a custom Function's ``forward`` and ``backward`` receive."""

    def __init__(self) -> None:
        self._to_save: tuple[Any, ...] = ()
        # The recorded node, weakly: the node holds the ctx, and node -> ctx -> node would be
        # a reference cycle keeping the graph alive until the cycle collector runs.
        self._node: weakref.ref[Node] | None = None
        self.needs_input_grad: tuple[bool, ...] = ()
        self._dirty: tuple[Tensor, ...] = ()
        self._non_diff: tuple[Tensor, ...] = ()
        self.materialize_grads = True
        # What ``save_for_forward`` saved, and whether ``jvp`` is running (it reads them).
        self._fw_saved: tuple[Any, ...] = ()
        self._in_jvp = False

    def save_for_backward(self, *tensors: Any) -> None:
        """Save tensors (or None) for ``backward``; read them back as ``ctx.saved_tensors``."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save tensors or None")
        self._to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        """Save tensors (or None) for ``jvp``, which reads them as ``ctx.saved_tensors``."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_forward expects all arguments to be tensors or None")
        self._fw_saved = tensors

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """The saved tensors, checked against in-place modification since they were saved.

        They are held by the graph node and freed with it, as the saved values of the
        built-in operators are: after a ``backward`` without ``retain_graph=True`` reading
        them raises.
        """
        if self._in_jvp:
            return tuple(self._fw_saved)
        if self._node is None:  # no node was recorded (grad mode off, no input needs grad)
            return tuple(self._to_save)
        node = self._node()
        if node is None or node.released:
            raise RuntimeError(FREED_GRAPH)
        return tuple(
            s.unpack(node) if isinstance(s, SavedTensor) else s for s in node.saved["saved_tensors"]
        )

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Declare inputs that ``forward`` modified in place."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Declare outputs that have no gradient (e.g. integer indices)."""
        self._non_diff = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Whether ``backward`` receives zeros (True) or None for outputs without a gradient."""
        self.materialize_grads = value


class Function:
    """Base class of custom differentiable operations.

    Subclass it with static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``
    methods and call ``MyFunction.apply(*args)``. ``backward`` returns one gradient (or None)
    per argument of ``forward``. As in PyTorch, ``forward`` may instead take the arguments
    alone (``forward(*args)``) when the subclass defines
    ``setup_context(ctx, inputs, output)``, which then saves what ``backward`` needs.

    Examples
    --------
    >>> import tensorcore as tc
    >>> class Cube(tc.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return 3 * x ** 2 * g
    >>> x = tc.tensor([2.0], requires_grad=True)
    >>> Cube.apply(x).sum().backward(); x.grad
    tensor([12.])
    """

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any) -> Any:
        """Compute the outputs (runs with gradient recording off)."""
        raise NotImplementedError("Function subclasses must implement a static forward()")

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Any) -> Any:
        """Gradients of the inputs given gradients of the outputs."""
        raise NotImplementedError("Function subclasses must implement a static backward()")

    @staticmethod
    def jvp(ctx: FunctionCtx, *grad_inputs: Any) -> Any:
        """Forward-mode AD: the outputs' tangents given the inputs' (a tensor input without
        one gets zeros, anything else None). Needed only to use the Function on dual
        tensors (:mod:`tensorcore.autograd.forward_ad`)."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple[Any, ...], output: Any) -> Any:
        """Fill ``ctx`` from the inputs and output, for a ``forward`` that takes no ``ctx``."""
        raise NotImplementedError("setup_context is not implemented.")

    # The name of the graph node ``apply`` records (``<class name>Backward`` when None).
    _node_name: str | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are "
            "all static, so you should invoke them on the class itself. Instantiating an "
            "autograd function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` and, when some input requires grad, record a graph node; on dual
        inputs, give the outputs the tangents ``jvp`` computes.

        Keyword arguments reach ``forward`` by name and count as inputs after the positional
        ones (in ``needs_input_grad`` and in what ``backward`` returns), as in PyTorch."""
        ctx = FunctionCtx()
        if kwargs and cls.setup_context is not Function.setup_context:
            # ``setup_context`` takes the inputs as one tuple: PyTorch binds them to
            # forward's parameters first.
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, {}
        elif cls.setup_context is not Function.setup_context:
            # As PyTorch: ``setup_context`` sees the inputs with forward's defaults filled in.
            defaults = _forward_defaults.get(cls)
            if defaults is None:
                defaults = _forward_defaults[cls] = _positional_defaults(cls.forward)
            missing = defaults[len(args) :]
            if missing and not any(d is inspect.Parameter.empty for d in missing):
                args = (*args, *missing)
        if grad_mode.dual.on:
            tans = [_dual.tangent(a) if isinstance(a, Tensor) else None for a in args]
            if any(t is not None for t in tans):
                if cls.jvp is Function.jvp:
                    cls.jvp(ctx)  # (raises)
                _dual.suspend()  # (forward and jvp compute with primals and tangents)
                masked: list[Tensor] = []
                try:
                    out = cls._apply(ctx, args, kwargs)
                    ctx._in_jvp = True
                    # The dual-only inputs (and what jvp computes from them) are constants of
                    # the reverse graph: their flag, set for the tangent, is cleared meanwhile.
                    masked = _dual._mask(args, True)
                    out_t = cls.jvp(
                        ctx,
                        *(
                            t if t is not None or not isinstance(a, Tensor) else ops.zeros_like(a)
                            for a, t in zip(args, tans, strict=True)
                        ),
                    )
                    ctx._in_jvp = False
                finally:
                    _dual._unmask(masked)
                    _dual.resume()
                outs = out if isinstance(out, tuple) else (out,)
                touts = out_t if isinstance(out_t, tuple) else (out_t,)
                for o, t in zip(outs, touts):  # noqa: B905
                    if (
                        isinstance(t, Tensor)
                        and isinstance(o, Tensor)
                        and o._dtype._category >= _FLOATING
                    ):
                        _dual.attach(o, _dual.same_meta(t, o))
                return out
        return cls._apply(ctx, args, kwargs)

    @classmethod
    def _apply(cls, ctx: FunctionCtx, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        inputs = (*args, *kwargs.values()) if kwargs else args
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and requires_grad(a) for a in inputs)
        record = grad_mode.is_grad_enabled() and any(ctx.needs_input_grad)
        edges = [edge(a) if isinstance(a, Tensor) else (None, 0) for a in inputs]
        with grad_mode.no_grad():
            if cls.setup_context is Function.setup_context:
                out = cls.forward(ctx, *args, **kwargs)
            else:
                out = cls.forward(*args)
                cls.setup_context(ctx, args, out)
        if not record:
            return out
        args = inputs
        outputs = out if isinstance(out, tuple) else (out,)
        name = cls._node_name or f"{cls.__name__}Backward"
        node = node_type(name)(name, _function_apply)
        # Output shapes and dtypes, to materialize missing output gradients as zeros.
        out_meta = [
            (o._shape, o._dtype, o._device) if isinstance(o, Tensor) else None for o in outputs
        ]
        node.ctx = (cls, ctx, out_meta)
        node.n_outputs = len(outputs)
        node.next_functions = tuple(edges)
        node.input_meta = [(a._shape, a._dtype) if isinstance(a, Tensor) else None for a in args]
        ctx._node = weakref.ref(node)
        out_nr = {id(o): i for i, o in enumerate(outputs)}
        # Dirty inputs count their change before anything is saved: a dirty tensor that
        # forward also saved (the result of ``x.exp_()``, say) is saved as it now is.
        for t in ctx._dirty:
            t._bump_version()
        # In the node's saved values, which backward releases (outputs saved as their fields,
        # without the grad_fn that would make a cycle).
        node.saved = {
            "saved_tensors": [
                None
                if t is None
                else SavedTensor(t, id(t) in out_nr, node.name(), out_nr.get(id(t), 0))
                for t in ctx._to_save
            ]
        }
        for i, o in enumerate(outputs):
            if not isinstance(o, Tensor) or any(o is n for n in ctx._non_diff):
                continue
            if not (o._dtype.is_floating_point or o._dtype.is_complex):
                continue
            if any(o is a for a in args) and not any(o is d for d in ctx._dirty):
                # Returning an input unchanged: the output is a new alias of it.
                o = o.view_as(o)
                outputs = outputs[:i] + (o,) + outputs[i + 1 :]
            o._requires_grad = True
            o._grad_fn = node
            if o._base is not None:
                # A view made by the Function (or an input returned as it is): PyTorch refuses
                # writing it in place, or using it once its base changed in place.
                o._view_meta = o._version << 3 | grad_mode.IN_CUSTOM_FUNCTION
            if i:
                autograd_meta(o).output_nr = i
        # The ctx lives as long as the node: it must not hold the outputs (output -> node ->
        # ctx -> output), so what forward declared is dropped once used.
        ctx._to_save = ctx._dirty = ctx._non_diff = ()
        return outputs if isinstance(out, tuple) else outputs[0]


def _function_apply(node: Node, grads: list[Any]) -> list[Any]:
    cls, ctx, out_meta = node.ctx
    if ctx.materialize_grads:
        # PyTorch's contract: backward gets a zero tensor for every output without a gradient
        # (non-differentiable outputs included), unless set_materialize_grads(False).

        grads = [
            ops.zeros(m[0], dtype=m[1], device=m[2]) if g is None and m is not None else g
            for g, m in zip(grads, out_meta, strict=True)
        ]
    res = cls.backward(ctx, *grads)
    if not isinstance(res, tuple):
        res = (res,)
    held_elsewhere(res)  # (a gradient the user's code keeps is copied, never made a .grad)
    n_in = len(node.next_functions)
    if len(res) > n_in and all(r is None for r in res[n_in:]):
        # PyTorch drops surplus trailing Nones: a backward written for an optional argument
        # (``bias=None``) that the caller left out returns its None all the same.
        res = res[:n_in]
    if len(res) != n_in:
        raise RuntimeError(
            f"function {cls.__name__}Backward returned an incorrect number of gradients "
            f"(expected {n_in}, got {len(res)})"
        )
    out: list[Any] = []
    for i, (r, m) in enumerate(zip(res, node.input_meta, strict=True)):
        if r is None or m is None:
            out.append(None)
            continue
        if r._shape != m[0]:
            # (Megatron's bias-GeLU returns the full gradient for the bias)
            r = fit_shape(f"{cls.__name__}Backward", i, r, m[0])
        out.append(r)
    return out


class _DelayedError(Function):
    """Identity whose backward raises: what ``once_differentiable`` puts after a backward
    that ran untracked, so that differentiating it again fails by name instead of silently
    giving zero."""

    _node_name = "Error"  # (PyTorch's name of this node)

    @staticmethod
    def forward(ctx: FunctionCtx, msg: str, *inputs: Any) -> Any:
        ctx.msg = msg  # type: ignore[attr-defined]
        return tuple(i.view_as(i) if isinstance(i, Tensor) else i for i in inputs)

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Any) -> Any:
        raise RuntimeError(ctx.msg)  # type: ignore[attr-defined]


def once_differentiable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a custom Function's ``backward`` that is not itself differentiable.

    ``backward`` runs with gradient recording off; when a double backward
    (``create_graph=True``) would need its gradient, differentiating the result raises
    instead, as in PyTorch.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.autograd.function import once_differentiable
    >>> class Square(tc.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     @once_differentiable
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return 2 * x * g
    >>> x = tc.tensor([3.0], requires_grad=True)
    >>> Square.apply(x).sum().backward(); x.grad
    tensor([6.])
    """

    @functools.wraps(fn)
    def wrapper(ctx: FunctionCtx, *args: Any) -> Any:
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.is_grad_enabled():
            return outputs
        if not any(isinstance(a, Tensor) and requires_grad(a) for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        fake = tuple(o.detach().requires_grad_() if isinstance(o, Tensor) else o for o in outs)
        res = _DelayedError.apply(
            "trying to differentiate twice a function that was marked with @once_differentiable",
            *fake,
        )
        return res[0] if single else res

    return wrapper
