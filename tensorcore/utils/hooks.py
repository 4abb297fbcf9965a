"""``RemovableHandle``: what the ``register_*_hook`` methods of modules and optimizers
return."""

from __future__ import annotations

import itertools
from typing import Any

from .._tensor import Tensor
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled

__all__ = ["BackwardHook", "RemovableHandle"]


class RemovableHandle:
    """``handle.remove()`` unregisters the hook (a second call does nothing); also a context
    manager that removes it on exit.

    Examples
    --------
    >>> from tensorcore.utils.hooks import RemovableHandle
    >>> hooks = {}
    >>> h = RemovableHandle(hooks)
    >>> hooks[h.id] = print
    >>> h.remove()
    >>> hooks
    {}
    """

    _next_id = itertools.count()

    def __init__(self, hooks: dict[int, Any], *extra: dict[int, Any]) -> None:
        self.id = next(RemovableHandle._next_id)
        self._dicts = (hooks, *extra)

    def remove(self) -> None:
        """Unregister the hook."""
        for d in self._dicts:
            d.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


class BackwardHook:
    """The full backward hooks of one module call (PyTorch's ``torch.utils.hooks.BackwardHook``).

    ``setup_input_hook`` routes the call's positional tensors that require grad through an
    identity autograd Function whose backward sees the gradients with respect to them
    (``grad_input``); ``setup_output_hook`` does the same with the outputs (``grad_output``).
    Backward pre-hooks run when ``grad_output`` is known, the hooks when ``grad_input`` is
    (at once when no input requires grad, with ``grad_input`` all None). A hook's non-None
    result replaces the gradients it was given.
    """

    def __init__(self, module: Any, user_hooks: list[Any], user_pre_hooks: list[Any]) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs: tuple[Any, ...] | None = None
        self.n_inputs = 0
        self.input_index: list[int] | None = None

    @staticmethod
    def _wrap(args: Any, callback: Any) -> tuple[Any, list[int] | None, int, bool]:
        is_tuple = isinstance(args, tuple)
        items = args if is_tuple else (args,)
        index = [i for i, a in enumerate(items) if isinstance(a, Tensor) and a.requires_grad]
        if not index or not is_grad_enabled():
            return args, None, len(items), is_tuple
        new = BackwardHookFunction.apply(callback, *(items[i] for i in index))
        out = list(items)
        for i, t in zip(index, new, strict=True):
            out[i] = t
        return (tuple(out) if is_tuple else out[0]), index, len(items), is_tuple

    @staticmethod
    def _pack(index: list[int], grads: tuple[Any, ...], n: int) -> tuple[Any, ...]:
        res: list[Any] = [None] * n
        for i, g in zip(index, grads, strict=True):
            res[i] = g
        return tuple(res)

    def _run_hooks(self, grad_inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        for hook in self.user_hooks:
            res = hook(self.module, grad_inputs, self.grad_outputs)
            if res is None:
                continue
            res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
            if len(res) != len(grad_inputs):
                raise RuntimeError(
                    "Backward hook returned an invalid number of grad_input, got "
                    f"{len(res)}, but expected {len(grad_inputs)}"
                )
            grad_inputs = res
        return grad_inputs

    def setup_input_hook(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """``args`` with its tensors that require grad routed through the input hook."""

        def on_grad_inputs(grads: tuple[Any, ...]) -> tuple[Any, ...]:
            assert self.input_index is not None
            packed = self._run_hooks(self._pack(self.input_index, grads, self.n_inputs))
            return tuple(packed[i] for i in self.input_index)

        if not self.user_hooks:
            return args
        new, self.input_index, self.n_inputs, _ = self._wrap(args, on_grad_inputs)
        return new

    def setup_output_hook(self, result: Any) -> Any:
        """``result`` (a tensor or a tuple) with its tensors that require grad routed through
        the output hook."""
        index: list[int] = []
        n_out = 0

        def on_grad_outputs(grads: tuple[Any, ...]) -> tuple[Any, ...]:
            packed = self._pack(index, grads, n_out)
            for hook in self.user_pre_hooks:
                res = hook(self.module, packed)
                if res is None:
                    continue
                res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
                if len(res) != len(packed):
                    raise RuntimeError(
                        "Backward pre hook returned an invalid number of grad_output, got "
                        f"{len(res)}, but expected {len(packed)}"
                    )
                packed = res
            self.grad_outputs = packed
            if self.input_index is None and self.user_hooks:
                # No input requires grad: the hooks run now, with grad_input all None.
                for g in self._run_hooks((None,) * self.n_inputs):
                    if g is not None:
                        raise RuntimeError(
                            "can't change grad_input for a module whose inputs do not require grad"
                        )
            return tuple(packed[i] for i in index)

        new, idx, n_out, _ = self._wrap(result, on_grad_outputs)
        if idx is not None:
            index.extend(idx)
        return new


class BackwardHookFunction(Function):
    """Identity on its tensors; its backward hands their gradients to a callback."""

    @staticmethod
    def forward(ctx: Any, callback: Any, *tensors: Any) -> Any:
        ctx.callback = callback
        ctx.set_materialize_grads(False)
        return tuple(t.view_as(t) for t in tensors)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        return (None, *ctx.callback(grads))
