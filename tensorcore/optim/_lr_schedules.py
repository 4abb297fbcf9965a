"""More learning-rate schedules, with PyTorch's formulas: constant and polynomial factors,
multiplicative steps, cosine annealing with warm restarts, cyclic rates, and the two ways of
combining schedules (one after another, or all at every step). Re-exported by
``tensorcore.optim.lr_scheduler``."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Any

from ._lr_base import (
    LRScheduler,
    _lambdas,
    _lrs,
    _per_group,
    _WithLambdas,
    warn_get_lr_outside_step,
)
from .optimizer import Optimizer

__all__ = [
    "ChainedScheduler",
    "ConstantLR",
    "CosineAnnealingWarmRestarts",
    "CyclicLR",
    "MultiplicativeLR",
    "PolynomialLR",
    "SequentialLR",
]


class ConstantLR(LRScheduler):
    """Multiply the learning rate by ``factor`` until epoch ``total_iters``, then restore it.

    Examples
    --------
    >>> import tensorcore as tc
    >>> opt = tc.optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=0.9)
    >>> sched = tc.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
    >>> lrs = [sched.get_last_lr()[0]]
    >>> for _ in range(3):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [0.45, 0.45, 0.9, 0.9]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """Chainable form."""
        warn_get_lr_outside_step(self)
        if self.last_epoch == 0:
            return [lr * self.factor for lr in _lrs(self)]
        if self.last_epoch != self.total_iters:
            return _lrs(self)
        return [lr / self.factor for lr in _lrs(self)]

    def _get_closed_form_lr(self) -> list[float]:
        f = self.factor if self.last_epoch < self.total_iters else 1.0
        return [b * f for b in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the learning rate as ``(1 - epoch / total_iters) ** power``, to 0 at
    ``total_iters``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> opt = tc.optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=1.0)
    >>> sched = tc.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=2.0)
    >>> for _ in range(2):
    ...     opt.step()
    ...     sched.step()
    >>> sched.get_last_lr()
    [0.25]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        total_iters: int = 5,
        power: float = 1.0,
        last_epoch: int = -1,
    ) -> None:
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """Chainable form."""
        warn_get_lr_outside_step(self)
        e, t = self.last_epoch, self.total_iters
        if e == 0 or e > t:
            return _lrs(self)
        decay = ((1.0 - e / t) / (1.0 - (e - 1) / t)) ** self.power
        return [lr * decay for lr in _lrs(self)]

    def _get_closed_form_lr(self) -> list[float]:
        e, t = self.last_epoch, self.total_iters
        return [b * (1.0 - min(t, e) / t) ** self.power for b in self.base_lrs]


class MultiplicativeLR(_WithLambdas):
    """Multiply the learning rate by ``lr_lambda(epoch)`` at every step (one function, or
    one per group).

    Examples
    --------
    >>> import tensorcore as tc
    >>> opt = tc.optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=1.0)
    >>> sched = tc.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.5)
    >>> opt.step(); sched.step(); opt.step(); sched.step()
    >>> sched.get_last_lr()
    [0.25]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.lr_lambdas = _lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """``lr * lambda(last_epoch)`` after the first epoch."""
        warn_get_lr_outside_step(self)
        if self.last_epoch <= 0:
            return _lrs(self)
        return [lr * f(self.last_epoch) for f, lr in zip(self.lr_lambdas, _lrs(self), strict=True)]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from the initial learning rate to ``eta_min`` over ``T_0`` epochs,
    restarting then, each period ``T_mult`` times longer than the last (SGDR).
    ``step(epoch)`` takes a fractional epoch (``epoch + i / iters`` inside an epoch).

    Examples
    --------
    >>> import tensorcore as tc
    >>> opt = tc.optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=1.0)
    >>> sched = tc.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
    >>> lrs = []
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(round(sched.get_last_lr()[0], 3))
    >>> lrs
    [0.5, 1.0, 0.5, 1.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur: float = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The cosine of the current period's position ``T_cur / T_i``."""
        warn_get_lr_outside_step(self)
        c = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [self.eta_min + (b - self.eta_min) * c for b in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """Advance one epoch, or go to the (possibly fractional) ``epoch``."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i, self.T_cur = self.T_0, epoch
        # (Not counted in ``_step_count``, as PyTorch's: this schedule never warns of a step
        # before the optimizer's.)
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = _lrs(self)


_SCALES: dict[str, tuple[Callable[[float, float], float], str]] = {
    "triangular": (lambda x, gamma: 1.0, "cycle"),
    "triangular2": (lambda x, gamma: 1 / (2.0 ** (x - 1)), "cycle"),
    "exp_range": (lambda x, gamma: gamma**x, "iterations"),
}


class CyclicLR(LRScheduler):
    """Cycle the learning rate between ``base_lr`` and ``max_lr`` (up in ``step_size_up``
    steps, down in ``step_size_down``), with the amplitude scaled by ``mode`` or
    ``scale_fn``; momentum (or Adam's beta1) cycles the other way. Step it after every batch.

    Examples
    --------
    >>> import tensorcore as tc
    >>> opt = tc.optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=0.1, momentum=0.9)
    >>> sched = tc.optim.lr_scheduler.CyclicLR(opt, 0.0, 1.0, step_size_up=2)
    >>> lrs = [sched.get_last_lr()[0]]
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [0.0, 0.5, 1.0, 0.5, 0.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float | list[float],
        max_lr: float | list[float],
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.8,
        max_momentum: float | list[float] = 0.9,
        last_epoch: int = -1,
    ) -> None:
        groups = optimizer.param_groups
        bases = _per_group(base_lr, len(groups), "base_lr")
        if last_epoch == -1:
            for lr, g in zip(bases, groups, strict=True):
                g["lr"] = lr
        self.max_lrs = _per_group(max_lr, len(groups), "max_lr")
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in _SCALES and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode if scale_fn is not None else _SCALES[mode][1]
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = _per_group(base_momentum, len(groups), "base_momentum")
            self.max_momentums = _per_group(max_momentum, len(groups), "max_momentum")
            if last_epoch == -1:
                for m, b, g in zip(self.max_momentums, self.base_momentums, groups, strict=True):
                    self._set_momentum(g, m)
                    g["max_momentum"], g["base_momentum"] = m, b
        super().__init__(optimizer, last_epoch)
        self.base_lrs = bases

    def scale_fn(self, x: float) -> float:
        """The amplitude's scale at cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return _SCALES[self.mode][0](x, self.gamma)

    def _set_momentum(self, group: dict[str, Any], m: float) -> None:
        if self.use_beta1:
            group["betas"] = (m, *group["betas"][1:])
        else:
            group["momentum"] = m

    def get_lr(self) -> list[float]:
        """The learning rates (and momenta) of step ``last_epoch``."""
        warn_get_lr_outside_step(self)
        e = self.last_epoch
        cycle = math.floor(1 + e / self.total_size)
        x = 1.0 + e / self.total_size - cycle
        r = self.step_ratio
        scale = x / r if x <= r else (x - 1) / (r - 1)
        amp = self.scale_fn(cycle if self.scale_mode == "cycle" else e)
        bases = getattr(self, "base_lrs", None) or _lrs(self)
        lrs = [b + (hi - b) * scale * amp for b, hi in zip(bases, self.max_lrs, strict=True)]
        if self.cycle_momentum:
            for g, lo, hi in zip(
                self.optimizer.param_groups, self.base_momentums, self.max_momentums, strict=True
            ):
                self._set_momentum(g, hi - (hi - lo) * scale * amp)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        """The state; a custom ``scale_fn`` as None (a function) or its attributes (a
        callable object), as PyTorch's."""
        state = {k: v for k, v in self.__dict__.items() if k != "optimizer"}
        fn = state["_scale_fn_custom"]
        state["_scale_fn_custom"] = (
            None if fn is None or isinstance(fn, type(lambda: 0)) else dict(vars(fn))
        )
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state, keeping this scheduler's ``scale_fn`` (its attributes
        restored)."""
        state = dict(state_dict)
        saved = state.pop("_scale_fn_custom", None)
        self.__dict__.update(state)
        if saved is not None and self._scale_fn_custom is not None:
            vars(self._scale_fn_custom).update(saved)


class _OfSchedulers(LRScheduler):
    """A scheduler made of schedulers (``_schedulers``): its state holds theirs."""

    _schedulers: list[Any]

    def state_dict(self) -> dict[str, Any]:
        """The state, with each scheduler's state dict in place of the schedulers."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned, the schedulers' states included."""
        state = dict(state_dict)
        inner = state.pop("_schedulers")
        self.__dict__.update(state)
        for s, sd in zip(self._schedulers, inner, strict=True):
            s.load_state_dict(sd)


class SequentialLR(_OfSchedulers):
    """Run ``schedulers`` one after another, switching at the epochs in ``milestones`` (a
    warm-up then a decay). The schedulers must share ``optimizer``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.optim import lr_scheduler as S
    >>> opt = tc.optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=1.0)
    >>> warm = S.LinearLR(opt, start_factor=0.5, total_iters=2)
    >>> decay = S.ExponentialLR(opt, gamma=0.5)
    >>> sched = S.SequentialLR(opt, [warm, decay], milestones=[2])
    >>> lrs = [sched.get_last_lr()[0]]
    >>> for _ in range(4):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [0.5, 0.75, 1.0, 0.5, 0.25]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: Sequence[LRScheduler],
        milestones: Sequence[int],
        last_epoch: int = -1,
    ) -> None:
        if len(schedulers) < 1:
            raise ValueError(
                f"{type(self).__name__} expects at least one scheduler, but got no scheduler."
            )
        for i, s in enumerate(schedulers):
            if not hasattr(s, "optimizer"):
                raise TypeError(
                    f"{type(self).__name__} at index {i} should have `optimizer` as its attribute."
                )
            if s._needs_metrics:
                raise ValueError(
                    f"{type(self).__name__} does not support `ReduceLROnPlateau` scheduler as "
                    "it requires additional kwargs to be specified when calling `step`, but "
                    f"got one at index {i} in the given schedulers sequence."
                )
            if s.optimizer is not optimizer:
                raise ValueError(
                    f"{type(self).__name__} expects all schedulers to belong to the same "
                    f"optimizer, but got scheduler {type(s).__name__} at index {i} has "
                    f"{s.optimizer}, which is different from {optimizer}."
                )
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to "
                f"{len(milestones)}"
            )
        self._schedulers = list(schedulers)
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for g in optimizer.param_groups:
            g["lr"] = g["initial_lr"]
        # Each scheduler took its first step when made; only the first one's counts.
        for s in self._schedulers:
            s.last_epoch -= 1
        first = self._schedulers[0]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self, epoch: int | None = None) -> None:
        """Advance the scheduler of the current stage (restarting the next one from its
        epoch 0 at a milestone)."""
        self.last_epoch += 1
        i = bisect_right(self._milestones, self.last_epoch)
        s = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            s._update_lr(0)
        else:
            s.step()
        self._last_lr = s.get_last_lr()


class ChainedScheduler(_OfSchedulers):
    """Step every scheduler of ``schedulers`` at each step, so that their factors compose.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.optim import lr_scheduler as S
    >>> opt = tc.optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=1.0)
    >>> sched = S.ChainedScheduler(
    ...     [S.ConstantLR(opt, factor=0.5, total_iters=2), S.ExponentialLR(opt, gamma=0.5)]
    ... )
    >>> lrs = [sched.get_last_lr()[0]]
    >>> for _ in range(3):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [0.5, 0.25, 0.25, 0.125]
    """

    def __init__(
        self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None
    ) -> None:
        if len(schedulers) < 1:
            raise ValueError(
                f"{type(self).__name__} expects at least one scheduler to be chained, but got "
                "no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        for i, s in enumerate(schedulers):
            if s.optimizer is not optimizer:
                raise ValueError(
                    f"{type(self).__name__} expects all schedulers to belong to the same "
                    f"optimizer, but got scheduler {type(s).__name__} at index {i} has "
                    f"{s.optimizer}, which is different from {optimizer}."
                )
        self._schedulers = list(schedulers)
        self.optimizer = optimizer
        self._last_lr = _lrs(self)

    def step(self, epoch: int | None = None) -> None:
        """Step every scheduler."""
        for s in self._schedulers:
            s.step()
        self._last_lr = _lrs(self)
