"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad`` and state dicts with
PyTorch's semantics and format."""

from __future__ import annotations

import copy
import itertools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from .. import _registry
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad
from ..backend import persist
from ..nn.modules.module import zero_grads
from ..ops.functions import view_as_real
from ..plugins import DeviceInterface
from ..utils.hooks import RemovableHandle

__all__ = ["Optimizer", "real_view", "required"]


def real_view(t: Any) -> Any:
    """``t`` as ``view_as_real`` sees it where it is a complex tensor, else ``t``."""
    if isinstance(t, Tensor) and t.is_complex():
        return view_as_real(t.resolve_conj())
    return t


class _Required:
    """The default of a hyper-parameter that every group must give (``lr`` of ``SGD``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required: Any = _Required()


class Optimizer:
    """Base class of the optimizers.

    ``params`` is an iterable of tensors or of dicts (parameter groups: ``{"params": [...],
    "lr": ...}``); a group's missing options come from ``defaults``. ``state[p]`` holds the
    per-parameter buffers (``momentum_buffer``, ``exp_avg``, ``step``...). Subclasses define
    ``step``; updates run under ``no_grad`` with in-place operators.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.Parameter(tc.ones(2))
    >>> b = tc.nn.Parameter(tc.zeros(1))
    >>> opt = tc.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1)
    >>> [g["lr"] for g in opt.param_groups]
    [0.1, 0.5]
    """

    #: Whether ``step`` ran once (a schedule stepped before warns, as PyTorch's do).
    _opt_called = False

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        self._step_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._step_post_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict[int, Callable[..., Any]] = (
            OrderedDict()
        )
        self._optimizer_load_state_dict_post_hooks: OrderedDict[int, Callable[..., Any]] = (
            OrderedDict()
        )
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {type(params).__name__}"
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    # ------------------------------------------------------------ groups
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (with its own options) to optimise."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        # ``named_parameters()`` pairs: the tensors go to "params", their names to
        # "param_names" (kept in state dicts, as PyTorch's)
        named = [p for p in param_group["params"] if isinstance(p, tuple)]
        if named:
            if len(named) != len(param_group["params"]):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are "
                    "missing"
                )
            param_group["param_names"] = [name for name, _ in named]
            param_group["params"] = [p for _, p in named]
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    f"{type(p).__module__}.{type(p).__name__}"
                )
            if not (p.is_leaf or p.retains_grad or self.defaults.get("differentiable")):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)
        if len({id(p) for p in param_group["params"]}) != len(param_group["params"]):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )
        for group in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} to the optimizer"
                )
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every optimised parameter (to None by default)."""
        zero_grads((p for g in self.param_groups for p in g["params"]), set_to_none)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter; ``closure`` re-evaluates the loss (with grad
        enabled) and its result is returned."""
        raise NotImplementedError

    def _dense_states(
        self,
        group: dict[str, Any],
        name: str,
        init: Callable[[Tensor, dict[str, Any]], dict[str, Any]],
        hint: str = "",
    ) -> tuple[list[Tensor], list[Tensor], list[dict[str, Any]]]:
        """The parameters of ``group`` that have a gradient, their gradients and their
        states (made by ``init(p, group)`` on the first step); ``name``'s error (and
        ``hint``) for a sparse one.

        A complex parameter comes as its real view (``view_as_real``), with its gradient's
        and a dict of its state's tensors so viewed: PyTorch's adaptive optimizers update the
        real and imaginary parts as separate parameters (their moments, step sizes and
        averages are per part), writing through the views into the complex tensors."""
        params, grads, states = [], [], []
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            if g.is_sparse:
                raise RuntimeError(f"{name} does not support sparse gradients{hint}")
            st = self.state[p]
            if not st:
                st.update(init(p, group))
            if p.is_complex():
                p, g = real_view(p), real_view(g)
                st = {k: real_view(v) for k, v in st.items()}
            params.append(p)
            grads.append(g)
            states.append(st)
        return params, grads, states

    def _closure_loss(self, closure: Callable[[], Any] | None) -> Any:
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # ------------------------------------------------------------ hooks
    def register_step_pre_hook(self, hook: Callable[..., Any]) -> Any:
        """Run ``hook(optimizer, args, kwargs)`` before each ``step``."""
        return _add_hook(self._step_pre_hooks, hook, False)

    def register_step_post_hook(self, hook: Callable[..., Any]) -> Any:
        """Run ``hook(optimizer, args, kwargs)`` after each ``step``."""
        return _add_hook(self._step_post_hooks, hook, False)

    def register_state_dict_pre_hook(
        self, hook: Callable[[Optimizer], None], prepend: bool = False
    ) -> RemovableHandle:
        """Run ``hook(optimizer)`` before ``state_dict`` builds its result (first among the
        hooks with ``prepend``).

        Examples
        --------
        >>> import tensorcore as tc
        >>> opt = tc.optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=0.1)
        >>> seen = []
        >>> handle = opt.register_state_dict_pre_hook(lambda o: seen.append(type(o).__name__))
        >>> _ = opt.state_dict()
        >>> seen
        ['SGD']
        """
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(
        self,
        hook: Callable[[Optimizer, dict[str, Any]], dict[str, Any] | None],
        prepend: bool = False,
    ) -> RemovableHandle:
        """Run ``hook(optimizer, state_dict)`` on ``state_dict``'s result; a dict it returns
        replaces the result.

        Examples
        --------
        >>> import tensorcore as tc
        >>> opt = tc.optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=0.1)
        >>> def tag(o, sd):
        ...     sd["note"] = "hello"
        >>> handle = opt.register_state_dict_post_hook(tag)
        >>> opt.state_dict()["note"]
        'hello'
        """
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(
        self,
        hook: Callable[[Optimizer, dict[str, Any]], dict[str, Any] | None],
        prepend: bool = False,
    ) -> RemovableHandle:
        """Run ``hook(optimizer, state_dict)`` before ``load_state_dict`` reads
        ``state_dict`` (a shallow copy of the caller's); a dict it returns is loaded instead.

        Examples
        --------
        >>> import tensorcore as tc
        >>> opt = tc.optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=0.1)
        >>> sd = opt.state_dict()
        >>> def slower(o, sd):
        ...     sd["param_groups"] = [dict(g, lr=0.01) for g in sd["param_groups"]]
        ...     return sd
        >>> handle = opt.register_load_state_dict_pre_hook(slower)
        >>> opt.load_state_dict(sd)
        >>> opt.param_groups[0]["lr"]
        0.01
        """
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(
        self, hook: Callable[[Optimizer], None], prepend: bool = False
    ) -> RemovableHandle:
        """Run ``hook(optimizer)`` after ``load_state_dict`` has loaded.

        Examples
        --------
        >>> import tensorcore as tc
        >>> opt = tc.optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=0.1)
        >>> handle = opt.register_load_state_dict_post_hook(lambda o: print("loaded"))
        >>> opt.load_state_dict(opt.state_dict())
        loaded
        """
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is None or getattr(step, "_hooked", False):
            return

        def hooked(self: Optimizer, *args: Any, **kw: Any) -> Any:
            # A wrapper that skips Optimizer.__init__ (timm's Lookahead shares its base's
            # groups and state) has no hooks of its own: its step runs all the same.
            no_hooks: dict[int, Any] = {}
            for hook in list(self.__dict__.get("_step_pre_hooks", no_hooks).values()):
                res = hook(self, args, kw)
                if res is not None:
                    args, kw = res
            out = step(self, *args, **kw)
            self._opt_called = True  # (a schedule stepped before this warns, as PyTorch's)
            _persist(self)
            for hook in list(self.__dict__.get("_step_post_hooks", no_hooks).values()):
                hook(self, args, kw)
            return out

        hooked._hooked = True  # type: ignore[attr-defined]
        hooked.__doc__ = step.__doc__
        hooked.__name__ = "step"
        cls.step = hooked  # type: ignore[method-assign]

    # ------------------------------------------------------------ state dicts
    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: buffers}, "param_groups": [options with "params" as
        indices]}``, PyTorch's format (parameters numbered in group order; the state dict
        hooks run before and after)."""
        for pre in list(self._optimizer_state_dict_pre_hooks.values()):
            pre(self)
        index: dict[int, int] = {}
        counter = itertools.count()
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            ids = []
            for p in group["params"]:
                if id(p) not in index:
                    index[id(p)] = next(counter)
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {index[id(p)]: v for p, v in self.state.items() if id(p) in index}
        result = {"state": state, "param_groups": groups}
        for post in list(self._optimizer_state_dict_post_hooks.values()):
            res = post(self, result)
            if res is not None:
                result = res
        return result

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore buffers and options from ``state_dict`` (tensors are cast to each
        parameter's device, and floating buffers to its dtype; ``step`` keeps its own). A
        group saved without ``param_names`` keeps this optimizer's; the load state dict
        hooks run before and after."""
        state_dict = dict(state_dict)
        for pre in list(self._optimizer_load_state_dict_pre_hooks.values()):
            res = pre(self, state_dict)
            if res is not None:
                state_dict = res
        state_dict = copy.deepcopy(state_dict)
        saved = state_dict["param_groups"]
        if len(saved) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for g, s in zip(self.param_groups, saved, strict=True):
            if len(g["params"]) != len(s["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size "
                    "of optimizer's group"
                )
        by_index = {
            old: p
            for g, s in zip(self.param_groups, saved, strict=True)
            for old, p in zip(s["params"], g["params"], strict=True)
        }
        self.state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            p = by_index.get(k)
            if p is None:
                self.state[k] = v  # (state of no parameter is kept as it is, as PyTorch's)
                continue
            self.state[p] = {key: _cast(p, key, value) for key, value in v.items()}
        groups = []
        for g, s in zip(self.param_groups, saved, strict=True):
            new = {**s, "params": g["params"]}
            if "param_names" in g and "param_names" not in s:
                new["param_names"] = g["param_names"]
            groups.append(new)
        self.param_groups = groups
        for post in list(self._optimizer_load_state_dict_post_hooks.values()):
            post(self)

    def __getstate__(self) -> dict[str, Any]:
        return {
            "defaults": self.defaults,
            "state": self.state,
            "param_groups": self.param_groups,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_step_post_hooks", OrderedDict())
        for which in ("", "load_"):
            for when in ("pre", "post"):
                self.__dict__.setdefault(
                    f"_optimizer_{which}state_dict_{when}_hooks", OrderedDict()
                )

    def __repr__(self) -> str:
        # PyTorch's text: a blank line parts one group from the next.
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            text += "".join(f"    {k}: {group[k]}\n" for k in sorted(group) if k != "params")
        return text + ")"


def _add_hook(
    hooks: OrderedDict[int, Callable[..., Any]], hook: Callable[..., Any], prepend: bool
) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def _cast(param: Tensor, key: str, value: Any) -> Any:
    if isinstance(value, Tensor):
        if key == "step":
            return value
        if value.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)
    if isinstance(value, dict):
        return {k: _cast(param, k, v) for k, v in value.items()}
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        return type(value)(_cast(param, key, v) for v in value)  # type: ignore[call-arg]
    return value


def _persist(opt: Optimizer) -> None:
    """After a step, let lazy devices (those whose interface implements ``persist``) compute
    and keep the parameters and the optimizer's state, so that their arrays do not carry
    every earlier step's history (``tensorcore.backend.persist``). Eager devices cost one
    pass over the registered device types."""
    lazy = {
        name
        for name, iface in _registry.devices.items()
        if type(iface).persist is not DeviceInterface.persist
    }
    if not lazy:
        return
    tensors = [p for g in opt.param_groups for p in g["params"] if p.device.type in lazy]
    for st in opt.state.values():
        tensors.extend(v for v in st.values() if isinstance(v, Tensor) and v.device.type in lazy)
    persist(*tensors)
