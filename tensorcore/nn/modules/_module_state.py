"""The state dict of :class:`~tensorcore.nn.Module`: ``state_dict``, ``load_state_dict``,
the extra state and the state-dict hooks. The methods are written here as functions and
are attributes of ``Module`` (``module.py``).
"""

from __future__ import annotations

import functools
import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...utils.hooks import RemovableHandle
from ..parameter import Parameter

if TYPE_CHECKING:
    from .module import Module

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


def get_extra_state(self: Module) -> Any:
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


def set_extra_state(self: Module, state: Any) -> None:
    """Restore what ``get_extra_state`` returned (see there)."""
    raise RuntimeError(
        "Reached a code path in Module.set_extra_state() that should never be called."
    )


def _save_to_state_dict(
    self: Module, destination: dict[str, Any], prefix: str, keep_vars: bool
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
    if type(self).get_extra_state is not get_extra_state:
        destination[prefix + _EXTRA_STATE] = self.get_extra_state()


def state_dict(
    self: Module,
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
    self: Module,
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
    if type(self).set_extra_state is not set_extra_state:
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
    self: Module, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
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
def register_state_dict_pre_hook(self: Module, hook: Callable[..., None]) -> RemovableHandle:
    """Run ``hook(module, prefix, keep_vars)`` before this module's ``state_dict``
    saves anything."""
    handle = RemovableHandle(self._state_dict_pre_hooks)
    self._state_dict_pre_hooks[handle.id] = hook
    return handle


def register_state_dict_post_hook(self: Module, hook: Callable[..., None]) -> RemovableHandle:
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


def _register_state_dict_hook(self: Module, hook: Callable[..., Any]) -> RemovableHandle:
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


def register_load_state_dict_pre_hook(self: Module, hook: Callable[..., None]) -> RemovableHandle:
    """Run ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
    unexpected_keys, error_msgs)`` before this module loads its part of a state dict (it
    may edit ``state_dict``, e.g. rename old keys)."""
    return self._register_load_state_dict_pre_hook(hook, with_module=True)


def _register_load_state_dict_pre_hook(
    self: Module, hook: Callable[..., None], with_module: bool = False
) -> RemovableHandle:
    """As ``register_load_state_dict_pre_hook``; without ``with_module`` the hook is
    called without the module (PyTorch's older form)."""
    handle = RemovableHandle(self._load_state_dict_pre_hooks)
    self._load_state_dict_pre_hooks[handle.id] = (
        functools.partial(hook, self) if with_module else hook
    )
    return handle


def register_load_state_dict_post_hook(self: Module, hook: Callable[..., None]) -> RemovableHandle:
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
