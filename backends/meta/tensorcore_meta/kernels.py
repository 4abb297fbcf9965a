"""The meta kernels: one per operator of the runtime table, each deciding what "running" the
operator means for tensors without data.

Three kinds, by the operator's frontend (:func:`tensorcore.backend.op_frontend`):

- **allocated**: a pointwise, reduction, structured or factory operator's frontend has
  already checked the arguments and allocated its outputs with the shape, dtype and strides a
  real device gives. There is nothing left to compute, so the kernel does nothing.
- **unstructured**, decided one by one as PyTorch's meta device does: in-place initialisers
  (``copy_``, ``fill_``, ``uniform_`` ...) check their arguments and write nothing;
  operators that read values (``item``, ``tolist``) raise PyTorch's errors; ``einsum``,
  integer-array ``index`` and the composites that read values on the way to a result of a
  known shape (``histc``, ``quantile`` ...) compute that shape (``shapes.py``).
- **data-dependent**: operators whose result's *shape* depends on the values (``nonzero``,
  boolean masks, ``unique`` ...) raise a ``NotImplementedError`` naming the operator and the
  meta device.

Views and the core's composites need nothing here: they are registered for every device and
run on the kernels above.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import tensorcore as tc
import tensorcore.backend as backend
from tensorcore.backend import Tensor

from . import shapes
from .device import copy_out_error, data_dependent_error

__all__ = ["DATA_DEPENDENT", "READS_VALUES", "UNSTRUCTURED", "allocated", "kernels_for"]

#: Operators whose result's shape depends on the input's values: they raise on meta.
DATA_DEPENDENT = (
    "nonzero",
    "nonzero_numpy",
    "argwhere",
    "unique",
    "unique_consecutive",
    "masked_select",
    "bincount",
)

#: Operators that return values as Python objects: they raise on meta, as in PyTorch.
READS_VALUES = ("item", "tolist")


def allocated(op: str) -> Callable[..., None]:
    """The kernel of an operator whose frontend allocates its outputs: it does nothing, since
    the outputs' metadata is the whole result on a device without data.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore_meta.kernels import allocated
    >>> allocated("add").__name__
    'add'
    """

    def kernel(out: Any, *args: Any) -> None:
        return None

    kernel.__name__ = kernel.__qualname__ = op  # as tc.explain and tracebacks name it
    kernel.__doc__ = f"``{op}`` on meta: its outputs, allocated by the core, are the result."
    return kernel


def _data_dependent(op: str) -> Callable[..., Any]:
    def kernel(*args: Any) -> Any:
        raise data_dependent_error(op, *(a for a in args if isinstance(a, Tensor)))

    kernel.__name__ = kernel.__qualname__ = op
    kernel.__doc__ = f"``{op}`` on meta: its result's shape depends on data, so it raises."
    return kernel


# ------------------------------------------------------------------ reading values
def item(self: Tensor) -> Any:
    """PyTorch's error: there is no value to return."""
    raise RuntimeError("Tensor.item() cannot be called on meta tensors")


def tolist(self: Tensor) -> Any:
    """PyTorch's error: ``tolist`` copies the values out, and there are none."""
    raise copy_out_error()


# ------------------------------------------------------------------ in-place writes
def copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """Nothing to copy; ``src`` must still broadcast to ``self``."""
    if src.shape != self.shape and backend.broadcast_shapes(self.shape, src.shape) != self.shape:
        raise RuntimeError(
            f"output with shape {list(self.shape)} doesn't match the broadcast shape "
            f"{list(backend.broadcast_shapes(self.shape, src.shape))}"
        )
    return self


def fill_(self: Tensor, value: Any) -> Tensor:
    """Nothing to fill (the core has checked ``value``)."""
    return self


def uniform_(
    self: Tensor, from_: float = 0.0, to: float = 1.0, generator: tc.Generator | None = None
) -> Tensor:
    """Draws nothing (so no generator advances, whichever is passed), after PyTorch's
    argument checks."""
    if from_ > to:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={from_:g} > to={to:g}"
        )
    return self


def normal_(
    self: Tensor, mean: float = 0.0, std: float = 1.0, generator: tc.Generator | None = None
) -> Tensor:
    """Draws nothing, after PyTorch's argument checks."""
    if not std >= 0:  # (NaN too)
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    return self


def random_(
    self: Tensor, low: int | None = None, high: int | None = None, generator: Any = None
) -> Tensor:
    """Draws nothing (the operator's declared check has refused bad bounds)."""
    return self


def _check_lists(op: str, params: Sequence[Tensor], **lists: Sequence[Tensor]) -> None:
    for what, tensors in lists.items():
        if len(tensors) != len(params):
            raise ValueError(f"{op}(): {what} has {len(tensors)} tensors for {len(params)} params")
        for i, (p, t) in enumerate(zip(params, tensors, strict=True)):
            if t.shape != p.shape or t.dtype is not p.dtype or t.device != p.device:
                raise ValueError(f"{op}(): {what}[{i}] does not match params[{i}]")


def _fused_sgd_(
    params: list[Tensor],
    grads: list[Tensor],
    momentum_buffers: list[Tensor],
    first_step: list[int],
    lr: float,
    momentum: float,
    *options: Any,
) -> None:
    """An SGD step that changes no values: the lists are checked as a real step checks them."""
    bufs = {"momentum_buffers": momentum_buffers} if momentum else {}
    _check_lists("_fused_sgd_", params, grads=grads, **bufs)
    if len(first_step) != len(params) or any(f not in (0, 1) for f in first_step):
        raise ValueError(
            f"_fused_sgd_(): first_step must hold one 0 or 1 per param, got {list(first_step)}"
        )


def _fused_adam_(
    params: list[Tensor],
    grads: list[Tensor],
    exp_avgs: list[Tensor],
    exp_avg_sqs: list[Tensor],
    max_exp_avg_sqs: list[Tensor],
    state_steps: list[Tensor],
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    weight_decay: float,
    amsgrad: bool,
    *options: Any,
) -> None:
    """An Adam step that changes no values, after the lists' checks."""
    lists = {"grads": grads, "exp_avgs": exp_avgs, "exp_avg_sqs": exp_avg_sqs}
    if amsgrad:
        lists["max_exp_avg_sqs"] = max_exp_avg_sqs
    _check_lists("_fused_adam_", params, **lists)


#: The unstructured operators that have their own meta kernel here.
UNSTRUCTURED: dict[str, Callable[..., Any]] = {
    "item": item,
    "tolist": tolist,
    "copy_": copy_,
    "fill_": fill_,
    "uniform_": uniform_,
    "normal_": normal_,
    "random_": random_,
    "_fused_sgd_": _fused_sgd_,
    "_fused_adam_": _fused_adam_,
    **shapes.SHAPES,
}


def kernels_for(ops: Sequence[str]) -> dict[str, Callable[..., Any]]:
    """The meta kernel of each operator of ``ops`` (``register.ops()``) that needs one:
    every operator whose frontend allocates its outputs, the unstructured ones decided
    above, and a raising kernel for the data-dependent ones. The others (views, composites)
    have kernels for every device already.

    Examples
    --------
    >>> from tensorcore_meta.kernels import kernels_for
    >>> sorted(kernels_for(["add", "nonzero", "transpose"]))
    ['add', 'nonzero']
    """
    table: dict[str, Callable[..., Any]] = {}
    for op in ops:
        if op in UNSTRUCTURED:
            table[op] = UNSTRUCTURED[op]
        elif op in DATA_DEPENDENT:
            table[op] = _data_dependent(op)
        elif backend.op_frontend(op) != "unstructured":
            table[op] = allocated(op)
    return table
