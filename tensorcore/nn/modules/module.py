"""``nn.Module``: the base class of layers and models, with PyTorch's registration rules.

Assigning a :class:`~tensorcore.nn.Parameter`, a ``Module`` or (after
:meth:`Module.register_buffer`) a tensor to an attribute registers it; ``parameters()``,
``state_dict()``, ``to()`` and the rest walk what is registered.

Its hooks, its state dict and the moving and casting of its tensors are written in
``_module_hooks.py``, ``_module_state.py`` and ``_module_conversion.py``, whose functions
are its methods.
"""

from __future__ import annotations

import contextlib
import types
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ... import dtypes as dt
from ..._tensor import Tensor
from ..._tensor_methods import legacy_type_name
from ...utils.hooks import BackwardHook, RemovableHandle
from ..parameter import Buffer, Parameter
from . import _module_conversion, _module_hooks, _module_state
from ._module_conversion import _cast_floating, _cuda_device
from ._module_hooks import (
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
)
from ._module_state import _STATE_DICT_HOOKS
from ._module_state import _IncompatibleKeys as _IncompatibleKeys

__all__ = [
    "Module",
    "RemovableHandle",
    "register_module_forward_hook",
    "register_module_forward_pre_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
]

# Bound by assignment, not imported: CPython compiles a method call on a name that ``from ...
# import`` binds (``_global_forward_hooks.values()``) as an attribute load and a bound-method
# call, where on a module's own global it compiles the method call ``__call__`` had before.
_global_forward_pre_hooks = _module_hooks._global_forward_pre_hooks
_global_forward_hooks = _module_hooks._global_forward_hooks
_global_forward_hooks_always_called = _module_hooks._global_forward_hooks_always_called
_global_backward_hooks = _module_hooks._global_backward_hooks
_global_backward_pre_hooks = _module_hooks._global_backward_pre_hooks


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


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

    # ------------------------------------------------------------ hooks
    # (written as the functions of ``_module_hooks.py``)
    _legacy_backward_hooks = _module_hooks._legacy_backward_hooks
    register_full_backward_hook = _module_hooks.register_full_backward_hook
    register_backward_hook = _module_hooks.register_backward_hook
    _add_backward_hook = _module_hooks._add_backward_hook
    register_full_backward_pre_hook = _module_hooks.register_full_backward_pre_hook
    register_forward_pre_hook = _module_hooks.register_forward_pre_hook
    register_forward_hook = _module_hooks.register_forward_hook

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
    # (written as the functions of ``_module_conversion.py``)
    _apply = _module_conversion._apply
    apply = _module_conversion.apply
    to = _module_conversion.to
    to_empty = _module_conversion.to_empty
    share_memory = _module_conversion.share_memory

    def cpu(self) -> Module:
        """Move every parameter and buffer to the CPU."""
        return self.to("cpu")

    def cuda(self, device: Any = None) -> Module:
        """Move every parameter and buffer to a CUDA device."""
        return self.to("cuda" if device is None else _cuda_device(device))

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

    # (the state dict: written as the functions of ``_module_state.py``)
    get_extra_state = _module_state.get_extra_state
    set_extra_state = _module_state.set_extra_state
    _save_to_state_dict = _module_state._save_to_state_dict
    state_dict = _module_state.state_dict
    _load_from_state_dict = _module_state._load_from_state_dict
    load_state_dict = _module_state.load_state_dict
    register_state_dict_pre_hook = _module_state.register_state_dict_pre_hook
    register_state_dict_post_hook = _module_state.register_state_dict_post_hook
    _register_state_dict_hook = _module_state._register_state_dict_hook
    register_load_state_dict_pre_hook = _module_state.register_load_state_dict_pre_hook
    _register_load_state_dict_pre_hook = _module_state._register_load_state_dict_pre_hook
    register_load_state_dict_post_hook = _module_state.register_load_state_dict_post_hook

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


# The methods written as functions of ``_module_hooks``, ``_module_state`` and
# ``_module_conversion`` keep the names they had as Module's own: error messages ("Module.to()
# got an unexpected keyword argument"), reprs and pickles by reference name them so.
for _f in vars(Module).values():
    if isinstance(_f, types.FunctionType) and _f.__module__ != __name__:
        _f.__module__, _f.__qualname__ = __name__, f"Module.{_f.__name__}"


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
