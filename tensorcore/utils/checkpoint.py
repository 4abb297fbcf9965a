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

import contextlib
import enum
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.engine import backward as _backward
from ..autograd.function import Function, FunctionCtx
from ..ops import functions as ops
from ..random import RngStates, _get_states, _set_states

__all__ = [
    "CheckpointPolicy",
    "DefaultDeviceType",
    "checkpoint",
    "checkpoint_sequential",
    "create_selective_checkpoint_contexts",
    "detach_variable",
    "noop_context_fn",
    "set_checkpoint_debug_enabled",
    "set_checkpoint_early_stop",
]

_PASS_USE_REENTRANT = (
    "{where}: the use_reentrant parameter should be passed explicitly. {when} "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants."
)
# (PyTorch 2.13's two wordings of when that becomes an error)
_WHEN_CHECKPOINT = (
    "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception."
)
_WHEN_SEQUENTIAL = "In version 2.9 we will raise an exception if use_reentrant is not passed."


def noop_context_fn() -> tuple[contextlib.AbstractContextManager[Any], ...]:
    """The default ``context_fn`` of :func:`checkpoint`: two contexts that do nothing."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = None,
    context_fn: Callable[[], tuple[Any, ...]] = noop_context_fn,
    determinism_check: str = "default",
    debug: bool = False,
    early_stop: bool = True,
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
    context_fn : callable
        ``use_reentrant=False`` only: returns two context managers, the first entered around
        the forward run and the second around the recomputation (PyTorch's hook for
        selective checkpointing, :func:`create_selective_checkpoint_contexts`).
    determinism_check, debug, early_stop
        PyTorch's switches, checked and accepted: ``"default"`` or ``"none"``; ``debug``
        only with ``use_reentrant=False``. tensorcore recomputes the whole region either way.
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
            _PASS_USE_REENTRANT.format(where="tensorcore.utils.checkpoint", when=_WHEN_CHECKPOINT),
            UserWarning,
            stacklevel=2,
        )
        use_reentrant = True
    if determinism_check not in ("default", "none"):
        raise ValueError(
            f"determinism_check should be one of ['default', 'none'], but got {determinism_check}"
        )
    if use_reentrant:
        if context_fn is not noop_context_fn or debug:
            raise ValueError(
                "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
            )
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
        return _Checkpoint.apply(function, kwargs, preserve_rng_state, None, None, *args)
    # A tensor that requires grad, so that the node is recorded (and the parameters inside
    # ``function`` reached on the backward pass) when no argument requires grad.
    anchor = ops.empty(0, requires_grad=True) if grad_mode.is_grad_enabled() else None
    forward_ctx, recompute_ctx = context_fn()
    with forward_ctx:
        return _Checkpoint.apply(function, kwargs, preserve_rng_state, recompute_ctx, anchor, *args)


class _Checkpoint(Function):
    """The checkpointed region as one node: ``forward`` runs the function with recording
    off, ``backward`` runs it again with recording on and backpropagates through it."""

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        function: Callable[..., Any],
        kwargs: dict[str, Any],
        preserve_rng_state: bool,
        recompute_ctx: Any,
        anchor: Any,
        *args: Any,
    ) -> Any:
        ctx.function, ctx.kwargs = function, kwargs  # type: ignore[attr-defined]
        ctx.recompute_ctx = recompute_ctx or contextlib.nullcontext()  # type: ignore[attr-defined]
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
            with grad_mode.enable_grad(), ctx.recompute_ctx:  # type: ignore[attr-defined]
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
        return (None, None, None, None, None) + tuple(
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
            _PASS_USE_REENTRANT.format(
                where="tensorcore.utils.checkpoint.checkpoint_sequential", when=_WHEN_SEQUENTIAL
            ),
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


def detach_variable(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """Each tensor of ``inputs`` detached, keeping its ``requires_grad`` (other values as
    given), as code written for the reentrant checkpoint calls it.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.utils.checkpoint import detach_variable
    >>> x = tc.ones(2, requires_grad=True) * 2
    >>> d, n = detach_variable((x, 3))
    >>> d.grad_fn is None, d.requires_grad, n
    (True, True, 3)
    """
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            "Only tuple of tensors is supported. Got Unsupported input type: "
            + type(inputs).__name__
        )
    out = []
    for x in inputs:
        if isinstance(x, Tensor):
            d = x.detach()
            d.requires_grad = x.requires_grad
            x = d
        out.append(x)
    return tuple(out)


class CheckpointPolicy(enum.Enum):
    """What selective checkpointing does with an operator's output: save it, or recompute
    it in the backward pass (a preference or a must)."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


def create_selective_checkpoint_contexts(
    policy_fn_or_list: Any, allow_cache_entry_mutation: bool = False
) -> tuple[contextlib.AbstractContextManager[Any], ...]:
    """The ``context_fn`` contexts of PyTorch's selective checkpointing, for
    ``checkpoint(..., use_reentrant=False, context_fn=partial(this, policy))``.

    tensorcore checks the policy (a callable ``policy(ctx, op, *args, **kwargs)`` or a list
    of operators to save) and then recomputes the whole region: saving an output is
    PyTorch's optimisation, and the random streams are rewound before recomputing, so the
    values and gradients are the same.
    """
    if not (callable(policy_fn_or_list) or isinstance(policy_fn_or_list, list)):
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    return contextlib.nullcontext(), contextlib.nullcontext()


_flags = {"early_stop": True, "debug": None}


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool) -> Iterator[None]:
    """PyTorch's switch for stopping a recomputation once the saved tensors it needs are
    back; accepted (tensorcore recomputes the whole region)."""
    prev, _flags["early_stop"] = _flags["early_stop"], enable
    try:
        yield
    finally:
        _flags["early_stop"] = prev


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None) -> Iterator[None]:
    """PyTorch's switch for checkpoint's debug traces; accepted."""
    prev, _flags["debug"] = _flags["debug"], enabled
    try:
        yield
    finally:
        _flags["debug"] = prev


class DefaultDeviceType:
    """The device type whose random stream checkpoint rewinds besides the CPU's (PyTorch's
    setting; tensorcore rewinds the CPU's and those of the arguments' devices)."""

    _default_device_type = "cpu"

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        """Set the default device type."""
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        """The default device type."""
        return DefaultDeviceType._default_device_type
