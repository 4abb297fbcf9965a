"""The base of the learning-rate schedules: :class:`LRScheduler` (``initial_lr``, the first
step, ``get_last_lr``, state dicts) and helpers the schedules share."""

from __future__ import annotations

import warnings
from typing import Any

from .optimizer import Optimizer

__all__ = ["LRScheduler"]


class LRScheduler:
    """Base class: sets each group's ``initial_lr`` (``last_epoch=-1``) and takes the first
    step, so that the groups hold the epoch-0 learning rate.

    Examples
    --------
    >>> import tensorcore as tc
    >>> opt = tc.optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=1.0)
    >>> sched = tc.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    >>> lrs = []
    >>> for _ in range(5):
    ...     opt.step()
    ...     sched.step()
    ...     lrs.append(sched.get_last_lr()[0])
    >>> lrs
    [1.0, 0.5, 0.5, 0.25, 0.25]
    """

    #: Whether ``step`` needs a metric (``ReduceLROnPlateau``): such a schedule cannot be
    #: run by ``SequentialLR``.
    _needs_metrics = False

    #: True while :meth:`step` computes the rates (``get_lr`` called elsewhere warns) and
    #: during the first step that ``__init__`` takes: instance attributes once set, so that
    #: the state dict has PyTorch's keys.
    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\nThis typically happens "
                        "when:\n1. You're trying to resume training from a checkpoint but "
                        "haven't properly loaded the optimizer state\n2. You're using "
                        "last_epoch >= 0 for a fresh training run (not recommended)"
                    )
        self.base_lrs: list[float] = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        """Take the first step (the one ``__init__`` takes), counting from 0."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:
        """The learning rates for ``last_epoch`` (from the groups' current ones)."""
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The learning rates the last ``step`` set."""
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (or jump to ``epoch``, with the closed form where there is
        one) and set the groups' learning rates."""
        if self._step_count == 1:
            _warn_if_optimizer_not_stepped(self.optimizer)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        """Set the groups' learning rates for the next epoch, or for ``epoch`` (no counting
        and no warnings: ``SequentialLR`` restarts a stage's schedule at 0 with it)."""
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned."""
        self.__dict__.update(state_dict)


#: PyTorch's warning for ``scheduler.step(epoch)``.
EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the "
    "new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose."
)


def _warn_if_optimizer_not_stepped(optimizer: Optimizer) -> None:
    """PyTorch's warning for a schedule stepped before its optimizer ever was (the first
    rate of the schedule is then skipped)."""
    if not getattr(optimizer, "_opt_called", False):
        warnings.warn(
            "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch "
            "1.1.0 and later, you should call them in the opposite order: `optimizer.step()` "
            "before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping "
            "the first value of the learning rate schedule. See more details at "
            "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
            UserWarning,
            stacklevel=3,
        )


def warn_get_lr_outside_step(scheduler: LRScheduler) -> None:
    """Warn where a built-in schedule's ``get_lr`` is called by hand: outside :meth:`step`
    it computes the next rates from the groups' current ones, not the last rates."""
    if not scheduler._get_lr_called_within_step:
        warnings.warn(
            "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
            UserWarning,
            stacklevel=3,
        )


class _WithLambdas(LRScheduler):
    """A scheduler of one function per group (``lr_lambdas``): its state holds a callable
    object's attributes in the function's place (None for a plain function), as PyTorch's."""

    lr_lambdas: list[Any]

    def state_dict(self) -> dict[str, Any]:
        """The state, with callable objects' attributes instead of the functions."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(f, type(lambda: 0)) else dict(vars(f)) for f in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state (and callable objects' attributes)."""
        state = dict(state_dict)
        lambdas = state.pop("lr_lambdas", None) or [None] * len(self.lr_lambdas)
        self.__dict__.update(state)
        for f, saved in zip(self.lr_lambdas, lambdas, strict=True):
            if saved is not None:
                vars(f).update(saved)


def _lrs(s: LRScheduler) -> list[float]:
    return [g["lr"] for g in s.optimizer.param_groups]


def _per_group(value: Any, n: int, name: str) -> list[float]:
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"expected {n} values for {name}, got {len(value)}")
        return list(value)
    return [value] * n


def _lambdas(optimizer: Optimizer, lr_lambda: Any) -> list[Any]:
    """One function per parameter group (``LambdaLR``, ``MultiplicativeLR``): the list given,
    or the one function for every group."""
    n = len(optimizer.param_groups)
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != n:
            raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
        return list(lr_lambda)
    return [lr_lambda] * n
