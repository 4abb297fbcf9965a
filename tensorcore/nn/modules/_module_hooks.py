"""The hooks of :class:`~tensorcore.nn.Module`: the global ones every module runs
(``register_module_*_hook``) and a module's own forward, forward-pre and backward hooks.
The methods are written here as functions and are attributes of ``Module`` (``module.py``).
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..._tensor import Tensor
from ...utils.hooks import RemovableHandle

if TYPE_CHECKING:
    from .module import Module

# Hooks every module runs (before its own), as PyTorch's ``register_module_*_hook``.
_global_forward_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
_global_forward_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
_global_forward_hooks_always_called: dict[int, bool] = {}
_global_backward_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
_global_backward_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()


def register_module_forward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Run ``hook(module, args)`` before every module's ``forward`` (before the module's own
    pre-hooks); a non-None result replaces the positional arguments.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.modules.module import register_module_forward_pre_hook
    >>> seen = []
    >>> h = register_module_forward_pre_hook(lambda m, args: seen.append(type(m).__name__))
    >>> _ = tc.nn.Sequential(tc.nn.ReLU())(tc.ones(1))
    >>> h.remove()
    >>> seen
    ['Sequential', 'ReLU']
    """
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(
    hook: Callable[..., Any], *, always_call: bool = False
) -> RemovableHandle:
    """Run ``hook(module, args, output)`` after every module's ``forward`` (before the
    module's own hooks); a non-None result replaces the output. ``always_call=True`` also
    runs it (with output None) when ``forward`` raises.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.modules.module import register_module_forward_hook
    >>> seen = []
    >>> h = register_module_forward_hook(lambda m, args, out: seen.append(type(m).__name__))
    >>> _ = tc.nn.Sequential(tc.nn.Linear(2, 2), tc.nn.ReLU())(tc.ones(1, 2))
    >>> h.remove()
    >>> seen
    ['Linear', 'ReLU', 'Sequential']
    """
    handle = RemovableHandle(_global_forward_hooks, _global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Run ``hook(module, grad_input, grad_output)`` in every module's backward (before the
    module's own full backward hooks), as :meth:`Module.register_full_backward_hook`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.modules.module import register_module_full_backward_hook
    >>> seen = []
    >>> h = register_module_full_backward_hook(lambda m, gi, go: seen.append(go[0].tolist()))
    >>> tc.nn.Identity()(tc.ones(2, requires_grad=True)).sum().backward()
    >>> h.remove()
    >>> seen
    [[1.0, 1.0]]
    """
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Run ``hook(module, grad_output)`` in every module's backward before its input
    gradients are computed (before the module's own backward pre-hooks); a non-None result
    replaces ``grad_output``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.modules.module import register_module_full_backward_pre_hook
    >>> h = register_module_full_backward_pre_hook(lambda m, go: (go[0] * 2,))
    >>> x = tc.ones(2, requires_grad=True)
    >>> tc.nn.Identity()(x).sum().backward()
    >>> h.remove()
    >>> x.grad
    tensor([2., 2.])
    """
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


#: The key suffix of a module's extra state in its state dict (``get_extra_state``).
def _call_legacy_hook(
    hook: Callable[..., Any], module: Module, grad_input: Any, grad_output: Any
) -> Any:
    return hook(module, grad_input, grad_output)


def _one_node_forward(args: tuple[Any, ...], result: Any, grad_fn: Any) -> bool:
    """Whether the forward that made ``result`` from ``args`` was the single node
    ``grad_fn`` (PyTorch's test before it warns about a legacy backward hook): tensors in
    and out, every output made by ``grad_fn``, and its inputs exactly the inputs' nodes."""
    outs = (result,) if isinstance(result, Tensor) else result
    if not (isinstance(outs, tuple) and all(isinstance(r, Tensor) for r in outs)):
        return False
    if not all(isinstance(a, Tensor) for a in args):
        return False
    if {r.grad_fn for r in outs if r.grad_fn is not None} != {grad_fn}:
        return False
    ins = {a.grad_fn for a in args if a.grad_fn is not None}
    return ins == {n for n, _ in grad_fn.next_functions}


def _legacy_backward_hooks(self: Module, args: tuple[Any, ...], result: Any) -> None:
    """Put the hooks of :meth:`register_backward_hook` on the node of the call's first
    output tensor, and warn, as PyTorch does, when that node is not the whole forward."""
    var = result
    while not isinstance(var, Tensor):
        if isinstance(var, dict):
            var = next(v for v in var.values() if isinstance(v, Tensor))
        else:
            var = var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    if not _one_node_forward(args, result, grad_fn):
        warnings.warn(
            "Using a non-full backward hook when the forward contains multiple autograd "
            "Nodes is deprecated and will be removed in future versions. This hook will "
            "be missing some grad_input. Please use register_full_backward_hook to get "
            "the documented behavior.",
            FutureWarning,
            stacklevel=3,
        )
    for hook in self._backward_hooks.values():
        grad_fn.register_hook(functools.partial(_call_legacy_hook, hook, self))


def register_full_backward_hook(
    self: Module, hook: Callable[..., Any], prepend: bool = False
) -> RemovableHandle:
    """Run ``hook(module, grad_input, grad_output)`` when the gradients with respect to
    the module's positional tensor inputs are computed.

    ``grad_input`` and ``grad_output`` are tuples, with None for an input or output that
    is not a tensor requiring grad; a non-None result replaces ``grad_input``. The inputs
    and outputs pass through an identity (``BackwardHookFunctionBackward``), so a forward
    must not modify them in place.

    Examples
    --------
    >>> import tensorcore as tc
    >>> lin = tc.nn.Linear(2, 1)
    >>> seen = []
    >>> h = lin.register_full_backward_hook(lambda m, gi, go: seen.append(go[0].shape))
    >>> lin(tc.ones(3, 2, requires_grad=True)).sum().backward()
    >>> seen
    [tensorcore.Size([3, 1])]
    >>> h.remove()
    """
    return self._add_backward_hook(hook, True, prepend)


def register_backward_hook(self: Module, hook: Callable[..., Any]) -> RemovableHandle:
    """Deprecated (use :meth:`register_full_backward_hook`): ``hook(module, grad_input,
    grad_output)`` runs after the node of the module's first output tensor, with that
    node's gradients: ``grad_output`` the output's, ``grad_input`` the node's inputs' (for
    a forward of several operators, only the last operator's inputs; a FutureWarning then
    says so at each call, as in PyTorch). A non-None result replaces ``grad_input``. A
    module takes legacy or full backward hooks, not both.

    Examples
    --------
    >>> import tensorcore as tc
    >>> relu = tc.nn.ReLU()
    >>> seen = []
    >>> h = relu.register_backward_hook(lambda m, gi, go: seen.append(go[0].tolist()))
    >>> x = tc.tensor([-1.0, 2.0], requires_grad=True) * 1
    >>> relu(x).sum().backward()
    >>> seen
    [[1.0, 1.0]]
    """
    return self._add_backward_hook(hook, False, False)


def _add_backward_hook(
    self: Module, hook: Callable[..., Any], full: bool, prepend: bool
) -> RemovableHandle:
    if self._is_full_backward_hook is (not full) and self._backward_hooks:
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks on a single "
            "Module. Please use only one of them."
        )
    object.__setattr__(self, "_is_full_backward_hook", full)
    if "_backward_hooks" not in self.__dict__:
        object.__setattr__(self, "_backward_hooks", OrderedDict())
    handle = RemovableHandle(self._backward_hooks)
    self._backward_hooks[handle.id] = hook
    if prepend:
        self._backward_hooks.move_to_end(handle.id, last=False)  # type: ignore[attr-defined]
    return handle


def register_full_backward_pre_hook(
    self: Module, hook: Callable[..., Any], prepend: bool = False
) -> RemovableHandle:
    """Run ``hook(module, grad_output)`` when the gradients with respect to the module's
    outputs are computed; a non-None result replaces ``grad_output``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> lin = tc.nn.Linear(2, 1)
    >>> h = lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 0,))
    >>> x = tc.ones(1, 2, requires_grad=True)
    >>> lin(x).sum().backward()
    >>> x.grad
    tensor([[0., 0.]])
    """
    if "_backward_pre_hooks" not in self.__dict__:
        object.__setattr__(self, "_backward_pre_hooks", OrderedDict())
    handle = RemovableHandle(self._backward_pre_hooks)
    self._backward_pre_hooks[handle.id] = hook
    if prepend:
        self._backward_pre_hooks.move_to_end(handle.id, last=False)  # type: ignore[attr-defined]
    return handle


def register_forward_pre_hook(
    self: Module, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False
) -> RemovableHandle:
    """Run ``hook(module, args)`` before ``forward``; a non-None result replaces the
    positional arguments (``with_kwargs=True``: ``hook(module, args, kwargs)`` returning
    ``(args, kwargs)``)."""
    handle = RemovableHandle(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs)
    self._forward_pre_hooks[handle.id] = hook
    if with_kwargs:
        self._forward_pre_hooks_with_kwargs[handle.id] = True
    if prepend:
        self._forward_pre_hooks.move_to_end(handle.id, last=False)  # type: ignore[attr-defined]
    return handle


def register_forward_hook(
    self: Module,
    hook: Callable[..., Any],
    *,
    prepend: bool = False,
    with_kwargs: bool = False,
    always_call: bool = False,
) -> RemovableHandle:
    """Run ``hook(module, args, output)`` after ``forward``; a non-None result replaces
    the output. ``always_call=True`` also runs it (with output None) when ``forward``
    raises."""
    handle = RemovableHandle(
        self._forward_hooks,
        self._forward_hooks_with_kwargs,
        self._forward_hooks_always_called,
    )
    self._forward_hooks[handle.id] = hook
    if with_kwargs:
        self._forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        self._forward_hooks_always_called[handle.id] = True
    if prepend:
        self._forward_hooks.move_to_end(handle.id, last=False)  # type: ignore[attr-defined]
    return handle
