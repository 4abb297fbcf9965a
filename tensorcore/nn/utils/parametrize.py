"""``tensorcore.nn.utils.parametrize``: a module's tensor computed from other tensors on each
access, as ``torch.nn.utils.parametrize``.

``register_parametrization(module, "weight", p)`` moves ``module.weight`` to
``module.parametrizations.weight.original`` (``original0``, ``original1``... where
``p.right_inverse`` returns several tensors) and makes ``module.weight`` a property computing
``p(original)``: the module's class becomes a ``Parametrized<Class>`` subclass holding the
property, as in PyTorch, so state-dict keys and ``repr`` match PyTorch's.

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.nn.utils import parametrize
>>> class Symmetric(tc.nn.Module):
...     def forward(self, X):
...         return X.triu() + X.triu(1).mT
>>> m = parametrize.register_parametrization(tc.nn.Linear(3, 3), "weight", Symmetric())
>>> bool((m.weight == m.weight.T).all()), type(m).__name__
(True, 'ParametrizedLinear')
>>> sorted(m.state_dict())
['bias', 'parametrizations.weight.original']
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = [
    "ParametrizationList",
    "cached",
    "is_parametrized",
    "register_parametrization",
    "remove_parametrizations",
    "type_before_parametrizations",
]

_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextmanager
def cached() -> Iterator[None]:
    """Within the block, each parametrized tensor is computed once and reused (for a
    recurrent loop reading the same weight many times), as PyTorch's ``cached``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.utils import parametrize
    >>> m = parametrize.register_parametrization(tc.nn.Linear(2, 2), "weight", tc.nn.Tanh())
    >>> with parametrize.cached():
    ...     m.weight is m.weight
    True
    """
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _register_parameter_or_buffer(module: Module, name: str, value: Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _assign(original: Tensor, value: Tensor) -> None:
    """``original``'s values become ``value``'s, in place where the shapes and dtypes agree
    (PyTorch's ``set_``; the tensor keeps its identity either way)."""
    if value.shape == original.shape and value.dtype == original.dtype:
        original.copy_(value)
    else:
        original.data = value.detach()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor (applied in order) and its ``original`` tensors,
    as PyTorch's; made by :func:`register_parametrization`, not by hand.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.utils import parametrize
    >>> m = parametrize.register_parametrization(tc.nn.Linear(2, 2), "weight", tc.nn.Tanh())
    >>> type(m.parametrizations.weight).__name__, m.parametrizations.weight.original.shape
    ('ParametrizationList', tensorcore.Size([2, 2]))
    """

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new: Any = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    # NotImplementedError: taken as the identity, as PyTorch does.
                    with contextlib.suppress(NotImplementedError):
                        new = module.right_inverse(new)
        if not isinstance(new, (Tensor, Sequence)):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if isinstance(new, Tensor):
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\nright_inverse(original).dtype: "
                    f"{new.dtype}"
                )
            if new is not original:
                with no_grad():
                    original.data = new.detach()  # keeps the parameter's identity, as set_
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors "
                        f"(list, tuple...). Got element {i} of the sequence with type "
                        f"{type(originali).__name__}."
                    )
                if isinstance(original, Parameter):
                    originali = Parameter(originali.detach(), original.requires_grad)
                else:
                    originali = originali.detach().requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not self.unsafe:
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
            if Z.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized dtype: {original_dtype}\nparametrized dtype: {Z.dtype}"
                )
            if Z.shape != original_shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized shape: {original_shape}\nparametrized shape: {Z.shape}"
                )

    def right_inverse(self, value: Tensor) -> None:
        """Set the ``original`` tensors so that the parametrization evaluates to ``value``
        (each module's ``right_inverse``, in reverse order)."""
        with no_grad():
            new: Any = value
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    new = module.right_inverse(new)
                else:
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement right_inverse."
                    )
            if self.is_tensor:
                if not isinstance(new, Tensor):
                    raise ValueError(
                        f"`right_inverse` should return a tensor. Got {type(new).__name__}"
                    )
                _assign(self.original, new)
            else:
                if not isinstance(new, Sequence) or len(new) != self.ntensors:
                    raise ValueError(
                        f"'right_inverse' must return a sequence of tensors of length "
                        f"{self.ntensors}. Got {type(new).__name__}"
                    )
                for i, tensor in enumerate(new):
                    _assign(getattr(self, f"original{i}"), tensor)

    def forward(self) -> Tensor:
        """The parametrized tensor: the first module applied to the originals, then the
        others in order."""
        mods = list(self)
        if self.is_tensor:
            x = mods[0](self.original)
        else:
            x = mods[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in mods[1:]:
            x = module(x)
        out: Tensor = x
        return out


def _inject_new_class(module: Module) -> None:
    cls = module.__class__

    def getstate(self: Module) -> Any:
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict(). "
            "See:\nhttps://pytorch.org/tutorials/beginner/saving_loading_models.html"
        )

    def deepcopy(self: Module, memo: dict[int, Any]) -> Module:
        obj = memo.get(id(self))
        if obj is not None:
            return obj
        replica = object.__new__(self.__class__)
        memo[id(self)] = replica
        replica.__dict__ = copy.deepcopy(self.__dict__, memo)
        return replica

    param_cls = type(
        f"Parametrized{cls.__name__}",
        (cls,),
        {"__getstate__": getstate, "__deepcopy__": deepcopy, "__module__": cls.__module__},
    )
    module.__class__ = param_cls


def _inject_property(module: Module, tensor_name: str) -> None:
    def get_parametrized(self: Module) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(self), tensor_name)
            tensor = _cache.get(key)
            if tensor is None:
                tensor = parametrization()
                _cache[key] = tensor
            return tensor
        out: Tensor = parametrization()
        return out

    def set_original(self: Module, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization (on ``tensor_name``, when given).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.utils import parametrize
    >>> m = tc.nn.Linear(2, 2)
    >>> parametrize.is_parametrized(m)
    False
    >>> _ = parametrize.register_parametrization(m, "weight", tc.nn.Identity())
    >>> parametrize.is_parametrized(m, "weight"), parametrize.is_parametrized(m, "bias")
    (True, False)
    """
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def type_before_parametrizations(module: Module) -> type:
    """The module's class before parametrizations were registered (its own class
    otherwise)."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return module.__class__


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    """Make ``module.<tensor_name>`` the value of ``parametrization`` applied to the original
    tensor (stored as ``module.parametrizations.<tensor_name>.original``); a second call on
    the same name chains the parametrizations. Returns ``module``.

    ``parametrization.right_inverse`` (optional) maps a value of the tensor to the original
    (one tensor or a sequence of them: ``original0``, ``original1``...); assigning
    ``module.<tensor_name> = value`` calls it. Unless ``unsafe=True`` the parametrized tensor
    must keep the original's shape and dtype.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.utils import parametrize
    >>> class Positive(tc.nn.Module):
    ...     def forward(self, X):
    ...         return X.exp()
    ...     def right_inverse(self, Y):
    ...         return Y.log()
    >>> m = parametrize.register_parametrization(tc.nn.Linear(2, 2), "weight", Positive())
    >>> m.weight = tc.ones(2, 2)
    >>> m.parametrizations.weight.original
    Parameter containing:
    tensor([[0., 0.],
            [0., 0.]], requires_grad=True)
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if not isinstance(X, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
            if X.dtype != Y.dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.dtype: {Y.dtype}\nparametrization(module."
                    f"{tensor_name}).dtype: {X.dtype}"
                )
            if X.shape != Y.shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless the `unsafe` flag is enabled.\n"
                    f"module.{tensor_name}.shape: {Y.shape}\nparametrization(module."
                    f"{tensor_name}).shape: {X.shape}"
                )
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
            f"with name '{tensor_name}'"
        )
    return module


def remove_parametrizations(
    module: Module, tensor_name: str, leave_parametrized: bool = True
) -> Module:
    """Undo :func:`register_parametrization` on ``tensor_name``: the tensor becomes a plain
    parameter (or buffer) again, holding the parametrized value (``leave_parametrized=True``)
    or the original. The module gets its class back once no parametrization is left.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.utils import parametrize
    >>> m = parametrize.register_parametrization(tc.nn.Linear(2, 2), "weight", tc.nn.Tanh())
    >>> m = parametrize.remove_parametrizations(m, "weight")
    >>> type(m).__name__, sorted(m.state_dict())
    ('Linear', ['bias', 'weight'])
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                _assign(original, getattr(module, tensor_name))
    else:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                "parametrized in terms of a sequence of tensors."
            )
        t = getattr(module, tensor_name)
        original = Parameter(t.detach(), t.requires_grad) if t.requires_grad else t.detach()
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module
