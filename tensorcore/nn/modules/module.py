"""``nn.Module``: the base class of layers and models, with PyTorch's registration rules.

Assigning a :class:`~tensorcore.nn.Parameter`, a ``Module`` or (after
:meth:`Module.register_buffer`) a tensor to an attribute registers it; ``parameters()``,
``state_dict()``, ``to()`` and the rest walk what is registered.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from ... import dtypes as dt
from ..._tensor import Tensor
from ..._tensor_methods import legacy_type_name
from ...autograd.grad_mode import no_grad
from ...devices import device as _device
from ...ops.functions import empty_like
from ...utils.hooks import BackwardHook, RemovableHandle
from ..parameter import Buffer, Parameter

__all__ = [
    "Module",
    "RemovableHandle",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
]

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
_EXTRA_STATE = "_extra_state"
#: Each module's state dict hooks (``register_state_dict_pre_hook`` and its siblings).
_STATE_DICT_HOOKS = (
    "_state_dict_hooks",
    "_state_dict_pre_hooks",
    "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks",
)


class _IncompatibleKeys(namedtuple("_IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns; prints as PyTorch's when every key matched."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


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


def _shallow_copyable(old: Tensor, new: Tensor) -> bool:
    """Whether ``old.data = new`` keeps ``old`` in PyTorch's ``Module._apply`` (its
    ``_has_compatible_shallow_copy_type``): the same device type and layout, or two dense
    tensors on real devices (CPU and CUDA), but not from or to the meta device."""
    if old.layout != new.layout:
        return False
    a, b = old.device.type, new.device.type
    return a == b or (a != "meta" and b != "meta")


class Module:
    """Base class of every layer and model.

    Subclasses call ``super().__init__()`` first, assign parameters, buffers and submodules
    as attributes, and define ``forward``; calling the module runs the forward pre-hooks,
    ``forward`` and the forward hooks.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore import nn
    >>> class Net(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = nn.Linear(3, 2)
    ...         self.register_buffer("steps", tc.zeros((), dtype=tc.int64))
    ...     def forward(self, x):
    ...         return self.fc(x).relu()
    >>> net = Net()
    >>> [name for name, _ in net.named_parameters()]
    ['fc.weight', 'fc.bias']
    >>> list(net.state_dict())
    ['steps', 'fc.weight', 'fc.bias']
    >>> net
    Net(
      (fc): Linear(in_features=3, out_features=2, bias=True)
    )
    >>> net(tc.ones(4, 3)).shape
    tensorcore.Size([4, 2])
    """

    training: bool
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Tensor | None]
    _non_persistent_buffers_set: set[str]
    _modules: dict[str, Module | None]
    _forward_hooks: dict[int, Callable[..., Any]]
    _forward_hooks_with_kwargs: dict[int, bool]
    _forward_hooks_always_called: dict[int, bool]
    _forward_pre_hooks: dict[int, Callable[..., Any]]
    _forward_pre_hooks_with_kwargs: dict[int, bool]
    # Full backward (pre-)hooks: shared empty defaults until a module registers one (an
    # instance dict then), so that a module without them pays nothing per call.
    _backward_hooks: dict[int, Callable[..., Any]] = {}  # noqa: RUF012
    _backward_pre_hooks: dict[int, Callable[..., Any]] = {}  # noqa: RUF012
    # What ``_backward_hooks`` holds: full hooks (True), legacy ones (False), none yet (None).
    _is_full_backward_hook: bool | None = None

    #: Subclasses set this to False when their ``forward`` is not the place to call.
    call_super_init: bool = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got unexpected arguments: Module.__init__ "
                "takes none (call super().__init__() without arguments)"
            )
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", {})
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", {})
        setattr_(self, "_forward_hooks_always_called", {})
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", {})
        for name in _STATE_DICT_HOOKS:
            setattr_(self, name, OrderedDict())

    # ------------------------------------------------------------ forward
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation; every subclass defines it."""
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (
            self._forward_hooks
            or self._forward_pre_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
            or _global_forward_hooks
            or _global_forward_pre_hooks
            or _global_backward_hooks
            or _global_backward_pre_hooks
        ):
            return self.forward(*args, **kwargs)
        for hook in list(_global_forward_pre_hooks.values()):
            res = hook(self, args)
            if res is not None:
                args = res if isinstance(res, tuple) else (res,)
        for hid, hook in list(self._forward_pre_hooks.items()):
            if self._forward_pre_hooks_with_kwargs.get(hid):
                res = hook(self, args, kwargs)
                if res is not None:
                    if not (isinstance(res, tuple) and len(res) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {res}."
                        )
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        bw_hook = None
        legacy = self._is_full_backward_hook is False and bool(self._backward_hooks)
        full = [] if legacy else list(self._backward_hooks.values())
        full = [*_global_backward_hooks.values(), *full]
        pre = [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
        if full or pre:
            bw_hook = BackwardHook(self, full, pre)
            args = bw_hook.setup_input_hook(args)
        try:
            result = self.forward(*args, **kwargs)
        except Exception:
            for hid, hook in list(_global_forward_hooks.items()):
                if _global_forward_hooks_always_called.get(hid):
                    # (the forward's error is the one to raise)
                    with contextlib.suppress(Exception):
                        hook(self, args, None)
            for hid, hook in list(self._forward_hooks.items()):
                if self._forward_hooks_always_called.get(hid):
                    try:
                        if self._forward_hooks_with_kwargs.get(hid):
                            hook(self, args, kwargs, None)
                        else:
                            hook(self, args, None)
                    except Exception:  # noqa: BLE001 - the forward's error is the one to raise
                        pass
            raise
        for hook in list(_global_forward_hooks.values()):
            res = hook(self, args, result)
            if res is not None:
                result = res
        for hid, hook in list(self._forward_hooks.items()):
            if self._forward_hooks_with_kwargs.get(hid):
                res = hook(self, args, kwargs, result)
            else:
                res = hook(self, args, result)
            if res is not None:
                result = res
        if bw_hook is not None:
            result = bw_hook.setup_output_hook(result)
        if legacy:
            self._legacy_backward_hooks(args, result)
        return result

    def _legacy_backward_hooks(self, args: tuple[Any, ...], result: Any) -> None:
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
        self, hook: Callable[..., Any], prepend: bool = False
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

    def register_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
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
        self, hook: Callable[..., Any], full: bool, prepend: bool
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
        self, hook: Callable[..., Any], prepend: bool = False
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
        self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False
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
        self,
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

    # ------------------------------------------------------------ registration
    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._buffers, self._modules)
            self._non_persistent_buffers_set.discard(name)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                    "(tensorcore.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        if isinstance(value, Buffer):
            if self.__dict__.get("_buffers") is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._parameters, self._modules)
            self.register_buffer(name, value, value.persistent)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._parameters, self._buffers)
            self._non_persistent_buffers_set.discard(name)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as child module '{name}' "
                    "(tensorcore.nn.Module or None expected)"
                )
            modules[name] = value
            return
        buffers = self.__dict__.get("_buffers")
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                    "(tensorcore.Tensor or None expected)"
                )
            buffers[name] = value
            return
        object.__setattr__(self, name, value)

    @staticmethod
    def _remove_from(name: str, *dicts: dict[str, Any]) -> None:
        for d in dicts:
            d.pop(name, None)

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: registered members live in the dicts.
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            members = d.get(key)
            if members is not None and name in members:
                return members[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for members in (self._parameters, self._buffers, self._modules):
            if name in members:
                del members[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        keys = [*super().__dir__(), *self._parameters, *self._buffers, *self._modules]
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def _check_name(self, kind: str, name: Any, members: dict[str, Any]) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in members:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register ``param`` (a :class:`Parameter`, or None for an absent one) as ``name``."""
        self._check_name("parameter", name, self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                "(tensorcore.nn.Parameter or None required)"
            )
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                "be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Register ``tensor`` as the buffer ``name``: state that is not a parameter (running
        statistics). Persistent buffers are part of ``state_dict()``."""
        self._check_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                "(tensorcore.Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Register ``module`` as the child ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        self._check_name("module", name, self._modules)
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path ``target`` (``""`` is this module)."""
        mod: Module = self
        if target == "":
            return mod
        for item in target.split("."):
            child = mod._modules.get(item) if isinstance(mod, Module) else None
            if child is None:
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = child
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Set the submodule at the dotted path ``target`` to ``module``: its parent must exist;
        with ``strict`` the submodule itself must exist too (it is replaced).

        Examples
        --------
        >>> import tensorcore as tc
        >>> net = tc.nn.Sequential(tc.nn.Linear(2, 2), tc.nn.ReLU())
        >>> net.set_submodule("1", tc.nn.Tanh())
        >>> net
        Sequential(
          (0): Linear(in_features=2, out_features=2, bias=True)
          (1): Tanh()
        )
        """
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        path, _, name = target.rpartition(".")
        parent = self.get_submodule(path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target``."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        p = mod._parameters.get(name)
        if p is None:
            raise AttributeError(f"{mod._get_name()} has no parameter `{name}`")
        return p

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target``."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        b = mod._buffers.get(name)
        if b is None:
            raise AttributeError(f"{mod._get_name()} has no buffer `{name}`")
        return b

    # ------------------------------------------------------------ traversal
    def named_modules(
        self, memo: set[Module] | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """``(dotted name, module)`` for this module and every descendant, depth first."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, child in self._modules.items():
            if child is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from child.named_modules(memo, sub, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        """This module and every descendant."""
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` for the direct children."""
        seen: set[Module] = set()
        for name, child in self._modules.items():
            if child is not None and child not in seen:
                seen.add(child)
                yield name, child

    def children(self) -> Iterator[Module]:
        """The direct children."""
        for _, child in self.named_children():
            yield child

    def _named_members(
        self, kind: str, prefix: str, recurse: bool, remove_duplicate: bool
    ) -> Iterator[tuple[str, Any]]:
        seen: set[int] = set()
        mods = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else iter([(prefix, self)])
        )
        for mod_prefix, mod in mods:
            for name, value in getattr(mod, kind).items():
                if value is None:
                    continue
                if remove_duplicate:
                    if id(value) in seen:
                        continue
                    seen.add(id(value))
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs; a parameter shared by two modules once."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every parameter (of the descendants too, unless ``recurse=False``)."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """``(dotted name, buffer)`` pairs."""
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Every buffer."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # ------------------------------------------------------------ modes
    def train(self, mode: bool = True) -> Module:
        """Set training mode (``Dropout``, ``BatchNorm`` behave differently); returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        # Each child's own ``train`` runs (as in PyTorch), so that a subclass overriding it
        # (LoRA merging its weights on ``eval()``) sees the switch wherever it sits.
        object.__setattr__(self, "training", mode)
        for child in self.children():
            child.train(mode)
        return self

    def eval(self) -> Module:
        """``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` of every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter (to None by default, else to zero)."""
        zero_grads(self.parameters(), set_to_none)

    # ------------------------------------------------------------ conversion
    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        if recurse:
            for child in self.children():
                child._apply(fn)
        with no_grad():
            for key, p in self._parameters.items():
                if p is None:
                    continue
                new = fn(p)
                g = p.grad
                if new is not p and not _shallow_copyable(p, new):
                    # Across the meta device or a layout PyTorch cannot swap a parameter's
                    # data in place: a new Parameter takes its place (so weights tied by
                    # sharing one Parameter come apart, as in PyTorch: re-tie after
                    # ``to_empty``).
                    p = self._parameters[key] = Parameter(new, p.requires_grad)
                    if g is not None:
                        p.grad = fn(g).requires_grad_(g.requires_grad)
                    continue
                if new is not p:
                    p.data = new
                if g is not None:
                    new_g = fn(g)
                    if new_g is not g:
                        g.data = new_g
            for key, b in self._buffers.items():
                if b is not None:
                    self._buffers[key] = fn(b)
        return self

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call ``fn`` on every descendant and then on this module (e.g. to initialise
        weights); returns self."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Move and/or cast parameters and buffers, in place: ``to(device)``, ``to(dtype)``,
        ``to(device, dtype)``, ``to(tensor)`` or keywords ``device=``, ``dtype=``,
        ``memory_format=``.

        A dtype applies to floating (and complex) parameters and buffers only; integer
        buffers keep theirs, as in PyTorch. ``memory_format`` (``tensorcore.channels_last``)
        lays out the 4-D and 5-D ones (a 5-D one in ``channels_last`` is an error, as in
        PyTorch). Parameters stay the same objects (but for a move from or to ``meta``).

        Examples
        --------
        >>> import tensorcore as tc
        >>> conv = tc.nn.Conv2d(3, 4, 3).to(memory_format=tc.channels_last)
        >>> conv.weight.stride(), conv.bias.stride()
        ((27, 1, 9, 3), (1,))
        """
        fmt = kwargs.pop("memory_format", None)
        device, dtype = _parse_to(args, kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dtype}"
            )

        def convert(t: Tensor) -> Tensor:
            # (PyTorch converts the layout of the 4-D and 5-D tensors only: conv weights)
            f = {"memory_format": fmt} if fmt is not None and t.dim() in (4, 5) else {}
            if dtype is not None and (t.is_floating_point() or t.is_complex()):
                d = dtype
                if t.is_complex() and not dtype.is_complex:
                    d = t.dtype
                return t.to(device=device, dtype=d, **f)
            return t.to(device=device, **f) if device is not None or f else t

        return self._apply(convert)

    def to_empty(self, *, device: Any, recurse: bool = True) -> Module:
        """Move the parameters and buffers to ``device`` without their values: each becomes
        an uninitialised tensor of the same shape, dtype and strides there (``empty_like``),
        as in PyTorch. Parameters stay the same objects, but for a move from or to the
        ``meta`` device: each then becomes a new Parameter, as in PyTorch, so that weights
        tied by sharing one are tied again afterwards.

        This is how a model built on the ``meta`` device (shapes only, no memory) becomes a
        real one: ``to_empty(device="cpu")``, then initialise it, e.g. with each layer's
        ``reset_parameters()``. With ``recurse=False`` only this module's own parameters and
        buffers move, not its submodules'. Returns self.

        Examples
        --------
        >>> import tensorcore as tc
        >>> fc = tc.nn.Linear(3, 2)
        >>> w = fc.weight
        >>> fc.to_empty(device="cpu") is fc, fc.weight is w, fc.weight.shape
        (True, True, tensorcore.Size([2, 3]))
        """
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def cpu(self) -> Module:
        """Move every parameter and buffer to the CPU."""
        return self.to("cpu")

    def cuda(self, device: Any = None) -> Module:
        """Move every parameter and buffer to a CUDA device."""
        return self.to("cuda" if device is None else _cuda_device(device))

    def share_memory(self) -> Module:
        """Move every parameter, gradient and buffer into memory shared between processes
        (:meth:`Tensor.share_memory_`), for Hogwild training with :mod:`multiprocessing`;
        returns self.

        Examples
        --------
        >>> import tensorcore as tc
        >>> m = tc.nn.Linear(2, 1).share_memory()
        >>> m.weight.is_shared()
        True
        """
        return self._apply(lambda t: t.share_memory_())

    def type(self, dst_type: dt.dtype) -> Module:
        """Cast every parameter and buffer to ``dst_type``."""
        return self._apply(lambda t: t.to(dtype=dst_type))

    def float(self) -> Module:
        """Cast floating parameters and buffers to float32."""
        return self._apply(_cast_floating(dt.float32))

    def double(self) -> Module:
        """Cast floating parameters and buffers to float64."""
        return self._apply(_cast_floating(dt.float64))

    def half(self) -> Module:
        """Cast floating parameters and buffers to float16."""
        return self._apply(_cast_floating(dt.float16))

    def bfloat16(self) -> Module:
        """Cast floating parameters and buffers to bfloat16."""
        return self._apply(_cast_floating(dt.bfloat16))

    # ------------------------------------------------------------ state
    #: The version of this module's state dict layout, saved in ``state_dict()._metadata``
    #: and handed back to ``_load_from_state_dict`` (a subclass that changes its layout
    #: raises it and converts older checkpoints there).
    _version: int = 1

    def get_extra_state(self) -> Any:
        """The extra (non-tensor) state a subclass keeps in its state dict under
        ``"_extra_state"``: a subclass that defines it and ``set_extra_state`` saves and
        restores it with the parameters.

        Examples
        --------
        >>> import tensorcore as tc
        >>> class Counter(tc.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.steps = 0
        ...     def get_extra_state(self):
        ...         return {"steps": self.steps}
        ...     def set_extra_state(self, state):
        ...         self.steps = state["steps"]
        >>> a, b = Counter(), Counter()
        >>> a.steps = 7
        >>> b.load_state_dict(a.state_dict())
        <All keys matched successfully>
        >>> b.steps
        7
        """
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called."
        )

    def set_extra_state(self, state: Any) -> None:
        """Restore what ``get_extra_state`` returned (see there)."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called."
        )

    def _save_to_state_dict(
        self, destination: dict[str, Any], prefix: str, keep_vars: bool
    ) -> None:
        """Put this module's own parameters, persistent buffers and extra state (not its
        children's) into ``destination`` under ``prefix`` (PyTorch's signature: a subclass
        may override it)."""
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE] = self.get_extra_state()

    def state_dict(
        self,
        *args: Any,
        destination: dict[str, Any] | None = None,
        prefix: str = "",
        keep_vars: bool = False,
    ) -> dict[str, Any]:
        """Parameters and persistent buffers by dotted name, as tensors sharing their storage
        (detached unless ``keep_vars``). ``tc.save(model.state_dict(), path)`` saves them.

        The result carries ``_metadata`` (each module's ``version`` by prefix), and the state
        dict hooks run as in PyTorch: pre-hooks ``hook(module, prefix, keep_vars)`` before a
        module saves, post-hooks ``hook(module, state_dict, prefix, local_metadata)`` after
        it and its children have."""
        if args:
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.state_dict for details.",
                FutureWarning,
                stacklevel=2,
            )
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        local_metadata = {"version": self._version}
        meta = getattr(destination, "_metadata", None)
        if meta is not None:
            meta[prefix[:-1]] = local_metadata
        for pre in self._state_dict_pre_hooks.values():
            pre(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        for hook in self._state_dict_hooks.values():
            res = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if res is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif res is not None:
                destination = res
        return destination

    def _load_from_state_dict(
        self,
        state_dict: Mapping[str, Any],
        prefix: str,
        local_metadata: dict[str, Any],
        strict: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
    ) -> None:
        """Load this module's own parameters, persistent buffers and extra state (not its
        children's) from ``state_dict``, noting missing and unexpected keys and errors in the
        lists (PyTorch's signature: a subclass may override it, e.g. to convert the keys of
        an older ``local_metadata["version"]``). The load pre-hooks run first."""
        for pre in self._load_state_dict_pre_hooks.values():
            pre(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                error_msgs)  # fmt: skip
        persistent = {
            k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set
        }
        local = {
            k: v
            for k, v in itertools.chain(self._parameters.items(), persistent.items())
            if v is not None
        }
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}"
                )
                continue
            if not param.shape and value.shape == (1,):
                value = value[0]  # (a 0-d parameter saved as one element, as PyTorch takes it)
            if value.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from "
                    f"checkpoint, the shape in current model is {param.shape}."
                )
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            new = (
                                value
                                if isinstance(value, Parameter)
                                else Parameter(value, param.requires_grad)
                            )
                            new.requires_grad_(param.requires_grad)
                            self._parameters[name] = new
                        else:
                            self._buffers[name] = value
                    else:
                        param.copy_(value)
            except Exception as exc:  # noqa: BLE001 - reported with the others, as PyTorch does
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model '
                    f"are {param.shape} and whose dimensions in the checkpoint are "
                    f"{value.shape}, an exception occurred : {exc.args}."
                )
        extra = prefix + _EXTRA_STATE
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra in state_dict:
                self.set_extra_state(state_dict[extra])
            elif strict:
                missing_keys.append(extra)
        elif strict and extra in state_dict:
            unexpected_keys.append(extra)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra:
                    head, dot, _ = key[len(prefix) :].partition(".")
                    if (head not in self._modules) if dot else (head not in local):
                        unexpected_keys.append(key)

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> Any:
        """Copy parameters and buffers from ``state_dict`` (as ``state_dict()`` names them).

        ``strict=True`` raises ``RuntimeError`` listing missing and unexpected keys; otherwise
        they are returned as ``(missing_keys, unexpected_keys)``. ``assign=True`` takes the
        given tensors instead of copying into the existing ones. Each module's load
        post-hooks, ``hook(module, incompatible_keys)``, run after it and its children have
        loaded, and may edit the key lists (which the strict check then reads)."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata  # type: ignore[attr-defined]

        def load(module: Module, local_state: Mapping[str, Any], prefix: str) -> None:
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(
                local_state, prefix, local_metadata, True, missing, unexpected, errors
            )
            for name, child in module._modules.items():
                if child is not None:
                    sub = prefix + name + "."
                    load(child, {k: v for k, v in local_state.items() if k.startswith(sub)}, sub)
            incompatible = _IncompatibleKeys(missing, unexpected)
            for post in module._load_state_dict_post_hooks.values():
                if post(module, incompatible) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace."
                    )

        load(self, state_dict, "")
        if strict:
            if unexpected:
                keys = ", ".join(f'"{k}"' for k in unexpected)
                errors.insert(0, f"Unexpected key(s) in state_dict: {keys}. ")
            if missing:
                keys = ", ".join(f'"{k}"' for k in missing)
                errors.insert(0, f"Missing key(s) in state_dict: {keys}. ")
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {self._get_name()}:\n\t" + "\n\t".join(errors)
            )
        return _IncompatibleKeys(missing, unexpected)

    # ------------------------------------------------------------ state dict hooks
    def register_state_dict_pre_hook(self, hook: Callable[..., None]) -> RemovableHandle:
        """Run ``hook(module, prefix, keep_vars)`` before this module's ``state_dict``
        saves anything."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook: Callable[..., None]) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata)`` after this module and its
        children have saved; it edits ``state_dict`` in place (returning anything raises).

        Examples
        --------
        >>> import tensorcore as tc
        >>> m = tc.nn.Linear(2, 1)
        >>> h = m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: sd.pop("bias"))
        >>> list(m.state_dict())
        Traceback (most recent call last):
            ...
        RuntimeError: state_dict post-hook must return None
        >>> h.remove()
        >>> def drop_bias(mod, sd, prefix, meta):
        ...     del sd[prefix + "bias"]
        >>> _ = m.register_state_dict_post_hook(drop_bias)
        >>> list(m.state_dict())
        ['weight']
        """
        hook._from_public_api = True  # type: ignore[attr-defined]
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_state_dict_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """PyTorch's older post-hook: as ``register_state_dict_post_hook``, but a dict it
        returns replaces the state dict (where the hook is the root module's)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Cannot register the same function as the state dict post hook that was "
                "previously registered via register_state_dict_post_hook"
            )
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_pre_hook(self, hook: Callable[..., None]) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads its part of a state dict (it
        may edit ``state_dict``, e.g. rename old keys)."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(
        self, hook: Callable[..., None], with_module: bool = False
    ) -> RemovableHandle:
        """As ``register_load_state_dict_pre_hook``; without ``with_module`` the hook is
        called without the module (PyTorch's older form)."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = (
            functools.partial(hook, self) if with_module else hook
        )
        return handle

    def register_load_state_dict_post_hook(self, hook: Callable[..., None]) -> RemovableHandle:
        """Run ``hook(module, incompatible_keys)`` after this module and its children have
        loaded; it may edit ``incompatible_keys.missing_keys``/``unexpected_keys`` in place.

        Examples
        --------
        >>> import tensorcore as tc
        >>> m = tc.nn.Linear(2, 1)
        >>> def forgive(mod, keys):
        ...     keys.missing_keys.clear()
        >>> _ = m.register_load_state_dict_post_hook(forgive)
        >>> m.load_state_dict({"weight": tc.zeros(1, 2)})
        <All keys matched successfully>
        """
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """PyTorch compiles the module's forward in place; tensorcore runs eagerly, so this
        accepts ``tc.compile``'s arguments and changes nothing (unlike ``tc.compile(module)``,
        no wrapper: the module itself stays what programs call)."""

    # ------------------------------------------------------------ repr
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The text inside this module's parentheses in ``repr`` (layers show their
        arguments)."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, child in self._modules.items():
            lines.append(f"({name}): " + _addindent(repr(child), 2))
        main = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for key, default in (
            ("_forward_hooks_with_kwargs", {}),
            ("_forward_hooks_always_called", {}),
            ("_forward_pre_hooks_with_kwargs", {}),
            ("_non_persistent_buffers_set", set()),
        ):
            self.__dict__.setdefault(key, default)
        for name in _STATE_DICT_HOOKS:
            self.__dict__.setdefault(name, OrderedDict())


def zero_grads(params: Iterable[Tensor], set_to_none: bool = True) -> None:
    """Reset the ``.grad`` of each of ``params``: to None, or (``set_to_none=False``) to
    zeros in place, detached first (``Module.zero_grad`` and ``Optimizer.zero_grad``)."""
    for p in params:
        g = p.grad
        if g is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            if g.grad_fn is not None:
                g.detach_()
            else:
                g.requires_grad_(False)
            g.zero_()


def _type_name(value: Any) -> str:
    if isinstance(value, Tensor):
        return legacy_type_name(value)
    return type(value).__module__ + "." + type(value).__qualname__


def _cast_floating(d: dt.dtype) -> Callable[[Tensor], Tensor]:
    def cast(t: Tensor) -> Tensor:
        return t.to(dtype=d) if t.is_floating_point() else t

    return cast


def _cuda_device(device: Any) -> Any:
    return f"cuda:{device}" if isinstance(device, int) else device


def _parse_to(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, dt.dtype | None]:
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for a in args:
        if isinstance(a, bool):  # non_blocking, positionally
            continue
        if isinstance(a, dt.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, (str, _device, int)):
            device = a
        else:
            raise TypeError(f"to() received an invalid combination of arguments: {a!r}")
    return device, dtype
