"""Stochastic weight averaging and exponential moving averages of a model's weights
(``tensorcore.optim.swa_utils``), as PyTorch's: :class:`AveragedModel`, :func:`update_bn`,
the :class:`SWALR` schedule and the averaging functions."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..nn.modules.module import Module
from ..nn.modules.normalization import _BatchNorm
from ..ops import functions as ops
from ._lr_base import LRScheduler, _per_group, warn_get_lr_outside_step
from .optimizer import Optimizer

__all__ = [
    "SWALR",
    "AveragedModel",
    "get_ema_avg_fn",
    "get_ema_multi_avg_fn",
    "get_swa_avg_fn",
    "get_swa_multi_avg_fn",
    "update_bn",
]

ParamList = list[Tensor] | tuple[Tensor, ...]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable[[ParamList, ParamList, Any], None]:
    """An in-place exponential moving average of lists of parameters (``multi_avg_fn``):
    ``ema = decay * ema + (1 - decay) * param``, a ``lerp`` for floating tensors.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.optim.swa_utils import get_ema_multi_avg_fn
    >>> ema, p = [tc.zeros(2)], [tc.ones(2)]
    >>> get_ema_multi_avg_fn(0.9)(ema, p, None); ema[0]
    tensor([0.1000, 0.1000])
    """
    _check_decay(decay)

    def ema_update(ema_params: ParamList, current: ParamList, _: Any) -> None:
        with no_grad():
            for p_ema, p in zip(ema_params, current, strict=True):
                if p_ema.is_floating_point() or p_ema.is_complex():
                    p_ema.lerp_(p, 1 - decay)
                else:
                    p_ema.copy_(p_ema * decay + p * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable[[ParamList, ParamList, Any], None]:
    """An in-place running mean of lists of parameters (``multi_avg_fn``): after ``n``
    averaged models, ``avg += (param - avg) / (n + 1)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.optim.swa_utils import get_swa_multi_avg_fn
    >>> avg = [tc.tensor([1.0])]
    >>> get_swa_multi_avg_fn()(avg, [tc.tensor([4.0])], 2); avg[0]
    tensor([2.])
    """

    def swa_update(averaged: ParamList, current: ParamList, num_averaged: Any) -> None:
        with no_grad():
            for p_avg, p in zip(averaged, current, strict=True):
                if p_avg.is_floating_point() or p_avg.is_complex():
                    w = 1 / (num_averaged + 1)
                    p_avg.lerp_(p, float(w) if isinstance(w, Tensor) else w)
                else:
                    p_avg.add_((p - p_avg) / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable[[Tensor, Tensor, Any], Tensor]:
    """The exponential moving average of one parameter (``avg_fn``), returned.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.optim.swa_utils import get_ema_avg_fn
    >>> get_ema_avg_fn(0.5)(tc.tensor([0.0]), tc.tensor([1.0]), 3)
    tensor([0.5000])
    """
    _check_decay(decay)

    def ema_update(ema_param: Tensor, current: Tensor, num_averaged: Any) -> Tensor:
        with no_grad():
            return decay * ema_param + (1 - decay) * current

    return ema_update


def get_swa_avg_fn() -> Callable[[Tensor, Tensor, Any], Tensor]:
    """The running mean of one parameter (``avg_fn``), returned.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.optim.swa_utils import get_swa_avg_fn
    >>> get_swa_avg_fn()(tc.tensor([1.0]), tc.tensor([4.0]), 2)
    tensor([2.])
    """

    def swa_update(averaged: Tensor, current: Tensor, num_averaged: Any) -> Tensor:
        with no_grad():
            return averaged + (current - averaged) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose weights average the weights it is updated with: a running
    mean by default (SWA), or what ``avg_fn``/``multi_avg_fn`` compute (an EMA with
    :func:`get_ema_multi_avg_fn`). Buffers are copied from the model unless
    ``use_buffers=True`` averages them too.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.optim.swa_utils import AveragedModel
    >>> model = tc.nn.Linear(1, 1, bias=False)
    >>> swa = AveragedModel(model)
    >>> for w in (1.0, 2.0, 6.0):
    ...     with tc.no_grad():
    ...         _ = model.weight.fill_(w)
    ...     swa.update_parameters(model)
    >>> swa.module.weight.item(), swa.n_averaged.item()
    (3.0, 3)
    """

    n_averaged: Tensor

    def __init__(
        self,
        model: Module,
        device: Any = None,
        avg_fn: Callable[[Tensor, Tensor, Any], Tensor] | None = None,
        multi_avg_fn: Callable[[ParamList, ParamList, Any], None] | None = None,
        use_buffers: bool = False,
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", ops.zeros((), dtype=dt.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The averaged module's output."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Average ``model``'s current weights in (the first call copies them)."""
        if self.use_buffers:
            own: Iterable[Tensor] = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs: Iterable[Tensor] = itertools.chain(model.parameters(), model.buffers())
        else:
            own, theirs = self.parameters(), model.parameters()
        mine: list[Tensor] = []
        current: list[Tensor] = []
        first = bool(self.n_averaged == 0)
        for p_avg, p in zip(own, theirs, strict=False):
            p_ = p.detach().to(p_avg.device)
            mine.append(p_avg.detach())
            current.append(p_)
            if first:
                p_avg.detach().copy_(p_)
        if not first:
            if self.avg_fn is not None:
                for p_avg, p in zip(mine, current, strict=True):
                    p_avg.copy_(self.avg_fn(p_avg, p, self.n_averaged.to(p_avg.device)))
            elif self.multi_avg_fn is not None:
                self.multi_avg_fn(mine, current, self.n_averaged)
            elif mine and mine[0].device.type == "cuda":
                # PyTorch's foreach path (a lerp) on the devices that have foreach kernels.
                get_swa_multi_avg_fn()(mine, current, self.n_averaged)
            else:
                avg = get_swa_avg_fn()
                for p_avg, p in zip(mine, current, strict=True):
                    p_avg.copy_(avg(p_avg, p, self.n_averaged.to(p_avg.device)))
        if not self.use_buffers:
            for b_avg, b in zip(self.module.buffers(), model.buffers(), strict=True):
                b_avg.detach().copy_(b.detach().to(b_avg.device))
        self.n_averaged += 1


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute the running statistics of ``model``'s batch norms over one pass of
    ``loader`` (a cumulative average, ``momentum=None``), as after SWA.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.optim.swa_utils import update_bn
    >>> bn = tc.nn.BatchNorm1d(1)
    >>> update_bn([tc.tensor([[1.0], [3.0]]), tc.tensor([[5.0], [7.0]])], bn)
    >>> bn.running_mean
    tensor([4.])
    """
    momenta: dict[Any, Any] = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to ``swa_lr`` over ``anneal_epochs`` epochs
    (``"cos"`` or ``"linear"``), then hold it.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.optim.swa_utils import SWALR
    >>> opt = tc.optim.SGD([tc.zeros(1, requires_grad=True)], lr=1.0)
    >>> s = SWALR(opt, swa_lr=0.5, anneal_epochs=2, anneal_strategy="linear")
    >>> [round(g["lr"], 4) for g in opt.param_groups]
    [1.0]
    >>> opt.step(); s.step(); opt.step(); s.step(); round(opt.param_groups[0]["lr"], 4)
    0.5
    """

    def __init__(
        self,
        optimizer: Optimizer,
        swa_lr: Any,
        anneal_epochs: int = 10,
        anneal_strategy: str = "cos",
        last_epoch: int = -1,
    ) -> None:
        swa_lrs = _per_group(swa_lr, len(optimizer.param_groups), "swa_lr")
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_strategy = anneal_strategy
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def _anneal(self, t: float) -> float:
        return t if self._anneal_strategy == "linear" else (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[float]:
        """The learning rates of the current step, from the groups' current ones."""
        warn_get_lr_outside_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self._anneal(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        groups = self.optimizer.param_groups
        prev = [self._initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in groups]
        alpha = self._anneal(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(groups, prev, strict=True)]
