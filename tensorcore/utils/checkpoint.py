"""``tensorcore.utils.checkpoint``: activation checkpointing (PyTorch's
``torch.utils.checkpoint``).

``checkpoint(function, *args)`` runs ``function`` without recording its graph, so none of the
activations inside it stay alive until the backward pass; the backward pass runs it again,
with recording on and the random streams rewound to where the forward pass found them (so
dropout draws the same masks), and backpropagates through that fresh graph. Memory is traded
for a second forward pass.

Both of PyTorch's variants are accepted and compute the same gradients here; they differ
where PyTorch's do:

- ``use_reentrant=True`` (PyTorch's default, chosen with a warning when the argument is
  left out): as in PyTorch, when no tensor argument requires grad the output does not either
  (parameters used inside ``function`` then get no gradient), and ``function`` takes no
  keyword arguments.
- ``use_reentrant=False`` (what PyTorch recommends): the output requires grad whenever
  ``function`` uses a tensor that does, arguments or not; keyword arguments reach
  ``function``.

In both, the recomputation backpropagates into the leaves' ``.grad`` (the backward pass
inside the backward pass, as PyTorch's reentrant variant does), so use ``.backward()``, not
``tensorcore.autograd.grad``, through a checkpointed region.

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.utils.checkpoint import checkpoint
>>> lin = tc.nn.Linear(3, 3)
>>> x = tc.randn(2, 3, requires_grad=True)
>>> y = checkpoint(lambda t: lin(t).relu(), x, use_reentrant=False)
>>> y.sum().backward()
>>> lin.weight.grad.shape
tensorcore.Size([3, 3])
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import Any

from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.engine import backward as _backward
from ..autograd.function import Function, FunctionCtx
from ..ops import functions as ops
from ..random import RngStates, _get_states, _set_states

__all__ = ["checkpoint", "checkpoint_sequential"]

_PASS_USE_REENTRANT = (
    "{where}: the use_reentrant parameter should be passed explicitly. use_reentrant=False is "
    "recommended, but if you need to preserve the current default behavior, you can pass "
    "use_reentrant=True. Refer to docs for more details on the differences between the two "
    "variants."
)


def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = None,
    preserve_rng_state: bool = True,
    **kwargs: Any,
) -> Any:
    """Run ``function(*args, **kwargs)`` without keeping its activations; the backward pass
    recomputes them.

    Parameters
    ----------
    function : callable
        What to run; it must compute the same thing when run again (given the same random
        streams, which ``preserve_rng_state`` restores).
    *args
        Its arguments; gradients flow to those that are tensors requiring grad.
    use_reentrant : bool, optional
        PyTorch's variant switch (see the module's docstring); ``None`` warns, as PyTorch
        does, and means True.
    preserve_rng_state : bool
        Rewind the default random streams (the CPU one and those of the arguments' devices)
        before recomputing, so that random operators draw the same numbers.
    **kwargs
        Passed to ``function`` (``use_reentrant=False`` only, as in PyTorch).

    Returns
    -------
    What ``function`` returns.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.utils.checkpoint import checkpoint
    >>> x = tc.tensor([1.0, 2.0], requires_grad=True)
    >>> checkpoint(lambda t: (t * t).sum(), x, use_reentrant=True).backward()
    >>> x.grad
    tensor([2., 4.])
    """
    if use_reentrant is None:
        warnings.warn(
            _PASS_USE_REENTRANT.format(where="tensorcore.utils.checkpoint"),
            UserWarning,
            stacklevel=2,
        )
        use_reentrant = True
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if grad_mode.is_grad_enabled() and not any(
            isinstance(a, Tensor) and a.requires_grad for a in args
        ):
            warnings.warn(
                "None of the inputs have requires_grad=True. Gradients will be None",
                UserWarning,
                stacklevel=2,
            )
        return _Checkpoint.apply(function, kwargs, preserve_rng_state, None, *args)
    # A tensor that requires grad, so that the node is recorded (and the parameters inside
    # ``function`` reached on the backward pass) when no argument requires grad.
    anchor = ops.empty(0, requires_grad=True) if grad_mode.is_grad_enabled() else None
    return _Checkpoint.apply(function, kwargs, preserve_rng_state, anchor, *args)


class _Checkpoint(Function):
    """The checkpointed region as one node: ``forward`` runs the function with recording
    off, ``backward`` runs it again with recording on and backpropagates through it."""

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        function: Callable[..., Any],
        kwargs: dict[str, Any],
        preserve_rng_state: bool,
        anchor: Any,
        *args: Any,
    ) -> Any:
        ctx.function, ctx.kwargs = function, kwargs  # type: ignore[attr-defined]
        ctx.rng = _rng_states(args) if preserve_rng_state else None  # type: ignore[attr-defined]
        tensors = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.tensor_indices = tensors  # type: ignore[attr-defined]
        ctx.others = list(args)  # type: ignore[attr-defined]
        for i in tensors:
            ctx.others[i] = None  # type: ignore[attr-defined]
        ctx.save_for_backward(*(args[i] for i in tensors))
        return function(*args, **kwargs)

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Any) -> Any:
        args = list(ctx.others)  # type: ignore[attr-defined]
        inputs = []
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors, strict=True):  # type: ignore[attr-defined]
            d = t.detach()
            d.requires_grad_(t.requires_grad)
            args[i] = d
            inputs.append(d)
        rng: RngStates | None = ctx.rng  # type: ignore[attr-defined]
        now = _get_states(s[0] for s in rng) if rng is not None else None
        try:
            if rng is not None:
                _set_states(rng)
            with grad_mode.enable_grad():
                outputs = ctx.function(*args, **ctx.kwargs)  # type: ignore[attr-defined]
        finally:
            if now is not None:
                _set_states(now)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [
            (o, g)
            for o, g in zip(outputs, grad_outputs, strict=False)
            if isinstance(o, Tensor) and o.requires_grad and g is not None
        ]
        if not pairs:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        _backward([o for o, _ in pairs], [g for _, g in pairs])
        grads = iter(d.grad if d.requires_grad else None for d in inputs)
        tensors = set(ctx.tensor_indices)  # type: ignore[attr-defined]
        return (None, None, None, None) + tuple(
            next(grads) if i in tensors else None for i in range(len(args))
        )


def _rng_states(args: Iterable[Any]) -> RngStates:
    types = ["cpu"] + [a.device.type for a in args if isinstance(a, Tensor)]
    return _get_states(t for t in types if t != "meta")


def checkpoint_sequential(
    functions: Any,
    segments: int,
    input: Tensor,
    use_reentrant: bool | None = None,
    **kwargs: Any,
) -> Any:
    """Run a sequence of modules (or a :class:`~tensorcore.nn.Sequential`) in ``segments``
    checkpointed chunks; the last chunk runs normally, as in PyTorch.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.utils.checkpoint import checkpoint_sequential
    >>> net = tc.nn.Sequential(tc.nn.Linear(2, 4), tc.nn.ReLU(), tc.nn.Linear(4, 1))
    >>> out = checkpoint_sequential(net, 2, tc.randn(3, 2), use_reentrant=False)
    >>> out.shape
    tensorcore.Size([3, 1])
    """
    if use_reentrant is None:
        warnings.warn(
            _PASS_USE_REENTRANT.format(where="tensorcore.utils.checkpoint.checkpoint_sequential"),
            UserWarning,
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    fns = list(functions.children()) if hasattr(functions, "children") else list(functions)

    def run(start: int, end: int) -> Callable[[Any], Any]:
        def forward(x: Any) -> Any:
            for j in range(start, end + 1):
                x = fns[j](x)
            return x

        return forward

    size = len(fns) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(
            run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve
        )
    return run(end + 1, len(fns) - 1)(input)
